"""The LLM rewrite of a user's instructions, and the check that keeps it honest.

`rewrite_instructions` asks an LLM (the existing `envscale.llm.LLMClient`) to make the goal and the
first message sound more like a person, with implicit references where the draft shows they hold, and
keeps the rewrite only when `check_rewrite` finds every needed fact still there, no withheld fact
leaked, the action still asked for and no tool or column name.

Example:

```python
>>> from envscale.tasks.rewrite import check_rewrite
>>> # with an endpoint: `ins, reason = await rewrite_instructions(ins, draft, client, "Qwen/Qwen3-8B")`
```
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..words.semantics import tool_meaning
from ..words.verbs import ACTION_SYNONYMS
from .model import GoldCall, Instructions, TaskDraft
from .wording import (
    COLUMN_NAME,
    DATE_COLUMNS,
    format_value,
    join,
    mentions,
    norm,
    participle,
    same_value,
    tool_names_in,
    unwrap,
)

if TYPE_CHECKING:
    from ..llm import LLMClient

__all__ = ["REWRITE_PROMPT", "check_rewrite", "rewrite_instructions", "rewrite_prompt"]

REWRITE_PROMPT = """\
You rewrite the opening message of a person who asks an assistant for help, so that it reads like a real \
person wrote it: natural, {style_hint}, first person, no lists or labels. Also rewrite their goal (one \
first-person sentence) in the same voice.

Who they are: {persona}
Their goal: {goal}
Their current opening message: {first_message}

Rules:
- Keep these values in the opening message, written exactly as here: {required}.
- Never mention these values in the opening message (the person gives them only when asked): {hidden}.
- Keep the requested action ({actions}); do not add requests.
- Never use these names: {tools}. Never write database field names such as order_id.
- Where the message already describes something instead of naming it ("my most recent order"), keep the \
description.{implicit}

