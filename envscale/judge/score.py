"""Score a trajectory against a task: the one way a task is checked.

`score_trajectory(task, env, calls, final_answer)` resets the task's environment to the task's
seed (`reset_env`), replays the agent's calls in order through `Environment.step` (the only
execution path) and checks what the task's `scoring` names:

- `state`: the final `state_hash()` equals the task's `gold_state_hash`;
- `answer`: every answer fact appears in the final answer (`envscale.judge.answers.answer_matches`:
  case-insensitive, whole words, numbers compared as numbers: `"42.0"` matches `42`, `"1,234.5"`
  matches `1234.5`), and the answer is precise: it states no dump of rows or fields that were not
  asked (`answer_is_precise`, `envscale.judge.precision`); a task that asks for no fact is not scored on
  its answer, except that a dump fails it too (a final message pasting records is never training data);
- `required`: every required action was done, by whatever tool: the gold calls of the required tools
  are replayed (`required_effects`), and each gold write needs a successful call with the
  same effect (the same rows of the same tables changed the same way), each gold read a successful
  read of at least the rows it read (`envscale.judge.effects`), in any order (`effects_done`);
- `forbidden`: no forbidden tool call succeeded (a refused call is fine: the environment said no);
- `refusal` (policy tasks): the final answer declines and names the rule or the reason
  (`is_recognised_refusal`, `envscale.judge.refusal`): never writing is not the same as refusing.

The result also carries `efficiency`, for rewards (not a check): 1.0 up to `k` times the gold calls,
then falling linearly to 0.0 at `2k` times (PROVE's efficiency penalty, simplified).

A check the task is not scored on is `None`; `passed` is true when every scored check is.
`score_row` does the same from an `environments` dataset row; give it an
`envscale.judge.cache.EnvironmentCache` when scoring many trajectories.

Example:

```python
>>> from envscale.env import Environment
>>> from envscale.judge.score import score_trajectory
>>> env = Environment.from_yaml("tests/fixtures/envs/shop.yaml")
>>> gold_calls = [{"tool": "cancel_order", "arguments": {"order_id": "ord_0009"}}]
>>> env.step(**gold_calls[0])["ok"]
True
>>> task = {"kind": "write", "seed": None, "gold_state_hash": env.state_hash(), "answer_facts": [],
...         "gold_calls": gold_calls,
...         "scoring": {"state": True, "answer_facts": False, "required_actions": ["cancel_order"],
...                     "forbidden_actions": []}}
>>> result = score_trajectory(task, env, gold_calls)
>>> {k: result[k] for k in ("state", "answer", "required", "forbidden", "passed", "errors")}
{'state': True, 'answer': None, 'required': True, 'forbidden': None, 'passed': True, 'errors': 0}
>>> score_trajectory(task, env, [])["passed"]
False
```
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from envscale.env import Environment

from .answers import answer_matches, canonical_value
from .cache import EnvironmentCache
from .effects import READ_OPERATIONS, Step, effect, rows_read
from .precision import overstatement
from .refusal import recited, refusal_problem

__all__ = [
    "acted_keys",
    "answer_is_precise",
    "call_parts",
    "efficiency",
    "effects_done",
    "is_recognised_refusal",
    "replay",
    "required_effects",
    "reset_env",
    "score_row",
    "score_trajectory",
]


def reset_env(env: Environment, seed: int | None, session_key: Any = None) -> None:
    """Reset `env` to the initial state a task was built on: `reset(seed=seed)`, or `reset()` for `None`.

    A seed equal to the spec's own `data.seed` (in a spec without an `initial_state`) gives the
    same rows as `reset()` (see `Environment.reset`), so the spec's image is reused instead of
    generating the same state a second time.

    Args:
        env (`Environment`): The environment.
        seed (`int`, *optional*): The task's `seed`.
        session_key (*optional*): The session row's key, for a spec with a `session`.
    """
    if (
        seed is not None
        and "initial_state" not in env.spec
        and seed == (env.spec.get("data") or {}).get("seed", 0)
    ):
        seed = None
    if session_key is None:
        env.reset(seed=seed)
    else:
        env.reset(seed=seed, session_key=session_key)


def call_parts(call: Any) -> tuple[Any, Any]:
    """`(tool, arguments)` of a call: `{"tool", "arguments"}`, `{"name", "arguments"}` or an OpenAI tool call.

    OpenAI / TRL tool calls (`{"type": "function", "function": {"name", "arguments"}}`) are read as
    they are; `arguments` may be a dict or its JSON text (`Environment.step` takes both). Anything
    else gives `(None, None)`, which `step` answers with an `unknown_tool` error.
    """
    if not isinstance(call, Mapping):
        return None, None
    if "tool" in call:
        return call["tool"], call.get("arguments")
    function = call.get("function")
    if isinstance(function, Mapping):
        return function.get("name"), function.get("arguments")
    return call.get("name"), call.get("arguments")


def _mapping(value: Any, what: str) -> dict[str, Any]:
    if isinstance(value, str):  # a Json column read without decoding
        value = json.loads(value)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"task {what} must be a mapping, got {type(value).__name__}")
    return dict(value)


def _env_name(task: Mapping[str, Any]) -> str | None:
    env = task.get("environment")
    if isinstance(env, Mapping):
        env = env.get("name")
    return env if isinstance(env, str) else None


def answer_is_precise(
    env: Environment, facts: list[Any], answer: str | None, task: Mapping[str, Any]
) -> bool:
    """Whether `answer` states no more than a person answering the task with `facts` would: no dump of the
    tables (`precision.overstatement`: the user's words and the rows the task writes never count against it)
    and no recital of the environment's policy (`refusal.recited`; a refusal may cite its own rule)."""
    policy = _mapping(task.get("policy"), "policy")
    if recited(answer, policy, policy.get("task_rule")):
        return False
    return overstatement(env, facts, answer, given_values(task), acted_keys(task, env)) is None


def acted_keys(task: Mapping[str, Any], env: Environment) -> list[tuple[str, Any]]:
    """The rows a task writes, as `(table, primary key)`: its gold writes' scalar arguments (on the tool's table)
    and the rows its gold run changed. The rows its reads return are not among them: an answer that pastes
    them whole is a dump."""
    tools = {t["name"]: t.get("operation") or {} for t in env.spec["tools"]}
    keys: list[tuple[str, Any]] = []
    for call in _list(task.get("gold_calls")):
        tool, arguments = call_parts(call)
        op = tools.get(tool) or {}
        if op.get("type") in READ_OPERATIONS or not op.get("table"):
            continue
        if isinstance(arguments, str):
            arguments = json.loads(arguments)
        if isinstance(arguments, Mapping):
            keys += [(op["table"], v) for v in arguments.values() if _scalar(v)]
    for table, changes in _mapping(task.get("gold_diff"), "gold_diff").items():
        keys += [(table, c.get("key")) for c in changes.get("changed") or [] if isinstance(c, Mapping)]
        for row in [*(changes.get("added") or []), *(changes.get("removed") or [])]:
            keys += [(table, v) for v in row.values() if _scalar(v)]
    return keys


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def is_recognised_refusal(
    answer: str | None, task: Mapping[str, Any], env: Environment | None = None
) -> bool:
    """Whether `answer` declines the task's request and names its rule or reason (`refusal.refusal_problem`).

    With `env` (in the state the answer was given in), the value that the rule's column holds on the row
    the request addresses (`"shipped"`) is a reason too. (A refusal inside a dump fails the task through
    `answer`, which `score_trajectory` checks for precision whether or not the task asks a fact.)"""
    policy = _mapping(task.get("policy"), "policy")
    rule = policy.get("task_rule")
    given = " ".join(str(g) for g in given_values(task))
    state = _addressed_value(env, rule) if env is not None and isinstance(rule, Mapping) else None
    return refusal_problem(answer, rule, given, policy, state=state) is None


def _addressed_value(env: Environment, rule: Mapping[str, Any]) -> Any:
    """The rule's column on the row its attempted call addresses (the row holding one of the call's values)."""
    table, column = rule.get("table"), rule.get("column")
    arguments = (rule.get("attempt") or {}).get("arguments") or {}
    values = {canonical_value(v) for v in arguments.values() if _scalar(v)}
    key = env.spec.get("tables", {}).get(table, {}).get("primary_key")
    for row in env.dump().get(table) or []:
        if column in row and key in row and canonical_value(row[key]) in values:
            return row[column]
    return None


def given_values(task: Mapping[str, Any]) -> list[Any]:
    """What the user says in a task: its messages and the facts it knows (they never count against an answer)."""
    instructions = _mapping(task.get("instructions"), "instructions")
    values: list[Any] = [task.get("first_message"), instructions.get("first_message")]
    values += [r.get("message") if isinstance(r, Mapping) else r for r in _list(task.get("requests"))]
    values += list(instructions.get("requests") or [])
    for name in ("known_facts", "hidden_facts"):
        values += list((instructions.get(name) or {}).values())
    return [v for v in values if v not in (None, "")]


def efficiency(n_calls: int, n_gold: int, k: float = 2.0) -> float:
    """1.0 up to `k` times the gold calls, then falling linearly to 0.0 at `2k` times (for rewards)."""
    budget = k * max(n_gold, 1)
    return 1.0 if n_calls <= budget else max(0.0, 1.0 - (n_calls - budget) / budget)


def _list(value: Any) -> list[Any]:
    if isinstance(value, str):
        value = json.loads(value)
    return list(value or [])


def score_trajectory(
    task: Mapping[str, Any],
    env: Environment,
    calls: list[Any],
    final_answer: str | None = None,
    *,
    precision: bool = True,
) -> dict[str, Any]:
    """Replay a trajectory's calls on a fresh reset of the task's environment and check the task.

    Args:
        task (`dict`): A row of the `tasks` config: `scoring` (`{"state": bool, "answer_facts":
            bool or list, "required_actions": [tool], "forbidden_actions": [tool]}`),
            `gold_state_hash`, `answer_facts`, `gold_calls` (needed with `required_actions`: what
            the required tools' calls did is what is required), `seed` (`None`: the spec's own
            initial state) and, optionally, `environment` (its name is checked against `env`) and
            `session_key`.
        env (`Environment`): An environment of the task's spec; it is reset first, so its current
            state does not matter, and left in the trajectory's final state.
        calls (`list[dict]`): The agent's calls in order, `{"tool", "arguments"}` (or OpenAI tool
            calls, see `call_parts`).
        final_answer (`str`, *optional*): The agent's last message, checked for answer facts.
        precision (`bool`, *optional*, defaults to `True`): Check that the answer states no dump of what
            was not asked; `False` checks recall only (the tasks' own gates, which ask whether an answer
            holding everything would pass).

    Returns:
        `dict`: `{"state", "answer", "required", "forbidden", "refusal"}` (each `True`, `False` or
        `None` when the task is not scored on it), `"passed"` (every scored check holds),
        `"state_hash"` (of the final state), `"errors"` (calls the environment refused or could not
        run) and `"efficiency"` (see the module docstring).

    Raises:
        `ValueError`: The task is malformed: scored on state without a gold hash, scored on nothing,
            meant for another environment, or requiring a tool no gold call makes (or whose gold
            call fails on replay).
    """
    name = _env_name(task)
    if name is not None and name != env.name:
        raise ValueError(f"task is for environment {name!r}, got an environment of {env.name!r}")
    scoring = _mapping(task.get("scoring"), "scoring")
    required_tools = scoring.get("required_actions") or []
    # what the required gold calls did (no call does nothing: an empty trajectory needs no gold replay)
    wanted = required_effects(task, env, required_tools) if required_tools and calls else []
    steps = replay(env, calls, task.get("seed"), task.get("session_key"), track=bool(wanted))
    succeeded = {s.tool for s in steps if s.ok}
    errors = sum(not s.ok for s in steps)
    final_hash = env.state_hash()

    state = None
    if scoring.get("state"):
        gold = task.get("gold_state_hash")
        if not gold:
            raise ValueError("task is scored on state but has no gold_state_hash")
        state = final_hash == gold
    answer = None
    asked = scoring.get("answer_facts")
    if asked:
        facts = asked if isinstance(asked, list) else task.get("answer_facts") or []
        if not facts:
            raise ValueError("task is scored on answer facts but lists none")
        answer = answer_matches(facts, final_answer)
        if answer and precision:
            answer = answer_is_precise(env, facts, final_answer, task)
    elif precision and final_answer and not answer_is_precise(env, [], final_answer, task):
        answer = False  # asked for no fact, the answer still may not be a dump (never training data)
    required = (effects_done(wanted, steps) if wanted else False) if required_tools else None
    forbidden_tools = scoring.get("forbidden_actions") or []
    forbidden = not any(t in succeeded for t in forbidden_tools) if forbidden_tools else None
    refusal = None
    if scoring.get("refusal", task.get("kind") == "policy" and bool(forbidden_tools)):
        refusal = is_recognised_refusal(final_answer, task, env)

    checks = [c for c in (state, answer, required, forbidden, refusal) if c is not None]
    if not checks:
        raise ValueError("task is scored on nothing: its scoring names no state, answer facts or actions")
    return {
        "state": state,
        "answer": answer,
        "required": required,
        "forbidden": forbidden,
        "refusal": refusal,
        "passed": all(checks),
        "state_hash": final_hash,
        "errors": errors,
        "efficiency": efficiency(len(calls), len(_list(task.get("gold_calls")))),
    }


def replay(
    env: Environment, calls: list[Any], seed: int | None, session_key: Any = None, *, track: bool = True
) -> list[Step]:
    """Reset `env` to the task's initial state (`reset_env`) and run `calls` in order through `Environment.step`.

    Args:
        env (`Environment`): The environment, left in the state the calls reach.
        calls (`list`): The calls (see `call_parts`).
        seed (`int`, *optional*), session_key (*optional*): The task's `seed` and `session_key`.
        track (`bool`, *optional*, defaults to `True`): Record each successful call's effect and rows read
            (`envscale.judge.effects`); without it a step says only its tool and whether it succeeded.

    Returns:
        `list[Step]`: One per call, in order.
    """
    reset_env(env, seed, session_key)
    steps = []
    for call in calls:
        tool, arguments = call_parts(call)
        obs = env.step(tool, arguments)
        if not obs["ok"]:
            steps.append(Step(tool, False))
        elif track:
            read = rows_read(env, tool, obs["result"], arguments)
            steps.append(Step(tool, True, effect(env.last_changes()), read))
        else:
            steps.append(Step(tool, True))
    return steps


def required_effects(task: Mapping[str, Any], env: Environment, tools: list[Any]) -> list[Step]:
    """What the task's required actions did: each gold call of a required tool, replayed on the task's
    initial state, as a `Step` (its effect, or the rows it read). `env` is reset and left in the gold state.

    Raises:
        `ValueError`: A required tool is no gold call's tool, or a gold call fails on replay.
    """
    gold = task.get("gold_calls") or []
    if isinstance(gold, str):
        gold = json.loads(gold)
    missing = sorted(set(map(str, tools)) - {str(call_parts(c)[0]) for c in gold})
    if missing:
        raise ValueError(f"task requires {', '.join(missing)}, which no gold call makes")
    steps = replay(env, gold, task.get("seed"), task.get("session_key"))
    for i, step in enumerate(steps):
        if not step.ok:
            raise ValueError(f"gold call {i} ({step.tool}) fails when replayed")
    return [s for s in steps if s.tool in tools]


def effects_done(wanted: list[Step], steps: list[Step]) -> bool:
    """Whether the calls `steps` did every gold step of `wanted`, in any order: each gold write by a call with
    the same effect, each gold read by a call that read at least its rows (`Step.satisfies`). (Two gold
    writes never share an effect that changes something: the second would find the row already changed.)"""
    return all(any(s.satisfies(gold) for s in steps) for gold in wanted)


def score_row(
    task: Mapping[str, Any],
    env_row: Mapping[str, Any],
    calls: list[Any],
    final_answer: str | None = None,
    *,
    envs: EnvironmentCache | None = None,
) -> dict[str, Any]:
    """`score_trajectory` on the environment of an `environments` dataset row.

    Args:
        task (`dict`): The task row.
        env_row (`dict`): The environment's row (its `spec` column: the spec or its JSON text).
        calls (`list[dict]`): The agent's calls.
        final_answer (`str`, *optional*): The agent's last message.
        envs (`EnvironmentCache`, *optional*): Where to keep built environments. Without one, the
            environment is built from the row (`Environment.from_row`) for this call and closed.

    Returns:
        `dict`: See `score_trajectory`.

    Example:

    ```python
    >>> envs = EnvironmentCache()
    >>> results = [score_row(t, env_rows[t["environment"]], traj["calls"], traj["answer"], envs=envs)
    ...            for t, traj in pairs]  # doctest: +SKIP
    ```
    """
    if envs is not None:
        return score_trajectory(task, envs.get(env_row), calls, final_answer)
    env = Environment.from_row(env_row)
    try:
        return score_trajectory(task, env, calls, final_answer)
    finally:
        env.close()
