"""Would a person ask this? The checks that keep a task to requests a person makes.

Each check that drops a candidate returns `None` when it passes, or a `Drop`: a short code and a
detail, as datatrove's filters do (`("clock_rows", "get_current_time keeps the time as times rows")`).
The generator records `code: detail` in the `rejected` config, and the card counts the codes.

- on the tool a call uses: `operation_table`, `picks_new_key`, `loose_function`, `clock_rows`;
- on what a write does: `creates_from_nothing`, `verb_as_value`, `references_disagree`, `bare_id_value`,
  `sets_what_no_one_asks`, `session_row_named`;
- on the values the user states: `filler_fact` (with `invented_object` and `text_misfit`);
- on the chain: `two_ids_for_one`.

The builders ask yes-or-no questions before they choose a value: `asked_by` (would a person describe a
row by this filter value), `askable` (would they ask for this column's value) and `read_aloud`.

Example:

```python
>>> from envscale.tasks.asks import asked_by, clock_rows
>>> asked_by("email", "email", "kim@example.com"), asked_by("latitude", "lat", 41.866395)
(True, False)
>>> clock_rows({"name": "get_current_time", "operation": {"table": "times"}})
('clock_rows', 'get_current_time keeps the time as times rows')
```
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..env.data import column_meaning, is_filler
from ..words.inflect import singular
from ..words.names import tokens
from ..words.semantics import DELETE_VERBS, key_entity, verb_named
from ..words.verbs import RETIRED_STATUSES
from .model import Drop, GoldCall, TaskDraft
from .naming import TO_THE_SECOND, unsayable
from .prepared import Env
from .wording import said_as_noun, squash

KEY_SHAPE = re.compile(
    r"^[A-Za-z]{2,6}(?:_[a-z]+)?_\d{3,}$|^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
)
"""A generated key (`pro_0008`) or a UUID: what a key column holds, never what a name does."""


def in_path(schema: Any) -> bool:
    """An argument of the request's path (`/budgets/{budget_id}/...`): it names a row, never sets a value."""
    return isinstance(schema, dict) and schema.get("x-in") == "path"


# -------------------------------------------------------------------------------------- asked by, about

_ASKED_MEANINGS = (
    "status",
    "email",
    "person",
    "named",
    "title",
    "filename",
    "date",
    "datetime",
    "time",
    "money",
    "city",
    "country",
    "phone",
    "address",
    "company",
    "url",
    "lex",
    "language",
    "currency",
    "quantity",
    "count",
    "rating",
    "percent",
    "year",
)


_NOT_ASKED_BY = frozenset(
    "lat latitude lng lon long longitude coordinate coordinates coord coords geo geohash geocode location_lat "
    "bbox x y z".split()
)
"""Words of a filter no person describes a row by: "the hotel with latitude 41.866395"."""
_BARE_WORDS = frozenset("from to in at by on of for with q s is as since until after before".split())


def asked_by(arg: str, column: str, value: Any) -> bool:
    """Whether a person would describe a row by this filter value: never by coordinates, by a bare
    preposition (`from: "Denver, CO"` reads "the invoice with from Denver"), by a column that is not said as
    a noun (`wanted_by`, `start: 42.63`; `envscale.tasks.wording.said_as_noun`), by a key where a name goes
    (`name: "pro_0008"`), by a fraction with many decimals, or by a timestamp to the second."""
    words = set(tokens(arg)) | set(tokens(column))
    if words & _NOT_ASKED_BY or set(tokens(arg)) <= _BARE_WORDS:
        return False
    if not said_as_noun(column, arg, value):  # "the feature with wanted by 78", "with start 42.63"
        return False
    if isinstance(value, float) and len(repr(value).split(".")[-1]) > 3:
        return False
    if isinstance(value, str) and len(value.split()) >= 5 and value.rstrip()[-1:] in ".!?":
        return False  # a sentence: "the user with body "Shared the design doc with Smith-Crane; two ...""
    if isinstance(value, str) and TO_THE_SECOND.search(value):
        return False  # "projects with last update at least 2023-12-20T01:05:18Z": no one types a second
    return not (isinstance(value, str) and KEY_SHAPE.match(value) and not column.endswith("_id"))


