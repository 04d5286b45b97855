"""Infer an environment spec from a domain's tools, by what each tool means.

`materialize` calls `infer_spec` once per domain. Every decision reads the tool's meaning from
`envscale.words.semantics` (verb, effect, entity, argument roles), so that a tool does what its name says:

- **computations stay out.** Calculators, converters, formatters and generators have no state;
  they are left out with their reason (`InferredSpec.excluded`). They stay in `api_pool`.
- **entities are the objects of verbs** (`create_order` -> `orders`, `list_order_shipments` ->
  `shipments`) or the resources of OpenAPI routes (`/repos/{owner}/{repo}/issues/{n}` -> `issues`
  with a `repo` parent); every other `*_id` argument becomes a foreign key to a real table: the table of
  the entity it names, under another name where the environment has it (`parent_folder_id` -> folders,
  `receiver_id`/`assignee_id` -> the people's table); one is added only for an entity nothing fits, and
  holds what the API's schemas say of it (`customer_name` -> `customers.name`; a name at least).
  Writes that address no row of their own (`fillFuelTank`, `setHeadlights`) act on the environment's
  *session* row: one row of a singleton table, the logged-in user or the device being controlled. A
  read answers from it only when it reads the caller's own data (`reads_own`: "my", "current", account,
  profile or settings, `/users/me`, anything of a controlled device); every other read reads its
  entity (`getCommentsByArticleId` lists comments by article, `retrieve_invoice` lists invoices).
- **arguments are sorted** into keys, references, filters, range bounds (`min_price` -> `price >=`,
  `created_after` -> `created_at >=`), text searches and options; pagination and output options
  (`page`, `limit`, `sort*`, `format`, `verbose`, `include_*`) never become columns or filters.
- **operations by effect**: create verbs insert into their entity's table; update verbs update an
  existing row and never insert (amount verbs such as `fund`/`withdraw`/`adjust` do arithmetic
  on a balance-like column, with a guard against going below zero or below what is reserved);
  delete verbs delete, or set a retired status where the entity has one; status verbs (`cancel`,
  `close`, `resolve`, `approve`, `ship` ...) set the status value with a precondition on the
  allowed current values, read from the description where it states them ("that has not shipped
  yet", "only pending orders").
- **policies**: the rules found in descriptions become preconditions and guards, and their text a
  short `policy` for the agent.
- **key types** are unified per table: a key declared `integer` by one tool and `string` by another
  makes a string key whose generated values are digits, so both tools work and no domain is
  rejected for the clash.

Nothing generated is executed as code; the spec is data run by `envscale.env.Environment`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from ..env.data import named_values
from ..words.inflect import plural, singular
from ..words.names import flag_state, sanitize_name, tokens
from ..words.semantics import (
    ACT_STATUS,
    OTHER_ROW_QUALIFIERS,
    ROW_QUALIFIERS,
    SINGLETON_RESOURCES,
    ToolMeaning,
    agent_side,
    argument_role,
    json_type,
    key_entity,
    linked_entity,
    name_key_entity,
    path_entities,
    person_entity,
    range_column,
    resolve_entity,
    route_parent_column,
    tool_meaning,
)
from ..words.verbs import READ_VERBS, RETIRED_STATUSES, STATUS_VERBS, WRITE_VERBS, act_said
from .aliases import effect_signature, same_api_operation
from .responses import ident, output_fields, row_fields, shape_overlap
from .statuses import OPPOSITES, allowed_statuses, allowed_while, antonym, sentences

_JSON_TO_COLUMN = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean"}
_AMOUNT_ARG = re.compile(r"^(?:(?P<prefix>[a-z_]+?)_)?(amount|delta|quantity|qty|units|value|sum|funds?)$")
_ADD_VERBS = {"fund", "deposit", "increase", "increment", "fill", "top", "topup", "load", "add", "credit"}
_SUB_VERBS = {"withdraw", "decrease", "decrement", "charge", "pay", "spend", "debit", "deduct"}
_SIGNED_VERBS = {"adjust"}
_MONEY_VERBS = {
    "fund",
    "deposit",
    "withdraw",
    "charge",
    "pay",
    "spend",
    "debit",
    "credit",
    "deduct",
    "transfer",
}
_SINGLETON_NOUNS = {"vehicle", "car", "device", "account", "user", "profile", "robot", "home", "thermostat"}
_OPEN_STATUSES = (
    "pending",
    "open",
    "active",
    "new",
    "draft",
    "created",
    "requested",
    "label_created",
    "queued",
    "scheduled",
    "submitted",
    "received",
    "initiated",
)
_LATER_STATES = re.compile(
    r"(cancell?ing|stopping|deleting|failing|closing|finishing|completing|terminating|fail(ed|ure)?|errou?r(ed)?|"
    r"expired|rejected|completed?|finished|done|success(ful)?|succeeded|closed|resolved|shipped|delivered|paid|"
    r"refunded|settled|archived|suspended|stopped|timed_?out|lost|missing)",
    re.IGNORECASE,
)


def _may_start(value: str) -> bool:
    """Whether a status value may be a new row's: not one it reaches later (failed, cancelling, shipped ...)."""
    return value.lower() not in RETIRED_STATUSES and not _LATER_STATES.fullmatch(value.strip())


_STATUS_NAMES = ("status", "state")
_TEXT_COLUMNS = ("name", "title", "subject", "full_name", "description", "content", "text", "body", "message")
_WHILE_HAS = re.compile(
    r"refused[^.]*?\bwhile\s+(?:the\s+)?(\w+)\s+(?:has|holds|contains)\s+(\w+)\s+that\s+are\s+not\s+([\w\s,]+?)"
    r"(?:[.;]|$)",
    re.I,
)


def column_type(schema: Any) -> str:
    return _JSON_TO_COLUMN.get(json_type(schema) or "", "json")


def _key_type(schema: Any) -> str:
    """The column type of a key argument: an id an API declares a `number` (Pendo's `/users/{id}`) is an integer
    id; read as a float it fit no string key, and the get-by-id became a list that ignored the id."""
    kind = column_type(schema)
    return "integer" if kind == "number" else kind


@dataclass
class _Use:
    """One tool in a domain with its meaning and sorted arguments."""

    tool: dict
    meaning: ToolMeaning
    table: str
    props: dict
    required: set
    key: str | None = None  # the argument addressing the tool's own row
    refs: dict = field(default_factory=dict)  # argument -> referenced entity
    ref_columns: dict = field(default_factory=dict)  # argument -> its column, where not `ident(argument)`
    values: dict = field(default_factory=dict)  # argument -> column
    ranges: list = field(default_factory=list)  # (argument, column, op)
    searches: list = field(default_factory=list)
    limit: str | None = None
    status_col: str | None = None  # the column a status verb sets
    composite: dict | None = None  # {column: argument} of a key made of several route ids
    collection: bool = False  # a read of a collection route (`GET /accounts`): rows, never the session row
    link: bool = False  # a route a bodiless PUT links (`PUT /tags/{tag_id}/shows/{show_id}`: tag a show)
    restorable: bool = False  # another tool of the API restores the table's rows (`untrashCollection`)

    def ref_column(self, param: str) -> str:
        """The column a reference argument is stored under (`/categories/{id}/transactions`: `category_id`)."""
        return self.ref_columns.get(param) or ident(param)


@dataclass
class InferredSpec:
    """What `infer_spec` made of a domain: the spec, the tools left out and why, and notes."""

    spec: dict | None
    excluded: list[dict]
    notes: list[str]


_FIRST_READ = frozenset(
    "name title summary subject headline label status state email username phone date start end due amount "
    "price total type category description".split()
)


def _column_priority(column: str, schema: Any) -> int:
    """How early a table with more fields than it keeps takes a column: what a person reads a row by (its name,
    title, status, dates, amount) first, then other values, then objects and lists, query-string options last."""
    if isinstance(schema, dict) and schema.get("x-in") in ("query", "header", "cookie"):
        return 3
    if column.split("_")[-1] in _FIRST_READ:
        return 0
    return 2 if isinstance(schema, dict) and json_type(schema) in ("object", "array") else 1


class _Tables:
    """The tables being inferred: columns with every schema bound to them, keys, references."""

    def __init__(self, max_columns: int):
        self.max_columns = max_columns
        self.tables: dict[str, dict] = {}
        self.schemas: dict[tuple[str, str], list] = {}
        self.key_types: dict[str, Counter] = {}
        self.session: str | None = None  # the singleton table holding the session row
        self.explicit: dict[tuple[str, str], str] = {}  # (table, column) -> table a route names
        self.unique: dict[str, list[str]] = {}  # table -> columns that together name one row
        self.known: set[str] = set()  # the entities tools act on
        self.person: str | None = None  # the entity holding the environment's people

    def table(self, entity: str, pk: str | None = None) -> str:
        name = ident(plural(entity))
        if name not in self.tables:
            pk = pk or ident(f"{entity}_id")
            self.tables[name] = {"primary_key": pk, "columns": {pk: None}, "entity": entity}
            self.key_types[name] = Counter()
        return name

    def column(self, table: str, column: str, schema: Any, *, force: bool = False) -> str | None:
        """The table's column named `column` (made, unless the table is full), or the one it already has of the
        same name spelled apart or together (`endtime` is `end_time`, `meetingid` the key `meeting_id`): one
        field, one column, so an update through one spelling is what a read through the other returns."""
        columns = self.tables[table]["columns"]
        squashed = column.replace("_", "")
        column = next((c for c in columns if c.replace("_", "") == squashed), column)
        column = _own_twin(table, column, columns)
        # Avaza's `ProjectIDFK` beside a `?ProjectID=` filter: one reference, one column
        twin = column + "fk" if column.endswith("_id") else column[:-2] if column.endswith("_idfk") else None
        if column not in columns and twin in columns:
            column = twin
        if column not in columns:
            if len(columns) >= self.max_columns and not force:
                return None
            columns[column] = None
        if schema is not None:
            self.schemas.setdefault((table, column), []).append(schema)
        return column


def _own_twin(table: str, column: str, columns: dict) -> str:
    """The column a table already has for the same field under its entity's prefix or without it: a
    project's `project_title` is its `title`, a leave's `leave_start_date` its `start_date` (Avaza names a field
    both ways in two schemas of one resource). Two columns would hold two titles of one project, and a read
    through one would not show an update through the other. Keys stay apart (`project_id` is not an `id`)."""
    entity = singular(table).split("_")[-1] + "_"
    bare = column[len(entity) :] if column.startswith(entity) else None
    if bare and bare in columns and not _twin_key(bare):
        return bare
    if not _twin_key(column) and entity + column in columns:
        return entity + column
    return column


def _twin_key(column: str) -> bool:
    return bool({"id", "uid", "uuid", "key", "idfk", "idfks", "ids"} & set(column.split("_")))


_SESSION = "<session>"
_ATTRIBUTE_NOUNS = {
    "cost",
    "price",
    "balance",
    "history",
    "stat",
    "stats",
    "info",
    "detail",
    "count",
    "total",
    "summary",
    "level",
    "rate",
    "availability",
    "result",
    "report",
    "status",
    "list",
    "statistic",
    "id",
}
_AUTH_VERBS = {"login", "logout", "authenticate", "signin", "signout", "logon", "logoff"}


def _another_of_its_kind(param: str, entity: str | None) -> bool:
    """Whether a key argument names another row of `entity`'s kind: `parent_folder_id` of a folder (where the new
    folder goes), `source_account_id` of an account; never the row's own key."""
    ent = key_entity(param)
    if not ent or not entity:
        return False
    words, own = ent.split("_"), entity.split("_")
    return (
        len(words) > len(own)
        and words[-len(own) :] == own
        and bool(OTHER_ROW_QUALIFIERS & set(words[: -len(own)]))
    )


def _names(column: str, obj: str) -> bool:
    """Whether a column already names the tool's object (`new_status` for `updateNewStatus`): prefixing it
    would read the object twice (`status_new_status`)."""
    return set(obj.split("_")) <= set(column.split("_"))


def _without_agent_side(tool: dict) -> dict:
    """The tool without its agent-side arguments (`envscale.words.semantics.agent_side`: headers, cookies,
    credentials): the environment plays the server, the client sends them with every call, so they are
    never columns, filters or facts a user states. The `api_pool` tool keeps them."""
    params = tool.get("parameters")
    props = params.get("properties") if isinstance(params, dict) else None
    if not isinstance(props, dict):
        return tool
    dropped = {p for p, s in props.items() if agent_side(p, s)}
    if not dropped:
        return tool
    kept = {p: s for p, s in props.items() if p not in dropped}
    required = [r for r in params.get("required") or [] if r not in dropped]
    return {**tool, "parameters": {**params, "properties": kept, "required": required}}


_VERSIONED_SEGMENT = re.compile(r"^([A-Za-z][A-Za-z_-]*?)[-_]v\d+(?:\.\d+)*$")


