"""The `tasks` stage's plumbing: splits, ids, failures kept with their reasons, card, `show tasks`, `run`.

The task generator (`envscale.tasks.generate.env_tasks`) is replaced by a small fake with the same
signature, so that these tests check what the stage does with whatever a generator returns: ids,
splits, rejected rows, stats, the card, resume and the command line. The generator's own tests
check the tasks themselves.
"""

import json
import random
from pathlib import Path

import pytest
from datasets import load_dataset

import envscale.tasks.generate as generate_module
from envscale.artifacts import ArtifactWriter, open_artifact
from envscale.cli import main
from envscale.schemas import ENVIRONMENTS
from envscale.show.tasks import WIDTH, render_task
from envscale.stages import PIPELINE
from envscale.tasks.build import TasksConfig, generate_tasks, held_out, task_id
from envscale.tasks.model import KINDS

GRAPH_FIX = Path(__file__).parent / "fixtures" / "graph"


# ----------------------------------------------------------------------------- a fake generator


def fake_task(env: str, domain_id: int, kind: str, n: int, rng: random.Random, tools: list[str]) -> dict:
    """A kept task row as `env_tasks` returns it (every column but task_id, environment_ref, split)."""
    calls = [
        {
            "tool": tools[(n + i) % len(tools)],
            "arguments": {"order_id": f"ord_{rng.randrange(10_000):04d}"}
            if i == 0
            else {"order_id": "ord_x"},
            "provenance": {"order_id": "user" if i == 0 else "call[0].order_id"},
        }
        for i in range(1 + n % 2)
    ]
    return {
        "environment": env,
        "domain_id": domain_id,
        "kind": kind,
        "difficulty": {
            "chain_length": len(calls),
            "n_writes": int(kind != "read"),
            "n_distractors": 1,
            "shape": "single" if len(calls) == 1 else "linear",
            "level": "easy",
        },
        "scoring": {
            "state": kind != "read",
            "answer_facts": kind == "read",
            "required_actions": [c["tool"] for c in calls],
            "forbidden_actions": [],
        },
        "instructions": {
            "persona": "A customer of the shop.",
            "goal": "Cancel my order.",
            "known_facts": {"order number": calls[0]["arguments"]["order_id"]},
            "hidden_facts": {},
            "done_when": "The order is cancelled.",
            "first_message": "Please cancel my order.",
            "style": "plain",
        },
        "first_message": "Please cancel my order.",
        "tools": [c["tool"] for c in calls] + ["list_products"],
        "gold_calls": calls,
        "gold_results": [{"order_id": c["arguments"]["order_id"], "status": "cancelled"} for c in calls],
        "gold_state_hash": f"hash-{n}",
        "gold_diff": {
            "orders": {
                "added": [],
                "removed": [],
                "changed": [
                    {
                        "key": calls[0]["arguments"]["order_id"],
                        "before": {"order_id": calls[0]["arguments"]["order_id"], "status": "paid"},
                        "after": {"order_id": calls[0]["arguments"]["order_id"], "status": "cancelled"},
                    }
                ],
            }
        },
        "answer_facts": ["cancelled"] if kind == "read" else [],
        "policy": {"text": "Orders that have shipped cannot be cancelled.", "rules": []},
        "seed": 0,
        "notes": ["built by the fake generator"],
    }


CALLS: list[str] = []


def fake_env_tasks(row, config, edges, rng):
    """`env_tasks(row, config, edges, rng) -> (kept, rejected)`; a row without a spec fails as a real one."""
    CALLS.append(row["name"])
    tools = [t["name"] for t in row["spec"]["tools"]]  # TypeError for a broken row (spec null)
    kinds = ["read"] if row.get("read_only") else [k for k in KINDS if config.kind_shares[k] > 0]
    kept = [
        fake_task(row["name"], row["domain_id"], rng.choice(kinds), n, rng, tools)
        for n in range(config.tasks_per_env)
    ]
    rejected = [
        {
            "environment": row["name"],
            "domain_id": row["domain_id"],
            "kind": "write",
            "code": "replay_differs",
            "reason": "replay differs: the second run's state hash is another",  # counted by code, not this
            "detail": {"calls": []},
        }
    ]
    return kept, rejected


