"""Finding a row as a person does: by something they know about it, never by an internal key.

A person names a row by something they know about it (a name, an email, a title, a date), or by a number a
real service prints for them (an order, ticket or invoice number); never by an internal key (`rec_0015`,
`boo_0018`, the integer id of a contact). `find_row(e, table, row, rng)` gives the lookup that finds `row`
so: a list tool of its table called with what the user knows (`list_contacts(email=...)`, or the whole list,
where the row is the one whose title, name or date singles it out, or a search by a word only it has). A list
that needs a parent's key (`getTransactions(budget_id)`) finds the parent the same way first, at most
`MAX_DEPTH` levels up, so a chain reads "budget by name -> its transactions -> the one of 2024-03-02".

`printed_number(table)` says whether the users of a service hold that table's keys (orders, tickets,
invoices ...); `internal_key(e, table, value)` whether a value is a key no user would state;
`knows_row_by(e, table, column, value)` whether a person names a row by that value; `rank` orders the
columns a person names a row by. `envscale.tasks.journeys.humanize` puts these lookups before a chain.

Example:

```python
>>> import random
>>> from envscale.env import load_spec
>>> from envscale.tasks.build import TasksConfig
>>> from envscale.tasks.finding import find_row, printed_number
>>> from envscale.tasks.prepared import Env
>>> printed_number("orders"), printed_number("customers")
(True, False)
>>> e = Env({"spec": load_spec("tests/fixtures/envs/shop.yaml")}, TasksConfig())
>>> row = e.rows["products"][3]
>>> found = find_row(e, "products", row, random.Random(0))
>>> [c.tool for c in found.calls], found.facts == {"product name": row["name"]}
(['list_products'], True)
>>> e.env.close()
```
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

from ..env.data import column_meaning, is_filler
from ..judge.provenance import shift_provenance
from ..words.inflect import singular
from ..words.names import tokens
from ..words.semantics import argument_role
from .asks import KEY_SHAPE, askable, asked_by
from .model import GoldCall
from .naming import entity_name, fact_name, implied_table, tool_bindings
from .prepared import Env
from .wording import PEOPLE, readable_words

PRINTED = frozenset(
    "order ticket invoice booking reservation receipt confirmation case shipment bill quote estimate".split()
)
"""Things a real service prints a number of for its user (an order number on the receipt, a ticket number
in the e-mail): the user may state that key. Every other key is internal and is looked up."""

IDENTIFYING = ("named", "title", "person", "email", "filename", "username", "company", "phone", "date")
"""Meanings of a column (`envscale.env.data.column_meaning`) a person knows a row by, the likeliest first: a
name, a title, an email, a file name ... then a date; never a URL (`self_link`), a timestamp to the second
(`last_update`), a time of day, a category, a count or free text."""

MAX_DEPTH = 2
"""Levels of parents found before a lookup, at most: a project by its name, then its section by its title, then the
section's tasks (two); deeper descriptions read as a walk through the database."""

ID_WORDS = frozenset(
    ("id", "ids", "key", "uuid", "guid", "sid", "idfk", "idfks")
)  # `CompanyIDFK`: Avaza's keys


def printed_number(table: str) -> bool:
    """Whether a service prints this table's keys for its users (`orders`, `support_tickets`, `invoices`)."""
    words = tokens(table)
    return bool(words) and singular(words[-1]) in PRINTED


_SCOPE_WORDS = frozenset(
    "account workspace organization organisation org tenant subscription project company organizer".split()
)


def own_scope(e: Env, table: str) -> bool:
    """Whether a table is the caller's own account the API scopes its routes by, which no tool lists (Sakari's
    `/v1/accounts/{accountId}/contacts`, Azure's `/subscriptions/{subscriptionId}/...`, a Google Cloud project): its
    key is one the user holds ("my subscription ID"), never a row to find. The openapi-sample lost 4,793 tasks to
    "no lookup finds the subscriptions row" before a subscription counted."""
    return caller_scope(e.spec, table)


