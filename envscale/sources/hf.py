"""Tools from a Hugging Face dataset with a tools column (`hf:REPO[@REVISION][:CONFIG]`).

Tool-calling datasets (xLAM, ToolACE, Glaive, Hermes) keep each example's tools in a column,
as a JSON string or as structs. Every row is read in streaming mode (no full download into
memory); every tool is yielded with the row as its position. `REPO` is a Hub repo id or a
local folder laid out like one (for example an envscale artifact).

Example:

```python
>>> from envscale.sources import read_source
>>> info, items = read_source("hf:tests/fixtures/hf_tools")
>>> next(iter(items)).position
'train:0.tools[0]'
```
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .base import RawError, RawTool, SourceError, SourceInfo
from .json_docs import tools_in_record

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
    try:
        splits = datasets.load_dataset(repo, config, revision=revision, streaming=True)
    except Exception as exc:  # noqa: BLE001 - datasets raises many types for "cannot load"
        raise SourceError(
            f"cannot load dataset {repo!r}{f' config {config!r}' if config else ''}: {exc}"
        ) from None
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
        for i, row in enumerate(ds):
            position = f"{split}:{i}"
            value = row[column]
            if value is None or value == "" or value == []:
                continue  # a row without tools holds nothing to collect
            yield from tools_in_record(value, f"{position}.{column}", group=config, document=position)
