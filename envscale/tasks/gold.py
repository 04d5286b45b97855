"""The gold run: a candidate's calls executed on the environment's initial state, for its gold outcome.

`execute(e, draft)` runs the gold calls in order on a fresh copy of the initial state (`Environment` is
the only execution path). Before each call its arguments are aligned with what the chain has read
(`align`: an argument bound to no column that names a field of an earlier result takes that value) and
checked against it (`flow_disagrees`, `contradicts_row`, and every `call[i].FIELD` provenance resolved
in the results so far). It records each result, the final state hash and diff, and the answer facts of
a read (`answer_values`), and returns `None`, or the `Drop` of what went wrong:
`("gold_run_failed", "call 0 (cancel_order) failed: ...")`, `("writes_change_nothing", ...)`,
`("nothing_to_ask", ...)`, `("data_flow_broken", ...)`, `("policy_not_enforced", ...)`.

Example:

```python
>>> from envscale.env import load_spec
>>> from envscale.tasks.build import TasksConfig
>>> from envscale.tasks.gold import execute
>>> from envscale.tasks.model import GoldCall, TaskDraft
>>> from envscale.tasks.prepared import Env
>>> e = Env({"spec": load_spec("tests/fixtures/envs/shop.yaml")}, TasksConfig())
>>> call = GoldCall("get_order", {"order_id": "ord_0003"}, {"order_id": "user"})
>>> draft = TaskDraft("shop", "read", [call], user_facts={"order number": "ord_0003"})
>>> execute(e, draft), draft.answer_facts
(None, ['delivered'])
>>> e.env.close()
```
"""

from __future__ import annotations

import contextlib
import random
import re
from collections import Counter
from typing import Any

from ..env.data import column_meaning, parse_now, schema_accepts
from ..judge import resolve_provenance
from ..words.inflect import singular
from ..words.names import tokens
from ..words.semantics import key_entity, route_parent_column
from .arguments import addressed_row, drop_argument
from .asks import askable, in_path, two_ids_for_one
from .model import Drop, GoldCall, TaskDraft
from .naming import fact_name, one_value, tool_bindings
from .prepared import Env
from .wording import squash

_ANSWER_COLUMNS = (
    "status",
    "email",
    "full_name",
    "name",
    "title",
    "subject",
    "total",
    "price",
    "unit_price",
    "amount",
    "balance",
    "quantity",
    "on_hand",
    "phone",
    "city",
    "due",
    "due_date",
    "priority",
    "category",
)
READINGS = frozenset(
    "time date datetime clock timestamp timezone weather forecast temperature rate price quote".split()
)
"""Tables of readings rather than things (`get_current_time(timezone)` keeps `times`): "how many times with
timezone America/Chicago there are" counts nothing a person counts."""


def answer_values(
    result: Any, rng: random.Random, n: int = 1, given: set[str] = frozenset(), table: str | None = None
) -> list[str]:
    """Up to `n` scalar values of a result row a person would ask about (never one the user gave)."""
    row = result[0] if isinstance(result, list) and result else result
    if not isinstance(row, dict):
        return [str(result)] if isinstance(result, int | float) and not isinstance(result, bool) else []
    # what the user named the row by is never asked again under another column ("the email address of the
    # expense whose user email is jcarroll@example.org")
    said = {_meaning(table, c, v) for c, v in row.items() if str(v) in given} & _SAID_ONCE
    # "the email address of the timesheet" whose `email` and `user_email` differ: which one? Neither is asked
    meanings = Counter(_meaning(table, c, v) for c, v in row.items() if isinstance(v, str) and v)
    said |= {m for m, k in meanings.items() if k > 1 and m in _ONE_A_ROW}
    row = {
        c: v
        for c, v in row.items()
        if str(v) not in given
        and not isinstance(v, bool)
        and askable(table, c, v)
        and _meaning(table, c, v) not in said
    }
    preferred = [c for c in _ANSWER_COLUMNS if isinstance(row.get(c), str | int | float) and row.get(c) != ""]
    others = [
        c
        for c, v in row.items()
        if c not in preferred
        and isinstance(v, str | int | float)
        and not isinstance(v, bool)
        and not c.endswith("_id")
        and v != ""
        and len(str(v)) <= 60
    ]
    chosen = preferred[:n] or rng.sample(others, min(n, len(others)))
    return [str(row[c]) for c in chosen]


_ONE_A_ROW = frozenset(("email", "phone", "person", "username"))
"""Meanings a row holds one of: two columns of one (`email`, `user_email`) that differ make "the email of the row"
a question without an answer."""
_SAID_ONCE = _ONE_A_ROW | {"named:label", "title:generic"}
"""Meanings of a value the user names a row by that another column of the row repeats (`email`, `user_email`; a
conversation's `display_name` beside its `name`: "the name of the conversation named ..." asks what was said)."""


