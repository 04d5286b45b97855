"""Tasks a person would ask: never an API's header ids, a table named after an operation, a new row's own
id, a row found by its coordinates, a column name run together, or a field set to its own value."""

import json
import random

from apitools import api_tool

from envscale.materialize.infer import infer_spec
from envscale.tasks.asks import asked_by, read_aloud
from envscale.tasks.build import TasksConfig
from envscale.tasks.generate import env_tasks
from envscale.words.semantics import verb_named

_S = {"type": "string"}
_HEADER = {"type": "string", "x-in": "header"}


def _tool(name, method, path, props, required, output=None):
    return api_tool(name, method, path, props, required, output, group="Logistics API")


def _row():
    """A vtex-like logistics API: auth headers on every call, a PUT that needs the whole carrier, and an
    operation (`/carriers/{id}/adddayofweekblocked`) that a route names like a resource."""
    path = {"type": "string", "x-in": "path"}
    carrier = {
        "type": "object",
        "properties": {"id": _S, "name": _S, "status": {"type": "string", "enum": ["active", "inactive"]},
                       "slug": _S, "latitude": {"type": "number"}},
    }  # fmt: skip
    headers = {"X-VTEX-API-AppKey": _HEADER, "X-VTEX-API-AppToken": _HEADER}
    need = ["X-VTEX-API-AppKey", "X-VTEX-API-AppToken"]
    body = {
        "name": {**_S, "x-in": "body"},
        "slug": {**_S, "x-in": "body"},
        "status": carrier["properties"]["status"],
    }
    tools = [
        _tool("CreateCarrier", "POST", "/carriers", {**headers, **body}, [*need, "name"], carrier),
        _tool("GetCarrier", "GET", "/carriers/{carrierId}", {**headers, "carrierId": path}, ["carrierId", *need], carrier),
        _tool("ListCarriers", "GET", "/carriers", {**headers, "latitude": {"type": "number", "x-in": "query"},
              "slug": {**_S, "x-in": "query"}}, need, carrier),  # fmt: skip
        _tool("UpdateCarrier", "PUT", "/carriers/{carrierId}", {**headers, "carrierId": path, **body},
              ["carrierId", "name", "slug", "status", *need], carrier),  # fmt: skip
        _tool("AddDayOfWeekBlocked", "POST", "/carriers/{carrierId}/adddayofweekblocked",
              {**headers, "carrierId": path, "body": {**_S, "x-in": "body"}}, ["carrierId", "body", *need]),  # fmt: skip
        _tool("DeleteCarrier", "DELETE", "/carriers/{carrierId}", {**headers, "carrierId": path}, ["carrierId", *need]),
    ]  # fmt: skip
    spec = infer_spec(
        {"domain_id": 7, "name": "logistics", "groups": {"Logistics API": 6}}, tools, rows=12, seed=0
    )
    return {"spec": spec.spec, "domain_id": 7, "name": spec.spec["name"], "read_only": False}


def _tasks():
    config = TasksConfig(tasks_per_env=40, max_same_tools_share=1.0)  # every kind, however alike
    return env_tasks(_row(), config, None, random.Random(0))


def test_words_a_person_uses_and_does_not():
    assert verb_named("adddayofweekblocked") and verb_named("simulate") and verb_named("exported")
    assert not verb_named("order") and not verb_named("feed") and not verb_named("followed_network")
    # things of their own in APIs: Google Tasks' task lists, fire.com's payment batches, Avaza's estimates
    assert not verb_named("list") and not verb_named("batch") and not verb_named("estimate")
    assert verb_named("create_order") and verb_named("search")
    # seed 92's readers: "skip track adds a players or nexts row", "opting in only adds stub rows"; an HR leave stays
    assert verb_named("skip") and verb_named("next") and verb_named("opt_in") and verb_named("join")
    assert not verb_named("leave_request") and not verb_named("follow")
    assert not asked_by("latitude", "latitude", 41.866395)
    assert not asked_by("from", "from", "Denver, CO")
    # a blind reader: "the status of the user with body "Shared the design doc with Smith-Crane; two open questions
    # remain."": no one describes a row by a sentence it holds; a title is asked by
    assert not asked_by("body", "body", "Shared the design doc with Smith-Crane; two open questions remain.")
    assert asked_by("title", "title", "Package #7763 marked delivered but not received")
    assert asked_by("email", "email", "ana@example.com")
    # two blind readers: "projects with last update at least 2023-12-20T01:05:18Z"; a day is said, a second is not
    assert not asked_by("UpdatedAfter", "updated_at", "2023-12-20T01:05:18Z")
    assert asked_by("UpdatedAfter", "updated_at", "2023-12-20")
    assert not read_aloud("status_new_status") and read_aloud("new_status")


