"""Environments model what an API means, not how it is called: headers and credentials are the agent's
constants, an update states only what it changes, and a route's `id` names the resource it follows."""

from apitools import api_tool as _tool

from envscale.env import Environment, validate_spec
from envscale.env.data.filler import is_catch_phrase, is_filler
from envscale.materialize.infer import infer_spec
from envscale.words.semantics import agent_side

_S = {"type": "string"}


_HEADERS = {
    "x-apideck-app-id": {"type": "string", "x-in": "header"},
    "x-apideck-consumer-id": {"type": "string", "x-in": "header"},
}
_NOTE = {
    "type": "object",
    "properties": {"id": _S, "title": _S, "content": _S, "owner": _S, "status": _S},
}


def _notes_spec():
    id_ = {"type": "string", "x-in": "path"}
    body = {
        "title": {**_S, "x-in": "body"},
        "content": {**_S, "x-in": "body"},
        "owner": {**_S, "x-in": "body"},
    }
    tools = [
        _tool("notesAdd", "POST", "/crm/notes", {**_HEADERS, **body}, ["x-apideck-app-id", "title"], _NOTE),
        _tool(
            "notesOne",
            "GET",
            "/crm/notes/{id}",
            {**_HEADERS, "id": id_},
            ["id", "x-apideck-consumer-id"],
            _NOTE,
        ),
        _tool(
            "notesUpdate",
            "PUT",
            "/crm/notes/{id}",
            {**_HEADERS, "id": id_, **body},
            ["id", "title", "content", "owner", "x-apideck-app-id"],
            _NOTE,
        ),
        _tool("notesAll", "GET", "/crm/notes", {**_HEADERS, "key": {**_S, "x-in": "query"}}, [], _NOTE),
    ]
    return infer_spec(
        {"domain_id": 0, "name": "notes", "groups": {"Notes API": 4}}, tools, rows=5, seed=0
    ).spec


def test_headers_and_credentials_are_agent_side_constants():
    assert agent_side("x-apideck-app-id", {"x-in": "header"})
    assert agent_side("session", {"x-in": "cookie"})
    assert agent_side("token") and agent_side("api_key") and agent_side("accessToken")
    assert agent_side("key", {"x-in": "query"}) and not agent_side("key")  # a key-value store's key
    assert not agent_side("page_token") and not agent_side("app_id")  # an app_id in a body names a row
    # the agent's own loop: a blind reader found a user asking for a memory "and request heartbeat turned off"
    assert agent_side("request_heartbeat") and agent_side("requestHeartbeat") and not agent_side("heart_rate")


def test_header_arguments_are_never_tool_arguments_columns_or_filters():
    spec = _notes_spec()
    validate_spec(spec)
    for tool in spec["tools"]:
        props = tool["parameters"]["properties"]
        assert not set(props) & {"x-apideck-app-id", "x-apideck-consumer-id", "key"}, tool["name"]
        assert set(tool["parameters"]["required"]) <= set(props)
    for table in spec["tables"].values():
        assert not [c for c in table["columns"] if "apideck" in c or c == "key"]


def test_an_update_requires_its_key_and_only_the_fields_it_changes():
    spec = _notes_spec()
    update = next(t for t in spec["tools"] if t["name"] == "notesUpdate")
    assert update["parameters"]["required"] == ["id"]  # the PUT body's title/content/owner are optional
    env = Environment(spec)
    env.reset(seed=0)
    key = env.dump()["notes"][0]["note_id"]
    before = dict(env.dump()["notes"][0])
    out = env.step("notesUpdate", {"id": key, "title": "Quarterly budget review"})
    assert out["ok"], out
    after = env.dump()["notes"][0]
    assert after["title"] == "Quarterly budget review"
    assert {k: v for k, v in after.items() if k not in ("title", "updated_at")} == {
        k: v for k, v in before.items() if k not in ("title", "updated_at")
    }  # the fields not sent keep their values


