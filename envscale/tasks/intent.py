"""What the simulated user knows and says: persona, goal, facts, when they are done, the opening message.

`write_instructions` turns a `TaskDraft` into `Instructions` offline, from templates, reading the *meaning*
of every gold call (`envscale.semantics.tool_meaning` on the tool's original name, and the operation it
runs: a fixed status, a set column, the filters of a lookup) rather than its name. The user speaks in
entities and values ("cancel my order ord_0007", "change the email address on my account to x@y.com"),
never in tool or column names; a value the agent finds with an earlier call (provenance `call[i].FIELD`)
is described, not said ("my most recent pending order"); a withheld fact (`missing_info`) is left out of
the first message and given only when asked.

`fact_name` is the one naming rule for facts: the chain builder stores `TaskDraft.user_facts` under
`fact_name(argument, tool, spec)` ("order number", "new email address", "customer id"), and the writer
finds the facts of a call by those names (or, when the builder disambiguated a name, by value).

`rewrite_instructions` asks an LLM (the existing `envscale.llm.LLMClient`) to make the goal and the
first message sound more like a person, with implicit references where the draft shows they hold, and
keeps the rewrite only when `check_rewrite` finds every needed fact still there, no withheld fact
leaked, the action still asked for and no tool or column name.

Example:

```python
>>> import random
>>> from envscale.env import load_spec
>>> from envscale.tasks.intent import fact_name, write_instructions
>>> from envscale.tasks.model import GoldCall, TaskDraft
>>> spec = load_spec("tests/fixtures/envs/shop.yaml")
>>> tool = next(t for t in spec["tools"] if t["name"] == "cancel_order")
>>> fact_name("order_id", tool, spec)
'order number'
>>> call = GoldCall("cancel_order", {"order_id": "ord_0007"}, {"order_id": "user"}, write=True)
>>> draft = TaskDraft("shop", "write", [call], user_facts={"order number": "ord_0007"})
>>> ins = write_instructions(draft, spec, random.Random(0))
>>> "ord_0007" in ins.first_message, ins.done_when
(True, 'when the assistant confirms that the order is cancelled')
>>> # with an endpoint: `ins, reason = await rewrite_instructions(ins, draft, client, "Qwen/Qwen3-8B")`
```
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..semantics import STATUS_VERBS, key_entity, plural, singular, tool_meaning
from ..sources.normalize import tokens
from .model import KINDS, GoldCall, Instructions, TaskDraft

if TYPE_CHECKING:
    import random

    from ..llm import LLMClient

__all__ = [
    "STYLES",
    "check_rewrite",
    "fact_name",
    "mentions",
    "rewrite_instructions",
    "rewrite_prompt",
    "tool_names_in",
    "write_instructions",
]

STYLES = ("plain", "terse", "vague")
"""How the user talks: `plain` (default), `terse` (no pleasantries), `vague` (hesitant, loosely worded)."""
STYLE_WEIGHTS = (0.8, 0.1, 0.1)

# ----------------------------------------------------------------------------- words

_TOKEN_WORDS = {
    "qty": "quantity",
    "desc": "description",
    "num": "number",
    "amt": "amount",
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
_PHRASES = {
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
    "full name": "full name",
}
_NUMBERED = frozenset(
    "order invoice ticket booking reservation account case claim policy flight shipment tracking "
    "transaction payment receipt confirmation incident request return refund loan card room seat "
    "membership subscription contract quote".split()
)
"""Entities people refer to by a number ("order number"); the others by an id ("customer id")."""
_GENERIC_COLUMNS = frozenset(
    "name title description type status state note notes category kind code label comment reason level "
    "priority value amount total date stage".split()
)
"""Columns whose bare name says little: named with their entity ("order status", "product name")."""
_STATUS_COLUMNS = re.compile(r"^(status|state|stage|phase)$|_(status|state)$")
_DATE_COLUMNS = re.compile(r"(^|_)(date|time|timestamp|datetime)$|_at$|_on$|^(created|updated|modified)$")
_PRICE_COLUMNS = re.compile(r"(^|_)(price|cost|fee|fare|rate)$")
_QUOTED = frozenset(
    "note notes comment message text description title name reason subject body summary content caption bio".split()
)
_PREFIXES = {
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
_GENERIC_DELTA = frozenset("delta value by change n diff increment decrement step".split())
_NOTES = frozenset("reason note notes comment comments remark remarks memo".split())
"""Columns that annotate a change (`reason`, `resolution_note`): named without `new`."""
_ON_ACCOUNT = frozenset("email phone mobile address name number card password username".split())
"""What is `on` an account ("the email address on my account"); the rest is `of` it."""
_PEOPLE = (
    "customer user client member patient passenger guest traveler traveller student employee driver rider "
    "buyer subscriber player owner person account"
).split()
"""Tables that hold the people a user could be, in order of preference (`customers` before `accounts`)."""

_CREATE_NATURAL = frozenset(
    "create add place book reserve register schedule send submit open buy purchase rent hire invite "
    "follow like subscribe enroll enrol post upload apply request file report issue raise".split()
)
_UPDATE_NATURAL = frozenset(
    "update change edit modify set rename move transfer assign reassign reset restore rate tag label "
    "pin unpin mute unmute star upgrade downgrade extend reschedule renew fund deposit withdraw charge "
    "pay refund release lock unlock mark toggle adjust increase decrease".split()
)
_ACTION_VERBS = frozenset(
    "play start stop run launch call order rate review track log restart pause resume retweet share "
    "like star watch mute unmute archive publish unpublish activate deactivate enable disable check "
    "approve reject confirm accept decline sign verify lock unlock open close fill empty clean".split()
)
"""Verbs that read naturally with their object ("play media", "retweet tweet 7")."""
_UNCOUNTABLE = frozenset(
    "media music audio video sound data information content weather news traffic".split()
)
_DELETE_NATURAL = frozenset(
    "delete remove erase discard cancel unsubscribe unfollow revoke detach uninstall".split()
)
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
}
_ACTION_SYNONYMS = {
    "create": "create add place book reserve register schedule send submit open buy purchase order rent hire "
    "new make set up sign up start put".split(),
    "update": "update change edit modify set switch make correct replace move transfer adjust increase "
    "decrease raise lower rename mark turn".split(),
    "delete": "delete remove erase discard get rid drop cancel close take off".split(),
}


def _words(name: str) -> str:
    """Readable words of an identifier: `unit_price` -> `unit price`, `email` -> `email address`."""
    toks = tokens(name)
    phrase = " ".join(toks)
    if phrase in _PHRASES:
        return _PHRASES[phrase]
    return " ".join(_TOKEN_WORDS.get(t, t) for t in toks) or name


def _col_words(column: str, arg: str | None = None) -> str:
    """Words of a column, or of the argument bound to it when the column is the argument's name run
    together (`fuelamount` for `fuelAmount` -> `fuel amount`)."""
    if (
        arg
        and column.lower() == re.sub(r"[^a-z0-9]", "", arg.lower())
        and len(tokens(arg)) > len(tokens(column))
    ):
        return _words(arg)
    return _words(column)


def _plural_phrase(phrase: str) -> str:
    head, _, last = phrase.rpartition(" ")
    if not last:
        return phrase
    word = last[:-2] + "es" if last.endswith("is") and len(last) > 3 else plural(last)  # analysis -> analyses
    return f"{head} {word}".strip()


def _article(phrase: str) -> str:
    word = phrase.split(" ", 1)[0] if phrase else ""
    if word.isupper() and len(word) > 1:
        return "an" if word[0] in "AEFHILMNORSX" else "a"
    low = word.lower()
    if re.match(r"u[bcdfgklmnprstvz][aeiou]|eu|one|uni", low):
        return "a"
    if re.match(r"hour|honest|honou?r", low):
        return "an"
    return "an" if low[:1] in ("a", "e", "i", "o", "u") else "a"


def _participle(verb: str) -> str:
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and len(verb) > 2 and verb[-2] not in "aeiou":
        return verb[:-1] + "ied"
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnprt]", verb) and len(verb) <= 4:
        return verb + verb[-1] + "ed"
    return verb + "ed"


def _join(items: list[str], word: str = "and") -> str:
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {word} " + items[-1]


def _free_text(value: str) -> bool:
    """A value that is a sentence rather than a name or code: quoted when said."""
    return len(value.split()) >= 4 or value.rstrip().endswith((".", "!", "?"))


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# ----------------------------------------------------------------------------- values


def _fmt(value: Any, enum: bool = False) -> str:
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
        return value.replace("_", " ") if enum and " " not in value else value
    if isinstance(value, list):
        return _join([_fmt(v, enum) for v in value])
    if isinstance(value, dict):
        return ", ".join(f"{_words(str(k))} {_fmt(v, enum)}" for k, v in value.items() if v is not None)
    return str(value)


_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w])")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower().replace("_", " ")).strip()


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
    needle = _norm(str(value))
    if not needle:
        return True
    return re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", _norm(text)) is not None


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


_COLUMN_NAME = re.compile(r"\b[a-z][a-z0-9]*_(?:id|ids|uuid)\b|\b[a-z]+Id\b")


# ----------------------------------------------------------------------------- the spec, read


def _tools(spec: dict) -> dict[str, dict]:
    return {t["name"]: t for t in spec.get("tools") or [] if isinstance(t, dict) and "name" in t}


def _tables(spec: dict) -> dict[str, dict]:
    return spec.get("tables") or {}


def _columns(spec: dict, table: str | None) -> dict[str, dict]:
    return (_tables(spec).get(table) or {}).get("columns") or {} if table else {}


def _pk(spec: dict, table: str | None) -> str | None:
    return (_tables(spec).get(table) or {}).get("primary_key") if table else None


def _entity(table: str) -> str:
    return _words(singular(table))


def _original_name(tool: dict) -> str:
    meta = tool.get("metadata") if isinstance(tool.get("metadata"), dict) else {}
    original = meta.get("original_name")
    return original if isinstance(original, str) and original else tool["name"]


def _meaning(tool: dict):
    meta = tool.get("metadata") if isinstance(tool.get("metadata"), dict) else {}
    annotations = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else None
    return tool_meaning(
        _original_name(tool), tool.get("description") or "", tool.get("parameters"), annotations
    )


def _person_table(spec: dict) -> str | None:
    """The table of the people a user could be: the session table, else the first people-like table."""
    session = spec.get("session")
    if isinstance(session, dict) and session.get("table") in _tables(spec):
        return session["table"]
    best = None
    for table in _tables(spec):
        last = singular(table).split("_")[-1]
        if last in _PEOPLE and (best is None or _PEOPLE.index(last) < _PEOPLE.index(best[1])):
            best = (table, last)
    return best[0] if best else None


def _owned_tables(spec: dict, person: str | None) -> set[str]:
    """Tables whose rows belong to a person: the person table and those referencing it (two hops)."""
    if not person:
        return set()
    owned = {person}
    for _ in range(2):
        for table in _tables(spec):
            if any((c or {}).get("references") in owned for c in _columns(spec, table).values()):
                owned.add(table)
    return owned


@dataclass
class _Binding:
    """Where an argument goes in an operation: `place` is key, set, adjust, value, filter or limit."""

    place: str
    table: str | None
    column: str | None
    op: str = "eq"
    sign: int = 1
    main: bool = True  # False: in one of the operation's effects


_NOT_ARGS = frozenset(("value", "column", "target", "result", "now", "session"))


def _args_in(expr: Any, top: bool = True) -> list[str]:
    """The arguments a binding reads: a bare name (only as the whole binding, as in 1.0), `{arg: NAME}`,
    and those inside arithmetic; never the names in `{value}`, `{column}`, `{session}`, ... forms."""
    if isinstance(expr, str):
        return [expr] if top else []
    if isinstance(expr, dict):
        if isinstance(expr.get("arg"), str):
            return [expr["arg"]]
        if _NOT_ARGS & set(expr):
            return []
        return [a for v in expr.values() for a in _args_in(v, False)]
    if isinstance(expr, list):
        return [a for v in expr for a in _args_in(v, False)]
    return []


def _bindings(tool: dict) -> dict[str, _Binding]:
    """Each argument's first binding in the tool's operation (the main operation before its effects)."""
    out: dict[str, _Binding] = {}
    op = tool.get("operation") if isinstance(tool.get("operation"), dict) else {}

    def bind(arg: str, binding: _Binding) -> None:
        out.setdefault(arg, binding)

    def walk(write: dict, main: bool) -> None:
        table = write.get("table")
        for column, expr in (write.get("key") or {}).items():
            for arg in _args_in(expr, top=main):
                bind(arg, _Binding("key", table, column, main=main))
        for place in ("set", "values"):
            for column, expr in (write.get(place) or {}).items():
                if isinstance(expr, str) or (isinstance(expr, dict) and "arg" in expr):
                    if main or not isinstance(expr, str):
                        bind(_args_in(expr)[0], _Binding("set" if place == "set" else "value", table, column))
                elif isinstance(expr, dict) and len(expr) == 1 and next(iter(expr)) in ("add", "sub"):
                    form, parts = next(iter(expr.items()))
                    for i, part in enumerate(parts if isinstance(parts, list) else []):
                        for arg in _args_in(part, False):
                            sign = -1 if form == "sub" and i > 0 else 1
                            bind(arg, _Binding("adjust", table, column, sign=sign))
                else:
                    for arg in _args_in(expr, top=main):
                        bind(arg, _Binding("value", table, column))
        for flt in write.get("filters") or []:
            if isinstance(flt, dict) and isinstance(flt.get("arg"), str):
                bind(flt["arg"], _Binding("filter", table, flt.get("column"), flt.get("op") or "eq"))
        if isinstance(write.get("limit_arg"), str):
            bind(write["limit_arg"], _Binding("limit", table, None))

    walk(op, True)
    for effect in op.get("effects") or []:
        if isinstance(effect, dict):
            walk(effect, False)
    return out


def _column_phrase(
    spec: dict, table: str | None, column: str, *, entity_prefix: bool = True, arg: str | None = None
) -> str:
    phrase = _col_words(column, arg)
    if entity_prefix and table and column.lower() in _GENERIC_COLUMNS:
        entity = _entity(table)
        if entity.split(" ")[-1] not in phrase:
            phrase = f"{entity} {phrase}"
    return phrase


def _id_phrase(spec: dict, table: str | None, entity: str | None = None) -> str:
    """How a person names a row's key: `order number`, `customer id`, `SKU`, `coupon code`."""
    entity = entity or (_entity(table) if table else "record")
    pk = _pk(spec, table)
    if pk and not re.search(r"(^|_)(id|uuid|gid)$|[a-z]Id$", pk):
        phrase = _words(pk)
        if phrase.lower() in ("code", "name", "number", "key", "slug", "handle", "title"):
            phrase = f"{entity} {phrase}"
        return phrase
    return f"{entity} {'number' if entity.split(' ')[-1] in _NUMBERED else 'id'}"