def _meaning(table: str | None, column: str, value: Any) -> str:
    kind = "number" if isinstance(value, int | float) and not isinstance(value, bool) else "string"
    return column_meaning(table or "", column, {"type": kind})


# -------------------------------------------------------------------------------------- data flow


def matching_field(arg: str, row: dict, column: str | None = None) -> str | None:
    """The field of `row` that names what `arg` names (`organizerKey` -> `organizer_key`), if any; with
    `column`, that column when the row has it."""
    if column is not None:
        return column if column in row else None
    key = squash(arg)
    for column in row:
        if squash(column) == key:
            return column
    return None


def _flowing_rows(draft: TaskDraft, i: int, results: list[Any]) -> list[tuple[str, dict]]:
    """The earlier result rows call `i` reads from, as `(provenance prefix, row)`: the rows its own links
    point into first, then every other earlier row (a get's result, a one-row list), latest first."""
    out: list[tuple[str, dict]] = []
    for source in draft.calls[i].provenance.values():
        match = re.match(r"^call\[(\d+)\](?:\[(\d+)\])?", source)
        if not match or int(match.group(1)) >= len(results):
            continue
        result = results[int(match.group(1))]
        if match.group(2) is not None and isinstance(result, list) and int(match.group(2)) < len(result):
            result = result[int(match.group(2))]
        if isinstance(result, dict):
            out.append((match.group(0), result))
    for j in range(min(i, len(results)) - 1, -1, -1):
        result = results[j]
        if isinstance(result, list) and len(result) == 1:
            out.append((f"call[{j}][0]", result[0]))
        elif isinstance(result, dict):
            out.append((f"call[{j}]", result))
    return [(p, r) for p, r in out if isinstance(r, dict)]


def align(e: Env, draft: TaskDraft, i: int, results: list[Any]) -> Drop | None:
    """Give every argument of call `i` that is bound to no column, yet names a field of a row the chain has
    read (an earlier result, the row the call addresses) or a fact another call states, that value, with
    its provenance (`call[j].FIELD` or `user`): `getWebinar(webinarKey=call[0][0].webinar_key,
    organizerKey=...)` takes the organizer of that webinar, never a random one. A value the argument's
    schema refuses drops the task (`data_flow_broken`)."""
    call = draft.calls[i]
    tool = e.tools[call.tool]
    props = (tool.get("parameters") or {}).get("properties") or {}
    binds = tool_bindings(tool)
    rows = _flowing_rows(draft, i, results)
    addressed = addressed_row(e, call)
    path = ((tool.get("metadata") or {}).get("annotations") or {}).get("path")
    stated = {
        squash(a): v
        for c in draft.calls[:i]
        for a, v in c.arguments.items()
        if not c.provenance.get(a, "user").startswith("call[")
    }
    for arg in list(call.arguments):
        if call.provenance.get(arg, "user").startswith("call[") or one_value(props.get(arg)):
            continue  # (an `api-version` is the client's, never a value a row or a user names)
        # a path argument an update binds to a column names the row it is in (`/budgets/{budget_id}/...`)
        path_set = (
            addressed is not None and arg in binds and binds[arg].place == "set" and in_path(props.get(arg))
        )
        if arg in binds and not path_set:
            continue
        found = _named_value(arg, rows, addressed, stated, binds[arg].column if path_set else None)
        parent = None if arg in binds else route_parent_column(path, arg)
        if (
            found is None and parent is not None
        ):  # `/usergroups/{groupid}/members`: the member's `usergroup_id`
            found = _named_value(arg, rows, addressed, {}, parent)
        if found is None:
            continue
        source, value = found
        if not schema_accepts(props.get(arg, {}), value):
            return (
                "data_flow_broken",
                f"call {i}: {call.tool}.{arg} cannot take {value!r}, the value it names ({source})",
            )
        old = call.arguments[arg]
        call.arguments[arg], call.provenance[arg] = value, source
        name = fact_name(arg, tool, e.spec)
        if source == "user":
            draft.user_facts[name] = value
        elif name in draft.user_facts and draft.user_facts[name] == old:
            told = _told_elsewhere(e, draft, call, name)
            if told is None:
                del draft.user_facts[name]
            else:
                draft.user_facts[name] = told
    return None


