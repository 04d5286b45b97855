"""What a tool means: verbs, effects, entities, computations and argument roles (envscale.words.semantics)."""

import pytest

from envscale.words.inflect import plural, singular
from envscale.words.semantics import argument_role, computation_reason, range_column, tool_meaning

NUM = {"type": "number"}


@pytest.mark.parametrize(
    ("name", "effect", "entity"),
    [
        ("create_order", "create", "order"),
        ("list_order_shipments", "read", "shipment"),
        ("get_customer", "read", "customer"),
        ("update_customer", "update", "customer"),
        ("delete_customer", "delete", "customer"),
        ("todo_delete", "delete", "todo"),
        ("rm", "delete", "file"),
        ("mkdir", "create", "directory"),
        ("remove_stock_from_watchlist", "delete", "watchlist"),
        ("add_to_watchlist", "create", "watchlist"),
        ("follow_user", "create", "following"),
        ("unfollow_user", "delete", "following"),
        ("cancel_order", "status", "order"),
        ("close_ticket", "status", "ticket"),
        ("lockDoors", "status", "door"),
        ("withdraw_funds", "update", "fund"),
        ("book_flight", "create", "booking"),  # the act is the row; the flight is its parent
    ],
)
def test_effects_and_entities_come_from_the_verb_and_its_object(name, effect, entity):
    m = tool_meaning(name)
    assert (m.effect, m.entity) == (effect, entity)


def test_status_verbs_name_the_status_they_move_to():
    assert tool_meaning("cancel_order").status_value[0] == "cancelled"
    assert "resolved" in tool_meaning("resolve_ticket").status_value
    assert tool_meaning("approve_request").status_value[0] == "approved"


def test_openapi_routes_decide_entity_parent_and_effect():
    def route(method, path, name="op"):
        return tool_meaning(name, "", {}, {"method": method, "path": path})

    issue = route("GET", "/repos/{owner}/{repo}/issues/{issue_number}", "issues_get")
    assert (issue.effect, issue.entity, issue.parent) == ("read", "issue", "repo")
    assert route("POST", "/repos/{owner}/{repo}/issues").effect == "create"
    assert route("PATCH", "/orders/{order_id}").effect == "update"
    assert route("DELETE", "/orders/{order_id}").effect == "delete"
    cancel = route("POST", "/orders/{order_id}/cancel", "cancel_order")
    assert (cancel.effect, cancel.entity, cancel.status_value[0]) == ("status", "order", "cancelled")
    # a trailing noun form of the verb is an action on the row before it, not a new resource
    adjust = route("POST", "/warehouses/{w}/inventory/{p}/adjustments", "adjust_inventory")
    assert (adjust.effect, adjust.entity, adjust.parent) == ("update", "inventory", "warehouse")
    # POST to a collection creates, whatever the verb says
    assert route("POST", "/orders/{order_id}/payments", "capture_payment").effect == "create"
    # `DELETE /resources/{id}/deleteimage` removes the resource's image; the resource stays (it was a duplicate of
    # the resource's own delete at scale)
    image = route(
        "DELETE", "/setup/v1/resources/{id}/deleteimage", "delete_setup_v1_resources_by_id_deleteimage"
    )
    assert (image.effect, image.entity) == ("update", "resource")
    assert route("DELETE", "/setup/v1/resources/{id}", "delete_setup_v1_resources_by_id").effect == "delete"


def test_a_name_without_a_verb_takes_its_descriptions():
    """`uber_eat_reviews`, "Submit a review for a food item ...", was read as a read: a blind reader found a
    user listing reviews with a tool that says it submits one."""
    review = tool_meaning(
        "uber_eat_reviews", "Submit a review for a food item ordered through Uber Eats.", {}
    )
    assert review.effect == "create"
    assert tool_meaning("uber_eat_reviews", "Reviews of a food item.", {}).effect == "read"
    assert tool_meaning("get_reviews", "Submit a review for a food item.", {}).effect == "read"
    assert (
        tool_meaning("DelScr", "Deletes a specified script from the 'spaces' feature.", {}).effect == "delete"
    )


