"""Materialize time on the quickstart, side by side with a baseline commit (the issue's "within 2x of today's").

"Today" is commit `0836038`, the last commit before the semantic materialisation work. The bench
checks the baseline out as a git worktree in a temporary folder and runs the real CLI of each side
(`envscale collect`, `graph`, `materialize`) in child processes with the same interpreter and
`PYTHONPATH=<that tree>`, so each side runs its own code on its own upstream artifacts:

- `collect` and `graph` run once per side (the baseline's `api_pool` and `graph` formats may differ
  from today's); the embedding cache (`$ENVSCALE_CACHE/embeddings`, default
  `~/.cache/envscale/embeddings`) is shared, so the graph stage mostly reads cached vectors;
- `materialize` runs `--repeats` times per side into a fresh output folder each time (a finished
  artifact with the same fingerprint is never redone), interleaved baseline, current, baseline,
  current, ... so machine noise hits both alike. Its time is the `seconds` of the version's
  `envscale.json` (the stage itself, from opening the output to its commit) and, beside it, the
  child process's wall time (with interpreter start and imports).

Inputs (`--sources`):

- `same-as-baseline` (default): only the recipe's sources that the baseline's own
  `recipes/quickstart.yaml` also lists (read with `git show REF:recipes/quickstart.yaml`), for
  both sides, so both codes see the same input;
- `recipe`: the current recipe's sources for both; source kinds the baseline does not know
  (`npm:`) are dropped for the baseline with a note, so the two sides' inputs differ and the
  seconds per domain is the figure to compare.

Relative `json:`/`openapi:` paths are made absolute against the recipe's folder (both sides read
the current checkout's files); `mcp:` sources and `{scratch_git_repo}` are kept as they are
(`--no-mcp` drops them for both: 14 tools of ~3,500, no effect on the timing). "Current" is the
working tree of this checkout, uncommitted edits included.

Usage:

```bash
python bench/materialize_time.py                                  # baseline 0836038, 3 repeats
python bench/materialize_time.py --sources recipe --repeats 1     # the recipe's whole input
python bench/materialize_time.py --baseline 0836038 --repeats 5 --json materialize_time.json
```
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
TARGET_RATIO = 2.0
PATH_KINDS = ("json", "openapi")
#: Runs the CLI of whichever `envscale` is first on PYTHONPATH (cwd is the work folder, not a tree).
CLI = "import sys; from envscale.cli import main; sys.exit(main(sys.argv[1:]))"
STAGE_KEYS = ("collect", "graph", "materialize")


# ----------------------------------------------------------------------------- inputs


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, check=True).stdout


def baseline_recipe(ref: str, recipe: Path) -> dict | None:
    """The baseline commit's version of `recipe` (None when the commit has no such file)."""
    try:
        rel = recipe.resolve().relative_to(REPO)
    except ValueError:
        rel = Path("recipes/quickstart.yaml")  # a recipe outside the repo: compare with the quickstart
    try:
        return yaml.safe_load(git("show", f"{ref}:{rel.as_posix()}"))
    except subprocess.CalledProcessError:
        return None


def kind_of(spec: str) -> str:
    return spec.partition(":")[0].strip()


def absolute(spec: str, base: Path) -> str:
    """`spec` with a relative `json:`/`openapi:` path made absolute against `base` (as `resolve_spec` does)."""
    kind, _, target = spec.partition(":")
    if kind.strip() not in PATH_KINDS or Path(target).expanduser().is_absolute():
        return spec
    archive, bang, members = target.partition("!")
    return f"{kind}:{(base / archive).resolve()}{bang}{members}"


def known_kinds(tree: Path, python: str) -> set[str]:
    """The source kinds the code in `tree` accepts."""
    code = "import json; from envscale.sources import SOURCE_KINDS; print(json.dumps(list(SOURCE_KINDS)))"
    out = subprocess.run(
        [python, "-c", code], env=side_env(tree), capture_output=True, text=True, check=True, cwd="/"
    )
    return set(json.loads(out.stdout))


