"""Conversations (issue 19, item 6): two or three requests from one user in a row, composed into one task,
played by the scripted user and agent one request at a time, and judged on the final state after every
request and the union of the answer facts.

Tasks are built on the fixture store (`tests/fixtures/envs/store.yaml`), by the generator itself or, for
the rules of composition, from hand-made one-request tasks in the format the generator writes them.
"""

import asyncio
import itertools
import json
import random

import pytest

from envscale.env import Environment, load_spec
from envscale.judge import DEFAULT_LEVELS, judge_trajectory
from envscale.judge.checks import answer_text
from envscale.rollout.episode import run_episode
from envscale.rollout.scripted import ScriptedAgent, ScriptedUser, requests_of
from envscale.rollout.user import user_system_prompt
from envscale.schemas import STOP, TASKS_FEATURES
from envscale.tasks.build import STAGE_COLUMNS, TasksConfig
from envscale.tasks.conversations import compose, compose_conversations, first_request_passes, follow_up
from envscale.tasks.generate import env_tasks
from envscale.tasks.prepared import Env

STORE = "tests/fixtures/envs/store.yaml"


def store_row():
    return {"spec": load_spec(STORE)}


@pytest.fixture(scope="module")
def conversations():
    """The conversations the generator composes in the store (seeds 1 and 2), with their one-request tasks."""
    out = []
    for seed in (1, 2):
        kept, _ = env_tasks(
            store_row(), TasksConfig(tasks_per_env=12, conversation_share=0.5), [], random.Random(seed)
        )
        out += [t for t in kept if t["requests"]]
    assert len(out) >= 3
    return out


@pytest.fixture
def store():
    with Environment.from_yaml(STORE) as env:
        yield env


def part(env, calls, message, facts=None, answer_facts=()):
    """A one-request task whose gold is `calls` on the store's initial state (the generator's row format)."""
    env.reset()
    results = []
    for c in calls:
        obs = env.step(c["tool"], c["arguments"])
        assert obs["ok"], obs
        results.append(obs["result"])
    writes = {t["name"] for t in env.spec["tools"] if t["kind"] == "write"}
    n_writes = sum(c["tool"] in writes for c in calls)
    return {
        "kind": "write" if n_writes else "read",
        "difficulty": {"chain_length": len(calls), "n_writes": n_writes, "shape": "single"},
        "scoring": {
            "state": bool(n_writes),
            "answer_facts": bool(answer_facts),
            "required_actions": [c["tool"] for c in calls if c["tool"] in writes],
            "forbidden_actions": [],
        },
        "instructions": {
            "persona": "A customer.",
            "goal": message,
            "known_facts": facts or {},
            "done_when": "",
        },
        "first_message": message,
        "requests": [],
        "tools": [c["tool"] for c in calls],
        "gold_calls": [{**c, "provenance": {}} for c in calls],
        "gold_results": results,
        "answer_facts": list(answer_facts),
        "policy": {},
        "seed": None,
        "notes": [],
    }


def call(tool, **arguments):
    return {"tool": tool, "arguments": arguments}


# ----------------------------------------------------------------------------- tasks


def test_a_conversation_is_its_requests_run_together_from_the_initial_state(conversations, store):
    for task in conversations:
        requests = task["requests"]
        assert 2 <= len(requests) <= 3 and task["difficulty"]["n_requests"] == len(requests)
        assert task["difficulty"]["shape"] == "conversation"
        assert set(TASKS_FEATURES) - set(STAGE_COLUMNS) <= set(task)
        # the requests' calls follow each other and make up the gold calls
        assert requests[0]["calls"][0] == 0 and requests[-1]["calls"][1] == len(task["gold_calls"])
        assert all(a["calls"][1] == b["calls"][0] for a, b in zip(requests, requests[1:], strict=False))
        assert task["first_message"] == requests[0]["message"]
        assert task["instructions"]["requests"] == [r["message"] for r in requests]
        for follow in requests[1:]:  # brought up after the one before: thanks, no second greeting
            assert follow["message"].split()[0].rstrip(".,!") in (
                "Thanks",
                "Great",
                "Perfect",
                "Thank",
                "Got",
            )
            assert "Hello" not in follow["message"] and "Hi" not in follow["message"].split()
        facts = [f for r in requests for f in r["answer_facts"]]
        assert task["answer_facts"] == list(dict.fromkeys(facts))
        # one gold run: the later requests see the earlier writes, and the state is the one after them all
        store.reset()
        for c in task["gold_calls"]:
            assert store.step(c["tool"], c["arguments"])["ok"]
        assert store.state_hash() == task["gold_state_hash"]


