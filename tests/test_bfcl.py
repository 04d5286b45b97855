"""BFCL through `envscale eval`: the questions of the real `bfcl-eval` wheel, scored by BFCL's own AST checker.

The wheel is the one `collect` reads (`pypi:bfcl-eval==2026.3.23`, cached under `$ENVSCALE_CACHE/wheels`,
fetched with `pip download --no-deps` on a fresh machine). Gold answers built from BFCL's possible answers
must score 100% on `simple`, `multiple` and `parallel`; a perturbed answer must fail; the scripted agent,
given the gold calls, goes through the whole harness (tools offered, calls mapped back to BFCL's names).
"""

import copy

import pytest
from datasets import load_dataset

from envscale.evaluation import bfcl
from envscale.evaluation.run import EvalConfig, evaluate


@pytest.mark.parametrize(("category", "count"), [("simple", 400), ("multiple", 200), ("parallel", 200)])
def test_the_gold_answers_score_100_percent(category, count):
    questions = bfcl.load_questions(category)
    assert len(questions) == count
    wrong = [q.id for q in questions if not bfcl.score(q, bfcl.gold_output(q))["valid"]]
    assert wrong == []


def test_the_loader_reads_400_simple_questions_with_functions_as_json_schema_tools():
    questions = bfcl.load_questions("simple")
    assert len(questions) == 400 and len({q.id for q in questions}) == 400
    first = questions[0]
    assert first.id == "simple_python_0" and first.messages[0]["role"] == "user"
    factorial = questions[1]
    tool = factorial.tools[0]["function"]
    # BFCL's `"type": "dict"` and dotted names, normalised as `collect` normalises BFCL docs
    assert tool["name"] == "math_factorial" and factorial.names == {"math_factorial": "math.factorial"}
    assert tool["parameters"]["type"] == "object" and tool["parameters"]["required"] == ["number"]
    assert len(bfcl.load_questions("simple", max_questions=7)) == 7


def test_a_perturbed_answer_is_scored_wrong():
    question = bfcl.load_questions("simple")[1]  # math.factorial of 5
    gold = bfcl.gold_output(question)
    assert gold == [{"math.factorial": {"number": 5}}]
    assert bfcl.score(question, gold)["valid"]
    off_by_one = copy.deepcopy(gold)
    off_by_one[0]["math.factorial"]["number"] = 6
    verdict = bfcl.score(question, off_by_one)
    assert not verdict["valid"] and verdict["error_type"].startswith("value_error")
    assert not bfcl.score(question, [{"math.gamma": {"number": 5}}])["valid"]
    assert not bfcl.score(question, [])["valid"]
    assert not bfcl.score(question, [{"math.factorial": {"number": "5"}}])["valid"]  # a string, not an int
    parallel = bfcl.load_questions("parallel")[0]
    assert not bfcl.score(parallel, bfcl.gold_output(parallel)[:1])["valid"]  # one call of several


def test_call_validity_checks_names_and_argument_schemas():
    question = bfcl.load_questions("simple")[1]
    calls = [
        {"name": "math_factorial", "arguments": {"number": 5}},
        {"name": "math_factorial", "arguments": {"number": "five"}},  # schema-invalid
        {"name": "math_gamma", "arguments": {"number": 5}},  # not offered
        {"name": "math_factorial", "arguments": None, "error": "not JSON"},
    ]
    assert bfcl.call_validity(question, calls) == [True, False, False, False]


def test_unknown_category_is_one_clear_error():
    with pytest.raises(ValueError, match="unknown BFCL category 'java'"):
        bfcl.load_questions("java")


def test_the_harness_scores_the_scripted_gold_agent_100_and_the_one_that_gives_up_0(tmp_path):
    config = EvalConfig(
        benchmark="bfcl",
        agents={"giveup": {"kind": "scripted", "noise": {"give_up": 1.0}}, "gold": {"kind": "scripted"}},
        bfcl_categories=["simple", "parallel"],
        max_questions=15,
    )
    art = evaluate(None, config, tmp_path / "bfcl")
    summary = list(load_dataset(art.location, "summary", split="train"))
    overall = {s["agent"]: s for s in summary if s["group_by"] == "overall"}
    assert overall["gold"]["items"] == 30 and overall["gold"]["success_rate"] == 1.0
    assert overall["gold"]["validity"] == 1.0
    assert overall["giveup"]["success_rate"] == 0.0 and overall["giveup"]["validity"] is None
    per_kind = {s["group"]: s for s in summary if s["agent"] == "gold" and s["group_by"] == "kind"}
    assert set(per_kind) == {"simple", "parallel"}
    results = list(load_dataset(art.location, "results", split="train"))
    parallel = next(r for r in results if r["agent"] == "gold" and r["kind"] == "parallel")
    assert parallel["n_calls"] >= 2 and parallel["split_kind"] == "bfcl"
    failed = next(r for r in results if r["agent"] == "giveup")
    assert failed["failed_checks"] == ["envscale:no_call"]
    report = (tmp_path / "bfcl" / "report.md").read_text()
    assert "| success | 0.000 | 1.000 | +1.000 |" in report and "AST checker" in report


def test_a_larger_run_asks_only_the_questions_not_yet_answered(tmp_path):
    agents = {"gold": {"kind": "scripted"}}
    first = evaluate(None, EvalConfig(benchmark="bfcl", agents=agents, max_questions=3), tmp_path / "b")
    (answers,) = (tmp_path / "b" / "bfcl_answers").glob("gold-*.jsonl")
    assert len(answers.read_text().splitlines()) == 3
    with answers.open("a") as f:
        f.write('{"id": "simple_python_3", "tri')  # the last line of a killed run
    second = evaluate(None, EvalConfig(benchmark="bfcl", agents=agents, max_questions=5), tmp_path / "b")
    lines = answers.read_text().splitlines()
    assert len(lines) == 6 and lines[3].endswith('"tri')  # 2 new answers after the cut line, kept apart
    assert (first.version, second.version) == ("v1", "v2")
    summary = list(load_dataset(second.location, "summary", split="train"))
    overall = next(s for s in summary if s["group_by"] == "overall")
    assert overall["items"] == 5 and overall["success_rate"] == 1.0
