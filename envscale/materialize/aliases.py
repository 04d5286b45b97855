"""Near-duplicate tools of one world folded into one tool, the others kept as its aliases.

An API often offers one act under several names: `tasks_tasks_update` and `tasks_tasks_patch` (PUT
and PATCH of one path), `close_project` and `close_project_4` (two copies of one document). Once
inferred, such tools have the same operation on the same table: the same type, table, key, columns set
or filtered, fixed values, guards and effects, told apart only by their argument names. A world
offers that act once. :func:`fold_aliases` keeps the most descriptive tool of each such set
(the longest description, then the most documented parameters, then a name without a copy number
`_N`, then the first name in order) and records the others on it as `metadata.aliases` (names) and
`metadata.alias_tools` (name and description), so a card or `envscale show environment` can say what
was folded. Tools whose operations differ in anything but argument names (another column set, a fixed
status value, another guard) stay distinct. The environment's `policy` lines naming a folded tool
are rewritten to the kept one.

Example:

```python
>>> from envscale.materialize.aliases import fold_aliases
>>> op = {"type": "delete", "table": "orders", "key": {"order_id": "id"}}
>>> spec = {"tools": [
...     {"name": "delete_order", "description": "Delete an order.", "kind": "write",
...      "parameters": {"properties": {"id": {}}}, "operation": op},
...     {"name": "delete_order_2", "description": "Delete.", "kind": "write",
...      "parameters": {"properties": {"order": {}}}, "operation": {**op, "key": {"order_id": "order"}}},
... ]}
>>> folded = fold_aliases(spec)
>>> [t["name"] for t in spec["tools"]], spec["tools"][0]["metadata"]["aliases"], folded
(['delete_order'], ['delete_order_2'], {'delete_order_2': 'delete_order'})
```
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..words.inflect import singular
from .responses import row_fields, shape_overlap

_COPY_NUMBER = re.compile(r"_\d+$")
_PATH_PARAM = re.compile(r"\{[^{}]*\}")
_VERSION = re.compile(r"/v\d+(?:\.\d+)*(?=/|$)")
"""A version segment of a route (`/v2`, `/v1.1`): `/products` and `/products/v2` are one resource's read."""
_TEXT_KEYS = frozenset({"error", "description", "returns", "limit_arg", "order_by"})
"""Operation keys that say nothing about the effect (error texts; how much and in what order a read answers)."""


