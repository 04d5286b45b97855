"""`envscale export`: the fixture pipeline's tasks written as OpenEnv, ORS, Harbor and verifiers environments,
each loaded back by that project's own code, and paid 1.0 for the gold calls and 0.0 for doing nothing.

The tasks are the fixture pipeline's (collect -> graph -> materialize -> tasks, `conftest.fixture_environments`).
Every format's package is installed by `make install` (a missing one fails its test, never skips it): openenv-core
through `envscale[export]`; openreward, verifiers 0.2 and Harbor with `--no-deps`, because their pins clash with
`envscale[serve]` (sse-starlette, mcp) or the Python version (Harbor declares 3.12; its task model runs on 3.11).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pydantic
import pytest

from envscale.entry import run_command
from envscale.export import make_parser
from envscale.export.build import export
from envscale.export.episodes import Catalogue
from envscale.export.harbor import task_folder_name
from envscale.export.verifiers import env_id, module_name
from envscale.rl.reward import gold_answer, outcome_reward
from envscale.tasks.build import TasksConfig, generate_tasks

SPLIT = "train"


@pytest.fixture(scope="module")
def tasks(fixture_environments, tmp_path_factory):
    config = TasksConfig(tasks_per_env=12, test_env_share=0.3, test_task_share=0.5, seed=1)
    return generate_tasks(fixture_environments, config, tmp_path_factory.mktemp("export") / "tasks")


def exported(tasks, tmp_path, fmt: str, name: str | None = None, **kwargs) -> tuple[Path, dict, Catalogue]:
    out = tmp_path / (name or fmt)
    summary = export(tasks, fmt, out, split=SPLIT, show_progress=False, **kwargs)
    assert summary["tasks"] > 0
    assert summary["rejected"] == summary["rejected_by_gate"].get("needs_user", 0)  # nothing else is refused
    return out, summary, Catalogue(out if fmt != "verifiers" else out / module_name(out))


def picks(catalogue: Catalogue) -> list[str]:
    """One task of each kind (read, write, policy, ...): the tasks each format is played on."""
    seen: dict[str, str] = {}
    for task_id in catalogue.task_ids():
        seen.setdefault(catalogue.entry(task_id)["task"]["kind"], task_id)
    return list(seen.values())


def succeeded(content: str) -> bool:
    """Whether a tool's answer (`envscale.rollout.episode.tool_content`) is a result, not `{"error", "code"}`."""
    value = json.loads(content)
    return not (isinstance(value, dict) and set(value) == {"error", "code"})


def gold_of(catalogue: Catalogue, task_id: str) -> tuple[list[dict], str]:
    task = catalogue.entry(task_id)["task"]
    return [{"tool": c["tool"], "arguments": c["arguments"]} for c in task["gold_calls"]], gold_answer(task)


# ----------------------------------------------------------------------------- what every format shares


def test_a_task_that_needs_a_user_is_left_out_with_the_reason(tasks, tmp_path):
    """No format carries a user simulator: a task whose user makes later requests or gives a fact only when asked
    could not be won, so it is listed in rejected.jsonl (code needs_user), never exported."""
    from envscale.rl.gates import needs_user

    assert needs_user({"requests": [{"text": "a"}, {"text": "b"}]}).startswith("2 requests")
    assert "only when asked" in needs_user({"instructions": {"hidden_facts": {"due date": "2026-01-11"}}})
    assert needs_user({"kind": "missing_info"})
    assert (
        needs_user({"kind": "write", "requests": [{"text": "a"}], "instructions": {"hidden_facts": {}}})
        is None
    )
    out, summary, catalogue = exported(tasks, tmp_path, "openenv")
    refused = [json.loads(line) for line in (out / "rejected.jsonl").read_text().splitlines()]
    wanting = {t["task_id"] for t in tasks.load("tasks", SPLIT) if needs_user(t)}
    assert wanting, "the fixture has tasks with several requests or held-back facts"
    assert {r["task_id"] for r in refused if r["code"] == "needs_user"} == wanting
    assert {r["code"] for r in refused} == {"needs_user"}
    assert all(r["detail"] and r["task_id"] not in catalogue.entries for r in refused)
    for task_id in catalogue.task_ids():
        assert needs_user(catalogue.entry(task_id)["task"]) is None
        system = catalogue.entry(task_id)["prompt"][0]["content"]
        assert (
            "ask the user" not in system and "never invent" in system
        )  # no one answers the agent's questions


