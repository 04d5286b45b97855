"""How a spec's things are named to a person: its entities (`pickuppoints` -> "pickup point"), the keys
that address rows ("order number", "webinar key"), and the facts behind each argument (`fact_name`).

`envscale.tasks.intent` builds the user's request from these names; the chain builders
(`envscale.tasks.chains`) store `TaskDraft.user_facts` under `fact_name`, so both sides agree on them.
Reading a spec is here too: each argument's binding in its tool's operation (`tool_bindings`), the people a
user could be (`person_table`), and the tool's meaning (`declared_meaning`).

Example:

```python
>>> from envscale.env import load_spec
>>> from envscale.tasks.naming import fact_name
>>> spec = load_spec("tests/fixtures/envs/shop.yaml")
>>> fact_name("order_id", next(t for t in spec["tools"] if t["name"] == "cancel_order"), spec)
'order number'
```
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..words.inflect import singular
from ..words.names import glued_words, tokens
from ..words.semantics import key_entity, name_key_entity, tool_meaning
from .wording import (
    GENERIC_COLUMNS,
    GENERIC_DELTA,
    NOTES,
    NUMBERED,
    PEOPLE,
    PREFIXES,
    STATUS_COLUMNS,
    TOKEN_WORDS,
    col_words,
    describe,
    plural_phrase,
    readable_words,
)


def spec_tools(spec: dict) -> dict[str, dict]:
    return {t["name"]: t for t in spec.get("tools") or [] if isinstance(t, dict) and "name" in t}


def spec_tables(spec: dict) -> dict[str, dict]:
    return spec.get("tables") or {}


def table_columns(spec: dict, table: str | None) -> dict[str, dict]:
    return (spec_tables(spec).get(table) or {}).get("columns") or {} if table else {}


def primary_key_of(spec: dict, table: str | None) -> str | None:
    return (spec_tables(spec).get(table) or {}).get("primary_key") if table else None


_ENTITIES: dict[tuple, str] = {}
_SINGULAR_FIXES = {"apis": "API", "skus": "SKU", "ads": "ad"}


_NAMESPACES = frozenset("configuration config admin management pvt private internal".split())
"""Route sections a table's name may start with that say where the API keeps a thing, not what it is."""


def entity_name(table: str, spec: dict | None = None) -> str:
    """How a person names a row of `table`: its singular in words (`order items` -> `order item`), or, when
    the descriptions of the tools on it name the entity better, their words (`pickuppoints` -> `pickup
    point` from "Deletes a given pickup point", `policies` -> `shipping policy` from "Update shipping
    policy"; see `_described_entity`)."""
    words = [TOKEN_WORDS.get(w, w) for t in tokens(singular(table)) for w in glued_words(t)]
    while len(words) > 1 and words[0] in _NAMESPACES:
        words = words[
            1:
        ]  # VTEX's `configuration_docks`: "the dock", never "the configuration dock" (seed 92)
    base = " ".join(words) or table
    pk = str(((spec or {}).get("tables") or {}).get(table, {}).get("primary_key") or "")
    words = readable_words(pk).split(" ") if pk else []
    if len(words) >= 2 and words[-1].lower() in ("id", "uuid", "key"):
        # the key names the entity better than a table name made plural twice or run together:
        # `skuses` keyed by `sku_id` -> `SKU`, `pickuppoints` by `pickup_point_id` -> `pickup point`
        named = " ".join(_SINGULAR_FIXES.get(w.lower(), w) for w in words[:-1])
        squashed = re.sub(r"[^a-z0-9]", "", named.lower())
        if squashed and table.lower().startswith(squashed) and len(table) - len(squashed) <= 3:
            base = named
    if not spec:
        return base
    tools = [
        t
        for t in spec.get("tools") or []
        if isinstance(t, dict) and (t.get("operation") or {}).get("table") == table
    ]
    key = (spec.get("name"), table, tuple(str(t.get("description") or "")[:200] for t in tools))
    named = _ENTITIES.get(key)
    if named is None:  # (read once: the tasks of several environments are made in threads at once)
        if len(_ENTITIES) > 20_000:
            _ENTITIES.clear()
        named = _ENTITIES[key] = _described_entity(base, tools) or base
    return named


