"""Noun phrases: how a request names a row, an entity, a column and a value.

`Phrases` (on `envscale.tasks.steps.Steps`) names the rows a request is about, as a person would: by
their key (`order ord_0007`, `my order ord_0007`), as their own (`my account`), by what an earlier call
found (`my most recent pending order`, `the customer of order ord_0003`, `that product's price`), or by the
filters of a lookup (`my pending orders`, `products in the books category that cost at most 30`). Each is an
`NP` (determiner, words before the head, label, words after, `with ...`), rendered once the clause is
built. A withheld value is left unsaid (`one of my orders`).

Example:

```python
>>> from envscale.tasks.phrases import NP
>>> NP("order", "my", pre=["pending"], label="ord_0007").render()
'my pending order ord_0007'
>>> NP("product", "the", plural=True, having=["brand Acme"]).render()
'the products with brand Acme'
```
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

from ..judge import parse_provenance
from ..words.inflect import singular
from ..words.names import tokens
from ..words.semantics import PERSON_ENTITIES
from .finding import caller_scope, names_another
from .model import TaskDraft
from .naming import (
    entity_name,
    id_phrase,
    keyed_by_id,
    primary_key_of,
    table_columns,
)
from .steps import Arg, Step, Steps
from .wording import (
    DATE_COLUMNS,
    PEOPLE,
    PRICE_COLUMNS,
    ROLES,
    STATUS_COLUMNS,
    article,
    col_words,
    format_value,
    free_text,
    join,
    plural_phrase,
    readable_words,
    same_value,
    unwrap,
)

_OWN_NAMES = frozenset("display full person given first last nick short friendly common legal".split())
"""Names a row goes by itself (`display_name`): "the contact named ..."; `artist_name` is another's."""


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
        return " ".join(p for p in [det, body, *_said_once(self.post), *having] if p)


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


#: Columns whose values are a thing's own words, said in quotes: 'whose subject is "1:1 with Bailey"'.
_QUOTED_TAILS = frozenset(
    ("title", "subject", "summary", "headline", "override", "label", "topic", "caption")
)


def _whose(column: str, value: Any, enum: bool) -> str:
    """ "whose due date is 2025-08-03"; a title or subject in quotes, where its words would run into the
    sentence's ("the spot whose title is Old lighthouse among those of ...")."""
    shown = format_value(value, enum=enum)
    if (
        not enum
        and isinstance(value, str)
        and " " in value.strip()
        and (tokens(column)[-1:] or [""])[0] in _QUOTED_TAILS
    ):
        shown = f'"{shown}"'
    return f"whose {readable_words(column)} is {shown}"


_KEY_WORDS = frozenset("id ids key uuid guid idfk idfks ref sid uid gid fk".split())


def _role(column: str, entity: str) -> str:
    """What a reference makes the row it points at: "the assignee of the ticket" (`assignee_id` -> users), "the
    parent folder of the file", never "the user of the ticket"; the entity where the column says no more
    (`user_id`, `customer_id`) or says it run together (`custid`)."""
    words = [w for w in readable_words(column).split(" ") if w.lower() not in _KEY_WORDS]
    role = " ".join(words)
    if not words or role == entity or set(words) <= set(entity.split(" ")) or len(words) > 3:
        return entity
    if any(len(w) <= 2 for w in words):  # `a_id`, `p_id`: letters, not words
        return entity
    if len(words) >= 2 and words[-1] in entity.split(" ") and words[-2] in _ROLE_NOUNS - {"parent"}:
        return " ".join(words[:-1])  # `reporter_user_id`: the reporter
    return role if words[-1] in entity.split(" ") or words[-1] in _ROLE_NOUNS else entity


_ROLE_NOUNS = frozenset(
    "assignee owner creator author reporter manager approver reviewer sender recipient receiver buyer seller "
    "organizer host parent editor maintainer lead agent requester payer payee driver rider guest holder "
    "contact supervisor sponsor referrer inviter invitee".split()
)
"""Heads of a reference's name that say what the row is to the other one (`assignee_id`, `reporter_user_id`)."""


