"""What every exported format runs: the exported tasks as a `Catalogue`, one rollout as an `Episode`.

An export writes its environments and admitted tasks to a `data/` folder (`write_data`):

- `data/environments/<name>.json`: each environment's spec (an `environments` row's `spec`);
- `data/tasks.jsonl`: one line per task, `{"task_id", "environment", "split", "tools", "prompt", "task"}`: the tools
  it offers (its gold tools and distractors, as `envscale rl` offers them), the conversation it opens with (the
  agent's system prompt with the environment's policy, and the user's first message) and the whole task row.

The format's own code (an OpenEnv `Environment`, an ORS environment class, a Harbor test script, a verifiers
`ToolEnv`) opens that folder with `Catalogue(path)` and plays each rollout through an `Episode`:

```python
>>> from envscale.export.episodes import Catalogue
>>> catalogue = Catalogue("exported/data")
>>> episode = catalogue.episode(catalogue.task_ids()[0])
>>> episode.call("get_order", {"order_id": "ord_0001"})          # the result as JSON text, or {"error", "code"}
>>> episode.finish("Done. The order is cancelled.")               # {"reward": 1.0 or 0.0, "failed": [...]}
```

An episode is an instance of the class `envscale rl` trains on (`envscale.rl.environment.environment_class`), so
`finish` is the judge's verdict on the final database state, the answer and the policy
(`envscale.rl.reward.judge_rollout`): exactly the reward `envscale rl` gives, never a second judge.
`Catalogue.trl()` hands the same classes to TRL's `GRPOTrainer(environment_factory=...)`.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..env.adapters import tool_signature
from ..env.arguments import error
from ..env.runtime import openai_tools
from ..rl.environment import RESERVED, environment_class
from ..rl.reward import judge_rollout
from ..rollout.episode import tool_content

#: The folder of an export that holds its environments and tasks.
DATA = "data"
TASKS_FILE = "tasks.jsonl"
ENVIRONMENTS_DIR = "environments"


def to_json(value: Any) -> Any:
    """A task row's value as plain JSON (numpy scalars and arrays from parquet become numbers and lists)."""
    return json.loads(json.dumps(value, default=_plain, ensure_ascii=False))


def _plain(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, bytes | bytearray):
        return value.decode("utf-8", "replace")
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return str(value)


def write_data(folder: Path, specs: dict[str, dict], entries: Iterable[dict]) -> int:
    """Write `specs` ({name: spec}) and the task `entries` (see the module docstring) under `folder`; replaces
    what an earlier export left there. Returns the number of tasks written."""
    folder = Path(folder)
    if folder.exists():
        shutil.rmtree(folder)
    (folder / ENVIRONMENTS_DIR).mkdir(parents=True)
    for name, spec in specs.items():
        (folder / ENVIRONMENTS_DIR / f"{name}.json").write_text(
            json.dumps(to_json(spec), ensure_ascii=False, indent=1), encoding="utf-8"
        )
    n = 0
    with (folder / TASKS_FILE).open("w", encoding="utf-8") as out:
        for entry in entries:
            out.write(json.dumps(to_json(entry), ensure_ascii=False) + "\n")
            n += 1
    return n


def method_names(spec: dict) -> dict[str, str]:
    """`{tool name: method name}` of the tools of the RL class over `spec` (a tool named like a reserved member,
    `reset`, takes a `_tool` suffix)."""
    return {t["name"]: tool_signature(t, RESERVED)[0] for t in spec["tools"]}


class Episode:
    """One rollout of one task: the tools it offers, the calls made, and the verdict at the end.

    Args:
        instance: A reset instance of the task's RL class (`envscale.rl.environment.environment_class`).
        entry (`dict`): The task's line of `tasks.jsonl`.
    """

    def __init__(self, instance: Any, entry: dict):
        self.instance = instance
        self.entry = entry
        self.task_id: str = entry["task_id"]
        self.task: dict = instance.task
        self.prompt: list[dict] = entry["prompt"]
        self.offered: list[str] = list(entry["tools"])
        self._methods = method_names(instance.spec)
        self.verdict: dict | None = None

    @property
    def tools(self) -> list[dict]:
        """The offered tools in OpenAI format (`{"type": "function", "function": {name, description, parameters}}`)."""
        by_name = {t["function"]["name"]: t for t in openai_tools(self.instance.spec)}
        return [by_name[name] for name in self.offered]

    @property
    def calls(self) -> list[dict]:
        """The calls made so far: `{"tool", "arguments", "ok", "error", "code"}`."""
        return list(self.instance.calls)

    def call(self, tool: str, arguments: dict | str | None = None) -> str:
        """Call an offered tool; what the agent reads back, as `envscale rollout` shows it
        (`envscale.rollout.episode.tool_content`: the result's JSON, or `{"error", "code"}`). Never raises."""
        if self.verdict is not None:
            return tool_content(error("invalid_arguments", "the episode is over: its final answer was given"))
        if tool not in self.offered:
            return tool_content(
                error("unknown_tool", f"unknown tool {tool!r}; available: {', '.join(self.offered)}")
            )
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError as exc:
                return tool_content(error("invalid_arguments", f"{tool}: arguments are not JSON: {exc}"))
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return tool_content(error("invalid_arguments", f"{tool}: arguments must be a JSON object"))
        method = getattr(self.instance, self._methods[tool])
        return method(**{str(k): v for k, v in arguments.items()})

    def finish(self, answer: str = "") -> dict:
        """End the episode with the agent's last words to the user and judge it: `{"reward": 1.0 or 0.0,
        "passed", "failed": [the checks that failed]}`. The reward is paid once: a later call (an agent that keeps
        stepping after the end) gets reward 0.0 and `failed: ["episode_over"]`, so a loop never counts it twice;
        `verdict` keeps the first."""
        if self.verdict is not None:
            return {"reward": 0.0, "passed": False, "failed": ["episode_over"]}
        judged = judge_rollout(self.instance, [{"role": "assistant", "content": str(answer or "")}])
        self.verdict = {
            "reward": 1.0 if judged["passed"] else 0.0,
            "passed": judged["passed"],
            "failed": list(judged["failed"]),
        }
        return dict(self.verdict)


