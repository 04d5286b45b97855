"""The `envscale` command line: recipes, overrides, loud config errors, `run` skipping, exit codes."""

import shutil
from pathlib import Path

import pytest
import yaml

from envscale.artifacts import local_versions, open_artifact
from envscale.cli import main

FIX = Path("tests/fixtures/json").resolve()


def write_recipe(folder: Path, data: dict) -> Path:
    path = folder / "recipe.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_collect_from_a_recipe_with_flag_overrides(tmp_path, capsys):
    shutil.copy(FIX / "openai_tools.json", tmp_path / "tools.json")
    recipe = write_recipe(tmp_path, {"collect": {"sources": ["json:tools.json"], "mcp_timeout": 5}})
    out = tmp_path / "out"
    assert (
        main(["collect", "--config", str(recipe), "--output", str(out), "--max-description-chars", "10"]) == 0
    )
    art = open_artifact(out)
    assert art.manifest["config"]["max_description_chars"] == 10  # the flag won over the default
    assert art.manifest["config"]["mcp_timeout"] == 5.0  # the recipe's value was kept
    assert art.manifest["counts"]["rejected"] == 3  # every description is longer than 10 characters
    printed = capsys.readouterr().out
    assert str(out.resolve()) in printed and "read 3 = accepted 0 + rejected 3 + duplicates 0" in printed
    assert (
        yaml.safe_load((out / "versions" / "v1" / "config.yaml").read_text())["max_description_chars"] == 10
    )


def test_unknown_keys_and_bad_values_fail_loudly(tmp_path, capsys):
    recipe = write_recipe(tmp_path, {"collect": {"sources": ["json:x.json"], "mcp_timout": 5}})
    assert main(["collect", "--config", str(recipe)]) == 2
    assert "unknown key 'mcp_timout' for CollectConfig" in capsys.readouterr().err
    recipe = write_recipe(
        tmp_path, {"colect": {"sources": ["json:x.json"]}, "collect": {"sources": ["json:x"]}}
    )
    assert main(["run", str(recipe)]) == 2
    assert "unknown top-level keys ['colect']" in capsys.readouterr().err
    assert main(["collect", "--sources", f"json:{FIX}/openai_tools.json", "--mcp-timeout", "soon"]) == 2
    assert "mcp_timeout must be float" in capsys.readouterr().err


def test_run_skips_complete_stages_and_reruns_when_the_config_changes(tmp_path, capsys):
    shutil.copy(FIX / "openai_tools.json", tmp_path / "tools.json")
    recipe = write_recipe(
        tmp_path, {"output_dir": str(tmp_path / "run"), "collect": {"sources": ["json:tools.json"]}}
    )
    assert main(["run", str(recipe)]) == 0
    assert main(["run", str(recipe)]) == 0
    assert "[collect] skipped" in capsys.readouterr().out
    assert local_versions(tmp_path / "run" / "api_pool") == ["v1"]
    assert main(["run", str(recipe), "--force"]) == 0
    write_recipe(
        tmp_path,
        {
            "output_dir": str(tmp_path / "run"),
            "collect": {"sources": ["json:tools.json"], "max_raw_chars": 10},
        },
    )
    assert main(["run", str(recipe)]) == 0
    assert local_versions(tmp_path / "run" / "api_pool") == ["v1", "v2", "v3"]


def test_failed_source_gives_a_failing_exit_status(tmp_path, capsys):
    code = main(
        [
            "collect",
            "--sources",
            f"json:{FIX}/openai_tools.json",
            f"json:{tmp_path}/nope.json",
            "--output",
            str(tmp_path / "out"),
        ]
    )
    assert code == 1
    assert "FAILED source json:" in capsys.readouterr().err
    assert open_artifact(tmp_path / "out").manifest["counts"]["api_pool"] == 2


