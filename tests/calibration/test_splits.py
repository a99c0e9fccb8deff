"""Deterministic split assignment by group, and split hashes."""

from __future__ import annotations

from collections import Counter

import pytest

from pathjudge.calibration.labels import LabelledItem, LabelSet
from pathjudge.calibration.splits import assign_splits, split_hash
from pathjudge.errors import LabelsError


def _set(items: list[LabelledItem]) -> LabelSet:
    return LabelSet(file="labels.jsonl", by_criterion={None: {i.item_id: i for i in items}})


def _item(n: int, *, group: str | None = None, split: str | None = None) -> LabelledItem:
    return LabelledItem(
        item_id=f"i{n}",
        criterion=None,
        label="pass" if n % 2 else "fail",
        line=n + 1,
        group=group,
        split=split,  # type: ignore[arg-type]
    )


def _splits(labels: LabelSet) -> dict[str, str | None]:
    return {item.item_id: item.split for item in labels}


def test_every_item_gets_a_split_near_the_fractions() -> None:
    assigned = assign_splits(_set([_item(n) for n in range(3000)]))
    counts = Counter(item.split for item in assigned)
    # 3000 draws at 0.6/0.2/0.2: the standard deviation of the train count is sqrt(3000*.6*.4) = 27
    assert abs(counts["train"] - 1800) < 150
    assert abs(counts["dev"] - 600) < 120
    assert abs(counts["test"] - 600) < 120


def test_adding_items_never_moves_an_assigned_item() -> None:
    before = _splits(assign_splits(_set([_item(n) for n in range(200)])))
    after = _splits(assign_splits(_set([_item(n) for n in range(400)])))
    assert all(after[item_id] == split for item_id, split in before.items())


def test_a_group_is_never_in_two_splits_and_an_explicit_split_wins_for_its_group() -> None:
    items = [_item(n, group=f"task{n % 25}") for n in range(200)]
    items[0] = _item(0, group="task0", split="dev")
    assigned = list(assign_splits(_set(items)))
    by_group: dict[str | None, set[str | None]] = {}
    for item in assigned:
        by_group.setdefault(item.group, set()).add(item.split)
    assert all(len(splits) == 1 for splits in by_group.values())
    assert by_group["task0"] == {"dev"}


def test_a_group_with_two_explicit_splits_is_an_error_naming_the_line() -> None:
    items = [_item(1, group="g", split="train"), _item(2, group="g", split="test")]
    with pytest.raises(LabelsError) as caught:
        assign_splits(_set(items))
    error = caught.value
    assert (error.file, error.line, error.field) == ("labels.jsonl", 3, "split")
    assert "group 'g' is in two splits" in error.message


def test_the_seed_changes_the_assignment_and_bad_fractions_are_refused() -> None:
    labels = _set([_item(n) for n in range(100)])
    assert _splits(assign_splits(labels, seed=1)) != _splits(assign_splits(labels, seed=0))
    with pytest.raises(LabelsError, match="add up to 1"):
        assign_splits(labels, fractions=(0.5, 0.2, 0.2))


def test_an_empty_label_set_stays_empty() -> None:
    assert len(assign_splits(LabelSet(file=None))) == 0


def test_split_hash_changes_when_a_test_item_is_relabelled_or_added() -> None:
    items = [_item(n, split="test") for n in range(4)]
    base = split_hash(_set(items), None, "test")
    assert split_hash(_set(list(reversed(items))), None, "test") == base  # order does not matter
    relabelled = [
        *items[:3],
        LabelledItem(item_id="i3", criterion=None, label="fail", line=4, split="test"),
    ]
    assert split_hash(_set(relabelled), None, "test") != base
    assert split_hash(_set([*items, _item(9, split="test")]), None, "test") != base
    assert split_hash(_set([*items, _item(9, split="train")]), None, "test") == base
