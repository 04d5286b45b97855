"""The house rules of ARCHITECTURE.md, checked: imports only go down, privates stay home, files fit a reader.

`make test` runs `lint-imports` (the contracts in pyproject.toml) before pytest; the tests here check what
the contracts cannot say, and that the contracts themselves bite: a forbidden import added to a copy of
the package must break them.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "envscale"
#: The most lines a module of `envscale/tasks/` may have: one reader holds it.
TASKS_MAX_LINES = 700


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_from(path: Path, root: Path, node: ast.ImportFrom) -> str:
    """The absolute module an `ImportFrom` in `path` reads from."""
    if not node.level:
        return node.module or ""
    package = module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def private_imports(package: Path) -> list[str]:
    """`file:line: name from module` for every `_name` imported from another envscale module (submodules
    named `_x` are modules, not private names)."""
    root = package.parent
    modules = {module_name(p, root) for p in package.rglob("*.py")}
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = imported_from(path, root, node)
            if not source.startswith("envscale"):
                continue
            for alias in node.names:
                name = alias.name
                if name.startswith("_") and not name.startswith("__") and f"{source}.{name}" not in modules:
                    found.append(f"{path.relative_to(root)}:{node.lineno}: {name} from {source}")
    return found


def test_no_private_name_is_imported_across_modules():
    assert private_imports(PACKAGE) == []


def test_the_private_import_check_sees_one(tmp_path):
    package = tmp_path / "envscale"
    (package / "tasks").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "tasks" / "__init__.py").write_text("")
    (package / "tasks" / "naming.py").write_text("def _entity(table):\n    return table\n")
    (package / "tasks" / "intent.py").write_text("from .naming import _entity\n")
    assert private_imports(package) == ["envscale/tasks/intent.py:1: _entity from envscale.tasks.naming"]


def test_every_module_of_tasks_fits_a_reader():
    long = {
        str(p.relative_to(ROOT)): n
        for p in sorted((PACKAGE / "tasks").rglob("*.py"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > TASKS_MAX_LINES
    }
    assert long == {}


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory) -> Path:
    """A copy of the package and its pyproject.toml, to break on purpose."""
    where = tmp_path_factory.mktemp("house")
    shutil.copytree(PACKAGE, where / "envscale", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", where / "pyproject.toml")
    return where


def lint_imports(where: Path) -> subprocess.CompletedProcess:
    executable = Path(sys.executable).with_name("lint-imports")
    return subprocess.run(
        [str(executable), "--no-cache"],
        cwd=where,
        env={"PYTHONPATH": str(where), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        # the runtime reaching up into the pipeline: both the layers and the runtime's own contract break
        ("env/runtime.py", "from envscale.tasks import generate", "envscale.env is not allowed to import"),
        # a circle closed by a function-level import, the way the old ones were
        (
            "artifacts.py",
            "def _late():\n    from envscale import publish\n",
            "envscale.artifacts is not allowed to import envscale.publish",
        ),
    ],
)
def test_the_layer_contracts_break_on_a_forbidden_import(package_copy, module, line, broken):
    assert lint_imports(package_copy).returncode == 0  # the copy as it is keeps every contract
    path = package_copy / "envscale" / module
    original = path.read_text(encoding="utf-8")
    path.write_text(original + "\n" + line + "\n", encoding="utf-8")
    try:
        result = lint_imports(package_copy)
    finally:
        path.write_text(original, encoding="utf-8")
    assert result.returncode != 0
    assert broken in result.stdout
