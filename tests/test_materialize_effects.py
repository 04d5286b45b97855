"""Effects that hold a world together (envscale.materialize.effects) and unique constraints only on keys.

Each rule is shown as tool calls on a fresh `Environment` built from an inferred spec: the second
table changes (or the call is refused with the API's words), as a person reading the tool would expect.
"""

import re

import pytest
from apitools import api_tool

from envscale.env import Environment, validate_spec
from envscale.materialize.effects import add_effects, deletes_its_row, multi_table_effects
from envscale.materialize.infer import declared_unique, infer_spec
from envscale.materialize.verify import verify

S = {"type": "string"}
I = {"type": "integer"}  # noqa: E741


def _path(schema):
    return {**schema, "x-in": "path"}


def _spec(tools, name="shop", rows=6):
    inferred = infer_spec(
        {"domain_id": 0, "name": name, "groups": {"Shop": len(tools)}}, tools, rows=rows, seed=0
    )
    spec = add_effects(inferred.spec)
    validate_spec(spec)
    return spec


def _t(*args, **kw):
    return api_tool(*args, group="Shop", **kw)


def _env(spec):
    env = Environment(spec)
    env.reset(seed=0)
    return env


_PRODUCT = {"type": "object", "properties": {"product_id": S, "name": S, "stock": I}}
_ORDER = {
    "type": "object",
    "properties": {
        "order_id": S,
        "product_id": S,
        "quantity": I,
        "status": {"type": "string", "enum": ["pending", "shipped", "cancelled"]},
        "cancelled_at": S,
    },
}


def _shop_tools():
    return [
        _t("create_product", "POST", "/products", {"name": S, "stock": I}, ["name"], _PRODUCT),
        _t("list_products", "GET", "/products", {}, [], {"type": "array", "items": _PRODUCT}),
        _t(
            "get_product", "GET", "/products/{product_id}", {"product_id": _path(S)}, ["product_id"], _PRODUCT
        ),
        _t(
            "create_order",
            "POST",
            "/orders",
            {"product_id": S, "quantity": I},
            ["product_id", "quantity"],
            _ORDER,
        ),
        _t("get_order", "GET", "/orders/{order_id}", {"order_id": _path(S)}, ["order_id"], _ORDER),
        _t("cancel_order", "POST", "/orders/{order_id}/cancel", {"order_id": _path(S)}, ["order_id"], _ORDER),
    ]


def test_placing_an_order_takes_its_quantity_out_of_stock_and_never_below_zero():
    spec = _spec(_shop_tools())
    assert multi_table_effects(spec) == [("create_order", "products")]
    env = _env(spec)
    product = env.dump()["products"][0]
    assert isinstance(product["stock"], int)  # a stock is a number, never null
    obs = env.step("create_order", {"product_id": product["product_id"], "quantity": 1})
    assert obs["ok"], obs
    after = env.step("get_product", {"product_id": product["product_id"]})["result"]
    assert after["stock"] == product["stock"] - 1
    before = env.state_hash()
    obs = env.step("create_order", {"product_id": product["product_id"], "quantity": after["stock"] + 1})
    assert not obs["ok"] and obs["code"] == "invalid_state" and "not enough stock" in obs["error"]
    assert env.state_hash() == before
    # a new product without a stock starts at 0, and nothing can be ordered of it
    new = env.step("create_product", {"name": "Desk lamp"})["result"]
    assert new["stock"] == 0
    assert not env.step("create_order", {"product_id": new["product_id"], "quantity": 1})["ok"]
    assert verify(spec, semantic=False) == []


@pytest.mark.parametrize("noun", ["restock", "favorite"])
def test_a_restock_or_a_favourite_is_not_an_order(noun):
    row = {"type": "object", "properties": {f"{noun}_id": S, "product_id": S, "quantity": I}}
    args = {"product_id": S, "quantity": I}
    tools = _shop_tools()[:3] + [
        _t(f"create_{noun}", "POST", f"/{noun}s", args, ["product_id", "quantity"], row)
    ]
    spec = _spec(tools)
    assert f"{noun}s" in spec["tables"] and multi_table_effects(spec) == []


def test_a_sale_return_gives_nothing_out_of_stock():
    spec = {
        "name": "s",
        "tables": {
            "products": {"primary_key": "product_id", "columns": {"product_id": S, "stock": I}},
            "sale_returns": {
                "primary_key": "return_id",
                "columns": {"return_id": S, "product_id": {**S, "references": "products"}, "quantity": I},
            },
        },
        "tools": [
            {
                "name": "create_sale_return",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"product_id": S, "quantity": I},
                    "required": ["product_id", "quantity"],
                },
                "operation": {
                    "type": "insert",
                    "table": "sale_returns",
                    "values": {"product_id": "product_id", "quantity": "quantity"},
                    "generate": {"return_id": "id"},
                },
            }
        ],
    }
    assert multi_table_effects(add_effects(spec)) == []
    spec["tables"]["sale_lines"] = spec["tables"].pop("sale_returns")
    spec["tools"][0]["operation"]["table"] = "sale_lines"
    assert multi_table_effects(add_effects(spec)) == [("create_sale_return", "products")]


