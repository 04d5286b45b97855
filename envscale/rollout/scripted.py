"""Offline speakers: a user who reveals the task's facts from its instructions, and an agent who plays
the gold chain with configurable noise, so that filtering has real work to do.

**Scripted user.** Opens with the task's first message (the episode sends it). When the agent asks a
question, the user reveals the held-back facts the question names (all of them when it names none)
and otherwise says to go ahead; when the agent answers without a question, the user thanks it and
ends with the stop marker. It never stops before the agent has answered. In a conversation (a task with
several `requests`) it brings up the next request each time the agent answers without a question, and
stops after the last.

**Scripted agent.** Asks for the held-back facts first (`missing_info` tasks), then makes the gold
calls in order, independent consecutive calls in one turn (parallel tool calls); in a conversation only
the current request's gold calls, then that request's closing message, and the next request's calls once
the user has brought it up. Arguments that the
gold chain takes from an earlier result (`call[i].FIELD`) are read from *this* episode's results, so
a mistake upstream propagates. After the calls it answers from this episode's results
(`envscale.rollout.closing`, a few phrasings chosen by the episode's seed): what each write did to
which row with the values the tool returned (or what the environment answered when it refused); the
task's answer facts with the fields that hold them when its results match the gold results, else what
its last result says; a `policy` task ends with a refusal citing the rule (`policy.task_rule.text`).
Its clarifying question names the held-back facts. Noise
(`BackendConfig.noise`, probability per gold call, drawn from the episode's seed):

- `wrong_argument`: one argument changed (not recovered);
- `missing_argument`: a required argument left out; the environment refuses, and the agent retries
  the call correctly (a recovered error, kept in the trajectory);
- `extra_call`: a read call made twice (harmless for the state, not an exact match);
- `wrong_tool`: another offered tool called instead (not recovered);
- `give_up`: the agent stops and apologises.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
from typing import Any

from ..judge import provenance_call, read_calls, resolve_provenance
from ..llm import ChatResult, ToolCall
from ..schemas import STOP
from .backends import NOISE, Backend, Speaker
from .closing import (
    describe_write,
    facts_clause,
    facts_sentence,
    failure_sentence,
    question,
    refusal,
    write_sentence,
)


class _Stuck(Exception):
    """A gold call needs a result this episode did not get (an upstream mistake)."""


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _result(text: Any) -> tuple[bool, Any]:
    """(ok, result) of a tool message's content (see `envscale.rollout.episode.tool_content`)."""
    try:
        value = json.loads(text) if isinstance(text, str) else text
    except (TypeError, ValueError):
        return True, text
    if isinstance(value, dict) and set(value) == {"error", "code"}:
        return False, value
    return True, value


def _words(name: str) -> str:
    return re.sub(r"[_\s]+", " ", name).strip()