def _arg_name(arg: str, binding: _Binding | None, spec: dict) -> str:
    if binding is None:
        ent = key_entity(arg)
        if ent:
            table = next((t for t in _tables(spec) if singular(t) == ent), None)
            return _id_phrase(spec, table, _words(ent))
        return _words(arg)
    table, column = binding.table, binding.column
    if binding.place == "limit":
        return "number of results"
    cols = _columns(spec, table)
    coldef = cols.get(column) or {}
    pk = _pk(spec, table)
    ref = coldef.get("references")
    if binding.place == "key" or (binding.place == "filter" and column == pk and binding.op == "eq"):
        if column == pk:
            name = _id_phrase(spec, table)
        elif ref:
            name = _id_phrase(spec, ref)
        else:
            name = _column_phrase(spec, table, column, arg=arg)
    elif ref:
        name = _id_phrase(spec, ref)
    elif binding.place == "set" and tokens(column)[-1:] and tokens(column)[-1] in _NOTES:
        name = _col_words(column, arg)
    elif binding.place == "set":
        name = "new " + _column_phrase(
            spec, table, column, entity_prefix=_STATUS_COLUMNS.search(column) is not None, arg=arg
        )
    elif binding.place == "adjust":
        arg_words = tokens(arg)
        generic = not arg_words or all(w in _GENERIC_DELTA for w in arg_words)
        name = f"change in {_col_words(column, arg)}" if generic else _words(arg)
    elif binding.place == "filter":
        phrase = _column_phrase(spec, table, column, arg=arg)
        if binding.op in ("le", "lt"):
            name = f"maximum {_col_words(column, arg)}"
        elif binding.op in ("ge", "gt"):
            name = f"minimum {_col_words(column, arg)}"
        elif binding.op == "contains":
            name = f"{phrase} search text"
        elif binding.op == "in":
            name = _plural_phrase(phrase)
        else:
            name = phrase
    else:
        name = _column_phrase(spec, table, column, arg=arg)
    first = tokens(arg)[:1]
    if first and first[0] in _PREFIXES and first[0] not in tokens(column or ""):
        prefix = _PREFIXES[first[0]]
        if not name.startswith(prefix):
            name = f"{prefix} {name}"
    return name


def _tool_fact_names(tool: dict, spec: dict) -> dict[str, str]:
    props = (tool.get("parameters") or {}).get("properties") or {}
    binds = _bindings(tool)
    names: dict[str, str] = {}
    seen: dict[str, int] = {}
    for arg in list(props) + [a for a in binds if a not in props]:
        name = _arg_name(arg, binds.get(arg), spec)
        seen[name] = seen.get(name, 0) + 1
        names[arg] = name if seen[name] == 1 else f"{name} ({_words(arg)})"
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
    names = _tool_fact_names(tool, spec)
    return names.get(arg) or _arg_name(arg, _bindings(tool).get(arg), spec)


# ----------------------------------------------------------------------------- persona

