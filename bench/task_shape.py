"""What shape are a run's tasks and worlds? Calls, shapes, writes, ids, closings; stubs, session rows, duplicates.

Reads a run's tasks, environments and filtered (kept) trajectories and counts, with `polars`, what issue 19
("Journeys in coherent worlds") wants to change. Each figure, exactly:

Tasks (both splits of `tasks/tasks`; with `--worlds-only` the tasks of function sets are left out and counted
apart):

- **calls per task**: `len(gold_calls)`; its median, p90 (nearest rank: the smallest count that at least 90% of
  the tasks do not exceed) and the share of tasks with 1, 2, 3 and 4 or more calls.
- **shapes**: the task's `difficulty.shape` (`single`, `linear`, `dag`, `branch`, `conversation`), count per shape;
  every shape the task generator knows is listed, a missing one as 0. **dag or branch, alone or as a request**:
  tasks of shape `dag` or `branch`, and conversations one of whose requests has that shape
  (`difficulty.request_shapes`).
- **writes per task**: gold calls to a tool whose `kind` is `write` in the environment's spec (the task's own
  `difficulty.n_writes` when its environment is not given); the share of tasks with 0, 1 and 2 or more.
- **internal id**: a user fact (a leaf value of `instructions.known_facts` or `hidden_facts`, lists and mappings
  flattened) that is a string equal to a primary-key value of the task's environment state at the task's seed
  (`rec_0015`; generated keys are `<prefix>_NNNN` strings or integers 1..n), except the keys of tables whose
  numbers a real service prints for its user (orders, tickets, invoices: `envscale.tasks.finding.printed_number`)
  and of tables keyed by a name (`rg-finance-prod-01`: `envscale.env.data.key_formats`, kind `name`), and of the
  caller's own scope (an account, a subscription or a project no tool lists: `envscale.tasks.finding.caller_scope`).
  The figure is the share of tasks with
  at least one. Integer keys are counted apart (**integer id**): an integer fact whose name has the word `id`
  (`province id: 19`) equal to an integer primary-key value; plain numbers (`2 nights`) are not ids.

Closing messages (`filtered/filtered`, the kept trajectories; `--worlds-only` leaves out function sets' too):

- **closing message**: the content of the last assistant message of `messages`, stripped. The figures are the
  number of kept trajectories, of distinct closing messages, the share of the most common one (and its text),
  and the number of distinct **openings** (a closing message's first three words, lowercased).

Environments (`environments/environments`):

- **key-only table**: every column is its primary key or a foreign key; a **pk-only table** has the primary key
  as its one column (a stub: a name and nothing else).
- **foreign key**: a column with `references` (a declared one; names the generator also treats as references,
  `<entity>_id`, are not counted). The figure is the share of foreign keys whose referenced table is key-only
  (and, beside it, pk-only).
- **session-row read**: a read tool whose operation is a `get` keyed by a `{session: COLUMN}` expression, so it
  answers with the logged-in account's row. It reads a **non-session entity** unless what it is about
  (`metadata.entity`, else the words of its name) is the session table itself (its name or singular), the
  `<session>` marker, or a word for the current user (`SELF_WORDS`: account, user, profile, me, self, login).
- **near-duplicate tool**: a tool with the same effect as another tool of its environment: the same kind,
  operation type and table, the same key, set, value and filter columns, the same fixed values, defaults,
  guards, preconditions and effects (argument names and error texts aside). Counted as the tools beyond the
  first of each such set, split into those of **one API operation** as another tool of the set (the same
  OpenAPI path, parameter names aside, or the same name up to case, separators and a `_N` copy number, or
  a name of three or more words that is a run of the other's: PUT and PATCH of one path, copies of one
  document, one operation under two prefixes; the issue's target is 0) and those of **other API operations** (two operations the
  inference gave one effect: worth reading, often two resources merged into one table). Beside it, the old
  count: a tool whose name is another tool's name of the environment plus `_N` (`get_hours_2` beside
  `get_hours`), with how many share that tool's operation type and table.
- **unique constraint on a non-key column**: a column with `unique: true` that is not its table's primary key
  (those that are foreign keys counted beside); table-level `unique` column sets are counted apart.
- **multi-table effect**: a tool's `operation.effects` holds a write on a table other than the tool's own
  (`create_order` taking stock from `products`); the figure is the number of worlds with at least one.
- **function set**: an environment with no write tool (a read-only lookup or computation: no state to change);
  a **world** has at least one. Counted with their tasks and kept trajectories.

**Source** (`--source`): an environment is `openapi` when most of its tools come from OpenAPI documents (their
`metadata.annotations` carry an HTTP `method` and `path`), else `other` (BFCL, MCP, JSON docs); with `--source
openapi` only those environments and their tasks and kept trajectories are counted.

Deterministic (no sampling, no timing). Usage:

```bash
python bench/task_shape.py --run outputs/quickstart                       # the run's three folders
python bench/task_shape.py --run outputs/quickstart --worlds-only --json shape.json
python bench/task_shape.py --tasks T --environments E --filtered F        # any subset
python bench/task_shape.py --run outputs/openapi-sample --source openapi --worlds-only
```
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

import polars as pl

SHAPES = ("single", "linear", "dag", "branch")
"""The task shapes the generator knows (`envscale.tasks.model.SHAPES`), listed even when absent."""
SELF_WORDS = frozenset({"<session>", "account", "user", "profile", "me", "self", "login"})
"""What a tool reading the session row may be about without reading something else (the bench's own list)."""
ID_WORDS = frozenset({"id", "ids", "key", "number", "no", "num"})
"""Words of a fact name that say an integer fact names a row (`user id`, `webinar key`, `ticket number`)."""
NEAR_DUPLICATE = re.compile(r"^(?P<base>.+)_(?P<n>\d+)$")
WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


# ----------------------------------------------------------------------------------------------
# Loading


def load_rows(path: str | Path, config: str) -> list[dict[str, Any]]:
    """Every row of every split of one config of an artifact, in split order."""
    from envscale.artifacts import open_artifact

    art = open_artifact(path)
    rows: list[dict[str, Any]] = []
    for split in sorted(art.splits.get(config, {})):
        rows.extend(art.load(config, split=split).to_list())
    return rows


def words(name: str) -> list[str]:
    """The lowercased words of a name (`getUserInfo_2` -> `get user info 2`)."""
    return [w.lower() for w in WORD.findall(name.replace("-", "_"))]


def singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 3:
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def source_of(spec: dict[str, Any]) -> str:
    """`openapi` when most of an environment's tools carry an OpenAPI method and path, else `other`."""
    tools = spec.get("tools") or []
    http = 0
    for tool in tools:
        notes = (tool.get("metadata") or {}).get("annotations")
        http += isinstance(notes, dict) and bool(notes.get("path")) and bool(notes.get("method"))
    return "openapi" if tools and 2 * http > len(tools) else "other"


def _no_text(value: Any) -> Any:
    """An operation part without error texts and with argument names blanked (`{arg: x}` -> `{arg: ?}`)."""
    if isinstance(value, dict):
        return {k: "?" if k == "arg" else _no_text(v) for k, v in sorted(value.items()) if k != "error"}
    if isinstance(value, list):
        return [_no_text(v) for v in value]
    return value


def effect_key(tool: dict[str, Any]) -> str:
    """What a tool does, argument names and texts aside: kind, type, table, the columns it keys, sets,
    fills and filters, its fixed values, defaults, guards, preconditions and effects."""
    op = tool.get("operation") or {}

    def columns(part: Any) -> list[str]:
        return sorted(part) if isinstance(part, dict) else []

    filters = sorted(
        (str(f.get("column")), str(f.get("op", "eq")), json.dumps(_no_text(f.get("value")), default=str))
        for f in op.get("filters") or []
        if isinstance(f, dict)
    )

    def addressed(key: Any) -> list[tuple[str, str]]:
        # how each key column is given: by an argument, or by the session (`GET /users/me` reads the caller's row,
        # `GET /users/{id}` any row: two effects)
        if not isinstance(key, dict):
            return []
        return sorted((str(c), next(iter(b)) if isinstance(b, dict) and b else "arg") for c, b in key.items())

    parts = [
        tool.get("kind"),
        op.get("type"),
        op.get("table"),
        addressed(op.get("key")),
        columns(op.get("set")),
    ]
    values = op.get("values") if isinstance(op.get("values"), dict) else {}
    # a column an insert fills from an argument, or with a fixed value (`kind: core` vs `kind: archival`)
    filled = sorted(
        (str(c), json.dumps(v.get("value"), default=str) if isinstance(v, dict) and "value" in v else "arg")
        for c, v in values.items()
    )
    parts += [filled, filters, op.get("fixed"), op.get("defaults")]
    parts += [_no_text(op.get(k)) for k in ("guards", "preconditions", "effects")]
    return json.dumps(parts, sort_keys=True, default=str)


def api_operation_key(tool: dict[str, Any]) -> str:
    """Which API operation a tool is: its OpenAPI path (parameter names aside), else its name up to case,
    separators and a `_N` copy number."""
    meta = tool.get("metadata") or {}
    notes = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
    if notes.get("path"):
        return "path " + re.sub(r"\{[^{}]*\}", "{}", str(notes["path"]).rstrip("/").lower())
    name = str(meta.get("original_name") or tool["name"])
    return "name " + re.sub(r"[^a-z0-9]", "", re.sub(r"_\d+$", "", name).lower())


def same_api_operation(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """One API operation: one :func:`api_operation_key`, or (both without a path) the words of one name, three
    or more, a run of the other's (`ProjectApi_update_project` in `project_api_ProjectApi_update_project`)."""
    key_a, key_b = api_operation_key(a), api_operation_key(b)
    if key_a == key_b:
        return True
    if key_a.startswith("path") or key_b.startswith("path"):
        return False

    def name_words(tool: dict[str, Any]) -> list[str]:
        name = str((tool.get("metadata") or {}).get("original_name") or tool["name"])
        return words(re.sub(r"_\d+$", "", name))

    short, long = sorted((name_words(a), name_words(b)), key=len)
    return len(short) >= 3 and any(
        long[i : i + len(short)] == short for i in range(len(long) - len(short) + 1)
    )


def is_function_set(spec: dict[str, Any], kind: str | None = None) -> bool:
    """The environment's `kind` (environments schema 1.2) when given; for an older row, no write tool."""
    if kind:
        return kind == "function_set"
    return not any(t.get("kind") == "write" for t in spec.get("tools", []))


# ----------------------------------------------------------------------------------------------
# Tasks


def state_keys(spec: dict[str, Any], seed: int | None) -> tuple[frozenset[str], frozenset[int]]:
    """The string and the integer primary-key values of the environment's state at `seed` (as `reset(seed)`
    builds it: `None` is the spec's `initial_state`, else its `data.seed`)."""
    from envscale.env.data import build_state

    if seed is None and "initial_state" in spec:
        state = spec["initial_state"]
    else:
        state = build_state(spec, (spec.get("data") or {}).get("seed", 0) if seed is None else seed)
    from envscale.env.data import key_formats
    from envscale.tasks.finding import caller_scope, printed_number

    formats = key_formats(spec)
    strings, integers = set(), set()
    for table, rows in state.items():
        if printed_number(table):  # an order, ticket or invoice number: the user holds it
            continue
        if formats[table].kind == "name":  # a resource's name (`rg-finance-prod-01`): its owner holds it
            continue
        if caller_scope(spec, table):  # the caller's own account or subscription, which scopes every route
            continue
        pk = spec["tables"][table]["primary_key"]
        for row in rows:
            value = row.get(pk)
            if isinstance(value, str):
                strings.add(value)
            elif isinstance(value, int) and not isinstance(value, bool):
                integers.add(value)
    return frozenset(strings), frozenset(integers)


def fact_leaves(facts: Any, name: str = "") -> list[tuple[str, Any]]:
    """`(fact name, leaf value)` of a facts mapping, lists and nested mappings flattened."""
    if isinstance(facts, dict):
        return [leaf for key, value in facts.items() for leaf in fact_leaves(value, name or str(key))]
    if isinstance(facts, list):
        return [leaf for value in facts for leaf in fact_leaves(value, name)]
    return [(name, facts)]


def internal_ids(task: dict[str, Any], keys: tuple[frozenset[str], frozenset[int]]) -> tuple[list, list]:
    """The task's user facts that are string keys, and the id-named ones that are integer keys."""
    instructions = task.get("instructions") or {}
    leaves = fact_leaves(instructions.get("known_facts") or {}) + fact_leaves(
        instructions.get("hidden_facts") or {}
    )
    strings, integers = keys
    found = [v for _, v in leaves if isinstance(v, str) and v in strings]
    found_int = [
        v
        for name, v in leaves
        if isinstance(v, int) and not isinstance(v, bool) and v in integers and ID_WORDS & set(words(name))
    ]
    return found, found_int


def task_frame(
    tasks: list[dict[str, Any]],
    specs: dict[str, dict[str, Any]] | None,
    kinds: dict[str, str | None] | None = None,
) -> pl.DataFrame:
    """One row per task: environment, split, kind, shape, calls, writes, internal ids, function set."""
    key_cache: dict[tuple[str, int | None], tuple[frozenset[str], frozenset[int]]] = {}
    records = []
    for task in tasks:
        env = task["environment"]
        spec = (specs or {}).get(env)
        gold = task.get("gold_calls") or []
        difficulty = task.get("difficulty") or {}
        record = {
            "task_id": task["task_id"],
            "environment": env,
            "split": task.get("split"),
            "kind": task.get("kind"),
            "shape": difficulty.get("shape"),
            "decides": bool(
                {"dag", "branch"} & {difficulty.get("shape"), *(difficulty.get("request_shapes") or [])}
            ),
            "n_calls": len(gold),
            "n_writes": difficulty.get("n_writes"),
            "internal_id": None,
            "internal_int_id": None,
            "id_example": None,
            "function_set": None,
        }
        if spec is not None:
            kinds = {t["name"]: t.get("kind") for t in spec["tools"]}
            record["n_writes"] = sum(kinds.get(c.get("tool")) == "write" for c in gold)
            record["function_set"] = is_function_set(spec, (kinds or {}).get(env))
            cache_key = (env, task.get("seed"))
            if cache_key not in key_cache:
                key_cache[cache_key] = state_keys(spec, task.get("seed"))
            found, found_int = internal_ids(task, key_cache[cache_key])
            record["internal_id"] = bool(found)
            record["internal_int_id"] = bool(found_int)
            record["id_example"] = str(found[0]) if found else None
        records.append(record)
    schema = {
        "task_id": pl.String,
        "environment": pl.String,
        "split": pl.String,
        "kind": pl.String,
        "shape": pl.String,
        "decides": pl.Boolean,
        "n_calls": pl.Int64,
        "n_writes": pl.Int64,
        "internal_id": pl.Boolean,
        "internal_int_id": pl.Boolean,
        "id_example": pl.String,
        "function_set": pl.Boolean,
    }
    return pl.DataFrame(records, schema=schema, orient="row")


def share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def task_figures(frame: pl.DataFrame, worlds_only: bool = False) -> dict[str, Any]:
    """The task figures of a `task_frame` (function sets left out and counted apart with `worlds_only`)."""
    left_out = 0
    if worlds_only:
        left_out = frame.filter(pl.col("function_set").fill_null(False)).height
        frame = frame.filter(~pl.col("function_set").fill_null(False))
    n = frame.height
    calls = frame.select(
        pl.col("n_calls").median().alias("median"),
        (pl.col("n_calls") == 1).sum().alias("1"),
        (pl.col("n_calls") == 2).sum().alias("2"),
        (pl.col("n_calls") == 3).sum().alias("3"),
        (pl.col("n_calls") >= 4).sum().alias("4+"),
    ).row(0, named=True)
    ranked = frame.get_column("n_calls").sort()
    p90 = ranked[math.ceil(0.9 * n) - 1] if n else None
    shapes = dict(frame.group_by("shape").len().sort("shape").iter_rows())
    writes = frame.select(
        (pl.col("n_writes") == 0).sum().alias("0"),
        (pl.col("n_writes") == 1).sum().alias("1"),
        (pl.col("n_writes") >= 2).sum().alias("2+"),
    ).row(0, named=True)
    ids = frame.filter(pl.col("internal_id").is_not_null())
    with_id = ids.filter(pl.col("internal_id"))
    with_int = ids.filter(pl.col("internal_int_id"))
    with_any = ids.filter(pl.col("internal_id") | pl.col("internal_int_id"))
    return {
        "tasks": n,
        "function_set_tasks_left_out": left_out,
        "calls": {
            "median": calls["median"],
            "p90": p90,
            "count": {k: calls[k] for k in ("1", "2", "3", "4+")},
            "share": {k: share(calls[k] or 0, n) for k in ("1", "2", "3", "4+")},
        },
        "shapes": {s: shapes.get(s, 0) for s in SHAPES}
        | {s: c for s, c in shapes.items() if s not in SHAPES},
        "dag_or_branch": {
            "tasks": (decides := int(frame.get_column("decides").fill_null(False).sum())),
            "share": share(decides, n),
        },
        "writes": {"count": writes, "share": {k: share(v or 0, n) for k, v in writes.items()}},
        "internal_id": {
            "tasks_checked": ids.height,
            "tasks": with_id.height,
            "share": share(with_id.height, ids.height),
            "integer_id_tasks": with_int.height,
            "integer_id_share": share(with_int.height, ids.height),
            "any_id_tasks": with_any.height,
            "any_id_share": share(with_any.height, ids.height),
            "examples": with_id.sort("task_id").head(3).select("task_id", "id_example").rows(),
        },
    }


# ----------------------------------------------------------------------------------------------
# Closing messages


def closing_message(row: dict[str, Any]) -> str:
    for message in reversed(row.get("messages") or []):
        if message.get("role") == "assistant":
            return (message.get("content") or "").strip()
    return (row.get("final_answer") or "").strip()


def closing_figures(
    filtered: list[dict[str, Any]], function_sets: set[str] | None = None, worlds_only: bool = False
) -> dict[str, Any]:
    """Distinct closing messages of kept trajectories (those of `function_sets` left out with `worlds_only`)."""
    frame = pl.DataFrame(
        {
            "environment": [r.get("environment") for r in filtered],
            "closing": [closing_message(r) for r in filtered],
        },
        schema={"environment": pl.String, "closing": pl.String},
    )
    left_out = 0
    if worlds_only and function_sets is not None:
        in_sets = pl.col("environment").is_in(sorted(function_sets))
        left_out = frame.filter(in_sets).height
        frame = frame.filter(~in_sets)
    counts = frame.group_by("closing").len().sort(["len", "closing"], descending=[True, False])
    openings = frame.select(
        pl.col("closing").str.to_lowercase().str.split(" ").list.head(3).list.join(" ").n_unique()
    ).item()
    top = counts.head(3).rows()
    return {
        "kept": frame.height,
        "function_set_kept_left_out": left_out,
        "distinct": counts.height,
        "top_share": share(top[0][1], frame.height) if top else 0.0,
        "top": [{"text": text, "count": count} for text, count in top],
        "distinct_openings": openings if frame.height else 0,
    }


# ----------------------------------------------------------------------------------------------
# Environments


def session_reads(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The read tools answering from the session row, each with whether it reads a non-session entity."""
    session = (spec.get("session") or {}).get("table")
    if session is None:
        return []
    own = {session.lower(), singular(session.lower())} | SELF_WORDS
    found = []
    for tool in spec["tools"]:
        op = tool.get("operation") or {}
        key = op.get("key") or {}
        if tool.get("kind") != "read" or op.get("type") != "get":
            continue
        if not any(isinstance(b, dict) and "session" in b for b in key.values()):
            continue
        entity = (tool.get("metadata") or {}).get("entity")
        about = {entity.lower(), singular(entity.lower())} if entity else set(words(tool["name"]))
        found.append({"tool": tool["name"], "entity": entity, "non_session": not (about & own)})
    return found


def multi_table_effect(spec: dict[str, Any]) -> bool:
    """Whether a tool of the spec has an effect (`operation.effects`) on a table other than its own."""
    return any(
        isinstance(e, dict) and e.get("table") != (t.get("operation") or {}).get("table")
        for t in spec["tools"]
        for e in (t.get("operation") or {}).get("effects") or []
    )


def environment_frames(envs: list[dict[str, Any]]) -> dict[str, pl.DataFrame]:
    """Rows per table, per foreign key, per tool and per unique column of every environment."""
    tables, fks, tools, uniques, sets = [], [], [], [], []
    for env in envs:
        spec, name = env["spec"], env["name"]
        for table, tspec in spec["tables"].items():
            pk, columns = tspec["primary_key"], tspec["columns"]
            tables.append(
                {
                    "environment": name,
                    "table": table,
                    "pk_only": len(columns) == 1,
                    "key_only": all(c == pk or cs.get("references") for c, cs in columns.items()),
                }
            )
            for column, cspec in columns.items():
                if cspec.get("references"):
                    fks.append(
                        {"environment": name, "table": table, "column": column, "ref": cspec["references"]}
                    )
                if cspec.get("unique") and column != pk:
                    uniques.append(
                        {
                            "environment": name,
                            "table": table,
                            "column": column,
                            "foreign_key": bool(cspec.get("references")),
                        }
                    )
            sets.extend({"environment": name, "table": table, "columns": g} for g in tspec.get("unique", []))
        by_name = {t["name"]: t for t in spec["tools"]}
        reads = {r["tool"]: r for r in session_reads(spec)}
        met: dict[str, list[dict[str, Any]]] = {}  # effect -> the tools met with it
        for tool in spec["tools"]:
            op = tool.get("operation") or {}
            match = NEAR_DUPLICATE.match(tool["name"])
            base = by_name.get(match["base"]) if match else None
            base_op = (base or {}).get("operation") or {}
            effect = effect_key(tool)
            same_effect = effect in met
            same_api_op = any(same_api_operation(tool, other) for other in met.get(effect, []))
            met.setdefault(effect, []).append(tool)
            tools.append(
                {
                    "environment": name,
                    "tool": tool["name"],
                    "same_effect": same_effect,
                    "same_effect_same_api_operation": same_api_op,
                    "kind": tool.get("kind"),
                    "session_read": tool["name"] in reads,
                    "non_session_read": reads.get(tool["name"], {}).get("non_session", False),
                    "near_duplicate": base is not None,
                    "same_operation": base is not None
                    and (base_op.get("type"), base_op.get("table")) == (op.get("type"), op.get("table")),
                }
            )
    return {
        "environments": pl.DataFrame(
            {
                "environment": [e["name"] for e in envs],
                "function_set": [is_function_set(e["spec"], e.get("kind")) for e in envs],
                "session": [bool(e["spec"].get("session")) for e in envs],
                "multi_table_effect": [multi_table_effect(e["spec"]) for e in envs],
            },
            schema={
                "environment": pl.String,
                "function_set": pl.Boolean,
                "session": pl.Boolean,
                "multi_table_effect": pl.Boolean,
            },
        ),
        "tables": pl.DataFrame(
            tables,
            schema={
                "environment": pl.String,
                "table": pl.String,
                "pk_only": pl.Boolean,
                "key_only": pl.Boolean,
            },
        ),
        "fks": pl.DataFrame(
            fks, schema={"environment": pl.String, "table": pl.String, "column": pl.String, "ref": pl.String}
        ),
        "tools": pl.DataFrame(
            tools,
            schema={
                "environment": pl.String,
                "tool": pl.String,
                "kind": pl.String,
                "same_effect": pl.Boolean,
                "same_effect_same_api_operation": pl.Boolean,
                "session_read": pl.Boolean,
                "non_session_read": pl.Boolean,
                "near_duplicate": pl.Boolean,
                "same_operation": pl.Boolean,
            },
        ),
        "uniques": pl.DataFrame(
            uniques,
            schema={
                "environment": pl.String,
                "table": pl.String,
                "column": pl.String,
                "foreign_key": pl.Boolean,
            },
        ),
        "unique_sets": pl.DataFrame(
            sets, schema={"environment": pl.String, "table": pl.String, "columns": pl.List(pl.String)}
        ),
    }


def count_in(frame: pl.DataFrame, flag: str) -> tuple[int, int]:
    """Rows where `flag` holds, and the environments they are in."""
    hits = frame.filter(pl.col(flag))
    return hits.height, hits.select(pl.col("environment").n_unique()).item() if hits.height else 0


def environment_figures(
    envs: list[dict[str, Any]], frames: dict[str, pl.DataFrame] | None = None
) -> dict[str, Any]:
    """The environment figures; `frames` are `environment_frames(envs)` when the caller has them already."""
    frames = frames if frames is not None else environment_frames(envs)
    tables, tools = frames["tables"], frames["tools"]
    fks = (
        frames["fks"]
        .join(tables.rename({"table": "ref"}), on=["environment", "ref"], how="left")
        .with_columns(pl.col("pk_only").fill_null(False), pl.col("key_only").fill_null(False))
    )
    n_fk = fks.height
    session_reads_n, session_envs = count_in(tools, "session_read")
    non_session_n, non_session_envs = count_in(tools, "non_session_read")
    near_n, near_envs = count_in(tools, "near_duplicate")
    same_n, _ = count_in(tools, "same_operation")
    effect_n, effect_envs = count_in(tools, "same_effect")
    effect_op_n, effect_op_envs = count_in(tools, "same_effect_same_api_operation")
    uniques = frames["uniques"]
    env_frame = frames["environments"]
    return {
        "environments": env_frame.height,
        "tables": {
            "tables": tables.height,
            "key_only": count_in(tables, "key_only")[0],
            "pk_only": count_in(tables, "pk_only")[0],
        },
        "foreign_keys": {
            "foreign_keys": n_fk,
            "to_key_only": count_in(fks, "key_only")[0],
            "to_key_only_share": share(count_in(fks, "key_only")[0], n_fk),
            "to_pk_only": count_in(fks, "pk_only")[0],
            "to_pk_only_share": share(count_in(fks, "pk_only")[0], n_fk),
        },
        "session_reads": {
            "environments_with_session": count_in(env_frame, "session")[0],
            "session_row_reads": session_reads_n,
            "session_row_reads_environments": session_envs,
            "non_session_entity": non_session_n,
            "non_session_entity_environments": non_session_envs,
        },
        "near_duplicates": {
            "tools": tools.height,
            "near_duplicate": near_n,
            "near_duplicate_environments": near_envs,
            "same_operation_and_table": same_n,
            "same_effect": effect_n,
            "same_effect_environments": effect_envs,
            "same_effect_same_api_operation": effect_op_n,
            "same_effect_same_api_operation_environments": effect_op_envs,
        },
        "unique_non_key": {
            "columns": uniques.height,
            "foreign_key_columns": count_in(uniques, "foreign_key")[0],
            "environments": uniques.select(pl.col("environment").n_unique()).item() if uniques.height else 0,
            "column_sets": frames["unique_sets"].height,
        },
        "function_sets": {
            "function_sets": count_in(env_frame, "function_set")[0],
            "worlds": env_frame.height - count_in(env_frame, "function_set")[0],
            "worlds_with_multi_table_effect": env_frame.filter(
                ~pl.col("function_set") & pl.col("multi_table_effect")
            ).height,
        },
    }


# ----------------------------------------------------------------------------------------------
# All together


def figures(
    tasks: list[dict[str, Any]] | None,
    envs: list[dict[str, Any]] | None,
    filtered: list[dict[str, Any]] | None,
    worlds_only: bool = False,
) -> dict[str, Any]:
    """Every figure of the inputs given (a missing input's block is left out)."""
    if worlds_only and envs is None:
        raise ValueError("--worlds-only needs the environments (which ones are function sets)")
    specs = {e["name"]: e["spec"] for e in envs} if envs is not None else None
    kinds = {e["name"]: e.get("kind") for e in envs} if envs is not None else None
    function_sets = (
        {n for n, s in specs.items() if is_function_set(s, kinds[n])} if specs is not None else None
    )
    out: dict[str, Any] = {"worlds_only": worlds_only}
    if envs is not None:
        out["environments"] = environment_figures(envs)
    if tasks is not None:
        frame = task_frame(tasks, specs, kinds)
        out["tasks"] = task_figures(frame, worlds_only)
        if function_sets is not None:
            fs = frame.filter(pl.col("function_set").fill_null(False)).height
            out["environments"]["function_sets"] |= {
                "function_set_tasks": fs,
                "world_tasks": frame.height - fs,
            }
    if filtered is not None:
        out["closing"] = closing_figures(filtered, function_sets, worlds_only)
        if function_sets is not None:
            fs = sum(r.get("environment") in function_sets for r in filtered)
            out["environments"]["function_sets"] |= {
                "function_set_kept": fs,
                "world_kept": len(filtered) - fs,
            }
    return out


def pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def render(figs: dict[str, Any]) -> str:
    """The figures as a compact table a person reads."""
    lines: list[str] = []

    def row(name: str, value: Any) -> None:
        lines.append(f"  {name:<44} {value}")

    if "tasks" in figs:
        t = figs["tasks"]
        c = t["calls"]
        scope = " (worlds only)" if figs["worlds_only"] else ""
        lines.append(f"tasks{scope}: {t['tasks']}")
        if figs["worlds_only"]:
            row("function-set tasks left out", t["function_set_tasks_left_out"])
        row("calls per task: median / p90", f"{c['median']:g} / {c['p90']}")
        row(
            "calls 1 / 2 / 3 / 4+",
            " / ".join(f"{c['count'][k]} ({pct(c['share'][k])})" for k in ("1", "2", "3", "4+")),
        )
        row("shapes", ", ".join(f"{s} {n}" for s, n in t["shapes"].items()))
        d = t["dag_or_branch"]
        row("dag or branch, alone or as a request", f"{d['tasks']} ({pct(d['share'])})")
        w = t["writes"]
        row(
            "writes 0 / 1 / 2+",
            " / ".join(f"{w['count'][k]} ({pct(w['share'][k])})" for k in ("0", "1", "2+")),
        )
        i = t["internal_id"]
        row(
            "user facts with an internal id (string key)",
            f"{i['tasks']} of {i['tasks_checked']} ({pct(i['share'])})",
        )
        row(
            "... an id-named integer key / either",
            f"{i['integer_id_tasks']} ({pct(i['integer_id_share'])}) / "
            f"{i['any_id_tasks']} ({pct(i['any_id_share'])})",
        )
    if "closing" in figs:
        c = figs["closing"]
        lines.append(f"closing messages: {c['kept']} kept trajectories")
        if figs["worlds_only"]:
            row("function-set kept left out", c["function_set_kept_left_out"])
        row("distinct closing messages", c["distinct"])
        row("distinct openings (first 3 words)", c["distinct_openings"])
        if c["top"]:
            row("most common", f"{pct(c['top_share'])}: {c['top'][0]['text'][:60]!r}")
    if "environments" in figs:
        e = figs["environments"]
        lines.append(f"environments: {e['environments']}")
        tb, fk = e["tables"], e["foreign_keys"]
        row("tables: key-only / pk-only / all", f"{tb['key_only']} / {tb['pk_only']} / {tb['tables']}")
        row(
            "foreign keys to key-only / pk-only tables",
            f"{fk['to_key_only']} ({pct(fk['to_key_only_share'])}) / {fk['to_pk_only']} "
            f"({pct(fk['to_pk_only_share'])}) of {fk['foreign_keys']}",
        )
        s = e["session_reads"]
        row(
            "session-row reads (envs)",
            f"{s['session_row_reads']} ({s['session_row_reads_environments']}) in "
            f"{s['environments_with_session']} envs with a session",
        )
        row(
            "... of a non-session entity (envs)",
            f"{s['non_session_entity']} ({s['non_session_entity_environments']})",
        )
        d = e["near_duplicates"]
        row(
            "near-duplicate tools: same effect (envs)",
            f"{d['same_effect']} ({d['same_effect_environments']}) of {d['tools']} tools",
        )
        row(
            "... one API operation / other operations",
            f"{d['same_effect_same_api_operation']} ({d['same_effect_same_api_operation_environments']}) / "
            f"{d['same_effect'] - d['same_effect_same_api_operation']}",
        )
        row(
            "near-duplicate _N tools (envs)",
            f"{d['near_duplicate']} ({d['near_duplicate_environments']}), "
            f"{d['same_operation_and_table']} with the same operation and table",
        )
        u = e["unique_non_key"]
        row(
            "unique non-key columns (envs)",
            f"{u['columns']} ({u['environments']}), {u['foreign_key_columns']} of them foreign keys; "
            f"{u['column_sets']} unique column sets",
        )
        f = e["function_sets"]
        text = f"{f['function_sets']} / {f['worlds']}"
        if "function_set_tasks" in f:
            text += f"; tasks {f['function_set_tasks']} / {f['world_tasks']}"
        if "function_set_kept" in f:
            text += f"; kept {f['function_set_kept']} / {f['world_kept']}"
        row("function sets / worlds", text)
        row("worlds with a multi-table effect", f["worlds_with_multi_table_effect"])
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--run", default="outputs/quickstart", help="run folder (its tasks, environments, filtered)"
    )
    parser.add_argument("--tasks", default=None, help="tasks artifact (default: RUN/tasks)")
    parser.add_argument(
        "--environments", default=None, help="environments artifact (default: RUN/environments)"
    )
    parser.add_argument("--filtered", default=None, help="filtered artifact (default: RUN/filtered)")
    parser.add_argument("--json", default=None, help="also write every figure here")
    parser.add_argument("--worlds-only", action="store_true", help="leave function sets out of task figures")
    parser.add_argument(
        "--source",
        choices=("all", "openapi", "other"),
        default="all",
        help="count only environments of this source (and their tasks and kept trajectories)",
    )
    args = parser.parse_args(argv)
    run = Path(args.run)
    paths = {
        name: Path(given) if given else run / name
        for name, given in (
            ("tasks", args.tasks),
            ("environments", args.environments),
            ("filtered", args.filtered),
        )
    }
    missing = [
        str(paths[n]) for n, given in vars(args).items() if n in paths and given and not paths[n].exists()
    ]
    if missing:
        parser.error(f"no such artifact: {', '.join(missing)}")
    present = {name: path for name, path in paths.items() if path.exists()}
    if not present:
        parser.error(f"none of {', '.join(str(p) for p in paths.values())} exists")
    if args.worlds_only and "environments" not in present:
        parser.error("--worlds-only needs the environments (which ones are function sets)")
    configs = {"tasks": "tasks", "environments": "environments", "filtered": "filtered"}
    rows = {name: load_rows(path, configs[name]) for name, path in present.items()}
    if args.source != "all":
        if "environments" not in present:
            parser.error("--source needs the environments (where each one's tools come from)")
        rows["environments"] = [e for e in rows["environments"] if source_of(e["spec"]) == args.source]
        keep = {e["name"] for e in rows["environments"]}
        for name in ("tasks", "filtered"):
            if name in rows:
                rows[name] = [r for r in rows[name] if r.get("environment") in keep]
    figs = figures(rows.get("tasks"), rows.get("environments"), rows.get("filtered"), args.worlds_only)
    figs["inputs"] = {name: str(path) for name, path in present.items()}
    figs["source"] = args.source
    if args.source != "all":
        print(f"source: {args.source} environments only ({len(rows['environments'])})")
    print(render(figs))
    if args.json:
        Path(args.json).write_text(json.dumps(figs, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
