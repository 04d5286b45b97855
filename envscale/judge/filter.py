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

import functools
import json
import logging
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from ..artifacts import Artifact, ArtifactWriter, iter_rows, open_artifact, resolve_input
from ..config import check_fields, fingerprint, option, to_dict
from ..executor import map_ordered
from ..executor import report as executor_report
from ..schemas import CHECKS, FILTERED, PASS_RATES_FEATURES, STOP, TRAJECTORY_FEATURES
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


class EnvironmentSource:
    """The environments of one artifact by name, each built once per process (a bounded cache), with the
    reason of any that cannot be built. A filter worker keeps one per artifact (`source_for`)."""

    def __init__(self, ref: str):
        self.dataset = open_artifact(ref, expect_kind="environments", check=False).load("environments")
        self.index = {name: i for i, name in enumerate(self.dataset["name"])}
        self.cache = EnvironmentCache(max_size=32)
        self.broken: dict[str, str] = {}
        # decoded rows by name, as many as the cache holds: the cache finds a row it has seen by identity,
        # without decoding and digesting its spec again for every trajectory (~100 ms a trajectory at scale)
        self.rows: OrderedDict[str, dict] = OrderedDict()

    def get(self, name: str) -> Any:
        """The environment `name`, or `None` when it cannot be built (the reason in `broken`)."""
        if name in self.broken:
            return None
        try:
            row = self.rows.get(name)
            if row is None:
                row = self.rows[name] = self.dataset[self.index[name]]
                if len(self.rows) > self.cache.max_size:
                    self.rows.popitem(last=False)
            self.rows.move_to_end(name)
            return self.cache.get(row)
        except Exception as exc:  # noqa: BLE001 - one broken environment never stops the others
            logger.warning("environment %s cannot be built (%s); its trajectories are rejected", name, exc)
            self.broken[name] = f"{type(exc).__name__}: {exc}"
            return None


_SOURCES: dict[str, EnvironmentSource] = {}


def source_for(ref: str) -> EnvironmentSource:
    """This process's `EnvironmentSource` of the environments artifact `ref` (a pinned location)."""
    if ref not in _SOURCES:
        _SOURCES[ref] = EnvironmentSource(ref)
    return _SOURCES[ref]


def close_sources() -> None:
    while _SOURCES:
        _SOURCES.popitem()[1].cache.close()


def judge_item(item: tuple[dict, dict], levels: list[str], envs_ref: str) -> dict:
    """One (trajectory, task) -> its `filtered`/`rejected` row and verdict. A module-level function of one
    item, so `envscale.executor` runs it here or on a Ray worker (which opens `envs_ref` itself)."""
    traj, task = item
    source = source_for(envs_ref)
    name = task["environment"]
    env = source.get(name)
    if env is None:
        judged = environment_error(source.broken[name], levels)
    else:
        try:
            judged = judge_trajectory(traj, task, env, levels)
        except Exception as exc:  # noqa: BLE001 - one trajectory that cannot be judged never stops the run
            logger.warning("trajectory %s cannot be judged: %s", traj["trajectory_id"], exc)
            judged = environment_error(f"cannot be judged: {type(exc).__name__}: {exc}", levels)
    row: dict[str, Any] = {k: traj.get(k) for k in TRAJECTORY_FEATURES}
    row |= {f"check_{k}": v for k, v in judged.checks.items()}
    row |= {"passed": judged.passed, "failed_checks": judged.failed}
    if judged.passed:
        row["messages"] = sft_messages(_json(row["messages"]) or [])
    return {"row": row, "environment": name, "broken": source.broken.get(name)}