def test_no_conversation_without_a_share(store):
    kept, rejected = env_tasks(
        store_row(), TasksConfig(tasks_per_env=12, conversation_share=0), [], random.Random(1)
    )
    assert kept and not any(t["requests"] for t in kept)
    assert not any(r["kind"] == "conversation" for r in rejected)


def test_a_later_request_that_undoes_an_earlier_one_is_no_conversation(store):
    e = Env(store_row(), TasksConfig())
    pay = part(store, [call("pay_order", order_id="ord_0001")], "Please pay my order ord_0001.")
    cancel = part(store, [call("cancel_order", order_id="ord_0001")], "Please cancel my order ord_0001.")
    stock = part(store, [call("adjust_stock", sku="inv_0002", delta=10)], "Add 10 to the stock of inv_0002.")
    rng = random.Random(0)
    # cancelling the order just paid changes its status again: the payment is no longer in the final state
    row, drop = compose(e, [pay, cancel], rng)
    assert row is None and drop[0] == "conversation_overwrites"
    row, drop = compose(e, [cancel, stock], rng)
    assert drop is None and row["difficulty"]["n_writes"] == 2 and row["kind"] == "write"
    assert row["requests"][1]["message"].endswith("add 10 to the stock of inv_0002.")
    e.env.close()


def test_requests_from_two_people_are_no_conversation(store):
    e = Env(store_row(), TasksConfig())
    mine = part(
        store,
        [call("get_order", order_id="ord_0001")],
        "What is the status of my order ord_0001? My customer id is cus_0001.",
        {"customer id": "cus_0001", "order number": "ord_0001"},
        ["pending"],
    )
    also_mine = part(
        store,
        [call("cancel_order", order_id="ord_0001")],
        "Please cancel my order ord_0001. My customer id is cus_0001.",
        {"customer id": "cus_0001", "order number": "ord_0001"},
    )
    someone_else = {
        **also_mine,
        "first_message": "Please cancel my order ord_0001. My customer id is cus_0002.",
        "instructions": {**also_mine["instructions"], "known_facts": {"customer id": "cus_0002"}},
    }
    rows, _ = compose_conversations(e, [mine, someone_else], 2, random.Random(0))
    assert rows == []
    # seed 91: "Customer id: cus_0001." in one request, "my customer id is cus_0002" in the next: two people
    plain = {**mine, "first_message": "What is the status of order ord_0001? Customer id: cus_0001."}
    rows, _ = compose_conversations(e, [plain, someone_else], 2, random.Random(0))
    assert rows == []
    rows, _ = compose_conversations(e, [mine, also_mine], 2, random.Random(0))
    assert len(rows) == 1 and [r["message"].split(":")[0] for r in rows[0]["requests"]][0].startswith("What")
    # the customer id said once is not said again in the follow-up
    assert "cus_0001" not in rows[0]["requests"][1]["message"]
    e.env.close()


def test_stopping_after_the_first_request_must_fail_the_task(conversations, store):
    for task in conversations:
        assert first_request_passes(task, store) is None
    # a conversation whose later request adds nothing to check: stopping after the first passes, so it is dropped
    first = next(t for t in conversations if t["requests"][0]["answer_facts"])
    hollow = {
        **first,
        "scoring": {**first["scoring"], "state": False, "required_actions": []},
        "answer_facts": first["requests"][0]["answer_facts"],
    }
    assert first_request_passes(hollow, store)[0] == "first_request_passes"


def test_follow_up_reads_like_the_next_message():
    said = "Hello, please cancel my order ord_0005. My customer id is cus_0001."
    text = follow_up(
        "Hi there. Please pay my order ord_0001. My customer id is cus_0001. Thanks!",
        random.Random(0),
        False,
        said,
    )
    assert text.endswith("please pay my order ord_0001.") and "Hi" not in text and "Thanks!" not in text
    for opening in (
        "Um, hello. I was wondering",
        "Hi, I'm not sure this is the right place, but I was wondering",
    ):
        text = follow_up(f"{opening} if you could pay my order ord_0001?", random.Random(0), False)
        assert text.endswith(": I was wondering if you could pay my order ord_0001?"), text


