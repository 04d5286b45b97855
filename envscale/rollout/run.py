"""The rollout run loop: `tasks` -> `trajectories`, simulated user/agent episodes in fresh environments.

The stage `envscale rollout` (:mod:`envscale.stages.rollout`) and the evaluation harness
(:mod:`envscale.evaluation.harness`) both run :func:`rollout` with a :class:`RolloutConfig`.

For every task of the chosen splits and every trial, one episode (`envscale.rollout.episode`): the
user (`user` backend) asks for the task, the agent (`agent` backend) works with the task's tools in a
fresh copy of the task's environment, and the whole conversation, every tool call and result, the
final state hash and how the episode ended are kept. Backends: `scripted` (offline), `endpoint` (any
OpenAI-compatible server), `transformers` (a local model); see `envscale.rollout.backends`.

- **Concurrency**: up to `concurrency` episodes in flight on one asyncio event loop; environment
  steps and builds run in worker threads, so they never stall the requests of other episodes.
- **Exact and resumable**: each finished episode is appended to a checkpoint under the output's
  `.staging/` as it completes. A run stopped by Ctrl-C or `kill -9` resumes with the same command and
  ends with exactly the episodes asked for (tasks x `trials`), none lost, none duplicated; an
  episode cut short by the kill is played again.
- **Seeds**: each episode's seed depends on (seed, task id, trial) only, so trials are distinct and
  a re-run gives the same episodes with deterministic backends.
- **Failures** of a backend (after the client's retries), of the user simulator, or of the episode
  itself are kept as trajectories with their `status`, `failure_cause` and `error`; the card reports
  the share of failed episodes caused by the user simulator.

Example:

```python
>>> from envscale.artifacts import open_artifact
>>> from envscale.rollout.run import RolloutConfig, rollout
>>> art = rollout(open_artifact("outputs/quickstart/tasks"), RolloutConfig(trials=2), "outputs/trajectories")
```
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import hashlib
import json
import logging
import os
import time
import traceback
from collections import Counter, OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from ..artifacts import Artifact, ArtifactWriter, resolve_input
from ..config import check_fields, fingerprint, option, to_dict
from ..executor import current, map_ordered
from ..executor import report as executor_report
from ..schemas import TRAJECTORIES, TRAJECTORY_FEATURES
from .backends import BackendConfig
from .episode import STATUSES, EpisodeLimits, run_episode, write_tool_names
from .factory import make_backend
from .user import STYLES, user_speaker

logger = logging.getLogger(__name__)

#: The checkpoint of finished episodes, under the writer's `parts_dir`.
PARTS_FILE = "episodes.jsonl"
#: Backend settings that say how to reach a server, not what the episodes are (left out of the fingerprint).
RUN_ONLY = ("api_key", "base_url", "timeout", "max_retries")


@dataclass
class RolloutConfig:
    """Configuration of `envscale rollout`."""

    agent: dict[str, Any] = option(
        {"kind": "scripted"},
        "The agent's backend: {kind: scripted|endpoint|transformers, base_url, model, revision, "
        "temperature, max_tokens, noise, ...} (see BackendConfig). Flag: --agent kind=endpoint,model=M.",
    )
    user: dict[str, Any] = option({"kind": "scripted"}, "The simulated user's backend (same keys as agent).")
    splits: list[str] = option(["train"], "Which splits of the tasks to roll out.")
    max_tasks: int | None = option(
        None, "Roll out at most this many tasks (a seeded sample over all environments); null: all.", ge=1
    )
    max_tool_chars: int | None = option(
        None,
        "Only tasks whose offered tools take at most this many characters as OpenAI JSON (an agent with a short "
        "context, such as a 135M model's 8k tokens, sees them whole); null: any task.",
        ge=1,
    )
    trials: int = option(1, "Episodes per task (for pass^k), each with its own seed.", ge=1, le=1000)
    seed: int = option(
        0, "Seed of the episodes' seeds, the task sample and the user styles.", ge=0, le=2**32 - 1
    )
    user_styles: dict[str, float] = option(
        {"plain": 1.0},
        f"Share of episodes per user style ({', '.join(STYLES)}); terse, vague and change_mind are the "
        "adversarial users of GAIS. The scripted user ignores styles other than plain.",
    )
    max_turns: int = option(10, "Most user messages per episode (the first included).", ge=1, le=1000)
    max_steps: int = option(10, "Most tool rounds in one agent turn.", ge=1, le=1000)
    max_calls_per_reply: int = option(
        64,
        "Most tool calls of one agent reply that run; the rest get an error observation.",
        ge=1,
        le=100_000,
    )
    episode_timeout: float = option(300.0, "Wall-clock seconds one episode may take.", gt=0, le=86_400)
    concurrency: int = option(32, "Episodes in flight at once.", ge=1, le=4096)

    def __post_init__(self) -> None:
        check_fields(self)
        owner = type(self).__name__
        for role in ("agent", "user"):  # the API key is never written out (see `_public`)
            setattr(self, role, BackendConfig.normalized(getattr(self, role), f"{owner}.{role}"))
        unknown = sorted(set(self.user_styles) - set(STYLES))
        if unknown:
            raise ValueError(f"{owner}.user_styles has unknown styles {unknown}; styles: {', '.join(STYLES)}")
        if any(
            not isinstance(v, int | float) or isinstance(v, bool) or v < 0 for v in self.user_styles.values()
        ):
            raise ValueError(f"{owner}.user_styles weights must be numbers >= 0, got {self.user_styles!r}")
        if sum(self.user_styles.values()) <= 0:
            raise ValueError(f"{owner}.user_styles must give some style a weight > 0")
        if not self.splits:
            raise ValueError(f"{owner}.splits must name at least one split of the tasks")

    def backend(self, role: str) -> BackendConfig:
        return BackendConfig.from_value(dict(getattr(self, role)), f"{type(self).__name__}.{role}")

    def limits(self) -> EpisodeLimits:
        return EpisodeLimits(
            max_turns=self.max_turns,
            max_steps=self.max_steps,
            timeout=self.episode_timeout,
            max_calls_per_reply=self.max_calls_per_reply,
        )

    def fingerprint(self, input_key: str) -> str:
        """How fast a run goes, and where and how a server is reached, do not change what it makes: a
        resumed run may use another port, key, timeout or retry count."""
        data = copy.copy(self)
        for role in ("agent", "user"):
            setattr(data, role, {k: v for k, v in getattr(self, role).items() if k not in RUN_ONLY})
        return fingerprint(data, TRAJECTORIES, inputs=[input_key], ignore=("concurrency",))


# ----------------------------------------------------------------------------- seeds and selection


def _unit(*parts: Any) -> float:
    digest = hashlib.blake2b(json.dumps(parts, default=str).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


def episode_seed(seed: int, task_id: str, trial: int) -> int:
    """The seed of one episode: depends on the run's seed, the task and the trial only."""
    return int(_unit(seed, "episode", task_id, trial) * 2**31)