def test_tasks_never_state_headers_never_use_operation_tables_and_updates_state_only_changes():
    kept, rejected = _tasks()
    assert kept, rejected
    assert "read" in {r["kind"] for r in kept}
    # the checks below have an update and a write to look at (in a write or a mixed task: which kind keeps the
    # chain first is the draw's; since a plain delete deletes, its chains duplicate the mixed ones here)
    tools = [
        c["tool"]
        for r in kept
        for c in (r["gold_calls"] if isinstance(r["gold_calls"], list) else json.loads(r["gold_calls"]))
    ]
    assert "UpdateCarrier" in tools and {"CreateCarrier", "DeleteCarrier"} & set(tools), tools
    assert "operation_table" in {r["code"] for r in rejected}  # the gate records why
    for row in kept:
        calls = row["gold_calls"] if isinstance(row["gold_calls"], list) else json.loads(row["gold_calls"])
        text = row["first_message"].lower()
        assert "vtex" not in text and "app key" not in text and "token" not in text, text
        assert "adddayofweekblocked" not in text and "latitude" not in text, text
        for call in calls:
            assert not {a for a in call["arguments"] if a.startswith("X-")}, call
            assert call["tool"] != "AddDayOfWeekBlocked"
            if call["tool"] == "UpdateCarrier":
                said = [a for a, p in call["provenance"].items() if a != "carrierId"]
                assert 1 <= len(said) <= 2, call  # only what changes, never the whole body
                assert all(not p.startswith("call[") for a, p in call["provenance"].items() if a in said)
            if call["tool"] == "CreateCarrier":
                assert "carrierId" not in call["arguments"]


def test_a_sort_direction_is_an_option_never_a_filter():
    from envscale.words.semantics import argument_role

    assert argument_role("order_dir", {"type": "string"}) == "option"
    assert argument_role("sortDirection", {"type": "string"}) == "option"


def test_adjectives_and_sort_keys_are_not_things_a_person_creates():
    assert verb_named("custom") and verb_named("sort")
    assert not verb_named("custom_object")  # apideck's custom objects are things


# ------------------------------------------------------------------ third quality pass (issue 10)


class _FakeEnv:
    """What the task gates read of an environment: its spec, rows, tools, and whether it is a real API."""

    def __init__(self, tables, tools, rows=None, session=None, grouped=True):
        self.spec = {"name": "fake", "tables": tables, "tools": tools}
        if session:
            self.spec["session"] = {"table": session}
        self.tools = {t["name"]: t for t in tools}
        self.rows = rows or {t: [] for t in tables}
        self.grouped = grouped

    def pk(self, table):
        return self.spec["tables"][table]["primary_key"]


def _spec_tool(name, op, kind="write", entity=None, params=None):
    return {
        "name": name,
        "kind": kind,
        "operation": op,
        "parameters": {"type": "object", "properties": params or {}, "required": []},
        "metadata": {"entity": entity},
    }


def _table(pk, *columns, refs=None):
    cols = {pk: {"type": "string"}, **{c: {"type": "string", "nullable": True} for c in columns}}
    for column, ref in (refs or {}).items():
        cols[column] = {"type": "string", "nullable": True, "references": ref}
    return {"primary_key": pk, "columns": cols}


def test_loose_functions_on_the_session_row_or_stored_as_calls_are_not_posed():
    from envscale.tasks.asks import loose_function

    tables = {
        "accounts": _table("account_id", "text_start", "balance"),
        "tools": _table("tool_id", "content"),
        "ends": _table("end_id", "session_id"),
        "paintings": _table("painting_id", "shape"),
    }
    set_text = _spec_tool("setText", {"type": "update", "table": "accounts"}, entity="text")
    fund = _spec_tool("fund_account", {"type": "update", "table": "accounts"}, entity="account")
    login = _spec_tool(
        "user_authentication", {"type": "get", "table": "accounts"}, "read", entity="<session>"
    )
    markdown = _spec_tool("write_markdown_tool", {"type": "insert", "table": "tools"}, entity="tool")
    end = _spec_tool("end_request", {"type": "insert", "table": "ends"}, entity="end")
    paint = _spec_tool("painting_create", {"type": "insert", "table": "paintings"}, entity="painting")
    tools = [set_text, fund, login, markdown, end, paint]
    loose = _FakeEnv(tables, tools, session="accounts", grouped=False)
    assert loose_function(loose, set_text)[0] == "session_row_function"  # "update the text start to 9.41"
    assert loose_function(loose, login)[0] == "session_row_function"  # "the redirect URL of my account; ..."
    assert loose_function(loose, markdown) == (
        "function_rows",
        "write_markdown_tool keeps tools rows (the call, not a thing)",
    )
    assert loose_function(loose, end)[0] == "function_rows"
    assert loose_function(loose, fund) is None and loose_function(loose, paint) is None
    # a real API keeps its session-row writes (`set_budget_limit`); a read there asks about another thing
    api = _FakeEnv(tables, tools, session="accounts", grouped=True)
    comments = _spec_tool("get_comments", {"type": "get", "table": "accounts"}, "read", entity="comment")
    assert loose_function(api, set_text) is None and loose_function(api, markdown) is None
    assert loose_function(api, comments) == (
        "session_row_function",
        "get_comments acts on a comment, stored as columns of the account",
    )