@pytest.fixture(autouse=True)
def fake_generator(monkeypatch):
    CALLS.clear()
    monkeypatch.setattr(generate_module, "env_tasks", fake_env_tasks)


def env_rows(n: int, *, broken: int | None = None) -> list[dict]:
    rows = []
    for i in range(n):
        spec = {"name": f"env_{i:02d}", "tools": [{"name": "get_order"}, {"name": "cancel_order"}]}
        rows.append(
            {
                "domain_id": i,
                "domain_name": f"domain {i}",
                "name": f"env_{i:02d}",
                "spec": None if i == broken else spec,
                "read_only": i % 5 == 4,
                "n_tools": 2,
            }
        )
    return rows


def environments(folder: Path, rows: list[dict]):
    """An `environments` artifact holding `rows` (no graph recorded: edges are optional)."""
    with ArtifactWriter(folder, ENVIRONMENTS, "test") as writer:
        shard = writer.shard_writer("environments")
        shard.write_many(rows)
        count = shard.close()
        writer.shard_writer("rejected").close()
        stats = {  # what `materialize` records (its card shows them)
            "domains": count,
            "verified": count,
            "rejected": 0,
            "pass_rate": 1.0,
            "rejection_reasons": {},
            "tools_dropped": 0,
            "drop_reasons": {},
            "tools_excluded_as_computations": 0,
            "read_only_environments": sum(bool(r["read_only"]) for r in rows),
            "mean_semantic_score": 1.0,
        }
        return writer.commit({"environments": count, "rejected": 0}, stats)


def splits_by_env(art) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for split in ("train", "test"):
        for row in art.load("tasks", split):
            assert row["split"] == split
            found.setdefault(row["environment"], set()).add(split)
    return found


# ----------------------------------------------------------------------------- splits and ids


def test_splits_are_deterministic_per_environment_and_do_not_depend_on_the_order(tmp_path):
    rows = env_rows(40)
    config = TasksConfig(test_env_share=0.3, test_task_share=0.3, tasks_per_env=4, function_sets=True)
    forward = generate_tasks(environments(tmp_path / "a", rows), config, tmp_path / "tasks_a")
    backward = generate_tasks(environments(tmp_path / "b", rows[::-1]), config, tmp_path / "tasks_b")

    def ids(art):
        return {r["task_id"]: r["split"] for s in ("train", "test") for r in art.load("tasks", s)}

    assert ids(forward) == ids(backward) and len(ids(forward)) == 160
    held = {f"env_{i:02d}" for i in range(40) if held_out(f"env_{i:02d}", config)}
    assert 0 < len(held) < 40 and forward.manifest["stats"]["held_out_environments"] == len(held)
    by_env = splits_by_env(forward)
    assert all(by_env[name] == {"test"} for name in held)  # held out whole
    # each row says why it is held out: its whole environment, the task alone, or not at all (train)
    why = {
        (r["environment"], r["split"], r["held_out"])
        for s in ("train", "test")
        for r in forward.load("tasks", s)
    }
    assert {h for _, s, h in why if s == "train"} == {""}
    assert {e for e, s, h in why if s == "test" and h == "environment"} == held
    assert {h for e, s, h in why if s == "test" and e not in held} == {"task"}
    kept_envs = [name for name in by_env if name not in held]
    # from the other environments, some tasks go to test (by task): most of them keep both splits
    assert sum(by_env[n] == {"train", "test"} for n in kept_envs) > len(kept_envs) / 2
    # and every one keeps a training task: a task held out alone is one of an environment trained on (the eval's
    # `heldout_tasks`), even where every task of a small world was drawn for test
    assert all("train" in by_env[n] for n in kept_envs), {n: by_env[n] for n in kept_envs}
    small = generate_tasks(
        environments(tmp_path / "d", rows),
        TasksConfig(test_task_share=0.9, tasks_per_env=2),
        tmp_path / "tasks_d",
    )
    assert all(
        "train" in splits for n, splits in splits_by_env(small).items() if not held_out(n, TasksConfig())
    )
    # the same seed gives the same split; another seed holds out other environments
    again = generate_tasks(environments(tmp_path / "c", rows), config, tmp_path / "tasks_c")
    assert ids(again) == ids(forward)
    other = {
        f"env_{i:02d}" for i in range(40) if held_out(f"env_{i:02d}", TasksConfig(seed=1, test_env_share=0.3))
    }
    assert other != held
    # ids name the environment and the gold calls; the splits load with `datasets`
    some_id = next(iter(ids(forward)))
    assert some_id.startswith("env_") and len(some_id.split("-")) == 3
    test = load_dataset(str(tmp_path / "tasks_a"), "tasks", split="test")
    assert test.num_rows == forward.splits["tasks"]["test"] == sum(v == "test" for v in ids(forward).values())
    # function sets (read-only environments), when posed, give read tasks only
    read_only = {
        r["kind"] for s in ("train", "test") for r in forward.load("tasks", s) if r["environment"] == "env_04"
    }
    assert read_only == {"read"}


