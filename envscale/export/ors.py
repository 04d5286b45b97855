"""The `ors` format: an OpenReward Standard (ORS) environment server (the `openreward` package).

```
OUTPUT/
  server.py          Server(ENVIRONMENTS).run(): one ORS Environment class per envscale environment
  Dockerfile, requirements.txt   as `orwd init`'s basic template (python server.py, port 8080)
  data/              the environments and tasks (`envscale.export.episodes`)
```

Each class (`environment_classes(data)`, named after the envscale environment) has:

- `list_splits()` / `list_tasks(split)`: the exported tasks, each `{"task_id", "environment"}`;
- one `@tool` per tool of the environment (its JSON Schema as the input schema); a task lists only the tools it
  offers (`list_task_tools`: the class-level tools are not shared), and calling another is refused;
- `get_prompt()`: the task's opening (the agent's system prompt with the policy, then the user's first message);
- `answer`, its `@terminal` tool: the harness routes the agent's final plain message into it, and it returns
  envscale's judge on the final database state, the answer and the policy as the reward (1.0 or 0.0), `finished`.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path
from typing import Any

from .episodes import DATA, Catalogue

#: The SDK the server runs on.
REQUIREMENT = "openreward>=0.1.157"

#: The terminal tool's name (hidden from the model; its final message goes there).
TERMINAL = "answer"


def data_dir(out: Path) -> Path:
    return Path(out) / DATA


_SERVER = '''"""envscale tasks as an ORS environment server (written by `envscale export --format ors`).

    python server.py            # serves on port 8080
"""

from pathlib import Path

from envscale.export.ors import environment_classes
from openreward.environments import Server

ENVIRONMENTS = environment_classes(Path(__file__).resolve().parent / "data")

if __name__ == "__main__":
    Server(ENVIRONMENTS).run()
'''

_DOCKERFILE = """FROM python:3.11-slim
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY server.py .
COPY data ./data
EXPOSE 8080
CMD ["python", "server.py"]
"""

_REQUIREMENTS = "{requirement}\nenvscale=={envscale_version}\n"

_README = """# envscale tasks as an ORS environment

{tasks} task(s) of {environments} environment(s) ({names}), served by `python server.py` (OpenReward's
`Server`, port 8080). Each environment is a class; its tasks are listed per split, a task offers its own tools, and
the agent's final message goes to the terminal tool `{terminal}`, whose reward is envscale's judge on the final
database state, the answer and the policy (1.0 or 0.0).
"""


def write(
    out: Path, entries: list[dict], specs: dict[str, dict], *, envscale_version: str, **_: Any
) -> list[Path]:
    """Write the ORS server around the data `envscale.export.build` wrote (see the module docstring)."""
    out = Path(out)
    fields = {
        "requirement": REQUIREMENT,
        "envscale_version": envscale_version,
        "tasks": len(entries),
        "environments": len(specs),
        "names": ", ".join(class_name(n) for n in specs),
        "terminal": TERMINAL,
    }
    files = {
        out / "server.py": _SERVER,
        out / "Dockerfile": _DOCKERFILE,
        out / "requirements.txt": _REQUIREMENTS.format(**fields),
        out / "README.md": _README.format(**fields),
    }
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    return list(files)


def class_name(environment: str) -> str:
    """The ORS environment's name (its class name; the server routes by it, lower-cased)."""
    name = re.sub(r"\W+", "_", environment).strip("_") or "envscale"
    return name if name[0].isalpha() else f"env_{name}"