def _unversioned(tool: dict) -> dict:
    """The tool with the version run into its route's collections dropped: Crucible's `/rest-service/reviews-v1/{id}`
    reads reviews (seed 87's and 88's readers found its reviews in a table named `c_1_s`)."""
    notes = tool.get("annotations")
    path = notes.get("path") if isinstance(notes, dict) else None
    if not isinstance(path, str) or not re.search(r"[-_]v\d", path):
        return tool
    segments = [(m.group(1) if (m := _VERSIONED_SEGMENT.match(seg)) else seg) for seg in path.split("/")]
    return {**tool, "annotations": {**notes, "path": "/".join(segments)}}


def _props(tool: dict) -> dict:
    props = (tool.get("parameters") or {}).get("properties")
    return props if isinstance(props, dict) else {}


def _refine(tool: dict, m: ToolMeaning, ids: Counter) -> ToolMeaning:
    """Meanings seen across the domain: `get_flight_cost` reads flights, `book_flight` returning a
    `booking_id` creates a booking, `login`/`logout` act on the session row."""
    if m.verb in _AUTH_VERBS or (m.entity in ("login", "auth", "authentication") and m.effect == "read"):
        return replace(m, entity=_SESSION, parent=None)
    routed = isinstance(tool.get("annotations"), dict) and tool["annotations"].get("path")
    if m.entity in _ATTRIBUTE_NOUNS and m.parent and not routed:
        return replace(m, entity=m.parent, parent=None)
    if m.effect == "create" and not (routed and m.evidence.startswith("HTTP POST to a collection")):
        # (`POST /scrobble/shows` makes a show whatever other ids a show returns: its `tag_id` made it a tag)
        given = {key_entity(p) for p in _props(tool)}  # `ticket_id` given: the ticket is the parent
        returned = [
            e
            for f in output_fields(tool.get("output_schema"))
            if (e := key_entity(f)) and ids.get(e) and e not in given
        ]
        if len(returned) == 1 and returned[0] != m.entity:
            return replace(m, entity=returned[0], parent=m.entity)
    return m


_SELF_WORDS = frozenset({"my", "me", "mine", "own", "self", "current", "whoami"})
_OWN_NOUNS = frozenset(
    {
        "account",
        "user",
        "profile",
        "setting",
        "preference",
        "me",
        "self",
        "identity",
        "whoami",
        "info",
        "detail",
        "login",
        "logon",
        "auth",
        "authentication",
        "session",
    }
    | SINGLETON_RESOURCES
)
_DEVICES = frozenset({"vehicle", "car", "device", "robot", "home", "thermostat"})


def reads_own(tool: dict, m: ToolMeaning, singleton: str) -> bool:
    """Whether a read with no row of its own reads the caller's own data, answered by the session row.

    The caller's own data is what its name says is theirs ("my", "me", "current", "self"), their account,
    profile or settings (`get_account_info`, `getTaxSettings`, `GET /users/me`, `GET /user`), an attribute of
    the session row (`get_balance`), or anything of a controlled device (`check_tire_pressure` reads the
    vehicle). Every other read reads its own entity: `getCommentsByArticleId` lists comments,
    `retrieve_invoice` lists invoices, never the account row.

    Args:
        tool: the tool (its name and HTTP route).
        m: its meaning.
        singleton: the entity of the domain's session row (`account`, `vehicle` ...).

    Returns:
        True when the session row answers it.

    Example:

    ```python
    >>> from envscale.words.semantics import tool_meaning
    >>> reads_own({"name": "getCommentsByArticleId"}, tool_meaning("getCommentsByArticleId"), "account")
    False
    >>> reads_own({"name": "get_my_profile"}, tool_meaning("get_my_profile"), "account")
    True
    ```
    """
    if singleton in _DEVICES:
        return True
    notes = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
    if m.entity and m.entity != _SESSION and collection_route(notes.get("path"), m.entity):
        return False  # `GET /accounts`, `GET /users/{id}/accounts`: the API's collection, not the caller
    path = str(notes.get("path") or "")
    if m.entity and m.entity not in (_SESSION, singleton):
        if m.verb == "count":
            return False  # `GET /me/directReports/$count`: how many direct reports, never the session row
        if re.search(r"(^|/)me(/|$)", path) and collection_route(
            re.sub(r"(^|/)me(?=/|$)", "", path), m.entity
        ):
            return False  # `GET /me/onlineMeetings`: the caller's meetings are rows of meetings
    if m.entity in (_SESSION, singleton):
        return True
    words = set(tokens(tool.get("original_name") or tool.get("name") or ""))
    if words & _SELF_WORDS:
        return True
    keyed = "{" in str(notes.get("path") or "")
    if (
        keyed
        and m.parent
        and m.parent not in (_SESSION, singleton)
        and m.parent not in _OWN_NOUNS | _ATTRIBUTE_NOUNS
    ):
        return False  # `GET /budgets/{budget_id}/settings`: that budget's settings, not the caller's
    if m.entity in _ATTRIBUTE_NOUNS and _owned_by_another(tool, m.entity):
        return False  # `TaskStatus_Get`: the statuses of tasks, not the caller's status
    nouns = {m.entity, *(m.entity or "").split("_")[-1:]}
    if nouns & (_OWN_NOUNS | _ATTRIBUTE_NOUNS):
        return True
    segments = [seg for seg in str(notes.get("path") or "").strip("/").split("/") if seg]
    statics = [singular(seg.lower()) for seg in segments if not seg.startswith("{")]
    return "me" in statics or bool(
        segments and not segments[-1].startswith("{") and statics[-1] in _OWN_NOUNS
    )


def _owned_by_another(tool: dict, attribute: str) -> bool:
    """Whether the word before an attribute in a tool's name is another thing's (`TaskStatus_Get`: a task's
    status), not a verb or the caller (`get_balance`, `getAccountBalance`, `get_my_status`)."""
    words = [singular(w) for w in tokens(tool.get("original_name") or tool.get("name") or "")]
    if attribute not in words:
        return False
    i = words.index(attribute)
    before = words[i - 1] if i else None
    return bool(before and before not in _OWN_NOUNS | _SELF_WORDS | _ATTRIBUTE_NOUNS | READ_VERBS)


def collection_route(path: Any, entity: str) -> bool:
    """Whether a route reads a collection of `entity`: it ends in the entity's plural (`/accounts`,
    `/users/{id}/accounts`), no segment is `me` (`/me/accounts` is the caller's own) and the entity is no
    singleton resource (`/settings` is one row).

    Example:

    ```python
    >>> collection_route("/budgets/{budget_id}/accounts", "account"), collection_route("/user", "user")
    (True, False)
    >>> collection_route("/users/{id}/transaction_accounts", "account")
    True
    ```
    """
    statics = [
        seg.lower() for seg in str(path or "").strip("/").split("/") if seg and not seg.startswith("{")
    ]
    segments = [seg for seg in str(path or "").strip("/").split("/") if seg]
    if not segments or segments[-1].startswith("{") or "me" in statics or entity in SINGLETON_RESOURCES:
        return False  # `/settings` is one row however it is spelled
    last = "_".join(tokens(segments[-1]))
    plurals = (ident(plural(entity)), plural(entity))
    # `/users/{id}/transaction_accounts`: a compound segment ending in the plural is the collection too
    return last != entity and (last in plurals or any(last.endswith(f"_{p}") for p in plurals))


_SOURCES = frozenset({"source", "src", "source_path", "source_file", "from_path"})
_DESTINATIONS = frozenset({"destination", "dest", "target", "destination_path", "target_path", "to_path"})
_CONTAINERS = ("directory", "folder")
_MOVES = frozenset({"mv", "move", "relocate"})


def _move(use: _Use, tables: _Tables) -> None:
    """`mv(source, destination)` moves a row into a container: `source` names the row (its key) and
    `destination` the directory or folder it goes to (a reference), so that a move changes where the row
    is and never stores the words of the call."""
    if use.meaning.effect != "update" or use.key is not None or use.meaning.verb not in _MOVES:
        return  # a copy (`cp`) makes a new row; it never moves the original
    strings = {p: "_".join(tokens(p)) for p, sch in use.props.items() if json_type(sch) in ("string", None)}
    source = next((p for p, w in strings.items() if w in _SOURCES), None)
    destination = next((p for p, w in strings.items() if w in _DESTINATIONS), None)
    entity = tables.tables[use.table]["entity"]
    container = next((c for c in _CONTAINERS if c in tables.known and c != entity), None)
    if source is None or destination is None or container is None:
        return
    use.key = source
    use.values.pop(source, None)
    use.values.pop(destination, None)
    column = ident(f"{container}_id")
    use.refs.pop(destination, None)
    use.values[destination] = column
    tables.explicit[(use.table, column)] = tables.table(container)


def _singleton_table(domain: dict) -> str:
    """The entity of a domain's session row: a device or account named by its API, else `account`."""
    groups = domain.get("groups") or {}
    group = max(groups, key=groups.get) if isinstance(groups, dict) and groups else domain.get("name") or ""
    for word in tokens(str(group)):
        if word in _SINGLETON_NOUNS:
            return word
    return "account"


_WHICH_ROWS = frozenset(
    {"historical", "history", "past", "previous", "recent", "upcoming", "future", "current"}
)
_UNQUALIFYING = re.compile(r"v\d+(\.\d+)?\w*|api|apis|rest|me|self|current|public|admin|\d+")


def entity_qualifier(path: Any, entity: str | None) -> tuple[str, str] | None:
    """What tells the resource of a route apart from others of the same head noun: ("modifier", words) of a
    segment of several words (`/accounts/{a}/external_accounts/{id}`: `external`), ("prefix", segment) of a
    static segment right before it (`/fax/receipts`: `fax`); `None` for a bare resource (`/accounts/{id}`).
    """
    if not isinstance(path, str) or not entity:
        return None
    segments = [s for s in path.strip("/").split("/") if s]
    for i in range(len(segments) - 1, -1, -1):
        seg = segments[i]
        if seg.startswith(("{", ":")):
            continue
        words = tokens(seg)
        if not words or singular(words[-1]) != entity.split("_")[-1]:
            continue
        if seg.lower().startswith("microsoft.") or any(w in READ_VERBS or w in WRITE_VERBS for w in words):
            return None  # `microsoft.graph.setPresence`, `groups/create`: an act on a resource, never one of its own
        if len(words) > 1:
            if any(w in ROW_QUALIFIERS or w in _WHICH_ROWS for w in words[:-1]):
                return None  # `historicalWebinars`: which webinars, not a resource of their own
            return "modifier", "_".join(words[:-1])
        before = segments[i - 1] if i > 0 else ""
        if before and not before.startswith(("{", ":", "@")) and not _UNQUALIFYING.fullmatch(before.lower()):
            words = tokens(before)  # `/locations/services`: a location's services, `location_services`
            prefix = "_".join([*words[:-1], singular(words[-1])]) if words else ""
            return ("prefix", prefix) if prefix else None
        return None
    return None


def under_a_key(path: Any, entity: str | None) -> bool:
    """Whether a route's resource segment follows a path parameter: `/repositories/{id}/environments/{e}/secrets`
    holds an environment's secrets (a sub-resource, keyed by its parent), never the API's bare `secrets`."""
    if not isinstance(path, str) or not entity:
        return False
    segments = [s for s in path.strip("/").split("/") if s]
    for i in range(len(segments) - 1, 0, -1):
        words = [] if segments[i].startswith(("{", ":")) else tokens(segments[i])
        if words and singular(words[-1]) == entity.split("_")[-1]:
            return segments[i - 1].startswith(("{", ":"))
    return False


_WHEN = re.compile(r"(?:^|_)(?:date|year|month|day|time|datetime|timestamp|period)$")
"""A route parameter that says when (`{startDate}`, `{year}`): after the row's own key, it qualifies the row."""


_AS = re.compile(r"(?:^|_)(?:format|extension|ext|encoding|locale|lang|language|variant)$")
"""A route parameter that says how a row is read (`{format}`): after the row's own key, never its key."""


def qualified_keys(path: Any, path_keys: dict[str, str], entity: str | None) -> dict[str, str]:
    """The route's keys with the one of a qualified resource named by its qualified entity: in
    `/v1/accounts/{account}/external_accounts/{id}`, `id` keys an `external_account` and `account` an account."""
    if not entity or "_" not in entity or entity in path_keys.values() or not isinstance(path, str):
        return path_keys
    head = entity.split("_")[-1]
    segments = [s for s in path.strip("/").split("/") if s]
    for i in range(len(segments) - 2, -1, -1):
        seg, after = segments[i], segments[i + 1]
        words = [] if seg.startswith(("{", ":")) else tokens(seg)
        if words and singular(words[-1]) == head and after.startswith(("{", ":")):
            param = after.strip("{}:")
            if path_keys.get(param) == head:
                return {**path_keys, param: entity}
            return path_keys
    return path_keys


def _enum_words(tool: dict) -> set[str]:
    """The string enum values of a tool's arguments and output fields, as identifiers."""
    out = output_fields(tool.get("output_schema"))
    schemas = [*((tool.get("parameters") or {}).get("properties") or {}).values(), *out.values()]
    return {
        ident(v) for s in schemas if isinstance(s, dict) for v in s.get("enum") or [] if isinstance(v, str)
    }


