"""The Environments view's content: an environment's summary, its tables and foreign keys drawn, its domain's tool
graph, its tools, and a tool called live on a fresh copy of the initial state with the state diff.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..artifacts import Artifact
from ..env import Environment
from ..show.environment import describe_operation, signature
from .data import CELL_CHARS, Catalog, Index, cell, parse_json

# ----------------------------------------------------------------------------------------------- environments


def _spec(row: Mapping[str, Any]) -> dict:
    spec = row["spec"]
    return json.loads(spec) if isinstance(spec, str) else spec


REASON_CHARS = 160
"""Characters of a left-out tool's reason shown (one line; the rest is cut with an ellipsis)."""
JSON_CHARS = 48
"""Characters of a JSON value quoted inside a reason (arguments, a row, a schema) shown."""


def _json_end(text: str, start: int) -> int:
    """Where the JSON value opening at `start` ends: after its closing bracket, or after a `...` that cut it
    short, or at the end of the text."""
    depth, quoted, escaped = 0, False, False
    i = start
    while i < len(text):
        ch = text[i]
        if quoted:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                return i + 1
        elif text.startswith("...", i):
            return i + 3
        i += 1
    return len(text)


def readable_reason(reason: Any, chars: int = REASON_CHARS) -> str:
    """A left-out tool's reason on one line: each JSON value quoted in it (the arguments tried, a row, a
    schema; materialize often cut them short) shortened to its start, the whole cut with an ellipsis."""
    text = " ".join(str(reason or "").split())
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch in "[{" and (i + 1 < len(text) and text[i + 1] in '"{[') or text.startswith("{}", i):
            end = _json_end(text, i)
            part = text[i:end]
            if len(part) > JSON_CHARS:
                part = part[: JSON_CHARS - 1].rstrip(" ,:") + "…" + ("}" if ch == "{" else "]")
            out.append(part)
            i = end
        else:
            out.append(ch)
            i += 1
    text = "".join(out)
    return text if len(text) <= chars else text[: chars - 1].rstrip() + "…"


def _left_out(value: Any) -> list[tuple[str, str]]:
    entries = parse_json(value) or []
    return [
        (str(e.get("tool", "?")), readable_reason(e.get("reason"))) if isinstance(e, dict) else (str(e), "")
        for e in entries
    ]


def environment_summary(
    row: Mapping[str, Any], *, session: Mapping[str, Any] | None = None, usage: str = ""
) -> str:
    """The head of an environment as markdown: what it is, its size, which tools materialize verified and
    which it left out (with why), the tasks and episodes it has (`usage`, see `Usage.line`), the logged-in
    session row (`session`, see `session_row`) and its semantic scores."""
    spec = _spec(row)
    tools = spec.get("tools", [])
    writes = [t["name"] for t in tools if t.get("kind") == "write"]
    dropped, excluded = _left_out(row.get("dropped_tools")), _left_out(row.get("excluded_tools"))
    if dropped or excluded:
        left = (
            f"{len(dropped)} dropped (failed verification) and {len(excluded)} excluded (pure computations), "
            "listed below with their reasons"
        )
    else:
        left = "none dropped or excluded"
    lines = [
        f"### {row.get('name')}",
        f"{spec.get('description') or ''}".strip(),
        "",
        f"- **domain** {row.get('domain_id')} ({row.get('domain_name') or '?'}), **kind** {row.get('kind') or '?'}",
        f"- **{row.get('n_tables')} tables**, {row.get('n_rows')} rows; **{len(tools)} tools** "
        f"({row.get('n_read')} read, {row.get('n_write')} write)",
        f"- **verified**: {len(tools)} tools kept, each exercised by materialize's verification on this state; "
        f"{left}",
    ]
    if usage:
        lines.append(f"- {usage}")
    lines += [
        f"- **semantic score** {row.get('semantic_score')}, read-only: {row.get('read_only')}, "
        f"written and read: {', '.join(row.get('written_and_read') or []) or 'none'}",
        f"- **state hash** `{(row.get('state_hash') or '')[:16]}`",
    ]
    if session:
        where = (spec.get("session") or {}).get("table") or "?"
        shown = ", ".join(f"{k} `{readable_reason(cell(v), 60)}`" for k, v in session.items())
        lines += [
            "",
            f"**Logged-in session** (the `{where}` row the agent acts for; tools that read the caller's own "
            f"row use it): {shown}",
        ]
    if row.get("policy"):
        lines += ["", f"**Policy**: {row['policy']}"]
    for title, entries in (
        ("Dropped (failed verification)", dropped),
        ("Excluded (pure computations, not part of the state)", excluded),
    ):
        if entries:
            lines += ["", f"**{title}**:"]
            lines += [f"- `{tool}`: {reason}" for tool, reason in entries[:30]]
            if len(entries) > 30:
                lines.append(f"- … {len(entries) - 30} more")
    if writes:
        lines += ["", f"Write tools: {', '.join(f'`{w}`' for w in writes)}"]
    return "\n".join(lines)


