"""A draft read as steps: what each gold call does, in the words the request will use.

`Steps(draft, spec, rng)` reads every gold call of a `TaskDraft` once: its table and the entity a person
names its rows by (`entity_name`), its kind (`get`, `list`, `count`, `create`, `update`, `status`,
`delete`), the verb of the request (the tool's meaning, or its description's verb when that reads better),
and each argument with its binding in the operation and the user's fact behind it (`Arg`, `Step`). For a
policy task it reads the forbidden write the user asks for. It also decides who the user is: a customer
acting on their own rows (`customer`, with their own key `self_value`), or staff acting for others.

`envscale.tasks.phrases.Phrases` builds on it (noun phrases), `envscale.tasks.clauses.Clauses` on that
(clauses), and `envscale.tasks.intent.Writer` composes the request.

Example:

```python
>>> import random
>>> from envscale.env import load_spec
>>> from envscale.tasks.model import GoldCall, TaskDraft
>>> from envscale.tasks.steps import Steps
>>> spec = load_spec("tests/fixtures/envs/shop.yaml")
>>> call = GoldCall("cancel_order", {"order_id": "ord_0007"}, {"order_id": "user"}, write=True)
>>> read = Steps(TaskDraft("shop", "write", [call], user_facts={"order number": "ord_0007"}), spec, random.Random(0))
>>> step = read.steps[0]
>>> step.entity, step.kind, step.status, step.args[0].fact
('order', 'status', 'cancelled', 'order number')
```
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any

from ..judge import parse_provenance
from ..words.inflect import singular
from ..words.names import tokens
from ..words.semantics import ACT_STATUS, key_entity
from ..words.verbs import (
    ACTION_VERBS,
    CREATE_NATURAL,
    DELETE_NATURAL,
    GENERIC_UPDATES,
    STATUS_VERBS,
    UPDATE_NATURAL,
)
from .model import KINDS, GoldCall, TaskDraft
from .naming import (
    Binding,
    args_in,
    declared_meaning,
    entity_name,
    implied_table,
    one_value,
    owned_tables,
    person_table,
    primary_key_of,
    spec_tables,
    spec_tools,
    table_columns,
    tool_bindings,
    tool_fact_names,
)
from .wording import (
    PEOPLE,
    STATUS_COLUMNS,
    article,
    describe,
    names_the_act,
    readable_words,
    same_value,
    unwrap,
)


@dataclass
class Arg:
    """One argument of a gold call: its value and provenance, its binding in the operation, the user's fact
    behind it (by `fact_name`), and whether that fact is withheld from the first message."""

    arg: str
    value: Any
    source: str
    binding: Binding | None
    fact: str | None = None
    hidden: bool = False


ACT_VERBS = frozenset(ACT_STATUS)
"""Verbs of acts that leave a row in a state of their own (run, send, submit, acknowledge): a request says them."""
_HTTP_METHODS = frozenset(("post", "put", "patch"))
_METHOD_VERBS = {"create": "add", "update": "update"}
"""For a tool named after its route (`post_by_workspace_slug_members`), whose verb is only its HTTP method: the
verb of what the call does; none (the clause's own) for any other kind."""


@dataclass
class Step:
    """One gold call as the request says it: its tool and operation, the table and the entity a person
    names its rows by, its kind, verb and the status it sets, its arguments, result and meaning."""

    index: int
    call: GoldCall
    tool: dict
    op: dict
    table: str | None
    entity: str
    kind: str  # get list count create update status delete other
    verb: str | None
    status: str | None
    args: list[Arg]
    result: Any
    meaning: Any


STAFF_VERBS = frozenset(
    "handling handle fulfil fulfill fulfillment void capture ship dispatch approve reject assign escalate "
    "invoice triage moderate provision deprovision restock suspend unsuspend ban unban activate reactivate "
    "unlock".split()
)
"""Words of a tool or its verb that run the service (start an order's handling, capture a payment, ship it, suspend a
user: seed 92's reader found "look up my account, suspend it")."""
_RECORDS = frozenset("order payment invoice transaction refund charge shipment receipt".split())
"""Records of money and goods that only the service deletes (blind readers: "a customer of an online shop" deleted
orders and payments)."""


_STAFF_STATES = frozenset(
    "delivered shipped dispatched fulfilled approved rejected invoiced captured settled".split()
)
"""States only the service puts a row in (a shipment delivered, a request approved); a customer still pays their order."""
_SERVICE_TABLES = frozenset("hook webhook config configuration integration audit credential apikey".split())
"""Rows only whoever runs or integrates the service reads (its webhooks, configuration, audit log): never a customer."""


class Steps:
    """A draft read as steps: each gold call's entity, kind, verb and arguments, and who the user is."""

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
        self.steps = [self._step(i, c) for i, c in enumerate(draft.calls)]
        self.request_steps = self._policy_steps() if draft.kind == "policy" else []
        # the user is the person whose rows the task touches, unless the task has to find that person
        # (a person key flowing from a lookup) or names several: then they work on others' behalf
        people = {
            json.dumps(a.value, sort_keys=True, default=str)
            for s in self.steps + self.request_steps
            for a in s.args
            if self.key_table(a) == self.person and not a.source.startswith("call[")
        }
        derived = any(
            self.key_table(a) == self.person
            and a.source.startswith("call[")
            and json.dumps(a.value, sort_keys=True, default=str) not in people
            for s in self.steps + self.request_steps
            for a in s.args
        )
        # ... and only when the task names rows of theirs (an order number, their customer id): a count
        # over all orders is a back-office question
        touches = any(
            self.key_table(a) in self.owned for s in self.steps + self.request_steps for a in s.args
        )
        # ... and a session's account holder who changes another person's row (suspends a user, deletes a
        # customer) is the service's staff, not its customer
        staff = self._staff_act()
        others = self._acts_on_other_people() or staff
        # ... and never a person the task reaches through another row: "check the email address on my account. The
        # category id is 4" (a blind reader) is the user of category 4, a back-office question
        self.customer = bool(
            (self.session and not others and not derived)
            or (touches and not derived and len(people) <= 1 and not staff)
        )
        # a person the task finds and then changes rows of is someone else: whoever does that is staff, even where
        # people use the service for themselves (seed 88's readers: "a listener" editing another user's playlist)
        self.for_others = (derived or others) and any(
            s.kind in ("create", "update", "status", "delete", "other") for s in self.steps
        )
        self.self_value = self._self_value()

    # -- reading calls

    def _step(self, index: int, call: GoldCall) -> Step:
        tool = self.tools.get(call.tool)
        if tool is None:
            raise ValueError(
                f"gold call {index} names tool {call.tool!r}, which environment {self.spec.get('name')!r} lacks"
            )
        return self._step_of(index, call, tool)

    def _step_of(self, index: int, call: GoldCall, tool: dict) -> Step:
        op = tool.get("operation") if isinstance(tool.get("operation"), dict) else {}
        meaning = declared_meaning(tool)
        table = op.get("table") if op.get("table") in spec_tables(self.spec) else None
        entity = entity_name(table, self.spec) if table else readable_words(meaning.entity or "record")
        kind, status = self._kind(op, meaning, call)
        binds = tool_bindings(tool)
        names = tool_fact_names(tool, self.spec)
        args = []
        used: set[str] = set()
        props = (tool.get("parameters") or {}).get("properties") or {}
        for arg, value in call.arguments.items():
            source = call.provenance.get(arg, "user")
            if not source.startswith("call[") and one_value(props.get(arg)):
                continue  # Azure's `api-version`: what the agent reads in the schema, never a request says
            a = Arg(arg, value, source, binds.get(arg))
            if not source.startswith("call["):
                a.fact = self._find_fact(names.get(arg) or readable_words(arg), value, used)
                if a.fact:
                    used.add(a.fact)
                a.hidden = a.fact in self.hidden
            args.append(a)
        verb = self._described_verb(tool, kind, meaning.verb, entity)
        return Step(
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
            "status": STATUS_VERBS.keys() | ACT_VERBS,  # "Run a monitor.": run it, never "mark it as running"
        }.get(kind, frozenset())
        if described and described[0] in natural:
            return described[0]
        if verb in _HTTP_METHODS:  # `post_by_workspace_slug_members`: the method, not what a person asks
            return _METHOD_VERBS.get(kind)
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
                    STATUS_COLUMNS.search(column) or "enum" in self.column_spec(op, column)
                ):
                    return "status", value
            if meaning.effect == "status" and meaning.status_value and not self._set_args(op, call):
                return "status", meaning.status_value[0]
            return "update", None
        effect = meaning.effect
        return {"read": "get", "create": "create", "delete": "delete"}.get(effect, effect), None

    def column_spec(self, op: dict, column: str) -> dict:
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

    def _policy_steps(self) -> list[Step]:
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

    def _acts_on_other_people(self) -> bool:
        """Whether a step changes, removes or reads a row of a people table other than the user's own
        (`customers` beside the session's `accounts`): deleting a customer, or looking up another user's mobile
        number, is what staff do."""
        for step in self.steps + self.request_steps:
            if step.kind not in ("update", "status", "delete", "get", "list") or step.table in (
                None,
                self.person,
            ):
                continue
            if singular(step.table).split("_")[-1] in PEOPLE:
                return True
        return False

    def _staff_act(self) -> bool:
        """Whether a step is what the service's staff do, not its customer: a write on rows that are not the
        user's (a tender of the till, an order the account does not own), or an act of running the service
        (`STAFF_VERBS`: starting an order's handling, voiding, capturing, shipping). Blind readers found "a
        customer of an online shop" starting the handling of an order and setting a tender's key."""
        if self.service_rows():
            return True
        for step in self.steps + self.request_steps:
            if step.kind not in ("create", "update", "status", "delete", "other") or step.table is None:
                continue
            if self.person and step.table not in self.owned:
                return True
            words = set(tokens(str(step.tool.get("name") or ""))) | set(tokens(step.verb or ""))
            states = {str(step.status or "").lower()} | {
                str(a.value).lower()
                for a in step.args
                if a.binding is not None
                and a.binding.place == "set"
                and STATUS_COLUMNS.search(a.binding.column or "")
            }
            if words & STAFF_VERBS or states & _STAFF_STATES:
                return True  # seed 94's readers: "a customer" marking their lost shipment as delivered
            if step.kind == "delete" and {singular(w) for w in tokens(step.table)} & _RECORDS:
                return True  # a customer cancels an order; only the shop deletes it, or a payment
        return False

    def service_rows(self) -> bool:
        """Whether a step reads or changes rows only whoever runs or integrates the service does (`_SERVICE_TABLES`):
        seed 94's readers found "a customer of an online shop" asking the last state of a hook configuration."""
        return any(
            step.table is not None
            and step.table not in self.owned
            and {singular(w) for w in tokens(step.table)} & _SERVICE_TABLES
            for step in self.steps + self.request_steps
        )

    def _self_value(self) -> Any:
        """The user's own key in the person table (their customer id), when the task gives it."""
        if not self.customer or not self.person:
            return None
        for step in self.steps + self.request_steps:
            for a in step.args:
                if a.fact is None or a.binding is None:
                    continue
                if self.key_table(a) == self.person:
                    return a.value
        return None

    def _flowed_key_table(self, source: str) -> str | None:
        """The table whose key an unbound argument carries from an earlier call's result: Google Tasks' route
        `tasklist` (no `_id` to read its entity from) flows from `call[0][12].tasklist` of the task lists' list,
        so it names a task list."""
        parsed = parse_provenance(source) if (source or "").startswith("call[") else None
        if (
            not parsed
            or parsed[0] >= len(self.draft.calls)
            or not parsed[1]
            or not isinstance(parsed[1][-1], str)
        ):
            return None
        op = (spec_tools(self.spec).get(self.draft.calls[parsed[0]].tool) or {}).get("operation")
        table = op.get("table") if isinstance(op, dict) else None
        keyed = table in spec_tables(self.spec) and primary_key_of(self.spec, table) == parsed[1][-1]
        return table if keyed else None

    def key_table(self, a: Arg) -> str | None:
        """The table whose row an argument names (its key or a reference), or None for a plain value."""
        b = a.binding
        if b is None:
            ent = key_entity(a.arg)
            named = next((t for t in spec_tables(self.spec) if singular(t) == ent), None) if ent else None
            return named or self._flowed_key_table(a.source)
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


_KIND_COLUMNS = frozenset(("kind", "type", "category", "tier", "level"))


def kind_of_new(step: Step, entity: str) -> tuple[str, str]:
    """The entity a new row is said as, and its article: "an archival memory" where the tool fixes the row's kind
    (MemGPT's `archival_memory_add` and `core_memory_add` both add a `memories` row, one of kind `archival`, the
    other `core`: seed 94's readers found "add a memory" asked twice and scored on which kind the gold chose)."""
    values = step.op.get("values") or {}
    fixed = [
        str(v["value"]).replace("_", " ").lower()
        for c, v in values.items()
        if c.lower() in _KIND_COLUMNS and isinstance(v, dict) and isinstance(v.get("value"), str)
    ]
    if len(fixed) == 1 and fixed[0] not in entity.lower() and fixed[0].replace(" ", "").isalpha():
        entity = f"{fixed[0]} {entity}"
    return entity, article(entity)
