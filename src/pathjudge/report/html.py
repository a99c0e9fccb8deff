"""The self-contained HTML report: one file that opens offline and can be shared as is.

Sections: the scorecard (three levels, five axes, weighted overall, gates), the weak-path list, a per-task
table that filters (text box) and sorts (click a header), a trajectory viewer (each step's decision, tool,
arguments, result and error, the checks and any judge verdict with its reasoning; expand a run to see it),
the baseline diff, the variance section (pass^k per task) and the calibration section with its plots.

Safety: every interpolation into markup goes through :func:`html.escape`, and every text of the data
(markup and viewer alike) shows control characters and bidi marks as visible escapes (:func:`_shown`),
so agent text can neither hide itself nor reorder what stands around it. The trajectory viewer is built
by the page's script from an inert ``<script type="application/json">`` blob using ``textContent`` only,
and the blob is escaped for that context (``<``, ``>``, ``&``, U+2028, U+2029 become ``\\u`` escapes such as ``\\u003c``). A
Content-Security-Policy allows no network access and no script but the report's own (pinned by hash), so
agent text that looks like markup stays text.

Size: the viewer's texts (tool results, answers, arguments, decisions, reasons) share a budget of
``TEXT_BUDGET_CHARS``: short texts are kept whole and the longest are cut to one per-field limit found by
water-filling (:func:`field_limit`, never below ``MIN_FIELD_CHARS`` nor above ``MAX_FIELD_CHARS``), so a
1,000-run report stays under 5 MB. A cut text keeps its first characters and is shown as "truncated (N
chars)"; the full text stays in the runs file. Steps and checks travel as arrays (field names once).

Plots need matplotlib (``pathjudge[plots]``); without it each plot is replaced by a note naming the
install command and the rest of the page is unchanged.

The renderer computes nothing: it lays out the numbers of the report it is given.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from collections.abc import Callable, Iterable
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import JsonValue

from pathjudge._io import write_text_atomic
from pathjudge.report._view import (
    CalibrationView,
    CriterionCalibrationView,
    DiffView,
    GateView,
    MetricView,
    ReportView,
    RunView,
    SliceView,
    VarianceView,
)

__all__ = [
    "field_limit",
    "render_html",
    "render_page",
    "script_json",
    "table",
    "write_html",
    "write_html_report",
]

TEXT_BUDGET_CHARS = 2_600_000
"""Total characters the viewer's texts may use together before the longest are cut."""
MAX_FIELD_CHARS = 4_000
"""No single text in the viewer is longer than this."""
MIN_FIELD_CHARS = 120
"""However many runs, each text keeps at least this many characters."""


STEP_FIELDS = (
    "turn",
    "tool",
    "decision",
    "args",
    "args_error",
    "result",
    "error",
    "latency",
    "verdicts",
)
"""Steps and checks travel as arrays in this field order (names sent once, not per record)."""
CHECK_FIELDS = ("check", "axis", "status", "score", "reason", "gating")


