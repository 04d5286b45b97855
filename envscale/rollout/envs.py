"""Fresh environments for many concurrent episodes, without building one per episode.

Building an environment (validating its spec, compiling its tools, generating its initial state) costs
tens of milliseconds, seconds for a large state. So each (environment, seed) pair is built once, in a
worker thread, and shared: every episode holds only its own state, the database image of where its
calls have taken it (`EpisodeEnvironment`). A step restores that image into the shared environment
when another episode used it last (a fraction of a millisecond), runs the call, and keeps the new image
when a write succeeded; steps of one shared environment take turns under its lock. An episode sees a
fresh environment of its own, and a thousand episodes of one environment cost one build.

Built environments are kept for the most recently used `max_images` pairs (one in use is never
evicted), so memory stays bounded over 30,000 environments.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import OrderedDict
from typing import Any

from ..env import Environment
from ..tasks.score import reset_env


#: Builds take turns. They are rare (one per environment and seed) and mostly Python work that would not
#: run in parallel anyway; in parallel, first-time imports in several threads have hit a CPython 3.11 race
#: in the compiler ("AST constructor recursion depth mismatch", gh-106905) that broke later imports.
_BUILD_LOCK = threading.Lock()


class _Shared:
    """One built environment, the image of its initial state, and who used it last."""

    def __init__(self, env: Environment, initial: bytes):
        self.env, self.initial = env, initial
        self.lock = threading.Lock()
        self.owner: object | None = None  # the episode whose state the environment holds now
        self.users = 0  # episodes holding it
        self.write_tools = {t["name"] for t in env.spec["tools"] if t.get("kind") == "write"}


class EpisodeEnvironment:
    """One episode's environment: its own state over a shared build (see the module docstring).

    Offers what an episode uses of `Environment`: `name`, `spec`, `step`, `state_hash`,
    `openai_tools`, `tool_names`, `snapshot`. Thread-safe.
    """

    def __init__(self, shared: _Shared):
        self._shared = shared
        self._state = shared.initial
        self.name, self.spec = shared.env.name, shared.env.spec

    def _hold(self) -> Environment:
        shared = self._shared
        if shared.owner is not self:
            shared.env.restore(self._state)
            shared.owner = self
        return shared.env

    def step(self, tool: str, arguments: Any = None) -> dict[str, Any]:
        with self._shared.lock:
            env = self._hold()
            obs = env.step(tool, arguments)
            if obs.get("ok") and tool in self._shared.write_tools:
                self._state = env.snapshot()
            return obs

    def state_hash(self) -> str:
        with self._shared.lock:
            return self._hold().state_hash()

    def snapshot(self) -> bytes:
        return self._state

    def openai_tools(self) -> list[dict[str, Any]]:
        return self._shared.env.openai_tools()

    def tool_names(self) -> list[str]:
        return self._shared.env.tool_names()


class EnvironmentPool:
    """Environments by name from an `environments` dataset (its `name` and `spec` columns).

    Args:
        dataset: The `environments` config (a `datasets.Dataset`, rows fetched on demand by index).
        max_images (`int`): (environment, seed) builds kept when no episode uses them.
        executor: Where builds run (`None`: the event loop's default thread pool).
    """

    def __init__(self, dataset: Any, *, max_images: int = 64, executor: Any = None):
        self.dataset = dataset
        self.index = {name: i for i, name in enumerate(dataset["name"])}
        self.max_images, self.executor = max_images, executor
        self._built: OrderedDict[tuple[str, Any], _Shared] = OrderedDict()
        self._building: dict[tuple[str, Any], asyncio.Future] = {}
        self.builds = 0

    def row(self, name: str) -> dict:
        """The environment's dataset row; a `KeyError` naming it when there is none."""
        if name not in self.index:
            raise KeyError(f"no environment {name!r} in the environments artifact")
        return self.dataset[self.index[name]]

    def _build(self, name: str, seed: Any) -> _Shared:
        with _BUILD_LOCK:
            return self._build_one(name, seed)

    def _build_one(self, name: str, seed: Any) -> _Shared:
        spec = self.row(name)["spec"]
        env = Environment(json.loads(spec) if isinstance(spec, str) else spec)
        try:
            reset_env(env, seed)
            return _Shared(env, env.snapshot())
        except BaseException:
            env.close()
            raise

    async def acquire(self, name: str, seed: Any) -> EpisodeEnvironment:
        """An environment of `name` in the initial state of `seed`, for one episode (give it back with `release`)."""
        key = (name, seed)
        shared = self._built.get(key)
        if shared is None:
            if key not in self._building:  # one build, however many episodes wait for it
                loop = asyncio.get_running_loop()
                self._building[key] = loop.run_in_executor(self.executor, self._build, name, seed)
                self.builds += 1
            future = self._building[key]
            try:
                shared = await asyncio.shield(future)
            finally:
                if future.done() and self._building.get(key) is future:
                    del self._building[key]
            self._built.setdefault(key, shared)
            shared = self._built[key]
        self._built.move_to_end(key)
        shared.users += 1
        self._evict()
        return EpisodeEnvironment(shared)

    def release(self, env: EpisodeEnvironment) -> None:
        """The episode is over: its environment may be evicted when it is the least recently used."""
        env._shared.users -= 1
        if env._shared.owner is env:
            env._shared.owner = None
        self._evict()

    def _evict(self) -> None:
        idle = [k for k, s in self._built.items() if s.users == 0]
        for key in idle[: max(0, len(self._built) - self.max_images)]:
            self._built.pop(key).env.close()

    def close(self) -> None:
        for shared in self._built.values():
            shared.env.close()
        self._built.clear()