def caller_scope(spec: dict, table: str) -> bool:
    """`own_scope` of a spec: the table is an account, a workspace, a subscription or a project that no read lists."""
    if singular(table).split("_")[-1] not in _SCOPE_WORDS:
        return False
    return not any(
        t.get("kind") == "read" and t["operation"]["type"] == "list" and t["operation"]["table"] == table
        for t in spec.get("tools") or []
    )


def internal_key(e: Env, table: str | None, value: Any) -> bool:
    """Whether `value` is a key of a row of `table` that a user would not hold (see `PRINTED`; a key that is
    a name, `rg-finance-prod-01`, is what its owner calls the resource, and holds; the key of the caller's own
    account, `own_scope`)."""
    if table is None or table not in e.rows or isinstance(value, bool):
        return False
    if printed_number(table) and not _numbered(e, table):
        return False
    if own_scope(e, table):
        return False
    if e.key_format[table].kind == "name":
        return False
    if not isinstance(value, str | int):
        return False
    pk = e.pk(table)
    return any(same_key(r.get(pk), value) for r in e.rows[table])


_NUMBER_TAILS = frozenset(("number", "no", "num", "nr"))
_NUMBER_KINDS = frozenset(("reference", "document", "confirmation", "display"))


def own_number(table: str, column: str) -> bool:
    """Whether a column is the number a service prints of its row (`invoices.invoice_number`, `orders.number`,
    `bills.reference_number`), not a number of something else it holds (`orders.phone_number`)."""
    words = tokens(column)
    if not words or words[-1] not in _NUMBER_TAILS:
        return False
    own = {singular(w) for w in tokens(singular(table))}
    return all(singular(w) in own or w in _NUMBER_KINDS for w in words[:-1])


def _numbered(e: Env, table: str) -> bool:
    """Whether a printed table's rows hold their own printed number beside the key (an invoice's `invoice_number`
    4732434410 beside `inv_0015`): that number is what its user holds, and the key is internal (seed 91's readers
    found the user calling `inv_0015` an invoice number)."""
    columns = [c for c in e.spec["tables"][table]["columns"] if c != e.pk(table) and own_number(table, c)]
    return any(isinstance(r.get(c), str | int) and r.get(c) != "" for c in columns for r in e.rows[table])


def same_key(a: Any, b: Any) -> bool:
    """Whether two values are one key: a key kept as digits is the number a tool takes (iQualify's orgunit `"14"`,
    asked as `orgid=14`: seed 88's readers found the user knowing the raw id)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    return a == b or (isinstance(a, int | str) and isinstance(b, int | str) and str(a) == str(b))


@dataclass
class Found:
    """How the agent finds one row: the calls (indices local to this finder), the facts the user states,
    and where the row's key is in the results (`(call index, row index)`)."""

    calls: list[GoldCall]
    facts: dict[str, Any]
    at: tuple[int, int | None]  # (call, row of its list); no row for a get
    notes: list[str] = field(default_factory=list)

    def source(self, offset: int, pk: str) -> str:
        """Where the row's key `pk` is, with the finder's calls put `offset` calls on: `call[2][0].order_id`, or
        `call[2].user_id` for a get."""
        call, index = self.at[0] + offset, self.at[1]
        return f"call[{call}].{pk}" if index is None else f"call[{call}][{index}].{pk}"


def addressed_table(e: Env, tool: dict, arg: str, value: Any) -> str | None:
    """The table whose row the argument's value is the key of: the tool's own row for its key, the
    referenced table for a reference, else (a string key) the table that holds it."""
    op = tool["operation"]
    if e.key_arg(tool) == arg:
        return op["table"]
    bind = tool_bindings(tool).get(arg)
    if bind is not None and bind.table in e.spec["tables"] and bind.column:
        cspec = e.spec["tables"][bind.table]["columns"].get(bind.column) or {}
        if cspec.get("references") in e.rows:
            return cspec["references"]
        if bind.column == e.pk(bind.table):
            return bind.table
    if isinstance(value, str) and KEY_SHAPE.match(value):
        for table, rows in e.rows.items():
            if any(r.get(e.pk(table)) == value for r in rows):
                return table
    return None


