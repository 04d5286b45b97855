"""The environment runtime (envscale.env): specs, steps and their errors, state hash, snapshots, verify."""

import copy
import json
import pickle
import sqlite3
import time

import pytest
from datasets import Dataset, Features, Json, load_dataset

from envscale.env import ERROR_CODES, Environment, SpecError, generate_state, load_spec, validate_spec
from envscale.materialize.verify import verify

SHOP = "tests/fixtures/envs/shop.yaml"
INJECTION = "x'); DROP TABLE orders;--"


@pytest.fixture
def spec():
    return load_spec(SHOP)


@pytest.fixture
def env(spec):
    with Environment(spec) as environment:
        yield environment


def rows(env, table, **where):
    return [r for r in env.dump()[table] if all(r[k] == v for k, v in where.items())]


def test_yaml_and_dataset_row_build_the_same_environment(spec, tmp_path):
    Dataset.from_list([{"spec": spec}], features=Features({"spec": Json()})).to_parquet(
        tmp_path / "envs.parquet"
    )
    loaded = load_dataset(
        "parquet", data_files=str(tmp_path / "envs.parquet"), split="train", cache_dir=str(tmp_path / "c")
    )
    assert loaded[0]["spec"] == spec
    envs = [
        Environment.from_yaml(SHOP),
        Environment.from_row(loaded[0]),
        Environment.from_row({"spec": json.dumps(spec)}),
    ]
    initial = {e.state_hash() for e in envs}
    assert len(initial) == 1
    pending = rows(envs[0], "orders", status="pending")[0]["order_id"]
    calls = [
        ("cancel_order", {"order_id": pending}),
        ("create_order", {"customer_id": "cus_0003", "total": 12.5, "note": "gift"}),
        (
            "add_order_item",
            {"order_id": "ord_0041", "product_id": "pro_0002", "quantity": 2, "unit_price": 9.99},
        ),
        ("remove_order_item", {"item_id": "oi_0005"}),
    ]
    for tool, args in calls:
        assert len({json.dumps(e.step(tool, args), sort_keys=True) for e in envs}) == 1
    assert len({e.state_hash() for e in envs}) == 1 and envs[0].state_hash() not in initial
    assert envs[0].step("get_order", {"order_id": pending})["result"]["status"] == "cancelled"


def test_json_string_arguments_are_the_same_call(env):
    assert env.step("get_order", '{"order_id": "ord_0002"}') == env.step(
        "get_order", {"order_id": "ord_0002"}
    )


ERROR_CASES = [
    ("unknown_tool", "drop_everything", {}),
    ("unknown_tool", None, {}),
    ("invalid_arguments", "get_order", "{not json"),
    ("invalid_arguments", "get_order", '{"order_id": NaN}'),
    ("invalid_arguments", "get_order", "[1, 2]"),
    ("invalid_arguments", "get_order", {}),
    ("invalid_arguments", "get_order", {"order_id": 7}),
    ("invalid_arguments", "get_order", {"order_id": "ord_0001", "extra": 1}),
    ("invalid_arguments", "create_order", {"customer_id": "cus_0001", "total": -5}),
    ("invalid_arguments", "list_orders", {"customer_id": "cus_0001", "statuses": ["lost"]}),
    ("invalid_arguments", "update_order_status", {"order_id": "ord_0002", "status": "cancelled"}),
    ("not_found", "get_order", {"order_id": "ord_9999"}),
    ("not_found", "cancel_order", {"order_id": INJECTION}),
    ("not_found", "remove_order_item", {"item_id": "oi_9999"}),
    ("conflict", "create_order", {"customer_id": "cus_9999", "total": 1}),
    (
        "conflict",
        "add_order_item",
        {"order_id": "ord_0001", "product_id": "pro_9999", "quantity": 1, "unit_price": 1},
    ),
    ("conflict", "update_customer_email", {"customer_id": "cus_0001", "email": "EMAIL_OF_cus_0002"}),
    ("invalid_state", "cancel_order", {"order_id": "NOT_PENDING"}),
    ("invalid_state", "update_order_status", {"order_id": "CANCELLED", "status": "shipped"}),
]