def test_function_sets_get_no_tasks_and_are_counted_apart(tmp_path):
    rows = env_rows(10)  # env_04 and env_09 have no write tool: function sets
    rows[3]["kind"], rows[4]["kind"] = "world", "function_set"  # environments 1.2 say it with `kind`
    art = generate_tasks(environments(tmp_path / "e", rows), TasksConfig(tasks_per_env=3), tmp_path / "t")
    posed = {r["environment"] for s in ("train", "test") for r in art.load("tasks", s)}
    assert posed == {f"env_{i:02d}" for i in range(10)} - {"env_04", "env_09"}
    stats = art.manifest["stats"]
    assert (stats["worlds"], stats["function_sets"], stats["environments"]) == (8, 2, 10)
    assert stats["tasks"] == 8 * 3
    card = (tmp_path / "t" / "README.md").read_text()
    assert "| worlds / function sets | 8 / 2 (function sets have no tasks: no state to check) |" in card
    # asked for, function sets get read tasks, and the card says so
    both = generate_tasks(
        environments(tmp_path / "e2", rows), TasksConfig(tasks_per_env=3, function_sets=True), tmp_path / "t2"
    )
    assert {r["environment"] for s in ("train", "test") for r in both.load("tasks", s)} >= {
        "env_04",
        "env_09",
    }
    assert "read tasks posed in function sets too" in (tmp_path / "t2" / "README.md").read_text()


def test_task_ids_are_stable_and_change_with_the_gold_calls():
    calls = [{"tool": "cancel_order", "arguments": {"order_id": "ord_1"}, "provenance": {"order_id": "user"}}]
    assert task_id("shop", 3, calls) == task_id("shop", 3, json.loads(json.dumps(calls)))
    assert task_id("shop", 3, calls).startswith("shop-0003-")
    other = [{**calls[0], "arguments": {"order_id": "ord_2"}}]
    assert task_id("shop", 3, calls) != task_id("shop", 3, other)


# ----------------------------------------------------------------------------- failures kept


def test_a_broken_environment_row_is_a_rejected_row_and_the_others_keep_their_tasks(tmp_path):
    art = generate_tasks(
        environments(tmp_path / "envs", env_rows(6, broken=2)),
        TasksConfig(tasks_per_env=3, function_sets=True),
        tmp_path / "tasks",
    )
    stats = art.manifest["stats"]
    assert (
        stats["tasks"] == 5 * 3
        and stats["environments_with_tasks"] == 5
        and stats["environments_failed"] == 1
    )
    rejected = list(art.load("rejected"))
    broken = [r for r in rejected if r["environment"] == "env_02"]
    assert len(broken) == 1 and broken[0]["kind"] is None
    assert broken[0]["code"] == "environment_failed"
    assert broken[0]["reason"].startswith("environment_failed: TypeError")
    assert "traceback" in broken[0]["detail"]
    # the generator's own drops are kept with their kind, code and reason, and counted by code
    assert sum(r["code"] == "replay_differs" for r in rejected) == 5
    assert stats["drop_reasons"] == {"replay_differs": 5, "environment_failed": 1}
    assert stats["per_environment"] == {"min": 0, "median": 3.0, "max": 3, "mean": 2.5}
    for split in ("train", "test"):
        for row in art.load("tasks", split):
            assert row["environment_ref"] == open_artifact(tmp_path / "envs").pinned


