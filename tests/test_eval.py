"""`envscale eval` on held-out tasks: real tasks from the real pipeline, agents played through the rollout stage.

The tasks come from collect -> graph -> materialize -> tasks over the shop's OpenAPI spec and the BFCL-style
fixture docs, with a seed whose split holds both held-out tasks of training environments and an environment
held out whole. A noise-free scripted agent must score 100%, the scripted agent that always gives up 0%;
pass^k is checked on hand-made numbers; the before/after table, the report, the card and `envscale show
eval` are read as a person would.
"""

import json

import pytest
from datasets import load_dataset

from envscale.artifacts import ArtifactWriter
from envscale.cli import main
from envscale.errors import ArtifactError
from envscale.evaluation.metrics import comparison, pass_hat_k, summarize, summary_rows
from envscale.evaluation.run import EvalConfig, evaluate
from envscale.rollout.run import RolloutConfig
from envscale.schemas import TASKS
from envscale.stages.eval import agent_flags
from envscale.tasks.build import TasksConfig, generate_tasks, held_out

PERFECT = {"kind": "scripted"}
GIVE_UP = {"kind": "scripted", "noise": {"give_up": 1.0}}


@pytest.fixture(scope="module")
def envs(fixture_environments):
    return fixture_environments


@pytest.fixture(scope="module")
def tasks(envs, tmp_path_factory):
    # seed 12: a test split with test tasks of training environments, one world held out whole and every kind of
    # task (function sets get no tasks; seed 2 held out a world where no journey is posed, once tasks named rows by
    # what a person knows; seed 9's test split held only reads and writes once branches stopped asking "when it
    # was updated")
    config = TasksConfig(tasks_per_env=14, test_env_share=0.3, test_task_share=0.3, seed=12)
    return generate_tasks(envs, config, tmp_path_factory.mktemp("tasks") / "tasks")


@pytest.fixture(scope="module")
def before_after(tasks, tmp_path_factory):
    config = EvalConfig(agents={"before": GIVE_UP, "after": PERFECT}, trials=2)
    return evaluate(tasks, config, tmp_path_factory.mktemp("ba") / "eval")


def _summary(art) -> list[dict]:
    return list(load_dataset(art.location, "summary", split="train"))


def _overall(art, agent: str) -> dict:
    return next(s for s in _summary(art) if s["agent"] == agent and s["group_by"] == "overall")


# ----------------------------------------------------------------------------- metrics by hand


def test_pass_hat_k_on_a_hand_example():
    # 4 trials, 2 successes: pass^1 = 2/4, pass^2 = C(2,2)/C(4,2) = 1/6, pass^3 = 0
    assert pass_hat_k(4, 2, 1) == 0.5
    assert pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)
    assert pass_hat_k(4, 2, 3) == 0.0
    assert pass_hat_k(3, 3, 3) == 1.0
    with pytest.raises(ValueError, match="k <= n"):
        pass_hat_k(2, 1, 3)
    # averaged over tasks: task a 2/2 (pass^2 1), task b 1/2 (pass^2 0) -> pass^1 0.75, pass^2 0.5
    rows = [
        {"id": "a", "success": True, "kind": "read"},
        {"id": "a", "success": True, "kind": "read"},
        {"id": "b", "success": True, "kind": "write"},
        {"id": "b", "success": False, "kind": "write"},
    ]
    overall = summarize(rows)["all"]
    assert overall["pass_hat"] == {"1": 0.75, "2": 0.5} and overall["pass_k"] == 0.5 and overall["k"] == 2
    per_kind = summarize(rows, "kind")
    assert per_kind["read"]["success_rate"] == 1.0 and per_kind["write"]["pass_k"] == 0.0


