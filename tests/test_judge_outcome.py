"""Outcome-based scoring (issue 19): a required action is what the gold call did, not the tool's name.

A sibling tool with the same effect does the required action; the same tool on another row or with another
value does not; independent calls come in any order; a required read is any read of its rows. Agents that
change nothing (do nothing, echo the user, read everything) fail every task scored on state that the real
pipeline makes.
"""

import copy
import json

import pytest

from envscale.env import Environment, load_spec
from envscale.judge import (
    DEFAULT_LEVELS,
    READ_OPERATIONS,
    check_trajectory,
    effect,
    judge_trajectory,
    reset_env,
    rows_read,
    score_trajectory,
)
from envscale.schemas import STOP
from envscale.tasks.build import TasksConfig, generate_tasks

SHOP = "tests/fixtures/envs/shop.yaml"


def sibling_shop_spec():
    """The shop with near-duplicates of its writes, as the quickstart's environments have them:
    `cancel_order_2` (the same tool again), `void_order` (the same operation, its key argument named `id`),
    and `set_order_status` (a copy of `update_order_status`)."""
    spec = load_spec(SHOP)
    tools = {t["name"]: t for t in spec["tools"]}
    twin = copy.deepcopy(tools["cancel_order"]) | {"name": "cancel_order_2"}
    void = copy.deepcopy(tools["cancel_order"]) | {"name": "void_order"}
    void["parameters"] = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
    void["operation"]["key"] = {"order_id": "id"}
    status = copy.deepcopy(tools["update_order_status"]) | {"name": "set_order_status"}
    spec["tools"] += [twin, void, status]
    return spec


@pytest.fixture
def shop():
    with Environment(sibling_shop_spec()) as env:
        yield env


def call(tool, **arguments):
    return {"tool": tool, "arguments": arguments}


def make_task(env, gold, required, *, kind="write", state=True, facts=(), forbidden=()):
    """A task whose gold outcome is what `gold` does on a fresh reset of `env` (as the tasks stage builds it)."""
    reset_env(env, None)
    for c in gold:
        assert env.step(c["tool"], c["arguments"])["ok"]
    return {
        "environment": env.name,
        "kind": kind,
        "seed": None,
        "scoring": {
            "state": state,
            "answer_facts": bool(facts),
            "required_actions": list(required),
            "forbidden_actions": list(forbidden),
        },
        "gold_calls": [{**c, "provenance": {a: "user" for a in c["arguments"]}} for c in gold],
        "gold_state_hash": env.state_hash(),
        "answer_facts": list(facts),
        "first_message": "Hi, I need help with my order.",
    }


