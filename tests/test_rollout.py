"""`envscale rollout` and `envscale filter` on real tasks from the real pipeline, with the scripted backends.

The tasks come from collect -> graph -> materialize -> tasks over the shop's OpenAPI spec and the
BFCL-style fixture docs. A noise-free scripted agent must reach every task's gold outcome (so every
trajectory passes the filter); a noisy one must not (so the filter has work, and each check catches
what it is meant to); hand-made trajectories pin each check down; a run interrupted part-way resumes
to exactly the episodes asked for.
"""

import asyncio
import json
import random

import pytest
from datasets import load_dataset

import envscale.rollout.run as rollout_module
from envscale.cli import main
from envscale.env import Environment
from envscale.judge import check_format, check_trajectory, exact_match, verdict
from envscale.judge.filter import FilterConfig, filter_trajectories
from envscale.rollout.backends import BackendConfig
from envscale.rollout.episode import run_episode
from envscale.rollout.run import PARTS_FILE, RolloutConfig, rollout
from envscale.rollout.scripted import ScriptedAgent, ScriptedUser
from envscale.schemas import STOP
from envscale.tasks.build import TasksConfig, generate_tasks

NOISE = {
    "wrong_argument": 0.15,
    "missing_argument": 0.2,
    "extra_call": 0.2,
    "wrong_tool": 0.1,
    "give_up": 0.05,
}


@pytest.fixture(scope="module")
def tasks(fixture_environments, tmp_path_factory):
    root = tmp_path_factory.mktemp("rollout")
    config = TasksConfig(tasks_per_env=18, test_env_share=0.0)
    return generate_tasks(fixture_environments, config, root / "tasks")


@pytest.fixture(scope="module")
def clean(tasks, tmp_path_factory):
    root = tmp_path_factory.mktemp("clean")
    traj = rollout(tasks, RolloutConfig(concurrency=8), root / "trajectories")
    return traj, filter_trajectories(
        traj,
        FilterConfig(levels=["ended", "format", "state", "answer", "actions", "policy", "exact"]),
        root / "filtered",
    )


@pytest.fixture(scope="module")
def noisy(tasks, tmp_path_factory):
    root = tmp_path_factory.mktemp("noisy")
    config = RolloutConfig(agent={"kind": "scripted", "noise": NOISE}, trials=2, concurrency=8)
    traj = rollout(tasks, config, root / "trajectories")
    return traj, filter_trajectories(traj, FilterConfig(), root / "filtered")


def _env_rows(tasks):
    from envscale.artifacts import resolve_input

    return {r["name"]: r for r in resolve_input(tasks, "environments").load("environments")}


def _task_rows(tasks):
    return {t["task_id"]: t for t in tasks.load("tasks", "train")}


# ----------------------------------------------------------------------------- whole runs


def test_a_noise_free_scripted_agent_passes_every_task_at_the_strict_level(tasks, clean):
    traj, filtered = clean
    episodes = load_dataset(traj.location, "trajectories", split="train")
    kinds = set(episodes["kind"])
    assert episodes.num_rows == tasks.splits["tasks"]["train"] >= 20
    assert {"read", "write"} <= kinds and len(kinds) >= 3
    assert set(episodes["status"]) == {"completed"}
    stats = filtered.manifest["stats"]
    assert stats["passed"] == episodes.num_rows, stats["failed_on"]
    assert all(c["rate"] == 1.0 for c in stats["per_check"].values())
    kept = load_dataset(filtered.location, "filtered", split="train")
    assert kept.num_rows == episodes.num_rows
    # the SFT conversation ends with the agent's answer; the user's stop message is kept in trajectories
    assert all(row["messages"][-1]["role"] == "assistant" for row in kept)
    assert all(STOP in row["messages"][-1]["content"] for row in episodes)


def test_the_agent_gets_the_tasks_tools_and_the_policy_and_a_write_reaches_the_gold_state(tasks, clean):
    traj, _ = clean
    envs, by_id = _env_rows(tasks), _task_rows(tasks)
    rows = list(load_dataset(traj.location, "trajectories", split="train"))
    for row in rows:
        task = by_id[row["task_id"]]
        assert [t["function"]["name"] for t in row["tools"]] == task["tools"]
        if task["policy"]["text"]:
            assert task["policy"]["text"] in row["messages"][0]["content"]
    write = next(r for r in rows if by_id[r["task_id"]]["kind"] == "write")
    task = by_id[write["task_id"]]
    assert write["final_state_hash"] == task["gold_state_hash"]
    # replayed by hand, as a person would: the calls the agent made change what the task asked
    env = Environment.from_row(envs[task["environment"]])
    before = env.snapshot()
    for call in write["calls"]:
        assert env.step(call["tool"], call["arguments"])["ok"]
    assert env.diff(before) == task["gold_diff"]