_DOMAIN_TABLE = """
shop     | order product cart catalog catalogue shop store checkout purchase sku inventory coupon shipment walmart basket merchant | an online shop | a customer of {place} | someone who works in the back office of {place}
car      | vehicle car engine brake door headlight tire tyre fuel climate cruise parking ignition trunk seatbelt windshield | a connected car | the driver of {place} | the driver of {place}
tracker  | task project issue board sprint milestone todo epic backlog kanban | a task tracker | a member of a team that uses {place} | the project manager of a team that uses {place}
travel   | flight hotel booking reservation room trip airline passenger itinerary airport rental | a travel booking service | a traveller who uses {place} | an agent who works at {place}
bank     | bank transaction balance transfer card loan deposit withdrawal payee iban statement | a bank | a customer of {place} | a clerk who works at {place}
trading  | stock trade trading portfolio watchlist ticker broker crypto | a trading platform | an investor who uses {place} | an operator of {place}
social   | tweet post follower following comment like feed retweet hashtag | a social network | a user of {place} | a moderator of {place}
messaging| message email mail inbox chat sms conversation contact | a messaging service | a user of {place} | an administrator of {place}
files    | file directory folder disk document | a computer's file system | someone working with files on {place} | the administrator of {place}
health   | patient appointment doctor clinic prescription medication diagnosis | a medical clinic | a patient of {place} | a receptionist at {place}
food     | restaurant menu meal dish food delivery | a food ordering app | a customer of {place} | a staff member of {place}
events   | event concert ticket festival venue show performance | an event ticketing service | a customer of {place} | an organiser who uses {place}
rides    | ride taxi uber pickup | a ride-hailing app | a rider who uses {place} | an operator of {place}
support  | ticket support incident case sla | a help desk | a customer who contacts {place} | a support agent at {place}
music    | song playlist track album artist music podcast | a music streaming app | a listener who uses {place} | a curator at {place}
home     | appliance device thermostat light lamp home sensor camera | a smart home system | a resident who controls {place} | the installer of {place}
hr       | employee payroll leave department salary timesheet | a company's HR system | an employee who uses {place} | an HR officer who uses {place}
school   | student course enrollment grade class teacher lesson exam | a school's course system | a student who uses {place} | a staff member of {place}
library  | book loan library author borrower | a library | a member of {place} | a librarian at {place}
weather  | weather forecast temperature precipitation | a weather service | a user of {place} | an operator of {place}
"""  # noqa: E501
"""Kinds of environment: name | words of tables, tool groups and descriptions that point to it | the place |
who the user is when the task is about their own rows (or the domain is a personal one) | who they are
otherwise (staff). `{place}` is filled in."""
_DOMAINS: tuple[tuple[str, frozenset, str, str, str], ...] = tuple(
    (name, frozenset(words.split()), place, user, staff)
    for line in _DOMAIN_TABLE.strip().splitlines()
    for name, words, place, user, staff in [[part.strip() for part in line.split("|")]]
)
_PERSONAL = frozenset(
    "car tracker social messaging files music home weather trading travel events rides food".split()
)
"""Domains a person uses for themselves: without a people table the user is a user, not staff."""
_PERSONA_TEMPLATES = (
    "You are {who}.",
    "You are {who}, writing to its assistant.",
    "You are {who} and you need the assistant's help with something.",
    "You are {who}, getting in touch with its assistant.",
    "You are {who} with a request for its assistant.",
)


def _domain(spec: dict) -> tuple[str, str, str, str] | None:
    """The best-matching `_DOMAINS` entry for the spec's tables, tool groups and description."""
    words: list[str] = []
    for table in _tables(spec):
        words += [singular(w) for w in tokens(table)]
    for tool in spec.get("tools") or []:
        meta = (
            tool.get("metadata") if isinstance(tool, dict) and isinstance(tool.get("metadata"), dict) else {}
        )
        if isinstance(meta.get("group"), str):
            words += [singular(w) for w in tokens(meta["group"])]
    words += [singular(w) for w in tokens(str(spec.get("description") or ""))]
    words += [singular(w) for w in tokens(re.sub(r"^domain_\d+_?", "", str(spec.get("name") or "")))]
    best, best_hits = None, 0
    for entry in _DOMAINS:
        hits = sum(w in entry[1] for w in words)
        if hits > best_hits:
            best, best_hits = entry, hits
    return (best[0], best[2], best[3], best[4]) if best else None


def _fallback_place(spec: dict) -> str:
    entities = [_plural_phrase(_entity(t)) for t in list(_tables(spec))[:3]]
    return f"a system that keeps track of {_join(entities)}" if entities else "an online service"


# ----------------------------------------------------------------------------- the draft, read


@dataclass
class _Arg:
    arg: str
    value: Any
    source: str
    binding: _Binding | None
    fact: str | None = None
    hidden: bool = False


@dataclass
class _Step:
    index: int
    call: GoldCall
    tool: dict
    op: dict
    table: str | None
    entity: str
    kind: str  # get list count create update status delete other
    verb: str | None
    status: str | None
    args: list[_Arg]
    result: Any
    meaning: Any


@dataclass
class _NP:
    """A noun phrase: `my most recent pending order`, `order ord_0007`, `the price of product pro_0001`."""

    head: str
    det: str = ""
    pre: list[str] = field(default_factory=list)
    label: str = ""
    post: list[str] = field(default_factory=list)
    plural: bool = False
    row: Any = None  # identity of the row, for "it"
    short: str = ""  # "the order", for done_when
    having: list[str] = field(default_factory=list)  # "brand Acme", said once as "with brand Acme and ..."

    def render(self) -> str:
        head = _plural_phrase(self.head) if self.plural else self.head
        body = " ".join([*self.pre, head, self.label]).strip()
        det = self.det
        if det in ("a", "an"):
            det = _article(body)
        having = [f"with {_join(self.having)}"] if self.having else []
        return " ".join(p for p in [det, body, *self.post, *having] if p)


def _unwrap(result: Any) -> Any:
    if isinstance(result, dict) and "ok" in result and "result" in result:
        return result["result"]
    return result


_PATH = re.compile(r"^call\[(\d+)\](.*)$")


def _parse_source(source: str) -> tuple[int, list[Any]] | None:
    match = _PATH.match(source or "")
    if not match:
        return None
    toks: list[Any] = []
    for index, key in re.findall(r"\[(\d+)\]|([^.\[\]]+)", match.group(2)):
        toks.append(int(index) if index else (int(key) if key.isdigit() else key))
    return int(match.group(1)), toks


def _locate(result: Any, path: list[Any]) -> tuple[Any, Any, list | None, int | None]:
    """(row, field, rows, index) of a provenance path in a call result."""
    node, rows, index = _unwrap(result), None, None
    steps = list(path)
    field_ = steps.pop() if steps and isinstance(steps[-1], str) else None
    if isinstance(node, list) and (not steps or not isinstance(steps[0], int)):
        steps.insert(0, 0)  # "call[0].order_id" on a list result: its first row
    for tok in steps:
        try:
            if isinstance(tok, int) and isinstance(node, list):
                rows, index = node, tok
            node = node[tok]
        except (KeyError, IndexError, TypeError):
            return None, field_, rows, index
    return node, field_, rows, index


def _same(a: Any, b: Any) -> bool:
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


