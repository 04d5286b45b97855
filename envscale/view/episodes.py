"""The Trajectories view's content: an episode as a chat, its checks with what each means (the judge's own words),
the agent's injected noise, and what the task expected beside what the agent did.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ..show.trajectory import render_trajectory
from .data import Catalog, call_arguments, cell, parse_json
from .tasks import gold_calls

# ----------------------------------------------------------------------------------------------- trajectories

CHECK_PREFIX = "check_"


def chat_messages(row: Mapping[str, Any]) -> list[dict]:
    """The episode as chat messages for a chat view: the user and the agent in turn, each tool call and each
    tool result as its own collapsible message titled with the tool (results marked when they are errors)."""
    out: list[dict] = []
    for m in parse_json(row.get("messages")) or []:
        role = m.get("role")
        content = m.get("content") or ""
        if not isinstance(content, str):
            content = json.dumps(content, ensure_ascii=False)
        if role == "system":
            out.append({"role": "assistant", "content": content, "metadata": {"title": "System prompt"}})
        elif role == "user":
            out.append({"role": "user", "content": content})
        elif role == "assistant":
            if content:
                out.append({"role": "assistant", "content": content})
            for call in m.get("tool_calls") or []:
                fn = call.get("function", call)
                args = fn.get("arguments")
                args = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
                out.append(
                    {
                        "role": "assistant",
                        "content": f"```json\n{args}\n```",
                        "metadata": {"title": f"calls {fn.get('name')}"},
                    }
                )
        elif role == "tool":
            parsed = parse_json(content)
            error = isinstance(parsed, dict) and (parsed.get("ok") is False or "error" in parsed)
            out.append(
                {
                    "role": "assistant",
                    "content": f"```json\n{content[:4000]}\n```",
                    "metadata": {
                        "title": f"{'ERROR from' if error else 'result of'} {m.get('name') or 'tool'}"
                    },
                }
            )
    return out


def check_meanings() -> dict[str, str]:
    """What each check of `schemas.CHECKS` holds when, in the judge's own words: the table of
    `envscale.judge.checks`' documentation, one line per check."""
    from ..judge import checks
    from ..schemas import CHECKS

    meanings = {}
    for line in (checks.__doc__ or "").splitlines():
        match = re.match(r"^\|\s*`(\w+)`\s*\|\s*(.+?)\s*\|\s*$", line)
        if match and match.group(1) in CHECKS:
            meanings[match.group(1)] = match.group(2)
    return meanings


def checks_table(row: Mapping[str, Any]) -> tuple[list[list], list[str]]:
    """Each check of a filtered episode: passed, failed (and whether the filter required it: a failed check
    the filter does not require, like the strict `exact`, is no reason to reject) or not scored, with what
    the check holds when (`check_meanings`)."""
    failed = set(row.get("failed_checks") or [])
    meanings = check_meanings()
    lines = []
    for key, value in row.items():
        if not key.startswith(CHECK_PREFIX):
            continue
        name = key[len(CHECK_PREFIX) :]
        if value is None:
            verdict = "not scored"
        elif value:
            verdict = "passed"
        else:
            verdict = "FAILED (rejected for it)" if name in failed else "failed (not required)"
        lines.append([name, verdict, meanings.get(name, "")])
    return lines, ["check", "verdict", "holds when"]


def noise_text(backend: Any) -> str:
    """An agent's configured fault injection (`noise`) in words, "" when it has none."""
    backend = parse_json(backend) or {}
    noise = backend.get("noise") if isinstance(backend, Mapping) else None
    if not noise:
        return ""
    return ", ".join(f"{k} {v:g}" if isinstance(v, (int, float)) else f"{k} {v}" for k, v in noise.items())


def trajectory_head(row: Mapping[str, Any]) -> str:
    """What the episode was and how it ended, as markdown (with the agent's injected noise, if any)."""
    agent, user = parse_json(row.get("agent")) or {}, parse_json(row.get("user")) or {}
    verdict = ""
    if "passed" in row:
        verdict = (
            "**kept**: every check passed"
            if row.get("passed")
            else f"**rejected**: failed {', '.join(row.get('failed_checks') or []) or '?'}"
        )
    noise = noise_text(agent)
    noise_line = (
        f"**agent noise** (faults injected on purpose, not the model's mistakes): {noise}" if noise else ""
    )
    return "\n\n".join(
        line
        for line in [
            f"### {row.get('trajectory_id')}",
            f"task `{row.get('task_id')}` · trial {row.get('trial')} · environment `{row.get('environment')}` · "
            f"kind {row.get('kind')} · split {row.get('split')}",
            " ".join(f"agent {agent.get('kind')} {agent.get('model') or ''}".split())
            + " · "
            + " ".join(f"user {user.get('kind')} {user.get('model') or ''}".split())
            + f" ({row.get('user_style')})",
            noise_line,
            f"status **{row.get('status')}**{' (' + row['failure_cause'] + ')' if row.get('failure_cause') else ''}"
            f" · {row.get('n_calls')} calls, {row.get('n_errors')} errors · {row.get('turns')} turns",
            verdict,
            f"**Final answer**: {row.get('final_answer') or '(none)'}",
        ]
        if line
    )


def episode_calls(row: Mapping[str, Any]) -> tuple[list[list], list[str]]:
    """The episode's calls (its `calls`), one line each: the tool, its arguments, and whether it worked."""
    lines = []
    for i, call in enumerate(parse_json(row.get("calls")) or [], 1):
        if call.get("ok"):
            outcome = "ok"
        else:
            outcome = f"ERROR {call.get('code') or ''}: {call.get('error') or ''}".strip()
        lines.append([i, call.get("tool") or call.get("name"), call_arguments(call), cell(outcome)])
    return lines, ["#", "tool", "arguments", "outcome"]


def expected_calls(task: Mapping[str, Any]) -> tuple[list[list], list[str]]:
    """The task's gold calls beside an episode's: the tool, its arguments and where they come from."""
    values, headers = gold_calls(task)
    return [v[:4] for v in values], headers[:4]


class TaskLookup:
    """A task by its id, in any split of the catalog's first tasks artifact (its light indexes)."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self.name = catalog.first_name("tasks")

    def __bool__(self) -> bool:
        return self.name is not None

    def get(self, task_id: str) -> dict | None:
        if self.name is None:
            return None
        for split in sorted(self.catalog.artifacts[self.name].splits.get("tasks", {})):
            index = self.catalog.index(self.name, "tasks", split)
            position = index.position("task_id", task_id)
            if position is not None:
                return index.row(position)
        return None


def trajectory_text(row: Mapping[str, Any]) -> str:
    return render_trajectory(row)
