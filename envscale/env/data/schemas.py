"""JSON Schemas of tool arguments: which bind to a column, whether they accept a value, values that fit them.

- `bound_schemas(spec)`: `{(table, column): [schema, ...]}`, the argument schemas tools bind to
  each column (keys and filters first);
- `schema_accepts(schema, value)`: the JSON Schema check (`True` for a schema that cannot be checked);
- `schema_value(schema, rng, now)` and `pattern_value(pattern, rng)`: a value meant to fit (enums,
  combinators, bounds, formats, simple regular expressions, arrays, objects), best effort;
- `fit_bound`: a generated cell, or, when an argument bound to its column rejects it, one they accept.

Example:

```python
>>> import datetime as dt, random
>>> from envscale.env.data import schema_accepts, schema_value
>>> schema = {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"}
>>> value = schema_value(schema, random.Random(0), dt.datetime(2025, 6, 1, tzinfo=dt.UTC))
>>> schema_accepts(schema, value), schema_accepts(schema, "abc")
(True, False)
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
from collections.abc import Callable, Sequence
from typing import Any

import jsonschema

from envscale.env.data.meaning import (
    NUMBER_RANGES,
    item_meaning,
    meaning_from_texts,
    named_values,
    singular_word,
)
from envscale.env.data.values import Col, email_for, pick_first_name, pick_last_name, slug_of, string_value
from envscale.env.data.vocabulary import PLACES, PlaceRow, word_data
from envscale.env.spec import value_problem
from envscale.words.names import name_words

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
    """Whether `value` is valid under the JSON Schema `schema` (`True` for a schema that cannot be checked).

    The test is compiled once per schema object (a quick accept-test for common keywords, jsonschema
    for the rest and for every value the quick test does not accept); verification and state
    generation ask about the same few schemas hundreds of thousands of times.
    """
    if not isinstance(schema, dict):
        return schema is not False
    if set(schema) <= _ANNOTATIONS | {"type"} and isinstance(schema.get("type", "string"), str | list):
        kinds = schema.get("type")
        if kinds is None:
            return True
        return any(_is_type(value, kind) for kind in ([kinds] if isinstance(kinds, str) else kinds))
    return _cached_acceptor(schema)(value)


_FITTING: dict[int, tuple[dict, list]] = {}


def _fitting_enum(schema: dict, rest: dict) -> list:
    """The enum values of `schema` that its other keywords accept, computed once per schema object."""
    hit = _FITTING.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    accepts = _acceptor_uncached(rest)
    fitting = [v for v in schema["enum"] if accepts(v)]
    if len(_FITTING) >= _ACCEPTORS_MAX:
        _FITTING.clear()
    _FITTING[id(schema)] = (schema, fitting)
    return fitting


_ACCEPTORS: dict[int, tuple[dict, Callable[[Any], bool]]] = {}
_ACCEPTORS_MAX = 8192


def _cached_acceptor(schema: dict) -> Callable[[Any], bool]:
    """The compiled test of one schema object, cached by identity (the cache holds the schema, so an
    id is never reused while its entry lives; schemas are not mutated once a spec is built)."""
    hit = _ACCEPTORS.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    accepts = _acceptor_uncached(schema)
    if len(_ACCEPTORS) >= _ACCEPTORS_MAX:
        _ACCEPTORS.clear()
    _ACCEPTORS[id(schema)] = (schema, accepts)
    return accepts


def _acceptor_uncached(schema: dict) -> Callable[[Any], bool]:
    """A quick accept-test for common keywords, jsonschema (compiled on first need) for the rest."""
    from envscale.env.arguments import quick_check  # arguments imports columns only; no cycle at run time

    quick = quick_check(schema)
    state: dict[str, Any] = {}

    def accepts(value: Any) -> bool:
        if quick is not None and quick(value):
            return True
        try:
            validator = state.get("v")
            if validator is None:
                validator = state["v"] = _validator_of(json.dumps(schema, sort_keys=True, default=str))
            return validator.is_valid(value)
        except (jsonschema.SchemaError, TypeError, ValueError, RecursionError):
            return True

    return accepts


def schema_value(
    schema: Any,
    rng: random.Random,
    now: dt.datetime,
    *,
    depth: int = 0,
    name: str | None = None,
    context: str = "",
    place: PlaceRow | None = None,
) -> Any:
    """A value meant to be valid under a JSON Schema, best effort (the caller checks it with `schema_accepts`).

    Handles `const`, `enum`, `anyOf`/`oneOf`/`allOf`, `type` (or a list of types; null is a last
    resort), numeric bounds and `multipleOf`, `minLength`/`maxLength`, simple `pattern`s, `format`
    (date, date-time, time, email, uri, uuid), arrays (`items`, `prefixItems`, `minItems`,
    `maxItems`, `uniqueItems`) and objects (`properties`, `required`, `additionalProperties`; at
    least one declared property).

    With a `name` (a column or argument), strings and numbers without a format or bounds are drawn
    by the meaning of their name, as columns are: an object's properties by theirs, with the object's
    name as context (`{"city": "Lyon", "contact_name": "Maria Lopez"}` in an `address`), an array's
    items by the singular of its name; a string whose name says nothing takes one of the schema's
    `examples`, else a word.

    Args:
        schema (`dict`): The JSON Schema.
        rng (`random.Random`): The generator.
        now (`datetime`): The clock (dates are drawn around it).
        depth (`int`, *optional*): The nesting depth (internal; stops at 8).
        name (`str`, *optional*): The name of the value (a column, an argument, a property).
        context (`str`, *optional*): What the value belongs to (a table, an enclosing object).
        place (`PlaceRow`, *optional*): The place of the row the value is in: an object's address fields name it.
    """
    if not isinstance(schema, dict) or depth > 8:
        return rng.choice(word_data().words)
    if "const" in schema:
        return schema["const"]
    rest = {
        k: v for k, v in schema.items() if k not in ("enum", "anyOf", "oneOf", "allOf", "default", "examples")
    }
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return rng.choice(_fitting_enum(schema, rest) or schema["enum"])
    for combinator in ("anyOf", "oneOf"):
        branches = [b for b in schema.get(combinator) or [] if isinstance(b, dict)]
        if branches:
            non_null = [b for b in branches if b.get("type") != "null"] or branches
            return schema_value(
                {**rest, **rng.choice(non_null)},
                rng,
                now,
                depth=depth + 1,
                name=name,
                context=context,
                place=place,
            )
    if isinstance(schema.get("allOf"), list):
        merged = dict(rest)
        for branch in schema["allOf"]:
            if isinstance(branch, dict):
                merged.update(branch)
        return schema_value(merged, rng, now, depth=depth + 1, name=name, context=context, place=place)
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
        return _schema_number(schema, kind, rng, _leaf(name, context, kind, schema), now.year)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "array":
        return _array_value(schema, rng, now, depth, name, context)
    if kind == "object":
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = [r for r in schema.get("required") or [] if isinstance(r, str)]
        names = [p for p in props if p in required or rng.random() < 0.5] + [
            r for r in required if r not in props
        ]
        if props and not names:  # an object of declared properties holds at least one
            names = [rng.choice(list(props))]
        if (name_words(name or "")[-1:] or [""])[0].lower() in _MOMENTS:
            # an event's `start` or `end` says when (seed 94's readers: Google Calendar's events started at
            # `{"timeZone": "fra1"}` and nothing else)
            moments = sorted((p for p in props if _when(p)), key=lambda p: "datetime" not in p.lower())
            if moments and not any(_when(p) for p in names):
                names.append(moments[0])
        inner = name if name is not None else context
        made = {
            p: schema_value(props.get(p, {}), rng, now, depth=depth + 1, name=p, context=inner) for p in names
        }
        return _in_order(_one_place(made, props, rng, place), props)
    return _schema_string(schema, rng, now, name, context)


_ENDS = (("start", "end"), ("from", "to"), ("begin", "finish"), ("begin", "end"), ("since", "until"))


def _in_order(made: dict[str, Any], props: dict[str, Any]) -> dict[str, Any]:
    """An object's start comes before its end (GoToTraining's `times: [{startDate, endDate}]` ended before it
    began: seed 92's readers): two moments of the same shape named as a pair are swapped when they run backwards."""
    for first, last in _ENDS:
        starts = [f for f in made if re.sub(r"[^a-z]", "", f.lower()).startswith(first)]
        ends = [f for f in made if re.sub(r"[^a-z]", "", f.lower()).startswith(last)]
        for a in starts:
            rest = re.sub(r"[^a-z]", "", a.lower())[len(first) :]
            b = next((f for f in ends if re.sub(r"[^a-z]", "", f.lower())[len(last) :] == rest), None)
            if b is None:
                continue
            x, y = made[a], made[b]
            backwards = (
                isinstance(x, str) and isinstance(y, str) and len(x) == len(y) and x > y and x[:1].isdigit()
            )
            if backwards and not any(k in _schema_of(props, f) for f in (a, b) for k in ("const", "enum")):
                made[a], made[b] = y, x
    return made


