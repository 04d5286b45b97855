"""`envscale <command>`: the one entry point.

Commands:
    collect   real API descriptions -> api_pool
    graph     api_pool -> dependency edges and Louvain domains
    materialize  graph domains -> verified SQLite-backed environments
    serve-mcp    serve one environment as an MCP server over stdio
    run       run a recipe's stages in order, skipping those whose output is complete
    push      publish a local artifact version to the Hub (card merged, version tagged)
    info      show an artifact's versions, counts and provenance
    show      draw a domain of a graph artifact to a PNG

Every stage command takes `--config RECIPE.yaml` (its section of the recipe, or the whole file)
and flags that override the recipe; unknown recipe keys are an error.

Example:

```bash
envscale collect --sources json:tools.jsonl "mcp:mcp-server-time" --output outputs/pool
envscale run recipes/quickstart.yaml
envscale push outputs/quickstart/api_pool me/my-tools
```
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import __version__
from .artifacts import Artifact, is_complete, local_versions, open_artifact
from .config import add_arguments, load_recipe, parse_config, section
from .sources import SOURCE_KINDS

logger = logging.getLogger("envscale")


@dataclass(frozen=True)
class Stage:
    """A stage the CLI and `envscale run` know: where its code is, what it reads and writes."""

    name: str
    output: str  # the artifact kind it writes, and its folder name under a run's output_dir
    input: str | None  # the artifact kind it reads (the previous stage's output), if any
    help: str
    function: str  # "module:function" of the stage function
    config: str  # name of the config class in the same module

    def _module(self):
        return importlib.import_module(self.function.split(":")[0])

    def config_cls(self) -> type:
        return getattr(self._module(), self.config)

    def open_input(self, ref: str | None) -> Artifact:
        if not ref:
            raise ValueError(
                f"{self.name} needs --input (a {self.input} artifact: PATH[@vN] or org/name[@rev])"
            )
        return open_artifact(ref, expect_kind=self.input)

    def fingerprint(self, config: Any, input_ref: str | None) -> str:
        return config.fingerprint(self.open_input(input_ref).pinned) if self.input else config.fingerprint()

    def run(self, config: Any, output: str, input_ref: str | None = None) -> Artifact:
        fn = getattr(self._module(), self.function.split(":")[1])
        return fn(self.open_input(input_ref), config, output) if self.input else fn(config, output)


#: The stages that exist, in pipeline order.
STAGES = {
    s.name: s
    for s in (
        Stage(
            "collect",
            "api_pool",
            None,
            "real API descriptions -> api_pool",
            "envscale.stages.collect:collect",
            "CollectConfig",
        ),
        Stage(
            "graph",
            "graph",
            "api_pool",
            "api_pool -> dependency edges and Louvain domains",
            "envscale.stages.graph:build_graph",
            "GraphConfig",
        ),
        Stage(
            "materialize",
            "environments",
            "graph",
            "graph domains -> verified SQLite-backed environments",
            "envscale.stages.materialize:materialize",
            "MaterializeConfig",
        ),
    )
}
#: Top-level recipe keys that are not stage sections.
RUN_KEYS = {"output_dir": "Folder under which each stage writes <output_dir>/<stage output>."}


def _stage_config(stage: Stage, recipe_path: str | None, overrides: dict) -> Any:
    cls = stage.config_cls()
    data: dict = {}
    if recipe_path:
        recipe = load_recipe(recipe_path)
        _check_recipe_keys(recipe, recipe_path)
        data = dict(section(recipe, stage.name, STAGES))
        if stage.name == "collect" and "base_dir" not in data:
            data["base_dir"] = str(Path(recipe_path).resolve().parent)
    return parse_config(cls, data, overrides)


def _check_recipe_keys(recipe: dict, path: str) -> None:
    if not any(k in STAGES for k in recipe):
        return  # a single-stage recipe: its keys are checked by the stage config
    unknown = sorted(set(recipe) - set(STAGES) - set(RUN_KEYS))
    if unknown:
        raise ValueError(
            f"recipe {path}: unknown top-level keys {unknown}; "
            f"expected stage sections {sorted(STAGES)} or {sorted(RUN_KEYS)}"
        )


def _report(art: Artifact) -> None:
    counts = ", ".join(f"{k}={v}" for k, v in art.manifest["counts"].items())
    print(f"{art.kind.name} {art.version} written to {Path(art.location).resolve()}  ({counts})")
    stats = art.manifest.get("stats", {})
    totals = stats.get("totals")
    if totals:
        print(
            f"  read {totals['read']} = accepted {totals['accepted']} + rejected {totals['rejected']} "
            f"+ duplicates {totals['duplicates']}"
        )
    for failure in stats.get("failed_sources", []):
        print(f"  FAILED source {failure['source']}: {failure['error']}", file=sys.stderr)
    print(
        f"  load: datasets.load_dataset({str(Path(art.location))!r}, {art.kind.main_config!r}, split='train')"
    )


def _failed(art: Artifact) -> bool:
    return bool(art.manifest.get("stats", {}).get("failed_sources"))


def cmd_stage(stage: Stage, args: argparse.Namespace, overrides: dict) -> int:
    config = _stage_config(stage, args.config, overrides)
    output = args.output or str(Path("outputs") / stage.output)
    art = stage.run(config, output, getattr(args, "input", None))
    _report(art)
    return 1 if _failed(art) else 0


def cmd_run(args: argparse.Namespace) -> int:
    recipe = load_recipe(args.recipe)
    _check_recipe_keys(recipe, args.recipe)
    present = [s for s in STAGES.values() if s.name in recipe]
    if not present:
        raise ValueError(f"recipe {args.recipe} has no stage section; expected some of {sorted(STAGES)}")
    output_dir = Path(args.output_dir or recipe.get("output_dir") or Path("outputs") / Path(args.recipe).stem)
    status = 0
    for stage in present:
        config = _stage_config(stage, args.recipe, {})
        output = output_dir / stage.output
        input_ref = str(output_dir / stage.input) if stage.input else None
        done = None if args.force else is_complete(output, stage.fingerprint(config, input_ref))
        if done is not None:
            print(
                f"[{stage.name}] skipped: {done.pinned} is complete for this config and input (--force to redo)"
            )
            continue
        print(f"[{stage.name}] -> {output}")
        art = stage.run(config, str(output), input_ref)
        _report(art)
        if _failed(art):
            status = 1
    print(f"\nDatasets are in {output_dir.resolve()}")
    return status


def cmd_push(args: argparse.Namespace) -> int:
    from .hub import push_artifact

    result = push_artifact(args.path, args.repo_id, tag=args.tag, private=args.private, token=args.token)
    print(f"pushed {args.path} to {result['repo_id']} (commit {result['commit'][:12]}, tag {result['tag']})")
    print(f"  {result['url']}")
    print(f"  load: datasets.load_dataset({result['repo_id']!r}, revision={result['tag']!r})")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from .show import draw_domain

    art = open_artifact(args.ref, expect_kind="graph")
    path = draw_domain(art, args.domain, args.png)
    print(f"wrote {path}")
    return 0


def cmd_serve_mcp(args: argparse.Namespace) -> int:
    from .env.mcp_server import load_environment, serve_stdio

    serve_stdio(load_environment(args.ref, args.env, seed=args.seed))
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    art = open_artifact(args.ref)
    m = art.manifest
    if not art.is_hub:
        print(f"{art.location}: versions {', '.join(local_versions(Path(art.location)))}")
    print(
        f"{art.pinned}: {m['kind']} schema {m['schema_version']}, made {m['created_at']} by envscale {m['envscale_version']}"
    )
    print("counts: " + ", ".join(f"{k}={v}" for k, v in m["counts"].items()))
    if args.json:
        print(json.dumps(m, indent=2, ensure_ascii=False))
    return 0


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="envscale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"envscale {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    kinds = "\n".join(f"  {k}:  {v}" for k, v in SOURCE_KINDS.items())
    for stage in STAGES.values():
        p = sub.add_parser(
            stage.name,
            help=stage.help,
            formatter_class=argparse.RawDescriptionHelpFormatter,
            description=f"{stage.help}\n\nsource kinds:\n{kinds}" if stage.name == "collect" else stage.help,
        )
        p.add_argument("--config", help=f"YAML recipe: its `{stage.name}:` section, or the whole file")
        if stage.input:
            p.add_argument(
                "--input", help=f"the {stage.input} artifact to read: PATH[@vN] or org/name[@revision]"
            )
        p.add_argument("--output", help=f"output artifact folder (default: outputs/{stage.output})")
        add_arguments(p, stage.config_cls())
    p = sub.add_parser("run", help="run a recipe's stages in order, skipping complete ones")
    p.add_argument("recipe", help="YAML recipe with one section per stage")
    p.add_argument("--output-dir", help="override the recipe's output_dir")
    p.add_argument("--force", action="store_true", help="re-run stages even when their output is complete")
    p = sub.add_parser("push", help="publish a local artifact version to the Hub")
    p.add_argument("path", help="local artifact folder, optionally @vN")
    p.add_argument("repo_id", help="dataset repo id, org/name")
    p.add_argument("--tag", help="Hub tag for this version (default: the local version, e.g. v1)")
    p.add_argument("--private", action="store_true", help="create the repo private")
    p.add_argument("--token", help="Hub token (default: HF_TOKEN / the logged-in token)")
    p = sub.add_parser("serve-mcp", help="serve one environment as an MCP server (stdio)")
    p.add_argument(
        "ref", help="an environments artifact (PATH[@vN], org/name[@rev]) or an environment YAML file"
    )
    p.add_argument("--env", help="environment name (default: the first one)")
    p.add_argument("--seed", type=int, help="initial state seed (default: the spec's)")
    p = sub.add_parser("show", help="draw an artifact (e.g. a domain of a graph) to a PNG")
    p.add_argument("what", choices=["graph"], help="what to draw")
    p.add_argument("ref", help="a graph artifact: PATH[@vN] or org/name[@revision]")
    p.add_argument("--domain", type=int, help="domain id (default: the largest domain)")
    p.add_argument("--png", help="output file (default: <artifact>/domain-<id>.png)")
    p = sub.add_parser("info", help="show an artifact's versions, counts and provenance")
    p.add_argument("ref", help="PATH[@vN] or org/name[@revision]")
    p.add_argument("--json", action="store_true", help="print the whole manifest")
    return parser


def configure_process() -> None:
    """Process-wide settings for long runs, applied by entry points only (never at import).

    Arrow's default allocator (mimalloc) keeps freed pages, so a streaming pass over parquet
    shards grew resident memory with the input; the system allocator returns them
    (measured in bench/collect.py).
    """
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())


def main(argv: list[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    configure_process()
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO, format="%(levelname)s %(name)s: %(message)s"
    )
    for noisy in ("httpx", "mcp", "datasets", "huggingface_hub", "filelock", "fsspec"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    reserved = {"command", "config", "output", "input", "verbose"}  # stage-parser keys that are not config
    overrides = {k: v for k, v in vars(args).items() if k not in reserved}
    try:
        if args.command in STAGES:
            return cmd_stage(STAGES[args.command], args, overrides)
        commands = {
            "run": cmd_run,
            "push": cmd_push,
            "info": cmd_info,
            "show": cmd_show,
            "serve-mcp": cmd_serve_mcp,
        }
        return commands[args.command](args)
    except (ValueError, FileNotFoundError) as exc:
        print(f"envscale {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"envscale {args.command}: interrupted; re-run the same command to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
