"""The environments TRL's `GRPOTrainer(environment_factory=...)` drives: one generated class per offered tool set.

`environment_class(spec, tools, tasks, ...)` makes a class whose public methods are the offered tools (real
signatures and docstrings from their JSON Schemas, `envscale.env.adapters.tool_signature`, so TRL renders the
schemas the tasks were made with) plus, when the user is in the loop, `send_message_to_user`. An instance is
cheap to make (TRL probes one per class when the trainer starts): its `Environment` is built on the first
`reset`. Then, per rollout:

- `reset(task_id=..., **row)` puts the database in the task's initial state by restoring a snapshot (made once
  per class and (seed, session) pair, never regenerated) and starts the episode's transcript with the task's
  system prompt and first user message (what the dataset row's `prompt` holds);
- each tool method runs `Environment.step` and records the call and its observation in the transcript, in the
  format `envscale rollout` writes, so the reward is the filter's own judgement (`envscale.rl.reward`);
- `send_message_to_user(message)` asks the simulated user (`envscale.rollout`'s scripted user, or a model
  behind an endpoint) and returns the user's reply as the tool's result. The reply is checked as
  `envscale rollout` checks it (`check_user_reply`: empty, a premature stop) and for a leak (the user states a
  fact the agent was to find); a spoiled reply marks the rollout `spoiled` with the reason, and the trainer masks
  its group from the advantage (`envscale.rl.trainer`).

The instance keeps `transcript`, `calls`, `task`, `spoiled` and `user_ended` for the reward functions, which
TRL hands the instances (`environments=`).
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
from typing import Any

from ..env import Environment
from ..env.adapters import tool_signature
from ..judge import answer_matches, reset_env
from ..rollout.episode import agent_system_prompt, tool_content
from ..rollout.user import check_user_reply
from ..schemas import STOP

#: The method through which the agent talks to the simulated user.
USER_TOOL = "send_message_to_user"

#: Method names a tool may not take (TRL's own members, and ours).
RESERVED = frozenset({"reset", "get_reward", USER_TOOL})

_USER_DOC = (
    "Send a message to the user you are helping and wait for their reply: ask for a value you need and "
    "cannot look up, confirm before a change, tell them the outcome, or ask whether they need anything else.\n\n"
    "Args:\n    message: What you say to the user.\n\nReturns:\n    The user's reply."
)


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def first_messages(spec: dict, task: dict, *, user: bool = True) -> list[dict]:
    """The conversation an episode of `task` opens with: the agent's system prompt (the environment's policy
    in it) and the user's first message, as `envscale rollout` opens it (`user=False`: no user to ask)."""
    policy = _json(task.get("policy")) or {}
    return [
        {"role": "system", "content": agent_system_prompt(spec, policy.get("text"), user=user)},
        {"role": "user", "content": task.get("first_message") or ""},
    ]


class _Snapshots:
    """Initial-state images of one spec, per (seed, session key): built once, restored at every reset."""

    def __init__(self) -> None:
        self.images: dict[tuple, bytes] = {}
        self.lock = threading.Lock()

    def restore(self, env: Environment, seed: Any, session_key: Any) -> None:
        key = (seed, json.dumps(session_key, default=str))
        image = self.images.get(key)
        if image is None:
            reset_env(env, seed, session_key)
            with self.lock:
                self.images.setdefault(key, env.snapshot())
        else:
            env.restore(image)


def _tool_method(tool: dict):
    name = tool["name"]
    method_name, signature, annotations, doc, renamed = tool_signature(tool, RESERVED)

    def call(
        self, **arguments: Any
    ) -> str:  # parameters named for Python (`x_trace_id`) go back to the tool's names
        return self._call(name, {renamed.get(k, k): v for k, v in arguments.items()})

    call.__name__ = call.__qualname__ = method_name
    call.__signature__ = signature
    call.__annotations__ = annotations
    call.__doc__ = doc
    return call


async def send_message_to_user(self, message: str) -> str:  # the docstring is set below (TRL reads it)
    return await self._ask_user(message)


send_message_to_user.__doc__ = _USER_DOC


