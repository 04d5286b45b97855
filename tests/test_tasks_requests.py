"""What a task asks, as a person reads it: one request per fact, arguments that agree with what the chain
read, nothing a person would never say (placeholders, keys where a name belongs, made-up objects), and
requests worded from the tool's description where it names the entity better than the table does.

The task builder's checks (`envscale.tasks.arguments`, `asks` and `gold`) run on the hand-written shop fixture, extended with
the shapes real APIs have (a path argument bound to no column, a placeholder, a name argument); the
writer (`envscale.tasks.intent`) is checked on drafts executed in a real `Environment`.
"""

from __future__ import annotations

import copy
import random
import re

import pytest

from envscale.env import generate_state, load_spec
from envscale.tasks.arguments import tidy
from envscale.tasks.asks import filler_fact, invented_object
from envscale.tasks.build import TasksConfig
from envscale.tasks.gold import align, execute, flow_disagrees
from envscale.tasks.intent import Writer, write_instructions
from envscale.tasks.model import GoldCall, TaskDraft
from envscale.tasks.naming import entity_name, fact_name
from envscale.tasks.prepared import Env
from envscale.tasks.wording import describe, is_placeholder

SHOP = "tests/fixtures/envs/shop.yaml"


def _tool(spec, name):
    return next(t for t in spec["tools"] if t["name"] == name)


@pytest.fixture
def shop():
    """The shop fixture, plus `get_customer_order` (GET /customers/{customerId}/orders/{order_id}: the
    customer is a path argument bound to no column), a placeholder and a name argument on `create_order`."""
    spec = copy.deepcopy(load_spec(SHOP))
    spec["tools"].append(
        {
            "name": "get_customer_order",
            "description": "Get one order of a customer.",
            "kind": "read",
            "parameters": {
                "type": "object",
                "properties": {
                    "customerId": {"type": "string", "x-in": "path"},
                    "order_id": {"type": "string", "x-in": "path"},
                },
                "required": ["customerId", "order_id"],
            },
            "operation": {"type": "get", "table": "orders", "key": {"order_id": "order_id"}},
        }
    )
    create = _tool(spec, "create_order")
    create["parameters"]["properties"]["optional_param"] = {"type": "boolean"}
    create["parameters"]["properties"]["recipient_name"] = {"type": "string"}
    create["parameters"]["properties"]["gift_wrap_color"] = {"type": "string"}
    spec["tables"]["orders"]["columns"]["recipient_name"] = {"type": "string"}
    spec["tables"]["orders"]["columns"]["gift_wrap_color"] = {"type": "string"}
    create["operation"]["values"].update(recipient_name="recipient_name", gift_wrap_color="gift_wrap_color")
    return spec


@pytest.fixture
def env(shop):
    e = Env({"spec": shop}, TasksConfig())
    yield e
    e.env.close()


def _draft(e, kind, calls, **kw):
    facts = {}
    for call in calls:
        for arg, value in call.arguments.items():
            if not call.provenance.get(arg, "user").startswith("call["):
                facts[fact_name(arg, e.tools[call.tool], e.spec)] = value
    return TaskDraft(e.spec["name"], kind, calls, user_facts=facts, **kw)


def _customer_with_orders(e, n=1):
    for customer in e.rows["customers"]:
        orders = [o for o in e.rows["orders"] if o["customer_id"] == customer["customer_id"]]
        if len(orders) == n:
            return customer, orders
    pytest.skip(f"the fixture state has no customer with exactly {n} order(s)")


# ------------------------------------------------------------------------------------ data flow


def test_a_chained_call_takes_the_flowed_value_for_an_argument_that_names_a_field(env):
    """`getWebinar(webinarKey=call[0][0].webinar_key, organizerKey=1)` after the webinar's organizer was 12:
    the path argument naming the customer takes the order's own customer, with its provenance."""
    customer, orders = _customer_with_orders(env)
    other = next(c for c in env.rows["customers"] if c["customer_id"] != customer["customer_id"])
    calls = [
        GoldCall("list_orders", {"customer_id": customer["customer_id"]}, {"customer_id": "user"}),
        GoldCall(
            "get_customer_order",
            {"order_id": orders[0]["order_id"], "customerId": other["customer_id"]},  # a random, wrong value
            {"order_id": "call[0][0].order_id", "customerId": "constant"},
        ),
    ]
    draft = _draft(env, "read", calls)
    assert execute(env, draft) is None
    second = draft.calls[1]
    assert second.arguments["customerId"] == customer["customer_id"] == second.result["customer_id"]
    assert second.provenance["customerId"] == "call[0][0].customer_id"
    assert other["customer_id"] not in draft.user_facts.values()


def test_a_single_call_takes_the_addressed_rows_value_and_the_user_states_it(env):
    order = env.rows["orders"][0]
    wrong = next(c["customer_id"] for c in env.rows["customers"] if c["customer_id"] != order["customer_id"])
    call = GoldCall(
        "get_customer_order",
        {"order_id": order["order_id"], "customerId": wrong},
        {"order_id": "user", "customerId": "constant"},
    )
    draft = _draft(env, "read", [call])
    assert align(env, draft, 0, []) is None
    assert call.arguments["customerId"] == order["customer_id"] and call.provenance["customerId"] == "user"
    assert order["customer_id"] in draft.user_facts.values() and wrong not in draft.user_facts.values()


def test_a_route_parent_named_by_no_field_takes_the_parent_of_the_row_the_call_reads(shop):
    """`GET /customers/{id}/orders/{order_id}`: `id` names no field, but its route says it is the order's
    customer (`route_parent_column`), so it carries the order's `customer_id` from the list the chain read, never a
    value the user states (a blind reader found "Group id: 10" for a member of group 19)."""
    spec = copy.deepcopy(shop)
    tool = copy.deepcopy(_tool(spec, "get_customer_order"))
    tool["name"] = "get_order_of_customer"
    tool["parameters"]["properties"] = {
        "id": {"type": "string", "x-in": "path"},
        "order_id": {"type": "string"},
    }
    tool["parameters"]["required"] = ["id", "order_id"]
    tool["metadata"] = {"annotations": {"method": "GET", "path": "/customers/{id}/orders/{order_id}"}}
    spec["tools"].append(tool)
    e = Env({"spec": spec}, TasksConfig())
    try:
        customer, orders = _customer_with_orders(e)
        other = next(c for c in e.rows["customers"] if c["customer_id"] != customer["customer_id"])
        calls = [
            GoldCall("list_orders", {"customer_id": customer["customer_id"]}, {"customer_id": "user"}),
            GoldCall(
                "get_order_of_customer",
                {"order_id": orders[0]["order_id"], "id": other["customer_id"]},  # a random, wrong value
                {"order_id": "call[0][0].order_id", "id": "constant"},
            ),
        ]
        draft = _draft(e, "read", calls)
        assert execute(e, draft) is None
        second = draft.calls[1]
        assert (
            second.arguments["id"] == customer["customer_id"]
            and second.provenance["id"] == "call[0][0].customer_id"
        )
        assert other["customer_id"] not in draft.user_facts.values()
    finally:
        e.env.close()


def test_the_flow_gate_refuses_an_argument_that_disagrees_with_what_flowed(env):
    customer, orders = _customer_with_orders(env)
    listed = [o for o in env.rows["orders"] if o["customer_id"] == customer["customer_id"]]
    other = next(c for c in env.rows["customers"] if c["customer_id"] != customer["customer_id"])
    calls = [
        GoldCall("list_orders", {"customer_id": customer["customer_id"]}, {"customer_id": "user"}),
        GoldCall(
            "get_customer_order",
            {"order_id": orders[0]["order_id"], "customerId": other["customer_id"]},
            {"order_id": "call[0][0].order_id", "customerId": "constant"},
        ),
    ]
    draft = _draft(env, "read", calls)
    code, detail = flow_disagrees(env, draft, 1, [listed])
    assert code == "data_flow_broken" and "customerId" in detail and "call[0][0].customer_id" in detail
    calls[1].arguments["customerId"] = customer["customer_id"]
    assert flow_disagrees(env, draft, 1, [listed]) is None


