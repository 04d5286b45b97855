"""The checks `envscale filter` (and `envscale eval`) records for every trajectory, and the verdict.

| check | holds when |
|---|---|
| `ended` | the episode ended normally (the user's stop marker), not by a limit or a failure |
| `format` | the messages are well formed: roles in order, every tool call has an id, a name and an object of arguments, every tool call has exactly one `tool` answer whose content is a string |
| `schema` | every call named an offered tool with schema-valid arguments (no `unknown_tool` or `invalid_arguments` error) |
| `state` | replaying the calls on a fresh environment ends in the gold state hash |
| `answer` | the final answer states every answer fact |
| `actions` | what the required tools' gold calls did was done, by any tool and in any order: each gold write's effect (the same rows changed the same way) by a successful call, each gold read's rows by a successful read (`effects`) |
| `policy` | no forbidden call succeeded (and, scored on `state`, the state is what the policy leaves) |
| `exact` | (strict, by tool name) the successful calls are the gold calls: same tools and key (required) arguments, in an order that respects the data flow between them (independent calls in any order); failed calls are ignored |

A check the task is not scored on is `None` (holds for any level). `score_trajectory` (the one way
a task is checked) does the replay; intermediate tool errors are allowed wherever the outcome is
reached, as in AgentScaler. Which checks must hold is the caller's `levels` (`DEFAULT_LEVELS`
unless the filter's config names others); `judge_trajectory` gives the checks and the verdict.

Example:

```python
>>> from envscale.judge.checks import check_format, verdict
>>> messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
>>> check_format(messages)
True
>>> verdict({"ended": True, "format": True, "state": False, "answer": None}, ["format", "state", "answer"])
(False, ['state'])
```
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from envscale.env import Environment
from envscale.schemas import CHECKS

from .answers import canonical_value
from .provenance import read_calls
from .score import score_trajectory

__all__ = [
    "DEFAULT_LEVELS",
    "SCHEMA_ERRORS",
    "Judgement",
    "check_format",
    "check_trajectory",
    "environment_error",
    "exact_match",
    "judge_trajectory",
    "required_arguments",
    "verdict",
]

#: The checks required by default: the outcome, in a well-formed conversation that ended normally.
DEFAULT_LEVELS = ("ended", "format", "state", "answer", "actions", "policy")
#: Error codes of calls that never reached the environment's tools (not offered, or arguments that do
#: not fit the tool's schema): they fail `schema` and are left out of the replay.
SCHEMA_ERRORS = frozenset({"unknown_tool", "invalid_arguments"})


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def check_format(messages: Any) -> bool:
    """Roles in order and every tool call answered once (see the module docstring)."""
    if not isinstance(messages, list) or not messages:
        return False
    roles = [m.get("role") if isinstance(m, dict) else None for m in messages]
    if any(r not in ("system", "user", "assistant", "tool") for r in roles):
        return False
    body = roles[1:] if roles[0] == "system" else roles
    if not body or body[0] != "user" or "system" in body or "assistant" not in body:
        return False
    open_calls: set[str] = set()
    for m in messages:
        role = m["role"]
        if role == "tool":
            if m.get("tool_call_id") not in open_calls or not isinstance(m.get("content"), str):
                return False
            open_calls.discard(m["tool_call_id"])
            continue
        if open_calls:  # a message before every call of the last assistant turn was answered
            return False
        if role == "assistant":
            for call in m.get("tool_calls") or []:
                function = call.get("function") if isinstance(call, dict) else None
                if not isinstance(function, dict) or not isinstance(call.get("id"), str):
                    return False
                if not (isinstance(function.get("name"), str) and function["name"]):
                    return False
                if not isinstance(function.get("arguments"), dict) or call["id"] in open_calls:
                    return False
                open_calls.add(call["id"])
        elif not isinstance(m.get("content"), str):
            return False
    return not open_calls


def _signature(tool: str, arguments: Any, keys: dict[str, list[str]]) -> str:
    args = arguments if isinstance(arguments, dict) else {}
    names = keys.get(tool)
    if names is None:
        names = sorted(args)
    return json.dumps([tool, [[k, canonical_value(args.get(k))] for k in sorted(names)]])


def exact_match(calls: list[dict], gold: list[dict], required_args: dict[str, list[str]]) -> bool:
    """The successful calls equal the gold calls on tools and key arguments, data flow order kept.

    Args:
        calls (`list[dict]`): The episode's calls (`{"tool", "arguments", "ok", ...}`), in order.
        gold (`list[dict]`): The task's gold calls, with their `provenance`.
        required_args (`dict`): Each tool's key arguments (`required_arguments`); a tool not in it is
            compared on all its arguments.
    """
    made = [c for c in calls if c.get("ok")]
    if len(made) != len(gold):
        return False
    wanted = [_signature(g["tool"], g.get("arguments"), required_args) for g in gold]
    position: dict[int, int] = {}
    for pos, call in enumerate(made):
        sig = _signature(call.get("tool"), call.get("arguments"), required_args)
        j = next((j for j, w in enumerate(wanted) if w == sig and j not in position), None)
        if j is None:
            return False
        position[j] = pos
    flow = [(i, j) for j, g in enumerate(gold) for i in read_calls(g.get("provenance"))]
    return all(position[i] < position[j] for i, j in flow)


def required_arguments(env: Environment) -> dict[str, list[str]]:
    """Each tool's required arguments: the key arguments `exact` compares."""
    return {t["name"]: list((t.get("parameters") or {}).get("required") or []) for t in env.spec["tools"]}