def recorded(env, task, calls, answer="Done."):
    """The trajectory an episode records for `calls` (run on a reset of `env` to the task's seed), ending in
    `answer`."""
    reset_env(env, task["seed"], task.get("session_key"))
    messages = [{"role": "system", "content": "policy"}, {"role": "user", "content": task["first_message"]}]
    made = []
    for i, c in enumerate(calls):
        obs = env.step(c["tool"], c["arguments"])
        tool_call = {
            "id": f"c{i}",
            "type": "function",
            "function": {"name": c["tool"], "arguments": c["arguments"]},
        }
        messages.append({"role": "assistant", "content": "", "tool_calls": [tool_call]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": json.dumps(obs, default=str)})
        made.append(
            {"tool": c["tool"], "arguments": c["arguments"], "ok": obs["ok"], "code": obs.get("code")}
        )
    messages += [{"role": "assistant", "content": answer}, {"role": "user", "content": STOP}]
    return {"messages": messages, "calls": made, "final_answer": answer, "status": "completed"}


def orders(env, status):
    reset_env(env, None)
    return [o for o in env.dump()["orders"] if o["status"] == status]


# ----------------------------------------------------------------------------- effects, not names


def test_a_sibling_tool_with_the_same_effect_does_the_required_action(shop):
    order = orders(shop, "pending")[0]["order_id"]
    task = make_task(
        shop, [call("get_order", order_id=order), call("cancel_order", order_id=order)], ["cancel_order"]
    )
    for calls in (
        [call("get_order", order_id=order), call("cancel_order_2", order_id=order)],
        [call("void_order", id=order)],  # another argument name, the same row changed the same way
    ):
        result = score_trajectory(task, shop, calls)
        assert result["required"] is True and result["state"] is True and result["passed"], calls
        checks = check_trajectory(recorded(shop, task, calls), task, shop)
        assert (
            checks["actions"] is True
            and judge_trajectory(recorded(shop, task, calls), task, shop, DEFAULT_LEVELS).passed
        )
        assert checks["exact"] is False  # the strict level still asks for the gold tools by name


def test_a_call_with_another_effect_does_not_do_the_required_action(shop):
    first, second = (o["order_id"] for o in orders(shop, "pending")[:2])
    cancel = make_task(shop, [call("cancel_order", order_id=first)], ["cancel_order"])
    other_row = score_trajectory(cancel, shop, [call("cancel_order", order_id=second)])
    assert other_row["required"] is False
    read_only = score_trajectory(cancel, shop, [call("get_order", order_id=first)])
    assert read_only["required"] is False  # reading the row changes nothing

    ship = make_task(
        shop, [call("update_order_status", order_id=first, status="shipped")], ["update_order_status"]
    )
    other_value = score_trajectory(
        ship, shop, [call("update_order_status", order_id=first, status="delivered")]
    )
    assert other_value["required"] is False and other_value["state"] is False
    assert score_trajectory(ship, shop, [call("set_order_status", order_id=first, status="shipped")])[
        "passed"
    ]
    # the effect is the call's own: shipping after another write to the same row still ships it
    assert score_trajectory(
        ship,
        shop,
        [
            call("update_order_status", order_id=first, status="delivered"),
            call("set_order_status", order_id=first, status="shipped"),
        ],
    )["required"]


def test_independent_calls_in_reverse_order_pass(shop):
    order = orders(shop, "pending")[0]["order_id"]
    gold = [
        call("cancel_order", order_id=order),
        call("update_customer_email", customer_id="cus_0001", email="anthony@example.org"),
    ]
    task = make_task(shop, gold, ["cancel_order", "update_customer_email"])
    reverse = score_trajectory(task, shop, gold[::-1])
    assert reverse["required"] is True and reverse["state"] is True and reverse["passed"]
    # both writes are required
    one = score_trajectory(task, shop, gold[:1])
    assert one["required"] is False


def test_a_required_read_is_any_read_of_its_rows(shop):
    row, other_row = orders(shop, "delivered")[:2]
    delivered, other = row["order_id"], other_row["order_id"]
    task = make_task(
        shop,
        [call("get_order", order_id=delivered)],
        ["get_order"],
        kind="policy",
        facts=["delivered"],
        forbidden=["cancel_order"],
    )
    answer = "I'm sorry, that order is delivered: it can no longer be cancelled."
    for calls in (
        [call("get_order", order_id=delivered)],
        [call("list_orders", customer_id=row["customer_id"])],
    ):
        assert score_trajectory(task, shop, calls, answer)["passed"], calls
    for calls in (
        [],
        [call("get_order", order_id=other)],
        [call("count_orders", customer_id=row["customer_id"])],
    ):
        result = score_trajectory(task, shop, calls, answer)
        assert result["required"] is False and result["state"] is True and not result["passed"], calls


def test_effects_and_rows_read_on_their_own(shop):
    order = orders(shop, "pending")[0]["order_id"]
    reset_env(shop, None)
    assert shop.step("void_order", {"id": order})["ok"]
    voided = effect(shop.last_changes())
    reset_env(shop, None)
    before = shop.snapshot()
    assert shop.step("cancel_order", {"order_id": order})["ok"]
    assert effect(shop.last_changes()) == voided == effect(shop.diff(before))
    assert json.loads(voided) == {
        "orders": {"added": [], "removed": [], "changed": [[order, {"status": "cancelled"}]]}
    }
    assert not shop.step("cancel_order", {"order_id": order})["ok"] and shop.last_changes() == {}
    customer = shop.step("get_order", {"order_id": order})["result"]["customer_id"]
    listed = shop.step("list_orders", {"customer_id": customer})["result"]
    table, keys = rows_read(shop, "list_orders", listed)
    assert table == "orders" and len(keys) == len(listed) > 0 and "s:" + order in keys
    # a count answers the question it was asked: the same number for other arguments is another read
    asked = rows_read(shop, "count_orders", 3, {"status": "shipped"})
    assert asked == rows_read(shop, "count_orders", 3, '{"status": "shipped"}')  # arguments as JSON text too
    assert asked != rows_read(shop, "count_orders", 3, {"customer_id": "cus_0014"})
    assert asked != rows_read(shop, "count_orders", 4, {"status": "shipped"})
    assert rows_read(shop, "cancel_order", {}) is None


def test_a_required_tool_no_gold_call_makes_is_a_malformed_task(shop):
    order = orders(shop, "pending")[0]["order_id"]
    task = make_task(shop, [call("cancel_order", order_id=order)], ["cancel_order", "create_order"])
    with pytest.raises(ValueError, match="requires create_order, which no gold call makes"):
        score_trajectory(task, shop, task["gold_calls"])
    assert score_trajectory(task, shop, [])["required"] is False  # nothing done: no gold replay needed


# ----------------------------------------------------------------------------- agents that change nothing


@pytest.fixture(scope="module")
def pipeline_tasks(fixture_environments, tmp_path_factory):
    # seed 1: the fixture's draw with conversations (seed 0 has none since parents are found two levels deep)
    config = TasksConfig(tasks_per_env=10, test_env_share=0.0, seed=1)
    tasks = generate_tasks(fixture_environments, config, tmp_path_factory.mktemp("outcome") / "tasks")
    from envscale.artifacts import resolve_input

    envs = {r["name"]: r for r in resolve_input(tasks, "environments").load("environments")}
    return list(tasks.load("tasks", "train")), envs


def test_agents_that_change_nothing_fail_every_state_task(pipeline_tasks):
    tasks, env_rows = pipeline_tasks
    state_tasks = [t for t in tasks if t["scoring"]["state"]]
    assert len(state_tasks) >= 10 and {t["kind"] for t in state_tasks} >= {"write", "policy"}
    assert any(t["requests"] for t in state_tasks)  # conversations too
    built = {}
    for task in state_tasks:
        env = built.get(task["environment"]) or built.setdefault(
            task["environment"], Environment.from_row(env_rows[task["environment"]])
        )
        kinds = {t["name"]: t["operation"]["type"] for t in env.spec["tools"]}
        gold = {c["tool"]: c["arguments"] for c in task["gold_calls"]}
        # every offered read, with the gold call's arguments where it is one (else none: a list reads every row)
        reads = [call(t, **gold.get(t, {})) for t in task["tools"] if kinds[t] in READ_OPERATIONS]
        agents = {
            "do nothing": ([], "Done."),
            "echo": ([], " ".join([task["first_message"]] + [r["message"] for r in task["requests"]])),
            "read everything": (reads, "I looked everything up for you."),
        }
        for name, (calls, answer) in agents.items():
            trajectory = recorded(env, task, calls, answer)
            judged = judge_trajectory(trajectory, task, env, DEFAULT_LEVELS)
            assert not judged.passed, (name, task["task_id"])
            if task["kind"] == "policy" and not calls:  # the refusal rests on a row it never looked up
                assert judged.checks["actions"] is False and judged.checks["state"] is True, task["task_id"]
            if any(kinds[c["tool"]] not in READ_OPERATIONS for c in task["gold_calls"]):
                # a write is required: reads do not do it, and the state is not the gold one
                assert judged.checks["actions"] is False and judged.checks["state"] is False, (
                    name,
                    task["task_id"],
                )
    for env in built.values():
        env.close()


def test_a_gold_write_that_changed_nothing_is_not_done_by_a_read(shop):
    shipped = orders(shop, "shipped")[0]["order_id"]
    gold = [call("update_order_status", order_id=shipped, status="shipped")]  # it is shipped already
    task = make_task(shop, gold, ["update_order_status"])
    assert score_trajectory(task, shop, gold)["required"] is True
    for calls in ([call("get_order", order_id=shipped)], [call("count_orders", status="shipped")], []):
        assert score_trajectory(task, shop, calls)["required"] is False, calls


def test_reading_everything_and_dumping_it_fails_every_task_scored_on_its_answer(pipeline_tasks):
    """Recall alone rewards a dump: the asked facts are in there somewhere. The answer is also checked for
    what it states beyond the asked facts (`envscale.judge.precision`), so a dump of the tables fails,
    while the facts in a sentence pass."""
    tasks, env_rows = pipeline_tasks
    answered = [t for t in tasks if t["scoring"]["answer_facts"]]
    assert len(answered) >= 5 and {t["kind"] for t in answered} >= {"read"}
    built = {}
    for task in answered:
        env = built.get(task["environment"]) or built.setdefault(
            task["environment"], Environment.from_row(env_rows[task["environment"]])
        )
        calls = [call(c["tool"], **c["arguments"]) for c in task["gold_calls"]]
        reset_env(env, task["seed"], task.get("session_key"))
        results = [env.step(c["tool"], c["arguments"])["result"] for c in calls]
        # what an agent that read every row could paste: the gold results, then every table
        dump = json.dumps([results, env.dump()], default=str)
        facts = "The answer: " + "; ".join(map(str, task["answer_facts"])) + "."
        honest = judge_trajectory(recorded(env, task, task["gold_calls"], facts), task, env, DEFAULT_LEVELS)
        assert honest.checks["answer"] is True, task["task_id"]
        dumped = judge_trajectory(recorded(env, task, calls, dump), task, env, DEFAULT_LEVELS)
        assert dumped.checks["answer"] is False and not dumped.passed, task["task_id"]
    for env in built.values():
        env.close()
