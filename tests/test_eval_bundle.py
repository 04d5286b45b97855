"""Every eval carries a reproducibility bundle: the exact ids evaluated, each agent's model and sampling settings,
the trainer config of a model `envscale train` made, the benchmark and library versions, the seed, the command.

One eval on the fixture pipeline's held-out tasks has three agents: the scripted gold agent, `tests/tinymodel`'s
2-layer Llama as it is, and the same model after one LoRA step of the real `envscale train` (so its folder holds
the `training.json` that stage writes). The bundle is read back from the card, from `envscale show eval`, from
`datasets.load_dataset(PATH, "bundle")` and from the manifest; a BFCL run of three questions names the bfcl-eval
wheel and data files; an `envscale eval` command records its flags and a command line that makes the same config.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
import torch
from datasets import load_dataset
from tinymodel import build_tiny_chat_model

from envscale.artifacts import ArtifactWriter, open_artifact
from envscale.cli import main
from envscale.evaluation.bundle import ids_digest, trainer_config
from envscale.evaluation.run import EvalConfig, evaluate
from envscale.schemas import EVAL, FILTERED
from envscale.tasks.build import TasksConfig, generate_tasks

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_forecast",
        "description": "The weather forecast of a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    },
}


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """One torch thread: on 2 shared cores a tiny model's steps are ~10x slower with torch's spinning threads."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tasks(fixture_environments, tmp_path_factory):
    config = TasksConfig(tasks_per_env=6, test_env_share=0.3, test_task_share=0.3, seed=9)
    return generate_tasks(fixture_environments, config, tmp_path_factory.mktemp("tasks") / "tasks")


def _filtered(root: Path):
    """A `filtered` artifact of four weather conversations (what `envscale train` reads)."""
    rows = []
    for i in range(4):
        messages = [
            {"role": "system", "content": "You are a helpful assistant with weather tools."},
            {"role": "user", "content": f"What is the weather in Lyon for the next {i + 1} days?"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": "w1",
                        "type": "function",
                        "function": {"name": "get_forecast", "arguments": {"city": "Lyon", "days": i + 1}},
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": "w1",
                "name": "get_forecast",
                "content": '{"forecast": ["sun"]}',
            },
            {"role": "assistant", "content": "Lyon: sunny."},
        ]
        rows.append(
            {
                "trajectory_id": f"weather-{i}#0",
                "task_id": f"weather-{i}",
                "trial": 0,
                "seed": i,
                "environment": "domain_1_weather",
                "environment_ref": "environments@v1",
                "domain_id": 1,
                "kind": "lookup",
                "split": "train",
                "messages": messages,
                "tools": [WEATHER],
                "calls": [],
                "final_answer": "done",
                "status": "completed",
                "passed": True,
                "failed_checks": [],
            }
        )
    with ArtifactWriter(root, FILTERED, "bundle-train-data") as writer:
        out = writer.shard_writer("filtered")
        out.write_many(rows)
        counts = {
            "filtered": out.close(),
            "rejected": writer.shard_writer("rejected").close(),
            "pass_rates": 0,
        }
        per_env = {"domain_1_weather": {"episodes": 4, "passed": 4, "rate": 1.0}}
        stats = {
            "trajectories": 4,
            "passed": 4,
            "pass_rate": 1.0,
            "levels": ["ended", "format"],
            "environments": 1,
            "environments_with_a_pass": 1,
            "per_check": {},
            "failed_on": {},
            "per_kind": {"lookup": {"episodes": 4, "passed": 4, "rate": 1.0}},
            "per_environment": per_env,
            "tasks_judged": 0,
        }
        writer.commit(counts, stats)
    return open_artifact(root, expect_kind="filtered")


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """(the tiny model's folder, the filtered artifact, the stage-1 LoRA folder `envscale train` wrote from it)."""
    from envscale.training import TrainConfig, train

    root = tmp_path_factory.mktemp("models")
    tiny = build_tiny_chat_model(root / "tiny", max_positions=8192)
    filtered = _filtered(root / "filtered")
    config = TrainConfig(
        model=str(tiny),
        stages=[1],
        max_steps=1,
        per_device_train_batch_size=2,
        learning_rate=1e-3,
        max_length=1024,
        use_peft=True,
        lora_r=4,
        lora_alpha=8,
        seed=7,
    )
    result = train(filtered, config, root / "run")
    return tiny, filtered, result.stages[0].folder


AGENTS = {
    "gold": {"kind": "scripted"},
    "base": {"kind": "transformers", "max_tokens": 8, "temperature": 0.0},
    "tuned": {"kind": "transformers", "max_tokens": 8, "temperature": 0.7, "top_p": 0.9},
}


