"""Journeys: the user names rows as a person does, and the agent looks them up.

A person names a row by something they know about it (a name, an email, a title, a date), or by a number a
real service prints for them (an order, ticket or invoice number); never by an internal key (`rec_0015`,
`boo_0018`, the integer id of a contact). `humanize(e, draft, rng)` rewrites a built chain so: every key the
user would have stated (provenance `user`) that is an internal id becomes the result of a lookup prepended
to the chain, a list tool of that row's table called with what the user knows (`list_contacts(email=...)`,
or the whole list, where the row is the one whose title, name or date singles it out). A list that needs a
parent's key (`getTransactions(budget_id)`) finds the parent the same way first, so a chain reads
"budget by name -> its transactions -> the one of 2024-03-02 -> delete it". Where no human attribute finds
the row uniquely the task is not posed that way (`internal_id`).

The journeys beyond one row, built here and drawn by `envscale.tasks.chains`: `related_writes` (two writes on
rows related by a foreign key: "cancel the order and refund its payment", "update the ticket and add a
comment to it") and `create_then_add` (a new row, then a row added to it); a decision on what a read returns is
`envscale.tasks.branches.branch`. `read_first` reads the row before the first write changes it, and `joins` tells
a chain where two independent lookups feed one call (a `dag`).

`printed_number(table)` says whether the users of a service hold that table's keys (orders, tickets,
invoices ...); `internal_key(e, table, value)` whether a value is a key no user would state.

Example:

```python
>>> import random
>>> from envscale.env import load_spec
>>> from envscale.tasks.build import TasksConfig
>>> from envscale.tasks.journeys import find_row, printed_number
>>> from envscale.tasks.prepared import Env
>>> printed_number("orders"), printed_number("customers")
(True, False)
>>> e = Env({"spec": load_spec("tests/fixtures/envs/shop.yaml")}, TasksConfig())
>>> row = e.rows["products"][3]
>>> found = find_row(e, "products", row, random.Random(0))
>>> [c.tool for c in found.calls], found.facts == {"product name": row["name"]}
(['list_products'], True)
>>> e.env.close()
```
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

from ..env.data import column_meaning, is_filler
from ..judge.provenance import provenance_call, shift_provenance
from ..words.inflect import singular
from ..words.names import tokens
from ..words.semantics import DELETE_VERBS, argument_role
from ..words.verbs import RETIRED_STATUSES
from .asks import KEY_SHAPE, askable, asked_by, in_path
from .model import Drop, GoldCall, TaskDraft
from .naming import entity_name, fact_name, implied_table, tool_bindings
from .prepared import Env
from .rereads import joins, merge_repeated_lookups
from .wording import PEOPLE, readable_words

PRINTED = frozenset(
    "order ticket invoice booking reservation receipt confirmation case shipment bill quote estimate".split()
)
"""Things a real service prints a number of for its user (an order number on the receipt, a ticket number
in the e-mail): the user may state that key. Every other key is internal and is looked up."""

IDENTIFYING = ("named", "title", "person", "email", "filename", "username", "company", "phone", "date")
"""Meanings of a column (`envscale.env.data.column_meaning`) a person knows a row by, the likeliest first: a
name, a title, an email, a file name ... then a date; never a URL (`self_link`), a timestamp to the second
(`last_update`), a time of day, a category, a count or free text."""

MAX_DEPTH = 2
"""Levels of parents found before a lookup, at most: a project by its name, then its section by its title, then the
section's tasks (two); deeper descriptions read as a walk through the database."""

_ID_WORDS = frozenset(("id", "ids", "key", "uuid", "guid", "sid"))


def printed_number(table: str) -> bool:
    """Whether a service prints this table's keys for its users (`orders`, `support_tickets`, `invoices`)."""
    words = tokens(table)
    return bool(words) and singular(words[-1]) in PRINTED


def internal_key(e: Env, table: str | None, value: Any) -> bool:
    """Whether `value` is a key of a row of `table` that a user would not hold (see `PRINTED`; a key that is
    a name, `rg-finance-prod-01`, is what its owner calls the resource, and holds)."""
    if table is None or table not in e.rows or printed_number(table) or isinstance(value, bool):
        return False
    if e.key_format[table].kind == "name":
        return False
    if not isinstance(value, str | int):
        return False
    pk = e.pk(table)
    return any(r.get(pk) == value for r in e.rows[table])