def qualify_entities(kept: list[tuple[dict, ToolMeaning]]) -> list[tuple[dict, ToolMeaning]]:
    """Keep apart the resources of one API that share a head noun, so that they are not one table.

    `/v1/accounts/{account}`, `/v1/accounts/{account}/external_accounts/{id}` and `.../bank_accounts/{id}` are
    three resources, as are `/fax/receipts` and `/sms/receipts`: deleting an external account must not delete
    an account. A route's entity is qualified (`external_account`, `fax_receipt`) when its head noun is met
    with another qualifier in the domain: a segment of several words against the bare noun or another
    modifier; a static prefix only against another static prefix and never beside the bare noun (`/store/orders`
    beside `/orders` stays one resource, as do `/hris/employees` and `/payrolls/employees` beside `/employees`).
    Of several prefixes, the one with the most tools keeps the bare noun (`/hris/employees`, its CRUD, stays
    `employees` beside `/hris/payrolls/employees`). A modifier that says which rows (`historicalWebinars`) or an enum value of the resource's fields (a kind:
    `infra_alerts` with `kind: [infra, ...]`, see `sibling_kinds`) qualifies nothing. Routes with one qualifier throughout, and tools without a route, are left as they are.
    """
    quals: dict[str, set[tuple[str, str] | None]] = {}
    kinds: dict[str, set[str]] = {}  # an entity's enum values: `infra_alerts` of a `kind: [infra, ...]`
    found: list[tuple[str, str] | None] = []
    top: set[str] = set()  # entities with a bare route of their own, not only under a parent's key
    for tool, m in kept:
        notes = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
        q = entity_qualifier(notes.get("path"), m.entity) if notes.get("path") else None
        found.append(q)
        if notes.get("path") and m.entity:
            quals.setdefault(m.entity, set()).add(q)
            if q is None and not under_a_key(notes.get("path"), m.entity):
                top.add(m.entity)
            kinds.setdefault(m.entity, set()).update(_enum_words(tool))
    # of several prefixes, one with more tools than any other keeps the bare noun: `/hris/employees` (its
    # CRUD) stays `employees` beside `/hris/payrolls/employees` and `/hris/schedules/employees`
    counts: dict[str, Counter] = {}
    for (_tool, m), q in zip(kept, found, strict=True):
        if q is not None and q[0] == "prefix" and m.entity:
            counts.setdefault(m.entity, Counter())[q] += 1
    leading = {
        e: top[0][0] for e, c in counts.items() if len(top := c.most_common(2)) == 1 or top[0][1] > top[1][1]
    }
    shapes = _response_shapes(kept, found)
    out = []
    for (tool, m), q in zip(kept, found, strict=True):
        if q is not None and q[1] in kinds.get(m.entity or "", ()):
            q = None  # one resource of several kinds, told apart by a column (`sibling_kinds`)
        met = {
            x if x is None or x[1] not in kinds.get(m.entity or "", ()) else None
            for x in quals.get(m.entity or "", set())
        }
        modifiers = {x for x in met if x and x[0] == "modifier"}
        prefixes = {x for x in met if x and x[0] == "prefix"}
        # a bare noun under a parent's key (`/environments/{e}/secrets`) is the parent's, and keeps no prefixed
        # resource together: GitHub's `actions/secrets` and `dependabot/secrets` are two resources beside it
        bare = None in met and m.entity in top
        split = q is not None and (
            (q[0] == "modifier" and (len(modifiers) > 1 or None in met or prefixes))
            or (q[0] == "prefix" and len(prefixes) > 1 and not bare)
        )
        # beside the bare noun, which keeps it, a prefix whose routes return another kind of row
        reshaped = q is not None and q[0] == "prefix" and None in met and _other_shape(shapes, m.entity, q)
        if reshaped or (split and not (q[0] == "prefix" and q == leading.get(m.entity or ""))):
            m = replace(m, entity=ident(f"{q[1]}_{m.entity}"))
        out.append((tool, m))
    return out


_SHAPE_OVERLAP = 0.25
"""At most this share of shared fields (Jaccard) makes a prefixed route's resource another than the bare noun's."""


def _response_shapes(
    kept: list[tuple[dict, ToolMeaning]], found: list[tuple[str, str] | None]
) -> dict[tuple[str, tuple[str, str] | None], set[str]]:
    """The response fields of each (entity, qualifier) of the domain's routes: what the API returns for a row."""
    shapes: dict[tuple[str, tuple[str, str] | None], set[str]] = {}
    for (tool, m), q in zip(kept, found, strict=True):
        if m.entity:
            shapes.setdefault((m.entity, q), set()).update(row_fields(tool.get("output_schema"), m.entity))
    return shapes


def _other_shape(
    shapes: dict[tuple[str, tuple[str, str] | None], set[str]], entity: str | None, q: tuple[str, str]
) -> bool:
    """Whether a prefixed route returns another kind of row than the bare noun's routes: both responses describe
    enough fields and share at most `_SHAPE_OVERLAP` of them (`responses.shape_overlap`). Seen at scale: an account's
    `/wallet/account/{id}` beside `/account/{id}`, a device's `/strategy/vars/int64s` beside `/int64s`; one table
    for both made each tool of one a duplicate of the other's. GitHub's `/pulls/comments/{id}` beside
    `/pulls/{n}/comments` returns the same review comment, and stays one resource."""
    overlap = shape_overlap(shapes.get((entity or "", q), set()), shapes.get((entity or "", None), set()))
    return overlap is not None and overlap <= _SHAPE_OVERLAP


_PROBES = frozenset("health healthcheck healthz ping heartbeat liveness readiness".split())
_SERVICE_MEASURES = frozenset("metrics stats statistics".split())
_SERVICE_WORDS = frozenset(
    "get list read fetch check show db database app application server service system api".split()
)


def service_probe(name: str, effect: str) -> bool:
    """Whether a read is a probe of the service itself, no entity of its world: WhatsApp's `CheckHealth`,
    `GetMetrics` and `GetDbStats` made tables `healths`, `metrics` and `dbs` of a name each (seed 91's readers:
    padding). A player's or a campaign's stats are the world's, and stay."""
    words = set(tokens(name))
    if effect != "read" or not words:
        return False
    return bool(words & _PROBES) or bool(
        words & _SERVICE_MEASURES and words - _SERVICE_MEASURES <= _SERVICE_WORDS
    )


