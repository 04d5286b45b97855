"""Verifiable tasks of one environment: chains along real data flow, executed for their gold outcome.

`env_tasks(row, config, edges, rng)` builds up to `config.tasks_per_env` tasks in the environment
of one `environments` row, by kind (`envscale.tasks.model.KINDS`):

- **read**: a lookup the user asks about, answered from the state: one read, or two along a
  foreign key (`get_order(order number)` -> `get_customer(call[0].customer_id)`: "what is the email
  of the customer who placed order ord_0003?"); scored on answer facts.
- **write**: one write addressed by a fact the user knows; or a lookup then the write, the key
  flowing from the lookup's result (`list_customers(email=...)` -> `update_customer(customer_id=
  call[0][0].customer_id)`); or a small DAG, two independent lookups feeding one write
  (`create_order(customer from an email, product from a name)`); scored on the final state.
- **mixed**: read a row, tell the user a fact of it, then write it; scored on both.
- **policy**: the environment's rules (preconditions) forbid the write on a row the task picks;
  the right outcome is to look the row up, refuse, and leave the state unchanged.
- **missing_info**: a write whose key fact is withheld from the first message; the agent must ask.

Every argument records its provenance (`user`, `constant`, `call[i].FIELD`), and a link is used
only when the value really flows when the chain runs. Each task is executed on the environment's
own initial state (`Environment` is the only execution path): its gold results, state hash and
diff are recorded; a chain whose gold run fails or whose writes change nothing is dropped with the
reason, and so is a task that fails a quality gate (`envscale.tasks.gates`).
"""

from __future__ import annotations

import json
import logging
import random
import re
from collections import Counter
from typing import Any

from ..env import Environment
from ..materialize.verify import valid_call
from ..semantics import argument_role, key_entity, singular, verb_named
from ..sources.normalize import tokens
from .model import KINDS, GoldCall, TaskDraft, to_json

logger = logging.getLogger(__name__)

_ANSWER_COLUMNS = (
    "status",
    "email",
    "full_name",
    "name",
    "title",
    "subject",
    "total",
    "price",
    "unit_price",
    "amount",
    "balance",
    "quantity",
    "on_hand",
    "phone",
    "city",
    "due",
    "due_date",
    "priority",
    "category",
)
_ATTEMPTS_PER_TASK = 12
"""Candidates tried per task wanted (most are dropped by a gate, each with its reason)."""
_GIVE_UP = 4
"""Builds of a kind that fail, with none succeeding, before an environment stops trying that kind."""


def _fact_name(arg: str, tool: dict, spec: dict) -> str:
    """A readable name for a fact (`order_id` -> `order number`): `envscale.tasks.naming.fact_name`."""
    from .naming import fact_name

    return fact_name(arg, tool, spec)


class Env:
    """One environment prepared for task building: state, tools by meaning, lookups."""

    def __init__(self, row: dict, config: Any):
        self.row = row
        self.spec = row["spec"]
        self.env = Environment.from_row(row)
        self.seed = None if "initial_state" in self.spec else (self.spec.get("data") or {}).get("seed", 0)
        self.env.reset(seed=self.seed)
        self.initial = self.env.snapshot()
        self.initial_hash = self.env.state_hash()
        self.session_row = self.env.session()
        self.rows = self.env.dump()
        self.config = config
        self.tools = {t["name"]: t for t in self.spec["tools"]}
        self.reads = [t for t in self.spec["tools"] if t["kind"] == "read"]
        self.grouped = any((t.get("metadata") or {}).get("group") for t in self.spec["tools"])
        self.writes = [t for t in self.spec["tools"] if t["kind"] == "write"]
        self.gets = {}  # table -> get tool keyed by the primary key (an argument)
        for t in self.reads:
            op = t["operation"]
            pk = self.spec["tables"][op["table"]]["primary_key"]
            if op["type"] == "get" and isinstance(op["key"].get(pk), str) and len(op["key"]) == 1:
                self.gets.setdefault(op["table"], t)

    # ---------------------------------------------------------------------------------- helpers

    def pk(self, table: str) -> str:
        return self.spec["tables"][table]["primary_key"]

    def key_arg(self, tool: dict) -> str | None:
        """The argument that addresses the tool's row by primary key, if any."""
        op = tool["operation"]
        binding = (op.get("key") or {}).get(self.pk(op["table"]))
        return binding if isinstance(binding, str) and len(op.get("key") or {}) == 1 else None

    def lookup(self, table: str, row: dict, rng: random.Random) -> tuple[dict, str, Any] | None:
        """A list tool on `table` and one of its eq-filter arguments whose value (from `row`) finds
        exactly that row: `(tool, argument, value)`."""
        pk = self.pk(table)
        options = []
        for tool in self.reads:
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
                if sum(r.get(column) == row[column] for r in self.rows[table]) == 1:
                    options.append((tool, arg, row[column]))
        return rng.choice(options) if options else None

    def call(self, tool: dict, rng: random.Random) -> tuple[dict, dict | None] | None:
        return valid_call(self.env, tool, self.rows, rng)

    def provenance_user(
        self, tool: dict, args: dict, draft_facts: dict, *, keys_from_user: bool = True
    ) -> dict:
        """Provenance of a standalone call: keys and filters are user facts; new values constants."""
        op = tool["operation"]
        addressing = {b for b in (op.get("key") or {}).values() if isinstance(b, str)}
        addressing |= {f.get("arg") for f in op.get("filters", []) if f.get("arg")}
        out = {}
        for arg, value in args.items():
            source = "user" if arg in addressing and keys_from_user else "constant"
            out[arg] = source
            draft_facts[_fact_name(arg, tool, self.spec)] = value
        return out


# -------------------------------------------------------------------------------------- builders


_ASKED_MEANINGS = (
    "status",
    "email",
    "person",
    "named",
    "title",
    "filename",
    "date",
    "datetime",
    "time",
    "money",
    "city",
    "country",
    "phone",
    "address",
    "company",
    "url",
    "lex",
    "language",
    "currency",
    "quantity",
    "count",
    "rating",
    "percent",
    "year",
)


_NOT_ASKED_BY = frozenset(
    "lat latitude lng lon long longitude coordinate coordinates coord coords geo geohash geocode location_lat "
    "bbox x y z".split()
)
"""Words of a filter no person describes a row by: "the hotel with latitude 41.866395"."""
_BARE_WORDS = frozenset("from to in at by on of for with q s is as since until after before".split())


def asked_by(arg: str, column: str, value: Any) -> bool:
    """Whether a person would describe a row by this filter value: never by coordinates, by a bare
    preposition (`from: "Denver, CO"` reads "the invoice with from Denver"), by a column that is not said as
    a noun (`wanted_by`, `start: 42.63`; `envscale.tasks.wording.said_as_noun`), by a key where a name goes
    (`name: "pro_0008"`), or by a fraction with many decimals."""
    from .wording import said_as_noun

    words = set(tokens(arg)) | set(tokens(column))
    if words & _NOT_ASKED_BY or set(tokens(arg)) <= _BARE_WORDS:
        return False
    if not said_as_noun(column, arg, value):  # "the feature with wanted by 78", "with start 42.63"
        return False
    if isinstance(value, float) and len(repr(value).split(".")[-1]) > 3:
        return False
    return not (isinstance(value, str) and KEY_SHAPE.match(value) and not column.endswith("_id"))


def read_aloud(column: str) -> bool:
    """Whether a column's name reads as one thing: not run together from two (`status_new_status`)."""
    words = tokens(column)
    return len(words) == len(set(words))


_ENVELOPE = frozenset("operation resource service links meta status_code object request_id".split())
"""Fields of an API's response envelope (apideck's `{status_code, service, resource, operation, data}`) that
the environment keeps as columns: "the operation of my account" is not something a person asks about."""


