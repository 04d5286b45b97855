"""Conversations: two or three requests from the same user in a row, tau2-style, composed into one task.

`compose_conversations(e, kept, count, rng, replay_env)` takes an environment's finished one-request tasks
(rows of `envscale.tasks.generate`, each already built by a chain builder of `BUILDERS`, run for its gold
outcome, worded and gated) and composes up to `count` conversations from them:

1. **related rows**: the requests of one conversation touch related rows of the world: a key value one
   request names or reads (an order number, a customer id a result holds) is one the next request names
   or reads (`keys_of`): the same customer's order, then its payment;
2. **one gold run**: the requests' gold calls, concatenated (the provenance `call[i]` of a later request
   shifted past the earlier calls), run together from the environment's initial state, so a later
   request sees the earlier writes. A read a later request makes exactly as an earlier one did (the list
   of budgets, to find another budget by its name) is not made again: the agent has its result, and the
   later calls read it there; it is made again only where an earlier write changed what it returns. A
   request that would only read again what was read before is no request. The composition is dropped
   when a call fails, a request's reads no longer return what its answer facts were read from, or a
   request's writes change nothing at its turn;
3. **one task**: the gold state after every request, the union of the answer facts, the union of the
   required actions; the user opens with the first request and brings up each next one after the agent
   has finished the one before ("Thanks. One more thing: ..."), as listed in the row's `requests`
   column: `[{"message", "goal", "calls": [start, end], "answer_facts"}]`, one entry per request, the
   first one's message being the task's `first_message`;
4. **gates**: a trajectory that stops after the first request must fail (`first_request_passes`), the
   empty trajectory must fail, and the gold calls replay to the same state on a second environment.

A one-request task has an empty `requests` list.

Example:

```python
>>> import random
>>> from envscale.env import load_spec
>>> from envscale.tasks.build import TasksConfig
>>> from envscale.tasks.generate import env_tasks
>>> config = TasksConfig(tasks_per_env=6, conversation_share=0.5)
>>> kept, _ = env_tasks({"spec": load_spec("tests/fixtures/envs/shop.yaml")}, config, [], random.Random(0))
>>> [len(t["requests"]) for t in kept if t["requests"]]  # doctest: +SKIP
[2, 2]
```
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from itertools import combinations, permutations
from typing import Any

from ..env import Environment
from ..judge.provenance import (
    PREFIX,
    parse_provenance,
    provenance_call,
    provenance_path,
    resolve_provenance,
    shift_provenance,
)
from ..judge.score import score_trajectory
from .gates import Deduper, empty_passes, leaks, replay_differs
from .intent import persona_role
from .journeys import ends_then_acts
from .model import Drop
from .naming import tool_bindings
from .prepared import Env

__all__ = [
    "PART_KINDS",
    "bound_keys",
    "compose",
    "compose_conversations",
    "first_request_passes",
    "follow_up",
    "keys_of",
    "rebind",
    "shift_request",
]

#: Kinds of one-request task a conversation is made of (a refusal or a clarifying question stays alone).
PART_KINDS = ("read", "write", "mixed")
#: Most conversations one one-request task is a request of.
MAX_USES = 3

#: A field or argument whose value names a row (an id, a key, a number, a code, a slug, an email).
_KEY = re.compile(
    r"(?:^|[_\s])(?:id|key|uuid|code|number|slug|email|sku)$|(?<=[a-z])(?:Id|Key|Uuid|ID|Number)$",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
#: Key names that do not say which entity a number keys (`id` 6 of what?).
_GENERIC = frozenset({"id", "key", "uuid", "code", "number", "sku", ""})
_GREETING = re.compile(
    r"^\s*(?:um,?\s*)?(?:(?:hi|hello|hey|good (?:morning|afternoon|evening))(?: there)?[!.,]?\s+)?"
    r"(?:so\.\.\.\s*)?(?:I'm not sure this is the right place, but\s+)?",
    re.IGNORECASE,
)
_THANKS = re.compile(
    r"\s*(?:thanks(?: a lot| so much)?|thank you(?: so much)?|many thanks)[!.]?\s*$", re.IGNORECASE
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
#: A value a sentence gives: a word with a digit or an `_`, `@` or `-` in it (an id, an email, a number).
_VALUE = re.compile(r"[\w.+-]*(?:\d|_|@)[\w.@+-]*\w")
#: How the user brings up the next request (after the agent has finished the one before).
_NEXT = (
    "Thanks. One more thing: {}",
    "Great, thank you. There's something else too: {}",
    "Perfect, thanks. While I have you: {}",
    "Thank you! Next: {}",
    "Got it, thanks. Also: {}",
)
_LAST = (
    "Thanks. And one last thing: {}",
    "Great. Finally: {}",
    "Thank you. Last thing: {}",
)


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _is_key(name: str) -> bool:
    return bool(_KEY.search(str(name))) or str(name).lower() in ("id", "key", "uuid")


def _key_values(value: Any, name: str, out: set[str], depth: int = 0) -> None:
    if depth > 3:
        return
    if isinstance(value, dict):
        for k, v in value.items():
            _key_values(v, str(k), out, depth + 1)
    elif isinstance(value, list):
        for v in value[:50]:
            _key_values(v, name, out, depth + 1)
    elif isinstance(value, str | int) and not isinstance(value, bool) and _is_key(name):
        text = str(value).strip()
        if not text or text.lower() in ("none", "null"):
            return
        if not _NUMBER.fullmatch(text):
            out.add(text)  # `ord_0003`, an email, a uuid: the value alone names the row
        elif _words(name) not in _GENERIC:
            # a number names a row only with its entity: `customer_id` 16 is not `product_id` 16
            out.add(f"{_words(name)}={text}")


def _words(name: str) -> str:
    return re.sub(r"(?<=[a-z])(?=[A-Z])|[_\W]+", " ", name).strip().lower()


def keys_of(task: dict) -> set[str]:
    """The key values a task names or reads: those of its gold calls' key arguments and of its results'
    key fields (`ord_0003`, a customer id a read returned; a number with the entity its name says,
    `customer id=16`, never a bare `id` 6). Two requests sharing one touch related rows."""
    out: set[str] = set()
    for call in _json(task.get("gold_calls")) or []:
        _key_values(call.get("arguments") or {}, "", out)
    for result in _json(task.get("gold_results")) or []:
        _key_values(result, "", out)
    return out


def bound_keys(e: Env, task: dict) -> set[str]:
    """The row keys a task's gold calls name by the world's schema: an argument bound to a table's primary
    key or to a column that references a table (Google Tasks' `tasklist` and `task`, which no key name
    says), as `keys_of` spells them (a number with its table: `tasklists=7`)."""
    out: set[str] = set()
    tables = e.spec["tables"]
    for call in _json(task.get("gold_calls")) or []:
        tool = e.tools.get(call.get("tool"))
        if tool is None:
            continue
        for arg, binding in tool_bindings(tool).items():
            value = (call.get("arguments") or {}).get(arg)
            if binding.table not in tables or value is None or isinstance(value, bool | dict | list):
                continue
            column = tables[binding.table]["columns"].get(binding.column) or {}
            table = binding.table if binding.column == e.pk(binding.table) else column.get("references")
            if table in tables:
                text = str(value).strip()
                out.add(f"{table}={text}" if _NUMBER.fullmatch(text) else text)
    return out


def shift_request(provenance: dict, offset: int) -> dict:
    """A later request's provenance in the conversation: `call[i]` becomes `call[i + offset]`."""
    return {name: shift_provenance(source, offset) for name, source in (provenance or {}).items()}