def infer_spec(
    domain: dict, tools: list[dict], *, rows: int, seed: int, max_columns: int = 40
) -> InferredSpec:
    """The environment spec of one domain (deterministic), or `spec=None` when nothing stateful is left."""
    excluded: list[dict] = []
    notes: list[str] = []
    kept: list[tuple[dict, ToolMeaning]] = []
    tools = [_unversioned(_without_agent_side(tool)) for tool in tools]
    for tool in tools:
        meaning = tool_meaning(
            tool.get("original_name") or tool["name"],
            tool.get("description"),
            tool.get("parameters"),
            tool.get("annotations"),
        )
        if meaning.effect == "computation":
            excluded.append({"tool": tool["name"], "reason": f"pure computation ({meaning.evidence})"})
        elif service_probe(tool.get("original_name") or tool["name"], meaning.effect):
            excluded.append(
                {"tool": tool["name"], "reason": "a probe of the service itself (health, metrics)"}
            )
        else:
            kept.append((tool, meaning))
    ids = Counter(e for tool, _ in kept for p in _props(tool) if (e := key_entity(p) or name_key_entity(p)))
    kept = [(tool, _refine(tool, m, ids)) for tool, m in kept]
    kept = qualify_entities(kept)
    if not kept or len(excluded) > len(tools) / 2:
        return InferredSpec(
            None,
            excluded,
            [f"{len(excluded)} of {len(tools)} tools are pure computations or probes of the service"],
        )

    tables = _Tables(max_columns)
    # 1. which entities are tables: those some tool keys, creates, deletes or lists
    keyed: Counter = Counter()
    for tool, m in kept:
        props = (tool.get("parameters") or {}).get("properties") or {}
        for param in props:
            ent = key_entity(param) or name_key_entity(param)
            if ent:
                keyed[ent] += 1
        if (
            m.entity
            and m.entity != _SESSION
            and (
                m.effect in ("create", "delete")
                or m.verb in ("list", "search", "find")
                or (m.effect == "read" and any(argument_role(p, s) == "value" for p, s in props.items()))
            )
        ):
            keyed[m.entity] += 1
    singleton = None
    acted_on = {m.entity for _tool, m in kept if m.entity}  # the entities the domain's tools name

    def entity_table(
        tool: dict, m: ToolMeaning, props: dict, path_keys: dict
    ) -> tuple[str | None, str | None]:
        """(table, key argument) a tool acts on; no table for a read of nothing the environment holds."""
        nonlocal singleton
        path = str((tool.get("annotations") or {}).get("path") or "")
        if (
            m.entity
            and m.entity != _SESSION
            and m.effect in ("read", "update")
            and re.search(rf"/{re.escape(plural(m.entity))}/(me|self|current)/?$", path.lower())
            and (
                m.entity in _OWN_NOUNS
                or m.entity in ("member", "person", "customer", "employee")
                or not path.lower().rstrip("/").endswith("current")
            )
            and singleton in (None, m.entity)
        ):
            # Okta's `GET /api/v1/users/me`: the caller's own user row, never every user
            singleton = m.entity
            tables.session = ident(plural(m.entity))
            return tables.table(m.entity), None
        own = None
        for param, ent in path_keys.items():  # `/lists/{tasklist}/tasks/{task}`: `task` keys a task
            if param in props and m.entity and ent == m.entity:
                named = key_entity(param)
                qualified = m.entity.endswith(f"_{named}")  # `comment_id` of `/pulls/comments/{comment_id}`
                if named and named != m.entity and not qualified and len(path_keys) >= 2 and keyed.get(named):
                    # `/warehouses/{warehouse_id}/inventory/{product_id}`: a row named by two ids
                    return tables.table(m.entity), None
                if (
                    named
                    and len(path_keys) == 1
                    and named.split("_")[-1] != m.entity.split("_")[-1]
                    and acted_on & {named}
                ):
                    # elmah.io's `DELETE /v3/messages/{logId}`: the log's messages, never the message keyed by a log id
                    continue
                if own is not None and (
                    _WHEN.search(low := "_".join(tokens(param)).lower()) or _AS.search(low)
                ):
                    # Paylocity's `/earnings/{earningCode}/{startDate}`: the code keys it, the date dates it; Flat's
                    # `/revisions/{revision}/{format}`: the format it is read in (blind readers: "keyed by format")
                    continue
                own = param
        if own is None and m.entity:  # `order_id` for an order; then `external_order_id`
            named = {p: key_entity(p) or name_key_entity(p) for p in props}
            own = next((p for p, e in named.items() if e == m.entity), None) or next(
                (
                    p
                    for p, e in named.items()
                    # `parent_folder_id` of `foldersAdd` is where the new folder goes, never its own key
                    if e
                    and e.split("_")[-1] == m.entity.split("_")[-1]
                    and not _another_of_its_kind(p, m.entity)
                ),
                None,
            )
        linked = linked_entity(m.entity, m.parent)
        if own is None and linked:
            # `/user/follows/networks/{network_id}`: a follow is keyed by the network it links, so that
            # unfollowing deletes the follow and never the network
            own = next((p for p in props if (key_entity(p) or path_keys.get(p)) == linked), None)
        if own is None and "id" in props and m.entity and path_keys.get("id", m.entity) == m.entity:
            own = "id"  # never the `id` of another resource of the route (`/users/{id}/institutions`)
        if m.entity and m.entity != _SESSION and (keyed.get(m.entity) or own):
            pk = ident(f"{linked}_id") if linked else ident(own) if own and own != "id" else None
            return tables.table(m.entity, pk), own
        if m.entity is None and props:
            for param in props:  # `get_user_tweets(username)`: the key names the entity
                ent = key_entity(param) or name_key_entity(param)
                if ent:
                    return tables.table(ent, ident(param) if name_key_entity(param) else None), param
        if m.effect == "read" and not reads_own(tool, m, _singleton_table(domain)):
            if m.entity is None or m.entity == _SESSION:
                return None, None  # reads nothing the environment holds
            return tables.table(m.entity), None  # `getCommentsByArticleId`: comments, filtered by article
        if m.effect in ("update", "status"):
            # `PUT /courses/{contentId}/metadata/category`: a part of the course its route addresses, never the
            # caller's own row (the session's accounts row took the course's category)
            parent = next(
                (
                    (p, e)
                    for p, e in reversed(list(path_keys.items()))
                    if p in props and e != m.entity and (keyed.get(e) or e in acted_on) and e != _SESSION
                ),
                None,
            )
            if parent is not None:
                return tables.table(parent[1]), parent[0]
        routed = isinstance(tool.get("annotations"), dict) and tool["annotations"].get("path")
        if (
            routed
            and m.effect in ("update", "status")
            and m.entity
            and m.entity != _SESSION
            and not reads_own(tool, m, _singleton_table(domain))
        ):
            # Billbee's `POST /api/v1/products/updatestockcode` changes a product (found by its SKU, or by nothing
            # this world holds), never the caller's own row (it set `product_sku` on the session's account)
            return tables.table(m.entity), None
        if singleton is None:
            singleton = _singleton_table(domain)
            if singleton == "account" and keyed.get("account"):
                # YNAB's `/budgets/{b}/accounts/{a}`, PocketSmith's accounts: the bank accounts are rows of their
                # own, and the caller's row is its user's, never one more of them
                singleton = next((w for w in ("user", "profile") if not keyed.get(w)), singleton)
            tables.session = ident(plural(singleton))
        return tables.table(singleton), None

    links = link_routes(tool for tool, _m in kept)
    uses: list[_Use] = []
    for tool, m in kept:
        params = tool.get("parameters") or {"type": "object", "properties": {}}
        props = params.get("properties") or {}
        notes = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
        path_keys = qualified_keys(notes.get("path"), path_entities(notes.get("path")), m.entity)
        table, key = entity_table(tool, m, props, path_keys)
        if table is None:
            excluded.append({"tool": tool["name"], "reason": "a read of nothing the environment holds"})
            continue
        if table == tables.session and m.effect == "read" and m.entity != _SESSION:
            # what the caller's own row says of them: `check_tire_pressure` reads the vehicle's pressure
            m = replace(m, entity=tables.tables[table]["entity"], parent=m.entity or m.parent)
        use = _Use(tool, m, table, props, set(params.get("required") or []), key=key)
        use.link = notes.get("path") in links and notes.get("method") in ("PUT", "POST", "DELETE")
        entity = tables.tables[table]["entity"]
        use.collection = (
            m.effect == "read"
            and key is None
            and entity not in _DEVICES
            and collection_route(notes.get("path"), entity)
        )
        if (
            key is None
            and len(path_keys) >= 2
            and m.entity in path_keys.values()
            and all(p in props and key_entity(p) for p in path_keys)
        ):
            # a row named by every id of its route: a stock level per (warehouse, product)
            use.composite = {ident(p): p for p in path_keys}
            tables.unique.setdefault(table, list(use.composite))
        for param, schema in props.items():
            if param == key:
                continue
            if use.composite and param in path_keys:  # each id of a composite key is a reference
                ref = key_entity(param) or path_keys[param]
                use.refs[param] = ref
                keyed[ref] += 1
                continue
            if param in path_keys and path_keys[param] != entity:  # a parent in the route
                use.refs[param] = path_keys[param]
                column = route_parent_column(notes.get("path"), param)  # `/categories/{id}/..`: category_id
                if column:
                    use.ref_columns[param] = ident(column)
                tables.explicit[(table, use.ref_column(param))] = ident(plural(path_keys[param]))
                keyed[path_keys[param]] += 1
                continue
            role = argument_role(param, schema, entity=entity)
            if role == "pagination":
                if json_type(schema) == "integer" and param.lower() in (
                    "limit",
                    "max_results",
                    "top_k",
                    "page_size",
                    "per_page",
                    "num_results",
                    "count",
                    "n",
                ):
                    use.limit = param
            elif role == "option":
                continue
            elif role == "key" and _another_of_its_kind(param, entity):
                use.refs[param] = entity  # `parent_folder_id` of a folder: the folder it is in
            elif role == "key":
                use.values[param] = tables.tables[table]["primary_key"]
            elif role == "reference":
                ent = key_entity(param) or name_key_entity(param)
                last = ent.split("_")[-1]
                use.refs[param] = last if ent != last and keyed.get(last) and keyed[ent] <= 1 else ent
            elif role in ("range_min", "range_max"):
                use.ranges.append((param, ident(range_column(param)), "ge" if role == "range_min" else "le"))
            elif (
                role == "search"
                and json_type(schema) in ("string", None)
                and m.effect not in ("create", "update")
            ):
                use.searches.append(
                    param
                )  # what a read or a delete matches; `core_memory_add(text)` writes the text
            else:
                use.values[param] = _field_of_route(param, notes, m) or ident(param)
        if table == tables.session and m.entity not in (None, _SESSION, entity):
            # on the session row, `setHeadlights(mode)` and `adjustClimateControl(mode)` set
            # different things: each column is named after the tool's object
            obj = ident("_".join(x for x in (m.parent, m.entity) if x))
            use.values = {
                p: c
                if c.startswith(obj) or c == tables.tables[table]["primary_key"] or _names(c, obj)
                else ident(f"{obj}_{c}")
                for p, c in use.values.items()
            }
        uses.append(use)

    # 1b. a key naming an entity the environment has under another name references that entity's table:
    # `parent_folder_id` -> folders, `receiver_id` -> users; a key-only table only when no entity fits
    tables.known = {tables.tables[u.table]["entity"] for u in uses}
    tables.person = person_entity(tables.known)
    if tables.person is None and tables.session:
        session_entity = tables.tables[tables.session]["entity"]
        tables.person = session_entity if session_entity in ("account", "user", "profile") else None
    for use in uses:
        for param, ent in list(use.refs.items()):
            target = resolve_entity(ent, tables.known, person=tables.person)
            if target != ent:
                use.refs[param] = target
                tables.explicit[(use.table, use.ref_column(param))] = tables.table(target)
        _move(use, tables)

    # 2. columns: keys, references, values, output fields, ranges
    for use in uses:
        t = tables.tables[use.table]
        if use.key:
            tables.key_types[use.table][_key_type(use.props[use.key])] += 1
        for param, entity in use.refs.items():
            ref_table = tables.table(entity)
            tables.key_types[ref_table][_key_type(use.props[param])] += 0
            canonical = tables.column(use.table, use.ref_column(param), use.props[param])
            if canonical is not None and canonical != use.ref_column(param):
                use.ref_columns[param] = canonical
        values = list(use.values.items())
        if len(set(t["columns"]) | {c for _, c in values}) > tables.max_columns:
            # more fields than a table keeps: the ones a person reads first (an event's summary, status and
            # start before `supportsAttachments`), never the first in alphabetical order
            values.sort(key=lambda pc: _column_priority(pc[1], use.props.get(pc[0])))
        for param, column in values:
            if column == t["primary_key"]:
                continue
            canonical = tables.column(use.table, column, use.props[param])
            if canonical is None:
                del use.values[param]
            elif canonical != column:
                use.values[param] = canonical
        for n, (param, column, op) in enumerate(use.ranges):
            canonical = tables.column(
                use.table, column, {k: v for k, v in use.props[param].items() if k != "description"}
            )
            if canonical is not None and canonical != column:
                use.ranges[n] = (param, canonical, op)
        outputs = (
            {}
            if use.meaning.effect == "delete"
            else output_fields(use.tool.get("output_schema"), t["entity"])
        )
        if len(set(t["columns"]) | {ident(f) for f in outputs}) > tables.max_columns:
            outputs = dict(sorted(outputs.items(), key=lambda fs: _column_priority(ident(fs[0]), fs[1])))
        for fname, schema in outputs.items():
            column = ident(fname)
            if column in ("id",) or key_entity(fname) == tables.tables[use.table]["entity"]:
                continue
            tables.column(use.table, column, schema)
        routed = use.tool.get("annotations", {}) or {}
        if use.meaning.parent and keyed.get(use.meaning.parent) and not routed.get("path"):
            parent_table = tables.table(use.meaning.parent)  # `list_order_shipments`: shipments of an order
            if parent_table != use.table:
                fk = tables.tables[parent_table]["primary_key"]
                tables.column(use.table, fk, None)
                tables.explicit.setdefault((use.table, fk), parent_table)
    for use in uses:  # a status verb needs a status column
        if use.meaning.effect == "status":
            t = tables.tables[use.table]
            m = use.meaning
            enums = {
                c: [v for sch in tables.schemas.get((use.table, c), []) for v in _enum(sch)]
                for c in t["columns"]
            }
            if m.entity == t["entity"]:
                use.status_col = (
                    act_status_column(t["columns"], enums, t["entity"], m.status_value) or "status"
                )
            else:  # `startEngine` on the vehicle: the engine's own status column
                # ... or the state whose values hold what the act sets: `lockDoors` sets `lock_status` to locked
                # (a `door_status` of "active" or "locked" was made up beside it, and no vehicle could be locked)
                held = [
                    c
                    for c in t["columns"]
                    if c.endswith(("_status", "_state")) and set(m.status_value) & set(enums.get(c) or [])
                ]
                use.status_col = (
                    held[0]
                    if len(held) == 1
                    else ident("_".join(x for x in (m.parent, m.entity, "status") if x))
                )
            use.status_col = tables.column(
                use.table, use.status_col, None, force=True
            )  # what the act changes

    _describe_stubs(tables, uses, [tool for tool, _ in kept])
    natural = _natural_keys(uses, tables)
    spec_tables = _finish_tables(tables, uses)
    for table, group in tables.unique.items():
        if all(c in spec_tables[table]["columns"] for c in group):
            spec_tables[table]["unique"] = [group]
    for table, column in natural.items():
        spec_tables[table]["columns"][column]["unique"] = True
        spec_tables[table]["columns"][column].pop("nullable", None)
    restored = {use.table for use in uses if use.meaning.verb in _RESTORE_VERBS}
    for use in uses:
        use.restorable = use.table in restored
    spec_tools: list[dict] = []
    made: list[_Use] = []
    policy: list[str] = []
    names: Counter = Counter()
    for use in uses:
        name = _tool_name(use, names)
        op, rule = _operation(use, spec_tables, name, tables.session, natural)
        if op is None:
            excluded.append({"tool": use.tool["name"], "reason": rule or "no operation fits"})
            continue
        if rule:
            policy.append(rule)
        spec_tools.append(_tool(use, op, name))
        made.append(use)
    sibling_kinds(list(zip(made, spec_tools, strict=True)), spec_tables)
    if not spec_tools:
        return InferredSpec(None, excluded, notes + ["no tool left after inference"])
    used = {t["operation"]["table"] for t in spec_tools}
    for tool in spec_tools:
        for eff in tool["operation"].get("effects", []):
            used.add(eff["table"])
    # keep referenced tables (foreign keys must point at real rows)
    changed = True
    while changed:
        changed = False
        for table in list(used):
            for col in spec_tables[table]["columns"].values():
                ref = col.get("references")
                if ref and ref not in used:
                    used.add(ref)
                    changed = True
    spec_tables = {t: s for t, s in spec_tables.items() if t in used}
    name = ident(f"domain_{domain['domain_id']}_{domain['name']}")[:60]
    spec: dict[str, Any] = {
        "name": name,
        "description": f"Environment of domain {domain['domain_id']} ({domain['name']}).",
        "tables": spec_tables,
        "data": {"seed": seed, "rows": {t: rows for t in spec_tables}},
        "tools": spec_tools,
    }
    if policy:
        spec["policy"] = " ".join(dict.fromkeys(policy))
    if tables.session and tables.session in spec_tables:
        table = tables.session
        spec["session"] = {"table": table}
        spec["data"]["rows"][table] = 1
    return InferredSpec(spec, excluded, notes)


_KIND_COLUMNS = ("type", "kind", "category")
_KINDED = ("list", "insert", "update", "delete")


def _kind_words(use: _Use, shared: set[str]) -> list[str]:
    """The words of a tool's name that no sibling's name shares, its verb, entity and parent aside."""
    m = use.meaning
    own = {w for x in (m.verb, m.entity, m.parent) if x for w in x.split("_")}
    own |= {plural(w) for w in own} | set(m.status_value)
    words = tokens(use.tool.get("original_name") or use.tool["name"])
    return [w for w in words if w not in own and w not in shared and not w.isdigit() and len(w) > 1]


def kind_refusal(kind: str, table: str) -> str:
    """The error of an act on a row of another kind: `refused: this acts only on infra configs`."""
    return f"refused: this acts only on {kind.replace('_', ' ')} {table.replace('_', ' ')}"


def _apply_kind(op: dict, column: str, kind: str) -> None:
    """A list filters by the kind, an insert sets it, an act requires it."""
    if op["type"] == "list":
        op["filters"].append({"column": column, "op": "eq", "value": {"value": kind}})
    elif op["type"] == "insert":
        op["values"][column] = {"value": kind}
    elif op["type"] in ("update", "delete"):
        error = kind_refusal(kind, op["table"])
        op["preconditions"] = [
            {"column": column, "op": "eq", "value": kind, "error": error},
            *op.get("preconditions", []),
        ]


