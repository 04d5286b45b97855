"""Tool names with a namespace, a provider or a relation in them (envscale.words.semantics), with real names from
the quickstart pool (BFCL, APIs.guru's TVmaze, dev.to, Orbit, iZettle) as cases."""

import pytest

from envscale.env import Environment
from envscale.materialize.infer import infer_spec
from envscale.words.inflect import plural, singular
from envscale.words.semantics import computation_reason, linked_entity, tool_meaning

S = {"type": "string"}


def meaning(name, description="", props=(), method=None, path=None):
    annotations = {"method": method, "path": path} if method else None
    return tool_meaning(name, description, {"properties": {p: S for p in props}}, annotations)


@pytest.mark.parametrize(
    ("name", "description", "props", "entity", "parent"),
    [
        (
            "criminal_record.get_offense_nature",
            "Get details about the nature of offenses committed by a criminal.",
            ["criminal_name", "optional_param"],
            "nature",
            "offense",
        ),
        ("criminal_record_get_offense_nature", "", ["criminal_name", "optional_param"], "nature", "offense"),
        (
            "criminal_record.get_status",
            "Find the conviction status of a criminal.",
            ["criminal_name"],
            "status",
            None,
        ),
        ("crime_record.get_record", "", ["case_number", "county"], "record", None),
        ("flight_schedule.get_timings", "", ["from_airport", "to_airport"], "timing", None),
        ("weather_api_get_forecast", "", ["city"], "forecast", None),
        ("OpenWeatherMap.get_current_weather", "", ["location"], "weather", None),
        ("issue_priorities_api.get_priorities", "", [], "priority", None),
        (
            "order_status_check",
            "Check the current status of an order.",
            ["order_id", "product"],
            "status",
            None,
        ),
        ("ProductSearch.execute", "", ["query"], "product", None),
        ("artwork_search.find", "", ["museum"], "artwork", None),
    ],
)
def test_a_read_verb_after_a_namespace_word_makes_a_read(name, description, props, entity, parent):
    """`criminal_record_get_...`: `record` names the namespace; the verb is `get`, its object the entity."""
    m = meaning(name, description, props)
    assert (m.effect, m.entity, m.parent) == ("read", entity, parent)


@pytest.mark.parametrize(
    ("name", "effect", "entity"),
    [
        ("oidc_api_OidcApi_update_group", "update", "group"),
        ("oidc_api.OidcApi.update_group", "update", "group"),
        ("team_api.TeamApi.delete_team", "delete", "team"),
        ("Events_3_BuyEventTickets", "create", "ticket"),
        ("user_authentication.login", "update", "authentication"),
        ("display.set_screen_brightness", "update", "brightness"),
        ("book_show", "create", "booking"),  # `show` ends the name but is what `book` books: a booking of it
        ("book_flight", "create", "booking"),
        ("cancel_booking", "status", "booking"),
        ("todo.add", "create", "todo"),
        ("remove_stock_from_watchlist", "delete", "watchlist"),
    ],
)
def test_write_verbs_after_a_namespace_stay_writes(name, effect, entity):
    m = meaning(name)
    assert (m.effect, m.entity) == (effect, entity)


def test_a_noun_like_verb_is_a_noun_when_the_description_reads():
    """`nfl_data.player_record` "Retrieve the record of ..." reads a record; a name starting with the verb, or a
    description that does not read, keeps the verb."""
    record = meaning(
        "nfl_data.player_record", "Retrieve the record of an NFL player in a season.", ["player_name"]
    )
    assert (record.effect, record.entity, record.parent) == ("read", "record", "player")
    star = meaning("space.star_info", "Retrieve information about a particular star.", ["star_name"])
    assert star.effect == "read"
    assert meaning("nfl_data.player_record", "Record a new result of an NFL player.").effect == "create"
    assert meaning("record_expense", "Retrieves the expense after recording it.").effect == "create"
    # BFCL's multi-turn preamble is not the opening of the description
    preamble = (
        "This tool belongs to the travel system, which allows users to book flights. Tool description: "
    )
    assert meaning("hotel_room_book", preamble + "Get the room.").effect == "read"


