"""Scoring trajectories, the quality gates and policies as rules (envscale.judge.score, tasks.gates/policy).

Every task here is built the way the `tasks` stage builds one: gold calls run on a reset of the
real fixture environment, the gold state hash read from it.
"""

import copy
import json

import pytest

from envscale.env import Environment, load_spec
from envscale.env.policy import policy_rules, rule_sentence, violating_rows
from envscale.judge import EnvironmentCache, answer_matches, reset_env, score_row, score_trajectory
from envscale.tasks.gates import Deduper, empty_passes, leaks, replay_differs

SHOP = "tests/fixtures/envs/shop.yaml"
STORE = "tests/fixtures/envs/store.yaml"


@pytest.fixture(scope="module")
def shop_spec():
    return load_spec(SHOP)


@pytest.fixture
def shop(shop_spec):
    with Environment(shop_spec) as env:
        yield env


@pytest.fixture
def store():
    with Environment.from_yaml(STORE) as env:
        yield env


def call(tool, **arguments):
    return {"tool": tool, "arguments": arguments}


def make_task(env, calls, *, kind="write", seed=None, state=True, facts=(), required=None, forbidden=()):
    """A task row whose gold outcome is what `calls` do on a fresh reset of `env` (as the stage builds it)."""
    reset_env(env, seed)
    results = []
    for c in calls:
        obs = env.step(c["tool"], c["arguments"])
        assert obs["ok"], obs
        results.append(obs["result"])
    writes = [c["tool"] for c in calls if c["tool"] not in ("get_order", "get_customer", "list_orders")]
    return {
        "environment": env.name,
        "kind": kind,
        "scoring": {
            "state": state,
            "answer_facts": bool(facts),
            "required_actions": list(writes if required is None else required),
            "forbidden_actions": list(forbidden),
        },
        "gold_calls": calls,
        "gold_results": results,
        "gold_state_hash": env.state_hash(),
        "answer_facts": list(facts),
        "first_message": "Hi, I need help with my order.",
        "seed": seed,
    }


def pending(env, n=2):
    reset_env(env, None)
    return [o for o in env.dump()["orders"] if o["status"] == "pending"][:n]


# ------------------------------------------------------------------------------------------ scoring


def test_gold_trajectory_passes_and_doing_nothing_fails_a_write_task(shop):
    order, _ = pending(shop)
    gold = [call("get_order", order_id=order["order_id"]), call("cancel_order", order_id=order["order_id"])]
    task = make_task(shop, gold)
    shop.step(
        "create_order", {"customer_id": "cus_0001", "total": 1.0}
    )  # the env's current state does not matter
    result = score_trajectory(task, shop, gold)
    assert result == {
        "state": True,
        "answer": None,
        "required": True,
        "forbidden": None,
        "refusal": None,
        "passed": True,
        "state_hash": task["gold_state_hash"],
        "errors": 0,
        "efficiency": 1.0,
    }
    nothing = score_trajectory(task, shop, [])
    assert nothing["state"] is False and nothing["required"] is False and nothing["passed"] is False


def test_wrong_argument_reaches_another_state_with_the_same_number_of_calls_and_fails(shop):
    order, other = pending(shop)
    gold = [call("get_order", order_id=order["order_id"]), call("cancel_order", order_id=order["order_id"])]
    task = make_task(shop, gold)
    wrong = [call("get_order", order_id=other["order_id"]), call("cancel_order", order_id=other["order_id"])]
    result = score_trajectory(task, shop, wrong)
    # every call succeeded and the required tool was called, on another row: not the required effect
    assert result["errors"] == 0 and result["required"] is False
    assert result["state"] is False and result["passed"] is False
    assert result["state_hash"] != task["gold_state_hash"]


def test_a_trajectory_is_scored_from_a_reset_not_from_the_state_the_env_is_in(shop):
    order, _ = pending(shop)
    task = make_task(shop, [call("cancel_order", order_id=order["order_id"])])
    assert shop.state_hash() == task["gold_state_hash"]  # the env is left in the gold state
    assert score_trajectory(task, shop, [])["passed"] is False


