"""Chain builders: the gold calls of one candidate task, sampled along the environment's real data flow.

`BUILDERS[kind](e, rng)` builds one candidate of a kind (`envscale.tasks.model.KINDS`) in a prepared
environment (`envscale.tasks.prepared.Env`): a `TaskDraft` whose every argument records its provenance
(`user`, `constant`, `call[i].FIELD`), or a sentence saying why nothing could be built. The shapes:

- **single**: one call (`get_order(order number)`, `cancel_order(order number)`);
- **link**: a lookup, then a call whose key flows from its result: a row the user describes by something
  unique about it (`list_customers(email=...)` -> `update_customer(customer_id=call[0][0].customer_id)`),
  a row read along a foreign key (`get_order` -> `get_customer(call[0].customer_id)`), or the write of a
  row related to the one the user names ("the customer who placed order ord_0003");
- **fan-in** (`dag`): two lookups on their own tables feeding the references of one insert
  (`create_order(customer from an email, product from a name)`);
- **policy**: the lookup of a row the environment's rules forbid a write on (the write is the attempt);
- **missing_info**: a write whose addressing fact is withheld from the first message.

A link is used only when the value really flows when the chain runs (`envscale.tasks.gold.execute` checks
it); what the user could never say is dropped later (`envscale.tasks.arguments.tidy`, `envscale.tasks.asks`).

Example:

```python
>>> import random
>>> from envscale.env import load_spec
>>> from envscale.tasks.build import TasksConfig
>>> from envscale.tasks.chains import BUILDERS
>>> from envscale.tasks.prepared import Env
>>> e = Env({"spec": load_spec("tests/fixtures/envs/shop.yaml")}, TasksConfig())
>>> draft = BUILDERS["mixed"](e, random.Random(0))
>>> [(c.tool, c.provenance) for c in draft.calls], draft.shape
([('get_order', {'order_id': 'user'}), ('update_order_status', {'order_id': 'call[0].order_id', 'status': 'constant'})], 'linear')
>>> BUILDERS["read"](e, random.Random(0)).calls[0].tool
'get_product'
>>> e.env.close()
```
"""

from __future__ import annotations

import random
from typing import Any

from ..words.semantics import argument_role
from .asks import asked_by
from .branches import branch
from .finding import knows_row_by, party_table
from .gold import matching_field
from .journeys import references, related_writes, removes
from .model import GoldCall, TaskDraft
from .naming import bare_person_link, fact_name, tool_bindings
from .prepared import Env

RELATED_SHARE = 0.75
"""Share of write and mixed candidates first tried as two writes on related rows (`journeys.related_writes`)."""
ACTING_SHARE = 0.75
"""Share of write candidates drawn among writes on rows the user names (keyed, or inserts referencing rows)
rather than among every write (a bare create is one call)."""
BRANCH_SHARE = 0.75
"""Share of mixed candidates first tried as a decision on what a read returns (`branches.branch`)."""


def _lookup(e: Env, table: str, row: dict, rng: random.Random) -> tuple[dict, str, Any] | None:
    """A list tool on `table` and one of its eq-filter arguments whose value (from `row`) finds exactly
    that row: `(tool, argument, value)`."""
    pk = e.pk(table)
    options = []
    for tool in e.reads:
        op = tool["operation"]
        if op["type"] != "list" or op["table"] != table:
            continue
        required = set((tool.get("parameters") or {}).get("required") or [])
        for flt in op.get("filters", []):
            arg, column = flt.get("arg"), flt["column"]
            if arg is None or flt.get("op", "eq") != "eq" or column == pk or row.get(column) is None:
                continue
            if required - {arg}:  # the lookup is called with this one argument
                continue
            if isinstance(row[column], dict | list | bool) or not asked_by(arg, column, row[column]):
                continue
            if not knows_row_by(
                e, table, column, row[column]
            ):  # a name, a title ...: never a body or a creator
                continue
            if sum(r.get(column) == row[column] for r in e.rows[table]) == 1:
                options.append((tool, arg, row[column]))
    return rng.choice(options) if options else None


# -------------------------------------------------------------------------------------- read


