"""Suite scorecard arithmetic, weights, gates and the judged-criteria counts (hand-computed)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.errors import InputError
from pathjudge.rubrics.suite import parse_suite_text
from pathjudge.scoring.grade import grade
from pathjudge.scoring.scorecard import (
    build_scorecard,
    evaluate_gates,
    parse_thresholds,
    parse_weights,
)

SUITE = parse_suite_text(
    """\
name: s
tasks:
  - id: a
    success: {kind: contains_all, values: ["yes"]}
    references: [{mode: strict, steps: [{tool: t}]}]
  - id: b
    judged: [{criterion: c}]
  - id: unused
"""
)
T = Step(tool="t", arguments={})


def runs() -> list[RunRecord]:
    return [
        RunRecord(
            run_id="1", task_id="a", steps=(T,), final_answer="yes"
        ),  # pass, trajectory 1, path 100
        RunRecord(
            run_id="2", task_id="a", steps=(T, T), final_answer="yes"
        ),  # pass, trajectory 0, path 90
        RunRecord(
            run_id="3", task_id="a", steps=(), final_answer="no"
        ),  # fail, trajectory 0, path 100-25=75 (a missing step, nothing out of order)
        RunRecord(run_id="4", task_id="b", steps=(), final_answer="x"),  # undecided (judge not run)
    ]


def test_scorecard_numbers() -> None:
    card = build_scorecard(grade(runs(), SUITE), SUITE)
    assert (card.success_passed, card.success_failed, card.success_undecided) == (2, 1, 1)
    assert card.success_rate == pytest.approx(2 / 3)  # undecided excluded
    assert card.trajectory == pytest.approx(1 / 3)  # (1 + 0 + 0) / 3 runs with a reference
    assert card.path_score == pytest.approx((100 + 90 + 75) / 3)
    # tool calls: only runs 1 and 2 made calls, both with valid JSON arguments -> 1.0
    assert card.tool_calls == 1.0
    # overall = (success 2/3 + tool_calls 1 + trajectory 1/3) / 3 = 2/3
    assert card.overall == pytest.approx((2 / 3 + 1 + 1 / 3) / 3)
    assert card.tasks_without_runs == ("unused",)
    assert [(j.criterion, j.not_run, j.pass_rate) for j in card.judged] == [("c", 1, None)]
    assert card.weak_total == 2
    assert [w.run_id for w in card.weak] == ["2", "3"]
    row = card.task_rows[0]
    assert (row.task_id, row.runs, row.passed, row.failed, row.mean_steps) == ("a", 3, 2, 1, 1.0)


def test_weights_and_gates() -> None:
    card = build_scorecard(grade(runs(), SUITE), SUITE, weights={"success": 3, "path": 1})
    # (3 * 2/3 + 1 * 265/300) / 4
    assert card.overall == pytest.approx((3 * 2 / 3 + 1 * (265 / 3) / 100) / 4)
    gates = evaluate_gates(card, parse_thresholds("success=0.6,trajectory=0.75,tool_calls=0.5"))
    # success 2/3 >= 0.6; tool_calls 1.0 >= 0.5; trajectory 1/3 < 0.75
    assert [(g.metric, g.passed) for g in gates] == [
        ("success", True),
        ("tool_calls", True),
        ("trajectory", False),
    ]
    (undefined,) = evaluate_gates(build_scorecard([], SUITE), {"success": 0.0})
    assert undefined.actual is None
    assert not undefined.passed


def test_empty_scorecard() -> None:
    card = build_scorecard([], SUITE)
    assert card.runs == 0
    assert card.success_rate is None
    assert card.overall is None


@pytest.mark.parametrize("text", ["success", "bogus=1", "success=x"])
def test_bad_thresholds(text: str) -> None:
    with pytest.raises(InputError):
        parse_thresholds(text)


def test_bad_weights() -> None:
    with pytest.raises(InputError, match="negative"):
        parse_weights("success=-1")
    with pytest.raises(InputError, match="unknown weight"):
        parse_weights("speed=1")
    assert parse_weights("success=2, trajectory=1") == {"success": 2.0, "trajectory": 1.0}


# The running means are exact: the value is the true mean of the floats, correctly rounded (then to
# 12 decimals), however the values were split, merged and ordered.
_floats = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)


@given(st.lists(_floats, max_size=30), st.integers(min_value=0, max_value=30), st.randoms())
def test_running_mean_is_exact_under_any_split_and_order(
    values: list[float], cut: int, rng: random.Random
) -> None:
    from fractions import Fraction

    from pathjudge.scoring.scorecard import _Mean

    left, right = _Mean(), _Mean()
    for value in values[:cut]:
        left.add(value)
    shuffled = values[cut:]
    rng.shuffle(shuffled)
    for value in shuffled:
        right.add(value)
    right.add(None)  # nothing counted
    right.merge(left)
    if not values:
        assert right.value is None
        return
    exact = sum((Fraction(v) for v in values), Fraction(0)) / len(values)
    assert right.n == len(values)
    assert right.value == round(float(exact), 12)


def test_the_scorecard_lists_each_weak_run_as_its_grade_describes_it() -> None:
    # every weak run reaches the scorecard's weak list once, in run order, carrying what its grade
    # says of it (flags, reason, path diff); a run that is not weak never does
    grades = list(grade(runs(), SUITE))
    weak = [g for g in grades if g.weak]
    assert weak
    assert len(weak) < len(grades)
    listed = build_scorecard(grades, SUITE).weak
    assert [entry.run_id for entry in listed] == [g.run_id for g in weak]
    for entry, one in zip(listed, weak, strict=True):
        assert (entry.task_id, entry.epoch, entry.flags) == (one.task_id, one.epoch, one.weak)
        assert entry.reason == one.reason
        assert (entry.path_score, entry.steps, entry.surfaced) == (
            one.path_score,
            one.steps,
            one.surfaced,
        )
        assert entry.diff == (tuple(one.path.diff_lines()) if one.path is not None else ())
        assert (entry.passed, entry.blockers) == (one.passed, one.blockers)
