"""What the scripted agent says to the user, grounded in the episode's tool results.

Every sentence is built from what this episode's calls returned (never from the gold results): a write
says what it did to which row and the values the tool answered with; a read states the asked facts,
each with the field of the result it was read from when one holds it; a clarifying question names the
missing facts; a refusal cites the policy rule the task carries (`policy.task_rule.text`). A few
phrasings of each, chosen with the episode's seeded `random.Random` (the same seed, the same words).

Example:

```python
>>> import random
>>> from envscale.rollout.closing import Write, write_sentence
>>> w = Write("cancel_order", {"order_id": "ord_0042"}, {"order_id": "ord_0042", "status": "cancelled"},
...           "order", "changed", ["status"])
>>> write_sentence(w, random.Random(0))
'All set: I cancelled order ord_0042, and its status is now cancelled.'
>>> write_sentence(w, random.Random(2))
"I've cancelled order ord_0042; its status is now cancelled."
```
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

from ..tasks.naming import entity_name
from ..tasks.wording import cap, format_value, join, participle, plural_phrase, readable_words
from ..words.names import flag_state
from ..words.semantics import tool_meaning

__all__ = [
    "Write",
    "describe_write",
    "facts_clause",
    "facts_sentence",
    "failure_sentence",
    "question",
    "refusal",
    "write_sentence",
]

#: Verbs a tool's name carries that say how it is called, not what it does (HTTP methods, `set`).
_PLAIN_VERBS = frozenset({"put", "patch", "post", "get", "list", "set", "do", "make", "run"})
_KIND_VERBS = {"changed": "update", "added": "create", "removed": "delete"}
#: An argument or column that names a row (its value identifies the row, it is not what changed).
_KEY = re.compile(
    r"(?:^|[_\s])(?:id|key|uuid|code|number|slug)$|(?<=[a-z])(?:Id|Key|Uuid|ID)$", re.IGNORECASE
)
_MAX_FIELDS = 3
_MAX_VALUE = 120


@dataclass
class Write:
    """One successful write of the episode, as the closing message describes it.

    Attributes:
        tool (`str`): The tool called.
        arguments (`dict`): The arguments it was called with.
        result (`Any`): What the tool returned in this episode (a row, or `None` for a delete).
        entity (`str`): How a person names the row (`order`).
        kind (`str`): `changed`, `added` or `removed`.
        fields (`list[str]`): The result's columns the write changed, in the result's order.
        name (`str | None`): How a person names a removed row (its name or title, from the task's diff) when the
            delete returned nothing and its arguments name it only by an internal key.
    """

    tool: str
    arguments: dict
    result: Any
    entity: str
    kind: str
    fields: list[str] = field(default_factory=list)
    name: str | None = None


#: Columns that name a row as a person does, the likeliest first.
_NAMES = ("name", "title", "display_name", "full_name", "label", "subject", "email", "username")


def _is_key(name: str) -> bool:
    return bool(_KEY.search(name)) or name.lower() in ("id", "key", "uuid")


def _said(value: Any) -> str | None:
    """A value as the message says it, or `None` when it is not said (nested, empty, long, a question)."""
    if value is None or isinstance(value, dict | list) or value == "":
        return None
    if isinstance(value, float) and round(value, 2) != value:
        value = round(value, 2)  # 444.21000000000004 -> 444.21, as a person says it
    text = format_value(value)
    if len(text) > _MAX_VALUE or "?" in text:  # a "?" would read as a question to the user
        return None
    return f'"{text}"' if isinstance(value, str) and len(text.split()) >= 4 else text


def _first_key(row: Any) -> str | None:
    if isinstance(row, dict) and row:
        name = next(iter(row))
        return name if _is_key(name) else None
    return None


def _entity_of_key(key: str) -> str:
    """`order_id` -> `order`."""
    return (
        re.sub(r"\s+(id|key|uuid|uid|code|number)$", "", readable_words(key), flags=re.IGNORECASE) or "record"
    )


def _ident(write: Write) -> str:
    """`order ord_0042`: the entity and the value of the key the result (or the arguments) show."""
    key = _first_key(write.result)
    if key is not None and _said(write.result[key]) is not None:
        return f"{write.entity} {_said(write.result[key])}"
    if write.name is not None:
        return f'the {write.entity} "{write.name}"'
    keys = [k for k, v in write.arguments.items() if _is_key(k) and _said(v) is not None]
    if len(keys) == 1:
        return f"{write.entity} {_said(write.arguments[keys[0]])}"
    return f"the {write.entity}"


def _removed_name(change: Any, arguments: dict) -> str | None:
    """The name (or title ...) of the one removed row of `change` whose own key an argument holds."""
    values = {str(v) for v in arguments.values() if isinstance(v, str | int) and not isinstance(v, bool)}
    removed = change.get("removed") if isinstance(change, dict) else None
    rows = [r for r in removed or [] if (key := _first_key(r)) is not None and str(r[key]) in values]
    if len(rows) != 1:
        return None
    name = next((rows[0][c] for c in _NAMES if isinstance(rows[0].get(c), str) and rows[0][c].strip()), None)
    return name if name is not None and len(name) <= 60 else None


def _diff_table(diff: dict, row: Any, tool: str) -> tuple[str | None, str]:
    """The table of `diff` a write's result row belongs to, and how it changed there."""
    key = _first_key(row)
    for table, change in diff.items():
        if not isinstance(change, dict):
            continue
        rows = list(change.get("added") or []) + list(change.get("removed") or [])
        rows += [
            c.get("after") or c.get("before") for c in change.get("changed") or [] if isinstance(c, dict)
        ]
        if key is not None and any(isinstance(r, dict) and key in r for r in rows):
            kind = next((k for k in ("changed", "added", "removed") if change.get(k)), "changed")
            return table, kind
    if len(diff) == 1:
        table, change = next(iter(diff.items()))
        if isinstance(change, dict):
            return table, next((k for k in ("changed", "added", "removed") if change.get(k)), "changed")
    return None, "removed" if row is None else "changed"


def _changed_columns(change: dict) -> list[str]:
    out: list[str] = []
    for c in change.get("changed") or []:
        before, after = (c.get("before") or {}), (c.get("after") or {})
        out += [k for k in after if before.get(k) != after.get(k) and k not in out]
    return out


def describe_write(tool: str, arguments: dict, result: Any, diff: dict) -> Write:
    """A successful write of the episode, named with the task's diff (which table, what kind of change:
    the tool's structure) and described with the episode's own result (the values)."""
    table, kind = _diff_table(diff or {}, result, tool)
    key = _first_key(result)
    if table is not None:
        spec = {"tables": {table: {"primary_key": key}}} if key else None
        entity = entity_name(table, spec)
    elif key is not None:
        entity = _entity_of_key(key)
    else:
        entity = "record"
    row = result if isinstance(result, dict) else {}
    if kind == "changed" and table is not None:
        named = [c for c in _changed_columns((diff or {}).get(table) or {}) if c in row]
    else:  # what the arguments asked for and the result confirms
        named = [k for k, v in arguments.items() if k in row and row[k] == v]
    fields = [c for c in named if not _is_key(c) and _said(row[c]) is not None]
    # "cancelled yes and status cancelled": a yes/no named after the status said beside it says it again
    states = {str(row[c]).lower() for c in fields if isinstance(row[c], str)}
    fields = [c for c in fields if not (isinstance(row[c], bool) and flag_state(c) in states)][:_MAX_FIELDS]
    # a delete that answered nothing: "the break point "Main loop"", named by the row its diff removed
    removed = kind == "removed" and table is not None and key is None
    name = _removed_name((diff or {}).get(table), arguments) if removed else None
    return Write(tool, arguments, result, entity, kind, fields, name)


def _verb(write: Write) -> str:
    meaning = tool_meaning(write.tool)
    verb = meaning.verb if meaning.verb and meaning.verb not in _PLAIN_VERBS else None
    if verb is None or (write.kind == "removed") != (verb in ("delete", "remove", "cancel", "drop")):
        verb = verb if write.kind == "changed" and verb else _KIND_VERBS.get(write.kind, "update")
    return participle(verb)


def write_sentence(write: Write, rng: random.Random) -> str:
    """What one write did, in one of a few phrasings; every value is the one its result shows."""
    done, ident = _verb(write), _ident(write)
    row = write.result if isinstance(write.result, dict) else {}
    values = [(readable_words(c), _said(row[c])) for c in write.fields]
    if not values:
        return rng.choice(
            [
                f"I've {done} {ident}.",
                f"{cap(ident)} has been {done}.",
                f"Done: {ident} is {done}.",
                f"All set, {ident} has been {done}.",
                f"{cap(ident)} is {done} now.",
                f"That's taken care of: {ident} has been {done}.",
            ]
        )
    its = join([f"its {name} is now {value}" for name, value in values])
    has = join([f"{name} {value}" for name, value in values])
    return rng.choice(
        [
            f"I've {done} {ident}; {its}.",
            f"{cap(ident)} has been {done}: {has}.",
            f"Done: {ident} now has {has}.",
            f"All set: I {done} {ident}, and {its}.",
        ]
    )


def failure_sentence(tool: str, error: Any, rng: random.Random) -> str:
    """A write the environment refused: what it answered, never a claim that it happened."""
    said = str(error.get("error") if isinstance(error, dict) else error or "an error")[:200]
    name = readable_words(tool)
    return rng.choice(
        [
            f"I'm sorry, I couldn't complete the {name} request: the system answered {said!r}.",
            f"Unfortunately the {name} call failed ({said}), so nothing was changed by it.",
        ]
    )


def _where(fact: Any, results: list[Any]) -> tuple[str, str] | None:
    """`the status of order ord_0042`: the field (and row) of this episode's results that holds `fact`."""
    text = str(fact).lower()
    for result in reversed(results):
        rows = result if isinstance(result, list) else [result]
        if isinstance(result, list) and str(len(result)) == text and not isinstance(fact, bool):
            key = _first_key(rows[0]) if rows else None
            entity = _entity_of_key(key) if key else "record"
            return f"the number of matching {plural_phrase(entity)}", "is"
        for row in rows:
            if not isinstance(row, dict):
                continue
            for name, value in row.items():
                if isinstance(value, dict | list) or value is None or str(value).lower() != text:
                    continue
                if _is_key(name):
                    return None
                key = _first_key(row)
                if key is not None and key != name and _said(row[key]) is not None:
                    # a later result of the same row shows another value: the fact is what it was
                    later = [
                        r
                        for res in results[results.index(result) + 1 :]
                        for r in (res if isinstance(res, list) else [res])
                        if isinstance(r, dict) and r.get(key) == row[key] and name in r
                    ]
                    verb = "was" if later and str(later[-1][name]).lower() != text else "is"
                    return f"the {readable_words(name)} of {_entity_of_key(key)} {_said(row[key])}", verb
                return f"the {readable_words(name)}", "is"
    return None


def facts_clause(facts: list[Any], results: list[Any]) -> str:
    """The asked facts, each as it appears (the answer check reads them whole), with the field of the
    episode's results that holds it: `the status of ad 19 is draft`."""
    parts = []
    for fact in facts:
        where = _where(fact, results)
        parts.append(f"{where[0]} {where[1]} {fact}" if where else str(fact))
    return join(parts) if len(parts) <= 2 else "; ".join(parts)


def facts_sentence(facts: list[Any], results: list[Any], rng: random.Random) -> str:
    """`facts_clause` in one of a few phrasings."""
    said = facts_clause(facts, results)
    return rng.choice(
        [
            f"Here is what I found: {said}.",
            f"I looked it up: {said}.",
            f"{cap(said)}.",
            f"According to the records, {said}.",
        ]
    )


def question(names: list[str], rng: random.Random) -> str:
    """A clarifying question that names every missing fact (the scripted user answers what it names)."""
    asked = join([f"your {n}" for n in names])
    return rng.choice(
        [
            f"I can help with that. Could you tell me {asked}?",
            f"Happy to help. To do that I need {asked}; could you give me that?",
            f"Sure. Before I go ahead, what is {asked}?",
        ]
    )


def _action(goal: str) -> str | None:
    """`I want to mark the ad 19 as draft.` -> `mark the ad 19 as draft`."""
    m = re.match(r"^\s*I(?: would|'d)? (?:want|like|need) to (.+?)\.?\s*$", goal or "", re.IGNORECASE)
    return m.group(1) if m else None


def refusal(task_rule: dict | None, goal: str, facts_said: str | None, rng: random.Random) -> str:
    """A refusal that cites the task's policy rule (`task_rule.text`, `refused: ...`) and, when known,
    the facts that make it apply."""
    rule = re.sub(r"^\s*refused:\s*", "", str((task_rule or {}).get("text") or "")).strip().rstrip(".")
    action = _action(goal) or "do that"
    tool = (task_rule or {}).get("tool")
    because = f" ({facts_said})" if facts_said else ""
    if not rule:
        return f"I'm sorry, but I can't {action}: our policy does not allow it in this case{because}."
    return rng.choice(
        [
            f"I'm sorry, but I can't {action}. Our policy refuses it when {rule}{because}.",
            f"I can't {action}: the policy rule for {tool} is that it is refused when {rule}{because}.",
            f"Unfortunately I can't {action}, because our policy does not allow it when {rule}{because}.",
        ]
    )
