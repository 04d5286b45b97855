"""One thin async client for OpenAI-compatible Chat Completions (TGI, vLLM, SGLang, `transformers serve`,
hosted APIs) on `aiohttp` (the `POST {base_url}/chat/completions` route): bounded concurrency, retries with
backoff on transient failures (connection errors, timeouts, 408, 429, 5xx), one error type that names the
endpoint, and tool calls parsed alike whatever the server sends (`arguments` as a dict or a JSON string, or
Hermes/Qwen-style `<tool_call>{...}</tool_call>` blocks in the content). A malformed tool call is kept, with
its reason in `ToolCall.error`, instead of raising: it is data about the model, not a client failure. A
reply of any other shape (a list for a body, `choices` a dict, a message that is a string, JSON nested past
what a parser can hold) is an `LLMError` quoting the reply's first bytes, never another exception; a reply
larger than `max_reply_bytes` stops being read, and `timeout` bounds a whole attempt, a body trickled a byte
at a time included.

Example:

```python
>>> from envscale.llm import LLMClient, LLMConfig
>>> llm = LLMClient(LLMConfig(base_url="http://127.0.0.1:8000/v1", model="Qwen/Qwen3-0.6B"))
>>> result = llm.chat_many_sync([{"messages": [{"role": "user", "content": q}]} for q in ["Hi", "2+2?"]])
>>> [r.content if not isinstance(r, Exception) else r for r in result]
['Hello! How can I help?', '4']
>>> # In async code: `async with LLMClient(config) as llm: result = await llm.chat(messages, tools=tools)`
```
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import re
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import aiohttp
from tqdm.auto import tqdm

from envscale.config import check_fields, option

logger = logging.getLogger(__name__)

API_KEY_ENV = "ENVSCALE_LLM_API_KEY"
_TOOL_CALL_BLOCK = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_MAX_BACKOFF_S = 30.0


@dataclass
class LLMConfig:
    """Where and how to call an OpenAI-compatible Chat Completions endpoint (see the module docstring)."""

    base_url: str | None = option(None, "Server URL (http://host:port/v1); null: none, stages run offline.")
    model: str | None = option(None, "The served model id, sent as `model` (required with base_url).")
    api_key: str | None = option(None, f"Bearer token (null: ${API_KEY_ENV}).", repr=False)
    max_concurrency: int = option(8, "Requests in flight at once, per client.", ge=1, le=4096)
    max_retries: int = option(
        3, "Retries after a connection error, timeout, 408, 429 or 5xx (0: no retry).", ge=0, le=100
    )
    retry_backoff: float = option(
        0.5, "First retry's wait in seconds, doubled per retry (max 30), jittered.", ge=0, le=600
    )
    timeout: float = option(
        60.0, "Seconds one request may take before it is abandoned (and retried).", gt=0, le=86_400
    )
    max_reply_bytes: int = option(
        8 * 2**20, "Largest reply body read, in bytes; a larger one fails the request (not retried).", ge=1024
    )
    temperature: float = option(0.0, "Sampling temperature; a request may override it.", ge=0, le=2)
    max_tokens: int = option(
        512, "Most tokens generated per request; a request may override it.", ge=1, le=10_000_000
    )
    seed: int | None = option(
        0, "Sampling seed sent to the server (null: none); a request may override it.", ge=0, le=2**63 - 1
    )

    def __post_init__(self):
        check_fields(self)

        def fail(name: str, why: str):
            raise ValueError(f"LLMConfig.{name} {why}, got {getattr(self, name)!r}")

        if self.base_url is not None:
            if not isinstance(self.base_url, str) or not self.base_url.startswith(("http://", "https://")):
                fail("base_url", "must be an http:// or https:// URL (or null for no endpoint)")
            if not self.model:
                fail("model", f"must name the served model id when base_url is set ({self.base_url})")

    @property
    def enabled(self) -> bool:
        """Whether an endpoint is configured (`base_url` is set)."""
        return self.base_url is not None


@dataclass
class ToolCall:
    """A tool call of an assistant message; `error` says why `arguments` could not be parsed (then None)."""

    id: str
    name: str
    arguments: dict | None
    raw_arguments: str | None
    error: str | None = None


@dataclass
class ChatResult:
    """The first choice of a chat completion. `latency_s` is the successful request's round trip."""

    content: str | None
    tool_calls: list[ToolCall]
    finish_reason: str | None
    usage: dict | None
    latency_s: float
    attempts: int = 1


class LLMError(RuntimeError):
    """A request that failed for good: `status` is the last HTTP status (None: no response)."""

    def __init__(self, message: str, *, status: int | None = None, attempts: int = 1):
        super().__init__(message)
        self.status, self.attempts = status, attempts