def _described_entity(base: str, tools: list[dict]) -> str | None:
    """The entity the tools' descriptions name for a table whose own name reads `base`: the same words
    spaced apart (`pickuppoint` -> `pickup point`), or a more specific name ending in the same word
    (`policy` -> `shipping policy`) that at least half of the described tools agree on."""
    named = [d[1] for t in tools if (d := describe(t.get("description")))]
    squashed = re.sub(r"[^a-z0-9]", "", base.lower())
    for phrase in named:
        if re.sub(r"[^a-z0-9]", "", phrase) == squashed and phrase != base:
            return phrase
    last = base.split(" ")[-1]
    longer = [
        p
        for p in named
        if p.split(" ")[-1] == last
        and len(p.split(" ")) > len(base.split(" "))
        and not set(p.split(" ")[:-1]) & _STATES
        and last not in p.split(" ")[:-1]  # "a Customer Support customer" names the product, not a kind
    ]
    if longer:
        best = max(sorted(set(longer)), key=longer.count)
        if longer.count(best) >= 2 and longer.count(best) * 2 >= len(named) and len(best.split(" ")) <= 3:
            return best
    return None


_STATES = frozenset(
    "pending active inactive open closed draft archived published unpublished paid unpaid cancelled canceled "
    "completed complete failed expired current old recent latest upcoming past multiple several other same "
    "custom default".split()
)
"""Words that describe a row's state, not its kind: "Cancels a pending order" names an order."""


def original_tool_name(tool: dict) -> str:
    meta = tool.get("metadata") if isinstance(tool.get("metadata"), dict) else {}
    original = meta.get("original_name")
    return original if isinstance(original, str) and original else tool["name"]


def declared_meaning(tool: dict):
    meta = tool.get("metadata") if isinstance(tool.get("metadata"), dict) else {}
    annotations = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else None
    return tool_meaning(
        original_tool_name(tool), tool.get("description") or "", tool.get("parameters"), annotations
    )


def person_table(spec: dict) -> str | None:
    """The table of the people a user could be: the session table, else the first people-like table."""
    session = spec.get("session")
    if isinstance(session, dict) and session.get("table") in spec_tables(spec):
        return session["table"]
    best = None
    for table in spec_tables(spec):
        last = singular(table).split("_")[-1]
        if last in PEOPLE and (best is None or PEOPLE.index(last) < PEOPLE.index(best[1])):
            best = (table, last)
    return best[0] if best else None


def owned_tables(spec: dict, person: str | None) -> set[str]:
    """Tables whose rows belong to a person: the person table and those referencing it (two hops)."""
    if not person:
        return set()
    owned = {person}
    for _ in range(2):
        for table in spec_tables(spec):
            if any((c or {}).get("references") in owned for c in table_columns(spec, table).values()):
                owned.add(table)
    return owned


@dataclass
class Binding:
    """Where an argument goes in an operation: `place` is key, set, adjust, value, filter or limit."""

    place: str
    table: str | None
    column: str | None
    op: str = "eq"
    sign: int = 1
    main: bool = True  # False: in one of the operation's effects


_NOT_ARGS = frozenset(("value", "column", "target", "result", "now", "session"))


def args_in(expr: Any, top: bool = True) -> list[str]:
    """The arguments a binding reads: a bare name (only as the whole binding, as in 1.0), `{arg: NAME}`,
    and those inside arithmetic; never the names in `{value}`, `{column}`, `{session}`, ... forms."""
    if isinstance(expr, str):
        return [expr] if top else []
    if isinstance(expr, dict):
        if isinstance(expr.get("arg"), str):
            return [expr["arg"]]
        if _NOT_ARGS & set(expr):
            return []
        return [a for v in expr.values() for a in args_in(v, False)]
    if isinstance(expr, list):
        return [a for v in expr for a in args_in(v, False)]
    return []