def test_an_id_in_the_route_names_the_resource_it_follows():
    """`POST /users/{id}/institutions`: `id` is the user's, never the new institution's own id."""
    inst = {"type": "object", "properties": {"id": {"type": "integer"}, "title": _S, "currency_code": _S}}
    user_id = {"type": "integer", "x-in": "path"}
    tools = [
        _tool(
            "post_users_by_id_institutions",
            "POST",
            "/users/{id}/institutions",
            {"id": user_id, "title": _S, "currency_code": _S},
            ["id", "title"],
            inst,
        ),  # fmt: skip
        _tool("get_users_by_id", "GET", "/users/{id}", {"id": user_id}, ["id"], {"type": "object"}),
        _tool(
            "get_institutions_by_id",
            "GET",
            "/institutions/{id}",
            {"id": {"type": "integer", "x-in": "path"}},
            ["id"],
            inst,
        ),  # fmt: skip
    ]
    spec = infer_spec({"domain_id": 0, "name": "money", "groups": {"Money": 3}}, tools, rows=5, seed=0).spec
    create = next(t for t in spec["tools"] if t["name"] == "post_users_by_id_institutions")["operation"]
    assert create["type"] == "insert" and create.get("generate") == {"institution_id": "id"}
    # the parent's bare route id is stored under the parent's key (`user_id`), never a shared `id` column
    assert spec["tables"]["institutions"]["columns"]["user_id"]["references"] == "users"
    assert "id" not in spec["tables"]["institutions"]["columns"]


def test_catch_phrases_are_filler_and_titles_are_made_by_meaning():
    assert is_catch_phrase("Upgradable heuristic help-desk")
    assert not is_catch_phrase("Quarterly budget review")
    assert is_filler("institutions", "title", {"type": "string"}, "Upgradable heuristic help-desk")
    spec = _notes_spec()
    env = Environment(spec)
    env.reset(seed=0)
    titles = [r["title"] for r in env.dump()["notes"]]
    assert titles and not [
        t for t in titles if isinstance(t, str) and is_catch_phrase(t)
    ]  # a title may be null


def test_a_time_zone_column_holds_time_zones_and_start_is_paging():
    from envscale.env.data import column_meaning
    from envscale.words.semantics import argument_role

    assert column_meaning("users", "time_zone", {"type": "string"}) == "timezone"
    assert argument_role("start", {"type": "integer"}) == "pagination"
    assert argument_role("start", {"type": "string"}) != "pagination"  # a start location or date


def test_a_session_column_that_names_the_object_is_not_prefixed_with_it_again():
    """`updateNewStatus(newStatus)` on the session row sets `new_status`, never `status_new_status`."""
    tools = [
        {
            "id": "updateNewStatus",
            "name": "updateNewStatus",
            "original_name": "updateNewStatus",
            "description": "Update the new status.",
            "group": None,
            "parameters": {
                "type": "object",
                "properties": {"new_status": {"type": "integer"}},
                "required": [],
            },
            "output_schema": None,
            "annotations": {},
            "kind": "write",
        }
    ]
    spec = infer_spec({"domain_id": 0, "name": "p", "groups": {}}, tools, rows=5, seed=0).spec
    columns = {c for t in spec["tables"].values() for c in t["columns"]}
    assert "new_status" in columns and "status_new_status" not in columns


# ------------------------------------------------------------------ third quality pass (issue 10)


def test_http_clients_charts_and_date_arithmetic_are_computations_not_stored_rows():
    from envscale.words.semantics import computation_reason

    def props(**kinds):
        return {"properties": {name: {"type": kind} for name, kind in kinds.items()}}

    url_only = props(url="string", timeout="number", proxies="object")
    assert "HTTP request" in computation_reason("requests_get", "", url_only)
    assert "HTTP request" in computation_reason("sendHttpRequest", "", props(url="string", method="string"))
    assert "HTTP request" in computation_reason("make_webapi_call", "", props(url="string"))
    assert "histogram" in computation_reason("create_histogram", "", props(data="array", bins="integer"))
    assert "date arithmetic" in computation_reason(
        "add_dates", "", props(date="string", days_to_add="integer")
    )
    # a thing with a URL, an event with a duration, and a routed API call stay what they are
    assert computation_reason("add_website", "", props(url="string", name="string")) is None
    event = props(date="string", duration_hours="integer", title="string")
    assert computation_reason("add_event", "", event) is None
    assert computation_reason("getWebhook", "", url_only, routed=True) is None