def test_odata_segments_counts_and_functions_of_a_route():
    """`$count` (and a final `count`) counts the collection before it; `$ref` names no resource; an OData
    function call or a `functions/NAME` route is a computation, never a table of its own."""

    def route(method, path, name="op"):
        return tool_meaning(name, "", {}, {"method": method, "path": path})

    counted = route("GET", "/groups/{g}/onenote/notebooks/{n}/sections/$count", "Get_Count_sections")
    assert (counted.verb, counted.effect, counted.entity, counted.parent) == (
        "count",
        "read",
        "section",
        "notebook",
    )
    assert (
        route("GET", "/employeegroups/count", "GetNumberOfEmployeeGroups").verb,
        route("GET", "/employeegroups/count").entity,
    ) == ("count", "employeegroup")
    assert (
        route("GET", "/orders/{id}/count").verb != "count"
    )  # an attribute of one order, not a count of orders
    member = route("DELETE", "/groups/{g}/members/{m}/$ref", "groups_DeleteRefMembers")
    assert (member.effect, member.entity, member.parent) == ("delete", "member", "group")
    for method, path in [
        ("GET", "/me/calendars/{c}/events/microsoft.graph.delta()"),
        ("GET", "/drives/{d}/items/{i}/workbook/tables/{t}/columns/{c}/microsoft.graph.totalRowRange()"),
        ("POST", "/drives/{d}/items/{i}/workbook/functions/bitand"),
        # an OData action that only answers: one "insert" of 14 collections at scale, 13 of them duplicates
        ("POST", "/users/microsoft.graph.getAvailableExtensionProperties"),
        ("POST", "/me/microsoft.graph.checkMemberGroups"),
    ]:
        assert route(method, path).effect == "computation", path
    assert route("POST", "/me/events/{e}/microsoft.graph.forward", "forward").effect != "computation"


@pytest.mark.parametrize(
    ("name", "description", "props"),
    [
        ("subtract", "Subtract one number from another.", {"a": NUM, "b": NUM}),
        ("add", "Add two numbers.", {"a": NUM, "b": NUM}),
        ("liter_to_gallon", "Convert liters to gallons.", {"liter": NUM}),
        ("calculate_bmi", "Calculate the body mass index.", {"weight": NUM, "height": NUM}),
        ("mean", "", {"numbers": {"type": "array", "items": NUM}}),
        ("convert_time", "Convert a time between time zones.", {"time": {"type": "string"}}),
    ],
)
def test_pure_computations_are_recognised(name, description, props):
    assert computation_reason(name, description, {"properties": props})
    assert tool_meaning(name, description, {"properties": props}).effect == "computation"


@pytest.mark.parametrize(
    ("name", "props"),
    [
        ("get_order", {"order_id": {"type": "string"}}),
        ("add_contact", {"user_name": {"type": "string"}}),
        ("fund_account", {"amount": NUM, "account_id": {"type": "string"}}),
        ("get_current_weather", {"city": {"type": "string"}}),
    ],
)
def test_stateful_tools_are_not_computations(name, props):
    assert computation_reason(name, "", {"properties": props}) is None


@pytest.mark.parametrize(
    ("arg", "role"),
    [
        ("page", "pagination"),
        ("limit", "pagination"),
        ("sort_by", "option"),
        ("format", "option"),
        ("verbose", "option"),
        ("include_archived", "option"),
        ("min_price", "range_min"),
        ("created_after", "range_min"),
        ("end_date", "range_max"),
        ("query", "search"),
        ("customer_id", "reference"),
        ("email", "value"),
    ],
)
def test_arguments_are_sorted_into_roles(arg, role):
    assert argument_role(arg, {"type": "string"}, entity="order") == role


def test_the_own_key_is_a_key_and_range_bounds_name_their_column():
    assert argument_role("order_id", {}, entity="order") == "key"
    assert range_column("min_price") == "price"
    assert range_column("created_after") == "created_at"


def test_plural_and_singular_round_trip():
    for word in ("order", "category", "box", "status", "address", "watchlist"):
        assert singular(plural(word)) == word or word in ("status", "address")
    assert plural("category") == "categories" and plural("orders") == "orders"


