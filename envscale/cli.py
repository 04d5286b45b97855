"""`envscale <command>`: the one entry point.

Commands:
    collect   real API descriptions -> api_pool
    graph     api_pool -> dependency edges and Louvain domains
    materialize  graph domains -> verified SQLite-backed environments
    tasks     environments -> verifiable tasks (gold calls and states, user intents, train/test)
    rollout   tasks -> trajectories (a simulated user and an agent, scripted or a model)
    filter    trajectories -> filtered: the episodes that reach the gold outcome (SFT data), pass rates
    eval      agents on held-out tasks and BFCL
    train     two-stage SFT with TRL on filtered
    rl        GRPO with TRL on tasks, rewarded by the environment's final state (envscale.rl)
    serve-mcp    serve one environment as an MCP server over stdio
    run       run a recipe's stages in order, skipping those whose output is complete
    push      publish a local artifact version to the Hub (card merged, version tagged)
    info      show an artifact's versions, counts and provenance
    show      read or draw an artifact (a graph domain as a PNG, an environment or a task as text)
    view      browse artifacts in the browser (Gradio): environments with live tool calls, tasks, episodes, eval
    export    write environments and tasks as OpenEnv, ORS, Harbor or verifiers environments (judged by envscale)

Every stage command takes `--config RECIPE.yaml` (its section of the recipe, or the whole file)
and flags that override the recipe; unknown recipe keys are an error. This module only dispatches:
a command's parser and code live with what it runs (`envscale.stages.<stage>`, `envscale.hub` for
`push`, `envscale.show` for `show`, `envscale.env.mcp_server` for `serve-mcp`); `run` and
`info` are here. A known failure (bad config, input, artifact, Hub error) prints one line naming
the file, record or field and exits 2; a traceback means a bug in envscale.

Example:

```bash
envscale collect --sources json:tools.jsonl "mcp:mcp-server-time" --output outputs/pool
envscale run recipes/quickstart.yaml
envscale push outputs/quickstart/api_pool me/my-tools
```
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from . import __version__
from .artifacts import Artifact, is_complete, local_versions, open_artifact
from .config import load_recipe
from .entry import run_command
from .executor import using
from .stages import (
    COMMANDS,
    PIPELINE,
    add_executor_arguments,
    check_recipe_keys,
    executor_config,
    failed,
    get_stage,
    load_line,
    print_report,
    splits_line,
)

logger = logging.getLogger("envscale")


def cmd_run(args: argparse.Namespace) -> int:
    recipe = load_recipe(args.recipe)
    check_recipe_keys(recipe, args.recipe)
    present = [get_stage(name) for name in PIPELINE if name in recipe]
    if not present:
        raise ValueError(f"recipe {args.recipe} has no stage section; expected some of {list(PIPELINE)}")
    output_dir = args.output_dir or recipe.get("output_dir") or Path("outputs") / Path(args.recipe).stem
    if not isinstance(output_dir, str | Path) or not str(output_dir).strip():
        raise ValueError(f"recipe {args.recipe}: output_dir must be a folder path, got {output_dir!r}")
    output_dir = Path(output_dir).absolute()  # outputs are always local folders, never Hub ids
    if output_dir.exists() and not output_dir.is_dir():
        raise ValueError(f"output_dir {output_dir} is a file, not a folder")
    configs = [stage.config(args.recipe, {}) for stage in present]  # every section checked before any work
    with using(executor_config(args, recipe, args.recipe)):
        return _run_stages(present, configs, output_dir, args.force)


def _run_stages(present: list, configs: list, output_dir: Path, force: bool) -> int:
    status = 0
    made: list[Artifact] = []
    for stage, config in zip(present, configs, strict=True):
        output = output_dir / stage.output
        upstream = open_artifact(output_dir / stage.input, expect_kind=stage.input) if stage.input else None
        done = None if force else is_complete(output, stage.fingerprint(config, upstream))
        if done is not None:
            print(
                f"[{stage.name}] skipped: {done.pinned} is complete for this config and input (--force to redo)"
            )
            made.append(done)
            continue
        print(f"[{stage.name}] -> {output}")
        art = stage.run(config, output, upstream)
        print_report(art)
        made.append(art)
        if failed(art):
            status = 1
    print(f"\nDatasets are in {output_dir}:")
    for art in made:
        others = [c for c in art.kind.configs if c != art.kind.main_config]
        print(f"  {art.kind.name} {art.version}: {load_line(art)}")
        if splits_line(art):
            print(f"      {splits_line(art)} (same call with split='<name>')")
        if others:
            print(f"      other configs: {', '.join(others)} (same call with the config name)")
    return status


def cmd_info(args: argparse.Namespace) -> int:
    art = open_artifact(args.ref)
    m = art.manifest
    if not art.is_hub:
        print(f"{art.location}: versions {', '.join(local_versions(Path(art.location)))}")
    print(
        f"{art.pinned}: {m['kind']} schema {m['schema_version']}, made {m['created_at']} by envscale {m['envscale_version']}"
    )
    print("counts: " + ", ".join(f"{k}={v}" for k, v in m["counts"].items()))
    for config, per_split in (m.get("splits") or {}).items():
        print(f"  {config} by split: " + ", ".join(f"{s}={n}" for s, n in per_split.items()))
    if args.json:
        print(json.dumps(m, indent=2, ensure_ascii=False))
    return 0


def make_parser() -> argparse.ArgumentParser:
    """`envscale` and its commands; each command's parser comes from the module that runs it."""
    from . import export, publish, show, view
    from .env import mcp_server
    from .stages import rl as rl_command
    from .stages import train as train_command

    parser = argparse.ArgumentParser(prog="envscale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"envscale {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        get_stage(name).make_parser(sub)
    p = sub.add_parser("run", help="run a recipe's stages in order, skipping complete ones")
    p.add_argument("recipe", help="YAML recipe with one section per stage")
    p.add_argument("--output-dir", help="override the recipe's output_dir (always a local folder)")
    p.add_argument("--force", action="store_true", help="re-run stages even when their output is complete")
    add_executor_arguments(p)
    p.set_defaults(func=cmd_run)
    train_command.make_parser(sub)
    rl_command.make_parser(sub)
    publish.make_parser(sub)
    mcp_server.make_parser(sub)
    show.make_parser(sub)
    view.make_parser(sub)
    export.make_parser(sub)
    p = sub.add_parser("info", help="show an artifact's versions, counts and provenance, and check its data")
    p.add_argument("ref", help="PATH[@vN] or hf://org/name[@revision]")
    p.add_argument("--json", action="store_true", help="print the whole manifest")
    p.set_defaults(func=cmd_info)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one `envscale` command. Known failures print one line and exit 2; bugs show a traceback."""
    parser = make_parser()
    args = parser.parse_args(argv)
    resumable = args.command in COMMANDS or args.command in ("run", "train", "rl")
    return run_command(args.command, args.func, args, resumable=resumable)


if __name__ == "__main__":
    sys.exit(main())
