"""Check that an environment spec is executable and that its tools do what they declare.

`verify` validates the spec, builds its initial state, then exercises every tool from that state
with generated valid calls (keys and filter values taken from existing rows, fresh values for
inserts and updates) and one call with an argument of the wrong type, and reports every problem:

- a valid call that returns an error, or a result that does not match the tool's `output_schema`;
- a read that changes the state hash;
- a write that changes anything but what it declares: an insert must add exactly one row of its
  table holding the given values, an update must change exactly the addressed row as declared, a
  delete must remove exactly the addressed row;
- an invalid call that does not fail, or fails but changes the state.

Example:

```python
>>> from envscale.env import load_spec, verify
>>> spec = load_spec("tests/fixtures/envs/shop.yaml")
>>> verify(spec)
[]
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
from collections.abc import Callable
from typing import Any

import jsonschema

from envscale.env.data import column_value, id_prefix, parse_now, schema_accepts, schema_value
from envscale.env.runtime import PRECONDITION_OPS, Environment
from envscale.env.spec import SpecError, is_nullable, validate_spec, value_problem

_WRONG_TYPED = [12345, "not-a-valid-value", [1, 2], {"unexpected": 1}, True, None]


_NO_VALUE = object()
"""What `_pick` returns when no value satisfies an argument's schema."""


class _CannotCall(Exception):
    """No valid call can be built for a tool from the current state."""


def verify(spec: dict[str, Any], *, seed: int = 0, calls_per_tool: int = 3) -> list[dict[str, Any]]:
    """Verify an environment spec by exercising every tool.

    Args:
        spec (`dict`): The environment spec.
        seed (`int`, *optional*, defaults to 0): Seed of the generated calls.
        calls_per_tool (`int`, *optional*, defaults to 3): Valid calls per tool, each from the
            initial state.

    Returns:
        `list[dict]`: Problems `{"tool": name or None, "reason": str}`; empty when the spec passed.
    """
    try:
        validate_spec(spec)
    except SpecError as exc:
        return [{"tool": exc.tool, "reason": f"invalid spec: {exc}"}]
    try:
        env = Environment(spec)
    except Exception as exc:  # any failure to build is this spec's problem, reported with its cause
        return [{"tool": None, "reason": f"initial state does not build: {type(exc).__name__}: {exc}"}]
    problems = []
    rng = random.Random(seed)
    with env:
        rows = env.dump()
        for tool in spec["tools"]:
            try:
                reasons = _exercise(env, tool, rows, rng, calls_per_tool)
            except Exception as exc:  # a crash while verifying one tool is reported, not raised
                reasons = [f"verification crashed: {type(exc).__name__}: {exc}"]
            problems.extend({"tool": tool["name"], "reason": reason} for reason in reasons)
    return problems


def _exercise(
    env: Environment, tool: dict[str, Any], rows: dict[str, list[dict]], rng: random.Random, calls: int
) -> list[str]:
    """Problems found by `calls` valid calls and one wrong-typed call of `tool`, each from the initial state."""
    name, output = tool["name"], tool.get("output_schema")
    output_validator = jsonschema.validators.validator_for(output)(output) if output is not None else None
    problems: list[str] = []
    args: dict[str, Any] = {}
    for _ in range(calls):
        env.reset()
        try:
            args = _valid_call(env, tool, rows, rng)
        except _CannotCall as exc:
            return [f"cannot be exercised: {exc}"]
        before, before_hash = env.snapshot(), env.state_hash()
        obs = env.step(name, args)
        if not obs["ok"]:
            problems.append(f"valid call {_text(args)} failed: [{obs['code']}] {obs['error']}")
            continue
        if output_validator is not None:
            error = jsonschema.exceptions.best_match(output_validator.iter_errors(obs["result"]))
            if error is not None:
                problems.append(f"result of {_text(args)} does not match output_schema: {error.message}")
        changes = env.diff(before)
        if tool["kind"] == "read":
            if env.state_hash() != before_hash or changes:
                problems.append(f"read call {_text(args)} changed the state: {_text(changes)}")
        else:
            problems.extend(_check_write(env, tool, args, rows, obs["result"], changes))
    env.reset()
    before_hash = env.state_hash()
    bad = _wrong_typed(tool, args)
    obs = env.step(name, bad)
    if obs["ok"]:
        problems.append(f"invalid call {_text(bad)} succeeded: {_text(obs['result'])}")
    elif obs["code"] != "invalid_arguments":
        problems.append(
            f"invalid call {_text(bad)} failed with [{obs['code']}] {obs['error']}, not invalid_arguments"
        )
    if env.state_hash() != before_hash:
        problems.append(f"invalid call {_text(bad)} failed but changed the state")
    return problems


