"""The user's vocabulary: how identifiers, values and verbs are said (`unit_price` -> "unit price",
`49.9` -> "49.90", `cancel` -> "cancelled"), and whether a text states a value (`mentions`).

`envscale.tasks.intent` builds requests from these words; `envscale.tasks.rewrite` checks an LLM's
rewrite with `mentions` and `tool_names_in`. Everything here is a pure function of its arguments.

Example:

```python
>>> from envscale.tasks.wording import describe, mentions
>>> mentions("Please change it to 120 units", 120.0)
True
>>> describe("Deletes a given pickup point for your store.")
('delete', 'pickup point')
```
"""

from __future__ import annotations

import re
from typing import Any

from ..words.inflect import plural, singular
from ..words.names import glued_words, tokens
from ..words.semantics import DELETE_VERBS
from ..words.verbs import RETIRED_STATUSES, act_said

# ----------------------------------------------------------------------------- words

TOKEN_WORDS = {
    "qty": "quantity",
    "desc": "description",
    "num": "number",
    "amt": "amount",
    "loc": "location",
    "addr": "address",
    "msg": "message",
    "pwd": "password",
    "sku": "SKU",
    "vip": "VIP",
    "url": "URL",
    "ip": "IP",
    "api": "API",
    "sms": "SMS",
    "pin": "PIN",
    "iban": "IBAN",
    "cvv": "CVV",
}
_UNIT_SUFFIXES = {
    "mins": "in minutes",
    "secs": "in seconds",
    "sec": "in seconds",
    "hrs": "in hours",
    "ms": "in milliseconds",
    "pct": "percentage",
    "kb": "in KB",
    "mb": "in MB",
    "gb": "in GB",
}
"""A unit run into a field's name, said as a person says it (a blind reader: "set its travel time mins to 72");
`min` (`price_min` is a minimum) and `hr` are left as they are; only a last word after a noun is a unit."""
_PHRASES = {
    "due": "due date",  # "check the due of the task" (seed 92's readers)
    "due days": "payment terms in days",
    "email": "email address",
    "e mail": "email address",
    "phone": "phone number",
    "mobile": "mobile number",
    "tel": "phone number",
    "zip": "ZIP code",
    "zipcode": "ZIP code",
    "dob": "date of birth",
    "created at": "creation date",
    "updated at": "last update",
    "created": "creation date",
    "created on": "creation date",
    "created date": "creation date",
    "created time": "creation time",
    "create time": "creation time",
    "updated": "last update",
    "modified": "last update",
    "last modified": "last update",
    "last updated": "last update",
    "updated time": "last update",
    "update time": "last update",
    "created by": "creator",
    "updated by": "last editor",
    "modified by": "last editor",
    "last modified by": "last editor",
    "last updated by": "last editor",
    "full name": "full name",
    "starts at": "start time",
    "ends at": "end time",
    "start at": "start time",
    "end at": "end time",
    "begins at": "start time",
    "lat": "latitude",
    "lng": "longitude",
    "lon": "longitude",
    "long": "longitude",
}
NUMBERED = frozenset(
    "order invoice ticket booking reservation account case claim policy flight shipment tracking "
    "transaction payment receipt confirmation incident request return refund loan card room seat "
    "membership subscription contract quote".split()
)
"""Entities people refer to by a number ("order number"); the others by an id ("customer id")."""
GENERIC_COLUMNS = frozenset(
    "name title description type status state note notes category kind code label comment reason level "
    "priority value amount total date stage".split()
)
"""Columns whose bare name says little: named with their entity ("order status", "product name")."""
STATUS_COLUMNS = re.compile(r"^(status|state|stage|phase)$|_(status|state)$")
DATE_COLUMNS = re.compile(r"(^|_)(date|time|timestamp|datetime)$|_at$|_on$|^(created|updated|modified)$")
PRICE_COLUMNS = re.compile(r"(^|_)(price|cost|fee|fare|rate)$")
QUOTED = frozenset(
    "note notes comment message text description title name reason subject body summary content caption bio".split()
)
PREFIXES = {
    "from": "source",
    "src": "source",
    "source": "source",
    "to": "destination",
    "dst": "destination",
    "dest": "destination",
    "destination": "destination",
    "target": "target",
    "old": "old",
    "new": "new",
    "parent": "parent",
    "origin": "origin",
    "primary": "primary",
    "secondary": "secondary",
}
GENERIC_DELTA = frozenset("delta value by change n diff increment decrement step".split())
NOTES = frozenset("reason note notes comment comments remark remarks memo".split())
"""Columns that annotate a change (`reason`, `resolution_note`): named without `new`."""
ON_ACCOUNT = frozenset("email phone mobile address name number card password username".split())
"""What is `on` an account ("the email address on my account"); the rest is `of` it."""
PEOPLE = (
    "customer user client member patient passenger guest traveler traveller student employee driver rider "
    "buyer subscriber player owner person account"
).split()
"""Tables that hold the people a user could be, in order of preference (`customers` before `accounts`)."""

