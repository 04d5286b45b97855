"""`envscale show trajectory REF --id ID`: one episode as a person reads it.

Works on a `trajectories` artifact and on a `filtered` one (then the checks are shown too, and
`--config rejected` reads the trajectories that failed). The conversation is printed turn by turn:
what the user said, what the agent said, each tool call with its arguments and what came back
(errors marked), then how the episode ended.
"""

from __future__ import annotations

import argparse
import difflib
import json
import textwrap
from collections.abc import Mapping
from typing import Any

WIDTH = 100
RESULT_CHARS = 300
MESSAGE_CHARS = 4_000
"""Characters of one message shown; the rest is counted (a 10 MB message must not take minutes to wrap)."""


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) and value[:1] in "[{" else value


def _cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


def _block(label: str, text: str, indent: str = "  ") -> list[str]:
    text = text or ""
    if len(text) > MESSAGE_CHARS:
        text = f"{text[:MESSAGE_CHARS]} ... ({len(text) - MESSAGE_CHARS:,} more characters)"
    lines = []
    for i, para in enumerate((text or "").splitlines() or [""]):
        head = f"{indent}{label:<7}" if i == 0 else indent + " " * 7
        lines += textwrap.wrap(para, WIDTH, initial_indent=head, subsequent_indent=indent + " " * 7) or [head]
    return lines


def render_trajectory(row: Mapping[str, Any]) -> str:
    """One row of a `trajectories` (or `filtered`) config as text."""
    agent, user = row.get("agent") or {}, row.get("user") or {}
    lines = [
        f"Trajectory {row.get('trajectory_id')}  (task {row.get('task_id')}, trial {row.get('trial')}, seed {row.get('seed')})",
        f"  environment {row.get('environment')}  kind {row.get('kind')}  split {row.get('split')}",
        f"  agent: {agent.get('kind')} {agent.get('model') or ''}".rstrip()
        + f"   user: {user.get('kind')} {user.get('model') or ''} ({row.get('user_style')})".rstrip(),
        "",
    ]
    for m in _json(row.get("messages")) or []:
        role = m.get("role")
        if role == "system":
            lines += _block("system", _cut(m.get("content") or "", 400))
        elif role == "user":
            lines += _block("USER", m.get("content") or "")
        elif role == "assistant":
            if m.get("content"):
                lines += _block("AGENT", m["content"])
            for call in m.get("tool_calls") or []:
                fn = call.get("function") or {}
                args = fn.get("arguments")
                text = json.dumps(args, ensure_ascii=False) if isinstance(args, dict) else str(args)
                lines += _block("call", f"{fn.get('name')}({_cut(text, 400)})")
        elif role == "tool":
            content = m.get("content") or ""
            value = _json(content)
            failed = isinstance(value, dict) and set(value) == {"error", "code"}
            lines += _block(
                "ERROR" if failed else "->",
                _cut(value["error"] if failed else content, RESULT_CHARS),
                "      ",
            )
    lines += [
        "",
        f"Ended: {row.get('status')}"
        + (f" ({row.get('failure_cause')}: {row.get('error')})" if row.get("error") else ""),
    ]
    lines.append(
        f"  {row.get('turns')} user turns, {row.get('n_calls')} tool calls ({row.get('n_errors')} refused), {row.get('wall_s')} s"
    )
    checks = {k[len("check_") :]: v for k, v in row.items() if k.startswith("check_")}
    if checks:
        shown = ", ".join(f"{k} {'-' if v is None else 'yes' if v else 'NO'}" for k, v in checks.items())
        lines.append(f"  checks: {shown}")
        lines.append(
            f"  passed: {row.get('passed')}"
            + (f" (failed: {', '.join(row.get('failed_checks') or [])})" if not row.get("passed") else "")
        )
    return "\n".join(lines) + "\n"


def main(args: argparse.Namespace) -> int:
    """Run `envscale show trajectory REF [--id ID] [--config rejected]`."""
    from ..artifacts import open_artifact

    art = open_artifact(args.ref)
    if art.kind.name not in ("trajectories", "filtered"):
        raise ValueError(
            f"{args.ref} is a {art.kind.name} artifact; `show trajectory` reads trajectories or filtered"
        )
    config = args.config or art.kind.main_config
    if config not in art.kind.configs:
        raise ValueError(f"--config must be one of {', '.join(art.kind.configs)}, got {config!r}")
    dataset = art.load(config)
    if not dataset.num_rows:
        raise ValueError(f"no trajectories in config {config!r} of {art.pinned}")
    ids = list(dataset["trajectory_id"])
    if args.id is None:
        index = 0
        print(f"the first of {len(ids)} trajectories in {config!r} (--id ID for another)\n")
    elif args.id in ids:
        index = ids.index(args.id)
    else:
        near = difflib.get_close_matches(args.id, ids, n=5, cutoff=0.5) or ids[:5]
        raise ValueError(f"no trajectory {args.id!r} in {config!r} of {art.pinned}; e.g. {', '.join(near)}")
    print(render_trajectory(dataset[index]), end="")
    return 0
