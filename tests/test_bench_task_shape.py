"""bench/task_shape.py: every figure on a hand-made world, function set, tasks and kept trajectories.

The world `notes_world` (session: accounts) and the function set `calc` are small enough to count by hand;
each figure is checked where it must be non-zero and where it must be zero.
"""

import copy
import importlib.util
from pathlib import Path

import pytest

from envscale.env.spec import validate_spec

BENCH = Path(__file__).parent.parent / "bench" / "task_shape.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("task_shape", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ts = load_bench()


def tool(name, kind, operation, properties=None, required=None, entity=None):
    properties = properties or {}
    return {
        "name": name,
        "description": f"{name}.",
        "kind": kind,
        "parameters": {"type": "object", "properties": properties, "required": required or []},
        "operation": operation,
        "metadata": {"entity": entity, "original_name": name},
    }


NOTE_ID = {"note_id": {"type": "string"}}
WORLD = {
    "name": "notes_world",
    "spec_version": "1.1",
    "session": {"table": "accounts"},
    "tables": {
        "accounts": {
            "primary_key": "account_id",
            "columns": {"account_id": {"type": "string"}, "name": {"type": "string"}},
        },
        # pk-only (and so key-only)
        "tags": {"primary_key": "tag_id", "columns": {"tag_id": {"type": "string"}}},
        # key-only, not pk-only: its key and a foreign key
        "links": {
            "primary_key": "link_id",
            "columns": {"link_id": {"type": "string"}, "tag_id": {"type": "string", "references": "tags"}},
        },
        "notes": {
            "primary_key": "note_id",
            "unique": [["account_id", "title"]],
            "columns": {
                "note_id": {"type": "string"},
                "title": {"type": "string", "unique": True},  # the one unique non-key column
                "tag_id": {"type": "string", "references": "tags"},
                "link_id": {"type": "string", "references": "links"},
                "account_id": {"type": "string", "references": "accounts"},
            },
        },
    },
    "data": {"seed": 0, "rows": {"accounts": 3, "tags": 3, "links": 3, "notes": 3}},
    "tools": [
        tool(
            "get_note",
            "read",
            {"type": "get", "table": "notes", "key": {"note_id": "note_id"}},
            NOTE_ID,
            ["note_id"],
        ),
        # near-duplicate of get_note with the same operation and table
        tool(
            "get_note_2",
            "read",
            {"type": "get", "table": "notes", "key": {"note_id": "note_id"}},
            NOTE_ID,
            ["note_id"],
        ),
        # near-duplicate of get_note by name, another operation
        tool("get_note_3", "read", {"type": "list", "table": "notes"}),
        # `_2` without a `find_note`: not a near-duplicate
        tool("find_note_2", "read", {"type": "list", "table": "notes"}),
        tool(
            "create_note",
            "write",
            {"type": "insert", "table": "notes", "values": {"title": "title"}, "generate": {"note_id": "id"}},
            {"title": {"type": "string"}},
            ["title"],
        ),
        # session-row reads: of a setting (non-session), of the session itself, of the profile (by its name)
        tool(
            "get_settings",
            "read",
            {"type": "get", "table": "accounts", "key": {"account_id": {"session": "account_id"}}},
            entity="setting",
        ),
        tool(
            "get_me",
            "read",
            {"type": "get", "table": "accounts", "key": {"account_id": {"session": "account_id"}}},
            entity="<session>",
        ),
        tool(
            "get_profile",
            "read",
            {"type": "get", "table": "accounts", "key": {"account_id": {"session": "account_id"}}},
        ),
    ],
}
CALC = {
    "name": "calc",
    "tables": {
        "results": {
            "primary_key": "result_id",
            "columns": {"result_id": {"type": "integer"}, "value": {"type": "number"}},
        }
    },
    "data": {"seed": 0, "rows": {"results": 3}},
    "tools": [
        tool(
            "get_result",
            "read",
            {"type": "get", "table": "results", "key": {"result_id": "result_id"}},
            {"result_id": {"type": "integer"}},
            ["result_id"],
        )
    ],
}
ENVS = [{"name": "notes_world", "spec": WORLD}, {"name": "calc", "spec": CALC}]


def task(task_id, env, tools, shape, known, hidden=None):
    return {
        "task_id": task_id,
        "environment": env,
        "split": "train",
        "kind": "read",
        "seed": 0,
        "difficulty": {"shape": shape, "n_writes": 0},
        "gold_calls": [{"tool": t, "arguments": {}} for t in tools],
        "instructions": {"known_facts": known, "hidden_facts": hidden or {}},
    }


