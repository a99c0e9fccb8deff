"""``pathjudge show``: what is in a runs file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pathjudge._cli.app import app, out_console, print_problems
from pathjudge.errors import RecordError


@app.command()
def show(
    runs: Annotated[
        Path,
        typer.Argument(
            help="A runs JSONL file (pathjudge's trajectory schema), or a verdicts JSONL file "
            "(from `pathjudge judge` or any grader): then a table of item, verdict, reasoning, "
            "evidence and judge."
        ),
    ],
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    keep_going: Annotated[
        bool, typer.Option("--keep-going", help="Report bad lines and summarise the good ones.")
    ] = False,
    max_tools: Annotated[int, typer.Option(help="Tools listed per task.")] = 4,
    max_tasks: Annotated[
        int,
        typer.Option(min=0, help="Tasks listed in the table (0 = all); totals always cover all."),
    ] = 200,
) -> None:
    """Per-task counts, steps, errors and tools used, streamed in constant memory; or a verdicts table."""
    from pathjudge.report.verdicts import is_verdicts_file

    if is_verdicts_file(runs):
        _show_verdicts(runs, json_out=json_out, limit=max_tasks)
        return
    from pathjudge.agent.io import read_runs
    from pathjudge.agent.stats import summarize_runs

    errors: list[RecordError] | None = [] if keep_going else None
    summary = summarize_runs(read_runs(runs, errors=errors))
    if errors:
        print_problems("[yellow]skipped:[/]", errors, more="more bad lines")
    if json_out:
        out_console.print_json(summary.model_dump_json())
        return
    from rich.table import Table

    table = Table(title=f"{runs} — {summary.runs} runs, {len(summary.tasks)} tasks")
    for name, justify in [
        ("task", "left"),
        ("runs", "right"),
        ("epochs", "right"),
        ("steps (mean/min/max)", "right"),
        ("errors", "right"),
        ("malformed args", "right"),
        ("no answer", "right"),
        ("tools", "left"),
    ]:
        # narrow terminals (CI logs: 80 columns) fold a cell onto more lines instead of cutting it
        # to "weathe…", so task ids, headers and tool names stay whole
        table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
    listed = summary.tasks if max_tasks <= 0 else summary.tasks[:max_tasks]
    for task in listed:
        tools = ", ".join(f"{name}×{n}" for name, n in list(task.tools.items())[:max_tools])
        if len(task.tools) > max_tools:
            tools += f", +{len(task.tools) - max_tools} more"
        table.add_row(
            task.task_id,
            str(task.runs),
            str(task.epochs),
            f"{task.mean_steps:.1f} / {task.min_steps} / {task.max_steps}",
            f"{task.errors} in {task.runs_with_errors} runs" if task.errors else "0",
            str(task.malformed_arguments),
            str(task.no_answer),
            tools or "—",
        )
    out_console.print(table)
    if len(listed) < len(summary.tasks):
        out_console.print(
            f"... {len(summary.tasks) - len(listed)} more tasks not listed (--max-tasks 0 lists all)"
        )
    out_console.print(
        f"{summary.runs} runs · {summary.steps} tool calls · {summary.errors} errored results · "
        f"{len(summary.tools)} distinct tools"
    )


def _show_verdicts(path: Path, *, json_out: bool, limit: int) -> None:
    """The verdicts table: item, verdict, reasoning excerpt, evidence, judge."""
    import json
    from dataclasses import asdict

    from pathjudge.report.verdicts import (
        excerpt,
        judge_line,
        load_verdict_rows,
        quote_mark,
        verdicts_summary,
        visible,
    )

    rows = load_verdict_rows(path)
    summary = verdicts_summary(rows, file=path)
    if json_out:
        out_console.print(
            json.dumps(
                {"summary": asdict(summary), "verdicts": [asdict(row) for row in rows]},
                ensure_ascii=False,
                indent=2,
            ),
            markup=False,
            highlight=False,
        )
        return
    counts = ", ".join(f"{name} {n}" for name, n in sorted(summary.verdicts.items()))
    from rich.table import Table

    table = Table(title=visible(f"{path} — {summary.items} items: {counts}"), title_justify="left")
    for name, ratio in (
        ("item", 1),
        ("verdict", 1),
        ("reasoning", 4),
        ("evidence", 3),
        ("judge", 2),
    ):
        table.add_column(name, overflow="fold", ratio=ratio)
    listed = rows if limit <= 0 else rows[:limit]
    for row in listed:
        if row.evidence:
            quotes = "\n".join(
                quote_mark(row, q) + "“" + excerpt(visible(q), 80) + "”" for q in row.evidence[:3]
            )
            if len(row.evidence) > 3:
                quotes += f"\n+{len(row.evidence) - 3} more"
        else:
            quotes = "—"
        judge = row.judge.describe()
        if row.votes:
            judge += " · " + ", ".join(f"{k} {v}" for k, v in row.votes.items() if v)
        elif row.sample is not None:
            judge += f" · sample {row.sample}"
        table.add_row(
            visible(row.item_id),
            row.verdict,
            excerpt(visible(row.reasoning), 160),
            quotes,
            visible(judge),
        )
    out_console.print(table)
    if len(listed) < len(rows):
        out_console.print(
            f"... {len(rows) - len(listed)} more lines not listed (--max-tasks 0 lists all)"
        )
    out_console.print(visible(judge_line(summary)))
    if summary.evidence_checked:
        out_console.print(
            f"evidence: {summary.evidence_unverified} of {summary.evidence_checked} checked verdicts "
            "cite a quote not found in the judged inputs (✗)"
        )
