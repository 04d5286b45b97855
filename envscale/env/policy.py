"""An environment's policy as checkable rules, and the text shown to the agent.

`policy_rules(spec)` reads every tool's `preconditions` (`[{column, op, value, error}]` on the
addressed row) and `guards` (`[{check: {OP: [EXPR, EXPR]}, error}]`, on the operation and on its
effects) into rules, in spec order:

- `{"tool", "kind": "precondition", "table", "column", "op", "value", "allowed"?, "error"}`:
  `allowed` lists the values that let the call through when they can be listed (`in`, `eq`, and
  `ne` on an enum column);
- `{"tool", "kind": "guard", "table", "check", "error", "effect"?}`: a guard; one that compares a
  column of the addressed row with a literal (`{in: [{column: status}, {value: [pending]}]}`) also
  gets `column`, `op`, `value` and `allowed`, like a precondition. A guard of an effect has
  `effect: {"index", "table"}` (the effect's position and table).

`table` is always the table the tool addresses.

The text is the spec's own `policy` when it has one; otherwise one sentence per rule: the rule's
error message when it states a rule ("cancel_order: only pending orders can be cancelled."; a
message such as "not enough stock" states a failure, not a rule), else built from the rule
("cancel_order: only while the order's status is pending or paid.").
Nothing is random: the same spec gives the same rules and text.

`violating_rows(spec, env, rule)` lists the rows of the rule's table that the rule refuses in the
environment's current state: a policy task picks one and asks for the action, and the right
outcome is a refusal.

Example:

```python
>>> from envscale.env import Environment, load_spec
>>> from envscale.env.policy import policy_rules, violating_rows
>>> spec = load_spec("tests/fixtures/envs/shop.yaml")
>>> rule = next(r for r in policy_rules(spec)["rules"] if r["tool"] == "cancel_order")
>>> rule["column"], rule["op"], rule["allowed"], rule["error"]
('status', 'in', ['pending'], 'only pending orders can be cancelled')
>>> violating_rows(spec, Environment(spec), rule)[0]["status"]
'cancelled'
>>> del spec["policy"]
>>> print(policy_rules(spec)["text"])
update_order_status: a cancelled order cannot change status.
cancel_order: only pending orders can be cancelled.
```
"""

from __future__ import annotations

import re
from typing import Any

from envscale.env.operations import GUARD_TESTS, PRECONDITION_OPS
from envscale.env.runtime import Environment
from envscale.words.inflect import singular

__all__ = ["policy_rules", "rule_sentence", "violating_rows"]

_FLIPPED = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
_OP_WORDS = {
    "eq": "is",
    "ne": "is not",
    "lt": "is below",
    "le": "is at most",
    "gt": "is above",
    "ge": "is at least",
    "in": "is one of",
    "contains": "contains",
}
_DEFAULT_ERROR = re.compile(r"^(precondition failed|check failed|guard)\b", re.IGNORECASE)
_RULE_WORDS = re.compile(
    r"\b(only|can|cannot|can't|may|must|never|requires?|at least|at most)\b", re.IGNORECASE
)


def _entity(table: str) -> str:
    """`order_items` -> `order item`: what one row of a table is called in a sentence."""
    words = table.split("_")
    return " ".join([*words[:-1], singular(words[-1])])


def _words(column: str) -> str:
    return column.replace("_", " ")


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "empty"
    if isinstance(value, list):
        return _either([_value_text(v) for v in value])
    return str(value)


def _either(items: list[str]) -> str:
    if not items:
        return "nothing"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " or " + items[-1]


def _allowed(op: str, value: Any, column_spec: dict[str, Any]) -> list[Any] | None:
    """The values that pass `op value`, when they can be listed."""
    if op == "in" and isinstance(value, list):
        return list(value)
    if op == "eq":
        return [value]
    if op == "ne" and "enum" in column_spec:
        return [v for v in column_spec["enum"] if v != value]
    return None