@dataclass
class Found:
    """How the agent finds one row: the calls (indices local to this finder), the facts the user states,
    and where the row's key is in the results (`(call index, row index)`)."""

    calls: list[GoldCall]
    facts: dict[str, Any]
    at: tuple[int, int]
    notes: list[str] = field(default_factory=list)


def _addressed_table(e: Env, tool: dict, arg: str, value: Any) -> str | None:
    """The table whose row the argument's value is the key of: the tool's own row for its key, the
    referenced table for a reference, else (a string key) the table that holds it."""
    op = tool["operation"]
    if e.key_arg(tool) == arg:
        return op["table"]
    bind = tool_bindings(tool).get(arg)
    if bind is not None and bind.table in e.spec["tables"] and bind.column:
        cspec = e.spec["tables"][bind.table]["columns"].get(bind.column) or {}
        if cspec.get("references") in e.rows:
            return cspec["references"]
        if bind.column == e.pk(bind.table):
            return bind.table
    if isinstance(value, str) and KEY_SHAPE.match(value):
        for table, rows in e.rows.items():
            if any(r.get(e.pk(table)) == value for r in rows):
                return table
    return None


AUDIT_COLUMNS = re.compile(
    r"^(?:(?:created|updated|modified|deleted|changed|last_modified|last_updated|last_changed)_by(?:_\w+)?"
    r"|creator|modifier|updater)$"
)
"""Who created or last changed a row (`created_by`, `creator`): records a person never finds a row by."""


def knows_row_by(e: Env, table: str, column: str, value: Any) -> bool:
    """Whether a person knows a row of `table` by this value of `column`: a readable value of a column people
    talk about (`IDENTIFYING`: a name, a title, an email ... a date), not a key, not filler, not who created
    the row (`AUDIT_COLUMNS`), not the row's own noun (`users.user`: "the user whose user is ...")."""
    cspec = e.spec["tables"][table]["columns"].get(column) or {}
    if column == e.pk(table) or cspec.get("references") or set(tokens(column)) & _ID_WORDS:
        return False
    if AUDIT_COLUMNS.match(column) or column in (table, singular(table)):
        return False
    if not isinstance(value, str) or not (2 <= len(value) <= 60) or KEY_SHAPE.match(value):
        return False
    if _rank(e, table, column) >= len(IDENTIFYING):
        return False
    if not askable(table, column, value) or not asked_by(column, column, value):
        return False
    return not is_filler(table, column, cspec, value)


def _rank(e: Env, table: str, column: str) -> int:
    """How likely a person knows a row by this column (`IDENTIFYING`'s order; its length when never)."""
    cspec = e.spec["tables"][table]["columns"].get(column) or {}
    meaning = column_meaning(table, column, cspec).split(":")[0]
    late = IDENTIFYING.index("date")  # after the row's own name, title and email
    if meaning in ("named", "person") and _names_another(table, column):
        return late  # `parent_account_name` of a pickup point
    person = singular(table).split("_")[-1] in _PERSON_WORDS
    if meaning == "email" and not person:
        return late  # a meeting's email is its organizer's: not how a meeting is named
    if meaning == "title" and person:
        return late  # a contact's title is a job title: a person is named by their name
    if meaning == "date" and not _own_date(table, column):
        return len(
            IDENTIFYING
        )  # "the mandate whose latest direct debit date is ...": no one knows it by that
    return IDENTIFYING.index(meaning) if meaning in IDENTIFYING else len(IDENTIFYING)


_DATE_WORDS = frozenset("date dates time at on utc day".split())
_OWN_DATES = frozenset(
    "due start starts end scheduled created issue issued booking appointment event".split()
)


def _own_date(table: str, column: str) -> bool:
    """Whether a date is the one a person knows a row by: its plain date (`date`, `due`, `start_date`,
    `issue_date`, an event's `event_date`), not one of its bookkeeping dates (`latest_direct_debit_date`,
    `early_close_off_date`, `approval_date`, `date_of_supply_utc`)."""
    words = [w for w in tokens(column) if w not in _DATE_WORDS]
    own = {singular(w) for w in tokens(singular(table))}
    if (
        not words
    ):  # a plain `date`: of things that happen on a day (a transaction, a booking), not a section's
        return bool(own & _DATED)
    return all(w in _OWN_DATES or singular(w) in own for w in words)


_DATED = frozenset(
    "transaction payment invoice bill order booking reservation appointment event meeting session entry expense "
    "timesheet activity visit shift trip flight receipt deposit transfer statement journal charge refund "
    "shipment delivery call".split()
)


