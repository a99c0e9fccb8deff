"""Fill the report views from pathjudge's report objects (or their JSON): copying, never computing.

Each function accepts the Pydantic report model or its JSON form (a mapping, as read back from a file);
the mapping is validated by the model first, so a malformed file is an :class:`~pathjudge.errors.InputError`
naming the file and field rather than a half-drawn page.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from pathjudge import _json as strict_json
from pathjudge._io import validate_document
from pathjudge.errors import InputError
from pathjudge.report._view import (
    AxisView,
    BrokenCheckView,
    CalibrationView,
    CheckView,
    CriterionCalibrationView,
    DiffRow,
    DiffView,
    DisagreementView,
    GateView,
    MetricView,
    ReportView,
    RunView,
    SliceView,
    StepView,
    TaskView,
    VarianceRow,
    VarianceView,
    VerdictView,
    WeakPathView,
)
from pathjudge.report.text import count_and_first
from pathjudge.rubrics.assertions.base import AXES

if TYPE_CHECKING:
    from pathjudge.agent.trajectory import RunRecord
    from pathjudge.calibration.agreement import TrustDecision
    from pathjudge.calibration.calibrate import CriterionCalibration
    from pathjudge.calibration.estimate import Estimate
    from pathjudge.calibration.slices import SliceCalibration
    from pathjudge.scoring.grade import RunGrade
    from pathjudge.scoring.pipeline import ScoreReport
    from pathjudge.scoring.scorecard import Scorecard, TaskRow

__all__ = [
    "calibration_view",
    "diff_view",
    "load_json",
    "load_model",
    "pairwise_view",
    "report_view",
    "variance_view",
]

M = TypeVar("M", bound=BaseModel)


def load_json(path: Path, what: str) -> Any:
    """Parse the JSON file at ``path``; a missing or malformed file is one :class:`InputError`."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{what} file not found", file=path, hint="check the path") from None
    except OSError as exc:
        raise InputError(f"cannot read the {what} file: {exc.strerror}", file=path) from None
    except UnicodeDecodeError as exc:
        raise InputError(
            f"the {what} file is not valid UTF-8 (byte at offset {exc.start})",
            file=path,
            hint="re-encode the file as UTF-8",
        ) from None
    try:
        return strict_json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"the {what} file is not valid JSON ({exc.msg}, column {exc.colno})",
            file=path,
            line=exc.lineno,
            hint=f"pass the JSON file pathjudge wrote for the {what}",
        ) from None


def load_model(
    model: type[M], value: M | Mapping[str, Any], *, source: str | Path | None, what: str
) -> M:
    """``value`` as ``model``: returned as is when already one, else validated from its JSON form."""
    if isinstance(value, model):
        return value
    return validate_document(
        model,
        value,
        file=source,
        what=what,
        hint=f"pass the JSON file pathjudge wrote for the {what}",
    )


def _step_views(run: RunRecord) -> tuple[StepView, ...]:
    return tuple(
        StepView(
            turn=step.turn,
            tool=step.tool,
            decision=step.decision,
            arguments=step.arguments,
            arguments_error=step.arguments_error,
            raw_arguments=step.raw_arguments,
            result=step.result,
            is_error=step.is_error,
            latency_ms=step.latency_ms,
        )
        for step in run.steps
    )


def _run_view(grade: RunGrade | None, record: RunRecord | None) -> RunView:
    if grade is None and record is None:
        raise ValueError("a run view needs a grade or a run record")
    run_id = grade.run_id if grade is not None else record.run_id  # type: ignore[union-attr]
    task_id = grade.task_id if grade is not None else record.task_id  # type: ignore[union-attr]
    epoch = grade.epoch if grade is not None else record.epoch  # type: ignore[union-attr]
    alignment: tuple[str, ...] = ()
    if grade is not None and grade.path is not None:
        alignment = (grade.path.reason, *grade.path.diff_lines())
    return RunView(
        run_id=run_id,
        task_id=task_id,
        epoch=epoch,
        success=grade.success if grade is not None else "not graded",
        path_score=float(grade.path_score)
        if grade is not None and grade.path_score is not None
        else None,
        tool_calls=grade.tool_calls if grade is not None else None,
        trajectory=grade.trajectory if grade is not None else None,
        reason=grade.reason if grade is not None else "this run has no grade in the report",
        passed=grade.passed if grade is not None else None,
        verdict=grade.verdict if grade is not None else "not graded",
        blockers=grade.blockers if grade is not None else (),
        weak=tuple(grade.weak) if grade is not None else (),
        alignment=alignment,
        input=record.input if record is not None else None,
        final_answer=record.final_answer if record is not None else None,
        stop_reason=record.stop_reason if record is not None else None,
        steps=_step_views(record) if record is not None else None,
        checks=tuple(
            CheckView(c.check, c.axis, c.status, c.score, c.reason, c.gating) for c in grade.checks
        )
        if grade is not None
        else (),
        verdicts=tuple(
            VerdictView(
                criterion=j.criterion,
                verdict=j.status,
                reasoning=j.reasoning or None,
                detail=j.item_id,
            )
            for j in grade.judged
        )
        if grade is not None
        else (),
    )


