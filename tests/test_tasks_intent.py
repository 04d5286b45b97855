"""Tests for `envscale.tasks.intent`: what the simulated user knows and says.

Drafts are built by hand against the fixture environments (`shop`: a back office, no session; `store`: a shop
seen by its signed-in customer) and their gold calls run on a real `Environment`, so results (and the rows a
chain picks from) are the environment's own. The LLM rewrite talks to a protocol-level FAKE OpenAI-compatible
server on loopback (`tests/llmfake.py`); the client itself is tested against a real server in `test_llm.py`.
"""

from __future__ import annotations

import asyncio
import copy
import json
import random
import re

import pytest
from llmfake import Reply, completion, start_llm_fake

from envscale.env import Environment, load_spec
from envscale.llm import LLMClient, LLMConfig
from envscale.tasks import intent
from envscale.tasks.intent import (
    check_rewrite,
    fact_name,
    mentions,
    rewrite_instructions,
    tool_names_in,
    write_instructions,
)
from envscale.tasks.model import GoldCall, Instructions, TaskDraft

SHOP = "tests/fixtures/envs/shop.yaml"
STORE = "tests/fixtures/envs/store.yaml"
COLUMN_NAME = re.compile(r"\b[a-z][a-z0-9]*_(?:id|ids|at|price|items)\b")


@pytest.fixture(scope="module")
def shop():
    return load_spec(SHOP)


@pytest.fixture(scope="module")
def store():
    return load_spec(STORE)


def tool(spec, name):
    return next(t for t in spec["tools"] if t["name"] == name)


def run(path, calls):
    """Execute the gold calls on a fresh environment, filling their results (as the chain builder does)."""
    with Environment.from_yaml(path) as env:
        env.reset()
        for call in calls:
            obs = env.step(call.tool, call.arguments)
            assert obs["ok"], (call.tool, obs)
            call.result = obs["result"]
    return calls


def named(spec, calls, **constants):
    """user_facts of `calls`: every user/constant argument under `fact_name` (what the chain builder does)."""
    facts = {}
    for call in calls:
        for arg, value in call.arguments.items():
            if not call.provenance.get(arg, "user").startswith("call["):
                facts[fact_name(arg, tool(spec, call.tool), spec)] = value
    return facts | constants


def draft_of(spec, path, kind, calls, **kwargs):
    calls = run(path, calls) if calls else calls
    return TaskDraft(spec["name"], kind, calls, user_facts=named(spec, calls), **kwargs)


# ------------------------------------------------------------------------------------------ drafts


def shop_drafts(shop):
    """One draft per kind (and shape) on the shop back office, as the chain builder makes them."""
    cancel = GoldCall("cancel_order", {"order_id": "ord_0012"}, {"order_id": "user"}, write=True)
    email = GoldCall(
        "update_customer_email",
        {"customer_id": "cus_0003", "email": "new.me@example.com"},
        {"customer_id": "user", "email": "constant"},
        write=True,
    )
    read = GoldCall("get_order", {"order_id": "ord_0003"}, {"order_id": "user"})
    add_item = GoldCall(
        "add_order_item",
        {"order_id": "ord_0012", "product_id": "pro_0004", "quantity": 2, "unit_price": 19.5},
        {"order_id": "user", "product_id": "user", "quantity": "constant", "unit_price": "constant"},
        write=True,
    )
    lookup = GoldCall("list_orders", {"customer_id": "cus_0001"}, {"customer_id": "user"})
    then_cancel = GoldCall(
        "cancel_order", {"order_id": "ord_0012"}, {"order_id": "call[0][1].order_id"}, write=True
    )
    look = GoldCall("get_order", {"order_id": "ord_0012"}, {"order_id": "user"})
    and_cancel = GoldCall(
        "cancel_order", {"order_id": "ord_0012"}, {"order_id": "call[0].order_id"}, write=True
    )
    count = GoldCall("count_orders", {"status": "pending"}, {"status": "user"})
    # two lookups feeding one write: the order and the product are found, the price is the product's own
    mine = GoldCall(
        "list_orders",
        {"customer_id": "cus_0001", "statuses": ["pending"]},
        {"customer_id": "user", "statuses": "user"},
    )
    cheap = GoldCall(
        "list_products", {"category": "home", "max_price": 100}, {"category": "user", "max_price": "user"}
    )
    add_found = GoldCall(
        "add_order_item",
        {"order_id": "ord_0012", "product_id": "pro_0005", "quantity": 3, "unit_price": 71.99},
        {
            "order_id": "call[0][0].order_id",
            "product_id": "call[1][0].product_id",
            "quantity": "constant",
            "unit_price": "call[1][0].price",
        },
        write=True,
    )
    hidden = GoldCall("cancel_order", {"order_id": "ord_0019"}, {"order_id": "user"}, write=True)
    shipped = GoldCall("get_order", {"order_id": "ord_0003"}, {"order_id": "user"})
    rule = {
        "tool": "cancel_order",
        "table": "orders",
        "column": "status",
        "op": "in",
        "allowed": ["pending"],
        "text": "only pending orders can be cancelled",
        "attempt": {
            "tool": "cancel_order",
            "arguments": {"order_id": "ord_0003"},
            "provenance": {"order_id": "user"},
        },
    }
    return {
        "status": draft_of(shop, SHOP, "write", [cancel]),
        "update": draft_of(shop, SHOP, "write", [email]),
        "read": draft_of(shop, SHOP, "read", [read], answer_facts=["delivered"]),
        "create": draft_of(shop, SHOP, "write", [add_item]),
        "chain": draft_of(shop, SHOP, "write", [lookup, then_cancel], shape="linear"),
        "mixed": draft_of(shop, SHOP, "mixed", [look, and_cancel], shape="linear", answer_facts=["pending"]),
        "count": draft_of(shop, SHOP, "read", [count], answer_facts=["8"]),
        "dag": draft_of(shop, SHOP, "write", [mine, cheap, add_found], shape="dag"),
        "missing_info": draft_of(shop, SHOP, "missing_info", [hidden], withheld=["order number"]),
        "policy": draft_of(
            shop,
            SHOP,
            "policy",
            [shipped],
            forbidden=["cancel_order"],
            required=["get_order"],
            policy_rule=rule,
            answer_facts=["delivered"],
        ),
    }


def store_drafts(store):
    """Drafts on the store, where the user is the signed-in customer (no customer id in any call)."""
    place = GoldCall(
        "place_order",
        {"product_id": "pro_0001", "quantity": 2, "unit_price": 25.0},
        {"product_id": "user", "quantity": "constant", "unit_price": "constant"},
        write=True,
    )
    pending = GoldCall("list_my_orders", {"status": "pending"}, {"status": "user"})
    pay_newest = GoldCall(
        "pay_order", {"order_id": "ord_0005"}, {"order_id": "call[0][1].order_id"}, write=True
    )
    profile = GoldCall("get_my_profile", {}, {})
    email = GoldCall("update_my_email", {"email": "ann.lee@example.org"}, {"email": "constant"}, write=True)
    stock = GoldCall(
        "adjust_stock", {"sku": "inv_0001", "delta": -3}, {"sku": "user", "delta": "constant"}, write=True
    )
    move = GoldCall(
        "move_stock",
        {"from_sku": "inv_0001", "to_sku": "inv_0002", "quantity": 2},
        {"from_sku": "user", "to_sku": "user", "quantity": "constant"},
        write=True,
    )
    return {
        "place": draft_of(store, STORE, "write", [place]),
        "pay_newest": draft_of(store, STORE, "write", [pending, pay_newest], shape="linear"),
        "profile": draft_of(store, STORE, "read", [profile], answer_facts=["ann@example.com"]),
        "email": draft_of(store, STORE, "write", [email]),
        "stock": draft_of(store, STORE, "write", [stock]),
        "move": draft_of(store, STORE, "write", [move]),
    }


@pytest.fixture(scope="module")
def drafts(shop, store):
    return {**shop_drafts(shop), **{f"store_{k}": v for k, v in store_drafts(store).items()}}


def spec_of(name, shop, store):
    return store if name.startswith("store_") else shop


# ------------------------------------------------------------------------------------------ fact names


def test_fact_names_are_words_a_person_uses(shop, store):
    assert fact_name("order_id", tool(shop, "cancel_order"), shop) == "order number"
    assert fact_name("customer_id", tool(shop, "get_customer"), shop) == "customer id"
    assert fact_name("customer_id", tool(shop, "create_order"), shop) == "customer id"
    assert fact_name("email", tool(shop, "update_customer_email"), shop) == "new email address"
    assert fact_name("status", tool(shop, "update_order_status"), shop) == "new order status"
    assert fact_name("max_price", tool(shop, "list_products"), shop) == "maximum price"
    assert fact_name("category", tool(shop, "list_products"), shop) == "product category"
    assert fact_name("note", tool(shop, "create_order"), shop) == "order note"
    assert fact_name("unit_price", tool(shop, "add_order_item"), shop) == "unit price"
    assert fact_name("sku", tool(store, "adjust_stock"), store) == "SKU"
    assert fact_name("delta", tool(store, "adjust_stock"), store) == "change in quantity on hand"
    assert fact_name("reason", tool(store, "cancel_order"), store) == "cancel reason"
    move = tool(store, "move_stock")
    assert (fact_name("from_sku", move, store), fact_name("to_sku", move, store)) == (
        "source SKU",
        "destination SKU",
    )


def test_fact_names_never_repeat_within_a_tool_and_have_no_raw_names(shop, store):
    for spec in (shop, store):
        for t in spec["tools"]:
            names = [fact_name(a, t, spec) for a in t["parameters"].get("properties", {})]
            assert len(names) == len(set(names)), (t["name"], names)
            for name in names:
                assert "_" not in name and not COLUMN_NAME.search(name), (t["name"], name)


COMMUNITY = {
    "name": "community",
    "description": "A community platform.",
    "tables": {
        "users": {
            "primary_key": "user_id",
            "columns": {"user_id": {"type": "string"}, "name": {"type": "string", "nullable": True}},
        },
        "identities": {
            "primary_key": "identity_id",
            "columns": {
                "identity_id": {"type": "string"},
                "member_id": {"type": "string", "nullable": True},
                "name": {"type": "string", "nullable": True},
                "username": {"type": "string", "nullable": True, "references": "users"},
            },
        },
    },
    "tools": [
        {
            "name": "add_identity",
            "description": "Add an identity to a user.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "username": {"type": "string"}},
                "required": ["name"],
            },
            "operation": {
                "type": "insert",
                "table": "identities",
                "values": {"name": "name", "username": "username"},
                "returns": "row",
                "generate": {"identity_id": "id"},
            },
        }
    ],
}


def test_a_natural_key_of_another_rows_person_is_named_as_itself_and_never_as_the_users_own():
    """An identity's `username` references users (keyed by `user_id`): the user states "the username", never "my
    user id" (a blind reader found "My user id is priya.cannon09" filling a new identity's username)."""
    add = COMMUNITY["tools"][0]
    assert fact_name("username", add, COMMUNITY) == "username"
    args = {"name": "Christie Soto", "username": "priya.cannon09"}
    call = GoldCall("add_identity", args, {"name": "constant", "username": "constant"}, write=True)
    call.result = {"identity_id": "ide_0001", **args}
    facts = {fact_name(a, add, COMMUNITY): v for a, v in args.items()}
    draft = TaskDraft("community", "write", [call], user_facts=facts)
    for seed in range(6):
        message = write_instructions(draft, COMMUNITY, random.Random(seed)).first_message
        assert "priya.cannon09" in message and "user id" not in message.lower(), message
        assert "my username" not in message.lower(), message


def test_an_account_holder_who_changes_another_persons_row_is_staff(shop):
    """With a session (the logged-in `accounts` row), a task that changes a customer's row is the service's
    staff at work, not a customer: a blind reader found "You are a patient of a medical clinic" deleting another
    customer, and "a learner" suspending a user."""
    spec = json.loads(json.dumps(shop))
    spec["tables"]["accounts"] = {"primary_key": "account_id", "columns": {"account_id": {"type": "string"}}}
    spec["session"] = {"table": "accounts"}
    lookup = GoldCall("get_order", {"order_id": "ord_0003"}, {"order_id": "user"})
    change = GoldCall(
        "update_customer_email",
        {"customer_id": "cus_0012", "email": "new.address@example.com"},
        {"customer_id": "call[0].customer_id", "email": "constant"},
        write=True,
    )
    calls = run(SHOP, [lookup, change])
    change.arguments["customer_id"] = calls[0].result["customer_id"]
    draft = TaskDraft(spec["name"], "write", calls, user_facts=named(spec, calls))
    for seed in range(4):
        persona = write_instructions(draft, spec, random.Random(seed)).persona
        assert "back office of an online shop" in persona, persona
    # ... while reading their own order keeps them a customer
    mine = TaskDraft(spec["name"], "read", calls[:1], user_facts=named(spec, calls[:1]))
    assert write_instructions(mine, spec, random.Random(0)).persona.startswith("You are a customer")
    # ... and looking up a customer's details is staff's work too ("a customer of a bank" asking another user's
    # mobile number, a blind reader)
    look = run(SHOP, [GoldCall("get_customer", {"customer_id": "cus_0012"}, {"customer_id": "user"})])
    other = TaskDraft(spec["name"], "read", look, user_facts=named(spec, look))
    assert "back office of an online shop" in write_instructions(other, spec, random.Random(0)).persona


