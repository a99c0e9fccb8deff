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
so that runs of one task in several epochs separate agent noise from judge noise), ``slice`` (slice
keys such as ``{"category": "refunds", "language": "de"}``, for per-slice gates: ``calibrate
--slice-by``), ``rationale`` (why the label is right, reused as few-shot reasoning), ``inputs`` (what
the judge sees, for running the judge and exporting few-shot examples) and ``metadata``.

Every problem in a labels file is one :class:`~pathjudge.errors.LabelsError` naming the file, the line,
the item and how to fix it.

Label logs (schema 2, :mod:`pathjudge.calibration.label_store`, written by ``pathjudge label``) load
through the same :func:`load_labels` (the first line's ``schema_version`` tells the format). Per
(criterion, item): the current adjudication wins; otherwise the raters' current labels decide by
majority (``unsure`` left out), and an even split or only ``unsure`` leaves the item out until it is
adjudicated (the set's ``notes`` say which). A label whose ``item_hash`` differs from the item's
current content hash (``current_hashes``) is *stale*: reported in ``stale`` and left out unless
``keep_stale``. An item counts as labelled in a random order (:attr:`LabelledItem.random_order`, what
PPI++ needs) when one of its raters labelled it in a random order; schema-1 labels count as random.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from pathjudge._ids import ItemId
from pathjudge._records import FrozenModel as Record
from pathjudge.calibration._by_criterion import ByCriterion
from pathjudge.calibration._jsonl import as_labels_errors, numbered_records
from pathjudge.errors import LabelsError

if TYPE_CHECKING:
    from pathjudge.calibration.label_store import LabelEvent

__all__ = [
    "LABELS_SCHEMA_VERSION",
    "AnnotatorLabel",
    "Label",
    "LabelRecord",
    "LabelSet",
    "LabelledItem",
    "Split",
    "item_hashes",
    "item_slices",
    "load_label_files",
    "load_labels",
    "resolve_events",
    "resolve_labels",
    "slice_keys",
    "verdict_input_hashes",
]

LABELS_SCHEMA_VERSION: Literal[1] = 1

Label = Literal["pass", "fail"]
Split = Literal["train", "dev", "test"]
Ratings = tuple[tuple[str, Label], ...]
"""``(rater, label)`` pairs of one item (pass/fail only)."""


class AnnotatorLabel(Record):
    """One annotator's judgement of one item: a pass/fail ``label`` or an ordinal ``score``."""

    annotator: str = Field(
        min_length=1, description="Who labelled it (a stable id, e.g. 'expert1')."
    )
    label: Label | None = Field(default=None, description="pass or fail; omit when giving a score.")
    score: float | None = Field(
        default=None, description="An ordinal score, thresholded into pass/fail."
    )


class LabelRecord(Record):
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
    slice: dict[str, str] = Field(
        default_factory=dict,
        description="Slice keys, e.g. {'category': 'refunds'} (per-slice gates: --slice-by).",
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
            if version == 2:
                raise ValueError(
                    "is a label event (schema 2, written by pathjudge label) in a schema-1 labels "
                    "file; keep label events in a file of their own and pass both with --labels"
                )
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
    metadata: Mapping[str, JsonValue] | None = None
    """The record's ``metadata`` (schema 1; e.g. ``model_family``, the family of the model that
    wrote the answer, which ``pathjudge bias`` reads); None when the record has none."""
    annotator_labels: tuple[tuple[str, Label], ...] = ()
    annotator_scores: tuple[tuple[str, float], ...] = ()
    random_order: bool = True
    """Whether the item was labelled in a random order (PPI++ uses only those); schema 1: True."""
    adjudicated: bool = False
    """Whether an adjudication (schema 2) settled the label."""
    gates_order: bool = False
    """Whether a rater labelled the item in ``--order gates`` (a stratified, not a simple, sample)."""
    stratum: str | None = None
    """The stratum the gates order drew the item from (schema 2, with ``stratum_size``); else None."""
    stratum_size: int | None = None
    """How many items that stratum held (N_h), where the label log says."""
    slice: Mapping[str, str] = field(default_factory=dict)
    """The item's slice keys (the label's ``slice``; a label log: its latest event's)."""


@dataclass(frozen=True)
class LabelSet(ByCriterion[LabelledItem]):
    """All resolved labels of one file, keyed by criterion then item id (in file order)."""

    file: str | None
    by_criterion: Mapping[str | None, Mapping[str, LabelledItem]] = field(default_factory=dict)
    stale: Mapping[str | None, tuple[str, ...]] = field(default_factory=dict)
    """Per criterion, the items with a label given to different content (schema 2; in file order)."""
    kept_stale: bool = False
    """True when stale labels were kept (``keep_stale``), False when they were left out."""
    notes: Mapping[str | None, tuple[str, ...]] = field(default_factory=dict)
    """Per criterion, what resolving the label log left out and why, in words."""
    split_ratings: Mapping[str | None, Mapping[str, tuple[Split | None, Ratings]]] = field(
        default_factory=dict
    )
    """Per criterion, the items left out because their raters split evenly: (split, ratings).
    They count for rater-rater agreement (leaving them out would hide the disagreements)."""

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


def _check_annotator(
    ann: AnnotatorLabel,
    index: int,
    line: int,
    *,
    item: str,
    file: str | None,
    seen: set[str],
    annotator_kinds: dict[str, tuple[str, int]],
) -> None:
    """One rater entry: named once on the item, giving one of label or score, and the same kind
    (label or score) as everywhere else in the file."""
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


def _annotator_ratings(
    record: LabelRecord,
    line: int,
    *,
    file: str | None,
    threshold: float | None,
    annotator_kinds: dict[str, tuple[str, int]],
) -> tuple[list[tuple[str, Label]], list[tuple[str, float]]]:
    """Each rater's pass/fail (a score turned into one by the threshold), and the raw scores."""
    seen: set[str] = set()
    labels: list[tuple[str, Label]] = []
    scores: list[tuple[str, float]] = []
    for index, ann in enumerate(record.annotators):
        _check_annotator(
            ann,
            index,
            line,
            item=record.item_id,
            file=file,
            seen=seen,
            annotator_kinds=annotator_kinds,
        )
        if ann.score is not None:
            if threshold is None:
                raise _fail(
                    f"annotator {ann.annotator!r} gives a score but no threshold is set",
                    file=file,
                    line=line,
                    item=record.item_id,
                    field_="threshold",
                    hint="add 'threshold' to the record, or pass a default threshold (--threshold)",
                )
            scores.append((ann.annotator, ann.score))
            labels.append((ann.annotator, "pass" if ann.score >= threshold else "fail"))
        elif ann.label is not None:
            labels.append((ann.annotator, ann.label))
    return labels, scores


def _gold_label(
    record: LabelRecord,
    ratings: Sequence[tuple[str, Label]],
    line: int,
    *,
    file: str | None,
    threshold: float | None,
) -> Label:
    """The item's label: the record's own label or score, else the raters' majority."""
    item = record.item_id
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
        return record.label
    if record.score is not None:
        if threshold is None:
            raise _fail(
                "has a 'score' but no threshold",
                file=file,
                line=line,
                item=item,
                field_="threshold",
                hint="add 'threshold' to the record, or pass a default threshold (--threshold)",
            )
        return "pass" if record.score >= threshold else "fail"
    if ratings:
        passes = sum(1 for _, value in ratings if value == "pass")
        fails = len(ratings) - passes
        if passes == fails:
            raise _fail(
                f"annotators split evenly ({passes} pass, {fails} fail)",
                file=file,
                line=line,
                item=item,
                field_="annotators",
                hint="add an adjudicated top-level 'label'",
            )
        return "pass" if passes > fails else "fail"
    raise _fail(
        "has no label",
        file=file,
        line=line,
        item=item,
        field_="label",
        hint="give 'label' (pass/fail), or 'score' with a 'threshold', or 'annotators'",
    )


def _resolve_one(
    record: LabelRecord,
    line: int,
    *,
    file: str | None,
    default_threshold: float | None,
    annotator_kinds: dict[str, tuple[str, int]],
) -> LabelledItem:
    threshold = _threshold_for(record, default_threshold)
    labels, scores = _annotator_ratings(
        record, line, file=file, threshold=threshold, annotator_kinds=annotator_kinds
    )
    return LabelledItem(
        item_id=record.item_id,
        criterion=record.criterion,
        label=_gold_label(record, labels, line, file=file, threshold=threshold),
        line=line,
        split=record.split,
        group=record.group,
        rationale=record.rationale,
        inputs=record.inputs,
        metadata=record.metadata or None,
        slice=dict(record.slice),
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


def load_labels(
    path: str | Path,
    *,
    threshold: float | None = None,
    current_hashes: Mapping[str, str] | None = None,
    keep_stale: bool = False,
    warn: Callable[[str], None] | None = None,
) -> LabelSet:
    """Read and resolve a labels JSONL file (``.gz`` allowed) into a :class:`LabelSet`.

    ``threshold`` is the default for records and annotators that give scores without one. An empty
    file, a line that does not parse or validate, or any problem listed in :func:`resolve_labels` is a
    :class:`LabelsError` naming the file and line.

    A label log (first line ``"schema_version": 2``) is read with the label store's rules (a torn
    last line is skipped with ``warn``) and resolved by :func:`resolve_events` with
    ``current_hashes`` (item id -> content hash) and ``keep_stale``.
    """
    path = Path(path)
    if _schema_of_first_line(path) == 2:
        events = _numbered_events(path, warn)
        return resolve_events(
            events, file=path, current_hashes=current_hashes, keep_stale=keep_stale
        )
    records = numbered_records(path, LabelRecord, what="label")
    return resolve_labels(records, file=path, threshold=threshold)


def _schema_of_first_line(path: Path) -> object:
    """The ``schema_version`` of the first non-blank line (None when absent or unreadable)."""
    import gzip
    import json

    if not path.is_file():
        return None
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as handle:
            for raw in handle:
                if raw.strip():
                    data = json.loads(raw)
                    return data.get("schema_version") if isinstance(data, dict) else None
    except (OSError, ValueError, EOFError):
        return None  # the schema-1 reader reports the problem with its line
    return None


def _numbered_events(
    path: Path, warn: Callable[[str], None] | None
) -> Iterator[tuple[int, LabelEvent]]:
    """``(line, event)`` of a label log; torn lines skipped as :func:`read_events` does."""
    from pathjudge.calibration.label_store import numbered_events

    with as_labels_errors():
        yield from numbered_events(path, warn)


def resolve_events(
    events: Iterable[tuple[int, LabelEvent]],
    *,
    file: str | Path | None = None,
    current_hashes: Mapping[str, str] | None = None,
    keep_stale: bool = False,
) -> LabelSet:
    """Resolve ``(line, event)`` pairs of a label log into a :class:`LabelSet` (module docstring).

    Per ``(criterion, item)``, over the current events (the last per rater and kind): an
    adjudication's pass/fail wins (unless a rater relabelled the item after it); else the majority of the raters' pass/fail labels. Left out, with
    a note: an even split (it awaits adjudication), only ``unsure`` labels, an ``unsure``
    adjudication, and (unless ``keep_stale``) every label whose ``item_hash`` is not the item's
    current hash in ``current_hashes`` (an item absent from it cannot be checked and is kept).
    Empty input gives an empty set.
    """
    name = str(file) if file is not None else None
    latest: dict[tuple[str, str, str, str], tuple[int, LabelEvent]] = {}
    for line, event in events:
        latest[(event.item_id, event.criterion, event.rater, event.kind)] = (line, event)
    stale: dict[str | None, list[str]] = {}
    grouped: dict[str | None, dict[str, list[tuple[int, LabelEvent]]]] = {}
    for line, event in latest.values():
        current = current_hashes.get(event.item_id) if current_hashes is not None else None
        if current is not None and current != event.item_hash:
            ids = stale.setdefault(event.criterion, [])
            if event.item_id not in ids:
                ids.append(event.item_id)
            if not keep_stale:
                continue
        grouped.setdefault(event.criterion, {}).setdefault(event.item_id, []).append((line, event))
    by_criterion: dict[str | None, dict[str, LabelledItem]] = {}
    notes: dict[str | None, tuple[str, ...]] = {}
    split_ratings: dict[str | None, dict[str, tuple[Split | None, Ratings]]] = {}
    for criterion, items in grouped.items():
        bucket: dict[str, LabelledItem] = {}
        ties: list[str] = []
        undecided: list[str] = []
        for item_id, pairs in items.items():
            resolved = _resolve_item(item_id, criterion, pairs)
            if resolved is None:
                raters = [e for _, e in pairs if e.kind == "label" and e.label != "unsure"]
                (ties if raters else undecided).append(item_id)
                if raters:
                    last = max(pairs, key=lambda pair: pair[0])[1]
                    split_ratings.setdefault(criterion, {})[item_id] = (
                        last.split,
                        tuple((e.rater, "pass" if e.label == "pass" else "fail") for e in raters),
                    )
            else:
                bucket[item_id] = resolved
        said: list[str] = []
        if ties:
            said.append(
                f"{len(ties)} item(s) whose raters split evenly are left out until adjudicated "
                f"(pathjudge label --adjudicate): {_shown(ties)}"
            )
        if undecided:
            said.append(
                f"{len(undecided)} item(s) labelled only 'unsure' are left out: {_shown(undecided)}"
            )
        if bucket:
            by_criterion[criterion] = bucket
        if said:
            notes[criterion] = tuple(said)
    return LabelSet(
        file=name,
        by_criterion=by_criterion,
        stale={c: tuple(ids) for c, ids in stale.items()},
        kept_stale=keep_stale,
        notes=notes,
        split_ratings=split_ratings,
    )


def _shown(ids: Sequence[str], limit: int = 5) -> str:
    more = f" and {len(ids) - limit} more" if len(ids) > limit else ""
    return ", ".join(repr(i) for i in ids[:limit]) + more


def _when(event: LabelEvent) -> datetime:
    return datetime.fromisoformat(event.labelled_at)


def _resolve_item(
    item_id: str, criterion: str | None, pairs: Sequence[tuple[int, LabelEvent]]
) -> LabelledItem | None:
    """One item's gold label from its current events; None when nothing decides it."""
    raters = [(line, e) for line, e in pairs if e.kind == "label"]
    settled = [(line, e) for line, e in pairs if e.kind == "adjudication"]
    decided: list[tuple[str, Label]] = [
        (e.rater, "pass" if e.label == "pass" else "fail") for _, e in raters if e.label != "unsure"
    ]
    scores = tuple((e.rater, e.score) for _, e in raters if e.score is not None)
    gold: Label
    final = max(settled, key=lambda pair: (_when(pair[1]), pair[0]), default=None)
    if final is not None and all(_when(final[1]) >= _when(e) for _, e in raters):
        # the latest adjudication settles the item, unless a rater relabelled it afterwards
        line = final[0]
        if final[1].label == "unsure":
            return None
        gold = final[1].label
    else:
        settled = []
        passes = sum(1 for _, value in decided if value == "pass")
        fails = len(decided) - passes
        if passes == fails:
            return None
        gold = "pass" if passes > fails else "fail"
        line = max(line for line, _ in raters)
    last = max(pairs, key=lambda pair: pair[0])[1]
    design = next(
        (
            (e.stratum, e.stratum_size)
            for _, e in sorted(raters, key=lambda pair: pair[0], reverse=True)
            if e.stratum is not None and e.stratum_size is not None
        ),
        None,
    )
    note = next((e.note for _, e in reversed(settled) if e.note), None) or next(
        (e.note for _, e in raters if e.note and e.label == gold), None
    )
    return LabelledItem(
        item_id=item_id,
        criterion=criterion,
        label=gold,
        line=line,
        split=last.split,
        group=last.group,
        rationale=note,
        annotator_labels=tuple(decided),
        annotator_scores=scores,
        random_order=any(e.order == "random" for _, e in raters),
        adjudicated=bool(settled),
        gates_order=any(e.order == "gates" for _, e in raters),
        stratum=design[0] if design else None,
        stratum_size=design[1] if design else None,
        slice=dict(last.slice),
    )


def load_label_files(
    paths: Sequence[str | Path],
    *,
    threshold: float | None = None,
    current_hashes: Mapping[str, str] | None = None,
    keep_stale: bool = False,
    warn: Callable[[str], None] | None = None,
) -> LabelSet:
    """Load several labels files (schema 1 and label logs alike) into one :class:`LabelSet`.

    One file: :func:`load_labels`. Several: their criteria and items are merged; an item labelled
    for the same criterion in two files is a :class:`LabelsError` (keep it in one of them).
    """
    if not paths:
        raise LabelsError("no labels file given", field="--labels", hint="pass --labels FILE")
    sets = [
        load_labels(
            path,
            threshold=threshold,
            current_hashes=current_hashes,
            keep_stale=keep_stale,
            warn=warn,
        )
        for path in paths
    ]
    if len(sets) == 1:
        return sets[0]
    by_criterion: dict[str | None, dict[str, LabelledItem]] = {}
    origin: dict[tuple[str | None, str], str | None] = {}
    stale: dict[str | None, tuple[str, ...]] = {}
    notes: dict[str | None, tuple[str, ...]] = {}
    split_ratings: dict[str | None, dict[str, tuple[Split | None, Ratings]]] = {}
    for one in sets:
        for criterion, found in one.split_ratings.items():
            split_ratings.setdefault(criterion, {}).update(found)
        for criterion, items in one.by_criterion.items():
            bucket = by_criterion.setdefault(criterion, {})
            for item_id, item in items.items():
                if item_id in bucket:
                    crit = f" for criterion {criterion!r}" if criterion is not None else ""
                    raise LabelsError(
                        f"item {item_id!r} is labelled{crit} in both {origin[(criterion, item_id)]} "
                        f"and {one.file}",
                        file=one.file,
                        line=item.line,
                        field="item_id",
                        hint="keep each item's labels for a criterion in one file",
                    )
                bucket[item_id] = item
                origin[(criterion, item_id)] = one.file
        for criterion, ids in one.stale.items():
            stale[criterion] = stale.get(criterion, ()) + ids
        for criterion, said in one.notes.items():
            notes[criterion] = notes.get(criterion, ()) + said
    return LabelSet(
        file=", ".join(str(s.file) for s in sets),
        by_criterion=by_criterion,
        stale=stale,
        kept_stale=keep_stale,
        notes=notes,
        split_ratings=split_ratings,
    )


def slice_keys(own: Mapping[str, str], metadata: Mapping[str, JsonValue]) -> dict[str, str]:
    """An item's slice keys: ``metadata.slice`` (scalar values, as text), then its own ``slice``
    over them."""
    found: dict[str, str] = {}
    meta = metadata.get("slice")
    if isinstance(meta, dict):
        found.update({str(k): str(v) for k, v in meta.items() if isinstance(v, str | int | float)})
    found.update(own)
    return found


class _SlicedLine(BaseModel):
    """The part of an items line that tells its slice keys."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    item_id: ItemId = Field(description="The item's id.")
    slice: dict[str, str] = Field(default_factory=dict, description="Slice keys.")
    metadata: dict[str, JsonValue] = Field(default_factory=dict, description="Anything else.")


def item_slices(path: str | Path) -> dict[str, dict[str, str]]:
    """Item id -> slice keys (:func:`slice_keys`) for every line of an items file (items without
    any are left out); a line that does not parse is a :class:`LabelsError` naming it."""
    out: dict[str, dict[str, str]] = {}
    for _, record in numbered_records(path, _SlicedLine, what="item"):
        found = slice_keys(record.slice, record.metadata)
        if found:
            out[record.item_id] = found
    return out


class _HashedLine(BaseModel):
    """The part of an items or verdicts line that tells an item's current content."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    item_id: ItemId = Field(description="The item's id.")
    inputs: dict[str, JsonValue] | None = Field(default=None, description="Its inputs (items).")
    input_hash: str | None = Field(default=None, description="Its inputs' hash (a judge sample).")
    sample_verdicts: list[dict[str, JsonValue]] = Field(
        default_factory=list, description="A judge verdict's samples (each with its input_hash)."
    )


def item_hashes(path: str | Path) -> dict[str, str]:
    """Item id -> content hash (:func:`~pathjudge.calibration.label_store.item_content_hash` of
    its ``inputs``) for every line of an items file; a line without ``inputs`` is a
    :class:`LabelsError` naming it."""
    from pathjudge.calibration.label_store import item_content_hash

    out: dict[str, str] = {}
    for line, record in numbered_records(path, _HashedLine, what="item"):
        if record.inputs is None:
            raise LabelsError(
                f"item {record.item_id!r} has no 'inputs'",
                file=str(path),
                line=line,
                field="inputs",
                hint="give --items the items file that was labelled and judged",
            )
        out[record.item_id] = item_content_hash(record.inputs)
    return out


def verdict_input_hashes(path: str | Path) -> dict[str, str]:
    """Item id -> the ``input_hash`` the judge recorded (pathjudge judge results); items whose
    lines carry none are absent (their labels cannot be checked for staleness this way)."""
    out: dict[str, str] = {}
    for _, record in numbered_records(path, _HashedLine, what="verdict"):
        found = record.input_hash
        for sample in record.sample_verdicts:
            value = sample.get("input_hash")
            if found is None and isinstance(value, str):
                found = value
        if found is not None:
            out[record.item_id] = found
    return out