class _Writer:
    """Builds the instructions of one draft; every random choice goes through `rng`, in a fixed order."""

    def __init__(self, draft: TaskDraft, spec: dict, rng: random.Random):
        if draft.kind not in KINDS:
            raise ValueError(f"TaskDraft.kind must be one of {KINDS}, got {draft.kind!r}")
        self.draft, self.spec, self.rng = draft, spec, rng
        self.tools = _tools(spec)
        self.person = _person_table(spec)
        self.session = bool(isinstance(spec.get("session"), dict) and self.person)
        self.owned = _owned_tables(spec, self.person)
        self.known = {n: v for n, v in draft.user_facts.items() if n not in draft.withheld}
        self.hidden = {n: draft.user_facts[n] for n in draft.withheld if n in draft.user_facts}
        self.brief = False  # "cancel the order": the short form, for done_when
        self.explicit: dict[int, bool] = {}  # lookups said as requests of their own (chosen once per task)
        self.said_rows: list[Any] = []  # rows the current clause has named (for "that product's price")
        self.obj_of = ""  # the current clause's object after "of"/"to" ("the status of order 7")
        self.show_hidden = True  # whether withheld values are said (the goal) or not (the first message)
        self.steps = [self._step(i, c) for i, c in enumerate(draft.calls)]
        self.request_steps = self._policy_steps() if draft.kind == "policy" else []
        # the user is the person whose rows the task touches, unless the task has to find that person
        # (a person key flowing from a lookup) or names several: then they work on others' behalf
        people = {
            json.dumps(a.value, sort_keys=True, default=str)
            for s in self.steps + self.request_steps
            for a in s.args
            if self._key_table(a) == self.person and not a.source.startswith("call[")
        }
        derived = any(
            self._key_table(a) == self.person
            and a.source.startswith("call[")
            and json.dumps(a.value, sort_keys=True, default=str) not in people
            for s in self.steps + self.request_steps
            for a in s.args
        )
        # ... and only when the task names rows of theirs (an order number, their customer id): a count
        # over all orders is a back-office question
        touches = any(
            self._key_table(a) in self.owned for s in self.steps + self.request_steps for a in s.args
        )
        self.customer = bool(self.session or (touches and not derived and len(people) <= 1))
        self.self_value = self._self_value()

    # -- reading calls

    def _step(self, index: int, call: GoldCall) -> _Step:
        tool = self.tools.get(call.tool)
        if tool is None:
            raise ValueError(
                f"gold call {index} names tool {call.tool!r}, which environment {self.spec.get('name')!r} lacks"
            )
        return self._step_of(index, call, tool)

    def _step_of(self, index: int, call: GoldCall, tool: dict) -> _Step:
        op = tool.get("operation") if isinstance(tool.get("operation"), dict) else {}
        meaning = _meaning(tool)
        table = op.get("table") if op.get("table") in _tables(self.spec) else None
        entity = _entity(table) if table else _words(meaning.entity or "record")
        kind, status = self._kind(op, meaning, call)
        binds = _bindings(tool)
        names = _tool_fact_names(tool, self.spec)
        args = []
        used: set[str] = set()
        for arg, value in call.arguments.items():
            source = call.provenance.get(arg, "user")
            a = _Arg(arg, value, source, binds.get(arg))
            if not source.startswith("call["):
                a.fact = self._find_fact(names.get(arg) or _words(arg), value, used)
                if a.fact:
                    used.add(a.fact)
                a.hidden = a.fact in self.hidden
            args.append(a)
        verb = meaning.verb
        return _Step(
            index, call, tool, op, table, entity, kind, verb, status, args, _unwrap(call.result), meaning
        )

    def _kind(self, op: dict, meaning: Any, call: GoldCall) -> tuple[str, str | None]:
        typ = op.get("type")
        if typ in ("get", "list", "count"):
            return typ, None
        if typ == "insert":
            return "create", None
        if typ == "delete":
            return "delete", None
        if typ == "update":
            for column, value in (op.get("fixed") or {}).items():
                if isinstance(value, str) and (
                    _STATUS_COLUMNS.search(column) or "enum" in self._col(op, column)
                ):
                    return "status", value
            if meaning.effect == "status" and meaning.status_value and not self._set_args(op, call):
                return "status", meaning.status_value[0]
            return "update", None
        effect = meaning.effect
        return {"read": "get", "create": "create", "delete": "delete"}.get(effect, effect), None

    def _col(self, op: dict, column: str) -> dict:
        return _columns(self.spec, op.get("table")).get(column) or {}

    @staticmethod
    def _set_args(op: dict, call: GoldCall) -> list[str]:
        return [a for expr in (op.get("set") or {}).values() for a in _args_in(expr) if a in call.arguments]

    def _find_fact(self, name: str, value: Any, used: set[str]) -> str | None:
        facts = self.draft.user_facts
        if name in facts and name not in used and _same(facts[name], value):
            return name
        candidates = [n for n in facts if n not in used and _same(facts[n], value)]
        for n in candidates:
            if n.startswith(name) or name in n:
                return n
        return candidates[0] if candidates else (name if name in facts and name not in used else None)

    def _policy_steps(self) -> list[_Step]:
        """The forbidden action the user asks for: a gold call of a forbidden tool, else one built from
        the policy rule's tool and the user's facts."""
        forbidden = set(self.draft.forbidden)
        rule = self.draft.policy_rule or {}
        if isinstance(rule.get("tool"), str):
            forbidden.add(rule["tool"])
        asked = [s for s in self.steps if s.call.tool in forbidden]
        if asked:
            return asked
        attempt = rule.get("attempt") if isinstance(rule.get("attempt"), dict) else {}
        tool = self.tools.get(attempt.get("tool")) if isinstance(attempt.get("tool"), str) else None
        if tool is not None and isinstance(attempt.get("arguments"), dict):
            arguments = attempt["arguments"]
            provenance = attempt.get("provenance") if isinstance(attempt.get("provenance"), dict) else {}
            call = GoldCall(
                tool["name"], arguments, {a: provenance.get(a, "user") for a in arguments}, write=True
            )
            return [self._step_of(len(self.steps), call, tool)]
        for name in [rule.get("tool")] + sorted(forbidden):
            tool = self.tools.get(name) if isinstance(name, str) else None
            if tool is None:
                continue
            names = _tool_fact_names(tool, self.spec)
            arguments = {a: self.draft.user_facts[n] for a, n in names.items() if n in self.draft.user_facts}
            if not arguments and (tool.get("parameters") or {}).get("required"):
                continue
            call = GoldCall(
                name, arguments, {a: "user" for a in arguments}, write=tool.get("kind") == "write"
            )
            return [self._step_of(len(self.steps), call, tool)]
        return []

    def _self_value(self) -> Any:
        """The user's own key in the person table (their customer id), when the task gives it."""
        if not self.customer or not self.person:
            return None
        for step in self.steps + self.request_steps:
            for a in step.args:
                if a.fact is None or a.binding is None:
                    continue
                if self._key_table(a) == self.person:
                    return a.value
        return None

    def _key_table(self, a: _Arg) -> str | None:
        """The table whose row an argument names (its key or a reference), or None for a plain value."""
        b = a.binding
        if b is None:
            ent = key_entity(a.arg)
            return next((t for t in _tables(self.spec) if singular(t) == ent), None) if ent else None
        if b.place == "limit" or b.column is None:
            return None
        coldef = _columns(self.spec, b.table).get(b.column) or {}
        if coldef.get("references"):
            return coldef["references"]
        if b.column == _pk(self.spec, b.table) and b.place in ("key", "filter", "value"):
            return b.table
        if b.place == "key":
            return b.table
        return None

    # -- noun phrases

    def _value_np(self, table: str | None, value: Any, hidden: bool) -> _NP:
        """A row named by its key: `my order ord_0007`, `order ord_0007`, `one of my orders`, `my account`."""
        entity = _entity(table) if table else "record"
        short = f"the {entity}"
        if (
            table
            and table == self.person
            and self.customer
            and (self.session or _same(value, self.self_value))
        ):
            return _NP("account", "my", row=(table, "self"), short="your account")
        pk = _pk(self.spec, table)
        natural = pk and not re.search(r"(^|_)(id|uuid|gid)$|[a-z]Id$", pk)
        head = _id_phrase(self.spec, table) if natural else entity
        mine = self.customer and table in self.owned
        if hidden:
            if mine:
                return _NP(entity, "one of my", plural=True, row=(table, value), short=short)
            return _NP(entity, "a", row=(table, value), short=short)
        return _NP(head, "my" if mine else "", label=_fmt(value), row=(table, value), short=short)

    def _arg_np(self, a: _Arg, show_hidden: bool) -> _NP:
        """The row an argument names, whatever its provenance."""
        table = self._key_table(a)
        if a.source.startswith("call["):
            np = self._derived_np(a, table)
            self.said_rows.append(np.row)
            return np
        return self._value_np(table, a.value, a.hidden and not show_hidden)

    def _derived_np(self, a: _Arg, table: str | None) -> _NP:
        parsed = _parse_source(a.source)
        if not parsed or parsed[0] >= len(self.steps):
            return _NP(_entity(table) if table else _words(a.arg), "the right", short="it")
        src = self.steps[parsed[0]]
        row, field_, rows, index = _locate(src.call.result, parsed[1])
        base = self._row_np(src, row, rows, index)
        if field_ is None or src.table is None:
            return base
        pk = _pk(self.spec, src.table)
        if field_ == pk or (table == src.table and field_ in (src.op.get("key") or {})):
            return base
        coldef = _columns(self.spec, src.table).get(field_) or {}
        ref = coldef.get("references")
        if ref:
            if ref == self.person and self.customer:
                return _NP("account", "my", row=(ref, "self"), short="your account")
            value = row.get(field_) if isinstance(row, dict) else None
            return _NP(
                _entity(ref),
                "the",
                post=[f"of {base.render()}"],
                row=(ref, value),
                short=f"the {_entity(ref)}",
            )
        if base.row is not None and base.row in self.said_rows:  # the row is named already in this request
            return _NP(_words(field_), f"that {src.entity}'s", short=f"the {_words(field_)}")
        return _NP(_words(field_), "the", post=[f"of {base.render()}"], short=f"the {_words(field_)}")

    def _row_np(self, src: _Step, row: Any, rows: list | None, index: int | None) -> _NP:
        """The row an earlier call found or made: `the new order`, `my most recent pending order`."""
        entity = src.entity
        short = f"the {entity}"
        if src.kind == "create":
            return _NP(entity, "the", pre=["new"], row=("new", src.index), short=f"the new {entity}")
        if src.kind in ("list",) and isinstance(rows, list):
            np = self._filters_np(src, show_hidden=self.show_hidden)
            np.plural = False
            np.row = ("row", src.index, index)
            np.short = short
            if np.det.startswith("up to"):  # one row of a capped list: "my ...", not "up to 5 of my ..."
                np.det = "my" if np.det.endswith(" my") else "the"
            if np.det in ("", "a", "all the"):
                np.det = "the"
            if len(rows) > 1:
                pick = self._selector(src, rows, index or 0)
                if pick[0] == "pre":
                    np.pre.insert(0, pick[1])
                else:
                    np.post.append(pick[1])
            return np
        keyed = [a for a in src.args if a.binding and a.binding.place == "key" and a.binding.main]
        if keyed:
            return self._arg_np(keyed[0], show_hidden=self.show_hidden)
        return _NP(entity, "that", row=("row", src.index, index), short=short)

    def _selector(self, src: _Step, rows: list, index: int) -> tuple[str, str]:
        """What singles out row `index` among `rows`: ("pre", "most recent") or ("post", "named Lamp")."""
        if not (0 <= index < len(rows)) or not isinstance(rows[index], dict):
            return "post", "in the list"
        row = rows[index]
        dicts = [r for r in rows if isinstance(r, dict)]
        for column in row:
            values = [r.get(column) for r in dicts]
            mine = row.get(column)
            if not isinstance(mine, str) or not all(isinstance(v, str) for v in values):
                continue
            if _DATE_COLUMNS.search(column) and re.match(r"\d{4}-\d\d-\d\d", mine):
                if values.count(mine) == 1 and mine == max(values):
                    return "pre", "most recent"
                if values.count(mine) == 1 and mine == min(values):
                    return "pre", "oldest"
        for column in row:
            values = [r.get(column) for r in dicts]
            mine = row.get(column)
            if _PRICE_COLUMNS.search(column) and isinstance(mine, (int, float)) and values.count(mine) == 1:
                numbers = [v for v in values if isinstance(v, (int, float))]
                if len(numbers) == len(values) and mine == min(numbers):
                    return "pre", "cheapest"
                if len(numbers) == len(values) and mine == max(numbers):
                    return "pre", "most expensive"
        pk = _pk(self.spec, src.table)
        ordered = sorted(
            row, key=lambda c: (c not in ("name", "title", "label", "subject"), not _STATUS_COLUMNS.search(c))
        )
        for column in ordered:
            mine = row.get(column)
            if (
                column == pk
                or column.endswith("_id")
                or not isinstance(mine, str)
                or not mine
                or len(mine) > 40
            ):
                continue
            if [r.get(column) for r in dicts].count(mine) != 1:
                continue
            if _STATUS_COLUMNS.search(column):
                return "pre", _fmt(mine, enum=True)
            if column in ("name", "title", "label"):
                return "post", f'named "{mine}"'
            return "post", f"whose {_words(column)} is {_fmt(mine, enum='enum' in self._col(src.op, column))}"
        ordinals = "first second third fourth fifth sixth seventh eighth ninth tenth".split()
        return "pre", (ordinals[index] if index < len(ordinals) else f"number {index + 1}") + " listed"

    def _filters_np(self, step: _Step, show_hidden: bool) -> _NP:
        """The rows a lookup asks for: `my pending orders`, `products in the books category that cost at most 30`."""
        np = _NP(step.entity, "the", plural=True, short=f"the {_plural_phrase(step.entity)}")
        mine = False
        for flt in step.op.get("filters") or []:
            expr = flt.get("value") if isinstance(flt, dict) else None
            if isinstance(expr, dict) and "session" in json.dumps(expr):
                mine = True
            elif isinstance(expr, dict) and "value" in expr and isinstance(flt.get("column"), str):
                self._filter_phrase(np, step, flt["column"], flt.get("op") or "eq", expr["value"])
        for a in step.args:
            b = a.binding
            if b is None or b.place not in ("filter", "limit"):
                continue
            table = self._key_table(a)
            if table == self.person and self.customer and (self.session or _same(a.value, self.self_value)):
                mine = True  # the user's own rows, whether or not they have said who they are yet
                continue
            if a.hidden and not show_hidden:
                continue
            if b.place == "limit":
                np.det = f"up to {_fmt(a.value)}"
                continue
            if table and table != step.table:
                ref = self._arg_np(a, show_hidden)
                np.post.append(f"of {ref.render()}")
                continue
            if a.source.startswith("call["):  # "products with the same category as product pro_0001"
                ref = self._derived_np(a, table)
                source = ref.post[-1][3:] if ref.post and ref.post[-1].startswith("of ") else ref.render()
                np.post.append(f"with the same {_col_words(b.column or a.arg, a.arg)} as {source}")
                continue
            self._filter_phrase(np, step, b.column or a.arg, b.op, a.value, a.arg)
        if mine and step.table in self.owned:
            np.det = "my" if not np.det.startswith("up to") else f"{np.det} of my"
        return np

    def _filter_phrase(
        self, np: _NP, step: _Step, column: str, op: str, value: Any, arg: str | None = None
    ) -> None:
        enum = "enum" in self._col(step.op, column)
        words = _col_words(column, arg)
        if isinstance(value, bool):
            if value and " " not in words:
                np.pre.append(words)  # "VIP customers"
            else:
                np.having.append(f"{words} {_fmt(value)}")
        elif _STATUS_COLUMNS.search(column) and op in ("eq", "in") and isinstance(value, (str, list)):
            np.pre.append(_fmt(value, enum=True).replace(" and ", " or ").replace(", ", " or "))
        elif op in ("le", "lt"):
            np.post.append(
                f"costing at most {_fmt(value)}"
                if _PRICE_COLUMNS.search(column)
                else f"with {words} at most {_fmt(value)}"
            )
        elif op in ("ge", "gt"):
            np.post.append(
                f"costing at least {_fmt(value)}"
                if _PRICE_COLUMNS.search(column)
                else f"with {words} at least {_fmt(value)}"
            )
        elif op == "contains":
            np.post.append(f'whose {words} contains "{_fmt(value)}"')
        elif column in ("category", "type", "kind", "genre", "section", "department"):
            np.post.append(f"in the {_fmt(value, enum)} {words}")
        elif column in ("name", "title"):
            np.post.append(f'named "{_fmt(value)}"')
        elif op == "in":
            np.having.append(f"{words} {_fmt(value, enum).replace(' and ', ' or ')}")
        else:
            np.having.append(f"{words} {_fmt(value, enum)}")

    # -- clauses

    def _attr(self, step: _Step, a: _Arg) -> str:
        """A value the request sets or creates: `a quantity of 2`, `the note "gift"`, `category books`."""
        b = a.binding
        column = (b.column if b else None) or a.arg
        enum = "enum" in self._col(step.op, column) if b else False
        label = _col_words(column, a.arg)
        if b and b.place == "adjust" and not all(w in _GENERIC_DELTA for w in tokens(a.arg)):
            label = _words(a.arg)
        if a.source.startswith("call["):
            ref = self._derived_np(a, self._key_table(a))
            return f"the {label} set to {ref.render()}"
        value = _fmt(a.value, enum)
        if isinstance(a.value, str) and not enum and _free_text(a.value):
            return f'the {label} "{value}"'
        if (tokens(column)[-1:] or [""])[0] in _QUOTED and isinstance(a.value, str) and not enum:
            return f'the {label} "{value}"'
        if isinstance(a.value, (int, float)) and not isinstance(a.value, bool):
            last = label.rsplit(" ", 1)[-1]
            if singular(last) != last:  # "98 chords", not "a chords of 98"
                return f"{value} {label}"
            return f"{_article(label)} {label} of {value}"
        return f"{label} {value}"

    def _clause(self, step: _Step, show_hidden: bool, prev_row: Any) -> tuple[str, str, Any]:
        """(clause, outcome for done_when, row acted on) of one step, in the user's words."""
        kind = step.kind
        self.said_rows = []
        keyed = [a for a in step.args if a.binding and a.binding.place == "key" and a.binding.main]
        target = (
            self._arg_np(keyed[0], show_hidden)
            if keyed
            else _NP(step.entity, "the", short=f"the {step.entity}")
        )
        if not keyed and self.session and step.table == self.person:
            target = _NP("account", "my", row=(self.person, "self"), short="your account")
        obj = "it" if prev_row is not None and target.row == prev_row else target.render()
        self.obj_of = obj  # after "of"/"to": "the status of order 7"
        if obj != "it" and not target.det and target.label:
            # "cancel the order 7", never "cancel order 7": a verb right before its entity reads as the
            # tool's name (`cancel_order`), which the leak gate rightly refuses
            obj = f"the {obj}"
        short = target.short or f"the {step.entity}"
        rest = [a for a in step.args if a not in keyed]
        if self.brief:  # "cancel the order", for done_when: the action and what it sets, no annotations
            obj = self.obj_of = short
            rest = [
                a
                for a in rest
                if kind == "update"
                and a.binding
                and a.binding.place in ("set", "adjust")
                and (tokens(a.binding.column or a.arg)[-1:] or [""])[0] not in _NOTES
            ]
        if kind in ("get", "list", "count"):
            return self._read_clause(step, target, obj, show_hidden)
        if kind == "status":
            verb = (
                step.verb
                if step.verb and (step.verb in STATUS_VERBS or step.verb in _UPDATE_NATURAL | _DELETE_NATURAL)
                else None
            )
            extras = [self._attr(step, a) for a in rest if not (a.hidden and not show_hidden)]
            tail = f" with {_join(extras)}" if extras else ""
            status = _fmt(step.status or "", enum=True)
            if verb and verb not in ("mark", "set", "update", "change"):
                clause = f"{verb} {obj}{tail}"
            else:
                clause = f"mark {obj} as {status}{tail}"
            return clause, f"{short} is {status}", target.row
        if kind == "delete":
            verb = step.verb if step.verb in _DELETE_NATURAL else "delete"
            return f"{verb} {obj}", f"{short} is {_participle(verb)}", target.row
        if kind == "update":
            return self._update_clause(step, target, obj, rest, show_hidden)
        if kind == "create":
            return self._create_clause(step, rest, show_hidden)
        verb = _words(step.verb or "handle")
        return f"{verb} {obj}", f"the request is done for {short}", target.row

    def _read_clause(self, step: _Step, target: _NP, obj: str, show_hidden: bool) -> tuple[str, str, Any]:
        answers = self.draft.answer_facts
        verb = self.rng.choice(("find out", "check", "look up"))
        if step.kind == "count":
            np = self._filters_np(step, show_hidden)
            owner = np.det == "my"
            np.det = "" if owner or np.det == "the" else np.det
            noun = np.render()
            what = f"how many {noun} I have" if owner else f"how many {noun} there are"
            told = f"how many {noun} you have" if owner else f"how many {noun} there are"
            return f"{'find out' if verb == 'look up' else verb} {what}", told, None
        rows = step.result if isinstance(step.result, list) else [step.result]
        fields = []
        pk = _pk(self.spec, step.table)
        asked = {a.binding.column for a in step.args if a.binding and a.binding.place in ("key", "filter")}
        for row in rows:
            for col, value in row.items() if isinstance(row, dict) else []:
                if col not in fields and col not in asked and any(_same(value, ans) for ans in answers):
                    fields.append(col)
        if len(fields) > 1 and pk in fields:
            fields.remove(pk)
        counted = isinstance(step.result, list) and any(_same(len(step.result), a) for a in answers)
        if (
            step.kind == "list"
            and counted
            and (not fields or any("number of rows" in n for n in self.draft.notes))
        ):
            np = self._filters_np(step, show_hidden)
            owner = np.det == "my"
            np.det = "" if owner or np.det == "the" else np.det
            noun = np.render()
            what = f"how many {noun} I have" if owner else f"how many {noun} there are"
            told = f"how many {noun} you have" if owner else f"how many {noun} there are"
            return f"find out {what}", told, None
        if step.kind == "list":
            np = self._filters_np(step, show_hidden)
            noun = np.render()
            if fields:
                what = f"the {_join([_plural_phrase(_words(f)) for f in fields[:3]])} of {noun}"
            else:
                what = noun
            lead = "find out" if fields or verb != "look up" else "look up"
            lead = "list" if not fields and self.rng.random() < 0.5 else lead
            return f"{lead} {what}", what, None
        if fields:
            labels = _join([_words(f) for f in fields[:3]])
            possessive = "on" if target.head == "account" and set(labels.split()) & _ON_ACCOUNT else "of"
            what = f"the {labels} {possessive} {self.obj_of}"
            told = f"the {labels} {possessive} {target.short}"
            return f"{'find out' if verb == 'look up' else verb} {what}", told, target.row
        return f"look up {obj}", f"the details of {target.short}", target.row

    def _update_clause(self, step: _Step, target: _NP, obj: str, rest: list[_Arg], show_hidden: bool):
        short = target.short
        changes, outcome = [], []
        verb = self.rng.choice(("change", "update", "set"))
        move_from = target.render()
        effect_keys = [a for a in rest if a.binding and a.binding.place == "key"]
        adjusts = [a for a in rest if a.binding and a.binding.place == "adjust"]
        if step.verb in ("move", "transfer") and effect_keys and adjusts:
            amount = adjusts[0]
            dest = self._arg_np(effect_keys[0], show_hidden).render()
            label = _words(amount.binding.column or "")
            unit = "units" if re.search(r"quantity|stock|unit|count|on hand", label) else ""
            how_much = (
                "some"
                if amount.hidden and not show_hidden
                else " ".join(p for p in (_fmt(amount.value), unit) if p)
            )
            others = [
                self._attr(step, a)
                for a in rest
                if a not in (amount, effect_keys[0]) and a.binding and a.binding.place != "key"
            ]
            tail = f" with {_join(others)}" if others else ""
            clause = f"{step.verb} {how_much} from {move_from} to {dest}{tail}"
            return clause, f"the {step.verb} is done", target.row
        sets = [a for a in rest if a.binding and a.binding.place in ("set", "adjust")]
        notes = [a for a in sets if (tokens(a.binding.column or a.arg)[-1:] or [""])[0] in _NOTES]
        if len(notes) < len(sets):
            sets = [a for a in sets if a not in notes]
        extras = [self._attr(step, a) for a in rest if a not in sets and not (a.hidden and not show_hidden)]
        for n, a in enumerate(sets):
            b = a.binding
            column = b.column or a.arg
            label = _col_words(column, a.arg)
            on = "on" if target.head == "account" and set(label.split()) & _ON_ACCOUNT else "of"
            owner = f"its {label}" if obj == "it" else f"the {label} {on} {self.obj_of}"
            hidden = a.hidden and not show_hidden
            value = "" if hidden else _fmt(a.value, "enum" in self._col(step.op, column))
            if value and isinstance(a.value, str) and _free_text(a.value):
                value = f'"{value}"'  # a sentence the user dictates
            if a.source.startswith("call["):
                value = self._derived_np(a, self._key_table(a)).render()
            if b.place == "adjust":
                amount = a.value if isinstance(a.value, (int, float)) else 0
                up = (amount * b.sign) >= 0
                size = "" if hidden else f" by {_fmt(abs(amount))}"
                changes.append(
                    f"{'increase' if up else 'decrease'} {owner if n == 0 else 'the ' + label}{size}"
                )
                outcome.append(f"the {label} {on} {short} is updated")
            elif len(sets) == 1 and _STATUS_COLUMNS.search(column) and value and isinstance(a.value, str):
                changes.append(f"mark {obj} as {value}")
                outcome.append(f"{short} is {value}")
            elif len(sets) == 1 and isinstance(a.value, bool) and not hidden:
                changes.append(f"turn {'on' if a.value else 'off'} {owner}")
                outcome.append(f"the {label} {on} {short} is {'on' if a.value else 'off'}")
            else:
                lead = f"{verb} {owner}" if n == 0 else f"the {label}"
                changes.append(f"{lead} to {value}" if value else lead)
                outcome.append(f"the {label} {on} {short} is {'now ' + value if value else 'changed'}")
        if len(outcome) > 2:
            outcome = [f"{short} is updated"]
        if not changes and step.meaning.effect == "create" and step.verb in _CREATE_NATURAL:
            # an update that adds a row elsewhere (`add_coupon` on an order): "add a coupon ... to my order"
            thing = _words(step.meaning.entity or "item")
            tail = f" with {_join(extras)}" if extras else ""
            prep = "to" if step.verb in ("add", "attach", "apply", "link") else "for"
            clause = f"{step.verb} {_article(thing)} {thing}{tail} {prep} {self.obj_of}"
            return clause, f"the {thing} is {_participle(step.verb)} {prep} {short}", target.row
        if not changes:
            verb = step.verb if step.verb in _UPDATE_NATURAL | _ACTION_VERBS else "update"
            verb = "update" if verb in ("set", "change") else verb
            tail = f" with {_join(extras)}" if extras else ""
            return f"{verb} {obj}{tail}", f"{short} is {_participle(verb)}", target.row
        tail = f", with {_join(extras)}" if extras else ""
        return _join(changes) + tail, _join(outcome), target.row

    def _create_clause(self, step: _Step, rest: list[_Arg], show_hidden: bool):
        meaning = step.meaning
        verb = step.verb if step.verb in _CREATE_NATURAL else None
        entity = step.entity
        parent_name = meaning.parent
        refs, attrs = [], []
        container = None
        for a in rest:
            if a.hidden and not show_hidden:
                table = self._key_table(a)
                if table and table != step.table:
                    refs.append((a, _NP(_entity(table), "a", short=f"the {_entity(table)}")))
                continue
            table = self._key_table(a)
            if table and table != step.table:
                np = self._arg_np(a, show_hidden)
                if table == self.person and np.head == "account":
                    continue  # the user's own account: said as "My customer id is ..."
                if container is None and parent_name and singular(table).endswith(parent_name):
                    container = np
                else:
                    refs.append((a, np))
            elif a.binding and a.binding.place == "limit":
                continue
            else:
                attrs.append(self._attr(step, a))
        if container is not None and meaning.entity and entity.endswith(_words(meaning.entity)):
            entity = _words(meaning.entity)  # "an item" of "my order", not "an order item"
        short = f"the new {entity}"
        if verb in ("follow", "unfollow", "like", "subscribe", "unsubscribe") and refs:
            obj = _join([np.render() for _, np in refs])
            prep = " to" if verb == "subscribe" else (" from" if verb == "unsubscribe" else "")
            clause = f"{verb}{prep} {obj}"
            tail = f" with {_join(attrs)}" if attrs else ""
            return clause + tail, f"you {_participle(verb)} {obj}", ("new", step.index)
        if verb in ("book", "reserve", "rent", "hire", "buy", "purchase") and refs and not container:
            obj = refs[0][1].render()
            more = [f"for {np.render()}" for _, np in refs[1:]]
            tail = f" with {_join(attrs)}" if attrs else ""
            clause = " ".join([f"{verb} {obj}", *more]) + tail
            return clause, f"{refs[0][1].short or obj} is {_participle(verb)}", ("new", step.index)
        if (
            verb is None
            and step.verb in ("set", "change", "update", "adjust", "switch")
            and attrs
            and not refs
        ):
            # an insert that records a setting (`set_volume` -> a volumes row): "set the volume to 84"
            sets = [
                a for a in rest if a.binding and not self._key_table(a) and not (a.hidden and not show_hidden)
            ]
            said = [f"the {_col_words(a.binding.column or a.arg, a.arg)} to {_fmt(a.value)}" for a in sets]
            if said:
                return (
                    f"{step.verb} {_join(said)}",
                    _join([f"{x.split(' to ')[0]} is {x.split(' to ', 1)[1]}" for x in said]),
                    (
                        "new",
                        step.index,
                    ),
                )
        if verb is None and step.verb in _ACTION_VERBS:
            noun = entity if entity in _UNCOUNTABLE else f"{_article(entity)} {entity}"
            tail = f" with {_join(attrs)}" if attrs else ""
            more = "".join(f" for {np.render()}" for _, np in refs)
            return (
                f"{step.verb} {noun}{more}{tail}",
                f"the {entity} is {_participle(step.verb)}",
                ("new", step.index),
            )
        if verb is None:
            verb = "add" if container is not None else "create"
        det = _article(entity)
        if verb == "place":
            noun = f"{'a new' if self.rng.random() < 0.5 else det} {entity}"
        elif verb in (
            "add",
            "create",
            "open",
            "register",
            "submit",
            "send",
            "schedule",
            "post",
            "file",
            "issue",
        ):
            noun = f"{'a new' if verb == 'create' and self.rng.random() < 0.5 else det} {entity}"
        else:
            noun = f"{det} {entity}"
        parts = [f"{verb} {noun}"]
        if container is not None:
            parts.append(f"to {container.render()}")
        prep = "to" if verb in ("send", "transfer", "invite") else "for"
        parts += [f"{prep} {np.render()}" for _, np in refs]
        clause = " ".join(parts)
        if attrs:
            clause += f" with {_join(attrs)}"
        return clause, f"{short} is {_participle(verb)}", ("new", step.index)

    # -- the whole request

    def _consumed(self) -> set[int]:
        """Reads whose results only feed later calls: said as references, not as requests of their own."""
        feeding: set[int] = set()
        for step in self.steps:
            for a in step.args:
                parsed = _parse_source(a.source)
                if parsed and parsed[0] < step.index:
                    feeding.add(parsed[0])
        consumed = set()
        for i in feeding:
            s = self.steps[i]
            if s.kind in ("get", "list", "count") and not self._answers_in(s):
                consumed.add(i)
        return consumed

    def _answers_in(self, step: _Step) -> bool:
        rows = step.result if isinstance(step.result, list) else [step.result]
        for ans in self.draft.answer_facts:
            for row in rows:
                values = row.values() if isinstance(row, dict) else [row]
                if any(_same(v, ans) for v in values):
                    return True
        return False

    def _lookup_np(self, step: _Step) -> _NP | None:
        """The row a lookup finds for the next call, when that call acts on the row itself (its key)."""
        nxt = self.steps[step.index + 1] if step.index + 1 < len(self.steps) else None
        for a in nxt.args if nxt else []:
            parsed = _parse_source(a.source)
            if not (a.binding and a.binding.place == "key" and a.binding.main and parsed):
                continue
            if parsed[0] != step.index or nxt.table != step.table or not parsed[1]:
                continue
            if parsed[1][-1] != _pk(self.spec, step.table):
                continue
            np = self._derived_np(a, nxt.table)
            return np if np.row is not None else None
        return None

    def clauses(self, show_hidden: bool) -> tuple[list[str], list[str], list[str]]:
        """(clauses, write outcomes, answers) of the request, in call order."""
        consumed: set[int] = set()
        if self.draft.kind == "policy":
            steps = list(self.request_steps)  # the user asks for the forbidden write, nothing else
        else:
            consumed = self._consumed()
            steps = list(self.steps)
        clauses, outcomes, answers = [], [], []
        prev_row = None
        self.show_hidden = show_hidden
        for step in steps:
            if step.index in consumed:
                # a lookup that only finds the row the next call acts on: sometimes said ("look up my
                # pending order and cancel it"), otherwise folded into that call ("cancel my pending order")
                found = self._lookup_np(step)
                if found is not None:
                    if step.index not in self.explicit:
                        self.explicit[step.index] = self.rng.random() < 0.4
                    if self.explicit[step.index]:
                        clauses.append(f"look up {found.render()}")
                        prev_row = found.row
                continue
            clause, outcome, row = self._clause(step, show_hidden, prev_row)
            clauses.append(clause)
            (answers if step.kind in ("get", "list", "count") else outcomes).append(outcome)
            prev_row = row
        if not clauses:
            clauses, outcomes = ["get some help with my account"], ["the assistant has helped you"]
        return clauses, outcomes, answers

    def request(self, clauses: list[str]) -> str:
        if len(clauses) == 1:
            return clauses[0]
        if len(clauses) == 2:
            return f"{clauses[0]}{self.rng.choice((' and then ', ', then ', ' and '))}{clauses[1]}"
        return ", ".join(clauses[:-1]) + ", and finally " + clauses[-1]

    def persona(self) -> str:
        domain = _domain(self.spec)
        if domain:
            name, place, user_who, staff_who = domain
            personal = name in _PERSONAL
        else:
            place, user_who, staff_who, personal = _fallback_place(self.spec), "a user of {place}", "", False
            if self.person:
                user_who = f"{_article(_entity(self.person))} {_entity(self.person)} of {{place}}"
            staff_who = "someone who works with {place}"
        who = user_who if self.customer or personal else staff_who
        template = self.rng.choice(_PERSONA_TEMPLATES)
        return template.format(who=who.format(place=place))

    def extra_facts(self, text: str, style: str) -> list[str]:
        """Sentences that give the known facts the request does not already state."""
        sentences = []
        for name, value in self.known.items():
            if mentions(text, value) or isinstance(value, bool) or value is None:
                continue
            mine = self._fact_is_mine(name)
            shown = _fmt(value)
            if style == "terse":
                sentences.append(f"{_cap(name)}: {shown}.")
            elif mine:
                sentences.append(
                    self.rng.choice((f"My {name} is {shown}.", f"For reference, my {name} is {shown}."))
                )
            else:
                sentences.append(f"The {name} is {shown}.")
        return sentences

    def _fact_is_mine(self, name: str) -> bool:
        for step in self.steps + self.request_steps:
            for a in step.args:
                if a.fact == name and self.person and self.customer:
                    table = self._key_table(a)
                    if table == self.person or (a.binding and a.binding.table == self.person):
                        return True
        return bool(self.person and self.customer and name.startswith(_entity(self.person)))