# ------------------------------------------------------------------------------------ arguments


def test_placeholder_arguments_are_left_out_and_a_required_one_drops_the_task(env, shop):
    customer = env.rows["customers"][0]
    call = GoldCall(
        "create_order",
        {"customer_id": customer["customer_id"], "total": 12.5, "optional_param": False},
        {"customer_id": "user", "total": "constant", "optional_param": "constant"},
        write=True,
    )
    draft = _draft(env, "write", [call])
    assert tidy(env, draft, random.Random(0)) is None
    assert "optional_param" not in call.arguments and "optional param" not in draft.user_facts
    assert execute(env, draft) is None
    ins = write_instructions(draft, shop, random.Random(0))
    assert "optional" not in ins.first_message.lower() and "param" not in ins.first_message.lower()
    _tool(shop, "create_order")["parameters"]["required"].append("optional_param")
    e2 = Env({"spec": shop}, TasksConfig())
    call2 = GoldCall(
        "create_order",
        {"customer_id": customer["customer_id"], "total": 12.5, "optional_param": False},
        {"customer_id": "user", "total": "constant", "optional_param": "constant"},
        write=True,
    )
    reason = tidy(e2, _draft(e2, "write", [call2]), random.Random(0))
    e2.env.close()
    assert reason and reason[0] == "placeholder_argument"


def test_the_apis_own_address_of_a_row_is_never_a_value_the_user_sets(env, shop):
    """ "change its self link to https://www.allison.net/about" (a blind reading): the service sets its own address
    of a row; an optional one is left out, a required one drops the task."""
    customer = env.rows["customers"][0]

    def order(url):
        return GoldCall(
            "create_order",
            {"customer_id": customer["customer_id"], "total": 12.5, "self_link": url},
            {"customer_id": "user", "total": "constant", "self_link": "constant"},
            write=True,
        )

    create = _tool(shop, "create_order")
    create["parameters"]["properties"]["self_link"] = {"type": "string"}
    shop["tables"]["orders"]["columns"]["self_link"] = {"type": "string"}
    create["operation"]["values"]["self_link"] = "self_link"
    optional = Env({"spec": shop}, TasksConfig())
    call = order("https://www.allison.net/about")
    draft = _draft(optional, "write", [call])
    assert tidy(optional, draft, random.Random(0)) is None
    assert "self_link" not in call.arguments and not any("link" in f for f in draft.user_facts)
    optional.env.close()
    _tool(shop, "create_order")["parameters"]["required"].append("self_link")
    required = Env({"spec": shop}, TasksConfig())
    reason = tidy(
        required, _draft(required, "write", [order("https://www.allison.net/about")]), random.Random(0)
    )
    required.env.close()
    assert reason and reason[0] == "api_address"


def test_placeholder_names():
    assert all(map(is_placeholder, ["optional_param", "optionalParam", "arg1", "flag", "extra", "kwargs"]))
    assert not any(map(is_placeholder, ["project_name", "feature_flag_id", "options_count", "product_list"]))


def test_a_name_argument_never_holds_a_key(env):
    customer = env.rows["customers"][0]
    call = GoldCall(
        "create_order",
        {"customer_id": customer["customer_id"], "total": 3.0, "recipient_name": "cus_0008"},
        {"customer_id": "user", "total": "constant", "recipient_name": "constant"},
        write=True,
    )
    draft = _draft(env, "write", [call])
    assert tidy(env, draft, random.Random(0)) is None
    assert "recipient_name" not in call.arguments  # optional: left out
    named = GoldCall(
        "create_order",
        {"customer_id": customer["customer_id"], "total": 3.0, "recipient_name": "Maria Lopez"},
        {"customer_id": "user", "total": "constant", "recipient_name": "constant"},
        write=True,
    )
    assert tidy(env, _draft(env, "write", [named]), random.Random(0)) is None
    assert named.arguments["recipient_name"] == "Maria Lopez"


def test_a_write_states_at_most_two_values_beyond_the_rows_it_names(env):
    order = env.rows["orders"][0]
    env.tools["create_order"]["parameters"]["required"] = ["customer_id"]
    values = {"total": 3.0, "note": "Leave it at the door, please.", "gift_wrap_color": "red"}
    call = GoldCall(
        "create_order",
        {"customer_id": order["customer_id"], **values},
        {"customer_id": "user", **dict.fromkeys(values, "constant")},
        write=True,
    )
    draft = _draft(env, "write", [call])
    assert tidy(env, draft, random.Random(0)) is None
    assert "customer_id" in call.arguments and len(call.arguments) == 3  # the customer and two values
    left_out = set(values) - set(call.arguments)
    assert (
        len(left_out) == 1
        and fact_name(left_out.pop(), env.tools["create_order"], env.spec) not in draft.user_facts
    )


# ------------------------------------------------------------------------------------ filler


def test_objects_and_lists_a_person_would_not_state_are_filler(env):
    assert invented_object({"type": "object"}, {"tags": ["new", "budget"]})
    assert invented_object({"type": "object", "properties": {"city": {}}}, {"tags": ["new"]})
    assert invented_object({"type": "array", "items": {"type": "object"}}, [{}, {}])
    assert invented_object({"type": "object", "properties": {"city": {}}}, {"city": "Lyon"}) is None
    # "the links to description Set up by Jia Ramos ..., link https://... and description ..." (blind readers):
    # several objects that each hold a sentence are not dictated; order lines are
    links = {"type": "array", "items": {"type": "object", "properties": {"description": {}, "link": {}}}}
    said = [{"description": "Set up by Jia Ramos of the Design team.", "link": "https://a.io"}] * 2
    assert invented_object(links, said)
    assert invented_object(links, said[:1]) is None
    lines = {"type": "array", "items": {"type": "object", "properties": {"product": {}, "quantity": {}}}}
    assert (
        invented_object(lines, [{"product": "Desk lamp", "quantity": 2}, {"product": "Mug", "quantity": 1}])
        is None
    )
    nested = {
        "type": "object",
        "properties": {"permission": {"type": "object", "properties": {"family": {}}}},
    }
    assert invented_object(nested, {"permission": {"family": {}}})  # an empty object, one level down
    order = env.rows["orders"][0]
    for note in ({"tags": ["priority", "backend"]}, ["would"], []):
        call = GoldCall(
            "create_order",
            {"customer_id": order["customer_id"], "total": 3.0, "note": note},
            {"customer_id": "user", "total": "constant", "note": "constant"},
            write=True,
        )
        assert (filler_fact(env, _draft(env, "write", [call])) or ("",))[0] == "filler_value", note
    # "set the due date to 2024-04-20T12:31:16Z" (blind readers): no one says a moment to the second
    said = (
        ("Deliver after 2024-04-20T12:31:16Z", True, "user"),
        ("Deliver after 2024-04-20T12:31:16Z", True, "constant"),
    )
    for note, filler, source in (*said, ("Deliver after 2024-04-20", False, "user")):
        call = GoldCall(
            "create_order",
            {"customer_id": order["customer_id"], "total": 3.0, "note": note},
            {"customer_id": "user", "total": "constant", "note": source},
            write=True,
        )
        assert bool(filler_fact(env, _draft(env, "write", [call]))) is filler, note


