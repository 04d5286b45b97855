"""The collect stage end to end on fixture sources: shapes, bad input, accounting, resume, versions."""

import json

import jsonschema
import pytest
from datasets import load_dataset

from envscale.artifacts import open_artifact
from envscale.sources import collect as collect_module
from envscale.sources.collect import CollectConfig, collect

FIX = "tests/fixtures/json"


def rows(path, config):
    return list(load_dataset(str(path), config, split="train"))


def test_shapes_in_the_wild_round_trip_through_load_dataset(tmp_path):
    sources = [f"json:{FIX}/openai_tools.json", f"json:{FIX}/bfcl_style.json", f"json:{FIX}/xlam_style.jsonl"]
    art = collect(CollectConfig(sources=sources), tmp_path / "pool")
    pool = rows(tmp_path / "pool", "api_pool")
    by_name = {r["name"]: r for r in pool}
    assert {
        "get_weather",
        "book_flight",
        "GeometryPresentation_createPresentation",
        "search_restaurants",
        "cancel_order",
    } <= set(by_name)
    # Nested schemas come back as the dicts that were written (datasets.Json), not unified structs.
    assert by_name["book_flight"]["parameters"]["properties"]["passenger"]["properties"]["age"] == {
        "type": "integer"
    }
    assert "passenger" not in by_name["get_weather"]["parameters"]["properties"]
    for r in pool:
        jsonschema.Draft202012Validator.check_schema(r["parameters"])
        assert r["kind"] in ("read", "write") and r["kind_evidence"]
        assert r["source"] in sources and r["position"] and r["source_kind"] == "json"
    assert by_name["cancel_order"]["kind"] == "write"
    # The same name for two different tools in different records: both kept, named apart.
    triangles = [r for r in pool if r["original_name"] == "calculate_triangle_area"]
    assert len(triangles) == 2 and len({r["name"] for r in triangles}) == 2
    assert len({r["name"] for r in pool}) == len(pool) == art.manifest["counts"]["api_pool"]
    # Exact repeats are counted as duplicates, pointing at the kept tool.
    dupes = rows(tmp_path / "pool", "duplicates")
    kept_ids = {r["id"] for r in pool}
    assert len(dupes) == 2 and all(d["duplicate_of"] in kept_ids for d in dupes)


def test_bad_input_is_kept_with_reasons_and_nothing_disappears(tmp_path):
    huge = tmp_path / "huge.jsonl"
    huge.write_text(
        json.dumps({"name": "huge", "description": "x" * 1_048_576, "parameters": {}})
        + "\n"
        + b'{"name": "latin1_\xe9", "parameters": {}}\n'.decode("latin-1")
        + "\n"
    )
    bad_bytes = tmp_path / "bytes.jsonl"
    bad_bytes.write_bytes(
        b'{"name": "ok_tool", "parameters": {}}\n{"name": "bad_\xff_bytes", "parameters": {}}\n'
    )
    art = collect(
        CollectConfig(sources=[f"json:{FIX}/bad_tools.jsonl", f"json:{huge}", f"json:{bad_bytes}"]),
        tmp_path / "pool",
    )
    rejected = rows(tmp_path / "pool", "rejected")
    reasons = {(r["position"].rsplit("/", 1)[-1], r["reason"].split(" (")[0]) for r in rejected}
    by_pos = {pos: reason for pos, reason in reasons}
    assert by_pos["bad_tools.jsonl:2"].startswith("unparseable JSON line")
    assert by_pos["bad_tools.jsonl:3"] == "tool has no name"
    assert by_pos["bad_tools.jsonl:4"].startswith("parameters is a list")
    assert "must describe an object" in by_pos["bad_tools.jsonl:5"]
    assert "broken $ref '#/$defs/User'" in by_pos["bad_tools.jsonl:6"]
    assert by_pos["bad_tools.jsonl:7"].startswith("duplicate name 'good_tool'")
    assert "U+D800" in by_pos["bad_tools.jsonl:8"] and "U+0007" in by_pos["bad_tools.jsonl:9"]
    assert "expected a string" in by_pos["bad_tools.jsonl:11"]
    assert "1,048,576 characters" in by_pos["huge.jsonl:1"]
    assert "U+DCFF" in by_pos["bytes.jsonl:2"]  # invalid UTF-8 bytes are named, not crashed on
    assert all(r["source"] and r["raw"] for r in rejected)
    assert max(len(r["raw"]) for r in rejected) < 2_100  # the 1 MB record is kept truncated
    pool = {r["name"] for r in rows(tmp_path / "pool", "api_pool")}
    assert {"good_tool", "with_defs", "ok_tool", "latin1_e"} <= pool
    totals = art.manifest["stats"]["totals"]
    assert totals["read"] == totals["accepted"] + totals["rejected"] + totals["duplicates"]
    assert totals == {"read": 16, "accepted": 4, "rejected": 11, "duplicates": 1}
    for s in art.manifest["stats"]["sources"]:
        assert s["read"] == s["accepted"] + s["rejected"] + s["duplicates"]


