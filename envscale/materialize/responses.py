"""What an API's response says about the row it returns: its fields, with arrays, pages and envelopes unwrapped.

`materialize.infer` reads a tool's columns from them and `materialize.aliases` tells two routes of one resource
by them.
"""

from __future__ import annotations

import re
from typing import Any

from ..words.inflect import singular
from ..words.names import sanitize_name, tokens

_IDENT = re.compile(r"[^A-Za-z0-9_]+")


def ident(name: str) -> str:
    """A SQL-safe identifier (`[a-z_][a-z0-9_]*`, at most 63 characters)."""
    out = _IDENT.sub("_", sanitize_name("_".join(tokens(name)) or name) or "x").strip("_").lower() or "x"
    return ("c_" + out if out[0].isdigit() else out)[:63]


PAGE_FIELDS = frozenset(
    {
        "links",
        "meta",
        "next_page_url",
        "previous_page_url",
        "prev_page_url",
        "first_page_url",
        "last_page_url",
        "nextpageurl",
        "page_size",
        "pagesize",
        "per_page",
        "perpage",  # Xero Files' `{TotalCount, Page, PerPage, Items: [...]}`: its files had `page` and `per_page`
        "has_more",
        "hasmore",
        "next_cursor",
        "nextcursor",
        "next_page_token",
        "nextpagetoken",
        "cursor",
        "cursors",
        "pagination",
        "paging",
        "page_info",
        "pageinfo",
        "current_page",
        "currentpage",
        "page_number",
        "pagenumber",
        "pageno",
        "last_page",
        "lastpage",
        "next_page",
        "prev_page",
        "previous_page",
        "total_pages",
        "totalpages",
        "page_count",
        "pagecount",
        "total_results",
        "totalresults",
        "total_items",
        "totalitems",
        "total_elements",
        "totalelements",
        # OData's and Azure's `{value: [...], nextLink}`, AWS's `{Items: [...], NextToken}`: the next page's address
        "nextlink",
        "next_link",
        "@odata.nextlink",
        "odata.nextlink",
        "@odata.count",
        "odata.count",
        "@odata.context",
        "odata.context",
        "nexttoken",
        "next_token",
        "nextmarker",
        "next_marker",
        "continuationtoken",
        "continuation_token",
        "skiptoken",
        "skip_token",
        # the recipe API's `{ResultCount, Results: [...]}`: how many rows the page holds
        "resultcount",
        "result_count",
        "results_count",
        # SCIM's `ListResponse` (`{schemas, totalResults, itemsPerPage, startIndex, Resources: [...]}`): Docker Hub's
        # users had `items_per_page` and `start_index` columns (seed 94's readers)
        "itemsperpage",
        "items_per_page",
        "startindex",
        "start_index",
    }
)
"""Pagination and hypermedia fields of a response: how a client pages through rows, never what a row holds."""
ENVELOPE_FIELDS = PAGE_FIELDS | {
    "schemas",  # SCIM's message URNs beside `Resources`
    "total",
    "count",
    "limit",
    "offset",
    "next",
    "page",
    "total_count",
    "totalcount",
    "previous",
    "prev",
    "status",
    "status_code",
    "statuscode",
    "service",
    "resource",
    "operation",
    "success",
    "object",
    "url",
    "uri",
    "href",
    "first_page_uri",
    "next_page_uri",
    "previous_page_uri",
    "page_size",
    "start",
    "end",
    "_links",
    "_meta",
    "request_id",
    "server_knowledge",
    # Billbee's `{Paging, ErrorMessage, ErrorCode, ErrorDescription, Data}`: how the call went, never the row's
    "paging",
    "pagination",
    "error_code",
    "errorcode",
    "error_message",
    "errormessage",
    "error_description",
    "errordescription",
    # JSON:API's `{data, included, links, meta, jsonapi}` and ExaVault's `responseStatus`, `returnedResults` beside it
    "included",
    "jsonapi",
    "response_status",
    "responsestatus",
    "returned_results",
    "returnedresults",
}
"""The fields beside a response's payload (`data`, `items` ...) that say how it was answered or paged."""
_WRAPPERS = frozenset(
    {
        "items",
        "data",
        "results",
        "records",
        "values",
        "value",
        "result",
        "content",
        "entries",
        "payload",
        "resources",
    }
)
_ROW_LIKE = frozenset({"status", "success", "object", "url", "uri", "href", "start", "end"})
"""Envelope fields a row may hold too: beside a payload not named as one they do not make an envelope."""
_PAGING = PAGE_FIELDS | {"limit", "offset", "next", "previous", "prev", "total_count", "totalcount", "page"}
"""Fields only a page of rows has (a row may have a `total` or a `count`, never an `offset`)."""


def _all_of(schema: dict, depth: int = 0) -> dict:
    """The properties an `allOf` composes, its parts' own `allOf` too: Microsoft Graph's schedule is
    `allOf: [{allOf: [entity, request schedule]}, {properties: ...}]`, three levels of one row."""
    props: dict = {}
    for part in schema.get("allOf") or []:
        if not isinstance(part, dict):
            continue
        if depth < 4 and part.get("allOf"):
            props.update(_all_of(part, depth + 1))
        if isinstance(part.get("properties"), dict):
            props.update(part["properties"])
    return props


