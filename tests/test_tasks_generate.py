"""Acceptance: real tasks from real environments replay to their gold state, and doing nothing fails them.

The environments come from the real pipeline (collect -> graph -> materialize) over the shop's
OpenAPI spec and the BFCL-style fixture docs; every kept task's gold calls are replayed on a fresh
environment built from its dataset row and must reach the gold state hash, and the empty
trajectory (no calls; the first message as the final answer) must fail every kept task.
"""

import json
import random

import pytest

from envscale.env import Environment
from envscale.judge import score_trajectory
from envscale.tasks.build import TasksConfig, generate_tasks
from envscale.tasks.generate import env_tasks


@pytest.fixture(scope="module")
def environments(fixture_environments):
    return fixture_environments


@pytest.fixture(scope="module")
def tasks(environments, tmp_path_factory):
    return generate_tasks(environments, TasksConfig(tasks_per_env=12), tmp_path_factory.mktemp("t") / "tasks")


def _rows(art, split):
    return list(art.load("tasks", split=split))


def test_every_kept_task_replays_to_its_gold_state_and_the_empty_trajectory_fails_it(environments, tasks):
    envs = {r["name"]: r for r in environments.load("environments")}
    rows = _rows(tasks, "train") + _rows(tasks, "test")
    assert len(rows) >= 10
    for task in rows:
        env = Environment.from_row(envs[task["environment"]])
        calls = [{"tool": c["tool"], "arguments": c["arguments"]} for c in task["gold_calls"]]
        answer = " ".join(task["answer_facts"])
        if task["kind"] == "policy":  # the gold answer of a policy task is a refusal citing its rule
            answer = f"I can't do that: {task['policy']['task_rule']['text']}. {answer}"
        gold = score_trajectory(task, env, calls, final_answer=answer)
        assert gold["passed"], (task["task_id"], gold)
        if task["scoring"]["state"]:
            assert gold["state_hash"] == task["gold_state_hash"]
        empty = score_trajectory(task, env, [], final_answer=task["first_message"])
        assert not empty["passed"], (task["task_id"], task["kind"])


def test_the_card_counts_the_codes_of_the_rejected_rows(tasks):
    """Every rejected candidate carries the short code of the check that dropped it, its reason starts with
    that code, and the card's statistics (and table) count the codes, not the sentences."""
    from collections import Counter
    from pathlib import Path

    rejected = list(tasks.load("rejected"))
    assert rejected, "the fixture environments always drop some candidates"
    codes = Counter(r["code"] for r in rejected)
    assert all(r["reason"].startswith(f"{r['code']}: ") for r in rejected)
    assert all(code and code.replace("_", "").isalpha() and code.islower() for code in codes), codes
    stats = tasks.manifest["stats"]["drop_reasons"]
    assert stats == dict(codes.most_common(30))
    card = (Path(tasks.location) / "README.md").read_text()
    code, n = codes.most_common(1)[0]
    assert f"| `{code}` | {n} |" in card


def test_every_kind_is_posed_and_writes_mean_what_was_asked(environments, tasks):
    rows = _rows(tasks, "train") + _rows(tasks, "test")
    kinds = {r["kind"] for r in rows}
    assert {"read", "write", "policy"} <= kinds
    for task in rows:
        if task["kind"] == "policy":  # refused: the state is unchanged and the write is forbidden
            assert task["gold_diff"] == {} and task["scoring"]["forbidden_actions"]
        for call in task["gold_calls"]:
            for arg, source in call["provenance"].items():
                assert source in ("user", "constant") or source.startswith("call["), (arg, source)
        cancels = [c for c in task["gold_calls"] if c["tool"] == "cancel_order"]
        if cancels and task["kind"] in ("write", "mixed", "missing_info"):
            changed = [ch["after"]["status"] for ch in task["gold_diff"].get("orders", {}).get("changed", [])]
            assert changed == ["cancelled"] * len(cancels)  # a conversation may cancel two orders


def test_same_seed_same_tasks(environments):
    row = next(r for r in environments.load("environments") if "orders" in r["tables"])
    config = TasksConfig(tasks_per_env=8)
    a, _ = env_tasks(row, config, [], random.Random(5))
    b, _ = env_tasks(row, config, [], random.Random(5))
    assert [t["gold_calls"] for t in a] == [t["gold_calls"] for t in b]
    assert [t["first_message"] for t in a] == [t["first_message"] for t in b]


