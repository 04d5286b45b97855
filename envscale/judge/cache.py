"""Environments built from dataset rows, each built once per process: what judging many trajectories needs.

Building an environment generates its initial state (1.4 s for the 33,000-row shop of
`bench/env_step.py`); a kept one is reset from its database image in well under a millisecond, so
with an `EnvironmentCache` every trajectory after an environment's first costs a reset, the replay
and a hash.

Example:

```python
>>> from envscale.env import load_spec
>>> from envscale.judge.cache import EnvironmentCache
>>> envs = EnvironmentCache()
>>> row = {"name": "shop", "spec": load_spec("tests/fixtures/envs/shop.yaml")}
>>> envs.get(row) is envs.get(dict(row))  # built once
True
>>> envs.close()
```
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from envscale.env import Environment

__all__ = ["EnvironmentCache"]


class EnvironmentCache:
    """Environments built from dataset rows, kept by spec so that each is built once per process.

    Rows are matched by the content of their `spec` (a digest of its JSON), or by identity when the
    same spec object comes back. Not thread-safe: use one cache per worker.

    Args:
        max_size (`int`, *optional*, defaults to 8): Environments kept; the least recently used one
            is closed when a new one does not fit.
        **env_kwargs: Passed to `Environment.from_row` (`max_rows`, `time_limit_ms`).

    Example:

    ```python
    >>> from envscale.env import load_spec
    >>> envs = EnvironmentCache()
    >>> row = {"name": "shop", "spec": load_spec("tests/fixtures/envs/shop.yaml")}
    >>> envs.get(row) is envs.get(dict(row))  # built once
    True
    ```
    """

    def __init__(self, max_size: int = 8, **env_kwargs: Any):
        if not isinstance(max_size, int) or max_size < 1:
            raise ValueError(f"max_size must be a positive integer, got {max_size!r}")
        self.max_size = max_size
        self.env_kwargs = env_kwargs
        self._envs: OrderedDict[str, tuple[Any, Environment]] = OrderedDict()

    @staticmethod
    def key(spec: Any) -> str:
        """The digest a row's spec is kept under."""
        text = spec if isinstance(spec, str) else json.dumps(spec, sort_keys=True, default=str)
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()

    def get(self, row: Mapping[str, Any]) -> Environment:
        """The environment of a dataset row (with a `spec` column), built on first use."""
        spec = row.get("spec") if isinstance(row, Mapping) else None
        for key, (held, env) in self._envs.items():
            if held is spec and spec is not None:
                self._envs.move_to_end(key)
                return env
        key = self.key(spec)
        entry = self._envs.get(key)
        if entry is not None:
            self._envs[key] = (spec, entry[1])  # the newest object for the identity check
            self._envs.move_to_end(key)
            return entry[1]
        env = Environment.from_row(row, **self.env_kwargs)
        self._envs[key] = (spec, env)
        while len(self._envs) > self.max_size:
            _, (_, old) = self._envs.popitem(last=False)
            old.close()
        return env

    def __len__(self) -> int:
        return len(self._envs)

    def close(self) -> None:
        """Close every kept environment."""
        for _, env in self._envs.values():
            env.close()
        self._envs.clear()