@pytest.mark.parametrize(
    ("name", "description", "props", "entity", "parent"),
    [
        (
            "walmart.purchase",
            "Retrieve information of items from Walmart including stock availability.",
            ["loc", "product_list", "pack_size"],
            "purchase",
            "walmart",
        ),
        ("walmart_purchase", "", ["loc", "product_list"], "purchase", "walmart"),
        (
            "safeway.order",
            "Order specified items from a Safeway location.",
            ["location", "items"],
            "order",
            "safeway",
        ),
        ("whole_foods.order", "Order food from Whole Foods", ["location", "items"], "order", "whole_foods"),
        ("uber.eat.order", "Place an order on Uber Eats.", ["restaurant_id", "items"], "order", "restaurant"),
        ("hotel.book", "Book a hotel room.", ["location", "nights"], "booking", "hotel"),
        ("hotel_booking_book", "", ["hotel_name", "location"], "booking", "hotel"),
        ("train_ticket.buy", "Buy a train ticket.", ["origin", "destination"], "purchase", "train_ticket"),
        ("hotel_booking", "Books a hotel room given the location.", ["location"], "booking", "hotel"),
        ("car_rental", "Rent a car near you.", ["location"], "rental", "car"),
    ],
)
def test_a_provider_before_a_transaction_verb_is_the_parent_of_the_act(
    name, description, props, entity, parent
):
    """`walmart_purchase` makes a purchase at Walmart, not "a walmart": the act is the entity, the thing
    keyed (a restaurant) or else the provider before the verb its parent."""
    m = meaning(name, description, props)
    assert (m.effect, m.entity, m.parent) == ("create", entity, parent)


@pytest.mark.parametrize(
    ("name", "method", "path", "effect", "entity"),
    [
        (
            "delete_user_follows_networks_by_network_id",
            "DELETE",
            "/user/follows/networks/{network_id}",
            "delete",
            "followed_network",
        ),
        (
            "put_user_follows_networks_by_network_id",
            "PUT",
            "/user/follows/networks/{network_id}",
            "create",
            "followed_network",
        ),
        (
            "get_user_follows_networks_by_network_id",
            "GET",
            "/user/follows/networks/{network_id}",
            "read",
            "followed_network",
        ),
        ("get_user_follows_networks", "GET", "/user/follows/networks", "read", "followed_network"),
        (
            "delete_user_follows_people_by_person_id",
            "DELETE",
            "/user/follows/people/{person_id}",
            "delete",
            "followed_person",
        ),
        (
            "put_user_votes_episodes_by_episode_id",
            "PUT",
            "/user/votes/episodes/{episode_id}",
            "create",
            "episode_vote",
        ),
        ("getFollowedTags", "GET", "/api/follows/tags", "read", "followed_tag"),
    ],
)
def test_a_follow_or_vote_route_is_a_relation_row(name, method, path, effect, entity):
    """TVmaze's `/user/follows/networks/{network_id}`: DELETE unfollows (deletes the follow, not the network),
    PUT follows (adds the follow)."""
    m = meaning(name, "", [p.strip("{}") for p in path.split("/") if p.startswith("{")], method, path)
    assert (m.effect, m.entity) == (effect, entity)
    assert m.parent and linked_entity(m.entity, m.parent) == m.parent


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/api/rns/pub/subscriptions/simulate"),  # an action after the relation word
        ("GET", "/repos/{owner}/{repo}/subscribers"),  # the relation word ends the route
        ("GET", "/users/{user_id}/follows/{follow_id}/networks"),  # a parameter between the segments
        ("GET", "/user/votes/count"),  # a figure about the relation
    ],
)
def test_routes_that_are_not_relation_rows(method, path):
    m = meaning("op", "", [], method, path)
    assert linked_entity(m.entity, m.parent) is None, m


def test_relations_in_names_and_what_they_link():
    m = meaning("delete_user_follows_networks_by_network_id", "", ["network_id"])
    assert (m.effect, m.entity, m.parent) == ("delete", "followed_network", "network")
    assert meaning("list_favorites_movies").entity == "favorite_movie"
    assert meaning("get_likes_count", "", ["post_id"]).entity == "count"  # a figure, not a liked thing
    assert (
        meaning("users_lookupByEmail", "", ["email"]).entity == "user"
    )  # `by` names the key, not the entity
    assert linked_entity("followed_network", "network") == "network"
    assert linked_entity("followed_network", "show") is None
    assert linked_entity("episode_vote") == "episode" and linked_entity("followed_person") == "person"
    assert linked_entity("order_item") is None and linked_entity("following") is None


