"""No near-duplicate tools inside a world unless their effects differ: two API operations the inference used to
give one effect each get the effect their route means. A read qualified by a state or a time of its rows
(`/articles/published`, `getUpcomingWebinars`) gets a fixed filter, a kind named in the name (an enum value of
a column) fixes that column, and an act in the route (`DELETE /mocks/{uid}/unpublish`) changes a status."""

from apitools import api_tool

from envscale.env import Environment, validate_spec
from envscale.materialize.infer import (
    collection_route,
    infer_spec,
    qualified_rows,
    qualifier_words,
    state_values,
)
from envscale.materialize.verify import kept_by_fixed_filters, verify
from envscale.words.semantics import tool_meaning

_S = {"type": "string"}
_ID = {"type": "string", "x-in": "path"}


def _spec(tools, name="articles"):
    spec = infer_spec({"domain_id": 0, "name": name, "groups": {"API": len(tools)}}, tools, rows=6, seed=0)
    validate_spec(spec.spec)
    return spec.spec


def _ops(spec):
    return {t["name"]: t["operation"] for t in spec["tools"]}


def test_a_trailing_state_word_of_a_route_is_which_rows_not_a_resource():
    m = tool_meaning(
        "getUserUnpublishedArticles", "", {}, {"method": "GET", "path": "/api/articles/me/unpublished"}
    )
    assert (m.effect, m.entity) == ("read", "article")
    m = tool_meaning("getUserAllArticles", "", {}, {"method": "GET", "path": "/api/articles/me/all"})
    assert m.entity == "article"
    m = tool_meaning("getArticles", "", {}, {"method": "GET", "path": "/api/articles"})
    assert m.entity == "article"


def test_a_delete_route_ending_in_a_status_act_changes_the_status_and_never_deletes():
    path = {"method": "DELETE", "path": "/mocks/{mock_uid}/unpublish"}
    m = tool_meaning("unpublishMock", "", {"properties": {"mock_uid": _ID}}, path)
    assert (m.effect, m.entity) == ("status", "mock")
    assert "unpublished" in m.status_value
    m = tool_meaning(
        "deleteMock", "", {"properties": {"mock_uid": _ID}}, {"method": "DELETE", "path": "/mocks/{mock_uid}"}
    )
    assert m.effect == "delete"


def test_qualifier_words_leave_out_resources_a_parameter_names_and_the_tool_s_own_words():
    words = qualifier_words("getUpcomingWebinars", "/organizers/{k}/upcomingWebinars", {"get", "webinar"})
    assert "upcoming" in words and "organizer" not in words and "organizers" not in words
    assert "webinars" not in words


def test_qualified_rows_read_enum_values_booleans_and_time_words():
    columns = {
        "id": {"type": "string"},
        "kind": {"type": "string", "enum": ["infra", "mobile_app"]},
        "published": {"type": "boolean"},
        "start_time": {"type": "string"},
    }
    assert qualified_rows(["mobile_app"], columns, "id", set()) == {"kind": ("eq", "mobile_app")}
    assert qualified_rows(["unpublished"], columns, "id", set()) == {"published": ("eq", False)}
    assert qualified_rows(["published"], columns, "id", set()) == {"published": ("eq", True)}
    assert qualified_rows(["upcoming"], columns, "id", set()) == {"start_time": ("ge", {"now": "datetime"})}
    assert qualified_rows(["infra"], columns, "id", {"kind"}) == {}  # a column the tool binds itself
    assert qualified_rows(["all"], columns, "id", set()) == {}


def _article_tools():
    article = {
        "type": "object",
        "properties": {"id": _S, "title": _S, "published": {"type": "boolean"}},
    }
    arr = {"type": "array", "items": article}
    return [
        api_tool("createArticle", "POST", "/api/articles", {"title": _S}, ["title"], article, group="API"),
        api_tool("getArticleById", "GET", "/api/articles/{id}", {"id": _ID}, ["id"], article, group="API"),
        api_tool("getUserAllArticles", "GET", "/api/articles/me/all", {}, [], arr, group="API"),
        api_tool("getUserPublishedArticles", "GET", "/api/articles/me/published", {}, [], arr, group="API"),
        api_tool(
            "getUserUnpublishedArticles", "GET", "/api/articles/me/unpublished", {}, [], arr, group="API"
        ),
    ]


