"""Tests for `envscale.llm`: fault injection against a loopback fake, transport against a real `transformers serve`."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import replace

import pytest
from llmfake import Reply, completion, start_llm_fake

from envscale.llm import ChatResult, LLMClient, LLMConfig, LLMError

MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]
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
    }
]


@pytest.fixture
def fake():
    server = start_llm_fake()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def config(fake):
    return LLMConfig(base_url=fake.url, model="fake-model", retry_backoff=0.01, timeout=5.0)


def chat(config: LLMConfig, messages=MESSAGES, **kwargs) -> ChatResult:
    async def run():
        async with LLMClient(config) as llm:
            return await llm.chat(messages, **kwargs)

    return asyncio.run(run())


def call(name, arguments, call_id="call_a"):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def test_request_carries_config_defaults_and_overrides(fake, config):
    fake.script(Reply(body=completion("hello")))
    result = chat(config, tools=TOOLS, tool_choice="auto", max_tokens=7)
    assert (result.content, result.finish_reason, result.attempts) == ("hello", "stop", 1)
    assert result.usage == {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    assert result.latency_s > 0
    body = fake.requests[0]["body"]
    assert body["model"] == "fake-model" and body["messages"] == MESSAGES and body["tools"] == TOOLS
    assert (body["temperature"], body["max_tokens"], body["seed"], body["tool_choice"]) == (0.0, 7, 0, "auto")


def test_tool_call_arguments_as_dict_and_as_json_string(fake, config):
    calls = [call("get_weather", {"city": "Paris"}, "tgi"), call("get_weather", '{"city": "Lyon"}', "openai")]
    fake.script(Reply(body=completion(None, calls, "tool_calls")))
    result = chat(config, tools=TOOLS)
    assert result.finish_reason == "tool_calls" and result.content is None
    dict_call, str_call = result.tool_calls
    assert (dict_call.id, dict_call.name, dict_call.arguments, dict_call.error) == (
        "tgi",
        "get_weather",
        {"city": "Paris"},
        None,
    )
    assert json.loads(dict_call.raw_arguments) == {"city": "Paris"}
    assert (str_call.id, str_call.arguments, str_call.raw_arguments) == (
        "openai",
        {"city": "Lyon"},
        '{"city": "Lyon"}',
    )


def test_malformed_tool_calls_are_kept_with_their_error(fake, config):
    calls = [
        call("get_weather", '{"city": "Par'),  # truncated JSON
        call("get_weather", "[1, 2]"),  # JSON, but not an object
        call("get_weather", ["Paris"]),  # a list where TGI would put a dict
        call("", "{}"),  # no name
        call("ping", ""),  # no arguments at all: a call with none
    ]
    fake.script(Reply(body=completion(None, calls, "tool_calls")))
    bad_json, json_list, list_value, no_name, empty = chat(config).tool_calls
    assert (
        bad_json.arguments is None
        and "not valid JSON" in bad_json.error
        and bad_json.raw_arguments == '{"city": "Par'
    )
    assert json_list.arguments is None and json_list.error == "arguments must be a JSON object, got list"
    assert (
        list_value.arguments is None
        and list_value.raw_arguments == '["Paris"]'
        and "got list" in list_value.error
    )
    assert no_name.error == "tool call has no function name"
    assert (empty.name, empty.arguments, empty.error) == ("ping", {}, None)


def test_tool_call_blocks_in_content_are_parsed_and_stripped(fake, config):
    content = (
        "Let me check both.\n"
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'
        "<tool_call>{'name': 'get_weather'}</tool_call>\n"
        '<tool_call>{"name": "get_weather", "arguments": "[]"}</tool_call>'
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Ly'  # cut off by max_tokens
    )
    fake.script(Reply(body=completion(content, None, "length")))
    result = chat(config)
    assert result.content == "Let me check both."
    good, bad_json, not_object, cut = result.tool_calls
    assert (good.id, good.name, good.arguments, good.error) == (
        "call_0",
        "get_weather",
        {"city": "Paris"},
        None,
    )
    assert bad_json.arguments is None and "not valid JSON" in bad_json.error
    assert not_object.error == "arguments must be a JSON object, got list"
    assert cut.arguments is None and "not valid JSON" in cut.error


def test_content_without_tool_call_blocks_is_untouched(fake, config):
    fake.script(Reply(body=completion("  plain answer\n")))
    result = chat(config)
    assert (result.content, result.tool_calls) == ("  plain answer\n", [])


@pytest.mark.parametrize("statuses", [(500, 500), (429, 503)])
def test_transient_errors_are_retried(fake, config, statuses):
    fake.script(
        *(Reply(status, {"error": "overloaded"}) for status in statuses), Reply(body=completion("ok"))
    )
    result = chat(config)
    assert (result.content, result.attempts, len(fake.requests)) == ("ok", 3, 3)


def test_retries_are_bounded(fake, config):
    fake.script(*[Reply(502, {"error": "bad gateway"})] * 5)
    with pytest.raises(LLMError) as info:
        chat(replace(config, max_retries=2))
    assert (info.value.status, info.value.attempts, len(fake.requests)) == (502, 3, 3)
    assert "after 3 attempts" in str(info.value) and "bad gateway" in str(info.value)


def test_client_errors_are_not_retried(fake, config):
    fake.script(Reply(400, {"error": "messages: field required"}), Reply(body=completion("never sent")))
    with pytest.raises(LLMError) as info:
        chat(config)
    error = info.value
    assert (error.status, error.attempts, len(fake.requests)) == (400, 1, 1)
    assert (
        fake.url in str(error) and "'fake-model'" in str(error) and "messages: field required" in str(error)
    )


def test_a_response_slower_than_the_timeout_is_retried_then_fails(fake, config):
    fake.script(Reply(body=completion("late"), delay=2.0), Reply(body=completion("late"), delay=2.0))
    start = time.perf_counter()
    with pytest.raises(LLMError) as info:
        chat(replace(config, timeout=0.3, max_retries=1))
    assert time.perf_counter() - start < 1.5  # two timed-out attempts, not two full replies
    assert (info.value.status, info.value.attempts, len(fake.requests)) == (None, 2, 2)
    assert "timed out after 0.3 s" in str(info.value)


def test_connection_refused_is_retried_then_fails():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed when the block ends: nothing listens there
    with pytest.raises(LLMError) as info:
        chat(LLMConfig(base_url=f"http://127.0.0.1:{port}/v1", model="m", max_retries=1, retry_backoff=0.01))
    assert (info.value.status, info.value.attempts) == (None, 2)
    assert "Cannot connect" in str(info.value) and f"127.0.0.1:{port}" in str(info.value)


def test_invalid_response_body_is_an_error(fake, config):
    fake.script(Reply(body="<html>proxy page</html>"), Reply(body={"object": "error"}))
    for _ in range(2):
        with pytest.raises(LLMError, match="invalid response") as info:
            chat(config)
        assert info.value.attempts == 1


def test_chat_many_bounds_concurrency_keeps_order_and_isolates_failures(fake, config):
    def handler(body):
        text = body["messages"][-1]["content"]
        if text == "fail":
            return Reply(400, {"error": "rejected"})
        return Reply(body=completion(f"echo:{text}"), delay=0.05)

    fake.handler = handler
    prompts = [str(i) for i in range(12)]
    prompts[5] = "fail"
    llm = LLMClient(replace(config, max_concurrency=3))
    results = llm.chat_many_sync(
        [{"messages": [{"role": "user", "content": p}]} for p in prompts], desc="test"
    )
    assert fake.max_in_flight == 3
    assert isinstance(results[5], LLMError) and results[5].status == 400
    assert [r.content for i, r in enumerate(results) if i != 5] == [
        f"echo:{p}" for p in prompts if p != "fail"
    ]
    # A second synchronous call runs in a new event loop: the client must bind to it.
    again = llm.chat_many_sync([{"messages": [{"role": "user", "content": "x"}], "max_tokens": 3}])
    assert again[0].content == "echo:x" and fake.requests[-1]["body"]["max_tokens"] == 3


def test_chat_many_rejects_malformed_requests(config):
    with pytest.raises(TypeError, match=r"requests\[1\]"):
        LLMClient(config).chat_many_sync([{"messages": MESSAGES}, {"prompt": "hi"}])


def test_no_implicit_hub_token_and_api_key_from_env(fake, config, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_must_not_leak")
    monkeypatch.delenv("ENVSCALE_LLM_API_KEY", raising=False)
    chat(config)
    assert "authorization" not in fake.requests[-1]["headers"]
    monkeypatch.setenv("ENVSCALE_LLM_API_KEY", "sk-from-env")
    chat(config)
    assert fake.requests[-1]["headers"]["authorization"] == "Bearer sk-from-env"
    chat(replace(config, api_key="sk-explicit"))
    assert fake.requests[-1]["headers"]["authorization"] == "Bearer sk-explicit"
    assert "sk-explicit" not in repr(replace(config, api_key="sk-explicit"))


def test_works_when_the_hub_is_offline(fake, config, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)  # an LLM endpoint is not the Hub
    assert chat(config).content == "echo:What is the weather in Paris?"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"base_url": "127.0.0.1:8000"}, "LLMConfig.base_url must be an http"),
        ({"model": None}, "LLMConfig.model must name the served model id"),
        ({"max_concurrency": 0}, "LLMConfig.max_concurrency must be >= 1, got 0"),
        ({"max_retries": -1}, "LLMConfig.max_retries must be >= 0"),
        ({"timeout": 0}, "LLMConfig.timeout must be > 0"),
        ({"timeout": float("inf")}, "LLMConfig.timeout must be a finite number"),
        ({"temperature": 3.0}, "LLMConfig.temperature must be <= 2"),
        ({"max_tokens": True}, "LLMConfig.max_tokens must be a number"),
        ({"seed": 1.5}, "LLMConfig.seed must be an integer"),
    ],
)
def test_config_validation(overrides, message):
    with pytest.raises(ValueError, match=message):
        LLMConfig(**({"base_url": "http://127.0.0.1:8000/v1", "model": "m"} | overrides))


def test_disabled_config():
    config = LLMConfig()
    assert not config.enabled and LLMConfig(base_url="http://h/v1", model="m").enabled
    with pytest.raises(ValueError, match="base_url is not set"):
        LLMClient(config)


# ---------------------------------------------------------------------------------------------------------------
# A real OpenAI-compatible server: `transformers serve` on loopback with a tiny model built here from a config.


def build_tiny_chat_model(path) -> None:
    """A 2-layer Qwen2 (hidden 64) with a BPE tokenizer trained on the spot and a ChatML template.

    The output head is zero, so every logit ties and greedy decoding always picks token 0 ("!"): the model's
    answer is known in advance without training it.
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tokenizer.train_from_iterator(["hello world, what is the weather in Paris today?"] * 10, trainer)
    tokenizer.add_special_tokens(
        ["<|im_start|>", "<|im_end|>", "<|endoftext|>"]
    )  # after the bytes: token 0 is "!"
    template = (
        "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>", chat_template=template
    )
    fast.save_pretrained(path)
    torch.manual_seed(0)
    config = Qwen2Config(
        vocab_size=len(fast),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        tie_word_embeddings=False,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.pad_token_id,
    )
    model = Qwen2ForCausalLM(config)
    torch.nn.init.zeros_(model.lm_head.weight)
    model.save_pretrained(path)


