"""The `tasks` stage's library: verified `environments` (+ the `graph` they came from) -> verifiable `tasks`.

For every environment row, `envscale.tasks.generate.env_tasks(row, config, edges, rng)` samples
tool chains along real data flow, executes them on the environment (`envscale.env.Environment`
is the only execution path) for their gold calls, results, final state hash and diff, writes the
simulated user's instructions, and applies the quality gates; it returns the kept task rows and
the rejected candidates with their reasons. This module does the rest:

- **edges**: the `graph` artifact the environments were made from is found by
  :func:`~envscale.artifacts.resolve_input`; its `dependency` edges (those an LLM did not reject)
  are handed to the generator per domain. Without it, tasks follow the operations alone (noted
  in the log and the card).
- **one environment at a time**: a broken spec row, or a generator failure in one environment,
  becomes one `rejected` row with its reason; the other environments' tasks are kept.
- **ids and splits**: `task_id` is `<environment>-<index>-<hash of the gold calls>`. Whole
  environments are held out for `test` with probability `test_env_share`, decided by a hash of
  (seed, environment name), so the split of an environment does not depend on the order or the
  number of environments; from the others, a `test_task_share` of tasks (a hash of the task id)
  also go to `test`. Each row records why it is in `test` (`held_out`: `"environment"` or
  `"task"`; `""` in `train`), so evaluation reads the split kind instead of deciding it again.
  Each environment's generator gets its own seeded `random.Random` (seed and name), so the same
  seed gives the same tasks.
- **resume**: each finished environment is checkpointed under the output's `.staging/` folder; an
  interrupted run, re-run with the same config and input, does not redo them.

Example:

```python
>>> from envscale.artifacts import open_artifact
>>> from envscale.tasks.build import TasksConfig, generate_tasks
>>> envs = open_artifact("outputs/quickstart/environments")
>>> art = generate_tasks(envs, TasksConfig(), "outputs/quickstart/tasks")
>>> art.splits["tasks"], art.manifest["stats"]["per_kind"]
>>> from datasets import load_dataset
>>> test = load_dataset("outputs/quickstart/tasks", "tasks", split="test")
```

CLI: `envscale tasks --input outputs/quickstart/environments --output outputs/quickstart/tasks`.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import hashlib
import json
import logging
import math
import random
import statistics
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from ..artifacts import Artifact, ArtifactWriter, RowLookup, iter_rows, resolve_input
from ..config import check_fields, fingerprint, option, to_dict
from ..errors import EnvscaleError
from ..executor import current, map_ordered
from ..executor import report as executor_report
from ..schemas import TASKS, TASKS_FEATURES, environment_kind
from .model import KINDS

logger = logging.getLogger(__name__)

#: The default mix of task kinds (weights; see `envscale.tasks.model.KINDS`).
DEFAULT_KIND_SHARES = {"read": 0.2, "write": 0.32, "mixed": 0.3, "policy": 0.08, "missing_info": 0.1}
#: Columns of a `tasks` row that this stage fills; the generator returns every other one.
STAGE_COLUMNS = ("task_id", "environment_ref", "split", "held_out")
#: The checkpoint of finished environments, under the writer's `parts_dir`.
PARTS_FILE = "environments.jsonl"
#: Most held-out environment names listed in the manifest (all are counted).
HELD_OUT_NAMES = 100


@dataclass
class TasksConfig:
    """Configuration of `envscale tasks`."""

    seed: int = option(0, "Seed of task sampling and of the train/test split.", ge=0, le=2**32 - 1)
    tasks_per_env: int = option(8, "Tasks kept per environment, at most.", ge=1, le=10_000)
    max_chain_length: int = option(
        8, "Most gold calls in one task (lookups of the rows the user names included).", ge=1, le=8
    )
    max_single_share: float = option(
        0.2,
        "Most share of an environment's tasks that are one call deep (refusals, one look at a row by "
        "nature, count but are never dropped): once reached while sampling, further one-call candidates "
        "are dropped (`single_call_quota`) and the attempts go to journeys; at the end one-call tasks "
        "beyond this share of the environment's tasks, conversations included, are dropped too (one is "
        "kept at least).",
        ge=0,
        le=1,
    )
    max_two_call_share: float = option(
        0.3,
        "Most share of an environment's tasks that are two calls deep in a line (find a row, then read or change "
        "it): once reached while sampling, further such candidates are dropped (`two_call_quota`) and the "
        "attempts go to longer journeys; at the end such tasks beyond this share of the environment's tasks, "
        "conversations included, are dropped too (one is kept at least). Decisions (`branch`), two lookups feeding "
        "one write (`dag`) and refusals are never dropped by it; 1: no quota.",
        ge=0,
        le=1,
    )
    max_same_tools_share: float = option(
        0.15,
        "Most share of an environment's tasks that call the same tools in the same order (a create then an add, "
        "again and again): once reached, further such candidates are dropped (`same_journey`); 2 at least.",
        ge=0,
        le=1,
    )
    kind_shares: dict[str, float] = option(
        DEFAULT_KIND_SHARES,
        f"Weight of each task kind ({', '.join(KINDS)}); a kind left out gets 0. Read-only "
        "environments give read tasks whatever the weights. Flag: --kind-shares read=1 write=2.",
    )
    conversation_share: float = option(
        0.5,
        "Conversations composed per world, as a share of tasks_per_env, on top of them: two or three of its "
        "kept requests about related rows, asked in a row by one user (envscale.tasks.conversations); 0: none.",
        ge=0,
        le=1,
    )
    distractors: int = option(2, "Tools offered besides the ones a task needs.", ge=0, le=100)
    test_env_share: float = option(
        0.15,
        "Share of environments held out whole for the test split (by a hash of seed and name).",
        ge=0,
        le=1,
    )
    test_task_share: float = option(
        0.1, "Share of the other environments' tasks also put in the test split.", ge=0, le=1
    )
    loose_env_share: float = option(
        0.5,
        "Share of tasks_per_env posed in an environment of loose functions (tools with no API group, "
        "clustered by meaning): their tables model world-knowledge lookups less faithfully than an API's.",
        ge=0,
        le=1,
    )
    function_sets: bool = option(
        False,
        "Pose read tasks in function sets too (environments with no write tool: loose functions, lookups, "
        "computations). Off: only worlds get tasks, and function sets are counted apart.",
    )
    llm_base_url: str | None = option(
        None,
        "OpenAI-compatible endpoint that rewrites user instructions toward implicit references; "
        "null = offline.",
    )
    llm_model: str | None = option(None, "Model id served at llm_base_url.")
    llm_timeout: float = option(60.0, "Seconds one rewrite request may take (then retried).", gt=0, le=86_400)
    llm_max_retries: int = option(3, "Retries of a failed rewrite request (0: none).", ge=0, le=100)
    llm_max_concurrency: int = option(
        8,
        "Rewrite requests in flight at once (with an endpoint, as many environments are worded at once).",
        ge=1,
        le=1024,
    )
    replay_check: bool = option(
        True,
        "Replay every task's gold calls on a second, fresh environment; drop tasks whose outcome differs.",
    )

    def __post_init__(self) -> None:
        check_fields(self)
        owner = type(self).__name__
        if not isinstance(self.kind_shares, dict):
            raise ValueError(
                f"{owner}.kind_shares must be a mapping of kind to weight, got {self.kind_shares!r}"
            )
        unknown = sorted(set(self.kind_shares) - set(KINDS))
        if unknown:
            raise ValueError(f"{owner}.kind_shares has unknown kinds {unknown}; kinds: {', '.join(KINDS)}")
        for kind, weight in self.kind_shares.items():
            if isinstance(weight, bool) or not isinstance(weight, int | float) or not math.isfinite(weight):
                raise ValueError(f"{owner}.kind_shares[{kind!r}] must be a finite number, got {weight!r}")
            if weight < 0:
                raise ValueError(f"{owner}.kind_shares[{kind!r}] must be >= 0, got {weight!r}")
        if sum(self.kind_shares.values()) <= 0:
            raise ValueError(
                f"{owner}.kind_shares must give some kind a weight > 0, got {self.kind_shares!r}"
            )
        self.kind_shares = {k: float(self.kind_shares.get(k, 0.0)) for k in KINDS}
        try:
            self.llm_config()
        except ValueError as exc:
            raise ValueError(f"{owner}.llm_base_url/llm_model: {exc}") from None

    def llm_config(self):
        """The :class:`~envscale.llm.LLMConfig` of `llm_base_url`/`llm_model`, or None when offline."""
        if not self.llm_base_url and not self.llm_model:
            return None
        if not self.llm_base_url:
            raise ValueError("llm_model is set but llm_base_url is not (the endpoint serving it)")
        from ..llm import LLMConfig

        return LLMConfig(
            base_url=self.llm_base_url,
            model=self.llm_model,
            seed=self.seed,
            timeout=self.llm_timeout,
            max_retries=self.llm_max_retries,
            max_concurrency=self.llm_max_concurrency,
        )

    def fingerprint(self, input_key: str) -> str:
        return fingerprint(
            self, TASKS, inputs=[input_key], ignore=("llm_timeout", "llm_max_retries", "llm_max_concurrency")
        )


# ----------------------------------------------------------------------------- splits and ids


def _unit(*parts: Any) -> float:
    """A number in [0, 1) that depends only on `parts` (the same in every process and order)."""
    digest = hashlib.blake2b(json.dumps(parts, default=str).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


def env_rng(seed: int, env_name: str) -> random.Random:
    """The generator's random source for one environment: depends on the seed and the name only."""
    return random.Random(int(_unit(seed, "rng", env_name) * 2**53))


