"""Metrics of an evaluation: success, pass^k, tool-call validity, per group, and the before/after table.

- **success**: one episode (or BFCL question) reached its task's scoring basis: for a task, every check
  of `levels` holds (`envscale.judge`, as `filter` applies them); for BFCL, the AST checker's
  verdict.
- **pass^k** (tau-bench): the probability that *all* of k independent trials of a task succeed,
  estimated without bias from n >= k trials with c successes as C(c, k) / C(n, k), averaged over tasks.
  pass^1 is the mean success rate; pass^k falls with k unless the agent is consistent.
- **validity**: the share of tool calls that were well formed, named an offered tool, and had
  schema-valid arguments (None when no call was made).
- **right tool** / **right call** (tasks): partial credit as a person reading the calls would give it, the mean
  over episodes of how well the tools the agent called fit the gold calls' tools (Jaccard), and of the gold calls that a
  successful call matched on tool and key arguments (`envscale.judge.gold_call_recall`).

Rows of `results` (one per episode) are summarised per agent and per group (`overall`, `split_kind`:
held-out tasks of training environments vs held-out environments, `kind`, `difficulty`, `environment`,
or the BFCL `category`) into rows of `summary`.

Example:

```python
>>> from envscale.evaluation.metrics import pass_hat_k
>>> pass_hat_k(n=4, c=2, k=2)      # C(2,2) / C(4,2)
0.16666666666666666
```
"""

from __future__ import annotations

from collections import defaultdict
from math import comb
from typing import Any

#: The groupings of a `summary` (besides `overall`), for each benchmark.
GROUP_BY = {
    "tasks": ("split_kind", "kind", "difficulty", "environment"),
    "bfcl": ("kind",),
}
#: What each `split_kind` of a held-out task means.
SPLIT_KINDS = {
    "heldout_tasks": "test tasks of environments that also have training tasks",
    "heldout_envs": "tasks of environments held out whole (no training task from them)",
}


def pass_hat_k(n: int, c: int, k: int) -> float:
    """tau-bench's pass^k of one task: the chance that k trials drawn from its n (c successes) all succeed."""
    if not 1 <= k <= n:
        raise ValueError(f"pass^k needs 1 <= k <= n, got k={k}, n={n}")
    if not 0 <= c <= n:
        raise ValueError(f"pass^k needs 0 <= c <= n, got c={c}, n={n}")
    return comb(c, k) / comb(n, k)


def _rate(num: float, den: float) -> float | None:
    return round(num / den, 4) if den else None


def summarize(rows: list[dict], group_by: str | None = None) -> dict[str, dict[str, Any]]:
    """Metrics of `rows` (one agent's `results` rows), per value of `group_by` (None: one group `all`).

    Returns `{group: {"episodes", "items", "successes", "success_rate", "k", "pass_hat", "pass_k", "calls",
    "valid_calls", "validity", "right_tools", "right_calls"}}`; `pass_hat` maps k (1..the fewest trials of an item) to pass^k.
    """
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        groups["all" if group_by is None else str(row.get(group_by))].append(row)
    out = {}
    for name in sorted(groups):
        members = groups[name]
        per_item: dict[str, list[bool]] = defaultdict(list)
        for row in members:
            per_item[row["id"]].append(bool(row["success"]))
        k_max = min(len(v) for v in per_item.values())
        pass_hat = {
            str(k): round(sum(pass_hat_k(len(v), sum(v), k) for v in per_item.values()) / len(per_item), 4)
            for k in range(1, k_max + 1)
        }
        successes = sum(bool(r["success"]) for r in members)
        calls = sum(r.get("n_calls") or 0 for r in members)
        valid = sum(r.get("n_valid_calls") or 0 for r in members)
        partial = {
            field: [r[field] for r in members if r.get(field) is not None]
            for field in ("right_tools", "right_calls")
        }
        out[name] = {
            "episodes": len(members),
            "items": len(per_item),
            "successes": successes,
            "success_rate": _rate(successes, len(members)),
            "k": k_max,
            "pass_hat": pass_hat,
            "pass_k": pass_hat[str(k_max)],
            "calls": calls,
            "valid_calls": valid,
            "validity": _rate(valid, calls),
            **{field: _rate(sum(v), len(v)) for field, v in partial.items()},
        }
    return out