UNCOUNTABLE = frozenset("media music audio video sound data information content weather news traffic".split())
_IRREGULAR = {
    "send": "sent",
    "make": "made",
    "buy": "bought",
    "write": "written",
    "hold": "held",
    "pay": "paid",
    "set": "set",
    "put": "put",
    "reset": "reset",
    "get": "got",
    "find": "found",
    "sell": "sold",
    "cancel": "cancelled",
    "label": "labelled",
    "refuel": "refuelled",
    "enrol": "enrolled",
    "shut": "shut",
    "run": "run",
    "begin": "begun",
    "upload": "uploaded",
    # "you leaved the group" (seed 88's readers)
    "leave": "left",
    "hide": "hidden",
    "unhide": "unhidden",
    "take": "taken",
    "give": "given",
    "choose": "chosen",
    "keep": "kept",
    "lose": "lost",
    "bring": "brought",
    "build": "built",
    "rebuild": "rebuilt",
    "resend": "resent",
    "withdraw": "withdrawn",
    "draw": "drawn",
    "throw": "thrown",
    "undo": "undone",
    "redo": "redone",
    "split": "split",
    "quit": "quit",
    "forget": "forgotten",
    "feed": "fed",
    "lead": "led",
    "meet": "met",
    "tell": "told",
    "read": "read",
    "bind": "bound",
    "unbind": "unbound",
    "freeze": "frozen",
    "unfreeze": "unfrozen",
    "rerun": "rerun",
}


PLACEHOLDER_ARGS = frozenset(
    "optional_param optional_params param params parameter parameters arg args arg1 arg2 arg3 argument "
    "arguments flag flags extra extras option options opts kwargs kw dummy placeholder unused reserved".split()
)
"""Argument names that say nothing about what they hold (`optional_param`, `arg1`, `kwargs`): a person
never states them, so the task generator leaves them out of a call or drops the task."""


def is_placeholder(arg: str) -> bool:
    """Whether an argument's name is a placeholder (`optional_param`, `arg1`, `extraOptions`), compared on
    its words run together (`optionalParam` is `optional_param`)."""
    words = tokens(arg)
    joined = "_".join(words)
    return bool(words) and (
        joined in PLACEHOLDER_ARGS
        or "".join(words) in PLACEHOLDER_ARGS
        or all(w in PLACEHOLDER_ARGS for w in words)
    )


_DESCRIBED_VERBS = frozenset(
    "create add place book reserve register schedule send submit open buy purchase rent hire invite follow "
    "subscribe enroll post upload apply request file report raise update change edit modify set rename move "
    "transfer assign reassign reset restore rate tag label pin unpin mute unmute star upgrade extend "
    "reschedule renew deposit withdraw charge pay refund release lock unlock mark adjust delete remove erase "
    "discard cancel unsubscribe unfollow revoke detach archive publish unpublish activate deactivate enable "
    "disable approve reject confirm accept decline verify close capture resend invite run execute trigger "
    "acknowledge merge sign dispatch suspend unsuspend".split()
)
"""Verbs a description may lend a request ("Deletes a pickup point" -> "delete")."""
_DESCRIBED_SKIP = frozenset(
    "a an the one given specific single new existing current all any your their its this that "
    "particular individual specified selected".split()
)
_DESCRIBED_STOP = frozenset(
    "for by from in on of to with using and or that which within at into if when as based via after "
    "before while so".split()
)


