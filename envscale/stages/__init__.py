"""The pipeline's stages: each a function over datasets, with its own command line.

A stage module (`collect`, `graph`, `materialize`, `tasks`) holds a config dataclass, the stage
function (`collect(config, output)`, `build_graph(pool, config, output)`, ...), and a :class:`Stage` named
`STAGE` that gives it TRL's script shape: `make_parser(subparsers=None)` and `main(args)`. The
`envscale` command only dispatches to them, and each also runs alone:

```bash
python -m envscale.stages.graph --input outputs/quickstart/api_pool --output outputs/graph
envscale graph --input outputs/quickstart/api_pool --output outputs/graph      # the same
```

`PIPELINE` is their order; `envscale run RECIPE` runs the ones a recipe has sections for.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..artifacts import Artifact, open_artifact
from ..config import add_arguments, command_parser, load_recipe, parse_config, section
from ..entry import run_script
from ..executor import EXECUTORS, ExecutorConfig, using

#: The stages, in pipeline order (module names under `envscale.stages`); `envscale run` runs these.
PIPELINE = ("collect", "graph", "materialize", "tasks", "rollout", "filter")
#: Dataset stages that are their own commands but not part of `envscale run` (they need a model).
COMMANDS = (*PIPELINE, "eval")
#: Recipe sections of commands that are not dataset stages (`envscale train --config RECIPE`).
OTHER_SECTIONS = ("train", "rl")
#: Every section a recipe may have.
SECTIONS = (*COMMANDS, *OTHER_SECTIONS)
#: Top-level recipe keys that are not stage sections.
RUN_KEYS = {
    "output_dir": "Folder under which each stage writes <output_dir>/<stage output>.",
    "executor": "Where per-environment work runs: local (default) or ray, or {kind, workers, ray_address, "
    "shard_size, window} (envscale.executor).",
}
#: Parser keys of a stage command that are not config fields.
RESERVED = {
    "command",
    "config",
    "output",
    "input",
    "verbose",
    "func",
    "executor",
    "workers",
    "ray_address",
    "window",
}


def get_stage(name: str) -> Stage:
    """The :class:`Stage` of `envscale.stages.<name>`."""
    if name not in COMMANDS:
        raise ValueError(f"unknown stage {name!r}; stages: {', '.join(COMMANDS)}")
    return importlib.import_module(f"{__name__}.{name}").STAGE


#: The stages whose per-item work the run's executor maps (graph: the embedding pass of a large encode) (`--executor`, the recipe's `executor:`).
SHARDED = ("graph", "materialize", "tasks", "rollout", "filter")


def add_executor_arguments(parser: argparse.ArgumentParser) -> None:
    """`--executor`, `--workers`, `--ray-address`, `--window`: where per-environment work runs (`envscale.executor`)."""
    group = parser.add_argument_group("executor (how fast, never what: not part of any fingerprint)")
    group.add_argument("--executor", choices=EXECUTORS, help="local (default) or ray; overrides the recipe's")
    group.add_argument("--workers", type=int, help="Ray workers (CPUs of the local Ray; default 2)")
    group.add_argument(
        "--ray-address", help="join this Ray cluster (auto, ray://host:10001) instead of starting one"
    )
    group.add_argument(
        "--window",
        type=int,
        help="Ray shards submitted ahead of the one whose results come next (default 8 x workers)",
    )


def executor_config(args: argparse.Namespace, recipe: dict | None, where: str | None) -> ExecutorConfig:
    """The run's executor: the recipe's `executor:` with the flags over it."""
    value = (
        (recipe or {}).get("executor")
        if isinstance(recipe, dict) and any(k in SECTIONS for k in recipe)
        else None
    )
    fields = ExecutorConfig.from_value(value, f"recipe {where}: executor" if where else "executor").as_dict()
    for flag, key in (
        ("executor", "kind"),
        ("workers", "workers"),
        ("ray_address", "ray_address"),
        ("window", "window"),
    ):
        if getattr(args, flag, None) is not None:
            fields[key] = getattr(args, flag)
    return ExecutorConfig(**fields)


def check_recipe_keys(recipe: dict, path: str) -> None:
    """Unknown top-level keys of a multi-stage recipe are an error (a single-stage recipe is checked by its config)."""
    if not any(k in SECTIONS for k in recipe):
        return
    unknown = sorted(set(recipe) - set(SECTIONS) - set(RUN_KEYS))
    if unknown:
        raise ValueError(
            f"recipe {path}: unknown top-level keys {unknown}; "
            f"expected stage sections {sorted(SECTIONS)} or {sorted(RUN_KEYS)}"
        )


@dataclass(frozen=True)
class Stage:
    """What the CLI and `envscale run` know of a stage: its function, config, and what it reads and writes.

    Args:
        name: the command and recipe section (`collect`).
        output: the artifact kind it writes, also its folder name under a run's `output_dir`.
        input: the artifact kind it reads (the previous stage's output), if any.
        help: one line for `envscale --help`.
        config_cls: the config dataclass.
        function: `fn(config, output)` or, with an input, `fn(input_artifact, config, output)`.
        description: the longer text of `envscale <name> --help` (default: `help`).
    """

    name: str
    output: str
    input: str | None
    help: str
    config_cls: type
    function: Callable[..., Artifact]
    description: str | None = None

    def make_parser(self, subparsers: Any = None) -> argparse.ArgumentParser:
        """The stage's parser: `--config`, `--input`, `--output`, and one flag per config field."""
        parser = command_parser(subparsers, self.name, help=self.help, description=self.description)
        parser.add_argument("--config", help=f"YAML recipe: its `{self.name}:` section, or the whole file")
        if self.input:
            parser.add_argument(
                "--input", help=f"the {self.input} artifact to read: PATH[@vN] or hf://org/name[@revision]"
            )
        parser.add_argument(
            "--output", help=f"output artifact folder, always local (default: outputs/{self.output})"
        )
        add_arguments(parser, self.config_cls)
        if self.name in SHARDED:
            add_executor_arguments(parser)
        parser.set_defaults(func=self.main)
        return parser

    def run_as_script(self, argv: list[str] | None = None) -> int:
        """`python -m envscale.stages.<name> ...`: the same as `envscale <name> ...`."""
        return run_script(self.make_parser(), self.name, argv, resumable=True)

    def config(self, recipe_path: str | None = None, overrides: dict | None = None) -> Any:
        """The stage config from its recipe section plus overrides (unknown keys are an error)."""
        data: dict = {}
        if recipe_path:
            recipe = load_recipe(recipe_path)
            check_recipe_keys(recipe, recipe_path)
            data = dict(section(recipe, self.name, SECTIONS))
            if "base_dir" in self.config_cls.__dataclass_fields__ and "base_dir" not in data:
                data["base_dir"] = str(
                    Path(recipe_path).resolve().parent
                )  # relative sources: the recipe's folder
        return parse_config(self.config_cls, data, overrides)

    def open_input(self, ref: str | Path | None) -> Artifact:
        if not ref:
            raise ValueError(
                f"{self.name} needs --input (a {self.input} artifact: PATH[@vN] or hf://org/name[@revision])"
            )
        return open_artifact(ref, expect_kind=self.input)

    def fingerprint(self, config: Any, input_artifact: Artifact | None = None) -> str:
        """What makes this stage's output what it is: the config and the content of its input."""
        return config.fingerprint(input_artifact.content_key) if self.input else config.fingerprint()

    def run(self, config: Any, output: str | Path, input_artifact: Artifact | None = None) -> Artifact:
        output = Path(output)  # an output is always a local folder, never a Hub id
        if self.input:
            return self.function(input_artifact, config, output)
        return self.function(config, output)

    def main(self, args: argparse.Namespace) -> int:
        """`envscale <stage>`: run the stage from parsed arguments; 0 on success, 1 if a source failed."""
        overrides = {k: v for k, v in vars(args).items() if k not in RESERVED}
        config = self.config(args.config, overrides)
        output = Path(args.output) if args.output else Path("outputs") / self.output
        with using(executor_config(args, load_recipe(args.config) if args.config else None, args.config)):
            art = self.run(config, output, self.open_input(args.input) if self.input else None)
        print_report(art)
        return 1 if failed(art) else 0


def load_line(art: Artifact) -> str:
    """The `datasets.load_dataset(...)` call that reads a split with rows of an artifact's main config (`train`
    when it has rows), or what to say when the main config is empty (`load_dataset` would fail on it)."""
    config = art.kind.main_config
    per_split = art.splits.get(config) or {"train": art.manifest["counts"].get(config, 0)}
    split = next((s for s in ("train", *per_split) if per_split.get(s)), None)
    if split is None:
        return f"nothing to load: config {config!r} has no rows"
    return f"datasets.load_dataset({art.location!r}, {config!r}, split={split!r})"


def splits_line(art: Artifact) -> str | None:
    """`splits of tasks: train 900, test 150` when the main config has several splits, else None."""
    config = art.kind.main_config
    if len(art.kind.splits_of(config)) < 2:
        return None
    per_split = art.splits.get(config, {})
    return f"splits of {config}: " + ", ".join(f"{split} {n}" for split, n in per_split.items())


def print_report(art: Artifact) -> None:
    """What a stage prints when it is done: where, counts, the accounting, failures, how to load it."""
    counts = ", ".join(f"{k}={v}" for k, v in art.manifest["counts"].items())
    print(f"{art.kind.name} {art.version} written to {art.location}  ({counts})")
    stats = art.manifest.get("stats", {})
    totals = stats.get("totals")
    if totals:
        print(
            f"  read {totals['read']} = accepted {totals['accepted']} + rejected {totals['rejected']} "
            f"+ duplicates {totals['duplicates']}"
        )
    for failure in stats.get("failed_sources", []):
        print(f"  FAILED source {failure['source']}: {failure['error']}", file=sys.stderr)
    splits = splits_line(art)
    if splits:
        print(f"  {splits}")
    line = load_line(art)
    print(f"  load: {line}" if line.startswith("datasets.") else f"  {line}")


def failed(art: Artifact) -> bool:
    return bool(art.manifest.get("stats", {}).get("failed_sources"))