def test_a_thing_named_by_a_bare_number_in_a_stated_object_is_filler(env):
    """A blind reader found "update its purchase settings to payment method payment system 4": VTEX's payment
    system given by its internal code. A person names the payment system; the same object with a name passes,
    and a number where numbers belong (a quantity) is not touched."""
    settings = {
        "type": "object",
        "properties": {
            "paymentMethod": {"type": "object", "properties": {"paymentSystem": {"type": "string"}}},
            "salesChannel": {"type": "string"},
            "quantity": {"type": "string"},
        },
    }
    env.tools["create_order"]["parameters"]["properties"]["note"] = settings
    order = env.rows["orders"][0]

    def verdict(note):
        call = GoldCall(
            "create_order",
            {"customer_id": order["customer_id"], "total": 3.0, "note": note},
            {"customer_id": "user", "total": "constant", "note": "constant"},
            write=True,
        )
        return filler_fact(env, _draft(env, "write", [call]))

    code, detail = verdict({"paymentMethod": {"paymentSystem": "4"}, "salesChannel": "web"})
    assert code == "filler_value" and "payment system" in detail, detail
    assert verdict({"paymentMethod": {"paymentSystem": "Visa"}, "salesChannel": "web"}) is None
    assert verdict({"paymentMethod": {"paymentSystem": "Visa"}, "quantity": "4"}) is None


# ------------------------------------------------------------------------------------ wording


def test_a_lookup_then_a_get_of_the_same_row_is_one_request_stating_the_fact_once(env, shop):
    customer, orders = _customer_with_orders(env)
    calls = [
        GoldCall("list_orders", {"customer_id": customer["customer_id"]}, {"customer_id": "user"}),
        GoldCall("get_order", {"order_id": orders[0]["order_id"]}, {"order_id": "call[0][0].order_id"}),
    ]
    draft = _draft(env, "read", calls, answer_facts=[orders[0]["status"]])
    assert execute(env, draft) is None
    for seed in range(12):
        ins = write_instructions(draft, shop, random.Random(seed))
        message = ins.first_message.lower()
        assert len(re.findall(r"\bstatus(es)?\b", message)) == 1, ins.first_message
        assert "look up" not in message and customer["customer_id"] in ins.first_message


def test_two_references_to_the_same_kind_of_row_are_never_said_alike(shop):
    from envscale.tasks.intent import Writer

    spec = copy.deepcopy(shop)
    tool = _tool(spec, "add_order_item")
    tool["parameters"]["properties"]["gift_product_id"] = {"type": "string"}
    spec["tables"]["order_items"]["columns"]["gift_product_id"] = {"type": "string", "references": "products"}
    tool["operation"]["values"]["gift_product_id"] = "gift_product_id"
    call = GoldCall(
        "add_order_item",
        {"order_id": "ord_0001", "product_id": "pro_0001", "gift_product_id": "pro_0002", "quantity": 1,
         "unit_price": 2.0},
        dict.fromkeys(("order_id", "product_id", "gift_product_id", "quantity", "unit_price"), "user"),
        write=True,
    )  # fmt: skip
    draft = TaskDraft("shop", "write", [call])
    clause = Writer(draft, spec, random.Random(0)).clauses(show_hidden=True)[0][0]
    assert "pro_0001" in clause and "pro_0002" in clause
    assert not re.search(r"for product pro_0001 for product pro_0002", clause), clause


def test_the_description_names_the_entity_and_the_verb():
    assert describe("Delete Pickup Point\n\nDeletes a given pickup point for your store, by ID.") == (
        "delete",
        "pickup point",
    )
    assert describe("Removes a calendar from the user's calendar list.") == ("remove", "calendar")
    assert describe("Get upcoming webinars") is None  # a read: no verb a write request borrows
    spec = {
        "name": "logistics",
        "tables": {"pickuppoints": {"primary_key": "pickup_point_id", "columns": {}}},
        "tools": [
            {
                "name": "Delete",
                "description": "Delete Pickup Point\n\nDeletes a given pickup point for your store.",
                "operation": {"type": "delete", "table": "pickuppoints"},
            }
        ],
    }
    assert (
        entity_name("pickuppoints") == "pickup point" and entity_name("pickuppoints", spec) == "pickup point"
    )


def _mini_spec():
    """A hand-written travel and social spec: the shapes real APIs give (actions stored as rows)."""
    string = {"type": "string"}
    return {
        "name": "mini",
        "tables": {
            "bookings": {
                "primary_key": "booking_id",
                "columns": {c: string for c in ("booking_id", "departure_location", "destination_location", "date")},
            },
            "followings": {"primary_key": "following_id", "columns": {"following_id": string, "username": string}},
            "warehouses": {"primary_key": "warehouse_id", "columns": {"warehouse_id": string, "name": string}},
            "activations": {"primary_key": "activation_id", "columns": {"activation_id": string, "warehouse_id": string}},
        },
        "tools": [
            {
                "name": "flight_book",
                "description": "Book a flight from a departure city to a destination city on a specific date.",
                "kind": "write",
                "parameters": {"type": "object", "properties": {
                    "departure_location": string, "destination_location": string, "date": string}},
                "operation": {"type": "insert", "table": "bookings", "values": {
                    "departure_location": "departure_location", "destination_location": "destination_location",
                    "date": "date"}},
            },
            {
                "name": "follow_user",
                "description": "Follow a user.",
                "kind": "write",
                "parameters": {"type": "object", "properties": {"username_to_follow": string}},
                "operation": {"type": "insert", "table": "followings", "values": {"username": "username_to_follow"}},
            },
            {
                "name": "ActivateWarehouse",
                "description": "Activate warehouse\n\nActivates a given warehouse, by warehouse ID.",
                "kind": "write",
                "parameters": {"type": "object", "properties": {"warehouseId": string}},
                "operation": {"type": "insert", "table": "activations", "values": {"warehouse_id": "warehouseId"}},
            },
        ],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("tool", "arguments", "said"),
    [
        (
            "flight_book",
            {"departure_location": "Prague", "destination_location": "San Diego, CA", "date": "2023-07-10"},
            "book a flight from Prague to San Diego, CA on 2023-07-10",
        ),
        ("follow_user", {"username_to_follow": "Anne Frazier"}, "follow Anne Frazier"),
        ("ActivateWarehouse", {"warehouseId": "war_0003"}, "activate the warehouse war_0003"),
    ],
)
def test_an_action_stored_as_a_row_is_asked_as_the_action(tool, arguments, said):
    """ "follow Anne Frazier", never "follow a following with username to follow Anne Frazier"; a trip is
    said with its prepositions ("from ... to ... on ...")."""
    call = GoldCall(tool, arguments, dict.fromkeys(arguments, "user"), write=True)
    spec = _mini_spec()
    draft = TaskDraft(
        "mini",
        "write",
        [call],
        user_facts={fact_name(a, _tool(spec, tool), spec): v for a, v in arguments.items()},
    )
    goal = write_instructions(draft, spec, random.Random(0)).goal
    assert goal == f"I want to {said}.", goal


def test_a_key_argument_that_names_another_thing_than_its_column_drops_the_task(env, shop):
    tool = copy.deepcopy(_tool(shop, "get_order"))
    tool["name"] = "get_order_by_user"
    tool["parameters"]["properties"] = {"user_id": {"type": "string"}}
    tool["parameters"]["required"] = ["user_id"]
    tool["operation"]["key"] = {"order_id": "user_id"}  # `user_id` addresses an order
    env.tools[tool["name"]] = tool
    order = env.rows["orders"][0]
    call = GoldCall(tool["name"], {"user_id": order["order_id"]}, {"user_id": "user"})
    reason = tidy(env, _draft(env, "read", [call]), random.Random(0))
    assert reason and reason[0] == "misbound_argument"


