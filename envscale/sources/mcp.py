"""Tools of a live MCP server, started over stdio (`mcp:COMMAND`).

The server is started with the official `mcp` SDK, initialised, asked for `tools/list`
(following pagination cursors), and stopped. Input and output schemas and annotations
(`readOnlyHint`, `destructiveHint`, ...) are kept; annotations are evidence for read/write.
A server that crashes, hangs or does not speak MCP gives a :class:`SourceError` naming the
command, with the end of its stderr.

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

import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anyio

from .base import RawError, RawTool, SourceError, SourceInfo, annotation_hints


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


async def _list_tools(argv: list[str], cwd: str | None, errlog: Any) -> tuple[Any, list[Any]]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=argv[0], args=argv[1:], cwd=cwd)
    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        server_info = getattr(init, "server_info", None) or getattr(init, "serverInfo", None)
        tools: list[Any] = []
        cursor = None
        while True:
            page = await session.list_tools(cursor=cursor) if cursor else await session.list_tools()
            tools.extend(page.tools)
            cursor = getattr(page, "next_cursor", None) or getattr(page, "nextCursor", None)
            if not cursor:
                return server_info, tools


def _root_cause(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _field(obj: Any, snake: str, camel: str) -> Any:
    value = getattr(obj, snake, None)
    return value if value is not None else getattr(obj, camel, None)


def read_mcp(command: str, info: SourceInfo, timeout: float = 30.0) -> Iterator[RawTool | RawError]:
    """Start the MCP server `command`, collect its `tools/list`, stop it."""
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="envscale-mcp-")))
        if "{scratch_git_repo}" in command:
            command = command.replace("{scratch_git_repo}", str(make_scratch_git_repo(tmp)))
        argv = shlex.split(command)
        if not argv:
            raise SourceError("empty MCP server command")
        argv[0] = _resolve_executable(argv[0])
        errlog = stack.enter_context(open(tmp / "stderr.log", "w+", encoding="utf-8", errors="replace"))

        async def run() -> tuple[Any, list[Any]]:
            with anyio.fail_after(timeout):
                return await _list_tools(argv, str(tmp), errlog)

        try:
            server_info, tools = anyio.run(run)
        except BaseException as exc:  # noqa: BLE001 - exception groups from anyio task groups
            if isinstance(exc, KeyboardInterrupt):
                raise
            cause = _root_cause(exc)
            errlog.flush()
            errlog.seek(0)
            tail = " | ".join(errlog.read().strip().splitlines()[-3:])
            what = (
                f"did not answer within {timeout:g}s"
                if isinstance(cause, TimeoutError)
                else f"failed: {type(cause).__name__}: {cause}"
            )
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
