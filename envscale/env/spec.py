"""The environment spec: a plain dict (hand-written as YAML, stored as a `datasets.Json` column).

An environment is an in-memory SQLite database plus tools that are read or write operations over
it. Tools are *data*: each names an operation (`get`, `list`, `count`, `insert`, `update`,
`delete`) on one table and binds its JSON Schema arguments to columns, so no generated code is ever
executed and a task's outcome can be checked by comparing database states.

```yaml
name: shop
description: An online shop back office.
policy: Refunds only for delivered orders.
tables:
  orders:
    primary_key: order_id
    columns:
      order_id: {type: string}
      status: {type: string, enum: [pending, shipped, delivered, cancelled]}
data: {seed: 0, rows: {orders: 20}}
tools:
  - name: cancel_order
    description: Cancel a pending order.
    kind: write
    parameters: {type: object, properties: {order_id: {type: string}}, required: [order_id]}
    operation:
      type: update
      table: orders
      key: {order_id: order_id}
      fixed: {status: cancelled}
      preconditions: [{column: status, op: in, value: [pending], error: only pending orders can be cancelled}]
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

The full format, field by field, is in the docstring of `validate_spec`.
"""

from __future__ import annotations

import functools
import json
import math
import re
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from ..errors import EnvscaleError
from ..safe_yaml import UnsafeYAMLError, load_yaml

SPEC_VERSION = "1.0"
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

