"""Semantic verification (envscale.materialize.verify): every tool is held to the meaning of its name.

Each case is a small spec whose operation contradicts its tool's name (a `todo_delete` that
inserts, a `cancel_order` that leaves the order pending, a `get_order` that looks in the wrong
table...), next to the same spec done right. Mechanical checks pass on all of them: only the
semantic checks can tell them apart. The last tests prove the mechanical checks are live too, with
a runtime broken on purpose (`Environment.step` wrapped): a read that writes, a write that changes
more than it declares (another row, a table it does not write, more rows of an effect's table),
invalid calls that succeed or change the state.
"""

import copy
import re

import pytest

from envscale.env import Environment, load_spec
from envscale.materialize.verify import undeclared_changes, verify, verify_report

ARG = {"type": "string"}

TABLES = {
    "customers": {
        "primary_key": "customer_id",
        "columns": {
            "customer_id": {"type": "string"},
            "name": {"type": "string", "nullable": False},
            "email": {"type": "string", "unique": True, "nullable": False},
        },
    },
    "orders": {
        "primary_key": "order_id",
        "columns": {
            "order_id": {"type": "string"},
            "customer_id": {"type": "string", "references": "customers", "nullable": False},
            "status": {"type": "string", "enum": ["pending", "shipped", "cancelled"], "nullable": False},
            "total": {"type": "number", "nullable": False},
            "note": {"type": "string"},
        },
    },
    "todos": {
        "primary_key": "todo_id",
        "columns": {
            "todo_id": {"type": "string"},
            "title": {"type": "string", "nullable": False},
            "done": {"type": "boolean", "nullable": False},
            "archived": {"type": "boolean", "nullable": False},
        },
    },
    "invoices": {
        "primary_key": "invoice_id",
        "columns": {
            "invoice_id": {"type": "string"},
            "order_id": {"type": "string", "references": "orders", "nullable": False},
            "amount": {"type": "number", "nullable": False},
        },
    },
}
# Every status occurs, so that a status or retire verb always has rows to act on.
ORDERS = [
    {
        "order_id": f"ord_{i:04d}",
        "customer_id": f"cus_{i % 3 + 1:04d}",
        "status": ["pending", "shipped", "cancelled"][i % 3],
        "total": 10.0 * i,
        "note": f"note {i}",
    }
    for i in range(1, 10)
]
STATE = {
    "customers": [
        {"customer_id": f"cus_{i:04d}", "name": f"Customer {i}", "email": f"c{i}@example.com"}
        for i in range(1, 4)
    ],
    "orders": ORDERS,
    "todos": [
        {"todo_id": f"tod_{i:04d}", "title": f"Todo {i}", "done": i % 2 == 0, "archived": i % 3 == 0}
        for i in range(1, 7)
    ],
    "invoices": [
        {"invoice_id": f"inv_{i:04d}", "order_id": f"ord_{i:04d}", "amount": 10.0 * i} for i in range(1, 4)
    ],
}


def _tool(name, kind, properties, required, operation, **extra):
    return {
        "name": name,
        "description": extra.pop("description", ""),
        "kind": kind,
        "parameters": {"type": "object", "properties": properties, "required": required},
        "operation": operation,
        **extra,
    }


def _get(name, table, key):
    return _tool(name, "read", {key: ARG}, [key], {"type": "get", "table": table, "key": {key: key}})


BASE = {
    t["name"]: t
    for t in [
        _get("get_customer", "customers", "customer_id"),
        _get("get_order", "orders", "order_id"),
        _get("get_todo", "todos", "todo_id"),
        _tool(
            "create_todo",
            "write",
            {"title": ARG},
            ["title"],
            {
                "type": "insert",
                "table": "todos",
                "values": {"title": "title"},
                "generate": {"todo_id": "id"},
                "defaults": {"done": False, "archived": False},
            },
        ),
    ]
}


def _spec(*tools, base=tuple(BASE)):
    """The base environment (three reads, one write) with `tools` added or replacing base tools."""
    chosen = {name: BASE[name] for name in base}
    chosen.update({t["name"]: t for t in tools})
    return {
        "name": "semantic_case",
        "tables": copy.deepcopy(TABLES),
        "initial_state": copy.deepcopy(STATE),
        "data": {"now": "2025-06-01T12:00:00Z"},
        "tools": copy.deepcopy(list(chosen.values())),
    }


def _found(spec, **kwargs):
    return [(p["tool"], p["check"]) for p in verify(spec, **kwargs)]


# ------------------------------------------------------------------------------ tools, wrong vs right