_PERSON_WORDS = frozenset(PEOPLE) | frozenset(
    "contact employee applicant candidate organizer attendee registrant panelist agent teammate".split()
)


_NAME_WORDS = frozenset("name names full display first last given family nick short legal".split())


def _names_another(table: str, column: str) -> bool:
    """Whether a name column names something else than the row (`parent_account_name`, `owner_name`), not the
    row itself (`name`, `display_name`, `pickup_point_name` of `pickuppoints`)."""
    rest = "".join(t for t in tokens(column) if t not in _NAME_WORDS)
    return bool(rest) and rest not in "".join(tokens(singular(table)))


def _run(e: Env, tool: str, args: dict) -> list | None:
    e.env.restore(e.initial)
    obs = e.env.step(tool, args)
    result = obs.get("result") if obs.get("ok") else None
    return result if isinstance(result, list) else None


def _parent_args(e: Env, tool: dict, row: dict, rng: random.Random, depth: int) -> tuple | None:
    """The required arguments of a list tool other than its narrowing filter: each an eq filter on a
    reference column whose parent is itself found (depth-first). `(args, provenance-by-arg, finders)`."""
    op = tool["operation"]
    params = tool.get("parameters") or {}
    required = set(params.get("required") or [])
    filters = {f["arg"]: f for f in op.get("filters", []) if f.get("arg")}
    props = params.get("properties") or {}
    args, parents = {}, {}
    paging = None
    for arg in sorted(required):
        flt = filters.get(arg)
        if argument_role(arg, props.get(arg)) == "pagination" and (flt is None or not flt.get("column")):
            paging = paging or e.call(tool, rng)  # a page of the list, as a valid call asks it
            if paging is None or arg not in paging[0]:
                return None
            args[arg] = paging[0][arg]
            continue
        if flt is None or flt.get("op", "eq") != "eq":
            return None
        column = flt["column"]
        ref = (e.spec["tables"][op["table"]]["columns"].get(column) or {}).get("references")
        ref = ref or implied_table(e.spec, column, op["table"])  # `budget_id` with no `references`
        value = row.get(column)
        if value is None or ref is None or depth >= MAX_DEPTH:
            return None
        parent = next((r for r in e.rows.get(ref, []) if r.get(e.pk(ref)) == value), None)
        found = find_row(e, ref, parent, rng, depth + 1) if parent else None
        if found is None:
            return None
        args[arg] = value
        parents[arg] = (found, e.pk(ref))
    return args, parents


def find_row(e: Env, table: str, row: dict | None, rng: random.Random, depth: int = 0) -> Found | None:
    """How a person's description finds `row` of `table`: a list tool filtered by a value of the row only it
    has (`list_customers(email=...)`), or a list tool whose result the row is in and singled out by such a
    value (its title, its name). A list that needs a parent's key finds the parent first. `None` when no
    human attribute finds the row."""
    if row is None or table not in e.rows:
        return None
    pk = e.pk(table)
    rows = e.rows[table]
    known = {c: v for c, v in row.items() if knows_row_by(e, table, c, v)}
    # a value only this row has finds it anywhere; one that other rows share may still single it out among its
    # parent's (the task "Standup" in my "Team" list, where another list has a "Standup" too)
    unique = {c: v for c, v in known.items() if sum(r.get(c) == v for r in rows) == 1}
    options: list[tuple[int, Found]] = []
    for tool in e.reads:
        op = tool["operation"]
        if op["type"] != "list" or op["table"] != table:
            continue
        required = set((tool.get("parameters") or {}).get("required") or [])
        searched = _searched(e, tool, table, row, rows, required)
        if searched is not None:
            options.append(searched)
        for flt in op.get("filters", []):  # a filter on the describing value
            arg, column = flt.get("arg"), flt["column"]
            if arg is None or flt.get("op", "eq") != "eq" or column not in unique or required - {arg}:
                continue
            result = _run(e, tool["name"], {arg: row[column]})
            hits = [j for j, r in enumerate(result or []) if isinstance(r, dict) and r.get(pk) == row[pk]]
            if result and len(result) == 1 and hits:
                facts = {fact_name(arg, tool, e.spec): row[column]}
                found = Found([GoldCall(tool["name"], {arg: row[column]}, {arg: "user"})], facts, (0, 0))
                options.append((_rank(e, table, column), found))
        parents = _parent_args(e, tool, row, rng, depth)
        if parents is None:
            continue
        args, found_parents = parents
        option = _listed(e, tool, table, row, args, found_parents, known, unique)
        if option is not None:
            options.append(option)
        for arg, found in _optional_parents(e, tool, table, row, rng, depth, required | set(args)):
            # a row among its parent's, where a person places it: "the task "Standup" in my "Team" list"
            option = _listed(
                e, tool, table, row, {**args, arg: found[2]}, {**found_parents, arg: found[:2]}, known, unique
            )
            if option is not None:
                options.append(option)
    if not options:
        return None
    best = min(rank for rank, _ in options)  # by a name before a date, whichever list finds it
    return rng.choice([found for rank, found in options if rank == best])


