"""Branches: a decision on what a read returns ("pay my order, unless it is already paid: then tell me when it was
paid"), a journey drawn by `envscale.tasks.chains` beside those of `envscale.tasks.journeys`.

`branch(e, rng)` reads a row and changes its status unless it is already in that status; the gold calls follow the
branch the row's state takes (the read and the write, or the read alone and a fact told). `fallback_rank` orders the
facts a person asks for when nothing is to be done: when the row got there first.
"""

from __future__ import annotations

import random
import re
from typing import Any

from .asks import askable
from .finding import knows_row_by
from .model import GoldCall, TaskDraft
from .naming import fact_name
from .prepared import Env


def _status_set(e: Env, tool: dict) -> tuple[str, str] | None:
    """`(column, argument)` of an update that sets one status-like column (a `status`/`state` column or an
    enum): the only column it sets, or the one status among columns its other optional arguments set (Azure's
    `PUT .../smartDetectorAlertRules/{name}` sets a rule's `state` beside its description and frequency; the
    branch's call sends the state alone)."""
    op = tool["operation"]
    sets = op.get("set") or {}
    if op["type"] != "update" or not sets:
        return None
    columns = e.spec["tables"][op["table"]]["columns"]
    named = [(c, b) for c, b in sets.items() if isinstance(b, str) and re.search(r"(^|_)(status|state)$", c)]
    enums = [(c, b) for c, b in sets.items() if isinstance(b, str) and (columns.get(c) or {}).get("enum")]
    # beside other values only a status or a state, never another enum ("change its service kind to Stateless
    # unless it is already Stateless")
    chosen = named if len(named) == 1 else enums if not named and len(enums) == 1 and len(sets) == 1 else []
    if not chosen:
        return None
    column, binding = chosen[0]
    required = set((tool.get("parameters") or {}).get("required") or [])
    if any(b in required for c, b in sets.items() if c != column and isinstance(b, str)):
        return None  # another value the call must send: no change of status alone
    return column, binding


_NO_STATE = frozenset(
    {"unknown", "none", "notspecified", "not_specified", "undefined", "invalid", "unspecified"}
)


def _passing(value: object) -> bool:
    """Whether a status is one a service passes through or reports, never one a person asks for: an event hub
    "Deleting" or "Renaming" (openapi-sample), an "Unknown" state."""
    word = str(value).strip().lower()
    return word in _NO_STATE or (len(word) > 5 and word.endswith("ing") and word.isalpha())


def _read_args(e: Env, get: dict, row: dict, rng: random.Random) -> dict:
    """The arguments of the get of `row`: its key, and where the get needs more (Azure's resource group and
    account, its `api-version`) the row's own, as a call on that row sends them."""
    garg = e.key_arg(get)
    if not set((get.get("parameters") or {}).get("required") or []) - {garg}:
        return {garg: row[e.pk(get["operation"]["table"])]}
    read = e.call(get, rng, row)
    return read[0] if read is not None else {}


def _alone(e: Env, tool: dict, args: dict, column: str) -> dict:
    """The arguments of a status change without the other values the update may set (a rule's new state,
    never a new description drawn beside it)."""
    sets = tool["operation"].get("set") or {}
    others = {b for c, b in sets.items() if c != column and isinstance(b, str)}
    return {a: v for a, v in args.items() if a not in others}


def fallback_rank(column: str, value: str) -> tuple:
    """Which fact of a row already in the state a person asks for instead: when it got there (`cancelled_at` of a
    cancelled booking), else when it last changed (`updated_at`), else another date, its creation last, then any
    other field: "cancel it unless it is already cancelled, in which case tell me when it was cancelled". `branch`
    asks for the column the state was reached at only; without one, the user asks to be told the state."""
    stem = re.sub(r"(ed|d)$", "", value.lower())[:5]
    dated = bool(re.search(r"date|_at$|time|_on$", column))
    own = dated and bool(stem) and column.lower().startswith(stem)
    changed = dated and bool(re.match(r"(updated|modified|last_modified|changed|last_changed)(_|$)", column))
    created = dated and column.lower().startswith(("created", "creation", "create_"))
    return (not own, not changed, not dated, created, column)