def read_aloud(column: str) -> bool:
    """Whether a column's name reads as one thing: not run together from two (`status_new_status`)."""
    words = tokens(column)
    return len(words) == len(set(words))


_ENVELOPE = frozenset(
    "operation resource service links meta status_code object request_id server_knowledge knowledge".split()
)
"""Fields of an API's response envelope (apideck's `{status_code, service, resource, operation, data}`, YNAB's delta
`server_knowledge`) that the environment keeps as columns: "the operation of my account", "the server knowledges of
the budgets" are not something a person asks about."""

_API_ADDRESS = frozenset("href uri urn self etag".split())
"""Words of a column that holds the API's own address of the row (`href`, `uri`, `self_link`, `api_url`,
`etag`): what a client follows, never what a person asks ("find out the href of the event", "the uri of the
playlist named ..."). A web page a person opens (`website`, `html_url`, `download_url`) is asked."""


def api_address(column: str) -> bool:
    """Whether a column holds the API's own address of its row (`href`, `self_link`, `uri`, `etag`, `api_url`) or
    its concurrency token (`rowVersion`): a value a client follows and the service sets, never one a person states
    or asks for."""
    words = set(tokens(column))
    # and a row's concurrency token (`rowVersion`, `lock_version`, `ConcurrencyStamp`): "row version 4.1.13"
    token = (
        {"row", "version"} <= words
        or {"lock", "version"} <= words
        or bool(words & {"concurrency", "rowversion"})
    )
    # GitHub's `members_url`, `repos_url`, `hooks_url`: the API address of a collection the row holds ("find out the
    # members URL of the team", a blind reader); a page's own `avatar_url` or `html_url` is asked
    ordered = tokens(column)
    collection = len(ordered) >= 2 and ordered[-1] == "url" and singular(ordered[-2]) != ordered[-2]
    return bool(words & _API_ADDRESS) or {"api", "url"} <= words or token or collection


def askable(table: str | None, column: str, value: Any) -> bool:
    """Whether a person would ask for this column's value: its meaning is one people talk about
    (a status, a name, an email, a date, an amount ...), read from the column like `data` does,
    and the value fits that meaning (an address in an `email` column is not asked about)."""
    # the API's own address of the row, or any field about the API itself (`api_version`, `api_key`)
    if (
        not read_aloud(column)
        or column.lower() in _ENVELOPE
        or tokens(column)[-1:] == ["filter"]  # a list's `status_filter` kept as a field
        or api_address(column)
        or "api" in tokens(column)
    ):
        return False
    if not said_as_noun(column, None, value):  # "the created of status sta_0004", "the city 1 of ..."
        return False
    kind = "number" if isinstance(value, int | float) and not isinstance(value, bool) else "string"
    if kind == "string" and is_filler(table or "", column, {"type": "string"}, value):
        return False
    meaning = column_meaning(table or "", column, {"type": kind}).split(":")[0]
    if meaning in _ASKED_MEANINGS:
        return True
    words = set(column.lower().split("_"))
    return bool(words & {"total", "price", "amount", "balance", "quantity", "stock", "name", "status", "due"})


# -------------------------------------------------------------------------------------- the tool


def operation_table(tool: dict) -> Drop | None:
    """A tool whose table is named after an operation (`verb_named`: a `create_orders` table): the
    environment stored the call, and no request reads as a change to it."""
    named = verb_named(singular(tool["operation"]["table"]))
    if named:
        return "operation_table", f"{tool['name']} uses {tool['operation']['table']} ({named})"
    return None


