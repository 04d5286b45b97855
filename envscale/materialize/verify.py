"""Check that an environment spec is executable and that its tools do what their names say.

`verify` validates the spec, builds its initial state, then exercises every tool from that state
"as a person would": keys and filter values taken from existing rows, fresh values that fit their
columns for inserts and updates, and one call with an argument of the wrong type. It reports two
kinds of problems, each `{"tool": name or None, "check": ..., "reason": ...}`.

**Mechanical** checks (`mechanical:*`) hold a tool to the operation it declares:

- a valid call that returns an error (`mechanical:valid_call`), a result that does not match the
  tool's `output_schema` (`mechanical:output_schema`), a tool no valid call can be built for
  (`mechanical:cannot_call`);
- a read that changes the state (`mechanical:read_changed_state`);
- a write that changes anything but what it declares (`mechanical:write`): an insert must add
  exactly one row of its table holding the given values, an update must change exactly the
  addressed row as declared, a delete must remove exactly the addressed row, and no table may
  change beyond the rows its operation and effects write (`undeclared_changes`);
- an invalid call that succeeds, fails with another code than `invalid_arguments`, or fails but
  changes the state (`mechanical:invalid_call_succeeded`, `..._code`, `..._changed_state`).

Spec 1.1 operations are followed where they can be predicted: keys bound to the session or a
literal address that row, columns bound to `{arg}` or `{value}` are checked, columns computed by
other expressions (the clock, arithmetic) are taken as written, the tables of `effects` may change
too, and a call refused by a guard (`invalid_state`) is drawn again, up to `_GUARD_ATTEMPTS` times.

**Semantic** checks (`semantic:*`) hold a tool to the meaning of its *name*, read by
`envscale.words.semantics.tool_meaning` independently of the operation a materializer chose (which may
be wrong: that is what they catch). They judge what the calls did to the state (`Environment.diff`),
never how the operation is written:

- `semantic:delete`: a delete verb, called with a key from the state, removes a row of its
  entity's table or retires it (a status in `envscale.words.verbs.RETIRED_STATUSES`, `deleted`/`archived` set,
  `active` unset), and adds no row to it;
- `semantic:update`: an update verb changes an existing row of its entity and adds or removes none
  (rows of other tables may come and go through 1.1 effects: a withdrawal records a transaction);
- `semantic:status`: a status verb (`cancel`, `approve`, ...) moves a status-like column of an
  existing row to one of the verb's values (or, when the column's enum has none of them, to another
  value) and adds no row to its entity's table;
- `semantic:create`: a create verb adds a row to its entity's table (any table when the spec has
  none for the entity, with a note);
- `semantic:read`: a read changes nothing and, called with values taken from a row of its
  entity's table (the key for a `get_order`, the filter values for a `list_orders`), finds them;
- `semantic:computation`: a pure computation (`subtract`, `convert_units`) has no place in a
  state-backed environment;
- `semantic:written_not_read` (environment level): some table is both written by a write tool
  that passed and read by a read tool that passed. An environment where no write passed is
  `read_only` (a flag, not a problem).

The entity's tables are those named for the entity (`orders` for `cancel_order`), for a run of the
name's words holding it (`order_items` for `add_order_item`), or for the parent (`customers` for
`update_customer_email`); a call addressing a row that already has the status it asks for (or is
retired already) tells nothing and is not held against the tool. Semantic choices draw from their
own generator, so the mechanical calls are the same with `semantic=False`.

`verify_report` returns the problems together with each tool's semantic verdict, the share of
tools passing every semantic check (`semantic_score`), `read_only` and the tables both written
and read.

Example:

```python
>>> from envscale.env import load_spec
>>> from envscale.materialize.verify import verify, verify_report
>>> spec = load_spec("tests/fixtures/envs/shop.yaml")
>>> verify(spec)
[]
>>> report = verify_report(spec)
>>> report["semantic_score"], report["read_only"], report["written_and_read"]
(1.0, False, ['customers', 'orders'])
>>> spec["tools"][0]["kind"] = "write"
>>> verify(spec)[0]["tool"]
'get_customer'
```
"""

from __future__ import annotations

import functools
import json
import math
import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jsonschema

from envscale.env.data import (
    about_subject,
    column_value,
    id_prefix,
    kept_value,
    one_place_values,
    parse_now,
    prose_line,
    schema_accepts,
    schema_value,
    stock_text,
    subject_and_prose,
    value_range,
)
from envscale.env.operations import PRECONDITION_OPS
from envscale.env.runtime import Environment
from envscale.env.spec import SpecError, is_nullable, validate_spec, value_problem
from envscale.words.inflect import plural, singular
from envscale.words.names import tokens
from envscale.words.semantics import (
    ToolMeaning,
    argument_role,
    computation_reason,
    person_entity,
    route_parent_column,
    tool_meaning,
)
from envscale.words.verbs import RETIRED_STATUSES, STATUS_VERBS

_WRONG_TYPED = [12345, "not-a-valid-value", [1, 2], {"unexpected": 1}, True, None]

_WORD = re.compile(r"[^\W_]+(?:['\-.][^\W_]+)*")
"""A word of a text a search is typed from (letters and digits, with inner apostrophes, hyphens, dots)."""


_GUARD_ATTEMPTS = 8
"""Calls drawn for one valid call of a tool with guards, before a refusal (`invalid_state`) is a problem."""

_NO_VALUE = object()
"""What `_pick` returns when no value satisfies an argument's schema."""

_PREPOSITIONS = ("to", "from", "into", "in", "on", "onto", "for")
"""Words after which a tool name names a container (`add_stock_to_watchlist`): rows of a table
belonging to the container's table count as its rows."""
_STATUS_WORDS = frozenset({"status", "state", "stage", "phase"})
_FLAG_WORDS = (
    frozenset(v for values in STATUS_VERBS.values() for v in values)
    | RETIRED_STATUSES
    | {"active", "enabled", "visible", "hidden", "deleted", "done", "read", "open", "flagged", "starred"}
)
"""Words that make a boolean column a status flag (`archived`, `is_active`, `enabled`)."""
_RETIRED_FLAGS = {
    "deleted": True,
    "archived": True,
    "removed": True,
    "trashed": True,
    "retired": True,
    "disabled": True,
    "active": False,
    "enabled": False,
    "visible": False,
}
"""Boolean flags that retire a row when set to the value given."""


class _CannotCall(Exception):
    """No valid call can be built for a tool from the current state."""


@dataclass
class _Call:
    """One successful valid call: its arguments, the row it addressed (or drew filter values from),
    its observation and the changes it made."""

    args: dict[str, Any]
    target: dict[str, Any] | None
    obs: dict[str, Any]
    changes: dict[str, Any]


def verify(
    spec: dict[str, Any], *, seed: int = 0, calls_per_tool: int = 3, semantic: bool = True
) -> list[dict[str, Any]]:
    """Verify an environment spec by exercising every tool.

    Args:
        spec (`dict`): The environment spec.
        seed (`int`, *optional*, defaults to 0): Seed of the generated calls.
        calls_per_tool (`int`, *optional*, defaults to 3): Valid calls per tool, each from the
            initial state.
        semantic (`bool`, *optional*, defaults to `True`): Also check every tool against the meaning of
            its name, and the environment for a table both written and read (see the module docstring).

    Returns:
        `list[dict]`: Problems `{"tool": name or None, "check": str, "reason": str}`; empty when the
        spec passed.
    """
    return _verify(spec, seed=seed, calls_per_tool=calls_per_tool, semantic=semantic)["problems"]


def verify_report(spec: dict[str, Any], *, seed: int = 0, calls_per_tool: int = 3) -> dict[str, Any]:
    """Verify an environment spec, mechanically and semantically, and say how each tool fared.

    Args:
        spec (`dict`): The environment spec.
        seed (`int`, *optional*, defaults to 0): Seed of the generated calls.
        calls_per_tool (`int`, *optional*, defaults to 3): Valid calls per tool, each from the
            initial state.

    Returns:
        `dict`: `problems` (as `verify` returns them); `semantic_score` (share of tools passing every
        semantic check; computations, and tools no valid call succeeded for, count as failing);
        `read_only` (no write tool passed); `written_and_read` (tables written by a write tool that
        passed and read by a read tool that passed); `checks` (`{tool: {"effect", "passed", "reason",
        "notes"}}`, the semantic verdict per tool); `notes` (environment-level remarks).
    """
    return _verify(spec, seed=seed, calls_per_tool=calls_per_tool, semantic=True)


