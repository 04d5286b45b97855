"""Entities resolved: a key naming an entity the environment has under another name references that
entity's table (`parent_folder_id` -> folders, `receiver_id` -> users), and a table made for a key no tool
acts on holds what the API's own schemas say of it (a name at least), never the key alone."""

import re

import pytest
from apitools import api_tool

from envscale.env import Environment, validate_spec
from envscale.materialize.infer import described_fields, infer_spec, output_fields
from envscale.materialize.verify import verify
from envscale.words.semantics import person_entity, resolve_entity

_S = {"type": "string"}
_ID = {"type": "string", "x-in": "path"}
_I = {"type": "integer"}


def _spec(tools, name="files"):
    spec = infer_spec(
        {"domain_id": 0, "name": name, "groups": {"Files API": len(tools)}}, tools, rows=5, seed=0
    )
    validate_spec(spec.spec)
    return spec.spec


def _file_tools():
    file_ = {"type": "object", "properties": {"id": _S, "name": _S, "parent_folder_id": _S}}
    folder = {"type": "object", "properties": {"id": _S, "name": _S}}
    return [
        api_tool("foldersAdd", "POST", "/folders", {"name": _S}, ["name"], folder, group="Files API"),
        api_tool("foldersAll", "GET", "/folders", {}, [], folder, group="Files API"),
        api_tool("filesOne", "GET", "/files/{id}", {"id": _ID}, ["id"], file_, group="Files API"),
        api_tool(
            "filesUpdate",
            "PATCH",
            "/files/{id}",
            {"id": _ID, "name": _S, "parent_folder_id": _S},
            ["id"],
            file_,
            group="Files API",
        ),
        api_tool("filesAll", "GET", "/files", {}, [], file_, group="Files API"),
    ]


def test_a_qualified_key_names_the_entity_after_its_qualifiers():
    assert resolve_entity("parent_folder", {"folder", "file"}) == "folder"
    assert resolve_entity("destination_account", {"account"}) == "account"
    assert resolve_entity("parent_folder", {"directory", "file"}) == "directory"  # a synonym
    assert resolve_entity("design", {"project"}) == "design"  # nothing fits: unchanged
    assert resolve_entity("folder", {"folder"}) == "folder"


def test_a_person_role_names_the_environment_s_person_entity():
    known = {"message", "contact"}
    assert person_entity(known) == "contact"
    assert resolve_entity("receiver", known, person="contact") == "contact"
    assert resolve_entity("new_owner", known, person="contact") == "contact"
    assert resolve_entity("receiver", known) == "receiver"  # no person entity: unchanged
    assert resolve_entity("owner", {"owner", "contact"}, person="contact") == "owner"  # its own entity wins


def test_moving_a_file_to_a_folder_references_the_folders_table():
    spec = _spec(_file_tools())
    assert "parent_folders" not in spec["tables"]
    assert spec["tables"]["files"]["columns"]["parent_folder_id"]["references"] == "folders"
    env = Environment(spec)
    env.reset()
    state = env.dump()
    file_id, folder_id = state["files"][0]["file_id"], state["folders"][-1]["folder_id"]
    out = env.step("filesUpdate", {"id": file_id, "parent_folder_id": folder_id})
    assert out["ok"], out
    assert env.step("filesOne", {"id": file_id})["result"]["parent_folder_id"] == folder_id


def test_messaging_a_receiver_references_the_users_table():
    tools = [
        {
            "id": f"t{i}",
            "name": name,
            "description": desc,
            "parameters": {"type": "object", "properties": props, "required": list(props)},
        }
        for i, (name, desc, props) in enumerate(
            [
                ("add_user", "Add a user.", {"user_name": _S}),
                ("list_users", "List all users.", {}),
                ("send_message", "Send a message to a user.", {"receiver_id": _S, "message": _S}),
                ("delete_message", "Delete a message.", {"message_id": _S}),
            ]
        )
    ]
    spec = infer_spec(
        {"domain_id": 0, "name": "msg", "groups": {"Message API": 4}}, tools, rows=5, seed=0
    ).spec
    validate_spec(spec)
    assert "receivers" not in spec["tables"]
    assert spec["tables"]["messages"]["columns"]["receiver_id"]["references"] == "users"


def test_a_table_no_tool_acts_on_holds_what_the_schemas_say_of_its_entity():
    order = {
        "type": "object",
        "properties": {
            "id": _S,
            "customer_id": _S,
            "customer_name": _S,
            "customerEmail": _S,
            "hotel_id": _S,
            "total": {"type": "number"},
        },
    }
    tools = [
        api_tool("ordersAdd", "POST", "/orders", {"customer_id": _S, "hotel_id": _S}, ["customer_id"], order),
        api_tool("ordersOne", "GET", "/orders/{id}", {"id": _ID}, ["id"], order),
        api_tool("ordersAll", "GET", "/orders", {}, [], order),
    ]
    spec = _spec(tools, "orders")
    customers = spec["tables"]["customers"]["columns"]
    assert {"name", "email"} <= set(customers) and customers["name"]["type"] == "string"
    hotels = spec["tables"]["hotels"]["columns"]  # the API says nothing of hotels: a name to know it by
    assert set(hotels) == {"hotel_id", "name"}
    env = Environment(spec)
    env.reset()
    assert all(row["name"] for row in env.dump()["customers"])


def test_described_fields_read_named_objects_and_flattened_fields_but_never_keys_or_numbered_twins():
    schemas = [
        {
            "properties": {
                "organizer": {"type": "object", "properties": {"email": _S, "organizer_key": _S, "id": _S}},
                "organizer_name": _S,
                "team_1": _S,
                "team_2": _S,
                "customer_id": _S,
            }
        }
    ]
    assert set(described_fields("organizer", schemas)) == {"email", "name"}
    assert described_fields("team", schemas) == {}


def _tool(name, desc, props, output=None):
    return {
        "id": name,
        "name": name,
        "description": desc,
        "parameters": {"type": "object", "properties": props, "required": list(props)},
        "output_schema": output,
    }


def test_the_session_row_answers_only_reads_of_the_caller_s_own_data():
    article = {"type": "object", "properties": {"id": {"type": "integer"}, "title": _S}}
    comment = {"type": "object", "properties": {"body_html": _S, "article_id": {"type": "integer"}}}
    tools = [
        _tool("createArticle", "Create an article.", {"title": _S}, article),
        _tool("getArticleById", "Get an article.", {"article_id": {"type": "integer"}}, article),
        _tool(
            "getCommentsByArticleId", "Comments of an article.", {"article_id": {"type": "integer"}}, comment
        ),
        _tool(
            "retrieve_invoice", "Retrieve the invoice.", {}, {"type": "object", "properties": {"total": _S}}
        ),
        _tool("getMyProfile", "The caller's profile.", {}, {"type": "object", "properties": {"email": _S}}),
        _tool("getTaxSettings", "The tax settings.", {}, {"type": "object", "properties": {"vat": _S}}),
        _tool("getTags", "The tags.", {}),
    ]
    spec = infer_spec({"domain_id": 0, "name": "blog", "groups": {"Blog API": 6}}, tools, rows=5, seed=0).spec
    validate_spec(spec)
    ops = {t["name"]: t["operation"] for t in spec["tools"]}
    session = spec["session"]["table"]
    assert (
        ops["getCommentsByArticleId"]["table"] == "comments"
        and ops["getCommentsByArticleId"]["type"] == "list"
    )
    assert {"column": "article_id", "arg": "article_id", "op": "eq"} in ops["getCommentsByArticleId"][
        "filters"
    ]
    assert spec["tables"]["comments"]["columns"]["article_id"]["references"] == "articles"
    assert ops["retrieve_invoice"]["table"] == "invoices" and ops["retrieve_invoice"]["type"] == "list"
    # a read that says nothing of its rows: a name to know them by
    assert set(spec["tables"]["tags"]["columns"]) == {"tag_id", "name"}
    for own in ("getMyProfile", "getTaxSettings"):
        assert ops[own]["table"] == session and ops[own]["key"] == {"account_id": {"session": "account_id"}}
    meta = {t["name"]: t["metadata"]["entity"] for t in spec["tools"]}
    assert meta["getTaxSettings"] == "account"  # the account's settings, read from the account row
    env = Environment(spec)
    env.reset()
    article_id = env.dump()["comments"][0]["article_id"]
    rows = env.step("getCommentsByArticleId", {"article_id": article_id})["result"]
    assert rows and all(r["article_id"] == article_id for r in rows)


def test_every_keyless_read_of_a_controlled_device_reads_the_device():
    tools = [
        _tool("startEngine", "Start the engine.", {"mode": _S}),
        _tool(
            "check_tire_pressure",
            "Check the tire pressure.",
            {},
            {"type": "object", "properties": {"psi": _S}},
        ),
    ]
    spec = infer_spec(
        {"domain_id": 0, "name": "car", "groups": {"Vehicle Control": 2}}, tools, rows=5, seed=0
    ).spec
    read = next(t for t in spec["tools"] if t["name"] == "check_tire_pressure")
    assert read["operation"]["table"] == spec["session"]["table"] == "vehicles"
    assert read["metadata"]["entity"] == "vehicle"


def test_a_post_to_an_existing_resource_s_path_updates_it_and_never_inserts():
    service = {
        "type": "object",
        "properties": {
            "sid": _S,
            "friendly_name": _S,
            "meta": {"type": "object"},
            "links": {"type": "object"},
        },
    }
    page = {
        "type": "object",
        "properties": {
            "services": {"type": "array", "items": service},
            "meta": {"type": "object", "properties": {"page_size": {"type": "integer"}, "next_page_url": _S}},
        },
    }
    sid = {"type": "string", "x-in": "path"}
    tools = [
        api_tool("CreateService", "POST", "/v1/Services", {"FriendlyName": _S}, ["FriendlyName"], service),
        api_tool("FetchService", "GET", "/v1/Services/{Sid}", {"Sid": sid}, ["Sid"], service),
        api_tool(
            "UpdateService", "POST", "/v1/Services/{Sid}", {"Sid": sid, "FriendlyName": _S}, ["Sid"], service
        ),
        api_tool("ListService", "GET", "/v1/Services", {"PageSize": {"type": "integer"}}, [], page),
    ]
    spec = _spec(tools, "twilio")
    ops = {t["name"]: t["operation"] for t in spec["tools"]}
    assert ops["UpdateService"]["type"] == "update" and ops["UpdateService"]["table"] == "services"
    assert {op["table"] for op in ops.values()} == {"services"}  # one table per resource
    # pagination and envelope fields are never columns
    columns = set(spec["tables"]["services"]["columns"])
    assert not columns & {"meta", "links", "page_size", "next_page_url", "services"}, columns
    env = Environment(spec)
    env.reset()
    before = len(env.dump()["services"])
    service_id = env.dump()["services"][0]["service_id"]
    assert env.step("UpdateService", {"Sid": service_id, "FriendlyName": "Alerts"})["ok"]
    assert len(env.dump()["services"]) == before
    assert env.step("FetchService", {"Sid": service_id})["result"]["friendly_name"] == "Alerts"


def test_a_response_envelope_is_unwrapped_to_the_row_it_carries():
    from envscale.materialize.infer import output_fields

    envelope = {
        "properties": {
            "status_code": {"type": "integer"},
            "status": _S,
            "service": _S,
            "resource": _S,
            "operation": _S,
            "data": {"type": "object", "properties": {"id": _S, "name": _S}},
        }
    }
    assert set(output_fields(envelope)) == {"id", "name"}
    # Billingo's `ProductList`: a Laravel page around the rows (current_page, last_page, total ...)
    laravel = {
        "properties": {
            "current_page": _I,
            "data": {"type": "array", "items": {"properties": {"id": _I, "name": _S, "vat": _S}}},
            "last_page": _I,
            "next_page_url": _S,
            "per_page": _I,
            "prev_page_url": _S,
            "total": _I,
        }
    }
    assert set(output_fields(laravel)) == {"id", "name", "vat"}
    row = {
        "properties": {"status": _S, "line_items": {"type": "array", "items": {"properties": {"sku": _S}}}}
    }
    assert set(output_fields(row)) == {"status", "line_items"}  # a row's own status and list stay
    # Azure's and OData's list `{value: [...], nextLink}` (an Automation variable had `value` and `next_link`
    # columns, and openapi-sample tasks asked for "the next link of the namespace"), AWS's `{Items: [...], NextToken}`
    arm = {
        "properties": {
            "nextLink": _S,
            "value": {"type": "array", "items": {"properties": {"id": _S, "name": _S, "description": _S}}},
        }
    }
    assert set(output_fields(arm)) == {"id", "name", "description"}
    odata = {"properties": {"@odata.nextLink": _S, "@odata.count": _I, "id": _S, "name": _S}}
    assert set(output_fields(odata)) == {"id", "name"}
    aws = {"properties": {"NextToken": _S, "Items": {"type": "array", "items": {"properties": {"Arn": _S}}}}}
    assert set(output_fields(aws)) == {"Arn"}
    # the recipe API's `{ResultCount, Results: [...]}` (seed 93's readers: `result_count` and `results` columns)
    recipes = {
        "properties": {"ResultCount": _I, "Results": {"type": "array", "items": {"properties": {"Id": _S}}}}
    }
    assert set(output_fields(recipes)) == {"Id"}
    pair = {"properties": {"name": _S, "value": {"type": "object", "properties": {"x": _S}}}}
    assert set(output_fields(pair)) == {"name", "value"}  # a row of a name and its value stays one
    # Billbee's envelope: how the call went (paging, error code and text) around the customer it returns
    billbee = {
        "properties": {
            "Paging": {"type": "object", "properties": {"Page": _I, "TotalPages": _I}},
            "ErrorMessage": _S,
            "ErrorCode": _I,
            "ErrorDescription": _S,
            "Data": {"type": "object", "properties": {"Id": _I, "Name": _S, "Email": _S}},
        }
    }
    assert set(output_fields(billbee)) == {"Id", "Name", "Email"}
    # ExaVault's JSON:API page: `{responseStatus, returnedResults, data: [{id, type, attributes, relationships}],
    # included: [...]}`, whose email lists had the columns `data`, `included`, `response_status` and no name
    resource = {
        "properties": {
            "id": _I,
            "type": _S,
            "attributes": {
                "type": "object",
                "properties": {"name": _S, "emails": {"type": "array"}, "created": _S},
            },
            "relationships": {"type": "object", "properties": {"ownerUser": {"type": "object"}}},
        }
    }
    json_api = {
        "properties": {
            "responseStatus": _I,
            "returnedResults": _I,
            "data": {"type": "array", "items": resource},
            "included": {
                "type": "array",
                "items": {"properties": {"id": _I, "attributes": {"type": "object"}}},
            },
        }
    }
    assert set(output_fields(json_api)) == {"id", "name", "emails", "created", "ownerUser_id"}