AUDIT_COLUMNS = re.compile(
    r"^(?:(?:created|updated|modified|deleted|changed|last_modified|last_updated|last_changed)_by(?:_\w+)?"
    r"|creator|modifier|updater)$"
)
"""Who created or last changed a row (`created_by`, `creator`): records a person never finds a row by."""


def knows_row_by(e: Env, table: str, column: str, value: Any) -> bool:
    """Whether a person knows a row of `table` by this value of `column`: a readable value of a column people
    talk about (`IDENTIFYING`: a name, a title, an email ... a date), not a key, not filler, not who created
    the row (`AUDIT_COLUMNS`), not the row's own noun (`users.user`: "the user whose user is ...")."""
    cspec = e.spec["tables"][table]["columns"].get(column) or {}
    if column == e.pk(table) or cspec.get("references") or set(tokens(column)) & ID_WORDS:
        return False
    if AUDIT_COLUMNS.match(column) or column in (table, singular(table)):
        return False
    if not isinstance(value, str) or not (2 <= len(value) <= 60) or KEY_SHAPE.match(value):
        return False
    if rank(e, table, column) >= len(IDENTIFYING):
        return False
    printed = printed_number(table) and own_number(
        table, column
    )  # a code no meaning rule asks about, yet held
    if not printed and (not askable(table, column, value) or not asked_by(column, column, value)):
        return False
    return not is_filler(table, column, cspec, value)


def _fact_of(entity: str, column: str) -> str:
    """The name of the fact a row is found by: the entity and its column's words, the entity said once ("campaign
    name", never "campaign campaign name" as blind readers found in what the user knows)."""
    words = readable_words(column)
    if words.lower().startswith(entity.lower().split(" ")[-1]):
        return words
    return f"{entity} {words}"


def rank(e: Env, table: str, column: str) -> int:
    """How likely a person knows a row by this column (`IDENTIFYING`'s order; its length when never)."""
    cspec = e.spec["tables"][table]["columns"].get(column) or {}
    meaning = column_meaning(table, column, cspec).split(":")[0]
    late = IDENTIFYING.index("date")  # after the row's own name, title and email
    if meaning in ("named", "person") and names_another(table, column):
        # `parent_account_name` of a pickup point, "the transaction whose account name is Petty Cash", "the employee
        # whose company name is ..." (seed 87's readers): another thing's name, shared by its many rows
        return len(IDENTIFYING)
    if printed_number(table) and own_number(table, column):
        return 0  # the invoice number on the invoice: what its user holds, before its name
    person = singular(table).split("_")[-1] in _PERSON_WORDS
    if meaning == "email" and not person:
        if not _PARTY_WORDS & set(tokens(singular(table))):
            return len(IDENTIFYING)  # a folder's or a class's email is someone's: no one finds a folder by it
        return late  # a meeting's email is its organizer's: not how a meeting is named
    if meaning == "phone" and not person and not _PARTY_WORDS & set(tokens(singular(table))):
        # "the conversation of the message whose phone number is 851-704-2702" (seed 94's readers: "a phone number
        # another message shares"): a message's number is whoever it went to, never how it is found
        return len(IDENTIFYING)
    if meaning == "username" and not person and not _PARTY_WORDS & set(tokens(singular(table))):
        # "the deployment whose user name is kara_smith7" (a blind reader: contrived): a deployment's handle is
        # who ran it; no one names a deployment by it
        return len(IDENTIFYING)
    if meaning == "title" and (person or _names_people(e, table)):
        # a contact's title is a job title: a person is named by their name, and a supplier whose rows name a
        # person is not "the supplier titled "Airline pilot""; beside a first and a last name it is that person's
        # job, never how the row is found (seed 94's readers: "the supplier named "Materials engineer"")
        columns = {c.lower().replace("_", "") for c in e.spec["tables"][table]["columns"]}
        return len(IDENTIFYING) if person or {"firstname", "lastname"} <= columns else late
    if meaning == "company" and person:
        # "the user whose company name is Davis-Jones": many people work for one company
        return len(IDENTIFYING)
    if (
        meaning == "company"
        and not _PARTY_WORDS & set(tokens(singular(table)))
        and names_another(table, column)
    ):
        return len(
            IDENTIFYING
        )  # "the class whose organization is Acme": the organization's, not the class's name
    if meaning in ("title", "email", "username", "phone") and names_another(table, column, _QUALIFIED_HEADS):
        # "the setting whose montage title is ...", "the group whose newsletter subject is ...", "the user with send
        # email ..." (blind readers): a title or an address of something else the row holds, not how it is named
        return len(IDENTIFYING)
    if meaning == "date" and not _own_date(table, column):
        return len(
            IDENTIFYING
        )  # "the mandate whose latest direct debit date is ...": no one knows it by that
    return IDENTIFYING.index(meaning) if meaning in IDENTIFYING else len(IDENTIFYING)


