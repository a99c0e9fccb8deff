"""An estimate with its interval, or an explicit "undefined" with the reason; the Wilson interval, and
Newcombe's interval for a difference of paired proportions.

Statistics that cannot be computed (a rate with an empty denominator, kappa when both raters used one
class) are :class:`Estimate` s with ``value=None`` and a reason, never a silent 0.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Estimate",
    "EstimateMethod",
    "PairedCounts",
    "paired_difference",
    "point",
    "proportion",
    "undefined",
    "wilson_interval",
    "z_value",
]

EstimateMethod = Literal["wilson", "bootstrap", "normal", "point", "undefined", "newcombe"]


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


class PairedCounts(NamedTuple):
    """The 2x2 table of ``n`` pairs of binary outcomes (first, second), in Newcombe's (1998) letters.

    ``a``: both 1; ``b``: first 1, second 0; ``c``: first 0, second 1; ``d``: both 0.
    """

    a: int
    b: int
    c: int
    d: int

    @property
    def n(self) -> int:
        return self.a + self.b + self.c + self.d


def _newcombe_phi(t: PairedCounts) -> float:
    """Newcombe's continuity-corrected correlation: ``A = ad - bc`` over ``sqrt(efgh)`` (the four
    margins), with ``A`` reduced to ``A - n/2`` when ``A > n/2``, to 0 when ``0 <= A <= n/2``, kept when
    negative; 0 when a margin is empty."""
    margins = (t.a + t.b) * (t.c + t.d) * (t.a + t.c) * (t.b + t.d)
    if margins == 0:
        return 0.0
    cross = t.a * t.d - t.b * t.c
    if cross > t.n / 2:
        corrected = cross - t.n / 2
    elif cross >= 0:
        corrected = 0.0
    else:
        corrected = float(cross)
    return corrected / math.sqrt(margins)


def paired_difference(
    t: PairedCounts, *, what: str, empty: str, confidence: float = 0.95
) -> Estimate:
    """``p1 - p2 = (b - c) / n`` for paired binary outcomes, with Newcombe's (1998, Statistics in
    Medicine 17:2635-2650) method 10 interval: the Wilson intervals ``(l1, u1)`` of
    ``p1 = (a + b) / n`` and ``(l2, u2)`` of ``p2 = (a + c) / n``, combined with the corrected
    correlation ``phi`` (:func:`_newcombe_phi`)::

        lower = d - sqrt((p1 - l1)^2 - 2 phi (p1 - l1)(u2 - p2) + (u2 - p2)^2)
        upper = d + sqrt((u1 - p1)^2 - 2 phi (u1 - p1)(p2 - l2) + (p2 - l2)^2)

    Undefined with reason ``empty`` when there is no pair. ``what`` completes the reason.
    """
    n = t.n
    if n == 0:
        return undefined(empty)
    p1, p2 = (t.a + t.b) / n, (t.a + t.c) / n
    l1, u1 = wilson_interval(t.a + t.b, n, confidence)
    l2, u2 = wilson_interval(t.a + t.c, n, confidence)
    phi = _newcombe_phi(t)
    diff = p1 - p2
    below = (p1 - l1) ** 2 - 2.0 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2
    above = (u1 - p1) ** 2 - 2.0 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2
    return Estimate(
        value=diff,
        lower=max(-1.0, diff - math.sqrt(max(0.0, below))),
        upper=min(1.0, diff + math.sqrt(max(0.0, above))),
        total=n,
        method="newcombe",
        reason=(
            f"({t.b} - {t.c}) / {n} = {diff:.3f} {what}; {confidence:.0%} Newcombe paired "
            f"interval (method 10, phi {phi:.3f})"
        ),
    )
