"""``pathjudge run``: collect live runs of an agent on a suite (concurrent, resumable)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pathjudge._cli.app import (
    app,
    err_console,
    json_to_stdout,
    out_console,
    print_problems,
    report_interrupt,
    write_json,
)
from pathjudge._cli.config import load_suite_for_cli
from pathjudge._cli.inputs import runs_not_transcript
from pathjudge._cli.options import AllowCallables, ConfigFile, JsonOut, SuiteOfRuns

if TYPE_CHECKING:
    from pathjudge.agent.collect import CollectResult, RunOptions
    from pathjudge.report.text import Column
    from pathjudge.scoring.variance import TaskVariance, VarianceReport


_Suite = Annotated[Path, typer.Argument(help="The suite YAML whose tasks the agent runs.")]
_Output = Annotated[
    Path, typer.Option("-o", "--output", help="Runs JSONL to append to (resumed if it exists).")
]
_Agent = Annotated[str | None, typer.Option(help="Agent under test: docent.")]
_Backend = Annotated[
    str | None,
    typer.Option(
        help="Model backend (config agent.backend): anthropic, openai-compatible, "
        "llama-cpp (a llama.cpp server) or scripted (offline Docent)."
    ),
]
_Model = Annotated[
    str | None,
    typer.Option(help="Model name (config agent.model; default claude-haiku-4-5 for anthropic)."),
]
_BaseUrl = Annotated[
    str | None,
    typer.Option(help="API base URL ending in /v1 for openai-compatible (config agent.base_url)."),
]
_Epochs = Annotated[int | None, typer.Option(help="Runs per task (default 1).")]
_Concurrency = Annotated[
    int | None, typer.Option(help="Runs in flight at once (config concurrency; default 8).")
]
_MaxSteps = Annotated[int | None, typer.Option(help="Model turns per run (default 4).")]
_MaxTokens = Annotated[int | None, typer.Option(help="Output tokens per model turn (default 400).")]
_Retriever = Annotated[
    str | None,
    typer.Option(help="Docent's retriever: keyword, or worst_match (deliberately broken)."),
]
_Task = Annotated[list[str] | None, typer.Option(help="Only this task id (repeatable).")]


@app.command("run")
def run_command(
    suite: _Suite,
    output: _Output,
    agent: _Agent = None,
    backend: _Backend = None,
    model: _Model = None,
    base_url: _BaseUrl = None,
    epochs: _Epochs = None,
    concurrency: _Concurrency = None,
    max_steps: _MaxSteps = None,
    max_tokens: _MaxTokens = None,
    retriever: _Retriever = None,
    task: _Task = None,
    config_file: ConfigFile = None,
) -> None:
    """Run the agent on every task for N epochs; each finished run is appended at once, and a rerun
    skips every (task, epoch) already in the output, so Ctrl-C loses nothing finished.

    Backend, model, base URL and concurrency resolve command line > PATHJUDGE_* environment >
    configuration file > defaults (see `pathjudge config`)."""
    import asyncio

    from pathjudge._cli.config import resolve_for_cli
    from pathjudge.agent.collect import (
        collect_suite,
        config_backend_name,
        resolve_run_options,
        run_config,
    )
    from pathjudge.report.progress import progress_bars
    from pathjudge.rubrics.suite import load_suite

    resolved = resolve_for_cli(
        {
            "agent.backend": config_backend_name(backend) if backend is not None else None,
            "agent.model": model,
            "agent.base_url": base_url,
            "concurrency": concurrency,
        },
        config_file=config_file,
    )
    options = resolve_run_options(
        agent=agent,
        epochs=epochs,
        max_steps=max_steps,
        max_tokens=max_tokens,
        retriever=retriever,
        config=run_config(resolved),
    )
    loaded = load_suite(suite)
    try:
        result = asyncio.run(
            collect_suite(loaded, output, options, only=task, progress=progress_bars())
        )
    except KeyboardInterrupt:
        report_interrupt(
            f"interrupted; every finished run is saved in {output} — rerun the same command to resume."
        )
        raise typer.Exit(130) from None
    _print_collected(result, output, loaded.name, options)


def _print_collected(
    result: CollectResult, output: Path, suite_name: str, options: RunOptions
) -> None:
    """What was written and skipped, a warning when the output held foreign runs; exit 1 when some
    runs failed (they were not written: a rerun retries them)."""
    if result.foreign:
        err_console.print(
            f"warning: {output} already held {result.foreign} run(s) of tasks outside suite "
            f"{suite_name} or of another agent; the new runs were appended after them — "
            "write each agent and suite to its own -o file so scoring does not mix them.",
            markup=False,
        )
    out_console.print(
        f"{result.written} runs written to {result.output} "
        f"({result.skipped} of {result.planned} already finished; "
        f"agent {options.agent}, {options.backend}:{options.model}, {options.epochs} epoch(s))"
    )
    if result.failed:
        print_problems(
            "[red]failed:[/]",
            [f"{f.task_id} epoch {f.epoch}: {f.error}" for f in result.failed],
        )
        err_console.print(
            f"{len(result.failed)} runs failed and were not written; rerun the same command to retry them."
        )
        raise typer.Exit(1)


_Runs = Annotated[Path, typer.Argument(help="Runs JSONL with several epochs per task.")]
_K = Annotated[str, typer.Option("--k", help="Comma-separated k values for pass@k and pass^k.")]
_Level = Annotated[float, typer.Option(help="Confidence level of the clustered intervals.")]
_MinEpochs = Annotated[
    int | None,
    typer.Option(
        "--min-epochs",
        min=1,
        help="Graded epochs a task needs to be called stable or broken (default: the largest k); "
        "with fewer it is 'insufficient'.",
    ),
]


@app.command("variance")
def variance_command(
    runs: _Runs,
    suite: SuiteOfRuns,
    k: _K = "1,3",
    level: _Level = 0.95,
    min_epochs: _MinEpochs = None,
    json_out: JsonOut = None,
    allow_callables: AllowCallables = False,
) -> None:
    """Run-to-run variation: per task and suite pass@k / pass^k, stable/flaky/broken, clustered CIs.

    A task whose epochs all agree but number fewer than --min-epochs (default: the largest k) is
    labelled 'insufficient', not stable or broken.
    """
    from pathjudge.agent.io import read_runs, unique_runs
    from pathjudge.errors import InputError
    from pathjudge.report.text import print_table
    from pathjudge.scoring.grade import grade
    from pathjudge.scoring.variance import outcomes_from_grades, variance_report

    try:
        ks = tuple(int(part) for part in k.split(",") if part.strip())
    except ValueError:
        raise InputError(
            f"--k must be comma-separated whole numbers, got {k!r}", field="--k"
        ) from None
    if not ks or min(ks) < 1:
        raise InputError(f"--k values must be >= 1, got {k!r}", field="--k")
    if not 0 < level < 1:
        raise InputError(f"--level must be between 0 and 1, got {level}", field="--level")
    loaded = load_suite_for_cli(suite, allow_callables=allow_callables)
    with runs_not_transcript(runs, then="variance"):
        outcomes = outcomes_from_grades(
            grade(unique_runs(read_runs(runs), file=runs), loaded, fast=True, file=runs)
        )
    report = variance_report(
        outcomes, ks=ks, level=level, task_order=[t.id for t in loaded.tasks], min_epochs=min_epochs
    )
    write_json(json_out, report.model_dump_json(indent=2))
    if json_to_stdout(json_out):
        return

    title = f"{runs}: variation over epochs (suite {loaded.name})"
    rows, columns = _variance_wide(report, ks)
    if not _fits(out_console.width, columns, rows):
        # one column per k and metric does not fit (--k 1,3,5 at 80 columns): the ks go down a
        # column instead, one line per k in each task's row, which fits whatever the ks
        rows, columns = _variance_tall(report, ks)
    print_table(out_console, title, columns, rows)
    suite_line = ", ".join(
        f"pass@{x} {_rate(report.pass_at[x])}, pass^{x} {_rate(report.pass_hat[x])}" for x in ks
    )
    undefined = any(v is None for v in (*report.pass_at.values(), *report.pass_hat.values()))
    note = " (n/a: some task has fewer epochs than k)" if undefined else ""
    out_console.print(f"suite: {suite_line}{note}")
    if report.success is not None:
        ci = report.success
        out_console.print(
            f"success rate {ci.mean:.3f}, {ci.level:.0%} CI clustered by task [{ci.low:.3f}, {ci.high:.3f}] "
            f"over {ci.n} runs in {ci.clusters} tasks"
        )
    counts = report.stability_counts
    out_console.print(", ".join(f"{n} {label}" for label, n in counts.items() if n))
    if counts.get("insufficient"):
        needed = max(ks) if min_epochs is None else min_epochs
        out_console.print(
            f"insufficient: fewer than {needed} graded epochs and no disagreement between them; "
            f"collect more epochs (pathjudge run --epochs {needed}) before calling a task stable"
        )


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _path_spread(task: TaskVariance) -> str:
    spread = task.metrics.get("path_score")
    if spread is None or spread.n == 0:
        return "—"
    return f"{spread.min:g}/{spread.mean:.3g}/{spread.max:g}"


def _variance_wide(
    report: VarianceReport, ks: tuple[int, ...]
) -> tuple[list[tuple[str, ...]], list[Column]]:
    """One row per task, one column per k and metric (pass@1, pass@3, pass^1, pass^3)."""
    from pathjudge.report.text import Column

    rows = [
        _task_row(
            task,
            *(_rate(task.pass_at[x]) for x in ks),
            *(_rate(task.pass_hat[x]) for x in ks),
        )
        for task in report.tasks
    ]
    columns = _task_columns(
        *(Column(f"pass@{x}", "num", "right") for x in ks),
        *(Column(f"pass^{x}", "num", "right") for x in ks),
    )
    return rows, columns


def _variance_tall(
    report: VarianceReport, ks: tuple[int, ...]
) -> tuple[list[tuple[str, ...]], list[Column]]:
    """One row per task with a line per k: columns k, pass@k and pass^k."""
    from pathjudge.report.text import Column

    rows = [
        _task_row(
            task,
            "\n".join(str(x) for x in ks),
            "\n".join(_rate(task.pass_at[x]) for x in ks),
            "\n".join(_rate(task.pass_hat[x]) for x in ks),
        )
        for task in report.tasks
    ]
    columns = _task_columns(
        Column("k", "text", "right"),
        Column("pass@k", "text", "right"),
        Column("pass^k", "text", "right"),
    )
    return rows, columns


def _task_row(task: TaskVariance, *rates: str) -> tuple[str, ...]:
    """A task's cells: id, passed/epochs and label, then ``rates``, then the path-score spread."""
    return (task.task_id, f"{task.c}/{task.n}", str(task.stability), *rates, _path_spread(task))


def _task_columns(*rates: Column) -> list[Column]:
    """The columns of :func:`_task_row`'s cells, with ``rates`` the columns of its rates."""
    from pathjudge.report.text import Column

    return [
        Column("task", "id"),
        Column("passed/ epochs", "num", "right"),
        Column("label", "num"),
        *rates,
        Column("path min/ mean/max", "num", "right"),
    ]


def _fits(width: int, columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> bool:
    """Whether :func:`~pathjudge.report.text.print_table` can lay ``rows`` out within ``width``
    cells, ids cut to their floor if need be (the same widths it computes)."""
    from pathjudge.report.text import fit_widths, one_line

    overhead = 2 * (len(columns) - 1)
    cells = [[one_line(cell) for cell in row] for row in rows]
    return sum(fit_widths(columns, cells, max(1, width - overhead))) + overhead <= width
