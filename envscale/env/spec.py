"""The environment spec: a plain dict (hand-written as YAML, stored as a `datasets.Json` column).

An environment is an in-memory SQLite database plus tools that are read or write operations over
it. Tools are *data*: each names an operation (`get`, `list`, `count`, `insert`, `update`,
`delete`) on one table and binds its JSON Schema arguments to columns, so no generated code is ever
executed and a task's outcome can be checked by comparing database states.

Format 1.1 adds, still as data: expressions (`{arg}`, `{value}`, `{column}`, `{now}`,
`{session}`, `{add}`, `{count}`, ...) wherever a column gets a value, guards checked before a
write, effects (further writes in the same transaction) and a session row (the current user).
Every 1.0 spec is a 1.1 spec and behaves the same.

```yaml
name: shop
spec_version: "1.1"
description: An online shop back office.
policy: Only orders that have not shipped can be cancelled.
session: {table: customers}
tables:
  customers:
    primary_key: customer_id
    columns: {customer_id: {type: string}, name: {type: string}}
  products:
    primary_key: product_id
    columns: {product_id: {type: string}, stock: {type: integer, nullable: false}}
  orders:
    primary_key: order_id
    columns:
      order_id: {type: string}
      customer_id: {type: string, references: customers}
      product_id: {type: string, references: products}
      quantity: {type: integer, nullable: false}
      status: {type: string, enum: [pending, paid, shipped, cancelled]}
      updated_at: {type: string}
data: {seed: 0, rows: {customers: 5, products: 5, orders: 20}}
tools:
  - name: cancel_order
    description: Cancel an order that has not shipped; its quantity goes back in stock.
    kind: write
    parameters: {type: object, properties: {order_id: {type: string}}, required: [order_id]}
    operation:
      type: update
      table: orders
      key: {order_id: order_id}
      fixed: {status: cancelled}
      set: {updated_at: {now: datetime}}
      preconditions: [{column: status, op: in, value: [pending, paid], error: only orders that have not shipped can be cancelled}]
      guards: [{check: {eq: [{column: customer_id}, {session: customer_id}]}, error: not your order}]
      effects:
        - type: update
          table: products
          key: {product_id: {column: product_id}}
          set: {stock: {add: [{target: stock}, {column: quantity}]}}
```

Example:

```python
>>> from envscale.env.spec import SpecError, load_spec, validate_spec
>>> spec = load_spec("tests/fixtures/envs/shop.yaml")
>>> validate_spec(spec)
>>> spec["tools"][0]["operation"]["table"] = "nope"
>>> validate_spec(spec)
Traceback (most recent call last):
envscale.env.spec.SpecError: tool 'get_customer': operation table 'nope' is not a table (known: customers, order_items, orders, products)
```

The full format, field by field, is in the docstring of `validate_spec`; `spec_problems` lists
every problem of a spec at once.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs
import yaml

from ..errors import EnvscaleError
from ..safe_yaml import UnsafeYAMLError, load_yaml
from .columns import (
    COLUMN_JSON_TYPES,
    COLUMN_TYPES,
    NUMERIC_JSON_TYPES,
    is_json,
    is_nullable,
    json_type,
    text_problem,
    type_problem,
    value_problem,
)

# The column type rules (`COLUMN_TYPES`, `is_nullable`, `value_problem`, ...) live in
# `envscale.env.columns`; code that imported them from here still can.

SPEC_VERSION = "1.1"
"""Version of the spec format; a spec may declare `spec_version` and must then share its major."""

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
ENV_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
RESERVED_TABLE_PREFIXES = ("sqlite_", "envscale_")
MAX_ROWS_PER_TABLE = 100_000
"""Most rows `data.rows` may ask for in one table (a generated state lives in memory, and is copied
for every reset and every MCP client session). A larger count is a `SpecError`."""
SPEC_SUFFIXES = (".yaml", ".yml", ".json")
"""File name endings `load_spec` reads (`.json` as JSON, the others as YAML)."""

READ_OPERATIONS = ("get", "list", "count")
WRITE_OPERATIONS = ("insert", "update", "delete")
FILTER_OPS = ("eq", "ne", "lt", "le", "gt", "ge", "contains", "in")
GENERATED_VALUES = ("id", "uuid", "now", "today")
EXPRESSION_FORMS = (
    "arg",
    "value",
    "column",
    "target",
    "result",
    "now",
    "session",
    "add",
    "sub",
    "mul",
    "count",
)
"""The forms of an expression (1.1), each a mapping with exactly one of these keys (see `validate_spec`)."""
GUARD_OPS = ("eq", "ne", "lt", "le", "gt", "ge", "in")
"""The comparisons of a guard's `check` (1.1)."""
NOW_FORMS = ("datetime", "date")
"""What `{now: ...}` gives: the environment clock as an ISO datetime or date."""
DEFAULT_RETURNS = {
    "get": "row",
    "list": "rows",
    "count": "count",
    "insert": "row",
    "update": "row",
    "delete": "none",
}
ALLOWED_RETURNS = {
    "get": ("row",),
    "list": ("rows",),
    "count": ("count",),
    "insert": ("row", "none"),
    "update": ("row", "none"),
    "delete": ("row", "none"),
}
GENERATORS = {
    # hint -> column types it can fill; implemented in `envscale.env.data`.
    "name": ("string",),
    "first_name": ("string",),
    "last_name": ("string",),
    "email": ("string",),
    "phone": ("string",),
    "city": ("string",),
    "country": ("string",),
    "address": ("string",),
    "date": ("string",),
    "datetime": ("string",),
    "money": ("number", "integer"),
    "quantity": ("integer", "number"),
    "rating": ("integer", "number"),
    "status": ("string",),
    "title": ("string",),
    "text": ("string",),
    "url": ("string",),
    "uuid": ("string",),
    "digits": ("string",),  # a string key of digits (`"14"`): tools declare it both string and integer
    "word": ("string",),
    "boolean": ("boolean",),
    "integer": ("integer", "number"),
    "number": ("number",),
    "json": ("json",),
}

_TOP_KEYS = {
    "name",
    "description",
    "policy",
    "tables",
    "initial_state",
    "data",
    "tools",
    "spec_version",
    "metadata",
    "session",
}
_TABLE_KEYS = {"primary_key", "columns", "description", "unique"}
_COLUMN_KEYS = {"type", "enum", "nullable", "references", "unique", "generator", "description"}
_TOOL_KEYS = {"name", "description", "kind", "parameters", "output_schema", "operation", "metadata"}
_DATA_KEYS = {"seed", "rows", "now"}
_OPERATION_KEYS = {
    "get": {"key", "preconditions", "guards", "returns"},
    "list": {"filters", "order_by", "limit_arg", "returns"},
    "count": {"filters", "returns"},
    "insert": {"values", "generate", "defaults", "guards", "effects", "returns"},
    "update": {"key", "set", "fixed", "preconditions", "guards", "effects", "returns"},
    "delete": {"key", "preconditions", "guards", "effects", "returns"},
}
_EFFECT_KEYS = {
    "insert": {"values", "generate", "guards"},
    "update": {"key", "where", "set", "guards"},
    "delete": {"key", "where", "guards"},
}
# What a check of a wrongly shaped spec may raise (an unhashable name, a string where a mapping belongs).
_MALFORMED = (TypeError, AttributeError, KeyError)


class SpecError(EnvscaleError, ValueError):
    """An environment spec (or a state for it) is invalid; the message names the tool/table/column and why.

    Args:
        message (`str`): What is wrong and where.
        tool (`str`, *optional*): The tool the problem belongs to, when it belongs to one.
    """

    def __init__(self, message: str, *, tool: str | None = None):
        super().__init__(message)
        self.tool = tool


