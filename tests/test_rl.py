"""`envscale rl`: TRL's GRPO on the fixture pipeline's environments and tasks, the reward being the final state.

The tasks are the fixture pipeline's (collect -> graph -> materialize -> tasks, `conftest.fixture_environments`).
The policies are played through the generated environment classes exactly as TRL's tool loop calls them (one
method per tool), and the GRPO tests run real `GRPOTrainer` steps with tiny models (`tinymodel`): one whose
reply is the gold calls of a task, one that writes a plain sentence, one that asks the user.
"""

from __future__ import annotations

import copy
import json

import pytest
import torch

from envscale.env import Environment
from envscale.llm import ChatResult
from envscale.rl.environment import USER_TOOL, environment_class, run_sync
from envscale.rl.gates import admission
from envscale.rl.reward import dense_reward, gold_answer, judge_rollout, outcome_reward
from envscale.rl.spec import EnvscaleSpec
from envscale.rl.trainer import mask_spoiled_groups
from envscale.rollout.backends import Backend, BackendConfig
from envscale.tasks.build import TasksConfig, generate_tasks


@pytest.fixture(scope="module")
def tasks(fixture_environments, tmp_path_factory):
    # the first seed whose splits each hold 10 tasks or more, read, write and policy ones among them, and whose
    # train split holds three environments
    for seed in range(1, 17):
        config = TasksConfig(tasks_per_env=15, test_env_share=0.3, test_task_share=0.5, seed=seed)
        art = generate_tasks(fixture_environments, config, tmp_path_factory.mktemp("rl") / "tasks")
        splits = [art.load("tasks", split)["kind"] for split in ("train", "test")]
        worlds = set(art.load("tasks", "train")["environment"])
        if len(worlds) >= 3 and all(len(k) >= 10 and {"read", "write", "policy"} <= set(k) for k in splits):
            return art
    raise AssertionError("no seed of 1-16 gives both splits 10 tasks with read, write and policy ones")


@pytest.fixture(scope="module")
def spec(tasks):
    return EnvscaleSpec(tasks, split="train", user={"kind": "scripted"}, show_progress=False)


def fresh(spec: EnvscaleSpec, row: dict):
    """An instance of the row's class, reset as TRL resets it (every column but `environment`)."""
    instance = spec.environment_factory[row["environment"]]()
    instance.reset(**{k: v for k, v in row.items() if k != "environment"})
    return instance


def play_gold(instance) -> str:
    """Make the task's gold calls through the instance's methods; the answer a careful agent gives."""
    task = instance.task
    for call in task["gold_calls"]:
        getattr(instance, call["tool"])(**call["arguments"])
    return gold_answer(task)


@pytest.mark.parametrize("split", ["train", "test"])
def test_every_admitted_task_pays_the_gold_policy_1_and_the_do_nothing_policy_0(tasks, spec, split):
    if split == "test":
        spec = EnvscaleSpec(tasks, split="test", user={"kind": "scripted"}, show_progress=False)
    rows = list(spec.train_dataset)
    assert len(rows) >= 10 and spec.counts["admitted"] == len(rows) == spec.counts["tasks"]
    kinds = {spec.task(r["task_id"])["kind"] for r in rows}
    assert {"read", "write", "policy"} <= kinds
    for row in rows:
        gold = fresh(spec, row)
        answer = play_gold(gold)
        nothing = fresh(spec, row)
        assert outcome_reward([[{"role": "assistant", "content": answer}]], [gold]) == [1.0], row["task_id"]
        assert dense_reward([answer], [gold]) == [1.0], row["task_id"]
        assert outcome_reward(["Sorry, I cannot help with that."], [nothing]) == [0.0], row["task_id"]
        assert dense_reward([""], [nothing]) == [0.0], row["task_id"]


def test_the_reward_is_the_final_state_not_the_words(spec):
    """The gold answer without the gold writes earns nothing; the writes with the answer earn 1."""
    row = next(r for r in spec.train_dataset if spec.task(r["task_id"])["kind"] == "write")
    task = spec.task(row["task_id"])
    talker = fresh(spec, row)
    said = "Done. " + "; ".join(task["answer_facts"]) + " I have made the change you asked for."
    assert outcome_reward([said], [talker]) == [0.0]
    doer = fresh(spec, row)
    assert outcome_reward([play_gold(doer)], [doer]) == [1.0]
    assert doer.env.state_hash() == task["gold_state_hash"]