def _weights_text(weights: Mapping[Any, float]) -> str:
    return ", ".join(f"{key} {value:g}" for key, value in weights.items() if value > 0) or "none"


def report_view(
    report: ScoreReport | Mapping[str, Any],
    *,
    runs: Iterable[RunRecord] | None = None,
    diff: DiffView | None = None,
    source: str | Path | None = None,
) -> ReportView:
    """The page's view of a ``pathjudge score`` report, plus the optional sections.

    ``runs`` (the run records that were graded) adds each run's trajectory to the viewer; runs the
    report has no grade for are listed as "not graded". Without per-run grades in the report and without
    runs the viewer is empty and says so.
    """
    from pathjudge.scoring.pipeline import ScoreReport

    model = load_model(ScoreReport, report, source=source, what="score report")
    card = model.scorecard
    judge_text = "; ".join(j.describe() for j in model.judges)
    return ReportView(
        judge=judge_text,
        title=f"pathjudge report — {card.suite}",
        subtitle=_score_subtitle(model),
        levels=_level_metrics(card),
        overall=MetricView(
            "overall", "Weighted overall", card.overall, f"weights: {_weights_text(card.weights)}"
        ),
        secondary=_secondary_metrics(card, {c.criterion: c.label for c in model.certifications}),
        axes=tuple(
            AxisView(axis, card.axes.get(axis), card.weights.get(axis))
            for axis in AXES
            if axis in card.axes
        ),
        gates=tuple(GateView(g.metric, g.threshold, g.actual, g.passed) for g in model.gates),
        weak_paths=tuple(
            WeakPathView(w.flags, w.task_id, w.run_id, w.reason, w.diff) for w in card.weak
        ),
        weak_total=card.weak_total,
        broken_checks=tuple(
            BrokenCheckView(b.check, b.count, b.example_run, b.reason) for b in card.broken_checks
        ),
        check_errors=card.check_errors,
        tasks=tuple(_task_view(row) for row in card.task_rows),
        runs=_run_views(model.runs, runs),
        notes=_score_notes(model, judge_text),
        diff=diff,
        extra={"report schema": f"{model.kind} v{model.schema_version}"},
    )


def _run_views(
    grades: Iterable[RunGrade] | None, runs: Iterable[RunRecord] | None
) -> tuple[RunView, ...]:
    """Each graded run (with its trajectory when ``runs`` has it), then the runs not graded."""
    records: dict[str, RunRecord] = {}
    order: list[str] = []
    for record in runs or ():
        if record.run_id not in records:
            order.append(record.run_id)
        records[record.run_id] = record
    views: list[RunView] = []
    graded: set[str] = set()
    for grade in grades or ():
        graded.add(grade.run_id)
        views.append(_run_view(grade, records.get(grade.run_id)))
    views.extend(_run_view(None, records[run_id]) for run_id in order if run_id not in graded)
    return tuple(views)


def _level_metrics(card: Scorecard) -> tuple[MetricView, ...]:
    """The three levels: task success, tool-call correctness, trajectory quality."""
    return (
        MetricView(
            "success",
            "Task success",
            card.success_rate,
            f"{card.success_passed} passed, {card.success_failed} failed, {card.success_undecided} undecided",
        ),
        MetricView(
            "tool_calls",
            "Tool-call correctness",
            card.tool_calls,
            "mean over runs with tool checks",
        ),
        MetricView(
            "trajectory",
            "Trajectory quality",
            card.trajectory,
            "share of runs on a reference path with no redundant call",
        ),
    )


