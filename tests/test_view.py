"""`envscale view`: the viewer over the fixture pipeline's artifacts, driven in headless Chromium as a person would.

The artifacts are real (collect -> graph -> materialize -> tasks -> rollout -> filter -> eval on the fixture
sources). The browser is Debian's `chromium` driven by Playwright; a machine without it fails these tests
(`make test` installs it), never skips them. Each view is opened, an item picked from its dropdown by typing
it, and what the page shows is checked against the artifact: a task's gold call made live in the browser must
show the task's gold state diff, an episode the filter rejected must show its failed check.
"""

import ast
import json
from pathlib import Path

import pytest

from envscale.env import Environment
from envscale.view import write_space
from envscale.view.browser import Viewer, chromium_path, running
from envscale.view.data import Index, call_tool, discover


@pytest.fixture(scope="module")
def run_folder(fixture_environments, tmp_path_factory):
    """An `envscale run`-like output folder: tasks, trajectories, filtered and eval (the environments are the
    session fixture's, given to the viewer as a second reference)."""
    from envscale.evaluation.run import EvalConfig, evaluate
    from envscale.judge.filter import FilterConfig, filter_trajectories
    from envscale.rollout.run import RolloutConfig, rollout
    from envscale.tasks.build import TasksConfig, generate_tasks

    root = tmp_path_factory.mktemp("view")
    tasks = generate_tasks(
        fixture_environments,
        TasksConfig(tasks_per_env=4, test_env_share=0.3, test_task_share=0.3, seed=9),
        root / "tasks",
    )
    trajectories = rollout(
        tasks,
        RolloutConfig(trials=1, agent={"kind": "scripted", "noise": {"wrong_argument": 0.5}}, seed=3),
        root / "trajectories",
    )
    filter_trajectories(trajectories, FilterConfig(), root / "filtered")
    evaluate(
        tasks,
        EvalConfig(
            agents={"before": {"kind": "scripted", "noise": {"give_up": 1.0}}, "after": {"kind": "scripted"}}
        ),
        root / "eval",
    )
    return root


@pytest.fixture(scope="module")
def refs(run_folder, fixture_environments):
    return [str(run_folder), fixture_environments.location]


def _write_task(run_folder) -> dict:
    """A write task (a read, then the write): its last gold call, made alone on the initial state, reaches the
    gold state (the reads change nothing). The browser test makes that call live."""
    index = Index(discover(str(run_folder)).artifacts["tasks"])
    for position in range(len(index.dataset)):
        row = index.row(position)
        if row["kind"] == "write" and row["gold_diff"]:
            return row
    raise AssertionError("the fixture pipeline has no write task")


def test_discover_lists_every_artifact_of_a_folder_and_keeps_a_broken_one_with_its_reason(
    run_folder, tmp_path
):
    catalog = discover(str(run_folder))
    assert {a.manifest["kind"] for a in catalog.artifacts.values()} == {
        "tasks",
        "trajectories",
        "filtered",
        "eval",
    }
    broken = tmp_path / "run"
    broken.mkdir()
    (broken / "tasks").symlink_to(run_folder / "tasks")
    (broken / "junk").mkdir()
    (broken / "junk" / "envscale.json").write_text("{not json")
    catalog = discover(str(broken))
    assert set(catalog.artifacts) == {"tasks"}
    assert "junk" in catalog.problems and catalog.problems["junk"]
    assert catalog.overview()[-1][:2] == ["junk", "(not opened)"]
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no envscale.json"):
        discover(str(tmp_path / "empty"))


def test_lists_page_and_filter_the_rows_they_say(run_folder):
    index = Index(discover(str(run_folder)).artifacts["filtered"], "rejected")
    assert len(index.dataset) > 0, "the noisy agent makes the filter reject some episodes"
    check = index.values("failed_checks")[1]
    frame = index.select({"failed_checks": check})
    assert 0 < len(frame) <= len(index.dataset)
    for position in frame["row"].to_list():
        assert check in index.row(position)["failed_checks"]
    rows, headers, page, pages = index.page(frame, 99)
    assert page == pages and headers[0] == "row"


def test_a_live_call_runs_on_a_fresh_copy_and_shows_what_it_changed(run_folder, fixture_environments):
    task = _write_task(run_folder)
    env_row = Index(fixture_environments).row(
        Index(fixture_environments).position("name", task["environment"])
    )
    call = task["gold_calls"][-1]
    first, diff = call_tool(env_row, call["tool"], json.dumps(call["arguments"]))
    again, diff_again = call_tool(env_row, call["tool"], call["arguments"])
    assert first["ok"] and diff == diff_again, "each call starts from the initial state, not the last call's"
    for table in task["gold_diff"]:
        assert f"**{table}**" in diff
    with Environment.from_row(env_row) as env:  # the state the viewer started from is untouched
        env.reset()
        assert env.state_hash() == env_row["state_hash"]
    with pytest.raises(ValueError, match="not JSON"):
        call_tool(env_row, call["tool"], "{oops")


def test_envscale_view_in_headless_chromium_opens_every_view_and_calls_a_tool_live(
    run_folder, refs, tmp_path
):
    from envscale.view.app import build_app

    chromium_path()  # a missing browser is a failure, not a skip
    task = _write_task(run_folder)
    call = task["gold_calls"][-1]
    rejected = Index(discover(str(run_folder)).artifacts["filtered"], "rejected").row(0)
    with running(build_app(refs)) as url, Viewer.open(url) as view:
        # Environments: the task's environment, its gold call made live, the task's gold diff on the page
        view.wait_text("env-summary", "tables")
        view.choose("env-pick", task["environment"])
        view.wait_text("env-summary", task["environment"])
        view.choose("call-tool", call["tool"])
        view.fill_code("call-arguments", json.dumps(call["arguments"]))
        view.click("call-button")
        shown = view.wait_text("call-diff", next(iter(task["gold_diff"])))
        for table in task["gold_diff"]:
            assert table in shown
        assert '"ok": true' in view.text("call-result")
        view.screenshot(tmp_path / "environments.png")
        # Tasks: the task's first message and its gold call
        view.tab("Tasks")
        view.choose("task-pick", task["task_id"])
        head = view.wait_text("task-head", task["task_id"])
        assert task["first_message"][:40] in head
        assert call["tool"] in view.text("task-gold")
        # Trajectories: a rejected episode with the check it failed
        view.tab("Trajectories")
        view.choose("traj-source", "filtered:rejected")
        view.choose("traj-pick", rejected["trajectory_id"])
        head = view.wait_text("traj-head", "rejected")
        assert rejected["failed_checks"][0] in head
        assert "FAILED" in view.text("traj-checks")
        # Eval: the side-by-side table names both agents
        view.tab("Eval")
        table = view.wait_text("eval-table", "after")
        assert "before" in table


def test_space_is_written_for_hub_ids_and_refuses_a_local_folder(tmp_path, run_folder):
    with pytest.raises(ValueError, match="push"):
        write_space([str(run_folder)], tmp_path / "space")
    files = write_space(["hf://me/tasks@v1", "hf://me/eval@v2"], tmp_path / "space")
    assert {f.name for f in files} == {"app.py", "requirements.txt", "README.md"}
    app = (tmp_path / "space" / "app.py").read_text()
    ast.parse(app)
    assert "hf://me/tasks@v1 hf://me/eval@v2" in app
    readme = (tmp_path / "space" / "README.md").read_text()
    assert readme.startswith("---\n") and "sdk: gradio" in readme and "app_file: app.py" in readme
    assert "envscale[view]" in Path(tmp_path / "space" / "requirements.txt").read_text()