@pytest.mark.parametrize(("code", "tool", "arguments"), ERROR_CASES)
def test_every_failure_is_an_error_observation_that_changes_nothing(env, code, tool, arguments):
    if isinstance(arguments, dict):
        arguments = {k: _resolve(env, v) for k, v in arguments.items()}
    before, dump = env.state_hash(), env.dump()
    obs = env.step(tool, arguments)
    assert obs["ok"] is False and obs["code"] == code, obs
    assert set(obs) == {"ok", "error", "code"}
    assert str(tool) in obs["error"]
    assert env.state_hash() == before == env.state_hash(recompute=True)
    assert env.dump() == dump


def _resolve(env, value):
    """Placeholders for rows that depend on the generated state."""
    if value == "EMAIL_OF_cus_0002":
        return rows(env, "customers", customer_id="cus_0002")[0]["email"]
    if value == "NOT_PENDING":
        return next(r["order_id"] for r in env.dump()["orders"] if r["status"] != "pending")
    if value == "CANCELLED":
        return rows(env, "orders", status="cancelled")[0]["order_id"]
    return value


def test_error_messages_name_the_cause(env):
    cancelled = rows(env, "orders", status="cancelled")[0]["order_id"]
    assert (
        env.step("cancel_order", {"order_id": cancelled})["error"]
        == "cancel_order: only pending orders can be cancelled"
    )
    assert "cus_9999" in env.step("create_order", {"customer_id": "cus_9999", "total": 1})["error"]
    assert (
        "customers.email"
        in env.step(
            "update_customer_email", {"customer_id": "cus_0001", "email": rows(env, "customers")[1]["email"]}
        )["error"]
    )
    assert "extra" in env.step("get_order", {"order_id": "ord_0001", "extra": 1})["error"]
    assert "available: get_customer" in env.step("nope", {})["error"]


def test_a_call_over_the_time_limit_fails_with_code_limit(spec):
    spec["data"]["rows"]["products"] = 3000
    with Environment(spec, time_limit_ms=1e-6) as env:
        before = env.state_hash()
        obs = env.step("list_products", {"query": "zzz"})
        assert obs["ok"] is False and obs["code"] == "limit" and "time limit" in obs["error"]
        assert env.state_hash() == before
    with Environment(spec) as env:
        assert env.step("list_products", {"query": "zzz"}) == {"ok": True, "result": []}


def test_the_time_limit_counts_cpu_time_so_a_busy_machine_does_not_fail_calls(spec, monkeypatch):
    # a loaded machine (workers and a driver sharing two cores) stretches wall time, not the call's CPU time:
    # the same episode played twice must come out the same. Here the wall clock jumps an hour at every reading.
    spec["data"]["rows"]["products"] = 3000
    with Environment(spec) as env:
        clock = iter(range(0, 10**9, 3600))
        monkeypatch.setattr(time, "perf_counter", lambda: float(next(clock)))
        monkeypatch.setattr(time, "monotonic", lambda: float(next(clock)))
        assert env.step("list_products", {"query": "zzz"}) == {"ok": True, "result": []}


def test_an_unexpected_failure_is_an_internal_error_observation(env, monkeypatch):
    def broken(tool, args):
        raise RuntimeError("boom")

    monkeypatch.setitem(env._executors, "get", broken)
    before = env.state_hash()
    assert env.step("get_order", {"order_id": "ord_0001"}) == {
        "ok": False,
        "error": "get_order: internal error: RuntimeError: boom",
        "code": "internal",
    }
    assert env.state_hash() == before


def test_the_error_cases_cover_every_code():
    assert {c for c, _, _ in ERROR_CASES} | {"limit", "internal"} == set(ERROR_CODES)


def test_deleting_a_referenced_row_is_a_conflict(spec):
    spec["tools"].append(
        {
            "name": "delete_product",
            "description": "Delete a product.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"product_id": {"type": "string"}},
                "required": ["product_id"],
            },
            "operation": {"type": "delete", "table": "products", "key": {"product_id": "product_id"}},
        }
    )
    with Environment(spec) as env:
        used = env.dump()["order_items"][0]["product_id"]
        before = env.state_hash()
        obs = env.step("delete_product", {"product_id": used})
        assert obs["code"] == "conflict" and "still referenced by order_items.product_id" in obs["error"]
        assert env.state_hash() == before


