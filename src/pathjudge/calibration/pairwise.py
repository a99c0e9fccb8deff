"""Pairwise judges in both orders: accuracy, position bias and kappa, with intervals.

A pairwise judge sees two candidates and names the better one (or a tie). Shown as (A, B) it may
favour a slot; shown as (B, A) the same judge should still name the same candidate. Each item is
judged in both orders; :func:`unswap` turns a positional answer (first/second) back into A/B.

Definitions (exact; item ``i`` has the human preference ``h_i`` in {A, B, tie} and the judge's
winners ``x_i`` (order ab: A shown first) and ``y_i`` (order ba: B shown first), each in {A, B, tie}
or ``U`` = unsure/unparsed/error). ``n`` is the number of evaluated items.

How an unsure answer counts, ``unsure_as``:

* ``wrong`` (the default, and the convention of published pairwise evaluations such as JudgeBench):
  ``U`` stays an answer of its own. It never equals the human preference, never agrees with the
  other order, and is a fourth category in the kappas. Every item is evaluated.
* ``tie``: ``U`` is read as ``tie``. Every item is evaluated.
* ``drop``: items with ``U`` in either order are left out of every statistic (``n_unsure`` counts
  them).

Statistics:

* ``accuracy_ab = #{x_i = h_i} / n``, ``accuracy_ba = #{y_i = h_i} / n`` (Wilson intervals), and
  ``accuracy_averaged = (accuracy_ab + accuracy_ba) / 2`` (normal interval over the per-item scores
  0, 0.5, 1, clipped to [0, 1]).
* ``both_correct = #{x_i = h_i and y_i = h_i} / n``.
* ``position_consistent_accuracy`` (JudgeBench, Tan et al. 2024): per item
  ``c_i = [x_i = h_i] + [y_i = h_i] - [x_i = f(h_i)] - [y_i = f(h_i)]`` with ``f(A) = B``,
  ``f(B) = A`` and no penalty term when ``h_i = tie``; the item is correct when ``c_i > 0``. So one
  right answer and one tie or ``U`` is correct, one right and one wrong winner is not.
* ``consistency`` (positional agreement) ``= #{x_i = y_i, x_i != U} / n``: the same winner (or tie)
  in both orders.
* position-bias categories (after Zheng et al. 2023, "Judging LLM-as-a-judge"), shares of ``n``
  summing to 1: ``consistent`` (as above), ``first_slot`` (``x_i = A`` and ``y_i = B``: the
  candidate shown first won both times), ``second_slot`` (``x_i = B`` and ``y_i = A``), and
  ``other`` (a tie in one order and a winner in the other, or a ``U`` in either).
* ``first_slot_rate``: among all answers that name a winner (A or B, both orders pooled), the share
  naming the candidate shown first (A in ab, B in ba); 0.5 means no position bias.
  ``bias_direction`` is ``first`` or ``second`` when its Wilson interval lies wholly above or below
  0.5, else ``none``.
* ``kappa_ab``, ``kappa_ba``: Cohen's kappa (scikit-learn's ``cohen_kappa_score``, unweighted) of
  the human preferences against each order's answers over the categories A, B, tie (and U under
  ``wrong``); ``kappa_mean = (kappa_ab + kappa_ba) / 2``; ``kappa_between_orders`` compares ``x``
  with ``y``. A kappa is undefined when chance agreement is 1 (both sides used one answer).
  Intervals: a seeded per-item percentile bootstrap (``numpy.random.default_rng(seed).integers(0,
  n, size=(n_bootstrap, n))``, the same resampled items for every kappa); a resample where a kappa
  is undefined is dropped for that kappa (for ``kappa_mean``: when either order's is).

Trust (:func:`pairwise_trust`): a pairwise judge is trusted when every gate passes on a confidence
bound: the lower bound of ``kappa_mean`` reaches the ``kappa`` gate, no position bias is detected
(``bias_direction`` is ``none``), and the Wilson upper bound of the share of items with an unsure
answer is at most ``max_unsure`` (when that cap is on). ``tpr`` and ``tnr`` have no pairwise meaning.

Every point value is an exact ratio of counts (or scikit-learn's kappa), so a published evaluation
recomputed from its per-item answers with the matching ``unsure_as`` reproduces to floating-point
precision.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, Literal, assert_never

from pydantic import Field, computed_field

from pathjudge._ids import ItemId
from pathjudge._optional import require
from pathjudge._records import FrozenModel as Record
from pathjudge.calibration._bootstrap import (
    percentile_interval,
    percentile_reason,
    resample_indices,
)
from pathjudge.calibration.agreement import (
    GateResult,
    Gates,
    TrustDecision,
    TrustedOnRead,
    cohen_kappa,
    lower_gate,
    trust_of,
    unchecked_gate,
    upper_gate,
)
from pathjudge.calibration.estimate import Estimate, proportion, undefined, z_value

__all__ = [
    "JudgeWinner",
    "Order",
    "PairwiseItem",
    "PairwiseReport",
    "PairwiseStats",
    "Position",
    "UnsureAs",
    "Winner",
    "pairwise_agreement",
    "pairwise_confusion",
    "pairwise_trust",
    "unswap",
]

Winner = Literal["A", "B", "tie"]
JudgeWinner = Literal["A", "B", "tie", "unsure"]
Position = Literal["first", "second", "tie", "unsure"]
Order = Literal["ab", "ba"]
UnsureAs = Literal["wrong", "tie", "drop"]

WINNERS: tuple[Winner, Winner, Winner] = ("A", "B", "tie")
_U = "unsure"


def unswap(position: Position, order: Order) -> JudgeWinner:
    """The candidate a positional answer names: in order ``ab`` first is A; in ``ba`` first is B."""
    if position == "tie" or position == "unsure":
        return position
    if order == "ab":
        return "A" if position == "first" else "B"
    if order == "ba":
        return "B" if position == "first" else "A"
    assert_never(order)


class PairwiseItem(Record):
    """One pair: the human preference and the judge's winner (as A/B) in each presentation order."""

    item_id: ItemId
    human: Winner = Field(description="The human-preferred candidate, or tie.")
    ab: JudgeWinner = Field(description="Judge's winner when A was shown first.")
    ba: JudgeWinner = Field(description="Judge's winner when B was shown first.")


