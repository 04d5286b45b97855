"""The arguments of a tool call, checked; and the error observations a failed call becomes.

A call's arguments (a dict or its JSON text) must be a JSON object that holds only declared
arguments (even where the tool's schema allows additional properties) and satisfies the tool's JSON
Schema. `quick_check` compiles the common subset of JSON Schema into a fast accept-test; anything it
does not accept (or cannot compile) goes to `jsonschema`, which gives the error message. A failed
call is a `StepError` inside the runtime and an observation `{"ok": False, "error", "code"}` outside
it, with `code` one of `ERROR_CODES`.

Example:

```python
>>> from envscale.env.arguments import StepError, parse_arguments, quick_check
>>> import jsonschema
>>> schema = {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}
>>> validator = jsonschema.validators.validator_for(schema)(schema)
>>> parse_arguments('{"order_id": "ord_0001"}', frozenset({"order_id"}), quick_check(schema), validator)
{'order_id': 'ord_0001'}
>>> try:
...     parse_arguments({"order_id": 7}, frozenset({"order_id"}), quick_check(schema), validator)
... except StepError as exc:
...     print(exc.code, exc)
invalid_arguments invalid arguments at order_id: 7 is not of type 'string'
```
"""

from __future__ import annotations

import json
import operator
import re
from collections.abc import Callable
from typing import Any

import jsonschema

from envscale.env.columns import short

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
addressed row does not exist (or a row an effect addresses); a unique/primary/foreign key
constraint; a precondition or guard failed, or a computed value does not fit; the time limit was
hit; anything else."""

MAX_MESSAGE = 500
"""Longest error message of an observation (longer ones are cut, ending with `...`)."""


class StepError(Exception):
    """A failed call: its observation code (one of `ERROR_CODES`) and message (without the tool name).

    Args:
        code (`str`): The observation code.
        message (`str`): What went wrong.
    """

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def error(code: str, message: str) -> dict[str, Any]:
    """The observation of a failed call: `{"ok": False, "error": message, "code": code}` (message cut)."""
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 3] + "..."
    return {"ok": False, "error": message, "code": code}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_JSON = json.JSONDecoder(parse_constant=_reject_constant)


def parse_arguments(
    arguments: Any, properties: frozenset, quick: Callable[[Any], bool] | None, validator: Any
) -> dict[str, Any]:
    """A call's arguments as a dict, checked against the tool's declared arguments and JSON Schema.

    Args:
        arguments (`dict`, `str`, `bytes` or `None`): The arguments or their JSON text (`None`: none).
        properties (`frozenset`): The declared argument names.
        quick (`Callable` or `None`): The tool schema's `quick_check`.
        validator: A `jsonschema` validator of the tool's schema.

    Raises:
        `StepError`: Code `invalid_arguments`, naming the argument and the problem.
    """
    if arguments is None:
        arguments = {}
    elif isinstance(arguments, str | bytes):
        try:
            arguments = _JSON.decode(arguments.decode() if isinstance(arguments, bytes) else arguments)
        except (ValueError, RecursionError) as exc:
            raise StepError("invalid_arguments", f"arguments are not valid JSON: {exc}") from None
    if not isinstance(arguments, dict):
        raise StepError(
            "invalid_arguments", f"arguments must be a JSON object, got {type(arguments).__name__}"
        )
    unknown = [k for k in arguments if k not in properties]
    if unknown:
        expected = ", ".join(sorted(properties)) or "none"
        raise StepError(
            "invalid_arguments",
            f"unexpected argument(s) {', '.join(map(short, unknown))} (expected: {expected})",
        )
    if quick is None or not quick(arguments):
        problem = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
        if problem is not None:
            path = "/".join(map(str, problem.absolute_path))
            message = problem.message.replace(repr(problem.instance), short(problem.instance))
            raise StepError(
                "invalid_arguments", f"invalid arguments{' at ' + path if path else ''}: {message}"
            )
    return arguments


# ----------------------------------------------------------------------------------------------
# A quick accept-test for common JSON Schemas; jsonschema for everything else.

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


def quick_check(schema: Any) -> Callable[[Any], bool] | None:
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
            item = quick_check(arg)
            if item is None:
                return None
            checks.append(lambda v, item=item: not isinstance(v, list) or all(item(x) for x in v))
        elif key == "required" and isinstance(arg, list):
            checks.append(_required_check(tuple(arg)))
        elif key == "properties" and isinstance(arg, dict):
            props = {name: quick_check(sub) for name, sub in arg.items()}
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