_MAX_RAW = 100_000
"""Characters of a tool call's arguments kept as `raw_arguments` when they came as an object."""
_MAX_DEPTH = 100
"""Deepest nesting of tool-call arguments accepted (a JSON encoder recurses once per level)."""


def _too_deep(value: Any, depth: int = 0) -> bool:
    """Whether `value` nests dicts/lists deeper than `_MAX_DEPTH` (iterative: no recursion limit)."""
    stack = [(value, depth)]
    while stack:
        item, level = stack.pop()
        if level > _MAX_DEPTH:
            return True
        if isinstance(item, dict):
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, level + 1) for v in item)
    return False


def parse_tool_call(call_id: Any, name: Any, arguments: Any, index: int = 0) -> ToolCall:
    """A `ToolCall` from `arguments` given as a dict (TGI), a JSON string (OpenAI) or nothing (none)."""
    call_id = call_id if isinstance(call_id, str) and call_id else f"call_{index}"
    raw = arguments if arguments is None or isinstance(arguments, str) else _first_bytes(arguments, _MAX_RAW)
    parsed, error = ({} if arguments is None else arguments), None
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            error = f"arguments are not valid JSON ({exc})"
        except RecursionError:
            error = "arguments are nested too deeply to parse"
    elif isinstance(arguments, dict) and _too_deep(arguments):
        error = "arguments are nested too deeply to parse"
    if error is None and not isinstance(parsed, dict):
        error = f"arguments must be a JSON object, got {type(parsed).__name__}"
    if error is None and not (isinstance(name, str) and name):
        error = "tool call has no function name"
    return ToolCall(call_id, name if isinstance(name, str) else "", None if error else parsed, raw, error)


def parse_content_tool_calls(content: str) -> tuple[str | None, list[ToolCall]]:
    """Split Hermes/Qwen `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` blocks out of `content`:
    (the rest, or None if nothing is left; one `ToolCall` per block, an unclosed last block included)."""
    calls = []
    for i, match in enumerate(_TOOL_CALL_BLOCK.finditer(content)):
        text = match.group(1).strip()
        try:
            block = json.loads(text)
            error = None if isinstance(block, dict) else "<tool_call> block must be a JSON object"
        except json.JSONDecodeError as exc:
            error = f"<tool_call> block is not valid JSON ({exc})"
        except RecursionError:
            error = "<tool_call> block is nested too deeply to parse"
        if error:
            calls.append(ToolCall(f"call_{i}", "", None, text, error))
            continue
        arguments = block.get("arguments", block.get("parameters"))  # some templates say "parameters"
        calls.append(parse_tool_call(None, block.get("name"), arguments, i))
    rest = _TOOL_CALL_BLOCK.sub("", content).strip()
    return rest or None, calls


