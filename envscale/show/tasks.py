"""One task of a `tasks` artifact as text a person reads: `envscale show tasks`.

A task is judged by reading it: is the request something a person would ask, do the gold calls
fulfil it, is the final state what the request means? The text has a header (task id, split,
environment and the artifact version it runs in, kind, difficulty, what it is scored on, the
tools offered), the policy shown to the agent, what the simulated user is told (persona, goal,
first message, the facts they know and those they give only when asked, when they are done),
the gold calls one per line with every argument and where its value comes from, each with its
result cut short, the gold final state as a diff of the initial one (`+` added rows, `-`
removed rows, `~` changed rows with each changed column `before -> after`), and the answer facts.
Every line fits in `WIDTH` columns.

Example:

```python
>>> from envscale.artifacts import open_artifact
>>> from envscale.show.tasks import render_task
>>> row = open_artifact("outputs/quickstart/tasks").load("tasks", "test")[0]
>>> print(render_task(row))
```

From the command line (default: the first task of the split):

```bash
envscale show tasks outputs/quickstart/tasks --split test
envscale show tasks outputs/quickstart/tasks --task shop-0003-1a2b3c4d
```
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import textwrap
from collections.abc import Mapping
from typing import Any

WIDTH = 100
"""Most columns a line of the text takes."""
RESULT_CHARS = 160
"""Most characters of a gold call's result shown."""
VALUE_CHARS = 60
"""Most characters of one value (an argument, a cell of a diff) shown."""
DIFF_ROWS = 5
"""Rows shown per table and change type of the gold diff (the others are counted)."""
INDENT = "  "
_CALL = re.compile(r"^call\[(\d+)\]\.?(.*)$")


