"""What every view reads, without the browser: the artifacts under a folder (`discover`, `Catalog`), pages of their
rows (`Index`: a few light columns from the Arrow table, in polars; one row read by its position when it is opened),
the pickers' choices, and the small helpers the views share (`cell`, `parse_json`, `call_arguments`).

Everything here is plain Python over `envscale.artifacts` (so `datasets.load_dataset`, local or Hub, at a pinned
version) and is tested without Gradio. Each view's content is its own module (`environments`, `tasks`, `episodes`,
`evals`); `envscale.view.app` lays them out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..artifacts import Artifact, open_artifact

PAGE_SIZE = 50
"""Rows in one page of a list."""
PICKER_CHOICES = 2_000
"""Most items a picker (environment, task, episode) offers: every row matching the filters and search, up to
this many (the page line says when there are more, so the user narrows them)."""
CELL_CHARS = 200
"""Characters of one cell shown in a table (the rest is cut with an ellipsis)."""
VIEW_KINDS = ("environments", "tasks", "trajectories", "filtered", "eval")
"""The artifact kinds that have a view; the others (api_pool, graph) are listed and feed those views."""

INDEX_COLUMNS = {
    "environments": ["name", "domain_id", "kind", "n_tables", "n_tools", "n_write", "semantic_score"],
    "tasks": ["task_id", "environment", "kind", "split", "difficulty"],
    "trajectories": ["trajectory_id", "task_id", "environment", "kind", "split", "status", "n_calls"],
    "filtered": [
        "trajectory_id",
        "task_id",
        "environment",
        "kind",
        "split",
        "status",
        "passed",
        "failed_checks",
    ],
}
"""The columns a list shows (and filters on) per kind; the row's other columns are read when it is opened."""


@dataclass
class Catalog:
    """The artifacts one viewer shows, by name (a folder's child name, or the artifact's kind)."""

    artifacts: dict[str, Artifact] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)  # name -> why it could not be opened
    _indexes: dict[tuple[str, str, str], Index] = field(default_factory=dict, repr=False)

    def of_kind(self, *kinds: str) -> dict[str, Artifact]:
        return {n: a for n, a in self.artifacts.items() if a.manifest["kind"] in kinds}

    def first(self, kind: str) -> Artifact | None:
        name = self.first_name(kind)
        return self.artifacts[name] if name is not None else None

    def first_name(self, kind: str) -> str | None:
        found = self.of_kind(kind)
        return sorted(found)[0] if found else None

    def index(self, name: str, config: str | None = None, split: str = "train") -> Index:
        """The light index of one config and split of artifact `name`, read once per viewer and shared by every
        view that lists or counts its rows."""
        art = self.artifacts[name]
        key = (name, config or art.kind.main_config, split)
        if key not in self._indexes:
            self._indexes[key] = Index(art, key[1], split)
        return self._indexes[key]

    def overview(self) -> list[list[Any]]:
        """One line per artifact: name, kind, version, rows per config, where it is."""
        lines = []
        for name, art in sorted(self.artifacts.items()):
            counts = ", ".join(f"{k} {v:,}" for k, v in art.manifest.get("counts", {}).items())
            lines.append([name, art.manifest["kind"], art.revision or art.version, counts, art.pinned])
        for name, why in sorted(self.problems.items()):
            lines.append([name, "(not opened)", "", why, ""])
        return lines


def discover(refs: str | Sequence[str]) -> Catalog:
    """The artifacts of `refs`: each an artifact (`PATH[@vN]`, `hf://org/name[@revision]`) or a folder of them
    (an `envscale run` output). A child folder that is not an artifact is skipped; one that is but cannot be
    opened is listed with the reason, never dropped."""
    refs = [refs] if isinstance(refs, str) else list(refs)
    if not refs:
        raise ValueError("envscale view: give an artifact or a folder of artifacts")
    catalog = Catalog()
    for ref in refs:
        path = Path(ref.split("@")[0]) if not ref.startswith("hf://") else None
        if path is not None and path.is_dir() and not (path / "envscale.json").is_file():
            children = sorted(p for p in path.iterdir() if (p / "envscale.json").is_file())
            if not children:
                raise ValueError(
                    f"{ref}: neither an artifact nor a folder of artifacts (no envscale.json in it)"
                )
            for child in children:
                try:
                    catalog.artifacts[child.name] = open_artifact(child)
                except Exception as exc:  # noqa: BLE001 - one broken artifact does not close the viewer
                    catalog.problems[child.name] = f"{type(exc).__name__}: {exc}"
            continue
        art = open_artifact(ref)
        name = art.manifest["kind"] if art.is_hub else Path(art.location).name
        catalog.artifacts[name if name not in catalog.artifacts else art.pinned] = art
    return catalog


# ----------------------------------------------------------------------------------------------- lists


def cell(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float)):
        return value
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= CELL_CHARS else text[: CELL_CHARS - 1] + "…"