def _text_of(content: Any) -> str | None:
    """Message content as text: a string, or content parts (`[{"type": "text", "text": ...}]`) joined;
    a part whose text is not a string counts by its printed value (`1` -> "1"), other parts are skipped."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [p.get("text") for p in content if isinstance(p, dict) and p.get("text") is not None]
        return "".join(t if isinstance(t, str) else json.dumps(t) for t in texts) or None
    raise ValueError(f"message content must be text or content parts, got {type(content).__name__}")


def _tool_calls(raw: Any) -> list[ToolCall]:
    """The `tool_calls` of a message, each parsed or kept with its `error` (never raising on a bad entry)."""
    if raw is None or raw == []:
        return []
    if isinstance(raw, dict):  # one call sent bare instead of in a list
        raw = [raw]
    if not isinstance(raw, list):
        return [
            ToolCall(
                "call_0", "", None, _first_bytes(raw), f"tool_calls must be a list, got {type(raw).__name__}"
            )
        ]
    calls = []
    for i, call in enumerate(raw):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            what = "the tool call" if not isinstance(call, dict) else "its `function`"
            got = type(call if not isinstance(call, dict) else function).__name__
            error = f"{what} must be a JSON object, got {got}"
            calls.append(ToolCall(f"call_{i}", "", None, _first_bytes(call), error))
            continue
        calls.append(parse_tool_call(call.get("id"), function.get("name"), function.get("arguments"), i))
    return calls


def _first_bytes(value: Any, limit: int = 200) -> str:
    """The first `limit` characters of a value as the server sent it (for error messages)."""
    try:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _parse_output(output: dict, latency_s: float, attempts: int) -> ChatResult:
    """The first choice of a Chat Completions body; a body of another shape raises `ValueError` naming it."""
    choices = output.get("choices")
    if not isinstance(choices, list) or not choices:
        raise ValueError(f"no choices in the response (a non-empty list): {_first_bytes(output)}")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise ValueError(f"choices[0].message is not a JSON object: {_first_bytes(choice)}")
    content, calls = _text_of(message.get("content")), _tool_calls(message.get("tool_calls"))
    if not calls and isinstance(content, str) and "<tool_call>" in content:
        content, calls = parse_content_tool_calls(content)
    usage = output.get("usage")
    finish = choice.get("finish_reason")
    return ChatResult(
        content,
        calls,
        finish if isinstance(finish, str) else None,
        dict(usage) if isinstance(usage, dict) and usage else None,
        latency_s,
        attempts,
    )


class _HTTPStatusError(Exception):
    """A response with an error status: its status, body (cut) and Retry-After seconds."""

    def __init__(self, status: int, body: str, retry_after: float):
        super().__init__(f"HTTP {status}")
        self.status, self.body, self.retry_after = status, body, retry_after


def _failure(exc: Exception, timeout: float) -> tuple[str, bool, int | None, float]:
    """(cause, retryable?, HTTP status, server's Retry-After in seconds) of a failed attempt."""
    if isinstance(exc, TimeoutError):
        return f"timed out after {timeout:g} s", True, None, 0.0
    if isinstance(exc, aiohttp.ClientError):  # connection refused or reset, a response cut short
        return f"{type(exc).__name__}: {exc}", True, None, 0.0
    if isinstance(exc, _HTTPStatusError):
        status = exc.status
        return (
            f"HTTP {status}: {exc.body or '(empty body)'}",
            status in (408, 429) or status >= 500,
            status,
            exc.retry_after,
        )
    return f"invalid response: {exc}", False, None, 0.0  # a ValueError: the body is not a chat completion


def _retry_after(value: str | None) -> float:
    value = (value or "").strip()
    return float(value) if value.replace(".", "", 1).isdigit() else 0.0


_JSON_HEADERS = {"content-type": "application/json"}
#: Tool lists whose JSON is kept (by identity; the list itself is held so that its id stays its own).
_TOOLS_CACHE_SIZE = 256


class LLMClient:
    """Async client for the endpoint of `config` (which must be enabled), shared by the coroutines of an event
    loop under one concurrency bound. Close it with `aclose()` or `async with` (chat_many_sync does).

    The request body is encoded once per request; the tool schemas, the bulk of a body and the same object
    over an episode (and over the episodes of an environment), are encoded once per list and spliced in."""

    def __init__(self, config: LLMConfig):
        if not config.enabled:
            raise ValueError("LLMClient needs an endpoint: LLMConfig.base_url is not set")
        self.config = config
        self._api_key = config.api_key or os.environ.get(API_KEY_ENV) or None  # never a Hugging Face token
        self._url = config.base_url.rstrip("/") + "/chat/completions"
        self._loop = self._semaphore = self._session = None  # bound to the running event loop
        self._tools_json: OrderedDict[int, tuple[list, str]] = OrderedDict()

    def _encode_tools(self, tools: list[dict]) -> str:
        cached = self._tools_json.get(id(tools))
        if cached is not None and cached[0] is tools:
            self._tools_json.move_to_end(id(tools))
            return cached[1]
        text = json.dumps(tools, ensure_ascii=False)
        self._tools_json[id(tools)] = (tools, text)
        if len(self._tools_json) > _TOOLS_CACHE_SIZE:
            self._tools_json.popitem(last=False)
        return text

    def _encode(self, body: dict, tools: list[dict] | None) -> bytes:
        """The JSON request body: `body` with `tools` (encoded once per tool list) as its last field."""
        text = json.dumps(body, ensure_ascii=False)
        if tools:
            text = f'{text[:-1]}, "tools": {self._encode_tools(tools)}}}'
        return text.encode("utf-8")

    def _bind(self) -> tuple[asyncio.Semaphore, aiohttp.ClientSession]:
        # Connections and semaphores belong to an event loop: new ones for a new loop (each chat_many_sync).
        cfg, loop = self.config, asyncio.get_running_loop()
        if self._loop is not loop:
            self._loop, self._semaphore = loop, asyncio.Semaphore(cfg.max_concurrency)
            headers = {"authorization": f"Bearer {self._api_key}"} if self._api_key else None
            connector = aiohttp.TCPConnector(limit=max(100, cfg.max_concurrency))
            self._session = aiohttp.ClientSession(connector=connector, headers=headers, trust_env=False)
        return self._semaphore, self._session

    async def _post(self, session: aiohttp.ClientSession, body: bytes) -> dict:
        async with session.post(self._url, data=body, headers=_JSON_HEADERS) as response:
            if response.status >= 400:
                text = (await response.content.read(500)).decode("utf-8", errors="replace")
                raise _HTTPStatusError(
                    response.status, text, _retry_after(response.headers.get("retry-after"))
                )
            cap = self.config.max_reply_bytes
            if (response.content_length or 0) > cap:
                raise ValueError(
                    f"the reply is {response.content_length} bytes, over max_reply_bytes ({cap})"
                )
            data = bytearray()
            async for chunk in response.content.iter_chunked(1 << 16):
                data += chunk
                if len(data) > cap:
                    raise ValueError(
                        f"the reply is over max_reply_bytes ({cap} bytes): {bytes(data[:200])!r}"
                    )
            try:
                output = json.loads(data.decode("utf-8"))
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise ValueError(f"the body is not JSON ({exc}): {bytes(data[:200])!r}") from None
            except RecursionError:
                raise ValueError(f"the body is nested too deeply to parse: {bytes(data[:200])!r}") from None
            if not isinstance(output, dict):
                raise ValueError(f"the body is not a JSON object: {_first_bytes(output)}")
            return output

    async def aclose(self) -> None:
        """Close the connections of the current event loop's client."""
        if self._session is not None:
            await self._session.close()
        self._loop = self._semaphore = self._session = None

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def chat(
        self, messages: list[dict], *, tools: list[dict] | None = None, tool_choice=None, **params
    ) -> ChatResult:
        """One chat completion, retried on transient failures.

        Args:
            messages (`list[dict]`): OpenAI-format messages.
            tools (`list[dict]`, *optional*): OpenAI-format tool schemas.
            tool_choice (*optional*): `"auto"`, `"none"`, `"required"` or a named function; None: not sent.
            **params: Other Chat Completions fields (`temperature`, `max_tokens`, `seed`, `top_p`, `stop`,
                ...; `None` values are not sent) and `extra_body` (merged into the request body as it is);
                they override the config's defaults.

        Returns `ChatResult`; raises `LLMError` when the request fails for good (after retries, or on a 4xx).
        """
        cfg = self.config
        semaphore, session = self._bind()
        params = {k: getattr(cfg, k) for k in ("model", "temperature", "max_tokens", "seed")} | params
        extra = params.pop("extra_body", None) or {}
        body = {"messages": messages, **{k: v for k, v in params.items() if v is not None}, **extra}
        if tool_choice is not None:
            body["tool_choice"] = tool_choice
        if tools:
            body.pop("tools", None)  # the argument wins over an extra_body's, as before
        payload = self._encode(body, tools)
        for attempt in range(1, cfg.max_retries + 2):
            try:
                async with semaphore:
                    start = time.perf_counter()
                    async with asyncio.timeout(cfg.timeout):
                        output = await self._post(session, payload)
                    return _parse_output(output, time.perf_counter() - start, attempt)
            except (TimeoutError, aiohttp.ClientError, _HTTPStatusError, ValueError) as exc:
                cause, retry, status, wait = _failure(exc, cfg.timeout)
            if not retry or attempt > cfg.max_retries:
                raise LLMError(
                    f"chat completion failed after {attempt} attempt{'s' if attempt > 1 else ''} "
                    f"at {cfg.base_url} (model {cfg.model!r}): {cause}",
                    status=status,
                    attempts=attempt,
                )
            delay = min(_MAX_BACKOFF_S, cfg.retry_backoff * 2 ** (attempt - 1)) * random.uniform(0.5, 1.0)
            delay = max(delay, min(wait, _MAX_BACKOFF_S))  # the server's Retry-After, if any
            logger.info("retry %d/%d in %.2f s: %s", attempt, cfg.max_retries, delay, cause)
            await asyncio.sleep(delay)

    async def chat_many(self, requests: list[dict], *, desc: str = "llm") -> list[ChatResult | LLMError]:
        """Run many `chat` calls concurrently (bounded by `max_concurrency`), with a progress bar.

        Args:
            requests (`list[dict]`): Keyword arguments of `chat`, one dict per request (`messages` required).
            desc (`str`, *optional*): Progress bar label.

        Returns one `ChatResult` or `LLMError` per request, in input order: a failure never stops the others.
        """
        for i, request in enumerate(requests):
            if not isinstance(request, dict) or "messages" not in request:
                raise TypeError(f"requests[{i}] must be a dict of chat() arguments with 'messages'")
        results: list[ChatResult | LLMError | None] = [None] * len(requests)
        with tqdm(total=len(requests), desc=desc, unit="req") as bar:

            async def run(i: int, request: dict) -> None:
                try:
                    results[i] = await self.chat(**request)
                except LLMError as exc:
                    results[i] = exc
                bar.update(1)

            async with asyncio.TaskGroup() as group:  # only a bug (not an LLMError) cancels the rest
                for i, request in enumerate(requests):
                    group.create_task(run(i, request))
        return results

    def chat_many_sync(self, requests: list[dict], *, desc: str = "llm") -> list[ChatResult | LLMError]:
        """`chat_many` for synchronous callers: runs in a fresh event loop (not from inside a running one)."""

        async def run():
            try:
                return await self.chat_many(requests, desc=desc)
            finally:
                await self.aclose()

        return asyncio.run(run())
