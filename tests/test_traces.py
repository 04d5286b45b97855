"""Traces worth learning from (issue 19): the scripted agent's messages are grounded in what its tools
returned and vary by episode seed, and the `consistent` check drops a final message that contradicts
the tool results (the "Done" with the old value, the success claimed after a refused call).

Episodes run on the real fixture shop, with hand-made tasks in the format the task stage writes them.
"""

import asyncio
import json
import random

import pytest

from envscale.env import Environment
from envscale.judge import DEFAULT_LEVELS, check_consistent, judge_trajectory
from envscale.rollout.episode import run_episode, tool_content
from envscale.rollout.scripted import ScriptedAgent, ScriptedUser

SHOP = "tests/fixtures/envs/shop.yaml"


@pytest.fixture
def shop():
    with Environment.from_yaml(SHOP) as env:
        env.reset()
        yield env


def pending_order(env):
    return next(r["order_id"] for r in env.dump()["orders"] if r["status"] == "pending")


def write_task(env, calls, kind="write", answer_facts=(), **extra):
    """A task whose gold is `calls` run on `env` from its initial state (the env is reset after)."""
    env.reset()
    before = env.snapshot()
    results = [env.step(c["tool"], c["arguments"])["result"] for c in calls]
    task = {
        "task_id": "t1",
        "kind": kind,
        "seed": None,
        "first_message": "Hello, can you help me?",
        "tools": [t["name"] for t in env.spec["tools"]],
        "write_tools": [t["name"] for t in env.spec["tools"] if t.get("kind") == "write"],
        "gold_calls": [{**c, "provenance": {}} for c in calls],
        "gold_results": results,
        "gold_diff": env.diff(before),
        "gold_state_hash": env.state_hash(),
        "answer_facts": list(answer_facts),
        "scoring": {"state": True, "answer_facts": bool(answer_facts), "required_actions": []},
        "instructions": {"goal": "I want to cancel my order.", "hidden_facts": {}},
        **extra,
    }
    env.reset()
    return task


def play(env, task, seed):
    env.reset()
    agent = ScriptedAgent(task, random.Random(seed), {})
    return asyncio.run(run_episode(task, env, agent, ScriptedUser(task, None)))


# ----------------------------------------------------------------------------- the scripted agent's words


def test_the_closing_after_a_write_says_what_was_done_to_which_row_with_the_values_returned(shop):
    order = pending_order(shop)
    task = write_task(shop, [{"tool": "cancel_order", "arguments": {"order_id": order}}])
    closings = {play(shop, task, seed)["final_answer"] for seed in range(12)}
    for text in closings:
        assert order in text and "cancelled" in text  # the row and its new status, as the result shows
        assert "everything you asked for" not in text
    assert len(closings) >= 3  # a few phrasings, chosen by the episode's seed
    assert play(shop, task, 5)["final_answer"] == play(shop, task, 5)["final_answer"]  # deterministic


def test_the_closing_states_the_asked_facts_with_the_field_they_are_read_from(shop):
    order = shop.dump()["orders"][0]
    task = write_task(
        shop, [{"tool": "get_order", "arguments": {"order_id": order["order_id"]}}], "read", [order["status"]]
    )
    text = play(shop, task, 0)["final_answer"]
    assert f"status of order {order['order_id']} is {order['status']}" in text.lower()


def test_a_clarifying_question_names_the_missing_fact_and_a_refusal_cites_the_policy_rule(shop):
    order = pending_order(shop)
    rule = {"tool": "cancel_order", "text": "refused: only pending orders can be cancelled"}
    task = write_task(
        shop,
        [{"tool": "get_order", "arguments": {"order_id": order}}],
        "policy",
        ["pending"],
        policy={"text": "...", "task_rule": rule},
        instructions={"goal": "I want to cancel order 7.", "hidden_facts": {"order number": order}},
    )
    messages = play(shop, task, 0)["messages"]
    assert "order number" in messages[2]["content"] and messages[2]["content"].endswith("?")
    refusal = messages[-2]["content"] if messages[-1]["role"] == "user" else messages[-1]["content"]
    assert "only pending orders can be cancelled" in refusal and "cancel order 7" in refusal
    assert "pending" in refusal.replace("only pending orders", "")  # the fact that makes the rule apply


# ----------------------------------------------------------------------------- the `consistent` check