def _remap(provenance: dict, plan: list[int]) -> dict:
    """A request's provenance in the conversation: `call[j]` (its own j-th call) becomes the conversation's
    `call[plan[j]]`, an earlier request's call when the read was made there already."""
    out = {}
    for name, source in provenance.items():
        at = provenance_call(source)
        out[name] = source if at is None or at >= len(plan) else shift_provenance(source, plan[at] - at)
    return out


def _tells(part: dict, j: int) -> bool:
    """Whether the request's answer states a value its `j`-th call returned."""
    results = _json(part.get("gold_results")) or []
    said = _canonical(results[j]) if j < len(results) else ""
    return any(str(fact) in said for fact in part.get("answer_facts") or [])


def _same_read(e: Env, calls: list[dict], call: dict) -> int | None:
    """The index of an earlier call of the conversation making the same read (`getBudgets()` again), if any."""
    tool = e.tools.get(call["tool"])
    if tool is None or tool.get("kind") != "read":
        return None
    mine = _canonical([call["tool"], call.get("arguments")])
    return next((i for i, c in enumerate(calls) if _canonical([c["tool"], c.get("arguments")]) == mine), None)


def follow_up(message: str, rng: random.Random, last: bool, said: str = "") -> str:
    """A request's first message as the user brings it up after an earlier one: no second greeting, no
    thanks in advance, no sentence that only repeats what the user already said (`said`, the earlier
    messages: "My customer id is cus_0018." once is enough), opened with a turn of phrase ("Thanks. One
    more thing: delete the appointment ...")."""
    text = _GREETING.sub("", message.strip(), count=1)
    text = _THANKS.sub("", text).strip() or message.strip()
    sentences = _SENTENCE.split(text)
    kept = sentences[:1] + [s for s in sentences[1:] if not _repeats(s, said)]
    text = " ".join(kept)
    if text[:1].isupper() and not re.match(r"I\b|I'", text) and not text[1:2].isupper():
        text = text[0].lower() + text[1:]
    return rng.choice(_LAST if last else _NEXT).format(text)