def user_style(config: RolloutConfig, task_id: str, trial: int) -> str:
    """The user's style for one episode, drawn by a hash with `user_styles` as weights."""
    styles = [(s, w) for s, w in config.user_styles.items() if w > 0]
    total = sum(w for _, w in styles)
    x = _unit(config.seed, "style", task_id, trial) * total
    for style, weight in styles:
        if x < weight:
            return style
        x -= weight
    return styles[-1][0]


def trajectory_id(task_id: str, trial: int) -> str:
    return f"{task_id}#{trial}"


# ----------------------------------------------------------------------------- checkpoint


def _open_checkpoint(path: Path) -> set[str]:
    """Ids of the episodes already in the checkpoint; a last line cut short by a kill is cut off."""
    done: set[str] = set()
    if not path.is_file():
        return done
    with path.open("rb+") as f:
        data = f.read()
        end = data.rfind(b"\n") + 1
        if end < len(data):  # a line cut short by a kill: that episode is played again
            f.truncate(end)
    for line in data[:end].splitlines():
        try:
            done.add(json.loads(line)["trajectory_id"])
        except (ValueError, KeyError, TypeError):
            continue
    return done


# ----------------------------------------------------------------------------- stage


def tool_sizes(environments: Any) -> dict[str, dict[str, int]]:
    """Environment name -> tool name -> characters of the tool in OpenAI JSON (what an agent's prompt holds)."""
    from ..env.runtime import openai_tools

    sizes: dict[str, dict[str, int]] = {}
    for row in environments.select_columns(["name", "spec"]):
        spec = _json(row["spec"])
        sizes[row["name"]] = {
            t["function"]["name"]: len(json.dumps(t, ensure_ascii=False)) for t in openai_tools(spec)
        }
    return sizes


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _fits(ds: Any, sizes: dict[str, dict[str, int]], limit: int) -> list[bool]:
    """Per task row: its offered tools (the environment's all, without a list) take at most `limit` characters."""
    fits = []
    for env, names in zip(ds["environment"], ds["tools"], strict=True):
        tools = sizes.get(env, {})
        total = sum(tools.get(n, 0) for n in names) if names else sum(tools.values())
        fits.append(total <= limit)
    return fits