def test_a_status_change_sets_its_timestamp():
    spec = _spec(_shop_tools())
    env = _env(spec)
    order = next(o for o in env.dump()["orders"] if o["status"] != "cancelled")
    result = env.step("cancel_order", {"order_id": order["order_id"]})["result"]
    assert result["status"] == "cancelled"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", result["cancelled_at"])  # the clock
    assert result["cancelled_at"] != order["cancelled_at"]


_LIST = {"type": "object", "properties": {"list_id": S, "title": S}}
_TASK = {"type": "object", "properties": {"task_id": S, "list_id": S, "title": S}}


def _list_tools(description="Delete a list."):
    lid = _path(S)
    tools = [
        _t("create_list", "POST", "/lists", {"title": S}, ["title"], _LIST),
        _t("get_list", "GET", "/lists/{list_id}", {"list_id": lid}, ["list_id"], _LIST),
        _t("delete_list", "DELETE", "/lists/{list_id}", {"list_id": lid}, ["list_id"], None),
        _t(
            "create_task",
            "POST",
            "/lists/{list_id}/tasks",
            {"list_id": lid, "title": S},
            ["list_id", "title"],
            _TASK,
        ),
        _t(
            "list_tasks",
            "GET",
            "/lists/{list_id}/tasks",
            {"list_id": lid},
            ["list_id"],
            {"type": "array", "items": _TASK},
        ),
    ]
    tools[2]["description"] = description
    return tools


def test_deleting_a_parent_removes_the_children_nested_under_it():
    spec = _spec(_list_tools())
    assert ("delete_list", "tasks") in multi_table_effects(spec)
    env = _env(spec)
    tasks = env.dump()["tasks"]
    parent = next(t["list_id"] for t in tasks if t["list_id"])
    obs = env.step("delete_list", {"list_id": parent})
    assert obs["ok"], obs
    assert not [t for t in env.dump()["tasks"] if t["list_id"] == parent]
    assert len(env.dump()["tasks"]) == len([t for t in tasks if t["list_id"] != parent])
    assert verify(spec, semantic=False) == []


def test_a_delete_the_api_refuses_while_children_exist_is_guarded_with_its_words():
    spec = _spec(_list_tools("Delete a list. A list cannot be deleted while it still has tasks."))
    op = next(t for t in spec["tools"] if t["name"] == "delete_list")["operation"]
    assert "effects" not in op and op["guards"]
    env = _env(spec)
    parent = next(t["list_id"] for t in env.dump()["tasks"] if t["list_id"])
    before = env.state_hash()
    obs = env.step("delete_list", {"list_id": parent})
    assert not obs["ok"] and obs["code"] == "invalid_state"
    assert "cannot be deleted while it still has tasks" in obs["error"]
    assert env.state_hash() == before
    empty = env.step("create_list", {"title": "Errands"})["result"]["list_id"]
    assert env.step("delete_list", {"list_id": empty})["ok"]


def test_an_optional_reference_is_detached_when_its_row_is_deleted():
    company = {"type": "object", "properties": {"company_id": S, "name": S}}
    contact = {"type": "object", "properties": {"contact_id": S, "name": S, "company_id": S}}
    tools = [
        _t("create_company", "POST", "/companies", {"name": S}, ["name"], company),
        _t("delete_company", "DELETE", "/companies/{company_id}", {"company_id": _path(S)}, ["company_id"]),
        _t("create_contact", "POST", "/contacts", {"name": S, "company_id": S}, ["name"], contact),
        _t("get_contact", "GET", "/contacts/{contact_id}", {"contact_id": _path(S)}, ["contact_id"], contact),
    ]
    spec = _spec(tools, "crm")
    env = _env(spec)
    contact_row = next(c for c in env.dump()["contacts"] if c["company_id"])
    assert env.step("delete_company", {"company_id": contact_row["company_id"]})["ok"]
    after = env.step("get_contact", {"contact_id": contact_row["contact_id"]})["result"]
    assert after["company_id"] is None and after["name"] == contact_row["name"]  # the contact stays


def test_a_new_child_counts_in_its_parent():
    user = {"type": "object", "properties": {"username": S, "tweet_count": I}}
    tweet = {"type": "object", "properties": {"tweet_id": S, "username": S, "content": S}}
    tools = [
        _t("get_user", "GET", "/users/{username}", {"username": _path(S)}, ["username"], user),
        _t("post_tweet", "POST", "/tweets", {"username": S, "content": S}, ["username", "content"], tweet),
        _t("list_tweets", "GET", "/tweets", {"username": S}, [], {"type": "array", "items": tweet}),
    ]
    spec = _spec(tools, "posting")
    assert ("post_tweet", "users") in multi_table_effects(spec)
    env = _env(spec)
    name = env.dump()["users"][0]["username"]
    before = env.step("get_user", {"username": name})["result"]["tweet_count"]
    assert env.step("post_tweet", {"username": name, "content": "hello"})["ok"]
    assert env.step("post_tweet", {"username": name, "content": "hello"})["ok"]  # the same text twice
    assert env.step("get_user", {"username": name})["result"]["tweet_count"] == before + 2