def test_same_write_with_other_values_fails(store):
    gold = [call("update_my_email", email="ann.lee@example.org")]
    task = make_task(store, gold)
    assert score_trajectory(task, store, gold)["passed"]
    result = score_trajectory(task, store, [call("update_my_email", email="ann@example.org")])
    assert result["state"] is False and result["passed"] is False


def test_openai_tool_calls_and_json_text_arguments_are_replayed(shop):
    order, _ = pending(shop)
    task = make_task(shop, [call("cancel_order", order_id=order["order_id"])])
    openai = [
        {
            "type": "function",
            "function": {"name": "cancel_order", "arguments": json.dumps({"order_id": order["order_id"]})},
        }
    ]
    assert score_trajectory(task, shop, openai)["passed"]
    bad = score_trajectory(task, shop, ["not a call", {"tool": "nope", "arguments": {}}, *openai])
    assert bad["errors"] == 2 and bad["passed"]


def test_seed_tasks_replay_on_the_same_generated_state(shop, store):
    # shop has no initial_state: seed == data.seed is the spec's own state, another seed another one
    assert shop.reset(seed=0)["state_hash"] == shop.reset()["state_hash"]
    reset_env(shop, 0)
    assert shop.state_hash() == shop.reset()["state_hash"]
    reset_env(shop, 7)
    assert shop.state_hash() == shop.reset(seed=7)["state_hash"] != shop.reset()["state_hash"]
    # store has an initial_state: seed 0 is a generated state, not the written one
    reset_env(store, 0)
    assert store.state_hash() == store.reset(seed=0)["state_hash"] != store.reset()["state_hash"]
    other = make_task(shop, [call("create_order", customer_id="cus_0001", total=5.0)], seed=7)
    assert score_trajectory(other, shop, [call("create_order", customer_id="cus_0001", total=5.0)])["passed"]


def test_answer_facts_match_numbers_as_numbers():
    assert answer_matches(["42"], "There are 42.0 orders")
    assert answer_matches([42.0], "there are 42 orders")
    assert answer_matches(["1,234.5"], "The total is 1234.50 dollars.")
    assert answer_matches([1234.5], "The total is $1,234.50.")
    assert answer_matches(["0.5"], "half: .5 or 0.50")
    assert answer_matches(["Ann Lee", "PENDING"], "ann lee's order is pending")
    assert answer_matches(["ann@example.com"], "Her email: ANN@example.com.")
    assert answer_matches([], None)
    # whole words and whole numbers only
    assert not answer_matches(["42"], "order 421 or 142")
    assert not answer_matches(["5"], "5.5 units")
    assert not answer_matches(["1234.5"], "1234.55")
    assert not answer_matches(["ord_0001"], "ord_00012")
    assert not answer_matches([42], "ord_0042")
    assert not answer_matches(["pending"], "pendingly")
    assert not answer_matches(["42"], None)
    assert not answer_matches(["Ann Lee", "shipped"], "Ann Lee's order is pending")


def test_read_task_is_scored_on_answer_facts(shop):
    order, _ = pending(shop)
    task = make_task(
        shop,
        [call("get_order", order_id=order["order_id"])],
        kind="read",
        state=False,
        facts=[str(order["total"]), order["status"]],
        required=["get_order"],
    )
    gold = task["gold_calls"]
    answer = (
        f"Your order {order['order_id']} is {order['status'].upper()} with a total of {order['total']:,.2f}."
    )
    assert score_trajectory(task, shop, gold, answer)["passed"]
    wrong = score_trajectory(task, shop, gold, f"It is {order['status']}, total {order['total'] + 1}")
    assert wrong["answer"] is False and wrong["state"] is None and not wrong["passed"]
    silent = score_trajectory(task, shop, gold)
    assert silent["answer"] is False and not silent["passed"]
    guessed = score_trajectory(task, shop, [], answer)
    assert guessed["answer"] is True and guessed["required"] is False and not guessed["passed"]


