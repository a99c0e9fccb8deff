"""How well a judge agrees with humans, with honest uncertainty, and whether it can be trusted.

* :func:`judge_agreement`: confusion matrix, accuracy, Cohen's kappa (with a seeded per-item bootstrap
  interval), TPR/TNR, precision/recall/F1 per class, prevalence and the unsure rate. "pass" is the
  positive class. Each of TPR, TNR and kappa is reported in two forms:

  - *decided* (``tpr``, ``tnr``, ``kappa``): unsure verdicts are left out;
  - *unsure as wrong* (``tpr_unsure_as_wrong``, ``tnr_unsure_as_wrong``, ``kappa_unsure_as_wrong``):
    every labelled item counts, and an unsure verdict (or a judge error) counts as the answer that
    disagrees with the human label. ``TPR = TP / (human-pass items)``, ``TNR = TN / (human-fail
    items)``, and kappa is computed with each unsure verdict replaced by the opposite of the human label.
* :func:`inter_annotator`: agreement among the human annotators (percent agreement, Fleiss' kappa,
  Krippendorff's alpha): the ceiling a judge can be expected to reach.
* :func:`decide_trust`: the trust decision on confidence bounds against configurable :class:`Gates`
  (defaults TPR >= 0.8, TNR >= 0.8, kappa >= 0.6 on the LOWER bounds, unsure rate <= 0.2 on the UPPER
  bound).

Why the gates read the unsure-as-wrong forms: on the decided items a judge can look better by
abstaining (turning one false negative into "unsure" raises the decided TPR). Counted as wrong, an
abstention can only lower TPR, TNR and kappa and their bounds: the denominators are fixed (every
labelled item), a Wilson lower bound grows with the successes, kappa never rises when a correct
answer becomes a wrong one, and the kappa bootstrap draws the same resamples whatever the judge said
(it drops only resamples whose human labels are all one class). The unsure-rate gate then caps how
much a judge may abstain at all. ``tests/calibration/test_agreement.py`` checks this with hypothesis.

scikit-learn computes the confusion matrix and kappa (the tests cross-check every other statistic
against scikit-learn); numpy draws the bootstrap.
Both are imported on first use (``pip install 'pathjudge[calibration]'``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field, model_validator

from pathjudge._optional import require
from pathjudge._records import FrozenModel as Record
from pathjudge.calibration._bootstrap import (
    percentile_interval,
    percentile_reason,
    resample_indices,
    stats_numpy,
)
from pathjudge.calibration.estimate import Estimate, point, proportion, undefined
from pathjudge.calibration.labels import Label, LabelledItem
from pathjudge.calibration.verdicts import VerdictValue
from pathjudge.errors import InputError

__all__ = [
    "DEFAULT_MAX_UNSURE",
    "AgreementStats",
    "ClassScores",
    "ConfusionMatrix",
    "GateResult",
    "Gates",
    "InterAnnotatorStats",
    "TrustDecision",
    "TrustedOnRead",
    "bootstrap_kappa",
    "cohen_kappa",
    "decide_trust",
    "design_weighted_gates",
    "fleiss_kappa",
    "inter_annotator",
    "judge_agreement",
    "kappa_from_counts",
    "krippendorff_alpha",
    "lower_gate",
    "parse_gates",
    "percent_agreement",
    "trust_of",
    "unchecked_gate",
    "upper_gate",
]

LABELS: tuple[Label, Label] = ("pass", "fail")


def _metrics() -> Any:
    return require("sklearn.metrics", "calibration", "agreement statistics")


class ConfusionMatrix(Record):
    """Rows are the human labels, columns the judge's (scikit-learn's convention), order pass, fail.

    ``matrix[0][0]`` = human pass & judge pass (TP), ``[0][1]`` = human pass & judge fail (FN),
    ``[1][0]`` = human fail & judge pass (FP), ``[1][1]`` = human fail & judge fail (TN). Unsure
    verdicts are not in the matrix; ``unsure`` counts them by human label.
    """

    labels: tuple[Label, Label] = LABELS
    matrix: tuple[tuple[int, int], tuple[int, int]]
    unsure: dict[Label, int] = Field(default_factory=lambda: dict.fromkeys(LABELS, 0))

    @property
    def tp(self) -> int:
        return self.matrix[0][0]

    @property
    def fn(self) -> int:
        return self.matrix[0][1]

    @property
    def fp(self) -> int:
        return self.matrix[1][0]

    @property
    def tn(self) -> int:
        return self.matrix[1][1]


class ClassScores(Record):
    """Precision, recall and F1 of one class over the decided items."""

    label: Label
    support: int = Field(description="Decided items with this human label.")
    precision: Estimate
    recall: Estimate
    f1: Estimate


class AgreementStats(Record):
    """Judge-vs-human agreement for one criterion. See :func:`judge_agreement`."""

    n_items: int
    n_decided: int
    n_unsure: int
    confusion: ConfusionMatrix
    accuracy: Estimate = Field(
        description="(TP + TN) / decided items: DECIDED ITEMS ONLY (unsure left out), so a judge "
        "that abstains looks better; not gated."
    )
    kappa: Estimate = Field(
        description="Cohen's kappa over the DECIDED ITEMS ONLY (unsure left out); not gated: the "
        "gate reads kappa_unsure_as_wrong."
    )
    tpr: Estimate = Field(
        description="TP / (TP + FN) over the DECIDED ITEMS ONLY (unsure left out); not gated."
    )
    tnr: Estimate = Field(
        description="TN / (TN + FP) over the DECIDED ITEMS ONLY (unsure left out); not gated."
    )
    tpr_unsure_as_wrong: Estimate = Field(
        description="TP / human-pass items: an unsure verdict on a human-pass item counts as wrong."
    )
    tnr_unsure_as_wrong: Estimate = Field(
        description="TN / human-fail items: an unsure verdict on a human-fail item counts as wrong."
    )
    kappa_unsure_as_wrong: Estimate = Field(
        description="Cohen's kappa over every item, each unsure verdict replaced by the wrong label."
    )
    prevalence: Estimate = Field(description="Human pass rate over all labelled items.")
    judge_pass_rate: Estimate = Field(
        description="Judge pass rate over the DECIDED ITEMS ONLY (unsure left out)."
    )
    unsure_rate: Estimate
    per_class: tuple[ClassScores, ...] = Field(
        description="Precision, recall and F1 per class over the DECIDED ITEMS ONLY."
    )
    confidence: float
    n_bootstrap: int
    seed: int


def kappa_from_counts(tp: Any, fn: Any, fp: Any, tn: Any) -> Any:
    """Cohen's kappa from the four cells (scalars or numpy arrays); NaN where it is undefined.

    ``po = (tp + tn) / n``; ``pe = ((tp + fn)(tp + fp) + (fp + tn)(fn + tn)) / n²``;
    ``kappa = (po - pe) / (1 - pe)``, undefined when ``pe == 1`` (both raters used one class) or n == 0.
    """
    np = stats_numpy()
    tp, fn, fp, tn = (np.asarray(x, dtype=float) for x in (tp, fn, fp, tn))
    n = tp + fn + fp + tn
    with np.errstate(divide="ignore", invalid="ignore"):
        po = (tp + tn) / n
        pe = ((tp + fn) * (tp + fp) + (fp + tn) * (fn + tn)) / (n * n)
        kappa = np.where(np.isclose(pe, 1.0) | (n == 0), np.nan, (po - pe) / (1.0 - pe))
    return kappa


def cohen_kappa(a: Sequence[str], b: Sequence[str], labels: Sequence[str]) -> float | None:
    """Cohen's kappa of two aligned label sequences over ``labels`` (scikit-learn); None if undefined.

    Undefined when there are no items or chance agreement ``pe = sum_c p_a(c) p_b(c)`` is 1 (both
    raters used the same single class).
    """
    if len(a) != len(b):
        raise ValueError(f"{len(a)} and {len(b)} labels do not align")
    n = len(a)
    if n == 0:
        return None
    pe = sum((a.count(c) / n) * (b.count(c) / n) for c in labels)
    if abs(pe - 1.0) < 1e-12:
        return None
    return float(_metrics().cohen_kappa_score(list(a), list(b), labels=list(labels)))


def bootstrap_kappa(
    human_pass: Sequence[bool],
    judge_pass: Sequence[bool],
    *,
    n_bootstrap: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float | None, float | None, int]:
    """Seeded per-item percentile bootstrap interval for Cohen's kappa.

    Each of ``n_bootstrap`` resamples draws ``n`` item indices with replacement
    (``numpy.random.default_rng(seed).integers(0, n, size=(n_bootstrap, n))``) and computes kappa on
    them. Resamples whose human labels are all one class are dropped (kappa cannot measure agreement
    there, as for the point estimate), and so is any other resample where kappa is undefined; which
    resamples are dropped then depends on the human labels only, so the bounds can only fall when a
    correct judge answer becomes a wrong one. Returns ``(lower, upper, dropped)``, with ``None``
    bounds when no resample is defined or there are no items.
    """
    np = stats_numpy()
    h = np.asarray(human_pass, dtype=bool)
    j = np.asarray(judge_pass, dtype=bool)
    n = h.size
    if n == 0 or n_bootstrap <= 0:
        return None, None, n_bootstrap
    idx = resample_indices(n, n_bootstrap, seed)
    hs, js = h[idx], j[idx]
    tp = (hs & js).sum(axis=1)
    fn = (hs & ~js).sum(axis=1)
    fp = (~hs & js).sum(axis=1)
    tn = (~hs & ~js).sum(axis=1)
    kappas = kappa_from_counts(tp, fn, fp, tn)
    human_mixed = (tp + fn > 0) & (fp + tn > 0)
    valid = kappas[human_mixed & ~np.isnan(kappas)]
    dropped = int(n_bootstrap - valid.size)
    if valid.size == 0:
        return None, None, dropped
    lower, upper = percentile_interval(valid, confidence)
    return lower, upper, dropped


def _kappa_estimate(
    human: list[Label],
    judge: list[Label],
    *,
    n_bootstrap: int,
    seed: int,
    confidence: float,
    over: str = "decided items",
) -> Estimate:
    """Kappa with its bootstrap interval; ``over`` names the items in the reason ("decided items")."""
    n = len(human)
    if n == 0:
        return undefined("no decided items: kappa needs at least one pass/fail verdict")
    tp = sum(1 for h, j in zip(human, judge, strict=True) if h == "pass" and j == "pass")
    tn = sum(1 for h, j in zip(human, judge, strict=True) if h == "fail" and j == "fail")
    fn = sum(1 for h, j in zip(human, judge, strict=True) if h == "pass" and j == "fail")
    fp = n - tp - tn - fn
    po = (tp + tn) / n
    pe = ((tp + fn) * (tp + fp) + (fp + tn) * (fn + tn)) / (n * n)
    if abs(pe - 1.0) < 1e-12:
        only = human[0]
        return undefined(
            f"humans and judge both said only '{only}' on all {n} {over}: chance agreement is 1, "
            "so kappa is 0/0"
        )
    if len(set(human)) == 1:
        only = human[0]
        return undefined(
            f"the human labels say only '{only}' on all {n} {over}: then po equals pe and kappa "
            "is 0 whatever the judge says, so it cannot measure agreement — label items of both classes"
        )
    value = float(_metrics().cohen_kappa_score(human, judge, labels=list(LABELS)))
    lower, upper, dropped = bootstrap_kappa(
        [h == "pass" for h in human],
        [j == "pass" for j in judge],
        n_bootstrap=n_bootstrap,
        seed=seed,
        confidence=confidence,
    )
    note = f"; {dropped} degenerate resamples dropped" if dropped else ""
    return Estimate(
        value=value,
        lower=lower,
        upper=upper,
        total=n,
        method="bootstrap",
        reason=(
            f"po {po:.3f}, pe {pe:.3f} over {n} {over}; kappa = (po - pe) / (1 - pe) = {value:.3f}; "
            f"{percentile_reason(confidence, n_bootstrap, seed)}{note}"
        ),
    )


def _f1(precision: Estimate, recall: Estimate, label: Label) -> Estimate:
    if precision.value is None or recall.value is None:
        missing, cause = ("precision", precision) if precision.value is None else ("recall", recall)
        return undefined(
            f"F1 of '{label}' is undefined because its {missing} is undefined: "
            f"{cause.reason.removeprefix('undefined: ')}"
        )
    total = precision.value + recall.value
    value = 0.0 if total == 0 else 2 * precision.value * recall.value / total
    return Estimate(
        value=value,
        method="point",
        reason=f"2PR/(P+R) with P={precision.value:.3f}, R={recall.value:.3f}",
    )


def judge_agreement(
    human: Sequence[Label],
    judge: Sequence[VerdictValue],
    *,
    confidence: float = 0.95,
    n_bootstrap: int = 2000,
    seed: int = 0,
) -> AgreementStats:
    """Agreement of judge verdicts with human labels, item by item (the two sequences are aligned).

    Proportions carry Wilson intervals at ``confidence``; kappa a percentile interval from
    ``n_bootstrap`` seeded per-item bootstrap resamples of the decided items. Undefined statistics
    (TPR without human passes, kappa when both sides used one class, anything on zero decided items)
    are :class:`Estimate` s with ``value=None`` and the reason. Empty input gives all-undefined
    statistics and an all-zero confusion matrix.
    """
    if len(human) != len(judge):
        raise ValueError(f"{len(human)} human labels but {len(judge)} judge verdicts")
    pairs = list(zip(human, judge, strict=True))
    hd: list[Label] = []
    jd: list[Label] = []
    for h, j in pairs:
        if j != "unsure":
            hd.append(h)
            jd.append(j)
    n_items, n_decided = len(pairs), len(hd)
    n_unsure = n_items - n_decided
    confusion = _confusion(pairs, hd, jd)
    human_pass = sum(1 for h in human if h == "pass")
    accuracy, tpr, tnr, judge_rate = _decided_rates(confusion, n_decided, confidence)
    tpr_uw, tnr_uw, prevalence, unsure_rate = _labelled_rates(
        confusion, n_items, n_unsure, human_pass, confidence
    )
    kappa = _kappa_estimate(hd, jd, n_bootstrap=n_bootstrap, seed=seed, confidence=confidence)
    kappa_uw = (
        kappa
        if n_unsure == 0
        else _kappa_unsure_as_wrong(pairs, n_unsure, n_bootstrap, seed, confidence)
    )
    return AgreementStats(
        n_items=n_items,
        n_decided=n_decided,
        n_unsure=n_unsure,
        confusion=confusion,
        accuracy=accuracy,
        kappa=kappa,
        tpr=tpr,
        tnr=tnr,
        tpr_unsure_as_wrong=tpr_uw,
        tnr_unsure_as_wrong=tnr_uw,
        kappa_unsure_as_wrong=kappa_uw,
        prevalence=prevalence,
        judge_pass_rate=judge_rate,
        unsure_rate=unsure_rate,
        per_class=tuple(_class_scores(label, confusion, confidence) for label in LABELS),
        confidence=confidence,
        n_bootstrap=n_bootstrap,
        seed=seed,
    )


def _confusion(
    pairs: list[tuple[Label, VerdictValue]], hd: list[Label], jd: list[Label]
) -> ConfusionMatrix:
    """The decided items' 2x2 matrix (rows human, columns judge), and the unsure ones by human label."""
    unsure_by: dict[Label, int] = {
        "pass": sum(1 for h, j in pairs if j == "unsure" and h == "pass"),
        "fail": sum(1 for h, j in pairs if j == "unsure" and h == "fail"),
    }
    if hd:
        raw = _metrics().confusion_matrix(hd, jd, labels=list(LABELS))
        matrix = ((int(raw[0][0]), int(raw[0][1])), (int(raw[1][0]), int(raw[1][1])))
    else:
        matrix = ((0, 0), (0, 0))
    return ConfusionMatrix(matrix=matrix, unsure=unsure_by)