# ----------------------------------------------------------------------------------------------
# Unique constraints


def test_a_required_field_of_a_create_is_not_unique_unless_it_is_a_key_or_declared_so():
    tweet = {"type": "object", "properties": {"id": I, "username": S, "content": S}}
    page = {"type": "object", "properties": {"tweets": {"type": "array", "items": tweet}}}
    tools = [
        _t("post_tweet", "POST", "", {"content": S}, ["content"], tweet),
        # each looks tweets up by something else, never addresses one by its text
        _t("get_user_tweets", "GET", "", {"username": S}, ["username"], page),
        _t("search_tweets", "GET", "", {"keyword": S}, ["keyword"], page),
        _t("get_tweet", "GET", "", {"tweet_id": I}, ["tweet_id"], tweet),
    ]
    tools = [{**t, "annotations": None} for t in tools]  # plain functions, as BFCL gives them
    tools.append(_t("get_space_tweets", "GET", "/{space}/tweets", {"space": _path(S)}, ["space"], page))
    spec = _spec(tools, "posting")
    assert not [c for t in spec["tables"].values() for c, s in t["columns"].items() if s.get("unique")]
    env = _env(spec)
    assert (
        env.step("post_tweet", {"content": "same"})["ok"]
        and env.step("post_tweet", {"content": "same"})["ok"]
    )


@pytest.mark.parametrize(
    ("column", "entity", "schema", "unique"),
    [
        ("email", "subscriber", S, True),
        ("customer_email", "customer", S, True),
        ("slug", "post", S, True),
        ("workspace_slug", "member", S, False),  # names another row
        ("username", "token", S, False),  # a record for a user: a user has many
        ("name", "group", {"type": "string", "description": "The group's unique name."}, True),
        ("location", "booking", S, False),
        ("content", "tweet", S, False),
    ],
)
def test_declared_unique(column, entity, schema, unique):
    assert declared_unique(column, entity, schema) is unique


def test_a_name_other_tools_address_rows_by_stays_a_unique_key():
    item = {"type": "object", "properties": {"stock": S}}
    tools = [
        _t("add_stock_to_watchlist", "POST", "/watchlist", {"stock": S}, ["stock"], item),
        _t("remove_stock_from_watchlist", "DELETE", "/watchlist", {"stock": S}, ["stock"], None),
    ]
    tools = [{**t, "annotations": {}} for t in tools]  # plain functions, as BFCL gives them
    spec = _spec(tools, "trading")
    table = next(iter(spec["tables"].values()))
    assert table["columns"]["stock"].get("unique") is True
    remove = next(t for t in spec["tools"] if t["name"] == "remove_stock_from_watchlist")
    assert remove["operation"]["key"] == {"stock": "stock"}


_ORDER_STATES = {"type": "string", "enum": ["pending", "paid", "shipped", "delivered", "cancelled"]}


def test_a_shipment_ships_its_order_and_a_cancelled_order_is_never_shipped():
    order = {"type": "object", "properties": {"order_id": S, "status": _ORDER_STATES, "shipped_at": S}}
    shipment = {"type": "object", "properties": {"shipment_id": S, "order_id": S, "carrier": S}}
    oid = _path(S)
    tools = [
        _t("get_order", "GET", "/orders/{order_id}", {"order_id": oid}, ["order_id"], order),
        _t("create_order", "POST", "/orders", {}, [], order),
        _t("create_shipment", "POST", "/shipments", {"order_id": S, "carrier": S}, ["order_id"], shipment),
        _t(
            "get_shipment",
            "GET",
            "/shipments/{shipment_id}",
            {"shipment_id": _path(S)},
            ["shipment_id"],
            shipment,
        ),
    ]
    spec = _spec(tools, rows=30)
    assert ("create_shipment", "orders") in multi_table_effects(spec)
    env = _env(spec)
    rows = env.dump()["orders"]
    paid = next(o for o in rows if o["status"] in ("pending", "paid"))
    assert env.step("create_shipment", {"order_id": paid["order_id"], "carrier": "UPS"})["ok"]
    after = env.step("get_order", {"order_id": paid["order_id"]})["result"]
    assert after["status"] == "shipped" and after["shipped_at"] and after["shipped_at"] != paid["shipped_at"]
    gone = next(o for o in rows if o["status"] == "cancelled")
    before = env.state_hash()
    obs = env.step("create_shipment", {"order_id": gone["order_id"], "carrier": "UPS"})
    assert not obs["ok"] and obs["code"] == "invalid_state" and "cannot be shipped" in obs["error"]
    assert env.state_hash() == before