_PERSON_COLUMNS = (
    "first_name",
    "firstname",
    "last_name",
    "lastname",
    "full_name",
    "fullname",
    "contact_name",
)


def _names_people(e: Env, table: str) -> bool:
    """Whether a table's rows name a person (`first_name`, `contact_name`): its `title` is that person's job."""
    columns = e.spec["tables"][table]["columns"]
    return any(c.lower() in _PERSON_COLUMNS for c in columns)


_PARTY_WORDS = frozenset(
    "account customer client company organization organisation org business vendor supplier merchant tenant "
    "subscriber sender recipient mailbox identity lead partner brand publisher advertiser seller buyer shop "
    "store workspace domain".split()
)
"""Things an email or a company name is the row's own (a customer's, a vendor's, a mailbox's), where a folder's
email or a class's organization belongs to someone else."""

_DATE_WORDS = frozenset("date dates time at on utc day".split())
_OWN_DATES = frozenset("due start starts scheduled issue issued booking appointment event".split())
"""Dates a person knows a row by: when it is due, starts, is held or was issued; never when it ends ("the time off
request whose end date is 2025-09-04" read as a walk through the database to a blind reader) or was created."""


def party_table(table: str) -> bool:
    """Whether a table holds people or organisations (`users`, `customers`, `companies`, `owners`): rows no one
    removes because of one row of theirs."""
    head = singular(table).split("_")[-1]
    return head in _PERSON_WORDS or head in _PARTY_WORDS


def _own_date(table: str, column: str) -> bool:
    """Whether a date is the one a person knows a row by: its plain date (`date`, `due`, `start_date`,
    `issue_date`, an event's `event_date`), not one of its bookkeeping dates (`latest_direct_debit_date`,
    `early_close_off_date`, `approval_date`, `date_of_supply_utc`)."""
    words = [w for w in tokens(column) if w not in _DATE_WORDS]
    own = {singular(w) for w in tokens(singular(table))}
    if (
        not words
    ):  # a plain `date`: of things that happen on a day (a transaction, a booking), not a section's
        return bool(own & _DATED)
    if "due" in words and not own & (_DATED | _DUE):
        return (
            False  # "the document due on ...": a document is known by its title, an invoice by when it is due
        )
    if set(words) & _STARTS and not own & (_DATED | _HELD):
        return (
            False  # "the project whose start date is ..." (seed 91's readers): a project is known by its name
        )
    return all(w in _OWN_DATES or singular(w) in own for w in words)