def _cut(text: str, chars: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= chars else text[: chars - 1] + "…"


def _value(value: Any, chars: int = VALUE_CHARS) -> str:
    """One value as a reader sees it: strings quoted, the rest as JSON, cut short."""
    text = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return _cut(text, chars)


def _wrap(text: str, indent: str = INDENT, hanging: str | None = None) -> list[str]:
    hanging = indent + "  " if hanging is None else hanging
    lines = textwrap.wrap(
        " ".join(str(text).split()),
        width=WIDTH,
        initial_indent=indent,
        subsequent_indent=hanging,
        break_on_hyphens=False,
        break_long_words=True,
    )
    return lines or [indent.rstrip()]


def _field(label: str, text: Any, width: int = 16) -> list[str]:
    """`label      text`, the text wrapped under itself."""
    head = f"{INDENT}{label:<{width}}"
    return _wrap(str(text), head, " " * len(head))


def _facts(facts: Any) -> str:
    if not facts:
        return "none"
    if isinstance(facts, Mapping):
        return "; ".join(f"{k}: {_value(v)}" for k, v in facts.items())
    return "; ".join(_value(v) for v in facts)


def _json(value: Any) -> Any:
    """A `Json` column's value, decoded if a caller passes the stored text."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


# ----------------------------------------------------------------------------- parts


def provenance(source: str | None, value: Any, facts: Mapping[str, Any]) -> str:
    """Where an argument's value comes from, in words (`the user's order number`, `call 1's result: id`)."""
    if not source:
        return "source not recorded"
    match = _CALL.match(source)
    if match:
        field = match.group(2)
        return f"call {int(match.group(1)) + 1}'s result" + (f": {field}" if field else "")
    if source == "user":
        names = [name for name, fact in facts.items() if fact == value]
        return "the user" + (f" ({names[0]})" if names else "")
    if source == "constant":
        return "the request"
    if source == "schema":
        return "the tool's schema: the one value it allows"
    return source


def _header(row: Mapping[str, Any]) -> list[str]:
    difficulty = _json(row.get("difficulty")) or {}
    scoring = _json(row.get("scoring")) or {}
    needed = {c.get("tool") for c in _json(row.get("gold_calls")) or []} | set(
        scoring.get("forbidden_actions") or []
    )
    scored = [
        name
        for name, on in (("final state", scoring.get("state")), ("answer facts", scoring.get("answer_facts")))
        if on
    ]
    if scoring.get("required_actions"):
        scored.append("the effects of the gold calls of " + ", ".join(scoring["required_actions"]))
    if scoring.get("forbidden_actions"):
        scored.append("forbidden calls " + ", ".join(scoring["forbidden_actions"]))
    level = difficulty.get("level") or "?"
    parts = [
        f"{difficulty.get('chain_length', '?')} call(s)",
        f"{difficulty.get('n_writes', '?')} write(s)",
        f"{difficulty.get('n_distractors', '?')} distractor(s)",
        f"shape {difficulty.get('shape', '?')}",
    ]
    tools = [t if t in needed else f"{t} (distractor)" for t in row.get("tools") or []]
    environment = f"{row.get('environment')} (domain {row.get('domain_id')})"
    lines = [f"task {row.get('task_id')}  [{row.get('split') or '?'} split]", ""]
    lines += _field("environment", environment)
    if row.get("environment_ref"):
        lines += _field("runs in", row["environment_ref"])
    lines += _field("kind", row.get("kind"))
    lines += _field("difficulty", f"{level}: " + ", ".join(parts))
    lines += _field("scored on", "; ".join(scored) or "nothing (a task with no check)")
    lines += _field("tools offered", ", ".join(tools) or "none")
    lines += _field("seed", row.get("seed"))
    return lines


def _policy(row: Mapping[str, Any]) -> list[str]:
    policy = _json(row.get("policy")) or {}
    if isinstance(policy, str):
        policy = {"text": policy}
    lines = ["", "Policy (shown to the agent)"]
    text = policy.get("text")
    if text:
        for paragraph in str(text).splitlines():
            if paragraph.strip():
                lines += _wrap(paragraph)
    else:
        lines.append(f"{INDENT}none")
    rule = policy.get("task_rule")
    if rule:  # the scripted agent's and the judge's, never in the agent's prompt
        what = rule.get("text") if isinstance(rule, Mapping) else None
        lines += ["", "Rule this task checks (for the judge; never shown to the agent)"]
        lines += _wrap(str(what or _value(rule, 200)))
    return lines


def _user(row: Mapping[str, Any]) -> list[str]:
    ins = _json(row.get("instructions")) or {}
    lines = ["", "User (the simulated user's instructions; never shown to the agent)"]
    lines += _field("persona", ins.get("persona") or "-")
    lines += _field("goal", ins.get("goal") or "-")
    lines += _field("first message", f'"{row.get("first_message") or ins.get("first_message") or ""}"')
    requests = _json(row.get("requests")) or []
    for n, request in enumerate(requests[1:], 2):  # a conversation: each next request, once one is done
        start, end = (request.get("calls") or [0, 0])[:2]
        calls = f"gold call {end}" if end - start == 1 else f"gold calls {start + 1}-{end}"
        lines += _field(f"then request {n}", f'"{request.get("message") or ""}" ({calls})')
    lines += _field("knows", _facts(ins.get("known_facts")))
    lines += _field("tells if asked", _facts(ins.get("hidden_facts")))
    lines += _field("done when", ins.get("done_when") or "-")
    return lines


def _calls(row: Mapping[str, Any]) -> list[str]:
    ins = _json(row.get("instructions")) or {}
    facts = {**(ins.get("known_facts") or {}), **(ins.get("hidden_facts") or {})}
    calls = _json(row.get("gold_calls")) or []
    results = _json(row.get("gold_results")) or []
    lines = ["", f"Gold calls ({len(calls)})"]
    if not calls:
        lines.append(f"{INDENT}none: the right outcome is to make no call")
    for i, call in enumerate(calls):
        arguments = call.get("arguments") or {}
        prov = call.get("provenance") or {}
        args = ", ".join(
            f"{name}={_value(value)} [from {provenance(prov.get(name), value, facts)}]"
            for name, value in arguments.items()
        )
        head = f"{INDENT}{i + 1}. "
        lines += _wrap(f"{call.get('tool')}({args})", head, " " * (len(head) + 2))
        if i < len(results):
            result = results[i]
            text = "(no result)" if result is None else _value(result, RESULT_CHARS)
            lines += _wrap(f"-> {text}", " " * len(head), " " * (len(head) + 3))
    return lines


def _row_text(row: Any) -> str:
    if isinstance(row, Mapping):
        return ", ".join(f"{k}={_value(v, 30)}" for k, v in row.items())
    return _value(row)


def _diff(row: Mapping[str, Any]) -> list[str]:
    diff = _json(row.get("gold_diff")) or {}
    lines = ["", "Gold final state (changes from the initial state)"]
    if not diff:
        return [*lines, f"{INDENT}unchanged"]
    for table, change in diff.items():
        added, removed = change.get("added") or [], change.get("removed") or []
        changed = change.get("changed") or []
        lines.append(
            f"{INDENT}{table}: +{len(added)} added, -{len(removed)} removed, ~{len(changed)} changed"
        )
        deep = INDENT * 2
        for sign, rows in (("+", added), ("-", removed)):
            for r in rows[:DIFF_ROWS]:
                lines += _wrap(f"{sign} {_row_text(r)}", deep, deep + "  ")
            if len(rows) > DIFF_ROWS:
                lines.append(f"{deep}{sign} ... {len(rows) - DIFF_ROWS} more")
        for c in changed[:DIFF_ROWS]:
            before, after = c.get("before") or {}, c.get("after") or {}
            columns = [k for k in after if before.get(k) != after.get(k)] + [
                k for k in before if k not in after
            ]
            moves = ", ".join(
                f"{k}: {_value(before.get(k), 30)} -> {_value(after.get(k), 30)}" for k in columns
            )
            lines += _wrap(f"~ {_value(c.get('key'))}: {moves or 'no column differs'}", deep, deep + "  ")
        if len(changed) > DIFF_ROWS:
            lines.append(f"{deep}~ ... {len(changed) - DIFF_ROWS} more")
    return lines


def render_task(row: Mapping[str, Any]) -> str:
    """One row of the `tasks` config as text (Json columns decoded or as stored)."""
    lines = _header(row) + _policy(row) + _user(row) + _calls(row) + _diff(row)
    lines += ["", "Answer facts (the final answer must state them)"]
    lines += [line for fact in row.get("answer_facts") or [] for line in _wrap(f"- {fact}")] or [
        f"{INDENT}none"
    ]
    if row.get("notes"):
        lines += ["", "Notes"] + [line for note in row["notes"] for line in _wrap(f"- {note}")]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- command


def pick(dataset: Any, *, task: str | None = None, domain: int | None = None) -> int | None:
    """The index of the task asked for in one split of the `tasks` config (None: not in this split).

    By `task` (its id) or `domain` (the first task of the domain); by default the first task.
    """
    if task is not None and domain is not None:
        raise ValueError("give --task ID or --domain ID, not both")
    if task is not None:
        ids = list(dataset["task_id"])
        return ids.index(task) if task in ids else None
    if domain is not None:
        domains = list(dataset["domain_id"])
        return domains.index(domain) if domain in domains else None
    return 0 if dataset.num_rows else None


def main(args: argparse.Namespace) -> int:
    """Run `envscale show tasks REF [--task ID | --domain ID] [--split train|test]`."""
    from ..artifacts import open_artifact

    art = open_artifact(args.ref, expect_kind="tasks")
    per_split = art.splits["tasks"]
    if args.split is not None and args.split not in per_split:
        raise ValueError(f"--split must be one of {', '.join(per_split)}, got {args.split!r}")
    # a task id names one task: without --split it is looked for in every split
    order = [args.split] if args.split else ["train", *[s for s in per_split if s != "train"]]
    if not (args.task or args.domain is not None):
        order = order[:1]
    for split in order:
        dataset = art.load("tasks", split)
        index = pick(dataset, task=args.task, domain=args.domain)
        if index is not None:
            if args.task is None:
                what = f"domain {args.domain}'s first task" if args.domain is not None else "the first task"
                print(f"{what} of {dataset.num_rows} in split {split!r} (--task ID for another)\n")
            print(render_task(dataset[index]), end="")
            return 0
    counts = ", ".join(f"{s} {n}" for s, n in per_split.items())
    where = f"split {order[0]!r}" if len(order) == 1 else "any split"
    if args.task is not None:
        ids = [i for s in order for i in art.load("tasks", s)["task_id"]]
        near = difflib.get_close_matches(args.task, ids, n=5, cutoff=0.5) or ids[:5]
        raise ValueError(f"no task {args.task!r} in {where} ({counts}); e.g. {', '.join(near)}")
    if args.domain is not None:
        raise ValueError(f"no task of domain {args.domain} in {where} ({counts})")
    raise ValueError(f"no tasks in split {order[0]!r} ({counts})")