# ----------------------------------------------------------------------------- rollout and judge


def play(env, task, seed=0, user_task=None):
    """One scripted episode of `task` (the user given `user_task` when set: one who stops early)."""
    env.reset()
    task = {**task, "write_tools": sorted(t["name"] for t in env.spec["tools"] if t["kind"] == "write")}
    agent = ScriptedAgent(task, random.Random(seed), {})
    user = ScriptedUser(user_task or task, random.Random(seed))
    return asyncio.run(run_episode(task, env, agent, user))


def test_the_scripted_pair_plays_one_request_at_a_time_and_passes(conversations, store):
    for task in conversations:
        trajectory = play(store, task)
        messages = trajectory["messages"]
        said = [m["content"] for m in messages if m["role"] == "user"]
        # the user says each request in order, the next once the agent has answered the one before, then stops
        assert said[: len(task["requests"])] == [r["message"] for r in task["requests"]]
        assert STOP in said[-1] and len(said) == len(task["requests"]) + 1
        for n, request in enumerate(task["requests"]):
            at = next(
                i
                for i, m in enumerate(messages)
                if m["role"] == "user" and m["content"] == request["message"]
            )
            turn = messages[
                at + 1 : next(i for i in range(at + 1, len(messages)) if messages[i]["role"] == "user")
            ]
            made = [c["function"]["name"] for m in turn for c in m.get("tool_calls") or []]
            start, end = request["calls"]
            assert made == [c["tool"] for c in task["gold_calls"][start:end]], n  # this request's calls only
            assert turn[-1]["role"] == "assistant" and turn[-1]["content"] and not turn[-1].get("tool_calls")
        judged = judge_trajectory(trajectory, task, store, DEFAULT_LEVELS)
        assert judged.passed, (task["task_id"] if "task_id" in task else task["first_message"], judged.failed)


def test_a_trajectory_that_stops_after_the_first_request_fails(conversations, store):
    for task in conversations:
        stops = {**task, "requests": task["requests"][:1]}  # a user who stops after the first request
        trajectory = play(store, task, user_task=stops)
        # the episode knows the user stopped early; and whatever the status, the outcome is not reached
        assert trajectory["status"] == "user_error" and "user_premature_stop" in trajectory["error"]
        judged = judge_trajectory({**trajectory, "status": "completed"}, task, store, DEFAULT_LEVELS)
        assert not judged.passed and ({"state", "answer"} & set(judged.failed)), judged.failed


def test_answer_facts_of_every_request_are_read_from_every_answer(conversations, store):
    task = next(t for t in conversations if t["requests"][0]["answer_facts"] and len(t["requests"]) >= 2)
    trajectory = play(store, task)
    text = answer_text(trajectory, task)
    assert all(f.lower() in text.lower() for f in task["answer_facts"])
    assert answer_text(trajectory, {"requests": []}) == trajectory["final_answer"]


def test_a_task_without_requests_is_one_request():
    task = {"first_message": "Cancel my order.", "gold_calls": [{}, {}], "answer_facts": ["x"]}
    assert requests_of(task) == [{"message": "Cancel my order.", "calls": [0, 2], "answer_facts": ["x"]}]


def test_the_model_user_is_told_its_requests_in_order():
    prompt = user_system_prompt(
        {"goal": "g"}, "plain", ["Cancel my order.", "Thanks. One more thing: pay it."]
    )
    assert (
        "2 requests" in prompt and "1. Cancel my order." in prompt and "2. Thanks. One more thing" in prompt
    )
    assert "requests" not in user_system_prompt({"goal": "g"}, "plain", ["Cancel my order."])
    assert json.dumps(prompt)  # plain text


