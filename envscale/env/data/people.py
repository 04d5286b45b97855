"""One person in a row: a person's name, email and username agree, in their own row and in the objects that hold
them (`envscale.env.data.generate` calls these once every table is drawn).

Columns that describe one person share a group (`column_group`): `customer_email` and `customer_name` describe the
row's customer, `email` and `name` the row's own person. Blind readers found leads whose email was another person's
("Cathy Michael", wendy.jones@...), addresses of one customer with another's email, users whose nested `user`
object was someone else, and conversations shown by a display name that was not their name.
"""

from __future__ import annotations

import random
import re
from typing import Any

from envscale.env.data.meaning import (
    PERSON_TOKENS,
    column_meaning,
    names_a_person,
    referenced_table,
    singular_word,
)
from envscale.env.data.values import ascii_letters, email_for, username_for
from envscale.env.spec import value_problem
from envscale.words.names import name_words

_OWN_NAME_QUALIFIERS = frozenset("preferred legal given known primary work personal".split())
"""Words of a name or an address column that say which of the row's own it is (`preferred_name`: the employee's,
never another person's: seed 92's readers found Quinn Harris preferring "Sarah"; `primary_email`, `work_email`: seed
93's found Kristopher Evans's primary email zacharyhughes11@...)."""


def column_group(column: str, vocabulary: frozenset[str], table: str) -> str:
    """Columns describing the same person (or place) of a row share a group: `customer_email` and
    `customer_name` -> `customer`; `email` and `name` -> `""` (the row's own); `player1` -> `player1`."""
    parts = [p for p in re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", column).lower().split("_") if p]
    rest = [p for p in parts if p not in vocabulary and p not in _OWN_NAME_QUALIFIERS]
    group = "_".join(rest)
    return "" if group in ("", singular_word(table.lower()), table.lower()) else group


_HANDLES = ("email", "username")


def _person_columns(
    spec: dict[str, Any],
    table: str,
    implicit: dict[tuple[str, str], str],
    bound: dict[tuple[str, str], list[dict[str, Any]]],
) -> dict[str, dict[str, str]]:
    """A table's columns that say who one person is, by the person they describe (`_group`): `customer_email`
    and `customer_name` -> `{"customer": {"email": ..., "person": ...}}`; free strings only."""
    tspec = spec["tables"][table]
    groups: dict[str, dict[str, str]] = {}
    for column, cspec in tspec["columns"].items():
        if (
            column == tspec["primary_key"]
            or cspec.get("type") != "string"
            or "enum" in cspec
            or referenced_table(spec, implicit, table, column)
        ):
            continue
        meaning = column_meaning(table, column, cspec, bound.get((table, column), []))
        if meaning in ("first_name", "last_name", "person", *_HANDLES):
            groups.setdefault(column_group(column, PERSON_TOKENS, table), {}).setdefault(meaning, column)
    return groups


def _name_of(row: dict[str, Any], columns: dict[str, str]) -> tuple[str, str] | None:
    """The first and last name a row gives one person, from its first and last name columns or its full name."""
    first, last = row.get(columns.get("first_name", "")), row.get(columns.get("last_name", ""))
    if isinstance(first, str) and isinstance(last, str) and first and last:
        return first, last
    full = row.get(columns.get("person", ""))
    words = full.split() if isinstance(full, str) else []
    return (words[0], words[-1]) if len(words) >= 2 else None


def _handle_of(value: str, name: tuple[str, str]) -> bool:
    """Whether an email or username is the named person's: its name part holds their first or last name."""
    local = re.sub(r"[^a-z]", "", value.split("@")[0].lower())
    return any(len(p) >= 2 and p[:4] in local for p in (ascii_letters(n) for n in name))


def handles_of_their_names(
    spec: dict[str, Any],
    state: dict[str, list[dict[str, Any]]],
    implicit: dict[tuple[str, str], str],
    bound: dict[tuple[str, str], list[dict[str, Any]]],
    copied: dict[tuple[str, str], tuple[str, str]],
    seed: int,
) -> None:
    """One person's name, email and username in a row agree. Blind readers of seed 84 found lead Cathy Michael
    with email wendy.jones@..., and an address of Larry Powell with his customer's email: 184 of 964 rows with a
    name and an email disagreed. Where the email (or username) was copied from the row it references and the
    name was not, the name is that row's person's too; otherwise the email and username are made from the name
    (the domain kept)."""
    for table, tspec in spec["tables"].items():
        lists: dict[str, list[str]] = {}
        for column, cspec in tspec["columns"].items():
            if cspec.get("type") == "json" and "email" in [w.lower().rstrip("s") for w in name_words(column)]:
                group = column_group(re.sub(r"(?i)(email)s", r"\1", column), PERSON_TOKENS, table)
                lists.setdefault(group, []).append(column)
        for group, columns in _person_columns(spec, table, implicit, bound).items():
            handles = [columns[m] for m in _HANDLES if m in columns] + lists.get(group, [])
            names = [columns[m] for m in ("first_name", "last_name", "person") if m in columns]
            if not handles or not names:
                continue
            rng = random.Random(f"{seed}:{table}:@handles:{group}")
            source = next(
                (copied[(table, h)] for h in handles if (table, h) in copied),
                None,
            )
            if source is not None and any((table, c) in copied for c in names):
                continue  # the name came with the email: they agree as the referenced row does
            theirs = None
            if source is not None:
                ref_column, ref = source
                rpk = spec["tables"][ref]["primary_key"]
                found = _person_columns(spec, ref, implicit, bound)
                ref_columns = found.get(group) or found.get("", {})
                theirs = {row[rpk]: _name_of(row, ref_columns) for row in state[ref]}
            for row in state[table]:
                if theirs is not None:
                    name = theirs.get(row.get(ref_column))
                    if name is not None:
                        _set_name(row, tspec, columns, name)
                        continue
                name = _name_of(row, columns)
                if name is None:
                    continue
                for column in lists.get(group, ()):  # a lead's `emails`: [{"email": ..., "type": "work"}]
                    row[column] = _emails_of(row.get(column), name, rng)
                for meaning in _HANDLES:
                    column = columns.get(meaning)
                    value = row.get(column) if column else None
                    if not isinstance(value, str) or _handle_of(value, name):
                        continue
                    if (table, column) in copied:
                        continue  # another row's email, kept as that row has it
                    if meaning == "username":
                        made = username_for(*name, rng)
                    else:
                        made = _email_at(name, value, rng) if "@" in value else email_for(*name, rng)
                    if value_problem(tspec["columns"][column], made) is None and not tspec["columns"][
                        column
                    ].get("unique"):
                        row[column] = made


def _email_at(name: tuple[str, str], address: str, rng: random.Random) -> str:
    """An email address made from a person's name, at the domain of `address` (which it replaces)."""
    return email_for(*name, rng).split("@")[0] + "@" + address.split("@", 1)[1]


def _emails_of(value: Any, name: tuple[str, str], rng: random.Random) -> Any:
    """A person's list of email addresses (strings, or objects with an `email`), each made from their name."""
    if isinstance(value, str) and "@" in value:
        return _email_at(name, value, rng)
    if isinstance(value, list):
        return [_emails_of(v, name, rng) for v in value]
    if isinstance(value, dict):
        return {
            k: _emails_of(v, name, rng) if k.lower() in ("email", "address", "value") else v
            for k, v in value.items()
        }
    return value


_SELF_OBJECTS = frozenset(("user", "profile", "person", "account", "me", "self", "identity"))


def people_in_objects(
    spec: dict[str, Any],
    state: dict[str, list[dict[str, Any]]],
    implicit: dict[tuple[str, str], str],
    bound: dict[tuple[str, str], list[dict[str, Any]]],
    seed: int,
) -> None:
    """A person held as an object (`{"name": ..., "email": ...}`) is one person, and in a person's own row
    (AppVeyor's user with a nested `user`) it is that row's person: seed 85's readers found user Kristopher
    Schneider whose nested user was Krystal Ramsey, kramsey@example.com."""
    for table, tspec in spec["tables"].items():
        own = _person_columns(spec, table, implicit, bound).get("", {})
        mine = names_a_person(table)
        rng = random.Random(f"{seed}:{table}:@objects")
        for column, cspec in tspec["columns"].items():
            if cspec.get("type") != "json":
                continue
            self_object = mine and set(w.lower() for w in name_words(column)) & _SELF_OBJECTS
            for row in state[table]:
                value = row.get(column)
                if not isinstance(value, dict) or not {"name", "email"} & set(value):
                    continue
                name = _name_of(row, own) if self_object else None
                if name is not None:
                    if isinstance(value.get("name"), str):
                        value["name"] = " ".join(name)
                    if isinstance(value.get("email"), str) and isinstance(row.get(own.get("email", "")), str):
                        value["email"] = row[own["email"]]
                email = value.get("email")
                name = name or _name_of(value, _OBJECT_NAMES)
                if (
                    name is not None
                    and isinstance(email, str)
                    and "@" in email
                    and not _handle_of(email, name)
                ):
                    value["email"] = _email_at(name, email, rng)


_OBJECT_NAMES = {"person": "name", "first_name": "first_name", "last_name": "last_name"}


_DISPLAY_NAMES = frozenset(("displayname", "friendlyname", "shownname"))


def display_names_are_names(spec: dict[str, Any], state: dict[str, list[dict[str, Any]]]) -> None:
    """A row's display name is its name: blind readers of seed 84 found a conversation named "Billing question from
    Gina" with the display name "Booking change for David". Only where the table has a name (or title) of its own
    beside it, and the display name takes the value."""
    for table, tspec in spec["tables"].items():
        shown = [c for c in tspec["columns"] if re.sub(r"[^a-z]", "", c.lower()) in _DISPLAY_NAMES]
        parts = ("first_name", "last_name")
        if all(p in tspec["columns"] for p in parts):  # a person: their name, never their job title (seed 92)
            for column in shown:
                for row in state[table]:
                    if row.get(column) is not None and all(
                        isinstance(row.get(p), str) and row[p] for p in parts
                    ):
                        row[column] = f"{row['first_name']} {row['last_name']}"
            continue
        own = next((c for c in ("name", "title", "full_name") if c in tspec["columns"]), None)
        if own is None or tspec["columns"][own].get("type") != "string" or "enum" in tspec["columns"][own]:
            continue
        for column in shown:
            cspec = tspec["columns"][column]
            if (
                cspec.get("type") != "string"
                or "enum" in cspec
                or cspec.get("unique")
                or cspec.get("references")
            ):
                continue
            for row in state[table]:
                value = row.get(own)
                if (
                    isinstance(value, str)
                    and row.get(column) is not None
                    and value_problem(cspec, value) is None
                ):
                    row[column] = value


def _set_name(
    row: dict[str, Any], tspec: dict[str, Any], columns: dict[str, str], name: tuple[str, str]
) -> None:
    """Write a person's name into a row's name columns (first, last, full), where each is set and takes it."""
    for meaning, value in (("first_name", name[0]), ("last_name", name[1]), ("person", " ".join(name))):
        column = columns.get(meaning)
        if column and row.get(column) is not None and value_problem(tspec["columns"][column], value) is None:
            row[column] = value