def session_row(row: Mapping[str, Any]) -> dict | None:
    """The logged-in session row of the environment's initial state (`Environment.session()`), or `None`."""
    if not _spec(row).get("session"):
        return None
    with Environment.from_row({"spec": _spec(row)}) as env:
        env.reset()
        return env.session()


class Usage:
    """How many tasks and episodes each environment has, counted on the light indexes (polars) of the
    catalog's first tasks artifact (train and test) and of each filtered artifact (kept and rejected)."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self._counts: dict[str, dict[str, int]] | None = None

    @staticmethod
    def _by_environment(index: Index) -> dict[str, int]:
        if "environment" not in index.frame.columns or not len(index.frame):
            return {}
        counts = index.frame.group_by("environment").len()
        return dict(zip(counts["environment"].to_list(), counts["len"].to_list(), strict=True))

    def counts(self) -> dict[str, dict[str, int]]:
        """`{label: {environment: rows}}`: `tasks train`, `tasks test`, `NAME kept`, `NAME rejected`."""
        if self._counts is None:
            counts: dict[str, dict[str, int]] = {}
            tasks = self.catalog.first_name("tasks")
            if tasks is not None:
                for split in ("train", "test"):
                    if split in self.catalog.artifacts[tasks].splits.get("tasks", {}):
                        counts[f"tasks {split}"] = self._by_environment(
                            self.catalog.index(tasks, "tasks", split)
                        )
            for name, art in sorted(self.catalog.of_kind("filtered").items()):
                for config, label in (("filtered", "kept"), ("rejected", "rejected")):
                    if config in art.splits:
                        counts[f"{name} {label}"] = self._by_environment(self.catalog.index(name, config))
            self._counts = counts
        return self._counts

    def line(self, environment: str) -> str:
        """`**tasks**: N train, M test · **episodes** (filtered): K kept, R rejected`, or "" without a tasks
        artifact."""
        counts = self.counts()
        if not counts:
            return ""
        parts = []
        if any(k.startswith("tasks ") for k in counts):
            train = counts.get("tasks train", {}).get(environment, 0)
            test = counts.get("tasks test", {}).get(environment, 0)
            parts.append(f"**tasks**: {train:,} train, {test:,} test")
        for name in sorted(self.catalog.of_kind("filtered")):
            kept = counts.get(f"{name} kept", {}).get(environment, 0)
            rejected = counts.get(f"{name} rejected", {}).get(environment, 0)
            parts.append(f"**episodes** ({name}): {kept:,} kept, {rejected:,} rejected")
        return " · ".join(parts)


def initial_state(row: Mapping[str, Any]) -> dict[str, list[dict]]:
    """The environment's initial state, every table's rows."""
    with Environment.from_row({"spec": _spec(row)}) as env:
        env.reset()
        return env.dump()


def table_rows(
    state: Mapping[str, list[dict]], table: str, spec: Mapping[str, Any]
) -> tuple[list[list], list[str]]:
    """One table's rows and headers (the spec's column order)."""
    columns = list(spec["tables"].get(table, {}).get("columns", {})) or sorted(
        {k for r in state.get(table, []) for k in r}
    )
    return [[cell(r.get(c)) for c in columns] for r in state.get(table, [])], columns


def tools_markdown(row: Mapping[str, Any]) -> str:
    """Every tool: its signature, description and what its operation does to the state."""
    spec = _spec(row)
    out = []
    for tool in spec.get("tools", []):
        out += [
            f"#### `{signature(tool)}`  ({tool.get('kind', '?')})",
            (tool.get("description") or "").strip(),
            "",
            "```text",
            describe_operation(tool.get("operation", {}), spec).rstrip(),
            "```",
            "<details><summary>JSON Schema</summary>",
            "",
            "```json",
            json.dumps(tool.get("parameters", {}), indent=2, ensure_ascii=False),
            "```",
            "</details>",
            "",
        ]
    return "\n".join(out)


def foreign_keys(spec: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(table, column, referenced table) for every column that references another table."""
    keys = []
    for table, tspec in spec.get("tables", {}).items():
        for column, cspec in tspec.get("columns", {}).items():
            ref = cspec.get("references")
            if ref:
                keys.append((table, column, str(ref).split(".")[0]))
    return keys