def tool_bindings(tool: dict) -> dict[str, Binding]:
    """Each argument's first binding in the tool's operation (the main operation before its effects)."""
    out: dict[str, Binding] = {}
    op = tool.get("operation") if isinstance(tool.get("operation"), dict) else {}

    def bind(arg: str, binding: Binding) -> None:
        out.setdefault(arg, binding)

    def walk(write: dict, main: bool) -> None:
        table = write.get("table")
        for column, expr in (write.get("key") or {}).items():
            for arg in args_in(expr, top=main):
                bind(arg, Binding("key", table, column, main=main))
        for place in ("set", "values"):
            for column, expr in (write.get(place) or {}).items():
                if isinstance(expr, str) or (isinstance(expr, dict) and "arg" in expr):
                    if main or not isinstance(expr, str):
                        bind(args_in(expr)[0], Binding("set" if place == "set" else "value", table, column))
                elif isinstance(expr, dict) and len(expr) == 1 and next(iter(expr)) in ("add", "sub"):
                    form, parts = next(iter(expr.items()))
                    for i, part in enumerate(parts if isinstance(parts, list) else []):
                        for arg in args_in(part, False):
                            sign = -1 if form == "sub" and i > 0 else 1
                            bind(arg, Binding("adjust", table, column, sign=sign))
                else:
                    for arg in args_in(expr, top=main):
                        bind(arg, Binding("value", table, column))
        for flt in write.get("filters") or []:
            if isinstance(flt, dict) and isinstance(flt.get("arg"), str):
                bind(flt["arg"], Binding("filter", table, flt.get("column"), flt.get("op") or "eq"))
        if isinstance(write.get("limit_arg"), str):
            bind(write["limit_arg"], Binding("limit", table, None))

    walk(op, True)
    for effect in op.get("effects") or []:
        if isinstance(effect, dict):
            walk(effect, False)
    return out


def _column_phrase(
    spec: dict, table: str | None, column: str, *, entity_prefix: bool = True, arg: str | None = None
) -> str:
    phrase = col_words(column, arg)
    if entity_prefix and table and column.lower() in GENERIC_COLUMNS:
        entity = entity_name(table, spec)
        if entity.split(" ")[-1] not in phrase:
            phrase = f"{entity} {phrase}"
    return phrase


def implied_table(spec: dict, column: str, own: str | None) -> str | None:
    """The table a key-like column names without a `references` (`warehouse_id`, `organizer_key`,
    `projectid` -> `warehouses`, `organizers`, `projects`), other than its own table; None if none."""
    words = readable_words(column).lower().split(" ")
    if len(words) < 2 or words[-1] not in ("id", "key", "uuid"):
        return None
    entity = "".join(words[:-1])
    for table in spec_tables(spec):
        if table != own and re.sub(r"[^a-z0-9]", "", singular(table).lower()) == entity:
            return table
    return None


def keyed_by_id(pk: str, key: bool = False) -> bool:
    """Whether a primary key is a bare identifier (`order_id`, `orderId`, `projectid`; with `key`, also
    `webinar_key`), so that a person names the row by its entity ("order ord_0007", "webinar 12")."""
    last = readable_words(pk).split(" ")[-1].lower()
    return last in ("id", "uuid", "gid") or (key and last in ("key", "slug", "uid"))


def id_phrase(spec: dict, table: str | None, entity: str | None = None) -> str:
    """How a person names a row's key: `order number`, `customer id`, `SKU`, `coupon code`."""
    entity = entity or (entity_name(table, spec) if table else "record")
    pk = primary_key_of(spec, table)
    if pk and not keyed_by_id(pk):
        phrase = readable_words(pk)
        if phrase.lower() in ("code", "name", "number", "key", "slug", "handle", "title"):
            phrase = f"{entity} {phrase}"
        return phrase
    return f"{entity} {'number' if entity.split(' ')[-1] in NUMBERED else 'id'}"