def _valid_call(
    env: Environment, tool: dict[str, Any], rows: dict[str, list[dict]], rng: random.Random
) -> dict[str, Any]:
    """Arguments that the tool should accept: keys of rows that exist, fresh values for new data.

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
        candidates = [r for r in rows[table] if _preconditions_hold(op.get("preconditions", []), r)]
        if op["type"] == "delete":
            referenced = {
                child_row[column]
                for child, cspec in tables.items()
                for column, col in cspec["columns"].items()
                if col.get("references") == table
                for child_row in rows[child]
                if child_row[column] is not None
            }
            candidates = [r for r in candidates if r[tspec["primary_key"]] not in referenced]
        if not candidates:
            raise _CannotCall(
                f"no row of {table} can be addressed (all fail the preconditions or are referenced)"
            )
        addressable = [
            r for r in candidates if all(schema_accepts(props[a], r[c]) for c, a in op["key"].items())
        ]
        if not addressable:
            raise _CannotCall(
                f"no addressable row of {table} has a key that the key argument(s) accept: "
                f"{_text({a: props[a] for a in op['key'].values()})}"
            )
        target = rng.choice(addressable)
        args.update({arg: target[column] for column, arg in op["key"].items()})
    else:
        target = rng.choice(rows[table]) if rows[table] else None
    for flt in op.get("filters", []):
        arg, column, fop = flt["arg"], flt["column"], flt.get("op", "eq")
        if arg in args or (arg not in required and rng.random() < 0.5):
            continue
        existing = [r[column] for r in rng.sample(rows[table], min(5, len(rows[table])))]
        if target is not None:
            existing.insert(0, target[column])
        values = [_filter_value(fop, v, rng) for v in existing if v is not None]
        accepts = functools.partial(_filter_accepts, tspec, column, fop)
        put(arg, values, accepts, f"filter {fop} on {table}.{column}")
    if op.get("limit_arg"):
        prop = props[op["limit_arg"]]
        limit = max(prop.get("minimum", 1), min(prop.get("maximum", 5), rng.randint(1, 5)))
        put(op["limit_arg"], [limit], lambda v: True, "limit")
    bound = {**op.get("values", {}), **op.get("set", {})}
    chosen = [c for c, a in bound.items() if a in required or rng.random() < 0.7]
    if op["type"] == "update" and not chosen and bound and not op.get("fixed"):
        chosen = [rng.choice(sorted(bound))]
    # an update must change something: when no chosen column got a value, try the others
    must_set = op["type"] == "update" and bool(bound) and not op.get("fixed")
    spare = sorted(set(bound) - set(chosen)) if must_set else []
    for column in chosen + spare:
        if column not in chosen and set(bound.values()) & set(args):
            break
        current = target[column] if op["type"] == "update" else None
        accepts = functools.partial(_write_accepts, env, rows, table, column, current)
        put(bound[column], _new_values(env, rows, table, column, current, rng), accepts, f"{table}.{column}")
    if must_set and not set(bound.values()) & set(args):
        raise _CannotCall(f"no argument of set {_text(op['set'])} can be given a value its schema accepts")
    for arg in sorted(required - set(args)):
        put(arg, [], lambda v: True, "not bound to a column")
    error = jsonschema.exceptions.best_match(
        jsonschema.validators.validator_for(params)(params).iter_errors(args)
    )
    if error is not None:
        raise _CannotCall(f"generated arguments {_text(args)} do not match the parameters: {error.message}")
    return args


def _pick(
    prop: dict[str, Any], candidates: list[Any], accepts: Callable[[Any], bool], rng: random.Random, now: Any
) -> Any:
    """The first candidate that both the argument schema and `accepts` take, else one brought inside the
    schema, else one built from the schema; `_NO_VALUE` when none is found."""
    for value in candidates:
        if accepts(value) and schema_accepts(prop, value):
            return value
    for value in candidates:
        value = _fit(prop, value, rng)
        if accepts(value) and schema_accepts(prop, value):
            return value
    for _ in range(25):
        value = schema_value(prop, rng, now)
        if accepts(value) and schema_accepts(prop, value):
            return value
    return _NO_VALUE


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
    if value_problem(cspec, value) is not None:
        return False
    if "references" in cspec:
        ref = cspec["references"]
        return value in [r[env.spec["tables"][ref]["primary_key"]] for r in rows[ref]]
    if cspec.get("unique") or column == tspec["primary_key"]:
        return value == current or value not in [r[column] for r in rows[table]]
    return True


def _preconditions_hold(preconditions: list[dict[str, Any]], row: dict[str, Any]) -> bool:
    """Whether a row (as JSON values) passes the preconditions, with the runtime's semantics."""
    return all(PRECONDITION_OPS[c["op"]](row[c["column"]], c["value"]) for c in preconditions)


