"""Calls a chain does not need, removed from it: a `get` of a row an earlier list returned whole, or a list read again
for such a row (`drop_refetch`),
a lookup the chain makes twice (`merge_repeated_lookups`). The calls that read a removed call read the row where
the chain already has it; `joins` tells whether a chain is a DAG (two independent lookups feeding one call).

An agent that lists the contacts to find one by name reads its phone number off the list: a `get_contact` after it
fetches what the agent holds already, and teaches a needless call.

Example:

```python
>>> from envscale.tasks.model import GoldCall, TaskDraft
>>> from envscale.tasks.rereads import merge_repeated_lookups
>>> calls = [
...     GoldCall("list_budgets", {}, {}),
...     GoldCall("list_budgets", {}, {}),
...     GoldCall("delete_budget", {"budget_id": "b1"}, {"budget_id": "call[1][0].budget_id"}, write=True),
... ]
>>> draft = TaskDraft("ynab", "write", calls)
>>> draft.lookups = 2
>>> merge_repeated_lookups(draft)
>>> [c.tool for c in draft.calls], draft.calls[1].provenance
(['list_budgets', 'delete_budget'], {'budget_id': 'call[0][0].budget_id'})
>>> assert draft.lookups == 1  # the chain's own calls start after one lookup now
```
"""

from __future__ import annotations

from typing import Any

from ..judge.provenance import (
    parse_provenance,
    provenance_call,
    provenance_path,
    read_calls,
    shift_provenance,
)
from .model import GoldCall, TaskDraft
from .prepared import Env


def merge_repeated_lookups(draft: TaskDraft) -> None:
    """One lookup for a row the chain looks up twice (a budget found for its transactions, then again for the
    write's own `budget_id`): the later identical read is dropped and its readers read the first."""
    k = 1
    while k < draft.lookups:
        call = draft.calls[k]
        same = next(
            (
                i
                for i in range(k)
                if (draft.calls[i].tool, draft.calls[i].arguments) == (call.tool, call.arguments)
            ),
            None,
        )
        if same is None:
            k += 1
        else:
            _remove_call(draft, k, f"call[{same}]")


def joins(calls: list[GoldCall]) -> bool:
    """Whether some call draws on two earlier calls neither of which depends on the other (two lookups
    feeding one write: a DAG, not a line)."""
    above: list[set[int]] = []
    for call in calls:
        sources = set(read_calls(call.provenance))
        sources = {j for j in sources if j < len(above)}
        for j in sources:
            for k in sources:
                if j < k and j not in above[k] and k not in above[j]:
                    return True
        above.append(set().union(sources, *(above[j] for j in sources)))
    return False


def _repointed(source: Any, gone: int, to: str) -> Any:
    """`source` once gold call `gone` is removed: a path into its result reads `to` (the same row in an earlier
    list) instead, a path into a later call moves one back."""
    at = provenance_call(source)
    if at is None or at < gone:
        return source
    if at == gone:
        return to + source[len(f"call[{gone}]") :]
    return shift_provenance(source, -1)


def _remove_call(draft: TaskDraft, k: int, to: str) -> None:
    """Remove gold call `k`; every path into its result reads `to` instead (see `_repointed`)."""
    others: list[dict] = []
    if (draft.branch or {}).get("write") is not None and all(
        c is not draft.branch["write"] for c in draft.calls
    ):
        others.append(draft.branch["write"].provenance)  # the write a `tell` branch states, not runs
    attempt = (draft.policy_rule or {}).get("attempt")
    if isinstance(attempt, dict) and isinstance(attempt.get("provenance"), dict):
        others.append(attempt["provenance"])
    del draft.calls[k]
    for provenance in [c.provenance for c in draft.calls] + others:
        for a, p in list(provenance.items()):
            provenance[a] = _repointed(p, k, to)
    if k < draft.lookups:
        draft.lookups -= 1


