"""The shortcuts of :func:`~pathjudge.scoring.grade.grade_run` grade as the plain paths they stand
in for grade.

- the built-in checks' results are trusted to keep the check contract (a tuple of results on the
  check's axis) and are folded into the grade by a loop that knows which result names they can give:
  a grade equals the one made with every check run guarded and folded by the generic loop (the same
  functions declared as user checks), built-in checks that break included;
- the scorecard's running mean adds 0 and 1 without splitting them into a ratio: its exact state
  equals the plain sum's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pathjudge.agent.trajectory import RunRecord
from pathjudge.rubrics.assertions.base import CheckResult
from pathjudge.rubrics.checks import CHECKS, RUN_GUARDED, Check, TaskPlan, plan_task
from pathjudge.rubrics.suite import parse_suite_text
from pathjudge.scoring.grade import RunGrade, grade_run
from tests.scoring._search_fetch import STEPS, SUITE_HEAD

SUITE = parse_suite_text(
    "name: pins\n"
    + SUITE_HEAD
    + """\
  - id: counted
    success: {kind: contains_any, values: ["429", "limit"]}
    steps: {budget: 2, max_redundant: 2}
    passed: {checks: ["tools.*", "steps.redundant"], path: true, undecided: fail}
    truncated: fail
    references: [{mode: in_order, steps: [{tool: search}]}]
  - id: judged
    judged: [{criterion: covers}]
    passed: {checks: [], undecided: pass}
    errored_calls: ignore
    steps: {scope: {tools: [search]}}
    query_overlap: {argument: q}
  - id: oos
    kind: out_of_scope
    tools: {required: [fetch], distractors: [delete]}
    recovery: {retry_budget: 0}
  - id: bare
    tools: {forbidden: [fetch]}
    passed: {undecided: exclude}
"""
)

ANSWERS = [None, "", "429", "the limit is 429", "I couldn't find that in the docs.", "no"]

_step = STEPS


@st.composite
def _runs(draw: st.DrawFn) -> RunRecord:
    steps = draw(st.lists(_step, max_size=6))
    return RunRecord(
        run_id=f"r{draw(st.integers(0, 99))}",
        task_id=draw(st.sampled_from([task.id for task in SUITE.tasks])),
        steps=tuple(step.model_copy(update={"turn": i}) for i, step in enumerate(steps)),
        final_answer=draw(st.sampled_from(ANSWERS)),
        stop_reason=draw(st.sampled_from([None, "end_turn", "max_steps"])),
    )


@dataclass(frozen=True)
class _Verdict:
    verdict: str
    reasoning: str = "because"


def _guarded(check: Check) -> Check:
    """``check`` declared as a user's check would be: the same function, not a built-in declaration."""
    return Check(check.name, check.axis, functools.partial(check.run), check.applies, check.gating)


def _plain_plan(plan: TaskPlan) -> TaskPlan:
    from dataclasses import replace

    plain = replace(plan, checks=tuple(_guarded(check) for check in plan.checks))
    assert all(kind == RUN_GUARDED for *_, kind in plain.runners)
    return plain


PLANS = {task.id: plan_task(task) for task in SUITE.tasks}
PLAIN = {task_id: _plain_plan(plan) for task_id, plan in PLANS.items()}


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_runs(), min_size=1, max_size=6),
    st.sampled_from(["fast", "none", "pass", "fail", "unsure", "odd"]),
)
def test_trusted_built_in_checks_grade_as_the_guarded_generic_path(
    runs: list[RunRecord], verdict: str
) -> None:
    for run in runs:
        verdicts = None
        if verdict not in ("fast", "none"):
            verdicts = {f"{run.run_id}:covers": _Verdict(verdict)}
        fast = verdict == "fast"
        plan = PLANS[run.task_id]
        for check in plan.checks:  # every built-in result keeps the contract the guard checks
            found = check.run(run, plan)
            assert type(found) is tuple
            assert all(type(r) is CheckResult and r.axis == check.axis for r in found)
        shortcut = grade_run(run, plan, verdicts=verdicts, fast=fast)
        plain = grade_run(run, PLAIN[run.task_id], verdicts=verdicts, fast=fast)
        _same(shortcut, plain)