@pytest.mark.parametrize(
    ("word", "one"),
    [
        ("movies", "movie"),
        ("categories", "category"),
        ("statuses", "status"),
        ("aliases", "alias"),
        ("beaches", "beach"),
        ("caches", "cache"),
        ("batches", "batch"),
        ("shows", "show"),
        ("cases", "case"),
    ],
)
def test_singular_of_common_plurals(word, one):
    assert singular(word) == one
    assert plural(one) == word


def test_a_delete_rule_on_a_table_keyed_by_a_natural_key_does_not_lose_the_domain():
    """`Refused while the customer has orders ...` on a tool keyed by email: no count guard, no crash."""
    from envscale.materialize.infer import infer_spec

    def tool(name, method, props, required, description=""):
        return {
            "id": name,
            "name": name,
            "original_name": name,
            "description": description,
            "group": "crm",
            "parameters": {"type": "object", "properties": props, "required": required},
            "output_schema": None,
            "annotations": {},
            "kind": "write" if method != "get" else "read",
        }

    s = {"type": "string"}
    tools = [
        tool("create_customer", "post", {"email": s}, ["email"]),
        tool(
            "delete_customer",
            "delete",
            {"email": s},
            ["email"],
            "Refused while the customer has orders that are not delivered or cancelled.",
        ),
        tool(
            "create_order",
            "post",
            {"customer_id": s, "status": {"type": "string", "enum": ["pending", "delivered"]}},
            ["customer_id"],
        ),
        tool("list_orders", "get", {"customer_id": s}, []),
    ]
    spec = infer_spec({"domain_id": 0, "name": "crm", "groups": {"crm": 4}}, tools, rows=5, seed=0).spec
    assert {t["name"] for t in spec["tools"]} >= {"delete_customer", "create_customer"}


@pytest.mark.parametrize(
    "arg",
    [
        "since",
        "before",
        "after",
        "$select",
        "updateMask",
        "ordering",
        "start",
        "end",
        "max_id",
        "since_id",
        "include",
    ],
)
def test_query_controls_are_options_never_columns(arg):
    """`?since=`, `?before=<cursor>`, `?$select=`, `?updateMask=` bound, page or shape a call: a row holds none of
    them, so they are options in the query string, as is JSON:API's `?include=ownerUser` (ExaVault's email lists
    were filtered on an `include` column). The same names in a body are fields of the row (an offering's
    `start`/`end`)."""
    assert argument_role(arg, {"type": "string", "x-in": "query"}, entity="alert") == "option"
    if arg in ("start", "end"):
        assert argument_role(arg, {"type": "string", "x-in": "body"}, entity="offering") == "value"


def test_an_object_filter_in_the_query_is_a_list_s_conditions_never_a_column():
    """Apideck's `?filter[start_date]=&filter[end_date]=` (a deepObject): a payroll row never holds a `filter`
    object; a string `filter` is a search term as before."""
    obj = {"type": "object", "x-in": "query", "properties": {"start_date": {"type": "string"}}}
    assert argument_role("filter", obj, entity="payroll") == "option"
    assert argument_role("filter", {"type": "string", "x-in": "query"}, entity="payroll") == "search"


def test_a_fields_conditions_by_operator_in_the_query_are_options_never_the_field():
    """Impala's `?name[like]=palace&starRating[gt]=3` (a deepObject keyed by operators): blind readers found hotels
    named `{"name": "like"}` with a star rating `{"rating": "eq"}`. The field is the response's, never the filter."""
    name = {"type": "object", "x-in": "query", "examples": [{"eq": "Minimalist Palace", "like": "palace"}]}
    assert argument_role("name", name, entity="hotel") == "option"
    assert argument_role("country", {"type": "object", "x-in": "query", "x-style": "deepObject"}) == "option"
    rating = {
        "type": "object",
        "x-in": "query",
        "properties": {"gt": {"type": "number"}, "lt": {"type": "number"}},
    }
    assert argument_role("starRating", rating, entity="hotel") == "option"
    # an object of fields in a body, or a plain query value, is what it was
    guest = {"type": "object", "x-in": "body", "properties": {"name": {"type": "string"}}}
    assert argument_role("guest", guest, entity="booking") == "value"
    assert argument_role("name", {"type": "string", "x-in": "query"}, entity="hotel") == "value"