def _jobs(
    splits: dict[str, Any], config: RolloutConfig, sizes: dict[str, dict[str, int]] | None = None
) -> list[tuple[str, int, int, str]]:
    """(split, row index, trial, task id) of every episode asked for (a seeded sample with `max_tasks`, among the
    tasks whose tools fit `max_tool_chars` when it is set: `sizes` from `tool_sizes`)."""
    chosen = [(split, i, tid) for split, ds in splits.items() for i, tid in enumerate(ds["task_id"])]
    if config.max_tool_chars is not None:
        if sizes is None:
            raise ValueError("max_tool_chars needs the environments' tool sizes")
        fit = {split: _fits(ds, sizes, config.max_tool_chars) for split, ds in splits.items()}
        kept = [c for c in chosen if fit[c[0]][c[1]]]
        logger.info(
            "%d of %d tasks offer tools within %d characters", len(kept), len(chosen), config.max_tool_chars
        )
        if not kept:
            raise ValueError(
                f"no task offers tools within max_tool_chars={config.max_tool_chars} characters; raise it or "
                "leave it unset"
            )
        chosen = kept
    if config.max_tasks is not None and config.max_tasks < len(chosen):
        chosen.sort(key=lambda c: _unit(config.seed, "sample", c[2]))
        chosen = sorted(chosen[: config.max_tasks], key=lambda c: (c[0], c[1]))
    return [(split, i, trial, tid) for split, i, tid in chosen for trial in range(config.trials)]


def rollout(tasks_art: Artifact, config: RolloutConfig, output: str | Path) -> Artifact:
    """Play every episode asked for and write the `trajectories` artifact at `output`."""
    envs_art = resolve_input(tasks_art, "environments")
    writer = ArtifactWriter(
        Path(output),
        TRAJECTORIES,
        config.fingerprint(tasks_art.content_key),
        config={**to_dict(config), "agent": _public(config.agent), "user": _public(config.user)},
        inputs=[tasks_art.provenance(), envs_art.provenance()],
    )
    with writer:
        return _rollout(tasks_art, envs_art, config, writer)


def _public(backend: dict) -> dict:
    return {k: v for k, v in backend.items() if k != "api_key"}


