"""The versioned JSON report of ``pathjudge score``: scorecard, gates, inputs, optional per-run grades.

The model, :class:`~pathjudge.scoring.pipeline.ScoreReport`, is what :func:`pathjudge.score` returns;
this module writes it.

Written with sorted keys and no timestamp unless one is passed in, so grading the same inputs twice
gives byte-identical files.
"""

from __future__ import annotations

import json
from pathlib import Path

from pathjudge._io import write_text_atomic
from pathjudge.scoring.pipeline import REPORT_SCHEMA_VERSION, ScoreReport

__all__ = ["REPORT_SCHEMA_VERSION", "ScoreReport", "dumps_report", "write_report"]


def dumps_report(report: ScoreReport) -> str:
    """The report as JSON text: sorted keys, two-space indent, trailing newline."""
    return (
        json.dumps(report.model_dump(mode="json"), sort_keys=True, indent=2, ensure_ascii=False)
        + "\n"
    )


def write_report(path: str | Path, report: ScoreReport) -> None:
    """Write the report atomically (temp file + rename)."""
    write_text_atomic(Path(path), dumps_report(report))
