"""Answers scored for precision: an answer that states the asked facts among a dump of the tables fails.

Recall alone (`answers.answer_matches`) rewards an agent that reads everything and pastes it into its
answer: the asked facts are in there somewhere. A person answering "what is the email of Ann Lee?"
writes the email, perhaps her name and the customer number, not the other forty customers. So an
answer is also checked for what it states beyond what was asked (`overstatement`):

- every table of the environment's state is read, and each row's *identifying values* found: its
  string cells of at least `MIN_CHARS` characters that no other row of the table holds in that column
  and that are more than one plain word (a key `ord_0042`, a full name, an email, a title, a date;
  never a status, a single word or a number, which many rows share or which any text may contain);
- a row is *asked* when one of the answer facts is one of its cells, *given* values are what the user
  said (the task's first message, requests and known facts), and the rows the task *acts on* (the
  rows its gold calls address or change) are what the answer reports on: none counts against it;
- the answer *overstates* when it names more than `MAX_OTHER_ROWS` rows that were not asked (a dump of
  a table), or states more than `MAX_OTHER_FIELDS` identifying values of the asked rows beyond the
  facts (a dump of the row's every field), or pastes raw records: more than `MAX_RECORD_FIELDS` of the
  environment's columns as `"column": value` (a tool's result, however few rows).

The bounds are loose on purpose: a helpful answer names the row it read and the person it belongs to;
what fails is the answer no person would write.

Example:

```python
>>> from envscale.env import Environment
>>> from envscale.judge.precision import overstatement
>>> env = Environment.from_yaml("tests/fixtures/envs/shop.yaml")
>>> customers = env.dump()["customers"]
>>> ann = customers[0]
>>> overstatement(env, [ann["email"]], f"The email of {ann['name']} is {ann['email']}.") is None
True
>>> dump = " ".join(f"{c['name']} <{c['email']}>" for c in customers)
>>> overstatement(env, [ann["email"]], dump)  # doctest: +ELLIPSIS
'states values of ... rows that were not asked (customers ...)'
```
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from envscale.env import Environment

from .answers import contains_fact, normalize_answer

__all__ = ["MAX_OTHER_FIELDS", "MAX_OTHER_ROWS", "MAX_RECORD_FIELDS", "MIN_CHARS", "overstatement"]

#: Rows not asked that an answer may name (the customer an order belongs to, the folder a file is in).
MAX_OTHER_ROWS = 3
#: Identifying values of the asked rows beyond the facts that an answer may state (its key, its name).
MAX_OTHER_FIELDS = 4
#: Shorter values are ordinary words or codes that any text may contain.
MIN_CHARS = 4
#: Fields of raw records (`"column": value`, as a tool returns them) an answer may paste.
MAX_RECORD_FIELDS = 2


def _identifying(rows: list[dict[str, Any]]) -> list[list[str]]:
    """Each row's identifying values, normalised: string cells of `MIN_CHARS`+ characters unique in their column."""
    counts: Counter[tuple[str, str]] = Counter()
    normal: list[dict[str, str]] = []
    for row in rows:
        cells = {}
        for column, value in row.items():
            if isinstance(value, str) and len(value.strip()) >= MIN_CHARS:
                text = normalize_answer(value)
                if len(text) >= MIN_CHARS and not text.replace(".", "").isdigit() and not text.isalpha():
                    cells[column] = text
                    counts[column, text] += 1
        normal.append(cells)
    return [[text for column, text in cells.items() if counts[column, text] == 1] for cells in normal]


def _cells(row: dict[str, Any]) -> set[str]:
    return {normalize_answer(v) for v in row.values() if v is not None and v != ""}


def overstatement(
    env: Environment,
    facts: Iterable[Any],
    answer: str | None,
    given: Iterable[Any] = (),
    acted: Iterable[Any] = (),
) -> str | None:
    """Why `answer` states more than a person answering with `facts` would, or `None` when it does not.

    Args:
        env (`Environment`): The environment, in the state the answer was given in (the replay's final
            state).
        facts (`list`): The task's answer facts.
        answer (`str`): The agent's answer.
        given (`list`, *optional*): What the user said (messages, known facts): values found there are
            the user's own and never count against the answer.
        acted (`list`, *optional*): `(table, primary key)` of the rows the task acts on (its gold writes'
            arguments, the rows its gold run changed): telling what was done to them is part of the answer.

    Returns:
        `str` or `None`: A short reason (`"states values of 12 rows that were not asked (customers,
        orders)"`), or `None` for a precise answer.
    """
    if not answer:
        return None
    columns = {c for t in env.spec["tables"].values() for c in (t.get("columns") or {})}
    pasted = {m for m in re.findall(r"[\"']([A-Za-z_][\w.]*)[\"']\s*:", answer) if m in columns}
    if len(pasted) > MAX_RECORD_FIELDS:
        return f"pastes raw records ({len(pasted)} fields such as {', '.join(sorted(pasted)[:3])})"
    text = normalize_answer(answer)
    wanted = {normalize_answer(f) for f in facts}
    said = " ".join(normalize_answer(g) for g in given)
    done = {(table, normalize_answer(k)) for table, k in acted}
    seen = []  # (table, asked, identifying values) of every row holding a value the answer states
    asked_cells: set[str] = set()
    for table, rows in env.dump().items():
        key = (env.spec["tables"].get(table) or {}).get("primary_key")
        for row, values in zip(rows, _identifying(rows), strict=True):
            cells = _cells(row)
            acted_on = key in row and (table, normalize_answer(row[key])) in done
            asked = bool(cells & wanted)
            if asked or acted_on:
                asked_cells |= cells
            if acted_on:  # what was done to it, or found on it, is the answer
                continue
            stated = [v for v in values if v not in wanted and contains_fact(text, v)]
            if stated:
                seen.append((table, asked, stated))
    other_rows: list[str] = []
    other_fields: set[str] = set()
    for table, asked, stated in seen:
        # a value the user said, or that an asked or acted-on row holds too (the order's customer), is fine
        stated = [v for v in stated if not contains_fact(said, v)]
        if asked:
            other_fields.update(stated)
        elif any(v not in asked_cells for v in stated):
            other_rows.append(table)
    if len(other_rows) > MAX_OTHER_ROWS:
        tables = ", ".join(sorted(set(other_rows)))
        return f"states values of {len(other_rows)} rows that were not asked ({tables})"
    if len(other_fields) > MAX_OTHER_FIELDS:
        return f"states {len(other_fields)} fields of the asked rows that were not asked"
    return None