def held_out(env_name: str, config: TasksConfig) -> bool:
    """Whether the whole environment goes to `test` (a hash of the seed and its name)."""
    return _unit(config.seed, "env", env_name) < config.test_env_share


def task_split(task_id: str, env_held_out: bool, config: TasksConfig) -> str:
    """`test` for every task of a held-out environment and a `test_task_share` of the others' (an environment not
    held out keeps one training task at least: the stage moves its first back when every one was drawn)."""
    if env_held_out or _unit(config.seed, "task", task_id) < config.test_task_share:
        return "test"
    return "train"


def held_out_as(split: str, env_held_out: bool) -> str:
    """Why a task is in `split`: `"environment"` (held out whole), `"task"` (drawn alone), `""` (train)."""
    if split == "train":
        return ""
    return "environment" if env_held_out else "task"


def task_id(env_name: str, index: int, gold_calls: list[dict]) -> str:
    """`<environment>-<index:04d>-<8 hex of the gold calls' tools and arguments>`."""
    calls = [[c.get("tool"), c.get("arguments")] for c in gold_calls or []]
    text = json.dumps(calls, sort_keys=True, default=str)
    return f"{env_name}-{index:04d}-{hashlib.blake2b(text.encode(), digest_size=4).hexdigest()}"


# ----------------------------------------------------------------------------- inputs