def _same(left: RunGrade, right: RunGrade) -> None:
    assert left == right
    assert left.to_dict() == right.to_dict()
    assert repr(left.axes) == repr(right.axes)  # -0.0 is not 0.0 here
    assert left.reason == right.reason


def _user_checks() -> tuple[Check, ...]:
    """User checks that give the names the grade folds specially, on and off their axis."""

    def named(name: str, axis: Any, status: Any, **extra: Any) -> Callable[..., Any]:
        def run(run: RunRecord, plan: TaskPlan) -> tuple[CheckResult, ...]:
            if len(run.steps) % 2 or not run.steps:  # pairs [0, 1] need two calls
                return ()
            return (CheckResult(name, axis, status, **extra),)

        return run

    return (
        Check("u.trunc", "goal_completion", named("outcome.truncated", "goal_completion", "pass")),
        Check(
            "u.red",
            "step_efficiency",
            named("steps.redundant", "step_efficiency", "pass", details={"pairs": [[0, 1]]}),
        ),
        Check("u.path", "step_efficiency", named("path", "step_efficiency", "fail")),
        Check(
            "outcome", "goal_completion", named("outcome.x", "goal_completion", "fail", score=0.5)
        ),
    )


@settings(max_examples=150, deadline=None)
@given(st.lists(_runs(), min_size=1, max_size=6), st.booleans())
def test_user_checks_mixed_with_built_ins_grade_as_the_generic_path(
    runs: list[RunRecord], first: bool
) -> None:
    extra = _user_checks()
    for run in runs:
        task = SUITE.task(run.task_id)
        declared = (*extra, *CHECKS) if first else (*CHECKS, *extra)
        plan = plan_task(task, checks=declared)
        shortcut = grade_run(run, plan, fast=True)
        plain = grade_run(run, _plain_plan(plan), fast=True)
        _same(shortcut, plain)


def _breaks_on_odd_runs(function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def run(run: RunRecord, *args: Any, **kwargs: Any) -> Any:
        if int(run.run_id[1:]) % 2:
            raise RuntimeError("broken on purpose")
        return function(run, *args, **kwargs)

    return run


@settings(max_examples=150, deadline=None)
@given(st.lists(_runs(), min_size=1, max_size=6))
def test_built_in_checks_that_break_grade_as_the_generic_path(runs: list[RunRecord]) -> None:
    from unittest import mock

    from pathjudge.rubrics import checks

    with (
        mock.patch.object(
            checks, "check_tool_selection", _breaks_on_odd_runs(checks.check_tool_selection)
        ),
        mock.patch.object(checks, "check_steps", _breaks_on_odd_runs(checks.check_steps)),
        mock.patch.object(checks, "check_outcome", _breaks_on_odd_runs(checks.check_outcome)),
    ):
        for run in runs:
            shortcut = grade_run(run, PLANS[run.task_id], fast=True)
            plain = grade_run(run, PLAIN[run.task_id], fast=True)
            _same(shortcut, plain)
            if int(run.run_id[1:]) % 2 and run.task_id != "judged":
                assert shortcut.check_errors


def _plain_add(mean: Any, value: float | None) -> None:
    """The running mean's add without its shortcuts for 0 and 1."""
    if value is None:
        return
    numerator, denominator = value.as_integer_ratio()
    bits = denominator.bit_length() - 1
    if bits > mean.shift:
        mean.total <<= bits - mean.shift
        mean.shift = bits
    mean.total += numerator << (mean.shift - bits)
    mean.n += 1


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from([None, 0.0, -0.0, 1.0, 0, 1, 100, 0.5, 0.25, 0.1, 2 / 3]),
            st.floats(min_value=0.0, max_value=1.0),
            st.integers(min_value=0, max_value=100),
        ),
        max_size=30,
    )
)
def test_the_running_mean_of_the_usual_values_equals_the_plain_sum(values: list[Any]) -> None:
    from pathjudge.scoring.scorecard import _Mean

    fast, plain, batched = _Mean(), _Mean(), _Mean()
    for value in values:
        fast.add(value)
        fast.fold()  # value by value
        batched.add(value)  # folded once, below
        _plain_add(plain, value)
        assert (fast.total, fast.shift, fast.n) == (plain.total, plain.shift, plain.n)
    batched.fold()
    assert (batched.total, batched.shift, batched.n) == (plain.total, plain.shift, plain.n)
    assert batched.pending == []
    assert fast.value == plain.value
