"""The seeded per-item percentile bootstrap behind the agreement intervals (judge kappa, rater
agreement, pairwise kappa): how items are resampled, how the interval is read off the resampled
statistics, and how the reason names it."""

from __future__ import annotations

from typing import Any

from pathjudge._optional import require

__all__ = ["percentile_interval", "percentile_reason", "resample_indices", "stats_numpy"]


def stats_numpy() -> Any:
    """numpy, or the error naming the ``calibration`` extra that installs it."""
    return require("numpy", "calibration", "calibration statistics")


def resample_indices(n: int, n_bootstrap: int, seed: int) -> Any:
    """``n_bootstrap`` resamples of ``n`` item indices drawn with replacement: an integer array of
    shape ``(n_bootstrap, n)`` from ``numpy.random.default_rng(seed)``."""
    rng = stats_numpy().random.default_rng(seed)
    return rng.integers(0, n, size=(n_bootstrap, n))


def percentile_interval(values: Any, confidence: float) -> tuple[float, float]:
    """The ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles of ``values`` (not empty)."""
    tail = (1.0 - confidence) / 2.0
    lower, upper = stats_numpy().quantile(values, [tail, 1.0 - tail])
    return float(lower), float(upper)


def percentile_reason(confidence: float, n_bootstrap: int, seed: int) -> str:
    """How a reason names the interval: ``95% percentile interval from 2000 per-item bootstrap
    resamples (seed 0)``."""
    return (
        f"{confidence:.0%} percentile interval from {n_bootstrap} per-item bootstrap resamples "
        f"(seed {seed})"
    )