def short(spec: str) -> str:
    """A source spec in a few words (`pypi:bfcl-eval==2026.3.23`, `mcp:mcp-server-time`)."""
    kind, _, target = spec.partition(":")
    target = target.split("!")[0].split()[0] if target.strip() else target
    return f"{kind}:{Path(target).name if kind in PATH_KINDS else target}"


def side_env(tree: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(tree), "TQDM_DISABLE": "1", "PYTHONDONTWRITEBYTECODE": "1"}


def side_recipe(current: dict, own: dict | None, sources: list[str]) -> dict:
    """A recipe of `sources` with a side's own graph/materialize sections (its recipe's, else the current's)."""
    base = own if own is not None else current
    out = {k: dict(base[k]) for k in STAGE_KEYS if isinstance(base.get(k), dict)}
    out.setdefault("collect", {})["sources"] = sources
    out["collect"].pop("base_dir", None)  # every path is absolute now
    return out


# ----------------------------------------------------------------------------- running a side


def run_cli(name: str, tree: Path, python: str, args: list[str], work: Path) -> float:
    """`envscale ARGS` with the code of `tree`; returns the child's wall seconds, raises on failure."""
    start = time.perf_counter()
    proc = subprocess.run(
        [python, "-c", CLI, *args], env=side_env(tree), cwd=work, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr)[-3000:]
        raise RuntimeError(f"{name}: `envscale {' '.join(args[:1])}` exited {proc.returncode}:\n{tail}")
    return wall


def manifest(artifact: Path) -> dict:
    versions = sorted((artifact / "versions").glob("v*"), key=lambda p: int(p.name[1:]))
    return json.loads((versions[-1] / "envscale.json").read_text())


def tools_in_environments(artifact: Path) -> int:
    """Tools kept in the verified environments (the `n_tools` column, summed)."""
    import pyarrow.parquet as pq

    version = sorted((artifact / "versions").glob("v*"), key=lambda p: int(p.name[1:]))[-1]
    return sum(
        sum(pq.read_table(f, columns=["n_tools"]).column("n_tools").to_pylist())
        for f in sorted((version / "environments").glob("*.parquet"))
    )


def check_import(name: str, tree: Path, python: str) -> None:
    """Fail loudly when the child would import another `envscale` than the one in `tree`."""
    out = subprocess.run(
        [python, "-c", "import envscale; print(envscale.__file__)"],
        env=side_env(tree),
        capture_output=True,
        text=True,
        check=True,
        cwd="/",
    ).stdout.strip()
    if not Path(out).resolve().is_relative_to(tree.resolve()):
        raise RuntimeError(f"{name}: PYTHONPATH={tree} imports envscale from {out}")


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


