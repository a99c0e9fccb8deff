"""Per-slice gates: the trust decision, next steps and PPI++ rate of each slice of the items.

Items and labels may carry slice keys (``"slice": {"category": "refunds", "language": "de"}``).
``calibrate(slice_by=("category",))`` groups the evaluated items by the value of each key and runs
the same gates as for the whole criterion on each group (see
:func:`pathjudge.calibration.calibrate.calibrate`): a judge can be trusted overall and still fail
on one kind of item, and the overall figure hides it.

Where a value comes from: the label's ``slice`` (a label log: the latest event's), else the items
file's ``slice`` (or ``metadata.slice``) for that item id, else the item has none and falls in the
slice ``(none)``. Judge-only items (the PPI++ pool) take their values from the items file only.

A slice is **too small to decide** when it has fewer than ``min_labels`` labelled items or lacks
one of the classes (TPR or TNR undefined): its gates are still computed and shown with the labels
it still needs, but it is neither trusted nor failed. Otherwise it is trusted when every gate
passes on its confidence bound, as for the whole criterion.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import Field

from pathjudge._records import FrozenModel as Record
from pathjudge.calibration.agreement import AgreementStats, TrustDecision
from pathjudge.calibration.ppi import PPIResult

__all__ = [
    "NO_VALUE",
    "SliceCalibration",
    "SliceStatus",
    "group_by_slice",
    "slice_status",
    "slice_value",
]

NO_VALUE = "(none)"
"""The slice value of an item that has no value for the key."""

SliceStatus = Literal["trusted", "not trusted", "too small"]


class SliceCalibration(Record):
    """The gates of one slice (items sharing one value of one slice key)."""

    key: str = Field(description="The slice key, e.g. 'category'.")
    value: str = Field(description="Its value for these items; '(none)' where items have none.")
    n_labelled: int = Field(description="Labelled items of the slice that have a verdict.")
    n_judge_only: int = Field(description="Judge-only items of the slice (PPI++).")
    status: SliceStatus = Field(
        description="trusted, not trusted, or too small to decide (see why)."
    )
    why: str = Field(description="The failing gates, or why the slice is too small to decide.")
    labels_needed: int | None = Field(
        description="More labelled items the slice needs for every failing gate at the observed "
        "rates (0: none fails; None: a gate is undefined or cannot pass by labelling)."
    )
    agreement: AgreementStats
    trust: TrustDecision
    next_steps: tuple[str, ...] = Field(description="What each failing gate needs, in words.")
    ppi: PPIResult | None = Field(description="The slice's PPI++ corrected success rate.")
    notes: tuple[str, ...] = Field(default=(), description="What the gates did, in words.")

    @property
    def name(self) -> str:
        return f"{self.key}={self.value}"

    def describe(self) -> str:
        """One line: the slice, its size, its status and what it still needs."""
        shown = "too small to decide" if self.status == "too small" else self.status
        head = f"{self.name}: {self.n_labelled} labelled, {shown.upper()}"
        if self.status == "trusted":
            return head
        need = f"; about {self.labels_needed} more labels" if self.labels_needed else ""
        return f"{head} ({self.why}){need}"


def slice_value(
    own: Mapping[str, str], item_id: str, key: str, items: Mapping[str, Mapping[str, str]]
) -> str:
    """The item's value for ``key``: its label's ``own`` slice, else the items file's, else
    :data:`NO_VALUE`."""
    if key in own:
        return own[key]
    return items.get(item_id, {}).get(key, NO_VALUE)


def group_by_slice(
    ids: Sequence[str],
    own: Sequence[Mapping[str, str]],
    key: str,
    items: Mapping[str, Mapping[str, str]],
) -> dict[str, list[int]]:
    """The positions in ``ids`` of each value of ``key``, values sorted (``(none)`` last)."""
    groups: dict[str, list[int]] = {}
    for index, (item_id, slice_) in enumerate(zip(ids, own, strict=True)):
        groups.setdefault(slice_value(slice_, item_id, key, items), []).append(index)
    return dict(sorted(groups.items(), key=lambda entry: (entry[0] == NO_VALUE, entry[0])))


def slice_status(
    stats: AgreementStats, trust: TrustDecision, *, min_labels: int
) -> tuple[SliceStatus, str]:
    """The slice's status and why (module docstring)."""
    n = stats.n_items
    if n < min_labels:
        return "too small", f"{n} labelled item(s), under {min_labels}"
    undefined = [
        name
        for name, est in (("TPR", stats.tpr_unsure_as_wrong), ("TNR", stats.tnr_unsure_as_wrong))
        if est.value is None
    ]
    if undefined:
        return (
            "too small",
            f"{' and '.join(undefined)} undefined (labels of one class only)",
        )
    if trust.trusted:
        return "trusted", trust.reason
    return "not trusted", trust.reason