def describe(description: str | None) -> tuple[str, str] | None:
    """The verb and the object a tool's description starts with: `("delete", "pickup point")` for
    "Deletes a given pickup point for your store". Each line (a title line first) and, after a "Tool
    description:" preamble, its text are tried in turn; a sentence that does not start with a known verb
    (`_DESCRIBED_VERBS`) and a short object (1-3 words) is skipped. `None` when none does."""
    text = description or ""
    if "Tool description:" in text:
        text = text.split("Tool description:", 1)[1]
    for line in re.split(r"\n+|\s\|\s|(?<=[.!?])\s+", text)[:4]:
        words = re.findall(r"[A-Za-z][A-Za-z'-]*|[^\sA-Za-z]", line.strip())
        if not words:
            continue
        verb = words[0].lower()
        base = next(
            (
                v
                for v in (verb, verb[:-1], verb[:-2], verb[:-1] + "e" if verb.endswith("es") else "")
                if v in _DESCRIBED_VERBS
            ),
            None,
        )
        if base is None or verb not in (base, base + "s", base + "es"):
            continue
        obj: list[str] = []
        for word in words[1:]:
            low = word.lower()
            if not obj and low in _DESCRIBED_SKIP:
                continue
            if low in _DESCRIBED_STOP or not re.fullmatch(r"[A-Za-z][A-Za-z-]*", word):
                break
            obj += tokens(word)
        if 1 <= len(obj) <= 3:
            obj[-1] = singular(obj[-1])
            return base, " ".join(TOKEN_WORDS.get(w, w) for w in obj)
    return None


_ID_WORDS = frozenset(
    "paid valid invalid void avoid squid android fluid rapid solid humid liquid acid hybrid vivid stupid "
    "timid lucid candid pyramid druid orchid splendid".split()
)
"""Words ending in `id` that are not an identifier run together (`orgid` is `org id`, `paid` is a word)."""


def _split_id(token: str) -> list[str]:
    """`orgid` -> `org id`, `projectuuid` -> `project uuid`: a key suffix run into its entity's name."""
    for suffix in ("uuid", "id"):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3 and token not in _ID_WORDS:
            return [token[: -len(suffix)], suffix]
    return [token]


def readable_words(name: str) -> str:
    """Readable words of an identifier: `unit_price` -> `unit price`, `email` -> `email address`,
    `orgid` -> `org id`."""
    toks = [
        w for t in tokens(name) for g in glued_words(t) for w in _split_id(g) if t != "deprecated"
    ] or tokens(name)
    if len(toks) > 2 and toks[0] == "x" and re.match(r"^x-", name, re.IGNORECASE):
        toks = toks[1:]  # a header `X-Apideck-App-Id` -> "apideck app id"
    # `no_of_guests` -> "number of guests"; `no_authorization_required` is a flag, never a count
    negated = toks[0] == "no" and toks[-1].endswith("ed")
    if len(toks) > 1 and toks[0] in ("num", "no", "n") and not negated:
        toks = ["number", "of", *toks[2 if toks[1] == "of" else 1 :]]
    if len(toks) > 1 and toks[-1] in _UNIT_SUFFIXES:  # `travel_time_mins` -> "travel time in minutes"
        toks = [*toks[:-1], *_UNIT_SUFFIXES[toks[-1]].split()]
    if len(toks) > 1 and toks[-1] in ("utc", "gmt", "iso", "local"):
        # `confirmed_date_utc` -> "confirmed date" (seed 88's readers: "its confirmed date utc")
        toks = toks[:-1]
    if len(toks) == 2 and toks[0] in ("date", "time") and toks[1] in _DATED:
        # Avaza's `date_start`, `date_due`: "the start date", never "the date start" (seed 93's readers)
        toks = [_DATED[toks[1]], toks[0]]
    phrase = " ".join(toks)
    if phrase in _PHRASES:
        return _PHRASES[phrase]
    if len(toks) == 2 and toks[1] in ("at", "on") and toks[0].endswith("ed"):  # `declined_at`
        return f"{toks[0]} date"
    return " ".join(TOKEN_WORDS.get(t, t) for t in toks) or name