@pytest.fixture(scope="module")
def three(tasks, models, tmp_path_factory):
    tiny, _, stage1 = models
    agents = {
        "gold": AGENTS["gold"],
        "base": {**AGENTS["base"], "model": str(tiny)},
        "tuned": {**AGENTS["tuned"], "model": str(stage1)},
    }
    config = EvalConfig(agents=agents, max_tasks=2, max_turns=1, seed=5, user={"kind": "scripted"})
    return evaluate(tasks, config, tmp_path_factory.mktemp("three") / "eval")


def _bundle(art) -> dict:
    return art.manifest["stats"]["bundle"]


def _rounded(value):
    """`value` with floats rounded to 12 digits: `datasets` decodes `Json` columns with ujson, whose floats may
    differ from Python's in the last bit (0.7 reads back as 0.7000000000000001; the file holds 0.7)."""
    if isinstance(value, float):
        return round(value, 12)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


# ----------------------------------------------------------------------------- what the bundle says


def test_the_bundle_names_the_exact_task_ids_evaluated(tasks, three):
    bundle = _bundle(three)
    results = list(load_dataset(three.location, "results", split="train"))
    evaluated = sorted({r["id"] for r in results})
    assert bundle["items"]["ids"] == evaluated and bundle["items"]["count"] == 2
    assert bundle["items"]["sha256"] == ids_digest(evaluated) and bundle["items"]["by_agent"] is None
    for agent in AGENTS:  # every agent played the same sampled tasks
        assert sorted({r["id"] for r in results if r["agent"] == agent}) == evaluated
    test_ids = set(tasks.load("tasks", "test")["task_id"])
    assert set(evaluated) <= test_ids
    split = bundle["tasks"]
    assert split["artifact"] == tasks.pinned and split["version"] == tasks.version == "v1"
    assert split["data_id"] == tasks.data_id and split["fingerprint"] == tasks.manifest["fingerprint"]
    assert split["split"] == "test" and split["split_rows"] == len(test_ids) and split["sampled"] is True
    assert split["environments"]["data_id"] == tasks.manifest["inputs"][0]["data_id"]
    assert bundle["seed"] == 5 and bundle["benchmark"] == "tasks"


def test_the_bundle_names_each_agents_model_sampling_and_trainer(models, three):
    tiny, filtered, stage1 = models
    agents = _bundle(three)["agents"]
    assert list(agents) == ["gold", "base", "tuned"]
    assert agents["gold"]["model"]["source"] == "scripted" and agents["gold"]["trainer"] is None
    for name in ("base", "tuned"):
        for key in ("temperature", "max_tokens"):
            assert agents[name]["sampling"][key] == AGENTS[name][key]
    assert agents["tuned"]["sampling"]["top_p"] == 0.9 and agents["base"]["sampling"]["top_p"] == 1.0
    base, tuned = agents["base"]["model"], agents["tuned"]["model"]
    assert base["source"] == "folder" and base["path"] == str(Path(tiny).resolve())
    assert base["lora_adapter"] is False and agents["base"]["trainer"] is None  # no record: null, not a guess
    assert tuned["path"] == str(Path(stage1).resolve()) and tuned["lora_adapter"] is True
    assert tuned["base_model"] == str(Path(tiny).resolve())  # the adapter's base, as train pointed it
    trainer = agents["tuned"]["trainer"]
    record = json.loads((Path(stage1) / "training.json").read_text())
    assert trainer["stage"] == "train" and trainer["sft_stage"] == 1
    assert trainer["base_model"]["model"] == str(tiny)
    assert trainer["dataset"]["pinned"] == filtered.pinned and trainer["dataset"]["version"] == "v1"
    assert trainer["dataset"]["data_id"] == filtered.data_id
    assert trainer["steps"] == 1 and trainer["learning_rate"] == 1e-3 and trainer["seed"] == 7
    assert trainer["lora"]["r"] == 4 and trainer["lora"]["alpha"] == 8
    assert trainer["fingerprint"] == record["fingerprint"] and trainer["config"] == record["config"]
    assert trainer["parent"] is None  # stage 1 starts from the base model, which has no record
    user = _bundle(three)["user"]
    assert user["backend"]["kind"] == "scripted" and user["sampling"]["temperature"] == 0.0


