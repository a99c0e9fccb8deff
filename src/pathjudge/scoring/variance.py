"""Run-to-run variation over epochs: pass@k, pass^k, spread of every number, clustered intervals.

An agent run is a sample, so a suite is run for several epochs and each task's outcomes are counted.
For a task with ``n`` graded epochs of which ``c`` succeeded (unbiased estimators, Chen et al. 2021 for
pass@k; the same counting for pass^k):

- ``pass@k = 1 - C(n-c, k) / C(n, k)`` — the chance that at least one of ``k`` epochs drawn without
  replacement succeeds;
- ``pass^k = C(c, k) / C(n, k)`` — the chance that ALL ``k`` drawn epochs succeed (reliability);
- both are undefined (``None``) when ``n < k``.

The suite value is the mean of the per-task values, and is ``None`` as soon as one task's value is
undefined (averaging over a subset of tasks would silently change what is measured).

Each task is labelled **stable** (every graded epoch succeeded), **broken** (none did), **flaky** (some
did), or **ungraded** (no epoch had a decided success, e.g. a judged criterion not run). A task whose
epochs all agree but number fewer than ``min_epochs`` (by default the largest k asked for) is
**insufficient** instead of stable or broken: one success in one epoch says nothing about stability.
A task seen both succeed and fail is flaky however few its epochs.

Confidence intervals are clustered by task (Miller, "Adding Error Bars to Evals", 2024): epochs of one
task are not independent, so with per-run values ``s_i`` (all runs of all tasks), overall mean ``m`` and
``n`` runs, ``SE = sqrt(sum over tasks t of (sum over runs i in t of (s_i - m))^2) / n``, and the interval
is ``m ± z·SE`` with ``z`` the normal quantile for the level (1.96 at 95%), clipped to [0, 1] for the
success rate. With fewer than two tasks the interval is undefined.

Empty input gives a report with no tasks and every suite value ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from statistics import NormalDist
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from pathjudge._records import FrozenModel

if TYPE_CHECKING:
    from pathjudge.scoring.grade import RunGrade

__all__ = [
    "EpochOutcome",
    "Interval",
    "MetricSpread",
    "Stability",
    "TaskVariance",
    "VarianceReport",
    "clustered_interval",
    "outcomes_from_grades",
    "outcomes_from_pairs",
    "pass_at_k",
    "pass_hat_k",
    "stability_label",
    "variance_report",
]

Stability = Literal["stable", "flaky", "broken", "insufficient", "ungraded"]
STABILITY_LABELS: tuple[Stability, ...] = ("stable", "flaky", "broken", "insufficient", "ungraded")


class EpochOutcome(FrozenModel):
    """One graded run: its task, epoch, whether it succeeded (None: undecided) and its numbers."""

    task_id: str
    epoch: int = 0
    success: bool | None = Field(description="Task success; None when it could not be decided.")
    scores: dict[str, float | None] = Field(
        default_factory=dict, description="Per-run scorecard numbers, e.g. {'path_score': 85.0}."
    )


class Interval(FrozenModel):
    """A mean with a clustered standard error and a two-sided confidence interval."""

    mean: float
    se: float
    low: float
    high: float
    level: float
    clusters: int
    n: int


class MetricSpread(FrozenModel):
    """min / mean / max of one number across a task's epochs (runs where it is None are left out)."""

    n: int
    min: float | None
    mean: float | None
    max: float | None


class TaskVariance(FrozenModel):
    task_id: str
    n: int = Field(description="Graded epochs (success decided).")
    c: int = Field(description="Successful epochs.")
    runs: int = Field(description="All runs of the task, graded or not.")
    stability: Stability
    pass_at: dict[int, float | None] = Field(description="k -> pass@k.")
    pass_hat: dict[int, float | None] = Field(description="k -> pass^k.")
    metrics: dict[str, MetricSpread] = Field(default_factory=dict)


class VarianceReport(FrozenModel):
    ks: tuple[int, ...]
    level: float
    tasks: tuple[TaskVariance, ...]
    pass_at: dict[int, float | None] = Field(
        description="Suite pass@k: mean over tasks, None if any undefined."
    )
    pass_hat: dict[int, float | None] = Field(
        description="Suite pass^k: mean over tasks, None if any undefined."
    )
    success: Interval | None = Field(
        description="Success rate over all graded runs, clustered by task."
    )
    metrics: dict[str, Interval | None] = Field(
        default_factory=dict, description="Clustered CI per number."
    )
    stability_counts: dict[str, int] = Field(default_factory=dict)

    def task(self, task_id: str) -> TaskVariance:
        for task in self.tasks:
            if task.task_id == task_id:
                return task
        raise KeyError(task_id)


