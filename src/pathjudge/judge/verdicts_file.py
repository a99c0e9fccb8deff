"""The verdicts file: its two line shapes and the one reader every consumer goes through.

A verdicts file holds one JSON object a line, in either of two shapes (mixed freely):

* the generic shape, from ANY grader (:class:`RecordedVerdict`)::

      {"item_id": "a17", "verdict": "pass", "reasoning": "...", "sample": 0}

  ``verdict`` is ``pass``, ``fail``, ``unsure`` (the grader could not decide) or ``error`` (it broke).
  Several judgements of the same item carry distinct ``sample`` indices (no ``sample`` = sample 0).
* pathjudge's own judge output: a line with ``"kind": "verdict"`` (a
  :class:`~pathjudge.judge.verdict.VerdictRecord`) or ``"kind": "failure"`` (a
  :class:`~pathjudge.judge.verdict.JudgeFailure`).

:func:`read_verdicts_file` reads either shape, line by line, and is the only code that parses a
verdicts file: calibration aggregates its samples (:mod:`pathjudge.calibration.verdicts`), grading
takes one verdict per item from that (``pathjudge score --verdicts``), and the faces hand its records
to the renderers (:mod:`pathjudge.report.verdicts`). :func:`is_verdicts_file` tells a verdicts file
from a runs file by its first record.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, JsonValue, RootModel, ValidationError

from pathjudge._ids import ItemId
from pathjudge._io import DEFAULT_MAX_LINE_BYTES, iter_jsonl, record_error_from_validation
from pathjudge._records import FrozenModel
from pathjudge.errors import LabelsError, RecordError
from pathjudge.judge.verdict import JudgeFailure, VerdictRecord

__all__ = [
    "RecordedVerdict",
    "SampleValue",
    "VerdictLine",
    "is_verdicts_file",
    "read_verdicts_file",
]

SampleValue = Literal["pass", "fail", "unsure", "error"]


class RecordedVerdict(FrozenModel):
    """One recorded judgement of one item by any grader (the generic verdicts line)."""

    item_id: ItemId = Field(
        description="The judged item's id, as in the labels file (an integer is read as text)."
    )
    verdict: SampleValue = Field(
        description="pass, fail, unsure (could not decide) or error (the grader broke)."
    )
    reasoning: str | None = Field(
        default=None, description="The grader's reasoning, when recorded."
    )
    sample: int | None = Field(
        default=None, ge=0, description="Sample index when the item was judged several times."
    )
    criterion: str | None = Field(default=None, description="The criterion this verdict is for.")
    model: str | None = Field(default=None, description="The grader (model) that produced it.")
    backend: str | None = Field(
        default=None, description="The grader's backend (pathjudge: anthropic, openai, llama)."
    )
    criterion_hash: str | None = Field(
        default=None, description="Content hash of the criterion text the grader was given."
    )
    criterion_version: str | None = Field(
        default=None, description="The criterion's declared version, when the grader has one."
    )
    evidence: tuple[str, ...] = Field(
        default=(), description="Quotes from the judged data the grader cited."
    )
    evidence_verified: bool | None = Field(
        default=None,
        description="Whether every quote was found in the judged inputs (None: not checked).",
    )
    metadata: dict[str, JsonValue] = Field(default_factory=dict, description="Anything else.")


VerdictLine = VerdictRecord | JudgeFailure | RecordedVerdict
"""One line of a verdicts file, in the shape it was written in."""


class _Line(RootModel[dict[str, Any]]):
    """Any JSON object; dispatched to a verdict shape by :func:`read_verdicts_file`."""


def read_verdicts_file(
    path: str | Path, *, allow_empty: bool = False
) -> Iterator[tuple[int, VerdictLine]]:
    """Yield ``(line number, record)`` for every line of a verdicts file (``.gz`` allowed), either shape.

    ``"kind": "verdict"`` gives a :class:`VerdictRecord`, ``"kind": "failure"`` a
    :class:`JudgeFailure`, any other object a :class:`RecordedVerdict`. Every problem (file missing
    or empty, a line that is not a JSON object or does not validate) is a :class:`LabelsError`
    naming the file, line and field; an empty file (or only blank lines) too, unless ``allow_empty``.
    """
    path = Path(path)
    try:
        stream = iter_jsonl(path, _Line, what="verdict", allow_empty=allow_empty)
        for line, raw in stream.numbered():
            data = raw.root
            kind = data.get("kind")
            try:
                record: VerdictLine
                if kind == "verdict":
                    record = VerdictRecord.model_validate(data)
                elif kind == "failure":
                    record = JudgeFailure.model_validate(data)
                else:
                    record = RecordedVerdict.model_validate(data)
            except ValidationError as exc:
                problem = record_error_from_validation(exc, file=path, line=line, what="verdict")
                raise LabelsError(
                    problem.message, file=path, line=line, field=problem.field, hint=problem.hint
                ) from None
            yield line, record
    except RecordError as exc:
        raise LabelsError(
            exc.message, file=exc.file, line=exc.line, field=exc.field, hint=exc.hint
        ) from None


def is_verdicts_file(path: Path) -> bool:
    """Whether the first record of ``path`` looks like a verdict (``item_id`` and ``verdict``, no steps).

    Never raises and never holds more than the readers' line limit: a first line that is too long,
    nested too deeply or not JSON is "no" (the runs reader then names the problem and its line)."""
    try:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8-sig") as handle:
            while True:
                raw = handle.readline(DEFAULT_MAX_LINE_BYTES)
                if not raw:
                    return False
                if raw.strip():
                    break
            if not raw.endswith("\n") and len(raw) >= DEFAULT_MAX_LINE_BYTES:
                return False  # cut at the limit: not a record anyone reads
            first = json.loads(raw)
            return (
                isinstance(first, dict)
                and "item_id" in first
                and "verdict" in first
                and "steps" not in first
            )
    except (OSError, ValueError, EOFError, UnicodeDecodeError, RecursionError):
        return False
