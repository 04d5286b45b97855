"""Loopback fake of an OpenAI-compatible Chat Completions server, for tests.

This is a deterministic FAKE OpenAI-compatible server for fault injection; it runs no model. The real-server test
of `envscale.llm` uses `transformers serve` instead (see `tests/test_llm.py`).

`POST /v1/chat/completions` answers, in order, the `Reply`s queued with `script(...)` (status, JSON or raw body,
delay before answering, headers, a body trickled a byte at a time, or a streamed body of unknown length); once the queue is empty it asks `handler(body)`, which by default echoes the
last user message. It records every request (`requests`: headers and JSON body) and the most requests it had in
flight at once (`max_in_flight`). Any other route answers 404.

Example:

```python
>>> fake = start_llm_fake()
>>> fake.script(Reply(500), Reply(body=completion("hi")))
>>> fake.url  # pass as LLMConfig.base_url
'http://127.0.0.1:PORT/v1'
>>> fake.stop()
```
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    """One scripted answer: `body` is JSON-encoded unless it is a str; `delay` is slept before answering."""

    status: int = 200
    body: dict | str | None = None
    delay: float = 0.0
    headers: dict = field(default_factory=dict)
    trickle: float = 0.0  # > 0: send the body a byte at a time, this many seconds apart
    chunks: Callable[[], Iterable[bytes]] | None = (
        None  # a streamed body of unknown length (no content-length)
    )


def completion(content=None, tool_calls=None, finish_reason="stop", model="fake-model") -> dict:
    """An OpenAI chat completion body with one choice."""
    message = {"role": "assistant", "content": content}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    }


def tool_call(name: str, arguments: dict | str, call_id: str = "call_0") -> dict:
    """One OpenAI tool call of an assistant message; `arguments` as a dict (TGI) or as text (OpenAI), any text."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def echo(body: dict) -> Reply:
    """The default handler: answer `echo:<last user message>`."""
    user = [m for m in body.get("messages", []) if m.get("role") == "user"]
    return Reply(body=completion(f"echo:{user[-1]['content'] if user else ''}"))


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # the default 5 drops the connections of a burst of concurrent episodes


class LLMFake:
    def __init__(self):
        self.replies: deque[Reply] = deque()
        self.handler: Callable[[dict], Reply] = echo
        self.requests: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _make_handler(self))
        self._server.daemon_threads = True  # slow replies must not hold up stop()
        self._server.block_on_close = False
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="llm-fake", daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def _next(self, body: dict) -> Reply:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            reply = self.replies.popleft() if self.replies else None
        return reply or self.handler(body)

    def _done(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def _make_handler(fake: LLMFake) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # keep pytest output clean
            pass

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            if self.path.rstrip("/") != "/v1/chat/completions":
                return self._send(Reply(404, {"error": f"no route {self.path}"}))
            body = json.loads(raw or b"{}")
            with fake._lock:
                fake.requests.append(
                    {"headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
                )
            reply = fake._next(body)
            try:
                time.sleep(reply.delay)
            finally:
                fake._done()  # before answering, so the client's next request never overlaps this one
            self._send(reply)

        def _send(self, reply: Reply) -> None:
            if reply.chunks is not None:
                return self._stream(reply)
            data = reply.body if isinstance(reply.body, str) else json.dumps(reply.body or {})
            data = data.encode()
            try:
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                if reply.trickle > 0:
                    for i in range(len(data)):
                        self.wfile.write(data[i : i + 1])
                        self.wfile.flush()
                        time.sleep(reply.trickle)
                else:
                    self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                pass

        def _stream(self, reply: Reply) -> None:
            """A body of unknown length: no content-length, the connection closes at its end."""
            self.close_connection = True
            try:
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("connection", "close")
                self.end_headers()
                for chunk in reply.chunks():
                    self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):  # the client stopped reading
                pass

    return Handler


def start_llm_fake() -> LLMFake:
    """Start a fake on a free loopback port; call `.stop()` when done."""
    return LLMFake()