def output_fields(schema: Any, entity: str | None = None) -> dict:
    """The fields of the entity a tool returns (unwrapping arrays and `{items: [...]}` pages). With the
    `entity` the tool acts on, a payload named after it is the row even beside other payloads (YNAB's
    `{data: {budgets: [...], default_budget: {...}}}`: a budget's fields, never `budgets` and `default_budget`)."""
    if not isinstance(schema, dict):
        return {}
    if typed(schema, "array") and isinstance(schema.get("items"), dict):  # `type: [array, "null"]` too
        return output_fields(schema["items"], entity)
    props = schema.get("properties")
    if not isinstance(props, dict):
        props = _all_of(schema)
        if not props:
            return {}
    resource = _json_api_row(props)
    if resource is not None:
        return resource
    payloads = [
        f
        for f, inner in props.items()
        if isinstance(inner, dict)
        and (typed(inner, "array") or typed(inner, "object") or "properties" in inner or "items" in inner)
        and f.lower() not in ENVELOPE_FIELDS
    ]
    others = {f.lower() for f in props if f not in payloads}
    if others & _PAGING:
        # Docker Hub's tokens page `{count, next, previous, active_count, results: [...]}`: a page's tallies are the
        # page's, never a row's (its tokens had `active_count`, `next` and `previous` columns, seed 94's readers)
        others -= {f for f in others if f.endswith("count") or f.startswith("total")}
    named = [f for f in payloads if entity and singular(ident(f)) == entity]
    if named and len(payloads) > 1:
        nested = output_fields(props[named[0]], entity)
        if nested:
            return nested
    wrapped = payloads and (
        payloads[0].lower() in _WRAPPERS
        or others & (ENVELOPE_FIELDS - _ROW_LIKE)  # `{services: [...], meta}`
    )
    if len(payloads) == 1 and others <= ENVELOPE_FIELDS and wrapped:
        # `{data: {...}, status_code, meta}`: the row, not the envelope; a page whose rows the schema does not
        # describe (`{href, items: [{$ref}], limit, next, total}`) has no field of a row either
        return output_fields(props[payloads[0]], entity)
    if not payloads and others <= ENVELOPE_FIELDS and others & _PAGING:
        return {}  # a page whose `items` the schema lost (Spotify's `PagingObject`): no field of a row
    if len(props) == 1:
        (inner,) = props.values()
        if isinstance(inner, dict) and (typed(inner, "array") or typed(inner, "object")):
            nested = output_fields(inner, entity)
            inner_fields = {f.lower() for f in (inner.get("properties") or {})}
            if nested or (inner_fields and inner_fields <= ENVELOPE_FIELDS and inner_fields & _PAGING):
                return nested
    if {f.lower().strip("_") for f in props} <= OUTCOME_FIELDS:
        return {}  # TVmaze's `{code, errors, message, result}`: how the call went, no field of a row (seed 91's readers)
    return {f: v for f, v in props.items() if f.lower().strip("_") not in PAGE_FIELDS}


OUTCOME_FIELDS = frozenset(
    "code status status_code statuscode message messages msg error errors error_code error_message detail details "
    "result success ok warnings warning".split()
)
"""Fields of a response that says only how a call went (`{code, message}`, `{success, errors}`): a row has more."""


def _json_api_row(props: dict) -> dict | None:
    """The fields of a JSON:API resource object (`{id, type, attributes: {...}, relationships: {owner: {data:
    {id}}}}`): its `id`, its attributes and a `<relationship>_id` for each relationship; `None` for another object.
    ExaVault's email lists had the columns `data`, `included` and `relationships` and no name or emails."""
    attributes = props.get("attributes")
    if not (
        isinstance(attributes, dict)
        and isinstance(attributes.get("properties"), dict)
        and attributes["properties"]
        and ("id" in props or "type" in props)
        and set(props) <= {"id", "type", "attributes", "relationships", "links", "meta"}
    ):
        return None
    fields = {"id": props["id"]} if isinstance(props.get("id"), dict) else {}
    fields.update(attributes["properties"])
    relationships = props.get("relationships")
    for name in (relationships.get("properties") or {}) if isinstance(relationships, dict) else ():
        fields.setdefault(f"{name}_id", {"type": "string", "description": f"The id of the related {name}."})
    return fields


def typed(schema: dict, kind: str) -> bool:
    """Whether a JSON Schema's `type` is `kind`, alone or in a list (`["array", "null"]`)."""
    declared = schema.get("type")
    return declared == kind or (isinstance(declared, list) and kind in declared)


SHAPE_FIELDS = 4
"""Fields each response must describe before two responses' shapes say anything about their rows."""


def row_fields(schema: Any, entity: str | None = None) -> frozenset[str]:
    """The fields of the row a response returns (:func:`output_fields`), as identifiers (`orderHint` -> `order_hint`)."""
    return frozenset(ident(f) for f in output_fields(schema, entity))


def shape_overlap(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> float | None:
    """The share of fields two responses share (Jaccard), or `None` when either describes fewer than
    :data:`SHAPE_FIELDS` (a delete returns nothing; an `{id}` alone tells no row from another)."""
    if len(a) < SHAPE_FIELDS or len(b) < SHAPE_FIELDS:
        return None
    return len(a & b) / len(a | b)
