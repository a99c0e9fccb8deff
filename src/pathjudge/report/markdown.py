"""A Markdown summary for a CI job summary (GitHub ``$GITHUB_STEP_SUMMARY``, GitLab, ...).

The scorecard table (three levels, the weighted overall, then the secondary numbers such as partial
credit and the mean path score), the five-axis table, the gates and the weak-path list (the first
``max_weak`` entries, then a count of the rest); then, when given, the baseline diff's verdict and
reasons, the variance notes and each judged criterion's calibration verdict. Every piece of text
that came from data (titles, task and run ids, tool names, answers, reasons, judge reasoning) goes
through :func:`pathjudge.report.text.md_cell`: line breaks become spaces, control characters visible
escapes, ``<``, ``>`` and ``&`` HTML entities, and every other Markdown-significant character is
backslash-escaped, so a hostile answer can neither break the table nor form a link, an image
(a CI job summary never fetches a URL from agent text), emphasis, math or HTML.

The renderer computes nothing: every number comes from the view it is given.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pathjudge._io import write_text_atomic
from pathjudge.report._view import CriterionCalibrationView, ReportView
from pathjudge.report.text import md_cell

__all__ = ["md_cell", "render_markdown", "write_markdown", "write_markdown_report"]


def _num(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def render_markdown(view: ReportView, *, max_weak: int = 20) -> str:
    """The Markdown summary of ``view``. No levels renders the table header with no rows."""
    lines = [f"## {md_cell(view.title)}", "", md_cell(view.subtitle), ""]
    if view.judge:
        lines += [f"Judge: {md_cell(view.judge)}", ""]
    if view.has_scorecard:
        lines += ["| metric | value | detail |", "| --- | ---: | --- |"]
        metrics = [
            *view.levels,
            *([view.overall] if view.overall is not None else []),
            *view.secondary,
        ]
        for metric in metrics:
            value = _num(metric.value, metric.digits)
            detail = "; ".join(d for d in (metric.detail, metric.certification) if d)
            lines.append(f"| {md_cell(metric.label)} | {value} | {md_cell(detail)} |")
        lines.append("")
        if view.axes:
            lines += ["| axis | mean | weight |", "| --- | ---: | ---: |"]
            for axis in view.axes:
                lines.append(
                    f"| {md_cell(axis.name.replace('_', ' '))} | {_num(axis.value)} | {_num(axis.weight)} |"
                )
            lines.append("")
        if view.gates:
            lines.append("**Gates**")
            lines.append("")
            for gate in view.gates:
                mark = "✅" if gate.passed else "❌"
                relation = "≥" if gate.passed else "<"
                verdict = "met" if gate.passed else "missed"
                lines.append(
                    f"- {mark} {md_cell(gate.metric)}: {_num(gate.actual)} {relation} {_num(gate.threshold)} ({verdict})"
                )
            lines.append("")
        shown = min(len(view.weak_paths), max_weak)
        if view.weak_total > shown:
            lines.append(f"**Weak paths**: showing {shown} of {view.weak_total}")
        else:
            lines.append(f"**Weak paths** ({view.weak_total})")
        lines.append("")
        if not view.weak_paths:
            lines.append("None: every run succeeded by a reference path with no redundant call.")
        else:
            lines += ["| flags | task | run | reason |", "| --- | --- | --- | --- |"]
            for weak in view.weak_paths[:max_weak]:
                flags = ", ".join(flag.replace("_", " ") for flag in weak.flags)
                lines.append(
                    f"| {md_cell(flags)} | {md_cell(weak.task_id)} | "
                    f"{md_cell(weak.run_id or '—')} | {md_cell(weak.reason)} |"
                )
            if view.weak_total > shown:
                lines += [
                    "",
                    f"… and {view.weak_total - shown} more (see the HTML or JSON report, or "
                    "`pathjudge score --grades FILE` for every run).",
                ]
        lines.append("")
        if view.broken_checks:
            lines += _broken_checks(view)
    if view.diff is not None:
        mark = "✅" if view.diff.verdict == "promote" else "❌"
        lines += [f"**Baseline diff**: {mark} {md_cell(view.diff.verdict)}", ""]
        lines += [f"- {md_cell(reason)}" for reason in view.diff.reasons]
        lines.append("")
    if view.variance is not None:
        lines += ["**Variance across epochs**", ""]
        lines += [f"- {md_cell(note)}" for note in view.variance.notes] or ["- no graded epochs"]
        lines.append("")
    if view.calibration is not None:
        for crit in view.calibration.criteria:
            failing = sum(one.status == "not trusted" for one in crit.slices)
            trust = "✅ trusted" if crit.trusted else "❌ not trusted"
            if crit.trusted and failing:  # calibrate exits 1: the headline must not read green
                trust = f"❌ trusted overall, {failing} slice(s) not trusted"
            lines.append(
                f"**Judge calibration, {md_cell(crit.criterion)}**: {trust}: {md_cell(crit.trust_reason)}"
            )
            if crit.judge:
                lines.append(f"- judge: {md_cell(crit.judge)}")
            if crit.ceiling:
                lines.append(f"- human ceiling: {md_cell(crit.ceiling)}")
            lines += _slice_lines(crit)
        lines.append("")
    return "\n".join(lines)


def _slice_lines(crit: CriterionCalibrationView) -> list[str]:
    """The slice counts, then each slice that fails its gates or is too small to decide."""
    if not crit.slices:
        return []
    failing = [one for one in crit.slices if one.status == "not trusted"]
    small = [one for one in crit.slices if one.status == "too small"]
    lines = [
        f"- slices: {len(failing)} not trusted, {len(small)} too small to decide "
        f"(of {len(crit.slices)})"
    ]
    for one in failing:
        need = f"; about {one.labels_needed} more labels" if one.labels_needed else ""
        lines.append(f"- slice not trusted: {md_cell(one.name)}: {md_cell(one.why)}{need}")
    lines += [
        f"- slice too small to decide: {md_cell(one.name)}: {md_cell(one.why)}" for one in small
    ]
    return lines


def _broken_checks(view: ReportView) -> list[str]:
    """The checks that broke (status ``error``): their runs are undecided, never failed."""
    lines = [
        f"**Checks that broke** ({view.check_errors}): their runs are undecided, not failed",
        "",
        "| check | results | first run | reason |",
        "| --- | ---: | --- | --- |",
    ]
    for broken in view.broken_checks:
        lines.append(
            f"| {md_cell(broken.check)} | {broken.count} | {md_cell(broken.example_run)} | "
            f"{md_cell(broken.reason)} |"
        )
    lines.append("")
    return lines


def write_markdown(view: ReportView, path: Path, *, max_weak: int = 20) -> Path:
    """Write :func:`render_markdown` to ``path`` atomically (UTF-8) and return ``path``."""
    return write_text_atomic(path, render_markdown(view, max_weak=max_weak))


def write_markdown_report(
    results: Any | None,
    path: Path,
    *,
    baseline: Any | None = None,
    variance: Any | None = None,
    calibration: Any | None = None,
    max_weak: int = 20,
) -> Path:
    """Write the Markdown summary of a ``pathjudge score`` report (object, JSON mapping or JSON file).

    ``baseline`` (a diff report) adds the promote/block verdict and its reasons; ``variance`` and
    ``calibration`` are accepted for symmetry with the HTML report and summarised briefly
    (the variance notes; one line per calibrated criterion).
    """
    from pathjudge.report._adapt import build_view

    view = build_view(results, baseline=baseline, variance=variance, calibration=calibration)
    return write_markdown(view, path, max_weak=max_weak)
