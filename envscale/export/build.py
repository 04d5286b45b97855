"""`export(...)`: a `tasks` artifact's admitted tasks written in another project's format.

The tasks are admitted exactly as `envscale rl` admits them (`envscale.rl.spec.EnvscaleSpec`: the gates of
`envscale.rl.gates`, a task's own tools offered, no simulated user: every format here drives the agent's side
only, so the gate `needs_user` refuses the tasks whose user would speak again, and the system prompt does not tell
the agent to ask). An environment that cannot be built refuses its tasks, which are listed in `rejected.jsonl` with the
reason (one warning line per environment), and the export goes on with the others.

Every export folder holds, besides the format's own files:

- `data/`: the environments and tasks (`envscale.export.episodes.write_data`);
- `rejected.jsonl`: the tasks left out, `{"task_id", "environment", "code", "detail"}`;
- `export.json`: the format, the input (pinned), the split and the counts.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from .. import __version__
from ..artifacts import Artifact, ArtifactNotFoundError, iter_rows, open_artifact
from . import FORMATS
from .episodes import write_data

logger = logging.getLogger(__name__)

REJECTED_FILE = "rejected.jsonl"
SUMMARY_FILE = "export.json"


def open_tasks(ref: str | os.PathLike | Artifact) -> Artifact:
    """The `tasks` artifact `ref` names: the artifact itself, or a run's output folder holding `tasks/`."""
    if isinstance(ref, Artifact):
        return ref
    path = Path(ref) if not str(ref).startswith("hf://") else None
    if path is not None and (path / "tasks").is_dir():
        try:
            return open_artifact(path / "tasks", expect_kind="tasks")
        except ArtifactNotFoundError:
            pass
    return open_artifact(ref, expect_kind="tasks")


def export(
    ref: str | os.PathLike | Artifact,
    fmt: str,
    output: str | os.PathLike,
    *,
    split: str = "test",
    max_tasks: int | None = None,
    environments: list[str] | None = None,
    show_progress: bool = True,
) -> dict[str, Any]:
    """Write the admitted tasks of `ref`'s `split` in format `fmt` under `output`.

    Args:
        ref: A `tasks` artifact (path, `PATH@vN`, `hf://...`) or a run's output folder holding `tasks/`.
        fmt (`str`): One of `FORMATS`.
        output: The folder to write (created; the files an earlier export wrote there are replaced).
        split (`str`): The tasks' split (`test`, `train`).
        max_tasks (`int`, *optional*): At most this many tasks (environments take turns, as in `envscale rl`).
        environments (`list[str]`, *optional*): Only the tasks of these environments.
        show_progress (`bool`): tqdm bars over the tasks (admission) and the written tasks.

    Returns:
        `dict`: `{"format", "output", "input", "split", "tasks", "environments", "rejected", "files"}`.

    Raises:
        `ValueError`: An unknown format or environment name, a bad `max_tasks`, or no task admitted.
        `ArtifactError`: `ref` is not a `tasks` artifact.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if max_tasks is not None and (not isinstance(max_tasks, int) or max_tasks < 1):
        raise ValueError(f"--max-tasks must be a positive integer, got {max_tasks!r}")
    from ..rl.spec import EnvscaleSpec  # imports the rollout backends: only when exporting

    tasks_art = open_tasks(ref)
    if split not in tasks_art.manifest.get("splits", {}).get("tasks", {split: 0}):
        raise ValueError(f"{tasks_art.pinned} has no split {split!r}")
    task_ids = None
    if environments:
        in_split = {
            r["task_id"]: r["environment"]
            for r in iter_rows(tasks_art.load("tasks", split), ["task_id", "environment"])
        }
        unknown = sorted(set(environments) - set(in_split.values()))
        if unknown:
            raise ValueError(
                f"{tasks_art.pinned} split {split!r} has no task of environment {', '.join(map(repr, unknown))}"
            )
        task_ids = [t for t, e in in_split.items() if e in set(environments)]
    spec = EnvscaleSpec(
        tasks_art,
        split=split,
        user=None,
        offer="task",
        max_tasks=max_tasks,
        task_ids=task_ids,
        show_progress=show_progress,
    )
    broken: dict[str, list[dict]] = {}
    for r in spec.rejected:
        if r["code"] == "environment_error":
            broken.setdefault(r["environment"], []).append(r)
    for name, refused in broken.items():
        logger.warning(
            "export: environment %r rejected (%d task(s) left out): %s",
            name,
            len(refused),
            refused[0]["detail"],
        )
    try:
        rows = list(spec.train_dataset)
    except ValueError as exc:  # nothing admitted: say why in one line
        raise ValueError(f"export: {exc}") from None
    specs: dict[str, dict] = {}
    entries = []
    for row in rows:
        cls = spec.environment_factory[row["environment"]]
        task = spec.task(row["task_id"])
        specs.setdefault(cls.environment_name, cls.spec)
        entries.append(
            {
                "task_id": row["task_id"],
                "environment": cls.environment_name,
                "split": split,
                "tools": list(cls.offered_tools),
                "prompt": row["prompt"],  # EnvscaleSpec(user=None): no "ask the user" in it
                "task": task,
            }
        )
    out = Path(output)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--output {out} is a file, not a folder")
    out.mkdir(parents=True, exist_ok=True)
    module = format_module(fmt)
    bar = tqdm(entries, desc=f"export {fmt}", unit="task", disable=not show_progress)
    write_data(module.data_dir(out), specs, bar)
    files = module.write(out, entries, specs, envscale_version=__version__, show_progress=show_progress)
    with (out / REJECTED_FILE).open("w", encoding="utf-8") as f:
        for r in spec.rejected:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    summary = {
        "format": fmt,
        "output": str(out),
        "input": tasks_art.pinned,
        "split": split,
        "envscale_version": __version__,
        "tasks": len(entries),
        "environments": len(specs),
        "rejected": len(spec.rejected),
        "rejected_by_gate": spec.counts.get("rejected_by_gate", {}),
        "rejected_environments": sorted(broken),
        "files": [str(Path(f).relative_to(out)) for f in files],
    }
    (out / SUMMARY_FILE).write_text(
        json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return summary


def format_module(fmt: str):
    """The module that writes `fmt`: its `data_dir(out)` (where `data/` goes) and `write(out, entries, specs, ...)`."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return importlib.import_module(f"{__package__}.{fmt}")


__all__ = ["FORMATS", "export", "format_module", "open_tasks"]
