"""One act, one tool: tools of one API operation with one effect are folded, the others kept as aliases.

Each rule here has a test that fails when the rule is switched off: folding at all (PUT/PATCH of one
path, `_N` copies), the effect signature (other columns, another fixed status, another guard stay
apart), the API operation (two paths with one inferred effect stay apart), the choice of the kept tool
and the policy rewrite. The folded spec is still a valid, runnable environment.
"""

import copy

from envscale.env import Environment
from envscale.env.spec import load_spec, spec_problems
from envscale.materialize.aliases import api_operation, effect_signature, fold_aliases, resource_route


def _tool(name, op, *, description="", params=("order_id",), path=None, method="PUT", kind="write"):
    meta = {"original_name": name}
    if path:
        meta["annotations"] = {"method": method, "path": path}
    return {
        "name": name,
        "description": description,
        "kind": kind,
        "parameters": {"type": "object", "properties": {p: {"type": "string"} for p in params}},
        "operation": op,
        "metadata": meta,
    }


UPDATE = {"type": "update", "table": "orders", "key": {"order_id": "order_id"}, "set": {"note": "note"}}


def test_put_and_patch_of_one_path_are_one_tool_and_the_richest_is_kept():
    put = _tool("orders_update", UPDATE, params=("order_id", "note"), path="/orders/{orderId}")
    patch = _tool(
        "orders_patch",
        {**UPDATE, "key": {"order_id": "id"}, "set": {"note": "text"}},  # other argument names, one effect
        description="Change the note of an order.",
        params=("id", "text"),
        path="/orders/{id}",
        method="PATCH",
    )
    spec = {"tools": [put, patch], "policy": "orders_update: refused: the order is closed.\nBe polite."}
    assert fold_aliases(spec) == {"orders_update": "orders_patch"}
    assert [t["name"] for t in spec["tools"]] == ["orders_patch"]
    meta = spec["tools"][0]["metadata"]
    assert meta["aliases"] == ["orders_update"] and meta["alias_tools"][0]["name"] == "orders_update"
    assert spec["policy"] == "orders_patch: refused: the order is closed.\nBe polite."


def test_copies_of_one_tool_are_folded_into_the_one_without_a_copy_number():
    op = {"type": "delete", "table": "projects", "key": {"project_id": "project_id"}}
    spec = {"tools": [_tool("close_project_4", op), _tool("close_project", op), _tool("closeProject_2", op)]}
    folded = fold_aliases(spec)
    assert [t["name"] for t in spec["tools"]] == ["close_project"]
    assert folded == {"close_project_4": "close_project", "closeProject_2": "close_project"}
    # the most descriptive copy wins over a name without a copy number
    rich = _tool("close_project_3", op, description="Close a project: it is archived and read-only.")
    spec = {"tools": [_tool("close_project", op), rich]}
    assert fold_aliases(spec) == {"close_project": "close_project_3"}


def test_one_operation_listed_under_two_prefixes_is_one_tool_and_a_limit_is_no_other_effect():
    by = [{"column": "owner", "arg": "owner", "op": "eq"}, {"column": "team", "arg": "team", "op": "eq"}]
    op = {"type": "list", "table": "projects", "filters": by}
    short = _tool("ProjectApi_list_projects", op, params=("owner", "team"), description="List projects.")
    reordered = {**op, "filters": by[::-1], "limit_arg": "limit"}  # the same filters in another order
    long = _tool("project_api_ProjectApi_list_projects", reordered, params=("owner", "team", "limit"))
    other = _tool("list_archived_projects", op, params=("owner", "team"))  # another operation, one effect
    spec = {"tools": [long, short, other]}
    assert fold_aliases(spec) == {"project_api_ProjectApi_list_projects": "ProjectApi_list_projects"}
    assert [t["name"] for t in spec["tools"]] == ["ProjectApi_list_projects", "list_archived_projects"]


