"""Deterministic, realistic initial states for an environment spec, without any extra dependency.

`generate_state` fills every table with rows that respect column types, enums, unique columns,
primary keys (string ids like `cus_0001`, from a prefix of the table name) and foreign keys
(referenced tables are generated first). Values follow the column's `generator` hint, or a hint
inferred from its name: `name`, `email`, `phone`, `city`, `country`, `address`, dates
(`date`, `*_on` -> ISO dates; `*_at`, `created*`, `updated*` -> ISO datetimes), money (`price`,
`amount`, `total`, `balance`, ... -> 2-decimal numbers), `quantity`/`count` (small integers),
`title`/`description` (short phrases), `url`, flags (`is_*`, `active`, ... -> booleans).
A column without an enum that tools bind to constrained arguments (an enum, bounds, a pattern, a
format, an array or object type, ...) gets values those arguments accept (`bound_schemas`,
`schema_value`), so a json column bound to an array argument holds lists, and the keys and filter
values of existing rows are valid arguments.

Example:

```python
>>> from envscale.env.data import generate_state
>>> spec = {"name": "crm", "tools": [], "tables": {
...     "customers": {"primary_key": "customer_id", "columns": {
...         "customer_id": {"type": "string"}, "name": {"type": "string"}, "email": {"type": "string", "unique": True}}}}}
>>> generate_state(spec, seed=0, rows={"customers": 2})["customers"][0]["customer_id"]
'cus_0001'
```
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import math
import random
import re
import uuid
from collections.abc import Callable
from typing import Any

import jsonschema
from tqdm.auto import tqdm

from envscale.env.spec import (
    GENERATORS,
    SpecError,
    check_row_counts,
    is_nullable,
    validate_spec,
    value_problem,
)

DEFAULT_ROWS = 10
"""Rows per table when `data.rows` does not say (at most `spec.MAX_ROWS_PER_TABLE` either way)."""
PROGRESS_MIN_ROWS = 10_000
"""A state of at least this many rows in all shows a progress bar (on stderr, removed when done)."""
DEFAULT_NOW = "2025-06-01T12:00:00Z"
"""The environment's fixed clock when `data.now` does not say (dates are generated before it)."""

_FIRST = "Ann Ben Chloe Dev Eva Femi Gus Hana Ivan Jia Kofi Lena Maya Noor Omar Priya Quinn Rosa Sam Tariq Uma Vik Wen Yara Zoe".split()
_LAST = "Lee Garcia Smith Okafor Chen Novak Patel Kim Rossi Silva Nguyen Haddad Kowalski Tanaka Brown Costa Dubois Khan Larsen Moreau".split()
_PLACES = [
    ("Lisbon", "Portugal"), ("Osaka", "Japan"), ("Lagos", "Nigeria"), ("Toronto", "Canada"), ("Lyon", "France"),
    ("Austin", "USA"), ("Krakow", "Poland"), ("Pune", "India"), ("Leeds", "UK"), ("Porto Alegre", "Brazil"),
    ("Hamburg", "Germany"), ("Melbourne", "Australia"),
]  # fmt: skip
_STREETS = (
    "Oak St|Maple Ave|Harbour Rd|King St|Elm Way|Park Lane|Mill Rd|Station Rd|Church St|River Walk".split("|")
)
_ADJECTIVES = "compact wireless organic classic deluxe smart portable vintage ergonomic eco".split()
_NOUNS = "lamp backpack kettle headphones notebook chair blender jacket monitor bottle".split()
_STATUSES = ["active", "inactive", "pending"]
_PEOPLE = ("customer", "user", "employee", "member", "passenger", "patient", "student", "author", "contact",
           "staff", "people", "person", "client", "guest", "owner", "agent", "driver")  # fmt: skip


def id_prefix(table: str) -> str:
    """The id prefix of a table: `customers` -> `cus`, `order_items` -> `oi`."""
    words = [w for w in table.lower().split("_") if w]
    return "".join(w[0] for w in words) if len(words) > 1 else (words[0][:3] if words else "row")


