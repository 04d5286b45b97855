"""The `harbor` format: one Harbor task folder per envscale task (Harbor's task format, `task.toml` schema 1.4).

```
OUTPUT/<task>/
  task.toml                 schema_version, [metadata] (the envscale task), [verifier], [agent], [environment]
  instruction.md            the agent's system prompt (with the policy), the user's request, how to call the tools
  environment/Dockerfile    python, envscale, the task's data and the `envscale-tool` command
  environment/envscale-tool the agent's tools: `envscale-tool tools`, `envscale-tool call NAME '{json}'`,
                            `envscale-tool answer 'final message to the user'`
  environment/data/         this task's environment and what the agent may know of the task (no gold)
  tests/test.sh             runs tests/judge.py: writes /logs/verifier/reward.txt (1.0 or 0.0)
  tests/data/               the whole task, gold calls and state included (the judge's; Harbor copies tests/
                            into the container only when the agent is done)
  solution/solve.sh         the gold calls and answer (Harbor's oracle agent)
OUTPUT/data/                every task, for other uses (`Catalogue`, TRL)
```

The agent works in the container with the `envscale-tool` command: every call is recorded (`$ENVSCALE_STATE`,
default `/var/lib/envscale`: `calls.jsonl` and `answer.txt`) and run on the task's database, rebuilt by replaying
the calls so far on the task's initial state. The verifier (`tests/test.sh`) replays the recorded calls through
envscale's runtime and writes the judge's verdict on the final database state, the answer and the policy to
`/logs/verifier/reward.txt` (details in `envscale_verdict.json` beside it).

The agent's container holds no answer key: its copy of the task (`environment/data/`) has only what starts the
episode (seed, session, first message, policy); the gold calls, gold state and answer facts are in `tests/data/`,
which Harbor copies in after the agent has finished. Caveat: the agent runs as root in the container and could edit
the call record the verifier replays (`calls.jsonl`); Harbor's verifier runs in the same container (its shared
mode). A stricter setup serves the tools from a sidecar (`[environment].mcp_servers`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from .episodes import DATA, Catalogue, write_data

#: Where the tool command keeps the calls (inside the container).
STATE_DIR = "/var/lib/envscale"
#: Where the data lies inside the container.
DATA_IN_IMAGE = "/opt/envscale/data"
#: Where Harbor's verifier looks for the reward.
REWARD_DIR = "/logs/verifier"
#: The task fields the agent's container gets: what starts the episode, nothing of the answer.
PUBLIC_TASK_KEYS = (
    "task_id",
    "environment",
    "split",
    "kind",
    "seed",
    "session_key",
    "first_message",
    "policy",
)


def public_entry(entry: dict) -> dict:
    """A task's line of `tasks.jsonl` with only what the agent may see (`PUBLIC_TASK_KEYS` of its task)."""
    return {**entry, "task": {k: entry["task"].get(k) for k in PUBLIC_TASK_KEYS}}


def data_dir(out: Path) -> Path:
    return Path(out) / DATA


