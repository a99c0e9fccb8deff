"""PPI++ for a success rate: by hand, against the reference ppi_python, and by simulated coverage."""

from __future__ import annotations

import numpy as np
import pytest

from pathjudge.calibration.estimate import wilson_interval, z_value
from pathjudge.calibration.ppi import ppi_batch, ppi_mean, predictions
from pathjudge.calibration.verdicts import ItemVotes


def test_hand_computed_small_case() -> None:
    # Labelled: y = 1 1 0 0, yhat = 1 0 0 0; unlabelled yhat = 1 1 0 0 (n = 4, N = 4).
    # cov(y, yhat) with 1/n: ybar = 0.5, yhatbar = 0.25 -> (0.5*0.75 + 0.5*-0.25 - 0.5*-0.25*2)/4
    #   = (0.375 - 0.125 + 0.125 + 0.125) / 4 = 0.125
    # var of pooled yhat (1 0 0 0 1 1 0 0), ddof 1: mean 0.375, sum sq dev = 3*0.390625 + 5*0.140625
    #   = 1.875 -> /7 = 0.267857; lambda = 0.125 / ((1 + 4/4) * 0.267857) = 0.233333
    # theta = 0.233333 * 0.5 + mean(y - 0.233333 yhat) = 0.116667 + (2 - 0.233333)/4 = 0.558333
    result = ppi_mean([1, 1, 0, 0], [1, 0, 0, 0], [1, 1, 0, 0])
    assert result.lam == pytest.approx(0.233333, abs=1e-6)
    assert result.estimate.value == pytest.approx(0.558333, abs=1e-6)
    # se² = var(lam * yu)/N + var(y - lam yhat)/n; var(lam yu) = lam² 0.25 = 0.013611;
    # rectifier = (0.766667, 1, 0, 0): mean 0.441667, var = (0.587778 + 1)/4 - 0.441667² = 0.201875
    # -> se² = 0.013611/4 + 0.201875/4 = 0.053872, se = 0.232103, half-width 1.959964 se = 0.454912
    se = (0.233333**2 * 0.25 / 4 + 0.201875 / 4) ** 0.5
    assert z_value(0.95) * se == pytest.approx(0.454912, abs=1e-5)
    assert result.estimate.value - result.estimate.lower == pytest.approx(
        z_value(0.95) * se, abs=1e-5
    )
    # theta + half = 1.0132 runs past 1: clipped, and the reason says so with the raw interval.
    assert result.estimate.upper == 1.0
    assert "interval clipped to [0, 1] (raw [0.103, 1.013])" in result.estimate.reason
    # Humans only: 2/4 with the Wilson interval; the naive judge rate: 3 of 8 predictions.
    assert result.humans_only.value == 0.5
    assert (result.humans_only.lower, result.humans_only.upper) == pytest.approx(
        wilson_interval(2, 4)
    )
    assert result.naive_judge_rate.value == pytest.approx(3 / 8)
    # Effective n = var(y) / se² = 0.25 / 0.053872 = 4.64 -> gain 1.16 over n = 4
    assert result.effective_n == pytest.approx(0.25 / se**2, rel=1e-4)
    assert result.gain == pytest.approx(1.16, abs=0.005)


@pytest.mark.parametrize("lam", [None, 0.0, 1.0, 0.4])
def test_matches_reference_implementation(lam: float | None) -> None:
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

    rng = np.random.default_rng(12)
    for _ in range(5):
        n, big_n = int(rng.integers(20, 200)), int(rng.integers(100, 3000))
        y = (rng.random(n) < 0.6).astype(float)
        yhat = np.where(rng.random(n) < 0.85, y, 1 - y)
        yhat = np.clip(yhat + rng.normal(0, 0.1, n), 0, 1)  # a vote-share-like prediction
        yu = np.clip((rng.random(big_n) < 0.6).astype(float) + rng.normal(0, 0.1, big_n), 0, 1)
        ours = ppi_mean(list(y), list(yhat), list(yu), confidence=0.9, lam=lam)
        point = ppi_mean_pointestimate(y, yhat, yu, lam=lam)
        lower, upper = ppi_mean_ci(y, yhat, yu, alpha=0.1, lam=lam)
        assert ours.estimate.value == pytest.approx(float(np.ravel(point)[0]), rel=1e-9)
        assert ours.estimate.lower == pytest.approx(float(np.ravel(lower)[0]), rel=1e-9)
        assert ours.estimate.upper == pytest.approx(float(np.ravel(upper)[0]), rel=1e-9)