def test_a_create_must_say_what_it_creates():
    from envscale.tasks.asks import creates_from_nothing
    from envscale.tasks.model import GoldCall
    from envscale.tasks.naming import tool_bindings

    tables = {
        "mocks": _table("mock_id", "collection", "type"),
        "versions": _table("version_id", "name", refs={"api_id": "apis"}),
        "apis": _table("api_id", "name"),
        "follows": _table("follow_id", refs={"show_id": "shows"}),
        "shows": _table("show_id", "name"),
    }
    mock = _spec_tool(
        "createMock",
        {"type": "insert", "table": "mocks", "values": {"collection": "collection", "type": "type"}},
    )
    version = _spec_tool(
        "createApiVersion",
        {"type": "insert", "table": "versions", "values": {"api_id": "apiId", "name": "name"}},
    )
    follow = _spec_tool(
        "follow_show", {"type": "insert", "table": "follows", "values": {"show_id": "show_id"}}
    )
    env = _FakeEnv(tables, [mock, version, follow])

    def why(tool, **args):
        return creates_from_nothing(
            env,
            tool,
            GoldCall(tool["name"], args, dict.fromkeys(args, "user"), write=True),
            tool_bindings(tool),
        )

    assert why(mock) == ("empty_create", "createMock makes a mock from no argument")  # a row of nulls
    assert why(mock, type="personal")[0] == "empty_create"  # only a category
    assert why(mock, collection="Checkout API tests") is None
    assert why(version, apiId="api_0008")[0] == "empty_create"  # a nameless version of an API
    assert why(version, apiId="api_0008", name="2.0") is None
    assert why(follow, show_id="sho_0003") is None  # a link row is its references


def test_an_act_written_as_a_word_is_not_a_change_a_status_is():
    from envscale.tasks.asks import verb_as_value
    from envscale.tasks.model import GoldCall

    tables = {"lots": _table("lot_id", "supply_lot", "status")}
    transfer = _spec_tool(
        "TransferSupplyLot",
        {"type": "update", "table": "lots", "key": {"lot_id": "lotId"}, "fixed": {"supply_lot": "transfer"}},
    )
    close = _spec_tool(
        "CloseLot",
        {"type": "update", "table": "lots", "key": {"lot_id": "lotId"}, "fixed": {"status": "closed"}},
    )
    env = _FakeEnv(tables, [transfer, close])
    call = GoldCall("TransferSupplyLot", {"lotId": "lot_0001"}, {"lotId": "user"}, write=True)
    assert verb_as_value(env, transfer, call)[0] == "verb_as_value"
    assert (
        verb_as_value(env, close, GoldCall("CloseLot", {"lotId": "lot_0001"}, {"lotId": "user"}, write=True))
        is None
    )


def test_rows_a_write_names_must_belong_together_and_a_bare_route_id_is_not_a_value():
    from envscale.tasks.asks import bare_id_value, references_disagree
    from envscale.tasks.model import GoldCall
    from envscale.tasks.naming import tool_bindings

    tables = {
        "apis": _table("api_id", "name"),
        "versions": _table("version_id", "name", refs={"api_id": "apis"}),
        "relations": _table("relation_id", "mock", refs={"api_id": "apis", "version_id": "versions"}),
        "tags": _table("tag_id", "id", "body"),
    }
    rows = {
        "apis": [{"api_id": "api_0010"}, {"api_id": "api_0013"}],
        "versions": [{"version_id": "ver_0018", "api_id": "api_0010"}],
        "relations": [],
        "tags": [],
    }
    relate = _spec_tool(
        "createRelations",
        {
            "type": "insert",
            "table": "relations",
            "values": {"api_id": "apiId", "version_id": "apiVersionId", "mock": "mock"},
        },
    )
    tag = _spec_tool(
        "post_users_by_id_tags", {"type": "insert", "table": "tags", "values": {"id": "id", "body": "body"}}
    )
    env = _FakeEnv(tables, [relate, tag], rows)

    def call(tool, **args):
        return GoldCall(tool["name"], args, dict.fromkeys(args, "user"), write=True)

    wrong = call(relate, apiId="api_0013", apiVersionId="ver_0018", mock="m")
    assert references_disagree(env, relate, wrong, tool_bindings(relate))[0] == "references_disagree"
    right = call(relate, apiId="api_0010", apiVersionId="ver_0018", mock="m")
    assert references_disagree(env, relate, right, tool_bindings(relate)) is None
    assert (
        bare_id_value(env, tag, call(tag, id=5361, body="hi"), tool_bindings(tag))[0] == "misbound_argument"
    )