def source_graph(env_artifact: Artifact) -> Artifact | None:
    """The `graph` artifact the environments were made from, or None (logged) when it cannot be found."""
    try:
        return resolve_input(env_artifact, "graph")
    except EnvscaleError as exc:  # missing, moved, or an unreachable Hub repo: not worth the run
        logger.warning("no graph for %s (%s); tasks follow the operations alone", env_artifact.pinned, exc)
        return None


def dependency_edges(graph: Artifact | None) -> RowLookup | dict:
    """The graph's dependency edges by domain (`.get(domain_id, [])`; none without a graph), read from the
    graph's Arrow table when a domain's environment is posed, never all at once (1.35 million edges at scale).

    Edges an LLM rejected are left out; so are edges between domains (`domain_id` -1).
    """
    if graph is None:
        return {}
    return RowLookup(
        graph.load("edges"),
        key="domain_id",
        where={
            "kind": lambda kind: kind == "dependency",
            "llm_verdict": lambda verdict: verdict != "rejected",
            "domain_id": lambda domain: domain is not None and domain >= 0,
        },
    )


def _env_name(row: dict) -> str:
    return row.get("name") or f"domain_{row.get('domain_id')}"


# ----------------------------------------------------------------------------- one environment


_TASK_KEYS = tuple(name for name in TASKS_FEATURES if name not in STAGE_COLUMNS)