def picks_new_key(e: Env, tool: dict, call: GoldCall) -> Drop | None:
    """A create that has the user pick the new row's own id ("create a new institution with institution id
    203"), or `None`: a person names what they create and the system numbers it. A relation row keyed by
    the thing it links ("follow show 12") names that thing, and is fine."""
    op = tool["operation"]
    if op.get("type") != "insert" or not call.write:
        return None
    table = op["table"]
    pk = e.pk(table)
    arg = (op.get("values") or {}).get(pk)
    arg = arg.get("arg") if isinstance(arg, dict) else arg
    if not isinstance(arg, str) or arg not in call.arguments:
        return None
    if call.provenance.get(arg, "user").startswith("call["):
        return None
    entity = key_entity(pk)
    if pk not in ("id", "uuid") and (entity is None or singular(entity) != singular(table)):
        return None
    return "user_picks_id", f"{call.tool}.{arg} = {call.arguments[arg]!r} numbers the new {singular(table)}"


_FUNCTION_NOUNS = frozenset(
    "tool function method request call http https webapi api endpoint operation action command query "
    "invocation execution".split()
)
"""Words of a table that stores a loose function's calls rather than things (`tools` of `write_markdown_tool`,
`requests` of `requests_get`, `operations` of `masterOperation`): "the URL of the get request named ..." is
about the call itself, which no person asks after."""
_SESSION_OWN = frozenset({"account", "user", "profile", "me"})
_VERB_ROWS = frozenset("end start stop begin finish pause resume play run open close".split())
"""Single-word tables that are verbs a loose function was named after (`end_request` keeps `ends`)."""


def loose_function(e: Env, tool: dict) -> Drop | None:
    """Why a loose function (an environment of functions with no API behind them, `e.grouped` false) cannot
    be posed as a request about stored data, or `None`:

    - `session_row_function`: it acts on the environment's session row yet names another object
      (`setText(start, length)` sets `accounts.text_start`, `cmd_controller_execute(command)` sets
      `accounts.controller_command`, `user_authentication(username, password)` reads the account): the
      object is stored as columns of the user's account, and the request ("update the text start to 9.41")
      means nothing to a person;
    - `function_rows`: its table is named after the function or the call (`tools`, `requests`,
      `operations`) or after a verb (`end_request` keeps `ends`).

    In an environment of a real API only the first holds, and only for reads: `get_comments(case_id)` or
    `check_tire_pressure()` answered from the account or vehicle row asks "the status of my account"; its
    writes on the session row (`setHeadlights`, `set_budget_limit`, `withdraw_funds`) are the API's own."""
    table = tool["operation"]["table"]
    own = singular(table)
    if e.grouped and not (table == (e.spec.get("session") or {}).get("table") and tool["kind"] == "read"):
        return None
    if table == (e.spec.get("session") or {}).get("table"):
        entity = (tool.get("metadata") or {}).get("entity")
        last = singular(str(entity).split("_")[-1]) if entity else None
        if last not in _SESSION_OWN | {own}:
            what = f"a {entity}" if entity and not entity.startswith("<") else "nothing it names"
            return "session_row_function", f"{tool['name']} acts on {what}, stored as columns of the {own}"
        return None
    words = set(own.split("_"))
    if words & _FUNCTION_NOUNS or own in _VERB_ROWS:
        return "function_rows", f"{tool['name']} keeps {table} rows (the call, not a thing)"
    return None


_CLOCK_TABLES = frozenset({"time", "clock", "datetime", "timestamp", "timezone", "now", "current_time"})


def clock_rows(tool: dict) -> Drop | None:
    """A tool that reads or writes the clock kept as rows (`get_current_time(timezone)` keeps `times`), or
    `None`: "the date format of the time with location Madison, WI" asks about a stored reading of a clock,
    which is not a thing a person looks up."""
    table = tool["operation"]["table"]
    if singular(table) in _CLOCK_TABLES:
        return "clock_rows", f"{tool['name']} keeps the time as {table} rows"
    return None


# -------------------------------------------------------------------------------------- what a write does

_CATEGORY_WORDS = frozenset("type kind mode format visibility category scope status variant".split())


