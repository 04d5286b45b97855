"""Fresh environments for many concurrent episodes, without building one per episode.

Building an environment (validating its spec, compiling its tools, generating its initial state) costs
tens of milliseconds, seconds for a large state. So each (environment, seed) pair is built once, in a
worker thread, and shared: every episode holds only its own state, the database image of where its
calls have taken it (`EpisodeEnvironment`). A step restores that image into the shared environment
when the environment holds another one (a fraction of a millisecond; episodes that have not written
share the initial image and never restore), runs the call, and keeps the new image when a write
succeeded; steps of one shared environment take turns under its lock. An episode sees a fresh
environment of its own, and a thousand episodes of one environment cost one build. The first episode
does not wait for the build to start talking: its first request to the agent overlaps it.

Built environments are kept for the most recently used `max_images` pairs (one in use is never
evicted), so memory stays bounded over 30,000 environments.
"""

from __future__ import annotations

import concurrent.futures
import json
import threading
from collections import OrderedDict
from typing import Any

from ..env import Environment
from ..env.runtime import openai_tools
from ..judge import reset_env
from .episode import write_tool_names

#: Builds take turns. They are rare (one per environment and seed) and mostly Python work that would not
#: run in parallel anyway; in parallel, first-time imports in several threads have hit a CPython 3.11 race
#: in the compiler ("AST constructor recursion depth mismatch", gh-106905) that broke later imports.
_BUILD_LOCK = threading.Lock()


class _Shared:
    """One built environment, the image of its initial state, and who used it last."""

    def __init__(self, env: Environment, initial: bytes):
        self.env, self.initial = env, initial
        self.lock = threading.Lock()
        # the state image the environment holds now: episodes still in the same state (every one that has
        # not written yet shares the initial image) need no restore
        self.holding = initial
        self.initial_hash = env.state_hash()
        self.write_tools = write_tool_names(env.spec)


class EpisodeEnvironment:
    """One episode's environment: its own state over a shared build (see the module docstring).

    Offers what an episode uses of `Environment`: `name`, `spec`, `step`, `state_hash`,
    `openai_tools`, `tool_names`, `snapshot`. Thread-safe. The build may still be running when the
    episode starts (its first request to the agent overlaps the build); `step` and `state_hash` wait
    for it, and `ready` is the build's future (its exception, if the build failed).
    """

    def __init__(self, spec: dict, ready: concurrent.futures.Future):
        self.spec, self.name, self.ready = spec, spec["name"], ready
        self._shared: _Shared | None = None
        self._state: bytes | None = None

    def _built(self) -> _Shared:
        if self._shared is None:
            self._shared = self.ready.result()
            self._state = self._shared.initial
        return self._shared

    def _hold(self) -> Environment:  # under the shared lock
        shared = self._shared
        if shared.holding is not self._state:
            shared.env.restore(self._state)
            shared.holding = self._state
        return shared.env

    def step(self, tool: str, arguments: Any = None) -> dict[str, Any]:
        shared = self._built()
        with shared.lock:
            env = self._hold()
            obs = env.step(tool, arguments)
            if obs.get("ok") and tool in shared.write_tools:
                self._state = shared.holding = env.snapshot()
            return obs

    def state_hash(self) -> str:
        shared = self._built()
        if self._state is shared.initial:
            return shared.initial_hash
        with shared.lock:
            return self._hold().state_hash()

    def snapshot(self) -> bytes:
        self.state_hash()  # the build is done
        return self._state

    def openai_tools(self) -> list[dict[str, Any]]:
        return openai_tools(self.spec)

    def tool_names(self) -> list[str]:
        return [t["name"] for t in self.spec["tools"]]


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
        # (name, seed) -> (spec, the build's future, episodes holding it), least recently used first
        self._built: OrderedDict[tuple[str, Any], list] = OrderedDict()
        self.builds = 0

    def row(self, name: str) -> dict:
        """The environment's dataset row; a `KeyError` naming it when there is none."""
        if name not in self.index:
            raise KeyError(f"no environment {name!r} in the environments artifact")
        return self.dataset[self.index[name]]

    def _build(self, spec: dict, seed: Any) -> _Shared:
        with _BUILD_LOCK:
            env = Environment(spec)
            try:
                reset_env(env, seed)
                return _Shared(env, env.snapshot())
            except BaseException:
                env.close()
                raise

    def acquire(self, name: str, seed: Any) -> EpisodeEnvironment:
        """An environment of `name` in the initial state of `seed`, for one episode (give it back with
        `release`). Returns at once: the build, when this is the first episode of the pair, runs in the
        executor meanwhile. A missing environment or an invalid spec JSON raises here; a spec that does not
        build fails the returned environment's `ready`."""
        key = (name, seed)
        entry = self._built.get(key)
        if entry is None:
            spec = self.row(name)["spec"]
            spec = json.loads(spec) if isinstance(spec, str) else spec
            future = self.executor.submit(self._build, spec, seed)
            self.builds += 1
            entry = self._built[key] = [spec, future, 0]
        self._built.move_to_end(key)
        entry[2] += 1
        self._evict()
        return EpisodeEnvironment(entry[0], entry[1])

    def release(self, env: EpisodeEnvironment) -> None:
        """The episode is over: its environment may be evicted when it is the least recently used."""
        for entry in self._built.values():
            if entry[1] is env.ready:
                entry[2] -= 1
                break
        self._evict()

    @staticmethod
    def _close(future: concurrent.futures.Future) -> None:
        # a build cancelled when the run stopped early has nothing to close (and `exception()` would raise)
        if not future.cancelled() and future.exception() is None:
            shared = future.result()
            with shared.lock:  # never under a step still running in a worker (a timed-out episode's)
                shared.env.close()

    def _evict(self) -> None:
        idle = [k for k, (_, future, users) in self._built.items() if users == 0 and future.done()]
        for key in idle[: max(0, len(self._built) - self.max_images)]:
            _, future, _ = self._built.pop(key)
            self._close(future)

    def close(self) -> None:
        for _, future, _ in self._built.values():
            if future.done():
                self._close(future)
        self._built.clear()