class PairwiseStats(Record):
    """Both-orders accuracy, position bias and kappa of a pairwise judge (module docstring)."""

    unsure_as: UnsureAs
    n_items: int
    n_decided: int = Field(description="Items evaluated (all of them unless unsure_as is drop).")
    n_unsure: int = Field(description="Items with an unsure or unparsed answer in either order.")
    accuracy_ab: Estimate
    accuracy_ba: Estimate
    accuracy_averaged: Estimate
    both_correct: Estimate
    position_consistent_accuracy: Estimate
    consistency: Estimate
    bias_consistent: Estimate
    bias_first_slot: Estimate
    bias_second_slot: Estimate
    bias_other: Estimate
    first_slot_rate: Estimate
    bias_direction: Literal["first", "second", "none"]
    kappa_ab: Estimate
    kappa_ba: Estimate
    kappa_mean: Estimate
    kappa_between_orders: Estimate
    confidence: float
    n_bootstrap: int
    seed: int


def _read(answer: JudgeWinner, unsure_as: UnsureAs) -> str:
    if answer == _U and unsure_as == "tie":
        return "tie"
    return answer


def _kappas(
    pairs: list[tuple[list[str], list[str]]],
    labels: list[str],
    *,
    n_bootstrap: int,
    seed: int,
) -> Any:
    """Bootstrap kappas: an array (n_bootstrap, len(pairs)), NaN where undefined."""
    np = require("numpy", "calibration", "pairwise bootstrap")
    n = len(pairs[0][0])
    k = len(labels)
    index = {label: i for i, label in enumerate(labels)}
    idx = resample_indices(n, n_bootstrap, seed)
    out = np.full((n_bootstrap, len(pairs)), np.nan)
    rows = np.repeat(np.arange(n_bootstrap), n)
    for col, (a, b) in enumerate(pairs):
        ca = np.asarray([index[v] for v in a])[idx]
        cb = np.asarray([index[v] for v in b])[idx]
        counts = np.zeros((n_bootstrap, k, k))
        np.add.at(counts, (rows, ca.ravel(), cb.ravel()), 1.0)
        po = np.trace(counts, axis1=1, axis2=2) / n
        pe = (counts.sum(axis=2) * counts.sum(axis=1)).sum(axis=1) / (n * n)
        with np.errstate(divide="ignore", invalid="ignore"):
            kappa = np.where(np.isclose(pe, 1.0), np.nan, (po - pe) / (1.0 - pe))
        out[:, col] = kappa
    return out


