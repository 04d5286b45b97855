"""Where the embedding speed of `envscale graph` comes from, side by side on the same texts.

Takes a sample of the unique texts the graph stage embeds for a pool of perturbed real BFCL tools
(the pool of `bench/graph_scale.py`) and encodes it, in alternating rounds, with:

- `model.encode`: sentence-transformers as called directly (sorted by characters, one process
  with a thread per core), the baseline;
- `token order`: the `Embedder`, in this process: texts ordered by token length, so a batch
  holds texts of one length and almost no padding is computed;
- `token order + workers`: the `Embedder` as the stage runs it on a large encode on a CPU: the
  same order, in one single-threaded worker process per core. The workers' start-up is timed
  apart, and the number of texts from which they pay for themselves is printed.

It also prints the padding each order computes. Medians of `--rounds` rounds.

Usage:

```bash
python bench/embed_speed.py                 # 4,000 texts, 3 rounds
python bench/embed_speed.py --texts 2000 --rounds 2
```
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def padding(lengths: list[int], order: list[int], batch: int) -> float:
    """Tokens computed / tokens present when `order` is cut into batches of `batch`."""
    ordered = [lengths[i] for i in order]
    computed = sum(
        max(ordered[i : i + batch]) * len(ordered[i : i + batch]) for i in range(0, len(ordered), batch)
    )
    return computed / sum(ordered)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", type=int, default=4000, help="texts in the sample")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pool-size", type=int, default=30000, help="tools in the pool sampled from")
    args = parser.parse_args()
    os.environ.setdefault("TQDM_DISABLE", "1")
    sys.path.insert(0, str(BENCH))
    from graph_scale import make_pool

    from envscale.artifacts import open_artifact
    from envscale.graph.build import load_tools
    from envscale.graph.embeddings import Embedder, usable_cores

    with tempfile.TemporaryDirectory(prefix="envscale-es-") as tmp:
        tools = load_tools(open_artifact(make_pool(args.pool_size, Path(tmp))).load("api_pool"))
    texts = [t.text for t in tools]
    for t in tools:
        texts += [x for _, x, _ in t.outputs] + [x for _, x, _ in t.inputs]
    unique = list(dict.fromkeys(texts))
    sample = random.Random(0).sample(unique, min(args.texts, len(unique)))

    here = Embedder(cache_dir=None, processes=1)
    model = here.model
    lengths = here.token_lengths(sample)
    by_chars = sorted(range(len(sample)), key=lambda i: -len(sample[i]))  # what model.encode does
    by_tokens = sorted(range(len(sample)), key=lambda i: lengths[i])
    print(
        f"{len(sample)} texts sampled from {len(unique)} unique texts of {len(tools)} tools, "
        f"{sum(lengths)} tokens; {usable_cores()} cores"
    )
    print(
        f"padding computed (batch 64): by characters {padding(lengths, by_chars, 64):.3f}x the tokens, "
        f"by tokens {padding(lengths, by_tokens, 64):.3f}x"
    )

    def baseline() -> None:
        model.encode(sample, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)

    def token_order() -> None:
        here.encode(sample)

    starts: list[float] = []

    def with_workers() -> None:
        with Embedder(cache_dir=None, pool_min_texts=1) as emb:
            start = time.perf_counter()
            emb.encode(["start"] * emb.processes * 2)  # every worker up, model loaded
            starts.append(time.perf_counter() - start)
            emb.encode(sample)

    runs = {"model.encode": baseline, "token order": token_order, "token order + workers": with_workers}
    baseline()  # warm-up
    times: dict[str, list[float]] = {name: [] for name in runs}
    for r in range(args.rounds):
        for name, fn in runs.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
        times["token order + workers"][-1] -= starts[-1]
        print(f"round {r + 1}: " + ", ".join(f"{n} {v[-1]:.1f}s" for n, v in times.items()), flush=True)
    base = statistics.median(times["model.encode"])
    print(f"\n{'encode':24s} {'median s':>9s} {'texts/s':>8s} {'speed-up':>9s}")
    for name, values in times.items():
        med = statistics.median(values)
        print(f"{name:24s} {med:9.1f} {len(sample) / med:8.1f} {base / med:8.2f}x")
    start_s = statistics.median(starts)
    per_text_saved = (
        statistics.median(times["token order"]) - statistics.median(times["token order + workers"])
    ) / len(sample)
    print(f"workers' start-up: {start_s:.1f}s (not in the times above)", end="")
    if per_text_saved > 0:
        print(f"; they pay for themselves from ~{start_s / per_text_saved:,.0f} texts")
    else:
        print("; no gain per text here")


if __name__ == "__main__":
    main()