def _first_message(writer: _Writer, request: str, style: str) -> str:
    rng = writer.rng
    if style == "terse":
        body = _cap(request) + "."
    elif style == "vague":
        body = rng.choice(
            (
                f"Hi, I'm not sure this is the right place, but I think I need to {request}.",
                f"Um, hello. I was wondering if you could maybe {request}?",
                f"Hey, so... I'd like to {request}, if that's possible.",
            )
        )
    else:
        opening = rng.choice(("Hi!", "Hello,", "Hi there.", "Good morning.", "Hello."))
        frame = rng.choice(
            (
                f"could you {request}?",
                f"I'd like to {request}.",
                f"I need to {request}.",
                f"can you help me {request}?",
                f"please {request}.",
                f"I was hoping you could {request}.",
            )
        )
        body = f"{opening} {_cap(frame) if not opening.endswith(',') else frame}"
    extras = writer.extra_facts(body, style)
    closing = "" if style == "terse" else rng.choice(("", "Thanks!", "Thank you.", "Thanks a lot."))
    return " ".join(p for p in [body, *extras, closing] if p)


def _second_person(text: str) -> str:
    text = re.sub(r"\bI have\b", "you have", text)
    return re.sub(r"\bmy\b", "your", text)


def _done_when(writer: _Writer, outcomes: list[str], answers: list[str]) -> str:
    return _second_person(_done_text(writer, outcomes, answers))


