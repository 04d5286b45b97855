"""Real MCP servers from PyPI, started over stdio with the official SDK; crashing and hanging ones."""

import sys

import pytest

from envscale.sources import SourceError, read_source
from envscale.stages.collect import CollectConfig, collect


def test_time_server_tools_with_output_schemas_and_annotations():
    info, items = read_source("mcp:mcp-server-time --local-timezone UTC")
    tools = {t.name: t for t in items}
    assert set(tools) == {"get_current_time", "convert_time"}
    assert info.title == "mcp-time" and info.version
    tool = tools["get_current_time"]
    assert tool.parameters["required"] == ["timezone"]
    assert tool.output_schema["properties"]["datetime"]["type"] == "string"
    assert "mcp:read_only_hint=true" in tool.kind_hints


def test_git_server_on_a_scratch_repository_through_the_stage(tmp_path):
    art = collect(
        CollectConfig(sources=["mcp:mcp-server-git --repository {scratch_git_repo}"]), tmp_path / "pool"
    )
    pool = {r["name"]: r for r in art.load("api_pool")}
    assert len(pool) >= 10 and {"git_status", "git_commit", "git_log"} <= set(pool)
    assert pool["git_status"]["kind"] == "read" and pool["git_commit"]["kind"] == "write"
    assert pool["git_commit"]["kind_evidence"][0].startswith(
        "mcp:"
    )  # decided by the server's own annotations
    assert all(r["source_kind"] == "mcp" and r["group"] == "mcp-git" for r in pool.values())
    # The output schema's $defs references are inlined: rows are self-contained.
    assert all("$ref" not in str(r["output_schema"]) for r in pool.values())


def test_crashing_and_hanging_servers_fail_clearly_and_do_not_stop_the_run(tmp_path):
    crash = f"mcp:{sys.executable} -c \"import sys; sys.stderr.write('boom: bad config\\n'); sys.exit(3)\""
    hang = f'mcp:{sys.executable} -c "import time; time.sleep(120)"'
    with pytest.raises(SourceError, match="boom: bad config"):
        list(read_source(crash)[1])
    art = collect(CollectConfig(sources=[hang, "mcp:mcp-server-time"], mcp_timeout=2), tmp_path / "pool")
    failed = art.manifest["stats"]["failed_sources"]
    assert [f["source"] for f in failed] == [hang] and "did not answer within 2s" in failed[0]["error"]
    assert art.manifest["counts"]["api_pool"] == 2


def test_unknown_server_command_is_named():
    with pytest.raises(SourceError, match="'no-such-mcp-server' not found"):
        list(read_source("mcp:no-such-mcp-server --flag")[1])