_PLACE_PARTS = {
    "city": "city", "town": "city", "state": "region", "province": "region", "region": "region",
    "country": "country", "countrycode": "country_code", "countryiso": "country_code", "latitude": "lat",
    "lat": "lat", "longitude": "lon", "lon": "lon", "lng": "lon", "timezone": "timezone",
}  # fmt: skip
"""An object's fields that say where it is, by their names run together (`country_code` -> `countrycode`)."""


def _one_place(
    made: dict[str, Any], props: dict[str, Any], rng: random.Random, place: PlaceRow | None = None
) -> dict[str, Any]:
    """An object's place fields name one place: an address's city, state, country, latitude, longitude and time
    zone (drawn apart, a lead's address said "state pending", "latitude Mrs", Canada beside CA). Two or more such
    fields drawn make the object hold a place; each keeps its declared shape (a code where the field is a code,
    a string coordinate where the field is a string)."""
    parts = {
        field: part
        for field, value in made.items()
        if value is not None
        and isinstance(value, str | int | float)
        and not isinstance(value, bool)
        and (part := _PLACE_PARTS.get(re.sub(r"[^a-z]", "", field.lower())))
        and not any(k in _schema_of(props, field) for k in ("const", "pattern", "format"))
        and ("enum" not in _schema_of(props, field) or part in ("country", "country_code", "region"))
    }
    if len(parts) < (
        1 if place else 2
    ):  # one field names the row's place, two or more one place of their own
        return made
    place = place or rng.choice(PLACES)  # the row's own place where the caller knows it
    for field, part in parts.items():
        schema = _schema_of(props, field)
        texts = " ".join(str(x) for x in (schema.get("description"), *(schema.get("examples") or []))).lower()
        old = made[field]
        coded = isinstance(old, str) and re.fullmatch(r"[A-Z]{2,3}", old) is not None
        if part in ("lat", "lon"):
            value = round((place.lat if part == "lat" else place.lon) + rng.uniform(-0.05, 0.05), 6)
            made[field] = f"{value:.6f}" if isinstance(old, str) else value
        elif part == "region":
            made[field] = place.region_code if coded or re.search(r"\bcode\b|abbrev", texts) else place.region
        elif part in ("country", "country_code"):
            code = part == "country_code" or coded or re.search(r"alpha-?2|iso|\bcode\b", texts) is not None
            made[field] = place.country_code if code else place.country
        else:
            made[field] = getattr(place, part)
        if not _fits_length(schema, made[field]):  # `country` of two letters at most: the code, else as drawn
            code = {"region": place.region_code, "country": place.country_code}.get(part)
            made[field] = code if code is not None and _fits_length(schema, code) else old
        if isinstance(schema.get("enum"), list):
            # Billingo's country codes: the place's own where the enum has it; a country's code or name, a region's
            # its own (California's `CA` is never Canada's)
            spelled = {str(v).lower(): v for v in schema["enum"]}
            own = (
                (place.region_code, place.region) if part == "region" else (place.country_code, place.country)
            )
            made[field] = next((spelled[o] for o in (str(x).lower() for x in own) if o in spelled), old)
    if any(part == "city" for part in parts.values()):
        for field, value in made.items():
            # the street line beside the object's city: "9331 Smith Avenue", not a whole address in another city
            if (
                re.sub(r"[^a-z]", "", field.lower()) in _STREET_LINES
                and isinstance(value, str)
                and "," in value
            ):
                made[field] = value.split(",")[0].strip()
    return made