_STARTS = frozenset("start starts scheduled".split())
_HELD = frozenset(
    "webinar training class course lesson tour rental stay leave absence vacation holiday".split()
)
"""Things besides `_DATED` ones that are held from a day (a webinar, a course, a stay): a person may know one by when
it starts, where a project, a campaign or a subscription is known by its name."""


_DATED = frozenset(
    "transaction payment invoice bill order booking reservation appointment event meeting session entry expense "
    "timesheet activity visit shift trip flight receipt deposit transfer statement journal charge refund "
    "shipment delivery call".split()
)


_DUE = frozenset(
    "task todo assignment homework issue ticket milestone project deadline goal card loan rent".split()
)
"""Things besides `_DATED` ones that are due on a day (a task, an assignment, a loan)."""


_PERSON_WORDS = frozenset(PEOPLE) | frozenset(
    "contact employee applicant candidate organizer attendee registrant panelist agent teammate".split()
)


_NAME_WORDS = frozenset("name names full display first last given family nick short legal".split())


_HEAD_WORDS = frozenset(
    "title subject heading headline summary topic label email mail address e phone number tel telephone mobile "
    "cell fax username user handle login screen".split()
)
"""The words of a column that say what kind of value it holds (a title, an email, a phone number)."""
_OWN_QUALIFIERS = frozenset(
    "primary main work personal home business contact official public preferred alternate alternative secondary "
    "original friendly common private billing account office direct".split()
)
"""Words before a title, an email or a phone that still name the row's own (`work_email`, `primary_phone`)."""
_QUALIFIED_HEADS = _HEAD_WORDS | _NAME_WORDS | _OWN_QUALIFIERS


def names_another(table: str, column: str, heads: frozenset[str] = _NAME_WORDS) -> bool:
    """Whether a column names something else than the row: its words besides `heads` (the kind of value it holds)
    are not the row's own entity. A name column: `parent_account_name`, `owner_name`, never `name`,
    `display_name` or `pickup_point_name` of `pickuppoints`; with `_QUALIFIED_HEADS`, a title, an email or a phone:
    `montage_title` of settings, `newsletter_subject` of groups, `send_email` of users, never `product_title` of
    products or `work_email` of contacts."""
    rest = "".join(t for t in tokens(column) if t not in heads)
    return bool(rest) and rest not in "".join(tokens(singular(table)))


def _run(e: Env, tool: str, args: dict) -> list | None:
    e.env.restore(e.initial)
    obs = e.env.step(tool, args)
    result = obs.get("result") if obs.get("ok") else None
    return result if isinstance(result, list) else None


def _parent_args(e: Env, tool: dict, row: dict, rng: random.Random, depth: int) -> tuple | None:
    """The required arguments of a list tool other than its narrowing filter: each an eq filter on a
    reference column whose parent is itself found (depth-first). `(args, provenance-by-arg, finders)`."""
    op = tool["operation"]
    params = tool.get("parameters") or {}
    required = set(params.get("required") or [])
    filters = {f["arg"]: f for f in op.get("filters", []) if f.get("arg")}
    props = params.get("properties") or {}
    args, parents = {}, {}
    paging = None
    for arg in sorted(required):
        flt = filters.get(arg)
        if argument_role(arg, props.get(arg)) == "pagination" and (flt is None or not flt.get("column")):
            paging = paging or e.call(tool, rng)  # a page of the list, as a valid call asks it
            if paging is None or arg not in paging[0]:
                return None
            args[arg] = paging[0][arg]
            continue
        if flt is None or flt.get("op", "eq") != "eq":
            return None
        column = flt["column"]
        ref = (e.spec["tables"][op["table"]]["columns"].get(column) or {}).get("references")
        ref = ref or implied_table(e.spec, column, op["table"])  # `budget_id` with no `references`
        value = row.get(column)
        if value is None or ref is None or depth >= MAX_DEPTH:
            return None
        parent = next((r for r in e.rows.get(ref, []) if r.get(e.pk(ref)) == value), None)
        found = find_row(e, ref, parent, rng, depth + 1) if parent else None
        if found is None and parent is not None and own_scope(e, ref):
            # the caller's own account: its ID is the user's to state (Sakari's contacts are listed per account)
            found = Found(
                [], {fact_name(arg, tool, e.spec): value}, (0, 0)
            )  # the fact the call's own argument is
        if found is None:
            return None
        args[arg] = value
        parents[arg] = (found, e.pk(ref))
    return args, parents


