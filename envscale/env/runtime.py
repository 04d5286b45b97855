"""The executable environment: an in-memory SQLite database and the spec's tools as data.

`Environment.step(tool, arguments)` validates the arguments against the tool's JSON Schema, runs
the tool's operation as parameterised SQL inside a savepoint and returns an observation:
`{"ok": True, "result": ...}` or `{"ok": False, "error": "<tool>: <cause>", "code": ...}` with
`code` one of `ERROR_CODES`. A failing call never raises and never changes the state.

The state hash is content-based: per table, the sum (mod 2**256) of a BLAKE2b digest of each row,
kept up to date by every write (effects included) and restored with every reset or snapshot, so
`state_hash()` costs microseconds whatever the database size and equal contents give equal hashes
whatever the order of the operations that produced them (`state_hash(recompute=True)` recomputes
it from the rows).

`Environment` is a facade over three modules that read on their own: `envscale.env.state` (the
database, snapshots, the hash), `envscale.env.operations` (tools compiled into plans and run) and
`envscale.env.arguments` (argument checks and error observations); the column type rules are in
`envscale.env.columns` and the spec format in `envscale.env.spec`.

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
>>> env.step("create_order", {"customer_id": "cus_0001", "total": 9.5})["result"]["order_id"]
'ord_0041'
>>> env.diff(before)["orders"]["added"][0]["total"]
9.5
>>> env.restore(before)
```
"""

from __future__ import annotations

import json
import math
import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from envscale.env.arguments import StepError, error, parse_arguments
from envscale.env.columns import short
from envscale.env.data import KeyFormat
from envscale.env.operations import Plan, Runner, compile_plan
from envscale.env.spec import SpecError, load_spec, validate_spec
from envscale.env.state import Database


def openai_tools(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """A spec's tools in OpenAI format: `[{"type": "function", "function": {name, description, parameters}}]`."""
    return [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t.get("description", ""),
                "parameters": t["parameters"],
            },
        }
        for t in spec["tools"]
    ]