def _one_environment(
    row: dict, config: TasksConfig, edges: list[dict], env_held_out: bool, env_ref: str, rewriter=None
) -> tuple[list[dict], list[dict]]:
    """The finished task rows (ids, splits, environment ref) and rejected rows of one environment.

    Any failure, in the row or in the generator, is one `rejected` row for the environment.
    """
    from ..tasks import generate

    name = _env_name(row)
    domain_id = row.get("domain_id")
    try:
        extra = {"rewrite": rewriter} if rewriter is not None else {}
        kept, rejected = generate.env_tasks(row, config, edges, env_rng(config.seed, name), **extra)
        tasks = []
        for index, task in enumerate(kept):
            task.setdefault("requests", [])  # a task of one request (a generator that composes none)
            missing = [k for k in _TASK_KEYS if k not in task and k not in ("environment", "domain_id")]
            if missing:
                raise ValueError(f"env_tasks returned a task without {missing}")
            if task["kind"] not in KINDS:
                raise ValueError(f"env_tasks returned a task of unknown kind {task['kind']!r}")
            tid = task_id(name, index, task["gold_calls"])
            split = task_split(tid, env_held_out, config)
            tasks.append(
                {
                    **task,
                    "task_id": tid,
                    "environment": task.get("environment") or name,
                    "environment_ref": env_ref,
                    "domain_id": task.get("domain_id", domain_id),
                    "split": split,
                    "held_out": held_out_as(split, env_held_out),
                }
            )
        if tasks and not env_held_out and all(t["split"] == "test" for t in tasks):
            # a test task held out alone is one of an environment trained on (`heldout_tasks`): a small world whose
            # every task was drawn for test keeps its first for training
            tasks[0].update(split="train", held_out="")
        drops = [
            {
                "environment": r.get("environment") or name,
                "domain_id": r.get("domain_id", domain_id),
                "kind": r.get("kind"),
                "code": str(r.get("code") or "unexplained"),
                "reason": str(r.get("reason") or "no reason given"),
                "detail": r.get("detail"),
            }
            for r in rejected
        ]
        return tasks, drops
    except Exception as exc:  # noqa: BLE001 - one broken environment never loses the others' tasks
        logger.warning("environment %s: no tasks (%s: %s)", name, type(exc).__name__, exc)
        return [], [
            {
                "environment": name,
                "domain_id": domain_id,
                "kind": None,
                "code": "environment_failed",
                "reason": f"environment_failed: {type(exc).__name__}: {exc}"[:1000],
                "detail": {"error": type(exc).__name__, "traceback": traceback.format_exc(limit=-4)[-4000:]},
            }
        ]


def _finished(path: Path) -> dict[tuple[int, str], dict]:
    """Environments checkpointed by an interrupted run of the same fingerprint, by (index, name)."""
    done = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
                done[(entry["index"], entry["name"])] = entry
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by the interruption: that environment is done again
    return done


# ----------------------------------------------------------------------------- stage


def in_order(jobs: Iterable[Callable[[], Any]], workers: int, stack: contextlib.ExitStack) -> Iterator[Any]:
    """The results of `jobs` in their order, up to `workers` of them running at once in threads (1: each
    runs when its result is wanted). The thread pool is shut down by `stack`, without waiting for the jobs
    still running (a run stopped early)."""
    if workers <= 1:
        yield from (run() for run in jobs)
        return
    pool = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="tasks")
    stack.callback(pool.shutdown, wait=False, cancel_futures=True)
    window: deque = deque()
    for run in jobs:
        window.append(pool.submit(run))
        if len(window) >= workers:
            yield window.popleft().result()
    while window:
        yield window.popleft().result()


def environment_entry(
    item: tuple[int, dict, list[dict], bool], config: TasksConfig, env_ref: str, rewriter=None
) -> dict:
    """One environment (index, row, its graph edges, held out or not) -> its checkpoint entry: the task rows
    and rejected rows. A module-level function of one item, so `envscale.executor` runs it here or on a
    Ray worker with the same result."""
    index, row, env_edges, is_held = item
    tasks, drops = _one_environment(row, config, env_edges, is_held, env_ref, rewriter)
    return {"index": index, "name": _env_name(row), "tasks": tasks, "rejected": drops}


def _sharded(
    rows: Iterable[tuple[int, dict]],
    config: TasksConfig,
    edges: Any,
    finished: dict[tuple[int, str], dict],
    env_ref: str,
) -> Iterator[tuple[str, bool | None, dict | None, bool]]:
    """The loop's (name, held out, entry, new) per environment row, the new ones made by the run's executor
    (`envscale.executor`), in row order."""
    plan: deque = deque()  # what each row is, in order; the executor's results fill the new ones in order

    def items() -> Iterator[tuple[int, dict, list[dict], bool]]:
        for index, row in rows:
            name = _env_name(row)
            if not config.function_sets and environment_kind(row) == "function_set":
                plan.append((name, None, None))
                continue
            is_held = held_out(name, config)
            entry = finished.get((index, name))
            plan.append((name, is_held, entry))
            if entry is None:
                yield index, row, edges.get(row.get("domain_id"), []), is_held

    made = map_ordered(
        functools.partial(environment_entry, config=config, env_ref=env_ref), items(), shard_size=1
    )
    for entry in made:
        while plan[0][1] is None or plan[0][2] is not None:  # rows before this result: counted or resumed
            name, is_held, old = plan.popleft()
            yield name, is_held, old, False
        name, is_held, _ = plan.popleft()
        yield name, is_held, entry, True
    while plan:
        name, is_held, old = plan.popleft()
        yield name, is_held, old, False


