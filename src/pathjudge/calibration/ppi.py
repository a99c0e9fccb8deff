"""A success rate corrected for the judge's errors: prediction-powered inference (PPI++) for a mean.

A small random sample is labelled by humans (``y``) AND judged (``yhat``); many more items are judged
only (``yhat_unlabelled``). The judge's rate on the many items is corrected by its measured error on the
labelled ones, with the power-tuning weight ``lambda`` of Angelopoulos, Duchi & Zrnic (PPI++, 2023):

* ``lambda = cov(y, yhat) / ((1 + n/N) var(yhat ∪ yhat_unlabelled))`` clipped to [0, 1] (covariance
  with 1/n, variance with 1/(n+N-1));
* estimate ``theta = lambda mean(yhat_unlabelled) + mean(y - lambda yhat)``;
* standard error ``se = sqrt(var(lambda yhat_unlabelled)/N + var(y - lambda yhat)/n)`` (variances with
  1/size) and the normal interval ``theta ± z se``.

When every label and prediction lies in [0, 1] (a rate), the normal intervals (PPI++, naive judge,
humans-only CLT) and the PPI++ point estimate are clipped to [0, 1] and their ``reason`` says so, with
the raw values.

``lambda = 0`` is the humans-only estimate, ``lambda = 1`` plain PPI. The interval is valid when the
labelled items are a uniformly random sample of the same population as the unlabelled ones. Beside it
come the naive judge rate (biased whenever the judge errs), the humans-only interval (Wilson and CLT),
and the effective sample size ``n var(y) / (n se²)``: how many human labels the humans-only estimate
would need for the same precision. The same formulas as the reference implementation ``ppi_python``
(``ppi_mean_pointestimate`` / ``ppi_mean_ci``), vectorised over a leading batch axis.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal, assert_never

from pydantic import BaseModel, ConfigDict, Field

from pathjudge._optional import require
from pathjudge.calibration.estimate import Estimate, proportion, undefined, z_value
from pathjudge.calibration.verdicts import ItemVotes

__all__ = ["PPIResult", "Prediction", "clip_unit", "ppi_batch", "ppi_mean", "predictions"]

Prediction = Literal["vote_share", "majority"]


def _numpy() -> Any:
    return require("numpy", "calibration", "prediction-powered inference")


def predictions(votes: Sequence[ItemVotes], mode: Prediction = "vote_share") -> list[float]:
    """Judge predictions in [0, 1] for PPI, one per item.

    ``vote_share``: passes among decisive samples; ``majority``: 1 for pass, 0 for fail. Either way an
    item with no decisive verdict (unsure) predicts 0.5: PPI stays valid for any prediction, the
    correction measures how wrong it is. Empty input gives an empty list.
    """
    out: list[float] = []
    for v in votes:
        if mode == "vote_share":
            share = v.vote_share
            out.append(0.5 if share is None else share)
        elif mode == "majority":
            out.append({"pass": 1.0, "fail": 0.0, "unsure": 0.5}[v.majority])
        else:
            assert_never(mode)
    return out


def ppi_batch(
    y: Any, yhat: Any, yhat_unlabelled: Any, lam: float | None = None
) -> tuple[Any, Any, Any]:
    """PPI++ over a batch: arrays of shape ``(R, n)``, ``(R, n)``, ``(R, N)`` -> ``(theta, se, lam)``.

    Each of the R rows is an independent problem; the outputs have shape ``(R,)``. ``lam=None``
    power-tunes per row (a row whose predictions do not vary gets ``lambda = 0``). Needs ``n >= 1`` and
    ``N >= 1``.
    """
    np = _numpy()
    y = np.atleast_2d(np.asarray(y, dtype=float))
    yhat = np.atleast_2d(np.asarray(yhat, dtype=float))
    yu = np.atleast_2d(np.asarray(yhat_unlabelled, dtype=float))
    n, big_n = y.shape[1], yu.shape[1]
    if n < 1 or big_n < 1 or yhat.shape != y.shape or yu.shape[0] != y.shape[0]:
        raise ValueError(f"shapes y{y.shape}, yhat{yhat.shape}, unlabelled{yu.shape} do not fit")
    if lam is None:
        cov = ((y - y.mean(1, keepdims=True)) * (yhat - yhat.mean(1, keepdims=True))).mean(1)
        pooled = np.concatenate([yhat, yu], axis=1)
        var = pooled.var(1, ddof=1) if pooled.shape[1] > 1 else np.zeros(y.shape[0])
        with np.errstate(divide="ignore", invalid="ignore"):
            raw = np.where(var > 0, cov / ((1.0 + n / big_n) * var), 0.0)
        lams = np.clip(raw, 0.0, 1.0)
    else:
        lams = np.full(y.shape[0], float(lam))
    col = lams[:, None]
    rectifier = y - col * yhat
    theta = lams * yu.mean(1) + rectifier.mean(1)
    se = np.sqrt((col * yu).var(1) / big_n + rectifier.var(1) / n)
    return theta, se, lams


class PPIResult(BaseModel):
    """The corrected success rate beside the naive judge rate and the humans-only interval."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    estimate: Estimate = Field(description="PPI++ point estimate and normal interval.")
    lam: float | None = Field(description="The power-tuning weight used (None when undefined).")
    n_labelled: int
    n_unlabelled: int
    naive_judge_rate: Estimate = Field(
        description="Mean judge prediction over every judged item (ignores the judge's errors)."
    )
    humans_only: Estimate = Field(description="Human pass rate of the labelled items (Wilson).")
    humans_only_clt: Estimate = Field(description="The same with the CLT interval PPI reduces to.")
    effective_n: float | None = Field(
        description="Human labels the humans-only CLT estimate would need for PPI's precision."
    )
    gain: float | None = Field(description="effective_n / n_labelled.")
    confidence: float