def test_info_shows_versions_and_counts(tmp_path, capsys):
    main(["collect", "--sources", f"json:{FIX}/openai_tools.json", "--output", str(tmp_path / "out")])
    capsys.readouterr()
    assert main(["info", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "versions v1" in out and "api_pool=2" in out


# ----------------------------------------------------------------------------- issue 8: every edge a clear line


def test_run_with_a_relative_output_dir_stays_local_and_prints_a_load_line_per_dataset(
    tmp_path, monkeypatch, capsys
):
    shutil.copy(FIX / "openai_tools.json", tmp_path / "tools.json")
    recipe = write_recipe(tmp_path, {"collect": {"sources": ["json:tools.json"]}})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # a Hub lookup would fail loudly
    for output_dir in ("myrun", "./myrun"):
        assert main(["run", str(recipe), "--output-dir", output_dir]) == 0
        out = capsys.readouterr().out
        root = tmp_path / "myrun" / "api_pool"
        assert f"Datasets are in {tmp_path / 'myrun'}" in out
        assert f"datasets.load_dataset({str(root)!r}, 'api_pool', split='train')" in out  # also when skipped
    assert local_versions(tmp_path / "myrun" / "api_pool") == ["v1"]


@pytest.mark.parametrize(
    ("recipe", "flags", "message"),
    [
        ("DIR", [], "is a folder; give the recipe's YAML file"),
        ({"output_dir": 5, "collect": {"sources": ["json:x.json"]}}, [], "output_dir must be a folder path"),
        (
            {"collect": {"sources": ["json:x.json"], "max_description_chars": float("inf")}},
            [],
            "must be an integer",
        ),
        (
            {"collect": {"sources": ["json:x.json"], "mcp_timeout": float("inf")}},
            [],
            "must be a finite number",
        ),
        ({"collect": {"sources": ["json:x.json"], "mcp_timeout": -1}}, [], "mcp_timeout must be > 0"),
        (
            {"collect": {"sources": ["json:x.json"]}, "graph": {"semantic_top_k": -3}},
            [],
            "must be >= 0, got -3",
        ),
        ({"collect": {"sources": ["json:x.json"]}, "graph": {"seed": 1.5}}, [], "seed must be an integer"),
        (
            {"collect": {"sources": ["json:x.json"]}, "graph": {"semantic_weight": -1}},
            [],
            "semantic_weight must be >= 0",
        ),
        (
            {"collect": {"sources": ["json:x.json"]}, "materialize": {"rows_per_table": 100000}},
            [],
            "rows_per_table must be <= 10000",
        ),
    ],
)
def test_bad_recipes_give_one_line_and_exit_2(tmp_path, capsys, recipe, flags, message):
    if recipe == "DIR":
        path = tmp_path / "recipe_dir"
        path.mkdir()
    else:
        path = write_recipe(tmp_path, recipe)
    assert main(["run", str(path), *flags]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_an_incompatible_schema_version_is_one_line_with_the_way_out(tmp_path, capsys):
    out = tmp_path / "pool"
    assert main(["collect", "--sources", f"json:{FIX}/openai_tools.json", "--output", str(out)]) == 0
    path = out / "versions" / "v1" / "envscale.json"
    path.write_text(path.read_text().replace('"schema_version": "1.0"', '"schema_version": "9.0"'))
    capsys.readouterr()
    assert main(["graph", "--input", str(out), "--output", str(tmp_path / "graph")]) == 2
    err = capsys.readouterr().err
    assert "holds api_pool schema 9.0" in err and "Re-run the stage" in err and "Traceback" not in err


def test_a_bug_shows_its_traceback_and_asks_for_a_report(tmp_path, capsys, monkeypatch):
    import envscale.stages.collect as collect_module

    def bug(*args, **kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr(type(collect_module.STAGE), "run", bug)
    assert (
        main(["collect", "--sources", f"json:{FIX}/openai_tools.json", "--output", str(tmp_path / "o")]) == 1
    )
    err = capsys.readouterr().err
    assert "Traceback" in err and "Please report it" in err


def test_a_recipe_alias_bomb_is_refused_as_one_line(tmp_path, capsys):
    levels = "".join(
        f"{n}: &{n} [{', '.join([f'*{p}'] * 10)}]\n" for p, n in zip("abcdefgh", "bcdefghi", strict=True)
    )
    path = tmp_path / "bomb.yaml"
    path.write_text(
        "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + levels + "collect: {sources: ['json:x.json']}\n"
    )
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert "alias bomb" in err and str(path) in err and "Traceback" not in err