def test_a_json_patch_document_or_a_list_of_fields_to_update_is_how_a_call_writes_never_a_field():
    """Blind readers: "update the fields to update of a project to I" (Avaza's `FieldsToUpdate`), "change its body
    to path /srv/app/backups/summary_2023_77.csv" (a JSON Patch `body`): no row holds them, no user states them."""
    patch = {"type": "array", "items": {"type": "object", "properties": {"op": {}, "path": {}, "value": {}}}}
    assert argument_role("body", patch, entity="booking") == "option"
    assert argument_role("FieldsToUpdate", {"type": "array", "items": {"type": "string"}}) == "option"
    # a body of values, or a list of a row's own paths, is data
    assert argument_role("body", {"type": "string"}, entity="message") == "value"
    assert argument_role("paths", {"type": "array", "items": {"type": "string"}}) == "value"


def test_a_catalogue_market_is_a_setting_of_the_call_never_a_field():
    """Blind readers: "how many players with market United States there are" (Spotify's `market`, the country
    whose catalogue a call reads)."""
    market = {
        "type": "string",
        "description": "An ISO 3166-1 alpha-2 country code. If a country code is specified",
    }
    assert argument_role("market", market, entity="player") == "option"
    assert argument_role("market", {"type": "string", "description": "The stock market"}) == "value"


@pytest.mark.parametrize(
    "name, method, path, effect, entity",
    [
        # Google's custom methods: `{name}:cancel` cancels the job the name addresses (it made a new job)
        ("jobs.cancel", "POST", "/v1/{name}:cancel", "status", "job"),
        (
            "notes.permissions.batchCreate",
            "POST",
            "/v1/{parent}/permissions:batchCreate",
            "create",
            "permission",
        ),
        (
            "notes.permissions.batchDelete",
            "POST",
            "/v1/{parent}/permissions:batchDelete",
            "delete",
            "permission",
        ),
        # rows of a collection made by one call: never an `adds`, `imports` or `bulks` table
        ("events.quickAdd", "POST", "/calendars/{calendarId}/events/quickAdd", "create", "event"),
        ("importTransactions", "POST", "/budgets/{budget_id}/transactions/import", "create", "transaction"),
        ("createTransactions", "POST", "/budgets/{budget_id}/transactions/bulk", "create", "transaction"),
        # what was a resource stays one
        ("list_ads", "GET", "/campaigns/{id}/ads", "read", "ad"),
        ("instances.get", "GET", "/v1/{+name}", "read", "instance"),
    ],
)
def test_an_act_at_the_end_of_a_route_acts_on_its_rows_never_makes_a_table_of_the_act(
    name, method, path, effect, entity
):
    """Blind readers: Keep's permission tools wrote rows of tables named `creates` and `deletes`, Calendar's quickAdd
    an `adds` row, YNAB's import an `imports` row; Google's `POST /v1/{name}:cancel` made a new job."""
    meaning = tool_meaning(name, "", {}, {"method": method, "path": path})
    assert (meaning.effect, meaning.entity) == (effect, entity)


def test_a_place_or_a_currency_named_like_a_bound_is_a_value_never_a_range():
    """Blind readers: `get_flight_cost(travel_from, travel_to)` compared city names with `>=` and `<=`. A string that
    names a place, a currency or a language is what a row holds; a date or an amount keeps its bound."""
    S = {"type": "string"}
    for arg in ("travel_from", "travel_to", "from_city", "to_currency", "to_language"):
        assert argument_role(arg, S) == "value", arg
    assert argument_role("date_from", S) == "range_min" and argument_role("created_before", S) == "range_max"
    assert argument_role("price_to", {"type": "number"}) == "range_max"


def test_a_resource_named_like_a_compute_verb_is_read_not_computed():
    """Blind readers: Avaza's `Estimate_Get` (`GET /api/Estimate`) was left out as "a pure computation": its estimates
    are rows. A compute verb acting on what comes before it in a route still computes."""
    for name, path in (("Estimate_Get", "/api/Estimate"), ("Estimate_GetByID", "/api/Estimate/{id}")):
        assert tool_meaning(name, "", {}, {"method": "GET", "path": path}).effect == "read", name
    assert (
        tool_meaning("calculate_tax", "", {}, {"method": "GET", "path": "/tax/calculate"}).effect
        == "computation"
    )