def episode(env, steps, answer):
    """A trajectory whose tool answers are what `env` returned for `steps` (`(tool, arguments)`)."""
    messages = [{"role": "system", "content": "policy"}, {"role": "user", "content": "please"}]
    calls = []
    for i, (tool, arguments) in enumerate(steps):
        obs = env.step(tool, arguments)
        call = {"id": f"c{i}", "type": "function", "function": {"name": tool, "arguments": arguments}}
        messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": tool_content(obs)})
        calls.append({"tool": tool, "arguments": arguments, "ok": obs["ok"], "code": obs.get("code")})
    messages.append({"role": "assistant", "content": answer})
    return {"messages": messages, "calls": calls, "final_answer": answer, "status": "completed"}


def test_a_final_message_with_the_old_value_is_rejected_and_the_true_one_kept(shop):
    customer = shop.dump()["customers"][0]
    old, new = customer["email"], "new.address@example.org"
    steps = [
        ("get_customer", {"customer_id": customer["customer_id"]}),
        ("update_customer_email", {"customer_id": customer["customer_id"], "email": new}),
    ]
    shop.reset()
    shop.step(*steps[1])
    task = {"seed": None, "gold_state_hash": shop.state_hash(), "scoring": {"state": True}, "gold_calls": []}
    for answer, holds in (
        (f"Done: the email is now {old}.", False),  # the "Done" with the old value
        (f"Done: your email is {old}.", False),
        (f"Done: the email is now {new}.", True),
        (f"I've updated it; your email address was {old} and is now {new}.", True),
    ):
        shop.reset()
        trajectory = episode(shop, steps, answer)
        judgement = judge_trajectory(trajectory, task, shop, DEFAULT_LEVELS)
        assert judgement.checks["state"] is True  # the outcome is right either way
        assert judgement.checks["consistent"] is holds, answer
        assert judgement.passed is holds and judgement.failed == ([] if holds else ["consistent"])


def test_success_claimed_after_a_refused_last_call_is_rejected(shop):
    steps = [("cancel_order", {"order_id": "ord_9999"})]  # no such order: an error observation
    for answer, holds in (
        ("Done: everything you asked for has been taken care of.", False),
        ("I've cancelled order ord_9999.", False),
        ("I'm sorry, I couldn't cancel it: there is no order ord_9999.", True),
        ('The system answered: {"note": "Order updated by Ann"}', True),  # a quoted result claims nothing
    ):
        shop.reset()
        messages = episode(shop, steps, answer)["messages"]
        assert json.loads(messages[-2]["content"])["code"]  # the last tool answer is an error
        assert check_consistent(messages) is holds, answer


def test_a_longer_field_is_not_read_as_its_last_word():
    row = {"group_id": "gro_1", "display_name": "Rebecca Wilson", "name": "Vega Group"}
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "a", "function": {"name": "add", "arguments": {}}}],
        },
        {"role": "tool", "tool_call_id": "a", "content": json.dumps(row)},
        {
            "role": "assistant",
            "content": "Its display name is now Rebecca Wilson and its name is now Vega Group.",
        },
    ]
    assert check_consistent(messages)
    messages[-1]["content"] = "Its display name is now Rebecca Wilson and its name is now Rebecca Wilson."
    assert not check_consistent(messages)


def test_a_value_that_opens_with_a_quote_is_stated_when_quoted_once_more():
    """A ticket's message `"Review dashboard loading time": steps ...` said back as `its message is now ""Review
    ...": steps ..."`: the value the result shows, not a contradiction (a gold trajectory was rejected)."""
    message = '"Review dashboard loading time": steps to reproduce are attached.'
    row = {"ticket_id": "tic_0021", "subject": "Review dashboard loading time", "message": message}
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "a", "function": {"name": "add", "arguments": {}}}],
        },
        {"role": "tool", "tool_call_id": "a", "content": json.dumps(row)},
        {"role": "assistant", "content": f'I\'ve created ticket tic_0021; its message is now "{message}".'},
    ]
    assert check_consistent(messages)
    messages[-1]["content"] = (
        'I\'ve created ticket tic_0021; its message is now "Steps to reproduce are attached".'
    )
    assert not check_consistent(messages)


def test_a_fact_read_before_a_write_changed_it_is_said_in_the_past(shop):
    order = pending_order(shop)
    calls = [
        {"tool": "get_order", "arguments": {"order_id": order}},
        {"tool": "cancel_order", "arguments": {"order_id": order}},
    ]
    task = write_task(shop, calls, "mixed", ["pending"])
    result = play(shop, task, 0)
    text = result["final_answer"]
    assert f"status of order {order} was pending" in text and "cancelled" in text
    assert check_consistent(result["messages"])


