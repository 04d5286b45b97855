"""bench/scale_quality.py: the verdict of issue 20's "within 10% of the quickstart", figure by figure.

Calls per task pass when the run is at least 90% of the reference (deeper is better); the other figures
(key-only foreign keys, near-duplicates, filler) pass when the run is at most 110% of it; a reference of 0
passes only a run of 0.
"""

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).parent.parent / "bench"


def load_bench():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("scale_quality", BENCH / "scale_quality.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


sq = load_bench()


def figures(calls, fk, near, pooled, median):
    values = {
        "calls per task (mean, worlds)": calls,
        "foreign keys to key-only tables": fk,
        "near-duplicate tools": near,
        "filler share, pooled (worlds)": pooled,
        "filler share, median world": median,
    }
    return {
        "run": "x",
        "worlds": 1,
        "function_sets": 0,
        "tasks": 1,
        "world_tasks": 1,
        "figures": {k: {"value": v, "count": ""} for k, v in values.items()},
    }


def verdicts(reference, run):
    return {r["figure"]: r["within"] for r in sq.compare(reference, run, 0.10)}


def test_deeper_tasks_and_cleaner_worlds_pass():
    ref = figures(2.9, 0.01, 0.024, 0.040, 0.008)
    got = verdicts(ref, figures(3.5, 0.005, 0.020, 0.039, 0.002))
    assert all(got.values()), got


def test_each_figure_fails_past_the_tolerance_on_its_own_side():
    ref = figures(2.9, 0.01, 0.024, 0.040, 0.008)
    got = verdicts(ref, figures(2.5, 0.0115, 0.043, 0.045, 0.037))
    assert not any(got.values()), got
    # the boundary: 10% fewer calls and 10% more near-duplicates still pass, a little more does not
    edge = verdicts(ref, figures(2.9 * 0.9, 0.01 * 1.1, 0.024 * 1.1, 0.040, 0.008))
    assert all(edge.values()), edge
    over = verdicts(ref, figures(2.9 * 0.89, 0.01, 0.024 * 1.11, 0.040, 0.008))
    assert not over["calls per task (mean, worlds)"] and not over["near-duplicate tools"]


def test_a_reference_of_zero_passes_only_zero():
    ref = figures(2.9, 0.0, 0.024, 0.040, 0.008)
    assert verdicts(ref, figures(2.9, 0.0, 0.024, 0.040, 0.008))["foreign keys to key-only tables"]
    assert not verdicts(ref, figures(2.9, 0.001, 0.024, 0.040, 0.008))["foreign keys to key-only tables"]


def test_render_says_which_figures_fail():
    ref = figures(2.9, 0.01, 0.024, 0.040, 0.008)
    run = figures(2.9, 0.01, 0.050, 0.040, 0.008)
    text = sq.render(ref, run, sq.compare(ref, run, 0.10), 0.10)
    assert "| near-duplicate tools | 2.40% () | 5.00% () | 2.08 | **no** |" in text
    assert text.count("| yes |") == 4