def test_a_comment_posted_under_a_ticket_touches_the_ticket_and_counts_in_it():
    ticket = {
        "type": "object",
        "properties": {"ticket_id": S, "subject": S, "updated_at": S, "num_comments": I},
    }
    comment = {"type": "object", "properties": {"comment_id": S, "ticket_id": S, "body": S}}
    tid = _path(S)
    tools = [
        _t("get_ticket", "GET", "/tickets/{ticket_id}", {"ticket_id": tid}, ["ticket_id"], ticket),
        _t("create_ticket", "POST", "/tickets", {"subject": S}, ["subject"], ticket),
        _t(
            "add_comment",
            "POST",
            "/tickets/{ticket_id}/comments",
            {"ticket_id": tid, "body": S},
            ["ticket_id", "body"],
            comment,
        ),
    ]
    spec = _spec(tools, "helpdesk")
    env = _env(spec)
    row = env.dump()["tickets"][0]
    assert env.step("add_comment", {"ticket_id": row["ticket_id"], "body": "Any news?"})["ok"]
    after = env.step("get_ticket", {"ticket_id": row["ticket_id"]})["result"]
    assert after["num_comments"] == row["num_comments"] + 1
    assert after["updated_at"] != row["updated_at"] and after["subject"] == row["subject"]
    assert env.step("create_ticket", {"subject": "Printer"})["result"]["num_comments"] == 0


def test_a_child_created_under_its_parent_stamps_the_parents_last_change_by_the_apis_own_name():
    """YNAB's budgets say when they last changed in `last_modified_on` ("the last time any changes were made to
    the budget"): creating an account under `/budgets/{budget_id}/accounts` moves it, and nothing else."""
    budget = {"type": "object", "properties": {"budget_id": S, "name": S, "last_modified_on": S}}
    account = {"type": "object", "properties": {"account_id": S, "budget_id": S, "name": S}}
    bid = _path(S)
    tools = [
        _t("getBudgetById", "GET", "/budgets/{budget_id}", {"budget_id": bid}, ["budget_id"], budget),
        _t(
            "createAccount",
            "POST",
            "/budgets/{budget_id}/accounts",
            {"budget_id": bid, "name": S},
            ["budget_id", "name"],
            account,
        ),
    ]
    spec = _spec(tools, "budgeting")
    assert ("createAccount", "budgets") in multi_table_effects(spec)
    env = _env(spec)
    row = env.dump()["budgets"][0]
    assert env.step("createAccount", {"budget_id": row["budget_id"], "name": "Savings"})["ok"]
    after = env.step("getBudgetById", {"budget_id": row["budget_id"]})["result"]
    assert after["last_modified_on"] != row["last_modified_on"] and after["name"] == row["name"]


def test_archiving_a_parent_archives_the_children_that_cannot_live_without_it():
    state = {"type": "string", "enum": ["active", "archived"]}
    project = {"type": "object", "properties": {"project_id": S, "name": S, "status": state}}
    task = {"type": "object", "properties": {"task_id": S, "project_id": S, "title": S, "status": state}}
    pid = _path(S)
    tools = [
        {  # a delete that says it archives (a plain delete deletes)
            **_t("delete_project", "DELETE", "/projects/{project_id}", {"project_id": pid}, ["project_id"]),
            "description": "Archive a project: it is kept, read-only.",
        },
        _t("get_project", "GET", "/projects/{project_id}", {"project_id": pid}, ["project_id"], project),
        _t(
            "create_task",
            "POST",
            "/projects/{project_id}/tasks",
            {"project_id": pid, "title": S},
            ["project_id", "title"],
            task,
        ),
        _t(
            "list_tasks",
            "GET",
            "/projects/{project_id}/tasks",
            {"project_id": pid},
            ["project_id"],
            {"type": "array", "items": task},
        ),
    ]
    spec = _spec(tools, "projects")
    op = next(t for t in spec["tools"] if t["name"] == "delete_project")["operation"]
    assert op["type"] == "update" and op["fixed"] == {"status": "archived"}  # a delete that retires
    env = _env(spec)
    project_id = next(
        t["project_id"]
        for t in env.dump()["tasks"]
        if t["project_id"]
        and t["status"] == "active"
        and next(p for p in env.dump()["projects"] if p["project_id"] == t["project_id"])["status"]
        == "active"
    )
    assert env.step("delete_project", {"project_id": project_id})["ok"]
    assert {t["status"] for t in env.dump()["tasks"] if t["project_id"] == project_id} == {"archived"}
    assert verify(spec, semantic=False) == []


@pytest.mark.parametrize(
    ("name", "table", "deletes"),
    [
        ("user_api_delete_managed_user", "users", True),
        ("filesDelete", "files", True),
        ("remove_team_from_user", "users", False),  # removes a team, whatever row infer addressed
        ("user_api_UserApi_remove_team_from_user", "users", False),
        ("delete_user_tags_by_tag_id_shows_by_show_id", "shows", False),  # takes a show off a tag
        ("delete_consumer_v1_customers_by_id", "customers", True),
        ("collectionTicketsDelete", "tickets", True),
        ("tasks_tasklists_delete", "lists", True),  # a compound noun ending with the entity
        ("tasks_tasks_clear", "lists", False),
        ("cancelBooking", "bookings", False),
    ],
)
def test_deletes_its_row(name, table, deletes):
    assert deletes_its_row({"name": name}, table) is deletes


