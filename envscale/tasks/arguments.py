"""The arguments a person states: a built chain's calls, tidied before they run.

`tidy(e, draft, rng)` leaves out of the gold calls the arguments a person would never state (a
placeholder, a deprecated or optional argument bound to no column, an option, a name holding a key),
keeps each write to the few values a person asks to change at once (the rest of a full-row update
flows from the read before it), and runs the checks on what each call does (`envscale.tasks.asks`). It
returns `None`, or the `Drop` of the first call that cannot be posed: `("placeholder_argument",
"create_order.optional_param is required but says nothing a person states")`.

`drop_argument` leaves one argument out and takes its fact from the user when no other call states it
(`envscale.tasks.gold.contradicts_row` uses it too).

Example:

```python
>>> import random
>>> from envscale.env import load_spec
>>> from envscale.tasks.build import TasksConfig
>>> from envscale.tasks.arguments import tidy
>>> from envscale.tasks.model import GoldCall, TaskDraft
>>> from envscale.tasks.prepared import Env
>>> e = Env({"spec": load_spec("tests/fixtures/envs/shop.yaml")}, TasksConfig())
>>> call = GoldCall("cancel_order", {"order_id": "ord_0003"}, {"order_id": "user"}, write=True)
>>> tidy(e, TaskDraft("shop", "write", [call]), random.Random(0)) is None
True
>>> e.env.close()
```
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from ..env.data import column_meaning, schema_accepts, stock_text
from ..words.inflect import singular
from ..words.names import tokens
from ..words.semantics import PERSON_ENTITIES, argument_role, key_entity
from .asks import (
    KEY_SHAPE,
    api_address,
    bare_id_value,
    clock_rows,
    creates_from_nothing,
    in_path,
    loose_function,
    operation_table,
    picks_new_key,
    read_aloud,
    references_disagree,
    session_row_named,
    sets_what_no_one_asks,
    verb_as_value,
)
from .finding import addressed_table
from .model import Drop, GoldCall, TaskDraft
from .naming import fact_name, tool_bindings
from .prepared import Env
from .wording import is_placeholder

MAX_STATED = 2
"""Most optional values one write states (the columns an update sets, the fields an insert fills beyond
the required ones): a person asks for one or two changes at a time, not six."""
MAX_REQUIRED_STATED = 4
"""Most values one write may need stated at all: a request that must dictate more is dropped."""
_NAME_WORDS = frozenset(("name", "title", "label", "displayname", "username"))
_DEPRECATED = re.compile(r"\b(deprecated|obsolete|ignored|no longer (used|supported))\b", re.IGNORECASE)
_VERB_TABLES = frozenset(
    "create delete update get list remove patch put post batch add set login logout signin signout".split()
)
"""Tables named after a verb (`creates`, `deletes`): the environment stored a call as a row, and no request
a person makes reads as "create a new delete"; nor "add a login to the user with password ..." (Docker Hub's
`POST /users/login` made `logins` rows, seed 94's readers)."""


def _deprecated(arg: str, schema: Any) -> bool:
    """An argument the API itself says not to use (`timeToRefill (deprecated)`, "Deprecated and ignored")."""
    schema = schema if isinstance(schema, dict) else {}
    text = f"{arg} {schema.get('description') or ''}"
    return schema.get("deprecated") is True or _DEPRECATED.search(text) is not None


def _names_a_key(arg: str, value: Any) -> bool:
    """A name argument holding a key (`project_name: "pro_0008"`): a person says a name, not a key."""
    words = tokens(arg)
    return (
        bool(words)
        and (words[-1] in _NAME_WORDS or "".join(words[-2:]) in _NAME_WORDS)
        and isinstance(value, str)
        and KEY_SHAPE.match(value) is not None
    )


def _names_a_row(e: Env, bind: Any, arg: str, schema: Any) -> bool:
    """An argument that says which row a write is about (`customer_id` of a new order): never one of the
    values `MAX_STATED` counts."""
    column = (e.spec["tables"].get(bind.table) or {}).get("columns", {}).get(bind.column) or {}
    return bool(column.get("references")) or argument_role(arg, schema) in ("key", "reference")


def _misnamed(arg: str, bind: Any) -> bool:
    """A key or filter argument whose name names another thing than the column it addresses
    (`user_id` bound to `alarm_time`): the request could only say one of the two."""
    if bind is None or bind.place not in ("key", "filter") or not bind.column:
        return False
    entity = key_entity(arg)
    return bool(entity) and not {singular(w) for w in entity.split("_")} & {
        singular(w) for w in tokens(bind.column)
    }


def drop_argument(e: Env, draft: TaskDraft, call: GoldCall, arg: str) -> None:
    """Leave `arg` out of `call`, and its fact out of what the user knows unless another call states it."""
    value = call.arguments.pop(arg)
    call.provenance.pop(arg, None)
    name = fact_name(arg, e.tools[call.tool], e.spec)
    still = any(
        fact_name(a, e.tools[c.tool], e.spec) == name and v == value
        for c in draft.calls
        for a, v in c.arguments.items()
        if not c.provenance.get(a, "user").startswith("call[")
    )
    if not still and name in draft.user_facts and draft.user_facts[name] == value:
        del draft.user_facts[name]


def _copies_a_referenced_name(e: Env, tool: dict, call: GoldCall, binds: dict, arg: str) -> bool:
    """Whether a user-stated argument sets the name of a row another argument of the call references: Avaza's
    `Project_Post(CompanyIDFK=9, CompanyName="Barr Inc")`, said "a project for the company named "Newman, Okafor and
    Cameron" with the company name "Barr Inc"" (seed 88's readers). That name is the referenced row's own."""
    bind = binds.get(arg)
    if bind is None or not bind.column or call.provenance.get(arg, "user").startswith("call["):
        return False
    words = tokens(bind.column)
    if len(words) < 2 or words[-1] not in ("name", "title"):
        return False
    named = "".join(singular(w) for w in words[:-1])
    columns = e.spec["tables"][tool["operation"]["table"]]["columns"]
    for other in call.arguments:
        ob = binds.get(other)
        ref = (columns.get(ob.column) or {}).get("references") if ob is not None and ob.column else None
        if other != arg and ref and "".join(singular(w) for w in tokens(ref)) == named:
            return True
    return False


def addressed_row(e: Env, call: GoldCall) -> dict | None:
    """The row a call addresses by its key (in the initial state), if it has one."""
    tool = e.tools[call.tool]
    karg = e.key_arg(tool)
    if karg is None or karg not in call.arguments:
        return None
    table = tool["operation"]["table"]
    pk = e.pk(table)
    return next((r for r in e.rows.get(table, []) if r.get(pk) == call.arguments[karg]), None)


# -------------------------------------------------------------------------------------- tidy


def tidy(e: Env, draft: TaskDraft, rng: random.Random) -> Drop | None:
    """Leave out of the gold calls the arguments a person would never state, or say why the task cannot
    be posed: a placeholder (`optional_param`, `arg1`, see `envscale.tasks.wording.is_placeholder`), a
    deprecated argument, an optional argument bound to no column or an option (paging, formats), a name
    argument holding a key (`project_name: "pro_0008"`); and at most `MAX_STATED` optional values per write.
    A required placeholder or a required name that holds a key drops the task (its `Drop` is returned), and
    so does a call that fails a check of `envscale.tasks.asks`. A policy task's forbidden attempt is tidied
    like its gold calls."""
    calls = list(draft.calls)
    attempt = (draft.policy_rule or {}).get("attempt")
    if isinstance(attempt, dict) and attempt.get("tool") in e.tools:
        calls.append(GoldCall(attempt["tool"], attempt["arguments"], attempt.setdefault("provenance", {})))
    for call in calls:
        drop = _tidy_call(e, draft, call, rng)
        if drop:
            return drop
    return None


def _tidy_call(e: Env, draft: TaskDraft, call: GoldCall, rng: random.Random) -> Drop | None:
    """`tidy` of one call: the tool's checks, each argument, then the values it states."""
    tool = e.tools[call.tool]
    params = tool.get("parameters") or {}
    props, required = params.get("properties") or {}, set(params.get("required") or [])
    binds = tool_bindings(tool)
    drop = (
        operation_table(tool) or picks_new_key(e, tool, call) or loose_function(e, tool) or clock_rows(tool)
    )
    if drop:
        return drop
    for arg in list(call.arguments):
        drop = _tidy_argument(e, draft, call, arg, binds, props, required)
        if drop:
            return drop
    for arg in list(call.arguments):
        if _copies_a_referenced_name(e, tool, call, binds, arg):
            # Apideck's `leadsAdd` needs `company_name`: one of another company is no request
            if arg in required:
                return (
                    "names_another_row",
                    f"{call.tool}.{arg} = {call.arguments[arg]!r} beside the row it references",
                )
            drop_argument(e, draft, call, arg)
    stated = [
        a
        for a in call.arguments
        if binds.get(a) is not None
        and binds[a].place in ("set", "value", "adjust")
        and not call.provenance.get(a, "user").startswith("call[")
        and not in_path(props.get(a))
        and not _names_a_row(e, binds[a], a, props.get(a))
    ]
    for arg in stated:
        if not read_aloud(binds[arg].column):
            return "run_together_column", f"{call.tool}.{arg} sets {binds[arg].column}"
        if tokens(arg)[-1:] in (["id"], ["ids"]):
            return (
                "misbound_argument",
                f"{call.tool}.{arg} names rows but sets {binds[arg].column} as a value",
            )
    stated = _fewer_values(e, draft, call, stated, required, rng)
    coordinates = [a for a in stated if (tokens(a)[-1:] or [""])[0].lower() in _COORDINATES]
    if len(coordinates) == 1 and coordinates[0] not in required:
        # "a spot with only a longitude" (seed 89's readers): half a place means nothing
        drop_argument(e, draft, call, coordinates[0])
        stated.remove(coordinates[0])
    if len(stated) > MAX_REQUIRED_STATED:
        return "too_many_values", f"{call.tool} needs {len(stated)} values stated ({', '.join(stated)})"
    return (
        creates_from_nothing(e, tool, call, binds)
        or verb_as_value(e, tool, call)
        or references_disagree(e, tool, call, binds)
        or bare_id_value(e, tool, call, binds)
        or sets_what_no_one_asks(call, binds, stated, props)
        or session_row_named(e, tool, call, binds)
        or _changes_nothing(call, tool["operation"], binds, props)
        or _shuffled(e, call, binds, stated)
        or _moves_nowhere(tool, call, props)
    )


_MOVES = frozenset(("transfer", "move", "migrate"))
_ENDS = frozenset(("to", "destination", "dest", "target"))


def _moves_nowhere(tool: dict, call: GoldCall, props: dict) -> Drop | None:
    """A transfer or a move that does not say where to, or `None`: seed 91's readers found iQualify's "transfer a
    user between offerings" used to turn off an invite flag, and Fire's internal transfer made with no account to
    send to. A call of a tool that moves something, whose arguments name where to, states one of them."""
    named = set(tokens(tool["name"])) | set(tokens(str(tool.get("description") or "").split("\n", 1)[0]))
    if not call.write or not named & _MOVES:
        return None
    ends = [a for a in props if set(tokens(a)) & _ENDS]
    if ends and all(call.arguments.get(a) in (None, "", [], {}) for a in ends):
        return (
            "moves_nowhere",
            f"{call.tool} moves a row without saying where to ({', '.join(ends)} unstated)",
        )
    return None


def _nested(value: Any, arg: str) -> bool:
    """Whether a value is a structure of structures no person dictates: an object holding an object or a list of
    objects (`{"episode": {"ids": {...}}}`), several objects (`[{"name": "Roles", ...}, {"name": ...}]`), an object of
    objects in a list, or one object wrapped in an envelope (`requests=[{"adStatus": "archived"}]`). One flat object
    in a list of its own kind (GoToWebinar's `times=[{"startTime": ..., "endTime": ...}]`) is said as it is."""

    def deep(v: Any) -> bool:
        return isinstance(v, dict) and any(
            isinstance(x, dict) or (isinstance(x, list) and any(isinstance(y, dict) for y in x))
            for x in v.values()
        )

    if isinstance(value, dict):
        return deep(value)
    if not isinstance(value, list):
        return False
    objects = [v for v in value if isinstance(v, dict)]
    envelope = (tokens(arg)[-1:] or [""])[0].lower() in _ENVELOPES
    return len(objects) >= 2 or any(deep(v) for v in objects) or (bool(objects) and envelope)


_ENVELOPES = frozenset("body payload request requests data input inputs".split())
"""Names of an argument that wraps a request's fields rather than being one."""


def _holds_key(value: Any, depth: int = 0) -> bool:
    """Whether a structured value holds a generated key (`row_6597`, a UUID) anywhere inside."""
    if depth > 4:
        return False
    if isinstance(value, str):
        return bool(KEY_SHAPE.match(value))
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return any(_holds_key(v, depth + 1) for v in items)


def _tidy_argument(
    e: Env, draft: TaskDraft, call: GoldCall, arg: str, binds: dict, props: dict, required: set[str]
) -> Drop | None:
    """Keep, leave out or refuse one argument the user would state (one that flows from an earlier call is
    only checked for a key where a name goes)."""
    tool = e.tools[call.tool]
    value, bind = call.arguments[arg], binds.get(arg)
    if call.provenance.get(arg, "user").startswith("call["):
        if _names_a_key(arg, value):  # `rm(file_name=call[0][0].file_id)`: a key where a name goes
            return "name_holds_key", f"{call.tool}.{arg} = {value!r} is a key, not a name"
        return None
    if call.write and singular(tool["operation"]["table"]) in _VERB_TABLES:
        return "action_rows", f"{call.tool} writes a {tool['operation']['table']} row"
    if _misnamed(arg, bind):
        return "misbound_argument", f"{call.tool}.{arg} names a {key_entity(arg)} but addresses {bind.column}"
    if is_placeholder(arg):
        if arg in required:
            return "placeholder_argument", f"{call.tool}.{arg} is required but says nothing a person states"
        drop_argument(e, draft, call, arg)
    elif api_address((bind.column if bind else None) or arg) and (
        bind is None or bind.place in ("set", "value")
    ):
        # "change its self link to https://www.allison.net/about": the service sets its own address of a row
        if arg in required:
            return (
                "api_address",
                f"{call.tool}.{arg} sets the API's own address of the row, which no person states",
            )
        drop_argument(e, draft, call, arg)
    elif isinstance(value, dict | list) and _holds_key(value):
        # `tags=[{"id": "row_6597"}]`: "change the tags to id row_6597" names rows by keys no person holds
        if arg in required:
            return (
                "key_in_value",
                f"{call.tool}.{arg} = {json.dumps(value, default=str)[:60]} holds a generated key",
            )
        drop_argument(e, draft, call, arg)
    elif _nested(value, arg):
        # "groups to name Roles, permissions allowed yes, description ..." (seed 90's readers): a structure of
        # structures read out loud is no request; an address or a list of tags is
        if arg in required:
            return "structured_value", f"{call.tool}.{arg} holds a structure no person dictates"
        drop_argument(e, draft, call, arg)
    elif isinstance(value, str) and KEY_SHAPE.match(value) and value not in e.text_values:
        # "change its parent to par_2934": a key of no row in the world, made up for an argument no table holds
        if arg in required:
            return "invented_key", f"{call.tool}.{arg} = {value!r} is the key of no row in the world"
        drop_argument(e, draft, call, arg)
    elif (
        isinstance(value, int)
        and not isinstance(value, bool)
        and key_entity(arg)
        and addressed_table(e, tool, arg, value) is None
    ):
        # "a new project for project category 16" (seed 87's readers): a number keying a thing no table holds
        if arg in required:
            return (
                "invented_key",
                f"{call.tool}.{arg} = {value!r} keys a {key_entity(arg)} the world does not hold",
            )
        drop_argument(e, draft, call, arg)
    elif _names_a_key(arg, value):
        if arg in required or (bind is not None and bind.place in ("key", "filter")):
            return "name_holds_key", f"{call.tool}.{arg} = {value!r} is a key, not a name"
        drop_argument(e, draft, call, arg)
    elif value is None:  # "update ... the status to None" (seed 86): no person asks for a value of nothing
        if arg in required:
            return "null_value", f"{call.tool}.{arg} is null, which no person states"
        drop_argument(e, draft, call, arg)
    elif arg in required:
        if bind is None and call.write and tool["operation"].get("type") == "insert":
            return "value_not_stored", f"{call.tool}.{arg} is stated but the new row never records it"
    elif (
        bind is not None
        and bind.place == "filter"
        and isinstance(value, bool)
        and any(b.place in ("key", "filter") for a, b in binds.items() if a in call.arguments and a != arg)
    ):
        drop_argument(e, draft, call, arg)  # "with safe search no": a flag, not what the user asks by
    elif (
        bind is None
        or _deprecated(arg, props.get(arg))
        or argument_role(arg, props.get(arg)) in ("option", "pagination")
        and bind.place not in ("key", "set", "value", "adjust")
    ):
        drop_argument(e, draft, call, arg)
    return None


def _fewer_values(
    e: Env, draft: TaskDraft, call: GoldCall, stated: list[str], required: set[str], rng: random.Random
) -> list[str]:
    """The values a write still states once the required fields of a full-row update flow from the read
    before it, optional flags are left out, and at most `MAX_STATED` optional values are kept."""
    tool = e.tools[call.tool]
    stated = _restated(e, draft, call, stated, required)
    # only a field the API requires is carried from the read; an optional one is simply not sent
    carried = _carry_over(e, draft, call, [a for a in stated if a in required], rng)
    stated = [a for a in stated if a not in carried]
    optional = [a for a in stated if a not in required]
    flags = [a for a in optional if isinstance(call.arguments[a], bool)]
    if flags and (tool["operation"].get("type") != "update" or len(flags) < len(stated)):
        for arg in flags:  # an optional flag ("request heartbeat", "hard lock") is the API's, not the ask
            drop_argument(e, draft, call, arg)
        optional = [a for a in optional if a not in flags]
        stated = [a for a in stated if a not in flags]
    stock = [a for a in optional if stock_text(call.arguments[a])]
    if stock and len(stock) < len(stated):
        # "change the description to 'Brenda Mooney set up "Wedding venues" in May.' and the title to ...": a stock
        # line is filler the world holds, never a text a person dictates beside a change they mean (seed 94's readers)
        for arg in stock:
            drop_argument(e, draft, call, arg)
        optional = [a for a in optional if a not in stock]
        stated = [a for a in stated if a not in stock]
    room = max(MAX_STATED - (len(stated) - len(optional)), 0)
    if tool["operation"].get("fixed"):
        room = 0  # a status change ("stop the channel") states only what the API requires
    elif tool["operation"].get("type") == "update" and len(stated) == len(optional):
        room = max(room, 1)  # an update must still change something
    if len(optional) > room:
        dropped = rng.sample(optional, len(optional) - room)
        if tool["operation"].get("type") == "insert":
            # a new row keeps what a person states first (an expense's amount, a task's title, an event's date):
            # an expense made with an exchange rate and no amount means nothing
            # (essential first, then those the draw kept; a stable sort keeps the order within each)
            dropped = sorted(optional, key=lambda a: (not _essential(a), a in dropped))[room:]
        for arg in sorted(dropped):
            drop_argument(e, draft, call, arg)
        stated = [a for a in stated if a in call.arguments]
    return stated


def _restated(e: Env, draft: TaskDraft, call: GoldCall, stated: list[str], required: set[str]) -> list[str]:
    """The values an update still states once those its row already holds are left out: seed 93's readers found
    "change the group to auto assign no" sent to a channel whose group already said so ("half the request changes
    nothing"); the value was drawn for another row before the journey chose the one found by its title. A required
    field keeps its value (a full-row update sends it)."""
    tool = e.tools[call.tool]
    if tool["operation"].get("type") != "update" or tool["operation"].get("fixed"):
        return stated
    row = addressed_row(e, call)
    if row is None:
        return stated
    binds = tool_bindings(tool)
    kept = []
    for arg in stated:
        bind = binds.get(arg)
        if (
            arg not in required
            and bind is not None
            and bind.place == "set"
            and bind.column in row
            and _same(row[bind.column], call.arguments[arg])
        ):
            drop_argument(e, draft, call, arg)
        else:
            kept.append(arg)
    return kept


def _same(held: Any, value: Any) -> bool:
    """Whether a row's stored value (JSON columns may hold text) is the value an argument sends."""
    if isinstance(held, str) and isinstance(value, dict | list):
        try:
            held = json.loads(held)
        except ValueError:
            return False
    if isinstance(held, bool) or isinstance(value, bool):
        return held is value or (held in (0, 1) and isinstance(value, bool) and bool(held) is value)
    return held == value


_COORDINATES = frozenset("lat latitude lon lng long longitude".split())

_ESSENTIAL = frozenset(
    "amount price total cost name title subject date quantity qty email summary start starts time datetime".split()
)


def _essential(arg: str) -> bool:
    """Whether a field is what a person states first when making a row: its amount, name, title, date, quantity."""
    words = [w.lower() for w in tokens(arg)]
    return bool(words) and words[-1] in _ESSENTIAL


_RENAMED_PERSON = frozenset(("person", "first_name", "last_name", "middle_name"))


def _shuffled(e: Env, call: GoldCall, binds: dict, stated: list[str]) -> Drop | None:
    """An update that moves values around instead of changing one, or `None`: a new value that another field of
    the row already holds (blind readers: "rename the group "New Hires 2025" to Project Managers and set its
    newsletter subject to New Hires 2025"), or a person's own row renamed to someone else ("rename Stanley Marshall
    to Tiffany Smith": a made-up name, no reason a person would give; a task's assignee is reassigned)."""
    tool = e.tools[call.tool]
    if not call.write or tool["operation"].get("type") != "update":
        return None
    row = addressed_row(e, call) or {}
    table = tool["operation"]["table"]
    for arg in stated:
        column, value = binds[arg].column, call.arguments[arg]
        if not isinstance(value, str) or len(value) < 3:
            continue
        if any(c != column and v == value for c, v in row.items()):
            return "shuffled_value", f"{call.tool}.{arg} = {value!r} is what another field of the row holds"
        cspec = e.spec["tables"][table]["columns"].get(column) or {}
        if (
            column_meaning(table, column, cspec) in _RENAMED_PERSON
            and singular(table).split("_")[-1] in PERSON_ENTITIES  # the person's own name, not an assignee
            and row.get(column) not in (None, "")
        ):
            return "renamed_person", f"{call.tool}.{arg} renames {row[column]!r} to {value!r}"
    return None


def _changes_nothing(call: GoldCall, op: dict, binds: dict, props: dict) -> Drop | None:
    """An update called without a value to set (only computed columns would change), or `None`."""
    sets = [a for a in call.arguments if binds.get(a) is not None and binds[a].place in ("set", "adjust")]
    if (
        op.get("type") == "update"
        and not op.get("fixed")
        and call.write
        and not [a for a in sets if not in_path(props.get(a))]
    ):
        return (
            "nothing_to_change",
            f"{call.tool} is called without a value to set (only computed columns change)",
        )
    return None


def _carry_over(e: Env, draft: TaskDraft, call: GoldCall, stated: list[str], rng: random.Random) -> list[str]:
    """For an update that must send many fields (a PUT of the whole row) after an earlier call read that
    row: all but `MAX_STATED` of them keep the row's current values, flowing from that read
    (`call[j].COLUMN`), so that the request states only what it changes. Returns the carried arguments."""
    tool = e.tools[call.tool]
    if tool["operation"].get("type") != "update" or len(stated) <= MAX_STATED or call not in draft.calls:
        return []
    addressed = addressed_row(e, call)
    index = draft.calls.index(call)
    karg = e.key_arg(tool)
    reader = next(
        (
            j
            for j, c in enumerate(draft.calls[:index])
            if e.tools[c.tool]["operation"].get("type") == "get"
            and e.tools[c.tool]["operation"]["table"] == tool["operation"]["table"]
            and c.arguments.get(e.key_arg(e.tools[c.tool])) == call.arguments.get(karg)
        ),
        None,
    )
    if addressed is None or reader is None:
        return []
    binds = tool_bindings(tool)
    props = (tool.get("parameters") or {}).get("properties") or {}
    carried = []
    for arg in sorted(rng.sample(stated, len(stated) - MAX_STATED)):
        column = binds[arg].column
        value = addressed.get(column)
        if value is None or not schema_accepts(props.get(arg, {}), value):
            continue
        old = call.arguments[arg]
        call.arguments[arg], call.provenance[arg] = value, f"call[{reader}].{column}"
        name = fact_name(arg, tool, e.spec)
        if draft.user_facts.get(name) == old:
            del draft.user_facts[name]
        carried.append(arg)
    return carried