def test_lambda_zero_is_the_humans_only_clt_interval() -> None:
    y, yhat, yu = [1, 0, 1, 1, 0, 1], [1, 1, 1, 0, 0, 1], [1, 0, 1]
    result = ppi_mean(y, yhat, yu, lam=0.0)
    assert result.estimate.value == pytest.approx(result.humans_only_clt.value)
    assert result.estimate.lower == pytest.approx(result.humans_only_clt.lower)
    assert result.gain == pytest.approx(1.0)


def test_coverage_and_width_in_a_seeded_simulation() -> None:
    # True success rate 0.7; a good judge (TPR 0.9, TNR 0.85); n = 150 labelled, N = 3000 judge-only.
    rng = np.random.default_rng(1)  # coverage 0.944 here; seeds 1-5 give 0.941-0.951
    reps, n, big_n, truth = 1000, 150, 3000, 0.7

    def draw(size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        y = (rng.random(size) < truth).astype(float)
        right = np.where(y == 1, rng.random(size) < 0.9, rng.random(size) < 0.85)
        return y, np.where(right, y, 1 - y)

    y, yhat = draw((reps, n))
    _, yu = draw((reps, big_n))
    theta, se, lam = ppi_batch(y, yhat, yu)
    z = z_value(0.95)
    covered = np.mean((theta - z * se <= truth) & (truth <= theta + z * se))
    assert 0.93 <= covered <= 0.97, covered
    # Narrower than the humans-only CLT interval on the same labelled items.
    humans_se = y.std(axis=1) / np.sqrt(n)
    assert np.mean(se) < 0.75 * np.mean(humans_se)
    assert lam.min() >= 0.0
    assert lam.max() <= 1.0
    # The naive judge rate is biased: 0.7*0.9 + 0.3*0.15 = 0.675, well outside typical PPI error.
    assert np.mean(yu) == pytest.approx(0.675, abs=0.003)
    assert abs(np.mean(theta) - truth) < 0.003


def test_undefined_without_enough_data() -> None:
    no_unlabelled = ppi_mean([1, 0, 1], [1, 0, 0], [])
    assert no_unlabelled.estimate.value is None
    assert "judge-only" in no_unlabelled.estimate.reason
    assert no_unlabelled.humans_only.value == pytest.approx(2 / 3)
    one = ppi_mean([1], [1], [1, 0])
    assert one.estimate.value is None
    assert one.gain is None
    # A judge that never varies gets lambda 0 (nothing to learn from it).
    flat = ppi_mean([1, 0, 1, 0], [1, 1, 1, 1], [1, 1, 1])
    assert flat.lam == 0.0
    assert flat.estimate.value == pytest.approx(0.5)
    with pytest.raises(ValueError, match="2 human labels but 1"):
        ppi_mean([1, 0], [1], [1])


def test_predictions_from_votes() -> None:
    votes = [
        ItemVotes("a", None, ("pass", "pass", "fail")),
        ItemVotes("b", None, ("unsure", "error")),
        ItemVotes("c", None, ("fail",)),
        ItemVotes("d", None, ("pass", "fail")),
    ]
    assert predictions(votes, "vote_share") == pytest.approx([2 / 3, 0.5, 0.0, 0.5])
    assert predictions(votes, "majority") == [1.0, 0.5, 0.0, 0.5]
    assert predictions([]) == []


def test_an_estimate_outside_zero_one_is_clipped_and_says_so() -> None:
    """Plain PPI (lambda 1): the judge passes every labelled item the humans mostly fail, and
    fails every unlabelled one: theta = 0 + mean(y - yhat) = -0.75, which is no rate."""
    result = ppi_mean([0, 0, 0, 1], [1, 1, 1, 1], [0.0] * 100, lam=1.0)
    assert result.estimate.value == 0.0
    assert result.estimate.lower == 0.0
    assert "estimate clipped to [0, 1] (raw -0.7500)" in result.estimate.reason
