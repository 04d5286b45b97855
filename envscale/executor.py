"""Where per-item work runs: in this process (`local`) or sharded over a Ray cluster (`ray`).

The per-environment stages (materialize with verification, tasks, rollout, filter) are a loop over
rows whose items are independent: one domain, one environment, one episode. They hand that loop to
:func:`map_ordered` as a top-level function of one item, and get the results back **in the order of
the items** whichever executor ran them, so their output is identical row for row and their
checkpoints (written by the caller, as results arrive) resume the same way.

- `local` (the default): the function runs here, one item after the other. No Ray is imported.
- `ray`: items are cut into shards of `shard_size`; each shard is one Ray task (`max_retries`:
  a worker process that dies loses only its shard, which Ray runs again on another worker). At most
  `window` shards (default `8 x workers`) are submitted ahead of the one whose results come next, so
  the driver's memory is bounded by the window, not the run, and one slow item (a large API's domain)
  holds back only the results after it, not the workers: they go on with the window's other shards.
  With `ray_address` unset a local Ray is started for the run with `workers` CPUs (and stopped when
  the run ends); with an address (`ray://host:10001` or `auto`) the run joins that cluster.

Ray is the optional extra `envscale[scale]`; `executor: ray` without it is a one-line error.

The executor is chosen per run, not per stage: `envscale run --executor ray --workers 2`, the recipe's
top-level `executor:` section, or in code

```python
>>> from envscale.executor import ExecutorConfig, using
>>> with using(ExecutorConfig(kind="ray", workers=2)):
...     art = materialize(graph, MaterializeConfig(), "outputs/scale/environments")
```

It changes how fast a stage runs, never what it makes: it is not part of any fingerprint, and a run
interrupted under one executor resumes under the other.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import resource
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from typing import Any, TypeVar

from .errors import EnvscaleError

logger = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")

#: The executors a recipe may name.
EXECUTORS = ("local", "ray")
#: Times Ray runs a shard again after its worker died (a system failure, not an exception in the function).
RAY_MAX_RETRIES = 3
#: Shards submitted ahead per worker when the config sets no `window`: 2 left workers idle behind a slow
#: domain (BENCHMARKS.md, "the 1 -> 2 worker speed-up").
WINDOW_PER_WORKER = 8


@dataclass(frozen=True)
class ExecutorConfig:
    """How a run maps its per-item work (see the module docstring).

    Args:
        kind: `local` or `ray`.
        workers: Ray workers (CPUs of the local Ray started for the run; tasks in flight on a cluster).
        ray_address: An existing cluster (`auto`, `ray://host:10001`); `None` starts a local Ray.
        shard_size: Items per Ray task for every stage; `None`: each stage's own (`map_ordered`'s `shard_size`).
        object_store_mb: The object store of a local Ray, in MiB (items and results pass through it).
        window: Shards submitted ahead of the one whose results come next; `None`: `8 x workers`. A wider
            window keeps workers busy past a slow item; results wait in the driver until their turn.
    """

    kind: str = "local"
    workers: int = 2
    ray_address: str | None = None
    shard_size: int | None = None
    object_store_mb: int = 256
    window: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in EXECUTORS:
            raise ValueError(f"executor: kind must be one of {', '.join(EXECUTORS)}, got {self.kind!r}")
        for name, low in (("workers", 1), ("shard_size", 1), ("object_store_mb", 80), ("window", 1)):
            value = getattr(self, name)
            if name in ("shard_size", "window") and value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ValueError(f"executor: {name} must be an integer >= {low}, got {value!r}")
        if self.ray_address is not None and not isinstance(self.ray_address, str):
            raise ValueError(f"executor: ray_address must be a string, got {self.ray_address!r}")

    @classmethod
    def from_value(cls, value: Any, where: str = "executor") -> ExecutorConfig:
        """From a recipe's `executor:` value: a kind (`ray`) or a mapping of the fields above."""
        if value is None:
            return cls()
        if isinstance(value, str):
            return cls(kind=value)
        if not isinstance(value, dict):
            raise ValueError(f"{where}: expected 'local', 'ray' or a mapping, got {type(value).__name__}")
        unknown = sorted(set(value) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(f"{where}: unknown keys {unknown}; expected {sorted(cls.__dataclass_fields__)}")
        return cls(**value)

    def as_dict(self) -> dict:
        return asdict(self)


_CURRENT: contextvars.ContextVar[ExecutorConfig] = contextvars.ContextVar("envscale_executor")


def current() -> ExecutorConfig:
    """The executor of this run (`local` unless a caller chose one with :func:`using`)."""
    return _CURRENT.get(ExecutorConfig())


@contextlib.contextmanager
def using(config: ExecutorConfig) -> Iterator[ExecutorConfig]:
    """Run the block's stages with `config`; a local Ray started for them is stopped at the end."""
    token = _CURRENT.set(config)
    try:
        yield config
    finally:
        _CURRENT.reset(token)
        if config.kind == "ray":
            shutdown_ray()


# ----------------------------------------------------------------------------- mapping


def map_ordered(
    fn: Callable[[T], R],
    items: Iterable[T],
    *,
    config: ExecutorConfig | None = None,
    shard_size: int | None = None,
) -> Iterator[R]:
    """`fn(item)` for each item, yielded in the items' order, run where `config` (default: :func:`current`)
    says. `fn` must be a module-level function (or a `functools.partial` of one) for `ray`: it is sent
    to the workers by value. An exception raised by `fn` stops the map and is raised here, as locally;
    callers that must survive a bad item catch it inside `fn` (the stages do). `shard_size` (items per Ray
    task) is the stage's choice unless the config sets one: 1 for items of seconds (a domain, an environment), tens for items of
    milliseconds (a trajectory to judge)."""
    config = config or current()
    if config.kind == "local":
        yield from map(fn, items)
        return
    yield from _map_ray(fn, items, config, config.shard_size or shard_size or 1)


def _run_shard(fn: Callable[[Any], Any], shard: list) -> tuple[list, dict]:
    """One Ray task: `fn` over a shard, with the worker's pid and peak memory so far (for the run's report)."""
    results = [fn(item) for item in shard]
    return results, {"pid": os.getpid(), "peak_rss_mb": peak_rss_mb()}


def peak_rss_mb() -> float:
    """This process's peak resident memory so far, in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (1 << 20 if sys.platform == "darwin" else 1 << 10), 1)


#: Peak memory (MiB) of every Ray worker seen by this process, by pid: what `worker_peaks` reports.
_WORKER_PEAKS: dict[int, float] = {}


def worker_peaks() -> dict[int, float]:
    """Peak resident memory (MiB) of each Ray worker that ran a shard for this process, by pid."""
    return dict(_WORKER_PEAKS)


def report() -> dict:
    """What ran a stage, for its manifest's `stats["executor"]`: the kind, and the peak resident memory (MiB)
    of this process and of each Ray worker so far (workers serve every stage of a run)."""
    config = current()
    out: dict[str, Any] = {"kind": config.kind, "driver_peak_rss_mb": peak_rss_mb()}
    if config.kind == "ray":
        out |= {
            "workers": config.workers,
            "worker_peak_rss_mb": sorted(_WORKER_PEAKS.values(), reverse=True),
            "ray_start_s": _STARTUP["seconds"],  # starting (or joining) Ray, once per process
        }
    return out


def _map_ray(
    fn: Callable[[Any], Any], items: Iterable[Any], config: ExecutorConfig, shard_size: int
) -> Iterator[Any]:
    ray = ensure_ray(config)
    task = ray.remote(num_cpus=1, max_retries=RAY_MAX_RETRIES, retry_exceptions=False)(_run_shard)
    fn_ref = ray.put(fn)  # the function (and what it binds: a config, edges) goes to the object store once
    window: deque = deque()
    limit = config.window or WINDOW_PER_WORKER * config.workers
    for shard in _shards(items, shard_size):
        window.append(task.remote(fn_ref, shard))
        if len(window) >= limit:
            yield from _collect(ray, window.popleft())
    while window:
        yield from _collect(ray, window.popleft())


def _collect(ray: Any, ref: Any) -> list:
    try:
        results, info = ray.get(ref)
    except ray.exceptions.RayTaskError as exc:  # `fn` raised: raise its exception, as the local path does
        cause = exc.as_instanceof_cause() if hasattr(exc, "as_instanceof_cause") else exc
        raise cause from None
    except ray.exceptions.WorkerCrashedError as exc:
        raise EnvscaleError(
            f"a Ray worker died {RAY_MAX_RETRIES + 1} times on the same shard; the finished shards are "
            f"checkpointed, run the same command again to resume ({exc})"
        ) from None
    _WORKER_PEAKS[info["pid"]] = max(_WORKER_PEAKS.get(info["pid"], 0.0), info["peak_rss_mb"])
    return results


def _shards(items: Iterable[Any], size: int) -> Iterator[list]:
    shard: list = []
    for item in items:
        shard.append(item)
        if len(shard) >= size:
            yield shard
            shard = []
    if shard:
        yield shard


# ----------------------------------------------------------------------------- Ray


_STARTUP = {"seconds": 0.0}


def ensure_ray(config: ExecutorConfig) -> Any:
    """`ray`, initialised for `config`: connected to `ray_address`, or a local Ray of `workers` CPUs."""
    try:
        import ray
    except ImportError:
        raise EnvscaleError(
            "executor: ray needs Ray: pip install 'envscale[scale]' (or run with executor: local)"
        ) from None
    if ray.is_initialized():
        return ray
    import time

    start = time.perf_counter()
    env_vars = {"PYTHONHASHSEED": os.environ.get("PYTHONHASHSEED", "0")}
    path = os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))
    env_vars["PYTHONPATH"] = path  # workers import envscale (and the caller's module) as this process does
    kwargs: dict[str, Any] = {
        "runtime_env": {"env_vars": env_vars},
        "log_to_driver": False,
        "logging_level": logging.WARNING,
        "configure_logging": True,
    }
    if config.ray_address:
        ray.init(address=config.ray_address, **kwargs)
    else:
        ray.init(
            num_cpus=config.workers,
            include_dashboard=False,
            object_store_memory=config.object_store_mb << 20,
            **kwargs,
        )
    _STARTUP["seconds"] = round(time.perf_counter() - start, 2)
    logger.info("executor: ray with %s", ray.cluster_resources())
    return ray


def shutdown_ray() -> None:
    """Stop the local Ray this process started (a cluster joined with `ray_address` keeps running)."""
    ray = sys.modules.get("ray")
    if ray is not None and hasattr(ray, "is_initialized") and ray.is_initialized():
        ray.shutdown()
    _WORKER_PEAKS.clear()


__all__ = [
    "EXECUTORS",
    "ExecutorConfig",
    "current",
    "ensure_ray",
    "map_ordered",
    "peak_rss_mb",
    "report",
    "shutdown_ray",
    "using",
    "worker_peaks",
]
