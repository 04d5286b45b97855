"""The Tasks view's content: a task as its user and its judge see it (instruction, facts, scoring, gold calls with
where each argument comes from, the gold state diff).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..show.tasks import provenance, render_task
from .data import call_arguments, cell, parse_json

# ----------------------------------------------------------------------------------------------- tasks


def difficulty_text(value: Any) -> str:
    """A task's `difficulty` in words: `medium: 2 call(s), 0 write(s), 2 distractor(s), shape linear`."""
    difficulty = parse_json(value)
    if not isinstance(difficulty, Mapping):
        return str(difficulty or "?")
    parts = [
        f"{difficulty['chain_length']} call(s)" if "chain_length" in difficulty else "",
        f"{difficulty['n_writes']} write(s)" if "n_writes" in difficulty else "",
        f"{difficulty['n_distractors']} distractor(s)" if "n_distractors" in difficulty else "",
        f"shape {difficulty['shape']}" if difficulty.get("shape") else "",
    ]
    detail = ", ".join(p for p in parts if p)
    level = difficulty.get("level") or "?"
    return f"{level}: {detail}" if detail else str(level)


def policy_text(value: Any) -> str:
    """A task's (or environment's) `policy` as text: its text and the rule the task sets up; "" when empty."""
    policy = parse_json(value)
    if not policy:
        return ""
    if isinstance(policy, str):
        return policy.strip()
    if not isinstance(policy, Mapping):
        return str(policy)
    text = str(policy.get("text") or "").strip()
    parts = [f"{text} (shown to the agent)" if text else ""]
    rule = policy.get("task_rule")
    if rule:
        what = rule.get("text") if isinstance(rule, Mapping) else None
        rule_text = what or json.dumps(rule, ensure_ascii=False, default=str)
        parts.append(f"Rule this task checks (for the judge; never shown to the agent): {rule_text}")
    return "\n\n".join(p for p in parts if p)


def scored_on(value: Any) -> str:
    """What a task's `scoring` checks, in words."""
    scoring = parse_json(value) or {}
    if not isinstance(scoring, Mapping):
        return str(scoring)
    parts = [
        name
        for name, on in (
            ("the final state", scoring.get("state")),
            ("the answer facts", scoring.get("answer_facts")),
        )
        if on
    ]
    if scoring.get("required_actions"):
        parts.append(
            "the effects of the gold calls of " + ", ".join(f"`{a}`" for a in scoring["required_actions"])
        )
    if scoring.get("forbidden_actions"):
        parts.append("no call of " + ", ".join(f"`{a}`" for a in scoring["forbidden_actions"]))
    if scoring.get("refusal"):
        parts.append("a refusal that names the rule")
    return "; ".join(parts) or "nothing"


def _facts(facts: Any) -> str:
    if isinstance(facts, Mapping):
        return "; ".join(f"{a}: `{b}`" for a, b in facts.items())
    return "; ".join(f"`{b}`" for b in facts or [])


def task_markdown(row: Mapping[str, Any]) -> str:
    """A task as its user and its judge see it: the instruction and facts (one per line), the tools offered to
    the agent, the requests, what it is scored on, the policy, the notes."""
    facts = parse_json(row.get("answer_facts")) or {}
    scoring = parse_json(row.get("scoring")) or {}
    gold_tools = {c.get("tool") or c.get("name") for c in parse_json(row.get("gold_calls")) or []}
    gold_tools |= set(scoring.get("forbidden_actions") or []) if isinstance(scoring, Mapping) else set()
    offered = parse_json(row.get("tools")) or []
    tools = [
        f"`{t}`" if t in gold_tools else f"`{t}` (distractor)"
        for t in (x if isinstance(x, str) else (x.get("function") or x).get("name") for x in offered)
    ]
    lines = [
        f"### {row.get('task_id')}",
        f"environment `{row.get('environment')}` · kind **{row.get('kind')}** · split {row.get('split')}"
        f"{' (held-out environment)' if row.get('held_out') else ''}",
        "",
        f"- **Difficulty**: {difficulty_text(row.get('difficulty'))}",
        f"- **Tools offered to the agent** ({len(tools)}): {', '.join(tools) or 'none'}",
        f"- **Scored on**: {scored_on(row.get('scoring'))}",
        "",
        f"**The user says first**: {row.get('first_message') or ''}",
        "",
    ]
    instructions = parse_json(row.get("instructions")) or {}
    if isinstance(instructions, dict):
        labels = {"persona": "Persona", "goal": "Goal", "done_when": "Done when"}
        lines += [f"- **{label}**: {instructions[k]}" for k, label in labels.items() if instructions.get(k)]
        for k, label in (
            ("known_facts", "Facts the user knows"),
            ("hidden_facts", "Facts the user gives only when asked"),
        ):
            if instructions.get(k):
                lines += [f"- **{label}**: {_facts(instructions[k])}"]
    elif instructions:
        lines += [f"**The user's instructions**: {instructions}"]
    requests = parse_json(row.get("requests")) or []
    if requests:
        lines += ["", "**Requests**:", ""]
        lines += [
            f"{i}. {r.get('message') if isinstance(r, Mapping) and r.get('message') else cell(r)}"
            for i, r in enumerate(requests, 1)
        ]
    if facts:
        lines += ["", "**Answer facts** (what a right final answer states):", ""]
        lines += [
            f"- {k}: `{v}`" if isinstance(facts, dict) else f"- `{v}`"
            for k, v in (facts.items() if isinstance(facts, dict) else enumerate(facts))
        ]
    policy = policy_text(row.get("policy"))
    if policy:
        lines += ["", f"**Policy**: {policy}"]
    notes = parse_json(row.get("notes")) or []
    if notes:
        lines += ["", "**Notes**:", ""] + [f"- {n}" for n in ([notes] if isinstance(notes, str) else notes)]
    return "\n".join(lines)


def gold_calls(row: Mapping[str, Any]) -> tuple[list[list], list[str]]:
    """The gold calls, one line each: the tool, its arguments, where each argument comes from (`provenance`:
    the user, the request, or an earlier call's result) and what the call returned."""
    instructions = parse_json(row.get("instructions")) or {}
    facts = {}
    if isinstance(instructions, Mapping):
        facts = {**(instructions.get("known_facts") or {}), **(instructions.get("hidden_facts") or {})}
    calls = parse_json(row.get("gold_calls")) or []
    results = parse_json(row.get("gold_results")) or []
    lines = []
    for i, call in enumerate(calls):
        result = results[i] if i < len(results) else None
        prov = call.get("provenance") or {}
        arguments = call.get("arguments") or {}
        sources = "; ".join(
            f"{name} from {provenance(prov.get(name), value, facts)}" for name, value in arguments.items()
        )
        lines.append(
            [
                i + 1,
                call.get("name") or call.get("tool"),
                call_arguments(call),
                sources or "(no arguments)",
                cell(result),
            ]
        )
    return lines, ["#", "tool", "arguments", "where each argument comes from", "result"]


def task_text(row: Mapping[str, Any]) -> str:
    return render_task(row)