def test_columns_no_one_sets_and_ids_the_session_row_ignores():
    from envscale.tasks.asks import session_row_named, sets_what_no_one_asks
    from envscale.tasks.model import GoldCall
    from envscale.tasks.naming import tool_bindings

    tables = {
        "configs": _table(
            "config_id",
            "created",
            "update_fields",
            "name",
            "project_category_idfk",
            "project_status_code",
            "currency_code",
        ),
        "accounts": _table("account_id", "tolerance"),
    }
    update = _spec_tool(
        "restore_config",
        {
            "type": "update",
            "table": "configs",
            "key": {"config_id": "id"},
            "set": {
                "created": "created",
                "update_fields": "update_fields",
                "name": "name",
                "project_category_idfk": "ProjectCategoryIDFK",
                "project_status_code": "ProjectStatusCode",
                "currency_code": "CurrencyCode",
            },
        },
    )
    tolerance = _spec_tool(
        "Changetolerance",
        {
            "type": "update",
            "table": "accounts",
            "key": {"account_id": {"session": "account_id"}},
            "set": {"tolerance": "value"},
        },
    )
    env = _FakeEnv(tables, [update, tolerance], session="accounts")
    binds = tool_bindings(update)

    def sets(arg):
        return sets_what_no_one_asks(
            GoldCall(update["name"], {"id": "c", arg: "x"}, {}, write=True), binds, [arg], {}
        )

    assert sets("created")[0] == "system_column"  # "update the created of my config"
    assert sets("update_fields")[0] == "request_body_column"  # "set the update fields of repository ..."
    assert sets("name") is None
    # a blind reader: "change its budget amount to 174590.36 and the project category idfk to 1"
    assert sets("ProjectCategoryIDFK")[0] == "key_column"
    # "set its project status code to MC-9686": a status is picked by its label; a currency's code is what it is
    assert sets("ProjectStatusCode")[0] == "coded_column" and sets("CurrencyCode") is None
    said = GoldCall(
        "Changetolerance",
        {"value": 129.5, "creditAccountId": "206ff76d"},
        {"value": "constant", "creditAccountId": "constant"},
        write=True,
    )
    code, detail = session_row_named(env, tolerance, said, tool_bindings(tolerance))
    assert code == "misbound_argument" and "session row" in detail
    plain = GoldCall("Changetolerance", {"value": 129.5}, {"value": "constant"}, write=True)
    assert session_row_named(env, tolerance, plain, tool_bindings(tolerance)) is None


def test_one_id_per_thing_clocks_readings_envelopes_repeats_and_range_words():
    from envscale.tasks.asks import askable, asked_by, clock_rows, two_ids_for_one
    from envscale.tasks.gold import READINGS
    from envscale.tasks.model import GoldCall, TaskDraft

    calls = [
        GoldCall("RetrieveAccount", {"creditAccountId": "acc_0001"}, {"creditAccountId": "user"}),
        GoldCall(
            "RetrieveInvoice",
            {"invoiceId": "inv_0008", "creditAccountId": "ca_3710"},
            {"invoiceId": "call[0].invoice_id", "creditAccountId": "user"},
        ),
    ]
    assert two_ids_for_one(TaskDraft("fake", "read", calls))[0] == "data_flow_broken"
    calls[1].arguments["creditAccountId"] = "acc_0001"
    assert two_ids_for_one(TaskDraft("fake", "read", calls)) is None
    assert clock_rows({"name": "get_current_time", "operation": {"table": "times"}})
    assert clock_rows({"name": "get_ticket", "operation": {"table": "tickets"}}) is None
    assert {"date", "rate"} <= READINGS
    assert not askable("customers", "operation", "resume")  # an API envelope's field
    assert askable("customers", "status", "active")
    assert not asked_by("since", "created_at", "2023-12-25")  # "the API with since 2023-12-25"


def test_a_list_said_with_an_item_twice_is_filler():
    from envscale.tasks.asks import filler_fact
    from envscale.tasks.model import GoldCall, TaskDraft

    tables = {
        "relations": {
            "primary_key": "relation_id",
            "columns": {
                "relation_id": {"type": "string"},
                "documentation": {"type": "json", "nullable": True},
            },
        }
    }
    tool = _spec_tool(
        "createRelations",
        {"type": "insert", "table": "relations", "values": {"documentation": "documentation"}},
        params={"documentation": {"type": "array", "items": {"type": "string"}}},
    )
    env = _FakeEnv(tables, [tool])
    twice = GoldCall(
        tool["name"],
        {"documentation": ["collection-uid-3", "collection-uid-3"]},
        {"documentation": "user"},
        write=True,
    )
    code, detail = filler_fact(env, TaskDraft("fake", "write", [twice]))
    assert code == "filler_value" and "repeats an item" in detail
    once = GoldCall(
        tool["name"],
        {"documentation": ["Checkout docs", "Billing docs"]},
        {"documentation": "user"},
        write=True,
    )
    assert filler_fact(env, TaskDraft("fake", "write", [once])) is None