def test_only_whoever_runs_a_service_reads_its_hook_configurations(shop, tmp_path):
    """Seed 94's readers: "a customer of an online shop" asked for "the last state of the hook config with client
    email ...", integrator internals no customer asks about. A request about a service's webhooks, configuration or
    audit log is staff's; a customer's own order stays theirs."""
    import yaml

    from envscale.tasks.intent import persona_role

    spec = copy.deepcopy(shop)
    spec["tables"]["hook_configs"] = {
        "primary_key": "hook_config_id",
        "columns": {
            "hook_config_id": {"type": "string"},
            "client_email": {"type": "string"},
            "url": {"type": "string"},
        },
    }
    spec["tools"].append(
        {
            "name": "get_hook_configuration",
            "description": "Get the hook configuration of a client.",
            "kind": "read",
            "parameters": {
                "type": "object",
                "properties": {"hook_config_id": {"type": "string"}},
                "required": ["hook_config_id"],
            },
            "operation": {
                "type": "get",
                "table": "hook_configs",
                "key": {"hook_config_id": "hook_config_id"},
            },
        }
    )
    path = tmp_path / "shop.yaml"
    spec["data"]["rows"]["hook_configs"] = 5
    spec["session"] = {"table": "customers"}  # a signed-in customer's assistant, as Orders API's was
    path.write_text(yaml.safe_dump(spec))
    with Environment.from_yaml(path) as env:
        env.reset()
        key = env.dump()["hook_configs"][1]["hook_config_id"]
    hook = run(
        path, [GoldCall("get_hook_configuration", {"hook_config_id": key}, {"hook_config_id": "user"})]
    )
    draft = TaskDraft(spec["name"], "read", hook, user_facts=named(spec, hook))
    cancel = run(path, [GoldCall("cancel_order", {"order_id": "ord_0012"}, {"order_id": "user"}, write=True)])
    mine = TaskDraft(spec["name"], "write", cancel, user_facts=named(spec, cancel))
    for seed in range(4):
        assert persona_role(write_instructions(draft, spec, random.Random(seed)).persona) == "staff"
        assert persona_role(write_instructions(mine, spec, random.Random(seed)).persona) == "user"


def test_one_conversation_never_mixes_a_customers_request_with_a_staff_members():
    from envscale.tasks.conversations import _two_roles
    from envscale.tasks.intent import persona_role

    customer = {"instructions": {"persona": "You are a customer of an online shop."}}
    staff = {"instructions": {"persona": "You are someone who works in the back office of an online shop."}}
    neither = {"instructions": {"persona": "You are a community manager who uses a community platform."}}
    assert persona_role(customer["instructions"]["persona"]) == "user"
    assert persona_role(staff["instructions"]["persona"]) == "staff"
    assert _two_roles([customer, staff]) and not _two_roles([customer, customer])
    assert not _two_roles([customer, neither]) and not _two_roles([staff, neither])


# ------------------------------------------------------------------------------------------ first message


@pytest.mark.parametrize(
    "name",
    [
        "status",
        "update",
        "read",
        "create",
        "chain",
        "mixed",
        "count",
        "dag",
        "missing_info",
        "policy",
        "store_place",
        "store_pay_newest",
        "store_profile",
        "store_email",
        "store_stock",
        "store_move",
    ],
)
def test_first_message_states_known_facts_only_in_plain_words(name, drafts, shop, store):
    draft, spec = drafts[name], spec_of(name, shop, store)
    tools = [t["name"] for t in spec["tools"]]
    for seed in range(12):
        ins = write_instructions(draft, spec, random.Random(seed))
        message = ins.first_message
        assert ins.known_facts == {k: v for k, v in draft.user_facts.items() if k not in draft.withheld}
        assert ins.hidden_facts == {k: draft.user_facts[k] for k in draft.withheld}
        for fact, value in ins.known_facts.items():
            assert mentions(message, value), (fact, value, message)
        for fact, value in ins.hidden_facts.items():
            assert not mentions(message, value), (fact, message)
        assert tool_names_in(message, tools) == [] and tool_names_in(ins.goal, tools) == []
        for text in (message, ins.goal, ins.done_when, ins.persona):
            assert not COLUMN_NAME.search(text), text
            assert not any(t in text for t in spec["tables"] if "_" in t), text
            assert "  " not in text and not re.search(r"(?<!\.)\.\.(?!\.)", text.replace('.".', "")), text
        assert message[0].isupper() and message.rstrip()[-1] in ".?!", message
        assert ins.style in ("plain", "terse", "vague")


def test_values_found_by_the_agent_are_described_not_said(drafts):
    """A key that flows from an earlier result is what the agent looks up: the user describes the row."""
    chain = write_instructions(drafts["chain"], load_spec(SHOP), random.Random(0))
    assert "ord_0012" not in chain.first_message and "ord_0012" not in chain.goal
    assert "my pending order" in chain.goal  # the only pending one of cus_0001's three orders
    assert "cus_0001" in chain.first_message

    newest = write_instructions(drafts["store_pay_newest"], load_spec(STORE), random.Random(0))
    assert "ord_0005" not in newest.first_message
    # ord_0005 is the later of the two; said either folded into the request or as a lookup first
    assert re.search(
        r"pay my most recent pending order|look up my most recent pending order and( then)? pay it",
        newest.goal,
    )


def test_two_lookups_feeding_one_write_are_described_once_each(drafts, shop):
    ins = write_instructions(drafts["dag"], shop, random.Random(3))
    assert ins.goal == (
        "I want to add an item to my pending order for the product in the home category costing at most 100 "
        "with a quantity of 3 and the unit price set to that product's price."
    )
    assert "pro_0005" not in ins.first_message and "ord_0012" not in ins.first_message
    assert ins.done_when == "when the assistant confirms that the new item is added"


def test_requests_read_as_a_person_would_write_them(drafts, shop, store):
    goals = {
        name: write_instructions(d, spec_of(name, shop, store), random.Random(1)).goal
        for name, d in drafts.items()
    }
    assert goals["status"] == "I want to cancel my order ord_0012."
    assert "email address on my account to new.me@example.com" in goals["update"]
    assert "the status of my order ord_0003" in goals["read"]
    assert "an item to my order ord_0012 for product pro_0004" in goals["create"]
    assert "a quantity of 2" in goals["create"] and "a unit price of 19.50" in goals["create"]
    assert re.search(r"status of my order ord_0012(,| and)( then)? cancel it\.$", goals["mixed"])
    assert "how many pending orders there are" in goals["count"]
    assert goals["policy"] == "I want to cancel my order ord_0003."
    assert goals["store_place"].startswith("I want to place") and "product pro_0001" in goals["store_place"]
    assert "email address on my account to ann.lee@example.org" in goals["store_email"]
    assert "decrease the quantity on hand of SKU inv_0001 by 3" in goals["store_stock"]
    assert "move 2 units from SKU inv_0001 to SKU inv_0002" in goals["store_move"]


def test_the_user_is_a_customer_when_the_task_is_about_their_rows(drafts, shop, store):
    for name in ("status", "update", "read", "store_place", "store_profile"):
        persona = write_instructions(drafts[name], spec_of(name, shop, store), random.Random(0)).persona
        assert persona.startswith("You are a customer of an online shop"), persona
    # a question about all orders is a back-office one
    count = write_instructions(drafts["count"], shop, random.Random(0))
    assert (
        "back office of an online shop" in count.persona and "how many pending orders there are" in count.goal
    )
    # a task that has to find a customer by a lookup is done for someone else: back-office staff
    spec = dict(shop)
    lookup = GoldCall("get_order", {"order_id": "ord_0003"}, {"order_id": "user"})
    whose = GoldCall("get_customer", {"customer_id": "cus_0012"}, {"customer_id": "call[0].customer_id"})
    draft = draft_of(spec, SHOP, "read", [lookup, whose], answer_facts=["cus_0012"])
    draft.answer_facts = [
        run(SHOP, [GoldCall("get_customer", {"customer_id": "cus_0012"}, {})])[0].result["email"]
    ]
    ins = write_instructions(draft, spec, random.Random(0))
    assert "back office of an online shop" in ins.persona
    assert "email address of the customer of order ord_0003" in ins.goal


def test_persona_comes_from_the_environment_not_its_raw_names():
    spec = {
        "name": "domain_12_pos_api",
        "tables": {
            "vehicles": {"primary_key": "vehicle_id", "columns": {"vehicle_id": {}, "engine_state": {}}},
            "headlights": {"primary_key": "headlight_id", "columns": {"headlight_id": {}, "mode": {}}},
        },
        "tools": [
            {
                "name": "startEngine_1a2b",
                "kind": "write",
                "parameters": {"type": "object", "properties": {"vehicle_id": {"type": "string"}}},
                "operation": {
                    "type": "update",
                    "table": "vehicles",
                    "key": {"vehicle_id": "vehicle_id"},
                    "fixed": {"engine_state": "started"},
                },
                "metadata": {"original_name": "startEngine"},
            }
        ],
    }
    call = GoldCall("startEngine_1a2b", {"vehicle_id": "veh_0001"}, {"vehicle_id": "user"}, write=True)
    draft = TaskDraft(spec["name"], "write", [call], user_facts={"vehicle id": "veh_0001"})
    ins = write_instructions(draft, spec, random.Random(0))
    assert "driver of a connected car" in ins.persona
    assert "domain" not in ins.persona and "pos_api" not in ins.persona
    assert "startEngine" not in ins.first_message and "veh_0001" in ins.first_message
    assert ins.goal == "I want to start the vehicle veh_0001."  # never "start vehicle": a tool's name
    assert ins.done_when == "when the assistant confirms that the vehicle is started"


def test_done_when_fits_each_kind(drafts, shop):
    done = {
        name: write_instructions(drafts[name], shop, random.Random(0)).done_when
        for name in drafts
        if not name.startswith("store_")
    }
    assert done["status"] == "when the assistant confirms that the order is cancelled"
    assert done["read"] == "when the assistant tells you the status of the order"
    assert done["count"] == "when the assistant tells you how many pending orders there are"
    assert done["create"] == "when the assistant confirms that the new item is added"
    assert done["mixed"] == (
        "when the assistant has told you the status of the order and confirmed that the order is cancelled"
    )
    assert done["missing_info"] == (
        "when the assistant has asked for your order number and then confirmed that the order is cancelled"
    )
    assert (
        done["policy"]
        == "when the assistant explains that it cannot cancel the order, or tells you it is done"
    )


def test_missing_info_asks_without_the_withheld_value_and_policy_asks_naturally(drafts, shop):
    ins = write_instructions(drafts["missing_info"], shop, random.Random(0))
    assert ins.hidden_facts == {"order number": "ord_0019"}
    assert "cancel one of my orders" in ins.first_message.lower() and "ord_0019" not in ins.first_message
    assert "ord_0019" in ins.goal  # the simulator knows it, and gives it when asked

    policy = write_instructions(drafts["policy"], shop, random.Random(0))
    assert (
        "cancel my order ord_0003" in policy.first_message.lower()
    )  # asked for plainly: the user does not know the rule
    assert "cannot" not in policy.first_message and "policy" not in policy.first_message.lower()

    # without the builder's `attempt`, the forbidden call is rebuilt from the rule's tool and the user's facts
    bare = TaskDraft(
        "shop",
        "policy",
        drafts["policy"].calls,
        user_facts={"order number": "ord_0003"},
        forbidden=["cancel_order"],
        policy_rule={"tool": "cancel_order", "column": "status", "allowed": ["pending"], "text": "..."},
    )
    assert write_instructions(bare, shop, random.Random(0)).goal == "I want to cancel my order ord_0003."