_DATED = {
    "start": "start", "end": "end", "due": "due", "completed": "completion", "created": "creation",
    "modified": "modification", "updated": "update", "closed": "closing", "paid": "payment", "sent": "sending",
}  # fmt: skip
"""The noun a date or a time named `date_<word>` is of."""


def col_words(column: str, arg: str | None = None) -> str:
    """Words of a column, or of the argument bound to it when the column is the argument's name run
    together (`fuelamount` for `fuelAmount` -> `fuel amount`)."""
    if (
        arg
        and column.lower() == re.sub(r"[^a-z0-9]", "", arg.lower())
        and len(tokens(arg)) > len(tokens(column))
    ):
        return readable_words(arg)
    if arg:  # `git_change_directory_name` for `directory_name`: the column repeats its tool's words first
        col, own = tokens(column), tokens(arg)
        if own and len(col) >= len(own) + 2 and col[-len(own) :] == own:
            return readable_words(arg)
    return readable_words(column)


_TRAILING_PARTICLES = frozenset("by at on in of to from for with out up off into via per than".split())
_BARE_MOMENTS = frozenset("start end begin finish since until".split())
_ED_NOUNS = frozenset("hundred kindred sacred embed".split())
_MOMENT_SHAPE = re.compile(r"\d{4}-\d\d-\d\d|\d{1,2}:\d\d")


def said_as_noun(column: str, arg: str | None = None, value: Any = None) -> bool:
    """Whether a column, asked about or used to describe a row, reads as a noun phrase a person says: "the
    creation date of status sta_0004" (`created`, see `_PHRASES`), never "the created of ...", "the feature
    with wanted by 78" (a trailing preposition), "the directories with a no" (a one-letter flag), "the city 1
    of ..." (a numbered column), "the feature with start 42.63" (`start`/`end` name a moment only when the
    value is a date or a time) or a column run together from more than four words
    (`update_booking_version_at_timestamp`). A flag (`bool` value) is said by its adjective ("archived"), so
    participles are refused only for other values."""
    words = col_words(column, arg).split()
    if not words or len(words) > 4:
        return False
    last = words[-1].lower()
    if last in _TRAILING_PARTICLES or len(words) == 1 and len(last) == 1:
        return False  # "the feature with wanted by 78", "the directories with a no" (`ls(a=False)`)
    if last.isdigit() and (len(words) < 2 or words[-2].lower() not in ("line", "address")):
        return False
    if (
        not isinstance(value, bool)
        and last.endswith("ed")
        and not last.endswith("eed")
        and len(last) > 4
        and last not in _ED_NOUNS
    ):
        return False  # "the created of ...", "the feature with deleted ..."
    if len(words) == 1 and last in _BARE_MOMENTS:
        return isinstance(value, str) and bool(_MOMENT_SHAPE.match(value))
    return True


def plural_phrase(phrase: str) -> str:
    head, _, last = phrase.rpartition(" ")
    if not last:
        return phrase
    word = last[:-2] + "es" if last.endswith("is") and len(last) > 3 else plural(last)  # analysis -> analyses
    return f"{head} {word}".strip()