def _rollout(
    tasks_art: Artifact, envs_art: Artifact, config: RolloutConfig, writer: ArtifactWriter
) -> Artifact:
    available = tasks_art.splits.get("tasks", {})
    unknown = [s for s in config.splits if s not in available]
    if unknown:
        raise ValueError(f"the tasks have no split {unknown}; splits: {', '.join(available)}")
    splits = {split: tasks_art.load("tasks", split) for split in config.splits}
    sizes = tool_sizes(envs_art.load("environments")) if config.max_tool_chars is not None else None
    todo = _jobs(splits, config, sizes)
    parts = writer.parts_dir / PARTS_FILE
    done = _open_checkpoint(parts)
    wanted = {trajectory_id(tid, t) for _, _, t, tid in todo}
    remaining = [j for j in todo if trajectory_id(j[3], j[2]) not in done]
    stray = done - wanted
    if stray:
        logger.warning("checkpoint holds %d episodes not asked for now; they are left out", len(stray))
    if done & wanted:
        logger.info("resume: %d of %d episodes were already done", len(done & wanted), len(wanted))
    start = time.perf_counter()
    if current().kind == "local" or not remaining:
        environments = envs_art.load("environments") if remaining else None  # the inputs, read before playing
        with parts.open("a", encoding="utf-8") as checkpoint:
            asyncio.run(
                _play(
                    splits,
                    environments,
                    config,
                    remaining,
                    _appender(checkpoint),
                    len(done & wanted),
                    len(wanted),
                )
            )
    else:
        _play_sharded(tasks_art, envs_art, config, remaining, parts, len(done & wanted), len(wanted))
    elapsed = time.perf_counter() - start
    order = [trajectory_id(tid, t) for _, _, t, tid in todo]
    return _commit(writer, parts, order, config, elapsed, len(remaining))


def _appender(checkpoint: Any):
    def write(row: dict) -> None:
        checkpoint.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
        checkpoint.flush()

    return write


#: Episodes per executor item under Ray: one event loop plays them together (`concurrency` in flight).
EPISODES_PER_ITEM = 16


_OPENED: dict[tuple[str, str, str], Any] = {}


def _opened(ref: str, config: str, split: str) -> Any:
    """A split of an artifact, loaded once per process (a Ray worker plays many chunks of one run)."""
    from ..artifacts import open_artifact

    key = (ref, config, split)
    if key not in _OPENED:
        kind = "tasks" if config == "tasks" else "environments"
        _OPENED[key] = open_artifact(ref, expect_kind=kind, check=False).load(config, split)
    return _OPENED[key]


def play_chunk(
    jobs: list[tuple[str, int, int, str]], config: RolloutConfig, tasks_ref: str, envs_ref: str
) -> list[dict]:
    """Episodes `jobs` -> their trajectory rows, in this process (a Ray worker): the tasks and environments are
    opened from their pinned locations, the backends made here. A module-level function of one item, so
    `envscale.executor` can send it anywhere."""
    splits = {split: _opened(tasks_ref, "tasks", split) for split in {j[0] for j in jobs}}
    environments = _opened(envs_ref, "environments", "train")
    rows: list[dict] = []
    asyncio.run(_play(splits, environments, config, jobs, rows.append, 0, len(jobs), progress=False))
    return rows


def _play_sharded(
    tasks_art: Artifact,
    envs_art: Artifact,
    config: RolloutConfig,
    jobs: list,
    parts: Path,
    already: int,
    total: int,
) -> None:
    """The episodes on the run's executor (`envscale.executor`), `EPISODES_PER_ITEM` a chunk; each chunk's
    rows are checkpointed here when it comes back, so a worker that dies loses only its chunk (played again)."""
    import functools

    chunks = [jobs[i : i + EPISODES_PER_ITEM] for i in range(0, len(jobs), EPISODES_PER_ITEM)]
    play = functools.partial(play_chunk, config=config, tasks_ref=tasks_art.pinned, envs_ref=envs_art.pinned)
    with (
        parts.open("a", encoding="utf-8") as checkpoint,
        tqdm(total=total, initial=already, desc="rollout", unit="episode") as bar,
    ):
        write = _appender(checkpoint)
        for rows in map_ordered(play, chunks, shard_size=1):
            for row in rows:
                write(row)
            bar.update(len(rows))