def environment_classes(data: str | Path) -> list[type]:
    """One ORS `Environment` class per environment of an export's `data/` folder (see the module docstring)."""
    from openreward.environments import (
        Environment,
        ListToolsOutput,
        TextBlock,
        ToolOutput,
        ToolSpec,
        terminal,
        tool,
    )
    from pydantic import BaseModel, ConfigDict

    catalogue = Catalogue(data)
    taken = set(dir(Environment)) | {TERMINAL, "episode", "task_spec"}

    def method_name(tool_name: str) -> str:
        name = re.sub(r"\W+", "_", tool_name).strip("_") or "tool"
        if name[0].isdigit() or keyword.iskeyword(name) or name in taken or name.startswith("_"):
            name = f"tool_{name}"
        return name

    class FinalAnswer(BaseModel):
        """The agent's last words to the user."""

        answer: str = ""

    def params_model(tool_spec: dict) -> type:
        """A model that takes the tool's arguments as they are and publishes the tool's own JSON Schema."""
        schema = tool_spec["parameters"]

        class Arguments(BaseModel):
            model_config = ConfigDict(extra="allow")

            @classmethod
            def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict:
                return dict(schema)

        Arguments.__name__ = Arguments.__qualname__ = f"{method_name(tool_spec['name'])}_arguments"
        return Arguments

    def tool_method(tool_spec: dict, model: type):
        name = tool_spec["name"]

        async def call(self, params) -> ToolOutput:
            if name not in self.episode.offered:
                content = self.episode.call(name, {})  # the refusal: not offered by this task
            else:
                content = self.episode.call(name, dict(params.model_extra or {}))
            return ToolOutput(blocks=[TextBlock(type="text", text=content)], reward=0.0, finished=False)

        call.__name__ = call.__qualname__ = method_name(name)
        call.__doc__ = (tool_spec.get("description") or name).strip()
        call.__annotations__ = {"params": model, "return": ToolOutput}
        return tool(shared=False)(call)

    classes = []
    for env_name, spec in catalogue.specs.items():
        env_tools = {t["name"]: t for t in spec["tools"]}
        models = {n: params_model(t) for n, t in env_tools.items()}
        tasks_by_split: dict[str, list[dict]] = {}
        for task_id in catalogue.task_ids(environments=[env_name]):
            task_split = catalogue.entry(task_id).get("split") or "test"
            tasks_by_split.setdefault(task_split, []).append({"task_id": task_id, "environment": env_name})

        def make(env_name=env_name, env_tools=env_tools, models=models, tasks_by_split=tasks_by_split):
            def __init__(self, task_spec: dict = {}, secrets: dict[str, str] = {}) -> None:  # noqa: B006 - ORS's signature
                Environment.__init__(self, task_spec, secrets)
                task_id = (task_spec or {}).get("task_id")
                if task_id is None:
                    raise ValueError(f"an {env_name} task_spec names its task: {{'task_id': ...}}")
                self.episode = catalogue.episode(task_id)

            @classmethod
            def list_splits(cls) -> list[str]:
                return list(tasks_by_split)

            @classmethod
            def list_tasks(cls, split: str) -> list[dict]:
                if split not in tasks_by_split:
                    raise ValueError(f"unknown split {split!r}; {env_name} has {', '.join(tasks_by_split)}")
                return tasks_by_split[split]

            def get_prompt(self):
                text = "\n\n".join(str(m.get("content") or "") for m in self.episode.prompt)
                return [TextBlock(type="text", text=text)]

            def list_task_tools(self) -> ListToolsOutput:
                return ListToolsOutput(
                    tools=[
                        ToolSpec(
                            name=method_name(n),
                            description=(env_tools[n].get("description") or n).strip(),
                            input_schema=dict(env_tools[n]["parameters"]),
                        )
                        for n in self.episode.offered
                    ]
                )

            async def answer(self, params) -> ToolOutput:
                verdict = self.episode.finish(params.answer)
                text = "passed" if verdict["passed"] else "failed: " + ", ".join(verdict["failed"])
                return ToolOutput(
                    blocks=[TextBlock(type="text", text=text)],
                    metadata={"failed": verdict["failed"]},
                    reward=verdict["reward"],
                    finished=True,
                )

            answer.__doc__ = "Your final message to the user: ends the task and scores it."
            answer.__annotations__ = {"params": FinalAnswer, "return": ToolOutput}
            members: dict[str, Any] = {
                "__init__": __init__,
                "__doc__": f"envscale environment {env_name!r}: tools on its database, rewarded by the final state.",
                "list_splits": list_splits,
                "list_tasks": list_tasks,
                "get_prompt": get_prompt,
                "list_task_tools": list_task_tools,
                TERMINAL: terminal(tool(answer)),
            }
            for n, t in env_tools.items():
                members[method_name(n)] = tool_method(t, models[n])
            return type(class_name(env_name), (Environment,), members)

        classes.append(make())
    return classes