COLUMN_TYPES = ("string", "integer", "number", "boolean", "json")
READ_OPERATIONS = ("get", "list", "count")
WRITE_OPERATIONS = ("insert", "update", "delete")
FILTER_OPS = ("eq", "ne", "lt", "le", "gt", "ge", "contains", "in")
GENERATED_VALUES = ("id", "uuid", "now", "today")
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
}
_TABLE_KEYS = {"primary_key", "columns", "description"}
_COLUMN_KEYS = {"type", "enum", "nullable", "references", "unique", "generator", "description"}
_TOOL_KEYS = {"name", "description", "kind", "parameters", "output_schema", "operation", "metadata"}
_DATA_KEYS = {"seed", "rows", "now"}
_OPERATION_KEYS = {
    "get": {"key", "preconditions", "returns"},
    "list": {"filters", "order_by", "limit_arg", "returns"},
    "count": {"filters", "returns"},
    "insert": {"values", "generate", "defaults", "returns"},
    "update": {"key", "set", "fixed", "preconditions", "returns"},
    "delete": {"key", "preconditions", "returns"},
}
# What a check of a wrongly shaped spec may raise (an unhashable name, a string where a mapping belongs).
_MALFORMED = (TypeError, AttributeError, KeyError)
# JSON Schema types an argument may declare for a column of each type (json columns take anything).
_ARG_TYPES = {
    "string": {"string"},
    "integer": {"integer"},
    "number": {"number", "integer"},
    "boolean": {"boolean"},
}
# Code points a Python string can hold but UTF-8 (hence SQLite text and JSON on the wire) cannot:
# a surrogate left unpaired by a JSON `\ud800` escape or by `surrogateescape` decoding.
_SURROGATE = re.compile("[\ud800-\udfff]")


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
    """Check an environment spec; raise `SpecError` on the first problem.

    Top-level keys (others are an error): `name` (required, `[A-Za-z0-9_-]+`), `description`,
    `policy` (free text for agents), `spec_version`, `tables` (required), `initial_state`
    (`{table: [row, ...]}`; tables left out start empty), `data` (`seed`, `rows: {table: n}` with
    `n` at most `MAX_ROWS_PER_TABLE`, `now`: the environment's fixed clock as an ISO datetime),
    `tools` (required list) and `metadata` (a free mapping, e.g. provenance; tools may carry one too).

    Tables: `{name: {primary_key, columns, description}}`; a column is
    `{type, enum, nullable, references, unique, generator, description}` with `type` one of
    `COLUMN_TYPES`, `references` naming a table whose primary key has the same type, and
    `generator` one of `GENERATORS`. Table and column names match `IDENTIFIER` and, as SQLite
    ignores their case, no two tables (or two columns of a table) differ only in case. String
    values (enum values, literals, rows) hold no unpaired UTF-16 surrogate (UTF-8 cannot encode
    one), and enum values, which go into the table's SQL, no NUL character.

    Tools: `{name, description, kind, parameters, output_schema, operation, metadata}`. `kind` must
    agree with the operation (`get`/`list`/`count` read, `insert`/`update`/`delete` write). Every
    argument the operation uses must be declared in `parameters`, with a JSON type that fits the
    column (declared arguments the operation does not use are accepted and ignored). The operation
    keys per type:

    - `get`, `delete`: `key` (`{column: arg}`, covering the primary key or a unique column, all
      args required), `preconditions`, `returns`;
    - `update`: `key`, `set` (`{column: arg}`), `fixed` (`{column: value}`), `preconditions`;
    - `list`: `filters` (`[{column, arg, op}]`, `op` one of `FILTER_OPS`; `in` takes an array),
      `order_by` (`{column, desc}`), `limit_arg`; `count`: `filters`;
    - `insert`: `values` (`{column: arg}`), `generate` (`{column: id|uuid|now|today}`),
      `defaults` (`{column: value}`); every non-nullable column must get a value;
    - `preconditions`: `[{column, op, value, error}]`, checked on the addressed row before writing;
    - `returns`: `row`, `rows`, `count` or `none` (see `ALLOWED_RETURNS`, `DEFAULT_RETURNS`).

    Args:
        spec (`dict`): The spec.

    Raises:
        `SpecError`: With a message naming the tool, table or column and the reason.
    """
    if not isinstance(spec, dict):
        raise SpecError(f"a spec must be a mapping, got {type(spec).__name__}")
    _unknown_keys(spec, _TOP_KEYS, "spec")
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
    tables = spec.get("tables")
    if not isinstance(tables, dict) or not tables:
        raise SpecError("spec tables must be a non-empty mapping {table: {primary_key, columns}}")
    folded: dict[str, str] = {}
    for table, tspec in tables.items():
        try:
            _check_table(table, tspec, tables)
        except _MALFORMED as exc:  # e.g. a list where a name belongs
            raise SpecError(f"table {table!r} is malformed: {type(exc).__name__}: {exc}") from None
        other = folded.setdefault(table.lower(), table)
        if other != table:
            raise SpecError(
                f"tables {other!r} and {table!r} differ only in case; SQLite table names ignore case, rename one"
            )
    _check_data(spec.get("data"), tables)
    if "initial_state" in spec:
        check_state(spec, spec["initial_state"], where="initial_state")
    tools = spec.get("tools")
    if not isinstance(tools, list):
        raise SpecError("spec tools must be a list")
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise SpecError(f"tools[{i}] must be a mapping")
        tname = tool.get("name")
        if not isinstance(tname, str) or not TOOL_NAME.fullmatch(tname):
            raise SpecError(f"tools[{i}]: name must match {TOOL_NAME.pattern}, got {tname!r}")
        if tname in seen:
            raise SpecError(f"tool {tname!r}: duplicate tool name", tool=tname)
        seen.add(tname)
        try:
            _check_tool(tool, tables)
        except SpecError as exc:
            raise SpecError(f"tool {tname!r}: {exc}", tool=tname) from None
        except _MALFORMED as exc:
            raise SpecError(f"tool {tname!r} is malformed: {type(exc).__name__}: {exc}", tool=tname) from None


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


def is_nullable(table_spec: dict[str, Any], column: str) -> bool:
    """Whether `column` may hold null: declared `nullable` (default true), never for the primary key."""
    if column == table_spec["primary_key"]:
        return False
    return table_spec["columns"][column].get("nullable", True)


def value_problem(column_spec: dict[str, Any], value: Any) -> str | None:
    """Why a non-null `value` does not fit a column (type, finiteness, enum), or `None` if it does."""
    ctype = column_spec["type"]
    ok = {
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value),
        "boolean": isinstance(value, bool),
        "json": _is_json(value),
    }[ctype]
    if not ok:
        return f"expected a {ctype} value, got {value!r:.80}"
    if ctype == "string":
        problem = _text_problem(value)
        if problem:
            return f"{value!r:.80} {problem}"
    if "enum" in column_spec and value not in column_spec["enum"]:
        return f"{value!r:.80} is not one of {column_spec['enum']}"
    return None