def _repeats(sentence: str, said: str) -> bool:
    """Whether a short sentence only gives values already said (`The budget id is bud_0006.`)."""
    values = _VALUE.findall(sentence)
    words = sentence.split()
    return bool(values) and len(words) <= 8 and all(v.lower() in said.lower() for v in values)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _unique(items: list) -> list:
    return list(dict.fromkeys(items))


def _cells(e: Env, changes: dict) -> set[tuple[str, str, str]]:
    """The cells a write changed, `(table, row key, column)`; `"*"` for a row it added or removed."""
    out: set[tuple[str, str, str]] = set()
    for table, change in (changes or {}).items():
        pk = e.pk(table) if table in e.spec["tables"] else None
        for row in (change.get("added") or []) + (change.get("removed") or []):
            out.add((table, _canonical(row.get(pk) if isinstance(row, dict) else row), "*"))
        for row in change.get("changed") or []:
            before, after = row.get("before") or {}, row.get("after") or {}
            for column in set(before) | set(after):
                if before.get(column) != after.get(column):
                    out.add((table, _canonical(row.get("key")), column))
    return out


def _overwritten(changes: dict) -> set[str]:
    """The text values a write replaced (a name, a title), as `_facts` spells them."""
    out: set[str] = set()
    for change in (changes or {}).values():
        for row in change.get("changed") or []:
            before, after = row.get("before") or {}, row.get("after") or {}
            out |= {
                str(v) for c, v in before.items() if isinstance(v, str) and len(v) >= 3 and after.get(c) != v
            }
    return out


def _facts(part: dict) -> set[str]:
    """The values a request's user states or is asked for."""
    ins = _json(part.get("instructions")) or {}
    facts = {**(ins.get("known_facts") or {}), **(ins.get("hidden_facts") or {})}
    return {str(v) for v in facts.values() if isinstance(v, str)}


def _overwrites(earlier: set[tuple[str, str, str]], cells: set[tuple[str, str, str]]) -> bool:
    """Whether a write changes a cell an earlier request wrote, a row it added or removed, or adds or
    removes a row it changed: the earlier request's outcome would no longer be in the final state."""
    rows = {(t, k) for t, k, _ in earlier}
    whole = {(t, k) for t, k, c in earlier if c == "*"}
    return any((t, k, c) in earlier or (t, k) in whole or (c == "*" and (t, k) in rows) for t, k, c in cells)


def rebind(call: dict, results: list[Any]) -> str | None:
    """Give `call` the values its provenance reads from this run's earlier results (in place). A value that
    flowed from a call of its own request was fixed by that request's own run: when an earlier request has
    created a row of the same table, the new row's key is another one here (`mem_0022`, not `mem_0021`).
    A value read at a position of a list (`call[3][14].configuration_id`) is the same row's wherever the list
    holds it now: an earlier request that deleted a row moved the rows after it up one, and the row at [14] is
    another one (a blind reading found "delete Paul's Configuration" deleting "Auckland Configuration").
    Returns why a path cannot be read, else None."""
    for arg, source in list((call.get("provenance") or {}).items()):
        if not (isinstance(source, str) and source.startswith(PREFIX)):
            continue
        try:
            value = resolve_provenance(source, results)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            return f"{arg} reads {source}, which this run does not give ({type(exc).__name__})"
        own = call["arguments"].get(arg)
        if value != own:
            moved = _same_row(source, results, own)
            if moved is not None:
                call["provenance"] = {**call["provenance"], arg: moved}
                continue
            call["arguments"] = {**call["arguments"], arg: value}
    return None


