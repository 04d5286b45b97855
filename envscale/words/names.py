"""Identifiers as words: the words of a tool, column or table name, and a name that the OpenAI
function-name rule accepts.

Two splitters, for two readers (they differ on digits and on capitals run together, and each stage's
outputs depend on its own one, so they stay two):

- `tokens` reads a tool or argument name: digits are words of their own and a run of capitals is one
  word (`getHTTPStatus2` -> `get http status 2`). Collect, graph, materialize and tasks read names with it.
- `name_words` reads a column or table name for the data generator: digits are dropped and a run of
  capitals is one word with what follows (`getHTTPStatus2` -> `get httpstatus`).

Example:

```python
>>> from envscale.words.names import name_words, sanitize_name, tokens
>>> tokens("ChaDri.change_drink"), tokens("getHTTPStatus2")
(['cha', 'dri', 'change', 'drink'], ['get', 'http', 'status', '2'])
>>> name_words("shipToAddress2"), name_words("getHTTPStatus2")
(['ship', 'to', 'address'], ['get', 'httpstatus'])
>>> sanitize_name("café.commander v2!")
'cafe_commander_v2'
```
"""

from __future__ import annotations

import functools
import re
import unicodedata

from .inflect import singular

NAME_MAX = 64
"""The longest name the OpenAI function-calling rule accepts: ``^[a-zA-Z0-9_-]{1,64}$``."""
_NAME_BAD = re.compile(r"[^A-Za-z0-9_-]+")
_TOKEN = re.compile(
    r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+"
)  # `UserIDs`: user, ids (never i, ds)


def tokens(name: str) -> list[str]:
    """Lower-case word tokens of a name: `ChaDri.change_drink` -> ['cha', 'dri', 'change', 'drink']."""
    return [t.lower() for t in _TOKEN.findall(name)]


@functools.lru_cache(maxsize=65_536)
def glued_words(token: str) -> tuple[str, ...]:
    """The words of a lower-case token that an API ran together (`conferencecallinfo` -> conference, call, info;
    `internationaltransfer` -> international, transfer), by English word frequencies (`wordninja`). Only a
    long token (9 letters or more) that is no word itself (nor the plural of one) is split, only into words of 3
    letters or more (or `id`, `of`, `to`, ...), and never before an ending (`assign` + `ees`): `username`,
    `iban`, `sku`, `facilitator` and `availabilities` stay whole."""
    if len(token) < 9 or not token.isalpha():
        return (token,)
    import wordninja  # its language model loads on first use

    one = singular(token)
    if one != token and one in wordninja.DEFAULT_LANGUAGE_MODEL._wordcost:
        return (token,)  # `availabilities`: the plural of a word
    words = wordninja.split(token)
    if len(words) < 2 or "".join(words) != token:
        return (token,)
    if any(len(w) < 3 and w not in _SHORT_WORDS for w in words):
        return (token,)  # `facilitator` is no "fac il it at or", `recalculate` no "re calculate"
    if words[-1] in _SUFFIXES or token.startswith(_WHOLE_PREFIXES):
        return (token,)  # `assignees` is no "assign ees", `onboarding` no "on boarding"
    return tuple(words)


#: Two-letter words an API runs into others (`userid`, `signupto`); others are pieces of one word (`il`, `re`).
_SHORT_WORDS = frozenset(("id", "of", "to", "by", "up", "my", "me"))


#: Endings wordninja splits off as words of their own: a word with one is one word (`assign` + `ees`).
_SUFFIXES = frozenset(
    "ee ees er ers ing ings ed es ies ion ions ment ments able ability abilities ation ations ness less ful".split()
)
#: Words wordninja reads as two that are one (`on` + `boarding`).
_WHOLE_PREFIXES = (
    "onboard", "offboard", "workspace", "timesheet", "dashboard", "newsletter", "screenshot", "smartphone",
    "livestream", "spreadsheet", "healthcare", "storefront", "marketplace", "checkout",
)  # fmt: skip


def sanitize_name(name: str) -> str:
    """A name that satisfies the OpenAI function-name rule, or '' when nothing is left."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return _NAME_BAD.sub("_", ascii_name).strip("_")[:NAME_MAX]


def flag_state(name: str) -> str:
    """The state a yes/no field is named after: `is_archived`, `isAccepted`, `has_been_paid` -> `archived`,
    `accepted`, `paid` (words joined by `_`)."""
    return "_".join(w for w in tokens(name) if w not in ("is", "has", "been"))


def name_words(name: str) -> list[str]:
    """`shipToAddress2` -> `["ship", "to", "address"]` (digits dropped)."""
    return list(_split_words(name))


@functools.lru_cache(maxsize=65536)
def _split_words(name: str) -> tuple[str, ...]:
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()
    return tuple(w for w in re.split(r"[^a-z]+", text) if w)