def format_id(prefix: str, number: int) -> str:
    """A string id: `format_id("cus", 7)` -> `cus_0007`."""
    return f"{prefix}_{number:04d}"


def parse_now(spec: dict[str, Any]) -> dt.datetime:
    """The environment's fixed clock (`data.now`, else `DEFAULT_NOW`) as an aware datetime."""
    text = (spec.get("data") or {}).get("now") or DEFAULT_NOW
    return dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)


def table_order(spec: dict[str, Any]) -> list[str]:
    """Tables sorted so that every table comes after the tables it references.

    Raises:
        `SpecError`: The references form a cycle (a table referencing itself is fine).
    """
    tables = spec["tables"]
    parents = {
        t: {c["references"] for c in s["columns"].values() if "references" in c and c["references"] != t}
        for t, s in tables.items()
    }
    order: list[str] = []
    while len(order) < len(tables):
        ready = [t for t in tables if t not in order and parents[t] <= set(order)]
        if not ready:
            cycle = sorted(t for t in tables if t not in order)
            raise SpecError(
                f"tables {', '.join(cycle)} reference each other in a cycle; cannot order or generate them"
            )
        order.extend(ready)
    return order


def infer_hint(table: str, column: str, column_spec: dict[str, Any]) -> str:
    """The generator hint for a column: its `generator`, else one inferred from its name and type."""
    if "generator" in column_spec:
        return column_spec["generator"]
    ctype = column_spec["type"]
    n = column.lower()
    person = any(p in table.lower() or p in n for p in _PEOPLE)
    rules = [
        (n in ("first_name", "firstname", "given_name"), "first_name"),
        (n in ("last_name", "lastname", "surname", "family_name"), "last_name"),
        ("email" in n, "email"),
        ("phone" in n or n == "mobile", "phone"),
        ((n == "name" or n.endswith("_name")) and person, "name"),
        (n == "name" or n.endswith("_name") or n in ("title", "subject", "headline"), "title"),
        ("city" in n, "city"),
        ("country" in n, "country"),
        ("address" in n or "street" in n, "address"),
        (n.endswith("_at") or n.startswith(("created", "updated")) or "timestamp" in n, "datetime"),
        ("date" in n or n.endswith("_on") or n in ("dob", "birthday"), "date"),
        (
            any(w in n for w in ("price", "amount", "total", "balance", "cost", "fee", "salary", "revenue")),
            "money",
        ),
        (any(w in n for w in ("quantity", "qty", "count", "stock", "seats", "num_")), "quantity"),
        (n in ("rating", "score", "stars"), "rating"),
        (n in ("status", "state"), "status"),
        (
            any(
                w in n
                for w in ("description", "note", "comment", "summary", "bio", "text", "body", "message")
            ),
            "text",
        ),
        (any(w in n for w in ("url", "website", "link")), "url"),
        ("uuid" in n or "guid" in n, "uuid"),
    ]
    for matched, hint in rules:
        if matched and ctype in GENERATORS[hint]:
            return hint
    return {"string": "word", "integer": "integer", "number": "number", "boolean": "boolean", "json": "json"}[
        ctype
    ]


def _date(rng: random.Random, now: dt.datetime) -> dt.datetime:
    return now - dt.timedelta(seconds=rng.randrange(730 * 86400))