def _same_row(source: str, results: list[Any], value: Any) -> str | None:
    """`source` with its last list position moved to the element that holds `value` at the same place, when
    the list holds one: the path of the row its request's own run read. `None` when the path reads no list or
    no element of it holds `value` (a row this run created under another key)."""
    parsed = parse_provenance(source)
    if parsed is None or value is None:
        return None
    call, steps = parsed
    positions = [k for k, step in enumerate(steps) if isinstance(step, int)]
    if not positions:
        return None
    at = positions[-1]
    items = _at(results[call], steps[:at])
    for i, item in enumerate(items if isinstance(items, list) else []):
        if _at(item, steps[at + 1 :]) == value:
            return provenance_path(call, [*steps[:at], i, *steps[at + 1 :]])
    return None


def _at(value: Any, steps: list[int | str]) -> Any:
    """What `steps` lead to inside `value`; `None` where nothing is there."""
    for step in steps:
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def _run(
    e: Env, parts: list[dict], calls: list[dict], plans: list[list[int]]
) -> tuple[list[Any], Drop | None]:
    """The conversation's gold run from the initial state: each call's result, or the `Drop` of what broke.
    `plans[n]` holds, for each gold call of request `n`, its index in `calls`: a read made again (the same
    tool and arguments as an earlier request's) points at the earlier call, whose result must still be what
    the read returns at its turn."""
    e.env.restore(e.initial)
    results: list[Any] = []
    written: set[tuple[str, str, str]] = set()  # the cells the earlier requests wrote
    gone: set[str] = set()  # the values they overwrote ("Jia Dunn" once renamed to "James Smith")
    index = 0
    for n, part in enumerate(parts):
        stale = sorted(gone & _facts(part))
        if stale:
            return results, (
                "conversation_conflict",
                f"request {n + 1} names {stale[0]!r}, which an earlier request changed",
            )
        before = e.env.state_hash()
        own = _json(part.get("gold_results")) or []
        mine: set[tuple[str, str, str]] = set()
        for j, at in enumerate(plans[n]):
            if at < index:  # a read an earlier request made: the agent reads its result again
                earlier = calls[at]
                obs = e.env.step(earlier["tool"], earlier["arguments"])
                if not obs["ok"] or _canonical(obs.get("result")) != _canonical(results[at]):
                    return results, ("read_changed", f"{n}:{j}")  # `compose` makes that read again
                if part.get("answer_facts") and _canonical(results[at]) != _canonical(own[j]):
                    return results, (
                        "conversation_conflict",
                        f"request {n + 1}: {earlier['tool']} reads otherwise after the earlier requests",
                    )
                continue
            call = calls[index]
            rebound = rebind(call, results)
            if isinstance(rebound, str):
                return results, ("conversation_conflict", f"request {n + 1}, call {call['tool']}: {rebound}")
            obs = e.env.step(call["tool"], call["arguments"])
            if not obs["ok"]:
                return results, (
                    "conversation_conflict",
                    f"request {n + 1}, call {call['tool']}: {obs['error']}",
                )
            changes = e.env.last_changes()
            gone |= _overwritten(changes)
            cells = _cells(e, changes)
            if _overwrites(written, cells):
                return results, (
                    "conversation_overwrites",
                    f"request {n + 1}: {call['tool']} changes again what an earlier request changed",
                )
            mine |= cells
            results.append(obs.get("result"))
            if part.get("answer_facts") and _canonical(results[-1]) != _canonical(own[j]):
                return results, (
                    "conversation_conflict",
                    f"request {n + 1}: {call['tool']} reads otherwise after the earlier requests",
                )
            index += 1
        if (part.get("difficulty") or {}).get("n_writes") and e.env.state_hash() == before:
            return results, (
                "conversation_conflict",
                f"request {n + 1}: its writes change nothing at its turn",
            )
        written |= mine
    return results, None