def test_the_bundle_records_benchmark_and_library_versions(three):
    import importlib.metadata

    bundle = _bundle(three)
    bench = bundle["benchmarks"]
    assert bench["eval_schema"] == EVAL.schema_version == three.manifest["schema_version"]
    assert bench["envscale"] == three.manifest["envscale_version"] and bench["bfcl"] is None
    assert bench["tau2"] is None and "state" in bench["judge"]["checks"]
    assert bench["judge"]["levels"] == list(three.manifest["config"]["levels"])
    for name in ("torch", "transformers", "trl", "datasets"):
        assert bundle["libraries"][name] == importlib.metadata.version(name)
    assert bundle["libraries"]["envscale"] and bundle["eval_config"] == three.manifest["config"]
    assert bundle["command"]["flags"] is None and bundle["command"]["argv"]  # evaluate() called from Python


def test_the_bundle_round_trips_through_load_dataset(three):
    rows = load_dataset(three.location, "bundle", split="train")
    assert rows.num_rows == 1 and three.manifest["counts"]["bundle"] == 1
    assert _rounded(rows[0]) == _rounded(_bundle(three))
    assert _rounded(three.load("bundle")[0]) == _rounded(_bundle(three))
    assert rows[0]["agents"]["tuned"]["sampling"]["temperature"] == pytest.approx(0.7)


def test_the_card_report_and_show_eval_have_the_reproducibility_section(three, capsys):
    card = (Path(three.location) / "README.md").read_text()
    assert "## Reproducibility" in card and "config_name: bundle" in card
    bundle = _bundle(three)
    for task_id in bundle["items"]["ids"]:
        assert f"`{task_id}`" in card
    section = card[card.index("## Reproducibility") : card.index("## Load it")]
    assert f"`{bundle['tasks']['artifact']}`" in section and "| split | `test`: 2 of" in section
    tuned = next(line for line in section.splitlines() if line.startswith("| `tuned` |"))
    assert "| 0.7 | 0.9 | 8 |" in tuned and "train stage 1" in tuned and "LoRA r=4 alpha=8" in tuned
    assert "seed 7" in tuned and bundle["agents"]["tuned"]["trainer"]["dataset"]["pinned"] in tuned
    base = next(line for line in section.splitlines() if line.startswith("| `base` |"))
    assert base.rstrip().endswith("| null |")
    assert f"transformers {bundle['libraries']['transformers']}" in card
    assert '"bundle", split="train")[0]' in card
    report = (Path(three.location) / "report.md").read_text()
    assert "## Reproducibility" in report and "train stage 1" in report
    assert main(["show", "eval", three.location]) == 0
    shown = capsys.readouterr().out
    assert "## Reproducibility" in shown and all(f"`{i}`" in shown for i in bundle["items"]["ids"])
    assert "to run it again: `envscale eval" in shown


# ----------------------------------------------------------------------------- BFCL, the command line, rl.json


def test_a_bfcl_run_names_the_bfcl_eval_wheel_and_its_data_files(tmp_path):
    config = EvalConfig(benchmark="bfcl", agent={"kind": "scripted"}, max_questions=3)
    art = evaluate(None, config, tmp_path / "bfcl")
    bundle = _bundle(art)
    bfcl = bundle["benchmarks"]["bfcl"]
    assert bfcl["requirement"] == "bfcl-eval==2026.3.23" and bfcl["version"] == "2026.3.23"
    assert bfcl["wheel"].startswith("bfcl_eval-2026.3.23") and len(bfcl["wheel_sha256"]) == 64
    simple = bfcl["files"]["simple"]
    assert simple["questions"]["file"].endswith("_simple_python.json") and simple["questions"]["data_version"]
    assert bundle["items"]["ids"] == ["simple_python_0", "simple_python_1", "simple_python_2"]
    assert bundle["tasks"] is None and bundle["user"] is None
    assert _rounded(load_dataset(art.location, "bundle", split="train")[0]) == _rounded(bundle)
    card = (Path(art.location) / "README.md").read_text()
    assert "| bfcl-eval | 2026.3.23" in card and "BFCL_v" in card


def test_envscale_eval_records_its_flags_and_a_command_that_makes_the_same_config(tasks, tmp_path, capsys):
    from envscale.stages.eval import STAGE

    out = tmp_path / "eval"
    argv = ["eval", "--input", tasks.location, "--output", str(out), "--max-tasks", "2", "--seed", "3"]
    argv += ["--agent", "before={kind: scripted, noise: {give_up: 1.0}}", "--agent", "after=scripted"]
    assert main(argv) == 0
    capsys.readouterr()
    art = open_artifact(out)
    command = _bundle(art)["command"]
    assert shlex.split(command["flags"])[:2] == ["envscale", "eval"]
    flags = shlex.split(command["flags"])
    assert flags[flags.index("--max-tasks") + 1] == "2" and flags.count("--agent") == 2
    assert "before={kind: scripted, noise: {give_up: 1.0}}" in flags
    # the command to run it again parses to the same config: the same fingerprint
    again = shlex.split(command["reproduce"])
    assert again[:2] == ["envscale", "eval"] and again[again.index("--input") + 1] == tasks.pinned
    args = STAGE.make_parser().parse_args(again[2:])
    from envscale.stages import RESERVED

    config = STAGE.config(None, {k: v for k, v in vars(args).items() if k not in RESERVED})
    assert config.fingerprint(tasks.content_key) == art.manifest["fingerprint"]


