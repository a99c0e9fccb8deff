"""Rich tables for the scorecard in a terminal: headline levels, axes, per task, weak paths, judged, gates.

Nothing here is rich markup: data is printed as escaped text (:mod:`pathjudge.report.text`) and styles
come from code. Tables fit the terminal without breaking an id or a word, and the weak-path list is
complete or says how many it shows and where the rest are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from pathjudge.report.text import (
    Column,
    Prose,
    count_and_first,
    number_columns,
    print_table,
    styled,
)
from pathjudge.scoring.scorecard import GateResult, Scorecard, WeakPath

if TYPE_CHECKING:
    from pathjudge.judge.identity import Certification

__all__ = ["gate_line", "print_scorecard", "summary_line", "weak_heading"]


def _num(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def summary_line(sc: Scorecard) -> str:
    """The scorecard on one line (``score -q``): runs, tasks, the three levels, overall, weak runs."""
    decided = sc.success_passed + sc.success_failed
    undecided = f", {sc.success_undecided} undecided" if sc.success_undecided else ""
    return (
        f"{sc.suite}: {sc.runs} runs, {sc.tasks} tasks · success {_num(sc.success_rate)} "
        f"({sc.success_passed}/{decided}{undecided}) · tool calls {_num(sc.tool_calls)} · "
        f"trajectory {_num(sc.trajectory)} · overall {_num(sc.overall)} · weak runs {sc.weak_total}"
    )


def gate_line(gate: GateResult) -> Text:
    """``gate success >= 0.9: 0.875 MISSED`` with the verdict styled (green ok, red MISSED)."""
    text = styled(f"gate {gate.metric} >= {gate.threshold:g}: {_num(gate.actual, 3)} ")
    text.append("ok" if gate.passed else "MISSED", style="green" if gate.passed else "bold red")
    return text


def weak_heading(shown: int, total: int, kept: int) -> str:
    """The weak-path list's heading: complete, or "showing N of M" and how to see the rest."""
    if shown >= total:
        return f"Weak paths ({total})"
    how = "--max-weak 0 lists every kept entry" if shown < kept else ""
    if kept < total:
        more = "--grades FILE writes every run's grade"
        how = f"{how}; {more}" if how else more
    return f"Weak paths: showing {shown} of {total} ({how})"


def _weak_entry(console: Console, entry: WeakPath) -> None:
    flags = ", ".join(f.replace("_", " ") for f in entry.flags)
    line = styled(entry.task_id, "bold")
    line.append(" ")
    line.append(styled(f"({entry.run_id})", "dim"))
    facts = [flags, f"epoch {entry.epoch}", f"steps {entry.steps}"]
    if entry.path_score is not None:
        facts.append(f"path {entry.path_score}")
    if entry.surfaced is not None:
        facts.append(
            "relevant result surfaced" if entry.surfaced else "relevant result NOT surfaced"
        )
    line.append(styled(" " + " · ".join(facts)))
    console.print(Prose(line, indent=4, hanging=True))
    console.print(Prose(entry.reason, indent=6))


def print_scorecard(
    console: Console,
    scorecard: Scorecard,
    gates: Sequence[GateResult] = (),
    *,
    judge_note: str | None = None,
    max_weak: int = 20,
    certifications: Sequence[Certification] = (),
) -> None:
    """Render the scorecard (and any gates) on ``console``.

    Tables fit the console's width (see :func:`pathjudge.report.text.print_table`); ``max_weak``
    weak-path entries are listed (0 = every kept entry), and the heading says when that is not all.
    Each judged criterion's rate is followed by its certification (``certifications``, by
    criterion; uncertified when none is given for it).
    """
    sc = scorecard
    print_table(
        console,
        f"Agent scorecard — {sc.suite} ({sc.runs} runs, {sc.tasks} tasks)",
        [Column("level", "id"), Column("value", "num", "right"), Column("detail", "text")],
        _levels(sc),
    )
    print_table(
        console,
        "Five axes (mean of gating checks)",
        [Column("axis", "id"), Column("mean", "num", "right")],
        [(axis.replace("_", " "), _num(value)) for axis, value in sc.axes.items()],
    )
    _print_tasks(console, sc)
    if sc.judged:
        _print_judged(console, sc)
        _print_certifications(console, sc, certifications)
        if judge_note:
            console.print(judge_note)
    if sc.weak_total:
        listed = sc.weak if max_weak <= 0 else sc.weak[:max_weak]
        console.print(styled(weak_heading(len(listed), sc.weak_total, len(sc.weak)), "bold"))
        for entry in listed:
            _weak_entry(console, entry)
    else:
        console.print("no weak paths")
    if sc.check_errors:
        _print_broken(console, sc)
    for gate in gates:
        console.print(gate_line(gate))


