"""Run agents on a benchmark and score every episode: the `results` rows of an `eval` artifact.

**Held-out tasks** (`benchmark: tasks`). Each agent plays the `test` split of a tasks artifact through
the rollout stage itself (:func:`envscale.rollout.run.rollout`, with the configured simulated user),
into `<eval output>/rollouts/<agent>`: resumable, recorded as a `trajectories` artifact, and reused when
complete with the same config and tasks. Every trajectory is then judged as `filter` judges it
(:func:`envscale.judge.judge_trajectory`: the calls replayed on a fresh copy of the task's environment)
and succeeds when every check of `levels` holds (a check the task is not scored on holds), so success
follows each task's own scoring basis (state, answer facts, required or forbidden actions).

A test task is `heldout_envs` when the tasks stage held its environment out whole (so training never saw
it) and `heldout_tasks` when the task alone was held out: the task row's `held_out` column
(`"environment"` or `"task"`, written by the tasks stage since tasks schema 1.1). Difficulty is the task's
`difficulty.level`; tasks without one are grouped by their number of gold calls (`calls=N`), a proxy.

**BFCL** (`benchmark: bfcl`): each question of the chosen categories is asked once per trial
(`envscale.evaluation.bfcl`), its answer appended to the agent's answers file
(`<eval output>/bfcl_answers/<agent>-<hash>.jsonl`, :func:`bfcl_checkpoint`) as it comes, so an
interrupted run resumes and a larger run asks only the questions not yet answered.

Example:

```python
>>> from envscale.artifacts import open_artifact
>>> from envscale.evaluation.harness import agent_rollout, score_rollout
>>> tasks = open_artifact("outputs/quickstart/tasks")
>>> traj = agent_rollout(tasks, "scripted", {"kind": "scripted"}, config, "outputs/eval/rollouts")
>>> rows = score_rollout(traj, tasks, "scripted", levels=("ended", "format", "state", "answer"))
```
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from ..artifacts import Artifact, is_complete, iter_rows, resolve_input
from ..errors import ArtifactError
from ..judge import (
    SCHEMA_ERRORS,
    EnvironmentCache,
    environment_error,
    gold_call_recall,
    judge_trajectory,
    required_arguments,
)

logger = logging.getLogger(__name__)

#: Call error codes that make a call invalid (not well formed, unknown tool, schema-invalid arguments).


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


# ----------------------------------------------------------------------------- held-out tasks


def rollout_config(agent: dict, config: Any):
    """The rollout stage's config for one agent on the `test` split, from the eval config."""
    from ..rollout.run import RolloutConfig

    return RolloutConfig(
        agent=dict(agent),
        user=dict(config.user),
        splits=["test"],
        max_tasks=config.max_tasks,
        max_tool_chars=config.max_tool_chars,
        trials=config.trials,
        seed=config.seed,
        max_turns=config.max_turns,
        max_steps=config.max_steps,
        episode_timeout=config.episode_timeout,
        concurrency=config.concurrency,
    )


def agent_rollout(tasks_art: Artifact, name: str, agent: dict, config: Any, root: str | Path) -> Artifact:
    """The agent's episodes on the test tasks: `root/<name>`, reused when complete, else (re)played."""
    from ..rollout.run import rollout

    rc = rollout_config(agent, config)
    out = Path(root) / name
    done = is_complete(out, rc.fingerprint(tasks_art.content_key))
    if done is not None:
        logger.info("agent %s: reusing the complete rollout %s", name, done.pinned)
        return done
    logger.info("agent %s: rolling out the test tasks into %s", name, out)
    return rollout(tasks_art, rc, out)


def require_held_out(tasks_art: Artifact) -> None:
    """Fail in one line when the tasks' rows do not say why they are held out (tasks schema before 1.1).

    Raises:
        `ArtifactError`: The `tasks` config has no `held_out` column; the way out is to re-run `envscale tasks`.
    """
    test = tasks_art.load("tasks", "test")  # a local artifact made before 1.1 loads the column as nulls
    if "held_out" not in test.column_names or None in test.select_columns(["held_out"])["held_out"]:
        raise ArtifactError(
            f"the tasks artifact {tasks_art.pinned} (tasks schema {tasks_art.manifest.get('schema_version')}) "
            "has no `held_out` column, which eval reads; re-run `envscale tasks` to make the tasks again"
        )


