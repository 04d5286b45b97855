"""Function docs in JSON / JSON Lines, in the shapes met in the wild.

Accepted shapes (one file may mix them, one record per line or one document per file):

- OpenAI tools: `{"type": "function", "function": {"name", "description", "parameters"}}`;
- bare function docs (BFCL `multi_turn_func_doc`, MCP `tools/list` entries):
  `{"name", "description", "parameters" | "input_schema" | "inputSchema", "response"?}`;
- records that embed tool lists (BFCL question files, xLAM, ToolACE, Glaive):
  `{"function": [...]}`, `{"functions": [...]}`, `{"tools": [...] | "<json string>"}`;
- a JSON array of any of the above.

Records from several servers in one file (MCP tool corpora): a record (a tool, or a record
embedding a tool list) that names its server with one of :data:`SERVER_KEYS` (`server`,
`server_name`, `mcp_server`, `service`, `namespace`, `toolkit`, ...; a string, or an object with
a `name`) puts its tools in that server's `group`, and in a document of that server: two
different tools with the same name on one server are a conflict, on two servers they are two
tools (`{"server": "todoist", "name": "list_tasks", ...}` and `{"server": "asana", "name":
"list_tasks", ...}` are both kept).

Bad input costs only its own record: an unparseable line, a line or tool nested more than
:data:`~envscale.sources.base.MAX_NESTING` levels deep, or a record that holds no tool is a
:class:`RawError` at its position, and the other records of the file are still read. A
single-document file that cannot be parsed at all is one :class:`RawError` for the file.

`PATH` may be a file, a folder (every `*.json`, `*.jsonl`, `*.ndjson` below it), a glob, or a
zip/wheel archive with member globs after `!` (`bfcl.whl!bfcl_eval/data/*.json,other/*.json`).
Files named `.json` that hold JSON Lines (BFCL's) are detected from their content.

Example:

```python
>>> from envscale.sources import read_source
>>> info, items = read_source("json:tests/fixtures/json/openai_tools.json")
>>> [t.name for t in items][:2]
['get_weather', 'book_flight']
```
"""

from __future__ import annotations

import fnmatch
import glob
import io
import json
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from .base import (
    MAX_NESTING,
    RawError,
    RawTool,
    SourceError,
    SourceInfo,
    annotation_hints,
    clip_nesting,
    nesting_depth,
)

JSON_SUFFIXES = (".json", ".jsonl", ".ndjson")
_PARAM_KEYS = ("parameters", "input_schema", "inputSchema", "parameter", "params")
_OUTPUT_KEYS = ("response", "output_schema", "outputSchema", "returns", "return")
_LIST_KEYS = ("function", "functions", "tools", "apis", "api_list", "tool_list")
#: Keys of a record that name the server (service, toolkit) its tools belong to, first found wins.
#: The value is a string, or an object whose `name` (or `title`) is one.
SERVER_KEYS = (
    "server",
    "server_name",
    "serverName",
    "mcp_server",
    "mcpServer",
    "mcp_server_name",
    "service",
    "service_name",
    "serviceName",
    "namespace",
    "toolkit",
    "toolkit_name",
)
_TOO_DEEP_TO_PARSE = (
    f"nested too deeply: {{what}} has more than {MAX_NESTING} levels of lists and objects "
    "(too deep for the JSON parser)"
)


def read_json_docs(target: str, info: SourceInfo) -> Iterator[RawTool | RawError]:
    """Yield every tool found under `target` (file, folder, glob or `archive!globs`)."""
    if "!" in target and target.split("!", 1)[0].endswith((".whl", ".zip")):
        archive, members = target.split("!", 1)
        yield from read_archive(Path(archive), members.split(","), info)
        return
    files = _expand(target)
    for path in files:
        info.files.append(str(path))
        with _open_text(path) as fh:
            yield from iter_json_records(fh, str(path), group=path.stem)


def read_archive(archive: Path, patterns: list[str], info: SourceInfo) -> Iterator[RawTool | RawError]:
    """Yield the tools of the members of a zip/wheel archive that match `patterns`."""
    if not archive.is_file():
        raise SourceError(f"archive {archive} does not exist")
    info.files.append(str(archive))
    try:
        zf = zipfile.ZipFile(archive)
    except zipfile.BadZipFile as exc:
        raise SourceError(f"{archive} is not a zip/wheel archive: {exc}") from None
    with zf:
        names = sorted(n for n in zf.namelist() if any(fnmatch.fnmatch(n, p.strip()) for p in patterns))
        if not names:
            raise SourceError(f"no member of {archive} matches {','.join(patterns)!r}")
        for name in names:
            with zf.open(name) as raw:
                yield from iter_json_records(
                    io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape"),
                    name,
                    group=Path(name).stem,
                )


