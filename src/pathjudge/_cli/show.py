"""``pathjudge show``: what is in a runs file."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from pathjudge._cli.app import (
    app,
    json_to_stdout,
    out_console,
    print_problems,
    write_json,
)
from pathjudge._cli.inputs import runs_not_transcript
from pathjudge._cli.options import JsonOut
from pathjudge.errors import RecordError

if TYPE_CHECKING:
    from pathjudge._progress import ProgressHandle

T = TypeVar("T")

_HEADERS = ("task", "runs", "epochs", "steps avg/min/max", "errors", "bad args", "no answer")


_Runs = Annotated[
    Path,
    typer.Argument(
        help="A runs JSONL file (pathjudge's trajectory schema), or a verdicts JSONL file "
        "(from `pathjudge judge` or any grader): then a table of item, verdict, reasoning "
        "and evidence under the judge's name (a judge column when several judged)."
    ),
]
_KeepGoing = Annotated[
    bool, typer.Option("--keep-going", help="Report bad lines and summarise the good ones.")
]
_MaxTools = Annotated[int, typer.Option(help="Tools listed per task.")]
_MaxTasks = Annotated[
    int,
    typer.Option(min=0, help="Tasks listed in the table (0 = all); totals always cover all."),
]
_Quiet = Annotated[
    bool, typer.Option("--quiet", "-q", help="No progress bar while a long file is read.")
]


@app.command()
def show(
    runs: _Runs,
    json_out: JsonOut = None,
    keep_going: _KeepGoing = False,
    max_tools: _MaxTools = 4,
    max_tasks: _MaxTasks = 200,
    quiet: _Quiet = False,
) -> None:
    """Per-task counts, steps, errors and tools used, streamed in constant memory; or a verdicts table.

    Tasks are listed in natural order (task-2 before task-10). On a terminal the summary is a table;
    piped (a CI log, grep) it is one line per task under a header line.
    """
    from pathjudge.judge.verdicts_file import is_verdicts_file

    if is_verdicts_file(runs):
        _show_verdicts(runs, json_out=json_out, limit=max_tasks)
        return
    from pathjudge.agent.io import read_runs
    from pathjudge.agent.stats import summarize_runs
    from pathjudge.report.progress import progress_bars
    from pathjudge.report.text import Column, natural_key, print_table

    errors: list[RecordError] | None = [] if keep_going else None
    # a bar on stderr for a long file read on a terminal (nothing for a short one, or piped)
    bars = progress_bars(False if quiet else None)
    with runs_not_transcript(runs, then="show"), bars(f"reading {runs.name}", None) as bar:
        summary = summarize_runs(_advancing(read_runs(runs, errors=errors), bar))
    summary = summary.model_copy(
        update={"tasks": tuple(sorted(summary.tasks, key=lambda t: natural_key(t.task_id)))}
    )
    if errors:
        print_problems("[yellow]skipped:[/]", errors, more="more bad lines")
    write_json(json_out, summary.model_dump_json(indent=2))
    if json_to_stdout(json_out):
        return
    listed = summary.tasks if max_tasks <= 0 else summary.tasks[:max_tasks]
    rows: list[tuple[str, ...]] = []
    for task in listed:
        tools = ", ".join(f"{name}×{n}" for name, n in list(task.tools.items())[:max_tools])
        if len(task.tools) > max_tools:
            tools += f", +{len(task.tools) - max_tools} more"
        rows.append(
            (
                task.task_id,
                str(task.runs),
                str(task.epochs),
                f"{task.mean_steps:.1f}/{task.min_steps}/{task.max_steps}",
                f"{task.errors} in {task.runs_with_errors}" if task.errors else "0",
                str(task.malformed_arguments),
                str(task.no_answer),
                tools or "—",
            )
        )
    title = f"{runs} — {summary.runs} runs, {len(summary.tasks)} tasks"
    if out_console.is_terminal:
        print_table(
            out_console,
            title,
            [
                Column("task", "id"),
                *(Column(h, "num", "right") for h in _HEADERS[1:]),
                Column("tools", "text"),
            ],
            rows,
        )
    else:
        out_console.print(title)
        _print_plain((*_HEADERS, "tools"), rows)
    if len(listed) < len(summary.tasks):
        out_console.print(
            f"... {len(summary.tasks) - len(listed)} more tasks not listed (--max-tasks 0 lists all)"
        )
    out_console.print(
        f"{_count(summary.runs, 'run')} · {_count(summary.steps, 'tool call')} · "
        f"{_count(summary.errors, 'errored result')} · {_count(len(summary.tools), 'distinct tool')}"
    )


def _count(n: int, noun: str) -> str:
    """``1 run``, ``2 runs``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _advancing(records: Iterable[T], bar: ProgressHandle) -> Iterator[T]:
    """``records``, telling ``bar`` of each one."""
    advance = bar.advance
    for record in records:
        advance(1)
        yield record


