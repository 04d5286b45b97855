"""Serve an environment as an MCP server, so any MCP client or agent can use it.

Each tool of the environment becomes an MCP tool with its JSON Schema and a read-only
annotation for reads; a call runs `Environment.step` and answers its observation (an error
observation is an MCP tool error). Two resources expose the state: `envscale://state_hash`
and `envscale://state` (all rows, as JSON). Built on fastmcp.

**One environment per client session.** The environment given to `build_server` is a template:
every MCP client session gets its own copy of its state, made on first use and freed when the
session ends, so clients of one server never see each other's writes, and the state resources
show the calling session's database. A session is the one opened by `initialize` (protocol
versions up to 2025-11-25), or, for the sessionless 2026-07-28 protocol, the client's stream
(stdio, in memory). Over HTTP that protocol has nothing that tells clients apart, so its requests
share one environment (see `SessionEnvironments`).

**The stdio transport.** `serve_stdio` reads newline-delimited JSON-RPC itself (instead of the
mcp SDK's `stdio_server`, which passes unparseable lines to the session as exceptions that nobody
answers) and every request gets an answer: a line that is not JSON gets a parse error (-32700,
`"id": null`), one that is JSON but not a usable JSON-RPC message (not an object, no method,
a bad id, an unpaired UTF-16 surrogate such as `"\\ud800"` that UTF-8 cannot carry) gets an
invalid-request error (-32600) with its id when it has a usable one. Notifications are never
answered (JSON-RPC); an unusable one is logged on stderr. Blank lines are skipped. A line longer than
`max_line_bytes` (16 MiB) is read to its end in pieces, never held whole, and refused (-32600). All output
goes through one writer, so answers never interleave; while serving, the process's file
descriptors 0 and 1 are pointed at /dev/null and stderr, so stray prints cannot corrupt the wire.

Example:

```bash
envscale serve-mcp outputs/quickstart/environments --env domain_3_orders     # stdio
envscale serve-mcp tests/fixtures/envs/shop.yaml
```

```python
>>> from envscale.env.mcp_server import build_server, load_environment
>>> server = build_server(load_environment("tests/fixtures/envs/shop.yaml"))
>>> len(server.environments)   # client sessions with an environment of their own so far
0
```
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import json
import logging
import os
import re
import signal
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from ..config import command_parser
from ..errors import Terminated
from .runtime import Environment
from .spec import SPEC_SUFFIXES, SpecError

logger = logging.getLogger(__name__)

PARSE_ERROR = -32700
"""JSON-RPC error code of a line that is not JSON (or not UTF-8)."""
INVALID_REQUEST = -32600
"""JSON-RPC error code of a line that is JSON but not a usable JSON-RPC message."""
INTERNAL_ERROR = -32603
"""JSON-RPC error code of an answer that could not be written (it held text UTF-8 cannot carry)."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def load_environment(ref: str, name: str | None = None, *, seed: int | None = None) -> Environment:
    """An environment from a YAML/JSON spec file or from an `environments` artifact (by name).

    Args:
        ref (`str`): A spec file (`.yaml`, `.yml`, `.json`) or an environments artifact
            (`PATH[@vN]`, `hf://org/name[@rev]`).
        name (`str`, *optional*): The environment of the artifact (default: its first one); for a
            spec file, the name of its environment (a check).
        seed (`int`, *optional*): Generate the initial state with this seed instead of the spec's.

    Returns:
        `Environment`: In its initial state.

    Raises:
        `SpecError`: The spec file is missing, unreadable, not a spec or invalid (the message
            starts with the file name), or there is no environment of that name.
        `ArtifactError`: The artifact cannot be opened.
    """
    path = Path(ref)
    if "://" not in ref and path.suffix.lower() in SPEC_SUFFIXES and not (path / "envscale.json").is_file():
        env = Environment.from_yaml(path)
        if name is not None and name != env.name:
            raise SpecError(f"{ref} holds environment {env.name!r}, not {name!r}")
    else:
        from ..artifacts import open_artifact

        rows = open_artifact(ref, expect_kind="environments").load("environments")
        names = rows["name"]
        if not names:
            raise SpecError(f"{ref} holds no environments")
        if name is not None and name not in names:
            raise SpecError(f"{ref} has no environment {name!r}; it has {', '.join(names[:20])}")
        env = Environment.from_row(rows[names.index(name) if name else 0])
    if seed is not None:
        env.reset(seed=seed)
    return env


