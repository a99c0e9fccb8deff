"""Newcombe's (1998) method 10 interval for a paired difference: published values, an independent
implementation from statsmodels' Wilson intervals, and the edge cases."""

from __future__ import annotations

import math

import pytest

from pathjudge.calibration.estimate import PairedCounts, paired_difference

# Published 95% intervals (method 10: Wilson components, continuity-corrected phi), rounded as printed.
PUBLISHED = [
    # Newcombe (1998), Statist. Med. 17:2635-2650, the paper's worked example (a, b, c, d) =
    # (20, 12, 2, 16), n = 50: theta = (12 - 2) / 50 = 0.2, method 10 gives 0.0562 to 0.3292.
    ((20, 12, 2, 16), 0.2, (0.0562, 0.3292), 4),
    # Fagerland, Lydersen & Laake (2014), Statist. Med. 33:2850-2875, airway hyper-responsiveness
    # (Bentur et al. 2009), (1, 1, 7, 12), n = 21: theta = (1 - 7) / 21 = -0.2857, Newcombe's
    # square-and-add interval -0.507 to -0.026.
    ((1, 1, 7, 12), -6 / 21, (-0.507, -0.026), 3),
    # Tang, Ling & Tian (2010) example, (8, 3, 1, 2), n = 14: theta = 2 / 14, -0.1574 to 0.4136.
    ((8, 3, 1, 2), 2 / 14, (-0.1574, 0.4136), 4),
]


@pytest.mark.parametrize(("table", "theta", "interval", "digits"), PUBLISHED)
def test_matches_published_intervals(
    table: tuple[int, int, int, int], theta: float, interval: tuple[float, float], digits: int
) -> None:
    got = paired_difference(PairedCounts(*table), what="", empty="")
    assert got.value == pytest.approx(theta, abs=1e-12)
    assert got.lower is not None
    assert got.upper is not None
    assert (round(got.lower, digits), round(got.upper, digits)) == interval
    assert got.method == "newcombe"


def test_hand_computation_of_newcombes_example() -> None:
    # (20, 12, 2, 16), n = 50, z = 1.959964:
    # p1 = 32/50 = 0.64, Wilson (0.50138, 0.75868); p2 = 22/50 = 0.44, Wilson (0.31162, 0.57706)
    # ad - bc = 320 - 24 = 296 > n/2 = 25, so phi = (296 - 25) / sqrt(32*18*22*28) = 271/596.05 = 0.45466
    # lower = 0.2 - sqrt(0.13862^2 - 2*0.45466*0.13862*0.13706 + 0.13706^2) = 0.2 - 0.14381 = 0.05619
    # upper = 0.2 + sqrt(0.11868^2 - 2*0.45466*0.11868*0.12838 + 0.12838^2) = 0.2 + 0.12918 = 0.32918
    got = paired_difference(PairedCounts(20, 12, 2, 16), what="", empty="")
    assert got.lower == pytest.approx(0.05619, abs=5e-5)
    assert got.upper == pytest.approx(0.32918, abs=5e-5)
    assert "phi 0.455" in got.reason


def _independent(a: int, b: int, c: int, d: int, alpha: float) -> tuple[float, float, float]:
    """Method 10 written again from statsmodels' Wilson intervals (no pathjudge code)."""
    from statsmodels.stats.proportion import proportion_confint

    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = proportion_confint(a + b, n, alpha=alpha, method="wilson")
    l2, u2 = proportion_confint(a + c, n, alpha=alpha, method="wilson")
    denominator = (a + b) * (c + d) * (a + c) * (b + d)
    cross = a * d - b * c
    if denominator == 0:
        phi = 0.0
    elif cross > n / 2:
        phi = (cross - n / 2) / math.sqrt(denominator)
    elif cross >= 0:
        phi = 0.0
    else:
        phi = cross / math.sqrt(denominator)
    delta = math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    epsilon = math.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
    return p1 - p2, p1 - p2 - delta, p1 - p2 + epsilon


TABLES = [
    (20, 12, 2, 16),
    (1, 1, 7, 12),
    (8, 3, 1, 2),
    (7, 25, 2, 68),
    (0, 0, 0, 30),  # nothing flipped: margins empty, phi = 0
    (0, 9, 0, 21),  # only the probe flipped
    (3, 0, 0, 27),  # ad - bc = 81 > n/2
    (1, 2, 2, 25),  # ad - bc = 21 > n/2 = 15: corrected to 6
    (1, 4, 4, 1),  # ad - bc = -15 < 0: kept
    (2, 0, 1, 1),  # 0 <= ad - bc = 2 <= n/2 = 2: phi 0
    (40, 0, 0, 0),
]


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("confidence", [0.95, 0.9, 0.99])
def test_matches_an_independent_implementation(
    table: tuple[int, int, int, int], confidence: float
) -> None:
    theta, lower, upper = _independent(*table, alpha=1 - confidence)
    got = paired_difference(PairedCounts(*table), what="", empty="", confidence=confidence)
    assert got.value == pytest.approx(theta, abs=1e-9)
    assert got.lower == pytest.approx(lower, abs=1e-9)
    assert got.upper == pytest.approx(upper, abs=1e-9)


def test_no_pairs_is_undefined() -> None:
    got = paired_difference(PairedCounts(0, 0, 0, 0), what="x", empty="no item was judged")
    assert got.value is None
    assert got.reason == "no item was judged"