def test_an_episode_pays_its_reward_once(tasks, tmp_path):
    out, summary, catalogue = exported(tasks, tmp_path, "openenv")
    task_id = catalogue.task_ids()[0]
    episode = catalogue.episode(task_id)
    calls, answer = gold_of(catalogue, task_id)
    for call in calls:
        episode.call(call["tool"], call["arguments"])
    assert episode.finish(answer)["reward"] == 1.0
    again = episode.finish(answer)
    assert again["reward"] == 0.0 and again["failed"] == ["episode_over"]
    assert episode.verdict["reward"] == 1.0 and not succeeded(
        episode.call(calls[0]["tool"], calls[0]["arguments"])
    )


# ----------------------------------------------------------------------------- verifiers


def scripted_client(replies: list[tuple[str | None, list[dict] | None]]):
    """A verifiers `Client` that answers each model request with the next scripted (text, tool calls)."""
    import verifiers as vf
    from verifiers.types import Response, ResponseMessage, ToolCall

    class Scripted(vf.Client):
        def setup_client(self, config):
            return None

        async def to_native_tool(self, tool):
            return tool

        async def to_native_prompt(self, messages):
            return messages, {}

        async def get_native_response(self, *args, **kwargs):
            raise NotImplementedError

        async def raise_from_native_response(self, response):
            return None

        async def from_native_response(self, response):
            return response

        async def close(self):
            return None

        async def get_response(self, prompt, model, sampling_args, tools=None, **kwargs):
            text, calls = replies.pop(0)
            tool_calls = [
                ToolCall(id=f"call_{i}", name=c["tool"], arguments=json.dumps(c["arguments"]))
                for i, c in enumerate(calls or [])
            ]
            message = ResponseMessage(
                content=text,
                tool_calls=tool_calls or None,
                finish_reason="tool_calls" if tool_calls else "stop",
                is_truncated=False,
            )
            return Response(id="scripted", created=0, model=model, message=message)

    return Scripted(object())


def test_verifiers_load_environment_pays_the_gold_calls_1_and_doing_nothing_0(tasks, tmp_path, monkeypatch):
    import verifiers as vf

    assert hasattr(vf, "ToolEnv"), f"verifiers {vf.__version__}: the export targets verifiers>=0.2.1,<0.3"
    out, summary, catalogue = exported(tasks, tmp_path, "verifiers")
    assert env_id(out) == "envscale-verifiers"  # named after its folder: two exports install side by side
    assert {"pyproject.toml", "envscale_verifiers/__init__.py"} <= set(summary["files"])
    monkeypatch.syspath_prepend(str(out))
    # verifiers' own loader: imports the module `envscale_verifiers` and calls its `load_environment()`
    env = vf.load_environment("envscale-verifiers")
    assert isinstance(env, vf.ToolEnv) and len(env.dataset) == summary["tasks"]
    rows = {json.loads(r["info"])["task_id"]: r for r in env.dataset}

    async def play(row, replies) -> float:
        state = await env.rollout(dict(row), scripted_client(replies), "scripted")
        await env.rubric.score_rollout(state)
        return state["reward"]

    for task_id in picks(catalogue):
        calls, answer = gold_of(catalogue, task_id)
        offered = [d["name"] for d in json.loads(rows[task_id]["info"])["tool_defs"]]
        assert offered == catalogue.entry(task_id)["tools"]
        assert asyncio.run(play(rows[task_id], [(None, calls), (answer, None)])) == 1.0, task_id
        assert asyncio.run(play(rows[task_id], [("I have done it.", None)])) == 0.0, task_id


# ----------------------------------------------------------------------------- OpenEnv