def test_an_update_that_sets_nothing_is_not_a_request(env):
    order = env.rows["orders"][0]
    call = GoldCall("update_order_status", {"order_id": order["order_id"]}, {"order_id": "user"}, write=True)
    reason = tidy(env, _draft(env, "write", [call]), random.Random(0))
    assert reason and reason[0] == "nothing_to_change"


def test_what_the_user_named_the_row_by_is_never_asked_again_under_another_column():
    """A blind reader: "find out the email address of the expense with user email jcarroll@example.org", answered
    "jcarroll@example.com" (two columns of one meaning that disagree). The answer is another fact of the row."""
    from envscale.tasks.gold import answer_values

    row = {
        "expense_id": "exp_0001",
        "user_email": "jcarroll@example.org",
        "email": "jcarroll@example.com",
        "description": "Taxi from the airport",
        "amount": 42.5,
    }
    for seed in range(6):
        asked = answer_values(row, random.Random(seed), given={"jcarroll@example.org"}, table="expenses")
        assert asked and "jcarroll@example.com" not in asked, asked
    # "find out the name of the conversation named "Support chat with Zoe King"": a row named by one of its names is
    # never asked another (a `display_name` beside a `name`, a `subject` beside a `title`)
    chat = {
        "conversation_id": "con_1",
        "display_name": "Support chat",
        "name": "customer_chat",
        "image_url": "x",
    }
    note = {"note_id": "not_1", "title": "Q3 plan", "subject": "Planning", "priority": "high"}
    for seed in range(6):
        assert "customer_chat" not in answer_values(
            chat, random.Random(seed), given={"Support chat"}, table="conversations"
        )
        assert answer_values(note, random.Random(seed), given={"Q3 plan"}, table="notes") == ["high"]
    # found by its description, its email is no fair question either: which of its two emails? Its amount is
    assert answer_values(row, random.Random(0), given={"Taxi from the airport"}, table="expenses") == ["42.5"]
    row.pop("user_email")
    assert answer_values(row, random.Random(0), given={"Taxi from the airport"}, table="expenses") == [
        "jcarroll@example.com"
    ]


def test_a_key_of_no_row_in_the_world_is_never_stated(shop):
    """Google Tasks' move asked "change its parent to par_2934": a value shaped like a generated key that no row
    holds was made up for an argument no table keys. Required, it drops the task; optional, it is left out."""
    spec = copy.deepcopy(shop)
    tool = _tool(spec, "update_order_status")
    tool["parameters"]["properties"]["note"] = {"type": "string"}
    tool["operation"]["set"]["note"] = "note"
    e = Env({"spec": spec}, TasksConfig())
    order = e.rows["orders"][0]

    def draft(note):
        args = {"order_id": order["order_id"], "status": "shipped", "note": note}
        call = GoldCall("update_order_status", args, dict.fromkeys(args, "user"), write=True)
        return _draft(e, "write", [call]), call

    made_up, call = draft("par_2934")
    assert tidy(e, made_up, random.Random(0)) is None and "note" not in call.arguments
    tool["parameters"]["required"].append("note")
    e2 = Env({"spec": spec}, TasksConfig())
    made_up, _ = draft("par_2934")
    code = tidy(e2, made_up, random.Random(0))
    e.env.close()
    e2.env.close()
    assert code is not None and code[0] == "invented_key" and "par_2934" in code[1]


def test_a_value_from_the_user_is_one_the_user_knows():
    """A reader found `confirmationId='boo_0013' [from the user]` in a task whose user knew only a reservation
    number: the cancel after the get took the id from the get's result, and the fact went with it. The fact
    stays while another call takes it from the user, and a task whose user gives a value they do not hold is
    dropped (`unsourced_fact`)."""
    from types import SimpleNamespace

    from envscale.tasks.gates import unsourced_user_value

    def draft(facts, *calls):
        return SimpleNamespace(
            user_facts=facts,
            calls=[SimpleNamespace(tool=t, arguments=a, provenance=p) for t, a, p in calls],
        )

    get = ("get", {"number": 1, "confirmation": "boo_0013"}, {"number": "user", "confirmation": "user"})
    cancel = ("cancel", {"confirmation": "boo_0013"}, {"confirmation": "call[0].confirmation_id"})
    known = draft({"reservation number": 1, "confirmation number": "boo_0013"}, get, cancel)
    assert unsourced_user_value(known) is None
    lost = draft({"reservation number": 1}, get, cancel)
    drop = unsourced_user_value(lost)
    assert drop is not None and drop[0] == "unsourced_fact" and "boo_0013" in drop[1]


def test_a_product_named_in_the_descriptions_is_not_the_rows_kind():
    """ "the customer support customer whose company name is Olson Ltd": "Create a Customer Support customer"
    names the product the customer belongs to, not a kind of customer; "Update shipping policy" names one."""

    def spec(table, descriptions):
        return {
            "name": "s",
            "tables": {table: {"primary_key": "id", "columns": {}}},
            "tools": [
                {"name": f"t{i}", "description": d, "operation": {"type": "update", "table": table}}
                for i, d in enumerate(descriptions)
            ],
        }

    customers = spec(
        "customers", ["Create a Customer Support customer.", "Update a Customer Support customer."]
    )
    assert entity_name("customers", customers) == "customer"
    policies = spec("policies", ["Update shipping policy.", "Delete shipping policy."])
    assert entity_name("policies", policies) == "shipping policy"


