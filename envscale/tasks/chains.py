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
import re
from typing import Any

from ..words.semantics import argument_role
from .asks import askable, asked_by
from .model import GoldCall, TaskDraft
from .naming import fact_name, tool_bindings
from .prepared import Env

RELATED_SHARE = 0.5
ACTING_SHARE = 0.75
BRANCH_SHARE = 0.5
"""Share of mixed candidates first tried as a decision on what a read returns (`_branch`)."""
"""Share of write candidates drawn among writes on rows the user names (keyed, or inserts referencing rows)
rather than among every write (a bare create is one call)."""
"""Share of write and mixed candidates first tried as two writes on related rows (`_related_writes`)."""


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
    extra = e.call(get, rng) if found else None
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
        if s.get("references") in e.gets
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
        extra = e.call(second, rng)  # other required arguments (headers, options) as a person gives them
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
    acting = [t for t in e.writes if e.key_arg(t) or _references(e, t)]
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
        draft = _related_writes(e, rng)
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
    pk = e.pk(table)
    sources = [
        (src, column)
        for src, tspec in e.spec["tables"].items()
        for column, cspec in tspec["columns"].items()
        if cspec.get("references") == table and src in e.gets and src != table
    ]
    rng.shuffle(sources)
    for src, column in sources:
        related = [r for r in e.rows[src] if r.get(column) == target[pk]]
        get = e.gets[src]
        extra = e.call(get, rng) if related else None
        if extra is None:
            continue
        via = rng.choice(related)
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
        if key:
            for column, cspec in columns.items():
                if cspec.get("references") == other and column != e.pk(table):
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
        elif op["type"] == "insert":
            for column, binding in (op.get("values") or {}).items():
                cspec = e.spec["tables"][other]["columns"].get(column) or {}
                if isinstance(binding, str) and cspec.get("references") == table:
                    out.append((tool, f"adds:{binding}", column))
    return out


def _references(e: Env, tool: dict) -> list[tuple[str, str]]:
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


def _create_then_add(e: Env, rng: random.Random, kind: str) -> TaskDraft | None:
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
            for binding, ref in _references(e, t)
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


def _related_writes(e: Env, rng: random.Random, kind: str = "write") -> TaskDraft | None:
    """Two writes on related rows along a foreign key, the first row read first ("cancel my order and
    refund its payment": get_order -> cancel_order -> refund_payment(call[0].payment_id)); with `kind`
    `"mixed"` the read's fact is also asked. The user's row is found by what they know of it later
    (`envscale.tasks.journeys.humanize`)."""
    if kind == "write" and rng.random() < 0.3:
        draft = _create_then_add(e, rng, kind)
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
        extra = e.call(get, rng)
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


def _status_set(e: Env, tool: dict) -> tuple[str, str] | None:
    """`(column, argument)` of an update that sets one status-like column (a `status`/`state` column or an
    enum) and nothing else, if it is one."""
    op = tool["operation"]
    sets = op.get("set") or {}
    if op["type"] != "update" or len(sets) != 1:
        return None
    column, binding = next(iter(sets.items()))
    cspec = e.spec["tables"][op["table"]]["columns"].get(column) or {}
    if not isinstance(binding, str) or not (cspec.get("enum") or re.search(r"(^|_)(status|state)$", column)):
        return None
    return column, binding


def _branch(e: Env, rng: random.Random) -> TaskDraft | None:
    """A decision on what a read returns: "cancel my appointment unless it is already cancelled, in which
    case tell me its date". A status change (an update whose operation fixes a column's value) on a row
    read first; the gold calls follow the branch the row's state takes: the read and the write when the
    row is not yet in that state (scored on the final state), the read alone otherwise (scored on the
    unchanged state and the fact told)."""
    fixed = [
        t
        for t in e.writes
        if e.key_arg(t)
        and t["operation"]["table"] in e.gets
        and (len(t["operation"].get("fixed") or {}) == 1 or _status_set(e, t))
    ]
    if not fixed:
        return None
    tool = rng.choice(fixed)
    op = tool["operation"]
    table = op["table"]
    built = e.call(tool, rng)  # a row the write accepts (its preconditions hold)
    if op.get("fixed"):
        column, value = next(iter(op["fixed"].items()))
    else:  # the status the update sets, as this call sets it
        column, arg = _status_set(e, tool)
        if built is None or arg not in built[0]:
            return None
        value = built[0][arg]
    if isinstance(value, dict | list | bool) or value is None:
        return None
    get = e.gets[table]
    garg = e.key_arg(get)
    e.env.restore(e.initial)
    pk = e.pk(table)
    done = [  # rows already in that state, that the user may read (their own, where the get checks it)
        r
        for r in e.rows[table]
        if r.get(column) == value and e.env.step(get["name"], {garg: r[pk]}).get("ok")
    ]
    take = "tell" if done and (built is None or rng.random() < 0.5) else "act"
    if take == "act" and (built is None or built[1] is None or built[1].get(column) == value):
        return None
    row = rng.choice(done) if take == "tell" else built[1]
    asks = [
        c
        for c, v in row.items()
        if c not in (pk, column)
        and isinstance(v, str | int | float)
        and not isinstance(v, bool)
        and v != ""
        and not c.endswith("_id")
        and askable(table, c, v)
    ]
    if not asks:
        return None
    ask = min(asks, key=lambda c: (not re.search(r"date|_at$|time", c), c))
    karg = e.key_arg(tool)
    if set((get.get("parameters") or {}).get("required") or []) - {garg}:
        return None
    args = dict(built[0]) if built else {karg: row[pk]}
    rest = {a: v for a, v in args.items() if a != karg}
    facts: dict[str, Any] = {}
    prov = e.provenance_user(tool, rest, facts)
    facts[fact_name(garg, get, e.spec)] = row[pk]
    write = GoldCall(tool["name"], {karg: row[pk], **rest}, {karg: f"call[0].{pk}", **prov}, write=True)
    calls = [GoldCall(get["name"], {garg: row[pk]}, {garg: "user"})]
    if take == "act":
        calls.append(write)
    draft = TaskDraft(
        e.spec["name"], "write" if take == "act" else "mixed", calls, shape="branch", user_facts=facts
    )
    draft.branch = {"write": write, "column": column, "value": value, "ask": ask, "taken": take}
    if take == "tell":
        draft.answer_facts = [str(row[ask])]
        draft.notes.append(f"branch: the {table} row is already {value}; the answer is its {ask}")
    else:
        draft.notes.append(f"branch: the {table} row is not {value} yet; the write is done")
    return draft


# -------------------------------------------------------------------------------------- mixed, policy, missing


def _mixed(e: Env, rng: random.Random) -> TaskDraft | str:
    """Read a row and report a fact of it, then write the same row (and, sometimes, a row related to it);
    or a decision on what the read returns (`_branch`)."""
    if e.config.max_chain_length >= 2 and rng.random() < BRANCH_SHARE:
        draft = _branch(e, rng)
        if draft is not None:
            return draft
    if e.config.max_chain_length >= 3 and rng.random() < RELATED_SHARE:
        draft = _related_writes(e, rng, kind="mixed")
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
    extra = e.call(get, rng)
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
    extra = e.call(get, rng)
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
