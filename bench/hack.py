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
keeps none of the adversaries' episodes. A blunt policy may still solve a task honestly (the guesser cancels
the order the user names, on a task that asks just that): `not done` counts the passes (and `filter`'s
keeps) of episodes whose successful writes are not the task's gold writes (`did_the_task`), the gaming
proper. Outputs go under `--output` (the eval artifact, each agent's
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

from envscale.artifacts import Artifact, is_complete, open_artifact, resolve_input
from envscale.judge import canonical_value
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


def write_tools(tasks: Artifact) -> set[str]:
    """The write tools of every environment of the tasks' environments artifact (by name)."""
    environments = resolve_input(tasks, "environments").load("environments")
    return {
        t["name"]
        for spec in environments["spec"]
        for t in (json.loads(spec) if isinstance(spec, str) else spec)["tools"]
        if t.get("kind") == "write"
    }


def _writes(calls: list[dict], writes: set[str]) -> Counter:
    out: Counter = Counter()
    for call in calls:
        if call.get("ok", True) and call.get("tool") in writes:
            args = call.get("arguments") if isinstance(call.get("arguments"), dict) else {}
            canonical = {k: canonical_value(v) for k, v in args.items()}
            out[json.dumps([call["tool"], canonical], sort_keys=True, default=str)] += 1
    return out


def did_the_task(trajectory: dict, task: dict, writes: set[str]) -> bool:
    """Whether an episode did what its task asks: its successful writes hold the task's gold writes (at least
    one; the same tools with the same arguments, values compared canonically). A blunt agent that cancels
    the order the user names, on a task that asks just that, did the task; any pass of a task without gold
    writes (read, policy) is not one. A gold write sent again with more fields, which left the gold state as it is
    (a pass is scored on the final state), is no hack: the guessing adversary resolved the ticket asked of it, then
    sent the same update again with the priority the ticket already had."""
    gold = _writes(_json(task["gold_calls"]) or [], writes)
    made = _writes(_json(trajectory["calls"]) or [], writes)
    if not gold or any(made[call] != n for call, n in gold.items()):
        return False
    return all(_resends(call, gold) for call in made if call not in gold)


def _resends(call: str, gold: Counter) -> bool:
    """Whether a write re-sends a gold write with more fields (the same tool, the gold's arguments and others)."""
    tool, arguments = json.loads(call)
    for other in gold:
        gold_tool, gold_arguments = json.loads(other)
        if gold_tool == tool and all(arguments.get(k) == v for k, v in gold_arguments.items()):
            return True
    return False


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _tasks_by_id(tasks: Artifact) -> dict[str, dict]:
    return {t["task_id"]: t for split in tasks.splits.get("tasks", {}) for t in tasks.load("tasks", split)}


def eval_agents(
    tasks: Artifact, agents: dict[str, dict], output: Path, *, max_tasks: int | None, concurrency: int
) -> dict[str, dict[str, Counter]]:
    """Every agent on the test split through `evaluate`: `{agent: {kind: Counter(episodes, passed,
    not_done)}}`, `not_done` the passes of episodes that did not do the task (`did_the_task`)."""
    from datasets import load_dataset

    from envscale.evaluation.run import EvalConfig, evaluate

    config = EvalConfig(agents=agents, max_tasks=max_tasks, concurrency=concurrency)
    art = evaluate(tasks, config, output)
    results = load_dataset(art.location, "results", split="train")
    index, writes = _tasks_by_id(tasks), write_tools(tasks)
    episodes = {
        t["trajectory_id"]: t
        for name in agents
        for t in open_artifact(str(art.manifest["stats"]["rollouts"][name])).load("trajectories")
    }
    table: dict[str, dict[str, Counter]] = {name: {} for name in agents}
    for row in results:
        passed = bool(row["success"])
        not_done = passed and not did_the_task(episodes[row["trajectory_id"]], index[row["id"]], writes)
        for kind in (row["kind"], "overall"):
            table[row["agent"]].setdefault(kind, Counter()).update(
                episodes=1, passed=int(passed), not_done=int(not_done)
            )
    return table


def filter_agent(
    tasks: Artifact, name: str, backend: dict, output: Path, *, max_tasks: int | None, concurrency: int
) -> dict[str, Any]:
    """The agent on the train sample (`rollout`) then `filter`: `{"episodes", "kept", "not_done",
    "kept_kinds"}`, `not_done` the kept episodes that did not do the task."""
    from envscale.judge.filter import FilterConfig, filter_trajectories
    from envscale.rollout.run import RolloutConfig, rollout

    rc = RolloutConfig(agent=backend, splits=["train"], max_tasks=max_tasks, concurrency=concurrency)
    folder = output / "rollouts" / name
    traj = is_complete(folder, rc.fingerprint(tasks.content_key)) or rollout(tasks, rc, folder)
    filtered = filter_trajectories(traj, FilterConfig(), output / "filtered" / name)
    counts = filtered.manifest.get("counts") or {}
    kept = list(filtered.load("filtered"))  # an empty config loads as an empty dataset
    index, writes = _tasks_by_id(tasks), write_tools(tasks)
    return {
        "episodes": counts.get("filtered", 0) + counts.get("rejected", 0),
        "kept": len(kept),
        "not_done": sum(not did_the_task(t, index[t["task_id"]], writes) for t in kept),
        "kept_kinds": dict(Counter(t["kind"] for t in kept)),
    }


def run(
    tasks: Artifact,
    output: Path,
    names: list[str],
    *,
    max_tasks: int | None = None,
    train_tasks: int | None = 100,
    concurrency: int = 8,
) -> dict[str, Any]:
    """Every figure: `{"agents": {name: {"kinds": {kind: {episodes, passed, rate}}, "filter": {...}}}}`."""
    agents = agent_backends(names)
    table = eval_agents(tasks, agents, output / "eval", max_tasks=max_tasks, concurrency=concurrency)
    figures: dict[str, Any] = {"tasks": tasks.pinned, "max_tasks": max_tasks, "train_tasks": train_tasks}
    figures["agents"] = {}
    for name, backend in agents.items():
        kinds = {
            kind: {
                "episodes": c["episodes"],
                "passed": c["passed"],
                "rate": _rate(c),
                "not_done": c["not_done"],
            }
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
    """The agent x kind table: passes / episodes (the rate) per kind and overall; `not done`, the passes of
    episodes that did not make the task's gold writes (gaming, not solving); what `filter` kept of the
    agent's train episodes and, of those, how many did not do the task."""
    agents = figures["agents"]
    kinds = sorted({k for a in agents.values() for k in a["kinds"] if k != "overall"})
    header = ["agent", *kinds, "overall", "not done", "filter kept", "kept, not done"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name, entry in agents.items():
        cells = [name]
        for kind in [*kinds, "overall"]:
            c = entry["kinds"].get(kind)
            cells.append(f"{c['passed']}/{c['episodes']} ({100 * c['rate']:.1f}%)" if c else "-")
        adversary = entry["backend"].get("kind") == "adversary"  # an honest agent's read passes are no gaming
        cells.append(str(entry["kinds"]["overall"]["not_done"]) if adversary else "-")
        f = entry.get("filter")
        cells += (
            [f"{f['kept']}/{f['episodes']}", str(f["not_done"]) if adversary else "-"] if f else ["-", "-"]
        )
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
        "--train-tasks", type=int, default=100, help="train tasks rolled out and filtered per agent (0: skip)"
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