def test_same_seed_same_instructions_and_seeds_vary_the_wording(drafts, shop, store):
    for name, draft in drafts.items():
        spec = spec_of(name, shop, store)
        assert write_instructions(draft, spec, random.Random(5)) == write_instructions(
            draft, spec, random.Random(5)
        )
    draft = drafts["status"]
    outs = [write_instructions(draft, shop, random.Random(seed)) for seed in range(200)]
    assert len({o.first_message for o in outs}) >= 15
    assert len({o.persona for o in outs}) >= 3
    styles = [o.style for o in outs]
    assert styles.count("plain") > 120 and styles.count("terse") >= 5 and styles.count("vague") >= 5
    for o in outs:
        if o.style == "terse":
            assert not re.search(r"\b(hi|hello|thanks|thank you|please)\b", o.first_message, re.I), (
                o.first_message
            )


def test_bad_drafts_fail_with_a_clear_error(shop):
    with pytest.raises(ValueError, match="kind must be one of"):
        write_instructions(TaskDraft("shop", "chat", []), shop, random.Random(0))
    call = GoldCall("refund_everything", {}, {})
    with pytest.raises(ValueError, match="names tool 'refund_everything', which environment 'shop' lacks"):
        write_instructions(TaskDraft("shop", "write", [call]), shop, random.Random(0))


def test_mentions_matches_values_as_written():
    assert mentions("a unit price of 19.50", 19.5) and mentions("costs 120", 120.0)
    assert not mentions("order ord_0007", 7) and not mentions("ord_00071", "ord_0007")
    assert mentions("mark it as in transit", "in_transit") and mentions(
        "pending or paid", ["pending", "paid"]
    )
    assert tool_names_in("please cancel_order now", ["cancel_order", "find"]) == ["cancel_order"]
    assert tool_names_in("find out the status", ["find"]) == []  # a plain word is ordinary language


# ------------------------------------------------------------------------------------------ the LLM rewrite


@pytest.fixture
def fake():
    server = start_llm_fake()
    try:
        yield server
    finally:
        server.stop()


def rewrite(fake, instructions, draft, *replies):
    fake.script(*replies)
    config = LLMConfig(base_url=fake.url, model="fake-model", retry_backoff=0.01, max_retries=0, timeout=5.0)

    async def go():
        async with LLMClient(config) as client:
            return await rewrite_instructions(instructions, draft, client, "rewriter-model")

    return asyncio.run(go())


def answer(goal, message):
    return Reply(body=completion(json.dumps({"goal": goal, "first_message": message})))


@pytest.fixture
def update_task(drafts, shop):
    """The email change: two known facts (customer id, new email address)."""
    draft = drafts["update"]
    return draft, write_instructions(draft, shop, random.Random(0))


def test_a_good_rewrite_is_accepted(fake, update_task):
    draft, ins = update_task
    goal = "I'd like my account's email switched to new.me@example.com."
    message = (
        "hey, I changed jobs - can you update the email on my account to new.me@example.com? I'm cus_0003"
    )
    out, reason = rewrite(fake, ins, draft, answer(goal, message))
    assert reason is None
    assert (out.goal, out.first_message) == (goal, message)
    assert (out.persona, out.known_facts, out.done_when, out.style) == (
        ins.persona,
        ins.known_facts,
        ins.done_when,
        ins.style,
    )
    body = fake.requests[0]["body"]
    assert body["model"] == "rewriter-model"
    prompt = body["messages"][0]["content"]
    assert "customer id: cus_0003" in prompt and "new email address: new.me@example.com" in prompt
    assert "update_customer_email" in prompt  # named as a name never to use


def test_a_rewrite_that_drops_a_fact_is_rejected(fake, update_task):
    draft, ins = update_task
    message = "Hi, please update the email on my account to new.me@example.com."  # no customer id
    out, reason = rewrite(fake, ins, draft, answer("I want a new email.", message))
    assert out is ins and reason == "rewrite dropped fact 'customer id'"


def test_a_rewrite_that_leaks_a_hidden_fact_is_rejected(fake, drafts, shop):
    draft = drafts["missing_info"]
    ins = write_instructions(draft, shop, random.Random(0))
    leaky = "Hi, can you cancel my order ord_0019 please?"
    out, reason = rewrite(fake, ins, draft, answer("I want to cancel my order ord_0019.", leaky))
    assert out is ins and reason == "rewrite leaks hidden fact 'order number'"
    # the same rewrite without the value is fine: the user gives it when asked
    out, reason = rewrite(
        fake,
        ins,
        draft,
        answer("I want to cancel my order ord_0019.", "Hi, can you cancel an order of mine?"),
    )
    assert reason is None and out.first_message == "Hi, can you cancel an order of mine?"


def test_rewrites_that_lose_the_action_name_a_tool_or_are_not_json_are_rejected(fake, drafts, shop):
    draft = drafts["status"]
    ins = write_instructions(draft, shop, random.Random(0))
    cases = [
        (
            answer("I want ord_0012 looked at.", "Can you look at my order ord_0012?"),
            "rewrite dropped the action 'cancel'",
        ),
        (
            answer("I want to cancel ord_0012.", "Please run cancel_order on ord_0012."),
            "rewrite names tool 'cancel_order'",
        ),
        (
            answer("I want to cancel ord_0012.", "Cancel order_id ord_0012."),
            "rewrite names a column 'order_id'",
        ),
        (Reply(body=completion("Sure! Here is a friendlier version: cancel my order ord_0012")), None),
        (
            answer("I want to cancel it.", "Cancel my order ord_0012."),
            "rewrite dropped fact 'order number' from the goal",
        ),
    ]
    for reply, why in cases:
        out, reason = rewrite(fake, ins, draft, reply)
        assert out is ins
        assert reason == (why or "rewrite is not a JSON object with 'goal' and 'first_message'")
    out, reason = rewrite(fake, ins, draft, Reply(500, {"error": "overloaded"}))
    assert out is ins and reason.startswith("rewrite failed: chat completion failed") and "HTTP 500" in reason
    # a fenced JSON answer is read
    fenced = (
        "```json\n"
        + json.dumps(
            {
                "goal": "I want my order ord_0012 cancelled.",
                "first_message": "Please cancel ord_0012, my order.",
            }
        )
        + "\n```"
    )
    out, reason = rewrite(fake, ins, draft, Reply(body=completion(fenced)))
    assert reason is None and out.first_message == "Please cancel ord_0012, my order."


def test_an_implicit_reference_is_accepted_only_where_the_draft_shows_it_holds(drafts, store):
    """The user knows the order id, but an earlier gold lookup shows it is their newest pending order: a
    rewrite may say "my latest pending order" as long as it keeps what that lookup was asked with."""
    pending = GoldCall("list_my_orders", {"status": "pending"}, {"status": "user"})
    pay = GoldCall("pay_order", {"order_id": "ord_0005"}, {"order_id": "user"}, write=True)
    draft = draft_of(store, STORE, "write", [pending, pay])
    ins = write_instructions(draft, store, random.Random(0))
    assert "ord_0005" in ins.first_message and "pending" in ins.first_message
    implicit = replace_message(ins, "Could you pay my latest pending order?")
    assert check_rewrite(implicit, ins, draft) is None
    wrong = replace_message(ins, "Could you pay my oldest pending order?")
    assert check_rewrite(wrong, ins, draft) == "rewrite dropped fact 'order number'"
    lost_filter = replace_message(ins, "Could you pay my latest order?")  # latest of all: not the same order
    assert check_rewrite(lost_filter, ins, draft) == "rewrite dropped fact 'order status'"
    # where no lookup shows it, the id must stay
    alone = draft_of(
        store,
        STORE,
        "write",
        [GoldCall("pay_order", {"order_id": "ord_0005"}, {"order_id": "user"}, write=True)],
    )
    ins_alone = write_instructions(alone, store, random.Random(0))
    assert check_rewrite(replace_message(ins_alone, "Could you pay my latest order?"), ins_alone, alone) == (
        "rewrite dropped fact 'order number'"
    )


def replace_message(ins: Instructions, message: str) -> Instructions:
    return Instructions(
        ins.persona, ins.goal, ins.known_facts, ins.hidden_facts, ins.done_when, message, ins.style
    )


@pytest.mark.parametrize(
    ("tables", "group", "place"),
    [
        (["leads", "opportunities", "companies"], "CRM API", "a CRM"),
        # a product of its own name is the place, in the kind's role: "someone who keeps their budget in YNAB"
        (["budgets", "categories", "payees", "months"], "YNAB API", "their budget in YNAB"),
        (["budgets", "categories", "payees", "months"], "Budget API", "a budgeting app"),
        (["jobs", "applicants", "candidates"], "ATS API", "a recruiting system"),
    ],
)
def test_the_persona_fits_the_kind_of_system(tables, group, place):
    """A blind reading found 'a shop customer' running a CRM and creating taxes: the kinds of system a
    persona is drawn from include a CRM, a budgeting app, a recruiting system (and more)."""
    table = tables[0]
    pk = f"{table[:-1]}_id"
    spec = {
        "name": "domain_1_x",
        "tables": {t: {"primary_key": f"{t[:-1]}_id", "columns": {f"{t[:-1]}_id": {}}} for t in tables},
        "tools": [
            {
                "name": f"get_{table[:-1]}",
                "kind": "read",
                "parameters": {"type": "object", "properties": {pk: {"type": "string"}}},
                "operation": {"type": "get", "table": table, "key": {pk: pk}},
                "metadata": {"group": group},
            }
        ],
    }
    draft = TaskDraft(spec["name"], "read", [GoldCall(f"get_{table[:-1]}", {pk: "x_0001"}, {pk: "user"})])
    assert place in write_instructions(draft, spec, random.Random(0)).persona


def test_a_row_known_by_a_withheld_value_is_not_named_by_it_in_the_first_message(shop):
    """missing_info on a journey: the user knows their order by its date, found in their list of orders, and
    holds the date back; the first message asks for "an order" (the goal, for the simulator, says which)."""
    lookup = GoldCall("list_orders", {"customer_id": "cus_0014"}, {"customer_id": "user"})
    cancel = GoldCall(
        "cancel_order", {"order_id": "ord_0019"}, {"order_id": "call[0][1].order_id"}, write=True
    )
    calls = run(SHOP, [lookup, cancel])
    when = calls[0].result[1]["created_at"]
    assert calls[0].result[1]["order_id"] == "ord_0019" and len(calls[0].result) > 2
    facts = {"customer number": "cus_0014", "order date": when}
    draft = TaskDraft(shop["name"], "missing_info", calls, user_facts=facts, withheld=["order date"])
    for seed in range(8):
        ins = write_instructions(draft, shop, random.Random(seed))
        assert ins.hidden_facts == {"order date": when}
        assert when not in ins.first_message and when[:10] not in ins.first_message, ins.first_message
        assert "order" in ins.first_message, ins.first_message


def test_a_row_just_named_is_its_in_the_next_clause(shop):
    """ "find out the status of order ord_0003, then the email of its customer", never "... the email of the
    customer of order ord_0003" (the row said twice in one request)."""
    first = run(SHOP, [GoldCall("get_order", {"order_id": "ord_0003"}, {"order_id": "user"})])[0]
    owner = first.result["customer_id"]
    then = GoldCall("get_customer", {"customer_id": owner}, {"customer_id": "call[0].customer_id"})
    calls = run(SHOP, [GoldCall("get_order", {"order_id": "ord_0003"}, {"order_id": "user"}), then])
    facts = [calls[0].result["status"], calls[1].result["email"]]
    draft = TaskDraft(
        shop["name"], "read", calls, user_facts=named(shop, calls), answer_facts=facts, shape="linear"
    )
    for seed in range(6):
        message = write_instructions(draft, shop, random.Random(seed)).first_message
        assert message.count("ord_0003") == 1 and "its customer" in message, message


@pytest.mark.parametrize(
    ("tables", "place"),
    [
        (["warehouses", "pickuppoints", "docks", "reservations"], "a logistics platform"),
        (["feedback", "features", "votes"], "a product feedback tool"),
        (["databases", "pages", "blocks", "comments"], "a notes and documents workspace"),
        (["customers", "appointments", "resources", "servicegroups"], "an appointment booking service"),
        (["branches", "appointments", "appointmenttypes", "guests"], "an appointment booking service"),
        (["patients", "appointments", "doctors", "prescriptions"], "a medical clinic"),
        # TVmaze made "a customer of an event ticketing service" vote on an episode (a blind reader)
        (["shows", "episodes", "seasons", "votes"], "a TV guide"),
        (["events", "venues", "tickets", "performances"], "an event ticketing service"),
    ],
)
def test_persona_fits_the_kind_of_service(tables, place):
    # a warehouse API once read as a travel service ("a traveller who uses ..."), Notion as a social network;
    # a booking API for any business (OnSched) made the user "a patient of a medical clinic" cancelling "Haircut
    # with Christopher" (a blind reader): appointments alone are a booking service, a clinic has patients
    spec = {
        "name": "domain_3_some_api",
        "tables": {t: {"primary_key": "id", "columns": {"id": {}, "name": {}}} for t in tables},
        "tools": [],
    }
    assert place in intent._domain(spec)[1]


