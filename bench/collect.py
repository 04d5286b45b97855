"""Benchmark of the collect stage: normalisation throughput and peak memory at 30,000 tools.

The tools are built by perturbing the real function docs shipped in the BFCL wheel (renamed,
descriptions varied, properties added and reordered), written as one JSON Lines file.
Each measurement runs in a fresh child process pinned to one core, side by side with its
baseline in the same run:

- throughput: `normalize_tool` over the raw tools, and the whole `collect` stage (read, parse,
  normalise, write parquet, deduplicate) against the target of 5,000 tools/s and against the
  floor cost of `json.loads` on the same lines;
- memory: peak RSS of the streaming `collect` at growing input sizes, beside a naive loader
  that reads the file whole and builds a `datasets.Dataset` in memory.

Usage:

```bash
python bench/collect.py                      # 30,000 tools, memory at 10k/30k/90k
python bench/collect.py --tools 30000 --memory-sizes 10000 30000 90000 --repeats 3
```
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_TOOLS_PER_S = 5_000
BFCL = "bfcl-eval==2026.3.23"
MEMBERS = [
    "bfcl_eval/data/BFCL_v4_simple_*.json",
    "bfcl_eval/data/BFCL_v4_live_*.json",
    "bfcl_eval/data/BFCL_v4_multiple.json",
    "bfcl_eval/data/multi_turn_func_doc/*.json",
]


def real_tools() -> list[dict]:
    """Unique real function docs from the BFCL wheel (as found, not normalised)."""
    from envscale.sources.base import RawTool, SourceInfo
    from envscale.sources.json_docs import read_archive
    from envscale.sources.pypi import fetch_wheel

    seen, tools = set(), []
    for item in read_archive(fetch_wheel(BFCL), MEMBERS, SourceInfo("bench", "pypi")):
        if isinstance(item, RawTool) and isinstance(item.name, str):
            doc = {"name": item.name, "description": item.description, "parameters": item.parameters}
            key = json.dumps(doc, sort_keys=True)
            if key not in seen:
                seen.add(key)
                tools.append(doc)
    return tools


def perturbed(base: list[dict], n: int, seed: int = 0) -> list[dict]:
    """`n` distinct tools made from real ones: renamed, re-described, one property added, shuffled."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        doc = json.loads(json.dumps(base[i % len(base)]))
        doc["name"] = f"{doc['name']}_v{i}"
        doc["description"] = (
            f"{doc.get('description') or ''} (variant {i}: {rng.choice(['fast', 'bulk', 'eu', 'beta'])})"
        )
        params = doc.get("parameters")
        if isinstance(params, dict) and isinstance(params.get("properties"), dict):
            props = list(params["properties"].items())
            props.append(
                (
                    f"extra_{i % 7}",
                    {
                        "type": rng.choice(["string", "integer", "float", "boolean"]),
                        "description": "An added option.",
                    },
                )
            )
            rng.shuffle(props)
            params["properties"] = dict(props)
        out.append(doc)
    return out


def write_jsonl(tools: list[dict], path: Path) -> None:
    with path.open("w") as fh:
        for doc in tools:
            fh.write(json.dumps(doc) + "\n")


# ----------------------------------------------------------------------------- child measurements


def _pin_one_core() -> None:
    from envscale.entry import configure_process

    configure_process()  # what `envscale` does at start-up
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    import pyarrow as pa

    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)


