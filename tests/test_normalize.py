"""Normalisation of tool schemas met in the wild, checked against the JSON Schema meta-schema."""

import jsonschema
import pytest

from envscale.sources.normalize import Rejected, infer_kind, normalize_tool, sanitize_name
from envscale.sources.base import RawTool


def norm(parameters, name="t", description="A tool.", **kw):
    return normalize_tool(
        RawTool(name=name, description=description, parameters=parameters, position="test", **kw)
    )


def valid(schema):
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


def test_bfcl_types_become_json_schema():
    tool = norm(
        {
            "type": "dict",
            "properties": {
                "x": {"type": "float"},
                "y": {"type": "any"},
                "z": {"type": "ArrayList", "items": {"type": "String"}},
                "m": {"type": "HashMap"},
                "n": {"type": "long"},
            },
            "required": ["x", "ghost"],
        }
    )
    p = valid(tool.parameters)
    assert p["type"] == "object"
    assert p["properties"]["x"] == {"type": "number"}
    assert "type" not in p["properties"]["y"]  # any -> unconstrained
    assert p["properties"]["z"] == {"type": "array", "items": {"type": "string"}}
    assert p["properties"]["m"]["type"] == "object" and p["properties"]["n"]["type"] == "integer"
    assert p["required"] == ["x"]
    assert any("required pruned" in n for n in tool.normalization)


def test_property_map_without_root_xlam_style():
    tool = norm(
        {
            "city": {"type": "str", "description": "City"},
            "limit": {"type": "int, optional"},
            "cuisine": {"type": "str", "default": "pizza"},
        }
    )
    p = valid(tool.parameters)
    assert p["type"] == "object" and set(p["properties"]) == {"city", "limit", "cuisine"}
    assert p["required"] == ["city"]
    assert p["properties"]["limit"]["type"] == "integer"


def test_local_refs_inlined_and_recursion_cut():
    tool = norm(
        {
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}},
        }
    )
    p = valid(tool.parameters)
    assert "$defs" not in p and "$ref" not in str(p)
    assert p["properties"]["node"]["properties"]["child"]["type"] == "object"


def test_nullable_numeric_strings_and_bare_type_properties():
    tool = norm(
        {
            "type": "object",
            "properties": {
                "a": {"type": "string", "nullable": True},
                "b": {"type": "integer", "minimum": "0", "maxLength": -1},
                "c": "string",
                "d": None,
                "e": {"type": "string", "required": True},
            },
        }
    )
    p = valid(tool.parameters)
    assert p["properties"]["a"]["type"] == ["string", "null"]
    assert p["properties"]["b"]["minimum"] == 0 and "maxLength" not in p["properties"]["b"]
    assert p["properties"]["c"] == {"type": "string"} and p["properties"]["d"] == {}
    assert p["required"] == ["e"]


def test_missing_parameters_become_empty_object():
    p = valid(norm(None).parameters)
    assert p == {"type": "object", "properties": {}}


@pytest.mark.parametrize(
    ("parameters", "reason"),
    [
        ([{"name": "x"}], "parameters is a list"),
        ({"type": "array", "items": {}}, "must describe an object"),
        ({"type": "object", "properties": {"u": {"$ref": "#/$defs/Missing"}}}, "broken $ref"),
        ('{"type": "object", "prop', "not JSON"),
    ],
)
def test_unrepairable_parameters_are_rejected_with_reason(parameters, reason):
    with pytest.raises(Rejected, match=reason.replace("$", r"\$")):
        norm(parameters)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        (None, "no name"),
        ("", "no name"),
        (42, "expected a string"),
        ("bad\ud800", "U\\+D800"),
        ("bell\x07", "U\\+0007"),
    ],
)
def test_bad_names_are_rejected(name, reason):
    with pytest.raises(Rejected, match=reason):
        norm({}, name=name)


def test_huge_description_rejected_and_invisible_chars_cleaned():
    with pytest.raises(Rejected, match="1,048,576 characters"):
        norm({}, description="x" * 1_048_576)
    tool = norm({}, description="Get\u200b a thing.")
    assert tool.description == "Get a thing." and any("zero-width" in n for n in tool.normalization)


def test_names_follow_openai_rule_and_ids_are_content_hashes():
    assert sanitize_name("ChaDri.change drink") == "ChaDri_change_drink"
    a, b = norm({}, name="weather.get"), norm({}, name="weather.get")
    assert a.name == "weather_get" and a.original_name == "weather.get"
    assert a.id == b.id != norm({}, name="weather.get", description="Other.").id
    assert norm({}, name="天气").name.startswith("tool_")


@pytest.mark.parametrize(
    ("name", "description", "hints", "kind"),
    [
        ("get_user", "", [], "read"),
        ("create_order", "", [], "write"),
        ("GeometryPresentation.createPresentation", "", [], "write"),
        ("weather", "Retrieves the weather.", [], "read"),
        ("thing", "Deletes the thing.", [], "write"),
        ("search_orders", "", ["http:POST"], "read"),
        ("orders", "", ["http:POST"], "write"),
        ("orders", "", ["http:GET"], "read"),
        ("delete_branch", "", ["mcp:read_only_hint=true"], "read"),
        ("git_status", "", ["mcp:destructive_hint=true"], "write"),
    ],
)
def test_kind_inference_records_its_evidence(name, description, hints, kind):
    got, evidence = infer_kind(name, description, hints)
    assert got == kind and evidence


def test_junk_inside_keywords_is_repaired_not_crashed_on():
    tool = norm(
        {
            "type": "object",
            "properties": {
                "a": {"type": "number", "minimum": float("nan"), "maximum": "inf"},
                "b": {"type": "object", "required": [1, ["x"], "y"]},
            },
        }
    )
    p = valid(tool.parameters)
    assert "minimum" not in p["properties"]["a"] and "maximum" not in p["properties"]["a"]
    assert "required" not in p["properties"]["b"]  # "y" named no property; 1 and ["x"] are not names


def test_nan_in_a_default_is_rejected_not_turned_into_null():
    with pytest.raises(Rejected, match="NaN or Infinity"):
        norm({"type": "object", "properties": {"x": {"type": "number", "default": float("nan")}}})