def test_true_messages_the_check_was_not_written_for_are_kept(shop):
    customer = shop.dump()["customers"][0]
    cid, old, new = customer["customer_id"], customer["email"], "new.address@example.org"
    change = [
        ("get_customer", {"customer_id": cid}),
        ("update_customer_email", {"customer_id": cid, "email": new}),
    ]
    for steps, answer in (
        # a refused call after the one that did it: the order is cancelled all the same
        (
            [("cancel_order", {"order_id": pending_order(shop)}), ("cancel_order", {"order_id": "ord_9999"})],
            "Your order has been cancelled.",
        ),
        (change, f'You said "my email is {old}". Done: the email is now {new}.'),  # the user's words, quoted
        (change, f"Your previous email is {old}; the email is now {new}."),  # the old value, said as such
        (change, f"Email: {old} -> {new}"),  # both values, in order
        (change, f'Done: the email is now "{new}".'),  # the new value, quoted
        (
            [("cancel_order", {"order_id": "ord_9999"})],
            "Policy doesn't allow that; I have sent a note to the team.",
        ),
    ):
        shop.reset()
        assert check_consistent(episode(shop, steps, answer)["messages"]) is True, answer


def test_false_messages_are_still_rejected(shop):
    customer = shop.dump()["customers"][0]
    cid, old, new = customer["customer_id"], customer["email"], "new.address@example.org"
    change = [
        ("get_customer", {"customer_id": cid}),
        ("update_customer_email", {"customer_id": cid, "email": new}),
    ]
    for steps, answer in (
        ([("cancel_order", {"order_id": "ord_9999"})], "Done, it is taken care of."),  # every call refused
        (change, f"Done: the email is now {old}."),  # the old value as the new one
        (change, f'Done. The email is now {old} ("{new}" was what you asked for).'),  # outside the quotes
    ):
        shop.reset()
        assert check_consistent(episode(shop, steps, answer)["messages"]) is False, answer


def test_malformed_calls_and_huge_numbers_never_crash_the_check(shop):
    messages = episode(shop, [("cancel_order", {"order_id": pending_order(shop)})], "Done: it is cancelled.")[
        "messages"
    ]
    call = messages[2]["tool_calls"][0]
    for arguments in ('{"order_id": "ord_0009"', "[1, 2]", "null", "", 10**400):
        call["function"]["arguments"] = arguments
        assert check_consistent(messages) is True, arguments
    call["function"] = "cancel_order"  # a function that is no object
    assert check_consistent(messages) is True
    messages[3]["content"] = json.dumps({"order_id": "x", "total": 10**400})
    assert check_consistent(messages + [{"role": "assistant", "content": "the total is 5"}]) in (True, False)


def test_a_delete_is_said_with_the_name_of_the_row_it_removed():
    """ "Done: the break point is deleted." closed 6.2% of the openapi sample's kept trajectories: a delete that
    returns nothing and is addressed by two keys named no row. The removed row the arguments address is named
    (its name or title), and a delete has as many phrasings as any other write."""
    from envscale.rollout.closing import describe_write, write_sentence

    diff = {
        "breakpoints": {
            "added": [],
            "removed": [{"breakpoint_id": "bre_0007", "project_id": "pro_0001", "name": "Main loop"}],
            "changed": [],
        }
    }
    args = {"project_id": "pro_0001", "breakpoint_id": "bre_0007"}
    write = describe_write("delete_breakpoint", args, None, diff)
    sentences = {write_sentence(write, random.Random(seed)) for seed in range(30)}
    assert all('"Main loop"' in s and "deleted" in s for s in sentences), sentences
    assert len(sentences) >= 5, sentences
    other = describe_write(
        "delete_breakpoint", {"project_id": "pro_0001", "breakpoint_id": "bre_0009"}, None, diff
    )
    assert all(
        "Main loop" not in write_sentence(other, random.Random(s)) for s in range(10)
    )  # not the row it removed


def test_a_flag_named_after_the_status_said_beside_it_is_not_said_again():
    """ "Document 14 has been cancelled: cancelled yes and status cancelled" closed the quickstart's most common
    kept trajectory once an act set the row's flag with its status: the status says it once."""
    from envscale.rollout.closing import describe_write, write_sentence

    before = {"document_id": 14, "status": "draft", "cancelled": False, "title": "Lease"}
    after = {"document_id": 14, "status": "cancelled", "cancelled": True, "title": "Lease"}
    diff = {"documents": {"added": [], "removed": [], "changed": [{"before": before, "after": after}]}}
    write = describe_write("cancel_document", {"document_id": 14}, after, diff)
    sentences = {write_sentence(write, random.Random(seed)) for seed in range(20)}
    assert all("yes" not in s and "cancelled" in s for s in sentences), sentences
