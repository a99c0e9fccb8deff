"""What to do after NOT TRUSTED: how many more labels each failing gate needs, and what else to try.

:func:`labels_needed` estimates, for each gate that failed, the number of labelled items at which its
confidence bound would clear the gate **if the observed rate stayed as it is**:

* TPR / TNR (unsure counts as wrong): the smallest ``m`` human-pass (human-fail) items for which the
  Wilson lower bound of the observed rate ``p`` over ``m`` items (``k = p m`` successes, continuous)
  reaches the gate; the total is ``m`` divided by the observed share of that class among the labelled
  items. A rate at or below its gate can never pass by labelling more: the judge itself must improve.
* kappa (unsure counts as wrong): the bootstrap half-width below the point, ``h = kappa - lower``,
  shrinks like ``1/sqrt(n)``, so ``n' = n (h / (kappa - gate))²``.
* unsure rate: the smallest ``n`` for which the Wilson UPPER bound of the observed rate is at most
  the cap; a rate at or above the cap cannot pass.

These are planning figures (the rates will move as labels come in), reported as such.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from pathjudge.calibration.estimate import z_value

if TYPE_CHECKING:
    from pathjudge.calibration.agreement import AgreementStats, Gates, TrustDecision

__all__ = [
    "Need",
    "few_shot_advice",
    "labels_needed",
    "more_labels_needed",
    "needs",
    "next_steps",
]

_LIMIT = 1_000_000


def _wilson_bound(p: float, m: float, confidence: float, *, upper: bool) -> float:
    z = z_value(confidence)
    z2 = z * z
    center = (p * m + z2 / 2.0) / (m + z2)
    half = z / (m + z2) * math.sqrt(p * (1.0 - p) * m + z2 / 4.0)
    return center + half if upper else center - half


def _smallest(check: Callable[[int], bool], start: int) -> int | None:
    """The smallest integer m >= start with check(m) (monotone), by doubling then bisection.

    None when even the limit of a million items is not enough.
    """
    low, high = max(1, start), max(1, start)
    while not check(high):
        low = high + 1
        high *= 2
        if high > _LIMIT:
            return None
    while low < high:
        mid = (low + high) // 2
        if check(mid):
            high = mid
        else:
            low = mid + 1
    return high


def _rate_items(p: float, threshold: float, confidence: float, start: int) -> int | None:
    if p <= threshold:
        return None
    return _smallest(lambda m: _wilson_bound(p, m, confidence, upper=False) >= threshold, start)


class Need(NamedTuple):
    """What one failing gate needs: the sentence, and how many more labelled items at the observed
    rates (None: undefined for now, or labelling more cannot make it pass)."""

    gate: str
    text: str
    more: int | None


def _rate_needs(stats: AgreementStats, gates: Gates, failed: set[str]) -> list[Need]:
    n = stats.n_items
    ci = stats.confidence
    n_pass = stats.confusion.tp + stats.confusion.fn + stats.confusion.unsure["pass"]
    n_fail = n - n_pass
    out: list[Need] = []
    for name, est, threshold, cls_n, cls in (
        ("TPR", stats.tpr_unsure_as_wrong, gates.tpr, n_pass, "human-pass"),
        ("TNR", stats.tnr_unsure_as_wrong, gates.tnr, n_fail, "human-fail"),
    ):
        if name not in failed:
            continue
        if est.value is None or cls_n == 0:
            text = f"{name}: label {cls} items; there are none yet, so {name} is undefined"
            out.append(Need(name, text, None))
            continue
        m = _rate_items(est.value, threshold, ci, cls_n)
        if m is None:
            text = (
                f"{name}: at the observed {est.value:.3f} it cannot reach {threshold:.2f} however "
                "many items are labelled; the judge must improve (criterion wording, few-shot "
                "examples, a stronger model)"
            )
            out.append(Need(name, text, None))
            continue
        total = math.ceil(m * n / cls_n)
        text = (
            f"{name}: about {m} {cls} items (now {cls_n}), i.e. about {total} labelled items in "
            f"all (now {n}, {max(0, total - n)} more) if the rate stays at {est.value:.3f}"
        )
        out.append(Need(name, text, max(0, total - n)))
    return out


def _kappa_need(stats: AgreementStats, gates: Gates) -> Need:
    n = stats.n_items
    k = stats.kappa_unsure_as_wrong
    if k.value is None or k.lower is None:
        return Need("kappa", "kappa: undefined for now; label items of both classes", None)
    if k.value <= gates.kappa:
        text = (
            f"kappa: at the observed {k.value:.3f} it cannot reach {gates.kappa:.2f} however "
            "many items are labelled; the judge must improve"
        )
        return Need("kappa", text, None)
    half = k.value - k.lower
    need = math.ceil(n * (half / (k.value - gates.kappa)) ** 2)
    text = (
        f"kappa: about {need} labelled items (now {n}, {max(0, need - n)} more) for the "
        f"interval to narrow enough if kappa stays at {k.value:.3f}"
    )
    return Need("kappa", text, max(0, need - n))


def _unsure_need(stats: AgreementStats, cap: float) -> Need | None:
    n = stats.n_items
    u = stats.unsure_rate
    if u.value is None:
        return None
    if u.value >= cap:
        text = (
            f"unsure: the judge abstains on {u.value:.1%} of items, above the {cap:.0%} cap; "
            "more labels cannot fix that (check the 'unsure_means' wording and judge errors)"
        )
        return Need("unsure", text, None)
    rate = u.value
    need_u = _smallest(lambda m: _wilson_bound(rate, m, stats.confidence, upper=True) <= cap, n)
    if need_u is None:
        return None
    text = (
        f"unsure: about {need_u} labelled items (now {n}) for the upper bound to drop "
        f"under {cap:.2f} if the unsure rate stays at {rate:.3f}"
    )
    return Need("unsure", text, max(0, need_u - n))


def needs(stats: AgreementStats, gates: Gates, decision: TrustDecision) -> list[Need]:
    """What each failing gate needs (see the module docstring); empty when nothing is labelled."""
    if not stats.n_items:
        return []
    failed = {g.name for g in decision.gates if not g.passed}
    out = _rate_needs(stats, gates, failed)
    if "kappa" in failed:
        out.append(_kappa_need(stats, gates))
    if "unsure" in failed and gates.max_unsure is not None:
        found = _unsure_need(stats, gates.max_unsure)
        if found is not None:
            out.append(found)
    return out


def labels_needed(stats: AgreementStats, gates: Gates, decision: TrustDecision) -> list[str]:
    """One sentence per failing gate: the labelled items it would need at the observed rates."""
    if not stats.n_items:
        return ["label some items: there is nothing to measure yet"]
    return [need.text for need in needs(stats, gates, decision)]


def more_labels_needed(stats: AgreementStats, gates: Gates, decision: TrustDecision) -> int | None:
    """How many more labelled items every failing gate needs at the observed rates: the largest
    of the gates' figures; 0 when no gate fails; None when a failing gate cannot say (undefined for
    now, or more labels cannot make it pass)."""
    found = needs(stats, gates, decision)
    if not found:
        return 0 if decision.trusted else None
    counts = [need.more for need in found]
    if any(count is None for count in counts):
        return None
    return max(count for count in counts if count is not None)


def few_shot_advice(has_train: bool, n_train_disagreements: int) -> str:
    """How to turn train-split disagreements into few-shot examples, given what the labels hold."""
    if not has_train:
        return (
            'few-shot: mark some labelled items "split": "train" (with their \'inputs\' and a '
            "'rationale'), rerun with --split test --few-shot examples.yaml, then `pathjudge criteria "
            "export ID -o mine.yaml`, paste the examples into it and judge with --criterion mine.yaml"
        )
    return (
        f"few-shot: {n_train_disagreements} train-split disagreement(s) can become examples: rerun with "
        "--few-shot examples.yaml, paste them into a copy of the criterion (`pathjudge criteria export "
        "ID -o mine.yaml`), judge again with --criterion mine.yaml and evaluate on --split test only"
    )


def next_steps(
    stats: AgreementStats,
    gates: Gates,
    decision: TrustDecision,
    *,
    has_train: bool,
    n_train_disagreements: int,
) -> tuple[str, ...]:
    """The next steps after NOT TRUSTED (empty when trusted): labels per gate, then few-shot."""
    if decision.trusted:
        return ()
    return (
        *labels_needed(stats, gates, decision),
        few_shot_advice(has_train, n_train_disagreements),
    )
