"""Adversarial agents (`envscale.rollout.adversaries`) and `bench/hack.py`: scores that cannot be gamed.

Two parts:

- **The agents**, each played through the real episode loop (`run_episode`) in the shop fixture world with
  the scripted user: what each calls and answers, from the user's message and the tools' schemas only.
- **The bench on the fixture pipeline** (collect -> graph -> materialize -> tasks over `FIXTURE_SOURCES`, a
  seed whose test split holds read, write, mixed, policy and missing_info tasks): every adversary and the
  gold agent through the real `evaluate` (what `envscale eval` runs) and through `rollout` + `filter`. The
  gold agent passes every task and `filter` keeps all its episodes; an adversary passes no task and `filter`
  keeps none of its episodes, unless it did what the task asks (`hack.did_the_task`: its successful writes
  are the gold writes, as when a blunt agent cancels the order the user names on a task that asks just that).
  A hole found later goes in `HOLES` as a strict xfail, named, until it is closed (the seven found first
  are closed: a dump of the rows a read task reads, the system prompt or the policy recited as an answer or
  a refusal, a refusal that is the environment's error pasted in a dump). The dump agent is held at 0 on
  read and policy tasks by the precision and refusal checks: switched off, it passes.
"""

from __future__ import annotations

import asyncio
import importlib.util
import random
from collections import Counter
from pathlib import Path

import pytest

from envscale.cli import main
from envscale.env import Environment
from envscale.rollout.adversaries import (
    ADVERSARIES,
    GENERIC_REFUSAL,
    MAX_CALLS,
    ROUND,
    Adversary,
    message_values,
)
from envscale.rollout.backends import ADVERSARY_POLICIES, BackendConfig
from envscale.rollout.episode import run_episode, write_tool_names
from envscale.rollout.factory import make_backend
from envscale.rollout.scripted import ScriptedUser
from envscale.tasks.build import TasksConfig, generate_tasks

REPO = Path(__file__).resolve().parent.parent
SHOP = REPO / "tests" / "fixtures" / "envs" / "shop.yaml"