async def _play(
    splits: dict[str, Any],
    environments: Any,
    config: RolloutConfig,
    jobs: list[tuple[str, int, int, str]],
    sink: Any,
    already: int,
    total: int,
    progress: bool = True,
) -> None:
    from .envs import EnvironmentPool

    if not jobs:
        return
    workers = min(32, (os.cpu_count() or 2) + 4)
    executor = concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="envscale-env")
    pool = EnvironmentPool(environments, executor=executor)
    agent = make_backend(config.backend("agent"), "agent", concurrency=config.concurrency)
    user = make_backend(config.backend("user"), "user", concurrency=config.concurrency)
    for backend in (agent, user):  # a local model loads once, before the first episode, and says what it is
        if hasattr(backend, "load"):
            await backend.load()
    agent_info, user_info = agent.info(), user.info()
    limits = config.limits()
    semaphore = asyncio.Semaphore(config.concurrency)
    bar = tqdm(total=total, initial=already, desc="rollout", unit="episode", disable=not progress)

    # Task rows are decoded in batches ahead of the episodes that need them (one `datasets` call per batch
    # costs about what one row does), and trials of a task decode its row once.
    decoded: OrderedDict[tuple[str, int], dict] = OrderedDict()
    batch = max(8, config.concurrency)
    keep = 4 * config.concurrency + batch

    def prefetch(start: int) -> None:
        wanted: dict[str, list[int]] = {}
        for split, index, _, _ in jobs[start : start + batch]:
            if (split, index) not in decoded:
                wanted.setdefault(split, []).append(index)
        for split, indices in wanted.items():
            indices = list(dict.fromkeys(indices))
            columns = splits[split][indices]
            for j, index in enumerate(indices):
                decoded[(split, index)] = {name: values[j] for name, values in columns.items()}
        while len(decoded) > keep:
            decoded.popitem(last=False)

    def task_row(split: str, index: int) -> dict:
        key = (split, index)
        if key not in decoded:
            decoded[key] = splits[split][index]
        decoded.move_to_end(key)
        return decoded[key]

    async def one(split: str, index: int, trial: int, tid: str) -> None:
        try:
            task = task_row(split, index)
            seed = episode_seed(config.seed, tid, trial)
            style = user_style(config, tid, trial)
            row = {
                "trajectory_id": trajectory_id(tid, trial),
                "task_id": tid,
                "trial": trial,
                "seed": seed,
                "environment": task["environment"],
                "environment_ref": task.get("environment_ref"),
                "domain_id": task.get("domain_id"),
                "kind": task["kind"],
                "split": split,
                "user_style": style,
                "agent": agent_info,
                "user": user_info,
            }
            row |= await _episode(task, pool, agent, user, seed, style, limits, executor)
            sink(row)
            bar.update(1)
        finally:
            semaphore.release()

    try:
        async with asyncio.TaskGroup() as group:
            for i, job in enumerate(jobs):
                if i % batch == 0:
                    prefetch(i)
                await semaphore.acquire()
                group.create_task(one(*job))
    finally:
        bar.close()
        await agent.aclose()
        await user.aclose()
        # Steps of episodes that timed out or were cancelled may still run in the workers: let them end before
        # the environments' connections are closed under them (closing one in use crashes sqlite).
        executor.shutdown(wait=True, cancel_futures=True)
        pool.close()


async def _episode(task, pool, agent, user, seed, style, limits, executor) -> dict[str, Any]:
    """One episode's columns; a failure to build its environment or a bug is a recorded failure.

    The environment builds while the agent's first request is in flight (the first of an environment
    only; later episodes find it built)."""
    name = task["environment"]
    try:
        env = pool.acquire(name, task.get("seed"))
    except Exception as exc:  # noqa: BLE001 - a broken environment loses this episode, not the run
        return _failed("environment_error", "environment", f"{type(exc).__name__}: {exc}")
    try:
        task = {**task, "write_tools": sorted(write_tool_names(env.spec))}
        episode = await run_episode(
            task,
            env,
            agent.speaker(task, seed),
            user_speaker(user, task, seed, style),
            limits=limits,
            executor=executor,
        )
        return episode
    except Exception as exc:  # noqa: BLE001 - a bug in one episode is recorded with its traceback
        if env.ready.done() and env.ready.exception() is not None:  # the environment did not build
            built = env.ready.exception()
            return _failed("environment_error", "environment", f"{type(built).__name__}: {built}")
        logger.warning("episode of %s failed: %s", task.get("task_id"), exc)
        return _failed("internal_error", "internal", traceback.format_exc(limit=-6)[-4000:])
    finally:
        pool.release(env)