def _decided_rates(
    confusion: ConfusionMatrix, n_decided: int, ci: float
) -> tuple[Estimate, Estimate, Estimate, Estimate]:
    """Accuracy, TPR, TNR and the judge's pass rate over the decided items (unsure excluded)."""
    tp, fn, fp, tn = confusion.tp, confusion.fn, confusion.fp, confusion.tn
    accuracy = proportion(
        tp + tn, n_decided, what="of decided items agree", empty="no decided items", confidence=ci
    )
    tpr = proportion(
        tp,
        tp + fn,
        what="of human-pass items judged pass (unsure excluded)",
        empty="undefined: no human-pass item got a pass/fail verdict (TPR needs positives)",
        confidence=ci,
    )
    tnr = proportion(
        tn,
        tn + fp,
        what="of human-fail items judged fail (unsure excluded)",
        empty="undefined: no human-fail item got a pass/fail verdict (TNR needs negatives)",
        confidence=ci,
    )
    judge_rate = proportion(
        tp + fp,
        n_decided,
        what="of decided items judged pass",
        empty="no decided items",
        confidence=ci,
    )
    return accuracy, tpr, tnr, judge_rate


def _labelled_rates(
    confusion: ConfusionMatrix, n_items: int, n_unsure: int, human_pass: int, ci: float
) -> tuple[Estimate, Estimate, Estimate, Estimate]:
    """Over every labelled item: TPR and TNR with unsure counted wrong, prevalence, unsure rate."""
    tpr_uw = proportion(
        confusion.tp,
        human_pass,
        what="of human-pass items judged pass (unsure counts as wrong)",
        empty="undefined: no human-pass items",
        confidence=ci,
    )
    tnr_uw = proportion(
        confusion.tn,
        n_items - human_pass,
        what="of human-fail items judged fail (unsure counts as wrong)",
        empty="undefined: no human-fail items",
        confidence=ci,
    )
    prevalence = proportion(
        human_pass,
        n_items,
        what="of labelled items are human-pass",
        empty="no labelled items",
        confidence=ci,
    )
    unsure_rate = proportion(
        n_unsure, n_items, what="of items got an unsure verdict", empty="no items", confidence=ci
    )
    return tpr_uw, tnr_uw, prevalence, unsure_rate


