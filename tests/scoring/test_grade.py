"""Per-run grading: levels, partial credit, refusals, judged criteria, errors."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.errors import SuiteError
from pathjudge.rubrics.suite import Suite, parse_suite_text
from pathjudge.scoring.grade import grade

SUITE = """\
name: t
defaults:
  tools: {required: [search_docs]}
tasks:
  - id: two-part
    kind: factual
    success:
      kind: all_of
      parts:
        - {name: price, criterion: {kind: contains_any, values: ["0 dollars", "$0"]}}
        - {name: storage, criterion: {kind: contains_any, values: ["1 gb"]}}
  - id: fact
    kind: factual
    references: [{mode: strict, steps: [{tool: search_docs, result_contains: [ratelimits]}]}]
    surface: [ratelimits]
  - id: oos
    kind: out_of_scope
  - id: judged-only
    judged:
      - criterion: summary-covers-points
        inputs: {summary: final_answer, points: reference}
        reference: "- 429"
  - id: judged-with-fallback
    success: {kind: contains_all, values: ["429"]}
    judged: [{criterion: c1}]
"""


@pytest.fixture
def suite() -> Suite:
    return parse_suite_text(SUITE)


def run(task: str, answer: str | None, *steps: Step, run_id: str | None = None) -> RunRecord:
    return RunRecord(run_id=run_id or f"{task}-r", task_id=task, steps=steps, final_answer=answer)


SEARCH = Step(tool="search_docs", arguments={"query": "rate"}, result=[{"id": "ratelimits"}])


@dataclass
class V:
    verdict: str
    reasoning: str = "because"


def test_binary_and_partial_credit(suite: Suite) -> None:
    full, half = grade(
        [
            run("two-part", "The Free plan costs $0 and includes 1 GB.", SEARCH, run_id="a"),
            run("two-part", "The Free plan costs 0 dollars per month.", SEARCH, run_id="b"),
        ],
        suite,
    )
    assert (full.success, full.success_score) == ("pass", 1.0)
    assert (half.success, half.success_score) == ("fail", 0.5)  # 1 of 2 sub-goals met
    assert half.weak == ("failed",)
    assert "storage" in half.reason


def test_factual_refusal_fails_and_out_of_scope_passes_only_by_refusing(suite: Suite) -> None:
    refusal = "I don't have that in the docs."
    fact, oos_ok, oos_bad = grade(
        [
            run("fact", refusal, SEARCH),
            run("oos", refusal, SEARCH, run_id="o1"),
            run("oos", "Yes it does.", run_id="o2"),
        ],
        suite,
    )
    assert fact.success == "fail"
    assert oos_ok.success == "pass"
    assert oos_bad.success == "fail"


def test_levels_trajectory_surface_and_redundancy(suite: Suite) -> None:
    (one,) = grade([run("fact", "60 requests", SEARCH)], suite)
    assert (one.tool_calls, one.trajectory, one.path_score, one.surfaced) == (1.0, 1.0, 100, True)
    (two,) = grade([run("fact", "60 requests", SEARCH, SEARCH)], suite)
    # the repeat is redundant and an extra in strict mode: 100 - 10 = 90, trajectory 0
    assert (two.trajectory, two.path_score, two.redundant) == (0.0, 90, 1)
    assert set(two.weak) == {"poor_path", "redundant"}
    miss = Step(tool="search_docs", arguments={"query": "x"}, result=[{"id": "plans"}])
    (three,) = grade([run("fact", "60", miss)], suite)
    assert three.surfaced is False
    assert three.missing_surface == ("ratelimits",)
    assert three.path is not None
    assert "result" in three.path.reason
    (none,) = grade([run("fact", "60")], suite)
    assert none.tool_calls == 0.0  # required tool not called; no valid_json check without calls
    assert none.axes["tool_selection"] == 0.0


def test_judged_not_run_unsure_and_fail(suite: Suite) -> None:
    r = run("judged-only", "Meridian returns 429.", SEARCH)
    (fast,) = grade([r], suite, {"judged-only-r:summary-covers-points": V("pass")}, fast=True)
    assert fast.success == "undecided"
    assert fast.judged[0].status == "not_run"
    (none,) = grade([r], suite)
    assert none.judged[0].status == "not_run"
    assert none.judged[0].reasoning == "no judge configured"
    (passed,) = grade([r], suite, {"judged-only-r:summary-covers-points": V("pass")})
    assert passed.success == "pass"
    (unsure,) = grade([r], suite, {"judged-only-r:summary-covers-points": V("unsure")})
    assert unsure.success == "undecided"
    assert unsure.judged[0].status == "unsure"
    (error,) = grade([r], suite, {"judged-only-r:summary-covers-points": V("error")})
    assert error.judged[0].status == "error"
    fallback = run("judged-with-fallback", "429", SEARCH)
    (kept,) = grade([fallback], suite)
    assert kept.success == "pass"  # the deterministic fallback decides while the judge did not run
    (failed,) = grade([fallback], suite, {"judged-with-fallback-r:c1": V("fail")})
    assert failed.success == "fail"
    assert "judged c1" in failed.reason


def test_unknown_task_names_file_and_line(suite: Suite, tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    good = run("fact", "60").model_dump_json()
    bad = run("nope", "60").model_dump_json()
    path.write_text(f"{good}\n\n{bad}\n")
    from pathjudge.agent.io import read_runs

    with pytest.raises(SuiteError) as info:
        list(grade(read_runs(path), suite, file=path))
    assert info.value.line == 3
    assert info.value.task_id == "nope"
    assert "runs.jsonl:3" in str(info.value)


def test_no_runs_no_grades(suite: Suite) -> None:
    assert list(grade([], suite)) == []


def test_memoised_tool_checks_equal_direct_checks(suite: Suite) -> None:
    from pathjudge.rubrics.assertions.tools import check_tool_selection

    runs = [
        run("fact", "60", SEARCH, run_id="m1"),
        run("fact", "61", SEARCH, run_id="m2"),
        run("fact", "60", run_id="m3"),
    ]
    task = suite.get("fact")
    assert task is not None
    assert task.tools is not None
    for graded, record in zip(grade(runs, suite), runs, strict=True):
        direct = check_tool_selection(record, task.tools)
        assert tuple(c for c in graded.checks if c.check.startswith("tools.")) == direct
