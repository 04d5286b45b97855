"""Artifacts you can trust: one writer at a time, data checked on every read, inputs checked by content,
inputs found from any working directory.

Each test is named after what a user would see go wrong without it (the hostile-user review of issue 8,
findings 1-5); all of them failed on the code before that issue.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from datasets import load_dataset

import envscale.sources.collect as collect_module
from envscale.artifacts import (
    MANIFEST,
    ArtifactError,
    ArtifactLockedError,
    ArtifactNotFoundError,
    ArtifactWriter,
    local_versions,
    open_artifact,
)
from envscale.cli import main
from envscale.schemas import API_POOL, TASKS
from envscale.sources.collect import CollectConfig, collect

FIX = Path("tests/fixtures/json").resolve()


def tools_file(path: Path, names: list[str], description: str = "Does {name}.") -> Path:
    """A JSON Lines file of simple tools."""
    lines = [
        json.dumps(
            {
                "name": name,
                "description": description.format(name=name),
                "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
            }
        )
        for name in names
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


# ----------------------------------------------------------------------------- 1. one writer at a time


def test_a_second_writer_of_the_same_artifact_fails_at_once_with_the_way_out(tmp_path):
    first, second = (ArtifactWriter(tmp_path / "pool", API_POOL, "fp") for _ in range(2))
    with first, pytest.raises(ArtifactLockedError, match="another envscale run is writing .*--output"):
        second.__enter__()
    with ArtifactWriter(tmp_path / "pool", API_POOL, "fp"):  # released: the next run may write
        pass


def test_a_version_whose_files_do_not_hold_its_counts_is_never_committed(tmp_path):
    with ArtifactWriter(tmp_path / "pool", API_POOL, "fp") as writer:
        shard = writer.shard_writer("api_pool")
        shard.close()  # nothing written
        with pytest.raises(ArtifactError, match="should hold 4000 rows .* has no data files"):
            writer.commit({"api_pool": 4000, "rejected": 0, "duplicates": 0})
    assert local_versions(tmp_path / "pool") == []


@pytest.mark.slow
def test_concurrent_collects_into_one_output_each_succeed_whole_or_fail_clearly(tmp_path):
    source = tools_file(tmp_path / "tools.jsonl", [f"tool_{i}" for i in range(4000)])
    out = tmp_path / "pool"
    cmd = [
        sys.executable,
        "-m",
        "envscale.cli",
        "collect",
        "--sources",
        f"json:{source}",
        "--output",
        str(out),
    ]
    procs = [
        subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)
    ]
    results = [(p.wait(timeout=240), p.stdout.read(), p.stderr.read()) for p in procs]
    for code, _, err in results:
        assert code in (0, 2), err
        if code == 2:
            assert "another envscale run is writing" in err and "Traceback" not in err
    assert any(code == 0 for code, _, _ in results)
    versions = local_versions(out)
    assert len(versions) == sum(code == 0 for code, _, _ in results)
    for version in versions:  # every committed version holds all its data
        art = open_artifact(f"{out}@{version}")
        assert art.load("api_pool").num_rows == art.manifest["counts"]["api_pool"] == 4000


# ----------------------------------------------------------------------------- 2. cards from features


@pytest.mark.parametrize("first_description", ["", "[Deprecated] use v2", '{"not": "json"} but text'])
def test_a_first_tool_whose_description_looks_like_json_or_is_empty_is_collected(tmp_path, first_description):
    source = tmp_path / "tools.jsonl"
    tools_file(source, ["old_tool", "new_tool"])
    lines = source.read_text().splitlines()
    first = json.loads(lines[0])
    first["description"] = first_description
    source.write_text("\n".join([json.dumps(first), lines[1]]) + "\n")
    art = collect(CollectConfig(sources=[f"json:{source}"]), tmp_path / "pool")
    assert art.load("api_pool")["description"] == [first_description, "Does new_tool."]
    assert '"name": "old_tool"' in (tmp_path / "pool" / "README.md").read_text()  # the sample row


def test_a_card_that_fails_to_render_loses_no_finished_work(tmp_path, monkeypatch):
    import envscale.artifacts as artifacts_module

    sources = [f"json:{FIX}/openai_tools.json", f"json:{FIX}/xlam_style.jsonl"]
    real_render, real_collect = artifacts_module.render_card, collect_module._collect_source
    calls = []
    monkeypatch.setattr(collect_module, "_collect_source", lambda *a: calls.append(a[1]) or real_collect(*a))

    def broken(*args, **kwargs):
        raise RuntimeError("card template bug")

    monkeypatch.setattr(artifacts_module, "render_card", broken)
    with pytest.raises(RuntimeError, match="card template bug"):
        collect(CollectConfig(sources=sources), tmp_path / "pool")
    monkeypatch.setattr(artifacts_module, "render_card", real_render)
    art = collect(CollectConfig(sources=sources), tmp_path / "pool")
    assert calls == sources  # the second run reused both finished sources
    assert art.manifest["counts"]["api_pool"] == 4


# ----------------------------------------------------------------------------- 3. inputs by content


def test_an_input_edited_after_an_interruption_is_read_again(tmp_path, monkeypatch):
    first, second = tools_file(tmp_path / "a.jsonl", ["a1", "a2"]), tools_file(tmp_path / "b.jsonl", ["b1"])
    config = CollectConfig(sources=[f"json:{first}", f"json:{second}"])
    real = collect_module._collect_source

    def interrupt_on_second(index, *args):
        if index == 1:
            raise KeyboardInterrupt
        return real(index, *args)

    monkeypatch.setattr(collect_module, "_collect_source", interrupt_on_second)
    with pytest.raises(KeyboardInterrupt):
        collect(config, tmp_path / "pool")
    monkeypatch.setattr(collect_module, "_collect_source", real)
    tools_file(first, ["a1", "a2", "a3_added_after_ctrl_c"])
    art = collect(config, tmp_path / "pool")
    assert sorted(art.load("api_pool")["name"]) == ["a1", "a2", "a3_added_after_ctrl_c", "b1"]
    assert {e["path"] for e in art.manifest["inputs"]} == {str(first), str(second)}


def test_run_re_runs_a_stage_whose_input_file_changed_and_skips_one_only_touched(tmp_path, capsys):
    source = tools_file(tmp_path / "tools.jsonl", ["one", "two"])
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(f"output_dir: {tmp_path / 'run'}\ncollect:\n  sources: ['json:{source}']\n")
    assert main(["run", str(recipe)]) == 0
    os.utime(source)  # touched, same content
    assert main(["run", str(recipe)]) == 0
    assert "[collect] skipped" in capsys.readouterr().out
    tools_file(source, ["one", "two", "three"])
    assert main(["run", str(recipe)]) == 0
    assert "[collect] skipped" not in capsys.readouterr().out
    assert open_artifact(tmp_path / "run" / "api_pool").manifest["counts"]["api_pool"] == 3


def test_a_copied_artifact_edited_on_disk_is_never_served_from_a_stale_cache(tmp_path):
    source = tools_file(tmp_path / "tools.jsonl", [f"t{i}" for i in range(41)])
    collect(CollectConfig(sources=[f"json:{source}"]), tmp_path / "a" / "pool")
    assert open_artifact(tmp_path / "a" / "pool").load("api_pool").num_rows == 41  # fills the datasets cache
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    copy = open_artifact(tmp_path / "b" / "pool")
    (shard,) = copy.data_files("api_pool")
    pq.write_table(pq.read_table(shard).slice(0, 5), shard)  # edited down to 5 rows
    with pytest.raises(ArtifactError, match=r"damaged: config 'api_pool' should hold 41 rows .* has 5 rows"):
        open_artifact(tmp_path / "b" / "pool")
    for path in (
        copy.data_dir / MANIFEST,
        tmp_path / "b" / "pool" / MANIFEST,
    ):  # someone fixes the counts too, and drops the digests of the files
        manifest = json.loads(path.read_text())
        manifest["counts"]["api_pool"] = 5
        manifest.pop("files")
        path.write_text(json.dumps(manifest))
    assert open_artifact(tmp_path / "b" / "pool").load("api_pool").num_rows == 5  # the files, not the cache
    assert open_artifact(tmp_path / "a" / "pool").load("api_pool").num_rows == 41


def test_a_data_file_edited_in_place_with_the_same_row_count_is_caught_by_its_digest(tmp_path):
    source = tools_file(tmp_path / "tools.jsonl", [f"t{i}" for i in range(5)])
    art = collect(CollectConfig(sources=[f"json:{source}"]), tmp_path / "pool")
    (shard,) = art.data_files("api_pool")
    shutil.copytree(tmp_path / "pool", tmp_path / "copy")  # a copy (new mtimes, same bytes) still opens
    assert open_artifact(tmp_path / "copy").load("api_pool").num_rows == 5
    table = pq.read_table(shard)
    names = table.column("name").to_pylist()
    table = table.set_column(table.schema.get_field_index("name"), "name", [[n + "_x" for n in names]])
    pq.write_table(table, shard)  # the same 5 rows, other names
    with pytest.raises(
        ArtifactError, match=r"damaged: a data file was edited .*api_pool/train-.*parquet: changed"
    ):
        open_artifact(tmp_path / "pool")
    assert main(["info", str(tmp_path / "pool")]) == 2


def flip_a_description_letter(shard: Path) -> None:
    """Edit one spec in place as a hand would, and hide it: one letter of a tool or column description
    flipped in the compressed bytes (a literal run of the snappy page), so the file keeps its size and
    its row count, then its mtime put back. Checked: the file still reads, and only `spec` changed."""
    before, stat, raw = pq.read_table(shard), shard.stat(), shard.read_bytes()
    for found in re.finditer(rb'"description": "([A-Za-z])', raw):
        at = found.start(1)
        edited = raw[:at] + raw[at : at + 1].swapcase() + raw[at + 1 :]
        shard.write_bytes(edited)
        try:
            after = pq.read_table(shard)
        except Exception:  # noqa: BLE001 - the byte was not in a literal run; try the next one
            continue
        changed = [name for name in before.column_names if before.column(name) != after.column(name)]
        if changed == ["spec"]:
            os.utime(shard, ns=(stat.st_atime_ns, stat.st_mtime_ns))
            assert shard.stat().st_size == stat.st_size and shard.stat().st_mtime_ns == stat.st_mtime_ns
            return
    raise AssertionError(f"found no description letter to flip in {shard}")


def test_an_environment_spec_edited_in_place_is_refused_by_the_stages_that_read_it(
    fixture_environments, tmp_path, capsys
):
    """Same rows, same file size, mtime put back: `tasks` and `rollout` refuse the edited environments
    with one line naming the file (its sha256 no longer matches), instead of serving a spec nobody made."""
    envs = tmp_path / "environments"
    shutil.copytree(fixture_environments.location, envs)
    art = open_artifact(envs)
    tasks = tmp_path / "tasks"
    assert main(["tasks", "--input", str(envs), "--output", str(tasks), "--tasks-per-env", "2"]) == 0
    (shard,) = art.data_files("environments")
    flip_a_description_letter(shard)
    capsys.readouterr()
    for argv in (
        ["tasks", "--input", str(envs), "--output", str(tmp_path / "tasks2")],
        ["rollout", "--input", str(tasks), "--output", str(tmp_path / "trajectories")],
    ):
        assert main(argv) == 2, argv
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in lines[0], lines
        assert f"a data file was edited after it was written (environments/{shard.name}: changed " in lines[0]
    assert not (tmp_path / "tasks2").exists() and not (tmp_path / "trajectories").exists()


def test_stage_runs_show_their_own_bar_only_and_no_warning_of_ours(fixture_environments, tmp_path):
    """A newcomer's view of `tasks`, `rollout` and `filter`, each as a process, with the warnings a newcomer
    would see turned into errors (FutureWarning, UserWarning, and DeprecationWarning from envscale's own
    code), each reading a version that is not yet in the `datasets` cache: one progress bar (the stage's),
    no `datasets` "Generating train split" bar, no warning line."""
    envs = tmp_path / "environments"
    shutil.copytree(fixture_environments.location, envs)  # a new path: `datasets` generates its cache again
    warnings_as_errors = ["-W", "error::FutureWarning", "-W", "error::UserWarning"]
    warnings_as_errors += ["-W", r"error::DeprecationWarning:envscale\..*"]
    for stage, source, output, *flags in (
        ("tasks", envs, "tasks", "--tasks-per-env", "2"),
        ("rollout", "tasks", "trajectories", "--max-tasks", "4"),
        ("filter", "trajectories", "filtered"),
    ):
        done = subprocess.run(
            [
                sys.executable,
                *warnings_as_errors,
                "-m",
                "envscale.cli",
                stage,
                "--input",
                str(tmp_path / source),
            ]
            + ["--output", str(tmp_path / output), *flags],
            capture_output=True,
            text=True,
            env={k: v for k, v in os.environ.items() if not k.endswith("_PROGRESS_BARS")}
            | {"PYTHONPATH": os.getcwd()},
        )
        assert done.returncode == 0, (stage, done.stderr[-3000:])
        assert "Generating train split" not in done.stderr, (stage, done.stderr[-2000:])
        assert f"{stage}:" in done.stderr  # the stage's own bar
        assert "Warning" not in done.stderr, (stage, done.stderr[-2000:])


def test_a_half_truncated_parquet_file_is_a_clear_error(tmp_path):
    art = collect(CollectConfig(sources=[f"json:{FIX}/openai_tools.json"]), tmp_path / "pool")
    (shard,) = art.data_files("api_pool")
    shard.write_bytes(shard.read_bytes()[: shard.stat().st_size // 2])
    with pytest.raises(ArtifactError, match="is not a readable parquet file"):
        open_artifact(tmp_path / "pool")
    assert main(["info", str(tmp_path / "pool")]) == 2


def test_a_kill_between_rename_and_card_update_is_repaired_on_the_next_open(tmp_path, capsys):
    source = tools_file(tmp_path / "tools.jsonl", ["one"])
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(f"output_dir: {tmp_path / 'run'}\ncollect:\n  sources: ['json:{source}']\n")
    root = tmp_path / "run" / "api_pool"
    assert main(["run", str(recipe)]) == 0
    stale = {name: (root / name).read_text() for name in ("README.md", MANIFEST)}
    tools_file(source, ["one", "two"])
    assert main(["run", str(recipe)]) == 0
    for name, text in stale.items():  # as if killed right after versions/v2 was renamed into place
        (root / name).write_text(text)
    assert load_dataset(str(root), "api_pool", split="train").num_rows == 1  # the stale card
    assert main(["run", str(recipe)]) == 0
    assert "[collect] skipped" in capsys.readouterr().out
    assert "versions/v2/" in (root / "README.md").read_text()
    assert load_dataset(str(root), "api_pool", split="train", download_mode="force_redownload").num_rows == 2


# ----------------------------------------------------------------------------- 5. counts checked on read


def test_info_on_a_version_whose_data_files_were_deleted_says_so(tmp_path, capsys):
    art = collect(CollectConfig(sources=[f"json:{FIX}/openai_tools.json"]), tmp_path / "pool")
    for shard in art.data_files("api_pool"):
        shard.unlink()
    assert main(["info", str(tmp_path / "pool")]) == 2
    err = capsys.readouterr().err
    assert "damaged: config 'api_pool' should hold 2 rows" in err and "no data files" in err


def test_a_manifest_counting_zero_rows_over_real_rows_is_refused(tmp_path):
    art = collect(CollectConfig(sources=[f"json:{FIX}/openai_tools.json"]), tmp_path / "pool")
    path = art.data_dir / MANIFEST
    manifest = json.loads(path.read_text())
    manifest["counts"]["api_pool"] = 0
    path.write_text(json.dumps(manifest))
    with pytest.raises(ArtifactError, match="should hold 0 rows .* has 2 rows"):
        open_artifact(tmp_path / "pool", expect_kind="api_pool")


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ("[1, 2]", "holds a list, not a manifest object"),
        (
            '{"kind": "api_pool", "schema_version": "1.0", "version": "v1", "data_id": "x"}',
            "no valid 'counts'",
        ),
        ('{"kind": "api_pool", "schema_version": "1.0",', r"is not valid JSON \(.*line 1"),
    ],
)
def test_a_malformed_manifest_is_named_with_its_file(tmp_path, capsys, manifest, message):
    art = collect(CollectConfig(sources=[f"json:{FIX}/openai_tools.json"]), tmp_path / "pool")
    (art.data_dir / MANIFEST).write_text(manifest)
    assert main(["info", str(tmp_path / "pool")]) == 2
    err = capsys.readouterr().err
    assert re.search(message, err), err
    assert "Traceback" not in err and str(tmp_path / "pool") in err


# ----------------------------------------------------------------------------- 4. inputs found from anywhere


def test_an_artifact_input_resolves_relative_to_the_artifact_and_by_data_id(tmp_path, monkeypatch):
    from envscale.artifacts import resolve_input
    from envscale.graph.build import GraphConfig, build_graph
    from envscale.materialize.build import MaterializeConfig, materialize

    cache = str(tmp_path / "emb")
    run = tmp_path / "here"
    run.mkdir()
    monkeypatch.chdir(run)  # the stages run with relative paths, as from a shell
    graph_fix = Path(__file__).parent / "fixtures" / "graph"
    pool = collect(CollectConfig(sources=[f"json:{graph_fix / 'shop.json'}"]), Path("out/api_pool"))
    graph = build_graph(pool, GraphConfig(embedding_cache=cache, min_domain_size=2), Path("out/graph"))
    # Elsewhere, a folder holding a DIFFERENT pool under the same relative name.
    other = tmp_path / "elsewhere"
    other.mkdir()
    monkeypatch.chdir(other)
    collect(CollectConfig(sources=[f"json:{graph_fix / 'music.json'}"]), Path("out/api_pool"))
    found = resolve_input(open_artifact(run / "out" / "graph"), "api_pool")
    assert found.data_id == pool.data_id and Path(found.location) == run / "out" / "api_pool"
    # materialize, run from here, reads the graph's own pool (exit 0 and "0 domains verified" before).
    envs = materialize(open_artifact(run / "out" / "graph"), MaterializeConfig(), Path("out/environments"))
    assert [e["data_id"] for e in envs.manifest["inputs"]] == [graph.data_id, pool.data_id]
    assert envs.manifest["stats"]["verified"] == graph.manifest["stats"]["domains"] >= 1
    # The whole run folder moved: found relative to the graph.
    shutil.move(run / "out", tmp_path / "moved")
    moved = resolve_input(open_artifact(tmp_path / "moved" / "graph"), "api_pool")
    assert moved.data_id == pool.data_id and Path(moved.location) == tmp_path / "moved" / "api_pool"
    # Replaced by another pool at the same path (same version name): refused, never used.
    shutil.rmtree(tmp_path / "moved" / "api_pool")
    collect(CollectConfig(sources=[f"json:{graph_fix / 'music.json'}"]), tmp_path / "moved" / "api_pool")
    with pytest.raises(ArtifactError, match=f"data id {pool.data_id}.* holds other data"):
        resolve_input(open_artifact(tmp_path / "moved" / "graph"), "api_pool")
    # Gone: a clear error.
    shutil.rmtree(tmp_path / "moved" / "api_pool")
    with pytest.raises(ArtifactError, match=f"data id {pool.data_id}.* is not where it was"):
        resolve_input(open_artifact(tmp_path / "moved" / "graph"), "api_pool")
    assert graph.manifest["inputs"][0]["relative"] == "../api_pool"


def test_a_bare_path_typo_is_a_missing_folder_not_a_hub_lookup(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["collect", "--sources", f"json:{FIX}/openai_tools.json", "--output", "myrun/api_pool"]) == 0
    capsys.readouterr()
    assert main(["graph", "--input", "myrun/api_pol", "--output", "myrun/graph"]) == 2
    err = capsys.readouterr().err
    assert f"no such folder: {tmp_path / 'myrun' / 'api_pol'}" in err and "Traceback" not in err


def test_a_relative_source_run_from_another_folder_is_another_input(tmp_path, monkeypatch):
    from envscale.artifacts import is_complete

    for folder, names in (("a", ["from_a"]), ("b", ["from_b"])):
        (tmp_path / folder).mkdir()
        tools_file(tmp_path / folder / "tools.jsonl", names)
    monkeypatch.chdir(tmp_path / "a")
    config = CollectConfig(sources=["json:tools.jsonl"])
    art = collect(config, tmp_path / "pool")
    assert is_complete(tmp_path / "pool", config.fingerprint()) == art
    monkeypatch.chdir(tmp_path / "b")  # the same words now name another file
    assert is_complete(tmp_path / "pool", CollectConfig(sources=["json:tools.jsonl"]).fingerprint()) is None
    assert collect(config, tmp_path / "pool").load("api_pool")["name"] == ["from_b"]


# ----------------------------------------------------------------------------- 6. several splits per config


def task_rows(split: str, n: int) -> list[dict]:
    return [
        {"task_id": f"{split}-{i}", "environment": "shop", "split": split, "kind": "read", "gold_calls": []}
        for i in range(n)
    ]


def two_splits(root: Path, train: int = 3, test: int = 2):
    """A `tasks` artifact whose `tasks` config has `train` and `test` rows."""
    with ArtifactWriter(root, TASKS, "fp") as writer:
        for split, n in (("train", train), ("test", test)):
            shard = writer.shard_writer("tasks", split)
            shard.write_many(task_rows(split, n))
            shard.close()
        rejected = writer.shard_writer("rejected")
        rejected.write({"environment": "shop", "reason": "cannot build: no writes"})
        rejected.close()
        return writer.commit({"tasks": {"train": train, "test": test}, "rejected": 1}, {})


def test_a_config_with_two_splits_commits_and_loads_each_split(tmp_path, capsys):
    art = two_splits(tmp_path / "tasks")
    assert art.manifest["counts"] == {"tasks": 5, "rejected": 1}  # totals per config, as before
    assert art.splits == {"tasks": {"train": 3, "test": 2}, "rejected": {"train": 1}}
    assert [p.name.split("-")[0] for p in art.data_files("tasks", "test")] == ["test"]
    test = load_dataset(str(tmp_path / "tasks"), "tasks", split="test")
    assert test["task_id"] == ["test-0", "test-1"] and test.features == TASKS.configs["tasks"]
    assert load_dataset(str(tmp_path / "tasks"), "tasks", split="train").num_rows == 3
    assert art.load("tasks", "test")["split"] == ["test", "test"] and art.load("tasks").num_rows == 3
    assert art.load("rejected").num_rows == 1
    with pytest.raises(ArtifactError, match="has no split 'validation'; it has train, test"):
        art.load("tasks", "validation")
    assert main(["info", str(tmp_path / "tasks")]) == 0
    assert "tasks by split: train=3, test=2" in capsys.readouterr().out


def test_an_empty_split_loads_empty_and_is_left_out_of_the_card(tmp_path):
    art = two_splits(tmp_path / "tasks", test=0)
    assert art.load("tasks", "test").num_rows == 0
    card = (tmp_path / "tasks" / "README.md").read_text()
    assert "split: train" in card and "split: test" not in card
    assert load_dataset(str(tmp_path / "tasks"), "tasks", split="train").num_rows == 3


def test_a_truncated_file_of_the_test_split_is_caught_on_open(tmp_path):
    art = two_splits(tmp_path / "tasks")
    (shard,) = art.data_files("tasks", "test")
    shard.write_bytes(shard.read_bytes()[: shard.stat().st_size // 2])
    with pytest.raises(ArtifactError, match="is not a readable parquet file"):
        open_artifact(tmp_path / "tasks")
    pq.write_table(
        pq.read_table(art.data_files("tasks", "train")[0]).slice(0, 1), shard
    )  # a readable file, 1 row
    with pytest.raises(ArtifactError, match="config 'tasks' split 'test' should hold 2 rows .* has 1 rows"):
        open_artifact(tmp_path / "tasks")


def test_split_counts_that_do_not_add_up_or_name_no_split_are_refused(tmp_path):
    art = two_splits(tmp_path / "tasks")
    path = art.data_dir / MANIFEST
    manifest = json.loads(path.read_text())
    manifest["splits"]["tasks"]["test"] = 7
    path.write_text(json.dumps(manifest))
    with pytest.raises(ArtifactError, match="splits of 'tasks' add up to 10 rows, but counts say 5"):
        open_artifact(tmp_path / "tasks@v1")
    with ArtifactWriter(tmp_path / "other", TASKS, "fp") as writer:
        with pytest.raises(ValueError, match="config 'tasks' has no split 'dev'"):
            writer.shard_writer("tasks", "dev")
        with pytest.raises(ValueError, match="config 'rejected' has no splits \\['test'\\]"):
            writer.commit({"tasks": 0, "rejected": {"test": 0}})


def test_rewriting_one_split_keeps_the_other_and_strays_of_an_earlier_attempt_are_not_committed(tmp_path):
    with ArtifactWriter(tmp_path / "tasks", TASKS, "fp") as writer:
        first = writer.shard_writer("tasks", "test")
        first.write_many(task_rows("test", 4))
        first.close()
        stray = writer.staging / "tasks" / "train-0badc0de-00000.parquet"  # an interrupted run's file
        stray.write_bytes(next((writer.staging / "tasks").glob("test-*.parquet")).read_bytes())
    with ArtifactWriter(tmp_path / "tasks", TASKS, "fp") as writer:  # the same fingerprint: same staging
        train = writer.shard_writer("tasks", "train")
        train.write_many(task_rows("train", 2))
        train.close()
        test = writer.shard_writer("tasks", "test")  # rewritten whole: the 4 rows of the first attempt go
        test.write_many(task_rows("test", 1))
        test.close()
        writer.shard_writer("rejected").close()
        art = writer.commit({"tasks": {"train": 2, "test": 1}, "rejected": 0})
    assert art.splits["tasks"] == {"train": 2, "test": 1}
    names = sorted(p.name.split("-")[1] for p in (art.data_dir / "tasks").iterdir())
    assert set(names) == {art.data_id}


def test_the_interrupted_run_hint_is_given_only_when_work_was_left(tmp_path):
    root = tmp_path / "pool"
    (root / ".staging" / "api_pool").mkdir(parents=True)  # an empty staging folder: nothing to resume
    with pytest.raises(ArtifactNotFoundError) as info:
        open_artifact(root)
    assert "no complete envscale artifact" in str(info.value) and ".staging" not in str(info.value)
    (root / ".staging" / "_parts").mkdir()
    (root / ".staging" / "_parts" / "done.jsonl").write_text("{}\n")
    with pytest.raises(ArtifactNotFoundError, match=r"left work in \.staging/"):
        open_artifact(root)


def test_the_load_line_is_printed_only_for_a_config_that_loads(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"name": "", "description": "a tool without a name"}\n')  # rejected: no rows kept
    assert main(["collect", "--sources", f"json:{empty}", "--output", str(tmp_path / "none")]) == 0
    out = capsys.readouterr().out
    assert (
        "load: datasets.load_dataset" not in out and "nothing to load: config 'api_pool' has no rows" in out
    )
    source = tools_file(tmp_path / "tools.jsonl", ["one"])
    assert main(["collect", "--sources", f"json:{source}", "--output", str(tmp_path / "one")]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "load: " in x)
    call = line.split("load: ", 1)[1]
    assert eval(call, {"datasets": __import__("datasets")}).num_rows == 1  # the printed call works as printed
