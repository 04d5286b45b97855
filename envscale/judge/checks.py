"""The checks `envscale filter` (and `envscale eval`) records for every trajectory, and the verdict.

| check | holds when |
|---|---|
| `ended` | the episode ended normally (the user's stop marker), not by a limit or a failure |
| `format` | the messages are well formed: roles in order, every tool call has an id, a name and an object of arguments, every tool call has exactly one `tool` answer whose content is a string |
| `schema` | every call named an offered tool with schema-valid arguments (no `unknown_tool` or `invalid_arguments` error) |
| `state` | replaying the calls on a fresh environment ends in the gold state hash |
| `answer` | the final answer states every answer fact, and no dump of rows or fields that were not asked (`precision`) |
| `actions` | what the required tools' gold calls did was done, by any tool and in any order: each gold write's effect (the same rows changed the same way) by a successful call, each gold read's rows by a successful read (`effects`) |
| `policy` | no forbidden call succeeded (and, scored on `state`, the state is what the policy leaves), and the answer is a refusal that names the rule or the reason (`refusal`) |
| `consistent` | the final answer does not contradict the tool results: it claims no success after a last call the environment refused, and states no value for a field that the latest result of that field's row shows otherwise (`check_consistent`) |
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
import re
from dataclasses import dataclass
from typing import Any

from envscale.env import Environment
from envscale.schemas import CHECKS
from envscale.words.names import tokens

from .answers import canonical_value
from .provenance import read_calls
from .score import score_trajectory

__all__ = [
    "DEFAULT_LEVELS",
    "SCHEMA_ERRORS",
    "Judgement",
    "answer_text",
    "check_consistent",
    "check_format",
    "check_trajectory",
    "environment_error",
    "exact_match",
    "judge_trajectory",
    "required_arguments",
    "verdict",
]

#: The checks required by default: the outcome, in a well-formed conversation that ended normally.
DEFAULT_LEVELS = ("ended", "format", "state", "answer", "actions", "policy", "consistent")
#: Error codes of calls that never reached the environment's tools (not offered, or arguments that do
#: not fit the tool's schema): they fail `schema` and are left out of the replay.
SCHEMA_ERRORS = frozenset({"unknown_tool", "invalid_arguments", "too_many_calls"})
"""Codes of calls the agent got wrong as calls (not run, or refused before the environment saw them)."""


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


#: Words that claim a request succeeded, and words that say it did not (the latter win).
_SUCCESS = re.compile(
    r"\b(?:done|all set|taken care of|successfully|succeeded|(?:is|are) now)\b|"
    r"\b(?:i|i've|i have|has been|have been|was|were)\s+(?:\w+ly\s+)?(?:updated|created|deleted|removed|"
    r"cancell?ed|added|saved|changed|completed|booked|scheduled|set|made|sent)\b",
    re.IGNORECASE,
)
_FAILURE = re.compile(
    r"\b(?:sorry|unfortunately|couldn't|could not|can't|cannot|unable|not able|failed|fail|error|refused|"
    r"denied|not allowed|not permitted|wasn't|was not|didn't|did not|won't|isn't|is not|doesn't|does not|"
    r"don't|do not|nothing was)\b",
    re.IGNORECASE,
)
#: What joins a field to the value a message gives it: `status is now cancelled`, `email: a@b.c`. The
#: strong ones claim the value the row has now, after the calls.
_NOW = r"(?:is now|are now|now reads|now is|was changed to|was updated to|was set to|changed to|updated to|set to)"
_IS = r"(?:is|are|:|=)"
#: Words before a field that say the value given is the old one; a value then an arrow names both.
_OLD = re.compile(
    r"\b(?:previous|previously|old|former|original|originally|before)\b[^.;\n]*$", re.IGNORECASE
)
_CHANGE = re.compile(r"\S+\s*(?:->|\u2192|=>)")


def _observation(content: Any) -> Any:
    try:
        return json.loads(content) if isinstance(content, str) else content
    except (TypeError, ValueError):
        return content


def _refused(value: Any) -> bool:
    """An error observation: `{"error", "code"}` (what the rollout records), or `{"ok": false, ...}`."""
    return isinstance(value, dict) and (set(value) == {"error", "code"} or value.get("ok") is False)


def _renderings(value: Any) -> set[str]:
    """How a message may write `value` (lowercase)."""
    if isinstance(value, bool):
        return {"true", "yes"} if value else {"false", "no"}
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:  # an integer beyond a float's range is written as it is
            return {str(value)}
        out = {str(value), f"{number:g}", f"{number:.2f}"}
        return out | ({str(int(number))} if number.is_integer() else set())
    text = str(value).strip().lower()
    return {text, text.replace("_", " ")} if text else set()


_OPENING = "\"'\u201c`*( $\u20ac\u00a3"


def _states(text: str, values: set[str]) -> bool:
    """`text` (what follows a field and its connector) starts with one of `values`, as a whole. Opening quotes
    are not compared, the value's own as the message's (a message `"Review ...": steps ...` quoted once more)."""
    text = text.lstrip(_OPENING).lower()
    values = values | ({v.lstrip(_OPENING) for v in values} - {""})
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)  # 1,234.50 is 1234.50
    return any(
        text.startswith(v) and (len(text) == len(v) or not (text[len(v)].isalnum() or text[len(v)] in "_-@"))
        for v in values
    )


def _rows(result: Any) -> list[dict]:
    rows = result if isinstance(result, list) else [result]
    return [r for r in rows if isinstance(r, dict)]


def _identity(row: dict, position: int) -> Any:
    """A row's identity: its first column when that is a key (`order_id`), else where it was read."""
    first = next(iter(row), None)
    if first is not None and re.search(r"(?:id|key|uuid|code)$", first, re.IGNORECASE):
        return (first, json.dumps(row[first], default=str))
    return ("at", position)