def _expand(target: str) -> list[Path]:
    path = Path(target)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix in JSON_SUFFIXES and p.is_file())
        if not files:
            raise SourceError(f"folder {target} has no {'/'.join(JSON_SUFFIXES)} files")
        return files
    if path.is_file():
        return [path]
    matches = sorted(Path(p) for p in glob.glob(target, recursive=True) if Path(p).is_file())
    if not matches:
        raise SourceError(f"no file at {target!r}")
    return matches


def _open_text(path: Path) -> IO[str]:
    try:
        return path.open(encoding="utf-8", errors="surrogateescape")
    except OSError as exc:
        raise SourceError(f"cannot read {path}: {exc.strerror}") from None


def iter_json_records(fh: IO[str], name: str, group: str | None = None) -> Iterator[RawTool | RawError]:
    """Read one JSON or JSON Lines stream, streaming line by line where it can.

    A stream whose first non-blank line is a whole JSON object is JSON Lines: every line is read
    on its own, and a bad line costs only itself. Anything else is one JSON document.

    Args:
        fh: the text stream.
        name: the file's name, used in positions (`name:LINE`, `name[INDEX]`) and as document.
        group: the group of tools listed directly in the file (its stem).
    """
    first, first_lineno = fh.readline(), 1
    while first and not first.strip():
        first, first_lineno = fh.readline(), first_lineno + 1
    if not first:
        yield RawError(position=name, reason="file is empty")
        return
    stripped = first.strip()
    first_record: Any = None
    json_lines = False
    if stripped.startswith("{"):
        try:
            first_record = json.loads(stripped)
            json_lines = True
        except json.JSONDecodeError:
            pass
        except RecursionError:  # a whole, too deep, record on the first line: JSON Lines
            first_record = RawError(
                position=f"{name}:{first_lineno}",
                reason=_TOO_DEEP_TO_PARSE.format(what="the line"),
                raw=stripped[:2000],
            )
            json_lines = True
    if not json_lines:  # one (pretty-printed) JSON document
        text = first + fh.read()
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            yield RawError(
                position=f"{name}:{exc.lineno + first_lineno - 1}",
                reason=f"unparseable JSON: {exc.msg} (column {exc.colno})",
                raw=text[:2000],
            )
            return
        except RecursionError:
            yield RawError(position=name, reason=_TOO_DEEP_TO_PARSE.format(what="the file"), raw=text[:2000])
            return
        records: Iterable[tuple[str, Any]] = (
            ((f"{name}[{i}]", r) for i, r in enumerate(doc)) if isinstance(doc, list) else [(name, doc)]
        )
        for pos, rec in records:
            # Tools listed directly in a file form one document (one name, one tool);
            # records that embed their own tool lists are documents of their own.
            yield from tools_in_record(rec, pos, group=group, document=name)
        return
    # JSON Lines: every line is read on its own; tools listed directly share the file as document.
    if isinstance(first_record, RawError):
        yield first_record
    else:
        yield from tools_in_record(
            first_record,
            f"{name}:{first_lineno}",
            group=group,
            document=name,
            _shallow=_few_brackets(stripped),
        )
    for lineno, line in enumerate(fh, start=first_lineno + 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            yield RawError(
                position=f"{name}:{lineno}",
                reason=f"unparseable JSON line: {exc.msg} (column {exc.colno})",
                raw=line[:2000],
            )
            continue
        except RecursionError:
            yield RawError(
                position=f"{name}:{lineno}",
                reason=_TOO_DEEP_TO_PARSE.format(what="the line"),
                raw=line[:2000],
            )
            continue
        yield from tools_in_record(
            rec, f"{name}:{lineno}", group=group, document=name, _shallow=_few_brackets(line)
        )


def _few_brackets(text: str) -> bool:
    """Whether JSON `text` is certainly at most `MAX_NESTING` levels deep (it has no more brackets).

    Brackets inside strings count too, so this can only err towards walking a record that was shallow.
    """
    return text.count("{") + text.count("[") <= MAX_NESTING


def _tool_fields(obj: dict) -> dict | None:
    """The dict that describes one tool, or None when `obj` is not a tool."""
    if obj.get("type") == "function" and isinstance(obj.get("function"), dict):
        return obj["function"]
    if any(k in obj for k in _PARAM_KEYS) or ("name" in obj and "description" in obj):
        return obj
    return None


def server_of(rec: dict) -> str | None:
    """The server (service, toolkit) a record names with one of :data:`SERVER_KEYS`, or None."""
    for key in SERVER_KEYS:
        value = rec.get(key)
        if isinstance(value, dict):
            value = value.get("name") or value.get("title")
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def tools_in_record(
    rec: Any,
    position: str,
    *,
    group: str | None = None,
    document: str | None = None,
    server: str | None = None,
    _depth: int = 0,
    _shallow: bool = False,
) -> Iterator[RawTool | RawError]:
    """Yield the tools one record holds (a tool, a list of tools, or a record embedding a list).

    Args:
        rec: the decoded record (JSON strings holding tools are decoded here).
        position: where the record is, for errors and provenance.
        group: the group of the tools when no server is named (a file stem, a dataset config).
        document: what defines the tools' names (default: `position`); with a server, the
            document is `"<document> (server <server>)"`, so that two servers' tools of one name
            do not conflict.
        server: the server named by an enclosing record; the record's own server key wins.

    A tool (or a list) nested more than :data:`~envscale.sources.base.MAX_NESTING` levels deep
    is a :class:`RawError` ("nested too deeply"); the other tools of the record are still yielded.
    """
    document = document or position
    if _depth > MAX_NESTING:
        yield RawError(
            position=position,
            reason=f"nested too deeply: tools inside more than {MAX_NESTING} levels of lists or JSON strings",
            raw=clip_nesting(rec, limit=0),
        )
        return
    if isinstance(rec, list):
        for i, item in enumerate(rec):
            yield from tools_in_record(
                item,
                f"{position}[{i}]",
                group=group,
                document=document,
                server=server,
                _depth=_depth + 1,
                _shallow=_shallow,
            )
        return
    if isinstance(rec, str):
        try:
            decoded = json.loads(rec)
        except json.JSONDecodeError:
            yield RawError(
                position=position, reason="expected a tool, found a string that is not JSON", raw=rec[:2000]
            )
            return
        except RecursionError:
            yield RawError(
                position=position, reason=_TOO_DEEP_TO_PARSE.format(what="the JSON string"), raw=rec[:2000]
            )
            return
        yield from tools_in_record(
            decoded,
            position,
            group=group,
            document=document,
            server=server,
            _depth=_depth + 1,
            _shallow=_shallow,
        )
        return
    if not isinstance(rec, dict):
        yield RawError(
            position=position, reason=f"expected a tool object, found {type(rec).__name__}", raw=rec
        )
        return
    server = server_of(rec) or server
    fields = _tool_fields(rec)
    if fields is None:
        for key in _LIST_KEYS:
            if key in rec:
                inner = rec[key]
                if isinstance(inner, dict):
                    inner = [inner]
                # Tools embedded in a record (a BFCL question, an xLAM example) have no natural group
                # (the file is a test category or a shard, not an API family) unless it names a server.
                yield from tools_in_record(
                    inner,
                    f"{position}.{key}",
                    group=None,
                    document=position,
                    server=server,
                    _depth=_depth + 1,
                    _shallow=_shallow,
                )
                return
        if "name" not in rec:
            keys = ", ".join(sorted(map(str, rec))[:8])
            yield RawError(
                position=position, reason=f"record holds no tool (keys: {keys})", raw=clip_nesting(rec)
            )
            return
    elif fields is not rec:  # {"type": "function", "function": {...}}
        server = server_of(fields) or server
    name = (rec if fields is None else fields).get("name")
    if not _shallow and nesting_depth(rec, MAX_NESTING) > MAX_NESTING:
        yield RawError(
            position=position,
            reason=f"nested too deeply: the tool has more than {MAX_NESTING} levels of lists and objects",
            raw=clip_nesting(rec),
            name=name if isinstance(name, str) else None,
        )
        return
    doc = f"{document} (server {server})" if server else document
    if fields is None:  # a name and nothing else that makes a tool: the normaliser decides
        yield RawTool(
            name=name,
            description=None,
            parameters=None,
            position=position,
            raw=rec,
            group=server or group,
            document=doc,
        )
        return
    yield RawTool(
        name=name,
        description=fields.get("description"),
        parameters=next((fields[k] for k in _PARAM_KEYS if k in fields), None),
        output_schema=next((fields[k] for k in _OUTPUT_KEYS if k in fields), None),
        kind_hints=annotation_hints(fields.get("annotations")),
        group=server or group,
        annotations=fields.get("annotations") if isinstance(fields.get("annotations"), dict) else None,
        position=position,
        raw=rec,
        document=doc,
    )