def test_reserving_or_booking_a_thing_makes_the_act_and_adding_to_a_thing_makes_the_addition():
    from envscale.words.semantics import tool_meaning

    def of(name):
        m = tool_meaning(name, "", {})
        return m.entity, m.parent

    assert of("Restaurants_2_ReserveRestaurant") == ("reservation", "restaurant")  # never a new restaurant
    assert of("hotel_bookings_book_room") == ("booking", "room")
    assert of("rent_car") == ("rental", "car")
    assert of("vt_add_votes_to_ip_address") == ("vote", "address")  # never a new IP address
    assert of("add_comment_to_post") == ("comment", "post")
    assert of("add_item_to_cart")[0] == "cart" and of("add_stock_to_watchlist")[0] == "watchlist"


def test_apis_is_the_plural_of_api():
    from envscale.words.inflect import plural, singular

    assert singular("apis") == "api" and plural("api") == "apis"  # never an `apises` table of "Apise" names
    assert singular("analysis") == "analysis" and singular("taxis") == "taxi"


def test_values_fit_days_of_the_week_stays_and_a_players_class():
    import random

    from envscale.env.data import column_meaning, column_value

    assert column_meaning("users", "week_start_day", {"type": "integer"}) == "num:weekday"
    assert column_meaning("plans", "billing_day_of_month", {"type": "integer"}) == "num:monthday"
    r = random.Random(0)
    assert all(
        0 <= column_value("users", "week_start_day", {"type": "integer"}, r, None) <= 6 for _ in range(30)
    )
    assert all(
        1 <= column_value("hotels", "stay_length", {"type": "integer"}, r, None) <= 30 for _ in range(30)
    )
    spec = {"type": "string", "description": "The character class for the player"}
    assert column_meaning("profiles", "class_type", spec) == "lex:character_class"
    assert column_value(
        "profiles", "class_type", spec, r, None
    ) in "Warrior|Mage|Rogue|Ranger|Cleric|Paladin|Bard|Druid|Monk|Warlock".split("|")
    assert column_meaning("code", "class_name", {"type": "string"}) == "lex:class_name"


def test_a_text_search_is_typed_as_whole_words():
    import random

    from envscale.materialize.verify import filter_value

    text = "Supply chain delays, as discussed with Mary O'Neil on Tuesday."
    r = random.Random(0)
    for _ in range(40):
        said = filter_value("contains", text, r)
        assert said in text and said.strip() == said
        start = text.index(said)
        end = start + len(said)
        assert start == 0 or not text[start - 1].isalnum(), said  # never "ply chain delays"
        assert end == len(text) or not text[end].isalnum(), said


def test_a_thing_no_lexicon_knows_is_labelled_as_people_label_theirs_never_by_a_codename():
    # YNAB's budgets read "Apollo Budget", "Argon Budget": readers took them for filler
    from envscale.env.data.vocabulary import CODEWORDS

    budget = {"type": "object", "properties": {"id": _S, "name": _S, "first_month": _S}}
    id_ = {"type": "string", "x-in": "path"}
    tools = [
        _tool("budgetsAdd", "POST", "/budgets", {"name": {**_S, "x-in": "body"}}, ["name"], budget),
        _tool("budgetsOne", "GET", "/budgets/{id}", {"id": id_}, ["id"], budget),
        _tool("budgetsAll", "GET", "/budgets", {}, [], budget),
    ]
    spec = infer_spec(
        {"domain_id": 0, "name": "b", "groups": {"Budgets API": 3}}, tools, rows=20, seed=0
    ).spec
    env = Environment(spec)
    env.reset(seed=0)
    names = [r["name"] for r in env.dump()["budgets"] if r["name"]]
    # a budget is named as people name theirs ("Household Budget 2025", "Wedding Budget", "Vacation Fund")
    assert len(names) >= 10 and sum("Budget" in n for n in names) >= len(names) // 2, names
    assert not [n for n in names if n.split()[0] in CODEWORDS], names
    assert len(set(names)) >= len(names) - 2  # a person tells them apart