def _own_title_or_name(column: str, entity: str) -> str:
    """ "titled" or "named" when a column is the row's own title or name (`project_title` of a project,
    `display_name`), else "": a person's title is a job title, and `artist_name` names another."""
    words = tokens(column)
    if words == ["title"]:
        return "" if set(entity.split(" ")) & _HOLDERS else "titled"
    if len(words) < 2 or words[-1] not in ("title", "name"):
        return ""
    heads = set(entity.split(" "))
    if not set(words[:-1]) <= heads | _OWN_NAMES:
        return ""
    if words[-1] == "title":
        return "" if heads & _HOLDERS else "titled"
    return "named"


GENERIC_SETTINGS = frozenset("file value data content url path image picture photo".split())
"""Field words a setting's value is stored under, where the request names the setting itself (an icon's `file`)."""
_PAYING = frozenset(
    ("card", "wallet", "payment method", "payment card", "payment source", "payment instrument")
)
_ACT_ROWS = frozenset("booking reservation rental hire order purchase appointment".split())


def paid_with(refs: list) -> tuple[list, list]:
    """The rows a new row names, apart from those it is paid with (a credit card, a wallet): blind readers of seed
    84 read "book the card whose card holder name is Sam Maxwell" for a flight booked with that card."""
    paying = [r for r in refs if r[1].head in _PAYING or r[1].head.endswith(" card")]
    return [r for r in refs if r not in paying], paying


def act_row(entity: str) -> bool:
    """Whether a new row is the act of booking, renting or buying what it references (a reservation of a room),
    so that the request books the room; an insurance bought for a booking is a thing of its own."""
    return entity.split(" ")[-1] in _ACT_ROWS


def _said_once(posts: list[str]) -> list[str]:
    """The parents of a row, each said once: a transaction of a budget and of a payee of that budget is "in the
    payee named Y in the budget named X", never "in the budget named X in the payee named Y in the budget named X"
    (blind readers of seed 84). A parent another parent's phrase already says is left out."""
    kept = []
    for post in posts:
        match = re.match(r"(?:of|in|for) (.+)", post)
        if match and any(other != post and match.group(1) in other for other in posts):
            continue
        kept.append(post)
    return kept


def _within(post: str) -> str:
    """Where a row singled out among its parent's is: "in the project titled ...", "for the organizer named ..."
    (a person holds rows, nothing is in them); `post` is "of <the parent>"."""
    if not post.startswith("of "):
        return post
    parent = post[3:]
    words = re.sub(r"^(?:the|my|a|an) ", "", parent).split(" ")
    # the parent's own noun: before the first word that describes it ("the customer of the location named X" is a
    # customer's, not the location's: "for the customer of ...", never "in the customer of ...")
    # "the organizer with email address X" is the organizer's (seed 91's readers: "in the organizer with email")
    head = next((w for w in words if w in ("named", "titled", "whose", "of", "with", "called")), None)
    noun = words[words.index(head) - 1] if head and words.index(head) > 0 else words[-1]
    return f"for {parent}" if singular(noun) in _HOLDERS else f"in {parent}"


_HOLDERS = frozenset(PEOPLE) | frozenset(
    "contact organizer attendee host author agent teammate payee payer recipient vendor supplier".split()
)