def test_tools_whose_effects_differ_stay_apart():
    ship = {**UPDATE, "set": {}, "fixed": {"status": "shipped"}}
    cancel = {**UPDATE, "set": {}, "fixed": {"status": "cancelled"}}
    guarded = {
        **UPDATE,
        "guards": [{"check": {"eq": [{"column": "status"}, {"value": "open"}]}, "error": "closed"}],
    }
    other_column = {**UPDATE, "set": {"total": "note"}}
    tools = [
        _tool(f"orders_{i}", op, path="/orders/{id}")
        for i, op in enumerate([UPDATE, ship, cancel, guarded, other_column])
    ]
    spec = {"tools": copy.deepcopy(tools)}
    assert fold_aliases(spec) == {} and spec["tools"] == tools
    assert len({effect_signature(t) for t in tools}) == 5


def test_one_inferred_effect_of_two_api_operations_is_not_folded():
    # inference gave both deletes one table; the API has two resources, a person asks for one by name
    op = {"type": "delete", "table": "applications", "key": {"application_id": "name"}}
    services = _tool(
        "Services_Delete", op, params=("name",), path="/apps/{app}/services/{name}", method="DELETE"
    )
    apps = _tool("Applications_Delete", op, params=("name",), path="/apps/{name}", method="DELETE")
    assert effect_signature(services) == effect_signature(apps)
    assert api_operation(services) != api_operation(apps)
    spec = {"tools": [services, apps]}
    assert fold_aliases(spec) == {} and len(spec["tools"]) == 2


def test_a_folded_spec_is_valid_and_runs():
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    first = spec["tools"][0]
    copy_of = {**copy.deepcopy(first), "name": first["name"] + "_2", "description": "Same."}
    spec["tools"].append(copy_of)
    assert fold_aliases(spec) == {copy_of["name"]: first["name"]}
    assert spec_problems(spec) == []
    assert spec["tools"][0]["metadata"]["aliases"] == [copy_of["name"]]
    with Environment(spec) as env:
        env.reset()
        offered = {t["function"]["name"] for t in env.openai_tools()}
    assert first["name"] in offered and copy_of["name"] not in offered


def test_show_environment_names_the_aliases_of_a_tool():
    from envscale.show.environment import render_environment

    spec = load_spec("tests/fixtures/envs/shop.yaml")
    first = spec["tools"][0]
    spec["tools"].append({**copy.deepcopy(first), "name": first["name"] + "_2", "description": "Same."})
    fold_aliases(spec)
    text = render_environment({"spec": spec})
    assert f"aliases (the same act under other names): {first['name']}_2" in text


def test_one_read_named_in_two_word_orders_is_one_tool_and_other_objects_stay_apart():
    """Without paths, names of one set of operation words (any order, fetch words, an `X_api_` prefix and
    copy numbers aside) are one operation; a name with another word (`core` / `archival`) is another."""
    read = {"type": "list", "table": "forecasts", "filters": [{"column": "city", "arg": "city"}]}
    reads = [
        _tool("get_weather_forecast", read, params=("city",), kind="read"),
        _tool("weather_forecast_get", read, params=("city",), kind="read"),
        _tool("weather_api_fetch_weather_forecasts_2", read, params=("city",), kind="read"),
    ]
    spec = {"tools": copy.deepcopy(reads)}
    assert fold_aliases(spec) == {
        "weather_forecast_get": "get_weather_forecast",
        "weather_api_fetch_weather_forecasts_2": "get_weather_forecast",
    }
    add = {"type": "insert", "table": "memories", "values": {"content": "content"}}
    adds = [
        _tool("core_memory_add", add, params=("content",)),
        _tool("archival_memory_add", add, params=("content",)),
    ]
    assert fold_aliases({"tools": adds}) == {}


def test_a_route_and_its_versioned_twin_are_one_operation():
    read = {"type": "list", "table": "products", "filters": []}
    v1 = _tool(
        "getAllProducts", read, params=(), path="/organizations/{org}/products", method="GET", kind="read"
    )
    v2 = _tool(
        "getAllProductsV2",
        read,
        params=(),
        path="/organizations/{org}/products/v2",
        method="GET",
        kind="read",
    )
    other = _tool(
        "getAllPrices", read, params=(), path="/organizations/{org}/prices", method="GET", kind="read"
    )
    assert api_operation(v1) == api_operation(v2) != api_operation(other)
    assert fold_aliases({"tools": [v1, v2, other]}) == {"getAllProductsV2": "getAllProducts"}


