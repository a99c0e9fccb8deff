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
    stats = pairwise_agreement(ITEMS)
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