def article(phrase: str) -> str:
    word = phrase.split(" ", 1)[0] if phrase else ""
    if word.isupper() and len(word) > 1:
        return "an" if word[0] in "AEFHILMNORSX" else "a"
    low = word.lower()
    if re.match(r"u[bcdfgklmnprstvz][aeiou]|eu|one|uni", low):
        return "a"
    if re.match(r"hour|honest|honou?r", low):
        return "an"
    return "an" if low[:1] in ("a", "e", "i", "o", "u") else "a"


def participle(verb: str) -> str:
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and len(verb) > 2 and verb[-2] not in "aeiou":
        return verb[:-1] + "ied"
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnprt]", verb) and len(verb) <= 4:
        return verb + verb[-1] + "ed"
    return verb + "ed"


def join(items: list[str], word: str = "and") -> str:
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {word} " + items[-1]


def free_text(value: str) -> bool:
    """A value that is a sentence rather than a name or code: quoted when said."""
    return len(value.split()) >= 4 or value.rstrip().endswith((".", "!", "?"))


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# ----------------------------------------------------------------------------- values


_CODES = frozenset("POST PATCH DELETE HEAD OPTIONS TRACE CONNECT".split())
"""Values in capitals that are codes, kept as written (HTTP methods); shorter ones (`USD`, `GET`) are kept too."""


def format_value(value: Any, enum: bool = False) -> str:
    """A value as a person writes it: `120.0` -> `120`, `49.9` -> `49.90`, an enum `in_transit` -> `in transit`."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value.is_integer():
            return str(int(value))
        return f"{value:.2f}" if round(value, 2) == value else repr(value)
    if isinstance(value, str):
        if enum and value.isupper() and len(value) >= 4 and value not in _CODES:
            value = value.lower()  # "mark it as submitted", never "as SUBMITTED" (seed 88's readers)
        return value.replace("_", " ") if enum and " " not in value else value
    if isinstance(value, list):
        return join([format_value(v, enum) for v in value])
    if isinstance(value, dict):
        # "download off, modify on", 'from guest "Late check-in, please."' (seed 93's and 94's readers: "auto assign
        # no", "to from guest Brian Kelley", the JSON read out loud)
        return ", ".join(
            f"{readable_words(str(k))} {_field_value(v, enum)}" for k, v in value.items() if v is not None
        )
    return str(value)


def _field_value(value: Any, enum: bool) -> str:
    """A field's value inside an object as a person says it: a flag on or off, a sentence in quotes."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, str) and free_text(value):
        return f'"{value}"'
    return format_value(value, enum)


_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w])")


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower().replace("_", " ")).strip()