Answer with one JSON object and nothing else: {{"goal": "...", "first_message": "..."}}"""

_STYLE_HINTS = {
    "plain": "polite and clear",
    "terse": "short and to the point, without pleasantries",
    "vague": "a little hesitant and loosely worded, but still complete",
}


def _required_facts(original: Instructions) -> dict[str, Any]:
    """Known facts the original first message states: the rewrite must state them too."""
    return {n: v for n, v in original.known_facts.items() if mentions(original.first_message, v)}


def _actions(draft: TaskDraft) -> list[tuple[str, list[str]]]:
    """(verb, words that count as asking for it) per write the user requests."""
    asked = [c for c in draft.calls if c.write]
    if draft.kind == "policy":
        forbidden = set(draft.forbidden) | (
            {draft.policy_rule["tool"]} if (draft.policy_rule or {}).get("tool") else set()
        )
        asked = [c for c in draft.calls if c.tool in forbidden] or [
            GoldCall(t, {}, {}) for t in sorted(forbidden)
        ]
    out = []
    for call in asked:
        meaning = tool_meaning(call.tool)
        verb = meaning.verb or ""
        group = "update" if meaning.effect == "status" else meaning.effect
        words = [verb, participle(verb), *meaning.status_value] if verb else []
        words += ACTION_SYNONYMS.get(group, [])
        if meaning.effect == "status":
            words += ACTION_SYNONYMS["delete"] if verb in ("cancel", "close", "archive", "void") else []
        out.append((verb or group, sorted({w for w in words if w})))
    return out


def _says_any(text: str, words: list[str]) -> bool:
    low = norm(text)
    return any(re.search(rf"\b{re.escape(w)}", low) for w in words)


def _implicit_allowed(draft: TaskDraft, original: Instructions) -> dict[str, tuple[list[str], list[Any]]]:
    """Known facts a rewrite may describe instead of state, and how: a user-given key that an earlier gold
    call also returned as the strictly newest (or oldest) of its rows can be "my most recent ..." as long as
    the values that call was asked with stay in the message. -> {fact: (accepted words, values to keep)}."""
    allowed: dict[str, tuple[list[str], list[Any]]] = {}
    for j, call in enumerate(draft.calls):
        for arg, value in call.arguments.items():
            if call.provenance.get(arg, "user") != "user":
                continue
            name = next((n for n, v in original.known_facts.items() if same_value(v, value)), None)
            if name is None or name in allowed:
                continue
            for earlier in draft.calls[:j]:
                rows = unwrap(earlier.result)
                if not isinstance(rows, list) or len(rows) < 2 or not all(isinstance(r, dict) for r in rows):
                    continue
                hit = [
                    r
                    for r in rows
                    if any(same_value(v, value) for k, v in r.items() if k == arg or k.endswith("id"))
                ]
                if len(hit) != 1:
                    continue
                for column in hit[0]:
                    values = [r.get(column) for r in rows]
                    mine = hit[0].get(column)
                    if not (
                        DATE_COLUMNS.search(column) and isinstance(mine, str) and values.count(mine) == 1
                    ):
                        continue
                    if not all(isinstance(v, str) for v in values):
                        continue
                    keep = [
                        v for a, v in earlier.arguments.items() if earlier.provenance.get(a, "user") == "user"
                    ]
                    if mine == max(values):
                        allowed[name] = (["most recent", "latest", "last", "newest"], keep)
                    elif mine == min(values):
                        allowed[name] = (["oldest", "earliest", "first"], keep)
                    break
    return allowed


def check_rewrite(rewritten: Instructions, original: Instructions, draft: TaskDraft) -> str | None:
    """Why a rewrite of `original` cannot replace it, or `None` when it keeps what the task needs.

    The rewritten first message must state every known fact the original one stated (or, for a key the
    draft shows to be the newest or oldest of an earlier lookup, describe it so and keep that lookup's
    values), state no hidden fact, still ask for every requested write, and name no tool of the draft and
    no `*_id` column; the rewritten goal must keep every fact value the original goal had.
    """
    goal, message = (rewritten.goal or "").strip(), (rewritten.first_message or "").strip()
    if not goal or not message:
        return "rewrite is empty"
    if len(message) > 2000 or len(goal) > 2000:
        return "rewrite is too long"
    implicit = _implicit_allowed(draft, original)
    for name, value in _required_facts(original).items():
        if mentions(message, value):
            continue
        words, keep = implicit.get(name, ([], []))
        if words and _says_any(message, words) and all(mentions(message, v) for v in keep):
            continue
        return f"rewrite dropped fact {name!r}"
    for name, value in {**original.known_facts, **original.hidden_facts}.items():
        if mentions(original.goal, value) and not mentions(goal, value):
            return f"rewrite dropped fact {name!r} from the goal"
    for name, value in original.hidden_facts.items():
        if not isinstance(value, bool) and value is not None and mentions(message, value):
            return f"rewrite leaks hidden fact {name!r}"
    for verb, words in _actions(draft):
        if _says_any(original.first_message, words) and not _says_any(message, words):
            return f"rewrite dropped the action {verb!r}"
    names = (
        {c.tool for c in draft.calls} | set(draft.forbidden) | set(draft.required) | set(draft.distractors)
    )
    if (draft.policy_rule or {}).get("tool"):
        names.add(draft.policy_rule["tool"])
    for text in (message, goal):
        leaked = tool_names_in(text, names)
        if leaked:
            return f"rewrite names tool {leaked[0]!r}"
        column = COLUMN_NAME.search(text)
        if column and not COLUMN_NAME.search(original.first_message + " " + original.goal):
            return f"rewrite names a column {column.group(0)!r}"
    return None


def _parse_rewrite(content: str | None) -> dict[str, str] | str:
    text = (content or "").strip()
    text = re.sub(r"^```(?:json)?\s*|\s*```$", "", text)
    start, end = text.find("{"), text.rfind("}")
    try:
        data = json.loads(text[start : end + 1]) if start >= 0 < end else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in ("goal", "first_message")):
        return "rewrite is not a JSON object with 'goal' and 'first_message'"
    return {"goal": data["goal"].strip(), "first_message": data["first_message"].strip()}


def rewrite_prompt(instructions: Instructions, draft: TaskDraft) -> str:
    """The prompt `rewrite_instructions` sends (one user message)."""
    required = _required_facts(instructions)
    names = sorted({c.tool for c in draft.calls} | set(draft.forbidden) | set(draft.distractors))
    implicit = _implicit_allowed(draft, instructions)
    hint = ""
    if implicit:
        hint = (
            " You may replace "
            + join(
                [
                    f"{format_value(instructions.known_facts[n])} by a reference such as '{words[0]}'"
                    for n, (words, _) in implicit.items()
                ]
            )
            + " (it is the "
            + join([words[0] for words, _ in implicit.values()])
            + " one)."
        )
    return REWRITE_PROMPT.format(
        style_hint=_STYLE_HINTS.get(instructions.style, "natural"),
        persona=instructions.persona,
        goal=instructions.goal,
        first_message=instructions.first_message,
        required=", ".join(f"{n}: {format_value(v)}" for n, v in required.items()) or "(none)",
        hidden=", ".join(f"{n}: {format_value(v)}" for n, v in instructions.hidden_facts.items()) or "(none)",
        actions=join([verb for verb, _ in _actions(draft)]) or "the request",
        tools=", ".join(names) or "(none)",
        implicit=hint,
    )


async def rewrite_instructions(
    instructions: Instructions, draft: TaskDraft, client: LLMClient, model: str
) -> tuple[Instructions, str | None]:
    """Rewrite `goal` and `first_message` with an LLM toward what a person would write, and keep the rewrite
    only if `check_rewrite` accepts it.

    Args:
        instructions (`Instructions`): The offline instructions (`write_instructions`).
        draft (`TaskDraft`): Their task.
        client (`LLMClient`): An open client of an OpenAI-compatible endpoint.
        model (`str`): The served model id.

    Returns:
        `(rewritten, None)` when the rewrite keeps every fact the task needs, else `(instructions, reason)`,
        e.g. `"rewrite dropped fact 'order number'"`, `"rewrite leaks hidden fact 'order number'"`, or
        `"rewrite failed: ..."` when the request itself failed.
    """
    from ..llm import LLMError

    messages = [{"role": "user", "content": rewrite_prompt(instructions, draft)}]
    try:
        result = await client.chat(messages, model=model)
    except LLMError as exc:
        return instructions, f"rewrite failed: {exc}"
    parsed = _parse_rewrite(result.content)
    if isinstance(parsed, str):
        return instructions, parsed
    candidate = replace(instructions, goal=parsed["goal"], first_message=parsed["first_message"])
    problem = check_rewrite(candidate, instructions, draft)
    return (instructions, problem) if problem else (candidate, None)