def _read(e: Env, rng: random.Random) -> TaskDraft | str:
    """A row found by a lookup then read; a get along a foreign key into another get; or one read."""
    gets = list(e.gets.values())
    roll = rng.random()
    if gets and roll < 0.4 and e.config.max_chain_length >= 2:
        draft = _read_found_by_lookup(e, gets, rng)
        if draft is not None:
            return draft
    if gets and roll < 0.9:
        return _read_along_reference(e, gets, rng)
    return _single_read(e, rng)


def _read_found_by_lookup(e: Env, gets: list[dict], rng: random.Random) -> TaskDraft | None:
    """The user describes a row by something unique about it; a lookup finds it, a get reads it."""
    get = rng.choice(gets)
    table = get["operation"]["table"]
    row = rng.choice(e.rows[table]) if e.rows.get(table) else None
    found = _lookup(e, table, row, rng) if row else None
    extra = e.call(get, rng, row) if found else None
    if not found or extra is None:
        return None
    ltool, larg, lvalue = found
    garg, pk = e.key_arg(get), e.pk(table)
    rest = {a: v for a, v in extra[0].items() if a != garg}
    facts = {fact_name(larg, ltool, e.spec): lvalue}
    calls = [
        GoldCall(ltool["name"], {larg: lvalue}, {larg: "user"}),
        GoldCall(
            get["name"],
            {garg: row[pk], **rest},
            {garg: f"call[0][0].{pk}", **dict.fromkeys(rest, "constant")},
        ),
    ]
    return TaskDraft(e.spec["name"], "read", calls, shape="linear", user_facts=facts)


def _read_along_reference(e: Env, gets: list[dict], rng: random.Random) -> TaskDraft | str:
    """A get, then (when its row references a table with a get) the get of the row it references."""
    first = rng.choice(gets)
    table = first["operation"]["table"]
    fks = [
        (c, s["references"])
        for c, s in e.spec["tables"][table]["columns"].items()
        if s.get("references") in e.gets and not bare_person_link(e.spec, table, c)
    ]
    built = e.call(first, rng)
    if built is None:
        return f"{first['name']}: no row to read"
    args, target = built
    facts: dict[str, Any] = {}
    prov = e.provenance_user(first, args, facts)
    calls = [GoldCall(first["name"], args, prov)]
    shape = "single"
    if fks and target is not None:
        column, ref = rng.choice(fks)
        second = e.gets[ref]
        parent = next((r for r in e.rows[ref] if r.get(e.pk(ref)) == target.get(column)), None)
        # other required arguments (headers, options) as a person gives them; the route the row is under its own
        extra = e.call(second, rng, parent) if parent is not None else None
        if target.get(column) is not None and extra is not None:
            karg = e.key_arg(second)
            rest = {a: v for a, v in extra[0].items() if a != karg}
            prov2 = {a: "constant" for a in rest}
            calls.append(
                GoldCall(second["name"], {karg: target[column], **rest}, {karg: f"call[0].{column}", **prov2})
            )
            shape = "linear"
    return TaskDraft(e.spec["name"], "read", calls, shape=shape, user_facts=facts)


def _single_read(e: Env, rng: random.Random) -> TaskDraft | str:
    """One read (in an environment of loose functions, only a get): a list or count must be narrowed by
    something a person would describe a row by."""
    lists = [t for t in e.reads if t["operation"]["type"] in ("list", "count", "get")]
    if not e.grouped:  # a loose function's filters are its inputs, not attributes a person asks by
        lists = [t for t in lists if t["operation"]["type"] == "get"]
    if not lists:
        return "no read tool (filtered reads are posed only in environments of a real API)"
    tool = rng.choice(lists)
    built = e.call(tool, rng)
    if built is None:
        return f"{tool['name']}: no valid call"
    args, _ = built
    op = tool["operation"]
    narrowing = {f.get("arg") for f in op.get("filters", []) if f.get("arg")} | {
        b for b in (op.get("key") or {}).values() if isinstance(b, str)
    }
    if op["type"] != "get" and not narrowing & set(args):
        return f"{tool['name']}: a read with nothing to narrow it (only paging or options)"
    props = (tool.get("parameters") or {}).get("properties") or {}
    if args and all(argument_role(a, props.get(a)) in ("pagination", "option") for a in args):
        return f"{tool['name']}: a read asked with paging or options only"
    if not args and op["table"] != (e.spec.get("session") or {}).get("table"):
        return f"{tool['name']}: a lookup with no arguments says nothing about what it looks up"
    for flt in op.get("filters", []):
        if flt.get("arg") in args and not asked_by(flt["arg"], flt["column"], args[flt["arg"]]):
            return f"{tool['name']}: nobody finds a row by {flt['arg']} = {args[flt['arg']]!r}"
    facts = {}
    prov = e.provenance_user(tool, args, facts)
    return TaskDraft(e.spec["name"], "read", [GoldCall(tool["name"], args, prov)], user_facts=facts)


