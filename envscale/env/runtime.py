"""The executable environment: an in-memory SQLite database and the spec's tools as data.

`Environment.step(tool, arguments)` validates the arguments against the tool's JSON Schema, runs
the tool's operation as parameterised SQL inside a savepoint and returns an observation:
`{"ok": True, "result": ...}` or `{"ok": False, "error": "<tool>: <cause>", "code": ...}` with
`code` one of `ERROR_CODES`. A failing call never raises and never changes the state.

The state hash is content-based: per table, the sum (mod 2**256) of a BLAKE2b digest of each row,
kept up to date by every write and restored with every reset or snapshot, so `state_hash()` costs
microseconds whatever the database size and equal contents give equal hashes whatever the order of
the operations that produced them (`state_hash(recompute=True)` recomputes it from the rows).

Example:

```python
>>> from envscale.env import Environment
>>> env = Environment.from_yaml("tests/fixtures/envs/shop.yaml")
>>> obs = env.reset()
>>> env.step("get_order", {"order_id": "ord_0001"})["result"]["status"]
'cancelled'
>>> env.step("cancel_order", '{"order_id": "ord_0001"}')["error"]
'cancel_order: only pending orders can be cancelled'
>>> before = env.snapshot()
>>> env.step("update_order_status", {"order_id": "ord_0002", "status": "delivered"})["ok"]
True
>>> env.diff(before)["orders"]["changed"][0]["after"]["status"]
'delivered'
>>> env.restore(before)
```
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import operator
import re
import sqlite3
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from envscale.env.data import build_state, format_id, id_prefix, parse_now, table_order
from envscale.env.spec import DEFAULT_RETURNS, SpecError, check_state, is_nullable, load_spec, validate_spec

ERROR_CODES = (
    "unknown_tool",
    "invalid_arguments",
    "not_found",
    "conflict",
    "invalid_state",
    "limit",
    "internal",
)
"""Codes of error observations: no such tool; arguments fail the schema or a column's type/enum; the
addressed row does not exist; a unique/primary/foreign key constraint; a precondition failed; the
time limit was hit; anything else."""

_SQL_TYPES = {"string": "TEXT", "integer": "INTEGER", "number": "REAL", "boolean": "INTEGER", "json": "TEXT"}
_META = "envscale_meta"  # hidden table holding the row digests and id serials inside snapshots
_OTHER = "envscale_other"  # schema name a snapshot is attached under by `diff`
_MOD = 1 << 256
_IMAGES = 8  # initial databases kept per environment (the spec's own plus recent seeds)
_MAX_MESSAGE = 500
_INT64 = (-(1 << 63), 1 << 63)
_MISSING = object()


class _StepError(Exception):
    """A failed call: its observation code and message (without the tool name)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def _q(identifier: str) -> str:
    """Quote an identifier that the spec validated against `IDENTIFIER` (so it holds no quote)."""
    return f'"{identifier}"'


def _literal(value: str | int | float) -> str:
    """An SQL literal for an enum value in DDL (the only place values are not bound parameters)."""
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return repr(value)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def encode(column_type: str, value: Any) -> Any:
    """The SQL value stored for a JSON value in a column of `column_type`.

    Numbers are stored as floats and booleans as 0/1 so that a written row reads back exactly as
    it was written; json values as canonical JSON text.

    Raises:
        `TypeError`: The value does not fit the column type (or is out of SQLite's integer range).
    """
    if value is None:
        return None
    if column_type == "string":
        if isinstance(value, str):
            return value
    elif column_type == "integer":
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, int) and not isinstance(value, bool) and _INT64[0] <= value < _INT64[1]:
            return value
    elif column_type == "number":
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            return float(value)
    elif column_type == "boolean":
        if isinstance(value, bool):
            return int(value)
    else:
        try:
            return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError):
            pass
    raise TypeError(f"expected a {column_type}, got {_short(value)}")


def _row_digest(row: tuple) -> int:
    return int.from_bytes(
        hashlib.blake2b(repr(row).encode("utf-8", "surrogatepass"), digest_size=32).digest(), "little"
    )


# ----------------------------------------------------------------------------------------------
# Arguments: a quick accept-test for common JSON Schemas, jsonschema for everything else.

_TYPE_TESTS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}
_ANNOTATIONS = {
    "description",
    "title",
    "default",
    "examples",
    "format",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
}
_BOUNDS = {
    "minimum": operator.ge,
    "maximum": operator.le,
    "exclusiveMinimum": operator.gt,
    "exclusiveMaximum": operator.lt,
}