def test_published_and_unpublished_reads_filter_the_rows_they_name():
    spec = _spec(_article_tools())
    ops = _ops(spec)
    assert ops["getUserAllArticles"]["table"] == "articles"
    fixed = {
        n: [f for f in ops[n]["filters"] if "value" in f]
        for n in ("getUserAllArticles", "getUserPublishedArticles", "getUserUnpublishedArticles")
    }
    assert fixed["getUserAllArticles"] == []
    assert fixed["getUserPublishedArticles"] == [
        {"column": "published", "op": "eq", "value": {"value": True}}
    ]
    assert fixed["getUserUnpublishedArticles"] == [
        {"column": "published", "op": "eq", "value": {"value": False}}
    ]
    env = Environment(spec)
    env.reset()
    published = sum(1 for row in env.dump()["articles"] if row["published"])
    out = env.step("getUserPublishedArticles", {})
    assert out["ok"] and len(out["result"]) == published
    out = env.step("getUserUnpublishedArticles", {})
    assert out["ok"] and len(out["result"]) == len(env.dump()["articles"]) - published


def test_a_kind_named_in_an_act_is_a_precondition_on_the_row():
    config = {
        "type": "object",
        "properties": {"id": _S, "kind": {"type": "string", "enum": ["infra", "mobile_app"]}},
    }
    tools = [
        api_tool(
            "createConfig",
            "POST",
            "/configs",
            {"kind": config["properties"]["kind"]},
            [],
            config,
            group="API",
        ),
        api_tool(
            "enableInfraConfig", "POST", "/configs/{id}/enable", {"id": _ID}, ["id"], config, group="API"
        ),
        api_tool(
            "enableMobileAppConfig", "POST", "/configs/{id}/enable", {"id": _ID}, ["id"], config, group="API"
        ),
    ]
    ops = _ops(_spec(tools, "configs"))
    infra = [p for p in ops["enableInfraConfig"].get("preconditions", []) if p["column"] == "kind"]
    mobile = [p for p in ops["enableMobileAppConfig"].get("preconditions", []) if p["column"] == "kind"]
    assert [p["value"] for p in infra] == ["infra"] and [p["value"] for p in mobile] == ["mobile_app"]


def test_a_state_word_of_a_route_after_a_parameter_is_something_of_that_row():
    path = {"method": "GET", "path": "/items/{item_id}/warehouses/{warehouse_id}/dispatched"}
    m = tool_meaning("getDispatched", "", {"properties": {"item_id": _ID, "warehouse_id": _ID}}, path)
    assert m.entity == "dispatched"


def test_a_state_no_column_holds_is_made_a_boolean_column_of_the_rows_it_qualifies():
    tools = _article_tools()
    for tool in tools:  # the API says nothing of a published flag
        for schema in (tool.get("output_schema") or {}, (tool.get("output_schema") or {}).get("items") or {}):
            (schema.get("properties") or {}).pop("published", None)
    spec = _spec(tools)
    assert spec["tables"]["articles"]["columns"]["published"]["type"] == "boolean"
    ops = _ops(spec)
    assert {"column": "published", "op": "eq", "value": {"value": False}} in ops[
        "getUserUnpublishedArticles"
    ]["filters"]
    assert not [f for f in ops["getUserAllArticles"]["filters"] if "value" in f]


def test_a_kind_named_in_a_create_is_the_value_of_its_column():
    kind = {"type": "string", "enum": ["infra", "mobile_app"]}
    alert = {"type": "object", "properties": {"id": _S, "name": _S, "kind": kind}}
    tools = [
        api_tool("createInfraAlert", "POST", "/infra_alerts", {"name": _S}, ["name"], alert, group="API"),
        api_tool(
            "createMobileAppAlert",
            "POST",
            "/mobile_app_alerts",
            {"name": _S},
            ["name"],
            alert,
            group="API",
        ),
        api_tool("getAlert", "GET", "/alerts/{id}", {"id": _ID}, ["id"], alert, group="API"),
    ]
    ops = _ops(_spec(tools, "alerts"))
    assert ops["createInfraAlert"]["table"] == ops["createMobileAppAlert"]["table"] == "alerts"
    assert ops["createInfraAlert"]["values"]["kind"] == {"value": "infra"}
    assert ops["createMobileAppAlert"]["values"]["kind"] == {"value": "mobile_app"}