# -------------------------------------------------------------------------------------- write


def _write(e: Env, rng: random.Random, *, kind: str = "write") -> TaskDraft | str:
    """One write, a lookup feeding its key, or two lookups feeding its references (a DAG)."""
    if not e.writes:
        return "no write tool"
    tool = rng.choice(e.writes)
    acting = [t for t in e.writes if e.key_arg(t) or references(e, t)]
    if acting and rng.random() < ACTING_SHARE:  # a write on rows the user names, more than a bare create
        tool = rng.choice(acting)
    built = e.call(tool, rng)
    if built is None:
        return f"{tool['name']}: no valid call"
    args, target = built
    karg = e.key_arg(tool)
    roll = rng.random()
    linked = karg and target is not None and e.config.max_chain_length >= 2
    draft = None
    if kind == "write" and e.config.max_chain_length >= 3 and rng.random() < RELATED_SHARE:
        draft = related_writes(e, rng)
        if draft is not None:
            return draft
    if linked and roll < 0.5:
        draft = _write_of_related_row(e, tool, args, target, karg, kind, rng)
    if draft is None and linked and roll < 0.7:
        draft = _write_found_by_lookup(e, tool, args, target, karg, kind, rng)
    if draft is None and tool["operation"]["type"] == "insert" and e.config.max_chain_length >= 3:
        draft = _write_fed_by_lookups(e, tool, args, kind, rng)
    if draft is None:
        facts: dict[str, Any] = {}
        prov = e.provenance_user(tool, args, facts)
        draft = TaskDraft(
            e.spec["name"], kind, [GoldCall(tool["name"], args, prov, write=True)], user_facts=facts
        )
    return draft


def _write_of_related_row(
    e: Env, tool: dict, args: dict, target: dict, karg: str, kind: str, rng: random.Random
) -> TaskDraft | None:
    """The user names a related row; its reference flows into the write ("change the email of the customer
    who placed order ord_0003": get_order -> update_customer(customer_id=call[0].customer_id))."""
    table = tool["operation"]["table"]
    if removes(tool) and party_table(table):
        # "delete the owner of the activity", "delete the company of the employee" (seed 87's readers): nobody
        # removes a person or an organisation because of one row of theirs
        return None
    pk = e.pk(table)
    sources = [
        (src, column)
        for src, tspec in e.spec["tables"].items()
        for column, cspec in tspec["columns"].items()
        if cspec.get("references") == table
        and src in e.gets
        and src != table
        and not bare_person_link(e.spec, src, column)  # "suspend the user of the offering"
    ]
    rng.shuffle(sources)
    for src, column in sources:
        related = [r for r in e.rows[src] if r.get(column) == target[pk]]
        get = e.gets[src]
        via = rng.choice(related) if related else None
        extra = e.call(get, rng, via) if via is not None else None
        if extra is None:
            continue
        garg, spk = e.key_arg(get), e.pk(src)
        grest = {a: v for a, v in extra[0].items() if a != garg}
        rest = {a: v for a, v in args.items() if a != karg}
        facts: dict[str, Any] = {}
        prov = e.provenance_user(tool, rest, facts)
        facts[fact_name(garg, get, e.spec)] = via[spk]
        calls = [
            GoldCall(
                get["name"], {garg: via[spk], **grest}, {garg: "user", **dict.fromkeys(grest, "constant")}
            ),
            GoldCall(
                tool["name"], {karg: target[pk], **rest}, {karg: f"call[0].{column}", **prov}, write=True
            ),
        ]
        return TaskDraft(e.spec["name"], kind, calls, shape="linear", user_facts=facts)
    return None