def compose(
    e: Env, parts: list[dict], rng: random.Random, *, reuse: bool = True, fresh: frozenset = frozenset()
) -> tuple[dict | None, Drop | None]:
    """One conversation task of `parts` (finished one-request task rows, in the order the user asks them),
    run for its gold outcome: `(row, None)`, or `(None, drop)`.

    With `reuse`, a read a later request makes exactly as an earlier one did (the same list of budgets to find
    a budget by its name) is not made again: the later calls read the earlier result. When an earlier
    request's write has changed what that read returns, that read is made again at its turn (`fresh` holds
    `(request, call)` of such reads)."""
    calls: list[dict] = []
    requests: list[dict] = []
    plans: list[list[int]] = []  # per request, each of its own calls' index in the conversation's calls
    for n, part in enumerate(parts):
        ins = _json(part.get("instructions")) or {}
        start = len(calls)
        plan: list[int] = []
        for call in _json(part["gold_calls"]):
            again = _same_read(e, calls, call) if n and reuse and (n, len(plan)) not in fresh else None
            if again is not None:  # the agent has it already: an earlier request made this very read
                if _tells(part, len(plan)):
                    return None, ("asks_again", f"request {n + 1} asks for what an earlier request was told")
                plan.append(again)
                continue
            plan.append(len(calls))
            calls.append(
                {
                    "tool": call["tool"],
                    "arguments": call["arguments"],
                    "provenance": _remap(call.get("provenance") or {}, plan),
                }
            )
        if n and len(calls) == start:
            return None, ("conversation_conflict", f"request {n + 1} only reads again what was read before")
        plans.append(plan)
        last = n == len(parts) - 1 and n >= 2
        said = " ".join(r["message"] for r in requests)
        message = part["first_message"] if n == 0 else follow_up(part["first_message"], rng, last, said)
        requests.append(
            {
                "message": message,
                "goal": ins.get("goal") or "",
                "calls": [start, len(calls)],
                "answer_facts": list(part.get("answer_facts") or []),
            }
        )
    results, drop = _run(e, parts, calls, plans)
    if drop is not None and drop[0] == "read_changed":  # `(request, call)`: that read is made again
        changed = tuple(int(x) for x in drop[1].split(":"))
        return compose(e, parts, rng, reuse=reuse, fresh=fresh | {changed})
    if drop is not None:
        return None, drop
    gold_hash = e.env.state_hash()
    diff = e.env.diff(e.initial)
    scorings = [_json(p.get("scoring")) or {} for p in parts]
    facts = _unique([f for p in parts for f in p.get("answer_facts") or []])
    state = any(s.get("state") for s in scorings)
    writes = any(p.get("kind") != "read" for p in parts)
    if writes and gold_hash == e.initial_hash:
        return None, ("writes_change_nothing", "the state after every request is the initial state")
    needed = _unique([c["tool"] for c in calls])
    others = _unique([t for p in parts for t in p["tools"] if t not in needed])
    distractors = others[: e.config.distractors]
    first = _json(parts[0].get("instructions")) or {}
    known: dict[str, Any] = {}
    for part in parts:
        for name, value in ((_json(part.get("instructions")) or {}).get("known_facts") or {}).items():
            if name in known and known[name] != value:
                name = f"{name} (request {parts.index(part) + 1})"
            known.setdefault(name, value)
    dones = [
        str((_json(p.get("instructions")) or {}).get("done_when") or "").removeprefix("when ") for p in parts
    ]
    instructions = {
        "persona": first.get("persona") or "",
        "goal": " Then: ".join(r["goal"] for r in requests),
        "known_facts": known,
        "hidden_facts": {},
        "done_when": f"when the assistant has done all {len(parts)} requests: " + "; then ".join(dones),
        "first_message": requests[0]["message"],
        "style": first.get("style") or "plain",
        "requests": [r["message"] for r in requests],
    }
    n_writes = sum((p.get("difficulty") or {}).get("n_writes") or 0 for p in parts)
    kind = "mixed" if writes and facts else "write" if writes else "read"
    row = {
        "environment": e.spec["name"],
        "domain_id": e.row.get("domain_id", -1),
        "kind": kind,
        "difficulty": {
            "chain_length": len(calls),
            "n_writes": n_writes,
            "n_distractors": len(distractors),
            "shape": "conversation",
            "level": "hard",
            "n_requests": len(parts),
            "request_shapes": [(p.get("difficulty") or {}).get("shape") for p in parts],
        },
        "scoring": {
            "state": state,
            "answer_facts": bool(facts),
            "required_actions": _unique([t for s in scorings for t in s.get("required_actions") or []]),
            "forbidden_actions": [],
        },
        "instructions": instructions,
        "first_message": requests[0]["message"],
        "requests": requests,
        "tools": needed + distractors,
        "gold_calls": calls,
        "gold_results": results,
        "gold_state_hash": gold_hash,
        "gold_diff": diff,
        "answer_facts": facts,
        "policy": _json(parts[0].get("policy")) or {},
        "seed": parts[0].get("seed"),
        "notes": [
            f"conversation of {len(parts)} requests, each a one-request task run here after the ones before"
        ]
        + [f"request {n + 1}: {note}" for n, p in enumerate(parts) for note in p.get("notes") or []],
    }
    return row, None