def test_clearing_a_row_that_holds_others_never_removes_the_row():
    """Google Tasks' `POST /lists/{tasklist}/clear` ("Clears all completed tasks from the specified task list")
    deleted the list, and a blind sample's "delete the Finance List" was done with it while the list's own delete
    was a distractor. A route's `clear`/`purge` empties the row; the row's own DELETE removes it."""

    def meaning(name, method, path):
        return tool_meaning(name, "", {}, {"method": method, "path": path})

    clear = meaning("tasks.tasks.clear", "POST", "/tasks/v1/lists/{tasklist}/clear")
    assert clear.effect != "delete", clear
    assert meaning("purgeQueue", "POST", "/queues/{queue_id}/purge").effect != "delete"
    assert (
        meaning("tasks.tasklists.delete", "DELETE", "/tasks/v1/users/@me/lists/{tasklist}").effect == "delete"
    )
    assert meaning("removeMember", "POST", "/groups/{group_id}/remove").effect == "delete"


@pytest.mark.parametrize("arg", ["pagesize", "pagenumber", "includetotalcount"])
def test_paging_arguments_spelled_as_one_word_are_never_columns(arg):
    """Paylocity's `?pagesize=&pagenumber=&includetotalcount=`: its pay statements had those three columns."""
    assert argument_role(arg, {"type": "integer", "x-in": "query"}, entity="detail") in (
        "pagination",
        "option",
    )


def test_a_by_segment_selects_the_rows_before_it_and_names_no_resource():
    """VictorOps' `PATCH /incidents/byUser/resolve` ("Resolve all incidents for which a user was paged") set the
    user's status to resolved (a blind reader: "mark my account as resolved"): `byUser` says which incidents, and
    the incidents are what the act resolves. `/users/by/name/{name}` reads a user."""
    resolve = tool_meaning(
        "patch_api_public_v1_incidents_byUser_resolve",
        "Resolve all incidents for which a user was paged.",
        {"properties": {"userName": {"type": "string"}}},
        {"method": "PATCH", "path": "/api-public/v1/incidents/byUser/resolve"},
    )
    assert resolve.entity == "incident", resolve
    by_name = tool_meaning("getUserByName", "", {}, {"method": "GET", "path": "/users/by/name/{name}"})
    assert by_name.entity == "user" and by_name.effect == "read", by_name


@pytest.mark.parametrize("arg", ["ClientToken", "clientToken", "ClientRequestToken", "IdempotencyToken"])
def test_an_idempotency_token_is_an_option_never_a_value_a_user_sets(arg):
    """AWS's `ClientToken` makes a retried create happen once: openapi-sample's EventBridge Scheduler asked to
    "change its client token to vy4SFguj2S3XEPBN2UrnryRSTuBPxaqJVwUbb7qU". It is an option of the call, in the body
    too, never a field of the row."""
    assert argument_role(arg, {"type": "string", "x-in": "body"}, entity="schedule_group") == "option"


@pytest.mark.parametrize("arg", ["pg", "rpp", "results_per_page"])
def test_a_page_and_its_size_by_short_names_are_pagination(arg):
    """The recipe API's `?pg=&rpp=` were integer columns of its photos, notes, replies and reviews (seed 93's
    readers: "search parameters stored as recipe columns")."""
    assert argument_role(arg, {"type": "integer", "x-in": "query"}, entity="review") == "pagination"


