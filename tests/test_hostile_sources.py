"""Hostile and messy sources end to end through `collect`: bad input costs only its own record.

Each test writes a realistic mix of good and bad records, runs the collect stage, and checks what
a user would: the good tools are in `api_pool`, each bad record is in `rejected` with a reason
that names the problem, and `read = accepted + rejected + duplicates` holds.
"""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest
import yaml
from datasets import Dataset

from envscale.sources.collect import CollectConfig, collect

REPO = Path(__file__).parents[1]


def tool(name, description="Get a thing.", **properties):
    """A good bare tool doc (BFCL / MCP shape)."""
    props = properties or {"q": {"type": "string", "description": "Query."}}
    return {"name": name, "description": description, "parameters": {"type": "object", "properties": props}}


def deep_schema_text(levels, name="deep_tool"):
    """JSON text of a tool whose schema nests `levels` objects (2 JSON levels each): too deep to build
    as a Python value and dump, so it is written as text, as a broken exporter would."""
    schema = '{"type": "object", "properties": {"a": ' * levels + '{"type": "string"}' + "}}" * levels
    return f'{{"name": "{name}", "description": "Nested too deeply.", "parameters": {schema}}}'


def deep_list(levels):
    """`[[[...[1]...]]]`, `levels` lists deep, built without recursion."""
    value = 1
    for _ in range(levels):
        value = [value]
    return value


def run(tmp_path, sources):
    """Collect `sources`; return the artifact, api_pool rows by name, and rejected rows by position."""
    art = collect(CollectConfig(sources=[str(s) for s in sources]), tmp_path / "pool")
    pool = {row["name"]: row for row in art.load("api_pool")}
    rejected = {row["position"].replace(f"{tmp_path}/", ""): row for row in art.load("rejected")}
    totals = art.manifest["stats"]["totals"]
    assert totals["read"] == totals["accepted"] + totals["rejected"] + totals["duplicates"]
    for source in art.manifest["stats"]["sources"]:
        assert source["read"] == source["accepted"] + source["rejected"] + source["duplicates"]
    return art, pool, rejected


# Finding 1: deep nesting costs the line, the tool, or (for a single document that cannot be parsed) the file.


def test_a_deep_json_lines_record_costs_only_its_line(tmp_path):
    lines = [
        json.dumps(tool("get_weather")),
        deep_schema_text(3_000),  # the JSON parser itself gives up (RecursionError)
        json.dumps(tool("get_time")),
        # parses, but an example 300 lists deep would stop whatever recurses on it later
        json.dumps(tool("deep_example", x={"type": "array", "examples": [deep_list(300)]})),
        # a record whose tools are a JSON string (xLAM style) too deep to parse
        json.dumps({"query": "q", "tools": "[" + deep_schema_text(3_000, "in_string") + "]"}),
        json.dumps({"query": "q", "tools": json.dumps([tool("get_news")])}),
        json.dumps(tool("get_stock")),
    ]
    (tmp_path / "tools.jsonl").write_text("\n".join(lines) + "\n")
    art, pool, rejected = run(tmp_path, [f"json:{tmp_path / 'tools.jsonl'}"])
    assert art.manifest["stats"]["failed_sources"] == []
    assert {"get_weather", "get_time", "get_news", "get_stock"} <= set(pool)
    assert set(rejected) == {"tools.jsonl:2", "tools.jsonl:4", "tools.jsonl:5.tools"}
    for position, row in rejected.items():
        assert row["reason"].startswith("nested too deeply"), (position, row["reason"])
        assert row["raw"]  # the record is kept, truncated, for the user to look at
    assert rejected["tools.jsonl:4"]["name"] == "deep_example"
    assert art.manifest["stats"]["totals"] == {"read": 7, "accepted": 4, "rejected": 3, "duplicates": 0}


def test_a_single_document_too_deep_to_parse_is_one_error_for_the_file(tmp_path):
    (tmp_path / "deep.json").write_text(
        "[" + json.dumps(tool("lost_tool")) + ", " + deep_schema_text(3_000) + "]"
    )
    (tmp_path / "ok.json").write_text(json.dumps([tool("get_weather"), tool("get_time")]))
    art, pool, rejected = run(tmp_path, [f"json:{tmp_path / 'deep.json'}", f"json:{tmp_path / 'ok.json'}"])
    assert art.manifest["stats"]["failed_sources"] == []
    assert set(pool) == {"get_weather", "get_time"}  # the other source is untouched
    assert list(rejected) == ["deep.json"]
    assert rejected["deep.json"]["reason"].startswith("nested too deeply: the file")