class SessionEnvironments:
    """The environments of one server's MCP clients: one per client session, made on first use.

    Every environment starts from the template's state when this object was made. What counts as
    a client session:

    - the handshake era (protocol up to 2025-11-25): the session opened by `initialize`, on any
      transport; its environment is closed and dropped when the session's connection closes;
    - the 2026-07-28 era on a stream transport (stdio, in memory): the client's stream (this era
      makes a connection per request, but they all share the stream's channel); the environment
      is dropped with the stream;
    - the 2026-07-28 era over HTTP, and calls outside any request: nothing identifies a client from
      one request to the next, so these share one environment.

    Environments are held weakly by what identifies their session, so a session that is gone
    frees its environment.

    Args:
        template (`Environment`): Gives the spec, the options and the initial state; it is not
            changed by the calls of any session.

    Example:

    ```python
    >>> from envscale.env import Environment
    >>> sessions = SessionEnvironments(Environment.from_yaml("tests/fixtures/envs/shop.yaml"))
    >>> sessions.current() is sessions.current()   # outside a request: the shared one
    True
    >>> len(sessions)                               # environments of client sessions
    0
    ```
    """

    def __init__(self, template: Environment):
        self.spec = template.spec
        self._options = {"max_rows": template.max_rows, "time_limit_ms": template.time_limit_ms}
        self._initial = template.snapshot()
        self._by_session: weakref.WeakKeyDictionary[Any, Environment] = weakref.WeakKeyDictionary()
        self._shared: Environment | None = None

    def new(self) -> Environment:
        """A fresh environment in the initial state."""
        return Environment(self.spec, snapshot=self._initial, **self._options)

    def __len__(self) -> int:
        """How many client sessions hold an environment of their own now."""
        return len(self._by_session)

    def current(self) -> Environment:
        """The environment of the client session the current MCP request belongs to."""
        key, connection = _session_key()
        if key is None:
            if self._shared is None:
                self._shared = self.new()
            return self._shared
        env = self._by_session.get(key)
        if env is None:
            env = self._by_session[key] = self.new()
            if connection is not None:  # its exit stack is unwound by the mcp SDK when it closes
                connection.exit_stack.callback(self._end, weakref.ref(key))
        return env

    def _end(self, key_ref: weakref.ref) -> None:
        key = key_ref()
        env = self._by_session.pop(key, None) if key is not None else None
        if env is not None:
            env.close()


def _session_key() -> tuple[Any, Any]:
    """What identifies the current request's client session, and the connection to close it with.

    Returns:
        `(key, connection)`: `key` is `None` when nothing identifies the client (see
        `SessionEnvironments`); `connection` is the mcp SDK `Connection` whose closing ends the
        session, or `None` when the key simply goes away with the session.
    """
    from fastmcp.server.dependencies import get_context

    try:
        context = get_context()
        session = context.session
    except RuntimeError:  # no request: a direct call from Python
        return None, None
    # mcp 2 makes a ServerSession per request; its Connection lasts the client's session in the
    # handshake era, a single request in the 2026-07-28 era.
    connection = getattr(session, "_connection", None)
    if connection is None:  # an older SDK: the ServerSession is the session
        return session, None
    try:
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS
    except ImportError:
        MODERN_PROTOCOL_VERSIONS = ()  # noqa: N806 - an mcp without the sessionless era
    if connection.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return connection, connection if hasattr(connection, "exit_stack") else None
    request = getattr(context.request_context, "request", None)
    if request is not None or context.transport in ("sse", "streamable-http"):
        return None, None
    # On a stream transport every request's connection carries the stream's notification channel.
    return getattr(connection, "outbound", None), None