def test_a_create_that_adds_a_row_of_nothing_but_keys_is_dropped():
    """ "add an item to the subscription" added an item with no SKU, quantity or price: nothing a person asks
    for. A follow (a row of keys alone) is a row of its own."""
    from types import SimpleNamespace

    from envscale.tasks.gates import empty_create

    spec = {
        "tables": {
            "items": {
                "primary_key": "item_id",
                "columns": {
                    "item_id": {"type": "string"},
                    "subscription_id": {"type": "string", "references": "subscriptions"},
                    "sku_id": {"type": "string"},
                    "quantity": {"type": "integer"},
                    "manual_price": {"type": "number"},
                    "created_at": {"type": "string"},
                },
            },
            "follows": {
                "primary_key": "follow_id",
                "columns": {
                    "follow_id": {"type": "string"},
                    "user_id": {"type": "string", "references": "users"},
                    "created_at": {"type": "string"},
                },
            },
        },
        "tools": [
            {"name": "add_item", "operation": {"type": "insert", "table": "items"}},
            {"name": "follow", "operation": {"type": "insert", "table": "follows"}},
        ],
    }

    def call(tool, result):
        return SimpleNamespace(tool=tool, result=result, write=True)

    empty = {
        "item_id": "ite_1",
        "subscription_id": "sub_1",
        "sku_id": None,
        "quantity": None,
        "manual_price": None,
    }
    drop = empty_create(spec, [call("add_item", {**empty, "created_at": "2025-06-01T12:00:00Z"})])
    assert drop is not None and drop[0] == "empty_create"
    # (an item with a price is not empty when it says what it is: with no SKU it is, seed 93's readers, below)
    assert empty_create(spec, [call("add_item", {**empty, "manual_price": 123, "sku_id": "sku_1"})]) is None
    assert (
        empty_create(spec, [call("follow", {"follow_id": "fol_1", "user_id": "use_2", "created_at": "x"})])
        is None
    )
    # seed 91's readers: "add a comment" posted one with an empty body; a row whose one value is empty is empty too
    spec["tables"]["comments"] = {
        "primary_key": "comment_id",
        "columns": {
            "comment_id": {"type": "string"},
            "ticket_id": {"type": "string", "references": "tickets"},
            "body": {"type": "string"},
        },
    }
    spec["tools"].append({"name": "add_comment", "operation": {"type": "insert", "table": "comments"}})
    bare = {"comment_id": "com_1", "ticket_id": "tic_1", "body": None}
    drop = empty_create(spec, [call("add_comment", bare)])
    assert drop is not None and drop[0] == "empty_create", drop
    assert empty_create(spec, [call("add_comment", {**bare, "body": "Fixed in 2.1."})]) is None
    # seed 92: a comment with no text beside the status its API gives every new comment ("approved")
    spec["tables"]["comments"]["columns"]["status"] = {"type": "string"}
    spec["tools"][-1]["operation"].update(
        values={"ticket_id": "id", "body": "body"}, defaults={"status": "approved"}
    )
    drop = empty_create(spec, [call("add_comment", {**bare, "status": "approved"})])
    assert drop is not None and drop[0] == "empty_create", drop
    assert (
        empty_create(spec, [call("add_comment", {**bare, "status": "approved", "body": "Thanks!"})]) is None
    )
    # seed 92's readers: "a timesheet category with a cost and a rate but no name"; a tool that names no row is fine
    spec["tables"]["categories"] = {
        "primary_key": "category_id",
        "columns": {
            "category_id": {"type": "string"},
            "name": {"type": "string"},
            "rate": {"type": "number"},
        },
    }
    values = {"name": "name", "rate": "rate"}
    spec["tools"].append(
        {"name": "add_category", "operation": {"type": "insert", "table": "categories", "values": values}}
    )
    spec["tools"].append(
        {
            "name": "rate_category",
            "operation": {"type": "insert", "table": "categories", "values": {"rate": "rate"}},
        }
    )
    nameless = {"category_id": "cat_1", "name": None, "rate": 45.0}
    drop = empty_create(spec, [call("add_category", nameless)])
    assert drop is not None and drop[0] == "empty_create" and "name" in drop[1], drop
    assert empty_create(spec, [call("add_category", {**nameless, "name": "Travel"})]) is None
    assert empty_create(spec, [call("rate_category", nameless)]) is None
    # seed 93's readers: Avaza's category again, added by a tool that cannot name it while every category has a name
    named = {
        "categories": [{"category_id": f"cat_{i}", "name": f"Travel {i}", "rate": 9.0} for i in range(5)]
    }
    drop = empty_create(spec, [call("rate_category", nameless)], named)
    assert drop is not None and drop[0] == "empty_create" and "name" in drop[1], drop
    unnamed = {"categories": [{**r, "name": None} for r in named["categories"]]}
    assert empty_create(spec, [call("rate_category", nameless)], unnamed) is None
    # seed 93's readers: a customer address with no street, city or zip; a subscription item with no SKU
    spec["tables"]["customer_addresses"] = {
        "primary_key": "address_id",
        "columns": {
            "address_id": {"type": "string"},
            "email": {"type": "string"},
            "street": {"type": "string"},
            "city": {"type": "string"},
        },
    }
    spec["tools"].append(
        {"name": "add_address", "operation": {"type": "insert", "table": "customer_addresses"}}
    )
    nowhere = {"address_id": "add_1", "email": "zoe.stewart@example.com", "street": None, "city": None}
    drop = empty_create(spec, [call("add_address", nowhere)])
    assert drop is not None and drop[0] == "empty_create", drop
    assert empty_create(spec, [call("add_address", {**nowhere, "city": "Lyon"})]) is None
    spec["tables"]["items"]["columns"]["quantity"] = {"type": "integer"}
    nothing = {**empty, "quantity": 13, "manual_price": 29}
    drop = empty_create(spec, [call("add_item", nothing)])
    assert drop is not None and "sku_id" in drop[1], drop
    assert empty_create(spec, [call("add_item", {**nothing, "sku_id": "sku_3"})]) is None
    # seed 92's readers: "a project member with a cost and a rate but no user"
    spec["tables"]["project_members"] = {
        "primary_key": "member_id",
        "columns": {
            "member_id": {"type": "string"},
            "project_id": {"type": "string", "references": "projects"},
            "user_id": {"type": "string", "references": "users"},
            "rate": {"type": "number"},
        },
    }
    spec["tools"].append({"name": "add_member", "operation": {"type": "insert", "table": "project_members"}})
    nobody = {"member_id": "pm_1", "project_id": "pro_1", "user_id": None, "rate": 80.0}
    drop = empty_create(spec, [call("add_member", nobody)])
    assert drop is not None and drop[0] == "empty_create" and "no one" in drop[1], drop
    assert empty_create(spec, [call("add_member", {**nobody, "user_id": "use_2"})]) is None


def test_the_tasks_stage_drops_creates_of_nothing_but_keys():
    """The gate as the stage runs it: a note whose body is optional is added to an order with a body, never as
    an empty row (`empty_create`, kept among the rejected with its reason)."""
    import collections

    from envscale.tasks.generate import env_tasks

    spec = load_spec("tests/fixtures/envs/store.yaml")
    spec["tables"]["order_notes"] = {
        "primary_key": "note_id",
        "columns": {
            "note_id": {"type": "string"},
            "order_id": {"type": "string", "references": "orders"},
            "body": {"type": "string", "nullable": True},
            "author": {"type": "string", "nullable": True},
        },
    }
    spec["tools"].append(
        {
            "name": "add_order_note",
            "description": "Add a note to an order.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string"}, "body": {"type": "string"}},
                "required": ["order_id"],
            },
            "operation": {
                "type": "insert",
                "table": "order_notes",
                "values": {"order_id": "order_id", "body": "body"},
                "generate": {"note_id": "id"},
                "returns": "row",
            },
        }
    )
    kept, rejected = env_tasks(
        {"spec": spec, "name": spec["name"]}, TasksConfig(tasks_per_env=40), None, random.Random(0)
    )
    codes = collections.Counter(r.get("code") for r in rejected)
    assert codes["empty_create"] >= 1
    notes = [c for t in kept for c in t["gold_calls"] if c["tool"] == "add_order_note"]
    assert notes and all(c["arguments"].get("body") for c in notes)


def test_a_new_row_keeps_what_a_person_states_first(env):
    """Blind readers: "create an expense for customer 20 with currency code MUR and an exchange rate of 6.88" made an
    expense with no amount. Of a create's optional fields a request keeps its amount, name, title or date first."""
    create = env.tools["create_order"]
    create["parameters"]["required"] = ["customer_id"]  # the total optional too
    customer = env.rows["customers"][0]["customer_id"]
    arguments = {
        "customer_id": customer,
        "total": 42.5,
        "note": "Leave at the door.",
        "gift_wrap_color": "red",
    }
    arguments["recipient_name"] = "Maria Lopez"
    kept = set()
    for seed in range(12):
        call = GoldCall("create_order", dict(arguments), {}, write=True)
        reason = tidy(env, _draft(env, "write", [call]), random.Random(seed))
        assert reason is None, reason
        stated = set(call.arguments) - {"customer_id"}
        assert stated and stated <= {"total", "recipient_name"}, stated
        kept |= stated
    assert kept == {"total", "recipient_name"}  # which of the two is still drawn


