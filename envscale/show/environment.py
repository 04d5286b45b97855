"""One environment of an `environments` artifact as text a person reads: `envscale show environment`.

Researchers judge an environment by reading it ("does cancel_order really cancel?"). The text has a
header (name, domain, semantic score, read-only or not, tables written and read), the description,
the policy and the session (the current user), then every table with its columns and its first rows
in the generated initial state, then the tools, reads and writes, each as a signature
(`cancel_order(order_id, reason?)`, optional arguments with `?`) and one plain-English line per
operation saying what it does, with its conditions and, indented, its effects (`then: ...`); last,
the tools left out (dropped by verification, or excluded as computations) with their reasons. Every
line fits in `WIDTH` columns.

Example:

```python
>>> from envscale.show.environment import describe_operation, render_environment
>>> from envscale.env.spec import load_spec
>>> spec = load_spec("tests/fixtures/envs/store.yaml")
>>> tool = next(t for t in spec["tools"] if t["name"] == "cancel_order")
>>> print(describe_operation(tool["operation"], spec))
in the orders row with order_id = order_id: sets status = 'cancelled', cancel_reason = reason,
updated_at = now; only while status is pending or paid (else: "only orders that have not shipped can
be cancelled")
    then: in the products row with product_id = orders.product_id: sets stock = stock +
      orders.quantity
>>> text = render_environment({"spec": spec}, rows=2)  # a dataset row: only `spec` is required
```

From the command line (default: the environment with the most write tools that is not read-only):

```bash
envscale show environment outputs/quickstart/environments --env domain_3_orders --rows 5
```
"""

from __future__ import annotations

import argparse
import json
import re
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from ..env.runtime import Environment
from ..env.spec import READ_OPERATIONS, SpecError
from ..graph.draw import text_columns
from ..schemas import environment_kind

WIDTH = 100
"""Most columns a line of the text takes."""
CELL_COLS = 24
"""Most columns a cell of the initial rows takes; longer values are cut with `…`."""
REASON_CHARS = 300
"""Most characters of a dropped or excluded tool's reason shown."""
INDENT = "    "
_GLUE = "\x00"  # a space that `_wrap` never breaks at: keeps `reason = reason` on one line