def _kappa_estimate(
    value: float | None,
    samples: Any,
    what: str,
    *,
    n: int,
    confidence: float,
    n_bootstrap: int,
    seed: int,
    formula: str | None = None,
) -> Estimate:
    np = require("numpy", "calibration", "pairwise bootstrap")
    if value is None:
        return undefined(f"undefined: {what} used one single answer on every item (or no items)")
    lower = upper = None
    note = ""
    if samples is not None:
        valid = samples[~np.isnan(samples)]
        dropped = int(samples.size - valid.size)
        if valid.size:
            lower, upper = percentile_interval(valid, confidence)
            note = f"; {percentile_reason(confidence, n_bootstrap, seed)}" + (
                f", {dropped} degenerate resamples dropped" if dropped else ""
            )
    return Estimate(
        value=value,
        lower=lower,
        upper=upper,
        total=n,
        method="bootstrap" if lower is not None else "point",
        reason=(formula or f"Cohen's kappa, {what}, {n} items = {value:.3f}") + note,
    )


_NO_ITEM = "undefined: no item to evaluate"
_FLIP = {"A": "B", "B": "A"}


def pairwise_agreement(
    items: Sequence[PairwiseItem],
    *,
    confidence: float = 0.95,
    unsure_as: UnsureAs = "wrong",
    n_bootstrap: int = 2000,
    seed: int = 0,
) -> PairwiseStats:
    """Accuracy, position bias and kappas of a pairwise judge in both orders (module docstring).

    Empty input, or no item left to evaluate, gives undefined statistics.
    """
    unsure = [i for i in items if i.ab == _U or i.ba == _U]
    kept = [i for i in items if i.ab != _U and i.ba != _U] if unsure_as == "drop" else list(items)
    n = len(kept)
    human: list[str] = [i.human for i in kept]
    ab = [_read(i.ab, unsure_as) for i in kept]
    ba = [_read(i.ba, unsure_as) for i in kept]
    triples = list(zip(human, ab, ba, strict=True))
    right_ab = sum(1 for h, x, _ in triples if x == h)
    right_ba = sum(1 for h, _, y in triples if y == h)
    same = sum(1 for _, x, y in triples if x == y and x != _U)
    first = sum(1 for _, x, y in triples if x == "A" and y == "B")
    second = sum(1 for _, x, y in triples if x == "B" and y == "A")
    fsr = _first_slot_rate(ab, ba, confidence)
    kappa_ab, kappa_ba, kappa_mean, kappa_between = _order_kappas(
        human, ab, ba, unsure_as=unsure_as, n_bootstrap=n_bootstrap, seed=seed, ci=confidence
    )

    def share(k: int, what: str) -> Estimate:
        return proportion(k, n, what=what, empty=_NO_ITEM, confidence=confidence)

    return PairwiseStats(
        unsure_as=unsure_as,
        n_items=len(items),
        n_decided=n,
        n_unsure=len(unsure),
        accuracy_ab=share(right_ab, "correct with A shown first"),
        accuracy_ba=share(right_ba, "correct with B shown first"),
        accuracy_averaged=_averaged_accuracy(triples, right_ab, right_ba, confidence),
        both_correct=share(
            sum(1 for h, x, y in triples if x == h and y == h), "correct in both orders"
        ),
        position_consistent_accuracy=share(
            sum(1 for h, x, y in triples if _position_consistent_right(h, x, y)),
            "correct by the position-consistent rule (right once, never wrong)",
        ),
        consistency=share(same, "same winner (or tie) in both orders"),
        bias_consistent=share(same, "consistent in both orders"),
        bias_first_slot=share(first, "won by the candidate shown first in both orders"),
        bias_second_slot=share(second, "won by the candidate shown second in both orders"),
        bias_other=share(n - same - first - second, "a tie in one order only, or an unsure answer"),
        first_slot_rate=fsr,
        bias_direction=_bias_direction(fsr),
        kappa_ab=kappa_ab,
        kappa_ba=kappa_ba,
        kappa_mean=kappa_mean,
        kappa_between_orders=kappa_between,
        confidence=confidence,
        n_bootstrap=n_bootstrap,
        seed=seed,
    )


