"""`envscale rollout` against servers over HTTP: a real `transformers serve`, a fault-injecting fake, a kill -9.

The tasks come from the real pipeline (collect -> graph -> materialize -> tasks over the shop's OpenAPI spec),
built once for the module as in `tests/test_rollout.py`.

- **Real server**: `transformers serve` on loopback, one process serving two tiny models built here whose
  greedy replies are known in advance (`build_scripted_chat_model`): one answers `All done.`, the other a
  Hermes `<tool_call>` block. Episodes run with `agent={kind: endpoint}` (and once with the user as an
  endpoint too); the tests check the plumbing (messages, tool rounds, statuses, backend info, usage), not
  the agent's success.
- **Faults** (`tests/llmfake.py`, a deterministic protocol FAKE that runs no model): 500s retried then
  answered, a reply slower than the backend's `timeout` (once, and always), malformed and hallucinated tool
  calls, an empty reply, a body that is no chat completion, a server that always answers 500, and a user
  simulator whose server is down. Every episode ends as a trajectory, with its status and reason.
- **Kill -9**: `envscale rollout` in a subprocess killed at random points while episodes are in flight,
  then run to completion: exactly the episodes asked for, none lost, none duplicated.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import itertools
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest
from datasets import load_dataset
from llmfake import Reply, completion, start_llm_fake, tool_call
from test_llm import MALFORMED_BODIES

from envscale.graph.build import GraphConfig, build_graph
from envscale.judge.filter import FilterConfig, filter_trajectories
from envscale.materialize.build import MaterializeConfig, materialize
from envscale.rollout.envs import EnvironmentPool
from envscale.rollout.run import PARTS_FILE, RolloutConfig, episode_seed, rollout
from envscale.schemas import STOP
from envscale.sources.collect import CollectConfig, collect
from envscale.tasks.build import TasksConfig, generate_tasks

REPO = Path(__file__).resolve().parent.parent
SOURCES = ["openapi:recipes/sources/envscale_shop.openapi.yaml"]
AGENT_PROMPT = "You are a helpful assistant with tools for"


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    root = tmp_path_factory.mktemp("rollout_integration")
    pool = collect(CollectConfig(sources=SOURCES), root / "api_pool")
    graph = build_graph(
        pool,
        GraphConfig(embedding_cache=str(root / "emb"), min_domain_size=2, embedding_processes=1),
        root / "graph",
    )
    envs = materialize(graph, MaterializeConfig(), root / "environments")
    art = generate_tasks(envs, TasksConfig(tasks_per_env=10, test_env_share=0.0), root / "tasks")
    assert art.splits["tasks"]["train"] >= 6, art.splits
    return art


def _rows(art, config="trajectories"):
    return list(art.load(config))  # an empty config loads as an empty dataset


def _task_rows(tasks):
    return {t["task_id"]: t for t in tasks.load("tasks", "train")}


def _well_formed_start(row, task):
    """The agent's system prompt (with the task's policy), then the task's first user message."""
    system, first = row["messages"][:2]
    assert system["role"] == "system" and system["content"].startswith(AGENT_PROMPT)
    policy = task["policy"] if isinstance(task["policy"], dict) else json.loads(task["policy"] or "{}")
    if policy.get("text"):
        assert policy["text"] in system["content"]
    assert first == {"role": "user", "content": task["first_message"]}
    assert [t["function"]["name"] for t in row["tools"]] == task["tools"]


# ---------------------------------------------------------------------------------------------------------------
# A real OpenAI-compatible server: `transformers serve` on loopback with two tiny models built here.

CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def build_scripted_chat_model(path: Path, reply: str) -> Path:
    """Save a tiny Llama whose greedy answer to any chat is `reply`, then end of turn (`tests/tinymodel.py`)."""
    from tinymodel import build_tiny_chat_model

    # the agent's prompt (policy, tool results) is byte-level: long
    return build_tiny_chat_model(path, reply=[reply], max_positions=8192, chat_template=CHATML)


