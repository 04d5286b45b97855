"""`envscale show KIND REF`: read or draw one part of an artifact.

The renderers live together here, the top layer below `envscale.cli` (they may import any other
package; none imports them). This module is the dispatcher over kinds:

- `graph`: one domain of a `graph` artifact drawn to a PNG (`envscale.graph.draw`);
- `environment`: one environment of an `environments` artifact as text (`envscale.show.environment`);
- `tasks`: one task of a `tasks` artifact as text (`envscale.show.tasks`);
- `trajectory`: one episode of a `trajectories` or `filtered` artifact as text
  (`envscale.show.trajectory`);
- `eval`: the report of an `eval` artifact, its before/after table first, its reproducibility bundle last
  (`envscale.evaluation.report`, `envscale.evaluation.bundle`).

A kind's own options are refused with the others (`--png` is for `graph` only), so a mistyped
command fails instead of silently ignoring a flag. A new kind adds its entry to `KINDS`, its
options to `make_parser`, and its branch to `main`.

Example:

```bash
envscale show graph outputs/quickstart/graph --domain 3 --png pictures/shop
envscale show environment outputs/quickstart/environments                    # most write tools
envscale show environment outputs/quickstart/environments --env domain_3_orders --rows 5
envscale show tasks outputs/quickstart/tasks --split test                       # the first test task
envscale show tasks outputs/quickstart/tasks --task domain_3_orders-0002-1f0e9a3c
envscale show trajectory outputs/quickstart/filtered --config rejected         # the first rejected one
envscale show eval outputs/quickstart/eval                                     # the report, table first
```
"""

from __future__ import annotations

import argparse

from ..config import command_parser

KINDS = {
    "graph": "a domain of a graph artifact, drawn to a PNG",
    "environment": "an environment of an environments artifact, as text",
    "tasks": "a task of a tasks artifact, as a person reads it",
    "trajectory": "an episode of a trajectories or filtered artifact, as a conversation",
    "eval": "the report of an eval artifact: the side-by-side table, metrics per group",
}
"""What `envscale show` reads or draws."""

OPTIONS = {
    "graph": ("png",),
    "environment": ("env", "rows"),
    "tasks": ("task", "split"),
    "trajectory": ("id", "config"),
    "eval": (),
}
"""The options only one kind takes (`--domain` is shared)."""


def make_parser(subparsers=None) -> argparse.ArgumentParser:
    """`envscale show {graph,environment,tasks} REF [options]`."""
    parser = command_parser(
        subparsers,
        "show",
        help="read or draw an artifact (a graph domain as a PNG, an environment, a task or an eval report as text)",
        description="Read or draw one part of an artifact:\n"
        + "\n".join(f"  {kind:<12} {text}" for kind, text in KINDS.items()),
    )
    parser.add_argument("what", choices=list(KINDS), help="what to show")
    parser.add_argument("ref", help="the artifact: PATH[@vN] or hf://org/name[@revision]")
    parser.add_argument(
        "--domain",
        type=int,
        help="graph: the domain to draw (default: the largest); environment: the environment of this "
        "domain (default: the one with the most write tools); tasks: the first task of this domain",
    )
    graph = parser.add_argument_group("graph")
    graph.add_argument(
        "--png",
        help="output file; .png is added when missing, folders are created; a folder gets "
        "domain-<id>.png inside (default: <artifact>/domain-<id>.png)",
    )
    env = parser.add_argument_group("environment")
    env.add_argument("--env", metavar="NAME", help="the environment's name (an unknown one lists names)")
    env.add_argument(
        "--rows", type=int, metavar="N", help="rows of each table's initial state shown (default: 3)"
    )
    tasks = parser.add_argument_group("tasks")
    tasks.add_argument("--task", metavar="ID", help="the task's id (default: the first task of the split)")
    tasks.add_argument(
        "--split", help="the split to read: train or test (default: train; with --task, every split)"
    )
    trajectory = parser.add_argument_group("trajectory")
    trajectory.add_argument(
        "--id", metavar="ID", help="the trajectory's id, <task_id>#<trial> (default: the first)"
    )
    trajectory.add_argument(
        "--config", help="filtered: read `rejected` instead of `filtered` (default: the main config)"
    )
    parser.set_defaults(func=main)
    return parser


def main(args: argparse.Namespace) -> int:
    """Run `envscale show`: check the options fit the kind, then hand over to the kind's `main`."""
    wrong = [
        f"--{name}"
        for kind, names in OPTIONS.items()
        if kind != args.what
        for name in names
        if getattr(args, name, None) is not None
    ]
    if wrong:
        raise ValueError(f"{', '.join(wrong)} is not an option of `envscale show {args.what}`")
    if args.what == "graph":
        from ..graph import draw

        return draw.main(args)
    if args.what == "trajectory":
        from . import trajectory

        return trajectory.main(args)
    if args.what == "tasks":
        from . import tasks

        return tasks.main(args)
    if args.what == "eval":
        if args.domain is not None:
            raise ValueError("--domain is not an option of `envscale show eval`")
        return show_eval(args.ref)
    from . import environment

    return environment.main(args)


def show_eval(ref: str) -> int:
    """Print the report of an `eval` artifact (rendered again from its `summary` if the file is missing), with its
    "Reproducibility" section (the bundle of `stats.bundle`)."""
    from ..artifacts import open_artifact

    art = open_artifact(ref, expect_kind="eval")
    path = None if art.is_hub else art.data_dir / "report.md"
    if path is not None and path.is_file():
        text = path.read_text(encoding="utf-8")
    else:
        from ..evaluation.report import render_report

        stats = art.manifest.get("stats", {})
        meta = {
            "benchmark": stats.get("benchmark"),
            "agents": stats.get("agent_backends") or {},
            "input": stats.get("tasks_ref"),
            "trials": art.manifest.get("config", {}).get("trials"),
            "levels": art.manifest.get("config", {}).get("levels"),
            "categories": (stats.get("bfcl") or {}).get("categories"),
            "requirement": (stats.get("bfcl") or {}).get("requirement"),
            "bundle": stats.get("bundle"),
        }
        summary = list(art.load("summary"))
        text = render_report(summary, meta, [])
    if "## Reproducibility" not in text:  # a report.md written before the bundle was part of it
        from ..evaluation.bundle import render_bundle

        text = text.rstrip() + "\n\n" + render_bundle(art.manifest.get("stats", {}).get("bundle"))
    print(f"{art.pinned}\n")
    print(text)
    return 0