def verdict_stats(files: list[Path]) -> dict[str, Any]:
    """The card's pass rates from the written `filtered` and `rejected` shards, with polars (lazily, in bounded
    memory): per check (applicable: not null; held), the failed checks by name, per kind and per environment
    (the `PER_ENV_LISTED` lowest rates, then by name)."""
    import polars as pl

    empty = {
        "per_check": {},
        "failed_on": {},
        "per_kind": {},
        "environments": 0,
        "environments_with_a_pass": 0,
    }
    if not files:
        return empty | {"per_environment": {}}
    columns = ["kind", "environment", "passed", "failed_checks", *(f"check_{k}" for k in CHECKS)]
    frame = pl.scan_parquet(files).select(columns)
    checks = (
        frame.select(
            *(pl.col(f"check_{k}").is_not_null().sum().alias(f"{k}:applicable") for k in CHECKS),
            *(pl.col(f"check_{k}").fill_null(False).cast(pl.Int64).sum().alias(f"{k}:held") for k in CHECKS),
        )
        .collect()
        .row(0, named=True)
    )
    failed = (
        frame.select(pl.col("failed_checks").explode().str.split(":").list.first().alias("check"))
        .drop_nulls()
        .group_by("check")
        .len()
        .sort(["len", "check"], descending=[True, False])
        .collect()
    )

    def rates(by: str) -> pl.DataFrame:
        return (
            frame.group_by(by)
            .agg(pl.len().alias("episodes"), pl.col("passed").cast(pl.Int64).sum().alias("passed"))
            .with_columns((pl.col("passed") / pl.col("episodes")).round(4).alias("rate"))
            .collect()
        )

    def listed(table: pl.DataFrame, by: str) -> dict[str, dict]:
        return {
            r[by]: {"episodes": r["episodes"], "passed": r["passed"], "rate": r["rate"]}
            for r in table.iter_rows(named=True)
        }

    per_env = rates("environment")
    return {
        "per_check": {
            k: {
                "applicable": checks[f"{k}:applicable"],
                "held": checks[f"{k}:held"],
                "rate": round(checks[f"{k}:held"] / checks[f"{k}:applicable"], 4),
            }
            for k in CHECKS
            if checks[f"{k}:applicable"]
        },
        "failed_on": dict(failed.iter_rows()),
        "per_kind": listed(rates("kind").sort("kind"), "kind"),
        "environments": per_env.height,
        "environments_with_a_pass": per_env.filter(pl.col("passed") > 0).height,
        "per_environment": listed(per_env.sort(["rate", "environment"]).head(PER_ENV_LISTED), "environment"),
    }


def pass_rates(files: list[Path]) -> Any:
    """The `pass_rates` config from the written `filtered` and `rejected` shards (polars, lazily): per task, its
    episodes, how many were kept, and the rate, sorted by task id."""
    import polars as pl

    table = PASS_RATES_FEATURES.arrow_schema.empty_table()
    if not files:
        return table
    frame = (
        pl.scan_parquet(files)
        .group_by("task_id")
        .agg(
            pl.col("environment").first(),
            pl.col("kind").first(),
            pl.len().cast(pl.Int32).alias("episodes"),
            pl.col("passed").cast(pl.Int32).sum().alias("passed"),
        )
        .with_columns((pl.col("passed") / pl.col("episodes")).round(4).alias("pass_rate"))
        .sort("task_id")
        .collect()
    )
    return frame.to_arrow().select(list(PASS_RATES_FEATURES)).cast(PASS_RATES_FEATURES.arrow_schema)


def _filter(
    traj_art: Artifact, tasks_art: Artifact, envs_art: Artifact, config: FilterConfig, writer: ArtifactWriter
) -> Artifact:
    tasks = {split: tasks_art.load("tasks", split) for split in tasks_art.splits.get("tasks", {})}
    where = {tid: (split, i) for split, ds in tasks.items() for i, tid in enumerate(ds["task_id"])}
    env_names = set(envs_art.load("environments")["name"])
    trajectories = traj_art.load("trajectories")
    out = {name: writer.shard_writer(name, batch_size=500) for name in ("filtered", "rejected")}
    broken: dict[str, str] = {}  # environments that could not be built, with the reason

    def items():
        for traj in iter_rows(trajectories, batch_size=256):
            tid = traj["task_id"]
            if tid not in where:
                raise ValueError(
                    f"trajectory {traj['trajectory_id']}: task {tid!r} is not in {tasks_art.pinned}"
                )
            split, index = where[tid]
            task = tasks[split][index]
            if task["environment"] not in env_names:
                raise ValueError(
                    f"task {tid}: environment {task['environment']!r} is not in {envs_art.pinned}"
                )
            yield traj, task

    judge = functools.partial(judge_item, levels=list(config.levels), envs_ref=envs_art.pinned)
    try:
        for result in tqdm(
            map_ordered(judge, items(), shard_size=64),
            total=trajectories.num_rows,
            desc="filter",
            unit="trajectory",
        ):
            row, name = result["row"], result["environment"]
            if result["broken"]:
                broken[name] = result["broken"]
            out["filtered" if row["passed"] else "rejected"].write(row)
    finally:
        close_sources()
    counts = {name: w.close() for name, w in out.items()}
    judged = [f for w in out.values() for f in w.files()]
    rates = writer.shard_writer("pass_rates")
    rates.write_table(pass_rates(judged))
    counts["pass_rates"] = rates.close()
    total = counts["filtered"] + counts["rejected"]
    stats = {
        "trajectories": total,
        "passed": counts["filtered"],
        "pass_rate": round(counts["filtered"] / total, 4) if total else 0.0,
        "levels": list(config.levels),
        **verdict_stats(judged),
        "tasks_judged": counts["pass_rates"],
        "environments_not_built": dict(sorted(broken.items())[:PER_ENV_LISTED]),
        "trajectories_ref": traj_art.pinned,
        "tasks_ref": tasks_art.pinned,
    }
    stats["executor"] = executor_report()  # how it ran (peak memory per worker), not what it made
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