TODO_KEY = {"todo_id": ARG}
CASES = {
    # a delete verb implemented as an insert adds a row: it must remove (or retire) one
    "todo_delete": (
        _tool(
            "todo_delete",
            "write",
            {"title": ARG},
            ["title"],
            {
                "type": "insert",
                "table": "todos",
                "values": {"title": "title"},
                "generate": {"todo_id": "id"},
                "defaults": {"done": False, "archived": False},
            },
        ),
        _tool(
            "todo_delete",
            "write",
            TODO_KEY,
            ["todo_id"],
            {"type": "delete", "table": "todos", "key": {"todo_id": "todo_id"}},
        ),
        "semantic:delete",
    ),
    # a delete verb that only renames neither removes nor retires
    "delete_todo": (
        _tool(
            "delete_todo",
            "write",
            {"todo_id": ARG, "title": ARG},
            ["todo_id", "title"],
            {"type": "update", "table": "todos", "key": {"todo_id": "todo_id"}, "set": {"title": "title"}},
        ),
        # retiring counts as deleting: an `archived` flag set
        _tool(
            "delete_todo",
            "write",
            TODO_KEY,
            ["todo_id"],
            {"type": "update", "table": "todos", "key": {"todo_id": "todo_id"}, "fixed": {"archived": True}},
        ),
        "semantic:delete",
    ),
    # a status verb whose update leaves (or puts) the order pending
    "cancel_order": (
        _tool(
            "cancel_order",
            "write",
            {"order_id": ARG},
            ["order_id"],
            {
                "type": "update",
                "table": "orders",
                "key": {"order_id": "order_id"},
                "fixed": {"status": "pending"},
            },
        ),
        _tool(
            "cancel_order",
            "write",
            {"order_id": ARG},
            ["order_id"],
            {
                "type": "update",
                "table": "orders",
                "key": {"order_id": "order_id"},
                "fixed": {"status": "cancelled"},
                "preconditions": [{"column": "status", "op": "in", "value": ["pending"]}],
            },
        ),
        "semantic:status",
    ),
    # an update verb implemented as an insert adds a customer instead of changing one
    "update_customer": (
        _tool(
            "update_customer",
            "write",
            {"name": ARG, "email": ARG},
            ["name", "email"],
            {
                "type": "insert",
                "table": "customers",
                "values": {"name": "name", "email": "email"},
                "generate": {"customer_id": "id"},
            },
        ),
        _tool(
            "update_customer",
            "write",
            {"customer_id": ARG, "name": ARG, "email": ARG},
            ["customer_id"],
            {
                "type": "update",
                "table": "customers",
                "key": {"customer_id": "customer_id"},
                "set": {"name": "name", "email": "email"},
            },
        ),
        "semantic:update",
    ),
    # a create verb that inserts into another entity's table
    "create_order": (
        _tool(
            "create_order",
            "write",
            {"name": ARG, "email": ARG},
            ["name", "email"],
            {
                "type": "insert",
                "table": "customers",
                "values": {"name": "name", "email": "email"},
                "generate": {"customer_id": "id"},
            },
        ),
        _tool(
            "create_order",
            "write",
            {"customer_id": ARG, "total": {"type": "number", "minimum": 0}},
            ["customer_id", "total"],
            {
                "type": "insert",
                "table": "orders",
                "values": {"customer_id": "customer_id", "total": "total"},
                "generate": {"order_id": "id"},
                "defaults": {"status": "pending"},
            },
        ),
        "semantic:create",
    ),
    # a get whose key argument is looked up in another table: a real order id is never found
    "get_order": (
        _tool(
            "get_order",
            "read",
            {"order_id": ARG},
            ["order_id"],
            {"type": "get", "table": "invoices", "key": {"invoice_id": "order_id"}},
        ),
        BASE["get_order"],
        "semantic:read",
    ),
    # a list whose filter argument is bound to another column: a customer's orders are never listed
    "list_orders": (
        _tool(
            "list_orders",
            "read",
            {"customer_id": ARG},
            ["customer_id"],
            {"type": "list", "table": "orders", "filters": [{"column": "note", "arg": "customer_id"}]},
        ),
        _tool(
            "list_orders",
            "read",
            {"customer_id": ARG},
            ["customer_id"],
            {"type": "list", "table": "orders", "filters": [{"column": "customer_id", "arg": "customer_id"}]},
        ),
        "semantic:read",
    ),
    # a read verb implemented as a write
    "view_order": (
        _tool(
            "view_order",
            "write",
            {"order_id": ARG},
            ["order_id"],
            {"type": "update", "table": "orders", "key": {"order_id": "order_id"}, "fixed": {"note": "seen"}},
        ),
        _get("view_order", "orders", "order_id"),
        "semantic:read",
    ),
}


@pytest.mark.parametrize("tool", list(CASES))
def test_a_tool_whose_operation_contradicts_its_name_is_reported_with_its_check(tool):
    wrong, _, check = CASES[tool]
    spec = _spec(wrong)
    assert verify(spec, semantic=False) == []  # mechanically the operation does what it declares
    problems = verify(spec)
    assert [(p["tool"], p["check"]) for p in problems] == [(tool, check)], problems
    assert tool in problems[0]["reason"]


@pytest.mark.parametrize("tool", list(CASES))
def test_the_same_tool_done_right_passes(tool):
    _, right, _ = CASES[tool]
    assert _found(_spec(right)) == []
    assert _found(_spec(right), seed=3, calls_per_tool=5) == []


def test_the_reasons_say_what_the_call_did():
    reason = {t: verify(_spec(CASES[t][0]))[0]["reason"] for t in CASES}
    assert "added a row to todos" in reason["todo_delete"]
    assert "neither removed nor retired a row of todos" in reason["delete_todo"]
    assert "'pending'" in reason["cancel_order"] and "cancelled" in reason["cancel_order"]
    assert "added or removed rows (customers: 1 added)" in reason["update_customer"]
    assert "added a row to customers, not to orders" in reason["create_order"]
    assert "found nothing" not in reason["get_order"] and "not_found" in reason["get_order"]
    assert "found nothing: []" in reason["list_orders"]
    assert "changed the state" in reason["view_order"]