def _column_form(check: dict[str, Any]) -> tuple[str, str, Any] | None:
    """`(column, op, literal)` of a guard comparing an addressed row's column with a literal, else `None`."""
    if not isinstance(check, dict) or len(check) != 1:
        return None
    ((op, sides),) = check.items()
    if (
        not isinstance(sides, list)
        or len(sides) != 2
        or not all(isinstance(s, dict) and len(s) == 1 for s in sides)
    ):
        return None
    left, right = sides
    if "column" in left and "value" in right:
        return left["column"], op, right["value"]
    if "value" in left and "column" in right and op in _FLIPPED:
        return right["column"], _FLIPPED[op], left["value"]
    return None


def _reads_well(error: Any) -> bool:
    """Whether an error message states a rule (a few words with "only", "cannot", "must", ...; not a
    generated default)."""
    if not isinstance(error, str):
        return False
    text = error.strip()
    return (
        3 <= len(text.split()) <= 40
        and bool(_RULE_WORDS.search(text))
        and not _DEFAULT_ERROR.match(text)
        and not re.search(r"[{}\[\]]|==", text)
    )


def _expression_text(expr: Any, entity: str, target: str) -> str:
    """An expression in words: `{column: status}` -> "the order's status" (`target`: an effect's row)."""
    if not isinstance(expr, dict) or len(expr) != 1:
        return _value_text(expr)
    ((form, arg),) = expr.items()
    if form == "value":
        return _value_text(arg)
    if form == "column":
        return f"the {entity}'s {_words(arg)}"
    if form == "target":
        return f"the {target}'s {_words(arg)}"
    if form == "result":
        return f"the new {entity}'s {_words(arg)}"
    if form == "arg":
        return f"the requested {_words(arg)}"
    if form == "session":
        return f"the signed-in user's {_words(arg)}"
    if form == "now":
        return "today's date" if arg == "date" else "the current time"
    if form in ("add", "sub", "mul") and isinstance(arg, list) and len(arg) == 2:
        joint = {"add": "plus", "sub": "minus", "mul": "times"}[form]
        return (
            f"{_expression_text(arg[0], entity, target)} {joint} {_expression_text(arg[1], entity, target)}"
        )
    if form == "count" and isinstance(arg, dict):
        counted = _words(str(arg.get("table", "rows")))
        where = [
            f"{_words(c['column'])} {_OP_WORDS.get(c.get('op', 'eq'), c.get('op'))} "
            f"{_expression_text(c.get('value'), entity, target)}"
            for c in arg.get("where", [])
            if isinstance(c, dict) and "column" in c
        ]
        return f"the number of {counted}" + (f" whose {' and '.join(where)}" if where else "")
    return str(expr)


def rule_sentence(rule: dict[str, Any]) -> str:
    """One rule as a sentence for the agent: the error message when it reads well, else built from the rule."""
    tool = rule["tool"]
    if _reads_well(rule.get("error")):
        text = rule["error"].strip().rstrip(".")
        if not text[:2].isupper():  # "Only pending ..." -> "only pending ...", but "VIP ..." stays
            text = text[0].lower() + text[1:]
        return f"{tool}: {text}."
    entity = _entity(rule["table"])
    if "column" in rule:
        subject = f"the {entity}'s {_words(rule['column'])}"
        op, value = rule["op"], rule["value"]
        if rule.get("allowed") is not None and op in ("in", "eq", "ne"):
            return f"{tool}: only while {subject} is {_either([_value_text(v) for v in rule['allowed']])}."
        return f"{tool}: only while {subject} {_OP_WORDS.get(op, op)} {_value_text(value)}."
    ((op, sides),) = rule["check"].items()
    target = _entity(rule["effect"]["table"]) if "effect" in rule else entity
    left, right = (_expression_text(s, entity, target) for s in sides)
    return f"{tool}: only when {left} {_OP_WORDS.get(op, op)} {right}."