_PHRASE_WORD = re.compile(r"[A-Za-z][a-z]{3,}")
_FUNCTION_WORDS = frozenset(
    "with will from that this have been about into over after before when what your their there then than they "
    "were would could should also just only some more most very here each which while where does done make "
    "made still need needs please thanks hello".split()
)
"""Words no one searches by ("with Holly", "Boston will"): a search is two words that carry the text's meaning."""
_CALENDAR = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march april june july august "
    "september october november december".split()
)
"""A day or a month alone finds a text by chance, not by what it is about."""


def _search_terms(words: list[str]) -> list[str]:
    """What a person types to find a text, best first: a name of two words ("Project Quartz"), a name
    ("Holly", "Boston"; not the text's first word), two words of five letters or more ("security audit")."""
    content = [(w, w.lower() not in _FUNCTION_WORDS) for w in words]
    pairs = list(zip(content, content[1:], strict=False))
    names = [f"{a} {b}" for (a, ok), (b, ok2) in pairs if ok and ok2 and a[0].isupper() and b[0].isupper()]
    single = [w for w, ok in content[1:] if ok and w[0].isupper() and w.lower() not in _CALENDAR]
    plain = [f"{a} {b}" for (a, ok), (b, ok2) in pairs if ok and ok2 and len(a) >= 5 and len(b) >= 5]
    return list(dict.fromkeys([*names, *single, *plain]))


def _searched(
    e: Env, tool: dict, table: str, row: dict, rows: list[dict], required: set[str]
) -> tuple[int, Found] | None:
    """`(rank, Found)`: the row found by a search for words of its text that no other row's text holds (a
    tweet by "security audit", a note by "quarterly budget"), where the list tool takes a `contains` filter;
    ranked with a date, after a name, a title or an email. `None` when no two words of it single it out."""
    pk = e.pk(table)
    for flt in tool["operation"].get("filters", []):
        arg, column = flt.get("arg"), flt.get("column")
        if flt.get("op") != "contains" or not arg or required - {arg} or not isinstance(row.get(column), str):
            continue
        cspec = e.spec["tables"][table]["columns"].get(column) or {}
        if "enum" in cspec or cspec.get("references") or column == pk:
            continue  # a search in a text, not in a kind or a key
        words = _PHRASE_WORD.findall(row[column])
        others = [str(r.get(column) or "").lower() for r in rows if r.get(pk) != row[pk]]
        for phrase in _search_terms(words):
            if phrase.lower() not in row[column].lower() or any(phrase.lower() in o for o in others):
                continue  # the two words apart in the text ("security, audit"), or another row has them
            result = _run(e, tool["name"], {arg: phrase})
            if result and len(result) == 1 and isinstance(result[0], dict) and result[0].get(pk) == row[pk]:
                facts = {f"words in the {entity_name(table, e.spec)}'s {readable_words(column)}": phrase}
                found = Found([GoldCall(tool["name"], {arg: phrase}, {arg: "user"})], facts, (0, 0))
                found.notes.append(f"found by searching {column} for {phrase!r}")
                return IDENTIFYING.index("date"), found
    return None