def sibling_kinds(made: list[tuple[_Use, dict]], tables: dict) -> None:
    """Tools of other API operations that inference gave one effect, told apart by a qualifier of their
    names (`find_infra_alert_config` / `find_mobile_app_alert_config`, `core_memory_add` /
    `archival_memory_add`): different kinds of one resource. Each gets its kind as a fixed value of the
    table's kind column (`type`, `kind`, `category`, else a new `kind` whose enum is the kinds): a list
    filters by it, an insert sets it, an update or delete requires it. Applied only when every tool of
    the set has a distinct qualifier of at most three words; reads of one row (`get`) are left alone
    (`check_tire_pressure` and `get_current_speed` read two attributes of one row, not two kinds).
    """
    groups: dict[str, list[tuple[_Use, dict]]] = {}
    for use, tool in made:
        if tool["operation"]["type"] in _KINDED:
            groups.setdefault(effect_signature(tool), []).append((use, tool))
    for group in groups.values():
        if len(group) < 2 or any(
            same_api_operation(a[1], b[1]) for i, a in enumerate(group) for b in group[i + 1 :]
        ):
            continue
        names = [set(tokens(u.tool.get("original_name") or u.tool["name"])) for u, _ in group]
        shared = set.intersection(*names)
        kinds = ["_".join(_kind_words(u, shared)) for u, _ in group]
        if not all(kinds) or len(set(kinds)) < len(kinds) or any(k.count("_") > 2 for k in kinds):
            continue
        op0 = group[0][1]["operation"]
        columns = tables[op0["table"]]["columns"]
        taken = {
            *(op0.get("set") or {}),
            *(op0.get("values") or {}),
            *(f["column"] for f in op0.get("filters", [])),
        }
        column = next(
            (c for c in _KIND_COLUMNS if c in columns and c not in taken and columns[c]["type"] == "string"),
            "kind",
        )
        if column in taken or (column in columns and columns[column]["type"] != "string"):
            continue
        spec = columns.setdefault(column, {"type": "string", "nullable": True})
        spec["enum"] = sorted({*spec.get("enum", []), *kinds})
        for (_use, tool), kind in zip(group, kinds, strict=True):
            _apply_kind(tool["operation"], column, kind)
        for use, tool in made:  # `create_infra_alert_config`: another tool of the table naming a kind
            op = tool["operation"]
            bound = {
                *(op.get("set") or {}),
                *(op.get("values") or {}),
                *(f["column"] for f in op.get("filters", [])),
            }
            if op["table"] != op0["table"] or column in bound or any(t is tool for _, t in group):
                continue
            words = _kind_words(use, set())
            named = {"_".join(words[i : i + n]) for n in (1, 2, 3) for i in range(len(words) - n + 1)}
            kind = next((k for k in kinds if k in named), None)
            if kind and op["type"] in _KINDED:
                _apply_kind(op, column, kind)


_SCALARS = ("string", "integer", "number", "boolean")
_KEY_WORDS = ("id", "key", "uuid", "gid", "ids", "type")


def described_fields(entity: str, schemas: list[Any]) -> dict[str, Any]:
    """The fields an API's own schemas give an entity that no tool reads or writes.

    Two places say what a referenced thing holds: an object named after it (`"organizer": {"properties":
    {"name": ..., "email": ...}}` in a response or a request body) and its fields flattened beside its key
    (`customer_id`, `customer_name`, `customerEmail` -> the customer's `name` and `email`).

    Args:
        entity: the entity (`customer`).
        schemas: the JSON schemas to read (output schemas, parameters).

    Returns:
        `{column: schema}`, first seen first; keys of other entities are left out.

    Example:

    ```python
    >>> described_fields("customer", [{"properties": {"customer_id": {}, "customer_name": {"type": "string"}}}])
    {'name': {'type': 'string'}}
    ```
    """
    found: dict[str, Any] = {}
    names = {entity, ident(plural(entity))}

    def walk(schema: Any, depth: int) -> None:
        if not isinstance(schema, dict) or depth > 8:
            return
        for part in ("allOf", "oneOf", "anyOf"):
            for sub in schema.get(part) or []:
                walk(sub, depth + 1)
        walk(schema.get("items"), depth + 1)
        props = schema.get("properties")
        if not isinstance(props, dict):
            return
        for fname, sub in props.items():
            column = ident(fname)
            if column in names:
                for inner, inner_schema in output_fields(sub).items():
                    col = ident(inner)
                    own_key = col in {f"{entity}_{k}" for k in _KEY_WORDS}
                    if col != "id" and not key_entity(inner) and col not in names and not own_key:
                        found.setdefault(col, inner_schema)
            elif column.startswith(entity + "_") and json_type(sub) in _SCALARS:
                attr = column[len(entity) + 1 :]
                numbered = attr[:1].isdigit()  # `team_1`, `team_2`: two teams, not fields of one
                if (
                    attr not in ("id", "key", "uuid", "gid", "ids", "type")
                    and not key_entity(attr)
                    and not numbered
                ):
                    found.setdefault(attr, sub)
            walk(sub, depth + 1)

    for schema in schemas:
        walk(schema, 0)
    return found


def _describe_stubs(tables: _Tables, uses: list[_Use], tools: list[dict]) -> None:
    """A table of keys alone (made for a key that names it, or read by tools that say nothing of its rows)
    holds the columns the API's schemas give its entity (`described_fields`), and at least a `name` a
    person can refer to it by (where its key is its name, `resourceGroupName`, the data holds the key there). A table
    some tool writes keeps what its writes give it."""
    written = {u.table for u in uses if u.meaning.effect != "read"}
    schemas = [s for tool in tools for s in (tool.get("output_schema"), tool.get("parameters")) if s]
    for table, t in tables.tables.items():
        keys = {
            c for c in t["columns"] if c == t["primary_key"] or key_entity(c) or (table, c) in tables.explicit
        }
        if table in written or set(t["columns"]) != keys:
            continue
        fields = described_fields(t["entity"], schemas)
        if not any(json_type(s) == "string" for s in fields.values()):
            fields.setdefault("name", {"type": "string", "description": f"The {t['entity']}'s name."})
        for column, schema in fields.items():
            tables.column(
                table,
                column,
                {k: v for k, v in schema.items() if k != "x-in"} if isinstance(schema, dict) else None,
            )


def _natural_keys(uses: list[_Use], tables: _Tables) -> dict[str, str]:
    """Tables whose rows are named rather than numbered: `add_to_watchlist(stock)` with no id anywhere
    makes `stock` the watchlist's unique natural key, by which its other tools address a row.

    A column is made unique only when it is a key or the API declares it unique: another tool of the
    table addresses a row by it (`remove_stock_from_watchlist(symbol)`), or it is the row's own email,
    username, slug or handle, or its schema says unique. An ordinary field a create tool requires
    (`post_tweet(content)`, `book_hotel(location)`) stays an ordinary column, so a second tweet with
    the same text or a second booking in the same city is not refused."""
    natural: dict[str, str] = {}
    for use in uses:
        t = tables.tables[use.table]
        if use.meaning.effect != "create" or use.key or use.table == tables.session:
            continue
        strings = [a for a in sorted(use.required) if json_type(use.props.get(a)) == "string"]
        if (
            len(strings) == 1
            and strings[0] in use.values
            and use.values[strings[0]] in t["columns"]
            and "enum" not in (use.props.get(strings[0]) or {})
            and (
                declared_unique(use.values[strings[0]], t["entity"], use.props.get(strings[0]))
                or _addressed_by_name(uses, use.table, use.values[strings[0]])
            )
        ):
            natural.setdefault(use.table, use.values[strings[0]])
    return natural


UNIQUE_WORDS = ("email", "username", "slug", "handle", "login", "user_name", "email_address")
"""Column names an API means as unique for its row (`email`, `user_email` of a user); see `declared_unique`."""
_RECORD_NOUNS = frozenset(
    {"token", "session", "message", "email", "notification", "invitation", "invite", "login", "log", "event"}
    | {"request", "attempt", "verification", "reset", "otp", "mail", "sms"}
)
"""Entities that are records of an act for someone: their email or username names the person, not the row."""
_SAYS_UNIQUE = re.compile(
    r"\bunique\b|\bmust\s+not\s+(?:already\s+)?(?:exist|be\s+taken|be\s+in\s+use)", re.I
)


def declared_unique(column: str, entity: str | None, schema: Any) -> bool:
    """Whether an API declares a column unique for its row: the row's own email, username, slug or handle
    (`email`, `customer_email` of a customer; never `workspace_slug` of a member, which names another
    row), or a schema saying so (`unique: true`, "a unique name").

    Example:

    ```python
    >>> declared_unique("email", "customer", {"type": "string"})
    True
    >>> declared_unique("workspace_slug", "member", {"type": "string"})
    False
    >>> declared_unique("content", "tweet", {"type": "string"})
    False
    ```
    """
    if isinstance(schema, dict) and (
        schema.get("unique") is True
        or schema.get("x-unique") is True
        or _SAYS_UNIQUE.search(str(schema.get("description") or ""))
    ):
        return True
    if entity and set(tokens(entity)) & _RECORD_NOUNS:
        return False  # a token or message for a username names its user, and a user has many
    for word in UNIQUE_WORDS:
        if column == word:
            return True
        owner = column[: -len(word) - 1] if column.endswith("_" + word) else None
        if owner and entity and owner in (ident(entity), ident(singular(entity))):
            return True
    return False


def _names_parent(path: Any, arg: str) -> bool:
    """Whether a route parameter names a row the route goes on from (`/{workspace_slug}/members`,
    `/lists/{list}/tasks`), not the route's own resource."""
    segments = str(path or "").strip("/").split("/")
    return "{" + arg + "}" in segments[:-1]


def _addressed_by_name(uses: list[_Use], table: str, column: str) -> bool:
    """Whether a tool other than a create addresses a row of `table` by one required string, as
    `_operation` keys it on a natural key (`remove_stock_from_watchlist(symbol)`)."""
    for use in uses:
        if use.table != table or use.meaning.effect == "create" or use.key or use.composite:
            continue
        strings = [a for a in use.required if json_type(use.props.get(a)) == "string"]
        notes = use.tool.get("annotations") if isinstance(use.tool.get("annotations"), dict) else {}
        if (
            len(strings) == 1
            and strings[0] not in use.searches  # `search_tweets(keyword)` looks rows up by their text
            and not _names_parent(notes.get("path"), strings[0])  # `/{workspace_slug}/members`
            and (
                use.values.get(strings[0]) == column
                or not (key_entity(strings[0]) or name_key_entity(strings[0]))
            )  # `get_user_tweets(username)` names the user, not a tweet
        ):
            return True
    return False


_GENERIC_VALUES = frozenset({"value", "val", "new_value", "newvalue"})
_PREFERENCE_SEGMENTS = frozenset({"prefs", "my_prefs", "preferences", "settings", "fields", "field"})


def _field_of_route(param: str, notes: dict, m: ToolMeaning) -> str | None:
    """The column a generic `value` of a write sets, where the route names the field: Trello's
    `PUT /boards/{idBoard}/prefs/selfJoin` (value) sets `self_join`, `/cards/{idCard}/name` the name; every such
    tool set one `value` column, each a duplicate of the others and "change its value" said of two fields."""
    if m.effect != "update" or "_".join(tokens(param)) not in _GENERIC_VALUES:
        return None
    path = notes.get("path")
    if not isinstance(path, str) or path.rstrip("/").endswith("}"):
        return None
    tail = path.rstrip("/").rsplit("}", 1)[-1] if "}" in path else ""
    words = ["_".join(tokens(seg)) for seg in tail.strip("/").split("/") if seg]
    words = [w for w in words if w and w not in _PREFERENCE_SEGMENTS]
    return ident("_".join(words)) if words else None


def link_routes(tools: Iterable[dict]) -> set[str]:
    """The routes of a domain that link two rows: a PUT with nothing but the route's ids
    (`PUT /user/tags/{tag_id}/shows/{show_id}`, "Tag a show"): a DELETE on one unlinks, never deletes the row."""
    tools = list(tools)
    made = set()  # collections rows are created in: Sakari's contacts are made under their account
    for tool in tools:
        notes = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
        if notes.get("method") == "POST" and isinstance(notes.get("path"), str):
            made.add(re.sub(r"\{[^}]+\}", "{}", notes["path"].rstrip("/")))
    out = set()
    for tool in tools:
        notes = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
        path, props = notes.get("path"), _props(tool)
        if notes.get("method") != "PUT" or not isinstance(path, str) or not path.rstrip("/").endswith("}"):
            continue
        ids = set(re.findall(r"\{([^}]+)\}", path))
        collection = re.sub(r"\{[^}]+\}", "{}", path.rstrip("/").rsplit("/", 1)[0])
        if len(ids) >= 2 and set(props) <= ids and collection not in made:
            # (a contact made under its account is the account's: removing it deletes it, never unlinks it)
            out.add(path)
    # a DELETE of a row under another's route (`DELETE /users/{u}/teams/{t}`, "remove the team for the user") where
    # the row is made and deleted at its own route (`POST /teams`, `DELETE /teams/{t}`) takes it off the other
    # row: deleting the team was what "remove the team for the user" did
    own_deletes = set()
    for tool in tools:
        notes = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
        path = notes.get("path")
        if notes.get("method") == "DELETE" and isinstance(path, str):
            own_deletes.add(re.sub(r"\{[^}]+\}", "{}", path.rstrip("/")))
    for tool in tools:
        notes = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
        path, props = notes.get("path"), _props(tool)
        if notes.get("method") != "DELETE" or not isinstance(path, str) or not path.rstrip("/").endswith("}"):
            continue
        shape = re.sub(r"\{[^}]+\}", "{}", path.rstrip("/"))
        parts = shape.strip("/").split("/")
        if len(parts) < 4 or parts[-3] != "{}" or "/".join(parts[:-1]) in {m.strip("/") for m in made}:
            continue  # not `/A/{a}/B/{b}`, or B is made under A
        ids = set(re.findall(r"\{([^}]+)\}", path))
        own = [d for d in own_deletes if d != shape and d.strip("/").split("/")[-2:] == parts[-2:]]
        own = [d for d in own if d.count("{}") < shape.count("{}")]
        if (
            len(ids) >= 2
            and set(props) <= ids
            and own
            and any(m.strip("/").split("/")[-1:] == parts[-2:-1] for m in made)
        ):
            out.add(path)
    return out


