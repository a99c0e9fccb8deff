"""Human labels: the JSONL schema, and loading it into one gold pass/fail label per (criterion, item).

One line of a labels file is a :class:`LabelRecord`. The gold label of an item comes from exactly one of

* ``label``: ``"pass"`` or ``"fail"`` (optionally with ``annotators``, whose labels then only feed the
  inter-annotator statistics: the top-level label is the adjudicated one);
* ``score`` with a ``threshold`` (per record, or the loader's ``threshold``): pass when
  ``score >= threshold``, e.g. a 1-5 Likert score with threshold 5;
* ``annotators`` alone: each annotator gives a ``label`` or a ``score`` (scores are thresholded the same
  way), and the majority decides; an even split is an error that asks for an adjudicated ``label``.

Optional fields: ``criterion`` (the judged criterion the label is for; a file may hold several),
``split`` (``train``/``dev``/``test``: train items feed few-shot examples), ``group`` (e.g. the task id,
so that runs of one task in several epochs separate agent noise from judge noise), ``rationale`` (why
the label is right, reused as few-shot reasoning), ``inputs`` (what the judge sees, for running the
judge and exporting few-shot examples) and ``metadata``.

Every problem in a labels file is one :class:`~pathjudge.errors.LabelsError` naming the file, the line,
the item and how to fix it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from pathjudge._ids import ItemId
from pathjudge.calibration._jsonl import numbered_records
from pathjudge.errors import LabelsError

__all__ = [
    "LABELS_SCHEMA_VERSION",
    "AnnotatorLabel",
    "Label",
    "LabelRecord",
    "LabelSet",
    "LabelledItem",
    "Split",
    "load_labels",
    "resolve_labels",
]

LABELS_SCHEMA_VERSION: Literal[1] = 1

Label = Literal["pass", "fail"]
Split = Literal["train", "dev", "test"]


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class AnnotatorLabel(_Record):
    """One annotator's judgement of one item: a pass/fail ``label`` or an ordinal ``score``."""

    annotator: str = Field(
        min_length=1, description="Who labelled it (a stable id, e.g. 'expert1')."
    )
    label: Label | None = Field(default=None, description="pass or fail; omit when giving a score.")
    score: float | None = Field(
        default=None, description="An ordinal score, thresholded into pass/fail."
    )


class LabelRecord(_Record):
    """One labelled item (one line of a labels JSONL file). See the module docstring for the rules."""

    schema_version: Literal[1] = Field(
        default=LABELS_SCHEMA_VERSION, description="Labels schema version."
    )
    item_id: ItemId = Field(
        description="The item's id (an integer is read as text); verdicts refer to it."
    )
    criterion: str | None = Field(default=None, description="The criterion this label is for.")
    label: Label | None = Field(default=None, description="The (adjudicated) gold label.")
    score: float | None = Field(
        default=None, description="An ordinal gold score (needs a threshold)."
    )
    threshold: float | None = Field(
        default=None, description="score >= threshold is a pass (for this record's scores)."
    )
    annotators: tuple[AnnotatorLabel, ...] = Field(
        default=(), description="Per-annotator labels or scores."
    )
    split: Split | None = Field(default=None, description="train / dev / test.")
    group: str | None = Field(
        default=None, description="Items sharing a group are runs of one task (agent noise)."
    )
    rationale: str | None = Field(default=None, description="Why the gold label is right.")
    inputs: dict[str, JsonValue] | None = Field(
        default=None, description="What the judge sees for this item (criterion inputs)."
    )
    metadata: dict[str, JsonValue] = Field(default_factory=dict, description="Anything else.")

    @model_validator(mode="before")
    @classmethod
    def _newer_schema(cls, data: Any) -> Any:
        if isinstance(data, dict):
            version = data.get("schema_version", LABELS_SCHEMA_VERSION)
            if isinstance(version, int) and not isinstance(version, bool) and version > 1:
                raise ValueError(
                    f"schema_version {version} is newer than this pathjudge reads (1); upgrade pathjudge"
                )
        return data


@dataclass(frozen=True)
class LabelledItem:
    """The resolved gold label of one item for one criterion, with where it came from."""

    item_id: str
    criterion: str | None
    label: Label
    line: int
    split: Split | None = None
    group: str | None = None
    rationale: str | None = None
    inputs: Mapping[str, JsonValue] | None = None
    annotator_labels: tuple[tuple[str, Label], ...] = ()
    annotator_scores: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class LabelSet:
    """All resolved labels of one file, keyed by criterion then item id (in file order)."""

    file: str | None
    by_criterion: Mapping[str | None, Mapping[str, LabelledItem]] = field(default_factory=dict)

    @property
    def criteria(self) -> tuple[str | None, ...]:
        """The criteria present, in order of first appearance (``None``: records without one)."""
        return tuple(self.by_criterion)

    def items(self, criterion: str | None) -> tuple[LabelledItem, ...]:
        """The labelled items of ``criterion`` in file order (empty when the criterion is absent)."""
        return tuple(self.by_criterion.get(criterion, {}).values())

    def __len__(self) -> int:
        return sum(len(items) for items in self.by_criterion.values())

    def __iter__(self) -> Iterator[LabelledItem]:
        for items in self.by_criterion.values():
            yield from items.values()


def _fail(
    message: str,
    *,
    file: str | None,
    line: int,
    item: str | None,
    hint: str | None,
    field_: str | None = None,
) -> LabelsError:
    where = f"item {item!r}: " if item is not None else ""
    return LabelsError(where + message, file=file, line=line, field=field_, hint=hint)