def effect_signature(tool: dict[str, Any]) -> str:
    """The tool's operation with its argument names abstracted (`<arg>`) and its texts left out, as text.

    Two tools with one signature do the same thing to the same rows for the same inputs.
    """
    params = (tool.get("parameters") or {}).get("properties") or {}
    names = set(params) if isinstance(params, dict) else set()

    def norm(value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {
                k: ("<arg>" if k == "arg" and isinstance(v, str) else norm(v, k))
                for k, v in sorted(value.items())
                if k not in _TEXT_KEYS
            }
        if isinstance(value, list):
            items = [norm(v, key) for v in value]
            # filters apply together: their order is no other effect
            return (
                sorted(items, key=lambda v: json.dumps(v, sort_keys=True, default=str))
                if key == "filters"
                else items
            )
        if isinstance(value, str) and value in names and key not in ("type", "table", "column", "op"):
            return "<arg>"  # a binding by argument name (`{column: ARG}`)
        return value

    op = tool.get("operation") or {}
    return json.dumps([tool.get("kind"), norm(op)], sort_keys=True, default=str)


def api_operation(tool: dict[str, Any]) -> str:
    """Which operation of its API a tool is: its OpenAPI path with parameter names abstracted
    (`/orders/{}`: PUT and PATCH of one path are one resource's update) without version segments
    (`/products/v2` is `/products`), else its name up to case,
    separators and a copy number (`close_project_4` is `closeproject`)."""
    from ..graph.build import near_name

    meta = tool.get("metadata") if isinstance(tool.get("metadata"), dict) else {}
    notes = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
    path = notes.get("path")
    if isinstance(path, str) and path.strip():
        return "path:" + _VERSION.sub("", _PATH_PARAM.sub("{}", path.rstrip("/").lower()))
    return "name:" + near_name(str(meta.get("original_name") or tool.get("name") or ""))


_NAVIGATION = frozenset({"api", "apis", "rest", "watch", "me", "my", "self", "current", "all"})
"""Route segments that say where a resource is reached from, never which resource it is (`/me/events`,
Kubernetes' `/api/v1/watch/namespaces/{ns}/pods`, Gérer mes affaires' `/spaces/{s}/customers/all`)."""


def resource_route(tool: dict[str, Any]) -> tuple[str, str, bool] | None:
    """Which resource a tool's OpenAPI route names, wherever the route reaches it from: (the static segment
    right before the resource's own, else `""`; the resource's segment; whether one row is addressed), with
    parameters, version segments, navigation words (:data:`_NAVIGATION`), OData's `$` segments and the
    `microsoft.graph.` namespace left out and case folded; `None` without a route.

    `/me/onenote/sections/{id}` and `/users/{u}/onenote/sections/{id}` are one resource reached from two
    places (`("onenote", "sections", True)`), as are `/me/events/{e}` and `/groups/{g}/events/{e}`
    (`("", "events", True)`) and Kubernetes' `watch` and `list` routes of one collection; `/fax/receipts` and
    `/sms/receipts` are two (`fax` and `sms` tell them apart). A read ending in an OData type cast
    (`/groups/{g}/memberOf/microsoft.graph.group`) reads rows of that type, wherever it is reached from.

    Example:

    ```python
    >>> def at(path): return {"metadata": {"annotations": {"path": path}}}
    >>> resource_route(at("/me/events/{e}")) == resource_route(at("/groups/{g}/events/{event-id}"))
    True
    >>> resource_route(at("/fax/receipts")), resource_route(at("/sms/receipts"))
    (('fax', 'receipts', False), ('sms', 'receipts', False))
    ```
    """
    meta = tool.get("metadata") if isinstance(tool.get("metadata"), dict) else {}
    notes = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
    path = notes.get("path")
    if not isinstance(path, str) or not path.strip("/"):
        return None
    parts: list[str | None] = []  # `None`: a parameter
    cast = False  # a read ending in an OData type cast (`.../memberOf/microsoft.graph.group`)
    for segment in path.strip("/").lower().split("/"):
        if not segment or segment.startswith("$"):
            continue
        if segment.startswith(("{", ":")):
            parts.append(None)
            continue
        cast = segment.startswith("microsoft.graph.") and str(notes.get("method") or "").upper() == "GET"
        segment = segment.removeprefix("microsoft.graph.")
        if segment in _NAVIGATION or _VERSION.fullmatch("/" + segment):
            continue
        parts.append(segment)
    named = [i for i, part in enumerate(parts) if part is not None]
    if not named:
        return None
    last = named[-1]
    before = parts[last - 1] if last > 0 and not (cast and last == len(parts) - 1) else None
    # the rows of a type cast are that type's rows, whichever relation reached them (the world holds
    # `memberOf` and `ownedObjects` as one table of the type)
    return (before or "", str(parts[last]), last + 1 < len(parts))


def _words(tool: dict[str, Any]) -> list[str]:
    from ..words.names import name_words

    meta = tool.get("metadata") if isinstance(tool.get("metadata"), dict) else {}
    return name_words(_COPY_NUMBER.sub("", str(meta.get("original_name") or tool.get("name") or "")))


_FETCH_WORDS = frozenset(
    "get list fetch retrieve read show view find search lookup look query browse all info information "
    "detail details data".split()
)
"""Words of a read's name that say only that it fetches (`get`, `fetch`, `list`, `all`, `info`, `details`):
`get_user_info` and `fetch_user_details` name one read."""


def operation_words(tool: dict[str, Any]) -> frozenset[str]:
    """The words that say which operation a tool is, in any order: its name's words after an API prefix
    (`sce_api_get_products` -> `get products`: the words up to an `api` followed by a verb), singular,
    without the words that only say it fetches (:data:`_FETCH_WORDS`) or a copy number.

    Example:

    ```python
    >>> operation_words({"name": "weather_forecast_get"}) == operation_words({"name": "get_weather_forecast"})
    True
    >>> sorted(operation_words({"name": "website_configuration_api_get_websites"}))
    ['website']
    ```
    """
    from ..words.inflect import singular
    from ..words.verbs import READ_VERBS, WRITE_VERBS

    words = _words(tool)
    starts = [
        i + 1 for i in range(len(words) - 1) if words[i] == "api" and words[i + 1] in READ_VERBS | WRITE_VERBS
    ]
    words = words[starts[-1] :] if starts else words
    return frozenset(singular(w) for w in words if w not in _FETCH_WORDS)


def same_api_operation(
    a: dict[str, Any], b: dict[str, Any], shapes: dict[str, frozenset[str]] | None = None
) -> bool:
    """Whether two tools are one operation of their API: one :func:`api_operation`, one resource reached by
    two routes (:func:`resource_route`: `/me/events/{e}` and `/groups/{g}/events/{e}`), or (without paths) the
    words of one name, three or more, a run of the other's (`ProjectApi_update_project` and
    `project_api_ProjectApi_update_project`: one operation listed under two prefixes), or one set of
    :func:`operation_words` (`get_weather_forecast` and `weather_forecast_get`, `users_list` and
    `get_all_user_list`: one read named in two word orders). `shapes` (:func:`route_shapes`) lend a tool whose
    response describes nothing (a delete) the fields its route returns to another tool."""
    op_a, op_b = api_operation(a), api_operation(b)
    if op_a == op_b:
        return True
    if op_a.startswith("path:") and op_b.startswith("path:"):
        route = resource_route(a)
        return route is not None and (route == resource_route(b) or one_resource_by_shape(a, b, shapes))
    if op_a.startswith("path:") or op_b.startswith("path:"):
        return False
    short, long = sorted((_words(a), _words(b)), key=len)
    if len(short) >= 3 and any(long[i : i + len(short)] == short for i in range(len(long) - len(short) + 1)):
        return True
    words = operation_words(a)
    return bool(words) and words == operation_words(b)


SAME_SHAPE = 0.8
"""The share of fields two responses must share (`responses.shape_overlap`) to be one resource's."""


def response_fields(tool: dict[str, Any]) -> frozenset[str]:
    """The fields of the row a tool's API response returns (`metadata.original_output_schema`, pages and
    envelopes unwrapped; `responses.row_fields`)."""
    meta = tool.get("metadata") if isinstance(tool.get("metadata"), dict) else {}
    entity = meta.get("entity") if isinstance(meta.get("entity"), str) else None
    return row_fields(meta.get("original_output_schema"), entity)


def _route_key(tool: dict[str, Any]) -> str | None:
    """A tool's route with its parameters blanked and case folded (`/users/{}/events/{}`)."""
    meta = tool.get("metadata") if isinstance(tool.get("metadata"), dict) else {}
    notes = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
    path = notes.get("path")
    if not isinstance(path, str):
        return None
    # a count counts its collection's rows: `/posts/{p}/attachments/$count` has the fields of `/posts/{p}/attachments`
    path = re.sub(r"/\$count$", "", path.rstrip("/"))
    return re.sub(r"\{[^}]*\}|:[A-Za-z_]\w*", "{}", path.lower())


def route_shapes(tools: list[dict[str, Any]]) -> dict[str, frozenset[str]]:
    """The response fields of each route of a domain's tools (:func:`response_fields`, the richest tool of the
    route): what `GET /users/{u}/events/{e}` returns is what `DELETE` on that route removes."""
    shapes: dict[str, frozenset[str]] = {}
    for tool in tools:
        key, fields = _route_key(tool), response_fields(tool)
        if key is not None and len(fields) > len(shapes.get(key, ())):
            shapes[key] = fields
    return shapes


def one_resource_by_shape(
    a: dict[str, Any], b: dict[str, Any], shapes: dict[str, frozenset[str]] | None = None
) -> bool:
    """Whether two routes that :func:`resource_route` keeps apart reach one resource by what they return: the
    same resource segment (singular: Stripe's `/accounts/{a}/persons` and `/accounts/{a}/people`), both
    addressing one row or neither, and responses that share :data:`SAME_SHAPE` of their fields
    (`responses.shape_overlap`). Microsoft Graph's `/team/primaryChannel/messages/{m}` and
    `/team/channels/{c}/messages/{m}`, or Planner's `/planner/plans/{p}/buckets/{b}` and
    `/planner/buckets/{b}`: one message, one bucket, reached from two places. `/fax/receipts` and
    `/sms/receipts` stay two unless their responses agree too."""
    from ..words.inflect import singular

    route_a, route_b = resource_route(a), resource_route(b)
    if route_a is None or route_b is None or route_a[2] != route_b[2]:
        return False
    if singular(re.sub(r"[^a-z0-9]", "", route_a[1])) != singular(re.sub(r"[^a-z0-9]", "", route_b[1])):
        return False
    fields_a, fields_b = response_fields(a), response_fields(b)
    if shapes:  # a delete's route returns, to its GET, the row it removes
        fields_a = fields_a or shapes.get(_route_key(a) or "", frozenset())
        fields_b = fields_b or shapes.get(_route_key(b) or "", frozenset())
    overlap = shape_overlap(fields_a, fields_b)
    return overlap is not None and overlap >= SAME_SHAPE


def one_resource_reached_twice(
    a: dict[str, Any], b: dict[str, Any], shapes: dict[str, frozenset[str]] | None = None
) -> bool:
    """Whether two tools of one effect (:func:`effect_signature`) reach one resource by two routes: the same
    resource segment (singular), one of them right under a parent row (`/users/{u}/managedDevices`), both
    addressing one row or neither, and responses that do not tell them apart
    (:func:`one_resource_by_shape`'s overlap where both describe enough fields; else nothing says they differ).

    Microsoft Graph's `/users/{u}/managedDevices/{d}` and `/deviceManagement/managedDevices/{d}`, a post's
    `extensions/{e}` and its `inReplyTo/extensions/{e}`: one act on one table, offered once (issue 19: near-duplicate
    tools are one tool unless their operations differ). Used by :func:`fold_aliases` only, after inference has
    given different kinds of one resource their kinds (`infer.sibling_kinds`), where their effects differ."""
    route_a, route_b = resource_route(a), resource_route(b)
    if route_a is None or route_b is None or route_a[2] != route_b[2]:
        return False
    if route_a[0] and route_b[0]:  # two qualifiers (`/fax/receipts`, `/sms/receipts`): two kinds
        return False
    if singular(re.sub(r"[^a-z0-9]", "", route_a[1])) != singular(re.sub(r"[^a-z0-9]", "", route_b[1])):
        return False
    fields_a, fields_b = response_fields(a), response_fields(b)
    if shapes:
        fields_a = fields_a or shapes.get(_route_key(a) or "", frozenset())
        fields_b = fields_b or shapes.get(_route_key(b) or "", frozenset())
    overlap = shape_overlap(fields_a, fields_b)
    return overlap is None or overlap >= SAME_SHAPE


def _richness(tool: dict[str, Any]) -> tuple:
    """Sort key of the tool to keep: most descriptive first, then without a copy number, then by name."""
    params = (tool.get("parameters") or {}).get("properties") or {}
    documented = sum(
        1 for p in params.values() if isinstance(p, dict) and str(p.get("description") or "").strip()
    )
    name = str(tool.get("name"))
    return (
        -len(str(tool.get("description") or "").strip()),
        -documented,
        bool(_COPY_NUMBER.search(name)),
        name,
    )


def fold_aliases(spec: dict[str, Any]) -> dict[str, str]:
    """Fold each set of tools of one :func:`effect_signature` that are one API operation
    (:func:`same_api_operation`, linked pairwise) into its richest tool, in place.

    Tools of two API operations (other paths, other names) are never folded, unless their routes reach
    one resource (:func:`resource_route`: `/me/events/{e}` and `/groups/{g}/events/{e}`), even when inference gave
    them one effect (`Services_Delete` and `Applications_Delete` both deleting `applications` rows is an
    inference that merged two resources, not two names for one act): a person asked for one of them
    would look for it by its own name.

    The kept tool keeps its place and the folded ones leave the list; each folded tool's name is appended to the kept
    tool's `metadata.aliases` (and `{name, description}` to `metadata.alias_tools`), and `policy` lines
    naming it name the kept tool (duplicate lines dropped).

    Args:
        spec: an environment spec (its `tools`, and `policy` when present).

    Returns:
        `{folded tool name: kept tool name}` (empty when no two tools share an effect).
    """
    tools = spec.get("tools") or []
    shapes = route_shapes(tools)
    by_signature: dict[str, list[int]] = {}
    for i, tool in enumerate(tools):
        by_signature.setdefault(effect_signature(tool), []).append(i)
    sets: list[list[int]] = []  # tools of one effect and one API operation (linked pairwise)
    for same in by_signature.values():
        owner = {i: i for i in same}
        for x, i in enumerate(same):
            for j in same[:x]:
                if owner[j] != owner[i] and (
                    same_api_operation(tools[i], tools[j], shapes)
                    or one_resource_reached_twice(tools[i], tools[j], shapes)
                ):
                    old, new = owner[i], owner[j]
                    owner = {k: new if o == old else o for k, o in owner.items()}
        groups: dict[int, list[int]] = {}
        for i in same:
            groups.setdefault(owner[i], []).append(i)
        sets += groups.values()
    folded: dict[str, str] = {}
    drop: set[int] = set()
    for members in sets:
        if len(members) < 2:
            continue
        keep = min(members, key=lambda i: _richness(tools[i]))
        kept = tools[keep]
        if not isinstance(kept.get("metadata"), dict):
            kept["metadata"] = {}
        meta = kept["metadata"]
        for i in sorted(members):
            if i == keep:
                continue
            alias = tools[i]
            meta.setdefault("aliases", []).append(alias["name"])
            meta.setdefault("alias_tools", []).append(
                {"name": alias["name"], "description": alias.get("description") or ""}
            )
            folded[alias["name"]] = kept["name"]
            drop.add(i)
    if not folded:
        return folded
    spec["tools"] = [t for i, t in enumerate(tools) if i not in drop]
    if isinstance(spec.get("policy"), str) and spec["policy"]:
        names = "|".join(re.escape(n) for n in sorted(folded, key=len, reverse=True))
        pattern = re.compile(rf"(?<![\w-])({names})(?![\w-])")
        lines = [pattern.sub(lambda m: folded[m.group(1)], line) for line in spec["policy"].split("\n")]
        spec["policy"] = "\n".join(dict.fromkeys(lines))
    return folded