def _most_offered_tool(tasks) -> str:
    return Counter(t for task in tasks.load("tasks", "train") for t in task["tools"]).most_common(1)[0][0]


@pytest.fixture(scope="module")
def transformers_serve(tasks, tmp_path_factory):
    """`transformers serve` (no model pinned: a request's `model` names a local folder) in a subprocess.

    Yields `{"base_url", "text", "tool", "tool_name"}`: `text` is a model answering `All done.`, `tool` one
    answering a Hermes tool call of `tool_name` (a tool most tasks offer) with no arguments. Always killed.
    """
    root = tmp_path_factory.mktemp("serve")
    tool_name = _most_offered_tool(tasks)
    text = build_scripted_chat_model(root / "text-model", "All done.")
    tool = build_scripted_chat_model(
        root / "tool-model", f'<tool_call>{{"name": "{tool_name}", "arguments": {{}}}}</tool_call>'
    )
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [sys.executable, "-c", "from transformers.cli.transformers import main; main()", "serve"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--device", "cpu"]
    env = os.environ | {"HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    log = open(root / "serve.log", "w+b")  # noqa: SIM115 (closed in finally)
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                pytest.fail(
                    f"transformers serve did not come up:\n{log.read().decode(errors='replace')[-3000:]}"
                )
            time.sleep(0.2)
        yield {
            "base_url": f"http://127.0.0.1:{port}/v1",
            "text": str(text),
            "tool": str(tool),
            "tool_name": tool_name,
        }
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def _endpoint(serve, model, **extra):
    return {"kind": "endpoint", "base_url": serve["base_url"], "model": serve[model], "timeout": 60.0} | extra


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_episodes_against_a_real_server_end_as_well_formed_trajectories(tasks, transformers_serve, tmp_path):
    serve, by_id = transformers_serve, _task_rows(tasks)
    config = RolloutConfig(agent=_endpoint(serve, "text", max_tokens=16), max_tasks=5, concurrency=4)
    traj = rollout(tasks, config, tmp_path / "trajectories")
    rows = _rows(traj)
    assert len(rows) == 5 and len({r["trajectory_id"] for r in rows}) == 5
    for row in rows:
        _well_formed_start(row, by_id[row["task_id"]])
        # the model's answer, then each next request of a conversation and its answer, then the scripted
        # user's stop: a normal end
        later = [r["message"] for r in (by_id[row["task_id"]]["requests"] or [])[1:]]
        tail = row["messages"][2:]
        assert tail[0::2] == [{"role": "assistant", "content": "All done."}] * (len(later) + 1)
        assert [m["role"] for m in tail[1::2]] == ["user"] * (len(later) + 1)
        assert [m["content"] for m in tail[1::2]][:-1] == later
        assert STOP in row["messages"][-1]["content"]
        assert (row["status"], row["failure_cause"], row["error"]) == ("completed", None, None)
        assert row["final_answer"] == "All done." and row["calls"] == [] and row["final_state_hash"]
        # the backend as it ran: kind, served model id, generation settings
        assert row["agent"]["kind"] == "endpoint" and row["agent"]["model"] == serve["text"]
        assert row["agent"]["base_url"] == serve["base_url"] and row["agent"]["max_tokens"] == 16
        assert "api_key" not in row["agent"] and row["user"]["kind"] == "scripted"
        usage = row["usage"]["agent"]
        assert usage["requests"] == 1 + len(later) and usage["completion_tokens"] == 2 * (1 + len(later))
        assert usage["prompt_tokens"] > 100
    stats = traj.manifest["stats"]
    assert stats["episodes"] == 5 and stats["per_status"] == {"completed": 5}
    assert stats["agent"]["model"] == serve["text"]

    filtered = filter_trajectories(traj, FilterConfig(), tmp_path / "filtered")
    checked = _rows(filtered, "filtered") + _rows(filtered, "rejected")
    assert sorted(r["trajectory_id"] for r in checked) == sorted(r["trajectory_id"] for r in rows)
    assert all(r["check_ended"] and r["check_format"] and r["check_schema"] for r in checked)
    # a model that only says "All done." does no task: no change made where one is needed, no fact stated
    assert not any(r["passed"] for r in checked)
    changes = [
        r
        for r in checked
        if by_id[r["task_id"]]["kind"] != "policy"
        and by_id[r["task_id"]]["scoring"]["state"]
        and by_id[r["task_id"]]["gold_diff"]  # a branch with nothing to do fails on its answer (above)
    ]
    assert changes and all(r["check_state"] is False for r in changes)


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_tool_rounds_with_a_real_server_run_in_the_environment_and_go_back_to_it(
    tasks, transformers_serve, tmp_path
):
    serve, by_id = transformers_serve, _task_rows(tasks)
    name = serve["tool_name"]
    config = RolloutConfig(agent=_endpoint(serve, "tool"), max_tasks=4, max_steps=2, concurrency=4)
    traj = rollout(tasks, config, tmp_path / "trajectories")
    rows = _rows(traj)
    assert len(rows) == 4
    offered_somewhere = False
    for row in rows:
        task = by_id[row["task_id"]]
        _well_formed_start(row, task)
        # the server's `<tool_call>` text is parsed into a call; it never stops calling, so max_steps
        assert (row["status"], row["failure_cause"]) == ("max_steps", "agent")
        assert row["usage"]["agent"]["requests"] == 2 and row["turns"] == 1
        body = row["messages"][2:]
        assert [m["role"] for m in body] == ["assistant", "tool", "assistant", "tool"]
        for assistant, result in zip(body[::2], body[1::2], strict=True):
            (call,) = assistant["tool_calls"]
            assert call["function"] == {"name": name, "arguments": {}}
            assert result["tool_call_id"] == call["id"] and result["name"] == name
            json.loads(result["content"])  # the observation, as JSON text
        offered = name in task["tools"]
        offered_somewhere |= offered
        assert len(row["calls"]) == 2
        for call in row["calls"]:
            assert call["tool"] == name and call["arguments"] == {}
            # not offered: refused before the environment; offered: the environment ran it
            assert (call["code"] == "unknown_tool") is (not offered), call
    assert offered_somewhere, f"no sampled task offers {name}: the test would not run a tool"


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_model_user_on_a_real_server_sees_the_conversation_from_its_side(
    tasks, transformers_serve, tmp_path
):
    serve = transformers_serve
    config = RolloutConfig(
        agent=_endpoint(serve, "text", max_tokens=16),
        user=_endpoint(serve, "text", max_tokens=16),
        max_tasks=3,
        max_turns=2,
        concurrency=3,
    )
    rows = _rows(rollout(tasks, config, tmp_path / "trajectories"))
    assert len(rows) == 3
    for row in rows:
        # the user model never writes the stop marker: the episode ends at max_turns, kept with its reason
        assert (row["status"], row["failure_cause"], row["turns"]) == ("max_turns", "agent", 2)
        assert [m["role"] for m in row["messages"]] == ["system", "user", "assistant", "user", "assistant"]
        assert row["messages"][3]["content"] == "All done."  # the user model's reply
        assert row["user"]["kind"] == "endpoint" and row["user"]["model"] == serve["text"]
        assert row["usage"]["user"]["requests"] == 1 and row["usage"]["agent"]["requests"] == 2


# ---------------------------------------------------------------------------------------------------------------
# Faults: a loopback FAKE server (tests/llmfake.py) that injects one fault per episode.

BACKEND_TIMEOUT = 1.5  # generous: a busy 2-core CI machine must not time out the fast replies
FAULTS = (
    "ok",  # a plain answer
    "flaky_500",  # two 500s, then an answer: retried
    "slow_once",  # one reply slower than the backend's timeout, then an answer: retried
    "malformed_call",  # a tool call whose arguments are not JSON, then an answer
    "hallucinated_call",  # a call of a tool that is not offered, then an answer
    "empty",  # no content, no tool calls
    "not_a_completion",  # a 200 whose body has no choices
    "always_500",  # the server is broken for this episode
    "always_slow",  # every attempt times out
)


class FaultServer:
    """The fake's handler: which fault an episode gets is read from the request's `seed` (the episode seed)."""

    def __init__(self, faults_by_seed: dict[int, str]):
        self.faults = faults_by_seed
        self.attempts: Counter = Counter()  # (seed, messages so far) -> requests seen
        self.lock = threading.Lock()

    def __call__(self, body: dict) -> Reply:
        seed, messages = body.get("seed"), body.get("messages") or []
        fault = self.faults[seed]
        with self.lock:
            self.attempts[seed, len(messages)] += 1
            attempt = self.attempts[seed, len(messages)]
        answered = any(m["role"] == "tool" for m in messages)  # a second round: answer in text
        if fault == "flaky_500" and attempt <= 2:
            return Reply(500, {"error": "overloaded"})
        if fault == "slow_once" and attempt == 1:
            return Reply(body=completion("too late"), delay=BACKEND_TIMEOUT * 2)
        if fault == "always_slow":
            return Reply(body=completion("too late"), delay=BACKEND_TIMEOUT * 2)
        if fault == "always_500":
            return Reply(503 if attempt % 2 else 500, {"error": "down"})
        if fault == "not_a_completion":
            return Reply(body={"object": "chat.completion", "choices": []})
        if fault == "empty":
            return Reply(body=completion(None))
        if fault == "malformed_call" and not answered:
            first = body["tools"][0]["function"]["name"]
            return Reply(body=completion(None, [tool_call(first, '{"order_id": ', "bad_1")], "tool_calls"))
        if fault == "hallucinated_call" and not answered:
            call = tool_call("launch_rockets", {"count": 3}, "bad_2")
            return Reply(body=completion(None, [call], "tool_calls"))
        return Reply(body=completion("I have looked into it; all done."))


@pytest.fixture
def fake():
    server = start_llm_fake()
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.timeout(120)
def test_every_episode_under_injected_faults_ends_as_a_trajectory_with_its_reason(tasks, fake, tmp_path):
    trials = 2
    ids = list(tasks.load("tasks", "train")["task_id"])
    jobs = [(tid, k) for tid in ids for k in range(trials)]
    fault_of = {(tid, k): FAULTS[i % len(FAULTS)] for i, (tid, k) in enumerate(jobs)}
    by_seed = {episode_seed(0, tid, k): f for (tid, k), f in fault_of.items()}
    assert len(by_seed) == len(jobs)  # seeds tell the episodes apart
    fake.handler = FaultServer(by_seed)
    agent = {
        "kind": "endpoint",
        "base_url": fake.url,
        "model": "fake-model",
        "timeout": BACKEND_TIMEOUT,
        "max_retries": 2,
    }
    start = time.perf_counter()
    traj = rollout(tasks, RolloutConfig(agent=agent, trials=trials, concurrency=8), tmp_path / "trajectories")
    assert time.perf_counter() - start < 60
    rows = {r["trajectory_id"]: r for r in _rows(traj)}
    assert sorted(rows) == sorted(f"{tid}#{k}" for tid, k in jobs)  # exactly tasks x trials, none lost
    got: dict[str, Counter] = {}
    for (tid, k), fault in fault_of.items():
        row = rows[f"{tid}#{k}"]
        got.setdefault(fault, Counter())[row["status"]] += 1
        assert row["agent"]["model"] == "fake-model" and row["agent"]["timeout"] == BACKEND_TIMEOUT
        assert row["messages"][1]["role"] == "user"  # the conversation is kept, failed or not
        codes = [c["code"] for c in row["calls"]]
        if fault in ("always_500", "always_slow", "not_a_completion"):
            cause = {
                "always_500": "HTTP 50",
                "always_slow": f"timed out after {BACKEND_TIMEOUT:g} s",
                "not_a_completion": "invalid response: no choices",
            }[fault]
            assert (row["status"], row["failure_cause"]) == ("agent_error", "agent"), row["error"]
            assert cause in row["error"] and fake.url in row["error"], row["error"]
            attempts = "after 1 attempt" if fault == "not_a_completion" else "after 3 attempts"
            assert attempts in row["error"], row["error"]  # retried, or not (a bad body is no transient)
            assert [m["role"] for m in row["messages"]] == ["system", "user"]
            assert row["final_answer"] == "" and row["final_state_hash"]
        else:
            assert (row["status"], row["error"]) == ("completed", None), (fault, row["error"])
            assert row["messages"][-1]["role"] == "user" and STOP in row["messages"][-1]["content"]
        if fault in ("flaky_500", "slow_once", "ok"):
            assert row["final_answer"] == "I have looked into it; all done." and codes == []
        if fault == "malformed_call":
            assert codes == ["invalid_arguments"] and row["calls"][0]["arguments"] == '{"order_id": '
            assert "not valid JSON" in row["calls"][0]["error"]
        if fault == "hallucinated_call":
            assert codes == ["unknown_tool"] and row["calls"][0]["tool"] == "launch_rockets"
            assert "unknown tool 'launch_rockets'" in row["calls"][0]["error"]
        if fault == "empty":
            assert row["messages"][2] == {"role": "assistant", "content": ""} and row["final_answer"] == ""
    for fault in FAULTS:
        assert got[fault], f"no episode had the fault {fault}"
    # what the server saw: two 500s then an answer; a slow reply, then the retry
    seeds = {f: [s for s, g in by_seed.items() if g == f] for f in FAULTS}
    assert all(fake.handler.attempts[s, 2] >= 3 for s in seeds["flaky_500"])
    assert all(fake.handler.attempts[s, 2] >= 2 for s in seeds["slow_once"])
    # the client made 3 attempts (its error says so, above); the server answered at least those that failed
    # fast (the HTTP stack may re-send one on a connection the server closed under load). An attempt the
    # client abandoned at its timeout may not have reached the fake's handler yet: counted client-side only.
    assert all(fake.handler.attempts[s, 2] >= 3 for s in seeds["always_500"]), {
        s: fake.handler.attempts[s, 2] for s in seeds["always_500"]
    }
    assert all(fake.handler.attempts[s, 2] >= 1 for s in seeds["always_slow"])
    stats = traj.manifest["stats"]
    assert stats["episodes"] == len(jobs) and sum(stats["per_status"].values()) == len(jobs)
    assert stats["failure_causes"] == {"agent": sum(got[f]["agent_error"] for f in FAULTS)}

    filtered = filter_trajectories(traj, FilterConfig(levels=["ended", "format", "schema"]), tmp_path / "f")
    checked = {r["trajectory_id"]: r for r in _rows(filtered, "filtered") + _rows(filtered, "rejected")}
    assert sorted(checked) == sorted(rows)
    for (tid, k), fault in fault_of.items():
        row = checked[f"{tid}#{k}"]
        bad_call = fault in ("malformed_call", "hallucinated_call")
        assert row["check_schema"] is (not bad_call), fault
        # arguments are kept as the text the model wrote; a failed first request leaves no assistant turn
        assert row["check_format"] is (fault != "malformed_call" and row["status"] == "completed"), fault
        assert row["check_ended"] is (row["status"] == "completed"), fault
        if bad_call or row["status"] != "completed":
            assert not row["passed"] and row["failed_checks"]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("down", ["always_500", "connection_refused"])
def test_an_agent_server_that_is_down_fails_every_episode_with_its_reason_and_the_run_commits(
    tasks, fake, tmp_path, down
):
    if down == "always_500":
        fake.handler = lambda body: Reply(500, {"error": "down"})
        url, cause = fake.url, "HTTP 500"
    else:  # nothing listens on the port any more
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            url, cause = f"http://127.0.0.1:{sock.getsockname()[1]}/v1", "Cannot connect"
    agent = {"kind": "endpoint", "base_url": url, "model": "m", "max_retries": 1, "timeout": 2.0}
    traj = rollout(tasks, RolloutConfig(agent=agent, max_tasks=4, trials=2), tmp_path / "trajectories")
    rows = _rows(traj)
    assert len({r["trajectory_id"] for r in rows}) == len(rows) == 8
    for row in rows:
        assert (row["status"], row["failure_cause"]) == ("agent_error", "agent")
        assert "after 2 attempts" in row["error"] and cause in row["error"] and url in row["error"], row[
            "error"
        ]
    stats = traj.manifest["stats"]
    assert stats["per_status"] == {"agent_error": 8} and stats["failed"] == 8
    if down == "always_500":
        assert len(fake.requests) == 16  # every episode tried twice


@pytest.mark.timeout(120)
def test_forty_episodes_of_malformed_replies_each_end_with_the_reply_quoted_and_the_pool_closes(
    tasks, fake, tmp_path
):
    shapes = sorted(MALFORMED_BODIES)
    served = itertools.count()
    fake.handler = lambda body: Reply(body=MALFORMED_BODIES[shapes[next(served) % len(shapes)]])
    agent = {"kind": "endpoint", "base_url": fake.url, "model": "m", "max_retries": 0, "timeout": 5.0}
    trials = -(-40 // len(_task_rows(tasks)))
    traj = rollout(
        tasks, RolloutConfig(agent=agent, trials=trials, concurrency=16), tmp_path / "trajectories"
    )
    rows = _rows(traj)
    assert len(rows) >= 40 and len({r["trajectory_id"] for r in rows}) == len(rows)
    for row in rows:
        assert (row["status"], row["failure_cause"]) == ("agent_error", "agent"), row["error"]
        assert "invalid response" in row["error"] and len(row["error"]) < 1500, row["error"]
    assert traj.manifest["stats"]["per_status"] == {"agent_error": len(rows)}


def test_closing_a_pool_whose_build_was_cancelled_does_not_raise(tasks):
    envs = load_dataset(  # the environments the tasks were made from
        "parquet",
        data_files=str(Path(tasks.location).parent / "environments/versions/v1/environments/*.parquet"),
    )["train"]
    with concurrent.futures.ThreadPoolExecutor(1) as executor:
        blocker = executor.submit(time.sleep, 0.5)  # the build waits behind it, so it can be cancelled
        pool = EnvironmentPool(envs, executor=executor)
        env = pool.acquire(envs[0]["name"], 0)
        assert env.ready.cancel()
        pool.release(env)
        pool.close()  # raised CancelledError from future.exception() before
        blocker.result()


@pytest.mark.timeout(60)
def test_a_user_simulator_whose_server_is_down_is_a_user_failure(tasks, fake, tmp_path):
    fake.handler = lambda body: Reply(500, {"error": "down"})
    user = {"kind": "endpoint", "base_url": fake.url, "model": "user-model", "max_retries": 0, "timeout": 2.0}
    traj = rollout(tasks, RolloutConfig(user=user, max_tasks=3), tmp_path / "trajectories")
    rows = _rows(traj)
    assert len(rows) == 3
    for row in rows:
        assert (row["status"], row["failure_cause"]) == ("user_error", "user")
        assert row["error"].startswith("user_backend_error: ") and "HTTP 500" in row["error"]
        assert row["messages"][-1]["role"] == "assistant"  # the agent's turn is kept
    assert traj.manifest["stats"]["user_caused_share_of_failed"] == 1.0
    assert all(not req["body"].get("tools") for req in fake.requests)  # the user is offered no tools


# ---------------------------------------------------------------------------------------------------------------
# kill -9 in the middle of a run, several times, then run to completion.

QUESTIONS = 8  # the fake agent asks this many questions per episode before it answers (max_turns is 10)


def _chatty_agent(body: dict) -> Reply:
    """Asks `QUESTIONS` questions (the scripted user says go ahead), then answers; 30-80 ms per reply."""
    users = sum(m["role"] == "user" for m in body["messages"])
    digest = hashlib.blake2b(json.dumps(body["messages"]).encode(), digest_size=2).digest()
    delay = 0.03 + 0.05 * int.from_bytes(digest, "big") / 65535
    text = "Shall I go on?" if users <= QUESTIONS else "All done."
    return Reply(body=completion(text), delay=delay)


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_rollout_killed_at_random_points_resumes_to_exactly_the_episodes_asked_for(tasks, fake, tmp_path):
    fake.handler = _chatty_agent
    out = tmp_path / "trajectories"
    agent = f"kind=endpoint,base_url={fake.url},model=fake,max_retries=0"
    command = [sys.executable, "-m", "envscale.cli", "rollout", "--input", tasks.location]
    command += ["--output", str(out), "--agent", agent, "--concurrency", "4", "--trials", "2"]
    command += ["--max-turns", "20"]  # the questions, and a conversation's next requests
    env = os.environ | {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    n_tasks = tasks.splits["tasks"]["train"]
    expected = sorted(f"{tid}#{k}" for tid in tasks.load("tasks", "train")["task_id"] for k in range(2))
    rng = random.Random(1234)
    done_after_kill = []
    log = tmp_path / "rollout.log"
    for stop in (signal.SIGINT, signal.SIGKILL, signal.SIGKILL):  # Ctrl-C once, then kill -9
        seen = len(fake.requests)
        with log.open("ab") as err:
            process = subprocess.Popen(command, cwd=REPO, env=env, stdout=err, stderr=err)
        try:
            deadline = time.monotonic() + 60
            while len(fake.requests) == seen and process.poll() is None:  # wait for episodes in flight
                assert time.monotonic() < deadline, log.read_text()[-3000:]
                time.sleep(0.01)
            time.sleep(rng.uniform(0.3, 1.5))
        finally:
            process.send_signal(stop)
            try:
                code = process.wait(60)
            except subprocess.TimeoutExpired:
                process.kill()
                raise
        if stop == signal.SIGINT and code != 0:  # stopped in the middle: a clean exit that says how to resume
            assert code in (130, -signal.SIGINT), log.read_text()[-3000:]
            assert "interrupted; re-run the same command to resume" in log.read_text()
        parts = list(out.glob(f".staging/*/_parts/{PARTS_FILE}"))
        done_after_kill.append(len(parts[0].read_bytes().splitlines()) if parts else 0)
    # at least one kill landed in the middle of the run (not all before the first episode, not after the last)
    assert any(0 < n < 2 * n_tasks for n in done_after_kill), done_after_kill
    final = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=180)
    assert final.returncode == 0, final.stderr[-3000:]
    rows = list(load_dataset(str(out), "trajectories", split="train"))
    ids = [r["trajectory_id"] for r in rows]
    assert len(ids) == len(set(ids)) and sorted(ids) == expected
    # every episode was played whole: none was cut short by a kill and kept
    assert {r["status"] for r in rows} == {"completed"}
    by_id = _task_rows(tasks)
    for r in rows:  # the questions and the answer, then an answer to each next request of a conversation
        later = max(len(by_id[r["task_id"]]["requests"] or []) - 1, 0)
        assert len(r["messages"]) == 2 + 2 * (QUESTIONS + 1) + 2 * later, r["trajectory_id"]
    assert all(r["final_answer"] == "All done." for r in rows)


# ---------------------------------------------------------------------------------------------------------------
# Bugs found by these tests, fixed: each test keeps its fix in place.


def test_the_filter_judges_the_state_the_episode_reached_not_calls_it_refused(tasks):
    import asyncio

    from envscale.artifacts import resolve_input
    from envscale.env import Environment
    from envscale.judge import check_trajectory, reset_env
    from envscale.llm import ChatResult, ToolCall
    from envscale.rollout.episode import run_episode, write_tool_names
    from envscale.rollout.scripted import ScriptedUser

    envs = {r["name"]: r for r in resolve_input(tasks, "environments").load("environments")}
    writes = {name: write_tool_names(Environment.from_row(row).spec) for name, row in envs.items()}
    rows = list(tasks.load("tasks", "train"))
    # a task that needs a change, and a valid write of another task on a tool this one does not offer
    pairs = [
        (task, other["gold_calls"][-1])
        for task in rows
        if task["scoring"]["state"]
        and task["kind"] != "policy"
        and not task["instructions"].get("hidden_facts")
        for other in rows
        if other["environment"] == task["environment"]
        and other["seed"] == task["seed"]
        and other["gold_calls"][-1]["tool"] not in task["tools"]
        and other["gold_calls"][-1]["tool"] in writes[task["environment"]]
    ]
    assert pairs, "the fixture tasks have no such pair"
    task, stray = pairs[0]

    class Agent:  # the gold calls, plus one call of a tool it was not offered; then it answers
        turns = 0

        async def complete(self, messages, tools=None):
            self.turns += 1
            if self.turns > 1:
                return ChatResult(" ".join(map(str, task["answer_facts"])) or "Done.", [], "stop", None, 0.0)
            calls = [*task["gold_calls"], stray]
            made = [
                ToolCall(f"c{i}", c["tool"], c["arguments"], json.dumps(c["arguments"]))
                for i, c in enumerate(calls)
            ]
            return ChatResult(None, made, "tool_calls", None, 0.0)

    env = Environment.from_row(envs[task["environment"]])
    reset_env(env, task["seed"])
    episode = asyncio.run(run_episode(task, env, Agent(), ScriptedUser(task, None)))
    assert [c["code"] for c in episode["calls"]][-1] == "unknown_tool"  # refused: it never ran
    assert episode["final_state_hash"] == task["gold_state_hash"]  # the episode reached the gold state
    checks = check_trajectory(episode, task, Environment.from_row(envs[task["environment"]]))
    assert checks["state"] is True  # the replay leaves out what the episode refused


@pytest.mark.parametrize(
    "setting", [{"api_key": "rotated"}, {"timeout": 600.0}, {"max_retries": 9}, {"base_url": "http://h:1/v1"}]
)
def test_settings_that_do_not_change_the_episodes_do_not_break_resume(setting):
    agent = {"kind": "endpoint", "base_url": "http://127.0.0.1:8000/v1", "model": "m", "api_key": "key"}
    assert RolloutConfig(agent=agent).fingerprint("k") == RolloutConfig(agent=agent | setting).fingerprint(
        "k"
    )


@pytest.mark.timeout(120)
def test_a_reply_of_5000_tool_calls_runs_only_the_first_max_calls_per_reply(tasks, fake, tmp_path):
    task = next(iter(_task_rows(tasks).values()))
    tool = json.loads(task["tools"])[0] if isinstance(task["tools"], str) else task["tools"][0]
    name = tool if isinstance(tool, str) else tool.get("name") or tool["function"]["name"]
    flood = [tool_call(name, {}, call_id=f"c{i}") for i in range(5000)]
    replies = iter([Reply(body=completion(None, flood, "tool_calls"))])
    fake.handler = lambda body: next(replies, Reply(body=completion("Done.")))
    agent = {"kind": "endpoint", "base_url": fake.url, "model": "m", "max_retries": 0, "timeout": 30.0}
    config = RolloutConfig(agent=agent, max_tasks=1, max_calls_per_reply=10)
    (row,) = _rows(rollout(tasks, config, tmp_path / "trajectories"))
    codes = Counter(c["code"] for c in row["calls"])
    assert len(row["calls"]) == 5000 and codes["too_many_calls"] == 4990, codes
    assert all(c["code"] != "too_many_calls" for c in row["calls"][:10])
    tool_messages = [m for m in row["messages"] if m["role"] == "tool"]
    assert len(tool_messages) == 5000  # every call is answered, so the conversation stays well-formed
    assert "not run: more than 10 tool calls in one reply" in tool_messages[-1]["content"]