def test_children_go_only_with_a_parent_the_tool_means_to_delete():
    tools = _list_tools()
    tools[2] = {**tools[2], "name": "clear_list", "original_name": "clear_list"}
    spec = _spec(tools)
    assert next(t for t in spec["tools"] if t["name"] == "clear_list")["operation"]["type"] == "delete"
    assert (
        multi_table_effects(spec) == []
    )  # `clear` empties a list in the API's words, it does not delete one


def test_only_a_parent_the_tool_means_to_delete_retires_its_children():
    state = {"type": "string", "enum": ["active", "archived"]}
    spec = {
        "name": "p",
        "tables": {
            "projects": {"primary_key": "project_id", "columns": {"project_id": S, "status": state}},
            "tasks": {
                "primary_key": "task_id",
                "columns": {"task_id": S, "project_id": {**S, "references": "projects"}, "status": state},
            },
        },
        "tools": [
            {
                "name": "create_task",
                "kind": "write",
                "parameters": {"type": "object", "properties": {"project_id": S}, "required": ["project_id"]},
                "operation": {
                    "type": "insert",
                    "table": "tasks",
                    "values": {"project_id": "project_id"},
                    "generate": {"task_id": "id"},
                },
            },
            {
                "name": "hide_project_tasks",  # infer read a delete, but the name deletes no project
                "kind": "write",
                "metadata": {"effect": "delete"},
                "parameters": {"type": "object", "properties": {"project_id": S}, "required": ["project_id"]},
                "operation": {
                    "type": "update",
                    "table": "projects",
                    "key": {"project_id": "project_id"},
                    "fixed": {"status": "archived"},
                },
            },
        ],
    }
    assert multi_table_effects(add_effects(spec)) == []
    spec["tools"][1]["name"] = "delete_project"
    assert multi_table_effects(add_effects(spec)) == [("delete_project", "tasks")]


def test_a_stock_left_out_of_a_create_starts_at_zero_whatever_its_binding():
    spec = {
        "name": "s",
        "tables": {
            "products": {
                "primary_key": "product_id",
                "columns": {"product_id": S, "stock": {**I, "nullable": True}},
            },
            "orders": {
                "primary_key": "order_id",
                "columns": {"order_id": S, "product_id": {**S, "references": "products"}, "quantity": I},
            },
        },
        "tools": [
            {
                "name": "create_product",
                "kind": "write",
                "parameters": {"type": "object", "properties": {"stock": I}, "required": []},
                "operation": {
                    "type": "insert",
                    "table": "products",
                    "values": {"stock": {"arg": "stock"}},
                    "generate": {"product_id": "id"},
                },
            },
            {
                "name": "create_order",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"product_id": S, "quantity": I},
                    "required": ["product_id", "quantity"],
                },
                "operation": {
                    "type": "insert",
                    "table": "orders",
                    "values": {"product_id": "product_id", "quantity": "quantity"},
                    "generate": {"order_id": "id"},
                },
            },
        ],
    }
    spec = add_effects(spec)
    validate_spec(spec)
    with Environment(spec) as env:
        env.reset()
        assert env.step("create_product", {})["result"]["stock"] == 0
        assert env.step("create_product", {"stock": 4})["result"]["stock"] == 4


_STAY_STATES = {"type": "string", "enum": ["Tentative", "Guaranteed", "InHouse", "CheckedOut", "Cancelled"]}


def _stay_tools():
    reservation = {"type": "object", "properties": {"reservation_id": S, "reservation_status": _STAY_STATES}}
    rid = {"reservation_id": _path(S)}
    check_in = _t(
        "Bookings_CheckIn",
        "POST",
        "/reservations/{reservation_id}/actions/checkin",
        {**rid, "client_identity": S},
        ["reservation_id"],
    )
    check_in["description"] = (
        "Performs a check in. With this call you can set a reservation to the status inhouse."
    )
    check_out = _t(
        "Bookings_CheckOut",
        "POST",
        "/reservations/{reservation_id}/actions/checkout",
        {**rid, "client_identity": S},
        ["reservation_id"],
    )
    check_out["description"] = (
        "Performs a check out. With this call you can set a reservation to the checkout status."
    )
    return [
        _t("get_reservation", "GET", "/reservations/{reservation_id}", rid, ["reservation_id"], reservation),
        _t("create_reservation", "POST", "/reservations", {}, [], reservation),
        check_in,
        check_out,
    ]


def test_a_call_whose_description_sets_its_parents_status_sets_it_in_the_apis_order():
    spec = _spec(_stay_tools(), rows=30)
    assert {("Bookings_CheckIn", "reservations"), ("Bookings_CheckOut", "reservations")} <= set(
        multi_table_effects(spec)
    )
    env = _env(spec)
    rows = env.dump()["reservations"]
    booked = next(r for r in rows if r["reservation_status"] in ("Tentative", "Guaranteed"))
    key = {"reservation_id": booked["reservation_id"]}
    before = env.state_hash()
    obs = env.step("Bookings_CheckOut", key)  # not checked in yet: the API checks out only what it checked in
    assert not obs["ok"] and obs["code"] == "invalid_state" and "cannot be CheckedOut" in obs["error"]
    assert env.state_hash() == before
    assert env.step("Bookings_CheckIn", key)["ok"]
    assert env.step("get_reservation", key)["result"]["reservation_status"] == "InHouse"
    assert env.step("Bookings_CheckOut", key)["ok"]
    assert env.step("get_reservation", key)["result"]["reservation_status"] == "CheckedOut"
    gone = next(r for r in rows if r["reservation_status"] == "Cancelled")
    obs = env.step("Bookings_CheckIn", {"reservation_id": gone["reservation_id"]})
    assert not obs["ok"] and "cannot be InHouse" in obs["error"]
    assert verify(spec, semantic=False) == []