_STREET_LINES = frozenset("address addressline addressline1 address1 line1 street streetaddress".split())


def _schema_of(props: dict[str, Any], field: str) -> dict[str, Any]:
    """A property's schema, `{}` for a boolean schema (`"city": true`) or none."""
    schema = props.get(field)
    return schema if isinstance(schema, dict) else {}


def _fits_length(schema: dict[str, Any], value: Any) -> bool:
    if not isinstance(value, str):
        return True
    low, high = schema.get("minLength"), schema.get("maxLength")
    return not (isinstance(low, int) and len(value) < low) and not (
        isinstance(high, int) and len(value) > high
    )


# Meanings whose values need a Faker instance (not at hand inside a schema): drawn as plain codes.
_FAKER_MEANINGS = frozenset(
    ("user_agent", "code:isbn", "code:iban", "code:ean", "code:vin", "code:plate", "code:ssn", "code:ein",
     "code:swift", "code:card")
)  # fmt: skip


def _leaf(name: str | None, context: str, kind: str, schema: dict[str, Any]) -> str | None:
    """The meaning of a named string or number inside a schema (`None` without a name)."""
    if not name:
        return None
    texts = schema.get("description") if isinstance(schema.get("description"), str) else ""
    meaning = meaning_from_texts(context, name, kind, None, texts.lower(), ())
    if kind == "string" and meaning == "person" and (name_words(context)[-1:] or [""])[0].lower() in _NOTES:
        # Impala's `notes: {fromGuest, fromSeller}`: the guest's note, never the guest's name (seed 93's and 94's
        # readers: "change the notes of the booking to from guest Brian Kelley")
        return "text:note"
    return "code:number" if meaning in _FAKER_MEANINGS else meaning


