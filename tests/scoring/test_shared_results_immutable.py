"""Grades share cached results between runs (a cached alignment, a cached "no tool error" result), so
nothing reachable from a grade may be changed in place: one run's grade can never alter another's."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from pathjudge.agent.io import read_runs
from pathjudge.rubrics.path import PathAlignment
from pathjudge.rubrics.suite import load_suite
from pathjudge.scoring.grade import RunGrade, grade

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "docent"


def _grades() -> list[RunGrade]:
    suite = load_suite(EXAMPLES / "suite.yaml")
    return list(grade(read_runs(EXAMPLES / "runs.jsonl"), suite, fast=True))


def test_an_alignment_shared_by_two_runs_cannot_be_changed_through_one() -> None:
    graded = _grades()
    by_alignment: dict[int, list[RunGrade]] = defaultdict(list)
    for one in graded:
        if one.path is not None:
            by_alignment[id(one.path)].append(one)
    shared = next(runs for runs in by_alignment.values() if len(runs) > 1)
    first, second = shared[0], shared[1]
    assert first.path is not None
    before = json.dumps(second.to_dict(), sort_keys=True)
    with pytest.raises(TypeError):
        first.path.faults["missing"] = 99  # type: ignore[index]
    with pytest.raises(TypeError):
        first.path.faults.update(missing=99)  # type: ignore[attr-defined]
    assert json.dumps(second.to_dict(), sort_keys=True) == before


def test_a_grade_is_frozen_all_the_way_down() -> None:
    one = next(g for g in _grades() if g.path is not None)
    with pytest.raises(TypeError):
        one.axes["goal_completion"] = 0.0  # type: ignore[index]
    copy = dict(one.axes)  # a plain copy is the way to change it
    copy["goal_completion"] = 0.0
    assert one.axes["goal_completion"] != 0.0 or copy is not one.axes
    back = RunGrade.from_dict(one.to_dict())
    assert back.to_dict() == one.to_dict()
    with pytest.raises(TypeError):
        back.axes["goal_completion"] = 0.0  # type: ignore[index]
    assert back.path is not None
    with pytest.raises(TypeError):
        back.path.faults["missing"] = 1  # type: ignore[index]
    again = PathAlignment.from_dict(one.path.to_dict())  # type: ignore[union-attr]
    assert again.to_dict() == one.path.to_dict()  # type: ignore[union-attr]
