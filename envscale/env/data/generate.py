"""The initial state of a spec: deterministic rows for every table, column by column.

`generate_state` validates the spec and calls `build_state`, which orders the tables by reference
(`table_order`), makes every table's keys first (`cus_0001`-style strings or 1..n), then fills each
column from its own Faker generator, seeded with the seed, the table and the column: the primary key,
existing keys for references (declared, or implicit: `implicit_references`), and values by meaning
(`values`) that the bound arguments accept (`schemas`); unique where the spec says, sometimes null
where optional, end dates after start dates, and each `unique` column set distinct.

Example:

```python
>>> from envscale.env.data import generate_state, table_order
>>> spec = {"name": "shop", "tools": [], "tables": {
...     "orders": {"primary_key": "order_id", "columns": {
...         "order_id": {"type": "string"}, "customer_id": {"type": "string", "references": "customers"}}},
...     "customers": {"primary_key": "customer_id", "columns": {"customer_id": {"type": "string"}}}}}
>>> table_order(spec)
['customers', 'orders']
>>> state = generate_state(spec, seed=0, rows={"customers": 2, "orders": 3})
>>> {row["customer_id"] for row in state["orders"]} <= {"cus_0001", "cus_0002"}
True
```
"""

from __future__ import annotations

import datetime as dt
import itertools
import random
import re
from collections.abc import Iterator
from typing import Any

from tqdm.auto import tqdm

from envscale.env.data.keys import KeyFormat, key_formats
from envscale.env.data.meaning import (
    PERSON_TOKENS,
    PLACE_TOKENS,
    column_bounds,
    column_meaning,
    column_texts,
    implicit_references,
    loose_references,
    named_values,
    names_a_person,
    referenced_table,
    singular_word,
    string_meaning,
)
from envscale.env.data.people import (
    column_group,
    display_names_are_names,
    handles_of_their_names,
    people_in_objects,
)
from envscale.env.data.schemas import acceptor, bound_schemas, fit_bound, schema_value
from envscale.env.data.values import (
    Col,
    about_subject,
    kept_value,
    object_kind,
    pick_first_name,
    pick_last_name,
    subject_and_prose,
    typed,
    value_maker,
)
from envscale.env.data.vocabulary import PLACES, PlaceRow, faker_for
from envscale.env.spec import SpecError, check_row_counts, is_nullable, validate_spec, value_problem
from envscale.words.inflect import singular
from envscale.words.names import flag_state, name_words

DEFAULT_ROWS = 10
"""Rows per table when `data.rows` does not say (at most `spec.MAX_ROWS_PER_TABLE` either way)."""
PROGRESS_MIN_ROWS = 10_000
"""A state of at least this many rows in all shows a progress bar (on stderr, removed when done)."""
DEFAULT_NOW = "2025-06-01T12:00:00Z"
"""The environment's fixed clock when `data.now` does not say (dates are generated around it)."""
NULL_SHARE = 0.08
"""Share of nulls in an optional column (a nullable note, phone, website, end date, ...); other
columns declared `nullable: true` are null at `NULL_SHARE / 4`, the rest never."""


# ----------------------------------------------------------------------------------------------
# The clock and the order of the tables.


def parse_now(spec: dict[str, Any]) -> dt.datetime:
    """The environment's fixed clock (`data.now`, else `DEFAULT_NOW`) as an aware datetime."""
    text = (spec.get("data") or {}).get("now") or DEFAULT_NOW
    return dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)


def table_order(spec: dict[str, Any]) -> list[str]:
    """Tables sorted so that every table comes after the tables it references.

    Raises:
        `SpecError`: The references form a cycle (a table referencing itself is fine).
    """
    tables = spec["tables"]
    parents = {
        t: {c["references"] for c in s["columns"].values() if "references" in c and c["references"] != t}
        for t, s in tables.items()
    }
    order: list[str] = []
    while len(order) < len(tables):
        ready = [t for t in tables if t not in order and parents[t] <= set(order)]
        if not ready:
            cycle = sorted(t for t in tables if t not in order)
            raise SpecError(
                f"tables {', '.join(cycle)} reference each other in a cycle; cannot order or generate them"
            )
        order.extend(ready)
    return order


# ----------------------------------------------------------------------------------------------
# The state: tables of rows, column by column.