def test_sql_metacharacters_are_stored_literally(env):
    obs = env.step("create_order", {"customer_id": "cus_0001", "total": 1, "note": INJECTION})
    assert obs["ok"] and obs["result"]["note"] == INJECTION
    assert env.step("get_order", {"order_id": obs["result"]["order_id"]})["result"]["note"] == INJECTION
    assert env.step("list_products", {"query": "%' OR '1'='1"}) == {"ok": True, "result": []}
    assert env.step("get_customer", {"customer_id": "' OR 1=1 --"})["code"] == "not_found"
    assert (
        env.step("list_orders", {"customer_id": "cus_0001", "statuses": [INJECTION]})["code"]
        == "invalid_arguments"
    )
    assert len(env.dump()["orders"]) == 41


def test_huge_strings_are_stored_and_errors_stay_short(env):
    huge = "é" * 1_000_000 + "'; --"
    obs = env.step("update_customer_email", json.dumps({"customer_id": "cus_0002", "email": huge}))
    assert obs["ok"] and env.step("get_customer", {"customer_id": "cus_0002"})["result"]["email"] == huge
    too_long = env.step("create_order", {"customer_id": "cus_0002", "total": 3, "note": huge})
    assert too_long["code"] == "invalid_arguments" and "too long" in too_long["error"]
    assert env.state_hash() == env.state_hash(recompute=True)
    for arguments in ({"order_id": huge}, {"order_id": 1, "x" * 10_000: 1}):
        error = env.step("get_order", arguments)
        assert not error["ok"] and len(error["error"]) <= 500


def test_list_results_are_capped_by_max_rows(spec):
    with Environment(spec, max_rows=5) as env:
        capped = env.step("list_products", {})
        assert len(capped["result"]) == 5 and capped["truncated"] is True
        prices = [p["price"] for p in capped["result"]]
        assert prices == sorted(prices)
        assert env.step("list_products", {"limit": 3}) == {"ok": True, "result": capped["result"][:3]}
        assert env.step("list_products", {"limit": 50})["truncated"] is True


def test_filters(env):
    orders = env.dump()["orders"]
    customer = orders[0]["customer_id"]
    mine = [o for o in orders if o["customer_id"] == customer and o["status"] in ("pending", "shipped")]
    listed = env.step("list_orders", {"customer_id": customer, "statuses": ["pending", "shipped"]})["result"]
    assert sorted(o["order_id"] for o in listed) == sorted(o["order_id"] for o in mine)
    assert [o["created_at"] for o in listed] == sorted((o["created_at"] for o in listed), reverse=True)
    pending = sum(o["status"] == "pending" for o in orders)
    assert env.step("count_orders", {"status": "pending"}) == {"ok": True, "result": pending}
    name = env.dump()["products"][0]["name"]
    found = env.step("list_products", {"query": name.upper()[1:5], "max_price": 1000})["result"]
    assert name in {p["name"] for p in found}


def test_snapshot_restore_and_diff(env, spec):
    initial, before = env.state_hash(), env.snapshot()
    shipped = rows(env, "orders", status="shipped")[0]
    assert env.step("update_order_status", {"order_id": shipped["order_id"], "status": "delivered"})["ok"]
    new = env.step("create_order", {"customer_id": "cus_0004", "total": 20})["result"]
    removed = env.step("remove_order_item", {"item_id": "oi_0003"})["result"]
    changes = env.diff(before)
    assert changes == {
        "orders": {
            "added": [new],
            "removed": [],
            "changed": [
                {"key": shipped["order_id"], "before": shipped, "after": {**shipped, "status": "delivered"}}
            ],
        },
        "order_items": {"added": [], "removed": [removed], "changed": []},
    }
    with Environment(spec) as fresh:
        assert env.diff(fresh) == changes
        assert fresh.diff(env)["order_items"] == {"added": [removed], "removed": [], "changed": []}
    after = env.state_hash()
    env.restore(before)
    assert env.state_hash() == initial == env.state_hash(recompute=True) and env.diff(before) == {}
    with pytest.raises(ValueError, match="not a snapshot"):
        env.restore(b"garbage" * 1000)
    assert env.state_hash() == initial
    env.restore(copy.copy(before))
    assert env.step("create_order", {"customer_id": "cus_0004", "total": 20})["result"] == new
    assert env.state_hash() != after  # the status update and the removal are gone