def _kappa_unsure_as_wrong(
    pairs: list[tuple[Label, VerdictValue]],
    n_unsure: int,
    n_bootstrap: int,
    seed: int,
    ci: float,
) -> Estimate:
    """Kappa over every labelled item, an unsure verdict counted as the wrong label."""
    human_all: list[Label] = [h for h, _ in pairs]
    judge_wrong: list[Label] = [
        j if j != "unsure" else ("fail" if h == "pass" else "pass") for h, j in pairs
    ]
    kappa = _kappa_estimate(
        human_all,
        judge_wrong,
        n_bootstrap=n_bootstrap,
        seed=seed,
        confidence=ci,
        over="labelled items",
    )
    reason = f"{n_unsure} unsure verdict(s) counted as the wrong label; " + kappa.reason
    return kappa.model_copy(update={"reason": reason})


def _class_scores(label: Label, confusion: ConfusionMatrix, ci: float) -> ClassScores:
    """Precision, recall and F1 of one label over the decided items."""
    tp, fn, fp, tn = confusion.tp, confusion.fn, confusion.fp, confusion.tn
    hits = tp if label == "pass" else tn
    predicted = tp + fp if label == "pass" else tn + fn
    actual = tp + fn if label == "pass" else tn + fp
    precision = proportion(
        hits,
        predicted,
        what=f"of items judged '{label}' are human-'{label}'",
        empty=f"undefined: the judge never said '{label}'",
        confidence=ci,
    )
    recall = proportion(
        hits,
        actual,
        what=f"of human-'{label}' items judged '{label}'",
        empty=f"undefined: no decided item is human-'{label}'",
        confidence=ci,
    )
    return ClassScores(
        label=label,
        support=actual,
        precision=precision,
        recall=recall,
        f1=_f1(precision, recall, label),
    )