def _storage(table: Any) -> Any:
    """An Arrow table with each extension column (a `Json` column) as its plain storage (text), which polars
    filters and casts."""
    import pyarrow as pa

    for i, column in enumerate(table.columns):
        if isinstance(column.type, pa.BaseExtensionType):
            storage = pa.chunked_array([c.storage for c in column.chunks], type=column.type.storage_type)
            table = table.set_column(i, table.schema.field(i).name, storage)
    return table


class Index:
    """The light columns of one config and split of an artifact, for lists and filters (polars, in memory:
    a few columns of a million rows is tens of MB); each row keeps its position (`row`) in the dataset."""

    def __init__(self, art: Artifact, config: str | None = None, split: str = "train"):
        import polars as pl

        self.art, self.config = art, config or art.kind.main_config
        splits = art.splits.get(self.config, {})
        self.split = split if split in splits else (sorted(splits)[0] if splits else split)
        self.dataset = art.load(self.config, self.split)
        names = self.dataset.column_names
        wanted = [c for c in INDEX_COLUMNS.get(art.manifest["kind"], names[:6]) if c in names]
        # only the light columns leave the memory-mapped file (a million episodes' messages stay on disk)
        table = self.dataset.select_columns(wanted).with_format("arrow")[:] if len(self.dataset) else None
        frame = pl.from_arrow(_storage(table)) if table is not None else pl.DataFrame()
        if "failed_checks" in frame.columns:  # a list: shown as text, filtered by membership
            frame = frame.with_columns(pl.col("failed_checks").list.join(", ").alias("failed_checks"))
        if "difficulty" in frame.columns:  # a task's difficulty is a JSON object: the list shows its level
            text = pl.col("difficulty").cast(pl.String)
            frame = frame.with_columns(
                text.str.json_path_match("$.level").fill_null(text).alias("difficulty")
            )
        self.frame = frame.with_row_index("row") if len(frame.columns) else pl.DataFrame({"row": []})

    def values(self, column: str) -> list[str]:
        """The distinct values of a column, for a filter's choices ("" first: any)."""
        if column not in self.frame.columns:
            return [""]
        if column == "failed_checks":
            seen = {c for v in self.frame[column].to_list() if v for c in v.split(", ")}
        else:
            seen = {str(v) for v in self.frame[column].to_list() if v is not None}
        return ["", *sorted(seen)]

    def select(self, filters: Mapping[str, str] | None = None, search: str = "") -> Any:
        """The rows matching every non-empty filter (`failed_checks`: contains the check) and the search text
        (in the first column), as a polars frame."""
        import polars as pl

        frame = self.frame
        for column, value in (filters or {}).items():
            if not value or column not in frame.columns:
                continue
            if column == "failed_checks":
                frame = frame.filter(pl.col(column).str.contains(value, literal=True))
            elif column == "passed":
                frame = frame.filter(pl.col(column) == (str(value).lower() == "true"))
            else:
                frame = frame.filter(pl.col(column).cast(pl.String) == str(value))
        if search and len(frame.columns) > 1:
            first = frame.columns[1]
            frame = frame.filter(pl.col(first).cast(pl.String).str.contains(search, literal=True))
        return frame

    def page(self, frame: Any, page: int = 1) -> tuple[list[list[Any]], list[str], int, int]:
        """One page of `frame`: its rows (cells cut), headers, the page number (clamped) and the page count."""
        pages = max(1, -(-len(frame) // PAGE_SIZE))
        page = min(max(1, int(page or 1)), pages)
        part = frame.slice((page - 1) * PAGE_SIZE, PAGE_SIZE)
        rows = [[cell(v) for v in r] for r in part.iter_rows()]
        return rows, list(part.columns), page, pages

    def row(self, position: int) -> dict:
        return self.dataset[int(position)]

    def position(self, column: str, value: str) -> int | None:
        """The position of the first row whose `column` is `value`."""
        import polars as pl

        if column not in self.frame.columns:
            return None
        hit = self.frame.filter(pl.col(column).cast(pl.String) == str(value))
        return int(hit["row"][0]) if len(hit) else None


def picker_choices(frame: Any, column: str, cap: int | None = None) -> tuple[list[str], bool]:
    """The values of `column` in `frame` (every row matching the filters, not one page) for a picker, at most
    `cap` (default `PICKER_CHOICES`) of them; and whether the cap cut some off."""
    cap = PICKER_CHOICES if cap is None else cap
    if column not in getattr(frame, "columns", []):
        return [], False
    values = [str(v) for v in frame[column].head(cap).to_list()]
    return values, len(frame) > cap


def parse_json(value: Any) -> Any:
    """A JSON column's value parsed when it is JSON text (an object or a list), else as it is."""
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def call_arguments(call: Mapping[str, Any]) -> str:
    arguments = call.get("arguments")
    arguments = parse_json(arguments) if isinstance(arguments, str) else arguments
    return cell(json.dumps(arguments or {}, ensure_ascii=False, default=str))