def environment_class(
    spec: dict,
    tools: list[str],
    tasks: dict[str, dict],
    *,
    user: Any = None,
    user_style: str = "plain",
    class_name: str | None = None,
    max_rows: int = 100,
) -> type:
    """A class for TRL's `environment_factory` over `spec`, offering `tools` (see the module docstring).

    Args:
        spec (`dict`): The environment spec (an `environments` row's `spec`).
        tools (`list[str]`): The tools it offers, in order (a task's `tools`). Arguments whose names are not
            Python identifiers are offered under identifiers (`envscale.env.adapters.python_names`) and passed to
            the environment under their own names.
        tasks (`dict`): Task rows by `task_id`: the tasks a `reset(task_id=...)` may name (shared, read-only).
        user (*optional*): The simulated user's backend (`envscale.rollout.factory.make_backend(..., "user")`);
            `None` offers no `send_message_to_user`.
        user_style (`str`, *optional*): The user's style for a model user (`envscale.rollout.user.STYLES`).
        class_name (`str`, *optional*): The class's name (TRL logs a reward under it when a class has
            `get_reward`; these have none, the reward functions are `envscale.rl.reward`'s).
        max_rows (`int`, *optional*): Rows a list returns at most (`Environment(max_rows=)`).
    """
    by_name = {t["name"]: t for t in spec["tools"]}
    missing = [n for n in tools if n not in by_name]
    if missing:
        raise ValueError(f"environment {spec['name']!r} has no tool {', '.join(missing)}")
    snapshots = _Snapshots()

    def __init__(self) -> None:
        self.env: Environment | None = (
            None  # built on the first reset: TRL makes one instance per class to probe
        )
        self.task: dict | None = None
        self.transcript: list[dict] = []
        self.calls: list[dict] = []
        self.spoiled: str | None = None
        self.user_ended = False
        self._speaker = None
        self._writes = frozenset(t["name"] for t in spec["tools"] if t.get("kind") == "write")

    def reset(self, **row: Any) -> str | None:
        """Restore the task's initial state (a snapshot) and start its transcript; the prompt is the row's."""
        task_id = row.get("task_id")
        if task_id not in tasks:
            raise KeyError(f"reset: task {task_id!r} is not among the tasks of environment {spec['name']!r}")
        if self.env is None:
            self.env = Environment(spec, max_rows=max_rows)
        self.task = tasks[task_id]
        snapshots.restore(self.env, self.task.get("seed"), self.task.get("session_key"))
        self.transcript = first_messages(spec, self.task, user=user is not None)
        self.calls, self.spoiled, self.user_ended = [], None, False
        self._speaker = None
        if user is not None:
            seed = random.Random(f"{task_id}:{row.get('seed_offset', 0)}").randrange(2**31)
            from ..rollout.user import user_speaker

            self._speaker = user_speaker(user, self.task, seed, user_style)
        return None

    def _call(self, name: str, arguments: dict) -> str:
        if self.env is None or self.task is None:
            raise RuntimeError("call reset(task_id=...) before a tool")
        observation = self.env.step(name, arguments)
        content = tool_content(observation)
        call_id = f"call_{len(self.calls)}"
        self.calls.append(
            {
                "tool": name,
                "arguments": arguments,
                "ok": bool(observation.get("ok")),
                "error": None if observation.get("ok") else observation.get("error"),
                "code": None if observation.get("ok") else observation.get("code"),
            }
        )
        self.transcript.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
                ],
            }
        )
        self.transcript.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": content})
        return content

    async def _ask_user(self, message: str) -> str:
        if self.task is None:
            raise RuntimeError("call reset(task_id=...) before send_message_to_user")
        if self._speaker is None:
            return "(no user is listening)"
        if self.user_ended:
            return "(the user has left the conversation)"
        self.transcript.append({"role": "assistant", "content": str(message)})
        turns = sum(m["role"] == "user" for m in self.transcript)
        reply = await self._speaker.complete(self.transcript, None)
        content = reply.content or ""
        requests = _json(self.task.get("requests")) or []
        writes_done = sum(1 for c in self.calls if c["ok"] and c["tool"] in self._writes)
        gold = _json(self.task.get("gold_calls")) or []
        why = check_user_reply(
            content,
            agent_asked=str(message).rstrip().endswith("?"),
            writes_needed=any(c.get("tool") in self._writes for c in gold),
            writes_done=writes_done,
            requests=max(len(requests), 1),
            message=turns + 1,
        ) or leaked(content, self.task, self.transcript)
        self.transcript.append({"role": "user", "content": content})
        if why and self.spoiled is None:
            self.spoiled = why
        if STOP in content:
            self.user_ended = True
            content = content.replace(STOP, "").strip()
        return content

    members: dict[str, Any] = {
        "__init__": __init__,
        "reset": reset,
        "_call": _call,
        "_ask_user": _ask_user,
        "__doc__": f"envscale environment {spec['name']!r} offering {len(tools)} tools, for TRL environment_factory.",
        "environment_name": spec["name"],
        "offered_tools": tuple(tools),
        "spec": spec,
        "tasks_by_id": tasks,
    }
    for name in tools:
        method = _tool_method(by_name[name])
        members[method.__name__] = method
    if user is not None:
        members[USER_TOOL] = send_message_to_user
    return type(class_name or _class_name(spec["name"]), (), members)


def _class_name(name: str) -> str:
    return "".join(part.capitalize() for part in str(name).replace("-", "_").split("_") if part) + "Env"


def leaked(reply: str, task: dict, transcript: list[dict]) -> str | None:
    """`user_leak: ...` when the user's reply states an answer fact of the task that no tool result of the
    episode has shown yet (the agent was to find it), else None."""
    facts = [f for f in task.get("answer_facts") or [] if str(f).strip()]
    known = "\n".join(str(m.get("content") or "") for m in transcript if m["role"] in ("tool", "user"))
    for fact in facts:
        if answer_matches([fact], reply) and not answer_matches([fact], known):
            return f"user_leak: the user stated {fact!r}, a fact the agent was to find"
    return None


def run_sync(coroutine: Any) -> Any:
    """Run a coroutine from synchronous code (tests, the bench): a tool method of these classes may be async."""
    return asyncio.run(coroutine)
