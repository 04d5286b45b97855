"""The one parser of provenance paths: where a gold call's argument comes from in earlier results.

A gold call records each argument's provenance: `"user"` (a fact the user states), `"constant"`
(a value the request fixes) or a path into the result of an earlier gold call:

    path  := "call[" CALL "]" ( "[" INDEX "]" | "." FIELD )*

`CALL` is the 0-based index of the gold call, `INDEX` a list position and `FIELD` a key (anything
but `.`, `[` and `]`; a field is always a key, `.0` too). `call[0].order_id` is the field of call 0's
result; `call[0][0].id` the field of its first row (a list result); `call[1].items[0].id` goes
through a nested list.

Example:

```python
>>> from envscale.judge.provenance import parse_provenance, provenance_call, read_calls, resolve_provenance
>>> parse_provenance("call[1].items[0].id"), parse_provenance("user")
((1, ['items', 0, 'id']), None)
>>> provenance_call("call[0][0].order_id"), provenance_call("constant")
(0, None)
>>> resolve_provenance("call[0][0].order_id", [[{"order_id": "ord_0042"}]])
'ord_0042'
>>> read_calls({"order_id": "call[0][0].order_id", "reason": "user"})
[0]
```
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = [
    "PREFIX",
    "parse_provenance",
    "provenance_call",
    "provenance_path",
    "read_calls",
    "resolve_provenance",
    "shift_provenance",
]

#: How every path into an earlier result begins (`"user"` and `"constant"` do not).
PREFIX = "call["
_HEAD = re.compile(r"call\[(\d+)\]")
_STEPS = re.compile(r"(?:\[\d+\]|\.[^.\[\]]+)*")
_STEP = re.compile(r"\[(\d+)\]|\.([^.\[\]]+)")


def parse_provenance(source: Any) -> tuple[int, list[int | str]] | None:
    """`(call, steps)` of a path: the gold call's index and the list positions (`int`) and keys (`str`)
    that lead into its result; `None` for a source that is no path (`"user"`, `"constant"`, `None`).

    Raises:
        `ValueError`: `source` begins with `call[` but does not follow the grammar of the module docstring.
    """
    if not isinstance(source, str) or not source.startswith(PREFIX):
        return None
    head = _HEAD.match(source)
    if head is None or not _STEPS.fullmatch(source, head.end()):
        raise ValueError(f"not a provenance path: {source!r} (expected call[i], then [j] or .field steps)")
    steps = [int(index) if index else key for index, key in _STEP.findall(source, head.end())]
    return int(head.group(1)), steps


def provenance_path(call: int, steps: list[int | str]) -> str:
    """The path of `steps` into gold call `call`'s result, the inverse of `parse_provenance`.

    ```python
    >>> provenance_path(3, [14, "configuration_id"])
    'call[3][14].configuration_id'
    ```
    """
    return f"call[{call}]" + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in steps)


def provenance_call(source: Any) -> int | None:
    """The index of the gold call whose result `source` reads, or `None` when it reads none."""
    parsed = parse_provenance(source)
    return None if parsed is None else parsed[0]


def shift_provenance(source: Any, by: int) -> Any:
    """`source` with its call index moved by `by` (`call[1].id` -> `call[3].id` for 2), for calls put before
    the chain or a request's calls after another's; a source that is no path is returned as it is.

    ```python
    >>> shift_provenance("call[1][0].id", 2), shift_provenance("user", 2)
    ('call[3][0].id', 'user')
    ```
    """
    if not isinstance(source, str) or not source.startswith(PREFIX):
        return source
    return _HEAD.sub(lambda m: f"call[{int(m.group(1)) + by}]", source, count=1)


def read_calls(provenance: Mapping[str, Any] | None) -> list[int]:
    """The gold calls a call's arguments read, one entry per argument that reads one, in argument order.

    Args:
        provenance (`dict`): The call's `provenance` (argument -> source); `None` reads nothing.
    """
    calls = (provenance_call(source) for source in (provenance or {}).values())
    return [i for i in calls if i is not None]


def resolve_provenance(path: str, results: list[Any]) -> Any:
    """The value at `path` (`call[i][j].field`) in the gold results so far.

    Args:
        path (`str`): A provenance path (see the module docstring).
        results (`list`): The results of the gold calls so far, in order.

    Raises:
        `ValueError`: `path` is no provenance path.
        `IndexError`, `KeyError`, `TypeError`: the results hold nothing at `path`.
    """
    parsed = parse_provenance(path)
    if parsed is None:
        raise ValueError(f"not a provenance path: {path!r}")
    call, steps = parsed
    value = results[call]
    for step in steps:
        value = value[step]
    return value