def test_a_condition_on_the_rows_state_is_said_in_more_than_one_way_and_asks_when_in_words():
    from envscale.tasks.intent import _condition

    said = {_condition("cancel it", "cancelled", "cancelled_at", random.Random(i)) for i in range(40)}
    assert len(said) >= 3  # never one stock line for every branch
    assert all("when it was cancelled" in s and "cancelled_at" not in s for s in said)
    assert "its last update" in _condition("close it", "closed", "last_update", random.Random(0))


@pytest.mark.parametrize(
    ("tables", "group", "place", "not_in"),
    [
        # projects, timesheets and invoices: Avaza made "an HR officer" (a blind reader, twice)
        (
            ["projects", "tasks", "timesheets", "bills", "expenses", "leave_types"],
            "Avaza API Documentation",
            "Avaza",
            "HR",
        ),
        (["webinars", "panelists", "sessions"], "GoToWebinar", "GoToWebinar", "ticketing"),
        (["shows", "episodes", "votes"], "Calendar API", "the Calendar service", "ticketing"),
    ],
)
def test_a_persona_of_a_kind_needs_clear_evidence_else_it_names_the_product(tables, group, place, not_in):
    """A persona drawn from one word of a world read wrong to every blind reader ("an HR officer who uses a
    company's HR system" for Avaza, "a customer of an event ticketing service" for GoToWebinar): without clear
    evidence of one kind of system the user is a user of the API's own product."""
    pk = f"{tables[0][:-1]}_id"
    spec = {
        "name": "domain_1_x",
        "tables": {t: {"primary_key": f"{t[:-1]}_id", "columns": {f"{t[:-1]}_id": {}}} for t in tables},
        "tools": [
            {
                "name": f"get_{tables[0][:-1]}",
                "kind": "read",
                "parameters": {"type": "object", "properties": {pk: {"type": "string"}}},
                "operation": {"type": "get", "table": tables[0], "key": {pk: pk}},
                "metadata": {"group": group},
            }
        ],
    }
    draft = TaskDraft(spec["name"], "read", [GoldCall(f"get_{tables[0][:-1]}", {pk: "x_0001"}, {pk: "user"})])
    for seed in range(3):
        persona = write_instructions(draft, spec, random.Random(seed)).persona
        assert place in persona and not_in not in persona and "API" not in persona, persona


def test_a_user_who_runs_the_service_is_its_staff_though_they_hold_an_account(store):
    """Blind readers: "a customer of an online shop" started the handling of an order and set the key of a till's
    tender. A signed-in user who writes rows that are not theirs (the stock of a SKU) is the shop's staff; one who
    cancels their own order stays its customer."""
    with Environment.from_yaml(STORE) as env:
        env.reset()
        rows = env.dump()
    item, order = rows["inventory"][0], next(o for o in rows["orders"] if o["status"] in ("pending", "paid"))
    stock = run(
        STORE, [GoldCall("adjust_stock", {"sku": item["sku"], "delta": 5}, {"sku": "user"}, write=True)]
    )
    staff = TaskDraft(store["name"], "write", stock, user_facts=named(store, stock))
    cancel = run(
        STORE, [GoldCall("cancel_order", {"order_id": order["order_id"]}, {"order_id": "user"}, write=True)]
    )
    mine = TaskDraft(store["name"], "write", cancel, user_facts=named(store, cancel))
    # "a customer of an online shop" deleted orders and payments: a customer cancels an order, the shop deletes it
    done = next(o for o in rows["orders"] if o["status"] == "cancelled")
    gone = run(
        STORE, [GoldCall("delete_order", {"order_id": done["order_id"]}, {"order_id": "user"}, write=True)]
    )
    deleted = TaskDraft(store["name"], "write", gone, user_facts=named(store, gone))
    for seed in range(3):
        assert "customer" not in write_instructions(staff, store, random.Random(seed)).persona
        assert write_instructions(mine, store, random.Random(seed)).persona.startswith("You are a customer")
        assert "customer" not in write_instructions(deleted, store, random.Random(seed)).persona


def test_a_row_among_a_persons_rows_is_theirs_though_the_person_is_found_at_a_place():
    """Blind readers: "cancel the appointment named "Physio session" in the customer of the location named "Head
    Office"": a row is in a project or a list, but for a person, whatever the person is found by."""
    from envscale.tasks.phrases import _within

    assert _within('of the customer of the location named "Head Office"').startswith("for the customer")
    assert _within('of the project titled "Q3"') == 'in the project titled "Q3"'
    assert _within('of the organizer named "Ann"') == 'for the organizer named "Ann"'
    # seed 91's readers: "the meeting ... in the organizer with email address ...", however the person is described
    assert _within("of the organizer with email address zmorales@example.com").startswith("for the organizer")


def test_a_delete_names_what_it_deletes_never_it(store):
    """Blind readers: "look up its task, and finally delete it" left them unsure whether the task or the project
    goes. A delete names its row."""
    key = {"order_id": "ord_0001"}  # the signed-in customer's pending order
    calls = run(
        STORE,
        [
            GoldCall("get_order", key, {"order_id": "user"}),
            GoldCall("cancel_order", key, {"order_id": "call[0].order_id"}, write=True),
            GoldCall("delete_order", key, {"order_id": "call[0].order_id"}, write=True),
        ],
    )
    draft = TaskDraft(store["name"], "write", calls, user_facts=named(store, calls[:1]))
    for seed in range(4):
        goal = write_instructions(draft, store, random.Random(seed)).goal
        assert "delete it" not in goal and "delete the order" in goal, goal


def test_a_row_keyed_by_an_email_is_named_by_its_email_address():
    """iQualify keys its users by `user_email`: "suspend user email stephen.horn19@example.com" (blind readers) is
    "the user with the email address stephen.horn19@example.com"."""
    spec = {
        "name": "learning",
        "description": "A learning platform.",
        "tables": {
            "users": {
                "primary_key": "user_email",
                "columns": {"user_email": {"type": "string"}, "status": {"type": "string", "nullable": True}},
            },
            "accounts": {"primary_key": "account_id", "columns": {"account_id": {"type": "string"}}},
        },
        "session": {"table": "accounts"},
        "tools": [
            {
                "name": "suspend_user",
                "description": "Suspend a user.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"userEmail": {"type": "string"}},
                    "required": ["userEmail"],
                },
                "operation": {
                    "type": "update",
                    "table": "users",
                    "key": {"user_email": "userEmail"},
                    "fixed": {"status": "suspended"},
                    "returns": "row",
                },
            }
        ],
    }
    email = "stephen.horn19@example.com"
    call = GoldCall("suspend_user", {"userEmail": email}, {"userEmail": "user"}, write=True)
    call.result = {"user_email": email, "status": "suspended"}
    draft = TaskDraft(
        "learning", "write", [call], user_facts={fact_name("userEmail", spec["tools"][0], spec): email}
    )
    for seed in range(4):
        message = write_instructions(draft, spec, random.Random(seed)).first_message
        assert f"user with the email address {email}" in message, message
        assert f"user email {email}" not in message, message


def test_a_yes_no_field_named_is_something_is_said_as_a_state():
    """Flat's `is_skipped`: "turn off its is skipped" (blind readers) is "mark it as not skipped"."""
    spec = {
        "name": "school",
        "description": "A school.",
        "tables": {
            "items": {
                "primary_key": "item_id",
                "columns": {
                    "item_id": {"type": "string"},
                    "is_skipped": {"type": "boolean", "nullable": True},
                },
            },
            "accounts": {"primary_key": "account_id", "columns": {"account_id": {"type": "string"}}},
        },
        "session": {"table": "accounts"},
        "tools": [
            {
                "name": "update_item",
                "description": "Update an item.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"item_id": {"type": "string"}, "is_skipped": {"type": "boolean"}},
                    "required": ["item_id", "is_skipped"],
                },
                "operation": {
                    "type": "update",
                    "table": "items",
                    "key": {"item_id": "item_id"},
                    "set": {"is_skipped": "is_skipped"},
                    "returns": "row",
                },
            }
        ],
    }
    for value, said in ((False, "as not skipped"), (True, "as skipped")):
        call = GoldCall(
            "update_item",
            {"item_id": "ite_0003", "is_skipped": value},
            {"item_id": "user", "is_skipped": "constant"},
            write=True,
        )
        call.result = {"item_id": "ite_0003", "is_skipped": value}
        facts = {fact_name(a, spec["tools"][0], spec): v for a, v in call.arguments.items()}
        draft = TaskDraft("school", "write", [call], user_facts=facts)
        message = write_instructions(draft, spec, random.Random(0)).first_message
        assert said in message and "is skipped" not in message, message


def _getter(singular: str, table: str) -> dict:
    """A get of one row of `table` by `<singular>_id`."""
    return {
        "name": f"get_{singular}",
        "description": f"Get a {singular}.",
        "kind": "read",
        "parameters": {
            "type": "object",
            "properties": {f"{singular}_id": {"type": "string"}},
            "required": [f"{singular}_id"],
        },
        "operation": {"type": "get", "table": table, "key": {f"{singular}_id": f"{singular}_id"}},
    }


def _spec_file(tmp_path, spec: dict):
    """`spec` written as YAML under `tmp_path`: (its path, the spec loaded back)."""
    import yaml

    path = tmp_path / f"{spec['name']}.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path, load_spec(path)


def test_a_persons_related_row_is_theirs(tmp_path):
    """ "look up the employee named Kevin Krueger, look up its department" (a blind reader): a person's department
    is their department; a document's partner stays its partner."""
    spec = {
        "name": "hr",
        "description": "An HR system.",
        "spec_version": "1.1",
        "tables": {
            "departments": {
                "primary_key": "department_id",
                "columns": {"department_id": {"type": "string"}, "name": {"type": "string"}},
            },
            "employees": {
                "primary_key": "employee_id",
                "columns": {
                    "employee_id": {"type": "string"},
                    "name": {"type": "string"},
                    "department_id": {"type": "string", "references": "departments"},
                },
            },
        },
        "data": {"rows": {"departments": 4, "employees": 8}},
        "tools": [
            _getter(singular, table)
            for singular, table in (("employee", "employees"), ("department", "departments"))
        ],
    }
    path, hr = _spec_file(tmp_path, spec)
    first = run(path, [GoldCall("get_employee", {"employee_id": "emp_0003"}, {"employee_id": "user"})])[0]
    then = GoldCall(
        "get_department",
        {"department_id": first.result["department_id"]},
        {"department_id": "call[0].department_id"},
    )
    calls = run(path, [GoldCall("get_employee", {"employee_id": "emp_0003"}, {"employee_id": "user"}), then])
    facts = [calls[0].result["name"], calls[1].result["name"]]
    draft = TaskDraft(
        hr["name"], "read", calls, user_facts=named(hr, calls), answer_facts=facts, shape="linear"
    )
    for seed in range(6):
        message = write_instructions(draft, hr, random.Random(seed)).first_message
        assert "its department" not in message, message
        assert "their department" in message, message


def test_a_person_found_through_another_row_is_not_the_users_own_account(tmp_path):
    """PocketSmith: "check the email address on my account. The category id is 4" (a blind reader): the user was
    the person the task found through a category's `user_id`. Found so, the person is the category's user, and
    the request says so."""
    spec = {
        "name": "budget",
        "description": "A budgeting service.",
        "spec_version": "1.1",
        "session": {"table": "users"},
        "tables": {
            "users": {
                "primary_key": "user_id",
                "columns": {
                    "user_id": {"type": "string"},
                    "name": {"type": "string"},
                    "email": {"type": "string"},
                },
            },
            "categories": {
                "primary_key": "category_id",
                "columns": {
                    "category_id": {"type": "string"},
                    "title": {"type": "string"},
                    "user_id": {"type": "string", "references": "users"},
                },
            },
        },
        "data": {"rows": {"users": 4, "categories": 8}},
        "tools": [
            _getter(singular, table) for singular, table in (("category", "categories"), ("user", "users"))
        ],
    }
    path, budget = _spec_file(tmp_path, spec)
    first = run(path, [GoldCall("get_category", {"category_id": "cat_0004"}, {"category_id": "user"})])[0]
    then = GoldCall("get_user", {"user_id": first.result["user_id"]}, {"user_id": "call[0].user_id"})
    calls = run(path, [GoldCall("get_category", {"category_id": "cat_0004"}, {"category_id": "user"}), then])
    draft = TaskDraft(
        budget["name"],
        "read",
        calls,
        user_facts=named(budget, calls),
        answer_facts=[calls[1].result["email"]],
        shape="linear",
    )
    for seed in range(6):
        message = write_instructions(draft, budget, random.Random(seed)).first_message
        assert "my account" not in message and " my " not in message, message


