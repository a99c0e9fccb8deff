"""What needs settling: every disagreement between raters, and between a rater and the judge.

:func:`disagreements_to_settle` reads the current labels of a label log (schema 2, see
:mod:`pathjudge.calibration.label_store`) and lists each item whose labels disagree, for the
adjudication view of ``pathjudge label``. The settled label is written as an ``adjudication`` event
next to the originals; ``calibrate`` then uses it (:func:`pathjudge.calibration.labels.resolve_events`)
and the item leaves this list, until a rater relabels it after the adjudication.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pathjudge.calibration.label_store import LabelEvent, current_labels

__all__ = ["ToSettle", "disagreement_kind", "disagreements_to_settle"]

Kind = Literal["rater-rater", "rater-judge"]


@dataclass(frozen=True)
class ToSettle:
    """One item to adjudicate: who said what, what the judge said, and why it is listed."""

    item_id: str
    kind: Kind
    """``rater-rater`` when raters differ (it wins when both apply); else ``rater-judge``."""
    labels: tuple[tuple[str, str], ...]
    """``(rater, label)`` of the raters' current labels, in the order they were first given."""
    judge: str | None
    """The judge's majority verdict (``pass``/``fail``/``unsure``), None when not judged."""
    reason: str


def disagreement_kind(labels: Sequence[str], judge: str | None) -> Kind | None:
    """What needs settling about one item's current rater labels: ``rater-rater`` when they differ
    (an ``unsure`` beside a ``pass`` or ``fail`` counts), else ``rater-judge`` when their pass/fail
    differs from the judge's pass/fail, else None (one rater and no judge: nothing to disagree with).
    The one rule of the adjudication list and of the labelling page's adjudication view."""
    if len(set(labels)) > 1:
        return "rater-rater"
    if (
        judge in ("pass", "fail")
        and labels
        and labels[0] in ("pass", "fail")
        and labels[0] != judge
    ):
        return "rater-judge"
    return None


def _when(event: LabelEvent) -> datetime:
    return datetime.fromisoformat(event.labelled_at)


def _judge_said(votes: Any) -> str | None:
    if votes is None:
        return None
    if isinstance(votes, str):
        return votes
    return str(votes.majority)


def disagreements_to_settle(
    events: Iterable[LabelEvent],
    verdicts: Mapping[str, Any] | None = None,
    *,
    criterion: str,
    current_hashes: Mapping[str, str] | None = None,
) -> list[ToSettle]:
    """The items of ``criterion`` to adjudicate, in the order they were first labelled.

    An item is listed when its raters' current labels differ (``rater-rater``; an ``unsure`` beside
    a ``pass`` or ``fail`` counts: the item is undecided) or, with ``verdicts`` (item id ->
    :class:`~pathjudge.calibration.verdicts.ItemVotes` or a ``pass``/``fail``/``unsure`` string),
    a rater's pass/fail differs from the judge's pass/fail (``rater-judge``). An item whose current
    adjudication is at least as recent as every rater label on it is settled and left out. With
    ``current_hashes`` (item id -> content hash), labels given to other content (stale) are
    ignored. One rater and no judge: nothing to disagree with. Empty input: an empty list.
    """
    raters: dict[str, list[LabelEvent]] = {}
    settled: dict[str, LabelEvent] = {}
    for event in current_labels(events).values():
        if event.criterion != criterion:
            continue
        if current_hashes is not None and current_hashes.get(event.item_id, event.item_hash) != (
            event.item_hash
        ):
            continue
        if event.kind == "adjudication":
            previous = settled.get(event.item_id)
            if previous is None or _when(event) >= _when(previous):
                settled[event.item_id] = event
        else:
            raters.setdefault(event.item_id, []).append(event)
    out: list[ToSettle] = []
    for item_id, labels in raters.items():
        final = settled.get(item_id)
        if final is not None and all(_when(final) >= _when(e) for e in labels):
            continue
        judge = _judge_said(verdicts.get(item_id)) if verdicts is not None else None
        pairs = tuple((e.rater, e.label) for e in labels)
        said = ", ".join(f"{rater} says {label}" for rater, label in pairs)
        kind = disagreement_kind([label for _, label in pairs], judge)
        if kind is not None:
            extra = f"; the judge says {judge}" if judge is not None else ""
            out.append(ToSettle(item_id, kind, pairs, judge, said + extra))
    return out
