"""The `collect` stage's library: real API descriptions -> the `api_pool` dataset (`envscale collect`).

Reads every source (`json:`, `openapi:`, `mcp:`, `hf:`, `pypi:`), normalises every tool to a
JSON Schema object, tags it `read`/`write` with evidence, gives it provenance and a content-hash
id, deduplicates, and names it uniquely. Bad records go to the `rejected` config with their
position and reason; repeats go to `duplicates`. For every source,
`read = accepted + rejected + duplicates`: nothing disappears.

Work is checkpointed per source under the output's `.staging/` folder: an interrupted run,
re-run with the same config, reuses the sources it had finished.

Example:

```python
>>> from envscale.sources.collect import CollectConfig, collect
>>> art = collect(CollectConfig(sources=["openapi:recipes/sources/envscale_shop.openapi.yaml"]),
...               output="outputs/shop_tools")
>>> art.manifest["counts"]["api_pool"] > 20
True
```

CLI: `envscale collect --sources json:tools.jsonl mcp:mcp-server-time --output outputs/pool`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from collections import Counter, OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from tqdm.auto import tqdm

from ..artifacts import Artifact, ArtifactWriter, ShardWriter, file_changed, file_input
from ..config import check_fields, fingerprint, option, to_dict
from ..schemas import API_POOL, API_POOL_FEATURES, REJECTED_FEATURES
from ..words.names import NAME_MAX, sanitize_name
from . import RawError, SourceError, SourceInfo, parse_source, read_source, resolve_spec
from .base import clip_nesting
from .normalize import Rejected, normalize_tool

logger = logging.getLogger(__name__)
DONE = "DONE.json"
_DOCUMENTS_REMEMBERED = 4096  # documents whose tool names are checked for conflicts at once


@dataclass
class CollectConfig:
    """Configuration of `envscale collect`."""

    sources: list[str] = option(
        [], "Sources as KIND:TARGET (json, openapi, mcp, hf, pypi); see `envscale collect --help`."
    )
    base_dir: str | None = option(
        None,
        "Folder that relative json:/openapi: paths are resolved against (a recipe's folder; default: cwd).",
    )
    mcp_timeout: float = option(
        30.0,
        "Seconds an MCP server has to start and answer tools/list before it is abandoned.",
        gt=0,
        le=3600,
    )
    max_description_chars: int = option(
        32_768, "Descriptions longer than this are rejected (extraction bugs, not docs).", ge=1, le=10_000_000
    )
    max_raw_chars: int = option(
        2_000, "How much of a rejected record is kept in the `rejected` config.", ge=0, le=1_000_000
    )
    batch_size: int = option(
        1_000, "Rows buffered before a parquet write (memory bound).", ge=1, le=1_000_000
    )

    def __post_init__(self) -> None:
        check_fields(self)
        if not self.sources:
            raise ValueError("collect needs at least one source (--sources KIND:TARGET ...)")
        for spec in self.sources:
            parse_source(spec)
        if len(set(self.sources)) != len(self.sources):
            dupes = sorted(s for s, n in Counter(self.sources).items() if n > 1)
            raise ValueError(f"sources listed twice: {dupes}")

    def fingerprint(self) -> str:
        """The config plus where each relative path source points from here (see `resolve_spec`)."""
        resolved = [resolve_spec(spec, self.base_dir) for spec in self.sources]
        return fingerprint(self, API_POOL, inputs=resolved, ignore=("batch_size",))


def _safe(value: Any, limit: int | None = None) -> str | None:
    """A string that survives UTF-8 encoding (unpaired surrogates escaped), optionally truncated."""
    if value is None:
        return None
    if not isinstance(value, str):  # a record too deeply nested to serialise keeps its first levels
        value = json.dumps(clip_nesting(value), ensure_ascii=True, default=str)
    value = value.encode("utf-8", "backslashreplace").decode("utf-8")
    if limit is not None and len(value) > limit:
        value = value[:limit] + f"... ({len(value):,} chars)"
    return value


def _collect_source(index: int, spec: str, config: CollectConfig, part: Path) -> dict:
    """Phase 1 for one source: read, normalise, check names within each document, write a part."""
    info: SourceInfo
    shutil.rmtree(part, ignore_errors=True)  # what an interrupted attempt left is not reused
    info, items = read_source(spec, base_dir=config.base_dir, mcp_timeout=config.mcp_timeout)
    tools = ShardWriter(part / "tools", API_POOL_FEATURES, batch_size=config.batch_size)
    rejected = ShardWriter(part / "rejected", REJECTED_FEATURES, batch_size=config.batch_size)
    read = 0
    # Two different tools with one name in one document (a file, one server's part of a file, a record
    # embedding a tool list) are a conflict, also when other documents come between them (interleaved
    # servers). The most recent documents are remembered: bounded memory on sources of millions of records.
    defined: OrderedDict[str | None, dict[str, tuple[str, str]]] = OrderedDict()
    for item in tqdm(
        items,
        desc=f"collect [{index + 1}/{len(config.sources)}] {spec[:50]}",
        unit="tool",
        leave=False,
        mininterval=1.0,
    ):
        read += 1
        if isinstance(item, RawError):
            rejected.write(
                {
                    "source": spec,
                    "position": _safe(item.position),
                    "name": _safe(item.name),
                    "reason": item.reason,
                    "raw": _safe(item.raw, config.max_raw_chars),
                }
            )
            continue
        try:
            tool = normalize_tool(item, max_description_chars=config.max_description_chars)
            names = defined.setdefault(item.document, {})
            defined.move_to_end(item.document)
            if len(defined) > _DOCUMENTS_REMEMBERED:
                defined.popitem(last=False)
            previous = names.get(tool.original_name)
            if previous is not None and previous[0] != tool.id:
                raise Rejected(
                    f"duplicate name {tool.original_name!r} in {item.document}: "
                    f"already defined at {previous[1]} with a different schema"
                )
            names.setdefault(tool.original_name, (tool.id, item.position))
        except Exception as exc:  # noqa: BLE001 - a record costs itself, never the run; kept with its reason
            reason = str(exc)
            if not isinstance(exc, Rejected):  # a normaliser bug met on this record: keep it, say so, go on
                reason = f"normaliser error (a bug; please report it with this record): {type(exc).__name__}: {exc}"
                logger.warning("%s at %s: %s", spec, item.position, reason)
            name = item.name if isinstance(item.name, str) else None
            rejected.write(
                {
                    "source": spec,
                    "position": _safe(item.position),
                    "name": _safe(name, 200),
                    "reason": reason,
                    "raw": _safe(item.raw, config.max_raw_chars),
                }
            )
            continue
        tools.write(
            {
                "id": tool.id,
                "name": tool.name,
                "original_name": tool.original_name,
                "description": tool.description,
                "parameters": tool.parameters,
                "output_schema": tool.output_schema,
                "kind": tool.kind,
                "kind_evidence": tool.kind_evidence,
                "group": tool.group,
                "annotations": tool.annotations,
                "source": spec,
                "source_kind": info.source_kind,
                "source_version": info.version,
                "license": info.license,
                "position": tool.position,
                "normalization": tool.normalization,
            }
        )
    n_tools, n_rejected = tools.close(), rejected.close()
    summary = {
        "source": spec,
        "source_kind": info.source_kind,
        "title": info.title,
        "version": info.version,
        "license": info.license,
        "read": read,
        "normalised": n_tools,
        "rejected": n_rejected,
        # What a resumed run checks before reusing this part (see `_stale`).
        "files": [file_input(path) for path in dict.fromkeys(info.files)],
    }
    (part / DONE).write_text(json.dumps(summary))
    return summary


def _prefixed(group: str, name: str) -> str:
    """`todoist_list_tasks`: a taken name made readable with its group (API class, tag, server)."""
    prefix, room = sanitize_name(group), NAME_MAX - len(name) - 1
    if not prefix or room < 3 or name.startswith(prefix):
        return name  # the caller falls back to a hash suffix
    return f"{prefix[:room]}_{name}"


def _finished_part(part: Path, spec: str) -> dict | None:
    """The summary of a finished part, or None when it must be collected (again).

    A part is reused only when every file its source read is unchanged (size and mtime, else the
    sha256 of the content): editing an input after an interruption re-reads that source.
    """
    try:
        summary = json.loads((part / DONE).read_text())
    except (OSError, ValueError):
        return None
    changed = [why for entry in summary.get("files", []) if (why := file_changed(entry))]
    if changed:
        logger.warning("%s: input changed since it was collected (%s); collecting it again", spec, changed[0])
        shutil.rmtree(part, ignore_errors=True)
        return None
    return summary


def _merge(
    parts: list[tuple[Path, dict]], writer: ArtifactWriter, batch_size: int
) -> tuple[dict, list[dict]]:
    """Phase 2: deduplicate by id across sources, make names unique, write the three configs."""
    pool = writer.shard_writer("api_pool", batch_size=batch_size)
    rejected = writer.shard_writer("rejected", batch_size=batch_size)
    duplicates = writer.shard_writer("duplicates", batch_size=batch_size)
    # The dedupe index holds 64-bit hashes, not strings: ~120 bytes per unique tool (bench/collect.py).
    # A hash collision on names only causes an unneeded rename, never a duplicate name.
    seen: set[int] = set()  # ids of kept tools
    names: set[int] = set()  # hashes of names given out
    per_source = []
    for part, summary in parts:
        for shard in sorted((part / "rejected").glob("*.parquet")):
            rejected.write_table(pq.read_table(shard, schema=REJECTED_FEATURES.arrow_schema))
        kinds: Counter = Counter()
        accepted = dupes = 0
        for shard in sorted((part / "tools").glob("*.parquet")):
            for batch in pq.ParquetFile(shard).iter_batches(batch_size=batch_size):
                ids = batch.column("id").to_pylist()
                groups = batch.column("group").to_pylist()
                keep, new_names, renamed = [], batch.column("name").to_pylist(), {}
                for i, tid in enumerate(ids):
                    key = int(tid, 16)
                    if key in seen:
                        duplicates.write(
                            {
                                "duplicate_of": tid,
                                "name": batch.column("original_name")[i].as_py(),
                                "source": summary["source"],
                                "position": batch.column("position")[i].as_py(),
                            }
                        )
                        keep.append(False)
                        continue
                    keep.append(True)
                    name = new_names[i]
                    if hash(name) in names and groups[i]:  # the same name from another API or server
                        name = _prefixed(groups[i], new_names[i])
                    width = 6
                    while hash(name) in names:
                        name = f"{new_names[i][: NAME_MAX - width - 1]}_{tid[:width]}"
                        width += 2
                    if name != new_names[i]:
                        renamed[i] = f"name: {new_names[i]!r} -> {name!r} (name already taken in the pool)"
                        new_names[i] = name
                    names.add(hash(name))
                    seen.add(key)
                if renamed:
                    notes = batch.column("normalization").to_pylist()
                    for i, note in renamed.items():
                        notes[i] = [*(notes[i] or []), note]
                    batch = batch.set_column(
                        batch.schema.get_field_index("normalization"),
                        "normalization",
                        pa.array(notes, batch.schema.field("normalization").type),
                    )
                batch = batch.set_column(
                    batch.schema.get_field_index("name"), "name", pa.array(new_names, pa.string())
                )
                kept = batch.filter(pa.array(keep))
                pool.write_table(
                    pa.Table.from_batches([kept], schema=batch.schema).cast(API_POOL_FEATURES.arrow_schema)
                )
                accepted += kept.num_rows
                dupes += len(ids) - kept.num_rows
                kinds.update(kept.column("kind").to_pylist())
        stats = {k: v for k, v in summary.items() if k != "files"}
        stats.update(accepted=accepted, duplicates=dupes, kinds=dict(kinds))
        if stats["read"] != accepted + stats["rejected"] + dupes:
            raise AssertionError(
                f"accounting error for {summary['source']}: {stats}"
            )  # a bug, never bad data
        per_source.append(stats)
    counts = {"api_pool": pool.close(), "rejected": rejected.close(), "duplicates": duplicates.close()}
    return counts, per_source


def collect(config: CollectConfig, output: str | Path) -> Artifact:
    """Run the collect stage and write a new version of the `api_pool` artifact at `output`.

    Sources that cannot be read are reported in `manifest["stats"]["failed_sources"]` (and the
    CLI exits non-zero); the others are still collected.

    Args:
        config: the stage config.
        output: folder of the artifact (created if needed).

    Returns:
        The new :class:`~envscale.artifacts.Artifact` version.
    """
    with ArtifactWriter(Path(output), API_POOL, config.fingerprint(), config=to_dict(config)) as writer:
        return _collect(config, writer)


def _collect(config: CollectConfig, writer: ArtifactWriter) -> Artifact:
    parts: list[tuple[Path, dict]] = []
    failed: list[dict] = []
    for index, spec in enumerate(config.sources):
        part = writer.parts_dir / f"{index:03d}-{hashlib.sha256(spec.encode()).hexdigest()[:8]}"
        summary = _finished_part(part, spec)
        if summary is not None:
            logger.info("resume: %s was already collected (%d tools read)", spec, summary["read"])
        else:
            try:
                summary = _collect_source(index, spec, config, part)
            except KeyboardInterrupt:
                done = sum((p / DONE).is_file() for p in writer.parts_dir.iterdir())
                logger.warning(
                    "interrupted: %d of %d sources finished; re-run the same command to resume",
                    done,
                    len(config.sources),
                )
                raise
            except Exception as exc:  # noqa: BLE001 - one source failing never stops the others
                error = (
                    str(exc)
                    if isinstance(exc, SourceError | OSError | ValueError)
                    else f"{type(exc).__name__}: {exc}"
                )
                logger.error("source %s failed: %s", spec, error)
                failed.append({"source": spec, "error": error})
                continue
        logger.info(
            "%s: read %d, normalised %d, rejected %d",
            spec,
            summary["read"],
            summary["normalised"],
            summary["rejected"],
        )
        parts.append((part, summary))
    counts, per_source = _merge(parts, writer, config.batch_size)
    totals = {key: sum(s[key] for s in per_source) for key in ("read", "accepted", "rejected", "duplicates")}
    kinds = Counter()
    for s in per_source:
        kinds.update(s["kinds"])
    stats = {
        "sources": per_source,
        "failed_sources": failed,
        "totals": totals,
        "kinds": dict(kinds),
        "complete": not failed,
    }
    inputs = [entry for _, summary in parts for entry in summary.get("files", [])]
    art = writer.commit(counts, stats, inputs=inputs)
    logger.info(
        "api_pool %s: read %d = accepted %d + rejected %d + duplicates %d%s",
        art.pinned,
        totals["read"],
        totals["accepted"],
        totals["rejected"],
        totals["duplicates"],
        f"; {len(failed)} source(s) FAILED" if failed else "",
    )
    return art