def test_a_request_made_twice_is_no_conversation(store):
    e = Env(store_row(), TasksConfig())
    look = part(
        store,
        [call("get_order", order_id="ord_0005")],
        "What is the status of my order ord_0005?",
        None,
        ["pending"],
    )
    look_and_cancel = part(
        store,
        [call("get_order", order_id="ord_0005"), call("cancel_order", order_id="ord_0005")],
        "Please check the status of my order ord_0005, then cancel it.",
        None,
        ["pending"],
    )
    cancel = part(store, [call("cancel_order", order_id="ord_0005")], "Please cancel my order ord_0005.")
    # asking again for the status just told: not a conversation; the status, then the cancellation: one
    rows, _ = compose_conversations(e, [look, look_and_cancel], 2, random.Random(0))
    assert rows == []
    rows, _ = compose_conversations(e, [look, cancel], 2, random.Random(0))
    assert [[c["tool"] for c in r["gold_calls"]] for r in rows] == [["get_order", "cancel_order"]]
    e.env.close()


def test_every_answer_of_a_conversation_is_held_to_its_own_turn(store):
    e = Env(store_row(), TasksConfig())
    cancel = part(store, [call("cancel_order", order_id="ord_0005")], "Please cancel my order ord_0005.")
    stock = part(store, [call("adjust_stock", sku="inv_0002", delta=10)], "Add 10 to the stock of inv_0002.")
    task, drop = compose(e, [cancel, stock], random.Random(0))
    e.env.close()
    assert drop is None
    trajectory = play(store, task)
    assert judge_trajectory(trajectory, task, store, DEFAULT_LEVELS).passed
    # the first answer says the order is now paid, while the cancel it made returned it cancelled
    messages = [dict(m) for m in trajectory["messages"]]
    first = next(i for i, m in enumerate(messages) if m["role"] == "assistant" and not m.get("tool_calls"))
    messages[first]["content"] = "I've updated order ord_0005; its status is now paid."
    judged = judge_trajectory({**trajectory, "messages": messages}, task, store, DEFAULT_LEVELS)
    assert judged.checks["consistent"] is False


def test_show_reads_each_request_of_a_conversation(conversations):
    from envscale.show.tasks import render_task

    task = conversations[0]
    text = " ".join(render_task({**task, "task_id": "store-0001-abcd1234", "split": "train"}).split())
    message = " ".join(task["requests"][1]["message"].split())
    assert "shape conversation" in text and f'"{message}"' in text
    start, end = task["requests"][1]["calls"]
    assert "then request 2" in text and (
        f"gold call {end})" in text or f"gold calls {start + 1}-{end})" in text
    )


# ----------------------------------------------------------------------------- the stages


def test_rollout_and_filter_play_conversations_and_a_tasks_artifact_of_schema_1_1_still_rolls_out(
    fixture_environments, tmp_path
):
    import shutil

    import pyarrow.parquet as pq

    from envscale.artifacts import open_artifact
    from envscale.judge.filter import FilterConfig, filter_trajectories
    from envscale.rollout.run import RolloutConfig, rollout
    from envscale.tasks.build import generate_tasks

    # seed 1: the fixture's draw with conversations (seed 0 composed one, then none once parents were found
    # two levels deep; seeds 0 and 1 probed at 8-14 tasks an environment)
    tasks = generate_tasks(
        fixture_environments, TasksConfig(tasks_per_env=10, test_env_share=0.0, seed=1), tmp_path / "t"
    )
    assert tasks.manifest["schema_version"] == "1.2"
    rows = list(tasks.load("tasks", "train"))
    conversations = {t["task_id"] for t in rows if t["requests"]}
    assert conversations
    trajectories = rollout(tasks, RolloutConfig(), tmp_path / "traj")
    played = [t for t in trajectories.load("trajectories") if t["task_id"] in conversations]
    assert played and all(t["status"] == "completed" and t["turns"] >= 3 for t in played)
    kept = filter_trajectories(trajectories, FilterConfig(), tmp_path / "filtered")
    assert any(t["task_id"] in conversations for t in kept.load("filtered"))

    # the same artifact as tasks schema 1.1 wrote it: no `requests` column; every task is one request
    old = tmp_path / "old"
    shutil.copytree(tasks.location, old)
    for path in old.rglob("tasks/*.parquet"):
        table = pq.read_table(path)
        table = table.drop(["requests"]).replace_schema_metadata(None)
        pq.write_table(table, path)
    for path in old.rglob("envscale.json"):  # 1.1 had no digests of its files either
        manifest = json.loads(path.read_text().replace('"schema_version": "1.2"', '"schema_version": "1.1"'))
        manifest.pop("files", None)
        path.write_text(json.dumps(manifest))
    old_tasks = open_artifact(old)
    assert set(old_tasks.load("tasks", "train")["requests"]) == {None}  # the column is missing: read as null
    replayed = rollout(old_tasks, RolloutConfig(max_tasks=6), tmp_path / "old_traj")
    assert all(t["status"] == "completed" for t in replayed.load("trajectories"))