def _json_text(value: Any) -> str:
    """JSON text of a value; strings with unpaired surrogates (from json columns) are escaped."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return json.dumps(value, default=str) if _SURROGATE.search(text) else text


def build_server(env: Environment):
    """A FastMCP server whose tools are the environment's tools, with one environment per session.

    Args:
        env (`Environment`): The template: its state now is every session's initial state (see
            `SessionEnvironments`); calls never change it.

    Returns:
        `fastmcp.FastMCP`: The server; its `environments` attribute is the `SessionEnvironments`.
    """
    from fastmcp import FastMCP
    from fastmcp.tools import Tool, ToolResult
    from mcp.types import ToolAnnotations
    from pydantic import PrivateAttr

    sessions = SessionEnvironments(env)

    class EnvironmentTool(Tool):
        """One environment tool; `run` is a step of the calling session's environment."""

        _sessions: Any = PrivateAttr()

        async def run(self, arguments: dict[str, Any]) -> ToolResult:
            observation = self._sessions.current().step(self.name, arguments)
            return ToolResult(content=_json_text(observation), is_error=not observation.get("ok", False))

    spec = env.spec
    server = FastMCP(
        name=f"envscale-{spec['name']}", instructions=spec.get("policy") or spec.get("description")
    )
    for tool in spec["tools"]:
        mcp_tool = EnvironmentTool(
            name=tool["name"],
            description=tool.get("description") or tool["name"],
            parameters=tool["parameters"],
            annotations=ToolAnnotations(
                readOnlyHint=tool["kind"] == "read", destructiveHint=tool["kind"] == "write"
            ),
        )
        mcp_tool._sessions = sessions
        server.add_tool(mcp_tool)

    # Async, so that they run on the event loop like the tools (an environment is used from one thread).
    @server.resource("envscale://state_hash", mime_type="text/plain")
    async def state_hash() -> str:
        """Content hash of the calling session's database state."""
        return sessions.current().state_hash()

    @server.resource("envscale://state", mime_type="application/json")
    async def state() -> str:
        """Every row of every table of the calling session's database."""
        return _json_text(sessions.current().dump())

    server.environments = sessions
    return server


# ----------------------------------------------------------------------------------------------
# The stdio transport


def parse_line(line: bytes) -> Any:
    """What to do with one line a client sent.

    Args:
        line (`bytes`): The line, with or without its newline.

    Returns:
        A `mcp.shared.message.SessionMessage` to hand to the session; a `mcp_types.JSONRPCError` to
        send back at once (the line is not a usable message); or `None` (a blank line, or an
        unusable notification, which JSON-RPC never answers).

    Example:

    ```python
    >>> parse_line(b'{"jsonrpc": "2.0", "id": 7, "method": "tools/list"}').message.id
    7
    >>> parse_line(b'{"jsonrpc": "2.0", "id": 7, "method": "x", "params": {"a": "\\\\ud800"}}').error.code
    -32600
    >>> parse_line(b"{oops").model_dump(exclude_unset=True)["id"] is None
    True
    ```
    """
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    text = line.decode("utf-8", errors="surrogateescape")
    if not text.strip():
        return None
    try:
        message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValueError:  # pydantic's ValidationError: find out why, below
        message = None
    # A request whose id is not a string or an integer validates as a notification (the id is dropped).
    if message is not None and not (isinstance(message, types.JSONRPCNotification) and _has_id(text)):
        return SessionMessage(message)
    return _refusal(line, text)


MAX_LINE_BYTES = 16 * 2**20
"""The longest line `serve_stdio` reads; a longer one is skipped to its end and refused (-32600)."""


def read_line(stdin: BinaryIO, limit: int = MAX_LINE_BYTES) -> tuple[bytes, int]:
    """The next line of `stdin` (b"" at its end) and, when it was longer than `limit` bytes, its length
    (the line is then read to its end in pieces and dropped, so memory stays bounded); else 0."""
    line = stdin.readline(limit + 1)
    if len(line) <= limit or line.endswith(b"\n"):
        return line, 0
    size = len(line)
    while (piece := stdin.readline(1 << 20)) and not piece.endswith(b"\n"):
        size += len(piece)
    return b"", size + len(piece)