def test_a_person_is_invited_by_their_email_with_a_role(tmp_path):
    """AppVeyor's `inviteUser(roleId, email)`: "add a role named "Sales Role", then invite the new role with email
    address patricia.bates@example.net" (a blind reader). The person is invited, with the role."""
    spec = {
        "name": "ci",
        "description": "A CI service.",
        "spec_version": "1.1",
        "tables": {
            "roles": {
                "primary_key": "role_id",
                "columns": {"role_id": {"type": "string"}, "name": {"type": "string"}},
            },
            "invitations": {
                "primary_key": "invitation_id",
                "columns": {
                    "invitation_id": {"type": "string"},
                    "email": {"type": "string"},
                    "role_id": {"type": "string", "references": "roles"},
                },
            },
        },
        "data": {"rows": {"roles": 3, "invitations": 3}},
        "tools": [
            {
                "name": "addRole",
                "description": "Add a role.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                    "required": ["name"],
                },
                "operation": {
                    "type": "insert",
                    "table": "roles",
                    "values": {"name": "name"},
                    "returns": "row",
                    "generate": {"role_id": "id"},
                },
            },
            {
                "name": "inviteUser",
                "description": "Invite a user.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"roleId": {"type": "string"}, "email": {"type": "string"}},
                    "required": ["roleId", "email"],
                },
                "operation": {
                    "type": "insert",
                    "table": "invitations",
                    "values": {"role_id": "roleId", "email": "email"},
                    "returns": "row",
                    "generate": {"invitation_id": "id"},
                },
            },
        ],
    }
    path, ci = _spec_file(tmp_path, spec)
    add = GoldCall("addRole", {"name": "Sales Role"}, {"name": "constant"}, write=True)
    made = run(path, [add])[0]
    invite = GoldCall(
        "inviteUser",
        {"roleId": made.result["role_id"], "email": "patricia.bates@example.net"},
        {"roleId": "call[0].role_id", "email": "constant"},
        write=True,
    )
    calls = run(path, [GoldCall("addRole", {"name": "Sales Role"}, {"name": "constant"}, write=True), invite])
    draft = TaskDraft(ci["name"], "write", calls, user_facts=named(ci, calls), shape="linear")
    for seed in range(6):
        message = write_instructions(draft, ci, random.Random(seed)).first_message
        assert "invite the new role" not in message and "invite patricia.bates@example.net" in message, (
            message
        )


@pytest.mark.parametrize(
    ("kept", "description", "asked", "state"),
    [
        ("inactive", "Delete a campaign: it is deactivated and stops serving.", "deactivate", "inactive"),
        ("cancelled", "Delete a campaign (it is cancelled).", "cancel", "cancelled"),
        ("trashed", "Delete a campaign.", "delete", "deleted"),
        ("inactive", "Delete a campaign.", "delete", "deleted"),  # kept to restore (Flat's trash): a delete
    ],
)
def test_a_soft_delete_is_asked_by_the_state_it_keeps(tmp_path, kept, description, asked, state):
    """A campaign's delete keeps the row in a state. Blind readers found "delete the campaign if it isn't
    inactive yet" (the verb and the state disagree), then "delete ... unless it is already deleted" where
    deleted meant inactive, then (seed 84) "deactivate" done by a `*Delete` tool. The request asks for the state
    the row is kept in ("deactivate the campaign") where the tool says it deactivates; a delete that says
    nothing of the state it keeps (`trashed`, or `inactive` kept to restore) is asked and confirmed as a
    delete."""
    spec = {
        "name": "ads",
        "description": "An ads service.",
        "spec_version": "1.1",
        "tables": {
            "campaigns": {
                "primary_key": "campaign_id",
                "columns": {
                    "campaign_id": {"type": "string"},
                    "name": {"type": "string"},
                    "status": {"type": "string", "enum": ["active", kept]},
                },
            }
        },
        "data": {"rows": {"campaigns": 4}},
        "tools": [
            {
                "name": "deleteCampaign",
                "description": description,
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"campaign_id": {"type": "string"}},
                    "required": ["campaign_id"],
                },
                "operation": {
                    "type": "update",
                    "table": "campaigns",
                    "key": {"campaign_id": "campaign_id"},
                    "fixed": {"status": kept},
                },
            }
        ],
    }
    path, ads = _spec_file(tmp_path, spec)
    delete = GoldCall("deleteCampaign", {"campaign_id": "cam_0002"}, {"campaign_id": "user"}, write=True)
    calls = run(path, [delete])
    draft = TaskDraft(ads["name"], "write", calls, user_facts=named(ads, calls), shape="single")
    for seed in range(4):
        ins = write_instructions(draft, ads, random.Random(seed))
        assert f"{asked} " in ins.first_message.lower(), ins.first_message
        assert state in ins.done_when, ins.done_when
        if asked != "delete":
            assert "delete" not in ins.first_message.lower() + ins.done_when, (
                ins.first_message,
                ins.done_when,
            )


def test_an_answer_a_later_read_returns_is_never_asked_of_the_lookup_before_it(tmp_path):
    """GoToMeeting: "find out the statuses of the groups and then find out the status of the meeting whose date
    is 2024-12-01 in the group named "New Hires 2025"" (blind readers): the groups were listed to find one group,
    and the meeting's status ("active") was asked of them too because a group is active as well."""

    def lister(name, table, filters=()):
        props = {f: {"type": "string"} for f in filters}
        return {
            "name": name,
            "description": f"List {table}.",
            "kind": "read",
            "parameters": {"type": "object", "properties": props, "required": list(filters)},
            "operation": {
                "type": "list",
                "table": table,
                "filters": [{"column": f, "arg": f} for f in filters],
            },
        }

    active = {"type": "string", "enum": ["active"]}
    spec = {
        "name": "meetings",
        "description": "Online meetings.",
        "spec_version": "1.1",
        "tables": {
            "groups": {
                "primary_key": "group_id",
                "columns": {
                    "group_id": {"type": "string"},
                    "group_name": {"type": "string"},
                    "status": active,
                },
            },
            "meetings": {
                "primary_key": "meeting_id",
                "columns": {
                    "meeting_id": {"type": "string"},
                    "group_id": {"type": "string", "references": "groups"},
                    "subject": {"type": "string"},
                    "status": active,
                },
            },
        },
        "data": {"rows": {"groups": 4, "meetings": 8}},
        "tools": [lister("get_groups", "groups"), lister("get_group_meetings", "meetings", ("group_id",))],
    }
    path, meetings = _spec_file(tmp_path, spec)
    groups = run(path, [GoldCall("get_groups", {}, {})])[0].result
    k = next(i for i, g in enumerate(groups) if g["group_name"])
    calls = run(
        path,
        [
            GoldCall("get_groups", {}, {}),
            GoldCall(
                "get_group_meetings",
                {"group_id": groups[k]["group_id"]},
                {"group_id": f"call[0][{k}].group_id"},
            ),
        ],
    )
    draft = TaskDraft(
        meetings["name"],
        "read",
        calls,
        user_facts={"group name": groups[k]["group_name"]},
        answer_facts=["active"],
        shape="linear",
    )
    for seed in range(6):
        message = write_instructions(draft, meetings, random.Random(seed)).first_message
        assert "statuses of the groups" not in message and "status of the groups" not in message, message


def test_a_date_named_by_what_happened_is_said_as_a_date(tmp_path):
    """Google Tasks: "update the completed of a task ... to 2024-09-07" (a blind reader). A date column named by
    what happened (`completed`) is said as its date: "the completion date"."""
    spec = {
        "name": "todo",
        "description": "Task lists.",
        "spec_version": "1.1",
        "tables": {
            "tasks": {
                "primary_key": "task_id",
                "columns": {
                    "task_id": {"type": "string"},
                    "title": {"type": "string"},
                    "completed": {"type": "string", "nullable": True},
                },
            }
        },
        "data": {"rows": {"tasks": 4}},
        "tools": [
            {
                "name": "update_task",
                "description": "Update a task.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"task_id": {"type": "string"}, "completed": {"type": "string"}},
                    "required": ["task_id", "completed"],
                },
                "operation": {
                    "type": "update",
                    "table": "tasks",
                    "key": {"task_id": "task_id"},
                    "set": {"completed": "completed"},
                },
            }
        ],
    }
    path, todo = _spec_file(tmp_path, spec)
    update = GoldCall(
        "update_task",
        {"task_id": "tas_0002", "completed": "2024-09-07"},
        {"task_id": "user", "completed": "constant"},
        write=True,
    )
    calls = run(path, [update])
    draft = TaskDraft(todo["name"], "write", calls, user_facts=named(todo, calls), shape="single")
    for seed in range(4):
        message = write_instructions(draft, todo, random.Random(seed)).first_message
        assert "completion date" in message and "the completed" not in message, message


def test_a_route_parent_without_an_id_word_says_where_the_row_is_not_a_change(tmp_path):
    """Google Tasks: `PATCH /lists/{tasklist}/tasks/{task}` leaves `tasklist` unbound, and its name has no `_id` to
    read its entity from. Blind readers found "update the completed of a task ... with the tasklist set to the list
    titled 'Books to read'": the list the task is in was said as a change. It flows from the task lists' list, so it
    names a task list, and says where the task is."""

    def param(place):
        return {"type": "string", "x-in": place}

    spec = {
        "name": "todo",
        "description": "A to-do service.",
        "spec_version": "1.1",
        "tables": {
            "tasklists": {
                "primary_key": "tasklist",
                "columns": {"tasklist": {"type": "string"}, "title": {"type": "string"}},
            },
            "tasks": {
                "primary_key": "task",
                "columns": {
                    "task": {"type": "string"},
                    "tasklist": {"type": "string", "references": "tasklists"},
                    "title": {"type": "string"},
                    "due": {"type": "string"},
                },
            },
        },
        "data": {"rows": {"tasklists": 3, "tasks": 6}},
        "tools": [
            {
                "name": "tasklists_list",
                "description": "Returns all the task lists.",
                "kind": "read",
                "parameters": {"type": "object", "properties": {}},
                "operation": {"type": "list", "table": "tasklists"},
            },
            {
                "name": "tasks_list",
                "description": "Returns the tasks of a task list.",
                "kind": "read",
                "parameters": {
                    "type": "object",
                    "properties": {"tasklist": param("path")},
                    "required": ["tasklist"],
                },
                "operation": {
                    "type": "list",
                    "table": "tasks",
                    "filters": [{"column": "tasklist", "arg": "tasklist", "op": "eq"}],
                },
            },
            {
                "name": "tasks_patch",
                "description": "Updates a task.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"tasklist": param("path"), "task": param("path"), "due": param("body")},
                    "required": ["tasklist", "task"],
                },
                "operation": {
                    "type": "update",
                    "table": "tasks",
                    "key": {"task": "task"},
                    "set": {"due": "due"},
                },
            },
        ],
    }
    path, todo = _spec_file(tmp_path, spec)
    with Environment.from_yaml(path) as env:
        env.reset()
        lists = env.step("tasklists_list", {})["result"]
        tasks = env.step("tasks_list", {"tasklist": lists[0]["tasklist"]})["result"]
    assert tasks, "the first list holds tasks"
    calls = [
        GoldCall("tasklists_list", {}, {}),
        GoldCall("tasks_list", {"tasklist": lists[0]["tasklist"]}, {"tasklist": "call[0][0].tasklist"}),
        GoldCall(
            "tasks_patch",
            {"tasklist": lists[0]["tasklist"], "task": tasks[0]["task"], "due": "2026-04-11"},
            {"tasklist": "call[0][0].tasklist", "task": "call[1][0].task", "due": "user"},
            write=True,
        ),
    ]
    calls = run(path, calls)
    draft = TaskDraft(todo["name"], "write", calls, user_facts=named(todo, calls), shape="linear")
    for seed in range(4):
        goal = write_instructions(draft, todo, random.Random(seed)).goal
        assert "set to the" not in goal and "as its" not in goal, goal
        assert "2026-04-11" in goal, goal