def test_restore_takes_a_database_written_by_plain_sqlite(env, spec):
    env.step("cancel_order", {"order_id": rows(env, "orders", status="pending")[0]["order_id"]})
    expected = env.state_hash()
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.deserialize(env.snapshot())
    conn.execute("DELETE FROM envscale_meta")  # no saved digests: they are recomputed from the rows
    data = conn.serialize()
    conn.execute("DROP TABLE order_items")
    other_schema = conn.serialize()
    env.reset()
    env.restore(data)
    assert env.state_hash() == expected == env.state_hash(recompute=True)
    with pytest.raises(ValueError, match="tables differ"):
        env.restore(other_schema)
    assert env.state_hash() == expected


def test_the_state_hash_depends_only_on_the_contents(spec):
    a, b = Environment(spec), Environment(spec)
    first, second = (r["order_id"] for r in rows(a, "orders", status="pending")[:2])
    a.step("cancel_order", {"order_id": first})
    a.step("cancel_order", {"order_id": second})
    b.step("cancel_order", {"order_id": second})
    b.step("update_order_status", {"order_id": first, "status": "shipped"})
    assert a.state_hash() != b.state_hash()
    b.step("update_order_status", {"order_id": first, "status": "pending"})
    b.step("cancel_order", {"order_id": first})
    assert a.state_hash() == b.state_hash() == b.state_hash(recompute=True)
    initial = Environment(spec).state_hash()
    item = a.step(
        "add_order_item", {"order_id": "ord_0002", "product_id": "pro_0001", "quantity": 1, "unit_price": 2}
    )
    a.step("remove_order_item", {"item_id": item["result"]["item_id"]})
    b.reset()
    assert b.state_hash() == initial != a.state_hash()


def test_reset_with_a_seed_is_deterministic_and_cheap_to_repeat(env, spec):
    initial = env.state_hash()
    one = env.reset(seed=1)
    assert env.dump() == generate_state(spec, seed=1)
    assert env.reset(seed=1) == one and one["state_hash"] != initial
    assert env.reset(seed=2)["state_hash"] not in (initial, one["state_hash"])
    assert env.reset()["state_hash"] == initial
    assert env.reset()["tables"] == {"customers": 20, "products": 15, "orders": 40, "order_items": 80}


def test_reset_with_an_explicit_state(env):
    state = {
        "customers": [{"customer_id": "c1", "name": "Ann Lee", "email": "ann@example.com", "vip": False}],
        "orders": [
            {
                "order_id": "o1",
                "customer_id": "c1",
                "status": "pending",
                "total": 5,
                "created_at": "2025-01-01",
            }
        ],
    }
    obs = env.reset(state=state)
    assert obs["tables"] == {"customers": 1, "products": 0, "orders": 1, "order_items": 0}
    assert env.step("get_order", {"order_id": "o1"})["result"]["total"] == 5.0
    assert env.step("create_order", {"customer_id": "c1", "total": 1})["result"]["order_id"] == "ord_0001"
    current = env.state_hash()
    bad = copy.deepcopy(state)
    bad["orders"][0]["customer_id"] = "c404"
    with pytest.raises(SpecError, match="c404"):
        env.reset(state=bad)
    bad = {
        "orders": [{"order_id": "o1", "customer_id": "c1", "status": "lost", "total": 1, "created_at": "x"}]
    }
    with pytest.raises(SpecError, match="lost"):
        env.reset(state=bad)
    assert env.state_hash() == current


def test_inserted_rows_get_generated_ids_and_the_fixed_clock(env):
    created = env.step("create_order", {"customer_id": "cus_0001", "total": 9})["result"]
    assert created["order_id"] == "ord_0041" and created["created_at"] == "2025-06-01T12:00:00Z"
    assert created["status"] == "pending" and created["note"] is None


