"""Judging (envscale.judge): the checks that could be broken without a test failing, the one normaliser,
the one provenance parser, and the verdict.

Trajectories are made by hand on the real fixture shop, in the format the rollout records them.
"""

import json

import pytest

from envscale.env import Environment
from envscale.judge import (
    DEFAULT_LEVELS,
    answer_matches,
    canonical_number,
    canonical_value,
    check_format,
    check_trajectory,
    environment_error,
    judge_trajectory,
    normalize_answer,
    parse_provenance,
    provenance_call,
    read_calls,
    resolve_provenance,
    verdict,
)
from envscale.schemas import CHECKS

SHOP = "tests/fixtures/envs/shop.yaml"


@pytest.fixture
def shop():
    with Environment.from_yaml(SHOP) as env:
        yield env


def conversation(calls, answer="Done."):
    """A well-formed trajectory (messages and recorded calls) of `calls`, each `{"tool", "arguments", "ok"}`."""
    messages = [{"role": "system", "content": "policy"}, {"role": "user", "content": "please"}]
    for i, call in enumerate(calls):
        tool_call = {
            "id": f"c{i}",
            "type": "function",
            "function": {"name": call["tool"], "arguments": call["arguments"]},
        }
        messages.append({"role": "assistant", "content": "", "tool_calls": [tool_call]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": json.dumps({"ok": call["ok"]})})
    messages.append({"role": "assistant", "content": answer})
    return {"messages": messages, "calls": calls, "final_answer": answer, "status": "completed"}


def ran(env, tool, **arguments):
    """The call as an episode records it, after running it on `env`."""
    obs = env.step(tool, arguments)
    return {"tool": tool, "arguments": arguments, "ok": obs["ok"], "code": obs.get("code")}


# ----------------------------------------------------------------------------- format: a tool answer is text


@pytest.mark.parametrize("content", [{"ok": True}, [{"type": "text", "text": "{}"}], None, 42])
def test_a_tool_answer_that_is_not_text_fails_format(content):
    messages = conversation([{"tool": "get_customer", "arguments": {"customer_id": "cus_0001"}, "ok": True}])[
        "messages"
    ]
    assert check_format(messages)
    tool = next(m for m in messages if m["role"] == "tool")
    tool["content"] = content
    assert not check_format(messages)


def test_format_of_a_recorded_trajectory_with_a_non_text_tool_answer_fails(shop):
    calls = [ran(shop, "get_customer", customer_id="cus_0001")]
    trajectory = conversation(calls)
    task = {"seed": None, "gold_state_hash": shop.state_hash(), "scoring": {"state": True}, "gold_calls": []}
    assert check_trajectory(trajectory, task, shop)["format"] is True
    trajectory["messages"][3]["content"] = {"ok": True}  # the tool message, as an object
    checks = check_trajectory(trajectory, task, shop)
    assert checks["format"] is False and checks["state"] is True  # only the format fails
    assert judge_trajectory(trajectory, task, shop, DEFAULT_LEVELS).failed == ["format"]


# ----------------------------------------------------------------------------- policy, with and without state


def policy_task(env, state: bool):
    """A policy task on the shop: cancelling is forbidden; the policy leaves the state as it was."""
    env.reset()
    scoring = {
        "state": state,
        "answer_facts": False,
        "required_actions": [],
        "forbidden_actions": ["cancel_order"],
        "refusal": True,
    }
    rule = {
        "tool": "cancel_order",
        "table": "orders",
        "column": "status",
        "allowed": ["pending"],
        "text": "only pending orders can be cancelled",
        "attempt": {"tool": "cancel_order", "arguments": {"order_id": "ord_0010"}},  # shipped
    }
    return {
        "kind": "policy",
        "seed": None,
        "gold_state_hash": env.state_hash(),
        "scoring": scoring,
        "gold_calls": [],
        "first_message": "Please cancel my order ord_0010.",
        "policy": {"task_rule": rule, "rules": [rule]},
    }


REFUSAL = "I'm sorry, I can't cancel order ord_0010: only pending orders can be cancelled."


def test_policy_scored_on_state_fails_when_the_state_is_wrong_though_no_forbidden_call_succeeded(shop):
    task = policy_task(shop, state=True)
    other_write = [ran(shop, "update_customer_email", customer_id="cus_0001", email="new@example.org")]
    assert other_write[0]["ok"]
    checks = check_trajectory(conversation(other_write), task, shop)
    assert checks["state"] is False
    assert checks["policy"] is False  # no forbidden call, but not the state the policy leaves
    shop.reset()
    assert (
        check_trajectory(conversation([], REFUSAL), task, shop)["policy"] is True
    )  # refused: the policy holds
    assert check_trajectory(conversation([]), task, shop)["policy"] is False  # "Done.": nothing refused


def test_a_policy_task_passes_only_on_a_refusal_that_names_the_rule_or_the_reason(shop):
    task = policy_task(shop, state=True)
    answers = {
        REFUSAL: True,
        "Unfortunately that is not possible: the order has already shipped.": True,
        "Done.": False,  # never wrote, never refused
        "Sorry, I can't do that.": False,  # declines, but names no rule or reason
        "I can't cancel my order ord_0010.": False,  # the user's own words back, no reason
        "Your order ord_0010 has shipped.": False,  # a reason, but no refusal
    }
    seen = {a: check_trajectory(conversation([], a), task, shop)["policy"] for a in answers}
    assert seen == answers


def test_policy_without_state_is_the_forbidden_check_alone(shop):
    task = policy_task(shop, state=False)
    other_write = [ran(shop, "update_customer_email", customer_id="cus_0001", email="new@example.org")]
    checks = check_trajectory(conversation(other_write, REFUSAL), task, shop)
    assert checks["state"] is None  # not scored: the changed state does not count against the policy
    assert checks["policy"] is True
    assert verdict(checks, DEFAULT_LEVELS) == (True, [])
    shop.reset()
    cancelled = [ran(shop, "cancel_order", order_id="ord_0009")]  # a pending order: the shop allows it
    assert cancelled[0]["ok"]
    breaking = check_trajectory(conversation(cancelled, REFUSAL), task, shop)
    assert breaking["state"] is None and breaking["policy"] is False
    assert verdict(breaking, DEFAULT_LEVELS) == (False, ["policy"])


# ----------------------------------------------------------------------------- the verdict


def test_a_check_the_task_is_not_scored_on_holds_and_an_environment_error_fails_everything():
    checks = dict.fromkeys(CHECKS, True) | {"answer": None, "exact": False}
    assert verdict(checks, DEFAULT_LEVELS) == (True, [])  # `exact` is not required by default
    assert verdict(checks, [*DEFAULT_LEVELS, "exact"]) == (False, ["exact"])
    broken = environment_error("SpecError: no tools", DEFAULT_LEVELS)
    assert broken.checks == dict.fromkeys(CHECKS, False) and not broken.passed
    assert broken.failed == [*DEFAULT_LEVELS, "environment_error: SpecError: no tools"]
    cut = environment_error("x" * 400).failed  # eval's form: the error alone, cut at 300 characters
    assert cut == ["environment_error: " + "x" * 281]


def test_an_episode_that_never_ran_fails_every_outcome_check_even_those_not_scored(shop):
    task = {"seed": None, "gold_state_hash": shop.state_hash(), "scoring": {"state": True}, "gold_calls": []}
    checks = check_trajectory({"messages": [], "calls": [], "status": "agent_error"}, task, shop)
    assert checks == dict.fromkeys(CHECKS, False) | {"schema": True}


def test_calls_refused_before_the_environment_are_left_out_of_the_replay(shop):
    task = {"seed": None, "gold_state_hash": shop.state_hash(), "scoring": {"state": True}, "gold_calls": []}
    # recorded as refused by the episode (the tool was not offered), though the environment would run it
    refused = {"tool": "update_customer_email", "arguments": {"customer_id": "cus_0001", "email": "x@y.org"}}
    checks = check_trajectory(conversation([{**refused, "ok": False, "code": "unknown_tool"}]), task, shop)
    assert checks["state"] is True and checks["schema"] is False


# ----------------------------------------------------------------------------- one normaliser


@pytest.mark.parametrize("number", [0, 1, -3, 42.0, 1234.50, 0.1, 1e-7, 1e21, 2**70, 0.30000000000000004])
def test_answers_and_exact_arguments_put_a_number_in_the_same_canonical_form(number):
    assert normalize_answer(number) == canonical_number(number)
    assert canonical_value(number) == f"n:{canonical_number(number)}"
    assert answer_matches([number], f"it is {canonical_number(number)}.")
    if isinstance(number, float) and number.is_integer() and abs(number) < 1e15:
        assert canonical_value(number) == canonical_value(int(number))


def test_the_canonical_forms():
    assert (canonical_number(42.0), canonical_number("1234.50"), canonical_number(1e-7)) == (
        "42",
        "1234.5",
        "0.0000001",
    )
    assert canonical_number("twelve") is None
    assert normalize_answer("Total: $1,234.50 for ord_0042, v1.2") == "total: $1234.5 for ord_0042, v1.2"
    assert normalize_answer(True) == "true" and canonical_value(True) == "b:True" != canonical_value(1)
    assert canonical_value(" ord_1 ") == "s:ord_1" and canonical_value("1") != canonical_value(1)
    assert canonical_value({"b": 1, "a": [2]}) == 'j:{"a": [2], "b": 1}' and canonical_value(None) == "j:null"
    assert canonical_value(float("nan")) == "n:NaN"


# ----------------------------------------------------------------------------- one provenance parser


def test_provenance_paths_parse_into_the_call_and_its_steps():
    assert parse_provenance("call[0].order_id") == (0, ["order_id"])
    assert parse_provenance("call[0][0].customer_id") == (0, [0, "customer_id"])
    assert parse_provenance("call[12]") == (12, [])
    assert parse_provenance("call[1].items[0].id") == (1, ["items", 0, "id"])
    assert parse_provenance("call[0].0") == (0, ["0"])  # a field is a key, digits too
    for source in ("user", "constant", None, 3, "Call[0].x"):
        assert parse_provenance(source) is None and provenance_call(source) is None
    for bad in ("call[x].id", "call[0]id", "call[0].", "call[0]..id", "call[-1].id", "call[0].id]", "call[0"):
        with pytest.raises(ValueError, match="not a provenance path"):
            parse_provenance(bad)


def test_provenance_resolves_in_the_results_and_names_the_calls_read():
    results = [[{"order_id": "ord_1", "items": [{"id": 7}]}], {"customer_id": "cus_2"}]
    assert resolve_provenance("call[0][0].order_id", results) == "ord_1"
    assert resolve_provenance("call[0][0].items[0].id", results) == 7
    assert resolve_provenance("call[1].customer_id", results) == "cus_2"
    assert resolve_provenance("call[1]", results) == results[1]
    with pytest.raises(KeyError):
        resolve_provenance("call[1].email", results)
    with pytest.raises(IndexError):
        resolve_provenance("call[2].id", results)
    with pytest.raises(TypeError):
        resolve_provenance("call[0].order_id", results)  # a list has no fields
    with pytest.raises(ValueError):
        resolve_provenance("user", results)
    assert read_calls({"a": "call[1].x", "b": "user", "c": "call[0][0].y", "d": "constant"}) == [1, 0]
    assert read_calls(None) == []


def shipped_read_task(env, policy=None):
    """A read task on the shop: the status of order ord_0010 (shipped), read with get_order."""
    env.reset()
    task = {
        "kind": "read",
        "seed": None,
        "gold_state_hash": env.state_hash(),
        "scoring": {"state": True, "answer_facts": True},
        "answer_facts": ["shipped"],
        "gold_calls": [{"tool": "get_order", "arguments": {"order_id": "ord_0010"}}],
    }
    return task | ({"policy": policy} if policy else {})


def test_a_recital_of_the_policy_is_no_refusal_and_no_answer(shop):
    """Quoting the environment's policy back (the system prompt) declines and names every rule at once: it is
    taken neither for a refusal of this request nor for an answer to a question."""
    task = policy_task(shop, state=True)
    other = {"tool": "update_customer_email", "text": "a VIP customer's email cannot be changed by support"}
    task["policy"] = {**task["policy"], "rules": [task["policy"]["task_rule"], other]}
    recital = (
        "Policy: only pending orders can be cancelled. A VIP customer's email cannot be changed by support."
    )
    assert check_trajectory(conversation([], REFUSAL), task, shop)["policy"] is True
    assert check_trajectory(conversation([], recital), task, shop)["policy"] is False
    read = shipped_read_task(shop, policy={"rules": [other], "text": recital})
    calls = [ran(shop, "get_order", order_id="ord_0010")]
    assert check_trajectory(conversation(calls, "Order ord_0010 has shipped."), read, shop)["answer"] is True
    echoed = check_trajectory(conversation(calls, f"{recital} Status: shipped."), read, shop)
    assert echoed["answer"] is False


def test_pasting_the_asked_record_is_no_answer(shop):
    """A tool's result pasted as it came (`{"order_id": ..., "status": ..., ...}`) states the asked fact among
    every field of the record: no person answers that way, however few rows it holds."""
    read = shipped_read_task(shop)
    calls = [ran(shop, "get_order", order_id="ord_0010")]
    record = shop.step("get_order", {"order_id": "ord_0010"})["result"]
    assert len(record) > 5
    assert check_trajectory(conversation(calls, "Order ord_0010 has shipped."), read, shop)["answer"] is True
    pasted = check_trajectory(conversation(calls, f"Here it is: {json.dumps(record)}"), read, shop)
    assert pasted["answer"] is False


def test_a_write_task_asks_no_fact_yet_a_dump_as_the_final_message_fails_it(shop):
    """A task that asks for no fact is not scored on its answer, but a final message pasting records is never
    training data: the call-everything agent that does the write and then pastes every result is dropped."""
    shop.reset()
    gold = [{"tool": "cancel_order", "arguments": {"order_id": "ord_0009"}}]
    assert shop.step("cancel_order", {"order_id": "ord_0009"})["ok"]
    task = {
        "kind": "write",
        "seed": None,
        "gold_state_hash": shop.state_hash(),
        "scoring": {"state": True, "answer_facts": False},
        "gold_calls": gold,
    }
    calls = [ran(shop, "cancel_order", order_id="ord_0009")]
    done = check_trajectory(conversation(calls, "Done: order ord_0009 is cancelled."), task, shop)
    assert done["answer"] is None and done["state"] is True
    orders = shop.step("list_orders", {"customer_id": "cus_0001"})["result"]
    dumped = check_trajectory(conversation(calls, f"Here is everything: {json.dumps(orders)}"), task, shop)
    assert dumped["state"] is True and dumped["answer"] is False