def test_a_path_argument_carried_from_the_rows_own_field_is_not_said(tmp_path):
    """Hetras: `PUT /bookings/{confirmationId}/reservations/{reservationNumber}` leaves `confirmationId` unbound; the
    gold carries it from the reservation read before. Blind readers found "turn off its authorization, with the
    confirmation id set to its booking": where the row is comes with the row, and is no change."""
    spec = {
        "name": "hotel",
        "description": "A hotel booking service.",
        "spec_version": "1.1",
        "tables": {
            "reservations": {
                "primary_key": "reservation_number",
                "columns": {
                    "reservation_number": {"type": "integer"},
                    "confirmation_id": {"type": "string"},
                    "payment_token": {"type": "string"},
                },
            }
        },
        "data": {"rows": {"reservations": 4}},
        "tools": [
            {
                "name": "get_reservation",
                "description": "Returns a reservation.",
                "kind": "read",
                "parameters": {
                    "type": "object",
                    "properties": {"reservationNumber": {"type": "integer", "x-in": "path"}},
                    "required": ["reservationNumber"],
                },
                "operation": {
                    "type": "get",
                    "table": "reservations",
                    "key": {"reservation_number": "reservationNumber"},
                },
            },
            {
                "name": "set_payment_token",
                "description": "Sets the payment token of a reservation.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "confirmationId": {"type": "string", "x-in": "path"},
                        "reservationNumber": {"type": "integer", "x-in": "path"},
                        "payment_token": {"type": "string", "x-in": "body"},
                    },
                    "required": ["confirmationId", "reservationNumber", "payment_token"],
                },
                "operation": {
                    "type": "update",
                    "table": "reservations",
                    "key": {"reservation_number": "reservationNumber"},
                    "set": {"payment_token": "payment_token"},
                },
            },
        ],
    }
    path, hotel = _spec_file(tmp_path, spec)
    with Environment.from_yaml(path) as env:
        env.reset()
        row = env.step("get_reservation", {"reservationNumber": 2})["result"]
    calls = [
        GoldCall("get_reservation", {"reservationNumber": 2}, {"reservationNumber": "user"}),
        GoldCall(
            "set_payment_token",
            {"confirmationId": row["confirmation_id"], "reservationNumber": 2, "payment_token": "tok-7Qx2"},
            {
                "confirmationId": "call[0].confirmation_id",
                "reservationNumber": "call[0].reservation_number",
                "payment_token": "user",
            },
            write=True,
        ),
    ]
    calls = run(path, calls)
    draft = TaskDraft(hotel["name"], "write", calls, user_facts=named(hotel, calls), shape="linear")
    for seed in range(4):
        goal = write_instructions(draft, hotel, random.Random(seed)).goal
        assert "confirmation" not in goal and "tok-7Qx2" in goal, goal


def test_a_list_read_only_to_find_a_row_is_no_request_of_its_own(tmp_path):
    """GoToMeeting: "list the groups, find out the status of the organizer ... in the group named "Night Shift", and
    finally delete the organizer", confirmed as "told you the groups" (blind readers: padding, a checklist). The
    groups were listed to find one group: that is a lookup, not something the user asks to be told."""
    text = {"type": "string"}
    status = {"type": "string", "enum": ["active", "suspended"]}
    spec = {
        "name": "meetings",
        "description": "A meeting service.",
        "spec_version": "1.1",
        "tables": {
            "groups": {
                "primary_key": "group_id",
                "columns": {"group_id": {"type": "integer"}, "group_name": text, "status": status},
            },
            "organizers": {
                "primary_key": "organizer_id",
                "columns": {
                    "organizer_id": {"type": "integer"},
                    "email": text,
                    "group_id": {"type": "integer", "references": "groups"},
                    "status": status,
                },
            },
        },
        "data": {"rows": {"groups": 3, "organizers": 9}},
        "tools": [
            {
                "name": "get_groups",
                "description": "Returns the groups.",
                "kind": "read",
                "parameters": {"type": "object", "properties": {}},
                "operation": {"type": "list", "table": "groups"},
            },
            {
                "name": "get_group_organizers",
                "description": "Returns the organizers of a group.",
                "kind": "read",
                "parameters": {
                    "type": "object",
                    "properties": {"groupKey": {"type": "integer", "x-in": "path"}},
                    "required": ["groupKey"],
                },
                "operation": {
                    "type": "list",
                    "table": "organizers",
                    "filters": [{"column": "group_id", "arg": "groupKey", "op": "eq"}],
                },
            },
            {
                "name": "delete_organizer",
                "description": "Deletes an organizer.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"organizerKey": {"type": "integer", "x-in": "path"}},
                    "required": ["organizerKey"],
                },
                "operation": {
                    "type": "delete",
                    "table": "organizers",
                    "key": {"organizer_id": "organizerKey"},
                },
            },
        ],
    }
    path, meetings = _spec_file(tmp_path, spec)
    with Environment.from_yaml(path) as env:
        env.reset()
        group = env.step("get_groups", {})["result"][0]
        organizer = env.step("get_group_organizers", {"groupKey": group["group_id"]})["result"][0]
    calls = [
        GoldCall("get_groups", {}, {}),
        GoldCall(
            "get_group_organizers", {"groupKey": group["group_id"]}, {"groupKey": "call[0][0].group_id"}
        ),
        GoldCall(
            "delete_organizer",
            {"organizerKey": organizer["organizer_id"]},
            {"organizerKey": "call[1][0].organizer_id"},
            write=True,
        ),
    ]
    calls = run(path, calls)
    facts = {"group name": group["group_name"], "organizer email address": organizer["email"]}
    draft = TaskDraft(meetings["name"], "mixed", calls, user_facts=facts, answer_facts=[organizer["status"]])
    for seed in range(3):
        ins = write_instructions(draft, meetings, random.Random(seed))
        assert "list the groups" not in ins.goal and "the groups and" not in ins.done_when, (
            ins.goal,
            ins.done_when,
        )
        assert group["group_name"] in ins.goal and "delete" in ins.goal, ins.goal


def test_a_row_alone_in_its_parent_s_list_is_still_said_by_what_the_user_knows_of_it(shop):
    """Seed 87's readers: "look up the track of the album "Thriller" ... The track name is Yesterday." and "cancel
    the appointment of the customer ... The appointment name is Physio session.": a row its parent's list returns
    alone was said by its parent only, and its own name came after as a loose fact. What the user knows the row by
    is said with it, however many rows the list returns."""
    calls = run(
        SHOP,
        [
            GoldCall("list_orders", {"customer_id": "cus_0020"}, {"customer_id": "user"}),
            GoldCall(
                "update_order_status",
                {"order_id": "ord_0011", "status": "pending"},
                {"order_id": "call[0][0].order_id", "status": "user"},
                write=True,
            ),
        ],
    )
    assert len(calls[0].result) == 1
    facts = {"customer id": "cus_0020", "order note": "Please call before delivery.", "new status": "pending"}
    draft = TaskDraft(shop["name"], "write", calls, user_facts=facts)
    for seed in range(4):
        ins = write_instructions(draft, shop, random.Random(seed))
        assert "Please call before delivery" in ins.goal, ins.goal
        assert "order note is" not in ins.first_message.lower(), ins.first_message
    # known by nothing of its own but its parent, it is the only one there ("the event of the spot" assumed a spot
    # has one event); the user's own one row is "my order", and one a filter finds is never "the only organizer with
    # email address ..." (seed 89's readers)
    draft = TaskDraft(
        shop["name"], "write", calls, user_facts={"customer id": "cus_0020", "new status": "pending"}
    )
    for seed in range(4):
        assert "only" not in write_instructions(draft, shop, random.Random(seed)).goal
    spec = copy.deepcopy(shop)
    spec["tools"].append(
        {
            "name": "list_customers",
            "description": "List the customers, optionally by name.",
            "kind": "read",
            "parameters": {"type": "object", "properties": {"name": {"type": "string"}}},
            "operation": {
                "type": "list",
                "table": "customers",
                "filters": [{"column": "name", "arg": "name", "op": "eq"}],
            },
        }
    )
    with Environment(spec) as env:
        env.reset()
        name = next(c["name"] for c in env.dump()["customers"] if c["customer_id"] == "cus_0020")
        found = [
            GoldCall("list_customers", {"name": name}, {"name": "user"}),
            GoldCall("list_orders", {"customer_id": "cus_0020"}, {"customer_id": "call[0][0].customer_id"}),
            GoldCall(
                "update_order_status",
                {"order_id": "ord_0011", "status": "pending"},
                {"order_id": "call[1][0].order_id", "status": "user"},
                write=True,
            ),
        ]
        for call in found:
            call.result = env.step(call.tool, call.arguments)["result"]
    draft = TaskDraft(
        spec["name"], "write", found, user_facts={"customer name": name, "new status": "pending"}
    )
    for seed in range(4):
        goal = write_instructions(draft, spec, random.Random(seed)).goal
        assert "only order of the customer named" in goal, goal


def test_a_row_the_clause_before_named_is_it_in_what_a_new_row_goes_to(shop):
    """Seed 87's readers: "look up the spot titled "Rooftop garden in Honolulu", change ... the title to Newton Park
    playground, and finally upload an attachment to the spot titled "Rooftop garden in Honolulu"": the row just
    renamed was named again by its old title. A row the clause before named is "it" where a new row goes to it."""
    key = {"order_id": "ord_0011"}
    item = {"product_id": "pro_0001", "quantity": 2, "unit_price": 3.5}
    calls = run(
        SHOP,
        [
            GoldCall("get_order", key, {"order_id": "user"}),
            GoldCall(
                "update_order_status",
                {**key, "status": "pending"},
                {"order_id": "call[0].order_id", "status": "user"},
                write=True,
            ),
            GoldCall(
                "add_order_item",
                {**key, **item},
                {"order_id": "call[0].order_id", **dict.fromkeys(item, "user")},
                write=True,
            ),
        ],
    )
    draft = TaskDraft(shop["name"], "write", calls, user_facts=named(shop, calls))
    for seed in range(4):
        goal = write_instructions(draft, shop, random.Random(seed)).goal
        assert goal.count("ord_0011") == 1 and "to it" in goal, goal


def _with_rename(shop, tmp_path):
    """The shop with a `rename_product` tool, and the YAML file that holds it (for `run`)."""
    import yaml

    spec = copy.deepcopy(shop)
    spec["tools"].append(
        {
            "name": "rename_product",
            "description": "Rename a product.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"product_id": {"type": "string"}, "name": {"type": "string"}},
                "required": ["product_id", "name"],
            },
            "operation": {
                "type": "update",
                "table": "products",
                "key": {"product_id": "product_id"},
                "set": {"name": "name"},
            },
        }
    )
    path = tmp_path / "shop.yaml"
    path.write_text(yaml.safe_dump(spec))
    return spec, path


def test_a_row_renamed_earlier_in_a_request_is_that_row_and_never_its_old_name(shop, tmp_path):
    """Seed 94's readers: "look up the role named "Lyon Role", set its name to Lyon Role (old), and finally invite
    jmartin@example.com with the role named "Lyon Role"", a name the role no longer has ("the request contradicts
    itself"). A row an earlier clause renamed is "that role" where a later call references it."""
    spec, path = _with_rename(shop, tmp_path)
    with Environment.from_yaml(path) as env:
        env.reset()
        product = env.step("get_product", {"product_id": "pro_0003"})["result"]
    item = {"quantity": 2, "unit_price": 3.5}
    calls = run(
        path,
        [
            GoldCall("list_products", {"query": product["name"]}, {"query": "user"}),
            GoldCall(
                "rename_product",
                {"product_id": "pro_0003", "name": f"{product['name']} (old)"},
                {"product_id": "call[0][0].product_id", "name": "user"},
                write=True,
            ),
            GoldCall(
                "update_order_status",
                {"order_id": "ord_0011", "status": "pending"},
                {"order_id": "user", "status": "user"},
                write=True,
            ),
            GoldCall(
                "add_order_item",
                {"order_id": "ord_0011", "product_id": "pro_0003", **item},
                {"order_id": "user", "product_id": "call[0][0].product_id", **dict.fromkeys(item, "user")},
                write=True,
            ),
        ],
    )
    draft = TaskDraft(spec["name"], "write", calls, user_facts=named(spec, calls))
    for seed in range(4):
        goal = write_instructions(draft, spec, random.Random(seed)).goal
        assert "that product" in goal and goal.count(f'"{product["name"]}"') == 1, goal