def _write_found_by_lookup(
    e: Env, tool: dict, args: dict, target: dict, karg: str, kind: str, rng: random.Random
) -> TaskDraft | None:
    """A lookup finds the row the user describes, and its key flows into the write."""
    table = tool["operation"]["table"]
    found = _lookup(e, table, target, rng)
    if not found:
        return None
    ltool, larg, lvalue = found
    rest = {a: v for a, v in args.items() if a != karg}
    facts: dict[str, Any] = {}
    prov = e.provenance_user(tool, rest, facts)
    facts[fact_name(larg, ltool, e.spec)] = lvalue
    calls = [
        GoldCall(ltool["name"], {larg: lvalue}, {larg: "user"}),
        GoldCall(
            tool["name"],
            {karg: target[e.pk(table)], **rest},
            {karg: f"call[0][0].{e.pk(table)}", **prov},
            write=True,
        ),
    ]
    return TaskDraft(e.spec["name"], kind, calls, shape="linear", user_facts=facts)


def _write_fed_by_lookups(e: Env, tool: dict, args: dict, kind: str, rng: random.Random) -> TaskDraft | None:
    """References of an insert resolved by lookups on their own tables (two feeding one write: a DAG)."""
    op = tool["operation"]
    table = op["table"]
    refs = []
    for column, binding in (op.get("values") or {}).items():
        spec_col = e.spec["tables"][table]["columns"].get(column, {})
        ref = spec_col.get("references")
        if isinstance(binding, str) and ref and binding in args and ref in e.rows:
            row = next((r for r in e.rows[ref] if r[e.pk(ref)] == args[binding]), None)
            found = _lookup(e, ref, row, rng) if row else None
            if found:
                refs.append((binding, ref, found))
    if len(refs) < 2:
        return None
    calls, facts = [], {}
    flowing: dict[str, str] = {}
    for i, (binding, ref, (ltool, larg, lvalue)) in enumerate(refs[:2]):
        calls.append(GoldCall(ltool["name"], {larg: lvalue}, {larg: "user"}))
        facts[fact_name(larg, ltool, e.spec)] = lvalue
        flowing[binding] = f"call[{i}][0].{e.pk(ref)}"
    rest = {a: v for a, v in args.items() if a not in flowing}
    prov = e.provenance_user(tool, rest, facts)
    calls.append(GoldCall(tool["name"], args, {**prov, **flowing}, write=True))
    return TaskDraft(e.spec["name"], kind, calls, shape="dag", user_facts=facts)


# -------------------------------------------------------------------------------------- mixed, policy, missing


def _mixed(e: Env, rng: random.Random) -> TaskDraft | str:
    """Read a row and report a fact of it, then write the same row (and, sometimes, a row related to it);
    or a decision on what the read returns (`branches.branch`)."""
    if e.config.max_chain_length >= 2 and rng.random() < BRANCH_SHARE:
        draft = branch(e, rng)
        if draft is not None:
            return draft
    if e.config.max_chain_length >= 3 and rng.random() < RELATED_SHARE:
        draft = related_writes(e, rng, kind="mixed")
        if draft is not None:
            return draft
    keyed = [t for t in e.writes if e.key_arg(t) and t["operation"]["table"] in e.gets]
    if not keyed:
        return "no write addressed by a key that a get tool also reads"
    tool = rng.choice(keyed)
    built = e.call(tool, rng)
    if built is None or built[1] is None:
        return f"{tool['name']}: no valid call"
    args, target = built
    table = tool["operation"]["table"]
    get = e.gets[table]
    garg, karg = e.key_arg(get), e.key_arg(tool)
    facts: dict[str, Any] = {}
    rest = {a: v for a, v in args.items() if a != karg}
    prov = e.provenance_user(tool, rest, facts)
    facts[fact_name(garg, get, e.spec)] = target[e.pk(table)]
    extra = e.call(get, rng, target)
    if extra is None:
        return f"{get['name']}: no valid call"
    grest = {a: v for a, v in extra[0].items() if a != garg}
    calls = [
        GoldCall(
            get["name"],
            {garg: target[e.pk(table)], **grest},
            {garg: "user", **dict.fromkeys(grest, "constant")},
        ),
        GoldCall(
            tool["name"],
            {karg: target[e.pk(table)], **rest},
            {karg: f"call[0].{e.pk(table)}", **prov},
            write=True,
        ),
    ]
    return TaskDraft(
        e.spec["name"], "mixed", calls, shape="linear", user_facts=facts, notes=["answer from call 0"]
    )