def test_validity_counts_calls_and_is_none_without_calls():
    rows = [
        {"id": "a", "success": True, "n_calls": 3, "n_valid_calls": 2},
        {"id": "b", "success": False, "n_calls": 1, "n_valid_calls": 1},
        {"id": "c", "success": False, "n_calls": 0, "n_valid_calls": 0},
    ]
    assert summarize(rows)["all"]["validity"] == 0.75
    assert summarize(rows[2:])["all"]["validity"] is None


def test_the_comparison_table_has_the_difference_of_the_last_agent_from_the_first():
    rows = [
        {"agent": name, "benchmark": "bfcl", "id": f"q{i}", "trial": 0, "kind": "simple", "success": ok}
        for name, wins in (("before", 1), ("after", 3))
        for i, ok in enumerate([True] * wins + [False] * (4 - wins))
    ]
    table = comparison(summary_rows(rows), ["before", "after"], "bfcl")
    assert table[0] == ["metric", "before", "after", "after - before"]
    assert table[1] == ["success", "0.250", "0.750", "+0.500"]
    assert ["success: simple", "0.250", "0.750", "+0.500"] in table


# ----------------------------------------------------------------------------- whole runs


def test_a_perfect_agent_scores_100_and_one_that_gives_up_scores_0(tasks, before_after):
    n_test = tasks.splits["tasks"]["test"]
    after, before = _overall(before_after, "after"), _overall(before_after, "before")
    assert after["items"] == before["items"] == n_test >= 5
    assert after["episodes"] == 2 * n_test  # two trials each
    assert after["success_rate"] == 1.0 and after["pass_hat"] == {"1": 1.0, "2": 1.0}
    assert after["validity"] == 1.0 and after["calls"] > 0
    assert before["success_rate"] == 0.0 and before["pass_k"] == 0.0
    results = load_dataset(before_after.location, "results", split="train")
    gave_up = [r for r in results if r["agent"] == "before"]
    assert all(r["failed_checks"] for r in gave_up)  # each failure says which check failed


def test_right_tool_and_right_call_give_partial_credit_as_a_reader_would(before_after):
    after, before = _overall(before_after, "after"), _overall(before_after, "before")
    assert after["right_tools"] == 1.0 and after["right_calls"] == 1.0  # the gold calls, every one
    assert before["right_tools"] == 0.0 and before["right_calls"] == 0.0  # gave up before any call
    table = before_after.manifest["stats"]["comparison"]
    rows = {r[0]: r for r in table}
    assert rows["right tools (Jaccard with the gold tools)"][1:] == ["0.000", "1.000", "+1.000"]


def test_gold_call_recall_counts_gold_tools_and_calls_matched_on_key_arguments():
    from envscale.judge import gold_call_recall

    gold = [
        {"tool": "list_orders", "arguments": {}},
        {"tool": "cancel_order", "arguments": {"order_id": "ord_1", "reason": "late"}},
        {"tool": "cancel_order", "arguments": {"order_id": "ord_2", "reason": "late"}},
    ]
    keys = {"list_orders": [], "cancel_order": ["order_id"]}
    made = [
        {"tool": "cancel_order", "arguments": {"order_id": "ord_1", "reason": "other words"}, "ok": True},
        {
            "tool": "cancel_order",
            "arguments": {"order_id": "ord_1"},
            "ok": True,
        },  # one gold call is matched once
        {"tool": "list_orders", "arguments": {}, "ok": False},  # refused: the right tool, not a right call
    ]
    assert gold_call_recall(made, gold, keys) == (1.0, round(1 / 3, 4))
    assert gold_call_recall(made[:2], gold, keys) == (0.5, round(1 / 3, 4))
    extra = [*made, {"tool": "delete_customer", "arguments": {"customer_id": "c1"}, "ok": True}]
    assert gold_call_recall(extra, gold, keys) == (round(2 / 3, 4), round(1 / 3, 4))  # a tool not asked for
    assert gold_call_recall([], gold, keys) == (0.0, 0.0)
    assert gold_call_recall(made, [], keys) == (None, None)


