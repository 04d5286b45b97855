"""What a scale run costs: time and peak memory per stage per unit, and the 1 -> 2 worker speed-up.

Runs the stages of a scale recipe (default `recipes/scale-all.yaml`, the whole selection; collect -> graph -> materialize -> tasks -> rollout -> filter) one
command at a time, each as its own process (`envscale <stage> --config RECIPE ...`), and measures

- **wall time** of each stage command, and its **unit cost**: per tool (collect, graph), per domain
  (materialize), per world (tasks), per episode (rollout, filter);
- **peak resident memory** of the command's process (`os.wait4`'s `ru_maxrss`) and, for the stages that run on
  the executor, of each Ray worker (the stage's `stats.executor.worker_peak_rss_mb`);
- the counts a reader checks: documents, tools, domains, worlds, function sets, tasks, episodes, kept.

Rungs are documents of the recipe's `npm:` source drawn with a seed (`--rungs 100,300`: the first 100 and 300
of one seeded order, so the smaller rung is part of the larger); `--rungs all` is the recipe itself (its
other sources too). With `--speedup`, the per-environment stages of the first rung run again with 1 and 2
workers side by side (1, 2, 1, 2, ... `--repeats` times; the median of each) and the ratio is printed: stage
commands one at a time (each pays its own start: the process, imports, Ray), and the four as one `envscale run`
(as a user runs the recipe: one start).

```bash
python bench/scale.py --rungs 100,300 --speedup --out /tmp/scale          # rungs and the speed-up
python bench/scale.py --recipe recipes/scale.yaml --rungs all --out /tmp/scale  # the scale run (about an hour)
python bench/scale.py --rungs all --out /tmp/scale-all                     # the whole selection (~2.5 hours)
```

The figures go to stdout and, with `--json`, to a file; BENCHMARKS.md keeps the results with this command.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from envscale.artifacts import open_artifact
from envscale.safe_yaml import load_yaml

ROOT = Path(__file__).resolve().parent.parent
STAGES = ("collect", "graph", "materialize", "tasks", "rollout", "filter")
SHARDED = ("materialize", "tasks", "rollout", "filter")
INPUT = {
    "graph": "api_pool",
    "materialize": "graph",
    "tasks": "environments",
    "rollout": "tasks",
    "filter": "trajectories",
}
OUTPUT = {"collect": "api_pool", "graph": "graph", "materialize": "environments", "tasks": "tasks",
          "rollout": "trajectories", "filter": "filtered"}  # fmt: skip


def rung_recipe(recipe_path: Path, documents: int | None, seed: int, out: Path) -> Path:
    """The recipe of one rung: the first `documents` npm members of a seeded order (`None`: the recipe as is)."""
    recipe = load_yaml(recipe_path.read_text())
    if documents is not None:
        npm = next(s for s in recipe["collect"]["sources"] if isinstance(s, str) and s.startswith("npm:"))
        head, _, members = npm.partition("!")
        members = sorted(m.strip() for m in members.split(",") if m.strip())
        random.Random(seed).shuffle(members)
        recipe["collect"]["sources"] = [f"{head}!{','.join(members[:documents])}"]
    recipe.pop("output_dir", None)
    recipe.pop("executor", None)  # given as flags, so the speed-up runs can differ in workers only
    collect = recipe["collect"]
    collect["sources"] = [
        s if not isinstance(s, str) or not s.startswith(("openapi:", "json:")) else
        s.split(":", 1)[0] + ":" + str((recipe_path.parent / s.split(":", 1)[1]).resolve())
        for s in collect["sources"]
    ]  # fmt: skip
    path = out / "recipe.yaml"
    path.write_text(json.dumps(recipe, indent=1))  # JSON is YAML
    return path


def run_stage(stage: str, recipe: Path, folder: Path, workers: int, output: Path | None = None) -> dict:
    """One stage command in its own process: wall time, its peak memory, and its manifest."""
    output = output or folder / OUTPUT[stage]
    cmd = [
        str(Path(sys.executable).parent / "envscale"),
        stage,
        "--config",
        str(recipe),
        "--output",
        str(output),
    ]
    if stage in INPUT:
        cmd += ["--input", str(folder / INPUT[stage])]
    if stage in SHARDED:
        cmd += ["--executor", "ray", "--workers", str(workers)]
    log = output.parent / f"{output.name}.log"  # a file, not a pipe: a full pipe would stop the stage
    start = time.perf_counter()
    with log.open("w") as err_file:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err_file)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = log.read_text(errors="replace")
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):  # 1: a source failed, which the report shows
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err[-3000:]}")
    art = open_artifact(output)
    return {
        "stage": stage,
        "wall_s": round(wall, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "worker_peak_rss_mb": (art.manifest["stats"].get("executor") or {}).get("worker_peak_rss_mb"),
        "counts": art.manifest["counts"],
        "stats": art.manifest["stats"],
    }


def units(stage: str, result: dict, runs: dict) -> tuple[str, int]:
    """What one unit of a stage is, and how many it handled."""
    stats = result["stats"]
    if stage == "collect":
        return "tool", result["counts"].get("api_pool", 0)
    if stage == "graph":
        return "tool", runs["collect"]["counts"].get("api_pool", 0)
    if stage == "materialize":
        return "domain", stats.get("domains", 0)
    if stage == "tasks":
        return "world", stats.get("worlds", 0)
    return "episode", stats.get("episodes", stats.get("trajectories", 0))


def rung(recipe_path: Path, documents: int | None, args: argparse.Namespace) -> dict:
    folder = args.out / (f"rung-{documents}" if documents else "full")
    folder.mkdir(parents=True, exist_ok=True)
    recipe = rung_recipe(recipe_path, documents, args.seed, folder)
    runs: dict[str, dict] = {}
    done_file = folder / "stages.json"  # each finished stage's figures: `--resume` reuses them
    done = json.loads(done_file.read_text()) if args.resume and done_file.is_file() else {}
    for stage in STAGES:
        if stage in done:
            art = open_artifact(folder / OUTPUT[stage])  # still there and complete
            runs[stage] = done[stage] | {"counts": art.manifest["counts"], "stats": art.manifest["stats"]}
        else:
            runs[stage] = run_stage(stage, recipe, folder, args.workers)
            done[stage] = {
                k: runs[stage][k] for k in ("stage", "wall_s", "peak_rss_mb", "worker_peak_rss_mb")
            }
            done_file.write_text(json.dumps(done, indent=1))
        unit, n = units(stage, runs[stage], runs)
        runs[stage] |= {
            "unit": unit,
            "units": n,
            "ms_per_unit": round(1000 * runs[stage]["wall_s"] / n, 1) if n else None,
        }
        r = runs[stage]
        print(
            f"  {stage:<11} {r['wall_s']:>8.1f} s  {r['units']:>7} {unit}s  {r['ms_per_unit'] or 0:>8.1f} ms/{unit}"
            f"  peak {r['peak_rss_mb']:>6.0f} MiB  workers {r['worker_peak_rss_mb'] or '-'}",
            flush=True,
        )
    envs, tasks, filtered = runs["materialize"]["stats"], runs["tasks"]["stats"], runs["filter"]["stats"]
    summary = {
        "documents": documents or "all",
        "tools": runs["collect"]["counts"].get("api_pool"),
        "domains": envs.get("domains"),
        "environments": envs.get("verified"),
        "worlds": envs.get("worlds"),
        "function_sets": envs.get("function_sets"),
        "tasks": tasks.get("tasks"),
        "worlds_with_tasks": tasks.get("environments_with_tasks"),
        "episodes": runs["rollout"]["stats"].get("episodes"),
        "kept": filtered.get("passed"),
        "total_s": round(sum(r["wall_s"] for r in runs.values()), 1),
        "stages": {k: {x: v[x] for x in ("wall_s", "peak_rss_mb", "worker_peak_rss_mb", "unit", "units", "ms_per_unit")}
                   for k, v in runs.items()},
    }  # fmt: skip
    print(
        f"rung {summary['documents']}: {summary['tools']} tools, {summary['environments']} environments "
        f"({summary['worlds']} worlds, {summary['function_sets']} function sets), {summary['tasks']} tasks, "
        f"{summary['episodes']} episodes, {summary['kept']} kept; {summary['total_s']:.0f} s",
        flush=True,
    )
    return summary


def speedup(recipe_path: Path, documents: int | None, args: argparse.Namespace) -> dict:
    """The per-environment stages of a finished rung again with 1 and 2 workers, alternating."""
    folder = args.out / (f"rung-{documents}" if documents else "full")
    recipe = folder / "recipe.yaml"
    times: dict[str, dict[int, list[float]]] = {s: {1: [], 2: []} for s in SHARDED}
    result: dict = {}
    for repeat in range(args.repeats if args.speedup in ("stages", "both") else 0):
        for stage in SHARDED:
            for workers in (1, 2):
                out = args.out / f"speedup-{stage}-{workers}-{repeat}"
                times[stage][workers].append(run_stage(stage, recipe, folder, workers, out)["wall_s"])
    for stage in SHARDED if args.speedup in ("stages", "both") else ():
        one, two = statistics.median(times[stage][1]), statistics.median(times[stage][2])
        result[stage] = {"1_worker_s": one, "2_workers_s": two, "speedup": round(one / two, 2)}
        print(
            f"  speed-up {stage:<11} 1 worker {one:>7.1f} s  2 workers {two:>7.1f} s  x{one / two:.2f}",
            flush=True,
        )
    if args.speedup in ("stages", "both"):
        one = sum(statistics.median(times[s][1]) for s in SHARDED)
        two = sum(statistics.median(times[s][2]) for s in SHARDED)
        result["per_environment_stages"] = {
            "1_worker_s": round(one, 1),
            "2_workers_s": round(two, 1),
            "speedup": round(one / two, 2),
        }
        print(f"  speed-up, the four stage commands together: x{one / two:.2f}", flush=True)
    if args.speedup == "stages":
        return result
    times_run: dict[int, list[float]] = {1: [], 2: []}
    narrow: list[float] = []  # 2 workers with `--compare-window` shards ahead, beside the default window
    for repeat in range(args.repeats):
        for workers in (1, 2):
            times_run[workers].append(
                run_pipeline(recipe, folder, workers, args.out / f"speedup-run-{workers}-{repeat}")
            )
        if args.compare_window:
            out = args.out / f"speedup-run-2-window{args.compare_window}-{repeat}"
            narrow.append(run_pipeline(recipe, folder, 2, out, window=args.compare_window))
    one, two = statistics.median(times_run[1]), statistics.median(times_run[2])
    result["one_run"] = {
        "1_worker_s": round(one, 1),
        "2_workers_s": round(two, 1),
        "speedup": round(one / two, 2),
    }
    print(
        f"  speed-up, `envscale run` of the four stages: 1 worker {one:>7.1f} s  2 workers {two:>7.1f} s  "
        f"x{one / two:.2f}",
        flush=True,
    )
    if narrow:
        other = statistics.median(narrow)
        result["one_run"]["compare_window"] = {
            "window": args.compare_window,
            "2_workers_s": round(other, 1),
            "speedup": round(one / other, 2),
            "default_window_gain": round(other / two, 2),
        }
        print(
            f"  2 workers with --window {args.compare_window}: {other:>7.1f} s (1 -> 2 x{one / other:.2f}); "
            f"the default window is x{other / two:.2f} faster",
            flush=True,
        )
    return result


def run_pipeline(recipe: Path, folder: Path, workers: int, out: Path, window: int | None = None) -> float:
    """`envscale run` as a user runs it, over a copy of the rung's collect and graph outputs (which it skips as
    complete): materialize -> filter in one process, one Ray start. Its wall time."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for stage in ("collect", "graph"):
        shutil.copytree(folder / OUTPUT[stage], out / OUTPUT[stage])
    cmd = [str(Path(sys.executable).parent / "envscale"), "run", str(recipe), "--output-dir", str(out)]
    cmd += ["--executor", "ray", "--workers", str(workers)]
    if window:
        cmd += ["--window", str(window)]
    log = out / "run.log"
    start = time.perf_counter()
    with log.open("w") as err_file:
        proc = subprocess.run(cmd, cwd=ROOT, stdout=err_file, stderr=subprocess.STDOUT, check=False)
    wall = time.perf_counter() - start
    text = log.read_text(errors="replace")
    if proc.returncode not in (0, 1) or "[collect] skipped" not in text or "[graph] skipped" not in text:
        raise SystemExit(
            f"{' '.join(cmd)} failed or redid collect/graph ({proc.returncode}):\n{text[-3000:]}"
        )
    return wall


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--recipe", type=Path, default=ROOT / "recipes/scale-all.yaml")
    parser.add_argument("--rungs", default="100,300", help="documents per rung, or `all` (the recipe as is)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the documents' order")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--speedup",
        nargs="?",
        const="both",
        choices=("stages", "run", "both"),
        help="1 vs 2 workers on the first rung: each stage command, one `envscale run` of the four, or both",
    )
    parser.add_argument("--repeats", type=int, default=1, help="speed-up runs per worker count (median)")
    parser.add_argument(
        "--compare-window",
        type=int,
        default=None,
        help="with --speedup run: also 2 workers with this many shards ahead (`--window`), side by side",
    )
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--resume", action="store_true", help="reuse the stages a stopped run finished")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    rungs = [None if r.strip() == "all" else int(r) for r in args.rungs.split(",")]
    report: dict = {"rungs": []}
    for documents in rungs:
        print(f"rung {documents or 'all'}:", flush=True)
        report["rungs"].append(rung(args.recipe, documents, args))
        if args.json:
            args.json.write_text(json.dumps(report, indent=1))
    if args.speedup:
        report["speedup"] = speedup(args.recipe, rungs[0], args)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