def test_one_resource_reached_by_two_routes_is_one_tool_and_a_qualified_twin_stays_apart():
    """Microsoft Graph reaches one event from `/me` and from a group, Kubernetes lists a collection with
    and without `watch`: one resource, one act, so one tool. `/fax/receipts` and `/sms/receipts` name
    two resources (the static segment before them tells them apart), and stay two tools even when
    inference gave them one table."""
    delete = {"type": "delete", "table": "events", "key": {"event_id": "event_id"}}
    mine = _tool(
        "me_DeleteEvents", delete, params=("event_id",), path="/me/events/{event-id}", method="DELETE"
    )
    groups = _tool(
        "groups_DeleteEvents",
        delete,
        params=("group_id", "event_id"),
        path="/groups/{group-id}/events/{event-id}",
        method="DELETE",
    )
    listing = {"type": "list", "table": "pods", "filters": []}
    lists = [
        _tool(
            "listCoreV1NamespacedPod", listing, params=(), path="/api/v1/namespaces/{ns}/pods", method="GET"
        ),
        _tool(
            "watchCoreV1NamespacedPodList",
            listing,
            params=(),
            path="/api/v1/watch/namespaces/{ns}/pods",
            method="GET",
        ),
    ]
    spec = {"tools": [mine, groups, *lists]}
    assert fold_aliases(spec) == {
        "me_DeleteEvents": "groups_DeleteEvents",
        "watchCoreV1NamespacedPodList": "listCoreV1NamespacedPod",
    }
    receipts = {"type": "list", "table": "receipts", "filters": []}
    fax = _tool("List_of_Fax_Delivery_Receipts", receipts, params=(), path="/fax/receipts", method="GET")
    sms = _tool("get_sms_receipts", receipts, params=(), path="/sms/receipts", method="GET")
    assert resource_route(fax) == ("fax", "receipts", False) != resource_route(sms)
    assert fold_aliases({"tools": [fax, sms]}) == {}


def test_a_type_cast_read_is_one_resource_whichever_relation_reached_it():
    """`/groups/{g}/memberOf/microsoft.graph.group` and `/groups/{g}/owners/microsoft.graph.group` both read
    group rows (the world holds no `memberOf` relation apart): one tool. The same segments as a POST are
    actions and stay apart."""
    read = {"type": "list", "table": "groups", "filters": []}
    member_of = _tool(
        "memberOf_AsGroup",
        read,
        params=(),
        path="/groups/{g}/memberOf/microsoft.graph.group",
        method="GET",
        kind="read",
    )
    owners = _tool(
        "owners_AsGroup",
        read,
        params=(),
        path="/groups/{g}/owners/microsoft.graph.group",
        method="GET",
        kind="read",
    )
    assert resource_route(member_of) == resource_route(owners) == ("", "group", False)
    assert fold_aliases({"tools": [member_of, owners]}) == {"owners_AsGroup": "memberOf_AsGroup"}
    act = {"type": "insert", "table": "holds", "values": {}}
    apply = _tool(
        "applyHold", act, params=(), path="/cases/{c}/custodians/{u}/microsoft.graph.applyHold", method="POST"
    )
    remove = _tool(
        "removeHold",
        act,
        params=(),
        path="/cases/{c}/custodians/{u}/microsoft.graph.removeHold",
        method="POST",
    )
    assert fold_aliases({"tools": [apply, remove]}) == {}