def _secondary_metrics(card: Scorecard, certified: Mapping[str, str]) -> tuple[MetricView, ...]:
    """The other numbers of the scorecard, then one per judged criterion with its certification
    label (``certified`` by criterion; a report without one for a judged rate says uncertified)."""
    secondary = [
        MetricView(
            "passed",
            "Runs passed (one verdict)",
            card.passed_rate,
            f"{card.verdict_passed} passed, {card.verdict_failed} failed, "
            f"{card.verdict_undecided} undecided ({card.verdict_excluded} excluded)",
        ),
        MetricView(
            "partial", "Partial credit", card.partial_credit, "mean success score of decided runs"
        ),
        MetricView("path", "Mean path score", card.path_score, "0–100", digits=1),
        MetricView(
            "surfaced", "Relevant result surfaced", card.surfaced, "share of runs with surface ids"
        ),
        MetricView(
            "check_errors", "Checks that broke", float(card.check_errors), "status error", digits=0
        ),
    ]
    secondary.extend(
        MetricView(
            f"judged:{j.criterion}",
            f"Judged: {j.criterion}",
            j.pass_rate,
            f"{j.passed} pass, {j.failed} fail, {j.unsure} unsure, {j.error} error, {j.not_run} not run",
            certification=certified.get(j.criterion, "uncertified (no certificate)"),
        )
        for j in card.judged
    )
    return tuple(secondary)


def _score_notes(model: ScoreReport, judge_text: str) -> tuple[str, ...]:
    """What the reader must know to read the numbers: no judge, the judge, missing runs or grades."""
    notes: list[str] = []
    if model.fast:
        notes.append("Fast mode: judged criteria were not run and count as neither pass nor fail.")
    elif model.judge == "none":
        notes.append(
            "No judge configured: judged criteria were not run and count as neither pass nor fail."
        )
    if judge_text:
        notes.append(f"Judge: {judge_text}.")
    if model.scorecard.tasks_without_runs:
        notes.append(f"Tasks with no runs: {count_and_first(model.scorecard.tasks_without_runs)}.")
    if model.runs is None:
        notes.append(
            "The report holds no per-run grades, so no run below shows its grade: rerun `pathjudge "
            "score ... --json FILE --include-runs`, or pass `pathjudge report --grades` the file of "
            "`pathjudge score --grades`."
        )
    return tuple(notes)


def _score_subtitle(model: ScoreReport) -> str:
    card = model.scorecard
    gates = ("gates passed" if model.passed else "gates missed") if model.gates else ""
    return " · ".join(
        part
        for part in (
            f"{card.runs} runs",
            f"{card.tasks} tasks",
            f"suite {model.suite_file}" if model.suite_file else "",
            f"runs {model.runs_file}" if model.runs_file else "",
            gates,
        )
        if part
    )


def _task_view(row: TaskRow) -> TaskView:
    return TaskView(
        task_id=row.task_id,
        runs=row.runs,
        success=row.success_rate,
        passed=row.passed,
        failed=row.failed,
        undecided=row.undecided,
        tool_calls=row.tool_calls,
        trajectory=row.trajectory,
        path_score=row.path_score,
        mean_steps=row.mean_steps,
        weak=row.weak,
        passed_rate=row.passed_rate,
        verdicts=f"{row.verdict_passed} / {row.verdict_failed} / {row.verdict_excluded}",
    )


def _points(
    values: Mapping[int, float | None], ks: tuple[int, ...]
) -> tuple[tuple[int, float | None], ...]:
    return tuple((k, values.get(k)) for k in ks)


def variance_view(report: Any, *, source: str | Path | None = None) -> VarianceView:
    """The variance section from a :class:`~pathjudge.scoring.variance.VarianceReport` (or its JSON)."""
    from pathjudge.scoring.variance import VarianceReport

    model = load_model(VarianceReport, report, source=source, what="variance report")
    rows = tuple(
        VarianceRow(
            task_id=task.task_id,
            epochs=task.n,
            successes=task.c,
            runs=task.runs,
            stability=task.stability,
            pass_at_k=_points(task.pass_at, model.ks),
            pass_hat_k=_points(task.pass_hat, model.ks),
        )
        for task in model.tasks
    )
    notes: list[str] = []
    if model.success is not None:
        interval = model.success
        notes.append(
            f"Success rate {interval.mean:.2f} [{interval.low:.2f}, {interval.high:.2f}] at "
            f"{interval.level:.0%}, clustered by task ({interval.n} graded runs, {interval.clusters} tasks)."
        )
    if model.stability_counts:
        notes.append(
            "Tasks: "
            + ", ".join(f"{n} {label}" for label, n in model.stability_counts.items())
            + "."
        )
    return VarianceView(
        ks=model.ks,
        rows=rows,
        suite_pass_hat_k=_points(model.pass_hat, model.ks),
        suite_pass_at_k=_points(model.pass_at, model.ks),
        notes=tuple(notes),
    )