def _say(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _chat(content: str | None = None, calls: list[ToolCall] | None = None) -> ChatResult:
    return ChatResult(content, calls or [], "tool_calls" if calls else "stop", None, 0.0)


def requests_of(task: dict) -> list[dict]:
    """A task's requests in order, each `{"message", "calls": [start, end], "answer_facts"}`: a conversation's
    (`requests` column), or the one request of any other task (a tasks artifact before schema 1.2 included)."""
    requests = _json(task.get("requests")) or []
    if requests:
        return [dict(r) for r in requests]
    return [
        {
            "message": task.get("first_message") or "",
            "calls": [0, len(_json(task.get("gold_calls")) or [])],
            "answer_facts": list(task.get("answer_facts") or []),
        }
    ]


class ScriptedUser:
    """One episode's scripted user (see the module docstring)."""

    def __init__(self, task: dict, rng: random.Random):
        self.instructions = _json(task.get("instructions")) or {}
        self.hidden = dict(self.instructions.get("hidden_facts") or {})
        self.revealed: list[str] = []
        self.requests = [r["message"] for r in requests_of(task)]
        self.request = 0  # the request being worked on (the first is the episode's first message)

    async def complete(self, messages: list[dict], tools: list[dict] | None = None) -> ChatResult:
        # The conversation as the episode keeps it: the agent's last message to the user.
        last = next(
            (
                m.get("content") or ""
                for m in reversed(messages)
                if m["role"] == "assistant" and not m.get("tool_calls")
            ),
            "",
        )
        if "?" in last:
            pending = {k: v for k, v in self.hidden.items() if k not in self.revealed}
            asked = {k: v for k, v in pending.items() if _words(k).lower() in last.lower()} or pending
            if asked:
                self.revealed += list(asked)
                facts = "; ".join(f"my {_words(k)} is {_say(v)}" for k, v in asked.items())
                return _chat(f"Sure: {facts}.")
            return _chat("Yes, please go ahead.")
        if self.request + 1 < len(self.requests):  # the agent has finished one: the next request
            self.request += 1
            return _chat(self.requests[self.request])
        return _chat(f"Thanks, that's all I needed. {STOP}")


class ScriptedAgent:
    """One episode's scripted agent (see the module docstring)."""

    def __init__(self, task: dict, rng: random.Random, noise: dict[str, float]):
        self.task = task
        self.rng = rng
        self.noise = {k: float(noise.get(k, 0.0)) for k in NOISE}
        self.gold = _json(task.get("gold_calls")) or []
        self.gold_results = _json(task.get("gold_results")) or []
        ins = _json(task.get("instructions")) or {}
        self.hidden = dict(ins.get("hidden_facts") or {})
        self.asked = not self.hidden
        # set by the rollout from the environment; unknown: no extra calls (one might be a write)
        self.write_tools = set(task["write_tools"]) if "write_tools" in task else None
        self.requests = requests_of(task)
        self.request = 0  # the request being worked on: its gold calls are requests[request]["calls"]
        self.next = 0  # the next gold call not yet made
        self.results: dict[int, Any] = {}  # this episode's result of each gold call made (None: refused)
        self.errors: dict[int, Any] = {}  # the error observation of a gold call the environment refused
        self.made: dict[int, dict] = {}  # the arguments each gold call was last made with
        self.closing: str | None = None  # the closing message, composed once
        self.pending: list[
            tuple[str, int | None, bool]
        ] = []  # (call id, gold index or None, broken on purpose)
        self.retry: list[int] = []  # gold calls to make again after a deliberately broken attempt
        self.done = False
        self.counter = 0

    # ------------------------------------------------------------------ reading what came back

    def _collect(self, messages: list[dict]) -> None:
        if not self.pending:
            return
        by_id = {m.get("tool_call_id"): m.get("content") for m in messages if m.get("role") == "tool"}
        for call_id, index, broken in self.pending:
            if index is None:
                continue
            ok, value = _result(by_id.get(call_id))
            if ok:
                self.results[index] = value
                self.errors.pop(index, None)
            elif broken:
                self.retry.append(index)
            else:
                self.results.setdefault(index, None)
                self.errors[index] = value
        self.pending = []

    def _so_far(self) -> list[Any]:
        return [self.results.get(i) for i in range(len(self.gold))]

    # ------------------------------------------------------------------ making calls

    def _id(self) -> str:
        self.counter += 1
        return f"call_{self.counter}"

    def _arguments(self, index: int) -> dict:
        call = self.gold[index]
        args = dict(call.get("arguments") or {})
        results = self._so_far()
        for name, source in (call.get("provenance") or {}).items():
            reads = provenance_call(source)
            if reads is not None:
                if results[reads] is None:
                    raise _Stuck(f"no result to take {name} from ({source})")
                # when this episode's result lacks it, the gold value stays
                with contextlib.suppress(LookupError, TypeError, ValueError):
                    args[name] = resolve_provenance(source, results)
        return args

    def _draw(self, mistake: str) -> bool:
        p = self.noise[mistake]
        return p > 0 and self.rng.random() < p

    def _independent(self, start: int) -> list[int]:
        """Gold calls from `start` on that use no result of a call at or after `start`."""
        group = [start]
        for j in range(start + 1, self._end()):
            if any(i >= start for i in read_calls(self.gold[j].get("provenance"))):
                break
            group.append(j)
        return group

    def _mutate(self, args: dict) -> dict:
        if not args:
            return args
        name = self.rng.choice(sorted(args))
        value = args[name]
        if isinstance(value, bool):
            new: Any = not value
        elif isinstance(value, int | float):
            new = value + 1
        elif isinstance(value, str):
            new = value + "x" if value else "x"
        else:
            new = None
        return {**args, name: new}

    def _call(self, tool: str, args: dict) -> ToolCall:
        return ToolCall(self._id(), tool, args, json.dumps(args, ensure_ascii=False, default=str))

    def _calls_for(self, index: int, retrying: bool) -> list[tuple[ToolCall, int | None, bool]]:
        tool, args = self.gold[index]["tool"], self._arguments(index)
        if not retrying and args and self._draw("missing_argument"):
            name = self.rng.choice(sorted(args))
            return [(self._call(tool, {k: v for k, v in args.items() if k != name}), index, True)]
        target: int | None = index
        if self._draw("wrong_tool"):
            offered = [t for t in self.task.get("tools") or [] if t != tool]
            if offered:
                tool, target = self.rng.choice(offered), None  # not the gold call: the chain is off
        elif self._draw("wrong_argument"):
            args = self._mutate(args)
        if target is not None:
            self.made[index] = args
        out = [(self._call(tool, args), target, False)]
        harmless = self.write_tools is not None and tool not in self.write_tools
        if target is not None and harmless and self._draw("extra_call"):
            out.append((self._call(tool, args), None, False))
        return out

    # ------------------------------------------------------------------ answering

    def _answer(self) -> str:
        if self.closing is None:
            self.closing = self._compose()
        return self.closing

    def _is_write(self, tool: str) -> bool:
        if self.write_tools is not None:
            return tool in self.write_tools
        return bool(_json(self.task.get("gold_diff"))) and tool == self.gold[-1]["tool"]

    def _end(self) -> int:
        """The end of the current request's gold calls (of all of them for a task of one request)."""
        return min(int(self.requests[self.request]["calls"][1]), len(self.gold))

    def _compose(self) -> str:
        """The closing message of the current request, from this episode's results of its gold calls (see
        `envscale.rollout.closing`)."""
        kind = self.task.get("kind")
        lo, hi = int(self.requests[self.request]["calls"][0]), self._end()
        facts = list(self.requests[self.request].get("answer_facts") or [])
        got = self._so_far()[lo:hi]
        on_track = all(i in self.results for i in range(lo, hi)) and all(
            json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)
            for a, b in zip(got, self.gold_results[lo:hi], strict=False)
        )
        seen = json.dumps(got, ensure_ascii=False, default=str)
        facts_hold = bool(facts) and (on_track or all(str(f) in seen for f in facts))
        if kind == "policy":
            policy = _json(self.task.get("policy")) or {}
            goal = str((_json(self.task.get("instructions")) or {}).get("goal") or "")
            said = facts_clause(facts, got) if facts_hold else None
            return refusal(policy.get("task_rule"), goal, said, self.rng)
        parts: list[str] = []
        diff = _json(self.task.get("gold_diff")) or {}
        for i, call in enumerate(self.gold[lo:hi], start=lo):
            if not self._is_write(call["tool"]):
                continue
            if i in self.errors:
                parts.append(failure_sentence(call["tool"], self.errors[i], self.rng))
            elif i in self.results:
                write = describe_write(call["tool"], self.made.get(i, {}), self.results[i], diff)
                parts.append(write_sentence(write, self.rng))
        if facts_hold:
            parts.append(facts_sentence(facts, got, self.rng))
        elif facts or not parts:
            last = next((r for r in reversed(got) if r is not None), None)
            parts.append("Here is what the system answered: " + _say(last)[:300])
        return " ".join(parts)

    async def complete(self, messages: list[dict], tools: list[dict] | None = None) -> ChatResult:
        self._collect(messages)
        if self.done and self.request + 1 < len(self.requests) and messages[-1].get("role") == "user":
            # the user brought up the next request: its gold calls, then its own closing message
            self.request += 1
            self.done, self.closing = False, None
            self.next = max(self.next, int(self.requests[self.request]["calls"][0]))
        if self.done:
            return _chat(self._answer())
        if not self.asked:
            self.asked = True
            return _chat(question([_words(k) for k in self.hidden], self.rng))
        if self.next >= self._end() and not self.retry:
            self.done = True
            return _chat(self._answer())
        if self._draw("give_up"):
            self.done = True
            return _chat("I'm sorry, I'm not able to complete this request.")
        if self.retry:
            indices, retrying, self.retry = list(self.retry), True, []
        else:
            indices, retrying = self._independent(self.next), False
            self.next = max(indices) + 1
        calls: list[tuple[ToolCall, int | None, bool]] = []
        try:
            for i in indices:
                calls += self._calls_for(i, retrying)
        except _Stuck:
            if not calls:
                self.done = True
                return _chat("I'm sorry, I couldn't find what I needed to complete this request.")
        self.pending = [(c.id, index, broken) for c, index, broken in calls]
        return _chat(None, [c for c, _, _ in calls])


class ScriptedUserBackend(Backend):
    """The scripted user for every episode of a run."""

    def speaker(self, task: dict, seed: int) -> Speaker:
        return ScriptedUser(task, random.Random(seed))


class ScriptedAgentBackend(Backend):
    """The scripted agent for every episode of a run; its noise comes from `config.noise`."""

    def speaker(self, task: dict, seed: int) -> Speaker:
        return ScriptedAgent(task, random.Random(seed), self.config.noise)