def _told_elsewhere(e: Env, draft: TaskDraft, call: GoldCall, name: str) -> Any:
    """The value another call takes "from the user" as the fact `name`, or `None`: the fact stays, with that
    value, when this call's argument of that name flows from a result. Dropping it left a get's
    `confirmationId` "from the user" in a task whose user never knew the confirmation id."""
    for c in draft.calls:
        for a, prov in c.provenance.items():
            if c is not call and prov == "user" and fact_name(a, e.tools[c.tool], e.spec) == name:
                return c.arguments.get(a)
    return None


def _named_value(
    arg: str, rows: list[tuple[str, dict]], addressed: dict | None, stated: dict, column: str | None
) -> tuple[str, Any] | None:
    """`(provenance, value)` of the field `arg` names: in a row the chain read, in the row the call
    addresses (the user knows it), or among the facts an earlier call states; `None` when none has it."""
    for prefix, row in rows:
        field = matching_field(arg, row, column)
        if field is not None and row[field] is not None:
            return f"{prefix}.{field}", row[field]
    if addressed is not None:
        field = matching_field(arg, addressed, column)
        if field is not None and addressed[field] is not None:
            return "user", addressed[field]
    if squash(arg) in stated:
        return "user", stated[squash(arg)]
    return None


def flow_disagrees(e: Env, draft: TaskDraft, i: int, results: list[Any]) -> Drop | None:
    """Whether an argument of call `i` bound to no column disagrees with the same field of a row the chain
    read: `getWebinar(organizerKey=1)` after the webinar's `organizer_key` was 12 (`data_flow_broken`).
    Arguments bound to a column are checked by their provenance (`execute`) or are values the request sets
    or names on purpose."""
    call = draft.calls[i]
    binds = tool_bindings(e.tools[call.tool])
    for arg, value in call.arguments.items():
        if arg in binds:
            continue
        for prefix, row in _flowing_rows(draft, i, results):
            column = matching_field(arg, row)
            if column is None or row[column] is None:
                continue
            if row[column] != value:
                return (
                    "data_flow_broken",
                    f"call {i}: {call.tool}.{arg} = {value!r} disagrees with {prefix}.{column} = {row[column]!r}",
                )
            break
    return None


_SHARED_HEADS = frozenset(
    "location city country address region place timezone zone currency language locale venue".split()
)
"""What a row shares with the thing that holds it: a sculpture's `location` is its museum's location, so
"the museum location is Pittsburgh, PA" about a sculpture in Kansas City contradicts the row. (A `name`
is the row's own: an `organization_name` is never the row's `name`.)"""


def contradicts_row(e: Env, draft: TaskDraft, i: int, results: list[Any]) -> Drop | None:
    """A fact the user states that contradicts the row the call reads, or `None`. An argument bound to no
    column whose name ends with a column of that row (the row the call addresses, or one an earlier call
    read) naming a place, a zone, a currency or a language (`_SHARED_HEADS`) says that column's value, even
    where `align` gave it another field of the row (`museum_location`, when the row's data disagree):
    `get_sculpture_details(sculpture_id=10, museum_location="Pittsburgh, PA")` on a sculpture whose
    `location` is Kansas City, MO reads "The museum location is Pittsburgh, PA", which the row denies. An
    optional one is left out; a required one drops the task (`contradicts_row`). Keys (`*_id`) are left to
    the data-flow checks."""
    call = draft.calls[i]
    tool = e.tools[call.tool]
    required = set((tool.get("parameters") or {}).get("required") or [])
    binds = tool_bindings(tool)
    rows = [row for _, row in _flowing_rows(draft, i, results)]
    addressed = addressed_row(e, call)
    if addressed is not None:
        rows.insert(0, addressed)
    pk = e.pk(tool["operation"]["table"])
    for arg in list(call.arguments):
        value = call.arguments[arg]
        if arg in binds or call.provenance.get(arg, "user").startswith("call[") or key_entity(arg):
            continue
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            continue
        words = tokens(arg)
        if not words or words[-1] not in _SHARED_HEADS:
            continue
        for row in rows:
            said = next(
                (
                    c
                    for k in range(len(words) - 1, 0, -1)
                    for c in row
                    if c != pk and tokens(c) == words[-k:] and not key_entity(c)
                ),
                None,
            )
            if said is None or row[said] is None or isinstance(row[said], dict | list | bool):
                continue
            if str(row[said]).casefold() == str(value).casefold():
                break
            if arg in required:
                return (
                    "contradicts_row",
                    f"{call.tool}.{arg} = {value!r}, but the row's {said} is {row[said]!r}",
                )
            drop_argument(e, draft, call, arg)
            break
    return None