def test_a_reservation_or_booking_is_said_as_the_act_on_its_thing():
    def loose(name, props):
        return {
            "id": name,
            "name": name,
            "original_name": name,
            "description": name.replace("_", " "),
            "parameters": {"type": "object", "properties": props, "required": list(props)},
            "kind": "write",
        }

    tools = [
        loose(
            "Restaurants_2_ReserveRestaurant",
            {"restaurant_name": _S, "location": _S, "time": _S, "date": {"type": "string", "format": "date"}},
        ),
        loose(
            "hotel_bookings_book_room", {"location": _S, "room_type": _S, "no_of_nights": {"type": "integer"}}
        ),
    ]
    spec = infer_spec({"domain_id": 3, "name": "travel"}, tools, rows=10, seed=0).spec
    assert {"reservations", "bookings"} <= set(spec["tables"])  # the act is the row, not a new restaurant
    row = {"spec": spec, "domain_id": 3, "name": spec["name"], "read_only": False}
    kept, _ = env_tasks(row, TasksConfig(tasks_per_env=30, loose_env_share=1.0), None, random.Random(0))
    said = [r["first_message"].lower() for r in kept if r["kind"] == "write"]
    assert said
    assert not any("book a booking" in s or "reserve a reservation" in s for s in said), said
    assert any("make a reservation at" in s or "book a room" in s for s in said), said


def test_a_list_of_objects_is_checked_for_repeats_without_failing():
    from envscale.tasks.asks import filler_fact
    from envscale.tasks.model import GoldCall, TaskDraft

    tables = {
        "scrobbles": {
            "primary_key": "scrobble_id",
            "columns": {"scrobble_id": {"type": "string"}, "body": {"type": "json", "nullable": True}},
        }
    }
    item = {
        "type": "object",
        "properties": {"episode_id": {"type": "integer"}, "marked_at": {"type": "integer"}},
    }
    tool = _spec_tool(
        "post_scrobble_episodes",
        {"type": "insert", "table": "scrobbles", "values": {"body": "body"}},
        params={"body": {"type": "array", "items": item}},
    )
    env = _FakeEnv(tables, [tool])
    body = [{"episode_id": 2767, "marked_at": 9}, {"episode_id": 2767, "marked_at": 9}]
    call = GoldCall(tool["name"], {"body": body}, {"body": "user"}, write=True)
    code, detail = filler_fact(env, TaskDraft("fake", "write", [call]))
    assert code == "filler_value" and "repeats an item" in detail


def test_a_create_that_names_its_row_says_the_name():
    """`named` was never in the attributes it was removed from: every create with a name argument failed."""
    tools = [
        {
            "id": "create_asset",
            "name": "create_asset",
            "original_name": "create_asset",
            "description": "Create an asset",
            "group": "Assets API",
            "parameters": {
                "type": "object",
                "properties": {"name": _S, "location": _S},
                "required": ["name"],
            },
            "kind": "write",
        },
        {
            "id": "get_asset",
            "name": "get_asset",
            "original_name": "get_asset",
            "description": "Get an asset",
            "group": "Assets API",
            "parameters": {"type": "object", "properties": {"asset_id": _S}, "required": ["asset_id"]},
            "kind": "read",
        },
    ]
    spec = infer_spec(
        {"domain_id": 4, "name": "assets", "groups": {"Assets API": 2}}, tools, rows=10, seed=0
    ).spec
    row = {"spec": spec, "domain_id": 4, "name": spec["name"], "read_only": False}
    kept, rejected = env_tasks(row, TasksConfig(tasks_per_env=20), None, random.Random(0))
    assert not [r for r in rejected if r["code"] == "candidate_failed"], rejected
    creates = [
        r["first_message"] for r in kept if r["kind"] == "write" and "create_asset" in str(r["gold_calls"])
    ]
    assert any(" named " in m for m in creates), creates


# ------------------------------------------------------------------ fourth quality pass (issue 10)


def test_a_column_asked_or_filtered_by_is_said_as_a_noun():
    from envscale.tasks.asks import askable
    from envscale.tasks.wording import readable_words, said_as_noun

    # "the creation date of status sta_0004", never "the created of status sta_0004"
    assert readable_words("created") == "creation date" and readable_words("updated_by") == "last editor"
    assert askable("statuses", "created", "2024-01-04T20:54:51Z")
    assert not askable("differences", "city_1", "Boston, MA")  # "the city 1 of the difference ..."
    assert not askable("bookings", "update_booking_version_at_timestamp", "2024-01-04T20:54:51Z")
    assert not askable("hotels", "check_out", "2024-01-04")  # "the check out of hotel hot_0001"
    # "the feature with start 42.63, wanted by 78": filters said by bare column names
    assert not asked_by("wanted_by", "wanted_by", 78)
    assert not asked_by("start", "start", 42.63)
    assert not asked_by("a", "a", False)  # "how many directories with a no there are" (`ls(a=False)`)
    assert asked_by("start", "start", "2024-05-01")
    assert not said_as_noun("deleted", None, "2024-05-01") and said_as_noun("deleted", None, True)
    assert said_as_noun("address_line_1") and said_as_noun("speed", None, 3)