def _arg_name(arg: str, binding: Binding | None, spec: dict) -> str:
    if binding is None:
        ent = key_entity(arg)
        if ent:
            table = next((t for t in spec_tables(spec) if singular(t) == ent), None)
            return id_phrase(spec, table, readable_words(ent))
        return readable_words(arg)
    table, column = binding.table, binding.column
    if binding.place == "limit":
        return "number of results"
    cols = table_columns(spec, table)
    coldef = cols.get(column) or {}
    pk = primary_key_of(spec, table)
    ref = coldef.get("references")
    if ref and names_by_itself(spec, column, ref):
        ref = None  # `username` -> users(user_id): the fact is a username, not "user id"
    if binding.place == "key" or (binding.place == "filter" and column == pk and binding.op == "eq"):
        if column == pk:
            name = id_phrase(spec, table)
        elif ref:
            name = id_phrase(spec, ref)
        else:
            name = _column_phrase(spec, table, column, arg=arg)
    elif ref:
        name = id_phrase(spec, ref)
    elif binding.place == "set" and tokens(column)[-1:] and tokens(column)[-1] in NOTES:
        name = col_words(column, arg)
    elif binding.place == "set":
        name = "new " + _column_phrase(
            spec, table, column, entity_prefix=STATUS_COLUMNS.search(column) is not None, arg=arg
        )
    elif binding.place == "adjust":
        arg_words = tokens(arg)
        generic = not arg_words or all(w in GENERIC_DELTA for w in arg_words)
        name = f"change in {col_words(column, arg)}" if generic else readable_words(arg)
    elif binding.place == "filter":
        phrase = _column_phrase(spec, table, column, arg=arg)
        if binding.op in ("le", "lt"):
            name = f"maximum {col_words(column, arg)}"
        elif binding.op in ("ge", "gt"):
            name = f"minimum {col_words(column, arg)}"
        elif binding.op == "contains":
            name = f"{phrase} search text"
        elif binding.op == "in":
            name = plural_phrase(phrase)
        else:
            name = phrase
    else:
        name = _column_phrase(spec, table, column, arg=arg)
    first = tokens(arg)[:1]
    if first and first[0] in PREFIXES and first[0] not in tokens(column or ""):
        prefix = PREFIXES[first[0]]
        if not name.startswith(prefix):
            name = f"{prefix} {name}"
    return name


def names_by_itself(spec: dict, column: str, ref: str) -> bool:
    """Whether a reference column is a natural key of its own (`username`, `team_name`) while the table it
    references is keyed by something else (`user_id`): a person calls it by its own name."""
    return (
        name_key_entity(column) is not None
        and key_entity(column) is None
        and column != primary_key_of(spec, ref)
    )


def tool_fact_names(tool: dict, spec: dict) -> dict[str, str]:
    props = (tool.get("parameters") or {}).get("properties") or {}
    binds = tool_bindings(tool)
    names: dict[str, str] = {}
    seen: dict[str, int] = {}
    for arg in list(props) + [a for a in binds if a not in props]:
        bind = binds.get(arg)
        if bind is not None and bind.place == "set" and (props.get(arg) or {}).get("x-in") == "path":
            bind = Binding("key", bind.table, bind.column, main=False)  # `/budgets/{budget_id}/`: names a row
        name = _arg_name(arg, bind, spec)
        seen[name] = seen.get(name, 0) + 1
        names[arg] = name if seen[name] == 1 else f"{name} ({readable_words(arg)})"
    return names