def too_long(size: int, limit: int) -> Any:
    """The error answering a line longer than `limit` (its id is unknown: never parsed)."""
    import mcp_types as types

    return types.JSONRPCError(
        jsonrpc="2.0",
        id=None,
        error=types.ErrorData(
            code=INVALID_REQUEST,
            message=f"Invalid Request: a line of {size} bytes, over the {limit}-byte limit",
        ),
    )


def _has_id(text: str) -> bool:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and "id" in data


def _refusal(line: bytes, text: str) -> Any:
    """The error answering a line that did not validate as a JSON-RPC message (or `None`)."""
    import mcp_types as types

    def error(request_id: Any, code: int, message: str) -> Any:
        return types.JSONRPCError(
            jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
        )

    try:
        line.decode("utf-8")
        bad_utf8 = None
    except UnicodeDecodeError as exc:
        bad_utf8 = exc
    try:
        data = json.loads(text)
    except RecursionError:
        return error(None, PARSE_ERROR, "Parse error: nested too deeply")
    except ValueError as exc:
        reason = f"not valid UTF-8 at byte {bad_utf8.start}" if bad_utf8 else str(exc)
        return error(None, PARSE_ERROR, f"Parse error: {reason}")
    if not isinstance(data, dict):
        what = "an array (batches are not supported)" if isinstance(data, list) else type(data).__name__
        return error(None, INVALID_REQUEST, f"Invalid Request: expected a JSON-RPC object, got {what}")
    request_id = data.get("id")
    usable_id = (isinstance(request_id, int) and not isinstance(request_id, bool)) or (
        isinstance(request_id, str) and not _SURROGATE.search(request_id)
    )
    is_response = "method" not in data and ("result" in data or "error" in data)
    if "id" not in data and data.get("jsonrpc") == "2.0" and isinstance(data.get("method"), str):
        logger.warning(
            "ignoring an unusable notification %.80a: %s", data["method"], _problem(data, bad_utf8)
        )
        return None
    # An answer to a client's response would be taken for the answer to the client's own request of
    # that id, so a broken response is answered with id null.
    answer_id = request_id if usable_id and not is_response else None
    code = PARSE_ERROR if bad_utf8 else INVALID_REQUEST
    return error(answer_id, code, _problem(data, bad_utf8))


def _problem(data: dict[str, Any], bad_utf8: UnicodeDecodeError | None) -> str:
    """Why a JSON object is not a usable JSON-RPC message, as an ASCII-safe one-line message."""
    import mcp_types as types

    where = _surrogate_path(data)
    if bad_utf8 is not None:
        return f"Parse error: not valid UTF-8 at byte {bad_utf8.start}" + (f" (in {where})" if where else "")
    if where:
        return f"Invalid Request: {where} holds an unpaired UTF-16 surrogate, which UTF-8 cannot carry"
    if data.get("jsonrpc") != "2.0":
        return 'Invalid Request: "jsonrpc" must be "2.0"'
    if "id" in data and not (isinstance(data["id"], int | str) and not isinstance(data["id"], bool)):
        return 'Invalid Request: "id" must be a string or an integer'
    if "method" in data and not isinstance(data["method"], str):
        return 'Invalid Request: "method" must be a string'
    if not any(key in data for key in ("method", "result", "error")):
        return 'Invalid Request: no "method" (nor the "result" or "error" of a response)'
    if "params" in data and not isinstance(data["params"], dict | None):
        return 'Invalid Request: "params" must be an object'
    try:
        types.jsonrpc_message_adapter.validate_python(data, by_name=False)
    except ValueError as exc:
        first = exc.errors()[0] if hasattr(exc, "errors") else {"loc": (), "msg": str(exc)}
        loc = ".".join(str(part) for part in first["loc"])
        return f"Invalid Request: {loc + ': ' if loc else ''}{first['msg']}".encode(
            "ascii", "replace"
        ).decode()
    return "Invalid Request"