def task_stats(task_files: list[Path], rejected_files: list[Path]) -> dict[str, Any]:
    """The card's counts from the written shards, with polars (lazily, in bounded memory): tasks per kind (and
    split), per chain length, shape and level (`difficulty`), and the drop reasons (the 30 most common)."""
    import polars as pl

    def counts(frame: Any, column: str, order: list[str] | None = None) -> dict[str, int]:
        table = frame.group_by(column).len().sort(["len", column], descending=[True, False]).collect()
        found = {str(k): n for k, n in table.iter_rows()}
        return {k: found.get(k, 0) for k in order} if order else found

    out: dict[str, Any] = {"per_kind": dict.fromkeys(KINDS, 0), "per_kind_and_split": {}}
    out |= {"per_chain_length": {}, "per_shape": {}, "per_level": {}}
    if task_files:
        frame = pl.scan_parquet(task_files)
        difficulty = pl.col("difficulty")
        if frame.collect_schema()["difficulty"] != pl.String:  # a `datasets.Json` column: its JSON text
            difficulty = difficulty.ext.storage()
        frame = frame.select(
            "kind",
            "split",
            *(
                difficulty.str.json_path_match(f"$.{key}").fill_null("None").alias(key)
                for key in ("chain_length", "shape", "level")
            ),
        )
        out["per_kind"] = counts(frame, "kind", list(KINDS))
        lengths = counts(frame, "chain_length")
        out["per_chain_length"] = dict(sorted(lengths.items(), key=lambda kv: (len(kv[0]), kv[0])))
        out["per_shape"], out["per_level"] = counts(frame, "shape"), counts(frame, "level")
        for split in ("train", "test"):
            out["per_kind_and_split"][split] = counts(
                frame.filter(pl.col("split") == split), "kind", list(KINDS)
            )
    else:
        out["per_kind_and_split"] = {split: dict.fromkeys(KINDS, 0) for split in ("train", "test")}
    reasons = counts(pl.scan_parquet(rejected_files).select("code"), "code") if rejected_files else {}
    out["drop_reasons"] = dict(list(reasons.items())[:30])
    out["environments_failed"] = reasons.get("environment_failed", 0)
    return out


def generate_tasks(env_artifact: Artifact, config: TasksConfig, output: str | Path) -> Artifact:
    """Generate, check and split the tasks of every environment of `env_artifact`, written at `output`.

    Returns:
        The new `tasks` :class:`~envscale.artifacts.Artifact` version: config `tasks` (splits `train`
        and `test`) and config `rejected` (every dropped candidate and failed environment, with its reason).
    """
    graph = source_graph(env_artifact)
    edges = dependency_edges(graph)
    inputs = [env_artifact.provenance()] + ([graph.provenance()] if graph is not None else [])
    writer = ArtifactWriter(
        Path(output),
        TASKS,
        config.fingerprint(env_artifact.content_key),
        config=to_dict(config),
        inputs=inputs,
    )
    with writer:
        return _generate(env_artifact, config, edges, graph.pinned if graph else None, writer)