def load_spec(path: str | Path) -> dict[str, Any]:
    """Read a spec from a YAML (`.yaml`/`.yml`) or JSON file and validate it.

    Every problem, from a missing or unreadable file to an invalid tool, is one `SpecError` whose
    one-line message starts with the file name.

    Args:
        path (`str` or `Path`): The file.

    Returns:
        `dict`: The spec.

    Raises:
        `SpecError`: The file cannot be read (missing, a directory, not UTF-8, empty, not valid
            JSON/YAML, nested too deeply) or does not hold a valid spec.
    """
    path = Path(path)
    if path.is_dir():
        raise SpecError(f"{path}: is a directory, not a spec file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except OSError as exc:
        raise SpecError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not text.strip():
        raise SpecError(f"{path}: the file is empty; a spec is a mapping with name, tables and tools")
    try:
        spec = json.loads(text) if path.suffix == ".json" else load_yaml(text, where=str(path))
    except json.JSONDecodeError as exc:
        raise SpecError(
            f"{path}: not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except yaml.YAMLError as exc:
        raise SpecError(f"{path}: not valid YAML: {_yaml_problem(exc)}") from None
    except RecursionError:
        raise SpecError(f"{path}: nested too deeply to read") from None
    except UnsafeYAMLError as exc:  # an alias bomb or too deep: the message names the file already
        raise SpecError(str(exc)) from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise SpecError(f"{path}: cannot read a value: {' '.join(str(exc).split())}") from None
    if not isinstance(spec, dict):
        raise SpecError(
            f"{path}: a spec must be a mapping with name, tables and tools, got {type(spec).__name__}"
        )
    try:
        validate_spec(spec)
    except SpecError as exc:
        raise SpecError(f"{path}: {exc}", tool=exc.tool) from None
    return spec


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """A YAML error on one line: what is wrong and where (PyYAML's own text spans several lines)."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
    text = f"{problem}{where}" + (f", {context}" if context else "")
    return " ".join(text.split())


def validate_spec(spec: Any) -> None:
    """Check an environment spec; raise `SpecError` on the first problem (`spec_problems` lists them all).

    Top-level keys (others are an error): `name` (required, `[A-Za-z0-9_-]+`), `description`,
    `policy` (free text for agents), `spec_version` (must share `SPEC_VERSION`'s major; every 1.0
    spec is a valid 1.1 spec and behaves the same), `tables` (required), `initial_state`
    (`{table: [row, ...]}`; tables left out start empty), `data` (`seed`, `rows: {table: n}` with
    `n` at most `MAX_ROWS_PER_TABLE`, `now`: the environment's fixed clock as an ISO datetime),
    `session` (the current user, see below), `tools` (required list) and `metadata` (a free
    mapping, e.g. provenance; tools may carry one too).

    Tables: `{name: {primary_key, columns, description}}`; a column is
    `{type, enum, nullable, references, unique, generator, description}` with `type` one of
    `COLUMN_TYPES`, `references` naming a table whose primary key has the same type, and
    `generator` one of `GENERATORS`. Table and column names match `IDENTIFIER` and, as SQLite
    ignores their case, no two tables (or two columns of a table) differ only in case. String
    values (enum values, literals, rows) hold no unpaired UTF-16 surrogate (UTF-8 cannot encode
    one), and enum values, which go into the table's SQL, no NUL character.

    Session (1.1): `{table, key}`: the row of `table` whose primary key is `key` is the current
    user's (a customer, an account); without `key`, the table's first row by primary key in the
    state after each reset (`Environment.reset(session_key=...)` picks another). `key` must fit
    the table's primary key column. Expressions read it as `{session: COLUMN}`.

    Tools: `{name, description, kind, parameters, output_schema, operation, metadata}`. `kind` must
    agree with the operation (`get`/`list`/`count` read, `insert`/`update`/`delete` write). Every
    argument the operation uses must be declared in `parameters`, with a JSON type that fits the
    column (declared arguments the operation does not use are accepted and ignored). The operation
    keys per type:

    - `get`, `delete`: `key` (`{column: BINDING}`, covering the primary key or a unique column;
      argument bindings must be required arguments), `preconditions`, `guards`, `returns`;
      `delete` also `effects`;
    - `update`: `key`, `set` (`{column: BINDING}`), `fixed` (`{column: value}`), `preconditions`,
      `guards`, `effects`, `returns`; the primary key cannot be set;
    - `list`: `filters`, `order_by` (`{column, desc}`), `limit_arg`; `count`: `filters`;
    - `insert`: `values` (`{column: BINDING}`), `generate` (`{column: id|uuid|now|today}`),
      `defaults` (`{column: value}`), `guards`, `effects`; every non-nullable column must get a
      value (from a required argument, an expression, `generate` or `defaults`);
    - `filters`: `[{column, op, arg}]` (applied when the argument is given) or
      `[{column, op, value: EXPR}]` (1.1, always applied), `op` one of `FILTER_OPS` (default
      `eq`; `in` takes an array, `contains` a string);
    - `preconditions`: `[{column, op, value, error}]`, a literal `value`, checked on the addressed
      row before writing (failure: code `invalid_state` with `error`);
    - `returns`: `row`, `rows`, `count` or `none` (see `ALLOWED_RETURNS`, `DEFAULT_RETURNS`).

    A BINDING is an argument name (a string: the argument's value; in `values` and `set` a column
    whose argument is not given is left alone, as in 1.0) or, in 1.1, an expression (EXPR), a
    mapping with exactly one key (`EXPRESSION_FORMS`):

    - `{arg: NAME}`: a call argument (a missing optional one is null);
    - `{value: LITERAL}`: a JSON literal;
    - `{column: NAME}`: the addressed row's value before the write (get/update/delete: in `set`,
      `guards` and `effects`; not in keys, inserts or filters);
    - `{target: NAME}`: in an update/delete effect, that effect's addressed row before the effect;
    - `{result: NAME}`: in `effects` of an insert/update only: the main operation's row after the
      write (e.g. the id of a new order);
    - `{now: datetime}` / `{now: date}`: the environment clock (`data.now`) as ISO text;
    - `{session: NAME}`: a column of the session row as it is at the start of the call;
    - `{add: [EXPR, EXPR]}`, `{sub: [...]}`, `{mul: [...]}`: arithmetic on numbers (null or a
      non-number at run time: code `invalid_state`, or `invalid_arguments` for an argument);
    - `{count: {table, where: [{column, op, value: EXPR}]}}`: how many rows of `table` match.

    Expressions go wherever a value is bound: `key` (no row is addressed yet, so no `{column}`
    or `{target}`; an `{arg}` there must be a required argument; e.g. `{customer_id: {session:
    customer_id}}` for a "my profile" tool), `values`, `set`, the `value` of filters, guards,
    effects, and the `where` of a `{count}` (whose `op` defaults to `eq`). Expressions are typed:
    one whose type cannot fit its column (a string for a number column, arithmetic on a string
    column) is an error naming the tool and the place, and at run time a value that does not fit
    fails the call with `invalid_arguments` (a plain argument) or `invalid_state` (a computed
    value, a null where the column takes none).

    `guards` (1.1, on get/insert/update/delete and on effects): `[{check: {OP: [EXPR, EXPR]},
    error}]` with OP one of `GUARD_OPS` (`in` takes a list on the right, e.g. `{value: [a, b]}`);
    `eq`/`ne` are JSON equality (`1` equals `1.0`, a boolean only a boolean), `lt`/`le`/`gt`/`ge`
    hold only between two numbers or two strings (never with null), and comparing types that
    cannot match (a string with a number) is a spec error. A call runs: key, preconditions,
    guards (against the addressed row before the write and the arguments), values, the write,
    then each effect (key, guards, values, write). A failing guard fails the call with code
    `invalid_state` and its `error` (default: the check that failed).

    `effects` (1.1, on insert/update/delete): `[WRITE, ...]`, further writes run in order after
    the main one, in the same transaction, each `{type: insert|update|delete, table, key (update,
    delete), values (insert), set (update), generate (insert), guards}` whose values are all
    expressions (no bare argument names). In an effect `{column: X}` is the main operation's
    addressed row before the write when X is a column of the main table, else (in an update or
    delete effect whose table has X) the effect's own row; `{target: X}` is always the effect's
    own addressed row before the effect, and `{result: X}` the main row after the write. Effect
    expressions are evaluated when the effect runs, after the writes before it (a `{count}` sees
    them). An update or delete effect may give `where` (`[{column, op, value: EXPR}]`, as a
    `{count}`'s) instead of `key`: it then writes every matching row, none or many (a parent's
    children: `{type: delete, table: tasks, where: [{column: list_id, value: {column: list_id}}]}`),
    each with its guards and `{target}` read from that row; a delete's `where` effects run before
    its own row is removed (children first, so that no reference dangles), its other effects after. An effect whose row does not exist fails the whole call with
    `not_found`, a failing guard with `invalid_state`, a broken constraint with `conflict`; a
    failed call changes nothing.

    Args:
        spec (`dict`): The spec.

    Raises:
        `SpecError`: With a message naming the tool, table or column and the reason; `tool` is set
            when the problem belongs to a tool.
    """
    problems = spec_problems(spec)
    if problems:
        raise SpecError(problems[0]["reason"], tool=problems[0]["tool"])


def spec_problems(spec: Any) -> list[dict[str, Any]]:
    """Every problem of a spec in one pass: spec-level ones first, then each bad tool's first problem.

    Each tool is checked on its own, so a materializer can drop every bad tool at once. When the
    spec's tables are invalid, tools are not checked (they cannot be judged).

    Args:
        spec (`dict`): The spec.

    Returns:
        `list[dict]`: `[{"tool": name or None, "reason": text}]`, empty when the spec is valid.

    Example:

    ```python
    >>> from envscale.env.spec import load_spec, spec_problems
    >>> spec = load_spec("tests/fixtures/envs/shop.yaml")
    >>> spec["tools"][0]["operation"]["key"] = {"customer_id": {"arg": "nope"}}
    >>> spec["tools"][2]["kind"] = "write"
    >>> [p["tool"] for p in spec_problems(spec)]
    ['get_customer', 'get_product']
    ```
    """
    if not isinstance(spec, dict):
        return [{"tool": None, "reason": f"a spec must be a mapping, got {type(spec).__name__}"}]
    problems: list[dict[str, Any]] = []

    def attempt(check: Any, *args: Any) -> bool:
        try:
            check(*args)
        except SpecError as exc:
            problems.append({"tool": None, "reason": str(exc)})
            return False
        return True

    attempt(_unknown_keys, spec, _TOP_KEYS, "spec")
    attempt(_check_header, spec)
    tables = spec.get("tables")
    if not isinstance(tables, dict) or not tables:
        problems.append(
            {
                "tool": None,
                "reason": "spec tables must be a non-empty mapping {table: {primary_key, columns}}",
            }
        )
        return problems
    folded: dict[Any, Any] = {}
    tables_ok = True
    for table, tspec in tables.items():
        tables_ok &= attempt(_check_one_table, table, tspec, tables, folded)
    if not tables_ok:
        return problems
    attempt(_check_data, spec.get("data"), tables)
    if "initial_state" in spec:
        attempt(lambda: check_state(spec, spec["initial_state"], where="initial_state"))
    session_table = None
    if "session" in spec and attempt(_check_session, spec["session"], tables):
        session_table = spec["session"]["table"]
    tools = spec.get("tools")
    if not isinstance(tools, list):
        problems.append({"tool": None, "reason": "spec tools must be a list"})
        return problems
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            problems.append({"tool": None, "reason": f"tools[{i}] must be a mapping"})
            continue
        tname = tool.get("name")
        if not isinstance(tname, str) or not TOOL_NAME.fullmatch(tname):
            problems.append(
                {"tool": None, "reason": f"tools[{i}]: name must match {TOOL_NAME.pattern}, got {tname!r}"}
            )
            continue
        if tname in seen:
            problems.append({"tool": tname, "reason": f"tool {tname!r}: duplicate tool name"})
            continue
        seen.add(tname)
        try:
            _check_tool(tool, tables, session_table, "session" in spec)
        except SpecError as exc:
            problems.append({"tool": tname, "reason": f"tool {tname!r}: {exc}"})
        except (*_MALFORMED, RecursionError) as exc:
            problems.append(
                {"tool": tname, "reason": f"tool {tname!r} is malformed: {type(exc).__name__}: {exc}"}
            )
    return problems


def _check_header(spec: dict[str, Any]) -> None:
    name = spec.get("name")
    if not isinstance(name, str) or not ENV_NAME.fullmatch(name):
        raise SpecError(f"spec name must match {ENV_NAME.pattern}, got {name!r}")
    if "spec_version" in spec and str(spec["spec_version"]).split(".")[0] != SPEC_VERSION.split(".")[0]:
        raise SpecError(f"spec_version {spec['spec_version']!r} is not compatible with {SPEC_VERSION}")
    for key in ("description", "policy"):
        if not isinstance(spec.get(key, ""), str):
            raise SpecError(f"spec {key} must be a string")
    if not isinstance(spec.get("metadata", {}), dict):
        raise SpecError("spec metadata must be a mapping")


def _check_one_table(table: Any, tspec: Any, tables: dict[str, Any], folded: dict[Any, Any]) -> None:
    try:
        _check_table(table, tspec, tables)
    except _MALFORMED as exc:  # e.g. a list where a name belongs
        raise SpecError(f"table {table!r} is malformed: {type(exc).__name__}: {exc}") from None
    other = folded.setdefault(table.lower(), table)
    if other != table:
        raise SpecError(
            f"tables {other!r} and {table!r} differ only in case; SQLite table names ignore case, rename one"
        )


def _check_session(session: Any, tables: dict[str, Any]) -> None:
    if not isinstance(session, dict):
        raise SpecError("session must be a mapping {table, key}")
    _unknown_keys(session, {"table", "key"}, "session")
    table = session.get("table")
    if not isinstance(table, str) or table not in tables:
        raise SpecError(f"session: table {table!r} is not a table (known: {', '.join(sorted(tables))})")
    if "key" in session:
        tspec = tables[table]
        pk = tspec["primary_key"]
        key = session["key"]
        problem = "it is null" if key is None else value_problem(tspec["columns"][pk], key)
        if problem:
            raise SpecError(f"session: key {key!r:.80} does not fit {table}'s primary key {pk}: {problem}")


def check_state(spec: dict[str, Any], state: Any, *, where: str = "state") -> None:
    """Check a database state `{table: [row, ...]}` against the spec's tables.

    Checks table and column names, types, enums and non-nullable columns; primary key, unique and
    foreign key constraints are checked by SQLite when the state is loaded.

    Args:
        spec (`dict`): A spec whose `tables` are valid.
        state (`dict`): The rows per table (tables left out are empty).
        where (`str`, *optional*, defaults to `"state"`): How to name the state in messages.

    Raises:
        `SpecError`: The first problem, naming table, row index and column.
    """
    tables = spec["tables"]
    if not isinstance(state, dict):
        raise SpecError(f"{where} must be a mapping {{table: [row, ...]}}")
    for table, rows in state.items():
        if table not in tables:
            raise SpecError(f"{where}: unknown table {table!r} (known: {', '.join(sorted(tables))})")
        if not isinstance(rows, list):
            raise SpecError(f"{where}.{table} must be a list of rows")
        columns = tables[table]["columns"]
        for i, row in enumerate(rows):
            if not isinstance(row, dict):
                raise SpecError(f"{where}.{table}[{i}] must be a mapping")
            unknown = sorted(set(row) - set(columns))
            if unknown:
                raise SpecError(f"{where}.{table}[{i}]: unknown column(s) {', '.join(map(str, unknown))}")
            for column, cspec in columns.items():
                value = row.get(column)
                if value is None:
                    if not is_nullable(tables[table], column):
                        raise SpecError(f"{where}.{table}[{i}]: column {column!r} may not be null")
                    continue
                problem = value_problem(cspec, value)
                if problem:
                    raise SpecError(f"{where}.{table}[{i}].{column}: {problem}")


def check_row_counts(rows: Any, tables: dict[str, Any], *, where: str = "rows") -> None:
    """Check rows to generate per table: known tables, counts from 0 to `MAX_ROWS_PER_TABLE`.

    Args:
        rows (`dict[str, int]`): `{table: count}`.
        tables (`dict`): The spec's tables.
        where (`str`, *optional*, defaults to `"rows"`): How to name the counts in messages.

    Raises:
        `SpecError`: Naming the table and the problem.
    """
    if not isinstance(rows, dict):
        raise SpecError(f"{where} must be a mapping {{table: count}}")
    for table, count in rows.items():
        if table not in tables:
            raise SpecError(f"{where}: unknown table {table!r} (known: {', '.join(sorted(tables))})")
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise SpecError(f"{where}.{table} must be a non-negative integer, got {count!r:.80}")
        if count > MAX_ROWS_PER_TABLE:
            shown = f"{count:,}" if count.bit_length() < 64 else f"about 2**{count.bit_length() - 1}"
            raise SpecError(
                f"{where}.{table}: {shown} rows is over the limit of {MAX_ROWS_PER_TABLE:,} rows per table "
                "(envscale.env.spec.MAX_ROWS_PER_TABLE)"
            )


def _unknown_keys(mapping: dict[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(mapping) - allowed)
    if unknown:
        raise SpecError(
            f"{where}: unknown key(s) {', '.join(map(str, unknown))} (allowed: {', '.join(sorted(allowed))})"
        )


def _identifier(name: Any, what: str) -> None:
    if not isinstance(name, str) or not IDENTIFIER.fullmatch(name):
        raise SpecError(f"{what} {name!r} is not an identifier matching {IDENTIFIER.pattern}")


def _check_table(table: Any, tspec: Any, tables: dict[str, Any]) -> None:
    _identifier(table, "table name")
    if table.lower().startswith(RESERVED_TABLE_PREFIXES):
        raise SpecError(
            f"table {table!r}: names starting with {' or '.join(RESERVED_TABLE_PREFIXES)} are reserved"
        )
    if not isinstance(tspec, dict):
        raise SpecError(f"table {table!r} must be a mapping {{primary_key, columns}}")
    _unknown_keys(tspec, _TABLE_KEYS, f"table {table!r}")
    columns = tspec.get("columns")
    if not isinstance(columns, dict) or not columns:
        raise SpecError(f"table {table!r}: columns must be a non-empty mapping")
    pk = tspec.get("primary_key")
    if pk not in columns:
        raise SpecError(f"table {table!r}: primary_key {pk!r} is not one of its columns")
    unique = tspec.get("unique", [])
    if not isinstance(unique, list) or not all(
        isinstance(group, list)
        and len(group) >= 2
        and all(isinstance(c, str) and c in columns for c in group)
        for group in unique
    ):
        raise SpecError(
            f"table {table!r}: unique must be a list of column lists (each at least two of its columns), "
            f"got {unique!r:.120}"
        )
    folded: dict[str, str] = {}
    for column, cspec in columns.items():
        where = f"table {table!r} column {column!r}"
        _identifier(column, f"table {table!r}: column name")
        other = folded.setdefault(column.lower(), column)
        if other != column:
            raise SpecError(
                f"table {table!r}: columns {other!r} and {column!r} differ only in case; "
                "SQLite column names ignore case, rename one"
            )
        if not isinstance(cspec, dict):
            raise SpecError(f"{where} must be a mapping {{type: ...}}")
        _unknown_keys(cspec, _COLUMN_KEYS, where)
        ctype = cspec.get("type")
        if ctype not in COLUMN_TYPES:
            raise SpecError(f"{where}: type must be one of {', '.join(COLUMN_TYPES)}, got {ctype!r}")
        for flag in ("nullable", "unique"):
            if not isinstance(cspec.get(flag, False), bool):
                raise SpecError(f"{where}: {flag} must be true or false")
        if column == pk and cspec.get("nullable") is True:
            raise SpecError(f"{where}: the primary key cannot be nullable")
        if cspec.get("unique") and ctype not in ("string", "integer", "number"):
            raise SpecError(f"{where}: unique needs a string, integer or number column, not {ctype}")
        if column == pk and ctype not in ("string", "integer"):
            raise SpecError(f"{where}: a primary key must be a string or integer column, got {ctype}")
        if "enum" in cspec:
            enum = cspec["enum"]
            if ctype not in ("string", "integer", "number") or not isinstance(enum, list) or not enum:
                raise SpecError(f"{where}: enum must be a non-empty list on a string/integer/number column")
            for value in enum:
                # Enum values are written into the table's CHECK constraint, so NUL is refused too.
                problem = (
                    text_problem(value, nul=True) if isinstance(value, str) and ctype == "string" else None
                )
                if problem:
                    raise SpecError(f"{where}: enum value {value!r:.80} {problem}")
                if value is None or value_problem({"type": ctype}, value):
                    raise SpecError(f"{where}: enum value {value!r} is not a {ctype}")
            if len(set(enum)) != len(enum):
                raise SpecError(f"{where}: enum has duplicate values")
        if "references" in cspec:
            ref = cspec["references"]
            if ref not in tables:
                raise SpecError(
                    f"{where}: references unknown table {ref!r} (known: {', '.join(sorted(tables))})"
                )
            ref_pk_type = (
                tables[ref]["columns"][tables[ref]["primary_key"]]["type"] if _table_ok(tables[ref]) else None
            )
            if ref_pk_type is not None and ref_pk_type != ctype:
                raise SpecError(
                    f"{where}: type {ctype} differs from the type {ref_pk_type} of {ref}'s primary key"
                )
        if "generator" in cspec:
            hint = cspec["generator"]
            if hint not in GENERATORS:
                raise SpecError(f"{where}: unknown generator {hint!r} (known: {', '.join(GENERATORS)})")
            if ctype not in GENERATORS[hint]:
                raise SpecError(
                    f"{where}: generator {hint!r} makes {'/'.join(GENERATORS[hint])} values, not {ctype}"
                )


def _table_ok(tspec: Any) -> bool:
    """Whether a (possibly not yet checked) table has a usable primary key column."""
    return (
        isinstance(tspec, dict)
        and isinstance(tspec.get("columns"), dict)
        and tspec.get("primary_key") in tspec["columns"]
    )


def _check_data(data: Any, tables: dict[str, Any]) -> None:
    if data is None:
        return
    if not isinstance(data, dict):
        raise SpecError("data must be a mapping {seed, rows, now}")
    _unknown_keys(data, _DATA_KEYS, "data")
    if not isinstance(data.get("seed", 0), int) or isinstance(data.get("seed"), bool):
        raise SpecError(f"data.seed must be an integer, got {data.get('seed')!r}")
    check_row_counts(data.get("rows", {}), tables, where="data.rows")
    now = data.get("now")
    if now is not None and (
        not isinstance(now, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", now)
    ):
        raise SpecError(f"data.now must be an ISO datetime like 2025-06-01T12:00:00Z, got {now!r}")


@dataclass(frozen=True)
class _Scope:
    """What the expressions of one place of a tool may read: the tables their row forms read, or why not."""

    tables: dict[str, Any]
    props: dict[str, Any]
    session: str | None
    no_session: str
    column: str | None = None
    no_column: str = "cannot be used here: no row is addressed"
    target: str | None = None
    no_target: str = "is only allowed in the guards and set of an update or delete effect (its own row)"
    result: str | None = None
    no_result: str = "is only allowed in effects of an insert or update (the main row after the write)"


def _check_tool(
    tool: dict[str, Any], tables: dict[str, Any], session: str | None, has_session: bool = False
) -> None:
    _unknown_keys(tool, _TOOL_KEYS, "tool")
    if not isinstance(tool.get("description", ""), str):
        raise SpecError("description must be a string")
    if not isinstance(tool.get("metadata", {}), dict):
        raise SpecError("metadata must be a mapping")
    params = tool.get("parameters")
    if not isinstance(params, dict) or params.get("type") != "object":
        raise SpecError("parameters must be a JSON Schema with type: object")
    problem = _schema_problem(json.dumps(params, sort_keys=True))
    if problem:
        raise SpecError(f"parameters is not a valid JSON Schema: {problem}")
    props = params.get("properties", {})
    if not isinstance(props, dict) or not all(isinstance(p, dict) for p in props.values()):
        raise SpecError("parameters.properties must map argument names to schemas")
    required = set(params.get("required", []))
    missing = sorted(required - set(props))
    if missing:
        raise SpecError(f"required argument(s) {', '.join(missing)} are not in parameters.properties")
    if tool.get("output_schema") is not None:
        schema = tool["output_schema"]
        if not isinstance(schema, dict):
            raise SpecError("output_schema must be a JSON Schema object")
        problem = _schema_problem(json.dumps(schema, sort_keys=True))
        if problem:
            raise SpecError(f"output_schema is not a valid JSON Schema: {problem}")

    op = tool.get("operation")
    if not isinstance(op, dict):
        raise SpecError("operation must be a mapping {type, table, ...}")
    otype = op.get("type")
    if otype not in _OPERATION_KEYS:
        raise SpecError(f"operation type must be one of {', '.join(_OPERATION_KEYS)}, got {otype!r}")
    _unknown_keys(op, _OPERATION_KEYS[otype] | {"type", "table"}, f"operation {otype}")
    kind = tool.get("kind")
    expected = "read" if otype in READ_OPERATIONS else "write"
    if kind != expected:
        raise SpecError(f"kind {kind!r} disagrees with operation {otype!r}, which is a {expected}")
    table = op.get("table")
    if not isinstance(table, str) or table not in tables:
        raise SpecError(f"operation table {table!r} is not a table (known: {', '.join(sorted(tables))})")
    check = _Checker(tables, props, required)
    no_session = (
        "needs the spec's session, which is invalid"
        if has_session
        else "needs a session: the spec declares none"
    )
    base = _Scope(tables, props, session, no_session)
    tspec = tables[table]
    columns = tspec["columns"]
    addressed = otype in ("get", "update", "delete")
    # The expressions of the main operation: keys before the row is addressed, the rest after it.
    key_scope = replace(base, no_column="cannot be used in a key: the row is not addressed yet")
    body = (
        replace(base, column=table)
        if addressed
        else replace(base, no_column=f"cannot be used in a {otype}: it addresses no row")
    )

    if addressed:
        check.key(op, table, key_scope, "", plain=True)
        preconditions = op.get("preconditions", [])
        if not isinstance(preconditions, list):
            raise SpecError("preconditions must be a list")
        for i, cond in enumerate(preconditions):
            where = f"preconditions[{i}]"
            if not isinstance(cond, dict):
                raise SpecError(f"{where} must be a mapping {{column, op, value, error}}")
            _unknown_keys(cond, {"column", "op", "value", "error"}, where)
            cspec = check.column(table, cond.get("column"), where)
            _check_op(cond.get("op"), cspec, where)
            if cond["op"] == "in":
                if not isinstance(cond.get("value"), list):
                    raise SpecError(f"{where}: op 'in' needs a list value")
                for value in cond["value"]:
                    check.literal(table, cond["column"], value, where)
            elif cond["op"] == "contains":
                if not isinstance(cond.get("value"), str):
                    raise SpecError(f"{where}: op 'contains' needs a string value")
            else:
                check.literal(table, cond["column"], cond.get("value"), where)
            if not isinstance(cond.get("error", ""), str):
                raise SpecError(f"{where}: error must be a string")
    if "guards" in op:
        check.guards(op["guards"], body, "")

    if otype in ("list", "count"):
        filters = op.get("filters", [])
        if not isinstance(filters, list):
            raise SpecError("filters must be a list")
        for i, flt in enumerate(filters):
            where = f"filters[{i}]"
            if not isinstance(flt, dict):
                raise SpecError(f"{where} must be a mapping {{column, arg, op}} or {{column, op, value}}")
            _unknown_keys(flt, {"column", "arg", "op", "value"}, where)
            cspec = check.column(table, flt.get("column"), where)
            fop = flt.get("op", "eq")
            _check_op(fop, cspec, where)
            if ("arg" in flt) == ("value" in flt):
                raise SpecError(f"{where}: give either arg (an argument name) or value (an expression)")
            if "arg" in flt:
                check.argument(table, flt.get("arg"), flt["column"], where, array=fop == "in")
            else:
                check.filter_value(table, flt["column"], fop, flt["value"], body, f"{where}.value")
    if otype == "list":
        order_by = op.get("order_by")
        if order_by is not None:
            if not isinstance(order_by, dict):
                raise SpecError("order_by must be a mapping {column, desc}")
            _unknown_keys(order_by, {"column", "desc"}, "order_by")
            check.column(table, order_by.get("column"), "order_by")
            if not isinstance(order_by.get("desc", False), bool):
                raise SpecError("order_by.desc must be true or false")
        if "limit_arg" in op:
            arg = op["limit_arg"]
            if not isinstance(arg, str) or arg not in props:
                raise SpecError(f"limit_arg: argument {arg!r} is not declared in parameters.properties")
            if props[arg].get("type") != "integer":
                raise SpecError(f"limit_arg: argument {arg!r} must have type integer")

    if otype == "insert":
        values, generate, defaults = (
            _mapping(op, name, "operation ") for name in ("values", "generate", "defaults")
        )
        for col, value in values.items():
            check.column(table, col, "values")
            check.bind(table, col, value, body, _at("values", col, value), plain=True)
        _check_generate(generate, table, tspec, values, "")
        for col, value in defaults.items():
            check.column(table, col, "defaults")
            check.literal(table, col, value, f"defaults.{col}")
            if col in generate:
                raise SpecError(f"defaults.{col}: column is also generated")
        for col in columns:
            if is_nullable(tspec, col) or col in generate or col in defaults:
                continue
            if col not in values or not _fills(values[col], required):
                raise SpecError(
                    f"column {table}.{col} is not nullable: fill it from a required argument (values), generate or defaults"
                )

    if otype == "update":
        set_, fixed = _mapping(op, "set", "operation "), _mapping(op, "fixed", "operation ")
        if not set_ and not fixed:
            raise SpecError("update needs set {column: argument} or fixed {column: value}")
        for col, value in set_.items():
            check.column(table, col, "set")
            check.bind(table, col, value, body, _at("set", col, value), plain=True)
        for col, value in fixed.items():
            check.column(table, col, "fixed")
            check.literal(table, col, value, f"fixed.{col}")
            if col in set_:
                raise SpecError(f"fixed.{col}: column is also in set")
        for col in set(set_) | set(fixed):
            if col == tspec["primary_key"]:
                raise SpecError(f"update cannot change the primary key {table}.{col}")

    if "effects" in op:
        effects = op["effects"]
        if not isinstance(effects, list):
            raise SpecError("effects must be a list of writes {type, table, ...}")
        scope = replace(
            base,
            column=table if addressed else None,
            no_column="reads the main operation's addressed row, and an insert addresses none: "
            "use {result: COLUMN} for the inserted row",
            result=table if otype in ("insert", "update") else None,
            no_result="reads the main row after the write, and a delete leaves none: "
            "use {column: COLUMN} for the deleted row",
        )
        for i, effect in enumerate(effects):
            check.effect(effect, scope, f"effects[{i}]")

    returns = op.get("returns", DEFAULT_RETURNS[otype])
    if returns not in ALLOWED_RETURNS[otype]:
        raise SpecError(
            f"returns {returns!r} is not allowed for {otype} (allowed: {', '.join(ALLOWED_RETURNS[otype])})"
        )


def _mapping(op: dict[str, Any], name: str, what: str) -> dict[str, Any]:
    value = op.get(name, {})
    if not isinstance(value, dict):
        raise SpecError(f"{what}{name} must be a mapping {{column: ...}}")
    return value


def _at(place: str, col: str, binding: Any) -> str:
    """Where a binding is, for messages: `values` for an argument name (as 1.0 said), `values.col` for an expression."""
    return place if isinstance(binding, str) else f"{place}.{col}"


def _fills(binding: Any, required: set[str]) -> bool:
    """Whether a binding always gives a non-null column a value: a required argument or another expression."""
    if isinstance(binding, str):
        return binding in required
    if isinstance(binding, dict) and len(binding) == 1:
        if "arg" in binding:
            return isinstance(binding["arg"], str) and binding["arg"] in required
        if "value" in binding:
            return binding["value"] is not None
    return True  # computed: a null is refused when the call runs


def _check_generate(
    generate: dict[str, Any], table: str, tspec: dict[str, Any], values: dict[str, Any], where: str
) -> None:
    columns = tspec["columns"]
    for col, how in generate.items():
        if col not in columns:
            raise SpecError(f"{where}generate: {table} has no column {col!r} (columns: {', '.join(columns)})")
        cspec = columns[col]
        if how not in GENERATED_VALUES:
            raise SpecError(
                f"{where}generate.{col}: must be one of {', '.join(GENERATED_VALUES)}, got {how!r}"
            )
        if col in values:
            raise SpecError(f"{where}generate.{col}: column is also set from an argument in values")
        needed = "integer" if how == "id" and cspec["type"] == "integer" else "string"
        if cspec["type"] != needed or (how == "id" and col != tspec["primary_key"]):
            raise SpecError(
                f"{where}generate.{col}: {how!r} fills a {needed} column{' (the primary key)' if how == 'id' else ''}"
            )


class _Checker:
    """The checks of one tool's operation, bindings and expressions (each raises `SpecError`)."""

    def __init__(self, tables: dict[str, Any], props: dict[str, Any], required: set[str]):
        self.tables, self.props, self.required = tables, props, required

    def column(self, table: str, name: Any, where: str) -> dict[str, Any]:
        columns = self.tables[table]["columns"]
        if not isinstance(name, str) or name not in columns:
            raise SpecError(f"{where}: {table} has no column {name!r} (columns: {', '.join(columns)})")
        return columns[name]

    def argument(self, table: str, arg: Any, col: str, where: str, *, array: bool = False) -> None:
        """An argument bound to a column: declared, with a JSON type and enum that fit the column."""
        if not isinstance(arg, str) or arg not in self.props:
            raise SpecError(f"{where}: argument {arg!r} is not declared in parameters.properties")
        prop, cspec = self.props[arg], self.tables[table]["columns"][col]
        if array:
            if "type" in prop and prop["type"] != "array":
                raise SpecError(f"{where}: argument {arg!r} must be an array for op 'in'")
            prop = prop.get("items", {}) if isinstance(prop.get("items", {}), dict) else {}
        _argument_fits(prop, cspec, f"{where}: argument {arg!r} for column {table}.{col}")

    def literal(self, table: str, col: str, value: Any, where: str) -> None:
        tspec = self.tables[table]
        if value is None:
            if not is_nullable(tspec, col):
                raise SpecError(f"{where}: column {table}.{col} may not be null")
            return
        problem = value_problem(tspec["columns"][col], value)
        if problem:
            raise SpecError(f"{where}: column {table}.{col}: {problem}")

    def bind(self, table: str, col: str, binding: Any, scope: _Scope, where: str, *, plain: bool) -> None:
        """A value written to (or compared with) a column: an argument name where `plain`, else an expression."""
        if isinstance(binding, str):
            if not plain:
                raise SpecError(
                    f"{where}: in effects every value is an expression such as {{arg: {binding}}}, "
                    f"not a bare string {binding!r}"
                )
            self.argument(table, binding, col, where)
            return
        types = self.expression(binding, scope, where)
        if _form(binding) == "arg":
            self.argument(table, binding["arg"], col, where)
        elif _form(binding) == "value":
            self.literal(table, col, binding["value"], where)
        else:
            problem = type_problem(types, self.tables[table]["columns"][col]["type"])
            if problem:
                raise SpecError(f"{where}: {_brief(binding)} cannot be written to {table}.{col}: {problem}")

    def key(self, spec: dict[str, Any], table: str, scope: _Scope, where: str, *, plain: bool) -> None:
        key = _mapping(spec, "key", "operation " if plain else f"{where}.")
        prefix = f"{where}." if where else ""
        if not key:
            what = f"operation {spec.get('type')}" if plain else where
            raise SpecError(f"{what} needs a key {{column: {'argument' if plain else 'expression'}}}")
        for col, binding in key.items():
            self.column(table, col, f"{prefix}key")
            self.bind(
                table, col, binding, scope, _at(f"{prefix}key", col, binding if plain else None), plain=plain
            )
            arg = (
                binding
                if isinstance(binding, str)
                else binding.get("arg")
                if _form(binding) == "arg"
                else None
            )
            if arg is not None and arg not in self.required:
                raise SpecError(f"{prefix}key argument {arg!r} must be listed in parameters.required")
        tspec = self.tables[table]
        unique_cols = {tspec["primary_key"]} | {c for c, s in tspec["columns"].items() if s.get("unique")}
        covers = any(set(group) <= set(key) for group in tspec.get("unique", []))
        if not unique_cols & set(key) and not covers:
            raise SpecError(
                f"{prefix}key columns {', '.join(key)} do not identify one row: include {table}'s primary key, "
                "a unique column or every column of one of its unique sets"
            )

    def filter_value(self, table: str, col: str, op: str, expr: Any, scope: _Scope, where: str) -> None:
        """The value expression of a filter (or of a count's `where`) on `table.col` with `op`."""
        if op == "in":
            types = self.expression(expr, scope, where)
            if _form(expr) == "value":
                if not isinstance(expr["value"], list):
                    raise SpecError(f"{where}: op 'in' needs a list value")
                for value in expr["value"]:
                    self.literal(table, col, value, where)
            elif _form(expr) == "arg":
                self.argument(table, expr["arg"], col, where, array=True)
            elif types is not None and set(types) - {"array", "null"}:
                raise SpecError(f"{where}: op 'in' needs a list, and {_brief(expr)} is not one")
        elif op == "contains":
            types = self.expression(expr, scope, where)
            if types is not None and set(types) - {"string", "null"}:
                raise SpecError(f"{where}: op 'contains' needs a string, and {_brief(expr)} is not one")
        else:
            self.bind(table, col, expr, scope, where, plain=False)

    def effect_where(self, conditions: Any, table: str, scope: _Scope, where: str) -> None:
        """The `where` of an update/delete effect: `[{column, op, value: EXPR}, ...]`, at least one."""
        if not isinstance(conditions, list) or not conditions:
            raise SpecError(f"{where}.where must be a non-empty list of {{column, op, value}}")
        self.conditions(conditions, table, scope, f"{where}.where")

    def conditions(self, conditions: list, table: str, scope: _Scope, where: str) -> None:
        """Each `{column, op, value: EXPR}` of a `where` (of a `{count}` or of an effect) on `table`."""
        for i, cond in enumerate(conditions):
            here = f"{where}[{i}]"
            if not isinstance(cond, dict):
                raise SpecError(f"{here} must be a mapping {{column, op, value}}")
            _unknown_keys(cond, {"column", "op", "value"}, here)
            cspec = self.column(table, cond.get("column"), here)
            op = cond.get("op", "eq")
            _check_op(op, cspec, here)
            if "value" not in cond:
                raise SpecError(f"{here}: value (an expression) is missing")
            self.filter_value(table, cond["column"], op, cond["value"], scope, f"{here}.value")

    def guards(self, guards: Any, scope: _Scope, prefix: str) -> None:
        if not isinstance(guards, list):
            raise SpecError(f"{prefix}guards must be a list of {{check, error}}")
        for i, guard in enumerate(guards):
            where = f"{prefix}guards[{i}]"
            if not isinstance(guard, dict):
                raise SpecError(f"{where} must be a mapping {{check, error}}")
            _unknown_keys(guard, {"check", "error"}, where)
            check = guard.get("check")
            if not isinstance(check, dict) or len(check) != 1:
                raise SpecError(
                    f"{where}.check must be a mapping with one comparison {{op: [left, right]}}, "
                    f"op one of {', '.join(GUARD_OPS)}"
                )
            ((op, operands),) = check.items()
            if op not in GUARD_OPS:
                raise SpecError(f"{where}.check: op must be one of {', '.join(GUARD_OPS)}, got {op!r}")
            if not isinstance(operands, list) or len(operands) != 2:
                raise SpecError(f"{where}.check.{op} takes a list of two expressions [left, right]")
            if not isinstance(guard.get("error", ""), str):
                raise SpecError(f"{where}: error must be a string")
            left = self.expression(operands[0], scope, f"{where}.check.{op}[0]")
            right = self.expression(operands[1], scope, f"{where}.check.{op}[1]")
            if op == "in":
                if _form(operands[1]) == "value" and not isinstance(operands[1]["value"], list):
                    raise SpecError(
                        f"{where}.check.in: the right side must be a list, e.g. {{value: [a, b]}}"
                    )
                if right is not None and set(right) - {"array", "null"}:
                    raise SpecError(f"{where}.check.in: the right side {_brief(operands[1])} is not a list")
                continue
            kinds = [_kinds(left), _kinds(right)]
            if op in ("lt", "le", "gt", "ge"):
                for side, found in zip(operands, kinds, strict=True):
                    if found is not None and (found - {"number", "string"} or len(found) > 1):
                        raise SpecError(
                            f"{where}.check.{op}: {_brief(side)} is a {'/'.join(sorted(found))}; "
                            "order comparisons need numbers or strings"
                        )
            if all(k is not None and k for k in kinds) and not kinds[0] & kinds[1]:
                raise SpecError(
                    f"{where}.check.{op}: compares a {'/'.join(sorted(kinds[0]))} with a "
                    f"{'/'.join(sorted(kinds[1]))}: {_brief(operands[0])} and {_brief(operands[1])}"
                )

    def effect(self, effect: Any, scope: _Scope, where: str) -> None:
        if not isinstance(effect, dict):
            raise SpecError(f"{where} must be a mapping {{type, table, ...}}")
        etype = effect.get("type")
        if etype not in _EFFECT_KEYS:
            raise SpecError(f"{where}: type must be one of {', '.join(_EFFECT_KEYS)}, got {etype!r}")
        _unknown_keys(effect, _EFFECT_KEYS[etype] | {"type", "table"}, where)
        table = effect.get("table")
        if not isinstance(table, str) or table not in self.tables:
            raise SpecError(
                f"{where}: table {table!r} is not a table (known: {', '.join(sorted(self.tables))})"
            )
        tspec = self.tables[table]
        key_scope = replace(
            scope, no_target="cannot be used in an effect's key: its row is not addressed yet"
        )
        if etype == "insert":
            own = replace(scope, no_target="cannot be used in an insert effect: it addresses no row")
            values, generate = (
                _mapping(effect, "values", f"{where}."),
                _mapping(effect, "generate", f"{where}."),
            )
            for col, binding in values.items():
                self.column(table, col, f"{where}.values")
                self.bind(table, col, binding, own, f"{where}.values.{col}", plain=False)
            _check_generate(generate, table, tspec, values, f"{where}.")
            for col in tspec["columns"]:
                if is_nullable(tspec, col) or col in generate:
                    continue
                if col not in values or not _fills(values[col], self.required):
                    raise SpecError(
                        f"{where}: column {table}.{col} is not nullable: fill it from values (a required "
                        "argument or another expression) or generate"
                    )
        elif "where" in effect:
            own = replace(scope, target=table)
            if "key" in effect:
                raise SpecError(f"{where}: give a key (one row) or where (every matching row), not both")
            self.effect_where(effect["where"], table, key_scope, where)
        else:
            own = replace(scope, target=table)
            self.key(effect, table, key_scope, where, plain=False)
        if etype == "update":
            set_ = _mapping(effect, "set", f"{where}.")
            if not set_:
                raise SpecError(f"{where}: an update effect needs set {{column: expression}}")
            for col, binding in set_.items():
                self.column(table, col, f"{where}.set")
                if col == tspec["primary_key"]:
                    raise SpecError(f"{where}: an update cannot change the primary key {table}.{col}")
                self.bind(table, col, binding, own, f"{where}.set.{col}", plain=False)
        if "guards" in effect:
            self.guards(effect["guards"], own, f"{where}.")

    def expression(self, expr: Any, scope: _Scope, where: str) -> frozenset[str] | None:
        """Check an expression; return the JSON types of its values (`None`: unknown)."""
        form = _form(expr)
        if form is None:
            raise SpecError(
                f"{where}: an expression is a mapping with one key, one of {', '.join(EXPRESSION_FORMS)}; "
                f"got {_brief(expr)}"
            )
        arg = expr[form]
        if form == "arg":
            if not isinstance(arg, str) or arg not in self.props:
                raise SpecError(f"{where}: argument {arg!r} is not declared in parameters.properties")
            return _schema_types(self.props[arg])
        if form == "value":
            if not is_json(arg):
                raise SpecError(f"{where}: {arg!r:.80} is not a JSON value")
            problem = _strings_problem(arg)
            if problem:
                raise SpecError(f"{where}: {problem}")
            return frozenset({json_type(arg)})
        if form in ("column", "target", "result", "session"):
            form = row_form(form, arg, scope.column, scope.target, self.tables)
            table = getattr(scope, form)
            if table is None:
                raise SpecError(f"{where}: {{{form}: {arg}}} {getattr(scope, 'no_' + form)}")
            if form == "column" and scope.target is not None and arg not in self.tables[table]["columns"]:
                raise SpecError(
                    f"{where}: neither {table} (the main row) nor {scope.target} (this effect's row) "
                    f"has a column {arg!r}"
                )
            return COLUMN_JSON_TYPES[self.column(table, arg, where)["type"]]
        if form == "now":
            if arg not in NOW_FORMS:
                raise SpecError(f"{where}: now must be one of {', '.join(NOW_FORMS)}, got {arg!r}")
            return frozenset({"string"})
        if form in _ARITHMETIC:
            if not isinstance(arg, list) or len(arg) != 2:
                raise SpecError(f"{where}: {form} takes a list of two expressions, got {_brief(arg)}")
            types = []
            for i, operand in enumerate(arg):
                found = self.expression(operand, scope, f"{where}.{form}[{i}]")
                if found is not None and set(found) - NUMERIC_JSON_TYPES - {"null"}:
                    kinds = "/".join(sorted(set(found) - {"null"}))
                    raise SpecError(f"{where}: {form} needs numbers, and {_brief(operand)} is a {kinds}")
                types.append(found)
            if any(t is None for t in types):
                return None
            return frozenset({"integer"}) if all(set(t) - {"null"} <= {"integer"} for t in types) else _NUMBER
        if form == "count":
            if not isinstance(arg, dict):
                raise SpecError(f"{where}: count takes a mapping {{table, where}}")
            _unknown_keys(arg, {"table", "where"}, f"{where}.count")
            table = arg.get("table")
            if not isinstance(table, str) or table not in self.tables:
                raise SpecError(
                    f"{where}.count: table {table!r} is not a table (known: {', '.join(sorted(self.tables))})"
                )
            conditions = arg.get("where", [])
            if not isinstance(conditions, list):
                raise SpecError(f"{where}.count.where must be a list of {{column, op, value}}")
            self.conditions(conditions, table, scope, f"{where}.count.where")
            return frozenset({"integer"})
        raise AssertionError(form)


_NUMBER = frozenset({"number"})
_ARITHMETIC = ("add", "sub", "mul")


def row_form(
    form: str, name: Any, column_table: str | None, target_table: str | None, tables: dict[str, Any]
) -> str:
    """Which row a row form reads: `{column: X}` inside an update/delete effect reads the main
    operation's addressed row when X is one of its columns, else the effect's own row (`target`).

    Args:
        form (`str`): The expression form (`column`, `target`, `result`, ...).
        name: The column the expression names.
        column_table (`str` or `None`): The table of the main addressed row, if there is one.
        target_table (`str` or `None`): The table of the effect's own addressed row, if there is one.
        tables (`dict`): The spec's tables.

    Returns:
        `str`: `form`, or `target` for a `column` the main row does not have and the effect's row has.
    """
    if (
        form == "column"
        and target_table is not None
        and isinstance(name, str)
        and name in tables[target_table]["columns"]
        and (column_table is None or name not in tables[column_table]["columns"])
    ):
        return "target"
    return form


def _form(expr: Any) -> str | None:
    """The form of an expression (`arg`, `value`, ...), or `None` if `expr` is not one."""
    if isinstance(expr, dict) and len(expr) == 1:
        form = next(iter(expr))
        if form in EXPRESSION_FORMS:
            return form
    return None


def _kinds(types: frozenset[str] | None) -> set[str] | None:
    """JSON types as comparison kinds: integers and numbers are one kind, null is left out."""
    if types is None:
        return None
    return {"number" if t in NUMERIC_JSON_TYPES else t for t in types} - {"null"}


def _schema_types(prop: dict[str, Any]) -> frozenset[str] | None:
    """The JSON types an argument schema allows (from `type`, else `enum`), or `None` if it does not say."""
    declared = prop.get("type")
    if isinstance(declared, str):
        return frozenset({declared})
    if isinstance(declared, list) and all(isinstance(t, str) for t in declared):
        return frozenset(declared)
    if isinstance(prop.get("enum"), list) and prop["enum"]:
        return frozenset(json_type(v) for v in prop["enum"])
    return None


def _strings_problem(value: Any) -> str | None:
    """Why a JSON literal cannot be stored (a string in it holds an unpaired surrogate), or `None`."""
    if isinstance(value, str):
        problem = text_problem(value)
        return f"{value!r:.80} {problem}" if problem else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        problem = _strings_problem(key) if isinstance(key, str) else None
        problem = problem or _strings_problem(item)
        if problem:
            return problem
    return None


def _brief(value: Any) -> str:
    """An expression as compact JSON for messages (at most 80 characters)."""
    try:
        text = json.dumps(value, separators=(", ", ": "), ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def plain_operation(operation: dict[str, Any]) -> dict[str, Any]:
    """An operation as a 1.0 one: only its argument bindings (for code that reads 1.0 operations).

    Keys, values and set keep the columns bound to an argument (a name or `{arg: NAME}`, as the
    name); filters keep those on an argument (a `value: {arg: NAME}` becomes `arg: NAME`); other
    expressions, `guards` and `effects` are left out.

    Example:

    ```python
    >>> plain_operation({"type": "update", "table": "t", "key": {"id": {"session": "id"}},
    ...                  "set": {"n": {"arg": "n"}, "m": {"add": [{"column": "m"}, {"value": 1}]}}, "guards": []})
    {'type': 'update', 'table': 't', 'key': {}, 'set': {'n': 'n'}}
    ```
    """
    plain = {k: v for k, v in operation.items() if k not in ("guards", "effects")}
    for name in ("key", "values", "set"):
        if isinstance(plain.get(name), dict):
            plain[name] = {
                c: a for c, a in ((c, _arg_of(b)) for c, b in plain[name].items()) if a is not None
            }
    if isinstance(plain.get("filters"), list):
        filters = []
        for flt in plain["filters"]:
            if isinstance(flt, dict) and "value" in flt:
                arg = _arg_of(flt["value"])
                if arg is None:
                    continue
                flt = {**{k: v for k, v in flt.items() if k != "value"}, "arg": arg}
            filters.append(flt)
        plain["filters"] = filters
    return plain


def has_extensions(operation: dict[str, Any]) -> bool:
    """Whether an operation uses what spec 1.1 added (expressions, guards, effects), so `plain_operation` loses some of it."""
    return plain_operation(operation) != operation


def _arg_of(binding: Any) -> str | None:
    if isinstance(binding, str):
        return binding
    if _form(binding) == "arg" and isinstance(binding["arg"], str):
        return binding["arg"]
    return None


@functools.lru_cache(maxsize=4096)
def _schema_problem(text: str) -> str | None:
    """Why a JSON Schema (as canonical JSON text) is invalid against its metaschema, or `None`.

    Cached: checking against the metaschema costs milliseconds and the same schemas are checked
    again by `verify`, `Environment` and across the domains of a run. At scale almost no schema repeats
    (99k tools): `jsonschema_rs` (Rust) says whether it is valid ~280x faster, and `jsonschema` says why
    when it is not.
    """
    schema = json.loads(text)
    try:
        if jsonschema_rs.meta.is_valid(schema):  # ~0.01 ms against ~2.7 ms: most schemas are valid
            return None
    except Exception:  # noqa: BLE001, S110 - a schema the fast check cannot read: the reference check decides
        pass
    try:
        # the reference check, for its message (the same verdicts as the fast one on what it accepts)
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        return exc.message
    return None


def _check_op(op: Any, cspec: dict[str, Any], where: str) -> None:
    if op not in FILTER_OPS:
        raise SpecError(f"{where}: op must be one of {', '.join(FILTER_OPS)}, got {op!r}")
    if op == "contains" and cspec["type"] not in ("string", "json"):
        raise SpecError(f"{where}: op 'contains' needs a string or json column, not {cspec['type']}")
    if op in {"boolean": ("lt", "le", "gt", "ge"), "json": ("lt", "le", "gt", "ge", "in")}.get(
        cspec["type"], ()
    ):
        raise SpecError(f"{where}: op {op!r} cannot be used on a {cspec['type']} column")


def _argument_fits(prop: dict[str, Any], cspec: dict[str, Any], where: str) -> None:
    """An argument's declared JSON types and enum must fit the column it is bound to."""
    declared = prop.get("type")
    if declared is not None:
        problem = type_problem({declared} if isinstance(declared, str) else set(declared), cspec["type"])
        if problem:
            raise SpecError(f"{where}: {problem}")
    if "enum" in prop and "enum" in cspec:
        extra = [v for v in prop["enum"] if v is not None and v not in cspec["enum"]]
        if extra:
            raise SpecError(f"{where}: enum value(s) {extra} are not in the column's enum {cspec['enum']}")