def askable(table: str | None, column: str, value: Any) -> bool:
    """Whether a person would ask for this column's value: its meaning is one people talk about
    (a status, a name, an email, a date, an amount ...), read from the column like `data` does,
    and the value fits that meaning (an address in an `email` column is not asked about)."""
    from ..env.data import column_meaning, is_filler
    from .wording import said_as_noun

    if not read_aloud(column) or column.lower() in _ENVELOPE:
        return False
    if not said_as_noun(column, None, value):  # "the created of status sta_0004", "the city 1 of ..."
        return False
    kind = "number" if isinstance(value, int | float) and not isinstance(value, bool) else "string"
    if kind == "string" and is_filler(table or "", column, {"type": "string"}, value):
        return False
    meaning = column_meaning(table or "", column, {"type": kind}).split(":")[0]
    if meaning in _ASKED_MEANINGS:
        return True
    words = set(column.lower().split("_"))
    return bool(words & {"total", "price", "amount", "balance", "quantity", "stock", "name", "status", "due"})


def _answer_facts(
    result: Any, rng: random.Random, n: int = 1, given: set[str] = frozenset(), table: str | None = None
) -> list[str]:
    """Up to `n` scalar values of a result row a person would ask about (never one the user gave)."""
    row = result[0] if isinstance(result, list) and result else result
    if not isinstance(row, dict):
        return [str(result)] if isinstance(result, int | float) and not isinstance(result, bool) else []
    row = {
        c: v
        for c, v in row.items()
        if str(v) not in given and not isinstance(v, bool) and askable(table, c, v)
    }
    preferred = [c for c in _ANSWER_COLUMNS if isinstance(row.get(c), str | int | float) and row.get(c) != ""]
    others = [
        c
        for c, v in row.items()
        if c not in preferred
        and isinstance(v, str | int | float)
        and not isinstance(v, bool)
        and not c.endswith("_id")
        and v != ""
        and len(str(v)) <= 60
    ]
    chosen = preferred[:n] or rng.sample(others, min(n, len(others)))
    return [str(row[c]) for c in chosen]


def _read(e: Env, rng: random.Random) -> TaskDraft | str:
    """One read, or a get along a foreign key into another get."""
    gets = list(e.gets.values())
    roll = rng.random()
    if gets and roll < 0.4 and e.config.max_chain_length >= 2:
        # the user describes a row by something unique about it; a lookup finds it, a get reads it
        get = rng.choice(gets)
        table = get["operation"]["table"]
        row = rng.choice(e.rows[table]) if e.rows.get(table) else None
        found = e.lookup(table, row, rng) if row else None
        extra = e.call(get, rng) if found else None
        if found and extra is not None:
            ltool, larg, lvalue = found
            garg, pk = e.key_arg(get), e.pk(table)
            rest = {a: v for a, v in extra[0].items() if a != garg}
            facts = {_fact_name(larg, ltool, e.spec): lvalue}
            calls = [
                GoldCall(ltool["name"], {larg: lvalue}, {larg: "user"}),
                GoldCall(
                    get["name"],
                    {garg: row[pk], **rest},
                    {garg: f"call[0][0].{pk}", **dict.fromkeys(rest, "constant")},
                ),
            ]
            return TaskDraft(e.spec["name"], "read", calls, shape="linear", user_facts=facts)
    if gets and roll < 0.8:
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
                    GoldCall(
                        second["name"], {karg: target[column], **rest}, {karg: f"call[0].{column}", **prov2}
                    )
                )
                shape = "linear"
        return TaskDraft(e.spec["name"], "read", calls, shape=shape, user_facts=facts)
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


def _write(e: Env, rng: random.Random, *, kind: str = "write") -> TaskDraft | str:
    """One write, a lookup feeding its key, or two lookups feeding its references (a DAG)."""
    if not e.writes:
        return "no write tool"
    tool = rng.choice(e.writes)
    built = e.call(tool, rng)
    if built is None:
        return f"{tool['name']}: no valid call"
    args, target = built
    facts: dict[str, Any] = {}
    op = tool["operation"]
    table = op["table"]
    karg = e.key_arg(tool)
    roll = rng.random()
    # the user names a related row; its reference flows into the write ("change the email of the
    # customer who placed order ord_0003": get_order -> update_customer(customer_id=call[0].customer_id))
    if karg and target is not None and roll < 0.5 and e.config.max_chain_length >= 2:
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
            prov = e.provenance_user(tool, rest, facts)
            facts[_fact_name(garg, get, e.spec)] = via[spk]
            calls = [
                GoldCall(
                    get["name"], {garg: via[spk], **grest}, {garg: "user", **dict.fromkeys(grest, "constant")}
                ),
                GoldCall(
                    tool["name"], {karg: target[pk], **rest}, {karg: f"call[0].{column}", **prov}, write=True
                ),
            ]
            return TaskDraft(e.spec["name"], kind, calls, shape="linear", user_facts=facts)
    # a lookup finds the row the user describes, and its key flows into the write
    if karg and target is not None and roll < 0.7 and e.config.max_chain_length >= 2:
        found = e.lookup(table, target, rng)
        if found:
            ltool, larg, lvalue = found
            rest = {a: v for a, v in args.items() if a != karg}
            prov = e.provenance_user(tool, rest, facts)
            facts[_fact_name(larg, ltool, e.spec)] = lvalue
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
    # references of an insert resolved by lookups on their own tables (two feeding one write)
    if op["type"] == "insert" and e.config.max_chain_length >= 3:
        refs = []
        for column, binding in (op.get("values") or {}).items():
            spec_col = e.spec["tables"][table]["columns"].get(column, {})
            ref = spec_col.get("references")
            if isinstance(binding, str) and ref and binding in args and ref in e.rows:
                row = next((r for r in e.rows[ref] if r[e.pk(ref)] == args[binding]), None)
                found = e.lookup(ref, row, rng) if row else None
                if found:
                    refs.append((binding, ref, found))
        if len(refs) >= 2:
            refs = refs[:2]
            calls, facts = [], {}
            flowing: dict[str, str] = {}
            for i, (binding, ref, (ltool, larg, lvalue)) in enumerate(refs):
                calls.append(GoldCall(ltool["name"], {larg: lvalue}, {larg: "user"}))
                facts[_fact_name(larg, ltool, e.spec)] = lvalue
                flowing[binding] = f"call[{i}][0].{e.pk(ref)}"
            rest = {a: v for a, v in args.items() if a not in flowing}
            prov = e.provenance_user(tool, rest, facts)
            calls.append(GoldCall(tool["name"], args, {**prov, **flowing}, write=True))
            return TaskDraft(e.spec["name"], kind, calls, shape="dag", user_facts=facts)
    prov = e.provenance_user(tool, args, facts)
    return TaskDraft(e.spec["name"], kind, [GoldCall(tool["name"], args, prov, write=True)], user_facts=facts)