def _print_plain(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    """One aligned line per row, columns two spaces apart, numbers right-aligned, the last column free."""
    from rich.cells import cell_len

    from pathjudge.report.text import one_line

    cells = [tuple(one_line(c) for c in row) for row in rows]
    widths = [
        max([cell_len(h), *(cell_len(row[j]) for row in cells)]) for j, h in enumerate(headers)
    ]

    def line(values: tuple[str, ...], *, header: bool = False) -> str:
        parts: list[str] = []
        for j, value in enumerate(values):
            pad = widths[j] - cell_len(value)
            if j == len(values) - 1:
                parts.append(value)
            elif j == 0 or header:
                parts.append(value + " " * pad)
            else:
                parts.append(" " * pad + value)
        return "  ".join(parts).rstrip()

    out_console.print(line(headers, header=True), soft_wrap=True)
    for row in cells:
        out_console.print(line(row), soft_wrap=True)


def _show_verdicts(path: Path, *, json_out: Path | None, limit: int) -> None:
    """The verdicts table: item, verdict, reasoning excerpt, evidence, judge."""
    import json
    from dataclasses import asdict

    from pathjudge.judge.verdicts_file import read_verdicts_file
    from pathjudge.report.text import Column, Prose, print_table
    from pathjudge.report.verdicts import (
        excerpt,
        judge_line,
        quote_mark,
        verdict_rows,
        verdicts_summary,
        visible,
    )

    rows = verdict_rows(read_verdicts_file(path))
    summary = verdicts_summary(rows, file=path)
    write_json(
        json_out,
        json.dumps(
            {"summary": asdict(summary), "verdicts": [asdict(row) for row in rows]},
            ensure_ascii=False,
            indent=2,
        ),
    )
    if json_to_stdout(json_out):
        return
    counts = ", ".join(f"{name} {n}" for name, n in sorted(summary.verdicts.items()))
    listed = rows if limit <= 0 else rows[:limit]
    # one judge behind every line (the usual case) is named once above the table, not on each row;
    # votes get a column only when some item was judged more than once
    one_judge = len(summary.judges) == 1
    with_votes = any(sum((row.votes or {}).values()) > 1 or row.sample is not None for row in rows)
    cells = []
    for row in listed:
        if row.evidence:
            quotes = "\n".join(
                quote_mark(row, q) + "“" + excerpt(visible(q), 80) + "”" for q in row.evidence[:3]
            )
            if len(row.evidence) > 3:
                quotes += f"\n+{len(row.evidence) - 3} more"
        else:
            quotes = "—"
        votes = ""
        if row.votes:
            votes = ", ".join(f"{k} {v}" for k, v in row.votes.items() if v)
        elif row.sample is not None:
            votes = f"sample {row.sample}"
        cell = [visible(row.item_id), row.verdict, excerpt(visible(row.reasoning), 160), quotes]
        if not one_judge:
            cell.append(visible(row.judge.describe()))
        if with_votes:
            cell.append(votes or "—")
        cells.append(tuple(cell))
    columns = [
        Column("item", "id"),
        Column("verdict", "num"),
        Column("reasoning", "text"),
        Column("evidence", "text"),
    ]
    if not one_judge:
        columns.append(Column("judge", "text"))
    if with_votes:
        columns.append(Column("votes", "text"))
    title: str | None = f"{path} — {summary.items} items: {counts}"
    if one_judge:
        out_console.print(Prose(title or ""))
        # "judge: ..." once, wrapped under itself
        out_console.print(Prose(visible(judge_line(summary)), indent=7, hanging=True))
        title = None
    print_table(out_console, title, columns, cells)
    if len(listed) < len(rows):
        out_console.print(
            f"... {len(rows) - len(listed)} more lines not listed (--max-tasks 0 lists all)"
        )
    if not one_judge:
        out_console.print(visible(judge_line(summary)))
    if summary.evidence_checked:
        out_console.print(
            f"evidence: {summary.evidence_unverified} of {summary.evidence_checked} checked verdicts "
            "cite a quote not found in the judged inputs (✗)"
        )