def _quick_check(schema: Any) -> Callable[[Any], bool] | None:
    """A fast test that accepts an instance only if jsonschema would; `None` if the schema uses more.

    Covers `type`, `properties`, `required`, `additionalProperties: false`, string `enum`, numeric
    bounds, string lengths and `pattern`, `items`, `minItems`/`maxItems`. A rejected instance is
    re-checked with jsonschema, which gives the error message, so the test may be stricter than the
    schema but never looser.
    """
    if schema is True or schema == {}:
        return lambda v: True
    if not isinstance(schema, dict) or "$schema" in schema:
        return None
    checks: list[Callable[[Any], bool]] = []
    for key, arg in schema.items():
        if key in _ANNOTATIONS:
            continue
        if key == "type":
            types = [arg] if isinstance(arg, str) else arg
            if not isinstance(types, list) or not all(t in _TYPE_TESTS for t in types):
                return None
            tests = [_TYPE_TESTS[t] for t in types]
            checks.append(tests[0] if len(tests) == 1 else lambda v, tests=tests: any(t(v) for t in tests))
        elif key == "enum" and isinstance(arg, list) and all(isinstance(e, str) for e in arg):
            choices = frozenset(arg)
            checks.append(lambda v, c=choices: isinstance(v, str) and v in c)
        elif key in _BOUNDS and isinstance(arg, int | float) and not isinstance(arg, bool):
            cmp = _BOUNDS[key]
            checks.append(lambda v, b=arg, cmp=cmp: not _TYPE_TESTS["number"](v) or cmp(v, b))
        elif key in ("minLength", "maxLength") and isinstance(arg, int):
            cmp = operator.ge if key == "minLength" else operator.le
            checks.append(lambda v, n=arg, cmp=cmp: not isinstance(v, str) or cmp(len(v), n))
        elif key in ("minItems", "maxItems") and isinstance(arg, int):
            cmp = operator.ge if key == "minItems" else operator.le
            checks.append(lambda v, n=arg, cmp=cmp: not isinstance(v, list) or cmp(len(v), n))
        elif key == "pattern" and isinstance(arg, str):
            try:
                regex = re.compile(arg)
            except re.error:
                return None
            checks.append(lambda v, r=regex: not isinstance(v, str) or r.search(v) is not None)
        elif key == "items":
            item = _quick_check(arg)
            if item is None:
                return None
            checks.append(lambda v, item=item: not isinstance(v, list) or all(item(x) for x in v))
        elif key == "required" and isinstance(arg, list):
            checks.append(_required_check(tuple(arg)))
        elif key == "properties" and isinstance(arg, dict):
            props = {name: _quick_check(sub) for name, sub in arg.items()}
            if any(check is None for check in props.values()):
                return None
            checks.append(_properties_check(props))
        elif key == "additionalProperties" and arg is False:
            known = frozenset(schema.get("properties", {}))
            checks.append(lambda v, known=known: not isinstance(v, dict) or all(k in known for k in v))
        else:
            return None
    if len(checks) == 1:
        return checks[0]

    def run(value: Any) -> bool:
        for check in checks:  # noqa: SIM110 - a plain loop is about twice as fast as all() over a generator
            if not check(value):
                return False
        return True

    return run


def _required_check(names: tuple[str, ...]) -> Callable[[Any], bool]:
    def check(value: Any) -> bool:
        if isinstance(value, dict):
            for name in names:
                if name not in value:
                    return False
        return True

    return check


def _properties_check(props: dict[str, Callable[[Any], bool]]) -> Callable[[Any], bool]:
    def check(value: Any) -> bool:
        if isinstance(value, dict):
            for name, item in value.items():
                test = props.get(name)
                if test is not None and not test(item):
                    return False
        return True

    return check


# ----------------------------------------------------------------------------------------------
# Tools compiled from the spec.


@dataclass(frozen=True)
class _Binding:
    """An argument bound to a column (a key, a filter, an inserted or updated value)."""

    column: str
    arg: str
    type: str
    nullable: bool
    enum: frozenset | None
    op: str = "eq"

    def encode(self, value: Any) -> Any:
        if value is None and not self.nullable and self.op != "in":
            raise _StepError(
                "invalid_arguments", f"argument {self.arg!r}: column {self.column!r} may not be null"
            )
        try:
            if self.op == "in":
                if not isinstance(value, list):
                    raise TypeError(f"expected an array, got {_short(value)}")
                return json.dumps([encode(self.type, v) for v in value])
            if self.op == "contains":
                if not isinstance(value, str):
                    raise TypeError(f"expected a string, got {_short(value)}")
                return value
            encoded = encode(self.type, value)
        except TypeError as exc:
            raise _StepError(
                "invalid_arguments", f"argument {self.arg!r} for column {self.column!r}: {exc}"
            ) from None
        if self.enum is not None and value is not None and value not in self.enum:
            raise _StepError(
                "invalid_arguments",
                f"argument {self.arg!r}: {_short(value)} is not one of {sorted(self.enum)}",
            )
        return encoded


_FILTER_SQL = {
    "eq": "{c} = ?",
    "ne": "{c} IS NOT ?",
    "lt": "{c} < ?",
    "le": "{c} <= ?",
    "gt": "{c} > ?",
    "ge": "{c} >= ?",
    "contains": "instr(lower({c}), lower(?)) > 0",
    "in": "{c} IN (SELECT value FROM json_each(?))",
}
# Preconditions compare the addressed row's value (left) with the spec's value (right).
PRECONDITION_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": lambda a, b: a is not None and a < b,
    "le": lambda a, b: a is not None and a <= b,
    "gt": lambda a, b: a is not None and a > b,
    "ge": lambda a, b: a is not None and a >= b,
    "contains": lambda a, b: a is not None and b.lower() in a.lower(),
    "in": lambda a, b: a in b,
}


@dataclass
class _Tool:
    """A spec tool compiled once: its argument checks, bindings and SQL."""

    name: str
    op: str
    table: str
    write: bool
    returns: str
    properties: frozenset
    quick: Callable[[Any], bool] | None
    validator: Any
    key: list[_Binding] = field(default_factory=list)
    filters: list[_Binding] = field(default_factory=list)
    values: list[_Binding] = field(default_factory=list)  # insert values / update set
    constants: dict[str, Any] = field(default_factory=dict)  # insert defaults / update fixed, encoded
    generate: dict[str, str] = field(default_factory=dict)
    preconditions: list[tuple[int, Callable[[Any, Any], bool], Any, str]] = field(default_factory=list)
    order_by: str = ""
    limit_arg: str | None = None
    sql: dict[Any, str] = field(default_factory=dict)  # statement per set of present arguments


@dataclass(frozen=True)
class _Image:
    """A built database: its bytes, row counts, row-digest sums and id serials."""

    data: bytes
    sizes: dict[str, int]
    digests: dict[str, int]
    serials: dict[str, int]