def test_unreadable_source_is_reported_and_others_still_collected(tmp_path):
    art = collect(
        CollectConfig(sources=[f"json:{tmp_path}/missing.json", f"json:{FIX}/openai_tools.json"]),
        tmp_path / "pool",
    )
    failed = art.manifest["stats"]["failed_sources"]
    assert len(failed) == 1 and "missing.json" in failed[0]["source"] and "no file" in failed[0]["error"]
    assert art.manifest["counts"]["api_pool"] == 2
    assert art.manifest["stats"]["complete"] is False


def test_every_write_is_a_new_version_and_old_versions_stay_readable(tmp_path):
    out = tmp_path / "pool"
    v1 = collect(CollectConfig(sources=[f"json:{FIX}/openai_tools.json"]), out)
    v2 = collect(
        CollectConfig(sources=[f"json:{FIX}/openai_tools.json", f"json:{FIX}/xlam_style.jsonl"]), out
    )
    assert (v1.version, v2.version) == ("v1", "v2")
    assert len(rows(out, "api_pool")) == 4  # the folder itself loads the latest version
    old = open_artifact(f"{out}@v1")
    assert old.manifest["counts"]["api_pool"] == 2 and old.load("api_pool").num_rows == 2
    assert open_artifact(out).pinned == f"{out}@v2"
    card = (out / "README.md").read_text()
    assert (
        f"versions/v2/api_pool/train-{v2.manifest['data_id']}-*.parquet" in card
        and "load_dataset(" in card
        and "read / write" in card
    )


def test_interrupted_run_resumes_without_redoing_finished_sources(tmp_path, monkeypatch):
    sources = [f"json:{FIX}/openai_tools.json", f"json:{FIX}/xlam_style.jsonl", f"json:{FIX}/bfcl_style.json"]
    config = CollectConfig(sources=sources)
    real = collect_module._collect_source
    calls = []

    def interrupt_on_third(index, spec, cfg, part):
        calls.append(spec)
        if index == 2 and len(calls) == 3:
            raise KeyboardInterrupt
        return real(index, spec, cfg, part)

    monkeypatch.setattr(collect_module, "_collect_source", interrupt_on_third)
    with pytest.raises(KeyboardInterrupt):
        collect(config, tmp_path / "pool")
    with pytest.raises(FileNotFoundError, match="staging"):
        open_artifact(tmp_path / "pool")  # nothing half-written is visible
    art = collect(config, tmp_path / "pool")
    assert calls == [sources[0], sources[1], sources[2], sources[2]]  # only the unfinished source re-ran
    fresh = collect(config, tmp_path / "fresh")
    assert art.manifest["counts"] == fresh.manifest["counts"]
    assert sorted(rows(tmp_path / "pool", "api_pool"), key=lambda r: r["id"]) == sorted(
        rows(tmp_path / "fresh", "api_pool"), key=lambda r: r["id"]
    )