def test_a_generator_returning_a_row_without_required_columns_rejects_its_environment(tmp_path, monkeypatch):
    def incomplete(row, config, edges, rng):
        kept, rejected = fake_env_tasks(row, config, edges, rng)
        if row["name"] == "env_01":
            del kept[0]["gold_state_hash"]
        return kept, rejected

    monkeypatch.setattr(generate_module, "env_tasks", incomplete)
    art = generate_tasks(
        environments(tmp_path / "envs", env_rows(3)), TasksConfig(tasks_per_env=2), tmp_path / "t"
    )
    (failed,) = [r for r in art.load("rejected") if r["kind"] is None]
    assert failed["environment"] == "env_01" and "gold_state_hash" in failed["reason"]
    assert art.manifest["stats"]["tasks"] == 4


def test_an_interrupted_run_resumes_without_redoing_finished_environments(tmp_path, monkeypatch):
    envs = environments(tmp_path / "envs", env_rows(6))

    def interrupt_at_env_04(row, config, edges, rng):
        if row["name"] == "env_04":
            raise KeyboardInterrupt
        return fake_env_tasks(row, config, edges, rng)

    monkeypatch.setattr(generate_module, "env_tasks", interrupt_at_env_04)
    with pytest.raises(KeyboardInterrupt):
        generate_tasks(envs, TasksConfig(tasks_per_env=2, function_sets=True), tmp_path / "tasks")
    assert CALLS == ["env_00", "env_01", "env_02", "env_03"]
    monkeypatch.setattr(generate_module, "env_tasks", fake_env_tasks)
    CALLS.clear()
    art = generate_tasks(envs, TasksConfig(tasks_per_env=2, function_sets=True), tmp_path / "tasks")
    assert CALLS == ["env_04", "env_05"]
    fresh = generate_tasks(envs, TasksConfig(tasks_per_env=2, function_sets=True), tmp_path / "fresh")
    assert [r["task_id"] for r in art.load("tasks")] == [r["task_id"] for r in fresh.load("tasks")]


def test_with_an_endpoint_environments_are_worded_at_once_up_to_llm_max_concurrency(tmp_path, monkeypatch):
    # A loopback FAKE OpenAI-compatible server (tests/llmfake.py) answers each rewrite; with
    # llm_max_concurrency 4 it holds a request until a second one is in flight (10 s at most).
    import threading

    from llmfake import Reply, completion, start_llm_fake

    fake, overlap = start_llm_fake(), threading.Event()

    def answer(body):
        if fake.in_flight >= 2:
            overlap.set()
        overlap.wait(10 if body["model"] == "wait" else 0)
        return Reply(body=completion("fine"))

    async def rewrite(instructions, draft, client, model):  # one request per environment
        await client.chat([{"role": "user", "content": draft}], model=model)
        return instructions, None

    def env_tasks(row, config, edges, rng, rewrite=None):
        rewrite(None, row["name"])
        return fake_env_tasks(row, config, edges, rng)

    monkeypatch.setattr(generate_module, "rewrite_instructions", rewrite)
    monkeypatch.setattr(generate_module, "env_tasks", env_tasks)
    fake.handler = answer
    envs = environments(tmp_path / "envs", env_rows(8))
    ids = {}
    try:
        for workers, model in [(1, "m"), (4, "wait")]:
            fake.max_in_flight = 0
            config = TasksConfig(
                tasks_per_env=2, llm_base_url=fake.url, llm_model=model, llm_max_concurrency=workers
            )
            art = generate_tasks(envs, config, tmp_path / f"tasks-{workers}")
            ids[workers] = [r["task_id"] for s in ("train", "test") for r in art.load("tasks", s)]
            assert 1 <= fake.max_in_flight <= workers and art.manifest["stats"]["rewrites"]["asked"] == 7
            assert (fake.max_in_flight > 1) is (workers > 1), (workers, fake.max_in_flight)
    finally:
        fake.stop()
    assert ids[1] == ids[4] and len(ids[1]) == 14  # the same tasks, in order (env_04: a function set)
    assert TasksConfig(llm_max_concurrency=4).fingerprint("x") == TasksConfig().fingerprint("x")