def _filter_value(op: str, value: Any, rng: random.Random) -> Any:
    if op == "in":
        return [value]
    if op == "contains":
        text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, separators=(",", ":"))
        start = rng.randrange(max(1, len(text) // 2))
        return text[start : start + max(1, len(text) // 2)]
    return value


def _fresh(env: Environment, table: str, column: str, rng: random.Random) -> Any:
    return column_value(table, column, env.spec["tables"][table]["columns"][column], rng, parse_now(env.spec))


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
    return [_new_value(env, rows, table, column, current, rng)]


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
        return f"{id_prefix(table)}_new_{rng.randrange(10**6)}"
    value = current
    for _ in range(20):
        value = _fresh(env, table, column, rng)
        if value != current and value not in taken:
            return value
    if isinstance(value, str):
        return f"{value} {rng.randrange(10**6)}"
    return value


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
    """Problems with what a successful write changed, compared with what its operation declares."""
    op = tool["operation"]
    table, otype = op["table"], op["type"]
    pk = env.spec["tables"][table]["primary_key"]
    call = _text(args)
    other = sorted(set(changes) - {table})
    if other:
        return [f"{otype} {call} changed other tables: {', '.join(other)}"]
    change = changes.get(table, {"added": [], "removed": [], "changed": []})
    counts = (len(change["added"]), len(change["removed"]), len(change["changed"]))
    if otype == "insert":
        if counts != (1, 0, 0):
            return [f"insert {call} should add exactly one {table} row, changed {_text(change)}"]
        row = change["added"][0]
        expected = {
            **op.get("defaults", {}),
            **{c: args[a] for c, a in op.get("values", {}).items() if a in args},
        }
        wrong = {c: row[c] for c, v in expected.items() if row[c] != v}
        if wrong:
            return [f"insert {call} stored {_text(wrong)}, expected {_text({c: expected[c] for c in wrong})}"]
    elif otype == "update":
        key = {c: args[a] for c, a in op["key"].items()}
        before = next(r for r in rows[table] if all(r[c] == v for c, v in key.items()))
        after = {
            **before,
            **op.get("fixed", {}),
            **{c: args[a] for c, a in op.get("set", {}).items() if a in args},
        }
        if after == before and counts == (0, 0, 0):
            return []
        if counts != (0, 0, 1) or change["changed"][0]["key"] != before[pk]:
            return [f"update {call} should change exactly the addressed {table} row, changed {_text(change)}"]
        if change["changed"][0]["after"] != after:
            return [
                f"update {call} left the row as {_text(change['changed'][0]['after'])}, expected {_text(after)}"
            ]
        row = change["changed"][0]["after"]
    else:
        key = {c: args[a] for c, a in op["key"].items()}
        if counts != (0, 1, 0) or any(change["removed"][0][c] != v for c, v in key.items()):
            return [f"delete {call} should remove exactly the addressed {table} row, changed {_text(change)}"]
        row = change["removed"][0]
    if op.get("returns", "none" if otype == "delete" else "row") == "row" and result != row:
        return [f"{otype} {call} returned {_text(result)}, not the row {_text(row)}"]
    return []


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
