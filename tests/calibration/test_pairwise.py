"""Pairwise judges in both orders: accuracy, consistency, position bias and kappa, by hand."""

from __future__ import annotations

import pytest
from sklearn.metrics import cohen_kappa_score

from pathjudge.calibration.pairwise import PairwiseItem, pairwise_agreement, unswap


def test_unswap() -> None:
    assert unswap("first", "ab") == "A"
    assert unswap("second", "ab") == "B"
    assert unswap("first", "ba") == "B"
    assert unswap("second", "ba") == "A"
    assert unswap("tie", "ba") == "tie"
    assert unswap("unsure", "ab") == "unsure"


ITEMS = [
    PairwiseItem(item_id="1", human="A", ab="A", ba="A"),  # both right, consistent
    PairwiseItem(item_id="2", human="A", ab="A", ba="B"),  # position bias: first slot won twice
    PairwiseItem(item_id="3", human="B", ab="A", ba="B"),  # first slot won twice, right only in ba
    PairwiseItem(item_id="4", human="B", ab="B", ba="B"),  # both right
    PairwiseItem(item_id="5", human="tie", ab="tie", ba="A"),
    PairwiseItem(item_id="6", human="A", ab="unsure", ba="A"),  # left out
]


def test_hand_computed() -> None:
    stats = pairwise_agreement(ITEMS, unsure_as="drop")
    assert (stats.n_items, stats.n_decided, stats.n_unsure) == (6, 5, 1)
    # ab right on 1, 2, 4, 5 -> 4/5; ba right on 1, 3, 4 -> 3/5
    assert stats.accuracy_ab.value == pytest.approx(4 / 5)
    assert stats.accuracy_ba.value == pytest.approx(3 / 5)
    # per-item scores 1, 0.5, 0.5, 1, 0.5 -> 3.5/5 = 0.7 = (4 + 3)/(2 x 5)
    assert stats.accuracy_averaged.value == pytest.approx(0.7)
    assert stats.both_correct.value == pytest.approx(2 / 5)  # items 1 and 4
    assert stats.consistency.value == pytest.approx(2 / 5)  # same winner: items 1 and 4
    # first slot: ab answers A on 1,2,3 (3 of 4 non-tie); ba answers B on 2,3,4 (3 of 5) -> 6/9
    assert stats.first_slot_rate.value == pytest.approx(6 / 9)
    human = ["A", "A", "B", "B", "tie"]
    ab = ["A", "A", "A", "B", "tie"]
    ba = ["A", "B", "B", "B", "A"]
    assert stats.kappa_ab.value == pytest.approx(cohen_kappa_score(human, ab))
    assert stats.kappa_ba.value == pytest.approx(cohen_kappa_score(human, ba))
    assert stats.kappa_between_orders.value == pytest.approx(cohen_kappa_score(ab, ba))
    # kappa ab by hand: po = 4/5; human A 2, B 2, tie 1; ab A 3, B 1, tie 1;
    # pe = (2*3 + 2*1 + 1*1)/25 = 9/25; kappa = (20/25 - 9/25)/(16/25) = 11/16
    assert stats.kappa_ab.value == pytest.approx(11 / 16)


def test_empty_and_degenerate() -> None:
    empty = pairwise_agreement([])
    assert empty.accuracy_ab.value is None
    assert empty.accuracy_averaged.value is None
    assert empty.kappa_between_orders.value is None
    same = pairwise_agreement([PairwiseItem(item_id="1", human="A", ab="A", ba="A")])
    assert same.accuracy_ab.value == 1.0
    assert same.kappa_ab.value is None  # one class on both sides: undefined, not 0
    assert "one single answer" in same.kappa_ab.reason


# --------------------------------------------------------------------------------------------------
# Issue 14: unsure policy, position-consistent accuracy, bias categories, kappa intervals


