"""Clauses: how one step of a task, or the request it makes, is said.

`Clauses` (on `envscale.tasks.attributes.Attributes`) says each gold call as a clause with the outcome the user
expects (`clause(step, show_hidden, prev_row)` -> `(clause, outcome, row)`): a read ("find out the status
of my order ord_0007", "how many pending orders I have"), a status change ("cancel it"), a delete, an
update ("change the email address on my account to x@y.com", "increase the stock of ... by 5", "move 3
units from ... to ..."), or a create ("place a new order for product pro_0001 with a quantity of 2", "book
a room in Lisbon from 2025-05-01", "follow Eva Khan"). The values a step sets are said by their column
(`_attr`: "a quantity of 2", "the note "gift"") or with a preposition (`_prep_attr`: "from Seattle, WA"),
in `envscale.tasks.attributes`.

Example:

```python
>>> import random
>>> from envscale.env import load_spec
>>> from envscale.tasks.clauses import Clauses
>>> from envscale.tasks.model import GoldCall, TaskDraft
>>> spec = load_spec("tests/fixtures/envs/shop.yaml")
>>> call = GoldCall("cancel_order", {"order_id": "ord_0007"}, {"order_id": "user"}, write=True)
>>> said = Clauses(TaskDraft("shop", "write", [call], user_facts={"order number": "ord_0007"}), spec, random.Random(0))
>>> said.clause(said.steps[0], show_hidden=True, prev_row=None)
('cancel my order ord_0007', 'the order is cancelled', ('orders', 'ord_0007'))
```
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

from ..words.inflect import singular
from ..words.names import tokens
from ..words.verbs import (
    ACTION_VERBS,
    CREATE_NATURAL,
    DELETE_NATURAL,
    SIGN_VERBS,
    STATUS_VERBS,
    UNDO_VERBS,
    UPDATE_NATURAL,
)
from .attributes import Attributes
from .model import TaskDraft
from .naming import (
    entity_name,
    original_tool_name,
    primary_key_of,
)
from .phrases import GENERIC_SETTINGS, NP, act_row, paid_with
from .steps import ACT_VERBS, Arg, Step, kind_of_new
from .wording import (
    DESCRIBED_NOT_THINGS,
    NOMINAL_ENDINGS,
    NOTES,
    ON_ACCOUNT,
    STATUS_COLUMNS,
    UNCOUNTABLE,
    article,
    change_label,
    col_words,
    format_value,
    free_text,
    is_placeholder,
    join,
    names_the_act,
    participle,
    plural_phrase,
    readable_words,
    retiring_verb,
    said_state,
    same_value,
)


def _in_path(step: Any, a: Any) -> bool:
    """An argument of the request's path that the operation binds to a column it sets: it names the row
    (`/budgets/{budget_id}/...`), so the request never says it as a change."""
    schema = ((step.tool.get("parameters") or {}).get("properties") or {}).get(a.arg)
    return bool(
        a.binding and a.binding.place == "set" and isinstance(schema, dict) and schema.get("x-in") == "path"
    )


def _unbound_path(step: Any, a: Any) -> bool:
    """An argument of the request's path that the operation leaves unbound."""
    schema = ((step.tool.get("parameters") or {}).get("properties") or {}).get(a.arg)
    return a.binding is None and isinstance(schema, dict) and schema.get("x-in") == "path"


def _route_parent(step: Any, a: Any, table: str | None) -> bool:
    """An argument of the request's path that names the row the addressed row lives in and that the operation
    leaves unbound (`collection_id` of `PATCH /collections/{collection_id}/tickets/{ticket_id}`): it says where
    the row is ("the ticket tic_0015 in the collection named ..."), never a value the request sets ("with the
    collection named ... as its collection")."""
    return _unbound_path(step, a) and table is not None and table != step.table


