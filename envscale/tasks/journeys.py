"""Journeys: the user names rows as a person does, and the agent looks them up.

`humanize(e, draft, rng)` rewrites a built chain so: every key the user would have stated (provenance `user`)
that is an internal id (`rec_0015`, `boo_0018`, the integer id of a contact) becomes the result of a lookup
prepended to the chain, found with `envscale.tasks.finding.find_row` by what a person knows of the row (a
name, an email, a title, a date, the number a real service prints), so a chain reads "budget by name -> its
transactions -> the one of 2024-03-02 -> delete it". Where no human attribute finds the row uniquely the task
is not posed that way (`internal_id`).

The journeys beyond one row, built here and drawn by `envscale.tasks.chains`: `related_writes` (two writes on
rows related by a foreign key: "cancel the order and refund its payment", "update the ticket and add a
comment to it") and `create_then_add` (a new row, then a row added to it); a decision on what a read returns is
`envscale.tasks.branches.branch`. `read_first` reads the row before the first write changes it, and `joins` tells
a chain where two independent lookups feed one call (a `dag`).

Example:

```python
>>> import random
>>> from envscale.env import load_spec
>>> from envscale.tasks.build import TasksConfig
>>> from envscale.tasks.journeys import humanize
>>> from envscale.tasks.model import GoldCall, TaskDraft
>>> from envscale.tasks.prepared import Env
>>> e = Env({"spec": load_spec("tests/fixtures/envs/shop.yaml")}, TasksConfig())
>>> product = e.rows["products"][3]["product_id"]
>>> draft = TaskDraft("shop", "read", [GoldCall("get_product", {"product_id": product}, {"product_id": "user"})])
>>> humanize(e, draft, random.Random(0)), [c.tool for c in draft.calls]
(None, ['list_products', 'get_product'])
>>> e.env.close()
```
"""

from __future__ import annotations

import random
from typing import Any

from ..env.data import email_for
from ..judge.provenance import provenance_call, shift_provenance
from ..words.inflect import singular
from ..words.names import tokens
from ..words.semantics import DELETE_VERBS, PERSON_ENTITIES
from ..words.verbs import RETIRED_STATUSES, SETTLED_STATUSES
from .asks import BRING_BACK, in_path
from .finding import (
    ID_WORDS,
    Found,
    addressed_table,
    find_row,
    internal_key,
    same_key,
    shifted,
)
from .model import Drop, GoldCall, TaskDraft
from .naming import bare_person_link, fact_name, tool_bindings
from .prepared import Env
from .rereads import joins, merge_repeated_lookups


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
            table = addressed_table(e, tool, arg, value)
            if table is None or not internal_key(e, table, value):
                continue
            if isinstance(value, int) and not (set(tokens(arg)) & ID_WORDS or e.key_arg(tool) == arg):
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
        row = next((r for r in e.rows[table] if same_key(r.get(e.pk(table)), value)), None)
        found = find_row(e, table, row, rng)
        if found is None:
            return "internal_id", f"{arg} = {value!r}: no lookup finds the {table} row by what a person knows"
        base = len(prepended)
        finders[(table, value)] = (found, base)
        prepended.extend([shifted(c, base) for c in found.calls])
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
        source = found.source(offset, e.pk(table))
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
        if (
            not facts
        ):  # the withheld key was the caller's own row, which `get_me` reads: nothing left to ask for
            return "nothing_to_ask", "the value the user held back is their own row, which a tool reads"
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
        if key and not (acts or (op["type"] == "delete" and not removes(first))):
            continue  # "delete the request and set its employee's middle name": two asks, not one errand
        if key and _retires(tool) and not _retires(first):
            # a related row is called off along with one the first write ends ("cancel the order and refund its
            # payment"), never after a change that moves the first on ("mark my shipment in transit, then cancel
            # its order": seed 87's readers)
            continue
        if key:
            for column, cspec in columns.items():
                if (
                    cspec.get("references") == other
                    and column != e.pk(table)
                    and not removes(tool)
                    and not bare_person_link(e.spec, table, column)  # "then suspend its user" (seed 93)
                ):
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
        elif (
            op["type"] == "insert"
            and not _retires(first)
            and not _settles(first)
            and not (
                first["operation"]["type"] == "insert" and _FEEDBACK & {singular(w) for w in tokens(other)}
            )
        ):
            # nobody adds a payment to a batch just cancelled, or just submitted, nor comments on, reviews or likes
            # what they just made ("Looks good to me, thanks!" on a spot the user had just added: seed 91's readers)
            for column, binding in (op.get("values") or {}).items():
                cspec = e.spec["tables"][other]["columns"].get(column) or {}
                if isinstance(binding, str) and cspec.get("references") == table:
                    out.append((tool, f"adds:{binding}", column))
    return out