def _two_people(parts: list[dict]) -> bool:
    """Whether the requests come from two people: a fact one of them calls their own ("my customer id is ...")
    with another value in another request."""
    seen: dict[str, tuple[str, bool]] = {}
    for part in parts:
        said = str(part.get("first_message") or "").lower()
        for name, value in ((_json(part.get("instructions")) or {}).get("known_facts") or {}).items():
            mine = f"my {name}".lower() in said
            if name in seen and seen[name][0] != _canonical(value) and (mine or seen[name][1]):
                return True  # seed 91: "user email: jasmine...", then "my user email is kristen..."
            seen.setdefault(name, (_canonical(value), mine))
    return False


def _two_roles(parts: list[dict]) -> bool:
    """Whether one request is a customer's and another staff's (cancel my order, then rename another
    customer): one person would not ask both."""
    roles = {persona_role((_json(p.get("instructions")) or {}).get("persona") or "") for p in parts}
    return len(roles - {None}) > 1


def _asks_twice(e: Env, parts: list[dict]) -> bool:
    """Whether two requests make the same write (the same tool with the same arguments): the user would be
    asking for a change just made; or ask for the same answer read by the same call (blind readers: the status of
    one meeting asked in two requests in a row). A read made again is the agent's to reuse (`compose`)."""
    seen: set[str] = set()
    asked: list[
        tuple[set[str], set[str], set[str]]
    ] = []  # (answer facts, reads and rows, named values) of those before
    for part in parts:
        calls = _json(part["gold_calls"])
        own = {
            _canonical([c["tool"], c.get("arguments")])
            for c in calls
            if (e.tools.get(c["tool"]) or {}).get("kind") != "read"
        }
        if own & seen:
            return True
        seen |= own
        # the same answer of the same row, read by the same call or of a row named alike: "find out the status of
        # the meeting whose subject is "Sprint planning"" in two requests in a row
        facts = {str(f) for f in part.get("answer_facts") or []}
        reads = {
            _canonical([c["tool"], c.get("arguments")])
            for c in calls
            if (e.tools.get(c["tool"]) or {}).get("kind") == "read"
        }
        # ... or of one row reached another way (the status of the customer of ticket tic_0002, then of the
        # customer named "Emily Potts": one customer, one status, asked twice)
        reads |= bound_keys(e, part)
        named = _facts(part)
        if facts and any(facts & f and (reads & r or named & n) for f, r, n in asked):
            return True
        asked.append((facts, reads, named))
    return False


def first_request_passes(row: dict, env: Environment) -> Drop | None:
    """Whether a trajectory that stops after the first request (its gold calls, an answer stating everything
    they returned) passes the conversation: it must not."""
    start, end = row["requests"][0]["calls"]
    calls = row["gold_calls"][start:end]
    said = json.dumps(row["gold_results"][start:end], ensure_ascii=False, default=str)
    if score_trajectory(row, env, calls, said, precision=False)["passed"]:
        return "first_request_passes", "stopping after the first request passes the whole conversation"
    return None