# C0 controls but tab, newline and carriage return, DEL, the C1 controls, and the bidirectional
# marks (embeddings, overrides and isolates U+202A-U+202E, U+2066-U+2069; LRM, RLM, ALM): a browser
# draws the controls as nothing and lets the bidi marks reorder the text around them ("Trojan
# Source"), so agent text shows each of them as a visible escape such as ``\u202e``.
_HIDDEN = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def _escape_hidden(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _shown(text: str) -> str:
    """``text`` with every control character and bidi mark written as a visible escape.

    >>> _shown("abc\u202edef\x1b")
    'abc\\\\u202edef\\\\x1b'
    """
    return _HIDDEN.sub(_escape_hidden, text) if _HIDDEN.search(text) else text


def _shown_json(value: Any) -> Any:
    """A copy of a JSON value with :func:`_shown` applied to every string, keys included."""
    if isinstance(value, str):
        return _shown(value)
    if isinstance(value, dict):
        return {_shown(str(key)): _shown_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_shown_json(item) for item in value]
    return value


def _e(value: object) -> str:
    return html.escape(_shown(str(value)), quote=True)


def script_json(value: Any) -> str:
    """JSON for a ``<script type="application/json">`` element: markup characters as ``\\u`` escapes (``\\u003c``).

    ``<``, ``>`` and ``&`` cannot close the element or open a comment, and U+2028 / U+2029 cannot break a
    script parser; ``JSON.parse`` reads the escapes back to the original characters.
    """
    text = json.dumps(
        value, ensure_ascii=False, separators=(",", ":"), sort_keys=False, allow_nan=False
    )
    return (
        text.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _asset(name: str) -> str:
    return resources.files("pathjudge.report").joinpath("assets", name).read_text(encoding="utf-8")


def _num(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _sort_key(value: float | None) -> str:
    return "" if value is None else repr(float(value))


def _bar(value: float | None) -> str:
    width = 0.0 if value is None else max(0.0, min(1.0, value)) * 100
    return f'<div class="bar"><span style="width:{width:.1f}%"></span></div>'


def _badge(status: str, text: str | None = None) -> str:
    css = "".join(ch for ch in status if ch.isalnum() or ch == "_")
    return f'<span class="badge {css}">{_e(text if text is not None else status.replace("_", " "))}</span>'


def table(head: str, body: str, attributes: str = "") -> str:
    """A table of the report pages: ``head`` its header cells (``<th>`` markup), ``body`` its rows
    (``<tr>`` markup), ``attributes`` those of the ``<table>`` tag (``' id="x" data-sortable="1"'``)."""
    return f"<table{attributes}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _notes(notes: Iterable[str]) -> str:
    """Each note as a paragraph of its own."""
    return "".join(f'<p class="note">{_e(note)}</p>' for note in notes)


def _as_text(value: JsonValue) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    compact = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    if len(compact) <= 100:
        return compact
    return json.dumps(value, ensure_ascii=False, indent=2)


class _Clipper:
    """Cuts long texts to one per-field limit: ``text`` or ``[kept prefix, full length]``.

    ``limit=None`` cuts nothing and only records every text's length (the measuring pass).
    """

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.cut = 0
        self.lengths: list[int] = []

    def __call__(self, text: str | None) -> str | list[str | int] | None:
        if text is None:
            return None
        text = _shown(text)  # measured as shown: an escape counts against the budget
        self.lengths.append(len(text))
        if self.limit is None or len(text) <= self.limit:
            return text
        self.cut += 1
        return [text[: self.limit], len(text)]


def field_limit(lengths: list[int], budget: int = TEXT_BUDGET_CHARS) -> int:
    """The largest per-field cut that keeps the texts' total within ``budget`` (water-filling).

    Short texts keep all their characters and leave their unused share to the long ones; the result is
    clamped to [MIN_FIELD_CHARS, MAX_FIELD_CHARS]. No texts (or texts that fit) give MAX_FIELD_CHARS.
    """
    remaining = budget
    ordered = sorted(lengths)
    for index, length in enumerate(ordered):
        share = remaining // (len(ordered) - index)
        if length > share:
            return max(MIN_FIELD_CHARS, min(MAX_FIELD_CHARS, share))
        remaining -= length
    return MAX_FIELD_CHARS


def _runs_blob(runs: tuple[RunView, ...]) -> tuple[dict[str, Any], _Clipper]:
    """The viewer's data: measured once uncut, then built with the per-field limit that fits."""
    measure = _Clipper(None)
    _build_blob(runs, measure)
    clip = _Clipper(field_limit(measure.lengths))
    return _build_blob(runs, clip), clip


def _build_blob(runs: tuple[RunView, ...], clip: _Clipper) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    for run in runs:
        step_verdicts: dict[int, list[dict[str, Any]]] = {}
        run_verdicts: list[dict[str, Any]] = []
        for verdict in run.verdicts:
            entry = {
                "criterion": verdict.criterion,
                "verdict": verdict.verdict,
                "reasoning": clip(verdict.reasoning),
                "detail": verdict.detail,
            }
            if (
                verdict.step is not None
                and run.steps is not None
                and 0 <= verdict.step < len(run.steps)
            ):
                step_verdicts.setdefault(verdict.step, []).append(entry)
            else:
                run_verdicts.append(entry)
        steps = [
            [
                step.turn,
                step.tool,
                clip(step.decision),
                clip(
                    step.raw_arguments
                    if step.arguments_error is not None
                    else _as_text(step.arguments)
                ),
                step.arguments_error,
                clip(_as_text(step.result)) if step.result is not None else None,
                step.is_error,
                step.latency_ms,
                step_verdicts.get(index, []),
            ]
            for index, step in enumerate(run.steps or ())
        ]
        out.append(
            {
                "id": run.run_id,
                "task": run.task_id,
                "epoch": run.epoch,
                "has_steps": run.steps is not None,
                "input": clip(_as_text(run.input)),
                "answer": clip(run.final_answer),
                "stop": run.stop_reason,
                "reason": clip(run.reason),
                "alignment": clip("\n".join(run.alignment)) if run.alignment else None,
                "steps": steps,
                "checks": [
                    [
                        check.check,
                        check.axis,
                        check.status,
                        check.score,
                        clip(check.reason),
                        check.gating,
                    ]
                    for check in run.checks
                ],
                "verdicts": run_verdicts,
            }
        )
    return {"step_fields": list(STEP_FIELDS), "check_fields": list(CHECK_FIELDS), "runs": out}


def _plot(builder: Callable[[], bytes], alt: str, caption: str) -> str:
    """An ``<img>`` with a data: URI, or a note when matplotlib (the plots extra) is missing."""
    from pathjudge.errors import MissingExtraError
    from pathjudge.report.plots import png_data_uri

    try:
        uri = png_data_uri(builder())
    except MissingExtraError as exc:
        return f'<p class="note">Plot omitted: {_e(exc)}</p>'
    return (
        f'<figure><img alt="{_e(alt)}" src="{uri}"><figcaption>{_e(caption)}</figcaption></figure>'
    )


def _scorecard(view: ReportView) -> str:
    from pathjudge.report.plots import path_scores_png

    def card(metric: MetricView, css: str = "card") -> str:
        return (
            f'<div class="{css}" data-metric="{_e(metric.key)}"><div class="label">{_e(metric.label)}</div>'
            f'<div class="value">{_num(metric.value, metric.digits)}</div>'
            f'<div class="detail">{_e(metric.detail)}</div>'
            + (
                f'<div class="detail certification">{_e(metric.certification)}</div>'
                if metric.certification
                else ""
            )
            + "</div>"
        )

    cards = [card(metric) for metric in view.levels]
    if view.overall is not None:
        cards.append(card(view.overall, "card overall"))
    secondary = "".join(card(metric, "card small") for metric in view.secondary)
    axes = "".join(
        f'<div class="name">{_e(axis.name.replace("_", " "))}</div>{_bar(axis.value)}'
        f'<div class="num">{_num(axis.value)}</div>'
        f'<div class="num muted">{"" if axis.weight is None else "weight " + _num(axis.weight, 2)}</div>'
        for axis in view.axes
    )
    gates = "".join(
        f'<span class="gate {"ok" if gate.passed else "missed"}">{_e(gate.metric)} '
        f"{_num(gate.actual)} {'≥' if gate.passed else '&lt;'} {_num(gate.threshold)} "
        f"{'met' if gate.passed else 'missed'}</span>"
        for gate in view.gates
    )
    notes = _notes(view.notes)
    scores = [run.path_score for run in view.runs if run.path_score is not None]
    plot = ""
    if scores:
        plot = '<h3>Path scores</h3><div class="plots">' + _plot(
            lambda: path_scores_png(scores, f"Path scores of {len(scores)} runs"),
            "histogram of path scores",
            "100 = matched a reference path with no wasted call; fault costs subtract from 100.",
        )
        plot += "</div>"
    return (
        '<section id="scorecard"><h2>Scorecard</h2>'
        f'<div class="cards">{"".join(cards)}</div>'
        + (f'<div class="cards secondary">{secondary}</div>' if secondary else "")
        + (f'<h3>Five axes</h3><div class="axes">{axes}</div>' if view.axes else "")
        + (f'<div class="gates">{gates}</div>' if gates else "")
        + notes
        + plot
        + "</section>"
    )


def _run_link(run_id: str | None) -> str:
    """The run id as a link that filters the trajectory viewer to that run."""
    if run_id is None:
        return "—"
    return f'<a class="jump" href="#trajectories" data-jump="{_e(run_id)}"><code>{_e(run_id)}</code></a>'


def _weak_paths(view: ReportView) -> str:
    if not view.weak_paths:
        return (
            '<section id="weak-paths"><h2>Weak paths</h2><p class="empty">No weak paths: every run '
            "succeeded by a reference path with no redundant call.</p></section>"
        )
    rows: list[str] = []
    for weak in view.weak_paths:
        flags = " ".join(
            _badge("fail" if flag == "failed" else "warn", flag.replace("_", " "))
            for flag in weak.flags
        )
        diff = f'<pre class="text">{_e(chr(10).join(weak.diff))}</pre>' if weak.diff else ""
        rows.append(
            f"<tr><td>{flags}</td><td>{_e(weak.task_id)}</td><td>{_run_link(weak.run_id)}</td>"
            f'<td class="reason">{_e(weak.reason)}{diff}</td></tr>'
        )
    more = ""
    if view.weak_total > len(view.weak_paths):
        more = f'<p class="note">Showing {len(view.weak_paths)} of {view.weak_total} weak runs.</p>'
    return (
        f'<section id="weak-paths"><h2>Weak paths ({view.weak_total})</h2>{more}'
        + table(
            "<th>flags</th><th>task</th><th>run</th><th>reason and path diff</th>", "".join(rows)
        )
        + "</section>"
    )


def _broken_checks(view: ReportView) -> str:
    """The checks that broke (status ``error``): their runs are undecided, never failed."""
    rows = "".join(
        f'<tr><td><code>{_e(broken.check)}</code></td><td class="num">{broken.count}</td>'
        f'<td>{_run_link(broken.example_run)}</td><td class="reason">{_e(broken.reason)}</td></tr>'
        for broken in view.broken_checks
    )
    return (
        f'<section id="broken-checks"><h2>Checks that broke ({view.check_errors})</h2>'
        '<p class="note">These checks could not run (status error): their runs are undecided, '
        "not failed.</p>"
        + table('<th>check</th><th class="num">results</th><th>first run</th><th>reason</th>', rows)
        + "</section>"
    )


def _tasks(view: ReportView) -> str:
    rows: list[str] = []
    for task in view.tasks:
        rows.append(
            f'<tr><td data-sort="{_e(task.task_id)}">{_e(task.task_id)}</td>'
            f'<td class="num" data-sort="{task.runs}">{task.runs}</td>'
            f'<td class="num" data-sort="{_sort_key(task.passed_rate)}" title="passed / failed / excluded: '
            f'{_e(task.verdicts)}">{_num(task.passed_rate)}</td>'
            f'<td class="num" data-sort="{_sort_key(task.success)}">{_num(task.success)}</td>'
            f'<td class="num" data-sort="{task.failed}">{task.passed} / {task.failed} / {task.undecided}</td>'
            f'<td class="num" data-sort="{_sort_key(task.tool_calls)}">{_num(task.tool_calls)}</td>'
            f'<td class="num" data-sort="{_sort_key(task.trajectory)}">{_num(task.trajectory)}</td>'
            f'<td class="num" data-sort="{_sort_key(task.path_score)}">{_num(task.path_score, 1)}</td>'
            f'<td class="num" data-sort="{_sort_key(task.mean_steps)}">{_num(task.mean_steps, 1)}</td>'
            f'<td class="num" data-sort="{task.weak}">{task.weak}</td>'
            f'<td><a class="jump" href="#trajectories" data-jump="{_e(task.task_id)}">runs</a></td></tr>'
        )
    body = "".join(rows) or '<tr><td colspan="11" class="empty">no tasks</td></tr>'
    return (
        '<section id="tasks"><h2>Tasks</h2>'
        '<div class="toolbar"><input type="search" id="tasks-filter" data-filter="task-table" '
        'placeholder="Filter tasks by id" aria-label="Filter tasks">'
        '<span class="count" id="task-table-count"></span></div>'
        + table(
            '<th>task</th><th class="num">runs</th>'
            '<th class="num">passed</th><th class="num">success</th><th class="num">passed / failed / undecided</th>'
            '<th class="num">tool calls</th><th class="num">trajectory</th><th class="num">path score</th>'
            '<th class="num">mean steps</th><th class="num">weak runs</th><th></th>',
            body,
            ' id="task-table" data-sortable="1"',
        )
        + "</section>"
    )


def _trajectories(view: ReportView, clip: _Clipper) -> str:
    items: list[str] = []
    for index, run in enumerate(view.runs):
        status = {"pass": "pass", "fail": "fail"}.get(run.success, "not_run")
        label = {"pass": "success", "fail": "failed"}.get(run.success, run.success)
        parts = [
            _badge(status, label),
            f'<span class="task">{_e(run.task_id)}</span>',
            f'<span class="rid">{_e(run.run_id)}</span>',
            f'<span class="muted">epoch {run.epoch}</span>',
        ]
        if run.verdict != "not graded":
            if run.passed is True:
                parts.insert(1, _badge("pass", "passed"))
            elif run.passed is False:
                blocked = ", ".join(run.blockers[:3]) or run.verdict
                parts.insert(1, _badge("fail", f"did not pass: {blocked}"))
            else:
                parts.insert(1, _badge("not_run", "undecided (excluded)"))
        if run.steps is not None:
            count = len(run.steps)
            parts.append(f'<span class="muted">{count} step{"" if count == 1 else "s"}</span>')
        if run.path_score is not None:
            parts.append(f'<span class="muted">path score {_num(run.path_score, 0)}</span>')
        if run.trajectory is not None:
            on_path = run.trajectory >= 1.0
            parts.append(
                _badge(
                    "pass" if on_path else "warn",
                    "reference path" if on_path else "off-reference path",
                )
            )
        parts.extend(
            _badge("warn", flag.replace("_", " ")) for flag in run.weak if flag != "failed"
        )
        items.append(
            f'<details class="run" data-run="{index}" data-search="{_e(run.task_id)} {_e(run.run_id)}">'
            f"<summary>{' '.join(parts)}</summary></details>"
        )
    note = ""
    if clip.cut:
        note = (
            f'<p class="note">{clip.cut} long texts are cut to {clip.limit} characters here '
            "(marked “truncated”); the runs file has them in full.</p>"
        )
    if any(run.steps is None for run in view.runs):
        note += '<p class="note">Some runs have no trajectory in this report; pass the runs file (--runs) to see their steps.</p>'
    listing = "".join(items) or '<p class="empty">no runs</p>'
    return (
        '<section id="trajectories"><h2>Trajectories</h2>'
        '<div class="toolbar"><input type="search" id="runs-filter" data-filter="run-list" '
        'placeholder="Filter runs (task or run id)" aria-label="Filter runs">'
        f'<span class="count" id="run-list-count"></span></div>{note}'
        f'<div id="run-list">{listing}</div></section>'
    )


def _diff(diff: DiffView) -> str:
    metrics = "".join(
        f'<div class="card small"><div class="label">{_e(m.label)}</div>'
        f'<div class="value">{_num(m.value, m.digits)}</div><div class="detail">{_e(m.detail)}</div></div>'
        for m in diff.metrics
    )
    status_badge = {"regression": "fail", "improvement": "pass", "changed": "warn"}
    rows = "".join(
        f"<tr><td>{_e(row.task_id)}</td>"
        f'<td class="num" data-sort="{_sort_key(row.baseline)}">{_num(row.baseline)}</td>'
        f'<td class="num" data-sort="{_sort_key(row.candidate)}">{_num(row.candidate)}</td>'
        f"<td>{_badge(status_badge.get(row.status, 'not_run'), row.status)}</td>"
        f'<td class="reason">{"<br>".join(_e(f) for f in row.findings) or "—"}</td></tr>'
        for row in diff.rows
    )
    verdict = _badge("pass" if diff.verdict == "promote" else "fail", diff.verdict)
    reasons = "".join(f"<li>{_e(reason)}</li>" for reason in diff.reasons)
    notes = _notes(diff.notes)
    return (
        f'<section id="diff"><h2>Baseline diff {verdict}</h2><p class="note">{_e(diff.baseline_label)} → '
        f"{_e(diff.candidate_label)}</p>"
        + (f"<ul>{reasons}</ul>" if reasons else "")
        + f'<div class="cards secondary">{metrics}</div>{notes}'
        + table(
            '<th>task</th><th class="num">baseline success</th>'
            '<th class="num">candidate success</th><th>status</th><th>findings</th>',
            rows,
            ' id="diff-table" data-sortable="1"',
        )
        + "</section>"
    )


def _variance(variance: VarianceView) -> str:
    from pathjudge.report.plots import pass_k_png

    head = "".join(f'<th class="num">pass^{k}</th>' for k in variance.ks)
    head += "".join(f'<th class="num">pass@{k}</th>' for k in variance.ks)
    rows: list[str] = []
    for row in variance.rows:
        hat = dict(row.pass_hat_k)
        at = dict(row.pass_at_k)
        cells = "".join(
            f'<td class="num" data-sort="{_sort_key(hat.get(k))}">{_num(hat.get(k))}</td>'
            for k in variance.ks
        )
        cells += "".join(
            f'<td class="num" data-sort="{_sort_key(at.get(k))}">{_num(at.get(k))}</td>'
            for k in variance.ks
        )
        stability = {"stable": "pass", "broken": "fail", "flaky": "warn"}.get(
            row.stability, "not_run"
        )
        rows.append(
            f"<tr><td>{_e(row.task_id)}</td><td>{_badge(stability, row.stability)}</td>"
            f'<td class="num" data-sort="{row.epochs}">{row.successes} / {row.epochs}</td>{cells}</tr>'
        )
    curves: dict[str, list[tuple[int, float]]] = {}
    for name, points in (
        ("suite pass^k", variance.suite_pass_hat_k),
        ("suite pass@k", variance.suite_pass_at_k),
    ):
        defined = [(k, value) for k, value in points if value is not None]
        if len(defined) >= 2:
            curves[name] = defined
    plot = ""
    if curves:
        plot = (
            '<div class="plots">'
            + _plot(
                lambda: pass_k_png(curves, "Suite pass^k and pass@k against k"),
                "pass^k against k",
                "pass^k: all k epochs succeed; pass@k: at least one does. Undefined points (a task with fewer epochs than k) are left out.",
            )
            + "</div>"
        )
    notes = _notes(variance.notes)
    body = (
        "".join(rows)
        or f'<tr><td colspan="{3 + 2 * len(variance.ks)}" class="empty">no graded epochs</td></tr>'
    )
    return (
        '<section id="variance"><h2>Variance across epochs</h2>'
        f"{notes}{plot}"
        + table(
            f'<th>task</th><th>stability</th><th class="num">succeeded</th>{head}',
            body,
            ' id="variance-table" data-sortable="1"',
        )
        + "</section>"
    )


def _calibration_criterion(crit: CriterionCalibrationView) -> str:
    from pathjudge.report.plots import confusion_matrix_png, reliability_png

    rows = "".join(
        f'<tr><td>{_e(m.label)}</td><td class="num">{_num(m.value, 3)}</td>'
        f'<td class="num">{"" if m.low is None or m.high is None else f"[{m.low:.3f}, {m.high:.3f}]"}</td>'
        f'<td class="reason">{_e(m.detail)}</td></tr>'
        for m in crit.metrics
    )
    gates = _gate_spans(crit.gates)
    plots: list[str] = []
    if crit.confusion is not None:
        matrix, labels = crit.confusion, crit.labels
        plots.append(
            _plot(
                lambda: confusion_matrix_png(
                    matrix, labels, f"{crit.criterion}: judge against humans"
                ),
                "confusion matrix of judge against human labels",
                "Rows: human label; columns: judge verdict (unsure verdicts are counted apart).",
            )
        )
    for shown, rows_labels, columns, more in crit.confusions:
        plots.append(
            _plot(
                partial(
                    confusion_matrix_png,
                    more,
                    rows_labels,
                    f"{crit.criterion}, {shown}: judge against humans",
                    columns=columns,
                ),
                f"confusion matrix of the judge ({shown}) against human labels",
                f"{shown}. Rows: human label; columns: judge answer.",
            )
        )
    if crit.reliability is not None:
        points = crit.reliability
        plots.append(
            _plot(
                lambda: reliability_png(points, f"{crit.criterion}: reliability of the vote share"),
                "reliability diagram of the judge's vote share",
                "Dashed line: perfect calibration; marker size grows with the number of items.",
            )
        )
    disagreements = ""
    if crit.disagreements:
        items = "".join(
            f"<tr><td><code>{_e(d.item_id)}</code></td><td>{_badge('fail', d.kind.replace('_', ' '))}</td>"
            f'<td>{_e(d.human)}</td><td>{_e(d.judge)}</td><td class="num">{_num(d.vote_share)}</td>'
            f'<td class="reason">{_e(_clip_plain(d.judge_reasoning))}</td>'
            f'<td class="reason">{_e(_clip_plain(d.human_rationale))}</td></tr>'
            for d in crit.disagreements
        )
        disagreements = f"<h3>Disagreements ({len(crit.disagreements)})</h3>" + table(
            "<th>item</th><th>kind</th><th>human</th><th>judge</th><th>vote share</th>"
            "<th>judge reasoning</th><th>human rationale</th>",
            items,
        )
    notes = _notes(crit.notes)
    trust = _badge("pass" if crit.trusted else "fail", "trusted" if crit.trusted else "not trusted")
    failing = sum(one.status == "not trusted" for one in crit.slices)
    if crit.trusted and failing:  # calibrate exits 1: the badge must not read green
        trust = _badge("fail", f"trusted overall, {failing} slice(s) not trusted")
    return (
        f'<div class="criterion"><h3>{_e(crit.criterion)} {trust}</h3><p class="note">{_e(crit.summary)}</p>'
        + (f'<p class="note">Judge: {_e(crit.judge)}</p>' if crit.judge else "")
        + f'<p class="note">{_e(crit.trust_reason)}</p>'
        + (f'<div class="gates">{gates}</div>' if gates else "")
        + notes
        + table(
            '<th>statistic</th><th class="num">value</th><th class="num">interval</th><th>how</th>',
            rows,
        )
        + (f'<div class="plots">{"".join(plots)}</div>' if plots else "")
        + _calibration_slices(crit.slices)
        + disagreements
        + "</div>"
    )


def _gate_spans(gates: tuple[GateView, ...]) -> str:
    """Each trust gate: its confidence bound against its threshold, met or missed."""
    return "".join(
        f'<span class="gate {"ok" if gate.passed else "missed"}">{_e(gate.metric)} bound '
        f"{_num(gate.actual, 3)} vs {_num(gate.threshold, 2)} {'met' if gate.passed else 'missed'}</span>"
        for gate in gates
    )


_SLICE_BADGES = {
    "trusted": ("pass", "trusted"),
    "not trusted": ("fail", "not trusted"),
    "too small": ("unsure", "too small to decide"),
}


def _slice_row(one: SliceView) -> str:
    """One slice: name, verdict, labels, gates on their bounds, labels still needed, PPI++, why."""
    need = "—" if one.labels_needed is None else str(one.labels_needed)
    if one.labels_needed:
        need = f"about {one.labels_needed}"
    ppi = "—"
    if one.ppi is not None and one.ppi.value is not None:
        interval = (
            ""
            if one.ppi.low is None or one.ppi.high is None
            else (f" [{one.ppi.low:.3f}, {one.ppi.high:.3f}]")
        )
        ppi = f"PPI++ {one.ppi.value:.3f}{interval}"
    why = "".join(f"<br>next: {_e(step)}" for step in one.next_steps)
    return (
        f"<tr><td><code>{_e(one.name)}</code></td><td>{_badge(*_SLICE_BADGES[one.status])}</td>"
        f'<td class="num">{one.n_labelled}</td><td><div class="gates">{_gate_spans(one.gates)}'
        f'</div></td><td class="num">{need}</td><td class="num">{ppi}</td>'
        f'<td class="reason">{_e(one.why)}{why}</td></tr>'
    )


def _calibration_slices(slices: tuple[SliceView, ...]) -> str:
    """The slices table of a criterion (calibrate --slice-by); nothing when not sliced."""
    if not slices:
        return ""
    failing = sum(1 for one in slices if one.status == "not trusted")
    small = sum(1 for one in slices if one.status == "too small")
    head = f"Slices ({len(slices)}): {failing} not trusted" + (
        f", {small} too small to decide" if small else ""
    )
    return f"<h4>{head}</h4>" + table(
        '<th>slice</th><th>verdict</th><th class="num">labelled</th><th>gates (bound vs threshold)</th>'
        '<th class="num">labels still needed</th><th class="num">success rate</th><th>why</th>',
        "".join(_slice_row(one) for one in slices),
        ' class="slices"',
    )


def _clip_plain(text: str | None, limit: int = 600) -> str:
    if text is None:
        return "—"
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… truncated ({len(text)} chars)"


def _calibration(calibration: CalibrationView) -> str:
    body = "".join(_calibration_criterion(crit) for crit in calibration.criteria)
    if not body:
        body = '<p class="empty">no criteria in the calibration report</p>'
    return (
        f'<section id="calibration"><h2>Judge calibration</h2><p class="note">{_e(calibration.source)}</p>'
        f"{body}</section>"
    )


def render_html(view: ReportView) -> str:
    """The report page for ``view`` as one HTML string (UTF-8, no external resources).

    An empty view (no tasks, no runs) still renders every section with a "no tasks"/"no runs" note; a
    view without a scorecard (``has_scorecard=False``) shows only its diff, variance and calibration.
    """
    blob, clip = _runs_blob(view.runs)
    script = _asset("report.js")
    toc: list[tuple[str, str]] = []
    sections: list[str] = []
    if view.has_scorecard:
        toc += [
            ("scorecard", "Scorecard"),
            ("weak-paths", "Weak paths"),
            ("tasks", "Tasks"),
            ("trajectories", "Trajectories"),
        ]
        sections += [_scorecard(view), _weak_paths(view)]
        if view.broken_checks:
            toc.insert(2, ("broken-checks", "Checks that broke"))
            sections.append(_broken_checks(view))
        sections += [_tasks(view), _trajectories(view, clip)]
    if view.diff is not None:
        toc.append(("diff", "Baseline diff"))
        sections.append(_diff(view.diff))
    if view.variance is not None:
        toc.append(("variance", "Variance"))
        sections.append(_variance(view.variance))
    if view.calibration is not None:
        toc.append(("calibration", "Calibration"))
        sections.append(_calibration(view.calibration))
    extra = " · ".join(f"{_e(key)}: {_e(value)}" for key, value in view.extra.items())
    return (
        _page_top(view.title, view.subtitle, toc, script)
        + "".join(sections)
        + f"<footer>{extra}</footer></main>"
        f'<script type="application/json" id="pj-data">{script_json(_shown_json(blob))}</script>'
        f"<script>{script}</script></body></html>\n"
    )


def _page_top(title: str, subtitle: str, toc: Iterable[tuple[str, str]], script: str) -> str:
    """The start of every pathjudge page up to its opened ``<main>``: the stylesheet, the
    Content-Security-Policy that lets only ``script`` run, the title and the navigation to each
    ``(anchor, label)`` of ``toc``."""
    nav = "".join(f'<a href="#{_e(anchor)}">{_e(label)}</a>' for anchor, label in toc)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_e(_csp(script))}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_asset('report.css')}</style></head><body>"
        f'<header class="top"><h1>{_e(title)}</h1><div class="sub">{_e(subtitle)}</div></header>'
        f'<nav class="toc">{nav}</nav><main>'
    )


