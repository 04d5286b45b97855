"""One episode: a simulated user and an agent talk, the agent's tool calls run in a fresh environment.

`run_episode` plays one task once. The agent gets the task's tools (OpenAI format, in the request's
`tools` field) and the environment's policy in its system prompt; the user opens with the task's first
message. An agent turn may make several rounds of tool calls (parallel calls run in order); each call
runs through `Environment.step` in a worker thread, so a slow step never stalls the event loop that
keeps the other episodes' requests in flight. The episode ends when the user's message carries the
stop marker, or at `max_turns` user turns, `max_steps` tool rounds in one agent turn, the wall-clock
`timeout`, or a backend failure; every message, tool call, result and error is kept either way, and
`status`, `failure_cause` (agent or user) and `error` say how it ended.

In a conversation (a task with several `requests`) the user brings up each next request after the agent
has answered the one before; a user who stops before it can have brought them all up is a failure of the
user simulator (`check_user_reply`).

Tool results are given to the agent as JSON text: the result itself on success, `{"error", "code"}`
when the environment refused the call (`tool_content`).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from ..env import Environment
from ..llm import ChatResult, LLMError
from ..schemas import STOP
from .backends import Speaker
from .user import check_user_reply

#: How an episode can end (`status`).
STATUSES = ("completed", "max_turns", "max_steps", "timeout", "agent_error", "user_error")


@dataclass
class EpisodeLimits:
    """When an episode is cut short."""

    max_turns: int = 10  # user messages, the first included
    max_steps: int = 10  # agent completions (tool rounds) in one agent turn
    timeout: float = 300.0  # seconds of wall clock for the whole episode
    max_calls_per_reply: int = 64  # tool calls of one agent reply that run; the rest get an error observation


#: Per environment spec (by identity; the spec is held so that its id stays its own), what episodes derive
#: from it again and again: the offered tool lists and the write tools. Least recently used dropped first.
_PER_SPEC_SIZE = 1024
_per_spec: OrderedDict[tuple, tuple[dict, Any]] = OrderedDict()
_per_spec_lock = threading.Lock()


def _cached(spec: dict, key: tuple, make: Any) -> Any:
    full = (id(spec), *key)
    with _per_spec_lock:
        hit = _per_spec.get(full)
        if hit is not None and hit[0] is spec:
            _per_spec.move_to_end(full)
            return hit[1]
    value = make()
    with _per_spec_lock:
        _per_spec[full] = (spec, value)
        if len(_per_spec) > _PER_SPEC_SIZE:
            _per_spec.popitem(last=False)
    return value


def write_tool_names(spec: dict) -> frozenset[str]:
    """The environment's write tools."""
    return _cached(
        spec, ("writes",), lambda: frozenset(t["name"] for t in spec["tools"] if t.get("kind") == "write")
    )


def agent_system_prompt(spec: dict, policy_text: str | None, *, user: bool = True) -> str:
    """The agent's system prompt: what it serves, how to work, and the environment's policy. `user=False`: no one
    answers the agent's questions (an exported task played without a user simulator), so it is not told to ask."""
    about = (spec.get("description") or "").strip().rstrip(".")
    generated = re.fullmatch(r"Environment of domain \d+ \((.+)\)", about)  # materialize's default
    if generated or not about:
        about = f"the {generated.group(1) if generated else spec.get('name', 'service')} service"
    lines = [
        f"You are a helpful assistant with tools for {about}.",
        "Help the user with their request. Use the tools to look things up and to make changes; ask "
        "the user for any value you need that you cannot look up, and never invent one. When you are "
        "done, tell the user the outcome, including any values they asked for."
        if user
        else "Help the user with their request. Use the tools to look things up and to make changes; "
        "everything you need is in the request or can be looked up, so never invent a value. When you are "
        "done, tell the user the outcome, including any values they asked for.",
    ]
    if policy_text:
        lines.append(f"Policy (follow it; refuse what it forbids and explain why): {policy_text}")
    return "\n\n".join(lines)


def tool_content(observation: dict) -> str:
    """What the agent reads back from a call: the result's JSON, or `{"error", "code"}`."""
    if observation.get("ok"):
        return json.dumps(observation.get("result"), ensure_ascii=False, default=str)
    return json.dumps(
        {"error": observation.get("error"), "code": observation.get("code")}, ensure_ascii=False
    )


def offered_tools(env: Environment, names: list[str] | None) -> list[dict]:
    """The task's tools in OpenAI format, in the task's order (all of the environment's without a list).

    The same list object for the same environment spec and names (treat it as read-only): the episodes of a
    task share it, so a client that encodes a tool list once (`LLMClient`) does so once for all of them."""

    def make() -> list[dict]:
        tools = {t["function"]["name"]: t for t in env.openai_tools()}
        return list(tools.values()) if not names else [tools[n] for n in names if n in tools]

    return _cached(env.spec, ("offered", tuple(names) if names else None), make)


def _assistant_message(turn: ChatResult) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": turn.content or ""}
    if turn.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    # parsed arguments as an object (what chat templates and TRL expect); unparseable
                    # ones as the text the model wrote, so the format check can see them
                    "arguments": call.arguments if call.error is None else (call.raw_arguments or ""),
                },
            }
            for call in turn.tool_calls
        ]
    return message


def _add_usage(usage: dict, role: str, turn: ChatResult) -> None:
    slot = usage.setdefault(role, {"prompt_tokens": 0, "completion_tokens": 0, "requests": 0})
    slot["requests"] += 1
    for key in ("prompt_tokens", "completion_tokens"):
        value = (turn.usage or {}).get(key)
        if isinstance(value, int):
            slot[key] += value


