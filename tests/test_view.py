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
from envscale.env.spec import load_spec
from envscale.view import data, environments, write_space
from envscale.view.browser import Viewer, chromium_path, running
from envscale.view.data import (
    Index,
    discover,
    picker_choices,
)
from envscale.view.environments import (
    Usage,
    call_tool,
    environment_summary,
    example_arguments,
    session_row,
)
from envscale.view.episodes import (
    TaskLookup,
    check_meanings,
)
from envscale.view.evals import (
    eval_results,
    eval_table,
)
from envscale.view.tasks import (
    gold_calls,
    policy_text,
    task_markdown,
)


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


def test_an_environment_summary_says_which_tools_were_verified_and_why_others_were_left_out(
    fixture_environments,
):
    row = dict(Index(fixture_environments).row(0))
    long = (
        'createThing {"a": "' + "x" * 400 + '", "b": [{"c": 1}, {"d":... added a row to others, not to things'
    )
    row["dropped_tools"] = [{"tool": "createThing", "reason": long}]
    row["excluded_tools"] = [{"tool": "convert", "reason": "pure computation (converts units)"}]
    summary = environment_summary(row)
    assert "every tool was exercised" not in summary
    n_tools = len(environments._spec(row)["tools"])
    assert f"{n_tools} tools kept, each exercised by materialize's verification" in summary
    assert "1 dropped (failed verification) and 1 excluded" in summary
    shown = next(line for line in summary.splitlines() if "`createThing`" in line)
    assert (
        len(shown) < environments.REASON_CHARS + 30
        and "…" in shown
        and "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" not in shown
    )
    assert shown.endswith("added a row to others, not to things")
    # the logged-in session row, for an environment that has one
    spec = load_spec(Path(__file__).parent / "fixtures" / "envs" / "store.yaml")
    store = {"name": "store", "spec": spec}
    session = session_row(store)
    assert session and "Logged-in session" in environment_summary(store, session=session)
    assert str(next(iter(session.values()))) in environment_summary(store, session=session)
    assert session_row(row) is None or "session" in environments._spec(row)


def test_an_environment_says_how_many_tasks_and_episodes_it_has(run_folder, refs):
    catalog = discover(refs)
    tasks = catalog.artifacts["tasks"]
    environment = tasks.load("tasks", "train")[0]["environment"]
    train = sum(r == environment for r in tasks.load("tasks", "train")["environment"])
    test = sum(r == environment for r in tasks.load("tasks", "test")["environment"])
    kept = sum(r == environment for r in catalog.artifacts["filtered"].load("filtered")["environment"])
    rejected = sum(r == environment for r in catalog.artifacts["filtered"].load("rejected")["environment"])
    line = Usage(catalog).line(environment)
    assert f"**tasks**: {train} train, {test} test" in line
    assert f"**episodes** (filtered): {kept} kept, {rejected} rejected" in line
    assert Usage(discover(refs[1])).line(environment) == "", "no tasks artifact: nothing to count"


def test_pickers_offer_every_matching_row_up_to_a_cap(fixture_environments, monkeypatch):
    index = Index(fixture_environments)
    monkeypatch.setattr(data, "PAGE_SIZE", 1)
    ids, capped = picker_choices(index.select(), "name")
    assert len(ids) == len(index.dataset) > 1 and not capped, "every row, not the page's one"
    ids, capped = picker_choices(index.select(), "name", cap=1)
    assert len(ids) == 1 and capped


def test_a_task_reads_as_text_with_its_tools_and_where_each_gold_argument_comes_from(run_folder):
    task = _write_task(run_folder)
    text = task_markdown(task)
    for tool in task["tools"]:
        assert f"`{tool}`" in text
    assert "Tools offered to the agent" in text
    assert "{'" not in text and '{"' not in text, "difficulty and policy as words, not dicts"
    assert f"**Difficulty**: {task['difficulty']['level']}:" in text
    assert policy_text({}) == "" and policy_text(None) == ""
    rows, headers = gold_calls(task)
    sources = [r[headers.index("where each argument comes from")] for r in rows]
    assert any("call 1's result" in s or "the user" in s or "the request" in s for s in sources), sources


def test_each_check_has_the_judges_own_meaning():
    from envscale.judge import checks
    from envscale.schemas import CHECKS

    meanings = check_meanings()
    assert set(meanings) == set(CHECKS)
    for name, meaning in meanings.items():
        assert meaning and meaning in checks.__doc__, name


def test_an_insert_suggests_a_key_no_row_has(fixture_environments):
    spec = {"tables": {"orders": {"primary_key": "order_id", "columns": {"order_id": {"type": "string"}}}}}
    state = {"orders": [{"order_id": f"ord_{i:04d}", "note": "x"} for i in range(1, 4)]}
    params = {"properties": {"order_id": {"type": "string"}, "note": {"type": "string"}}}
    insert = {
        "parameters": {**params, "required": ["order_id", "note"]},
        "operation": {
            "type": "insert",
            "table": "orders",
            "values": {"order_id": "order_id", "note": "note"},
        },
    }
    update = {**insert, "operation": {"type": "update", "table": "orders", "key": {"order_id": "order_id"}}}
    assert example_arguments(insert, state, spec)["order_id"] == "ord_0004"
    assert example_arguments(update, state, spec)["order_id"] == "ord_0001", (
        "an update addresses a row that exists"
    )
    assert environments.fresh_value([3, 7]) == 8 and environments.fresh_value(["x", "y"]) == ""