TASKS = [
    task("t1", "notes_world", ["get_note"], "single", {"note id": "not_0002"}),  # a string key
    task("t2", "notes_world", ["get_note", "create_note", "create_note"], "dag", {"title": "Groceries"}),
    task("t3", "notes_world", ["get_note", "create_note"], "linear", {"title": "Trip", "tag": "tag_9999"}),
    # an id-named integer key, and a plain number that is not an id
    task("t4", "calc", ["get_result"] * 4, "linear", {"result id": 2, "nights": 2}),
    # a string key nested in a hidden fact
    task(
        "t5",
        "notes_world",
        ["get_note"],
        "single",
        {"title": "Trip"},
        {"notes": ["Trip", {"id": "not_0001"}]},
    ),
]


def kept(env, closing):
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": f"{closing}  "}]
    return {"environment": env, "messages": messages, "final_answer": closing}


FILTERED = [
    kept("notes_world", "Done: all set."),
    kept("notes_world", "Done: all set."),
    kept("calc", "Here is what I found: 5."),
]


def test_fixture_specs_are_valid():
    for env in ENVS:
        validate_spec(env["spec"])


def test_task_figures():
    figs = ts.figures(TASKS, ENVS, None)["tasks"]
    assert figs["tasks"] == 5
    assert figs["calls"]["count"] == {"1": 2, "2": 1, "3": 1, "4+": 1}
    assert figs["calls"]["share"]["1"] == 0.4
    assert (figs["calls"]["median"], figs["calls"]["p90"]) == (2, 4)
    assert figs["shapes"] == {"single": 2, "linear": 2, "dag": 1, "branch": 0}
    assert figs["dag_or_branch"] == {"tasks": 1, "share": 0.2}
    assert figs["writes"]["count"] == {"0": 3, "1": 1, "2+": 1}  # from the specs' tool kinds, not n_writes
    ids = figs["internal_id"]
    assert (ids["tasks"], ids["share"]) == (2, 0.4)  # t1 and t5
    assert (ids["integer_id_tasks"], ids["any_id_tasks"]) == (1, 3)  # t4's result id, not its 2 nights
    assert [t for t, _ in ids["examples"]] == ["t1", "t5"]


def test_task_figures_worlds_only_and_zero():
    figs = ts.figures(TASKS, ENVS, None, worlds_only=True)["tasks"]
    assert (figs["tasks"], figs["function_set_tasks_left_out"]) == (4, 1)
    assert figs["calls"]["count"] == {"1": 2, "2": 1, "3": 1, "4+": 0}
    assert (figs["calls"]["median"], figs["calls"]["p90"]) == (1.5, 3)
    none = ts.figures([TASKS[1], TASKS[2]], ENVS, None)["tasks"]
    assert none["internal_id"]["share"] == 0 and none["internal_id"]["any_id_tasks"] == 0
    assert none["shapes"]["single"] == 0 and none["calls"]["count"]["1"] == 0
    # without environments: writes from the task's own record, no id check
    alone = ts.figures(TASKS, None, None)["tasks"]
    assert alone["writes"]["count"] == {"0": 5, "1": 0, "2+": 0}
    assert alone["internal_id"]["tasks_checked"] == 0
    with pytest.raises(ValueError, match="worlds-only"):
        ts.figures(TASKS, None, None, worlds_only=True)


def test_environment_figures():
    figs = ts.figures(None, ENVS, None)["environments"]
    assert figs["tables"] == {"tables": 5, "key_only": 2, "pk_only": 1}
    fk = figs["foreign_keys"]
    assert (fk["foreign_keys"], fk["to_key_only"], fk["to_pk_only"]) == (4, 3, 2)
    assert fk["to_key_only_share"] == 0.75
    assert figs["session_reads"] == {
        "environments_with_session": 1,
        "session_row_reads": 3,
        "session_row_reads_environments": 1,
        "non_session_entity": 1,  # get_settings
        "non_session_entity_environments": 1,
    }
    dup = figs["near_duplicates"]
    assert (dup["near_duplicate"], dup["near_duplicate_environments"], dup["same_operation_and_table"]) == (
        2,
        1,
        1,
    )
    assert figs["unique_non_key"] == {
        "columns": 1,
        "foreign_key_columns": 0,
        "environments": 1,
        "column_sets": 1,
    }
    assert figs["function_sets"] == {"function_sets": 1, "worlds": 1, "worlds_with_multi_table_effect": 0}


def test_environment_figures_zero():
    figs = ts.figures(None, [ENVS[1]], None)["environments"]
    assert figs["tables"] == {"tables": 1, "key_only": 0, "pk_only": 0}
    assert figs["foreign_keys"]["foreign_keys"] == 0 and figs["foreign_keys"]["to_key_only_share"] == 0
    assert figs["session_reads"]["session_row_reads"] == figs["session_reads"]["non_session_entity"] == 0
    assert figs["near_duplicates"]["near_duplicate"] == 0
    assert figs["unique_non_key"]["columns"] == figs["unique_non_key"]["column_sets"] == 0
    assert figs["function_sets"] == {"function_sets": 1, "worlds": 0, "worlds_with_multi_table_effect": 0}