# --------------------------------------------------------------------------------------------------
# Agreement among human annotators


def percent_agreement(units: Sequence[Sequence[Any]]) -> float | None:
    """Mean over units (with >= 2 ratings) of the share of rating pairs that agree; None without any.

    For a unit with category counts ``n_c`` and ``m`` ratings: ``sum n_c (n_c - 1) / (m (m - 1))``.
    """
    shares: list[float] = []
    for unit in units:
        m = len(unit)
        if m < 2:
            continue
        counts: dict[Any, int] = {}
        for value in unit:
            counts[value] = counts.get(value, 0) + 1
        shares.append(sum(c * (c - 1) for c in counts.values()) / (m * (m - 1)))
    return sum(shares) / len(shares) if shares else None


def fleiss_kappa(units: Sequence[Sequence[Any]]) -> float | None:
    """Fleiss' kappa for units that all have the same number ``m >= 2`` of ratings (nominal).

    ``P_i = (sum_c n_ic² - m) / (m (m - 1))``, ``P = mean P_i``, ``p_c = sum_i n_ic / (N m)``,
    ``Pe = sum_c p_c²``, ``kappa = (P - Pe) / (1 - Pe)``. None (undefined) when the units are empty,
    have unequal numbers of ratings or fewer than 2, or when every rating is the same category (Pe = 1).
    """
    if not units:
        return None
    m = len(units[0])
    if m < 2 or any(len(unit) != m for unit in units):
        return None
    categories = sorted({value for unit in units for value in unit}, key=repr)
    totals = dict.fromkeys(categories, 0)
    p_items: list[float] = []
    for unit in units:
        counts = dict.fromkeys(categories, 0)
        for value in unit:
            counts[value] += 1
            totals[value] += 1
        p_items.append((sum(c * c for c in counts.values()) - m) / (m * (m - 1)))
    n_ratings = len(units) * m
    p_bar = sum(p_items) / len(p_items)
    p_e = sum((t / n_ratings) ** 2 for t in totals.values())
    if abs(1.0 - p_e) < 1e-12:
        return None
    return (p_bar - p_e) / (1.0 - p_e)


