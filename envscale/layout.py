"""How an artifact version lies on disk: the manifest's file name, shard names, rows per split.

The bottom of the artifact store, shared by :mod:`envscale.artifacts` (which writes and reads versions)
and :mod:`envscale.cards` (which describes them).

Example:

```python
>>> from envscale.layout import split_counts
>>> split_counts({"counts": {"tasks": 3, "rejected": 1}, "splits": {"tasks": {"train": 2, "test": 1}}})
{'tasks': {'train': 2, 'test': 1}, 'rejected': {'train': 1}}
```
"""

from __future__ import annotations

from pathlib import Path

#: The manifest of a version: kind, schema version, counts, fingerprint, inputs, config.
MANIFEST = "envscale.json"


def shard_files(folder: Path, split: str, data_id: str) -> list[Path]:
    """The parquet shards of one split of a config folder written with `data_id`, in order."""
    return sorted(Path(folder).glob(f"{split}-{data_id}-*.parquet"))


def split_counts(manifest: dict) -> dict[str, dict[str, int]]:
    """Rows per config and split of a (checked) manifest; a config without `splits` is all `train`."""
    recorded = manifest.get("splits") or {}
    return {
        config: dict(recorded[config]) if config in recorded else {"train": total}
        for config, total in manifest["counts"].items()
    }