def test_a_broken_environment_row_is_a_recorded_drop_and_the_others_keep_their_tasks(environments, tmp_path):
    from envscale.artifacts import ArtifactWriter, open_artifact
    from envscale.schemas import ENVIRONMENTS

    rows = list(environments.load("environments"))
    broken = dict(rows[0], name="broken_env", spec={**rows[0]["spec"], "tables": "not a mapping"})
    with ArtifactWriter(tmp_path / "envs", ENVIRONMENTS, "fp", config={}, inputs=[]) as writer:
        shards = writer.shard_writer("environments")
        for row in [broken, *rows]:
            shards.write(row)
        writer.shard_writer("rejected").close()
        writer.commit({"environments": shards.close(), "rejected": 0}, stats=environments.manifest["stats"])
    art = generate_tasks(open_artifact(tmp_path / "envs"), TasksConfig(tasks_per_env=4), tmp_path / "tasks")
    rejected = list(art.load("rejected"))
    assert any(r["environment"] == "broken_env" for r in rejected)
    kept = {r["environment"] for r in _rows(art, "train") + _rows(art, "test")}
    assert kept and "broken_env" not in kept


def test_with_an_llm_endpoint_every_rewrite_is_checked_and_a_bad_one_keeps_the_template(environments):
    """Over a real loopback OpenAI-compatible fake: the stage asks the model once per task, and an
    answer that is not the asked-for JSON is refused, so the template's wording stays."""
    from llmfake import Reply, completion, start_llm_fake

    from envscale.tasks.generate import Rewriter

    fake = start_llm_fake()
    calls = []

    def handler(body):
        calls.append(body)
        return Reply(body=completion("Sure! I rewrote it."))

    fake.handler = handler
    try:
        row = next(r for r in environments.load("environments") if "orders" in r["tables"])
        config = TasksConfig(tasks_per_env=4, llm_base_url=fake.url, llm_model="fake-model")
        rewriter = Rewriter(config.llm_config())
        try:
            kept, _ = env_tasks(row, config, [], random.Random(1), rewrite=rewriter)
        finally:
            rewriter.close()
    finally:
        fake.stop()
    # one request per one-request task; a conversation is composed of rewritten ones (their notes with
    # "request N: " before them) and asks for none
    singles = [t for t in kept if not t["requests"]]
    assert kept and len(calls) >= len(singles)
    notes = [n for t in singles for n in t["notes"] if "template's wording" in n]
    assert len(notes) == len(singles) and all("rewrite failed" not in n for n in notes), notes


def test_a_duplicate_candidate_is_dropped_before_its_rewrite_is_asked(environments):
    """A rewrite costs a request: a candidate whose calls repeat an earlier task's is dropped first."""
    asked, env = [], {}

    def rewrite(instructions, draft):
        calls = [[c.tool, c.arguments] for c in draft.calls]
        asked.append(json.dumps([env["name"], calls], sort_keys=True, default=str))
        return instructions, "kept for the test"

    config = TasksConfig(tasks_per_env=8)
    dropped = 0
    for row in environments.load("environments"):
        env["name"] = row["name"]
        _, rejected = env_tasks(row, config, [], random.Random(1), rewrite=rewrite)
        dropped += sum(r["code"] == "exact_duplicate" for r in rejected)
    assert dropped > 0, "the fixture environments make duplicates"  # the check below means something
    assert len(asked) == len(set(asked))  # no exact duplicate (in its environment) was sent to the rewrite


@pytest.mark.parametrize(
    ("gate", "code"),
    [
        ("empty_passes", "empty_passes"),
        ("leaks", "gold_tool_named"),
        ("replay_differs", "replay_differs"),
    ],
)
def test_the_generator_runs_every_gate(environments, monkeypatch, gate, code):
    """A gate that refuses every candidate leaves no task and a rejected row per candidate with its
    code: the gate is wired into the generator, not only tested on its own."""
    import envscale.tasks.generate as generate

    monkeypatch.setattr(generate, gate, lambda *a, **k: (code, "x"))
    row = next(r for r in environments.load("environments") if "orders" in r["tables"])
    kept, rejected = env_tasks(row, TasksConfig(tasks_per_env=4), [], random.Random(0))
    assert kept == []
    assert any(r["code"] == code and r["reason"] == f"{code}: x" for r in rejected)