def test_crucible_s_routes_name_their_resources_and_a_post_that_reads_reads():
    """Crucible's `/rest-service/reviews-v1/{id}/close`: the review was an entity "1" of a parent "service", and its
    `postCustomFilterReviews` ("uses a POST for a read-only retrieval operation") added empty `filters` rows, the
    only writes of its world (seed 93's readers scored it 0)."""
    empty = {"type": "object", "properties": {}}
    made = tool_meaning(
        "createReview", "Create a review.", empty, {"method": "POST", "path": "/rest-service/reviews-v1"}
    )
    assert (made.effect, made.entity, made.parent) == ("create", "review", None)
    closed = tool_meaning(
        "closeReview",
        "Closes the review.",
        empty,
        {"method": "POST", "path": "/rest-service/reviews-v1/{id}/close"},
    )
    assert (closed.effect, closed.entity) == ("status", "review")
    read = tool_meaning(
        "postCustomFilterReviews",
        "This method should no longer be used, as it uses a POST for a read-only\n retrieval operation.",
        empty,
        {"method": "POST", "path": "/rest-service/reviews-v1/filter"},
    )
    assert read.effect == "read"


def test_a_search_route_reads_what_its_description_searches():
    """Pendo's `GET /search`, "Search features": a `searches` table of its own, never the features (seed 93's readers:
    "feature search reads a separate table, so it never finds features")."""
    q = {"type": "object", "properties": {"q": {"type": "string", "x-in": "query"}}}
    found = tool_meaning("get_search", "Search features", q, {"method": "GET", "path": "/search"})
    assert (found.effect, found.entity) == ("read", "feature")
    users = tool_meaning(
        "get_users_search", "Find a User with a query", q, {"method": "GET", "path": "/users/search"}
    )
    assert users.entity == "user"


def test_a_route_ending_in_services_lists_services():
    """OnSched's `GET /consumer/v1/services` ("List Services") read a `consumers` table of people (seed 93's readers);
    Salesforce's `/services/data/...` still names no service."""
    empty = {"type": "object", "properties": {}}
    listed = tool_meaning(
        "get_consumer_v1_services", "List Services", empty, {"method": "GET", "path": "/consumer/v1/services"}
    )
    assert listed.entity == "service"
    other = tool_meaning("x", "List.", empty, {"method": "GET", "path": "/services/data/v52.0/sobjects"})
    assert other.entity == "sobject"


def test_a_route_segment_of_a_verb_glued_to_a_noun_names_the_noun():
    """Billbee's `POST /api/v1/automaticprovision/createaccount` made a `createaccounts` table ("create a new create
    account", seed 93's readers): the resource is the account."""
    body = {"type": "object", "properties": {"EMail": {"type": "string", "x-in": "body"}}}
    made = tool_meaning(
        "CreateAccount",
        "Creates a new user account.",
        body,
        {"method": "POST", "path": "/api/v1/automaticprovision/createaccount"},
    )
    assert (made.effect, made.entity) == ("create", "account")
    empty = {"type": "object", "properties": {}}
    assert tool_meaning("x", "List.", empty, {"method": "GET", "path": "/settlements"}).entity == "settlement"


def test_a_post_named_a_read_that_says_what_it_returns_reads():
    """The recipe API's `POST Recipe_GetStepNumber`, "Returns stored step number and number of steps in recipe", added
    a `numbers` row (seed 93's readers: "GET endpoints become inserts"); its `Recipe_GetSteps`, which "Stores recipe
    step number and returns saved step data", still writes."""
    body = {"type": "object", "properties": {"userName": {"type": "string"}, "recipeId": {"type": "string"}}}
    read = tool_meaning(
        "Recipe_GetStepNumber",
        "Returns stored step number and number of steps in recipe",
        body,
        {"method": "POST", "path": "/recipe/{recipeId}/step/number"},
    )
    assert read.effect == "read"
    stored = tool_meaning(
        "Recipe_GetSteps",
        "Stores recipe step number and returns saved step data",
        body,
        {"method": "POST", "path": "/recipe/{recipeId}/step"},
    )
    assert stored.effect == "create"
    made = tool_meaning("createOrder", "Returns the new order.", body, {"method": "POST", "path": "/orders"})
    assert made.effect == "create"  # named a write: what it returns is the row it made