def _done_text(writer: _Writer, outcomes: list[str], answers: list[str]) -> str:
    kind = writer.draft.kind
    if kind == "policy":
        writer.brief = True
        what = writer.clauses(show_hidden=True)[0][0] if writer.request_steps else "do what you asked"
        writer.brief = False
        return f"when the assistant explains that it cannot {what}, or tells you it is done"
    parts = []
    if answers:
        parts.append(f"told you {_join(answers)}")
    if outcomes:
        parts.append(f"confirmed that {_join(outcomes)}")
    if kind == "missing_info" and writer.hidden:
        names = _join(list(writer.hidden))
        return f"when the assistant has asked for your {names} and then {_join(parts) or 'done the request'}"
    if answers and not outcomes:
        return f"when the assistant tells you {_join(answers)}"
    if outcomes and not answers:
        return f"when the assistant confirms that {_join(outcomes)}"
    return f"when the assistant has {_join(parts)}"


def write_instructions(draft: TaskDraft, spec: dict, rng: random.Random) -> Instructions:
    """The simulated user's instructions for `draft`, offline and deterministic given `rng`.

    Args:
        draft (`TaskDraft`): The task: its kind, gold calls with argument provenance, the user's facts
            (named by `fact_name`), withheld facts, answer facts, forbidden tools and policy rule.
        spec (`dict`): The environment spec the gold calls ran in.
        rng (`random.Random`): The only source of choices (templates, style).

    Returns:
        `Instructions`: `persona` from the environment's tables and tool groups; `goal` in the user's
        words with every value (withheld ones too, for the simulator); `known_facts` (`user_facts` minus
        `withheld`), `hidden_facts` (the withheld ones); `done_when` per kind; `first_message` carrying
        every known fact and no withheld one, no tool or column name; `style` (`plain`, sometimes `terse`
        or `vague`).

    Raises:
        `ValueError`: For a kind outside `KINDS` or a gold call of a tool the spec lacks.
    """
    writer = _Writer(draft, spec, rng)
    style = rng.choices(STYLES, weights=STYLE_WEIGHTS)[0]
    persona = writer.persona()
    full, outcomes, answers = writer.clauses(show_hidden=True)
    goal = f"I want to {writer.request(full)}."
    said, _, _ = writer.clauses(show_hidden=False) if writer.hidden else (full, None, None)
    first_message = _first_message(writer, writer.request(said), style)
    return Instructions(
        persona=persona,
        goal=goal,
        known_facts=dict(writer.known),
        hidden_facts=dict(writer.hidden),
        done_when=_done_when(writer, outcomes, answers),
        first_message=first_message,
        style=style,
    )


