"""Effects that hold a world together: the further writes an API states or clearly implies, added to an inferred spec.

`infer_spec` gives each tool one write on its own table. A real API's writes reach further, and an
environment whose writes do not is a set of fragments. `add_effects` is a post-pass over an
inferred spec (run by `materialize` before verification) that adds, as data (spec 1.1 `effects`,
`guards` and `set`), only what the spec's own tables and the tool's description show:

- **stock**: an insert into an order-like table (`orders`, `order_items`, `purchases`, `bookings`,
  `rentals` ...) whose row names a product-like row by a required reference and holds a required
  quantity reduces that row's stock-like column (`stock`, `on_hand`, `quantity_available` ...) by
  the quantity, with a guard against going below zero ("refused: not enough stock ...");
- **children of a deleted parent** (only when the tool's name says it deletes that row,
  `deletes_its_row`): a delete whose description refuses it while children exist ("cannot be
  deleted while it has open tickets", "fails if the folder is not empty") gets a count guard with
  the description's own sentence; otherwise the children go with their parent: children whose
  reference is required (a required argument of their create tool, or an id in their route) are
  removed (or retired, when the parent is retired by a status rather than removed), and children
  whose reference is optional are detached (the reference set to null). Effects on every matching
  row are spec 1.1 `where` effects; a child that has children of its own is left alone (the delete
  then stays refused by the reference, as before);
- **a status change sets its timestamp**: a write that sets a status `v` sets the table's `v_at`
  (`cancelled_at`, `closed_at`, `shipped_at`, `resolved_at` ...) to the clock;
- **a child moves its parent**: the creation of a child adds one to its parent's count of such
  children (`users.tweet_count`, `tickets.num_comments`); a child created under its parent's
  route (`POST /tickets/{id}/comments`) stamps the parent's last change (`updated_at`, `last_modified_on`,
  `last_updated`, `UPDATED`); a child that completes a
  step of its parent (`CHILD_STATUS`: a shipment, a payment, a refund) moves the parent's status
  (`create_shipment(order_id)` ships the order), only from the statuses before that one and never
  from a retired one; a child whose description says what its parent's status becomes ("With this call
  you can set a reservation to the status inhouse", `check_in(reservation_number)`) sets that value of the
  parent's status enum, under the same guard;
- **a thing its parent has one of is replaced**: setting a group's icon, a profile's photo or a company's logo
  (`SetGroupIcon(group_id, file)`) removes the parent's earlier one;
- **a deleted child leaves its parent's count** (`unfollow_user`: `following_count - 1`, never below 0);
- **the caller's own creation**: a create whose description says it acts "for the authenticated user"
  names the session's user in its one unbound reference to users (`post_tweet`: the tweet's author), so
  it counts in that user's row (`users.tweet_count`) like any child;
- **a payment draws on its source**: an insert that buys, books or pays (its tool's name or its table says
  so) naming by a required argument a card, account or wallet with a balance, and holding a required cost
  or amount, takes the amount off that balance, never below zero (`purchase_insurance(card_id,
  insurance_cost)`: "refused: not enough balance on this card ...").

Every effect is checked against the spec's schema here (a column that takes no null is made to
always hold a number, with a default of 0 where a create tool leaves it out), so the verifier
exercises it like any other write; an effect that cannot be expressed is not added.

Example:

```python
>>> from envscale.materialize.effects import add_effects, multi_table_effects
>>> spec = add_effects(inferred_spec)          # doctest: +SKIP
>>> multi_table_effects(spec)                  # doctest: +SKIP
[('create_order', 'products'), ('delete_list', 'tasks')]
```
"""

from __future__ import annotations

import copy
import re
from typing import Any

from ..words.inflect import singular
from ..words.names import tokens
from ..words.verbs import RETIRED_STATUSES