def test_an_update_verb_that_changes_another_entity_is_reported():
    wrong = _tool(
        "update_customer",
        "write",
        {"customer_id": ARG, "note": ARG},
        ["customer_id", "note"],
        # the customer id addresses an order (both are strings): an order's note changes
        {"type": "update", "table": "orders", "key": {"order_id": "customer_id"}, "set": {"note": "note"}},
    )
    (problem,) = verify(_spec(wrong))
    assert problem["tool"] == "update_customer" and problem["check"] == "semantic:update"
    assert "changed orders, not customers" in problem["reason"]


def test_retiring_with_a_status_counts_as_deleting():
    right = _tool(
        "delete_order",
        "write",
        {"order_id": ARG},
        ["order_id"],
        {
            "type": "update",
            "table": "orders",
            "key": {"order_id": "order_id"},
            "fixed": {"status": "cancelled"},
        },
    )
    assert _found(_spec(right)) == []
    right["operation"]["fixed"] = {"status": "shipped"}  # shipped is not a retired status
    assert _found(_spec(right)) == [("delete_order", "semantic:delete")]


def test_a_computation_has_no_place_in_a_state_backed_environment():
    subtract = _tool(
        "subtract",
        "read",
        {"a": {"type": "number"}, "b": {"type": "number"}},
        ["a", "b"],
        {"type": "list", "table": "todos"},
        description="Subtract b from a.",
    )
    problems = verify(_spec(subtract))
    assert [(p["tool"], p["check"]) for p in problems] == [("subtract", "semantic:computation")]
    assert "subtract" in problems[0]["reason"] and "computation" in problems[0]["reason"]
    report = verify_report(_spec(subtract))
    assert report["checks"]["subtract"] == {
        "effect": "computation",
        "passed": False,
        "reason": problems[0]["reason"],
        "notes": [],
    }
    assert report["semantic_score"] == pytest.approx(4 / 5)
    # the same environment without it passes
    assert _found(_spec()) == []


def test_the_original_name_is_judged_not_the_sanitised_one():
    wrong = copy.deepcopy(CASES["todo_delete"][0])
    wrong["name"] = "tool_7"
    wrong["metadata"] = {"original_name": "deleteTodo", "annotations": None}
    assert _found(_spec(wrong)) == [("tool_7", "semantic:delete")]
    wrong["metadata"] = {"original_name": "addTodo"}  # an insert is what adding means
    assert _found(_spec(wrong)) == []
    # an HTTP method read from the annotations decides too
    wrong["metadata"] = {"original_name": "todos", "annotations": {"method": "DELETE", "path": "/todos/{id}"}}
    assert _found(_spec(wrong)) == [("tool_7", "semantic:delete")]


# ------------------------------------------------------------------------------ the environment


def test_writes_that_no_read_tool_reads_back_are_an_environment_level_problem():
    spec = _spec(base=("get_customer", "get_order", "create_todo"))  # todos are written, never read
    problems = verify(spec)
    assert [(p["tool"], p["check"]) for p in problems] == [(None, "semantic:written_not_read")]
    assert "todos" in problems[0]["reason"]
    report = verify_report(spec)
    assert not report["read_only"] and report["written_and_read"] == []
    # reading them back makes a sound environment
    report = verify_report(_spec())
    assert report["problems"] == [] and report["written_and_read"] == ["todos"] and not report["read_only"]


def test_an_environment_without_a_passing_write_is_read_only_not_broken():
    report = verify_report(_spec(base=("get_customer", "get_order")))
    assert report["problems"] == [] and report["read_only"] and report["semantic_score"] == 1.0
    assert report["notes"] == ["read-only: the environment has no write tool"]
    # a write that fails its own checks does not count as one, and is reported itself
    report = verify_report(_spec(CASES["todo_delete"][0], base=("get_customer", "get_todo")))
    assert [(p["tool"], p["check"]) for p in report["problems"]] == [("todo_delete", "semantic:delete")]
    assert report["read_only"] and report["notes"] == ["read-only: no write tool passed"]


def test_the_report_gives_each_tools_verdict():
    spec = _spec(CASES["cancel_order"][0], CASES["get_order"][0])
    report = verify_report(spec)
    assert report["problems"] == verify(spec)
    checks = report["checks"]
    assert set(checks) == {t["name"] for t in spec["tools"]}
    assert {n: (c["effect"], c["passed"]) for n, c in checks.items()} == {
        "get_customer": ("read", True),
        "get_order": ("read", False),
        "get_todo": ("read", True),
        "create_todo": ("create", True),
        "cancel_order": ("status", False),
    }
    assert checks["cancel_order"]["reason"] == next(
        p["reason"] for p in report["problems"] if p["tool"] == "cancel_order"
    )
    assert report["semantic_score"] == pytest.approx(3 / 5)
    assert report["written_and_read"] == ["todos"]


def test_semantic_checks_do_not_change_the_mechanical_calls():
    spec = _spec(*(wrong for wrong, _, _ in CASES.values() if wrong["name"] not in BASE))
    for seed in (0, 1):
        everything = verify(spec, seed=seed)
        assert [p for p in everything if p["check"].startswith("mechanical:")] == verify(
            spec, seed=seed, semantic=False
        )
        assert verify(spec, seed=seed) == everything  # deterministic


def test_the_shop_fixture_means_what_its_tools_say():
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    report = verify_report(spec)
    assert report["problems"] == [] and report["semantic_score"] == 1.0
    assert {c["effect"] for c in report["checks"].values()} == {
        "read",
        "create",
        "update",
        "status",
        "delete",
    }
    assert report["written_and_read"] == ["customers", "orders"] and not report["read_only"]
    assert verify(spec, seed=7, calls_per_tool=5) == []


# ------------------------------------------------------------------------------ mechanical checks are live


