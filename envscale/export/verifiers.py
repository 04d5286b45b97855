"""The `verifiers` format: a package whose `load_environment(**kwargs)` returns a verifiers `ToolEnv`.

Written for verifiers' environment API of `verifiers>=0.2,<0.3` (`vf.ToolEnv`, `vf.Rubric`, `vf.load_environment`,
the layout of an Environments Hub package: `pyproject.toml` and a module named after the environment id):

```
OUTPUT/
  pyproject.toml            name envscale-<folder>; depends on verifiers and envscale
  README.md
  envscale_<folder>/__init__.py   load_environment(split=None, environments=None, max_tasks=None, max_turns=20, **kwargs)
  envscale_<folder>/data/   the environments and tasks (`envscale.export.episodes`)
```

The environment id is `envscale-` + the output folder's name (`env_id(out)`; a name that starts with `envscale`
is kept), so two exports (a train and a test one) install side by side:

```python
>>> import verifiers as vf                     # with OUTPUT installed (`pip install -e OUTPUT`) or on sys.path
>>> env = vf.load_environment("envscale-retail-test", max_tasks=20)   # exported to .../retail-test
```

Each dataset row is one task: `prompt` (the system prompt with the environment's policy and the user's first
message), `info` (`task_id`, `environment` and `tool_defs`: the task's offered tools, so each row offers its own).
A rollout plays one `envscale.export.episodes.Episode` (kept in the rollout's state): every tool call of the model
runs on the task's database, and the rubric's one reward function, `envscale_reward`, is envscale's judge on the
final state and the model's last message (1.0 or 0.0).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .episodes import DATA, Catalogue


def env_id(out: str | Path) -> str:
    """The environment id of an export to `out`: `envscale-` + the folder's name (`vf.load_environment(id)`)."""
    import re

    name = re.sub(r"[^a-z0-9]+", "-", Path(out).resolve().name.lower()).strip("-") or "tasks"
    return name if name.startswith("envscale") else f"envscale-{name}"


def module_name(out: str | Path) -> str:
    """The Python module of the export (the id with `_` for `-`, as verifiers imports it)."""
    return env_id(out).replace("-", "_")


#: What the exported package requires (verifiers' classic environment API).
REQUIREMENT = "verifiers>=0.2.1,<0.3"


def data_dir(out: Path) -> Path:
    """Where the export's `data/` goes: inside the package, so an installed package carries it."""
    return Path(out) / module_name(out) / DATA


_INIT = '''"""envscale tasks as a verifiers environment (written by `envscale export --format verifiers`).

    import verifiers as vf
    env = vf.load_environment("{env_id}", split="test", max_tasks=50)

The reward is envscale's judge on the final database state, the answer and the policy (1.0 or 0.0).
"""

from pathlib import Path

from envscale.export.verifiers import load_environment as load_envscale_environment

DATA = Path(__file__).resolve().parent / "data"


def load_environment(
    split: str | None = None,
    environments: list[str] | None = None,
    max_tasks: int | None = None,
    max_turns: int = 20,
    **kwargs,
):
    """A verifiers ToolEnv over the exported tasks (`split`, `environments`, `max_tasks` narrow them)."""
    return load_envscale_environment(
        DATA, split=split, environments=environments, max_tasks=max_tasks, max_turns=max_turns, **kwargs
    )
'''

_PYPROJECT = """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "{env_id}"
version = "0.1.0"
description = "envscale tool-use tasks judged by their final database state, as a verifiers environment"
requires-python = ">=3.11"
dependencies = ["{requirement}", "envscale=={envscale_version}"]

[tool.setuptools]
packages = ["{module}"]

[tool.setuptools.package-data]
{module} = ["data/*.jsonl", "data/environments/*.json"]
"""

_README = """# {env_id}

{tasks} envscale task(s) of {environments} environment(s), split `{split}`, as a verifiers environment.

```python
import verifiers as vf
env = vf.load_environment("{env_id}")   # after `pip install -e .`
```

Each row offers the task's own tools (`info.tool_defs`); the rubric's reward is envscale's judge on the final
database state, the final answer and the policy: 1.0 or 0.0. Arguments of `load_environment`: `split`,
`environments`, `max_tasks`, `max_turns`, and any keyword of `vf.ToolEnv`.
"""