def test_an_id_the_api_declares_a_number_addresses_its_row():
    """Pendo's `GET /users/{id}` declares `id` a `number`: it fit no key, so "get a user" became a list of every
    user that ignored the id, and the update and delete by id were dropped. An id declared a number is an
    integer id."""
    user = {"type": "object", "properties": {"id": {"type": "number"}, "email": _S, "name": _S}}
    num = {"type": "number", "x-in": "path"}
    tools = [
        _tool("get_users", "GET", "/users", {}, [], user),
        _tool("get_users_by_id", "GET", "/users/{id}", {"id": num}, ["id"], user),
        _tool(
            "put_users_by_id", "PUT", "/users/{id}", {"id": num, "name": {**_S, "x-in": "body"}}, ["id"], user
        ),
    ]
    spec = infer_spec({"domain_id": 0, "name": "p", "groups": {"Users": 3}}, tools, rows=10, seed=0).spec
    validate_spec(spec)
    by_name = {t["name"]: t for t in spec["tools"]}
    get = by_name["get_users_by_id"]
    assert get["operation"]["type"] == "get" and get["parameters"]["properties"]["id"]["type"] == "integer"
    assert by_name["put_users_by_id"]["operation"]["type"] == "update"
    env = Environment(spec)
    env.reset(seed=0)
    key = env.dump()["users"][3][spec["tables"]["users"]["primary_key"]]
    out = env.step("get_users_by_id", {"id": int(key)})
    assert out["ok"] and out["result"][spec["tables"]["users"]["primary_key"]] == key


def test_a_field_spelled_apart_and_together_is_one_column():
    """GoToMeeting's meetings had `conference_call_info` and `conferencecallinfo`, `end_time` and `endtime`, ...:
    an update wrote one spelling and the read showed the other, unchanged. One field, one column."""
    read = {
        "type": "object",
        "properties": {"meetingId": _S, "subject": _S, "endtime": _S, "conferencecallinfo": _S},
    }
    key = {**_S, "x-in": "path"}
    body = {
        "subject": {**_S, "x-in": "body"},
        "endTime": {**_S, "x-in": "body"},
        "conferenceCallInfo": {**_S, "x-in": "body"},
    }
    tools = [
        _tool("getMeetings", "GET", "/meetings", {}, [], read),
        _tool("getMeeting", "GET", "/meetings/{meetingId}", {"meetingId": key}, ["meetingId"], read),
        _tool(
            "updateMeeting", "PUT", "/meetings/{meetingId}", {"meetingId": key, **body}, ["meetingId"], read
        ),
    ]
    spec = infer_spec({"domain_id": 0, "name": "m", "groups": {"Meetings": 3}}, tools, rows=10, seed=0).spec
    columns = list(spec["tables"]["meetings"]["columns"])
    squashed = [c.replace("_", "") for c in columns]
    assert len(set(squashed)) == len(squashed), columns
    env = Environment(spec)
    env.reset(seed=0)
    pk = spec["tables"]["meetings"]["primary_key"]
    meeting = env.dump()["meetings"][0][pk]
    assert env.step("updateMeeting", {"meetingId": meeting, "conferenceCallInfo": "Dial +1 555 0100"})["ok"]
    got = env.step("getMeeting", {"meetingId": meeting})["result"]
    assert "Dial +1 555 0100" in got.values(), got


def test_a_reference_by_its_apis_foreign_key_name_and_by_its_filter_is_one_column():
    """Avaza's timesheet holds `ProjectIDFK` and its list filters by `?ProjectID=`: a blind reader found two
    foreign keys `project_idfk` and `project_id` on one row. One reference, one column: the list by the filter
    finds the timesheet logged against the project."""
    read = {"type": "object", "properties": {"timesheetId": _S, "ProjectIDFK": _S, "Notes": _S}}
    key = {**_S, "x-in": "path"}
    tools = [
        _tool(
            "listProjects",
            "GET",
            "/projects",
            {},
            [],
            {"type": "object", "properties": {"projectId": _S, "title": _S}},
        ),
        _tool("getTimesheets", "GET", "/timesheets", {"ProjectID": {**_S, "x-in": "query"}}, [], read),
        _tool(
            "getTimesheet", "GET", "/timesheets/{timesheetId}", {"timesheetId": key}, ["timesheetId"], read
        ),
        _tool(
            "updateTimesheet",
            "PUT",
            "/timesheets/{timesheetId}",
            {"timesheetId": key, "Notes": {**_S, "x-in": "body"}},
            ["timesheetId"],
            read,
        ),
    ]
    spec = infer_spec({"domain_id": 0, "name": "t", "groups": {"Timesheets": 4}}, tools, rows=10, seed=0).spec
    columns = spec["tables"]["timesheets"]["columns"]
    keys = [c for c in columns if c in ("project_id", "project_idfk")]
    assert len(keys) == 1, list(columns)
    env = Environment(spec)
    env.reset(seed=0)
    row = env.dump()["timesheets"][0]
    got = env.step("getTimesheets", {"ProjectID": row[keys[0]]})["result"]
    assert row[spec["tables"]["timesheets"]["primary_key"]] in [r.get("timesheet_id") for r in got], got


