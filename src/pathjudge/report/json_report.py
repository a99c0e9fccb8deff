"""The versioned JSON report of ``pathjudge score``: scorecard, gates, inputs, optional per-run grades.

Written with sorted keys and no timestamp unless one is passed in, so grading the same inputs twice
gives byte-identical files.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, PlainValidator, ValidationError

from pathjudge._io import write_text_atomic
from pathjudge.scoring.grade import RunGrade
from pathjudge.scoring.scorecard import GateResult, Scorecard

__all__ = ["REPORT_SCHEMA_VERSION", "ScoreReport", "dumps_report", "write_report"]

REPORT_SCHEMA_VERSION = 1


def _grades_in(value: object) -> tuple[RunGrade, ...] | None:
    """Per-run grades as given, or read back from their JSON form (validated)."""
    if value is None:
        return None
    if not isinstance(value, list | tuple):
        raise ValueError("expected a list of run grades")
    out: list[RunGrade] = []
    for index, item in enumerate(value):
        if isinstance(item, RunGrade):
            out.append(item)
            continue
        if not isinstance(item, Mapping):
            raise ValueError(f"run {index}: expected an object")
        try:
            out.append(RunGrade.from_dict(item))
        except ValidationError as exc:
            first = exc.errors(include_url=False, include_input=False)[0]
            where = ".".join(str(part) for part in first.get("loc", ()))
            raise ValueError(
                f"run {index}{': ' + where if where else ''}: {first['msg']}"
            ) from None
    return tuple(out)


def _grades_out(value: tuple[RunGrade, ...] | None) -> list[dict[str, Any]] | None:
    return None if value is None else [grade.to_dict() for grade in value]


GradeList = Annotated[
    tuple[RunGrade, ...] | None, PlainValidator(_grades_in), PlainSerializer(_grades_out)
]


class ScoreReport(BaseModel):
    """What ``pathjudge score --json`` writes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = 1
    kind: Literal["pathjudge.score"] = "pathjudge.score"
    suite_file: str | None = Field(default=None, description="The suite file, as given.")
    runs_file: str | None = Field(default=None, description="The runs file, as given.")
    fast: bool = Field(description="Whether judged criteria were skipped (fast mode).")
    judge: Literal["judge", "verdicts", "none", "fast"] = Field(
        description=(
            "Where judged verdicts came from: the live judge (and its cache), recorded verdicts only, "
            "none configured, or skipped (fast mode)."
        )
    )
    generated_at: str | None = Field(default=None, description="Only when the caller passes one.")
    scorecard: Scorecard
    gates: tuple[GateResult, ...] = ()
    passed: bool = Field(description="Whether every gate passed (True without gates).")
    runs: GradeList = Field(default=None, description="Per-run grades, when asked for.")


def dumps_report(report: ScoreReport) -> str:
    """The report as JSON text: sorted keys, two-space indent, trailing newline."""
    return (
        json.dumps(report.model_dump(mode="json"), sort_keys=True, indent=2, ensure_ascii=False)
        + "\n"
    )


def write_report(path: str | Path, report: ScoreReport) -> None:
    """Write the report atomically (temp file + rename)."""
    write_text_atomic(Path(path), dumps_report(report))