def _link_column(use: _Use, columns: dict, table: str) -> tuple[str, str] | None:
    """(column, argument) of the parent a link route names: a route id of the tool bound to a column of the row
    that references another table (`tag_id` of a show, to `tags`)."""
    for arg in use.refs:
        col = use.ref_column(arg)
        ref = (columns.get(col) or {}).get("references")
        if (use.props.get(arg) or {}).get("x-in") == "path" and ref and ref != table:
            return col, arg
    return None


def _enum(schema: Any) -> list:
    enum = schema.get("enum") if isinstance(schema, dict) else None
    return enum if isinstance(enum, list) else []


def act_status_column(columns: Any, enums: dict, entity: str, values: tuple) -> str | None:
    """The status column an act on a row changes: the one whose values hold what the act sets (`pay` ->
    `payment_status: paid`), else the row's own status (`status`, `state`, `<entity>_status`); never
    another status of the row (`delete_appointment` never sets `payment_status`, `SendDocument` never
    sets it to `sent`).

    Args:
        columns: the table's column names.
        enums: `{column: values}` of its enum columns.
        entity: the table's entity (`appointment`).
        values: the status values the act sets, preferred first (empty for a delete).

    Returns:
        The column, or None when the row has no status of its own for the act.
    """
    own = (*_STATUS_NAMES, f"{entity}_status", f"{entity}_state")
    statuses = [c for c in columns if c in own]
    statuses += [c for c in columns if c not in own and c.endswith(("_status", "_state"))]
    for value in values:
        hit = next((c for c in statuses if value in (enums.get(c) or [])), None)
        if hit:
            return hit
    return next((c for c in statuses if c in own), None)


def _described_act(use: _Use) -> str | None:
    """The state an act its description opens with leaves the row in: "Accept collaborator invitation." ->
    `accepted`; `None` when the description opens with no act (`Update an API Version`)."""
    words = tokens(str(use.tool.get("description") or "").split(".")[0])
    verb = words[0] if words else ""
    values = ACT_STATUS.get(verb) or STATUS_VERBS.get(verb)
    return values[0] if values else None


def _status_column(tspec: dict) -> str | None:
    return next((c for c in tspec["columns"] if c in _STATUS_NAMES or c.endswith("_status")), None)


def _unify(observed: list[Any]) -> dict:
    """One column spec for every schema bound to a column: the narrowest type that takes them all."""
    types = {column_type(s) for s in observed}
    if types <= {"integer"}:
        col: dict[str, Any] = {"type": "integer"}
    elif types <= {"integer", "number"}:
        col = {"type": "number"}
    elif len(types) == 1:
        col = {"type": types.pop()}
    else:
        col = {"type": "json"}
    enums = [s.get("enum") if isinstance(s, dict) else None for s in observed]
    if (
        col["type"] == "string"
        and enums
        and all(isinstance(e, list) and e and all(isinstance(v, str) for v in e) for e in enums)
    ):
        col["enum"] = list(dict.fromkeys(v for e in enums for v in e))
    formats = {s.get("format") for s in observed if isinstance(s, dict) and isinstance(s.get("format"), str)}
    if col["type"] == "string" and "enum" not in col and len(formats) == 1:
        # a field only a response shows keeps what its schema says it is: Azure's `creationTime` of
        # `format: date-time` held "11:30"
        generator = _FORMAT_GENERATORS.get(formats.pop())
        if generator:
            col["generator"] = generator
    desc = next(
        (s.get("description") for s in observed if isinstance(s, dict) and s.get("description")), None
    )
    if isinstance(desc, str):
        col["description"] = desc[:300]
    return col


_FORMAT_GENERATORS = {"date-time": "datetime", "date": "date", "email": "email", "uuid": "uuid", "uri": "url"}
"""The data generator of a string column whose schemas all state this `format`."""


def _finish_tables(tables: _Tables, uses: list[_Use]) -> dict:
    """Column specs from the bound schemas; key types unified; foreign keys; status enums."""
    out: dict[str, dict] = {}
    for table, t in tables.tables.items():
        pk = t["primary_key"]
        columns: dict[str, dict] = {}
        for column in t["columns"]:
            seen = tables.schemas.get((table, column)) or [{"type": "string"}]
            spec = _unify(seen)
            if column != pk:
                spec["nullable"] = True
            columns[column] = spec
        key_types = tables.key_types[table]
        pk_type = "integer" if key_types and set(key_types) == {"integer"} else "string"
        pk_spec = {"type": pk_type}
        if pk_type == "string" and "integer" in key_types:
            pk_spec["description"] = "Key (digits: tools declare it both as a string and as an integer)."
            # generated keys are digits (`"14"`), so the integer tools address them
            pk_spec["generator"] = "digits"
        columns[pk] = pk_spec
        # the row's own key under the API's name beside the key envscale named (GoToMeeting's `groupkey` beside
        # `group_id`, which `/groups/{groupKey}` addresses): one key, else two values that disagree (a blind reader:
        # "groupKey=18 is taken from group_id even though groups have a separate groupkey column")
        entity = re.sub(r"[^a-z0-9]", "", str(t.get("entity") or singular(table)).lower())
        bound = {c for u in uses if u.table == table for c in (*u.values.values(), *(r[1] for r in u.ranges))}
        for column in list(columns):
            squashed = re.sub(r"[^a-z0-9]", "", column.lower())
            if (
                column != pk
                and re.sub(r"[^a-z0-9]", "", pk.lower()) == f"{entity}id"
                and squashed in (f"{entity}key", f"{entity}id", f"{entity}arn")  # AWS's `connectorArn`
                and column not in bound
            ):
                del columns[column]
        out[table] = {"primary_key": pk, "columns": columns}
    # status columns: an enum holding every value a status verb moves to
    synthesized: set[tuple[str, str]] = set()
    undone: dict[tuple[str, str], str] = {}  # (table, status) -> the value an `un` verb of the column sets
    acts = {
        (use.table, str(use.status_col), str(use.meaning.verb or ""))
        for use in uses
        if use.meaning.effect == "status"
    }
    for use in uses:
        verb = str(use.meaning.verb or "")
        if (
            use.meaning.effect == "status"
            and verb.startswith("un")
            and use.meaning.status_value
            and (use.table, str(use.status_col), verb[2:]) in acts  # `publish` beside `unpublish`
        ):
            undone.setdefault((use.table, str(use.status_col)), use.meaning.status_value[0])
    for use in uses:
        table = use.table
        if use.meaning.effect == "status":
            cols = out[use.table]["columns"]
            status = use.status_col
            if status not in cols:
                continue
            col = cols[status]
            if col["type"] != "string":
                col.clear()
                col.update({"type": "string", "nullable": True})
            enum = col.get("enum")
            # the enum's own spelling counts (`SUBMITTED` for `submitted`): never both in one column
            target = next(
                (e for v in use.meaning.status_value for e in enum or () if str(e).lower() == v), None
            )
            if enum and (target is None or (table, status) in synthesized):
                # the API's own enum keeps its values; one envscale made gets each verb's own value
                if use.meaning.status_value[0] not in enum:
                    enum.append(use.meaning.status_value[0])
            elif not enum:
                # a row starts where the act's undo leaves it (Postman's mocks: `draft`, which `unpublishMock`
                # sets, never `active` beside `published` and `draft`), else active
                initial = undone.get((table, status)) or (
                    "inactive" if use.meaning.status_value[0] in ("active", "on", "started") else "active"
                )
                col["enum"] = list(dict.fromkeys([initial, use.meaning.status_value[0]]))
                synthesized.add((table, status))
    # references: `<entity>_id` columns point at the entity's table when types fit. Two that would close a
    # cycle keep the one a route names (`/conversations/{conversation_id}/members`: a member belongs to its
    # conversation), never a row's pointer back at one of its children (a conversation's `member_id`)
    refs: dict[str, set[str]] = {t: set() for t in out}
    candidates = sorted(
        ((table, column) for table, tspec in out.items() for column in tspec["columns"]),
        key=lambda tc: ((tc[0], tc[1]) not in tables.explicit, tc[0]),
    )
    for table, column in candidates:
        tspec = out[table]
        col = tspec["columns"][column]
        ent = key_entity(column) or name_key_entity(column)
        explicit = tables.explicit.get((table, column))
        if (not ent and not explicit) or column == tspec["primary_key"]:
            continue
        target = explicit or ident(plural(ent))
        if target not in out and ent and not explicit:  # `parent_folder_id` in a row a tool returns
            target = ident(plural(resolve_entity(ent, tables.known, person=tables.person)))
        if target not in out or target == table:
            continue
        target_pk = out[target]["columns"][out[target]["primary_key"]]
        if col["type"] != target_pk["type"]:
            if col["type"] in ("string", "integer") and target_pk["type"] == "string":
                col.clear()
                col.update({"type": "string", "nullable": True})
            else:
                continue
        if "enum" in col or _reaches(refs, target, table):
            continue
        col["references"] = target
        refs[table].add(target)
    return out


def _reaches(refs: dict[str, set[str]], start: str, goal: str) -> bool:
    stack, seen = [start], set()
    while stack:
        node = stack.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            stack.extend(refs.get(node, ()))
    return False


def _fits(column: dict, schema: Any) -> bool:
    """Whether an argument declared with `schema` can be bound to `column` (types and enum)."""
    t = json_type(schema)
    if column["type"] == "json" or t is None:
        return column["type"] == "json" or t is None
    allowed = {
        "string": {"string"},
        "integer": {"integer"},
        "number": {"number", "integer"},
        "boolean": {"boolean"},
    }
    if t not in allowed.get(column["type"], set()):
        return False
    enum = schema.get("enum") if isinstance(schema, dict) else None
    return not (enum and "enum" in column and any(v not in column["enum"] for v in enum if v is not None))


def _digit_key(column: dict, tables: dict, schema: Any) -> bool:
    """Whether an integer argument names a row by a key kept as digits (`"14"`, a `digits` key): Billbee's
    `POST /orders/{id}/send-message` takes the order's `id` as an integer, and its message lost the order it was
    about (seed 91's readers: "SendMessage, TagsCreate and TriggerEvent ignore the order id")."""
    target = tables.get(column.get("references") or "")
    if json_type(schema) != "integer" or column["type"] != "string" or not target:
        return False
    return target["columns"][target["primary_key"]].get("generator") == "digits"


def _operation(
    use: _Use, tables: dict, name: str, session: str | None, natural: dict[str, str]
) -> tuple[dict | None, str | None]:
    """The operation of one tool, and a policy sentence when one was derived."""
    op, rule = _operation_of(use, tables, name, session, natural)
    if op is not None and op["type"] in ("get", "update", "delete"):
        # `enable_infra_alert_config`: a kind named in the name (an enum value of a column the tool does not
        # set) is a precondition on the row it acts on, so that it differs from `enable_global_..._config`
        columns, pk = tables[use.table]["columns"], tables[use.table]["primary_key"]
        taken = {*(op.get("set") or {}), *(op.get("fixed") or {}), *(op.get("key") or {})}
        kinds = [
            {
                "column": col,
                "op": "eq",
                "value": value,
                "error": kind_refusal(str(value), use.table),
            }
            for col, (cmp, value) in _qualifiers(use, columns, pk, taken, kinds=True).items()
            if cmp == "eq" and not isinstance(value, dict)
        ]
        if kinds:
            op["preconditions"] = [*kinds, *op.get("preconditions", [])]
    return op, rule


_RESTORE_VERBS = frozenset(("untrash", "restore", "undelete", "recover", "unarchive"))
_GONE_STATES = frozenset(("deleted", "removed", "trashed"))
"""States a plain delete keeps a row in: the row is gone for its users, as the tool says."""


def _retires_by(value: str, verb: str | None, description: str) -> int | None:
    """How a delete tool says it keeps its row in the retired `value` rather than removing it: 0 by its own verb
    (`cancelBooking` -> CANCELLED, `archiveCampaign` -> archived), 1 by its description ("Deactivates the
    company", "moves the collection to the trash"), 2 as a state that means deleted; `None` where it does not say
    so. Blind readers found `companiesDelete` done as "deactivate" (kept `inactive`) and `collectionTicketsDelete`
    as "close": a plain delete deletes."""
    state = value.lower()
    verb = (verb or "").lower()
    stem = state[:-2] if state.endswith("ed") else state
    if state in _GONE_STATES:  # said by any delete, after what the tool says of itself
        return 2
    if state in STATUS_VERBS.get(verb, ()) or (len(stem) >= 4 and verb.startswith(stem[:5])):
        return 0
    return 1 if act_said(state, description) else None


