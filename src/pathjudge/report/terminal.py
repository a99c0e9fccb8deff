"""Rich tables for the scorecard in a terminal: headline levels, axes, per task, weak paths, judged, gates."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from rich.console import Console
from rich.table import Table

from pathjudge.scoring.scorecard import GateResult, Scorecard

__all__ = ["print_scorecard"]


def _num(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _column(
    table: Table, header: str, justify: Literal["left", "right"] = "left", *, narrow: bool = False
) -> None:
    """Add a column that never cuts text: cells fold onto more lines instead of ending in an ellipsis.

    The column is at least as wide as the header's longest word, so a narrow (80-column) terminal wraps
    headers between words. A ``narrow`` column (short numbers) is also at most that wide, leaving the
    room to the columns that hold names.
    """
    longest_word = max(len(word) for word in header.split())
    table.add_column(
        header,
        justify=justify,
        overflow="fold",
        no_wrap=False,
        min_width=longest_word,
        max_width=max(longest_word, 4) if narrow else None,
    )


def print_scorecard(
    console: Console,
    scorecard: Scorecard,
    gates: Sequence[GateResult] = (),
    *,
    judge_note: str | None = None,
    max_weak: int = 20,
) -> None:
    """Render the scorecard (and any gates) on ``console``.

    Every cell folds rather than being cut, so nothing is lost on a narrow (80-column) terminal.
    """
    sc = scorecard
    head = Table(
        title=f"Agent scorecard — {sc.suite} ({sc.runs} runs, {sc.tasks} tasks)", show_header=True
    )
    _column(head, "level")
    _column(head, "value", "right", narrow=True)
    _column(head, "detail")
    decided = sc.success_passed + sc.success_failed
    detail = f"{sc.success_passed}/{decided} runs"
    if sc.success_undecided:
        detail += f", {sc.success_undecided} undecided"
    head.add_row("task success rate", _num(sc.success_rate), detail)
    verdicts = f"{sc.verdict_passed}/{sc.verdict_passed + sc.verdict_failed} runs"
    if sc.verdict_excluded:
        verdicts += f", {sc.verdict_excluded} undecided excluded"
    head.add_row("runs passed", _num(sc.passed_rate), verdicts + " (one verdict per run)")
    head.add_row("partial credit", _num(sc.partial_credit), "mean success score (multi-part tasks)")
    head.add_row(
        "tool-call correctness", _num(sc.tool_calls), "mean of tool-selection and argument checks"
    )
    head.add_row(
        "trajectory quality", _num(sc.trajectory), "matched a reference with no redundant call"
    )
    head.add_row("path score", _num(sc.path_score, 1), "100 minus fault costs, best reference")
    if sc.surfaced is not None:
        head.add_row("relevant result surfaced", _num(sc.surfaced), "share of runs")
    weights = ", ".join(f"{k}={v:g}" for k, v in sc.weights.items())
    head.add_row("overall (weighted)", _num(sc.overall), weights)
    console.print(head)

    axes = Table(title="Five axes (mean of gating checks)")
    _column(axes, "axis")
    _column(axes, "mean", "right", narrow=True)
    for axis, value in sc.axes.items():
        axes.add_row(axis.replace("_", " "), _num(value))
    console.print(axes)

    tasks = Table(title="Per task")
    _column(tasks, "task")
    for name in ("runs", "success", "tool calls", "trajectory", "path", "steps", "weak"):
        _column(tasks, name, "right", narrow=True)
    for row in sc.task_rows:
        tasks.add_row(
            row.task_id,
            str(row.runs),
            _num(row.success_rate),
            _num(row.tool_calls),
            _num(row.trajectory),
            _num(row.path_score, 0),
            f"{row.mean_steps:.1f}",
            str(row.weak) if row.weak else "",
        )
    console.print(tasks)
    if sc.tasks_without_runs:
        console.print(f"tasks without runs: {', '.join(sc.tasks_without_runs)}")

    if sc.judged:
        judged = Table(title="Judged criteria")
        for name in ("criterion", "pass", "fail", "unsure", "error", "not run", "pass rate"):
            if name == "criterion":
                _column(judged, name)
            else:
                _column(judged, name, "right", narrow=True)
        for j in sc.judged:
            judged.add_row(
                j.criterion,
                str(j.passed),
                str(j.failed),
                str(j.unsure),
                str(j.error),
                str(j.not_run),
                _num(j.pass_rate),
            )
        console.print(judged)
        if judge_note:
            console.print(judge_note)

    if sc.weak_total:
        console.print(f"[bold]Weak paths ({sc.weak_total})[/]")
        for entry in sc.weak[:max_weak]:
            flags = ", ".join(f.replace("_", " ") for f in entry.flags)
            path = "—" if entry.path_score is None else str(entry.path_score)
            surfaced = "—" if entry.surfaced is None else str(entry.surfaced)
            console.print(
                f"  {entry.task_id} [dim]({entry.run_id})[/] {flags} · steps {entry.steps} · path {path} · "
                f"relevant result surfaced {surfaced}"
            )
            console.print(f"      {entry.reason}", markup=False)
        if sc.weak_total > min(max_weak, len(sc.weak)):
            console.print(
                f"... and {sc.weak_total - min(max_weak, len(sc.weak))} more weak runs (see --json)"
            )
    else:
        console.print("no weak paths")
    if sc.check_errors:
        console.print(
            f"[yellow]{sc.check_errors} checks could not run (status error, undecided); "
            "checks that broke:[/]"
        )
        for broken in sc.broken_checks[:10]:
            console.print(
                f"  {broken.check} x{broken.count} (first on run {broken.example_run}): {broken.reason}",
                markup=False,
            )
    for gate in gates:
        mark = "[green]ok[/]" if gate.passed else "[red]MISSED[/]"
        console.print(f"gate {gate.metric} >= {gate.threshold:g}: {_num(gate.actual, 3)} {mark}")
