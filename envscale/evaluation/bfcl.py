"""BFCL's single-turn categories, asked of any envscale agent backend and scored by BFCL's own AST checker.

The Berkeley Function Calling Leaderboard ships its questions, possible answers and checker in the PyPI
wheel `bfcl-eval` (Apache-2.0). This module reads the wheel without installing it (its dependencies pin
old numpy/networkx): the wheel is fetched and cached by :func:`envscale.sources.pypi.fetch_wheel` (`pip
download --no-deps`, cached under `$ENVSCALE_CACHE/wheels`), the data files are read from the zip (JSON
Lines despite `.json`), and the checker is imported from the wheel itself (a zip on `sys.path`) with a
stub `bfcl_eval.constants.model_config` (the real one imports every provider SDK).

Each question's functions are normalised to JSON Schema the way `collect` normalises BFCL docs
(:func:`envscale.sources.normalize.normalize_tool`: `"dict"` -> `"object"`, `float` -> `number`, names
made OpenAI-safe: `math.factorial` -> `math_factorial`) and offered as tools; the agent's first reply's
tool calls, mapped back to BFCL's names, are scored by
`bfcl_eval.eval_checker.ast_eval.ast_checker.ast_checker` (not a re-implementation). Like BFCL's own
function-calling handlers, no system prompt is added.

Example:

```python
>>> from envscale.evaluation.bfcl import load_questions, score
>>> questions = load_questions("simple")
>>> len(questions), questions[0].id
(400, 'simple_python_0')
>>> score(questions[0], [{"calculate_triangle_area": {"base": 10, "height": 5}}])["valid"]
True
```
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import threading
import types
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

#: The pinned benchmark wheel (the version pins the questions and the checker).
BFCL_REQUIREMENT = "bfcl-eval==2026.3.23"
#: Categories: name -> (question file stem under bfcl_eval/data/, BFCL's test category, language).
CATEGORIES = {
    "simple": ("simple_python", "simple_python"),
    "multiple": ("multiple", "multiple"),
    "parallel": ("parallel", "parallel"),
    "parallel_multiple": ("parallel_multiple", "parallel_multiple"),
}
#: The model name the checker is told (its stub config entry says: names are compared as given).
CHECKER_MODEL = "envscale"
_IMPORT_LOCK = threading.Lock()


@dataclass
class Question:
    """One BFCL question with its functions (as BFCL wrote them and as offered), and its possible answers."""

    id: str
    category: str  # our name: simple, multiple, ...
    test_category: str  # BFCL's: simple_python, multiple, ...
    messages: list[dict]  # the first (only) turn of the question
    functions: list[dict]  # BFCL's function docs, as the checker reads them
    tools: list[dict]  # OpenAI tools, normalised to JSON Schema
    names: dict[str, str]  # offered (OpenAI-safe) name -> BFCL's name
    possible_answer: list[dict]  # BFCL's ground truth: [{name: {param: [allowed values]}}]


def wheel_path(requirement: str = BFCL_REQUIREMENT) -> Path:
    """The cached `bfcl-eval` wheel, fetched with `pip download --no-deps` on a fresh machine."""
    from ..sources.pypi import fetch_wheel

    return fetch_wheel(requirement)


def _read_jsonl(zf: zipfile.ZipFile, member: str) -> list[dict]:
    return [json.loads(line) for line in zf.read(member).decode("utf-8").splitlines() if line.strip()]


def _member(names: list[str], folder: str, stem: str) -> str:
    """`<folder>BFCL_v<N>_<stem>.json` (the newest BFCL version of the file in the wheel)."""
    pattern = re.compile(rf"^{re.escape(folder)}BFCL_v(\d+)_{re.escape(stem)}\.json$")
    matches = [(pattern.match(n), n) for n in names]
    found = [n for _, n in sorted((int(m.group(1)), n) for m, n in matches if m)]
    if not found:
        raise ValueError(f"the bfcl-eval wheel has no {folder}BFCL_v*_{stem}.json")
    return found[-1]


def to_tool(function: dict) -> tuple[dict, str]:
    """(OpenAI tool, offered name) of one BFCL function doc, normalised as `collect` normalises BFCL docs."""
    from ..sources.base import RawTool
    from ..sources.normalize import normalize_tool

    tool = normalize_tool(
        RawTool(
            name=function.get("name"),
            description=function.get("description"),
            parameters=function.get("parameters"),
            position="bfcl",
        )
    )
    offered = {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
    return {"type": "function", "function": offered}, tool.name


def load_questions(
    category: str, max_questions: int | None = None, requirement: str = BFCL_REQUIREMENT
) -> list[Question]:
    """The questions of one category, in BFCL's order, with their possible answers (first `max_questions`)."""
    if category not in CATEGORIES:
        raise ValueError(f"unknown BFCL category {category!r}; categories: {', '.join(CATEGORIES)}")
    return list(_load(category, str(wheel_path(requirement))))[: max_questions or None]