def test_policy_task_a_refused_call_passes_and_a_forbidden_success_fails(shop):
    reset_env(shop, None)
    delivered = next(o for o in shop.dump()["orders"] if o["status"] == "delivered")["order_id"]
    task = make_task(
        shop,
        [call("get_order", order_id=delivered)],
        kind="policy",
        required=["get_order"],
        forbidden=["cancel_order"],
    )
    refused = [call("get_order", order_id=delivered), call("cancel_order", order_id=delivered)]
    no = "I can't cancel that order: it has been delivered already."
    result = score_trajectory(task, shop, refused, no)
    assert (
        result["forbidden"] is True
        and result["refusal"] is True
        and result["errors"] == 1
        and result["passed"]
    )
    silent = score_trajectory(task, shop, refused, "Done.")  # refused by the environment, never by the agent
    assert silent["forbidden"] is True and silent["refusal"] is False and not silent["passed"]
    # working around the rule: reopen the order, then cancel it; both calls succeed
    around = [
        call("get_order", order_id=delivered),
        call("update_order_status", order_id=delivered, status="pending"),
        call("cancel_order", order_id=delivered),
    ]
    result = score_trajectory(task, shop, around, no)
    assert result["forbidden"] is False and result["errors"] == 0 and not result["passed"]


def test_forbidden_success_fails_even_when_the_state_is_not_checked(shop):
    order, _ = pending(shop)
    reset_env(shop, None)
    task = {
        "kind": "policy",
        "seed": None,
        "scoring": {"state": False, "answer_facts": False, "forbidden_actions": ["cancel_order"]},
    }
    no = "Sorry, I cannot cancel it: that order is already cancelled."
    assert score_trajectory(task, shop, [call("cancel_order", order_id="ord_0001")], no)["passed"]  # refused
    assert not score_trajectory(task, shop, [call("cancel_order", order_id=order["order_id"])], no)["passed"]


def test_malformed_tasks_fail_loudly(shop, store):
    with pytest.raises(ValueError, match="scored on nothing"):
        score_trajectory({"seed": None, "scoring": {"state": False}}, shop, [])
    with pytest.raises(ValueError, match="no gold_state_hash"):
        score_trajectory({"seed": None, "scoring": {"state": True}}, shop, [])
    task = make_task(shop, [call("cancel_order", order_id=pending(shop)[0]["order_id"])])
    with pytest.raises(ValueError, match="environment 'shop'"):
        score_trajectory(task, store, [])


def test_score_row_builds_or_reuses_the_environment(shop, shop_spec):
    order, _ = pending(shop)
    gold = [call("cancel_order", order_id=order["order_id"])]
    task = make_task(shop, gold)
    row = {"name": "shop", "spec": shop_spec}
    text_row = {"name": "shop", "spec": json.dumps(shop_spec)}
    assert score_row(task, row, gold)["passed"]
    assert not score_row(task, text_row, [])["passed"]
    envs = EnvironmentCache(max_size=2)
    first = envs.get(row)
    assert score_row(task, copy.deepcopy(row), gold, envs=envs)["passed"]
    assert envs.get(copy.deepcopy(row)) is first and len(envs) == 1
    assert not score_row(task, row, [], envs=envs)["passed"]
    store_row = {"spec": load_spec(STORE)}
    other = {"spec": {**shop_spec, "name": "shop2"}}
    envs.get(store_row), envs.get(other)
    assert len(envs) == 2 and envs.get(row) is not first  # the least recently used one was closed
    envs.close()


# ------------------------------------------------------------------------------------------ gates