def _policy(e: Env, rng: random.Random) -> TaskDraft | str:
    """A write the rules forbid on a row the task picks: look the row up, refuse, change nothing."""
    ruled = []
    for tool in e.writes:
        op = tool["operation"]
        karg = e.key_arg(tool)
        table = op["table"]
        if not karg or table not in e.gets:
            continue
        for cond in op.get("preconditions", []):
            if cond.get("op") in ("in", "eq", "ne"):
                ruled.append((tool, cond))
    if not ruled:
        return "no write with a precondition the task can set up"
    tool, cond = rng.choice(ruled)
    table = tool["operation"]["table"]
    column, op_, value = cond["column"], cond["op"], cond["value"]

    def holds(v: Any) -> bool:
        return v in value if op_ == "in" else (v == value if op_ == "eq" else v != value)

    violating = [r for r in e.rows[table] if r.get(column) is not None and not holds(r[column])]
    if not violating:
        return f"{tool['name']}: every row meets its rule on {column}"
    row = rng.choice(violating)
    built = e.call(dict(tool, operation={**tool["operation"], "preconditions": []}), rng)
    if built is None:
        return f"{tool['name']}: no valid call"
    args = dict(built[0])
    karg = e.key_arg(tool)
    args[karg] = row[e.pk(table)]
    binds = tool_bindings(tool)
    # a field of the row the attempt names is the row's own (its confirmation id, not another one)
    for arg in args:
        if arg == karg or getattr(binds.get(arg), "place", None) == "set":
            continue
        field = matching_field(arg, row)
        if field is not None and row[field] is not None:
            args[arg] = row[field]
    get = e.gets[table]
    garg = e.key_arg(get)
    facts: dict[str, Any] = {}
    prov = e.provenance_user(tool, args, facts)
    rule = {
        "tool": tool["name"],
        "table": table,
        "column": column,
        "op": op_,
        "allowed": value,
        "text": cond.get("error") or f"{tool['name']} requires {column} {op_} {value}",
        "attempt": {"tool": tool["name"], "arguments": args, "provenance": prov},
    }
    extra = e.call(get, rng, row)
    grest = {a: v for a, v in (extra[0] if extra else {}).items() if a != garg}
    lookup = GoldCall(
        get["name"], {garg: row[e.pk(table)], **grest}, {garg: "user", **dict.fromkeys(grest, "constant")}
    )
    return TaskDraft(
        e.spec["name"],
        "policy",
        [lookup],
        user_facts=facts,
        required=[get["name"]],
        forbidden=[tool["name"]],
        policy_rule=rule,
        answer_facts=[str(row[column])],
    )


def _missing_info(e: Env, rng: random.Random) -> TaskDraft | str:
    """A write whose addressing fact is withheld from the first message."""
    draft = _write(e, rng, kind="missing_info")
    if isinstance(draft, str):
        return draft
    user = [a for c in draft.calls for a, p in c.provenance.items() if p == "user"]
    if not user:
        return "no user fact to withhold"
    tool = e.tools[next(c.tool for c in draft.calls if any(p == "user" for p in c.provenance.values()))]
    draft.withheld = [fact_name(user[0], tool, e.spec)]
    return draft


BUILDERS = {
    "read": _read,
    "write": _write,
    "mixed": _mixed,
    "policy": _policy,
    "missing_info": _missing_info,
}
"""The builder of each task kind: `(e, rng) -> TaskDraft`, or a sentence saying why nothing was built."""