def _mixed(e: Env, rng: random.Random) -> TaskDraft | str:
    """Read a row and report a fact of it, then write the same row."""
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
    facts[_fact_name(garg, get, e.spec)] = target[e.pk(table)]
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
    return TaskDraft(
        e.spec["name"],
        "policy",
        [
            GoldCall(
                get["name"],
                {garg: row[e.pk(table)], **grest},
                {garg: "user", **dict.fromkeys(grest, "constant")},
            )
        ],
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
    draft.withheld = [_fact_name(user[0], tool, e.spec)]
    return draft


_BUILDERS = {
    "read": _read,
    "write": _write,
    "mixed": _mixed,
    "policy": _policy,
    "missing_info": _missing_info,
}


# -------------------------------------------------------------------------------------- arguments

_MAX_STATED = 2
"""Most optional values one write states (the columns an update sets, the fields an insert fills beyond
the required ones): a person asks for one or two changes at a time, not six."""
_MAX_REQUIRED_STATED = 4
"""Most values one write may need stated at all: a request that must dictate more is dropped."""
KEY_SHAPE = re.compile(
    r"^[A-Za-z]{2,6}(?:_[a-z]+)?_\d{3,}$|^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
)
"""A generated key (`pro_0008`) or a UUID: what a key column holds, never what a name does."""
_NAME_WORDS = frozenset(("name", "title", "label", "displayname", "username"))
_DEPRECATED = re.compile(r"\b(deprecated|obsolete|ignored|no longer (used|supported))\b", re.IGNORECASE)


def _squash(name: str) -> str:
    """A name with case and separators dropped: `organizerKey` and `organizer_key` are `organizerkey`."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _deprecated(arg: str, schema: Any) -> bool:
    """An argument the API itself says not to use (`timeToRefill (deprecated)`, "Deprecated and ignored")."""
    schema = schema if isinstance(schema, dict) else {}
    text = f"{arg} {schema.get('description') or ''}"
    return schema.get("deprecated") is True or _DEPRECATED.search(text) is not None


def _names_a_key(arg: str, value: Any) -> bool:
    """A name argument holding a key (`project_name: "pro_0008"`): a person says a name, not a key."""
    words = tokens(arg)
    return (
        bool(words)
        and (words[-1] in _NAME_WORDS or "".join(words[-2:]) in _NAME_WORDS)
        and isinstance(value, str)
        and KEY_SHAPE.match(value) is not None
    )


def _names_a_row(e: Env, bind: Any, arg: str, schema: Any) -> bool:
    """An argument that says which row a write is about (`customer_id` of a new order): never one of the
    values `_MAX_STATED` counts."""
    column = (e.spec["tables"].get(bind.table) or {}).get("columns", {}).get(bind.column) or {}
    return bool(column.get("references")) or argument_role(arg, schema) in ("key", "reference")


_VERB_TABLES = frozenset("create delete update get list remove patch put post batch add set".split())
"""Tables named after a verb (`creates`, `deletes`): the environment stored a call as a row, and no request
a person makes reads as "create a new delete"."""


def _misnamed(arg: str, bind: Any) -> bool:
    """A key or filter argument whose name names another thing than the column it addresses
    (`user_id` bound to `alarm_time`): the request could only say one of the two."""
    if bind is None or bind.place not in ("key", "filter") or not bind.column:
        return False
    entity = key_entity(arg)
    return bool(entity) and not {singular(w) for w in entity.split("_")} & {
        singular(w) for w in tokens(bind.column)
    }


def _in_path(schema: Any) -> bool:
    """An argument of the request's path (`/budgets/{budget_id}/...`): it names a row, never sets a value."""
    return isinstance(schema, dict) and schema.get("x-in") == "path"


def _drop_argument(e: Env, draft: TaskDraft, call: GoldCall, arg: str) -> None:
    """Leave `arg` out of `call`, and its fact out of what the user knows unless another call states it."""
    value = call.arguments.pop(arg)
    call.provenance.pop(arg, None)
    name = _fact_name(arg, e.tools[call.tool], e.spec)
    still = any(
        _fact_name(a, e.tools[c.tool], e.spec) == name and v == value
        for c in draft.calls
        for a, v in c.arguments.items()
        if not c.provenance.get(a, "user").startswith("call[")
    )
    if not still and name in draft.user_facts and draft.user_facts[name] == value:
        del draft.user_facts[name]


def _picks_new_key(e: Env, tool: dict, call: GoldCall) -> str | None:
    """Why a create has the user pick the new row's own id ("create a new institution with institution id
    203"), or `None`: a person names what they create and the system numbers it. A relation row keyed by
    the thing it links ("follow show 12") names that thing, and is fine."""
    op = tool["operation"]
    if op.get("type") != "insert" or not call.write:
        return None
    table = op["table"]
    pk = e.pk(table)
    arg = (op.get("values") or {}).get(pk)
    arg = arg.get("arg") if isinstance(arg, dict) else arg
    if not isinstance(arg, str) or arg not in call.arguments:
        return None
    if call.provenance.get(arg, "user").startswith("call["):
        return None
    entity = key_entity(pk)
    if pk not in ("id", "uuid") and (entity is None or singular(entity) != singular(table)):
        return None
    return f"user picks the id: {call.tool}.{arg} = {call.arguments[arg]!r} numbers the new {singular(table)}"


_FUNCTION_NOUNS = frozenset(
    "tool function method request call http https webapi api endpoint operation action command query "
    "invocation execution".split()
)
"""Words of a table that stores a loose function's calls rather than things (`tools` of `write_markdown_tool`,
`requests` of `requests_get`, `operations` of `masterOperation`): "the URL of the get request named ..." is
about the call itself, which no person asks after."""
_SESSION_OWN = frozenset({"account", "user", "profile", "me"})


def loose_function(e: Env, tool: dict) -> str | None:
    """Why a loose function (an environment of functions with no API behind them, `e.grouped` false) cannot
    be posed as a request about stored data, or `None`:

    - it acts on the environment's session row yet names another object (`setText(start, length)` sets
      `accounts.text_start`, `cmd_controller_execute(command)` sets `accounts.controller_command`,
      `user_authentication(username, password)` reads the account): the object is stored as columns of
      the user's account, and the request ("update the text start to 9.41") means nothing to a person;
    - its table is named after the function or the call (`tools`, `requests`, `operations`) or after a
      verb (`end_request` keeps `ends`).

    In an environment of a real API only the first holds, and only for reads: `get_comments(case_id)` or
    `check_tire_pressure()` answered from the account or vehicle row asks "the status of my account"; its
    writes on the session row (`setHeadlights`, `set_budget_limit`, `withdraw_funds`) are the API's own."""
    table = tool["operation"]["table"]
    own = singular(table)
    if e.grouped and not (table == (e.spec.get("session") or {}).get("table") and tool["kind"] == "read"):
        return None
    if table == (e.spec.get("session") or {}).get("table"):
        entity = (tool.get("metadata") or {}).get("entity")
        last = singular(str(entity).split("_")[-1]) if entity else None
        if last not in _SESSION_OWN | {own}:
            what = f"a {entity}" if entity and not entity.startswith("<") else "nothing it names"
            return f"loose function on the session row: {tool['name']} acts on {what}, stored as columns of the {own}"
        return None
    words = set(own.split("_"))
    if words & _FUNCTION_NOUNS or own in _VERB_ROWS:
        return f"function stored as a row: {tool['name']} keeps {table} rows (the call, not a thing)"
    return None


_CLOCK_TABLES = frozenset({"time", "clock", "datetime", "timestamp", "timezone", "now", "current_time"})


def clock_rows(tool: dict) -> str | None:
    """Why a tool reads or writes the clock kept as rows (`get_current_time(timezone)` keeps `times`), or
    `None`: "the date format of the time with location Madison, WI" asks about a stored reading of a clock,
    which is not a thing a person looks up."""
    table = tool["operation"]["table"]
    if singular(table) in _CLOCK_TABLES:
        return f"clock stored as rows: {tool['name']} keeps the time as {table} rows"
    return None


_VERB_ROWS = frozenset("end start stop begin finish pause resume play run open close".split())
"""Single-word tables that are verbs a loose function was named after (`end_request` keeps `ends`)."""
_CATEGORY_WORDS = frozenset("type kind mode format visibility category scope status variant".split())


def creates_from_nothing(e: Env, tool: dict, call: GoldCall, binds: dict) -> str | None:
    """Why a create states nothing that says what it creates, or `None`: no argument at all
    (`createMock({})` makes a row of nulls), or only a category or a flag (`importExternalApiSpecification(
    type="personal")`): "create a mock" asks for nothing a person could check. A thing that has a name (a
    `name` or `title` column) must be given more than the rows it belongs to ("create a new API version for
    API api_0008" leaves the version nameless); a link row (a follow, a vote) is its references."""
    op = tool["operation"]
    if op.get("type") != "insert" or not call.write:
        return None
    columns = e.spec["tables"][op["table"]]["columns"]
    named = any(set(tokens(c)) & {"name", "title"} for c in columns)

    def belongs(arg: str) -> bool:
        bind = binds.get(arg)
        column = columns.get(bind.column) if bind is not None and bind.column else None
        return bool(column and column.get("references")) or call.provenance.get(arg, "").startswith("call[")

    saying = [
        a
        for a, v in call.arguments.items()
        if not isinstance(v, bool)
        and not set(tokens(a)) <= _CATEGORY_WORDS
        and v not in (None, "", [], {})
        and not (named and belongs(a))
    ]
    if saying:
        return None
    given = ", ".join(f"{a}={v!r}" for a, v in call.arguments.items()) or "no argument"
    return f"nothing to create with: {call.tool} makes a {singular(tool['operation']['table'])} from {given}"


_REQUEST_WORDS = frozenset("fields patch payload changes params parameters request updates".split())
"""Words of a column that holds a request's own envelope (`update_fields`, `patch`, `changes`): "set the update
fields of repository rep_0020 to name Project Titan" is the call said aloud, not a change a person asks for."""
_KEPT_BY_SYSTEM = frozenset("created updated modified deleted createdat updatedat lastmodified".split())
"""Words of a column the system writes itself (`created`, `updated_at`, `last_modified`): "update the created of
my config to 2025-04-07T07:38" is not a request a person makes."""


def references_disagree(e: Env, tool: dict, call: GoldCall, binds: dict) -> str | None:
    """Why two rows a write names cannot go together, or `None`: one of them belongs to another row than the
    other names (`createRelations(apiId=api_0013, apiVersionId=ver_0018)` where version ver_0018 is a version
    of api_0010). A person names a version of the API they mean; the gold call must too."""
    table = tool["operation"]["table"]
    columns = e.spec["tables"][table]["columns"]
    named = []
    for arg, value in call.arguments.items():
        bind = binds.get(arg)
        column = columns.get(bind.column) if bind is not None and bind.column else None
        if column and column.get("references") in e.rows and value is not None:
            named.append((arg, column["references"], value))
    for arg_a, table_a, value_a in named:
        for arg_b, table_b, value_b in named:
            if table_a == table_b:
                continue
            row_b = next((r for r in e.rows[table_b] if r.get(e.pk(table_b)) == value_b), None)
            for column, cspec in e.spec["tables"][table_b]["columns"].items():
                if (
                    row_b is not None
                    and cspec.get("references") == table_a
                    and row_b.get(column) is not None
                    and row_b[column] != value_a
                ):
                    return (
                        f"references disagree: {call.tool}.{arg_b} = {value_b!r} belongs to "
                        f"{row_b[column]!r}, not to {arg_a} = {value_a!r}"
                    )
    return None


def bare_id_value(e: Env, tool: dict, call: GoldCall, binds: dict) -> str | None:
    """Why a create stores the bare `id` of its route as a plain value, or `None`: `post_users_by_id_tags(id=5361,
    body=...)` keeps the user's id in `tags.id` with no user behind it, and the request says "a tag with id
    5361"; a person names whose tag it is, which the environment cannot check."""
    op = tool["operation"]
    if op.get("type") != "insert" or not call.write:
        return None
    columns = e.spec["tables"][op["table"]]["columns"]
    for arg in call.arguments:
        bind = binds.get(arg)
        if tokens(arg) not in (["id"], ["uuid"]) or bind is None or not bind.column:
            continue
        column = columns.get(bind.column) or {}
        if (
            bind.column != e.pk(op["table"])
            and not column.get("references")
            and not call.provenance.get(arg, "user").startswith("call[")
        ):
            return (
                f"misbound argument: {call.tool}.{arg} names a row of no table but is stored in {bind.column}"
            )
    return None


def sets_what_no_one_asks(call: GoldCall, binds: dict, stated: list[str], props: dict) -> str | None:
    """Why a write sets a column no person sets, or `None`: one the system keeps (`created`, `updated_at`:
    `_KEPT_BY_SYSTEM`) or one holding the request's own envelope (`update_fields`: `_REQUEST_WORDS`)."""
    if not call.write:
        return None
    for arg in stated:
        words = set(tokens(binds[arg].column))
        if words & _KEPT_BY_SYSTEM and not _in_path(props.get(arg)):
            return f"system column set: {call.tool}.{arg} sets {binds[arg].column}, which the system keeps"
        if words & _REQUEST_WORDS and words <= _REQUEST_WORDS | {"update", "new"}:
            return f"request body stored as a column: {call.tool}.{arg} sets {binds[arg].column}"
    return None


def session_row_named(e: Env, tool: dict, call: GoldCall, binds: dict) -> str | None:
    """Why a call on the session row is said with the id of another row, or `None`:
    `Changetoleranceofanaccount(creditAccountId="206ff76d-...")` changes the logged-in account whatever the id
    says, so the request ("with credit account id 206ff76d-...") and the final state disagree. A bare `id`
    bound to no column names a row too, unless it is the session row's own key."""
    table = tool["operation"]["table"]
    if table != (e.spec.get("session") or {}).get("table"):
        return None
    own = (getattr(e, "session_row", None) or {}).get(e.pk(table))
    for arg in call.arguments:
        if binds.get(arg) is not None or call.provenance.get(arg, "").startswith("call["):
            continue
        if key_entity(arg):
            return f"misbound argument: {call.tool}.{arg} names a row, but the call acts on the session row"
        if tokens(arg) in (["id"], ["uuid"]) and str(call.arguments[arg]) != str(own):
            # `GET /users/{id}/transaction_accounts` read as the session's account: "my account. The id is 6."
            return (
                f"misbound argument: {call.tool}.{arg} = {call.arguments[arg]!r} names another row than the "
                f"session row ({own!r}) the call acts on"
            )
    return None


def verb_as_value(e: Env, tool: dict, call: GoldCall) -> str | None:
    """Why a write changes nothing but a word naming its own act, or `None`: an update the environment could
    only model by writing its verb into a column named after the tool (`TransferSupplyLot` sets
    `lots.supply_lot` to "transfer", `updateAnApiVersion` sets `an_api_version` to "update"). The final state
    is not what the request means (the SKU is not moved); a status column set to its new status is fine."""
    if not call.write:
        return None
    table = e.spec["tables"][tool["operation"]["table"]]["columns"]
    for column, value in (tool["operation"].get("fixed") or {}).items():
        words = set(tokens(column))
        if isinstance(value, str) and not words & {"status", "state", "logged"} and column in table:
            return (
                f"act stored as a word: {call.tool} writes {value!r} into {column}, and nothing else changes"
            )
    return None


def tidy(e: Env, draft: TaskDraft, rng: random.Random) -> str | None:
    """Leave out of the gold calls the arguments a person would never state, or say why the task cannot
    be posed: a placeholder (`optional_param`, `arg1`, see `envscale.tasks.wording.is_placeholder`), a
    deprecated argument, an optional argument bound to no column or an option (paging, formats), a name
    argument holding a key (`project_name: "pro_0008"`); and at most `_MAX_STATED` optional values per write.
    A required placeholder or a required name that holds a key drops the task (the reason is returned)."""
    from .naming import tool_bindings
    from .wording import is_placeholder

    calls = list(draft.calls)
    attempt = (draft.policy_rule or {}).get("attempt")
    if isinstance(attempt, dict) and attempt.get("tool") in e.tools:
        calls.append(GoldCall(attempt["tool"], attempt["arguments"], attempt.setdefault("provenance", {})))
    for call in calls:
        tool = e.tools[call.tool]
        params = tool.get("parameters") or {}
        props, required = params.get("properties") or {}, set(params.get("required") or [])
        binds = tool_bindings(tool)
        named = verb_named(singular(tool["operation"]["table"]))
        if named:
            return f"table named after an operation: {call.tool} uses {tool['operation']['table']} ({named})"
        picked = _picks_new_key(e, tool, call) or loose_function(e, tool) or clock_rows(tool)
        if picked:
            return picked
        for arg in list(call.arguments):
            value, bind = call.arguments[arg], binds.get(arg)
            if call.provenance.get(arg, "user").startswith("call["):
                if _names_a_key(arg, value):  # `rm(file_name=call[0][0].file_id)`: a key where a name goes
                    return f"name holds a key: {call.tool}.{arg} = {value!r} is a key, not a name"
                continue
            if call.write and singular(tool["operation"]["table"]) in _VERB_TABLES:
                return f"action stored as a row: {call.tool} writes a {tool['operation']['table']} row"
            if _misnamed(arg, bind):
                return f"misbound argument: {call.tool}.{arg} names a {key_entity(arg)} but addresses {bind.column}"
            if is_placeholder(arg):
                if arg in required:
                    return f"placeholder argument: {call.tool}.{arg} is required but says nothing a person states"
                _drop_argument(e, draft, call, arg)
            elif _names_a_key(arg, value):
                if arg in required or (bind is not None and bind.place in ("key", "filter")):
                    return f"name holds a key: {call.tool}.{arg} = {value!r} is a key, not a name"
                _drop_argument(e, draft, call, arg)
            elif arg in required:
                if bind is None and call.write and tool["operation"].get("type") == "insert":
                    return f"value not stored: {call.tool}.{arg} is stated but the new row never records it"
                continue
            elif (
                bind is not None
                and bind.place == "filter"
                and isinstance(value, bool)
                and any(
                    b.place in ("key", "filter") for a, b in binds.items() if a in call.arguments and a != arg
                )
            ):
                _drop_argument(
                    e, draft, call, arg
                )  # "with safe search no": a flag, not what the user asks by
            elif (
                bind is None
                or _deprecated(arg, props.get(arg))
                or argument_role(arg, props.get(arg)) in ("option", "pagination")
                and bind.place not in ("key", "set", "value", "adjust")
            ):
                _drop_argument(e, draft, call, arg)
        stated = [
            a
            for a in call.arguments
            if binds.get(a) is not None
            and binds[a].place in ("set", "value", "adjust")
            and not call.provenance.get(a, "user").startswith("call[")
            and not _in_path(props.get(a))
            and not _names_a_row(e, binds[a], a, props.get(a))
        ]
        for arg in stated:
            if not read_aloud(binds[arg].column):
                return f"column name run together: {call.tool}.{arg} sets {binds[arg].column}"
            if tokens(arg)[-1:] in (["id"], ["ids"]):
                return (
                    f"misbound argument: {call.tool}.{arg} names rows but sets {binds[arg].column} as a value"
                )
        # only a field the API requires is carried from the read; an optional one is simply not sent
        carried = _carry_over(e, draft, call, [a for a in stated if a in required], rng)
        stated = [a for a in stated if a not in carried]
        optional = [a for a in stated if a not in required]
        flags = [a for a in optional if isinstance(call.arguments[a], bool)]
        if flags and (tool["operation"].get("type") != "update" or len(flags) < len(stated)):
            for arg in flags:  # an optional flag ("request heartbeat", "hard lock") is the API's, not the ask
                _drop_argument(e, draft, call, arg)
            optional = [a for a in optional if a not in flags]
            stated = [a for a in stated if a not in flags]
        room = max(_MAX_STATED - (len(stated) - len(optional)), 0)
        if tool["operation"].get("fixed"):
            room = 0  # a status change ("stop the channel") states only what the API requires
        elif tool["operation"].get("type") == "update" and len(stated) == len(optional):
            room = max(room, 1)  # an update must still change something
        if len(optional) > room:
            for arg in sorted(rng.sample(optional, len(optional) - room)):
                _drop_argument(e, draft, call, arg)
            stated = [a for a in stated if a in call.arguments]
        if len(stated) > _MAX_REQUIRED_STATED:
            return f"too many values: {call.tool} needs {len(stated)} values stated ({', '.join(stated)})"
        empty = (
            creates_from_nothing(e, tool, call, binds)
            or verb_as_value(e, tool, call)
            or references_disagree(e, tool, call, binds)
            or bare_id_value(e, tool, call, binds)
            or sets_what_no_one_asks(call, binds, stated, props)
            or session_row_named(e, tool, call, binds)
        )
        if empty:
            return empty
        op = tool["operation"]
        sets = [a for a in call.arguments if binds.get(a) is not None and binds[a].place in ("set", "adjust")]
        if (
            op.get("type") == "update"
            and not op.get("fixed")
            and call.write
            and not [a for a in sets if not _in_path(props.get(a))]
        ):
            return f"nothing to change: {call.tool} is called without a value to set (only computed columns change)"
    return None


def _carry_over(e: Env, draft: TaskDraft, call: GoldCall, stated: list[str], rng: random.Random) -> list[str]:
    """For an update that must send many fields (a PUT of the whole row) after an earlier call read that
    row: all but `_MAX_STATED` of them keep the row's current values, flowing from that read
    (`call[j].COLUMN`), so that the request states only what it changes. Returns the carried arguments."""
    from .naming import tool_bindings

    tool = e.tools[call.tool]
    if tool["operation"].get("type") != "update" or len(stated) <= _MAX_STATED or call not in draft.calls:
        return []
    addressed = _addressed_row(e, call)
    index = draft.calls.index(call)
    karg = e.key_arg(tool)
    reader = next(
        (
            j
            for j, c in enumerate(draft.calls[:index])
            if e.tools[c.tool]["operation"].get("type") == "get"
            and e.tools[c.tool]["operation"]["table"] == tool["operation"]["table"]
            and c.arguments.get(e.key_arg(e.tools[c.tool])) == call.arguments.get(karg)
        ),
        None,
    )
    if addressed is None or reader is None:
        return []
    from ..env.data import schema_accepts

    binds = tool_bindings(tool)
    props = (tool.get("parameters") or {}).get("properties") or {}
    carried = []
    for arg in sorted(rng.sample(stated, len(stated) - _MAX_STATED)):
        column = binds[arg].column
        value = addressed.get(column)
        if value is None or not schema_accepts(props.get(arg, {}), value):
            continue
        old = call.arguments[arg]
        call.arguments[arg], call.provenance[arg] = value, f"call[{reader}].{column}"
        name = _fact_name(arg, tool, e.spec)
        if draft.user_facts.get(name) == old:
            del draft.user_facts[name]
        carried.append(arg)
    return carried


def matching_field(arg: str, row: dict, column: str | None = None) -> str | None:
    """The field of `row` that names what `arg` names (`organizerKey` -> `organizer_key`), if any; with
    `column`, that column when the row has it."""
    if column is not None:
        return column if column in row else None
    key = _squash(arg)
    for column in row:
        if _squash(column) == key:
            return column
    return None


def _flowing_rows(draft: TaskDraft, i: int, results: list[Any]) -> list[tuple[str, dict]]:
    """The earlier result rows call `i` reads from, as `(provenance prefix, row)`: the rows its own links
    point into first, then every other earlier row (a get's result, a one-row list), latest first."""
    out: list[tuple[str, dict]] = []
    for source in draft.calls[i].provenance.values():
        match = re.match(r"^call\[(\d+)\](?:\[(\d+)\])?", source)
        if not match or int(match.group(1)) >= len(results):
            continue
        result = results[int(match.group(1))]
        if match.group(2) is not None and isinstance(result, list) and int(match.group(2)) < len(result):
            result = result[int(match.group(2))]
        if isinstance(result, dict):
            out.append((match.group(0), result))
    for j in range(min(i, len(results)) - 1, -1, -1):
        result = results[j]
        if isinstance(result, list) and len(result) == 1:
            out.append((f"call[{j}][0]", result[0]))
        elif isinstance(result, dict):
            out.append((f"call[{j}]", result))
    return [(p, r) for p, r in out if isinstance(r, dict)]


def _addressed_row(e: Env, call: GoldCall) -> dict | None:
    """The row a call addresses by its key (in the initial state), if it has one."""
    tool = e.tools[call.tool]
    karg = e.key_arg(tool)
    if karg is None or karg not in call.arguments:
        return None
    table = tool["operation"]["table"]
    pk = e.pk(table)
    return next((r for r in e.rows.get(table, []) if r.get(pk) == call.arguments[karg]), None)


def align(e: Env, draft: TaskDraft, i: int, results: list[Any]) -> str | None:
    """Give every argument of call `i` that is bound to no column, yet names a field of a row the chain has
    read (an earlier result, the row the call addresses) or a fact another call states, that value, with
    its provenance (`call[j].FIELD` or `user`): `getWebinar(webinarKey=call[0][0].webinar_key,
    organizerKey=...)` takes the organizer of that webinar, never a random one. A value the argument's
    schema refuses drops the task (the reason is returned)."""
    from ..env.data import schema_accepts
    from .naming import tool_bindings

    call = draft.calls[i]
    tool = e.tools[call.tool]
    props = (tool.get("parameters") or {}).get("properties") or {}
    binds = tool_bindings(tool)
    rows = _flowing_rows(draft, i, results)
    addressed = _addressed_row(e, call)
    stated = {
        _squash(a): v
        for c in draft.calls[:i]
        for a, v in c.arguments.items()
        if not c.provenance.get(a, "user").startswith("call[")
    }
    for arg in list(call.arguments):
        if call.provenance.get(arg, "user").startswith("call["):
            continue
        # a path argument an update binds to a column names the row it is in (`/budgets/{budget_id}/...`)
        path_set = (
            addressed is not None and arg in binds and binds[arg].place == "set" and _in_path(props.get(arg))
        )
        if arg in binds and not path_set:
            continue
        column_of = binds[arg].column if path_set else None
        found = None
        for prefix, row in rows:
            column = matching_field(arg, row, column_of)
            if column is not None and row[column] is not None:
                found = (f"{prefix}.{column}", row[column])
                break
        if found is None and addressed is not None:
            column = matching_field(arg, addressed, column_of)
            if column is not None and addressed[column] is not None:
                found = ("user", addressed[column])
        if found is None and _squash(arg) in stated:
            found = ("user", stated[_squash(arg)])
        if found is None:
            continue
        source, value = found
        if not schema_accepts(props.get(arg, {}), value):
            return f"call {i}: {call.tool}.{arg} cannot take {value!r}, the value it names ({source})"
        old = call.arguments[arg]
        call.arguments[arg], call.provenance[arg] = value, source
        name = _fact_name(arg, tool, e.spec)
        if source == "user":
            draft.user_facts[name] = value
        elif name in draft.user_facts and draft.user_facts[name] == old:
            del draft.user_facts[name]
    return None


def flow_disagrees(e: Env, draft: TaskDraft, i: int, results: list[Any]) -> str | None:
    """Whether an argument of call `i` bound to no column disagrees with the same field of a row the chain
    read: `getWebinar(organizerKey=1)` after the webinar's `organizer_key` was 12. Arguments bound to a
    column are checked by their provenance (`execute`) or are values the request sets or names on purpose."""
    from .naming import tool_bindings

    call = draft.calls[i]
    binds = tool_bindings(e.tools[call.tool])
    for arg, value in call.arguments.items():
        if arg in binds:
            continue
        for prefix, row in _flowing_rows(draft, i, results):
            column = matching_field(arg, row)
            if column is None or row[column] is None:
                continue
            if row[column] != value:
                return f"call {i}: {call.tool}.{arg} = {value!r} disagrees with {prefix}.{column} = {row[column]!r}"
            break
    return None


_SHARED_HEADS = frozenset(
    "location city country address region place timezone zone currency language locale venue".split()
)
"""What a row shares with the thing that holds it: a sculpture's `location` is its museum's location, so
"the museum location is Pittsburgh, PA" about a sculpture in Kansas City contradicts the row. (A `name`
is the row's own: an `organization_name` is never the row's `name`.)"""


def contradicts_row(e: Env, draft: TaskDraft, i: int, results: list[Any]) -> str | None:
    """Why a fact the user states contradicts the row the call reads, or `None`. An argument bound to no
    column whose name ends with a column of that row (the row the call addresses, or one an earlier call
    read) naming a place, a zone, a currency or a language (`_SHARED_HEADS`) says that column's value, even
    where `align` gave it another field of the row (`museum_location`, when the row's data disagree):
    `get_sculpture_details(sculpture_id=10, museum_location="Pittsburgh, PA")` on a sculpture whose
    `location` is Kansas City, MO reads "The museum location is Pittsburgh, PA", which the row denies. An
    optional one is left out; a required one drops the task. Keys (`*_id`) are left to the data-flow checks."""
    from .naming import tool_bindings

    call = draft.calls[i]
    tool = e.tools[call.tool]
    required = set((tool.get("parameters") or {}).get("required") or [])
    binds = tool_bindings(tool)
    rows = [row for _, row in _flowing_rows(draft, i, results)]
    addressed = _addressed_row(e, call)
    if addressed is not None:
        rows.insert(0, addressed)
    pk = e.pk(tool["operation"]["table"])
    for arg in list(call.arguments):
        value = call.arguments[arg]
        if arg in binds or call.provenance.get(arg, "user").startswith("call[") or key_entity(arg):
            continue
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            continue
        words = tokens(arg)
        if not words or words[-1] not in _SHARED_HEADS:
            continue
        for row in rows:
            said = next(
                (
                    c
                    for k in range(len(words) - 1, 0, -1)
                    for c in row
                    if c != pk and tokens(c) == words[-k:] and not key_entity(c)
                ),
                None,
            )
            if said is None or row[said] is None or isinstance(row[said], dict | list | bool):
                continue
            if str(row[said]).casefold() == str(value).casefold():
                break
            if arg in required:
                return (
                    f"stated fact contradicts the row: {call.tool}.{arg} = {value!r}, but the row's {said} "
                    f"is {row[said]!r}"
                )
            _drop_argument(e, draft, call, arg)
            break
    return None


# -------------------------------------------------------------------------------------- gold run


def resolve_provenance(path: str, results: list[Any]) -> Any:
    """The value at `call[i].a[0].b` in the gold results so far."""
    head, _, rest = path.partition(".")
    value = results[int(head[len("call[") : head.index("]")])]
    index = head[head.index("]") + 1 :]
    while index.startswith("["):
        value = value[int(index[1 : index.index("]")])]
        index = index[index.index("]") + 1 :]
    for part in rest.split(".") if rest else []:
        value = value[part]
    return value


def invented_object(schema: Any, value: Any) -> str | None:
    """Why an object the user would state is not something a person says, or `None`: it is empty, or the
    API does not describe its fields (a free-form object holds whatever the data generator made up, such
    as `{"tags": ["new", "budget"]}`), or it has fields the API does not name. Lists of objects are
    judged item by item."""
    schema = schema if isinstance(schema, dict) else {}
    if isinstance(value, list):
        items = [v for v in value if isinstance(v, dict)]
        for item in items:
            why = invented_object(schema.get("items"), item)
            if why:
                return why
        return None
    if not isinstance(value, dict):
        return None
    if not value:
        return "is an empty object"
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    if not props:
        return "is an object whose fields the API does not describe"
    unknown = sorted(set(value) - set(props))
    if unknown:
        return f"has fields the API does not name ({', '.join(unknown)})"
    for (
        name,
        inner,
    ) in value.items():  # `{"permission": {"family": {}}}`: nested objects are judged the same way
        if isinstance(inner, dict | list):
            why = invented_object(props.get(name), inner)
            if why:
                return f"{name} {why}"
    return None


_TEXT_ROWS = frozenset("comment note message review reply post feedback annotation".split())
"""Rows that are a piece of text someone writes: their content column holds sentences."""
_CONTENT_COLUMNS = frozenset("data text content body value comment note message".split())
_ASKING_COLUMNS = frozenset(
    "message messages question questions query prompt prompts text content body comment input chat "
    "search q utterance request".split()
)
"""Columns that may hold a question: a message, a search, a prompt."""


def text_misfit(table: str, column: str, value: Any) -> str | None:
    """How a stated text does not fit its column, or `None`: a chat prompt where a description or a note
    goes (`description: "What will the weather be like in Singapore on Tuesday?"`), or a comment whose text
    is one bare token (`comments.data = "app.murphy.io"`, "add a comment ... with data app.murphy.io"), or a
    sentence in a JSON column (`body_json`)."""
    if not isinstance(value, str):
        return None
    words = set(tokens(column))
    if value.rstrip().endswith("?") and not words & _ASKING_COLUMNS:
        return f"is a question, not a {column.replace('_', ' ')}"
    if "json" in words and not value.lstrip().startswith(("{", "[")):
        return f"is not JSON, yet {column} holds JSON"  # "set the body json of page 13 to "Shared the ...""
    entity = (tokens(singular(table)) or [""])[-1]
    if entity in _TEXT_ROWS and column.lower() in _CONTENT_COLUMNS and len(value.split()) < 3:
        return f"is not what a {entity} says (its {column} holds no sentence)"
    return None


def filler_fact(e: Env, draft: TaskDraft) -> str | None:
    """A value the user would say that does not fit what its column means (`user_id: "accept"`,
    `start_date: "win"`), a list of such values (`product_list: ["would"]`), an empty list, or an object
    the user could not state (`invented_object`): a person would never ask that, so the task is dropped."""
    from ..env.data import is_filler

    for call in draft.calls:
        tool = e.tools[call.tool]
        props = (tool.get("parameters") or {}).get("properties") or {}
        op = tool["operation"]
        table = op["table"]
        columns = e.spec["tables"][table]["columns"]
        bindings = {**(op.get("key") or {}), **(op.get("values") or {}), **(op.get("set") or {})}
        bound = {}
        for column, binding in bindings.items():
            if isinstance(binding, dict) and isinstance(binding.get("arg"), str):
                binding = binding["arg"]
            if isinstance(binding, str):
                bound[binding] = column
        bound.update({f.get("arg"): f["column"] for f in op.get("filters", []) if f.get("arg")})
        for arg, source in call.provenance.items():
            if source not in ("user", "constant"):
                continue
            column = bound.get(arg)
            value = call.arguments.get(arg)
            if isinstance(column, str) and column in columns:
                name, where, cspec = column, f"{table}.{column}", columns[column]
                if is_filler(table, column, cspec, value, primary_key=column == e.pk(table)):
                    return f"filler value: {call.tool}.{arg} = {value!r} does not fit {where}"
                misfit = text_misfit(table, column, value)
                if misfit:
                    return f"filler value: {call.tool}.{arg} = {value!r} {misfit}"
            else:  # an argument bound to no column
                name, where = arg, "its name"
                if is_filler(table, arg, {"type": "string"}, value):
                    return f"filler value: {call.tool}.{arg} = {value!r} does not fit {where}"
            if isinstance(value, list) and not value:
                return f"filler value: {call.tool}.{arg} is an empty list"
            if isinstance(value, list) and len(
                {json.dumps(v, sort_keys=True, default=str) for v in value}
            ) < len(value):
                return f"filler value: {call.tool}.{arg} = {value!r} repeats an item"
            for item in value if isinstance(value, list) else []:  # each item is said as one value of it
                if is_filler(table, name, {"type": "string"}, item):
                    return f"filler value: {call.tool}.{arg} item {item!r} does not fit {where}"
            invented = invented_object(props.get(arg), value)
            if invented:
                return f"filler value: {call.tool}.{arg} = {value!r} {invented}"
            for path, field_name, inner in _fields(value, arg):  # a body's fields: `givenName: "keep"`
                if is_filler(table, field_name, {"type": "string"}, inner):
                    return f"filler value: {call.tool}.{path} = {inner!r} does not fit its name"
    return None


def _fields(value: Any, path: str, depth: int = 0) -> list[tuple[str, str, Any]]:
    """`(path, field name, value)` of every field of an object at any depth, lists read item by item
    (`variantOptionDefinitions.definitions.name`)."""
    out: list[tuple[str, str, Any]] = []
    if depth > 6:
        return out
    for item in value if isinstance(value, list) else [value]:
        for name, inner in item.items() if isinstance(item, dict) else ():
            out.append((f"{path}.{name}", str(name), inner))
            out += _fields(inner, f"{path}.{name}", depth + 1)
    return out


def two_ids_for_one(draft: TaskDraft) -> str | None:
    """Why the user would give two ids for one thing, or `None`: `creditAccountId` is acc_0001 in the first call
    and ca_3710 in the second (the invoice read second belongs to another credit account than the one read
    first). A person has one account; the chain must agree with itself."""
    said: dict[str, tuple[int, Any]] = {}
    for i, call in enumerate(draft.calls):
        for arg, value in call.arguments.items():
            if call.provenance.get(arg, "user").startswith("call[") or not key_entity(arg):
                continue
            j, before = said.setdefault(_squash(arg), (i, value))
            if before != value:
                return f"data flow broken: {arg} is {before!r} in call {j} and {value!r} in call {i}"
    return None


READINGS = frozenset(
    "time date datetime clock timestamp timezone weather forecast temperature rate price quote".split()
)
"""Tables of readings rather than things (`get_current_time(timezone)` keeps `times`): "how many times with
timezone America/Chicago there are" counts nothing a person counts."""


def table_name(e: Env, call: GoldCall) -> str:
    return e.tools[call.tool]["operation"]["table"]


def execute(e: Env, draft: TaskDraft) -> str | None:
    """Run the gold calls on the initial state; record results, hash and diff; a reason on failure."""
    e.env.restore(e.initial)
    results: list[Any] = []
    for i, call in enumerate(draft.calls):
        reason = align(e, draft, i, results) or flow_disagrees(e, draft, i, results)
        if reason is not None:
            return f"data flow broken: {reason}"
        reason = contradicts_row(e, draft, i, results)
        if reason is not None:
            return reason
        for arg, source in call.provenance.items():
            if source.startswith("call["):
                try:
                    flowed = resolve_provenance(source, results)
                except (IndexError, KeyError, TypeError, ValueError):
                    return f"call {i}: {source} does not exist in the earlier results"
                if flowed != call.arguments.get(arg):
                    return f"call {i}: {arg} = {call.arguments.get(arg)!r} does not flow from {source} ({flowed!r})"
        obs = e.env.step(call.tool, call.arguments)
        if not obs["ok"]:
            return f"gold call {i} ({call.tool}) failed: {obs['error']}"
        call.result = obs.get("result")
        results.append(call.result)
    two = two_ids_for_one(draft)
    if two:
        return two
    if draft.kind == "policy":
        attempt = draft.policy_rule["attempt"]
        obs = e.env.step(attempt["tool"], attempt["arguments"])
        if obs["ok"] or obs.get("code") != "invalid_state":
            return (
                f"the forbidden call {attempt['tool']} was not refused by the environment ({obs.get('code')})"
            )
        draft.policy_rule["refusal"] = obs["error"]
    draft.gold_state_hash = e.env.state_hash()
    draft.gold_diff = e.env.diff(e.initial)
    draft.seed = e.seed
    if draft.n_writes and draft.gold_state_hash == e.initial_hash:
        return "the writes change nothing"
    if draft.kind in ("read", "mixed") and not draft.answer_facts:
        source = draft.calls[-1] if draft.kind == "read" else draft.calls[0]
        table_rows = len(e.rows.get(e.tools[source.tool]["operation"]["table"], []))
        if isinstance(source.result, list) and len(source.result) >= table_rows > 1:
            return "nothing to ask about: the read returns every row (its filters narrow nothing)"
        if (
            isinstance(source.result, list)
            and len(source.result) > 1
            and singular(table_name(e, source)) in READINGS
        ):
            return "nothing to ask about: how many readings (times, dates, rates) match is not a question"
        if isinstance(source.result, list) and len(source.result) > 1:  # several rows: ask how many
            draft.answer_facts = [str(len(source.result))]
            draft.notes.append("answer: the number of rows found")
        else:
            given = {str(v) for c in draft.calls for v in c.arguments.values()} | {
                str(v) for v in draft.user_facts.values()
            }
            table = e.tools[source.tool]["operation"]["table"]
            draft.answer_facts = _answer_facts(
                source.result, random.Random(draft.signature()), given=given, table=table
            )
        if not draft.answer_facts:
            return "the reads return nothing a person would ask about"
    draft.required = draft.required or [c.tool for c in draft.calls if c.write]
    return None


# -------------------------------------------------------------------------------------- the env


def env_tasks(
    row: dict, config: Any, edges: list[dict] | None, rng: random.Random, *, rewrite: Any = None
) -> tuple[list[dict], list[dict]]:
    """Tasks of one environment row: `(kept rows, rejected {kind, reason, detail})`.

    `rewrite(instructions, draft) -> (instructions, reason or None)`, when given, rewrites each
    task's user instructions with an LLM (`Rewriter`); a rewrite that loses a fact is refused by
    `envscale.tasks.intent.check_rewrite` and the template's wording is kept, with a note.

    `edges` (the graph's dependency edges of the environment's domain) are accepted for chain
    candidates; the chains built here follow the operations themselves (a result column feeding a
    key of the same or a referenced table), and every link is checked by executing it.
    """
    from .gates import Deduper, empty_passes, leaks, replay_differs
    from .intent import write_instructions
    from .policy import policy_rules

    del edges  # the operations' own links are used; see the docstring
    e = Env(row, config)
    policy = policy_rules(e.spec)
    kinds = [k for k in KINDS if config.kind_shares.get(k, 0) > 0]
    if row.get("read_only") or not e.writes:
        kinds = [k for k in kinds if k == "read"] or ["read"]
    weights = [config.kind_shares.get(k, 0) or 1 for k in kinds]
    kept: list[dict] = []
    rejected: list[dict] = []
    dedupe = Deduper()
    wanted = config.tasks_per_env
    if not e.grouped:
        wanted = round(config.tasks_per_env * getattr(config, "loose_env_share", 1.0))
    reasons: Counter = Counter()
    built: Counter = Counter()
    unbuilt: Counter = Counter()
    replay_env = Environment.from_row(row) if config.replay_check else None  # a second, fresh one

    def attempt(kind: str) -> tuple[dict | None, str | None, list]:
        """One candidate task: (row, None, calls) when kept, (None, reason, calls) when dropped."""
        draft = _BUILDERS[kind](e, rng)
        if isinstance(draft, str):
            reasons[(kind, draft)] += 1
            unbuilt[kind] += 1
            return None, None, []
        built[kind] += 1
        if len(draft.calls) > config.max_chain_length:
            reasons[(kind, "chain longer than max_chain_length")] += 1
            return None, None, []
        calls = [{"tool": c.tool, "arguments": c.arguments} for c in draft.calls]
        reason = tidy(e, draft, rng) or filler_fact(e, draft) or execute(e, draft)
        calls = [{"tool": c.tool, "arguments": c.arguments} for c in draft.calls]
        if reason is not None:
            return None, reason, calls
        # the wording draws from its own seeded source: a change of template never reshuffles the tasks
        instructions = write_instructions(
            draft, e.spec, random.Random(f"{e.spec['name']}:{draft.signature()}")
        )
        if rewrite is not None:
            instructions, why = rewrite(instructions, draft)
            draft.notes.append(f"kept the template's wording: {why}" if why else "reworded by the LLM")
        reason = dedupe.seen(e.spec["name"], calls) or leaks(
            instructions.first_message, to_json(instructions), [c.tool for c in draft.calls]
        )
        if reason is not None:
            return None, reason, calls
        task_row = _row(e, draft, instructions, policy, rng)
        reason = empty_passes(task_row, e.env)
        if reason is None and replay_env is not None:
            results = [c.result for c in draft.calls]
            reason = replay_differs(calls, replay_env, e.seed, draft.gold_state_hash, results)
        return (None, reason, calls) if reason is not None else (task_row, None, calls)

    try:
        for _ in range(wanted * _ATTEMPTS_PER_TASK):
            if len(kept) >= wanted:
                break
            # a kind the environment cannot pose (no write with a rule, no get ...) stops costing attempts
            live = [(k, w) for k, w in zip(kinds, weights, strict=True) if built[k] or unbuilt[k] < _GIVE_UP]
            if not live:
                break
            kind = rng.choices([k for k, _ in live], [w for _, w in live])[0]
            try:
                task_row, reason, calls = attempt(kind)
            except Exception as exc:  # noqa: BLE001 - one bad candidate never costs the others
                task_row, reason, calls = None, f"candidate failed: {type(exc).__name__}: {exc}", []
            if task_row is not None:
                kept.append(task_row)
            elif reason is not None:
                rejected.append(
                    {
                        "environment": e.spec["name"],
                        "domain_id": row.get("domain_id", -1),
                        "kind": kind,
                        "reason": _categorised(reason),
                        "detail": {"calls": calls},
                    }
                )
    finally:
        e.env.close()
        if replay_env is not None:
            replay_env.close()
    for (kind, reason), n in reasons.items():  # builders that found nothing to build: one row each
        rejected.append(
            {
                "environment": e.spec["name"],
                "domain_id": row.get("domain_id", -1),
                "kind": kind,
                "reason": f"cannot build: {reason}",
                "detail": {"attempts": n},
            }
        )
    return kept, rejected


_CATEGORIES = (
    ("near duplicate", "near duplicate"),
    ("exact duplicate", "exact duplicate"),
    ("gold call", "gold run failed"),
    ("the forbidden call", "policy not enforced"),
    ("the empty trajectory passes", "empty trajectory passes"),
    ("the instructions name", "instructions name a gold tool"),
    ("the writes change nothing", "writes change nothing"),
    ("the reads return nothing", "nothing to ask about"),
    ("the final state differs on replay", "replay differs"),
    ("the task has", "replay differs"),
)


def _categorised(reason: str) -> str:
    """`category: detail`, so that the card counts drops by category."""
    for prefix, category in _CATEGORIES:
        if reason.startswith(prefix):
            return reason if reason.startswith(category + ":") else f"{category}: {reason}"
    if reason.startswith("call ") and ("replay" in reason or "flow" in reason or "exist" in reason):
        return f"{'replay differs' if 'replay' in reason else 'data flow broken'}: {reason}"
    return reason


def _row(e: Env, draft: TaskDraft, instructions: Any, policy: dict, rng: random.Random) -> dict:
    needed = list(dict.fromkeys([c.tool for c in draft.calls] + draft.forbidden))
    others = [t for t in e.tools if t not in needed]
    distractors = rng.sample(others, min(e.config.distractors, len(others)))
    n = len(draft.calls)
    hard = draft.shape == "dag" or n >= 3 or draft.kind in ("policy", "missing_info")
    level = "hard" if hard else "medium" if n == 2 else "easy"
    return {
        "environment": e.spec["name"],
        "domain_id": e.row.get("domain_id", -1),
        "kind": draft.kind,
        "difficulty": {
            "chain_length": n,
            "n_writes": draft.n_writes,
            "n_distractors": len(distractors),
            "shape": draft.shape,
            "level": level,
        },
        "scoring": draft.scoring(),
        "instructions": to_json(instructions),
        "first_message": instructions.first_message,
        "tools": needed + distractors,
        "gold_calls": [
            {"tool": c.tool, "arguments": c.arguments, "provenance": c.provenance} for c in draft.calls
        ],
        "gold_results": [c.result for c in draft.calls],
        "gold_state_hash": draft.gold_state_hash,
        "gold_diff": draft.gold_diff,
        "answer_facts": draft.answer_facts,
        "policy": {**policy, "task_rule": draft.policy_rule},
        "seed": draft.seed,
        "notes": draft.notes,
    }


class Rewriter:
    """`rewrite` for `env_tasks`: user instructions reworded by an OpenAI-compatible model.

    One event loop and one `LLMClient` for the whole run; each call waits for its answer (the
    stage is CPU-bound elsewhere; a rewrite costs one request per task). Close it when done.
    """

    def __init__(self, llm_config: Any):
        import asyncio

        from ..llm import LLMClient

        self.loop = asyncio.new_event_loop()
        self.client = LLMClient(llm_config)
        self.model = llm_config.model

    def __call__(self, instructions: Any, draft: TaskDraft) -> tuple[Any, str | None]:
        from .intent import rewrite_instructions

        return self.loop.run_until_complete(
            rewrite_instructions(instructions, draft, self.client, self.model)
        )

    def close(self) -> None:
        self.loop.run_until_complete(self.client.aclose())
        self.loop.close()