def clip_unit(lower: float, upper: float) -> tuple[float, float, str]:
    """``(lower, upper)`` clipped to [0, 1], and a note saying so (empty when nothing was clipped).

    A normal interval around a rate near 0 or 1 runs past the range a rate can take; the bound outside
    [0, 1] carries no information, so it is clipped and the report says what the raw interval was.
    """
    lo, hi = max(0.0, lower), min(1.0, upper)
    if lo == lower and hi == upper:
        return lo, hi, ""
    return lo, hi, f"; interval clipped to [0, 1] (raw [{lower:.3f}, {upper:.3f}])"


def _mean_and_variance(values: Sequence[float]) -> tuple[float, float]:
    """The mean of ``values`` (not empty) and their variance about it, divided by n."""
    mean = sum(values) / len(values)
    return mean, sum((v - mean) ** 2 for v in values) / len(values)


def _normal(values: Sequence[float], confidence: float, what: str, *, rate: bool) -> Estimate:
    n = len(values)
    if n == 0:
        return undefined(f"undefined: no {what}")
    mean, var = _mean_and_variance(values)
    half = z_value(confidence) * math.sqrt(var / n)
    lower, upper, note = mean - half, mean + half, ""
    if rate:
        lower, upper, note = clip_unit(lower, upper)
    return Estimate(
        value=mean,
        lower=lower,
        upper=upper,
        total=n,
        method="normal",
        reason=f"mean {mean:.3f} of {n} {what}; {confidence:.0%} CLT interval ±{half:.3f}{note}",
    )


def ppi_mean(
    y: Sequence[float],
    yhat: Sequence[float],
    yhat_unlabelled: Sequence[float],
    *,
    confidence: float = 0.95,
    lam: float | None = None,
) -> PPIResult:
    """PPI++ estimate of a mean (a success rate when ``y`` is 0/1) with its interval (module docstring).

    ``y[i]`` and ``yhat[i]`` are the human label and judge prediction of labelled item ``i``. With
    fewer than two labelled items or no unlabelled item, the estimate is undefined (with the reason);
    the humans-only and naive rates are still given when they have data.
    """
    if len(y) != len(yhat):
        raise ValueError(f"{len(y)} human labels but {len(yhat)} judge predictions")
    n, big_n = len(y), len(yhat_unlabelled)
    rate = all(0.0 <= v <= 1.0 for v in (*y, *yhat, *yhat_unlabelled))
    estimate: Estimate
    used: float | None = None
    effective: float | None = None
    if n < 2 or big_n < 1:
        why = "at least 2 labelled items" if n < 2 else "at least 1 judge-only (unlabelled) item"
        estimate = undefined(f"undefined: PPI needs {why}")
    else:
        estimate, used, effective = _ppi_estimate(
            y, yhat, yhat_unlabelled, lam=lam, confidence=confidence, rate=rate
        )
    return PPIResult(
        estimate=estimate,
        lam=used,
        n_labelled=n,
        n_unlabelled=big_n,
        naive_judge_rate=_normal(
            [*yhat, *yhat_unlabelled],
            confidence,
            "judge predictions (labelled + unlabelled)",
            rate=rate,
        ),
        humans_only=_humans_only(y, confidence),
        humans_only_clt=_normal(list(y), confidence, "human labels", rate=rate),
        effective_n=effective,
        gain=effective / n if effective is not None else None,
        confidence=confidence,
    )


def _humans_only(y: Sequence[float], confidence: float) -> Estimate:
    """The human pass rate with its Wilson interval (0/1 labels only)."""
    if not all(v in (0.0, 1.0) for v in y):
        return undefined("undefined: the Wilson interval needs 0/1 labels")
    return proportion(
        int(sum(y)),
        len(y),
        what="of labelled items are human-pass",
        empty="undefined: no labelled items",
        confidence=confidence,
    )


def _ppi_estimate(
    y: Sequence[float],
    yhat: Sequence[float],
    yhat_unlabelled: Sequence[float],
    *,
    lam: float | None,
    confidence: float,
    rate: bool,
) -> tuple[Estimate, float, float | None]:
    """The PPI++ estimate with its normal interval, the lambda used, and the effective sample size."""
    n, big_n = len(y), len(yhat_unlabelled)
    theta_a, se_a, lam_a = ppi_batch([list(y)], [list(yhat)], [list(yhat_unlabelled)], lam)
    theta, se, used = float(theta_a[0]), float(se_a[0]), float(lam_a[0])
    half = z_value(confidence) * se
    _, var_y = _mean_and_variance(y)
    effective = var_y / (se * se) if se > 0 and var_y > 0 else None
    tuned = "power-tuned" if lam is None else "fixed"
    lower, upper, note = theta - half, theta + half, ""
    value = theta
    if rate:
        lower, upper, note = clip_unit(lower, upper)
        value = min(1.0, max(0.0, theta))
        if value != theta:  # a rate below 0 or above 1 is not a rate: say what the raw value was
            note += f"; estimate clipped to [0, 1] (raw {theta:.4f})"
    estimate = Estimate(
        value=value,
        lower=lower,
        upper=upper,
        total=n + big_n,
        method="normal",
        reason=(
            f"PPI++ with {tuned} lambda={used:.3f}: {used:.3f} x judge mean {sum(yhat_unlabelled) / big_n:.3f} "
            f"on {big_n} unlabelled items + mean rectifier {theta - used * sum(yhat_unlabelled) / big_n:+.3f} "
            f"on {n} labelled items; se={se:.4f}, {confidence:.0%} normal interval ±{half:.3f}{note}"
        ),
    )
    return estimate, used, effective