def generate_state(
    spec: dict[str, Any], seed: int, rows: dict[str, int] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """Generate a deterministic initial state for a spec.

    Args:
        spec (`dict`): A valid spec.
        seed (`int`): The random seed. Each column draws from its own generator (seeded with the
            seed, its table and its name), so the order of the tables and columns, or another
            table's row count, leaves its values alone.
        rows (`dict[str, int]`, *optional*): Rows per table, each at most
            `spec.MAX_ROWS_PER_TABLE`; defaults to the spec's `data.rows`, then `DEFAULT_ROWS`.
            From `PROGRESS_MIN_ROWS` rows in all a progress bar shows on stderr; Ctrl-C stops
            the generation (`KeyboardInterrupt`).

    Returns:
        `dict[str, list[dict]]`: Rows per table, in reference order.

    Raises:
        `SpecError`: The spec is invalid, its references form a cycle, or the constraints cannot be
            met (a required reference to an empty table, more unique values than an enum has).
    """
    validate_spec(spec)
    return build_state(spec, seed, rows)


def build_state(
    spec: dict[str, Any], seed: int, rows: dict[str, int] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """`generate_state` for a spec that is known to be valid (only the `rows` override is checked)."""
    if rows:
        check_row_counts(rows, spec["tables"])
    counts = (
        {t: DEFAULT_ROWS for t in spec["tables"]} | (spec.get("data") or {}).get("rows", {}) | (rows or {})
    )
    now = parse_now(spec)
    bound = bound_schemas(spec)
    implicit = implicit_references(spec)
    formats = key_formats(spec, bound)
    keys = {t: [formats[t].make(i + 1) for i in range(counts[t])] for t in spec["tables"]}
    state: dict[str, list[dict[str, Any]]] = {}
    # Progress in values (rows x columns), advanced column by column.
    total = sum(counts[t] * len(s["columns"]) for t, s in spec["tables"].items())
    with tqdm(
        total=total,
        desc=f"generating {spec['name']}",
        unit="value",
        unit_scale=True,
        leave=False,
        disable=sum(counts[t] for t in spec["tables"]) < PROGRESS_MIN_ROWS,
    ) as progress:
        for table in table_order(spec):
            tspec = spec["tables"][table]
            built = _build_table(
                spec, table, counts[table], seed, now, bound, implicit, keys, progress, formats[table]
            )
            state[table] = _distinct_sets(tspec, built)
            if len(state[table]) < len(built):  # later tables may only reference the rows kept
                keys[table] = [row[tspec["primary_key"]] for row in state[table]]
                kept = set(keys[table])
                for column, cspec in tspec["columns"].items():
                    if cspec.get("references") == table:  # a row pointing at a dropped row of its table
                        for row in state[table]:
                            if row.get(column) is not None and row[column] not in kept:
                                row[column] = None
    _references_agree_both_ways(spec, state, implicit)
    _parents_agree(spec, state, implicit)
    _nested_references(spec, state)
    _names_of_referenced_rows(spec, state, implicit, bound)
    copied = _copies_of_referenced_rows(spec, state, implicit, bound)
    _people_in_roles(spec, state, implicit)
    handles_of_their_names(spec, state, implicit, bound, copied, seed)
    people_in_objects(spec, state, implicit, bound, seed)
    display_names_are_names(spec, state)
    _own_object_agrees(spec, state)
    _kept_pairs(spec, state)
    _loose_references_hold(spec, state, seed, bound)
    return state


def _kept_pairs(spec: dict[str, Any], state: dict[str, list[dict[str, Any]]]) -> None:
    """A memory's value is what its key keeps (`env.data.kept_value`): "pet_name" keeps "Biscuit", never "Monday and
    Thursday"."""
    for table, tspec in spec["tables"].items():
        if not {"key", "value"} <= set(tspec["columns"]):
            continue
        for row in state[table]:
            value = kept_value(row.get("key"))
            if value is not None and row.get("value") is not None:
                row["value"] = value


def _own_object_agrees(spec: dict[str, Any], state: dict[str, list[dict[str, Any]]]) -> None:
    """An object a row holds under its own entity's name (YNAB's transaction with a nested `transaction`) says what
    the row says: seed 94's readers found a transaction of 101 whose nested transaction was of 99 ("the answer is one
    arbitrary pick"). Its fields that the row has take the row's values."""
    for table, tspec in spec["tables"].items():
        own = singular(re.sub(r"[^a-z_]", "", table.lower())).split("_")[-1]
        for column, cspec in tspec["columns"].items():
            if cspec.get("type") != "json" or singular(column.lower()) != own:
                continue
            for row in state[table]:
                nested = row.get(column)
                if not isinstance(nested, dict):
                    continue
                for field in nested:
                    if field in tspec["columns"] and field != column and row.get(field) is not None:
                        nested[field] = row[field]


def _as_key(key: Any, column_type: str) -> Any:
    """`key` in its column's type: `"3"` in a string column, `3` in an integer one, the key as its row holds it
    in a json column; `None` where it cannot be (a key `cus_0003` in an integer column)."""
    if column_type == "json":
        return key
    if column_type == "string":
        return str(key)
    digits = (isinstance(key, int) and not isinstance(key, bool)) or (isinstance(key, str) and key.isdigit())
    if column_type in ("integer", "number") and digits:
        return float(int(key)) if column_type == "number" else int(key)
    return None


def _loose_references_hold(
    spec: dict[str, Any],
    state: dict[str, list[dict[str, Any]]],
    seed: int,
    bound: dict[tuple[str, str], list],
) -> None:
    """A column that names rows of another table by their key, where no rule ties it (`loose_references`: a
    `workspace_slug`, a json `category_id`, a list of `group_ids`), names rows that exist: a blind reader found
    Orbit's members in workspaces no workspace list holds, so every list by workspace came back empty. Values
    keep their column's type and shape (a list stays a list of as many keys, a json value is the key as its row
    holds it); a column whose values mostly
    name rows already, or whose bound arguments or type refuse the keys, keeps what it was drawn."""
    for (table, column), (target, key) in loose_references(spec).items():
        keys = [row[key] for row in state.get(target, []) if row.get(key) is not None]
        rows = [row for row in state.get(table, []) if row.get(column) not in (None, [], "")]
        if not keys or not rows:
            continue
        known = {str(k) for k in keys}
        held = sum(
            all(str(x) in known for x in v) if isinstance(v, list) else str(v) in known
            for v in (row[column] for row in rows)
        )
        if held * 2 >= len(rows):
            continue
        cspec = spec["tables"][table]["columns"][column]
        accepts = [acceptor(a) for a in bound.get((table, column), [])]
        rng = random.Random(f"{seed}:{table}:{column}:rows")
        new_values: list[Any] = []
        for row in rows:
            old = row[column]
            if isinstance(old, list):
                picked = rng.sample(keys, min(len(keys), max(1, len(old))))
                new = [_as_key(k, "json") for k in picked]
            else:
                new = _as_key(rng.choice(keys), cspec["type"])
                if new is None:
                    break
            if value_problem(cspec, new) is not None or (accepts and not any(a(new) for a in accepts)):
                break
            new_values.append(new)
        else:
            for row, new in zip(rows, new_values, strict=True):
                row[column] = new


def _references_agree_both_ways(
    spec: dict[str, Any], state: dict[str, list[dict[str, Any]]], implicit: dict[tuple[str, str], str]
) -> None:
    """Where a row names a row of another table that names a row of its table back (a conversation's
    `member_id` and a member's `conversation_id`), the row it names is one that names it back: drawn alone,
    conversation con_0003 named member mem_0014, a member of con_0007, and a gold lookup answered from the
    wrong conversation. A row no row names back keeps what it was drawn."""

    for a, aspec in spec["tables"].items():
        apk = aspec["primary_key"]
        for column in aspec["columns"]:
            b = referenced_table(spec, implicit, a, column)
            if (
                column == apk
                or b is None
                or b == a
                or b not in state
                or aspec["columns"][column].get("unique")
            ):
                continue
            bspec = spec["tables"][b]
            back = [
                c
                for c in bspec["columns"]
                if c != bspec["primary_key"] and referenced_table(spec, implicit, b, c) == a
            ]
            if len(back) != 1:
                continue
            naming: dict[Any, list[Any]] = {}
            for row in state[b]:
                if row.get(back[0]) is not None:
                    naming.setdefault(row[back[0]], []).append(row[bspec["primary_key"]])
            for i, row in enumerate(state[a]):
                ours = naming.get(row[apk])
                if ours and row.get(column) is not None and row[column] not in ours:
                    row[column] = ours[i % len(ours)]


def _nested_references(spec: dict[str, Any], state: dict[str, list[dict[str, Any]]]) -> None:
    """An id inside a JSON value (an order's `lines: [{"product_id": ...}]`) names a row of the table it keys:
    drawn from the schema, the shop's order lines named products that do not exist (blind readers: "order lines
    cite products that don't exist"). Only a field named like a table's key (`product_id`, `productId`) whose
    value has that key's type."""
    by_key: dict[str, str] = {}
    for table, tspec in spec["tables"].items():
        pk = tspec["primary_key"]
        for name in (pk, f"{singular(table)}_id"):
            by_key.setdefault(re.sub(r"[^a-z0-9]", "", name.lower()), table)
    keys = {t: [row[spec["tables"][t]["primary_key"]] for row in rows] for t, rows in state.items()}

    def fix(value: Any, own: str, picks: Iterator[int]) -> None:
        items = value if isinstance(value, list) else [value]
        for item in items:
            if not isinstance(item, dict):
                continue
            for field, inner in item.items():
                ref = by_key.get(re.sub(r"[^a-z0-9]", "", field.lower()))
                if ref is None or ref == own or not keys.get(ref) or isinstance(inner, (dict, list)):
                    if isinstance(inner, (dict, list)):
                        fix(inner, own, picks)
                    continue
                pool = [k for k in keys[ref] if type(k) is type(inner)]
                if inner is not None and pool and inner not in pool:
                    item[field] = pool[next(picks) * 7 % len(pool)]  # spread over the rows, the same each run

    for table, tspec in spec["tables"].items():
        for column, cspec in tspec["columns"].items():
            if cspec.get("type") != "json":
                continue
            picks = itertools.count(1)
            for row in state.get(table, []):
                if isinstance(row.get(column), (dict, list)):
                    fix(row[column], table, picks)


def _parents_agree(
    spec: dict[str, Any], state: dict[str, list[dict[str, Any]]], implicit: dict[tuple[str, str], str]
) -> None:
    """Where a row names a parent and that parent's own parent (a comment's `spot_id` and `map_id`, the spot's
    `map_id`), the grandparent it names is its parent's: drawn alone, a blind sample's comment on a spot of map 20
    said map 3. Only where the parent names one row of that table, and the row's column takes the value."""
    for a, aspec in spec["tables"].items():
        refs = {
            c: t
            for c in aspec["columns"]
            if c != aspec["primary_key"]
            and (t := referenced_table(spec, implicit, a, c))
            and t != a
            and t in state
        }
        # a column of a unique set keeps its value: realigned, two rows could name one pair (YNAB's locations by
        # budget and payee location were rejected)
        fixed = {c for group in aspec.get("unique", []) for c in group}
        fixed |= {c for c in refs if aspec["columns"][c].get("unique")}
        for via, b in refs.items():
            bspec = spec["tables"][b]
            for column, c in refs.items():
                if column == via or c == b or column in fixed:
                    continue
                up = [
                    x
                    for x in bspec["columns"]
                    if x != bspec["primary_key"] and referenced_table(spec, implicit, b, x) == c
                ]
                if len(up) != 1 or list(refs.values()).count(c) != 1:
                    continue  # the parent names two rows of the grandparent's table, or the row does
                parent = {row[bspec["primary_key"]]: row.get(up[0]) for row in state[b]}
                for row in state[a]:
                    theirs = parent.get(row.get(via))
                    if theirs is not None and row.get(column) is not None:
                        row[column] = theirs


#: `<word>_name` columns that name their own row or a part of a name, never a referenced row's.
_NOT_ROLES = frozenset(
    ("", "name", "display", "full", "first", "last", "middle", "nick", "user", "file", "host")
)
#: Columns that name a row of their table, the likeliest first.
_OWN_NAMES = ("name", "title", "display_name", "full_name", "label")


def _label_role(column: str) -> str | None:
    """The role a column names a referenced row by: `payee_name` -> `payee`, `project_title` -> `project`;
    `None` for a column that is no name or title."""
    word = re.sub(r"[^a-z]", "", column.lower())
    if word.endswith("name"):
        return _role(column)
    if word.endswith("title"):
        return word[: -len("title")]
    return None


def _own_name_column(spec: dict[str, Any], table: str, *, title: bool = False) -> str | None:
    """The column that names a row of `table` (`name`, `title` ...); a title first when `title`."""
    columns = spec["tables"][table]["columns"]
    entity = re.sub(r"[^a-z]", "", table.lower())
    for column in (
        *(("title",) if title else ()),
        *_OWN_NAMES,
        *(
            c
            for c in columns
            if re.sub(r"[^a-z]", "", c.lower()) in (f"{entity}name", f"{entity.rstrip('s')}name")
        ),
    ):
        if column in columns and columns[column].get("type") == "string" and "enum" not in columns[column]:
            return column
    return None


_PERSON_ROLES = frozenset(
    "member participant attendee guest assignee collaborator subscriber follower invitee recipient panelist "
    "speaker organizer learner student player".split()
)
"""Rows that are a person in a role (a conversation's member, a webinar's panelist): with a reference to a
person's row, their own name is that person's."""
_PEOPLE = frozenset(("user", "person", "people", "contact", "customer", "employee"))
_TOWARDS = frozenset(("follower",))
"""Roles a person holds towards the person a row references (a user's followers): the row is someone else, unless
the reference says the role (`follower_id`)."""


def _people_in_roles(
    spec: dict[str, Any], state: dict[str, list[dict[str, Any]]], implicit: dict[tuple[str, str], str]
) -> None:
    """A member that references a user is that user: its own name (`name`, `display_name`, `full_name`) and its
    `user_name` are the user's name. A blind reading found member "Cory Miller" whose user was Michele Shaffer."""
    for table, tspec in spec["tables"].items():
        if singular(re.sub(r"[^a-z_]", "", table.lower())).split("_")[-1] not in _PERSON_ROLES:
            continue
        people = [
            (column, ref)
            for column in tspec["columns"]
            if (ref := referenced_table(spec, implicit, table, column))
            and ref in state
            and ref != table
            and singular(ref.lower()).split("_")[-1] in _PEOPLE
        ]
        if len({(_role(column), ref) for column, ref in people}) != 1:
            continue  # no person, or two (an inviter and an invitee): which one the row is, is not said
        # `user_id` and `user_name` (a handle) name one user: the key column reads it
        ref_column, ref = min(people, key=lambda p: "name" in p[0].lower())
        name = _own_name_column(spec, ref)
        if name is None:
            continue
        role = _role(ref_column)
        head = singular(re.sub(r"[^a-z_]", "", table.lower())).split("_")[-1]
        if head in _TOWARDS and role != head:
            # SoundCloud's `/users/{user_id}/followers`: a follower of user 15 is another person (seed 94: "the
            # follower named Justin Parker for the user named Justin Parker")
            continue
        own = [
            c
            for c, cspec in tspec["columns"].items()
            if c.lower() in ("name", "display_name", "displayname", "full_name", "fullname", f"{role}_name")
            and cspec.get("type") == "string"
            and "enum" not in cspec
            and not cspec.get("unique")
            and not referenced_table(
                spec, implicit, table, c
            )  # a `user_name` holding the user's handle stays one
        ]
        by_key = {row[spec["tables"][ref]["primary_key"]]: row.get(name) for row in state[ref]}
        for row in state[table]:
            value = by_key.get(row.get(ref_column))
            if isinstance(value, str):
                for column in own:
                    if row.get(column) is not None and value_problem(tspec["columns"][column], value) is None:
                        row[column] = value


def _names_of_referenced_rows(
    spec: dict[str, Any],
    state: dict[str, list[dict[str, Any]]],
    implicit: dict[tuple[str, str], str],
    bound: dict[tuple[str, str], list[dict[str, Any]]],
) -> None:
    """A row's `<role>_name` beside its `<role>_id` reference holds the referenced row's name: a transaction's
    `payee_name` is the name of its payee, an employee's `department_name` that of its department (drawn alone,
    `company_id` 19 sat beside the name of another company), and a timesheet's `project_title` its project's
    title (a blind reading found "the timesheet whose project title is 'Week of September 14'" on a project
    titled "Annual Audit 2025"). Only where the referenced table has a name of
    its own and the name column takes it (no enum, no argument that refuses it)."""
    for table, tspec in spec["tables"].items():
        refs = {  # role -> (reference column, table it references): `payee` -> (`payee_id`, `payees`)
            _role(column): (column, ref)
            for column in tspec["columns"]
            if (ref := referenced_table(spec, implicit, table, column))
            and ref != table
            and ref in state
            and column != tspec["primary_key"]
        }
        for column, cspec in tspec["columns"].items():
            role = _label_role(column)
            if (
                referenced_table(spec, implicit, table, column)
                or "enum" in cspec
                or cspec.get("unique")
                or cspec.get("type") != "string"
                or role is None
                or role in _NOT_ROLES
            ):
                continue
            if role in refs:
                ref_column, ref = refs[role]
            else:  # AppVeyor's deployment names its `environment_name` beside `deployment_environment_id` -> environments
                of_table = [
                    (c, r) for c, r in refs.values() if re.sub(r"[^a-z]", "", singular(r.lower())) == role
                ]
                if len(of_table) != 1:
                    continue
                ref_column, ref = of_table[0]
            name = _own_name_column(spec, ref, title=column.lower().endswith("title"))
            if name is None:
                continue
            theirs = column_meaning(
                ref, name, spec["tables"][ref]["columns"][name], bound.get((ref, name), [])
            )
            ours = column_meaning(table, column, cspec, bound.get((table, column), []))
            if (
                ours != theirs
                and ours not in ("named:label", "unknown")
                and role != re.sub(r"[^a-z]", "", singular(ref.lower()))
            ):
                # a company's name beside a reference to a table whose names are people's; a name that says its
                # table (`project_title` beside `project_id` -> projects) is that row's, whatever it reads like
                continue
            by_key = {row[spec["tables"][ref]["primary_key"]]: row.get(name) for row in state[ref]}
            accepts = [acceptor(a) for a in bound.get((table, column), [])]
            for row in state[table]:
                key = row.get(ref_column)
                value = by_key.get(key)
                if (
                    isinstance(value, str)
                    and row.get(column) is not None
                    and value_problem(cspec, value) is None
                    and all(a(value) for a in accepts)
                ):
                    row[column] = value
                elif value is None and key in by_key and is_nullable(tspec, column):
                    row[column] = None  # the project has no title: its timesheet names none either


_COPIED_MEANINGS = frozenset("email person first_name last_name username phone company".split())
"""Meanings of a field of who a row is for (`customer_email`, `owner_name`), copied from the row it references;
only under a role's name: a player's own `name` is never its team's."""


def _copies_of_referenced_rows(
    spec: dict[str, Any],
    state: dict[str, list[dict[str, Any]]],
    implicit: dict[tuple[str, str], str],
    bound: dict[tuple[str, str], list[dict[str, Any]]],
) -> dict[tuple[str, str], tuple[str, str]]:
    """A column a row shares by name with the one row it references (a billing cycle's `customer_email` beside
    its `subscription_id`, where subscriptions have a `customer_email` too) holds the referenced row's value:
    drawn alone, the cycle of ian.thompson@example.com led to a subscription of fmcgee@example.com, and a blind
    reader's answer came from another customer's subscription. Only who the row is for, under a role's name
    (`_COPIED_MEANINGS`), and its currency; only where one reference leads to a table with that column, and only
    values the column takes. Returns the columns copied: `(table, column)` -> `(reference column, table)`."""
    copied: dict[tuple[str, str], tuple[str, str]] = {}
    for table, tspec in spec["tables"].items():
        refs = [
            (column, ref)
            for column in tspec["columns"]
            if column != tspec["primary_key"]
            and (ref := referenced_table(spec, implicit, table, column))
            and ref != table
            and ref in state
        ]
        for column, cspec in tspec["columns"].items():
            if (
                column == tspec["primary_key"]
                or referenced_table(spec, implicit, table, column)
                or "enum" in cspec
            ):
                continue
            sources = [(c, ref) for c, ref in refs if column in spec["tables"][ref]["columns"]]
            if len(sources) != 1 or cspec.get("unique"):
                continue
            ref_column, ref = sources[0]
            meaning = column_meaning(table, column, cspec, bound.get((table, column), []))
            words = [w.lower() for w in name_words(column)]
            role = words[0] if len(words) > 1 else ""
            if meaning == "currency":
                pass  # an invoice line's currency is its invoice's
            elif meaning not in _COPIED_MEANINGS or role in name_words(singular(table)):
                continue
            elif role == "" and meaning == "company":
                continue  # an organization's own name is never its Stripe account's ("Tax Reserve", a blind reader)
            elif role in _NOT_ROLES and (names_a_person(table) or not names_a_person(ref)):
                # a player's own `name` is never its team's; a meeting's plain `first_name` and `email` are its one
                # organizer's (blind readers: organizer Zoe Morales, first name Monica, monica.chen@...)
                continue
            rpk = spec["tables"][ref]["primary_key"]
            by_key = {row[rpk]: row.get(column) for row in state[ref]}
            accepts = [acceptor(a) for a in bound.get((table, column), [])]
            for row in state[table]:
                value = by_key.get(row.get(ref_column))
                if (
                    value is not None
                    and row.get(column) is not None
                    and value_problem(cspec, value) is None
                    and all(a(value) for a in accepts)
                ):
                    row[column] = value
                    copied[(table, column)] = (ref_column, ref)
    return copied


def _distinct_sets(tspec: dict[str, Any], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows whose values of each table-level `unique` column set are distinct (later repeats dropped:
    a stock level per (warehouse, product) exists once)."""
    for group in tspec.get("unique", []):
        seen: set[tuple] = set()
        kept = []
        for row in rows:
            values = tuple(row.get(c) for c in group)
            if None in values or values not in seen:
                seen.add(values)
                kept.append(row)
        rows = kept
    return rows


def _own_label(table: str, column: str, meaning: str) -> bool:
    """Whether a column is the row's own name or title, made from its kind (`named:*`, `title:*`): "Copenhagen
    Downtown" names a location whose city is Copenhagen, so it takes the row's own place."""
    if not meaning.startswith(("named:", "title:")):
        return False
    words = [w for w in name_words(column) if w not in ("name", "title")]
    return not words or words == [singular_word(w) for w in name_words(table)][-1:]


_OWN_PERSON = frozenset(("person", "first_name", "last_name", "email", "username"))
_OWN_PLACE = frozenset(
    ("city", "state", "country", "country_code", "location", "address", "timezone", "coord")
)


def _null_share(
    tspec: dict[str, Any],
    column: str,
    cspec: dict[str, Any],
    meaning: str,
    named: bool = False,
    bound: bool = True,
) -> float:
    if not is_nullable(tspec, column) or cspec.get("unique") or meaning in ("id", "enum"):
        return 0.0
    words = set(name_words(column))
    optional = (
        meaning.startswith(("text:", "title:"))
        or meaning in ("phone", "middle_name", "url", "people")
        or bool(
            words
            & {
                "deleted",
                "cancelled",
                "canceled",
                "completed",
                "resolved",
                "closed",
                "shipped",
                "delivered",
                "end",
                "expires",
                "expiry",
                "last",
                "website",
                "fax",
                "bio",
                "notes",
                "note",
                "comment",
                "comments",
                "secondary",
                "alternate",
                "optional",
            }  # fmt: skip
        )
    )
    if words & {"deceased", "death", "died"}:
        return 0.97  # a record of the living: a death date on an active employee (seed 92's readers) is rare
    if meaning == "unknown" and cspec.get("type") == "string" and not named:
        # a field no rule reads is left empty more often than filled with a stray word, and always where no tool
        # takes it as an argument (nothing a task asks or sets depends on it)
        return UNKNOWN_NULL_SHARE if bound else 1.0
    return NULL_SHARE if optional else NULL_SHARE / 4 if cspec.get("nullable") is True else 0.0


UNKNOWN_NULL_SHARE = 0.85
"""Share of empty cells in a nullable text column whose meaning no rule reads (`pronouns`, `periodicity`) and that a
tool argument sets or filters by: most are left empty, as an API leaves optional fields it has no value for, rather
than filled with a word ("paper"); one no argument is bound to is always empty (seed-91 readers: a daily interest rate
"support", a home market value "attorney", a sort code "stop"; seed 94's still found such words in most worlds: 0.7 -> 0.85)."""


def _build_table(
    spec: dict[str, Any],
    table: str,
    n: int,
    seed: int,
    now: dt.datetime,
    bound: dict[tuple[str, str], list[dict[str, Any]]],
    implicit: dict[tuple[str, str], str],
    keys: dict[str, list[Any]],
    progress: Any,
    key_format: KeyFormat | None = None,
) -> list[dict[str, Any]]:
    """The `n` rows of one table (the keys of every table are known: `keys`)."""
    tspec = spec["tables"][table]
    pk = tspec["primary_key"]
    own_keys = keys[table]
    columns: dict[str, list[Any]] = {}
    people: dict[str, list[tuple[str, str]]] = {}
    if key_format is not None and key_format.person_of(1) is not None:
        # a user keyed by the handle `kristen.smith12` is Kristen Smith: the row's own name and email say so
        people[""] = [key_format.person_of(key_format.serial(k)) or ("", "") for k in own_keys]
    places: dict[str, list[PlaceRow]] = {}
    for column, cspec in tspec["columns"].items():
        where = f"cannot generate {n} rows of {table}.{column}"
        ref = cspec.get("references") or implicit.get((table, column))
        fake = faker_for(f"{seed}:{table}:{column}")
        rng = fake.random
        if column == pk:
            columns[column] = own_keys
        elif ref == table:  # a tree: each row points to an earlier one (the first to none, or itself)
            first = None if is_nullable(tspec, column) else own_keys[0] if n else None
            columns[column] = [own_keys[rng.randrange(i)] if i else first for i in range(n)]
        elif ref is not None and (
            cspec.get("references") or (keys[ref] and (not cspec.get("unique") or len(keys[ref]) >= n))
        ):
            columns[column] = _reference_column(tspec, column, cspec, keys[ref], n, rng, where)
        else:
            columns[column] = _value_column(
                spec, table, column, cspec, n, seed, now, bound, rng, fake, people, places
            )
        progress.update(n)
    if key_format is not None and key_format.kind == "name" and not key_format.person and "name" in columns:
        # a resource known by its name (Azure's resource group `rg-billing-prod-15`) is named so: never a made-up
        # "New Hires 2025" beside it (openapi-sample's readers: an automation account named "Sullivan Inc")
        columns["name"] = list(own_keys)
    _order_pairs(tspec, columns, n, table)
    _events_end_the_same_day(tspec, columns, n, table, random.Random(f"{seed}:{table}:duration"))
    _lifecycle_in_order(tspec, columns, n, random.Random(f"{seed}:{table}:lifecycle"), now)
    _open_rows_have_not_ended(tspec, columns, n)
    _status_in_time(tspec, columns, n, random.Random(f"{seed}:{table}:when"), now)
    _statuses_agree(tspec, columns, n)
    _flags_agree_with_status(tspec, columns, n)
    _breed_of_its_species(tspec, columns, n)
    _one_currency_a_row(table, tspec, columns, n)
    _date_is_its_start(tspec, columns, n)
    _amounts_add_up(tspec, columns, n, random.Random(f"{seed}:{table}:amounts"))
    _path_ends_in_its_name(table, tspec, columns, n, bound)
    _one_row_per_role(table, tspec, columns, implicit)
    _label_is_its_title(table, tspec, columns, bound)  # before the prose that names the row's subject
    _name_states_its_share(table, tspec, columns, n)
    _name_states_its_period(tspec, columns, n)
    _prose_about_subject(table, tspec, columns, seed, bound)
    order = list(tspec["columns"])
    return [dict(zip(order, vals, strict=True)) for vals in zip(*(columns[c] for c in order), strict=True)]


def _name_states_its_share(table: str, tspec: dict[str, Any], columns: dict[str, list[Any]], n: int) -> None:
    """A row named with a percentage holds it ("Loyalty 5%" was a discount of 66.5%, "VAT 20%" a rate of 7: seed 93's
    readers): its one percentage column takes the number its name says."""
    names = [c for c in ("name", "title", "label", "display_name") if c in columns]
    shares = [
        c
        for c, cs in tspec["columns"].items()
        if cs.get("type") in ("number", "integer")
        and column_meaning(table, c, cs).split(":")[-1] in ("percent", "levy", "discount")
    ]
    if not names or len(shares) != 1:
        return
    share = shares[0]
    for i in range(n):
        said = re.search(r"(\d+(?:\.\d+)?)\s?%", str(columns[names[0]][i] or ""))
        if said and columns[share][i] is not None:
            value = float(said.group(1))
            columns[share][i] = int(value) if tspec["columns"][share]["type"] == "integer" else value


_PERIODS = {
    "annual": "year",
    "yearly": "year",
    "monthly": "month",
    "weekly": "week",
    "quarterly": "quarter",
    "daily": "day",
}
_PERIOD_COLUMNS = re.compile(
    r"(^|_)(interval|frequency|period|billing_period|billing_cycle|cycle|recurrence)$"
)


def _name_states_its_period(tspec: dict[str, Any], columns: dict[str, list[Any]], n: int) -> None:
    """A plan named "Annual Subscription" is billed yearly (seed 93's readers: its interval was monthly): a row's
    period column takes the period its name says, in the column's own words (`yearly` or `year`, an enum's value)."""
    names = [c for c in ("name", "title", "label", "display_name") if c in columns]
    periods = [
        c for c, cs in tspec["columns"].items() if cs.get("type") == "string" and _PERIOD_COLUMNS.search(c)
    ]
    if not names or len(periods) != 1:
        return
    column = periods[0]
    enum = [v for v in tspec["columns"][column].get("enum") or [] if isinstance(v, str)]
    for i in range(n):
        said = re.search(
            r"\b(annual|yearly|monthly|weekly|quarterly|daily)\b", str(columns[names[0]][i] or ""), re.I
        )
        value = columns[column][i]
        if not said or not isinstance(value, str):
            continue
        unit = _PERIODS[said.group(1).lower()]
        if enum:
            match = next(
                (v for v in enum if unit in v.lower() or (unit == "year" and "annual" in v.lower())), None
            )
        else:
            match = (
                ("yearly" if unit == "year" else "daily" if unit == "day" else f"{unit}ly")
                if value.endswith("ly")
                else unit
            )
        if match is not None:
            columns[column][i] = match


_TITLES = ("title", "topic", "subject")


def _label_is_its_title(
    table: str, tspec: dict[str, Any], columns: dict[str, list[Any]], bound: dict[tuple[str, str], list]
) -> None:
    """A row named by a made-up label beside its own title is named by that title: iQualify's offering "Finance
    Offering" had the topic "Introduction to Data Science (Winter 2025)" (seed 91's readers: the data does not fit);
    it is now the offering "Introduction to Data Science (Winter 2025)". A person's or a company's name, or a job
    title, is left alone."""
    name = next((c for c in tspec["columns"] if c.lower() == "name"), None)
    if name is None or column_meaning(table, name, tspec["columns"][name], bound.get((table, name), [])) != (
        "named:label"
    ):
        return
    for column in tspec["columns"]:
        if (
            column.lower() not in _TITLES
            or column_meaning(table, column, tspec["columns"][column]) == "title:job"
        ):
            continue
        unique = tspec["columns"][name].get("unique")
        titles = columns[column]
        if unique and len({t for t in titles if t is not None}) < sum(t is not None for t in titles):
            return
        columns[name] = [
            t if isinstance(t, str) and t else v for t, v in zip(titles, columns[name], strict=True)
        ]
        return


_KEY_SUFFIXES = ("uuid", "id", "key", "name", "code", "number", "ref")


def _role(column: str) -> str:
    """The role a reference column names: `user_id`, `userid` and `user_name` all name the user; `owner_id` the
    owner, `primary_contact_id` the primary contact."""
    word = re.sub(r"[^a-z]", "", column.lower())
    for suffix in _KEY_SUFFIXES:
        if word.endswith(suffix) and len(word) > len(suffix):
            return word[: -len(suffix)]
    return word


def _one_row_per_role(
    table: str, tspec: dict[str, Any], columns: dict[str, list[Any]], implicit: dict[tuple[str, str], str]
) -> None:
    """Columns of one row that reference one table in one role (a member's `user_id` and `user_name`, a
    participant's `projectid` and `project_id`) point at one row: the later ones take the first one's value
    (each was drawn alone, and the member's user disagreed with itself)."""
    groups: dict[tuple[str, str], list[str]] = {}
    for column, cspec in tspec["columns"].items():
        ref = cspec.get("references") or implicit.get((table, column))
        if ref is not None and ref != table and column != tspec["primary_key"] and not cspec.get("unique"):
            groups.setdefault((ref, _role(column)), []).append(column)
    for same in groups.values():
        first = same[0]
        for column in same[1:]:
            columns[column] = [
                a if a is not None else b for a, b in zip(columns[first], columns[column], strict=True)
            ]


def _prose_about_subject(
    table: str,
    tspec: dict[str, Any],
    columns: dict[str, list[Any]],
    seed: int,
    bound: dict[tuple[str, str], list[dict[str, Any]]],
) -> None:
    """A row's free text speaks of the row: a ticket's description of its title, a message's body of its
    subject (`about_subject`), where the column would otherwise hold a stock sentence about something else."""
    subject, prose = subject_and_prose(table, tspec, lambda column: bound.get((table, column), []))
    for column in prose:
        rng = random.Random(f"{seed}:{table}:{column}:about")
        cspec = tspec["columns"][column]
        out = []
        for value, about in zip(columns[column], columns[subject], strict=True):
            if isinstance(value, str) and isinstance(about, str) and about.strip():
                text = about_subject(about.strip(), table, rng)
                value = text if value_problem(cspec, text) is None else value
            out.append(value)
        columns[column] = out


def _reference_column(
    tspec: dict[str, Any],
    column: str,
    cspec: dict[str, Any],
    keys: list[Any],
    n: int,
    rng: random.Random,
    where: str,
) -> list[Any]:
    ref = cspec.get("references")
    if not keys and n and not is_nullable(tspec, column):
        raise SpecError(f"{where}: it references {ref}, which has no rows")
    if cspec.get("unique"):
        if len(keys) < n and not is_nullable(tspec, column):
            raise SpecError(f"{where}: unique references need {n} rows in {ref}, it has {len(keys)}")
        picked: list[Any] = rng.sample(keys, min(n, len(keys)))
        return picked + [None] * (n - len(picked))
    return [rng.choice(keys) if keys else None for _ in range(n)]


def _value_column(
    spec: dict[str, Any],
    table: str,
    column: str,
    cspec: dict[str, Any],
    n: int,
    seed: int,
    now: dt.datetime,
    bound: dict[tuple[str, str], list[dict[str, Any]]],
    rng: random.Random,
    fake: Any,
    people: dict[str, list[tuple[str, str]]],
    places: dict[str, list[PlaceRow]],
) -> list[Any]:
    tspec = spec["tables"][table]
    where = f"cannot generate {n} rows of {table}.{column}"
    if cspec.get("unique") and "enum" in cspec and len(cspec["enum"]) < n:
        raise SpecError(f"{where}: it is unique but its enum has only {len(cspec['enum'])} values")
    args = bound.get((table, column), [])
    meaning = column_meaning(table, column, cspec, args)
    texts = column_texts(cspec, args)
    if meaning == "json" and any(isinstance(a, dict) and a.get("type") == "string" for a in args):
        meaning = f"json:{string_meaning(table, column, texts, ())}"
    c = Col(table, column, cspec, meaning, rng, fake, now, texts=texts, columns=frozenset(tspec["columns"]))
    if meaning != "enum" and cspec["type"] in ("string", "json"):
        c.named = named_values(cspec, args)
    if c.kind == "num":
        c.bounds = column_bounds(args, texts)
    if meaning in _OWN_PERSON:
        group = column_group(column, PERSON_TOKENS, table)
        if group not in people:
            prng = random.Random(f"{seed}:{table}:@person:{group}")
            people[group] = [(pick_first_name(prng), pick_last_name(prng)) for _ in range(n)]
        c.people = people[group]
    own_label = _own_label(table, column, meaning)
    # an address or a location object of the row is in the row's place ("Austin West" stood in Madison, WI)
    placed = meaning == "json" and object_kind(column) in ("postal", "geo")
    if meaning in _OWN_PLACE or meaning in ("num:lat", "num:lon") or own_label or placed:
        # a countries table's code and name are one country's (seed 93: code "US" beside the name Nigeria)
        place_table = singular_word(table.lower()).split("_")[-1] in ("country", "city", "region", "place")
        group = "" if own_label or place_table else column_group(column, PLACE_TOKENS, table)
        if group not in places:
            prng = random.Random(f"{seed}:{table}:@place:{group}")
            places[group] = [prng.choice(PLACES) for _ in range(n)]
        c.places = places[group]
    if meaning == "json":  # not `json:<meaning>`, a string for string arguments
        c.shape = _json_shape(args)
    make = value_maker(c)
    structured = _structured(args) if meaning == "json" else None
    if structured is not None:  # the arguments declare the fields: fill them by their names
        make = lambda i: schema_value(  # noqa: E731
            structured, rng, now, name=column, context=table, place=c.places[i] if c.places else None
        )
    accepts = [acceptor(s) for s in args]
    if args and meaning != "enum":
        # Arguments bound to the column list the values they take: draw from those all of them accept.
        enums = [
            a["enum"] for a in args if isinstance(a, dict) and isinstance(a.get("enum"), list) and a["enum"]
        ]
        first = [v for v in (enums[0] if enums else ()) if value_problem(cspec, v) is None]
        choices = [v for v in first if all(a(v) for a in accepts)] or first  # where they disagree, reads win
        if choices:
            make = lambda i: rng.choice(choices)  # noqa: E731
    null_share = _null_share(tspec, column, cspec, meaning, named=bool(c.named), bound=bool(args))
    unique = bool(cspec.get("unique"))
    values: list[Any] = []
    seen: set[Any] = set()
    for i in range(n):
        if null_share and rng.random() < null_share:
            values.append(None)
            continue
        value = typed(cspec, make(i))
        if args and meaning != "enum":
            value = fit_bound(value, cspec, args, rng, now, accepts, name=column, context=table)
        if unique:
            if "enum" in cspec and value in seen:
                value = rng.choice([v for v in cspec["enum"] if v not in seen])
            for _ in range(10):
                if value not in seen or "enum" in cspec:
                    break
                candidate = typed(cspec, make(i))
                if all(a(candidate) for a in accepts):
                    value = candidate
            value = _make_unique(value, i + 1, seen)
            seen.add(value)
        values.append(value)
    return values


def _json_shape(args: list[dict[str, Any]]) -> str | None:
    """The shape the arguments bound to a json column declare: `"object"`, `"array"` or `None`."""
    for arg in args:
        if not isinstance(arg, dict):
            continue
        kinds = arg.get("type") if isinstance(arg.get("type"), list) else [arg.get("type")]
        if "object" in kinds or "properties" in arg:
            return "object"
        if "array" in kinds or "items" in arg:
            return "array"
    return None


def _structured(args: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The first argument bound to a json column that declares its fields (an object's `properties`,
    or an array of such objects), or `None`."""
    for arg in args:
        if not isinstance(arg, dict):
            continue
        if isinstance(arg.get("properties"), dict) and arg["properties"]:
            return arg
        items = arg.get("items")
        if isinstance(items, dict) and isinstance(items.get("properties"), dict) and items["properties"]:
            return arg
    return None


def _make_unique(value: Any, index: int, seen: set[Any]) -> Any:
    """`value`, or a variant of it derived from the row index, that is not in `seen`."""
    if value not in seen:
        return value
    if isinstance(value, str):
        local, at, domain = value.partition("@")
        value = (
            f"{local}{index}{at}{domain}"
            if at
            else f"{value}{index}"
            if " " not in value
            else f"{value} {index}"
        )
        while value in seen:
            value += "'"
        return value
    return max(seen) + 1


_STAYS = frozenset("reservation booking stay hotel room guest visit lodging rate".split())
"""Rows of a stay: it arrives before it departs."""
_PAIRS = (("start", "end"), ("created", "updated"), ("check_in", "check_out"), ("checkin", "checkout"),
          ("departure", "return"), ("departure", "arrival"), ("from", "to"), ("begin", "finish"),
          ("opened", "closed"), ("start", "finish"), ("issued", "expires"), ("issue", "expiry"),
          ("issue", "expiration"), ("issued", "expiry"), ("created", "expires"), ("created", "expiry"),
          ("created", "expiration"), ("join", "leave"), ("joined", "left"), ("sign_in", "sign_out"),
          ("login", "logout"), ("clock_in", "clock_out"), ("opened", "resolved"), ("start", "completed"),
          ("started", "completed"), ("start", "due"))  # fmt: skip
"""A gift card expires after it is issued or created (blind readers: "gift cards expire before they are issued"); an
attendee leaves after joining (seed 93's readers: "attendees leave before they join")."""


def _order_pairs(tspec: dict[str, Any], columns: dict[str, list[Any]], n: int, table: str = "") -> None:
    """End dates after start dates: swap a row's `start_date`/`end_date` (`created_at`/`updated_at`,
    `check_in`/`check_out`, ...) when they are ISO strings in the wrong order. A stay arrives before it departs (a
    hotel reservation's `arrival` and `departure`); a flight departs before it arrives."""
    names = list(tspec["columns"])
    stay = bool({singular(w.lower()) for w in name_words(table)} & _STAYS)
    pairs = tuple(("arrival", "departure") if p == ("departure", "arrival") and stay else p for p in _PAIRS)
    for a in names:
        for start, end in pairs:
            if start not in a.lower():
                continue
            b = next((x for x in names if x.lower() == a.lower().replace(start, end, 1)), None)
            if (
                b is None
                or b == a
                or tspec["columns"][a]["type"] != "string"
                or tspec["columns"][b]["type"] != "string"
            ):
                continue
            first, second = columns[a], columns[b]
            for i in range(n):
                x, y = first[i], second[i]
                if (
                    isinstance(x, str)
                    and isinstance(y, str)
                    and x > y
                    and len(x) == len(y)
                    and all(re.match(r"^\d{4}-\d{2}-\d{2}|^\d{2}:\d{2}(?::\d{2})?$", v) for v in (x, y))
                ):  # fmt: skip  (dates, or 24-hour clock times: a timesheet ended at 09:15 after starting at 14:30)
                    first[i], second[i] = y, x


_EVENTS = frozenset(
    "meeting event appointment session call webinar training class shift slot lesson interview visit conference "
    "occurrence".split()
)


def _events_end_the_same_day(
    tspec: dict[str, Any], columns: dict[str, list[Any]], n: int, table: str, rng: random.Random
) -> None:
    """A meeting, a session or an appointment ends a half hour to four hours after it starts: blind readers of seed
    84 found meetings running from 2025-06-12 to 2025-08-24. Only a start and an end that are both timestamps."""
    if not {singular(w.lower()) for w in name_words(table)} & _EVENTS:
        return
    names = list(tspec["columns"])
    for a in names:
        if "start" not in a.lower() or tspec["columns"][a]["type"] != "string":
            continue
        b = next((x for x in names if x.lower() == a.lower().replace("start", "end", 1) and x != a), None)
        if b is None or tspec["columns"][b]["type"] != "string":
            continue
        for i in range(n):
            start, end = _parse_moment(columns[a][i]), columns[b][i]
            if start is None or not isinstance(end, str) or "T" not in columns[a][i] or "T" not in end:
                continue
            later = start + dt.timedelta(minutes=15 * rng.randint(2, 16))
            text = later.strftime("%Y-%m-%dT%H:%M:%S")
            if columns[a][i].endswith("Z"):
                text += "Z"
            elif re.search(r"[+-]\d\d:\d\d$", columns[a][i]):
                text += columns[a][i][-6:]
            if value_problem(tspec["columns"][b], text) is None:
                columns[b][i] = text


_LIFECYCLE = (
    "created placed ordered submitted requested confirmed approved authorized published released activated "
    "invoiced paid captured processed sent packed shipped dispatched delivered received completed fulfilled "
    "closed resolved returned refunded archived updated modified"
).split()
"""The moments of a row's life, in the order they happen: a row is paid after it is created and delivered after it
is shipped (a blind reader found a delivery before its order was placed), released after it is created (seed 93's
readers: a feature made in 2025 and released in 1997)."""
_MOMENT = re.compile(r"^(?:date_)?([a-z]+)(?:_(?:at|on|date|time|datetime|timestamp))$|^date_([a-z]+)$")


def _moment(column: str) -> int | None:
    words = "_".join(w.lower() for w in name_words(column))
    m = _MOMENT.match(words)
    word = m and (m.group(1) or m.group(2))
    return _LIFECYCLE.index(word) if word in _LIFECYCLE else None


def _parse_moment(value: Any) -> dt.datetime | None:
    if not isinstance(value, str) or not re.match(r"^\d{4}-\d{2}-\d{2}", value):
        return None
    try:
        when = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


def _lifecycle_in_order(
    tspec: dict[str, Any], columns: dict[str, list[Any]], n: int, rng: random.Random, now: dt.datetime
) -> None:
    """A row's moments in the order they happen (`_LIFECYCLE`: created, paid, shipped, delivered): a moment drawn
    before an earlier one moves to a few hours or days after it, written as it was (a date or a timestamp)."""
    moments = sorted(
        (rank, column)
        for column, cspec in tspec["columns"].items()
        if cspec.get("type") == "string" and (rank := _moment(column)) is not None
    )
    if len(moments) < 2:
        return
    for i in range(n):
        before: dt.datetime | None = None
        for _, column in moments:
            value = columns[column][i]
            when = _parse_moment(value)
            if when is None:
                continue
            if before is not None and when < before:
                when = before + dt.timedelta(hours=rng.randint(2, 72))
                if before <= now < when:  # never after the environment's clock
                    when = before + (now - before) / 2
                columns[column][i] = _as_written(value, when)
            before = when


def _money_words(column: str) -> list[str]:
    """The words of an amount's name, `sub_total` and `subTotal` read as `subtotal` (seed 91: an invoice's total
    254.23 beside a sub total 419.99, a discount 147.99 and a tax 182.83)."""
    parts = [w.lower() for w in name_words(column)]
    for j in range(len(parts) - 1, 0, -1):
        if parts[j - 1] == "sub" and parts[j] == "total":
            parts[j - 1 : j + 1] = ["subtotal"]
    return parts


def _money_column(tspec: dict[str, Any], words: tuple[str, ...], avoid: tuple[str, ...] = ()) -> str | None:
    for column, cspec in tspec["columns"].items():
        parts = _money_words(column)
        if (
            cspec.get("type") in ("number", "integer")
            and any(w in parts for w in words)
            and not any(w in parts for w in avoid)
            and not cspec.get("references")  # an order's `customer_tax_id` names a row, never its tax
            and parts[-1] not in ("id", "ids", "key", "number", "code")
        ):
            return column
    return None


def _amounts_add_up(tspec: dict[str, Any], columns: dict[str, list[Any]], n: int, rng: random.Random) -> None:
    """A row's amounts add up, as a blind reader checks them: its total is its subtotal plus shipping and tax less
    its discount (an order of subtotal 279.91 and shipping 441.51 had a total of 240.75), no more is refunded than
    was paid, and no more stock is reserved than is on hand."""
    rates = ("rate", "percent", "percentage", "pct", "ratio")
    subtotal = _money_column(tspec, ("subtotal",), rates)
    total = _money_column(
        tspec, ("total",), ("subtotal", "tax", "discount", "shipping", "fee", "fees", *rates)
    )
    if subtotal and total:
        adds = [
            c for w in (("shipping",), ("tax",), ("fee", "fees")) if (c := _money_column(tspec, w, rates))
        ]
        less = _money_column(tspec, ("discount",), rates)
        whole = tspec["columns"][total]["type"] == "integer"
        for i in range(n):
            base = columns[subtotal][i]
            if not isinstance(base, int | float) or isinstance(base, bool):
                continue
            for c in (
                *adds,
                *([less] if less else []),
            ):  # each a fair part of the subtotal, not another price
                v = columns[c][i]
                if isinstance(v, int | float) and not isinstance(v, bool) and v > 0.3 * base:
                    part = base * rng.choice((0.05, 0.08, 0.1, 0.15, 0.2)) if "tax" in c.lower() else 0
                    part = part or rng.choice((0, 4.99, 9.99, 14.99)) if "shipping" in c.lower() else part
                    part = part or round(base * rng.choice((0.05, 0.1, 0.2)), 2)
                    columns[c][i] = (
                        round(part) if tspec["columns"][c]["type"] == "integer" else round(part, 2)
                    )
            values = [columns[c][i] for c in (subtotal, *adds)]
            if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
                continue
            off = columns[less][i] if less and isinstance(columns[less][i], int | float) else 0
            amount = max(sum(values) - off, 0)
            columns[total][i] = round(amount) if whole else round(amount, 2)
    for part, of in (
        (("refunded", "refund"), ("amount", "total", "paid")),
        (("reserved",), ("hand", "stock")),
        (("paid",), ("total",)),  # "amount_paid 331.78 on a total 198.62" (a blind reader)
        (("balance",), ("total",)),  # seed 91: a balance of 17882.24 on an invoice of 254.23
    ):
        small = _money_column(tspec, part)
        big = _money_column(tspec, of, part)
        if not small or not big:
            continue
        for i in range(n):
            a, b = columns[small][i], columns[big][i]
            if isinstance(a, int | float) and isinstance(b, int | float) and a > b:
                share = rng.choice((0, 0.25, 0.5, 1))
                value = b * share
                columns[small][i] = (
                    round(value) if tspec["columns"][small]["type"] == "integer" else round(value, 2)
                )
    net, gross = _money_column(tspec, ("net",), rates), _money_column(tspec, ("gross",), rates)
    if net and gross and net != gross:
        for i in range(n):  # a net amount is the gross less its tax (seed 93: invoices of gross below net)
            a, b = columns[net][i], columns[gross][i]
            if (
                isinstance(a, int | float)
                and isinstance(b, int | float)
                and not isinstance(a, bool)
                and a > b
            ):
                value = b / rng.choice((1.07, 1.1, 1.19, 1.2))
                columns[net][i] = (
                    round(value) if tspec["columns"][net]["type"] == "integer" else round(value, 2)
                )
    available = _money_column(tspec, ("available",), ("date", "at"))
    on_hand, reserved = _money_column(tspec, ("hand",)), _money_column(tspec, ("reserved",))
    if available and on_hand and reserved and len({available, on_hand, reserved}) == 3:
        for i in range(n):  # what is available is what is on hand less what is reserved
            a, b = columns[on_hand][i], columns[reserved][i]
            if (
                isinstance(a, int | float)
                and isinstance(b, int | float)
                and columns[available][i] is not None
            ):
                columns[available][i] = max(a - b, 0)


def _path_ends_in_its_name(
    table: str,
    tspec: dict[str, Any],
    columns: dict[str, list[Any]],
    n: int,
    bound: dict[tuple[str, str], list[dict[str, Any]]],
) -> None:
    """A file's path ends in its name (blind readers: the file "notes_2024_78.pdf" at
    "/srv/app/backups/data_2025_44.log"): the row's path keeps its folder and takes the row's file name."""
    meanings = {
        c: column_meaning(table, c, cs, bound.get((table, c), []))
        for c, cs in tspec["columns"].items()
        if cs.get("type") == "string"
        and c != tspec["primary_key"]
        and "enum" not in cs
        and not cs.get("unique")
    }
    names = [c for c, m in meanings.items() if m == "filename"]
    paths = [c for c, m in meanings.items() if m == "path"]
    if len(names) != 1 or len(paths) != 1:
        return
    accepts = [acceptor(a) for a in bound.get((table, paths[0]), [])]
    for i in range(n):
        name, path = columns[names[0]][i], columns[paths[0]][i]
        if isinstance(name, str) and isinstance(path, str) and "/" in path and "/" not in name and name:
            joined = f"{path.rsplit('/', 1)[0]}/{name}"
            if value_problem(tspec["columns"][paths[0]], joined) is None and all(a(joined) for a in accepts):
                columns[paths[0]][i] = joined


_ENDED = re.compile(
    r"^(?:date_)?(completed|closed|cancell?ed|cancel|cancellation|resolved|voided|archived|rejected|refunded|"
    r"delivered|finished|"
    r"ended|expired|terminated)(?:_(?:at|on|date|time|datetime|timestamp))?$"
)
_OPEN_STATUSES = frozenset(
    "open|new|pending|active|draft|todo|to do|in progress|in_progress|processing|scheduled|waiting|queued|unpaid|"
    "requested|submitted|needsaction|needs action|confirmed|booked|upcoming|tentative|reserved|planned|running|"
    "in transit|in_transit".split("|")
)
"""Statuses of a row that has not ended: it holds no moment of its end (a ticket "open" with `completed_at`)."""


_BREEDS = {
    "dog": (
        "Labrador Retriever",
        "German Shepherd",
        "Golden Retriever",
        "French Bulldog",
        "Beagle",
        "Poodle",
    ),
    "cat": ("Siamese", "Maine Coon", "Persian", "Bengal", "Ragdoll", "British Shorthair"),
}
"""Breeds of the species that have them by name; a rabbit or a parrot is of no listed breed."""


def _breed_of_its_species(tspec: dict[str, Any], columns: dict[str, list[Any]], n: int) -> None:
    """A pet's breed is one of its species (blind readers: a reptile of breed "elephant"; a rabbit of breed Beagle)."""
    species = next(
        (c for c in tspec["columns"] if c.lower() in ("species", "pet_species", "animal_type")), None
    )
    breed = next((c for c in tspec["columns"] if c.lower() in ("breed", "pet_breed")), None)
    if species is None or breed is None or tspec["columns"][breed].get("type") != "string":
        return
    if "enum" in tspec["columns"][breed]:  # the API's own list of breeds stays
        return
    for i in range(n):
        kind = str(columns[species][i] or "").strip().lower()
        if kind in _BREEDS:
            columns[breed][i] = _BREEDS[kind][i % len(_BREEDS[kind])]
        elif columns[breed][i] is not None and is_nullable(tspec, breed):
            columns[breed][i] = None


_STARTS = ("start_time", "start_date", "starts_at", "start_at", "start_datetime", "scheduled_start", "start")
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}")


def _date_is_its_start(tspec: dict[str, Any], columns: dict[str, list[Any]], n: int) -> None:
    """A row's plain `date` is the day it starts: a blind sample's meeting "whose date is 2024-08-20" started on
    2025-07-02 (and an "upcoming" meeting was dated in the past)."""
    cols = {c.lower(): c for c in tspec["columns"]}
    date = cols.get("date")
    start = next((cols[c] for c in _STARTS if c in cols), None)
    if date is None or start is None or tspec["columns"][date].get("type") != "string":
        return
    for i in range(n):
        day, begins = columns[date][i], columns[start][i]
        if (
            isinstance(day, str)
            and isinstance(begins, str)
            and _ISO_DAY.match(day)
            and _ISO_DAY.match(begins)
        ):
            value = begins[:10] + day[10:] if len(day) > 10 else begins[:10]
            if value_problem(tspec["columns"][date], value) is None:
                columns[date][i] = value


_CURRENCIES = {
    "USD": ("US Dollar", "$", 2), "EUR": ("Euro", "€", 2), "GBP": ("Pound Sterling", "£", 2),
    "JPY": ("Japanese Yen", "¥", 0), "CHF": ("Swiss Franc", "CHF", 2), "CAD": ("Canadian Dollar", "CA$", 2),
    "AUD": ("Australian Dollar", "A$", 2), "NZD": ("New Zealand Dollar", "NZ$", 2), "SEK": ("Swedish Krona", "kr", 2),
    "NOK": ("Norwegian Krone", "kr", 2), "DKK": ("Danish Krone", "kr.", 2), "INR": ("Indian Rupee", "₹", 2),
    "CNY": ("Chinese Yuan", "¥", 2), "BRL": ("Brazilian Real", "R$", 2), "MXN": ("Mexican Peso", "MX$", 2),
    "ZAR": ("South African Rand", "R", 2), "SGD": ("Singapore Dollar", "S$", 2), "HKD": ("Hong Kong Dollar", "HK$", 2),
    "KRW": ("South Korean Won", "₩", 0), "PLN": ("Polish Zloty", "zł", 2),
}  # fmt: skip
"""A currency's name, symbol and minor-unit digits, by its ISO code."""


def _one_currency_a_row(table: str, tspec: dict[str, Any], columns: dict[str, list[Any]], n: int) -> None:
    """A row of a currencies table is one currency: its name, symbol and decimal places are its code's (a blind
    reader: "NZD ... name CHF, symbol MSFT, decimal_places 72")."""
    if not singular(table.lower()).endswith("currency"):
        return
    cols = {
        c.lower(): c
        for c in tspec["columns"]
        if "enum" not in tspec["columns"][c] and c != tspec["primary_key"]
    }
    code = next(
        (cols[c] for c in ("code", "currency_code", "iso_code", "currency", "iso") if c in cols), None
    )
    name = next((cols[c] for c in ("name", "currency_name", "display_name") if c in cols), None)
    symbol = next((cols[c] for c in ("symbol", "currency_symbol", "sign") if c in cols), None)
    digits = next(
        (cols[c] for c in ("decimal_places", "decimals", "precision", "minor_units") if c in cols), None
    )
    source = code or name
    if source is None:
        return
    codes = list(_CURRENCIES)
    for i in range(n):
        drawn = str(columns[source][i] or "").upper()
        iso = drawn if drawn in _CURRENCIES else codes[i % len(codes)]
        label, sign, places = _CURRENCIES[iso]
        for column, value in ((code, iso), (name, label if code else iso), (symbol, sign), (digits, places)):
            if column is None or columns[column][i] is None:
                continue
            if value_problem(tspec["columns"][column], value) is None and not (
                tspec["columns"][column].get("unique") and value in columns[column][:i]
            ):
                columns[column][i] = value


def _status_of(tspec: dict[str, Any]) -> str | None:
    return next(
        (c for c in tspec["columns"] if c.lower() in ("status", "state") or c.lower().endswith("_status")),
        None,
    )


def _statuses_agree(tspec: dict[str, Any], columns: dict[str, list[Any]], n: int) -> None:
    """Two states of one row over the same values say one thing (blind readers: a car's `door_status` locked beside
    its `lock_status` unlocked): where two status columns share two values or more, the later holds the earlier's
    value whenever it may."""
    names = [
        c
        for c, cs in tspec["columns"].items()
        if cs.get("type") == "string" and c.lower().endswith(("status", "state")) and c in columns
    ]

    def values(c: str) -> dict[str, Any]:  # lower-case -> the column's own spelling
        declared = tspec["columns"][c].get("enum")
        drawn = declared if declared else [v for v in columns[c] if isinstance(v, str)]
        return {str(v).strip().lower(): v for v in drawn}

    for j, later in enumerate(names):
        own = values(later)
        first = next((c for c in names[:j] if len(own.keys() & values(c).keys()) >= 2), None)
        if first is None:
            continue
        for i in range(n):
            value = columns[first][i]
            if isinstance(value, str) and isinstance(columns[later][i], str) and value.strip().lower() in own:
                columns[later][i] = own[value.strip().lower()]


def _flags_agree_with_status(tspec: dict[str, Any], columns: dict[str, list[Any]], n: int) -> None:
    """A yes/no field named after a status says whether the row is in it (blind readers: an invitation `pending`
    with `"accepted": true`, accepted again): `accepted`, `is_archived`, `completed` are true exactly where the
    row's status is that one."""
    status = _status_of(tspec)
    if status is None:
        return
    flags = {
        c: flag_state(c) for c, cs in tspec["columns"].items() if cs.get("type") == "boolean" and c != status
    }
    known = {str(v).lower() for v in tspec["columns"][status].get("enum") or ()}
    seen = {str(v).strip().lower() for v in columns[status] if isinstance(v, str)}
    values = known or seen
    # `is_complete` is the status `Completed` (seed 93's readers: a task "In Progress" with is_complete true)
    flags = {
        c: next((v for v in sorted(values) if v == state or (len(state) > 4 and v.startswith(state))), None)
        for c, state in flags.items()
        if state
    }
    flags = {c: state for c, state in flags.items() if state is not None}
    for i in range(n):
        value = columns[status][i]
        if not isinstance(value, str):
            continue
        for c, state in flags.items():
            columns[c][i] = value.strip().lower() == state


_START_MOMENT = re.compile(
    r"^(?:start|starts|begin|begins|scheduled|event|meeting|appointment|session|class|date)"
    r"(?:_(?:at|on|date|time|datetime|for|timestamp))?$"
)
_END_MOMENT = re.compile(r"^(?:end|ends|finish|finishes)(?:_(?:at|on|date|time|datetime|timestamp))?$")
_PAST_STATUSES = frozenset(
    "completed|complete|ended|finished|done|past|held|occurred|attended|expired".split("|")
)
_AHEAD_STATUSES = frozenset("scheduled|upcoming|planned|not started|not_started|notstarted".split("|"))


def _as_written(value: str, when: dt.datetime) -> str:
    """`when` written as `value` was: a date, a UTC timestamp ending in `Z`, or an ISO moment."""
    if len(value) == 10:
        return when.date().isoformat()
    if value.endswith("Z"):
        return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return when.isoformat()


def _status_in_time(
    tspec: dict[str, Any], columns: dict[str, list[Any]], n: int, rng: random.Random, now: dt.datetime
) -> None:
    """A row whose status says it took place starts before now, one still ahead after it (seed 93's readers: a
    meeting dated after "now" already "completed"); its end moves with its start."""
    status = _status_of(tspec)
    if status is None:
        return
    moments = {
        c: "_".join(w.lower() for w in name_words(c))
        for c, cs in tspec["columns"].items()
        if cs.get("type") == "string" and c in columns
    }
    start = next((c for c, w in moments.items() if _START_MOMENT.match(w)), None)
    end = next((c for c, w in moments.items() if _END_MOMENT.match(w)), None)
    if start is None:
        return
    for i in range(n):
        value = columns[status][i]
        when = _parse_moment(columns[start][i])
        if not isinstance(value, str) or when is None:
            continue
        word = value.strip().lower().replace("-", " ")
        if word in _PAST_STATUSES and when > now:
            shift = -(when - now) - dt.timedelta(days=rng.randint(1, 60))
        elif word in _AHEAD_STATUSES and when < now:
            shift = (now - when) + dt.timedelta(days=rng.randint(1, 60))
        else:
            continue
        for column in (start, end):
            moment = _parse_moment(columns[column][i]) if column else None
            if moment is not None:
                columns[column][i] = _as_written(columns[column][i], moment + shift)


def _open_rows_have_not_ended(tspec: dict[str, Any], columns: dict[str, list[Any]], n: int) -> None:
    """A row whose status says it is still open holds no moment of its end (blind readers: a ticket answered as
    "open" while it had a `completed_at`; an order "hidden" with a `voided_at`): the moment is left empty where
    the column may be."""
    status = _status_of(tspec)
    if status is None:
        return
    ended = [
        c
        for c, cs in tspec["columns"].items()
        if _ENDED.match("_".join(w.lower() for w in name_words(c))) and is_nullable(tspec, c)
    ]
    for i in range(n):
        value = columns[status][i]
        if isinstance(value, str) and value.strip().lower().replace("-", " ") in _OPEN_STATUSES:
            for c in ended:
                columns[c][i] = None