def test_trainer_config_reads_rl_json_and_follows_it_to_the_train_output(models, tmp_path):
    _, _, stage1 = models
    folder = tmp_path / "rl"
    folder.mkdir()
    # the keys `envscale.rl.run.train_rl` writes into rl.json
    record = {
        "kind": "rl",
        "tasks": {"path": "/t/tasks", "version": "v2", "data_id": "abcd", "pinned": "/t/tasks@v2"},
        "config": {
            "model": str(stage1),
            "revision": None,
            "split": "train",
            "max_steps": 3,
            "learning_rate": 1e-5,
            "seed": 11,
            "use_peft": True,
            "lora_r": 16,
            "lora_alpha": 32,
            "lora_target_modules": ["all-linear"],
        },
        "reward": "outcome",
        "history": [{"step": 1, "reward": 0.0}, {"step": 3, "reward": 0.5}],
        "versions": {"trl": "x"},
        "eval_results": {},
    }
    (folder / "rl.json").write_text(json.dumps(record))
    trainer = trainer_config(folder)
    assert trainer["stage"] == "rl" and trainer["steps"] == 3 and trainer["seed"] == 11
    assert trainer["dataset"]["pinned"] == "/t/tasks@v2" and trainer["dataset"]["version"] == "v2"
    assert trainer["lora"] == {"r": 16, "alpha": 32, "target_modules": ["all-linear"]}
    assert trainer["parent"]["stage"] == "train" and trainer["parent"]["sft_stage"] == 1
    (folder / "rl.json").write_text(json.dumps({"kind": "rl"}))  # a record without the values: null, no guess
    bare = trainer_config(folder)
    assert bare["seed"] is None and bare["learning_rate"] is None and bare["dataset"] is None
    assert trainer_config(tmp_path / "nothing") is None


def test_an_api_key_given_in_a_flag_is_never_recorded(monkeypatch):
    from envscale.evaluation.bundle import invocation

    secret = "sk-do-not-write"
    flags = {"agent": [[f"after={{kind: endpoint, base_url: http://h/v1, model: m, api_key: {secret}}}"]]}
    monkeypatch.setattr(
        "sys.argv", ["envscale", "eval", "--agent", f"kind=endpoint,api_key={secret},model=m"]
    )
    config = EvalConfig(
        agent={"kind": "endpoint", "base_url": "http://h/v1", "model": "m", "api_key": secret}
    )
    command = invocation(flags, config.public(), EvalConfig().public(), None)
    assert secret not in json.dumps(command) and "api_key: ***" in command["flags"]


def test_an_eval_written_before_the_bundle_still_opens_with_an_empty_bundle(three, tmp_path, capsys):
    """Eval schema 1.1 had no `bundle` config: such an artifact opens, its bundle reads as empty and its report says
    there is none, while a 1.2 artifact that lacks the config is damaged and refused."""
    import shutil

    from envscale.artifacts import open_artifact
    from envscale.errors import ArtifactError

    old = tmp_path / "eval"
    shutil.copytree(three.location, old)
    for manifest in (old / "envscale.json", old / "versions" / three.version / "envscale.json"):
        data = json.loads(manifest.read_text())
        data["counts"].pop("bundle")
        data.get("splits", {}).pop("bundle", None)
        data["stats"].pop("bundle", None)
        data["files"] = {k: v for k, v in data.get("files", {}).items() if not k.startswith("bundle/")}
        data["schema_version"] = "1.1"
        manifest.write_text(json.dumps(data))
    shutil.rmtree(old / "versions" / three.version / "bundle")
    (old / "versions" / three.version / "report.md").unlink()
    art = open_artifact(old)
    assert len(art.load("bundle")) == 0 and len(art.load("summary")) > 0
    assert main(["show", "eval", str(old)]) == 0
    assert "No reproducibility bundle" in capsys.readouterr().out
    for manifest in (old / "envscale.json", old / "versions" / three.version / "envscale.json"):
        data = json.loads(manifest.read_text())
        data["schema_version"] = "1.2"
        manifest.write_text(json.dumps(data))
    with pytest.raises(ArtifactError, match="lack configs"):
        open_artifact(old)