ORDER_WORDS = frozenset(
    {"order", "purchase", "sale", "booking", "reservation", "rental", "checkout", "cart", "basket", "line"}
)
"""Words of a table that takes goods out of stock when a row is inserted (an order, its lines, a booking)."""
STOCK_COLUMNS = (
    "stock",
    "stock_quantity",
    "quantity_in_stock",
    "in_stock_quantity",
    "stock_level",
    "stock_count",
    "on_hand",
    "quantity_on_hand",
    "inventory",
    "inventory_count",
    "inventory_quantity",
    "available_quantity",
    "quantity_available",
    "available_stock",
    "units_in_stock",
    "available_seats",
    "seats_available",
)
"""Columns holding how many of a thing are left to take, in the order they are preferred."""
QUANTITY_COLUMNS = ("quantity", "qty", "units", "number_of_units", "num_units", "count", "seats", "tickets")
"""Columns of an order-like row holding how many it takes."""
TIMESTAMP_SUFFIXES = (("_at", "datetime"), ("_on", "date"), ("_date", "date"), ("_time", "datetime"))
"""How a status's timestamp column is named (`cancelled_at`) and what the clock gives it."""
_REFUSAL = re.compile(
    r"\b(?:refus\w*|cannot|can\s?not|can't|not\s+(?:be\s+)?(?:allowed|possible|permitted)|fails?|error|"
    r"only\s+(?:if|when|after|once))\b",
    re.I,
)
_CONDITION = re.compile(
    r"\b(?:while|if|when|unless|until|as\s+long\s+as|with|that\s+(?:has|have|still))\b", re.I
)
_NOT_EMPTY = re.compile(r"\bnot\s+empty\b|\bnon-?empty\b|\bstill\s+(?:has|have|contains?)\b", re.I)