def _sculpture_env():
    tables = {"sculptures": _table("sculpture_id", "location", "museum_location", "title")}
    get = _spec_tool(
        "get_sculpture_details",
        {"type": "get", "table": "sculptures", "key": {"sculpture_id": "sculpture_id"}, "returns": "row"},
        kind="read",
        params={"sculpture_id": {"type": "string"}, "museum_location": {"type": "string"}},
    )
    row = {"sculpture_id": "scu_0010", "location": "Kansas City, MO", "museum_location": None, "title": "Sun"}

    class Env(_FakeEnv):
        def key_arg(self, tool):
            return "sculpture_id"

    return Env(tables, [get], rows={"sculptures": [row]}), get


def test_a_stated_fact_must_agree_with_the_row_the_call_reads():
    from envscale.tasks.gold import contradicts_row
    from envscale.tasks.model import GoldCall, TaskDraft

    env, get = _sculpture_env()

    def draft(location, required):
        get["parameters"]["required"] = ["sculpture_id", "museum_location"] if required else ["sculpture_id"]
        args = {"sculpture_id": "scu_0010", "museum_location": location}
        call = GoldCall(get["name"], args, dict.fromkeys(args, "user"))
        return TaskDraft("fake", "read", [call], user_facts={"museum location": location})

    # "check the title of sculpture 10? The museum location is Pittsburgh, PA." on a Kansas City sculpture
    wrong = draft("Pittsburgh, PA", required=True)
    assert contradicts_row(env, wrong, 0, [])[0] == "contradicts_row"
    optional = draft("Pittsburgh, PA", required=False)
    assert contradicts_row(env, optional, 0, []) is None
    assert "museum_location" not in optional.calls[0].arguments  # left out, and so is the user's fact
    assert "museum location" not in optional.user_facts
    right = draft("Kansas City, MO", required=True)
    assert contradicts_row(env, right, 0, []) is None and right.calls[0].arguments["museum_location"]
    # the row's own data disagree (its museum location Lagos, its location Lyon): the fact is not posed
    env.rows["sculptures"][0].update(location="Lyon, France", museum_location="Lagos, Nigeria")
    assert contradicts_row(env, draft("Lagos, Nigeria", required=True), 0, [])[0] == "contradicts_row"
    # stated as the row's location, the fact agrees with the row
    assert contradicts_row(env, draft("Lyon, France", required=True), 0, []) is None


def test_a_stated_text_fits_what_its_column_holds():
    from envscale.tasks.asks import text_misfit

    assert "question" in text_misfit("projects", "description", "What will the weather be like in Oslo?")
    assert (
        text_misfit("messages", "message", "Can you recommend a good Greek restaurant in Auckland?") is None
    )
    assert "comment" in text_misfit("comments", "data", "app.murphy.io")  # "add a comment with data app..."
    assert text_misfit("comments", "data", "Looks good to me, thanks.") is None
    assert "JSON" in text_misfit("pages", "body_json", "Shared the design doc with Smith Ltd.")
    assert text_misfit("pages", "body_json", '{"blocks": []}') is None


def test_a_read_of_the_session_row_is_never_said_with_another_rows_bare_id():
    from envscale.tasks.asks import session_row_named
    from envscale.tasks.model import GoldCall
    from envscale.tasks.naming import tool_bindings

    tables = {"accounts": _table("account_id", "title")}
    read = _spec_tool(
        "get_users_by_id_transaction_accounts",
        {
            "type": "get",
            "table": "accounts",
            "key": {"account_id": {"session": "account_id"}},
            "returns": "row",
        },
        kind="read",
        params={"id": {"type": "integer"}},
    )
    env = _FakeEnv(tables, [read], session="accounts")
    env.session_row = {"account_id": 1, "title": "Titan Account"}
    binds = tool_bindings(read)
    # "find out the name on my account. The id is 6." reads account 1, whatever user 6 is
    other = GoldCall(read["name"], {"id": 6}, {"id": "user"})
    code, detail = session_row_named(env, read, other, binds)
    assert code == "misbound_argument" and "session row" in detail
    own = GoldCall(read["name"], {"id": 1}, {"id": "user"})
    assert session_row_named(env, read, own, binds) is None


def test_a_row_found_by_another_things_name_is_not_said_as_named():
    from types import SimpleNamespace

    from envscale.tasks.phrases import NP, Phrases

    def phrase(column, value, entity="sculpture"):
        np = NP(entity, "the", short=f"the {entity}")
        writer = SimpleNamespace(column_spec=lambda op, c: {})
        Phrases.filter_phrase(writer, np, SimpleNamespace(op={}, entity=entity), column, "eq", value)
        return np.render()

    # "the title of the sculpture named "Robert Duffy"" read the artist's name as the sculpture's
    assert phrase("artist_name", "Robert Duffy") == "the sculpture with artist Robert Duffy"
    assert phrase("company_name", "Acme Corp", "contact") == "the contact with company name Acme Corp"
    assert phrase("sculpture_name", "The Thinker") == 'the sculpture named "The Thinker"'
    assert phrase("person_name", "Erica Davis", "contact") == 'the contact named "Erica Davis"'