def creates_from_nothing(e: Env, tool: dict, call: GoldCall, binds: dict) -> Drop | None:
    """A create that states nothing that says what it creates, or `None`: no argument at all
    (`createMock({})` makes a row of nulls), or only a category or a flag (`importExternalApiSpecification(
    type="personal")`): "create a mock" asks for nothing a person could check. A thing that has a name (a
    `name` or `title` column) must be given more than the rows it belongs to ("create a new API version for
    API api_0008" leaves the version nameless); a link row (a follow, a vote) is its references."""
    op = tool["operation"]
    if op.get("type") != "insert" or not call.write:
        return None
    columns = e.spec["tables"][op["table"]]["columns"]
    named = any(set(tokens(c)) & {"name", "title"} for c in columns)

    props = (tool.get("parameters") or {}).get("properties") or {}

    def belongs(arg: str) -> bool:  # a parent's key, or the route the row is made under (`/{slug}/members`)
        bind = binds.get(arg)
        column = columns.get(bind.column) if bind is not None and bind.column else None
        return (
            bool(column and column.get("references"))
            or call.provenance.get(arg, "").startswith("call[")
            or in_path(props.get(arg))
        )

    saying = [
        a
        for a, v in call.arguments.items()
        if not isinstance(v, bool)
        and not set(tokens(a)) <= _CATEGORY_WORDS
        and v not in (None, "", [], {})
        and not (named and belongs(a))
    ]
    if saying:
        return None
    given = ", ".join(f"{a}={v!r}" for a, v in call.arguments.items()) or "no argument"
    return "empty_create", f"{call.tool} makes a {singular(tool['operation']['table'])} from {given}"


_REQUEST_WORDS = frozenset("fields patch payload changes params parameters request updates".split())
"""Words of a column that holds a request's own envelope (`update_fields`, `patch`, `changes`): "set the update
fields of repository rep_0020 to name Project Titan" is the call said aloud, not a change a person asks for."""
_FOREIGN_KEY_WORDS = frozenset(("idfk", "idfks", "fk"))
"""Words of a column that holds another row's key under the API's own name for it (`ProjectCategoryIDFK`)."""
_KEPT_BY_SYSTEM = frozenset("created updated modified deleted createdat updatedat lastmodified".split())
"""Words of a column the system writes itself (`created`, `updated_at`, `last_modified`): "update the created of
my config to 2025-04-07T07:38" is not a request a person makes."""


def references_disagree(e: Env, tool: dict, call: GoldCall, binds: dict) -> Drop | None:
    """Two rows a write names that cannot go together, or `None`: one of them belongs to another row than the
    other names (`createRelations(apiId=api_0013, apiVersionId=ver_0018)` where version ver_0018 is a version
    of api_0010). A person names a version of the API they mean; the gold call must too."""
    table = tool["operation"]["table"]
    columns = e.spec["tables"][table]["columns"]
    named = []
    for arg, value in call.arguments.items():
        bind = binds.get(arg)
        column = columns.get(bind.column) if bind is not None and bind.column else None
        if column and column.get("references") in e.rows and value is not None:
            named.append((arg, column["references"], value))
    for arg_a, table_a, value_a in named:
        for arg_b, table_b, value_b in named:
            if table_a == table_b:
                continue
            row_b = next((r for r in e.rows[table_b] if r.get(e.pk(table_b)) == value_b), None)
            for column, cspec in e.spec["tables"][table_b]["columns"].items():
                if (
                    row_b is not None
                    and cspec.get("references") == table_a
                    and row_b.get(column) is not None
                    and row_b[column] != value_a
                ):
                    return (
                        "references_disagree",
                        f"{call.tool}.{arg_b} = {value_b!r} belongs to {row_b[column]!r}, not to {arg_a} = "
                        f"{value_a!r}",
                    )
    return None


def bare_id_value(e: Env, tool: dict, call: GoldCall, binds: dict) -> Drop | None:
    """A create that stores the bare `id` of its route as a plain value, or `None`: `post_users_by_id_tags(id=5361,
    body=...)` keeps the user's id in `tags.id` with no user behind it, and the request says "a tag with id
    5361"; a person names whose tag it is, which the environment cannot check."""
    op = tool["operation"]
    if op.get("type") != "insert" or not call.write:
        return None
    columns = e.spec["tables"][op["table"]]["columns"]
    for arg in call.arguments:
        bind = binds.get(arg)
        if tokens(arg) not in (["id"], ["uuid"]) or bind is None or not bind.column:
            continue
        column = columns.get(bind.column) or {}
        if (
            bind.column != e.pk(op["table"])
            and not column.get("references")
            and not call.provenance.get(arg, "user").startswith("call[")
        ):
            return (
                "misbound_argument",
                f"{call.tool}.{arg} names a row of no table but is stored in {bind.column}",
            )
    return None


