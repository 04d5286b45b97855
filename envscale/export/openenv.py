"""The `openenv` format: an OpenEnv environment (the `openenv` package, formerly `openenv-core`: `openenv.core`).

The layout `openenv init` makes, with envscale's tasks behind it:

```
OUTPUT/
  openenv.yaml              spec_version 1, runtime fastapi, app server.app:app, port 8000, reward range [0, 1]
  pyproject.toml            depends on openenv and envscale; the `server` entry point (`openenv validate`)
  __init__.py, models.py    EnvscaleAction (a tool call, or the final answer), EnvscaleObservation, EnvscaleState
  client.py                 EnvscaleEnv, the typed `EnvClient` over the server's WebSocket
  server/envscale_environment.py   EnvscaleEnvironment(openenv.core.env_server.interfaces.Environment)
  server/app.py             create_app(EnvscaleEnvironment, EnvscaleAction, EnvscaleObservation)
  server/Dockerfile, server/requirements.txt
  data/                     the environments and tasks (`envscale.export.episodes`)
```

An episode: `reset(task_id=...)` (or `seed=` to pick the task by index; default the first) returns the task's
opening conversation (`prompt`) and its tools (`tools`, OpenAI format); `step(EnvscaleAction(tool=..., arguments=...))`
runs a tool on the task's database (`result`: its result as JSON text, or `{"error", "code"}`; reward 0); `step(EnvscaleAction(answer=...))`
ends the episode with the agent's last words to the user: `done`, and `reward` is envscale's judge on the final
database state, the answer and the policy (1.0 or 0.0; `failed` lists the checks that failed). Sessions are
per WebSocket (`/ws`), as OpenEnv serves stateful environments.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .episodes import DATA

#: The runtime package the exported environment depends on (`openenv`, or the older name `openenv-core`: both
#: provide `openenv.core`).
REQUIREMENT = "openenv>=0.2.2"


def data_dir(out: Path) -> Path:
    return Path(out) / DATA


_YAML = """spec_version: 1
name: {name}
version: 0.1.0
type: space
runtime: fastapi
app: server.app:app
port: 8000
description: "{tasks} envscale tool-use task(s) of {environments} environment(s), rewarded by their final database state"
validation:
  reward:
    range: [0.0, 1.0]
    oracle_tolerance: 0.0
    floor_margin: 0.1
  capabilities:
    verifier:
      kind: reward_channel
  types:
    tags: [tool-use, envscale]
"""

_MODELS = '''"""The action, observation and state of the envscale environment (written by `envscale export --format openenv`)."""

from typing import Any, Optional

from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field


class EnvscaleAction(Action):
    """A tool call (`tool` and `arguments`) or, to end the episode, the agent's last words to the user (`answer`)."""

    tool: Optional[str] = Field(default=None, description="The tool to call (one of the observation's tools)")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool's arguments")
    answer: Optional[str] = Field(default=None, description="The final answer: ends the episode and scores it")


class EnvscaleObservation(Observation):
    """What the agent sees: on reset the task's opening conversation and tools, after a call its result."""

    task_id: str = Field(default="", description="The task being played")
    prompt: list[dict[str, Any]] = Field(default_factory=list, description="The opening conversation (reset)")
    tools: list[dict[str, Any]] = Field(default_factory=list, description="The task's tools, OpenAI format (reset)")
    result: str = Field(default="", description="The last tool call's result as JSON text, or {error, code}")
    failed: list[str] = Field(default_factory=list, description="The judge's failed checks (when done)")


class EnvscaleState(State):
    """The episode's id and step count, and the task it plays."""

    task_id: str = Field(default="", description="The task being played")
'''

_ENVIRONMENT = '''"""The envscale environment for OpenEnv (written by `envscale export --format openenv`).

The tools run on the task's SQLite-backed database (envscale's runtime); the reward of the final step (an
action with `answer`) is envscale's judge on the final database state, the answer and the policy: 1.0 or 0.0.
"""

from pathlib import Path
from typing import Any, Optional
from uuid import uuid4

from envscale.export.episodes import Catalogue
from openenv.core.env_server.interfaces import Environment

