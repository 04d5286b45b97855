"""`EnvscaleSpec`: a `tasks` artifact as what TRL's `GRPOTrainer` takes: `train_dataset`, `environment_factory`,
`reward_funcs` (the shape of TRL's `OpenRewardSpec`).

```python
>>> from trl import GRPOConfig
>>> from envscale.rl import EnvscaleSpec, EnvscaleGRPOTrainer
>>> spec = EnvscaleSpec("outputs/quickstart/tasks", split="train", reward="outcome")
>>> trainer = EnvscaleGRPOTrainer(
...     model="HuggingFaceTB/SmolLM2-135M-Instruct",
...     args=GRPOConfig(num_generations=4, max_tool_calling_iterations=8),
...     train_dataset=spec.train_dataset,
...     environment_factory=spec.environment_factory,
...     reward_funcs=spec.reward_funcs,
... )  # doctest: +SKIP
```

- **Dataset**: one row per admitted task: `prompt` (the agent's system prompt with the environment's policy, and
  the user's first message: what `envscale rollout` opens an episode with), `environment` (the class the row is
  routed to), `task_id`, and `pass_rate` (from a `filtered` artifact's `pass_rates`, when given; else null).
- **Environments**: one generated class per environment and offered tool set (`envscale.rl.environment`):
  a task offers its own tools (the gold tools and its distractors, `offer: task`) or the whole environment's
  (`offer: environment`). With a user (`user`, default the scripted one), `send_message_to_user` too.
- **Rewards**: `envscale.rl.reward`'s `outcome` (the judge's verdict) or `dense` (the share of gold effects).
- **Admission**: every task passes `envscale.rl.gates` first; `rejected` lists the others with the gate and
  the reason, `counts` sums them.
- **Curriculum**: with `pass_rates`, `min_pass_rate` / `max_pass_rate` keep a band of tasks, and
  `curriculum: easy_first` orders them by falling pass rate (train with `shuffle_dataset=False`), `weight`
  repeats a task `1 + round(2 * (1 - pass rate))` times (hard tasks three times), `none` keeps the order.

All tasks of the chosen split are held in memory (an RL set is thousands of tasks, not millions); environments
are read only for the tasks' environments, and each is built once for admission.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
from functools import cached_property
from typing import Any

from tqdm.auto import tqdm

from ..artifacts import Artifact, iter_rows, open_artifact, resolve_input
from ..env import Environment
from ..rollout.backends import BackendConfig
from ..rollout.factory import make_backend
from .environment import environment_class, first_messages
from .gates import GATES, admission, needs_user, offered_tools
from .reward import REWARDS

logger = logging.getLogger(__name__)

CURRICULA = ("none", "easy_first", "weight")
OFFERS = ("task", "environment")


def _artifact(ref: Any, kind: str) -> Artifact:
    return ref if isinstance(ref, Artifact) else open_artifact(ref, expect_kind=kind)


class EnvscaleSpec:
    """A `tasks` artifact for TRL's GRPO (see the module docstring).

    Args:
        tasks: The `tasks` artifact (a path, `hf://` id, or an opened `Artifact`).
        environments: Its `environments` artifact (default: the one the tasks were made from).
        split (`str`): Which split's tasks (`train`; `test` to evaluate).
        reward (`str`): `outcome` or `dense`.
        user: The simulated user behind `send_message_to_user`: `"scripted"` (the default, offline), a backend
            config (`{"kind": "endpoint", ...}`), a `envscale.rollout.backends.Backend`, or `None` for no user tool.
        offer (`str`): `task` (a task's own tools) or `environment` (all the environment's tools).
        max_tasks (`int`, *optional*): At most this many admitted tasks (the first by task id).
        kinds (`list[str]`, *optional*): Only tasks of these kinds (`read`, `write`, `mixed`, `policy`, ...).
        task_ids (`list[str]`, *optional*): Only these tasks.
        pass_rates: A `filtered` artifact whose `pass_rates` give each task's pass rate.
        min_pass_rate, max_pass_rate (`float`): The band of pass rates kept (tasks without one are kept).
        curriculum (`str`): `none`, `easy_first` or `weight`.
        max_rows (`int`): Rows a list tool returns at most.
    """

    def __init__(
        self,
        tasks: Any,
        *,
        environments: Any = None,
        split: str = "train",
        reward: str = "outcome",
        user: Any = "scripted",
        offer: str = "task",
        max_tasks: int | None = None,
        kinds: list[str] | None = None,
        task_ids: list[str] | None = None,
        pass_rates: Any = None,
        min_pass_rate: float = 0.0,
        max_pass_rate: float = 1.0,
        curriculum: str = "none",
        max_rows: int = 100,
        show_progress: bool = True,
    ):
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if offer not in OFFERS:
            raise ValueError(f"offer must be one of {', '.join(OFFERS)}, got {offer!r}")
        if curriculum not in CURRICULA:
            raise ValueError(f"curriculum must be one of {', '.join(CURRICULA)}, got {curriculum!r}")
        if curriculum != "none" and pass_rates is None:
            raise ValueError(f"curriculum {curriculum!r} needs pass_rates (a filtered artifact)")
        if not 0.0 <= min_pass_rate <= max_pass_rate <= 1.0:
            raise ValueError(
                f"need 0 <= min_pass_rate <= max_pass_rate <= 1, got {min_pass_rate}, {max_pass_rate}"
            )
        self.tasks_artifact = _artifact(tasks, "tasks")
        self.environments_artifact = (
            _artifact(environments, "environments")
            if environments is not None
            else resolve_input(self.tasks_artifact, "environments")
        )
        self.split, self.reward, self.offer, self.curriculum = split, reward, offer, curriculum
        if user == "scripted":
            user = {"kind": "scripted"}
        if user is None or isinstance(user, dict):
            self.user_config = dict(user) if user is not None else None
            self.user_backend = make_backend(BackendConfig(**user), "user") if user is not None else None
        else:  # a `Backend` already made (a custom user simulator)
            self.user_config, self.user_backend = {"backend": type(user).__name__}, user
        self.max_tasks, self.kinds = max_tasks, list(kinds) if kinds else None
        self.task_ids = set(task_ids) if task_ids else None
        self.pass_rates_artifact = _artifact(pass_rates, "filtered") if pass_rates is not None else None
        self.min_pass_rate, self.max_pass_rate, self.max_rows = min_pass_rate, max_pass_rate, max_rows
        self.show_progress = show_progress
        self.rejected: list[dict] = []
        self.counts: dict[str, Any] = {}
        self._rows: list[dict] = []
        self._classes: dict[str, type] = {}
        self._admit()

    # ----------------------------------------------------------------------------- admission

    def _pass_rates(self) -> dict[str, float]:
        if self.pass_rates_artifact is None:
            return {}
        art = self.pass_rates_artifact
        if "pass_rates" not in art.manifest["counts"]:
            raise ValueError(
                f"{art.pinned} has no pass_rates config (made before filter schema 1.2): run `envscale filter` again"
            )
        return {
            r["task_id"]: r["pass_rate"] for r in iter_rows(art.load("pass_rates"), ["task_id", "pass_rate"])
        }

    def _admit(self) -> None:
        tasks = [
            t
            for t in iter_rows(self.tasks_artifact.load("tasks", self.split))
            if (self.kinds is None or t["kind"] in self.kinds)
            and (self.task_ids is None or t["task_id"] in self.task_ids)
        ]
        tasks.sort(key=lambda t: t["task_id"])
        rates = self._pass_rates()
        band = [
            t
            for t in tasks
            if t["task_id"] not in rates or self.min_pass_rate <= rates[t["task_id"]] <= self.max_pass_rate
        ]
        needed = {t["environment"] for t in band}
        specs = {
            r["name"]: r["spec"]
            for r in iter_rows(self.environments_artifact.load("environments"), ["name", "spec"])
            if r["name"] in needed
        }
        by_env: dict[str, list[dict]] = {}
        for t in band:
            by_env.setdefault(t["environment"], []).append(t)
        registry: dict[str, dict[str, dict]] = {}  # class key -> the tasks it serves
        offers: dict[str, tuple[str, list[str]]] = {}
        admitted: list[tuple[dict, str]] = []
        bar = tqdm(total=len(band), desc="rl admission", unit="task", disable=not self.show_progress)
        # With max_tasks, environments take turns (a quota per pass), so the tasks admitted come from as many
        # environments as there are, not from the first ones by name.
        quota = -(-self.max_tasks // len(by_env)) if self.max_tasks is not None and by_env else None
        position = dict.fromkeys(by_env, 0)

        def full() -> bool:
            return self.max_tasks is not None and len(admitted) >= self.max_tasks

        while True:
            progressed = False
            for name in sorted(by_env):
                pending = by_env[name][position[name] :]
                if full() or not pending:
                    continue
                try:
                    if name not in specs:
                        raise ValueError(
                            f"environment {name!r} is not in {self.environments_artifact.pinned}"
                        )
                    env = Environment(specs[name], max_rows=self.max_rows)
                except Exception as exc:  # noqa: BLE001 - one environment that cannot be built never stops the set
                    for t in pending:
                        self._reject(t, "environment_error", f"{type(exc).__name__}: {exc}")
                    position[name] = len(by_env[name])
                    bar.update(len(pending))
                    progressed = True
                    continue
                taken = 0
                try:
                    while (
                        position[name] < len(by_env[name]) and not full() and (quota is None or taken < quota)
                    ):
                        t = by_env[name][position[name]]
                        position[name] += 1
                        bar.update(1)
                        progressed = True
                        try:
                            problem = admission(t, env)
                        except Exception as exc:  # noqa: BLE001 - a task that cannot be checked is refused
                            problem = ("gold_fails", f"cannot be checked: {type(exc).__name__}: {exc}")
                        if not problem and self.user_backend is None and (why := needs_user(t)):
                            problem = ("needs_user", why)
                        if problem:
                            self._reject(t, *problem)
                            continue
                        kept, _ = offered_tools(t if self.offer == "task" else {}, specs[name])
                        key = f"{name}@{hashlib.sha1('|'.join(kept).encode()).hexdigest()[:8]}"
                        offers[key] = (name, kept)
                        registry.setdefault(key, {})[t["task_id"]] = t
                        admitted.append((t, key))
                        taken += 1
                finally:
                    env.close()
            if quota is None or full() or not progressed:
                break
        bar.close()
        for key, (name, kept) in offers.items():
            self._classes[key] = environment_class(
                specs[name],
                kept,
                registry[key],
                user=self.user_backend,
                class_name=None,
                max_rows=self.max_rows,
            )
        rows = [
            {
                "prompt": first_messages(specs[t["environment"]], t, user=self.user_backend is not None),
                "environment": key,
                "task_id": t["task_id"],
                "pass_rate": rates.get(t["task_id"]),
            }
            for t, key in admitted
        ]
        if self.curriculum == "easy_first":
            rows.sort(key=lambda r: (-(r["pass_rate"] if r["pass_rate"] is not None else 0.5), r["task_id"]))
        elif self.curriculum == "weight":
            rows = [
                r
                for r in rows
                for _ in range(1 + round(2 * (1 - (r["pass_rate"] if r["pass_rate"] is not None else 0.5))))
            ]
        self._rows = rows
        self._class_of = {t["task_id"]: key for t, key in admitted}
        reasons: dict[str, int] = {}
        for r in self.rejected:
            reasons[r["code"]] = reasons.get(r["code"], 0) + 1
        self.counts = {
            "tasks": len(tasks),
            "outside_pass_rate_band": len(tasks) - len(band),
            "not_checked": len(band) - len(admitted) - len(self.rejected),  # past max_tasks
            "admitted": len(admitted),
            "rejected": len(self.rejected),
            "rejected_by_gate": {g: reasons[g] for g in GATES if g in reasons},
            "rows": len(rows),
            "environments": len({t["environment"] for t, _ in admitted}),
            "classes": len(self._classes),
        }
        logger.info(
            "rl: %d of %d tasks admitted (%d not checked past max_tasks; %s rejected: %s)",
            len(admitted),
            len(tasks),
            self.counts["not_checked"],
            len(self.rejected),
            ", ".join(f"{k} {v}" for k, v in self.counts["rejected_by_gate"].items()) or "none",
        )

    def _reject(self, task: dict, code: str, detail: str) -> None:
        self.rejected.append(
            {"task_id": task["task_id"], "environment": task["environment"], "code": code, "detail": detail}
        )

    # ----------------------------------------------------------------------------- TRL's slots

    @cached_property
    def train_dataset(self):
        """A `datasets.Dataset` of the admitted tasks (see the module docstring)."""
        from datasets import Dataset

        if not self._rows:
            raise ValueError(
                f"no task of {self.tasks_artifact.pinned} split {self.split!r} was admitted to RL "
                f"({len(self.rejected)} rejected: {self.counts.get('rejected_by_gate')})"
            )
        return Dataset.from_list(self._rows)

    @property
    def environment_factory(self) -> dict[str, type]:
        """`{class key: class}`: the dataset's `environment` column routes each row to its class."""
        return dict(self._classes)

    @property
    def reward_funcs(self) -> list:
        """`[outcome_reward]` or `[dense_reward]`."""
        return [REWARDS[self.reward]]

    def limit_prompt_length(self, tokenizer: Any, max_tokens: int) -> int:
        """Refuse the admitted tasks whose prompt, rendered with the offered tools' schemas as TRL renders them
        (`tokenizer.apply_chat_template(prompt, tools=methods)`), is longer than `max_tokens`; returns how many.

        A long prompt is a task whose environment offers many or wordy tools: on a small machine one of them is
        the difference between a step that fits in memory and one that does not (attention is quadratic in the
        whole sequence). The refused tasks join `rejected` under the gate `prompt_too_long` with their length."""
        if not self._rows:
            return 0
        lengths: dict[str, int] = {}
        tools_of: dict[str, list] = {}
        for row in self._rows:
            if row["task_id"] in lengths:
                continue
            key = row["environment"]
            if key not in tools_of:
                cls = self._classes[key]
                instance = cls()
                tools_of[key] = [
                    getattr(instance, n)
                    for n, _ in inspect.getmembers(cls, predicate=inspect.isfunction)
                    if n not in ("reset", "get_reward") and not n.startswith("_")
                ]
            ids = tokenizer.apply_chat_template(
                row["prompt"], tools=tools_of[key], add_generation_prompt=True, tokenize=True
            )
            ids = ids["input_ids"] if hasattr(ids, "keys") else ids
            lengths[row["task_id"]] = len(ids)
        long = {t for t, n in lengths.items() if n > max_tokens}
        for task_id in sorted(long):
            key = self._class_of.pop(task_id)
            task = self._classes[key].tasks_by_id[task_id]
            self._reject(
                task, "prompt_too_long", f"{lengths[task_id]} prompt tokens > max_prompt_length {max_tokens}"
            )
        if long:
            self._rows = [r for r in self._rows if r["task_id"] not in long]
            self.__dict__.pop("train_dataset", None)
            self.counts["admitted"] -= len(long)
            self.counts["rejected"] += len(long)
            self.counts["rows"] = len(self._rows)
            by_gate = self.counts["rejected_by_gate"]
            by_gate["prompt_too_long"] = by_gate.get("prompt_too_long", 0) + len(long)
            self.counts["environments"] = len(
                {self._classes[k].tasks_by_id[t]["environment"] for t, k in self._class_of.items()}
            )
            logger.info("rl: %d task(s) refused, prompt longer than %d tokens", len(long), max_tokens)
        return len(long)

    def task(self, task_id: str) -> dict:
        """One admitted task's row."""
        key = self._class_of.get(task_id)
        if key is None:
            raise KeyError(f"task {task_id!r} was not admitted")
        return self._classes[key].tasks_by_id[task_id]