def test_a_model_user_that_stops_before_bringing_up_every_request_is_a_user_failure():
    from envscale.rollout.user import check_user_reply

    done = {"agent_asked": False, "writes_needed": True, "writes_done": 1}
    # the second user message of a conversation of two requests cannot both bring up the second and stop
    why = check_user_reply(f"Thanks! {STOP}", requests=2, message=2, **done)
    assert why and why.startswith("user_premature_stop") and "2 requests" in why
    assert check_user_reply(f"Thanks! {STOP}", requests=2, message=3, **done) is None
    assert check_user_reply(f"Thanks! {STOP}", requests=1, message=2, **done) is None


def test_related_rows_share_a_key_a_number_only_with_its_entity():
    from envscale.tasks.conversations import keys_of

    def task(arguments, result):
        return {"gold_calls": [{"tool": "t", "arguments": arguments}], "gold_results": [result]}

    document = task({"id": 6}, {"document_id": 6, "partner_id": 16, "name": "Q3 report"})
    product = task({"id": 6}, {"product_id": 6, "name": "Skillet"})
    partner = task({"partnerId": 16}, {"partner_id": 16, "email": "ann@example.com"})
    order = task({"order_id": "ord_0003"}, {"order_id": "ord_0003", "customer_id": "cus_0001"})
    customer = task({"customer_id": "cus_0001"}, {"customer_id": "cus_0001", "email": "ann@example.com"})
    assert not keys_of(document) & keys_of(product)  # document 6 and product 6 are no relation
    assert keys_of(document) & keys_of(partner) == {"partner id=16"}  # the document's partner
    assert keys_of(order) & keys_of(customer) == {"cus_0001"}  # the customer of the order


def test_two_requests_are_asked_together_in_one_conversation_at_most():
    for seed in (1, 2):
        kept, _ = env_tasks(
            store_row(), TasksConfig(tasks_per_env=12, conversation_share=1.0), [], random.Random(seed)
        )
        seen = set()
        for task in (t for t in kept if t["requests"]):
            calls = [
                json.dumps(task["gold_calls"][slice(*r["calls"])], sort_keys=True) for r in task["requests"]
            ]
            pairs = {frozenset(p) for p in itertools.combinations(calls, 2)}
            assert not pairs & seen, calls
            seen |= pairs


def test_a_later_request_acts_on_the_row_its_own_create_made_in_the_conversation():
    """Request 2 creates a member and adds a note to it: alone its create made mem_0021, after request 1's
    create it makes mem_0022, and the note must go to mem_0022 (a blind reading found it on mem_0021)."""
    from envscale.tasks.conversations import rebind

    note = {
        "tool": "add_note",
        "arguments": {"member_slug": "mem_0021", "body": "hi"},
        "provenance": {"member_slug": "call[2].member_slug", "body": "user"},
    }
    results = [{"member_slug": "mem_0021"}, {"note_id": "not_1"}, {"member_slug": "mem_0022"}]
    assert rebind(note, results) is None
    assert note["arguments"] == {"member_slug": "mem_0022", "body": "hi"}
    broken = {**note, "provenance": {"member_slug": "call[5].member_slug"}}
    assert "call[5].member_slug" in rebind(broken, results)


def test_a_later_request_acts_on_the_row_it_found_after_an_earlier_delete_moved_its_list():
    """Request 1 deletes the first configuration; request 2's own run found "Paul's Configuration" at [2] of the
    list, which is now at [1]: the delete must go to con_0003, not to the row that moved into [2] (a blind reading
    found "delete Paul's Configuration" deleting "Auckland Configuration")."""
    from envscale.judge.provenance import resolve_provenance
    from envscale.tasks.conversations import rebind

    delete = {
        "tool": "delete_configuration",
        "arguments": {"id": "con_0003"},
        "provenance": {"id": "call[2][2].configuration_id"},
    }
    listed = [
        {"configuration_id": f"con_000{i}", "name": name}
        for i, name in ((2, "Main"), (3, "Paul's"), (4, "Auckland"))
    ]
    results = [[], None, listed]
    assert rebind(delete, results) is None
    assert delete["arguments"] == {"id": "con_0003"}
    assert resolve_provenance(delete["provenance"]["id"], results) == "con_0003"  # the path the agent follows