# ----------------------------------------------------------------------------- the LLM rewrite

REWRITE_PROMPT = """\
You rewrite the opening message of a person who asks an assistant for help, so that it reads like a real \
person wrote it: natural, {style_hint}, first person, no lists or labels. Also rewrite their goal (one \
first-person sentence) in the same voice.

Who they are: {persona}
Their goal: {goal}
Their current opening message: {first_message}

Rules:
- Keep these values in the opening message, written exactly as here: {required}.
- Never mention these values in the opening message (the person gives them only when asked): {hidden}.
- Keep the requested action ({actions}); do not add requests.
- Never use these names: {tools}. Never write database field names such as order_id.
- Where the message already describes something instead of naming it ("my most recent order"), keep the \
description.{implicit}

Answer with one JSON object and nothing else: {{"goal": "...", "first_message": "..."}}"""

_STYLE_HINTS = {
    "plain": "polite and clear",
    "terse": "short and to the point, without pleasantries",
    "vague": "a little hesitant and loosely worded, but still complete",
}


def _required_facts(original: Instructions) -> dict[str, Any]:
    """Known facts the original first message states: the rewrite must state them too."""
    return {n: v for n, v in original.known_facts.items() if mentions(original.first_message, v)}


def _actions(draft: TaskDraft) -> list[tuple[str, list[str]]]:
    """(verb, words that count as asking for it) per write the user requests."""
    asked = [c for c in draft.calls if c.write]
    if draft.kind == "policy":
        forbidden = set(draft.forbidden) | (
            {draft.policy_rule["tool"]} if (draft.policy_rule or {}).get("tool") else set()
        )
        asked = [c for c in draft.calls if c.tool in forbidden] or [
            GoldCall(t, {}, {}) for t in sorted(forbidden)
        ]
    out = []
    for call in asked:
        meaning = tool_meaning(call.tool)
        verb = meaning.verb or ""
        group = "update" if meaning.effect == "status" else meaning.effect
        words = [verb, _participle(verb), *meaning.status_value] if verb else []
        words += _ACTION_SYNONYMS.get(group, [])
        if meaning.effect == "status":
            words += _ACTION_SYNONYMS["delete"] if verb in ("cancel", "close", "archive", "void") else []
        out.append((verb or group, sorted({w for w in words if w})))
    return out