_MOMENTS = frozenset("start end due until begin finish deadline".split())


def _when(field: str) -> bool:
    """Whether an object's field is the moment it holds (`dateTime`, `date`, `time`), not its time zone."""
    words = [w.lower() for w in name_words(field)]
    return bool(words) and words[-1] in ("date", "datetime", "time") and words[-2:] != ["time", "zone"]


_OWN_PEOPLE = frozenset(("person", "first_name", "last_name", "email", "phone", "username"))
_NOTES = frozenset("note notes comment comments remark remarks memo memos message messages".split())


def _schema_number(
    schema: dict[str, Any], kind: str, rng: random.Random, meaning: str | None = None, year: int = 2025
) -> int | float:
    if meaning and not isinstance(schema.get("multipleOf"), int | float):
        drawn = _meaning_number(schema, kind, rng, meaning, year)
        if drawn is not None:
            return drawn
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


def _array_value(
    schema: dict[str, Any],
    rng: random.Random,
    now: dt.datetime,
    depth: int,
    name: str | None = None,
    context: str = "",
) -> list[Any]:
    low = schema.get("minItems", 0) if isinstance(schema.get("minItems"), int) else 0
    high = schema.get("maxItems") if isinstance(schema.get("maxItems"), int) else max(low, 3)
    n = rng.randint(max(low, min(1, high)), max(low, min(high, low + 2, 3) if high >= 1 else low))
    prefix = schema.get("prefixItems") if isinstance(schema.get("prefixItems"), list) else []
    items = schema.get("items", {})
    if isinstance(items, list):  # draft 4-7 tuple validation
        prefix, items = items, schema.get("additionalItems", {})
    n = max(n, min(len(prefix), high))
    item = _item_name(name, context) if name else None
    values: list[Any] = []
    for i in range(n):
        sub = prefix[i] if i < len(prefix) else items if isinstance(items, dict) else {}
        value = schema_value(sub, rng, now, depth=depth + 1, name=item, context=context)
        if schema.get("uniqueItems"):
            for _ in range(5):
                if value not in values:
                    break
                value = schema_value(sub, rng, now, depth=depth + 1, name=item, context=context)
            if value in values:
                break
        values.append(value)
    return values