def test_a_noisy_agent_gives_the_filter_work_and_each_check_catches_its_mistake(noisy):
    traj, filtered = noisy
    stats = filtered.manifest["stats"]
    rejected = list(load_dataset(filtered.location, "rejected", split="train"))
    kept = list(load_dataset(filtered.location, "filtered", split="train"))
    assert kept and rejected and stats["pass_rate"] < 0.95
    # trials are distinct episodes with their own seeds
    episodes = load_dataset(traj.location, "trajectories", split="train")
    assert episodes.num_rows == 2 * len(set(episodes["task_id"]))
    assert len(set(episodes["seed"])) == episodes.num_rows
    # recovered errors (a refused call, then the right one) are kept: outcome reached, errors allowed
    recovered = [r for r in kept if r["n_errors"] > 0]
    assert recovered and all(r["check_state"] is not False for r in recovered)
    assert all(
        not r["check_schema"] for r in recovered if any(c["code"] == "invalid_arguments" for c in r["calls"])
    )
    # every rejected trajectory failed a required check, and says which
    assert all(r["failed_checks"] and not r["passed"] for r in rejected)
    gave_up = [r for r in rejected if "not able to complete" in (r["final_answer"] or "")]
    assert all(r["check_state"] is False or r["check_answer"] is False for r in gave_up)
    card = (filtered.data_dir / "README.md").read_text()
    assert "Pass rate per check" in card and "Pass rate per task kind" in card


def test_one_trl_sft_step_on_filtered_as_load_dataset_returns_it(clean, tmp_path):
    """The SFT data trains as it is loaded: TRL renders messages with tool calls and tools, masks all
    but the assistant turns, and takes an optimizer step that changes the weights."""
    import torch
    from tinymodel import build_tiny_chat_model
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    from envscale.chat_templates import ensure_tool_template

    _, filtered = clean
    data = load_dataset(filtered.location, "filtered", split="train")
    with_calls = data.filter(lambda r: any(m.get("tool_calls") for m in r["messages"])).select(range(4))
    folder = build_tiny_chat_model(tmp_path / "model", max_positions=4096)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    assert ensure_tool_template(tokenizer)
    model = AutoModelForCausalLM.from_pretrained(folder)
    before = [p.detach().clone() for p in model.parameters()]
    args = SFTConfig(
        output_dir=str(tmp_path / "out"),
        assistant_only_loss=True,
        max_steps=1,
        per_device_train_batch_size=2,
        max_length=4096,
        use_cpu=True,
        report_to=[],
        activation_checkpointing=False,
        save_strategy="no",
    )
    trainer = SFTTrainer(model=model, args=args, train_dataset=with_calls, processing_class=tokenizer)
    row = trainer.train_dataset[0]
    trained = [i for i, label in zip(row["input_ids"], row["labels"], strict=True) if label != -100]
    text = tokenizer.decode(trained)
    assert "<tool_call>" in text and "<tool_response>" not in text and "<|im_start|>user" not in text
    result = trainer.train()
    assert result.global_step == 1 and torch.isfinite(torch.tensor(result.training_loss))
    assert any(not torch.equal(a, b.detach()) for a, b in zip(before, model.parameters(), strict=True))


# ----------------------------------------------------------------------------- hand-made trajectories


def _trajectory(task, calls, answer, status="completed"):
    messages = [{"role": "system", "content": "policy"}, {"role": "user", "content": task["first_message"]}]
    made = []
    for i, call in enumerate(calls):
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": f"c{i}",
                        "type": "function",
                        "function": {"name": call["tool"], "arguments": call["arguments"]},
                    }
                ],
            }
        )
        messages.append(
            {"role": "tool", "tool_call_id": f"c{i}", "content": json.dumps(call.get("result", {}))}
        )
        made.append(
            {
                "tool": call["tool"],
                "arguments": call["arguments"],
                "ok": call.get("ok", True),
                "code": call.get("code"),
            }
        )
    messages += [{"role": "assistant", "content": answer}, {"role": "user", "content": STOP}]
    return {"messages": messages, "calls": made, "final_answer": answer, "status": status}