def test_a_status_named_without_a_set_verb_or_its_parent_is_not_an_effect():
    tools = _stay_tools()
    tools[2]["description"] = "Performs a check in. The reservation must have the status inhouse afterwards."
    tools[3]["description"] = "Performs a check out of the room in checkout status."
    assert multi_table_effects(_spec(tools, rows=30)) == []


def _card_tools(name="purchase_insurance"):
    card = {"type": "object", "properties": {"card_id": S, "card_number": S, "balance": {"type": "number"}}}
    insurance = {
        "type": "object",
        "properties": {
            "insurance_id": S,
            "card_id": S,
            "insurance_type": S,
            "insurance_cost": {"type": "number"},
        },
    }
    return [
        _t("register_card", "POST", "/cards", {"card_number": S}, ["card_number"], card),
        _t("get_card", "GET", "/cards/{card_id}", {"card_id": _path(S)}, ["card_id"], card),
        _t(
            name,
            "POST",
            "/insurances",
            {"card_id": S, "insurance_type": S, "insurance_cost": {"type": "number"}},
            ["card_id", "insurance_type", "insurance_cost"],
            insurance,
        ),
    ]


def test_a_purchase_paid_with_a_card_takes_its_cost_off_the_card_balance_never_below_zero():
    spec = _spec(_card_tools())
    assert multi_table_effects(spec) == [("purchase_insurance", "cards")]
    env = _env(spec)
    card = env.dump()["cards"][0]
    assert isinstance(card["balance"], (int, float))
    args = {"card_id": card["card_id"], "insurance_type": "travel"}
    assert env.step("purchase_insurance", {**args, "insurance_cost": 10.5})["ok"]
    after = env.step("get_card", {"card_id": card["card_id"]})["result"]
    assert after["balance"] == pytest.approx(card["balance"] - 10.5)
    before = env.state_hash()
    obs = env.step("purchase_insurance", {**args, "insurance_cost": after["balance"] + 1})
    assert (
        not obs["ok"] and obs["code"] == "invalid_state" and "not enough balance on this card" in obs["error"]
    )
    assert env.state_hash() == before
    new = env.step("register_card", {"card_number": "4111"})["result"]
    assert new["balance"] == 0  # a card registered without a balance has nothing to spend
    assert verify(spec, semantic=False) == []


def test_only_a_purchase_draws_on_a_balance():
    assert multi_table_effects(_spec(_card_tools("add_insurance_note"))) == []


def test_the_verifier_names_a_parent_the_effects_guard_lets_through():
    # twelve statuses, one of which a check-out accepts: a reservation drawn at random is refused most times
    many = [f"Stage{n}" for n in range(9)] + ["InHouse", "CheckedOut", "Cancelled"]
    tools = _stay_tools()
    tools[0]["output_schema"]["properties"]["reservation_status"] = {"type": "string", "enum": many}
    tools[1]["output_schema"]["properties"]["reservation_status"] = {"type": "string", "enum": many}
    spec = _spec(tools, rows=40)
    effect = next(t for t in spec["tools"] if t["name"] == "Bookings_CheckOut")["operation"]["effects"][0]
    assert effect["guards"][0]["check"]["in"][1] == {"value": ["InHouse"]}
    assert verify(spec, semantic=False, calls_per_tool=10) == []  # each call draws again 8 times at most


def _posting_tools(description="Post a tweet for the authenticated user."):
    user = {"type": "object", "properties": {"username": S, "tweet_count": I}}
    account = {
        "type": "object",
        "properties": {"account_id": S, "username": S, "logged_in": {"type": "boolean"}},
    }
    tweet = {"type": "object", "properties": {"tweet_id": I, "username": S, "content": S}}
    post = _t("post_tweet", "POST", "/tweets", {"content": S}, ["content"], tweet)
    post["description"] = description
    return [
        _t("get_user", "GET", "/users/{username}", {"username": _path(S)}, ["username"], user),
        _t("get_account", "GET", "/account", {}, [], account),
        _t("get_tweet", "GET", "/tweets/{tweet_id}", {"tweet_id": _path(I)}, ["tweet_id"], tweet),
        post,
    ]