def test_the_dense_reward_counts_the_gold_effects_reached_and_never_equals_a_pass(spec):
    tools = spec.environment_factory[spec.train_dataset[0]["environment"]].spec["tools"]
    writes = {t["name"] for t in tools if t.get("kind") == "write"}
    # a task of three calls or more that ends in a write (a missing-information task is one too: the user withholds a
    # fact, and the gold still writes)
    row = next(
        r
        for r in spec.train_dataset
        if len(spec.task(r["task_id"])["gold_calls"]) >= 3
        and spec.task(r["task_id"])["kind"] in ("write", "mixed", "missing_info")
        and spec.task(r["task_id"])["environment"] == spec.train_dataset[0]["environment"].split("@")[0]
        and spec.task(r["task_id"])["gold_calls"][-1]["tool"] in writes
    )
    task = spec.task(row["task_id"])
    partial = fresh(spec, row)
    for call in task["gold_calls"][:-1]:  # everything but the last gold call (a write)
        getattr(partial, call["tool"])(**call["arguments"])
    [dense] = dense_reward([""], [partial])
    [outcome] = outcome_reward([""], [partial])
    assert outcome == 0.0
    n = len(task["gold_calls"])
    assert 0.0 < dense < 0.9
    assert dense == pytest.approx(0.9 * (n - 1) / n)


def test_the_classes_offer_the_task_s_tools_and_the_user_and_nothing_that_ends_or_judges(spec):
    for row in spec.train_dataset:
        cls = spec.environment_factory[row["environment"]]
        task = spec.task(row["task_id"])
        public = {n for n in vars(cls) if not n.startswith("_") and callable(getattr(cls, n))}
        assert public == {"reset", *task["tools"], USER_TOOL}, row["task_id"]
        assert not hasattr(cls, "get_reward")  # the reward functions judge; TRL would add a second reward
        prompt = row["prompt"]
        assert [m["role"] for m in prompt] == ["system", "user"]
        assert prompt[1]["content"] == task["first_message"]
        if task["policy"].get("text"):
            assert task["policy"]["text"] in prompt[0]["content"]


def test_the_signatures_are_what_trl_renders_as_the_tools_schemas(spec):
    from transformers.utils import get_json_schema

    row = spec.train_dataset[0]
    cls = spec.environment_factory[row["environment"]]
    by_name = {t["name"]: t for t in cls.spec["tools"]}
    for name in cls.offered_tools:
        schema = get_json_schema(getattr(cls(), name))["function"]
        declared = by_name[name]["parameters"]
        assert schema["name"] == name
        assert set(schema["parameters"].get("properties", {})) == set(declared.get("properties") or {})
        assert set(schema["parameters"].get("required", [])) == set(declared.get("required") or [])
    user = get_json_schema(getattr(cls(), USER_TOOL))["function"]
    assert user["parameters"]["required"] == ["message"]


def test_reset_restores_the_initial_state_from_a_snapshot_after_writes(spec):
    row = next(r for r in spec.train_dataset if spec.task(r["task_id"])["kind"] == "write")
    instance = fresh(spec, row)
    initial = instance.env.state_hash()
    play_gold(instance)
    assert instance.env.state_hash() != initial
    instance.reset(**{k: v for k, v in row.items() if k != "environment"})
    assert instance.env.state_hash() == initial
    assert instance.calls == [] and instance.spoiled is None


@pytest.fixture(scope="module")
def asking_spec(fixture_environments, tmp_path_factory):
    """Tasks whose key fact the user holds back (`missing_info`) in the train split, whatever the other kinds do."""
    shares = {"missing_info": 1.0, "write": 1.0}
    config = TasksConfig(tasks_per_env=8, test_env_share=0.0, test_task_share=0.0, seed=1, kind_shares=shares)
    tasks = generate_tasks(fixture_environments, config, tmp_path_factory.mktemp("rl-ask") / "tasks")
    return EnvscaleSpec(tasks, split="train", user={"kind": "scripted"}, show_progress=False)


def test_the_scripted_user_answers_the_agent_s_question_with_the_held_back_fact(asking_spec):
    spec = asking_spec
    row = next(r for r in spec.train_dataset if spec.task(r["task_id"])["kind"] == "missing_info")
    task = spec.task(row["task_id"])
    instance = fresh(spec, row)
    [(key, value)] = list(task["instructions"]["hidden_facts"].items())[:1]
    reply = run_sync(getattr(instance, USER_TOOL)(f"Could you tell me the {key.replace('_', ' ')}?"))
    assert str(value) in reply
    assert instance.spoiled is None
    assert instance.transcript[-1] == {"role": "user", "content": reply}


class _Says(Backend):
    """A user simulator that says one fixed thing (an empty reply, a leaked answer...)."""

    def __init__(self, text: str):
        super().__init__(
            BackendConfig(kind="endpoint", base_url="http://127.0.0.1:9/v1", model="fake"), "user"
        )
        self.text = text

    def speaker(self, task: dict, seed: int):
        text = self.text.format(**{"fact": (task.get("answer_facts") or ["?"])[0]})

        class Speaker:
            async def complete(self, messages, tools=None):
                return ChatResult(
                    content=text, tool_calls=[], finish_reason="stop", usage=None, latency_s=0.0
                )

        return Speaker()