def test_a_field_under_its_entitys_prefix_and_without_it_is_one_column():
    """Avaza's project is read with `Title` and updated with `ProjectTitle`: the project had two titles, and the
    request "find out the title of the project titled "Archive Project"" asked for the other one. One field, one
    column; keys stay apart (`project_id` is not an `id`)."""
    from envscale.materialize.infer import _own_twin

    read = {"type": "object", "properties": {"projectId": _S, "title": _S, "notes": _S}}
    key = {**_S, "x-in": "path"}
    body = {"projectTitle": {**_S, "x-in": "body"}, "projectNotes": {**_S, "x-in": "body"}}
    tools = [
        _tool("getProjects", "GET", "/projects", {}, [], read),
        _tool("getProject", "GET", "/projects/{projectId}", {"projectId": key}, ["projectId"], read),
        _tool(
            "updateProject", "PUT", "/projects/{projectId}", {"projectId": key, **body}, ["projectId"], read
        ),
    ]
    spec = infer_spec({"domain_id": 0, "name": "p", "groups": {"Projects": 3}}, tools, rows=10, seed=0).spec
    columns = spec["tables"]["projects"]["columns"]
    assert "title" in columns and "project_title" not in columns, list(columns)
    env = Environment(spec)
    env.reset(seed=0)
    pk = spec["tables"]["projects"]["primary_key"]
    project = env.dump()["projects"][0][pk]
    assert env.step("updateProject", {"projectId": project, "projectTitle": "Archive Project"})["ok"]
    assert env.step("getProject", {"projectId": project})["result"]["title"] == "Archive Project"
    assert _own_twin("projects", "project_id", {"id": None}) == "project_id"
    assert _own_twin("leaves", "start_date", {"leave_start_date": None}) == "leave_start_date"
    assert _own_twin("albums", "album_type", {"name": None}) == "album_type"


def test_an_act_named_by_a_flag_sets_the_flag_with_the_status():
    """Blind readers: an invitation with `"accepted": true` was accepted again. The act that accepts sets the
    row's `accepted` flag with its status, and the world's rows agree with their status from the start."""
    read = {
        "type": "object",
        "properties": {
            "invitationId": _S,
            "email": _S,
            "accepted": {"type": "boolean"},
            "status": {"type": "string", "enum": ["pending", "accepted", "expired"]},
        },
    }
    key = {**_S, "x-in": "path"}
    tools = [
        _tool("listInvitations", "GET", "/invitations", {}, [], read),
        _tool(
            "getInvitation",
            "GET",
            "/invitations/{invitationId}",
            {"invitationId": key},
            ["invitationId"],
            read,
        ),
        _tool(
            "acceptInvitation",
            "POST",
            "/invitations/{invitationId}/accept",
            {"invitationId": key},
            ["invitationId"],
            read,
        ),
    ]
    spec = infer_spec(
        {"domain_id": 0, "name": "i", "groups": {"Invitations": 3}}, tools, rows=12, seed=0
    ).spec
    env = Environment(spec)
    env.reset(seed=0)
    rows = env.dump()["invitations"]
    assert all(r["accepted"] == (r["status"] == "accepted") for r in rows if r["status"]), rows
    pk = spec["tables"]["invitations"]["primary_key"]
    pending = next(r for r in rows if r["status"] == "pending")
    assert env.step("acceptInvitation", {"invitationId": pending[pk]})["ok"]
    got = env.step("getInvitation", {"invitationId": pending[pk]})["result"]
    assert got["status"] == "accepted" and got["accepted"] is True, got