def _levels(sc: Scorecard) -> list[tuple[str, str, str]]:
    """The scorecard's rows: the three levels, partial credit, the path score, the overall score."""
    decided = sc.success_passed + sc.success_failed
    detail = f"{sc.success_passed}/{decided} runs"
    if sc.success_undecided:
        detail += f", {sc.success_undecided} undecided"
    verdicts = f"{sc.verdict_passed}/{sc.verdict_passed + sc.verdict_failed} runs"
    if sc.verdict_excluded:
        verdicts += f", {sc.verdict_excluded} undecided excluded"
    levels: list[tuple[str, str, str]] = [
        ("task success rate", _num(sc.success_rate), detail),
        ("runs passed", _num(sc.passed_rate), verdicts + " (one verdict per run)"),
        ("partial credit", _num(sc.partial_credit), "mean success score (multi-part tasks)"),
        (
            "tool-call correctness",
            _num(sc.tool_calls),
            "mean of tool-selection and argument checks",
        ),
        ("trajectory quality", _num(sc.trajectory), "matched a reference with no redundant call"),
        ("path score", _num(sc.path_score, 1), "100 minus fault costs, best reference"),
    ]
    if sc.surfaced is not None:
        levels.append(("relevant result surfaced", _num(sc.surfaced), "share of runs"))
    weights = ", ".join(f"{k}={v:g}" for k, v in sc.weights.items())
    levels.append(("overall (weighted)", _num(sc.overall), weights))
    return levels


def _print_tasks(console: Console, sc: Scorecard) -> None:
    """The per-task table, and the tasks no run was of."""
    print_table(
        console,
        "Per task",
        [
            Column("task", "id"),
            *number_columns("runs", "success", "tool calls", "trajectory", "path", "steps", "weak"),
        ],
        [
            (
                row.task_id,
                str(row.runs),
                _num(row.success_rate),
                _num(row.tool_calls),
                _num(row.trajectory),
                _num(row.path_score, 0),
                f"{row.mean_steps:.1f}",
                str(row.weak) if row.weak else "",
            )
            for row in sc.task_rows
        ],
    )
    if sc.tasks_without_runs:
        console.print(f"tasks without runs: {count_and_first(sc.tasks_without_runs)}")


def _print_judged(console: Console, sc: Scorecard) -> None:
    """The judged criteria's table: each status counted, and the pass rate."""
    print_table(
        console,
        "Judged criteria",
        [
            Column("criterion", "id"),
            *number_columns("pass", "fail", "unsure", "error", "not run", "pass rate"),
        ],
        [
            (
                j.criterion,
                str(j.passed),
                str(j.failed),
                str(j.unsure),
                str(j.error),
                str(j.not_run),
                _num(j.pass_rate),
            )
            for j in sc.judged
        ],
    )


def _print_certifications(
    console: Console, sc: Scorecard, certifications: Sequence[Certification]
) -> None:
    """One line per judged criterion: its pass rate certified (date, bounds) or uncertified (why)."""
    labels = {c.criterion: c.label for c in certifications}
    for j in sc.judged:
        label = labels.get(j.criterion, "uncertified (no certificate)")
        console.print(Prose(f"{j.criterion}: {label}", indent=2, hanging=True))


def _print_broken(console: Console, sc: Scorecard) -> None:
    """The checks that could not run (status error): the first ten, then how many more."""
    console.print(
        styled(
            f"{sc.check_errors} checks could not run (status error): their runs are undecided, "
            "not failed; checks that broke:",
            "yellow",
        )
    )
    for broken in sc.broken_checks[:10]:
        console.print(
            Prose(
                f"  {broken.check} x{broken.count} (first on run {broken.example_run}): "
                f"{broken.reason}",
                indent=4,
                hanging=True,
            )
        )
    if len(sc.broken_checks) > 10:
        console.print(f"  ... and {len(sc.broken_checks) - 10} more (see --json)")