def test_a_world_with_an_effect_on_another_table_is_counted():
    world = copy.deepcopy(WORLD)
    add = next(t for t in world["tools"] if t["operation"]["type"] == "insert")
    add["operation"]["effects"] = [{"type": "update", "table": "notes", "key": {"note_id": {"value": "x"}}}]
    same = ts.figures(None, [{"name": "w", "spec": world}], None)["environments"]["function_sets"]
    assert same["worlds_with_multi_table_effect"] == 0  # an effect on the tool's own table is not counted
    add["operation"]["effects"][0]["table"] = "links"
    other = ts.figures(None, [{"name": "w", "spec": world}], None)["environments"]["function_sets"]
    assert other["worlds_with_multi_table_effect"] == 1
    assert "worlds with a multi-table effect             1" in ts.render(
        {"worlds_only": False, "environments": ts.environment_figures([{"name": "w", "spec": world}])}
    )


def test_closing_figures():
    figs = ts.figures(TASKS, ENVS, FILTERED)
    closing = figs["closing"]
    assert (closing["kept"], closing["distinct"], closing["distinct_openings"]) == (3, 2, 2)
    assert closing["top"][0] == {"text": "Done: all set.", "count": 2}
    assert closing["top_share"] == 0.6667
    assert figs["environments"]["function_sets"] == {
        "function_sets": 1,
        "worlds": 1,
        "worlds_with_multi_table_effect": 0,
        "function_set_tasks": 1,
        "world_tasks": 4,
        "function_set_kept": 1,
        "world_kept": 2,
    }
    worlds = ts.figures(None, ENVS, FILTERED, worlds_only=True)["closing"]
    assert (worlds["kept"], worlds["function_set_kept_left_out"], worlds["distinct"]) == (2, 1, 1)
    assert worlds["top_share"] == 1.0
    varied = ts.closing_figures([kept("calc", f"Found {i}.") for i in range(3)])
    assert (varied["distinct"], varied["distinct_openings"], varied["top_share"]) == (3, 3, 0.3333)


def test_render_names_every_block():
    text = ts.render(ts.figures(TASKS, ENVS, FILTERED, worlds_only=True))
    for line in ("tasks (worlds only): 4", "closing messages: 2 kept", "environments: 2", "near-duplicate"):
        assert line in text


def test_near_duplicates_by_effect_and_api_operation():
    dup = ts.figures(None, ENVS, None)["environments"]["near_duplicates"]
    # get_note_2 repeats get_note (one operation); find_note_2 repeats get_note_3's effect and get_me,
    # get_profile get_settings' (other operations)
    assert (dup["same_effect"], dup["same_effect_environments"]) == (4, 1)
    assert (dup["same_effect_same_api_operation"], dup["same_effect_same_api_operation_environments"]) == (
        1,
        1,
    )
    prefixed = tool(
        "notes_api_NotesApi_get_note_by_key", "read", {"type": "get", "table": "results", "key": {}}
    )
    assert ts.same_api_operation(prefixed, tool("NotesApi_get_note_by_key", "read", {}))
    assert not ts.same_api_operation(prefixed, tool("get_note_by_key_and_tag", "read", {}))


def test_source_of_an_environment():
    def http(t, path):
        return {**t, "metadata": {**t["metadata"], "annotations": {"method": "GET", "path": path}}}

    spec = {"tools": [http(t, f"/notes/{{id}}/{i}") for i, t in enumerate(WORLD["tools"])]}
    assert ts.source_of(spec) == "openapi" and ts.source_of(WORLD) == ts.source_of(CALC) == "other"
    a, b = http(WORLD["tools"][0], "/notes/{id}"), http(WORLD["tools"][1], "/notes/{note}")
    assert ts.same_api_operation(a, b) and not ts.same_api_operation(a, http(b, "/tags/{id}"))


def test_a_printed_number_is_not_an_internal_id():
    from envscale.env import load_spec
    from envscale.env.data import build_state

    spec = load_spec("tests/fixtures/envs/shop.yaml")
    state = build_state(spec, (spec.get("data") or {}).get("seed", 0))
    orders = {r["order_id"] for r in state["orders"]}
    customers = {r["customer_id"] for r in state["customers"]}
    strings, _ = ts.state_keys(spec, None)
    assert orders and customers
    assert not strings & orders  # the user's own order number
    assert customers <= strings  # a customer's key is internal
    task_row = task("t9", "shop", ["get_order"], "single", {"order number": min(orders)})
    assert not ts.internal_ids(task_row, ts.state_keys(spec, None))[0]