def test_results_are_grouped_per_kind_and_per_held_out_split_kind(tasks, before_after):
    test = list(tasks.load("tasks", "test"))
    train_envs = set(tasks.load("tasks", "train")["environment"])
    held = {t["environment"] for t in test if t["held_out"] == "environment"}
    assert held and held.isdisjoint(train_envs)  # as the tasks stage held them out: no training task
    rule = TasksConfig(**{k: tasks.manifest["config"][k] for k in ("seed", "test_env_share")})
    assert held == {t["environment"] for t in test if held_out(t["environment"], rule)}  # the stage's rule
    assert {t["held_out"] for t in test} == {"environment", "task"}
    results = [
        r for r in load_dataset(before_after.location, "results", split="train") if r["agent"] == "after"
    ]
    by_task = {t["task_id"]: t for t in test}
    for row in results:
        task = by_task[row["id"]]
        assert row["kind"] == task["kind"] and row["environment"] == task["environment"]
        assert row["split_kind"] == ("heldout_tasks" if task["environment"] in train_envs else "heldout_envs")
        assert (row["split_kind"] == "heldout_envs") == (task["environment"] in held)
        assert row["difficulty"] == task["difficulty"]["level"]
    assert {r["split_kind"] for r in results} == {"heldout_tasks", "heldout_envs"}, (
        "the fixture's seed no longer splits both ways"
    )
    summary = [s for s in _summary(before_after) if s["agent"] == "after"]
    kinds = {s["group"]: s for s in summary if s["group_by"] == "kind"}
    assert set(kinds) == {t["kind"] for t in test} and len(kinds) >= 3
    for kind, s in kinds.items():
        assert s["items"] == sum(1 for t in test if t["kind"] == kind)
    envs = {s["group"] for s in summary if s["group_by"] == "environment"}
    assert envs == {t["environment"] for t in test}
    assert {s["group"] for s in summary if s["group_by"] == "split_kind"} == {"heldout_tasks", "heldout_envs"}