def find_row(e: Env, table: str, row: dict | None, rng: random.Random, depth: int = 0) -> Found | None:
    """How a person's description finds `row` of `table`: a list tool filtered by a value of the row only it
    has (`list_customers(email=...)`), or a list tool whose result the row is in and singled out by such a
    value (its title, its name). A list that needs a parent's key finds the parent first. `None` when no
    human attribute finds the row."""
    if row is None or table not in e.rows:
        return None
    pk = e.pk(table)
    own = _own_row(e, table, row)
    if own is not None:
        return own
    rows = e.rows[table]
    known = {c: v for c, v in row.items() if knows_row_by(e, table, c, v)}
    # a value only this row has finds it anywhere; one that other rows share may still single it out among its
    # parent's (the task "Standup" in my "Team" list, where another list has a "Standup" too)
    unique = {c: v for c, v in known.items() if sum(r.get(c) == v for r in rows) == 1}
    options: list[tuple[int, Found]] = []
    for tool in e.reads:
        op = tool["operation"]
        if op["type"] != "list" or op["table"] != table:
            continue
        required = set((tool.get("parameters") or {}).get("required") or [])
        searched = _searched(e, tool, table, row, rows, required)
        if searched is not None:
            options.append(searched)
        for flt in op.get("filters", []):  # a filter on the describing value
            arg, column = flt.get("arg"), flt["column"]
            if arg is None or flt.get("op", "eq") != "eq" or column not in unique or required - {arg}:
                continue
            result = _run(e, tool["name"], {arg: row[column]})
            hits = [j for j, r in enumerate(result or []) if isinstance(r, dict) and r.get(pk) == row[pk]]
            if result and len(result) == 1 and hits:
                facts = {fact_name(arg, tool, e.spec): row[column]}
                found = Found([GoldCall(tool["name"], {arg: row[column]}, {arg: "user"})], facts, (0, 0))
                options.append((rank(e, table, column), found))
        parents = _parent_args(e, tool, row, rng, depth)
        if parents is None:
            continue
        args, found_parents = parents
        option = _listed(e, tool, table, row, args, found_parents, known, unique)
        if option is not None:
            options.append(option)
        for arg, found in _optional_parents(e, tool, table, row, rng, depth, required | set(args)):
            # a row among its parent's, where a person places it: "the task "Standup" in my "Team" list"
            option = _listed(
                e, tool, table, row, {**args, arg: found[2]}, {**found_parents, arg: found[:2]}, known, unique
            )
            if option is not None:
                options.append(option)
    if not options:
        return None
    best = min(rank for rank, _ in options)  # by a name before a date, whichever list finds it
    options = [(rank, found) for rank, found in options if rank == best]
    if best in _ADDRESSES:
        # an address is one person's alone: whoever knows an organizer's email never has the agent go through the
        # organizer's group first (seed 91's readers: a needless lookup); a title may be placed in its project
        fewest = min(len(found.calls) for _, found in options)
        options = [(rank, found) for rank, found in options if len(found.calls) == fewest]
    return rng.choice([found for _, found in options])


_ADDRESSES = frozenset(IDENTIFYING.index(m) for m in ("email", "username", "phone"))


_PHRASE_WORD = re.compile(r"[A-Za-z][a-z]{3,}")
_FUNCTION_WORDS = frozenset(
    "with will from that this have been about into over after before when what your their there then than they "
    "were would could should also just only some more most very here each which while where does done make "
    "made still need needs please thanks hello".split()
)
"""Words no one searches by ("with Holly", "Boston will"): a search is two words that carry the text's meaning."""
_CALENDAR = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march april june july august "
    "september october november december".split()
)
"""A day or a month alone finds a text by chance, not by what it is about."""