def child(mode: str, path: str, out_dir: str) -> None:
    """One measurement in this (fresh) process; prints a JSON line."""
    _pin_one_core()
    lines = Path(path).read_text().splitlines() if mode in ("parse", "normalize") else None
    # Imports happen before the clock starts: they are a constant, not throughput.
    from datasets import Dataset

    from envscale.sources.base import RawTool
    from envscale.sources.collect import CollectConfig, collect
    from envscale.sources.normalize import normalize_tool

    start = time.perf_counter()
    if mode == "parse":
        n = sum(1 for line in lines if json.loads(line))
    elif mode == "normalize":
        for i, line in enumerate(lines):
            doc = json.loads(line)
            normalize_tool(
                RawTool(
                    name=doc["name"],
                    description=doc.get("description"),
                    parameters=doc.get("parameters"),
                    position=f"{path}:{i}",
                )
            )
        n = len(lines)
    elif mode == "collect":
        art = collect(CollectConfig(sources=[f"json:{path}"]), out_dir)
        n = art.manifest["stats"]["totals"]["read"]
    elif mode == "naive":  # the baseline for memory: read everything, build one in-memory Dataset
        docs = [json.loads(line) for line in Path(path).read_text().splitlines()]
        for d in docs:
            d["parameters"] = json.dumps(d.get("parameters"))
        ds = Dataset.from_list(docs)
        n = ds.num_rows
    else:
        raise ValueError(mode)
    seconds = time.perf_counter() - start
    print(json.dumps({"mode": mode, "tools": n, "seconds": seconds, "peak_rss_mb": peak_rss_mb()}))


def peak_rss_mb() -> float:
    """This process's peak resident memory. VmHWM, not ru_maxrss: Linux carries ru_maxrss over
    exec from the forked parent, so a child would report the parent's memory."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_child(mode: str, path: Path, work: Path) -> dict:
    out_dir = tempfile.mkdtemp(dir=work)
    env = {**os.environ, "TQDM_DISABLE": "1", "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, __file__, "--child", mode, str(path), out_dir],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{mode} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tools", type=int, default=30_000, help="tools for the throughput measurement")
    parser.add_argument("--memory-sizes", type=int, nargs="+", default=[10_000, 30_000, 90_000])
    parser.add_argument("--repeats", type=int, default=3, help="repeats per throughput measurement (median)")
    parser.add_argument("--child", nargs=3, metavar=("MODE", "PATH", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return

    base = real_tools()
    print(f"real BFCL function docs: {len(base)} unique; perturbed to {args.tools:,} tools")
    with tempfile.TemporaryDirectory(prefix="envscale-bench-") as tmp:
        work = Path(tmp)
        data = work / f"tools_{args.tools}.jsonl"
        write_jsonl(perturbed(base, args.tools), data)
        rates: dict[str, list[float]] = {"parse": [], "normalize": [], "collect": []}
        for _ in range(args.repeats):  # interleaved, so drift on a noisy machine hits all alike
            for mode in rates:
                r = run_child(mode, data, work)
                rates[mode].append(r["tools"] / r["seconds"])
        med = {m: statistics.median(v) for m, v in rates.items()}
        print(f"\nthroughput on one core, {args.tools:,} tools, median of {args.repeats} (tools/s)")
        print(f"  {'json.loads only (floor)':32s} {med['parse']:>10,.0f}")
        for mode, label in (
            ("normalize", "normalize_tool (parse+normalise)"),
            ("collect", "collect stage end to end"),
        ):
            print(
                f"  {label:32s} {med[mode]:>10,.0f}   x{med[mode] / TARGET_TOOLS_PER_S:.2f} of the "
                f"{TARGET_TOOLS_PER_S:,}/s target   {med['parse'] / med[mode]:.1f}x the cost of json.loads"
            )

        print("\npeak RSS (MB) by input size: streaming collect vs naive in-memory load")
        print(f"  {'tools':>8s} {'file MB':>8s} {'collect':>9s} {'naive':>9s} {'naive/collect':>14s}")
        for n in args.memory_sizes:
            path = work / f"mem_{n}.jsonl"
            write_jsonl(perturbed(base, n, seed=n), path)
            c, v = run_child("collect", path, work), run_child("naive", path, work)
            size = path.stat().st_size / 1e6
            print(
                f"  {n:>8,} {size:>8.1f} {c['peak_rss_mb']:>9.0f} {v['peak_rss_mb']:>9.0f} "
                f"{v['peak_rss_mb'] / c['peak_rss_mb']:>13.2f}x"
            )
            path.unlink()


if __name__ == "__main__":
    main()