def _doc_tools():
    doc = {
        "type": "object",
        "properties": {
            "id": _S,
            "title": _S,
            "payment_status": {"type": "string", "enum": ["outstanding", "paid", "cancelled"]},
        },
    }
    return [
        api_tool("DocumentsAdd", "POST", "/documents", {"title": _S}, ["title"], doc, group="Docs API"),
        api_tool("DocumentsOne", "GET", "/documents/{id}", {"id": _ID}, ["id"], doc, group="Docs API"),
        api_tool("SendDocument", "POST", "/documents/{id}/send", {"id": _ID}, ["id"], group="Docs API"),
        api_tool("PayDocument", "POST", "/documents/{id}/pay", {"id": _ID}, ["id"], group="Docs API"),
        api_tool(
            "ActivateDocument", "POST", "/documents/{id}/activation", {"id": _ID}, ["id"], group="Docs API"
        ),
        api_tool("DocumentsDelete", "DELETE", "/documents/{id}", {"id": _ID}, ["id"], group="Docs API"),
    ]


def test_acts_change_the_row_they_act_on_and_never_insert_a_row_named_after_the_act():
    from envscale.words.semantics import act_on_row

    assert act_on_row(["orders", "{id}", "pay"], "pay")
    assert act_on_row(["users", "{id}", "lifecycle", "unsuspend"], "unsuspend")
    assert not act_on_row(["orders", "{id}", "payments"], "payment")  # a sub-resource
    assert not act_on_row(["collections", "merge"], "merge")  # no row before it
    spec = _spec(_doc_tools(), "docs")
    assert set(spec["tables"]) == {"documents"}  # no `sends`, `pays`, `activations`
    ops = {t["name"]: t["operation"] for t in spec["tools"]}
    assert ops["PayDocument"]["fixed"] == {"payment_status": "paid"}  # the status that holds `paid`
    assert ops["SendDocument"]["fixed"] == {"status": "sent"}  # its own status, never `payment_status`
    assert ops["ActivateDocument"]["fixed"] == {"status": "active"}
    env = Environment(spec)
    env.reset()
    doc_id = next(d["document_id"] for d in env.dump()["documents"] if d["status"] != "sent")
    assert env.step("SendDocument", {"id": doc_id})["ok"]
    row = env.step("DocumentsOne", {"id": doc_id})["result"]
    assert row["status"] == "sent"


def test_a_delete_retires_a_row_by_its_own_status_and_never_by_another_one():
    spec = _spec([t for t in _doc_tools() if t["name"] != "SendDocument" and "Activate" not in t["name"]])
    delete = next(t for t in spec["tools"] if t["name"] == "DocumentsDelete")["operation"]
    assert delete["type"] == "delete", delete  # `payment_status: cancelled` is not the document's own status


def test_the_status_an_act_changes_is_kept_even_in_a_table_at_its_column_limit():
    tools = [t for t in _doc_tools() if t["name"] in ("DocumentsAdd", "DocumentsOne", "SendDocument")]
    spec = infer_spec(
        {"domain_id": 0, "name": "d", "groups": {"Docs API": 3}}, tools, rows=5, seed=0, max_columns=3
    )
    assert next(t for t in spec.spec["tools"] if t["name"] == "SendDocument")["operation"]["fixed"] == {
        "status": "sent"
    }


def test_the_login_status_is_the_caller_s_own_data():
    tools = [
        _tool("create_ticket", "Create a ticket.", {"title": _S}),
        _tool("get_ticket", "Get a ticket.", {"ticket_id": {"type": "integer"}}),
        _tool("ticket_get_login_status", "Get the login status of the current user.", {}),
    ]
    spec = infer_spec({"domain_id": 0, "name": "t", "groups": {"Ticket API": 3}}, tools, rows=5, seed=0).spec
    read = next(t for t in spec["tools"] if t["name"] == "ticket_get_login_status")["operation"]
    assert read["table"] == spec["session"]["table"] and "logins" not in spec["tables"]


def test_moving_a_file_names_it_by_its_source_and_sets_the_directory_it_goes_to():
    tools = [
        _tool("touch", "Create a file in the current directory.", {"file_name": _S}),
        _tool("cat", "Display the contents of a file.", {"file_name": _S}),
        _tool("mkdir", "Create a directory.", {"dir_name": _S}),
        _tool("rmdir", "Remove a directory.", {"dir_name": _S}),
        _tool("mv", "Move a file to a directory.", {"source": _S, "destination": _S}),
        _tool("cp", "Copy a file to a directory.", {"source": _S, "destination": _S}),
    ]
    spec = infer_spec(
        {"domain_id": 0, "name": "fs", "groups": {"Gorilla File System": 5}}, tools, rows=5, seed=0
    )
    validate_spec(spec.spec)
    mv = next(t for t in spec.spec["tools"] if t["name"] == "mv")["operation"]
    pk = spec.spec["tables"]["files"]["primary_key"]
    assert mv["type"] == "update" and mv["key"] == {pk: "source"}
    assert mv["set"]["directory_id"] == "destination"
    assert "cp" not in {t["name"] for t in spec.spec["tools"]}  # a copy never moves the original
    assert spec.spec["tables"]["files"]["columns"]["directory_id"]["references"] == "directories"
    env = Environment(spec.spec)
    env.reset()
    state = env.dump()
    dpk = spec.spec["tables"]["directories"]["primary_key"]
    name, folder = state["files"][0][pk], state["directories"][-1][dpk]
    assert env.step("mv", {"source": name, "destination": folder})["ok"]
    assert env.dump()["files"][0]["directory_id"] == folder


def test_a_singleton_resource_is_one_row_that_its_update_changes():
    settings = {"type": "object", "properties": {"currency": _S, "retries": {"type": "integer"}}}
    tools = [
        api_tool("GetSettings", "GET", "/api/rns/settings", {}, [], settings),
        api_tool("EditSettings", "POST", "/api/rns/settings", {"currency": _S}, ["currency"], settings),
        api_tool("GetFeedConfiguration", "GET", "/api/orders/feed/config", {}, [], settings),
        api_tool(
            "FeedConfiguration", "POST", "/api/orders/feed/config", {"retries": {"type": "integer"}}, []
        ),
        api_tool("PlansAll", "GET", "/api/rns/plans", {}, [], {"type": "object", "properties": {"id": _S}}),
        api_tool("PlansAdd", "POST", "/api/rns/plans", {"name": _S}, ["name"]),
    ]
    spec = _spec(tools, "subs")
    ops = {t["name"]: t["operation"] for t in spec["tools"]}
    session = spec["session"]["table"]
    assert ops["EditSettings"]["type"] == "update" and ops["EditSettings"]["table"] == session
    assert ops["GetSettings"]["type"] == "get" and ops["GetSettings"]["table"] == session
    assert ops["FeedConfiguration"]["type"] == "update" and ops["GetFeedConfiguration"]["table"] == session
    assert not {"settings", "configs"} & set(spec["tables"])
    env = Environment(spec)
    env.reset()
    assert env.step("EditSettings", {"currency": "EUR"})["ok"]
    row = env.step("GetSettings", {})["result"]
    assert "EUR" in row.values() and len(env.dump()[session]) == 1


def test_a_parent_s_bare_route_id_is_stored_under_the_parent_s_key():
    """`/categories/{id}/transactions` and `/users/{id}/transactions` list transactions of a category and
    of a user: two filters on two columns, never one `id` column that makes them one read."""
    txn = {"type": "object", "properties": {"id": _S, "amount": {"type": "number"}}}
    ident_ = {"type": "object", "properties": {"id": _S, "name": _S}}
    tools = [
        api_tool("get_categories_by_id", "GET", "/categories/{id}", {"id": _ID}, ["id"], ident_),
        api_tool("get_users_by_id", "GET", "/users/{id}", {"id": _ID}, ["id"], ident_),
        api_tool(
            "get_categories_by_id_transactions",
            "GET",
            "/categories/{id}/transactions",
            {"id": _ID},
            ["id"],
            txn,
        ),
        api_tool("get_users_by_id_transactions", "GET", "/users/{id}/transactions", {"id": _ID}, ["id"], txn),
        api_tool("post_transactions", "POST", "/transactions", {"amount": {"type": "number"}}, [], txn),
        api_tool("search_transactions", "GET", "/transactions/search", {"q": _S}, ["q"], txn),
    ]
    spec = _spec(tools, "money")
    ops = {t["name"]: t["operation"] for t in spec["tools"]}
    by_category, by_user = ops["get_categories_by_id_transactions"], ops["get_users_by_id_transactions"]
    assert [f["column"] for f in by_category["filters"]] == ["category_id"], by_category
    assert [f["column"] for f in by_user["filters"]] == ["user_id"], by_user
    columns = spec["tables"]["transactions"]["columns"]
    assert columns["category_id"].get("references") == "categories"
    assert columns["user_id"].get("references") == "users"
    assert "id" not in columns
    # verification calls each read with the values of a row under the columns the read binds its
    # arguments to (`id` <- the row's `user_id`), so both reads find their rows
    problems = verify(spec)
    assert [p for p in problems if p["tool"].endswith("_transactions") or "crashed" in p["reason"]] == []


def test_a_collection_route_of_the_session_entity_lists_its_rows_and_never_reads_the_session_row():
    """`GET /accounts` and `GET /institutions/{id}/accounts` list accounts (all of them, those of an
    institution); only `GET /me` reads the caller's own account."""
    account = {"type": "object", "properties": {"id": _S, "name": _S}}
    tools = [
        api_tool("get_me", "GET", "/me", {}, [], account),
        api_tool("get_accounts", "GET", "/accounts", {}, [], account),
        api_tool(
            "get_institutions_by_id_accounts",
            "GET",
            "/institutions/{id}/accounts",
            {"id": _ID},
            ["id"],
            account,
        ),
        api_tool("get_accounts_by_id", "GET", "/accounts/{id}", {"id": _ID}, ["id"], account),
        api_tool("get_institutions_by_id", "GET", "/institutions/{id}", {"id": _ID}, ["id"], account),
    ]
    spec = _spec(tools, "accounts")
    ops = {t["name"]: t["operation"] for t in spec["tools"]}
    assert ops["get_me"]["type"] == "get" and ops["get_me"]["key"] == {
        "account_id": {"session": "account_id"}
    }
    assert ops["get_accounts"]["type"] == "list" and ops["get_accounts"]["table"] == "accounts"
    by_institution = ops["get_institutions_by_id_accounts"]
    assert by_institution["type"] == "list" and [f["column"] for f in by_institution["filters"]] == [
        "institution_id"
    ]


def test_a_key_declared_both_string_and_integer_holds_digits_that_both_tools_address():
    """`getArticleById(id: integer)` and `updateArticle(id: string)` share one string key: its rows and
    the rows inserts make are keyed by digits (`"7"`), so the integer tool addresses every one of them."""
    article = {"type": "object", "properties": {"id": _S, "title": _S}}
    tools = [
        api_tool(
            "getArticleById",
            "GET",
            "/articles/{id}",
            {"id": {"type": "integer", "x-in": "path"}},
            ["id"],
            article,
        ),
        api_tool("updateArticle", "PUT", "/articles/{id}", {"id": _ID, "title": _S}, ["id"], article),
        api_tool("createArticle", "POST", "/articles", {"title": _S}, ["title"], article),
    ]
    spec = _spec(tools, "articles")
    table = spec["tables"]["articles"]
    assert table["columns"][table["primary_key"]]["type"] == "string"
    env = Environment(spec)
    env.reset()
    keys = [row["article_id"] for row in env.dump()["articles"]]
    assert keys and all(isinstance(k, str) and k.isdigit() for k in keys), keys
    assert env.step("getArticleById", {"id": int(keys[0])})["ok"]
    created = env.step("createArticle", {"title": "New"})
    assert created["ok"], created
    new_key = created["result"]["article_id"]
    assert new_key.isdigit() and new_key not in keys
    assert env.step("getArticleById", {"id": int(new_key)})["result"]["title"] == "New"
    assert [p for p in verify(spec) if p["tool"] == "getArticleById"] == []