def krippendorff_alpha(
    units: Sequence[Sequence[Any]], level: Literal["nominal", "interval"] = "nominal"
) -> float | None:
    """Krippendorff's alpha; units may have different numbers of ratings (missing data).

    Only units with >= 2 ratings are pairable; ``n`` counts their ratings. ``D_o = (1/n) sum_u
    1/(m_u - 1) sum_{i != j in u} delta(v_i, v_j)``, ``D_e = 1/(n (n - 1)) sum_{i != j} delta(v_i, v_j)``
    over all pairable ratings, ``alpha = 1 - D_o / D_e``. ``delta`` is ``[a != b]`` (nominal) or
    ``(a - b)²`` (interval). None (undefined) without pairable units or when ``D_e == 0``.
    """
    pairable = [list(unit) for unit in units if len(unit) >= 2]
    n = sum(len(unit) for unit in pairable)
    if n < 2:
        return None

    def disagreement(values: Sequence[Any]) -> float:
        """sum over ordered pairs i != j of delta(values[i], values[j])."""
        m = len(values)
        if level == "nominal":
            counts: dict[Any, int] = {}
            for value in values:
                counts[value] = counts.get(value, 0) + 1
            return float(m * m - sum(c * c for c in counts.values()))
        if level == "interval":
            floats = [float(v) for v in values]
            total = sum(floats)
            return 2.0 * m * sum(v * v for v in floats) - 2.0 * total * total
        raise ValueError(f"unknown level {level!r}")

    d_o = sum(disagreement(unit) / (len(unit) - 1) for unit in pairable) / n
    d_e = disagreement([value for unit in pairable for value in unit]) / (n * (n - 1))
    if d_e <= 1e-12:
        return None
    return 1.0 - d_o / d_e


class InterAnnotatorStats(Record):
    """Agreement among human annotators on the items with two or more annotators."""

    n_items: int = Field(description="Items with at least two annotator labels.")
    n_annotators: int = Field(description="Distinct annotators on those items.")
    ratings_per_item: tuple[int, int] = Field(description="Fewest and most ratings on one item.")
    percent_agreement: Estimate
    fleiss_kappa: Estimate
    krippendorff_alpha: Estimate = Field(description="Nominal alpha on the pass/fail labels.")
    krippendorff_alpha_interval: Estimate | None = Field(
        default=None, description="Interval alpha on the raw scores, when annotators gave scores."
    )


