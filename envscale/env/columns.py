"""Column types, written once: what a column may hold, how a JSON value is stored in SQLite and read back.

A column has one of `COLUMN_TYPES`. `encode` turns a JSON value into the SQL value stored (numbers
as floats, booleans as 0/1, json values as canonical JSON text) or refuses it, and `decode` turns a
stored value back into the JSON value, so that a written row reads back exactly as it was written.
A JSON value fits a column when `encode` takes it and it is in the column's enum: `value_problem`
says why not, so a step's argument and a row of a state are held to the same rule. `ACCEPTED_JSON_TYPES` says which JSON Schema
types an argument (or an expression) may have to be written to a column of each type, and
`COLUMN_JSON_TYPES` which JSON types a column's values have when read.

Example:

```python
>>> from envscale.env.columns import decode, encode, type_problem, value_problem
>>> encode("boolean", True), encode("number", 3), encode("json", {"b": 1, "a": [2]})
(1, 3.0, '{"a":[2],"b":1}')
>>> decode("boolean", 1), decode("json", '{"a":[2],"b":1}')
(True, {'a': [2], 'b': 1})
>>> value_problem({"type": "string", "enum": ["pending", "paid"]}, "lost")
"'lost' is not one of ['pending', 'paid']"
>>> type_problem({"string"}, "integer")
'JSON type string does not fit a integer column'
```
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

COLUMN_TYPES = ("string", "integer", "number", "boolean", "json")
"""The types a column may declare."""

SQL_TYPES = {"string": "TEXT", "integer": "INTEGER", "number": "REAL", "boolean": "INTEGER", "json": "TEXT"}
"""The SQLite type of each column type (tables are STRICT)."""

ACCEPTED_JSON_TYPES: dict[str, frozenset[str] | None] = {
    # an integer argument bound to a string column is stored as its decimal digits: one API's tools
    # often declare the same key as an integer in one place and a string in another (BFCL's ticket_id)
    "string": frozenset({"string", "integer"}),
    "integer": frozenset({"integer"}),
    "number": frozenset({"number", "integer"}),
    "boolean": frozenset({"boolean"}),
    "json": None,  # anything
}
"""JSON Schema types of the values a column of each type takes (`None`: any)."""

COLUMN_JSON_TYPES: dict[str, frozenset[str] | None] = {
    "string": frozenset({"string"}),
    "integer": frozenset({"integer"}),
    "number": frozenset({"number"}),
    "boolean": frozenset({"boolean"}),
    "json": None,  # anything
}
"""JSON Schema types of the values read from a column of each type (`None`: any)."""

NUMERIC_JSON_TYPES = frozenset({"integer", "number"})

INT64 = (-(1 << 63), 1 << 63)
"""SQLite's integer range: `INT64[0] <= n < INT64[1]`."""

# Code points a Python string can hold but UTF-8 (hence SQLite text and JSON on the wire) cannot:
# a surrogate left unpaired by a JSON `\ud800` escape or by `surrogateescape` decoding.
_SURROGATE = re.compile("[\ud800-\udfff]")


def is_nullable(table_spec: dict[str, Any], column: str) -> bool:
    """Whether `column` may hold null: declared `nullable` (default true), never for the primary key."""
    if column == table_spec["primary_key"]:
        return False
    return table_spec["columns"][column].get("nullable", True)


def value_problem(column_spec: dict[str, Any], value: Any) -> str | None:
    """Why `value` does not fit a column, or `None` if it does: what `encode` refuses, then the enum.

    One rule for every way a value reaches a column (a call's argument in `step`, a row of
    `reset(state=...)` or of a spec's `initial_state`, a generated value), so they never disagree:
    an integral float such as `2.0` fits an integer column (stored as `2`), a boolean does not. Null
    fits no column type here: whether a column takes null is `is_nullable`'s business.
    """
    if value is None:
        return f"expected a {column_spec['type']}, got None"
    try:
        encode(column_spec["type"], value)
    except TypeError as exc:
        return str(exc)
    if "enum" in column_spec and value not in column_spec["enum"]:
        return f"{value!r:.80} is not one of {column_spec['enum']}"
    return None


def text_problem(text: str, *, nul: bool = False) -> str | None:
    """Why a string cannot be stored as SQLite text (or, with `nul`, written into SQL), or `None`.

    An unpaired UTF-16 surrogate has no UTF-8 encoding; a NUL character ends an SQL statement's text.
    """
    bad = _SURROGATE.search(text)
    if bad:
        return f"holds an unpaired UTF-16 surrogate U+{ord(bad.group()):04X} at index {bad.start()}, which UTF-8 cannot encode"
    if nul and "\x00" in text:
        return f"holds a NUL character at index {text.index(chr(0))}, which SQLite cannot take in a schema"
    return None


def is_json(value: Any) -> bool:
    """Whether `value` is a JSON value (finite numbers, string keys, no other objects)."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


def json_type(value: Any) -> str:
    """The JSON Schema type of a JSON value (`integer` for a whole float such as `2.0`)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def type_problem(types: frozenset[str] | set[str] | None, column_type: str) -> str | None:
    """Why values of JSON Schema `types` (`None`: unknown) cannot be written to a column, or `None`.

    Null is left out: whether a column takes null is `is_nullable`'s business.
    """
    accepted = ACCEPTED_JSON_TYPES[column_type]
    if types is None or accepted is None:
        return None
    wrong = sorted(set(types) - accepted - {"null"})
    if wrong:
        return f"JSON type {'/'.join(wrong)} does not fit a {column_type} column"
    return None


def short(value: Any) -> str:
    """`repr(value)`, cut to 80 characters (for error messages)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def encode(column_type: str, value: Any) -> Any:
    """The SQL value stored for a JSON value in a column of `column_type`.

    Numbers are stored as floats and booleans as 0/1 so that a written row reads back exactly as
    it was written; json values as canonical JSON text. An integer column takes an integral float
    (`2.0`, what JSON clients often send for 2) as the integer; text must be encodable as UTF-8.

    Raises:
        `TypeError`: The value does not fit the column type (or is out of SQLite's integer range, or
        is text holding an unpaired surrogate). `value_problem` reports exactly these refusals.
    """
    if value is None:
        return None
    if column_type == "string":
        if isinstance(value, str):
            if value.isascii():
                return value
            problem = text_problem(value)
            if problem is None:
                return value
            raise TypeError(f"{short(value)} {problem}")
    elif column_type == "integer":
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, int) and not isinstance(value, bool) and INT64[0] <= value < INT64[1]:
            return value
    elif column_type == "number":
        if isinstance(value, int | float) and not isinstance(value, bool):
            try:
                number = float(value)
            except OverflowError:  # an integer beyond a float's range
                number = math.inf
            if math.isfinite(number):
                return number
    elif column_type == "boolean":
        if isinstance(value, bool):
            return int(value)
    else:
        try:
            return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError):
            pass
    raise TypeError(f"expected a {column_type}, got {short(value)}")


def decode(column_type: str, value: Any) -> Any:
    """The JSON value of an SQL value read from a column of `column_type` (the inverse of `encode`)."""
    if value is None:
        return None
    if column_type == "boolean":
        return bool(value)
    if column_type == "json":
        return json.loads(value)
    if column_type == "number":
        return float(value)  # `RETURNING` gives whole REAL values as integers
    return value


DECODED_TYPES = ("boolean", "json")
"""Column types whose values `decode` changes when read by `SELECT` (the others read back as stored)."""
