"""Tools of a live MCP server, started over stdio (`mcp:COMMAND`).

The server is started with the official `mcp` SDK, initialised, asked for `tools/list`
(following pagination cursors), and stopped. Input and output schemas and annotations
(`readOnlyHint`, `destructiveHint`, ...) are kept; annotations are evidence for read/write.
A server that crashes, hangs or does not speak MCP gives a :class:`SourceError` naming the
command, with the end of its stderr; one that exits before listing its tools is reported at once,
with its exit status, even when a child of it still holds its stdout. Lines a server prints on
stdout that are not JSON-RPC (banners, debug prints) are skipped and counted in one warning, instead
of the SDK's traceback per line.

On POSIX the server is started through a small guard (:mod:`envscale.sources._mcp_guard`) that
leads the server's process group: when envscale ends (normally, on SIGTERM or Ctrl-C, or killed
with SIGKILL; the last needs Linux, elsewhere the guard notices within a second) or the server
exits, the guard ends the whole group, so no server or child of a server outlives the run.

`{scratch_git_repo}` in the command expands to a fresh throwaway git repository (one commit),
for servers such as `mcp-server-git` that need a repository to point at.

Example:

```python
>>> from envscale.sources import read_source
>>> info, items = read_source("mcp:mcp-server-time")
>>> sorted(t.name for t in items), info.title
(['convert_time', 'get_current_time'], 'mcp-time')
```
"""

from __future__ import annotations

import logging
import math
import numbers
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anyio

from .base import RawError, RawTool, SourceError, SourceInfo, annotation_hints

#: The launcher that ties the server's process group to this process; run by path, stdlib only.
GUARD = Path(__file__).with_name("_mcp_guard.py")
#: File (in the server's scratch folder) where the guard writes the server's own exit status.
_STATUS_FILE = "server-exit-status"


logger = logging.getLogger(__name__)


class StrayLines(logging.Filter):
    """Counts, and keeps off stderr, the mcp SDK's traceback for each line a server printed on stdout
    that is not JSON-RPC (a banner, a debug print): the listing goes on, and one warning says so."""

    def __init__(self) -> None:
        super().__init__()
        self.count, self.first = 0, None

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith("Failed to parse JSONRPC message"):
            return True
        self.count += 1
        if self.first is None and record.exc_info and record.exc_info[1] is not None:
            found = re.search(r"input_value=('.{0,80}?'|\".{0,80}?\")", str(record.exc_info[1]))
            self.first = found.group(1) if found else None
        return False


class _ServerExited(Exception):
    """The server exited on its own (the guard wrote its status) before the listing was done."""

    def __init__(self, returncode: int) -> None:
        super().__init__(returncode)
        self.returncode = returncode

    def __str__(self) -> str:
        if self.returncode >= 0:
            return f"exited with status {self.returncode}"
        try:
            name = signal.Signals(-self.returncode).name
        except ValueError:
            name = f"signal {-self.returncode}"
        return f"was killed by {name}"


def _resolve_executable(program: str) -> str:
    """Find `program` on PATH, else beside the running interpreter (an un-activated venv)."""
    found = shutil.which(program) or shutil.which(program, path=str(Path(sys.executable).parent))
    if found is None:
        raise SourceError(
            f"MCP server command {program!r} not found on PATH or in {Path(sys.executable).parent}"
        )
    return found


def make_scratch_git_repo(parent: Path) -> Path:
    """Create a small git repository with one commit, for servers that need one."""
    repo = parent / "scratch-repo"
    repo.mkdir()
    (repo / "README.md").write_text("# scratch repository made by envscale for an MCP server\n")
    git = ["git", "-c", "user.name=envscale", "-c", "user.email=envscale@localhost", "-C", str(repo)]
    try:
        for args in (["init", "-q"], ["add", "README.md"], ["commit", "-q", "-m", "initial commit"]):
            subprocess.run([*git, *args], check=True, capture_output=True, timeout=30)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SourceError(f"could not make a scratch git repository ({exc}); is git installed?") from None
    return repo


def _guarded(argv: list[str], status_file: Path) -> list[str]:
    """The command line that starts `argv` under the guard (POSIX); `argv` itself elsewhere."""
    if os.name != "posix":
        return argv
    return [sys.executable, "-I", "-S", str(GUARD), str(os.getpid()), str(status_file), "--", *argv]


def _exit_status(status_file: Path) -> int | None:
    """The server's exit status as the guard wrote it, or None while it has not exited by itself."""
    try:
        return int(status_file.read_text().strip())
    except (OSError, ValueError):
        return None


async def _list_tools(argv: list[str], cwd: str, errlog: Any, status_file: Path) -> tuple[Any, list[Any]]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=argv[0], args=argv[1:], cwd=cwd)
    async with stdio_client(params, errlog=errlog) as (read, write):
        try:
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                server_info = getattr(init, "server_info", None) or getattr(init, "serverInfo", None)
                tools: list[Any] = []
                cursor = None
                while True:
                    page = await session.list_tools(cursor=cursor) if cursor else await session.list_tools()
                    tools.extend(page.tools)
                    cursor = _field(page, "next_cursor", "nextCursor")
                    if not cursor:
                        return server_info, tools
        except Exception as exc:
            # Checked here, before the transport closes the server's stdin: a status now means the
            # server exited by itself, not because it was asked to.
            returncode = _exit_status(status_file)
            if returncode is not None:
                raise _ServerExited(returncode) from exc
            raise