def search_terms(words: list[str]) -> list[str]:
    """What a person types to find a text, best first: a name of two words ("Project Quartz"), a name
    ("Holly", "Boston"; not the text's first word), two words of five letters or more ("security audit")."""
    content = [(w, w.lower() not in _FUNCTION_WORDS) for w in words]
    pairs = list(zip(content, content[1:], strict=False))
    names = [f"{a} {b}" for (a, ok), (b, ok2) in pairs if ok and ok2 and a[0].isupper() and b[0].isupper()]
    single = [w for w, ok in content[1:] if ok and w[0].isupper() and w.lower() not in _CALENDAR]
    plain = [f"{a} {b}" for (a, ok), (b, ok2) in pairs if ok and ok2 and len(a) >= 5 and len(b) >= 5]
    return list(dict.fromkeys([*names, *single, *plain]))


def _own_row(e: Env, table: str, row: dict) -> Found | None:
    """The caller's own row, read by the tool that returns it (PocketSmith's `get_me` for `/users/{id}/accounts`):
    the user says nothing, the agent reads who they are. Seed 91: PocketSmith had no task at all, every route under
    the user's id being "a key no person knows"."""
    session, reader = e.session_row, e.own_reader
    if not session or reader is None or e.tools[reader]["operation"]["table"] != table:
        return None
    if session.get(e.pk(table)) != row.get(e.pk(table)):
        return None
    found = Found([GoldCall(reader, {}, {})], {}, (0, None))
    found.notes.append(f"the caller's own {table} row, read by {reader}")
    return found


def _searched(
    e: Env, tool: dict, table: str, row: dict, rows: list[dict], required: set[str]
) -> tuple[int, Found] | None:
    """`(rank, Found)`: the row found by a search for words of its text that no other row's text holds (a
    tweet by "security audit", a note by "quarterly budget"), where the list tool takes a `contains` filter;
    ranked with a date, after a name, a title or an email. `None` when no two words of it single it out."""
    pk = e.pk(table)
    for flt in tool["operation"].get("filters", []):
        arg, column = flt.get("arg"), flt.get("column")
        if flt.get("op") != "contains" or not arg or required - {arg} or not isinstance(row.get(column), str):
            continue
        cspec = e.spec["tables"][table]["columns"].get(column) or {}
        if "enum" in cspec or cspec.get("references") or column == pk:
            continue  # a search in a text, not in a kind or a key
        words = _PHRASE_WORD.findall(row[column])
        others = [str(r.get(column) or "").lower() for r in rows if r.get(pk) != row[pk]]
        for phrase in search_terms(words):
            if phrase.lower() not in row[column].lower() or any(phrase.lower() in o for o in others):
                continue  # the two words apart in the text ("security, audit"), or another row has them
            result = _run(e, tool["name"], {arg: phrase})
            if result and len(result) == 1 and isinstance(result[0], dict) and result[0].get(pk) == row[pk]:
                facts = {f"words in the {entity_name(table, e.spec)}'s {readable_words(column)}": phrase}
                found = Found([GoldCall(tool["name"], {arg: phrase}, {arg: "user"})], facts, (0, 0))
                found.notes.append(f"found by searching {column} for {phrase!r}")
                return IDENTIFYING.index("date"), found
    return None