def test_the_callers_own_subscription_is_not_an_internal_id():
    """Azure's `/subscriptions/{subscriptionId}/...`: the caller's own subscription, which no tool lists, scopes every
    route; its ID is the user's (`envscale.tasks.finding.caller_scope`), never an internal id. A listed one is."""
    spec = {
        "name": "azure",
        "tables": {
            "subscriptions": {
                "primary_key": "subscription_id",
                "columns": {"subscription_id": {"type": "string"}},
            },
            "vaults": {"primary_key": "vault_id", "columns": {"vault_id": {"type": "string"}}},
        },
        "data": {"seed": 0, "rows": {"subscriptions": 2, "vaults": 3}},
        "tools": [],
    }
    strings, _ = ts.state_keys(spec, None)
    assert not any(k.startswith("sub_") for k in strings) and any(k.startswith("vau_") for k in strings), (
        strings
    )
    listing = {"type": "list", "table": "subscriptions"}
    spec["tools"].append({"name": "list_subscriptions", "kind": "read", "parameters": {"type": "object", "properties": {}}, "operation": listing})  # fmt: skip
    strings, _ = ts.state_keys(spec, None)
    assert any(k.startswith("sub_") for k in strings), strings


@pytest.mark.parametrize("scope", ["companies", "organizers"])
def test_the_callers_own_company_or_organizer_account_is_not_an_internal_id(scope):
    """Paylocity's `/companies/{companyId}/employees`, GoToWebinar's `/organizers/{organizerKey}/webinars`: the
    caller's company or organizer account, which no tool lists, scopes every route (both worlds kept no task, all
    dropped for "internal_id"); the user holds its ID. A listed one is internal."""
    pk = f"{scope[:-1]}_id"
    spec = {
        "name": "payroll",
        "tables": {
            scope: {"primary_key": pk, "columns": {pk: {"type": "string"}}},
            "employees": {"primary_key": "employee_id", "columns": {"employee_id": {"type": "string"}}},
        },
        "data": {"seed": 0, "rows": {scope: 2, "employees": 3}},
        "tools": [],
    }
    strings, _ = ts.state_keys(spec, None)
    assert not any(k.startswith(scope[:3]) for k in strings) and any(k.startswith("emp_") for k in strings), (
        strings
    )
    listing = {"type": "list", "table": scope}
    spec["tools"].append({"name": f"list_{scope}", "kind": "read", "parameters": {"type": "object", "properties": {}}, "operation": listing})  # fmt: skip
    strings, _ = ts.state_keys(spec, None)
    assert any(k.startswith(scope[:3]) for k in strings), strings


def test_inserts_that_fix_different_values_have_different_effects():
    """`core_memory_add` and `archival_memory_add` fill the same columns, one kind each: not duplicates."""

    def insert(kind):
        values = {"key": "key", "value": "value", "kind": {"value": kind}}
        return {"kind": "write", "operation": {"type": "insert", "table": "memories", "values": values}}

    assert ts.effect_key(insert("core")) != ts.effect_key(insert("archival"))
    assert ts.effect_key(insert("core")) == ts.effect_key(insert("core"))


def test_a_conversation_with_a_decision_among_its_requests_counts_as_dag_or_branch():
    tasks = copy.deepcopy(TASKS)
    others = [t for t in tasks if t["difficulty"]["shape"] != "dag"]
    conversation = others[0]
    conversation["difficulty"] = {
        **conversation["difficulty"],
        "shape": "conversation",
        "request_shapes": ["linear", "branch"],
    }
    others[1]["difficulty"] = {
        **others[1]["difficulty"],
        "shape": "conversation",
        "request_shapes": ["linear"],
    }
    figs = ts.figures(tasks, ENVS, None)["tasks"]
    assert figs["shapes"]["conversation"] == 2
    assert figs["dag_or_branch"]["tasks"] == 2  # the dag task, and the conversation with a branch request


def test_a_read_of_the_callers_own_row_is_another_effect_than_a_read_by_id():
    """`GET /users/me` (keyed by the session) and `GET /users/{id}` (keyed by an argument) read one table by one
    column, but not the same rows: they are not near-duplicates; two reads by an argument are."""
    me = {
        "kind": "read",
        "operation": {"type": "get", "table": "users", "key": {"user_id": {"session": "user_id"}}},
    }
    by_id = {"kind": "read", "operation": {"type": "get", "table": "users", "key": {"user_id": "id"}}}
    other = {"kind": "read", "operation": {"type": "get", "table": "users", "key": {"user_id": "userId"}}}
    assert ts.effect_key(me) != ts.effect_key(by_id)
    assert ts.effect_key(by_id) == ts.effect_key(other)