def test_a_post_for_the_authenticated_user_is_theirs_and_counts_in_their_row():
    spec = _spec(_posting_tools())
    if (spec.get("session") or {}).get("table") != "accounts":
        pytest.skip("the inference gave no session account")
    assert ("post_tweet", "users") in multi_table_effects(spec)
    env = _env(spec)
    me = env.session()["username"]
    before = env.step("get_user", {"username": me})["result"]["tweet_count"]
    tweet = env.step("post_tweet", {"content": "hello"})["result"]
    assert tweet["username"] == me
    assert env.step("get_user", {"username": me})["result"]["tweet_count"] == before + 1
    assert verify(spec, semantic=False) == []


def test_a_post_not_said_to_be_the_callers_names_no_author():
    spec = _spec(_posting_tools("Post a tweet."))
    post = next(t for t in spec["tools"] if t["name"] == "post_tweet")
    assert "username" not in post["operation"]["values"]
    assert multi_table_effects(spec) == []


def test_a_deleted_child_leaves_its_parents_count():
    tools = _posting_tools()  # the delete listed before the create that names the caller
    tools.insert(0, _t("delete_tweet", "DELETE", "/tweets/{tweet_id}", {"tweet_id": _path(I)}, ["tweet_id"]))
    spec = _spec(tools)
    assert ("delete_tweet", "users") in multi_table_effects(spec)
    env = _env(spec)
    me = env.session()["username"]
    before = env.step("get_user", {"username": me})["result"]["tweet_count"]
    tweet = env.step("post_tweet", {"content": "hello"})["result"]
    assert env.step("delete_tweet", {"tweet_id": tweet["tweet_id"]})["ok"]
    assert env.step("get_user", {"username": me})["result"]["tweet_count"] == before
    assert verify(spec, semantic=False) == []


def test_an_update_that_could_only_store_its_own_verb_is_left_out_with_its_reason():
    """fire.com's `updateMandateAlias` was materialised as "sets mandate_alias = 'update'" (a blind reader of the
    world): an update that changes nothing but a column set to its verb is left out, with its reason; a status
    change is kept."""
    from envscale.materialize.build import verb_writes

    def update(name, fixed, **op):
        return {
            "name": name,
            "kind": "write",
            "parameters": {"type": "object", "properties": {"id": S}, "required": ["id"]},
            "operation": {
                "type": "update",
                "table": "mandates",
                "key": {"mandate_id": "id"},
                "fixed": fixed,
                **op,
            },
        }

    spec = {
        "tools": [
            update("updateMandateAlias", {"mandate_alias": "update"}),
            update("cancelMandate", {"status": "cancelled"}),
            update("renameMandate", {"mandate_alias": "update"}, set={"alias": "alias"}),
        ]
    }
    out = verb_writes(spec)
    assert [x["tool"] for x in out] == ["updateMandateAlias"]
    assert "writes 'update' into mandate_alias" in out[0]["reason"]
    assert [t["name"] for t in spec["tools"]] == ["cancelMandate", "renameMandate"]


def test_a_payment_marks_its_invoice_paid_in_the_apis_own_spelling():
    """A credit API's "Mark an invoice as Paid" (`MarkaninvoiceasPaid`) inserts a payment: seed 84's readers found
    the invoice still Open. Its statuses are `Paid`, `Cancelled`, `Open` (capitalised, in no order): the payment
    sets `Paid`, and a cancelled invoice takes no payment."""
    state = {"type": "string", "enum": ["Paid", "Cancelled", "Open"]}
    invoice = {"type": "object", "properties": {"invoice_id": S, "value": I, "status": state}}
    payment = {"type": "object", "properties": {"payment_id": S, "invoice_id": S, "value": I}}
    iid = _path(S)
    tools = [
        _t("RetrieveInvoice", "GET", "/invoices/{invoice_id}", {"invoice_id": iid}, ["invoice_id"], invoice),
        _t("CreateInvoice", "POST", "/invoices", {"value": I}, ["value"], invoice),
        _t(
            "MarkaninvoiceasPaid", "POST", "/payments", {"invoice_id": S, "value": I}, ["invoice_id"], payment
        ),
        _t("GetPayment", "GET", "/payments/{payment_id}", {"payment_id": _path(S)}, ["payment_id"], payment),
    ]
    spec = _spec(tools, rows=20)
    assert ("MarkaninvoiceasPaid", "invoices") in multi_table_effects(spec)
    env = _env(spec)
    rows = env.dump()["invoices"]
    open_ = next(r for r in rows if r["status"] == "Open")
    assert env.step("MarkaninvoiceasPaid", {"invoice_id": open_["invoice_id"], "value": 10})["ok"]
    assert env.step("RetrieveInvoice", {"invoice_id": open_["invoice_id"]})["result"]["status"] == "Paid"
    cancelled = next(r for r in rows if r["status"] == "Cancelled")
    assert not env.step("MarkaninvoiceasPaid", {"invoice_id": cancelled["invoice_id"], "value": 10})["ok"]


