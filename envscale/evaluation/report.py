"""The human side of an `eval` artifact: `report.md` and PNG plots next to its data.

`write_report(folder, summary, meta)` writes `folder/report.md` (the before/after table first, then each
agent's metrics per split kind, task kind, difficulty and environment) and `folder/plots/*.png`:
`compare.png` (success, pass^k and validity per agent, side by side) and `per_<group>.png` (success per
environment or BFCL category, one bar per agent). Plots need matplotlib (the `graph` extra); without it
the report says so and has none.

Example:

```python
>>> from envscale.evaluation.report import write_report
>>> write_report(Path("outputs/eval"), summary_rows, {"benchmark": "tasks", "agents": {...}})
```
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from .metrics import SPLIT_KINDS, comparison, lookup, markdown_table

logger = logging.getLogger(__name__)

#: Most environments listed (lowest success first) and drawn per agent.
MAX_ENVIRONMENTS = 30


def comparison_text(summary: list[dict], agents: list[str], benchmark: str) -> str:
    """The side-by-side table as markdown (what `envscale eval` prints when it is done)."""
    return markdown_table(comparison(summary, agents, benchmark))


def _group_table(
    summary: list[dict], agent: str, benchmark: str, group_by: str, limit: int | None = None
) -> str:
    rows = [
        s
        for s in summary
        if s["agent"] == agent and s["benchmark"] == benchmark and s["group_by"] == group_by
    ]
    if not rows:
        return ""
    rows.sort(
        key=lambda s: (s["success_rate"] or 0.0, s["group"]) if group_by == "environment" else s["group"]
    )
    shown = rows[:limit] if limit else rows
    table = [[group_by, "items", "episodes", "success", f"pass^{rows[0]['k']}", "validity"]]
    for s in shown:
        table.append(
            [
                f"`{s['group']}`",
                str(s["items"]),
                str(s["episodes"]),
                f"{s['success_rate']:.3f}",
                f"{s['pass_k']:.3f}",
                "n/a" if s["validity"] is None else f"{s['validity']:.3f}",
            ]
        )
    more = f"\n\n({len(rows) - len(shown)} more in the `summary` config.)" if len(shown) < len(rows) else ""
    return markdown_table(table) + more


def render_report(summary: list[dict], meta: dict[str, Any], plots: list[str]) -> str:
    """The text of `report.md`."""
    benchmark, agents = meta["benchmark"], list(meta["agents"])
    lines = [f"# envscale eval: {meta.get('title') or benchmark}", ""]
    if benchmark == "tasks":
        lines += [
            f"Agents on the `test` split of `{meta.get('input')}` with the {meta.get('user')} user simulator, "
            f"{meta.get('trials')} trial(s) per task; an episode succeeds when every check of "
            f"{', '.join(f'`{c}`' for c in meta.get('levels') or [])} holds (the filter's checks, a check the "
            "task is not scored on holds).",
            "",
            *(f"- `{k}`: {v}" for k, v in SPLIT_KINDS.items()),
            "",
        ]
    else:
        lines += [
            f"BFCL ({meta.get('requirement')}) categories {', '.join(meta.get('categories') or [])}, scored by "
            "BFCL's own AST checker; "
            f"{meta.get('trials')} trial(s) per question.",
            "",
        ]
    lines += ["## Agents", ""]
    for name, backend in meta["agents"].items():
        keys = (
            ("kind", "noise")
            if backend.get("kind") == "scripted"
            else ("kind", "model", "revision", "temperature", "max_tokens")
        )
        desc = ", ".join(f"{k}={backend[k]}" for k in keys if backend.get(k) not in (None, {}))
        lines.append(f"- **{name}**: {desc}")
    lines += [
        "",
        "## Side by side" if len(agents) > 1 else "## Overall",
        "",
        comparison_text(summary, agents, benchmark),
        "",
    ]
    if len(agents) > 1:
        lines += [f"The last column is `{agents[-1]}` minus `{agents[0]}`.", ""]
    for plot in plots:
        lines += [f"![{plot}](plots/{plot})", ""]
    groupings = ("split_kind", "kind", "difficulty", "environment") if benchmark == "tasks" else ("kind",)
    for agent in agents:
        overall = lookup(summary, agent, benchmark)
        if overall is None:
            continue
        ks = ", ".join(f"pass^{k} {v:.3f}" for k, v in overall["pass_hat"].items())
        lines += [
            f"## {agent}",
            "",
            f"{overall['episodes']} episodes on {overall['items']} items: success {overall['success_rate']:.3f}; "
            f"{ks}; {overall['calls']} tool calls, validity "
            f"{'n/a' if overall['validity'] is None else format(overall['validity'], '.3f')}.",
            "",
        ]
        for group_by in groupings:
            table = _group_table(
                summary, agent, benchmark, group_by, MAX_ENVIRONMENTS if group_by == "environment" else None
            )
            if table:
                title = "environment (lowest success first)" if group_by == "environment" else group_by
                lines += [f"### Per {title}", "", table, ""]
    if not plots:
        lines += ["(No plots: matplotlib is not installed; `pip install envscale[graph]`.)", ""]
    if "bundle" in meta:
        from .bundle import render_bundle

        lines.append(render_bundle(meta["bundle"]))
    return "\n".join(lines)


def draw_plots(folder: Path, summary: list[dict], meta: dict[str, Any]) -> list[str]:
    """Write the PNG plots into `folder/plots`; their file names (none without matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        logger.warning("matplotlib is not installed: the eval report has no plots")
        return []
    benchmark, agents = meta["benchmark"], list(meta["agents"])
    out = folder / "plots"
    out.mkdir(parents=True, exist_ok=True)
    names = []

    def bars(ax, labels: list[str], values: dict[str, list[float]]) -> None:
        width = 0.8 / max(1, len(values))
        for i, (agent, vals) in enumerate(values.items()):
            xs = [x + (i - (len(values) - 1) / 2) * width for x in range(len(labels))]
            ax.bar(xs, vals, width, label=agent)
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(
            labels,
            rotation=30 if len(labels) > 4 else 0,
            ha="right" if len(labels) > 4 else "center",
            fontsize=8,
        )
        ax.set_ylim(0, 1.05)
        ax.legend(fontsize=8)

    # before/after: overall metrics and success per kind, one bar per agent
    kinds = sorted({s["group"] for s in summary if s["benchmark"] == benchmark and s["group_by"] == "kind"})
    labels = ["success", "pass^k", "validity", *kinds]
    values = {}
    for agent in agents:
        o = lookup(summary, agent, benchmark) or {}
        per = [(lookup(summary, agent, benchmark, "kind", k) or {}).get("success_rate") or 0.0 for k in kinds]
        values[agent] = [o.get("success_rate") or 0.0, o.get("pass_k") or 0.0, o.get("validity") or 0.0, *per]
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(labels) * max(1, len(agents)) / 1.5), 4))
    bars(ax, labels, values)
    ax.set_title(f"{benchmark}: {' vs '.join(agents)}")
    fig.tight_layout()
    fig.savefig(out / "compare.png", dpi=100)
    plt.close(fig)
    names.append("compare.png")

    group_by = "environment" if benchmark == "tasks" else "kind"
    groups = [
        s
        for s in summary
        if s["benchmark"] == benchmark and s["group_by"] == group_by and s["agent"] == agents[0]
    ]
    groups.sort(key=lambda s: (s["success_rate"] or 0.0, s["group"]))
    labels = [s["group"] for s in groups[:MAX_ENVIRONMENTS]]
    if labels:
        values = {
            agent: [
                (lookup(summary, agent, benchmark, group_by, g) or {}).get("success_rate") or 0.0
                for g in labels
            ]
            for agent in agents
        }
        fig, ax = plt.subplots(figsize=(max(6, 0.35 * len(labels) * max(1, len(agents))), 4.5))
        bars(ax, [label[:28] for label in labels], values)
        ax.set_ylabel("success")
        ax.set_title(
            f"success per {group_by}" + (f" (lowest {len(labels)})" if len(groups) > len(labels) else "")
        )
        fig.tight_layout()
        fig.savefig(out / f"per_{group_by}.png", dpi=100)
        plt.close(fig)
        names.append(f"per_{group_by}.png")
    return names


def write_report(folder: Path, summary: list[dict], meta: dict[str, Any]) -> Path:
    """Write `report.md` and the plots into `folder`; the report's path."""
    folder.mkdir(parents=True, exist_ok=True)
    plots = draw_plots(folder, summary, meta)
    path = folder / "report.md"
    path.write_text(render_report(summary, meta, plots), encoding="utf-8")
    return path