def test_openai_tools_pickle_and_repr(env):
    tools = env.openai_tools()
    assert [t["function"]["name"] for t in tools] == env.tool_names and len(tools) == 12
    assert tools[0]["type"] == "function" and tools[0]["function"]["parameters"]["required"] == [
        "customer_id"
    ]
    env.step("cancel_order", {"order_id": rows(env, "orders", status="pending")[0]["order_id"]})
    clone = pickle.loads(pickle.dumps(env))
    assert clone.state_hash() == env.state_hash() and clone.dump() == env.dump()
    assert repr(env).startswith("Environment('shop'")


def test_verify_passes_on_the_fixture(spec):
    assert verify(spec) == []
    assert verify(spec, seed=7, calls_per_tool=5) == []


def _broken(spec, tool, change):
    spec = copy.deepcopy(spec)
    change(next(t for t in spec["tools"] if t["name"] == tool))
    return spec


@pytest.mark.parametrize(
    ("tool", "change", "reason"),
    [
        (
            "create_order",
            lambda t: t["operation"]["values"].update(nope="note"),
            "orders has no column 'nope'",
        ),
        ("get_order", lambda t: t.update(kind="write"), "kind 'write' disagrees with operation 'get'"),
        ("cancel_order", lambda t: t.update(kind="read"), "kind 'read' disagrees"),
        (
            "get_order",
            lambda t: t["parameters"].update(required=[]),
            "key argument 'order_id' must be listed",
        ),
        (
            "list_orders",
            lambda t: t["operation"]["filters"].append({"column": "status", "arg": "st"}),
            "argument 'st'",
        ),
        (
            "get_order",
            lambda t: t.update(output_schema={"type": "object", "required": ["tracking_number"]}),
            "does not match output_schema",
        ),
        (
            "cancel_order",
            lambda t: t["operation"]["preconditions"][0].update(value=[]),
            "cannot be exercised: no row of orders can be addressed",
        ),
    ],
)
def test_verify_reports_a_broken_tool(spec, tool, change, reason):
    problems = verify(_broken(spec, tool, change))
    assert problems and problems[0]["tool"] == tool and reason in problems[0]["reason"], problems


def test_verify_reports_an_initial_state_that_does_not_build(spec):
    spec["initial_state"] = {
        "orders": [
            {"order_id": "o1", "customer_id": "ghost", "status": "pending", "total": 1, "created_at": "x"}
        ]
    }
    (problem,) = verify(spec)
    assert (
        problem["tool"] is None
        and "initial state does not build" in problem["reason"]
        and "ghost" in problem["reason"]
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s.update(name="bad name"), "spec name must match"),
        (lambda s: s.update(extra=1), "unknown key(s) extra"),
        (
            lambda s: s["tables"]["orders"]["columns"].update({"bad-col": {"type": "string"}}),
            "'bad-col' is not an identifier",
        ),
        (
            lambda s: s["tables"]["orders"]["columns"]["customer_id"].update(references="clients"),
            "references unknown table 'clients'",
        ),
        (
            lambda s: s["tables"]["orders"]["columns"]["status"].update(enum=[]),
            "enum must be a non-empty list",
        ),
        (lambda s: s["tables"]["orders"]["columns"]["total"].update(type="float"), "type must be one of"),
        (
            lambda s: s["tables"]["orders"].update(primary_key="id"),
            "primary_key 'id' is not one of its columns",
        ),
        (
            lambda s: s["tables"].update(
                sqlite_master={"primary_key": "a", "columns": {"a": {"type": "string"}}}
            ),
            "reserved",
        ),
        (lambda s: s["tools"].append(copy.deepcopy(s["tools"][0])), "duplicate tool name"),
        (lambda s: s["data"]["rows"].update(payments=3), "data.rows: unknown table 'payments'"),
    ],
)
def test_validate_spec_names_the_problem(spec, change, message):
    change(spec)
    with pytest.raises(SpecError) as info:
        validate_spec(spec)
    assert message in str(info.value)