def _surrogate_path(data: Any) -> str | None:
    """Where the first string (or key) holding a lone surrogate is, like `params.arguments.name`."""
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value):
                return path or "the message"
        elif isinstance(value, dict):
            items = list(value.items())
            for key, item in reversed(items):
                if _SURROGATE.search(key):
                    return f"a key of {path or 'the message'}"
                part = key if re.fullmatch(r"[A-Za-z_$][\w$-]*", key) else json.dumps(key)
                stack.append((item, f"{path}.{part}" if path else part))
        elif isinstance(value, list):
            stack.extend((item, f"{path}[{i}]") for i, item in reversed(list(enumerate(value))))
    return None


def _encode(message: Any) -> bytes | None:
    """A message the session sends, as one line of UTF-8 JSON.

    An answer that cannot be encoded (text with an unpaired surrogate) becomes an internal error
    for its request, so that the request is still answered.
    """
    import mcp_types as types

    inner = message.message
    try:
        return inner.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"
    except ValueError as exc:
        if isinstance(inner, types.JSONRPCResponse | types.JSONRPCError) and inner.id is not None:
            logger.error("answer to request %a cannot be encoded: %s", inner.id, exc)
            error = types.JSONRPCError(
                jsonrpc="2.0",
                id=inner.id,
                error=types.ErrorData(code=INTERNAL_ERROR, message="Internal error: the answer is not UTF-8"),
            )
            return error.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"
        logger.error("dropping a message that cannot be encoded: %s", exc)
        return None


def _write(stdout: BinaryIO, data: bytes) -> None:
    stdout.write(data)
    stdout.flush()


async def serve_streams(
    server: Any, stdin: BinaryIO, stdout: BinaryIO, max_line_bytes: int = MAX_LINE_BYTES
) -> int | None:
    """Serve one MCP client speaking newline-delimited JSON-RPC on binary files, until `stdin` ends.

    Lines are read by a daemon thread (a blocked read never keeps the process alive), checked by
    `parse_line`, and either handed to the session or answered at once; the session's messages and
    those answers are written by one writer. Ends when `stdin` reaches its end (after the session
    has finished) or `stdout` is closed by the client. In the main thread, SIGTERM and SIGINT stop it
    cleanly (the event loop's own handlers cancel the session; a Python-level handler raising in
    the middle of a task would end as an unhandled task error), and the signal is returned.

    Args:
        server (`fastmcp.FastMCP`): The server, e.g. from `build_server`.
        stdin (`BinaryIO`): Where the client's lines come from.
        stdout (`BinaryIO`): Where the answers go.
        max_line_bytes (`int`): The longest line read; a longer one is refused without being held in memory.
    """
    import threading

    import anyio
    import anyio.lowlevel
    from fastmcp.server.context import reset_transport, set_transport
    from mcp.shared.message import SessionMessage

    lowlevel = server._mcp_server  # fastmcp's own stdio and in-memory transports drive it the same way
    to_session, session_in = anyio.create_memory_object_stream(0)
    session_out, outgoing = anyio.create_memory_object_stream(0)
    answers = session_out.clone()
    token = anyio.lowlevel.current_token()

    async def deliver(item: Any) -> bool:
        try:
            if isinstance(item, SessionMessage):
                await to_session.send(item)
            else:
                await answers.send(SessionMessage(item))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            return False
        return True

    def end_of_input() -> None:
        to_session.close()
        answers.close()

    def pump() -> None:
        try:
            while True:
                line, size = read_line(stdin, max_line_bytes)
                if not line and not size:
                    break
                item = too_long(size, max_line_bytes) if size else parse_line(line)
                if item is None:
                    continue
                try:
                    delivered = anyio.from_thread.run(deliver, item, token=token)
                except (RuntimeError, concurrent.futures.CancelledError):  # the server is shutting down
                    break
                if not delivered:
                    break
        except Exception:  # noqa: BLE001 - a broken stdin ends the input like its end does
            logger.exception("reading stdin failed")
        finally:
            with contextlib.suppress(RuntimeError):  # the event loop is gone
                anyio.from_thread.run_sync(end_of_input, token=token)

    stopped_by: int | None = None
    token_transport = set_transport("stdio")
    try:
        async with server._lifespan_manager(), anyio.create_task_group() as tg:

            async def write() -> None:
                async with outgoing:
                    async for message in outgoing:
                        data = _encode(message)
                        if data is None:
                            continue
                        try:
                            await anyio.to_thread.run_sync(_write, stdout, data)
                        except OSError as exc:  # the client closed its end
                            logger.info("stdout closed (%s); stopping", exc)
                            tg.cancel_scope.cancel()
                            return

            watcher = anyio.CancelScope()

            async def watch_signals() -> None:
                nonlocal stopped_by
                with watcher, anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                    async for signum in signals:
                        stopped_by = signum
                        tg.cancel_scope.cancel()
                        return

            tg.start_soon(write)
            if threading.current_thread() is threading.main_thread():
                tg.start_soon(watch_signals)
            threading.Thread(target=pump, name="envscale-stdin", daemon=True).start()
            await lowlevel.run(session_in, session_out, lowlevel.create_initialization_options())
            end_of_input()  # the session is over: the writer ends once what is queued is written
            watcher.cancel()
    finally:
        reset_transport(token_transport)
    return stopped_by