def branch(e: Env, rng: random.Random) -> TaskDraft | None:
    """A decision on what a read returns: "cancel my appointment unless it is already cancelled, in which
    case tell me its date". A status change (an update whose operation fixes a column's value) on a row
    read first; the gold calls follow the branch the row's state takes: the read and the write when the
    row is not yet in that state (scored on the final state), the read alone otherwise (scored on the
    unchanged state and the fact told)."""
    fixed = [
        t
        for t in e.writes
        if e.key_arg(t)
        and t["operation"]["table"] in e.gets
        and (len(t["operation"].get("fixed") or {}) == 1 or _status_set(e, t))
    ]
    if not fixed:
        return None
    tool = rng.choice(fixed)
    op = tool["operation"]
    table = op["table"]
    built = e.call(tool, rng)  # a row the write accepts (its preconditions hold)
    if op.get("fixed"):
        column, value = next(iter(op["fixed"].items()))
    else:  # the status the update sets, as this call sets it
        column, arg = _status_set(e, tool)
        if built is None or arg not in built[0]:
            return None
        value = built[0][arg]
        built = (_alone(e, tool, built[0], column), built[1])
    if isinstance(value, dict | list | bool) or value is None or _passing(value):
        return None
    get = e.gets[table]
    garg = e.key_arg(get)
    e.env.restore(e.initial)
    pk = e.pk(table)
    done = [  # rows already in that state, that the user may read (their own, where the get checks it)
        r
        for r in e.rows[table]
        if r.get(column) == value and e.env.step(get["name"], _read_args(e, get, r, rng)).get("ok")
    ]
    take = "tell" if done and (built is None or rng.random() < 0.5) else "act"
    if take == "act" and (built is None or built[1] is None or built[1].get(column) == value):
        return None
    row = rng.choice(done) if take == "tell" else built[1]
    asks = [
        c
        for c, v in row.items()
        if c not in (pk, column)
        and isinstance(v, str | int | float)
        and not isinstance(v, bool)
        and v != ""
        and not c.endswith("_id")
        and askable(table, c, v)
        and not knows_row_by(e, table, c, v)  # "tell me its name" of the ad the user named
    ]
    ask = min(asks, key=lambda c: fallback_rank(c, str(value))) if asks else column
    if fallback_rank(ask, str(value))[0]:
        # no column says when it got there (`cancelled_at`): the user asks to be told it is so, never "then
        # tell me when it was updated" or "its latest direct debit date" (readers found those contrived)
        ask = column
    karg = e.key_arg(tool)
    gargs = _read_args(e, get, row, rng)
    if gargs.get(garg) != row[pk]:
        return None
    args = dict(built[0]) if built else {karg: row[pk]}
    if take == "tell":  # the write the user would have asked for, on the row told of (its own group, account)
        args.update({a: v for a, v in gargs.items() if a in args})
    rest = {a: v for a, v in args.items() if a != karg}
    facts: dict[str, Any] = {}
    prov = e.provenance_user(tool, rest, facts)
    gprov = e.provenance_user(get, {a: v for a, v in gargs.items() if a != garg}, facts)
    facts[fact_name(garg, get, e.spec)] = row[pk]
    write = GoldCall(tool["name"], {karg: row[pk], **rest}, {karg: f"call[0].{pk}", **prov}, write=True)
    calls = [GoldCall(get["name"], gargs, {**gprov, garg: "user"})]
    if take == "act":
        calls.append(write)
    draft = TaskDraft(
        e.spec["name"], "write" if take == "act" else "mixed", calls, shape="branch", user_facts=facts
    )
    draft.branch = {"write": write, "column": column, "value": value, "ask": ask, "taken": take}
    if take == "tell":
        draft.answer_facts = [str(row[ask])]
        draft.notes.append(f"branch: the {table} row is already {value}; the answer is its {ask}")
    else:
        draft.notes.append(f"branch: the {table} row is not {value} yet; the write is done")
    return draft