def _meaning_number(
    schema: dict[str, Any], kind: str, rng: random.Random, meaning: str, year: int
) -> int | float | None:
    """A number in the range of a meaning (`num:money` 1-500, `id` 1-9999, ...) within the schema's
    bounds, or `None` when the meaning has no range or it misses the bounds."""
    if meaning == "id":
        low, high, dec = 1, 9_999, 0
    elif meaning.startswith("num:") and meaning[4:] in NUMBER_RANGES and meaning[4:] not in ("int", "float"):
        low, high, dec = NUMBER_RANGES[meaning[4:]]
        high = high or year  # years: up to the present
    else:
        return None
    for key, better in (
        ("minimum", max),
        ("exclusiveMinimum", max),
        ("maximum", min),
        ("exclusiveMaximum", min),
    ):
        bound = schema.get(key)
        if isinstance(bound, int | float) and not isinstance(bound, bool):
            bound = bound + (1 if kind == "integer" else 0.01) * (key == "exclusiveMinimum")
            bound = bound - (1 if kind == "integer" else 0.01) * (key == "exclusiveMaximum")
            if better is max:
                low = max(low, bound)
            else:
                high = min(high, bound)
    if kind == "integer":
        first, last = math.ceil(low), math.floor(high)
        return rng.randint(first, last) if first <= last else None
    if low > high:
        return None
    return float(round(rng.uniform(low, high), dec or 2)) if high > low else float(low)


def _item_name(name: str, context: str) -> str:
    """The name of one item of an array named `name`: `phone_numbers` -> `phone_number`."""
    found = item_meaning(context, name)
    if found is not None:
        return found[0]
    words = name_words(name)
    return "_".join([*words[:-1], singular_word(words[-1])]) if words else name


def _schema_string(
    schema: dict[str, Any], rng: random.Random, now: dt.datetime, name: str | None = None, context: str = ""
) -> str:
    fmt = schema.get("format")
    pattern = schema.get("pattern")
    value = None
    if isinstance(pattern, str):
        value = pattern_value(pattern, rng)
    if value is None and fmt not in _FORMATS:
        value = (
            _named_string(schema, rng, now, name, context) if name else _described_string(schema, rng, now)
        )
    if value is None:
        value = _format_value(fmt, rng, now)
    low = schema.get("minLength") if isinstance(schema.get("minLength"), int) else 0
    high = schema.get("maxLength") if isinstance(schema.get("maxLength"), int) else None
    if len(value) < low:
        value += "".join(rng.choice(_LETTERS) for _ in range(low - len(value)))
    if high is not None and len(value) > high:
        value = value[:high]
    return value


_DATE_PATTERN = re.compile(r"\\d\{4\}-|\[0-9\]\{4\}-")
"""A pattern of a date (`^\\d{4}-\\d{2}-\\d{2}$`): filled with a date of the calendar, never `5339-56-72`."""