def split_kind(task: dict) -> str:
    """`heldout_envs` for a task whose environment was held out whole, else `heldout_tasks`."""
    return "heldout_envs" if task["held_out"] == "environment" else "heldout_tasks"


def difficulty_of(task: dict) -> str:
    """The task's difficulty level, or `calls=N` (its number of gold calls) when it carries none."""
    level = (_json(task.get("difficulty")) or {}).get("level")
    return str(level) if level else f"calls={len(_json(task.get('gold_calls')) or [])}"


def call_counts(calls: list[dict]) -> tuple[int, int]:
    """(calls, valid calls): a call is invalid when it was refused as unknown or with invalid arguments."""
    valid = sum(1 for c in calls if c.get("ok") or c.get("code") not in SCHEMA_ERRORS)
    return len(calls), valid


def score_rollout(
    traj_art: Artifact,
    tasks_art: Artifact,
    name: str,
    levels: Sequence[str],
) -> list[dict]:
    """One `results` row per trajectory of `traj_art`: the filter's checks against each task."""
    require_held_out(tasks_art)
    envs_art = resolve_input(tasks_art, "environments")
    test = tasks_art.load("tasks", "test")
    tasks = {t["task_id"]: t for t in iter_rows(test, batch_size=256)}
    environments = envs_art.load("environments")
    env_index = {n: i for i, n in enumerate(environments["name"])}
    cache = EnvironmentCache(max_size=32)
    rows = []
    trajectories = traj_art.load("trajectories")
    try:
        for traj in tqdm(
            iter_rows(trajectories, batch_size=256),
            total=trajectories.num_rows,
            desc=f"score {name}",
            unit="episode",
            leave=False,  # the agent's rollout bar stays; scoring is a moment after it
        ):
            task = tasks.get(traj["task_id"])
            if task is None:
                raise ValueError(
                    f"trajectory {traj['trajectory_id']}: task {traj['task_id']!r} is not a test task"
                )
            env_name = task["environment"]
            try:
                env = cache.get(environments[env_index[env_name]])
                judged = judge_trajectory(traj, task, env, levels)
            except Exception as exc:  # noqa: BLE001 - a broken environment fails its episodes, not the run
                judged = environment_error(f"{type(exc).__name__}: {exc}")
            calls = _json(traj.get("calls")) or []
            n_calls, n_valid = call_counts(calls)
            try:
                right_tools, right_calls = gold_call_recall(
                    calls,
                    _json(task.get("gold_calls")) or [],
                    required_arguments(cache.get(environments[env_index[env_name]])),
                )
            except Exception:  # noqa: BLE001 - the environment failed above already; no partial credit
                right_tools = right_calls = 0.0
            rows.append(
                {
                    "agent": name,
                    "benchmark": "tasks",
                    "id": traj["task_id"],
                    "trial": traj["trial"],
                    "kind": task["kind"],
                    "environment": env_name,
                    "split_kind": split_kind(task),
                    "difficulty": difficulty_of(task),
                    "success": judged.passed,
                    "failed_checks": judged.failed,
                    "checks": judged.checks,
                    "n_calls": n_calls,
                    "n_valid_calls": n_valid,
                    "right_tools": right_tools,
                    "right_calls": right_calls,
                    "status": traj["status"],
                    "trajectory_id": traj["trajectory_id"],
                    "output": {"final_answer": traj.get("final_answer"), "error": traj.get("error")},
                    "agent_backend": _json(traj.get("agent")),
                    "wall_s": traj.get("wall_s"),
                }
            )
    finally:
        cache.close()
    return rows


# ----------------------------------------------------------------------------- BFCL