def test_resources_sharing_a_head_noun_are_kept_apart_and_verified_against_their_own_tables():
    """Stripe's `/accounts/{a}` and `/accounts/{a}/external_accounts/{id}` are two resources: deleting an
    external account must leave the account. ClickSend's `/fax/receipts` and `/sms/receipts` are two
    tables too. Verification takes each tool's qualified table as the one its name says (no tool dropped)."""
    account = {"type": "object", "properties": {"id": _S, "email": _S}}
    external = {"type": "object", "properties": {"id": _S, "bank_name": _S, "account": _S}}
    receipt = {"type": "object", "properties": {"id": _S, "status": _S}}
    tools = [
        api_tool("GetAccount", "GET", "/v1/accounts/{account}", {"account": _ID}, ["account"], account),
        api_tool("PostAccounts", "POST", "/v1/accounts", {"email": _S}, ["email"], account),
        api_tool("DeleteAccount", "DELETE", "/v1/accounts/{account}", {"account": _ID}, ["account"], account),
        api_tool(
            "GetAccountExternalAccount",
            "GET",
            "/v1/accounts/{account}/external_accounts/{id}",
            {"account": _ID, "id": _ID},
            ["account", "id"],
            external,
        ),
        api_tool(
            "DeleteAccountExternalAccount",
            "DELETE",
            "/v1/accounts/{account}/external_accounts/{id}",
            {"account": _ID, "id": _ID},
            ["account", "id"],
            external,
        ),
        api_tool("get_fax_receipts", "GET", "/fax/receipts", {}, [], receipt),
        api_tool("Add_a_Test_Delivery_Receipt", "POST", "/fax/receipts", {"status": _S}, ["status"], receipt),
        api_tool("get_sms_receipts", "GET", "/sms/receipts", {}, [], receipt),
        api_tool("post_sms_receipts", "POST", "/sms/receipts", {"status": _S}, ["status"], receipt),
    ]
    spec = _spec(tools, "payments")
    table = {t["name"]: t["operation"]["table"] for t in spec["tools"]}
    assert (
        table["DeleteAccount"] == "accounts" and table["DeleteAccountExternalAccount"] == "external_accounts"
    )
    assert table["get_fax_receipts"] != table["get_sms_receipts"]
    assert {table["get_fax_receipts"], table["get_sms_receipts"]} == {"fax_receipts", "sms_receipts"}
    assert verify(spec) == []
    with Environment(spec) as env:
        env.reset()
        state = env.dump()
        external_row = state["external_accounts"][0]
        args = {
            "account": str(external_row.get("account") or "acct_1"),
            "id": external_row["external_account_id"],
        }
        result = env.step("DeleteAccountExternalAccount", args)
        after = env.dump()
    assert result.get("ok", "error" not in result), result
    assert len(after["external_accounts"]) == len(state["external_accounts"]) - 1
    assert after["accounts"] == state["accounts"]  # the account itself is untouched


def test_a_prefixed_route_that_returns_another_kind_of_row_is_another_resource():
    """`/setup/v1/services/{id}` returns a service (name, duration, price, ...) and `/setup/v1/locations/services/{id}`
    a location's link to one (its service id and name): one table for both made each tool of one a duplicate of
    the other's at scale. A prefix beside the bare noun qualifies the resource when the responses share almost no
    field; `/store/orders` beside `/orders`, returning one order, stays one resource."""
    service = {
        "type": "object",
        "properties": {f: _S for f in ("id", "name", "duration", "price", "capacity")},
    }
    link = {
        "type": "object",
        "properties": {f: _S for f in ("link_id", "locationId", "serviceRef", "object")},
    }
    tools = [
        api_tool("get_service", "GET", "/setup/v1/services/{id}", {"id": _ID}, ["id"], service),
        api_tool("post_service", "POST", "/setup/v1/services", {"name": _S}, ["name"], service),
        api_tool("delete_service", "DELETE", "/setup/v1/services/{id}", {"id": _ID}, ["id"], service),
        api_tool(
            "get_location_service", "GET", "/setup/v1/locations/services/{id}", {"id": _ID}, ["id"], link
        ),
        api_tool(
            "delete_location_service",
            "DELETE",
            "/setup/v1/locations/services/{id}",
            {"id": _ID},
            ["id"],
            link,
        ),
    ]
    table = {t["name"]: t["operation"]["table"] for t in _spec(tools, "booking")["tools"]}
    assert table["get_service"] == table["delete_service"] == "services"
    assert table["get_location_service"] == table["delete_location_service"] == "location_services"
    order = {"type": "object", "properties": {f: _S for f in ("id", "status", "total", "customer")}}
    same = [
        api_tool("get_order", "GET", "/orders/{id}", {"id": _ID}, ["id"], order),
        api_tool("post_order", "POST", "/orders", {"total": _S}, ["total"], order),
        api_tool("get_store_order", "GET", "/store/orders/{id}", {"id": _ID}, ["id"], order),
    ]
    assert {t["operation"]["table"] for t in _spec(same, "shop")["tools"]} == {"orders"}


def test_an_act_route_is_never_a_qualified_resource():
    """`POST /communications/presences/{id}/microsoft.graph.setPresence` acts on a presence; it makes no
    `set_presences` table of its own."""
    presence = {"type": "object", "properties": {"id": _S, "availability": _S}}
    tools = [
        api_tool(
            "presences_get",
            "GET",
            "/communications/presences/{presence-id}",
            {"presence-id": _ID},
            ["presence-id"],
            presence,
        ),
        api_tool("presences_list", "GET", "/communications/presences", {}, [], presence),
        api_tool(
            "presences_setPresence",
            "POST",
            "/communications/presences/{presence-id}/microsoft.graph.setPresence",
            {"presence-id": _ID, "availability": _S},
            ["presence-id", "availability"],
            presence,
        ),
    ]
    spec = _spec(tools, "presence")
    assert not [t for t in spec["tables"] if "set" in t.split("_")]


def test_a_count_or_a_collection_of_mine_reads_its_rows_never_the_session_row():
    """`GET /me/onlineMeetings` lists meetings and `GET /me/onlineMeetings/$count` counts them; `GET /me`
    reads the caller's own row."""
    me = {"type": "object", "properties": {"id": _S, "displayName": _S}}
    meeting = {"type": "object", "properties": {"id": _S, "subject": _S}}
    tools = [
        api_tool("me_Get", "GET", "/me", {}, [], me),
        api_tool("me_ListOnlineMeetings", "GET", "/me/onlineMeetings", {}, [], meeting),
        api_tool(
            "me_CreateOnlineMeetings", "POST", "/me/onlineMeetings", {"subject": _S}, ["subject"], meeting
        ),
        api_tool("Get_Count_onlineMeetings", "GET", "/me/onlineMeetings/$count", {}, [], None),
    ]
    spec = _spec(tools, "meetings")
    ops = {t["name"]: t["operation"] for t in spec["tools"]}
    assert "session" in str(ops["me_Get"]["key"])
    assert (
        ops["me_ListOnlineMeetings"]["type"] == "list" and "meeting" in ops["me_ListOnlineMeetings"]["table"]
    )
    assert ops["Get_Count_onlineMeetings"]["type"] == "count"
    assert ops["Get_Count_onlineMeetings"]["table"] == ops["me_ListOnlineMeetings"]["table"]


def test_verification_takes_a_tool_s_qualified_table_when_its_name_does_not_say_the_qualifier():
    """`InvokeWithResponseStream` (`POST /functions/{f}/response-streaming-invocations`) records a
    response-streaming invocation beside `Invoke`'s invocations: the row it adds is in the table its route
    names, which verification accepts though the name says only "invoke"."""
    fn = {"type": "object", "properties": {"FunctionName": _S, "Runtime": _S}}
    invocation = {"type": "object", "properties": {"StatusCode": {"type": "integer"}, "Payload": _S}}
    args = {"FunctionName": _ID, "Payload": _S}
    tools = [
        api_tool(
            "GetFunction", "GET", "/functions/{FunctionName}", {"FunctionName": _ID}, ["FunctionName"], fn
        ),
        api_tool("ListFunctions", "GET", "/functions", {}, [], fn),
        api_tool("Invoke", "POST", "/functions/{FunctionName}/invocations", args, list(args), invocation),
        api_tool(
            "InvokeWithResponseStream",
            "POST",
            "/functions/{FunctionName}/response-streaming-invocations",
            args,
            list(args),
            invocation,
        ),
    ]
    spec = _spec(tools, "lambda")
    table = {t["name"]: t["operation"]["table"] for t in spec["tools"]}
    assert (table["Invoke"], table["InvokeWithResponseStream"]) == (
        "invocations",
        "response_streaming_invocations",
    )
    assert [p for p in verify(spec) if p["tool"] == "InvokeWithResponseStream"] == []


def test_statuses_in_the_api_s_own_spelling_open_a_new_row_and_retire_a_cancelled_one():
    """Impala's booking status is `CANCELLED | PENDING | ACCEPTED ...` (upper case, the retired value first): a new
    booking starts PENDING, never CANCELLED, and `DELETE /bookings/{id}` ("Cancel a booking") sets CANCELLED and keeps
    the row, as the API does."""
    booking = {
        "type": "object",
        "properties": {
            "id": _S,
            "start": _S,
            "status": {"type": "string", "enum": ["CANCELLED", "PENDING", "ACCEPTED", "PAYMENT_REQUIRED"]},
        },
    }
    tools = [
        api_tool("createBooking", "POST", "/bookings", {"start": _S}, ["start"], booking, group="Hotels API"),
        api_tool(
            "retrieveBooking",
            "GET",
            "/bookings/{bookingId}",
            {"bookingId": _ID},
            ["bookingId"],
            booking,
            group="Hotels API",
        ),  # fmt: skip
        api_tool(
            "cancelBooking",
            "DELETE",
            "/bookings/{bookingId}",
            {"bookingId": _ID},
            ["bookingId"],
            group="Hotels API",
        ),  # fmt: skip
    ]
    spec = _spec(tools, "hotels")
    ops = {t["name"]: t["operation"] for t in spec["tools"]}
    assert ops["createBooking"]["defaults"] == {"status": "PENDING"}
    assert ops["cancelBooking"]["type"] == "update" and ops["cancelBooking"]["fixed"] == {
        "status": "CANCELLED"
    }
    env = Environment(spec)
    env.reset()
    made = env.step("createBooking", {"start": "2026-05-01"})["result"]
    assert made["status"] == "PENDING"
    booking_id = made["booking_id"]
    assert env.step("cancelBooking", {"bookingId": booking_id})["ok"]
    assert env.step("retrieveBooking", {"bookingId": booking_id})["result"]["status"] == "CANCELLED"
    assert not env.step("cancelBooking", {"bookingId": booking_id})["ok"]  # already cancelled: refused


def test_a_table_with_more_fields_than_it_keeps_keeps_what_a_person_reads_first():
    # Google Calendar's event has 50 fields; kept in alphabetical order the 40 kept ended before `start`,
    # `status` and `summary`, so no event could be found by its title. Query-string options go first.
    fields = {f"flag_{c}": {"type": "boolean"} for c in "abcdefghij"}
    fields.update({"attachments": {"type": "array", "items": _S}, "reminders": {"type": "object"}})
    fields.update({"start": _S, "status": _S, "summary": _S})
    props = {"userIp": {"type": "string", "x-in": "query"}, **fields}
    event = {"type": "object", "properties": {"id": _S, **fields}}
    tools = [
        api_tool("eventsInsert", "POST", "/events", props, [], event, group="Calendar API"),
        api_tool(
            "eventsGet",
            "GET",
            "/events/{eventId}",
            {"eventId": _ID},
            ["eventId"],
            event,
            group="Calendar API",
        ),
    ]
    spec = infer_spec(
        {"domain_id": 0, "name": "d", "groups": {"Calendar API": 2}}, tools, rows=5, seed=0, max_columns=8
    )
    columns = list(spec.spec["tables"]["events"]["columns"])
    assert len(columns) == 8
    assert {"summary", "status", "start"} <= set(columns), columns
    assert "user_ip" not in columns and "attachments" not in columns


def test_a_payload_named_after_the_entity_is_the_row_beside_other_payloads():
    # YNAB: `{data: {budgets: [...], default_budget: {...}}}`; the budget's fields, not two JSON columns
    budget = {"type": "object", "properties": {"id": _S, "name": _S, "first_month": _S}}
    listing = {
        "type": "object",
        "properties": {
            "data": {
                "type": "object",
                "properties": {
                    "budgets": {"type": "array", "items": budget},
                    "default_budget": budget,
                    "server_knowledge": _I,
                },
            }
        },
    }
    assert set(output_fields(listing, "budget")) == {"id", "name", "first_month"}
    assert set(output_fields(listing)) == {
        "budgets",
        "default_budget",
        "server_knowledge",
    }  # no entity: as is


def test_paging_fields_of_a_page_are_never_a_rows_fields():
    """Pages as real APIs write them: OnSched's `{object, data: [...] (type [array, null]), count, total, hasMore,
    url}`, Avaza's `{PageNumber, PageSize, Projects: [...], TotalCount}`, Spotify's `PagingObject` whose items
    the schema lost. The row's fields, or none; never `limit`, `next`, `total`, `TotalCount` as columns."""
    row = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}
    onsched = {
        "type": "object",
        "properties": {
            "object": {"type": "string"},
            "data": {"type": ["array", "null"], "items": row},
            "count": {"type": "integer"},
            "total": {"type": "integer"},
            "hasMore": {"type": "boolean"},
            "url": {"type": "string"},
        },
    }
    assert set(output_fields(onsched)) == {"id", "name"}
    avaza = {
        "type": "object",
        "properties": {
            "PageNumber": {"type": "integer"},
            "PageSize": {"type": "integer"},
            "Projects": {"type": "array", "items": row},
            "TotalCount": {"type": "integer"},
        },
    }
    assert set(output_fields(avaza)) == {"id", "name"}
    paging = {k: {"type": "integer"} for k in ("limit", "offset", "total")} | {
        k: {"type": "string"} for k in ("href", "next", "previous")
    }
    spotify = {"type": "object", "properties": {"categories": {"type": "object", "properties": paging}}}
    assert output_fields(spotify) == {}
    order = {"type": "object", "properties": {"id": {"type": "string"}, "total": {"type": "number"}}}
    assert set(output_fields(order)) == {"id", "total"}  # an order's own total stays
    # Docker Hub's tokens page and SCIM's `ListResponse`: its tokens had `active_count`, `next` and `previous`
    # columns, its users `items_per_page` and `start_index` (seed 94's readers)
    tokens = {
        "type": "object",
        "properties": {
            "count": {"type": "number"},
            "next": {"type": "string"},
            "previous": {"type": "string"},
            "active_count": {"type": "number"},
            "results": {"type": "array", "items": row},
        },
    }
    assert set(output_fields(tokens)) == {"id", "name"}
    scim = {
        "type": "object",
        "properties": {
            "schemas": {"type": "array", "items": {"type": "string"}},
            "totalResults": {"type": "integer"},
            "itemsPerPage": {"type": "integer"},
            "startIndex": {"type": "integer"},
            "Resources": {"type": "array", "items": row},
        },
    }
    assert set(output_fields(scim)) == {"id", "name"}
    # Xero Files' `{TotalCount, Page, PerPage, Items: [...]}` (its files had `page` and `per_page` columns)
    xero = {
        "type": "object",
        "properties": {
            "TotalCount": {"type": "integer"},
            "Page": {"type": "integer"},
            "PerPage": {"type": "integer"},
            "Items": {"type": "array", "items": row},
        },
    }
    assert set(output_fields(xero)) == {"id", "name"}
    repo = {"type": "object", "properties": {"name": {"type": "string"}, "star_count": {"type": "integer"}}}
    assert set(output_fields(repo)) == {"name", "star_count"}  # a row's own tally stays


