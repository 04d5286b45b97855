"""Print the seeded sample of tasks that BENCHMARKS.md judges (issue 10's "read as a person would").

All kept tasks of every split, sorted by `task_id`, then `random.Random(seed).sample(n)`. Each task is
printed compactly (kind, first message, gold calls with results, state changes, answer facts);
`envscale show tasks PATH --task ID` prints one in full.

Usage:

```bash
python bench/task_sample.py                                  # outputs/quickstart/tasks, 20, seed 0
python bench/task_sample.py outputs/run/tasks --n 40 --seed 1
python bench/task_sample.py --full                           # the full rendering of each task
```
"""

from __future__ import annotations

import argparse
import json
import random
from typing import Any

from envscale.artifacts import open_artifact
from envscale.show.tasks import render_task


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _cut(value: Any, n: int = 140) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= n else text[: n - 3] + "..."


def compact(row: dict) -> str:
    ins = _json(row.get("instructions")) or {}
    lines = [f"[{row['kind']}] {row['task_id']}  env={row.get('env_name')}"]
    lines.append(f'  says: "{row.get("first_message") or ins.get("first_message")}"')
    if ins.get("hidden_facts"):
        lines.append(f"  tells if asked: {_cut(ins['hidden_facts'])}")
    calls, results = _json(row.get("gold_calls")) or [], _json(row.get("gold_results")) or []
    for i, call in enumerate(calls):
        lines.append(f"  {i + 1}. {call['tool']}({_cut(call.get('arguments'), 200)})")
        if i < len(results):
            lines.append(f"     -> {_cut(results[i])}")
    diff = _json(row.get("gold_diff")) or {}
    for table, change in diff.items():
        for c in (change.get("changed") or [])[:2]:
            before, after = c.get("before") or {}, c.get("after") or {}
            moves = {
                k: f"{before.get(k)!r} -> {after.get(k)!r}" for k in after if before.get(k) != after.get(k)
            }
            lines.append(f"  ~ {table} {c.get('key')}: {_cut(moves)}")
        for sign, key in (("+", "added"), ("-", "removed")):
            for r in (change.get(key) or [])[:1]:
                lines.append(f"  {sign} {table}: {_cut(r)}")
    if row.get("answer_facts"):
        lines.append(f"  answer: {_cut(row['answer_facts'])}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks", nargs="?", default="outputs/quickstart/tasks")
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--full", action="store_true", help="print each task as `envscale show tasks` does")
    args = parser.parse_args()
    art = open_artifact(args.tasks, expect_kind="tasks")
    rows = [row for split in art.splits["tasks"] for row in art.load("tasks", split)]
    rows.sort(key=lambda r: r["task_id"])
    sample = random.Random(args.seed).sample(rows, min(args.n, len(rows)))
    for i, row in enumerate(sample, 1):
        print(f"--- {i}/{len(sample)}")
        print(render_task(row) if args.full else compact(row))


if __name__ == "__main__":
    main()