@pytest.mark.timeout(60)
def test_closing_the_rewriter_releases_the_rewrites_in_flight_and_refuses_later_ones():
    # What a Ctrl-C does to a run wording environments in threads: the rewriter is closed, and each thread
    # waiting on a silent endpoint (a loopback FAKE server, tests/llmfake.py) gets RewriterClosed at once, a
    # BaseException that ends its environment instead of failing its candidates one by one.
    import threading

    from llmfake import Reply, completion, start_llm_fake

    from envscale.tasks.generate import Rewriter, RewriterClosed

    fake = start_llm_fake()
    fake.handler = lambda body: Reply(body=completion("late"), delay=3600)
    rewriter = Rewriter(TasksConfig(llm_base_url=fake.url, llm_model="m", llm_timeout=3600).llm_config())
    raised = []

    def ask():
        try:
            rewriter(None, None)
        except BaseException as exc:  # noqa: BLE001 - what the thread got is the test
            raised.append(exc)

    async def rewrite(instructions, draft, client, model):
        await client.chat([{"role": "user", "content": "hi"}], model=model)

    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(generate_module, "rewrite_instructions", rewrite)
            threads = [threading.Thread(target=ask) for _ in range(3)]
            for thread in threads:
                thread.start()
            while fake.in_flight < 3:  # every request reached the server, which keeps quiet
                threading.Event().wait(0.05)
            rewriter.close()
            for thread in threads:
                thread.join()
            assert len(raised) == 3 and all(isinstance(e, RewriterClosed) for e in raised), raised
            with pytest.raises(RewriterClosed):
                rewriter(None, None)
    finally:
        fake.stop()


# ----------------------------------------------------------------------------- config


def test_kind_shares_are_checked_and_take_flags(tmp_path, capsys):
    with pytest.raises(ValueError, match=r"unknown kinds \['reed'\]"):
        TasksConfig(kind_shares={"reed": 1})
    with pytest.raises(ValueError, match=r"kind_shares\['write'\] must be >= 0"):
        TasksConfig(kind_shares={"read": 1, "write": -1})
    with pytest.raises(ValueError, match="some kind a weight > 0"):
        TasksConfig(kind_shares={"read": 0})
    with pytest.raises(ValueError, match="llm_base_url is set but|must name the served model"):
        TasksConfig(llm_base_url="http://127.0.0.1:1/v1")
    assert TasksConfig(kind_shares={"read": 2}).kind_shares == {k: float(k == "read") * 2 for k in KINDS}
    envs = environments(tmp_path / "envs", env_rows(3))
    out = tmp_path / "tasks"
    assert (
        main(["tasks", "--input", envs.location, "--output", str(out), "--kind-shares", "read=1", "policy=0"])
        == 0
    )
    art = open_artifact(out)
    assert art.manifest["config"]["kind_shares"]["read"] == 1.0
    assert {r["kind"] for r in art.load("tasks")} == {"read"}
    printed = capsys.readouterr().out
    assert "splits of tasks: train" in printed and "split='train'" in printed
    assert main(["tasks", "--input", envs.location, "--output", str(out), "--kind-shares", "red=1"]) == 2
    assert "unknown kinds ['red']" in capsys.readouterr().err


# ----------------------------------------------------------------------------- card and show