def test_config_errors_are_loud():
    with pytest.raises(ValueError, match="at least one source"):
        CollectConfig(sources=[])
    with pytest.raises(ValueError, match="known kind"):
        CollectConfig(sources=["ftp:somewhere"])
    with pytest.raises(ValueError, match="listed twice"):
        CollectConfig(sources=["json:a.json", "json:a.json"])


def test_two_artifacts_with_the_same_folder_name_load_their_own_rows(tmp_path):
    # datasets caches local folders by name and data_files pattern; envscale's shard names keep them apart.
    collect(CollectConfig(sources=[f"json:{FIX}/openai_tools.json"]), tmp_path / "a" / "pool")
    collect(CollectConfig(sources=[f"json:{FIX}/xlam_style.jsonl"]), tmp_path / "b" / "pool")
    assert {r["name"] for r in rows(tmp_path / "a" / "pool", "api_pool")} == {"get_weather", "book_flight"}
    assert {r["name"] for r in rows(tmp_path / "b" / "pool", "api_pool")} == {
        "search_restaurants",
        "cancel_order",
    }


def test_a_normaliser_bug_costs_one_record_not_the_run(tmp_path, monkeypatch):
    real = collect_module.normalize_tool

    def buggy(raw, **kwargs):
        if raw.name == "book_flight":
            raise TypeError("simulated bug")
        return real(raw, **kwargs)

    monkeypatch.setattr(collect_module, "normalize_tool", buggy)
    art = collect(CollectConfig(sources=[f"json:{FIX}/openai_tools.json"]), tmp_path / "pool")
    rejected = art.load("rejected")
    assert rejected["name"] == ["book_flight"] and "normaliser error" in rejected[0]["reason"]
    assert art.load("api_pool")["name"] == ["get_weather"]
    assert art.manifest["stats"]["totals"] == {"read": 3, "accepted": 1, "rejected": 1, "duplicates": 1}


def test_tools_of_interleaved_servers_keep_their_names_apart_and_readable(tmp_path):
    def tool(server, name, prop):
        return {
            "server": server,
            "name": name,
            "description": f"{name} on {server}",
            "inputSchema": {"type": "object", "properties": {prop: {"type": "string"}}},
        }

    records = [
        tool("todoist", "list_tasks", "project_id"),
        tool("asana", "list_tasks", "workspace_gid"),
        tool("todoist", "list_tasks", "filter"),  # a true conflict within todoist, after asana came between
        tool("todoist", "update_task", "task_id"),
    ]
    (tmp_path / "corpus.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    art = collect(CollectConfig(sources=[f"json:{tmp_path / 'corpus.jsonl'}"]), tmp_path / "pool")
    pool = {r["name"]: r for r in art.load("api_pool")}
    assert set(pool) == {"list_tasks", "asana_list_tasks", "update_task"}
    assert pool["list_tasks"]["group"] == "todoist" and pool["asana_list_tasks"]["group"] == "asana"
    assert "project_id" in pool["list_tasks"]["parameters"]["properties"]
    (rejected,) = art.load("rejected")
    assert rejected["position"].endswith(":3") and "duplicate name 'list_tasks'" in rejected["reason"]
    assert art.manifest["stats"]["totals"] == {"read": 4, "accepted": 3, "rejected": 1, "duplicates": 0}


def test_a_rejected_record_too_deep_to_serialise_is_kept_with_its_first_levels(tmp_path):
    deep = "x"
    for _ in range(5000):
        deep = [deep]
    item = collect_module.RawError(position="f.json:1", reason="nested too deeply", raw=deep)
    text = collect_module._safe(item.raw, 2000)
    assert text.startswith("[[[") and "nested too deeply" in text