def _listed(
    e: Env, tool: dict, table: str, row: dict, args: dict, found_parents: dict, known: dict, unique: dict
) -> tuple[int, Found] | None:
    """`(rank, Found)`: the row found in what a list tool returns for `args` (the parents' keys found first),
    singled out there by a value the person knows of it; `None` when the list misses it or no value singles it
    out among the rows listed."""
    pk = e.pk(table)
    result = _run(e, tool["name"], args)
    hits = [j for j, r in enumerate(result or []) if isinstance(r, dict) and r.get(pk) == row[pk]]
    if not hits:
        return None
    listed = [r for r in result if isinstance(r, dict)]
    within = known if found_parents else unique  # among the parent's rows, or among them all
    said = [c for c in within if [r.get(c) for r in listed].count(row[c]) == 1]
    if not said:
        return None
    column = min(said, key=lambda c: (_rank(e, table, c), c))
    calls, prov, offset = [], {}, 0
    facts = {f"{entity_name(table, e.spec)} {readable_words(column)}": row[column]}
    for arg, (found, ppk) in found_parents.items():
        if any(facts.get(k, v) != v for k, v in found.facts.items()):
            # two parents found through two rows of one table ("the transaction of the budget named X of the
            # payee of the budget named Y"): the rows disagree, and no person describes a row so
            return None
        calls.extend(_shifted(c, offset) for c in found.calls)
        prov[arg] = f"call[{found.at[0] + offset}][{found.at[1]}].{ppk}"
        facts.update(found.facts)
        offset += len(found.calls)
    prov.update({a: "constant" for a in args if a not in prov})  # a page size the agent picks
    calls.append(GoldCall(tool["name"], dict(args), prov))
    found = Found(calls, facts, (len(calls) - 1, hits[0]), notes=[f"found by {column}"])
    return _rank(e, table, column), found


def _optional_parents(
    e: Env, tool: dict, table: str, row: dict, rng: random.Random, depth: int, taken: set[str]
) -> list[tuple[str, tuple[Found, str, Any]]]:
    """The optional filters of a list tool on a reference to the row's parent, each with how the parent is
    found: `[(arg, (Found, parent pk, the row's parent key))]` (`list_tasks(list_id=...)` for a task of a
    list a person names). Not below `MAX_DEPTH`, never the row's own table."""
    out = []
    if depth >= MAX_DEPTH:
        return out
    for flt in tool["operation"].get("filters", []):
        arg, column = flt.get("arg"), flt.get("column")
        if not arg or arg in taken or flt.get("op", "eq") != "eq" or row.get(column) is None:
            continue
        ref = (e.spec["tables"][table]["columns"].get(column) or {}).get("references")
        ref = ref or implied_table(e.spec, column, table)
        if ref is None or ref == table or ref not in e.rows:
            continue
        parent = next((r for r in e.rows[ref] if r.get(e.pk(ref)) == row[column]), None)
        found = find_row(e, ref, parent, rng, depth + 1) if parent else None
        if found is not None:
            out.append((arg, (found, e.pk(ref), row[column])))
    return out


def _shifted(call: GoldCall, by: int) -> GoldCall:
    prov = {a: shift_provenance(p, by) for a, p in call.provenance.items()}
    return GoldCall(call.tool, dict(call.arguments), prov, write=call.write)