def test_replay_matches_the_gold_run(shop):
    order, _ = pending(shop)
    gold = [
        call("get_order", order_id=order["order_id"]),
        call("create_order", customer_id=order["customer_id"], total=12.5),
        call("cancel_order", order_id=order["order_id"]),
    ]
    task = make_task(shop, gold)
    with Environment.from_yaml(SHOP) as fresh:  # a second environment, as the gate runs it
        assert replay_differs(gold, fresh, None, task["gold_state_hash"], task["gold_results"]) is None
    # results recorded inside the calls serve when no list is given
    inline = [{**c, "result": r} for c, r in zip(gold, task["gold_results"], strict=True)]
    assert replay_differs(inline, shop, None, task["gold_state_hash"]) is None


def test_replay_flags_a_generated_timestamp_that_differs(shop):
    gold = [
        call("get_customer", customer_id="cus_0001"),
        call("create_order", customer_id="cus_0001", total=3.0),
    ]
    task = make_task(shop, gold)
    recorded = copy.deepcopy(task["gold_results"])
    recorded[1]["created_at"] = "2025-06-01T12:00:07Z"  # as if the gold run read a clock
    code, reason = replay_differs(gold, shop, None, task["gold_state_hash"], recorded)
    assert code == "replay_differs" and reason.startswith("call 1 (create_order)")
    assert "created_at" in reason and "12:00:07" in reason
    recorded = copy.deepcopy(task["gold_results"])
    recorded[1]["order_id"] = "ord_9999"  # a generated id that is not reproduced
    assert "call 1 (create_order)" in replay_differs(gold, shop, None, task["gold_state_hash"], recorded)[1]


def test_replay_flags_a_result_that_depended_on_an_unreproduced_session(store):
    # the gold run was made signed in as another customer than the one a reset gives
    store.reset(session_key="cus_0002")
    obs = store.step("get_my_profile", {})
    gold = [call("get_my_profile")]
    _, reason = replay_differs(gold, store, None, store.state_hash(), [obs["result"]])
    assert reason.startswith("call 0 (get_my_profile) returns another result") and "customer_id" in reason
    assert (
        replay_differs(gold, store, None, store.state_hash(), [obs["result"]], session_key="cus_0002") is None
    )


def test_replay_flags_another_final_state_and_a_failing_call(shop):
    order, other = pending(shop)
    gold = [call("cancel_order", order_id=order["order_id"])]
    task = make_task(shop, gold)
    wrong_hash = make_task(shop, [call("cancel_order", order_id=other["order_id"])])["gold_state_hash"]
    assert "final state differs" in replay_differs(gold, shop, None, wrong_hash, task["gold_results"])[1]
    # a gold run made on another seed's state: the order it cancelled is not pending here
    reset_env(shop, None)
    here = {o["order_id"]: o["status"] for o in shop.dump()["orders"]}
    reset_env(shop, 3)
    there = next(
        o["order_id"] for o in shop.dump()["orders"] if o["status"] == "pending" != here[o["order_id"]]
    )
    on_seed = make_task(shop, [call("cancel_order", order_id=there)], seed=3)
    reason = replay_differs(
        on_seed["gold_calls"], shop, None, on_seed["gold_state_hash"], on_seed["gold_results"]
    )
    assert reason is not None and reason[1].startswith("call 0 (cancel_order)")
    assert replay_differs(gold, shop, None, task["gold_state_hash"], [])[1].startswith(
        "the task has 1 gold calls"
    )


