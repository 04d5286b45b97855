"""Fresh environments for many concurrent episodes, built once per environment and copied cheaply.

The first episode of an environment builds it from its `environments` row (generating its initial
state can take seconds for a large one) in a worker thread; after that, every episode gets an
environment restored from the database image of the task's initial state (`reset(seed)` then
`snapshot()`), which costs well under a millisecond. Idle environments are kept for reuse, a bounded
number per image, and images are kept for the most recently used `max_images` (environment, seed)
pairs, so memory stays bounded over 30,000 environments.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from typing import Any

from ..env import Environment
from ..tasks.score import reset_env


class EnvironmentPool:
    """Environments by name from an `environments` dataset (its `name` and `spec` columns).

    Args:
        dataset: The `environments` config (a `datasets.Dataset`, rows fetched on demand by index).
        max_images (`int`): (environment, seed) images kept.
        max_idle (`int`): Idle environments kept per image.
        executor: Where builds and restores run (`None`: the event loop's default thread pool).
    """

    def __init__(self, dataset: Any, *, max_images: int = 64, max_idle: int = 64, executor: Any = None):
        self.dataset = dataset
        self.index = {name: i for i, name in enumerate(dataset["name"])}
        self.max_images, self.max_idle, self.executor = max_images, max_idle, executor
        self._images: OrderedDict[tuple[str, Any], tuple[dict, bytes]] = OrderedDict()
        self._idle: dict[tuple[str, Any], list[Environment]] = {}
        self._building: dict[tuple[str, Any], asyncio.Future] = {}

    def row(self, name: str) -> dict:
        """The environment's dataset row; a `KeyError` naming it when there is none."""
        if name not in self.index:
            raise KeyError(f"no environment {name!r} in the environments artifact")
        return self.dataset[self.index[name]]

    def _build(self, name: str, seed: Any) -> tuple[dict, bytes]:
        row = self.row(name)
        spec = row["spec"]
        env = Environment(json.loads(spec) if isinstance(spec, str) else spec)
        try:
            reset_env(env, seed)
            return env.spec, env.snapshot()
        finally:
            env.close()

    async def _image(self, name: str, seed: Any) -> tuple[dict, bytes]:
        key = (name, seed)
        if key in self._images:
            self._images.move_to_end(key)
            return self._images[key]
        if key not in self._building:  # one build per image, however many episodes wait for it
            loop = asyncio.get_running_loop()
            self._building[key] = loop.run_in_executor(self.executor, self._build, name, seed)
        try:
            image = await asyncio.shield(self._building[key])
        finally:
            if self._building.get(key) is not None and self._building[key].done():
                self._building.pop(key, None)
        self._images[key] = image
        while len(self._images) > self.max_images:
            old, _ = self._images.popitem(last=False)
            for env in self._idle.pop(old, []):
                env.close()
        return image

    async def acquire(self, name: str, seed: Any) -> Environment:
        """An environment of `name` in the initial state of `seed`, for one episode."""
        spec, snapshot = await self._image(name, seed)
        idle = self._idle.get((name, seed))
        loop = asyncio.get_running_loop()
        if idle:
            env = idle.pop()
            await loop.run_in_executor(self.executor, env.restore, snapshot)
            return env
        return await loop.run_in_executor(self.executor, lambda: Environment(spec, snapshot=snapshot))

    def release(self, name: str, seed: Any, env: Environment) -> None:
        """Give an episode's environment back for reuse (closed when there is no room)."""
        key = (name, seed)
        idle = self._idle.setdefault(key, [])
        if key in self._images and len(idle) < self.max_idle:
            idle.append(env)
        else:
            env.close()

    def close(self) -> None:
        for envs in self._idle.values():
            for env in envs:
                env.close()
        self._idle.clear()
        self._images.clear()
