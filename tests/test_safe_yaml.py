"""`envscale.safe_yaml.load_yaml`: ordinary YAML loads as `yaml.safe_load` would; bombs and depth do not."""

import datetime

import pytest
import yaml

from envscale import safe_yaml
from envscale.safe_yaml import UnsafeYAMLError, YAMLBombError, YAMLDepthError, load_yaml


def laughs(levels, width):
    """A billion-laughs document: `width ** levels` strings."""
    lines = ["l0: &l0 [" + ", ".join(["lol"] * width) + "]"]
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def nested(levels):
    """A block mapping `levels` levels deep."""
    return "".join("  " * i + "a:\n" for i in range(levels)) + "  " * levels + "leaf\n"


def test_ordinary_yaml_with_anchors_and_merges_loads_like_safe_load():
    text = (
        "defaults: &defaults {retries: 3, timeout: 30}\n"
        "dev: {<<: *defaults, timeout: 5}\n"
        "shared: &shared [a, b]\n"
        "again: *shared\n"
        "released: 2024-05-01\n"
    )
    assert load_yaml(text, where="recipe.yaml") == yaml.safe_load(text)
    assert load_yaml(text)["released"] == datetime.date(2024, 5, 1)
    assert load_yaml(text, dates_as_strings=True)["released"] == "2024-05-01"  # as JSON would have it
    assert load_yaml("") is None and load_yaml("# only a comment\n") is None


def test_an_alias_bomb_is_refused_naming_the_file_and_the_bound():
    with pytest.raises(YAMLBombError) as caught:
        load_yaml(laughs(9, 9), where="specs/laughs.yaml")
    message = str(caught.value)
    assert message.startswith("specs/laughs.yaml: YAML aliases would add ")
    assert "(limit 1,000,000;" in message and "nodes in all); refused before loading" in message
    assert isinstance(caught.value, UnsafeYAMLError) and isinstance(caught.value, ValueError)


def test_the_bound_is_a_parameter_and_counts_only_what_aliases_add():
    text = laughs(3, 10)  # aliases add 10 * 11 * 10 + ... nodes: about 1,200
    with pytest.raises(YAMLBombError, match=r"limit 1,000;"):
        load_yaml(text, max_nodes=1_000)
    assert len(load_yaml(text, max_nodes=2_000)["l2"]) == 10
    assert len(load_yaml(text, max_nodes=None)["l2"]) == 10
    big = "\n".join(f"k{i}: [{i}, {i}, {i}]" for i in range(3_000))  # 12,000 nodes, no alias: never refused
    assert len(load_yaml(big, max_nodes=10)) == 3_000


def test_a_recursive_alias_is_refused():
    with pytest.raises(YAMLBombError, match=r"loop\.yaml: recursive YAML alias .* line 1, column 4"):
        load_yaml("a: &a {b: *a}\n", where="loop.yaml")


def test_depth_is_bounded_and_the_bound_is_a_parameter():
    with pytest.raises(YAMLDepthError, match=r"deep\.yaml: YAML nested 300 levels deep \(limit 200\)"):
        load_yaml(nested(300), where="deep.yaml")
    value = load_yaml(nested(300), max_depth=None)
    for _ in range(300):
        value = value["a"]
    assert value == "leaf"


@pytest.mark.skipif(not hasattr(yaml, "CSafeLoader"), reason="libyaml's own limit")
def test_deeper_than_the_parser_can_go_is_a_depth_error_not_a_syntax_error():
    with pytest.raises(YAMLDepthError, match=r"deep\.yaml: YAML nested too deeply to parse at line \d+"):
        load_yaml(nested(1_500), where="deep.yaml", max_depth=None)


def test_the_pure_python_parser_hitting_the_recursion_limit_is_a_depth_error(monkeypatch):
    monkeypatch.setattr(safe_yaml, "_SafeLoader", yaml.SafeLoader)  # PyYAML without libyaml
    assert load_yaml("a: [1, 2]") == {"a": [1, 2]}
    with pytest.raises(YAMLDepthError, match=r"deep\.yaml: YAML nested too deeply to parse \(Python"):
        load_yaml(nested(3_000), where="deep.yaml", max_depth=None)


def test_syntax_errors_stay_yaml_errors():
    with pytest.raises(yaml.YAMLError):
        load_yaml("a: [1, 2\n", where="bad.yaml")
    with pytest.raises(yaml.YAMLError, match="single document"):
        load_yaml("a: 1\n---\nb: 2\n")