@pytest.mark.parametrize(
    ("says", "why"),
    [("", "user_empty"), ("Oh, it is {fact}, I remember now.", "user_leak")],
)
def test_a_user_who_spoils_the_rollout_marks_it_and_its_reward_is_none(tasks, says, why):
    spec = EnvscaleSpec(tasks, split="train", user=_Says(says), kinds=["read"], show_progress=False)
    row = spec.train_dataset[0]
    instance = fresh(spec, row)
    run_sync(getattr(instance, USER_TOOL)("Which one do you mean?"))
    assert instance.spoiled and instance.spoiled.startswith(why)
    assert outcome_reward([""], [instance]) == [None]
    assert dense_reward([""], [instance]) == [None]


def test_masking_sets_every_reward_of_a_spoiled_group_to_nan_and_counts_the_groups():
    rewards = torch.tensor([[1.0], [0.0], [1.0], [0.0], [0.0], [1.0]])
    spoiled = torch.tensor([False, True, False, False, False, False])
    assert mask_spoiled_groups(rewards, spoiled, 2) == 1
    assert torch.isnan(rewards[:2]).all()
    assert rewards[2:].tolist() == [[1.0], [0.0], [0.0], [1.0]]
    with pytest.raises(ValueError, match="not groups of 4"):
        mask_spoiled_groups(torch.zeros(6, 1), torch.zeros(6, dtype=torch.bool), 4)


# ----------------------------------------------------------------------------- admission gates


def _env_and_task(spec: EnvscaleSpec, kind: str = "write") -> tuple[Environment, dict]:
    row = next(r for r in spec.train_dataset if spec.task(r["task_id"])["kind"] == kind)
    task = copy.deepcopy(spec.task(row["task_id"]))
    cls = spec.environment_factory[row["environment"]]
    return Environment(copy.deepcopy(cls.spec)), task


def _with_tool(env: Environment, task: dict, name: str, description: str = "") -> tuple[Environment, dict]:
    """The environment with a copy of the task's first gold tool under `name`, offered by the task."""
    spec = copy.deepcopy(env.spec)
    tool = copy.deepcopy(next(t for t in spec["tools"] if t["name"] == task["gold_calls"][0]["tool"]))
    tool["name"] = name
    if description:
        tool["description"] = description
    spec["tools"].append(tool)
    task["tools"] = [*task["tools"], name]
    return Environment(spec), task


def test_an_admitted_task_passes_every_gate(spec):
    env, task = _env_and_task(spec)
    assert admission(task, env) is None


def test_gate_initial_passes_refuses_a_task_whose_gold_is_the_initial_state(spec):
    env, task = _env_and_task(spec)
    env.reset()
    task["gold_state_hash"] = env.state_hash()
    task["scoring"] = {"state": True, "answer_facts": False, "required_actions": [], "forbidden_actions": []}
    assert admission(task, env)[0] == "initial_passes"


def test_gate_gold_fails_refuses_a_task_whose_gold_calls_do_not_reach_the_gold_state(spec):
    env, task = _env_and_task(spec)
    task["gold_state_hash"] = "0" * 64
    assert admission(task, env)[0] == "gold_fails"
    env, task = _env_and_task(spec)
    task["gold_calls"] = task["gold_calls"][:-1]  # the last write missing
    code, detail = admission(task, env)
    assert code == "gold_fails", detail


@pytest.mark.parametrize("name", ["verify_solution", "get_gold_state", "checkAnswer", "grade_task"])
def test_gate_reveals_gold_refuses_a_task_offering_a_verifier(spec, name):
    env, task = _with_tool(*_env_and_task(spec), name)
    code, detail = admission(task, env)
    assert code == "reveals_gold" and name in detail


def test_gate_reveals_gold_reads_descriptions_too(spec):
    env, task = _with_tool(*_env_and_task(spec), "lookup_helper", "Returns the expected answer of the task.")
    assert admission(task, env)[0] == "reveals_gold"


@pytest.mark.parametrize("name", ["end_conversation", "transfer_to_human_agents", "finish", "endChat"])
def test_gate_agent_can_end_refuses_a_task_whose_agent_could_end_the_dialogue(spec, name):
    env, task = _with_tool(*_env_and_task(spec), name)
    code, detail = admission(task, env)
    assert code == "agent_can_end" and name in detail


def test_gate_not_offered_refuses_a_task_whose_gold_tool_is_not_offered(spec):
    env, task = _env_and_task(spec)
    task["tools"] = [t for t in task["tools"] if t != task["gold_calls"][-1]["tool"]]
    code, detail = admission(task, env)
    assert code == "not_offered" and task["gold_calls"][-1]["tool"] in detail