def _levels(checks):
    return verdict(checks, ["ended", "format", "schema", "state", "answer", "actions", "policy", "exact"])[0]


def test_hand_made_trajectories_perfect_noop_recovered_and_policy_breaking(tasks):
    envs, rows = _env_rows(tasks), list(tasks.load("tasks", "train"))
    # the shortest write task (a journey: the row is looked up and read before the write)
    write = min((t for t in rows if t["kind"] == "write"), key=lambda t: len(t["gold_calls"]))
    env = Environment.from_row(envs[write["environment"]])
    gold = [{"tool": c["tool"], "arguments": c["arguments"]} for c in write["gold_calls"]]
    kinds = {t["name"]: t["kind"] for t in env.spec["tools"]}
    acting = next(c["tool"] for c in gold if kinds[c["tool"]] == "write")

    perfect = check_trajectory(_trajectory(write, gold, "Done."), write, env)
    assert _levels(perfect), perfect
    noop = check_trajectory(_trajectory(write, [], "Done."), write, env)
    assert noop["state"] is False and not _levels(noop)

    broken = {"tool": acting, "arguments": {}, "ok": False, "code": "invalid_arguments"}
    recovered = check_trajectory(_trajectory(write, [broken, *gold], "Done."), write, env)
    assert recovered["state"] and recovered["exact"] and not recovered["schema"]
    assert verdict(recovered, FilterConfig().levels)[0]  # errors are allowed by default

    policy = next((t for t in rows if t["kind"] == "policy"), None)
    assert policy is not None, "the fixture tasks have a policy task"
    penv = Environment.from_row(envs[policy["environment"]])
    gold_p = [{"tool": c["tool"], "arguments": c["arguments"]} for c in policy["gold_calls"]]
    refusal = (
        "I can't do that under our policy: the order is already " + " and ".join(policy["answer_facts"]) + "."
    )
    assert _levels(check_trajectory(_trajectory(policy, gold_p, refusal), policy, penv))
    # the environment refuses the forbidden call of a policy it enforces: trying is no breach
    forbidden = policy["scoring"]["forbidden_actions"][0]
    attempt = (policy["policy"]["task_rule"] or {})["attempt"]
    refused = {"tool": forbidden, "arguments": attempt["arguments"], "ok": False, "code": "precondition"}
    assert _levels(check_trajectory(_trajectory(policy, [*gold_p, refused], refusal), policy, penv))
    # a policy given as text only (the environment would allow the call): doing it anyway breaks it
    text_only = {
        **write,
        "kind": "policy",
        "scoring": {**write["scoring"], "forbidden_actions": [acting]},
    }
    breaking = check_trajectory(_trajectory(text_only, gold, "Done."), text_only, env)
    assert breaking["policy"] is False and not verdict(breaking, FilterConfig().levels)[0]


def test_format_and_exact_checks_on_small_cases():
    ok = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "a", "type": "function", "function": {"name": "t", "arguments": {}}}],
        },
        {"role": "tool", "tool_call_id": "a", "content": "{}"},
        {"role": "assistant", "content": "done"},
    ]
    assert check_format(ok)
    assert not check_format(ok[:3])  # a call never answered
    assert not check_format([ok[0], ok[2], *ok[3:]])  # the agent speaks first
    bad_args = json.loads(json.dumps(ok))
    bad_args[2]["tool_calls"][0]["function"]["arguments"] = '{"x": '
    assert not check_format(bad_args)
    gold = [
        {"tool": "get", "arguments": {"id": 1}, "provenance": {"id": "user"}},
        {"tool": "get", "arguments": {"id": 2}, "provenance": {"id": "user"}},
        {"tool": "set", "arguments": {"id": 1, "x": 5}, "provenance": {"id": "call[0].id", "x": "constant"}},
    ]
    keys = {"get": ["id"], "set": ["id", "x"]}
    made = [{"tool": c["tool"], "arguments": c["arguments"], "ok": True} for c in gold]
    assert exact_match(made, gold, keys)
    assert exact_match([made[1], made[0], made[2]], gold, keys)  # independent reads in any order
    assert not exact_match([made[2], made[0], made[1]], gold, keys)  # the write before the read it needs
    assert not exact_match([*made, made[0]], gold, keys)  # an extra call
    assert exact_match([{**made[0], "ok": False}, *made], gold, keys)  # a failed call is ignored
    assert exact_match([*made[:2], {**made[2], "arguments": {"id": 1.0, "x": 5}}], gold, keys)