def test_reference_cycles_are_a_clear_error(spec):
    spec["tables"]["customers"]["columns"]["last_order"] = {"type": "string", "references": "orders"}
    with pytest.raises(SpecError, match="cycle"):
        generate_state(spec, seed=0)


# Specs minimised from environments inferred from real API docs (BFCL function docs), on which
# `verify` used to fail for reasons of its own: a crash on json columns, generated arguments that
# broke the tool's own JSON Schema (enums the column lacks, integer arguments for number columns,
# arrays and objects for json columns, bounds, formats, patterns, anyOf).
MEETING_ROOMS = {
    "name": "meeting_rooms",
    "tables": {
        "rooms": {
            "primary_key": "room_id",
            "columns": {
                "room_id": {"type": "string"},
                "meeting_room_name": {"type": "string"},
                "start_time": {"type": "string"},
                "attendees": {"type": "json"},
                "room_names": {"type": "json"},
            },
        }
    },
    "tools": [
        {
            "name": "book_meeting_room",
            "kind": "write",
            "parameters": {
                "type": "object",
                "required": ["meeting_room_name", "start_time", "attendees"],
                "properties": {
                    "meeting_room_name": {"type": "string"},
                    "start_time": {"type": "string", "format": "date-time"},
                    "attendees": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                },
            },
            "operation": {
                "type": "insert",
                "table": "rooms",
                "values": {
                    "meeting_room_name": "meeting_room_name",
                    "start_time": "start_time",
                    "attendees": "attendees",
                },
                "generate": {"room_id": "id"},
            },
        },
        {
            "name": "get_room_schedule",
            "kind": "read",
            "parameters": {
                "type": "object",
                "required": ["room_names"],
                "properties": {"room_names": {"type": "array", "items": {"type": "string"}}},
            },
            "operation": {
                "type": "list",
                "table": "rooms",
                "filters": [{"column": "room_names", "arg": "room_names"}],
            },
        },
        {
            "name": "update_attendees",
            "kind": "write",
            "parameters": {
                "type": "object",
                "required": ["room_id", "attendees"],
                "properties": {
                    "room_id": {"type": "string"},
                    "attendees": {
                        "type": "array",
                        "items": {"type": "string", "enum": ["Ann", "Ben", "Eva"]},
                    },
                },
            },
            "operation": {
                "type": "update",
                "table": "rooms",
                "key": {"room_id": "room_id"},
                "set": {"attendees": "attendees"},
            },
        },
    ],
}

WEATHER = {
    "name": "weather",
    "tables": {
        "forecasts": {
            "primary_key": "forecast_id",
            "columns": {
                "forecast_id": {"type": "string"},
                "location": {"type": "string"},
                "unit": {"type": "string"},
                "date": {"type": "string"},
                "amount": {"type": "number"},
                "days": {"type": "integer"},
                "code": {"type": "string"},
                "since": {"type": "string"},
                "address": {"type": "json"},
            },
        }
    },
    "tools": [
        {
            "name": "get_forecast",
            "kind": "read",
            "parameters": {
                "type": "object",
                "required": ["location", "unit", "amount", "days", "code"],
                "properties": {
                    "location": {"type": "string", "minLength": 3, "maxLength": 40},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                    "date": {"type": "string", "format": "date"},
                    "amount": {"type": "integer", "minimum": 1, "maximum": 100},
                    "days": {"type": "integer", "enum": [1, 2, 3]},
                    "code": {"type": "string", "pattern": "^[A-Z]{3}-\\d{2}$"},
                    "since": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]},
                },
            },
            "operation": {
                "type": "list",
                "table": "forecasts",
                "filters": [
                    {"column": c, "arg": c}
                    for c in ("location", "unit", "date", "amount", "days", "code", "since")
                ],
            },
        },
        {
            "name": "add_forecast",
            "kind": "write",
            "parameters": {
                "type": "object",
                "required": ["unit", "amount", "address"],
                "properties": {
                    "unit": {"type": "string", "enum": ["metric", "imperial"]},
                    "amount": {"type": "integer", "exclusiveMinimum": 0, "maximum": 9},
                    "address": {
                        "type": "object",
                        "required": ["city", "country"],
                        "properties": {
                            "city": {"type": "string"},
                            "country": {"type": "string", "minLength": 2, "maxLength": 2},
                        },
                    },
                },
            },
            "operation": {
                "type": "insert",
                "table": "forecasts",
                "values": {"unit": "unit", "amount": "amount", "address": "address"},
                "generate": {"forecast_id": "id"},
            },
        },
    ],
}