def test_a_state_word_matches_the_status_its_verb_sets_and_all_is_never_a_filter():
    columns = {"id": {"type": "string"}, "state": {"type": "string", "enum": ["fresh", "all", "draft"]}}
    assert qualified_rows(["unpublished"], columns, "id", set()) == {"state": ("eq", "draft")}
    assert qualified_rows(["all"], columns, "id", set(), make=True) == {}
    assert state_values("active")[:2] == ("active", "activated")


def test_a_sub_resource_after_a_row_s_id_is_the_child_collection():
    path = {"method": "GET", "path": "/consumer/v1/resources/{id}/services"}
    m = tool_meaning("get_resources_by_id_services", "", {"properties": {"id": _ID}}, path)
    assert (m.entity, m.parent) == ("service", "resource")
    assert collection_route("/users/{id}/transaction_accounts", "account")
    assert not collection_route("/users/{id}/transaction_accounts/{account_id}", "account")


def test_verification_looks_for_a_row_the_fixed_filters_keep():
    spec = _spec(_article_tools())
    problems = verify(spec)
    assert [p for p in problems if "Published" in p["tool"] or "crashed" in p["reason"]] == []
    op = _ops(spec)["getUserUnpublishedArticles"]
    rows = [{"published": True}, {"published": False}, {"published": None}]
    assert kept_by_fixed_filters(spec, op, rows) == [{"published": False}]


def _memory_tools():
    memory = {"type": "object", "properties": {"id": _S, "content": _S}}
    return [
        {
            "name": "core_memory_clear",
            "description": "Delete one entry of core memory.",
            "kind": "write",
            "parameters": {"type": "object", "properties": {"memory_id": _S}, "required": ["memory_id"]},
        },
        {
            "name": "core_memory_add",
            "description": "Add to core memory.",
            "kind": "write",
            "parameters": {"type": "object", "properties": {"content": _S}, "required": ["content"]},
            "output_schema": memory,
        },
        {
            "name": "archival_memory_add",
            "description": "Add to archival memory.",
            "kind": "write",
            "parameters": {"type": "object", "properties": {"content": _S}, "required": ["content"]},
            "output_schema": memory,
        },
        {
            "name": "core_memory_list",
            "description": "List core memory.",
            "kind": "read",
            "parameters": {"type": "object", "properties": {}},
            "output_schema": memory,
        },
        {
            "name": "archival_memory_list",
            "description": "List archival memory.",
            "kind": "read",
            "parameters": {"type": "object", "properties": {}},
            "output_schema": memory,
        },
    ]


def test_siblings_told_apart_by_a_qualifier_are_kinds_of_one_resource():
    spec = _spec(_memory_tools(), "memory")
    ops = _ops(spec)
    table = ops["core_memory_add"]["table"]
    assert spec["tables"][table]["columns"]["kind"]["enum"] == ["archival", "core"]
    assert ops["core_memory_add"]["values"]["kind"] == {"value": "core"}
    assert ops["archival_memory_add"]["values"]["kind"] == {"value": "archival"}
    assert {"column": "kind", "op": "eq", "value": {"value": "core"}} in ops["core_memory_list"]["filters"]
    env = Environment(spec)
    env.reset()
    assert env.step("core_memory_add", {"content": "likes tea"})["ok"]
    listed = env.step("archival_memory_list", {})["result"]
    assert all(row["kind"] == "archival" for row in listed)
    assert "likes tea" in [row["content"] for row in env.step("core_memory_list", {})["result"]]
    # another tool of the table that names a kind acts on that kind only
    assert ops["core_memory_clear"]["preconditions"][0] == {
        "column": "kind",
        "op": "eq",
        "value": "core",
        "error": "refused: this acts only on core memories",
    }


def test_reads_of_one_row_are_never_made_kinds():
    order = {"type": "object", "properties": {"order_id": _S, "total": {"type": "number"}}}
    tools = [
        {
            "name": n,
            "description": n,
            "kind": "read",
            "output_schema": order,
            "parameters": {"type": "object", "properties": {"order_id": _S}, "required": ["order_id"]},
        }
        for n in ("get_order_summary", "get_order_details")
    ]
    tools.append(
        {
            "name": "create_order",
            "description": "Create an order.",
            "kind": "write",
            "output_schema": order,
            "parameters": {"type": "object", "properties": {"total": {"type": "number"}}},
        }
    )
    spec = _spec(tools, "orders")
    assert {t["operation"]["type"] for t in spec["tools"] if t["name"].startswith("get_")} == {"get"}
    assert "kind" not in spec["tables"]["orders"]["columns"]