_FEEDBACK = frozenset("comment review rating vote like reaction feedback favorite favourite star".split())


def removes(tool: dict) -> bool:
    """Whether a write removes its row: a delete, or a tool named for deleting that retires it instead."""
    name = (tool.get("metadata") or {}).get("original_name") or tool["name"]
    return tool["operation"]["type"] == "delete" or bool(set(tokens(name)) & DELETE_VERBS)


def _retires(tool: dict) -> bool:
    """Whether a write ends its row's life: it removes it, or sets a status that means gone (cancelled,
    closed, archived ...)."""
    fixed = (tool["operation"].get("fixed") or {}).values()
    return removes(tool) or any(str(v).lower() in RETIRED_STATUSES for v in fixed)


def _settles(tool: dict) -> bool:
    """Whether a write sets a status after which its row takes no new parts (`SETTLED_STATUSES`: submitted,
    sent, shipped ...)."""
    return any(str(v).lower() in SETTLED_STATUSES for v in (tool["operation"].get("fixed") or {}).values())


def ends_then_acts(e: Env, calls: list) -> Drop | None:
    """A call on a row an earlier call of the task cancelled, ended, submitted or removed, or `None`: seed 90's readers
    found "cancel the booking ... Then: change the payment type of the booking" and "end the campaign ... Then:
    rename it and add an ad group to it". Deleting such a row is cleaning up, and bringing it back acts on it by
    nature. `calls` are gold calls or their dicts (a conversation's, across its requests)."""
    ended: dict[
        tuple[str, str], str
    ] = {}  # (table, key as text: a key kept as digits is the number a tool takes)
    for call in calls:
        name, args = (
            (call.tool, call.arguments) if isinstance(call, GoldCall) else (call["tool"], call["arguments"])
        )
        tool = e.tools.get(name)
        op = (tool or {}).get("operation") or {}
        if tool is None or op.get("type") not in ("insert", "update", "delete"):
            continue
        if set(tokens((tool.get("metadata") or {}).get("original_name") or name)) & BRING_BACK:
            continue
        karg, table = e.key_arg(tool), op["table"]
        if op["type"] == "insert":
            targets = [(ref, str(args.get(arg))) for arg, ref in references(e, tool)]
        else:
            targets = [(table, str(args[karg]))] if karg in args else []
        hit = next((t for t in targets if t in ended), None)
        if hit is not None and not removes(tool):
            return (
                "acts_after_ending",
                f"{name} acts on the {singular(hit[0])} {hit[1]!r}, which {ended[hit]} ended",
            )
        if op["type"] != "insert" and karg in args and (_retires(tool) or _settles(tool)):
            ended[(table, str(args[karg]))] = name
    return None


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
        _same_person(first, built[0], second, rest2)
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


def _same_person(first: dict, args: dict, second: dict, rest2: dict) -> None:
    """A row added to a new person is about that person: its email is theirs (seed 93's readers: a new user Dustin
    Henderson enrolled as a participant with hana.parker@example.com), the one the first call gives or one of their
    name (`envscale.env.data.email_for`)."""
    if singular(first["operation"]["table"]).split("_")[-1] not in PERSON_ENTITIES:
        return
    columns = {b.column: a for a, b in tool_bindings(first).items() if b.column and a in args}
    email = next((args[a] for c, a in columns.items() if "email" in c and isinstance(args[a], str)), None)
    first_name = next(
        (args[a] for c, a in columns.items() if c in ("first_name", "firstname", "given_name")), None
    )
    last_name = next(
        (args[a] for c, a in columns.items() if c in ("last_name", "lastname", "family_name")), None
    )
    if email is None and isinstance(first_name, str) and isinstance(last_name, str):
        # one address a person (drawn from their name, so the journey's own draws stay as they were)
        email = email_for(first_name, last_name, random.Random(f"email:{first_name} {last_name}"))
    if email is None:
        return
    for arg, binding in tool_bindings(second).items():
        if arg in rest2 and binding.column and "email" in binding.column and isinstance(rest2[arg], str):
            rest2[arg] = email


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
        # a new row that references the first is drawn for it (Laura's new contact email is Laura's, never
        # wen.lloyd@, drawn for another user; seed 93's readers)
        built2 = e.call(
            second, rng, among={table: [a]} if how.startswith("adds:") and other != table else None
        )
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
