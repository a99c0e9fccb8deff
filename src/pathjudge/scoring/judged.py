"""The seam between deterministic grading and the LLM judge.

:func:`judge_requests` turns (runs, suite) into one :class:`JudgeRequest` per (run, judged criterion):
``item_id = f"{run_id}:{criterion_id}"`` plus the named text inputs the criterion reads. The judge
(``pathjudge.judge``) answers them; :func:`~pathjudge.scoring.grade.grade` takes the answers as
``verdicts: Mapping[item_id, VerdictLike]``. Anything with ``.verdict`` and ``.reasoning`` fits, so the
judge's own records, recorded verdicts read back from JSONL (:func:`load_verdicts`) and test doubles all
plug in without this module importing the judge.

A verdict of ``unsure`` and a judge failure (``error``) both mean "the judge could not decide": such
items are excluded from pass rates and counted separately, never turned into a pass or a fail.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from pathjudge.agent.io import iter_jsonl
from pathjudge.agent.trajectory import RunRecord
from pathjudge.errors import LabelsError
from pathjudge.rubrics.suite import JudgedSpec, Suite, Task

__all__ = [
    "JudgeRequest",
    "JudgedStatus",
    "RecordedVerdict",
    "VerdictLike",
    "build_inputs",
    "item_id",
    "iter_judge_requests",
    "judge_request",
    "judge_requests",
    "load_verdicts",
    "status_of",
]

JudgedStatus = Literal["pass", "fail", "unsure", "error", "not_run"]
"""A judged criterion's outcome on one run. ``unsure`` and ``error`` are "could not decide";
``not_run`` means no verdict was available (fast mode, or no judge configured)."""


class VerdictLike(Protocol):
    """What grading needs from a verdict: the label and why."""

    @property
    def verdict(self) -> str: ...

    @property
    def reasoning(self) -> str: ...


class JudgeRequest(BaseModel):
    """One item for the judge: one criterion on one run, with its named text inputs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str = Field(description="'{run_id}:{criterion_id}', the key verdicts come back under.")
    run_id: str
    task_id: str
    criterion_id: str
    inputs: dict[str, str] = Field(description="Criterion input name -> text.")


class RecordedVerdict(BaseModel):
    """A verdict read back from a verdicts JSONL line (``item_id``, ``verdict``, ``reasoning``).

    Other fields on the line (votes, usage, samples...) are ignored, so the judge's own
    ``verdicts.jsonl`` reads as is.
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    item_id: str = Field(min_length=1)
    verdict: Literal["pass", "fail", "unsure", "error"]
    reasoning: str = ""


def item_id(run_id: str, criterion_id: str) -> str:
    """The item id of one criterion on one run."""
    return f"{run_id}:{criterion_id}"


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def build_inputs(run: RunRecord, task: Task, spec: JudgedSpec) -> dict[str, str]:
    """The criterion's named inputs for this run (see :data:`~pathjudge.rubrics.suite.JudgedInput`)."""
    out: dict[str, str] = {}
    for name, source in spec.inputs.items():
        if source == "final_answer":
            out[name] = run.final_answer or ""
        elif source == "input":
            out[name] = task.input_text if task.input is not None else _text(run.input)
        elif source == "reference":
            out[name] = spec.reference or ""
        elif source == "tool_results":
            out[name] = "\n".join(f"{step.tool}: {_text(step.result)}" for step in run.steps)
        elif source == "tool_calls":
            out[name] = "\n".join(
                f"{step.tool}({json.dumps(step.arguments, ensure_ascii=False, sort_keys=True)})"
                for step in run.steps
            )
        else:  # pragma: no cover - closed Literal, checked by mypy
            raise AssertionError(source)
    return out


def judge_request(run: RunRecord, task: Task, spec: JudgedSpec) -> JudgeRequest:
    """The judge request for one judged criterion of ``task`` on ``run``."""
    return JudgeRequest(
        item_id=item_id(run.run_id, spec.criterion),
        run_id=run.run_id,
        task_id=task.id,
        criterion_id=spec.criterion,
        inputs=build_inputs(run, task, spec),
    )


def iter_judge_requests(runs: Iterable[RunRecord], suite: Suite) -> Iterator[JudgeRequest]:
    """Stream the judge requests of ``runs`` (runs of tasks without judged criteria yield none).

    A run naming a task the suite does not have raises :class:`~pathjudge.errors.SuiteError`.
    """
    for run in runs:
        task = suite.task(run.task_id)
        for spec in task.judged:
            yield judge_request(run, task, spec)


def judge_requests(runs: Iterable[RunRecord], suite: Suite) -> list[JudgeRequest]:
    """All judge requests of ``runs`` in run order, then criterion order; empty when nothing is judged."""
    return list(iter_judge_requests(runs, suite))


def status_of(verdict: VerdictLike | None) -> JudgedStatus:
    """``not_run`` without a verdict; otherwise pass / fail / unsure, and ``error`` for anything else."""
    if verdict is None:
        return "not_run"
    label = verdict.verdict
    if label == "pass":
        return "pass"
    if label == "fail":
        return "fail"
    if label == "unsure":
        return "unsure"
    return "error"


def load_verdicts(path: str | Path) -> dict[str, RecordedVerdict]:
    """Read recorded verdicts (one JSON object a line with ``item_id``, ``verdict``, ``reasoning``).

    A repeated ``item_id`` is a :class:`~pathjudge.errors.LabelsError` naming the line; an empty file
    gives an empty mapping.
    """
    out: dict[str, RecordedVerdict] = {}
    lines: dict[str, int] = {}
    for number, record in enumerate(
        iter_jsonl(path, RecordedVerdict, allow_empty=True, what="verdict"), 1
    ):
        if record.item_id in out:
            raise LabelsError(
                f"verdict for item {record.item_id!r} appears twice (record {lines[record.item_id]} and {number})",
                file=path,
                field="item_id",
                hint="keep one verdict per item",
            )
        out[record.item_id] = record
        lines[record.item_id] = number
    return out


def verdicts_for(
    requests: Iterable[JudgeRequest], verdicts: Mapping[str, VerdictLike]
) -> dict[str, JudgedStatus]:
    """The status of each request's item under ``verdicts`` (``not_run`` where none was given)."""
    return {request.item_id: status_of(verdicts.get(request.item_id)) for request in requests}