def _not_said_within(texts: list[str], said: list[str]) -> list[str]:
    """The noun phrases of `texts` that no other phrase (nor what is `said` already) holds: "add an award for the
    user of the offering named "X"", never "... for the offering named "X"" after it."""
    kept = []
    for k, text in enumerate(texts):
        longer = [o for j, o in enumerate(texts) if j != k and text in o and (o != text or j < k)]
        if not longer and not any(text in o for o in said):
            kept.append(text)
    return kept


_NEW_THING_VERBS = frozenset("add create open register submit send schedule post file issue".split())
"""Verbs said of a new thing with its article ("register a new account"), others of the thing alone."""


@dataclass
class _CreateParts:
    """What a create states besides its verb, sorted by how each is said (`Clauses._create_parts`)."""

    refs: list[tuple[Arg | None, NP]] = field(default_factory=list)  # rows it names: "for product pro_0001"
    attrs: list[str] = field(default_factory=list)  # values: "with a quantity of 2"
    preps: list[tuple[str, str]] = field(default_factory=list)  # ("from", "from Seattle, WA")
    preps_args: list[Arg] = field(default_factory=list)  # the argument of each of `preps`
    named: str | None = None  # 'named "MV32"'
    container: NP | None = None  # the row it goes in: "to my order"


def _holds(result: Any, answer: Any) -> bool:
    """Whether a read's result (a row or a list of rows) holds `answer` as a field's value."""
    rows = result if isinstance(result, list) else [result]
    return any(same_value(v, answer) for row in rows if isinstance(row, dict) for v in row.values())


