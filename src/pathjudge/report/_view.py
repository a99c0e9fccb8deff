"""What the HTML and Markdown reports draw: plain, frozen view records.

The renderers read only these records; :mod:`pathjudge.report._adapt` fills them from the versioned JSON
report (and the diff, variance and calibration reports) by copying fields, never by computing new
statistics. Keeping the view separate lets the page layout stay stable while report schemas evolve.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import JsonValue

__all__ = [
    "AxisView",
    "BrokenCheckView",
    "CalibrationView",
    "CheckView",
    "CriterionCalibrationView",
    "DiffRow",
    "DiffView",
    "DisagreementView",
    "GateView",
    "MetricView",
    "ReportView",
    "RunView",
    "SliceView",
    "StepView",
    "TaskView",
    "VarianceRow",
    "VarianceView",
    "VerdictView",
    "WeakPathView",
]


@dataclass(frozen=True, slots=True)
class MetricView:
    """One headline number: a level, the weighted overall, or a calibration statistic."""

    key: str
    label: str
    value: float | None
    detail: str = ""
    low: float | None = None
    high: float | None = None
    digits: int = 2
    certification: str = ""
    """A judged rate's certification label (certified ... / uncertified ...); empty for the others."""


@dataclass(frozen=True, slots=True)
class AxisView:
    """One of the five axes: its suite mean and the weight it carries in the overall score."""

    name: str
    value: float | None
    weight: float | None
    detail: str = ""


@dataclass(frozen=True, slots=True)
class GateView:
    """A ``--fail-under`` threshold and whether the suite met it."""

    metric: str
    threshold: float
    actual: float | None
    passed: bool


@dataclass(frozen=True, slots=True)
class WeakPathView:
    """One entry of the weak-path list: its flags (failed, poor_path, redundant, not_passed,
    wrong_call), reason and path diff."""

    flags: tuple[str, ...]
    task_id: str
    run_id: str | None
    reason: str
    diff: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BrokenCheckView:
    """A check that broke (status ``error``): how many results, the first run it broke on, and why.
    Its runs are undecided, never failed."""

    check: str
    count: int
    example_run: str
    reason: str


@dataclass(frozen=True, slots=True)
class TaskView:
    """One row of the per-task table (numbers as the scorecard reports them)."""

    task_id: str
    runs: int
    success: float | None
    passed: int
    failed: int
    undecided: int
    tool_calls: float | None
    trajectory: float | None
    path_score: float | None
    mean_steps: float | None
    weak: int
    passed_rate: float | None = None
    verdicts: str = ""


@dataclass(frozen=True, slots=True)
class CheckView:
    check: str
    axis: str
    status: str
    score: float | None
    reason: str
    gating: bool


@dataclass(frozen=True, slots=True)
class VerdictView:
    """A judge verdict: the criterion, pass/fail/unsure (or an error state) and the reasoning."""

    criterion: str
    verdict: str
    reasoning: str | None
    step: int | None = None
    detail: str = ""


@dataclass(frozen=True, slots=True)
class StepView:
    turn: int
    tool: str
    decision: str | None
    arguments: JsonValue
    arguments_error: str | None
    raw_arguments: str | None
    result: JsonValue
    is_error: bool
    latency_ms: float | None