def sets_what_no_one_asks(call: GoldCall, binds: dict, stated: list[str], props: dict) -> Drop | None:
    """A write that sets a column no person sets, or `None`: one the system keeps (`system_column`: `created`,
    `updated_at`, see `_KEPT_BY_SYSTEM`) or one holding the request's own envelope (`request_body_column`:
    `update_fields`, see `_REQUEST_WORDS`)."""
    if not call.write:
        return None
    for arg in stated:
        words = set(tokens(binds[arg].column))
        if words & _KEPT_BY_SYSTEM and not in_path(props.get(arg)):
            return "system_column", f"{call.tool}.{arg} sets {binds[arg].column}, which the system keeps"
        if words & _REQUEST_WORDS and words <= _REQUEST_WORDS | {"update", "new"}:
            return "request_body_column", f"{call.tool}.{arg} sets {binds[arg].column}"
        if words & _FOREIGN_KEY_WORDS:  # Avaza's `ProjectCategoryIDFK`: "set the project category idfk to 1"
            return "key_column", f"{call.tool}.{arg} sets {binds[arg].column}, a key no person states"
        if (
            tokens(binds[arg].column)[-1:] == ["code"]
            and words & _CODED
            and not (props.get(arg) or {}).get("enum")
        ):
            # "set its project status code to MC-9686": a status or a type is picked by its label, its code is the
            # system's (an `enum` of codes is a list to pick from, and stays)
            return "coded_column", f"{call.tool}.{arg} sets {binds[arg].column}, a code no person makes up"
    return None


_CODED = frozenset("status type category kind class billable state".split())


def session_row_named(e: Env, tool: dict, call: GoldCall, binds: dict) -> Drop | None:
    """A call on the session row said with the id of another row, or `None`:
    `Changetoleranceofanaccount(creditAccountId="206ff76d-...")` changes the logged-in account whatever the id
    says, so the request ("with credit account id 206ff76d-...") and the final state disagree. A bare `id`
    bound to no column names a row too, unless it is the session row's own key."""
    table = tool["operation"]["table"]
    if table != (e.spec.get("session") or {}).get("table"):
        return None
    own = (getattr(e, "session_row", None) or {}).get(e.pk(table))
    for arg in call.arguments:
        if binds.get(arg) is not None or call.provenance.get(arg, "").startswith("call["):
            continue
        if key_entity(arg):
            return "misbound_argument", f"{call.tool}.{arg} names a row, but the call acts on the session row"
        if tokens(arg) in (["id"], ["uuid"]) and str(call.arguments[arg]) != str(own):
            # `GET /users/{id}/transaction_accounts` read as the session's account: "my account. The id is 6."
            return (
                "misbound_argument",
                f"{call.tool}.{arg} = {call.arguments[arg]!r} names another row than the session row ({own!r}) "
                "the call acts on",
            )
    return None


def verb_as_value(e: Env, tool: dict, call: GoldCall) -> Drop | None:
    """A write that changes nothing but a word naming its own act, or `None`: an update the environment could
    only model by writing its verb into a column named after the tool (`TransferSupplyLot` sets
    `lots.supply_lot` to "transfer", `updateAnApiVersion` sets `an_api_version` to "update"). The final state
    is not what the request means (the SKU is not moved); a status column set to its new status is fine."""
    if not call.write:
        return None
    table = e.spec["tables"][tool["operation"]["table"]]["columns"]
    for column, value in (tool["operation"].get("fixed") or {}).items():
        words = set(tokens(column))
        if isinstance(value, str) and not words & {"status", "state", "logged"} and column in table:
            return "verb_as_value", f"{call.tool} writes {value!r} into {column}, and nothing else changes"
    return None