@pytest.fixture(scope="module")
def transformers_serve(tmp_path_factory):
    """`transformers serve <local model dir>` in a subprocess; yields (base_url, model id); always killed."""
    root = tmp_path_factory.mktemp("serve")
    model_dir = str(root / "tiny-qwen2")
    build_tiny_chat_model(model_dir)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [
        sys.executable,
        "-c",
        "from transformers.cli.transformers import main; main()",
        "serve",
        model_dir,
    ]
    command += ["--host", "127.0.0.1", "--port", str(port), "--device", "cpu"]
    env = os.environ | {"HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    log = open(root / "serve.log", "w+b")  # noqa: SIM115 (closed in finally)
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                pytest.fail(
                    f"transformers serve did not come up:\n{log.read().decode(errors='replace')[-3000:]}"
                )
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/v1", model_dir
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.mark.slow
def test_real_openai_compatible_server(transformers_serve):
    base_url, model_id = transformers_serve
    llm = LLMClient(LLMConfig(base_url=base_url, model=model_id, max_tokens=6, timeout=30, max_concurrency=2))
    requests = [
        {"messages": MESSAGES},
        {"messages": MESSAGES, "tools": TOOLS},
        {"messages": MESSAGES, "max_tokens": 3},
    ]
    plain, with_tools, short = llm.chat_many_sync(requests)
    for result, n in [(plain, 6), (with_tools, 6), (short, 3)]:
        assert isinstance(result, ChatResult), result
        assert (result.content, result.finish_reason, result.tool_calls) == ("!" * n, "length", [])
        assert result.usage["completion_tokens"] == n and result.usage["prompt_tokens"] > 0
        assert result.usage["total_tokens"] == result.usage["prompt_tokens"] + n
        assert result.latency_s > 0

    with pytest.raises(LLMError) as info:  # the server is pinned to the model it serves
        chat(LLMConfig(base_url=base_url, model="no-such-model", timeout=30))
    assert (info.value.status, info.value.attempts) == (400, 1)
    assert "no-such-model" in str(info.value) and base_url in str(info.value)


def _deep(n: int) -> str:
    return "[" * n + "]" * n


_GOOD = completion("fine")
# Malformed replies that an OpenAI-compatible server (or a proxy in front of it) has been seen to send.
# Each becomes an LLMError naming what was wrong with the reply's first bytes, never another exception.
MALFORMED_BODIES = {
    "body a list": [_GOOD],
    "body a string": '"hello"',
    "body a number": "42",
    "choices a dict": {**_GOOD, "choices": {"0": _GOOD["choices"][0]}},
    "choices empty": {**_GOOD, "choices": []},
    "choice a string": {**_GOOD, "choices": ["hi"]},
    "message a string": {**_GOOD, "choices": [{"index": 0, "message": "hi", "finish_reason": "stop"}]},
    "message missing": {**_GOOD, "choices": [{"index": 0, "finish_reason": "stop"}]},
    "content a dict": completion({"text": "hi"}),
    "deep body": '{"choices": ' + _deep(100_000) + "}",
}


@pytest.mark.parametrize("shape", sorted(MALFORMED_BODIES))
def test_a_malformed_reply_is_an_llm_error_with_its_first_bytes(fake, config, shape):
    fake.script(Reply(body=MALFORMED_BODIES[shape]))
    with pytest.raises(LLMError, match="invalid response") as info:
        chat(config)
    assert info.value.attempts == 1 and len(str(info.value)) < 1500
    fake.script(Reply(body=_GOOD))  # the client still works afterwards
    assert chat(config).content == "fine"


def _reply_with(**message) -> dict:
    body = completion("x")
    body["choices"][0]["message"] = {"role": "assistant", "content": None, **message}
    return body


# Malformed tool calls are data about the model: kept as `ToolCall`s with their `error`, as the module says.
MALFORMED_CALLS = {
    "tool_calls a string": (_reply_with(tool_calls="get_weather(city=Paris)"), "must be a list"),
    "tool_calls [null]": (_reply_with(tool_calls=[None]), "must be a JSON object, got NoneType"),
    "function a string": (_reply_with(tool_calls=[{"id": "c", "function": "get_weather"}]), "got str"),
    "function.name an int": (_reply_with(tool_calls=[call(7, "{}")]), "no function name"),
    "deep arguments text": (
        _reply_with(tool_calls=[call("get_weather", _deep(50_000))]),
        "nested too deeply",
    ),
    "deep arguments object": (
        _reply_with(tool_calls=[call("get_weather", json.loads('{"a": ' + _deep(900) + "}"))]),
        "nested too deeply",
    ),
    "deep <tool_call>": (
        completion("<tool_call>" + '{"name": "f", "arguments": ' + _deep(50_000) + "}</tool_call>"),
        "nested too deeply",
    ),
}


@pytest.mark.parametrize("shape", sorted(MALFORMED_CALLS))
def test_a_malformed_tool_call_is_kept_with_its_error(fake, config, shape):
    body, why = MALFORMED_CALLS[shape]
    fake.script(Reply(body=body))
    (bad,) = chat(config).tool_calls
    assert bad.arguments is None and why in bad.error


def test_odd_but_usable_fields_are_read_or_dropped(fake, config):
    body = completion([{"type": "text", "text": "a"}, {"type": "text", "text": 1}, {"type": "image"}])
    body["usage"], body["choices"][0]["finish_reason"] = [1, 2], ["stop"]
    body["choices"][0]["message"]["tool_calls"] = call("get_weather", {"city": "Paris"})  # one call, bare
    fake.script(Reply(body=body))
    result = chat(config)
    assert (result.content, result.usage, result.finish_reason) == ("a1", None, None)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [("get_weather", {"city": "Paris"})]


def test_a_reply_over_the_size_cap_fails_without_reading_it_all(fake, config):
    sent = []

    def chunks():  # 300 MB, streamed without a content-length
        yield b'{"choices": [{"message": {"content": "'
        for _ in range(300 * 16):
            sent.append(1)
            yield b"x" * (1 << 16)

    fake.script(Reply(chunks=chunks))
    with pytest.raises(LLMError, match="over max_reply_bytes"):
        chat(replace(config, max_reply_bytes=1 << 20))
    assert len(sent) < 300 * 16  # the client stopped reading: the server never sent it all


def test_a_trickling_or_silent_reply_is_bounded_by_the_timeout(fake, config):
    fake.script(Reply(body=_GOOD, trickle=0.05), Reply(body=_GOOD, delay=30))
    for _ in range(2):
        start = time.perf_counter()
        with pytest.raises(LLMError, match="timed out after 0.5 s"):
            chat(replace(config, timeout=0.5, max_retries=0))
        assert time.perf_counter() - start < 5  # bounded by the deadline, not by the body (~30 s each)
