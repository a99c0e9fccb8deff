"""Applying rubrics to runs: grades, scorecards, variance, diffs.

The grading core: :func:`grade_run` (one run, every declared check guarded), :func:`grade` (a stream
of runs), :func:`grade_chunk` (a chunk of runs-file lines into a mergeable :class:`PartialScorecard`,
the function a process pool or a distributed engine maps) and :func:`score_file_parallel`. Imported
on first use, so ``import pathjudge.scoring.diff`` stays light.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathjudge.scoring.chunk import (
        Line,
        grade_chunk,
        grade_records_chunk,
        iter_lines,
        score_file_parallel,
    )
    from pathjudge.scoring.grade import RunGrade, grade, grade_run
    from pathjudge.scoring.scorecard import PartialScorecard, Scorecard, ScorecardBuilder

__all__ = [
    "Line",
    "PartialScorecard",
    "RunGrade",
    "Scorecard",
    "ScorecardBuilder",
    "grade",
    "grade_chunk",
    "grade_records_chunk",
    "grade_run",
    "iter_lines",
    "score_file_parallel",
]

_HOMES = {
    "Line": "pathjudge.scoring.chunk",
    "grade_chunk": "pathjudge.scoring.chunk",
    "grade_records_chunk": "pathjudge.scoring.chunk",
    "iter_lines": "pathjudge.scoring.chunk",
    "score_file_parallel": "pathjudge.scoring.chunk",
    "RunGrade": "pathjudge.scoring.grade",
    "grade": "pathjudge.scoring.grade",
    "grade_run": "pathjudge.scoring.grade",
    "PartialScorecard": "pathjudge.scoring.scorecard",
    "Scorecard": "pathjudge.scoring.scorecard",
    "ScorecardBuilder": "pathjudge.scoring.scorecard",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'pathjudge.scoring' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