def test_the_generator_drops_duplicates(environments, monkeypatch):
    import envscale.tasks.generate as generate

    class Always(generate.Deduper):
        def seen(self, *args, **kwargs):
            return "exact_duplicate", "of task #0"

    monkeypatch.setattr(generate, "Deduper", Always)
    row = next(r for r in environments.load("environments") if "orders" in r["tables"])
    kept, rejected = env_tasks(row, TasksConfig(tasks_per_env=4), [], random.Random(0))
    assert kept == [] and any(r["reason"] == "exact_duplicate: of task #0" for r in rejected)


def test_requests_with_values_that_do_not_fit_their_column_are_dropped(environments):
    """A user would never say `start_date: "discuss"`; an answer that is an address in `email` is not asked."""
    from envscale.tasks.asks import askable, filler_fact
    from envscale.tasks.model import GoldCall, TaskDraft
    from envscale.tasks.prepared import Env

    assert not askable("contacts", "email", "5423 Kim Boulevard, Tampa, FL 37173")
    assert askable("contacts", "email", "kim@example.com") and askable("orders", "status", "shipped")
    row = next(r for r in environments.load("environments") if "orders" in r["tables"])
    e = Env(row, TasksConfig())
    tool = next(t for t in row["spec"]["tools"] if t["name"] == "get_order")
    bad = TaskDraft(
        e.spec["name"], "read", [GoldCall(tool["name"], {"order_id": "compact jacket"}, {"order_id": "user"})]
    )
    good = TaskDraft(
        e.spec["name"], "read", [GoldCall(tool["name"], {"order_id": "ord_0003"}, {"order_id": "user"})]
    )
    assert filler_fact(e, bad)[0] == "filler_value" and filler_fact(e, good) is None
    e.env.close()


def test_a_token_a_service_issues_is_no_value_a_user_dictates(environments):
    """Seed 93's readers: "update its payment token to yrSjWVoafKndxAxwetFFkyBkcFqfUcY9xSKdmugZ": no traveller
    reads a 40-character token out. A user's value that is such a token drops the task; a GUID, a name or an
    email does not."""
    from envscale.tasks.asks import filler_fact
    from envscale.tasks.model import GoldCall, TaskDraft
    from envscale.tasks.naming import opaque
    from envscale.tasks.prepared import Env

    assert opaque("yrSjWVoafKndxAxwetFFkyBkcFqfUcY9xSKdmugZ")
    assert opaque("77ba3b02c4e1f9aa51d0")  # a hex key (seed 94's readers: "values to key 77ba3b02...")
    for said in (
        "b18a311c-b981-4f32-8f79-c08ad7790008",
        "rg-billing-prod-15",
        "laura.thompson02",
        "INV-2025-0001",
    ):
        assert not opaque(said), said
    row = next(r for r in environments.load("environments") if "orders" in r["tables"])
    e = Env(row, TasksConfig())
    tool = next(t for t in row["spec"]["tools"] if t["name"] == "get_order")
    token = "yrSjWVoafKndxAxwetFFkyBkcFqfUcY9xSKdmugZ"
    said = TaskDraft(
        e.spec["name"], "read", [GoldCall(tool["name"], {"order_id": token}, {"order_id": "user"})]
    )
    assert filler_fact(e, said) == (
        "filler_value",
        f"get_order.order_id = {token!r} is a token no one dictates",
    )
    # the new value a write sets too (seed 93's final run: "set its payment token to hbHsgvxN59vdE4sA...")
    said.calls[0].provenance["order_id"] = "constant"
    assert filler_fact(e, said) is not None and "token" in filler_fact(e, said)[1]
    e.env.close()


def test_one_failing_candidate_costs_only_itself(environments, monkeypatch):
    import envscale.tasks.generate as generate

    real, calls = generate.execute, {"n": 0}

    def flaky(e, draft):
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("boom")
        return real(e, draft)

    monkeypatch.setattr(generate, "execute", flaky)
    row = next(r for r in environments.load("environments") if "orders" in r["tables"])
    kept, rejected = env_tasks(row, TasksConfig(tasks_per_env=4), [], random.Random(0))
    assert kept and any(r["reason"] == "candidate_failed: RuntimeError: boom" for r in rejected)


def test_the_generator_runs_the_filler_gate(environments, monkeypatch):
    import envscale.tasks.generate as generate

    monkeypatch.setattr(generate, "filler_fact", lambda e, draft: ("filler_value", "x"))
    row = next(r for r in environments.load("environments") if "orders" in r["tables"])
    kept, rejected = env_tasks(row, TasksConfig(tasks_per_env=4), [], random.Random(0))
    assert kept == [] and any(r["code"] == "filler_value" for r in rejected)


