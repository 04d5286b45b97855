"""The runtime (envscale.env) imports the runtime and nothing else: an RL worker that steps environments
loads no spec inference, verification, task synthesis, rollout, scoring, training, stage or renderer code."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import envscale

#: Packages above or beside the runtime: nothing under `envscale/env/` may import them.
FORBIDDEN = (
    "envscale.materialize",
    "envscale.tasks",
    "envscale.sources",
    "envscale.judge",
    "envscale.rollout",
    "envscale.training",
    "envscale.rl",
    "envscale.stages",
    "envscale.graph",
    "envscale.show",
    "envscale.cli",
    "envscale.semantics",
)
ENV_DIR = Path(envscale.__file__).parent / "env"
ROOT = ENV_DIR.parent.parent


def loaded_modules(statement: str) -> list[str]:
    """The `envscale` modules in `sys.modules` after running `statement` in a fresh interpreter."""
    code = f"{statement}; import json, sys; print(json.dumps(sorted(m for m in sys.modules if m.startswith('envscale'))))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(run.stdout.splitlines()[-1])


def forbidden(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == f or m.startswith(f + ".") for f in FORBIDDEN)]


@pytest.mark.parametrize(
    "statement",
    [
        "import envscale.env.runtime",
        "import envscale.env",
        "from envscale.env import Environment",
        "import envscale.env.adapters",
        "import envscale.env.mcp_server",
    ],
)
def test_importing_the_runtime_loads_nothing_above_it(statement):
    modules = loaded_modules(statement)
    assert "envscale.env.runtime" in modules
    assert forbidden(modules) == [], statement


def test_an_environment_steps_without_loading_anything_above_the_runtime():
    statement = (
        "from envscale.env import Environment; env = Environment.from_yaml('tests/fixtures/envs/shop.yaml'); "
        "env.reset(); env.step('cancel_order', {'order_id': 'nope'}); env.state_hash()"
    )
    assert forbidden(loaded_modules(statement)) == []


def test_no_module_of_the_runtime_imports_above_it():
    """Also imports inside functions, which an import in a subprocess does not run."""
    found = []
    for path in sorted(ENV_DIR.rglob("*.py")):
        package = ["envscale", *path.relative_to(ENV_DIR.parent).parent.parts]  # what `.` means in it
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                targets = [".".join([*base, node.module] if node.module else base)]
                targets += [f"{targets[0]}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            found += [f"{path.name}:{node.lineno} {t}" for t in forbidden(targets)]
    assert found == []