@dataclass(frozen=True, slots=True)
class RunView:
    """One graded run: its verdict summary for the list, and the trajectory for the viewer.

    ``success`` is ``pass`` / ``fail`` / ``undecided``; ``steps`` is None when the report carries no
    trajectory for the run (then the viewer shows the grades only).
    """

    run_id: str
    task_id: str
    epoch: int
    success: str
    path_score: float | None
    tool_calls: float | None
    trajectory: float | None
    reason: str
    weak: tuple[str, ...]
    alignment: tuple[str, ...]
    input: JsonValue
    final_answer: str | None
    stop_reason: str | None
    steps: tuple[StepView, ...] | None
    checks: tuple[CheckView, ...]
    verdicts: tuple[VerdictView, ...]
    passed: bool | None = None
    verdict: str = "undecided"
    blockers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DiffRow:
    """One task of the baseline diff: success before and after, its status and its findings."""

    task_id: str
    baseline: float | None
    candidate: float | None
    status: str
    findings: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DiffView:
    """Baseline against candidate: the promote/block verdict, the paired test, per-task rows."""

    baseline_label: str
    candidate_label: str
    verdict: str
    reasons: tuple[str, ...]
    metrics: tuple[MetricView, ...]
    rows: tuple[DiffRow, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class VarianceRow:
    """One task across epochs: graded epochs, successes, stability label, pass@k and pass^k per k."""

    task_id: str
    epochs: int
    successes: int
    runs: int
    stability: str
    pass_at_k: tuple[tuple[int, float | None], ...]
    pass_hat_k: tuple[tuple[int, float | None], ...]


@dataclass(frozen=True, slots=True)
class VarianceView:
    """pass^k per task and for the suite (None: undefined, fewer epochs than k)."""

    ks: tuple[int, ...]
    rows: tuple[VarianceRow, ...]
    suite_pass_hat_k: tuple[tuple[int, float | None], ...]
    suite_pass_at_k: tuple[tuple[int, float | None], ...]
    notes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DisagreementView:
    """One item where the judge's majority verdict differs from the human label."""

    item_id: str
    kind: str
    human: str
    judge: str
    vote_share: float | None
    judge_reasoning: str | None
    human_rationale: str | None


@dataclass(frozen=True, slots=True)
class SliceView:
    """One slice of a criterion's items (``calibrate --slice-by``): its gates, verdict, the labels it
    still needs and its PPI++ corrected success rate."""

    name: str
    status: str
    """trusted, not trusted, or too small (to decide)."""
    n_labelled: int
    why: str
    labels_needed: int | None
    gates: tuple[GateView, ...]
    next_steps: tuple[str, ...]
    ppi: MetricView | None = None


@dataclass(frozen=True, slots=True)
class CriterionCalibrationView:
    """One judged criterion's calibration: statistics, trust decision, plots' data, disagreements."""

    criterion: str
    summary: str
    trusted: bool
    trust_reason: str
    gates: tuple[GateView, ...]
    metrics: tuple[MetricView, ...]
    labels: tuple[str, ...]
    confusion: tuple[tuple[int, ...], ...] | None
    reliability: tuple[tuple[float, float, int], ...] | None
    notes: tuple[str, ...]
    disagreements: tuple[DisagreementView, ...]
    judge: str = ""
    confusions: tuple[
        tuple[str, tuple[str, ...], tuple[str, ...], tuple[tuple[int, ...], ...]], ...
    ] = ()
    """More confusion matrices: (what each shows, row labels, column labels, matrix), e.g. one per
    presentation order of a pairwise judge."""
    ceiling: str = ""
    """Rater-rater agreement beside judge-human kappa (empty: no item has two raters)."""
    slices: tuple[SliceView, ...] = ()
    """Per slice (calibrate --slice-by); empty when not sliced."""


@dataclass(frozen=True, slots=True)
class CalibrationView:
    source: str
    criteria: tuple[CriterionCalibrationView, ...]


@dataclass(frozen=True, slots=True)
class ReportView:
    """Everything one report page shows. Empty tuples mean "nothing to show" for that part."""

    title: str
    subtitle: str
    levels: tuple[MetricView, ...]
    overall: MetricView | None
    secondary: tuple[MetricView, ...]
    axes: tuple[AxisView, ...]
    gates: tuple[GateView, ...]
    weak_paths: tuple[WeakPathView, ...]
    weak_total: int
    tasks: tuple[TaskView, ...]
    runs: tuple[RunView, ...]
    notes: tuple[str, ...] = ()
    diff: DiffView | None = None
    variance: VarianceView | None = None
    calibration: CalibrationView | None = None
    extra: dict[str, str] = field(default_factory=dict)
    has_scorecard: bool = True
    judge: str = ""
    broken_checks: tuple[BrokenCheckView, ...] = ()
    check_errors: int = 0