def _card_spec():
    """Travel booking's cards, flights booked with a card and insurance bought for a booking with a card."""
    s = {"type": "string"}
    card = {"type": "string", "references": "credit_cards"}
    return {
        "name": "travel",
        "tables": {
            "credit_cards": {"primary_key": "card_id", "columns": {"card_id": s, "card_number": s, "cardholder_name": s}},
            "bookings": {"primary_key": "booking_id", "columns": {
                "booking_id": s, "card_id": card, "travel_date": s, "travel_from": s, "travel_to": s}},
            "insurances": {"primary_key": "insurance_id", "columns": {
                "insurance_id": s, "booking_id": {"type": "string", "references": "bookings"}, "card_id": card,
                "insurance_type": s}},
        },
        "tools": [
            {
                "name": "book_flight",
                "description": "Book a flight.",
                "kind": "write",
                "parameters": {"type": "object", "properties": {
                    "card_id": s, "travel_date": s, "travel_from": s, "travel_to": s}},
                "operation": {"type": "insert", "table": "bookings", "values": {
                    "card_id": "card_id", "travel_date": "travel_date", "travel_from": "travel_from",
                    "travel_to": "travel_to"}},
            },
            {
                "name": "purchase_insurance",
                "description": "Purchase insurance for a booking.",
                "kind": "write",
                "parameters": {"type": "object", "properties": {"booking_id": s, "card_id": s, "insurance_type": s}},
                "operation": {"type": "insert", "table": "insurances", "values": {
                    "booking_id": "booking_id", "card_id": "card_id", "insurance_type": "insurance_type"}},
            },
        ],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("tool", "arguments", "object_said"),
    [
        (
            "book_flight",
            {
                "card_id": "car_0005",
                "travel_date": "2025-07-27",
                "travel_from": "Miami, FL",
                "travel_to": "Boston",
            },
            "book a flight",
        ),
        (
            "purchase_insurance",
            {"booking_id": "boo_0006", "card_id": "car_0005", "insurance_type": "basic"},
            "insurance",
        ),
    ],
)
def test_a_card_a_new_row_is_paid_with_is_never_what_is_booked_or_bought(tool, arguments, object_said):
    """Blind readers of seed 84: "book the card whose card holder name is Sam Maxwell on 2025-07-27 from Miami" (a
    flight booked with that card) and "purchase booking boo_0006 for the card ..." (insurance for the booking).
    The card is what the row is paid with; what is booked or bought is the flight, the insurance."""
    call = GoldCall(tool, arguments, dict.fromkeys(arguments, "user"), write=True)
    spec = _card_spec()
    draft = TaskDraft("travel", "write", [call])
    clause = Writer(draft, spec, random.Random(0)).clauses(show_hidden=True)[0][0]
    assert object_said in clause, clause
    assert re.search(r"paying with (the )?(credit )?card\b.*car_0005", clause), clause
    assert not re.search(r"\b(book|purchase) (the )?(credit )?card", clause), clause
    assert not re.search(r"purchase (the )?booking", clause), clause


def test_a_setting_stored_under_a_file_is_said_by_the_setting():
    """Blind readers of seed 84 (twice): "set the file to budget_2024_79.docx" for WhatsApp's `SetGroupIcon`. The
    value is the group's icon: the request says so, and the world's icons are images."""
    s = {"type": "string"}
    spec = {
        "name": "chat",
        "tables": {
            "groups": {"primary_key": "group_id", "columns": {"group_id": s, "subject": s}},
            "icons": {"primary_key": "icon_id", "columns": {
                "icon_id": s, "group_id": {"type": "string", "references": "groups"}, "file": s}},
        },
        "tools": [
            {
                "name": "SetGroupIcon",
                "description": "Set group icon",
                "kind": "write",
                "parameters": {"type": "object", "properties": {"GroupId": s, "file": s}, "required": ["GroupId", "file"]},
                "operation": {"type": "insert", "table": "icons", "values": {"group_id": "GroupId", "file": "file"}},
            },
        ],
    }  # fmt: skip
    arguments = {"GroupId": "gro_0003", "file": "team.png"}
    draft = TaskDraft(
        "chat", "write", [GoldCall("SetGroupIcon", arguments, dict.fromkeys(arguments, "user"), write=True)]
    )
    clause = Writer(draft, spec, random.Random(0)).clauses(show_hidden=True)[0][0]
    assert re.search(r"\bicon\b.*team\.png", clause) and "the file to" not in clause, clause
    state = generate_state({**spec, "tools": []}, seed=0)
    assert all(re.search(r"\.(png|jpg)$", row["file"]) for row in state["icons"] if row["file"]), state[
        "icons"
    ]


def test_a_row_reached_through_its_own_kind_of_address_is_not_named_twice():
    """Blind readers of seed 84: "the email address of the customer of the customer address whose company is
    Burton-Fisher". The address of a customer is said as an address: "the customer of the address ..."."""
    s = {"type": "string"}
    spec = {
        "name": "shop",
        "tables": {
            "customers": {"primary_key": "customer_id", "columns": {"customer_id": s, "name": s, "email": s}},
            "customer_addresses": {"primary_key": "address_id", "columns": {
                "address_id": s, "customer_id": {"type": "string", "references": "customers"}, "company": s}},
        },
        "tools": [
            {"name": "list_addresses", "description": "List customer addresses.", "kind": "read",
             "parameters": {"type": "object", "properties": {}},
             "operation": {"type": "list", "table": "customer_addresses"}},
            {"name": "get_customer", "description": "Get a customer.", "kind": "read",
             "parameters": {"type": "object", "properties": {"customer_id": s}, "required": ["customer_id"]},
             "operation": {"type": "get", "table": "customers", "key": {"customer_id": "customer_id"}}},
        ],
    }  # fmt: skip
    addresses = [
        {"address_id": "add_0001", "customer_id": "cus_0001", "company": "Burton-Fisher"},
        {"address_id": "add_0002", "customer_id": "cus_0002", "company": "Lopez Inc"},
    ]
    calls = [
        GoldCall("list_addresses", {}, {}, result=addresses),
        GoldCall("get_customer", {"customer_id": "cus_0001"}, {"customer_id": "call[0][0].customer_id"},
                 result={"customer_id": "cus_0001", "name": "Ann Parker", "email": "ann.parker@example.com"}),
    ]  # fmt: skip
    draft = TaskDraft(
        "shop",
        "read",
        calls,
        user_facts={"company": "Burton-Fisher"},
        answer_facts=["ann.parker@example.com"],
    )
    goal = write_instructions(draft, spec, random.Random(0)).goal
    assert "customer of the customer address" not in goal and "customer of the address" in goal, goal
    assert "Burton-Fisher" in goal, goal


def test_an_answer_held_by_two_fields_is_asked_by_one():
    """Seed 85: "find out the display name and name of orgunit 2", where the display name is the name. Each answer
    is asked by one field."""
    s = {"type": "string"}
    spec = {
        "name": "org",
        "tables": {"orgunits": {"primary_key": "orgunit_id", "columns": {
            "orgunit_id": s, "display_name": s, "name": s, "country": s}}},
        "tools": [{"name": "get_orgunit", "description": "Get an orgunit.", "kind": "read",
                   "parameters": {"type": "object", "properties": {"orgid": s}, "required": ["orgid"]},
                   "operation": {"type": "get", "table": "orgunits", "key": {"orgunit_id": "orgid"}}}],
    }  # fmt: skip
    row = {"orgunit_id": "2", "display_name": "Finance", "name": "Finance", "country": "Norway"}
    call = GoldCall("get_orgunit", {"orgid": "2"}, {"orgid": "user"}, result=row)
    draft = TaskDraft(
        "org", "read", [call], user_facts={"orgunit id": "2"}, answer_facts=["Finance", "Norway"]
    )
    goal = write_instructions(draft, spec, random.Random(0)).goal
    assert "country" in goal and not re.search(r"display name,? (and )?name\b", goal), goal


