"""Scale of the graph stage: wall time per phase and peak RSS at 1k, 3k, 10k and 30k tools.

Pools are built from the real BFCL function docs (with their output schemas), perturbed into N
distinct tools and collected with the real `collect` stage. For each size, in fresh child
processes, side by side:

- the stage with a cold embedding cache, then warm (targets at 30k: <= 5 min cold, <= 60 s warm,
  peak RSS <= 4 GB; the embedding workers' peak RSS is printed beside the stage's own);
- `model.encode` called directly on the same unique texts the stage embedded (target: the
  stage's embedding time within 1.3x of it);
- community detection with igraph (the default) and with networkx on the same graph.

Usage:

```bash
python bench/graph_scale.py                          # 1k 3k 10k 30k
python bench/graph_scale.py --sizes 1000 3000
```
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def make_pool(n: int, work: Path) -> str:
    """Collect an api_pool of `n` perturbed real tools (with output schemas where BFCL has them)."""
    from envscale.sources.base import RawTool, SourceInfo
    from envscale.sources.collect import CollectConfig, collect
    from envscale.sources.json_docs import read_archive
    from envscale.sources.pypi import fetch_wheel

    members = [
        "bfcl_eval/data/BFCL_v4_simple_*.json",
        "bfcl_eval/data/BFCL_v4_live_*.json",
        "bfcl_eval/data/BFCL_v4_multiple.json",
        "bfcl_eval/data/multi_turn_func_doc/*.json",
    ]
    seen, base = set(), []
    for t in read_archive(fetch_wheel("bfcl-eval==2026.3.23"), members, SourceInfo("b", "pypi")):
        if isinstance(t, RawTool) and isinstance(t.name, str) and isinstance(t.parameters, dict):
            key = (t.name, str(t.description))
            if key not in seen:
                seen.add(key)
                base.append(
                    {
                        "name": t.name,
                        "description": t.description or "",
                        "parameters": t.parameters,
                        "response": t.output_schema,
                    }
                )
    rng = random.Random(n)
    path = work / f"tools_{n}.jsonl"
    with path.open("w") as fh:
        for i in range(n):
            doc = json.loads(json.dumps(base[i % len(base)]))
            doc["name"] = f"{doc['name']}_v{i}"
            doc["description"] = (
                f"{doc['description']} ({rng.choice(['fast', 'bulk', 'eu', 'beta', 'pro'])} variant {i})"
            )
            fh.write(json.dumps(doc) + "\n")
    os.environ["TQDM_DISABLE"] = "1"
    collect(CollectConfig(sources=[f"json:{path}"]), work / f"pool_{n}")
    return str(work / f"pool_{n}")


def child(mode: str, pool: str, out: str, cache: str) -> None:
    from envscale.entry import configure_process

    configure_process()
    from envscale.artifacts import open_artifact
    from envscale.graph.build import GraphConfig, build_graph, load_tools

    art = open_artifact(pool)
    if mode in ("networkx", "igraph"):
        import resource

        start = time.perf_counter()
        graph = build_graph(art, GraphConfig(embedding_cache=cache, community_backend=mode), out)
        stats = graph.manifest["stats"]
        print(
            json.dumps(
                {
                    "wall_s": time.perf_counter() - start,
                    "peak_rss_mb": peak_rss_mb(),
                    # the largest child (an embedding worker); workers have exited by now
                    "workers_peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
                    "timings": stats["timings"],
                    "communities": stats["communities"],
                    "domains": stats["domains"],
                    "edges": stats["edges"],
                    "embedding": stats["embedding"],
                }
            )
        )
        return
    # mode == "encode": the same unique texts the stage embeds, straight through model.encode.
    from envscale.graph.embeddings import Embedder

    tools = load_tools(art.load("api_pool"))
    texts = [t.text for t in tools]
    for t in tools:
        texts += [x for _, x, _ in t.outputs] + [x for _, x, _ in t.inputs]
    unique = list(dict.fromkeys(texts))
    emb = Embedder(cache_dir=None)
    model = emb.model
    start = time.perf_counter()
    model.encode(unique, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
    encode_s = time.perf_counter() - start
    lengths = emb.token_lengths(unique)
    print(json.dumps({"encode_s": encode_s, "unique": len(unique), "tokens": sum(lengths)}))


def run_child(*args: str) -> dict:
    env = {**os.environ, "TQDM_DISABLE": "1", "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run(
        [sys.executable, __file__, "--child", *args], capture_output=True, text=True, env=env, check=False
    )
    if proc.returncode != 0:
        raise RuntimeError(f"child {args[0]} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000, 30000])
    parser.add_argument(
        "--runs",
        nargs="+",
        default=["cold", "warm", "networkx", "encode"],
        choices=["cold", "warm", "networkx", "encode"],
        help="which measurements to make",
    )
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    print(
        f"{'tools':>6s} {'run':>5s} {'wall s':>7s} {'embed s':>8s} {'encoded':>8s} {'semantic s':>10s} "
        f"{'dep s':>6s} {'louvain s':>9s} {'domains':>7s} {'edges':>8s} {'peak MB':>8s} {'workers':>7s} {'worker MB':>9s}"
    )
    summary = []
    with tempfile.TemporaryDirectory(prefix="envscale-gs-") as tmp:
        work = Path(tmp)
        for n in args.sizes:
            pool = make_pool(n, work)
            cache = str(work / f"cache_{n}")
            runs = {}
            for name in ("cold", "warm", "networkx"):  # warm and networkx reuse the cache cold filled
                if name in args.runs or (name == "cold" and {"warm", "networkx"} & set(args.runs)):
                    backend = "networkx" if name == "networkx" else "igraph"
                    runs[name] = run_child(backend, pool, str(work / f"g{n}{name}"), cache)
            for name, r in runs.items():
                t = r["timings"]
                print(
                    f"{n:>6d} {name:>5s} {r['wall_s']:7.1f} {t.get('embed_s', 0):8.1f} {r['embedding']['encoded']:8d} "
                    f"{t.get('semantic_s', 0):10.1f} {t.get('dependency_match_s', 0):6.2f} "
                    f"{r['communities']['louvain_seconds']:9.2f} {r['domains']:7d} {sum(r['edges'].values()):8d} "
                    f"{r['peak_rss_mb']:8.0f} {r['embedding'].get('processes', 1):7d} {r['workers_peak_mb']:9.0f}"
                )
            nan = float("nan")
            enc = (
                run_child("encode", pool, "-", "-")
                if "encode" in args.runs
                else {"encode_s": nan, "unique": 0, "tokens": 0}
            )
            missing = {"wall_s": nan, "timings": {}, "communities": {"louvain_seconds": nan}}
            cold, warm, nx = (runs.get(k, missing) for k in ("cold", "warm", "networkx"))
            peak = max((r["peak_rss_mb"] for r in runs.values()), default=nan)
            summary.append(
                (
                    n,
                    cold["timings"].get("embed_s", nan),
                    enc["encode_s"],
                    enc["unique"],
                    enc["tokens"],
                    nx["communities"]["louvain_seconds"],
                    cold["communities"]["louvain_seconds"],
                    cold["wall_s"],
                    warm["wall_s"],
                    peak,
                )
            )
            sys.stdout.flush()
    print("\nside by side")
    print(
        f"{'tools':>6s} {'unique texts':>12s} {'tokens':>8s} {'stage embed s':>13s} {'model.encode s':>14s} {'ratio':>6s} "
        f"{'networkx s':>10s} {'igraph s':>8s} {'nx/ig':>6s} {'cold s':>7s} {'warm s':>7s} {'peak MB':>8s}"
    )
    for n, se, me, unique, tokens, nx_s, ig_s, cold, warm, peak in summary:
        print(
            f"{n:>6d} {unique:>12d} {tokens:>8d} {se:13.1f} {me:14.1f} {se / me:6.2f} {nx_s:10.2f} {ig_s:8.2f} "
            f"{nx_s / max(ig_s, 1e-9):6.1f} {cold:7.1f} {warm:7.1f} {peak:8.0f}"
        )
    print("targets at 30k: cold <= 300 s, warm <= 60 s, peak <= 4096 MB, embed ratio <= 1.3")


if __name__ == "__main__":
    main()
