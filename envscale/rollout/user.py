"""The simulated user, when a model plays it (an `endpoint` or `transformers` backend).

Following tau2-bench's lessons, the user model is told who it is, what it wants in its own words, the
facts it may give, the facts it gives only when asked, when it is done, and to end its last message
with the stop marker. It sees the conversation from its side: the agent's messages are its `user`
turns and its own are `assistant` turns; tool calls and results are not shown to it. A style (a share
of episodes, `RolloutConfig.user_styles`) makes it terse, vague, or change its mind once, GAIS-style.
A conversation (a task with several `requests`) lists them in order: the user brings up each next one
after the assistant has finished the one before, and stops only after the last.

The episode checks the user's replies (`check_user_reply`): an empty reply, or a stop while the agent
is still asking and before it has made any write the task needs, is a failure of the user simulator,
counted apart from the agent's.
"""

from __future__ import annotations

import json
from typing import Any

from ..llm import ChatResult
from ..schemas import STOP
from .backends import Backend, Speaker

#: How each style changes the user's behaviour (appended to its instructions).
STYLES = {
    "plain": "",
    "terse": "Write very short messages: a few words, no greetings, no pleasantries.",
    "vague": (
        "Start vague: describe what you want without the exact values; give a value only when the "
        "assistant asks for it."
    ),
    "change_mind": (
        "Once, early on, hesitate and ask about something related but different, then come back to "
        "your real goal. Your final goal does not change."
    ),
}


def _facts(facts: dict[str, Any]) -> str:
    return "\n".join(
        f"- {k}: {json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v}"
        for k, v in facts.items()
    )


def user_system_prompt(
    instructions: dict[str, Any], style: str = "plain", requests: list[str] | None = None
) -> str:
    """The user model's system prompt from a task's `instructions`.

    Args:
        instructions (`dict`): The task's `instructions` (persona, goal, known and hidden facts, done when).
        style (`str`, *optional*, defaults to `"plain"`): One of `STYLES`.
        requests (`list[str]`, *optional*): A conversation's requests in order (the task's `requests`
            messages; the first is the opening message the episode sends): the user brings up each next one
            only after the assistant has finished the one before, and ends only after the last.
    """
    known = instructions.get("known_facts") or {}
    hidden = instructions.get("hidden_facts") or {}
    parts = [
        "You are playing a user who talks to a customer-service assistant. Stay in character: write "
        "only what this user would say, in the first person, one message at a time. Never say that "
        "you are an AI or a simulation, never call tools, and never invent facts you were not given.",
        f"Who you are: {instructions.get('persona') or 'a user of the service'}",
        f"What you want: {instructions.get('goal') or ''}",
    ]
    if known:
        parts.append("Facts you know and may give when they are needed:\n" + _facts(known))
    if hidden:
        parts.append("Facts you give ONLY when the assistant asks for them:\n" + _facts(hidden))
    if requests and len(requests) > 1:
        listed = "\n".join(f"{i}. {message}" for i, message in enumerate(requests, 1))
        parts.append(
            f"You have {len(requests)} requests, to make one at a time, in this order (your first message "
            f"already made request 1):\n{listed}\nWhen the assistant has finished a request, or cannot do "
            "it, bring up the next one in your own words (for example 'Thanks. One more thing: ...'), in a "
            f"message without {STOP}. Never bring up two at once. Only after the last one, thank the assistant."
        )
    parts.append(
        f"You are done {instructions.get('done_when') or 'when the assistant has done what you asked'}. "
        f"Then thank the assistant and end your message with {STOP}. Do not end before that: if the "
        f"assistant has not done it yet, answer its questions or ask it to go on. If the assistant "
        f"cannot help, accept it politely and end with {STOP}."
    )
    if STYLES.get(style):
        parts.append(STYLES[style])
    return "\n\n".join(parts)


def user_view(messages: list[dict], system: str) -> list[dict]:
    """The conversation as the user model sees it: roles swapped, tool traffic left out."""
    view = [{"role": "system", "content": system}]
    for m in messages:
        if m["role"] == "user":
            view.append({"role": "assistant", "content": m.get("content") or ""})
        elif m["role"] == "assistant" and m.get("content") and not m.get("tool_calls"):
            view.append({"role": "user", "content": m["content"]})
    return view


class ModelUser:
    """One episode's user played by a model speaker (endpoint or transformers)."""

    def __init__(self, inner: Speaker, task: dict, style: str):
        instructions = task.get("instructions")
        self.instructions = json.loads(instructions) if isinstance(instructions, str) else instructions or {}
        requests = task.get("requests")
        requests = json.loads(requests) if isinstance(requests, str) else requests or []
        self.system = user_system_prompt(self.instructions, style, [r.get("message") or "" for r in requests])
        self.inner = inner

    async def complete(self, messages: list[dict], tools: list[dict] | None = None) -> ChatResult:
        return await self.inner.complete(user_view(messages, self.system), None)


def user_speaker(backend: Backend, task: dict, seed: int, style: str) -> Speaker:
    """The user of one episode: the scripted one as it is, a model wrapped in the user's prompt."""
    from .scripted import ScriptedUserBackend

    if isinstance(backend, ScriptedUserBackend):
        return backend.speaker(task, seed)
    return ModelUser(backend.speaker(task, seed), task, style)


def check_user_reply(
    content: str | None,
    *,
    agent_asked: bool,
    writes_needed: bool,
    writes_done: int,
    requests: int = 1,
    message: int = 0,
) -> str | None:
    """Why a user reply is a failure of the simulator, or None.

    Empty; or a stop while the agent was still asking (its last message a question) before it made
    any of the writes the task needs; or, in a conversation of `requests` requests, a stop in the user's
    `message`-th message (the opening one is the first) before it can have brought them all up. A stop
    after the agent gave up or refused is the agent's doing.
    """
    if not content or not content.strip():
        return "user_empty: the user simulator sent an empty message"
    if STOP in content and requests > 1 and message <= requests:
        return f"user_premature_stop: the user ended before bringing up all {requests} requests"
    if STOP in content and agent_asked and writes_needed and writes_done == 0:
        return "user_premature_stop: the user ended while the agent was asking, before any change was made"
    return None