# ----------------------------------------------------------------------------- episodes and resume


def test_the_scripted_user_reveals_held_back_facts_only_when_asked():
    task = {"instructions": {"hidden_facts": {"order number": "ord_0042"}}}
    user = ScriptedUser(task, None)
    ask = [{"role": "assistant", "content": "Which order number is it?"}]
    reply = asyncio.run(user.complete(ask))
    assert "ord_0042" in reply.content and STOP not in reply.content
    done = asyncio.run(user.complete([{"role": "assistant", "content": "It is cancelled."}]))
    assert STOP in done.content


def test_an_episode_that_runs_past_its_limit_is_kept_with_its_reason(tasks):
    envs, rows = _env_rows(tasks), list(tasks.load("tasks", "train"))
    task = next(t for t in rows if t["kind"] == "write")
    env = Environment.from_row(envs[task["environment"]])

    class Silent:  # an agent that keeps calling a tool and never answers
        async def complete(self, messages, tools=None):
            from envscale.llm import ChatResult, ToolCall

            return ChatResult(
                None, [ToolCall(f"c{len(messages)}", task["tools"][0], {}, "{}")], "tool_calls", None, 0.0
            )

    from envscale.rollout.episode import EpisodeLimits

    result = asyncio.run(
        run_episode(task, env, Silent(), ScriptedUser(task, None), limits=EpisodeLimits(max_steps=3))
    )
    assert result["status"] == "max_steps" and result["failure_cause"] == "agent"
    assert result["n_calls"] == 3 and len(result["messages"]) == 2 + 3 * 2


def test_a_user_simulator_that_misbehaves_is_counted_as_the_users_failure(tasks):
    """An empty reply, or a stop while the agent still asks before any needed change: the user's fault."""
    from envscale.llm import ChatResult

    envs, rows = _env_rows(tasks), list(tasks.load("tasks", "train"))
    task = next(t for t in rows if t["kind"] == "missing_info")  # the agent first asks for the withheld fact

    class User:
        def __init__(self, text):
            self.text = text

        async def complete(self, messages, tools=None):
            return ChatResult(self.text, [], "stop", None, 0.0)

    for text, why in ((f"Never mind. {STOP}", "user_premature_stop"), ("", "user_empty")):
        env = Environment.from_row(envs[task["environment"]])
        agent = ScriptedAgent(task, random.Random(0), {})
        result = asyncio.run(run_episode(task, env, agent, User(text)))
        assert (result["status"], result["failure_cause"]) == ("user_error", "user"), result["error"]
        assert result["error"].startswith(why) and result["messages"][2]["content"].endswith("?")
    # the same stop after the agent has done the work is the normal end
    env = Environment.from_row(envs[task["environment"]])
    done = asyncio.run(
        run_episode(task, env, ScriptedAgent(task, random.Random(0), {}), ScriptedUser(task, None))
    )
    assert done["status"] == "completed" and done["final_state_hash"] == task["gold_state_hash"]