def test_a_filter_glued_to_a_segment_names_the_segment_s_rows():
    """agentOS's `GET /v3/diary/{shortName}/appointmentsbetweendates` read an `appointmentsbetweendates` table that no
    new appointment reached (seed 94's readers: "new appointments never appear in the searches")."""
    q = {"type": "object", "properties": {"startDate": {"type": "string", "x-in": "query"}}}
    between = tool_meaning(
        "DiaryController_GetAppointmentsBetweenDates",
        "A collection of diary appointments linked to a company filtered between specific dates",
        q,
        {"method": "GET", "path": "/v3/diary/{shortName}/appointmentsbetweendates"},
    )
    assert (between.effect, between.entity) == ("read", "appointment")
    recurring = tool_meaning(
        "x",
        "Retrieves all recurring appointments",
        q,
        {"method": "GET", "path": "/v3/diary/{s}/recurringappointment"},
    )
    assert recurring.entity == "recurringappointment"  # a kind of appointment, no filter


def test_a_compound_segment_ending_in_list_names_the_whole_segment():
    """Google Calendar's `/users/me/calendarList` made a `lists` table, a verb's name no task may write
    (`action_rows`): the Calendar world lost its every task. It holds the calendar list's entries."""
    empty = {"type": "object", "properties": {}}
    listed = tool_meaning(
        "calendar.calendarList.list",
        "Returns the calendars on the user's calendar list.",
        empty,
        {"method": "GET", "path": "/users/me/calendarList"},
    )
    assert listed.entity == "calendar_list"
    assert tool_meaning("x", "List.", empty, {"method": "GET", "path": "/lists"}).entity == "list"


def test_elmah_s_bulk_messages_and_heartbeats_are_made_in_their_own_tables():
    """Seed 94's readers: elmah.io's `Messages_CreateBulk` (`POST /v3/messages/{logId}/_bulk`) wrote a `bulks` table,
    and `Heartbeats_Create` (`POST /v3/heartbeats/{logId}/{id}`, "Create a new heartbeat") updated a heartbeat. Twilio's
    `POST /Services/{Sid}` named an update still updates."""
    body = {"type": "object", "properties": {"logId": {"type": "string", "x-in": "path"}}}
    bulk = tool_meaning(
        "Messages_CreateBulk",
        "Create one or more new messages",
        body,
        {"method": "POST", "path": "/v3/messages/{logId}/_bulk"},
    )
    assert (bulk.effect, bulk.entity) == ("create", "message")
    beat = tool_meaning(
        "Heartbeats_Create",
        "Create a new heartbeat",
        body,
        {"method": "POST", "path": "/v3/heartbeats/{logId}/{id}"},
    )
    assert (beat.effect, beat.entity) == ("create", "heartbeat")
    service = tool_meaning(
        "UpdateService", "Update a service", body, {"method": "POST", "path": "/v1/Services/{Sid}"}
    )
    assert service.effect == "update"


@pytest.mark.parametrize("arg", ["userIp", "showDeleted", "syncToken", "$top", "$inlinecount"])
def test_google_s_and_odata_s_query_controls_are_options(arg):
    """Seed 94's readers: hetras' and Google Calendar's tables had `top`, `inlinecount`, `user_ip`, `show_deleted`
    columns ("request-parameter artifacts"). In the query they shape the call; in a body they may be a field."""
    assert argument_role(arg, {"type": "string", "x-in": "query"}, entity="event") == "option"
    assert argument_role(arg, {"type": "string", "x-in": "body"}, entity="event") == "value"


def test_a_post_named_an_update_to_a_rows_path_updates_it():
    """Seed 94's readers: Crucible's `updateComment` (`POST /reviews-v1/{id}/comments/{cId}`) added a comment, because
    `cId` reads as the key of another thing. A tool named an update updates; elmah's `POST /messages/{logId}` still
    makes a message in that log."""
    body = {
        "type": "object",
        "properties": {"id": {"type": "string", "x-in": "path"}, "cId": {"type": "string", "x-in": "path"}},
    }
    updated = tool_meaning(
        "updateComment",
        "Update the comment",
        body,
        {"method": "POST", "path": "/rest-service/reviews-v1/{id}/comments/{cId}"},
    )
    assert (updated.effect, updated.entity) == ("update", "comment")
    log = {"type": "object", "properties": {"logId": {"type": "string", "x-in": "path"}}}
    made = tool_meaning(
        "Messages_Create", "Create a message", log, {"method": "POST", "path": "/v3/messages/{logId}"}
    )
    assert made.effect == "create"