def task_folder_name(task_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", task_id).strip("-.") or "task"


_TOML = """schema_version = "1.4"

[metadata]
envscale_task_id = {task_id}
environment = {environment}
kind = {kind}
split = {split}
source = "envscale export --format harbor"

[verifier]
timeout_sec = 300.0

[agent]
timeout_sec = 1800.0

[environment]
build_timeout_sec = 900.0
cpus = 1
memory_mb = 2048
"""

_INSTRUCTION = """{system}

## The user's request

{user}

## How to act

You act through the `envscale-tool` command (run it in the shell):

- `envscale-tool tools` lists your tools with their JSON Schemas;
- `envscale-tool call TOOL_NAME '{{"argument": "value"}}'` calls one and prints its result as JSON;
- `envscale-tool answer 'your final message to the user'` records what you tell the user at the end.

Your tools:

{tools}

You are done when you have made the changes the user asked for and recorded your final message with
`envscale-tool answer`. You are judged on the final state of the system and that message{policy}.
"""

_DOCKERFILE = """FROM python:3.11-slim
ARG ENVSCALE_REQUIREMENT="envscale=={envscale_version}"
RUN pip install --no-cache-dir "$ENVSCALE_REQUIREMENT"
COPY data {data_in_image}
COPY envscale-tool /usr/local/bin/envscale-tool
RUN chmod +x /usr/local/bin/envscale-tool && mkdir -p {state_dir} /app
ENV ENVSCALE_DATA={data_in_image} ENVSCALE_STATE={state_dir} ENVSCALE_TASK_ID={task_id}
WORKDIR /app
"""

_TOOL = """#!/usr/bin/env python3
\"\"\"The agent's tools for this task (written by `envscale export --format harbor`): run without arguments for help.\"\"\"

import sys

from envscale.export.harbor import tool_main

sys.exit(tool_main())
"""

_TEST = """#!/bin/bash
# Harbor's verifier: replay the agent's recorded tool calls on the task's database and judge the final state,
# the final answer and the policy with envscale's judge; the reward goes to /logs/verifier/reward.txt.
set -u
export ENVSCALE_REWARD_DIR="${ENVSCALE_REWARD_DIR:-/logs/verifier}"
export ENVSCALE_JUDGE_DATA="${ENVSCALE_JUDGE_DATA:-$(dirname "$0")/data}"
mkdir -p "$ENVSCALE_REWARD_DIR"
python3 "$(dirname "$0")/judge.py"
status=$?
if [ ! -s "$ENVSCALE_REWARD_DIR/reward.txt" ]; then echo 0 > "$ENVSCALE_REWARD_DIR/reward.txt"; fi
exit $status
"""

_JUDGE = """\"\"\"Judge the episode (written by `envscale export --format harbor`): see envscale.export.harbor.judge_main.\"\"\"

import sys

from envscale.export.harbor import judge_main

sys.exit(judge_main())
"""


def _solve(task: dict, answer: str) -> str:
    lines = [
        "#!/bin/bash",
        "# The gold calls and answer of this task (Harbor's oracle agent runs this).",
        "set -e",
    ]
    for call in task.get("gold_calls") or []:
        arguments = json.dumps(call.get("arguments") or {}, ensure_ascii=False)
        lines.append(f"envscale-tool call {shlex.quote(str(call['tool']))} {shlex.quote(arguments)}")
    lines.append(f"envscale-tool answer {shlex.quote(answer)}")
    return "\n".join(lines) + "\n"


def _toml_string(value: Any) -> str:
    return json.dumps("" if value is None else str(value), ensure_ascii=False)


def write(
    out: Path,
    entries: list[dict],
    specs: dict[str, dict],
    *,
    envscale_version: str,
    show_progress: bool = True,
    **_: Any,
) -> list[Path]:
    """Write one Harbor task folder per task (see the module docstring)."""
    from tqdm.auto import tqdm

    from ..rl.reward import gold_answer

    out = Path(out)
    files: list[Path] = []
    for entry in tqdm(entries, desc="harbor tasks", unit="task", disable=not show_progress):
        task = entry["task"]
        folder = out / task_folder_name(entry["task_id"])
        for sub in ("environment", "tests", "solution"):
            (folder / sub).mkdir(parents=True, exist_ok=True)
        own = {entry["environment"]: specs[entry["environment"]]}
        write_data(folder / "environment" / DATA, own, [public_entry(entry)])
        write_data(folder / "tests" / DATA, own, [entry])
        by_name = {t["name"]: t for t in specs[entry["environment"]]["tools"]}
        tools = "\n".join(
            f"- `{name}`: {' '.join((by_name[name].get('description') or name).split())}"
            for name in entry["tools"]
        )
        system = next((m["content"] for m in entry["prompt"] if m["role"] == "system"), "")
        user = next((m["content"] for m in entry["prompt"] if m["role"] == "user"), "")
        texts = {
            folder / "task.toml": _TOML.format(
                task_id=_toml_string(entry["task_id"]),
                environment=_toml_string(entry["environment"]),
                kind=_toml_string(task.get("kind")),
                split=_toml_string(entry.get("split")),
            ),
            folder / "instruction.md": _INSTRUCTION.format(
                system=system,
                user=user,
                tools=tools,
                policy=", and the policy above" if "Policy" in system else "",
            ),
            folder / "environment" / "Dockerfile": _DOCKERFILE.format(
                envscale_version=envscale_version,
                data_in_image=DATA_IN_IMAGE,
                state_dir=STATE_DIR,
                task_id=shlex.quote(entry["task_id"]),
            ),
            folder / "environment" / "envscale-tool": _TOOL,
            folder / "tests" / "test.sh": _TEST,
            folder / "tests" / "judge.py": _JUDGE,
            folder / "solution" / "solve.sh": _solve(task, gold_answer(task)),
        }
        for path, text in texts.items():
            path.write_text(text, encoding="utf-8")
        for path in (
            folder / "environment" / "envscale-tool",
            folder / "tests" / "test.sh",
            folder / "solution" / "solve.sh",
        ):
            path.chmod(0o755)
        files.extend(texts)
    return files


# ----------------------------------------------------------------------------- inside the container


def _paths() -> tuple[Path, Path, str | None]:
    data = Path(os.environ.get("ENVSCALE_DATA") or DATA_IN_IMAGE)
    state = Path(os.environ.get("ENVSCALE_STATE") or STATE_DIR)
    return data, state, os.environ.get("ENVSCALE_TASK_ID") or None


def replayed_episode(data: Path | None = None) -> tuple[Any, list[dict], Path]:
    """The task's episode with the recorded calls replayed on its initial state: `(episode, calls, state dir)`;
    `data` is the data folder (default: the agent's, `$ENVSCALE_DATA`)."""
    default, state, task_id = _paths()
    data = data or default
    catalogue = Catalogue(data)
    ids = catalogue.task_ids()
    if task_id is None:
        if len(ids) != 1:
            raise SystemExit(f"envscale: set ENVSCALE_TASK_ID: {data} holds {len(ids)} tasks")
        task_id = ids[0]
    episode = catalogue.episode(task_id)
    calls = []
    record = state / "calls.jsonl"
    if record.is_file():
        for line in record.read_text(encoding="utf-8").splitlines():
            if line.strip():
                call = json.loads(line)
                calls.append(call)
                episode.call(call["tool"], call.get("arguments") or {})
    return episode, calls, state


_HELP = """usage:
  envscale-tool tools                      the tools you have, with their JSON Schemas
  envscale-tool call TOOL_NAME '{JSON}'    call a tool (arguments as a JSON object; default {})
  envscale-tool answer 'MESSAGE'           your final message to the user (the last one counts)
"""


def tool_main(argv: list[str] | None = None) -> int:
    """`envscale-tool`: the agent's tools inside a Harbor task's container (see the module docstring)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(_HELP, end="")
        return 0 if args else 2
    command, rest = args[0], args[1:]
    episode, _, state = replayed_episode()
    state.mkdir(parents=True, exist_ok=True)
    if command == "tools":
        print(json.dumps(episode.tools, indent=2, ensure_ascii=False))
        return 0
    if command == "answer":
        (state / "answer.txt").write_text(" ".join(rest), encoding="utf-8")
        print("Your final message is recorded.")
        return 0
    if command != "call" or not rest:
        print(_HELP, end="", file=sys.stderr)
        return 2
    tool, raw = rest[0], (rest[1] if len(rest) > 1 else "{}")
    try:
        arguments = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        print(json.dumps({"error": f"{tool}: arguments are not JSON: {exc}", "code": "invalid_arguments"}))
        return 1
    result = episode.call(tool, arguments)
    with (state / "calls.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps({"tool": tool, "arguments": arguments}, ensure_ascii=False) + "\n")
    print(result)
    return 0


def judge_main() -> int:
    """The verifier: replay the recorded calls, judge them with the recorded answer, write `reward.txt`. The task
    with its gold is the tests' copy (`$ENVSCALE_JUDGE_DATA`, set by `tests/test.sh`), never the agent's."""
    judge_data = os.environ.get("ENVSCALE_JUDGE_DATA")
    if not judge_data:
        raise SystemExit("envscale: ENVSCALE_JUDGE_DATA is not set (run tests/test.sh, which sets it)")
    episode, calls, state = replayed_episode(Path(judge_data))
    answer_file = state / "answer.txt"
    answer = answer_file.read_text(encoding="utf-8") if answer_file.is_file() else ""
    verdict = episode.finish(answer)
    reward_dir = Path(os.environ.get("ENVSCALE_REWARD_DIR") or REWARD_DIR)
    reward_dir.mkdir(parents=True, exist_ok=True)
    (reward_dir / "reward.txt").write_text(f"{verdict['reward']}\n", encoding="utf-8")
    (reward_dir / "envscale_verdict.json").write_text(
        json.dumps({"task_id": episode.task_id, "calls": len(calls), **verdict}, indent=2), encoding="utf-8"
    )
    print(
        f"{episode.task_id}: reward {verdict['reward']}"
        + (f" (failed: {', '.join(verdict['failed'])})" if verdict["failed"] else "")
    )
    return 0
