"""pathjudge: grade tool-using LLM agents on task success, tool-call correctness and trajectory quality.

The public API is ``__all__``: the names most users need, each defined in one place, ``_EXPORTS`` (public
name → the package it is public in). Everything else is exported by the subpackage it belongs to:
``pathjudge.agent`` (trajectories, reading runs, importers, the agent loop), ``pathjudge.rubrics``
(suites, checks, reference paths, criteria), ``pathjudge.judge`` (verdicts, backends, the judge session),
``pathjudge.calibration`` (labels, agreement, PPI++), ``pathjudge.scoring`` (grades, scorecards, diffs,
variance), ``pathjudge.report`` (renderers), ``pathjudge.config`` and ``pathjudge.errors``. CHANGELOG.md
lists where each name that used to be here lives now.

Names resolve lazily on first use, so ``import pathjudge`` stays cheap and never imports anthropic,
instructor, scikit-learn, numpy, scipy or matplotlib; each heavy dependency loads only when a name that
needs it is used.
"""

import typing as _typing

from pathjudge._lazy import lazy_exports as _lazy_exports

__version__ = "0.1.0"

# public name -> the (sub)package or module it is public in
_EXPORTS: dict[str, str] = {
    "CheckResult": "pathjudge.rubrics",
    "Criterion": "pathjudge.rubrics",
    "JudgeFailure": "pathjudge.judge",
    "JudgeSession": "pathjudge.judge",
    "PathjudgeError": "pathjudge.errors",
    "RunGrade": "pathjudge.scoring",
    "RunRecord": "pathjudge.agent",
    "ScoreReport": "pathjudge.scoring",
    "Scorecard": "pathjudge.scoring",
    "Step": "pathjudge.agent",
    "Suite": "pathjudge.rubrics",
    "Verdict": "pathjudge.judge",
    "VerdictRecord": "pathjudge.judge",
    "calibrate": "pathjudge.calibration.calibrate",
    "diff_runs": "pathjudge.scoring",
    "get_criterion": "pathjudge.rubrics",
    "grade": "pathjudge.scoring.grade",
    "import_file": "pathjudge.agent",
    "load_labels": "pathjudge.calibration",
    "load_suite": "pathjudge.rubrics",
    "make_judge_backend": "pathjudge.judge",
    "read_runs": "pathjudge.agent",
    "run_judge": "pathjudge.judge",
    "score": "pathjudge.scoring",
    "variance_report": "pathjudge.scoring",
    "write_jsonl": "pathjudge._io",
}

__all__ = sorted([*_EXPORTS, "__version__"])

__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

if _typing.TYPE_CHECKING:  # pragma: no cover - the same names, for type checkers
    from pathjudge._io import write_jsonl as write_jsonl
    from pathjudge.agent import (
        RunRecord as RunRecord,
        Step as Step,
        import_file as import_file,
        read_runs as read_runs,
    )
    from pathjudge.calibration import load_labels as load_labels
    from pathjudge.calibration.calibrate import calibrate as calibrate
    from pathjudge.errors import PathjudgeError as PathjudgeError
    from pathjudge.judge import (
        JudgeFailure as JudgeFailure,
        JudgeSession as JudgeSession,
        Verdict as Verdict,
        VerdictRecord as VerdictRecord,
        make_judge_backend as make_judge_backend,
        run_judge as run_judge,
    )
    from pathjudge.rubrics import (
        CheckResult as CheckResult,
        Criterion as Criterion,
        Suite as Suite,
        get_criterion as get_criterion,
        load_suite as load_suite,
    )
    from pathjudge.scoring import (
        RunGrade as RunGrade,
        ScoreReport as ScoreReport,
        Scorecard as Scorecard,
        diff_runs as diff_runs,
        score as score,
        variance_report as variance_report,
    )
    from pathjudge.scoring.grade import grade as grade