def inter_annotator(items: Sequence[LabelledItem]) -> InterAnnotatorStats | None:
    """Human-human agreement on the pass/fail labels of items with >= 2 annotators; None without any.

    Fleiss' kappa needs the same number of ratings on every item and is undefined otherwise;
    Krippendorff's alpha accepts missing ratings. When annotators gave scores, an interval alpha on the
    raw scores is added.
    """
    multi = [item for item in items if len(item.annotator_labels) >= 2]
    if not multi:
        return None
    units = [[label for _, label in item.annotator_labels] for item in multi]
    sizes = [len(unit) for unit in units]
    annotators = {name for item in multi for name, _ in item.annotator_labels}
    n = len(multi)
    pa = percent_agreement(units)
    fk = fleiss_kappa(units)
    ka = krippendorff_alpha(units, "nominal")
    score_units = [[score for _, score in item.annotator_scores] for item in multi]
    interval: Estimate | None = None
    if any(len(unit) >= 2 for unit in score_units):
        ki = krippendorff_alpha(score_units, "interval")
        interval = point(
            ki,
            f"interval alpha on raw scores of {sum(1 for u in score_units if len(u) >= 2)} items",
            "undefined: the scores do not vary",
        )
    fleiss_undefined = (
        "undefined: items have different numbers of ratings "
        f"({min(sizes)} to {max(sizes)}); see Krippendorff's alpha"
        if min(sizes) != max(sizes)
        else "undefined: every annotator gave the same label on every item (chance agreement is 1)"
    )
    return InterAnnotatorStats(
        n_items=n,
        n_annotators=len(annotators),
        ratings_per_item=(min(sizes), max(sizes)),
        percent_agreement=point(
            pa, f"mean share of agreeing annotator pairs over {n} items", "undefined"
        ),
        fleiss_kappa=point(
            fk, f"Fleiss' kappa over {n} items x {sizes[0]} ratings", fleiss_undefined
        ),
        krippendorff_alpha=point(
            ka,
            f"nominal alpha over {n} items, {sum(sizes)} ratings",
            "undefined: every rating is the same label (no expected disagreement)",
        ),
        krippendorff_alpha_interval=interval,
    )


# --------------------------------------------------------------------------------------------------
# Trust decision


DEFAULT_MAX_UNSURE = 0.2
"""The default cap on the UPPER confidence bound of the unsure rate: at most one item in five."""


class Gates(Record):
    """Minimum LOWER confidence bounds a judge must reach to be trusted for a criterion.

    ``tpr``, ``tnr`` and ``kappa`` are compared with the lower bounds of the unsure-as-wrong forms
    (module docstring). ``max_unsure`` caps the UPPER bound of the unsure rate (default
    :data:`DEFAULT_MAX_UNSURE` = 0.2; ``None`` or 1 switches the cap off).
    """

    tpr: float = Field(default=0.8, ge=0.0, le=1.0)
    tnr: float = Field(default=0.8, ge=0.0, le=1.0)
    kappa: float = Field(default=0.6, ge=-1.0, le=1.0)
    max_unsure: float | None = Field(default=DEFAULT_MAX_UNSURE, ge=0.0, le=1.0)


def parse_gates(text: str) -> Gates:
    """Parse ``"tpr=0.8,tnr=0.8,kappa=0.6[,max_unsure=0.2]"``; omitted gates keep their defaults.

    An empty string gives the defaults. An unknown name or a bad value is an :class:`InputError`.
    """
    values: dict[str, float] = {}
    known = ", ".join(Gates.model_fields)
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, sep, raw = part.partition("=")
        name = name.strip()
        if name not in Gates.model_fields:
            raise InputError(
                f"unknown gate {name!r}",
                field="--gates",
                hint=f"use name=value pairs with names from {known}, e.g. tpr=0.8",
            )
        if not sep or not raw.strip():
            raise InputError(
                f"gate {name!r} has no value",
                field="--gates",
                hint=f"write {name}={_gate_default(name)}",
            )
        try:
            values[name] = float(raw)
        except ValueError:
            raise InputError(
                f"gate {name!r} has value {raw.strip()!r}, not a number",
                field="--gates",
                hint=f"write e.g. {name}={_gate_default(name)}",
            ) from None
        low, high = _GATE_RANGES[name]
        if not low <= values[name] <= high:
            raise InputError(
                f"gate {name!r} is {values[name]:g}, outside [{low:g}, {high:g}]",
                field="--gates",
                hint=f"give {name} a value between {low:g} and {high:g}",
            )
    return Gates(**values)


_GATE_RANGES: dict[str, tuple[float, float]] = {
    "tpr": (0.0, 1.0),
    "tnr": (0.0, 1.0),
    "kappa": (-1.0, 1.0),
    "max_unsure": (0.0, 1.0),
}


def _gate_default(name: str) -> str:
    default = Gates.model_fields[name].default
    return f"{default:g}" if isinstance(default, float) else f"{DEFAULT_MAX_UNSURE:g}"