def test_two_routes_that_return_one_resource_are_one_tool_and_other_shapes_stay_apart():
    """At scale, Stripe's `/accounts/{a}/persons` and `/accounts/{a}/people`, and Planner's
    `/planner/plans/{p}/buckets/{b}` and `/planner/buckets/{b}`, were each two tools of one effect: their
    routes differ, but they return one resource. Responses that share most of their fields fold them; two routes
    whose responses differ stay apart, as do responses too small to tell (a delete returns nothing)."""

    def returning(tool, fields):
        tool["metadata"]["original_output_schema"] = {
            "type": "object",
            "properties": {f: {"type": "string"} for f in fields},
        }
        return tool

    person = ["id", "first_name", "last_name", "email", "dob", "address", "phone"]
    create = {"type": "insert", "table": "people", "values": {"email": "email"}}
    persons = returning(
        _tool(
            "PostAccountsAccountPersons",
            create,
            params=("email",),
            path="/v1/accounts/{account}/persons",
            method="POST",
        ),
        person,
    )
    people = returning(
        _tool(
            "PostAccountsAccountPeople",
            create,
            params=("email",),
            path="/v1/accounts/{account}/people",
            method="POST",
        ),
        person,
    )
    assert len(fold_aliases({"tools": [copy.deepcopy(persons), copy.deepcopy(people)]})) == 1
    update = {"type": "update", "table": "buckets", "key": {"bucket_id": "b"}, "set": {"name": "name"}}
    nested = _tool(
        "planner_plans_UpdateBuckets",
        update,
        params=("b", "name"),
        path="/planner/plans/{p}/buckets/{b}",
        method="PATCH",
    )
    flat = _tool(
        "planner_UpdateBuckets", update, params=("b", "name"), path="/planner/buckets/{b}", method="PATCH"
    )
    bucket = ["id", "name", "orderHint", "planId", "tasks", "@odata.type"]
    # one under a parent row, the other qualified: one resource reached twice, folded though nothing is returned
    assert fold_aliases({"tools": [copy.deepcopy(nested), copy.deepcopy(flat)]}) == {
        "planner_plans_UpdateBuckets": "planner_UpdateBuckets"
    }
    archived = copy.deepcopy(flat)
    archived["name"] = archived["metadata"]["original_name"] = "archive_UpdateBuckets"
    archived["metadata"]["annotations"]["path"] = "/archive/buckets/{b}"
    assert (
        fold_aliases({"tools": [copy.deepcopy(flat), archived]}) == {}
    )  # two qualifiers, no responses: apart
    shaped = [returning(copy.deepcopy(nested), bucket), returning(copy.deepcopy(flat), bucket)]
    assert fold_aliases({"tools": shaped}) == {"planner_plans_UpdateBuckets": "planner_UpdateBuckets"}
    other = [
        returning(copy.deepcopy(nested), bucket),
        returning(copy.deepcopy(flat), ["id", "title", "due", "owner"]),
    ]
    assert fold_aliases({"tools": other}) == {}


def test_a_delete_that_returns_nothing_is_judged_by_what_its_route_returns():
    """`DELETE /communications/onlineMeetings/{m}` and `DELETE /users/{u}/calendar/onlineMeetings/{m}` (two
    qualifiers, so their routes alone do not say one resource) return nothing; their routes' GETs return one
    meeting: one delete, the other its alias. Without the GETs they stay apart."""

    def tool(name, method, path, op, fields=()):
        made = _tool(
            name, op, params=("m",), path=path, method=method, kind="read" if method == "GET" else "write"
        )
        if fields:
            made["metadata"]["original_output_schema"] = {
                "type": "object",
                "properties": {f: {"type": "string"} for f in fields},
            }
        return made

    meeting = ["id", "subject", "startDateTime", "endDateTime", "joinUrl"]
    delete = {"type": "delete", "table": "meetings", "key": {"meeting_id": "m"}}
    deletes = [
        tool("communications_DeleteOnlineMeetings", "DELETE", "/communications/onlineMeetings/{m}", delete),
        tool("users_DeleteOnlineMeetings", "DELETE", "/users/{u}/calendar/onlineMeetings/{m}", delete),
    ]
    assert fold_aliases({"tools": copy.deepcopy(deletes)}) == {}
    get = {"type": "get", "table": "meetings", "key": {"meeting_id": "m"}}
    gets = [
        tool("communications_GetOnlineMeetings", "GET", "/communications/onlineMeetings/{m}", get, meeting),
        tool("users_GetOnlineMeetings", "GET", "/users/{u}/calendar/onlineMeetings/{m}", get, meeting),
    ]
    folded = fold_aliases({"tools": copy.deepcopy(deletes + gets)})
    assert len(folded) == 2 and "users_DeleteOnlineMeetings" in {*folded, *folded.values()}, folded


