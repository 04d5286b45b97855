"""The json: reader on archives, folders and globs, and the hf: reader on a local dataset folder."""

import json
import zipfile

import pytest
from datasets import Dataset

from envscale.sources import SourceError, read_source

FIX = "tests/fixtures/json"


def names(spec, **kw):
    info, items = read_source(spec, **kw)
    return [t.name for t in items if hasattr(t, "name")], info


def test_archive_members_folder_and_glob(tmp_path):
    wheel = tmp_path / "pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.write(f"{FIX}/openai_tools.json", "pkg/data/openai_tools.json")
        zf.write(f"{FIX}/xlam_style.jsonl", "pkg/data/xlam.jsonl")
        zf.writestr("pkg/code.py", "print('not json')")
    got, _ = names(f"json:{wheel}!pkg/data/*.json")
    assert got == ["get_weather", "book_flight", "get_weather"]
    got, _ = names(f"json:{wheel}!pkg/data/*.json,pkg/data/*.jsonl")
    assert "cancel_order" in got
    assert "cancel_order" in names(f"json:{FIX}")[0]  # a folder: every json/jsonl below it
    assert "search_restaurants" in names(f"json:{FIX}/x*.jsonl")[0]  # a glob
    with pytest.raises(SourceError, match="no member"):
        names(f"json:{wheel}!nothing/*.json")


def test_relative_paths_resolve_against_the_recipe_folder(tmp_path):
    (tmp_path / "tools.json").write_text(json.dumps([{"name": "x_tool", "parameters": {}}]))
    assert names("json:tools.json", base_dir=tmp_path)[0] == ["x_tool"]


def test_pretty_printed_document_and_empty_file(tmp_path):
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps({"tools": [{"name": "a_tool", "description": "A."}]}, indent=2))
    assert names(f"json:{pretty}")[0] == ["a_tool"]
    empty = tmp_path / "empty.json"
    empty.write_text("\n\n")
    info, items = read_source(f"json:{empty}")
    assert [e.reason for e in items] == ["file is empty"]


def test_hf_source_on_a_local_dataset_folder(tmp_path):
    rows = [
        {
            "id": 1,
            "tools": [
                {
                    "name": "get_stock",
                    "description": "Stock price.",
                    "parameters": json.dumps(
                        {"type": "object", "properties": {"symbol": {"type": "string"}}}
                    ),
                }
            ],
        }
    ]
    Dataset.from_list(rows).to_parquet(str(tmp_path / "data" / "train.parquet"))
    got, info = names(f"hf:{tmp_path}")
    assert got == ["get_stock"] and info.title == str(tmp_path)
    with pytest.raises(SourceError, match="no tools column"):
        Dataset.from_list([{"text": "x"}]).to_parquet(str(tmp_path / "other" / "data" / "train.parquet"))
        names(f"hf:{tmp_path / 'other'}")