def _says_any(text: str, words: list[str]) -> bool:
    low = _norm(text)
    return any(re.search(rf"\b{re.escape(w)}", low) for w in words)


def _implicit_allowed(draft: TaskDraft, original: Instructions) -> dict[str, tuple[list[str], list[Any]]]:
    """Known facts a rewrite may describe instead of state, and how: a user-given key that an earlier gold
    call also returned as the strictly newest (or oldest) of its rows can be "my most recent ..." as long as
    the values that call was asked with stay in the message. -> {fact: (accepted words, values to keep)}."""
    allowed: dict[str, tuple[list[str], list[Any]]] = {}
    for j, call in enumerate(draft.calls):
        for arg, value in call.arguments.items():
            if call.provenance.get(arg, "user") != "user":
                continue
            name = next((n for n, v in original.known_facts.items() if _same(v, value)), None)
            if name is None or name in allowed:
                continue
            for earlier in draft.calls[:j]:
                rows = _unwrap(earlier.result)
                if not isinstance(rows, list) or len(rows) < 2 or not all(isinstance(r, dict) for r in rows):
                    continue
                hit = [
                    r
                    for r in rows
                    if any(_same(v, value) for k, v in r.items() if k == arg or k.endswith("id"))
                ]
                if len(hit) != 1:
                    continue
                for column in hit[0]:
                    values = [r.get(column) for r in rows]
                    mine = hit[0].get(column)
                    if not (
                        _DATE_COLUMNS.search(column) and isinstance(mine, str) and values.count(mine) == 1
                    ):
                        continue
                    if not all(isinstance(v, str) for v in values):
                        continue
                    keep = [
                        v for a, v in earlier.arguments.items() if earlier.provenance.get(a, "user") == "user"
                    ]
                    if mine == max(values):
                        allowed[name] = (["most recent", "latest", "last", "newest"], keep)
                    elif mine == min(values):
                        allowed[name] = (["oldest", "earliest", "first"], keep)
                    break
    return allowed


def check_rewrite(rewritten: Instructions, original: Instructions, draft: TaskDraft) -> str | None:
    """Why a rewrite of `original` cannot replace it, or `None` when it keeps what the task needs.

    The rewritten first message must state every known fact the original one stated (or, for a key the
    draft shows to be the newest or oldest of an earlier lookup, describe it so and keep that lookup's
    values), state no hidden fact, still ask for every requested write, and name no tool of the draft and
    no `*_id` column; the rewritten goal must keep every fact value the original goal had.
    """
    goal, message = (rewritten.goal or "").strip(), (rewritten.first_message or "").strip()
    if not goal or not message:
        return "rewrite is empty"
    if len(message) > 2000 or len(goal) > 2000:
        return "rewrite is too long"
    implicit = _implicit_allowed(draft, original)
    for name, value in _required_facts(original).items():
        if mentions(message, value):
            continue
        words, keep = implicit.get(name, ([], []))
        if words and _says_any(message, words) and all(mentions(message, v) for v in keep):
            continue
        return f"rewrite dropped fact {name!r}"
    for name, value in {**original.known_facts, **original.hidden_facts}.items():
        if mentions(original.goal, value) and not mentions(goal, value):
            return f"rewrite dropped fact {name!r} from the goal"
    for name, value in original.hidden_facts.items():
        if not isinstance(value, bool) and value is not None and mentions(message, value):
            return f"rewrite leaks hidden fact {name!r}"
    for verb, words in _actions(draft):
        if _says_any(original.first_message, words) and not _says_any(message, words):
            return f"rewrite dropped the action {verb!r}"
    names = (
        {c.tool for c in draft.calls} | set(draft.forbidden) | set(draft.required) | set(draft.distractors)
    )
    if (draft.policy_rule or {}).get("tool"):
        names.add(draft.policy_rule["tool"])
    for text in (message, goal):
        leaked = tool_names_in(text, names)
        if leaked:
            return f"rewrite names tool {leaked[0]!r}"
        column = _COLUMN_NAME.search(text)
        if column and not _COLUMN_NAME.search(original.first_message + " " + original.goal):
            return f"rewrite names a column {column.group(0)!r}"
    return None


def _parse_rewrite(content: str | None) -> dict[str, str] | str:
    text = (content or "").strip()
    text = re.sub(r"^```(?:json)?\s*|\s*```$", "", text)
    start, end = text.find("{"), text.rfind("}")
    try:
        data = json.loads(text[start : end + 1]) if start >= 0 < end else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in ("goal", "first_message")):
        return "rewrite is not a JSON object with 'goal' and 'first_message'"
    return {"goal": data["goal"].strip(), "first_message": data["first_message"].strip()}


def rewrite_prompt(instructions: Instructions, draft: TaskDraft) -> str:
    """The prompt `rewrite_instructions` sends (one user message)."""
    required = _required_facts(instructions)
    names = sorted({c.tool for c in draft.calls} | set(draft.forbidden) | set(draft.distractors))
    implicit = _implicit_allowed(draft, instructions)
    hint = ""
    if implicit:
        hint = (
            " You may replace "
            + _join(
                [
                    f"{_fmt(instructions.known_facts[n])} by a reference such as '{words[0]}'"
                    for n, (words, _) in implicit.items()
                ]
            )
            + " (it is the "
            + _join([words[0] for words, _ in implicit.values()])
            + " one)."
        )
    return REWRITE_PROMPT.format(
        style_hint=_STYLE_HINTS.get(instructions.style, "natural"),
        persona=instructions.persona,
        goal=instructions.goal,
        first_message=instructions.first_message,
        required=", ".join(f"{n}: {_fmt(v)}" for n, v in required.items()) or "(none)",
        hidden=", ".join(f"{n}: {_fmt(v)}" for n, v in instructions.hidden_facts.items()) or "(none)",
        actions=_join([verb for verb, _ in _actions(draft)]) or "the request",
        tools=", ".join(names) or "(none)",
        implicit=hint,
    )


async def rewrite_instructions(
    instructions: Instructions, draft: TaskDraft, client: LLMClient, model: str
) -> tuple[Instructions, str | None]:
    """Rewrite `goal` and `first_message` with an LLM toward what a person would write, and keep the rewrite
    only if `check_rewrite` accepts it.

    Args:
        instructions (`Instructions`): The offline instructions (`write_instructions`).
        draft (`TaskDraft`): Their task.
        client (`LLMClient`): An open client of an OpenAI-compatible endpoint.
        model (`str`): The served model id.

    Returns:
        `(rewritten, None)` when the rewrite keeps every fact the task needs, else `(instructions, reason)`,
        e.g. `"rewrite dropped fact 'order number'"`, `"rewrite leaks hidden fact 'order number'"`, or
        `"rewrite failed: ..."` when the request itself failed.
    """
    from ..llm import LLMError

    messages = [{"role": "user", "content": rewrite_prompt(instructions, draft)}]
    try:
        result = await client.chat(messages, model=model)
    except LLMError as exc:
        return instructions, f"rewrite failed: {exc}"
    parsed = _parse_rewrite(result.content)
    if isinstance(parsed, str):
        return instructions, parsed
    candidate = replace(instructions, goal=parsed["goal"], first_message=parsed["first_message"])
    problem = check_rewrite(candidate, instructions, draft)
    return (instructions, problem) if problem else (candidate, None)