def test_openenv_server_pays_the_gold_calls_1_and_doing_nothing_0(tasks, tmp_path, monkeypatch):
    import openenv.core.env_server.http_server  # noqa: F401 - openenv-core, in envscale[export]
    from fastapi.testclient import TestClient
    from openenv.cli._validation import validate_multi_mode_deployment  # noqa: PLC2701 - openenv's validator

    out, summary, catalogue = exported(tasks, tmp_path, "openenv", name="envscale_openenv", max_tasks=6)
    assert {"openenv.yaml", "models.py", "server/app.py", "server/Dockerfile"} <= set(summary["files"])
    _, issues = validate_multi_mode_deployment(out)
    assert issues == ["Missing uv.lock - run 'uv lock' to generate it"]  # a lock needs the network: `uv lock`
    monkeypatch.syspath_prepend(str(tmp_path))
    package = importlib.import_module("envscale_openenv")  # the typed client and models import
    assert package.EnvscaleAction(tool="x").tool == "x"
    app = importlib.import_module("envscale_openenv.server.app").app

    def play(ws, task_id: str, calls: list[dict], answer: str) -> dict:
        ws.send_text(json.dumps({"type": "reset", "data": {"task_id": task_id}}))
        opened = json.loads(ws.receive_text())["data"]["observation"]
        assert opened["task_id"] == task_id and opened["prompt"][0]["role"] == "system"
        assert [t["function"]["name"] for t in opened["tools"]] == catalogue.entry(task_id)["tools"]
        for call in calls:
            ws.send_text(json.dumps({"type": "step", "data": call}))
            step = json.loads(ws.receive_text())["data"]
            assert step["done"] is False and succeeded(step["observation"]["result"]), step
        ws.send_text(json.dumps({"type": "step", "data": {"answer": answer}}))
        return json.loads(ws.receive_text())["data"]

    with TestClient(app) as client:
        assert client.get("/health").status_code == 200
        assert set(client.get("/schema").json()) >= {"action", "observation"}
        for task_id in picks(catalogue):
            calls, answer = gold_of(catalogue, task_id)
            with client.websocket_connect("/ws") as ws:
                end = play(ws, task_id, calls, answer)
                assert (end["done"], end["reward"]) == (True, 1.0), (task_id, end)
            with client.websocket_connect("/ws") as ws:
                end = play(ws, task_id, [], "Done.")
                assert (end["done"], end["reward"]) == (True, 0.0) and end["observation"]["failed"], task_id


# ----------------------------------------------------------------------------- ORS (OpenReward)


