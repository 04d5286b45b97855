"""Normalisation of tool schemas met in the wild, checked against the JSON Schema meta-schema."""

import re

import jsonschema
import pytest

from envscale.sources.base import RawTool
from envscale.sources.normalize import Rejected, infer_kind, normalize_parameters, normalize_tool
from envscale.words.names import sanitize_name


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


def deep_list(levels):
    """`[[[...[1]...]]]`, `levels` lists deep, built without recursion."""
    value = 1
    for _ in range(levels):
        value = [value]
    return value


DEEP = 5_000  # far past Python's recursion limit


@pytest.mark.parametrize(
    ("where", "kwargs"),
    [
        (
            "parameters.properties.x.default",
            {"parameters": {"properties": {"x": {"default": deep_list(DEEP)}}}},
        ),
        ("parameters.properties.x.type", {"parameters": {"properties": {"x": {"type": deep_list(DEEP)}}}}),
        ("parameters.properties.x.enum", {"parameters": {"properties": {"x": {"enum": deep_list(DEEP)}}}}),
        (
            "parameters is a JSON string",
            {"parameters": '{"type": "object", "x": ' + "[" * DEEP + "]" * DEEP + "}"},
        ),
        ("output_schema.examples", {"parameters": {}, "output_schema": {"examples": deep_list(DEEP)}}),
        (
            "output_schema.items.example",
            {"parameters": {}, "output_schema": {"items": {"example": deep_list(DEEP)}}},
        ),
        ("annotations", {"parameters": {}, "annotations": {"title": "t", "x": deep_list(DEEP)}}),
    ],
)
def test_values_nested_too_deeply_are_rejected_naming_where_not_a_recursion_error(where, kwargs):
    kwargs = dict(kwargs)
    params = kwargs.pop("parameters")
    with pytest.raises(Rejected, match=rf"^{re.escape(where)} nested too deeply: more than 200 levels"):
        norm(params, **kwargs)


def test_a_value_deeper_than_the_nesting_limit_is_rejected_even_when_it_could_be_serialised():
    with pytest.raises(Rejected, match="more than 200 levels"):
        norm({"type": "object", "properties": {"x": {"examples": [deep_list(250)]}}})
    assert norm({"type": "object", "properties": {"x": {"examples": [deep_list(150)]}}}).parameters


def test_invalid_regular_expressions_are_dropped_with_a_note():
    tool = norm(
        {
            "type": "object",
            "properties": {
                "email": {"type": "string", "pattern": r"^[\w-\.]+@example\.com$"},  # bad range for `re`
                "word": {"type": "string", "pattern": r"^\p{L}+$"},  # ECMA-262 only
                "code": {"type": "string", "pattern": r"^[A-Z]{3}-\d+$"},
                "tags": {"type": "object", "patternProperties": {"^[a-z": {}, "^t_": {"type": "integer"}}},
            },
        }
    )
    p = valid(tool.parameters)
    props = p["properties"]
    assert "pattern" not in props["email"] and "pattern" not in props["word"]
    assert props["code"]["pattern"] == r"^[A-Z]{3}-\d+$"
    assert props["tags"]["patternProperties"] == {"^t_": {"type": "integer"}}
    validator = jsonschema.Draft202012Validator(p)
    validator.validate({"email": "ann@example.com", "word": "héllo", "code": "ABC-1", "tags": {"t_a": 1}})
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"code": "abc"})
    notes = "\n".join(tool.normalization)
    assert r"parameters.properties.email: dropped invalid pattern '^[\\w-\\.]+@example\\.com$'" in notes
    assert "(re: bad character range \\w-\\. at position 2)" in notes
    assert "parameters.properties.word: dropped invalid pattern" in notes and "bad escape \\p" in notes
    assert "parameters.properties.tags.patternProperties: dropped invalid pattern '^[a-z'" in notes


def test_invalid_patterns_in_output_schemas_and_refs_are_dropped_too():
    tool = norm(
        {
            "type": "object",
            "properties": {"id": {"$ref": "#/$defs/Id"}},
            "$defs": {"Id": {"type": "string", "pattern": "(unclosed"}},
        },
        output_schema={"type": "object", "properties": {"zip": {"type": "string", "pattern": "[9-0]"}}},
    )
    assert valid(tool.parameters)["properties"]["id"] == {"type": "string"}
    assert valid(tool.output_schema)["properties"]["zip"] == {"type": "string"}
    notes = "\n".join(tool.normalization)
    assert "parameters.properties.id: dropped invalid pattern '(unclosed'" in notes
    assert (
        "output_schema.properties.zip: dropped invalid pattern '[9-0]' (re: bad character range 9-0" in notes
    )


def test_a_group_with_invalid_unicode_is_escaped_not_written_broken():
    tool = norm({}, group="server_\udcff")  # invalid UTF-8 in a file read with surrogateescape
    assert tool.group == "server_\\udcff" and tool.group.encode("utf-8")
    assert any(n.startswith("group: invalid unicode") for n in tool.normalization)


def test_values_a_bfcl_description_lists_are_the_enum():
    """BFCL's vehicle control says its values in descriptions (`[Enum]: ["locked", "unlocked"]`): they are the
    schema's enum (a lock status of "active" was made up beside them); a declared enum wins, and numbers are
    left alone."""
    notes = []
    params = normalize_parameters(
        {
            "type": "dict",
            "properties": {
                "door": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": 'The doors. [Enum]: ["driver", "passenger", "rear_left"]',
                },
                "lock_status": {"type": "string", "description": 'The lock. [Enum]: ["locked", "unlocked"]'},
                "mode": {"type": "string", "enum": ["on"], "description": 'Mode. [Enum]: ["on", "off"]'},
                "speed": {"type": "integer", "description": "Speed. [Enum]: [1, 2]"},
            },
        },
        notes,
    )
    props = params["properties"]
    assert props["door"]["items"]["enum"] == ["driver", "passenger", "rear_left"]
    assert props["lock_status"]["enum"] == ["locked", "unlocked"]
    assert props["mode"]["enum"] == ["on"]
    assert "enum" not in props["speed"]