def pattern_value(pattern: str, rng: random.Random) -> str | None:
    """A string matching a simple regular expression (`re.search`), or `None` when none could be built; a date
    pattern is matched with a real date or timestamp when one fits it."""
    if _DATE_PATTERN.search(pattern):
        day = dt.date(2023, 1, 1) + dt.timedelta(days=rng.randrange(1100))
        clock = f"{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}"
        texts = (
            day.isoformat(),
            f"{day}T{clock}Z",
            f"{day}T{clock}.000Z",
            f"{day}T{clock}+00:00",
            f"{day} {clock}",
        )
        for text in (*texts, f"{day:%Y-%m}"):
            try:
                if re.search(pattern, text):
                    return text
            except re.error:
                return None
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


# ----------------------------------------------------------------------------------------------
# The schemas tools bind to columns, and values that fit them.


def bound_schemas(spec: dict[str, Any]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The argument schemas that tools bind to each column, as `{(table, column): [schema, ...]}`.

    Keys, eq/ne filters, inserted and updated values bind the whole argument; an `in` filter binds
    its `items`; `contains` and range filters say nothing about a column's values. Keys and filters
    come first in each list: where arguments disagree (two enums), existing rows should be found.
    """
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    read_schemas: dict[tuple[str, str], list[dict[str, Any]]] = {}
    write_schemas: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for tool in spec.get("tools", []):
        op, props = tool["operation"], tool["parameters"].get("properties", {})
        # (an argument is named by a string; other forms, such as expressions, bind no schema)
        reads = [(c, props.get(a) if isinstance(a, str) else None) for c, a in op.get("key", {}).items()]
        for flt in op.get("filters", []):
            prop = props.get(flt.get("arg")) if isinstance(flt.get("arg"), str) else None
            if flt.get("op", "eq") in ("eq", "ne"):
                reads.append((flt["column"], prop))
            elif flt.get("op") == "in" and isinstance(prop, dict):
                reads.append((flt["column"], prop.get("items")))
        writes = [
            (c, props.get(a) if isinstance(a, str) else None)
            for c, a in {**op.get("values", {}), **op.get("set", {})}.items()
        ]
        for pairs, found in ((reads, read_schemas), (writes, write_schemas)):
            for column, prop in pairs:
                if isinstance(prop, dict) and set(prop) - _ANNOTATIONS:
                    found.setdefault((op["table"], column), []).append(prop)
    for key in {**read_schemas, **write_schemas}:
        out[key] = read_schemas.get(key, []) + write_schemas.get(key, [])
    return out


_FORMATS = frozenset(("date", "date-time", "time", "email", "idn-email", "uri", "url", "iri", "uuid"))


def _examples(schema: dict[str, Any]) -> list[str]:
    examples = schema.get("examples")
    return [e for e in examples if isinstance(e, str) and e.strip()] if isinstance(examples, list) else []


def _named_string(
    schema: dict[str, Any], rng: random.Random, now: dt.datetime, name: str, context: str
) -> str | None:
    """A string by the meaning of its name (`_leaf`), else one of the schema's `examples`, else `None`."""
    meaning = _leaf(name, context, "string", schema)
    examples = _examples(schema)
    if meaning == "unknown" and not examples:  # a string `quantity` or `weight` of nothing else: a number's
        as_number = _leaf(name, context, "number", schema) or ""
        meaning = (
            as_number if as_number.startswith("num:") and as_number[4:] not in ("int", "float") else meaning
        )
    if meaning in (None, "unknown") or (examples and rng.random() < 0.3 and meaning not in _OWN_PEOPLE):
        # never a person the API's document gives as its example: Apideck's every address had the contact
        # "Elon Musk" (seed 94's readers)
        return rng.choice(examples) if examples else None
    if meaning.startswith("num:"):
        # a dock's `cost` or a parcel's `weight` declared a string is still a number ("cost": "sure" was drawn)
        kind = "integer" if NUMBER_RANGES.get(meaning[4:], (0, 0, 2))[2] == 0 else "number"
        number = _meaning_number({}, kind, rng, meaning, now.year)
        if number is not None:
            return f"{number:.2f}" if meaning == "num:money" else str(number)
    texts = schema.get("description", "").lower() if isinstance(schema.get("description"), str) else ""
    value = string_value(Col(context, name, {"type": "string"}, meaning, rng, None, now, texts=texts), 0)
    return value if isinstance(value, str) else None


def _described_string(schema: dict[str, Any], rng: random.Random, now: dt.datetime) -> str | None:
    """A string for a schema without a name: one of its `examples`, else one of the meaning its
    description states ("The ID of your application" -> a UUID, "the keyword to search for" -> a
    query), else a value the description names ("i.e. 'mitosis' or 'meiosis'"), else `None`."""
    examples = _examples(schema)
    if examples and rng.random() < 0.5:
        return rng.choice(examples)
    texts = schema.get("description") if isinstance(schema.get("description"), str) else ""
    meaning = meaning_from_texts("", "", "string", None, texts.lower(), ()) if texts else "unknown"
    if meaning in ("id", "uuid"):  # an id of nothing named: a UUID
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    if meaning == "unknown" or meaning in _FAKER_MEANINGS:
        named = examples or list(named_values({}, [schema]))
        return rng.choice(named) if named else None
    value = string_value(Col("", "", {"type": "string"}, meaning, rng, None, now, texts=texts.lower()), 0)
    return value if isinstance(value, str) else None


def _format_value(fmt: Any, rng: random.Random, now: dt.datetime) -> str:
    """A string of a JSON Schema `format` (date, date-time, time, email, uri, uuid), else a word."""
    moment = now - dt.timedelta(seconds=rng.randrange(730 * 86400))
    if fmt == "date":
        return moment.date().isoformat()
    if fmt == "date-time":
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    if fmt == "time":
        return f"{rng.randrange(24):02d}:{rng.randrange(60):02d}:00"
    if fmt in ("email", "idn-email"):
        return email_for(pick_first_name(rng), pick_last_name(rng), rng)
    if fmt in ("uri", "url", "iri"):
        return f"https://www.{slug_of(pick_last_name(rng))}.com/"
    if fmt == "uuid":
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    return rng.choice(word_data().words)


def acceptor(schema: Any) -> Callable[[Any], bool]:
    """`schema_accepts(schema, value)` as a function of `value`, with the schema's checks compiled once."""
    if not isinstance(schema, dict):
        return lambda value: schema is not False
    if set(schema) <= _ANNOTATIONS | {"type"} and isinstance(schema.get("type", "string"), str | list):
        kinds = schema.get("type")
        if kinds is None:
            return lambda value: True
        kinds = [kinds] if isinstance(kinds, str) else kinds
        return lambda value: any(_is_type(value, kind) for kind in kinds)
    try:
        validator = _validator_of(json.dumps(schema, sort_keys=True, default=str))
    except (jsonschema.SchemaError, TypeError, ValueError, RecursionError):
        return lambda value: True

    def accepts(value: Any) -> bool:
        try:
            return validator.is_valid(value)
        except (jsonschema.SchemaError, TypeError, ValueError, RecursionError):
            return True

    return accepts


def fit_bound(
    value: Any,
    column_spec: dict[str, Any],
    schemas: list[dict[str, Any]],
    rng: random.Random,
    now: dt.datetime,
    accepts: Sequence[Callable[[Any], bool]] | None = None,
    *,
    name: str | None = None,
    context: str = "",
) -> Any:
    """`value`, or when some argument bound to its column rejects it, a value those arguments accept
    (drawn by the meaning of the column's `name` in its table, `context`, where the schema leaves room)."""
    accepts = [acceptor(s) for s in schemas] if accepts is None else accepts
    if all(a(value) for a in accepts):
        return value
    fallback = None
    for attempt in range(10):
        k = rng.randrange(len(schemas)) if attempt else 0  # the first (a key or filter) first
        candidate = schema_value(schemas[k], rng, now, name=name, context=context)
        if candidate is None or value_problem(column_spec, candidate) is not None:
            continue
        if all(a(candidate) for a in accepts):
            return candidate
        if fallback is None and accepts[k](candidate):
            fallback = candidate
    return value if fallback is None else fallback