# A required argument whose schema no value satisfies (from a real doc: type integer, string enum).
TICKETS = {
    "name": "tickets",
    "tables": {
        "tickets": {
            "primary_key": "ticket_id",
            "columns": {"ticket_id": {"type": "string"}, "number_of_tickets": {"type": "integer"}},
        }
    },
    "tools": [
        {
            "name": "reserve_tickets",
            "kind": "write",
            "parameters": {
                "type": "object",
                "required": ["number_of_tickets"],
                "properties": {"number_of_tickets": {"type": "integer", "enum": ["1", "2", "3"]}},
            },
            "operation": {
                "type": "insert",
                "table": "tickets",
                "values": {"number_of_tickets": "number_of_tickets"},
                "generate": {"ticket_id": "id"},
            },
        }
    ],
}


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("env_spec", [MEETING_ROOMS, WEATHER], ids=["json-columns", "constrained-arguments"])
def test_verify_builds_calls_that_fit_the_tools_own_schemas(env_spec, seed):
    assert verify(copy.deepcopy(env_spec), seed=seed) == []


def test_json_columns_get_the_shape_of_the_arguments_bound_to_them():
    state = generate_state(MEETING_ROOMS, seed=0)
    assert all(isinstance(r["attendees"], list) and isinstance(r["room_names"], list) for r in state["rooms"])
    # an unconstrained string column keeps its realistic value; constrained ones satisfy the arguments
    state = generate_state(WEATHER, seed=0)["forecasts"]
    assert all(r["unit"] in ("celsius", "fahrenheit", "metric", "imperial") for r in state)
    assert all(isinstance(r["days"], int) and r["days"] in (1, 2, 3) for r in state)
    assert all(isinstance(r["address"], dict) and len(r["address"]["country"]) == 2 for r in state)
    # every filter value of a row is accepted, so a list call can select existing rows
    with Environment(WEATHER) as env:
        row = env.dump()["forecasts"][0]
        args = {
            "location": row["location"],
            "unit": row["unit"],
            "amount": 5,
            "days": row["days"],
            "code": row["code"],
        }
        assert env.step("get_forecast", args)["ok"]


def test_verify_still_reports_real_spec_problems():
    assert verify(copy.deepcopy(TICKETS)) == [
        {
            "tool": "reserve_tickets",
            "check": "mechanical:cannot_call",
            "reason": "cannot be exercised: no value of required argument 'number_of_tickets' (tickets.number_of_tickets) "
            'satisfies its schema {"enum": ["1", "2", "3"], "type": "integer"}',
        }
    ]
    spec = copy.deepcopy(MEETING_ROOMS)  # a precondition that no row can meet
    spec["tools"][2]["operation"]["preconditions"] = [
        {"column": "meeting_room_name", "op": "eq", "value": "nope"}
    ]
    assert [p["tool"] for p in verify(spec)] == ["update_attendees"]
    assert "no row of rooms can be addressed" in verify(spec)[0]["reason"]
    spec = copy.deepcopy(MEETING_ROOMS)  # the updates really run: their results are checked
    output = {"type": "object", "properties": {"attendees": {"type": "array", "items": {"type": "string"}}}}
    spec["tools"][2]["output_schema"] = output
    assert verify(spec) == []
    output["properties"]["attendees"]["items"]["type"] = "integer"
    assert {p["tool"] for p in verify(spec)} == {"update_attendees"}
    assert "does not match output_schema" in verify(spec)[0]["reason"]