_CMP = {"eq": "=", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_GENERATED = {"id": "a new id", "uuid": "a new uuid", "now": "now", "today": "today"}
_ARITHMETIC = {"add": "+", "sub": "-", "mul": "*"}
_DATE_COLUMN = re.compile(r"(^|_)(at|on|date|time|datetime|timestamp)$|^(date|time)(_|$)")


# ----------------------------------------------------------------------------- small text helpers


def _cut(text: str, cols: int) -> str:
    """`text` cut to `cols` columns, with `…` as the last one when anything was cut."""
    if text_columns(text) <= cols:
        return text
    out, used = "", 0
    for ch in text:
        w = text_columns(ch)
        if used + w > cols - 1:
            break
        out, used = out + ch, used + w
    return out + "…"


def _pad(text: str, cols: int) -> str:
    return text + " " * max(0, cols - text_columns(text))


def _wrap(text: str, indent: str = "", hanging: str | None = None) -> list[str]:
    """`text` wrapped to `WIDTH` columns, first line at `indent`, the others at `hanging`."""
    hanging = indent if hanging is None else hanging
    lines = textwrap.wrap(
        " ".join(str(text).split()),
        width=WIDTH,
        initial_indent=indent,
        subsequent_indent=hanging,
        break_on_hyphens=False,
    )
    return [line.replace(_GLUE, " ") for line in lines] or [indent.rstrip()]


def _a(word: str) -> str:
    return f"an {word}" if word[:1].lower() in "aeiou" else f"a {word}"


def _either(items: Sequence[str], word: str = "or") -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {word} {items[-1]}"


def _literal(value: Any) -> str:
    """A JSON literal as a reader sees it in an assignment: strings quoted, lists in brackets."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _plain(value: Any) -> str:
    """A literal in prose ("status is pending or paid"): strings bare."""
    if isinstance(value, list):
        return _either([_plain(v) for v in value])
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _cell(value: Any) -> str:
    """One value of a row as a table cell: one line, cut to `CELL_COLS`."""
    if value is None:
        text = "null"
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = " ".join(value.split()) if value.strip() else repr(value)
    elif isinstance(value, int | float):
        text = repr(value)
    else:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return _cut(text, CELL_COLS)


# ----------------------------------------------------------------------------- operations in words


class _Context:
    """Where an expression is read: the main operation's table, and the effect's table when in one."""

    def __init__(self, spec: Mapping[str, Any], op: Mapping[str, Any], effect_table: str | None = None):
        self.spec = spec
        self.main = op.get("table", "")
        self.main_type = op.get("type", "")
        self.effect_table = effect_table
        self.main_columns = set(spec.get("tables", {}).get(self.main, {}).get("columns", {}))


def _expr(e: Any, ctx: _Context, *, nested: bool = False) -> str:
    """An expression (or a bare argument name) as a short phrase: `on_hand + delta`, `now`."""
    if isinstance(e, str):
        return e
    if not isinstance(e, Mapping) or len(e) != 1:
        return _literal(e)
    ((form, arg),) = e.items()
    if form == "arg":
        return str(arg)
    if form == "value":
        return _literal(arg)
    if form == "column":
        if ctx.effect_table is not None and arg in ctx.main_columns:  # the main row, seen from an effect
            return f"{ctx.main}.{arg}" if ctx.effect_table != ctx.main else f"the main {ctx.main} row's {arg}"
        return str(arg)
    if form == "target":
        return str(arg)
    if form == "result":
        # an insert has no row before the write, so `orders.X` is the new row's without ambiguity
        return f"{ctx.main}.{arg}" + ("" if ctx.main_type == "insert" else " after the write")
    if form == "now":
        return "today" if arg == "date" else "now"
    if form == "session":
        return f"the session's {arg}"
    if form in _ARITHMETIC and isinstance(arg, list) and len(arg) == 2:
        text = f" {_ARITHMETIC[form]} ".join(_expr(a, ctx, nested=True) for a in arg)
        return f"({text})" if nested else text
    if form == "count" and isinstance(arg, Mapping):
        where = _conditions(arg.get("where", []), ctx)
        return f"the number of rows of {arg.get('table')}" + (f" with {where}" if where else "")
    return _literal(e)


def _condition(column: str, op: str, value: Any, ctx: _Context) -> str:
    """`status = status`, `name contains search`, `status is pending or paid` (a literal list)."""
    if op == "in" and isinstance(value, Mapping) and isinstance(value.get("value"), list):
        return f"{column} is {_plain(value['value'])}"
    value = _expr(value, ctx)
    if op == "in":
        return f"{column} is one of {value}"
    if op == "contains":
        return f"{column} contains {value}"
    return f"{column}{_GLUE}{_CMP.get(op, op)}{_GLUE}{value}"


def _conditions(where: Sequence[Mapping[str, Any]], ctx: _Context) -> str:
    return _either(
        [_condition(w.get("column", "?"), w.get("op", "eq"), w.get("value"), ctx) for w in where],
        "and",
    )


def _check(check: Mapping[str, Any], ctx: _Context) -> str:
    """A guard's check as a statement that must hold: `the balance >= total`, `no orders row with ...`."""
    if not isinstance(check, Mapping) or len(check) != 1:
        return _literal(check)
    ((op, pair),) = check.items()
    if not isinstance(pair, list) or len(pair) != 2:
        return _literal(check)
    left, right = pair
    if op == "in" and isinstance(right, Mapping) and "value" in right and isinstance(right["value"], list):
        return f"{_expr(left, ctx)} is {_plain(right['value'])}"
    count = left.get("count") if isinstance(left, Mapping) else None
    number = right.get("value") if isinstance(right, Mapping) else None
    if isinstance(count, Mapping) and isinstance(number, int | float) and not isinstance(number, bool):
        table, where = count.get("table"), _conditions(count.get("where", []), ctx)
        with_where = f" with {where}" if where else ""
        if op == "eq" and number == 0:
            return f"no row of {table} has {where}" if where else f"{table} is empty"
        if op in ("lt", "le"):
            return f"{'fewer than' if op == 'lt' else 'at most'} {_plain(number)} rows of {table}{with_where}"
        if (op, number) in (("gt", 0), ("ge", 1)):
            return f"some row of {table}{' has ' + where if where else ' exists'}"
    return f"{_expr(left, ctx)} {_CMP.get(op, op)} {_expr(right, ctx)}"


def _precondition(cond: Mapping[str, Any]) -> str:
    column, op, value = cond.get("column", "?"), cond.get("op", "eq"), cond.get("value")
    if op in ("in", "eq"):
        return f"{column} is {_plain(value)}"
    if op == "ne":
        return f"{column} is not {_plain(value)}"
    return f"{column} {_CMP.get(op, op)} {_literal(value)}"


def _rules(op: Mapping[str, Any], ctx: _Context) -> str:
    """`; only while status is pending (else: "...")`: the preconditions, then the guards."""
    out = []
    for cond in op.get("preconditions", []):
        error = f' (else: "{cond["error"]}")' if cond.get("error") else ""
        out.append(f"; only while {_precondition(cond)}{error}")
    for guard in op.get("guards", []):
        error = f' (else: "{guard["error"]}")' if guard.get("error") else ""
        out.append(f"; only if {_check(guard.get('check', {}), ctx)}{error}")
    return "".join(out)


def _row(table: str, key: Mapping[str, Any], spec: Mapping[str, Any], ctx: _Context) -> str:
    """`the orders row with order_id = order_id`, or `the session's customers row`."""
    session = spec.get("session") or {}
    pk = spec.get("tables", {}).get(table, {}).get("primary_key")
    if session.get("table") == table and list(key) == [pk] and key[pk] == {"session": pk}:
        return f"the session's {table} row"
    pairs = _either([f"{c}{_GLUE}={_GLUE}{_expr(v, ctx)}" for c, v in key.items()], "and")
    return f"the {table} row with {pairs}"


def _assignments(op: Mapping[str, Any], spec: Mapping[str, Any], ctx: _Context) -> str:
    """`customer_id = customer_id, status = 'pending', created_at = now`, in the table's column order."""
    table = op.get("table", "")
    values = {**op.get("values", {}), **op.get("set", {})}
    defaults = op.get("defaults", {})
    parts: dict[str, str] = {}
    for column, kind in op.get("generate", {}).items():
        parts[column] = _GENERATED.get(kind, str(kind))
    for column, value in op.get("fixed", {}).items():
        parts[column] = _literal(value)
    for column, binding in values.items():
        text = _expr(binding, ctx)
        parts[column] = f"{text} (default {_literal(defaults[column])})" if column in defaults else text
    for column, value in defaults.items():
        parts.setdefault(column, _literal(value))
    order = {c: i for i, c in enumerate(spec.get("tables", {}).get(table, {}).get("columns", {}))}
    fixed = set(op.get("fixed", {}))  # an update's fixed values come first: they say what it does
    ranked = sorted(parts, key=lambda c: (c not in fixed, order.get(c, len(order))))
    return ", ".join(f"{c}{_GLUE}={_GLUE}{parts[c]}" for c in ranked)


def _order(op: Mapping[str, Any], spec: Mapping[str, Any]) -> str:
    order = op.get("order_by")
    if not order:
        return ""
    column, desc = order.get("column", "?"), bool(order.get("desc"))
    cspec = spec.get("tables", {}).get(op.get("table"), {}).get("columns", {}).get(column, {})
    if _DATE_COLUMN.search(column) or cspec.get("generator") in ("date", "datetime"):
        return "newest first" if desc else "oldest first"
    if cspec.get("type") in ("integer", "number"):
        return f"{'highest' if desc else 'lowest'} {column} first"
    return f"by {column}" + (", descending" if desc else "")


def _write(op: Mapping[str, Any], spec: Mapping[str, Any], ctx: _Context) -> str:
    """One write (the main operation or an effect) in words, with its conditions."""
    otype, table = op.get("type"), op.get("table", "?")
    if otype == "insert":
        text = f"adds {_a(table)} row: {_assignments(op, spec, ctx)}"
    elif otype == "update" and "where" in op:  # an effect on every matching row (1.1)
        text = (
            f"in every {table} row with {_conditions(op['where'], ctx)}: sets {_assignments(op, spec, ctx)}"
        )
    elif otype == "update":
        text = f"in {_row(table, op.get('key', {}), spec, ctx)}: sets {_assignments(op, spec, ctx)}"
    elif otype == "delete" and "where" in op:
        text = f"removes every {table} row with {_conditions(op['where'], ctx)}"
    elif otype == "delete":
        text = f"removes {_row(table, op.get('key', {}), spec, ctx)}"
    else:
        text = f"{otype} on {table}"
    return text + _rules(op, ctx)


def describe_operation(op: Mapping[str, Any], spec: Mapping[str, Any], *, indent: str = "") -> str:
    """What an operation does, in plain English, wrapped to `WIDTH` columns.

    One line (wrapped) for the operation and its conditions, then one indented `then: ...` line per
    effect.

    Args:
        op (`dict`): A tool's `operation`.
        spec (`dict`): The environment spec it belongs to (tables, session).
        indent (`str`, *optional*): Put before every line (effects get four more spaces).

    Returns:
        `str`: E.g. `reads the orders row with order_id = order_id`.
    """
    ctx = _Context(spec, op)
    otype, table = op.get("type"), op.get("table", "?")
    if otype == "get":
        text = f"reads {_row(table, op.get('key', {}), spec, ctx)}" + _rules(op, ctx)
    elif otype in ("list", "count"):
        filters = [
            _condition(
                f.get("column", "?"), f.get("op", "eq"), f["arg"] if "arg" in f else f.get("value"), ctx
            )
            for f in op.get("filters", [])
        ]
        verb = "lists" if otype == "list" else "counts"
        text = f"{verb} {table} where {', '.join(filters)}" if filters else f"{verb} all {table}"
        extra = [
            x for x in (_order(op, spec), f"at most {op['limit_arg']}" if op.get("limit_arg") else "") if x
        ]
        text += f" ({', '.join(extra)})" if extra else ""
    else:
        text = _write(op, spec, ctx)
    lines = _wrap(text, indent)
    for effect in op.get("effects", []):
        effect_text = _write(effect, spec, _Context(spec, op, effect.get("table")))
        lines += _wrap(f"then: {effect_text}", indent + INDENT, indent + INDENT + "  ")
    return "\n".join(lines)


def signature(tool: Mapping[str, Any]) -> str:
    """`cancel_order(order_id, reason?)`: required arguments first, optional ones with `?`."""
    params = tool.get("parameters") or {}
    props = [p for p, s in (params.get("properties") or {}).items() if isinstance(s, Mapping)]
    required = set(params.get("required") or [])
    names = [p for p in props if p in required] + [f"{p}?" for p in props if p not in required]
    return f"{tool.get('name', '?')}({', '.join(names)})"


# ----------------------------------------------------------------------------- tables


def _column_line(name: str, cspec: Mapping[str, Any], tspec: Mapping[str, Any]) -> tuple[str, str, str]:
    marks = []
    if name == tspec.get("primary_key"):
        marks.append("key")
    if cspec.get("unique"):
        marks.append("unique")
    if cspec.get("nullable") is False and name != tspec.get("primary_key"):
        marks.append("not null")
    if cspec.get("references"):
        marks.append(f"-> {cspec['references']}")
    if cspec.get("enum"):
        marks.append("one of " + " | ".join(_plain(v) for v in cspec["enum"]))
    return name, str(cspec.get("type", "?")), ", ".join(marks)


def _grid(columns: list[str], rows: list[Mapping[str, Any]], key: str | None) -> list[str]:
    """Rows as an aligned table; columns that do not fit in `WIDTH` go to further blocks, each led by the key."""
    cells = {c: [_cell(r.get(c)) for r in rows] for c in columns}
    widths = {c: max([text_columns(c), *(text_columns(x) for x in cells[c])]) for c in columns}
    room = WIDTH - len(INDENT)
    blocks: list[list[str]] = []
    for c in columns:
        block = blocks[-1] if blocks else None
        if block is not None and sum(widths[x] + 2 for x in block) + widths[c] <= room:
            block.append(c)
        else:
            blocks.append([key, c] if blocks and key in widths and c != key else [c])
    lines: list[str] = []
    for i, block in enumerate(blocks):
        if i:
            lines.append("")
        for values in ([*block], *([cells[c][j] for c in block] for j in range(len(rows)))):
            line = "  ".join(_pad(v, widths[c]) for v, c in zip(values, block, strict=True))
            lines.append(INDENT + _cut(line.rstrip(), room))
    return lines


def _tables(spec: Mapping[str, Any], state: Mapping[str, list] | None, n_rows: int) -> list[str]:
    lines: list[str] = []
    for table, tspec in spec.get("tables", {}).items():
        columns = tspec.get("columns", {})
        n = len(state.get(table, [])) if state is not None else 0
        count = f"{n} row{'' if n == 1 else 's'}, " if state is not None else ""
        lines += ["", f"{table}  ({count}primary key {tspec.get('primary_key')})"]
        if tspec.get("description"):
            lines += _wrap(tspec["description"], INDENT)
        described = [_column_line(c, s, tspec) for c, s in columns.items()]
        name_w = max(text_columns(c) for c, _, _ in described)
        type_w = max(len(t) for _, t, _ in described)
        for name, ctype, marks in described:  # marks (a long enum) wrap under themselves
            head = f"{INDENT}{_pad(name, name_w)}  {ctype.ljust(type_w)}  "
            room = max(20, WIDTH - text_columns(head))
            wrapped = textwrap.wrap(marks, width=room, break_on_hyphens=False) or [""]
            lines.append(_cut(f"{head}{wrapped[0]}".rstrip(), WIDTH))
            lines += [_cut(" " * text_columns(head) + more, WIDTH) for more in wrapped[1:]]
        for group in tspec.get("unique", []):
            lines.append(f"{INDENT}unique together: {' + '.join(group)}")
        if state is None or n_rows <= 0:
            continue
        shown = state.get(table, [])[:n_rows]
        if not shown:
            lines.append(f"{INDENT}(no rows in the initial state)")
            continue
        lines += ["", f"{INDENT}first {len(shown)} of {len(state.get(table, []))} rows:"]
        lines += _grid(list(columns), shown, tspec.get("primary_key"))
    return lines


# ----------------------------------------------------------------------------- the whole text


def _heading(title: str) -> list[str]:
    return ["", title, "=" * min(WIDTH, text_columns(title))]


def _left_out(title: str, entries: Any) -> list[str]:
    if not entries:
        return []
    lines = [*_heading(f"{title} ({len(entries)})"), ""]
    for entry in entries:
        tool = entry.get("tool", "?") if isinstance(entry, Mapping) else str(entry)
        reason = str(entry.get("reason", "")) if isinstance(entry, Mapping) else ""
        reason = reason if len(reason) <= REASON_CHARS else reason[: REASON_CHARS - 1] + "…"
        lines += _wrap(f"{tool}: {reason}", "", INDENT)
    return lines


def _tool_head(tool: Mapping[str, Any]) -> list[str]:
    """The signature (wrapped after commas when long) and the first line of the description, cut."""
    sig = signature(tool)
    summary = " ".join(str(tool.get("description") or "").strip().split("\n")[0].split())
    if text_columns(sig) + 20 <= WIDTH:
        return [_cut(f"{sig}  — {summary}" if summary else sig, WIDTH)]
    name_cols = text_columns(str(tool.get("name", "")))
    hanging = " " * (name_cols + 1 if name_cols < WIDTH // 3 else len(INDENT))
    lines = textwrap.wrap(sig, width=WIDTH, subsequent_indent=hanging, break_on_hyphens=False)
    return lines + ([_cut(f"{INDENT}— {summary}", WIDTH)] if summary else [])


def render_environment(row: Mapping[str, Any], *, rows: int = 3) -> str:
    """One environment (a row of an `environments` artifact) as text a person reads.

    Args:
        row (`dict`): The dataset row; only `spec` (a dict or its JSON text) is required, the other
            columns (`domain_id`, `semantic_score`, `read_only`, `written_and_read`, `policy`,
            `dropped_tools`, `excluded_tools`) are shown when present.
        rows (`int`, *optional*, defaults to 3): Rows of each table's initial state shown.

    Returns:
        `str`: The text, lines of at most `WIDTH` columns (a word longer than that is broken).
    """
    spec = row["spec"]
    if isinstance(spec, str):
        spec = json.loads(spec)
    tools = spec.get("tools", [])
    reads = [t for t in tools if t.get("operation", {}).get("type") in READ_OPERATIONS]
    writes = [t for t in tools if t.get("operation", {}).get("type") not in READ_OPERATIONS]
    state, session, problem = None, None, None
    try:
        with Environment.from_row({"spec": spec}) as env:
            env.reset()
            state, session = env.dump(), env.session()
    except (SpecError, ValueError) as exc:  # shown in place of the rows: the spec is still worth reading
        problem = str(exc)

    name = spec.get("name", row.get("name", "?"))
    domain = row.get("domain_name")
    where = (
        f" (domain {row['domain_id']}" + (f": {domain})" if domain else ")")
        if row.get("domain_id") is not None
        else ""
    )
    lines = _wrap(f"environment {name}{where}")
    facts = []
    if row.get("semantic_score") is not None:
        facts.append(f"semantic score {row['semantic_score']:.2f}")
    if environment_kind({"read_only": not writes, **row}) == "function_set":
        facts.append("function set (no write tool: no tasks are posed)")
    else:
        facts.append("world")
    facts.append(f"{len(reads)} read and {len(writes)} write tools")
    if state is not None:
        facts.append(f"{len(state)} tables, {sum(len(r) for r in state.values())} initial rows")
    lines += _wrap(" · ".join(facts))
    if row.get("written_and_read") is not None:
        both = ", ".join(row["written_and_read"]) or "none"
        lines += _wrap(f"tables written and read (by different tools): {both}", "", INDENT)
    if spec.get("description"):
        lines += ["", *_wrap(spec["description"])]
    policy = row.get("policy") or spec.get("policy")
    lines += ["", "policy:"]
    if policy:
        for paragraph in str(policy).strip().splitlines():
            lines += _wrap(paragraph, INDENT) if paragraph.strip() else [""]
    else:
        lines.append(f"{INDENT}(none)")
    if spec.get("session"):
        s = spec["session"]
        pk = spec.get("tables", {}).get(s.get("table"), {}).get("primary_key")
        if "key" in s:
            which = f"the {s.get('table')} row with {pk} = {_literal(s['key'])}"
        elif session is not None:
            which = f"the {s.get('table')} row with {pk} = {_literal(session.get(pk))} (the first by {pk})"
        else:
            which = f"the first {s.get('table')} row by {pk} (none in the initial state)"
        lines += ["", *_wrap(f"session (the current user): {which}", "", INDENT)]

    lines += _heading(f"TABLES ({len(spec.get('tables', {}))})")
    if problem is not None:
        lines += _wrap(f"the initial state cannot be built: {problem}", "", INDENT)
    lines += _tables(spec, state, rows)

    for title, group in (("READ TOOLS", reads), ("WRITE TOOLS", writes)):
        if not group:
            continue
        lines += _heading(f"{title} ({len(group)})")
        for tool in group:
            lines += ["", *_tool_head(tool)]
            lines += describe_operation(tool.get("operation", {}), spec, indent=INDENT).split("\n")
            aliases = (
                (tool.get("metadata") or {}).get("aliases")
                if isinstance(tool.get("metadata"), Mapping)
                else None
            )
            if aliases:  # other names of this one act, folded into it (envscale.materialize.aliases)
                lines += _wrap(
                    f"aliases (the same act under other names): {', '.join(map(str, aliases))}",
                    INDENT,
                    INDENT,
                )
    lines += _left_out("DROPPED TOOLS: failed verification", row.get("dropped_tools"))
    lines += _left_out("EXCLUDED TOOLS: computations, not part of the state", row.get("excluded_tools"))
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- CLI


def pick(dataset: Any, *, env: str | None = None, domain: int | None = None) -> tuple[int, str]:
    """The index of the environment asked for in an `environments` dataset, and why it was picked.

    By `env` (its name) or `domain` (its domain id); by default the one with the most write tools
    that is not read-only (the first of those tied). Raises `ValueError` naming a few environments
    when none matches.
    """
    names = list(dataset["name"])
    if not names:
        raise ValueError("the artifact holds no environments")
    if env is not None and domain is not None:
        raise ValueError("give --env NAME or --domain ID, not both")
    if env is not None:
        if env not in names:
            near = [n for n in names if env.lower() in n.lower()]
            some = (
                f"names with {env!r} in them: {', '.join(near[:8])}"
                if near
                else f"e.g. {', '.join(names[:8])}"
            )
            raise ValueError(f"no environment {env!r} among {len(names)}; {some}")
        return names.index(env), f"environment {env!r}"
    if domain is not None:
        ids = list(dataset["domain_id"])
        if domain not in ids:
            raise ValueError(
                f"no environment of domain {domain}; domains: {', '.join(map(str, sorted(ids)[:20]))}"
            )
        return ids.index(domain), f"the environment of domain {domain}"
    writes, read_only = list(dataset["n_write"]), list(dataset["read_only"])
    best = max(range(len(names)), key=lambda i: (not read_only[i], writes[i], -i))
    why = (
        f"all {len(names)} environments are read-only"
        if read_only[best]
        else f"the most write tools ({writes[best]}) of {len(names)} environments"
    )
    return best, f"picked {names[best]}: {why} (--env NAME or --domain ID for another)"


def main(args: argparse.Namespace) -> int:
    """Run `envscale show environment REF [--env NAME | --domain ID] [--rows N]`."""
    from ..artifacts import open_artifact

    rows = 3 if args.rows is None else args.rows
    if rows < 0:
        raise ValueError(f"--rows must be 0 or more, got {rows}")
    dataset = open_artifact(args.ref, expect_kind="environments").load("environments")
    index, why = pick(dataset, env=args.env, domain=args.domain)
    if args.env is None and args.domain is None:
        print("\n".join(_wrap(why, "", INDENT)) + "\n")
    print(render_environment(dataset[index], rows=rows), end="")
    return 0
