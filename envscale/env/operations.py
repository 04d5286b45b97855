"""A tool's operation compiled into a plan, and plans run against an environment's database.

`compile_plan` turns a spec tool (already validated by `envscale.env.spec.validate_spec`) into a
`Plan`: its argument checks, the columns it binds (to arguments, or to expressions compiled into
closures), its preconditions, guards and effects, and a cache of its SQL statements. A `Runner`
executes plans with parameterised SQL: `get`, `list`, `count` read; `insert`, `update`, `delete`
write, then run their effects, and return the rows they removed and added so that the caller can
keep the state hash up to date (`Database.apply`) once the call's savepoint is released.

Adding an operation type means: its keys in `spec._OPERATION_KEYS` and its checks in
`spec._check_tool`, a `Runner` method here (listed in `Runner.executors`), and nothing in the
`Environment` facade.

Expressions are evaluated against a `Call`: the arguments, the session row read at the start of the
call, the addressed row before the write (`{column}`), the main row after it (`{result}`) and an
effect's own addressed row (`{target}`). A value that does not fit its column fails the call with
`invalid_arguments` when it is a plain argument and `invalid_state` when it was computed.

Example:

```python
>>> from envscale.env.operations import Runner, compile_plan
>>> from envscale.env.spec import load_spec
>>> from envscale.env.state import Database
>>> spec = load_spec("tests/fixtures/envs/shop.yaml")
>>> db = Database(spec)
>>> _ = db.reset()
>>> runner = Runner(db, max_rows=100)
>>> plan = compile_plan(spec["tools"][4], db)   # get_order
>>> row, _ = runner.executors[plan.op](plan, {"order_id": "ord_0001"})
>>> row["status"]
'cancelled'
```
"""

from __future__ import annotations

import json
import operator
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from envscale.env.arguments import StepError, quick_check
from envscale.env.columns import decode, encode, is_nullable, short
from envscale.env.spec import DEFAULT_RETURNS, row_form
from envscale.env.state import Database, key_where, q

FILTER_SQL = {
    "eq": "{c} = ?",
    "ne": "{c} IS NOT ?",
    "lt": "{c} < ?",
    "le": "{c} <= ?",
    "gt": "{c} > ?",
    "ge": "{c} >= ?",
    "contains": "instr(lower({c}), lower(?)) > 0",
    "in": "{c} IN (SELECT value FROM json_each(?))",
}
"""The SQL condition of each filter op, on column `{c}` and one parameter."""

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


def _same(a: Any, b: Any) -> bool:
    """JSON equality: `1 == 1.0`, but a boolean equals only a boolean."""
    return a == b and (a.__class__ is bool) == (b.__class__ is bool)


