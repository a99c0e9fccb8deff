"""The suite-health report of ``pathjudge audit``: terminal and HTML.

Both lay out an :class:`~pathjudge.scoring.audit.AuditReport` and compute nothing: the headline (tasks
sound / unsound / not auditable, the mutation detection rate), the tasks that are not sound with their
reasons, and per null agent how many tasks it passed. Suite text (task ids, reasons that quote
answers) is data: the terminal view goes through :class:`~pathjudge.report.text.SafeConsole` and
:class:`~pathjudge.report.text.Prose`; the page escapes every string and is laid out by
:func:`~pathjudge.report.html.render_page` (the report's stylesheet, script and security policy).
"""

from __future__ import annotations

import html
from collections import Counter
from pathlib import Path

from rich.console import Console

from pathjudge._io import write_text_atomic
from pathjudge.report.text import Column, Prose, number_columns, print_table, visible
from pathjudge.scoring.audit import AuditReport

__all__ = [
    "agent_rows",
    "detection_line",
    "headline",
    "print_audit",
    "render_audit_html",
    "write_audit_html",
]


def headline(report: AuditReport) -> str:
    """One line: the counts of sound, unsound and not auditable tasks."""
    counts = Counter(task.status for task in report.tasks)
    n = len(report.tasks)
    return (
        f"{n} task{'' if n == 1 else 's'}: {counts['sound']} sound, {counts['unsound']} unsound, "
        f"{counts['not_auditable']} not auditable"
    )


def detection_line(report: AuditReport) -> str:
    """The mutation detection rate, and of what."""
    worse = sum(
        report.mutations.applied[k] - report.mutations.improved.get(k, 0)
        for k in report.mutations.kinds
    )
    source = "the passing reference replays" if report.mutated == "references" else "the runs"
    if report.detection_rate is None:
        return f"mutation detection: no mutant of {source} made a run worse"
    return f"mutation detection: {report.detection_rate:.0%} of {worse} mutants of {source} caught"


def agent_rows(report: AuditReport) -> list[tuple[str, str, str, str]]:
    """Per null agent and for the reference replays: runs that passed, failed, were undecided."""
    tally: dict[str, Counter[str]] = {}
    for task in report.tasks:
        for run in task.runs:
            name = "reference replays" if run.run.startswith("reference: ") else run.run
            tally.setdefault(name, Counter())[run.outcome] += 1
    return [
        (name, str(c["pass"]), str(c["fail"]), str(c["undecided"])) for name, c in tally.items()
    ]


def print_audit(console: Console, report: AuditReport) -> None:
    """The terminal view: the headline, the null agents' table, then every task that is not sound."""
    print_table(
        console,
        f"audit of suite {report.suite}: {headline(report)}",
        [Column("run", "id"), *number_columns("passed", "failed", "undecided")],
        agent_rows(report),
    )
    console.print(Prose(detection_line(report), indent=2, hanging=True))
    for task in report.tasks:
        if task.status == "sound":
            continue
        label = "UNSOUND" if task.status == "unsound" else "not auditable"
        console.print(Prose(f"{label}: {task.task_id}", indent=2, hanging=True))
        for reason in task.reasons:
            console.print(Prose(f"  - {reason}", indent=4, hanging=True))
    if report.sound:
        console.print(
            "no unsound task: no null agent passes a task, every reference passes its own"
        )


def _e(text: object) -> str:
    return html.escape(visible(str(text)), quote=True)


def render_audit_html(report: AuditReport) -> str:
    """The suite-health page (every string escaped), in the look of the other reports."""
    from pathjudge.report.html import render_page, table

    counts = Counter(task.status for task in report.tasks)
    rate = "—" if report.detection_rate is None else f"{report.detection_rate:.0%}"
    cards = "".join(
        f'<div class="card"><div class="label">{_e(name)}</div><div class="value">{_e(value)}</div></div>'
        for name, value in [
            ("tasks", len(report.tasks)),
            ("sound", counts["sound"]),
            ("unsound", counts["unsound"]),
            ("not auditable", counts["not_auditable"]),
            ("mutation detection", rate),
        ]
    )
    agents = "".join(
        f"<tr><td>{_e(name)}</td>"
        + "".join(f'<td class="num">{_e(n)}</td>' for n in numbers)
        + "</tr>"
        for name, *numbers in agent_rows(report)
    )
    rows = "".join(
        f'<tr data-search="{_e(task.task_id)} {_e(task.status)}"><td>{_e(task.task_id)}</td>'
        f'<td><span class="badge {"fail" if task.status == "unsound" else "unsure"}">'
        f"{_e(task.status.replace('_', ' '))}</span></td>"
        f'<td class="reason">{"".join(f"<div>{_e(r)}</div>" for r in task.reasons)}</td></tr>'
        for task in report.tasks
        if task.status != "sound"
    )
    sections = [
        (
            "health",
            "Health",
            f'<section id="health"><h2>Suite health</h2><div class="cards">{cards}</div>'
            f'<p class="note">{_e(headline(report))}. {_e(detection_line(report))}.</p></section>',
        ),
        (
            "agents",
            "Null agents",
            '<section id="agents"><h2>Null agents and reference replays</h2>'
            + table(
                '<th>run</th><th class="num">passed</th><th class="num">failed</th>'
                '<th class="num">undecided</th>',
                agents,
            )
            + "</section>",
        ),
        (
            "tasks",
            "Tasks",
            '<section id="tasks"><h2>Tasks that are not sound</h2>'
            + table(
                "<th>task</th><th>status</th><th>why</th>",
                rows or "<tr><td colspan=3 class=empty>every task is sound</td></tr>",
                ' id="audit-table" data-sortable="1"',
            )
            + "</section>",
        ),
    ]
    return render_page(f"Audit of suite {report.suite}", headline(report), sections)


def write_audit_html(report: AuditReport, path: Path) -> Path:
    """Write :func:`render_audit_html` to ``path`` atomically; return ``path``."""
    return write_text_atomic(path, render_audit_html(report))
