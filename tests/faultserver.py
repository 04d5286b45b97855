"""A loopback fake LLM server that answers every request with the next fault of a cycle, for stage tests.

This is a deterministic FAKE OpenAI-compatible server (it runs no model), built on `tests/llmfake.py`: request
`i` gets `faults[i % len(faults)]`, a `(name, reply)` pair where `reply` is a `Reply` or a function of the
request body returning one. It counts what it served per name (`served`), so a test can check that a stage
run met every fault. The transport faults a stage must survive are made here: `huge_reply` (a body of
`size` bytes streamed from a generator, never held in memory), `trickle` (a byte every `every` seconds)
and `silence` (the connection is accepted and never answered).

Example:

```python
>>> server = start_fault_server([("ok", Reply(body=completion("yes"))), ("silence", silence())])
>>> server.url  # pass as an LLM base_url
'http://127.0.0.1:PORT/v1'
>>> server.stop(); server.served
Counter({'ok': 1, 'silence': 1})
```
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter
from collections.abc import Callable

from llmfake import LLMFake, Reply, completion

SILENCE_S = 3600.0
"""How long `silence` keeps a request unanswered: past any deadline a test sets."""


def huge_reply(size: int = 300 * 2**20) -> Reply:
    """A 200 reply of `size` bytes (a chat completion whose content never ends), streamed without a
    content-length from a generator: the server never holds it, and stops when the client hangs up."""
    chunk = b"x" * (1 << 16)

    def chunks():
        yield b'{"choices": [{"message": {"role": "assistant", "content": "'
        for _ in range(size // len(chunk)):
            yield chunk

    return Reply(chunks=chunks)


def trickle(every: float = 1.0) -> Reply:
    """A well-formed completion sent a byte every `every` seconds (minutes in all)."""
    return Reply(body=completion("yes"), trickle=every)


def silence() -> Reply:
    """A request accepted and never answered (within `SILENCE_S`)."""
    return Reply(body=completion("too late"), delay=SILENCE_S)


class FaultServer(LLMFake):
    """`LLMFake` whose handler cycles through `faults` (see the module docstring)."""

    def __init__(self, faults: list[tuple[str, Reply | Callable[[dict], Reply]]]):
        super().__init__()
        self.faults = list(faults)
        self.served: Counter = Counter()
        self._turn = itertools.count()
        self._count_lock = threading.Lock()
        self.handler = self._answer

    def _answer(self, body: dict) -> Reply:
        with self._count_lock:
            name, reply = self.faults[next(self._turn) % len(self.faults)]
            self.served[name] += 1
        return reply(body) if callable(reply) else reply


def start_fault_server(faults: list[tuple[str, Reply | Callable[[dict], Reply]]]) -> FaultServer:
    """Start a `FaultServer` on a free loopback port; call `.stop()` when done."""
    return FaultServer(faults)