def test_arguments_python_cannot_name_are_offered_as_identifiers_and_reach_the_tool_by_their_own_names():
    from transformers.utils import get_json_schema

    env = Environment.from_yaml("tests/fixtures/envs/shop.yaml")
    spec_ = copy.deepcopy(env.spec)
    tool = next(t for t in spec_["tools"] if t["name"] == "update_customer_email")
    tool["parameters"] = {
        "type": "object",
        "properties": {
            "customer-id": {"type": "string"},
            "$.email": {"type": "string"},
            "class": {"type": "string"},
        },
        "required": ["customer-id", "$.email"],
    }
    tool["operation"] = {
        "type": "update",
        "table": "customers",
        "key": {"customer_id": "customer-id"},
        "set": {"email": "$.email"},
    }
    cls = environment_class(
        spec_, ["update_customer_email"], {"t": {"task_id": "t", "seed": None, "first_message": ""}}
    )
    method = cls().update_customer_email
    schema = get_json_schema(method)["function"]["parameters"]
    assert set(schema["properties"]) == {"customer_id", "email", "class_"}
    assert set(schema["required"]) == {"customer_id", "email"}
    instance = cls()
    instance.reset(task_id="t")
    result = json.loads(instance.update_customer_email(customer_id="cus_0001", email="new@example.com"))
    assert instance.calls[-1]["arguments"] == {"customer-id": "cus_0001", "$.email": "new@example.com"}
    assert instance.calls[-1]["ok"], result
    customers = {c["customer_id"]: c for c in instance.env.dump()["customers"]}
    assert customers["cus_0001"]["email"] == "new@example.com"


def test_gate_environment_error_lists_every_task_of_an_environment_that_cannot_be_built(tasks, monkeypatch):
    import envscale.rl.spec as spec_module

    real = spec_module.Environment
    broken = "domain_1_shop"

    def build(spec, **kwargs):
        if spec["name"] == broken:
            raise ValueError("the spec is broken on purpose")
        return real(spec, **kwargs)

    monkeypatch.setattr(spec_module, "Environment", build)
    spec = EnvscaleSpec(tasks, split="train", show_progress=False)
    refused = [r for r in spec.rejected if r["environment"] == broken]
    assert refused and all(r["code"] == "environment_error" for r in refused)
    assert "broken on purpose" in refused[0]["detail"]
    assert spec.counts["rejected_by_gate"] == {"environment_error": len(refused)}
    assert all(spec.task(r["task_id"])["environment"] != broken for r in spec.train_dataset)


def test_gate_needs_user_refuses_only_without_a_user_simulator(tasks):
    """With no user behind `send_message_to_user`, a task whose user speaks again (later requests, a fact given
    only when asked) could never pay: it is refused, and the prompt does not tell the agent to ask; with the
    scripted user the same tasks are admitted and the prompt says to ask."""
    from envscale.rl.gates import needs_user

    wanting = {t["task_id"] for t in tasks.load("tasks", "train") if needs_user(t)}
    assert wanting
    alone = EnvscaleSpec(tasks, split="train", user=None, show_progress=False)
    assert {r["task_id"] for r in alone.rejected if r["code"] == "needs_user"} == wanting
    assert alone.counts["rejected_by_gate"]["needs_user"] == len(wanting)
    assert all("ask the user" not in r["prompt"][0]["content"] for r in alone.train_dataset)
    talked = EnvscaleSpec(tasks, split="train", user={"kind": "scripted"}, show_progress=False)
    assert not [r for r in talked.rejected if r["code"] == "needs_user"]
    assert wanting <= {r["task_id"] for r in talked.train_dataset}
    assert all("ask the user" in r["prompt"][0]["content"] for r in talked.train_dataset)