class Environment:
    """A database-backed tool environment built from a spec (see `envscale.env.spec`).

    Use it from one thread at a time. Arguments that bind to columns are type-checked against the
    column on top of the tool's JSON Schema, and unknown arguments are rejected even where the
    schema allows additional properties.

    Args:
        spec (`dict`): The environment spec; validated.
        max_rows (`int`, *optional*, defaults to 100): Most rows a `list` call returns; a result cut
            by it carries `"truncated": True`.
        time_limit_ms (`float`, *optional*, defaults to 250): Wall-clock budget of one call's SQL;
            a call that runs out is interrupted and fails with code `limit`.
        snapshot (`bytes`, *optional*): Start from this state (a `snapshot()` of an environment
            of the same spec) instead of building the initial state, which is then built on the
            first `reset()`. Copies an environment's state cheaply, e.g. one per MCP session.

    Raises:
        `SpecError`: The spec is invalid or its initial state does not build.
        `ValueError`: `snapshot` is not a database of this spec's tables.
    """

    def __init__(
        self,
        spec: dict[str, Any],
        *,
        max_rows: int = 100,
        time_limit_ms: float = 250,
        snapshot: bytes | None = None,
    ):
        validate_spec(spec)
        if not isinstance(max_rows, int) or max_rows < 1:
            raise ValueError(f"max_rows must be a positive integer, got {max_rows!r}")
        if not time_limit_ms > 0:
            raise ValueError(f"time_limit_ms must be positive, got {time_limit_ms!r}")
        self.spec: dict[str, Any] = json.loads(json.dumps(spec))
        self.name: str = spec["name"]
        self.max_rows = max_rows
        self.time_limit_ms = time_limit_ms
        self._time_limit_s = time_limit_ms / 1000
        self._tables: dict[str, dict[str, Any]] = self.spec["tables"]
        self._order = table_order(self.spec)
        self._columns = {t: tuple(s["columns"]) for t, s in self._tables.items()}
        self._pk_index = {t: self._columns[t].index(s["primary_key"]) for t, s in self._tables.items()}
        self._pk_is_int = {
            t: s["columns"][s["primary_key"]]["type"] == "integer" for t, s in self._tables.items()
        }
        self._prefix = {t: id_prefix(t) for t in self._tables}
        self._decoded = {
            t: [
                (c, cs["type"] == "json")
                for c, cs in s["columns"].items()
                if cs["type"] in ("boolean", "json")
            ]
            for t, s in self._tables.items()
        }
        self._reals = {
            t: tuple(i for i, c in enumerate(s["columns"].values()) if c["type"] == "number")
            for t, s in self._tables.items()
        }
        self._children = {
            t: [
                (c, col)
                for c, s in self._tables.items()
                for col, cs in s["columns"].items()
                if cs.get("references") == t
            ]
            for t in self._tables
        }
        now = parse_now(self.spec)
        self._now, self._today = now.strftime("%Y-%m-%dT%H:%M:%SZ"), now.date().isoformat()
        self._ddl = [self._create_table(t) for t in self._order]
        self._ddl.append(
            f"CREATE TABLE {_META} (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT, WITHOUT ROWID"
        )
        self._tools = {t["name"]: self._compile(t) for t in self.spec["tools"]}
        self._executors = {
            "get": self._get,
            "list": self._list,
            "count": self._count,
            "insert": self._insert,
            "update": self._update,
            "delete": self._delete,
        }
        self._images: OrderedDict[Any, _Image] = OrderedDict()
        self._deadline = math.inf
        self._conn: sqlite3.Connection | None = None
        self._digests: dict[str, int] = {}
        self._serials: dict[str, int] = {}
        self._meta_current = False
        with contextlib.closing(sqlite3.connect(":memory:")) as conn:
            for ddl in self._ddl:
                conn.execute(ddl)
            self._schema = self._read_schema(conn, "main")  # what a snapshot must hold
        if snapshot is None:
            self.reset()
        else:
            self.restore(snapshot)

    # ------------------------------------------------------------------------------------------
    # Construction

    @classmethod
    def from_yaml(cls, path: str | Path, **kwargs: Any) -> Environment:
        """Build an environment from a YAML or JSON spec file (keyword arguments go to `__init__`)."""
        return cls(load_spec(path), **kwargs)

    @classmethod
    def from_row(cls, row: Mapping[str, Any], **kwargs: Any) -> Environment:
        """Build an environment from a dataset row whose `spec` column holds the spec dict or its JSON text."""
        if not isinstance(row, Mapping) or "spec" not in row:
            raise SpecError("a dataset row needs a 'spec' column holding the environment spec")
        spec = row["spec"]
        if isinstance(spec, str):
            try:
                spec = json.loads(spec)
            except json.JSONDecodeError as exc:
                raise SpecError(f"the row's spec is not valid JSON: {exc}") from None
        return cls(spec, **kwargs)

    def _create_table(self, table: str) -> str:
        tspec = self._tables[table]
        parts = []
        for column, cspec in tspec["columns"].items():
            ctype, c = cspec["type"], _q(column)
            part = f"{c} {_SQL_TYPES[ctype]}"
            if column == tspec["primary_key"]:
                part += " PRIMARY KEY"
            if not is_nullable(tspec, column):
                part += " NOT NULL"
            if cspec.get("unique") and column != tspec["primary_key"]:
                part += " UNIQUE"
            if "enum" in cspec:
                part += f" CONSTRAINT {_q(column + '_enum')} CHECK ({c} IN ({', '.join(map(_literal, cspec['enum']))}))"
            if ctype == "boolean":
                part += f" CONSTRAINT {_q(column + '_boolean')} CHECK ({c} IN (0, 1))"
            if "references" in cspec:
                ref = cspec["references"]
                part += f" REFERENCES {_q(ref)} ({_q(self._tables[ref]['primary_key'])})"
            parts.append(part)
        return f"CREATE TABLE {_q(table)} ({', '.join(parts)}) STRICT, WITHOUT ROWID"

    def _binding(self, table: str, column: str, arg: str, op: str = "eq") -> _Binding:
        cspec = self._tables[table]["columns"][column]
        enum = frozenset(cspec["enum"]) if "enum" in cspec and op not in ("in", "contains") else None
        return _Binding(column, arg, cspec["type"], is_nullable(self._tables[table], column), enum, op)

    def _compile(self, tool: dict[str, Any]) -> _Tool:
        op, params = tool["operation"], tool["parameters"]
        table, otype = op["table"], op["type"]
        columns = self._tables[table]["columns"]
        validator_cls = jsonschema.validators.validator_for(params)
        compiled = _Tool(
            name=tool["name"],
            op=otype,
            table=table,
            write=tool["kind"] == "write",
            returns=op.get("returns", DEFAULT_RETURNS[otype]),
            properties=frozenset(params.get("properties", {})),
            quick=_quick_check(params),
            validator=validator_cls(params),
        )
        compiled.key = [self._binding(table, c, a) for c, a in op.get("key", {}).items()]
        compiled.filters = [
            self._binding(table, f["column"], f["arg"], f.get("op", "eq")) for f in op.get("filters", [])
        ]
        compiled.values = [
            self._binding(table, c, a) for c, a in {**op.get("values", {}), **op.get("set", {})}.items()
        ]
        constants = {**op.get("defaults", {}), **op.get("fixed", {})}
        compiled.constants = {c: encode(columns[c]["type"], v) for c, v in constants.items()}
        compiled.generate = dict(op.get("generate", {}))
        for cond in op.get("preconditions", []):
            ctype, value = columns[cond["column"]]["type"], cond["value"]
            if cond["op"] == "in":
                value = [encode(ctype, v) for v in value]
            elif cond["op"] != "contains":
                value = encode(ctype, value)
            message = (
                cond.get("error")
                or f"precondition failed: {table}.{cond['column']} must be {cond['op']} {cond['value']!r}"
            )
            compiled.preconditions.append(
                (self._columns[table].index(cond["column"]), PRECONDITION_OPS[cond["op"]], value, message)
            )
        pk = _q(self._tables[table]["primary_key"])
        if "order_by" in op:  # ties in primary key order, so that results are deterministic
            direction = " DESC" if op["order_by"].get("desc") else ""
            compiled.order_by = f" ORDER BY {_q(op['order_by']['column'])}{direction}, {pk}"
        else:
            compiled.order_by = f" ORDER BY {pk}"
        compiled.limit_arg = op.get("limit_arg")
        return compiled

    # ------------------------------------------------------------------------------------------
    # State: reset, snapshots, hash, dump, diff

    def reset(
        self, seed: int | None = None, state: dict[str, list[dict[str, Any]]] | None = None
    ) -> dict[str, Any]:
        """Put the database back in an initial state.

        The default is the spec's `initial_state`, else rows generated with its `data.seed`. Built
        databases are kept (the spec's and the last few seeds'), so a repeated reset only copies
        their bytes back.

        Args:
            seed (`int`, *optional*): Generate the state with this seed instead (see `generate_state`).
            state (`dict`, *optional*): Use these rows `{table: [row, ...]}` instead.

        Returns:
            `dict`: `{"tables": {table: row count}, "state_hash": ...}`.

        Raises:
            `SpecError`: The state does not fit the spec or breaks a key constraint; the environment
                keeps its current state.
        """
        if seed is not None and state is not None:
            raise ValueError("pass seed or state, not both")
        if state is not None:
            image = self._build(state, where="state")
        else:
            image = self._images.get(seed)
            if image is None:
                if seed is None and "initial_state" in self.spec:
                    image = self._build(self.spec["initial_state"], where="initial_state")
                else:
                    gen_seed = (self.spec.get("data") or {}).get("seed", 0) if seed is None else seed
                    image = self._build(
                        build_state(self.spec, gen_seed), where=f"generated state (seed {gen_seed})"
                    )
                self._images[seed] = image
                while len(self._images) > _IMAGES:
                    self._images.popitem(last=False)
            self._images.move_to_end(seed)
        self._use(self._connect(image.data), dict(image.digests), dict(image.serials), meta=True)
        return {"tables": dict(image.sizes), "state_hash": self.state_hash()}

    def _connect(self, data: bytes) -> sqlite3.Connection:
        """A new connection holding the database `data`.

        Every reset or restore opens a new connection rather than deserializing into the current
        one: with SQLite 3.40, deserializing into a connection whose statement cache holds prepared
        statements corrupts the database ("cannot store BLOB value in INT column
        sqlite_master.rootpage", then crashes).
        """
        conn = sqlite3.connect(
            ":memory:", isolation_level=None, check_same_thread=False, cached_statements=512
        )
        try:
            conn.deserialize(data)
        except BaseException:
            conn.close()
            raise
        conn.execute("PRAGMA foreign_keys = ON")
        conn.set_progress_handler(self._over_time, 1000)
        return conn

    def _over_time(self) -> bool:
        return time.perf_counter() > self._deadline

    def _use(
        self, conn: sqlite3.Connection, digests: dict[str, int], serials: dict[str, int], *, meta: bool
    ) -> None:
        """Make `conn` the environment's database, with its row-digest sums and id serials.

        `meta` says whether the database's meta table already holds those sums and serials.
        """
        if self._conn is not None:
            self._conn.close()
        self._conn, self._digests, self._serials, self._meta_current = conn, digests, serials, meta

    def _build(self, state: dict[str, list[dict[str, Any]]], *, where: str) -> _Image:
        """Load rows into a fresh database (foreign keys checked after loading, so order is free)."""
        check_state(self.spec, state, where=where)
        scratch = sqlite3.connect(":memory:", isolation_level=None)
        try:
            for ddl in self._ddl:
                scratch.execute(ddl)
            scratch.execute("BEGIN")
            for table in self._order:
                columns = self._tables[table]["columns"]
                names = self._columns[table]
                sql = f"INSERT INTO {_q(table)} VALUES ({', '.join('?' * len(names))})"
                try:
                    scratch.executemany(
                        sql,
                        (
                            [encode(columns[c]["type"], row.get(c)) for c in names]
                            for row in state.get(table, [])
                        ),
                    )
                except sqlite3.IntegrityError as exc:
                    raise SpecError(f"{where}.{table}: {exc}") from None
            scratch.execute("COMMIT")
            for table, tspec in self._tables.items():
                for column, cspec in tspec["columns"].items():
                    if "references" not in cspec:
                        continue
                    ref = cspec["references"]
                    bad = scratch.execute(
                        f"SELECT {_q(column)} FROM {_q(table)} WHERE {_q(column)} IS NOT NULL AND {_q(column)} NOT IN "
                        f"(SELECT {_q(self._tables[ref]['primary_key'])} FROM {_q(ref)}) LIMIT 1"
                    ).fetchone()
                    if bad:
                        raise SpecError(f"{where}.{table}: {column}={bad[0]!r} references no row of {ref}")
            digests, serials = self._scan(scratch)
            sizes = {t: scratch.execute(f"SELECT COUNT(*) FROM {_q(t)}").fetchone()[0] for t in self._tables}
            self._write_meta(scratch, digests, serials)
            return _Image(scratch.serialize(), sizes, digests, serials)
        finally:
            scratch.close()

    def _scan(self, conn: sqlite3.Connection) -> tuple[dict[str, int], dict[str, int]]:
        """Row-digest sums and id serials computed from a database's rows."""
        digests, serials = {}, {}
        for table, tspec in self._tables.items():
            total = 0
            for row in conn.execute(f"SELECT * FROM {_q(table)}"):
                total += _row_digest(row)
            digests[table] = total % _MOD
            pk = _q(tspec["primary_key"])
            if tspec["columns"][tspec["primary_key"]]["type"] == "integer":
                serials[table] = conn.execute(f"SELECT COALESCE(MAX({pk}), 0) FROM {_q(table)}").fetchone()[0]
            else:
                prefix = self._prefix[table]
                numbers = conn.execute(
                    f"SELECT substr({pk}, ?) FROM {_q(table)} WHERE {pk} GLOB ?",
                    (len(prefix) + 2, f"{prefix}_[0-9]*"),
                )
                serials[table] = max((int(n) for (n,) in numbers if n.isdigit()), default=0)
        return digests, serials

    @staticmethod
    def _read_schema(conn: sqlite3.Connection, schema: str) -> list[tuple[str, str]]:
        return conn.execute(
            f"SELECT name, sql FROM {schema}.sqlite_master WHERE type = 'table' ORDER BY name"
        ).fetchall()

    def _write_meta(self, conn: sqlite3.Connection, digests: dict[str, int], serials: dict[str, int]) -> None:
        rows = [(f"digest:{t}", f"{d:064x}") for t, d in digests.items()] + [
            (f"serial:{t}", str(s)) for t, s in serials.items()
        ]
        conn.executemany(f"INSERT OR REPLACE INTO {_META} VALUES (?, ?)", rows)

    def snapshot(self) -> bytes:
        """The current database as bytes (a plain SQLite database file) for `restore` or `diff`."""
        if not self._meta_current:
            self._write_meta(self._conn, self._digests, self._serials)
            self._meta_current = True
        return self._conn.serialize()

    def restore(self, data: bytes) -> None:
        """Go back to a state saved by `snapshot` (of this environment or one built from the same spec).

        Raises:
            `ValueError`: `data` is not a database with this environment's schema; the state is kept.
        """
        try:
            conn = self._connect(data)
        except (sqlite3.DatabaseError, TypeError, ValueError) as exc:
            raise ValueError(f"restore: not a snapshot of environment {self.name!r}: {exc}") from None
        try:
            if self._read_schema(conn, "main") != self._schema:
                raise ValueError(f"restore: the snapshot's tables differ from environment {self.name!r}")
            meta = dict(conn.execute(f"SELECT key, value FROM {_META}").fetchall())
            has_meta = all(f"digest:{t}" in meta and f"serial:{t}" in meta for t in self._tables)
            if has_meta:
                digests = {t: int(meta[f"digest:{t}"], 16) for t in self._tables}
                serials = {t: int(meta[f"serial:{t}"]) for t in self._tables}
            else:  # a database written by something else: recompute from its rows
                digests, serials = self._scan(conn)
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise ValueError(f"restore: not a snapshot of environment {self.name!r}: {exc}") from None
        except ValueError:
            conn.close()
            raise
        self._use(conn, digests, serials, meta=has_meta)

    def state_hash(self, *, recompute: bool = False) -> str:
        """A content hash of the database: equal rows give equal hashes, whatever their history.

        Args:
            recompute (`bool`, *optional*, defaults to `False`): Recompute it from every row (O(rows))
                instead of using the running per-table digests; both give the same value.

        Returns:
            `str`: 64 hex digits.
        """
        digests = self._scan(self._conn)[0] if recompute else self._digests
        h = hashlib.blake2b(digest_size=32)
        for table in sorted(digests):
            h.update(f"{table}:{digests[table]:064x};".encode())
        return h.hexdigest()

    def dump(self) -> dict[str, list[dict[str, Any]]]:
        """All rows per table, in primary key order, as JSON values (the format of `initial_state`)."""
        return {
            t: [
                self._decode(t, r)
                for r in self._conn.execute(f"SELECT * FROM {_q(t)} ORDER BY {_q(s['primary_key'])}")
            ]
            for t, s in self._tables.items()
        }

    def diff(self, other: Environment | bytes) -> dict[str, dict[str, list[Any]]]:
        """The row changes that turn `other` (a snapshot or an environment of the same spec) into this state.

        Args:
            other (`Environment` or `bytes`): The state to compare against, e.g. an earlier `snapshot()`.

        Returns:
            `dict`: For each table with changes, `{"added": [row], "removed": [row], "changed":
            [{"key", "before", "after"}]}` with rows keyed by primary key; `{}` when the states are equal.
        """
        data = other.snapshot() if isinstance(other, Environment) else other
        # Both states side by side in a scratch connection (see `_connect` on deserializing).
        conn = sqlite3.connect(":memory:")
        try:
            conn.deserialize(self._conn.serialize())
            conn.execute(f"ATTACH DATABASE ':memory:' AS {_OTHER}")
            conn.deserialize(data, name=_OTHER)
            if self._read_schema(conn, _OTHER) != self._schema:
                raise ValueError(f"diff: the other state's tables differ from environment {self.name!r}")
            changes = {}
            for table in self._tables:
                t, pk = _q(table), self._pk_index[table]
                new = conn.execute(f"SELECT * FROM main.{t} EXCEPT SELECT * FROM {_OTHER}.{t}").fetchall()
                old = conn.execute(f"SELECT * FROM {_OTHER}.{t} EXCEPT SELECT * FROM main.{t}").fetchall()
                if not new and not old:
                    continue
                before, after = {r[pk]: r for r in old}, {r[pk]: r for r in new}
                changes[table] = {
                    "added": [self._decode(table, after[k]) for k in sorted(after.keys() - before.keys())],
                    "removed": [self._decode(table, before[k]) for k in sorted(before.keys() - after.keys())],
                    "changed": [
                        {
                            "key": k,
                            "before": self._decode(table, before[k]),
                            "after": self._decode(table, after[k]),
                        }
                        for k in sorted(before.keys() & after.keys())
                    ],
                }
            return changes
        except (sqlite3.DatabaseError, TypeError) as exc:
            raise ValueError(f"diff: not a snapshot of environment {self.name!r}: {exc}") from None
        finally:
            conn.close()

    def _as_read(self, table: str, row: tuple) -> tuple:
        """A row from `RETURNING` as `SELECT` reads it: SQLite returns whole REAL values stored as integers."""
        if not self._reals[table]:
            return row
        values = list(row)
        for i in self._reals[table]:
            if values[i] is not None:
                values[i] = float(values[i])
        return tuple(values)

    def _decode(self, table: str, row: tuple) -> dict[str, Any]:
        """A row as JSON values: booleans from 0/1, json columns parsed."""
        out = dict(zip(self._columns[table], row, strict=True))
        for column, is_json in self._decoded[table]:
            value = out[column]
            if value is not None:
                out[column] = json.loads(value) if is_json else bool(value)
        return out

    # ------------------------------------------------------------------------------------------
    # Tools

    @property
    def tool_names(self) -> list[str]:
        """The tools' names, in spec order."""
        return list(self._tools)

    def openai_tools(self) -> list[dict[str, Any]]:
        """The tools in OpenAI format: `[{"type": "function", "function": {name, description, parameters}}]`."""
        return [
            {
                "type": "function",
                "function": {
                    "name": t["name"],
                    "description": t.get("description", ""),
                    "parameters": t["parameters"],
                },
            }
            for t in self.spec["tools"]
        ]

    def step(self, tool: str, arguments: dict[str, Any] | str | None = None) -> dict[str, Any]:
        """Call a tool. Never raises; a failed call leaves the state unchanged.

        Args:
            tool (`str`): The tool name.
            arguments (`dict` or `str`, *optional*): The arguments, or their JSON text.

        Returns:
            `dict`: `{"ok": True, "result": ...}` (plus `"truncated": True` when `max_rows` cut a
            list) or `{"ok": False, "error": "<tool>: <cause>", "code": <one of ERROR_CODES>}`.
        """
        compiled = self._tools.get(tool) if isinstance(tool, str) else None
        if compiled is None:
            return _error("unknown_tool", f"unknown tool {_short(tool)}; available: {', '.join(self._tools)}")
        args: dict[str, Any] = {}
        try:
            args = self._arguments(compiled, arguments)
            return self._run(compiled, args)
        except _StepError as exc:
            return _error(exc.code, f"{compiled.name}: {exc}")
        except sqlite3.IntegrityError as exc:
            return self._constraint_error(compiled, args, exc)
        except sqlite3.OperationalError as exc:
            if str(exc) == "interrupted":
                return _error("limit", f"{compiled.name}: time limit of {self.time_limit_ms} ms exceeded")
            return _error("internal", f"{compiled.name}: database error: {exc}")
        except (UnicodeEncodeError, OverflowError) as exc:
            return _error("invalid_arguments", f"{compiled.name}: invalid arguments: {exc}")
        except Exception as exc:  # a call must never raise out of step
            return _error("internal", f"{compiled.name}: internal error: {type(exc).__name__}: {exc}")

    def _arguments(self, tool: _Tool, arguments: Any) -> dict[str, Any]:
        if arguments is None:
            arguments = {}
        elif isinstance(arguments, str | bytes):
            try:
                arguments = _JSON.decode(arguments.decode() if isinstance(arguments, bytes) else arguments)
            except (ValueError, RecursionError) as exc:
                raise _StepError("invalid_arguments", f"arguments are not valid JSON: {exc}") from None
        if not isinstance(arguments, dict):
            raise _StepError(
                "invalid_arguments", f"arguments must be a JSON object, got {type(arguments).__name__}"
            )
        unknown = [k for k in arguments if k not in tool.properties]
        if unknown:
            expected = ", ".join(sorted(tool.properties)) or "none"
            raise _StepError(
                "invalid_arguments",
                f"unexpected argument(s) {', '.join(map(_short, unknown))} (expected: {expected})",
            )
        if tool.quick is None or not tool.quick(arguments):
            error = jsonschema.exceptions.best_match(tool.validator.iter_errors(arguments))
            if error is not None:
                path = "/".join(map(str, error.absolute_path))
                message = error.message.replace(repr(error.instance), _short(error.instance))
                raise _StepError(
                    "invalid_arguments", f"invalid arguments{' at ' + path if path else ''}: {message}"
                )
        return arguments

    def _run(self, tool: _Tool, args: dict[str, Any]) -> dict[str, Any]:
        """Execute a validated call: reads directly, writes inside a savepoint that a failure rolls back."""
        self._deadline = time.perf_counter() + self._time_limit_s
        if tool.write:
            self._conn.execute("SAVEPOINT envscale_step")
        try:
            result, extra = self._executors[tool.op](tool, args)
        except BaseException:
            self._deadline = math.inf
            if tool.write and self._conn.in_transaction:  # an interrupted write has already rolled back
                self._conn.execute("ROLLBACK TO envscale_step")
                self._conn.execute("RELEASE envscale_step")
            raise
        self._deadline = math.inf
        obs = {"ok": True, "result": result}
        if tool.write:
            self._conn.execute("RELEASE envscale_step")
            self._meta_current = False
            for sign, row in extra:
                self._digests[tool.table] = (self._digests[tool.table] + sign * _row_digest(row)) % _MOD
                if sign > 0 and tool.op == "insert":
                    self._serials[tool.table] = max(
                        self._serials[tool.table] + 1, self._serial_of(tool.table, row)
                    )
        elif extra:
            obs["truncated"] = True
        return obs

    def _serial_of(self, table: str, row: tuple) -> int:
        """The number in a row's primary key (`42` for `ord_0042` or `42`), else 0."""
        key = row[self._pk_index[table]]
        if isinstance(key, int):
            return key
        prefix = self._prefix[table] + "_"
        number = key[len(prefix) :]
        return int(number) if key.startswith(prefix) and number.isdigit() else 0

    def _select_row(self, tool: _Tool, args: dict[str, Any]) -> tuple[tuple, list[Any]]:
        """The row addressed by the tool's key, after checking its preconditions; and the key parameters."""
        params = [b.encode(args[b.arg]) for b in tool.key]
        sql = tool.sql.get("select")
        if sql is None:
            where = " AND ".join(f"{_q(b.column)} = ?" for b in tool.key)
            sql = tool.sql["select"] = f"SELECT * FROM {_q(tool.table)} WHERE {where}"
        row = self._conn.execute(sql, params).fetchone()
        if row is None:
            key = ", ".join(f"{b.column}={_short(args[b.arg])}" for b in tool.key)
            raise _StepError("not_found", f"no {tool.table} row with {key}")
        for index, check, value, message in tool.preconditions:
            if not check(row[index], value):
                raise _StepError("invalid_state", message)
        return row, params

    def _where(self, tool: _Tool, args: dict[str, Any]) -> tuple[str, list[Any]]:
        """The WHERE clause of the filters whose arguments are present, and its parameters."""
        present = tuple(i for i, b in enumerate(tool.filters) if b.arg in args)
        clause = " AND ".join(
            _FILTER_SQL[tool.filters[i].op].format(c=_q(tool.filters[i].column)) for i in present
        )
        return (f" WHERE {clause}" if clause else ""), [
            tool.filters[i].encode(args[tool.filters[i].arg]) for i in present
        ]

    def _get(self, tool: _Tool, args: dict[str, Any]) -> tuple[Any, bool]:
        row, _ = self._select_row(tool, args)
        return self._decode(tool.table, row), False

    def _list(self, tool: _Tool, args: dict[str, Any]) -> tuple[Any, bool]:
        where, params = self._where(tool, args)
        limit = args.get(tool.limit_arg) if tool.limit_arg else None
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise _StepError(
                "invalid_arguments", f"argument {tool.limit_arg!r} must be a non-negative integer"
            )
        capped = limit is None or limit > self.max_rows
        params.append(self.max_rows + 1 if capped else limit)
        sql = f"SELECT * FROM {_q(tool.table)}{where}{tool.order_by} LIMIT ?"
        rows = self._conn.execute(sql, params).fetchall()
        truncated = capped and len(rows) > self.max_rows
        return [self._decode(tool.table, r) for r in rows[: self.max_rows]], truncated

    def _count(self, tool: _Tool, args: dict[str, Any]) -> tuple[Any, bool]:
        where, params = self._where(tool, args)
        return self._conn.execute(f"SELECT COUNT(*) FROM {_q(tool.table)}{where}", params).fetchone()[
            0
        ], False

    def _insert(self, tool: _Tool, args: dict[str, Any]) -> tuple[Any, list[tuple[int, tuple]]]:
        values: dict[str, Any] = dict(tool.constants)
        for b in tool.values:
            if b.arg in args:
                values[b.column] = b.encode(args[b.arg])
            elif b.column not in values and not b.nullable:
                raise _StepError(
                    "invalid_arguments", f"argument {b.arg!r} is required for column {b.column!r}"
                )
        if tool.generate:
            # The serial exceeds the number of every key of the table (`_run` keeps it so), so a
            # generated id is new.
            serial = self._serials[tool.table] + 1
            for column, how in tool.generate.items():
                if how == "id":
                    values[column] = (
                        serial if self._pk_is_int[tool.table] else format_id(self._prefix[tool.table], serial)
                    )
                elif how == "uuid":
                    values[column] = str(
                        uuid.uuid5(uuid.NAMESPACE_URL, f"envscale:{self.name}/{tool.table}/{column}/{serial}")
                    )
                elif how == "now":
                    values[column] = self._now
                elif how == "today":
                    values[column] = self._today
        names = tuple(values)
        sql = tool.sql.get(names)
        if sql is None:
            columns = ", ".join(map(_q, names))
            sql = tool.sql[names] = (
                f"INSERT INTO {_q(tool.table)} ({columns}) VALUES ({', '.join('?' * len(names))}) RETURNING *"
            )
        (row,) = self._conn.execute(sql, list(values.values())).fetchall()
        row = self._as_read(tool.table, row)
        return (self._decode(tool.table, row) if tool.returns == "row" else None), [(1, row)]

    def _update(self, tool: _Tool, args: dict[str, Any]) -> tuple[Any, list[tuple[int, tuple]]]:
        old, key_params = self._select_row(tool, args)
        present = tuple(b for b in tool.values if b.arg in args)
        if not present and not tool.constants:
            names = ", ".join(b.arg for b in tool.values)
            raise _StepError("invalid_arguments", f"nothing to update: pass at least one of {names}")
        params = [b.encode(args[b.arg]) for b in present] + list(tool.constants.values())
        mask = tuple(b.column for b in present)
        sql = tool.sql.get(mask)
        if sql is None:
            assignments = ", ".join(f"{_q(c)} = ?" for c in (*mask, *tool.constants))
            where = " AND ".join(f"{_q(b.column)} = ?" for b in tool.key)
            sql = tool.sql[mask] = f"UPDATE {_q(tool.table)} SET {assignments} WHERE {where} RETURNING *"
        (new,) = self._conn.execute(sql, params + key_params).fetchall()
        new = self._as_read(tool.table, new)
        return (self._decode(tool.table, new) if tool.returns == "row" else None), [(-1, old), (1, new)]

    def _delete(self, tool: _Tool, args: dict[str, Any]) -> tuple[Any, list[tuple[int, tuple]]]:
        old, key_params = self._select_row(tool, args)
        sql = tool.sql.get("delete")
        if sql is None:
            where = " AND ".join(f"{_q(b.column)} = ?" for b in tool.key)
            sql = tool.sql["delete"] = f"DELETE FROM {_q(tool.table)} WHERE {where}"
        self._conn.execute(sql, key_params)
        return (self._decode(tool.table, old) if tool.returns == "row" else None), [(-1, old)]

    def _constraint_error(
        self, tool: _Tool, args: dict[str, Any], exc: sqlite3.IntegrityError
    ) -> dict[str, Any]:
        """An error observation for a constraint failure, naming the offending column and value."""
        name = getattr(exc, "sqlite_errorname", "")
        if "CHECK" in name or "NOTNULL" in name or "cannot store" in str(exc):
            return _error("invalid_arguments", f"{tool.name}: invalid arguments: {exc}")
        if "FOREIGNKEY" in name:
            try:
                cause = self._missing_reference(tool, args)
            except Exception:  # the diagnosis is a courtesy; the generic message below still names the cause
                cause = None
            if cause:
                return _error("conflict", f"{tool.name}: {cause}")
        return _error("conflict", f"{tool.name}: conflict: {exc}")

    def _missing_reference(self, tool: _Tool, args: dict[str, Any]) -> str | None:
        """Which reference a failed write broke: a row still referenced, or a referenced row missing."""
        table = tool.table
        if tool.op == "delete":
            where = " AND ".join(f"{_q(b.column)} = ?" for b in tool.key)
            pk = self._tables[table]["primary_key"]
            (key,) = self._conn.execute(
                f"SELECT {_q(pk)} FROM {_q(table)} WHERE {where}", [b.encode(args[b.arg]) for b in tool.key]
            ).fetchone()
            for child, column in self._children[table]:
                if self._conn.execute(
                    f"SELECT 1 FROM {_q(child)} WHERE {_q(column)} = ? LIMIT 1", (key,)
                ).fetchone():
                    return f"{table} row {_short(key)} is still referenced by {child}.{column}"
        for b in tool.values:
            ref = self._tables[table]["columns"][b.column].get("references")
            if ref and args.get(b.arg) is not None:
                ref_pk = self._tables[ref]["primary_key"]
                value = b.encode(args[b.arg])
                if not self._conn.execute(
                    f"SELECT 1 FROM {_q(ref)} WHERE {_q(ref_pk)} = ?", (value,)
                ).fetchone():
                    return f"{ref} has no row with {ref_pk}={_short(args[b.arg])} (for {table}.{b.column})"
        return None

    def close(self) -> None:
        """Close the database."""
        self._conn.close()

    def __enter__(self) -> Environment:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "max_rows": self.max_rows,
            "time_limit_ms": self.time_limit_ms,
            "snapshot": self.snapshot(),
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(
            state["spec"],
            max_rows=state["max_rows"],
            time_limit_ms=state["time_limit_ms"],
            snapshot=state["snapshot"],
        )

    def __repr__(self) -> str:
        return f"Environment({self.name!r}, tables={list(self._tables)}, tools={len(self._tools)})"


def _error(code: str, message: str) -> dict[str, Any]:
    if len(message) > _MAX_MESSAGE:
        message = message[: _MAX_MESSAGE - 3] + "..."
    return {"ok": False, "error": message, "code": code}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_JSON = json.JSONDecoder(parse_constant=_reject_constant)
