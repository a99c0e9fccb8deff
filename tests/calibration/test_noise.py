"""Judge noise across samples, judge vs agent variance, and reliability bins, by hand."""

from __future__ import annotations

import pytest
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from pathjudge.calibration.noise import judge_noise, reliability
from pathjudge.calibration.verdicts import ItemVotes

P, F = "pass", "fail"
VOTES = [
    ItemVotes("a", None, (P, P, F, F)),  # share 0.5
    ItemVotes("b", None, (P, P, P, P)),  # share 1
    ItemVotes("c", None, (F, F, F, F)),  # share 0
    ItemVotes("d", None, (P, F, F, F)),  # share 0.25
]
GROUPS = {"a": "g1", "b": "g1", "c": "g2", "d": "g2"}


def test_self_agreement_by_hand() -> None:
    stats = judge_noise(VOTES, groups=GROUPS)
    assert stats is not None
    assert stats.n_items == 4
    assert stats.samples_per_item == (4, 4)
    # Agreeing pairs per item: a (1 + 1)/6 = 1/3, b 1, c 1, d (0 + 3)/6 = 1/2 -> mean 17/24
    assert stats.mean_pairwise_agreement.value == pytest.approx(17 / 24)
    assert stats.unanimous.value == pytest.approx(2 / 4)
    # Fleiss, samples as raters: P = 17/24; p_pass = 7/16 -> Pe = (49 + 81)/256;
    # kappa = (17/24 - 130/256) / (1 - 130/256) = 11/27
    assert stats.fleiss_kappa.value == pytest.approx(11 / 27)
    table, _ = aggregate_raters([[1 if x == P else 0 for x in v.verdicts] for v in VOTES])
    assert stats.fleiss_kappa.value == pytest.approx(sm_fleiss(table))
    assert stats.undecided_sample_rate.value == 0.0


def test_judge_vs_agent_variance_by_hand() -> None:
    stats = judge_noise(VOTES, groups=GROUPS)
    assert stats is not None
    # Judge: k/(k-1) p(1-p) = 4/3*0.25 = 1/3 (a), 0 (b), 0 (c), 4/3*0.1875 = 0.25 (d) -> mean 7/48
    assert stats.judge_variance.value == pytest.approx(7 / 48)
    # g1: var(0.5, 1) = 0.125 minus mean(s²/k) = (1/12 + 0)/2 = 1/24 -> 1/12
    # g2: var(0, 0.25) = 0.03125 minus (0 + 0.0625)/2 = 0.03125 -> 0; agent = (1/12 + 0)/2 = 1/24
    assert stats.agent_variance.value == pytest.approx(1 / 24)
    # Share of one verdict's variance due to the judge: (7/48) / (7/48 + 2/48) = 7/9
    assert stats.judge_noise_share.value == pytest.approx(7 / 9)
    no_groups = judge_noise(VOTES)
    assert no_groups is not None
    assert no_groups.agent_variance.value is None
    assert "no task groups" in no_groups.agent_variance.reason
    assert no_groups.judge_noise_share.value is None


def test_negative_agent_variance_is_clipped() -> None:
    # Two items of one task, same share 0.5: spread 0 minus judge noise (1/12 each) -> -1/12 -> 0
    votes = [ItemVotes("a", None, (P, P, F, F)), ItemVotes("b", None, (F, P, F, P))]
    stats = judge_noise(votes, groups={"a": "t", "b": "t"})
    assert stats is not None
    assert stats.agent_variance.value == 0.0
    assert "clipped" in stats.agent_variance.reason
    assert stats.judge_noise_share.value == 1.0


def test_unsure_and_single_samples() -> None:
    assert judge_noise([ItemVotes("a", None, (P,))]) is None
    assert judge_noise([]) is None
    votes = [ItemVotes("a", None, (P, "unsure", P)), ItemVotes("b", None, (F, P, "error"))]
    stats = judge_noise(votes)
    assert stats is not None
    assert stats.undecided_sample_rate.value == pytest.approx(2 / 6)
    # decisive pairs: a (P, P) agrees, b (F, P) does not -> 0.5
    assert stats.mean_pairwise_agreement.value == pytest.approx(0.5)
    uneven = judge_noise([ItemVotes("a", None, (P, P, P)), ItemVotes("b", None, (F, P))])
    assert uneven is not None
    assert uneven.fleiss_kappa.value is None
    assert "different numbers" in uneven.fleiss_kappa.reason
    assert uneven.krippendorff_alpha.value is not None


def test_reliability_bins_by_hand() -> None:
    shares = [0.0, 0.1, 0.5, 0.55, 1.0, 1.0, None]
    human = ["fail", "pass", "pass", "fail", "pass", "pass", "pass"]
    rel = reliability(shares, human, n_bins=2)
    # Bin [0, 0.5): shares 0, 0.1 -> mean 0.05, human pass 1/2; bin [0.5, 1]: 0.5, 0.55, 1, 1 ->
    # mean 0.7625, pass 3/4. ECE = 2/6 * |0.05 - 0.5| + 4/6 * |0.7625 - 0.75| = 0.15 + 0.008333
    assert [(b.mean_share, b.observed_rate, b.count) for b in rel.bins] == [
        pytest.approx((0.05, 0.5, 2)),
        pytest.approx((0.7625, 0.75, 4)),
    ]
    assert rel.ece == pytest.approx(0.15 + 0.0125 * 4 / 6)
    assert rel.n_without_share == 1
    assert rel.points == [(b.mean_share, b.observed_rate, b.count) for b in rel.bins]
    empty = reliability([], [])
    assert empty.bins == ()
    assert empty.ece is None
    with pytest.raises(ValueError, match="at least 1"):
        reliability([0.5], ["pass"], n_bins=0)
