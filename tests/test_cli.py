"""The `envscale` command line: recipes, overrides, loud config errors, `run` skipping, exit codes."""

import shutil
from pathlib import Path

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
