"""What a call did, whatever tool made it: its effect on the state, and the rows it read.

A task's `required_actions` name tools of its gold calls; what is required is what those gold calls
did, not their names (`score.score_trajectory` replays the gold calls for it):

- a write's **effect** (`effect`): the rows it added and removed (whole) and changed (by key: the
  columns it changed, with their new values), per table, from `Environment.last_changes`. Two
  calls have the same effect when they change the same rows of the same tables the same way, so
  `close_project(project_id=7)` and its near-duplicate `close_project_4(project_id=7)` have one
  effect, and `close_project(project_id=8)` or a status set to another value another one;
- a read's **rows** (`rows_read`): the rows of its table its result shows (by primary key), or for
  a result that is no rows (a count) the value itself. A required read is satisfied by any
  successful read of the same table that shows at least those rows.

Example:

```python
>>> from envscale.env import Environment
>>> from envscale.judge.effects import effect, rows_read
>>> env = Environment.from_yaml("tests/fixtures/envs/shop.yaml")
>>> _ = env.step("cancel_order", {"order_id": "ord_0009"})
>>> effect(env.last_changes())
'{"orders": {"added": [], "changed": [["ord_0009", {"status": "cancelled"}]], "removed": []}}'
>>> obs = env.step("get_order", {"order_id": "ord_0009"})
>>> rows_read(env, "get_order", obs["result"])
('orders', frozenset({'s:ord_0009'}))
```
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from typing import Any

from envscale.env import Environment

from .answers import canonical_value

__all__ = ["READ_OPERATIONS", "Step", "effect", "rows_read"]

#: Operation types that read and change nothing.
READ_OPERATIONS = frozenset({"get", "list", "count"})


def effect(changes: dict[str, dict[str, list[Any]]]) -> str:
    """The canonical text of a call's changes (`Environment.last_changes` or `diff` format): per table,
    the rows added and removed, and each changed key with the columns that changed and their new values.
    Equal texts are equal effects; `"{}"` is no change."""
    out = {}
    for table, parts in changes.items():
        changed = []
        for change in parts.get("changed") or []:
            before, after = change["before"], change["after"]
            columns = {c: v for c, v in after.items() if c not in before or before[c] != v}
            changed.append([change["key"], columns])
        out[table] = {
            "added": sorted(json.dumps(r, sort_keys=True, default=str) for r in parts.get("added") or []),
            "removed": sorted(json.dumps(r, sort_keys=True, default=str) for r in parts.get("removed") or []),
            "changed": sorted(changed, key=lambda c: json.dumps(c, sort_keys=True, default=str)),
        }
    return json.dumps(out, sort_keys=True, default=str)


def _operation(env: Environment, tool: Any) -> dict[str, Any] | None:
    for spec in env.spec["tools"]:
        if spec["name"] == tool:
            return spec["operation"]
    return None


def rows_read(
    env: Environment, tool: Any, result: Any, arguments: Any = None
) -> tuple[str, frozenset[str]] | None:
    """`(table, rows)`: the rows of its table a read's `result` shows, each its primary key's
    `canonical_value`; a result that is no rows (a count, an empty list) is one entry: `=`, its value and
    the call's arguments (a count of 5 answers the question it was asked, not every count that is 5).
    `None` when `tool` is no read of `env`."""
    op = _operation(env, tool)
    if op is None or op["type"] not in READ_OPERATIONS:
        return None
    table = op["table"]
    pk = env.spec["tables"][table]["primary_key"]
    rows = result if isinstance(result, list) else [result]
    keys = frozenset(canonical_value(r[pk]) for r in rows if isinstance(r, dict) and pk in r)
    if not keys:
        if isinstance(arguments, str):
            with contextlib.suppress(ValueError):
                arguments = json.loads(arguments)
        keys = frozenset({f"={canonical_value(result)} for {canonical_value(arguments or {})}"})
    return table, keys


@dataclass(frozen=True)
class Step:
    """One replayed call: its tool, whether it succeeded, its effect (`effect`) and, for a successful
    read, the rows it read (`rows_read`)."""

    tool: Any
    ok: bool
    effect: str = "{}"
    read: tuple[str, frozenset[str]] | None = None

    def satisfies(self, wanted: Step) -> bool:
        """Whether this call does what the gold call `wanted` did: a successful read of at least its rows
        (when `wanted` read), else a successful call with its effect (a gold write that changed nothing: a
        successful call that is no read and changes nothing either)."""
        if not self.ok:
            return False
        if wanted.read is not None:
            return self.read is not None and self.read[0] == wanted.read[0] and wanted.read[1] <= self.read[1]
        if wanted.effect == "{}":  # a gold write that found its row as asked: a write that changes nothing
            return self.read is None and self.effect == "{}"
        return self.effect == wanted.effect
