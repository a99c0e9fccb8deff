"""Rater-rater agreement: the human ceiling beside judge-human agreement.

:func:`rater_agreement` measures how far the human raters agree with each other on the items two or
more of them labelled pass/fail (``unsure`` is a missing rating, as for the judge):

* two raters: Cohen's kappa on the items both decided (``po``, ``pe`` from their own marginals);
* three or more: Krippendorff's alpha (nominal), which takes items with any number of ratings.

Both come with a seeded percentile bootstrap interval over items (resamples where the statistic is
undefined are dropped and counted). A judge whose kappa with the humans is near the raters' own
agreement is as good as another rater; one far below it has room to improve.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from pydantic import Field

from pathjudge._records import FrozenModel as Record
from pathjudge.calibration._bootstrap import (
    percentile_interval,
    percentile_reason,
    resample_indices,
)
from pathjudge.calibration.agreement import (
    cohen_kappa,
    kappa_from_counts,
    krippendorff_alpha,
    percent_agreement,
)
from pathjudge.calibration.estimate import Estimate, undefined
from pathjudge.calibration.labels import Label, LabelledItem, Ratings

__all__ = ["RaterAgreement", "rater_agreement"]

_LABELS: tuple[Label, Label] = ("pass", "fail")


class RaterAgreement(Record):
    """How far the human raters agree with each other (the human ceiling)."""

    statistic: Literal["cohen_kappa", "krippendorff_alpha"] = Field(
        description="Cohen's kappa for two raters, Krippendorff's alpha (nominal) for more."
    )
    raters: tuple[str, ...] = Field(description="The raters, sorted.")
    n_items: int = Field(description="Items with two or more pass/fail ratings.")
    n_ratings: int = Field(description="Pass/fail ratings on those items.")
    value: Estimate = Field(description="The statistic, with its bootstrap interval over items.")
    percent_agreement: float | None = Field(
        description="Share of agreeing rater pairs, averaged over the items (None: no items)."
    )

    def describe(self) -> str:
        """One line: the statistic, its interval, and what it covers."""
        name = "Cohen's kappa" if self.statistic == "cohen_kappa" else "Krippendorff's alpha"
        est = self.value
        if est.value is None:
            return f"rater-rater {name} undefined: {est.reason}"
        interval = (
            f" [{est.lower:.3f}, {est.upper:.3f}]"
            if est.lower is not None and est.upper is not None
            else ""
        )
        return (
            f"rater-rater {name} {est.value:.3f}{interval} over {self.n_items} items rated by "
            f"{len(self.raters)} raters"
        )


def _units(items: Sequence[LabelledItem | Ratings]) -> list[dict[str, Label]]:
    units = []
    for item in items:
        unit = dict(item.annotator_labels if isinstance(item, LabelledItem) else item)
        if len(unit) >= 2:
            units.append(unit)
    return units


def _kappa_of(pair: tuple[str, str]) -> Callable[[Sequence[dict[str, Label]]], float | None]:
    def kappa(units: Sequence[dict[str, Label]]) -> float | None:
        both = [u for u in units if pair[0] in u and pair[1] in u]
        return cohen_kappa([u[pair[0]] for u in both], [u[pair[1]] for u in both], _LABELS)

    return kappa


def _alpha(units: Sequence[dict[str, Label]]) -> float | None:
    return krippendorff_alpha([list(u.values()) for u in units], "nominal")


def rater_agreement(
    items: Sequence[LabelledItem | Ratings],
    *,
    confidence: float = 0.95,
    n_bootstrap: int = 2000,
    seed: int = 0,
    statistic: Literal["auto", "krippendorff_alpha"] = "auto",
) -> RaterAgreement | None:
    """Rater-rater agreement on ``items`` (module docstring); None when no item has two ratings.

    ``items`` are labelled items (their ``annotator_labels``) or bare ``(rater, label)`` ratings, for
    items left out of the judge's statistics because their raters split evenly.

    With two raters the items are those both decided; with more, every item with two or more
    pass/fail ratings. The interval: ``n_bootstrap`` resamples of those items with replacement
    (``numpy.random.default_rng(seed)``), the statistic on each, the ``(1 - confidence) / 2`` and
    ``(1 + confidence) / 2`` quantiles of the defined ones. Undefined (with the reason) when every
    rating is one label. ``statistic="krippendorff_alpha"`` takes alpha whatever the number of
    raters (a judge panel reports alpha).
    """
    units = _units(items)
    if not units:
        return None
    raters = tuple(sorted({name for unit in units for name in unit}))
    measure: Callable[[Sequence[dict[str, Label]]], float | None]
    if len(raters) == 2 and statistic == "auto":
        name: Literal["cohen_kappa", "krippendorff_alpha"] = "cohen_kappa"
        measure = _kappa_of((raters[0], raters[1]))
        what = f"Cohen's kappa of {raters[0]} and {raters[1]}"
    else:
        name = "krippendorff_alpha"
        measure = _alpha
        what = f"nominal Krippendorff's alpha of {len(raters)} raters"
    n_ratings = sum(len(unit) for unit in units)
    value = measure(units)
    agree = percent_agreement([list(u.values()) for u in units])
    if value is None:
        estimate = undefined(
            f"every one of the {n_ratings} ratings on {len(units)} items is the same label: "
            "chance agreement is 1, so the raters' agreement cannot be told from chance"
        )
    else:
        lower, upper, dropped = _bootstrap(
            units,
            measure,
            pair=(raters[0], raters[1]) if name == "cohen_kappa" else None,
            n_bootstrap=n_bootstrap,
            seed=seed,
            confidence=confidence,
        )
        note = f"; {dropped} degenerate resamples dropped" if dropped else ""
        estimate = Estimate(
            value=value,
            lower=lower,
            upper=upper,
            total=len(units),
            method="bootstrap" if lower is not None else "point",
            reason=(
                f"{what} = {value:.3f} over {len(units)} items ({n_ratings} pass/fail ratings; "
                f"unsure left out); {percentile_reason(confidence, n_bootstrap, seed)}{note}"
            ),
        )
    return RaterAgreement(
        statistic=name,
        raters=raters,
        n_items=len(units),
        n_ratings=n_ratings,
        value=estimate,
        percent_agreement=agree,
    )


def _bootstrap(
    units: Sequence[dict[str, Label]],
    statistic: Callable[[Sequence[dict[str, Label]]], float | None],
    *,
    pair: tuple[str, str] | None,
    n_bootstrap: int,
    seed: int,
    confidence: float,
) -> tuple[float | None, float | None, int]:
    import numpy as np

    if n_bootstrap <= 0:
        return None, None, 0
    idx = resample_indices(len(units), n_bootstrap, seed)
    if pair is not None:
        # Cohen's kappa from the four cells of each resample, vectorised (same formula)
        a = np.asarray([u[pair[0]] == "pass" for u in units], dtype=bool)[idx]
        b = np.asarray([u[pair[1]] == "pass" for u in units], dtype=bool)[idx]
        kappas = kappa_from_counts(
            (a & b).sum(axis=1), (a & ~b).sum(axis=1), (~a & b).sum(axis=1), (~a & ~b).sum(axis=1)
        )
        defined = [float(v) for v in kappas if not np.isnan(v)]
    else:
        values = [statistic([units[i] for i in row]) for row in idx]
        defined = [v for v in values if v is not None]
    dropped = n_bootstrap - len(defined)
    if not defined:
        return None, None, dropped
    lower, upper = percentile_interval(np.asarray(defined), confidence)
    return lower, upper, dropped
