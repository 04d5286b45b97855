"""The Eval view's content: the side-by-side table, the episodes' results, the plots and the report."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..artifacts import Artifact

# ----------------------------------------------------------------------------------------------- eval


def _number(value: Any, missing: str = "") -> Any:
    """A rate or score to 3 decimals; `missing` for none."""
    if value is None:
        return missing
    if isinstance(value, float):
        return f"{value:.3f}"
    return value


def eval_table(art: Artifact) -> tuple[list[list], list[str]]:
    """The side-by-side table: one line per agent over all items (the summary's `overall` group), rates to
    3 decimals, "n/a" for a validity that has no calls to rate."""
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
    return [
        [_number(r.get(h), "n/a" if h == "validity" else "") if h != "items" else r.get(h) for h in headers]
        for r in rows
    ], headers


EVAL_RESULT_COLUMNS = [
    "agent",
    "id",
    "kind",
    "success",
    "failed_checks",
    "right_tools",
    "right_calls",
    "n_calls",
]
"""The columns of the eval's per-episode table (its `results` config)."""


def eval_agents(art: Artifact) -> list[str]:
    """The agents of an eval ("" first: any)."""
    return ["", *sorted({str(a) for a in art.load("results")["agent"]})]


def eval_results(art: Artifact, agent: str = "") -> tuple[list[list], list[str]]:
    """One line per episode of the eval (its `results` config), of one agent or all: did it succeed, which
    checks failed, how many of the right tools and calls it made."""
    lines = []
    for r in art.load("results"):
        if agent and str(r.get("agent")) != agent:
            continue
        line = []
        for h in EVAL_RESULT_COLUMNS:
            value = r.get(h)
            if h == "failed_checks":
                value = ", ".join(value or [])
            line.append(_number(value))
        lines.append(line)
    return lines, list(EVAL_RESULT_COLUMNS)


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
        if path.is_file():  # its pictures are local files the page cannot load: the gallery shows them
            text = path.read_text(encoding="utf-8")
            return re.sub(r"!\[([^\]]*)\]\((?!https?:)[^)]*\)", r"(plot \1: in the gallery above)", text)
    return "(no report.md in this version)"