def humanize(e: Env, draft: TaskDraft, rng: random.Random) -> Drop | None:
    """Replace every internal id the user would state with lookups prepended to the chain (see the module
    docstring); `("internal_id", detail)` when a row cannot be found by what a person knows of it.

    Sets `draft.lookups` (the calls prepended) and the shape: two rows found for one call is a `dag`."""
    attempt = (draft.policy_rule or {}).get("attempt")
    targets: list[tuple[GoldCall | dict, str, str, Any]] = []
    calls: list[Any] = list(draft.calls)
    if isinstance(attempt, dict) and attempt.get("tool") in e.tools:
        calls.append(attempt)
    for call in calls:
        tool_name = call.tool if isinstance(call, GoldCall) else call["tool"]
        arguments = call.arguments if isinstance(call, GoldCall) else call["arguments"]
        provenance = call.provenance if isinstance(call, GoldCall) else call.setdefault("provenance", {})
        tool = e.tools[tool_name]
        for arg, value in arguments.items():
            if provenance.get(arg, "user") not in ("user", "constant"):
                continue  # a key the user states, or one the request sets (the folder a file moves to)
            table = _addressed_table(e, tool, arg, value)
            if table is None or not internal_key(e, table, value):
                continue
            if isinstance(value, int) and not (set(tokens(arg)) & _ID_WORDS or e.key_arg(tool) == arg):
                continue
            targets.append((call, arg, table, value))
    if not targets:
        return None
    finders: dict[tuple[str, Any], tuple[Found, int]] = {}
    prepended: list[GoldCall] = []
    facts: dict[str, Any] = {}
    for _, arg, table, value in targets:
        if (table, value) in finders:
            continue
        row = next((r for r in e.rows[table] if r.get(e.pk(table)) == value), None)
        found = find_row(e, table, row, rng)
        if found is None:
            return "internal_id", f"{arg} = {value!r}: no lookup finds the {table} row by what a person knows"
        base = len(prepended)
        finders[(table, value)] = (found, base)
        prepended.extend([_shifted(c, base) for c in found.calls])
        facts.update(found.facts)
        draft.notes.extend(found.notes)
    n = len(prepended)
    for call in calls:  # the chain's own calls (and a policy attempt) keep their links, shifted by n
        provenance = call.provenance if isinstance(call, GoldCall) else call["provenance"]
        for a, p in list(provenance.items()):
            provenance[a] = shift_provenance(p, n)
    branch_write = (draft.branch or {}).get("write")
    if branch_write is not None and all(c is not branch_write for c in draft.calls):
        for a, p in list(branch_write.provenance.items()):  # the write a `tell` branch states, not runs
            branch_write.provenance[a] = shift_provenance(p, n)
    draft.calls = prepended + draft.calls
    fed: dict[int, set] = {}
    for call, arg, table, value in targets:
        found, offset = finders[(table, value)]
        source = f"call[{found.at[0] + offset}][{found.at[1]}].{e.pk(table)}"
        if isinstance(call, GoldCall):
            call.provenance[arg] = source
            fed.setdefault(id(call), set()).add((table, value))
        else:
            call["provenance"][arg] = source
    ids = {value for _, _, _, value in targets}
    gone = [
        n
        for n, v in draft.user_facts.items()
        if isinstance(v, str | int) and not isinstance(v, bool) and v in ids
    ]
    for name in gone:
        del draft.user_facts[name]
    draft.user_facts.update(facts)
    if gone and set(draft.withheld) & set(gone):
        draft.withheld = [w for w in draft.withheld if w not in gone] + [next(iter(facts))]
    draft.lookups = n
    merge_repeated_lookups(draft)
    if any(len(rows) >= 2 for rows in fed.values()) or joins(draft.calls):
        draft.shape = "dag" if draft.shape in ("single", "linear") else draft.shape
    elif draft.shape == "single":
        draft.shape = "linear"
    return None


def read_first(e: Env, draft: TaskDraft) -> None:
    """Read the row before the first write changes it, as an agent checks an order before cancelling it:
    a `get` of the row the first write addresses by its key is put before that write (unless the chain
    reads it already), and the write's key flows from what the get returned."""
    for index, call in enumerate(draft.calls):
        if not call.write:
            continue
        tool = e.tools[call.tool]
        table, karg = tool["operation"]["table"], e.key_arg(tool)
        get = e.gets.get(table)
        if not karg or karg not in call.arguments or get is None or tool["operation"]["type"] == "insert":
            return
        garg, pk = e.key_arg(get), e.pk(table)
        if any(c.tool == get["name"] and c.arguments.get(garg) == call.arguments[karg] for c in draft.calls):
            return
        params = get.get("parameters") or {}
        if set(params.get("required") or []) - {garg}:
            return  # a get that needs more than the key is left to the chain builders
        source = call.provenance.get(karg, "user")
        read = GoldCall(get["name"], {garg: call.arguments[karg]}, {garg: source})
        for later in draft.calls[index:]:
            for a, p in list(later.provenance.items()):
                if (source := provenance_call(p)) is not None and source >= index:
                    later.provenance[a] = shift_provenance(p, 1)
        call.provenance[karg] = f"call[{index}].{pk}"
        draft.calls.insert(index, read)
        if draft.shape == "single":
            draft.shape = "linear"
        return


# -------------------------------------------------------------------------------------- journey builders