def test_gate_prompt_too_long_refuses_the_tasks_whose_rendered_prompt_is_over_the_limit(tasks):
    from tinymodel import build_tiny_tokenizer

    from envscale.rl.run import prepare_tokenizer

    tokenizer = build_tiny_tokenizer()
    prepare_tokenizer(tokenizer)
    spec = EnvscaleSpec(tasks, split="train", show_progress=False)
    lengths = {}
    for row in spec.train_dataset:
        cls = spec.environment_factory[row["environment"]]
        tools = [getattr(cls(), n) for n in cls.offered_tools] + [cls().send_message_to_user]
        ids = tokenizer.apply_chat_template(
            row["prompt"], tools=tools, add_generation_prompt=True, tokenize=True
        )
        lengths[row["task_id"]] = len(ids["input_ids"] if hasattr(ids, "keys") else ids)
    limit = sorted(lengths.values())[len(lengths) // 2]  # about half the tasks are longer
    before = spec.counts["admitted"]
    refused = spec.limit_prompt_length(tokenizer, limit)
    longer = {t for t, n in lengths.items() if n > limit}
    assert refused == len(longer) > 0
    assert {r["task_id"] for r in spec.rejected if r["code"] == "prompt_too_long"} == longer
    assert {r["task_id"] for r in spec.train_dataset} == set(
        lengths
    ) - longer  # the cached dataset is rebuilt
    assert (
        spec.counts["admitted"] == before - len(longer) and spec.counts["rejected_by_gate"]["prompt_too_long"]
    )
    with pytest.raises(KeyError):
        spec.task(sorted(longer)[0])


# ----------------------------------------------------------------------------- curriculum


@pytest.fixture(scope="module")
def filtered(tasks, tmp_path_factory):
    from envscale.judge.filter import FilterConfig, filter_trajectories
    from envscale.rollout.run import RolloutConfig, rollout

    root = tmp_path_factory.mktemp("rl-curriculum")
    config = RolloutConfig(trials=3, agent={"kind": "scripted", "noise": {"wrong_argument": 0.3}}, seed=3)
    trajectories = rollout(tasks, config, root / "trajectories")
    return filter_trajectories(trajectories, FilterConfig(), root / "filtered")


def test_filter_records_each_task_s_pass_rate_over_its_trials(filtered, tasks):
    rates = list(filtered.load("pass_rates"))
    assert len(rates) == tasks.splits["tasks"]["train"]
    assert all(r["episodes"] == 3 for r in rates)
    kept = filtered.manifest["counts"]["filtered"]
    assert sum(r["passed"] for r in rates) == kept
    assert all(r["pass_rate"] == pytest.approx(r["passed"] / 3, abs=1e-4) for r in rates)
    assert len({r["pass_rate"] for r in rates}) > 1  # the noisy agent fails some tasks, not all


def test_curricula_order_weight_and_band_tasks_by_pass_rate(tasks, filtered):
    rates = {r["task_id"]: r["pass_rate"] for r in filtered.load("pass_rates")}
    easy = EnvscaleSpec(tasks, pass_rates=filtered, curriculum="easy_first", show_progress=False)
    ordered = [r["pass_rate"] for r in easy.train_dataset]
    assert ordered == sorted(ordered, reverse=True) and None not in ordered
    plain = EnvscaleSpec(tasks, pass_rates=filtered, show_progress=False)
    weighted = EnvscaleSpec(tasks, pass_rates=filtered, curriculum="weight", show_progress=False)
    copies = {}
    for r in weighted.train_dataset:
        copies[r["task_id"]] = copies.get(r["task_id"], 0) + 1
    assert all(copies[t] == 1 + round(2 * (1 - rates[t])) for t in copies)
    assert len(weighted.train_dataset) > len(plain.train_dataset)
    band = EnvscaleSpec(
        tasks, pass_rates=filtered, min_pass_rate=0.01, max_pass_rate=0.99, show_progress=False
    )
    assert all(0 < r["pass_rate"] < 1 for r in band.train_dataset)
    assert band.counts["outside_pass_rate_band"] == sum(1 for v in rates.values() if v in (0.0, 1.0))
    with pytest.raises(ValueError, match="needs pass_rates"):
        EnvscaleSpec(tasks, curriculum="weight", show_progress=False)


# ----------------------------------------------------------------------------- real GRPO steps


def _grpo(spec: EnvscaleSpec, model_dir, tmp_path, *, mask_spoiled: bool = True, steps: int = 2):
    from tinymodel import tiny_grpo_args
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from envscale.rl.run import prepare_tokenizer
    from envscale.rl.trainer import EnvscaleGRPOTrainer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    assert prepare_tokenizer(tokenizer) == "chatml"
    args = tiny_grpo_args(tmp_path / "out", steps=steps)
    trainer = EnvscaleGRPOTrainer(
        model=AutoModelForCausalLM.from_pretrained(model_dir),
        processing_class=tokenizer,
        args=args,
        train_dataset=spec.train_dataset,
        environment_factory=spec.environment_factory,
        reward_funcs=spec.reward_funcs,
        mask_spoiled=mask_spoiled,
    )
    trainer.train()
    return trainer, [h for h in trainer.state.log_history if "reward" in h]


def _one_write_task(tasks) -> str:
    """A write task scored on state alone whose gold calls all take literal arguments (a chain the tiny model can
    write in one reply)."""
    spec = EnvscaleSpec(tasks, split="train", kinds=["write"], show_progress=False)
    for row in spec.train_dataset:
        task = spec.task(row["task_id"])
        if not task["answer_facts"] and len(task["gold_calls"]) <= 3:
            return row["task_id"]
    raise AssertionError("the fixture pipeline made no write task to replay")


def test_grpo_steps_reward_the_gold_replaying_policy_1_and_the_talker_0(tasks, tmp_path, monkeypatch):
    from tinymodel import build_tiny_chat_model, tool_call_reply

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    task_id = _one_write_task(tasks)
    spec = EnvscaleSpec(tasks, split="train", task_ids=[task_id], user=None, show_progress=False)
    assert len(spec.train_dataset) == 1
    task = spec.task(task_id)
    gold_model = build_tiny_chat_model(
        tmp_path / "gold", reply=tool_call_reply(task["gold_calls"]), max_positions=8192
    )
    trainer, logs = _grpo(spec, gold_model, tmp_path / "g")
    assert [h["reward"] for h in logs] == [1.0, 1.0]
    assert all(h["tools/call_frequency"] > 0 for h in logs)
    assert trainer.masked_groups_total == 0 and trainer.groups_total == 2

    spec2 = EnvscaleSpec(tasks, split="train", task_ids=[task_id], user=None, show_progress=False)
    talker = build_tiny_chat_model(
        tmp_path / "talker", reply=["All", " done", " for", " you."], max_positions=8192
    )
    _, logs = _grpo(spec2, talker, tmp_path / "t")
    assert [h["reward"] for h in logs] == [0.0, 0.0]
    assert all(h["tools/call_frequency"] == 0 for h in logs)


@pytest.mark.parametrize("mask", [True, False])
def test_grpo_masks_and_counts_the_groups_a_spoiling_user_ruined(tasks, tmp_path, monkeypatch, mask):
    from tinymodel import build_tiny_chat_model

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    spec = EnvscaleSpec(
        tasks, split="train", kinds=["read"], user=_Says(""), max_tasks=2, show_progress=False
    )
    ask = (
        '<tool_call>\n{"name": "send_message_to_user", "arguments": {"message": "Which one?"}}\n</tool_call>'
    )
    asker = build_tiny_chat_model(tmp_path / "asker", reply=[ask], max_positions=8192)
    trainer, logs = _grpo(spec, asker, tmp_path, mask_spoiled=mask)
    assert trainer.groups_total == 2
    if mask:
        assert trainer.masked_groups_total == 2
        assert [h["envscale/masked_groups"] for h in logs] == [1.0, 1.0]
    else:
        assert trainer.masked_groups_total == 0


def test_environment_class_refuses_a_tool_the_environment_lacks():
    env = Environment.from_yaml("tests/fixtures/envs/shop.yaml")
    with pytest.raises(ValueError, match="has no tool nope"):
        environment_class(env.spec, ["get_order", "nope"], {})


def test_envscale_rl_trains_writes_its_record_and_card_and_lists_the_refused_tasks(tasks, tmp_path, capsys):
    from tinymodel import build_tiny_chat_model

    from envscale.cli import main

    model = build_tiny_chat_model(tmp_path / "base", max_positions=8192)
    out = tmp_path / "rl"
    argv = [
        "rl",
        "--input",
        tasks.location,
        "--output",
        str(out),
        "--model",
        str(model),
        "--max_steps",
        "1",
        "--num-generations",
        "2",
        "--per-device-train-batch-size",
        "2",
        "--max-completion-length",
        "16",
        "--max-tool-calling-iterations",
        "1",
        "--max-tasks",
        "2",
        "--reward",
        "dense",
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert f"rl: {out}" in printed and f"2 of {tasks.splits['tasks']['train']} tasks admitted" in printed
    record = json.loads((out / "rl.json").read_text())
    assert record["tasks"]["pinned"] == tasks.pinned and record["reward"] == "dense"
    assert record["admission"]["admitted"] == 2 and len(record["history"]) == 1
    assert record["groups"] == 1 and record["masked_groups"] == 0
    card = (out / "README.md").read_text()
    assert tasks.pinned in card and "`dense`" in card and "0 of 1 (0.0%)" in card
    assert "Not evaluated yet" in card
    assert (out / "model.safetensors").is_file() and (out / "tokenizer_config.json").is_file()

    from envscale.evaluation.run import EvalConfig, evaluate

    scored = evaluate(
        tasks,
        EvalConfig(
            agents={"before": {"kind": "scripted", "noise": {"give_up": 1.0}}, "after": {"kind": "scripted"}}
        ),
        tmp_path / "eval",
    )
    assert main(["rl", "--output", str(out), "--attach-eval", scored.location]) == 0
    record = json.loads((out / "rl.json").read_text())
    assert record["eval_results"]["tasks"]["eval"] == scored.pinned
    card = (out / "README.md").read_text()
    assert "### tasks: in-domain" in card and "| success | 0.000 | 1.000 | +1.000 |" in card


def test_envscale_rl_refuses_a_bad_option_in_one_line_before_loading_anything(tasks, tmp_path, capsys):
    from envscale.cli import main

    assert main(["rl", "--input", tasks.location, "--output", str(tmp_path / "x"), "--reward", "vibes"]) == 2
    err = capsys.readouterr().err
    assert "reward must be one of outcome, dense" in err and "Traceback" not in err
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("recipe", ["recipes/cpu-train.yaml", "recipes/gpu-0.5b.yaml"])
def test_the_training_recipes_parse_every_section(recipe):
    from envscale.config import load_recipe, parse_config, section
    from envscale.evaluation.run import EvalConfig
    from envscale.rl.run import RLConfig
    from envscale.stages import SECTIONS, check_recipe_keys
    from envscale.training import TrainConfig

    data = load_recipe(recipe)
    check_recipe_keys(data, recipe)
    train = parse_config(TrainConfig, dict(section(data, "train", SECTIONS)), {})
    rl = parse_config(RLConfig, dict(section(data, "rl", SECTIONS)), {})
    evaluation = parse_config(EvalConfig, dict(section(data, "eval", SECTIONS)), {})
    assert rl.model.endswith("model/stage2") and train.stages == [1, 2]
    assert set(evaluation.agents) == {"before", "sft", "sft_rl"}


# ----------------------------------------------------------------------------- policies played through the classes


def drive(instance, speaker, max_rounds: int = 12) -> str:
    """Play an envscale speaker (the scripted agent, an adversary) through an environment instance the way TRL's
    tool loop plays a model: its tool calls become method calls, its first message without calls ends the rollout."""
    import asyncio

    from envscale.rollout.episode import offered_tools

    tools = offered_tools(instance.env, list(instance.offered_tools))
    for _ in range(max_rounds):
        turn = asyncio.run(speaker.complete(list(instance.transcript), tools))
        if not turn.tool_calls:
            return turn.content or ""
        for call in turn.tool_calls:
            method = getattr(instance, call.name, None)
            if call.name in instance.offered_tools and call.error is None:
                method(**(call.arguments or {}))
                # the speaker reads its results by its own call ids (TRL's loop keeps none): give them back
                instance.transcript[-2]["tool_calls"][0]["id"] = instance.transcript[-1]["tool_call_id"] = (
                    call.id
                )
    return ""


def test_the_scripted_gold_agent_played_through_the_classes_earns_1_on_every_admitted_task(spec):
    from envscale.rollout.factory import make_backend

    agent = make_backend(BackendConfig(kind="scripted"), "agent")
    for i, row in enumerate(spec.train_dataset):
        if (
            spec.task(row["task_id"])["kind"] == "missing_info"
            or len(spec.task(row["task_id"])["requests"]) > 1
        ):
            continue  # they need the user's turns: the trainer's policy asks through send_message_to_user
        instance = fresh(spec, row)
        answer = drive(instance, agent.speaker(instance.task, i))
        assert outcome_reward([answer], [instance]) == [1.0], row["task_id"]


@pytest.mark.parametrize(
    "policy", ["nothing", "echo", "system", "no", "guess", "dump", "everything", "recite"]
)
def test_no_adversary_earns_a_reward_for_a_task_it_did_not_do(spec, policy):
    """The adversaries of `envscale.rollout.adversaries` (`bench/hack.py`) through the RL classes and reward: a
    reward only where the adversary's successful writes are exactly the gold writes (it did the task)."""
    import importlib.util
    from pathlib import Path

    from envscale.rollout.factory import make_backend

    path = Path(__file__).resolve().parent.parent / "bench" / "hack.py"
    module_spec = importlib.util.spec_from_file_location("hack_for_rl", path)
    hack = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(hack)
    agent = make_backend(BackendConfig(kind="adversary", model=policy), "agent")
    rewarded = 0
    for i, row in enumerate(spec.train_dataset):
        instance = fresh(spec, row)
        answer = drive(instance, agent.speaker(instance.task, i))
        [reward] = outcome_reward([answer], [instance])
        if reward:
            writes = {t["name"] for t in instance.spec["tools"] if t.get("kind") == "write"}
            assert hack.did_the_task({"calls": instance.calls}, instance.task, writes), (
                policy,
                row["task_id"],
            )
            rewarded += 1
    if policy in ("nothing", "echo", "no", "system"):
        assert rewarded == 0


def test_envscale_rl_relaunches_through_accelerate_and_passes_vllm_options_to_trl(monkeypatch, tmp_path):
    import accelerate.commands.launch as accelerate_launch

    from envscale.cli import main
    from envscale.rl.run import RLConfig, grpo_args

    seen = {}
    monkeypatch.setattr(accelerate_launch, "launch_command", lambda args: seen.setdefault("args", args))
    argv = ["rl", "--input", "data/tasks", "--output", str(tmp_path), "--accelerate_config", "multi_gpu"]
    assert main([*argv, "--use-vllm", "--vllm-mode", "server", "--max_steps", "5"]) == 0
    args = seen["args"]
    assert args.training_script == "envscale.stages.rl"
    relaunched = args.training_script_args
    assert relaunched[:4] == ["--input", "data/tasks", "--output", str(tmp_path)]
    assert "--use-vllm" in relaunched and relaunched[relaunched.index("--vllm-mode") + 1] == "server"
    assert relaunched[relaunched.index("--max-steps") + 1] == "5" and "--accelerate_config" not in relaunched
    config = RLConfig(use_vllm=True, vllm_mode="server", vllm_server_base_url="http://10.0.0.2:8000")
    trl_args = grpo_args(config, tmp_path)
    assert (trl_args.use_vllm, trl_args.vllm_mode, trl_args.vllm_server_base_url) == (
        True,
        "server",
        "http://10.0.0.2:8000",
    )
    assert grpo_args(RLConfig(curriculum="easy_first", pass_rates="x"), tmp_path).shuffle_dataset is False


def test_rl_asks_more_of_a_rollout_than_the_filter_an_answer_a_found_fact_and_no_false_failure(spec):
    """Holes a blind reading found by playing rollouts by hand: an empty answer after the writes, an answer from
    memory without a single call, and "I could not" after the change was made earned 1.0 under the filter's checks."""
    write = next(r for r in spec.train_dataset if spec.task(r["task_id"])["kind"] == "write")
    done = fresh(spec, write)
    play_gold(done)
    assert outcome_reward([""], [done]) == [0.0]
    assert "empty_answer" in judge_rollout(done, "")["failed"]
    lie = "Sorry, I was not able to make that change; the record is still pending."
    assert outcome_reward([lie], [done]) == [0.0] and "claims_failure" in judge_rollout(done, lie)["failed"]
    assert outcome_reward(["Done: the change is made."], [done]) == [1.0]
    read = next(
        r
        for r in spec.train_dataset
        if spec.task(r["task_id"])["kind"] == "read" and spec.task(r["task_id"])["answer_facts"]
    )
    memorised = fresh(spec, read)
    answer = "Here you go: " + "; ".join(memorised.task["answer_facts"])
    assert (
        outcome_reward([answer], [memorised]) == [0.0]
        and "ungrounded" in judge_rollout(memorised, answer)["failed"]
    )
    looked_up = fresh(spec, read)
    assert outcome_reward([play_gold(looked_up)], [looked_up]) == [1.0]


def test_max_tasks_draws_from_every_environment_in_turn(tasks):
    spec = EnvscaleSpec(tasks, max_tasks=3, show_progress=False)
    environments = {spec.task(r["task_id"])["environment"] for r in spec.train_dataset}
    assert len(spec.train_dataset) == 3 and len(environments) == 3
    assert spec.counts["not_checked"] == spec.counts["tasks"] - 3 - spec.counts["rejected"]


def test_gate_beyond_max_rows_refuses_a_task_whose_gold_reads_a_row_lists_do_not_return(tasks, spec):
    """A gold call that takes a value from a list row past the rows a list returns (`max_rows`) could never be
    made by the policy: the task is refused. The fixture's golds read the first row of their lists (a search finds
    the row), so the task here reads its list's third row; a spec with lists of one row keeps no task that reads
    past it, and every refusal is counted under a gate."""
    from envscale.judge import parse_provenance

    def rows_read(calls):
        return [
            parsed[1][0]
            for call in calls
            for source in (call.get("provenance") or {}).values()
            if (parsed := parse_provenance(source)) and parsed[1] and isinstance(parsed[1][0], int)
        ]

    row = next(  # a task whose golds read only the first rows (a conversation may read its list further down)
        r
        for r in spec.train_dataset
        if rows_read(spec.task(r["task_id"])["gold_calls"])
        and max(rows_read(spec.task(r["task_id"])["gold_calls"])) < 2
    )
    task = copy.deepcopy(spec.task(row["task_id"]))
    call = next(c for c in task["gold_calls"] if rows_read([c]))
    arg, source = next((a, p) for a, p in call["provenance"].items() if rows_read([{"provenance": {a: p}}]))
    index = parse_provenance(source)[1][0]
    call["provenance"][arg] = source.replace(f"][{index}]", "][2]", 1)
    cls = spec.environment_factory[row["environment"]]
    code, detail = admission(task, Environment(copy.deepcopy(cls.spec), max_rows=2))
    assert code == "beyond_max_rows" and "row 2" in detail, (code, detail)
    refused = admission(task, Environment(copy.deepcopy(cls.spec), max_rows=3))
    assert refused is None or refused[0] != "beyond_max_rows", refused
    few = EnvscaleSpec(tasks, max_rows=1, user=None, show_progress=False)
    assert (
        sum(few.counts["rejected_by_gate"].values()) == few.counts["rejected"]
    )  # every refusal under a gate
    for kept in few.train_dataset:
        assert all(i < 1 for i in rows_read(few.task(kept["task_id"])["gold_calls"]))


def test_a_rollout_that_thrashes_through_writes_earns_nothing(spec):
    """The guessing adversary resolved a ticket by trying every status and every priority in turn (eight updates)
    and ended in the gold state by chance. A rollout that writes far beyond the gold's writes is no pass."""
    from envscale.rl.reward import rollout_problems

    for row in spec.train_dataset:
        instance = fresh(spec, row)
        writes = {t["name"] for t in instance.spec["tools"] if t.get("kind") == "write"}
        gold = [c for c in instance.task["gold_calls"] if c["tool"] in writes]
        if len(gold) != 1 or not gold[0]["tool"].startswith("update"):
            continue
        answer = play_gold(instance)
        assert "thrashing" not in rollout_problems(instance, answer)
        for _ in range(4):  # the same update again and again: each succeeds
            getattr(instance, gold[0]["tool"])(**gold[0]["arguments"])
        assert sum(c["ok"] and c["tool"] in writes for c in instance.calls) == 5
        assert "thrashing" in rollout_problems(instance, answer)
        return
    raise AssertionError("no task of one update in the fixture: the check above checked nothing")
