"""Tools from a Hugging Face dataset with a tools column (`hf:REPO[@REVISION][:CONFIG]`).

Tool-calling datasets (xLAM, ToolACE, Glaive, Hermes) keep each example's tools in a column,
as a JSON string or as structs. Every row is read in streaming mode (no full download into
memory); every tool is yielded with the row as its position. `REPO` is a Hub repo id or a
local folder laid out like one (for example an envscale artifact).

Reading from the Hub has a time limit per request (`ENVSCALE_HUB_TIMEOUT` seconds, default 60; see
`envscale.hub.ensure_hub_timeouts`): a Hub that cannot be reached or does not answer makes the source
fail with a :class:`SourceError` naming the endpoint and the way out, and the collect stage goes on
with the other sources.

Example:

```python
>>> from envscale.sources import read_source
>>> info, items = read_source("hf:tests/fixtures/hf_tools")
>>> next(iter(items)).position
'train:0.tools[0]'
```
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .base import RawError, RawTool, SourceError, SourceInfo
from .json_docs import server_of, tools_in_record

TOOL_COLUMNS = ("tools", "functions", "function", "api_list")


def parse_hf_target(target: str) -> tuple[str, str | None, str | None]:
    """`org/name@rev:config` -> (repo, revision, config)."""
    repo, _, config = target.partition(":")
    repo, _, revision = repo.partition("@")
    return repo, revision or None, config or None


def read_hf(target: str, info: SourceInfo) -> Iterator[RawTool | RawError]:
    """Yield the tools of every row of every split of the dataset."""
    import datasets

    repo, revision, config = parse_hf_target(target)
    is_local = Path(repo).exists()
    what = f"dataset {repo!r}{f' config {config!r}' if config else ''}"
    if not is_local:
        from ..hub import ensure_hub_timeouts

        ensure_hub_timeouts()
    try:
        splits = datasets.load_dataset(repo, config, revision=revision, streaming=True)
    except Exception as exc:  # noqa: BLE001 - datasets raises many types for "cannot load"
        failure = None if is_local else _hub_failure(exc, f"loading {what}")
        raise SourceError(failure or f"cannot load {what}: {exc}") from None
    if not is_local:
        try:
            from huggingface_hub import HfApi

            info.version = HfApi().dataset_info(repo, revision=revision).sha
        except Exception:  # noqa: BLE001 - provenance is best effort; the rows are still read
            info.version = revision
    info.title = repo
    if is_local:  # what a resumed run checks for changes (a Hub dataset is pinned by its revision instead)
        root = Path(repo)
        found = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
        info.files.extend(
            str(p) for p in found if not any(x.startswith(".") for x in p.parts[len(root.parts) :])
        )
    for split, ds in splits.items():
        columns = ds.column_names or []
        column = next((c for c in TOOL_COLUMNS if c in columns), None)
        if column is None:
            raise SourceError(
                f"dataset {repo!r} split {split!r} has no tools column (looked for {', '.join(TOOL_COLUMNS)}; "
                f"columns: {', '.join(columns)})"
            )
        for i, row in enumerate(ds if is_local else _hub_rows(ds, f"reading {what} split {split!r}")):
            position = f"{split}:{i}"
            value = row[column]
            if value is None or value == "" or value == []:
                continue  # a row without tools holds nothing to collect
            yield from tools_in_record(
                value, f"{position}.{column}", group=config, document=position, server=server_of(row)
            )


def _hub_failure(exc: BaseException, doing: str) -> str | None:
    """The one-line message for a Hub failure (timeout, no connection, offline, HTTP error), else `None`."""
    from ..hub import describe_hub_failure

    failure = describe_hub_failure(exc, doing)
    return None if failure is None else str(failure)


def _hub_rows(rows: Iterable[Any], doing: str) -> Iterator[Any]:
    """`rows`, with a Hub failure while streaming them raised as a :class:`SourceError`."""
    iterator = iter(rows)
    count = 0
    while True:
        try:
            row = next(iterator)
        except StopIteration:
            return
        except Exception as exc:  # noqa: BLE001 - only Hub failures are rewritten; the rest is re-raised
            failure = _hub_failure(exc, f"{doing} (after {count} rows)")
            if failure is None:
                raise
            raise SourceError(failure) from None
        count += 1
        yield row