def test_the_report_card_and_plots_show_the_before_after_table(before_after):
    from pathlib import Path

    root = Path(before_after.location)
    version = root / "versions" / before_after.version
    report = (root / "report.md").read_text()
    assert report == (version / "report.md").read_text()
    assert "| metric | before | after | after - before |" in report
    assert "| success | 0.000 | 1.000 | +1.000 |" in report
    assert "heldout_envs" in report and "Per environment" in report
    for name in ("compare.png", "per_environment.png"):
        assert (version / "plots" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"plots/{name}" in report
    card = (root / "README.md").read_text()
    assert "| success | 0.000 | 1.000 | +1.000 |" in card and "config_name: summary" in card
    n_test = _overall(before_after, "after")["items"]
    assert f"| `after` | `scripted` | {2 * n_test} | {n_test} | 1.0 | pass^2 1.0 | 1.0 |" in card
    assert "built-in method" not in card and "| n/a |" in card  # the agent that gave up made no call
    assert before_after.manifest["stats"]["rollouts"].keys() == {"before", "after"}


def test_a_second_run_reuses_the_complete_rollouts(tasks, before_after):
    from pathlib import Path

    rollouts = Path(before_after.location) / "rollouts"
    versions = sorted(p.name for p in (rollouts / "after" / "versions").iterdir())
    art = evaluate(
        tasks, EvalConfig(agents={"before": GIVE_UP, "after": PERFECT}, trials=2), before_after.location
    )
    assert sorted(p.name for p in (rollouts / "after" / "versions").iterdir()) == versions == ["v1"]
    assert art.version == "v2" and _overall(art, "after")["success_rate"] == 1.0


def test_envscale_eval_and_show_eval_print_the_table(tasks, before_after, tmp_path, capsys):
    out = tmp_path / "eval"
    code = main(
        [
            "eval",
            "--input",
            tasks.location,
            "--output",
            str(out),
            "--agent",
            "kind=scripted",
            "--max-tasks",
            "3",
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "| metric | agent |" in printed and "| success | 1.000 |" in printed
    assert main(["show", "eval", before_after.location]) == 0
    shown = capsys.readouterr().out
    assert "| success | 0.000 | 1.000 | +1.000 |" in shown and "## before" in shown


def test_repeated_named_agent_flags_give_the_before_after_table(tasks, tmp_path, capsys):
    argv = ["eval", "--input", tasks.location, "--output", str(tmp_path / "eval"), "--max-tasks", "2"]
    argv += ["--agent", "before={kind: scripted, noise: {give_up: 1.0}}", "--agent", "after=scripted"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert (
        "| metric | before | after | after - before |" in printed
        and "| success | 0.000 | 1.000 | +1.000 |" in printed
    )


def test_agent_flags_and_kind_aliases():
    assert agent_flags([["kind=scripted"]]) == {"agent": ["kind=scripted"]}
    named = agent_flags(
        [["a={kind: scripted}"], ["b=out/stage2"], ["c=kind=openai,base_url=http://h/v1,model=m"]]
    )
    assert named == {
        "agents": {
            "a": {"kind": "scripted"},
            "b": {"kind": "transformers", "model": "out/stage2"},
            "c": {"kind": "openai", "base_url": "http://h/v1", "model": "m"},
        }
    }
    # `kind: openai` is the OpenAI-compatible endpoint backend
    config = EvalConfig(**named)
    assert config.agents["c"]["kind"] == "endpoint" and config.agents["b"]["model"] == "out/stage2"
    # the alias is BackendConfig's, so rollout takes it too; a user's API key is kept (never written out)
    endpoint = {"kind": "openai", "base_url": "http://h/v1", "model": "m", "api_key": "sk-1"}
    assert RolloutConfig(agent=endpoint).agent["kind"] == "endpoint"
    with_user = EvalConfig(user=endpoint)
    assert with_user.user["api_key"] == "sk-1" and "api_key" not in with_user.public()["user"]
    with pytest.raises(ValueError, match="more than once without names"):
        agent_flags([["kind=scripted"], ["kind=scripted"]])
    with pytest.raises(ValueError, match="not both"):
        agent_flags([["kind=scripted"], ["after=scripted"]])
    with pytest.raises(ValueError, match="twice"):
        agent_flags([["a=scripted"], ["a=scripted"]])


def test_a_tiny_local_model_runs_through_the_harness(tasks, tmp_path):
    """A local `transformers` agent end to end: a tiny model that answers every turn with plain text makes no
    call, so it succeeds on no task that needs one, and its validity is n/a."""
    from tinymodel import build_tiny_chat_model

    folder = build_tiny_chat_model(tmp_path / "model", reply=["I cannot help."], max_positions=8192)
    agent = {"kind": "transformers", "model": str(folder), "max_tokens": 8}
    art = evaluate(tasks, EvalConfig(agent=agent, max_tasks=2, max_turns=2), tmp_path / "eval")
    overall = _overall(art, "agent")
    assert overall["items"] == 2 and overall["calls"] == 0 and overall["validity"] is None
    assert overall["success_rate"] == 0.0
    rows = list(load_dataset(art.location, "results", split="train"))
    assert all(r["agent_backend"]["kind"] == "transformers" for r in rows)
    assert all(r["output"]["final_answer"] == "I cannot help." for r in rows)


def test_max_tool_chars_evaluates_only_test_tasks_whose_tools_fit_and_the_report_says_so(tasks, tmp_path):
    from envscale.artifacts import resolve_input
    from envscale.evaluation.bundle import render_bundle
    from envscale.rollout.run import tool_sizes

    sizes = tool_sizes(resolve_input(tasks, "environments").load("environments"))
    test = list(tasks.load("tasks", "test"))
    size = {t["task_id"]: sum(sizes[t["environment"]][n] for n in t["tools"]) for t in test}
    limit = sorted(size.values())[len(size) // 2]
    fitting = {tid for tid, n in size.items() if n <= limit}
    assert 0 < len(fitting) < len(test)
    art = evaluate(tasks, EvalConfig(agent={"kind": "scripted"}, max_tool_chars=limit), tmp_path / "eval")
    rows = list(load_dataset(art.location, "results", split="train"))
    assert {r["id"] for r in rows} == fitting
    bundle = art.manifest["stats"]["bundle"]
    assert bundle["tasks"]["max_tool_chars"] == limit
    assert f"only tasks whose tools take at most {limit:,} characters" in render_bundle(bundle)


# ----------------------------------------------------------------------------- bad input


def test_bad_configs_fail_with_one_clear_line(envs, tmp_path):
    with pytest.raises(ValueError, match="agents is empty"):
        EvalConfig(agents={})
    with pytest.raises(ValueError, match="benchmark must be one of tasks, bfcl"):
        EvalConfig(benchmark="mmlu")
    with pytest.raises(ValueError, match=r"unknown BFCL categories \['java'\]"):
        EvalConfig(bfcl_categories=["java"])
    with pytest.raises(ValueError, match="either agent .* or agents"):
        EvalConfig(agent=PERFECT, agents={"a": PERFECT})
    with pytest.raises(ValueError, match="kind must be one of"):
        EvalConfig(agents={"a": {"kind": "oracle"}})
    no_test = generate_tasks(
        envs, TasksConfig(tasks_per_env=2, test_env_share=0.0, test_task_share=0.0), tmp_path / "t"
    )
    with pytest.raises(ValueError, match="has no test tasks"):
        evaluate(no_test, EvalConfig(), tmp_path / "eval")


def test_a_tasks_artifact_made_before_the_held_out_column_fails_with_the_way_out(tasks, tmp_path, capsys):
    # a tasks 1.0 artifact: its rows have no `held_out`, which loads as null
    with ArtifactWriter(tmp_path / "old", TASKS, "fp", inputs=tasks.manifest["inputs"]) as writer:
        for split in ("train", "test"):
            shard = writer.shard_writer("tasks", split)
            shard.write_many({**row, "held_out": None} for row in tasks.load("tasks", split))
            shard.close()
        writer.shard_writer("rejected").close()
        old = writer.commit({"tasks": dict(tasks.splits["tasks"]), "rejected": 0}, {})
    with pytest.raises(ArtifactError, match=r"no `held_out` column.*re-run `envscale tasks`"):
        evaluate(old, EvalConfig(agent=PERFECT), tmp_path / "eval")
    assert not (tmp_path / "eval" / "rollouts").exists()  # it fails before any agent plays
    assert main(["eval", "--input", str(tmp_path / "old"), "--output", str(tmp_path / "eval2")]) == 2
    err = capsys.readouterr().err
    said = [line for line in err.splitlines() if "held_out" in line]
    assert len(said) == 1 and "re-run `envscale tasks`" in said[0] and "Traceback" not in err, err


def test_the_cli_says_what_is_wrong(tmp_path, capsys):
    assert main(["eval", "--benchmark", "bfcl", "--bfcl-categories", "java", "--output", str(tmp_path)]) == 2
    assert "unknown BFCL categories ['java']" in capsys.readouterr().err
    assert main(["eval", "--agents", "{}", "--output", str(tmp_path)]) == 2
    assert "agents is empty" in capsys.readouterr().err


def test_the_config_round_trips_without_api_keys():
    config = EvalConfig(
        agents={"x": {"kind": "endpoint", "base_url": "http://h/v1", "model": "m", "api_key": "s3"}}
    )
    public = config.public()
    assert "api_key" not in json.dumps(public)
    assert config.agents["x"]["api_key"] == "s3"
    # where a server is reached does not change what is evaluated
    moved = EvalConfig(agents={"x": {"kind": "endpoint", "base_url": "http://other/v1", "model": "m"}})
    assert moved.fingerprint("tasks:1") == config.fingerprint("tasks:1")