def _seed(seed: int, *parts: Any) -> int:
    digest = hashlib.blake2b(json.dumps([seed, *parts]).encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big") >> 1


#: Backend settings that say how to reach a server, not what answers (left out of an answers file's name).
RUN_ONLY = ("api_key", "base_url", "timeout", "max_retries")


def bfcl_checkpoint(root: str | Path, name: str, agent: dict, config: Any) -> Path:
    """The answers file of one agent: `root/bfcl_answers/<name>-<hash>.jsonl`.

    The hash covers what decides an answer (the backend without server address or key, the seed and the
    pinned wheel), not which questions are asked: a run of the first 100 questions and a later run of all
    400 share the file, so the later one asks only the 300 others. Another model or sampling setting gets a
    file of its own.
    """
    from .bfcl import BFCL_REQUIREMENT

    backend = {k: v for k, v in sorted(agent.items()) if k not in RUN_ONLY}
    key = json.dumps([backend, config.seed, BFCL_REQUIREMENT], sort_keys=True, default=str)
    digest = hashlib.blake2b(key.encode(), digest_size=6).hexdigest()
    return Path(root) / "bfcl_answers" / f"{name}-{digest}.jsonl"


def run_bfcl(name: str, agent: dict, config: Any, checkpoint: Path) -> list[dict]:
    """Ask every question of `config.bfcl_categories` `config.trials` times; one `results` row each.

    Finished answers are appended to `checkpoint` (JSON Lines, see :func:`bfcl_checkpoint`) as they come; a
    re-run asks only the others.
    """
    from . import bfcl

    questions = [
        q for category in config.bfcl_categories for q in bfcl.load_questions(category, config.max_questions)
    ]
    done = _read_checkpoint(checkpoint)
    jobs = [(q, t) for q in questions for t in range(config.trials) if f"{q.id}#{t}" not in done]
    total = len(questions) * config.trials
    if jobs and len(jobs) < total:
        logger.info(
            "agent %s: resume, %d of %d answers already in %s", name, total - len(jobs), total, checkpoint
        )
    if jobs:
        checkpoint.parent.mkdir(parents=True, exist_ok=True)
        asyncio.run(_ask_all(name, agent, config, jobs, checkpoint, total=total))
        done = _read_checkpoint(checkpoint)
    return [done[f"{q.id}#{t}"] for q in questions for t in range(config.trials)]


def _read_checkpoint(path: Path) -> dict[str, dict]:
    rows: dict[str, dict] = {}
    if not path.is_file():
        return rows
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except ValueError:  # a line cut short by a kill: asked again
            continue
        rows[f"{row['id']}#{row['trial']}"] = row
    return rows


async def _ask_all(name: str, agent: dict, config: Any, jobs: list, checkpoint: Path, total: int) -> None:
    import time

    from ..rollout.backends import BackendConfig
    from ..rollout.factory import make_backend
    from . import bfcl

    backend = make_backend(
        BackendConfig.from_value(dict(agent), f"agent {name}"), "agent", concurrency=config.concurrency
    )
    if hasattr(backend, "load"):
        await backend.load()
    info = backend.info()
    semaphore = asyncio.Semaphore(config.concurrency)
    bar = tqdm(total=total, initial=total - len(jobs), desc=f"bfcl {name}", unit="question")
    cut = checkpoint.is_file() and checkpoint.stat().st_size and not checkpoint.read_bytes().endswith(b"\n")
    out = checkpoint.open("a", encoding="utf-8")
    if cut:  # the last line of a killed run: end it, so that it alone is skipped
        out.write("\n")

    async def one(question: Any, trial: int) -> None:
        async with semaphore:
            seed = _seed(config.seed, question.id, trial)
            task = bfcl.scripted_task(question)
            start = time.perf_counter()
            try:
                answer = await bfcl.ask(backend.speaker(task, seed), question)
                status, error = "answered", None
            except Exception as exc:  # noqa: BLE001 - a failed request is a wrong answer, kept with its reason
                answer = {"output": None, "calls": [], "content": None, "valid_calls": [], "verdict": None}
                status, error = "error", f"{type(exc).__name__}: {exc}"[:1000]
            verdict_ = answer["verdict"] or {
                "valid": False,
                "error": [error],
                "error_type": "envscale:agent_error",
            }
            row = {
                "agent": name,
                "benchmark": "bfcl",
                "id": question.id,
                "trial": trial,
                "kind": question.category,
                "environment": None,
                "split_kind": "bfcl",
                "difficulty": f"calls={len(question.possible_answer)}",
                "success": bool(verdict_.get("valid")),
                "failed_checks": [] if verdict_.get("valid") else [str(verdict_.get("error_type"))],
                "checks": verdict_,
                "n_calls": len(answer["calls"]),
                "n_valid_calls": sum(answer["valid_calls"]),
                "status": status,
                "trajectory_id": None,
                "output": {"calls": answer["calls"], "content": answer["content"], "error": error},
                "agent_backend": info,
                "wall_s": round(time.perf_counter() - start, 3),
            }
            out.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
            out.flush()
            bar.update(1)

    try:
        async with asyncio.TaskGroup() as group:
            for question, trial in jobs:
                group.create_task(one(question, trial))
    finally:
        bar.close()
        out.close()
        await backend.aclose()
