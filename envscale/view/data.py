"""What the viewer shows, without the browser: the artifacts under a folder, pages of their rows, one row as
markdown and tables, and a tool called live on a fresh copy of an environment's state.

Everything here is plain Python over `envscale.artifacts` (so `datasets.load_dataset`, local or Hub, at a pinned
version) and is tested without Gradio; `envscale.view.app` lays it out. Large artifacts stay on disk: a page is
a slice of an index of a few light columns read from the Arrow table (polars), and one row is read by its position
when it is opened.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..artifacts import Artifact, open_artifact
from ..env import Environment
from ..show.environment import describe_operation, signature
from ..show.tasks import render_task
from ..show.trajectory import render_trajectory

PAGE_SIZE = 50
"""Rows in one page of a list."""
CELL_CHARS = 200
"""Characters of one cell shown in a table (the rest is cut with an ellipsis)."""
VIEW_KINDS = ("environments", "tasks", "trajectories", "filtered", "eval")
"""The artifact kinds that have a view; the others (api_pool, graph) are listed and feed those views."""

INDEX_COLUMNS = {
    "environments": ["name", "domain_id", "kind", "n_tables", "n_tools", "n_write", "semantic_score"],
    "tasks": ["task_id", "environment", "kind", "split", "difficulty"],
    "trajectories": ["trajectory_id", "task_id", "environment", "kind", "split", "status", "n_calls"],
    "filtered": [
        "trajectory_id",
        "task_id",
        "environment",
        "kind",
        "split",
        "status",
        "passed",
        "failed_checks",
    ],
}
"""The columns a list shows (and filters on) per kind; the row's other columns are read when it is opened."""


@dataclass
class Catalog:
    """The artifacts one viewer shows, by name (a folder's child name, or the artifact's kind)."""

    artifacts: dict[str, Artifact] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)  # name -> why it could not be opened

    def of_kind(self, *kinds: str) -> dict[str, Artifact]:
        return {n: a for n, a in self.artifacts.items() if a.manifest["kind"] in kinds}

    def first(self, kind: str) -> Artifact | None:
        found = self.of_kind(kind)
        return found[sorted(found)[0]] if found else None

    def overview(self) -> list[list[Any]]:
        """One line per artifact: name, kind, version, rows per config, where it is."""
        lines = []
        for name, art in sorted(self.artifacts.items()):
            counts = ", ".join(f"{k} {v:,}" for k, v in art.manifest.get("counts", {}).items())
            lines.append([name, art.manifest["kind"], art.revision or art.version, counts, art.pinned])
        for name, why in sorted(self.problems.items()):
            lines.append([name, "(not opened)", "", why, ""])
        return lines


def discover(refs: str | Sequence[str]) -> Catalog:
    """The artifacts of `refs`: each an artifact (`PATH[@vN]`, `hf://org/name[@revision]`) or a folder of them
    (an `envscale run` output). A child folder that is not an artifact is skipped; one that is but cannot be
    opened is listed with the reason, never dropped."""
    refs = [refs] if isinstance(refs, str) else list(refs)
    if not refs:
        raise ValueError("envscale view: give an artifact or a folder of artifacts")
    catalog = Catalog()
    for ref in refs:
        path = Path(ref.split("@")[0]) if not ref.startswith("hf://") else None
        if path is not None and path.is_dir() and not (path / "envscale.json").is_file():
            children = sorted(p for p in path.iterdir() if (p / "envscale.json").is_file())
            if not children:
                raise ValueError(
                    f"{ref}: neither an artifact nor a folder of artifacts (no envscale.json in it)"
                )
            for child in children:
                try:
                    catalog.artifacts[child.name] = open_artifact(child)
                except Exception as exc:  # noqa: BLE001 - one broken artifact does not close the viewer
                    catalog.problems[child.name] = f"{type(exc).__name__}: {exc}"
            continue
        art = open_artifact(ref)
        name = art.manifest["kind"] if art.is_hub else Path(art.location).name
        catalog.artifacts[name if name not in catalog.artifacts else art.pinned] = art
    return catalog


# ----------------------------------------------------------------------------------------------- lists


def _cell(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float)):
        return value
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= CELL_CHARS else text[: CELL_CHARS - 1] + "…"


