"""The per-environment stages on Ray (`executor: ray`) make what they make locally, row for row, and a Ray
worker killed mid-run loses nothing.

A real local Ray with 2 workers (started by `envscale.executor`, stopped after each test); the workers are
real processes and are killed with SIGKILL, as the OOM killer or a lost node would.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from envscale.artifacts import iter_rows, resolve_input
from envscale.executor import ExecutorConfig, map_ordered, using, worker_peaks
from envscale.judge.filter import FilterConfig, filter_trajectories
from envscale.materialize.build import MaterializeConfig, materialize
from envscale.rollout.run import RolloutConfig, rollout
from envscale.stages import check_recipe_keys, executor_config
from envscale.tasks.build import TasksConfig, generate_tasks

RAY = ExecutorConfig(kind="ray", workers=2, shard_size=1)
#: A scripted agent that makes mistakes, so that the filter keeps some episodes and rejects others.
NOISY = {"kind": "scripted", "noise": {"wrong_argument": 0.2, "missing_argument": 0.2, "give_up": 0.1}}
#: Columns that say how long something took, not what it is.
TIMINGS = {"wall_s"}


def portable(value, root):
    """`value` with the run's own folder written as `ROOT` (a local and a Ray run write to two folders)."""
    return json.loads(json.dumps(value, default=str).replace(str(root), "ROOT"))


def rows(art, config: str, split: str = "train") -> list[dict]:
    if not art.splits.get(config, {}).get(split):
        return []
    root = Path(art.location).parent
    return [
        portable({k: v for k, v in r.items() if k not in TIMINGS}, root)
        for r in iter_rows(art.load(config, split))
    ]


def same_rows(a, b, configs: dict[str, list[str]]) -> None:
    for config, splits in configs.items():
        for split in splits:
            left, right = rows(a, config, split), rows(b, config, split)
            assert len(left) == len(right), (config, split)
            for i, (x, y) in enumerate(zip(left, right, strict=True)):
                assert x == y, f"{config}/{split} row {i} differs: {sorted(k for k in x if x[k] != y.get(k))}"


def pipeline(graph, out, executor: ExecutorConfig):
    with using(executor):
        envs = materialize(graph, MaterializeConfig(), out / "environments")
        tasks = generate_tasks(envs, TasksConfig(tasks_per_env=8), out / "tasks")
        trajs = rollout(tasks, RolloutConfig(trials=2, concurrency=4, agent=NOISY), out / "trajectories")
        filtered = filter_trajectories(trajs, FilterConfig(), out / "filtered")
        return envs, tasks, trajs, filtered


def test_ray_and_local_runs_are_identical_row_for_row(fixture_environments, tmp_path):
    graph = resolve_input(fixture_environments, "graph")
    local = pipeline(graph, tmp_path / "local", ExecutorConfig())
    on_ray = pipeline(graph, tmp_path / "ray", RAY)
    envs, tasks, trajs, filtered = local
    assert envs.manifest["counts"]["environments"] >= 3
    assert sum(tasks.splits["tasks"].values()) >= 8
    played = trajs.manifest["counts"]["trajectories"]
    assert played == 2 * tasks.splits["tasks"]["train"] >= 16
    assert (
        0 < filtered.manifest["counts"]["filtered"] < played
    )  # the scripted agent's mistakes are filtered out
    assert on_ray[0].manifest["stats"]["executor"]["kind"] == "ray"
    assert (
        len(on_ray[3].manifest["stats"]["executor"]["worker_peak_rss_mb"]) == 2
    )  # every worker's peak, recorded
    same_rows(envs, on_ray[0], {"environments": ["train"], "rejected": ["train"]})
    same_rows(tasks, on_ray[1], {"tasks": ["train", "test"], "rejected": ["train"]})
    same_rows(trajs, on_ray[2], {"trajectories": ["train"]})
    same_rows(filtered, on_ray[3], {"filtered": ["train"], "rejected": ["train"]})
    timing = {"seconds_this_run": 0, "episodes_per_second_this_run": 0, "executor": None}
    for a, b in zip(local, on_ray, strict=True):  # the cards' statistics too
        assert portable(a.manifest["stats"] | timing, tmp_path / "local") == portable(
            b.manifest["stats"] | timing, tmp_path / "ray"
        )


def kill_first_busy_worker(killed: list[int], stop: threading.Event) -> None:
    """SIGKILL the first Ray worker seen running a shard (its process title is `ray::_run_shard`)."""
    while not stop.is_set() and not killed:
        for proc in psutil.process_iter(["pid", "cmdline"]):
            if "ray::_run_shard" in " ".join(proc.info["cmdline"] or []):
                os.kill(proc.info["pid"], signal.SIGKILL)
                killed.append(proc.info["pid"])
                return
        time.sleep(0.01)


@contextlib.contextmanager
def killing_a_worker():
    """Ray started for the block, and its first busy worker SIGKILLed while the block runs; yields the pids killed."""
    killed: list[int] = []
    stop = threading.Event()
    with using(RAY):
        killer = threading.Thread(target=kill_first_busy_worker, args=(killed, stop))
        killer.start()
        try:
            yield killed
        finally:
            stop.set()
            killer.join()


def slow_square(x: int) -> int:
    time.sleep(0.2)
    return x * x