def _position_consistent_right(h: str, x: str, y: str) -> bool:
    """Right in at least one order and never wrong in the other (a tie counts as neither)."""
    score = (x == h) + (y == h)
    if h in _FLIP:
        score -= (x == _FLIP[h]) + (y == _FLIP[h])
    return score > 0


def _averaged_accuracy(
    triples: list[tuple[str, str, str]], right_ab: int, right_ba: int, ci: float
) -> Estimate:
    """The mean of both orders' accuracy, with a CLT interval over per-item scores 0 / 0.5 / 1."""
    n = len(triples)
    if n == 0:
        return undefined(_NO_ITEM)
    scores = [((x == h) + (y == h)) / 2 for h, x, y in triples]
    mean = sum(scores) / n
    var = sum((s - mean) ** 2 for s in scores) / n
    half = z_value(ci) * (var / n) ** 0.5
    lo, hi = mean - half, mean + half
    note = ""
    if lo < 0.0 or hi > 1.0:
        note = f"; interval clipped to [0, 1] (raw [{lo:.3f}, {hi:.3f}])"
    return Estimate(
        value=mean,
        lower=max(0.0, lo),
        upper=min(1.0, hi),
        total=n,
        method="normal",
        reason=(
            f"({right_ab} + {right_ba}) / (2 x {n}) = {mean:.3f}; {ci:.0%} CLT interval over "
            f"per-item scores 0/0.5/1{note}"
        ),
    )


def _first_slot_rate(ab: list[str], ba: list[str], ci: float) -> Estimate:
    """Of the answers that name a winner, the share that picked the candidate shown first."""
    first_wins = sum(1 for x in ab if x == "A") + sum(1 for y in ba if y == "B")
    named = sum(1 for x in ab if x in ("A", "B")) + sum(1 for y in ba if y in ("A", "B"))
    return proportion(
        first_wins,
        named,
        what="of answers naming a winner picked the candidate shown first (0.5 = no position bias)",
        empty="undefined: no answer named a winner",
        confidence=ci,
    )


def _bias_direction(fsr: Estimate) -> Literal["first", "second", "none"]:
    """A position bias only when the first-slot rate's interval excludes 0.5."""
    if fsr.lower is not None and fsr.lower > 0.5:
        return "first"
    if fsr.upper is not None and fsr.upper < 0.5:
        return "second"
    return "none"


def _order_kappas(
    human: list[str],
    ab: list[str],
    ba: list[str],
    *,
    unsure_as: UnsureAs,
    n_bootstrap: int,
    seed: int,
    ci: float,
) -> tuple[Estimate, Estimate, Estimate, Estimate]:
    """Kappa with humans in each order, their mean, and between the orders (one shared bootstrap)."""
    n = len(human)
    labels: list[str] = [*WINNERS, _U] if unsure_as == "wrong" else list(WINNERS)
    k_ab = cohen_kappa(human, ab, labels) if n else None
    k_ba = cohen_kappa(human, ba, labels) if n else None
    k_between = cohen_kappa(ab, ba, labels) if n else None
    k_mean = (k_ab + k_ba) / 2 if k_ab is not None and k_ba is not None else None
    boot = None
    if n and n_bootstrap > 0:
        boot = _kappas(
            [(human, ab), (human, ba), (ab, ba)], labels, n_bootstrap=n_bootstrap, seed=seed
        )
    kappa_est = partial(_kappa_estimate, n=n, confidence=ci, n_bootstrap=n_bootstrap, seed=seed)
    kappa_ab = kappa_est(k_ab, None if boot is None else boot[:, 0], "humans vs judge with A first")
    kappa_ba = kappa_est(k_ba, None if boot is None else boot[:, 1], "humans vs judge with B first")
    kappa_between = kappa_est(
        k_between,
        None if boot is None else boot[:, 2],
        "judge with A first vs with B first",
    )
    if k_mean is None:
        kappa_mean = undefined(
            "undefined: the kappa of at least one order is undefined" if n else _NO_ITEM
        )
    else:
        kappa_mean = kappa_est(
            k_mean,
            None if boot is None else (boot[:, 0] + boot[:, 1]) / 2.0,
            "mean of both orders vs humans",
            formula=f"(kappa_ab {k_ab:.3f} + kappa_ba {k_ba:.3f}) / 2 = {k_mean:.3f}",
        )
    return kappa_ab, kappa_ba, kappa_mean, kappa_between