def test_a_row_the_user_holds_back_what_they_know_of_is_never_looked_up_in_words(shop, tmp_path):
    """Seed 94's readers: "Look up a timesheet and delete that timesheet." as a first message ("not how anyone
    starts"). Where the user withholds what they know of the row, the request says the act alone; the agent asks."""
    spec, path = _with_rename(shop, tmp_path)
    calls = run(
        path,
        [
            GoldCall("list_products", {"query": "Kestrel Bamboo Desk Chair"}, {"query": "user"}),
            GoldCall(
                "rename_product",
                {"product_id": "pro_0003", "name": "Kestrel Chair"},
                {"product_id": "call[0][0].product_id", "name": "user"},
                write=True,
            ),
        ],
    )
    facts = named(spec, calls)
    withheld = [name for name, value in facts.items() if value == "Kestrel Bamboo Desk Chair"]
    draft = TaskDraft(spec["name"], "missing_info", calls, user_facts=facts, withheld=withheld)
    said = [write_instructions(draft, spec, random.Random(seed)).first_message for seed in range(10)]
    assert not any("look up" in m.lower() for m in said), said
    assert all("Kestrel Chair" in m and "Bamboo" not in m for m in said), said


def test_a_row_known_by_a_value_two_of_its_columns_hold_is_said_by_the_column_the_user_knows(shop):
    """Avaza's projects hold one day as `date` and `start_date`; the user knew the project's start date, and seed
    87's readers got "the project whose date is 2025-06-05". The value is said by the column the fact names."""
    calls = run(
        SHOP,
        [
            GoldCall("list_orders", {"customer_id": "cus_0020"}, {"customer_id": "user"}),
            GoldCall(
                "update_order_status",
                {"order_id": "ord_0011", "status": "pending"},
                {"order_id": "call[0][0].order_id", "status": "user"},
                write=True,
            ),
        ],
    )
    calls[0].result[0] = {
        **calls[0].result[0],
        "date": "2024-06-26",
        "placed_date": "2024-06-26",
        "customer_name": "Ann Lee",  # another thing's name the row holds is never said of it (seed 89)
    }
    facts = {
        "customer id": "cus_0020",
        "customer name": "Ann Lee",
        "order placed date": "2024-06-26",
        "new status": "pending",
    }
    draft = TaskDraft(shop["name"], "write", calls, user_facts=facts)
    for seed in range(4):
        goal = write_instructions(draft, shop, random.Random(seed)).goal
        assert "placed date is 2024-06-26" in goal and "customer name is" not in goal, goal


def test_a_search_by_words_is_said_as_a_person_says_it(shop):
    """Seed 87's readers: "the user whose full name contains 'Hannah Bailey'" is a search parameter's phrasing. A
    person's full name searched for is the person "named" so; other words are "with ... in its note"."""
    from envscale.tasks.clauses import Clauses
    from envscale.tasks.phrases import NP

    call = GoldCall("list_orders", {"customer_id": "cus_0020"}, {"customer_id": "user"})
    said = Clauses(TaskDraft("shop", "read", [call]), shop, random.Random(0))
    step = said.steps[0]
    person, words = NP("user", "the"), NP("order", "the")
    said.filter_phrase(person, step, "full_name", "contains", "Hannah Bailey")
    said.filter_phrase(words, step, "note", "contains", "gift wrapping")
    assert person.render() == 'the user named "Hannah Bailey"', person.render()
    assert words.render() == 'the order with "gift wrapping" in its note', words.render()


def test_a_state_in_capitals_is_said_in_words():
    """Seed 88's readers: "mark it as SUBMITTED", "the ARCHIVED group" is enum-speak. A state is said in lower case;
    a code in capitals (a currency, an HTTP method) is kept as written."""
    from envscale.tasks.wording import format_value

    assert format_value("SUBMITTED", enum=True) == "submitted"
    assert format_value("PENDING_APPROVAL", enum=True) == "pending approval"
    assert format_value("USD", enum=True) == "USD" and format_value("POST", enum=True) == "POST"
    assert format_value("DELETE", enum=True) == "DELETE"
    assert format_value("SUBMITTED") == "SUBMITTED"  # a value the user types stays as it is


def test_irregular_verbs_are_said_right():
    """Seed 88's readers: "you leaved the group". An irregular verb's participle is its own."""
    from envscale.tasks.wording import participle

    assert [participle(v) for v in ("leave", "hide", "freeze", "cancel", "archive", "stop")] == [
        "left",
        "hidden",
        "frozen",
        "cancelled",
        "archived",
        "stopped",
    ]


def test_a_row_renamed_is_it_when_the_next_step_acts_on_it():
    """Seed 88's readers: "look up the group whose subject is "Backup Group", update its subject to Alumni 2024, and
    finally leave the group whose subject is "Backup Group"": the group was named by the subject it had just lost.
    The row the clause before named is "it" (leave it), and "you left" is said so, never "you leaved"."""
    spec = {
        "name": "chat",
        "description": "A messaging service's groups.",
        "tables": {
            "groups": {
                "primary_key": "group_id",
                "columns": {"group_id": {"type": "string"}, "subject": {"type": "string", "nullable": True}},
            },
            "leaves": {
                "primary_key": "leave_id",
                "columns": {
                    "leave_id": {"type": "string"},
                    "group_id": {"type": "string", "references": "groups", "nullable": True},
                },
            },
        },
        "data": {"seed": 0, "rows": {"groups": 5, "leaves": 2}},
        "tools": [
            {
                "name": "UpdateGroupInfo",
                "description": "Update a group's subject.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"group_id": {"type": "string"}, "subject": {"type": "string"}},
                    "required": ["group_id", "subject"],
                },
                "operation": {
                    "type": "update",
                    "table": "groups",
                    "key": {"group_id": "group_id"},
                    "set": {"subject": "subject"},
                    "returns": "row",
                },
            },
            {
                "name": "LeaveGroup",
                "description": "Leave a group.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"group_id": {"type": "string"}},
                    "required": ["group_id"],
                },
                "operation": {
                    "type": "insert",
                    "table": "leaves",
                    "values": {"group_id": "group_id"},
                    "generate": {"leave_id": "id"},
                    "returns": "row",
                },
            },
        ],
    }
    with Environment(spec) as env:
        env.reset()
        group = env.dump()["groups"][0]
        calls = [
            GoldCall(
                "UpdateGroupInfo",
                {"group_id": group["group_id"], "subject": "Alumni 2024"},
                {"group_id": "user", "subject": "user"},
                write=True,
            ),
            GoldCall(
                "LeaveGroup", {"group_id": group["group_id"]}, {"group_id": "call[0].group_id"}, write=True
            ),
        ]
        for call in calls:
            call.result = env.step(call.tool, call.arguments)["result"]
    facts = {"group": group["group_id"], "new subject": "Alumni 2024"}
    draft = TaskDraft("chat", "write", calls, user_facts=facts)
    for seed in range(4):
        ins = write_instructions(draft, spec, random.Random(seed))
        assert ins.goal.count(group["group_id"]) == 1 and "leave it" in ins.goal, ins.goal
        assert "leaved" not in ins.done_when, ins.done_when


def test_a_time_zone_run_into_a_field_s_name_is_not_said():
    """Seed 88's readers: "its confirmed date utc" is a field name in speech. A person asks for the confirmed date."""
    from envscale.tasks.wording import readable_words

    assert readable_words("confirmed_date_utc") == "confirmed date"
    assert readable_words("CanceledDateUtc") == "canceled date"
    assert readable_words("utc") == "utc"
    # seed 93's readers: "the date start" of an Avaza task; `date_<word>` is the word's date
    assert readable_words("date_start") == "start date" and readable_words("DateDue") == "due date"
    assert (
        readable_words("date_completed") == "completion date"
        and readable_words("date_of_birth") == "date of birth"
    )
    # seed 89's readers: "turn off its number of authorization required" for `no_authorization_required`
    assert readable_words("no_authorization_required") == "no authorization required"
    assert readable_words("no_of_guests") == "number of guests"


def test_a_persona_names_the_api_s_own_product_and_no_bare_word():
    """Seed 88's readers: VictorOps (an incident tool whose users have contacts and emails) read as "a user of a
    messaging service"; eBay's Account API as "someone who works with Account". A product's own name is the place
    where the API has one; a title of one common word is "the Account service"."""
    from envscale.tasks.intent import _product_place

    key = {"type": "string"}
    spec = {
        "name": "oncall",
        "description": "On-call contacts.",
        "tables": {
            t: {"primary_key": "id", "columns": {"id": key, "name": {"type": "string", "nullable": True}}}
            for t in ("users", "contacts", "emails", "messages")
        },
        "data": {"seed": 0, "rows": {"users": 3, "contacts": 3, "emails": 3, "messages": 3}},
        "tools": [
            {
                "name": "get_contact",
                "description": "Get a contact.",
                "kind": "read",
                "parameters": {"type": "object", "properties": {"id": key}, "required": ["id"]},
                "operation": {"type": "get", "table": "contacts", "key": {"id": "id"}},
                "metadata": {"group": "VictorOps"},
            }
        ],
    }
    with Environment(spec) as env:
        env.reset()
        contact = env.dump()["contacts"][0]["id"]
        call = GoldCall("get_contact", {"id": contact}, {"id": "user"})
        call.result = env.step("get_contact", {"id": contact})["result"]
    draft = TaskDraft("oncall", "read", [call], user_facts={"contact": contact})
    for seed in range(4):
        persona = write_instructions(draft, spec, random.Random(seed)).persona
        assert "VictorOps" in persona and "messaging service" not in persona, persona
    spec["tools"][0]["metadata"] = {"group": "Account API"}
    assert _product_place(spec) == "the Account service"


def test_whoever_changes_rows_of_a_person_they_looked_up_is_staff():
    """Seed 88's readers: "a listener" finding the user Charles Arnold and editing his playlist. People use a music
    app for themselves, but changing the rows of someone the task looks up is the service's staff's work."""
    key = {"type": "string"}
    spec = {
        "name": "music",
        "description": "A music streaming app.",
        "tables": {
            "users": {"primary_key": "user_id", "columns": {"user_id": key, "name": {"type": "string"}}},
            "playlists": {
                "primary_key": "playlist_id",
                "columns": {
                    "playlist_id": key,
                    "user_id": {"type": "string", "references": "users"},
                    "name": {"type": "string"},
                    "description": {"type": "string", "nullable": True},
                },
            },
            "tracks": {"primary_key": "track_id", "columns": {"track_id": key, "name": {"type": "string"}}},
        },
        "data": {"seed": 0, "rows": {"users": 4, "playlists": 6, "tracks": 4}},
        "tools": [
            {
                "name": "find_users",
                "description": "Find users by name.",
                "kind": "read",
                "parameters": {"type": "object", "properties": {"name": key}, "required": ["name"]},
                "operation": {
                    "type": "list",
                    "table": "users",
                    "filters": [{"column": "name", "arg": "name", "op": "eq"}],
                },
            },
            {
                "name": "user_playlists",
                "description": "A user's playlists.",
                "kind": "read",
                "parameters": {"type": "object", "properties": {"user_id": key}, "required": ["user_id"]},
                "operation": {
                    "type": "list",
                    "table": "playlists",
                    "filters": [{"column": "user_id", "arg": "user_id", "op": "eq"}],
                },
            },
            {
                "name": "change_playlist",
                "description": "Change a playlist's description.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"playlist_id": key, "description": key},
                    "required": ["playlist_id", "description"],
                },
                "operation": {
                    "type": "update",
                    "table": "playlists",
                    "key": {"playlist_id": "playlist_id"},
                    "set": {"description": "description"},
                    "returns": "row",
                },
            },
        ],
    }
    with Environment(spec) as env:
        env.reset()
        state = env.dump()
        playlist = state["playlists"][0]
        user = next(u for u in state["users"] if u["user_id"] == playlist["user_id"])
        listed = env.step("user_playlists", {"user_id": user["user_id"]})["result"]
        j = next(i for i, p in enumerate(listed) if p["playlist_id"] == playlist["playlist_id"])
        calls = [
            GoldCall("find_users", {"name": user["name"]}, {"name": "user"}),
            GoldCall("user_playlists", {"user_id": user["user_id"]}, {"user_id": "call[0][0].user_id"}),
            GoldCall(
                "change_playlist",
                {"playlist_id": playlist["playlist_id"], "description": "Songs for the road."},
                {"playlist_id": f"call[1][{j}].playlist_id", "description": "user"},
                write=True,
            ),
        ]
        for call in calls:
            call.result = env.step(call.tool, call.arguments)["result"]
    facts = {
        "user name": user["name"],
        "playlist name": playlist["name"],
        "new description": "Songs for the road.",
    }
    draft = TaskDraft("music", "write", calls, user_facts=facts)
    for seed in range(4):
        persona = write_instructions(draft, spec, random.Random(seed)).persona
        assert "listener" not in persona and "curator" in persona, persona


S = {"type": "string"}