@pytest.fixture
def broken_step(monkeypatch):
    """Wrap `Environment.step` so that one tool misbehaves as `misbehave(step, env, tool, args)` says."""
    step = Environment.step

    def install(tool_name, misbehave):
        def wrapped(self, tool, arguments=None):
            if tool == tool_name:
                return misbehave(step, self, tool, arguments)
            return step(self, tool, arguments)

        monkeypatch.setattr(Environment, "step", wrapped)

    return install


def _checks_of(spec, tool):
    return {p["check"] for p in verify(spec) if p["tool"] == tool}


def test_a_read_that_writes_fails_the_mechanical_read_check(broken_step):
    def read_and_write(step, env, tool, args):
        step(env, "create_todo", {"title": "written by a read"})
        return step(env, tool, args)

    broken_step("get_customer", read_and_write)
    assert "mechanical:read_changed_state" in _checks_of(_spec(), "get_customer")


def test_a_write_that_changes_more_than_it_declares_fails_the_mechanical_write_check(broken_step):
    def also_another_row(step, env, tool, args):
        obs = step(env, tool, args)
        if obs["ok"]:
            other = next(r for r in env.dump()["customers"] if r["customer_id"] != args["customer_id"])
            step(env, tool, {"customer_id": other["customer_id"], "name": "Someone Else"})
        return obs

    right = CASES["update_customer"][1]
    broken_step("update_customer", also_another_row)
    # still an update of existing customers (semantically fine), but not of the addressed row only
    assert _checks_of(_spec(right), "update_customer") == {"mechanical:write"}


def _write_reasons(spec, tool):
    return [p["reason"] for p in verify(spec) if p["tool"] == tool and p["check"] == "mechanical:write"]


def test_a_write_that_changes_a_table_it_does_not_declare_fails_the_mechanical_write_check(broken_step):
    def also_a_todo(step, env, tool, args):
        obs = step(env, tool, args)
        if obs["ok"]:
            assert step(env, "create_todo", {"title": "written by an update of a customer"})["ok"]
        return obs

    broken_step("update_customer", also_a_todo)
    reasons = _write_reasons(_spec(CASES["update_customer"][1]), "update_customer")
    assert reasons and all(r.endswith(" changed other tables: todos") for r in reasons), reasons


def test_a_write_that_changes_its_effect_table_beyond_its_effects_fails_the_mechanical_write_check(
    broken_step,
):
    """`withdraw` records one transaction (its effect): a second one is a change it does not declare."""

    def two_transactions(step, env, tool, args):
        obs = step(env, tool, args)
        if obs["ok"]:
            assert step(env, "add_transaction", {"account_id": args["account_id"], "amount": 1.0})["ok"]
        return obs

    spec = copy.deepcopy(BANK)
    spec["tools"].append(
        _tool(
            "add_transaction",
            "write",
            {"account_id": ARG, "amount": NUMBER},
            ["account_id", "amount"],
            {
                "type": "insert",
                "table": "transactions",
                "values": {"account_id": "account_id", "amount": "amount"},
                "generate": {"transaction_id": "id", "created_at": "now"},
            },
        )
    )
    assert _write_reasons(copy.deepcopy(spec), "withdraw") == []
    broken_step("withdraw", two_transactions)
    reasons = set(_write_reasons(spec, "withdraw"))
    assert reasons and all(
        r.endswith(
            "changed transactions beyond its writes: 2 rows added, where its operation and "
            "effects make at most 1"
        )
        for r in reasons
    ), reasons


def test_undeclared_changes_counts_the_rows_each_write_makes():
    withdraw = next(t for t in BANK["tools"] if t["name"] == "withdraw")["operation"]
    row = {"transaction_id": "t"}
    one = {"added": [row], "removed": [], "changed": []}
    assert undeclared_changes(withdraw, {"transactions": one}) is None
    assert undeclared_changes(withdraw, {"transactions": {**one, "removed": [row]}}) == (
        "transactions beyond its writes: 1 rows removed, where its operation and effects make at most 0"
    )
    assert undeclared_changes(withdraw, {"customers": one}) == "other tables: customers"
    # a row deleted and inserted again under its key reads as changed
    move = {
        "type": "delete",
        "table": "a",
        "key": {"id": "id"},
        "effects": [{"type": "insert", "table": "a"}],
    }
    changed = {"added": [], "removed": [], "changed": [{"key": "x", "before": row, "after": row}]}
    assert undeclared_changes(move, {"a": changed}) is None


def test_a_write_that_stores_other_values_fails_the_mechanical_write_check(broken_step):
    def other_title(step, env, tool, args):
        if isinstance(args.get("title"), str):
            args = {**args, "title": args["title"] + " (changed)"}
        return step(env, tool, args)

    broken_step("create_todo", other_title)
    assert _checks_of(_spec(), "create_todo") == {"mechanical:write"}


def test_an_invalid_call_that_succeeds_fails_the_invalid_call_check(broken_step):
    def accept_anything(step, env, tool, args):
        obs = step(env, tool, args)
        return {"ok": True, "result": None} if obs.get("code") == "invalid_arguments" else obs

    broken_step("get_order", accept_anything)
    assert _checks_of(_spec(), "get_order") == {"mechanical:invalid_call_succeeded"}