def test_an_attribute_of_another_thing_is_never_read_from_the_callers_own_row():
    """`TaskStatus_Get` (Avaza's task statuses) and `GET /budgets/{budget_id}/settings` (that budget's) are not the
    logged-in account's row (a blind reader: "`TaskStatus_Get` reads the account row"); the caller's own balance,
    settings and login status still are."""
    from envscale.materialize.infer import reads_own
    from envscale.words.semantics import tool_meaning

    def own(name, path=None):
        notes = {"method": "GET", "path": path} if path else {}
        return reads_own({"name": name, "annotations": notes}, tool_meaning(name, "", {}, notes), "account")

    assert not own("TaskStatus_Get", "/api/TaskStatus")
    assert not own("getBudgetSettingsById", "/budgets/{budget_id}/settings")
    assert not own("get_order_status")
    assert own("get_balance") and own("get_account_balance") and own("getTaxSettings")
    assert own("getAccountSettings", "/account/settings") and own("get_login_status") and own("get_my_status")


def test_a_change_to_a_row_under_a_route_parent_never_moves_it_to_another_parent():
    """`PATCH /collections/{collection_id}/tickets/{ticket_id}` changes a ticket of a collection: the route's
    collection says where the ticket is, and the ticket keeps its collection (the gold of a "change the
    description" task moved it to the collection the user named: `collection_id: col_0014 -> col_0016`). A
    ticket created under a collection stores it."""
    ticket = {
        "type": "object",
        "properties": {"id": _S, "subject": _S, "description": _S, "collection_id": _S},
    }
    collection = {"type": "object", "properties": {"id": _S, "name": _S}}
    route = "/collections/{collection_id}/tickets"
    ids = {"collection_id": _ID, "ticket_id": _ID}
    body = {"subject": _S, "description": _S}
    tools = [
        api_tool("collectionsAll", "GET", "/collections", {}, [], collection),
        api_tool("ticketsAll", "GET", route, {"collection_id": _ID}, ["collection_id"], ticket),
        api_tool(
            "ticketsAdd", "POST", route, {"collection_id": _ID, **body}, ["collection_id", "subject"], ticket
        ),
        api_tool("ticketsOne", "GET", route + "/{ticket_id}", ids, list(ids), ticket),
        api_tool("ticketsUpdate", "PATCH", route + "/{ticket_id}", {**ids, **body}, list(ids), ticket),
    ]
    spec = _spec(tools, "tracker")
    ops = {t["name"]: t["operation"] for t in spec["tools"]}
    update, add = ops["ticketsUpdate"], ops["ticketsAdd"]
    assert update["type"] == "update" and "collection_id" not in (update.get("set") or {}), update
    assert set(update.get("set") or {}) >= {"description", "subject"}
    assert add["type"] == "insert" and add["values"].get("collection_id") == "collection_id", add
    with Environment(spec) as env:
        env.reset()
        row = env.dump()["tickets"][0]
        other = next(
            c["collection_id"]
            for c in env.dump()["collections"]
            if c["collection_id"] != row["collection_id"]
        )
        obs = env.step(
            "ticketsUpdate", {"collection_id": other, "ticket_id": row["ticket_id"], "description": "Fixed."}
        )
        after = next(t for t in env.dump()["tickets"] if t["ticket_id"] == row["ticket_id"])
    assert after["collection_id"] == row["collection_id"] and after["description"] == "Fixed.", obs


def test_a_create_takes_the_parent_it_is_made_in_never_as_its_own_key():
    """`foldersAdd(name, parent_folder_id)` made the new folder's key the parent's (`folder_id = parent_folder_id`,
    a blind reading): a key qualified as another row of the kind (parent, source, target ...) is where the new
    row goes, a column of its own whose values are folders (a tree), and the new row gets a key of its own."""
    folder = {"type": "object", "properties": {"id": _S, "name": _S, "parent_folder_id": _S}}
    tools = [
        api_tool(
            "foldersAdd",
            "POST",
            "/folders",
            {"name": _S, "parent_folder_id": _S},
            ["name", "parent_folder_id"],
            folder,
            group="Files API",
        ),
        api_tool("foldersAll", "GET", "/folders", {}, [], folder, group="Files API"),
        api_tool("foldersOne", "GET", "/folders/{id}", {"id": _ID}, ["id"], folder, group="Files API"),
    ]
    spec = _spec(tools)
    add = next(t for t in spec["tools"] if t["name"] == "foldersAdd")["operation"]
    table = spec["tables"][add["table"]]
    assert add["values"].get(table["primary_key"]) != "parent_folder_id", add
    assert add["values"].get("parent_folder_id") == "parent_folder_id", add
    with Environment(spec) as env:
        rows = env.dump()[add["table"]]
        keys = {r[table["primary_key"]] for r in rows}
        assert all(r["parent_folder_id"] in keys | {None} for r in rows), rows  # a tree of folders
        assert any(r["parent_folder_id"] in keys for r in rows), rows
        parent = rows[0][table["primary_key"]]
        made = env.step("foldersAdd", {"name": "Invoices 2026", "parent_folder_id": parent})
        assert made["ok"], made
        assert made["result"][table["primary_key"]] != parent
        assert made["result"]["parent_folder_id"] == parent


def test_an_update_with_nothing_to_set_is_the_act_its_description_states_or_no_tool():
    """`patch_collaborator_invitations_by_id(id)` set a column named after itself to 'patch', and
    `updateAnApiVersion` set `an_api_version = 'update'` (a blind reading): an update that has nothing to set
    leaves its row in the state its description's act names ("Accept collaborator invitation." -> accepted), and
    is no tool where the description names no act."""
    invitation = {"type": "object", "properties": {"id": _S, "email": _S, "map_id": _S}}
    accept = api_tool(
        "patch_collaborator_invitations_by_id",
        "PATCH",
        "/collaborator_invitations/{id}",
        {"id": _ID},
        ["id"],
        invitation,
        group="Maps API",
    )
    accept["description"] = "Accept collaborator invitation."
    touch = api_tool(
        "touch_collaborator_invitation",
        "PATCH",
        "/collaborator_invitations/{id}/touch",
        {"id": _ID},
        ["id"],
        invitation,
        group="Maps API",
    )
    touch["description"] = "Update a collaborator invitation."
    tools = [
        accept,
        touch,
        api_tool(
            "list_invitations", "GET", "/collaborator_invitations", {}, [], invitation, group="Maps API"
        ),
        api_tool(
            "invite",
            "POST",
            "/collaborator_invitations",
            {"email": _S},
            ["email"],
            invitation,
            group="Maps API",
        ),
    ]
    spec = _spec(tools, name="maps")
    ops = {t["name"]: t["operation"] for t in spec["tools"]}
    assert "touch_collaborator_invitation" not in ops
    fixed = ops["patch_collaborator_invitations_by_id"].get("fixed") or {}
    assert list(fixed.values()) == ["accepted"], ops["patch_collaborator_invitations_by_id"]
    with Environment(spec) as env:
        table = ops["patch_collaborator_invitations_by_id"]["table"]
        row = env.dump()[table][0]
        key = spec["tables"][table]["primary_key"]
        done = env.step("patch_collaborator_invitations_by_id", {"id": row[key]})
        assert done["ok"] and done["result"][next(iter(fixed))] == "accepted", done


def test_a_create_whose_key_the_client_may_leave_out_makes_the_key_itself():
    """Blind readers: a calendar that cannot create events, a booking service that cannot book. Google Calendar's
    `events.insert` takes an optional `id`; the create was dropped ("events.event_id is not nullable: fill it
    from a required argument, generate or defaults"). The server makes a key the client leaves out."""
    event = {"type": "object", "properties": {"id": _S, "summary": _S, "location": _S}}
    cal = {"type": "string", "x-in": "path"}
    tools = [
        api_tool(
            "InsertEvent",
            "POST",
            "/calendars/{calendarId}/events",
            {"calendarId": cal, **event["properties"]},
            ["calendarId", "summary"],
            event,
            group="Calendar API",
        ),  # fmt: skip
        api_tool(
            "GetEvent",
            "GET",
            "/calendars/{calendarId}/events/{eventId}",
            {"calendarId": cal, "eventId": cal},
            ["calendarId", "eventId"],
            event,
            group="Calendar API",
        ),  # fmt: skip
        api_tool(
            "ListEvents",
            "GET",
            "/calendars/{calendarId}/events",
            {"calendarId": cal},
            ["calendarId"],
            {"type": "object", "properties": {"items": {"type": "array", "items": event}}},
            group="Calendar API",
        ),  # fmt: skip
    ]
    spec = _spec(tools, "calendar")
    insert = next(t for t in spec["tools"] if t["name"] == "InsertEvent")
    assert insert["operation"]["type"] == "insert" and insert["operation"].get("generate"), insert[
        "operation"
    ]
    problems = verify(spec)
    assert "InsertEvent" not in {p["tool"] for p in problems}, problems
    env = Environment(spec)
    env.reset()
    calendar = env.dump()[insert["operation"]["table"]][0].get("calendar_id")
    made = env.step("InsertEvent", {"calendarId": calendar, "summary": "Team offsite"})
    assert made["ok"], made
    key = spec["tables"][insert["operation"]["table"]]["primary_key"]
    assert env.step("GetEvent", {"calendarId": calendar, "eventId": made["result"][key]})["ok"]


def test_the_callers_row_is_a_users_where_the_api_keeps_accounts_of_its_own():
    """Blind readers: YNAB's and PocketSmith's bank accounts were the one-row session table ("accounts is the one-row
    session table", "users and accounts merged into one session row"). Where accounts are rows the API keys, the
    caller's own row is a user's, and the accounts are many."""
    path = {**_S, "x-in": "path"}
    account = {"type": "object", "properties": {"id": _S, "name": _S, "balance": {"type": "number"}}}
    user = {"type": "object", "properties": {"id": _S, "email": _S}}
    tools = [
        api_tool("getUser", "GET", "/user", {}, [], user, group="Budget API"),
        api_tool(
            "getAccounts", "GET", "/budgets/{budget_id}/accounts", {"budget_id": path}, ["budget_id"], account
        ),
        api_tool(
            "getAccountById",
            "GET",
            "/budgets/{budget_id}/accounts/{account_id}",
            {"budget_id": path, "account_id": path},
            ["budget_id", "account_id"],
            account,
            group="Budget API",
        ),
        api_tool(
            "getBudgets",
            "GET",
            "/budgets",
            {},
            [],
            {"type": "object", "properties": {"id": _S}},
            "Budget API",
        ),
    ]
    for tool in tools:
        tool["group"] = "Budget API"
    spec = infer_spec(
        {"domain_id": 0, "name": "budget", "groups": {"Budget API": 4}}, tools, rows=6, seed=0
    ).spec
    validate_spec(spec)
    assert spec["session"]["table"] != "accounts", spec["session"]
    ops = {t["name"]: t["operation"] for t in spec["tools"]}
    assert (
        ops["getAccountById"]["table"] == "accounts" and ops["getUser"]["table"] == spec["session"]["table"]
    )
    env = Environment(spec)
    env.reset(seed=0)
    assert len(env.dump()["accounts"]) > 1