# ----------------------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="0836038", help="git ref of 'today' (default: %(default)s)")
    parser.add_argument(
        "--recipe", default=str(REPO / "recipes" / "quickstart.yaml"), help="recipe (default: the quickstart)"
    )
    parser.add_argument(
        "--sources",
        choices=["same-as-baseline", "recipe"],
        default="same-as-baseline",
        help="same-as-baseline: only the sources the baseline's recipe also had, for both sides; "
        "recipe: the current recipe's sources (kinds unknown to the baseline dropped for it)",
    )
    parser.add_argument("--no-mcp", action="store_true", help="drop mcp: sources for both sides")
    parser.add_argument("--repeats", type=int, default=3, help="materialize runs per side (median)")
    parser.add_argument("--workdir", help="folder for the outputs (default: a temporary folder, removed)")
    parser.add_argument("--json", metavar="OUT", help="write the figures to this JSON file")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")

    python = sys.executable
    recipe_path = Path(args.recipe).resolve()
    current = yaml.safe_load(recipe_path.read_text())
    base_recipe = baseline_recipe(args.baseline, recipe_path)
    sha = git("rev-parse", "--short", f"{args.baseline}^{{commit}}").strip()
    head = git("rev-parse", "--short", "HEAD").strip()
    dirty = bool(git("status", "--porcelain", "--untracked-files=no", "--", "envscale").strip())
    notes: list[str] = []

    recipe_sources = [absolute(s, recipe_path.parent) for s in current["collect"]["sources"]]
    if args.sources == "same-as-baseline":
        if base_recipe is None:
            parser.error(f"{args.baseline} has no version of {args.recipe}; use --sources recipe")
        theirs = {" ".join(s.split()) for s in base_recipe["collect"]["sources"]}
        sources = [s for s in current["collect"]["sources"] if " ".join(s.split()) in theirs]
        left = [kind_of(s) for s in current["collect"]["sources"] if " ".join(s.split()) not in theirs]
        if left:
            notes.append(f"left out for both (not in {args.baseline}'s recipe): {', '.join(left)} sources")
        sources = [absolute(s, recipe_path.parent) for s in sources]
        per_side = {"baseline": sources, "current": sources}
    else:
        per_side = {"baseline": recipe_sources, "current": recipe_sources}
    if args.no_mcp:
        per_side = {k: [s for s in v if kind_of(s) != "mcp"] for k, v in per_side.items()}
        notes.append("mcp: sources dropped for both (14 tools of ~3,500; no effect on the timing)")

    workdir_ctx = tempfile.TemporaryDirectory(prefix="envscale-mt-") if not args.workdir else None
    root = Path(workdir_ctx.name if workdir_ctx else args.workdir).resolve()
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="run-", dir=root))  # fresh outputs even in a reused --workdir
    tree_of = {"baseline": Path(tempfile.mkdtemp(prefix=f"envscale-baseline-{sha}-")), "current": REPO}
    os.rmdir(tree_of["baseline"])  # `git worktree add` makes the folder
    git("worktree", "add", "--detach", str(tree_of["baseline"]), sha)
    try:
        for name, tree in tree_of.items():
            check_import(name, tree, python)
        unknown = {k for k in map(kind_of, per_side["baseline"])} - known_kinds(tree_of["baseline"], python)
        if unknown:
            per_side["baseline"] = [s for s in per_side["baseline"] if kind_of(s) not in unknown]
            notes.append(
                f"{', '.join(sorted(k + ':' for k in unknown))} sources dropped for the baseline only "
                f"({sha} does not know them): the two sides' inputs differ, compare seconds per domain"
            )

        print(
            f"materialize time: current ({head}{', with uncommitted edits' if dirty else ''}) vs baseline {sha}"
        )
        print(f"recipe {recipe_path} (sources: {args.sources}); work folder {work}")
        cache = os.environ.get("ENVSCALE_CACHE") or str(Path.home() / ".cache" / "envscale")
        print(f"embedding cache shared by both sides: {cache}/embeddings")
        for note in notes:
            print(f"note: {note}")
        for name in tree_of:
            print(f"  {name:8s} sources: {', '.join(short(s) for s in per_side[name])}")
        sys.stdout.flush()

        fig: dict[str, dict] = {}
        for name, tree in tree_of.items():
            side = work / name
            side.mkdir(exist_ok=True)
            own = base_recipe if name == "baseline" else current
            recipe = side / "recipe.yaml"
            recipe.write_text(yaml.safe_dump(side_recipe(current, own, per_side[name]), sort_keys=False))
            f = fig[name] = {"tree": str(tree), "recipe": str(recipe), "sources": per_side[name]}
            f["collect_wall_s"] = run_cli(
                name,
                tree,
                python,
                ["collect", "--config", str(recipe), "--output", str(side / "api_pool")],
                work,
            )
            f["pool_tools"] = manifest(side / "api_pool")["counts"]["api_pool"]
            f["graph_wall_s"] = run_cli(
                name,
                tree,
                python,
                [
                    "graph",
                    "--config",
                    str(recipe),
                    "--input",
                    str(side / "api_pool"),
                    "--output",
                    str(side / "graph"),
                ],
                work,
            )
            f["graph_seconds"] = manifest(side / "graph")["seconds"]
            print(
                f"  {name:8s} collect {f['collect_wall_s']:6.1f} s wall ({f['pool_tools']} tools), "
                f"graph {f['graph_wall_s']:6.1f} s wall ({f['graph_seconds']:.1f} s stage)"
            )
            sys.stdout.flush()
            f["seconds"], f["wall_s"] = [], []

        for i in range(args.repeats):  # interleaved: B, C, B, C, ...
            for name, tree in tree_of.items():
                side, f = work / name, fig[name]
                out = side / f"environments-{i + 1}"
                wall = run_cli(
                    name,
                    tree,
                    python,
                    [
                        "materialize",
                        "--config",
                        f["recipe"],
                        "--input",
                        str(side / "graph"),
                        "--output",
                        str(out),
                    ],
                    work,
                )
                m = manifest(out)
                f["seconds"].append(m["seconds"])
                f["wall_s"].append(round(wall, 3))
                f["domains"], f["verified"] = m["stats"]["domains"], m["stats"]["verified"]
                f["tools"] = tools_in_environments(out)
                print(
                    f"  repeat {i + 1} {name:8s} materialize {m['seconds']:7.2f} s stage, {wall:7.2f} s wall"
                )
                sys.stdout.flush()
    finally:
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree_of["baseline"])],
            capture_output=True,
            check=False,
        )
        if workdir_ctx:
            workdir_ctx.cleanup()

    for f in fig.values():
        f["median_s"] = median(f["seconds"])
        f["median_wall_s"] = median(f["wall_s"])
        f["s_per_domain"] = f["median_s"] / f["domains"] if f["domains"] else float("nan")
    b, c = fig["baseline"], fig["current"]
    ratio = c["median_s"] / b["median_s"]
    ratio_wall = c["median_wall_s"] / b["median_wall_s"]
    ratio_dom = c["s_per_domain"] / b["s_per_domain"]
    print(
        f"\n{'side':9s} {'pool tools':>10s} {'domains':>8s} {'verified':>8s} {'tools':>6s} "
        f"{'median s':>9s} {'wall s':>7s} {'s/domain':>9s}   runs (stage s)"
    )
    for name, f in fig.items():
        runs = " ".join(f"{s:.2f}" for s in f["seconds"])
        print(
            f"{name:9s} {f['pool_tools']:10d} {f['domains']:8d} {f['verified']:8d} {f['tools']:6d} "
            f"{f['median_s']:9.2f} {f['median_wall_s']:7.2f} {f['s_per_domain']:9.4f}   {runs}"
        )
    print(
        f"ratio current/baseline: {ratio:.2f}x median stage seconds, {ratio_wall:.2f}x median wall, "
        f"{ratio_dom:.2f}x seconds per domain"
    )
    verdict = "PASS" if ratio <= TARGET_RATIO else "FAIL"
    same = fig["baseline"]["sources"] == fig["current"]["sources"]
    print(
        f"{verdict}: materialize median {c['median_s']:.2f} s vs {b['median_s']:.2f} s = {ratio:.2f}x "
        f"(target <= {TARGET_RATIO:.0f}x of {sha})" + ("" if same else "; inputs differ, see s/domain")
    )
    cmd = ["python", "bench/materialize_time.py", "--baseline", args.baseline, "--sources", args.sources]
    cmd += ["--repeats", str(args.repeats)]
    if recipe_path != (REPO / "recipes" / "quickstart.yaml"):
        cmd += ["--recipe", str(recipe_path)]
    if args.no_mcp:
        cmd.append("--no-mcp")
    print(f"reproduce: {shlex.join(cmd)}")
    if args.json:
        result = {
            "baseline": sha,
            "current": head,
            "current_has_uncommitted_edits": dirty,
            "sources_mode": args.sources,
            "same_input": same,
            "notes": notes,
            "repeats": args.repeats,
            "ratio_median_seconds": ratio,
            "ratio_median_wall": ratio_wall,
            "ratio_seconds_per_domain": ratio_dom,
            "target_ratio": TARGET_RATIO,
            "verdict": verdict,
            "sides": fig,
        }
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
        print(f"figures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