def _generate(
    env_artifact: Artifact,
    config: TasksConfig,
    edges: Any,
    graph_ref: str | None,
    writer: ArtifactWriter,
) -> Artifact:
    environments = env_artifact.load("environments")
    parts = writer.parts_dir / PARTS_FILE
    finished = _finished(parts)
    if finished:
        logger.info("resume: %d environments were already done", len(finished))
    out = {
        split: writer.shard_writer("tasks", split, batch_size=200, row_group_rows=1000)
        for split in ("train", "test")
    }  # a task row holds its gold results: a row group waits in memory until full
    rejected = writer.shard_writer("rejected", batch_size=500)
    per_env: dict[str, int] = {}
    held: list[str] = []
    test_from_held = 0
    function_sets: list[str] = []
    from ..tasks.generate import Rewriter

    llm = config.llm_config()
    rewriter = Rewriter(llm) if llm is not None else None

    def job(index: int, row: dict):
        """What the loop below needs of one environment row, as a function run in order or in a thread."""
        name = _env_name(row)
        if not config.function_sets and environment_kind(row) == "function_set":
            return lambda: (name, None, None, None)  # no state to check: counted apart, no task posed
        is_held = held_out(name, config)
        entry = finished.get((index, name))
        if entry is not None:
            return lambda: (name, is_held, entry, False)

        def run():
            item = (index, row, edges.get(row.get("domain_id"), []), is_held)
            return name, is_held, environment_entry(item, config, env_artifact.pinned, rewriter), True

        return run

    rows = enumerate(iter_rows(environments, batch_size=64))
    with parts.open("a", encoding="utf-8") as checkpoint, contextlib.ExitStack() as stack:
        if rewriter is not None:
            stack.callback(rewriter.close)
        if current().kind == "local":
            # with an endpoint, environments are worded in threads: their rewrite requests are in flight together
            workers = config.llm_max_concurrency if rewriter is not None else 1
            done = in_order((job(index, row) for index, row in rows), workers, stack)
        else:
            if rewriter is not None:
                raise EnvscaleError(
                    "tasks: an LLM rewrite (llm_base_url) runs with executor local: it waits on the server, "
                    "not the CPU; its requests are in flight together up to llm_max_concurrency"
                )
            done = _sharded(rows, config, edges, finished, env_artifact.pinned)
        for name, is_held, entry, new in tqdm(done, total=environments.num_rows, desc="tasks", unit="env"):
            if entry is None:
                function_sets.append(name)
                continue
            if new:
                checkpoint.write(json.dumps(entry, ensure_ascii=False, default=str) + "\n")
                checkpoint.flush()
            tasks, drops = entry["tasks"], entry["rejected"]
            if is_held:
                held.append(name)
            per_env[name] = per_env.get(name, 0) + len(tasks)
            test_from_held += len(tasks) if is_held else 0
            for task in tasks:
                out[task["split"]].write(task)
            rejected.write_many(drops)
    counts = {"tasks": {split: w.close() for split, w in out.items()}, "rejected": rejected.close()}
    shapes = task_stats([f for w in out.values() for f in w.files()], rejected.files())
    kept = sum(counts["tasks"].values())
    sizes = sorted(per_env.values())
    stats = {
        "environments": len(per_env) + len(function_sets),
        "worlds": len(per_env),
        "function_sets": len(function_sets),
        "function_sets_posed": bool(config.function_sets),
        "environments_with_tasks": sum(n > 0 for n in sizes),
        "environments_failed": shapes.pop("environments_failed"),
        "held_out_environments": len(held),
        "held_out_names": sorted(held)[:HELD_OUT_NAMES],
        "tasks": kept,
        "rejected": counts["rejected"],
        "per_split": dict(counts["tasks"]),
        "test_from_held_out_environments": test_from_held,
        "test_from_other_environments": counts["tasks"]["test"] - test_from_held,
        **{
            k: shapes[k]
            for k in ("per_kind", "per_kind_and_split", "per_chain_length", "per_shape", "per_level")
        },
        "per_environment": {
            "min": sizes[0] if sizes else 0,
            "median": statistics.median(sizes) if sizes else 0,
            "max": sizes[-1] if sizes else 0,
            "mean": round(kept / len(sizes), 2) if sizes else 0.0,
        },
        "drop_reasons": shapes["drop_reasons"],
        "graph": graph_ref,
        "graph_dependency_edges": edges.count() if edges else 0,  # offered to the generator
    }
    if rewriter is not None:
        stats["rewrites"] = rewriter.counts()
        if rewriter.failed:
            logger.warning(
                "%d of %d LLM rewrites failed (the first: %s); those tasks keep the template's wording",
                rewriter.failed,
                rewriter.asked,
                rewriter.first_error,
            )
    stats["executor"] = executor_report()  # how it ran (peak memory per worker), not what it made
    art = writer.commit(counts, stats)
    logger.info(
        "tasks %s: %d kept (train %d, test %d) over %d environments, %d rejected",
        art.pinned,
        kept,
        counts["tasks"]["train"],
        counts["tasks"]["test"],
        stats["environments_with_tasks"],
        counts["rejected"],
    )
    return art