def test_a_read_of_a_flag_never_requires_the_flag():
    columns = {"id": {"type": "string"}, "login_status": {"type": "boolean"}}
    assert qualified_rows(["login_status"], columns, "id", set()) == {"login_status": ("eq", True)}
    assert qualified_rows(["login_status"], columns, "id", set(), kinds=True) == {}
    tools = [
        {
            "name": "get_login_status",
            "description": "Whether the user is logged in.",
            "kind": "read",
            "parameters": {"type": "object", "properties": {}},
            "output_schema": {"type": "object", "properties": {"login_status": {"type": "boolean"}}},
        },
        {
            "name": "login",
            "description": "Log in.",
            "kind": "write",
            "parameters": {"type": "object", "properties": {"username": _S}, "required": ["username"]},
        },
    ]
    spec = _spec(tools, "message")
    assert not _ops(spec)["get_login_status"].get("preconditions")


def test_a_delete_named_for_a_status_verb_without_an_act_in_its_route_still_deletes():
    props = {"properties": {"booking_id": _ID}}
    m = tool_meaning("cancelBooking", "", props, {"method": "DELETE", "path": "/bookings/{booking_id}"})
    assert m.effect == "delete"


def test_a_status_act_sets_the_enum_s_own_spelling_of_its_status():
    booking = {
        "type": "object",
        "properties": {
            "id": _S,
            "status": {"type": "string", "enum": ["PENDING", "ACCEPTED", "ARCHIVED", "CANCELLED"]},
        },
    }
    tools = [
        api_tool("getBooking", "GET", "/bookings/{id}", {"id": _ID}, ["id"], booking, group="API"),
        api_tool("cancelBooking", "POST", "/bookings/{id}/cancel", {"id": _ID}, ["id"], booking, group="API"),
    ]
    op = _ops(_spec(tools, "bookings"))["cancelBooking"]
    assert op["fixed"] == {"status": "CANCELLED"}
    assert op["preconditions"][-1]["value"] == ["PENDING", "ACCEPTED"]


def test_a_status_act_never_moves_a_row_on_from_a_status_it_ended_in():
    """Blind readers found a SUCCEEDED batch submitted again, a mandate in CANCEL_FILE_SENT activated and a Denied
    reservation cancelled: a row whose course has ended is moved on by no act but one that reopens it."""
    batch = {
        "type": "object",
        "properties": {
            "id": _S,
            "status": {
                "type": "string",
                "enum": ["OPEN", "SUBMITTED", "SUCCEEDED", "FAILED", "CANCEL_FILE_SENT", "REMOVED"],
            },
        },
    }
    tools = [
        api_tool("getBatch", "GET", "/batches/{id}", {"id": _ID}, ["id"], batch, group="API"),
        api_tool("submitBatch", "PUT", "/batches/{id}/submit", {"id": _ID}, ["id"], batch, group="API"),
        api_tool("cancelBatch", "POST", "/batches/{id}/cancel", {"id": _ID}, ["id"], batch, group="API"),
        api_tool("reopenBatch", "POST", "/batches/{id}/reopen", {"id": _ID}, ["id"], batch, group="API"),
    ]
    ops = _ops(_spec(tools, "batches"))
    assert ops["submitBatch"]["preconditions"][-1]["value"] == ["OPEN"]
    assert set(ops["cancelBatch"]["preconditions"][-1]["value"]) == {"OPEN", "SUBMITTED"}
    assert "SUCCEEDED" in ops["reopenBatch"]["preconditions"][-1]["value"]


def test_a_state_the_status_names_only_by_its_opposite_filters_out_the_opposite():
    columns = {"id": {"type": "string"}, "state": {"type": "string", "enum": ["fresh", "draft"]}}
    assert qualified_rows(["published"], columns, "id", set()) == {"state": ("ne", "draft")}
    assert qualified_rows(["published"], columns, "id", set(), kinds=True) == {}
