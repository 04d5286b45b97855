"""Score a trajectory against a task: the one way a task is checked.

`score_trajectory(task, env, calls, final_answer)` resets the task's environment to the task's
seed, replays the agent's calls in order through `Environment.step` (the only execution path) and
checks what the task's `scoring` names:

- `state`: the final `state_hash()` equals the task's `gold_state_hash`;
- `answer`: every answer fact appears in the final answer (case-insensitive, whole words, numbers
  compared as numbers: `"42.0"` matches `42`, `"1,234.5"` matches `1234.5`);
- `required`: every required tool was called successfully at least once;
- `forbidden`: no forbidden tool call succeeded (a refused call is fine: the environment said no).

A check the task is not scored on is `None`; `passed` is true when every scored check is.
`score_row` does the same from an `environments` dataset row; give it an `EnvironmentCache` when
scoring many trajectories, so each environment is built once per process and every trajectory
after the first costs a reset (the state is kept as a database image), the replay and a hash.

Example:

```python
>>> from envscale.env import Environment
>>> from envscale.tasks.score import score_trajectory
>>> env = Environment.from_yaml("tests/fixtures/envs/shop.yaml")
>>> gold_calls = [{"tool": "cancel_order", "arguments": {"order_id": "ord_0009"}}]
>>> env.step(**gold_calls[0])["ok"]
True
>>> task = {"kind": "write", "seed": None, "gold_state_hash": env.state_hash(), "answer_facts": [],
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

import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from envscale.env import Environment

__all__ = [
    "EnvironmentCache",
    "answer_matches",
    "call_parts",
    "normalize_answer",
    "reset_env",
    "score_row",
    "score_trajectory",
]

# A number standing on its own: not glued to a word or to another number's separator on its left.
# `1,234,567.5` reads as one number (thousands separators), `ord_0042` and `v1.2` are left alone.
_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?!\w)")
_MAX_DIGITS = 40  # longer digit runs (hashes, card numbers) are kept as they are written


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


def _canonical_number(match: re.Match[str]) -> str:
    digits = match.group(1).replace(",", "")
    if len(digits) > _MAX_DIGITS:
        return match.group(0)
    value = Decimal(digits + (match.group(2) or "")).normalize()
    return format(value, "f")


def normalize_answer(text: Any) -> str:
    """Text as answer facts are matched: lower case, single spaces, every number in one canonical form.

    `"Total: $1,234.50"` -> `"total: $1234.5"`; `"42.0 items"` -> `"42 items"`; ids such as
    `ord_0042` are kept as written.
    """
    if isinstance(text, bool):
        text = "true" if text else "false"
    elif isinstance(text, int | float | Decimal):
        try:
            return format(Decimal(repr(text) if isinstance(text, float) else text).normalize(), "f")
        except (InvalidOperation, ValueError):  # nan, inf
            text = str(text)
    elif not isinstance(text, str):
        text = json.dumps(text, sort_keys=True, default=str)
    return _NUMBER.sub(_canonical_number, " ".join(text.split()).lower())


def _word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _contains(haystack: str, needle: str) -> bool:
    """`needle` occurs in `haystack` as a whole: no word character, nor `.5`/`,5`, continues it on either side."""
    if not needle:
        return True
    start = haystack.find(needle)
    n, end_max = len(needle), len(haystack)
    while start != -1:
        end = start + n
        before_ok = start == 0 or not (
            _word(haystack[start - 1])
            or (start >= 2 and haystack[start - 1] in ".," and haystack[start - 2].isdigit())
        )
        after_ok = end == end_max or not (
            _word(haystack[end])
            or (end + 1 < end_max and haystack[end] in ".," and haystack[end + 1].isdigit())
        )
        if before_ok and after_ok:
            return True
        start = haystack.find(needle, start + 1)
    return False


def answer_matches(facts: Iterable[Any], answer: str | None) -> bool:
    """Whether every fact appears in `answer` (see `normalize_answer`; an empty fact list matches).

    Example:

    ```python
    >>> answer_matches(["1,234.5", 42, "Ann Lee"], "ann lee owes 1234.50 on 42.0 orders")
    True
    >>> answer_matches(["42"], "order 421"), answer_matches(["5"], "5.5"), answer_matches(["ord_0001"], "ord_00012")
    (False, False, False)
    ```
    """
    facts = list(facts)
    if not facts:
        return True
    if answer is None:
        return False
    text = normalize_answer(answer)
    return all(_contains(text, normalize_answer(fact)) for fact in facts)


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


def score_trajectory(
    task: Mapping[str, Any],
    env: Environment,
    calls: list[Any],
    final_answer: str | None = None,
) -> dict[str, Any]:
    """Replay a trajectory's calls on a fresh reset of the task's environment and check the task.

    Args:
        task (`dict`): A row of the `tasks` config: `scoring` (`{"state": bool, "answer_facts":
            bool or list, "required_actions": [tool], "forbidden_actions": [tool]}`),
            `gold_state_hash`, `answer_facts`, `seed` (`None`: the spec's own initial state) and,
            optionally, `environment` (its name is checked against `env`) and `session_key`.
        env (`Environment`): An environment of the task's spec; it is reset first, so its current
            state does not matter, and left in the trajectory's final state.
        calls (`list[dict]`): The agent's calls in order, `{"tool", "arguments"}` (or OpenAI tool
            calls, see `call_parts`).
        final_answer (`str`, *optional*): The agent's last message, checked for answer facts.

    Returns:
        `dict`: `{"state", "answer", "required", "forbidden"}` (each `True`, `False` or `None` when
        the task is not scored on it), `"passed"` (every scored check holds), `"state_hash"` (of
        the final state) and `"errors"` (calls the environment refused or could not run).

    Raises:
        `ValueError`: The task is malformed: scored on state without a gold hash, scored on nothing,
            or meant for another environment.
    """
    name = _env_name(task)
    if name is not None and name != env.name:
        raise ValueError(f"task is for environment {name!r}, got an environment of {env.name!r}")
    scoring = _mapping(task.get("scoring"), "scoring")
    reset_env(env, task.get("seed"), task.get("session_key"))
    step = env.step
    succeeded: set[Any] = set()
    errors = 0
    for call in calls:
        tool, arguments = call_parts(call)
        if step(tool, arguments)["ok"]:
            succeeded.add(tool)
        else:
            errors += 1
    final_hash = env.state_hash()

    state = None
    if scoring.get("state"):
        gold = task.get("gold_state_hash")
        if not gold:
            raise ValueError("task is scored on state but has no gold_state_hash")
        state = final_hash == gold
    answer = None
    wanted = scoring.get("answer_facts")
    if wanted:
        facts = wanted if isinstance(wanted, list) else task.get("answer_facts") or []
        if not facts:
            raise ValueError("task is scored on answer facts but lists none")
        answer = answer_matches(facts, final_answer)
    required_tools = scoring.get("required_actions") or []
    required = all(t in succeeded for t in required_tools) if required_tools else None
    forbidden_tools = scoring.get("forbidden_actions") or []
    forbidden = not any(t in succeeded for t in forbidden_tools) if forbidden_tools else None

    checks = [c for c in (state, answer, required, forbidden) if c is not None]
    if not checks:
        raise ValueError("task is scored on nothing: its scoring names no state, answer facts or actions")
    return {
        "state": state,
        "answer": answer,
        "required": required,
        "forbidden": forbidden,
        "passed": all(checks),
        "state_hash": final_hash,
        "errors": errors,
    }


class EnvironmentCache:
    """Environments built from dataset rows, kept by spec so that each is built once per process.

    Building an environment generates its initial state (1.4 s for the 33,000-row shop of
    `bench/env_step.py`); a kept one is reset from its database image in well under a millisecond.
    Rows are matched by the content of their `spec` (a digest of its JSON), or by identity when the
    same spec object comes back. Not thread-safe: use one cache per worker.

    Args:
        max_size (`int`, *optional*, defaults to 8): Environments kept; the least recently used one
            is closed when a new one does not fit.
        **env_kwargs: Passed to `Environment.from_row` (`max_rows`, `time_limit_ms`).

    Example:

    ```python
    >>> from envscale.env import load_spec
    >>> envs = EnvironmentCache()
    >>> row = {"name": "shop", "spec": load_spec("tests/fixtures/envs/shop.yaml")}
    >>> envs.get(row) is envs.get(dict(row))  # built once
    True
    ```
    """

    def __init__(self, max_size: int = 8, **env_kwargs: Any):
        if not isinstance(max_size, int) or max_size < 1:
            raise ValueError(f"max_size must be a positive integer, got {max_size!r}")
        self.max_size = max_size
        self.env_kwargs = env_kwargs
        self._envs: OrderedDict[str, tuple[Any, Environment]] = OrderedDict()

    @staticmethod
    def key(spec: Any) -> str:
        """The digest a row's spec is kept under."""
        text = spec if isinstance(spec, str) else json.dumps(spec, sort_keys=True, default=str)
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()

    def get(self, row: Mapping[str, Any]) -> Environment:
        """The environment of a dataset row (with a `spec` column), built on first use."""
        spec = row.get("spec") if isinstance(row, Mapping) else None
        for key, (held, env) in self._envs.items():
            if held is spec and spec is not None:
                self._envs.move_to_end(key)
                return env
        key = self.key(spec)
        entry = self._envs.get(key)
        if entry is not None:
            self._envs[key] = (spec, entry[1])  # the newest object for the identity check
            self._envs.move_to_end(key)
            return entry[1]
        env = Environment.from_row(row, **self.env_kwargs)
        self._envs[key] = (spec, env)
        while len(self._envs) > self.max_size:
            _, (_, old) = self._envs.popitem(last=False)
            old.close()
        return env

    def __len__(self) -> int:
        return len(self._envs)

    def close(self) -> None:
        """Close every kept environment."""
        for _, env in self._envs.values():
            env.close()
        self._envs.clear()


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