_HINTS: dict[str, Callable[[random.Random, dt.datetime], Any]] = {
    "name": lambda r, now: f"{r.choice(_FIRST)} {r.choice(_LAST)}",
    "first_name": lambda r, now: r.choice(_FIRST),
    "last_name": lambda r, now: r.choice(_LAST),
    "email": lambda r, now: f"{r.choice(_FIRST).lower()}.{r.choice(_LAST).lower()}@example.com",
    "phone": lambda r, now: f"+1-555-{r.randrange(10000):04d}",
    "city": lambda r, now: r.choice(_PLACES)[0],
    "country": lambda r, now: r.choice(_PLACES)[1],
    "address": lambda r, now: f"{r.randrange(1, 200)} {r.choice(_STREETS)}, {r.choice(_PLACES)[0]}",
    "date": lambda r, now: _date(r, now).date().isoformat(),
    "datetime": lambda r, now: _date(r, now).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "money": lambda r, now: round(r.uniform(1, 500), 2),
    "quantity": lambda r, now: r.randint(1, 10),
    "rating": lambda r, now: r.randint(1, 5),
    "status": lambda r, now: r.choice(_STATUSES),
    "title": lambda r, now: f"{r.choice(_ADJECTIVES).capitalize()} {r.choice(_NOUNS)}",
    "text": lambda r, now: (
        f"A {r.choice(_ADJECTIVES)} {r.choice(_NOUNS)} for every {r.choice(_ADJECTIVES)} day."
    ),
    "url": lambda r, now: f"https://example.com/{r.choice(_NOUNS)}/{r.randrange(10000)}",
    "uuid": lambda r, now: str(uuid.UUID(int=r.getrandbits(128), version=4)),
    "word": lambda r, now: f"{r.choice(_ADJECTIVES)}-{r.choice(_NOUNS)}",
    "boolean": lambda r, now: r.random() < 0.5,
    "integer": lambda r, now: r.randrange(1000),
    "number": lambda r, now: round(r.uniform(0, 1000), 2),
    "json": lambda r, now: {"tags": r.sample(_ADJECTIVES, 2)},
}


def column_value(
    table: str, column: str, column_spec: dict[str, Any], rng: random.Random, now: dt.datetime
) -> Any:
    """One realistic value for a column (type, enum and hint; no uniqueness or reference handling)."""
    if "enum" in column_spec:
        return rng.choice(column_spec["enum"])
    value = _HINTS[infer_hint(table, column, column_spec)](rng, now)
    if column_spec["type"] == "integer" and isinstance(value, float):
        return int(value)
    if column_spec["type"] == "number" and isinstance(value, int):
        return float(value)
    return value


# ----------------------------------------------------------------------------------------------
# Values that satisfy a JSON Schema (tool arguments), used for columns bound to constrained arguments.

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@functools.lru_cache(maxsize=4096)
def _validator_of(text: str) -> Any:
    schema = json.loads(text)
    return jsonschema.validators.validator_for(schema)(schema)


_ANNOTATIONS = {"description", "title", "default", "examples", "$comment", "deprecated"}