# -------------------------------------------------------------------------------------- stated values


def invented_object(schema: Any, value: Any) -> str | None:
    """Why an object the user would state is not something a person says, or `None`: it is empty, or the
    API does not describe its fields (a free-form object holds whatever the data generator made up, such
    as `{"tags": ["new", "budget"]}`), or it has fields the API does not name. Lists of objects are
    judged item by item, and several objects that each hold a sentence are not dictated."""
    schema = schema if isinstance(schema, dict) else {}
    if isinstance(value, list):
        items = [v for v in value if isinstance(v, dict)]
        if len(items) > 1 and any(
            isinstance(v, str) and len(v.split()) >= 4 for i in items for v in i.values()
        ):
            # "the links to description Set up by ..., link https://... and description ...": a person lists
            # order lines (a product and a quantity), never several objects that each hold a sentence
            return "is a list of objects that each hold a sentence"
        for item in items:
            why = invented_object(schema.get("items"), item)
            if why:
                return why
        return None
    if not isinstance(value, dict):
        return None
    if not value:
        return "is an empty object"
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    if not props:
        return "is an object whose fields the API does not describe"
    unknown = sorted(set(value) - set(props))
    if unknown:
        return f"has fields the API does not name ({', '.join(unknown)})"
    for (
        name,
        inner,
    ) in value.items():  # `{"permission": {"family": {}}}`: nested objects are judged the same way
        if isinstance(inner, dict | list):
            why = invented_object(props.get(name), inner)
            if why:
                return f"{name} {why}"
    return None


_TEXT_ROWS = frozenset("comment note message review reply post feedback annotation".split())
"""Rows that are a piece of text someone writes: their content column holds sentences."""
_CONTENT_COLUMNS = frozenset("data text content body value comment note message".split())
_ASKING_COLUMNS = frozenset(
    "message messages question questions query prompt prompts text content body comment input chat "
    "search q utterance request".split()
)
"""Columns that may hold a question: a message, a search, a prompt."""


def text_misfit(table: str, column: str, value: Any) -> str | None:
    """How a stated text does not fit its column, or `None`: a chat prompt where a description or a note
    goes (`description: "What will the weather be like in Singapore on Tuesday?"`), or a comment whose text
    is one bare token (`comments.data = "app.murphy.io"`, "add a comment ... with data app.murphy.io"), or a
    sentence in a JSON column (`body_json`)."""
    if not isinstance(value, str):
        return None
    words = set(tokens(column))
    if value.rstrip().endswith("?") and not words & _ASKING_COLUMNS:
        return f"is a question, not a {column.replace('_', ' ')}"
    if "json" in words and not value.lstrip().startswith(("{", "[")):
        return f"is not JSON, yet {column} holds JSON"  # "set the body json of page 13 to "Shared the ...""
    entity = (tokens(singular(table)) or [""])[-1]
    if entity in _TEXT_ROWS and column.lower() in _CONTENT_COLUMNS and len(value.split()) < 3:
        return f"is not what a {entity} says (its {column} holds no sentence)"
    return None


def _bound_columns(op: dict) -> dict[str, str]:
    """The column each argument of an operation is bound to (its key, values, set columns and filters)."""
    bindings = {**(op.get("key") or {}), **(op.get("values") or {}), **(op.get("set") or {})}
    bound = {}
    for column, binding in bindings.items():
        if isinstance(binding, dict) and isinstance(binding.get("arg"), str):
            binding = binding["arg"]
        if isinstance(binding, str):
            bound[binding] = column
    bound.update({f.get("arg"): f["column"] for f in op.get("filters", []) if f.get("arg")})
    return bound