def test_a_row_keyed_by_its_name_is_said_as_named_not_as_its_key():
    """ "close the project name project-inventory-main-14" and "the name of polygon name geoshape-web-14" read
    the key's column as words; a row keyed by its name or title is the project named "...", and one keyed by
    a number stays "reservation number 6"."""
    from types import SimpleNamespace

    from envscale.tasks.phrases import Phrases

    spec = {
        "name": "x",
        "tables": {
            "projects": {"primary_key": "project_name", "columns": {"project_name": {"type": "string"}}},
            "polygons": {"primary_key": "polygonName", "columns": {"polygonName": {"type": "string"}}},
            "pages": {"primary_key": "page_title", "columns": {"page_title": {"type": "string"}}},
            "reservations": {
                "primary_key": "reservation_number",
                "columns": {"reservation_number": {"type": "integer"}},
            },
        },
        # listed: no caller's own project that scopes every route ("my project named ...")
        "tools": [
            {"name": "list_projects", "kind": "read", "operation": {"type": "list", "table": "projects"}}
        ],
    }
    writer = SimpleNamespace(
        spec=spec, person=None, customer=False, owned=set(), session=False, self_value=None
    )

    def said(table, value):
        return Phrases.value_np(writer, table, value, hidden=False).render()

    assert said("projects", "project-inventory-main-14") == 'project named "project-inventory-main-14"'
    assert said("polygons", "geoshape-web-staging-14") == 'polygon named "geoshape-web-staging-14"'
    assert said("pages", "About Us") == 'page titled "About Us"'
    assert said("reservations", 6) == "reservation number 6"


def test_a_title_or_subject_that_singles_out_a_row_is_said_in_quotes():
    """ "look up the spot whose title is Old lighthouse among those of the map whose title is Kids' playgrounds"
    ran the row's words into the sentence's; a date or a one-word value stays bare."""
    from envscale.tasks.phrases import _whose

    assert _whose("title", "Old lighthouse", False) == 'whose title is "Old lighthouse"'
    assert _whose("subject", "1:1 with Bailey", False) == 'whose subject is "1:1 with Bailey"'
    assert (
        _whose("summary_override", "Engineering backlog", False)
        == 'whose summary override is "Engineering backlog"'
    )
    assert _whose("due_date", "2025-08-03", False) == "whose due date is 2025-08-03"
    assert _whose("owner", "Sam Clarke", False) == "whose owner is Sam Clarke"


def test_a_to_or_from_field_is_named_by_what_it_holds():
    """ "update the body ... and the to to "+1 960 305 4853"": a message's `to` is its recipient, a trip's its
    destination."""
    from envscale.tasks.wording import change_label

    assert change_label("to", "+1 960 305 4853") == "recipient"
    assert change_label("from", "ana.ruiz@example.com") == "sender"
    assert change_label("to", "Boston, MA") == "destination"
    assert change_label("from", "Seattle") == "origin"
    assert change_label("subject", "Hello") == "subject"


def test_a_row_a_create_names_within_another_is_not_named_again():
    """ "add an award for the user of the offering named "Office Offering" for the offering named "Office
    Offering"": the offering is said within the user."""
    from envscale.tasks.clauses import _not_said_within

    user = 'the user of the offering named "Office Offering"'
    offering = 'the offering named "Office Offering"'
    assert _not_said_within([user, offering], ["add an award"]) == [user]
    assert _not_said_within([offering, user], ["add an award"]) == [user]
    assert _not_said_within(["product pro_0001", "product pro_0001"], []) == ["product pro_0001"]
    assert _not_said_within(["the order ord_0002"], ["add an item", "to the order ord_0002"]) == []
    assert _not_said_within(["product pro_0001", "customer cus_0002"], []) == [
        "product pro_0001",
        "customer cus_0002",
    ]


# ------------------------------------------------------------------ ninth part (issue 19)