def test_an_invalid_call_that_fails_otherwise_or_changes_the_state_is_reported(broken_step):
    def wrong_code(step, env, tool, args):
        obs = step(env, tool, args)
        return {**obs, "code": "internal"} if obs.get("code") == "invalid_arguments" else obs

    broken_step("get_order", wrong_code)
    assert _checks_of(_spec(), "get_order") == {"mechanical:invalid_call_code"}

    def write_then_fail(step, env, tool, args):
        obs = step(env, tool, args)
        if obs.get("code") == "invalid_arguments":
            step(env, "create_todo", {"title": "left behind"})
        return obs

    broken_step("get_order", write_then_fail)
    assert _checks_of(_spec(), "get_order") == {"mechanical:invalid_call_changed_state"}


def test_a_valid_call_that_fails_is_reported(broken_step):
    broken_step("get_todo", lambda step, env, tool, args: {"ok": False, "error": "down", "code": "internal"})
    problems = [p for p in verify(_spec()) if p["tool"] == "get_todo"]
    assert {p["check"] for p in problems} == {"mechanical:valid_call", "mechanical:invalid_call_code"}
    report = verify_report(_spec())
    assert report["checks"]["get_todo"]["passed"] is False
    assert report["checks"]["get_todo"]["reason"] == "not checked: no valid call succeeded"


# ------------------------------------------------------------------------------ spec 1.1 operations

NUMBER = {"type": "number", "exclusiveMinimum": 0}
BANK = {
    "name": "bank",
    "spec_version": "1.1",
    "tables": {
        "accounts": {
            "primary_key": "account_id",
            "columns": {
                "account_id": {"type": "string"},
                "owner": {"type": "string", "nullable": False},
                "balance": {"type": "number", "nullable": False},
                "status": {"type": "string", "enum": ["open", "closed"], "nullable": False},
                "updated_at": {"type": "string"},
            },
        },
        "transactions": {
            "primary_key": "transaction_id",
            "columns": {
                "transaction_id": {"type": "string"},
                "account_id": {"type": "string", "references": "accounts", "nullable": False},
                "amount": {"type": "number", "nullable": False},
                "created_at": {"type": "string"},
            },
        },
    },
    "session": {"table": "accounts"},
    "data": {"seed": 0, "now": "2025-06-01T12:00:00Z", "rows": {"accounts": 6, "transactions": 10}},
    "tools": [
        _get("get_account", "accounts", "account_id"),
        _tool(
            "get_my_account",
            "read",
            {},
            [],
            {"type": "get", "table": "accounts", "key": {"account_id": {"session": "account_id"}}},
        ),
        _tool(
            "list_transactions",
            "read",
            {"account_id": ARG},
            ["account_id"],
            {
                "type": "list",
                "table": "transactions",
                "filters": [{"column": "account_id", "arg": "account_id"}],
            },
        ),
        # arithmetic, the clock, a guard that refuses some amounts, an effect on another table
        _tool(
            "withdraw",
            "write",
            {"account_id": ARG, "amount": NUMBER},
            ["account_id", "amount"],
            {
                "type": "update",
                "table": "accounts",
                "key": {"account_id": "account_id"},
                "set": {
                    "balance": {"sub": [{"column": "balance"}, {"arg": "amount"}]},
                    "updated_at": {"now": "datetime"},
                },
                "guards": [
                    {
                        "check": {"ge": [{"column": "balance"}, {"arg": "amount"}]},
                        "error": "insufficient funds",
                    }
                ],
                "effects": [
                    {
                        "type": "insert",
                        "table": "transactions",
                        "values": {
                            "account_id": {"arg": "account_id"},
                            "amount": {"arg": "amount"},
                            "created_at": {"now": "datetime"},
                        },
                        "generate": {"transaction_id": "id"},
                    }
                ],
            },
        ),
        # the session row, addressed by no argument
        _tool(
            "rename_my_account",
            "write",
            {"owner": ARG},
            ["owner"],
            {
                "type": "update",
                "table": "accounts",
                "key": {"account_id": {"session": "account_id"}},
                "set": {"owner": {"arg": "owner"}, "updated_at": {"now": "datetime"}},
            },
        ),
        _tool(
            "close_account",
            "write",
            {"account_id": ARG},
            ["account_id"],
            {
                "type": "update",
                "table": "accounts",
                "key": {"account_id": "account_id"},
                "fixed": {"status": "closed"},
                "set": {"updated_at": {"now": "datetime"}},
                # refuses about half the accounts: verification draws other ones, as a person would
                "guards": [
                    {"check": {"eq": [{"column": "status"}, {"value": "open"}]}, "error": "already closed"}
                ],
            },
        ),
    ],
}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_expressions_guards_effects_and_the_session_verify_clean(seed):
    report = verify_report(copy.deepcopy(BANK), seed=seed, calls_per_tool=5)
    assert report["problems"] == [] and report["semantic_score"] == 1.0
    assert report["written_and_read"] == ["accounts", "transactions"]


def test_a_spec_1_1_tool_that_contradicts_its_name_is_reported():
    spec = copy.deepcopy(BANK)
    close = next(t for t in spec["tools"] if t["name"] == "close_account")
    close["operation"]["fixed"] = {"status": "open"}
    assert _found(spec) == [("close_account", "semantic:status")]


def test_a_spec_1_1_write_is_still_held_to_what_it_declares(broken_step):
    def also_the_session_row(step, env, tool, args):
        obs = step(env, tool, args)
        if obs["ok"]:
            step(env, "rename_my_account", {"owner": "Someone Else"})
        return obs

    broken_step("withdraw", also_the_session_row)
    spec = copy.deepcopy(BANK)
    spec["session"]["key"] = "acc_0001"
    for tool in spec["tools"]:  # never the session row itself, so that a second row changes
        if tool["name"] == "withdraw":
            tool["operation"]["preconditions"] = [{"column": "account_id", "op": "ne", "value": "acc_0001"}]
    assert _checks_of(spec, "withdraw") == {"mechanical:write"}


