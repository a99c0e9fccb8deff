"""Recorded grader verdicts as samples, and the k-sample majority vote per item.

A verdicts file is read by :func:`pathjudge.judge.verdicts_file.read_verdicts_file`, the one reader of
the format; this module turns its lines into samples. A verdicts file holds one JSON object a line, in
either of two shapes (mixed freely):

* the generic shape, from ANY grader (:class:`RecordedVerdict`)::

      {"item_id": "a17", "verdict": "pass", "reasoning": "...", "sample": 0}

  ``verdict`` is ``pass``, ``fail``, ``unsure`` (the grader could not decide) or ``error`` (it broke).
  Several judgements of the same item carry distinct ``sample`` indices (no ``sample`` = sample 0).
  Optional: ``criterion``, ``model``, ``backend``, ``criterion_hash``, ``criterion_version``,
  ``evidence`` (the quotes the grader cited), ``evidence_verified`` (whether they were found in the judged inputs) and ``metadata``.
* pathjudge's own judge output (a line with ``"kind": "verdict"`` or ``"kind": "failure"``, see
  :mod:`pathjudge.judge.verdict`): a verdict record contributes each of its ``sample_verdicts`` as one
  sample (plus one ``error`` sample per failed sample); a failure record is one ``error`` sample. The
  criterion is its ``criterion_id``.

Samples are combined per (criterion, item) into an :class:`ItemVotes`: the majority verdict among the
decisive (pass/fail) samples, ``unsure`` on a tie or when no sample is decisive, and the vote share
(passes among the decisive samples). Unsure and error samples never count as pass or fail.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, TypedDict

from pathjudge.calibration._by_criterion import ByCriterion
from pathjudge.calibration._judge_name import JudgeName
from pathjudge.errors import LabelsError
from pathjudge.judge.verdict import JudgeFailure
from pathjudge.judge.verdict import VerdictRecord as JudgeVerdictRecord
from pathjudge.judge.verdicts_file import RecordedVerdict, SampleValue, read_verdicts_file

__all__ = [
    "GradedVerdict",
    "ItemVotes",
    "JudgeName",
    "RecordedVerdict",
    "SampleValue",
    "VerdictSet",
    "VerdictValue",
    "aggregate_verdicts",
    "load_verdicts",
    "read_verdict_lines",
    "samples_from_result",
]

VerdictValue = Literal["pass", "fail", "unsure"]


def samples_from_result(result: JudgeVerdictRecord | JudgeFailure) -> list[RecordedVerdict]:
    """The samples of one pathjudge judge result, as generic :class:`RecordedVerdict` s.

    A verdict record gives each of its ``sample_verdicts`` plus one ``error`` sample per failed sample
    (at the lowest unused indices); a failure gives one ``error`` sample.
    """
    judged = _judged_by(result)
    if isinstance(result, JudgeFailure):
        return [
            RecordedVerdict(
                **judged,
                verdict="error",
                reasoning=f"{result.error_type}: {result.reasoning}",
                sample=result.sample_index,
            )
        ]
    out = [
        RecordedVerdict(
            **judged,
            verdict=sample.verdict,
            reasoning=sample.reasoning,
            sample=sample.sample_index,
            criterion_version=result.criterion_version,
            evidence=sample.evidence,
            evidence_verified=sample.evidence_verified,
        )
        for sample in result.sample_verdicts
    ]
    used = {s.sample_index for s in result.sample_verdicts}
    free = (i for i in range(len(used) + result.failed_samples + 1) if i not in used)
    out.extend(
        RecordedVerdict(
            **judged,
            verdict="error",
            reasoning="a judge sample failed after its retries",
            sample=next(free),
            criterion_version=result.criterion_version,
        )
        for _ in range(result.failed_samples)
    )
    return out


class _Judged(TypedDict):
    """What every sample of a judge result copies from it: the item, the criterion, the judge."""

    item_id: str
    criterion: str
    model: str
    backend: str
    criterion_hash: str


def _judged_by(result: JudgeVerdictRecord | JudgeFailure) -> _Judged:
    return {
        "item_id": result.item_id,
        "criterion": result.criterion_id,
        "model": result.model,
        "backend": result.backend,
        "criterion_hash": result.criterion_hash,
    }


def read_verdict_lines(
    path: str | Path, *, allow_empty: bool = False
) -> Iterator[tuple[int, RecordedVerdict]]:
    """Yield ``(line, sample)`` for every sample in a verdicts file, in either shape (module docs).

    The file is read by :func:`pathjudge.judge.verdicts_file.read_verdicts_file`; its errors (file
    missing or empty, a line that is not a JSON object or does not validate) are
    :class:`LabelsError` s naming the file, line and field.
    """
    for line, record in read_verdicts_file(path, allow_empty=allow_empty):
        if isinstance(record, RecordedVerdict):
            yield line, record
        else:
            for sample in samples_from_result(record):
                yield line, sample


@dataclass(frozen=True)
class ItemVotes:
    """All samples of one item for one criterion, in sample order."""

    item_id: str
    criterion: str | None
    verdicts: tuple[SampleValue, ...]
    reasonings: tuple[str | None, ...] = ()
    line: int = 0
    evidence: tuple[tuple[str, ...], ...] = ()
    evidence_verified: tuple[bool | None, ...] = ()

    @property
    def unverified(self) -> bool:
        """True when a decisive sample cites evidence that was not found in the judged inputs."""
        return any(
            checked is False and verdict in ("pass", "fail")
            for verdict, checked in zip(self.verdicts, self.evidence_verified, strict=False)
        )

    def unverified_as_unsure(self) -> ItemVotes:
        """These votes with every sample whose evidence was not found turned into ``unsure``."""
        if not self.unverified:
            return self
        verdicts = tuple(
            "unsure" if checked is False and verdict in ("pass", "fail") else verdict
            for verdict, checked in zip(
                self.verdicts,
                (*self.evidence_verified, *([None] * len(self.verdicts))),
                strict=False,
            )
        )
        return replace(self, verdicts=verdicts)

    @property
    def n_samples(self) -> int:
        return len(self.verdicts)

    @property
    def n_pass(self) -> int:
        return self.verdicts.count("pass")

    @property
    def n_fail(self) -> int:
        return self.verdicts.count("fail")

    @property
    def n_unsure(self) -> int:
        return self.verdicts.count("unsure")

    @property
    def n_error(self) -> int:
        return self.verdicts.count("error")

    @property
    def n_decided(self) -> int:
        return self.n_pass + self.n_fail

    @property
    def majority(self) -> VerdictValue:
        """``pass``/``fail`` when it has strictly more votes than the other; otherwise ``unsure``."""
        if self.n_pass > self.n_fail:
            return "pass"
        if self.n_fail > self.n_pass:
            return "fail"
        return "unsure"

    @property
    def errored(self) -> bool:
        """True when every sample is an error: the judge never ran properly on this item."""
        return bool(self.verdicts) and self.n_error == self.n_samples

    @property
    def vote_share(self) -> float | None:
        """Passes among the decisive samples; ``None`` when no sample is decisive."""
        decided = self.n_decided
        return self.n_pass / decided if decided else None

    @property
    def reasoning(self) -> str | None:
        """Reasoning of the first sample that voted with the majority (else the first one recorded)."""
        for verdict, reasoning in zip(self.verdicts, self.reasonings, strict=False):
            if verdict == self.majority and reasoning:
                return reasoning
        return next((r for r in self.reasonings if r), None)


@dataclass(frozen=True)
class VerdictSet(ByCriterion[ItemVotes]):
    """Aggregated verdicts of one file, keyed by criterion then item id (in order of first appearance)."""

    file: str | None
    by_criterion: Mapping[str | None, Mapping[str, ItemVotes]] = field(default_factory=dict)
    judges: Mapping[str | None, tuple[JudgeName, ...]] = field(default_factory=dict)

    def by_item(self) -> dict[str, GradedVerdict]:
        """One verdict per item id for grading (``pathjudge score --verdicts``), every criterion.

        The verdict is the majority vote of :class:`ItemVotes` (``unsure`` on a tie), or ``error``
        when every sample errored; the reasoning is the majority's. An item id under two criteria
        is a :class:`LabelsError` (grading keys verdicts by item id alone).
        """
        out: dict[str, GradedVerdict] = {}
        for criterion, items in self.by_criterion.items():
            for item_id, votes in items.items():
                if item_id in out:
                    raise LabelsError(
                        f"item {item_id!r} has verdicts under two criteria ({criterion!r} and "
                        "another)",
                        file=self.file,
                        line=votes.line,
                        field="item_id",
                        hint="grading item ids are '<run_id>:<criterion>'; keep one per item",
                    )
                out[item_id] = GradedVerdict(
                    verdict="error" if votes.errored else votes.majority,
                    reasoning=votes.reasoning or "",
                )
        return out


@dataclass(frozen=True)
class GradedVerdict:
    """What grading reads of an item's verdicts: the label and why (see :meth:`VerdictSet.by_item`)."""

    verdict: str
    reasoning: str