def _estimate(key: str, label: str, estimate: Estimate) -> MetricView:
    return MetricView(
        key=key,
        label=label,
        value=estimate.value,
        detail=estimate.reason,
        low=estimate.lower,
        high=estimate.upper,
    )


def _with_evidence(reasoning: str | None, d: Any) -> str | None:
    """The judge's reasoning followed by the quotes it cited (marked when not found)."""
    if not d.judge_evidence:
        return reasoning
    mark = {True: " (found)", False: " (NOT found in the judged inputs)", None: ""}
    quotes = "; ".join(f"“{q}”" for q in d.judge_evidence)
    return f"{reasoning or ''}\nEvidence{mark[d.evidence_verified]}: {quotes}".strip()


def _judge_errors(count: int) -> str:
    if not count:
        return ""
    return f" ({count} of them {'a judge error' if count == 1 else 'judge errors'})"


def _samples_per_item(low: int, high: int) -> str:
    if low == high:
        return f"{low} sample{'' if low == 1 else 's'} per item"
    return f"{low} to {high} samples per item"


def calibration_view(report: Any, *, source: str | Path | None = None) -> CalibrationView:
    """The calibration section from a :class:`~pathjudge.calibration.calibrate.CalibrationReport` (or JSON)."""
    from pathjudge.calibration.calibrate import CalibrationReport

    model = load_model(CalibrationReport, report, source=source, what="calibration report")
    source_text = f"labels {model.labels_file or '—'} · verdicts {model.verdicts_file or '—'}"
    return CalibrationView(
        source=source_text, criteria=tuple(_criterion_view(crit) for crit in model.criteria)
    )


def _criterion_view(crit: CriterionCalibration) -> CriterionCalibrationView:
    a = crit.agreement
    split = f", split {crit.split}" if crit.split else ""
    return CriterionCalibrationView(
        criterion=crit.criterion or "(unnamed criterion)",
        summary=(
            f"{crit.n_labelled} labelled items{split}: {a.n_decided} decided, "
            f"{a.n_unsure} unsure{_judge_errors(crit.n_judge_errors)}; "
            f"{_samples_per_item(*crit.samples_per_item)}."
        ),
        trusted=crit.trust.trusted,
        trust_reason=crit.trust.reason,
        gates=_gate_views(crit.trust),
        metrics=_criterion_metrics(crit),
        labels=tuple(a.confusion.labels),
        confusion=tuple(tuple(row) for row in a.confusion.matrix),
        reliability=tuple(crit.reliability.points) or None,
        notes=_criterion_notes(crit),
        disagreements=tuple(
            DisagreementView(
                item_id=d.item_id,
                kind=d.kind,
                human=d.human,
                judge=d.judge,
                vote_share=d.vote_share,
                judge_reasoning=_with_evidence(d.judge_reasoning, d),
                human_rationale=d.human_rationale,
            )
            for d in crit.disagreements
        ),
        judge="; ".join(j.describe() for j in crit.judges),
        ceiling=crit.ceiling if crit.rater_agreement is not None else "",
        slices=tuple(_slice_view(one) for one in crit.slices),
    )


def _gate_views(trust: TrustDecision) -> tuple[GateView, ...]:
    return tuple(GateView(g.name, g.threshold, g.bound, g.passed) for g in trust.gates)


def _slice_view(one: SliceCalibration) -> SliceView:
    """One slice's row: its gates on their bounds, verdict, labels still needed and PPI++ rate."""
    ppi = None
    if one.ppi is not None:
        ppi = _estimate("ppi", "Corrected success rate (PPI++)", one.ppi.estimate)
    return SliceView(
        name=one.name,
        status=one.status,
        n_labelled=one.n_labelled,
        why=one.why,
        labels_needed=one.labels_needed,
        gates=_gate_views(one.trust),
        next_steps=one.next_steps if one.status != "trusted" else (),
        ppi=ppi,
    )