@lru_cache(maxsize=16)
def _load(category: str, wheel: str) -> tuple[Question, ...]:
    stem, test_category = CATEGORIES[category]
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        entries = _read_jsonl(zf, _member(names, "bfcl_eval/data/", stem))
        answers = {
            a["id"]: a["ground_truth"]
            for a in _read_jsonl(zf, _member(names, "bfcl_eval/data/possible_answer/", stem))
        }
    out = []
    for entry in entries:
        tools, names_map = [], {}
        for function in entry["function"]:
            tool, offered = to_tool(function)
            tools.append(tool)
            names_map[offered] = function["name"]
        if entry["id"] not in answers:
            raise ValueError(f"bfcl-eval: question {entry['id']} has no possible answer")
        out.append(
            Question(
                id=entry["id"],
                category=category,
                test_category=test_category,
                messages=list(entry["question"][0]),
                functions=entry["function"],
                tools=tools,
                names=names_map,
                possible_answer=answers[entry["id"]],
            )
        )
    return tuple(out)


def data_versions(categories: list[str], requirement: str = BFCL_REQUIREMENT) -> dict:
    """What pins BFCL's questions and checker: the bfcl-eval package and version (from the wheel's METADATA),
    the wheel's file name and sha256, and per category the question and possible-answer files read (their
    BFCL data version, `BFCL_v4_...`, and the sha256 of their content)."""
    import hashlib

    from ..artifacts import file_sha256
    from ..sources.pypi import wheel_metadata

    wheel = wheel_path(requirement)
    name, version, licence = wheel_metadata(wheel)
    wheel_sha = file_sha256(wheel)
    files = {}
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        for category in categories:
            stem, _ = CATEGORIES[category]
            entry = {}
            for part, folder in (
                ("questions", "bfcl_eval/data/"),
                ("possible_answers", "bfcl_eval/data/possible_answer/"),
            ):
                member = _member(names, folder, stem)
                found = re.search(r"BFCL_(v\d+)_", member)
                entry[part] = {
                    "file": member,
                    "data_version": found.group(1) if found else None,
                    "sha256": hashlib.sha256(zf.read(member)).hexdigest(),
                }
            files[category] = entry
    return {
        "requirement": requirement,
        "package": name,
        "version": version,
        "license": licence,
        "wheel": wheel.name,
        "wheel_sha256": wheel_sha,
        "checker": "bfcl_eval.eval_checker.ast_eval.ast_checker.ast_checker",
        "files": files,
    }


def checker(requirement: str = BFCL_REQUIREMENT):
    """BFCL's `ast_checker` function, imported from the wheel (see the module docstring)."""
    wheel = str(wheel_path(requirement))
    with _IMPORT_LOCK:
        if wheel not in sys.path and "bfcl_eval" not in sys.modules:
            sys.path.append(wheel)  # a wheel is a zip: zipimport reads its pure-Python modules
        name = "bfcl_eval.constants.model_config"
        if name not in sys.modules:
            # the real module imports every provider SDK (anthropic, cohere, ...) to list its models
            stub = types.ModuleType(name)
            stub.MODEL_CONFIG_MAPPING = {}
            sys.modules[name] = stub
        sys.modules[name].MODEL_CONFIG_MAPPING.setdefault(
            CHECKER_MODEL, types.SimpleNamespace(underscore_to_dot=False, model_name=CHECKER_MODEL)
        )
        module = importlib.import_module("bfcl_eval.eval_checker.ast_eval.ast_checker")
    return module.ast_checker