def _operation_of(
    use: _Use, tables: dict, name: str, session: str | None, natural: dict[str, str]
) -> tuple[dict | None, str | None]:
    """:func:`_operation` before the kind preconditions are put first."""
    m, table = use.meaning, use.table
    tspec = tables[table]
    columns, pk = tspec["columns"], tspec["primary_key"]
    key_fits = use.key is not None and _fits(columns[pk], use.props[use.key])
    if use.key is not None and not key_fits and columns[pk]["type"] in ("string", "integer"):
        # digits in a string key (see _finish_tables), or an integer id the API declares a `number`
        key_fits = _key_type(use.props[use.key]) == "integer"
    session_key = {pk: {"session": pk}} if not use.key and table == session and not use.collection else None
    key = {pk: use.key} if use.key and key_fits else session_key
    if key is None and use.composite and tspec.get("unique") == [list(use.composite)]:
        key = {col: arg for col, arg in use.composite.items()}
    if key is None and table in natural and m.effect != "create":
        strings = [a for a in sorted(use.required) if json_type(use.props.get(a)) == "string"]
        if len(strings) == 1:  # `remove_stock_from_watchlist(symbol)`: the row named like its creation
            key = {natural[table]: strings[0]}
            use.values.pop(strings[0], None)
    if m.verb in _AUTH_VERBS and key is not None:
        columns.setdefault("logged_in", {"type": "boolean", "nullable": True})
        logged_in = m.verb not in ("logout", "signout", "logoff")
        return {
            "type": "update",
            "table": table,
            "key": key,
            "fixed": {"logged_in": logged_in},
            "returns": "row",
        }, None

    def bind(mapping: dict) -> dict:
        return {
            col: arg
            for arg, col in mapping.items()
            if col in columns
            and col != pk
            and (
                _fits(columns[col], use.props.get(arg))
                or _digit_key(columns[col], tables, use.props.get(arg))
            )
        }

    values = bind(use.values)
    values.update(bind({arg: use.ref_column(arg) for arg in use.refs}))
    if m.effect == "read":
        if key and m.verb not in ("list", "search", "find", "query", "filter"):
            return {"type": "get", "table": table, "key": key, "returns": "row"}, None
        if m.verb == "count":
            op: dict[str, Any] = {"type": "count", "table": table, "filters": []}
        else:
            op = {"type": "list", "table": table, "filters": [], "returns": "rows"}
        for col, arg in values.items():
            op["filters"].append({"column": col, "arg": arg, "op": "eq"})
        for arg, col, cmp in use.ranges:
            if col in columns and _fits(columns[col], use.props[arg]) and columns[col]["type"] != "json":
                op["filters"].append({"column": col, "arg": arg, "op": cmp})
        text = next((c for c in _TEXT_COLUMNS if c in columns and columns[c]["type"] == "string"), None)
        text = text or next((c for c, s in columns.items() if s["type"] == "string" and c != pk), None)
        for arg in use.searches:
            if text:
                op["filters"].append({"column": text, "arg": arg, "op": "contains"})
        bound = {f["column"] for f in op["filters"]}
        for col, (cmp, value) in _qualifiers(use, columns, pk, bound, make=op["type"] == "list").items():
            # `getUpcomingWebinars`, `/articles/me/unpublished`: which rows, a filter always applied
            literal = value if isinstance(value, dict) else {"value": value}
            op["filters"].append({"column": col, "op": cmp, "value": literal})
        if use.key and key_fits:  # a list keyed by its own id (`get_order_history(order_id)`)
            op["filters"].append({"column": pk, "arg": use.key, "op": "eq"})
        if use.limit and op["type"] == "list":
            op["limit_arg"] = use.limit
        order = next((c for c in ("created_at", "date", "timestamp", "updated_at") if c in columns), None)
        if order and op["type"] == "list":
            op["order_by"] = {"column": order, "desc": True}
        return op, None
    if m.effect == "create":
        op = {"type": "insert", "table": table, "values": dict(values), "returns": "row"}
        if use.key and key_fits and use.key in use.required:
            op["values"][pk] = use.key
        else:  # a key the client may leave out (Google Calendar's `events.insert(id=...)`) is made by the server
            op["generate"] = {pk: "id"}
        for col in ("created_at", "updated_at"):
            if col in columns and col not in op["values"] and columns[col]["type"] == "string":
                op["values"][col] = {"now": "datetime"}
        status = _status_column(tspec)
        if status and status not in op["values"] and "enum" in columns[status]:
            enum = columns[status]["enum"]
            # the enum's own spelling of an open status (`PENDING`), else its first value that is not retired: a
            # new booking never starts `CANCELLED` because the API lists that value first
            initial = next((e for v in _OPEN_STATUSES for e in enum if str(e).lower() == v), None)
            # never a state a row reaches later (AppVeyor's new deployment started `cancelling`)
            initial = initial or next((e for e in enum if _may_start(str(e))), None)
            initial = initial or next((e for e in enum if str(e).lower() not in RETIRED_STATUSES), enum[0])
            op["defaults"] = {status: initial}
        for col, (cmp, value) in _qualifiers(use, columns, pk, set(op["values"]), kinds=True).items():
            if cmp == "eq" and not isinstance(value, dict):  # `create_infra_alert_config`: of that kind
                op["values"][col] = {"value": value}
                op.get("defaults", {}).pop(col, None)
        if not op.get("defaults", True):
            del op["defaults"]
        for col, spec in columns.items():  # a row the session user creates is theirs
            if session and spec.get("references") == session and col not in op["values"]:
                op["values"][col] = {"session": tables[session]["primary_key"]}
        return op, None
    if key is None:
        return None, f"{m.effect} tool without a key to address a row of {table}"
    # a parent in the route (`PATCH /collections/{collection_id}/tickets/{ticket_id}`) says where the row is: a
    # change to the row never moves it to another parent (a ticket's description changed, its collection kept)
    values = {
        col: arg
        for col, arg in values.items()
        if not (arg in use.refs and (use.props.get(arg) or {}).get("x-in") == "path")
    }
    link = _link_column(use, columns, table) if use.link else None
    if link and (m.effect == "delete" or (m.effect == "update" and not values)):
        # `PUT /user/tags/{tag_id}/shows/{show_id}` tags a show and `DELETE` on it untags it: the show stays, only
        # its reference to the tag is set or cleared (deleting the show was what "untag a show" did)
        column, arg = link
        if m.effect == "update":
            return {
                "type": "update",
                "table": table,
                "key": key,
                "set": {column: arg},
                "returns": "row",
            }, None
        parent = singular(str(columns[column]["references"]))
        op = {"type": "update", "table": table, "key": key, "fixed": {column: None}, "returns": "row"}
        op["guards"] = [
            {
                "check": {"eq": [{"column": column}, {"arg": arg}]},
                "error": f"refused: the {singular(table).replace('_', ' ')} is not under that {parent.replace('_', ' ')}",
            }
        ]
        return op, None
    if m.effect == "delete":  # retired by its own status (`status`, `order_status`), never `payment_status`
        enums = {c: spec.get("enum") or [] for c, spec in columns.items()}
        status = act_status_column(columns, enums, singular(table), ())
        # the enum's own spelling (`CANCELLED`), the value of the tool's own verb first (`cancel` -> cancelled)
        if status and not columns[status].get("enum"):
            # a status whose values only its description names ("It must be completed with &quot;Paid&quot;,
            # &quot;Cancelled&quot; or &quot;Open&quot;"): those are its values, and a cancel retires the row
            described = [v for v in named_values(columns[status]) if re.fullmatch(r"[A-Za-z][\w -]{0,23}", v)]
            if len(described) >= 2 and any(v.lower() in RETIRED_STATUSES for v in described):
                columns[status]["enum"] = described
        retired = (
            [v for v in columns[status].get("enum", []) if str(v).lower() in RETIRED_STATUSES]
            if status
            else []
        )
        said = {v: _retires_by(str(v), m.verb, str(use.tool.get("description") or "")) for v in retired}
        if not use.restorable:  # a delete its API can undo keeps the row to restore
            retired = sorted((v for v in retired if said[v] is not None), key=lambda v: said[v])
        else:
            retired.sort(key=lambda v: 3 if said[v] is None else said[v])
        if retired:
            op = {"type": "update", "table": table, "key": key, "fixed": {status: retired[0]}}
            op["preconditions"] = [
                {
                    "column": status,
                    "op": "ne",
                    "value": retired[0],
                    "error": f"the {singular(table)} is already {retired[0]}",
                }
            ]
            named = allowed_while(use, columns[status].get("enum") or [])
            # fire.com: "You can only cancel a batch ... (while it is in the OPEN state)"
            if named is not None:
                op["preconditions"] = [{"column": status, "op": "in", "value": named[0], "error": named[1]}]
                return op, f"{name}: {named[1]}."
            return op, None
        op = {"type": "delete", "table": table, "key": key, "returns": "none"}
        rule = _while_guard(use, tables, table, key, name)
        if rule:
            op["guards"] = [rule[0]]
            return op, rule[1]
        return op, None
    if m.effect == "status":
        status = use.status_col
        if status is None or status not in columns:
            return None, f"status verb {m.verb!r} but {table} has no status column"
        enum = columns[status].get("enum") or []
        # the enum's own spelling of the target (`CANCELLED` for `cancelled`)
        target = next((e for v in m.status_value for e in enum if str(e).lower() == v), m.status_value[0])
        allowed, reason = allowed_statuses(use, enum, target)
        op = {"type": "update", "table": table, "key": key, "fixed": {status: target}, "returns": "row"}
        opposite = antonym(str(target).lower()) or OPPOSITES.get(str(target).lower())
        for col, cspec in columns.items():  # `accepted` beside the status: the act that accepts sets it too
            if col != status and cspec.get("type") == "boolean" and flag_state(col) == str(target).lower():
                op["fixed"][col] = True
            elif (
                col != status and cspec.get("type") == "boolean" and opposite and flag_state(col) == opposite
            ):
                op["fixed"][col] = (
                    False  # enabling a log clears its `disabled` flag (it said disabled: false)
                )
        extra: dict[str, Any] = {
            col: arg for col, arg in values.items() if col != status and col not in op["fixed"]
        }
        tally = _tally(use, columns, target)  # `refund_payment(amount)`: refunded_amount grows by it
        if tally:
            arg, col, guard = tally
            extra = {c: a for c, a in extra.items() if a != arg}
            extra[col] = {"add": [{"column": col}, {"arg": arg}]}
            if guard:
                op["guards"] = [guard]
        if extra:
            op["set"] = extra
        if (
            "updated_at" in columns
            and "updated_at" not in extra
            and columns["updated_at"]["type"] == "string"
        ):
            op.setdefault("set", {})["updated_at"] = {"now": "datetime"}
        if allowed:
            op["preconditions"] = [{"column": status, "op": "in", "value": allowed, "error": reason}]
        return op, f"{name}: {reason}." if allowed else None
    # update
    op = {"type": "update", "table": table, "key": key, "returns": "row"}
    delta = _amount(use, columns)
    if delta:
        arg, col, sign = delta
        expr = {"add" if sign >= 0 else "sub": [{"column": col}, {"arg": arg}]}
        op["set"] = {col: expr}
        if sign < 0:
            op["guards"] = [
                {
                    "check": {"ge": [{"column": col}, {"arg": arg}]},
                    "error": f"refused: not enough {col.replace('_', ' ')}",
                }
            ]
        elif sign == 0 and "reserved" in columns and columns["reserved"]["type"] in ("integer", "number"):
            op["guards"] = [
                {
                    "check": {"ge": [{"add": [{"column": col}, {"arg": arg}]}, {"column": "reserved"}]},
                    "error": _refusal(use)
                    or f"refused: {col.replace('_', ' ')} would drop below the quantity reserved",
                }
            ]
        elif sign == 0:
            op["guards"] = [
                {
                    "check": {"ge": [{"add": [{"column": col}, {"arg": arg}]}, {"value": 0}]},
                    "error": f"refused: {col.replace('_', ' ')} cannot become negative",
                }
            ]
        for other_col, other_arg in values.items():
            if other_arg != arg and other_col != col and other_col not in key:
                op["set"][other_col] = other_arg
    else:
        settable = {col: arg for col, arg in values.items() if col != pk and col not in key}
        if settable:
            op["set"] = settable
        else:
            # nothing to set: the act its description states ("Accept collaborator invitation." -> accepted),
            # never a column named after the tool set to its verb (`an_api_version = 'update'`)
            act = _described_act(use)
            if act is None:
                return None, "an update with no field to set and no act its name or description states"
            column = _status_column(tspec) or "status"
            columns.setdefault(column, {"type": "string", "nullable": True})
            if "enum" in columns[column] and act not in columns[column]["enum"]:
                columns[column]["enum"].append(act)
            op["fixed"] = {column: act}
    if (
        "updated_at" in columns
        and "updated_at" not in (op.get("set") or {})
        and columns["updated_at"]["type"] == "string"
    ):
        op.setdefault("set", {})["updated_at"] = {"now": "datetime"}
    status = _status_column(tspec)
    rule = None
    if status and "enum" in columns[status]:
        allowed, reason = allowed_statuses(use, columns[status]["enum"], None)
        if allowed:
            op["preconditions"] = [{"column": status, "op": "in", "value": allowed, "error": reason}]
            rule = f"{name}: {reason}."
    return op, rule


