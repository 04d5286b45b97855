"""Can the score be gamed? Adversarial agents through the real `eval`, `rollout` and `filter`, pass rates per kind.

Every agent of `envscale.rollout.adversaries` (`nothing`, `echo`, `system`, `no`, `guess`, `dump`,
`everything`) and the gold agent (the noise-free scripted agent, `gold`) plays:

- the **test split** of the run's tasks through `envscale.evaluation.run.evaluate` (what `envscale eval`
  runs: the rollout stage with the scripted user, then every episode judged as `filter` judges it), one
  `eval` artifact with every agent; the table gives each agent's passes per task kind (`read`, `write`,
  `mixed`, `policy`, `missing_info`, `conversation`, ...) and overall;
- a seeded sample of the **train split** (`--train-tasks`) through `envscale.rollout.run.rollout` then
  `envscale.judge.filter.filter_trajectories` (what `envscale rollout` and `envscale filter` run): the
  `kept` column is how many of the agent's episodes `filter` keeps as SFT data.

A score that cannot be gamed holds every adversary at (about) 0 and the gold agent at 100%, and `filter`
keeps none of the adversaries' episodes. Outputs go under `--output` (the eval artifact, each agent's
rollout and filtered artifacts); a second run reuses the complete rollouts of the same config.

Usage:

```bash
python bench/hack.py --run /tmp/fp/s6                        # RUN/tasks: the test split and its environments
python bench/hack.py --tasks outputs/quickstart/tasks --agents dump,gold --max-tasks 100 --train-tasks 50
python bench/hack.py --run /tmp/fp/s6 --json /tmp/hack.json  # every figure as JSON too
```
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from envscale.artifacts import Artifact, is_complete, open_artifact
from envscale.rollout.adversaries import ADVERSARIES

#: The gold agent's name and backend: the scripted agent without noise (must pass every task).
GOLD = "gold"
GOLD_BACKEND = {"kind": "scripted"}


def agent_backends(names: list[str]) -> dict[str, dict]:
    """The backend of each agent name: an adversary's policy, or the gold scripted agent."""
    out = {}
    for name in names:
        if name == GOLD:
            out[name] = dict(GOLD_BACKEND)
        elif name in ADVERSARIES:
            out[name] = {"kind": "adversary", "model": name}
        else:
            raise ValueError(f"unknown agent {name!r}; agents: {', '.join([*ADVERSARIES, GOLD])}")
    return out


def eval_agents(
    tasks: Artifact, agents: dict[str, dict], output: Path, *, max_tasks: int | None, concurrency: int
) -> dict[str, dict[str, Counter]]:
    """Every agent on the test split through `evaluate`: `{agent: {kind: Counter(episodes, passed)}}`."""
    from datasets import load_dataset

    from envscale.evaluation.run import EvalConfig, evaluate

    config = EvalConfig(agents=agents, max_tasks=max_tasks, concurrency=concurrency)
    art = evaluate(tasks, config, output)
    results = load_dataset(art.location, "results", split="train")
    table: dict[str, dict[str, Counter]] = {name: {} for name in agents}
    for row in results:
        for kind in (row["kind"], "overall"):
            table[row["agent"]].setdefault(kind, Counter()).update(episodes=1, passed=int(row["success"]))
    return table


def filter_agent(
    tasks: Artifact, name: str, backend: dict, output: Path, *, max_tasks: int | None, concurrency: int
) -> dict[str, int]:
    """The agent on the train sample (`rollout`) then `filter`: `{"episodes", "kept"}`."""
    from envscale.judge.filter import FilterConfig, filter_trajectories
    from envscale.rollout.run import RolloutConfig, rollout

    rc = RolloutConfig(agent=backend, splits=["train"], max_tasks=max_tasks, concurrency=concurrency)
    folder = output / "rollouts" / name
    traj = is_complete(folder, rc.fingerprint(tasks.content_key)) or rollout(tasks, rc, folder)
    filtered = filter_trajectories(traj, FilterConfig(), output / "filtered" / name)
    counts = filtered.manifest.get("counts") or {}
    kept = counts.get("filtered", 0)
    return {"episodes": kept + counts.get("rejected", 0), "kept": kept}