def test_one_resource_under_two_prefixes_is_two_tables_beside_a_parent_s_own():
    """GitHub's `/repos/{o}/{r}/actions/secrets/{name}` and `.../dependabot/secrets/{name}` are two resources, and
    an environment's `/repositories/{id}/environments/{e}/secrets` beside them is a parent's sub-resource, never
    the API's bare `secrets` that keeps them one table (one table made each tool of one a duplicate of the
    other's at scale: deleting a Dependabot secret deleted an Actions secret)."""
    secret = {"type": "object", "properties": {"name": _S, "created_at": _S}}
    keys = {"owner": _ID, "repo": _ID, "secret_name": _ID}
    tools = []
    for prefix in ("actions", "dependabot", "codespaces"):
        route = f"/repos/{{owner}}/{{repo}}/{prefix}/secrets"
        tools += [
            api_tool(f"{prefix}_list-repo-secrets", "GET", route, {"owner": _ID, "repo": _ID}, [], secret),
            api_tool(f"{prefix}_get-repo-secret", "GET", route + "/{secret_name}", keys, list(keys), secret),
            api_tool(
                f"{prefix}_delete-repo-secret", "DELETE", route + "/{secret_name}", keys, list(keys), secret
            ),
        ]
    env_keys = {"repository_id": _ID, "environment_name": _ID, "secret_name": _ID}
    tools.append(
        api_tool(
            "actions_get-environment-secret",
            "GET",
            "/repositories/{repository_id}/environments/{environment_name}/secrets/{secret_name}",
            env_keys,
            list(env_keys),
            secret,
        )
    )
    spec = _spec(tools, "github")
    table = {t["name"]: t["operation"]["table"] for t in spec["tools"]}
    deletes = {table[f"{p}_delete-repo-secret"] for p in ("actions", "dependabot", "codespaces")}
    assert len(deletes) == 3, table
    for prefix in ("actions", "dependabot", "codespaces"):
        assert table[f"{prefix}_get-repo-secret"] == table[f"{prefix}_delete-repo-secret"]
    with Environment(spec) as env:
        env.reset()
        before = env.dump()
        victim = table["dependabot_delete-repo-secret"]
        row = before[victim][0]
        pk = spec["tables"][victim]["primary_key"]
        args = {"owner": row.get("owner") or "o", "repo": row.get("repo") or "r", "secret_name": row[pk]}
        assert env.step("dependabot_delete-repo-secret", args).get("ok"), args
        after = env.dump()
    assert len(after[victim]) == len(before[victim]) - 1
    assert all(after[t] == before[t] for t in deletes - {victim})  # the other secrets are untouched


def test_a_qualified_resource_is_got_by_its_own_key():
    """`GET /repos/{o}/{r}/pulls/comments/{comment_id}` beside `/issues/comments/{comment_id}` reads one pull
    request review comment by `comment_id`: the key names the resource by its head noun, never a second id of a
    row named by two (which listed every comment of the repository)."""
    comment = {"type": "object", "properties": {"id": _I, "body": _S, "path": _S}}
    tools = []
    for prefix in ("pulls", "issues"):
        route = f"/repos/{{owner}}/{{repo}}/{prefix}/comments"
        keys = {"owner": _ID, "repo": _ID, "comment_id": {"type": "integer", "x-in": "path"}}
        tools += [
            api_tool(f"{prefix}_list-comments", "GET", route, {"owner": _ID, "repo": _ID}, [], comment),
            api_tool(f"{prefix}_get-comment", "GET", route + "/{comment_id}", keys, list(keys), comment),
            api_tool(
                f"{prefix}_delete-comment", "DELETE", route + "/{comment_id}", keys, list(keys), comment
            ),
        ]
    ops = {t["name"]: t["operation"] for t in _spec(tools, "github")["tools"]}
    for prefix in ("pulls", "issues"):
        got = ops[f"{prefix}_get-comment"]
        assert got["type"] == "get" and list(got["key"].values()) == ["comment_id"], got
        assert got["table"] == ops[f"{prefix}_delete-comment"]["table"]


def test_untagging_a_show_keeps_the_show_and_tagging_it_links_it():
    """TVmaze's `PUT /user/tags/{tag_id}/shows/{show_id}` tags a show and `DELETE` on the same route untags it: the
    show stays (deleting it was what "Untag a show" did), only its tag is cleared; a show under another tag is
    refused, and the list of a tag's shows follows both."""
    show = {"type": "object", "properties": {"id": _I, "title": _S, "tag_id": _I}}
    tag = {"type": "object", "properties": {"id": _I, "name": _S}}
    pair = {"tag_id": {"type": "integer", "x-in": "path"}, "show_id": {"type": "integer", "x-in": "path"}}
    tools = [
        api_tool("get_user_tags", "GET", "/user/tags", {}, [], tag),
        api_tool("post_user_tags", "POST", "/user/tags", {"name": _S}, ["name"], tag),
        api_tool("post_scrobble_shows", "POST", "/scrobble/shows", {"title": _S}, ["title"], show),
        api_tool(
            "get_scrobble_show",
            "GET",
            "/scrobble/shows/{show_id}",
            {"show_id": pair["show_id"]},
            ["show_id"],
            show,
        ),
        api_tool(
            "get_user_tags_by_tag_id_shows",
            "GET",
            "/user/tags/{tag_id}/shows",
            {"tag_id": pair["tag_id"]},
            ["tag_id"],
            show,
        ),
        api_tool("put_tag_show", "PUT", "/user/tags/{tag_id}/shows/{show_id}", pair, list(pair), None),
        api_tool("delete_tag_show", "DELETE", "/user/tags/{tag_id}/shows/{show_id}", pair, list(pair), None),
    ]
    spec = _spec(tools, "tvmaze")
    assert verify(spec) == []
    with Environment(spec) as env:
        env.reset()
        before = env.dump()
        row = next(r for r in before["shows"] if r["tag_id"] is not None)
        show_id, tag_id = row["show_id"], row["tag_id"]
        other = next(t["tag_id"] for t in before["tags"] if t["tag_id"] != tag_id)
        refused = env.step("delete_tag_show", {"tag_id": other, "show_id": show_id})
        assert not refused.get("ok") and "not under that tag" in str(refused), refused
        assert env.step("delete_tag_show", {"tag_id": tag_id, "show_id": show_id}).get("ok")
        after = env.dump()
        assert len(after["shows"]) == len(before["shows"])  # the show stays
        assert next(r for r in after["shows"] if r["show_id"] == show_id)["tag_id"] is None
        listed = env.step("get_user_tags_by_tag_id_shows", {"tag_id": tag_id})["result"]
        assert show_id not in [r["show_id"] for r in listed]
        assert env.step("put_tag_show", {"tag_id": other, "show_id": show_id}).get("ok")
        listed = env.step("get_user_tags_by_tag_id_shows", {"tag_id": other})["result"]
        assert show_id in [r["show_id"] for r in listed]


def test_a_part_of_a_row_its_route_addresses_is_written_to_that_row():
    """iQualify's `PUT /courses/{contentId}/metadata/category` sets a course's category: it wrote the session's
    accounts row (blind readers: "course metadata on the session row"), whichever tool came first."""
    course = {"type": "object", "properties": {"id": _S, "name": _S, "category": _S}}
    me = {"type": "object", "properties": {"id": _S, "email": _S}}
    content = {"contentId": _ID}
    tools = [
        api_tool(
            "put_course_category",
            "PUT",
            "/courses/{contentId}/metadata/category",
            {**content, "category": _S},
            ["contentId"],
            None,
        ),
        api_tool("get_me", "GET", "/me", {}, [], me),
        api_tool("get_course", "GET", "/courses/{contentId}", content, ["contentId"], course),
        api_tool("get_courses", "GET", "/courses", {}, [], course),
    ]
    spec = _spec(tools, "courses")
    op = {t["name"]: t["operation"] for t in spec["tools"]}["put_course_category"]
    assert op["table"] == "courses" and list(op["key"].values()) == ["contentId"], op
    with Environment(spec) as env:
        env.reset()
        row = env.dump()["courses"][0]
        key = row[spec["tables"]["courses"]["primary_key"]]
        assert env.step("put_course_category", {"contentId": key, "category": "Data science"}).get("ok")
        assert env.step("get_course", {"contentId": key})["result"]["category"] == "Data science"


def test_a_write_to_another_entity_never_changes_the_callers_own_row():
    """Billbee's `POST /api/v1/products/updatestockcode` (a SKU and a stock code in the body) changes a product: in
    a world without products it set `product_sku` on the session's account (blind readers: "the product SKU of your
    account is now ..."). It is left out with its reason; an update of the caller's own settings still is theirs."""
    me = {"type": "object", "properties": {"id": _S, "email": _S, "language": _S}}
    tools = [
        api_tool("get_me", "GET", "/api/v1/me", {}, [], me),
        api_tool("update_settings", "PUT", "/api/v1/me/settings", {"language": _S}, ["language"], me),
        api_tool(
            "Article_UpdateStockCode",
            "POST",
            "/api/v1/products/updatestockcode",
            {"Sku": _S, "StockCode": _S},
            ["Sku", "StockCode"],
            None,
        ),
    ]
    inferred = infer_spec({"domain_id": 0, "name": "shop", "groups": {"Notes API": 3}}, tools, rows=5, seed=0)
    ops = {t["name"]: t["operation"] for t in inferred.spec["tools"]}
    assert "Article_UpdateStockCode" not in ops
    reason = next(x["reason"] for x in inferred.excluded if x["tool"] == "Article_UpdateStockCode")
    assert "products" in reason, reason
    assert ops["update_settings"]["table"] == inferred.spec["session"]["table"]


def test_an_act_on_a_part_of_a_device_sets_the_state_whose_values_hold_it():
    """BFCL's `lockDoors` returns `lockStatus` (locked or unlocked): locking sets the vehicle's `lock_status`, never
    a made-up `door_status` of "active" or "locked" beside it (two states of one car that disagreed)."""
    lock = {
        "type": "object",
        "properties": {"lockStatus": {"type": "string", "enum": ["locked", "unlocked"]}},
    }
    tools = [
        _tool("lockDoors", "Locks the doors of the vehicle.", {"door": {"type": "array", "items": _S}}, lock),
        _tool(
            "check_tire_pressure",
            "Check the tire pressure.",
            {},
            {"type": "object", "properties": {"psi": _S}},
        ),
    ]
    spec = infer_spec(
        {"domain_id": 0, "name": "car", "groups": {"Vehicle Control": 2}}, tools, rows=5, seed=0
    ).spec
    op = next(t for t in spec["tools"] if t["name"] == "lockDoors")["operation"]
    assert op["fixed"] == {"lock_status": "locked"}, op
    assert not [c for c in spec["tables"]["vehicles"]["columns"] if c.startswith("door_status")]


def test_a_new_row_never_starts_in_a_state_it_reaches_later():
    """AppVeyor's deployment status lists `cancelled, cancelling, failed, running, starting, success`: a started
    deployment began `cancelling` (blind readers); it starts in the first state a row may begin in (running or
    starting), never one it reaches later (cancelling, failed, success)."""
    deployment = {
        "type": "object",
        "properties": {
            "deploymentId": _I,
            "status": {
                "type": "string",
                "enum": ["cancelled", "cancelling", "failed", "running", "starting", "success"],
            },
        },
    }
    tools = [
        api_tool(
            "startDeployment",
            "POST",
            "/deployments",
            {"environmentName": _S},
            ["environmentName"],
            deployment,
        ),
        api_tool(
            "getDeployment",
            "GET",
            "/deployments/{deploymentId}",
            {"deploymentId": _ID},
            ["deploymentId"],
            deployment,
        ),
    ]
    ops = {t["name"]: t["operation"] for t in _spec(tools, "ci")["tools"]}
    assert ops["startDeployment"]["defaults"] == {"status": "running"} or ops["startDeployment"][
        "defaults"
    ] == {"status": "starting"}, ops["startDeployment"]


def test_a_lookup_by_a_field_reads_its_collection_and_me_is_the_caller():
    """eBay's `GET /return_policy/get_by_policy_name?name=` finds a policy by its name (a `names` table of its own
    never held the policies made); Okta's `GET /api/v1/users/me` reads the caller's user row, never every user."""
    policy = {"type": "object", "properties": {"returnPolicyId": _S, "name": _S, "description": _S}}
    user = {"type": "object", "properties": {"id": _S, "email": _S, "status": _S}}
    q = {"type": "string", "x-in": "query"}
    tools = [
        api_tool(
            "createReturnPolicy", "POST", "/return_policy", {"name": _S, "description": _S}, ["name"], policy
        ),
        api_tool(
            "getReturnPolicy",
            "GET",
            "/return_policy/{return_policy_id}",
            {"return_policy_id": _ID},
            ["return_policy_id"],
            policy,
        ),
        api_tool(
            "getReturnPolicyByName", "GET", "/return_policy/get_by_policy_name", {"name": q}, ["name"], policy
        ),
        api_tool("listUsers", "GET", "/api/v1/users", {}, [], user),
        api_tool("getUser", "GET", "/api/v1/users/{userId}", {"userId": _ID}, ["userId"], user),
        api_tool("getCurrentUser", "GET", "/api/v1/users/me", {}, [], user),
    ]
    spec = _spec(tools, "seller")
    ops = {t["name"]: t["operation"] for t in spec["tools"]}
    assert ops["getReturnPolicyByName"]["table"] == ops["createReturnPolicy"]["table"]
    by_name = ops["getReturnPolicyByName"]
    assert by_name.get("key") == {"name": "name"} or {
        "column": "name",
        "arg": "name",
        "op": "eq",
    } in by_name.get("filters", []), by_name
    me = ops["getCurrentUser"]
    assert me["type"] == "get" and spec["session"]["table"] == me["table"] == ops["listUsers"]["table"], me
    with Environment(spec) as env:
        env.reset()
        assert isinstance(env.step("getCurrentUser", {})["result"], dict)


def test_a_row_made_under_its_parent_is_deleted_never_unlinked():
    """Sakari's contacts are made under their account (`POST /v1/accounts/{accountId}/contacts`), and its bodiless
    `PUT .../contacts/{contactId}` is no link: removing a contact deletes it (blind readers: "remove" nulled the
    account), where TVmaze's untag keeps the show (`test_untagging_a_show_keeps_the_show_and_tagging_it_links_it`)."""
    contact = {"type": "object", "properties": {"id": _S, "firstName": _S, "mobile": _S}}
    pair = {"accountId": _ID, "contactId": _ID}
    tools = [
        api_tool(
            "contacts_create",
            "POST",
            "/v1/accounts/{accountId}/contacts",
            {"accountId": _ID, "firstName": _S},
            ["accountId"],
            contact,
        ),
        api_tool(
            "contacts_fetch",
            "GET",
            "/v1/accounts/{accountId}/contacts/{contactId}",
            pair,
            list(pair),
            contact,
        ),
        api_tool(
            "contacts_update",
            "PUT",
            "/v1/accounts/{accountId}/contacts/{contactId}",
            pair,
            list(pair),
            contact,
        ),
        api_tool(
            "contacts_remove",
            "DELETE",
            "/v1/accounts/{accountId}/contacts/{contactId}",
            pair,
            list(pair),
            None,
        ),
    ]
    ops = {t["name"]: t["operation"] for t in _spec(tools, "sms")["tools"]}
    assert ops["contacts_remove"]["type"] == "delete", ops["contacts_remove"]
    assert "contacts_update" not in ops or "account_id" not in (ops["contacts_update"].get("set") or {})


