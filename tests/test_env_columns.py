"""Column values (envscale.env.columns): one rule for every way a value reaches a column.

A call's argument (`step`) and a row of a state (`reset(state=...)`, a spec's `initial_state`) are
held to the same rule, `value_problem` = what `encode` refuses (then the enum), and store the same.
"""

import math

import pytest

from envscale.env import Environment, SpecError
from envscale.env.columns import encode, value_problem

COLUMNS = {
    "item_id": {"type": "string"},
    "quantity": {"type": "integer", "nullable": False},
    "price": {"type": "number", "nullable": False},
    "gift": {"type": "boolean"},
    "label": {"type": "string"},
    "status": {"type": "string", "enum": ["open", "closed"], "nullable": False},
    "extra": {"type": "json"},
}
ROW = {
    "item_id": "i1",
    "quantity": 1,
    "price": 1.5,
    "gift": False,
    "label": "a",
    "status": "open",
    "extra": None,
}


def spec() -> dict:
    """One table; one write tool per column whose argument's schema takes anything, so that only the
    column's own rule decides (the tool's JSON Schema would refuse most wrong types first)."""
    tools = [
        {
            "name": f"set_{column}",
            "description": f"Set an item's {column}.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"item_id": {"type": "string"}, "value": {}},
                "required": ["item_id", "value"],
            },
            "operation": {
                "type": "update",
                "table": "items",
                "key": {"item_id": "item_id"},
                "set": {column: "value"},
            },
        }
        for column in COLUMNS
        if column != "item_id"
    ]
    return {
        "name": "columns",
        "description": "Items.",
        "tables": {"items": {"primary_key": "item_id", "columns": COLUMNS}},
        "initial_state": {"items": [ROW]},
        "tools": tools,
    }


CASES = [
    ("quantity", 2, True),
    ("quantity", 2.0, True),  # what a JSON client often sends for 2: stored as the integer 2
    ("quantity", -0.0, True),
    ("quantity", True, False),  # a boolean is not a number
    ("quantity", "2", False),
    ("quantity", 2.5, False),
    ("quantity", None, False),  # NOT NULL
    ("quantity", 2**63, False),  # beyond SQLite's integers
    ("quantity", 1e300, False),
    ("quantity", math.inf, False),
    ("quantity", math.nan, False),
    ("price", 2, True),
    ("price", 2.5, True),
    ("price", False, False),
    ("price", "2.5", False),
    ("price", math.inf, False),
    ("price", 10**400, False),  # no float holds it
    ("gift", True, True),
    ("gift", 1, False),
    ("gift", None, True),  # nullable
    ("label", "b", True),
    ("label", "é\U0001f600", True),
    ("label", "\ud800", False),  # an unpaired surrogate: UTF-8 cannot encode it
    ("label", 7, False),
    ("status", "closed", True),
    ("status", "lost", False),  # not in the enum
    ("status", None, False),
    ("extra", {"b": [1, 2], "a": None}, True),
    ("extra", "text", True),
    ("extra", {1: "a", "b": 2}, False),  # keys that cannot be ordered: no canonical JSON
    ("extra", {"x": math.nan}, False),
]


@pytest.fixture(scope="module")
def env():
    with Environment(spec()) as environment:
        yield environment


@pytest.mark.parametrize(("column", "value", "fits"), CASES, ids=[f"{c}={v!r:.20}" for c, v, _ in CASES])
def test_step_and_reset_with_a_state_agree_on_a_value(env, column, value, fits):
    env.reset()
    obs = env.step(f"set_{column}", {"item_id": "i1", "value": value})
    assert obs["ok"] is fits, obs
    if not fits:
        assert obs["code"] == "invalid_arguments", obs
    stepped = env.dump()["items"][0][column]

    try:
        env.reset(state={"items": [{**ROW, column: value}]})
    except SpecError:
        loaded = False
    else:
        loaded = True
        assert env.dump()["items"][0][column] == stepped  # the same value is stored either way
        assert type(env.dump()["items"][0][column]) is type(stepped)
    assert loaded is fits

    if value is not None:  # null is `is_nullable`'s business
        assert (value_problem(COLUMNS[column], value) is None) is fits
        try:
            encode(COLUMNS[column]["type"], value)
        except TypeError as exc:
            assert value_problem(COLUMNS[column], value) == str(exc)


def test_an_integral_float_is_stored_as_the_integer(env):
    env.reset()
    assert env.step("set_quantity", {"item_id": "i1", "value": 3.0})["ok"]
    assert env.dump()["items"][0]["quantity"] == 3
    assert type(env.dump()["items"][0]["quantity"]) is int
    env.reset(state={"items": [{**ROW, "quantity": 4.0}]})
    assert type(env.dump()["items"][0]["quantity"]) is int
