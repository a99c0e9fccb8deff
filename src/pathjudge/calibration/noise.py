"""Judge noise vs agent noise, and the reliability of the k-sample vote share.

When the judge grades each item k times (samples), :func:`judge_noise` measures how much it disagrees
with ITSELF on the same item (judge noise), and, when items are grouped into runs of the same task
(``group``), how much the runs of one task really differ (agent noise), as variance components of a
single pass/fail verdict:

* judge variance ``s²_j = mean_i k_i/(k_i - 1) p_i (1 - p_i)`` (unbiased within-item variance, over
  items with k_i >= 2 decisive samples and vote share p_i);
* agent variance ``s²_a = mean_g [ var_{i in g}(p_i) - mean_{i in g} s²_i / k_i ]`` over groups with
  >= 2 such items (the spread of the item vote shares, minus what judge noise alone explains; a
  negative estimate is reported as 0).

:func:`reliability` bins items by their vote share and compares the mean share with the observed human
pass rate in each bin: a calibrated judge lies on the diagonal.

Unsure and errored samples are excluded from vote shares and agreement and counted separately.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import Field

from pathjudge._records import FrozenModel as Record
from pathjudge.calibration.agreement import fleiss_kappa, krippendorff_alpha, percent_agreement
from pathjudge.calibration.estimate import Estimate, point, proportion, undefined
from pathjudge.calibration.labels import Label
from pathjudge.calibration.verdicts import ItemVotes

__all__ = [
    "NoiseStats",
    "Reliability",
    "ReliabilityBin",
    "judge_noise",
    "reliability",
]

_NO_PAIRABLE_ITEM = "undefined: no item has two decisive samples"
"""Why a statistic over pairs of decisive samples of one item is undefined."""


class ReliabilityBin(Record):
    """Items whose vote share fell in ``[lower, upper)`` (the last bin includes 1.0)."""

    lower: float
    upper: float
    mean_share: float = Field(description="Mean judge vote share of the items in the bin.")
    observed_rate: float = Field(description="Share of those items that humans labelled pass.")
    count: int


class Reliability(Record):
    """Reliability data of the vote share; ``points`` feeds the reliability plot."""

    bins: tuple[ReliabilityBin, ...]
    n_items: int = Field(description="Items with a vote share (at least one decisive sample).")
    n_without_share: int = Field(description="Items whose samples were all unsure (left out).")
    ece: float | None = Field(description="sum_b count_b / n * |mean_share_b - observed_b|.")
    reason: str

    @property
    def points(self) -> list[tuple[float, float, int]]:
        """``(mean share, observed human pass rate, count)`` per non-empty bin."""
        return [(b.mean_share, b.observed_rate, b.count) for b in self.bins]


def reliability(
    vote_shares: Sequence[float | None], human: Sequence[Label], *, n_bins: int = 5
) -> Reliability:
    """Bin items by vote share into ``n_bins`` equal-width bins over [0, 1]; empty bins are omitted.

    Items without a share (all samples unsure) are counted in ``n_without_share`` and left out. Empty
    input gives no bins and ``ece=None``.
    """
    if n_bins < 1:
        raise ValueError(f"n_bins must be at least 1, got {n_bins}")
    if len(vote_shares) != len(human):
        raise ValueError(f"{len(vote_shares)} vote shares but {len(human)} human labels")
    sums = [0.0] * n_bins
    passes = [0] * n_bins
    counts = [0] * n_bins
    missing = 0
    for share, label in zip(vote_shares, human, strict=True):
        if share is None:
            missing += 1
            continue
        index = min(int(share * n_bins), n_bins - 1)
        sums[index] += share
        passes[index] += label == "pass"
        counts[index] += 1
    bins = tuple(
        ReliabilityBin(
            lower=b / n_bins,
            upper=(b + 1) / n_bins,
            mean_share=sums[b] / counts[b],
            observed_rate=passes[b] / counts[b],
            count=counts[b],
        )
        for b in range(n_bins)
        if counts[b]
    )
    total = sum(counts)
    ece = (
        sum(b.count / total * abs(b.mean_share - b.observed_rate) for b in bins) if total else None
    )
    reason = (
        f"{total} items in {len(bins)} non-empty bins of width {1 / n_bins:.2f}"
        + (f"; {missing} items with only unsure samples left out" if missing else "")
        + (
            f"; expected calibration error {ece:.3f}"
            + (f" over the {total} decided items only" if missing else "")
            if ece is not None
            else ""
        )
    )
    return Reliability(bins=bins, n_items=total, n_without_share=missing, ece=ece, reason=reason)


class NoiseStats(Record):
    """How consistently the judge grades the same item across its k samples."""

    n_items: int = Field(description="Items with at least two samples.")
    samples_per_item: tuple[int, int] = Field(description="Fewest and most samples on one item.")
    undecided_sample_rate: Estimate = Field(description="Samples that were unsure or errored.")
    mean_pairwise_agreement: Estimate = Field(
        description="Mean share of agreeing pairs of decisive samples of the same item."
    )
    unanimous: Estimate = Field(description="Share of items whose decisive samples all agree.")
    fleiss_kappa: Estimate = Field(description="Samples as raters; needs equal decisive counts.")
    krippendorff_alpha: Estimate = Field(description="Nominal alpha, samples as raters.")
    judge_variance: Estimate = Field(description="Within-item variance of one verdict.")
    agent_variance: Estimate = Field(
        description="Between-run variance within a task group, judge noise removed."
    )
    judge_noise_share: Estimate = Field(
        description="judge variance / (judge + agent variance) of one verdict."
    )


def judge_noise(
    votes: Sequence[ItemVotes],
    *,
    groups: Mapping[str, str | None] | None = None,
    confidence: float = 0.95,
) -> NoiseStats | None:
    """Self-agreement of the judge across samples, and judge vs agent variance (module docstring).

    ``groups`` maps item id to its task group (items of one group are runs of one task). Returns None
    when no item has two or more samples (there is no judge noise to measure).
    """
    multi = [v for v in votes if v.n_samples >= 2]
    if not multi:
        return None
    sizes = [v.n_samples for v in multi]
    n_samples = sum(sizes)
    n_undecided = sum(v.n_samples - v.n_decided for v in multi)
    units = [[x for x in v.verdicts if x in ("pass", "fail")] for v in multi]
    pairable = [u for u in units if len(u) >= 2]
    decisive_sizes = sorted({len(u) for u in pairable})
    within = _within_item(multi)
    judge_var = sum(s2 for _, s2, _ in within.values()) / len(within) if within else None
    agent_var, agent_note = _agent_variance(within, groups)
    return NoiseStats(
        n_items=len(multi),
        samples_per_item=(min(sizes), max(sizes)),
        undecided_sample_rate=proportion(
            n_undecided,
            n_samples,
            what="of samples were unsure or errored",
            empty="no samples",
            confidence=confidence,
        ),
        mean_pairwise_agreement=point(
            percent_agreement(pairable),
            f"mean over {len(pairable)} items of the share of agreeing sample pairs",
            _NO_PAIRABLE_ITEM,
        ),
        unanimous=proportion(
            sum(1 for u in pairable if len(set(u)) == 1),
            len(pairable),
            what="of items have unanimous decisive samples",
            empty=_NO_PAIRABLE_ITEM,
            confidence=confidence,
        ),
        fleiss_kappa=point(
            fleiss_kappa(pairable),
            f"samples as raters over {len(pairable)} items",
            "undefined: items have different numbers of decisive samples "
            f"({', '.join(map(str, decisive_sizes))}) or every sample agrees"
            if pairable
            else _NO_PAIRABLE_ITEM,
        ),
        krippendorff_alpha=point(
            krippendorff_alpha(pairable, "nominal"),
            f"nominal alpha, samples as raters over {len(pairable)} items",
            "undefined: no pairable samples, or every sample is the same verdict",
        ),
        judge_variance=point(
            judge_var,
            f"mean over {len(within)} items of k/(k-1) p(1-p)",
            _NO_PAIRABLE_ITEM,
        ),
        agent_variance=point(agent_var, agent_note, agent_note),
        judge_noise_share=_noise_share(judge_var, agent_var),
    )


def _within_item(multi: Sequence[ItemVotes]) -> dict[str, tuple[float, float, int]]:
    """Item -> (vote share, unbiased within-item variance k/(k-1) p(1-p), k decisive samples)."""
    within: dict[str, tuple[float, float, int]] = {}
    for v in multi:
        k = v.n_decided
        share = v.vote_share
        if k >= 2 and share is not None:
            within[v.item_id] = (share, k / (k - 1) * share * (1 - share), k)
    return within


def _agent_variance(
    within: dict[str, tuple[float, float, int]], groups: Mapping[str, str | None] | None
) -> tuple[float | None, str]:
    """The agent's variance within task groups, net of judge noise, and how it was obtained."""
    if groups is None:
        return None, "undefined: no task groups given"
    by_group: dict[str, list[tuple[float, float, int]]] = {}
    for item_id, entry in within.items():
        group = groups.get(item_id)
        if group is not None:
            by_group.setdefault(group, []).append(entry)
    usable = [entries for entries in by_group.values() if len(entries) >= 2]
    if not usable:
        return None, "undefined: no task group has two or more items with >= 2 decisive samples"
    components: list[float] = []
    for entries in usable:
        shares = [p for p, _, _ in entries]
        mean = sum(shares) / len(shares)
        spread = sum((p - mean) ** 2 for p in shares) / (len(shares) - 1)
        components.append(spread - sum(s2 / k for _, s2, k in entries) / len(entries))
    raw = sum(components) / len(components)
    clipped = " (negative estimate clipped to 0)" if raw < 0 else ""
    note = (
        f"mean over {len(usable)} task groups of the variance of item vote shares minus the "
        f"judge noise it contains: {raw:.4f}{clipped}"
    )
    return max(0.0, raw), note


def _noise_share(judge_var: float | None, agent_var: float | None) -> Estimate:
    """The judge's share of the total variance."""
    if judge_var is None or agent_var is None:
        return undefined("undefined: needs both the judge and the agent variance")
    if judge_var + agent_var <= 0:
        return undefined("undefined: no variance at all (every verdict identical)")
    return Estimate(
        value=judge_var / (judge_var + agent_var),
        method="point",
        reason=f"{judge_var:.4f} / ({judge_var:.4f} + {agent_var:.4f})",
    )
