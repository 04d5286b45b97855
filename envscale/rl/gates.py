"""Admission gates: which tasks may enter RL, and why the others may not.

A reward that can be had for nothing, or that the policy can read off a tool, teaches the wrong thing; a task
whose gold does not replay rewards nothing. Each task of a `tasks` artifact is checked before it enters the
training set, and every refused task is listed with the first gate it fails (`code`, `detail`):

- `environment_error`: its environment cannot be built (the reason);
- `not_offered`: a tool its gold calls use is not among the tools it offers (so no policy could do it);
- `beyond_max_rows`: a gold call takes a value from a list row past the rows a list returns (`max_rows`), so the
  policy could never see it;
- `initial_passes`: doing nothing already passes (no calls, an empty answer): the initial state meets the gold
  check, so the reward would be free;
- `gold_fails`: the gold calls, replayed on the initial state, do not reach the gold state or the required
  effects, or break the policy;
- `reveals_gold`: an offered tool would reveal the gold (a verifier, a grader, an answer or solution tool);
- `agent_can_end`: an offered tool ends the dialogue (end the conversation, finish, transfer to a human): only
  the user ends a dialogue.

An offered tool the environment lacks is dropped from the offer (and refuses the task only when its gold needs it).
Tools whose arguments are not Python identifiers (`x-trace-id`) are offered under identifiers
(`envscale.env.adapters.python_names`), so they need no gate.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..env import Environment
from ..judge import parse_provenance, score_trajectory

#: The gates in the order they are checked.
GATES = (
    "environment_error",
    "not_offered",
    "beyond_max_rows",
    "initial_passes",
    "gold_fails",
    "reveals_gold",
    "agent_can_end",
    "needs_user",  # only without a user simulator (`EnvscaleSpec(user=None)`, `envscale export`)
    "prompt_too_long",  # checked by EnvscaleSpec.limit_prompt_length, with the policy's tokenizer
)

_REVEALS = re.compile(
    r"(^|_)(verify|verifier|verification|gold|solution|solutions|grade|grader|grading|reward|"
    r"check_answer|expected_answer|answer_key|reference_answer|evaluate_task|judge)(_|$)"
)
_REVEALS_TEXT = re.compile(
    r"\b(gold (state|answer|calls?)|expected (answer|final state)|reference solution)\b", re.I
)
_ENDS = re.compile(
    r"^((end|finish|close|terminate|stop|exit|leave)_(the_)?(conversation|chat|dialog|dialogue|episode|session_with_user|task)"
    r"|done|finish|submit|task_complete|mark_task_done|complete_task|transfer_to_human(_agents?)?|hand_off_to_human)$"
)


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def snake(name: str) -> str:
    """`transferToHuman` -> `transfer_to_human` (names are matched in snake case)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", str(name)).lower().replace("-", "_")


def reveals_gold(tool: dict) -> bool:
    """Whether a tool would hand the agent the gold: a verifier, grader, answer or solution tool by its name,
    or a description that speaks of the gold state or the expected answer."""
    return bool(_REVEALS.search(snake(tool["name"]))) or bool(
        _REVEALS_TEXT.search(tool.get("description") or "")
    )


def ends_dialogue(tool: dict) -> bool:
    """Whether calling the tool ends the dialogue on the agent's side (only the user may end it)."""
    return bool(_ENDS.match(snake(tool["name"])))


def offered_tools(task: dict, spec: dict) -> tuple[list[str], dict[str, str]]:
    """(the tools the task offers that the environment has, {dropped tool: why}); without a `tools` list, all."""
    by_name = {t["name"]: t for t in spec["tools"]}
    names = list(task.get("tools") or []) or list(by_name)
    kept, dropped = [], {}
    for name in names:
        if name not in by_name:
            dropped[name] = "not a tool of the environment"
        else:
            kept.append(name)
    return kept, dropped


def needs_user(task: dict) -> str | None:
    """Why `task` cannot be won without a user simulator, or None. Without one the agent sees the user's first
    message and nothing more, so a task whose user makes later requests, or gives a fact only when asked, could
    never pay its reward."""
    requests = _json(task.get("requests")) or []
    if len(requests) > 1:
        return f"{len(requests)} requests: the user makes the later ones after the first is done"
    hidden = (_json(task.get("instructions")) or {}).get("hidden_facts") or {}
    if hidden:
        return f"the user gives {', '.join(map(str, hidden))} only when asked"
    if task.get("kind") == "missing_info":
        return "kind missing_info: the agent must ask the user for a value"
    return None


def admission(task: dict, env: Environment) -> tuple[str, str] | None:
    """The first gate `task` fails on `env` (its environment), as `(code, detail)`, or None when it is admitted.

    `env` is reset and left in the gold state (or wherever the last check left it)."""
    spec = env.spec
    by_name = {t["name"]: t for t in spec["tools"]}
    gold = _json(task.get("gold_calls")) or []
    kept, dropped = offered_tools(task, spec)
    gold_tools = sorted({str(c.get("tool")) for c in gold if isinstance(c, dict)})
    lost = [t for t in gold_tools if t not in kept]
    if lost:
        return "not_offered", "; ".join(f"{t}: {dropped.get(t, 'not in the task’s tools')}" for t in lost)
    limit = getattr(env, "max_rows", None)
    for call in gold:
        for source in (call.get("provenance") or {}).values() if isinstance(call, dict) else ():
            parsed = parse_provenance(source) if isinstance(source, str) else None
            if parsed and limit and parsed[1] and isinstance(parsed[1][0], int) and parsed[1][0] >= limit:
                return (
                    "beyond_max_rows",
                    f"{call['tool']} reads row {parsed[1][0]} of a list; lists return {limit}",
                )
    try:
        nothing = score_trajectory(task, env, [], "")
    except ValueError as exc:
        return "gold_fails", f"the task cannot be scored: {exc}"
    if nothing["passed"]:
        return (
            "initial_passes",
            "no calls and an empty answer already pass: the initial state meets the gold check",
        )
    facts = "; ".join(str(f) for f in task.get("answer_facts") or [])
    try:
        replayed = score_trajectory(task, env, gold, facts, precision=False)
    except ValueError as exc:
        return "gold_fails", str(exc)
    broken = [k for k in ("state", "required", "forbidden") if replayed[k] is False]
    if broken or replayed["errors"]:
        why = ", ".join(broken) or f"{replayed['errors']} gold call(s) refused"
        return "gold_fails", f"the gold calls replayed on the initial state fail: {why}"
    revealing = [n for n in kept if reveals_gold(by_name[n])]
    if revealing:
        return "reveals_gold", f"offered tools would reveal the gold: {', '.join(revealing)}"
    ending = [n for n in kept if ends_dialogue(by_name[n])]
    if ending:
        return "agent_can_end", f"offered tools end the dialogue on the agent's side: {', '.join(ending)}"
    return None