def _threshold_for(record: LabelRecord, default: float | None) -> float | None:
    return record.threshold if record.threshold is not None else default


def _resolve_one(
    record: LabelRecord,
    line: int,
    *,
    file: str | None,
    default_threshold: float | None,
    annotator_kinds: dict[str, tuple[str, int]],
) -> LabelledItem:
    item = record.item_id
    threshold = _threshold_for(record, default_threshold)
    seen: set[str] = set()
    labels: list[tuple[str, Label]] = []
    scores: list[tuple[str, float]] = []
    for index, ann in enumerate(record.annotators):
        where = f"annotators[{index}]"
        if ann.annotator in seen:
            raise _fail(
                f"annotator {ann.annotator!r} appears twice",
                file=file,
                line=line,
                item=item,
                field_=where,
                hint="give each annotator one entry per item",
            )
        seen.add(ann.annotator)
        if (ann.label is None) == (ann.score is None):
            raise _fail(
                f"annotator {ann.annotator!r} must give exactly one of 'label' or 'score'",
                file=file,
                line=line,
                item=item,
                field_=where,
                hint="keep either the pass/fail label or the score",
            )
        kind = "label" if ann.label is not None else "score"
        previous = annotator_kinds.setdefault(ann.annotator, (kind, line))
        if previous[0] != kind:
            raise _fail(
                f"annotator {ann.annotator!r} gives a {kind} here but a {previous[0]} on line {previous[1]}",
                file=file,
                line=line,
                item=item,
                field_=where,
                hint="each annotator must use one scale throughout the file",
            )
        if ann.score is not None:
            if threshold is None:
                raise _fail(
                    f"annotator {ann.annotator!r} gives a score but no threshold is set",
                    file=file,
                    line=line,
                    item=item,
                    field_="threshold",
                    hint="add 'threshold' to the record, or pass a default threshold (--threshold)",
                )
            scores.append((ann.annotator, ann.score))
            labels.append((ann.annotator, "pass" if ann.score >= threshold else "fail"))
        elif ann.label is not None:
            labels.append((ann.annotator, ann.label))

    gold: Label
    if record.label is not None and record.score is not None:
        raise _fail(
            "has both 'label' and 'score'",
            file=file,
            line=line,
            item=item,
            field_="score",
            hint="keep one: a pass/fail label, or a score with a threshold",
        )
    if record.label is not None:
        gold = record.label
    elif record.score is not None:
        if threshold is None:
            raise _fail(
                "has a 'score' but no threshold",
                file=file,
                line=line,
                item=item,
                field_="threshold",
                hint="add 'threshold' to the record, or pass a default threshold (--threshold)",
            )
        gold = "pass" if record.score >= threshold else "fail"
    elif labels:
        passes = sum(1 for _, value in labels if value == "pass")
        fails = len(labels) - passes
        if passes == fails:
            raise _fail(
                f"annotators split evenly ({passes} pass, {fails} fail)",
                file=file,
                line=line,
                item=item,
                field_="annotators",
                hint="add an adjudicated top-level 'label'",
            )
        gold = "pass" if passes > fails else "fail"
    else:
        raise _fail(
            "has no label",
            file=file,
            line=line,
            item=item,
            field_="label",
            hint="give 'label' (pass/fail), or 'score' with a 'threshold', or 'annotators'",
        )
    return LabelledItem(
        item_id=item,
        criterion=record.criterion,
        label=gold,
        line=line,
        split=record.split,
        group=record.group,
        rationale=record.rationale,
        inputs=record.inputs,
        annotator_labels=tuple(labels),
        annotator_scores=tuple(scores),
    )


def resolve_labels(
    records: Iterable[tuple[int, LabelRecord]],
    *,
    file: str | Path | None = None,
    threshold: float | None = None,
) -> LabelSet:
    """Resolve ``(line, record)`` pairs into a :class:`LabelSet` (see the module docstring for rules).

    Raises :class:`LabelsError` for a duplicate (criterion, item id), a record without a usable label,
    an even annotator split without an adjudicated label, or inconsistent annotators (one annotator
    twice on an item, or using labels on one line and scores on another). Empty input gives an empty
    set (the loader rejects empty files).
    """
    name = str(file) if file is not None else None
    by_criterion: dict[str | None, dict[str, LabelledItem]] = {}
    annotator_kinds: dict[str, tuple[str, int]] = {}
    for line, record in records:
        resolved = _resolve_one(
            record, line, file=name, default_threshold=threshold, annotator_kinds=annotator_kinds
        )
        bucket = by_criterion.setdefault(record.criterion, {})
        previous = bucket.get(record.item_id)
        if previous is not None:
            crit = f" for criterion {record.criterion!r}" if record.criterion is not None else ""
            raise _fail(
                f"is labelled twice{crit} (first on line {previous.line})",
                file=name,
                line=line,
                item=record.item_id,
                field_="item_id",
                hint="keep one record per item and criterion; put several annotators under 'annotators'",
            )
        bucket[record.item_id] = resolved
    return LabelSet(file=name, by_criterion=by_criterion)


def load_labels(path: str | Path, *, threshold: float | None = None) -> LabelSet:
    """Read and resolve a labels JSONL file (``.gz`` allowed) into a :class:`LabelSet`.

    ``threshold`` is the default for records and annotators that give scores without one. An empty
    file, a line that does not parse or validate, or any problem listed in :func:`resolve_labels` is a
    :class:`LabelsError` naming the file and line.
    """
    path = Path(path)
    records = numbered_records(path, LabelRecord, what="label")
    return resolve_labels(records, file=path, threshold=threshold)
