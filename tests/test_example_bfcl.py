"""examples/bfcl: a suite written from BFCL's own task data grades real BFCL v4 entries as BFCL does.

The generator writes the suite (YAML, only declarative features: ``types: bfcl`` in the defaults,
``language`` on the Java/JavaScript tasks, ``$one_of`` with ``$declared`` per parameter); runs that
make the ground-truth calls pass (the reference path is satisfied) except the five calls the official
checker itself can never pass; a missing or an extra parallel call fails.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.cli import main
from pathjudge.rubrics.suite import Suite, load_suite
from pathjudge.scoring.grade import grade
from tests.support import example_module

make_runs = example_module("bfcl", "make_runs")
make_suite = example_module("bfcl", "make_suite")

UNPASSABLE = {
    "live_simple_106-63-0",
    "live_simple_112-68-0",
    "simple_java_36",
    "simple_java_64",
    "simple_java_65",
}
UNREACHABLE = {"live_simple_106-63-0", "live_simple_112-68-0"}
"""Of UNPASSABLE, the tasks whose ground truth lists no value for a parameter: left out of the suite
unless --keep-unreachable (``pathjudge audit`` flags them as unsound)."""


@pytest.fixture(scope="module")
def suite(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Suite:
    out = tmp_path_factory.mktemp("bfcl") / "suite.yaml"
    assert make_suite.main([str(shared_data / "bfcl_v4"), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "types: bfcl" in text
    assert "language: java" in text
    assert "$declared: HashMap" in text
    return load_suite(out)


def test_the_score_headline_is_bfcls_own_verdict(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the README's own commands: simple_python and simple_java, 400 + 100 ground-truth runs
    root = shared_data / "bfcl_v4"
    categories = ["simple_python", "simple_java"]
    suite_file, runs_file, out = (
        tmp_path / "bfcl.yaml",
        tmp_path / "runs.jsonl",
        tmp_path / "o.json",
    )
    assert make_suite.main([str(root), *categories, "-o", str(suite_file)]) == 0
    assert make_runs.main([str(root), *categories, "-o", str(runs_file)]) == 0
    # BFCL's verdict on a ground-truth run: its checker passes it, except the calls it rejects
    bfcl_passes = {
        run.run_id: run.task_id not in UNPASSABLE
        for category in categories
        for run in make_runs.runs_for(root, category)
    }
    assert sum(bfcl_passes.values()) == 497
    argv = ["score", str(runs_file), "--suite", str(suite_file), "--json", str(out)]
    code = main([*argv, "--include-runs"])
    report = json.loads(out.read_text(encoding="utf-8"))
    card = report["scorecard"]
    assert (card["verdict_passed"], card["verdict_failed"]) == (497, 3)
    assert {r["run_id"]: r["passed"] for r in report["runs"]} == bfcl_passes
    assert code == 0
    assert "497/500" in capsys.readouterr().out


def test_generated_suite_passes_every_passable_ground_truth_run(
    shared_data: Path, suite: Suite
) -> None:
    runs = [
        run
        for category in make_suite.CATEGORIES
        for run in make_runs.runs_for(shared_data / "bfcl_v4", category)
    ]
    assert len(runs) == 1408
    runs = [run for run in runs if run.task_id not in UNREACHABLE]
    assert len(runs) == len(suite) == 1406
    failed = {g.task_id for g in grade(runs, suite) if not (g.path and g.path.satisfied)}
    assert failed == UNPASSABLE - UNREACHABLE
    java = suite.task("simple_java_25")
    (step,) = java.references[0].steps
    assert (step.types, step.language) == ("bfcl", "java")  # inherited from defaults and the task


def test_missing_or_extra_parallel_call_fails(shared_data: Path, suite: Suite) -> None:
    (run,) = [
        r
        for r in make_runs.runs_for(shared_data / "bfcl_v4", "parallel")
        if r.task_id == "parallel_0"
    ]
    assert len(run.steps) == 2
    reordered = run.model_copy(update={"run_id": "swap", "steps": run.steps[::-1]})
    short = run.model_copy(update={"run_id": "short", "steps": run.steps[:1]})
    extra = run.model_copy(
        update={
            "run_id": "extra",
            "steps": (*run.steps, Step(tool=run.steps[0].tool, arguments={})),
        }
    )
    verdicts = {
        g.run_id: bool(g.path and g.path.satisfied)
        for g in grade([run, reordered, short, extra], suite)
    }
    assert verdicts == {run.run_id: True, "swap": True, "short": False, "extra": False}


def test_a_wrong_java_literal_fails_with_a_reason(suite: Suite) -> None:
    tool = suite.task("simple_java_25").references[0].steps[0].tool
    # the id is declared long: the model must write 42L
    run = RunRecord(
        run_id="j", task_id="simple_java_25", steps=(Step(tool=tool, arguments={"id": "42"}),)
    )
    (graded,) = grade([run], suite)
    assert graded.path is not None
    assert not graded.path.satisfied
    assert "expected type long" in graded.path.reason


def test_calls_differing_in_letter_case_are_not_repeats(shared_data: Path, suite: Suite) -> None:
    # parallel_116: genotypes "AA", "Aa" and "aa", three different calls, all correct by BFCL
    (run,) = [
        r
        for r in make_runs.runs_for(shared_data / "bfcl_v4", "parallel")
        if r.task_id == "parallel_116"
    ]
    assert [s.arguments["genotype"] for s in run.steps] == ["AA", "Aa", "aa"]
    (graded,) = grade([run], suite)
    assert (graded.redundant, graded.trajectory, graded.passed) == (0, 1.0, True)


def test_tasks_no_call_can_pass_are_left_out_unless_kept(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = shared_data / "bfcl_v4"
    kept = tmp_path / "kept.yaml"
    assert make_suite.main([str(root), "live_simple", "-o", str(tmp_path / "s.yaml")]) == 0
    assert "left out 2 tasks" in capsys.readouterr().err
    assert make_suite.main([str(root), "live_simple", "-o", str(kept), "--keep-unreachable"]) == 0
    suite = load_suite(kept)
    assert {task.id for task in suite.tasks} >= UNREACHABLE
    runs = [r for r in make_runs.runs_for(root, "live_simple") if r.task_id in UNREACHABLE]
    assert [g.passed for g in grade(runs, suite)] == [False, False]