class Catalogue:
    """The environments and tasks of an export's `data/` folder (`write_data`).

    Args:
        folder: The `data/` folder (or the export folder holding it).
        max_rows (`int`): Rows a list tool returns at most (as `envscale rl`'s `max_rows`).
    """

    def __init__(self, folder: str | Path, *, max_rows: int = 100):
        folder = Path(folder)
        if not (folder / TASKS_FILE).is_file() and (folder / DATA / TASKS_FILE).is_file():
            folder = folder / DATA
        if not (folder / TASKS_FILE).is_file():
            raise FileNotFoundError(f"{folder} holds no {TASKS_FILE}: not an envscale export's data folder")
        self.folder = folder
        self.max_rows = max_rows
        self.entries: dict[str, dict] = {}
        with (folder / TASKS_FILE).open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                if line.strip():
                    try:
                        entry = json.loads(line)
                    except json.JSONDecodeError as exc:
                        raise ValueError(f"{folder / TASKS_FILE}:{number}: not JSON: {exc}") from None
                    self.entries[entry["task_id"]] = entry
        self.specs: dict[str, dict] = {}
        for entry in self.entries.values():
            name = entry["environment"]
            if name not in self.specs:
                path = folder / ENVIRONMENTS_DIR / f"{name}.json"
                if not path.is_file():
                    raise FileNotFoundError(
                        f"task {entry['task_id']}: its environment file {path} is missing"
                    )
                self.specs[name] = json.loads(path.read_text(encoding="utf-8"))
        self._classes: dict[tuple[str, tuple[str, ...]], type] = {}

    def task_ids(self, split: str | None = None, environments: Iterable[str] | None = None) -> list[str]:
        """The tasks' ids in file order, optionally of one split and some environments only."""
        wanted = set(environments) if environments else None
        return [
            task_id
            for task_id, e in self.entries.items()
            if (split is None or e.get("split") == split) and (wanted is None or e["environment"] in wanted)
        ]

    @property
    def splits(self) -> list[str]:
        """The splits the tasks come from, in order of appearance."""
        return list(dict.fromkeys(e.get("split") or "test" for e in self.entries.values()))

    def entry(self, task_id: str) -> dict:
        if task_id not in self.entries:
            raise KeyError(f"task {task_id!r} is not in {self.folder / TASKS_FILE}")
        return self.entries[task_id]

    def environment_class(self, name: str, tools: Iterable[str]) -> type:
        """The RL class of environment `name` offering `tools` (made once, shared by its tasks)."""
        key = (name, tuple(tools))
        if key not in self._classes:
            tasks = {t: e["task"] for t, e in self.entries.items() if e["environment"] == name}
            self._classes[key] = environment_class(
                self.specs[name], list(key[1]), tasks, user=None, max_rows=self.max_rows
            )
        return self._classes[key]

    def episode(self, task_id: str) -> Episode:
        """A fresh episode of `task_id`: its database in the task's initial state, no call made yet."""
        entry = self.entry(task_id)
        instance = self.environment_class(entry["environment"], entry["tools"])()
        instance.reset(task_id=task_id)
        return Episode(instance, entry)

    def trl(self, split: str | None = None) -> tuple[list[dict], dict[str, type]]:
        """The tasks for TRL's `GRPOTrainer`: `(rows, {class key: class})`, each row `{"prompt", "environment",
        "task_id"}` routed to its class by `environment` (TRL's `environment_factory` as a dict); the reward is
        `envscale.rl.reward.outcome_reward` (`reward_funcs=[outcome_reward]`), which reads the instances."""
        rows, classes = [], {}
        for task_id in self.task_ids(split):
            entry = self.entries[task_id]
            key = f"{entry['environment']}@{hashlib.sha1('|'.join(entry['tools']).encode()).hexdigest()[:8]}"
            classes[key] = self.environment_class(entry["environment"], entry["tools"])
            rows.append({"prompt": entry["prompt"], "environment": key, "task_id": task_id})
        return rows, classes
