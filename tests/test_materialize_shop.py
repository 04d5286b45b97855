"""Acceptance: the shop back office materialised from its OpenAPI spec means what its tools say.

Everything here is a tool call, as an agent (or a person) would make it, on the environment that
`collect -> graph -> materialize` builds from `recipes/sources/envscale_shop.openapi.yaml`.
"""

import json

import pytest

from envscale.env import Environment
from envscale.env.data import filler_share
from envscale.graph.build import GraphConfig, build_graph
from envscale.materialize.build import MaterializeConfig, materialize
from envscale.materialize.verify import verify_report
from envscale.sources.collect import CollectConfig, collect

SHOP = "recipes/sources/envscale_shop.openapi.yaml"


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    root = tmp_path_factory.mktemp("shop")
    pool = collect(CollectConfig(sources=[f"openapi:{SHOP}"]), root / "api_pool")
    graph = build_graph(pool, GraphConfig(embedding_cache=str(root / "emb")), root / "graph")
    art = materialize(graph, MaterializeConfig(), root / "environments")
    rows = [r for r in art.load("environments") if "orders" in r["tables"]]
    assert len(rows) == 1, "the shop's orders live in one environment"
    return rows[0]


@pytest.fixture
def env(shop):
    env = Environment.from_row(shop)
    env.reset()
    return env


def _call(env, tool, **args):
    obs = env.step(tool, args)
    assert obs["ok"], obs
    return obs["result"]


def _one(env, tool, **filters):
    rows = _call(env, tool, **filters)
    assert rows, f"{tool}({filters}) found nothing in the initial state"
    return rows[0]


def test_the_shop_is_one_environment_with_its_api_tools_and_no_strangers(shop):
    names = {t["name"] for t in shop["spec"]["tools"]}
    assert {"create_order", "cancel_order", "list_orders", "get_order", "create_customer"} <= names
    assert all(
        t["metadata"]["group"] == shop["spec"]["tools"][0]["metadata"]["group"] for t in shop["spec"]["tools"]
    )
    assert not shop["read_only"] and shop["semantic_score"] >= 0.9
    assert "orders" in shop["written_and_read"]


def test_the_generated_shop_state_looks_like_a_real_shop(shop, env):
    state = env.dump()
    assert filler_share(shop["spec"], state) <= 0.2
    customers = {c["customer_id"] for c in state["customers"]}
    assert customers and all(o["customer_id"] in customers for o in state["orders"] if o["customer_id"])
    assert all("@" in c["email"] for c in state["customers"] if c["email"])


def test_cancelling_a_pending_order_sets_it_cancelled(env):
    order = _one(env, "list_orders", status="pending")
    result = _call(env, "cancel_order", order_id=order["order_id"], reason="customer_request")
    assert result["status"] == "cancelled"
    assert _call(env, "get_order", order_id=order["order_id"])["status"] == "cancelled"


def test_cancelling_a_shipped_order_is_refused_with_the_specs_reason(env):
    order = _one(env, "list_orders", status="shipped")
    before = env.state_hash()
    obs = env.step("cancel_order", {"order_id": order["order_id"], "reason": "customer_request"})
    assert not obs["ok"] and obs["code"] == "invalid_state"
    assert "not shipped yet" in obs["error"]
    assert env.state_hash() == before
    assert "cancel_order" in env.spec["policy"]


def test_a_new_order_for_an_existing_customer_shows_in_their_order_list(env):
    customer = _one(env, "list_customers")
    mine = _call(env, "list_orders", customer_id=customer["customer_id"])
    order = _call(
        env,
        "create_order",
        customer_id=customer["customer_id"],
        lines=[{"product_id": _one(env, "list_products")["product_id"], "quantity": 2}],
    )
    assert order["status"] == "pending" and order["customer_id"] == customer["customer_id"]
    after = _call(env, "list_orders", customer_id=customer["customer_id"])
    assert len(after) == len(mine) + 1
    assert order["order_id"] in {o["order_id"] for o in after}
    # an order for a customer that does not exist is refused, not stored
    obs = env.step(
        "create_order", {"customer_id": "cus_nobody", "lines": [{"product_id": "x", "quantity": 1}]}
    )
    assert not obs["ok"] and obs["code"] == "conflict"


def test_stock_moves_when_the_spec_says_so(env):
    level = next(row for row in _call(env, "list_inventory") if row["on_hand"] >= row["reserved"])
    where = {"warehouse_id": level["warehouse_id"], "product_id": level["product_id"]}
    moved = _call(env, "adjust_inventory", **where, delta=5, reason="received")
    assert moved["on_hand"] == level["on_hand"] + 5
    # "Refused with 409 when the quantity on hand would drop below the quantity reserved"
    obs = env.step(
        "adjust_inventory", {**where, "delta": -(moved["on_hand"] - moved["reserved"]) - 1, "reason": "lost"}
    )
    assert not obs["ok"] and obs["code"] == "invalid_state" and "reserved" in obs["error"]
    assert _call(env, "get_inventory_level", **where)["on_hand"] == moved["on_hand"]


def test_deleting_a_customer_with_open_orders_is_refused(env):
    orders = _call(env, "list_orders", status="pending")
    customer_id = orders[0]["customer_id"]
    obs = env.step("delete_customer", {"customer_id": customer_id})
    assert not obs["ok"] and obs["code"] == "invalid_state" and "Refused" in obs["error"]


def test_a_verifier_that_checks_nothing_would_not_pass_this_spec(shop):
    """The semantic checks are live on this spec: break cancel_order and verification names it."""
    spec = shop["spec"]
    cancel = next(t for t in spec["tools"] if t["name"] == "cancel_order")
    cancel["operation"].pop("fixed")
    cancel["operation"]["set"] = {"notes": "note"}
    report = verify_report(spec)
    assert any(p["tool"] == "cancel_order" for p in report["problems"])


def test_a_refund_adds_to_what_was_refunded_and_never_beyond_the_payment(env):
    payment = next(
        p
        for p in _call(env, "list_order_payments", order_id=_one(env, "list_orders")["order_id"])
        + [
            r
            for o in _call(env, "list_orders")
            for r in _call(env, "list_order_payments", order_id=o["order_id"])
        ]
        if p["status"] == "captured"
        and p["amount"] is not None
        and p["refunded_amount"] is not None
        and p["refunded_amount"] + 1 <= p["amount"]
    )
    refunded = _call(env, "refund_payment", payment_id=payment["payment_id"], amount=1, reason="goodwill")
    assert refunded["refunded_amount"] == pytest.approx(payment["refunded_amount"] + 1)
    assert refunded["amount"] == payment["amount"]  # the payment itself is not rewritten
    too_much = {"payment_id": payment["payment_id"], "amount": payment["amount"] + 1, "reason": "goodwill"}
    env.reset()
    obs = env.step("refund_payment", too_much)
    assert not obs["ok"] and "cannot exceed" in obs["error"]


def test_the_policy_every_agent_is_shown_names_every_tool_a_rule_refuses(shop):
    # the spec's own text (what MCP clients and the Gymnasium adapter show) had lines for the acts only; a
    # delete refused on cancelled appointments was in no line
    from envscale.env.policy import policy_rules

    spec = shop["spec"] if isinstance(shop["spec"], dict) else json.loads(shop["spec"])
    rules = policy_rules({**spec, "policy": None})["rules"]
    assert rules
    assert all(rule["tool"] in spec["policy"] for rule in rules), spec["policy"]
    assert shop["policy"] == spec["policy"]