def _png(fig: Any) -> Any:
    from PIL import Image

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    buf.seek(0)
    return Image.open(buf)


def schema_picture(row: Mapping[str, Any]) -> Any:
    """The tables and their foreign keys drawn (a PIL image): an arrow from the referencing table to the one
    it references, labelled with the column; tables nothing references and that reference nothing stand apart."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import networkx as nx

    spec = _spec(row)
    graph = nx.MultiDiGraph()
    graph.add_nodes_from(spec.get("tables", {}))
    for table, column, target in foreign_keys(spec):
        graph.add_edge(table, target, label=column)
    n = max(1, graph.number_of_nodes())
    fig, ax = plt.subplots(figsize=(min(16, 4 + n * 0.6), min(12, 3 + n * 0.45)))
    # A circle, tables of one connected group side by side (largest group first): every name stays readable,
    # where a spring layout piles a hub's neighbours on each other and flings unconnected tables to the edge.
    order = [
        t
        for part in sorted(nx.connected_components(nx.Graph(graph)), key=lambda c: (-len(c), min(c)))
        for t in sorted(part)
    ]
    pos = nx.circular_layout(order) if n > 1 else {order[0]: (0.0, 0.0)} if order else {}
    nx.draw_networkx_nodes(graph, pos, ax=ax, node_color="#dbe8ff", node_size=1600, edgecolors="#3b6fd6")
    nx.draw_networkx_labels(graph, pos, ax=ax, font_size=8)
    nx.draw_networkx_edges(graph, pos, ax=ax, arrows=True, arrowsize=14, node_size=1600, edge_color="#555")
    labels = {
        (u, v): ", ".join(d["label"] for d in graph.get_edge_data(u, v).values()) for u, v, _ in graph.edges
    }
    nx.draw_networkx_edge_labels(nx.DiGraph(graph), pos, edge_labels=labels, ax=ax, font_size=7)
    ax.set_title(
        f"{row.get('name')}: {graph.number_of_nodes()} tables, {len(foreign_keys(spec))} foreign keys"
    )
    ax.axis("off")
    return _png(fig)


def domain_picture(graph: Artifact | None, domain_id: int | None) -> Any | None:
    """The domain's tool graph as `envscale show graph` draws it (a PIL image), when a graph artifact is there."""
    if graph is None or domain_id is None:
        return None
    from ..graph.draw import load_domain, render_domain

    return _png(render_domain(load_domain(graph, int(domain_id))))


def _argument_columns(operation: Mapping[str, Any]) -> dict[str, str]:
    """Each argument the operation binds to a column of its table (its `key`, `values`, `set`, `filters`)."""
    out: dict[str, str] = {}
    for part in ("key", "values", "set"):
        for column, binding in (operation.get(part) or {}).items():
            name = binding.get("arg") if isinstance(binding, dict) else binding
            if isinstance(name, str):
                out.setdefault(name, column)
    for spec in operation.get("filters") or []:
        if isinstance(spec, dict) and isinstance(spec.get("arg"), str) and spec.get("column"):
            out.setdefault(spec["arg"], spec["column"])
    return out


def _is_unique(table: Mapping[str, Any], column: str) -> bool:
    """The column is the table's primary key, or declared unique (on the column or the table)."""
    if column == table.get("primary_key") or (table.get("columns", {}).get(column) or {}).get("unique"):
        return True
    return any(u == column or u == [column] for u in table.get("unique") or [])