_TIME_WORDS = {"upcoming": "ge", "future": "ge", "past": "lt", "previous": "lt"}
_WHEN_COLUMNS = ("start_time", "starts_at", "start_date", "start", "scheduled_at", "date", "time", "datetime")


def qualifier_words(name: str, path: Any, skip: set[str]) -> list[str]:
    """The words of a tool's name and of its route's literal segments that are not a resource a parameter
    names (`/organizers/{key}/...`) nor in `skip` (its verb, entity, parent): the words that can say which
    rows it means. Adjacent pairs are joined too (`in_progress`).

    Example:
        >>> qualifier_words("getUpcomingWebinars", "/organizers/{k}/upcomingWebinars", {"get", "webinar"})[:2]
        ['upcoming', 'get_upcoming']
    """
    found = list(tokens(name))
    segments = [x for x in str(path or "").strip("/").split("/") if x]
    for i, seg in enumerate(segments):
        if not seg.startswith(("{", ":")) and not (i + 1 < len(segments) and segments[i + 1].startswith("{")):
            found += tokens(seg)
    found += [f"{a}_{b}" for a, b in zip(found, found[1:], strict=False)]
    drop = skip | {plural(w) for w in skip}
    return list(dict.fromkeys(w for w in found if w not in drop and len(w) > 1))


def state_values(word: str) -> tuple[str, ...]:
    """The status values a state word may be stored as: the word, then the values of the status verb it is
    the state of (`unpublished` -> `draft`, `cancelled` -> `canceled`).

    Example:
        >>> state_values("unpublished")
        ('unpublished', 'draft')
    """
    verbs = [v for v in (STATUS_VERBS | ACT_STATUS).items() if word in v[1]]
    verbs.sort(key=lambda v: (v[1].index(word), not word.startswith(v[0][:5])))  # `active`: activate
    return tuple(dict.fromkeys([word, *(x for v in verbs[:1] for x in v[1])]))


def _state_of(word: str) -> tuple[str, bool] | None:
    """(state, whether the word says it) of a state word: `published` -> (published, True), `unpublished` ->
    (published, False), `inactive` -> (active, False); None for other words (`all`, `upcoming`)."""
    for neg in ("un", "in", "non"):
        if word.startswith(neg) and word[len(neg) :] in ROW_QUALIFIERS:
            return word[len(neg) :], False
    if word in ROW_QUALIFIERS and word not in _TIME_WORDS and word not in ("all", "recent"):
        return word, True
    return None


def qualified_rows(
    words: list[str], columns: dict, pk: str, taken: set[str], make: bool = False, kinds: bool = False
) -> dict[str, tuple[str, Any]]:
    """`{column: (op, value)}` that the qualifier words fix: a word that is a value of a string column's
    enum (`archived`, `infra`), a boolean column's name or its negation (`published` / `unpublished`,
    `active` / `inactive`), or a time word (`upcoming`, `past`) over the row's date. Columns in `taken`
    (what the tool binds itself) and keys are never fixed. With `make`, a state word no column holds
    (`published` on a table with no status enum) adds the boolean column it names to `columns`. With
    `kinds`, only a word that is itself an enum value counts (a kind: `infra`), never a boolean or a time
    (`get_login_status` reads `login_status`, it does not require it).

    Example:
        >>> qualified_rows(["unpublished"], {"id": {"type": "string"}, "published": {"type": "boolean"}}, "id", set())
        {'published': ('eq', False)}
    """
    fixed: dict[str, tuple[str, Any]] = {}
    for word in words:
        if word == "all":  # `getAllWebinars`: every row, whatever an enum calls "all"
            continue
        for col, cspec in columns.items():
            if col == pk or col in taken or col in fixed or cspec.get("references"):
                continue
            enum = [str(v).lower() for v in cspec.get("enum") or []]
            said = next((v for v in state_values(word) if v in enum), None) if col in _STATUS_NAMES else None
            said = None if kinds else said
            if cspec["type"] == "string" and (word in enum or said):
                fixed[col] = ("eq", cspec["enum"][enum.index(word if word in enum else said)])
                break
            unsaid = (
                next((v for v in state_values(antonym(word)) if v in enum), None) if said is None else None
            )
            if cspec["type"] == "string" and unsaid and col in _STATUS_NAMES and not kinds:
                # `published` where the status says only `draft` (what `unpublished` is): not a draft
                fixed[col] = ("ne", cspec["enum"][enum.index(unsaid)])
                break
            base = col.removeprefix("is_")
            if kinds:
                continue
            if cspec["type"] == "boolean" and word in (base, *(f"{n}{base}" for n in ("un", "in", "non"))):
                fixed[col] = ("eq", word == base)
                break
        else:
            state = _state_of(word)
            statuses = [c for c in _STATUS_NAMES if columns.get(c, {}).get("enum")]
            if make and state and not statuses and state[0] not in columns:
                columns[state[0]] = {"type": "boolean", "nullable": True}
                fixed[state[0]] = ("eq", state[1])
        if word in _TIME_WORDS and not kinds:
            when = next(
                (
                    c
                    for c in _WHEN_COLUMNS
                    if c in columns and c not in taken and c not in fixed and columns[c]["type"] == "string"
                ),
                None,
            )
            if when:
                fixed[when] = (_TIME_WORDS[word], {"now": "datetime"})
    return fixed


def _qualifiers(
    use: _Use, columns: dict, pk: str, taken: set[str], make: bool = False, kinds: bool = False
) -> dict[str, tuple[str, Any]]:
    """:func:`qualified_rows` of one tool, its verb, entity and parent aside."""
    m = use.meaning
    skip = {w for x in (m.verb, m.entity, m.parent) if x for w in x.split("_")} | set(m.status_value)
    skip |= {w for p in use.props for w in tokens(p)}
    notes = use.tool.get("annotations") if isinstance(use.tool.get("annotations"), dict) else {}
    words = qualifier_words(use.tool.get("original_name") or use.tool["name"], notes.get("path"), skip)
    return qualified_rows(words, columns, pk, taken, make, kinds)


def _amount(use: _Use, columns: dict) -> tuple[str, str, int] | None:
    """(argument, column, sign) of an amount verb: `withdraw_funds(amount)` -> balance - amount."""
    verb = use.meaning.verb or ""
    sign = 1 if verb in _ADD_VERBS else -1 if verb in _SUB_VERBS else 0 if verb in _SIGNED_VERBS else None
    if sign is None:
        return None
    for arg, schema in use.props.items():
        if json_type(schema) not in ("number", "integer"):
            continue
        match = _AMOUNT_ARG.match("_".join(tokens(arg)))
        if not match:
            continue
        prefix = match.group("prefix")
        numeric = [c for c, s in columns.items() if s["type"] in ("number", "integer")]
        if verb in _MONEY_VERBS or (prefix is None and "balance" in columns):
            col = "balance"
        elif prefix:
            col = ident(f"{prefix}_level")
        else:
            col = next(
                (c for c in ("on_hand", "quantity", "stock", "quantity_on_hand", "level") if c in numeric),
                "quantity",
            )
        if col not in columns:
            columns[col] = {
                "type": "number" if json_type(schema) == "number" else "integer",
                "nullable": True,
            }
        elif columns[col]["type"] not in ("number", "integer"):
            return None
        if columns[col]["type"] == "integer" and json_type(schema) == "number":
            columns[col] = {**columns[col], "type": "number"}
        use.values.pop(arg, None)
        return arg, col, sign
    return None


def _tally(use: _Use, columns: dict, target: str) -> tuple[str, str, dict | None] | None:
    """(argument, column, guard) when a status verb with an amount adds to a running total:
    `refund_payment(amount)` adds to `refunded_amount`, never beyond the row's `amount`."""
    arg = next(
        (
            a
            for a, schema in use.props.items()
            if json_type(schema) in ("number", "integer")
            and "_".join(tokens(a)) in ("amount", "value", "sum")
        ),
        None,
    )
    column = f"{target}_amount"
    if arg is None or column not in columns or columns[column]["type"] not in ("number", "integer"):
        return None
    if columns[column]["type"] == "integer" and json_type(use.props[arg]) == "number":
        return None
    guard = None
    if "amount" in columns and columns["amount"]["type"] in ("number", "integer") and column != "amount":
        sentence = next((s for s in sentences(use.tool.get("description")) if "exceed" in s.lower()), None)
        guard = {
            "check": {"le": [{"add": [{"column": column}, {"arg": arg}]}, {"column": "amount"}]},
            "error": f"refused: {sentence.rstrip('.')}"
            if sentence
            else f"refused: {column} would exceed amount",
        }
    return arg, column, guard


def _refusal(use: _Use) -> str | None:
    """The description's own sentence about when the call is refused, as an error message."""
    sentence = next((s for s in sentences(use.tool.get("description")) if "refused" in s.lower()), None)
    return f"refused: {sentence.rstrip('.')}" if sentence else None


def _while_guard(use: _Use, tables: dict, table: str, key: dict, name: str) -> tuple[dict, str] | None:
    """`Refused while the customer has orders that are not delivered or cancelled` -> a count guard."""
    text = " ".join(sentences(use.tool.get("description")))
    match = _WHILE_HAS.search(text)
    if not match:
        return None
    child = ident(plural(singular(match.group(2).lower())))
    if child not in tables:
        return None
    pk = tables[table]["primary_key"]
    fk = next((c for c, s in tables[child]["columns"].items() if s.get("references") == table), None)
    status = _status_column(tables[child])
    if fk is None or status is None:
        return None
    done = [w for w in re.split(r"[\s,]+|\bor\b|\band\b", match.group(3).lower()) if w]
    enum = tables[child]["columns"][status].get("enum") or []
    done = [v for v in enum if v.lower() in done]
    if pk not in key:  # a natural or composite key: the guard counts children by the primary key
        return None
    where = [{"column": fk, "op": "eq", "value": key[pk] if isinstance(key[pk], dict) else {"arg": key[pk]}}]
    where += [{"column": status, "op": "ne", "value": {"value": v}} for v in done]
    sentence = next((s for s in sentences(text) if "refused" in s.lower()), text)
    error = f"refused: {sentence.rstrip('.')}"
    guard = {"check": {"eq": [{"count": {"table": child, "where": where}}, {"value": 0}]}, "error": error}
    return guard, f"{name}: {sentence.rstrip('.')}."


def _tool_name(use: _Use, names: Counter) -> str:
    """A readable name: the original one, suffixed only when two tools of the environment share it."""
    base = sanitize_name(use.tool.get("original_name") or use.tool["name"]) or use.tool["name"]
    base = re.sub(r"[^A-Za-z0-9_-]", "_", base)[:60] or "tool"
    names[base] += 1
    return base if names[base] == 1 else f"{base}_{names[base]}"


def _tool(use: _Use, op: dict, name: str) -> dict:
    """The spec tool: its name, parameters (key arguments required), operation and provenance."""
    tool = use.tool
    params = tool.get("parameters") or {"type": "object", "properties": {}}
    props = params.get("properties") or {}
    required = set(params.get("required") or [])
    for place in ("key",):
        for value in (op.get(place) or {}).values():
            if isinstance(value, str):
                required.add(value)
                if isinstance(props.get(value), dict) and props[value].get("type") == "number":
                    # an id the API declares a `number` (Pendo's `/users/{id}`) is an integer id (`_key_type`)
                    props = {**props, value: {**props[value], "type": "integer"}}
    if op["type"] == "update" and not op.get("fixed"):
        # an update states what it changes: the fields a PUT/PATCH body must carry whole are optional here,
        # so that a request never has to "set the plan to its own plan" (the key stays required)
        keys = {v for v in (op.get("key") or {}).values() if isinstance(v, str)}
        sets = {
            b if isinstance(b, str) else b.get("arg") if isinstance(b, dict) else None
            for b in (op.get("set") or {}).values()
        }
        required -= {a for a in sets if isinstance(a, str)} - keys
    params = {**params, "type": "object", "properties": props, "required": sorted(required & set(props))}
    kind = "read" if op["type"] in ("get", "list", "count") else "write"
    return {
        "name": name,
        "description": tool.get("description") or name,
        "kind": kind,
        "parameters": params,
        "operation": op,
        "metadata": {
            "source_tool_id": tool.get("id"),
            "pool_name": tool["name"],
            "original_name": tool.get("original_name") or tool["name"],
            "group": tool.get("group"),
            "annotations": tool.get("annotations"),
            "effect": use.meaning.effect,
            "entity": use.meaning.entity,
            "original_output_schema": tool.get("output_schema"),
        },
    }