def test_kept_tasks_never_ask_for_what_a_person_would_not_say_and_their_chains_agree(environments, tasks):
    """Over every kept task of the real pipeline: no placeholder argument (`optional_param`), no name
    argument holding a key (`project_name: "pro_0008"`), and every argument of a later call that names a
    field of an earlier result row (bound to no column of its own) has that row's value."""
    from envscale.tasks.asks import KEY_SHAPE
    from envscale.tasks.gold import matching_field
    from envscale.tasks.naming import tool_bindings
    from envscale.tasks.wording import is_placeholder

    specs = {r["name"]: r["spec"] for r in environments.load("environments")}
    rows = _rows(tasks, "train") + _rows(tasks, "test")
    for task in rows:
        spec = specs[task["environment"]]
        tools = {t["name"]: t for t in spec["tools"]}
        results = task["gold_results"]
        for i, call in enumerate(task["gold_calls"]):
            binds = tool_bindings(tools[call["tool"]])
            for arg, value in call["arguments"].items():
                assert not is_placeholder(arg), (task["task_id"], arg)
                if arg.lower().endswith("name") and isinstance(value, str):
                    assert not KEY_SHAPE.match(value), (task["task_id"], arg, value)
                if arg in binds:
                    continue
                for earlier in results[:i]:
                    row = earlier[0] if isinstance(earlier, list) and len(earlier) == 1 else earlier
                    field = matching_field(arg, row) if isinstance(row, dict) else None
                    if field is not None and row[field] is not None:
                        assert value == row[field], (task["task_id"], arg, value, field, row[field])


def test_an_llm_that_fails_every_rewrite_keeps_every_task_counts_them_and_says_so(
    environments, tmp_path, caplog
):
    """Over a loopback FAKE OpenAI-compatible server answering malformed replies and errors: every task is
    kept with the template's wording, the stage's stats count the failed rewrites, and one warning says so."""
    from llmfake import Reply, start_llm_fake
    from test_llm import MALFORMED_BODIES

    bad = [Reply(body=b) for b in MALFORMED_BODIES.values()] + [Reply(500, {"error": "down"})]
    served = iter(range(10**6))
    fake = start_llm_fake()
    fake.handler = lambda body: bad[next(served) % len(bad)]
    config = TasksConfig(
        tasks_per_env=4, test_env_share=0.0, llm_base_url=fake.url, llm_model="m", llm_max_retries=0
    )
    try:
        with caplog.at_level("WARNING", logger="envscale.tasks.build"):
            art = generate_tasks(environments, config, tmp_path / "tasks")
    finally:
        fake.stop()
    offline = generate_tasks(
        environments, TasksConfig(tasks_per_env=4, test_env_share=0.0), tmp_path / "offline"
    )
    assert sorted(t["task_id"] for t in _rows(art, "train")) == sorted(
        t["task_id"] for t in _rows(offline, "train")
    )
    rewrites = art.manifest["stats"]["rewrites"]
    assert rewrites["failed"] == rewrites["asked"] > 0 and rewrites["used"] == 0, rewrites
    said = [r.getMessage() for r in caplog.records if "LLM rewrites failed" in r.getMessage()]
    assert len(said) == 1 and f"{rewrites['failed']} of {rewrites['asked']}" in said[0], said


def test_every_flowing_argument_is_the_value_its_provenance_reads_in_the_gold_results(tasks):
    """A gold call's argument that flows from an earlier result (`call[i]...`) holds exactly what that path
    reads in the task's own gold results: in one-request tasks and in conversations alike."""
    from envscale.judge.provenance import PREFIX, resolve_provenance

    rows = _rows(tasks, "train") + _rows(tasks, "test")
    checked = 0
    for task in rows:
        results = task["gold_results"]
        results = json.loads(results) if isinstance(results, str) else results
        for call in task["gold_calls"]:
            for arg, source in (call.get("provenance") or {}).items():
                if isinstance(source, str) and source.startswith(PREFIX):
                    assert call["arguments"][arg] == resolve_provenance(source, results), (
                        task["task_id"],
                        arg,
                    )
                    checked += 1
    assert checked >= 10 and any(t["requests"] for t in rows)