def _related_pairs(e: Env, first: dict) -> list[tuple[dict, str, str]]:
    """Writes on a row related to the row `first` writes, along a foreign key: `(tool, how, column)` with
    `how` one of `"holds"` (the first row references the second: an order's `payment_id` -> refund that
    payment), `"adds"` (an insert of a row referencing the first: add a comment to the ticket) or
    `"listed"` (the one row of another table referencing the first, found by a list filtered by it)."""
    table = first["operation"]["table"]
    columns = e.spec["tables"][table]["columns"]
    out = []
    for tool in e.writes:
        op = tool["operation"]
        other = op["table"]
        if other == table or tool is first:
            continue
        key = e.key_arg(tool)
        acts = bool(op.get("fixed"))  # a status it sets: refund, deactivate, close ...
        if key and not (acts or (op["type"] == "delete" and not _removes(first))):
            continue  # "delete the request and set its employee's middle name": two asks, not one errand
        if key:
            for column, cspec in columns.items():
                if cspec.get("references") == other and column != e.pk(table) and not _removes(tool):
                    # a row the first one points to is changed along with it (the order's payment is refunded),
                    # never removed: nobody deletes an opportunity's owner because the opportunity goes
                    out.append((tool, "holds", column))
            for lister in e.reads:
                lop = lister["operation"]
                if lop["type"] != "list" or lop["table"] != other:
                    continue
                required = set((lister.get("parameters") or {}).get("required") or [])
                for flt in lop.get("filters", []):
                    ref = (e.spec["tables"][other]["columns"].get(flt["column"]) or {}).get("references")
                    if (
                        flt.get("arg")
                        and flt.get("op", "eq") == "eq"
                        and ref == table
                        and not required - {flt["arg"]}
                    ):
                        out.append((tool, f"listed:{lister['name']}:{flt['arg']}", flt["column"]))
        elif op["type"] == "insert" and not _retires(
            first
        ):  # nobody adds a payment to a batch just cancelled
            for column, binding in (op.get("values") or {}).items():
                cspec = e.spec["tables"][other]["columns"].get(column) or {}
                if isinstance(binding, str) and cspec.get("references") == table:
                    out.append((tool, f"adds:{binding}", column))
    return out


def _removes(tool: dict) -> bool:
    """Whether a write removes its row: a delete, or a tool named for deleting that retires it instead."""
    name = (tool.get("metadata") or {}).get("original_name") or tool["name"]
    return tool["operation"]["type"] == "delete" or bool(set(tokens(name)) & DELETE_VERBS)


def _retires(tool: dict) -> bool:
    """Whether a write ends its row's life: it removes it, or sets a status that means gone (cancelled,
    closed, archived ...)."""
    fixed = (tool["operation"].get("fixed") or {}).values()
    return _removes(tool) or any(str(v).lower() in RETIRED_STATUSES for v in fixed)


def references(e: Env, tool: dict) -> list[tuple[str, str]]:
    """`(argument, referenced table)` of an insert's values that reference another table's rows."""
    op = tool["operation"]
    if op["type"] != "insert":
        return []
    columns = e.spec["tables"][op["table"]]["columns"]
    return [
        (binding, columns[c]["references"])
        for c, binding in (op.get("values") or {}).items()
        if isinstance(binding, str) and c in columns and columns[c].get("references") in e.rows
    ]


def create_then_add(e: Env, rng: random.Random, kind: str) -> TaskDraft | None:
    """A new row, then a row added to it ("create a project, then add a task to it"): an insert, then an
    insert whose reference takes the new row's key (`call[0].KEY`)."""
    creates = [t for t in e.writes if t["operation"]["type"] == "insert"]
    rng.shuffle(creates)
    for first in creates[:4]:
        table = first["operation"]["table"]
        children = [
            (t, binding)
            for t in e.writes
            if t is not first
            for binding, ref in references(e, t)
            if ref == table
        ]
        built = e.call(first, rng) if children else None
        if built is None:
            continue
        second, binding = rng.choice(children)
        built2 = e.call(second, rng)
        if built2 is None:
            continue
        facts: dict[str, Any] = {}
        prov = e.provenance_user(first, built[0], facts, keys_from_user=False)
        rest2 = {x: v for x, v in built2[0].items() if x != binding}
        # the child lives where its parent does: an argument of both that names one row of one table (the
        # workspace of `/{workspace_slug}/members` and `/{workspace_slug}/members/{member}/activities`) is the
        # parent's own, never a second workspace
        parent_refs, child_refs = dict(references(e, first)), dict(references(e, second))
        routes = [(t.get("parameters") or {}).get("properties") or {} for t in (first, second)]
        for x in rest2:
            same_ref = x in parent_refs and parent_refs[x] == child_refs.get(x)
            if x in built[0] and (same_ref or all(in_path(props.get(x)) for props in routes)):
                rest2[x] = built[0][x]
        prov2 = e.provenance_user(second, rest2, facts, keys_from_user=False)
        pk = e.pk(table)
        calls = [
            GoldCall(first["name"], dict(built[0]), prov, write=True),
            GoldCall(
                second["name"], {binding: None, **rest2}, {binding: f"call[0].{pk}", **prov2}, write=True
            ),
        ]
        return TaskDraft(e.spec["name"], kind, calls, shape="linear", user_facts=facts)
    return None