def test_a_key_named_after_another_entity_never_keys_the_row():
    """elmah.io's `DELETE /v3/messages/{logId}` removes a log's messages: it deleted the message whose id equalled
    the log id. It is left out with its reason (the world has no delete of many rows)."""
    message = {"type": "object", "properties": {"id": _S, "title": _S, "logId": _S}}
    log = {"type": "object", "properties": {"id": _S, "name": _S}}
    tools = [
        api_tool("Logs_GetAll", "GET", "/v3/logs", {}, [], log),
        api_tool("Logs_Get", "GET", "/v3/logs/{id}", {"id": _ID}, ["id"], log),
        api_tool("Messages_GetAll", "GET", "/v3/messages/{logId}", {"logId": _ID}, ["logId"], message),
        api_tool("Messages_DeleteAll", "DELETE", "/v3/messages/{logId}", {"logId": _ID}, ["logId"], None),
    ]
    inferred = infer_spec({"domain_id": 0, "name": "logs", "groups": {"Notes API": 4}}, tools, rows=5, seed=0)
    ops = {t["name"]: t["operation"] for t in inferred.spec["tools"]}
    assert "Messages_DeleteAll" not in ops or "log" not in str(ops["Messages_DeleteAll"].get("key")), ops


def test_an_act_clears_the_yes_no_field_named_after_its_opposite():
    """elmah.io's `enableLog` set the log's status to enabled and left `disabled: true` (blind readers: a log whose
    `disabled` was false "enabled" again); enabling clears `disabled`, disabling sets it."""
    log = {
        "type": "object",
        "properties": {
            "id": _S,
            "name": _S,
            "disabled": {"type": "boolean"},
            "status": {"type": "string", "enum": ["enabled", "disabled"]},
        },
    }
    tools = [
        api_tool("Logs_Get", "GET", "/v3/logs/{id}", {"id": _ID}, ["id"], log),
        api_tool("Logs_Enable", "POST", "/v3/logs/{id}/_enable", {"id": _ID}, ["id"], None),
        api_tool("Logs_Disable", "POST", "/v3/logs/{id}/_disable", {"id": _ID}, ["id"], None),
    ]
    ops = {t["name"]: t["operation"] for t in _spec(tools, "logs")["tools"]}
    assert ops["Logs_Enable"]["fixed"] == {"status": "enabled", "disabled": False}, ops["Logs_Enable"]
    assert ops["Logs_Disable"]["fixed"] == {"status": "disabled", "disabled": True}, ops["Logs_Disable"]


def test_a_generic_value_sets_the_field_its_route_names():
    """Trello's `PUT /boards/{idBoard}/prefs/selfJoin` and `.../prefs/cardAging` take one `value`: each sets its own
    field (one `value` column made every such tool a duplicate of the others, and "change its value" was said of
    two fields); `/boards/current` lists boards, never the caller's one board."""
    board = {"type": "object", "properties": {"id": _S, "name": _S}}
    key = {"idBoard": _ID, "value": _S}
    tools = [
        api_tool("getBoard", "GET", "/boards/{idBoard}", {"idBoard": _ID}, ["idBoard"], board),
        api_tool("putSelfJoin", "PUT", "/boards/{idBoard}/prefs/selfJoin", key, ["idBoard", "value"], board),
        api_tool(
            "putCardAging", "PUT", "/boards/{idBoard}/prefs/cardAging", key, ["idBoard", "value"], board
        ),
    ]
    option = {"type": "object", "properties": {"id": _S, "value": _S}}
    tools.append(
        api_tool(
            "addOption", "POST", "/boards/{idBoard}/options", {"idBoard": _ID, "value": _S}, ["value"], option
        )
    )  # a new option's `value` is its own, never an `options` column
    ops = {t["name"]: t["operation"] for t in _spec(tools, "boards")["tools"]}
    assert "value" in ops["addOption"]["values"] and "options" not in ops["addOption"]["values"], ops[
        "addOption"
    ]
    assert ops["putSelfJoin"]["set"] == {"self_join": "value"}, ops["putSelfJoin"]
    assert ops["putCardAging"]["set"] == {"card_aging": "value"}, ops["putCardAging"]


def test_removing_a_row_from_another_rows_route_unlinks_it_when_it_has_its_own_delete():
    """ "Remove the team for the user" (`DELETE /users/{userId}/teams/{teamId}`) deleted the team, though teams are
    made and deleted at their own route (`POST /teams`, `DELETE /teams/{teamId}`): it takes the team off the user,
    and the team stays; `DELETE /teams/{teamId}` still deletes it."""
    team = {"type": "object", "properties": {"id": _I, "name": _S, "user_id": _I}}
    user = {"type": "object", "properties": {"id": _I, "name": _S, "email": _S}}
    pair = {"userId": {"type": "integer", "x-in": "path"}, "teamId": {"type": "integer", "x-in": "path"}}
    one = {"teamId": pair["teamId"]}
    tools = [
        api_tool("list_users", "GET", "/users", {}, [], user),
        api_tool("get_user", "GET", "/users/{userId}", {"userId": pair["userId"]}, ["userId"], user),
        api_tool("create_team", "POST", "/teams", {"name": _S, "user_id": _I}, ["name"], team),
        api_tool("get_team", "GET", "/teams/{teamId}", one, ["teamId"], team),
        api_tool("delete_team", "DELETE", "/teams/{teamId}", one, ["teamId"], None),
        api_tool(
            "list_user_teams", "GET", "/users/{userId}/teams", {"userId": pair["userId"]}, ["userId"], team
        ),
        api_tool("remove_user_team", "DELETE", "/users/{userId}/teams/{teamId}", pair, list(pair), None),
    ]
    spec = _spec(tools, "teams")
    assert verify(spec) == []
    ops = {t["name"]: t["operation"] for t in spec["tools"]}
    assert ops["delete_team"]["type"] == "delete", ops["delete_team"]
    with Environment(spec) as env:
        env.reset()
        before = env.dump()
        row = next(r for r in before["teams"] if r["user_id"] is not None)
        assert env.step("remove_user_team", {"userId": row["user_id"], "teamId": row["team_id"]}).get("ok")
        after = env.dump()
        assert len(after["teams"]) == len(before["teams"])  # the team stays
        assert next(r for r in after["teams"] if r["team_id"] == row["team_id"])["user_id"] is None


def test_a_text_a_write_adds_is_written_and_a_text_a_read_matches_is_matched():
    """MemGPT's `core_memory_add(text)` ("Add a new entry to the core memory") inserted a memory without its text:
    `text` was taken for a search term, as in a read. What a write is given is what it stores; what a read is
    given is what it matches."""
    text = {"type": "string", "description": "The text to be added to the core memory."}
    tools = [
        _tool("core_memory_add", "Add a new entry to the core memory.", {"text": text}),
        _tool(
            "core_memory_retrieve", "Retrieve the entries of the core memory matching a text.", {"text": _S}
        ),
    ]
    spec = _spec(tools, name="memory")
    ops = {t["name"]: t["operation"] for t in spec["tools"]}
    add = ops["core_memory_add"]
    assert add["type"] == "insert" and "text" in add["values"].values(), add
    read = ops["core_memory_retrieve"]
    assert read["type"] in ("list", "get") and "text" not in (read.get("values") or {}), read


def test_a_cancel_retires_a_row_by_the_status_values_its_description_names():
    """A credit API's `CancelInvoice` (`DELETE .../invoices/{invoiceId}`, "Changes invoice's status") removed the
    invoice: the status's values were only in its description, HTML-escaped ("It must be completed with
    &quot;Paid&quot;, &quot;Cancelled&quot; or &quot;Open&quot; value."). Read, they are the status's values, and the
    cancel sets `Cancelled`."""
    status = {
        "type": "string",
        "description": "Invoice's status. It must be completed with &quot;Paid&quot;, &quot;Cancelled&quot; or "
        "&quot;Open&quot; value.",
    }
    invoice = {"type": "object", "properties": {"id": _S, "description": _S, "value": _I, "status": status}}
    tools = [
        api_tool("CreateInvoice", "POST", "/invoices", {"description": _S, "value": _I}, ["value"], invoice),
        api_tool(
            "RetrieveInvoice", "GET", "/invoices/{invoiceId}", {"invoiceId": _ID}, ["invoiceId"], invoice
        ),
        api_tool("CancelInvoice", "DELETE", "/invoices/{invoiceId}", {"invoiceId": _ID}, ["invoiceId"]),
    ]
    spec = _spec(tools, name="credit")
    cancel = next(t for t in spec["tools"] if t["name"] == "CancelInvoice")["operation"]
    assert cancel["type"] == "update" and cancel["fixed"] == {"status": "Cancelled"}, cancel
    assert set(spec["tables"]["invoices"]["columns"]["status"]["enum"]) == {"Paid", "Cancelled", "Open"}


def test_a_date_after_a_rows_key_in_its_route_dates_the_row_and_never_keys_it():
    """Paylocity's `/employees/{employeeId}/earnings/{earningCode}/{startDate}`: the earnings table was keyed by
    `start_date` and its keys read "ear_0001" (a blind reader: "earnings keyed by start_date"). The code keys the
    earning; the date after it does not."""
    earning = {
        "type": "object",
        "properties": {"earningCode": _S, "startDate": _S, "amount": _I, "agency": _S},
    }
    route = "/employees/{employeeId}/earnings/{earningCode}/{startDate}"
    args = {"employeeId": _S, "earningCode": _S, "startDate": _S}
    tools = [
        api_tool("Get_Earning", "GET", route, args, list(args), earning),
        api_tool("Delete_Earning", "DELETE", route, args, list(args)),
        api_tool(
            "Get_All_Earnings",
            "GET",
            "/employees/{employeeId}/earnings",
            {"employeeId": _S},
            ["employeeId"],
            earning,
        ),
    ]
    spec = _spec(tools, name="payroll")
    assert spec["tables"]["earnings"]["primary_key"] == "earning_code", spec["tables"]["earnings"][
        "primary_key"
    ]
    get = next(t for t in spec["tools"] if t["name"] == "Get_Earning")["operation"]
    assert get["key"] == {"earning_code": "earningCode"}, get


def test_a_row_starts_where_the_undo_of_its_act_leaves_it():
    """Postman's mocks are published and unpublished: their made-up status read `active`, `published` and `draft`
    (a blind reader: "mock statuses mix 'active' and 'published'"). A new row starts where the undo leaves it."""
    mock = {"type": "object", "properties": {"uid": _S, "name": _S, "mockUrl": _S, "owner": _S}}
    key = {"mock_uid": _ID}
    tools = [
        api_tool("getMock", "GET", "/mocks/{mock_uid}", key, ["mock_uid"], mock, group="Postman"),
        api_tool("allMocks", "GET", "/mocks", {}, [], {"type": "array", "items": mock}, group="Postman"),
        api_tool(
            "publishMock", "POST", "/mocks/{mock_uid}/publish", key, ["mock_uid"], mock, group="Postman"
        ),
        api_tool(
            "unpublishMock", "DELETE", "/mocks/{mock_uid}/unpublish", key, ["mock_uid"], group="Postman"
        ),
    ]
    for order in (tools, [*tools[:2], tools[3], tools[2]]):  # whichever of the two acts comes first
        spec = _spec(order, name="postman")
        ops = {t["name"]: t["operation"] for t in spec["tools"]}
        status = next(iter(ops["publishMock"]["fixed"]))
        enum = spec["tables"]["mocks"]["columns"][status]["enum"]
        assert "active" not in enum and len(enum) == 2, enum
        assert ops["unpublishMock"]["fixed"][status] in enum and ops["publishMock"]["fixed"][status] in enum


def test_a_rows_own_key_under_the_apis_name_is_its_key_and_no_second_column():
    """GoToMeeting addresses a group as `/groups/{groupKey}` and returns `{groupKey, groupName, ...}`: the groups
    table had the key `group_id` and a `groupkey` column of other values, and a task took "groupKey=18 from
    group_id" while the group's `groupkey` read 39. One key, one column."""
    group = {
        "type": "object",
        "properties": {"groupKey": _I, "groupName": _S, "numOrganizers": _I, "status": _S},
    }
    organizer = {
        "type": "object",
        "properties": {"organizerKey": _I, "email": _S, "firstName": _S, "groupKey": _I},
    }
    tools = [
        api_tool(
            "get_groups", "GET", "/groups", {}, [], {"type": "array", "items": group}, group="GoToMeeting"
        ),
        api_tool(
            "get_groups_by_groupKey_organizers",
            "GET",
            "/groups/{groupKey}/organizers",
            {"groupKey": _I},
            ["groupKey"],
            {"type": "array", "items": organizer},
            group="GoToMeeting",
        ),
        api_tool(
            "post_groups_by_groupKey_organizers",
            "POST",
            "/groups/{groupKey}/organizers",
            {"groupKey": _I, "email": _S, "firstName": _S},
            ["groupKey", "email"],
            organizer,
            group="GoToMeeting",
        ),
    ]
    spec = _spec(tools, name="meetings")
    groups = spec["tables"]["groups"]
    keys = [c for c in groups["columns"] if re.sub(r"[^a-z]", "", c.lower()) in ("groupkey", "groupid")]
    assert keys == [groups["primary_key"]], groups["columns"]