class GateResult(Record):
    """One gate: the bound compared, the threshold, and whether it passed."""

    name: str
    threshold: float
    bound: float | None
    passed: bool
    reason: str


class TrustDecision(Record):
    """Trusted only when every gate passes on its confidence bound."""

    trusted: bool
    gates: tuple[GateResult, ...]
    reason: str


class TrustedOnRead(Record):
    """A report whose ``trusted`` is a computed field: written into the JSON for its readers, and
    dropped when the JSON is read back, so that it is recomputed rather than trusted from the file."""

    @model_validator(mode="before")
    @classmethod
    def _drop_derived(cls, data: Any) -> Any:
        if isinstance(data, dict) and "trusted" in data:
            data = {key: value for key, value in data.items() if key != "trusted"}
        return data


def unchecked_gate(name: str, threshold: float, what: str, why: str) -> GateResult:
    """A gate whose statistic is undefined (or has no bound): it fails, and the reason says why."""
    return GateResult(
        name=name,
        threshold=threshold,
        bound=None,
        passed=False,
        reason=f"{what} cannot be checked: {why}",
    )


def lower_gate(
    name: str, estimate: Estimate, threshold: float, *, what: str | None = None, note: str = ""
) -> GateResult:
    """Passes when the lower bound of ``estimate`` reaches ``threshold``; an undefined estimate, or one
    without a lower bound, fails. ``what`` names the statistic in the reason (default ``name``);
    ``note`` follows the point estimate there."""
    what = what or name
    if estimate.value is None or estimate.lower is None:
        return unchecked_gate(name, threshold, what, estimate.reason)
    passed = estimate.lower >= threshold
    return GateResult(
        name=name,
        threshold=threshold,
        bound=estimate.lower,
        passed=passed,
        reason=(
            f"{what} lower bound {estimate.lower:.3f} {'>=' if passed else '<'} {threshold:.3f} "
            f"(point {estimate.value:.3f}{note})"
        ),
    )


def upper_gate(name: str, upper: float, threshold: float, *, what: str, point: str) -> GateResult:
    """Passes when the upper bound ``upper`` stays at or below ``threshold``; ``what`` names the
    statistic in the reason and ``point`` gives its point estimate."""
    passed = upper <= threshold
    return GateResult(
        name=name,
        threshold=threshold,
        bound=upper,
        passed=passed,
        reason=(
            f"{what} upper bound {upper:.3f} {'<=' if passed else '>'} {threshold:.3f} "
            f"(point {point})"
        ),
    )


def trust_of(results: Sequence[GateResult]) -> TrustDecision:
    """Trusted when every gate passed; the reason lists every failing gate, or says all passed."""
    failed = [r for r in results if not r.passed]
    reason = (
        "all gates pass on their confidence bounds"
        if not failed
        else "; ".join(r.reason for r in failed)
    )
    return TrustDecision(trusted=not failed, gates=tuple(results), reason=reason)


_AS_WRONG = ", unsure counts as wrong"


def decide_trust(stats: AgreementStats, gates: Gates | None = None) -> TrustDecision:
    """Compare the lower bounds of TPR, TNR and kappa (and the unsure rate's upper bound) with gates.

    TPR, TNR and kappa are read in their unsure-as-wrong forms, so abstaining never helps a judge
    pass (module docstring). An undefined statistic fails its gate. The reason lists every failing
    gate, or says all passed.
    """
    gates = gates or Gates()
    results = [
        lower_gate("TPR", stats.tpr_unsure_as_wrong, gates.tpr, note=_AS_WRONG),
        lower_gate("TNR", stats.tnr_unsure_as_wrong, gates.tnr, note=_AS_WRONG),
        lower_gate("kappa", stats.kappa_unsure_as_wrong, gates.kappa, note=_AS_WRONG),
    ]
    if gates.max_unsure is not None:
        rate = stats.unsure_rate
        if rate.upper is None or rate.value is None:
            results.append(unchecked_gate("unsure", gates.max_unsure, "unsure rate", rate.reason))
        else:
            results.append(
                upper_gate(
                    "unsure",
                    rate.upper,
                    gates.max_unsure,
                    what="unsure rate",
                    point=f"{rate.value:.3f}",
                )
            )
    return trust_of(results)


_CELLS: tuple[tuple[str, str], ...] = (
    ("pass", "pass"),
    ("pass", "fail"),
    ("pass", "unsure"),
    ("fail", "pass"),
    ("fail", "fail"),
    ("fail", "unsure"),
)
"""The (human, judge) cells of the design-weighted gates, in order."""


def _gated_numbers(w: Any) -> tuple[Any, Any, Any, Any]:
    """TPR, TNR, kappa (unsure as wrong) and the unsure rate from weighted cell totals (last axis:
    the six (human, judge) cells of ``_CELLS``); NaN where a denominator is empty."""
    np = stats_numpy()
    pp, pf, pu, fp, ff, fu = (w[..., i] for i in range(6))
    with np.errstate(divide="ignore", invalid="ignore"):
        tpr = pp / (pp + pf + pu)
        tnr = ff / (fp + ff + fu)
        unsure = (pu + fu) / (pp + pf + pu + fp + ff + fu)
    # unsure counted as wrong: a human pass the judge was unsure of is a false negative, a human
    # fail it was unsure of a false positive
    kappa = kappa_from_counts(pp, pf + pu, fp + fu, ff)
    return tpr, tnr, kappa, unsure