def _one_act_goals(name, tables, rows, tool, table, fact):
    """The goals (four seeds) of a one-call task of `tool` on the first row of `table`, the user knowing its key
    as `fact`: a world of `tables` with `rows` rows each and that one tool."""
    spec = {"name": name, "description": f"{name}'s {table}.", "tables": tables, "tools": [tool]}
    spec["data"] = {"seed": 0, "rows": dict.fromkeys(tables, rows)}
    with Environment(spec) as env:
        env.reset()
        row = env.dump()[table][0]
        (arg,) = tool["parameters"]["required"]
        key = row[tables[table]["primary_key"]]
        call = GoldCall(tool["name"], {arg: key}, {arg: "user"}, write=True)
        call.result = env.step(call.tool, call.arguments)["result"]
    draft = TaskDraft(name, "write", [call], user_facts={fact: key})
    return [write_instructions(draft, spec, random.Random(seed)).goal for seed in range(4)]


def _act(name, description, arg, operation):
    params = {"type": "object", "properties": {arg: {"type": "string"}}, "required": [arg]}
    return {
        "name": name,
        "description": description,
        "kind": "write",
        "parameters": params,
        "operation": operation,
    }


def test_a_status_act_named_by_its_verb_is_said_with_that_verb():
    """Seed 91's readers: "mark the monitor named "Checkout API uptime" as running" is not how anyone uses Postman.
    A status act whose tool names a verb of action (`runAMonitor`) is asked with that verb: "run the monitor"."""
    status = {"type": "string", "enum": ["active", "running", "retired"]}
    tables = {
        "monitors": {"primary_key": "monitor_uid", "columns": {"monitor_uid": S, "name": S, "status": status}}
    }
    run = {
        "type": "update",
        "table": "monitors",
        "key": {"monitor_uid": "monitor_uid"},
        "fixed": {"status": "running"},
    }
    tool = _act("runAMonitor", "Run a monitor.", "monitor_uid", {**run, "returns": "row"})
    for goal in _one_act_goals("postman", tables, 4, tool, "monitors", "monitor"):
        assert "run " in goal and "as running" not in goal, goal


def test_an_email_resent_is_asked_as_resending_never_as_adding_an_email():
    """Seed 91's readers: iQualify's "Resend invitation email" (`post_users_by_userEmail_invite_email`) asked as "add
    an email", with no content: which email? A create whose description opens with its act is asked with it."""
    emails = {"email_id": S, "user_email": {"type": "string", "references": "users"}}
    tables = {
        "users": {"primary_key": "user_email", "columns": {"user_email": S, "first_name": S}},
        "emails": {"primary_key": "email_id", "columns": emails},
    }
    insert = {
        "type": "insert",
        "table": "emails",
        "values": {"user_email": "userEmail"},
        "generate": {"email_id": "id"},
    }
    description = "Resend invitation email\n\nRe-sends an invitation e-mail to the specified user."
    tool = _act(
        "post_users_by_userEmail_invite_email", description, "userEmail", {**insert, "returns": "row"}
    )
    for goal in _one_act_goals("iqualify", tables, 4, tool, "users", "user email"):
        assert "resend" in goal and "add an email" not in goal, goal


def test_a_due_field_is_said_as_a_due_date():
    """Seed 92's readers: "check the due of the task", "change its due days to 26" (field names read aloud)."""
    from envscale.tasks.wording import readable_words

    assert readable_words("due") == "due date" and readable_words("DueDays") == "payment terms in days"
    assert readable_words("due_date") == "due date"


def test_the_callers_own_row_beside_bank_accounts_is_my_profile():
    """PocketSmith's user beside its bank accounts: "delete an account of my account" names two things one word.
    The caller's own row is "my profile" where the world keeps accounts of its own."""
    from envscale.tasks.phrases import Phrases

    spec = load_spec("tests/fixtures/envs/store.yaml")
    draft = TaskDraft("store", "read", [GoldCall("get_my_profile", {}, {})])
    assert Phrases(draft, spec, random.Random(0)).self_np("customers").render() == "my account"
    spec["tables"]["accounts"] = {"primary_key": "account_id", "columns": {"account_id": {"type": "string"}}}
    assert Phrases(draft, spec, random.Random(0)).self_np("customers").render() == "my profile"


def test_whoever_suspends_a_user_is_staff_never_the_user():
    """Seed 92's readers: "look up my account, suspend it" (iQualify's `put_users_by_userEmail_suspend`): nobody
    suspends themselves. Suspending a user is what the service's staff do."""
    spec = load_spec(STORE)
    spec["tables"]["customers"]["columns"]["status"] = {"type": "string", "enum": ["active", "suspended"]}
    spec["tools"].append(
        _act(
            "suspend_customer",
            "Suspend a customer.",
            "customer_id",
            {
                "type": "update",
                "table": "customers",
                "key": {"customer_id": "customer_id"},
                "fixed": {"status": "suspended"},
            },
        )
    )
    with Environment(spec) as env:
        env.reset()
        me = env.session()
        call = GoldCall(
            "suspend_customer", {"customer_id": me["customer_id"]}, {"customer_id": "user"}, write=True
        )
        call.result = env.step(call.tool, call.arguments)["result"]
    draft = TaskDraft("store", "write", [call], user_facts={"customer id": me["customer_id"]})
    for seed in range(4):
        ins = write_instructions(draft, spec, random.Random(seed))
        assert "customer" not in ins.persona and "my account" not in ins.goal, (ins.persona, ins.goal)


def test_a_flag_of_no_x_required_is_asked_as_requiring_x():
    """Seed 93's final readers: "turn off its no authorization required" (two tasks). A request turns such a flag off
    by requiring the thing, and on by no longer requiring it."""
    S = {"type": "string"}
    spec = {
        "name": "hotel",
        "description": "Reservations.",
        "tables": {
            "reservations": {
                "primary_key": "reservation_number",
                "columns": {
                    "reservation_number": S,
                    "no_authorization_required": {"type": "boolean", "nullable": True},
                },
            }
        },
        "tools": [
            {
                "name": "update_reservation",
                "description": "Update a reservation.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"reservation_number": S, "no_authorization_required": {"type": "boolean"}},
                    "required": ["reservation_number", "no_authorization_required"],
                },
                "operation": {
                    "type": "update",
                    "table": "reservations",
                    "key": {"reservation_number": "reservation_number"},
                    "set": {"no_authorization_required": "no_authorization_required"},
                    "returns": "row",
                },
            }
        ],
    }
    said = {}
    for value in (False, True):
        call = GoldCall(
            "update_reservation",
            {"reservation_number": "res_0001", "no_authorization_required": value},
            {"reservation_number": "user", "no_authorization_required": "constant"},
            write=True,
        )
        draft = TaskDraft("hotel", "write", [call], user_facts={"reservation number": "res_0001"})
        said[value] = write_instructions(draft, spec, random.Random(0)).first_message
    low = {k: v.lower() for k, v in said.items()}
    assert "require authorization" in low[False] and "no authorization required" not in low[False], said
    assert "stop requiring authorization" in low[True], said


def test_an_objects_fields_are_said_as_a_person_says_them():
    """Seed 93's and 94's readers: "change the group to auto assign no", "access mode to download no, modify yes",
    "change the notes ... to from guest Brian Kelley": the JSON read out loud. A flag is on or off, a sentence is
    quoted; the request still states every value (`mentions`)."""
    from envscale.tasks.wording import format_value

    access = {"download": False, "modify": True}
    assert format_value(access) == "download off, modify on"
    assert mentions(f"set its access mode to {format_value(access)}", access)
    note = {"fromGuest": "Late check-in, please."}
    assert format_value(note) == 'from guest "Late check-in, please."'
    assert format_value({"city": "Lyon", "zip": "69001"}) == "city Lyon, ZIP code 69001"


def test_a_new_row_of_a_kind_the_tool_fixes_is_said_of_that_kind(tmp_path):
    """Seed 94's readers: "add a memory with the text ..." asked twice, once done with `archival_memory_add` and once
    with `core_memory_add`, and scored on the kind the gold chose. The kind a tool fixes is said: "an archival
    memory"."""
    import yaml

    def add(kind):
        return {
            "name": f"{kind}_memory_add",
            "description": f"Add to {kind} memory.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            },
            "operation": {
                "type": "insert",
                "table": "memories",
                "values": {"text": "text", "kind": {"value": kind}},
                "generate": {"memory_id": "id"},
            },
        }

    spec = {
        "name": "memory",
        "spec_version": "1.1",
        "tables": {
            "memories": {
                "primary_key": "memory_id",
                "columns": {
                    "memory_id": {"type": "string"},
                    "text": {"type": "string"},
                    "kind": {"type": "string", "enum": ["archival", "core"]},
                },
            }
        },
        "data": {"rows": {"memories": 5}},
        "tools": [add("archival"), add("core")],
    }
    path = tmp_path / "memory.yaml"
    path.write_text(yaml.safe_dump(spec))
    text = "Anna prefers morning meetings."
    for kind in ("archival", "core"):
        calls = run(path, [GoldCall(f"{kind}_memory_add", {"text": text}, {"text": "user"}, write=True)])
        draft = TaskDraft("memory", "write", calls, user_facts=named(spec, calls))
        goal = write_instructions(draft, spec, random.Random(0)).goal
        assert f"{kind} memory" in goal, goal


def test_a_row_only_the_service_puts_in_its_state_is_put_there_by_staff(shop):
    """Seed 94's readers: "a customer" asked to mark their own (lost) shipment as delivered, "a back-office action an
    assistant should not do on a customer's word". Delivering, shipping, approving are the service's; a customer still
    cancels their own order."""
    from envscale.tasks.intent import persona_role

    deliver = run(
        SHOP,
        [
            GoldCall(
                "update_order_status",
                {"order_id": "ord_0012", "status": "delivered"},
                {"order_id": "user", "status": "user"},
                write=True,
            )
        ],
    )
    cancel = run(SHOP, [GoldCall("cancel_order", {"order_id": "ord_0012"}, {"order_id": "user"}, write=True)])
    for seed in range(4):
        staff = write_instructions(
            TaskDraft("shop", "write", deliver, user_facts=named(shop, deliver)), shop, random.Random(seed)
        )
        mine = write_instructions(
            TaskDraft("shop", "write", cancel, user_facts=named(shop, cancel)), shop, random.Random(seed)
        )
        assert persona_role(staff.persona) == "staff" and persona_role(mine.persona) == "user", (
            staff.persona,
            mine.persona,
        )


def test_the_callers_own_scope_is_said_as_theirs(tmp_path):
    """Seed 94's readers: "delete the contact ... in account acc_0014" ("users do not normally know raw account ids").
    The account every route is scoped by, which no tool lists, is the user's own: "in my account acc_0014"."""
    import yaml

    spec = {
        "name": "sms",
        "spec_version": "1.1",
        "tables": {
            "companies": {"primary_key": "company_id", "columns": {"company_id": {"type": "string"}}},
            "contacts": {
                "primary_key": "contact_id",
                "columns": {
                    "contact_id": {"type": "string"},
                    "email": {"type": "string"},
                    "company_id": {"type": "string", "references": "companies"},
                },
            },
        },
        "data": {"rows": {"companies": 3, "contacts": 6}},
        "tools": [
            {
                "name": "list_contacts",
                "description": "The contacts of a company.",
                "kind": "read",
                "parameters": {
                    "type": "object",
                    "properties": {"companyId": {"type": "string"}},
                    "required": ["companyId"],
                },
                "operation": {
                    "type": "list",
                    "table": "contacts",
                    "filters": [{"column": "company_id", "arg": "companyId", "op": "eq"}],
                },
            }
        ],
    }
    path = tmp_path / "sms.yaml"
    path.write_text(yaml.safe_dump(spec))
    with Environment.from_yaml(path) as env:
        env.reset()
        contact = env.dump()["contacts"][0]
    from envscale.tasks.phrases import Phrases

    calls = run(
        path, [GoldCall("list_contacts", {"companyId": contact["company_id"]}, {"companyId": "user"})]
    )
    draft = TaskDraft("sms", "read", calls, user_facts=named(spec, calls))
    said = Phrases(draft, spec, random.Random(0)).value_np("companies", contact["company_id"], False).render()
    assert said == f"my company {contact['company_id']}", said


def test_a_change_to_a_row_it_references_names_the_rows_kind_never_its_key():
    """Seed 94's readers: "change its resource id to the resource named "Conference Room G"". A reference set to a
    row the request names is said by the row's kind; a key the user types stays a key."""
    from envscale.tasks.wording import change_label

    assert change_label("resource id", "res_0007", row=True) == "resource"
    assert change_label("group key", 12, row=True) == "group"
    assert change_label("resource id", "res_0007") == "resource id"
    assert change_label("completed", "2024-09-07") != "completed"