def test_a_later_request_never_names_a_value_an_earlier_request_changed(store):
    # "rename customer Jia Dunn to James Smith", then "... the order of Jia Dunn": nobody finds her any more
    first = part(
        store,
        [call("update_my_email", email="ann.lee@example.org")],
        "Change my email to ann.lee@example.org.",
    )
    second = part(
        store,
        [call("list_my_orders")],
        "Which orders are on ann@example.com?",
        facts={"email": "ann@example.com"},
    )
    task, drop = compose(Env(store_row(), TasksConfig()), [first, second], random.Random(0))
    assert task is None and drop[0] == "conversation_conflict" and "ann@example.com" in drop[1], drop
    unrelated = part(store, [call("list_my_orders")], "Which orders do I have?", facts={"name": "Ann Lee"})
    task, drop = compose(Env(store_row(), TasksConfig()), [first, unrelated], random.Random(0))
    assert drop is None or "changed" not in drop[1], drop


def test_a_customers_request_and_a_staff_members_are_no_conversation(store):
    """One person asks a conversation's requests: "cancel my order" (a customer) and a back-office change of
    another customer's row (staff) are not composed (`persona_role`), while two of a customer's are."""
    e = Env(store_row(), TasksConfig())

    def as_(persona, p):
        return {**p, "instructions": {**p["instructions"], "persona": persona}}

    customer = "You are a customer of an online shop."
    staff = "You are someone who works in the back office of an online shop."
    look = part(
        store,
        [call("get_order", order_id="ord_0001")],
        "What is the status of my order ord_0001? My customer id is cus_0001.",
        {"order number": "ord_0001"},
        ["pending"],
    )
    cancel = part(
        store,
        [call("cancel_order", order_id="ord_0001")],
        "Please cancel my order ord_0001. My customer id is cus_0001.",
        {"customer id": "cus_0001", "order number": "ord_0001"},
    )
    rows, _ = compose_conversations(e, [as_(customer, look), as_(staff, cancel)], 2, random.Random(0))
    assert rows == []
    rows, drops = compose_conversations(e, [as_(customer, look), as_(customer, cancel)], 2, random.Random(0))
    assert len(rows) == 1, drops
    e.env.close()


def _fed(task, index, arg, source):
    """`task` with its `index`-th gold call's `arg` read from `source` (a provenance path)."""
    task["gold_calls"][index]["provenance"] = {arg: source}
    return task


def test_a_read_an_earlier_request_made_is_not_made_again(store):
    """Two requests that each begin by looking the same order up: the conversation's agent reads it once, and
    the later write's key flows from that first read."""
    e = Env(store_row(), TasksConfig())
    restock = part(
        store,
        [call("get_order", order_id="ord_0005"), call("adjust_stock", sku="inv_0002", delta=10)],
        "Check my order ord_0005, then add 10 to the stock of inv_0002.",
    )
    cancel = _fed(
        part(
            store,
            [call("get_order", order_id="ord_0005"), call("cancel_order", order_id="ord_0005")],
            "Please cancel my order ord_0005.",
        ),
        1,
        "order_id",
        "call[0].order_id",
    )
    task, drop = compose(e, [restock, cancel], random.Random(0))
    e.env.close()
    assert drop is None
    assert [c["tool"] for c in task["gold_calls"]] == ["get_order", "adjust_stock", "cancel_order"]
    assert task["gold_calls"][2]["provenance"] == {"order_id": "call[0].order_id"}
    assert [r["calls"] for r in task["requests"]] == [[0, 2], [2, 3]]
    assert judge_trajectory(play(store, task), task, store, DEFAULT_LEVELS).passed