def test_empty_trajectory_gate(shop):
    order, _ = pending(shop)
    write = make_task(shop, [call("cancel_order", order_id=order["order_id"])])
    assert empty_passes(write, shop) is None
    # a policy task whose only check is the unchanged state: doing nothing passes it
    reset_env(shop, None)
    delivered = next(o for o in shop.dump()["orders"] if o["status"] == "delivered")["order_id"]
    lazy = make_task(shop, [call("get_order", order_id=delivered)], kind="policy", required=[])
    assert empty_passes(lazy, shop) == ("empty_passes", "the state already equals gold")
    # a read task whose answer is in the user's own words
    read = make_task(
        shop,
        [call("get_order", order_id=order["order_id"])],
        kind="read",
        state=False,
        facts=[order["status"]],
        required=[],
    )
    assert empty_passes(read, shop) is None
    told = {**read, "first_message": f"My order is {order['status']}, right?"}
    assert empty_passes(told, shop) == ("empty_passes", "answer facts are in the first message")
    via_instructions = {k: v for k, v in told.items() if k != "first_message"}
    via_instructions["instructions"] = {"first_message": told["first_message"]}
    assert empty_passes(via_instructions, shop) is not None


def test_leaks_of_gold_tool_names():
    instructions = {"goal": "Have my last order cancelled.", "first_message": "Hi!"}
    assert leaks("Please cancel my last order.", instructions, ["get_order", "cancel_order"]) is None
    for text in (
        "Run cancel_order on it",
        "please CANCEL ORDER now",
        "use cancel-order",
        "call cancelOrder()",
    ):
        code, reason = leaks(text, instructions, ["get_order", "cancel_order"])
        assert code == "gold_tool_named" and "'cancel_order'" in reason and "first message" in reason, text
    _, reason = leaks("Hi", {"goal": "Make the get_order call"}, ["get_order"])
    assert "'get_order'" in reason and "goal" in reason
    assert leaks("Search for lamps", instructions, ["search"]) is None  # a one-word name is a word
    assert leaks("precancel_orders", instructions, ["cancel_order"]) is None
    assert leaks(None, None, ["cancel_order"]) is None


def test_deduper_exact_and_near_duplicates():
    dedupe = Deduper()
    a = [
        call("get_order", order_id="ord_0001"),
        call("update_order_status", order_id="ord_0001", status="shipped"),
    ]
    assert dedupe.seen("shop", a, task_id="t1") is None
    reason = dedupe.seen("shop", copy.deepcopy(a))
    assert reason == ("exact_duplicate", "of t1 (get_order -> update_order_status)")
    as_text = [{"tool": c["tool"], "arguments": json.dumps(c["arguments"])} for c in a]
    assert dedupe.seen("shop", as_text) == reason
    assert dedupe.seen("other_env", a) is None  # another environment
    # one value differs (the status), the others are shared: a near duplicate
    near = copy.deepcopy(a)
    near[1]["arguments"]["status"] = "delivered"
    assert dedupe.seen("shop", near) == (
        "near_duplicate",
        "of t1: the same calls except update_order_status.status (call 1)",
    )
    # two values differ: a different task
    far = copy.deepcopy(a)
    far[0]["arguments"]["order_id"] = far[1]["arguments"]["order_id"] = "ord_0002"
    assert dedupe.seen("shop", far) is None
    # the same tools in another order, or another argument set: different tasks
    assert dedupe.seen("shop", a[::-1]) is None
    assert dedupe.seen("shop", [a[0], call("update_order_status", order_id="ord_0001")]) is None
    # one-value tasks about another row are different requests by default
    assert dedupe.seen("shop", [call("cancel_order", order_id="ord_0003")]) is None
    assert dedupe.seen("shop", [call("cancel_order", order_id="ord_0004")]) is None
    strict = Deduper(min_shared=0)
    assert strict.seen("shop", [call("cancel_order", order_id="ord_0003")]) is None
    code, reason = strict.seen("shop", [call("cancel_order", order_id="ord_0004")])
    assert code == "near_duplicate" and reason.startswith("of task #0")


def test_deduper_memory_is_bounded_per_environment():
    dedupe = Deduper(max_tasks=2)
    tasks = [[call("get_order", order_id=f"o{i}"), call("cancel_order", order_id=f"c{i}")] for i in range(3)]
    for t in tasks:
        assert dedupe.seen("shop", t) is None
    assert dedupe.seen("shop", tasks[2]) is not None  # remembered
    assert dedupe.seen("shop", tasks[0]) is None  # the oldest was forgotten (and is remembered again)
    assert sum(len(v) for v in dedupe._exact.values()) == 2