@pytest.mark.parametrize(
    ("name", "description", "props", "annotations"),
    [
        (
            "getProduct",
            "Retrieve a single product",
            ["productUuid"],
            {"method": "GET", "path": "/products/{productUuid}"},
        ),
        ("ListProduct", "List all product", [], {"method": "GET", "path": "/products"}),
        ("videos", "Articles with a video", ["page", "per_page"], {"method": "GET", "path": "/videos"}),
        (
            "get_by_workspace_slug_members",
            "List members in a workspace",
            ["workspace_slug"],
            {"method": "GET", "path": "/{workspace_slug}/members"},
        ),
        (
            "getStatusByUuid",
            "Get status for an import",
            ["uuid"],
            {"method": "GET", "path": "/import/{uuid}/status"},
        ),
        ("GetPrimeMinisters", "Get the prime ministers of a country.", ["country"], None),
        ("Homes_2_FindHomeByArea", "Find a home by area.", ["area", "intent"], None),
        ("get_business_units", "List the business units.", ["company"], None),
        ("product_search", "Search products by name.", ["query"], None),
    ],
)
def test_lookups_are_not_computations(name, description, props, annotations):
    """A route names a resource; words after `by` name a key; `product`, `slug`, `unit` are things too."""
    params = {"properties": {p: S for p in props}}
    m = tool_meaning(name, description, params, annotations)
    assert m.effect == "read", (m, computation_reason(name, description, params))


@pytest.mark.parametrize(
    ("name", "description", "props"),
    [
        ("entropy_change.calculate", "Calculate the change in entropy.", {"mass": {"type": "number"}}),
        ("geometry.area_circle", "Calculate the area of a circle.", {"radius": {"type": "number"}}),
        ("math.gcd", "Greatest common divisor.", {"a": {"type": "integer"}, "b": {"type": "integer"}}),
        ("math_toolkit.product_of_primes", "", {"count": {"type": "integer"}}),
        ("GetConversionRate", "Convert an amount.", {"amount": {"type": "number"}}),
    ],
)
def test_module_prefixed_computations_stay_computations(name, description, props):
    assert tool_meaning(name, description, {"properties": props}).effect == "computation"


def test_irregular_plurals():
    assert singular("people") == "person" and plural("person") == "people"
    assert singular("children") == "child" and plural("child") == "children"
    assert singular("sales_people") == "sales_person" and plural("followed_person") == "followed_people"


def _route_tool(name, method, path, props=None, description=""):
    props = (
        props
        if props is not None
        else {p.strip("{}"): {"type": "integer"} for p in path.split("/") if "{" in p}
    )
    return {
        "id": name,
        "name": name,
        "original_name": name,
        "description": description,
        "group": "tvmaze",
        "parameters": {"type": "object", "properties": props, "required": sorted(props)},
        "output_schema": None,
        "annotations": {"method": method, "path": path},
        "kind": "read" if method == "GET" else "write",
    }


def test_unfollowing_deletes_the_follow_and_never_the_followed_thing():
    """TVmaze user API: the follow is a row of its own, keyed by the network it links."""
    tools = [
        _route_tool("get_networks_by_id", "GET", "/networks/{network_id}"),
        _route_tool("get_user_follows_networks", "GET", "/user/follows/networks", {"embed": S}),
        _route_tool("get_user_follows_networks_by_network_id", "GET", "/user/follows/networks/{network_id}"),
        _route_tool("put_user_follows_networks_by_network_id", "PUT", "/user/follows/networks/{network_id}"),
        _route_tool(
            "delete_user_follows_networks_by_network_id", "DELETE", "/user/follows/networks/{network_id}"
        ),
    ]
    spec = infer_spec({"domain_id": 3, "name": "tvmaze", "groups": {"tvmaze": 5}}, tools, rows=5, seed=0).spec
    ops = {t["name"]: t["operation"] for t in spec["tools"]}
    unfollow = ops["delete_user_follows_networks_by_network_id"]
    assert (unfollow["type"], unfollow["table"]) == ("delete", "followed_networks")
    assert unfollow["key"] == {"network_id": "network_id"}
    assert spec["tables"]["followed_networks"]["primary_key"] == "network_id"
    assert ops["put_user_follows_networks_by_network_id"]["type"] == "insert"
    assert ops["get_networks_by_id"]["table"] == "networks"
    env = Environment(spec)
    before = env.dump()
    followed = before["followed_networks"][0]["network_id"]
    assert env.step("delete_user_follows_networks_by_network_id", {"network_id": followed})["ok"]
    after = env.dump()
    assert after["networks"] == before["networks"]
    assert len(after["followed_networks"]) == len(before["followed_networks"]) - 1