def test_a_read_an_earlier_write_changed_is_made_again(store):
    """When the first request's write changes what the second request's first read returns (the list of my
    orders, once one is cancelled), the read is made again at its turn."""
    e = Env(store_row(), TasksConfig())
    cancel = _fed(
        part(
            store,
            [call("list_my_orders"), call("cancel_order", order_id="ord_0001")],
            "Cancel my order of two lamps.",
        ),
        1,
        "order_id",
        "call[0][0].order_id",
    )
    pay = _fed(
        part(store, [call("list_my_orders"), call("pay_order", order_id="ord_0005")], "Pay for my kettle."),
        1,
        "order_id",
        "call[0][2].order_id",
    )
    task, drop = compose(e, [cancel, pay], random.Random(0))
    e.env.close()
    assert drop is None
    assert [c["tool"] for c in task["gold_calls"]] == [
        "list_my_orders",
        "cancel_order",
        "list_my_orders",
        "pay_order",
    ]
    assert task["gold_calls"][3]["provenance"] == {"order_id": "call[2][2].order_id"}
    assert task["gold_results"][2][0]["status"] == "cancelled"


def test_a_request_that_only_reads_again_is_no_conversation(store):
    e = Env(store_row(), TasksConfig())
    cancel = part(
        store,
        [call("get_order", order_id="ord_0005"), call("cancel_order", order_id="ord_0005")],
        "Please cancel my order ord_0005.",
    )
    stock = part(store, [call("adjust_stock", sku="inv_0002", delta=10)], "Add 10 to the stock of inv_0002.")
    look = part(store, [call("get_order", order_id="ord_0001")], "What is the status of my order ord_0001?")
    task, drop = compose(e, [cancel, stock], random.Random(0))
    assert drop is None
    look_again = part(store, [call("get_order", order_id="ord_0005")], "Look up my order ord_0005.")
    task, drop = compose(e, [stock, look, look_again], random.Random(0))
    assert drop is None and len(task["gold_calls"]) == 3
    task, drop = compose(e, [look_again, stock, look_again], random.Random(0))
    e.env.close()
    assert task is None and "only reads again" in drop[1]


def test_requests_on_rows_only_the_schema_calls_keys_are_related(tmp_path):
    """Google Tasks names its keys `tasklist` and `task`: no key name says so, the schema does."""
    from envscale.tasks.conversations import bound_keys, keys_of

    spec = load_spec(STORE)
    for tool in spec["tools"]:
        if tool["name"] == "cancel_order":
            tool["parameters"]["properties"]["order"] = tool["parameters"]["properties"].pop("order_id")
            tool["parameters"]["required"] = ["order"]
            tool["operation"]["key"] = {"order_id": "order"}
    e = Env({"spec": spec}, TasksConfig())
    task = {"gold_calls": [call("cancel_order", order="ord_0005")], "gold_results": [None]}
    keys = bound_keys(e, task)
    e.env.close()
    assert keys_of(task) == set() and keys == {"ord_0005"}


def test_only_the_read_an_earlier_write_changed_is_made_again(store):
    """Three requests that each begin with the list of my orders: the stock change leaves it as it was (the
    second request reads the first list), the cancellation does not (the third lists the orders again)."""
    e = Env(store_row(), TasksConfig())
    restock = part(
        store,
        [call("list_my_orders"), call("adjust_stock", sku="inv_0002", delta=10)],
        "Add 10 kettles to stock.",
    )
    cancel = _fed(
        part(
            store,
            [call("list_my_orders"), call("cancel_order", order_id="ord_0001")],
            "Cancel my lamp order.",
        ),
        1,
        "order_id",
        "call[0][0].order_id",
    )
    pay = _fed(
        part(store, [call("list_my_orders"), call("pay_order", order_id="ord_0005")], "Pay for my kettle."),
        1,
        "order_id",
        "call[0][2].order_id",
    )
    task, drop = compose(e, [restock, cancel, pay], random.Random(0))
    e.env.close()
    assert drop is None
    tools = [c["tool"] for c in task["gold_calls"]]
    assert tools == ["list_my_orders", "adjust_stock", "cancel_order", "list_my_orders", "pay_order"]
    assert task["gold_calls"][2]["provenance"] == {"order_id": "call[0][0].order_id"}
    assert task["gold_calls"][4]["provenance"] == {"order_id": "call[3][2].order_id"}
    assert [r["calls"] for r in task["requests"]] == [[0, 2], [2, 3], [3, 5]]