async def run_episode(
    task: dict,
    env: Environment,
    agent: Speaker,
    user: Speaker,
    *,
    limits: EpisodeLimits | None = None,
    executor: Any = None,
) -> dict[str, Any]:
    """Play one episode of `task` in `env` (already in the task's initial state).

    Returns the trajectory's episode columns: `messages`, `tools`, `calls`, `final_answer`,
    `final_state_hash`, `status`, `failure_cause`, `error`, `turns`, `n_calls`, `n_errors`, `usage`,
    `wall_s`. Never raises for a backend failure or a timeout: they end the episode with their reason.
    """
    limits = limits or EpisodeLimits()
    loop = asyncio.get_running_loop()
    start = time.perf_counter()
    tools = offered_tools(env, task.get("tools"))
    offered = {t["function"]["name"] for t in tools}
    policy = task.get("policy")
    policy = json.loads(policy) if isinstance(policy, str) else policy or {}
    messages: list[dict] = [
        {"role": "system", "content": agent_system_prompt(env.spec, policy.get("text"))},
        {"role": "user", "content": task.get("first_message") or ""},
    ]
    calls: list[dict] = []
    usage: dict[str, dict] = {}
    write_tools = write_tool_names(env.spec)
    writes_needed = any(c.get("tool") in write_tools for c in task.get("gold_calls") or [])
    requests = task.get("requests")
    requests = json.loads(requests) if isinstance(requests, str) else requests or []
    n_requests = len(requests) or 1  # a conversation's requests (one for any other task)
    state = {"status": "completed", "cause": None, "error": None, "turns": 1, "waiting": "agent"}

    def end(status: str, cause: str | None, error: str | None) -> None:
        state.update(status=status, cause=cause, error=error)

    async def play() -> None:
        while True:
            # --- the agent's turn: tool rounds until it writes to the user
            for _ in range(limits.max_steps):
                state["waiting"] = "agent"
                try:
                    turn = await agent.complete(messages, tools)
                except LLMError as exc:
                    return end("agent_error", "agent", str(exc))
                _add_usage(usage, "agent", turn)
                messages.append(_assistant_message(turn))
                if not turn.tool_calls:
                    break
                for index, call in enumerate(turn.tool_calls):
                    arguments = call.arguments if call.error is None else (call.raw_arguments or "")
                    if index >= limits.max_calls_per_reply:  # a reply of 5,000 calls must not run them all
                        obs = {
                            "ok": False,
                            "error": f"not run: more than {limits.max_calls_per_reply} tool calls in one reply",
                            "code": "too_many_calls",
                        }
                    elif call.error is not None:
                        obs = {
                            "ok": False,
                            "error": f"{call.name or '?'}: {call.error}",
                            "code": "invalid_arguments",
                        }
                    elif call.name not in offered:
                        obs = {
                            "ok": False,
                            "error": f"unknown tool {call.name!r}; available: {', '.join(sorted(offered))}",
                            "code": "unknown_tool",
                        }
                    else:
                        obs = await loop.run_in_executor(executor, env.step, call.name, arguments)
                    calls.append(
                        {
                            "tool": call.name,
                            "arguments": arguments,
                            "ok": bool(obs.get("ok")),
                            "error": None if obs.get("ok") else obs.get("error"),
                            "code": None if obs.get("ok") else obs.get("code"),
                            "turn": state["turns"],
                        }
                    )
                    messages.append(
                        {
                            "role": "tool",
                            "tool_call_id": call.id,
                            "name": call.name,
                            "content": tool_content(obs),
                        }
                    )
            else:
                return end("max_steps", "agent", f"the agent made {limits.max_steps} tool rounds in one turn")
            # --- the user's turn
            if state["turns"] >= limits.max_turns:
                return end("max_turns", "agent", f"no end after {limits.max_turns} user turns")
            state["waiting"] = "user"
            agent_said = messages[-1].get("content") or ""
            try:
                reply = await user.complete(messages, None)
            except LLMError as exc:
                return end("user_error", "user", f"user_backend_error: {exc}")
            _add_usage(usage, "user", reply)
            content = reply.content or ""
            writes_done = sum(1 for c in calls if c["ok"] and c["tool"] in write_tools)
            why = check_user_reply(
                content,
                agent_asked=agent_said.rstrip().endswith("?"),
                writes_needed=writes_needed,
                writes_done=writes_done,
                requests=n_requests,
                message=state["turns"] + 1,
            )
            messages.append({"role": "user", "content": content})
            state["turns"] += 1
            if why:
                return end("user_error", "user", why)
            if STOP in content:
                return None

    try:
        async with asyncio.timeout(limits.timeout):
            await play()
    except TimeoutError:
        cause = "user" if state["waiting"] == "user" else "agent"
        end("timeout", cause, f"episode ran past {limits.timeout:g} s (waiting for the {cause})")
    final = next(
        (
            m.get("content") or ""
            for m in reversed(messages)
            if m["role"] == "assistant" and not m.get("tool_calls")
        ),
        "",
    )
    final_hash = await loop.run_in_executor(executor, env.state_hash)
    return {
        "messages": messages,
        "tools": tools,
        "calls": calls,
        "final_answer": final,
        "final_state_hash": final_hash,
        "status": state["status"],
        "failure_cause": state["cause"],
        "error": state["error"],
        "turns": state["turns"],
        "n_calls": len(calls),
        "n_errors": sum(not c["ok"] for c in calls),
        "usage": usage,
        "wall_s": round(time.perf_counter() - start, 4),
    }
