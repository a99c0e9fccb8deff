"""An estimate with its interval, or an explicit "undefined" with the reason; and the Wilson interval.

Statistics that cannot be computed (a rate with an empty denominator, kappa when both raters used one
class) are :class:`Estimate` s with ``value=None`` and a reason, never a silent 0.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Estimate",
    "EstimateMethod",
    "point",
    "proportion",
    "undefined",
    "wilson_interval",
    "z_value",
]

EstimateMethod = Literal["wilson", "bootstrap", "normal", "point", "undefined"]


class Estimate(BaseModel):
    """A point estimate with an optional interval; ``value is None`` means undefined (see ``reason``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    value: float | None = Field(description="The point estimate; None when undefined.")
    lower: float | None = Field(default=None, description="Lower bound of the interval.")
    upper: float | None = Field(default=None, description="Upper bound of the interval.")
    successes: int | None = Field(default=None, description="Numerator, for a proportion.")
    total: int | None = Field(default=None, description="Denominator, for a proportion.")
    method: EstimateMethod = Field(description="How the interval was computed.")
    reason: str = Field(description="The numbers behind the estimate, or why it is undefined.")

    @property
    def defined(self) -> bool:
        return self.value is not None


def z_value(confidence: float) -> float:
    """The two-sided standard-normal quantile for ``confidence`` (0.95 -> 1.959964)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    return NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)


def wilson_interval(successes: int, total: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for ``successes`` out of ``total`` (``total`` must be positive).

    ``center = (k + z²/2) / (n + z²)``, ``half = z / (n + z²) * sqrt(k (n - k) / n + z² / 4)``.
    """
    if total <= 0 or not 0 <= successes <= total:
        raise ValueError(f"need 0 <= successes <= total and total > 0, got {successes}/{total}")
    z = z_value(confidence)
    z2 = z * z
    center = (successes + z2 / 2.0) / (total + z2)
    half = z / (total + z2) * math.sqrt(successes * (total - successes) / total + z2 / 4.0)
    return max(0.0, center - half), min(1.0, center + half)


def undefined(reason: str) -> Estimate:
    """An undefined estimate carrying ``reason``."""
    return Estimate(value=None, method="undefined", reason=reason)


def point(value: float | None, reason: str, why_undefined: str) -> Estimate:
    """``value`` as a point estimate (no interval) with ``reason``; undefined with ``why_undefined`` when None."""
    if value is None:
        return undefined(why_undefined)
    return Estimate(value=value, method="point", reason=reason)


def proportion(
    successes: int, total: int, *, what: str, empty: str, confidence: float = 0.95
) -> Estimate:
    """``successes / total`` with its Wilson interval; undefined with reason ``empty`` when total is 0.

    ``what`` completes the reason: ``"34/40 = 0.850 " + what``.
    """
    if total == 0:
        return undefined(empty)
    lower, upper = wilson_interval(successes, total, confidence)
    value = successes / total
    return Estimate(
        value=value,
        lower=lower,
        upper=upper,
        successes=successes,
        total=total,
        method="wilson",
        reason=f"{successes}/{total} = {value:.3f} {what}; {confidence:.0%} Wilson interval",
    )