def test_untrashing_a_row_restores_it_and_its_delete_keeps_it_to_restore():
    """Flat's `untrashCollection` (`POST /collections/{collection}/untrash`) inserted a row into an `untrashes`
    table and left the collection as it was (blind readers). Untrashing restores the row; the delete that trashes
    it keeps the row, so there is something to restore."""
    collection = {"type": "object", "properties": {"id": _S, "title": _S, "privacy": _S, "app": _S}}
    key = {"collection": _ID}
    tools = [
        api_tool(
            "getCollection", "GET", "/collections/{collection}", key, ["collection"], collection, group="Flat"
        ),
        api_tool(
            "deleteCollection", "DELETE", "/collections/{collection}", key, ["collection"], group="Flat"
        ),
        api_tool(
            "untrashCollection",
            "POST",
            "/collections/{collection}/untrash",
            key,
            ["collection"],
            group="Flat",
        ),
    ]
    spec = _spec(tools, name="scores")
    assert set(spec["tables"]) == {"collections"}, list(spec["tables"])
    ops = {t["name"]: t["operation"] for t in spec["tools"]}
    untrash, delete = ops["untrashCollection"], ops["deleteCollection"]
    assert untrash["type"] == "update" and untrash["table"] == "collections", untrash
    assert delete["type"] == "update", delete  # kept, retired
    (status,) = untrash["fixed"]
    assert delete["fixed"][status] != untrash["fixed"][status]


@pytest.mark.parametrize(
    "name, description, states, kept",
    [
        (
            "companiesDelete",
            "Delete a company.",
            ["active", "inactive", "closed"],
            None,
        ),  # never "deactivate"
        (
            "deleteCompany",
            "Deactivates the company; it can no longer be used.",
            ["active", "deleted", "inactive"],
            "inactive",
        ),
        ("closeCompany", "Close a company.", ["active", "inactive", "closed", "deleted"], "closed"),
        ("removeCompany", "Remove a company.", ["active", "inactive", "deleted"], "deleted"),
    ],
)
def test_a_delete_keeps_its_row_only_in_a_state_it_says(name, description, states, kept):
    """Blind readers of seed 84: "deactivate" and "close" were done by `companiesDelete` and
    `collectionTicketsDelete`, because the world kept a deleted row in the table's first retired status
    (`inactive`, `closed`). A delete keeps its row only in a state its verb or its description says; a plain
    delete removes the row."""
    company = {
        "type": "object",
        "properties": {
            "id": _S,
            "name": _S,
            "status": {"type": "string", "enum": states},
        },
    }
    key = {"companyId": _ID}
    tools = [
        api_tool("companiesGet", "GET", "/companies/{companyId}", key, ["companyId"], company, group="CRM"),
        {
            **api_tool(name, "DELETE", "/companies/{companyId}", key, ["companyId"], group="CRM"),
            "description": description,
        },
    ]
    spec = _spec(tools, name="crm")
    op = next(t for t in spec["tools"] if t["name"] == name)["operation"]
    if kept is None:
        assert op["type"] == "delete", op
        env = Environment(spec)
        env.reset()
        company_id = env.dump()["companies"][0][spec["tables"]["companies"]["primary_key"]]
        assert env.step(name, {"companyId": company_id})["ok"]
        assert company_id not in {
            r[spec["tables"]["companies"]["primary_key"]] for r in env.dump()["companies"]
        }
    else:
        assert op["type"] == "update" and op["fixed"] == {"status": kept}, op


def test_a_format_after_a_rows_key_in_its_route_never_keys_it():
    """Flat's `GET /scores/{score}/revisions/{revision}/{format}`: blind readers of seed 84 found the revisions
    table keyed by "format". The revision keys the row; the format is how it is read."""
    revision = {"type": "object", "properties": {"id": _S, "description": _S, "format": _S}}
    route = "/scores/{score}/revisions/{revision}/{format}"
    args = {"score": _ID, "revision": _ID, "format": _ID}
    tools = [
        api_tool("getScoreRevisionData", "GET", route, args, list(args), revision, group="Flat"),
        api_tool(
            "getScoreRevisions",
            "GET",
            "/scores/{score}/revisions",
            {"score": _ID},
            ["score"],
            {"type": "array", "items": revision},
            group="Flat",
        ),
    ]
    spec = _spec(tools, name="scores")
    table = next(t for t in spec["tools"] if t["name"] == "getScoreRevisionData")["operation"]["table"]
    assert spec["tables"][table]["primary_key"] != "format", spec["tables"][table]
    assert "revision" in spec["tables"][table]["primary_key"], spec["tables"][table]["primary_key"]


def test_an_idfk_argument_references_its_entity():
    """Avaza names its foreign keys `CompanyIDFK`, `ProjectIDFK`: blind readers of seed 84 found "*_idfk integers
    that reference nothing" (company_idfk 90 with 20 companies). Such a key references its entity's table."""
    company = {"type": "object", "properties": {"CompanyID": _I, "CompanyName": _S}}
    invoice = {"type": "object", "properties": {"InvoiceID": _I, "CompanyIDFK": _I, "Subject": _S}}
    tools = [
        api_tool("CompanyGet", "GET", "/company/{CompanyID}", {"CompanyID": {**_I, "x-in": "path"}}, ["CompanyID"], company, group="Avaza"),
        api_tool("CompanyList", "GET", "/company", {}, [], {"type": "array", "items": company}, group="Avaza"),
        api_tool("InvoiceGet", "GET", "/invoice/{InvoiceID}", {"InvoiceID": {**_I, "x-in": "path"}}, ["InvoiceID"], invoice, group="Avaza"),
        api_tool("InvoicePost", "POST", "/invoice", {"CompanyIDFK": _I, "Subject": _S}, ["CompanyIDFK"], invoice, group="Avaza"),
    ]  # fmt: skip
    spec = _spec(tools, name="avaza")
    table = next(t for t in spec["tools"] if t["name"] == "InvoicePost")["operation"]["table"]
    refs = {
        c: s.get("references") for c, s in spec["tables"][table]["columns"].items() if "idfk" in c.lower()
    }
    assert refs and all(r and "compan" in r for r in refs.values()), spec["tables"][table]["columns"]


def test_enabling_starts_from_the_disabled_state_it_undoes():
    """elmah.io's logs are `active`, `enabled` or `disabled`: blind readers of seed 84 found `Logs_Enable` allowed
    only on an active log, so a disabled log could never be enabled again. Enabling undoes `disabled`: it is allowed
    from it (and refused on a log already enabled)."""
    log = {
        "type": "object",
        "properties": {
            "id": _S,
            "name": _S,
            "status": {"type": "string", "enum": ["active", "enabled", "disabled"]},
        },
    }
    tools = [
        api_tool("Logs_Get", "GET", "/v3/logs/{id}", {"id": _ID}, ["id"], log),
        api_tool("Logs_Enable", "POST", "/v3/logs/{id}/_enable", {"id": _ID}, ["id"], None),
        api_tool("Logs_Disable", "POST", "/v3/logs/{id}/_disable", {"id": _ID}, ["id"], None),
    ]
    spec = _spec(tools, "logs")
    env = Environment(spec)
    env.reset()
    pk = spec["tables"]["logs"]["primary_key"]
    log = next(r for r in env.dump()["logs"] if r["status"] != "disabled")
    assert env.step("Logs_Disable", {"id": log[pk]})["ok"]
    assert env.step("Logs_Enable", {"id": log[pk]})["ok"], next(
        t for t in spec["tools"] if t["name"] == "Logs_Enable"
    )
    assert next(r for r in env.dump()["logs"] if r[pk] == log[pk])["status"] == "enabled"
    assert not env.step("Logs_Enable", {"id": log[pk]})["ok"]
    # an active log is enabled already (seed 85: "enable it" moved an active log to enabled)
    active = [r[pk] for r in env.dump()["logs"] if r["status"] == "active"]
    assert active and not any(env.step("Logs_Enable", {"id": a})["ok"] for a in active)


def test_a_message_hidden_in_its_log_is_hidden_never_a_hides_row():
    """elmah.io's `POST /v3/messages/{logId}/{id}/_hide`: seed 85's readers found `Messages_Hide` called with a
    message id as `logId`, inserting a `hides` row whose `log_id` referenced messages. `logId` keys the log, `id`
    the message; hiding sets the message hidden, and `GET /v3/messages/{logId}/{id}` reads one message."""
    log = {"type": "object", "properties": {"id": _S, "name": _S}}
    msg = {"type": "object", "properties": {"id": _S, "title": _S, "logId": _S}}
    tools = [
        api_tool("Logs_GetAll", "GET", "/v3/logs", {}, [], {"type": "array", "items": log}, group="elmah"),
        api_tool("Messages_GetAll", "GET", "/v3/messages/{logId}", {"logId": _ID}, ["logId"],
                 {"type": "array", "items": msg}, group="elmah"),
        api_tool("Messages_Get", "GET", "/v3/messages/{logId}/{id}", {"logId": _ID, "id": _ID}, ["logId", "id"], msg,
                 group="elmah"),
        api_tool("Messages_Hide", "POST", "/v3/messages/{logId}/{id}/_hide", {"logId": _ID, "id": _ID},
                 ["logId", "id"], None, group="elmah"),
    ]  # fmt: skip
    spec = _spec(tools, name="elmah")
    ops = {t["name"]: t["operation"] for t in spec["tools"]}
    assert "hides" not in spec["tables"], list(spec["tables"])
    assert ops["Messages_Hide"]["table"] == "messages" and "hidden" in ops["Messages_Hide"]["fixed"].values()
    assert ops["Messages_Hide"]["key"] == {"message_id": "id"}, ops["Messages_Hide"]
    assert ops["Messages_Get"]["type"] == "get" and ops["Messages_Get"]["key"] == {"message_id": "id"}


def test_a_route_s_parent_reference_wins_over_a_row_s_pointer_back_at_one_child():
    """Vonage's conversations carry a `member_id` and list their members under
    `/conversations/{conversation_id}/members`. The two references close a cycle, so one goes: the route says a
    member belongs to its conversation, so `members.conversation_id` is kept, never the conversation's pointer at
    one member (blind readers: "the member of the conversation" assumed a conversation has one member)."""
    conversation = {"type": "object", "properties": {"id": _S, "name": _S, "member_id": _S}}
    member = {"type": "object", "properties": {"id": _S, "name": _S, "conversation_id": _S, "state": _S}}
    cid = {"conversation_id": _ID}
    tools = [
        api_tool("getConversations", "GET", "/conversations", {}, [], conversation),
        api_tool(
            "getConversation",
            "GET",
            "/conversations/{conversation_id}",
            cid,
            ["conversation_id"],
            conversation,
        ),
        api_tool(
            "getMembers", "GET", "/conversations/{conversation_id}/members", cid, ["conversation_id"], member
        ),
        api_tool(
            "deleteMember",
            "DELETE",
            "/conversations/{conversation_id}/members/{member_id}",
            {**cid, "member_id": _ID},
            ["conversation_id", "member_id"],
            None,
        ),
    ]
    tables = _spec(tools, "conversations")["tables"]
    assert tables["members"]["columns"]["conversation_id"].get("references") == "conversations", tables[
        "members"
    ]
    assert not (tables["conversations"]["columns"].get("member_id") or {}).get("references"), tables[
        "conversations"
    ]


def test_unarchiving_undoes_archiving():
    """Flat's classes are `active`, `inactive` or `archived`, and `unarchiveClass` marks a class active: seed 87's
    readers found it allowed only on an inactive class, so an archived class could never come back. An `un` act
    starts from the state its own act sets: an archived class is unarchived, an active one is refused."""
    klass = {
        "type": "object",
        "properties": {
            "id": _S,
            "name": _S,
            "state": {"type": "string", "enum": ["active", "inactive", "archived"]},
        },
    }
    tools = [
        api_tool("getClass", "GET", "/classes/{id}", {"id": _ID}, ["id"], klass),
        api_tool("archiveClass", "POST", "/classes/{id}/archive", {"id": _ID}, ["id"], klass),
        api_tool("unarchiveClass", "DELETE", "/classes/{id}/archive", {"id": _ID}, ["id"], klass),
    ]
    for tool in tools[1:]:
        tool["description"] = (
            f"{tool['name'][:-5].capitalize()} the class. Mark the class as `{'archived' if tool['name'].startswith('a') else 'active'}`."
        )
    spec = _spec(tools, "classes")
    env = Environment(spec)
    env.reset()
    pk = spec["tables"]["classes"]["primary_key"]
    state = next(c for c in spec["tables"]["classes"]["columns"] if c not in (pk, "name"))
    klass = next(r for r in env.dump()["classes"] if r[state] == "active")
    assert env.step("archiveClass", {"id": klass[pk]})["ok"]
    assert env.step("unarchiveClass", {"id": klass[pk]})["ok"], next(
        t["operation"] for t in spec["tools"] if t["name"] == "unarchiveClass"
    )
    assert next(r for r in env.dump()["classes"] if r[pk] == klass[pk])[state] == "active"
    assert not env.step("unarchiveClass", {"id": klass[pk]})["ok"]


def test_ending_a_campaign_ends_it_never_an_ends_row():
    """eBay's `POST /ad_campaign/{campaign_id}/end` "ends an active (RUNNING) or paused campaign": seed 87's readers
    found `endCampaign` inserting an `ends` row. Ending sets the campaign's status, as pausing does."""
    campaign = {
        "type": "object",
        "properties": {
            "campaign_id": _S,
            "campaign_name": _S,
            "campaign_status": {"type": "string", "enum": ["RUNNING", "PAUSED", "ENDED"]},
        },
    }
    cid = {"campaign_id": _ID}
    tools = [
        api_tool("getCampaign", "GET", "/ad_campaign/{campaign_id}", cid, ["campaign_id"], campaign, group="ads"),
        api_tool("pauseCampaign", "POST", "/ad_campaign/{campaign_id}/pause", cid, ["campaign_id"], None, group="ads"),
        api_tool("endCampaign", "POST", "/ad_campaign/{campaign_id}/end", cid, ["campaign_id"], None, group="ads"),
    ]  # fmt: skip
    tools[2]["description"] = "This method ends an active (RUNNING) or paused campaign."
    spec = _spec(tools, name="ads")
    ops = {t["name"]: t["operation"] for t in spec["tools"]}
    assert "ends" not in spec["tables"], list(spec["tables"])
    assert ops["endCampaign"]["table"] == "campaigns" and "ENDED" in ops["endCampaign"]["fixed"].values(), ops