def _agree(e: Env, call: GoldCall, table: str) -> None:
    """Give the other addressing arguments of a write on a chosen row (`merchant_id` beside the order's
    key) that row's own values, so that the call names one row, not two."""
    tool = e.tools[call.tool]
    karg = e.key_arg(tool)
    pk = e.pk(table)
    row = next((r for r in e.rows[table] if r.get(pk) == call.arguments.get(karg)), None) if karg else None
    if row is None:
        return
    for arg, bind in tool_bindings(tool).items():
        if arg == karg or arg not in call.arguments or call.provenance.get(arg, "").startswith("call["):
            continue
        if bind.table == table and bind.place in ("key", "filter") and row.get(bind.column) is not None:
            call.arguments[arg] = row[bind.column]


def related_writes(e: Env, rng: random.Random, kind: str = "write") -> TaskDraft | None:
    """Two writes on related rows along a foreign key, the first row read first ("cancel my order and
    refund its payment": get_order -> cancel_order -> refund_payment(call[0].payment_id)); with `kind`
    `"mixed"` the read's fact is also asked. The user's row is found by what they know of it later
    (`envscale.tasks.journeys.humanize`)."""
    if kind == "write" and rng.random() < 0.3:
        draft = create_then_add(e, rng, kind)
        if draft is not None:
            return draft
    firsts = [t for t in e.writes if e.key_arg(t) and t["operation"]["table"] in e.gets]
    rng.shuffle(firsts)
    for first in firsts[:4]:
        pairs = _related_pairs(e, first)
        if not pairs:
            continue
        second, how, column = rng.choice(pairs)
        built = e.call(first, rng)
        if built is None or built[1] is None:
            continue
        args, a = built
        table = first["operation"]["table"]
        pk, other = e.pk(table), second["operation"]["table"]
        built2 = e.call(second, rng)
        if built2 is None:
            continue
        args2 = dict(built2[0])
        get = e.gets[table]
        garg, karg = e.key_arg(get), e.key_arg(first)
        extra = e.call(get, rng, a)
        if extra is None:
            continue
        grest = {x: v for x, v in extra[0].items() if x != garg}
        facts: dict[str, Any] = {}
        rest = {x: v for x, v in args.items() if x != karg}
        prov = e.provenance_user(first, rest, facts)
        calls = [
            GoldCall(get["name"], {garg: a[pk], **grest}, {garg: "user", **dict.fromkeys(grest, "constant")}),
            GoldCall(first["name"], {karg: a[pk], **rest}, {karg: f"call[0].{pk}", **prov}, write=True),
        ]
        facts[fact_name(garg, get, e.spec)] = a[pk]
        key2 = e.key_arg(second)
        if how == "holds":
            if a.get(column) is None or not any(r.get(e.pk(other)) == a[column] for r in e.rows[other]):
                continue
            rest2 = {x: v for x, v in args2.items() if x != key2}
            prov2 = e.provenance_user(second, rest2, facts)
            calls.append(
                GoldCall(
                    second["name"],
                    {key2: a[column], **rest2},
                    {key2: f"call[0].{column}", **prov2},
                    write=True,
                )
            )
        elif how.startswith("listed:"):
            _, lister, larg = how.split(":")
            children = [r for r in e.rows[other] if r.get(column) == a[pk]]
            if len(children) != 1:
                continue
            rest2 = {x: v for x, v in args2.items() if x != key2}
            prov2 = e.provenance_user(second, rest2, facts)
            calls.append(GoldCall(lister, {larg: a[pk]}, {larg: f"call[0].{pk}"}))
            opk = e.pk(other)
            calls.append(
                GoldCall(
                    second["name"],
                    {key2: children[0][opk], **rest2},
                    {key2: f"call[2][0].{opk}", **prov2},
                    write=True,
                )
            )
        else:  # adds: the new row references the first
            binding = how.split(":", 1)[1]
            rest2 = {x: v for x, v in args2.items() if x != binding}
            prov2 = e.provenance_user(second, rest2, facts, keys_from_user=False)
            calls.append(
                GoldCall(
                    second["name"], {binding: a[pk], **rest2}, {binding: f"call[0].{pk}", **prov2}, write=True
                )
            )
        _agree(e, calls[-1], other)
        notes = ["answer from call 0"] if kind == "mixed" else []
        return TaskDraft(e.spec["name"], kind, calls, shape="linear", user_facts=facts, notes=notes)
    return None
