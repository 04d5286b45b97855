"""Quality gates of the `tasks` stage on a finished task: each returns `None` to keep it, or a `Drop`, a
short code and a detail (`envscale.tasks.model.Drop`), when the task is dropped.

- `replay_differs` (`replay_differs`): the gold calls, replayed on a fresh reset, give another result or
  final state (something the gold run depended on is not reproduced: a clock, a generated id, a session);
- `empty_passes` (`empty_passes`): doing nothing passes the task (the state already equals gold, or the
  answer facts are in the first message);
- `leaks` (`gold_tool_named`): the user's instructions name a gold tool (`cancel_order`, "cancel order");
- `Deduper` (`exact_duplicate`, `near_duplicate`): duplicates of an earlier task on the same environment;
- `rereads_row` (`rereads_row`): a chain comes back to a row it has read already by another way ("the budget of
  the payee of the budget named X": the same budget).

The card counts the codes; the details name the call index, the tool and the first differing value
where there is one.

Example:

```python
>>> from envscale.env import Environment
>>> from envscale.tasks.gates import Deduper, leaks, replay_differs
>>> env = Environment.from_yaml("tests/fixtures/envs/shop.yaml")
>>> calls = [{"tool": "get_order", "arguments": {"order_id": "ord_0009"}}]
>>> result = env.step("get_order", {"order_id": "ord_0009"})["result"]
>>> replay_differs(calls, env, None, env.state_hash(), [result]) is None
True
>>> replay_differs(calls, env, None, env.state_hash(), [{**result, "status": "paid"}])
('replay_differs', "call 0 (get_order) returns another result on replay: result.status is 'pending', gold 'paid'")
>>> leaks("Please get_order ord_0009 for me", {"goal": "know my order"}, ["get_order"])
('gold_tool_named', "'get_order' in the first message: 'Please get_order ord_0009 for me'")
>>> dedupe = Deduper()
>>> dedupe.seen("shop", calls), dedupe.seen("shop", calls)
(None, ('exact_duplicate', 'of task #0 of shop (get_order)'))
```
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from envscale.env import Environment
from envscale.judge import call_parts, reset_env, score_trajectory
from envscale.judge.provenance import parse_provenance
from envscale.tasks.finding import addressed_table, caller_scope
from envscale.tasks.model import Drop, TaskDraft
from envscale.words.inflect import singular
from envscale.words.names import tokens
from envscale.words.semantics import PERSON_ENTITIES, key_entity

__all__ = ["Deduper", "empty_passes", "leaks", "replay_differs", "rereads_row"]


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _same(a: Any, b: Any) -> bool:
    """JSON equality: `1 == 1.0`, a boolean equals only a boolean, lists in order, objects by key."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(v, b[k]) for k, v in a.items())
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _first_difference(got: Any, want: Any, path: str = "result") -> str | None:
    """Where two JSON values first differ: `"result.created_at is '...', gold '...'"`, or `None`."""
    if isinstance(got, dict) and isinstance(want, dict):
        for key in [*want, *(k for k in got if k not in want)]:
            if key not in got:
                return f"{path}.{key} is missing, gold {_short(want[key])}"
            if key not in want:
                return f"{path}.{key} is {_short(got[key])}, not in gold"
            found = _first_difference(got[key], want[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(got, list | tuple) and isinstance(want, list | tuple):
        for i, (x, y) in enumerate(zip(got, want, strict=False)):
            found = _first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        if len(got) != len(want):
            return f"{path} has {len(got)} items, gold {len(want)}"
        return None
    return None if _same(got, want) else f"{path} is {_short(got)}, gold {_short(want)}"


def replay_differs(
    task_gold_calls: list[Any],
    env: Environment,
    seed: int | None,
    gold_state_hash: str,
    gold_results: list[Any] | None = None,
    *,
    session_key: Any = None,
) -> Drop | None:
    """Replay the gold calls on a fresh reset and say how the outcome differs from the gold run.

    The strongest check passes an environment other than the one the gold run used (a second one
    built from the same spec); it is reset to `seed` here either way.

    Args:
        task_gold_calls (`list[dict]`): The gold calls, `{"tool", "arguments"}` (a `result` key is
            the gold result when `gold_results` is not given).
        env (`Environment`): An environment of the task's spec.
        seed (`int`, *optional*): The task's seed (`None`: the spec's own initial state).
        gold_state_hash (`str`): The gold final state hash.
        gold_results (`list`, *optional*): The gold result of each call (`step(...)["result"]`).
        session_key (*optional*): The session row the gold run used, for a spec with a session.

    Returns:
        `Drop` or `None`: `("replay_differs", the first difference)` (a call that now fails or returns
        another result, naming its index and tool, or another final state), `None` when the replay matches.
    """
    if gold_results is not None and len(gold_results) != len(task_gold_calls):
        return (
            "replay_differs",
            f"the task has {len(task_gold_calls)} gold calls but {len(gold_results)} gold results",
        )
    reset_env(env, seed, session_key)
    for i, call in enumerate(task_gold_calls):
        tool, arguments = call_parts(call)
        obs = env.step(tool, arguments)
        if not obs["ok"]:
            return "replay_differs", f"call {i} ({tool}) fails on replay: {obs['error']}"
        if gold_results is not None:
            want = gold_results[i]
        elif isinstance(call, Mapping) and "result" in call:
            want = call["result"]
        else:
            continue
        found = _first_difference(obs["result"], want)
        if found:
            return "replay_differs", f"call {i} ({tool}) returns another result on replay: {found}"
    final = env.state_hash()
    if final != gold_state_hash:
        return (
            "replay_differs",
            f"the final state differs: state hash {final[:12]}, gold {str(gold_state_hash)[:12]}",
        )
    return None


def empty_passes(task: Mapping[str, Any], env: Environment) -> Drop | None:
    """Whether the empty trajectory passes the task: no calls, the first message as the final answer.

    Answering with the user's own first message models answer facts that were already in the prompt.

    Args:
        task (`dict`): The task row (`scoring`, `gold_state_hash`, `answer_facts`, `seed`,
            `first_message` or `instructions.first_message`).
        env (`Environment`): An environment of the task's spec (reset here).

    Returns:
        `Drop` or `None`: `("empty_passes", why the empty trajectory passes)`, or `None` when it fails (as
        it must).
    """
    first = task.get("first_message")
    if first is None:
        instructions = task.get("instructions")
        if isinstance(instructions, str):
            instructions = json.loads(instructions)
        first = (instructions or {}).get("first_message")
    result = score_trajectory(task, env, [], final_answer=first or "", precision=False)
    if not result["passed"]:
        return None
    why = []
    if result["state"]:
        why.append("the state already equals gold")
    if result["answer"]:
        why.append("answer facts are in the first message")
    if not why:
        why.append("no scored check needs an action")
    return "empty_passes", " and ".join(why)


_TOKENS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def _name_pattern(tool: str) -> re.Pattern[str] | None:
    """A tool name as it could be written in text (`cancel_order`, `cancel order`, `cancel-order`,
    `cancelOrder`); `None` for a one-word name, which is an ordinary word (`search`, `login`)."""
    tokens = [t.lower() for t in _TOKENS.findall(tool)]
    if len(tokens) < 2:
        return None
    body = r"[\s_\-]*".join(map(re.escape, tokens))
    return re.compile(rf"(?<![a-z0-9]){body}(?![a-z0-9])", re.IGNORECASE)


def leaks(
    first_message: str | None, instructions: Mapping[str, Any] | None, tool_names: list[str]
) -> Drop | None:
    """Whether the instructions name a gold tool (the agent would be told which call to make).

    The first message and the user's goal are searched, case-insensitively and as whole words, for
    each tool name of two words or more as written (`cancel_order`) or with its separators as
    spaces or hyphens (`cancel order`), or run together (`cancelOrder`). One-word names (`search`)
    are not checked: they are ordinary words a person uses.

    Args:
        first_message (`str`): The user's opening message.
        instructions (`dict`): The user instructions (`Instructions` as a dict; `goal` is read).
        tool_names (`list[str]`): The gold calls' tools.

    Returns:
        `Drop` or `None`: `("gold_tool_named", the tool, where it is named and the text around it)`;
        `None` when nothing leaks.
    """
    texts = [("first message", first_message)]
    if isinstance(instructions, Mapping):
        texts.append(("goal", instructions.get("goal")))
    for tool in dict.fromkeys(tool_names):
        pattern = _name_pattern(tool) if isinstance(tool, str) else None
        if pattern is None:
            continue
        for where, text in texts:
            if not isinstance(text, str):
                continue
            match = pattern.search(text)
            if match:
                start, end = max(0, match.start() - 20), match.end() + 20
                snippet = ("..." if start else "") + text[start:end] + ("..." if end < len(text) else "")
                return "gold_tool_named", f"{tool!r} in the {where}: {snippet!r}"
    return None


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _digest(*parts: str) -> bytes:
    return hashlib.blake2b("\x1f".join(parts).encode("utf-8", "surrogatepass"), digest_size=12).digest()


class Deduper:
    """Exact and near duplicates among the tasks of each environment, in the order they are seen.

    - **Exact duplicate**: the same environment, the same tools in the same order with the same
      arguments (names and values).
    - **Near duplicate**: the same environment, the same tools in the same order with the same
      argument names per call, and every argument value equal except one, while at least
      `min_shared` values are equal. With the default `min_shared=1`, a task of a single argument
      value (`cancel_order(ord_0003)` vs `cancel_order(ord_0007)`) is never a near duplicate: it
      is the same request about another row, which a dataset should have. `min_shared=0` makes any
      two such tasks near duplicates.

    Each task is kept as a 12-byte digest of its calls plus one per argument value (the calls with
    that value masked; two tasks are near duplicates when they share one), so memory is bounded by
    `max_tasks` per environment; past it the oldest task is forgotten.

    Args:
        min_shared (`int`, *optional*, defaults to 1): Argument values two near duplicates must share.
        max_tasks (`int`, *optional*, defaults to 100,000): Tasks remembered per environment.
    """

    def __init__(self, min_shared: int = 1, max_tasks: int = 100_000):
        if not isinstance(min_shared, int) or min_shared < 0:
            raise ValueError(f"min_shared must be a non-negative integer, got {min_shared!r}")
        if not isinstance(max_tasks, int) or max_tasks < 1:
            raise ValueError(f"max_tasks must be a positive integer, got {max_tasks!r}")
        self.min_shared = min_shared
        self.max_tasks = max_tasks
        # env -> exact digest -> (label, masked digests); env -> masked digest -> label
        self._exact: dict[str, OrderedDict[bytes, tuple[str, list[bytes]]]] = {}
        self._near: dict[str, dict[bytes, str]] = {}
        self._counts: dict[str, int] = {}

    def seen(self, env_name: str, calls: list[Any], task_id: str | None = None) -> Drop | None:
        """Record a task's calls; the reason it duplicates an earlier task, or `None` (then it is kept).

        Args:
            env_name (`str`): The environment's name.
            calls (`list[dict]`): The task's calls, `{"tool", "arguments"}` (arguments as a dict or JSON text).
            task_id (`str`, *optional*): How reasons name this task later (default: `task #N of ENV`,
                N counting the tasks kept on that environment from 0).

        Returns:
            `Drop` or `None`: `("exact_duplicate", "of ...")` or `("near_duplicate", "of ...: ...")` naming
            the first task, or `None` for a new task.
        """
        shape: list[str] = []
        slots: list[tuple[int, str, str]] = []  # (call, argument, canonical value)
        for i, call in enumerate(calls):
            tool, arguments = call_parts(call)
            if isinstance(arguments, str):
                with contextlib.suppress(json.JSONDecodeError):  # invalid JSON: one opaque value
                    arguments = json.loads(arguments)
            if isinstance(arguments, Mapping):
                names = sorted(arguments)
                slots.extend((i, a, _canonical(arguments[a])) for a in names)
            else:  # not an object: one opaque value
                names = ["*"]
                slots.append((i, "*", _canonical(arguments)))
            shape.append(_canonical([tool, names]))
        head = "\x1e".join(shape)
        values = [v for _, _, v in slots]
        exact = _digest(head, *values)
        known = self._exact.setdefault(env_name, OrderedDict())
        near = self._near.setdefault(env_name, {})
        tools = " -> ".join(str(call_parts(c)[0]) for c in calls) or "no calls"
        if exact in known:
            return "exact_duplicate", f"of {known[exact][0]} ({tools})"
        masked = []
        if len(slots) >= 1 + self.min_shared:
            for j in range(len(slots)):
                masked.append(_digest(head, *values[:j], "\x00*", *values[j + 1 :], str(j)))
            for j, key in enumerate(masked):
                if key in near:
                    i, arg, _ = slots[j]
                    tool = call_parts(calls[i])[0]
                    return "near_duplicate", f"of {near[key]}: the same calls except {tool}.{arg} (call {i})"
        count = self._counts.get(env_name, 0)
        self._counts[env_name] = count + 1
        label = task_id or f"task #{count} of {env_name}"
        known[exact] = (label, masked)
        for key in masked:
            near.setdefault(key, label)
        while len(known) > self.max_tasks:
            _, (old_label, old_masked) = known.popitem(last=False)
            for key in old_masked:
                if near.get(key) == old_label:
                    del near[key]
        return None


def rereads_row(calls: list[Any]) -> Drop | None:
    """`rereads_row` when a read returns a row an earlier call of the chain returned already, reached through
    another row (the payee's budget after the budget itself): a loop in the chain, not a step of a journey.
    `calls` are executed gold calls (`tool`, `provenance`, `result` attributes); a get keyed by the very row an
    earlier list returned is `envscale.tasks.rereads.drop_refetch`'s, not this gate's."""
    for k, call in enumerate(calls):
        if call.write or not isinstance(call.result, dict) or not call.result:
            continue
        sources = {parsed[0] for p in call.provenance.values() if (parsed := parse_provenance(p))}
        for i in range(k):
            if i in sources or calls[i].write:
                continue
            rows = calls[i].result if isinstance(calls[i].result, list) else [calls[i].result]
            if any(row == call.result for row in rows):
                return (
                    "rereads_row",
                    f"call {k} ({call.tool}) returns a row call {i} ({calls[i].tool}) returned",
                )
    return None


def walks_back(e: Any, calls: list[Any]) -> Drop | None:
    """`walks_back` when a call addresses, through another row's reference, a row the chain singled out
    before: "change the picture of the spot of the event titled X in the spot titled Y" walks from the spot to
    its event and back to the spot the user named. `e` is the task's `Env`; `calls` are executed gold calls."""
    singled: dict[tuple[str, Any], int] = {}  # (table, key) -> the list call a later call picked it from
    for call in calls:
        for source in call.provenance.values():
            parsed = parse_provenance(source)
            if parsed is None or len(parsed[1]) != 2 or not isinstance(parsed[1][0], int):
                continue
            i, (index, column) = parsed[0], parsed[1]
            if i >= len(calls) or not isinstance(calls[i].result, list) or index >= len(calls[i].result):
                continue
            table = e.tools[calls[i].tool]["operation"]["table"]
            row = calls[i].result[index]
            if column == e.pk(table) and isinstance(row, dict):
                singled.setdefault((table, row.get(column)), i)
    for k, call in enumerate(calls):
        tool = e.tools[call.tool]
        table, karg = tool["operation"]["table"], e.key_arg(tool)
        parsed = parse_provenance(call.provenance.get(karg, "")) if karg else None
        if parsed is None or parsed[0] >= len(calls):
            continue
        through = e.tools[calls[parsed[0]].tool]["operation"]["table"]
        found_at = singled.get((table, call.arguments.get(karg)))
        if through != table and found_at is not None and found_at != parsed[0]:
            return (
                "walks_back",
                f"call {k} ({call.tool}) reaches through {through} the {table} row call {found_at} found",
            )
    return None


def unsourced_user_value(draft: TaskDraft) -> Drop | None:
    """`unsourced_fact` when a gold call takes a value "from the user" that the user's facts do not hold: a
    reader found `confirmationId='boo_0013' [from the user]` in a task whose user knew only a reservation
    number. Every value the user gives is one they know (or hold back until asked)."""
    known = {_canonical(v) for v in draft.user_facts.values()}
    known |= {_canonical(x) for v in draft.user_facts.values() if isinstance(v, list) for x in v}
    for i, call in enumerate(draft.calls):
        for arg, value in call.arguments.items():
            if call.provenance.get(arg) == "user" and _canonical(value) not in known:
                return (
                    "unsourced_fact",
                    f"call {i} ({call.tool}): {arg}={value!r} comes from the user, whose facts do not hold it",
                )
    return None


def _canonical(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)


_ACT_VERBS = frozenset(
    "start stop launch run join leave activate deactivate enable disable cancel send submit trigger execute "
    "restart pause resume publish unpublish approve reject".split()
)


def read_by_act(spec: dict, calls: list[Any]) -> Drop | None:
    """`read_by_act` when a gold call reads through a tool named for an act: seed 92's readers found GoToTraining's
    `startTraining` (a read that returns the link to start a session) called to learn a training's name. A read named
    for an act is its act, never a lookup; a task that calls it is dropped."""
    tools = {t["name"]: t for t in spec.get("tools") or []}
    for i, call in enumerate(calls):
        tool = tools.get(call.tool) or {}
        name = (tool.get("metadata") or {}).get("original_name") or call.tool
        words = tokens(name)
        if tool.get("kind") == "read" and words and words[0] in _ACT_VERBS:
            return "read_by_act", f"call {i} ({call.tool}) is an act ({words[0]}), never a lookup"
    return None


_SANCTIONS = frozenset("suspend unsuspend ban unban activate reactivate lock unlock".split())


def sanctions_self(e: Any, calls: list[Any]) -> Drop | None:
    """`sanctions_self` when a call suspends, activates, locks or unlocks the caller's own account: seed 92's readers
    found "look up my account, activate it" asked by an administrator of their own signed-in row (Okta's one user is
    the session's). Deleting or deactivating one's own account is self-service, and stays. `e` is the task's `Env`."""
    session = e.session_row
    if not session:
        return None
    for i, call in enumerate(calls):
        tool = e.tools[call.tool]
        table = tool["operation"]["table"]
        karg = e.key_arg(tool)
        name = (tool.get("metadata") or {}).get("original_name") or call.tool
        if (
            not call.write
            or (e.spec.get("session") or {}).get("table") != table
            or not set(tokens(name)) & _SANCTIONS
        ):
            continue
        keyed = (tool["operation"].get("key") or {}).values()
        own = any(isinstance(b, dict) and "session" in b for b in keyed)
        if own or (karg and call.arguments.get(karg) == session.get(e.pk(table))):
            return "sanctions_self", f"call {i} ({call.tool}) acts on the caller's own account"
    return None


def two_scopes(e: Any, calls: list[Any]) -> Drop | None:
    """`two_scopes` when the user states two keys of the account their routes are scoped by (`finding.caller_scope`):
    GoToWebinar's "the registrant ... in my organizer 11 in the webinar ... in my organizer 7" is two people's
    request. A person has one account, one company, one organizer key. `e` is the task's `Env`."""
    scopes = {singular(t): t for t in e.spec["tables"] if caller_scope(e.spec, t)}
    if not scopes:
        return None
    held: dict[str, set[str]] = {}
    for call in calls:
        tool = e.tools[call.tool]
        for arg, value in call.arguments.items():
            if call.provenance.get(arg, "user").startswith("call[") or isinstance(value, dict | list):
                continue
            words = [w.lower() for w in tokens(arg)]
            named = key_entity(arg) or ("_".join(words[:-1]) if words[-1:] in (["key"], ["id"]) else "")
            table = addressed_table(e, tool, arg, value) or scopes.get(named)
            if table is not None and caller_scope(e.spec, table):
                held.setdefault(table, set()).add(str(value))
    two = next((t for t, values in held.items() if len(values) > 1), None)
    if two is not None:
        return (
            "two_scopes",
            f"the user states {len(held[two])} keys of {two}, the account every route is scoped by",
        )
    return None


def _leaves(value: Any) -> set[str]:
    """The scalar values a result holds, as text (`{"a": [1, {"b": "x"}]}` -> `{"1", "x"}`)."""
    if isinstance(value, dict):
        return set().union(*(_leaves(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_leaves(v) for v in value))
    return set() if value is None else {str(value)}


def needless_read(draft: TaskDraft) -> Drop | None:
    """`needless_read` when a read only hands later calls values the user already stated: seed 91's readers found
    `Bookings_GetReservation(reservationNumber=5, confirmationId='boo_0003')` before `Bookings_GetBooking` took
    `boo_0003` "from call 1's result", from a user who had said it. A read before a write that takes its key from
    it is an agent checking the row it changes; a read that a branch decides on, or whose result alone holds a
    fact the answer states, is needed too."""
    known = {_canonical(v) for v in draft.user_facts.values()}
    known |= {_canonical(x) for v in draft.user_facts.values() if isinstance(v, list) for x in v}
    decided = draft.branch["write"].arguments.values() if draft.branch else ()
    calls = draft.calls
    for i, call in enumerate(calls[:-1]):
        if call.write:
            continue
        uses = [
            (later, arg)
            for later in calls[i + 1 :]
            for arg, source in later.provenance.items()
            if (parsed := parse_provenance(source)) is not None and parsed[0] == i
        ]
        if not uses or any(
            later.write or _canonical(later.arguments.get(arg)) not in known for later, arg in uses
        ):
            continue  # a get before a write is an agent checking the row it changes (`journeys.read_first`)
        held = _leaves(call.result)
        if any(str(v) in held for v in decided):
            continue  # the branch reads the row this call returns
        after = set().union(*(_leaves(c.result) for c in calls[i + 1 :]))
        if any(str(a) in held and str(a) not in after for a in draft.answer_facts):
            continue
        return (
            "needless_read",
            f"call {i} ({call.tool}) only hands later calls values the user stated",
        )
    return None


#: Columns a create fills by itself (when it happened), never what the user asked for.
_STAMPS = re.compile(r"(^|_)(created|updated|modified|last_update|last_updated|timestamp)(_|$)|_at$|_on$")


def empty_create(spec: dict, calls: list[Any], rows: dict[str, list[dict]] | None = None) -> Drop | None:
    """`empty_create` when a create adds a row that holds nothing but its keys (an item added to a subscription
    with no SKU, quantity or price: "add an item to the subscription"): the request asks for nothing a person
    would, and its state change proves little. A table of keys alone (a follow, a membership) is not empty.
    `calls` are executed gold calls (`tool`, `result`, `write`); `rows`, the initial rows, tell the names every
    row of a table has."""
    tools = {t["name"]: t for t in spec.get("tools") or []}
    for i, call in enumerate(calls):
        op = (tools.get(call.tool) or {}).get("operation") or {}
        if not call.write or op.get("type") != "insert" or not isinstance(call.result, dict):
            continue
        tspec = (spec.get("tables") or {}).get(op.get("table")) or {}
        columns = tspec.get("columns") or {}
        content = [
            c
            for c, cs in columns.items()
            if c != tspec.get("primary_key")
            and not cs.get("references")
            and not re.search(r"(^|_)(id|ids|uuid|key)$", c)
            and not _STAMPS.search(c)
        ]
        present = [call.result[c] for c in content if c in call.result]
        given = [call.result[c] for c in content if c in call.result and c in (op.get("values") or {})]
        if (present and all(v in (None, "", [], {}) for v in present)) or (
            # a comment with no text (seed 91), with a status its API sets by default (seed 92: "approved")
            given and all(v in (None, "", [], {}) for v in given)
        ):
            return (
                "empty_create",
                f"call {i} ({call.tool}) adds a {op.get('table')} row with nothing but its keys",
            )
        head = singular(str(op.get("table") or "")).split("_")[-1]
        people = [
            c
            for c, cs in columns.items()
            if singular(str(cs.get("references") or "")).split("_")[-1] in PERSON_ENTITIES
            and c in call.result
        ]
        if head in _ROLES and people and all(call.result.get(c) in (None, "") for c in people):
            # seed 92's readers: "a project member with a cost and a rate but no user"
            return "empty_create", f"call {i} ({call.tool}) adds a {op.get('table')} row that names no one"
        what = _WHAT_IT_IS.get(head)
        parts = [c for c in columns if set(tokens(c)) & what] if what else []
        if parts and all(call.result.get(c) in (None, "") for c in parts):
            # seed 93's readers: a customer address with no street, city or zip; subscription items with no SKU
            return (
                "empty_create",
                f"call {i} ({call.tool}) adds a {op.get('table')} row without its {parts[0]}",
            )
        table_rows = (rows or {}).get(op.get("table")) or []
        named = [
            c
            for c in content
            if c.lower() in _OWN_NAMES
            and (
                c in (op.get("values") or {})
                # a name every row has, which this create cannot give (seed 93: Avaza's category with no name)
                or table_rows
                and sum(r.get(c) not in (None, "") for r in table_rows) >= 0.8 * len(table_rows)
            )
        ]
        if named and all(call.result.get(c) in (None, "") for c in named):
            # seed 92's readers: "a timesheet category with a cost and a rate but no name"
            return (
                "empty_create",
                f"call {i} ({call.tool}) adds a {op.get('table')} row without its {named[0]}",
            )
    return None


_WHAT_IT_IS = {
    "address": frozenset("street line1 address1 city zip postcode postal housenumber".split()),
    "item": frozenset("sku product variant offer article".split()),
}
"""The columns that say what an address or a line item is: a row with none of them is none."""
_ROLES = frozenset("member participant attendee assignee subscriber follower collaborator registrant".split())
_OWN_NAMES = frozenset("name title subject display_name displayname label".split())
"""Columns a row is called by: a create that can name its row and leaves them empty makes a thing no one can name."""