def named_keys(task: dict) -> set[str]:
    """The key values a task's gold calls name in their arguments (`keys_of` without what results list)."""
    out: set[str] = set()
    for call in _json(task.get("gold_calls")) or []:
        _key_values(call.get("arguments") or {}, "", out)
    return out


def _orders(
    parts: list[dict], keys: list[set[str]], rng: random.Random, named: list[set[str]] | None = None
) -> list[tuple[int, ...]]:
    """Candidate conversations: ordered pairs of related requests, and some triples. Requests that name one
    row come first (a reader called requests related only through a list they both read "stitched"), then
    more writes first."""
    n = len(parts)
    named = named if named is not None else keys
    pairs = [(a, b) for a, b in permutations(range(n), 2) if keys[a] & keys[b]]
    rng.shuffle(pairs)
    out: list[tuple[int, ...]] = []
    for a, b in pairs:
        third = [c for c in range(n) if c not in (a, b) and keys[c] & (keys[a] | keys[b])]
        if third and rng.random() < 0.6:
            out.append((a, b, rng.choice(third)))
        out.append((a, b))

    def writes(order: tuple[int, ...]) -> int:
        return sum(bool((parts[i].get("difficulty") or {}).get("n_writes")) for i in order)

    def apart(order: tuple[int, ...]) -> bool:
        return not (named[order[0]] & named[order[1]])

    out.sort(key=lambda order: (apart(order), -min(writes(order), 2)))  # stable: shuffled within a rank
    return out


def compose_conversations(
    e: Env, kept: list[dict], count: int, rng: random.Random, replay_env: Environment | None = None
) -> tuple[list[dict], list[Drop]]:
    """Up to `count` conversations composed from an environment's finished one-request tasks `kept`.

    Each one-request task is a request of at most `MAX_USES` conversations, and two of them are asked
    together in one conversation at most (no conversation is another plus one request); two requests
    whose user facts disagree (a different "customer id" each: two people) are not one user's
    conversation. Returns `(conversation rows, drops)`, a drop for each composition tried and dropped.
    """
    parts = [t for t in kept if t.get("kind") in PART_KINDS and not t.get("requests")]
    if count <= 0 or len(parts) < 2:
        return [], []
    keys = [keys_of(p) | bound_keys(e, p) for p in parts]
    named = [named_keys(p) | bound_keys(e, p) for p in parts]
    used: Counter = Counter()  # conversations each one-request task is a request of
    paired: set[frozenset] = set()  # two requests asked together once are not asked together again
    rows: list[dict] = []
    drops: list[Drop] = []
    dedupe = Deduper()
    for order in _orders(parts, keys, rng, named):
        if len(rows) >= count or len(drops) > 6 * count:
            break
        pairs = {frozenset(p) for p in combinations(order, 2)}
        if any(used[i] >= MAX_USES for i in order) or pairs & paired:
            continue
        chosen = [parts[i] for i in order]
        tools = [tuple(c["tool"] for c in _json(p["gold_calls"])) for p in chosen]
        if len(set(tools)) < len(tools):  # the same request twice over, on other rows: not a conversation
            continue
        if _two_people(chosen) or _two_roles(chosen) or _asks_twice(e, chosen):
            continue
        if ends_then_acts(e, [c for p in chosen for c in _json(p["gold_calls"])]):
            continue  # "cancel the booking. Then: change its payment type" (seed 90's readers)
        row, drop = compose(
            e, chosen, random.Random(f"{e.spec['name']}:{[p['first_message'] for p in chosen]}")
        )
        if row is not None:
            drop = (
                dedupe.seen(e.spec["name"], row["gold_calls"])
                or leaks(
                    " ".join(r["message"] for r in row["requests"]),
                    row["instructions"],
                    [c["tool"] for c in row["gold_calls"]],
                )
                or empty_passes(row, e.env)
                or first_request_passes(row, e.env)
            )
        if drop is None and replay_env is not None:
            calls = [{"tool": c["tool"], "arguments": c["arguments"]} for c in row["gold_calls"]]
            drop = replay_differs(calls, replay_env, e.seed, row["gold_state_hash"], row["gold_results"])
        if drop is not None:
            drops.append(drop)
            continue
        used.update(order)
        paired |= pairs
        rows.append(row)
    return rows, drops