def _check(n: int, c: int, k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if n < 0 or c < 0 or c > n:
        raise ValueError(f"need 0 <= c <= n, got n={n}, c={c}")


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """Unbiased pass@k for ``c`` successes in ``n`` epochs; ``None`` when ``n < k``."""
    _check(n, c, k)
    if n < k:
        return None
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float | None:
    """Unbiased pass^k (all of ``k`` draws succeed) = C(c, k) / C(n, k); ``None`` when ``n < k``."""
    _check(n, c, k)
    if n < k:
        return None
    return math.comb(c, k) / math.comb(n, k)


def stability_label(n: int, c: int, min_epochs: int = 1) -> Stability:
    """stable (c == n > 0), broken (c == 0 < n), flaky (0 < c < n), ungraded (n == 0).

    Stable or broken needs at least ``min_epochs`` graded epochs; with fewer it is insufficient.
    """
    if n == 0:
        return "ungraded"
    if 0 < c < n:
        return "flaky"
    if n < min_epochs:
        return "insufficient"
    if c == n:
        return "stable"
    if c == 0:
        return "broken"
    return "flaky"


def clustered_interval(
    values: Sequence[tuple[str, float]],
    *,
    level: float = 0.95,
    bounds: tuple[float, float] | None = None,
) -> Interval | None:
    """Mean of ``(cluster, value)`` pairs with a cluster-robust SE; None with fewer than two clusters.

    ``bounds`` clips the interval to the values' possible range (``(0, 1)`` for a rate).
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    n = len(values)
    clusters: dict[str, float] = {}
    if n == 0:
        return None
    mean = sum(v for _, v in values) / n
    for cluster, value in values:
        clusters[cluster] = clusters.get(cluster, 0.0) + (value - mean)
    if len(clusters) < 2:
        return None
    se = math.sqrt(sum(total * total for total in clusters.values())) / n
    z = NormalDist().inv_cdf(0.5 + level / 2)
    low, high = mean - z * se, mean + z * se
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return Interval(mean=mean, se=se, low=low, high=high, level=level, clusters=len(clusters), n=n)


def _spread(values: list[float]) -> MetricSpread:
    if not values:
        return MetricSpread(n=0, min=None, mean=None, max=None)
    return MetricSpread(
        n=len(values), min=min(values), mean=sum(values) / len(values), max=max(values)
    )


def _suite_mean(values: Iterable[float | None]) -> float | None:
    items = list(values)
    if not items or any(v is None for v in items):
        return None
    return sum(v for v in items if v is not None) / len(items)


def variance_report(
    outcomes: Iterable[EpochOutcome],
    *,
    ks: Sequence[int] = (1,),
    level: float = 0.95,
    task_order: Sequence[str] | None = None,
    min_epochs: int | None = None,
) -> VarianceReport:
    """Per-task and suite pass@k / pass^k, metric spreads, clustered CIs and stability labels.

    ``min_epochs`` (default: the largest of ``ks``) is how many graded epochs a stable or broken
    label needs; a task with fewer is insufficient.

    Tasks appear in ``task_order`` when given (tasks without outcomes are left out), else sorted by id.
    A metric missing from a run (or None) is left out of that metric's numbers.
    """
    ks = tuple(ks)
    if not ks or any(k < 1 for k in ks):
        raise ValueError(f"ks must be positive integers, got {ks}")
    needed = max(ks) if min_epochs is None else min_epochs
    by_task: dict[str, list[EpochOutcome]] = {}
    for outcome in outcomes:
        by_task.setdefault(outcome.task_id, []).append(outcome)
    order = [t for t in task_order if t in by_task] if task_order is not None else sorted(by_task)
    order += sorted(t for t in by_task if t not in set(order))
    metric_names = sorted(
        {name for runs in by_task.values() for run in runs for name in run.scores}
    )
    tasks: list[TaskVariance] = []
    success_values: list[tuple[str, float]] = []
    metric_values: dict[str, list[tuple[str, float]]] = {name: [] for name in metric_names}
    for task_id in order:
        runs = by_task[task_id]
        graded = [run.success for run in runs if run.success is not None]
        n, c = len(graded), sum(graded)
        success_values.extend((task_id, 1.0 if ok else 0.0) for ok in graded)
        metrics: dict[str, MetricSpread] = {}
        for name in metric_names:
            values = [v for run in runs if (v := run.scores.get(name)) is not None]
            metrics[name] = _spread(values)
            metric_values[name].extend((task_id, v) for v in values)
        tasks.append(
            TaskVariance(
                task_id=task_id,
                n=n,
                c=c,
                runs=len(runs),
                stability=stability_label(n, c, needed),
                pass_at={k: pass_at_k(n, c, k) for k in ks},
                pass_hat={k: pass_hat_k(n, c, k) for k in ks},
                metrics=metrics,
            )
        )
    counts = {label: sum(1 for t in tasks if t.stability == label) for label in STABILITY_LABELS}
    return VarianceReport(
        ks=ks,
        level=level,
        tasks=tuple(tasks),
        pass_at={k: _suite_mean(t.pass_at[k] for t in tasks) for k in ks},
        pass_hat={k: _suite_mean(t.pass_hat[k] for t in tasks) for k in ks},
        success=clustered_interval(success_values, level=level, bounds=(0.0, 1.0)),
        metrics={
            name: clustered_interval(values, level=level) for name, values in metric_values.items()
        },
        stability_counts=counts,
    )


def outcomes_from_pairs(pairs: Mapping[str, Sequence[bool | None]]) -> list[EpochOutcome]:
    """Convenience: ``{task_id: [success per epoch]}`` → outcomes (epoch = position)."""
    return [
        EpochOutcome(task_id=task_id, epoch=epoch, success=ok)
        for task_id, results in pairs.items()
        for epoch, ok in enumerate(results)
    ]


def outcomes_from_grades(grades: Iterable[RunGrade]) -> list[EpochOutcome]:
    """Graded runs → outcomes: success (``undecided`` → None) and the per-run scorecard numbers.

    The numbers: ``success_score``, ``tool_calls``, ``trajectory``, ``path_score``, ``steps``,
    ``redundant`` and one ``axis.<name>`` per axis (None where the grade has none).
    """
    out: list[EpochOutcome] = []
    for g in grades:
        scores: dict[str, float | None] = {
            "success_score": g.success_score,
            "tool_calls": g.tool_calls,
            "trajectory": g.trajectory,
            "path_score": None if g.path_score is None else float(g.path_score),
            "steps": float(g.steps),
            "redundant": float(g.redundant),
        }
        scores.update({f"axis.{axis}": value for axis, value in g.axes.items()})
        success = None if g.success == "undecided" else g.success == "pass"
        out.append(EpochOutcome(task_id=g.task_id, epoch=g.epoch, success=success, scores=scores))
    return out