class Environment:
    """A database-backed tool environment built from a spec (see `envscale.env.spec`).

    Use it from one thread at a time. Arguments that bind to columns are type-checked against the
    column on top of the tool's JSON Schema, and unknown arguments are rejected even where the
    schema allows additional properties.

    Args:
        spec (`dict`): The environment spec; validated.
        max_rows (`int`, *optional*, defaults to 100): Most rows a `list` call returns; a result cut
            by it carries `"truncated": True`.
        time_limit_ms (`float`, *optional*, defaults to 250): CPU-time budget of one call's SQL (the
            calling thread's, so that a busy machine does not fail a call a quiet one would run); a
            call that runs out is interrupted and fails with code `limit`.
        snapshot (`bytes`, *optional*): Start from this state (a `snapshot()` of an environment
            of the same spec, session included) instead of building the initial state, which is
            then built on the first `reset()`. Copies an environment's state cheaply, e.g. one per
            MCP session.

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
        self._db = Database(self.spec)
        self._runner = Runner(self._db, max_rows)
        self._tools: dict[str, Plan] = {t["name"]: compile_plan(t, self._db) for t in self.spec["tools"]}
        self._executors = self._runner.executors
        self._changes: list[tuple[str, int, tuple]] = []  # the rows the last step wrote
        if snapshot is None:
            self.reset()
        else:
            self.restore(snapshot)

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

    # ------------------------------------------------------------------------------------------
    # State: reset, snapshots, hash, dump, diff (see `envscale.env.state`)

    def reset(
        self,
        seed: int | None = None,
        state: dict[str, list[dict[str, Any]]] | None = None,
        session_key: Any = None,
    ) -> dict[str, Any]:
        """Put the database back in an initial state.

        The default is the spec's `initial_state`, else rows generated with its `data.seed`. Built
        databases are kept (the spec's and the last few seeds'), so a repeated reset only copies
        their bytes back.

        Args:
            seed (`int`, *optional*): Generate the state with this seed instead (see `generate_state`).
            state (`dict`, *optional*): Use these rows `{table: [row, ...]}` instead.
            session_key (*optional*): For a spec with a `session`: the primary key of the session
                row (the current user) in the new state; defaults to the spec's `session.key`, else
                the session table's first row by primary key.

        Returns:
            `dict`: `{"tables": {table: row count}, "state_hash": ...}`.

        Raises:
            `SpecError`: The state does not fit the spec or breaks a key constraint; the environment
                keeps its current state.
            `ValueError`: `session_key` is given without a session in the spec, or names no row of
                the session table; the environment keeps its current state.
        """
        self._changes = []
        return self._db.reset(seed, state, session_key)

    def session(self) -> dict[str, Any] | None:
        """The current session row (the user the agent acts for) as it is now, or `None`.

        `None` when the spec declares no `session`, or the session row does not exist (an empty
        table, a deleted row).
        """
        return self._db.session_row()

    def snapshot(self) -> bytes:
        """The current database as bytes (a plain SQLite database file) for `restore` or `diff`."""
        return self._db.snapshot()

    def restore(self, data: bytes) -> None:
        """Go back to a state saved by `snapshot` (of this environment or one built from the same spec).

        The session saved with the snapshot comes back with it.

        Raises:
            `ValueError`: `data` is not a database with this environment's schema; the state is kept.
        """
        self._db.restore(data)
        self._changes = []

    def state_hash(self, *, recompute: bool = False) -> str:
        """A content hash of the database: equal rows give equal hashes, whatever their history.

        Args:
            recompute (`bool`, *optional*, defaults to `False`): Recompute it from every row (O(rows))
                instead of using the running per-table digests; both give the same value.

        Returns:
            `str`: 64 hex digits.
        """
        return self._db.state_hash(recompute=recompute)

    def dump(self) -> dict[str, list[dict[str, Any]]]:
        """All rows per table, in primary key order, as JSON values (the format of `initial_state`)."""
        return self._db.dump()

    def diff(self, other: Environment | bytes) -> dict[str, dict[str, list[Any]]]:
        """The row changes that turn `other` (a snapshot or an environment of the same spec) into this state.

        Args:
            other (`Environment` or `bytes`): The state to compare against, e.g. an earlier `snapshot()`.

        Returns:
            `dict`: For each table with changes, `{"added": [row], "removed": [row], "changed":
            [{"key", "before", "after"}]}` with rows keyed by primary key; `{}` when the states are equal.
        """
        return self._db.diff(other.snapshot() if isinstance(other, Environment) else other)

    def last_changes(self) -> dict[str, dict[str, list[Any]]]:
        """The row changes of the last `step`, in the format of `diff`: `{}` after a read or a refused call.

        Costs the rows the step wrote, not the database: what a judge compares call by call (the effect
        of a call) where a `snapshot` and `diff` per call would cost the whole database each time.
        """
        return self._db.changes_diff(self._changes)

    @property
    def key_formats(self) -> dict[str, KeyFormat]:
        """Per table, how its generated keys look (`7`, `cus_0007`, a name `vault-data-dev-02`): see
        `envscale.env.data.keys`."""
        return self._db.key_format

    # ------------------------------------------------------------------------------------------
    # Tools (see `envscale.env.operations`)

    @property
    def tool_names(self) -> list[str]:
        """The tools' names, in spec order."""
        return list(self._tools)

    def openai_tools(self) -> list[dict[str, Any]]:
        """The tools in OpenAI format: `[{"type": "function", "function": {name, description, parameters}}]`."""
        return openai_tools(self.spec)

    def step(self, tool: str, arguments: dict[str, Any] | str | None = None) -> dict[str, Any]:
        """Call a tool. Never raises; a failed call leaves the state unchanged.

        Args:
            tool (`str`): The tool name.
            arguments (`dict` or `str`, *optional*): The arguments, or their JSON text.

        Returns:
            `dict`: `{"ok": True, "result": ...}` (plus `"truncated": True` when `max_rows` cut a
            list) or `{"ok": False, "error": "<tool>: <cause>", "code": <one of ERROR_CODES>}`.
        """
        self._changes = []
        compiled = self._tools.get(tool) if isinstance(tool, str) else None
        if compiled is None:
            return error("unknown_tool", f"unknown tool {short(tool)}; available: {', '.join(self._tools)}")
        args: dict[str, Any] = {}
        try:
            args = parse_arguments(arguments, compiled.properties, compiled.quick, compiled.validator)
            return self._run(compiled, args)
        except StepError as exc:
            failure = exc
        except sqlite3.IntegrityError as exc:
            failure = self._runner.constraint_error(compiled, args, exc)
        except sqlite3.OperationalError as exc:
            if str(exc) == "interrupted":
                failure = StepError("limit", f"time limit of {self.time_limit_ms} ms exceeded")
            else:
                failure = StepError("internal", f"database error: {exc}")
        except (UnicodeEncodeError, OverflowError) as exc:
            failure = StepError("invalid_arguments", f"invalid arguments: {exc}")
        except Exception as exc:  # a call must never raise out of step
            failure = StepError("internal", f"internal error: {type(exc).__name__}: {exc}")
        return error(failure.code, f"{compiled.name}: {failure}")

    def _run(self, tool: Plan, args: dict[str, Any]) -> dict[str, Any]:
        """Execute a validated call: reads directly, writes inside a savepoint that a failure rolls back."""
        db = self._db
        conn = db.conn
        db.deadline = time.thread_time() + self._time_limit_s
        if tool.write:
            conn.execute("SAVEPOINT envscale_step")
            self._runner.begin()
        try:
            result, extra = self._executors[tool.op](tool, args)
        except BaseException:
            db.deadline = math.inf
            if tool.write and conn.in_transaction:  # an interrupted write has already rolled back
                conn.execute("ROLLBACK TO envscale_step")
                conn.execute("RELEASE envscale_step")
            raise
        db.deadline = math.inf
        obs = {"ok": True, "result": result}
        if tool.write:
            conn.execute("RELEASE envscale_step")
            db.apply(extra, self._runner.serials)
            self._changes = extra
        elif extra:
            obs["truncated"] = True
        return obs

    # ------------------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the database."""
        self._db.close()

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
        return f"Environment({self.name!r}, tables={list(self._db.tables)}, tools={len(self._tools)})"
