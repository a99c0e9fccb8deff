"""``any_of`` success and the per-run ``passed`` verdict (issue 12, item 5)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.errors import SuiteError
from pathjudge.report.junit import junit_xml
from pathjudge.rubrics.assertions.outcome import AnyOfCriterion, check_outcome
from pathjudge.rubrics.suite import parse_suite
from pathjudge.scoring.grade import RunGrade, grade, grade_run, plan_task
from pathjudge.scoring.scorecard import build_scorecard, evaluate_gates, parse_thresholds


def answer(text: str | None, *steps: Step, task: str = "t", run_id: str = "r") -> RunRecord:
    return RunRecord(run_id=run_id, task_id=task, steps=steps, final_answer=text)


def any_of(*parts: dict[str, Any]) -> AnyOfCriterion:
    return AnyOfCriterion.model_validate({"kind": "any_of", "parts": list(parts)})


REFUND = {"name": "refund", "criterion": {"kind": "contains_all", "values": ["refunded"]}}
VOUCHER = {"name": "voucher", "criterion": {"kind": "contains_all", "values": ["voucher"]}}
BOTH = {
    "name": "both",
    "criterion": {
        "kind": "all_of",
        "parts": [
            {"name": "x", "criterion": {"kind": "contains_all", "values": ["x"]}},
            {"name": "y", "criterion": {"kind": "contains_all", "values": ["y"]}},
            {"name": "z", "criterion": {"kind": "contains_all", "values": ["z"]}},
        ],
    },
}
BROKEN = {"name": "broken", "criterion": {"kind": "callable", "function": "no_such_module:f"}}


# --- any_of ----------------------------------------------------------------------------------------


def test_any_of_passes_when_one_alternative_passes() -> None:
    result = check_outcome(answer("We issued a voucher."), any_of(REFUND, VOUCHER))
    assert result.check == "outcome.any_of"
    assert result.status == "pass"
    assert result.score == 1.0
    assert result.details["best"] == "voucher"
    assert "1 of 2 alternatives met (voucher)" in result.reason


def test_any_of_fails_with_the_best_partial_credit() -> None:
    # the all_of part meets 2 of its 3 sub-goals: 0.67 is the best partial credit
    result = check_outcome(answer("x and y"), any_of(REFUND, BOTH))
    assert result.status == "fail"
    assert result.score == pytest.approx(2 / 3)
    assert result.details["best"] == "both"


def test_any_of_a_broken_part_does_not_matter_when_another_passes() -> None:
    assert check_outcome(answer("refunded"), any_of(BROKEN, REFUND)).status == "pass"


def test_any_of_a_broken_part_makes_a_non_pass_an_error() -> None:
    result = check_outcome(answer("nothing"), any_of(BROKEN, REFUND))
    assert result.status == "error"
    assert result.score is None
    assert "could not check" in result.reason


def test_any_of_rejects_weights_and_duplicate_names() -> None:
    with pytest.raises(ValueError, match="weight"):
        any_of({**REFUND, "weight": 2}, VOUCHER)
    with pytest.raises(ValueError, match="unique"):
        any_of(REFUND, REFUND)
    with pytest.raises(ValueError):
        any_of()


def test_any_of_in_a_suite_and_nested_in_all_of() -> None:
    suite = parse_suite(
        {
            "name": "s",
            "tasks": [
                {
                    "id": "t",
                    "success": {
                        "kind": "all_of",
                        "parts": [
                            {
                                "name": "remedy",
                                "criterion": {"kind": "any_of", "parts": [REFUND, VOUCHER]},
                            },
                            {
                                "name": "sorry",
                                "criterion": {"kind": "contains_all", "values": ["sorry"]},
                            },
                        ],
                    },
                }
            ],
        }
    )
    graded = grade_run(answer("Sorry! Refunded."), plan_task(suite.task("t")))
    assert graded.success == "pass"
    graded = grade_run(answer("Sorry!"), plan_task(suite.task("t")))
    assert graded.success == "fail"
    assert graded.success_score == 0.5


# --- the passed verdict ----------------------------------------------------------------------------


def graded(task: dict[str, Any], run: RunRecord, **defaults: Any) -> RunGrade:
    suite = parse_suite({"name": "s", "defaults": defaults, "tasks": [{"id": "t", **task}]})
    return grade_run(run, plan_task(suite.task("t")))


SEARCH = Step(tool="search", arguments={"q": "x"}, turn=0)
DELETE = Step(tool="delete", arguments={}, turn=1)
PATH = {"references": [{"mode": "in_order", "steps": [{"tool": "search"}]}]}
SUCCESS = {"success": {"kind": "contains_all", "values": ["done"]}}


def test_passed_needs_success_and_every_gating_check() -> None:
    ok = graded({**SUCCESS, **PATH}, answer("done", SEARCH))
    assert (ok.verdict, ok.passed, ok.blockers) == ("pass", True, ())
    failed = graded({**SUCCESS, **PATH}, answer("nope", SEARCH))
    assert (failed.verdict, failed.passed, failed.blockers) == ("fail", False, ("success",))
    forbidden = graded(
        {**SUCCESS, **PATH, "tools": {"forbidden": ["delete"]}}, answer("done", SEARCH, DELETE)
    )
    assert forbidden.success == "pass"
    assert forbidden.passed is False
    assert forbidden.blockers == ("tools.forbidden",)


def test_the_reference_path_counts_when_declared() -> None:
    run = answer("done", DELETE)
    off_path = graded({**SUCCESS, **PATH}, run)
    assert off_path.success == "pass"
    assert off_path.passed is True  # a right answer by a poor path: a weak path, not a failure
    assert "poor_path" in off_path.weak
    required = graded({**SUCCESS, **PATH, "passed": {"path": True}}, run)
    assert required.passed is False
    assert required.blockers == ("path",)


def test_passed_checks_selects_what_counts() -> None:
    task = {**SUCCESS, **PATH, "tools": {"forbidden": ["delete"]}, "passed": {"checks": []}}
    run = answer("done", SEARCH, DELETE)
    assert graded(task, run).passed is True  # no check counts
    task["passed"] = {"checks": ["arguments.*"]}
    assert graded(task, run).passed is True  # the forbidden call does not count
    task["passed"] = {"checks": ["tools.*"]}
    assert graded(task, run).passed is False


def test_a_task_without_success_criterion_is_judged_on_its_checks() -> None:
    task = {**PATH, "passed": {"path": True}}
    assert graded(task, answer(None, SEARCH)).passed is True
    assert graded(task, answer(None, DELETE)).passed is False


def test_the_path_counts_by_default_where_it_is_all_the_task_says_about_done() -> None:
    off_path, on_path = answer(None, DELETE), answer(None, SEARCH)
    # no success criterion, kind or judged criterion: the references say what done means
    missed = graded(PATH, off_path)
    assert (missed.verdict, missed.passed, missed.blockers) == ("fail", False, ("path",))
    assert graded(PATH, on_path).passed is True
    assert graded(PATH, off_path, passed={"checks": []}).passed is False  # defaults keep it
    # said otherwise: the path is trajectory quality again (and here nothing else decides the run)
    opted_out = graded({**PATH, "passed": {"path": False}}, off_path)
    assert (opted_out.passed, opted_out.blockers) == (None, ("undecided: nothing checked",))
    assert graded({**SUCCESS, **PATH}, answer("done", DELETE)).passed is True
    assert graded({**PATH, "kind": "factual"}, answer("done", DELETE)).passed is True


def test_a_run_nothing_checked_is_undecided_never_a_pass() -> None:
    # no success criterion, no reference, no counted check: nothing says the run did its job
    empty = graded({}, answer("done"))
    assert (empty.verdict, empty.passed) == ("undecided", None)
    assert empty.blockers == ("undecided: nothing checked",)
    required = {"tools": {"required": ["search"]}}
    assert graded({**required, "passed": {"checks": []}}, answer("done", SEARCH)).passed is None
    assert graded(required, answer("done", SEARCH)).passed is True
    assert graded(required, answer("done")).passed is False
    assert graded({}, answer("done"), passed={"undecided": "fail"}).passed is False


@dataclass
class V:
    verdict: str
    reasoning: str = "r"


@pytest.mark.parametrize(
    ("policy", "expected"), [("pass", True), ("fail", False), ("exclude", None)]
)
def test_undecided_runs_count_as_declared(policy: str, expected: bool | None) -> None:
    # a judged-only task in fast mode: nothing can decide the success
    suite = parse_suite(
        {
            "name": "s",
            "defaults": {"passed": {"undecided": policy}},
            "tasks": [{"id": "t", "judged": [{"criterion": "c"}]}],
        }
    )
    grades = list(grade([answer("x")], suite, fast=True))
    assert grades[0].verdict == "undecided"
    assert grades[0].passed is expected
    assert grades[0].blockers == ("undecided: success",)


def test_a_broken_check_is_undecided_never_a_failure() -> None:
    task = {"success": {"kind": "callable", "function": "no_such_module:f"}}
    result = graded(task, answer("x"))
    assert result.verdict == "undecided"
    assert result.passed is None


def test_a_failure_outweighs_an_undecided_check() -> None:
    task = {
        "success": {"kind": "callable", "function": "no_such_module:f"},
        **PATH,
    }
    result = graded({**task, "passed": {"path": True}}, answer("x", DELETE))
    assert result.verdict == "fail"
    assert result.blockers == ("path", "undecided: success")


@pytest.mark.parametrize(("policy", "expected"), [("fail", False), ("undecided", None)])
def test_a_run_cut_short_never_passes(policy: str, expected: bool | None) -> None:
    cut = answer(None, SEARCH).model_copy(update={"stop_reason": "max_steps"})
    task = {**PATH, "truncated": policy, "passed": {"checks": [], "path": True}}
    result = graded(task, cut)
    assert result.passed is expected
    assert result.blockers[0].endswith("outcome.truncated")


def test_passed_policy_is_validated() -> None:
    with pytest.raises(SuiteError, match="undecided"):
        parse_suite({"name": "s", "tasks": [{"id": "t", "passed": {"undecided": "maybe"}}]})


# --- reported: scorecard, gates, JSON, JUnit ----------------------------------------------------------


def suite_and_grades() -> tuple[Any, list[RunGrade]]:
    suite = parse_suite(
        {
            "name": "s",
            "tasks": [
                {"id": "good", **SUCCESS, **PATH, "passed": {"path": True}},
                {"id": "mixed", **SUCCESS, **PATH, "passed": {"path": True}},
                {"id": "open", "judged": [{"criterion": "c"}]},
            ],
        }
    )
    runs = [
        answer("done", SEARCH, task="good", run_id="g1"),
        answer("done", SEARCH, task="mixed", run_id="m1"),
        answer("done", DELETE, task="mixed", run_id="m2"),  # success, off the path
        answer("x", task="open", run_id="o1"),  # undecided in fast mode, excluded
    ]
    return suite, list(grade(runs, suite, fast=True))


def test_scorecard_counts_verdicts() -> None:
    suite, grades = suite_and_grades()
    card = build_scorecard(grades, suite)
    # passed: g1, m1; failed: m2; o1 undecided and excluded -> 2 / 3
    assert card.passed_rate == pytest.approx(2 / 3)
    assert (card.verdict_passed, card.verdict_failed) == (2, 1)
    assert (card.verdict_undecided, card.verdict_excluded) == (1, 1)
    assert card.success_rate == 1.0  # success alone hides the off-path run
    rows = {row.task_id: row for row in card.task_rows}
    assert rows["mixed"].passed_rate == 0.5
    assert rows["open"].passed_rate is None
    assert rows["open"].verdict_excluded == 1


def test_fail_under_passed() -> None:
    suite, grades = suite_and_grades()
    card = build_scorecard(grades, suite)
    gates = evaluate_gates(card, parse_thresholds("passed=0.6"))
    assert [(g.metric, g.passed) for g in gates] == [("passed", True)]
    gates = evaluate_gates(card, parse_thresholds("passed=0.9"))
    assert [(g.metric, g.actual, g.passed) for g in gates] == [
        ("passed", pytest.approx(2 / 3), False)
    ]


def test_junit_cases_follow_the_verdict() -> None:
    suite, grades = suite_and_grades()
    card = build_scorecard(grades, suite)
    root = ET.fromstring(junit_xml(card, ["good", "mixed", "open"]))
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert cases["good"].find("failure") is None
    failure = cases["mixed"].find("failure")
    assert failure is not None
    assert "1 of 2 runs did not pass" in (failure.get("message") or "")
    assert "did not pass: path" in (failure.text or "")
    assert cases["open"].find("skipped") is not None


def test_cli_json_junit_and_fail_under(tmp_path: Path) -> None:
    from pathjudge.cli import main

    suite_file = tmp_path / "suite.yaml"
    suite_file.write_text(
        json.dumps(
            {"name": "s", "tasks": [{"id": "mixed", **SUCCESS, **PATH, "passed": {"path": True}}]}
        ),
        encoding="utf-8",
    )
    runs_file = tmp_path / "runs.jsonl"
    runs_file.write_text(
        "\n".join(
            r.model_dump_json()
            for r in (
                answer("done", SEARCH, task="mixed", run_id="m1"),
                answer("done", DELETE, task="mixed", run_id="m2"),
            )
        )
        + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "out.json"
    junit = tmp_path / "junit.xml"
    args = ["score", str(runs_file), "--suite", str(suite_file), "--json", str(out)]
    args += ["--junit", str(junit), "--include-runs", "--fail-under", "passed=0.75"]
    assert main(args) == 1
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["scorecard"]["passed_rate"] == 0.5
    assert [(r["run_id"], r["passed"]) for r in report["runs"]] == [("m1", True), ("m2", False)]
    assert report["gates"] == [
        {"metric": "passed", "threshold": 0.75, "actual": 0.5, "passed": False}
    ]
    assert "did not pass" in junit.read_text(encoding="utf-8")
    assert main([*args[:-1], "passed=0.5"]) == 0
