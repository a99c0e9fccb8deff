"""Position bias of pairwise judges: each pair judged in both orders, compared with humans.

A pairwise judge sees two candidates A and B and names the better one. Shown as (A, B) it may prefer
the first slot; shown as (B, A) the same judge should still name the same candidate. Each item is
judged in both orders; :func:`unswap` turns the judge's positional answer (first/second) back into
A/B. :func:`pairwise_agreement` then reports, over the items decided in BOTH orders:

* accuracy in each order, the accuracy of the two averaged (each item scores 0, 0.5 or 1), and the
  share of items correct in both orders;
* positional consistency: the same winner in both orders;
* first-slot rate: among non-tie answers, how often the candidate shown first won (0.5 = no bias);
* Cohen's kappa vs humans in each order, and between the two orders.

Items where either order is unsure are counted in ``n_unsure`` and left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, assert_never

from pydantic import BaseModel, ConfigDict, Field

from pathjudge._ids import ItemId
from pathjudge.calibration.agreement import cohen_kappa
from pathjudge.calibration.estimate import Estimate, proportion, undefined, z_value

__all__ = [
    "JudgeWinner",
    "Order",
    "PairwiseItem",
    "PairwiseStats",
    "Position",
    "Winner",
    "pairwise_agreement",
    "unswap",
]

Winner = Literal["A", "B", "tie"]
JudgeWinner = Literal["A", "B", "tie", "unsure"]
Position = Literal["first", "second", "tie", "unsure"]
Order = Literal["ab", "ba"]

WINNERS: tuple[Winner, Winner, Winner] = ("A", "B", "tie")


def unswap(position: Position, order: Order) -> JudgeWinner:
    """The candidate a positional answer names: in order ``ab`` first is A; in ``ba`` first is B."""
    if position == "tie" or position == "unsure":
        return position
    if order == "ab":
        return "A" if position == "first" else "B"
    if order == "ba":
        return "B" if position == "first" else "A"
    assert_never(order)


class PairwiseItem(BaseModel):
    """One pair: the human preference and the judge's winner (as A/B) in each presentation order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: ItemId
    human: Winner = Field(description="The human-preferred candidate, or tie.")
    ab: JudgeWinner = Field(description="Judge's winner when A was shown first.")
    ba: JudgeWinner = Field(description="Judge's winner when B was shown first.")


class PairwiseStats(BaseModel):
    """Order-swap consistency and accuracy of a pairwise judge. See the module docstring."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    n_items: int
    n_decided: int = Field(description="Items decided (not unsure) in both orders.")
    n_unsure: int
    accuracy_ab: Estimate
    accuracy_ba: Estimate
    accuracy_averaged: Estimate
    both_correct: Estimate
    consistency: Estimate
    first_slot_rate: Estimate
    kappa_ab: Estimate
    kappa_ba: Estimate
    kappa_between_orders: Estimate


def _kappa(a: list[Winner], b: list[Winner], what: str) -> Estimate:
    value = cohen_kappa(a, b, WINNERS)
    if value is None:
        return undefined(f"undefined: {what} used one single answer on every item (or no items)")
    return Estimate(value=value, method="point", reason=f"Cohen's kappa, {what}, {len(a)} items")


def pairwise_agreement(items: Sequence[PairwiseItem], *, confidence: float = 0.95) -> PairwiseStats:
    """Accuracy, consistency and kappa of a pairwise judge in both orders (module docstring).

    Empty input, or no item decided in both orders, gives undefined statistics.
    """
    decided = [i for i in items if i.ab != "unsure" and i.ba != "unsure"]
    n = len(decided)
    human: list[Winner] = [i.human for i in decided]
    ab: list[Winner] = [i.ab for i in decided if i.ab != "unsure"]
    ba: list[Winner] = [i.ba for i in decided if i.ba != "unsure"]
    correct_ab = sum(1 for h, j in zip(human, ab, strict=True) if h == j)
    correct_ba = sum(1 for h, j in zip(human, ba, strict=True) if h == j)
    both = sum(1 for h, x, y in zip(human, ab, ba, strict=True) if h == x == y)
    same = sum(1 for x, y in zip(ab, ba, strict=True) if x == y)
    # The first slot held A in order ab and B in order ba.
    first_wins = sum(1 for x in ab if x == "A") + sum(1 for y in ba if y == "B")
    non_tie = sum(1 for x in ab if x != "tie") + sum(1 for y in ba if y != "tie")
    empty = "undefined: no item was decided in both orders"

    averaged: Estimate
    if n == 0:
        averaged = undefined(empty)
    else:
        scores = [((h == x) + (h == y)) / 2 for h, x, y in zip(human, ab, ba, strict=True)]
        mean = sum(scores) / n
        var = sum((s - mean) ** 2 for s in scores) / n
        half = z_value(confidence) * (var / n) ** 0.5
        averaged = Estimate(
            value=mean,
            lower=max(0.0, mean - half),
            upper=min(1.0, mean + half),
            total=n,
            method="normal",
            reason=(
                f"({correct_ab} + {correct_ba}) / (2 x {n}) = {mean:.3f}; "
                f"{confidence:.0%} CLT interval over per-item scores 0/0.5/1"
            ),
        )
    return PairwiseStats(
        n_items=len(items),
        n_decided=n,
        n_unsure=len(items) - n,
        accuracy_ab=proportion(
            correct_ab, n, what="correct with A shown first", empty=empty, confidence=confidence
        ),
        accuracy_ba=proportion(
            correct_ba, n, what="correct with B shown first", empty=empty, confidence=confidence
        ),
        accuracy_averaged=averaged,
        both_correct=proportion(
            both, n, what="correct in both orders", empty=empty, confidence=confidence
        ),
        consistency=proportion(
            same, n, what="same winner in both orders", empty=empty, confidence=confidence
        ),
        first_slot_rate=proportion(
            first_wins,
            non_tie,
            what="of non-tie answers picked the candidate shown first (0.5 = no position bias)",
            empty="undefined: every answer was a tie (or no items)",
            confidence=confidence,
        ),
        kappa_ab=_kappa(human, ab, "humans vs judge with A first"),
        kappa_ba=_kappa(human, ba, "humans vs judge with B first"),
        kappa_between_orders=_kappa(ab, ba, "judge with A first vs with B first"),
    )