class Clauses(Attributes):
    """The clauses of a request: how one step is said, with what it sets and the outcome the user expects."""

    def __init__(self, draft: TaskDraft, spec: dict, rng: random.Random):
        super().__init__(draft, spec, rng)
        self.brief = False  # "cancel the order": the short form, for done_when
        self.obj_of = ""  # the current clause's object after "of"/"to" ("the status of order 7")
        self.asked_attribute = False  # the last clause asked for a value of a row ("it" would be that value)

    # -- clauses

    def clause(self, step: Step, show_hidden: bool, prev_row: Any) -> tuple[str, str, Any]:
        """(clause, outcome for done_when, row acted on) of one step, in the user's words."""
        kind = step.kind
        self.said_rows = []
        keyed = [a for a in step.args if a.binding and a.binding.place == "key" and a.binding.main]
        target = (
            self.arg_np(keyed[0], show_hidden)
            if keyed
            else NP(step.entity, "the", short=f"the {step.entity}")
        )
        if not keyed and self.session and step.table == self.person:
            target = self.self_np(self.person)
        obj = "it" if prev_row is not None and target.row == prev_row else target.render()
        # the parent a row lives under in the route: said where the row is named ("the ticket tic_0011 in the
        # collection named ..."); "it" (a row named before) carries its place with it
        where = [
            a
            for a in step.args
            if keyed and a not in keyed and kind != "create" and _route_parent(step, a, self.key_table(a))
        ]
        # a row the chain reached ("its spot", "the ticket titled ...") is where it was found
        if where and obj != "it" and not self.brief and not keyed[0].source.startswith("call["):
            places = [
                self.arg_np(a, show_hidden).render()
                for a in where
                if not (a.hidden and not show_hidden) and not self._own_field(a, step.table)
            ]
            obj = f"{obj} in {join(places)}" if places else obj
        self.obj_of = obj  # after "of"/"to": "the status of order 7"
        if obj != "it" and not target.det and target.label:
            # "cancel the order 7", never "cancel order 7": a verb right before its entity reads as the
            # tool's name (`cancel_order`), which the leak gate rightly refuses
            obj = f"the {obj}"
        if obj == "it" and kind == "delete":
            # "find out the email of customer 4 and delete the customer": "it" would be the email; "look up the
            # project's task, and finally delete it" left two blind readers unsure which one goes
            obj = target.short or f"the {step.entity}"
        short = target.short or f"the {step.entity}"
        # an unbound path argument carried from the addressed row's own field (Hetras' `confirmationId` of a
        # reservation read before): where the row is, known with the row, never "with the confirmation id set to"
        rest = [
            a
            for a in step.args
            if a not in keyed
            and a not in where
            and not (keyed and _unbound_path(step, a) and self._own_field(a, step.table))
        ]
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
            return self._status_clause(step, target, obj, short, rest, bool(keyed), show_hidden)
        if kind == "delete":
            return self._delete_clause(step, target, obj, short, keyed[0] if keyed else None, show_hidden)
        if kind == "update":
            return self._update_clause(step, target, obj, rest, show_hidden)
        if kind == "create":
            return self._create_clause(step, rest, show_hidden)
        verb = readable_words(step.verb or "handle")
        return f"{verb} {obj}", f"the request is done for {short}", target.row

    def _status_clause(
        self, step: Step, target: NP, obj: str, short: str, rest: list[Arg], keyed: bool, show_hidden: bool
    ) -> tuple[str, str, Any]:
        """A status change: "cancel the order ord_0007", "mark my ticket as resolved", "log out of my account"."""
        retiring = retiring_verb(step.verb, step.status, str(step.tool.get("description") or ""))
        said = (
            STATUS_VERBS.keys() | UPDATE_NATURAL | DELETE_NATURAL | ACT_VERBS | set(SIGN_VERBS)
        )  # "run the monitor"
        verb = retiring or (step.verb if step.verb in said else None)
        extras = [
            self._attr(step, a) for a in rest if not (a.hidden and not show_hidden) and not _in_path(step, a)
        ]
        tail = f" with {join(extras)}" if extras else ""
        status = said_state(step.verb, step.status or "", str(step.tool.get("description") or ""))
        own = step.meaning.entity and target.row == (self.person, "self") and not keyed
        thing = readable_words(step.meaning.entity or "")
        if verb in SIGN_VERBS:
            clause = f"{SIGN_VERBS[verb]} {obj}{tail}"
        elif own and verb and thing not in (step.entity, target.head) and verb not in ("mark", "set"):
            clause = (
                f"{verb} {article(thing)} {thing}{tail}"  # "start an oncall with ...", not "start my account"
            )
        elif verb and verb not in ("mark", "set", "update", "change"):
            clause = f"{verb} {obj}{tail}"
        else:
            clause = f"mark {obj} as {status}{tail}"
        return clause, f"{short} is {status}", target.row

    def _delete_clause(
        self, step: Step, target: NP, obj: str, short: str, key: Arg | None, show_hidden: bool
    ) -> tuple[str, str, Any]:
        """A delete: "delete the comment 12", "unpublish the mock", "unfollow Anne Lee"."""
        verb = step.verb if step.verb in DELETE_NATURAL | UNDO_VERBS else "delete"
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

    def _feeds_later(self, step: Step) -> bool:
        """Whether a later call takes a value from this step's result (it was read to find something)."""
        mark = f"call[{step.index}]"
        return any(a.source.startswith(mark) for s in self.steps if s.index > step.index for a in s.args)

    def _how_many(self, step: Step, show_hidden: bool) -> tuple[str, str]:
        """("how many X I have" / "... there are", the same told back to the user) of a counted list."""
        np = self.filters_np(step, show_hidden)
        owner = np.det == "my"
        np.det = "" if owner or np.det == "the" else np.det
        noun = np.render()
        what = f"how many {noun} I have" if owner else f"how many {noun} there are"
        told = f"how many {noun} you have" if owner else f"how many {noun} there are"
        return what, told

    def _read_clause(self, step: Step, target: NP, obj: str, show_hidden: bool) -> tuple[str, str, Any]:
        answers = self.draft.answer_facts
        verb = self.rng.choice(("find out", "check", "look up"))
        if step.kind == "count":
            what, told = self._how_many(step, show_hidden)
            return f"{'find out' if verb == 'look up' else verb} {what}", told, None
        rows = step.result if isinstance(step.result, list) else [step.result]
        fields = []
        pk = primary_key_of(self.spec, step.table)
        asked = {a.binding.column for a in step.args if a.binding and a.binding.place in ("key", "filter")}
        # an answer a later read returns is that read's: the groups listed to find a group are not asked for their
        # statuses because the meeting found in the group is "active" (blind readers)
        later = [
            s.result
            for s in self.steps
            if s.index > step.index and s.kind in ("get", "list") and s.result is not None
        ]
        answers = [ans for ans in answers if not any(_holds(result, ans) for result in later)]
        named: list = []  # each answer is asked by one field: never "the display name and name of orgunit 2"
        for row in rows:
            for col, value in row.items() if isinstance(row, dict) else []:
                hit = next((i for i, ans in enumerate(answers) if same_value(value, ans)), None)
                if col not in fields and col not in asked and hit is not None and hit not in named:
                    fields.append(col)
                    named.append(hit)
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
        if step.kind == "list" and not fields and self._feeds_later(step):
            # the groups listed only to find a group are a lookup, never a request ("list the groups, check the status
            # of the organizer ... in the group named ...": blind readers found it padding)
            return "", "", None
        if step.kind == "list":
            np = self.filters_np(step, show_hidden)
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
        return (
            ("look it up" if obj == "it" else f"look up {obj}"),
            f"the details of {target.short}",
            target.row,
        )

    def _update_clause(
        self, step: Step, target: NP, obj: str, rest: list[Arg], show_hidden: bool
    ) -> tuple[str, str, Any]:
        """An update: "change the email address on my account to x@y.com", "increase the stock of product
        pro_0001 by 5", "move 3 units from warehouse war_0001 to warehouse war_0002"."""
        verb = self.rng.choice(("change", "update", "set"))
        effect_keys = [a for a in rest if a.binding and a.binding.place == "key"]
        adjusts = [a for a in rest if a.binding and a.binding.place == "adjust"]
        if step.verb in ("move", "transfer") and effect_keys and adjusts:
            return self._move_clause(step, target, rest, adjusts[0], effect_keys[0], show_hidden)
        rest = [
            a for a in rest if not _in_path(step, a)
        ]  # `/budgets/{budget_id}/...` names the row: not a change
        sets = [a for a in rest if a.binding and a.binding.place in ("set", "adjust")]
        notes = [a for a in sets if (tokens(a.binding.column or a.arg)[-1:] or [""])[0] in NOTES]
        if len(notes) < len(sets):
            sets = [a for a in sets if a not in notes]
        extras = [self._attr(step, a) for a in rest if a not in sets and not (a.hidden and not show_hidden)]
        changes, outcome = [], []
        for n, a in enumerate(sets):
            change, done = self._change(step, target, obj, a, n, len(sets), verb, show_hidden)
            changes.append(change)
            outcome.append(done)
        if len(outcome) > 2:
            outcome = [f"{target.short} is updated"]
        if not changes:
            return self._unchanged_clause(step, target, obj, extras)
        tail = f", with {join(extras)}" if extras else ""
        return join(changes) + tail, join(outcome), target.row

    def _move_clause(
        self, step: Step, target: NP, rest: list[Arg], amount: Arg, dest_key: Arg, show_hidden: bool
    ) -> tuple[str, str, Any]:
        """A move of an amount between two rows: "transfer 3 units from warehouse war_0001 to ..."."""
        move_from = target.render()
        dest = self.arg_np(dest_key, show_hidden).render()
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
            if a not in (amount, dest_key) and a.binding and a.binding.place != "key"
        ]
        tail = f" with {join(others)}" if others else ""
        return (
            f"{step.verb} {how_much} from {move_from} to {dest}{tail}",
            f"the {step.verb} is done",
            target.row,
        )

    def _change(
        self, step: Step, target: NP, obj: str, a: Arg, n: int, count: int, verb: str, show_hidden: bool
    ) -> tuple[str, str]:
        """(the change, its outcome) of the `n`-th of `count` values an update sets."""
        short = target.short
        b = a.binding
        column = b.column or a.arg
        label = change_label(col_words(column, a.arg), a.value, a.source.startswith("call["))
        on = "on" if target.head == "account" and set(label.split()) & ON_ACCOUNT else "of"
        owner = f"its {label}" if obj == "it" else f"the {label} {on} {self.obj_of}"
        if self.session and target.row == (self.person, "self") and target.head == "account" and on == "of":
            owner = (
                f"the {label}"  # a setting kept on the account ("the volume"), not "the volume of my account"
            )
        hidden = a.hidden and not show_hidden
        value = "" if hidden else format_value(a.value, "enum" in self.column_spec(step.op, column))
        if value and isinstance(a.value, str) and free_text(a.value):
            value = f'"{value}"'  # a sentence the user dictates
        if a.source.startswith("call["):
            value = self.derived_np(a, self.key_table(a)).render()
        if b.place == "adjust":
            amount = a.value if isinstance(a.value, (int, float)) else 0
            up = (amount * b.sign) >= 0
            size = "" if hidden else f" by {format_value(abs(amount))}"
            change = f"{'increase' if up else 'decrease'} {owner if n == 0 else 'the ' + label}{size}"
            return change, f"the {label} {on} {short} is updated"
        if count == 1 and STATUS_COLUMNS.search(column) and value and isinstance(a.value, str):
            return f"mark {obj} as {value}", f"{short} is {value}"
        words = label.split()
        if (
            count == 1
            and isinstance(a.value, bool)
            and not hidden
            and len(words) > 1
            and words[0] in ("is", "was", "no")
        ):
            # "mark it as not skipped", "require authorization for it", never "turn off its no ... required" (readers)
            if words[0] == "no":
                need = " ".join(w for w in words[1:] if w not in ("required", "needed"))
                return f"{'stop requiring' if a.value else 'require'} {need} for {obj}", f"{short} is updated"
            state = " ".join(words[1:]) if a.value else "not " + " ".join(words[1:])
            return f"mark {obj} as {state}", f"{short} is {state}"
        if count == 1 and isinstance(a.value, bool) and not hidden:
            state = "on" if a.value else "off"
            return f"turn {state} {owner}", f"the {label} {on} {short} is {state}"
        lead = f"{verb} {owner}" if n == 0 else f"the {label}"
        return (
            f"{lead} to {value}" if value else lead,
            f"the {label} {on} {short} is {'now ' + value if value else 'changed'}",
        )

    def _unchanged_clause(self, step: Step, target: NP, obj: str, extras: list[str]) -> tuple[str, str, Any]:
        """An update that sets no value of its row: one that adds a row elsewhere ("add a coupon ... to my
        order"), a sign-in or sign-out, or an action said by its verb ("restart the server")."""
        short = target.short
        if step.meaning.effect == "create" and step.verb in CREATE_NATURAL:
            # an update that adds a row elsewhere (`add_coupon` on an order): "add a coupon ... to my order"
            thing = readable_words(step.meaning.entity or "item")
            tail = f" with {join(extras)}" if extras else ""
            prep = "to" if step.verb in ("add", "attach", "apply", "link") else "for"
            clause = f"{step.verb} {article(thing)} {thing}{tail} {prep} {self.obj_of}"
            return clause, f"the {thing} is {participle(step.verb)} {prep} {short}", target.row
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

    def _create_clause(self, step: Step, rest: list[Arg], show_hidden: bool) -> tuple[str, str, Any]:
        """A create: "place a new order for product pro_0001 with a quantity of 2", "book a room in Lisbon
        from 2025-05-01", "follow Eva Khan", "set the volume to 84"."""
        said = self._create_parts(step, rest, show_hidden)
        said.refs, paying = paid_with(
            said.refs
        )  # "book a flight ..., paying with the card ...", never "book the card"
        clause, done, row = self._create_body(step, said, rest, show_hidden)
        return clause + "".join(f", paying with {np.render()}" for _, np in paying), done, row

    def _create_body(
        self, step: Step, said: _CreateParts, rest: list[Arg], show_hidden: bool
    ) -> tuple[str, str, Any]:
        refs, attrs, preps, container = said.refs, said.attrs, said.preps, said.container
        own_name = next(
            (
                i
                for i, (k, _) in enumerate(preps)
                if k.endswith("a place") and self._names_entity(step, said.preps_args[i])
            ),
            None,
        )
        if own_name is not None:  # "reserve the restaurant "X"", not "reserve a restaurant at "X""
            entity_named = preps.pop(own_name)[1].split(" ", 1)[1]
            said.preps_args.pop(own_name)
        else:
            entity_named = None
        where = "".join(f" {text}" for _, text in preps)
        entity = step.entity
        if (
            container is not None
            and step.meaning.entity
            and entity.endswith(readable_words(step.meaning.entity))
        ):
            entity = readable_words(step.meaning.entity)  # "an item" of "my order", not "an order item"
        nominal = self._nominal_clause(
            step, entity, [(None, container)] * bool(container) + refs, attrs, rest, where
        )
        if nominal is not None:
            return nominal
        verb = step.verb if step.verb in CREATE_NATURAL else None
        if verb in ("follow", "unfollow", "like", "subscribe", "unsubscribe") and refs:
            obj = join([np.render() for _, np in refs])
            prep = " to" if verb == "subscribe" else (" from" if verb == "unsubscribe" else "")
            tail = f" with {join(attrs)}" if attrs else ""
            return f"{verb}{prep} {obj}" + tail, f"you {participle(verb)} {obj}", ("new", step.index)
        if entity_named is not None and refs:  # a named row that also names others: say the name plainly
            attrs.insert(0, f"the name {entity_named}")
            entity_named = None
        if (
            verb in ("book", "reserve", "rent", "hire", "buy", "purchase")
            and refs
            and not container
            and act_row(entity)
        ):
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
            setting = self._setting_clause(step, rest, show_hidden, entity, container)
            if setting is not None:
                return setting
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
        return self._new_row_clause(step, verb, entity, said, entity_named, where)

    def _create_parts(self, step: Step, rest: list[Arg], show_hidden: bool) -> _CreateParts:
        """Sort what a create states: the rows it names (a container it goes in, or references), the values
        said with a preposition ("from Seattle", "on 2024-09-29"), its own name, and the other values."""
        said = _CreateParts()
        for a in rest:
            if is_placeholder(a.arg):
                continue  # never said (the generator leaves such arguments out)
            if a.hidden and not show_hidden:
                table = self.key_table(a)
                if table and table != step.table:
                    entity_ = entity_name(table, self.spec)
                    said.refs.append((a, NP(entity_, "a", short=f"the {entity_}")))
                continue
            table = self.key_table(a)
            if table and table != step.table:
                np = self.arg_np(a, show_hidden)
                if table == self.person and np.row == (table, "self"):
                    continue  # the user's own account: said as "My customer id is ..."
                if (
                    said.container is None
                    and step.meaning.parent
                    and singular(table).endswith(step.meaning.parent)
                ):
                    said.container = np
                elif any(np.head == other.head for _, other in said.refs):
                    said.attrs.append(self._attr(step, a))  # never "for project X for project Y"
                else:
                    said.refs.append((a, np))
            elif a.binding and a.binding.place == "limit":
                continue
            elif (prep := self._prep_attr(step, a)) and prep[0] not in [p for p, _ in said.preps]:
                said.preps.append(prep)
                said.preps_args.append(a)
            elif said.named is None and isinstance(a.value, str) and self._names_entity(step, a):
                said.named = f'named "{format_value(a.value)}"'  # 'create an asset named "MV32"', not "with asset name MV32"
            else:
                said.attrs.append(self._attr(step, a))
        return said

    def _setting_clause(
        self, step: Step, rest: list[Arg], show_hidden: bool, entity: str, container: NP | None
    ) -> tuple[str, str, Any] | None:
        """An insert that records a setting (`set_volume` -> a volumes row): "set the volume to 84"; a file or a
        value that is the setting itself is said by the setting, of the row it is for ("set the icon of the group
        to team.png", never "set the file to ...", blind readers of seed 84)."""
        sets = [a for a in rest if a.binding and not self.key_table(a) and not (a.hidden and not show_hidden)]
        mine = container is not None and container.row is not None and container.row == self.prev_row
        owner = "its" if mine else "the"  # "update its subject ..., then set its icon to ..."
        of = f" of {container.render()}" if container is not None and not mine else ""
        said = [
            f"{owner} {entity}{of} to {format_value(a.value)}"
            if col_words(a.binding.column or a.arg, a.arg) in GENERIC_SETTINGS
            else f"the {col_words(a.binding.column or a.arg, a.arg)} to {format_value(a.value)}"
            for a in sets
        ]
        if not said:
            return None
        return (
            f"{step.verb} {join(said)}",
            join([f"{x.split(' to ')[0]} is {x.split(' to ', 1)[1]}" for x in said]),
            ("new", step.index),
        )

    def _new_row_clause(
        self, step: Step, verb: str, entity: str, said: _CreateParts, entity_named: str | None, where: str
    ) -> tuple[str, str, Any]:
        """A new row said as one: "create a new project named "Apollo"", "add a registrant to webinar 3"."""
        entity, det = kind_of_new(step, entity)  # "an archival memory": the tool fixes the row's kind
        if said.named is not None:  # 'create an asset named "MV32"', not "with asset name MV32"
            noun = f"{det} {entity} {said.named}"  # `named` was never put in `attrs`
        elif entity_named is not None:
            noun = f"the {entity} {entity_named}"
        elif verb == "place":
            noun = f"{'a new' if self.rng.random() < 0.5 else det} {entity}"
        elif verb in _NEW_THING_VERBS:
            noun = f"{'a new' if verb == 'create' and self.rng.random() < 0.5 else det} {entity}"
        else:
            noun = f"{det} {entity}"
        parts = [f"{verb} {noun}"]
        if said.container is not None:
            parts.append(f"to {self.it_or(said.container)}")
        prep = "to" if verb in ("send", "transfer", "invite") else "for"
        kept = _not_said_within([np.render() for _, np in said.refs], parts)
        parts += [f"{prep} {self.it_or(np)}" for _, np in said.refs if np.render() in kept]
        clause = " ".join(parts) + where
        if said.attrs:
            clause += f" with {join(said.attrs)}"
        return clause, f"the new {entity} is {participle(verb)}", ("new", step.index)

    def _nominal_clause(
        self, step: Step, entity: str, refs: list, attrs: list[str], rest: list[Arg], where: str
    ) -> tuple[str, str, Any] | None:
        """An insert whose row is the action itself (a `followings` row for `follow_user`, a `deactivations`
        row for `DeactivateWarehouse`): said as the action on its object ("follow Eva Khan", "deactivate
        the warehouse war_0003"), never "follow a following". `None` when the row is a thing of its own."""
        verb = step.verb
        head = entity.split(" ")[-1]
        stem = verb[:-1] if verb and verb.endswith("e") else verb
        if not verb or len(stem) < 3 or not head.startswith(stem) or head[len(stem) :] not in NOMINAL_ENDINGS:
            return None
        emails = [
            a
            for a in rest
            if isinstance(a.value, str) and "@" in a.value and not (a.hidden and not self.show_hidden)
        ]
        if verb == "invite" and refs and len(emails) == 1:
            # a person is invited, by their email, to a team or with a role: never "invite the new role with email
            # address ..." (a blind reader)
            who = format_value(emails[0].value)
            rest_said = [x for x in attrs if who not in x]
            links = [
                f"{'with' if np.head in ('role', 'permission', 'profile') else 'to'} {np.render()}"
                for _, np in refs
            ]
            tail = f" with {join(rest_said)}" if rest_said else ""
            return f"invite {who} {' '.join(links)}{where}{tail}", f"you invited {who}", ("new", step.index)
        if refs:
            objs = [self.it_or(np) for _, np in refs]  # "rename the group, then leave it" (seed 88)
            objs = [o if o.split(" ")[0] in ("my", "the", "a", "an", "it") else f"the {o}" for o in objs]
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