def test_ors_server_pays_the_gold_calls_1_and_doing_nothing_0(tasks, tmp_path):
    import openreward  # noqa: F401 - installed by `make install` (see the Makefile)
    from fastapi.testclient import TestClient
    from openreward.environments import Server
    from openreward.environments.session import call_session_tool, list_session_tools

    out, summary, catalogue = exported(tasks, tmp_path, "ors")
    spec = importlib.util.spec_from_file_location("exported_ors_server", out / "server.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    server = Server(module.ENVIRONMENTS)  # ORS's own checks: tools, splits, a prompt per class
    with TestClient(server.app) as client:
        names = client.get("/list_environments").json()
        assert sorted(names) == sorted(c.__name__.lower() for c in module.ENVIRONMENTS)
        assert client.get(f"/{names[0]}/tools").json()["terminal_tool"]["name"] == "answer"
    by_task = {
        t["task_id"]: cls for cls in module.ENVIRONMENTS for s in cls.list_splits() for t in cls.list_tasks(s)
    }
    assert set(by_task) == set(catalogue.task_ids())

    async def play(task_id: str, calls: list[dict], answer: str):
        env = by_task[task_id](task_spec={"task_id": task_id})
        listed = await list_session_tools(env, None)
        assert [t.name for t in listed.tools] == catalogue.entry(task_id)["tools"]
        for call in calls:
            result = await call_session_tool(env, None, call["tool"], call["arguments"])
            assert result.root.ok and succeeded(result.root.output.blocks[0].text), result
        end = await env.call_terminal_tool(answer)
        return end.root.output

    for task_id in picks(catalogue):
        calls, answer = gold_of(catalogue, task_id)
        gold = asyncio.run(play(task_id, calls, answer))
        assert (gold.reward, gold.finished) == (1.0, True), (task_id, gold)
        nothing = asyncio.run(play(task_id, [], "Done."))
        assert nothing.reward == 0.0 and nothing.metadata["failed"], task_id


# ----------------------------------------------------------------------------- Harbor


def harbor_run(folder: Path, script: str, state: Path, reward_dir: Path) -> str:
    """Run a task's script as the container would (its `envscale-tool` on PATH), the reward file's text after."""
    env = {
        **os.environ,
        "PATH": f"{folder / 'environment'}:{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
        "ENVSCALE_DATA": str(folder / "environment" / "data"),
        "ENVSCALE_STATE": str(state),
        "ENVSCALE_REWARD_DIR": str(reward_dir),
    }
    done = subprocess.run(
        ["bash", str(folder / script)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return (reward_dir / "reward.txt").read_text().strip() if (reward_dir / "reward.txt").exists() else ""


def test_harbor_tasks_pay_the_oracle_1_and_doing_nothing_0(tasks, tmp_path):
    import tomllib

    out, summary, catalogue = exported(tasks, tmp_path, "harbor", max_tasks=4)
    write = min(  # the write task with the fewest gold calls: each call is one `envscale-tool` process
        (t for t in catalogue.task_ids() if catalogue.entry(t)["task"]["kind"] == "write"),
        key=lambda t: len(catalogue.entry(t)["task"]["gold_calls"]),
    )
    folder = out / task_folder_name(write)
    for part in (
        "task.toml",
        "instruction.md",
        "environment/Dockerfile",
        "tests/test.sh",
        "solution/solve.sh",
    ):
        assert (folder / part).is_file(), part
    config = tomllib.loads((folder / "task.toml").read_text())
    assert config["schema_version"] == "1.4" and config["metadata"]["envscale_task_id"] == write
    assert catalogue.entry(write)["prompt"][1]["content"] in (folder / "instruction.md").read_text()
    assert harbor_run(folder, "solution/solve.sh", tmp_path / "gold", tmp_path / "unused") == ""
    assert harbor_run(folder, "tests/test.sh", tmp_path / "gold", tmp_path / "logs_gold") == "1.0"
    assert harbor_run(folder, "tests/test.sh", tmp_path / "idle", tmp_path / "logs_idle") == "0.0"
    verdict = json.loads((tmp_path / "logs_idle" / "envscale_verdict.json").read_text())
    assert "state" in verdict["failed"]
    # The agent's container holds no answer key: its copy of the task has only what starts the episode
    from envscale.export.harbor import PUBLIC_TASK_KEYS

    agent_copy = json.loads((folder / "environment" / "data" / "tasks.jsonl").read_text().splitlines()[0])
    assert set(agent_copy["task"]) <= set(PUBLIC_TASK_KEYS)
    assert "gold" not in json.dumps(agent_copy) and "answer_facts" not in json.dumps(agent_copy)
    judge_copy = json.loads((folder / "tests" / "data" / "tasks.jsonl").read_text().splitlines()[0])
    assert judge_copy["task"]["gold_calls"] == catalogue.entry(write)["task"]["gold_calls"]


def test_harbor_tasks_validate_against_harbor_s_own_task_model(tasks, tmp_path):
    """Harbor's own pydantic `TaskConfig` (its published task.toml schema) reads every exported `task.toml`.

    Harbor declares Python >= 3.12 (its `Task` class uses `typing.override`); on 3.11 `make install` installs it with
    `--no-deps --ignore-requires-python`, and its config model, which runs on 3.11, is what validates here. Where
    Harbor's whole `Task` loader imports (Python 3.12+), it loads each folder too."""
    from harbor.models.task.config import TaskConfig

    out, summary, catalogue = exported(tasks, tmp_path, "harbor", max_tasks=3)
    folders = [out / task_folder_name(t) for t in catalogue.task_ids()]
    for folder, task_id in zip(folders, catalogue.task_ids(), strict=True):
        config = TaskConfig.model_validate_toml((folder / "task.toml").read_text())
        assert config.metadata["envscale_task_id"] == task_id
        assert (folder / "tests" / "test.sh").is_file() and (folder / "instruction.md").read_text().strip()
    broken = tomllib.loads((folders[0] / "task.toml").read_text())
    broken.setdefault("verifier", {})["timeout_sec"] = "soon"
    with pytest.raises(pydantic.ValidationError, match="timeout_sec"):  # the model is a real check
        TaskConfig.model_validate(broken)
    if sys.version_info >= (3, 12):
        from harbor.models.task.task import Task

        for folder, task_id in zip(folders, catalogue.task_ids(), strict=True):
            assert Task(folder).config.metadata["envscale_task_id"] == task_id


# ----------------------------------------------------------------------------- TRL


def test_an_exported_environment_drives_trl_s_environment_factory(tasks, tmp_path):
    """The exported data as TRL's `environment_factory`: instances reset with the row, the public methods are the
    tools (TRL reads them with `get_json_schema`), and the reward function judges the instances."""
    from transformers.utils import get_json_schema

    out, _, catalogue = exported(tasks, tmp_path, "openenv", max_tasks=6)
    rows, factory = Catalogue(out / "data").trl()
    for row in rows:
        task_id = row["task_id"]
        cls = factory[row["environment"]]
        public = [
            n for n in vars(cls) if not n.startswith("_") and callable(getattr(cls, n)) and n != "reset"
        ]
        schemas = {get_json_schema(getattr(cls(), n))["function"]["name"]: n for n in public}
        assert sorted(schemas) == sorted(catalogue.entry(task_id)["tools"])
        calls, answer = gold_of(catalogue, task_id)
        doer, idler = cls(), cls()
        for instance in (doer, idler):
            assert instance.reset(**{k: v for k, v in row.items() if k != "environment"}) is None
        for call in calls:
            assert succeeded(getattr(doer, schemas[call["tool"]])(**call["arguments"]))
        completion = [{"role": "assistant", "content": answer}]
        assert outcome_reward([completion, "Done."], [doer, idler]) == [1.0, 0.0], task_id


def test_trl_s_grpo_trainer_trains_on_an_exported_environment(tasks, tmp_path, monkeypatch):
    """Real GRPO steps of TRL's own `GRPOTrainer` on an export's `Catalogue.trl()`: a tiny policy that replays a
    write task's gold calls is paid 1.0 by the exported environment's reward, every step."""
    from datasets import Dataset
    from tinymodel import build_tiny_chat_model, tiny_grpo_args, tool_call_reply
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOTrainer

    from envscale.rl.run import prepare_tokenizer

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    out, _, catalogue = exported(tasks, tmp_path, "openenv")
    rows, factory = catalogue.trl()
    row = next(  # a write task scored on its state whose gold calls the tiny policy writes in one reply
        r
        for r in rows
        if catalogue.entry(r["task_id"])["task"]["kind"] == "write"
        and not catalogue.entry(r["task_id"])["task"]["answer_facts"]
        and len(catalogue.entry(r["task_id"])["task"]["gold_calls"]) <= 3
    )
    task = catalogue.entry(row["task_id"])["task"]
    model_dir = build_tiny_chat_model(
        tmp_path / "gold", reply=tool_call_reply(task["gold_calls"]), max_positions=8192
    )
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    prepare_tokenizer(tokenizer)
    args = tiny_grpo_args(tmp_path / "grpo")
    trainer = GRPOTrainer(
        model=AutoModelForCausalLM.from_pretrained(model_dir),
        processing_class=tokenizer,
        args=args,
        train_dataset=Dataset.from_list([row]),
        environment_factory={row["environment"]: factory[row["environment"]]},
        reward_funcs=[outcome_reward],
    )
    trainer.train()
    logs = [h for h in trainer.state.log_history if "reward" in h]
    assert [h["reward"] for h in logs] == [1.0, 1.0]
    assert all(h["tools/call_frequency"] > 0 for h in logs)


# ----------------------------------------------------------------------------- the command


def command(argv: list[str]) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    return run_command("export", args.func, args)


def test_the_command_writes_lists_rejects_and_shows_progress(tasks, tmp_path, monkeypatch, capsys, caplog):
    """One environment that cannot be built is left out with its reason; the others are exported."""
    import envscale.rl.spec as spec_module

    real, broken = spec_module.Environment, "domain_1_shop"

    def build(spec, **kwargs):
        if spec["name"] == broken:
            raise ValueError("the spec is broken on purpose")
        return real(spec, **kwargs)

    monkeypatch.setattr(spec_module, "Environment", build)
    out = tmp_path / "ors"
    rc = command(["--format", "ors", "--input", str(tasks.location), "--output", str(out), "--split", SPLIT])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert "export ors" in captured.err  # the tqdm bar over the tasks
    rejected = [json.loads(line) for line in (out / "rejected.jsonl").read_text().splitlines()]
    broken_ones = [r for r in rejected if r["code"] == "environment_error"]
    assert broken_ones and {r["environment"] for r in broken_ones} == {broken}
    assert all("broken on purpose" in r["detail"] for r in broken_ones)
    assert {r["code"] for r in rejected} <= {"environment_error", "needs_user"}
    assert f"environment {broken!r} could not be built" in captured.out
    assert any(broken in r.getMessage() and "broken on purpose" in r.getMessage() for r in caplog.records)
    summary = json.loads((out / "export.json").read_text())
    assert summary["rejected_environments"] == [broken] and summary["tasks"] > 0
    assert broken not in Catalogue(out).specs


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--format", "ors", "--input", "{missing}", "--output", "{out}"], "missing"),
        (["--format", "ors", "--input", "{tasks}", "--output", "{out}", "--environments", "nope"], "'nope'"),
        (["--format", "ors", "--input", "{tasks}", "--output", "{out}", "--split", "dev"], "'dev'"),
    ],
)
def test_bad_input_is_one_line_naming_the_record(tasks, tmp_path, capsys, argv, says):
    fields = {
        "missing": str(tmp_path / "missing"),
        "out": str(tmp_path / "out"),
        "tasks": str(tasks.location),
    }
    assert command([a.format(**fields) for a in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("envscale export: error:") and says in err[0], err


def test_an_unknown_format_is_refused_in_one_line(tasks, tmp_path, capsys):
    with pytest.raises(SystemExit):
        make_parser().parse_args(["--format", "gym", "--input", "x", "--output", "y"])
    assert "invalid choice: 'gym'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="unknown export format 'gym'; expected one of openenv, ors, harbor"):
        export(tasks, "gym", tmp_path / "out")