def _failed(status: str, cause: str, error: str) -> dict[str, Any]:
    return {
        "messages": [],
        "tools": [],
        "calls": [],
        "final_answer": None,
        "final_state_hash": None,
        "status": status,
        "failure_cause": cause,
        "error": error,
        "turns": 0,
        "n_calls": 0,
        "n_errors": 0,
        "usage": {},
        "wall_s": 0.0,
    }


def _in_order(parts: Path, order: list[str]) -> Any:
    """The checkpointed rows of `order`, in that order (the jobs' order, whatever order episodes finished in
    and whichever executor played them): an index of byte offsets, then one read per row."""
    offsets: dict[str, int] = {}
    with parts.open("rb") as f:
        while True:
            at = f.tell()
            line = f.readline()
            if not line:
                break
            try:
                tid = json.loads(line)["trajectory_id"]
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by a kill
            offsets.setdefault(tid, at)
        for tid in order:
            if tid in offsets:
                f.seek(offsets[tid])
                yield json.loads(f.readline())


def _commit(
    writer: ArtifactWriter, parts: Path, order: list[str], config: RolloutConfig, elapsed: float, played: int
) -> Artifact:
    wanted = set(order)
    out = writer.shard_writer("trajectories", batch_size=500)
    status: Counter = Counter()
    causes: Counter = Counter()
    per_kind: dict[str, Counter] = {}
    styles: Counter = Counter()
    turns = calls = errors = 0
    usage = {"agent": Counter(), "user": Counter()}
    for row in _in_order(parts, order) if parts.is_file() else ():
        out.write({k: row.get(k) for k in TRAJECTORY_FEATURES})
        status[row["status"]] += 1
        per_kind.setdefault(row["kind"], Counter())[row["status"]] += 1
        styles[row.get("user_style")] += 1
        if row.get("failure_cause"):
            causes[row["failure_cause"]] += 1
        turns += row.get("turns") or 0
        calls += row.get("n_calls") or 0
        errors += row.get("n_errors") or 0
        for role in usage:
            usage[role].update({k: v for k, v in ((row.get("usage") or {}).get(role) or {}).items()})
    n = out.close()
    if n != len(wanted):
        raise RuntimeError(f"rollout: {n} episodes written but {len(wanted)} asked for (a bug)")
    failed = sum(causes.values())
    stats = {
        "episodes": n,
        "tasks": len({w.rsplit("#", 1)[0] for w in wanted}),
        "trials": config.trials,
        "per_status": {
            s: status.get(s, 0) for s in (*STATUSES, "environment_error", "internal_error") if status.get(s)
        },
        "failed": failed,
        "failure_causes": dict(causes),
        "user_caused_share_of_failed": round(causes.get("user", 0) / failed, 4) if failed else 0.0,
        "per_kind": {k: dict(c) for k, c in sorted(per_kind.items())},
        "user_styles": dict(styles),
        "mean_turns": round(turns / n, 3) if n else 0.0,
        "mean_calls": round(calls / n, 3) if n else 0.0,
        "tool_error_share": round(errors / calls, 4) if calls else 0.0,
        "usage": {role: dict(c) for role, c in usage.items()},
        "played_this_run": played,
        "seconds_this_run": round(elapsed, 2),
        "episodes_per_second_this_run": round(played / elapsed, 2) if elapsed > 0 and played else None,
        "agent": _public(config.agent),
        "user": _public(config.user),
        "executor": executor_report(),  # how it ran (peak memory per worker), not what it made
    }
    art = writer.commit({"trajectories": n}, stats)
    logger.info(
        "trajectories %s: %d episodes (%s); %d failed (%d by the user simulator)",
        art.pinned,
        n,
        ", ".join(f"{k} {v}" for k, v in status.most_common()),
        failed,
        causes.get("user", 0),
    )
    return art