def test_a_deep_tool_in_an_hf_dataset_costs_only_its_row(tmp_path):
    rows = [
        {"id": 0, "tools": json.dumps([tool("get_stock")])},
        {"id": 1, "tools": "[" + deep_schema_text(3_000) + "]"},
        {"id": 2, "tools": json.dumps([tool("get_quote")])},
    ]
    Dataset.from_list(rows).to_parquet(str(tmp_path / "ds" / "data" / "train.parquet"))
    art, pool, rejected = run(tmp_path, [f"hf:{tmp_path / 'ds'}"])
    assert art.manifest["stats"]["failed_sources"] == []
    assert {"get_stock", "get_quote"} <= set(pool)
    assert list(rejected) == ["train:1.tools"] and "nested too deeply" in rejected["train:1.tools"]["reason"]


@pytest.mark.skipif(not hasattr(yaml, "CSafeLoader"), reason="PyYAML's own composer stops near 900 levels")
def test_a_deeply_nested_openapi_schema_costs_only_its_operation(tmp_path):
    deep = '{"type": "array", "items": ' * 980 + "{}" + "}" * 980  # libyaml parses it; recursing on it fails
    ok = "responses: {'200': {description: ok}}"
    spec = tmp_path / "deep.openapi.yaml"
    spec.write_text(
        "openapi: 3.0.3\ninfo: {title: Deep, version: '1'}\npaths:\n"
        f"  /orders:\n    get:\n      operationId: list_orders\n      {ok}\n"
        "  /deep:\n    post:\n      operationId: post_deep\n      requestBody:\n        content:\n"
        f"          application/json:\n            schema: {deep}\n      {ok}\n"
        f"  /customers:\n    get:\n      operationId: list_customers\n      {ok}\n"
    )
    art, pool, rejected = run(tmp_path, [f"openapi:{spec}"])
    assert art.manifest["stats"]["failed_sources"] == []
    assert set(pool) == {"list_orders", "list_customers"}
    assert list(rejected) == ["POST /deep"]
    assert rejected["POST /deep"]["reason"].startswith("nested too deeply")
    assert rejected["POST /deep"]["name"] == "post_deep"


# Finding 2: a `pattern` Python's `re` cannot compile is dropped, with a note; the tool stays.


def test_invalid_regular_expressions_are_dropped_and_the_tool_validates(tmp_path):
    email = {"type": "string", "pattern": r"^[\w-\.]+@([\w-]+\.)+[\w-]{2,4}$"}  # a real-world copy-paste
    code = {"type": "string", "pattern": r"^[A-Z]{3}$"}
    bad = tool("send_invite", "Send an invitation.", email=email, code=code)
    bad["parameters"]["patternProperties"] = {
        r"^x-[\w-\.]+$": {"type": "string"},
        "^meta_": {"type": "string"},
    }
    bad["parameters"]["required"] = ["email"]
    lines = [tool("get_user"), bad, {"name": "no_schema_fix", "parameters": {"type": "array"}}]
    (tmp_path / "tools.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    art, pool, rejected = run(tmp_path, [f"json:{tmp_path / 'tools.jsonl'}"])
    assert {"get_user", "send_invite"} <= set(pool) and list(rejected) == ["tools.jsonl:3"]
    row = pool["send_invite"]
    schema = row["parameters"]
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(
        {"email": "ann@example.com", "code": "ABC", "meta_a": "x"}
    )
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema).validate({"email": "ann@example.com", "code": "abc"})
    assert "pattern" not in schema["properties"]["email"] and schema["properties"]["code"]["pattern"]
    assert list(schema["patternProperties"]) == ["^meta_"]
    notes = [n for n in row["normalization"] if "invalid pattern" in n]
    assert len(notes) == 2 and all("bad character range" in n for n in notes)
    assert any(r"[\\w-\\.]+@" in n and "parameters.properties.email" in n for n in notes)


# Finding 3: one file, several servers.