def test_requests_that_name_one_row_are_composed_before_requests_related_only_through_a_list():
    """A reader called conversations of requests related only through a list both read "stitched" ("list the
    budgets, then ... ; and also delete some other budget"). Candidate pairs that name one row in their calls'
    arguments come first, whatever the shuffle."""
    from envscale.tasks.conversations import _orders, keys_of, named_keys

    def part(args, result, writes=1):
        return {
            "gold_calls": json.dumps([{"tool": "t", "arguments": args}]),
            "gold_results": json.dumps([result]),
            "difficulty": {"n_writes": writes},
        }

    listed = [{"order_id": "ord_0001"}, {"order_id": "ord_0002"}]
    parts = [
        part({"order_id": "ord_0001"}, {"ok": True}),  # names ord_0001
        part({"status": "open"}, listed),  # lists both orders: related to each only through the list
        part({"order_id": "ord_0001", "note": "gift"}, {"ok": True}),  # names ord_0001 too
        part({"order_id": "ord_0002"}, {"ok": True}),
    ]
    keys = [keys_of(p) for p in parts]
    named = [named_keys(p) for p in parts]
    for seed in range(5):
        orders = _orders(parts, keys, random.Random(seed), named)
        firsts = [o[:2] for o in orders]
        close = [i for i, o in enumerate(firsts) if named[o[0]] & named[o[1]]]
        apart = [i for i, o in enumerate(firsts) if not named[o[0]] & named[o[1]]]
        assert close and apart and max(close) < min(apart)
        assert {frozenset(o) for o in firsts if named[o[0]] & named[o[1]]} == {frozenset((0, 2))}


def test_the_same_answer_of_a_row_named_alike_is_not_asked_twice(store):
    """Blind readers: "find out the status of the meeting whose subject is "Sprint planning"" in the first request
    and again in the second, read through another list. The second request asks what the first was told."""
    e = Env(store_row(), TasksConfig())
    look = part(
        store, [call("get_order", order_id="ord_0005")], "What is the status of my order ord_0005?", None
    )
    look["answer_facts"] = ["pending"]
    again = part(
        store,
        [call("list_my_orders"), call("cancel_order", order_id="ord_0005")],
        "Please find the status of my order ord_0005 in my orders, then cancel it.",
        None,
        ["pending"],
    )
    for p in (look, again):  # both name the order the user knows
        p["instructions"]["known_facts"] = {"order number": "ord_0005"}
    rows, _ = compose_conversations(e, [look, again], 2, random.Random(0))
    assert rows == []
    e.env.close()


def test_the_same_answer_of_one_row_reached_two_ways_is_not_asked_twice(store):
    """Blind readers: "check the status of the customer of support ticket tic_0002", then "find out the status of
    the customer named Emily Potts" (the same customer, read through a list): one row, one answer, asked twice.
    The status of another order is a request of its own."""
    e = Env(store_row(), TasksConfig())
    look = part(store, [call("get_order", order_id="ord_0005")], "What is the status of order ord_0005?")
    look["answer_facts"] = ["pending"]
    again = part(
        store,
        [call("list_my_orders"), call("cancel_order", order_id="ord_0005")],
        "Please find the status of my latest order in my orders, then cancel it.",
        None,
        ["pending"],
    )
    rows, _ = compose_conversations(e, [look, again], 2, random.Random(0))
    assert rows == []
    other = part(
        store,
        [call("list_my_orders"), call("cancel_order", order_id="ord_0001")],
        "Please find the status of my first order in my orders, then cancel it.",
        None,
        ["pending"],
    )
    rows, _ = compose_conversations(e, [look, other], 2, random.Random(0))
    assert len(rows) == 1
    e.env.close()


def test_nothing_is_asked_of_a_row_an_earlier_request_cancelled(store):
    """Seed 90's readers: "cancel the booking boo_0003 ... Then: change the payment type of booking boo_0003". A later
    request never changes a row an earlier one cancelled; the same two requests the other way round are an errand."""
    e = Env(store_row(), TasksConfig())
    cancel = part(store, [call("cancel_order", order_id="ord_0001")], "Please cancel my order ord_0001.")
    coupon = part(
        store,
        [call("add_coupon", order_id="ord_0001", code="SPRING10")],
        "Add the coupon SPRING10 to ord_0001.",
    )
    rows, _ = compose_conversations(e, [cancel, coupon], 4, random.Random(0))
    e.env.close()
    assert [[c["tool"] for c in r["gold_calls"]] for r in rows] == [["add_coupon", "cancel_order"]], rows