def _text_problem(text: str, *, nul: bool = False) -> str | None:
    """Why a string cannot be stored as SQLite text (or, with `nul`, written into SQL), or `None`.

    An unpaired UTF-16 surrogate has no UTF-8 encoding; a NUL character ends an SQL statement's text.
    """
    bad = _SURROGATE.search(text)
    if bad:
        return f"holds an unpaired UTF-16 surrogate U+{ord(bad.group()):04X} at index {bad.start()}, which UTF-8 cannot encode"
    if nul and "\x00" in text:
        return f"holds a NUL character at index {text.index(chr(0))}, which SQLite cannot take in a schema"
    return None


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


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
                    _text_problem(value, nul=True) if isinstance(value, str) and ctype == "string" else None
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


def _check_tool(tool: dict[str, Any], tables: dict[str, Any]) -> None:
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
    if table not in tables:
        raise SpecError(f"operation table {table!r} is not a table (known: {', '.join(sorted(tables))})")
    tspec = tables[table]
    columns = tspec["columns"]

    def column(name: Any, where: str) -> dict[str, Any]:
        if name not in columns:
            raise SpecError(f"{where}: {table} has no column {name!r} (columns: {', '.join(columns)})")
        return columns[name]

    def argument(arg: Any, col: str, where: str, *, array: bool = False) -> None:
        if arg not in props:
            raise SpecError(f"{where}: argument {arg!r} is not declared in parameters.properties")
        prop, cspec = props[arg], columns[col]
        if array:
            if "type" in prop and prop["type"] != "array":
                raise SpecError(f"{where}: argument {arg!r} must be an array for op 'in'")
            prop = prop.get("items", {}) if isinstance(prop.get("items", {}), dict) else {}
        _argument_fits(prop, cspec, f"{where}: argument {arg!r} for column {table}.{col}")

    def literal(col: str, value: Any, where: str) -> None:
        if value is None:
            if not is_nullable(tspec, col):
                raise SpecError(f"{where}: column {table}.{col} may not be null")
            return
        problem = value_problem(columns[col], value)
        if problem:
            raise SpecError(f"{where}: column {table}.{col}: {problem}")

    def mapping(name: str) -> dict[str, Any]:
        value = op.get(name, {})
        if not isinstance(value, dict):
            raise SpecError(f"operation {name} must be a mapping {{column: ...}}")
        return value

    if otype in ("get", "update", "delete"):
        key = mapping("key")
        if not key:
            raise SpecError(f"operation {otype} needs a key {{column: argument}}")
        for col, arg in key.items():
            column(col, "key")
            argument(arg, col, "key")
            if arg not in required:
                raise SpecError(f"key argument {arg!r} must be listed in parameters.required")
        unique_cols = {tspec["primary_key"]} | {c for c, s in columns.items() if s.get("unique")}
        if not unique_cols & set(key):
            raise SpecError(
                f"key columns {', '.join(key)} do not identify one row: include {table}'s primary key or a unique column"
            )
        preconditions = op.get("preconditions", [])
        if not isinstance(preconditions, list):
            raise SpecError("preconditions must be a list")
        for i, cond in enumerate(preconditions):
            where = f"preconditions[{i}]"
            if not isinstance(cond, dict):
                raise SpecError(f"{where} must be a mapping {{column, op, value, error}}")
            _unknown_keys(cond, {"column", "op", "value", "error"}, where)
            cspec = column(cond.get("column"), where)
            _check_op(cond.get("op"), cspec, where)
            if cond["op"] == "in":
                if not isinstance(cond.get("value"), list):
                    raise SpecError(f"{where}: op 'in' needs a list value")
                for value in cond["value"]:
                    literal(cond["column"], value, where)
            elif cond["op"] == "contains":
                if not isinstance(cond.get("value"), str):
                    raise SpecError(f"{where}: op 'contains' needs a string value")
            else:
                literal(cond["column"], cond.get("value"), where)
            if not isinstance(cond.get("error", ""), str):
                raise SpecError(f"{where}: error must be a string")

    if otype in ("list", "count"):
        filters = op.get("filters", [])
        if not isinstance(filters, list):
            raise SpecError("filters must be a list")
        for i, flt in enumerate(filters):
            where = f"filters[{i}]"
            if not isinstance(flt, dict):
                raise SpecError(f"{where} must be a mapping {{column, arg, op}}")
            _unknown_keys(flt, {"column", "arg", "op"}, where)
            cspec = column(flt.get("column"), where)
            _check_op(flt.get("op", "eq"), cspec, where)
            argument(flt.get("arg"), flt["column"], where, array=flt.get("op") == "in")
    if otype == "list":
        order_by = op.get("order_by")
        if order_by is not None:
            if not isinstance(order_by, dict):
                raise SpecError("order_by must be a mapping {column, desc}")
            _unknown_keys(order_by, {"column", "desc"}, "order_by")
            column(order_by.get("column"), "order_by")
            if not isinstance(order_by.get("desc", False), bool):
                raise SpecError("order_by.desc must be true or false")
        if "limit_arg" in op:
            arg = op["limit_arg"]
            if arg not in props:
                raise SpecError(f"limit_arg: argument {arg!r} is not declared in parameters.properties")
            if props[arg].get("type") != "integer":
                raise SpecError(f"limit_arg: argument {arg!r} must have type integer")

    if otype == "insert":
        values, generate, defaults = mapping("values"), mapping("generate"), mapping("defaults")
        for col, arg in values.items():
            column(col, "values")
            argument(arg, col, "values")
        for col, how in generate.items():
            cspec = column(col, "generate")
            if how not in GENERATED_VALUES:
                raise SpecError(f"generate.{col}: must be one of {', '.join(GENERATED_VALUES)}, got {how!r}")
            if col in values:
                raise SpecError(f"generate.{col}: column is also set from an argument in values")
            needed = "integer" if how == "id" and cspec["type"] == "integer" else "string"
            if cspec["type"] != needed or (how == "id" and col != tspec["primary_key"]):
                raise SpecError(
                    f"generate.{col}: {how!r} fills a {needed} column{' (the primary key)' if how == 'id' else ''}"
                )
        for col, value in defaults.items():
            column(col, "defaults")
            literal(col, value, f"defaults.{col}")
            if col in generate:
                raise SpecError(f"defaults.{col}: column is also generated")
        for col in columns:
            if is_nullable(tspec, col) or col in generate or col in defaults:
                continue
            if col not in values or values[col] not in required:
                raise SpecError(
                    f"column {table}.{col} is not nullable: fill it from a required argument (values), generate or defaults"
                )

    if otype == "update":
        set_, fixed = mapping("set"), mapping("fixed")
        if not set_ and not fixed:
            raise SpecError("update needs set {column: argument} or fixed {column: value}")
        for col, arg in set_.items():
            column(col, "set")
            argument(arg, col, "set")
        for col, value in fixed.items():
            column(col, "fixed")
            literal(col, value, f"fixed.{col}")
            if col in set_:
                raise SpecError(f"fixed.{col}: column is also in set")
        for col in set(set_) | set(fixed):
            if col == tspec["primary_key"]:
                raise SpecError(f"update cannot change the primary key {table}.{col}")

    returns = op.get("returns", DEFAULT_RETURNS[otype])
    if returns not in ALLOWED_RETURNS[otype]:
        raise SpecError(
            f"returns {returns!r} is not allowed for {otype} (allowed: {', '.join(ALLOWED_RETURNS[otype])})"
        )


@functools.lru_cache(maxsize=4096)
def _schema_problem(text: str) -> str | None:
    """Why a JSON Schema (as canonical JSON text) is invalid against its metaschema, or `None`.

    Cached: checking against the metaschema costs milliseconds and the same schemas are checked
    again by `verify`, `Environment` and across the domains of a run.
    """
    schema = json.loads(text)
    try:
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
    if declared is not None and cspec["type"] in _ARG_TYPES:
        types = {declared} if isinstance(declared, str) else set(declared)
        wrong = sorted(types - _ARG_TYPES[cspec["type"]] - {"null"})
        if wrong:
            raise SpecError(f"{where}: JSON type {'/'.join(wrong)} does not fit a {cspec['type']} column")
    if "enum" in prop and "enum" in cspec:
        extra = [v for v in prop["enum"] if v is not None and v not in cspec["enum"]]
        if extra:
            raise SpecError(f"{where}: enum value(s) {extra} are not in the column's enum {cspec['enum']}")