def test_an_update_verb_that_never_changes_anything_is_reported():
    lookup = _get("update_customer", "customers", "customer_id")
    (problem,) = verify(_spec(lookup))
    assert (problem["tool"], problem["check"]) == ("update_customer", "semantic:update")
    assert problem["reason"] == "none of 3 valid calls changed a row (an update verb changes one)"


def test_a_write_to_the_session_row_is_held_to_what_it_declares(broken_step):
    def also_another_account(step, env, tool, args):
        obs = step(env, tool, args)
        if obs["ok"]:
            mine = env.session()["account_id"]
            other = next(
                r for r in env.dump()["accounts"] if r["account_id"] != mine and r["status"] == "open"
            )
            assert step(env, "close_account", {"account_id": other["account_id"]})["ok"]
        return obs

    broken_step("rename_my_account", also_another_account)
    assert _checks_of(copy.deepcopy(BANK), "rename_my_account") == {"mechanical:write"}


def test_a_new_person_is_one_person():
    """A new identity's email and username are of the name it is given (blind readers: identity "Bill Ryan" with
    djohnson@example.net and username eric.kaufman16, three people), and so is its last name ("a customer named
    Jeffrey Holt with lastname Torres"); a name that is no person's keeps its email."""
    import random

    from envscale.materialize.verify import valid_call

    spec = {
        "name": "community",
        "description": "A community.",
        "tables": {
            "identities": {
                "primary_key": "identity_id",
                "columns": {
                    "identity_id": {"type": "string"},
                    "name": {"type": "string", "nullable": True},
                    "email": {"type": "string", "nullable": True},
                    "username": {"type": "string", "nullable": True, "unique": True},
                    "lastname": {"type": "string", "nullable": True},
                },
            }
        },
        "tools": [
            {
                "name": "add_identity",
                "description": "Add an identity.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "email": {"type": "string"},
                        "username": {"type": "string"},
                        "lastname": {"type": "string"},
                    },
                    "required": ["name", "email", "username", "lastname"],
                },
                "operation": {
                    "type": "insert",
                    "table": "identities",
                    "values": {
                        "name": "name",
                        "email": "email",
                        "username": "username",
                        "lastname": "lastname",
                    },
                    "returns": "row",
                    "generate": {"identity_id": "id"},
                },
            }
        ],
    }
    with Environment(spec) as env:
        env.reset()
        rows = env.dump()
        people = 0
        for seed in range(12):
            args, _ = valid_call(env, spec["tools"][0], rows, random.Random(seed))
            words = args["name"].split()
            if len(words) == 2 and all(w.isalpha() and w[0].isupper() for w in words):
                people += 1
                stem = ".".join(words).lower()
                assert args["email"].startswith(stem) and args["email"].endswith("@example.com"), args
                assert args["username"].startswith(stem), args
                assert args["lastname"] == words[1], args  # never "Jeffrey Holt" with the last name Torres
        assert people


def test_an_email_or_handle_a_call_writes_is_of_the_person_it_is_for():
    """Blind readers of seed 84 (VictorOps): a new user Martin Everett got the username anita.sanchez88 (the users
    are keyed by `user`) and the contact email benjamin.daniels@...; Kristen Smith's email was changed to
    erice@example.net. A handle a new person is made with, an email an update gives a person, and a contact email
    added to a user are of that person's name."""
    import random

    from envscale.materialize.verify import valid_call

    S, N = {"type": "string"}, {"type": "string", "nullable": True}
    spec = {
        "name": "oncall",
        "description": "On-call users.",
        "tables": {
            "users": {
                "primary_key": "user",
                "columns": {"user": S, "first_name": N, "last_name": N, "email": N},
            },
            "emails": {
                "primary_key": "email_id",
                "columns": {"email_id": S, "user": {**N, "references": "users"}, "email": N, "label": N},
            },
        },
        "tools": [
            {
                "name": "create_user",
                "description": "Create a user.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"username": S, "firstName": S, "lastName": S, "email": S},
                    "required": ["username", "firstName", "lastName", "email"],
                },
                "operation": {
                    "type": "insert",
                    "table": "users",
                    "values": {
                        "user": "username",
                        "first_name": "firstName",
                        "last_name": "lastName",
                        "email": "email",
                    },
                    "returns": "row",
                },
            },
            {
                "name": "update_user",
                "description": "Update a user.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"user": S, "email": S},
                    "required": ["user", "email"],
                },
                "operation": {
                    "type": "update",
                    "table": "users",
                    "key": {"user": "user"},
                    "set": {"email": "email"},
                    "returns": "row",
                },
            },
            {
                "name": "add_email",
                "description": "Add a contact email to a user.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"user": S, "email": S, "label": S},
                    "required": ["user", "email", "label"],
                },
                "operation": {
                    "type": "insert",
                    "table": "emails",
                    "values": {"user": "user", "email": "email", "label": "label"},
                    "returns": "row",
                    "generate": {"email_id": "id"},
                },
            },
        ],
    }

    def of(handle, first, last):
        return (
            re.sub(r"[^a-z]", "", first.lower()) in handle and re.sub(r"[^a-z]", "", last.lower()) in handle
        )

    with Environment(spec) as env:
        env.reset()
        rows = env.dump()
        users = {r["user"]: r for r in rows["users"]}
        tools = {t["name"]: t for t in spec["tools"]}
        for seed in range(8):
            args, _ = valid_call(env, tools["create_user"], rows, random.Random(seed))
            assert of(args["username"], args["firstName"], args["lastName"]), args
            assert of(args["email"], args["firstName"], args["lastName"]), args
            args, user = valid_call(env, tools["update_user"], rows, random.Random(seed))
            if user["first_name"] and user["last_name"]:
                assert of(args["email"], user["first_name"], user["last_name"]), (args, user)
                assert args["email"] != user["email"], args
            args, _ = valid_call(env, tools["add_email"], rows, random.Random(seed))
            owner = users[args["user"]]
            if owner["first_name"] and owner["last_name"]:
                assert of(args["email"], owner["first_name"], owner["last_name"]), (args, owner)
        # seed 87's readers: jasmine.stewart15, whose last name is not kept, got matthew.ramirez@example.com; a
        # person known by a handle of their name is that person
        nameless = {**rows, "users": [{**r, "last_name": None} for r in rows["users"]]}
        for seed in range(8):
            args, user = valid_call(env, tools["update_user"], nameless, random.Random(seed))
            first, _, last = re.sub(r"\d+$", "", user["user"]).partition(".")
            assert last and of(args["email"], first, last), (args, user)