def test_one_resource_under_a_parent_row_and_on_its_own_is_one_tool_unless_its_shapes_differ():
    """At scale, Microsoft Graph's `/users/{u}/managedDevices/{d}` and `/deviceManagement/managedDevices/{d}`
    were two deletes of one device, a space's `/customers` and `/customers/all` two lists of one table, and a
    post's attachments counted through `$count` a read judged by no shape: each is one tool now. A route whose
    response is another resource's stays a tool of its own."""
    delete = {"type": "delete", "table": "managed_devices", "key": {"managed_device_id": "d"}}
    under_user = _tool(
        "users_DeleteManagedDevices",
        delete,
        params=("d",),
        path="/users/{u}/managedDevices/{d}",
        method="DELETE",
    )
    managed = _tool(
        "deviceManagement_DeleteManagedDevices",
        delete,
        params=("d",),
        path="/deviceManagement/managedDevices/{d}",
        method="DELETE",
    )
    assert fold_aliases({"tools": [copy.deepcopy(under_user), copy.deepcopy(managed)]}) == {
        "users_DeleteManagedDevices": "deviceManagement_DeleteManagedDevices"
    }
    listing = {"type": "list", "table": "customers", "filters": []}
    customers = _tool(
        "listCustomers", listing, params=(), path="/spaces/{s}/customers", method="GET", kind="read"
    )
    every = _tool(
        "listAllCustomers", listing, params=(), path="/spaces/{s}/customers/all", method="GET", kind="read"
    )
    folded = fold_aliases({"tools": [customers, every]})
    assert len(folded) == 1 and {*folded, *folded.values()} == {"listCustomers", "listAllCustomers"}

    def returning(tool, fields):
        tool["metadata"]["original_output_schema"] = {
            "type": "object",
            "properties": {f: {"type": "string"} for f in fields},
        }
        return tool

    attachments = {"type": "list", "table": "attachments", "filters": []}
    count = {"type": "count", "table": "attachments", "filters": []}
    counted = [
        _tool(
            "posts_attachments_GetCount", count, params=(), path="/posts/{p}/attachments/$count", method="GET"
        ),
        _tool(
            "posts_inReplyTo_attachments_GetCount",
            count,
            params=(),
            path="/posts/{p}/inReplyTo/attachments/$count",
            method="GET",
        ),
    ]
    attachment = ["id", "name", "contentType", "size", "isInline", "lastModifiedDateTime"]
    lists = [
        returning(
            _tool(
                "posts_ListAttachments", attachments, params=(), path="/posts/{p}/attachments", method="GET"
            ),
            attachment,
        ),
        returning(
            _tool(
                "posts_inReplyTo_ListAttachments",
                attachments,
                params=(),
                path="/posts/{p}/inReplyTo/attachments",
                method="GET",
            ),
            ["id", "subject", "body", "from", "receivedDateTime", "conversationId"],
        ),
    ]
    # the counts' routes return two shapes (an attachment, a message): two resources, two counts
    assert fold_aliases({"tools": copy.deepcopy(counted + lists)}) == {}
    lists[1]["metadata"]["original_output_schema"]["properties"] = {f: {"type": "string"} for f in attachment}
    assert fold_aliases({"tools": copy.deepcopy(counted + lists)}) == {
        "posts_inReplyTo_attachments_GetCount": "posts_attachments_GetCount",
        "posts_inReplyTo_ListAttachments": "posts_ListAttachments",
    }


def test_a_row_composed_by_nested_all_of_has_all_its_fields():
    """Microsoft Graph's schedule item is `allOf: [{allOf: [entity, base]}, {properties}]`: its fields are those of
    all three parts, so two routes that return it are judged by the whole row, not by the outermost part."""
    from envscale.materialize.responses import output_fields

    schema = {
        "allOf": [
            {
                "allOf": [
                    {"properties": {"id": {"type": "string"}}},
                    {"properties": {"createdDateTime": {}, "status": {}}},
                ]
            },
            {"properties": {"startDateTime": {}, "endDateTime": {}}},
        ]
    }
    assert set(output_fields(schema)) == {"id", "createdDateTime", "status", "startDateTime", "endDateTime"}
