"""`envscale export`: environments and tasks in the format another project runs, rewarded by envscale's judge.

```bash
envscale export --format openenv   --input outputs/quickstart --output exported/openenv
envscale export --format ors       --input outputs/quickstart/tasks --output exported/ors --split train
envscale export --format harbor    --input outputs/quickstart --output exported/harbor --max-tasks 50
envscale export --format verifiers --input outputs/quickstart --output exported/verifiers --environments domain_3_orders
```

- `openenv` (`envscale.export.openenv`): an OpenEnv environment: `openenv.yaml`, `models.py` (the action: a tool
  call or the final answer; the observation), `server/` (the `Environment` subclass and `create_app`'s app, a
  Dockerfile), `pyproject.toml` with the `server` entry point;
- `ors` (`envscale.export.ors`): an OpenReward (ORS) environment server: one `Environment` class per envscale
  environment, its tools and tasks per split, the final answer as its `@terminal` tool; `server.py`, Dockerfile;
- `harbor` (`envscale.export.harbor`): one Harbor task per envscale task: `task.toml`, `instruction.md`,
  `environment/` (a Dockerfile and the `envscale-tool` command the agent calls the tools with), `tests/test.sh`
  (writes `/logs/verifier/reward.txt`), `solution/solve.sh` (the gold calls);
- `verifiers` (`envscale.export.verifiers`): a package whose `load_environment(**kwargs)` returns a verifiers
  `ToolEnv` over the tasks, with a `Rubric` whose one reward function is envscale's judge.

In every format the reward is the environment's final database state (and the answer and the policy) judged by
`envscale.rl.reward.judge_rollout`: 1.0 for the gold calls and answer, 0.0 for doing nothing. The exported code
imports `envscale` (and the format's own package) at run time; `data/` holds the environments and tasks
(`envscale.export.episodes`). Tasks go through `envscale rl`'s admission gates; refused ones, and every task of an
environment that cannot be built, are listed in `rejected.jsonl` with the reason.
"""

from __future__ import annotations

import argparse

from ..config import command_parser

#: The formats `envscale export` writes, and what each is.
FORMATS = {
    "openenv": "an OpenEnv environment server (Environment, Action/Observation, app, openenv.yaml)",
    "ors": "an OpenReward (ORS) environment server (Environment classes, tools, tasks, splits)",
    "harbor": "Harbor tasks, one folder each (task.toml, instruction.md, environment/, tests/, solution/)",
    "verifiers": "a verifiers package whose load_environment() returns a ToolEnv with a Rubric",
}


def make_parser(subparsers=None) -> argparse.ArgumentParser:
    """`envscale export --format FORMAT --input REF --output DIR [options]`."""
    parser = command_parser(
        subparsers,
        "export",
        help="write environments and tasks as OpenEnv, ORS, Harbor or verifiers environments",
        description=__doc__.split("\n\n")[0]
        + "\n\nFormats:\n"
        + "\n".join(f"  {name:<10} {text}" for name, text in FORMATS.items()),
    )
    parser.add_argument("--format", required=True, choices=list(FORMATS), help="the format to write")
    parser.add_argument(
        "--input",
        required=True,
        metavar="REF",
        help="a tasks artifact (PATH[@vN] or hf://org/name[@revision]) or a run's output folder holding tasks/",
    )
    parser.add_argument("--output", required=True, metavar="DIR", help="the folder to write")
    parser.add_argument("--split", default="test", help="the tasks' split (default: test)")
    parser.add_argument("--max-tasks", type=int, metavar="N", help="at most N tasks (default: all)")
    parser.add_argument(
        "--environments",
        nargs="+",
        metavar="NAME",
        help="only the tasks of these environments (default: all)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    parser.set_defaults(func=main)
    return parser


def main(args: argparse.Namespace) -> int:
    """Run `envscale export` and print what was written and what was left out."""
    from .build import export

    summary = export(
        args.input,
        args.format,
        args.output,
        split=args.split,
        max_tasks=args.max_tasks,
        environments=args.environments,
        show_progress=not getattr(args, "no_progress", False),
    )
    print(
        f"exported {summary['tasks']} task(s) of {summary['environments']} environment(s) from {summary['input']} "
        f"split {summary['split']} as {summary['format']} to {summary['output']}"
    )
    if summary["rejected"]:
        gates = ", ".join(f"{k} {v}" for k, v in summary["rejected_by_gate"].items())
        print(f"  {summary['rejected']} task(s) left out ({gates}): see {summary['output']}/rejected.jsonl")
    for name in summary["rejected_environments"]:
        print(f"  environment {name!r} could not be built: its tasks are in rejected.jsonl")
    return 0