def _verify(spec: dict[str, Any], *, seed: int, calls_per_tool: int, semantic: bool) -> dict[str, Any]:
    report: dict[str, Any] = {
        "problems": [],
        "semantic_score": 0.0,
        "read_only": True,
        "written_and_read": [],
        "checks": {},
        "notes": [],
    }
    try:
        validate_spec(spec)
    except SpecError as exc:
        report["problems"] = [_problem(exc.tool, "mechanical:spec", f"invalid spec: {exc}")]
        return report
    try:
        env = Environment(spec)
    except Exception as exc:  # any failure to build is this spec's problem, reported with its cause
        reason = f"initial state does not build: {type(exc).__name__}: {exc}"
        report["problems"] = [_problem(None, "mechanical:initial_state", reason)]
        return report
    problems, checks = report["problems"], report["checks"]
    written: set[str] = set()
    read: set[str] = set()
    passed_writes: list[str] = []
    rng = random.Random(seed)
    with env:
        rows = env.dump()
        for tool in spec["tools"]:
            name = tool["name"]
            calls: list[_Call] = []
            try:
                found = _exercise(env, tool, rows, rng, calls_per_tool, calls)
            except Exception as exc:  # a crash while verifying one tool is reported, not raised
                found = [("mechanical:crash", f"verification crashed: {type(exc).__name__}: {exc}")]
            if semantic:
                # its own generator, so that the mechanical calls are the same with and without semantics
                sem_rng = random.Random(f"{seed}:{name}")
                try:
                    verdict = _semantic_check(env, tool, rows, calls, sem_rng, calls_per_tool)
                except Exception as exc:  # reported like a mechanical crash
                    verdict = {
                        "effect": None,
                        "passed": False,
                        "reason": f"semantic check crashed: {type(exc).__name__}: {exc}",
                        "notes": [],
                        "check": "semantic:crash",
                    }
                check = verdict.pop("check")
                checks[name] = verdict
                if not verdict["passed"] and check is not None:
                    found.append((check, verdict["reason"]))
            problems.extend(_problem(name, check, reason) for check, reason in found)
            if found:
                continue
            if tool["kind"] == "write":
                passed_writes.append(name)
                written.update(t for call in calls for t in call.changes)
            else:
                read.update(_tables_read(tool))
    if not semantic:
        return report
    report["semantic_score"] = (
        round(sum(c["passed"] for c in checks.values()) / len(checks), 4) if checks else 0.0
    )
    report["read_only"] = not passed_writes
    report["written_and_read"] = sorted(written & read)
    if report["read_only"]:
        has_writes = any(t["kind"] == "write" for t in spec["tools"])
        report["notes"].append(
            "read-only: no write tool passed"
            if has_writes
            else "read-only: the environment has no write tool"
        )
    elif not report["written_and_read"]:
        what = ", ".join(sorted(written)) or "nothing"
        problems.append(
            _problem(
                None,
                "semantic:written_not_read",
                f"the tables written by the write tools that passed ({what}) are never read back by a "
                f"read tool that passed (they read {', '.join(sorted(read)) or 'nothing'}): no write "
                "can be observed through the tools",
            )
        )
    return report


def _problem(tool: str | None, check: str, reason: str) -> dict[str, Any]:
    return {"tool": tool, "check": check, "reason": reason}


def _tables_read(tool: dict[str, Any]) -> set[str]:
    """The tables a read tool's operation reads."""
    op = tool.get("operation") or {}
    tables = {op["table"]} if isinstance(op.get("table"), str) else set()
    return tables | {t for t in op.get("tables", []) if isinstance(t, str)}


def _exercise(
    env: Environment,
    tool: dict[str, Any],
    rows: dict[str, list[dict]],
    rng: random.Random,
    calls: int,
    done: list[_Call],
) -> list[tuple[str, str]]:
    """Problems `(check, reason)` found by `calls` valid calls and one wrong-typed call of `tool`, each
    from the initial state; the valid calls that succeeded are appended to `done`."""
    name, output = tool["name"], tool.get("output_schema")
    output_validator = jsonschema.validators.validator_for(output)(output) if output is not None else None
    problems: list[tuple[str, str]] = []
    args: dict[str, Any] = {}
    op = tool["operation"]
    guarded = bool(op.get("guards")) or any(
        isinstance(e, dict) and e.get("guards") for e in op.get("effects", [])
    )
    for _ in range(calls):
        # a guard (1.1) may refuse the values drawn (an amount over a balance): draw again, as a person would
        for _attempt in range(_GUARD_ATTEMPTS if guarded else 1):
            env.reset()
            try:
                args, target = _valid_call(env, tool, rows, rng)
            except _CannotCall as exc:
                return [("mechanical:cannot_call", f"cannot be exercised: {exc}")]
            before, before_hash = env.snapshot(), env.state_hash()
            obs = env.step(name, args)
            if obs["ok"] or obs["code"] != "invalid_state":
                break
        if not obs["ok"]:
            problems.append(
                ("mechanical:valid_call", f"valid call {_text(args)} failed: [{obs['code']}] {obs['error']}")
            )
            continue
        if output_validator is not None:
            error = jsonschema.exceptions.best_match(output_validator.iter_errors(obs["result"]))
            if error is not None:
                problems.append(
                    (
                        "mechanical:output_schema",
                        f"result of {_text(args)} does not match output_schema: {error.message}",
                    )
                )
        changes = env.diff(before)
        done.append(_Call(args, target, obs, changes))
        if tool["kind"] == "read":
            if env.state_hash() != before_hash or changes:
                problems.append(
                    (
                        "mechanical:read_changed_state",
                        f"read call {_text(args)} changed the state: {_text(changes)}",
                    )
                )
        else:
            problems.extend(
                ("mechanical:write", reason)
                for reason in _check_write(env, tool, args, rows, obs["result"], changes)
            )
    env.reset()
    before_hash = env.state_hash()
    bad = _wrong_typed(tool, args)
    obs = env.step(name, bad)
    if obs["ok"]:
        problems.append(
            (
                "mechanical:invalid_call_succeeded",
                f"invalid call {_text(bad)} succeeded: {_text(obs['result'])}",
            )
        )
    elif obs["code"] != "invalid_arguments":
        problems.append(
            (
                "mechanical:invalid_call_code",
                f"invalid call {_text(bad)} failed with [{obs['code']}] {obs['error']}, not invalid_arguments",
            )
        )
    if env.state_hash() != before_hash:
        problems.append(
            (
                "mechanical:invalid_call_changed_state",
                f"invalid call {_text(bad)} failed but changed the state",
            )
        )
    return problems


def valid_call(
    env: Environment, tool: dict[str, Any], rows: dict[str, list[dict]], rng: random.Random
) -> tuple[dict[str, Any], dict[str, Any] | None] | None:
    """Arguments a person could call `tool` with in the state `rows` (`env.dump()`), and the row
    they address; `None` when no valid call exists. The task generator builds its calls with it."""
    try:
        return _valid_call(env, tool, rows, rng)
    except _CannotCall:
        return None