try:
    from ..models import EnvscaleAction, EnvscaleObservation, EnvscaleState
except ImportError:
    from models import EnvscaleAction, EnvscaleObservation, EnvscaleState

CATALOGUE = Catalogue(Path(__file__).resolve().parent.parent / "data")


class EnvscaleEnvironment(Environment):
    """One envscale task per episode: `reset(task_id=...)`, then tool calls, then the answer."""

    SUPPORTS_CONCURRENT_SESSIONS: bool = True

    def __init__(self):
        super().__init__()
        self._episode = None
        self._state = EnvscaleState(episode_id=str(uuid4()), step_count=0)

    def reset(
        self,
        seed: Optional[int] = None,
        episode_id: Optional[str] = None,
        task_id: Optional[str] = None,
        **kwargs: Any,
    ) -> EnvscaleObservation:
        """Start the task `task_id` (default: the task at index `seed`, else the first) in its initial state."""
        ids = CATALOGUE.task_ids()
        if task_id is None:
            task_id = ids[(seed or 0) % len(ids)]
        self._episode = CATALOGUE.episode(task_id)
        self._state = EnvscaleState(
            episode_id=episode_id if episode_id is not None else str(uuid4()), step_count=0, task_id=task_id
        )
        return EnvscaleObservation(
            task_id=task_id, prompt=self._episode.prompt, tools=self._episode.tools, done=False, reward=0.0
        )

    def step(self, action: EnvscaleAction, timeout_s: Optional[float] = None, **kwargs: Any) -> EnvscaleObservation:  # type: ignore[override]
        """Run a tool call, or end the episode with `answer` and score it."""
        if self._episode is None:
            raise RuntimeError("call reset() before step()")
        self._state.step_count += 1
        task_id = self._episode.task_id
        if action.answer is not None or self._episode.verdict is not None:
            verdict = self._episode.finish(action.answer or "")
            return EnvscaleObservation(
                task_id=task_id, done=True, reward=verdict["reward"], failed=verdict["failed"]
            )
        if not action.tool:
            return EnvscaleObservation(
                task_id=task_id, result='{"error": "an action is a tool call or an answer", "code": "invalid_arguments"}', reward=0.0
            )
        result = self._episode.call(action.tool, action.arguments)
        return EnvscaleObservation(task_id=task_id, result=result, done=False, reward=0.0)

    @property
    def state(self) -> EnvscaleState:
        return self._state
'''

_APP = '''"""The HTTP and WebSocket server of the envscale environment (written by `envscale export --format openenv`).

    uvicorn server.app:app --host 0.0.0.0 --port 8000
"""

from openenv.core.env_server.http_server import create_app

try:
    from ..models import EnvscaleAction, EnvscaleObservation
    from .envscale_environment import EnvscaleEnvironment
except ImportError:
    from models import EnvscaleAction, EnvscaleObservation
    from server.envscale_environment import EnvscaleEnvironment

app = create_app(
    EnvscaleEnvironment,
    EnvscaleAction,
    EnvscaleObservation,
    env_name="{name}",
    max_concurrent_envs=64,
)


def main():
    import argparse

    import uvicorn

    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    uvicorn.run(app, host=args.host, port=args.port)


if __name__ == "__main__":
    main()
'''

_CLIENT = '''"""The typed client of the envscale environment (written by `envscale export --format openenv`)."""

from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient

try:
    from .models import EnvscaleAction, EnvscaleObservation, EnvscaleState
except ImportError:
    from models import EnvscaleAction, EnvscaleObservation, EnvscaleState


class EnvscaleEnv(EnvClient[EnvscaleAction, EnvscaleObservation, EnvscaleState]):
    """`EnvscaleEnv(base_url="http://localhost:8000")`: reset(task_id=...), step(EnvscaleAction(...))."""

    def _step_payload(self, action: EnvscaleAction) -> dict[str, Any]:
        return action.model_dump(exclude_none=True)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[EnvscaleObservation]:
        observation = EnvscaleObservation(
            **payload.get("observation", {{}}), done=payload.get("done", False), reward=payload.get("reward")
        )
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> EnvscaleState:
        return EnvscaleState(**payload)