def _flows(call: Any, i: int, results: list[Any]) -> Drop | None:
    """Whether every `call[j].FIELD` argument of call `i` holds the value at that path of the results."""
    for arg, source in call.provenance.items():
        if source.startswith("call["):
            try:
                flowed = resolve_provenance(source, results)
            except (IndexError, KeyError, TypeError, ValueError):
                return "data_flow_broken", f"call {i}: {source} does not exist in the earlier results"
            if flowed != call.arguments.get(arg):
                return (
                    "data_flow_broken",
                    f"call {i}: {arg} = {call.arguments.get(arg)!r} does not flow from {source} ({flowed!r})",
                )
    return None


# -------------------------------------------------------------------------------------- execute


def execute(e: Env, draft: TaskDraft) -> Drop | None:
    """Run the gold calls on the initial state; record results, hash and diff; a `Drop` on failure."""
    e.env.restore(e.initial)
    results: list[Any] = []
    for i, call in enumerate(draft.calls):
        for arg, source in call.provenance.items():  # a key known only once an earlier call made its row
            if call.arguments.get(arg) is None and source.startswith("call["):
                with contextlib.suppress(IndexError, KeyError, TypeError, ValueError):
                    call.arguments[arg] = resolve_provenance(source, results)
        drop = (
            align(e, draft, i, results)
            or flow_disagrees(e, draft, i, results)
            or contradicts_row(e, draft, i, results)
            or _flows(call, i, results)
        )
        if drop is not None:
            return drop
        obs = e.env.step(call.tool, call.arguments)
        if not obs["ok"]:
            return "gold_run_failed", f"call {i} ({call.tool}) failed: {obs['error']}"
        if call.write and _only_the_clock(e.env.last_changes(), parse_now(e.spec).date().isoformat()):
            # seed 94's readers: "start it" of an order already started ("the state does not show the order as
            # started"): a write that changes nothing, or nothing but the time its row was changed, is no request
            return "write_changes_nothing", f"call {i} ({call.tool}) changes nothing but the clock"
        call.result = obs.get("result")
        results.append(call.result)
    drop = two_ids_for_one(draft)
    if drop:
        return drop
    if draft.kind == "policy":
        attempt = draft.policy_rule["attempt"]
        obs = e.env.step(attempt["tool"], attempt["arguments"])
        if obs["ok"] or obs.get("code") != "invalid_state":
            return (
                "policy_not_enforced",
                f"the forbidden call {attempt['tool']} was not refused ({obs.get('code')})",
            )
        draft.policy_rule["refusal"] = obs["error"]
    draft.gold_state_hash = e.env.state_hash()
    draft.gold_diff = e.env.diff(e.initial)
    draft.seed = e.seed
    if draft.n_writes and draft.gold_state_hash == e.initial_hash:
        return "writes_change_nothing", f"the state after {draft.n_writes} write(s) is the initial state"
    if draft.kind in ("read", "mixed") and not draft.answer_facts:
        drop = _answer(e, draft)
        if drop:
            return drop
    draft.required = draft.required or [c.tool for c in draft.calls if c.write]
    return None


def _only_the_clock(changes: dict, today: str) -> bool:
    """Whether a call's changes (`Environment.last_changes`) only stamp rows with the time of the call: no row added
    or removed, and every changed field now holds today's date or moment (or nothing changed at all)."""
    for table in changes.values():
        if table.get("added") or table.get("removed"):
            return False
        for change in table.get("changed") or []:
            before, after = change.get("before") or {}, change.get("after") or {}
            for column, value in after.items():
                if before.get(column) != value and not (isinstance(value, str) and value.startswith(today)):
                    return False
    return True


def _answer(e: Env, draft: TaskDraft) -> Drop | None:
    """The answer facts of a read or mixed task: the values of the read row a person asks about, or how
    many rows the read found; `nothing_to_ask` when there is no question in it."""
    source = draft.calls[-1] if draft.kind == "read" else draft.calls[draft.lookups]
    table = e.tools[source.tool]["operation"]["table"]
    table_rows = len(e.rows.get(table, []))
    if isinstance(source.result, list) and len(source.result) >= table_rows > 1:
        return "nothing_to_ask", "the read returns every row (its filters narrow nothing)"
    if isinstance(source.result, list) and len(source.result) > 1 and singular(table) in READINGS:
        return "nothing_to_ask", "how many readings (times, dates, rates) match is not a question"
    if isinstance(source.result, list) and len(source.result) > 1:  # several rows: ask how many
        draft.answer_facts = [str(len(source.result))]
        draft.notes.append("answer: the number of rows found")
    else:
        given = {str(v) for c in draft.calls for v in c.arguments.values()} | {
            str(v) for v in draft.user_facts.values()
        }
        draft.answer_facts = answer_values(
            source.result, random.Random(draft.signature()), given=given, table=table
        )
    if not draft.answer_facts:
        return "nothing_to_ask", "the reads return nothing a person would ask about"
    return None
