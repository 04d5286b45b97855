"""Publishing and reading artifacts through the real huggingface_hub / datasets code paths.

No Hugging Face Hub is reachable here: these tests run against `tests/hubfake.py`, a
protocol-level FAKE of the Hub on loopback (the `hub_fake` fixture).
"""

import sys
from pathlib import Path

import pytest
from datasets import Dataset, load_dataset
from huggingface_hub import HfApi

from envscale.artifacts import IncompatibleSchemaError, open_artifact
from envscale.cards import BEGIN, END
from envscale.cli import main
from envscale.hub import TagExistsError, push_artifact
from envscale.stages.collect import CollectConfig, collect

FIX = "tests/fixtures/json"


def test_push_then_read_back_pinned_versions(hub_fake, tmp_path, capsys):
    out = tmp_path / "pool"
    collect(CollectConfig(sources=[f"json:{FIX}/openai_tools.json"]), out)
    assert main(["push", str(out), "lab/tools"]) == 0
    assert "tag v1" in capsys.readouterr().out
    collect(CollectConfig(sources=[f"json:{FIX}/openai_tools.json", f"json:{FIX}/xlam_style.jsonl"]), out)
    second = push_artifact(str(out), "lab/tools")
    assert second["tag"] == "v2"

    # The real datasets loader reads each tagged version, and main holds the latest one only.
    assert load_dataset("lab/tools", "api_pool", revision="v1", split="train").num_rows == 2
    assert load_dataset("lab/tools", "api_pool", split="train").num_rows == 4
    assert open_artifact("lab/tools@v2").load("rejected").num_rows == 0  # empty configs load empty
    v1 = open_artifact("lab/tools@v1", expect_kind="api_pool")
    assert v1.is_hub and v1.manifest["version"] == "v1" and len(v1.revision) == 40
    assert v1.pinned == f"hf://lab/tools@{v1.revision}"
    assert sorted(v1.load("api_pool")["name"]) == ["book_flight", "get_weather"]
    refs = HfApi().list_repo_refs("lab/tools", repo_type="dataset")
    assert {t.name for t in refs.tags} == {"v1", "v2"}

    # Pushing a version under an existing tag is refused instead of silently moving it.
    with pytest.raises(TagExistsError, match="--tag"):
        push_artifact(f"{out}@v1", "lab/tools")


def test_push_merges_the_card_people_edited(hub_fake, tmp_path):
    out = tmp_path / "pool"
    collect(CollectConfig(sources=[f"json:{FIX}/openai_tools.json"]), out)
    push_artifact(str(out), "lab/cards")
    api = HfApi()
    card = Path(api.hf_hub_download("lab/cards", "README.md", repo_type="dataset")).read_text()
    assert BEGIN in card and 'load_dataset("lab/cards", "api_pool"' in card
    edited = card.replace("---\n", "---\nlicense: apache-2.0\n", 1).replace(
        BEGIN, "Hand-written notes.\n\n" + BEGIN
    )
    api.upload_file(
        path_or_fileobj=edited.encode(), path_in_repo="README.md", repo_id="lab/cards", repo_type="dataset"
    )
    collect(CollectConfig(sources=[f"json:{FIX}/xlam_style.jsonl"]), out)
    push_artifact(str(out), "lab/cards")
    merged = Path(api.hf_hub_download("lab/cards", "README.md", repo_type="dataset")).read_text()
    assert "Hand-written notes." in merged and "license: apache-2.0" in merged
    assert merged.count(BEGIN) == 1 and merged.count(END) == 1
    assert "# envscale api_pool v2" in merged and "# envscale api_pool v1" not in merged


def test_reading_an_incompatible_schema_fails_with_the_way_out(hub_fake, tmp_path):
    out = tmp_path / "pool"
    collect(CollectConfig(sources=[f"json:{FIX}/openai_tools.json"]), out)
    manifest_path = out / "versions" / "v1" / "envscale.json"
    manifest_path.write_text(
        manifest_path.read_text().replace('"schema_version": "1.0"', '"schema_version": "2.0"')
    )
    with pytest.raises(IncompatibleSchemaError, match="Re-run the stage"):
        open_artifact(out)


def test_hf_source_reads_a_tools_column_from_the_hub(hub_fake, tmp_path):
    import json

    rows = [
        {
            "query": "weather?",
            "tools": json.dumps(
                [
                    {
                        "name": "get_weather",
                        "description": "Weather by city.",
                        "parameters": {"city": {"type": "str"}},
                    }
                ]
            ),
        },
        {"query": "nothing", "tools": "not json at all"},
    ]
    Dataset.from_list(rows).push_to_hub("lab/xlam-like")
    art = collect(CollectConfig(sources=["hf:lab/xlam-like"]), tmp_path / "pool")
    pool = art.load("api_pool")
    assert pool["name"] == ["get_weather"] and pool[0]["source_version"]  # the dataset commit sha
    rejected = art.load("rejected")
    assert rejected[0]["position"] == "train:1.tools" and "not JSON" in rejected[0]["reason"]


def test_hub_script_converts_an_api_pool_to_openai_tools_and_pushes(hub_fake, tmp_path, monkeypatch):
    import importlib.util

    spec = importlib.util.spec_from_file_location("convert", "hub_scripts/api_pool_to_openai_tools.py")
    convert = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "convert", convert)  # dataclasses look their module up
    spec.loader.exec_module(convert)
    collect(CollectConfig(sources=[f"json:{FIX}/openai_tools.json"]), tmp_path / "pool")
    push_artifact(str(tmp_path / "pool"), "lab/pool")
    convert.main(convert.ScriptArguments(input="lab/pool@v1", push_to_hub="lab/openai-tools"))
    tools = load_dataset("lab/openai-tools", split="train")["tool"]
    assert {t["function"]["name"] for t in tools} == {"get_weather", "book_flight"}
    assert all(t["type"] == "function" and t["function"]["parameters"]["type"] == "object" for t in tools)
    card = Path(HfApi().hf_hub_download("lab/openai-tools", "README.md", repo_type="dataset")).read_text()
    assert "lab/pool@" in card