def check_trajectory(trajectory: dict, task: dict, env: Environment) -> dict[str, bool | None]:
    """Every check of `CHECKS` for one trajectory of `task`, `env` being the task's environment."""
    calls = _json(trajectory.get("calls")) or []
    messages = _json(trajectory.get("messages")) or []
    checks: dict[str, bool | None] = dict.fromkeys(CHECKS)
    checks["ended"] = trajectory.get("status") == "completed"
    checks["format"] = check_format(messages)
    checks["schema"] = all(c.get("ok") or c.get("code") not in SCHEMA_ERRORS for c in calls)
    if not messages:  # the episode never ran (its environment failed): nothing to replay
        checks.update(state=False, answer=False, actions=False, policy=False, exact=False)
        return checks
    # calls the episode refused before they reached the environment (not offered, unparseable) never ran:
    # the replay leaves them out too (the environment refuses the others again, changing nothing)
    ran = [c for c in calls if c.get("ok") or c.get("code") not in SCHEMA_ERRORS]
    score = score_trajectory(
        task,
        env,
        [{"tool": c.get("tool"), "arguments": c.get("arguments")} for c in ran],
        trajectory.get("final_answer"),
    )
    checks["state"], checks["answer"], checks["actions"] = score["state"], score["answer"], score["required"]
    checks["policy"] = score["forbidden"]
    if checks["policy"] is not None and score["state"] is not None:
        checks["policy"] = checks["policy"] and score["state"]
    gold = _json(task.get("gold_calls")) or []
    checks["exact"] = exact_match(calls, gold, required_arguments(env))
    return checks


def verdict(checks: dict[str, bool | None], levels: tuple[str, ...] | list[str]) -> tuple[bool, list[str]]:
    """(passed, the required checks that failed): a check that is `None` holds."""
    failed = [name for name in levels if checks.get(name) is False]
    return not failed, failed


@dataclass(frozen=True)
class Judgement:
    """What judging one trajectory decides: every check, whether it passes, and why not.

    Attributes:
        checks (`dict`): Each check of `CHECKS`: `True`, `False` or `None` (not scored).
        passed (`bool`): Every check of the levels holds.
        failed (`list[str]`): The required checks that did not hold (and an `environment_error: ...`
            entry when the environment could not be built).
    """

    checks: dict[str, bool | None]
    passed: bool
    failed: list[str]


def judge_trajectory(
    trajectory: dict, task: dict, env: Environment, levels: tuple[str, ...] | list[str]
) -> Judgement:
    """Check a trajectory of `task` on `env` (the task's environment) and decide: passed, or the failed checks."""
    checks = check_trajectory(trajectory, task, env)
    passed, failed = verdict(checks, levels)
    return Judgement(checks, passed, failed)


def environment_error(reason: str, levels: tuple[str, ...] | list[str] = ()) -> Judgement:
    """The judgement of a trajectory whose environment could not be built (or failed while judging).

    Every check is `False`; `failed` lists `levels` (the filter passes its levels, so the rejected row
    names every required check; eval passes none) and then `"environment_error: <reason>"`, cut at 300
    characters.
    """
    return Judgement(dict.fromkeys(CHECKS, False), False, [*levels, f"environment_error: {reason}"[:300]])