def test_large_generated_states_are_cached_on_disk_and_load_to_the_same_state(tmp_path, monkeypatch):
    """A generated state from the state cache equals a freshly generated one; a damaged entry is rebuilt."""
    import envscale.env.state as state_module

    monkeypatch.setenv("ENVSCALE_CACHE", str(tmp_path))
    monkeypatch.setattr(state_module, "STATE_CACHE_MIN_ROWS", 10)
    spec = copy.deepcopy(load_spec("tests/fixtures/envs/shop.yaml"))
    spec.pop("initial_state", None)
    fresh = Environment(spec)
    files = sorted((tmp_path / "states").glob("*.sqlite"))
    assert len(files) == 1 and files[0].with_suffix(".json").is_file()
    cached = Environment(spec)
    assert cached.state_hash() == fresh.state_hash() == cached.state_hash(recompute=True)
    assert cached.dump() == fresh.dump()
    data = files[0].read_bytes()
    damaged = data[:4096] + bytes(b ^ 0xFF for b in data[4096:4196]) + data[4196:]
    files[0].write_bytes(damaged)  # damaged, same length: the checksum catches it
    rebuilt = Environment(spec)
    assert rebuilt.state_hash() == fresh.state_hash() and rebuilt.dump() == fresh.dump()
    assert files[0].read_bytes() == data  # and the entry is written again
    rebuilt.reset(seed=7)  # another seed than the spec's own: generated, never cached (unbounded)
    assert len(list((tmp_path / "states").glob("*.sqlite"))) == 1
    monkeypatch.setenv("ENVSCALE_STATE_CACHE", "0")
    other = copy.deepcopy(spec)
    other["data"]["seed"] = 99
    Environment(other)
    assert len(list((tmp_path / "states").glob("*.sqlite"))) == 1  # caching off: nothing new written


def test_small_states_are_cached_only_when_they_were_slow_to_generate(tmp_path, monkeypatch):
    """A state of a few rows is cached when generating it took long (fitting nested values costs per column),
    and not when it was quick: reading a trivial state back would cost more than making it."""
    import envscale.env.state as state_module

    monkeypatch.setenv("ENVSCALE_CACHE", str(tmp_path))
    monkeypatch.setattr(state_module, "STATE_CACHE_MIN_ROWS", 10**9)
    spec = copy.deepcopy(load_spec("tests/fixtures/envs/shop.yaml"))
    spec.pop("initial_state", None)
    monkeypatch.setattr(state_module, "STATE_CACHE_MIN_SECONDS", 10**9)
    Environment(spec)
    assert not list((tmp_path / "states").glob("*.sqlite"))
    monkeypatch.setattr(state_module, "STATE_CACHE_MIN_SECONDS", 0.0)
    fresh = Environment(spec)
    assert len(list((tmp_path / "states").glob("*.sqlite"))) == 1
    assert Environment(spec).dump() == fresh.dump()


def test_last_changes_are_the_diff_of_the_last_step_alone(env):
    order = rows(env, "orders", status="pending")[0]["order_id"]
    item = env.dump()["order_items"][0]["item_id"]
    writes = [
        ("create_order", {"customer_id": "cus_0001", "total": 9.5}),
        ("cancel_order", {"order_id": order}),
        ("remove_order_item", {"item_id": item}),
    ]
    for tool, arguments in writes:
        before = env.snapshot()
        assert env.step(tool, arguments)["ok"]
        assert env.last_changes() == env.diff(before) != {}, tool
    assert env.step("get_order", {"order_id": order})["ok"] and env.last_changes() == {}
    assert env.step("cancel_order", {"order_id": order})["code"] == "invalid_state"
    assert env.last_changes() == {}  # a refused call changed nothing
    env.step("update_customer_email", {"customer_id": "cus_0001", "email": "a@b.org"})
    env.reset()
    assert env.last_changes() == {}


def test_last_changes_hold_a_write_and_its_effects():
    with Environment.from_yaml("tests/fixtures/envs/store.yaml") as store:
        customer = store.session()["customer_id"]
        order = next(
            o for o in store.dump()["orders"] if o["customer_id"] == customer and o["status"] == "pending"
        )
        before = store.snapshot()
        assert store.step("pay_order", {"order_id": order["order_id"]})["ok"]
        changes = store.last_changes()
        assert changes == store.diff(before) and set(changes) == {"orders", "customers"}
        (paid,) = changes["customers"]["changed"]
        assert paid["before"]["balance"] - paid["after"]["balance"] == pytest.approx(order["total"])