def _criterion_metrics(crit: CriterionCalibration) -> tuple[MetricView, ...]:
    """The agreement numbers, then evidence, human-human, self-agreement and PPI++ where present."""
    a = crit.agreement
    # the gated forms lead (every labelled item, unsure counted as wrong); the decided-only
    # forms, which an abstaining judge can make look perfect, follow and say so
    metrics = [
        _estimate("tpr_unsure", "TPR, unsure counts as wrong (gated)", a.tpr_unsure_as_wrong),
        _estimate("tnr_unsure", "TNR, unsure counts as wrong (gated)", a.tnr_unsure_as_wrong),
        _estimate(
            "kappa_unsure",
            "Cohen's kappa, unsure counts as wrong (gated)",
            a.kappa_unsure_as_wrong,
        ),
        _estimate("unsure_rate", "Unsure rate (gated)", a.unsure_rate),
        _estimate("accuracy", "Accuracy, decided items only", a.accuracy),
        _estimate("kappa", "Cohen's kappa, decided items only", a.kappa),
        _estimate("tpr", "TPR (pass recall), decided items only", a.tpr),
        _estimate("tnr", "TNR (fail recall), decided items only", a.tnr),
        _estimate("judge_pass_rate", "Judge pass rate, decided items only", a.judge_pass_rate),
        _estimate("prevalence", "Human pass rate", a.prevalence),
    ]
    if crit.evidence is not None:
        metrics.append(
            _estimate(
                "accuracy_unverified",
                "Agreement where a quote was not found",
                crit.evidence.accuracy_unverified,
            )
        )
    if crit.inter_annotator is not None:
        ia = crit.inter_annotator
        metrics.append(_estimate("human_agreement", "Human-human agreement", ia.percent_agreement))
        metrics.append(_estimate("human_fleiss", "Human-human Fleiss kappa", ia.fleiss_kappa))
    if crit.rater_agreement is not None:
        ra = crit.rater_agreement
        statistic = "Cohen's kappa" if ra.statistic == "cohen_kappa" else "Krippendorff's alpha"
        metrics.append(
            _estimate("rater_ceiling", f"Rater-rater {statistic} (human ceiling)", ra.value)
        )
    if crit.noise is not None:
        metrics.append(
            _estimate(
                "self_agreement",
                "Judge self-agreement (samples)",
                crit.noise.mean_pairwise_agreement,
            )
        )
    if crit.ppi is not None:
        metrics.append(_estimate("ppi", "Corrected success rate (PPI++)", crit.ppi.estimate))
        metrics.append(_estimate("naive", "Naive judge success rate", crit.ppi.naive_judge_rate))
        metrics.append(_estimate("humans_only", "Humans-only success rate", crit.ppi.humans_only))
    return tuple(metrics)


def _criterion_notes(crit: CriterionCalibration) -> tuple[str, ...]:
    """The ceiling, reliability, evidence, next steps and calibration error, as sentences."""
    notes = [crit.ceiling, crit.reliability.reason, *crit.notes]
    if crit.evidence is not None:
        ev = crit.evidence
        notes.append(
            f"Evidence: {ev.n_unverified} of {ev.n_checked} items cite a quote not found in "
            "the judged inputs" + (" (counted as unsure)." if ev.treated_as_unsure else ".")
        )
    notes += [f"Next step: {step}" for step in crit.next_steps]
    if crit.reliability.ece is not None:
        over = (
            f" over the {crit.reliability.n_items} decided items only"
            if crit.reliability.n_without_share
            else ""
        )
        notes.append(
            f"Expected calibration error of the vote share{over}: {crit.reliability.ece:.3f}."
        )
    return tuple(note for note in notes if note)