def drop_refetch(e: Env, draft: TaskDraft) -> int:
    """Drop every `get` that fetches again a row an earlier list or get of the chain returned whole (a contact found
    by name in `list_contacts`, then `get_contact` of its id; the caller's own row read by `get_me`, then by its
    id), and every list that a later call reads only for one row an earlier call returned (Postman's APIs found by
    name, then listed again to find the same API for its versions): an agent reads the row where the call before
    gave it. The calls that read the get (or the list's row) read the earlier row instead. Run on an executed draft
    after its wording (the request still says "look up the contact and tell me its phone"); returns how many calls
    were dropped."""
    dropped = 0
    k = 0
    while k < len(draft.calls):
        call = draft.calls[k]
        tool = e.tools[call.tool]
        op = tool["operation"]
        again = _listed_before(e, draft, k) if op["type"] == "list" else None
        if again is not None:
            # Postman's `getAllApIs(name="Product Apis")`, then `getAllApIs()` to find the same API for its versions
            # (seed 94's readers: "the gold calls getAllApIs twice, which is redundant")
            for later in draft.calls[
                k + 1 :
            ]:  # `call[k][j].F` reads the row `again` holds: `call[k].F` first
                for a, source in later.provenance.items():
                    parsed = parse_provenance(source)
                    if parsed is not None and parsed[0] == k:
                        later.provenance[a] = provenance_path(k, parsed[1][1:])
            _remove_call(draft, k, again)
            dropped += 1
            continue
        garg = e.key_arg(tool)
        head = parse_provenance(call.provenance.get(garg)) if op["type"] == "get" and garg else None
        if head is None or head[0] >= k:
            k += 1
            continue
        i, path = head
        source = draft.calls[i]
        kind = e.tools[source.tool]["operation"]["type"]
        if len(path) == 2 and isinstance(path[0], int) and kind == "list":
            j = path[0]
            listed = source.result[j] if isinstance(source.result, list) and j < len(source.result) else None
            at = f"call[{i}][{j}]"
        elif len(path) == 1 and kind == "get":  # the caller's own row read by `get_me`, then by its id again
            listed, at = source.result, f"call[{i}]"
        else:
            k += 1
            continue
        same = (
            e.tools[source.tool]["operation"]["table"] == op["table"]
            and isinstance(listed, dict)
            and isinstance(call.result, dict)
            and all(listed.get(c, object()) == v for c, v in call.result.items())
        )
        if not same:
            k += 1
            continue
        _remove_call(draft, k, at)
        if call.tool in draft.required and all(c.tool != call.tool for c in draft.calls):
            # the read a policy task requires (check the order before refusing) is the list that found it
            draft.required = list(dict.fromkeys(source.tool if t == call.tool else t for t in draft.required))
        dropped += 1
    if dropped:
        draft.notes.append(f"dropped {dropped} read(s) of a row a call before had returned")
        if draft.shape == "dag" and not joins(draft.calls):
            draft.shape = "linear"
        if draft.shape == "linear" and len(draft.calls) == 1:
            draft.shape = "single"
    return dropped


def _listed_before(e: Env, draft: TaskDraft, k: int) -> str | None:
    """Where an earlier call of the chain holds whole the one row a list call `k` is read for (`call[i][n]` or
    `call[i]`); `None` when a later path into call `k` reads anything but that one row, or no earlier read of the same
    table returned it."""
    call = draft.calls[k]
    table = e.tools[call.tool]["operation"]["table"]
    pk = e.pk(table)
    rows = set()
    for c in draft.calls[k + 1 :]:
        for source in c.provenance.values():
            parsed = parse_provenance(source)
            if parsed is None or parsed[0] != k:
                continue
            if len(parsed[1]) < 2 or not isinstance(parsed[1][0], int):
                return None  # the list read as a whole (its count, its first page)
            rows.add(parsed[1][0])
    if (
        (draft.branch or {}).get("write") is not None
        or (draft.policy_rule or {}).get("attempt")
        or len(rows) != 1
        or not isinstance(call.result, list)
    ):
        return None
    (j,) = rows
    row = call.result[j] if j < len(call.result) else None
    if not isinstance(row, dict) or row.get(pk) is None:
        return None
    for i, earlier in enumerate(draft.calls[:k]):
        if e.tools[earlier.tool]["operation"].get("table") != table:
            continue
        found = earlier.result if isinstance(earlier.result, list) else [earlier.result]
        for n, held in enumerate(found[: j + 1]):  # never deeper in a list than the later read found it
            if (
                isinstance(held, dict)
                and held.get(pk) == row[pk]
                and all(held.get(c) == v for c, v in row.items())
            ):
                return provenance_path(i, [n] if isinstance(earlier.result, list) else [])
    return None
