"""Attributes: how a value that a step sets or names is said.

`Attributes` (on `envscale.tasks.phrases.Phrases`, under `envscale.tasks.clauses.Clauses`) says one argument of
a step as a person would: by its column (`_attr`: "a quantity of 2", "the note "gift"", "stylist Vanessa
Anderson", "read only turned on", "with the collection named X as its collection"), or with a preposition
(`_prep_attr`: "from Seattle, WA", "on 2024-09-29", "at "Ritz-Carlton Warsaw""); `_names_entity` tells the name
of the row a create makes, `_own_field` an argument taken from the row the request found.
"""

from __future__ import annotations

import re
from typing import Any

from ..judge import parse_provenance
from ..words.inflect import singular
from ..words.names import tokens
from .phrases import Phrases
from .steps import Arg, Step
from .wording import (
    ADJECTIVES,
    GENERIC_DELTA,
    PREPOSITIONS,
    QUOTED,
    ROLES,
    WHEN_OF,
    article,
    col_words,
    format_value,
    free_text,
    join,
    readable_words,
)


def _own_words(a: Any, step: Any) -> list[str]:
    """Words of the column an argument fills; for a new row, without a leading `new` (`new_alarm_time` of a
    new alarm is its "alarm time")."""
    words = tokens((a.binding.column if a.binding else None) or a.arg)
    return words[1:] if step.kind == "create" and len(words) > 1 and words[0] == "new" else words


class Attributes(Phrases):
    """The values of a step, in the user's words."""

    def _attr(self, step: Step, a: Arg) -> str:
        """A value the request sets or creates: `a quantity of 2`, `the note "gift"`, `category books`."""
        b = a.binding
        column = (b.column if b else None) or a.arg
        enum = "enum" in self.column_spec(step.op, column) if b else False
        label = col_words(column, a.arg)
        if b and b.place == "adjust" and not all(w in GENERIC_DELTA for w in tokens(a.arg)):
            label = readable_words(a.arg)
        if a.source.startswith("call["):
            ref = self.derived_np(a, self.key_table(a))
            *named, last = label.split(" ")
            if (
                named
                and last in ("id", "key", "uuid", "idfk", "idfks", "ref")
                and ref.head in (" ".join(named), named[-1])
            ):
                # "with the collection named X as its collection", not "the collection id set to the collection ..."
                return f"{ref.render()} as its {' '.join(named)}"
            return f"the {label} set to {ref.render()}"
        words = label.split(" ")
        if (
            len(words) >= 2
            and words[-1] == "name"
            and isinstance(a.value, str)
            and re.fullmatch(r"[A-Z][a-z'-]+(?: [A-Z][a-z'-]+){1,2}", a.value)
            and words[-2] in ROLES
        ):
            return f"{' '.join(words[:-1])} {a.value}"  # "stylist Vanessa Anderson"
        if isinstance(a.value, bool):  # "read only turned on", never "read only yes"
            if " " not in label and (label.endswith("ed") or label in ADJECTIVES):
                return label if a.value else f"not {label}"  # "enabled", "not public"
            return f"{label} turned {'on' if a.value else 'off'}"
        value = format_value(a.value, enum)
        if isinstance(a.value, list) and any(isinstance(v, str) and free_text(v) for v in a.value):
            return f"the {label} " + join([f'"{format_value(v)}"' for v in a.value])  # each sentence quoted
        if isinstance(a.value, str) and not enum and free_text(a.value):
            return f'the {label} "{value}"'
        if (tokens(column)[-1:] or [""])[0] in QUOTED and isinstance(a.value, str) and not enum:
            return f'the {label} "{value}"'
        if isinstance(a.value, (int, float)) and not isinstance(a.value, bool):
            last = label.rsplit(" ", 1)[-1]
            if label.startswith("number of ") and len(label) > 10:  # "2 seats", not "2 number of seats"
                return f"{value} {label[10:]}"
            if last in (
                "id",
                "number",
                "key",
                "code",
                "uuid",
            ):  # "account id 257", not "an account id of 257"
                return f"{label} {value}"
            if singular(last) != last:  # "98 chords", not "a chords of 98"
                return f"{value} {label}"
            return f"{article(label)} {label} of {value}"
        return f"{label} {value}"

    def _own_field(self, a: Arg, table: str | None) -> bool:
        """Whether an argument flows from a row of `table` itself (`call[0][2].map_id` of the spot the request
        found): the row was named already, and its parent with it ("in that spot's map id" says nothing)."""
        parsed = parse_provenance(a.source) if a.source.startswith("call[") else None
        return bool(parsed and parsed[0] < len(self.steps) and self.steps[parsed[0]].table == table)

    def _names_entity(self, step: Step, a: Arg) -> bool:
        """Whether an argument is the name of the row a create makes (`restaurant_name` of a restaurant)."""
        words = _own_words(a, step)
        return words == ["name"] or words == [*step.entity.split(" "), "name"]

    def _prep_attr(self, step: Step, a: Arg) -> tuple[str, str] | None:
        """A value said with its preposition instead of its name (`("from", "from Seattle, WA")`, "to ...",
        "on 2024-09-29", "at 10:30 AM", "in Berkeley, CA"): where a trip starts and ends, its date and time,
        the place something happens. `None` for the other values."""
        if a.source.startswith("call[") or not isinstance(a.value, str):
            return None
        if len(a.value.split()) > 8 or a.value.rstrip().endswith((".", "!", "?")):
            return None  # a sentence, not a place or a time
        words = " ".join(_own_words(a, step))
        value = format_value(a.value)
        head = words.rsplit(" ", 1)[0] if " " in words else ""
        listed = any(words in names for _, names, _ in PREPOSITIONS)
        if head and not listed and (head in WHEN_OF or head in step.entity.split(" ")):
            words = words.rsplit(" ", 1)[1]  # "visit date", "appointment time": when the thing happens
        for prep, names, shape in PREPOSITIONS:
            if words in names and (shape is None or shape.match(a.value)):
                if words.endswith("name") or words in ("hotel", "restaurant", "venue"):
                    return f"{prep} a place", f'{prep} "{value}"'  # "at "Ritz-Carlton Warsaw""
                key = f"{prep} a date" if prep in ("from", "until") and shape is not None else prep
                return key, f"{prep} {value}"
        return None