class Phrases(Steps):
    """The noun phrases of a request: a row, an entity, a column, a value as the user names them."""

    def __init__(self, draft: TaskDraft, spec: dict, rng: random.Random):
        super().__init__(draft, spec, rng)
        self.said_rows: list[Any] = []  # rows the current clause has named (for "that product's price")
        self.show_hidden = True  # whether withheld values are said (the goal) or not (the first message)
        self.prev_row: Any = None  # the row the clause before named: "look up X, then ... its partner"
        self.renamed: list[Any] = []  # rows an earlier clause of this request renamed

    # -- noun phrases

    def self_np(self, table: str) -> NP:
        """The user's own row: `my account` for a table of people, else `my vehicle`, `my profile`."""
        head = singular(table).split("_")[-1]
        noun = "account" if head in PEOPLE or head == "account" else entity_name(table, self.spec)
        if noun == "account" and head != "account" and "accounts" in (self.spec.get("tables") or {}):
            noun = "profile"  # PocketSmith's user beside its bank accounts: never "an account of my account"
        return NP(noun, "my", row=(table, "self"), short=f"your {noun}")

    def value_np(self, table: str | None, value: Any, hidden: bool) -> NP:
        """A row named by its key: `my order ord_0007`, `order ord_0007`, `one of my orders`, `my account`."""
        entity = entity_name(table, self.spec) if table else "record"
        short = f"the {entity}"
        if (
            table
            and table == self.person
            and self.customer
            and (self.session or same_value(value, self.self_value))
        ):
            return self.self_np(table)
        pk = primary_key_of(self.spec, table)
        natural = pk and not keyed_by_id(pk, key=True)
        head = id_phrase(self.spec, table) if natural else entity
        # the caller's own account, company or organizer account the routes are scoped by: "my company com_0019"
        mine = (self.customer and table in self.owned) or bool(table and caller_scope(self.spec, table))
        if hidden:
            if mine:
                return NP(entity, "one of my", plural=True, row=(table, value), short=short)
            return NP(entity, "a", row=(table, value), short=short)
        label = format_value(value)
        if isinstance(value, str) and free_text(value):
            label = f'"{label}"'  # a row keyed by a sentence: 'the todo "Call the bank."'
        last = head.split(" ")[-1]
        if natural and last in ("name", "title") and head != last:
            # a row keyed by its name: 'the project named "inventory-main"', not "the project name inventory-main"
            head, label = entity, f'{"titled" if last == "title" else "named"} "{format_value(value)}"'
        elif natural and last == "email" and head != last:
            # a row keyed by its email: "the user with the email address x@y.com", not "user email x@y.com"
            head, label = entity, f"with the email address {format_value(value)}"
        return NP(head, "my" if mine else "", label=label, row=(table, value), short=short)

    def it_or(self, np: NP) -> str:
        """ "it" for the row the clause before named, else the phrase: "rename the spot, then upload an attachment
        to it" (seed 87's readers found a renamed spot named again by its old title)."""
        return "it" if np.row is not None and np.row == self.prev_row else np.render()

    def arg_np(self, a: Arg, show_hidden: bool) -> NP:
        """The row an argument names, whatever its provenance."""
        table = self.key_table(a)
        if a.source.startswith("call["):
            np = self.derived_np(a, table)
            self.said_rows.append(np.row)
            return np
        return self.value_np(table, a.value, a.hidden and not show_hidden)

    def derived_np(self, a: Arg, table: str | None) -> NP:
        parsed = parse_provenance(a.source)
        if not parsed or parsed[0] >= len(self.steps):
            return NP(
                entity_name(table, self.spec) if table else readable_words(a.arg), "the right", short="it"
            )
        src = self.steps[parsed[0]]
        row, field_, rows, index = _locate(src.call.result, parsed[1])
        base = self._row_np(src, row, rows, index)
        if (
            base.row is not None
            and base.row in self.renamed
            and field_ in (None, primary_key_of(self.spec, src.table))
        ):
            # "rename the role to Lyon Role (old), then invite X with that role", never "with the role named Lyon
            # Role", a name it no longer has (seed 94)
            noun = entity_name(src.table, self.spec)
            return NP(noun, "that", row=base.row, short=f"the {noun}")
        if src.table and any(
            isinstance(b, dict) and "session" in b for b in (src.op.get("key") or {}).values()
        ):
            base = self.self_np(
                src.table
            )  # the caller's own row, read by `get_me`: "my account", never "that user"
        if field_ is None or src.table is None:
            return base
        pk = primary_key_of(self.spec, src.table)
        if field_ == pk or (table == src.table and field_ in (src.op.get("key") or {})):
            return base
        coldef = table_columns(self.spec, src.table).get(field_) or {}
        ref = coldef.get("references")
        if ref:
            if ref == self.person and self.customer:
                return self.self_np(ref)
            value = row.get(field_) if isinstance(row, dict) else None
            noun = _role(field_, entity_name(ref, self.spec))
            if base.row is not None and base.row == self.prev_row:  # "look up the document, then its partner"
                # a person's department is theirs ("look up the employee named Kevin Krueger, look up its
                # department", a blind reader)
                return NP(noun, self._owner_word(src.table), row=(ref, value), short=f"the {noun}")
            # "the customer of the address whose ...", never "the customer of the customer address whose ..."
            if base.head.startswith(f"{noun} ") and base.det == "the":
                base.head = base.head.removeprefix(f"{noun} ")
            return NP(noun, "the", post=[f"of {base.render()}"], row=(ref, value), short=f"the {noun}")
        if base.row is not None and base.row in self.said_rows:  # the row is named already in this request
            return NP(readable_words(field_), f"that {src.entity}'s", short=f"the {readable_words(field_)}")
        return NP(
            readable_words(field_), "the", post=[f"of {base.render()}"], short=f"the {readable_words(field_)}"
        )

    def _owner_word(self, table: str | None) -> str:
        """ "its" for a thing's related row, "their" for a person's ("look up the employee named Kevin Krueger, then
        their department", where blind readers found "its department")."""
        person = table == self.person or singular(str(table or "")).split("_")[-1] in PERSON_ENTITIES
        return "their" if person else "its"

    def _row_np(self, src: Step, row: Any, rows: list | None, index: int | None) -> NP:
        """The row an earlier call found or made: `the new order`, `my most recent pending order`."""
        entity = src.entity
        short = f"the {entity}"
        if src.kind == "create":
            return NP(entity, "the", pre=["new"], row=("new", src.index), short=f"the new {entity}")
        if src.kind in ("list",) and isinstance(rows, list):
            np = self.filters_np(src, show_hidden=self.show_hidden)
            np.plural = False
            np.row = ("row", src.index, index)
            np.short = short
            if np.det.startswith("up to"):  # one row of a capped list: "my ...", not "up to 5 of my ..."
                np.det = "my" if np.det.endswith(" my") else "the"
            if np.det in ("", "a", "all the"):
                np.det = "the"
            # a row alone in its parent's list is still said by what the user knows of it ("the track named
            # "Yesterday" of the album ...", never "the track of the album ... The track name is Yesterday.")
            pick = (
                self._selector(src, rows, index or 0) if len(rows) > 1 else self._told(src, rows, index or 0)
            )
            parent_only = bool(np.post) and all(p.startswith("of ") for p in np.post) and not np.having
            if pick is None and len(rows) == 1 and not np.pre and not np.label and parent_only:
                # known by nothing of its own but its parent, it is the only one there: "the only event of the spot"
                # (seed 87's readers: "the event of the spot" assumed a spot has one event)
                pick = ("pre", "only")
            if pick is not None:
                if pick[0] == "hidden":  # the user knows it by a value they hold back (`missing_info`)
                    np.det, np.short = "a", f"that {entity}"
                    return np
                if pick[0] == "pre":
                    np.pre.insert(0, pick[1])
                elif any(p.startswith("of ") for p in np.post):
                    # "the task titled "Standup" in the project titled "Q3"", "the meeting whose date is X for the
                    # organizer named Y", never "the meeting of the organizer named Y whose date is X" (whose
                    # whose?) nor "... among those of the organizer"
                    np.post = [pick[1], *(_within(p) for p in np.post)]  # each said once by `NP.render`
                else:
                    np.post.append(pick[1])
            return np
        keyed = [a for a in src.args if a.binding and a.binding.place == "key" and a.binding.main]
        if keyed:
            return self.arg_np(keyed[0], show_hidden=self.show_hidden)
        return NP(entity, "that", row=("row", src.index, index), short=short)

    def _selector(self, src: Step, rows: list, index: int) -> tuple[str, str]:
        """What singles out row `index` among `rows`: ("pre", "most recent") or ("post", "named Lamp"); or
        ("hidden", "") when it is the value the user holds back from the first message (`missing_info`)."""
        if not (0 <= index < len(rows)) or not isinstance(rows[index], dict):
            return "post", "in the list"
        told = self._told(src, rows, index)
        if told is not None:
            return told
        row = rows[index]
        dicts = [r for r in rows if isinstance(r, dict)]
        pk = primary_key_of(self.spec, src.table)
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
        ordered = sorted(
            row, key=lambda c: (c not in ("name", "title", "label", "subject"), not STATUS_COLUMNS.search(c))
        )
        # a person's title is their job: never "the supplier named "Occupational therapist"" (seed 94's readers)
        person = {"first_name", "last_name"} <= set(row) or "full_name" in row
        for column in ordered:
            mine = row.get(column)
            if (
                column == pk
                or column.endswith("_id")
                or not isinstance(mine, str)
                or not mine
                or len(mine) > 40
                or (column == "title" and person)
            ):
                continue
            if [r.get(column) for r in dicts].count(mine) != 1:
                continue
            if STATUS_COLUMNS.search(column):
                return "pre", format_value(mine, enum=True)
            if column in ("name", "title", "label"):
                return "post", f'named "{mine}"'
            return "post", _whose(column, mine, "enum" in self.column_spec(src.op, column))
        ordinals = "first second third fourth fifth sixth seventh eighth ninth tenth".split()
        return "pre", (ordinals[index] if index < len(ordinals) else f"number {index + 1}") + " listed"

    def _told(self, src: Step, rows: list, index: int) -> tuple[str, str] | None:
        """The value the user knows row `index` by (`envscale.tasks.finding.find_row`), said as `_selector` says
        it; `None` when the user knows it by nothing of its own."""
        if not (0 <= index < len(rows)) or not isinstance(rows[index], dict):
            return None
        row = rows[index]
        dicts = [r for r in rows if isinstance(r, dict)]
        pk = primary_key_of(self.spec, src.table)
        told = [v for v in self.draft.user_facts.values() if isinstance(v, str)]
        held = [] if self.show_hidden else [self.draft.user_facts.get(n) for n in self.draft.withheld]
        # what the list was asked by (the parent's key) is not the row's own
        asked = [a.value for a in src.args]
        columns = table_columns(self.spec, src.table) if src.table else {}
        named = " ".join(n for n, v in self.draft.user_facts.items() if v in told and v in row.values())
        # of two columns holding the value, the one the user's fact names ("the project starting ...", never "whose
        # date is" for a project known by its start date, seed 87's readers)
        for column in sorted(row, key=lambda c: (readable_words(c) not in named, -len(readable_words(c)))):
            mine = row.get(column)
            if column == pk or mine not in told or [r.get(column) for r in dicts].count(mine) != 1:
                continue
            if mine in asked or (columns.get(column) or {}).get("references"):
                continue
            if src.table and tokens(column)[-1:] == ["name"] and names_another(src.table, column):
                continue  # "the project whose company name is Bailey PLC in the company named Bailey PLC" (seed 89)
            if mine in held:
                return "hidden", ""
            if column in ("name", "label"):  # a title may be a job's ("Therapist, music"): said as a title
                return "post", f'named "{mine}"'
            own = _own_title_or_name(column, src.entity)
            if own:  # 'the project titled "Archive Project"', not "the project whose project title is ..."
                return "post", f'{own} "{mine}"'
            enum = "enum" in self.column_spec(src.op, column)
            return "post", _whose(column, mine, enum)
        return None

    def filters_np(self, step: Step, show_hidden: bool) -> NP:
        """The rows a lookup asks for: `my pending orders`, `products in the books category that cost at most 30`."""
        np = NP(step.entity, "the", plural=True, short=f"the {plural_phrase(step.entity)}")
        mine = False
        for flt in step.op.get("filters") or []:
            expr = flt.get("value") if isinstance(flt, dict) else None
            if isinstance(expr, dict) and "session" in json.dumps(expr):
                mine = True
            elif isinstance(expr, dict) and "value" in expr and isinstance(flt.get("column"), str):
                self.filter_phrase(np, step, flt["column"], flt.get("op") or "eq", expr["value"])
        for a in step.args:
            b = a.binding
            if b is None or b.place not in ("filter", "limit"):
                continue
            table = self.key_table(a)
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
                ref = self.arg_np(a, show_hidden)
                if ref.row is not None and ref.row == self.prev_row and np.det == "the":
                    np.det = self._owner_word(
                        table
                    )  # "look up the mandate, activate it, then reject its direct debit"
                else:
                    np.post.append(f"of {ref.render()}")
                continue
            if a.source.startswith("call["):  # "products with the same category as product pro_0001"
                ref = self.derived_np(a, table)
                source = ref.post[-1][3:] if ref.post and ref.post[-1].startswith("of ") else ref.render()
                np.post.append(f"with the same {col_words(b.column or a.arg, a.arg)} as {source}")
                continue
            self.filter_phrase(np, step, b.column or a.arg, b.op, a.value, a.arg)
        if mine and step.table in self.owned:
            np.det = "my" if not np.det.startswith("up to") else f"{np.det} of my"
        return np

    def filter_phrase(
        self, np: NP, step: Step, column: str, op: str, value: Any, arg: str | None = None
    ) -> None:
        enum = "enum" in self.column_spec(step.op, column)
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
        elif op == "contains":  # never "whose full name contains ..." (seed 87's readers: a search parameter)
            shown = format_value(value)
            named = re.fullmatch(r"[A-Z][a-z'-]+(?: [A-Z][a-z'-]+){1,2}", shown)
            person = named and tokens(column)[-1:] == ["name"]
            np.post.append(f'named "{shown}"' if person else f'with "{shown}" in its {words}')
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