_PAIRWISE_METRICS = (
    ("position_consistent_accuracy", "Position-consistent accuracy"),
    ("accuracy_ab", "Accuracy, A shown first"),
    ("accuracy_ba", "Accuracy, B shown first"),
    ("accuracy_averaged", "Accuracy, both orders averaged"),
    ("both_correct", "Right in both orders"),
    ("consistency", "Same answer in both orders"),
    ("bias_first_slot", "First slot won both orders"),
    ("bias_second_slot", "Second slot won both orders"),
    ("bias_other", "Other (a tie once, or unsure)"),
    ("first_slot_rate", "First-slot rate (0.5 = no position bias)"),
    ("kappa_ab", "Cohen's kappa, A shown first"),
    ("kappa_ba", "Cohen's kappa, B shown first"),
    ("kappa_mean", "Cohen's kappa, mean of both orders"),
    ("kappa_between_orders", "Cohen's kappa between the orders"),
)


def pairwise_view(report: Any, *, source: str | Path | None = None) -> CalibrationView:
    """The calibration section from a :class:`~pathjudge.calibration.pairwise.PairwiseReport`."""
    from pathjudge.calibration.pairwise import PairwiseReport

    model = load_model(PairwiseReport, report, source=source, what="pairwise report")
    stats = model.stats
    policy = {"wrong": "counted as wrong", "tie": "read as a tie", "drop": "left out"}
    trust = model.trust
    crit = CriterionCalibrationView(
        criterion="pairwise judge, both orders",
        summary=(
            f"{stats.n_items} items, {stats.n_decided} evaluated, {stats.n_unsure} with an unsure "
            f"answer ({policy[stats.unsure_as]})."
        ),
        trusted=model.trusted,
        trust_reason=trust.reason if trust is not None else "no trust decision in this report",
        gates=_gate_views(trust) if trust is not None else (),
        metrics=tuple(
            _estimate(key, label, getattr(stats, key)) for key, label in _PAIRWISE_METRICS
        ),
        labels=tuple(model.confusion_rows),
        confusion=None,
        reliability=None,
        notes=tuple(model.notes),
        disagreements=(),
        judge=", ".join(model.judges),
        confusions=tuple(
            (shown, tuple(model.confusion_rows), tuple(model.confusion_columns), matrix)
            for shown, matrix in (
                ("A shown first", model.confusion_ab),
                ("B shown first", model.confusion_ba),
            )
            if matrix
        ),
    )
    source_text = f"preferences {model.labels_file} · verdicts {model.verdicts_file}"
    return CalibrationView(source=source_text, criteria=(crit,))


def diff_view(
    report: Any,
    *,
    source: str | Path | None = None,
    baseline_label: str = "baseline",
    candidate_label: str = "candidate",
) -> DiffView:
    """The baseline-diff section from a :class:`~pathjudge.scoring.diff.DiffReport` (or its JSON)."""
    from pathjudge.scoring.diff import DiffReport

    model = load_model(DiffReport, report, source=source, what="diff report")
    test = model.test
    metrics = [
        MetricView(
            "mcnemar_p",
            "McNemar exact p",
            test.mcnemar_p,
            f"{test.worse} tasks worse, {test.better} better",
        ),
        MetricView(
            "mean_delta",
            "Mean success change",
            test.mean_delta,
            f"paired bootstrap over {test.tasks} tasks",
            low=test.bootstrap_low,
            high=test.bootstrap_high,
        ),
        MetricView("tokens_before", "Tokens, baseline", float(model.tokens_before), "", digits=0),
        MetricView("tokens_after", "Tokens, candidate", float(model.tokens_after), "", digits=0),
    ]
    notes: list[str] = []
    if test.bootstrap_low is not None and test.bootstrap_high is not None:
        notes.append(
            f"Paired bootstrap ({test.resamples} resamples, seed {test.seed}): mean change "
            f"{_fmt(test.mean_delta)} [{test.bootstrap_low:+.2f}, {test.bootstrap_high:+.2f}] at {test.level:.0%}; "
            + ("significantly worse." if test.significantly_worse else "not significantly worse.")
        )
    notes.extend(finding.what for finding in model.suite_findings)
    rows = []
    for task in model.tasks:
        status = "regression" if task.regressed else ("changed" if task.changed else "unchanged")
        if (
            task.changed
            and not task.regressed
            and all(f.kind == "improvement" for f in task.findings)
        ):
            status = "improvement"
        findings = tuple(f"{f.kind}: {f.what}" for f in task.findings)
        if task.baseline_only:
            findings += (
                f"epochs with no candidate run: {', '.join(map(str, task.baseline_only))}",
            )
        if task.candidate_only:
            findings += (
                f"epochs with no baseline run: {', '.join(map(str, task.candidate_only))}",
            )
        rows.append(
            DiffRow(task.task_id, task.success_before, task.success_after, status, findings)
        )
    return DiffView(
        baseline_label=baseline_label,
        candidate_label=candidate_label,
        verdict=model.verdict,
        reasons=model.reasons,
        metrics=tuple(metrics),
        rows=tuple(rows),
        notes=tuple(notes),
    )


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:+.2f}"