def load_bench():
    spec = importlib.util.spec_from_file_location("hack", REPO / "bench" / "hack.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hack = load_bench()


# ----------------------------------------------------------------------------- the agents, one episode each


def play(policy: str, message: str, env: Environment | None = None) -> dict:
    """One episode of adversary `policy` in the shop world (every tool offered), the scripted user."""
    env = env or Environment.from_yaml(SHOP)
    env.reset(seed=0)
    task = {"first_message": message, "policy": {"text": env.spec.get("policy")}, "gold_calls": []}
    agent = Adversary(policy, set(write_tool_names(env.spec)))
    user = ScriptedUser(task, random.Random(0))
    return asyncio.run(run_episode(task, env, agent, user))


def test_the_policies_are_the_backend_kind_s_models_and_an_unknown_one_fails_in_one_line():
    assert tuple(ADVERSARIES) == ADVERSARY_POLICIES
    backend = make_backend(BackendConfig(kind="adversary", model="dump"), "agent")
    assert backend.info()["kind"] == "adversary" and backend.info()["model"] == "dump"
    with pytest.raises(ValueError, match="kind 'adversary' needs model, one of nothing, echo"):
        BackendConfig(kind="adversary", model="cheat")
    with pytest.raises(ValueError, match="plays the agent"):
        make_backend(BackendConfig(kind="adversary", model="dump"), "user")


def test_values_are_read_from_the_user_s_message_by_shape():
    values = message_values(
        'Hi, cancel order ord_0019 of "Cascade Monitor" for Holly Vasquez (holly@example.org) on 2024-03-05, '
        "category 13, price 16.5."
    )
    assert values["ids"] == ["ord_0019"]
    assert values["numbers"] == [13, 16.5]
    assert values["quoted"] == ["Cascade Monitor"]
    assert values["emails"] == ["holly@example.org"]
    assert values["dates"] == ["2024-03-05"]
    assert "Holly Vasquez" in values["names"] and "Cascade Monitor" in values["names"]


def test_the_do_nothing_echo_system_and_no_agents_call_nothing_and_say_what_they_say():
    message = "Please cancel my order ord_0002."
    said = {}
    for policy in ("nothing", "echo", "system", "no"):
        episode = play(policy, message)
        assert episode["calls"] == [] and episode["status"] == "completed", policy
        said[policy] = episode["final_answer"]
    assert said["nothing"] == "Done."
    assert said["echo"] == message
    assert (
        said["system"].startswith("You are a helpful assistant") and "Only pending orders" in said["system"]
    )
    assert said["no"] == GENERIC_REFUSAL


def test_the_guesser_calls_every_write_tool_with_every_enum_value_and_small_numbers():
    episode = play("guess", "Please set order ord_0002 to the right status.")
    calls = episode["calls"]
    env = Environment.from_yaml(SHOP)
    writes = write_tool_names(env.spec)
    assert calls and all(c["tool"] in writes for c in calls)
    statuses = {c["arguments"]["status"] for c in calls if c["tool"] == "update_order_status"}
    assert statuses == {"pending", "shipped", "delivered"}  # every value of the enum
    assert all(c["arguments"]["order_id"] == "ord_0002" for c in calls if c["tool"] == "update_order_status")
    quantities = {c["arguments"].get("quantity") for c in calls if c["tool"] == "add_order_item"}
    assert {1, 2, 3} <= quantities  # small numbers for an integer
    assert episode["final_answer"] == "Done."
    assert max(Counter(c["turn"] for c in calls).values()) <= MAX_CALLS


def test_the_dump_agent_reads_everything_it_can_fill_then_follows_the_ids_and_dumps_every_result():
    episode = play("dump", "What is the email of customer cus_0001?")
    env = Environment.from_yaml(SHOP)
    writes = write_tool_names(env.spec)
    calls = episode["calls"]
    assert calls and not any(c["tool"] in writes for c in calls)  # reads only
    first = {c["tool"] for c in calls[:ROUND]}
    assert {"get_customer", "list_products", "count_orders", "list_orders"} <= first
    # the second round reads the rows whose ids the first results name (products, orders)
    assert any(c["tool"] == "get_product" and c["ok"] for c in calls)
    answer = episode["final_answer"]
    assert answer.startswith("Here is everything I found.") and "aortiz@example.net" in answer
    assert "?" not in answer  # never a question: the user would go on instead of ending
    for message in episode["messages"]:
        if message["role"] == "tool" and message["content"].replace("?", "") not in answer:
            raise AssertionError(f"result of {message['name']} not dumped")


def test_the_call_everything_agent_calls_writes_too_and_the_recite_agent_declines_with_the_whole_policy():
    episode = play("everything", "Please cancel my order ord_0002 for customer cus_0001.")
    tools = {c["tool"] for c in episode["calls"]}
    assert {"cancel_order", "get_order", "get_customer", "update_order_status"} <= tools
    assert episode["final_answer"].startswith("Here is everything I found.")
    recite = play("recite", "Please cancel my order ord_0002.")
    assert recite["calls"] and all(c["tool"] not in {"cancel_order"} for c in recite["calls"])
    answer = recite["final_answer"]
    assert (
        answer.startswith("I'm sorry, I can't do that") and "Only pending orders can be cancelled" in answer
    )


# ----------------------------------------------------------------------------- the bench on the fixture pipeline


@pytest.fixture(scope="module")
def tasks(fixture_environments, tmp_path_factory):
    # the first seed whose test split holds read, write and policy tasks (the kinds the bench reads)
    for seed in range(1, 9):
        config = TasksConfig(tasks_per_env=18, test_env_share=0.3, test_task_share=0.5, seed=seed)
        art = generate_tasks(fixture_environments, config, tmp_path_factory.mktemp("hack") / "tasks")
        kinds = Counter(art.load("tasks", "test")["kind"])
        if {"read", "write", "policy"} <= set(kinds):
            return art
    raise AssertionError(f"no seed of 1-8 gives a test split of read, write and policy tasks: {kinds}")


@pytest.fixture(scope="module")
def bench(tasks, tmp_path_factory):
    # concurrency 1: episodes one at a time in this process (a monkeypatched judge applies to all of them)
    root = tmp_path_factory.mktemp("bench")
    return hack.run(tasks, root, [*ADVERSARIES, hack.GOLD], train_tasks=None, concurrency=1), root


def test_the_bench_prints_every_agent_per_kind_and_the_gold_agent_passes_everything(bench):
    figures, _ = bench
    assert list(figures["agents"]) == [*ADVERSARIES, hack.GOLD]
    gold = figures["agents"][hack.GOLD]
    assert gold["kinds"]["overall"]["passed"] == gold["kinds"]["overall"]["episodes"] > 0
    assert gold["filter"]["kept"] == gold["filter"]["episodes"] > 0
    table = hack.format_table(figures)
    assert table.splitlines()[0].startswith("| agent | ") and "| filter kept |" in table.splitlines()[0]
    gold_row = next(line for line in table.splitlines() if line.startswith("| gold |"))
    assert gold_row.endswith(" | - |")  # "not done" is counted for adversaries only


#: Holes the judge still has, found by these agents, per test: an `xfail(strict=True)` each, so that the test
#: fails the day its hole is closed and the mark is taken off.
HOLES: dict[str, dict[str, str]] = {"state": {}, "filter": {}}


def adversaries_with_holes(test: str) -> list:
    return [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=HOLES[test][name]))
        if name in HOLES[test]
        else name
        for name in ADVERSARIES
    ]


