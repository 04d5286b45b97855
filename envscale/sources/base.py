"""What every source reader yields, before normalisation.

A reader turns one source (a file, a server, a dataset) into a stream of :class:`RawTool`
(a tool as found, not yet checked) and :class:`RawError` (something at a known position that
could not even be read as a tool). The collect stage normalises raw tools, rejects the bad ones
with their reason, and deduplicates; readers never drop anything silently.

Example:

```python
>>> from envscale.sources import read_source
>>> info, items = read_source("json:tests/fixtures/openai_tools.json")
>>> next(iter(items)).name
'get_weather'
```
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import EnvscaleError


@dataclass
class SourceInfo:
    """Provenance shared by every tool of one source.

    Args:
        source: the source spec as the user wrote it (`json:PATH`, `mcp:COMMAND`, ...).
        source_kind: `json`, `openapi`, `mcp`, `hf` or `pypi`.
        version: the source's own version where it has one (package version, OpenAPI
            `info.version`, MCP `serverInfo.version`, dataset revision).
        license: licence identifier or text where the source states one.
        title: a human name for the source (package, API title, server name).
        files: the local files the reader read (documents, `$ref`'d files, archives), so that a
            resumed or re-run stage can tell whether they changed since.
    """

    source: str
    source_kind: str
    version: str | None = None
    license: str | None = None
    title: str | None = None
    files: list[str] = field(default_factory=list)


@dataclass
class RawTool:
    """A tool as found in a source, before any checking.

    Args:
        name: the name as found (may be missing or not a string: the normaliser rejects it).
        description: the description as found.
        parameters: the input schema as found: a JSON Schema, a BFCL/xLAM variant of one, a
            dict of properties, or garbage.
        position: where the tool sits in the source (`file.json:12`, `GET /pets/{id}`), for
            error messages and provenance.
        output_schema: the output/response schema where the source declares one.
        kind_hints: evidence about read/write found by the reader (`http:GET`,
            `mcp:read_only_hint=true`); the normaliser adds verb evidence.
        group: the natural group the source puts the tool in (a BFCL API class, an OpenAPI
            tag, an MCP server), kept for evaluation of domains.
        annotations: extra structured metadata worth keeping (MCP annotations, OpenAPI path).
        raw: the original record, kept (truncated) in `rejected` when the tool is rejected.
        document: an identifier of the document that defines the tool; two different tools
            with the same name in one document are a conflict, across documents they are
            renamed apart.
    """

    name: Any
    description: Any
    parameters: Any
    position: str
    output_schema: Any = None
    kind_hints: list[str] = field(default_factory=list)
    group: str | None = None
    annotations: dict | None = None
    raw: Any = None
    document: str | None = None


@dataclass
class RawError:
    """Something at `position` that could not be read as a tool at all.

    Args:
        position: where in the source.
        reason: why, in words a user can act on.
        raw: the offending text or record (truncated when stored).
        name: the tool name where it could be recovered.
    """

    position: str
    reason: str
    raw: Any = None
    name: str | None = None


class SourceError(EnvscaleError):
    """A whole source could not be read (missing file, crashed server, ...)."""


def annotation_hints(annotations: Any) -> list[str]:
    """Read/write evidence from MCP-style annotations (camelCase or snake_case)."""
    if not isinstance(annotations, dict):
        return []
    hints = []
    for key, hint in (
        ("readOnlyHint", "read_only_hint"),
        ("read_only_hint", "read_only_hint"),
        ("destructiveHint", "destructive_hint"),
        ("destructive_hint", "destructive_hint"),
    ):
        if isinstance(annotations.get(key), bool):
            hints.append(f"mcp:{hint}={'true' if annotations[key] else 'false'}")
    return hints