def _valid_call(
    env: Environment, tool: dict[str, Any], rows: dict[str, list[dict]], rng: random.Random
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Arguments that the tool should accept: keys of rows that exist, fresh values for new data; and
    the row they address (or, for a list or an insert, the row filter values were drawn from).

    Every argument satisfies its own JSON Schema (enum, bounds, lengths, pattern, format, arrays,
    objects, ...) and fits the column it is bound to. Keys and filter values are taken from existing
    rows when the schema accepts them, else built from the schema; an optional argument no value
    fits is left out, a required one makes the tool impossible to exercise (`_CannotCall`).
    """
    op, params = tool["operation"], tool["parameters"]
    props, required = params.get("properties", {}), set(params.get("required", []))
    table = op["table"]
    tables = env.spec["tables"]
    tspec = tables[table]
    now = parse_now(env.spec)
    args: dict[str, Any] = {}

    def put(arg: str, candidates: list[Any], accepts: Callable[[Any], bool], what: str) -> None:
        value = _pick(props[arg], candidates, accepts, rng, now)
        if value is not _NO_VALUE:
            args[arg] = value
        elif arg in required:
            raise _CannotCall(
                f"no value of required argument {arg!r} ({what}) satisfies its schema {_text(props[arg])}"
            )

    if "key" in op:
        key = {column: _binding_arg(b) for column, b in op["key"].items()}
        candidates = [r for r in rows[table] if _preconditions_hold(op.get("preconditions", []), r)]
        # a key bound to a literal or to the session (1.1) addresses that row only
        session = (
            env.session() if any(isinstance(b, dict) and "session" in b for b in op["key"].values()) else None
        )
        for column, binding in op["key"].items():
            if isinstance(binding, dict) and "value" in binding:
                candidates = [r for r in candidates if r[column] == binding["value"]]
            elif isinstance(binding, dict) and "session" in binding and session is not None:
                candidates = [r for r in candidates if r[column] == session.get(binding["session"])]
        if op["type"] == "delete":
            # children that the delete's own `where` effects remove or detach do not hold the row
            freed = {
                (e.get("table"), c)
                for e in op.get("effects", [])
                if isinstance(e, dict) and "where" in e
                for c in (
                    tables.get(e.get("table"), {}).get("columns", {}) if e["type"] == "delete" else e["set"]
                )
            }
            referenced = {
                child_row[column]
                for child, cspec in tables.items()
                for column, col in cspec["columns"].items()
                if col.get("references") == table and (child, column) not in freed
                for child_row in rows[child]
                if child_row[column] is not None
            }
            candidates = [r for r in candidates if r[tspec["primary_key"]] not in referenced]
        if not candidates:
            raise _CannotCall(
                f"no row of {table} can be addressed (all fail the preconditions or are referenced)"
            )
        addressable = [
            r
            for r in candidates
            if all(
                schema_accepts(props[a], as_argument(props[a], r[c])) for c, a in key.items() if a is not None
            )
        ]
        if not addressable:
            raise _CannotCall(
                f"no addressable row of {table} has a key that the key argument(s) accept: "
                f"{_text({a: props[a] for a in key.values() if a is not None})}"
            )
        target = rng.choice(addressable)
        args.update(
            {arg: as_argument(props[arg], target[column]) for column, arg in key.items() if arg is not None}
        )
    else:
        target = rng.choice(rows[table]) if rows[table] else None
    for flt in op.get("filters", []):
        arg, column, fop = flt.get("arg"), flt["column"], flt.get("op", "eq")
        if arg is None or arg in args or (arg not in required and rng.random() < 0.5):
            continue  # a filter with a `value` (1.1) always applies and takes no argument
        existing = [r[column] for r in rng.sample(rows[table], min(5, len(rows[table])))]
        if target is not None:
            existing.insert(0, target[column])
        values = [filter_value(fop, v, rng) for v in existing if v is not None]
        accepts = functools.partial(_filter_accepts, tspec, column, fop)
        put(arg, values, accepts, f"filter {fop} on {table}.{column}")
    if op.get("limit_arg"):
        prop = props[op["limit_arg"]]
        limit = max(prop.get("minimum", 1), min(prop.get("maximum", 5), rng.randint(1, 5)))
        put(op["limit_arg"], [limit], lambda v: True, "limit")
    bindings = {**op.get("values", {}), **op.get("set", {})}
    bound = {c: a for c, b in bindings.items() if (a := _binding_arg(b)) is not None}
    # a new row is made with what a person states first (`_SALIENT`) and the rows it is of that a person can find (an
    # item's product, where the API lists its products)
    listed = (
        {t["operation"]["table"] for t in env.spec["tools"] if t["operation"].get("type") == "list"}
        if op["type"] == "insert"
        else set()
    )
    chosen = [
        c
        for c, a in bound.items()
        if a in required
        or rng.random() < 0.7
        or (op["type"] == "insert" and set(tokens(c)) & _SALIENT)
        or (op["type"] == "insert" and tspec["columns"].get(c, {}).get("references") in listed)
    ]
    # an update must change something: when no chosen column got a value, try the others (unless the
    # update changes something of its own: a fixed value or a computed expression)
    computed = any(_binding_arg(b) is None for b in op.get("set", {}).values())
    must_set = op["type"] == "update" and bool(bound) and not op.get("fixed") and not computed
    if must_set and not chosen:
        chosen = [rng.choice(sorted(bound))]
    spare = sorted(set(bound) - set(chosen)) if must_set else []
    for column in chosen + spare:
        if column not in chosen and set(bound.values()) & set(args):
            break
        if bound[column] in args:
            continue
        current = target[column] if op["type"] == "update" else None
        accepts = functools.partial(_write_accepts, env, rows, table, column, current)
        if _DATE_FORMATS.get(props[bound[column]].get("format")):  # "2015-07-01T22:00:00Z", never "09:15"
            accepts = functools.partial(_formatted, props[bound[column]], accepts)
        candidates = _guarded_first(
            op, tables, rows, column, _new_values(env, rows, table, column, current, rng)
        )
        put(bound[column], candidates, accepts, f"{table}.{column}")
    _prose_about_subject(env, table, bound, props, args, target if op["type"] == "update" else None, rng)
    _dictated_text(env, table, bound, props, required, args, rng)
    if op["type"] in ("insert", "update"):
        _one_person(env, rows, table, bound, props, args, target if op["type"] == "update" else None)
        _one_place(env, rows, table, bound, props, args, rng)
        _references_agree(env, rows, table, bound, props, args)
        kept = kept_value(args.get(bound["key"])) if {"key", "value"} <= set(bound) else None
        if kept is not None and schema_accepts(props.get(bound["value"], {}), kept):
            args[bound["value"]] = kept  # "pet_name" keeps "Biscuit"
    if must_set and not set(bound.values()) & set(args):
        raise _CannotCall(f"no argument of set {_text(op['set'])} can be given a value its schema accepts")
    route = ((tool.get("metadata") or {}).get("annotations") or {}).get("path")
    for arg in sorted(required - set(args)):
        # an argument the tool leaves unbound but that names a reference of the row it addresses (the parent
        # `resourceGroupName` in a path that reads a vault) carries that row's value, not a made-up one
        column = "_".join(tokens(arg)).lower()
        if (
            column not in tspec["columns"]
        ):  # `/usergroups/{groupid}/members/{uuid}`: the member's usergroup_id
            column = route_parent_column(route, arg) or column
        parent = (tspec["columns"].get(column) or {}).get("references")
        own = target.get(column) if target is not None and parent else None
        put(
            arg,
            [] if own is None else [as_argument(props[arg], own)],
            lambda v: True,
            "not bound to a column",
        )
    if op["type"] == "update" and target is not None:
        _adjust_within(tspec, table, op, props, args, target)
    error = jsonschema.exceptions.best_match(
        jsonschema.validators.validator_for(params)(params).iter_errors(args)
    )
    if error is not None:
        raise _CannotCall(f"generated arguments {_text(args)} do not match the parameters: {error.message}")
    return args, target


def _references_agree(
    env: Environment,
    rows: dict[str, list[dict]],
    table: str,
    bound: dict[str, str],
    props: dict,
    args: dict[str, Any],
) -> None:
    """Two references a write sets agree: Paylocity's `Add_local_tax(companyId, employeeId)` drew the company apart
    from the employee, so that every call named an employee of another company (78 of its tasks dropped as
    `references_disagree`, and the world kept none). A reference whose row references the other's table by one
    column names the other: the employee's own company."""
    tables = env.spec["tables"]
    columns = tables[table]["columns"]
    refs = {c: columns[c]["references"] for c in bound if columns.get(c, {}).get("references")}
    for column, ref in refs.items():
        arg = bound[column]
        if arg not in args:
            continue
        pk = tables[ref]["primary_key"]
        row = next((r for r in rows.get(ref, []) if r.get(pk) == args[arg]), None)
        if row is None:
            continue
        for other, other_ref in refs.items():
            if other == column or other_ref == ref or bound[other] not in args:
                continue
            links = [c for c, d in tables[ref]["columns"].items() if d.get("references") == other_ref]
            if len(links) != 1 or row.get(links[0]) is None:
                continue
            value = as_argument(props[bound[other]], row[links[0]])
            if schema_accepts(props[bound[other]], value):
                args[bound[other]] = value


def _adjust_within(
    tspec: dict[str, Any], table: str, op: dict[str, Any], props: dict, args: dict[str, Any], target: dict
) -> None:
    """An amount added to a column keeps it within what the column holds (seed 93's readers: "increase the fuel
    level by 57.66", from 43 to 100.66): the amount is cut to the room left, in the argument's own type."""
    for column, expr in (op.get("set") or {}).items():
        if not (isinstance(expr, dict) and len(expr) == 1 and next(iter(expr)) in ("add", "sub")):
            continue
        form, parts = next(iter(expr.items()))
        arg = next(
            (_binding_arg(p) for p in (parts if isinstance(parts, list) else [])[1:] if _binding_arg(p)), None
        )
        current, amount = target.get(column), args.get(arg) if arg else None
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (current, amount)):
            continue
        bounds = value_range(table, column, tspec["columns"].get(column) or {})
        if bounds is None:
            continue
        lo, hi = bounds
        sign = -1 if form == "sub" else 1
        room = (hi - current) if sign * amount > 0 else (current - lo)
        if abs(amount) > room > 0:
            cut = room / 2 if isinstance(amount, float) else max(1, int(room // 2))
            value = round(cut, 2) if isinstance(amount, float) else cut
            if schema_accepts(props.get(arg) or {}, value if amount > 0 else -value):
                args[arg] = value if amount > 0 else -value


def _guarded_first(
    op: dict[str, Any],
    tables: dict[str, Any],
    rows: dict[str, list[dict]],
    column: str,
    candidates: list[Any],
) -> list[Any]:
    """Reference candidates for `column`, those whose row an effect keyed by it accepts first: a valid call
    of `check_in(reservation_id)` names a reservation its guard (`status in [booked]`) lets through."""
    for effect in op.get("effects") or []:
        if not isinstance(effect, dict) or effect.get("key") is None or effect.get("table") not in tables:
            continue
        if list(effect["key"].values()) != [{"result": column}]:
            continue
        allowed = {}
        for guard in effect.get("guards") or []:
            check = guard.get("check") or {}
            pair = check.get("in") if isinstance(check, dict) else None
            if isinstance(pair, list) and len(pair) == 2 and "target" in pair[0] and "value" in pair[1]:
                allowed[pair[0]["target"]] = pair[1]["value"]
        if not allowed:
            continue
        pk = tables[effect["table"]]["primary_key"]
        ok = {r[pk] for r in rows[effect["table"]] if all(r.get(c) in v for c, v in allowed.items())}
        return sorted(candidates, key=lambda k: k not in ok)  # stable: the shuffled order within each
    return candidates


def _binding_arg(binding: Any) -> str | None:
    """The argument a column binding reads: a bare name (1.0) or `{arg: NAME}` (1.1); `None` for other
    expressions (literals, the clock, the session, arithmetic), which the runtime computes."""
    if isinstance(binding, str):
        return binding
    if isinstance(binding, dict) and len(binding) == 1 and isinstance(binding.get("arg"), str):
        return binding["arg"]
    return None


def _pick(
    prop: dict[str, Any], candidates: list[Any], accepts: Callable[[Any], bool], rng: random.Random, now: Any
) -> Any:
    """The first candidate that both the argument schema and `accepts` take, else one brought inside the
    schema, else one built from the schema; `_NO_VALUE` when none is found."""
    for value in candidates:
        if accepts(value) and schema_accepts(prop, value):
            return value
        digits = as_argument(prop, value)  # a key of digits passed as the integer its argument declares
        if digits is not value and accepts(digits) and schema_accepts(prop, digits):
            return digits
    for value in candidates:
        value = _fit(prop, value, rng)
        if accepts(value) and schema_accepts(prop, value):
            return value
    for _ in range(25):
        value = schema_value(prop, rng, now)
        if accepts(value) and schema_accepts(prop, value):
            return value
    return _NO_VALUE


#: Declared string formats a written value is drawn in (the runtime, like jsonschema, does not assert formats: an
#: end time written "09:15" into a `date-time` argument was taken, and the meeting's end lost its date).
#: jsonschema's `FormatChecker` checks `date-time` only with the optional rfc3339-validator, so not here.
_DATE_FORMATS = {
    "date-time": re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$"),
    "date": re.compile(r"\d{4}-\d{2}-\d{2}$"),
}


def _formatted(prop: dict[str, Any], accepts: Callable[[Any], bool], value: Any) -> bool:
    """`accepts(value)`, and a string value is in the argument's declared `date-time` or `date` format."""
    pattern = _DATE_FORMATS[prop["format"]]
    return accepts(value) and (not isinstance(value, str) or bool(pattern.match(value)))


def _filter_accepts(tspec: dict[str, Any], column: str, op: str, value: Any) -> bool:
    """Whether the runtime takes `value` as the argument of a filter `op` on `column`."""
    cspec = tspec["columns"][column]
    if op == "in":
        return isinstance(value, list) and all(
            v is None or value_problem({"type": cspec["type"]}, v) is None for v in value
        )
    if op == "contains":
        return isinstance(value, str)
    if value is None:
        return is_nullable(tspec, column)
    return value_problem(cspec, value) is None


def _write_accepts(
    env: Environment, rows: dict[str, list[dict]], table: str, column: str, current: Any, value: Any
) -> bool:
    """Whether writing `value` to `column` should succeed: it fits the column, references an existing
    row and keeps unique columns unique."""
    tspec = env.spec["tables"][table]
    cspec = tspec["columns"][column]
    if value is None:
        return is_nullable(tspec, column)
    value = _as_stored(env, table, {column: value})[column]
    if value_problem(cspec, value) is not None:
        return False
    if "references" in cspec:
        ref = cspec["references"]
        return value in [r[env.spec["tables"][ref]["primary_key"]] for r in rows[ref]]
    if cspec.get("unique") or column == tspec["primary_key"]:
        return value == current or value not in [r[column] for r in rows[table]]
    return True


def _as_stored(env: Environment, table: str, values: dict[str, Any]) -> dict[str, Any]:
    """Values as the runtime stores them: an integer argument naming a row kept by digits (a `digits` key) is
    stored as its digits (`14` -> `"14"`), as the key itself is."""
    columns, tables = env.spec["tables"][table]["columns"], env.spec["tables"]
    out = dict(values)
    for column, value in values.items():
        cspec = columns.get(column) or {}
        ref = tables.get(cspec.get("references") or "")
        if (
            ref is not None
            and cspec.get("type") == "string"
            and isinstance(value, int)
            and not isinstance(value, bool)
            and ref["columns"][ref["primary_key"]].get("generator") == "digits"
        ):
            out[column] = str(value)
    return out


def _preconditions_hold(preconditions: list[dict[str, Any]], row: dict[str, Any]) -> bool:
    """Whether a row (as JSON values) passes the preconditions, with the runtime's semantics."""
    return all(PRECONDITION_OPS[c["op"]](row[c["column"]], c["value"]) for c in preconditions)


def filter_value(op: str, value: Any, rng: random.Random) -> Any:
    if op == "in":
        return [value]
    if op == "contains":
        text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, separators=(",", ":"))
        # whole words, as a person types a search ("supply chain"), never a cut ("ply chain delays, as ")
        words = list(_WORD.finditer(text))
        if not words:
            start = rng.randrange(max(1, len(text) // 2))
            return text[start : start + max(1, len(text) // 2)]
        n = max(1, min(3, len(words) // 2))
        start = rng.randrange(len(words) - n + 1)
        return text[words[start].start() : words[start + n - 1].end()]
    return value


def _fresh(env: Environment, table: str, column: str, rng: random.Random) -> Any:
    return column_value(table, column, env.spec["tables"][table]["columns"][column], rng, parse_now(env.spec))


def _dictated_text(
    env: Environment,
    table: str,
    bound: dict[str, str],
    props: dict,
    required: set[str],
    args: dict[str, Any],
    rng: random.Random,
) -> None:
    """A text a call writes is one a person would write, never a stock line of the world's filler (seed 94's readers:
    "add a memory with the text "Used for the Stockholm office."", a playlist's new description "Notes on "Sales
    Playlist" from Richard, last reviewed in August.")."""
    columns = env.spec["tables"][table]["columns"]
    stated = [a for c, a in bound.items() if a in args and not columns.get(c, {}).get("references")]
    for column, arg in bound.items():
        if not stock_text(args.get(arg)) or (len(stated) > 1 and arg not in required):
            # beside other values, an optional stock line stays one: the request leaves it out
            # (`envscale.tasks.arguments`), where a written text would be dictated beside the change meant
            continue
        text = prose_line(rng, parse_now(env.spec))
        if value_problem(columns[column], text) is None and schema_accepts(props.get(arg, {}), text):
            args[arg] = text


def _prose_about_subject(
    env: Environment,
    table: str,
    bound: dict[str, str],
    props: dict[str, Any],
    args: dict[str, Any],
    target: dict[str, Any] | None,
    rng: random.Random,
) -> None:
    """Free text a call writes speaks of its row (`env.data.about_subject`): a new ticket's description reports
    a problem with the title it is given, an edited message's body follows up on the row's subject."""
    tspec = env.spec["tables"][table]
    subject, prose = subject_and_prose(table, tspec)
    if subject is None:
        return
    # an edited row's text speaks of the row as it is: a new title given beside it may be left out of the request
    # (a blind reader: a project "Amsterdam Project" got the notes '"Website Redesign": owned by ...')
    about = target.get(subject) if target is not None else None
    if not isinstance(about, str) or not about.strip():
        about = args.get(bound[subject]) if subject in bound else None
    if not isinstance(about, str) or not about.strip():
        return
    for column in prose:
        arg = bound.get(column)
        if arg is None or not isinstance(args.get(arg), str):
            continue
        text = about_subject(about.strip(), table, rng)
        if value_problem(tspec["columns"][column], text) is None and schema_accepts(props.get(arg, {}), text):
            args[arg] = text


_SALIENT = frozenset(
    "amount total price cost name title date email subject quantity start starts time datetime scheduled lat "
    "latitude lon lng longitude".split()
)
"""Words of the fields a new row is made with whenever its tool takes them: an expense with its amount and date, a
task with its title, an appointment with its time, a spot with both its coordinates (blind readers: "an expense for
customer 7 for user 19 with the category name Books", no amount; seed 89: an appointment with no time)."""
_FULL_NAMES = ("name", "full_name", "fullname", "display_name", "displayname")
_FIRST_NAMES = ("first_name", "firstname", "given_name", "givenname")
_LAST_NAMES = ("last_name", "lastname", "family_name", "familyname", "surname")
_EMAILS = ("email", "email_address", "emailaddress", "primary_email")
_HANDLES = ("username", "user_name", "login", "handle", "user")  # VictorOps keys its users by `user`


def _name_in(row: dict[str, Any] | None) -> tuple[str, str] | None:
    """The first and last name of the person a row is, from its name columns; `None` when it names none."""
    if not row:
        return None
    lower = {c.lower(): v for c, v in row.items()}
    first = next((lower[c] for c in _FIRST_NAMES if isinstance(lower.get(c), str)), None)
    last = next((lower[c] for c in _LAST_NAMES if isinstance(lower.get(c), str)), None)
    if first and last:
        return first, last
    full = next((lower[c] for c in _FULL_NAMES if isinstance(lower.get(c), str)), None)
    words = full.split() if full else []
    if len(words) == 2 and all(w.isalpha() and w[:1].isupper() for w in words):
        return words[0], words[1]
    # a person known by a handle of their name (VictorOps' `user` "jasmine.stewart15", whose last name is not kept)
    handle = next((lower[c] for c in _HANDLES if isinstance(lower.get(c), str)), None)
    parts = re.fullmatch(r"([a-z]{2,})[._]([a-z]{2,})\d*", handle or "")
    if parts and (not isinstance(first, str) or first.lower() == parts[1]):
        return parts[1].capitalize(), parts[2].capitalize()
    return None


def _one_place(
    env: Environment,
    rows: dict[str, list[dict]],
    table: str,
    bound: dict[str, str],
    props: dict[str, Any],
    args: dict[str, Any],
    rng: random.Random,
) -> None:
    """The parts of a place a call writes are one place's: drawn apart, an update set a billing city Lyon in the state
    of Tennessee with the street left in Singapore (seed 92's readers). Where a call writes two parts or more, each is
    of one place, as far as the column and the argument take it."""
    columns = env.spec["tables"][table]["columns"]
    given = {
        c: columns[c] for c, a in bound.items() if a in args and isinstance(args[a], str) and c in columns
    }
    for column, value in one_place_values(
        table, given, rng, parse_now(env.spec)
    ).items():  # none below two parts
        arg = bound[column]
        if _write_accepts(env, rows, table, column, None, value) and schema_accepts(props[arg], value):
            args[arg] = value


def _one_person(
    env: Environment,
    rows: dict[str, list[dict]],
    table: str,
    bound: dict[str, str],
    props: dict[str, Any],
    args: dict[str, Any],
    target: dict[str, Any] | None = None,
) -> None:
    """A person's row is one person: the email address and username a call writes are of the row's own name (an
    update), else of the name it gives, else of the person the new row belongs to (a user's contact email).
    Blind readers: an identity "Bill Ryan" with djohnson@example.net and username eric.kaufman16; a new user
    Martin Everett with username anita.sanchez88 and contact email benjamin.daniels@...; Kristen Smith's email
    changed to erice@example.net."""
    tspec = env.spec["tables"][table]
    arg_of = {c.lower(): a for c, a in bound.items() if a in args}
    columns = {c.lower(): c for c in bound}
    first = next((args[arg_of[c]] for c in _FIRST_NAMES if c in arg_of), None)
    last = next((args[arg_of[c]] for c in _LAST_NAMES if c in arg_of), None)
    full = next((args[arg_of[c]] for c in _FULL_NAMES if c in arg_of), None)
    words = full.split() if isinstance(full, str) else []
    own = _name_in(target)
    if own is not None:
        # an update's person stays who they are (a new name for them is dropped from the request: "renamed_person"),
        # so their new email is of their own name (seed 85: Kristopher Schneider's email changed to cynthia.miranda@)
        first, last = own
    elif len(words) == 2 and all(w.isalpha() and w[:1].isupper() for w in words):
        # the row's name is the person's: its first and last names are of it ("a customer named Jeffrey Holt with
        # lastname Torres", a blind reader)
        first, last = words
        for names, value in ((_FIRST_NAMES, first), (_LAST_NAMES, last)):
            column = next((c for c in names if c in arg_of and isinstance(args[arg_of[c]], str)), None)
            if (
                column
                and _write_accepts(env, rows, table, columns[column], None, value)
                and schema_accepts(props[arg_of[column]], value)
            ):
                args[arg_of[column]] = value
    elif not (isinstance(first, str) and isinstance(last, str)):
        # no name given: the person it belongs to (a user's contact email)
        name = _owner_name(env, rows, tspec, bound, args)
        if name is None:
            return  # a name of a person: two capitalised words ("Bill Ryan"), never "Q3 Planning Board"
        first, last = name
    stem = re.sub(r"[^a-z.]", "", f"{first}.{last}".lower())
    for names, make in ((_EMAILS, lambda n: f"{stem}{n}@example.com"), (_HANDLES, lambda n: f"{stem}{n}")):
        column = next(
            (
                columns[c]
                for c in names
                if c in columns
                and bound[columns[c]] in args
                and "references" not in tspec["columns"][columns[c]]
            ),
            None,
        )
        if column is None or not isinstance(args[bound[column]], str):
            continue
        current = target.get(column) if target else None
        for n in ("", *range(2, 10)):
            value = make(n)
            if (
                value != current
                and _write_accepts(env, rows, table, column, current, value)
                and schema_accepts(props[bound[column]], value)
            ):
                args[bound[column]] = value
                break


def _owner_name(
    env: Environment,
    rows: dict[str, list[dict]],
    tspec: dict[str, Any],
    bound: dict[str, str],
    args: dict[str, Any],
) -> tuple[str, str] | None:
    """The name of the one person a new row references (a contact email's user), where the row names no one."""
    owners = []
    for column, arg in bound.items():
        ref = tspec["columns"][column].get("references")
        if ref and arg in args and ref in rows and person_entity({singular(ref)}):
            pk = env.spec["tables"][ref]["primary_key"]
            row = next((r for r in rows[ref] if r[pk] == args[arg]), None)
            owners.append(_name_in(row))
    return owners[0] if len(owners) == 1 else None


def _new_values(
    env: Environment, rows: dict[str, list[dict]], table: str, column: str, current: Any, rng: random.Random
) -> list[Any]:
    """Candidate values for a written column, best first: existing keys for a reference (other than
    `current` first), else a fresh value (unused for unique columns, not `current`)."""
    cspec = env.spec["tables"][table]["columns"][column]
    if "references" in cspec:
        ref = cspec["references"]
        keys = [r[env.spec["tables"][ref]["primary_key"]] for r in rows[ref]]
        others = [k for k in keys if k != current]
        rng.shuffle(others)
        return others + [k for k in keys if k == current]
    year = parse_now(env.spec).year + 1  # a new edition is next year's
    return [
        *_new_editions(table, column, current, year, rng),
        _new_value(env, rows, table, column, current, rng),
    ]


_OWN_NAME_WORDS = frozenset("name title display subject label".split())
_YEAR_AT_END = re.compile(r"\b(19|20)(\d\d)$")


def _new_editions(table: str, column: str, current: Any, year: int, rng: random.Random) -> list[str]:
    """New names for a thing renamed, best first: a new edition of its own name or title ("Refund Policy 2026" for
    `year` 2026, "Backup Group (old)", "Backup Group - archived", "Win-back September 2026" for "... 2025"). Seed 88's readers found "Parental Leave Policy"
    renamed to "Code of Conduct", a made-up name of another thing. None for a person (never renamed so) or for a
    column that is not the row's own name."""
    words = [w for w in tokens(column) if w not in _OWN_NAME_WORDS]
    own = {singular(w) for w in tokens(table)}
    if not isinstance(current, str) or not (3 <= len(current) <= 60) or not current[:1].isalpha():
        return []
    if len(words) == len(tokens(column)) or not all(singular(w) in own for w in words):
        return []  # not a name (`label`, `notes`), or another thing's name (`owner_name`)
    if person_entity({singular(table).split("_")[-1]}):
        return []
    dated = _YEAR_AT_END.search(current)  # never `year` again: "Contractors None" (seed 92's readers)
    if dated:
        return [f"{current[: dated.start()]}{int(dated.group(0)) + 1}"]
    # what people rename a thing to when they replace or retire it; "Regional Managers v2" read as a generator's
    # (both seed-93 readers)
    editions = [f"{current} {year}", f"{current} (old)", f"{current} - archived"]
    rng.shuffle(editions)
    return editions


def _new_value(
    env: Environment, rows: dict[str, list[dict]], table: str, column: str, current: Any, rng: random.Random
) -> Any:
    """A fresh value for a written column that is not a reference: unused for unique columns, not `current`."""
    tspec = env.spec["tables"][table]
    cspec = tspec["columns"][column]
    # a list, not a set: json columns hold unhashable values (only unique and key columns are filled)
    taken = [r[column] for r in rows[table]] if cspec.get("unique") or column == tspec["primary_key"] else []
    if column == tspec["primary_key"]:
        if cspec["type"] == "integer":
            return max(taken, default=0) + 1 + rng.randrange(1000)
        fmt = env.key_formats[table]
        if fmt.kind in ("name", "uuid"):  # a new resource's name reads like the others (`vault-data-dev-23`)
            return fmt.make(max(map(fmt.serial, taken), default=0) + 1 + rng.randrange(90))
        return f"{id_prefix(table)}_new_{rng.randrange(10**6)}"
    value = current
    for _ in range(20):
        value = _fresh(env, table, column, rng)
        if value != current and value not in taken and not _barely_moves(current, value):
            return value
    if isinstance(value, str):
        return f"{value} {rng.randrange(10**6)}"
    return value


def _barely_moves(current: Any, value: Any) -> bool:
    """Whether a new number is within 5% of the one it replaces: seed 94's readers found a travel time changed from
    184 to 185 minutes ("nobody would change a value by 1 minute this way")."""
    numbers = [v for v in (current, value) if isinstance(v, int | float) and not isinstance(v, bool)]
    return len(numbers) == 2 and abs(value - current) < 0.05 * abs(current)


def _fit(prop: dict[str, Any], value: Any, rng: random.Random) -> Any:
    """Bring a value inside an argument schema's `enum`, integer type, numeric bounds and string lengths."""
    if isinstance(prop.get("enum"), list) and prop["enum"] and value not in prop["enum"]:
        return rng.choice(prop["enum"])
    if isinstance(value, int | float) and not isinstance(value, bool):
        kinds = prop.get("type") if isinstance(prop.get("type"), list) else [prop.get("type")]
        if "integer" in kinds and "number" not in kinds and isinstance(value, float) and math.isfinite(value):
            value = round(value)
        for bound, pick in (("minimum", max), ("maximum", min)):
            if isinstance(prop.get(bound), int | float) and not isinstance(prop[bound], bool):
                value = pick(prop[bound], value)
    if isinstance(value, str):
        if isinstance(prop.get("maxLength"), int):
            value = value[: prop["maxLength"]]
        if isinstance(prop.get("minLength"), int) and len(value) < prop["minLength"]:
            value = value + "x" * (prop["minLength"] - len(value))
    return value


def _check_write(
    env: Environment,
    tool: dict[str, Any],
    args: dict[str, Any],
    rows: dict[str, list[dict]],
    result: Any,
    changes: dict,
) -> list[str]:
    """Problems with what a successful write changed, compared with what its operation declares.

    Columns bound to arguments and literals are predicted exactly; columns computed by an
    expression (1.1: the clock, the session, arithmetic) are taken as the runtime wrote them. The
    tables of the operation's `effects` may change too, by at most the rows the effects write
    (`undeclared_changes`); when an effect writes the main table, that table is held to the same
    bound instead of an exact count. No other table may change.
    """
    op = tool["operation"]
    table, otype = op["table"], op["type"]
    pk = env.spec["tables"][table]["primary_key"]
    call = _text(args)
    effect_tables = {e.get("table") for e in op.get("effects", []) if isinstance(e, dict)}
    strict = table not in effect_tables  # then the operation's table is held to its exact change below
    undeclared = undeclared_changes(op, {t: c for t, c in changes.items() if not (strict and t == table)})
    if undeclared:
        return [f"{otype} {call} changed {undeclared}"]
    change = changes.get(table, {"added": [], "removed": [], "changed": []})
    counts = (len(change["added"]), len(change["removed"]), len(change["changed"]))
    if otype == "insert":
        if (strict and counts != (1, 0, 0)) or not change["added"]:
            return [f"insert {call} should add exactly one {table} row, changed {_text(change)}"]
        declared, _ = _declared(op.get("values", {}), args)
        expected = {**op.get("defaults", {}), **_as_stored(env, table, declared)}
        row = next(
            (r for r in change["added"] if all(r[c] == v for c, v in expected.items())), change["added"][0]
        )
        wrong = {c: row[c] for c, v in expected.items() if row[c] != v}
        if wrong:
            return [f"insert {call} stored {_text(wrong)}, expected {_text({c: expected[c] for c in wrong})}"]
    elif otype == "update":
        key = _key_values(env, op, args)
        before = (
            next((r for r in rows[table] if all(r[c] == v for c, v in key.items())), None)
            if key is not None
            else None
        )
        if before is None:  # addressed through an expression that cannot be followed here
            return []
        declared, computed = _declared(op.get("set", {}), args)
        after = {**before, **op.get("fixed", {}), **_as_stored(env, table, declared)}
        mine = next((c for c in change["changed"] if c["key"] == before[pk]), None)
        if after == before and (counts == (0, 0, 0) or (not strict and mine is None)):
            return []
        if (strict and counts != (0, 0, 1)) or mine is None:
            return [f"update {call} should change exactly the addressed {table} row, changed {_text(change)}"]
        row = mine["after"]
        after.update({c: row[c] for c in computed})
        if row != after:
            return [f"update {call} left the row as {_text(row)}, expected {_text(after)}"]
    else:
        key = _key_values(env, op, args) or {}
        removed = [r for r in change["removed"] if all(r[c] == v for c, v in key.items())]
        if (strict and counts != (0, 1, 0)) or not removed:
            return [f"delete {call} should remove exactly the addressed {table} row, changed {_text(change)}"]
        row = removed[0]
    if op.get("returns", "none" if otype == "delete" else "row") == "row" and result != row:
        return [f"{otype} {call} returned {_text(result)}, not the row {_text(row)}"]
    return []


_ROW_CHANGES = {"insert": "added", "update": "changed", "delete": "removed"}
"""The row change (`Environment.diff`) each kind of write makes."""


def undeclared_changes(operation: dict[str, Any], changes: dict[str, dict[str, list]]) -> str | None:
    """What a write's `changes` (`Environment.diff`) hold beyond what its operation and effects declare,
    or `None`: a table none of them writes (`other tables: ...`), or more rows of a table added,
    removed or changed than its writes there make (each insert adds one row, each update changes
    one, each delete removes one, an effect with `where` any number; a row deleted and inserted again
    under its key reads as changed).
    """
    declared: Counter = Counter()
    for write in [operation, *(e for e in operation.get("effects", []) if isinstance(e, dict))]:
        if write.get("type") in _ROW_CHANGES:  # an effect with `where` writes every matching row
            declared[write.get("table"), _ROW_CHANGES[write["type"]]] += math.inf if "where" in write else 1
    other = sorted(t for t in changes if not any(declared[t, kind] for kind in _ROW_CHANGES.values()))
    if other:
        return f"other tables: {', '.join(other)}"
    for table, change in sorted(changes.items()):
        for kind in ("added", "removed", "changed"):
            allowed = declared[table, kind]
            if kind == "changed":
                allowed += min(declared[table, "added"], declared[table, "removed"])
            if len(change[kind]) > allowed:
                return (
                    f"{table} beyond its writes: {len(change[kind])} rows {kind}, "
                    f"where its operation and effects make at most {allowed}"
                )
    return None


def _declared(bindings: dict[str, Any], args: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    """The values a write declares for its columns (given arguments, literals) and the columns it
    computes (other expressions, and `{arg}` bindings of arguments left out), not predicted here."""
    declared: dict[str, Any] = {}
    computed: set[str] = set()
    for column, binding in bindings.items():
        arg = _binding_arg(binding)
        if arg is not None and arg in args:
            declared[column] = args[arg]
        elif isinstance(binding, dict) and len(binding) == 1 and "value" in binding:
            declared[column] = binding["value"]
        elif not isinstance(binding, str):  # a bare name whose argument is left out leaves the column alone
            computed.add(column)
    return declared, computed


def _key_values(env: Environment, op: dict[str, Any], args: dict[str, Any]) -> dict[str, Any] | None:
    """The key values a call addresses: from its arguments, literals or the session (1.1); `None` when
    another expression computes them."""
    key: dict[str, Any] = {}
    for column, binding in op["key"].items():
        arg = _binding_arg(binding)
        if arg is not None:
            key[column] = args.get(arg)
        elif isinstance(binding, dict) and "value" in binding:
            key[column] = binding["value"]
        elif isinstance(binding, dict) and "session" in binding and (session := env.session()) is not None:
            key[column] = session.get(binding["session"])
        else:
            return None
    return key


def _wrong_typed(tool: dict[str, Any], valid: dict[str, Any]) -> dict[str, Any]:
    """The valid call with one argument replaced by a value of a type its schema rejects (or an extra argument)."""
    params = tool["parameters"]
    validator = jsonschema.validators.validator_for(params)(params)
    for arg in sorted(params.get("properties", {}), key=lambda a: a not in valid):
        for value in _WRONG_TYPED:
            candidate = {**valid, arg: value}
            if not validator.is_valid(candidate):
                return candidate
    return {**valid, "unexpected_argument": 1}


def _text(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 200 else text[:197] + "..."


# ---------------------------------------------------------------------------------------------
# Semantic checks: each tool against the meaning of its name


_INCONCLUSIVE = "inconclusive"
"""What a per-call check returns when the call tells nothing (an update that had nothing to change)."""


def _semantic_check(
    env: Environment,
    tool: dict[str, Any],
    rows: dict[str, list[dict]],
    calls: list[_Call],
    rng: random.Random,
    n: int,
) -> dict[str, Any]:
    """The semantic verdict of one tool: `{"effect", "passed", "reason", "notes", "check"}`, judged from
    the successful valid `calls` (and, for reads, `n` calls with values from the entity's rows).

    `check` names the problem to report when the tool fails, `None` when the failure is already a
    mechanical problem (no valid call succeeded, so there is nothing to judge).
    """
    name = _original_name(tool)
    meaning = _meaning_of(tool)
    effect = meaning.effect
    verdict: dict[str, Any] = {
        "effect": effect,
        "passed": False,
        "reason": None,
        "notes": [],
        "check": f"semantic:{effect}",
    }
    if effect == "computation":
        why = (
            computation_reason(name, tool.get("description") or "", tool.get("parameters"))
            or meaning.evidence
        )
        verdict["reason"] = f"a pure computation ({why}), with no place in a state-backed environment"
        return verdict
    if not calls:
        verdict.update(reason="not checked: no valid call succeeded", check=None)
        return verdict
    spec_tables = env.spec["tables"]
    tables = _entity_tables(meaning, name, spec_tables)
    own = (tool.get("operation") or {}).get("table")
    if (
        meaning.entity
        and own in spec_tables
        and own not in tables
        and singular(own).endswith(f"_{meaning.entity}")
    ):
        # the route qualified its resource (`external_accounts` beside `accounts`, `fax_receipts` beside
        # `sms_receipts`, see `materialize.infer.qualify_entities`): the tool's own table is the one named
        tables = [own, *tables]
    if not tables and effect != "read":
        verdict["notes"].append(
            f"no table is named for {meaning.entity or 'its entity'!r}; a change to any table counts"
        )
    if effect == "read":
        reason = _check_read(env, tool, meaning, tables, rows, calls, rng, n, verdict["notes"])
    else:
        check = {
            "create": _check_create,
            "update": _check_update,
            "delete": _check_delete,
            "status": _check_status,
        }[effect]
        scope = tables or sorted(spec_tables)
        results = [check(env.spec, tool, meaning, scope, call) for call in calls]
        reason = next((r for r in results if r is not None and r != _INCONCLUSIVE), None)
        if reason is None and results and all(r == _INCONCLUSIVE for r in results):
            if effect == "update":
                reason = f"none of {len(calls)} valid calls changed a row (an update verb changes one)"
            else:
                verdict["notes"].append("every addressed row already had the status: nothing to judge")
    verdict.update(passed=reason is None, reason=reason)
    return verdict


def _original_name(tool: dict[str, Any]) -> str:
    meta = tool.get("metadata") if isinstance(tool.get("metadata"), dict) else {}
    original = meta.get("original_name")
    return original if isinstance(original, str) and original else tool["name"]


def _meaning_of(tool: dict[str, Any]) -> ToolMeaning:
    """The meaning of a tool's original name (what the API called it, not the sanitised name)."""
    meta = tool.get("metadata") if isinstance(tool.get("metadata"), dict) else {}
    annotations = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else None
    return tool_meaning(
        _original_name(tool), tool.get("description") or "", tool.get("parameters"), annotations
    )


def _named(noun: str, tables: dict[str, Any]) -> list[str]:
    """Tables named for `noun`: `order` -> `orders` (or `order`)."""
    return [t for t in tables if t in (noun, plural(noun)) or singular(t) == noun]


def _entity_tables(meaning: ToolMeaning, name: str, tables: dict[str, Any]) -> list[str]:
    """The tables whose rows a tool's name says it acts on, best first; `[]` when none is named.

    The entity's table (`orders` for `cancel_order`); tables named by a run of the name's words
    holding the entity (`order_items` for `add_order_item`, `parent_entity` tables); for a name with
    a container (`remove_stock_from_watchlist`), the tables of rows belonging to the container's table
    (`watchlist_items` referencing `watchlists`); else the parent's table (`customers` for
    `update_customer_email`, whose entity is the email).
    """
    found: list[str] = []
    words = [singular(w) for w in tokens(name)][:12]
    if meaning.entity:
        entity = f"_{meaning.entity}_"
        found += _named(meaning.entity, tables)
        if meaning.parent:
            found += _named(f"{meaning.parent}_{meaning.entity}", tables)
        for i in range(len(words)):
            for j in range(i + 1, len(words) + 1):
                run = "_".join(words[i:j])
                if entity in f"_{run}_":
                    found += _named(run, tables)
        if found and any(w in _PREPOSITIONS for w in words):
            found += [
                t
                for t, tspec in tables.items()
                if entity in f"_{singular(t)}_"
                and any(c.get("references") in found for c in tspec["columns"].values())
            ]
    if not found and meaning.parent:
        found += _named(meaning.parent, tables)
    return list(dict.fromkeys(found))


def _norm(value: Any) -> str:
    """A status value compared loosely: `Cancelled`, `cancelled` and `CANCELLED` are one."""
    return "_".join(tokens(str(value)))


def _status_like(column: str, cspec: dict[str, Any]) -> bool:
    """Whether a column holds a row's status: named so (`status`, `order_state`), an enum of status
    values, or a boolean flag named for one (`archived`, `is_active`)."""
    words = set(tokens(column))
    if cspec["type"] == "boolean":
        return bool(words & _FLAG_WORDS)
    if words & _STATUS_WORDS:
        return True
    return any(_norm(v) in _FLAG_WORDS for v in cspec.get("enum") or [])


def _is_value(value: Any, wanted: set[str]) -> bool:
    """Whether a status value is one of `wanted` (`"Cancelled by customer"` is `cancelled`)."""
    return isinstance(value, str) and (_norm(value) in wanted or bool(set(tokens(value)) & wanted))


def _changed_rows(changes: dict, tables: list[str]) -> list[tuple[str, dict]]:
    return [(t, change) for t in tables for change in changes.get(t, {}).get("changed", [])]


def _with_rows(changes: dict, kind: str, scope: list[str] | None = None) -> list[str]:
    """The tables (of `scope`, when given) where `changes` has rows `added`/`removed`/`changed`."""
    return sorted(t for t, c in changes.items() if c.get(kind) and (scope is None or t in scope))


def _summary(changes: dict) -> str:
    """`orders: 1 added, 1 changed`, for reasons."""
    parts = []
    for table, change in sorted(changes.items()):
        counts = [f"{len(change[k])} {k}" for k in ("added", "removed", "changed") if change.get(k)]
        parts.append(f"{table}: {', '.join(counts)}")
    return "; ".join(parts) or "no change"


def _check_create(
    spec: dict[str, Any], tool: dict[str, Any], meaning: ToolMeaning, scope: list[str], call: _Call
) -> str | None:
    added = _with_rows(call.changes, "added")
    if set(added) & set(scope):
        return None
    if added:
        return (
            f"{tool['name']} {_text(call.args)} added a row to {', '.join(added)}, not to "
            f"{' or '.join(scope)} (a {meaning.verb!r} of {meaning.entity!r})"
        )
    return (
        f"{tool['name']} {_text(call.args)} added no row (a {meaning.verb!r} verb adds one to "
        f"{' or '.join(scope)}); it changed {_summary(call.changes)}"
    )


def _check_update(
    spec: dict[str, Any], tool: dict[str, Any], meaning: ToolMeaning, scope: list[str], call: _Call
) -> str | None:
    # rows of other tables may come and go (1.1 effects: a withdrawal records a transaction)
    if _with_rows(call.changes, "added", scope) or _with_rows(call.changes, "removed", scope):
        return (
            f"{tool['name']} {_text(call.args)} added or removed rows ({_summary(call.changes)}); "
            f"an {meaning.verb!r} verb changes an existing row"
        )
    if _changed_rows(call.changes, scope):
        return None
    if call.changes:
        return (
            f"{tool['name']} {_text(call.args)} changed {', '.join(sorted(call.changes))}, not "
            f"{' or '.join(scope)} (an {meaning.verb!r} of {meaning.entity!r})"
        )
    return _INCONCLUSIVE


def _retired(spec: dict[str, Any], table: str, change: dict) -> bool:
    """Whether a changed row was retired: a status set to a retired value, a `deleted`/`archived`
    flag set or an `active` flag unset."""
    for column, cspec in spec["tables"][table]["columns"].items():
        before, after = change["before"][column], change["after"][column]
        if before == after or not _status_like(column, cspec):
            continue
        if cspec["type"] == "boolean":
            if any(_RETIRED_FLAGS.get(w) is after for w in tokens(column)):
                return True
        elif _is_value(after, set(RETIRED_STATUSES)):
            return True
    return False


def _unlinked(spec: dict[str, Any], table: str, change: dict) -> bool:
    """Whether a changed row was taken from the row it referenced: a reference column cleared."""
    return any(
        cspec.get("references") and change["before"][column] is not None and change["after"][column] is None
        for column, cspec in spec["tables"][table]["columns"].items()
    )


def _unset(cspec: dict[str, Any], value: Any) -> Any:
    """A value other than `value` for a column, to ask whether `value` itself is a retired one."""
    return (not value) if cspec["type"] == "boolean" and isinstance(value, bool) else None


def _check_delete(
    spec: dict[str, Any], tool: dict[str, Any], meaning: ToolMeaning, scope: list[str], call: _Call
) -> str | None:
    added = _with_rows(call.changes, "added", scope)
    if added:
        return (
            f"{tool['name']} {_text(call.args)} added a row to {', '.join(added)}; a {meaning.verb!r} "
            "verb removes or retires one and adds none"
        )
    if set(_with_rows(call.changes, "removed")) & set(scope):
        return None
    if any(_retired(spec, t, change) for t, change in _changed_rows(call.changes, scope)):
        return None
    if any(_unlinked(spec, t, change) for t, change in _changed_rows(call.changes, scope)):
        return None  # `DELETE /tags/{tag_id}/shows/{show_id}`: the show is untagged, and stays
    table = (tool.get("operation") or {}).get("table")
    if call.target is not None and table in scope:
        before = {c: _unset(spec["tables"][table]["columns"][c], v) for c, v in call.target.items()}
        if _retired(spec, table, {"before": before, "after": call.target}):
            return _INCONCLUSIVE  # the row was retired already: nothing to change
    return (
        f"{tool['name']} {_text(call.args)} neither removed nor retired a row of {' or '.join(scope)} "
        f"(a retired status is one of {', '.join(sorted(RETIRED_STATUSES))}); it changed "
        f"{_summary(call.changes)}"
    )


def _check_status(
    spec: dict[str, Any], tool: dict[str, Any], meaning: ToolMeaning, scope: list[str], call: _Call
) -> str | None:
    added = _with_rows(call.changes, "added", scope)
    if added:
        return (
            f"{tool['name']} {_text(call.args)} added a row to {', '.join(added)}; a {meaning.verb!r} "
            "verb moves an existing row to another status"
        )
    wanted = {_norm(v) for v in meaning.status_value}
    wrong = None
    for table, change in _changed_rows(call.changes, scope):
        for column, cspec in spec["tables"][table]["columns"].items():
            before, after = change["before"][column], change["after"][column]
            if before == after or not _status_like(column, cspec):
                continue
            enum = {_norm(v) for v in cspec.get("enum") or []}
            if cspec["type"] == "boolean" or _is_value(after, wanted) or (enum and not enum & wanted):
                return None
            wrong = wrong or (
                f"{tool['name']} {_text(call.args)} set {table}.{column} to {after!r} (from {before!r}), "
                f"not to {' or '.join(meaning.status_value)} (a {meaning.verb!r} verb)"
            )
    if wrong:
        return wrong
    table = (tool.get("operation") or {}).get("table")
    if call.target is not None and table in scope:
        columns = spec["tables"][table]["columns"]
        if any(
            _status_like(c, columns[c]) and _is_value(v, wanted)
            for c, v in call.target.items()
            if c in columns
        ):
            return _INCONCLUSIVE  # the row already had the status: nothing to change
    return (
        f"{tool['name']} {_text(call.args)} changed no status-like column of a {' or '.join(scope)} row "
        f"to {' or '.join(meaning.status_value)}; it changed {_summary(call.changes)}"
    )


def _check_read(
    env: Environment,
    tool: dict[str, Any],
    meaning: ToolMeaning,
    tables: list[str],
    rows: dict[str, list[dict]],
    calls: list[_Call],
    rng: random.Random,
    n: int,
    notes: list[str],
) -> str | None:
    """Why a read-verb tool fails: it changed the state, or called with values taken from a row of its
    entity's table (the key of a `get_order`, the filter values of a `list_orders`) it found nothing."""
    name = tool["name"]
    for call in calls:
        if call.changes:
            return f"{name} {_text(call.args)} changed the state ({_summary(call.changes)}); a read changes nothing"
    op_table = (tool.get("operation") or {}).get("table")
    source = op_table if op_table in tables or not tables else tables[0]
    if source not in env.spec["tables"] or not rows.get(source):
        notes.append(f"finding not checked: no row of {source or 'its entity'} to look for")
        return None
    tspec = env.spec["tables"][source]
    params = tool["parameters"]
    props, required = params.get("properties", {}), set(params.get("required", []))
    fill: dict[str, str] = {}
    extra: dict[str, Any] = {}
    meta = tool.get("metadata") if isinstance(tool.get("metadata"), dict) else {}
    route = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
    for arg, schema in props.items():
        role = argument_role(arg, schema, entity=meaning.entity)
        column = _arg_column(arg, role, tspec) if role != "pagination" else None
        parent = route_parent_column(route.get("path"), arg)  # `/users/{id}/transactions`: `id` is user_id
        if parent in tspec["columns"]:
            column = parent
        if column is not None:
            fill[arg] = column
        elif arg in required:
            if role in ("pagination", "option") and arg in calls[0].args:
                extra[arg] = calls[0].args[arg]  # a page size or format does not choose rows
            else:
                notes.append(f"finding not checked: required argument {arg!r} names no column of {source}")
                return None

    def value(arg: str, row: dict[str, Any]) -> Any:
        digits = tspec["columns"][fill[arg]]["type"] == "string"  # an integer argument of a digits key
        for candidate in (
            row[fill[arg]],
            [row[fill[arg]]],
            *([as_argument(props[arg], row[fill[arg]])] if digits else []),
        ):
            if row[fill[arg]] is not None and schema_accepts(props[arg], candidate):
                return candidate
        return _NO_VALUE

    candidates = [r for r in rows[source] if all(value(a, r) is not _NO_VALUE for a in fill if a in required)]
    if not candidates:
        notes.append(f"finding not checked: no {source} row has values its required arguments accept")
        return None
    if op_table == source:
        candidates = kept_by_fixed_filters(env.spec, tool.get("operation") or {}, candidates)
        if not candidates:
            notes.append(f"finding not checked: no {source} row is one its fixed filters keep")
            return None
    validator = jsonschema.validators.validator_for(params)(params)
    pk = tspec["primary_key"]
    env.reset()
    for _ in range(n):
        row = rng.choice(candidates)
        args = {a: v for a in fill if (v := value(a, row)) is not _NO_VALUE} | extra
        if not validator.is_valid(args):
            notes.append(
                f"finding not checked: {_text(args)} from {source} row {row[pk]!r} breaks its schema"
            )
            return None
        before = env.state_hash()
        obs = env.step(name, args)
        where = f"with values of {source} row {row[pk]!r}"
        if not obs["ok"]:
            return f"{name} {_text(args)} ({where}) failed: [{obs['code']}] {obs['error']}"
        if env.state_hash() != before:
            return f"{name} {_text(args)} ({where}) changed the state; a read changes nothing"
        if not _finds(env, obs, row, pk, paged=bool(extra)):
            return f"{name} {_text(args)} ({where}) found nothing: {_text(obs['result'])}"
    return None


def kept_by_fixed_filters(spec: dict[str, Any], op: dict[str, Any], rows: list[dict]) -> list[dict]:
    """The rows a read's always-applied filters keep (`published = true`, `start_time >= now` for
    `getUpcomingWebinars`): a row they leave out is not one the read should find.

    Example:
        >>> op = {"filters": [{"column": "published", "op": "eq", "value": {"value": True}}]}
        >>> kept_by_fixed_filters({}, op, [{"published": True}, {"published": False}])
        [{'published': True}]
    """
    now = parse_now(spec)
    clock = {"datetime": now.strftime("%Y-%m-%dT%H:%M:%SZ"), "date": now.date().isoformat()}
    for flt in op.get("filters") or []:
        expr = flt.get("value")
        if not isinstance(expr, dict):
            continue
        if "value" in expr:
            literal = expr["value"]
        elif expr.get("now") in clock:
            literal = clock[expr["now"]]
        else:
            continue  # a computed value: not told here
        test = PRECONDITION_OPS[flt.get("op", "eq")]
        rows = [r for r in rows if r.get(flt["column"]) is not None and test(r[flt["column"]], literal)]
    return rows


def as_argument(schema: Any, value: Any) -> Any:
    """A stored value as a tool's argument: a key of digits (`"14"`) as the integer an argument declared
    `integer` passes (`14`; the runtime stores it back as its digits), any other value unchanged."""
    if (
        isinstance(value, str)
        and value.isdigit()
        and isinstance(schema, dict)
        and schema.get("type") == "integer"
    ):
        return int(value)
    return value


def _arg_column(arg: str, role: str, tspec: dict[str, Any]) -> str | None:
    """The column of a table an argument names: itself or its snake_case form (whatever its role: a
    `unit` may be an option in general but is a column here), or the primary key for a key argument
    (`id`, `order_id` of `get_order`)."""
    columns = tspec["columns"]
    snake = "_".join(tokens(arg))
    for column in (arg, snake):
        if column in columns:
            return column
    if role == "key" or arg.lower() in ("id", "uuid"):
        return tspec["primary_key"]
    return None


def _finds(env: Environment, obs: dict[str, Any], row: dict[str, Any], pk: str, *, paged: bool) -> bool:
    """Whether a read's result holds what it was asked for: a row, a count of at least one, a list
    holding `row` (or, when cut by a page size or the row limit, not empty)."""
    result = obs["result"]
    if result is None or isinstance(result, bool):
        return bool(result)
    if isinstance(result, int | float):
        return result >= 1
    if isinstance(result, list):
        if not result:
            return False
        if paged or obs.get("truncated") or len(result) >= env.max_rows:
            return True
        if all(isinstance(r, dict) and pk in r for r in result):
            return any(r[pk] == row[pk] for r in result)
        return True
    return bool(result) if isinstance(result, dict | str) else True