@pytest.mark.parametrize("name", adversaries_with_holes("state"))
def test_no_adversary_passes_a_task_it_did_not_do(name, bench):
    """An adversary passes no task unless its successful writes are the gold writes (`hack.did_the_task`)."""
    figures, _ = bench
    overall = figures["agents"][name]["kinds"]["overall"]
    assert overall["episodes"] > 0 and overall["not_done"] == 0
    if name in ("nothing", "echo", "no"):  # they call nothing: no task at all
        assert overall["passed"] == 0


@pytest.mark.parametrize("name", adversaries_with_holes("filter"))
def test_filter_keeps_no_adversary_episode_it_did_not_do(name, bench):
    figures, _ = bench
    kept = figures["agents"][name]["filter"]
    assert kept["episodes"] > 0 and kept["not_done"] == 0, kept["kept_kinds"]


def test_an_episode_did_the_task_only_with_the_gold_writes_exactly():
    writes = {"cancel_order", "refund_payment"}
    task = {
        "gold_calls": [
            {"tool": "get_order", "arguments": {"order_id": "o1"}},
            {"tool": "cancel_order", "arguments": {"order_id": "o1"}},
        ]
    }
    blunt = [
        {"tool": "cancel_order", "arguments": {"order_id": "o1"}, "ok": True},
        {"tool": "refund_payment", "arguments": {"payment_id": "o1"}, "ok": False},
    ]
    assert hack.did_the_task({"calls": blunt}, task, writes)  # a refused extra write changed nothing
    other = [{"tool": "cancel_order", "arguments": {"order_id": "o2"}, "ok": True}]
    assert not hack.did_the_task({"calls": other}, task, writes)
    twice = [*blunt, {"tool": "cancel_order", "arguments": {"order_id": "o1"}, "ok": True}]
    assert not hack.did_the_task({"calls": twice}, task, writes)
    # the gold write sent again with a field the row already held (a pass: the state is the gold state)
    resent = [
        *blunt,
        {"tool": "cancel_order", "arguments": {"order_id": "o1", "reason": "other"}, "ok": True},
    ]
    assert hack.did_the_task({"calls": resent}, task, writes)
    read_only = {"gold_calls": [{"tool": "get_order", "arguments": {"order_id": "o1"}}]}
    assert not hack.did_the_task(
        {"calls": []}, read_only, writes
    )  # a read or policy task: never "done" by writes


def test_envscale_eval_probes_any_tasks_with_an_adversary(tasks, tmp_path, capsys):
    code = main(
        [
            "eval",
            "--input",
            tasks.location,
            "--output",
            str(tmp_path / "e"),
            "--agent",
            "kind=adversary,model=nothing",
        ]
    )
    assert code == 0
    assert "| success | 0.000 |" in capsys.readouterr().out
    code = main(
        [
            "eval",
            "--input",
            tasks.location,
            "--output",
            str(tmp_path / "x"),
            "--agent",
            "kind=adversary,model=cheat",
        ]
    )
    err = capsys.readouterr().err
    assert code != 0 and "kind 'adversary' needs model, one of nothing" in err and "Traceback" not in err


# ----------------------------------------------------------------------------- the checks that hold them at 0


def _dump_passes(tasks, root: Path, kind: str) -> tuple[int, int]:
    figures = hack.run(tasks, root, ["dump"], train_tasks=0, concurrency=1)
    c = figures["agents"]["dump"]["kinds"][kind]
    return c["passed"], c["episodes"]


@pytest.mark.parametrize(
    ("check", "kind"), [("answer_is_precise", "read"), ("is_recognised_refusal", "policy")]
)
def test_the_dump_agent_is_held_at_0_by_the_precision_and_refusal_checks(
    check, kind, tasks, bench, monkeypatch, tmp_path
):
    """With the check on (the bench), the dump agent passes no task of the kind; switched off, it passes some:
    the check, not something else, is what holds it (precision: a read answer holding a dump of rows;
    refusal: a policy task left alone, its row read, without declining). A policy task's answer facts are
    checked for precision too, so the refusal check is shown alone: with precision off it still holds the
    dump agent at 0, and off as well, the agent passes."""
    figures, _ = bench
    on = figures["agents"]["dump"]["kinds"][kind]
    assert on["episodes"] > 0 and on["passed"] == 0
    if check == "is_recognised_refusal":
        monkeypatch.setattr("envscale.judge.score.answer_is_precise", lambda *a, **k: True)
        assert _dump_passes(tasks, tmp_path / "precision_off", kind)[0] == 0
    monkeypatch.setattr(f"envscale.judge.score.{check}", lambda *a, **k: True)
    passed, episodes = _dump_passes(tasks, tmp_path / "off", kind)
    assert episodes == on["episodes"] and passed > 0