@pytest.mark.parametrize(
    "path, entity, effect",
    [
        # an OData action bound to a row acts on it: never a `deletes`, `forwards` or `emails` table
        ("/me/messages/{message-id}/microsoft.graph.softDelete", "message", "update"),
        ("/me/messages/{message-id}/microsoft.graph.createForward", "message", "update"),
        ("/groups/{group-id}/team/primaryChannel/microsoft.graph.removeEmail", "channel", "update"),
        ("/me/events/{event-id}/microsoft.graph.cancel", "event", "status"),
        # a collection whose name ends in a singleton's word is a collection: a POST to it makes one
        ("/deviceManagement/deviceConfigurations", "configuration", "create"),
        ("/security/secureScoreControlProfiles", "profile", "create"),
        # elmah.io's `/v3/messages/{logId}`: a new message in that log, never an update of a message
        ("/v3/messages/{logId}", "message", "create"),
        ("/v3/messages/{messageId}", "message", "update"),
        # a singleton is still one
        ("/account/settings", "setting", "update"),
        ("/feed/config", "config", "update"),
    ],
)
def test_posted_routes_act_on_the_resource_they_name(path, entity, effect):
    m = tool_meaning("op", "", {"type": "object", "properties": {}}, {"method": "POST", "path": path})
    assert (m.entity, m.effect) == (entity, effect), m


def test_a_repost_is_a_relation_row_and_pages_are_never_fields():
    """SoundCloud's `DELETE /me/reposts/tracks/{track_id}` removes the repost, never the track (blind readers: "remove a
    repost" deleted the track and its comments); eDRV's `paginate_limit` and Orbit's `?items=10|50|100` say how a list
    pages, never a row's field (they were columns and filters)."""
    from envscale.words.semantics import argument_role

    path = {"type": "object", "properties": {"track_id": {"type": "integer", "x-in": "path"}}}
    m = tool_meaning(
        "delete_reposts_tracks_by_track_id",
        "",
        path,
        {"method": "DELETE", "path": "/me/reposts/tracks/{track_id}"},
    )
    assert (m.effect, m.entity) == ("delete", "track_repost"), m
    assert argument_role("paginate_limit", {"type": "integer", "x-in": "query"}) == "pagination"
    assert argument_role("items", {"type": "integer", "enum": [10, 50, 100], "x-in": "query"}) == "pagination"
    assert argument_role("items", {"type": "array", "x-in": "body"}) != "pagination"


def test_a_credential_under_the_api_s_name_is_the_agent_s():
    """Vestorly sends `?vestorly_auth=` with every call: a credential, never a row filter (every list returned the one
    row whose random token matched); a page token stays the list's."""
    from envscale.words.semantics import agent_side

    assert agent_side("vestorly_auth", {"type": "string", "x-in": "query"})
    assert not agent_side("page_token", {"type": "string", "x-in": "query"})
    assert not agent_side("vestorly_auth", {"type": "string", "x-in": "body"})


def test_a_delete_of_an_act_route_undoes_the_act():
    """Flat's `DELETE /classes/{class}/assignments/{assignment}/archive` is `unarchiveAssignment`: it set the state to
    archived (blind readers); the POST on the same route archives."""
    params = {
        "type": "object",
        "properties": {
            "class": {"type": "string", "x-in": "path"},
            "assignment": {"type": "string", "x-in": "path"},
        },
    }
    route = "/classes/{class}/assignments/{assignment}/archive"
    undo = tool_meaning("unarchiveAssignment", "", params, {"method": "DELETE", "path": route})
    do = tool_meaning("archiveAssignment", "", params, {"method": "POST", "path": route})
    assert undo.effect == do.effect == "status"
    assert "archived" in do.status_value and "archived" not in undo.status_value, (do, undo)


def test_a_lookup_route_names_what_it_finds():
    """eBay's `/ad_campaign/{campaign_id}/get_ads_by_inventory_reference` finds ads of the campaign, and
    `/ad_campaign/get_campaign_by_name` a campaign (never a `names` table)."""
    q = {"type": "object", "properties": {"campaign_id": {"type": "string", "x-in": "path"}}}
    ads = tool_meaning(
        "getAds",
        "",
        q,
        {"method": "GET", "path": "/ad_campaign/{campaign_id}/get_ads_by_inventory_reference"},
    )
    one = tool_meaning(
        "getCampaignByName", "", {}, {"method": "GET", "path": "/ad_campaign/get_campaign_by_name"}
    )
    assert (ads.entity, ads.parent) == ("ad", "campaign") and one.entity == "campaign", (ads, one)