def policy_rules(spec: dict[str, Any]) -> dict[str, Any]:
    """The policy of an environment as rules a scorer can check, and its text.

    Args:
        spec (`dict`): A valid environment spec.

    Returns:
        `dict`: `{"text": str, "rules": [rule]}` (see the module docstring for the rule fields);
        `text` is the spec's `policy` when it has one (with a sentence for each rule of a tool it leaves out,
        when it names tools), else one sentence per distinct rule.
    """
    tables = spec["tables"]
    rules: list[dict[str, Any]] = []
    for tool in spec.get("tools", []):
        op = tool["operation"]
        table = op["table"]
        columns = tables[table]["columns"]
        for cond in op.get("preconditions", []):
            column, cop, value = cond["column"], cond.get("op", "eq"), cond["value"]
            error = cond.get("error") or f"precondition failed: {table}.{column} must be {cop} {value!r}"
            rule = {"tool": tool["name"], "kind": "precondition", "table": table, "column": column, "op": cop}
            rule["value"] = value
            allowed = _allowed(cop, value, columns.get(column, {}))
            if allowed is not None:
                rule["allowed"] = allowed
            rule["error"] = error
            rules.append(rule)
        for guard in op.get("guards", []):
            rules.append(_guard_rule(tool["name"], table, guard, columns, None))
        for i, effect in enumerate(op.get("effects", [])):
            for guard in effect.get("guards", []):
                rules.append(
                    _guard_rule(tool["name"], table, guard, {}, {"index": i, "table": effect["table"]})
                )
    policy = spec.get("policy")
    if isinstance(policy, str) and policy.strip():
        text = policy.strip()
        names = [t["name"] for t in spec.get("tools", [])]
        if any(name in text for name in names):  # a line per tool (as `materialize` writes it): every rule's
            missing = [rule_sentence(r) for r in rules if r["tool"] not in text]  # tool gets its own line
            text = "\n".join(dict.fromkeys([text, *missing]))
    else:
        text = "\n".join(dict.fromkeys(rule_sentence(r) for r in rules))
    return {"text": text, "rules": rules}


def _guard_rule(
    tool: str, table: str, guard: dict[str, Any], columns: dict[str, Any], effect: dict[str, Any] | None
) -> dict[str, Any]:
    check = guard["check"]
    rule: dict[str, Any] = {"tool": tool, "kind": "guard", "table": table, "check": check}
    form = _column_form(check) if effect is None else None
    if form is not None and form[0] in columns:
        column, op, value = form
        rule.update(column=column, op=op, value=value)
        allowed = _allowed(op, value, columns[column])
        if allowed is not None:
            rule["allowed"] = allowed
    if effect is not None:
        rule["effect"] = effect
    ((op, _),) = check.items()
    rule["error"] = guard.get("error") or f"check failed: {op} {check[op]!r}"
    return rule


def violating_rows(spec: dict[str, Any], env: Environment, rule: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of the rule's table, in the environment's current state, that the rule refuses.

    A row whose column fails the rule's comparison is refused when a call addresses it (code
    `invalid_state`). Compared the way the runtime compares: preconditions with
    `envscale.env.operations.PRECONDITION_OPS`, guards with `GUARD_TESTS`.

    Args:
        spec (`dict`): The environment spec (the rule's table must be one of it).
        env (`Environment`): An environment of the spec, in the state to search (read, not changed).
        rule (`dict`): A rule of `policy_rules(spec)` with a `column` (a precondition, or a guard
            comparing a column with a literal).

    Returns:
        `list[dict]`: The refused rows, in primary key order (reads every row of every table:
        `Environment.dump`).

    Raises:
        `ValueError`: The rule compares no column with a literal, or names an unknown table or column.
    """
    table, column = rule.get("table"), rule.get("column")
    if column is None:
        raise ValueError(
            f"rule of {rule.get('tool')!r} compares no column with a literal: {rule.get('check')!r}"
        )
    if table not in spec["tables"] or column not in spec["tables"][table]["columns"]:
        raise ValueError(f"rule of {rule.get('tool')!r} names no column {table}.{column} of the spec")
    test = (PRECONDITION_OPS if rule["kind"] == "precondition" else GUARD_TESTS)[rule["op"]]
    value = rule["value"]
    return [row for row in env.dump()[table] if not test(row.get(column), value)]