def summary_rows(rows: list[dict]) -> list[dict]:
    """The `summary` rows of every agent and benchmark in `rows`: overall and per grouping of `GROUP_BY`."""
    by_agent: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in rows:
        by_agent[(row["agent"], row["benchmark"])].append(row)
    out = []
    for (agent, benchmark), members in by_agent.items():
        for group_by in (None, *GROUP_BY[benchmark]):
            for group, metrics in summarize(members, group_by).items():
                out.append(
                    {
                        "agent": agent,
                        "benchmark": benchmark,
                        "group_by": group_by or "overall",
                        "group": group,
                    }
                    | metrics
                )
    return out


def lookup(summary: list[dict], agent: str, benchmark: str, group_by: str = "overall", group: str = "all"):
    """The summary row of one agent and group, or None."""
    return next(
        (
            s
            for s in summary
            if s["agent"] == agent
            and s["benchmark"] == benchmark
            and s["group_by"] == group_by
            and s["group"] == group
        ),
        None,
    )


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _diff(new: float | None, old: float | None) -> str:
    if new is None or old is None:
        return "n/a"
    return f"{new - old:+.3f}"


def comparison(summary: list[dict], agents: list[str], benchmark: str) -> list[list[str]]:
    """The side-by-side table of `agents` on one benchmark: header row, then one row per metric.

    Metrics: overall success, pass^k, validity, then success per split kind and per task kind. With
    two or more agents, a last column is the difference of the last agent from the first (`after - before`).
    """
    header = ["metric", *agents] + ([f"{agents[-1]} - {agents[0]}"] if len(agents) > 1 else [])
    metrics: list[tuple[str, str, str, str]] = []  # (label, group_by, group, field)
    overall = [lookup(summary, a, benchmark) for a in agents]
    k = min((s["k"] for s in overall if s), default=1)
    metrics.append(("success", "overall", "all", "success_rate"))
    if k > 1:
        metrics.append((f"pass^{k}", "overall", "all", f"pass_hat.{k}"))
    metrics.append(("tool-call validity", "overall", "all", "validity"))
    if benchmark == "tasks":
        metrics.append(("right tools (Jaccard with the gold tools)", "overall", "all", "right_tools"))
        metrics.append(("right call (tool + key arguments)", "overall", "all", "right_calls"))
    for group_by in GROUP_BY[benchmark]:
        if group_by in ("environment", "difficulty"):
            continue
        groups = sorted(
            {s["group"] for s in summary if s["benchmark"] == benchmark and s["group_by"] == group_by}
        )
        metrics += [(f"success: {g}", group_by, g, "success_rate") for g in groups]
    if benchmark == "tasks":
        groups = sorted(
            {s["group"] for s in summary if s["benchmark"] == benchmark and s["group_by"] == "difficulty"}
        )
        metrics += [(f"success: {g}", "difficulty", g, "success_rate") for g in groups]
    table = [header]
    for label, group_by, group, field in metrics:
        values = []
        for agent in agents:
            row = lookup(summary, agent, benchmark, group_by, group)
            if row is None:
                values.append(None)
            elif field.startswith("pass_hat."):
                values.append(row["pass_hat"].get(field.split(".", 1)[1]))
            else:
                values.append(row[field])
        line = [label, *(_fmt(v) for v in values)]
        if len(agents) > 1:
            line.append(_diff(values[-1], values[0]))
        table.append(line)
    return table


def markdown_table(table: list[list[str]]) -> str:
    """A table (header row first) as GitHub markdown."""
    head, *body = table
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(lines)