def test_a_null_value_is_never_stated(env, shop):
    """Seed 86: "update the business name of the location ... to Brown-Peters, the status to None". An optional
    argument whose value is null is left out; a required one drops the task."""
    customer = env.rows["customers"][0]
    call = GoldCall(
        "create_order",
        {"customer_id": customer["customer_id"], "total": 12.5, "note": None},
        {"customer_id": "user", "total": "constant", "note": "constant"},
        write=True,
    )
    draft = _draft(env, "write", [call])
    assert tidy(env, draft, random.Random(0)) is None
    assert "note" not in call.arguments, call.arguments
    assert "None" not in write_instructions(draft, shop, random.Random(0)).goal
    required = GoldCall(
        "create_order",
        {"customer_id": customer["customer_id"], "total": None},
        {"customer_id": "user", "total": "constant"},
        write=True,
    )
    code, _ = tidy(env, _draft(env, "write", [required]), random.Random(0))
    assert code == "null_value"


def _first_key(spec, table):
    """The key of the first row of `table` in `spec`'s initial state."""
    e = Env({"spec": spec}, TasksConfig())
    key = e.rows[table][0][e.pk(table)]
    e.env.close()
    return key


def _left_out_then_refused(spec, tool_name, args, arg):
    """Tidy one call of `tool_name` with `args`: with `arg` optional it must be left out; then with `arg` required the
    task must be refused. Returns the drop of the second tidy (its code and detail)."""
    e = Env({"spec": spec}, TasksConfig())
    call = GoldCall(tool_name, dict(args), dict.fromkeys(args, "user"), write=True)
    assert tidy(e, _draft(e, "write", [call]), random.Random(0)) is None
    e.env.close()
    assert arg not in call.arguments, call.arguments
    _tool(spec, tool_name)["parameters"]["required"].append(arg)
    e = Env({"spec": spec}, TasksConfig())
    call = GoldCall(tool_name, dict(args), dict.fromkeys(args, "user"), write=True)
    drop = tidy(e, _draft(e, "write", [call]), random.Random(0))
    e.env.close()
    return drop


def test_a_number_keying_a_thing_the_world_does_not_hold_is_never_stated(shop):
    """Avaza's "create a new project for project category 16", "an expense for customer 20 for expense payment
    method 1" (seed 87's readers): an integer key of an entity no table holds is a number no person knows.
    Optional, it is left out; required, the task is not posed."""
    spec = copy.deepcopy(shop)
    tool = _tool(spec, "update_order_status")
    tool["parameters"]["properties"]["ProjectCategoryIDFK"] = {"type": "integer"}
    tool["operation"]["set"]["note"] = "ProjectCategoryIDFK"
    order = _first_key(spec, "orders")
    args = {"order_id": order, "status": "shipped", "ProjectCategoryIDFK": 16}
    code = _left_out_then_refused(spec, "update_order_status", args, "ProjectCategoryIDFK")
    assert code is not None and code[0] == "invented_key" and "16" in code[1]


def test_a_new_row_never_names_the_row_it_references_otherwise(shop):
    """Seed 88's readers: "create a project for the company named "Newman, Okafor and Cameron" with the company name
    "Barr Inc"": the name of a row the new row references is that row's own. The user never states another one."""
    spec = copy.deepcopy(shop)
    spec["tables"]["orders"]["columns"]["customer_name"] = {"type": "string", "nullable": True}
    tool = _tool(spec, "create_order")
    tool["parameters"]["properties"]["customer_name"] = {"type": "string"}
    tool["operation"]["values"]["customer_name"] = "customer_name"
    e = Env({"spec": spec}, TasksConfig())
    customer = e.rows["customers"][0]
    args = {"customer_id": customer["customer_id"], "total": 42.5, "customer_name": "Barr Inc"}
    call = GoldCall("create_order", args, dict.fromkeys(args, "user"), write=True)
    draft = _draft(e, "write", [call])
    tidy(e, draft, random.Random(0))
    e.env.close()
    assert "customer_name" not in call.arguments, call.arguments
    assert "customer_id" in call.arguments
    # required (Apideck's `leadsAdd` needs `company_name`, seed 89), the task is not posed
    tool["parameters"]["required"].append("customer_name")
    e2 = Env({"spec": spec}, TasksConfig())
    args = {**args, "customer_name": "Barr Inc"}
    call = GoldCall("create_order", args, dict.fromkeys(args, "user"), write=True)
    drop = tidy(e2, _draft(e2, "write", [call]), random.Random(0))
    e2.env.close()
    assert drop is not None and drop[0] == "names_another_row", drop


def test_half_a_place_is_never_stated(shop):
    """Seed 89's readers: a spot added "with a longitude of -84.36" and no latitude, an event with only a latitude.
    A coordinate stated without its other half is left out."""
    spec = copy.deepcopy(shop)
    tool = _tool(spec, "create_order")
    for coordinate in ("lat", "lon"):
        spec["tables"]["orders"]["columns"][coordinate] = {"type": "number", "nullable": True}
        tool["parameters"]["properties"][coordinate] = {"type": "number"}
        tool["operation"]["values"][coordinate] = coordinate
    e = Env({"spec": spec}, TasksConfig())
    customer = e.rows["customers"][0]["customer_id"]
    half = {"customer_id": customer, "total": 12.5, "lon": -84.364887}
    call = GoldCall("create_order", dict(half), dict.fromkeys(half, "user"), write=True)
    assert tidy(e, _draft(e, "write", [call]), random.Random(0)) is None
    both = {"customer_id": customer, "total": 12.5, "lat": 32.98, "lon": -84.36}
    whole = GoldCall("create_order", dict(both), dict.fromkeys(both, "user"), write=True)
    tidy(e, _draft(e, "write", [whole]), random.Random(0))
    e.env.close()
    assert "lon" not in call.arguments, call.arguments
    assert not ({"lat", "lon"} & set(whole.arguments)) or {"lat", "lon"} <= set(whole.arguments), (
        whole.arguments
    )


def test_a_transfer_says_where_to(shop):
    """Seed 91's readers: iQualify's "transfer a user between offerings" used to turn off an invite flag, and an
    internal transfer made with no account to send to. A call of a tool that moves something states where to."""
    spec = copy.deepcopy(shop)
    tool = _tool(spec, "update_customer_email")
    tool["name"], tool["description"] = "transfer_customer", "Transfer a customer between stores."
    for column in ("send_invite", "to_store"):
        spec["tables"]["customers"]["columns"][column] = {"type": "string", "nullable": True}
        tool["parameters"]["properties"][column] = {"type": "string"}
        tool["operation"]["set"][column] = column
    tool["parameters"]["required"] = [tool["parameters"]["required"][0]]
    e = Env({"spec": spec}, TasksConfig())
    customer = e.rows["customers"][0]["customer_id"]
    nowhere = {"customer_id": customer, "send_invite": "no"}
    call = GoldCall("transfer_customer", dict(nowhere), dict.fromkeys(nowhere, "user"), write=True)
    drop = tidy(e, _draft(e, "write", [call]), random.Random(0))
    somewhere = {"customer_id": customer, "to_store": "Downtown"}
    moved = GoldCall("transfer_customer", dict(somewhere), dict.fromkeys(somewhere, "user"), write=True)
    kept = tidy(e, _draft(e, "write", [moved]), random.Random(0))
    e.env.close()
    assert drop is not None and drop[0] == "moves_nowhere", drop
    assert kept is None or kept[0] != "moves_nowhere", kept


