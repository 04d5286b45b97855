"""The `filter` stage's library: `trajectories` -> `filtered`, the SFT data: episodes that reach the gold outcome.

Every trajectory is judged against its task by `envscale.judge` (`judge_trajectory`: the checks
`ended`, `format`, `schema`, `state`, `answer`, `actions`, `policy`, `exact`, each in its own
column, and the verdict; the rules are in `envscale.judge`'s docstring). A trajectory passes when
every check named in `levels` holds (a check the task is not scored on holds). Passing trajectories
go to the `filtered` config, the others to `rejected` with their failed checks; this stage finds
each trajectory's task and environment, writes the rows, and the card shows pass rates per check,
per kind and per environment.

The `filtered` rows keep `messages` and `tools` as `datasets.Json()` columns in OpenAI format, so TRL's
`SFTTrainer` trains on them as `load_dataset` returns them. In `filtered` the user's last message
(the stop marker after the agent's final answer) is dropped, so each conversation ends with the
agent's answer; `rejected` keeps the conversation as it was.

CLI: `envscale filter --input outputs/quickstart/trajectories --output outputs/quickstart/filtered
--levels ended,format,state,answer,exact`.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from ..artifacts import Artifact, ArtifactWriter, iter_rows, resolve_input
from ..config import check_fields, fingerprint, option, to_dict
from ..schemas import CHECKS, FILTERED, STOP, TRAJECTORY_FEATURES
from . import DEFAULT_LEVELS, EnvironmentCache, environment_error, judge_trajectory

logger = logging.getLogger(__name__)

#: Most environments listed by name with their pass rate in the manifest (the lowest first).
PER_ENV_LISTED = 500


@dataclass
class FilterConfig:
    """Configuration of `envscale filter`."""

    levels: list[str] = option(
        list(DEFAULT_LEVELS),
        f"Checks a trajectory must pass ({', '.join(CHECKS)}). Add `exact` for the strict level "
        "(the gold calls, no extra ones); `schema` to drop trajectories with any invalid call.",
    )

    def __post_init__(self) -> None:
        check_fields(self)
        unknown = sorted(set(self.levels) - set(CHECKS))
        if unknown:
            raise ValueError(f"FilterConfig.levels has unknown checks {unknown}; checks: {', '.join(CHECKS)}")
        if not self.levels:
            raise ValueError("FilterConfig.levels must name at least one check")

    def fingerprint(self, input_key: str) -> str:
        return fingerprint(self, FILTERED, inputs=[input_key])


def sft_messages(messages: list[dict]) -> list[dict]:
    """The conversation for training: without the user's closing stop message."""
    if messages and messages[-1].get("role") == "user" and STOP in (messages[-1].get("content") or ""):
        return messages[:-1]
    return messages


def filter_trajectories(traj_art: Artifact, config: FilterConfig, output: str | Path) -> Artifact:
    """Check every trajectory of `traj_art` and write the `filtered` artifact at `output`."""
    tasks_art = resolve_input(traj_art, "tasks")
    envs_art = resolve_input(tasks_art, "environments")
    writer = ArtifactWriter(
        Path(output),
        FILTERED,
        config.fingerprint(traj_art.content_key),
        config=to_dict(config),
        inputs=[traj_art.provenance(), tasks_art.provenance(), envs_art.provenance()],
    )
    with writer:
        return _filter(traj_art, tasks_art, envs_art, config, writer)