def check_consistent(messages: Any) -> bool:
    """The final assistant message does not contradict the tool results before it.

    It fails when (1) every tool call of the agent's last turn (since the user last spoke) was refused
    and the message claims success ("done", "updated", "has been", ...) without a word of failure
    ("sorry", "couldn't", "refused", ...); or (2) the message gives a field a value (`<field> is now <value>`, `<field> is <value>`)
    that the field had in an earlier result or call argument of the episode while the latest result
    of that row shows another, or (with `is now`, `set to`, ... ) any value other than what the last
    result shows for it. Values the episode never showed and fields it never returned are not judged:
    a message is wrong here only where the episode's own results say so. Quoted text claims nothing, nor
    does a value said as the old one ("previously pending", "pending -> cancelled"). Malformed calls
    (arguments that are no JSON object) are skipped, never an error.
    """
    if not isinstance(messages, list):
        return False
    last = next((i for i in range(len(messages) - 1, -1, -1) if _is_answer(messages[i])), None)
    if last is None:
        return True
    answer = str(messages[last].get("content") or "")
    tools = [
        _observation(m.get("content"))
        for m in messages[:last]
        if isinstance(m, dict) and m.get("role") == "tool"
    ]
    if not tools:
        return True
    said = re.sub(r'"[^"]*"', '""', answer)  # quoted values (a result read back) claim nothing
    quoted = [m.span() for m in re.finditer(r'"[^"]*"', answer)]
    # the agent's last turn: the tool answers since the user last spoke
    turn_start = next((i for i in range(last - 1, -1, -1) if _role(messages[i]) == "user"), -1)
    turn = [_observation(m.get("content")) for m in messages[turn_start + 1 : last] if _role(m) == "tool"]
    if turn and all(_refused(t) for t in turn) and _SUCCESS.search(said) and not _FAILURE.search(said):
        return False  # success claimed, and every call of the turn was refused
    known: dict[str, set[str]] = {}  # every value a field took in the episode (results and arguments)
    latest: dict[Any, dict] = {}  # the latest result of each row
    for position, value in enumerate(tools):
        if _refused(value):
            continue
        for row in _rows(value):
            latest[_identity(row, position)] = row
    for m in messages[:last]:
        for call in (m.get("tool_calls") or []) if isinstance(m, dict) else []:
            function = call.get("function") if isinstance(call, dict) else None
            arguments = _observation(function.get("arguments")) if isinstance(function, dict) else None
            for name, value in arguments.items() if isinstance(arguments, dict) else ():
                if not isinstance(value, dict | list) and value is not None:
                    known.setdefault(name, set()).update(_renderings(value))
    for value in tools:
        for row in [] if _refused(value) else _rows(value):
            for name, field in row.items():
                if not isinstance(field, dict | list) and field is not None:
                    known.setdefault(name, set()).update(_renderings(field))
    now: dict[str, set[str]] = {}
    for row in latest.values():
        for name, field in row.items():
            if not isinstance(field, dict | list):
                now.setdefault(name, set()).update(
                    _renderings(field) if field is not None else {"null", "none"}
                )
    last_row = _rows(tools[-1])
    last_fields = set(last_row[0]) if len(last_row) == 1 else set()
    phrases = {name: " ".join(tokens(name)) or name for name in known.keys() | now.keys()}
    for name, values in now.items():
        words = phrases[name]
        if len(words) < 3:
            continue
        field = re.escape(words).replace("\\ ", "[\\s_]+")
        # a longer field that ends with these words ("display name" for `name`) is that field, not this one
        heads = [p[: -len(words)].strip() for p in phrases.values() if p.endswith(" " + words)]
        for strong, connector in ((True, _NOW), (False, _IS)):
            for match in re.finditer(rf"\b{field}\s*{connector}(?!\w)\s*", answer, re.IGNORECASE):
                if any(start < match.start() < end for start, end in quoted):
                    continue  # inside quoted words (the user's, or a result read back): no claim
                before = answer[: match.start()]
                if any(re.search(rf"\b{re.escape(h)}[\s_]+$", before, re.IGNORECASE) for h in heads):
                    continue
                if _OLD.search(before[-40:]):
                    continue  # "the previous status was pending": the old value, said as such
                stated = answer[match.end() :]
                if _CHANGE.match(stated):
                    continue  # "status: pending -> cancelled": both values, in order
                if _states(stated, values):
                    continue
                if _states(stated, known.get(name, set()) - values):
                    return False  # an old (or intended) value the latest result does not show
                if strong and name in last_fields:
                    return False  # "is now X", while the last result shows otherwise
    return True


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, dict) else None


