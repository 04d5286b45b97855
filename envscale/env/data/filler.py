"""Filler: string cells that do not fit their column's meaning, and how much of a state they make up.

`is_filler` reads a column's meaning (`meaning.column_meaning`) and checks the cell's shape against
it (`_FITS`: a person is 2-5 capitalised name words, an email is an address, a lexicon value is in
the lexicon, a description is sentence-like, ...); a value the spec itself allows (a bound enum,
const or pattern, one of `named_values`) always fits. `filler_counts` and `filler_share` measure a
whole state.

Example:

```python
>>> from envscale.env.data import is_filler
>>> is_filler("players", "name", {"type": "string"}, "Smart kettle")
True
>>> is_filler("players", "name", {"type": "string"}, "Maria Lopez")
False
```
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

from envscale.env.data.labels import is_label
from envscale.env.data.meaning import (
    column_meaning,
    column_texts,
    item_meaning,
    lower_tokens,
    named_values,
    string_meaning,
)
from envscale.env.data.schemas import bound_schemas
from envscale.env.data.values import FILLER_OBJECT_KEY
from envscale.env.data.vocabulary import STOCK, norm, word_data
from envscale.words.names import name_words

# ----------------------------------------------------------------------------------------------
# Shapes of checkable values.

_ID_SHAPE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/#@+-]{0,127}$")
_UUID_SHAPE = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")
_EMAIL_SHAPE = re.compile(r"^[A-Za-z0-9._%+'-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$")
_URL_SHAPE = re.compile(
    r"^(?:https?|ftp|s3|gs|wss?)://[^\s/$.?#][^\s]*$|^www\.[^\s]+\.[a-z]{2,}\S*$", re.IGNORECASE
)
_HOST_SHAPE = re.compile(r"^(?=.{3,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$")
_IPV4_SHAPE = re.compile(r"^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$")
_PHONE_SHAPE = re.compile(r"^\+?[\d\s().\-/]{7,20}(?:\s?(?:x|ext\.?)\s?\d{1,5})?$")
_NAME_TOKEN = re.compile(r"^(?:[A-Z][a-zA-Z'\u00C0-\u017F]*(?:-[A-Z][a-zA-Z'\u00C0-\u017F]*)?\.?|[A-Z]\.|(?:de|da|van|von|der|del|la|le|di|bin|al)|I{1,3}|IV|Jr\.?|Sr\.?)$")  # fmt: skip
_DATE_SHAPES = tuple(
    re.compile(p)
    for p in (
        r"^\d{4}-\d{2}-\d{2}$", r"^\d{4}/\d{2}/\d{2}$", r"^\d{1,2}/\d{1,2}/\d{4}$", r"^\d{1,2}-\d{1,2}-\d{4}$",
        r"^\d{1,2}\.\d{1,2}\.\d{4}$", r"^\d{4}-\d{2}$", r"^\d{2}-\d{4}$", r"^\d{4}$",
        r"^[A-Z][a-z]+ \d{1,2}, \d{4}$", r"^\d{1,2} [A-Z][a-z]+ \d{4}$",
    )
)  # fmt: skip
_DATETIME_SHAPE = re.compile(
    r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$"
)
_TIME_SHAPE = re.compile(
    r"^(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:\s?[AaPp][Mm])?$|^\d{1,2}\s?[AaPp][Mm]$"
)
_VERSION_SHAPE = re.compile(r"^v?\d+(?:\.\d+){1,3}(?:[-+.][0-9A-Za-z.]+)?$|^v?\d+$")
_CODE_SHAPE = re.compile(r"^(?=.*\d)[A-Za-z0-9][A-Za-z0-9 ._:/@*+#-]{1,119}$")


# ----------------------------------------------------------------------------------------------
# Fits by meaning, and the measures.


def _is_generic(value: str, *, stock: bool = True) -> bool:
    """All the letters of `value` spell lorem words (Faker's en_US and Latin lorem lists) or, with
    `stock`, the stock filler words of the old generator ("compact", "kettle", ...)."""
    tokens = lower_tokens(value)
    generic = word_data().generic if stock else word_data().generic - STOCK
    return bool(tokens) and all(t in generic for t in tokens)


def _is_proper_name(value: str, *, stock: bool = False) -> bool:
    """A name of something: 1-12 words starting with a capital letter or a digit, not only generic words."""
    words = value.split()
    return (
        0 < len(words) <= 12
        and (value[:1].isupper() or value[:1].isdigit())
        and not _is_generic(value, stock=not stock)
        and "@" not in value
        and "://" not in value
    )


def _is_person(value: str) -> bool:
    """Two to five capitalised name words (particles and initials allowed), none generic or stock."""
    words = value.replace(",", " ").split()
    if not 2 <= len(words) <= 5 or not all(_NAME_TOKEN.match(w) for w in words):
        return False
    d = word_data()
    lowered = [w.strip(".").lower() for w in words]
    if any(w in STOCK for w in lowered):
        return False
    return any(w in d.given or w in d.family for w in lowered) or not _is_generic(value)


def _is_single_name(value: str, names: frozenset[str]) -> bool:
    return (
        bool(_NAME_TOKEN.match(value))
        and (value.lower() in names or not _is_generic(value))
        and " " not in value
    )


_LEXICON_KINDS = {"service": ("service", "appointment_service", "stay_service", "streaming_service")}
"""Lexicons a value of a meaning may come from: a booking's service is a haircut, a stay's a breakfast."""


def _in_lexicon(value: str, name: str) -> bool:
    lexicons = word_data().lexicons
    return any(norm(value) in lexicons.get(n, frozenset()) for n in _LEXICON_KINDS.get(name, (name,)))


def _is_date(value: str) -> bool:
    return any(p.match(value) for p in _DATE_SHAPES) or bool(_DATETIME_SHAPE.match(value))


def _fits_location(value: str) -> bool:
    parts = [p.strip() for p in value.split(",")]
    if not 1 <= len(parts) <= 4 or not all(parts):
        return False
    return all(_is_proper_name(p) or norm(p) in word_data().country_set or p.isupper() for p in parts)


_CLOCK_SHAPE = re.compile(r"^\d{1,2}:\d{2}(:\d{2})?$|^\d{4}-\d{2}-\d{2}")

_FITS: dict[str, Callable[[str, str], bool]] = {
    "id": lambda v, a: (
        bool(_ID_SHAPE.match(v))
        and (any(ch.isdigit() for ch in v) or bool(_UUID_SHAPE.match(v)))
        and not _CLOCK_SHAPE.match(v)  # "07:45" in a user id is a time, not an id
    ),
    "uuid": lambda v, a: bool(_UUID_SHAPE.match(v)),
    "person": lambda v, a: _is_person(v),
    "people": lambda v, a: all(_is_person(p.strip()) for p in re.split(r",|;| and ", v) if p.strip()),
    "first_name": lambda v, a: _is_single_name(v, word_data().given),
    "last_name": lambda v, a: _is_single_name(v, word_data().family),
    "initials": lambda v, a: bool(re.match(r"^(?:[A-Z]\.?\s?){1,4}$", v)),
    "middle_name": lambda v, a: _is_single_name(v, word_data().given) or bool(re.match(r"^[A-Z]\.?$", v)),
    "username": lambda v, a: bool(re.match(r"^@?[A-Za-z0-9][A-Za-z0-9._-]{2,31}$", v)) and not _is_generic(v),
    "email": lambda v, a: bool(_EMAIL_SHAPE.match(v)),
    "phone": lambda v, a: bool(_PHONE_SHAPE.match(v)) and sum(ch.isdigit() for ch in v) >= 7,
    "company": lambda v, a: _is_proper_name(v) or _in_lexicon(v, "brand"),
    "job": lambda v, a: _is_proper_name(v) or _in_lexicon(v, "position"),
    "city": lambda v, a: _is_proper_name(v) and len(v.split()) <= 5 and not any(ch.isdigit() for ch in v),
    "state": lambda v, a: (
        v in word_data().states
        or v in word_data().states_abbr
        or _is_proper_name(v)
        or bool(re.match(r"^[A-Z]{2,3}$", v))
    ),  # fmt: skip
    "country": lambda v, a: norm(v) in word_data().country_set,
    "country_code": lambda v, a: (
        v.upper() in word_data().alpha2 or v.upper() in word_data().alpha3 or v.upper() in ("UK", "EU")
    ),  # fmt: skip
    "location": lambda v, a: _fits_location(v),
    "address": lambda v, a: (
        any(ch.isdigit() for ch in v) and len(lower_tokens(v)) >= 1 and len(v.split()) >= 2
    ),
    "street": lambda v, a: len(v.split()) >= 2 and not _is_generic(v),
    "zip": lambda v, a: bool(re.match(r"^(?=.*\d)[A-Za-z0-9][A-Za-z0-9 -]{2,9}$", v)),
    "airport": lambda v, a: (
        bool(re.match(r"^[A-Z]{3,4}$", v)) or ("airport" in v.lower() and _is_proper_name(v))
    ),
    "timezone": lambda v, a: bool(
        re.match(
            r"^(?:[A-Z][A-Za-z_+-]+(?:/[A-Za-z0-9_+-]+){1,2}|UTC|GMT|Z|(?:UTC|GMT)?[+-]\d{1,2}(?::?\d{2})?|[A-Z]{2,5})$",
            v,
        )
    ),  # fmt: skip
    "coord": lambda v, a: bool(re.match(r"^-?\d{1,3}(?:\.\d+)?\s*,\s*-?\d{1,3}(?:\.\d+)?$", v)),
    "url": lambda v, a: bool(_URL_SHAPE.match(v)),
    "domain": lambda v, a: bool(_HOST_SHAPE.match(v) or _IPV4_SHAPE.match(v)) or v == "localhost",
    "ip": lambda v, a: bool(_IPV4_SHAPE.match(v)) or (":" in v and bool(re.match(r"^[0-9a-fA-F:]+$", v))),
    "path": lambda v, a: bool(
        re.match(r"^(?:[A-Za-z]:\\|\\\\|/|~/|\./|\.\./|[\w.-]+/)\S*|^[\w.-]+\.[A-Za-z0-9]{1,5}$", v)
    ),  # fmt: skip
    "directory": lambda v, a: ("/" in v or "\\" in v) and " " not in v.strip(),
    "filename": lambda v, a: bool(re.match(r"^[\w.-]+\.[A-Za-z0-9]{1,5}$", v)) or "/" in v,
    "mime": lambda v, a: bool(re.match(r"^[a-z]+/[A-Za-z0-9.+-]+$", v)),
    "user_agent": lambda v, a: "/" in v and len(v) > 10,
    "currency": lambda v, a: (
        v.upper() in word_data().currencies or norm(v) in word_data().currency_names or v in "$€£¥"
    ),
    "language": lambda v, a: (
        v in word_data().languages
        or _in_lexicon(v, "language_code")
        or bool(re.match(r"^[a-z]{2}(?:[-_][A-Z]{2})?$", v))
    ),  # fmt: skip
    "locale": lambda v, a: bool(re.match(r"^[a-z]{2,3}(?:[-_][A-Za-z]{2,4})?$", v)),
    "color": lambda v, a: (
        norm(v) in word_data().color_set
        or bool(re.match(r"^#?[0-9A-Fa-f]{6}$|^#[0-9A-Fa-f]{3}$|^rgba?\(", v))
    ),  # fmt: skip
    "date": lambda v, a: _is_date(v),
    "datetime": lambda v, a: bool(_DATETIME_SHAPE.match(v)) or _is_date(v),
    "time": lambda v, a: bool(_TIME_SHAPE.match(v)) or bool(_DATETIME_SHAPE.match(v)),
    "year": lambda v, a: bool(re.match(r"^\d{4}$", v)),
    "period": lambda v, a: bool(re.search(r"\d", v)) or _in_lexicon(v, "frequency"),
    "duration": lambda v, a: bool(re.search(r"\d", v)),
    "version": lambda v, a: bool(_VERSION_SHAPE.match(v)),
    "code": lambda v, a: bool(_CODE_SHAPE.match(v)),
    "secret": lambda v, a: " " not in v and len(v) >= 4 and any(ch.isdigit() for ch in v),
    "text": lambda v, a: (
        (len(v.split()) >= 3 or (len(v.split()) >= 2 and v.rstrip()[-1:] in ".!?")) and not _is_generic(v)
    ),
    "title": lambda v, a: _is_proper_name(v, stock=a == "product") and len(v.split()) <= 15,
    # a name the generator's curated vocabulary makes ("Customer Success Team", "Head Office") is a name, though
    # its words are common ones
    "named": lambda v, a: _is_proper_name(v, stock=a == "product") or (a != "product" and is_label(v)),
    "query": lambda v, a: 0 < len(v.split()) <= 10 and not _is_generic(v),
    "lex": lambda v, a: _in_lexicon(v, a),
    "status": lambda v, a: _in_lexicon(v, "status"),
    "word": lambda v, a: bool(v.strip()) and " " not in v.strip(),
    "entity": lambda v, a: bool(re.match(r"^[a-z][a-z_ ]{1,40}$", v)),
    "slug": lambda v, a: bool(re.match(r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$", v)) and not _is_generic(v),
    "num": lambda v, a: bool(re.match(r"^-?\$?\d[\d,]*(?:\.\d+)?%?$", v)),
    "odata_type": lambda v, a: bool(re.match(r"^#[A-Za-z][\w]*(?:\.[A-Za-z]\w*)+$", v)),
    "unknown": lambda v, a: not _is_generic(v),
}


def is_filler(
    table: str,
    column: str,
    column_spec: dict[str, Any],
    value: Any,
    *,
    arguments: Sequence[Any] = (),
    primary_key: bool = False,
) -> bool:
    """Whether a cell is filler: a value that does not fit its column's meaning.

    Strings are judged by the column's meaning (below); JSON values by their shape: an object is
    filler when it is the last-resort object of a column whose name says nothing
    (`{"tags": ["bug", "backend"]}` in `users.credentials`; a `tags` column may hold it), a list when
    its name says what its items are (`product_list`, `emails`, `ingredients`) and an item does not
    fit that (`["would"]` in `product_list`), or an item is such an object. Anything else (numbers,
    booleans, `None`) is not filler.

    A string's meaning is `column_meaning(table, column, column_spec, arguments)`, read from the column
    alone, never from how the value was made; a value is filler when:

    - key columns (the primary key, a `references` column, `*_id`): it is not id-shaped (no spaces,
      with a digit, or a UUID), e.g. a word such as `"compact-jacket"` in `orders.customer_id`;
    - an `enum` column: it is not in the enum;
    - a column of a checkable shape (person names, first/last names, emails, usernames, phones,
      dates, datetimes, times, years, urls, domains, IPs, paths, file names, MIME types, UUIDs, ids,
      codes, versions, secrets, ISO country codes, countries, currencies, languages, locales, time
      zones, colors, zip codes, coordinates, cities, `City, ST` locations, addresses): it does not
      have that shape. A person name is 2-5 capitalised name words, at least one of them a known
      given or family name or not a lorem word, none a stock product word: "Smart kettle" in
      `players.name` is filler, "Maria Lopez" is not;
    - a column of a small vocabulary (`lex:*`, statuses: units, genres, sports, platforms, leagues,
      ...): it is not in the vocabulary (a lexicon of real values; case and separators ignored);
    - named things (companies, teams, hotels, films, products, titles, ...): it is not a proper name
      (1-12 words from a capital or a digit) or all its words are generic, i.e. lorem words
      (Faker's en_US and Latin lists) or, outside product columns, the old stock filler words;
    - free text (descriptions, notes, messages): it is not sentence-like (fewer than 3 words);
    - search queries, and columns whose meaning is not recognised at all: all its words are generic.

    A value the spec itself allows always fits: one in the `enum` or `const` of a bound argument, one
    matching a bound argument's `pattern`, and, for vocabularies, named things, titles and unknown
    meanings, one the spec names (`named_values`: defaults, examples, quoted and "e.g." values).

    Args:
        table (`str`): The table.
        column (`str`): The column.
        column_spec (`dict`): The column's spec.
        value (`Any`): The cell.
        arguments (`Sequence[dict]`, *optional*): JSON Schemas of the tool arguments bound to the
            column (`bound_schemas(spec).get((table, column), [])`); `filler_share` passes them.
        primary_key (`bool`, *optional*, defaults to `False`): The column is its table's primary key.

    Returns:
        `bool`: `True` when the value is filler.
    """
    if isinstance(value, dict | list):
        return _is_filler_json(table, column, value, arguments)
    if not isinstance(value, str):
        return False
    meaning = _cell_meaning(table, column, column_spec, arguments, primary_key)
    return _is_filler_value(meaning, value, column_spec, arguments)


def _cell_meaning(
    table: str, column: str, column_spec: dict[str, Any], arguments: Sequence[Any], primary_key: bool
) -> str:
    """The meaning a string cell is judged by: its column's, or for a string in a json column, the
    meaning of the column's name as a string column (`user_id` holds an id)."""
    meaning = column_meaning(table, column, column_spec, arguments, primary_key=primary_key)
    if meaning == "json":
        meaning = string_meaning(table, column, column_texts(column_spec, arguments), ())
    return meaning


_TAG_WORDS = frozenset("tag tags label labels keyword keywords hashtag hashtags flag flags".split())


def _is_filler_json(table: str, column: str, value: Any, arguments: Sequence[Any]) -> bool:
    """A JSON cell that is filler (see `is_filler`): the last-resort object, or a list whose items do
    not fit what its name says they are."""
    if isinstance(value, dict):
        if set(value) != {FILLER_OBJECT_KEY} or set(name_words(column)) & _TAG_WORDS:
            return False
        tags = value[FILLER_OBJECT_KEY]
        lexicon = word_data().lexicons["tag"]
        return isinstance(tags, list) and all(isinstance(t, str) and norm(t) in lexicon for t in tags)
    if any(isinstance(item, dict) and _is_filler_json(table, column, item, ()) for item in value):
        return True
    found = item_meaning(table, column)
    if found is None:
        return False
    _, meaning = found
    items = [a["items"] for a in arguments if isinstance(a, dict) and isinstance(a.get("items"), dict)]
    return any(
        isinstance(item, str) and _is_filler_value(meaning, item, {"type": "string"}, items) for item in value
    )


_NAMED_FIT = frozenset(
    ("lex", "status", "named", "title", "unknown", "query", "word", "code", "company", "job")
)


def _is_filler_value(meaning: str, value: str, column_spec: dict[str, Any], arguments: Sequence[Any]) -> bool:
    if meaning == "enum":
        return value not in column_spec["enum"]
    for arg in arguments:
        if not isinstance(arg, dict):
            continue
        if value in (arg.get("enum") or ()) or ("const" in arg and value == arg["const"]):
            return False
        if isinstance(arg.get("pattern"), str):
            try:
                if re.search(arg["pattern"], value):
                    return False
            except re.error:
                pass
    kind, _, arg = meaning.partition(":")
    if kind not in ("enum", "lex", "status") and is_catch_phrase(value):
        return True
    if kind in _NAMED_FIT and (arguments or column_spec.get("description")):
        named = named_values(column_spec, arguments)
        if value in named or norm(value) in {norm(v) for v in named}:
            return False
    check = _FITS.get(kind, _FITS["unknown"])
    return not check(value.strip(), arg)


def is_catch_phrase(value: str) -> bool:
    """Whether a string is a made-up business catch phrase (Faker's `catch_phrase`: "Upgradable heuristic
    help-desk", "Adaptive 24/7 access"): an adjective, a buzzword and a noun from its lists, which no
    title, name or text a person writes reads like."""
    words = value.strip().split()
    if len(words) != 3:
        return False
    return all(norm(w) in part for w, part in zip(words, _buzz_words(), strict=True))


@functools.lru_cache(maxsize=1)
def _buzz_words() -> tuple[frozenset[str], ...]:
    return tuple(frozenset(norm(b) for b in part) for part in word_data().buzz)


def filler_counts(
    spec: dict[str, Any], state: dict[str, list[dict[str, Any]]]
) -> dict[tuple[str, str], tuple[int, int]]:
    """Filler and string cells per column, `{(table, column): (filler, strings)}`, for string cells only
    (columns without string cells are left out). See `is_filler`."""
    bound = bound_schemas(spec)
    out: dict[tuple[str, str], tuple[int, int]] = {}
    for table, rows in state.items():
        tspec = spec["tables"][table]
        for column, cspec in tspec["columns"].items():
            args = bound.get((table, column), [])
            meaning = _cell_meaning(table, column, cspec, args, column == tspec["primary_key"])
            filler = strings = 0
            for row in rows:
                value = row.get(column)
                if isinstance(value, str):
                    strings += 1
                    filler += _is_filler_value(meaning, value, cspec, args)
            if strings:
                out[table, column] = (filler, strings)
    return out


def filler_share(spec: dict[str, Any], state: dict[str, list[dict[str, Any]]]) -> float:
    """The share of a state's string cells that are filler (`is_filler`), 0.0 for a state without strings.

    Example:

    ```python
    >>> from envscale.env.data import filler_share, generate_state
    >>> from envscale.env.spec import load_spec
    >>> spec = load_spec("tests/fixtures/envs/shop.yaml")
    >>> filler_share(spec, generate_state(spec, seed=0)) <= 0.2
    True
    ```
    """
    counts = filler_counts(spec, state).values()
    strings = sum(s for _, s in counts)
    return sum(f for f, _ in counts) / strings if strings else 0.0