def _listed(
    e: Env, tool: dict, table: str, row: dict, args: dict, found_parents: dict, known: dict, unique: dict
) -> tuple[int, Found] | None:
    """`(rank, Found)`: the row found in what a list tool returns for `args` (the parents' keys found first),
    singled out there by a value the person knows of it; `None` when the list misses it or no value singles it
    out among the rows listed."""
    pk = e.pk(table)
    result = _run(e, tool["name"], args)
    hits = [j for j, r in enumerate(result or []) if isinstance(r, dict) and r.get(pk) == row[pk]]
    if not hits:
        return None
    listed = [r for r in result if isinstance(r, dict)]
    within = known if found_parents else unique  # among the parent's rows, or among them all
    said = [c for c in within if [r.get(c) for r in listed].count(row[c]) == 1]
    if not said:
        return None
    column = min(said, key=lambda c: (rank(e, table, c), c))
    calls, prov, offset = [], {}, 0
    facts = {_fact_of(entity_name(table, e.spec), column): row[column]}
    for arg, (found, ppk) in found_parents.items():
        if any(facts.get(k, v) != v for k, v in found.facts.items()):
            # two parents found through two rows of one table ("the transaction of the budget named X of the
            # payee of the budget named Y"): the rows disagree, and no person describes a row so
            return None
        calls.extend(shifted(c, offset) for c in found.calls)
        prov[arg] = found.source(offset, ppk) if found.calls else "user"
        facts.update(found.facts)
        offset += len(found.calls)
    prov.update({a: "constant" for a in args if a not in prov})  # a page size the agent picks
    searched = _search_for(e, tool, table, row, column, args)
    if searched is not None:
        arg, at = searched
        args, prov, hits = {**args, arg: row[column]}, {**prov, arg: "user"}, [at]
    calls.append(GoldCall(tool["name"], dict(args), prov))
    found = Found(calls, facts, (len(calls) - 1, hits[0]), notes=[f"found by {column}"])
    return rank(e, table, column), found


def _search_for(e: Env, tool: dict, table: str, row: dict, column: str, args: dict) -> tuple[str, int] | None:
    """`(arg, index)`: the search argument of a list tool that looks in the column the row is known by, and where the
    row is in what the search for its value returns; `None` for a tool without one. Seed 91's readers: the agent
    listed every user (`get_users_search()`) to find "Emma Romero", where a person searches for her."""
    pk = e.pk(table)
    for flt in tool["operation"].get("filters", []):
        arg = flt.get("arg")
        if flt.get("op") != "contains" or not arg or arg in args or flt.get("column") != column:
            continue
        result = _run(e, tool["name"], {**args, arg: row[column]})
        at = [j for j, r in enumerate(result or []) if isinstance(r, dict) and r.get(pk) == row[pk]]
        if at:
            return arg, at[0]
    return None


def _optional_parents(
    e: Env, tool: dict, table: str, row: dict, rng: random.Random, depth: int, taken: set[str]
) -> list[tuple[str, tuple[Found, str, Any]]]:
    """The optional filters of a list tool on a reference to the row's parent, each with how the parent is
    found: `[(arg, (Found, parent pk, the row's parent key))]` (`list_tasks(list_id=...)` for a task of a
    list a person names). Not below `MAX_DEPTH`, never the row's own table."""
    out = []
    if depth >= MAX_DEPTH:
        return out
    for flt in tool["operation"].get("filters", []):
        arg, column = flt.get("arg"), flt.get("column")
        if not arg or arg in taken or flt.get("op", "eq") != "eq" or row.get(column) is None:
            continue
        ref = (e.spec["tables"][table]["columns"].get(column) or {}).get("references")
        ref = ref or implied_table(e.spec, column, table)
        if ref is None or ref == table or ref not in e.rows:
            continue
        parent = next((r for r in e.rows[ref] if r.get(e.pk(ref)) == row[column]), None)
        found = find_row(e, ref, parent, rng, depth + 1) if parent else None
        if found is not None:
            out.append((arg, (found, e.pk(ref), row[column])))
    return out


def shifted(call: GoldCall, by: int) -> GoldCall:
    """A copy of `call` whose paths into earlier results point `by` calls further on (lookups put before it)."""
    prov = {a: shift_provenance(p, by) for a, p in call.provenance.items()}
    return GoldCall(call.tool, dict(call.arguments), prov, write=call.write)