def run(
    tasks: Artifact,
    output: Path,
    names: list[str],
    *,
    max_tasks: int | None = None,
    train_tasks: int | None = 200,
    concurrency: int = 8,
) -> dict[str, Any]:
    """Every figure: `{"agents": {name: {"kinds": {kind: {episodes, passed, rate}}, "filter": {...}}}}`."""
    agents = agent_backends(names)
    table = eval_agents(tasks, agents, output / "eval", max_tasks=max_tasks, concurrency=concurrency)
    figures: dict[str, Any] = {"tasks": tasks.pinned, "max_tasks": max_tasks, "train_tasks": train_tasks}
    figures["agents"] = {}
    for name, backend in agents.items():
        kinds = {
            kind: {"episodes": c["episodes"], "passed": c["passed"], "rate": _rate(c)}
            for kind, c in sorted(table[name].items())
        }
        entry: dict[str, Any] = {"backend": backend, "kinds": kinds}
        if train_tasks != 0:
            entry["filter"] = filter_agent(
                tasks, name, backend, output / "train", max_tasks=train_tasks, concurrency=concurrency
            )
        figures["agents"][name] = entry
    return figures


def _rate(c: Counter) -> float:
    return round(c["passed"] / c["episodes"], 4) if c["episodes"] else 0.0


def format_table(figures: dict[str, Any]) -> str:
    """The agent x kind table (passes / episodes and the rate), with what `filter` kept per agent."""
    agents = figures["agents"]
    kinds = sorted({k for a in agents.values() for k in a["kinds"] if k != "overall"})
    header = ["agent", *kinds, "overall", "filter kept"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name, entry in agents.items():
        cells = [name]
        for kind in [*kinds, "overall"]:
            c = entry["kinds"].get(kind)
            cells.append(f"{c['passed']}/{c['episodes']} ({100 * c['rate']:.1f}%)" if c else "-")
        f = entry.get("filter")
        cells.append(f"{f['kept']}/{f['episodes']}" if f else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run", default=None, help="a run folder: its tasks artifact is RUN/tasks")
    parser.add_argument("--tasks", default=None, help="tasks artifact (default: RUN/tasks)")
    parser.add_argument(
        "--output", default="outputs/hack", help="where the artifacts go (default: outputs/hack)"
    )
    parser.add_argument(
        "--agents",
        default=",".join([*ADVERSARIES, GOLD]),
        help=f"comma-separated agents (default: all): {', '.join([*ADVERSARIES, GOLD])}",
    )
    parser.add_argument(
        "--max-tasks", type=int, default=None, help="at most this many test tasks (default: all)"
    )
    parser.add_argument(
        "--train-tasks", type=int, default=200, help="train tasks rolled out and filtered per agent (0: skip)"
    )
    parser.add_argument("--concurrency", type=int, default=8, help="episodes in flight at once")
    parser.add_argument("--json", default=None, help="also write every figure here")
    args = parser.parse_args(argv)
    if not (args.run or args.tasks):
        parser.error("give --run or --tasks")
    tasks = open_artifact(args.tasks or str(Path(args.run) / "tasks"))
    output = Path(args.output)
    names = [n.strip() for n in args.agents.split(",") if n.strip()]
    figures = run(
        tasks,
        output,
        names,
        max_tasks=args.max_tasks,
        train_tasks=args.train_tasks or 0,
        concurrency=args.concurrency,
    )
    print(
        f"\ntasks: {figures['tasks']} (test split{f', {args.max_tasks} tasks' if args.max_tasks else ''}); "
        f"filter: {args.train_tasks} train tasks per agent\n"
    )
    print(format_table(figures))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