def test_the_eval_table_rounds_and_lists_every_episode(run_folder):
    art = discover(str(run_folder)).artifacts["eval"]
    values, headers = eval_table(art)
    before = next(v for v in values if v[0] == "before")
    assert before[headers.index("validity")] == "n/a", "an agent that made no call has no validity to rate"
    for v in values:
        for h in ("success_rate", "right_tools", "right_calls"):
            assert isinstance(v[headers.index(h)], str) and len(v[headers.index(h)].split(".")[-1]) == 3
    results = art.load("results")
    lines, columns = eval_results(art, "before")
    assert columns[:4] == ["agent", "id", "kind", "success"]
    assert len(lines) == sum(a == "before" for a in results["agent"]) > 0
    assert {line[0] for line in lines} == {"before"}
    assert len(eval_results(art)[0]) == len(results)


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
    run_folder, refs, fixture_environments, tmp_path, monkeypatch
):
    from envscale.view.app import build_app

    chromium_path()  # a missing browser is a failure, not a skip
    monkeypatch.setattr(data, "PAGE_SIZE", 2)  # lists of two rows: most items are on a later page
    task = _write_task(run_folder)
    call = task["gold_calls"][-1]
    catalog = discover(str(run_folder))
    rejected = Index(catalog.artifacts["filtered"], "rejected").row(0)
    expected = TaskLookup(catalog).get(rejected["task_id"])
    last_env = Index(fixture_environments).frame["name"][-1]
    tasks = catalog.artifacts["tasks"]
    train_envs = set(tasks.load("tasks", "train")["environment"])
    test_envs = list(tasks.load("tasks", "test")["environment"])
    held_out = sorted(set(test_envs) - train_envs) or sorted(set(test_envs))
    with running(build_app(refs)) as url, Viewer.open(url) as view:
        # Environments: one off the first page is offered by the picker
        view.wait_text("env-summary", "tables")
        view.choose("env-pick", last_env)
        summary = view.wait_text("env-summary", last_env)
        assert "every tool was exercised" not in summary and "tools kept" in summary
        assert "tasks:" in summary and "episodes (filtered):" in summary
        # the task's environment, its gold call made live, the task's gold diff on the page
        view.choose("env-pick", task["environment"])
        view.wait_text("env-summary", task["environment"])
        view.choose("call-tool", call["tool"])
        view.fill_code("call-arguments", json.dumps(call["arguments"]))
        view.click("call-button")
        shown = view.wait_called()
        assert shown.startswith("State diff"), "the diff has a heading"
        for table in task["gold_diff"]:
            assert table in shown
        assert '"ok": true' in view.text("call-result")
        view.screenshot(tmp_path / "environments.png")
        # Tasks: the task's first message, tools, notes, and its gold call with where its arguments come from
        view.tab("Tasks")
        view.choose("task-pick", task["task_id"])
        head = view.wait_text("task-head", task["task_id"])
        assert task["first_message"][:40] in head
        assert "Tools offered to the agent" in head and all(t in head for t in task["tools"])
        assert any(line.strip().startswith("Goal:") for line in head.splitlines()), "one line per field"
        assert "{'" not in head and '{"' not in head
        gold = view.text("task-gold")
        assert call["tool"] in gold and "where each argument comes from" in gold
        # a split's environments are offered when the split changes, the environment chosen before reset
        view.choose("task-env", task["environment"])
        view.choose("task-split", "test")
        view.wait_text("task-pages", f"· {len(test_envs):,} row(s)")
        view.choose("task-env", held_out[0])
        view.wait_text("task-pages", f"· {test_envs.count(held_out[0]):,} row(s)")
        # Trajectories: a rejected episode with the check it failed, what each check means, what was expected
        view.tab("Trajectories")
        view.choose("traj-source", "filtered:rejected")
        view.choose("traj-pick", rejected["trajectory_id"])
        head = view.wait_text("traj-head", "rejected")
        assert rejected["failed_checks"][0] in head
        assert "agent noise" in head and "wrong_argument 0.5" in head
        checks = view.text("traj-checks")
        assert "FAILED" in checks and "listed in failed_checks" not in checks
        assert check_meanings()[rejected["failed_checks"][0]][:40] in checks
        view.wait_text("traj-expected", rejected["task_id"])
        gold = view.text("traj-gold")
        for gold_call in expected["gold_calls"]:
            assert gold_call["tool"] in gold
        for made in rejected["calls"][:3]:
            assert made["tool"] in view.text("traj-calls")
        assert "gold state diff" in view.text("traj-gold-diff")
        # Eval: the side-by-side table names both agents, the plots are whole, each episode is listed
        view.tab("Eval")
        table = view.wait_text("eval-table", "after")
        assert "before" in table and "n/a" in table
        image = view.page.locator("#eval-plots img").first
        image.wait_for()
        assert image.evaluate("e => getComputedStyle(e).objectFit") == "contain"
        view.wait_text("eval-results", "after")
        view.choose("eval-agent", "before")
        view.page.wait_for_function(
            "() => !document.querySelector('#eval-results').innerText.includes('after')"
        )
        assert "before" in view.text("eval-results")


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