def test_a_killed_worker_loses_only_its_shard_which_runs_again():
    with killing_a_worker() as killed:
        results = list(map_ordered(slow_square, range(12)))
        assert killed, "no worker was killed: the test did not test anything"
        assert results == [x * x for x in range(12)]  # nothing lost, nothing twice, in order
        assert set(worker_peaks()) - set(killed)  # the shard ran again on a live worker


def wait_for_a_later_item(item: tuple[int, str, int]) -> bool:
    """Item 0 waits (up to 30 s) until item `later` has started; every other item marks that it started."""
    index, folder, later = item
    if index != 0:
        Path(folder, str(index)).touch()
        return True
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if Path(folder, str(later)).exists():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize(("window", "started"), [(None, True), (4, False)])
def test_a_slow_item_does_not_stop_the_workers_going_on_with_the_window(tmp_path, window, started):
    """The first item waits for the 7th to start: with the default window (8 x 2 shards ahead) the other
    worker gets to it; with 4 ahead (the old window) it never does while the first is running, and the
    first gives up after 30 s. Results still come in the items' order."""
    items = [(i, str(tmp_path), 6) for i in range(10)]
    with using(ExecutorConfig(kind="ray", workers=2, shard_size=1, window=window)):
        results = list(map_ordered(wait_for_a_later_item, items))
    assert results == [started] + [True] * 9


def test_a_stage_whose_worker_is_killed_makes_what_a_local_run_makes(fixture_environments, tmp_path):
    local = generate_tasks(fixture_environments, TasksConfig(tasks_per_env=4), tmp_path / "local")
    with killing_a_worker() as killed:
        on_ray = generate_tasks(fixture_environments, TasksConfig(tasks_per_env=4), tmp_path / "ray")
    assert killed, "no worker was killed: the test did not test anything"
    same_rows(local, on_ray, {"tasks": ["train", "test"], "rejected": ["train"]})


def test_ray_without_the_extra_is_one_clear_error(monkeypatch):
    import builtins

    from envscale.errors import EnvscaleError

    real_import = builtins.__import__

    def no_ray(name, *args, **kwargs):
        if name == "ray":
            raise ImportError("No module named 'ray'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    with pytest.raises(EnvscaleError, match=r"envscale\[scale\]"), using(ExecutorConfig(kind="ray")):
        list(map_ordered(slow_square, [1]))


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("dask", "kind must be one of local, ray"),
        ({"workers": 0}, "workers must be an integer >= 1"),
        ({"window": 0}, "window must be an integer >= 1"),
        ({"wokers": 2}, "unknown keys"),
        (3, "expected 'local', 'ray' or a mapping"),
    ],
)
def test_a_bad_executor_section_names_the_problem(value, message):
    with pytest.raises(ValueError, match=message):
        ExecutorConfig.from_value(value)


def test_the_local_path_never_imports_ray(tmp_path):
    """`make demo` and the stages under `executor: local` load no Ray (it is an optional extra, and slow to import)."""
    code = (
        "import sys, argparse\n"
        "from envscale import cli\n"
        "from envscale.stages import executor_config\n"
        "from envscale.executor import map_ordered, using\n"
        "with using(executor_config(argparse.Namespace(executor=None, workers=None, ray_address=None), None, None)):\n"
        "    assert list(map_ordered(abs, [-1, 2])) == [1, 2]\n"
        "print('ray' in sys.modules)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "False"


def test_the_recipe_chooses_the_executor_and_flags_override_it(tmp_path):
    recipe = {"output_dir": "x", "tasks": {}, "executor": {"kind": "ray", "workers": 3, "shard_size": 8}}
    none = argparse.Namespace(executor=None, workers=None, ray_address=None)
    assert executor_config(none, recipe, "r.yaml") == ExecutorConfig(kind="ray", workers=3, shard_size=8)
    flags = argparse.Namespace(executor="local", workers=5, ray_address="auto", window=12)
    assert executor_config(flags, recipe, "r.yaml") == ExecutorConfig(
        kind="local", workers=5, ray_address="auto", shard_size=8, window=12
    )
    assert executor_config(none, {"tasks": {}}, "r.yaml") == ExecutorConfig()  # local unless asked
    with pytest.raises(ValueError, match=r"recipe r\.yaml: executor: unknown keys \['worker'\]"):
        executor_config(none, {"tasks": {}, "executor": {"worker": 2}}, "r.yaml")
    check_recipe_keys(recipe, "r.yaml")  # `executor` is a known top-level key of a recipe


def test_the_embedding_pass_on_ray_gives_the_vectors_of_a_local_encode():
    from envscale.graph.embeddings import Embedder

    texts = [
        f"get the {w} of an order by its id" for w in ("status", "total", "customer", "items", "address")
    ] * 3
    texts += ["create a playlist", "delete a calendar event", "list the files of a folder"]
    with Embedder(cache_dir=None, processes=1, chunk_size=4) as embedder:
        local = embedder.embed(texts, show_progress=False)
    with using(RAY), Embedder(cache_dir=None, pool_min_texts=1, chunk_size=4) as embedder:
        on_ray = embedder.embed(texts, show_progress=False)
        assert embedder.stats["processes"] == 2  # encoded by the two workers, not in this process
    assert on_ray.shape == local.shape == (len(texts), 384)
    assert float(abs(on_ray - local).max()) < 1e-5