def write(
    out: Path, entries: list[dict], specs: dict[str, dict], *, envscale_version: str, **_: Any
) -> list[Path]:
    """Write the package around the data `envscale.export.build` wrote (see the module docstring)."""
    out = Path(out)
    ident, module = env_id(out), module_name(out)
    package = out / module
    package.mkdir(parents=True, exist_ok=True)
    splits = sorted({e["split"] for e in entries})
    files = {
        package / "__init__.py": _INIT.format(env_id=ident),
        out / "pyproject.toml": _PYPROJECT.format(
            env_id=ident, module=module, requirement=REQUIREMENT, envscale_version=envscale_version
        ),
        out / "README.md": _README.format(
            env_id=ident, tasks=len(entries), environments=len(specs), split=", ".join(splits)
        ),
    }
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    return list(files)


def text_of(message: Any) -> str:
    """The text of a message (a verifiers message model or a dict), parts joined."""
    content = message.get("content") if isinstance(message, dict) else getattr(message, "content", None)
    if isinstance(content, list):
        return " ".join(
            str(p.get("text") if isinstance(p, dict) else getattr(p, "text", "") or "") for p in content
        )
    return str(content or "")


def role_of(message: Any) -> str:
    return str(message.get("role") if isinstance(message, dict) else getattr(message, "role", ""))


def final_text(completion: Any) -> str:
    """The model's last words: the text of the completion's last assistant message."""
    if isinstance(completion, str):
        return completion
    for message in reversed(list(completion or [])):
        if role_of(message) == "assistant":
            return text_of(message)
    return ""


async def envscale_reward(completion: Any, state: Any, **_: Any) -> float:
    """envscale's judge on the rollout: the task's final database state, the last answer and the policy."""
    episode = state.get("envscale_episode") if hasattr(state, "get") else None
    if episode is None:
        return 0.0
    return float(episode.finish(final_text(completion))["reward"])


def load_environment(
    data: str | Path,
    *,
    split: str | None = None,
    environments: list[str] | None = None,
    max_tasks: int | None = None,
    max_turns: int = 20,
    **kwargs: Any,
):
    """A `vf.ToolEnv` over the tasks of an export's `data/` folder (see the module docstring)."""
    import verifiers as vf
    from datasets import Dataset

    catalogue = Catalogue(data)
    ids = catalogue.task_ids(split, environments)
    if max_tasks is not None:
        ids = ids[:max_tasks]
    if not ids:
        raise ValueError(f"no task in {catalogue.folder} for split={split!r}, environments={environments!r}")
    rows = []
    for i, task_id in enumerate(ids):
        entry = catalogue.entry(task_id)
        by_name = {t["name"]: t for t in catalogue.specs[entry["environment"]]["tools"]}
        defs = [
            {
                "name": n,
                "description": by_name[n].get("description") or "",
                "parameters": by_name[n]["parameters"],
            }
            for n in entry["tools"]
        ]
        info = {"task_id": task_id, "environment": entry["environment"], "tool_defs": defs}
        rows.append(
            {
                "example_id": i,
                "prompt": [{"role": m["role"], "content": m["content"]} for m in entry["prompt"]],
                "answer": "",
                "info": json.dumps(info, ensure_ascii=False),
            }
        )
    dataset = Dataset.from_list(rows)

    class EnvscaleToolEnv(vf.ToolEnv):
        """A verifiers `ToolEnv` whose tools run on an envscale task's database (one episode per rollout)."""

        def __init__(self, **env_kwargs: Any):
            super().__init__(tools=[], **env_kwargs)
            self.catalogue = catalogue

        async def setup_state(self, state: Any) -> Any:
            info = state["info"]
            if isinstance(info, str):
                info = json.loads(info)
            state["envscale_episode"] = self.catalogue.episode(info["task_id"])
            return state

        async def env_response(self, messages: Any, state: Any, **_: Any) -> Any:
            episode = state["envscale_episode"]
            replies = []
            for call in getattr(messages[-1], "tool_calls", None) or []:
                content = episode.call(call.name, call.arguments)
                replies.append(vf.ToolMessage(role="tool", content=content, tool_call_id=call.id))
            return replies

    rubric = vf.Rubric(funcs=[envscale_reward], weights=[1.0])
    return EnvscaleToolEnv(
        dataset=dataset, eval_dataset=dataset, rubric=rubric, max_turns=max_turns, **kwargs
    )