def _is_answer(message: Any) -> bool:
    return isinstance(message, dict) and message.get("role") == "assistant" and not message.get("tool_calls")


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


def gold_call_recall(
    calls: list[dict], gold: list[dict], required_args: dict[str, list[str]]
) -> tuple[float | None, float | None]:
    """How much of the gold an episode's calls got right, as a person reading them would count it:
    `(right tools, right calls)`: how well the set of tools the agent called (whatever their arguments did) fits
    the gold calls' tools, as their Jaccard index (the gold tools called, over the gold tools and the other
    tools called: calling every offered tool is not rewarded), and the share of the gold calls that a
    successful call matched on tool and key arguments (each agent call matches one gold call at most).
    `(None, None)` for a task without gold calls.

    Partial credit for evaluation (`envscale eval`'s "right tool" and "right call"), never a filter check: a task
    is done by its outcome, and another tool with the same effect does it too (`actions`)."""
    if not gold:
        return None, None
    made = [c for c in calls if c.get("ok")]
    tools = {g["tool"] for g in gold}
    called = {c.get("tool") for c in calls}
    right_tools = len(tools & called) / len(tools | called)
    pending = [_signature(c.get("tool"), c.get("arguments"), required_args) for c in made]
    matched = 0
    for g in gold:
        sig = _signature(g["tool"], g.get("arguments"), required_args)
        if sig in pending:
            pending.remove(sig)
            matched += 1
    return round(right_tools, 4), round(matched / len(gold), 4)


def required_arguments(env: Environment) -> dict[str, list[str]]:
    """Each tool's required arguments: the key arguments `exact` compares."""
    return {t["name"]: list((t.get("parameters") or {}).get("required") or []) for t in env.spec["tools"]}


def answer_text(trajectory: dict, task: dict) -> str:
    """What the agent answered, checked for the task's answer facts: its final message; in a conversation
    (a task of several `requests`), every message it wrote to the user, since each request is answered
    when it is done (a trajectory that stops after the first request still lacks the later facts)."""
    requests = _json(task.get("requests")) or []
    if len(requests) < 2:
        return trajectory.get("final_answer") or ""
    messages = _json(trajectory.get("messages")) or []
    return "\n".join(str(m.get("content") or "") for m in messages if _is_answer(m))


def check_trajectory(trajectory: dict, task: dict, env: Environment) -> dict[str, bool | None]:
    """Every check of `CHECKS` for one trajectory of `task`, `env` being the task's environment."""
    calls = _json(trajectory.get("calls")) or []
    messages = _json(trajectory.get("messages")) or []
    checks: dict[str, bool | None] = dict.fromkeys(CHECKS)
    checks["ended"] = trajectory.get("status") == "completed"
    checks["format"] = check_format(messages)
    checks["schema"] = all(c.get("ok") or c.get("code") not in SCHEMA_ERRORS for c in calls)
    if not messages:  # the episode never ran (its environment failed): nothing to replay
        checks.update(state=False, answer=False, actions=False, policy=False, exact=False, consistent=False)
        return checks
    # calls the episode refused before they reached the environment (not offered, unparseable) never ran:
    # the replay leaves them out too (the environment refuses the others again, changing nothing)
    ran = [c for c in calls if c.get("ok") or c.get("code") not in SCHEMA_ERRORS]
    score = score_trajectory(
        task,
        env,
        [{"tool": c.get("tool"), "arguments": c.get("arguments")} for c in ran],
        answer_text(trajectory, task),
    )
    checks["state"], checks["answer"], checks["actions"] = score["state"], score["answer"], score["required"]
    checks["policy"] = score["forbidden"]
    if checks["policy"] is not None and score["state"] is not None:
        checks["policy"] = checks["policy"] and score["state"]
    if score["refusal"] is not None:  # a policy task: the agent must also say no, and why
        checks["policy"] = score["refusal"] and checks["policy"] is not False
    gold = _json(task.get("gold_calls")) or []
    checks["exact"] = exact_match(calls, gold, required_arguments(env))
    checks["consistent"] = check_consistent(messages)
    if len(_json(task.get("requests")) or []) > 1:  # a conversation: every request's answer, each in its turn
        checks["consistent"] = all(
            check_consistent(messages[: i + 1]) for i, m in enumerate(messages) if _is_answer(m)
        )
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