def _json_or_value(value: Any, what: str) -> tuple[Any, str | None]:
    """A path is read as JSON (and named as the source of errors); anything else passes through."""
    if isinstance(value, (str, Path)):
        return load_json(Path(value), what), str(value)
    return value, None


def build_view(
    results: Any | None,
    *,
    runs: Iterable[RunRecord] | str | Path | None = None,
    baseline: Any | None = None,
    variance: Any | None = None,
    calibration: Any | None = None,
    pairwise: Any | None = None,
) -> ReportView:
    """The whole page's view from the report objects, their JSON (mappings) or their JSON files.

    ``results``: the ``pathjudge score`` report; ``runs``: the graded run records or their JSONL file
    (adds trajectories to the viewer); ``baseline``: the diff report against a baseline
    (:class:`~pathjudge.scoring.diff.DiffReport`, or an already built :class:`DiffView`); ``variance``: a
    :class:`~pathjudge.scoring.variance.VarianceReport`; ``calibration``: a
    :class:`~pathjudge.calibration.calibrate.CalibrationReport`. Each optional part left as None leaves
    its section out. ``pairwise``: a :class:`~pathjudge.calibration.pairwise.PairwiseReport`, shown
    in the calibration section. ``results=None`` gives a page of the optional sections only (no
    scorecard).
    """
    if results is None:
        return replace(
            _optional_only(),
            diff=_diff_part(baseline),
            variance=_variance_part(variance),
            calibration=_calibration_part(calibration, pairwise),
        )
    report, report_source = _json_or_value(results, "score report")
    records: Iterable[RunRecord] | None
    if isinstance(runs, (str, Path)):
        from pathjudge.agent.io import read_runs

        records = read_runs(Path(runs))
    else:
        records = runs
    view = report_view(report, runs=records, diff=_diff_part(baseline), source=report_source)
    return replace(
        view,
        variance=_variance_part(variance),
        calibration=_calibration_part(calibration, pairwise),
    )


def _optional_only() -> ReportView:
    return ReportView(
        title="pathjudge report",
        subtitle="",
        levels=(),
        overall=None,
        secondary=(),
        axes=(),
        gates=(),
        weak_paths=(),
        weak_total=0,
        tasks=(),
        runs=(),
        has_scorecard=False,
    )


_V = TypeVar("_V")


def _part(given: Any | None, what: str, view: Callable[..., _V]) -> _V | None:
    """An optional section: None stays None; a path or a report (or its JSON) goes through ``view``."""
    if given is None:
        return None
    value, source = _json_or_value(given, what)
    return view(value, source=source)


def _diff_part(baseline: Any | None) -> DiffView | None:
    if isinstance(baseline, DiffView):
        return baseline
    return _part(baseline, "diff report", diff_view)


def _variance_part(variance: Any | None) -> VarianceView | None:
    return _part(variance, "variance report", variance_view)


def _calibration_or_pairwise_view(
    report: Any, *, source: str | Path | None = None
) -> CalibrationView:
    """``calibrate --json`` output of either mode: a pairwise report says so in its ``kind``."""
    if isinstance(report, Mapping) and report.get("kind") == "pathjudge.pairwise":
        return pairwise_view(report, source=source)
    from pathjudge.calibration.pairwise import PairwiseReport

    if isinstance(report, PairwiseReport):
        return pairwise_view(report, source=source)
    return calibration_view(report, source=source)


def _calibration_part(
    calibration: Any | None, pairwise: Any | None = None
) -> CalibrationView | None:
    views = [
        view
        for view in (
            _part(calibration, "calibration report", _calibration_or_pairwise_view),
            _part(pairwise, "pairwise report", pairwise_view),
        )
        if view is not None
    ]
    if len(views) < 2:
        return views[0] if views else None
    return CalibrationView(
        source=" | ".join(v.source for v in views),
        criteria=tuple(c for v in views for c in v.criteria),
    )
