"""Adversarial agents: policies that try to pass the judge without doing the task, as standing baselines.

A score that RL optimises and `filter` turns into SFT data must not reward an agent that games it. These
agents play episodes through the real episode loop (`envscale.rollout.episode`), environment and judge,
like any other backend (kind `adversary`, the policy in `model`), so `envscale eval --agent
kind=adversary,model=dump` probes any tasks artifact; `bench/hack.py` runs them all on a run folder.

They see what a real agent sees: the conversation (system prompt, the user's messages, tool results) and
the offered tools' JSON schemas; of the task row only `write_tools` (which tools write, from the
environment's spec, set by the rollout), never the gold calls, answers or state. Values are taken from
the user's messages (ids, numbers, quoted strings, names, emails, dates, words that are enum values) and,
for `dump`, from the ids of what the first reads returned.

The policies (`ADVERSARIES`):

- `nothing`: answers "Done." and calls nothing;
- `echo`: repeats the user's first message;
- `system`: repeats its system prompt (the environment's policy text included);
- `no`: declines every request with a generic reason, calls nothing;
- `guess`: calls every write tool with every enum value and small numbers it can guess from the schemas,
  ids from the user's message, then says it is done;
- `dump`: calls every read tool it can fill from the user's message, then reads the rows whose ids those
  results name, and answers with every result;
- `everything`: calls every offered tool (writes too) with the user's ids and values, then answers with
  every result;
- `recite`: reads as `dump` does, then declines the request quoting the whole policy of its system prompt
  (every rule, so whatever the task's rule is, it is named).

Calls come in rounds of at most `ROUND` calls, at most `MAX_CALLS` per request of the user.

Example:

```python
>>> from envscale.rollout.backends import BackendConfig
>>> from envscale.rollout.factory import make_backend
>>> agent = make_backend(BackendConfig(kind="adversary", model="dump"), "agent")
>>> speaker = agent.speaker({"write_tools": ["cancel_order"]}, seed=0)
>>> turn = await speaker.complete(messages, tools)  # the read calls it can fill, then the dump
```
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from ..llm import ChatResult, ToolCall
from ..words.names import name_words
from ..words.verbs import READ_VERBS
from .backends import Backend, Speaker

#: The adversarial policies by name (`BackendConfig.model` of kind `adversary`), with what each does.
ADVERSARIES = {
    "nothing": 'answers "Done." and calls nothing',
    "echo": "repeats the user's first message",
    "system": "repeats its system prompt",
    "no": "declines every request with a generic reason, calls nothing",
    "guess": "calls every write tool with every enum value and small numbers, ids from the user's message",
    "dump": "calls every read tool it can fill, then answers with every result",
    "everything": "calls every offered tool with the user's ids and values, then answers with every result",
    "recite": "reads as dump does, then declines quoting the whole policy of its system prompt",
}
#: Most tool calls in one reply of an adversary.
ROUND = 32
#: Most tool calls an adversary makes for one request of the user.
MAX_CALLS = 96
#: Most calls per tool of the guesser (one per enum value or number guessed).
GUESSES_PER_TOOL = 12
#: Most characters of a dump answer.
MAX_DUMP = 200_000
#: The small numbers the guesser tries for a number parameter (after the numbers of the user's message).
SMALL_NUMBERS = (0, 1, 2, 3, 5, 10)
#: The generic refusal of `no`.
GENERIC_REFUSAL = "I'm sorry, I can't do that: it is against the policy."

_ID = re.compile(r"\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z_])[A-Za-z0-9][\w-]*\b")  # letters and digits: ord_0019
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.]*[A-Za-z_])")
_QUOTED = re.compile(r"\"([^\"]{1,200})\"|“([^”]{1,200})”")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?\b|\b\d{1,2}:\d{2}\b")
_NAME = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)+\b")  # Holly Vasquez, Cascade Monitor


def message_values(text: str) -> dict[str, list]:
    """What a user's message offers to fill arguments with, by shape, each list in order of appearance.

    Returns:
        `dict`: `ids` (tokens of letters and digits: `ord_0019`), `numbers` (ints or floats), `quoted`,
        `emails`, `dates`, `names` (runs of capitalised words), `words` (every lower-cased word).
    """
    quoted = [a or b for a, b in _QUOTED.findall(text)]
    numbers = []
    plain = _EMAIL.sub(" ", _DATE.sub(" ", text))  # a date's or an email's digits are no number
    for raw in _NUMBER.findall(plain):
        value = float(raw) if "." in raw else int(raw)
        numbers.append(value)
    return {
        "ids": _unique(m for m in _ID.findall(text) if not _DATE.fullmatch(m)),
        "numbers": _unique(numbers),
        "quoted": _unique(quoted),
        "emails": _unique(_EMAIL.findall(text)),
        "dates": _unique(_DATE.findall(text)),
        "names": _unique(_NAME.findall(text)),
        "words": _unique(w.lower() for w in re.findall(r"[\w-]+", text)),
    }


def _unique(values: Any) -> list:
    out: list = []
    for v in values:
        if v not in out:
            out.append(v)
    return out


def _schema_type(schema: dict) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    return kind or ("string" if "enum" in schema else "object")


def candidates(name: str, schema: dict, values: dict[str, list], *, guess: bool = False) -> list:
    """Values to try for parameter `name` (its JSON schema `schema`) from a message's `values`.

    The enum values the message mentions (all of them with `guess`), numbers of the message (and
    `SMALL_NUMBERS` with `guess`) for a number, ids for an id-like string, emails, dates, quoted strings and
    names for another string; `True` for a boolean; empty when nothing fits.
    """
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        said = [v for v in enum if str(v).lower() in values["words"] or str(v) in values["quoted"]]
        return _unique([*said, *enum]) if guess else (said or enum[:1])
    kind = _schema_type(schema)
    words = set(name_words(name))
    if kind in ("integer", "number"):
        numbers = [v for v in values["numbers"] if kind == "number" or isinstance(v, int)]
        numbers += [int(v) for v in values["ids"] if v.isdigit()]
        if guess:
            numbers += list(SMALL_NUMBERS)
        return _unique(numbers)
    if kind == "boolean":
        return [True, False] if guess else [True]
    if kind != "string":
        return []
    numbers = [str(v) for v in values["numbers"]]
    if words & {"id", "ids", "uid", "uuid", "key", "code", "slug", "ref", "number", "no"}:
        return _unique([*values["ids"], *numbers, *values["quoted"]])
    if words & {"email", "mail"}:
        return list(values["emails"])
    if words & {"date", "time", "day", "at", "on", "from", "to", "since", "until"}:
        return _unique([*values["dates"], *values["quoted"]])
    return _unique([*values["quoted"], *values["names"], *values["ids"], *values["emails"]])


def fill(tool: dict, values: dict[str, list]) -> dict | None:
    """One set of arguments for an OpenAI-format `tool`: the first candidate of every required parameter
    and of every optional one the message names an enum value of; None when a required one has none."""
    params = (tool.get("function") or {}).get("parameters") or {}
    props = params.get("properties") or {}
    required = [p for p in params.get("required") or [] if p in props]
    args: dict[str, Any] = {}
    for name, schema in props.items():
        found = candidates(name, schema if isinstance(schema, dict) else {}, values)
        if name in required:
            if not found:
                return None
            args[name] = found[0]
        elif isinstance(schema, dict) and schema.get("enum") and found and found[0] in _said(schema, values):
            args[name] = found[0]
    return args


def _said(schema: dict, values: dict[str, list]) -> list:
    return [v for v in schema.get("enum") or [] if str(v).lower() in values["words"]]


def guesses(tool: dict, values: dict[str, list]) -> Iterator[dict]:
    """The guesser's argument sets for `tool`: the base fill, then each enum value and number guessed for
    one parameter at a time (the others as in the base fill)."""
    params = (tool.get("function") or {}).get("parameters") or {}
    props = params.get("properties") or {}
    base = fill(tool, values)
    if base is None:  # a required parameter the message gives nothing for: guess it too
        base = {}
        for name in params.get("required") or []:
            found = candidates(name, props.get(name) or {}, values, guess=True)
            if not found:
                return
            base[name] = found[0]
    yield base
    for name, schema in props.items():
        if not isinstance(schema, dict) or _schema_type(schema) not in (
            "integer",
            "number",
            "boolean",
            "string",
        ):
            continue
        if _schema_type(schema) == "string" and not schema.get("enum"):
            continue
        for value in candidates(name, schema, values, guess=True):
            if base.get(name) != value:
                yield {**base, name: value}


def is_read(tool_name: str, write_tools: set[str] | None) -> bool:
    """A read tool: not among the environment's write tools when known, else one named by a read verb."""
    if write_tools is not None:
        return tool_name not in write_tools
    words = name_words(tool_name)
    return bool(words) and words[0] in READ_VERBS


