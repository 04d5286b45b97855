"""The one normaliser of answers and values: numbers in one canonical form, text as facts are matched.

Two things compare values written by different hands, and both go through here:

- answer facts against an agent's final answer (`answer_matches`, the `answer` check): lower case,
  single spaces, every number in one canonical form, a fact found as a whole (no word character, nor
  a `.5`/`,5`, continues it on either side);
- the arguments of an agent's calls against the gold calls' (`canonical_value`, the `exact` check):
  a number by its value (`1.0` is `1`), a string without surrounding spaces, anything else as its
  sorted JSON.

A number's canonical form (`canonical_number`) is its exact decimal value, without trailing zeros
or exponent: `42.0` -> `"42"`, `"1234.50"` -> `"1234.5"`, `1e-7` -> `"0.0000001"`. A float is read
from its shortest repr, so `0.1` is `"0.1"`, not the binary value's 55 digits.

Example:

```python
>>> from envscale.judge.answers import answer_matches, canonical_number, canonical_value, normalize_answer
>>> canonical_number(42.0), canonical_number("1234.50"), canonical_number(1e-7)
('42', '1234.5', '0.0000001')
>>> normalize_answer("Total: $1,234.50 for ord_0042")
'total: $1234.5 for ord_0042'
>>> answer_matches(["1,234.5", 42, "Ann Lee"], "ann lee owes 1234.50 on 42.0 orders")
True
>>> canonical_value(1.0) == canonical_value(1), canonical_value(" ord_1 "), canonical_value(True)
(True, 's:ord_1', 'b:True')
```
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["answer_matches", "canonical_number", "canonical_value", "contains_fact", "normalize_answer"]

# A number standing on its own: not glued to a word or to another number's separator on its left.
# `1,234,567.5` reads as one number (thousands separators), `ord_0042` and `v1.2` are left alone.
_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?!\w)")
_MAX_DIGITS = 40  # longer digit runs (hashes, card numbers) are kept as they are written


def canonical_number(value: int | float | Decimal | str) -> str | None:
    """The canonical decimal form of a number (see the module docstring), or `None` when it has none.

    Args:
        value (`int`, `float`, `Decimal` or `str`): The number; a string must be a decimal numeral
            (`"1234.50"`, no thousands separators). Not a `bool`: callers tell booleans apart first.

    Returns:
        `str` or `None`: `"42"` for `42.0`, `"NaN"`/`"Infinity"` for those floats (as `Decimal`
        writes them); `None` for a string that is no number.
    """
    try:
        return format(Decimal(repr(value) if isinstance(value, float) else value).normalize(), "f")
    except (InvalidOperation, ValueError):
        return None


def _canonical_match(match: re.Match[str]) -> str:
    digits = match.group(1).replace(",", "")
    if len(digits) > _MAX_DIGITS:
        return match.group(0)
    return canonical_number(digits + (match.group(2) or "")) or match.group(0)


def normalize_answer(text: Any) -> str:
    """Text as answer facts are matched: lower case, single spaces, every number in one canonical form.

    `"Total: $1,234.50"` -> `"total: $1234.5"`; `"42.0 items"` -> `"42 items"`; ids such as
    `ord_0042` are kept as written. A number given as a number is its canonical form, a boolean
    `"true"`/`"false"`, anything else its sorted JSON, normalised as text.
    """
    if isinstance(text, bool):
        text = "true" if text else "false"
    elif isinstance(text, int | float | Decimal):
        number = canonical_number(text)
        if number is not None:
            return number
        text = str(text)
    elif not isinstance(text, str):
        text = json.dumps(text, sort_keys=True, default=str)
    return _NUMBER.sub(_canonical_match, " ".join(text.split()).lower())


def _word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def contains_fact(haystack: str, needle: str) -> bool:
    """`needle` occurs in `haystack` as a whole: no word character, nor `.5`/`,5`, continues it on either side.

    Both are compared as they are: normalise them first (`normalize_answer`)."""
    if not needle:
        return True
    start = haystack.find(needle)
    n, end_max = len(needle), len(haystack)
    while start != -1:
        end = start + n
        before_ok = start == 0 or not (
            _word(haystack[start - 1])
            or (start >= 2 and haystack[start - 1] in ".," and haystack[start - 2].isdigit())
        )
        after_ok = end == end_max or not (
            _word(haystack[end])
            or (end + 1 < end_max and haystack[end] in ".," and haystack[end + 1].isdigit())
        )
        if before_ok and after_ok:
            return True
        start = haystack.find(needle, start + 1)
    return False


def answer_matches(facts: Iterable[Any], answer: str | None) -> bool:
    """Whether every fact appears in `answer` (see `normalize_answer`; an empty fact list matches).

    Example:

    ```python
    >>> answer_matches(["1,234.5", 42, "Ann Lee"], "ann lee owes 1234.50 on 42.0 orders")
    True
    >>> answer_matches(["42"], "order 421"), answer_matches(["5"], "5.5"), answer_matches(["ord_0001"], "ord_00012")
    (False, False, False)
    ```
    """
    facts = list(facts)
    if not facts:
        return True
    if answer is None:
        return False
    text = normalize_answer(answer)
    return all(contains_fact(text, normalize_answer(fact)) for fact in facts)


def canonical_value(value: Any) -> str:
    """A call argument as the `exact` check compares it: tagged by type, a number by its canonical form.

    `1`, `1.0` and `1.00` are `"n:1"`; `True` is `"b:True"` (never a number); `" x "` is `"s:x"`;
    lists, objects and `None` are `"j:"` and their sorted JSON.
    """
    if isinstance(value, bool):
        return f"b:{value}"
    if isinstance(value, int | float):
        number = canonical_number(value)
        return f"n:{value if number is None else number}"
    if isinstance(value, str):
        return f"s:{value.strip()}"
    return "j:" + json.dumps(value, sort_keys=True, default=str)
