"""Write the seeded sample that an outside reader judges blind: tasks and worlds of a run, one file each.

Issue 19 asks for a blind judgement ("a helper session that did not write the code reads a seeded sample
of 30 tasks and 20 worlds"). This script draws that sample from a run folder, reproducibly, and writes each
item as the person reads it (`envscale show tasks` / `envscale show environment` text), without anything
that says how it was made, into a folder the reader is given:

- tasks: every kept task of every split, sorted by `task_id`, then `random.Random(seed).sample(n)`;
- worlds: the environments of kind `world` (function sets are not posed as tasks), sorted by name, then
  `random.Random(seed + 1).sample(n)`.

Usage:

```bash
python bench/blind_sample.py outputs/quickstart --seed 23 --tasks 30 --worlds 20 --out /tmp/blind
# then give /tmp/blind (tasks/NN.txt, worlds/NN.txt, RUBRIC.md) to a reader who did not write the code
```
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from envscale.artifacts import open_artifact
from envscale.schemas import environment_kind
from envscale.show.environment import render_environment
from envscale.show.tasks import render_task

RUBRIC = """\
# What to judge (read every file; do not read the envscale source)

## tasks/NN.txt: one task each
A simulated user asks an agent for something in a tool environment; the file shows what the user says and
knows, the tools the agent would call (gold calls) with their results, what changes in the database, and the
facts the answer must state. For each task answer **makes sense / partly / not**:
- makes sense: a real person could ask this, in these words, with what they know; the gold calls are a
  sensible way to do it; the result means what the request asked (the state change and the answer).
- partly: the idea is sound but something is off (odd wording, a value no one would know, a needless call).
- not: no person would ask it, or the gold does not do what is asked.
Give one line per task: `NN verdict: reason`.

## worlds/NN.txt: one environment each
Score 0-3: 3 = a coherent world like tau2-bench's airline/retail (entities that reference each other, tools
that read and change them the way the API says, rules, realistic rows); 2 = a useful world with some gaps;
1 = a fragment (a few tools, stubs, values that do not fit); 0 = not a world (a lookup or computation, or
broken). One line per world: `NN score: reason`.

End with the counts (tasks: makes sense / partly / not; worlds: median and the scores) and the three most
common problems, in your own words.
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a run folder with tasks/ and environments/")
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--tasks", type=int, default=30)
    parser.add_argument("--worlds", type=int, default=20)
    parser.add_argument("--out", required=True, help="the folder to write (tasks/, worlds/, RUBRIC.md)")
    args = parser.parse_args()
    run, out = Path(args.run), Path(args.out)
    (out / "tasks").mkdir(parents=True, exist_ok=True)
    (out / "worlds").mkdir(parents=True, exist_ok=True)
    (out / "RUBRIC.md").write_text(RUBRIC)

    tasks = open_artifact(run / "tasks", expect_kind="tasks")
    rows = sorted(
        (r for s in tasks.splits["tasks"] for r in tasks.load("tasks", s)), key=lambda r: r["task_id"]
    )
    for i, row in enumerate(random.Random(args.seed).sample(rows, min(args.tasks, len(rows))), 1):
        (out / "tasks" / f"{i:02d}.txt").write_text(render_task(row))

    envs = open_artifact(run / "environments", expect_kind="environments")
    worlds = sorted(
        (r for r in envs.load("environments") if environment_kind(r) == "world"), key=lambda r: r["name"]
    )
    for i, row in enumerate(random.Random(args.seed + 1).sample(worlds, min(args.worlds, len(worlds))), 1):
        (out / "worlds" / f"{i:02d}.txt").write_text(render_environment(row))
    print(
        f"{min(args.tasks, len(rows))} tasks of {len(rows)} and {min(args.worlds, len(worlds))} worlds of "
        f"{len(worlds)} written to {out} (seed {args.seed})"
    )


if __name__ == "__main__":
    main()