def design_weighted_gates(
    stats: AgreementStats,
    human: Sequence[Label],
    judge: Sequence[VerdictValue],
    strata: Sequence[str],
    sizes: Sequence[int],
    *,
    confidence: float = 0.95,
    n_bootstrap: int = 2000,
    seed: int = 0,
) -> AgreementStats:
    """``stats`` with its gated numbers (TPR, TNR and kappa unsure-as-wrong, the unsure rate)
    replaced by design-weighted (post-stratified) estimates, for labels drawn at random *within*
    strata but not in proportion to them (``pathjudge label --order gates``).

    Item ``i`` lies in stratum ``strata[i]`` of ``sizes[i]`` items (``N_h``, the same for every item
    of a stratum); with ``n_h`` labelled items there, each weighs ``N_h / n_h``, so every stratum
    counts by its size, however many labels it got. Every statistic is a ratio of weighted cell
    totals (the point estimate).

    Interval: a stratified Bayesian bootstrap, ``n_bootstrap`` draws (seeded), read as a percentile
    interval. Each draw gives every stratum its cell shares from a Dirichlet(counts + ½) posterior
    (Jeffreys prior on both human classes of each judge verdict seen in the stratum) times ``N_h``.
    Unlike resampling the labels, it keeps a small stratum honest: two labels that are both
    ``fail`` do not prove that a stratum of 700 items holds no ``pass`` (a plain bootstrap would
    give that stratum no spread at all, and a false green).
    """
    np = stats_numpy()
    if not (len(human) == len(judge) == len(strata) == len(sizes)):
        raise ValueError("human, judge, strata and sizes must have the same length")
    counts: dict[str, list[int]] = {}
    size_of: dict[str, int] = {}
    for h, j, key, size in zip(human, judge, strata, sizes, strict=True):
        if size_of.setdefault(key, size) != size:
            raise ValueError(f"stratum {key!r} has two sizes: {size_of[key]} and {size}")
        cell = _CELLS.index((h, j if j in ("pass", "fail") else "unsure"))
        counts.setdefault(key, [0] * 6)[cell] += 1
    keys = sorted(counts)
    cells = np.array([counts[k] for k in keys], dtype=float)
    n_h = cells.sum(axis=1)
    weights = np.array([size_of[k] for k in keys], dtype=float) / np.maximum(n_h, 1.0)
    totals = (cells * weights[:, None]).sum(axis=0)
    values = _gated_numbers(totals)
    rng = np.random.default_rng(seed)
    boot = np.zeros((max(n_bootstrap, 0), 6))
    for row, size in zip(cells, (size_of[k] for k in keys), strict=True):
        if n_bootstrap > 0:
            # the judge's verdicts seen in the stratum (the columns of pass/fail, pass/fail/unsure)
            seen = np.tile(row.reshape(2, 3).sum(axis=0) > 0, 2)
            shares = rng.standard_gamma(np.where(seen, row + 0.5, 0.0), size=(n_bootstrap, 6))
            boot += shares / shares.sum(axis=1, keepdims=True) * size
    samples = _gated_numbers(boot)
    where = (
        f"design-weighted over {len(human)} labels in {len(keys)} strata "
        f"(each label weighs N_h/n_h: {', '.join(f'{k} {size_of[k]}/{int(c)}' for k, c in zip(keys, n_h, strict=True))})"
    )

    def estimate(value: Any, sample: Any, name: str, empty: str) -> Estimate:
        if not np.isfinite(value):
            return undefined(f"{name} undefined: {empty} ({where})")
        finite = sample[np.isfinite(sample)]
        lower = upper = None
        if finite.size:
            lower, upper = percentile_interval(finite, confidence)
        return Estimate(
            value=float(value),
            lower=lower,
            upper=upper,
            method="bootstrap",
            reason=f"{name} {float(value):.3f} {where}; {confidence:.0%} stratified Bayesian "
            f"bootstrap percentile interval ({n_bootstrap} draws, Jeffreys prior)",
        )

    tpr, tnr, kappa, unsure = values
    update = {
        "tpr_unsure_as_wrong": estimate(tpr, samples[0], "TPR", "no human-pass labels"),
        "tnr_unsure_as_wrong": estimate(tnr, samples[1], "TNR", "no human-fail labels"),
        "kappa_unsure_as_wrong": estimate(
            kappa, samples[2], "kappa (unsure as wrong)", "one class only"
        ),
        "unsure_rate": estimate(unsure, samples[3], "unsure rate", "no labels"),
    }
    return stats.model_copy(update=update)
