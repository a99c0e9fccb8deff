"""Train / dev / test splits that stay honest: assigned by group, stable, and hashed.

:func:`assign_splits` gives every labelled item without an explicit ``split`` one, decided by a hash
of its ``group`` (the item id when it has none) and a seed, so

- no group is ever in two splits (runs of one task never leak from train into test);
- the assignment is stable: adding items never moves an item that was already assigned, because
  each group's split depends on its own name only;
- an explicit ``split`` wins, for its whole group; a group whose items carry different explicit
  splits is a :class:`~pathjudge.errors.LabelsError` naming the file and line.

:func:`split_hash` is the content hash of one split of one criterion (its items' ids, labels and
groups), what the test-split ledger (:mod:`pathjudge.calibration.ledger`) and a judge
certificate (:mod:`pathjudge.calibration.certificate`) record.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import replace

from pathjudge.calibration.labels import LabelledItem, LabelSet, Split
from pathjudge.errors import LabelsError

__all__ = [
    "DEFAULT_FRACTIONS",
    "SPLITS",
    "assign_splits",
    "check_group_splits",
    "labels_hash",
    "split_hash",
]

SPLITS: tuple[Split, Split, Split] = ("train", "dev", "test")
DEFAULT_FRACTIONS: tuple[float, float, float] = (0.6, 0.2, 0.2)


def _group_of(item: LabelledItem) -> str:
    return item.group if item.group is not None else f"item:{item.item_id}"


def _hashed_split(group: str, fractions: tuple[float, float, float], seed: int) -> Split:
    """The split of ``group``: a uniform number in [0, 1) from sha256(seed, group), cut by the fractions."""
    digest = hashlib.sha256(f"{seed}\x00{group}".encode("utf-8", "surrogatepass")).digest()
    point = int.from_bytes(digest[:8], "big") / 2**64
    edge = 0.0
    for split, fraction in zip(SPLITS, fractions, strict=True):
        edge += fraction
        if point < edge:
            return split
    return SPLITS[-1]


def check_group_splits(items: Sequence[LabelledItem], *, file: str | None) -> dict[str, Split]:
    """The explicit split of each group that has one; a group in two splits is a :class:`LabelsError`."""
    explicit: dict[str, LabelledItem] = {}
    for item in items:
        if item.split is None:
            continue
        group = _group_of(item)
        first = explicit.setdefault(group, item)
        if first.split != item.split:
            raise LabelsError(
                f"group {item.group!r} is in two splits: item {first.item_id!r} (line {first.line}) "
                f"is {first.split!r}, item {item.item_id!r} is {item.split!r}",
                file=file,
                line=item.line,
                field="split",
                hint="give every item of a group the same split (or none, to have it assigned)",
            )
    return {group: item.split for group, item in explicit.items() if item.split is not None}


def _check_fractions(fractions: tuple[float, float, float]) -> None:
    if len(fractions) != 3 or any(f < 0 for f in fractions) or abs(sum(fractions) - 1) > 1e-9:
        raise LabelsError(
            f"split fractions {fractions!r} must be three numbers >= 0 that add up to 1",
            field="fractions",
            hint="e.g. 0.6,0.2,0.2 for train, dev and test",
        )


def assign_splits(
    labels: LabelSet,
    *,
    fractions: tuple[float, float, float] = DEFAULT_FRACTIONS,
    seed: int = 0,
) -> LabelSet:
    """``labels`` with every item's split set (see the module docstring); explicit splits are kept.

    An empty label set stays empty. Each criterion is assigned on its own, with the same hash, so an
    item id or group labelled for two criteria lands in the same split for both.
    """
    _check_fractions(fractions)
    by_criterion = {}
    for criterion, items in labels.by_criterion.items():
        explicit = check_group_splits(list(items.values()), file=labels.file)
        by_criterion[criterion] = {
            item_id: item
            if item.split is not None
            else replace(
                item,
                split=explicit.get(_group_of(item))
                or _hashed_split(_group_of(item), fractions, seed),
            )
            for item_id, item in items.items()
        }
    return replace(labels, by_criterion=by_criterion)


def _digest(rows: Sequence[tuple[str, str, str | None]]) -> str:
    canonical = json.dumps(sorted(rows), separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def split_hash(labels: LabelSet, criterion: str | None, split: Split | None) -> str:
    """The content hash of ``criterion``'s labelled items in ``split`` (None: every item): their
    ids, gold labels and groups, in any order. Relabelling, adding or moving an item changes it."""
    rows = [
        (item.item_id, item.label, item.group)
        for item in labels.items(criterion)
        if split is None or item.split == split
    ]
    return _digest(rows)


def labels_hash(labels: LabelSet, criterion: str | None) -> str:
    """The content hash of every labelled item of ``criterion`` with its split."""
    rows = [
        (item.item_id, f"{item.label}/{item.split or '-'}", item.group)
        for item in labels.items(criterion)
    ]
    return _digest(rows)