def add_effects(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec with the effects, guards and timestamps its API states or implies (see the module docstring).

    Args:
        spec (`dict`): An inferred environment spec (`infer_spec(...).spec`); it is not changed.

    Returns:
        `dict`: A new spec; the same content when no rule applies.
    """
    spec = copy.deepcopy(spec)
    tables = spec.get("tables") or {}
    writes = [
        t
        for t in spec.get("tools") or []
        if t.get("kind") == "write" and (t.get("operation") or {}).get("table") in tables
    ]
    for tool in writes:  # first: every other rule sees whose row a create is
        if tool["operation"]["type"] == "insert":
            _own_author(spec, tool)
    for tool in writes:
        op = tool["operation"]
        if op["type"] == "insert":
            _stock(spec, tool)
            _counts(spec, tool)
            _touch_parent(spec, tool)
            _parent_status(spec, tool)
            _stated_status(spec, tool)
            _charge(spec, tool)
            _replaces_its_own(spec, tool)
        elif op["type"] == "delete":
            _children_of_delete(spec, tool)
            _uncount(spec, tool)
        elif op["type"] == "update":
            _timestamp(tables, op)
            if (tool.get("metadata") or {}).get("effect") == "delete":
                _retire_children(spec, tool)
        if op.get("effects") == []:
            op.pop("effects")
    return spec


def multi_table_effects(spec: dict[str, Any]) -> list[tuple[str, str]]:
    """(tool, table) for every effect of a tool on a table other than the tool's own.

    Example:

    ```python
    >>> multi_table_effects({"tools": [{"name": "buy", "operation": {"table": "orders", "effects": [
    ...     {"type": "update", "table": "products"}]}}]})
    [('buy', 'products')]
    ```
    """
    found = []
    for tool in spec.get("tools") or []:
        op = tool.get("operation") or {}
        for effect in op.get("effects") or []:
            if isinstance(effect, dict) and effect.get("table") != op.get("table"):
                found.append((tool["name"], effect.get("table")))
    return found


# ----------------------------------------------------------------------------------------------
# Helpers


def _words(name: str) -> set[str]:
    return {singular(w) for w in tokens(name)}


def _required_arg(tool: dict[str, Any], binding: Any) -> str | None:
    """The required argument a binding reads (a name or `{arg: NAME}`), else None."""
    arg = binding if isinstance(binding, str) else binding.get("arg") if isinstance(binding, dict) else None
    required = set((tool.get("parameters") or {}).get("required") or [])
    return arg if arg in required else None


def _numeric(cspec: dict[str, Any] | None) -> bool:
    return bool(cspec) and cspec.get("type") in ("integer", "number") and "enum" not in cspec


def _never_null(spec: dict[str, Any], table: str, column: str) -> None:
    """Make `table.column` always hold a number: not nullable, 0 where a create tool leaves it out."""
    cspec = spec["tables"][table]["columns"][column]
    if cspec.get("nullable", True) is False:
        return
    cspec["nullable"] = False
    for tool in spec["tools"]:
        op = tool["operation"]
        if op["type"] == "insert" and op["table"] == table:
            binding = (op.get("values") or {}).get(column)
            computed = isinstance(binding, dict) and "arg" not in binding  # `{now: ...}`, arithmetic
            if _required_arg(tool, binding) is None and not computed:  # unbound, or an optional argument
                op.setdefault("defaults", {}).setdefault(column, 0)
                if isinstance(
                    binding, dict
                ):  # `{arg: x}` would write null when x is not given; `x` leaves it
                    op["values"][column] = binding["arg"]
        for effect in op.get("effects") or []:
            if effect.get("type") == "insert" and effect.get("table") == table:
                effect.setdefault("values", {}).setdefault(column, {"value": 0})


def _has_children(tables: dict[str, Any], table: str) -> bool:
    return any(c.get("references") == table for t in tables.values() for c in t["columns"].values())


def _route_args(tool: dict[str, Any]) -> set[str]:
    path = ((tool.get("metadata") or {}).get("annotations") or {}).get("path") or ""
    return set(re.findall(r"\{([^}]+)\}", str(path)))


def _required_reference(spec: dict[str, Any], child: str, column: str) -> bool:
    """Whether a child's reference is required: the column takes no null, a create tool of the child
    requires it, or a tool of the child names it in its route (`/lists/{list_id}/tasks`)."""
    cspec = spec["tables"][child]["columns"][column]
    if cspec.get("nullable", True) is False:
        return True
    for tool in spec["tools"]:
        op = tool["operation"]
        if op["table"] != child:
            continue
        bindings = {**(op.get("values") or {}), **(op.get("key") or {})}
        bindings.update({f["column"]: f.get("arg") for f in op.get("filters") or [] if "arg" in f})
        binding = bindings.get(column)
        arg = binding if isinstance(binding, str) else None
        if arg and arg in _route_args(tool):
            return True
        if op["type"] == "insert" and _required_arg(tool, binding):
            return True
    return False


# ----------------------------------------------------------------------------------------------
# Rules


def _stock(spec: dict[str, Any], tool: dict[str, Any]) -> None:
    """An order-like insert takes its quantity out of the referenced row's stock, never below zero."""
    op, tables = tool["operation"], spec["tables"]
    table = op["table"]
    if not _words(table) & ORDER_WORDS or {"restock", "return", "refund", "receipt"} & _words(table):
        return
    columns = tables[table]["columns"]
    values = op.get("values") or {}
    quantity = next(
        (c for c in QUANTITY_COLUMNS if _numeric(columns.get(c)) and _required_arg(tool, values.get(c))), None
    )
    if quantity is None:
        return
    for column, cspec in columns.items():
        parent = cspec.get("references")
        if (
            not parent
            or parent == table
            or parent not in tables
            or not _required_arg(tool, values.get(column))
        ):
            continue
        pcols = tables[parent]["columns"]
        stock = next((c for c in STOCK_COLUMNS if _numeric(pcols.get(c))), None)
        if stock is None or (pcols[stock]["type"] == "integer" and columns[quantity]["type"] == "number"):
            continue
        _never_null(spec, parent, stock)
        what = stock.replace("_", " ")
        thing = singular(parent).replace("_", " ")
        op.setdefault("effects", []).append(
            {
                "type": "update",
                "table": parent,
                "key": {tables[parent]["primary_key"]: {"result": column}},
                "set": {stock: {"sub": [{"target": stock}, {"result": quantity}]}},
                "guards": [
                    {
                        "check": {"ge": [{"target": stock}, {"result": quantity}]},
                        "error": f"refused: not enough {what} of this {thing} for the {quantity} asked",
                    }
                ],
            }
        )
        return


def _count_column(pcols: dict[str, Any], child: str) -> str | None:
    """The parent's integer column counting `child` rows: `tweet_count`, `num_comments`, `total_tickets`."""
    word = singular(tokens(child)[-1]) if tokens(child) else child
    for column, cspec in sorted(pcols.items()):
        words = [singular(w) for w in tokens(column)]
        if cspec.get("type") != "integer" or "enum" in cspec or word not in words:
            continue
        rest = [w for w in words if w != word]
        if rest in (["count"], ["num"], ["number", "of"], ["n"], ["total"]):
            return column
    return None


def _parents(
    tool: dict[str, Any], tables: dict[str, Any], session: bool = False
) -> list[tuple[str, str, str]]:
    """(column, parent table, argument) of each reference an insert fills from a required argument; with
    `session`, also those it fills from the session (`{session: user_id}`, argument `""`): the caller's own row."""
    op = tool["operation"]
    table, values = op["table"], op.get("values") or {}
    found = []
    for column, cspec in tables[table]["columns"].items():
        parent = cspec.get("references")
        binding = values.get(column)
        arg = _required_arg(tool, binding)
        if arg is None and session and isinstance(binding, dict) and "session" in binding:
            arg = ""
        if parent and parent != table and parent in tables and arg is not None:
            found.append((column, parent, arg))
    return found


_OWN = re.compile(
    r"\b(?:for|as|by)\s+the\s+(?:authenticated|current|logged[- ]in|signed[- ]in)\s+user\b", re.I
)


def _own_author(spec: dict[str, Any], tool: dict[str, Any]) -> None:
    """A create the description makes "for the authenticated user" names the caller in its one unbound
    reference to the session's user (`post_tweet`: the tweet's `username` is the session's)."""
    op, tables = tool["operation"], spec["tables"]
    stable = (spec.get("session") or {}).get("table")
    if stable not in tables or not _OWN.search(tool.get("description") or ""):
        return
    values = op.setdefault("values", {})
    for column, cspec in tables[op["table"]]["columns"].items():
        parent = cspec.get("references")
        if not parent or parent == op["table"] or column in values or column in (op.get("defaults") or {}):
            continue
        if parent == stable:
            source = [tables[stable]["primary_key"]]
        else:
            source = [c for c, cs in tables[stable]["columns"].items() if cs.get("references") == parent]
        others = [c for c, cs in tables[op["table"]]["columns"].items() if cs.get("references") == parent]
        if len(source) == 1 and others == [column]:
            values[column] = {"session": source[0]}


def _update_effect(op: dict[str, Any], tables: dict[str, Any], parent: str, column: str) -> dict[str, Any]:
    """The insert's update effect on the parent its `column` names (one per parent), made on first use."""
    for effect in op.get("effects") or []:
        if effect.get("type") == "update" and effect.get("table") == parent and "key" in effect:
            return effect
    effect = {"type": "update", "table": parent, "key": {tables[parent]["primary_key"]: {"result": column}}}
    op.setdefault("effects", []).append(effect)
    return effect


def _counts(spec: dict[str, Any], tool: dict[str, Any]) -> None:
    """A child's creation adds one to its parent's count of such children (`users.tweet_count`)."""
    op, tables = tool["operation"], spec["tables"]
    for column, parent, _arg in _parents(tool, tables, session=True):
        count = _count_column(tables[parent]["columns"], op["table"])
        if count is None:
            continue
        _never_null(spec, parent, count)
        effect = _update_effect(op, tables, parent, column)
        effect.setdefault("set", {})[count] = {"add": [{"target": count}, {"value": 1}]}


def _uncount(spec: dict[str, Any], tool: dict[str, Any]) -> None:
    """A deleted child leaves the count its creation added to (`unfollow_user`: `following_count - 1`),
    never below zero; only by the one reference its creates count by."""
    op, tables = tool["operation"], spec["tables"]
    table = op["table"]
    counted = {  # the references a create of this table counts by (one per parent, as `_counts` adds)
        (column, parent)
        for other in spec["tools"]
        if other["operation"]["type"] == "insert" and other["operation"]["table"] == table
        for column, parent, _arg in _parents(other, tables, session=True)
    }
    for column, parent in sorted(counted):
        count = _count_column(tables[parent]["columns"], table)
        if count is None or sum(p == parent for _c, p in counted) > 1:
            continue
        _never_null(spec, parent, count)
        op.setdefault("effects", []).append(
            {
                "type": "update",
                "table": parent,
                "where": [
                    {"column": tables[parent]["primary_key"], "value": {"column": column}},
                    {"column": count, "op": "gt", "value": {"value": 0}},
                ],
                "set": {count: {"sub": [{"target": count}, {"value": 1}]}},
            }
        )


_ONE_EACH = frozenset(
    "icon photo avatar picture logo image banner cover signature wallpaper background".split()
)
_SETS = frozenset("set replace update change upload put".split())


def _replaces_its_own(spec: dict[str, Any], tool: dict[str, Any]) -> None:
    """A thing its parent has one of, set again, replaces the one before (WhatsApp's `SetGroupIcon`: seed 91's
    readers found a group's icons piling up): an insert named for setting it (`set`, `replace`, `update`,
    `upload`) into a table of icons, photos or logos keyed by its parent's required reference removes the parent's
    earlier ones."""
    op, tables = tool["operation"], spec["tables"]
    table = op["table"]
    name = (tool.get("metadata") or {}).get("original_name") or tool["name"]
    words = tokens(name)
    # Pendo's `POST /features/{id}/tags`, "Overwrite current custom Feature tags with the given tags": any table
    overwrites = bool(re.match(r"\s*(?:overwrites?|replaces?)\b", str(tool.get("description") or ""), re.I))
    if not overwrites and (not words or words[0] not in _SETS or not _words(table) & _ONE_EACH):
        return
    parents = [column for column, _parent, _arg in _parents(tool, tables)]
    if overwrites and not parents:
        # Pendo's feature id, a number in the route and a string in the row: no reference ties them
        routed = _route_args(tool)
        parents = [c for c, b in (op.get("values") or {}).items() if isinstance(b, str) and b in routed]
    if len(parents) != 1:
        return
    column = parents[0]
    pk = tables[table]["primary_key"]
    op.setdefault("effects", []).append(
        {
            "type": "delete",
            "table": table,
            "where": [
                {"column": column, "value": {"result": column}},
                {"column": pk, "op": "ne", "value": {"result": pk}},
            ],
        }
    )


def _touch_parent(spec: dict[str, Any], tool: dict[str, Any]) -> None:
    """A child created under its parent's route (`POST /tickets/{ticket_id}/comments`) is part of the
    parent resource: the parent's `updated_at` moves to the clock."""
    op, tables = tool["operation"], spec["tables"]
    route = _route_args(tool)
    for column, parent, arg in _parents(tool, tables):
        if arg not in route:
            continue
        pcols = tables[parent]["columns"]
        updated = next(
            (
                c
                for c, cs in pcols.items()
                if UPDATED.match("_".join(tokens(c)).lower())
                and cs.get("type") == "string"
                and "enum" not in cs
            ),
            None,
        )
        if updated is None:
            continue
        effect = _update_effect(op, tables, parent, column)
        clock = "date" if pcols[updated].get("format") == "date" else "datetime"
        effect.setdefault("set", {})[updated] = {"now": clock}


UPDATED = re.compile(
    r"^(?:(?:last_)?(?:updated|modified|edited)(?:_(?:at|on|time|date))?|date_(?:updated|modified)|"
    r"last_(?:update|modification|change)(?:_(?:at|on|time|date))?|(?:update|modify|modification)_(?:time|date))$"
)
"""The column a resource's last change is stamped in: `updated_at`, `last_modified_on` (YNAB's budgets),
`last_updated` (fire.com's batches), `last_change` (VTEX's orders), `DateUpdated`, `last_edited_time`."""


CHILD_STATUS = {
    "shipment": "shipped",
    "fulfillment": "fulfilled",
    "delivery": "delivered",
    "payment": "paid",
    "refund": "refunded",
    "return": "returned",
    "cancellation": "cancelled",
    "approval": "approved",
    "rejection": "rejected",
    "resolution": "resolved",
    "rental": "rented",
    "booking": "booked",
    "reservation": "reserved",
    "assignment": "assigned",
    "publication": "published",
}
"""What the creation of a child record makes of its parent: a shipment of an order ships it, a payment pays it."""


def _parent_status(spec: dict[str, Any], tool: dict[str, Any]) -> None:
    """A child record that completes a step of its parent moves the parent's status (`create_shipment(order_id)`
    sets the order `shipped`), allowed only from the statuses before that one in the parent's enum and never
    from a retired one (a cancelled order is not shipped)."""
    op, tables = tool["operation"], spec["tables"]
    words = tokens(op["table"])
    value = CHILD_STATUS.get(singular(words[-1])) if words else None
    if value is None:
        return
    for column, parent, _arg in _parents(tool, tables):
        pcols = tables[parent]["columns"]
        status = next(
            (
                c
                for c, cs in pcols.items()
                if (c in ("status", "state") or c.endswith("_status"))
                and value in [str(v).lower() for v in cs.get("enum") or []]
            ),
            None,
        )
        if status is None:
            continue
        enum = pcols[status]["enum"]
        # the enum's own spelling: a credit API's invoices are `Paid`, `Cancelled`, `Open` (seed 84: a payment
        # recorded by "Mark an invoice as Paid" left the invoice Open)
        spelled = next(v for v in enum if str(v).lower() == value)
        # the enum's order says what comes before; an enum that starts with it is in no order (Paid, Cancelled,
        # Open): every other status that is not retired
        before = enum[: enum.index(spelled)] or [v for v in enum if v != spelled]
        allowed = [v for v in before if str(v).lower() not in RETIRED_STATUSES]
        if not allowed:
            continue
        thing = singular(parent).replace("_", " ")
        effect = _update_effect(op, tables, parent, column)
        effect.setdefault("set", {})[status] = {"value": spelled}
        effect.setdefault("guards", []).append(
            {
                "check": {"in": [{"target": status}, {"value": allowed}]},
                "error": f"refused: the {thing} is not {' or '.join(allowed)}, so it cannot be {spelled}",
            }
        )
        for stem, form in (("at", "datetime"), ("on", "date"), ("date", "date")):
            cspec = pcols.get(f"{value}_{stem}")
            if cspec and cspec.get("type") == "string" and "enum" not in cspec:
                effect["set"][f"{value}_{stem}"] = {"now": form}
                break


_SET_VERB = re.compile(r"\b(?:set|sets|change|changes|move|moves|mark|marks|put|puts|turn|turns)\b", re.I)


def _stem(text: str) -> str:
    """A status or phrase without case, separators or past-tense endings (`CheckedOut` and `checkout`)."""
    words = [w[:-2] if w.endswith("ed") and len(w) > 4 else w for w in tokens(text)]
    return "".join(words)


def _stated_value(description: str, parent: str, enum: list[str]) -> str | None:
    """The value of the parent's status enum a sentence of the description says the call sets it to
    ("set a reservation to the checkout status" -> `CheckedOut`), else None."""
    entity = singular(tokens(parent)[-1]) if tokens(parent) else parent
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", description or ""):
        words = [singular(w) for w in tokens(sentence)]
        if entity not in words or not {"status", "state"} & set(words) or not _SET_VERB.search(sentence):
            continue
        phrases = {_stem(w) for w in tokens(sentence)}
        raw = tokens(sentence)
        phrases |= {_stem(a + "_" + b) for a, b in zip(raw, raw[1:], strict=False)}
        found = [v for v in enum if isinstance(v, str) and _stem(v) in phrases and v not in RETIRED_STATUSES]
        if len(found) == 1:
            return found[0]
    return None


def _steps(spec: dict[str, Any], parent: str, status: str) -> set[str]:
    """The values of `parent.status` that some tool of the spec sets: an update's fixed value, or a child
    whose description says so."""
    found = set()
    enum = spec["tables"][parent]["columns"][status].get("enum") or []
    for tool in spec.get("tools") or []:
        op = tool.get("operation") or {}
        if op.get("table") == parent and op.get("type") == "update":
            found.add((op.get("fixed") or {}).get(status))
        elif (
            op.get("type") == "insert"
            and op.get("table") in spec["tables"]
            and any(p == parent for _c, p, _a in _parents(tool, spec["tables"]))
        ):
            found.add(_stated_value(tool.get("description") or "", parent, enum))
    return {v for v in found if v is not None}


def _stated_status(spec: dict[str, Any], tool: dict[str, Any]) -> None:
    """A child whose description says what its parent's status becomes sets it, from the statuses before
    that one in the parent's enum and never from a retired one (see `_parent_status`)."""
    op, tables = tool["operation"], spec["tables"]
    for column, parent, _arg in _parents(tool, tables):
        pcols = tables[parent]["columns"]
        for status, cspec in pcols.items():
            enum = cspec.get("enum") or []
            if not (status in ("status", "state") or status.endswith("_status")) or not enum:
                continue
            value = _stated_value(tool.get("description") or "", parent, enum)
            if value is None:
                continue
            effect = _update_effect(op, tables, parent, column)
            if status in (effect.get("set") or {}):
                continue
            before = enum[: enum.index(value)]
            steps = [v for v in before if v in _steps(spec, parent, status)]
            # a later step follows the API's step before it (check out only what was checked in)
            allowed = [
                v for v in before[before.index(steps[-1]) if steps else 0 :] if v not in RETIRED_STATUSES
            ]
            if not allowed:
                continue
            thing = singular(parent).replace("_", " ")
            effect.setdefault("set", {})[status] = {"value": value}
            effect.setdefault("guards", []).append(
                {
                    "check": {"in": [{"target": status}, {"value": allowed}]},
                    "error": f"refused: the {thing} is not {' or '.join(allowed)}, so it cannot be {value}",
                }
            )


PAYMENT_SOURCES = frozenset({"card", "account", "wallet", "creditcard", "giftcard", "purse", "fund"})
"""Words of a table whose rows pay for things (a card, an account, a wallet)."""
BALANCE_COLUMNS = (
    "balance",
    "available_balance",
    "current_balance",
    "card_balance",
    "account_balance",
    "funds",
)
"""Columns holding how much a payment source has left, in the order they are preferred."""
SPEND_WORDS = frozenset(
    {"buy", "purchase", "pay", "payment", "charge", "book", "booking", "order", "rent", "rental", "checkout"}
)
"""Words of a tool's name or table that say the insert spends money."""
_AMOUNT = re.compile(r"(?:^|_)(?:cost|amount|price|total|fee|charge)$")


def _charge(spec: dict[str, Any], tool: dict[str, Any]) -> None:
    """An insert that pays with a card, account or wallet takes its amount off that source's balance."""
    op, tables = tool["operation"], spec["tables"]
    table = op["table"]
    name = (tool.get("metadata") or {}).get("original_name") or tool["name"]
    if not (_words(name) | _words(table)) & SPEND_WORDS or {"refund", "return", "deposit"} & _words(name):
        return
    columns, values = tables[table]["columns"], op.get("values") or {}
    amount = next(
        (
            c
            for c, cs in columns.items()
            if _AMOUNT.search(c) and _numeric(cs) and _required_arg(tool, values.get(c))
        ),
        None,
    )
    if amount is None:
        return
    for column, parent, _arg in _parents(tool, tables, session=True):
        if not _words(parent) & PAYMENT_SOURCES:
            continue
        pcols = tables[parent]["columns"]
        balance = next((c for c in BALANCE_COLUMNS if _numeric(pcols.get(c))), None)
        if balance is None or (pcols[balance]["type"] == "integer" and columns[amount]["type"] == "number"):
            continue
        _never_null(spec, parent, balance)
        thing = singular(parent).replace("_", " ")
        effect = _update_effect(op, tables, parent, column)
        effect.setdefault("set", {})[balance] = {"sub": [{"target": balance}, {"result": amount}]}
        effect.setdefault("guards", []).append(
            {
                "check": {"ge": [{"target": balance}, {"result": amount}]},
                "error": f"refused: not enough {balance.replace('_', ' ')} on this {thing} for the "
                f"{amount.replace('_', ' ')}",
            }
        )
        return


def _refusal_sentence(description: str, words: set[str], only_child: bool) -> str | None:
    """The description's sentence refusing the delete while children exist, if it has one."""
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", description or ""):
        if not _REFUSAL.search(sentence) or not _CONDITION.search(sentence):
            continue
        if _words(sentence) & words or (only_child and _NOT_EMPTY.search(sentence)):
            return " ".join(sentence.split()).rstrip(".")
    return None


DELETE_VERBS = frozenset(
    {"delete", "remove", "destroy", "drop", "erase", "purge", "del", "archive", "retire"}
)
"""Verbs by which a tool's name says it removes (or retires) the row it addresses."""


_OBJECT_ENDS = frozenset({"from", "by", "for", "of", "in", "on", "with", "at"})
"""Words that end a verb's object in a tool name (`remove_team_from_user`, `delete_customers_by_id`)."""


def deletes_its_row(tool: dict[str, Any], table: str) -> bool:
    """Whether a tool's name says it deletes a row of `table`: a delete verb and the table's entity, before any
    `from`/`by` (`delete_managed_user`, `filesDelete`; never `remove_team_from_user` on users,
    `delete_user_tags_by_tag_id_shows_by_show_id` on shows, `tasks_clear` on lists, `cancelBooking`), so that
    children go only with a parent the tool means to delete.

    Example:

    ```python
    >>> deletes_its_row({"name": "remove_team_from_user"}, "users")
    False
    >>> deletes_its_row({"name": "user_api_delete_managed_user"}, "users")
    True
    ```
    """
    name = (tool.get("metadata") or {}).get("original_name") or tool["name"]
    words = [singular(w) for w in tokens(name)]
    verbs = [i for i, w in enumerate(words) if w in DELETE_VERBS]
    if not verbs:
        return False
    after = words[verbs[-1] + 1 :]
    cut = next((i for i, w in enumerate(after) if w in _OBJECT_ENDS), len(after))
    # the verb's object follows it (`remove_team_from_user`: a team), or leads a name that ends with it (`filesDelete`)
    obj = after[:cut] if after else words[: verbs[-1]]
    entity = singular(tokens(table)[-1]) if tokens(table) else table
    return any(w == entity or (len(entity) >= 3 and w.endswith(entity)) for w in obj)  # `tasklists` on lists


def _children_of_delete(spec: dict[str, Any], tool: dict[str, Any]) -> None:
    """Refuse while children exist when the description says so; else remove or detach the children."""
    op, tables = tool["operation"], spec["tables"]
    table = op["table"]
    pk = tables[table]["primary_key"]
    if op.get("guards") or not deletes_its_row(tool, table):
        return  # already guarded (a rule infer read from the description), or not a delete of this row
    children = [
        (child, column)
        for child, tspec in sorted(tables.items())
        for column, cspec in tspec["columns"].items()
        if child != table and cspec.get("references") == table
    ]
    if not children:
        return
    words = {w for child, _ in children for w in _words(child)}
    sentence = _refusal_sentence(tool.get("description") or "", words, len(children) == 1)
    if sentence:
        named = [(c, col) for c, col in children if _words(c) & _words(sentence)] or children
        op["guards"] = [
            {
                "check": {
                    "eq": [
                        {"count": {"table": c, "where": [{"column": col, "value": {"column": pk}}]}},
                        {"value": 0},
                    ]
                },
                "error": f"refused: {sentence}",
            }
            for c, col in named
        ]
        return
    effects = []
    for child, column in children:
        if _required_reference(spec, child, column):
            if _has_children(tables, child):
                return  # its own children would dangle: the delete stays refused by the reference
            effects.append(
                {"type": "delete", "table": child, "where": [{"column": column, "value": {"column": pk}}]}
            )
        elif tables[child]["columns"][column].get("nullable", True) is not False:
            effects.append(
                {
                    "type": "update",
                    "table": child,
                    "where": [{"column": column, "value": {"column": pk}}],
                    "set": {column: {"value": None}},
                }
            )
    op["effects"] = effects + list(op.get("effects") or [])


def _retire_children(spec: dict[str, Any], tool: dict[str, Any]) -> None:
    """A parent retired by a status (`archived`) retires its children that cannot live without it."""
    op, tables = tool["operation"], spec["tables"]
    table = op["table"]
    pk = tables[table]["primary_key"]
    if not any(v in RETIRED_STATUSES for v in (op.get("fixed") or {}).values()) or not deletes_its_row(
        tool, table
    ):
        return
    for child, tspec in sorted(tables.items()):
        if child == table:
            continue
        status = next(
            (c for c in tspec["columns"] if c in ("status", "state") or c.endswith("_status")), None
        )
        enum = tspec["columns"][status].get("enum") or [] if status else []
        retired = next((v for v in enum if v in RETIRED_STATUSES), None)
        if retired is None:
            continue
        for column, cspec in tspec["columns"].items():
            if cspec.get("references") == table and _required_reference(spec, child, column):
                op.setdefault("effects", []).append(
                    {
                        "type": "update",
                        "table": child,
                        "where": [
                            {"column": column, "value": {"column": pk}},
                            {"column": status, "op": "ne", "value": {"value": retired}},
                        ],
                        "set": {status: {"value": retired}},
                    }
                )


def _timestamp(tables: dict[str, Any], op: dict[str, Any]) -> None:
    """A write setting a status `v` sets the table's `v_at` (`cancelled_at`) to the clock."""
    columns = tables[op["table"]]["columns"]
    for column, value in (op.get("fixed") or {}).items():
        if not (column in ("status", "state") or column.endswith("_status")) or not isinstance(value, str):
            continue
        stems = {
            value.lower(),
            value.lower().replace("canceled", "cancelled"),
            value.lower().replace("cancelled", "canceled"),
        }
        if value.lower() in ("done", "complete"):
            stems.add("completed")
        for stem in sorted(stems):
            for suffix, form in TIMESTAMP_SUFFIXES:
                name = f"{stem}{suffix}"
                cspec = columns.get(name)
                if (
                    cspec
                    and cspec.get("type") == "string"
                    and "enum" not in cspec
                    and name not in (op.get("set") or {})
                ):
                    op.setdefault("set", {})[name] = {"now": form}
