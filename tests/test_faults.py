"""Every stage with an LLM, run through its real CLI against a server that answers only faults.

A deterministic FAKE OpenAI-compatible server (`tests/faultserver.py`, on `tests/llmfake.py`; it runs no model)
answers each request with the next fault of `FAULTS`: the 16 malformed reply shapes of issue 23 and more (one
table below), a 300 MB reply streamed from a generator, a reply trickled a byte a second, and silence.
`envscale graph` (LLM edge check and domain names), `envscale tasks` (LLM rewrite) and `envscale rollout`
(agent endpoint, then user endpoint) each run once in a subprocess with every fault in its cycle, with a 1 s
LLM timeout and no retry. Each run must exit 0 with its work recorded (the graph's embedding-only edges, the
tasks in the template's wording, every episode as a trajectory with its status and error), say what failed in
one line per failure kind, and print no traceback; pytest's timeout is the bound on time.

The tasks come from the real pipeline (collect -> graph -> materialize -> tasks over the shop's OpenAPI
spec), built once for the module, as in `tests/test_rollout_integration.py`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from faultserver import huge_reply, silence, start_fault_server, trickle
from llmfake import Reply, completion

from envscale.artifacts import open_artifact
from envscale.graph.build import GraphConfig, build_graph
from envscale.materialize.build import MaterializeConfig, materialize
from envscale.sources.collect import CollectConfig, collect
from envscale.tasks.build import TasksConfig, generate_tasks

REPO = Path(__file__).resolve().parent.parent
SOURCES = ["openapi:recipes/sources/envscale_shop.openapi.yaml"]
TIMEOUT_S = 1  # the LLM timeout of every stage run here: a silent or trickling reply costs this once


def _deep(n: int) -> str:
    return "[" * n + "]" * n


def _message(**fields) -> dict:
    """A completion whose message has these fields (content None unless given)."""
    body = completion(None)
    body["choices"][0]["message"] = {"role": "assistant", "content": None, **fields}
    return body


_GOOD = completion("yes")
_CALL = {"id": "c1", "type": "function", "function": {"name": "get_order", "arguments": "{}"}}

# The malformed reply shapes of issue 23 (the 11 it names, and the others of the same probe), one per row:
# each becomes an LLMError quoting the reply's first bytes, or a reply whose bad parts are kept as data.
MALFORMED = {
    "body a list": [_GOOD],
    "body a string": '"hello"',
    "body a number": "42",
    "choices a dict": {**_GOOD, "choices": {"0": _GOOD["choices"][0]}},
    "choices empty": {**_GOOD, "choices": []},
    "choice a string": {**_GOOD, "choices": ["yes"]},
    "message a string": {**_GOOD, "choices": [{"index": 0, "message": "yes", "finish_reason": "stop"}]},
    "message missing": {**_GOOD, "choices": [{"index": 0, "finish_reason": "stop"}]},
    "content a dict": completion({"text": "yes"}),
    "content parts with int text": completion([{"type": "text", "text": 1}, {"type": "image"}]),
    "tool_calls a string": _message(tool_calls="get_order(order_id=1)"),
    "tool_calls a dict": _message(tool_calls=_CALL),
    "tool_calls [null]": _message(tool_calls=[None]),
    "function a string": _message(tool_calls=[{"id": "c1", "type": "function", "function": "get_order"}]),
    "deep arguments": _message(tool_calls=[{**_CALL, "function": {"name": "f", "arguments": _deep(50_000)}}]),
    "usage a list": {**_GOOD, "usage": [1, 2, 3]},
    "deep <tool_call>": completion(
        '<tool_call>{"name": "f", "arguments": ' + _deep(50_000) + "}</tool_call>"
    ),
    "deep body": '{"choices": ' + _deep(100_000) + "}",
}
assert len(MALFORMED) >= 16

FAULTS = [(name, Reply(body=body)) for name, body in MALFORMED.items()] + [
    ("300 MB reply", huge_reply()),
    ("trickle", trickle(1.0)),
    ("silence", silence()),
]


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    root = tmp_path_factory.mktemp("faults")
    pool = collect(CollectConfig(sources=SOURCES), root / "api_pool")
    graph_config = GraphConfig(embedding_cache=str(root / "emb"), min_domain_size=2, embedding_processes=1)
    graph = build_graph(pool, graph_config, root / "graph")
    envs = materialize(graph, MaterializeConfig(), root / "environments")
    tasks = generate_tasks(envs, TasksConfig(tasks_per_env=10, test_env_share=0.0), root / "tasks")
    return {"root": root, "pool": pool, "graph": graph, "environments": envs, "tasks": tasks}


@pytest.fixture
def server():
    fake = start_fault_server(FAULTS)
    try:
        yield fake
    finally:
        fake.stop()


def _run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TQDM_DISABLE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "envscale.cli", *args], capture_output=True, text=True, cwd=REPO, env=env
    )


def _said(proc: subprocess.CompletedProcess) -> list[str]:
    """The lines the run printed on stderr, after checking it ended cleanly."""
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    return proc.stderr.splitlines()


def _rows(path: Path, config: str, split: str = "train") -> list[dict]:
    return list(open_artifact(path).load(config, split))


def _llm_args(server, prefix: str = "--llm-") -> list[str]:
    return [
        f"{prefix}base-url",
        server.url,
        f"{prefix}model",
        "fault-model",
        f"{prefix}timeout",
        str(TIMEOUT_S),
        f"{prefix}max-retries",
        "0",
    ]


def _warnings(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith(("WARNING", "ERROR", "CRITICAL"))]


def _edges(rows) -> list[tuple]:
    return sorted((e["source_name"], e["target_name"], e["kind"]) for e in rows)


@pytest.mark.timeout(240)
def test_graph_with_a_faulty_llm_keeps_the_embedding_edges_and_says_so_once_per_step(pipeline, server):
    root = pipeline["root"]
    out = root / "graph-faults"
    said = _said(
        _run(
            "graph",
            *("--input", str(root / "api_pool"), "--output", str(out)),
            *("--embedding-cache", str(root / "emb"), "--min-domain-size", "2", "--embedding-processes", "1"),
            *_llm_args(server),
        )
    )
    assert set(server.served) == set(dict(FAULTS)), set(dict(FAULTS)) - set(server.served)
    warned = _warnings(said)
    assert len(warned) == 2, warned  # one line per LLM step that failed, whatever the faults
    assert "llm edge check" in warned[0] and "their edges are kept on the embedding" in warned[0]
    assert "llm domain names" in warned[1] and "keep their offline names" in warned[1]
    assert all(len(line) < 1500 for line in warned)
    offline = pipeline["graph"]
    edges = _rows(out, "edges")
    assert _edges(edges) == _edges(offline.load("edges"))  # no edge lost to a failed request
    verdicts = open_artifact(out).manifest["stats"]["llm_edge_verdicts"]
    assert verdicts["error"] >= sum(verdicts.values()) // 2 and "rejected" not in verdicts, verdicts
    assert str(verdicts["error"]) in warned[0]
    assert sorted(d["name"] for d in _rows(out, "domains")) == sorted(
        d["name"] for d in offline.load("domains")
    )


@pytest.mark.timeout(240)
def test_tasks_with_a_faulty_llm_keep_the_template_wording_and_count_the_failed_rewrites(pipeline, server):
    root = pipeline["root"]
    args = ("--input", str(root / "environments"), "--tasks-per-env", "25", "--test-env-share", "0")
    said = _said(_run("tasks", *args, "--output", str(root / "tasks-faults"), *_llm_args(server)))
    assert set(server.served) == set(dict(FAULTS)), set(dict(FAULTS)) - set(server.served)
    warned = _warnings(said)
    assert len(warned) == 1 and "LLM rewrites failed" in warned[0] and len(warned[0]) < 1500, warned
    assert "those tasks keep the template's wording" in warned[0]
    _said(_run("tasks", *args, "--output", str(root / "tasks-offline")))
    faulty, offline = (
        {t["task_id"]: t for split in ("train", "test") for t in _rows(root / name, "tasks", split)}
        for name in ("tasks-faults", "tasks-offline")
    )
    assert sorted(faulty) == sorted(offline) and len(faulty) >= 20  # every task kept
    for task_id, task in faulty.items():
        assert task["first_message"] == offline[task_id]["first_message"]  # in the template's wording
        assert any("kept the template's wording" in note for note in task["notes"]), task["notes"]
        assert not any("reworded by the LLM" in note for note in task["notes"]), task["notes"]
    rewrites = open_artifact(root / "tasks-faults").manifest["stats"]["rewrites"]
    assert rewrites["used"] == 0 and rewrites["failed"] >= len(FAULTS) - 4, rewrites
    assert str(rewrites["failed"]) in warned[0]


@pytest.mark.timeout(240)
@pytest.mark.parametrize("role", ["agent", "user"])
def test_rollout_with_a_faulty_endpoint_records_every_episode_as_failed_with_its_error(
    pipeline, server, role
):
    root = pipeline["root"]
    out = root / f"trajectories-{role}"
    backend = f"kind=endpoint,base_url={server.url},model=fault-model,timeout={TIMEOUT_S},max_retries=0"
    # every fault is served once at least: a failed request ends its episode, so there are as many episodes as
    # faults (the fixture's train tasks, each tried `trials` times)
    train = len(list(pipeline["tasks"].load("tasks", "train")))
    trials = max(2, -(-len(FAULTS) // train))
    said = _said(
        _run(
            "rollout",
            "--input",
            str(root / "tasks"),
            "--output",
            str(out),
            f"--{role}",
            backend,
            "--trials",
            str(trials),
        )
    )
    assert set(server.served) == set(dict(FAULTS)), set(dict(FAULTS)) - set(server.served)
    assert _warnings(said) == []  # each failure is in its trajectory; the summary line counts them
    rows = _rows(out, "trajectories")
    asked = train * trials
    assert len({r["trajectory_id"] for r in rows}) == len(rows) == asked  # every episode recorded
    failed = [r for r in rows if r["status"] != "completed"]
    assert len(failed) >= len(rows) // 2
    (summary,) = [line for line in said if "trajectories" in line and "failed" in line]
    assert f"{len(failed)} failed" in summary
    for row in failed:
        assert (row["status"], row["failure_cause"]) == (f"{role}_error", role), row["error"]
        assert len(row["error"]) < 1500 and "Traceback" not in row["error"], row["error"]
        assert row["messages"][:2] and row["messages"][1]["role"] == "user"  # the conversation is kept
    errors = " ".join(r["error"] for r in failed)
    for cause in ("invalid response", "over max_reply_bytes", f"timed out after {TIMEOUT_S} s"):
        assert cause in errors, cause


def test_arguments_nested_too_deeply_to_parse_are_sent_back_as_an_empty_object():
    # The agent's malformed call is kept in the trajectory as the model wrote it; the next request sends `{}`
    # for it (as for any text that is no JSON object) instead of failing the episode with a RecursionError.
    from envscale.rollout.backends import wire_messages

    deep = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": _deep(50_000)}}
    (sent,) = wire_messages([{"role": "assistant", "content": None, "tool_calls": [deep]}])
    assert sent["tool_calls"][0]["function"]["arguments"] == "{}"
