"""Function docs in JSON / JSON Lines, in the shapes met in the wild.

Accepted shapes (one file may mix them, one record per line or one document per file):

- OpenAI tools: `{"type": "function", "function": {"name", "description", "parameters"}}`;
- bare function docs (BFCL `multi_turn_func_doc`, MCP `tools/list` entries):
  `{"name", "description", "parameters" | "input_schema" | "inputSchema", "response"?}`;
- records that embed tool lists (BFCL question files, xLAM, ToolACE, Glaive):
  `{"function": [...]}`, `{"functions": [...]}`, `{"tools": [...] | "<json string>"}`;
- a JSON array of any of the above.

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

from .base import RawError, RawTool, SourceError, SourceInfo, annotation_hints

JSON_SUFFIXES = (".json", ".jsonl", ".ndjson")
_PARAM_KEYS = ("parameters", "input_schema", "inputSchema", "parameter", "params")
_OUTPUT_KEYS = ("response", "output_schema", "outputSchema", "returns", "return")
_LIST_KEYS = ("function", "functions", "tools", "apis", "api_list", "tool_list")


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
    """Read one JSON or JSON Lines stream, streaming line by line where it can."""
    first = fh.readline()
    while first and not first.strip():
        first = fh.readline()
    if not first:
        yield RawError(position=name, reason="file is empty")
        return
    stripped = first.strip()
    single_line_record = False
    if stripped.startswith("{"):
        try:
            record = json.loads(stripped)
            single_line_record = True
        except json.JSONDecodeError:
            pass
    if not single_line_record:  # one (pretty-printed) JSON document
        text = first + fh.read()
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            yield RawError(
                position=f"{name}:{exc.lineno}",
                reason=f"unparseable JSON: {exc.msg} (column {exc.colno})",
                raw=text[:2000],
            )
            return
        records: Iterable[tuple[str, Any]] = (
            ((f"{name}[{i}]", r) for i, r in enumerate(doc)) if isinstance(doc, list) else [(name, doc)]
        )
        for pos, rec in records:
            # Tools listed directly in a file form one document (one name, one tool);
            # records that embed their own tool lists are documents of their own.
            yield from tools_in_record(rec, pos, group=group, document=name)
        return
    # JSON Lines: every line is its own document.
    yield from tools_in_record(record, f"{name}:1", group=group, document=name)
    for lineno, line in enumerate(fh, start=2):
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
        yield from tools_in_record(rec, f"{name}:{lineno}", group=group, document=name)


def _tool_fields(obj: dict) -> dict | None:
    """The dict that describes one tool, or None when `obj` is not a tool."""
    if obj.get("type") == "function" and isinstance(obj.get("function"), dict):
        return obj["function"]
    if any(k in obj for k in _PARAM_KEYS) or ("name" in obj and "description" in obj):
        return obj
    return None


def tools_in_record(
    rec: Any, position: str, *, group: str | None = None, document: str | None = None
) -> Iterator[RawTool | RawError]:
    """Yield the tools one record holds (a tool, a list of tools, or a record embedding a list)."""
    document = document or position
    if isinstance(rec, list):
        for i, item in enumerate(rec):
            yield from tools_in_record(item, f"{position}[{i}]", group=group, document=document)
        return
    if isinstance(rec, str):
        try:
            decoded = json.loads(rec)
        except json.JSONDecodeError:
            yield RawError(
                position=position, reason="expected a tool, found a string that is not JSON", raw=rec[:2000]
            )
            return
        yield from tools_in_record(decoded, position, group=group, document=document)
        return
    if not isinstance(rec, dict):
        yield RawError(
            position=position, reason=f"expected a tool object, found {type(rec).__name__}", raw=rec
        )
        return
    fields = _tool_fields(rec)
    if fields is not None:
        yield RawTool(
            name=fields.get("name"),
            description=fields.get("description"),
            parameters=next((fields[k] for k in _PARAM_KEYS if k in fields), None),
            output_schema=next((fields[k] for k in _OUTPUT_KEYS if k in fields), None),
            kind_hints=annotation_hints(fields.get("annotations")),
            group=group,
            annotations=fields.get("annotations") if isinstance(fields.get("annotations"), dict) else None,
            position=position,
            raw=rec,
            document=document,
        )
        return
    for key in _LIST_KEYS:
        if key in rec:
            inner = rec[key]
            if isinstance(inner, dict):
                inner = [inner]
            # Tools embedded in a record (a BFCL question, an xLAM example) have no natural group:
            # the file is a test category or a shard, not an API family.
            yield from tools_in_record(inner, f"{position}.{key}", group=None, document=position)
            return
    if "name" in rec:
        yield RawTool(
            name=rec.get("name"),
            description=None,
            parameters=None,
            position=position,
            raw=rec,
            group=group,
            document=document,
        )
        return
    keys = ", ".join(sorted(map(str, rec))[:8])
    yield RawError(position=position, reason=f"record holds no tool (keys: {keys})", raw=rec)