@contextlib.contextmanager
def _stdio_wire() -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """The process's stdin and stdout as binary files for the protocol alone.

    While serving, file descriptor 0 reads /dev/null and 1 writes to stderr, so that nothing else in
    the process (a print, a C library, a child process) can read or write the wire; both are
    restored after. Where the standard streams are not file descriptors, they are used as they are.
    """
    try:
        in_fd, out_fd, err_fd = sys.stdin.fileno(), sys.stdout.fileno(), sys.stderr.fileno()
        sys.stdout.flush()
        wire_in, wire_out = os.dup(in_fd), os.dup(out_fd)
    except (AttributeError, OSError, ValueError):
        yield sys.stdin.buffer, sys.stdout.buffer
        return
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, in_fd)
    os.close(devnull)
    os.dup2(err_fd, out_fd)
    out = os.fdopen(wire_out, "wb")
    try:
        # Never closed: the daemon reader thread may still be blocked reading it.
        yield os.fdopen(wire_in, "rb", closefd=False), out
    finally:
        with contextlib.suppress(OSError):
            sys.stdout.flush()
        os.dup2(wire_in, in_fd)
        os.dup2(wire_out, out_fd)
        with contextlib.suppress(OSError):
            out.close()


def serve_stdio(env: Environment, max_line_bytes: int = MAX_LINE_BYTES) -> None:
    """Run the environment's MCP server on stdin/stdout until the client closes stdin.

    Args:
        env (`Environment`): The environment (see `build_server`).
        max_line_bytes (`int`): The longest request line read (a longer one is refused, -32600).
    """
    import anyio

    server = build_server(env)
    with _stdio_wire() as (stdin, stdout):
        stopped_by = anyio.run(serve_streams, server, stdin, stdout, max_line_bytes)
    if stopped_by == signal.SIGTERM:
        raise Terminated()
    if stopped_by == signal.SIGINT:
        raise KeyboardInterrupt()


def make_parser(subparsers=None) -> argparse.ArgumentParser:
    """`envscale serve-mcp REF [--env NAME] [--seed N]`."""
    parser = command_parser(
        subparsers,
        "serve-mcp",
        help="serve one environment as an MCP server (stdio)",
        description="Serve one environment as an MCP server over stdio.",
    )
    parser.add_argument(
        "ref",
        help="an environments artifact (PATH[@vN], hf://org/name[@rev]) or an environment YAML/JSON file",
    )
    parser.add_argument("--env", help="environment name (default: the first one)")
    parser.add_argument("--seed", type=int, help="initial state seed (default: the spec's)")
    parser.add_argument(
        "--max-line-bytes",
        type=int,
        default=MAX_LINE_BYTES,
        help=f"longest request line read; a longer one is refused unread (default {MAX_LINE_BYTES})",
    )
    parser.set_defaults(func=main)
    return parser


def main(args: argparse.Namespace) -> int:
    """Run `envscale serve-mcp`: load the environment (a bad one is a `SpecError`), then serve it."""
    if args.max_line_bytes < 1024:
        raise ValueError(f"--max-line-bytes must be at least 1024, got {args.max_line_bytes}")
    serve_stdio(load_environment(args.ref, args.env, seed=args.seed), args.max_line_bytes)
    return 0