def test_tools_of_several_servers_in_one_file_are_all_kept(tmp_path):
    def mcp_tool(server, name, description, prop, key="server"):
        schema = {"type": "object", "properties": {prop: {"type": "string"}}, "required": [prop]}
        return {key: server, "name": name, "description": description, "inputSchema": schema}

    lines = [
        mcp_tool("todoist", "list_tasks", "List the tasks of a project.", "project_id"),
        mcp_tool("todoist", "add_task", "Add a task to a project.", "content"),
        mcp_tool("asana", "list_tasks", "List the tasks in a workspace.", "workspace_gid"),
        # the same server defines `list_tasks` twice, differently: a true conflict, rejected as before
        mcp_tool("asana", "list_tasks", "List tasks (v2).", "workspace"),
        {
            "server_name": "linear",
            "tools": [tool("list_tasks", "List issues as tasks.", team={"type": "string"})],
        },
        mcp_tool(
            {"name": "github", "version": "1.2"}, "list_tasks", "List workflow runs.", "repo", "mcp_server"
        ),
    ]
    (tmp_path / "mcp_tools.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    art, pool, rejected = run(tmp_path, [f"json:{tmp_path / 'mcp_tools.jsonl'}"])
    list_tasks = {row["group"]: row for row in pool.values() if row["original_name"] == "list_tasks"}
    assert set(list_tasks) == {"todoist", "asana", "linear", "github"}
    assert list_tasks["todoist"]["parameters"]["required"] == ["project_id"]
    assert list_tasks["asana"]["parameters"]["required"] == ["workspace_gid"]
    assert pool["add_task"]["group"] == "todoist"
    assert len({row["name"] for row in list_tasks.values()}) == 4  # named apart in the pool
    assert list(rejected) == ["mcp_tools.jsonl:4"]
    reason = rejected["mcp_tools.jsonl:4"]["reason"]
    assert reason.startswith("duplicate name 'list_tasks'") and "server asana" in reason
    assert art.manifest["stats"]["totals"] == {"read": 6, "accepted": 5, "rejected": 1, "duplicates": 0}


# Finding 4: a YAML alias bomb is refused before it is built.


def alias_bomb(levels, width, anchor_at="components"):
    """A billion-laughs OpenAPI document: `width ** levels` strings from a few hundred bytes."""
    lines = ["openapi: 3.0.3", "info: {title: Laughs, version: '1'}", f"{anchor_at}:", "  x-lol:"]
    lines.append("    l0: &l0 [" + ", ".join(["lol"] * width) + "]")
    for i in range(1, levels):
        lines.append(f"    l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]")
    lines += [
        "paths:",
        "  /laughs:",
        "    get:",
        "      operationId: get_laughs",
        "      responses:",
        "        '200':",
        "          description: ok",
        "          content:",
        "            application/json:",
        f"              schema: {{type: array, example: *l{levels - 1}}}",
    ]
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_fails_its_source_and_the_others_are_collected(tmp_path):
    # 10**6 strings: just past the bound (the real thing, 9**9, is in the resource test below)
    (tmp_path / "laughs.yaml").write_text(alias_bomb(levels=6, width=10))
    (tmp_path / "tools.json").write_text(json.dumps([tool("get_weather")]))
    sources = [f"openapi:{tmp_path / 'laughs.yaml'}", f"json:{tmp_path / 'tools.json'}"]
    art, pool, _ = run(tmp_path, sources)
    failed = art.manifest["stats"]["failed_sources"]
    assert [f["source"] for f in failed] == [sources[0]]
    assert "laughs.yaml" in failed[0]["error"] and "aliases" in failed[0]["error"]
    assert "limit 1,000,000" in failed[0]["error"]
    assert set(pool) == {"get_weather"}


_BOMB_CHILD = textwrap.dedent(
    """
    import resource, sys
    limit = 500 * 2**20  # the acceptance bound: 500 MB of address space, imports included
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from envscale.sources import SourceError, read_source
    from envscale.sources.normalize import normalize_tool
    try:
        info, items = read_source(sys.argv[1])
        for item in items:  # what collect does with each record
            if hasattr(item, "parameters"):
                normalize_tool(item)
    except SourceError as exc:
        print("REFUSED", exc)
    else:
        print("LOADED")
    print("maxrss_kb", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    """
)


def test_a_1_kb_alias_bomb_is_refused_within_5_s_and_500_mb(tmp_path):
    bomb = tmp_path / "laughs.yaml"
    bomb.write_text(alias_bomb(levels=9, width=9))  # 9**9 = 387,420,489 strings
    assert bomb.stat().st_size < 1_024
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _BOMB_CHILD, f"openapi:{bomb}"],
            capture_output=True,
            text=True,
            timeout=5,  # the acceptance bound, as the failure condition
            cwd=REPO,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the alias bomb was not refused within 5 s")
    assert proc.returncode == 0, proc.stderr[-2_000:]  # MemoryError under the 500 MB limit fails here
    assert proc.stdout.startswith("REFUSED"), proc.stdout
    assert "laughs.yaml" in proc.stdout and "limit 1,000,000" in proc.stdout