def test_a_new_row_is_made_with_its_amount_date_and_name_when_its_tool_takes_them():
    """A blind reader: "create an expense for customer 7 for user 19 with the category name Books" (no amount, no
    date). Optional fields a person always gives a new row (an amount, a date, a name or title) are given;
    others only sometimes."""
    import random

    from envscale.materialize.verify import valid_call

    columns = {
        "expense_id": {"type": "string"},
        "amount": {"type": "number", "nullable": True},
        "expense_date": {"type": "string", "nullable": True},
        "notes": {"type": "string", "nullable": True},
    }
    props = {
        "amount": {"type": "number"},
        "expense_date": {"type": "string", "format": "date"},
        "notes": {"type": "string"},
    }
    spec = {
        "name": "expenses",
        "description": "Expenses.",
        "tables": {"expenses": {"primary_key": "expense_id", "columns": columns}},
        "tools": [
            {
                "name": "create_expense",
                "description": "Create an expense.",
                "kind": "write",
                "parameters": {"type": "object", "properties": props, "required": []},
                "operation": {
                    "type": "insert",
                    "table": "expenses",
                    "values": {c: c for c in props},
                    "returns": "row",
                    "generate": {"expense_id": "id"},
                },
            }
        ],
    }
    with Environment(spec) as env:
        env.reset()
        rows = env.dump()
        calls = [valid_call(env, spec["tools"][0], rows, random.Random(seed))[0] for seed in range(20)]
    assert all({"amount", "expense_date"} <= set(args) for args in calls), calls
    assert 0 < sum("notes" in args for args in calls) < 20
    # seed 89's readers: an appointment booked with no date or time, a spot added with only a longitude
    for column in ("start_time", "lat", "lon"):
        columns[column] = {"type": "string" if column == "start_time" else "number", "nullable": True}
        props[column] = (
            {"type": "string", "format": "date-time"} if column == "start_time" else {"type": "number"}
        )
    spec["tools"][0]["operation"]["values"] = {c: c for c in props}
    with Environment(spec) as env:
        env.reset()
        rows = env.dump()
        calls = [valid_call(env, spec["tools"][0], rows, random.Random(seed))[0] for seed in range(20)]
    assert all({"start_time", "lat", "lon"} <= set(args) for args in calls), calls


def test_an_updated_persons_new_email_is_of_their_own_name_even_beside_a_new_name():
    """Seed 85: "update the email address of the user named Kristopher Schneider to cynthia.miranda@example.com":
    the call renamed him too, and the request left the rename out (a person is never renamed to a made-up name).
    An update's new email is of the person's own name."""
    import random

    from envscale.materialize.verify import valid_call

    S, N = {"type": "string"}, {"type": "string", "nullable": True}
    spec = {
        "name": "ci",
        "description": "A CI service's users.",
        "tables": {
            "users": {"primary_key": "user_id", "columns": {"user_id": S, "full_name": N, "email": N}}
        },
        "tools": [
            {
                "name": "updateUser",
                "description": "Update a user.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"userId": S, "fullName": S, "email": S},
                    "required": ["userId", "fullName", "email"],
                },
                "operation": {
                    "type": "update",
                    "table": "users",
                    "key": {"user_id": "userId"},
                    "set": {"full_name": "fullName", "email": "email"},
                    "returns": "row",
                },
            }
        ],
    }
    with Environment(spec) as env:
        env.reset()
        rows = env.dump()
        checked = 0
        for seed in range(10):
            args, user = valid_call(env, spec["tools"][0], rows, random.Random(seed))
            words = (user["full_name"] or "").split()
            if len(words) == 2 and all(w.isalpha() and w[0].isupper() for w in words):
                checked += 1
                assert args["email"].startswith(".".join(words).lower()), (args, user)
        assert checked