def fresh_value(taken: Sequence[Any], kind: str | None = None) -> Any:
    """A value no row has yet, in the form of those it has: the largest number + 1, or the largest
    `PREFIX<digits>` with the next number (`ord_0021` after `ord_0020`); "" when neither fits."""
    seen = {v for v in taken if v is not None}
    numbers = [v for v in seen if isinstance(v, int) and not isinstance(v, bool)]
    if numbers or (kind == "integer" and not seen):
        return max(numbers, default=0) + 1
    best = None
    for value in seen:
        match = re.match(r"^(.*?)(\d+)$", value) if isinstance(value, str) else None
        if match and (best is None or int(match.group(2)) > int(best.group(2))):
            best = match
    if best is None:
        return ""
    prefix, digits = best.group(1), best.group(2)
    n = int(digits) + 1
    while f"{prefix}{n:0{len(digits)}d}" in seen:
        n += 1
    return f"{prefix}{n:0{len(digits)}d}"


def example_arguments(
    tool: Mapping[str, Any], state: Mapping[str, list[dict]], spec: Mapping[str, Any]
) -> dict:
    """Arguments a person could try first: each required parameter filled from the state (the column the
    operation binds it to, else a column of its name, in the first row of the tool's table that has one), else
    its enum's first value, default or example. An insert gets, for a primary key or unique column, a value
    no row has yet (`fresh_value`), so the suggested call adds a row instead of colliding with one."""
    params = tool.get("parameters", {})
    operation = tool.get("operation", {})
    table = operation.get("table")
    table_spec = spec.get("tables", {}).get(table, {}) if table else {}
    columns = _argument_columns(operation)
    rows = list(state.get(table, [])) if table else []
    if not rows:
        rows = [r[0] for r in state.values() if r]
    out: dict[str, Any] = {}
    for name in params.get("required", []):
        schema = params.get("properties", {}).get(name, {})
        column = columns.get(name, name)
        if operation.get("type") == "insert" and table_spec and _is_unique(table_spec, column):
            kind = (table_spec.get("columns", {}).get(column) or {}).get("type")
            out[name] = fresh_value([r.get(column) for r in state.get(table, [])], kind)
            continue
        value = next((r[column] for r in rows if r.get(column) is not None), None)
        if value is None:
            value = next((r[name] for r in rows if r.get(name) is not None), None)
        if value is None:
            value = (schema.get("enum") or [None])[0] or schema.get("default") or schema.get("example")
        if value is None:
            value = {"integer": 1, "number": 1.0, "boolean": True}.get(schema.get("type"), "")
        out[name] = value
    return out


def call_tool(row: Mapping[str, Any], tool: str, arguments: str | Mapping[str, Any]) -> tuple[dict, str]:
    """Call `tool` with `arguments` (JSON text or a dict) on a fresh copy of the environment's initial state;
    returns the observation and the state's diff as markdown ("no change" after a read or a refused call)."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError as exc:
            raise ValueError(f"the arguments are not JSON: {exc}") from None
    with Environment.from_row({"spec": _spec(row)}) as env:
        env.reset()
        before = env.snapshot()
        observation = env.step(tool, dict(arguments))
        return observation, diff_markdown(env.diff(before))


def diff_markdown(diff: Mapping[str, Mapping[str, list]]) -> str:
    """A state diff (`Environment.diff`, a task's `gold_diff`) as markdown: per table, rows added, removed and
    the changed columns with before -> after."""
    if not diff:
        return "**No change** to the state."
    out = []
    for table, change in diff.items():
        out.append(f"**{table}**")
        for r in change.get("added", []):
            out.append(f"- added: `{json.dumps(r, ensure_ascii=False, default=str)[: CELL_CHARS * 2]}`")
        for r in change.get("removed", []):
            out.append(f"- removed: `{json.dumps(r, ensure_ascii=False, default=str)[: CELL_CHARS * 2]}`")
        for c in change.get("changed", []):
            before, after = c.get("before", {}), c.get("after", {})
            cols = [k for k in after if before.get(k) != after.get(k)] or list(after)
            moves = "; ".join(f"{k}: {before.get(k)!r} → {after.get(k)!r}" for k in cols)
            out.append(f"- changed {json.dumps(c.get('key'), default=str)}: {moves}")
        out.append("")
    return "\n".join(out)