class Index:
    """The light columns of one config and split of an artifact, for lists and filters (polars, in memory:
    a few columns of a million rows is tens of MB); each row keeps its position (`row`) in the dataset."""

    def __init__(self, art: Artifact, config: str | None = None, split: str = "train"):
        import polars as pl

        self.art, self.config = art, config or art.kind.main_config
        splits = art.splits.get(self.config, {})
        self.split = split if split in splits else (sorted(splits)[0] if splits else split)
        self.dataset = art.load(self.config, self.split)
        names = self.dataset.column_names
        wanted = [c for c in INDEX_COLUMNS.get(art.manifest["kind"], names[:6]) if c in names]
        table = self.dataset.with_format("arrow")[:] if len(self.dataset) else None
        frame = pl.from_arrow(table.select(wanted)) if table is not None else pl.DataFrame()
        if "failed_checks" in frame.columns:  # a list: shown as text, filtered by membership
            frame = frame.with_columns(pl.col("failed_checks").list.join(", ").alias("failed_checks"))
        self.frame = frame.with_row_index("row") if len(frame.columns) else pl.DataFrame({"row": []})

    def values(self, column: str) -> list[str]:
        """The distinct values of a column, for a filter's choices ("" first: any)."""
        if column not in self.frame.columns:
            return [""]
        if column == "failed_checks":
            seen = {c for v in self.frame[column].to_list() if v for c in v.split(", ")}
        else:
            seen = {str(v) for v in self.frame[column].to_list() if v is not None}
        return ["", *sorted(seen)]

    def select(self, filters: Mapping[str, str] | None = None, search: str = "") -> Any:
        """The rows matching every non-empty filter (`failed_checks`: contains the check) and the search text
        (in the first column), as a polars frame."""
        import polars as pl

        frame = self.frame
        for column, value in (filters or {}).items():
            if not value or column not in frame.columns:
                continue
            if column == "failed_checks":
                frame = frame.filter(pl.col(column).str.contains(value, literal=True))
            elif column == "passed":
                frame = frame.filter(pl.col(column) == (str(value).lower() == "true"))
            else:
                frame = frame.filter(pl.col(column).cast(pl.String) == str(value))
        if search and len(frame.columns) > 1:
            first = frame.columns[1]
            frame = frame.filter(pl.col(first).cast(pl.String).str.contains(search, literal=True))
        return frame

    def page(self, frame: Any, page: int = 1) -> tuple[list[list[Any]], list[str], int, int]:
        """One page of `frame`: its rows (cells cut), headers, the page number (clamped) and the page count."""
        pages = max(1, -(-len(frame) // PAGE_SIZE))
        page = min(max(1, int(page or 1)), pages)
        part = frame.slice((page - 1) * PAGE_SIZE, PAGE_SIZE)
        rows = [[_cell(v) for v in r] for r in part.iter_rows()]
        return rows, list(part.columns), page, pages

    def row(self, position: int) -> dict:
        return self.dataset[int(position)]

    def position(self, column: str, value: str) -> int | None:
        """The position of the first row whose `column` is `value`."""
        import polars as pl

        if column not in self.frame.columns:
            return None
        hit = self.frame.filter(pl.col(column).cast(pl.String) == str(value))
        return int(hit["row"][0]) if len(hit) else None


# ----------------------------------------------------------------------------------------------- environments


def _spec(row: Mapping[str, Any]) -> dict:
    spec = row["spec"]
    return json.loads(spec) if isinstance(spec, str) else spec


def _json(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def environment_summary(row: Mapping[str, Any]) -> str:
    """The head of an environment as markdown: what it is, its size, verification and semantic scores."""
    spec = _spec(row)
    tools = spec.get("tools", [])
    writes = [t["name"] for t in tools if t.get("kind") == "write"]
    lines = [
        f"### {row.get('name')}",
        f"{spec.get('description') or ''}".strip(),
        "",
        f"- **domain** {row.get('domain_id')} ({row.get('domain_name') or '?'}), **kind** {row.get('kind') or '?'}",
        f"- **{row.get('n_tables')} tables**, {row.get('n_rows')} rows; **{len(tools)} tools** "
        f"({row.get('n_read')} read, {row.get('n_write')} write)",
        f"- **verified**: every tool was exercised on this state; {len(_json(row.get('dropped_tools')) or [])} "
        f"dropped, {len(_json(row.get('excluded_tools')) or [])} excluded (below)",
        f"- **semantic score** {row.get('semantic_score')}, read-only: {row.get('read_only')}, "
        f"written and read: {', '.join(row.get('written_and_read') or []) or 'none'}",
        f"- **state hash** `{(row.get('state_hash') or '')[:16]}`",
    ]
    if row.get("policy"):
        lines += ["", f"**Policy**: {row['policy']}"]
    left_out = [*(_json(row.get("dropped_tools")) or []), *(_json(row.get("excluded_tools")) or [])]
    if left_out:
        lines += ["", "**Tools left out**:"]
        lines += [
            f"- `{e.get('tool', e) if isinstance(e, dict) else e}`: {e.get('reason', '') if isinstance(e, dict) else ''}"
            for e in left_out[:30]
        ]
    if writes:
        lines += ["", f"Write tools: {', '.join(f'`{w}`' for w in writes)}"]
    return "\n".join(lines)


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
    return [[_cell(r.get(c)) for c in columns] for r in state.get(table, [])], columns


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


def example_arguments(
    tool: Mapping[str, Any], state: Mapping[str, list[dict]], spec: Mapping[str, Any]
) -> dict:
    """Arguments a person could try first: each required parameter filled from the state (the first row of the
    table the tool works on that has a column of that name), else its enum's first value, default or example."""
    params = tool.get("parameters", {})
    table = tool.get("operation", {}).get("table")
    rows = list(state.get(table, [])) if table else []
    if not rows:
        rows = [r[0] for r in state.values() if r]
    out: dict[str, Any] = {}
    for name in params.get("required", []):
        schema = params.get("properties", {}).get(name, {})
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


# ----------------------------------------------------------------------------------------------- tasks


def task_markdown(row: Mapping[str, Any]) -> str:
    """A task as its user and its judge see it: the instruction and facts, the requests, the scoring."""
    facts = _json(row.get("answer_facts")) or {}
    scoring = _json(row.get("scoring")) or {}
    lines = [
        f"### {row.get('task_id')}",
        f"environment `{row.get('environment')}` · kind **{row.get('kind')}** · split {row.get('split')}"
        f"{' (held-out environment)' if row.get('held_out') else ''} · difficulty {row.get('difficulty')}",
        "",
        f"**The user says first**: {row.get('first_message') or ''}",
        "",
    ]
    instructions = _json(row.get("instructions")) or {}
    if isinstance(instructions, dict):
        labels = {"persona": "Persona", "goal": "Goal", "done_when": "Done when"}
        lines += [f"**{label}**: {instructions[k]}" for k, label in labels.items() if instructions.get(k)]
        for k, label in (
            ("known_facts", "Facts the user knows"),
            ("hidden_facts", "Facts the user gives only when asked"),
        ):
            if instructions.get(k):
                lines += [f"**{label}**: " + "; ".join(f"{a}: `{b}`" for a, b in instructions[k].items())]
    elif instructions:
        lines += [f"**The user's instructions**: {instructions}"]
    requests = _json(row.get("requests")) or []
    if requests:
        lines += ["", "**Requests**:"] + [f"{i}. {_cell(r)}" for i, r in enumerate(requests, 1)]
    if facts:
        lines += ["", "**Answer facts** (what a right final answer states):"]
        lines += [
            f"- {k}: `{v}`" for k, v in (facts.items() if isinstance(facts, dict) else enumerate(facts))
        ]
    if scoring:
        lines += ["", "**Scoring**:", "```json", json.dumps(scoring, indent=2, ensure_ascii=False), "```"]
    if row.get("policy"):
        lines += ["", f"**Policy**: {_cell(row['policy'])}"]
    return "\n".join(lines)


def gold_calls(row: Mapping[str, Any]) -> tuple[list[list], list[str]]:
    """The gold calls with their results, one line each."""
    calls = _json(row.get("gold_calls")) or []
    results = _json(row.get("gold_results")) or []
    lines = []
    for i, call in enumerate(calls):
        result = results[i] if i < len(results) else None
        lines.append(
            [i + 1, call.get("name") or call.get("tool"), _cell(call.get("arguments")), _cell(result)]
        )
    return lines, ["#", "tool", "arguments", "result"]


def task_text(row: Mapping[str, Any]) -> str:
    return render_task(row)


# ----------------------------------------------------------------------------------------------- trajectories

CHECK_PREFIX = "check_"


def chat_messages(row: Mapping[str, Any]) -> list[dict]:
    """The episode as chat messages for a chat view: the user and the agent in turn, each tool call and each
    tool result as its own collapsible message titled with the tool (results marked when they are errors)."""
    out: list[dict] = []
    for m in _json(row.get("messages")) or []:
        role = m.get("role")
        content = m.get("content") or ""
        if not isinstance(content, str):
            content = json.dumps(content, ensure_ascii=False)
        if role == "system":
            out.append({"role": "assistant", "content": content, "metadata": {"title": "System prompt"}})
        elif role == "user":
            out.append({"role": "user", "content": content})
        elif role == "assistant":
            if content:
                out.append({"role": "assistant", "content": content})
            for call in m.get("tool_calls") or []:
                fn = call.get("function", call)
                args = fn.get("arguments")
                args = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
                out.append(
                    {
                        "role": "assistant",
                        "content": f"```json\n{args}\n```",
                        "metadata": {"title": f"calls {fn.get('name')}"},
                    }
                )
        elif role == "tool":
            parsed = _json(content)
            error = isinstance(parsed, dict) and (parsed.get("ok") is False or "error" in parsed)
            out.append(
                {
                    "role": "assistant",
                    "content": f"```json\n{content[:4000]}\n```",
                    "metadata": {
                        "title": f"{'ERROR from' if error else 'result of'} {m.get('name') or 'tool'}"
                    },
                }
            )
    return out


def checks_table(row: Mapping[str, Any]) -> tuple[list[list], list[str]]:
    """Each check of a filtered episode: passed, failed or not applied, and why it failed."""
    failed = set(row.get("failed_checks") or [])
    lines = []
    for key, value in row.items():
        if not key.startswith(CHECK_PREFIX):
            continue
        name = key[len(CHECK_PREFIX) :]
        verdict = "not applied" if value is None else ("passed" if value else "FAILED")
        lines.append([name, verdict, "listed in failed_checks" if name in failed else ""])
    return lines, ["check", "verdict", "note"]


def trajectory_head(row: Mapping[str, Any]) -> str:
    """What the episode was and how it ended, as markdown."""
    agent, user = row.get("agent") or {}, row.get("user") or {}
    verdict = ""
    if "passed" in row:
        verdict = (
            "**kept**: every check passed"
            if row.get("passed")
            else f"**rejected**: failed {', '.join(row.get('failed_checks') or []) or '?'}"
        )
    return "\n".join(
        [
            f"### {row.get('trajectory_id')}",
            f"task `{row.get('task_id')}` · trial {row.get('trial')} · environment `{row.get('environment')}` · "
            f"kind {row.get('kind')} · split {row.get('split')}",
            f"agent {agent.get('kind')} {agent.get('model') or ''} · user {user.get('kind')} "
            f"{user.get('model') or ''} ({row.get('user_style')})",
            f"status **{row.get('status')}**{' (' + row['failure_cause'] + ')' if row.get('failure_cause') else ''}"
            f" · {row.get('n_calls')} calls, {row.get('n_errors')} errors · {row.get('turns')} turns",
            verdict,
            "",
            f"**Final answer**: {row.get('final_answer') or '(none)'}",
        ]
    )


def trajectory_text(row: Mapping[str, Any]) -> str:
    return render_trajectory(row)


# ----------------------------------------------------------------------------------------------- eval


def eval_table(art: Artifact) -> tuple[list[list], list[str]]:
    """The side-by-side table: one line per agent over all items (the summary's `overall` group)."""
    rows = [r for r in art.load("summary") if r.get("group_by") in (None, "", "overall", "all")]
    if not rows:
        rows = list(art.load("summary"))
    headers = [
        "agent",
        "benchmark",
        "items",
        "success_rate",
        "validity",
        "right_tools",
        "right_calls",
        "pass_k",
    ]
    return [[_cell(r.get(h)) for h in headers] for r in rows], headers


def eval_plots(art: Artifact) -> list[str]:
    """The eval's plot files (local artifacts)."""
    if art.is_hub:
        return []
    for folder in (art.data_dir / "plots", Path(art.location) / "plots"):
        if folder.is_dir():
            return [str(p) for p in sorted(folder.glob("*.png"))]
    return []


def eval_report(art: Artifact) -> str:
    """The eval's report (markdown): the table per group and its reproducibility bundle."""
    if not art.is_hub:
        path = art.data_dir / "report.md"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return "(no report.md in this version)"