def score(question: Question, model_output: list[dict], requirement: str = BFCL_REQUIREMENT) -> dict:
    """BFCL's verdict on `model_output` (`[{bfcl_name: {param: value}}]`): `{"valid", "error", "error_type"}`."""
    ast_checker = checker(requirement)
    from bfcl_eval.constants.enums import Language  # importable once `checker` put the wheel on sys.path

    if not model_output:
        return {"valid": False, "error": ["No function call."], "error_type": "envscale:no_call"}
    try:
        return ast_checker(
            question.functions,
            model_output,
            question.possible_answer,
            Language.PYTHON,
            question.test_category,
            CHECKER_MODEL,
        )
    except Exception as exc:  # noqa: BLE001 - a malformed output the checker chokes on is a wrong answer
        return {"valid": False, "error": [f"{type(exc).__name__}: {exc}"], "error_type": "checker:exception"}


def _first_option(values: Any) -> tuple[bool, Any]:
    """(given?, value) of a possible-answer list: its first option other than "" (which means "left out")."""
    for value in values:
        if value != "":
            return True, _pick(value)
    return False, None


def _pick(value: Any) -> Any:
    if isinstance(value, dict):  # a nested object: each key's value is itself a list of options
        out = {}
        for k, options in value.items():
            given, v = _first_option(options) if isinstance(options, list) else (True, options)
            if given:
                out[k] = v
        return out
    if isinstance(value, list):  # a list of nested objects: each item picked the same way
        return [_pick(v) for v in value]
    return value


def gold_output(question: Question) -> list[dict]:
    """A correct model output built from the possible answers: the first option of every parameter that
    the function documents (a few possible answers name parameters their function does not have)."""
    documented = {
        f["name"]: set((f.get("parameters") or {}).get("properties") or {}) for f in question.functions
    }
    out = []
    for call in question.possible_answer:
        ((name, params),) = call.items()
        args = {}
        for param, options in params.items():
            given, value = _first_option(options)
            if given and param in documented.get(name, ()):
                args[param] = value
        out.append({name: args})
    return out


def gold_calls(question: Question) -> list[dict]:
    """The gold output as envscale gold calls (offered names), for the scripted agent."""
    offered = {v: k for k, v in question.names.items()}
    return [
        {"tool": offered.get(name, name), "arguments": args, "provenance": {}}
        for call in gold_output(question)
        for name, args in call.items()
    ]


def call_validity(question: Question, calls: list[dict]) -> list[bool]:
    """Per call: well formed (arguments parsed), naming an offered function, arguments valid for its schema."""
    import jsonschema

    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in question.tools}
    out = []
    for call in calls:
        schema = schemas.get(call.get("name"))
        args = call.get("arguments")
        if schema is None or call.get("error") or not isinstance(args, dict):
            out.append(False)
            continue
        try:
            jsonschema.validate(args, schema)
            out.append(True)
        except jsonschema.ValidationError:
            out.append(False)
        except jsonschema.SchemaError:
            out.append(True)  # a schema no validator accepts cannot fault the call
    return out


def scripted_task(question: Question) -> dict:
    """The task a scripted agent plays for a question: its gold output as gold calls (a harness check)."""
    return {
        "task_id": question.id,
        "kind": question.category,
        "tools": list(question.names),
        "gold_calls": gold_calls(question),
        "gold_results": [],
        "instructions": {},
    }


async def ask(speaker: Any, question: Question) -> dict:
    """Ask one question; the reply's tool calls, BFCL's verdict on them, and their validity.

    Returns `{"output", "calls", "content", "valid_calls", "verdict", "latency_s", "usage"}`; `output` is
    what the checker read (`[{bfcl_name: arguments}]`), or None when a call's arguments could not be parsed
    (BFCL's decoder would fail: the answer is wrong).
    """
    turn = await speaker.complete([dict(m) for m in question.messages], question.tools)
    calls = [{"name": c.name, "arguments": c.arguments, "error": c.error} for c in turn.tool_calls]
    if any(c["error"] or not isinstance(c["arguments"], dict) for c in calls):
        output = None
        verdict = {
            "valid": False,
            "error": ["unparseable arguments"],
            "error_type": "ast_decoder:decoder_failed",
        }
    else:
        output = [{question.names.get(c["name"], c["name"]): c["arguments"]} for c in calls]
        verdict = score(question, output)
    return {
        "output": output,
        "calls": calls,
        "content": turn.content,
        "valid_calls": call_validity(question, calls),
        "verdict": verdict,
        "latency_s": turn.latency_s,
        "usage": turn.usage,
    }