def filler_fact(e: Env, draft: TaskDraft) -> Drop | None:
    """A value the user would say that does not fit what its column means (`user_id: "accept"`,
    `start_date: "win"`), a list of such values (`product_list: ["would"]`), an empty list, or an object
    the user could not state (`invented_object`): a person would never ask that, so the task is dropped
    (`filler_value`)."""
    for call in draft.calls:
        tool = e.tools[call.tool]
        props = (tool.get("parameters") or {}).get("properties") or {}
        op = tool["operation"]
        table = op["table"]
        columns = e.spec["tables"][table]["columns"]
        bound = _bound_columns(op)
        for arg, source in call.provenance.items():
            if source not in ("user", "constant"):
                continue
            column = bound.get(arg)
            value = call.arguments.get(arg)
            why = unsayable(value)
            if why:  # "set the due date to 2024-04-20T12:31:16Z", "its payment token to yrSjWVoafKn..."
                return "filler_value", f"{call.tool}.{arg} = {value!r} {why}"
            if isinstance(column, str) and column in columns:
                name, where, cspec = column, f"{table}.{column}", columns[column]
                if is_filler(table, column, cspec, value, primary_key=column == e.pk(table)):
                    return "filler_value", f"{call.tool}.{arg} = {value!r} does not fit {where}"
                misfit = text_misfit(table, column, value)
                if misfit:
                    return "filler_value", f"{call.tool}.{arg} = {value!r} {misfit}"
            else:  # an argument bound to no column; a resource's name its owner says is none (Azure's resource group)
                name, where = arg, "its name"
                named = isinstance(value, str) and value in e.name_keys
                if not named and is_filler(
                    table, arg, {"type": "string"}, value, arguments=[props.get(arg) or {}]
                ):
                    return "filler_value", f"{call.tool}.{arg} = {value!r} does not fit {where}"
            why = _container_misfit(props.get(arg), table, name, where, value)
            if why:
                return "filler_value", f"{call.tool}.{arg}{why}"
    return None


def _container_misfit(schema: Any, table: str, name: str, where: str, value: Any) -> str | None:
    """How a list or an object the user would state is not one (the detail that follows `TOOL.ARG`), or
    `None`; `name` is the column (or argument) its items are values of, `where` how the detail says it."""
    if isinstance(value, list) and not value:
        return " is an empty list"
    if isinstance(value, list) and len({json.dumps(v, sort_keys=True, default=str) for v in value}) < len(
        value
    ):
        return f" = {value!r} repeats an item"
    for item in value if isinstance(value, list) else []:  # each item is said as one value of it
        if is_filler(table, name, {"type": "string"}, item):
            return f" item {item!r} does not fit {where}"
    invented = invented_object(schema, value)
    if invented:
        return f" = {value!r} {invented}"
    for path, field_name, inner in _fields(value, ""):  # a body's fields: `givenName: "keep"`
        if is_filler(table, field_name, {"type": "string"}, inner):
            return f"{path} = {inner!r} does not fit its name"
        if _number_for_a_thing(field_name, inner):
            return f"{path} = {inner!r} is a bare number where a {' '.join(tokens(field_name))} is named"
    return None


_NAMED_THINGS = frozenset(
    "system channel method provider gateway carrier brand category type store warehouse plan tier country "
    "currency language".split()
)
"""The last word of a field that names a kind of thing: its value is the thing's name, never a number a person
would know."""


def _number_for_a_thing(field_name: str, value: Any) -> bool:
    """A field of a stated object that names a thing (a payment system, a sales channel) given as a bare number:
    the API's internal code for it (VTEX's `{"paymentMethod": {"paymentSystem": "4"}}`, which a blind reader
    found said as "payment method payment system 4"). A person names the thing, not its code."""
    words = tokens(field_name)
    return (
        isinstance(value, str | int)
        and not isinstance(value, bool)
        and str(value).strip().isdigit()
        and bool(words)
        and singular(words[-1]) in _NAMED_THINGS
    )


def _fields(value: Any, path: str, depth: int = 0) -> list[tuple[str, str, Any]]:
    """`(path, field name, value)` of every field of an object at any depth, lists read item by item
    (`variantOptionDefinitions.definitions.name`)."""
    out: list[tuple[str, str, Any]] = []
    if depth > 6:
        return out
    for item in value if isinstance(value, list) else [value]:
        for name, inner in item.items() if isinstance(item, dict) else ():
            out.append((f"{path}.{name}", str(name), inner))
            out += _fields(inner, f"{path}.{name}", depth + 1)
    return out