def aggregate_verdicts(
    records: Iterable[tuple[int, RecordedVerdict]], *, file: str | Path | None = None
) -> VerdictSet:
    """Group ``(line, record)`` pairs by (criterion, item) into :class:`ItemVotes`, samples in index order.

    A record without ``sample`` counts as sample 0. Two records for the same (criterion, item, sample)
    are a :class:`LabelsError` naming both lines. Empty input gives an empty set.
    """
    name = str(file) if file is not None else None
    seen: dict[tuple[str | None, str, int], int] = {}
    graders: dict[str | None, dict[tuple[str | None, str | None, str | None], int]] = {}
    versions: dict[tuple[str | None, str | None, str | None, str | None], str] = {}
    grouped: dict[str | None, dict[str, list[tuple[int, int, RecordedVerdict]]]] = {}
    for line, record in records:
        sample = record.sample if record.sample is not None else 0
        key = (record.criterion, record.item_id, sample)
        if key in seen:
            raise LabelsError(
                f"item {record.item_id!r}: sample {sample} has a second verdict (first on line {seen[key]})",
                file=name,
                line=line,
                field="sample",
                hint="give each judgement of the same item a distinct 'sample' index",
            )
        seen[key] = line
        who = (record.backend, record.model, record.criterion_hash)
        per = graders.setdefault(record.criterion, {})
        per[who] = per.get(who, 0) + 1
        if record.criterion_version is not None:
            # a failure record carries no version: the grader's other records name it
            versions.setdefault((record.criterion, *who), record.criterion_version)
        grouped.setdefault(record.criterion, {}).setdefault(record.item_id, []).append(
            (sample, line, record)
        )
    by_criterion: dict[str | None, dict[str, ItemVotes]] = {}
    for criterion, items in grouped.items():
        out: dict[str, ItemVotes] = {}
        for item_id, entries in items.items():
            first_line = entries[0][1]
            entries.sort(key=lambda entry: entry[0])
            out[item_id] = ItemVotes(
                item_id=item_id,
                criterion=criterion,
                verdicts=tuple(entry[2].verdict for entry in entries),
                reasonings=tuple(entry[2].reasoning for entry in entries),
                line=first_line,
                evidence=tuple(entry[2].evidence for entry in entries),
                evidence_verified=tuple(entry[2].evidence_verified for entry in entries),
            )
        by_criterion[criterion] = out
    judges = {
        criterion: tuple(
            JudgeName(
                backend=b,
                model=m,
                criterion=criterion,
                criterion_version=versions.get((criterion, b, m, h)),
                criterion_hash=h,
                samples=n,
            )
            for (b, m, h), n in sorted(per.items(), key=lambda entry: -entry[1])
        )
        for criterion, per in graders.items()
    }
    return VerdictSet(file=name, by_criterion=by_criterion, judges=judges)


def load_verdicts(path: str | Path, *, allow_empty: bool = False) -> VerdictSet:
    """Read a verdicts JSONL file (``.gz`` allowed; either shape) and aggregate its samples per item.

    An empty file (unless ``allow_empty``: then an empty set), a line that does not parse or
    validate, or a duplicate sample is a :class:`LabelsError` naming the file and line.
    """
    return aggregate_verdicts(read_verdict_lines(path, allow_empty=allow_empty), file=Path(path))
