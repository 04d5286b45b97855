"""Dataset cards: rendered from `dataset_cards/<kind>.md`, merged with what is already there.

A card carries the config that made the artifact, its inputs and their versions, counts, a
sample row and a `load_dataset(...)` snippet. The generated part sits between
`<!-- envscale:begin -->` and `<!-- envscale:end -->`; :func:`merge_cards` replaces only that
part and the metadata keys envscale owns, so edits people made to a card on the Hub survive.

Example:

```python
>>> from envscale.cards import merge_cards
>>> merged = merge_cards(existing_readme_text, new_card_text)
```
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from huggingface_hub import DatasetCard, DatasetCardData

from .layout import shard_files, split_counts
from .schemas import ArtifactKind

BEGIN, END = "<!-- envscale:begin -->", "<!-- envscale:end -->"
#: Metadata keys that envscale writes and owns; other keys in an existing card are kept.
OWNED_KEYS = ("configs", "envscale")


def template_path(kind: str) -> Path:
    """`dataset_cards/<kind>.md` from the source tree, else from the installed package."""
    here = Path(__file__).resolve().parent.parent / "dataset_cards" / f"{kind}.md"
    if here.is_file():
        return here
    packaged = resources.files("envscale") / "dataset_cards" / f"{kind}.md"
    if packaged.is_file():
        return Path(str(packaged))
    raise FileNotFoundError(f"no card template for {kind!r} (dataset_cards/{kind}.md)")


def configs_metadata(kind: ArtifactKind, manifest: dict, prefix: str = "") -> list[dict]:
    """The README `configs:` entries for a version whose config folders sit under `prefix`.

    One `data_files` entry per split that holds rows. `datasets` cannot load a split with no rows, so
    empty splits, and configs with no rows at all, are left out of the card (their counts, 0, are still
    in the card and the manifest; `Artifact.load` returns them empty).
    """
    entries = []
    for name, per_split in split_counts(manifest).items():
        if name not in kind.configs:
            continue
        files = [
            {"split": split, "path": f"{prefix}{name}/{split}-{manifest['data_id']}-*.parquet"}
            for split, n in per_split.items()
            if n > 0
        ]
        if files:
            entries.append(
                {
                    "config_name": name,
                    "data_files": files,
                    **({"default": True} if name == kind.main_config else {}),
                }
            )
    return sorted(entries, key=lambda e: list(kind.configs).index(e["config_name"]))


def _sample_row(kind: ArtifactKind, folder: Path, manifest: dict) -> dict | None:
    """The first row of the main config's first split with rows, `Json` columns decoded (by the features)."""
    import pyarrow.parquet as pq
    from datasets import Json

    config = kind.main_config
    json_columns = {name for name, feat in kind.configs[config].items() if isinstance(feat, Json)}
    for split in split_counts(manifest).get(config, {}):
        for shard in shard_files(folder / config, split, manifest["data_id"]):
            pf = pq.ParquetFile(shard)
            if pf.metadata.num_rows:
                row = pf.read_row_group(0).slice(0, 1).to_pylist()[0]
                return {
                    k: (json.loads(v) if k in json_columns and v is not None else v) for k, v in row.items()
                }
    return None


def _truncate(value: Any, limit: int = 600) -> Any:
    text = json.dumps(value, ensure_ascii=False, indent=2, default=str)
    return text if len(text) <= limit else text[:limit] + "\n... (truncated)"


def render_card(
    kind: ArtifactKind, manifest: dict, folder: Path, *, prefix: str = "", load_target: str
) -> str:
    """Render the card of one version whose config folders are `folder/<config>/`."""
    data = DatasetCardData(
        pretty_name=f"envscale {kind.name}",
        tags=["envscale", "tool-use", "agents", kind.name],
        configs=configs_metadata(kind, manifest, prefix),
        envscale={
            k: manifest[k] for k in ("kind", "schema_version", "version", "fingerprint", "envscale_version")
        },
    )
    licences = sorted(
        {s.get("license") for s in manifest.get("stats", {}).get("sources", []) if s.get("license")}
    )
    body = DatasetCard.from_template(
        data,
        template_path=str(template_path(kind.name)),
        begin=BEGIN,
        end=END,
        kind=kind,
        m=manifest,
        config_yaml=yaml.safe_dump(manifest.get("config", {}), sort_keys=False, allow_unicode=True).strip(),
        sample=_truncate(_sample_row(kind, folder, manifest)),
        licences=licences,
        load_target=load_target,
    )
    return str(body)


def merge_cards(existing: str, new: str) -> str:
    """Keep the existing card's prose and foreign metadata; take envscale's part from `new`."""
    old_card, new_card = DatasetCard(existing), DatasetCard(new)
    metadata = old_card.data.to_dict()
    new_meta = new_card.data.to_dict()
    for key, value in new_meta.items():
        if key in OWNED_KEYS or key not in metadata:
            metadata[key] = value
    new_part = new_card.text[new_card.text.find(BEGIN) : new_card.text.find(END) + len(END)]
    text = old_card.text
    if BEGIN in text and END in text:
        text = text[: text.find(BEGIN)] + new_part + text[text.find(END) + len(END) :]
    else:
        text = text.rstrip() + "\n\n" + new_part + "\n"
    return f"---\n{yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True)}---\n{text}"
