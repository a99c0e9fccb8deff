"""``pathjudge export``: grades and verdicts as OpenTelemetry evaluation events."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pathjudge._cli.app import app, out_console
from pathjudge.errors import InputError

_Grades = Annotated[
    str, typer.Argument(help="The per-run grades `pathjudge score --grades` wrote (JSONL).")
]
_Runs = Annotated[
    Path | None,
    typer.Option(
        "--runs", help="The graded runs: events of runs imported from OTel join their trace."
    ),
]
_File = Annotated[
    Path | None, typer.Option("--otlp-file", help="Write the events as OTLP/JSON to this file.")
]
_Endpoint = Annotated[
    str | None,
    typer.Option(
        "--otlp-endpoint",
        help="Send the events to this OTLP/HTTP collector, e.g. http://localhost:4318.",
    ),
]
_Timeout = Annotated[
    float, typer.Option("--timeout", help="--otlp-endpoint: seconds the export may take.")
]


@app.command("export")
def export(
    grades: _Grades,
    runs: _Runs = None,
    otlp_file: _File = None,
    otlp_endpoint: _Endpoint = None,
    timeout: _Timeout = 10.0,
) -> None:
    """Export every run's grade and judge verdicts as `gen_ai.evaluation.result` events.

    Needs `pip install 'pathjudge[otel]'`. Events of runs imported with `--from otel` are attached to
    the trace and root span of the run they grade.
    """
    from pathjudge._cli.report import read_grades
    from pathjudge.agent.io import read_runs
    from pathjudge.report.otlp import evaluation_events, send_otlp, write_otlp_json

    if otlp_file is None and otlp_endpoint is None:
        raise InputError(
            "no destination given",
            field="--otlp-file",
            hint="pass --otlp-file events.json or --otlp-endpoint http://localhost:4318",
        )
    if not timeout > 0:
        raise InputError("--timeout must be a positive number of seconds", field="--timeout")
    graded = read_grades(grades)
    by_id = {run.run_id: run for run in read_runs(runs)} if runs is not None else {}
    try:
        events = evaluation_events(graded, by_id)
    except InputError as exc:  # a run's trace or span id: name the runs file
        raise InputError(exc.message, file=runs, field=exc.field, task_id=exc.task_id,
                         hint=exc.hint) from None  # fmt: skip
    if otlp_file is not None:
        write_otlp_json(otlp_file, events)
    if otlp_endpoint is not None:
        send_otlp(otlp_endpoint, events, timeout=timeout)
    traced = sum(1 for event in events if event.trace_id is not None)
    out_console.print(
        f"[green]exported[/] {len(events)} evaluation events for {len(graded)} runs "
        f"({traced} attached to their trace)",
        markup=True,
    )
