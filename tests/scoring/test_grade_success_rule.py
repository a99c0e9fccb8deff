"""The task-success rule of :func:`~pathjudge.scoring.grade.grade_run` reads the statuses of the gating
goal results once (a set) instead of scanning them for each status: it decides as the plain rule
does, scan by scan, on any mix of results and judged criteria."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given
from hypothesis import strategies as st

from pathjudge.rubrics.assertions.base import CheckResult
from pathjudge.scoring.grade import JudgedResult, SuccessStatus, _success

STATUSES = ("pass", "fail", "not_run", "error")
JUDGED = ("pass", "fail", "unsure", "error", "not_run")


def plain_success(
    gating_goal: Sequence[CheckResult], judged: Sequence[JudgedResult]
) -> SuccessStatus:
    """The rule as written before: one scan per status."""
    if any(j.status == "fail" for j in judged) or any(c.status == "fail" for c in gating_goal):
        return "fail"
    if any(c.status == "error" for c in gating_goal):
        return "undecided"
    if any(c.status == "pass" for c in gating_goal):
        return "pass"
    if judged and all(j.status == "pass" for j in judged):
        return "pass"
    return "undecided"


results = st.lists(
    st.sampled_from(STATUSES).map(
        lambda status: CheckResult(check="outcome.x", axis="goal_completion", status=status)
    ),
    max_size=4,
)
judged_results = st.lists(
    st.sampled_from(JUDGED).map(lambda status: JudgedResult("c", "r:c", status)), max_size=3
)


@given(results, judged_results)
def test_success_decides_as_the_plain_rule(
    gating_goal: list[CheckResult], judged: list[JudgedResult]
) -> None:
    assert _success(gating_goal, judged) == plain_success(gating_goal, judged)
