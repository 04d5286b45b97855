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

The user's side of a task reads in four modules: `envscale.tasks.wording` (the vocabulary: how identifiers,
values, verbs and prepositions are said), `envscale.tasks.naming` (how a spec's entities, keys and facts are
named; `fact_name`), this module (reading a draft and building the request from its calls) and
`envscale.tasks.rewrite` (an LLM's rewrite of the request and `check_rewrite`, which keeps it honest). Their
public names are importable from here.

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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..semantics import STATUS_VERBS, key_entity, singular
from ..sources.normalize import tokens
from .model import KINDS, GoldCall, Instructions, TaskDraft
from .naming import (
    Binding,
    args_in,
    declared_meaning,
    entity_name,
    fact_name,
    id_phrase,
    implied_table,
    keyed_by_id,
    original_tool_name,
    owned_tables,
    person_table,
    primary_key_of,
    spec_tables,
    spec_tools,
    table_columns,
    tool_bindings,
    tool_fact_names,
)
from .rewrite import REWRITE_PROMPT, check_rewrite, rewrite_instructions, rewrite_prompt
from .wording import (
    ACTION_VERBS,
    ADJECTIVES,
    CREATE_NATURAL,
    DATE_COLUMNS,
    DELETE_NATURAL,
    DESCRIBED_NOT_THINGS,
    GENERIC_DELTA,
    GENERIC_UPDATES,
    NOMINAL_ENDINGS,
    NOTES,
    ON_ACCOUNT,
    PEOPLE,
    PREPOSITIONS,
    PRICE_COLUMNS,
    QUOTED,
    READS,
    ROLES,
    SIGN_VERBS,
    STATUS_COLUMNS,
    UNCOUNTABLE,
    UNDO_VERBS,
    UPDATE_NATURAL,
    WHEN_OF,
    article,
    cap,
    col_words,
    describe,
    format_value,
    free_text,
    is_placeholder,
    join,
    mentions,
    names_the_act,
    participle,
    plural_phrase,
    readable_words,
    same_value,
    same_words,
    tool_names_in,
    unwrap,
)

if TYPE_CHECKING:
    import random

__all__ = [
    "REWRITE_PROMPT",
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
_OWN_NAMES = frozenset("display full person given first last nick short friendly common legal".split())
"""Names a row goes by itself (`display_name`): "the contact named ..."; `artist_name` is another's."""
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
    for table in spec_tables(spec):
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
    entities = [plural_phrase(entity_name(t, spec)) for t in list(spec_tables(spec))[:3]]
    return f"a system that keeps track of {join(entities)}" if entities else "an online service"


# ----------------------------------------------------------------------------- the draft, read


def _own_words(a: Any, step: Any) -> list[str]:
    """Words of the column an argument fills; for a new row, without a leading `new` (`new_alarm_time` of a
    new alarm is its "alarm time")."""
    words = tokens((a.binding.column if a.binding else None) or a.arg)
    return words[1:] if step.kind == "create" and len(words) > 1 and words[0] == "new" else words


def _in_path(step: Any, a: Any) -> bool:
    """An argument of the request's path that the operation binds to a column it sets: it names the row
    (`/budgets/{budget_id}/...`), so the request never says it as a change."""
    schema = ((step.tool.get("parameters") or {}).get("properties") or {}).get(a.arg)
    return bool(
        a.binding and a.binding.place == "set" and isinstance(schema, dict) and schema.get("x-in") == "path"
    )


@dataclass
class _Arg:
    arg: str
    value: Any
    source: str
    binding: Binding | None
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
class NP:
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
        head = plural_phrase(self.head) if self.plural else self.head
        body = " ".join([*self.pre, head, self.label]).strip()
        det = self.det
        if det in ("a", "an"):
            det = article(body)
        having = [f"with {join(self.having)}"] if self.having else []
        return " ".join(p for p in [det, body, *self.post, *having] if p)


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
    node, rows, index = unwrap(result), None, None
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


class Writer:
    """Builds the instructions of one draft; every random choice goes through `rng`, in a fixed order."""

    def __init__(self, draft: TaskDraft, spec: dict, rng: random.Random):
        if draft.kind not in KINDS:
            raise ValueError(f"TaskDraft.kind must be one of {KINDS}, got {draft.kind!r}")
        self.draft, self.spec, self.rng = draft, spec, rng
        self.tools = spec_tools(spec)
        self.person = person_table(spec)
        self.session = bool(isinstance(spec.get("session"), dict) and self.person)
        self.owned = owned_tables(spec, self.person)
        self.known = {n: v for n, v in draft.user_facts.items() if n not in draft.withheld}
        self.hidden = {n: draft.user_facts[n] for n in draft.withheld if n in draft.user_facts}
        self.brief = False  # "cancel the order": the short form, for done_when
        self.explicit: dict[int, bool] = {}  # lookups said as requests of their own (chosen once per task)
        self.said_rows: list[Any] = []  # rows the current clause has named (for "that product's price")
        self.obj_of = ""  # the current clause's object after "of"/"to" ("the status of order 7")
        self.show_hidden = True  # whether withheld values are said (the goal) or not (the first message)
        self.asked_attribute = False  # the last clause asked for a value of a row ("it" would be that value)
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
        meaning = declared_meaning(tool)
        table = op.get("table") if op.get("table") in spec_tables(self.spec) else None
        entity = entity_name(table, self.spec) if table else readable_words(meaning.entity or "record")
        kind, status = self._kind(op, meaning, call)
        binds = tool_bindings(tool)
        names = tool_fact_names(tool, self.spec)
        args = []
        used: set[str] = set()
        for arg, value in call.arguments.items():
            source = call.provenance.get(arg, "user")
            a = _Arg(arg, value, source, binds.get(arg))
            if not source.startswith("call["):
                a.fact = self._find_fact(names.get(arg) or readable_words(arg), value, used)
                if a.fact:
                    used.add(a.fact)
                a.hidden = a.fact in self.hidden
            args.append(a)
        verb = self._described_verb(tool, kind, meaning.verb, entity)
        return _Step(
            index, call, tool, op, table, entity, kind, verb, status, args, unwrap(call.result), meaning
        )

    @staticmethod
    def _described_verb(tool: dict, kind: str, verb: str | None, entity: str = "") -> str | None:
        """The verb of the request: the tool description's (`remove` from "Removes a calendar ...") when it
        is a natural one for what the call does, or when the row it creates is that action itself
        (`unsuspend` from "Unsuspend User" for an `unsuspends` row); else the one of the tool's name."""
        first = re.match(r"\s*([A-Za-z]+)", str(tool.get("description") or ""))
        if (
            kind == "create"
            and verb not in CREATE_NATURAL
            and first
            and names_the_act(entity, first.group(1).lower())
        ):
            return first.group(1).lower()
        described = describe(tool.get("description"))
        natural = {
            "delete": DELETE_NATURAL,
            "create": CREATE_NATURAL | ACTION_VERBS,
            "update": (UPDATE_NATURAL | ACTION_VERBS | CREATE_NATURAL) - GENERIC_UPDATES,
            "status": STATUS_VERBS,
        }.get(kind, frozenset())
        if described and described[0] in natural:
            return described[0]
        return verb

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
                    STATUS_COLUMNS.search(column) or "enum" in self._col(op, column)
                ):
                    return "status", value
            if meaning.effect == "status" and meaning.status_value and not self._set_args(op, call):
                return "status", meaning.status_value[0]
            return "update", None
        effect = meaning.effect
        return {"read": "get", "create": "create", "delete": "delete"}.get(effect, effect), None

    def _col(self, op: dict, column: str) -> dict:
        return table_columns(self.spec, op.get("table")).get(column) or {}

    @staticmethod
    def _set_args(op: dict, call: GoldCall) -> list[str]:
        return [a for expr in (op.get("set") or {}).values() for a in args_in(expr) if a in call.arguments]

    def _find_fact(self, name: str, value: Any, used: set[str]) -> str | None:
        facts = self.draft.user_facts
        if name in facts and name not in used and same_value(facts[name], value):
            return name
        candidates = [n for n in facts if n not in used and same_value(facts[n], value)]
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
            names = tool_fact_names(tool, self.spec)
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
            return next((t for t in spec_tables(self.spec) if singular(t) == ent), None) if ent else None
        if b.place == "limit" or b.column is None:
            return None
        coldef = table_columns(self.spec, b.table).get(b.column) or {}
        if coldef.get("references"):
            return coldef["references"]
        if b.column == primary_key_of(self.spec, b.table) and b.place in ("key", "filter", "value"):
            return b.table
        if b.place == "key":
            return b.table
        if b.place in (
            "value",
            "filter",
            "set",
        ):  # `warehouse_id` without `references` still names a warehouse
            return implied_table(self.spec, b.column, b.table)
        return None

    # -- noun phrases

    def _self_np(self, table: str) -> NP:
        """The user's own row: `my account` for a table of people, else `my vehicle`, `my profile`."""
        head = singular(table).split("_")[-1]
        noun = "account" if head in PEOPLE or head == "account" else entity_name(table, self.spec)
        return NP(noun, "my", row=(table, "self"), short=f"your {noun}")

    def _value_np(self, table: str | None, value: Any, hidden: bool) -> NP:
        """A row named by its key: `my order ord_0007`, `order ord_0007`, `one of my orders`, `my account`."""
        entity = entity_name(table, self.spec) if table else "record"
        short = f"the {entity}"
        if (
            table
            and table == self.person
            and self.customer
            and (self.session or same_value(value, self.self_value))
        ):
            return self._self_np(table)
        pk = primary_key_of(self.spec, table)
        natural = pk and not keyed_by_id(pk, key=True)
        head = id_phrase(self.spec, table) if natural else entity
        mine = self.customer and table in self.owned
        if hidden:
            if mine:
                return NP(entity, "one of my", plural=True, row=(table, value), short=short)
            return NP(entity, "a", row=(table, value), short=short)
        label = format_value(value)
        if isinstance(value, str) and free_text(value):
            label = f'"{label}"'  # a row keyed by a sentence: 'the todo "Call the bank."'
        return NP(head, "my" if mine else "", label=label, row=(table, value), short=short)

    def _arg_np(self, a: _Arg, show_hidden: bool) -> NP:
        """The row an argument names, whatever its provenance."""
        table = self._key_table(a)
        if a.source.startswith("call["):
            np = self._derived_np(a, table)
            self.said_rows.append(np.row)
            return np
        return self._value_np(table, a.value, a.hidden and not show_hidden)

    def _derived_np(self, a: _Arg, table: str | None) -> NP:
        parsed = _parse_source(a.source)
        if not parsed or parsed[0] >= len(self.steps):
            return NP(
                entity_name(table, self.spec) if table else readable_words(a.arg), "the right", short="it"
            )
        src = self.steps[parsed[0]]
        row, field_, rows, index = _locate(src.call.result, parsed[1])
        base = self._row_np(src, row, rows, index)
        if field_ is None or src.table is None:
            return base
        pk = primary_key_of(self.spec, src.table)
        if field_ == pk or (table == src.table and field_ in (src.op.get("key") or {})):
            return base
        coldef = table_columns(self.spec, src.table).get(field_) or {}
        ref = coldef.get("references")
        if ref:
            if ref == self.person and self.customer:
                return self._self_np(ref)
            value = row.get(field_) if isinstance(row, dict) else None
            return NP(
                entity_name(ref, self.spec),
                "the",
                post=[f"of {base.render()}"],
                row=(ref, value),
                short=f"the {entity_name(ref, self.spec)}",
            )
        if base.row is not None and base.row in self.said_rows:  # the row is named already in this request
            return NP(readable_words(field_), f"that {src.entity}'s", short=f"the {readable_words(field_)}")
        return NP(
            readable_words(field_), "the", post=[f"of {base.render()}"], short=f"the {readable_words(field_)}"
        )

    def _row_np(self, src: _Step, row: Any, rows: list | None, index: int | None) -> NP:
        """The row an earlier call found or made: `the new order`, `my most recent pending order`."""
        entity = src.entity
        short = f"the {entity}"
        if src.kind == "create":
            return NP(entity, "the", pre=["new"], row=("new", src.index), short=f"the new {entity}")
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
        return NP(entity, "that", row=("row", src.index, index), short=short)

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
            if DATE_COLUMNS.search(column) and re.match(r"\d{4}-\d\d-\d\d", mine):
                if values.count(mine) == 1 and mine == max(values):
                    return "pre", "most recent"
                if values.count(mine) == 1 and mine == min(values):
                    return "pre", "oldest"
        for column in row:
            values = [r.get(column) for r in dicts]
            mine = row.get(column)
            if PRICE_COLUMNS.search(column) and isinstance(mine, (int, float)) and values.count(mine) == 1:
                numbers = [v for v in values if isinstance(v, (int, float))]
                if len(numbers) == len(values) and mine == min(numbers):
                    return "pre", "cheapest"
                if len(numbers) == len(values) and mine == max(numbers):
                    return "pre", "most expensive"
        pk = primary_key_of(self.spec, src.table)
        ordered = sorted(
            row, key=lambda c: (c not in ("name", "title", "label", "subject"), not STATUS_COLUMNS.search(c))
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
            if STATUS_COLUMNS.search(column):
                return "pre", format_value(mine, enum=True)
            if column in ("name", "title", "label"):
                return "post", f'named "{mine}"'
            return (
                "post",
                f"whose {readable_words(column)} is {format_value(mine, enum='enum' in self._col(src.op, column))}",
            )
        ordinals = "first second third fourth fifth sixth seventh eighth ninth tenth".split()
        return "pre", (ordinals[index] if index < len(ordinals) else f"number {index + 1}") + " listed"

    def _filters_np(self, step: _Step, show_hidden: bool) -> NP:
        """The rows a lookup asks for: `my pending orders`, `products in the books category that cost at most 30`."""
        np = NP(step.entity, "the", plural=True, short=f"the {plural_phrase(step.entity)}")
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
            if (
                table == self.person
                and self.customer
                and (self.session or same_value(a.value, self.self_value))
            ):
                mine = True  # the user's own rows, whether or not they have said who they are yet
                continue
            if a.hidden and not show_hidden:
                continue
            if b.place == "limit":
                np.det = f"up to {format_value(a.value)}"
                continue
            if table and table != step.table:
                ref = self._arg_np(a, show_hidden)
                np.post.append(f"of {ref.render()}")
                continue
            if a.source.startswith("call["):  # "products with the same category as product pro_0001"
                ref = self._derived_np(a, table)
                source = ref.post[-1][3:] if ref.post and ref.post[-1].startswith("of ") else ref.render()
                np.post.append(f"with the same {col_words(b.column or a.arg, a.arg)} as {source}")
                continue
            self._filter_phrase(np, step, b.column or a.arg, b.op, a.value, a.arg)
        if mine and step.table in self.owned:
            np.det = "my" if not np.det.startswith("up to") else f"{np.det} of my"
        return np

    def _filter_phrase(
        self, np: NP, step: _Step, column: str, op: str, value: Any, arg: str | None = None
    ) -> None:
        enum = "enum" in self._col(step.op, column)
        words = col_words(column, arg)
        if isinstance(value, bool):
            if value and " " not in words:
                np.pre.append(words)  # "VIP customers"
            else:
                np.having.append(f"{words} {format_value(value)}")
        elif STATUS_COLUMNS.search(column) and op in ("eq", "in") and isinstance(value, (str, list)):
            np.pre.append(format_value(value, enum=True).replace(" and ", " or ").replace(", ", " or "))
        elif op in ("le", "lt"):
            np.post.append(
                f"costing at most {format_value(value)}"
                if PRICE_COLUMNS.search(column)
                else f"with {words} at most {format_value(value)}"
            )
        elif op in ("ge", "gt"):
            np.post.append(
                f"costing at least {format_value(value)}"
                if PRICE_COLUMNS.search(column)
                else f"with {words} at least {format_value(value)}"
            )
        elif op == "contains":
            np.post.append(f'whose {words} contains "{format_value(value)}"')
        elif column in ("category", "type", "kind", "genre", "section", "department"):
            np.post.append(f"in the {format_value(value, enum)} {words}")
        elif (
            op == "eq"
            and isinstance(value, str)
            and tokens(column)[-1:] == ["name"]
            and len(tokens(column)) == 2
            and tokens(column)[0] in ROLES
        ):  # "the sculpture with artist Robert Duffy", never "the sculpture named Robert Duffy"
            np.post.append(f"with {tokens(column)[0]} {format_value(value)}")
        elif column in ("name", "title") or (
            op == "eq"
            and isinstance(value, str)
            and tokens(column)[-1:] == ["name"]
            and tokens(column)[:1] != ["user"]
            and set(tokens(column)[:-1]) <= set(step.entity.split(" ")) | _OWN_NAMES
        ):  # "the contact named Erica Davis", not "the contact with person name Erica Davis"; another
            # thing's name is said as such ("the contact with company name Acme Corp")
            np.post.append(f'named "{format_value(value)}"')
        elif op == "in":
            np.having.append(f"{words} {format_value(value, enum).replace(' and ', ' or ')}")
        else:
            shown = format_value(value, enum)
            np.having.append(
                f'{words} "{shown}"' if isinstance(value, str) and free_text(value) else f"{words} {shown}"
            )

    # -- clauses

    def _attr(self, step: _Step, a: _Arg) -> str:
        """A value the request sets or creates: `a quantity of 2`, `the note "gift"`, `category books`."""
        b = a.binding
        column = (b.column if b else None) or a.arg
        enum = "enum" in self._col(step.op, column) if b else False
        label = col_words(column, a.arg)
        if b and b.place == "adjust" and not all(w in GENERIC_DELTA for w in tokens(a.arg)):
            label = readable_words(a.arg)
        if a.source.startswith("call["):
            ref = self._derived_np(a, self._key_table(a))
            return f"the {label} set to {ref.render()}"
        words = label.split(" ")
        if (
            len(words) >= 2
            and words[-1] == "name"
            and isinstance(a.value, str)
            and re.fullmatch(r"[A-Z][a-z'-]+(?: [A-Z][a-z'-]+){1,2}", a.value)
            and words[-2] in ROLES
        ):
            return f"{' '.join(words[:-1])} {a.value}"  # "stylist Vanessa Anderson"
        if isinstance(a.value, bool):  # "read only turned on", never "read only yes"
            if " " not in label and (label.endswith("ed") or label in ADJECTIVES):
                return label if a.value else f"not {label}"  # "enabled", "not public"
            return f"{label} turned {'on' if a.value else 'off'}"
        value = format_value(a.value, enum)
        if isinstance(a.value, list) and any(isinstance(v, str) and free_text(v) for v in a.value):
            return f"the {label} " + join([f'"{format_value(v)}"' for v in a.value])  # each sentence quoted
        if isinstance(a.value, str) and not enum and free_text(a.value):
            return f'the {label} "{value}"'
        if (tokens(column)[-1:] or [""])[0] in QUOTED and isinstance(a.value, str) and not enum:
            return f'the {label} "{value}"'
        if isinstance(a.value, (int, float)) and not isinstance(a.value, bool):
            last = label.rsplit(" ", 1)[-1]
            if label.startswith("number of ") and len(label) > 10:  # "2 seats", not "2 number of seats"
                return f"{value} {label[10:]}"
            if last in (
                "id",
                "number",
                "key",
                "code",
                "uuid",
            ):  # "account id 257", not "an account id of 257"
                return f"{label} {value}"
            if singular(last) != last:  # "98 chords", not "a chords of 98"
                return f"{value} {label}"
            return f"{article(label)} {label} of {value}"
        return f"{label} {value}"

    def _names_entity(self, step: _Step, a: _Arg) -> bool:
        """Whether an argument is the name of the row a create makes (`restaurant_name` of a restaurant)."""
        words = _own_words(a, step)
        return words == ["name"] or words == [*step.entity.split(" "), "name"]

    def _prep_attr(self, step: _Step, a: _Arg) -> tuple[str, str] | None:
        """A value said with its preposition instead of its name (`("from", "from Seattle, WA")`, "to ...",
        "on 2024-09-29", "at 10:30 AM", "in Berkeley, CA"): where a trip starts and ends, its date and time,
        the place something happens. `None` for the other values."""
        if a.source.startswith("call[") or not isinstance(a.value, str):
            return None
        if len(a.value.split()) > 8 or a.value.rstrip().endswith((".", "!", "?")):
            return None  # a sentence, not a place or a time
        words = " ".join(_own_words(a, step))
        value = format_value(a.value)
        head = words.rsplit(" ", 1)[0] if " " in words else ""
        listed = any(words in names for _, names, _ in PREPOSITIONS)
        if head and not listed and (head in WHEN_OF or head in step.entity.split(" ")):
            words = words.rsplit(" ", 1)[1]  # "visit date", "appointment time": when the thing happens
        for prep, names, shape in PREPOSITIONS:
            if words in names and (shape is None or shape.match(a.value)):
                if words.endswith("name") or words in ("hotel", "restaurant", "venue"):
                    return f"{prep} a place", f'{prep} "{value}"'  # "at "Ritz-Carlton Warsaw""
                key = f"{prep} a date" if prep in ("from", "until") and shape is not None else prep
                return key, f"{prep} {value}"
        return None

    def _clause(self, step: _Step, show_hidden: bool, prev_row: Any) -> tuple[str, str, Any]:
        """(clause, outcome for done_when, row acted on) of one step, in the user's words."""
        kind = step.kind
        self.said_rows = []
        keyed = [a for a in step.args if a.binding and a.binding.place == "key" and a.binding.main]
        target = (
            self._arg_np(keyed[0], show_hidden)
            if keyed
            else NP(step.entity, "the", short=f"the {step.entity}")
        )
        if not keyed and self.session and step.table == self.person:
            target = self._self_np(self.person)
        obj = "it" if prev_row is not None and target.row == prev_row else target.render()
        self.obj_of = obj  # after "of"/"to": "the status of order 7"
        if obj != "it" and not target.det and target.label:
            # "cancel the order 7", never "cancel order 7": a verb right before its entity reads as the
            # tool's name (`cancel_order`), which the leak gate rightly refuses
            obj = f"the {obj}"
        if obj == "it" and self.asked_attribute and kind == "delete":
            # "find out the email of customer 4 and delete the customer": "it" would be the email
            obj = target.short or f"the {step.entity}"
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
                and (tokens(a.binding.column or a.arg)[-1:] or [""])[0] not in NOTES
            ]
        if kind in ("get", "list", "count"):
            return self._read_clause(step, target, obj, show_hidden)
        if kind == "status":
            verb = (
                step.verb
                if step.verb
                and (
                    step.verb in STATUS_VERBS
                    or step.verb in UPDATE_NATURAL | DELETE_NATURAL | set(SIGN_VERBS)
                )
                else None
            )
            extras = [
                self._attr(step, a)
                for a in rest
                if not (a.hidden and not show_hidden) and not _in_path(step, a)
            ]
            tail = f" with {join(extras)}" if extras else ""
            status = format_value(step.status or "", enum=True)
            own = step.meaning.entity and target.row == (self.person, "self") and not keyed
            thing = readable_words(step.meaning.entity or "")
            if verb in SIGN_VERBS:
                clause = f"{SIGN_VERBS[verb]} {obj}{tail}"
            elif own and verb and thing not in (step.entity, target.head) and verb not in ("mark", "set"):
                clause = f"{verb} {article(thing)} {thing}{tail}"  # "start an oncall with ...", not "start my account"
            elif verb and verb not in ("mark", "set", "update", "change"):
                clause = f"{verb} {obj}{tail}"
            else:
                clause = f"mark {obj} as {status}{tail}"
            return clause, f"{short} is {status}", target.row
        if kind == "delete":
            verb = step.verb if step.verb in DELETE_NATURAL | UNDO_VERBS else "delete"
            key = keyed[0] if keyed else None
            if (
                key is not None
                and names_the_act(step.entity, verb)
                and isinstance(key.value, str)
                and " " in key.value
            ):
                # the row is the action itself (`unfollow_user` deletes a `followings` row): "unfollow Anne Lee"
                said = "someone" if key.hidden and not show_hidden else format_value(key.value)
                return f"{verb} {said}", f"you {participle(verb)} {said}", target.row
            return f"{verb} {obj}", f"{short} is {participle(verb)}", target.row
        if kind == "update":
            return self._update_clause(step, target, obj, rest, show_hidden)
        if kind == "create":
            return self._create_clause(step, rest, show_hidden)
        verb = readable_words(step.verb or "handle")
        return f"{verb} {obj}", f"the request is done for {short}", target.row

    def _how_many(self, step: _Step, show_hidden: bool) -> tuple[str, str]:
        """("how many X I have" / "... there are", the same told back to the user) of a counted list."""
        np = self._filters_np(step, show_hidden)
        owner = np.det == "my"
        np.det = "" if owner or np.det == "the" else np.det
        noun = np.render()
        what = f"how many {noun} I have" if owner else f"how many {noun} there are"
        told = f"how many {noun} you have" if owner else f"how many {noun} there are"
        return what, told

    def _read_clause(self, step: _Step, target: NP, obj: str, show_hidden: bool) -> tuple[str, str, Any]:
        answers = self.draft.answer_facts
        verb = self.rng.choice(("find out", "check", "look up"))
        if step.kind == "count":
            what, told = self._how_many(step, show_hidden)
            return f"{'find out' if verb == 'look up' else verb} {what}", told, None
        rows = step.result if isinstance(step.result, list) else [step.result]
        fields = []
        pk = primary_key_of(self.spec, step.table)
        asked = {a.binding.column for a in step.args if a.binding and a.binding.place in ("key", "filter")}
        for row in rows:
            for col, value in row.items() if isinstance(row, dict) else []:
                if col not in fields and col not in asked and any(same_value(value, ans) for ans in answers):
                    fields.append(col)
        if len(fields) > 1 and pk in fields:
            fields.remove(pk)
        counted = isinstance(step.result, list) and any(same_value(len(step.result), a) for a in answers)
        if (
            step.kind == "list"
            and counted
            and (not fields or any("number of rows" in n for n in self.draft.notes))
        ):
            what, told = self._how_many(step, show_hidden)
            return f"find out {what}", told, None
        if step.kind == "list":
            np = self._filters_np(step, show_hidden)
            one = fields and isinstance(step.result, list) and len(step.result) == 1
            if one and np.det in ("the", "all the"):  # "the status of the memory with key ..."
                np.plural = False
            noun = np.render()
            if fields:
                words = [readable_words(f) if one else plural_phrase(readable_words(f)) for f in fields[:3]]
                what = f"the {join(words)} of {noun}"
            else:
                what = noun
            lead = "find out" if fields or verb != "look up" else "look up"
            lead = "list" if not fields and self.rng.random() < 0.5 else lead
            return f"{lead} {what}", what, None
        if fields:
            labels = join([readable_words(f) for f in fields[:3]])
            possessive = "on" if target.head == "account" and set(labels.split()) & ON_ACCOUNT else "of"
            what = f"the {labels} {possessive} {self.obj_of}"
            told = f"the {labels} {possessive} {target.short}"
            return f"{'find out' if verb == 'look up' else verb} {what}", told, target.row
        return f"look up {obj}", f"the details of {target.short}", target.row

    def _carried(self, step: _Step, a: _Arg) -> bool:
        """A field an update sends unchanged, read from the same row by an earlier call (a PUT of the whole
        row): not a change the user asks for. `/budgets/{budget_id}/...` path arguments are not either."""
        parsed = _parse_source(a.source)
        if not parsed or not a.binding or a.binding.place != "set" or parsed[0] >= len(self.steps):
            return False
        src = self.steps[parsed[0]]
        return src.table == step.table and parsed[1][-1:] == [a.binding.column]

    def _update_clause(self, step: _Step, target: NP, obj: str, rest: list[_Arg], show_hidden: bool):
        short = target.short
        changes, outcome = [], []
        verb = self.rng.choice(("change", "update", "set"))
        move_from = target.render()
        effect_keys = [a for a in rest if a.binding and a.binding.place == "key"]
        adjusts = [a for a in rest if a.binding and a.binding.place == "adjust"]
        if step.verb in ("move", "transfer") and effect_keys and adjusts:
            amount = adjusts[0]
            dest = self._arg_np(effect_keys[0], show_hidden).render()
            label = readable_words(amount.binding.column or "")
            unit = "units" if re.search(r"quantity|stock|unit|count|on hand", label) else ""
            how_much = (
                "some"
                if amount.hidden and not show_hidden
                else " ".join(p for p in (format_value(amount.value), unit) if p)
            )
            others = [
                self._attr(step, a)
                for a in rest
                if a not in (amount, effect_keys[0]) and a.binding and a.binding.place != "key"
            ]
            tail = f" with {join(others)}" if others else ""
            clause = f"{step.verb} {how_much} from {move_from} to {dest}{tail}"
            return clause, f"the {step.verb} is done", target.row
        rest = [
            a for a in rest if not _in_path(step, a)
        ]  # `/budgets/{budget_id}/...` names the row: not a change
        sets = [a for a in rest if a.binding and a.binding.place in ("set", "adjust")]
        notes = [a for a in sets if (tokens(a.binding.column or a.arg)[-1:] or [""])[0] in NOTES]
        if len(notes) < len(sets):
            sets = [a for a in sets if a not in notes]
        extras = [self._attr(step, a) for a in rest if a not in sets and not (a.hidden and not show_hidden)]
        for n, a in enumerate(sets):
            b = a.binding
            column = b.column or a.arg
            label = col_words(column, a.arg)
            on = "on" if target.head == "account" and set(label.split()) & ON_ACCOUNT else "of"
            owner = f"its {label}" if obj == "it" else f"the {label} {on} {self.obj_of}"
            if (
                self.session
                and target.row == (self.person, "self")
                and target.head == "account"
                and on == "of"
            ):
                owner = f"the {label}"  # a setting kept on the account ("the volume"), not "the volume of my account"
            hidden = a.hidden and not show_hidden
            value = "" if hidden else format_value(a.value, "enum" in self._col(step.op, column))
            if value and isinstance(a.value, str) and free_text(a.value):
                value = f'"{value}"'  # a sentence the user dictates
            if a.source.startswith("call["):
                value = self._derived_np(a, self._key_table(a)).render()
            if b.place == "adjust":
                amount = a.value if isinstance(a.value, (int, float)) else 0
                up = (amount * b.sign) >= 0
                size = "" if hidden else f" by {format_value(abs(amount))}"
                changes.append(
                    f"{'increase' if up else 'decrease'} {owner if n == 0 else 'the ' + label}{size}"
                )
                outcome.append(f"the {label} {on} {short} is updated")
            elif len(sets) == 1 and STATUS_COLUMNS.search(column) and value and isinstance(a.value, str):
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
        if not changes and step.meaning.effect == "create" and step.verb in CREATE_NATURAL:
            # an update that adds a row elsewhere (`add_coupon` on an order): "add a coupon ... to my order"
            thing = readable_words(step.meaning.entity or "item")
            tail = f" with {join(extras)}" if extras else ""
            prep = "to" if step.verb in ("add", "attach", "apply", "link") else "for"
            clause = f"{step.verb} {article(thing)} {thing}{tail} {prep} {self.obj_of}"
            return clause, f"the {thing} is {participle(step.verb)} {prep} {short}", target.row
        if not changes:
            if step.verb in SIGN_VERBS:
                done = {
                    "logout": "logged out",
                    "login": "logged in",
                    "signout": "signed out",
                    "signin": "signed in",
                }
                return f"{SIGN_VERBS[step.verb]} {obj}", f"you are {done[step.verb]}", target.row
            verb = step.verb if step.verb in UPDATE_NATURAL | ACTION_VERBS | CREATE_NATURAL else "update"
            verb = "update" if verb in ("set", "change") else verb
            tail = f" with {join(extras)}" if extras else ""
            return f"{verb} {obj}{tail}", f"{short} is {participle(verb)}", target.row
        tail = f", with {join(extras)}" if extras else ""
        return join(changes) + tail, join(outcome), target.row

    def _create_clause(self, step: _Step, rest: list[_Arg], show_hidden: bool):
        meaning = step.meaning
        verb = step.verb if step.verb in CREATE_NATURAL else None
        entity = step.entity
        parent_name = meaning.parent
        refs, attrs, preps = [], [], []
        preps_args: list[_Arg] = []
        named: tuple[str, Any] | None = None
        container = None
        for a in rest:
            if is_placeholder(a.arg):
                continue  # never said (the generator leaves such arguments out)
            if a.hidden and not show_hidden:
                table = self._key_table(a)
                if table and table != step.table:
                    entity_ = entity_name(table, self.spec)
                    refs.append((a, NP(entity_, "a", short=f"the {entity_}")))
                continue
            table = self._key_table(a)
            if table and table != step.table:
                np = self._arg_np(a, show_hidden)
                if table == self.person and np.row == (table, "self"):
                    continue  # the user's own account: said as "My customer id is ..."
                if container is None and parent_name and singular(table).endswith(parent_name):
                    container = np
                elif any(np.head == other.head for _, other in refs):
                    attrs.append(self._attr(step, a))  # never "for project X for project Y": name the second
                else:
                    refs.append((a, np))
            elif a.binding and a.binding.place == "limit":
                continue
            elif (prep := self._prep_attr(step, a)) and prep[0] not in [p for p, _ in preps]:
                preps.append(prep)
                preps_args.append(a)
            elif named is None and isinstance(a.value, str) and self._names_entity(step, a):
                named = f'named "{format_value(a.value)}"'  # 'create an asset named "MV32"', not "with asset name MV32"
            else:
                attrs.append(self._attr(step, a))
        own_name = next(
            (
                i
                for i, (k, _) in enumerate(preps)
                if k.endswith("a place") and self._names_entity(step, preps_args[i])
            ),
            None,
        )
        if own_name is not None:  # "reserve the restaurant "X"", not "reserve a restaurant at "X""
            entity_named = preps.pop(own_name)[1].split(" ", 1)[1]
            preps_args.pop(own_name)
        else:
            entity_named = None
        where = "".join(f" {text}" for _, text in preps)
        if container is not None and meaning.entity and entity.endswith(readable_words(meaning.entity)):
            entity = readable_words(meaning.entity)  # "an item" of "my order", not "an order item"
        short = f"the new {entity}"
        nominal = self._nominal_clause(
            step, entity, [(None, container)] * bool(container) + refs, attrs, rest, where
        )
        if nominal is not None:
            return nominal
        if verb in ("follow", "unfollow", "like", "subscribe", "unsubscribe") and refs:
            obj = join([np.render() for _, np in refs])
            prep = " to" if verb == "subscribe" else (" from" if verb == "unsubscribe" else "")
            clause = f"{verb}{prep} {obj}"
            tail = f" with {join(attrs)}" if attrs else ""
            return clause + tail, f"you {participle(verb)} {obj}", ("new", step.index)
        if entity_named is not None and refs:  # a named row that also names others: say the name plainly
            attrs.insert(0, f"the name {entity_named}")
            entity_named = None
        if verb in ("book", "reserve", "rent", "hire", "buy", "purchase") and refs and not container:
            obj = refs[0][1].render()
            more = [f"for {np.render()}" for _, np in refs[1:]]
            tail = f" with {join(attrs)}" if attrs else ""
            clause = " ".join([f"{verb} {obj}", *more]) + where + tail
            return clause, f"{refs[0][1].short or obj} is {participle(verb)}", ("new", step.index)
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
            said = [
                f"the {col_words(a.binding.column or a.arg, a.arg)} to {format_value(a.value)}" for a in sets
            ]
            if said:
                return (
                    f"{step.verb} {join(said)}",
                    join([f"{x.split(' to ')[0]} is {x.split(' to ', 1)[1]}" for x in said]),
                    (
                        "new",
                        step.index,
                    ),
                )
        if verb is None and step.verb in ACTION_VERBS:
            noun = entity if entity in UNCOUNTABLE else f"{article(entity)} {entity}"
            tail = f" with {join(attrs)}" if attrs else ""
            more = "".join(f" for {np.render()}" for _, np in refs)
            return (
                f"{step.verb} {noun}{more}{where}{tail}",
                f"the {entity} is {participle(step.verb)}",
                ("new", step.index),
            )
        if verb is None or (verb == "create" and container is not None):
            verb = "add" if container is not None else "create"  # "add a registrant to webinar 3"
        det = article(entity)
        if named is not None:  # 'create an asset named "MV32"', not "with asset name MV32"
            noun = f"{det} {entity} {named}"  # `named` was never put in `attrs`
        elif entity_named is not None:
            noun = f"the {entity} {entity_named}"
        elif verb == "place":
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
        clause = " ".join(parts) + where
        if attrs:
            clause += f" with {join(attrs)}"
        return clause, f"{short} is {participle(verb)}", ("new", step.index)

    def _nominal_clause(
        self, step: _Step, entity: str, refs: list, attrs: list[str], rest: list[_Arg], where: str
    ) -> tuple[str, str, Any] | None:
        """An insert whose row is the action itself (a `followings` row for `follow_user`, a `deactivations`
        row for `DeactivateWarehouse`): said as the action on its object ("follow Eva Khan", "deactivate
        the warehouse war_0003"), never "follow a following". `None` when the row is a thing of its own."""
        verb = step.verb
        head = entity.split(" ")[-1]
        stem = verb[:-1] if verb and verb.endswith("e") else verb
        if not verb or len(stem) < 3 or not head.startswith(stem) or head[len(stem) :] not in NOMINAL_ENDINGS:
            return None
        if refs:
            objs = [np.render() for _, np in refs]
            objs = [o if o.split(" ")[0] in ("my", "the", "a", "an") else f"the {o}" for o in objs]
            obj = join(objs)
            said = attrs
        else:  # the value that names the object ("username to follow")
            named = [
                a
                for a in rest
                if isinstance(a.value, str)
                and not a.source.startswith("call[")
                and stem in "".join(tokens(a.arg))
                and not (a.hidden and not self.show_hidden)
            ]
            if len(named) == 1:
                obj = format_value(named[0].value)
                said = [x for x in attrs if not x.endswith(f" {obj}") and f'"{obj}"' not in x]
            elif (parent := getattr(step.meaning, "parent", None)) and verb in ("book", "reserve", "rent"):
                # a booking of a room, a reservation at a restaurant: "book a room in Los Angeles",
                # "make a reservation at "Mccarty Diner"", never "book a booking"
                if where.lstrip().startswith("at "):
                    tail = f" with {join(attrs)}" if attrs else ""
                    made = f"{article(entity)} {entity}"
                    return f"make {made}{where}{tail}", f"you made {made}", ("new", step.index)
                obj, said = f"{article(readable_words(parent))} {readable_words(parent)}", attrs
            else:  # the thing the tool's name says it acts on: `flight_book` -> "book a flight"
                words = [
                    w for w in tokens(original_tool_name(step.tool)) if w not in (verb, *entity.split(" "))
                ]
                if len(words) != 1 or words[0] in DESCRIBED_NOT_THINGS or len(words[0]) < 3:
                    return None
                obj, said = f"{article(words[0])} {readable_words(words[0])}", attrs
        tail = f" with {join(said)}" if said else ""
        return f"{verb} {obj}{where}{tail}", f"you {participle(verb)} {obj}", ("new", step.index)

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
            if s.kind not in READS:
                continue
            # a lookup whose row a later read of the same row reads again ("the subject of organizer 12's
            # webinar": list, then get): one request, said once, by the read that states the answer
            if not self._answers_in(s) or self._reread(i):
                consumed.add(i)
        return consumed

    def _reread(self, i: int) -> bool:
        """Whether every later call fed by read `i` is a read of the same table stating the answers too."""
        readers = [
            t
            for t in self.steps[i + 1 :]
            if any((_parse_source(a.source) or (None,))[0] == i for a in t.args)
        ]
        return bool(readers) and all(
            t.kind in READS and t.table == self.steps[i].table and self._answers_in(t) for t in readers
        )

    def _answers_in(self, step: _Step) -> bool:
        rows = step.result if isinstance(step.result, list) else [step.result]
        for ans in self.draft.answer_facts:
            for row in rows:
                values = row.values() if isinstance(row, dict) else [row]
                if any(same_value(v, ans) for v in values):
                    return True
        return False

    def _lookup_np(self, step: _Step) -> NP | None:
        """The row a lookup finds for the next call, when that call acts on the row itself (its key)."""
        nxt = self.steps[step.index + 1] if step.index + 1 < len(self.steps) else None
        for a in nxt.args if nxt else []:
            parsed = _parse_source(a.source)
            if not (a.binding and a.binding.place == "key" and a.binding.main and parsed):
                continue
            if parsed[0] != step.index or nxt.table != step.table or not parsed[1]:
                continue
            if parsed[1][-1] != primary_key_of(self.spec, step.table):
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
        self.asked_attribute = False
        self.show_hidden = show_hidden
        for step in steps:
            if step.index in consumed:
                # a lookup that only finds the row the next call acts on: sometimes said ("look up my
                # pending order and cancel it"), otherwise folded into that call ("cancel my pending order")
                found = self._lookup_np(step)
                if found is not None:
                    if step.index not in self.explicit:
                        # a lookup before a read of the same row is never a request of its own
                        self.explicit[step.index] = self.rng.random() < 0.4 and not self._reread(step.index)
                    if self.explicit[step.index]:
                        clauses.append(f"look up {found.render()}")
                        prev_row = found.row
                continue
            clause, outcome, row = self._clause(step, show_hidden, prev_row)
            if step.kind in READS and any(same_words(clause, c) for c in clauses):
                continue  # never ask for the same fact twice
            clauses.append(clause)
            (answers if step.kind in READS else outcomes).append(outcome)
            self.asked_attribute = step.kind in READS and clause.split(" ")[0] in ("find", "check")
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
                person = entity_name(self.person, self.spec)
                person = "account holder" if person == "account" else person  # never "an account of ..."
                user_who = f"{article(person)} {person} of {{place}}"
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
            shown = format_value(value)
            if style == "terse":
                sentences.append(f"{cap(name)}: {shown}.")
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
        return bool(self.person and self.customer and name.startswith(entity_name(self.person, self.spec)))


def _first_message(writer: Writer, request: str, style: str) -> str:
    rng = writer.rng
    if style == "terse":
        body = cap(request) + "."
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
        body = f"{opening} {cap(frame) if not opening.endswith(',') else frame}"
    extras = writer.extra_facts(body, style)
    closing = "" if style == "terse" else rng.choice(("", "Thanks!", "Thank you.", "Thanks a lot."))
    return " ".join(p for p in [body, *extras, closing] if p)


def _second_person(text: str) -> str:
    text = re.sub(r"\bI have\b", "you have", text)
    return re.sub(r"\bmy\b", "your", text)


def _done_when(writer: Writer, outcomes: list[str], answers: list[str]) -> str:
    return _second_person(_done_text(writer, outcomes, answers))


def _done_text(writer: Writer, outcomes: list[str], answers: list[str]) -> str:
    kind = writer.draft.kind
    if kind == "policy":
        writer.brief = True
        what = writer.clauses(show_hidden=True)[0][0] if writer.request_steps else "do what you asked"
        writer.brief = False
        return f"when the assistant explains that it cannot {what}, or tells you it is done"
    parts = []
    if answers:
        parts.append(f"told you {join(answers)}")
    if outcomes:
        parts.append(f"confirmed that {join(outcomes)}")
    if kind == "missing_info" and writer.hidden:
        names = join(list(writer.hidden))
        return f"when the assistant has asked for your {names} and then {join(parts) or 'done the request'}"
    if answers and not outcomes:
        return f"when the assistant tells you {join(answers)}"
    if outcomes and not answers:
        return f"when the assistant confirms that {join(outcomes)}"
    return f"when the assistant has {join(parts)}"


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
    writer = Writer(draft, spec, rng)
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
