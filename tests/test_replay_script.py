"""`hub_scripts/replay_tasks.py`: every kept task replays to its gold state from the artifact alone, and a task
that does not (a wrong gold state, a gold call that fails) is found and named."""

from __future__ import annotations

import importlib.util
import json

import pytest

from envscale.artifacts import iter_rows
from envscale.tasks.build import TasksConfig, generate_tasks


def load_script():
    spec = importlib.util.spec_from_file_location("replay_tasks", "hub_scripts/replay_tasks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tasks_art(fixture_environments, tmp_path_factory):
    return generate_tasks(
        fixture_environments, TasksConfig(tasks_per_env=6), tmp_path_factory.mktemp("replay") / "tasks"
    )


def test_every_kept_task_replays_to_its_gold_state(tasks_art, capsys):
    script = load_script()
    assert script.main([tasks_art.location]) == 0
    total = sum(tasks_art.splits["tasks"].values())
    assert f"{total} of {total} tasks replay to their gold state, 0 do not" in capsys.readouterr().out


def test_a_task_that_does_not_reach_its_gold_state_is_named(tasks_art, fixture_environments):
    script = load_script()
    writes = [t for t in iter_rows(tasks_art.load("tasks", "train")) if t["gold_diff"]]
    assert writes, "the fixture has no task that writes"
    task = writes[0]
    ref = fixture_environments.pinned
    assert script.replay_task(task, ref)["ok"]
    wrong_state = script.replay_task({**task, "gold_state_hash": "0" * 16}, ref)
    assert wrong_state == {
        "task_id": task["task_id"],
        "ok": False,
        "reason": "the final state is not the gold state",
    }
    calls = json.loads(json.dumps(task["gold_calls"]))
    calls[0] = {"tool": "no_such_tool", "arguments": {}}
    failing = script.replay_task({**task, "gold_calls": calls}, ref)
    assert not failing["ok"] and "call 0 (no_such_tool) fails" in failing["reason"]
    # the state a write task reaches is not the initial one: skipping its calls is caught too
    assert not script.replay_task({**task, "gold_calls": []}, ref)["ok"]
