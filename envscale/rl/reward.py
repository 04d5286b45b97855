"""Rewards for RL on envscale environments: the judge's verdict on the final state, the answer and the policy.

A reward function here has TRL's signature (`completions`, `environments`, ...) and reads each rollout's
environment instance (`envscale.rl.environment`): its transcript (the task's opening, every tool call and result,
every message to and from the user) and the completion's last message, the agent's final answer. The rollout is
judged as `envscale filter` judges a trajectory (`envscale.judge.check_trajectory`: the calls replayed on a
fresh copy of the task's initial state, then the checks), so a reward of 1.0 means exactly what a kept SFT
trajectory means:

- `outcome_reward` (`reward: outcome`, the default): 1.0 when every check of `REWARD_LEVELS` holds (`state`: the
  final database is the gold one; `answer`: the facts asked for are stated, and nothing is dumped; `actions`: the
  required effects happened, by any tool; `policy`: nothing forbidden succeeded and a refusal names its reason;
  `consistent`: the final answer contradicts no tool result), else 0.0;
- `dense_reward` (`reward: dense`, for curricula): the share of the gold effects reached (each gold write's
  effect, each gold read's rows, `envscale.judge.required_effects` / `Step.satisfies`), with the outcome
  verdict as the whole reward once it passes, so a rollout that passes always gets 1.0 and one that reaches half
  the effects gets at most 0.5 (times 0.9: never equal to a pass).

On top of the filter's checks a rollout must end with a word to the user, state only facts it looked up (an
answer fact no tool result or user message of this rollout showed is memorised, not found), and not say it failed
after it changed the state (`rollout_problems`): holes a blind reading found when it played rollouts by hand.

A rollout spoiled by the user simulator (`environment.spoiled`) gets `None`: TRL leaves it out of the group
baseline, and `envscale.rl.trainer.EnvscaleGRPOTrainer` masks its whole group.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from ..judge import answer_matches, check_trajectory, replay, required_effects, verdict
from ..rollout.closing import refusal

#: The checks a rollout must pass for a reward of 1.0 (`envscale.judge.CHECKS`; `ended`, `format` and `exact`
#: are left out: the trainer's loop ends a rollout when the model stops calling tools, the chat template writes
#: the format, and outcome-based RL rewards any way to the gold outcome).
REWARD_LEVELS = ("state", "answer", "actions", "policy", "consistent")

#: A dense reward short of a pass is scaled by this, so it never equals a pass.
DENSE_SCALE = 0.9


def final_answer(completion: Any) -> str:
    """The agent's last words to the user: the text of the completion's last assistant message (with or without
    tool calls: a rollout cut at `max_tool_calling_iterations` ends on a message whose calls never ran, and its
    text is still what the user reads), or the text itself for a plain-text completion."""
    if isinstance(completion, str):
        return completion
    for message in reversed(list(completion or [])):
        if isinstance(message, dict) and message.get("role") == "assistant":
            content = message.get("content")
            if isinstance(content, list):  # multimodal parts
                return " ".join(str(p.get("text") or "") for p in content if isinstance(p, dict))
            return str(content or "")
    return ""


def trajectory_of(environment: Any, completion: Any) -> dict:
    """The rollout as `envscale rollout` would have written it: transcript, calls, final answer, status."""
    answer = final_answer(completion)
    messages = list(environment.transcript)
    if answer or not messages or messages[-1]["role"] != "assistant":
        messages.append({"role": "assistant", "content": answer})
    return {
        "messages": messages,
        "calls": list(environment.calls),
        "final_answer": answer,
        "status": "completed" if environment.spoiled is None else "user_error",
    }


_CLAIMS_FAILURE = re.compile(
    r"\b(i\s+(was\s+not|wasn't|am\s+not|'m\s+not|could\s+not|couldn't|cannot|can't|can\s+not)\s+(able\s+to\s+)?"
    r"(do|complete|make|update|change|create|delete|cancel|confirm|close|send|add|remove|move|finish|process)"
    r"|\b(failed|unable)\s+to\b|\bdid\s+not\s+(go\s+through|succeed|work)\b|\bis\s+still\s+(pending|open|unchanged)\b)",
    re.I,
)


def rollout_problems(environment: Any, answer: str) -> list[str]:
    """What RL asks of a rollout beyond the filter's checks, because a policy optimises against the reward:

    - `empty_answer`: the rollout ends without a word to the user (the filter's trajectories always end with one);
    - `ungrounded`: an answer fact that neither a tool result of this rollout nor the user said: a fact answered
      from memory (a policy that has seen the task in an earlier epoch) is not a fact looked up;
    - `claims_failure`: the rollout changed the state and the answer says it could not (or that nothing changed);
    - `thrashing`: the rollout made more successful writes than twice the gold's (at least three more): a policy that
      tries every status of a ticket in turn can end in the gold state by chance (the guessing adversary of
      `bench/hack.py` resolved a ticket in eight updates once its gold set the status alone).
    """
    problems = []
    if not answer.strip():
        problems.append("empty_answer")
    task = environment.task
    seen = "\n".join(
        str(m.get("content") or "") for m in environment.transcript if m["role"] in ("tool", "user")
    )
    facts = [str(f) for f in task.get("answer_facts") or [] if str(f).strip()]
    counted = " ".join(str(n) for n in _list_lengths(environment.transcript))  # "how many": a list's length
    if any(not answer_matches([fact], seen) and not answer_matches([fact], counted) for fact in facts):
        problems.append("ungrounded")
    writes = {t["name"] for t in environment.spec["tools"] if t.get("kind") == "write"}
    if any(c["ok"] and c["tool"] in writes for c in environment.calls) and _CLAIMS_FAILURE.search(answer):
        problems.append("claims_failure")
    gold = task.get("gold_calls") or []
    gold = json.loads(gold) if isinstance(gold, str) else gold
    needed = sum(isinstance(c, dict) and c.get("tool") in writes for c in gold)
    made = sum(c["ok"] and c["tool"] in writes for c in environment.calls)
    if made > max(2 * needed, needed + 3):
        problems.append("thrashing")
    return problems


def _list_lengths(transcript: list[dict]) -> list[int]:
    lengths = []
    for m in transcript:
        if m["role"] == "tool":
            try:
                value = json.loads(m.get("content") or "")
            except (TypeError, ValueError):
                continue
            if isinstance(value, list):
                lengths.append(len(value))
    return lengths


def judge_rollout(environment: Any, completion: Any, levels: tuple[str, ...] = REWARD_LEVELS) -> dict:
    """`{"checks", "passed", "failed"}` of one rollout: the filter's checks of `levels`, then `rollout_problems`."""
    if environment.task is None or environment.env is None:
        raise RuntimeError("a rollout's environment was never reset: no task to judge it against")
    checks = check_trajectory(trajectory_of(environment, completion), environment.task, environment.env)
    passed, failed = verdict(checks, levels)
    failed = [*failed, *rollout_problems(environment, final_answer(completion))]
    return {"checks": checks, "passed": not failed, "failed": failed}


def share_of_effects(environment: Any) -> float:
    """The share of the task's gold calls whose effect (a write) or rows (a read) some call of the rollout
    reached, replayed on the task's initial state (1.0 for a task without gold calls)."""
    task, env = environment.task, environment.env
    gold = task.get("gold_calls") or []
    gold = json.loads(gold) if isinstance(gold, str) else gold
    tools = sorted({str(c.get("tool")) for c in gold if isinstance(c, dict)})
    if not tools:
        return 1.0
    wanted = required_effects(task, env, tools)
    ran = [{"tool": c["tool"], "arguments": c["arguments"]} for c in environment.calls]
    steps = replay(env, ran, task.get("seed"), task.get("session_key"))
    return sum(any(s.satisfies(g) for s in steps) for g in wanted) / len(wanted)


def gold_answer(task: dict) -> str:
    """What an agent that did the task right says at the end: its answer facts, or for a policy task a refusal that
    names the rule (`envscale.rollout.closing.refusal`, as the scripted agent says it). For benches and tests of the
    reward: the gold calls with this answer earn 1.0."""
    facts = "; ".join(str(f) for f in task.get("answer_facts") or [])
    if task.get("kind") == "policy":
        policy = task.get("policy") or {}
        goal = (task.get("instructions") or {}).get("goal") or ""
        return refusal(policy.get("task_rule"), goal, facts or None, random.Random(0))
    return f"Done. {facts}"


def outcome_reward(completions: list, environments: list, **_: Any) -> list[float | None]:
    """1.0 per rollout that passes the judge's outcome checks, 0.0 otherwise, `None` when the user spoiled it."""
    return [
        None if env.spoiled else float(judge_rollout(env, completion)["passed"])
        for completion, env in zip(completions, environments, strict=True)
    ]


def dense_reward(completions: list, environments: list, **_: Any) -> list[float | None]:
    """1.0 for a pass, else `DENSE_SCALE` x the share of the gold effects reached; `None` when spoiled."""
    rewards: list[float | None] = []
    for completion, env in zip(completions, environments, strict=True):
        if env.spoiled:
            rewards.append(None)
        elif judge_rollout(env, completion)["passed"]:
            rewards.append(1.0)
        else:
            rewards.append(round(DENSE_SCALE * share_of_effects(env), 6))
    return rewards


REWARDS = {"outcome": outcome_reward, "dense": dense_reward}