def squash(name: str) -> str:
    """A name with case and separators dropped: `organizerKey` and `organizer_key` are `organizerkey`."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def mentions(text: str, value: Any) -> bool:
    """Whether `text` states `value`: a number as any spelling of it (`120`, `120.0`), a string
    case-insensitively as a whole word (underscores read as spaces), a list or mapping when all its
    values are there. Booleans and nulls cannot be looked up in text and count as mentioned.

    ```python
    >>> mentions("Please change it to 120 units", 120.0), mentions("order ord_0007", "ORD_0007")
    (True, True)
    >>> mentions("my order ord_0007", 7)
    False
    ```
    """
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, (int, float)):
        return any(abs(float(n) - float(value)) < 1e-9 for n in _NUMBER.findall(text.replace(",", "")))
    if isinstance(value, (list, tuple)):
        return all(mentions(text, v) for v in value)
    if isinstance(value, dict):
        return all(mentions(text, v) for v in value.values())
    needle = norm(str(value))
    if not needle:
        return True
    return re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", norm(text)) is not None


def _looks_like_identifier(name: str) -> bool:
    """A tool name a person would never write (`cancel_order`, `getOrder`, `Hotels_4`), as opposed to a
    plain word (`find`, `du`) that cannot be told apart from ordinary language."""
    return bool(re.search(r"[_\-.\d]|[a-z][A-Z]", name))


def tool_names_in(text: str, names: Any) -> list[str]:
    """The identifier-like tool names (see `_looks_like_identifier`) that `text` contains, sorted."""
    found = []
    for name in sorted(set(names)):
        if (
            name
            and _looks_like_identifier(name)
            and re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text, re.I)
        ):
            found.append(name)
    return found


COLUMN_NAME = re.compile(r"\b[a-z][a-z0-9]*_(?:id|ids|uuid)\b|\b[a-z]+Id\b")


def unwrap(result: Any) -> Any:
    if isinstance(result, dict) and "ok" in result and "result" in result:
        return result["result"]
    return result


def same_value(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(float(a) - float(b)) < 1e-9
    if (
        isinstance(a, (int, float))
        and isinstance(b, str)
        or isinstance(b, (int, float))
        and isinstance(a, str)
    ):
        return str(a) == str(b)
    return a == b


# ----------------------------------------------------------------------------- request vocabulary

READS = ("get", "list", "count")


ROLES = frozenset(
    "stylist doctor dentist therapist trainer teacher instructor tutor lawyer agent driver guide host "
    "speaker owner contact manager assignee reviewer author artist player coach nurse physician barber".split()
)
"""People named by their role ("stylist Vanessa Anderson")."""
ADJECTIVES = frozenset("active public private visible hidden default primary open locked free".split())
"""One-word flags said as themselves ("public", "not active")."""
DESCRIBED_NOT_THINGS = frozenset("api v1 v2 v3 new get post put by id all one my the a".split())
WHEN_OF = frozenset(
    "visit appointment event travel departure delivery booking reservation meeting session class lesson "
    "pickup flight trip show concert match game".split()
)
"""Things whose date and time say when they happen ("visit date" -> "on 2025-08-17")."""
NOMINAL_ENDINGS = frozenset(
    ("", "e", "s", "es", "ing", "ings", "ion", "ions", "ation", "ations", "ment", "ments", "al")
)
"""What turns a verb into the noun of its action (`follow` -> `following`, `activate` -> `activation`)."""


def names_the_act(entity: str, verb: str) -> bool:
    """Whether `entity` names the action of `verb` (`following` of `follow` or `unfollow`, `activation` of
    `activate`)."""
    head = entity.split(" ")[-1]
    verb = verb[2:] if verb.startswith("un") and not head.startswith("un") else verb
    stem = verb[:-1] if verb.endswith("e") else verb
    return len(stem) >= 3 and head.startswith(stem) and head[len(stem) :] in NOMINAL_ENDINGS


PREPOSITIONS = (
    ("from", frozenset(("from", "origin", "source", "departure", "departure city", "from city", "origin city",
                        "departure location", "start location", "pickup location", "departure airport",
                        "origin airport")), None),
    ("to", frozenset(("to", "destination", "dest", "destination city", "to city", "arrival city",
                      "destination location", "dropoff location", "destination airport", "arrival airport",
                      "recipient", "where to", "going to")), None),
    ("from", frozenset(("check in date", "checkin date", "check in", "arrival date", "start date", "from date")),
     re.compile(r"^\d{4}-\d\d-\d\d$|^\d{1,2}/\d{1,2}/\d{4}$")),
    ("until", frozenset(("check out date", "checkout date", "check out", "departure date", "end date", "to date")),
     re.compile(r"^\d{4}-\d\d-\d\d$|^\d{1,2}/\d{1,2}/\d{4}$")),
    ("on", frozenset(("date", "departure date", "travel date", "day", "event date")),
     re.compile(r"^\d{4}-\d\d-\d\d$|^\d{1,2}/\d{1,2}/\d{4}$")),
    ("at", frozenset(("time", "departure time", "start time")),
     re.compile(r"^\d{1,2}:\d\d(?::\d\d)?(?:\s?[AaPp][Mm])?$")),
    ("in", frozenset(("location", "city", "venue city")), None),
    ("at", frozenset(("hotel name", "hotel", "restaurant name", "restaurant", "venue", "venue name",
                      "property name", "store name", "shop name", "clinic name", "salon name")), None),
)  # fmt: skip
"""Values said with a preposition: (preposition, names of their column in words, shape the value must have)."""


_ASKING = frozenset("find out check look up list the a an of it its their my that".split())
"""Words of a clause that ask, not what is asked: `same_words` sets them aside."""


def same_words(a: str, b: str) -> bool:
    """Whether two clauses ask the same thing in other words ("find out the subjects of the webinars of
    organizer 12" and "check the subject of the webinar of organizer 12"): the same content words, each
    read in the singular, once the verbs of asking and the articles are set aside."""

    def content(text: str) -> set[str]:
        return {singular(w) for w in re.findall(r"[a-z0-9_]+", text.lower()) if w not in _ASKING}

    return content(a) == content(b)


_WHEN_DONE = {
    "completed": "completion date",
    "closed": "closing date",
    "paid": "payment date",
    "shipped": "shipping date",
    "delivered": "delivery date",
    "cancelled": "cancellation date",
    "canceled": "cancellation date",
    "published": "publication date",
    "started": "start date",
    "ended": "end date",
    "expired": "expiry date",
    "signed": "signing date",
}
"""A date column named by what happened, as a person names the date."""


def change_label(label: str, value: Any, row: bool = False) -> str:
    """How a request names a column it changes, by what the column holds: a date named by what happened as that
    date ("the completion date", never "set its completed to 2024-09-07"); a `to`/`from` column as a message's
    recipient or sender (an address or a number), a trip's destination or origin (never "change the to to
    +1 960 305 4853"); with `row` (the value is a row the request names), the row's kind, never its key ("change
    its resource to the resource named ...", never "its resource id", seed 94's readers)."""
    if row and re.search(r" (?:id|key)$", label):
        return re.sub(r" (?:id|key)$", "", label)
    if (
        " " not in label
        and label.endswith("ed")
        and isinstance(value, str)
        and re.match(r"\d{4}-\d{2}-\d{2}", value.strip())
    ):
        # Google Tasks' `completed` holds when: "set its completion date to 2024-09-07", never "set its completed
        # to ..." (a blind reader)
        return _WHEN_DONE.get(label, f"date {label}")
    if label not in ("to", "from"):
        return label
    address = isinstance(value, str) and re.search(r"@|^\+?\d[\d ()-]{6,}$", value.strip())
    if address:
        return "recipient" if label == "to" else "sender"
    return "destination" if label == "to" else "origin"


_REMOVALS = frozenset("delete remove erase discard".split())


def retiring_verb(verb: str | None, value: Any, description: str = "") -> str | None:
    """The verb a person asks a soft delete by, from the state the row is kept in: a delete that keeps an
    appointment `cancelled` is asked as "cancel the appointment", one that keeps a campaign `inactive` as
    "deactivate the campaign" (blind readers found both "delete the campaign if it isn't inactive yet" and
    "delete ... if it isn't deleted yet" where deleted meant cancelled). `None` where the verb is no removal or
    the state is no retiring one (`deleted`, `trashed`: a delete is said as a delete), and where the tool's
    `description` does not say the act (a Flat collection kept `inactive` in the trash, to restore, is deleted;
    blind readers of seed 84 found "deactivate" done by a `*Delete` tool)."""
    state = value.strip().lower().replace("-", "_") if isinstance(value, str) else ""
    if verb not in _REMOVALS or state not in RETIRED_STATUSES:
        return None
    return act_said(
        state, description, exclude=DELETE_VERBS
    )  # never a synonym of the delete itself (`trash`)


def said_state(verb: str | None, value: Any, description: str = "") -> str:
    """The state a request names a status change by: its value ("cancelled", said with the verb
    `retiring_verb` gives a soft delete), but "deleted" where the user asked to delete and the state is no
    retiring one (`trashed`, `removed`)."""
    if verb in _REMOVALS and retiring_verb(verb, value, description) is None:
        return participle(verb)
    return format_value(value, enum=True)