def test_unsure_as_wrong_by_hand() -> None:
    stats = pairwise_agreement(ITEMS, unsure_as="wrong", n_bootstrap=200)
    assert (stats.n_items, stats.n_decided, stats.n_unsure) == (6, 6, 1)
    # item 6: ab unsure (wrong), ba A (right). ab right on 1, 2, 4, 5 -> 4/6; ba right on 1, 3, 4, 6
    assert stats.accuracy_ab.value == pytest.approx(4 / 6)
    assert stats.accuracy_ba.value == pytest.approx(4 / 6)
    assert stats.accuracy_averaged.value == pytest.approx(8 / 12)
    assert stats.both_correct.value == pytest.approx(2 / 6)
    # position-consistent: 1 (2), 2 (1-1=0), 3 (-1+1=0), 4 (2), 5 (tie label: 1 -> right), 6 (0+1)
    assert stats.position_consistent_accuracy.value == pytest.approx(4 / 6)
    assert stats.consistency.value == pytest.approx(2 / 6)
    # bias: consistent 1, 4; first slot 2, 3 (A then B); second none; other 5 (tie/A), 6 (unsure)
    assert stats.bias_first_slot.value == pytest.approx(2 / 6)
    assert stats.bias_second_slot.value == 0.0
    assert stats.bias_other.value == pytest.approx(2 / 6)
    total = (
        stats.bias_consistent.value
        + stats.bias_first_slot.value
        + stats.bias_second_slot.value
        + stats.bias_other.value
    )
    assert total == pytest.approx(1.0)
    human = ["A", "A", "B", "B", "tie", "A"]
    ab = ["A", "A", "A", "B", "tie", "unsure"]
    ba = ["A", "B", "B", "B", "A", "A"]
    labels = ["A", "B", "tie", "unsure"]
    k_ab = cohen_kappa_score(human, ab, labels=labels)
    k_ba = cohen_kappa_score(human, ba, labels=labels)
    assert stats.kappa_ab.value == pytest.approx(k_ab, abs=1e-12)
    assert stats.kappa_ba.value == pytest.approx(k_ba, abs=1e-12)
    assert stats.kappa_mean.value == pytest.approx((k_ab + k_ba) / 2, abs=1e-12)
    assert stats.kappa_ab.lower is not None
    assert stats.kappa_ab.upper is not None
    assert stats.kappa_mean.lower is not None
    # first slot among named winners: ab A on 1,2,3 of 4 named; ba B on 2,3,4 of 6 named -> 6/10
    assert stats.first_slot_rate.value == pytest.approx(6 / 10)
    # ... and the unsure-as-tie reading
    tie = pairwise_agreement(ITEMS, unsure_as="tie", n_bootstrap=0)
    assert tie.accuracy_ab.value == pytest.approx(4 / 6)
    assert tie.kappa_ab.value == pytest.approx(
        cohen_kappa_score(human, [*ab[:5], "tie"], labels=["A", "B", "tie"]), abs=1e-12
    )


def _judgebench_reference(
    labels: list[str], first: list[str | None], second: list[str | None]
) -> float:
    """The published rule, written independently: +1 per order that picks the label, -1 per order
    that picks the other candidate; correct when the sum is positive; a None answer counts 0."""
    other = {"A": "B", "B": "A"}
    right = 0
    for label, x, y in zip(labels, first, second, strict=True):
        score = 0
        for answer in (x, y):
            if answer == label:
                score += 1
            elif answer == other.get(label):
                score -= 1
        right += score > 0
    return right / len(labels)


def test_reproduces_a_published_pairwise_convention_exactly() -> None:
    import random

    rng = random.Random(7)
    labels, xs, ys, items = [], [], [], []
    for i in range(500):
        h = rng.choice(["A", "B"])
        x = rng.choice(["A", "B", "tie", None])
        y = rng.choice(["A", "B", "B", "tie", None])
        labels.append(h)
        xs.append(x)
        ys.append(y)
        items.append(
            PairwiseItem(item_id=str(i), human=h, ab=x or "unsure", ba=y or "unsure")  # type: ignore[arg-type]
        )
    stats = pairwise_agreement(items, unsure_as="wrong", n_bootstrap=0)
    assert stats.position_consistent_accuracy.value == pytest.approx(
        _judgebench_reference(labels, xs, ys), abs=1e-12
    )
    assert stats.accuracy_ab.value == pytest.approx(
        sum(x == h for h, x in zip(labels, xs, strict=True)) / 500, abs=1e-12
    )
    assert stats.kappa_ab.value == pytest.approx(
        cohen_kappa_score(labels, [x or "unsure" for x in xs]), abs=1e-12
    )


def test_kappa_bootstrap_matches_a_slow_reference() -> None:
    import numpy as np

    items = [
        PairwiseItem(item_id=str(i), human=h, ab=x, ba=y)  # type: ignore[arg-type]
        for i, (h, x, y) in enumerate(
            [
                ("A", "A", "A"),
                ("B", "A", "B"),
                ("A", "B", "A"),
                ("tie", "tie", "A"),
                ("B", "B", "B"),
            ]
            * 4
        )
    ]
    stats = pairwise_agreement(items, n_bootstrap=150, seed=3)
    h = [i.human for i in items]
    ab = [i.ab for i in items]
    idx = np.random.default_rng(3).integers(0, len(items), size=(150, len(items)))
    labels = ["A", "B", "tie", "unsure"]
    ref = []
    for row in idx:
        hs, xs = [h[j] for j in row], [ab[j] for j in row]
        pe = sum((hs.count(c) / len(row)) * (xs.count(c) / len(row)) for c in labels)
        if abs(pe - 1) > 1e-12:
            ref.append(cohen_kappa_score(hs, xs, labels=labels))
    lo, hi = np.quantile(ref, [0.025, 0.975])
    assert stats.kappa_ab.lower == pytest.approx(lo, abs=1e-9)
    assert stats.kappa_ab.upper == pytest.approx(hi, abs=1e-9)
