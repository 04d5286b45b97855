"""Is a scale run as good as the quickstart? Issue 20's quality figures of two runs side by side.

    python bench/scale_quality.py --reference /tmp/qs --run /tmp/scale/full [--json out.json]

Issue 20 accepts a scale run when "the same quality figures as the quickstart" hold "within 10%": calls per
task, foreign keys to key-only tables, near-duplicates and the filler share. This script computes the four on
both runs with the definitions of `bench/task_shape.py` (tasks, foreign keys, near-duplicates) and
`bench/env_quality.py` (filler), prints them side by side with the relative difference, and says for each
whether the run is within the tolerance (`--tolerance`, default 0.10):

- **calls per task** (mean `len(gold_calls)` over the tasks of worlds; function sets are not posed as
  journeys): more is deeper, so the run passes when it is at least `1 - tolerance` of the reference.
- **foreign keys to key-only tables** (share of declared foreign keys whose table holds only keys),
  **near-duplicate tools** (share of tools with the same effect as another tool of their environment,
  `same_effect` in `task_shape`), **filler share** of string cells (pooled over worlds, and the median world):
  less is better, so the run passes when it is at most `1 + tolerance` times the reference. A figure whose
  reference is 0 passes only at 0.

Each run folder holds `environments/` and `tasks/` as `envscale run` writes them. The exit status is 0 when
every figure is within the tolerance and 1 otherwise, so a scale run can be gated on it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))

import env_quality  # noqa: E402
import task_shape  # noqa: E402

HIGHER_IS_BETTER = {"calls per task (mean, worlds)"}


def run_figures(run: Path) -> dict[str, Any]:
    """The four figures (and their counts) of one run folder."""
    envs = task_shape.load_rows(run / "environments", "environments")
    tasks = task_shape.load_rows(run / "tasks", "tasks")
    frames = task_shape.environment_frames(envs)
    kinds = {e["name"]: e.get("kind") for e in envs}
    worlds = {e["name"] for e in envs if not task_shape.is_function_set(e["spec"], kinds[e["name"]])}
    world_tasks = [t for t in tasks if t["environment"] in worlds]
    calls = [len(t.get("gold_calls") or []) for t in world_tasks]

    figs = task_shape.environment_figures(envs, frames)  # the definitions `bench/task_shape.py` prints
    fks, near = figs["foreign_keys"], figs["near_duplicates"]
    world_tools = frames["tools"].filter(pl.col("environment").is_in(list(worlds)))
    near_worlds = world_tools.filter(pl.col("same_effect")).height

    filler = env_quality.filler([e["spec"] for e in envs if e["name"] in worlds]) or {}
    return {
        "run": str(run),
        "environments": len(envs),
        "worlds": len(worlds),
        "function_sets": len(envs) - len(worlds),
        "tasks": len(tasks),
        "world_tasks": len(world_tasks),
        "figures": {
            "calls per task (mean, worlds)": {
                "value": statistics.fmean(calls) if calls else 0.0,
                "count": f"{sum(calls)} calls / {len(calls)} tasks",
            },
            "foreign keys to key-only tables": {
                "value": fks["to_key_only"] / fks["foreign_keys"] if fks["foreign_keys"] else 0.0,
                "count": f"{fks['to_key_only']} / {fks['foreign_keys']}",
            },
            "near-duplicate tools": {
                "value": near["same_effect"] / near["tools"] if near["tools"] else 0.0,
                "count": f"{near['same_effect']} / {near['tools']} (worlds {near_worlds} / {world_tools.height})",
            },
            "filler share, pooled (worlds)": {
                "value": filler.get("pooled", 0.0),
                "count": f"{filler.get('environments', 0)} worlds",
            },
            "filler share, median world": {
                "value": filler.get("median", 0.0),
                "count": f"{filler.get('environments', 0)} worlds",
            },
        },
    }


def compare(reference: dict[str, Any], run: dict[str, Any], tolerance: float) -> list[dict[str, Any]]:
    """One row per figure: both values, the ratio run/reference and whether the run is within tolerance."""
    rows = []
    for name, ref in reference["figures"].items():
        mine = run["figures"][name]
        r, v = ref["value"], mine["value"]
        ratio = v / r if r else (1.0 if v == 0 else float("inf"))
        # a hair of slack so that a figure exactly at the bound passes whatever the float rounding
        ok = ratio >= 1 - tolerance - 1e-9 if name in HIGHER_IS_BETTER else ratio <= 1 + tolerance + 1e-9
        rows.append(
            {
                "figure": name,
                "reference": r,
                "reference_count": ref["count"],
                "run": v,
                "run_count": mine["count"],
                "ratio": ratio,
                "within": ok,
            }
        )
    return rows


def render(
    reference: dict[str, Any], run: dict[str, Any], rows: list[dict[str, Any]], tolerance: float
) -> str:
    def fmt(name: str, value: float) -> str:
        return f"{value:.2f}" if name in HIGHER_IS_BETTER else f"{100 * value:.2f}%"

    lines = [
        f"reference {reference['run']}: {reference['worlds']} worlds, {reference['function_sets']} function sets, "
        f"{reference['tasks']} tasks ({reference['world_tasks']} in worlds)",
        f"run       {run['run']}: {run['worlds']} worlds, {run['function_sets']} function sets, "
        f"{run['tasks']} tasks ({run['world_tasks']} in worlds)",
        "",
        f"| figure | reference | run | run / reference | within {100 * tolerance:.0f}%? |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['figure']} | {fmt(row['figure'], row['reference'])} ({row['reference_count']}) "
            f"| {fmt(row['figure'], row['run'])} ({row['run_count']}) | {row['ratio']:.2f} "
            f"| {'yes' if row['within'] else '**no**'} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reference", required=True, help="the quickstart's run folder")
    parser.add_argument("--run", required=True, help="the scale run's folder (bench/scale.py: OUT/full)")
    parser.add_argument("--tolerance", type=float, default=0.10, help="relative tolerance (default 0.10)")
    parser.add_argument("--json", default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    for folder in (args.reference, args.run):
        for part in ("environments", "tasks"):
            if not (Path(folder) / part).exists():
                parser.error(f"{folder} has no {part}/ (a run folder of `envscale run` is expected)")
    reference, run = run_figures(Path(args.reference)), run_figures(Path(args.run))
    rows = compare(reference, run, args.tolerance)
    print(render(reference, run, rows, args.tolerance))
    if args.json:
        Path(args.json).write_text(json.dumps({"reference": reference, "run": run, "rows": rows}, indent=2))
    return 0 if all(r["within"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