def fact_name(arg: str, tool: dict, spec: dict) -> str:
    """The readable name of the fact behind argument `arg` of `tool` (a spec tool) in `spec`.

    The chain builder stores `TaskDraft.user_facts` under these names and the writer reads them back, so
    a name depends only on the argument, the tool and the spec. A key names its entity's identifier
    (`order_id` -> `order number`, `customer_id` -> `customer id`, `sku` -> `SKU`); a column an update
    sets is `new ...` (`new email address`, `new order status`); an amount added to a column is its
    `change in ...`; a filter bound is `maximum price` / `minimum price`; a generic column carries its
    entity (`order note`, `product category`); `from_`/`to_` arguments are `source`/`destination`. Two
    arguments of one tool never share a name. When two *calls* need different values under one name, the
    builder may suffix one ("product id (2)"): the writer then finds the fact by its value.

    ```python
    >>> from envscale.env import load_spec
    >>> spec = load_spec("tests/fixtures/envs/shop.yaml")
    >>> tools = {t["name"]: t for t in spec["tools"]}
    >>> fact_name("email", tools["update_customer_email"], spec), fact_name("max_price", tools["list_products"], spec)
    ('new email address', 'maximum price')
    ```
    """
    names = tool_fact_names(tool, spec)
    return names.get(arg) or _arg_name(arg, tool_bindings(tool).get(arg), spec)


def one_value(schema: Any) -> bool:
    """Whether an argument's schema allows one value only (a `const`, or an `enum` of one non-null value)."""
    if not isinstance(schema, dict):
        return False
    if "const" in schema:
        return True
    enum = [v for v in schema.get("enum") or [] if v is not None]
    return len(enum) == 1


_OPAQUE = re.compile(r"[A-Za-z0-9+/=_-]{16,}")
_HEX = re.compile(r"[0-9a-f]{16,}")


def opaque(value: Any) -> bool:
    """Whether a value is a token a service issues (`yrSjWVoafKndxAxwetFFkyBkcFqfUcY9xSKdmugZ`): a long run of
    upper- and lower-case letters and digits, no words; a GUID, a resource's name or a handle is none."""
    if not isinstance(value, str) or not _OPAQUE.fullmatch(value):
        return False
    if _HEX.fullmatch(value) and any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
        return True  # a hex digest or key (seed 94's readers: "values to key 77ba3b02...")
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
    )


TO_THE_SECOND = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:(?!00\b)\d{2}")
"""A moment written to the second (`2024-04-20T12:31:16Z`), which no person says."""


def unsayable(value: Any) -> str | None:
    """Why a value a request states is none a person says, or `None`: a moment to the second (two blind readers:
    "set the due date to 2024-04-20T12:31:16Z"), or a token a service issues, whether it names a row or is the new
    value (seed 93's readers: "update its payment token to yrSjWVoafKndxAxwetFFkyBkcFqfUcY9xSKdmugZ")."""
    if isinstance(value, str) and TO_THE_SECOND.search(value):
        return "is a moment to the second no one says"
    if opaque(value):
        return "is a token no one dictates"
    if isinstance(value, dict | list):
        # GoToWebinar's `times=[{"startTime": "2023-07-14T08:03:15Z", ...}]`: the moments inside an object too
        inner = value.values() if isinstance(value, dict) else value
        return next((why for v in inner if (why := unsayable(v))), None)
    return None


_BARE_PEOPLE = frozenset(("user", "member", "person", "people"))
_OWN_THINGS = frozenset(
    "email phone address method session token profile setting preference device identity credential key "
    "membership role permission".split()
)
_KEY_WORDS = frozenset(("id", "ids", "email", "key", "uuid", "name", "username", "handle", "login"))


def bare_person_link(spec: dict, table: str, column: str) -> bool:
    """Whether a reference names a person with no role (`offerings.user_email`, `teams.user`): an offering or a team
    has many users, so "its user", "the user of the team" is the schema's, never a person's way of speaking (seed
    93's readers, six tasks of 120). A role says who the person is to the row (`owner_id`, `customer_id`,
    `assignee`); a row that is the person's own (a user's contact email) is theirs."""
    cspec = ((spec.get("tables") or {}).get(table) or {}).get("columns", {}).get(column) or {}
    ref = cspec.get("references")
    if not ref or singular(str(ref)).split("_")[-1] not in _BARE_PEOPLE:
        return False
    if singular(table).split("_")[-1] in _OWN_THINGS:
        return False  # a user's contact email, phone, session or device: whose it is is the row's point
    words = [singular(w) for w in tokens(column) if w not in _KEY_WORDS]
    return not words or set(words) <= _BARE_PEOPLE
