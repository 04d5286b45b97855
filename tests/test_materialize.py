"""The materialize stage: domains of a real graph -> verified environments, rebuilt from dataset rows."""

import pytest
from datasets import load_dataset

from envscale.env import Environment
from envscale.graph.build import GraphConfig, build_graph
from envscale.materialize.build import MaterializeConfig, materialize
from envscale.materialize.infer import infer_spec
from envscale.sources.collect import CollectConfig, collect

FIX = "tests/fixtures/graph"


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    root = tmp_path_factory.mktemp("mat")
    pool = collect(
        CollectConfig(
            sources=[f"json:{FIX}/shop.json", f"json:{FIX}/music.json", f"json:{FIX}/weather.json"]
        ),
        root / "api_pool",
    )
    return build_graph(
        pool, GraphConfig(embedding_cache=str(root / "emb"), min_domain_size=2), root / "graph"
    )


def test_domains_become_verified_environments_that_rebuild_from_their_rows(graph, tmp_path):
    art = materialize(graph, MaterializeConfig(), tmp_path / "environments")
    stats = art.manifest["stats"]
    assert stats["domains"] == graph.manifest["stats"]["domains"]
    assert stats["verified"] >= 2 and stats["verified"] + stats["rejected"] == stats["domains"]
    rows = load_dataset(str(tmp_path / "environments"), "environments", split="train")
    shop = next(r for r in rows if "orders" in r["tables"])
    assert {"orders", "payments", "customers"} <= set(shop["tables"]) or "orders" in shop["tables"]
    ops = {t["name"]: t["operation"]["type"] for t in shop["spec"]["tools"]}
    assert (
        ops["get_order"] == "get"
        and ops["cancel_order"] in ("update", "delete")
        and ops["list_orders"] == "list"
    )
    # Any environment rebuilds from its dataset row alone and gives the same state hash after the same calls.
    a, b = (
        Environment.from_row(shop),
        Environment.from_row(rows[[r["name"] for r in rows].index(shop["name"])]),
    )
    a.reset(), b.reset()
    assert a.state_hash() == b.state_hash() == shop["state_hash"]
    # cancel the first order that may still be cancelled (the others are refused with a reason)
    order_id = next(
        o["order_id"] for o in a.dump()["orders"] if a.step("cancel_order", {"order_id": o["order_id"]})["ok"]
    )
    assert a.step("get_order", {"order_id": order_id})["result"]["status"] == "cancelled"
    assert b.step("cancel_order", {"order_id": order_id})["ok"]
    assert a.state_hash() == b.state_hash() != shop["state_hash"]
    card = (tmp_path / "environments" / "README.md").read_text()
    assert "passed verification" in card


def test_a_domain_that_cannot_be_materialised_is_rejected_with_its_reason(graph, tmp_path):
    domain = {"domain_id": 0, "name": "broken"}
    tool = {
        "id": "x",
        "name": "get_thing",
        "original_name": "get_thing",
        "description": "Get a thing.",
        "kind": "read",
        "parameters": {
            "type": "object",
            "properties": {"thing_id": {"type": "string"}},
            "required": ["thing_id"],
        },
        "output_schema": None,
    }
    spec = infer_spec(domain, [tool], rows=20, seed=0).spec
    assert spec["tables"]["things"]["primary_key"] == "thing_id"
    art = materialize(graph, MaterializeConfig(min_tools=99), tmp_path / "none")
    assert art.manifest["stats"]["verified"] == 0
    rejected = art.load("rejected")
    assert all("min_tools" in r["reason"] for r in rejected)


def test_loose_functions_that_write_only_the_session_row_are_a_function_set_not_a_world():
    from envscale.materialize.build import world_or_loose

    def spec(group, session="accounts"):
        tool = {"name": "setText", "kind": "write", "metadata": {"group": group} if group else {}}
        return {"tools": [tool], "session": {"table": session} if session else None}

    assert world_or_loose(spec(None), ["accounts"]) == "function_set"  # setText sets accounts.text_start
    assert world_or_loose(spec(None), []) == "function_set"
    assert (
        world_or_loose(spec(None), ["accounts", "alarms"]) == "world"
    )  # rows of their own, written and read
    assert (
        world_or_loose(spec("GorillaFileSystem"), ["accounts"]) == "world"
    )  # one API's session is its world
    # one table written among many only looked up (a sculpture catalogue beside prices, artists, museums ...): the
    # blind readers' grab-bag "worlds", each scored 0
    lookups = {
        **spec(None),
        "tables": dict.fromkeys(["accounts", "sculptures", "artists", "museums", "prices"], {}),
    }
    assert world_or_loose(lookups, ["sculptures"]) == "function_set"
    assert world_or_loose(lookups, ["sculptures", "artists"]) == "world"


def test_an_interrupted_run_resumes_without_redoing_finished_domains(graph, tmp_path, monkeypatch):
    from envscale.artifacts import iter_rows
    from envscale.materialize import build

    whole = materialize(graph, MaterializeConfig(), tmp_path / "whole")
    real = build.materialize_domain
    done: list[int] = []

    def stops_after_two(item, config):
        if len(done) == 2:
            raise KeyboardInterrupt  # Ctrl-C in the middle of the third domain
        done.append(item[0])
        return real(item, config)

    monkeypatch.setattr(build, "materialize_domain", stops_after_two)
    with pytest.raises(KeyboardInterrupt):
        materialize(graph, MaterializeConfig(), tmp_path / "resumed")
    redone: list[int] = []
    monkeypatch.setattr(
        build, "materialize_domain", lambda item, config: redone.append(item[0]) or real(item, config)
    )
    resumed = materialize(graph, MaterializeConfig(), tmp_path / "resumed")
    assert done == [0, 1] and redone == list(range(2, graph.manifest["stats"]["domains"])) and redone
    for config in ("environments", "rejected"):
        if whole.manifest["counts"][config]:
            assert list(iter_rows(resumed.load(config))) == list(iter_rows(whole.load(config)))
    assert resumed.manifest["counts"] == whole.manifest["counts"]
