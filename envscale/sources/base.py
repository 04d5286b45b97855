"""What every source reader yields, before normalisation.

A reader turns one source (a file, a server, a dataset) into a stream of :class:`RawTool`
(a tool as found, not yet checked) and :class:`RawError` (something at a known position that
could not even be read as a tool). The collect stage normalises raw tools, rejects the bad ones
with their reason, and deduplicates; readers never drop anything silently.

Example:

```python
>>> from envscale.sources import read_source
>>> info, items = read_source("json:tests/fixtures/json/openai_tools.json")
>>> next(iter(items)).name
'get_weather'
```
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import EnvscaleError

#: How many levels of lists and objects a record (a tool, its schema, its raw record) may have.
#: Real tool records have a few dozen at most; Python's JSON reader and writer give up near 1,000
#: (they recurse), so a deeper record is refused where it is read, before anything recurses on it.
MAX_NESTING = 200
#: Levels kept of a too-deep record stored as `raw` (the deeper parts are replaced by a marker).
RAW_NESTING = 16


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
            The `json`, `hf`, `pypi` and `openapi` readers keep it at most :data:`MAX_NESTING`
            levels deep (see :func:`clip_nesting`), so that `json.dumps(raw)` cannot hit the
            recursion limit; a consumer of other readers' records should clip it too.
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


def nesting_depth(value: Any, limit: int | None = None) -> int:
    """Levels of lists and dicts in `value` (a scalar is 0, `[]` is 1, `[[1]]` is 2).

    Iterative, so it works on values far deeper than the recursion limit. Values that share
    sub-objects (YAML aliases) are walked once per reference.

    Args:
        value: a JSON-like value (dicts, lists, tuples and scalars).
        limit: stop as soon as a level deeper than `limit` is seen and return that level.

    Returns:
        The depth, or the first depth above `limit` when `limit` is given and exceeded.

    Example:

    ```python
    >>> nesting_depth({"a": [1, {"b": 2}]}), nesting_depth("x")
    (3, 0)
    ```
    """
    if not isinstance(value, dict | list | tuple):
        return 0
    depth, level = 0, [value]
    while level:  # one level at a time: no recursion, no per-node bookkeeping
        depth += 1
        if limit is not None and depth > limit:
            return depth
        below = []
        for node in level:
            for child in node.values() if isinstance(node, dict) else node:
                if isinstance(child, dict | list | tuple):
                    below.append(child)
        level = below
    return depth


def too_deep(value: Any, limit: int = MAX_NESTING) -> bool:
    """Whether `value` has more than `limit` levels of lists and dicts."""
    return nesting_depth(value, limit) > limit


def clip_nesting(value: Any, keep: int = RAW_NESTING, limit: int = MAX_NESTING) -> Any:
    """`value` itself when at most `limit` levels deep, else a copy cut after `keep` levels.

    What is cut is replaced by the string `"...(nested too deeply)"`, so a record that is kept
    for a user to read (`RawError.raw`, `RawTool.raw`) can always be serialised.

    Example:

    ```python
    >>> clip_nesting([[[1]]], keep=1, limit=2)
    ['...(nested too deeply)']
    ```
    """
    if not too_deep(value, limit):
        return value
    return _clip(value, keep)


def _clip(value: Any, keep: int) -> Any:
    if not isinstance(value, dict | list | tuple):
        return value
    if keep <= 0:
        return "...(nested too deeply)"
    if isinstance(value, dict):
        return {str(k): _clip(v, keep - 1) for k, v in value.items()}
    return [_clip(v, keep - 1) for v in value]


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