def _find(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    """The first exception of type `kind` in `exc`, looking inside exception groups."""
    if isinstance(exc, kind):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _find(inner, kind)
            if found is not None:
                return found
    return None


def _root_cause(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _check_timeout(timeout: float) -> float:
    """`timeout` as a float, or a ValueError if it is not a finite number of seconds above 0."""
    number = isinstance(timeout, numbers.Real) and not isinstance(timeout, bool)
    if not (number and math.isfinite(timeout) and timeout > 0):
        raise ValueError(f"the MCP timeout must be a finite number of seconds above 0, not {timeout!r}")
    return float(timeout)


def _field(obj: Any, snake: str, camel: str) -> Any:
    """A field by its mcp 2.x name, or its 1.x camelCase name on objects that lack the former."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel, None)


def read_mcp(command: str, info: SourceInfo, timeout: float = 30.0) -> Iterator[RawTool | RawError]:
    """Start the MCP server `command`, collect its `tools/list`, stop it.

    Args:
        command: the server's command line (shell-style quoting; `{scratch_git_repo}` expands to a
            fresh git repository). The program is looked up on PATH, then beside the interpreter.
        info: the source's provenance; its `title` and `version` are set from the server's
            `serverInfo` once the server has answered.
        timeout: seconds the server has to start and list all its tools.

    Returns:
        An iterator of the server's tools; the server runs when it is first consumed.

    Raises:
        ValueError: at once, if `timeout` is not a finite number of seconds above 0 (a timeout of
            infinity or NaN would wait forever on a hung server).
        SourceError: while consumed, if the server cannot be started, exits, hangs or does not
            speak MCP; the message names the command and ends with the server's stderr.
    """
    return _read_mcp(command, info, _check_timeout(timeout))


def _warn_stray(stray: StrayLines, command: str) -> None:
    if stray.count:
        first = f" (the first: {stray.first})" if stray.first else ""
        logger.warning(
            "MCP server %r printed %d line(s) on stdout that are not JSON-RPC%s; they were skipped",
            command,
            stray.count,
            first,
        )


def _read_mcp(command: str, info: SourceInfo, timeout: float) -> Iterator[RawTool | RawError]:
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="envscale-mcp-")))
        if "{scratch_git_repo}" in command:
            command = command.replace("{scratch_git_repo}", str(make_scratch_git_repo(tmp)))
        argv = shlex.split(command)
        if not argv:
            raise SourceError("empty MCP server command")
        argv[0] = _resolve_executable(argv[0])
        errlog = stack.enter_context(open(tmp / "stderr.log", "w+", encoding="utf-8", errors="replace"))
        status_file = tmp / _STATUS_FILE

        async def run() -> tuple[Any, list[Any]]:
            with anyio.fail_after(timeout):
                return await _list_tools(_guarded(argv, status_file), str(tmp), errlog, status_file)

        stray = StrayLines()
        sdk_logger = logging.getLogger("mcp.client.stdio")
        sdk_logger.addFilter(stray)
        stack.callback(sdk_logger.removeFilter, stray)
        stack.callback(_warn_stray, stray, command)
        try:
            server_info, tools = anyio.run(run)
        except BaseException as exc:  # noqa: BLE001 - exception groups from anyio task groups
            if isinstance(exc, KeyboardInterrupt):
                raise
            errlog.flush()
            errlog.seek(0)
            tail = " | ".join(errlog.read().strip().splitlines()[-3:])
            exited = _find(exc, _ServerExited)
            cause = _root_cause(exc)
            if exited is not None:
                what = f"{exited} before listing its tools"
            elif isinstance(cause, TimeoutError):
                what = f"did not answer within {timeout:g}s"
            else:
                what = f"failed: {type(cause).__name__}: {cause}"
            raise SourceError(
                f"MCP server {command!r} {what}" + (f"; its stderr ends: {tail}" if tail else "")
            ) from None
    info.title = getattr(server_info, "name", None)
    info.version = getattr(server_info, "version", None)
    for i, tool in enumerate(tools):
        annotations = _field(tool, "annotations", "annotations")
        ann = annotations.model_dump(exclude_none=True) if hasattr(annotations, "model_dump") else annotations
        yield RawTool(
            name=tool.name,
            description=tool.description,
            parameters=_field(tool, "input_schema", "inputSchema"),
            output_schema=_field(tool, "output_schema", "outputSchema"),
            kind_hints=annotation_hints(ann),
            group=info.title,
            annotations=ann or None,
            position=f"tools/list[{i}]",
            document=command,
            raw=tool.model_dump(exclude_none=True) if hasattr(tool, "model_dump") else str(tool),
        )