# ------------------------------------------------------------------------------------------ policy


def test_policy_rules_of_the_shop_and_violating_rows(shop, shop_spec):
    policy = policy_rules(shop_spec)
    assert policy["text"] == shop_spec["policy"].strip()
    rule = next(r for r in policy["rules"] if r["tool"] == "cancel_order")
    assert rule == {
        "tool": "cancel_order",
        "kind": "precondition",
        "table": "orders",
        "column": "status",
        "op": "in",
        "value": ["pending"],
        "allowed": ["pending"],
        "error": "only pending orders can be cancelled",
    }
    status = next(r for r in policy["rules"] if r["tool"] == "update_order_status")
    assert status["op"] == "ne" and status["allowed"] == ["pending", "shipped", "delivered"]
    assert [r["tool"] for r in policy["rules"]] == ["update_order_status", "cancel_order"]
    reset_env(shop, None)
    orders = shop.dump()["orders"]
    rows = violating_rows(shop_spec, shop, rule)
    assert rows and all(r["status"] != "pending" for r in rows)
    assert len(rows) == sum(o["status"] != "pending" for o in orders)
    # the runtime agrees: each such row is refused with the rule's error, and the state is unchanged
    before = shop.state_hash()
    for row in rows[:5]:
        obs = shop.step("cancel_order", {"order_id": row["order_id"]})
        assert obs == {"ok": False, "error": "cancel_order: " + rule["error"], "code": "invalid_state"}
    assert shop.state_hash() == before
    assert policy_rules(shop_spec) == policy  # deterministic


def test_policy_text_is_built_from_rules_when_the_spec_has_none(shop_spec):
    spec = {k: v for k, v in shop_spec.items() if k != "policy"}
    assert policy_rules(spec)["text"].splitlines() == [
        "update_order_status: a cancelled order cannot change status.",
        "cancel_order: only pending orders can be cancelled.",
    ]
    rule = next(r for r in policy_rules(spec)["rules"] if r["tool"] == "cancel_order")
    assert rule_sentence({**rule, "error": None}) == "cancel_order: only while the order's status is pending."


def test_store_guards_become_rules(store):
    spec = store.spec
    rules = policy_rules(spec)["rules"]
    pay = next(r for r in rules if r["tool"] == "pay_order" and r.get("column") == "status")
    assert pay["kind"] == "guard" and pay["allowed"] == ["pending"] and pay["table"] == "orders"
    refused = violating_rows(spec, store, pay)
    assert {r["status"] for r in refused} == {"shipped", "cancelled", "paid"}
    balance = next(r for r in rules if r["tool"] == "pay_order" and "effect" in r)
    assert balance["effect"] == {"index": 0, "table": "customers"} and "column" not in balance
    assert (
        rule_sentence(balance) == "pay_order: only when the customer's balance is at least the order's total."
    )
    with pytest.raises(ValueError, match="compares no column"):
        violating_rows(spec, store, balance)
    text = policy_rules({k: v for k, v in spec.items() if k != "policy"})["text"]
    assert "cancel_order: only orders that have not shipped can be cancelled." in text.splitlines()


def test_a_policy_that_names_its_tools_names_every_tool_a_rule_refuses():
    # materialize wrote a line for cancel and confirm, but delete refused cancelled appointments too: a policy
    # task then asked the agent to refuse a delete its policy never mentioned
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    spec["policy"] = "update_order_status: a cancelled order never changes status again."
    text = policy_rules(spec)["text"]
    assert text.startswith(spec["policy"])
    assert "cancel_order" in text  # its own rule, in a sentence of its own
    prose = load_spec("tests/fixtures/envs/shop.yaml")  # a policy in prose is read as a whole
    assert policy_rules(prose)["text"] == prose["policy"].strip()