def pairwise_trust(stats: PairwiseStats, gates: Gates | None = None) -> TrustDecision:
    """Trusted when the kappa, position-bias and unsure gates all pass (module docstring).

    An undefined ``kappa_mean`` (or one without an interval) fails its gate, as does a first-slot
    rate that cannot be checked (no answer named a winner).
    """
    gates = gates or Gates()
    results = [
        lower_gate("kappa", stats.kappa_mean, gates.kappa, what="kappa (mean of both orders)")
    ]
    fsr = stats.first_slot_rate
    if fsr.value is None or fsr.lower is None or fsr.upper is None:
        results.append(unchecked_gate("position bias", 0.5, "position bias", fsr.reason))
    else:
        unbiased = stats.bias_direction == "none"
        slot = "first" if stats.bias_direction == "first" else "second"
        results.append(
            GateResult(
                name="position bias",
                threshold=0.5,
                bound=fsr.lower if stats.bias_direction == "first" else fsr.upper,
                passed=unbiased,
                reason=(
                    f"first-slot rate {fsr.value:.3f} [{fsr.lower:.3f}, {fsr.upper:.3f}] "
                    + (
                        "holds 0.5: no position bias detected"
                        if unbiased
                        else f"excludes 0.5: the judge favours the candidate shown {slot}"
                    )
                ),
            )
        )
    if gates.max_unsure is not None and stats.n_items:
        share = proportion(
            stats.n_unsure,
            stats.n_items,
            what="of items have an unsure answer",
            empty="no items",
            confidence=stats.confidence,
        )
        upper = share.upper if share.upper is not None else 1.0
        results.append(
            upper_gate(
                "unsure",
                upper,
                gates.max_unsure,
                what="unsure share",
                point=f"{stats.n_unsure}/{stats.n_items} = {stats.n_unsure / stats.n_items:.3f}",
            )
        )
    return trust_of(results)


def pairwise_confusion(
    items: Sequence[PairwiseItem], unsure_as: UnsureAs, order: Order
) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]:
    """``(judge answers, matrix)``: the human preference (rows A, B, tie) against one order's answer
    (columns: the answers returned).

    The items and answers are those the statistics use: ``unsure`` is a column of its own under
    ``wrong``, read as ``tie`` under ``tie``, and items with an unsure answer are left out under
    ``drop``.
    """
    columns: list[str] = [*WINNERS, _U] if unsure_as == "wrong" else list(WINNERS)
    index = {label: i for i, label in enumerate(columns)}
    kept = [i for i in items if i.ab != _U and i.ba != _U] if unsure_as == "drop" else list(items)
    matrix = [[0] * len(columns) for _ in WINNERS]
    for item in kept:
        answer = _read(item.ab if order == "ab" else item.ba, unsure_as)
        matrix[WINNERS.index(item.human)][index[answer]] += 1
    return tuple(columns), tuple(tuple(row) for row in matrix)


class PairwiseReport(TrustedOnRead):
    """The result of ``pathjudge calibrate --pairwise``: statistics, trust decision, who judged."""

    schema_version: Literal[1] = 1
    kind: Literal["pathjudge.pairwise"] = "pathjudge.pairwise"
    labels_file: str
    verdicts_file: str
    notes: tuple[str, ...] = ()
    judges: tuple[str, ...] = Field(
        default=(), description="The models named in the verdicts, with their answer counts."
    )
    gates: Gates = Field(default_factory=Gates)
    trust: TrustDecision | None = None
    confusion_rows: tuple[str, ...] = Field(
        default=WINNERS, description="The human preferences: the rows of both matrices."
    )
    confusion_columns: tuple[str, ...] = Field(
        default=(), description="The judge's answers: the columns of both matrices."
    )
    confusion_ab: tuple[tuple[int, ...], ...] = Field(
        default=(), description="Human preference (rows) against the answer with A shown first."
    )
    confusion_ba: tuple[tuple[int, ...], ...] = Field(
        default=(), description="Human preference (rows) against the answer with B shown first."
    )
    stats: PairwiseStats

    @computed_field(  # type: ignore[prop-decorator]
        description="True when the judge passes every pairwise gate."
    )
    @property
    def trusted(self) -> bool:
        """True when the trust decision says so."""
        return self.trust is not None and self.trust.trusted
