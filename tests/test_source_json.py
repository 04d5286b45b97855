"""The json: reader on archives, folders and globs, and the hf: reader on a local dataset folder."""

import json
import zipfile

import pytest
from datasets import Dataset

from envscale.sources import SourceError, read_source
from envscale.sources.json_docs import tools_in_record

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


def test_a_server_named_by_a_record_becomes_group_and_document(tmp_path):
    schema = {"type": "object", "properties": {}}
    lines = [
        {"server": "todoist", "name": "list_tasks", "description": "d", "inputSchema": schema},
        {"type": "function", "function": {"name": "f", "parameters": schema}, "service_name": "billing"},
        {"server_name": "github", "tools": [{"name": "list_repos", "parameters": schema}]},
        {"mcp_server": {"name": "slack", "version": "2"}, "tools": [{"name": "post", "namespace": "chat"}]},
        {"server": "  ", "name": "no_server", "parameters": schema},  # blank: not a server name
        {"name": "plain", "parameters": schema},
    ]
    path = tmp_path / "corpus.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    _, items = read_source(f"json:{path}")
    got = {t.name: (t.group, t.document.replace(str(tmp_path), "")) for t in items}
    assert got == {
        "list_tasks": ("todoist", "/corpus.jsonl (server todoist)"),
        "f": ("billing", "/corpus.jsonl (server billing)"),
        "list_repos": ("github", "/corpus.jsonl:3 (server github)"),
        "post": ("chat", "/corpus.jsonl:4 (server chat)"),  # a tool's own key wins over its record's
        "no_server": ("corpus", "/corpus.jsonl"),  # as before: the file's stem, the file as document
        "plain": ("corpus", "/corpus.jsonl"),
    }
    from envscale.sources.json_docs import SERVER_KEYS

    assert {"server", "server_name", "mcp_server", "service", "namespace", "toolkit"} <= set(SERVER_KEYS)


def test_json_lines_whose_first_line_is_too_deep_still_read_the_rest(tmp_path):
    deep = '{"name": "deep", "parameters": ' + '{"a": ' * 3_000 + "1" + "}" * 3_000 + "}"
    path = tmp_path / "tools.jsonl"
    path.write_text("\n" + deep + "\n" + json.dumps({"name": "get_time", "parameters": {}}) + "\n")
    _, items = read_source(f"json:{path}")
    error, tool = list(items)
    assert error.position.endswith("tools.jsonl:2") and error.reason.startswith("nested too deeply: the line")
    assert tool.name == "get_time" and tool.position.endswith("tools.jsonl:3")  # positions count blank lines


def test_tools_nested_in_lists_or_strings_too_deeply_are_one_error_each():
    deep = {"name": "deep", "parameters": {}}
    for _ in range(5_000):
        deep = [deep]
    items = list(tools_in_record([{"name": "ok_tool"}, deep], "x.json"))
    assert [type(i).__name__ for i in items] == ["RawTool", "RawError"]
    assert items[1].reason.startswith("nested too deeply: tools inside more than 200 levels")
    assert json.dumps(items[1].raw)  # what is kept of it can be stored
    wide = {"name": "deep_schema", "parameters": {"type": "object", "x": [[[1]]]}}
    for _ in range(250):
        wide["parameters"]["x"] = [wide["parameters"]["x"]]
    [error] = tools_in_record(json.dumps(wide), "row:3.tools")
    assert error.name == "deep_schema" and "more than 200 levels" in error.reason
    assert json.dumps(error.raw).count("nested too deeply") == 1