def test_an_envelope_of_fields_is_never_said_as_a_value(shop):
    """Seed 89's readers: "update the requests to ad status archived" (eBay's `requests=[{"adStatus": "archived"}]`)
    and "add a scrobble episode with body episode id 6588": a list of objects, an object of objects, is no value a
    person says. Optional, it is left out; required, the task is not posed. A body of plain fields (GoToWebinar's
    webinar `body`) is the request's fields, and stays (see `test_a_structure_of_structures_is_never_dictated`)."""
    spec = copy.deepcopy(shop)
    tool = _tool(spec, "create_order")
    tool["parameters"]["properties"]["requests"] = {"type": "array", "items": {"type": "object"}}
    spec["tables"]["orders"]["columns"]["requests"] = {"type": "json", "nullable": True}
    tool["operation"]["values"]["requests"] = "requests"
    customer = _first_key(spec, "customers")
    args = {"customer_id": customer, "total": 12.5, "requests": [{"adStatus": "archived"}]}
    drop = _left_out_then_refused(spec, "create_order", args, "requests")
    assert drop is not None and drop[0] == "structured_value", drop


def test_a_structure_of_structures_is_never_dictated(shop):
    """Seed 90's readers: "set its groups to name Roles, permissions allowed yes, description ..., name ManageProjects":
    a list of objects read out loud. Optional, it is left out; required, the task is not posed. A flat object (an
    address) or a list of words is still said."""
    from envscale.tasks.arguments import _nested

    spec = copy.deepcopy(shop)
    tool = _tool(spec, "create_order")
    for column in ("groups", "tags", "times"):
        spec["tables"]["orders"]["columns"][column] = {"type": "json", "nullable": True}
        tool["parameters"]["properties"][column] = {"type": "array"}
        tool["operation"]["values"][column] = column
    customer = _first_key(spec, "customers")
    groups = [{"name": "Roles", "permissions": {"allowed": True}}, {"name": "ManageProjects"}]
    times = [
        {"start": "2025-07-01T10:00:00Z", "end": "2025-07-01T11:00:00Z"}
    ]  # one flat object, GoToWebinar's
    args = {"customer_id": customer, "total": 12.5, "groups": groups}
    drop = _left_out_then_refused(spec, "create_order", args, "groups")
    assert drop is not None and drop[0] == "structured_value", drop
    assert _nested(groups, "groups") and _nested([{"adStatus": "archived"}], "requests")
    assert not _nested(times, "times") and not _nested(["gift", "rush"], "tags")
    assert not _nested({"street": "1 Main St", "city": "Springfield"}, "address")


def test_a_read_that_only_hands_another_read_what_the_user_said_is_needless():
    """Seed 91's readers: `Bookings_GetReservation(reservationNumber=5, confirmationId='boo_0003')` then
    `Bookings_GetBooking(confirmationId='boo_0003' [from call 1's result])`, from a user who had said boo_0003:
    a needless call. A read before a write that takes its key from it (an agent checking the row it changes), and
    a read that alone holds the answer, stay."""
    from types import SimpleNamespace

    from envscale.tasks.gates import needless_read

    def draft(facts, answers, *calls):
        return SimpleNamespace(
            user_facts=facts,
            answer_facts=answers,
            branch=None,
            calls=[
                SimpleNamespace(tool=t, arguments=a, provenance=p, write=w, result=r)
                for t, a, p, w, r in calls
            ],
        )

    facts = {"reservation number": 5, "confirmation number": "boo_0003"}
    reservation = {"reservation_number": 5, "confirmation_id": "boo_0003", "adults": 2}
    booking = {"confirmation_id": "boo_0003", "balance": 17866.99}
    get = (
        "GetReservation",
        {"number": 5, "id": "boo_0003"},
        {"number": "user", "id": "user"},
        False,
        reservation,
    )
    then = ("GetBooking", {"id": "boo_0003"}, {"id": "call[0].confirmation_id"}, False, booking)
    drop = needless_read(draft(facts, ["17866.99"], get, then))
    assert drop is not None and drop[0] == "needless_read" and "GetReservation" in drop[1]
    cancel = ("CancelReservation", {"id": "boo_0003"}, {"id": "call[0].confirmation_id"}, True, reservation)
    assert needless_read(draft(facts, [], get, cancel)) is None
    by_name = ("FindBookings", {"guest": "Ann Lee"}, {"guest": "user"}, False, [booking])
    found = ("GetBooking", {"id": "boo_0003"}, {"id": "call[0][0].confirmation_id"}, False, booking)
    assert needless_read(draft({"guest": "Ann Lee"}, ["17866.99"], by_name, found)) is None
    adults = ("GetBooking", {"id": "boo_0003"}, {"id": "call[0].confirmation_id"}, False, booking)
    assert (
        needless_read(draft(facts, ["2"], get, adults)) is None
    )  # only the reservation says how many adults


def test_a_route_section_is_no_part_of_a_things_name():
    """Seed 92's readers: "the configuration dock named Dock 9", "configuration warehouse" (VTEX's
    `/pvt/configuration/docks`): schema wording. A section of the route is no part of the thing's name."""
    from envscale.tasks.naming import entity_name

    assert entity_name("configuration_docks") == "dock" and entity_name("admin_users") == "user"
    assert entity_name("configurations") == "configuration" and entity_name("order_items") == "order item"


def test_a_read_named_for_an_act_is_never_a_lookup():
    """Seed 92's readers: GoToTraining's `startTraining` (a read that returns the link that starts a session) was
    called to learn a training's name. A task that reads through a tool named for an act is dropped."""
    from types import SimpleNamespace

    from envscale.tasks.gates import read_by_act

    spec = {
        "tools": [
            {"name": "startTraining", "kind": "read", "operation": {"type": "get", "table": "trainings"}},
            {"name": "getTraining", "kind": "read", "operation": {"type": "get", "table": "trainings"}},
            {
                "name": "start_training",
                "kind": "write",
                "operation": {"type": "update", "table": "trainings"},
            },
        ]
    }

    def calls(*names):
        return [SimpleNamespace(tool=n) for n in names]

    drop = read_by_act(spec, calls("getTraining", "startTraining"))
    assert drop is not None and drop[0] == "read_by_act" and "startTraining" in drop[1], drop
    assert read_by_act(spec, calls("getTraining", "start_training")) is None


def test_no_one_suspends_or_activates_their_own_account():
    """Seed 92's readers: "look up my account, activate it" from an administrator about their own signed-in row. An
    act that sanctions an account (suspend, activate, lock) on the caller's own is dropped; deleting one's own
    account, or suspending another's, is posed."""
    from envscale.tasks.gates import sanctions_self

    spec = load_spec("tests/fixtures/envs/store.yaml")
    spec["tables"]["customers"]["columns"]["status"] = {"type": "string", "nullable": True}
    update = {"type": "update", "table": "customers", "key": {"customer_id": "customer_id"}, "fixed": {"status": "suspended"}}  # fmt: skip
    params = {
        "type": "object",
        "properties": {"customer_id": {"type": "string"}},
        "required": ["customer_id"],
    }
    spec["tools"].append(
        {"name": "suspendCustomer", "kind": "write", "parameters": params, "operation": update}
    )
    e = Env({"spec": spec}, TasksConfig())
    try:
        me = e.session_row["customer_id"]
        other = next(r["customer_id"] for r in e.rows["customers"] if r["customer_id"] != me)
        mine = GoldCall(
            "suspendCustomer", {"customer_id": me}, {"customer_id": "call[0].customer_id"}, write=True
        )
        drop = sanctions_self(e, [GoldCall("get_my_profile", {}, {}), mine])
        assert drop is not None and drop[0] == "sanctions_self", drop
        theirs = GoldCall("suspendCustomer", {"customer_id": other}, {"customer_id": "user"}, write=True)
        assert sanctions_self(e, [theirs]) is None
        email = GoldCall("update_my_email", {"email": "x@example.com"}, {"email": "user"}, write=True)
        assert sanctions_self(e, [email]) is None
    finally:
        e.env.close()