def test_setting_a_groups_icon_replaces_the_one_before():
    """Seed 91's readers: WhatsApp's `SetGroupIcon` appended icons, so a group held several. A thing its parent has
    one of, set again, replaces the one before; other groups keep theirs."""
    group = {"type": "object", "properties": {"group_id": S, "subject": S}}
    icon = {"type": "object", "properties": {"icon_id": S, "group_id": S, "file": S}}
    tools = [
        _t("CreateGroup", "POST", "/groups", {"subject": S}, ["subject"], group),
        _t("GetAllGroups", "GET", "/groups", {}, [], {"type": "array", "items": group}),
        _t(
            "SetGroupIcon",
            "POST",
            "/groups/{group_id}/icon",
            {"group_id": _path(S), "file": S},
            ["group_id", "file"],
            icon,
        ),
        _t("GetGroupIcon", "GET", "/groups/{group_id}/icon", {"group_id": _path(S)}, ["group_id"], icon),
    ]
    spec = _spec(tools, name="chat")
    env = _env(spec)
    groups = [g["group_id"] for g in env.dump()["groups"]]
    others = {g: [i for i in env.dump()["icons"] if i["group_id"] == g] for g in groups[1:]}
    for file in ("a.png", "b.png"):
        obs = env.step("SetGroupIcon", {"group_id": groups[0], "file": file})
        assert obs["ok"], obs
    mine = [i for i in env.dump()["icons"] if i["group_id"] == groups[0]]
    assert [i["file"] for i in mine] == ["b.png"], mine
    assert {g: [i for i in env.dump()["icons"] if i["group_id"] == g] for g in groups[1:]} == others
    assert verify(spec, semantic=False) == []


def test_a_post_that_overwrites_a_row_s_tags_replaces_them():
    """Pendo's `POST /features/{id}/tags`, "Overwrite current custom Feature tags with the given tags", appended a tag
    row to those before (seed 93's readers). A create its description says overwrites replaces the parent's rows."""
    feature = {"type": "object", "properties": {"feature_id": S, "title": S}}
    tag = {"type": "object", "properties": {"tag_id": S, "feature_id": S, "tag": S}}
    post = _t(
        "post_features_by_id_tags",
        "POST",
        "/features/{feature_id}/tags",
        {"feature_id": _path(S), "tag": S},
        ["feature_id", "tag"],
        tag,
    )
    post["description"] = "Overwrite current custom Feature tags with the given tags"
    tools = [
        _t("get_features", "GET", "/features", {}, [], {"type": "array", "items": feature}),
        _t(
            "get_features_by_id",
            "GET",
            "/features/{feature_id}",
            {"feature_id": _path(S)},
            ["feature_id"],
            feature,
        ),
        post,
        _t(
            "get_features_by_id_tags",
            "GET",
            "/features/{feature_id}/tags",
            {"feature_id": _path(S)},
            ["feature_id"],
            {"type": "array", "items": tag},
        ),
    ]
    spec = _spec(tools, name="feedback")
    env = _env(spec)
    features = [f["feature_id"] for f in env.dump()["features"]]
    for value in ("beta", "priority"):
        assert env.step("post_features_by_id_tags", {"feature_id": features[0], "tag": value})["ok"]
    mine = [t["tag"] for t in env.dump()["tags"] if t["feature_id"] == features[0]]
    assert mine == ["priority"], mine
    # Pendo's own: the feature id a number in the route, the row's key a string (no reference ties them)
    post["parameters"]["properties"]["feature_id"] = _path({"type": "number"})
    spec = _spec(tools, name="feedback")
    op = next(t for t in spec["tools"] if t["name"] == "post_features_by_id_tags")["operation"]
    assert any(e["type"] == "delete" and e["table"] == "tags" for e in op.get("effects") or []), op


def test_an_ended_campaign_is_not_resumed():
    """Seed 93's readers: a campaign whose status was `ended` was "resumed" (ended -> active), "a transition a real
    ads API would refuse". Resuming undoes a pause; a paused campaign resumes, an ended one is refused."""
    campaign = {
        "type": "object",
        "properties": {
            "campaign_id": S,
            "name": S,
            "status": {"type": "string", "enum": ["active", "paused", "ended"]},
        },
    }
    tools = [
        _t("list_campaigns", "GET", "/campaigns", {}, [], {"type": "array", "items": campaign}),
        _t(
            "get_campaign",
            "GET",
            "/campaigns/{campaign_id}",
            {"campaign_id": _path(S)},
            ["campaign_id"],
            campaign,
        ),
        _t(
            "pause_campaign",
            "POST",
            "/campaigns/{campaign_id}/pause",
            {"campaign_id": _path(S)},
            ["campaign_id"],
            campaign,
        ),
        _t(
            "resume_campaign",
            "POST",
            "/campaigns/{campaign_id}/resume",
            {"campaign_id": _path(S)},
            ["campaign_id"],
            campaign,
        ),
    ]
    spec = _spec(tools, name="ads")
    env = _env(spec)
    rows = env.dump()["campaigns"]
    ended = next((r for r in rows if r["status"] == "ended"), None)
    paused = next((r for r in rows if r["status"] == "paused"), None)
    assert ended is not None and paused is not None, rows
    assert not env.step("resume_campaign", {"campaign_id": ended["campaign_id"]})["ok"]
    assert env.step("resume_campaign", {"campaign_id": paused["campaign_id"]})["ok"]