def _csp(script: str) -> str:
    """The Content-Security-Policy of every pathjudge page: no network, inline styles, and no script
    but ``script`` (pinned by its hash)."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )


def render_page(title: str, subtitle: str, sections: list[tuple[str, str, str]]) -> str:
    """A page with the report's stylesheet, script and Content-Security-Policy around ``sections``,
    each ``(anchor, label, html)`` (the html already escaped), listed in the top navigation."""
    script = _asset("report.js")
    return (
        _page_top(title, subtitle, [(anchor, label) for anchor, label, _ in sections], script)
        + "".join(body for _, _, body in sections)
        + f"</main><script>{script}</script></body></html>\n"
    )


def write_html(view: ReportView, path: Path) -> Path:
    """Render ``view`` and write it to ``path`` atomically (UTF-8); return ``path``."""
    return write_text_atomic(path, render_html(view))


def write_html_report(
    results: Any | None,
    path: Path,
    *,
    baseline: Any | None = None,
    variance: Any | None = None,
    calibration: Any | None = None,
    runs: Any | None = None,
    pairwise: Any | None = None,
) -> Path:
    """Write the self-contained HTML report for a ``pathjudge score`` report; return ``path``.

    ``results`` is the :class:`~pathjudge.scoring.pipeline.ScoreReport`, its JSON (a mapping) or its
    JSON file; None makes a page of the optional sections only (``pathjudge calibrate --html``). Optional sections, each a report object, its JSON or its JSON file: ``baseline`` (the
    :class:`~pathjudge.scoring.diff.DiffReport` against a baseline), ``variance``
    (:class:`~pathjudge.scoring.variance.VarianceReport`) and ``calibration``
    (:class:`~pathjudge.calibration.calibrate.CalibrationReport`) and ``pairwise``
    (:class:`~pathjudge.calibration.pairwise.PairwiseReport`). ``runs`` (run records or their JSONL
    file) puts each graded run's trajectory in the viewer. A malformed input is an
    :class:`~pathjudge.errors.InputError` naming the file and field.
    """
    from pathjudge.report._adapt import build_view

    view = build_view(
        results,
        runs=runs,
        baseline=baseline,
        variance=variance,
        calibration=calibration,
        pairwise=pairwise,
    )
    return write_html(view, path)