def _filter(
    traj_art: Artifact, tasks_art: Artifact, envs_art: Artifact, config: FilterConfig, writer: ArtifactWriter
) -> Artifact:
    tasks = {split: tasks_art.load("tasks", split) for split in tasks_art.splits.get("tasks", {})}
    where = {tid: (split, i) for split, ds in tasks.items() for i, tid in enumerate(ds["task_id"])}
    environments = envs_art.load("environments")
    env_index = {name: i for i, name in enumerate(environments["name"])}
    envs = EnvironmentCache(max_size=32)
    trajectories = traj_art.load("trajectories")
    out = {name: writer.shard_writer(name, batch_size=500) for name in ("filtered", "rejected")}
    applicable, held = Counter(), Counter()
    per_kind: dict[str, Counter] = {}
    per_env: dict[str, Counter] = {}
    failed_on = Counter()
    broken: dict[str, str] = {}  # environments that could not be built, with the reason
    try:
        rows = iter_rows(trajectories, batch_size=256)
        for traj in tqdm(rows, total=trajectories.num_rows, desc="filter", unit="trajectory"):
            tid = traj["task_id"]
            if tid not in where:
                raise ValueError(
                    f"trajectory {traj['trajectory_id']}: task {tid!r} is not in {tasks_art.pinned}"
                )
            split, index = where[tid]
            task = tasks[split][index]
            name = task["environment"]
            if name not in env_index:
                raise ValueError(f"task {tid}: environment {name!r} is not in {envs_art.pinned}")
            try:
                env = envs.get(environments[env_index[name]])
            except Exception as exc:  # noqa: BLE001 - one broken environment never stops the others
                if name not in broken:
                    logger.warning(
                        "environment %s cannot be built (%s); its trajectories are rejected", name, exc
                    )
                broken[name] = f"{type(exc).__name__}: {exc}"
                env = None
            if env is None:
                judged = environment_error(broken[name], config.levels)
            else:
                try:
                    judged = judge_trajectory(traj, task, env, config.levels)
                except Exception as exc:  # noqa: BLE001 - one trajectory that cannot be judged never stops the run
                    logger.warning("trajectory %s cannot be judged: %s", traj["trajectory_id"], exc)
                    judged = environment_error(
                        f"cannot be judged: {type(exc).__name__}: {exc}", config.levels
                    )
            checks, passed, failed = judged.checks, judged.passed, judged.failed
            row: dict[str, Any] = {k: traj.get(k) for k in TRAJECTORY_FEATURES}
            row |= {f"check_{k}": v for k, v in checks.items()}
            row |= {"passed": passed, "failed_checks": failed}
            if passed:
                row["messages"] = sft_messages(_json(row["messages"]) or [])
            out["filtered" if passed else "rejected"].write(row)
            for k, v in checks.items():
                if v is not None:
                    applicable[k] += 1
                    held[k] += bool(v)
            failed_on.update(f.split(":")[0] for f in failed)
            per_kind.setdefault(traj["kind"], Counter()).update(episodes=1, passed=int(passed))
            per_env.setdefault(name, Counter()).update(episodes=1, passed=int(passed))
    finally:
        envs.close()
    counts = {name: w.close() for name, w in out.items()}
    total = counts["filtered"] + counts["rejected"]

    def rate(c: Counter) -> float:
        return round(c["passed"] / c["episodes"], 4) if c["episodes"] else 0.0

    env_rates = sorted(per_env.items(), key=lambda kv: (rate(kv[1]), kv[0]))
    stats = {
        "trajectories": total,
        "passed": counts["filtered"],
        "pass_rate": round(counts["filtered"] / total, 4) if total else 0.0,
        "levels": list(config.levels),
        "per_check": {
            k: {"applicable": applicable[k], "held": held[k], "rate": round(held[k] / applicable[k], 4)}
            for k in CHECKS
            if applicable[k]
        },
        "failed_on": dict(failed_on.most_common()),
        "per_kind": {
            k: {"episodes": c["episodes"], "passed": c["passed"], "rate": rate(c)}
            for k, c in sorted(per_kind.items())
        },
        "environments": len(per_env),
        "environments_with_a_pass": sum(1 for c in per_env.values() if c["passed"]),
        "per_environment": {
            name: {"episodes": c["episodes"], "passed": c["passed"], "rate": rate(c)}
            for name, c in env_rates[:PER_ENV_LISTED]
        },
        "environments_not_built": dict(sorted(broken.items())[:PER_ENV_LISTED]),
        "trajectories_ref": traj_art.pinned,
        "tasks_ref": tasks_art.pinned,
    }
    art = writer.commit(counts, stats)
    logger.info(
        "filtered %s: %d of %d trajectories pass (%s)",
        art.pinned,
        counts["filtered"],
        total,
        ", ".join(config.levels),
    )
    return art


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value