def _ordered(compare: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    """An order comparison of two numbers or two strings; false for anything else (null included)."""

    def test(a: Any, b: Any) -> bool:
        if a is None or b is None or a.__class__ is bool or b.__class__ is bool:
            return False
        if isinstance(a, str) != isinstance(b, str):
            return False
        try:
            return compare(a, b)
        except TypeError:  # lists, objects
            return False

    return test


GUARD_TESTS: dict[str, Callable[[Any, Any], bool]] = {
    "eq": _same,
    "ne": lambda a, b: not _same(a, b),
    "lt": _ordered(operator.lt),
    "le": _ordered(operator.le),
    "gt": _ordered(operator.gt),
    "ge": _ordered(operator.ge),
    "in": lambda a, b: isinstance(b, list) and any(_same(a, x) for x in b),
}
"""How a guard's `check` compares its two sides (JSON values)."""

_ARITHMETIC = {"add": operator.add, "sub": operator.sub, "mul": operator.mul}


class Call:
    """What the expressions of one call read: arguments, session row, addressed, result and effect rows."""

    __slots__ = ("args", "old", "new", "target", "session")

    def __init__(self, args: dict[str, Any], session: dict[str, Any] | None = None):
        self.args = args
        self.session = session
        self.old: tuple | None = None  # the addressed row before the write
        self.new: tuple | None = None  # the main row after the write
        self.target: tuple | None = None  # the running effect's addressed row


Expression = Callable[[Call], Any]


@dataclass(frozen=True)
class Binding:
    """A value bound to a column (a key, a filter, an inserted or updated value): an argument or an expression."""

    column: str
    arg: str | None  # the argument it reads (a plain name, or `{arg: NAME}`), else None
    type: str
    nullable: bool
    enum: frozenset | None
    op: str = "eq"
    expr: Expression | None = None  # None: the plain argument `arg` (1.0), present or not
    label: str = ""  # how messages name a computed value
    digits: bool = False  # an integer-declared argument on a string column: stored as its digits

    def encode(self, value: Any) -> Any:
        """The SQL parameter for `value`; a value that does not fit the column is a `StepError`."""
        if value is None and not self.nullable and self.op != "in":
            if self.arg is None:
                raise StepError(
                    "invalid_state", f"{self.label} is null, and column {self.column!r} may not be null"
                )
            raise StepError(
                "invalid_arguments", f"argument {self.arg!r}: column {self.column!r} may not be null"
            )
        try:
            if self.op == "in":
                if not isinstance(value, list):
                    raise TypeError(f"expected an array, got {short(value)}")
                return json.dumps([encode(self.type, v) for v in value])
            if self.op == "contains":
                if not isinstance(value, str):
                    raise TypeError(f"expected a string, got {short(value)}")
                return value
            if self.digits and type(value) is int:
                value = str(value)  # see columns.ACCEPTED_JSON_TYPES: the key's digits
            encoded = encode(self.type, value)
        except TypeError as exc:
            if self.arg is None:
                raise StepError("invalid_state", f"{self.label}: {exc}") from None
            raise StepError(
                "invalid_arguments", f"argument {self.arg!r} for column {self.column!r}: {exc}"
            ) from None
        if self.enum is not None and value is not None and value not in self.enum:
            if self.arg is None:
                raise StepError(
                    "invalid_state", f"{self.label}: {short(value)} is not one of {sorted(self.enum)}"
                )
            raise StepError(
                "invalid_arguments",
                f"argument {self.arg!r}: {short(value)} is not one of {sorted(self.enum)}",
            )
        return encoded


@dataclass(frozen=True)
class Guard:
    """A compiled guard: `test(left, right)` must hold, else the call fails with `message`."""

    test: Callable[[Any, Any], bool]
    left: Expression
    right: Expression
    message: str


@dataclass
class Effect:
    """A further write of a write operation, run after the main one in the same savepoint."""

    type: str
    table: str
    key: list[Binding] = field(default_factory=list)
    values: list[Binding] = field(default_factory=list)  # insert values / update set
    generate: dict[str, str] = field(default_factory=dict)
    guards: list[Guard] = field(default_factory=list)
    select: str = ""  # the SQL reading the addressed row (or, with `where`, every matching row)
    sql: dict[Any, str] = field(default_factory=dict)
    where: list[Binding] = field(default_factory=list)  # update/delete every matching row (0 or more)


@dataclass
class Plan:
    """A spec tool compiled once: its argument checks, bindings, guards, effects and SQL."""

    name: str
    op: str
    table: str
    write: bool
    returns: str
    properties: frozenset
    quick: Callable[[Any], bool] | None
    validator: Any
    key: list[Binding] = field(default_factory=list)
    filters: list[Binding] = field(default_factory=list)
    values: list[Binding] = field(default_factory=list)  # insert values / update set
    constants: dict[str, Any] = field(default_factory=dict)  # insert defaults / update fixed, encoded
    generate: dict[str, str] = field(default_factory=dict)
    preconditions: list[tuple[int, Callable[[Any, Any], bool], Any, str]] = field(default_factory=list)
    guards: list[Guard] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    order_by: str = ""
    limit_arg: str | None = None
    contextual: bool = False  # uses expressions, guards or effects: runs with a `Call`
    uses_session: bool = False
    sql: dict[Any, str] = field(default_factory=dict)  # statement per set of present arguments


# ----------------------------------------------------------------------------------------------
# Compiling


@dataclass(frozen=True)
class _Rows:
    """The tables whose rows the row forms of an expression read (`None` where the spec forbids it)."""

    column: str | None = None
    target: str | None = None
    result: str | None = None


def compile_plan(tool: dict[str, Any], db: Database) -> Plan:
    """Compile a tool of a valid spec into a `Plan` for `db`'s tables.

    Args:
        tool (`dict`): The spec tool.
        db (`Database`): The environment's database (its tables, clock and session).

    Returns:
        `Plan`: The plan, run by `Runner.executors[plan.op](plan, arguments)`.
    """
    op, params = tool["operation"], tool["parameters"]
    table, otype = op["table"], op["type"]
    columns = db.tables[table]["columns"]
    plan = Plan(
        name=tool["name"],
        op=otype,
        table=table,
        write=tool["kind"] == "write",
        returns=op.get("returns", DEFAULT_RETURNS[otype]),
        properties=frozenset(params.get("properties", {})),
        quick=quick_check(params),
        validator=jsonschema.validators.validator_for(params)(params),
    )
    addressed = otype in ("get", "update", "delete")
    compiler = _Compiler(db, params.get("properties") or {})
    body = _Rows(column=table if addressed else None)
    plan.key = [compiler.binding(table, c, v, _Rows()) for c, v in op.get("key", {}).items()]
    for flt in op.get("filters", []):
        value = flt["arg"] if "arg" in flt else flt["value"]
        plan.filters.append(compiler.binding(table, flt["column"], value, body, flt.get("op", "eq")))
    plan.values = [
        compiler.binding(table, c, v, body) for c, v in {**op.get("values", {}), **op.get("set", {})}.items()
    ]
    constants = {**op.get("defaults", {}), **op.get("fixed", {})}
    plan.constants = {c: encode(columns[c]["type"], v) for c, v in constants.items()}
    plan.generate = dict(op.get("generate", {}))
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
        plan.preconditions.append(
            (db.columns[table].index(cond["column"]), PRECONDITION_OPS[cond["op"]], value, message)
        )
    plan.guards = [compiler.guard(g, body) for g in op.get("guards", [])]
    in_effects = _Rows(column=table if addressed else None, result=table if otype != "delete" else None)
    plan.effects = [compiler.effect(e, in_effects) for e in op.get("effects", [])]
    pk = q(db.tables[table]["primary_key"])
    if "order_by" in op:  # ties in primary key order, so that results are deterministic
        direction = " DESC" if op["order_by"].get("desc") else ""
        plan.order_by = f" ORDER BY {q(op['order_by']['column'])}{direction}, {pk}"
    else:
        plan.order_by = f" ORDER BY {pk}"
    plan.limit_arg = op.get("limit_arg")
    plan.contextual = bool(
        plan.guards
        or plan.effects
        or any(b.expr is not None for b in (*plan.key, *plan.filters, *plan.values))
    )
    plan.uses_session = _mentions(op, "session")
    return plan


def _mentions(value: Any, form: str) -> bool:
    """Whether an operation holds an expression of `form` anywhere."""
    if isinstance(value, dict):
        if len(value) == 1 and form in value:
            return True
        return any(_mentions(v, form) for v in value.values())
    if isinstance(value, list):
        return any(_mentions(v, form) for v in value)
    return False


class _Compiler:
    """Compiles bindings, expressions, guards and effects for one database's tables."""

    def __init__(self, db: Database, properties: dict[str, Any] | None = None):
        self.db = db
        self.properties = properties or {}  # the tool's argument schemas

    def binding(self, table: str, column: str, value: Any, rows: _Rows, op: str = "eq") -> Binding:
        """A column bound to `value`: an argument name (1.0) or an expression."""
        tspec = self.db.tables[table]
        cspec = tspec["columns"][column]
        enum = frozenset(cspec["enum"]) if "enum" in cspec and op not in ("in", "contains") else None
        nullable = is_nullable(tspec, column)
        if isinstance(value, str):
            return Binding(
                column, value, cspec["type"], nullable, enum, op, digits=self._digits(value, cspec)
            )
        arg = value.get("arg")
        return Binding(
            column,
            arg,
            cspec["type"],
            nullable,
            enum,
            op,
            expr=self.expression(value, rows),
            label=f"the value computed for {table}.{column}",
            digits=self._digits(arg, cspec),
        )

    def _digits(self, arg: str | None, cspec: dict[str, Any]) -> bool:
        """Whether an argument the tool declares `integer` feeds a string column (stored as its digits)."""
        schema = self.properties.get(arg) if arg is not None else None
        declared = schema.get("type") if isinstance(schema, dict) else None
        types = {declared} if isinstance(declared, str) else set(declared or ())
        return cspec["type"] == "string" and "integer" in types

    def expression(self, expr: dict[str, Any], rows: _Rows) -> Expression:
        """An expression of a valid spec as a function of the `Call`."""
        ((form, arg),) = expr.items()
        if form == "arg":
            return lambda call: call.args.get(arg)
        if form == "value":
            return lambda call: arg
        if form == "now":
            now = self.db.now if arg == "datetime" else self.db.today
            return lambda call: now
        if form == "session":
            table = self.db.session_table

            def session(call: Call) -> Any:
                if call.session is None:
                    raise StepError(
                        "invalid_state", f"there is no current session: no {table} row is the session"
                    )
                return call.session[arg]

            return session
        if form in ("column", "target", "result"):
            form = row_form(form, arg, rows.column, rows.target, self.db.tables)
            table = getattr(rows, form)
            index = self.db.columns[table].index(arg)
            ctype = self.db.tables[table]["columns"][arg]["type"]
            slot = {"column": "old", "target": "target", "result": "new"}[form]
            if ctype in ("boolean", "json"):
                return lambda call: decode(ctype, getattr(call, slot)[index])
            return lambda call: getattr(call, slot)[index]
        if form in _ARITHMETIC:
            return self._arithmetic(form, arg, rows)
        if form == "count":
            return self._count(arg, rows)
        raise AssertionError(form)

    def _arithmetic(self, form: str, operands: list[Any], rows: _Rows) -> Expression:
        compute = _ARITHMETIC[form]
        (left, right) = (self.expression(e, rows) for e in operands)
        codes = ["invalid_arguments" if "arg" in e else "invalid_state" for e in operands]

        def run(call: Call) -> Any:
            a, b = left(call), right(call)
            _number(form, a, codes[0])
            _number(form, b, codes[1])
            return compute(a, b)

        return run

    def _count(self, spec: dict[str, Any], rows: _Rows) -> Expression:
        table = spec["table"]
        conditions = [
            self.binding(table, c["column"], c["value"], rows, c.get("op", "eq"))
            for c in spec.get("where", [])
        ]
        where = " AND ".join(FILTER_SQL[b.op].format(c=q(b.column)) for b in conditions)
        sql = f"SELECT COUNT(*) FROM {q(table)}" + (f" WHERE {where}" if where else "")
        db = self.db

        def count(call: Call) -> int:
            return db.conn.execute(sql, [b.encode(b.expr(call)) for b in conditions]).fetchone()[0]

        return count

    def guard(self, guard: dict[str, Any], rows: _Rows) -> Guard:
        ((op, (left, right)),) = guard["check"].items()
        message = guard.get("error") or f"refused: guard {json.dumps(guard['check'], sort_keys=True)} failed"
        return Guard(GUARD_TESTS[op], self.expression(left, rows), self.expression(right, rows), message)

    def effect(self, spec: dict[str, Any], rows: _Rows) -> Effect:
        table, etype = spec["table"], spec["type"]
        own = _Rows(rows.column, table if etype != "insert" else None, rows.result)
        effect = Effect(etype, table)
        effect.key = [self.binding(table, c, v, rows) for c, v in spec.get("key", {}).items()]
        effect.values = [
            self.binding(table, c, v, own)
            for c, v in {**spec.get("values", {}), **spec.get("set", {})}.items()
        ]
        effect.generate = dict(spec.get("generate", {}))
        effect.guards = [self.guard(g, own) for g in spec.get("guards", [])]
        if effect.key:
            effect.select = f"SELECT * FROM {q(table)} WHERE {key_where(b.column for b in effect.key)}"
        if spec.get("where"):
            effect.where = [
                self.binding(table, c["column"], c["value"], rows, c.get("op", "eq")) for c in spec["where"]
            ]
            conditions = " AND ".join(FILTER_SQL[b.op].format(c=q(b.column)) for b in effect.where)
            pk = q(self.db.tables[table]["primary_key"])
            effect.select = f"SELECT * FROM {q(table)} WHERE {conditions} ORDER BY {pk}"
            effect.key = [self.binding(table, self.db.tables[table]["primary_key"], {"value": None}, rows)]
        return effect


def _number(form: str, value: Any, code: str) -> None:
    if value is None:
        raise StepError("invalid_state", f"{form}: cannot compute with null")
    if value.__class__ is bool or not isinstance(value, int | float):
        raise StepError(code, f"{form} needs numbers, got {short(value)}")


# ----------------------------------------------------------------------------------------------
# Running


class Runner:
    """Runs plans against a `Database`: `executors[plan.op](plan, arguments) -> (result, extra)`.

    For reads `extra` says whether `max_rows` cut the result; for writes it lists the rows the call
    removed (`-1`) and added (`+1`) as `(table, sign, row)`, and `serials` holds the id serials its
    inserts raised. Writes must run inside a savepoint that the caller releases (then calls
    `Database.apply(extra, runner.serials)`) or rolls back; call `begin` before each write.

    Args:
        db (`Database`): The database.
        max_rows (`int`): Most rows a `list` returns.
    """

    def __init__(self, db: Database, max_rows: int):
        self.db = db
        self.max_rows = max_rows
        self.serials: dict[str, int] = {}  # id serials raised by the running write, pending its commit
        self.key_params: list[Any] = []  # the key of the last addressed row (to explain a failed delete)
        self.effect: Effect | None = None  # the effect being written, None for the main write
        self.executors: dict[str, Callable[[Plan, dict[str, Any]], tuple[Any, Any]]] = {
            "get": self.get,
            "list": self.list_rows,
            "count": self.count_rows,
            "insert": self.insert,
            "update": self.update,
            "delete": self.delete,
        }

    def begin(self) -> None:
        """Forget the previous write's serials and effect (call before each write)."""
        self.serials = {}
        self.effect = None

    # Reading ---------------------------------------------------------------------------------

    def _call(self, plan: Plan, args: dict[str, Any]) -> Call:
        return Call(args, self.db.session_row() if plan.uses_session else None)

    def _select_row(self, plan: Plan, args: dict[str, Any], call: Call | None) -> tuple[tuple, list[Any]]:
        """The row the plan's key addresses, after its preconditions (and, given the `call`, its guards,
        with the row as `call.old`); and the key parameters."""
        if call is None:  # a 1.0 key: arguments only
            values = None
            params = [b.encode(args[b.arg]) for b in plan.key]
        else:
            values = [args[b.arg] if b.expr is None else b.expr(call) for b in plan.key]
            params = [b.encode(v) for b, v in zip(plan.key, values, strict=True)]
        sql = plan.sql.get("select")
        if sql is None:
            where = key_where(b.column for b in plan.key)
            sql = plan.sql["select"] = f"SELECT * FROM {q(plan.table)} WHERE {where}"
        row = self.db.conn.execute(sql, params).fetchone()
        if row is None:
            if values is None:
                key = ", ".join(f"{b.column}={short(args[b.arg])}" for b in plan.key)
            else:
                key = ", ".join(f"{b.column}={short(v)}" for b, v in zip(plan.key, values, strict=True))
            raise StepError("not_found", f"no {plan.table} row with {key}")
        for index, check, value, message in plan.preconditions:
            if not check(row[index], value):
                raise StepError("invalid_state", message)
        self.key_params = params
        if call is not None:
            call.old = row
            _check_guards(plan.guards, call)
        return row, params

    def _where(self, plan: Plan, args: dict[str, Any], call: Call | None) -> tuple[str, list[Any]]:
        """The WHERE clause of the filters whose arguments are present (or that are expressions), and its parameters."""
        if call is None:
            present = [b for b in plan.filters if b.arg in args]
            params = [b.encode(args[b.arg]) for b in present]
        else:
            present = [b for b in plan.filters if b.expr is not None or b.arg in args]
            params = [b.encode(args[b.arg] if b.expr is None else b.expr(call)) for b in present]
        clause = " AND ".join(FILTER_SQL[b.op].format(c=q(b.column)) for b in present)
        return (f" WHERE {clause}" if clause else ""), params

    def get(self, plan: Plan, args: dict[str, Any]) -> tuple[Any, bool]:
        row, _ = self._select_row(plan, args, self._call(plan, args) if plan.contextual else None)
        return self.db.decode(plan.table, row), False

    def list_rows(self, plan: Plan, args: dict[str, Any]) -> tuple[Any, bool]:
        where, params = self._where(plan, args, self._call(plan, args) if plan.contextual else None)
        limit = args.get(plan.limit_arg) if plan.limit_arg else None
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise StepError(
                "invalid_arguments", f"argument {plan.limit_arg!r} must be a non-negative integer"
            )
        capped = limit is None or limit > self.max_rows
        params.append(self.max_rows + 1 if capped else limit)
        sql = f"SELECT * FROM {q(plan.table)}{where}{plan.order_by} LIMIT ?"
        rows = self.db.conn.execute(sql, params).fetchall()
        truncated = capped and len(rows) > self.max_rows
        return [self.db.decode(plan.table, r) for r in rows[: self.max_rows]], truncated

    def count_rows(self, plan: Plan, args: dict[str, Any]) -> tuple[Any, bool]:
        where, params = self._where(plan, args, self._call(plan, args) if plan.contextual else None)
        return self.db.conn.execute(f"SELECT COUNT(*) FROM {q(plan.table)}{where}", params).fetchone()[
            0
        ], False

    # Writing ---------------------------------------------------------------------------------

    def insert(self, plan: Plan, args: dict[str, Any]) -> tuple[Any, list[tuple[str, int, tuple]]]:
        call = self._call(plan, args) if plan.contextual else None
        if call is not None:
            _check_guards(plan.guards, call)
        values: dict[str, Any] = dict(plan.constants)
        for b in plan.values:
            if b.expr is not None:
                values[b.column] = b.encode(b.expr(call))
            elif b.arg in args:
                values[b.column] = b.encode(args[b.arg])
            elif b.column not in values and not b.nullable:
                raise StepError(
                    "invalid_arguments", f"argument {b.arg!r} is required for column {b.column!r}"
                )
        row = self._insert(plan.table, values, plan.generate, plan.sql)
        changes = [(plan.table, 1, row)]
        if plan.effects:
            call.new = row
            self._effects(plan, call, changes)
        return (self.db.decode(plan.table, row) if plan.returns == "row" else None), changes

    def update(self, plan: Plan, args: dict[str, Any]) -> tuple[Any, list[tuple[str, int, tuple]]]:
        call = self._call(plan, args) if plan.contextual else None
        old, key_params = self._select_row(plan, args, call)
        if call is None:
            present = [b for b in plan.values if b.arg in args]
            params = [b.encode(args[b.arg]) for b in present]
        else:
            present = [b for b in plan.values if b.expr is not None or b.arg in args]
            params = [b.encode(args[b.arg] if b.expr is None else b.expr(call)) for b in present]
        if not present and not plan.constants:
            names = ", ".join(b.arg for b in plan.values)
            raise StepError("invalid_arguments", f"nothing to update: pass at least one of {names}")
        new = self._update(
            plan.table,
            tuple(b.column for b in present),
            params,
            plan.constants,
            plan.key,
            key_params,
            plan.sql,
        )
        changes = [(plan.table, -1, old), (plan.table, 1, new)]
        if plan.effects:
            call.new = new
            self._effects(plan, call, changes)
        return (self.db.decode(plan.table, new) if plan.returns == "row" else None), changes

    def delete(self, plan: Plan, args: dict[str, Any]) -> tuple[Any, list[tuple[str, int, tuple]]]:
        call = self._call(plan, args) if plan.contextual else None
        old, key_params = self._select_row(plan, args, call)
        sql = plan.sql.get("delete")
        if sql is None:
            where = key_where(b.column for b in plan.key)
            sql = plan.sql["delete"] = f"DELETE FROM {q(plan.table)} WHERE {where}"
        changes: list[tuple[str, int, tuple]] = []
        if any(e.where for e in plan.effects):  # children go first, so that no reference dangles
            self._effects(plan, call, changes, [e for e in plan.effects if e.where])
        self.db.conn.execute(sql, key_params)
        changes.insert(0, (plan.table, -1, old))
        if any(not e.where for e in plan.effects):
            self._effects(plan, call, changes, [e for e in plan.effects if not e.where])
        return (self.db.decode(plan.table, old) if plan.returns == "row" else None), changes

    def _insert(
        self, table: str, values: dict[str, Any], generate: dict[str, str], cache: dict[Any, str]
    ) -> tuple:
        """Insert a row (generating ids, uuids, times) and raise the table's pending serial; the row as read."""
        db = self.db
        current = self.serials.get(table)
        if current is None:
            current = db.serials[table]
        if generate:
            # The serial exceeds the number of every key of the table (inserts keep it so), so a
            # generated id is new.
            serial = current + 1
            for column, how in generate.items():
                if how == "id":
                    values[column] = db.key_format[table].make(serial)  # 7, "7", `cus_0007` or a name
                elif how == "uuid":
                    values[column] = str(
                        uuid.uuid5(uuid.NAMESPACE_URL, f"envscale:{db.name}/{table}/{column}/{serial}")
                    )
                elif how == "now":
                    values[column] = db.now
                elif how == "today":
                    values[column] = db.today
        names = tuple(values)
        sql = cache.get(names)
        if sql is None:
            columns = ", ".join(map(q, names))
            sql = cache[names] = (
                f"INSERT INTO {q(table)} ({columns}) VALUES ({', '.join('?' * len(names))}) RETURNING *"
            )
        (row,) = db.conn.execute(sql, list(values.values())).fetchall()
        row = db.as_read(table, row)
        self.serials[table] = max(current + 1, db.serial_of(table, row))
        return row

    def _update(
        self,
        table: str,
        names: tuple[str, ...],
        params: list[Any],
        constants: dict[str, Any],
        key: list[Binding],
        key_params: list[Any],
        cache: dict[Any, str],
    ) -> tuple:
        """Update the keyed row's `names` (then `constants`); the new row as read."""
        sql = cache.get(names)
        if sql is None:
            assignments = ", ".join(f"{q(c)} = ?" for c in (*names, *constants))
            where = key_where(b.column for b in key)
            sql = cache[names] = f"UPDATE {q(table)} SET {assignments} WHERE {where} RETURNING *"
        (new,) = self.db.conn.execute(sql, [*params, *constants.values(), *key_params]).fetchall()
        return self.db.as_read(table, new)

    def _effects(
        self,
        plan: Plan,
        call: Call,
        changes: list[tuple[str, int, tuple]],
        effects: list[Effect] | None = None,
    ) -> None:
        """Run the plan's effects (or `effects`) in order, adding the rows they remove and add to `changes`."""
        conn = self.db.conn
        for effect in plan.effects if effects is None else effects:
            self.effect = effect
            table = effect.table
            if effect.type == "insert":
                _check_guards(effect.guards, call)
                values = {b.column: b.encode(b.expr(call)) for b in effect.values}
                changes.append((table, 1, self._insert(table, values, effect.generate, effect.sql)))
                continue
            if effect.where:  # every matching row, each written as if addressed by its key
                params = [b.encode(b.expr(call)) for b in effect.where]
                index = self.db.pk_index[table]
                for target in conn.execute(effect.select, params).fetchall():
                    self._effect_row(effect, call, changes, target, [target[index]])
                continue
            keys = [b.expr(call) for b in effect.key]
            params = [b.encode(v) for b, v in zip(effect.key, keys, strict=True)]
            target = conn.execute(effect.select, params).fetchone()
            if target is None:
                key = ", ".join(f"{b.column}={short(v)}" for b, v in zip(effect.key, keys, strict=True))
                raise StepError("not_found", f"no {table} row with {key}")
            self._effect_row(effect, call, changes, target, params)
        self.effect = None

    def _effect_row(
        self, effect: Effect, call: Call, changes: list[tuple[str, int, tuple]], target: tuple, params: list
    ) -> None:
        """Update or delete one row an effect addresses (`target`, keyed by `params`): guards, then the write."""
        conn, table = self.db.conn, effect.table
        self.key_params = params
        call.target = target
        _check_guards(effect.guards, call)
        if effect.type == "update":
            values = [b.encode(b.expr(call)) for b in effect.values]
            names = tuple(b.column for b in effect.values)
            new = self._update(table, names, values, {}, effect.key, params, effect.sql)
            changes += [(table, -1, target), (table, 1, new)]
        else:
            sql = effect.sql.get("delete")
            if sql is None:
                where = key_where(b.column for b in effect.key)
                sql = effect.sql["delete"] = f"DELETE FROM {q(table)} WHERE {where}"
            conn.execute(sql, params)
            changes.append((table, -1, target))
        call.target = None

    # Failures --------------------------------------------------------------------------------

    def constraint_error(self, plan: Plan, args: dict[str, Any], exc: Exception) -> StepError:
        """The failure a constraint violation is (after the rollback), naming the offending column and value."""
        name = getattr(exc, "sqlite_errorname", "")
        if "CHECK" in name or "NOTNULL" in name or "cannot store" in str(exc):
            if self.effect is not None:
                return StepError("invalid_state", f"invalid value written to {self.effect.table}: {exc}")
            return StepError("invalid_arguments", f"invalid arguments: {exc}")
        if "FOREIGNKEY" in name:
            try:
                cause = self._missing_reference(plan, args)
            except Exception:  # the diagnosis is a courtesy; the generic message below still names the cause
                cause = None
            if cause:
                return StepError("conflict", cause)
        return StepError("conflict", f"conflict: {exc}")

    def _missing_reference(self, plan: Plan, args: dict[str, Any]) -> str | None:
        """Which reference a failed write broke: a row still referenced, or a referenced row missing."""
        db = self.db
        table, otype, key = (
            (plan.table, plan.op, plan.key)
            if self.effect is None
            else (self.effect.table, self.effect.type, self.effect.key)
        )
        if otype == "delete":
            where = key_where(b.column for b in key)
            pk = db.tables[table]["primary_key"]
            (value,) = db.conn.execute(
                f"SELECT {q(pk)} FROM {q(table)} WHERE {where}", self.key_params
            ).fetchone()
            for child, column in db.children[table]:
                if db.conn.execute(
                    f"SELECT 1 FROM {q(child)} WHERE {q(column)} = ? LIMIT 1", (value,)
                ).fetchone():
                    return f"{table} row {short(value)} is still referenced by {child}.{column}"
        if self.effect is not None:
            return None
        for b in plan.values:
            ref = db.tables[table]["columns"][b.column].get("references")
            if ref and b.arg is not None and args.get(b.arg) is not None:
                ref_pk = db.tables[ref]["primary_key"]
                value = b.encode(args[b.arg])
                if not db.conn.execute(
                    f"SELECT 1 FROM {q(ref)} WHERE {key_where([ref_pk])}", (value,)
                ).fetchone():
                    return f"{ref} has no row with {ref_pk}={short(args[b.arg])} (for {table}.{b.column})"
        return None


def _check_guards(guards: list[Guard], call: Call) -> None:
    for guard in guards:
        if not guard.test(guard.left(call), guard.right(call)):
            raise StepError("invalid_state", guard.message)
