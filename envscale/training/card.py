"""Model cards of `envscale train` outputs, rendered from `dataset_cards/model.md` (merged with an existing one)."""

from __future__ import annotations

from pathlib import Path

import yaml

from ..cards import BEGIN, END, merge_cards, template_path


def render_model_card(records: list[dict], *, load_target: str, merged: bool = False) -> str:
    """The card of a run's stages (`records`: their `training.json` contents, in order)."""
    from huggingface_hub import ModelCard, ModelCardData

    last = records[-1]
    base = last["base_model"]
    base_id = base.get("hub_equivalent") or (base["model"] if "path" not in base else None)
    adapter = last["adapter"] and not merged
    data = ModelCardData(
        base_model=base_id,
        library_name="peft" if adapter else "transformers",
        pipeline_tag="text-generation",
        tags=["envscale", "tool-use", "agents", "trl", "sft", *(["lora"] if last["adapter"] else [])],
        envscale={
            "stages": [r["stage"] for r in records],
            "data": [{k: r["data"].get(k) for k in ("pinned", "version", "data_id")} for r in records],
            "fingerprints": [r["fingerprint"] for r in records],
        },
    )
    stages = " + ".join(f"stage {r['stage']}" for r in records)
    records = [
        {**r, "hyperparameters_yaml": yaml.safe_dump(r["hyperparameters"], sort_keys=False).strip()}
        for r in records
    ]
    card = ModelCard.from_template(
        data,
        template_path=str(template_path("model")),
        begin=BEGIN,
        end=END,
        title=f"envscale tool-calling SFT ({stages}) of {base['model']}",
        records=records,
        base=base,
        merged=merged,
        versions=last["versions"],
        load_target=load_target,
        config_yaml=yaml.safe_dump(last["config"], sort_keys=False, allow_unicode=True).strip(),
    )
    return str(card)


def write_card(folder: Path, records: list[dict], *, merged: bool = False) -> Path:
    """Write (or merge into) `folder/README.md` the card of `records`; returns its path."""
    path = Path(folder) / "README.md"
    card = render_model_card(records, load_target=str(Path(folder).resolve()), merged=merged)
    if path.is_file():
        card = merge_cards(path.read_text(encoding="utf-8"), card)
    path.write_text(card, encoding="utf-8")
    return path


def write_top_card(output: Path, records: list[dict]) -> Path:
    """The run folder's card: every stage of the run, loading the last one."""
    last = Path(output) / f"stage{records[-1]['stage']}"
    path = Path(output) / "README.md"
    card = render_model_card(records, load_target=str(last.resolve()))
    if path.is_file():
        card = merge_cards(path.read_text(encoding="utf-8"), card)
    path.write_text(card, encoding="utf-8")
    return path
