"""Hostile user callables and checks: whatever a check raises or returns, the run is undecided with one
``error`` result, the stream goes on, and the reason is bounded and printable."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics.assertions.base import CheckResult, errored
from pathjudge.rubrics.checks import CHECKS, Check, SuitePlan, TaskPlan
from pathjudge.rubrics.suite import parse_suite_text
from pathjudge.scoring.grade import grade
from pathjudge.scoring.scorecard import build_scorecard


class _UnprintableError(Exception):
    def __str__(self) -> str:
        raise RuntimeError("__str__ broke too")


class _CustomBase(BaseException):
    pass


def raises_generator_exit(run: RunRecord) -> bool:
    raise GeneratorExit


def raises_cancelled(run: RunRecord) -> bool:
    raise asyncio.CancelledError


def raises_custom_base(run: RunRecord) -> bool:
    raise _CustomBase("custom")


def raises_unprintable(run: RunRecord) -> bool:
    raise _UnprintableError


def raises_huge(run: RunRecord) -> bool:
    raise ValueError("x" * 100_000)


CALLABLES = (
    "raises_generator_exit",
    "raises_cancelled",
    "raises_custom_base",
    "raises_unprintable",
    "raises_huge",
)

SUITE = "name: hostile\ntasks:\n" + "".join(
    f"  - id: {name}\n    success: {{kind: callable, function: "
    f'"tests.scoring.test_broken_checks_hostile:{name}"}}\n'
    for name in CALLABLES
)


def _run(task_id: str) -> RunRecord:
    return RunRecord(
        run_id=f"run-{task_id}",
        task_id=task_id,
        steps=(Step(tool="search", turn=0, arguments={"q": "x"}),),
        final_answer="ok",
    )


def test_any_exception_from_a_success_callable_is_an_error_and_the_stream_goes_on() -> None:
    suite = parse_suite_text(SUITE, allow_callables=True)
    runs = [_run(name) for name in CALLABLES]
    graded = list(grade(runs, suite, fast=True))  # nothing escapes, every run is graded
    assert [g.run_id for g in graded] == [r.run_id for r in runs]
    for one in graded:
        outcome = next(c for c in one.checks if c.check.startswith("outcome"))
        assert outcome.status == "error", (one.run_id, outcome)
        assert one.success == "undecided"
        assert "failed" not in one.weak
        assert len(outcome.reason) < 1000  # a huge message is cut, never copied whole
    card = build_scorecard(graded, suite)
    assert card.success_failed == 0
    assert card.success_undecided == len(CALLABLES)
    assert card.check_errors == len(CALLABLES)


def test_an_exception_whose_str_raises_still_gives_an_error_result() -> None:
    result = errored("outcome", "goal_completion", _UnprintableError())
    assert result.status == "error"
    assert "_UnprintableError" in result.reason


def _raises_base(run: RunRecord, plan: TaskPlan) -> tuple[CheckResult, ...]:
    raise GeneratorExit


def _raises_unprintable(run: RunRecord, plan: TaskPlan) -> tuple[CheckResult, ...]:
    raise _UnprintableError


@pytest.mark.parametrize("function", [_raises_base, _raises_unprintable])
def test_a_declared_check_that_raises_anything_is_an_error(function: Any) -> None:
    suite = parse_suite_text(
        "name: s\ntasks:\n  - id: t\n    success: {kind: contains_all, values: [ok]}\n"
    )
    plans = SuitePlan(suite, checks=(*CHECKS, Check("tools.custom", "tool_selection", function)))
    (one,) = grade([_run("t")], plans, fast=True)
    custom = next(c for c in one.checks if c.check == "tools.custom")
    assert custom.status == "error"
    assert one.success == "pass"  # the goal checks still ran
    assert one.check_errors == 1