# -------------------------------------------------------------------------------------- the chain


def two_ids_for_one(draft: TaskDraft) -> Drop | None:
    """The user would give two ids for one thing, or `None`: `creditAccountId` is acc_0001 in the first call
    and ca_3710 in the second (the invoice read second belongs to another credit account than the one read
    first). A person has one account; the chain must agree with itself (`data_flow_broken`)."""
    said: dict[str, tuple[int, Any]] = {}
    for i, call in enumerate(draft.calls):
        for arg, value in call.arguments.items():
            if call.provenance.get(arg, "user").startswith("call[") or not key_entity(arg):
                continue
            j, before = said.setdefault(squash(arg), (i, value))
            if before != value:
                return "data_flow_broken", f"{arg} is {before!r} in call {j} and {value!r} in call {i}"
    return None


# -------------------------------------------------------------------------------------- the row's state

_STATE_COLUMN = re.compile(r"^(?:status|state)$|_status$", re.IGNORECASE)  # `billing_address_state`: a place
_GONE_FLAGS = frozenset(
    "deleted is_deleted archived is_archived cancelled canceled is_cancelled is_canceled closed is_closed "
    "voided is_voided trashed is_trashed".split()
)
_GONE_AT = frozenset("deleted_at cancelled_at canceled_at archived_at voided_at trashed_at".split())
BRING_BACK = frozenset(
    "restore undelete unarchive reopen reactivate activate enable resume unblock recover revive uncancel "
    "untrash unvoid".split()
)


_DELETED = frozenset("deleted removed trashed".split())


def gone_by(row: dict, deleted_only: bool = False) -> str | None:
    """Why a row is gone for its users, or `None`: a status that says so (`CANCELLED`, `archived`), a flag
    (`deleted: true`) or the date it was deleted or cancelled. With `deleted_only`, only a row deleted already
    (a cancelled order may still be deleted: some APIs delete only those)."""
    for column, value in row.items():
        name = column.lower()
        state = value.lower() if isinstance(value, str) and _STATE_COLUMN.search(column) else None
        if state in RETIRED_STATUSES and (not deleted_only or state in _DELETED):
            return f"{column} = {value!r}"
        if value is True and name in _GONE_FLAGS and (not deleted_only or "delet" in name or "trash" in name):
            return f"{column} = true"
        if value not in (None, "") and name in _GONE_AT and (not deleted_only or "delet" in name):
            return f"{column} = {value!r}"
    return None


def acts_on_gone_row(e: Env, draft: TaskDraft) -> Drop | None:
    """A write on a row already gone for its users (edit a cancelled booking, delete a transaction marked
    deleted, rename an archived project), or `None`; deleting a cancelled or closed row is cleaning up. A person asks to change a live row; a refusal (`policy`)
    and a decision on the row's state (`branch`) are about exactly such rows, and a write that brings a row
    back (restore, reactivate) acts on one by nature."""
    if draft.kind == "policy" or draft.shape == "branch":
        return None
    for call in draft.calls:
        tool = e.tools.get(call.tool)
        if not call.write or tool is None or tool["operation"].get("type") == "insert":
            continue
        name = (tool.get("metadata") or {}).get("original_name") or tool["name"]
        if set(tokens(name)) & BRING_BACK:
            continue
        table, karg = tool["operation"]["table"], e.key_arg(tool)
        if not karg or karg not in call.arguments or table not in e.rows:
            continue
        pk = e.pk(table)
        row = next((r for r in e.rows[table] if r.get(pk) == call.arguments[karg]), None)
        removes = tool["operation"].get("type") == "delete" or bool(set(tokens(name)) & DELETE_VERBS)
        why = gone_by(row, deleted_only=removes) if row is not None else None
        if why:
            return (
                "row_gone",
                f"{call.tool} changes the {singular(table)} {call.arguments[karg]!r}, whose {why}",
            )
    return None