def test_a_thing_renamed_keeps_a_name_that_reads_as_its_own():
    """Seed 88's readers: a "Parental Leave Policy" renamed to "Code of Conduct", "Jones PLC" renamed to another firm,
    "Backup Group" renamed to "Alumni 2024": a made-up name of another thing, no edit anyone makes. A thing's own name
    or title is changed to a new edition of it ("Parental Leave Policy 2026"); a person is never renamed so."""
    import random

    from envscale.materialize.verify import valid_call

    S, N = {"type": "string"}, {"type": "string", "nullable": True}
    spec = {
        "name": "policies",
        "description": "Seller policies.",
        "tables": {
            "policies": {
                "primary_key": "policy_id",
                "columns": {"policy_id": S, "name": N, "label": N},
            }
        },
        "tools": [
            {
                "name": "update_policy",
                "description": "Update a policy.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"policy_id": S, "name": S},
                    "required": ["policy_id", "name"],
                },
                "operation": {
                    "type": "update",
                    "table": "policies",
                    "key": {"policy_id": "policy_id"},
                    "set": {"name": "name"},
                    "returns": "row",
                },
            }
        ],
    }
    with Environment(spec) as env:
        env.reset()
        rows = env.dump()
        for seed in range(8):
            args, policy = valid_call(env, spec["tools"][0], rows, random.Random(seed))
            if not policy["name"]:
                continue
            core = re.sub(r"\s*\b(19|20)\d\d$", "", policy["name"])
            assert core in args["name"] and args["name"] != policy["name"], (args, policy)
            # a new edition is a year, or the old one kept aside, never "Contractors None" (seed 92's readers) nor
            # "Regional Managers v2" (seed 93's)
            assert re.search(r"(?:\b20\d\d| \(old\)| - archived)$", args["name"]), (args, policy)


def test_a_new_part_always_names_what_it_is_of():
    """Seed 90's readers: "add an item with a manual price of 174 and a quantity of 12" named no product, and the item
    was made with no sku. A new row is made with the rows it references whenever its tool takes them."""
    import copy
    import random

    from envscale.env import load_spec
    from envscale.materialize.verify import valid_call

    spec = copy.deepcopy(load_spec("tests/fixtures/envs/shop.yaml"))
    tool = next(t for t in spec["tools"] if t["name"] == "add_order_item")
    tool["parameters"]["required"] = ["order_id", "quantity", "unit_price"]  # the product optional
    spec["tables"]["order_items"]["columns"]["product_id"]["nullable"] = True
    with Environment(spec) as env:
        env.reset()
        rows = env.dump()
        calls = [valid_call(env, tool, rows, random.Random(seed))[0] for seed in range(12)]
    assert all("product_id" in args for args in calls), calls


def test_a_place_a_call_writes_is_one_place():
    """Seed 92's readers: an update set a billing city Lyon in the state of Tennessee, the street left in Singapore.
    The parts of a place one call writes are one place's: the address names the city, the state is the city's."""
    import random

    from envscale.env.data.vocabulary import PLACES
    from envscale.materialize.verify import valid_call

    S, N = {"type": "string"}, {"type": "string", "nullable": True}
    place_args = {"billing_city": S, "billing_state": S, "billing_address": S}
    spec = {
        "name": "crm",
        "description": "Companies.",
        "tables": {
            "companies": {
                "primary_key": "company_id",
                "columns": {
                    "company_id": S,
                    "name": N,
                    "billing_city": N,
                    "billing_state": N,
                    "billing_address": N,
                },
            }
        },
        "tools": [
            {
                "name": "update_company",
                "description": "Update a company's billing address.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"company_id": S, **place_args},
                    "required": ["company_id", *place_args],
                },
                "operation": {
                    "type": "update",
                    "table": "companies",
                    "key": {"company_id": "company_id"},
                    "set": {c: c for c in place_args},
                    "returns": "row",
                },
            }
        ],
    }
    regions = {p.city: {p.region, p.region_code} for p in PLACES}
    with Environment(spec) as env:
        env.reset()
        rows = env.dump()
        for seed in range(8):
            args, _ = valid_call(env, spec["tools"][0], rows, random.Random(seed))
            assert args["billing_city"] in args["billing_address"], args
            assert args["billing_state"] in regions[args["billing_city"]], args


def test_an_amount_added_keeps_a_level_within_what_it_holds():
    """Seed 93's readers: "increase the fuel level by 57.66" took a tank at 43 to 100.66. An amount added to a
    percentage is cut to the room left; a price or a stock has no such bound."""
    import random

    from envscale.materialize.verify import valid_call

    S = {"type": "string"}
    spec = {
        "name": "fleet",
        "description": "Vehicles.",
        "tables": {
            "vehicles": {
                "primary_key": "vehicle_id",
                "columns": {"vehicle_id": S, "fuel_level": {"type": "number", "nullable": True}},
            }
        },
        "data": {"rows": {"vehicles": 10}},
        "tools": [
            {
                "name": "refuel",
                "description": "Add fuel to a vehicle.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "vehicle_id": S,
                        "amount": {"type": "number", "minimum": 0, "maximum": 500},
                    },
                    "required": ["vehicle_id", "amount"],
                },
                "operation": {
                    "type": "update",
                    "table": "vehicles",
                    "key": {"vehicle_id": "vehicle_id"},
                    "set": {"fuel_level": {"add": [{"column": "fuel_level"}, {"arg": "amount"}]}},
                    "returns": "row",
                },
            }
        ],
    }
    with Environment(spec) as env:
        env.reset()
        rows = env.dump()
        levels = []
        for seed in range(30):
            built = valid_call(env, spec["tools"][0], rows, random.Random(seed))
            if built and isinstance(built[1]["fuel_level"], int | float):
                levels.append(built[1]["fuel_level"] + built[0]["amount"])
    assert len(levels) >= 10 and all(level <= 100 for level in levels), levels
