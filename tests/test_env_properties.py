"""Property test of the environment runtime: random calls never raise, and failures and reads change nothing."""

import json

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envscale.env import ERROR_CODES, Environment, generate_state, load_spec
from envscale.env.arguments import quick_check as _quick_check

SPEC = load_spec("tests/fixtures/envs/shop.yaml")
TOOL_NAMES = [t["name"] for t in SPEC["tools"]]
READS = {t["name"] for t in SPEC["tools"] if t["kind"] == "read"}
ARG_NAMES = sorted({a for t in SPEC["tools"] for a in t["parameters"].get("properties", {})})
IDS = {  # mostly existing keys, some missing ones
    "customer_id": ["cus_0001", "cus_0007", "cus_0020", "cus_0404"],
    "product_id": ["pro_0003", "pro_0015", "pro_0404"],
    "order_id": ["ord_0001", "ord_0002", "ord_0017", "ord_0024", "ord_0040", "ord_0041"],
    "item_id": ["oi_0004", "oi_0050", "oi_0404"],
    "email": [generate_state(SPEC, seed=0)["customers"][0]["email"], "new@example.com"],  # cus_0001's; new
}
KEYS = [k for keys in IDS.values() for k in keys]
NASTY = [
    "x'); DROP TABLE orders;--",
    "%",
    "_",
    "\\",
    '"',
    "\x00",
    "é" * 100_000,
    "",
    "NULL",
    "pending",
    "cancelled",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(KEYS + NASTY + ["shipped", "delivered", "books", "toys"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
anything = st.dictionaries(st.sampled_from(ARG_NAMES) | st.text(max_size=8), values, max_size=5)


def weighted(*choices):
    """Draw from one of the strategies with the given relative weights (`one_of` weighs its branches equally)."""
    pool = [strategy for weight, strategy in choices for _ in range(weight)]
    return st.integers(min_value=0, max_value=len(pool) - 1).flatmap(lambda i: pool[i])


def plausible(name, prop):
    """Mostly values of the argument's type (existing keys, enum values, nasty strings), now and then anything."""
    kind = prop.get("type")
    if name in IDS:
        good = weighted((4, st.sampled_from(IDS[name])), (1, st.sampled_from(KEYS + NASTY)))
    elif "enum" in prop:
        good = st.sampled_from(prop["enum"])
    elif kind == "string":
        good = st.sampled_from(KEYS + NASTY) | st.text(max_size=10)
    elif kind == "integer":
        good = st.integers(min_value=0, max_value=60)
    elif kind == "number":
        good = st.floats(min_value=0, max_value=1000)
    elif kind == "array":
        good = st.lists(plausible(None, prop.get("items", {})), max_size=3)
    else:
        good = values
    return weighted((9, good), (1, values))


def tool_arguments(tool):
    """Arguments for one tool: mostly well-formed, else with an extra field, as JSON text, or anything at all."""
    props, required = tool["parameters"].get("properties", {}), tool["parameters"].get("required", [])
    formed = st.fixed_dictionaries(
        {a: plausible(a, props[a]) for a in required},
        optional={a: plausible(a, p) for a, p in props.items() if a not in required},
    )
    return weighted(
        (6, formed),
        (1, formed.map(json.dumps)),
        (
            1,
            st.one_of(
                st.tuples(formed, st.text(max_size=8), values).map(lambda t: {**t[0], t[1]: t[2]}),
                anything,
                anything.map(lambda d: json.dumps(d, default=str)),
                st.text(max_size=30),
                st.sampled_from(["{", "null", "[]", '{"order_id": NaN}']),
                st.none(),
                st.lists(scalars, max_size=3),
            ),
        ),
    )


known = st.one_of([st.tuples(st.just(t["name"]), tool_arguments(t)) for t in SPEC["tools"]])
unknown = st.tuples(
    st.sampled_from(["", "nope", "get_order; DROP TABLE orders"]) | st.text(max_size=10), anything
)
calls = st.lists(weighted((4, known), (1, unknown)), min_size=1, max_size=8)


@pytest.fixture(scope="module")
def env():
    with Environment(SPEC) as environment:
        yield environment


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(calls=calls)
def test_random_calls_never_raise_and_failures_and_reads_change_nothing(env, calls):
    env.reset()
    for tool, args in calls:
        before = env.state_hash()
        obs = env.step(tool, args)
        assert isinstance(obs, dict) and isinstance(obs["ok"], bool)
        json.dumps(obs)  # observations are JSON values
        if not obs["ok"]:
            assert obs["code"] in ERROR_CODES and obs["code"] != "internal", obs
            assert env.state_hash() == before, (tool, args, obs)
        if tool in READS:
            assert env.state_hash() == before
    assert env.state_hash() == env.state_hash(recompute=True)
    assert set(env.dump()) == {"customers", "products", "orders", "order_items"}


@settings(max_examples=300, deadline=None, derandomize=True)
@given(call=known)
def test_the_quick_argument_check_never_accepts_what_jsonschema_rejects(call):
    name, args = call
    params = next(t["parameters"] for t in SPEC["tools"] if t["name"] == name)
    quick = _quick_check(params)
    assert quick is not None  # the fixture's schemas are all in the quick subset
    if isinstance(args, dict) and quick(args):
        assert jsonschema.validators.validator_for(params)(params).is_valid(args)