def test_an_interrupted_rollout_resumes_to_exactly_the_episodes_asked_for(tasks, tmp_path, monkeypatch):
    config = RolloutConfig(agent={"kind": "scripted", "noise": NOISE}, trials=2, concurrency=4)
    real = rollout_module._episode
    calls = {"n": 0}

    async def flaky(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 15:  # a crash part-way (Ctrl-C and kill -9 are tested on the CLI, in a subprocess)
            raise RuntimeError("the machine went away")
        return await real(*args, **kwargs)

    monkeypatch.setattr(rollout_module, "_episode", flaky)
    with pytest.raises(ExceptionGroup):
        rollout(tasks, config, tmp_path / "trajectories")
    parts = next((tmp_path / "trajectories" / ".staging").glob(f"*/_parts/{PARTS_FILE}"))
    lines = parts.read_bytes().splitlines()
    assert 0 < len(lines) < 2 * tasks.splits["tasks"]["train"]
    with parts.open("ab") as f:  # a kill in the middle of a write leaves a line cut short
        f.write(lines[0][: len(lines[0]) // 2])
    monkeypatch.setattr(rollout_module, "_episode", real)
    art = rollout(tasks, config, tmp_path / "trajectories")
    ids = load_dataset(art.location, "trajectories", split="train")["trajectory_id"]
    expected = {f"{t}#{k}" for t in tasks.load("tasks", "train")["task_id"] for k in range(2)}
    assert sorted(ids) == sorted(expected)
    # the same config on a fresh folder gives the same episodes (deterministic backends)
    again = rollout(tasks, config, tmp_path / "again")
    first = {
        r["trajectory_id"]: r["messages"] for r in load_dataset(art.location, "trajectories", split="train")
    }
    second = {
        r["trajectory_id"]: r["messages"] for r in load_dataset(again.location, "trajectories", split="train")
    }
    assert first == second


def test_backend_config_errors_name_the_setting():
    with pytest.raises(ValueError, match="endpoint' needs base_url and model"):
        RolloutConfig(agent={"kind": "endpoint"})
    with pytest.raises(ValueError, match="unknown mistakes"):
        BackendConfig(noise={"typo": 0.1})
    with pytest.raises(ValueError, match="user_styles has unknown styles"):
        RolloutConfig(user_styles={"angry": 1})
    assert (
        "api_key" not in BackendConfig(kind="endpoint", base_url="http://x/v1", model="m", api_key="s").info()
    )


def test_cli_rollout_filter_and_show_trajectory(tasks, tmp_path, capsys):
    out = tmp_path / "traj"
    assert main(["rollout", "--input", tasks.location, "--output", str(out), "--max-tasks", "5"]) == 0
    assert main(["filter", "--input", str(out), "--output", str(tmp_path / "filtered")]) == 0
    capsys.readouterr()
    assert main(["show", "trajectory", str(tmp_path / "filtered")]) == 0
    text = capsys.readouterr().out
    assert "USER" in text and "AGENT" in text and "checks:" in text and "passed: True" in text
    assert main(["show", "trajectory", str(out), "--task", "x"]) == 2  # a tasks option: refused
    assert main(["show", "trajectory", str(out), "--id", "nope"]) == 2


def test_a_trajectory_that_cannot_be_judged_is_rejected_with_its_reason_and_the_run_goes_on(
    clean, tmp_path, monkeypatch
):
    import envscale.judge.filter as filter_module

    traj, before = clean
    first = traj.load("trajectories")[0]["trajectory_id"]
    real = filter_module.judge_trajectory

    def judge(trajectory, *args, **kwargs):
        if trajectory["trajectory_id"] == first:
            raise ValueError("task is scored on state but has no gold_state_hash")
        return real(trajectory, *args, **kwargs)

    monkeypatch.setattr(filter_module, "judge_trajectory", judge)
    after = filter_trajectories(
        traj, FilterConfig(levels=before.manifest["config"]["levels"]), tmp_path / "f"
    )
    rejected = {r["trajectory_id"]: r for r in after.load("rejected")}
    assert "no gold_state_hash" in rejected[first]["failed_checks"][-1]
    assert after.manifest["counts"]["filtered"] == before.manifest["counts"]["filtered"] - 1


def test_max_tool_chars_plays_only_tasks_whose_offered_tools_fit_and_says_when_none_do(tasks, tmp_path):
    from envscale.artifacts import resolve_input
    from envscale.rollout.run import tool_sizes

    sizes = tool_sizes(resolve_input(tasks, "environments").load("environments"))
    rows = list(tasks.load("tasks", "train"))

    def size(task):
        offered = sizes[task["environment"]]
        return sum(offered[n] for n in task["tools"]) if task["tools"] else sum(offered.values())

    by_size = sorted(size(t) for t in rows)
    limit = by_size[len(by_size) // 2]  # about half the tasks fit
    fitting = {t["task_id"] for t in rows if size(t) <= limit}
    assert 0 < len(fitting) < len(rows)
    played = rollout(tasks, RolloutConfig(max_tool_chars=limit, concurrency=8), tmp_path / "small")
    assert set(played.load("trajectories", "train")["task_id"]) == fitting
    sampled = rollout(tasks, RolloutConfig(max_tool_chars=limit, max_tasks=3), tmp_path / "sample")
    assert len(sampled.load("trajectories", "train")) == 3
    assert set(sampled.load("trajectories", "train")["task_id"]) <= fitting
    with pytest.raises(ValueError, match="no task offers tools within max_tool_chars=1 "):
        rollout(tasks, RolloutConfig(max_tool_chars=1), tmp_path / "none")