@pytest.fixture(scope="module")
def tasks_art(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setattr(generate_module, "env_tasks", fake_env_tasks)
    try:
        root = tmp_path_factory.mktemp("tasks")
        envs = environments(root / "envs", env_rows(12, broken=7))
        return generate_tasks(
            envs, TasksConfig(tasks_per_env=3, test_env_share=0.3, function_sets=True), root / "tasks"
        )
    finally:
        mp.undo()


def test_the_card_shows_the_mix_splits_per_environment_counts_and_drops(tasks_art):
    card = (Path(tasks_art.location) / "README.md").read_text()
    stats = tasks_art.manifest["stats"]
    assert f"| tasks kept | {stats['tasks']} |" in card
    assert f"`train` {stats['per_split']['train']}, `test` {stats['per_split']['test']}" in card
    for kind, n in stats["per_kind"].items():
        assert f"| `{kind}` |" in card and f"| {n} |" in card
    assert "| `environment_failed` | 1 |" in card and "| `replay_differs` | 11 |" in card
    assert "tasks per environment | min 0, median 3.0, max 3" in card
    assert 'load_dataset("' in card and '"tasks", split="test")' in card
    assert "envscale.judge.score_trajectory" in card
    # both splits are in the card's configs metadata, so `datasets` loads each from the folder
    assert "split: test" in card and "split: train" in card
    assert load_dataset(tasks_art.location, "tasks", split="train").num_rows == stats["per_split"]["train"]


def test_show_tasks_prints_one_task_as_a_person_reads_it(tasks_art, capsys):
    first_test = tasks_art.load("tasks", "test")[0]
    assert main(["show", "tasks", tasks_art.location, "--split", "test"]) == 0
    out = capsys.readouterr().out
    assert f"task {first_test['task_id']}  [test split]" in out and "the first task of" in out
    assert main(["show", "tasks", tasks_art.location, "--task", first_test["task_id"]]) == 0  # found in test
    out = capsys.readouterr().out
    assert "Please cancel my order." in out and "Orders that have shipped cannot be cancelled." in out
    order = first_test["gold_calls"][0]["arguments"]["order_id"]
    assert f"order_id='{order}' [from the user (order number)]" in out
    assert "orders: +0 added, -0 removed, ~1 changed" in out and "status: 'paid' -> 'cancelled'" in out
    assert all(len(line) <= WIDTH for line in out.splitlines())
    assert main(["show", "tasks", tasks_art.location, "--task", "env_00-0000"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no task 'env_00-0000' in any split" in err[0] and "env_00-0000-" in err[0]
    assert main(["show", "tasks", tasks_art.location, "--png", "x"]) == 2
    assert "--png is not an option of `envscale show tasks`" in capsys.readouterr().err
    assert main(["show", "environment", tasks_art.location]) == 2
    assert "expected 'environments'" in capsys.readouterr().err


def test_render_reads_provenance_results_and_the_diff():
    row = fake_task("shop", 4, "write", 1, random.Random(0), ["get_order", "cancel_order"])
    row.update(task_id="shop-0001-abcd1234", split="train", environment_ref="/x/environments@v1")
    text = render_task(row)
    assert "1. cancel_order(order_id='ord_" in text and "[from the user (order number)]" in text
    assert "2. get_order(order_id='ord_x' [from call 1's result: order_id])" in text
    assert '-> {"order_id": "ord_x", "status": "cancelled"}' in text
    assert "scored on       final state; the effects of the gold calls of cancel_order, get_order" in text
    assert "tells if asked  none" in text and "list_products (distractor)" in text
    assert "Answer facts (the final answer must state them)\n  none" in text
    assert all(len(line) <= WIDTH for line in text.splitlines())


# ----------------------------------------------------------------------------- the pipeline


def test_run_includes_the_tasks_stage_after_materialize_and_lists_its_splits(tmp_path, capsys):
    assert PIPELINE.index("tasks") == PIPELINE.index("materialize") + 1
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(
        f"""output_dir: {tmp_path / "run"}
collect:
  sources: ["json:{GRAPH_FIX / "shop.json"}", "json:{GRAPH_FIX / "music.json"}"]
graph:
  embedding_cache: {tmp_path / "emb"}
  min_domain_size: 2
materialize:
  seed: 0
tasks:
  seed: 0
  tasks_per_env: 3
  test_env_share: 0.5
"""
    )
    assert main(["run", str(recipe)]) == 0
    out = capsys.readouterr().out
    assert "[tasks] -> " in out and "Datasets are in" in out
    assert f"tasks v1: datasets.load_dataset('{tmp_path / 'run' / 'tasks'}', 'tasks', split='train')" in out
    assert "splits of tasks: train " in out
    art = open_artifact(tmp_path / "run" / "tasks")
    envs = open_artifact(tmp_path / "run" / "environments")
    assert art.manifest["stats"]["environments"] == envs.manifest["counts"]["environments"] >= 1
    assert art.manifest["stats"]["graph"] == open_artifact(tmp_path / "run" / "graph").pinned
    assert [i["kind"] for i in art.manifest["inputs"]] == ["environments", "graph"]
    assert art.manifest["counts"]["tasks"] == 3 * envs.manifest["counts"]["environments"]
    assert main(["run", str(recipe)]) == 0
    assert "[tasks] skipped" in capsys.readouterr().out
