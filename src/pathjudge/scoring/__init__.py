"""Applying rubrics to runs: the scoring pipeline (:func:`score`), grades, scorecards, variance, diffs,
mutations, the suite audit.

The grading core: :func:`grade_run` (one run, every declared check guarded), :func:`grade_chunk` (a chunk
of runs-file lines into a mergeable :class:`PartialScorecard`, the function a process pool or a
distributed engine maps) and :func:`score_file_parallel`.

``grade`` and ``mutate`` are not exported here because submodules of the same names exist: use
:func:`pathjudge.grade` or ``pathjudge.scoring.grade.grade``, and ``pathjudge.scoring.mutate.mutate``.

The public names of this package are ``__all__``; they load lazily, on first use.
"""

import typing as _typing

from pathjudge._lazy import lazy_exports as _lazy_exports

# public name -> defining module ("module:attribute" where the names differ)
_EXPORTS: dict[str, str] = {
    "AuditReport": "pathjudge.scoring.audit",
    "DiffGate": "pathjudge.scoring.diff",
    "DiffReport": "pathjudge.scoring.diff",
    "JudgeRequest": "pathjudge.scoring.judged",
    "Line": "pathjudge.scoring.chunk",
    "MutationReport": "pathjudge.scoring.mutate",
    "PartialScorecard": "pathjudge.scoring.scorecard",
    "RunGrade": "pathjudge.scoring.grade",
    "ScoreReport": "pathjudge.scoring.pipeline",
    "Scorecard": "pathjudge.scoring.scorecard",
    "ScorecardBuilder": "pathjudge.scoring.scorecard",
    "VarianceReport": "pathjudge.scoring.variance",
    "audit_suite": "pathjudge.scoring.audit",
    "build_scorecard": "pathjudge.scoring.scorecard",
    "diff_runs": "pathjudge.scoring.diff",
    "evaluate_gates": "pathjudge.scoring.scorecard",
    "grade_chunk": "pathjudge.scoring.chunk",
    "grade_records_chunk": "pathjudge.scoring.chunk",
    "grade_run": "pathjudge.scoring.grade",
    "iter_lines": "pathjudge.scoring.chunk",
    "mutation_report": "pathjudge.scoring.mutate",
    "parse_thresholds": "pathjudge.scoring.scorecard",
    "parse_weights": "pathjudge.scoring.scorecard",
    "pass_at_k": "pathjudge.scoring.variance",
    "pass_hat_k": "pathjudge.scoring.variance",
    "resolve_gate": "pathjudge.scoring.diff",
    "retriever_experiment": "pathjudge.scoring.mutate",
    "score": "pathjudge.scoring.pipeline",
    "score_file_parallel": "pathjudge.scoring.chunk",
    "variance_report": "pathjudge.scoring.variance",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

if _typing.TYPE_CHECKING:  # pragma: no cover - the same names, for type checkers
    from pathjudge.scoring.audit import AuditReport as AuditReport
    from pathjudge.scoring.audit import audit_suite as audit_suite
    from pathjudge.scoring.chunk import (
        Line as Line,
    )
    from pathjudge.scoring.chunk import (
        grade_chunk as grade_chunk,
    )
    from pathjudge.scoring.chunk import (
        grade_records_chunk as grade_records_chunk,
    )
    from pathjudge.scoring.chunk import (
        iter_lines as iter_lines,
    )
    from pathjudge.scoring.chunk import (
        score_file_parallel as score_file_parallel,
    )
    from pathjudge.scoring.diff import (
        DiffGate as DiffGate,
    )
    from pathjudge.scoring.diff import (
        DiffReport as DiffReport,
    )
    from pathjudge.scoring.diff import (
        diff_runs as diff_runs,
    )
    from pathjudge.scoring.diff import (
        resolve_gate as resolve_gate,
    )
    from pathjudge.scoring.grade import (
        RunGrade as RunGrade,
    )
    from pathjudge.scoring.grade import (
        grade_run as grade_run,
    )
    from pathjudge.scoring.judged import JudgeRequest as JudgeRequest
    from pathjudge.scoring.mutate import (
        MutationReport as MutationReport,
    )
    from pathjudge.scoring.mutate import (
        mutation_report as mutation_report,
    )
    from pathjudge.scoring.mutate import (
        retriever_experiment as retriever_experiment,
    )
    from pathjudge.scoring.pipeline import (
        ScoreReport as ScoreReport,
    )
    from pathjudge.scoring.pipeline import (
        score as score,
    )
    from pathjudge.scoring.scorecard import (
        PartialScorecard as PartialScorecard,
    )
    from pathjudge.scoring.scorecard import (
        Scorecard as Scorecard,
    )
    from pathjudge.scoring.scorecard import (
        ScorecardBuilder as ScorecardBuilder,
    )
    from pathjudge.scoring.scorecard import (
        build_scorecard as build_scorecard,
    )
    from pathjudge.scoring.scorecard import (
        evaluate_gates as evaluate_gates,
    )
    from pathjudge.scoring.scorecard import (
        parse_thresholds as parse_thresholds,
    )
    from pathjudge.scoring.scorecard import (
        parse_weights as parse_weights,
    )
    from pathjudge.scoring.variance import (
        VarianceReport as VarianceReport,
    )
    from pathjudge.scoring.variance import (
        pass_at_k as pass_at_k,
    )
    from pathjudge.scoring.variance import (
        pass_hat_k as pass_hat_k,
    )
    from pathjudge.scoring.variance import (
        variance_report as variance_report,
    )