def _is_type(value: Any, kind: Any) -> bool:
    """JSON Schema's `type` check (a float with an integral value is an integer)."""
    if kind in ("integer", "number"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        return kind == "number" or isinstance(value, int) or value.is_integer()
    types = {"string": str, "boolean": bool, "array": list, "object": dict}
    return value is None if kind == "null" else isinstance(value, types[kind]) if kind in types else False


def schema_accepts(schema: Any, value: Any) -> bool:
    """Whether `value` is valid under the JSON Schema `schema` (`True` for a schema that cannot be checked)."""
    if not isinstance(schema, dict):
        return schema is not False
    if set(schema) <= _ANNOTATIONS | {"type"} and isinstance(schema.get("type", "string"), str | list):
        kinds = schema.get("type")
        if kinds is None:
            return True
        return any(_is_type(value, kind) for kind in ([kinds] if isinstance(kinds, str) else kinds))
    try:
        return _validator_of(json.dumps(schema, sort_keys=True, default=str)).is_valid(value)
    except (jsonschema.SchemaError, TypeError, ValueError, RecursionError):
        return True


def schema_value(schema: Any, rng: random.Random, now: dt.datetime, *, depth: int = 0) -> Any:
    """A value meant to be valid under a JSON Schema, best effort (the caller checks it with `schema_accepts`).

    Handles `const`, `enum`, `anyOf`/`oneOf`/`allOf`, `type` (or a list of types; null is a last
    resort), numeric bounds and `multipleOf`, `minLength`/`maxLength`, simple `pattern`s, `format`
    (date, date-time, time, email, uri, uuid), arrays (`items`, `prefixItems`, `minItems`,
    `maxItems`, `uniqueItems`) and objects (`properties`, `required`, `additionalProperties`).
    """
    if not isinstance(schema, dict) or depth > 8:
        return f"{rng.choice(_ADJECTIVES)}-{rng.choice(_NOUNS)}"
    if "const" in schema:
        return schema["const"]
    rest = {
        k: v for k, v in schema.items() if k not in ("enum", "anyOf", "oneOf", "allOf", "default", "examples")
    }
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        fitting = [v for v in schema["enum"] if schema_accepts(rest, v)]
        return rng.choice(fitting or schema["enum"])
    for combinator in ("anyOf", "oneOf"):
        branches = [b for b in schema.get(combinator) or [] if isinstance(b, dict)]
        if branches:
            non_null = [b for b in branches if b.get("type") != "null"] or branches
            return schema_value({**rest, **rng.choice(non_null)}, rng, now, depth=depth + 1)
    if isinstance(schema.get("allOf"), list):
        merged = dict(rest)
        for branch in schema["allOf"]:
            if isinstance(branch, dict):
                merged.update(branch)
        return schema_value(merged, rng, now, depth=depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        kind = rng.choice(kinds) if kinds else "null"
    if kind is None:
        kind = (
            "object" if "properties" in schema or "required" in schema
            else "array" if "items" in schema or "prefixItems" in schema
            else "number" if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"))
            else "string"
        )  # fmt: skip
    if kind in ("integer", "number"):
        return _number_value(schema, kind, rng)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "array":
        return _array_value(schema, rng, now, depth)
    if kind == "object":
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = [r for r in schema.get("required") or [] if isinstance(r, str)]
        names = [p for p in props if p in required or rng.random() < 0.5] + [
            r for r in required if r not in props
        ]
        return {p: schema_value(props.get(p, {}), rng, now, depth=depth + 1) for p in names}
    return _string_value(schema, rng, now)


def _number_value(schema: dict[str, Any], kind: str, rng: random.Random) -> int | float:
    lo, hi = schema.get("minimum"), schema.get("maximum")
    step = 1 if kind == "integer" else 0.01
    if isinstance(schema.get("exclusiveMinimum"), int | float) and not isinstance(
        schema["exclusiveMinimum"], bool
    ):
        lo = (
            max(lo, schema["exclusiveMinimum"] + step)
            if isinstance(lo, int | float)
            else schema["exclusiveMinimum"] + step
        )
    if isinstance(schema.get("exclusiveMaximum"), int | float) and not isinstance(
        schema["exclusiveMaximum"], bool
    ):
        hi = (
            min(hi, schema["exclusiveMaximum"] - step)
            if isinstance(hi, int | float)
            else schema["exclusiveMaximum"] - step
        )
    lo = lo if isinstance(lo, int | float) and not isinstance(lo, bool) else None
    hi = hi if isinstance(hi, int | float) and not isinstance(hi, bool) else None
    if lo is None and hi is None:
        lo, hi = 1, 10 if kind == "integer" else 100
    elif lo is None:
        lo = min(1, hi) if hi >= 1 else hi - 10
    elif hi is None:
        hi = lo + (10 if kind == "integer" else 100)
    multiple = schema.get("multipleOf")
    if isinstance(multiple, int | float) and not isinstance(multiple, bool) and multiple > 0:
        first, last = math.ceil(lo / multiple), math.floor(hi / multiple)
        value = rng.randint(first, max(first, last)) * multiple
        return int(value) if kind == "integer" else value
    if kind == "integer":
        first, last = math.ceil(lo), math.floor(hi)
        return rng.randint(first, max(first, last))
    return round(rng.uniform(lo, hi), 2) if hi - lo >= 0.02 else lo


def _array_value(schema: dict[str, Any], rng: random.Random, now: dt.datetime, depth: int) -> list[Any]:
    low = schema.get("minItems", 0) if isinstance(schema.get("minItems"), int) else 0
    high = schema.get("maxItems") if isinstance(schema.get("maxItems"), int) else max(low, 3)
    n = rng.randint(max(low, min(1, high)), max(low, min(high, low + 2, 3) if high >= 1 else low))
    prefix = schema.get("prefixItems") if isinstance(schema.get("prefixItems"), list) else []
    items = schema.get("items", {})
    if isinstance(items, list):  # draft 4-7 tuple validation
        prefix, items = items, schema.get("additionalItems", {})
    n = max(n, min(len(prefix), high))
    values: list[Any] = []
    for i in range(n):
        sub = prefix[i] if i < len(prefix) else items if isinstance(items, dict) else {}
        value = schema_value(sub, rng, now, depth=depth + 1)
        if schema.get("uniqueItems"):
            for _ in range(5):
                if value not in values:
                    break
                value = schema_value(sub, rng, now, depth=depth + 1)
            if value in values:
                break
        values.append(value)
    return values


def _string_value(schema: dict[str, Any], rng: random.Random, now: dt.datetime) -> str:
    fmt = schema.get("format")
    pattern = schema.get("pattern")
    value = None
    if isinstance(pattern, str):
        value = pattern_value(pattern, rng)
    if value is None:
        by_format = {
            "date": "date", "date-time": "datetime", "email": "email", "uri": "url", "url": "url",
            "uuid": "uuid",
        }  # fmt: skip
        if fmt in by_format:
            value = _HINTS[by_format[fmt]](rng, now)
        elif fmt == "time":
            value = f"{rng.randrange(24):02d}:{rng.randrange(60):02d}:00"
        else:
            value = _HINTS["word"](rng, now)
    low = schema.get("minLength") if isinstance(schema.get("minLength"), int) else 0
    high = schema.get("maxLength") if isinstance(schema.get("maxLength"), int) else None
    if len(value) < low:
        value += "".join(rng.choice(_LETTERS) for _ in range(low - len(value)))
    if high is not None and len(value) > high:
        value = value[:high]
    return value


def pattern_value(pattern: str, rng: random.Random) -> str | None:
    """A string matching a simple regular expression (`re.search`), or `None` when none could be built."""
    try:
        parsed = re._parser.parse(pattern)  # type: ignore[attr-defined]
    except (re.error, RecursionError, OverflowError):
        return None
    for _ in range(5):
        try:
            text = _from_regex(list(parsed), rng)
        except _Unsupported:
            return None
        if re.search(pattern, text):
            return text
    return None


class _Unsupported(Exception):
    pass


_CATEGORIES = {
    "CATEGORY_DIGIT": "0123456789",
    "CATEGORY_WORD": _LETTERS + "0123456789",
    "CATEGORY_SPACE": " ",
    "CATEGORY_NOT_DIGIT": _LETTERS,
    "CATEGORY_NOT_WORD": "-",
    "CATEGORY_NOT_SPACE": _LETTERS,
}


def _from_regex(items: list[Any], rng: random.Random, groups: dict[int, str] | None = None) -> str:
    groups = {} if groups is None else groups
    out = []
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "NOT_LITERAL":
            out.append(rng.choice([c for c in _LETTERS + "0123456789" if ord(c) != arg]))
        elif name == "ANY":
            out.append(rng.choice(_LETTERS))
        elif name == "IN":
            out.append(_from_set(arg, rng))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, sub = arg
            count = rng.randint(low, max(low, min(high, low + 3)))
            out.extend(_from_regex(list(sub), rng, groups) for _ in range(count))
        elif name == "SUBPATTERN":
            text = _from_regex(list(arg[-1]), rng, groups)
            if arg[0] is not None:
                groups[arg[0]] = text
            out.append(text)
        elif name == "BRANCH":
            out.append(_from_regex(list(rng.choice(arg[1])), rng, groups))
        elif name == "GROUPREF":
            out.append(groups.get(arg, ""))
        elif name == "AT":
            continue
        else:
            raise _Unsupported(name)
    return "".join(out)


def _from_set(items: list[Any], rng: random.Random) -> str:
    chars: list[str] = []
    negate = False
    for op, arg in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            chars.append(chr(arg))
        elif name == "RANGE":
            chars.extend(chr(c) for c in range(arg[0], min(arg[1], arg[0] + 200) + 1))
        elif name == "CATEGORY":
            chars.extend(_CATEGORIES.get(str(arg), ""))
        else:
            raise _Unsupported(name)
    if negate:
        pool = [c for c in _LETTERS + _LETTERS.upper() + "0123456789" if c not in chars]
        return rng.choice(pool) if pool else "~"
    if not chars:
        raise _Unsupported("empty set")
    return rng.choice(chars)


def bound_schemas(spec: dict[str, Any]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The argument schemas that tools bind to each column, as `{(table, column): [schema, ...]}`.

    Keys, eq/ne filters, inserted and updated values bind the whole argument; an `in` filter binds
    its `items`; `contains` and range filters say nothing about a column's values.
    """
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for tool in spec.get("tools", []):
        op, props = tool["operation"], tool["parameters"].get("properties", {})
        pairs = [
            (c, props.get(a))
            for c, a in {**op.get("key", {}), **op.get("values", {}), **op.get("set", {})}.items()
        ]
        for flt in op.get("filters", []):
            prop = props.get(flt["arg"])
            if flt.get("op", "eq") in ("eq", "ne"):
                pairs.append((flt["column"], prop))
            elif flt.get("op") == "in" and isinstance(prop, dict):
                pairs.append((flt["column"], prop.get("items")))
        for column, prop in pairs:
            if isinstance(prop, dict) and set(prop) - _ANNOTATIONS:
                out.setdefault((op["table"], column), []).append(prop)
    return out


def _fit_bound(
    value: Any,
    column_spec: dict[str, Any],
    schemas: list[dict[str, Any]],
    rng: random.Random,
    now: dt.datetime,
) -> Any:
    """`value`, or when some argument bound to its column rejects it, a value those arguments accept."""
    if all(schema_accepts(s, value) for s in schemas):
        return value
    fallback = None
    for _ in range(10):
        schema = rng.choice(schemas)
        candidate = schema_value(schema, rng, now)
        if candidate is None or value_problem(column_spec, candidate) is not None:
            continue
        if all(schema_accepts(s, candidate) for s in schemas):
            return candidate
        if fallback is None and schema_accepts(schema, candidate):
            fallback = candidate
    return value if fallback is None else fallback


def _make_unique(value: Any, index: int, seen: set[Any]) -> Any:
    """`value`, or a variant of it derived from the row index, that is not in `seen`."""
    if value not in seen:
        return value
    if isinstance(value, str):
        local, at, domain = value.partition("@")
        value = f"{local}{index}{at}{domain}" if at else f"{value} {index}"
        while value in seen:
            value += "'"
        return value
    return max(seen) + 1


def _person_names(columns: dict[str, list[Any]], hints: dict[str, str]) -> list[str] | None:
    """The people's names of a table's rows, from its generated name or first/last name columns."""
    by_hint = {hint: columns[c] for c, hint in hints.items() if c in columns}
    if "name" in by_hint:
        return [str(v) for v in by_hint["name"]]
    if "first_name" in by_hint and "last_name" in by_hint:
        return [f"{f} {la}" for f, la in zip(by_hint["first_name"], by_hint["last_name"], strict=True)]
    return None


def generate_state(
    spec: dict[str, Any], seed: int, rows: dict[str, int] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """Generate a deterministic initial state for a spec.

    Args:
        spec (`dict`): A valid spec.
        seed (`int`): The random seed; each table draws from its own generator, so changing one
            table's row count leaves the others' values alone.
        rows (`dict[str, int]`, *optional*): Rows per table, each at most
            `spec.MAX_ROWS_PER_TABLE`; defaults to the spec's `data.rows`, then `DEFAULT_ROWS`.
            From `PROGRESS_MIN_ROWS` rows in all a progress bar shows on stderr; Ctrl-C stops
            the generation (`KeyboardInterrupt`).

    Returns:
        `dict[str, list[dict]]`: Rows per table, in reference order.

    Raises:
        `SpecError`: The spec is invalid, its references form a cycle, or the constraints cannot be
            met (a required reference to an empty table, more unique values than an enum has).
    """
    validate_spec(spec)
    return build_state(spec, seed, rows)


def build_state(
    spec: dict[str, Any], seed: int, rows: dict[str, int] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """`generate_state` for a spec that is known to be valid (only the `rows` override is checked)."""
    if rows:
        check_row_counts(rows, spec["tables"])
    counts = (
        {t: DEFAULT_ROWS for t in spec["tables"]} | (spec.get("data") or {}).get("rows", {}) | (rows or {})
    )
    now = parse_now(spec)
    bound = bound_schemas(spec)
    state: dict[str, list[dict[str, Any]]] = {}
    # Progress in values (rows x columns), advanced column by column.
    total = sum(counts[t] * len(s["columns"]) for t, s in spec["tables"].items())
    with tqdm(
        total=total,
        desc=f"generating {spec['name']}",
        unit="value",
        unit_scale=True,
        leave=False,
        disable=sum(counts[t] for t in spec["tables"]) < PROGRESS_MIN_ROWS,
    ) as progress:
        for table in table_order(spec):
            state[table] = _build_table(spec, table, counts[table], seed, now, bound, state, progress)
    return state


def _build_table(
    spec: dict[str, Any],
    table: str,
    n: int,
    seed: int,
    now: dt.datetime,
    bound: dict[tuple[str, str], list[dict[str, Any]]],
    state: dict[str, list[dict[str, Any]]],
    progress: Any,
) -> list[dict[str, Any]]:
    """The `n` rows of one table, given the rows of the tables it references (in `state`)."""
    tspec = spec["tables"][table]
    pk = tspec["primary_key"]
    rng = random.Random(f"{seed}:{table}")
    prefix = id_prefix(table)
    pk_type = tspec["columns"][pk]["type"]
    own_keys = [format_id(prefix, i + 1) if pk_type == "string" else i + 1 for i in range(n)]
    hints = {c: infer_hint(table, c, cs) for c, cs in tspec["columns"].items()}
    columns: dict[str, list[Any]] = {}
    for column, cspec in sorted(tspec["columns"].items(), key=lambda item: hints[item[0]] == "email"):
        where = f"cannot generate {n} rows of {table}.{column}"
        ref = cspec.get("references")
        if column == pk:
            columns[column] = own_keys
            progress.update(n)
            continue
        if ref == table:  # a tree: each row points to an earlier one (the first to none, or itself)
            first = None if is_nullable(tspec, column) else own_keys[0] if n else None
            columns[column] = [own_keys[rng.randrange(i)] if i else first for i in range(n)]
            progress.update(n)
            continue
        if ref is not None:
            keys = [r[spec["tables"][ref]["primary_key"]] for r in state[ref]]
            if not keys and n and not is_nullable(tspec, column):
                raise SpecError(f"{where}: it references {ref}, which has no rows")
            if cspec.get("unique"):
                if len(keys) < n and not is_nullable(tspec, column):
                    raise SpecError(f"{where}: unique references need {n} rows in {ref}, it has {len(keys)}")
                picked: list[Any] = rng.sample(keys, min(n, len(keys)))
                columns[column] = picked + [None] * (n - len(picked))
            else:
                columns[column] = [rng.choice(keys) if keys else None for _ in range(n)]
            progress.update(n)
            continue
        if cspec.get("unique") and "enum" in cspec and len(cspec["enum"]) < n:
            raise SpecError(f"{where}: it is unique but its enum has only {len(cspec['enum'])} values")
        names = _person_names(columns, hints) if hints[column] == "email" and "enum" not in cspec else None
        values, seen = [], set()
        for i in range(n):
            if names:  # the email of the person named in the same row
                value = f"{names[i].lower().replace(' ', '.')}@example.com"
            else:
                value = column_value(table, column, cspec, rng, now)
                if (table, column) in bound and "enum" not in cspec:
                    value = _fit_bound(value, cspec, bound[table, column], rng, now)
            if cspec.get("unique"):
                if "enum" in cspec and value in seen:
                    value = rng.choice([v for v in cspec["enum"] if v not in seen])
                value = _make_unique(value, i + 1, seen)
                seen.add(value)
            values.append(value)
        columns[column] = values
        progress.update(n)
    order = list(tspec["columns"])
    return [dict(zip(order, vals, strict=True)) for vals in zip(*(columns[c] for c in order), strict=True)]