def test_a_versioned_collection_in_a_route_names_its_resource():
    """Crucible's routes are `/rest-service/reviews-v1/{id}`: seed 87's and 88's readers found its central table named
    `c_1_s` ("the 1 is already completed"). A version run into a collection's segment is no part of its name."""
    review = {"type": "object", "properties": {"id": _S, "name": _S, "state": _S}}
    rid = {"id": _ID}
    tools = [
        api_tool(
            "getAllReviews", "GET", "/rest-service/reviews-v1", {}, [], {"type": "array", "items": review}
        ),
        api_tool("getReview", "GET", "/rest-service/reviews-v1/{id}", rid, ["id"], review),
        api_tool("createReview", "POST", "/rest-service/reviews-v1", {"name": _S}, ["name"], review),
        api_tool(
            "getAllProjects", "GET", "/rest-service/projects-v1", {}, [], {"type": "array", "items": review}
        ),
    ]
    tables = _spec(tools, "crucible")["tables"]
    assert "reviews" in tables and "projects" in tables, list(tables)
    assert not [t for t in tables if re.search(r"\d|_v_", t)], list(tables)


def test_a_route_key_named_for_another_entity_never_keys_the_collection_before_it():
    """AppVeyor's `/api/projects/{accountName}/{projectSlug}/deployments`: seed 88's readers found `account_name`
    referencing projects and holding their slugs ("the account name is 12"). The project is keyed by its slug; the
    account name names the account, never a project."""
    from envscale.words.semantics import path_entities

    assert path_entities("/api/projects/{accountName}/{projectSlug}/deployments") == {
        "accountName": "account",
        "projectSlug": "project",
    }
    project = {"type": "object", "properties": {"projectSlug": _S, "name": _S, "accountName": _S}}
    deployment = {"type": "object", "properties": {"deploymentId": _S, "status": _S}}
    pair = {"accountName": _ID, "projectSlug": _ID}
    tools = [
        api_tool("getProjects", "GET", "/api/projects", {}, [], {"type": "array", "items": project}),
        api_tool("getProject", "GET", "/api/projects/{accountName}/{projectSlug}", pair, list(pair), project),
        api_tool(
            "getProjectDeployments",
            "GET",
            "/api/projects/{accountName}/{projectSlug}/deployments",
            pair,
            list(pair),
            {"type": "array", "items": deployment},
        ),
    ]
    tables = _spec(tools, "ci")["tables"]
    for table, tspec in tables.items():
        column = tspec["columns"].get("account_name") or {}
        assert column.get("references") != "projects", (table, tspec)


def test_a_cancel_is_allowed_only_in_the_state_its_description_names():
    """fire.com's `DELETE /batches/{batchUuid}` "Cancels the Batch. You can only cancel a batch before it is submitted
    for approval (while it is in the OPEN state).": seed 88's readers found a REMOVED batch cancelled, and the policy
    allowing a COMPLETE or SUCCEEDED one. The cancel is allowed while the batch is OPEN."""
    states = ["PENDING_APPROVAL", "COMPLETE", "OPEN", "CANCELLED", "SUBMITTED", "REMOVED", "SUCCEEDED"]
    batch = {
        "type": "object",
        "properties": {"batchUuid": _S, "name": _S, "status": {"type": "string", "enum": states}},
    }
    key = {"batchUuid": _ID}
    tools = [
        api_tool("getBatch", "GET", "/batches/{batchUuid}", key, ["batchUuid"], batch, group="fire"),
        api_tool(
            "cancelBatchPayment", "DELETE", "/batches/{batchUuid}", key, ["batchUuid"], None, group="fire"
        ),
    ]
    tools[1]["description"] = (
        "Cancel a batch. Cancels the Batch. You can only cancel a batch before it is submitted for approval (while "
        "it is in the OPEN state)."
    )
    tools.append(
        api_tool("submitBatch", "PUT", "/batches/{batchUuid}/submit", key, ["batchUuid"], None, group="fire")
    )
    tools[2]["description"] = "Submit a batch. You can only submit a batch while it is in the OPEN state."
    spec = _spec(tools, "fire")
    ops = {t["name"]: t["operation"] for t in spec["tools"]}
    op = ops["cancelBatchPayment"]
    assert op["fixed"] == {"status": "CANCELLED"}, op
    assert op["preconditions"][0]["op"] == "in" and op["preconditions"][0]["value"] == ["OPEN"], op
    # a status act too: submitting is allowed while the batch is OPEN, never from COMPLETE or PENDING_APPROVAL
    assert ops["submitBatch"]["fixed"] == {"status": "SUBMITTED"}, ops["submitBatch"]
    assert ops["submitBatch"]["preconditions"][0]["value"] == ["OPEN"], ops["submitBatch"]


def test_a_response_that_only_says_how_the_call_went_gives_a_row_no_fields():
    """Seed 91's readers: TVmaze's shows held `code`, `errors`, `message` and `result` ("spend"), and no name: the
    fields of a response that says how a follow went. Such a response describes no row; a row's own status stays."""
    outcome = {
        "type": "object",
        "properties": {f: {"type": "string"} for f in ("code", "errors", "message", "result")},
    }
    assert output_fields(outcome) == {}
    row = {
        "type": "object",
        "properties": {f: {"type": "string"} for f in ("id", "name", "status", "message")},
    }
    assert set(output_fields(row)) == {"id", "name", "status", "message"}


def test_a_probe_of_the_service_itself_makes_no_table():
    """Seed 91's readers: WhatsApp's `CheckHealth`, `GetMetrics` and `GetDbStats` made tables `healths`, `metrics` and
    `dbs` of a name each, padding in a world of groups and messages. A probe of the service is left out with its
    reason; a player's stats are the world's and stay."""
    stats = {"type": "object", "properties": {"name": _S, "value": _I}}
    tools = _file_tools() + [
        api_tool("CheckHealth", "GET", "/health", {}, [], stats, group="Files API"),
        api_tool("GetMetrics", "GET", "/metrics", {}, [], stats, group="Files API"),
        api_tool("GetDbStats", "GET", "/stats/db", {}, [], stats, group="Files API"),
        api_tool(
            "GetPlayerStats", "GET", "/players/{id}/stats", {"id": _ID}, ["id"], stats, group="Files API"
        ),
    ]
    inferred = infer_spec(
        {"domain_id": 0, "name": "files", "groups": {"Files API": len(tools)}}, tools, rows=5, seed=0
    )
    left_out = {e["tool"]: e["reason"] for e in inferred.excluded}
    assert {"CheckHealth", "GetMetrics", "GetDbStats"} <= set(left_out), left_out
    assert "GetPlayerStats" not in left_out and "probe" in left_out["CheckHealth"]
    assert not {"healths", "health", "metrics", "dbs"} & set(inferred.spec["tables"]), inferred.spec["tables"]


def test_an_integer_route_key_of_a_row_kept_by_digits_names_that_row():
    """Seed 91's readers: Billbee's `SendMessage`, `TagsCreate` and `TriggerEvent` ignored the order id, so their rows
    named no order. The orders' key is kept as digits (`"14"`: one tool declares it a string, another an integer);
    an integer `{id}` of `/orders/{id}/messages` still names the order, and its message is the order's."""
    order = {"type": "object", "properties": {"id": _S, "title": _S}}
    message = {"type": "object", "properties": {"id": _S, "subject": _S}}
    tools = [
        api_tool(
            "listOrders", "GET", "/orders", {}, [], {"type": "array", "items": order}, group="Files API"
        ),
        api_tool("getOrder", "GET", "/orders/{id}", {"id": _ID}, ["id"], order, group="Files API"),
        api_tool(
            "sendMessage",
            "POST",
            "/orders/{id}/messages",
            {"id": {"type": "integer", "x-in": "path"}, "subject": _S},
            ["id", "subject"],
            message,
            group="Files API",
        ),
    ]
    spec = _spec(tools, name="shop")
    send = next(t for t in spec["tools"] if t["name"] == "sendMessage")["operation"]
    assert send["values"].get("order_id") == "id", send
    assert spec["tables"]["orders"]["columns"]["order_id"].get("generator") == "digits"
    assert verify(spec, semantic=False) == []
    env = Environment(spec)
    env.reset()
    key = env.dump()["orders"][0]["order_id"]
    obs = env.step("sendMessage", {"id": int(key), "subject": "Where is my parcel?"})
    assert obs["ok"] and obs["result"]["order_id"] == key, obs


def test_a_table_keyed_by_its_name_is_named_by_its_key():
    """Azure's `/resourceGroups/{resourceGroupName}/automationAccounts/{automationAccountName}/variables/{variableName}`:
    the resource group and the account are known by the names in the route, so their rows are named by them (a
    resource group "rg-billing-prod" was named "New Hires 2025" beside it, an automation account "Sullivan Inc"); a
    table keyed by an id gets a name a person can refer to it by."""
    from envscale.env import Environment

    variable = {"type": "object", "properties": {"name": _S, "value": _S, "description": _S}}
    route = "/resourceGroups/{resourceGroupName}/automationAccounts/{automationAccountName}/variables"
    keys = {"resourceGroupName": _ID, "automationAccountName": _ID}
    tools = [
        api_tool("Variable_List", "GET", route, keys, list(keys), variable, group="Files API"),
        api_tool(
            "Variable_Get",
            "GET",
            route + "/{variableName}",
            {**keys, "variableName": _ID},
            [*keys, "variableName"],
            variable,
            group="Files API",
        ),
        api_tool(
            "Variable_CreateOrUpdate",
            "PUT",
            route + "/{variableName}",
            {**keys, "variableName": _ID, "value": _S, "description": _S},
            [*keys, "variableName"],
            variable,
            group="Files API",
        ),
        api_tool(
            "Notes_Get",
            "GET",
            "/owners/{ownerId}/notes/{noteId}",
            {"ownerId": _ID, "noteId": _ID},
            ["ownerId", "noteId"],
            {"type": "object", "properties": {"text": _S}},
            group="Files API",
        ),
    ]
    spec = _spec(tools, name="automation")
    env = Environment(spec)
    state = env.dump()
    env.close()
    for table in ("groups", "accounts"):
        pk = spec["tables"][table]["primary_key"]
        rows = state[table]
        assert rows and all(r["name"] == r[pk] for r in rows), rows
    owners = state["owners"]
    assert any(r["name"] and r["name"] != r["owner_id"] for r in owners), owners


def test_a_field_only_a_response_shows_keeps_its_format():
    """Azure's variable has `properties.creationTime` of `format: date-time`, which no argument sets: its column
    held "11:30" (a time of day, read from the name alone); it holds moments now, and a `format: email` field
    holds addresses."""
    from envscale.env import Environment

    variable = {
        "type": "object",
        "properties": {
            "name": _S,
            "creationTime": {"type": "string", "format": "date-time"},
            "ownerContact": {"type": "string", "format": "email"},
        },
    }
    tools = [
        api_tool("Variable_List", "GET", "/variables", {}, [], variable, group="Files API"),
        api_tool(
            "Variable_Get",
            "GET",
            "/variables/{variableName}",
            {"variableName": _ID},
            ["variableName"],
            variable,
            group="Files API",
        ),
        api_tool(
            "Variable_Delete",
            "DELETE",
            "/variables/{variableName}",
            {"variableName": _ID},
            ["variableName"],
            None,
            group="Files API",
        ),
    ]
    spec = _spec(tools, name="automation")
    columns = spec["tables"]["variables"]["columns"]
    assert columns["creation_time"].get("generator") == "datetime"
    env = Environment(spec)
    rows = env.dump()["variables"]
    env.close()
    moments = [r["creation_time"] for r in rows if r["creation_time"]]
    assert moments and all(re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d", m) for m in moments), moments
    assert all("@" in r["owner_contact"] for r in rows if r["owner_contact"])


def test_an_aws_row_s_arn_is_its_key_and_no_second_column():
    """Kafka Connect addresses a connector as `/v1/connectors/{connectorArn}` and returns `{connectorArn,
    connectorName, ...}`: the connectors table had the key `connector_id` beside a `connector_arn` column left
    empty. One key, one column."""
    connector = {
        "type": "object",
        "properties": {"connectorArn": _S, "connectorName": _S, "connectorState": _S},
    }
    tools = [
        api_tool(
            "ListConnectors",
            "GET",
            "/v1/connectors",
            {},
            [],
            {"type": "array", "items": connector},
            group="Kafka",
        ),
        api_tool(
            "DescribeConnector",
            "GET",
            "/v1/connectors/{connectorArn}",
            {"connectorArn": _ID},
            ["connectorArn"],
            connector,
            group="Kafka",
        ),
        api_tool(
            "DeleteConnector",
            "DELETE",
            "/v1/connectors/{connectorArn}",
            {"connectorArn": _ID},
            ["connectorArn"],
            connector,
            group="Kafka",
        ),
    ]
    spec = _spec(tools, name="kafka")
    connectors = spec["tables"]["connectors"]
    keys = [
        c
        for c in connectors["columns"]
        if re.sub(r"[^a-z]", "", c.lower()) in ("connectorarn", "connectorid")
    ]
    assert keys == [connectors["primary_key"]], connectors["columns"]
