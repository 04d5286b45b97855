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
from ..words.inflect import singular
from ..words.names import tokens
from ..words.semantics import argument_role
from .asks import KEY_SHAPE, askable, asked_by
from .model import Drop, GoldCall, TaskDraft
from .naming import entity_name, fact_name, implied_table, tool_bindings
from .prepared import Env
from .wording import readable_words

PRINTED = frozenset(
    "order ticket invoice booking reservation receipt confirmation case shipment bill quote estimate".split()
)
"""Things a real service prints a number of for its user (an order number on the receipt, a ticket number
in the e-mail): the user may state that key. Every other key is internal and is looked up."""

IDENTIFYING = frozenset(
    "person email named title filename phone company date datetime url address username slug".split()
)
"""Meanings of a column (`envscale.env.data.column_meaning`) a person knows a row by: a name, an email, a
title, a file name, a date ... never a time of day, a category, a count or free text."""

MAX_DEPTH = 1
"""Parents found before a lookup (a budget by its name, then the budget's transactions), at most."""

_ID_WORDS = frozenset(("id", "ids", "key", "uuid", "guid", "sid"))
_CALL = re.compile(r"call\[(\d+)\]")


def printed_number(table: str) -> bool:
    """Whether a service prints this table's keys for its users (`orders`, `support_tickets`, `invoices`)."""
    words = tokens(table)
    return bool(words) and singular(words[-1]) in PRINTED


def internal_key(e: Env, table: str | None, value: Any) -> bool:
    """Whether `value` is a key of a row of `table` that a user would not hold (see `PRINTED`)."""
    if table is None or table not in e.rows or printed_number(table) or isinstance(value, bool):
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


def _human(e: Env, table: str, column: str, value: Any) -> bool:
    """Whether a person knows a row by this value: a readable value of a column people talk about, not a
    key, not filler."""
    cspec = e.spec["tables"][table]["columns"].get(column) or {}
    if column == e.pk(table) or cspec.get("references") or set(tokens(column)) & _ID_WORDS:
        return False
    if not isinstance(value, str) or not (2 <= len(value) <= 60) or KEY_SHAPE.match(value):
        return False
    if column_meaning(table, column, cspec).split(":")[0] not in IDENTIFYING:
        return False
    if not askable(table, column, value) or not asked_by(column, column, value):
        return False
    return not is_filler(table, column, cspec, value)


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
    unique = {
        c: v for c, v in row.items() if _human(e, table, c, v) and sum(r.get(c) == v for r in rows) == 1
    }
    if not unique:
        return None
    options: list[Found] = []
    for tool in e.reads:
        op = tool["operation"]
        if op["type"] != "list" or op["table"] != table:
            continue
        required = set((tool.get("parameters") or {}).get("required") or [])
        for flt in op.get("filters", []):  # a filter on the describing value
            arg, column = flt.get("arg"), flt["column"]
            if arg is None or flt.get("op", "eq") != "eq" or column not in unique or required - {arg}:
                continue
            result = _run(e, tool["name"], {arg: row[column]})
            hits = [j for j, r in enumerate(result or []) if isinstance(r, dict) and r.get(pk) == row[pk]]
            if result and len(result) == 1 and hits:
                facts = {fact_name(arg, tool, e.spec): row[column]}
                options.append(
                    Found([GoldCall(tool["name"], {arg: row[column]}, {arg: "user"})], facts, (0, 0))
                )
        parents = _parent_args(e, tool, row, rng, depth)
        if parents is None:
            continue
        args, found_parents = parents
        result = _run(e, tool["name"], args)
        hits = [j for j, r in enumerate(result or []) if isinstance(r, dict) and r.get(pk) == row[pk]]
        if not hits:
            continue
        listed = [r for r in result if isinstance(r, dict)]
        said = [c for c in unique if [r.get(c) for r in listed].count(row[c]) == 1]
        if not said:
            continue
        column = min(said, key=lambda c: (c not in ("name", "title", "label", "subject", "email"), c))
        calls, prov, offset = [], {}, 0
        facts = {f"{entity_name(table, e.spec)} {readable_words(column)}": row[column]}
        for arg, (found, ppk) in found_parents.items():
            calls.extend(_shifted(c, offset) for c in found.calls)
            prov[arg] = f"call[{found.at[0] + offset}][{found.at[1]}].{ppk}"
            facts.update(found.facts)
            offset += len(found.calls)
        prov.update({a: "constant" for a in args if a not in prov})  # a page size the agent picks
        calls.append(GoldCall(tool["name"], dict(args), prov))
        options.append(Found(calls, facts, (len(calls) - 1, hits[0]), notes=[f"found by {column}"]))
    return rng.choice(options) if options else None


def _shift(source: str, by: int) -> str:
    return _CALL.sub(lambda m: f"call[{int(m.group(1)) + by}]", source, count=1)


def _shifted(call: GoldCall, by: int) -> GoldCall:
    prov = {a: _shift(p, by) if p.startswith("call[") else p for a, p in call.provenance.items()}
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
            if p.startswith("call["):
                provenance[a] = _shift(p, n)
    branch_write = (draft.branch or {}).get("write")
    if branch_write is not None and all(c is not branch_write for c in draft.calls):
        for a, p in list(branch_write.provenance.items()):  # the write a `tell` branch states, not runs
            if p.startswith("call["):
                branch_write.provenance[a] = _shift(p, n)
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
    if any(len(rows) >= 2 for rows in fed.values()) or joins(draft.calls):
        draft.shape = "dag" if draft.shape in ("single", "linear") else draft.shape
    elif draft.shape == "single":
        draft.shape = "linear"
    return None


def joins(calls: list[GoldCall]) -> bool:
    """Whether some call draws on two earlier calls neither of which depends on the other (two lookups
    feeding one write: a DAG, not a line)."""
    above: list[set[int]] = []
    for call in calls:
        sources = {int(m.group(1)) for p in call.provenance.values() if (m := _CALL.match(p))}
        sources = {j for j in sources if j < len(above)}
        for j in sources:
            for k in sources:
                if j < k and j not in above[k] and k not in above[j]:
                    return True
        above.append(set().union(sources, *(above[j] for j in sources)))
    return False


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
                if p.startswith("call["):
                    m = _CALL.match(p)
                    if m and int(m.group(1)) >= index:
                        later.provenance[a] = _shift(p, 1)
        call.provenance[karg] = f"call[{index}].{pk}"
        draft.calls.insert(index, read)
        if draft.shape == "single":
            draft.shape = "linear"
        return
