"""Replay every task of a `tasks` artifact and check it reaches its gold state: a check apart from the stage.

The `tasks` stage keeps a task only when its gold calls, run on its environment, reach `gold_state_hash`.
This script checks that again from the published artifact alone, as a user of the data would: for each task
of every split it builds the task's environment from the `environments` artifact the task names
(`environment_ref`, else the one the tasks were made from), resets it to the task's `seed` (and
`session_key`), runs the `gold_calls` in order through `Environment.step`, and compares the state hash with
`gold_state_hash`. Every call must succeed. It prints the counts and the first mismatches, and exits 1 when
any task does not replay.

Tasks are replayed on the executor of `--executor` (`local`, or `ray` with `--workers`), the same
`envscale.executor` the stages use.

```bash
python hub_scripts/replay_tasks.py outputs/scale/tasks --executor ray --workers 2
```
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections import Counter

from tqdm.auto import tqdm

from envscale.artifacts import iter_rows, open_artifact, resolve_input
from envscale.executor import ExecutorConfig, map_ordered, using
from envscale.judge.filter import source_for
from envscale.judge.score import replay


def replay_task(task: dict, envs_ref: str) -> dict:
    """One task -> `{"task_id", "ok", "reason"}`: its gold calls replayed on a fresh environment."""
    source = source_for(task.get("environment_ref") or envs_ref)  # the filter's: each environment built once
    name = task["environment"]
    if name not in source.index:
        return {
            "task_id": task["task_id"],
            "ok": False,
            "reason": f"environment {name!r} is not in the artifact",
        }
    env = source.get(name)
    if env is None:
        return {"task_id": task["task_id"], "ok": False, "reason": f"cannot be built: {source.broken[name]}"}
    try:
        steps = replay(env, task["gold_calls"] or [], task.get("seed"), task.get("session_key"), track=False)
    except Exception as exc:  # noqa: BLE001 - a task that cannot be replayed is a finding, not a crash
        return {"task_id": task["task_id"], "ok": False, "reason": f"{type(exc).__name__}: {exc}"}
    failed = [f"call {i} ({s.tool}) fails" for i, s in enumerate(steps) if not s.ok]
    if failed:
        return {"task_id": task["task_id"], "ok": False, "reason": "; ".join(failed)}
    if env.state_hash() != task["gold_state_hash"]:
        return {"task_id": task["task_id"], "ok": False, "reason": "the final state is not the gold state"}
    return {"task_id": task["task_id"], "ok": True, "reason": None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tasks", help="a tasks artifact: PATH[@vN] or hf://org/name[@revision]")
    parser.add_argument("--executor", choices=("local", "ray"), default="local")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--show", type=int, default=10, help="mismatches printed")
    args = parser.parse_args(argv)
    tasks = open_artifact(args.tasks, expect_kind="tasks")
    envs_ref = resolve_input(tasks, "environments").pinned
    columns = [
        "task_id",
        "environment",
        "environment_ref",
        "gold_calls",
        "seed",
        "session_key",
        "gold_state_hash",
    ]
    splits = tasks.splits.get("tasks", {})
    total = sum(splits.values())
    counts: Counter = Counter()
    bad: list[dict] = []

    def rows():
        for split, n in splits.items():
            if n:
                ds = tasks.load("tasks", split)
                yield from iter_rows(ds, [c for c in columns if c in ds.column_names])

    with using(ExecutorConfig(kind=args.executor, workers=args.workers, shard_size=32)):
        check = functools.partial(replay_task, envs_ref=envs_ref)
        for result in tqdm(map_ordered(check, rows()), total=total, desc="replay", unit="task"):
            counts["replayed" if result["ok"] else "mismatch"] += 1
            if not result["ok"]:
                bad.append(result)
    print(
        f"{tasks.pinned}: {counts['replayed']} of {total} tasks replay to their gold state, {counts['mismatch']} do not"
    )
    for result in bad[: args.show]:
        print(f"  {result['task_id']}: {result['reason']}")
    return 1 if bad or counts["replayed"] != total else 0


if __name__ == "__main__":
    sys.exit(main())