def test_the_api_address_of_a_row_is_never_asked_for():
    """ "find out the href of the event", "check the uri of the playlist", "the self link of the list": a
    client follows those, a person never asks for them. A web page a person opens is asked."""
    import random

    from envscale.tasks.asks import api_address, askable
    from envscale.tasks.gold import answer_values

    assert not askable("events", "href", "https://api.example.com/v1/events/3")
    assert not askable("playlists", "uri", "spotify:playlist:4x9k")
    assert not askable("lists", "selfLink", "https://tasks.example.com/lists/7")
    assert not askable("repos", "api_url", "https://api.example.com/repos/7")
    assert askable("companies", "website", "https://acme.example.com")
    assert askable("releases", "download_url", "https://acme.example.com/v2.zip")
    # the API address of a collection the row holds (GitHub's `members_url`): "find out the members URL of the team"
    assert not askable("teams", "members_url", "https://api.example.com/teams/3/members")
    assert not askable("orgs", "reposUrl", "https://api.example.com/orgs/3/repos")
    assert askable("users", "avatar_url", "https://cdn.example.com/a/3.png")
    assert askable("sources", "logo_url", "https://cdn.example.com/logo.png")
    # a concurrency token is the service's too ("row version 4.1.13" stated by a user); a release's version is not
    assert not askable("contacts", "rowVersion", "4.1.13") and not askable("contacts", "lock_version", "7")
    assert api_address("rowVersion") and api_address("ConcurrencyStamp") and not api_address("version")
    # nor a delta-sync counter or a filter kept as a field ("the server knowledges of the budgets", "the status
    # filter of the website")
    assert not askable("budgets", "server_knowledge", 118) and not askable(
        "websites", "status_filter", "active"
    )
    assert askable("websites", "status", "active")
    row = {"href": "https://api.example.com/v1/events/3", "uri": "ev:3", "venue": "Oslo Spektrum"}
    for seed in range(10):
        assert answer_values([row], random.Random(seed), table="events") == ["Oslo Spektrum"]


def test_a_moment_or_a_coordinate_is_said_in_words():
    """ "change the starts at of the event", "set the lon of the event": a person says start time, longitude."""
    from envscale.tasks.wording import readable_words

    assert readable_words("starts_at") == "start time" and readable_words("endsAt") == "end time"
    assert readable_words("lon") == "longitude" and readable_words("lat") == "latitude"
    assert readable_words("long_description") == "long description"


def test_a_row_reached_through_a_reference_is_named_by_its_role():
    """ "find out the email of the user of the ticket" walks the schema; "the assignee of the ticket" says what
    the person is to the ticket. The entity stays where the reference says no more (`user_id`)."""
    from envscale.tasks.phrases import _role

    assert _role("assignee_id", "user") == "assignee" and _role("reporter_user_id", "user") == "reporter"
    assert _role("parent_folder_id", "folder") == "parent folder"
    assert _role("billing_address_id", "address") == "billing address"
    assert _role("user_id", "user") == "user" and _role("custid", "customer") == "customer"
    assert _role("a_id", "article") == "article"  # letters, not a role
    assert _role("playlist_id", "user") == "user"  # a name that is no role of a person keeps the entity


def test_a_unit_run_into_a_fields_name_is_said_as_a_unit():
    """A blind reader of seed 84: "set its travel time mins to 72". A unit at the end of a field's name is said as
    one ("travel time in minutes"); `price_min` is a minimum, never minutes."""
    from envscale.tasks.wording import readable_words

    assert readable_words("travel_time_mins") == "travel time in minutes"
    assert readable_words("timeoutSecs") == "timeout in seconds"
    assert readable_words("discount_pct") == "discount percentage"
    assert readable_words("price_min") == "price min" and readable_words("mins") == "mins"


def test_a_rows_parents_are_each_said_once():
    """Blind readers of seed 84: "the transaction ... in the budget named X in the payee named Y in the budget named
    X". A parent another parent's phrase already says is said once, and a payee holds rows "for" it."""
    from envscale.tasks.phrases import _said_once, _within

    posts = ['of the budget named "X"', 'of the payee named "Y" of the budget named "X"']
    assert [_within(p) for p in _said_once(posts)] == ['for the payee named "Y" of the budget named "X"']
    assert _said_once(['of the budget named "X"', 'of the payee named "Y"']) == posts[:1] + [
        'of the payee named "Y"'
    ]
    # seed 86: "the transaction of the budget named X of the payee named Y in the budget named X"
    looped = ['of the budget named "X"', 'of the payee named "Y" in the budget named "X"']
    assert _said_once(looped) == looped[1:]
    from envscale.tasks.phrases import NP

    said = NP("transaction", "the", post=looped).render()
    assert said.count("budget named") == 1, said


def test_a_person_is_never_singled_out_by_their_job_title():
    """Seed 94's readers, in two rounds: "the supplier named "Occupational therapist"" (Apideck's supplier with a
    first and a last name, whose `title` is their job). Among a list, a person is told apart by their name."""
    from types import SimpleNamespace

    from envscale.tasks.phrases import Phrases

    spec = {
        "name": "x",
        "tables": {
            "suppliers": {
                "primary_key": "supplier_id",
                "columns": {
                    c: {"type": "string"} for c in ("supplier_id", "title", "first_name", "last_name")
                },
            }
        },
        "tools": [],
    }
    rows = [
        {
            "supplier_id": "s1",
            "title": "Occupational therapist",
            "first_name": "Gregory",
            "last_name": "Jenkins",
        },
        {"supplier_id": "s2", "title": "Archivist", "first_name": "Dylan", "last_name": "Norris"},
    ]
    me = SimpleNamespace(spec=spec, _told=lambda *a: None, column_spec=lambda op, c: {})
    src = SimpleNamespace(table="suppliers", op={})
    place, said = Phrases._selector(me, src, rows, 0)
    assert "therapist" not in said and "Gregory" in said, said