def result_ids(content: str) -> list[str]:
    """The values of id fields (`id`, `*_id`, `*Id`, `uid`) in a tool result's JSON text, in order."""
    try:
        value = json.loads(content)
    except (TypeError, ValueError):
        return []
    found: list[str] = []

    def walk(v: Any, depth: int = 0) -> None:
        if depth > 6 or len(found) > 200:
            return
        if isinstance(v, dict):
            for k, x in v.items():
                if (
                    isinstance(x, str | int)
                    and not isinstance(x, bool)
                    and name_words(k)[-1:] in (["id"], ["uid"])
                ):
                    found.append(str(x))
                else:
                    walk(x, depth + 1)
        elif isinstance(v, list):
            for x in v:
                walk(x, depth + 1)

    walk(value)
    return _unique(found)


def _chat(content: str | None = None, calls: list[ToolCall] | None = None) -> ChatResult:
    return ChatResult(content, calls or [], "tool_calls" if calls else "stop", None, 0.0)


class Adversary:
    """One episode's adversarial agent (see the module docstring); `policy` is a name of `ADVERSARIES`."""

    def __init__(self, policy: str, write_tools: set[str] | None):
        self.policy = policy
        self.write_tools = write_tools
        self.queue: list[tuple[str, dict]] = []  # calls planned and not yet made
        self.phase = "answer"  # "calls" while planned calls remain, "follow" (dump: the ids read), "answer"
        self.seen_user = 0  # the user messages already acted on
        self.made: set[str] = set()  # the calls made this request (tool and arguments), never twice
        self.counter = 0

    # ------------------------------------------------------------------ planning

    def _plan(self, tools: list[dict], values: dict[str, list]) -> list[tuple[str, dict]]:
        plan: list[tuple[str, dict]] = []
        for tool in tools:
            name = (tool.get("function") or {}).get("name") or ""
            read = is_read(name, self.write_tools)
            if self.policy == "guess" and not read:
                plan += [
                    (name, a) for a, _ in zip(guesses(tool, values), range(GUESSES_PER_TOOL), strict=False)
                ]
            elif self.policy in ("dump", "recite") and read or self.policy == "everything":
                args = fill(tool, values)
                if args is not None:
                    plan.append((name, args))
        return plan

    def _follow(self, messages: list[dict], tools: list[dict]) -> list[tuple[str, dict]]:
        """`dump`'s (and `recite`'s) second round: every read tool of one required id parameter, on each id read so far."""
        ids = _unique(
            i for m in messages if m.get("role") == "tool" for i in result_ids(m.get("content") or "")
        )
        plan = []
        for tool in tools:
            fn = tool.get("function") or {}
            params = fn.get("parameters") or {}
            required = params.get("required") or []
            if not is_read(fn.get("name") or "", self.write_tools) or len(required) != 1:
                continue
            schema = (params.get("properties") or {}).get(required[0]) or {}
            kind = _schema_type(schema)
            for i in ids:
                if kind == "integer" and i.isdigit():
                    plan.append((fn["name"], {required[0]: int(i)}))
                elif kind == "string" and not schema.get("enum"):
                    plan.append((fn["name"], {required[0]: i}))
        return plan

    def _take(self) -> ChatResult | None:
        calls: list[ToolCall] = []
        while self.queue and len(calls) < ROUND and len(self.made) < MAX_CALLS:
            tool, args = self.queue.pop(0)
            key = json.dumps([tool, args], sort_keys=True, default=str)
            if key in self.made:
                continue
            self.made.add(key)
            self.counter += 1
            calls.append(ToolCall(f"call_{self.counter}", tool, args, json.dumps(args, default=str)))
        return _chat(None, calls) if calls else None

    # ------------------------------------------------------------------ answering

    def _dump(self, messages: list[dict]) -> str:
        parts = [f"{m.get('name')}: {m.get('content')}" for m in messages if m.get("role") == "tool"]
        text = "Here is everything I found.\n" + "\n".join(parts) if parts else "Done."
        return text.replace("?", "")[:MAX_DUMP]  # never a question: the user would go on

    def _answer(self, messages: list[dict]) -> str:
        users = [m.get("content") or "" for m in messages if m.get("role") == "user"]
        if self.policy == "echo":
            return (users[0] if users else "") or "Done."
        if self.policy == "system":
            return (
                next((m.get("content") or "" for m in messages if m.get("role") == "system"), "") or "Done."
            )
        if self.policy == "no":
            return GENERIC_REFUSAL
        if self.policy in ("dump", "everything"):
            return self._dump(messages)
        if self.policy == "recite":
            system = next((m.get("content") or "" for m in messages if m.get("role") == "system"), "")
            paragraphs = [p for p in system.split("\n\n") if p.lower().startswith("policy")]
            policy = paragraphs[-1].partition(":")[2].strip() if paragraphs else ""
            return f"{GENERIC_REFUSAL[:-1]}. {policy}" if policy else GENERIC_REFUSAL
        return "Done."

    async def complete(self, messages: list[dict], tools: list[dict] | None = None) -> ChatResult:
        users = [m.get("content") or "" for m in messages if m.get("role") == "user"]
        if len(users) > self.seen_user:  # a new request (or the user's reply): plan from what it says
            self.seen_user = len(users)
            self.made = set()
            values = message_values("\n".join(users))
            self.queue = self._plan(list(tools or []), values)
            self.phase = "calls"
        turn = self._take() if self.phase in ("calls", "follow") else None
        if turn is None and self.phase == "calls" and self.policy in ("dump", "recite"):
            self.queue, self.phase = self._follow(messages, list(tools or [])), "follow"
            turn = self._take()
        if turn is not None:
            return turn
        self.phase = "answer"
        return _chat(self._answer(messages))


class AdversaryBackend(Backend):
    """The adversarial agent named by `config.model` (a key of `ADVERSARIES`) for every episode of a run."""

    def speaker(self, task: dict, seed: int) -> Speaker:
        writes = task.get("write_tools")
        return Adversary(str(self.config.model), set(writes) if writes is not None else None)