'''

_INIT = '''"""envscale tasks as an OpenEnv environment (written by `envscale export --format openenv`)."""

from .client import EnvscaleEnv
from .models import EnvscaleAction, EnvscaleObservation, EnvscaleState

__all__ = ["EnvscaleAction", "EnvscaleEnv", "EnvscaleObservation", "EnvscaleState"]
'''

_PYPROJECT = """[build-system]
requires = ["setuptools>=45", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "openenv-{name}"
version = "0.1.0"
description = "envscale tool-use tasks for OpenEnv, rewarded by their final database state"
requires-python = ">=3.11"
dependencies = ["{requirement}", "envscale=={envscale_version}", "fastapi>=0.104.0", "uvicorn>=0.24.0"]

[project.scripts]
server = "{name}.server.app:main"

[tool.setuptools]
include-package-data = true
packages = ["{name}", "{name}.server"]
package-dir = {{ "{name}" = ".", "{name}.server" = "server" }}

[tool.setuptools.package-data]
{name} = ["openenv.yaml", "data/*.jsonl", "data/environments/*.json"]
"""

_DOCKERFILE = """FROM python:3.11-slim
WORKDIR /app/env
COPY server/requirements.txt /tmp/requirements.txt
RUN pip install --no-cache-dir -r /tmp/requirements.txt
COPY . /app/env
ENV PYTHONPATH="/app/env:$PYTHONPATH"
EXPOSE 8000
CMD ["sh", "-c", "cd /app/env && uvicorn server.app:app --host 0.0.0.0 --port 8000"]
"""

_REQUIREMENTS = """{requirement}
envscale=={envscale_version}
fastapi>=0.104.0
uvicorn>=0.24.0
"""

_README = """# {name}

{tasks} envscale task(s) of {environments} environment(s) as an OpenEnv environment.

- `reset(task_id=...)` (or `seed=N`: the N-th task): the task's opening conversation (`prompt`) and tools (`tools`);
- `step(EnvscaleAction(tool="...", arguments={{...}}))`: the tool's result (`result`, JSON text);
- `step(EnvscaleAction(answer="..."))`: the end: `reward` 1.0 when envscale's judge passes the final database
  state, the answer and the policy, else 0.0 (`failed` says why).

Serve it with `uvicorn server.app:app --port 8000` (or the Dockerfile in `server/`); the tasks are in `data/tasks.jsonl`.
"""


def write(
    out: Path, entries: list[dict], specs: dict[str, dict], *, envscale_version: str, **_: Any
) -> list[Path]:
    """Write the OpenEnv environment around the data `envscale.export.build` wrote (see the module docstring)."""
    out = Path(out)
    name = package_name(out)
    (out / "server").mkdir(parents=True, exist_ok=True)
    fields = {
        "name": name,
        "tasks": len(entries),
        "environments": len(specs),
        "requirement": REQUIREMENT,
        "envscale_version": envscale_version,
    }
    files = {
        out / "openenv.yaml": _YAML.format(**fields),
        out / "pyproject.toml": _PYPROJECT.format(**fields),
        out / "README.md": _README.format(**fields),
        out / "__init__.py": _INIT,
        out / "models.py": _MODELS,
        out / "client.py": _CLIENT.format(),
        out / "server" / "__init__.py": '"""The server of the envscale OpenEnv environment."""\n',
        out / "server" / "envscale_environment.py": _ENVIRONMENT,
        out / "server" / "app.py": _APP.replace("{name}", name),
        out / "server" / "Dockerfile": _DOCKERFILE,
        out / "server" / "requirements.txt": _REQUIREMENTS.format(**fields),
    }
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    return list(files)


def package_name(out: Path) -> str:
    """The environment's name: `envscale_` + the output folder's name as a Python identifier (`openenv.yaml`'s
    `name`, the package's name)."""
    import re

    name = re.sub(r"\W+", "_", Path(out).resolve().name).strip("_").lower() or "env"
    # Prefixed: a folder named `openenv` would otherwise shadow the `openenv` package the server imports.
    return name if name.startswith("envscale") else f"envscale_{name}"
