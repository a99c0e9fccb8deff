"""``pathjudge audit``: grade a suite against null agents and its own references; exit 1 if unsound."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pathjudge._cli.app import (
    app,
    err_console,
    json_to_stdout,
    out_console,
    write_json,
)
from pathjudge._cli.config import load_suite_for_cli
from pathjudge._cli.options import AllowCallables, JsonOut


@app.command("audit")
def audit_command(
    suite: Annotated[Path, typer.Argument(help="The suite YAML to audit.")],
    runs: Annotated[
        Path | None,
        typer.Option(
            "--runs", help="Real runs of the suite to mutate (default: its passing references)."
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the random-tools agent.")] = 0,
    json_out: JsonOut = None,
    html: Annotated[
        Path | None, typer.Option("--html", help="Also write the suite-health page here.")
    ] = None,
    allow_callables: AllowCallables = False,
) -> None:
    """Grade the suite against agents that do no work (do nothing, refuse, echo the question, call
    random tools) and against its own references replayed; no judge is called. A task a null agent
    passes, or that its own reference fails, is unsound: exit 1 when any is."""
    from pathjudge.agent.io import read_runs
    from pathjudge.report.audit import print_audit, write_audit_html
    from pathjudge.scoring.audit import audit_suite

    loaded = load_suite_for_cli(suite, allow_callables=allow_callables)
    report = audit_suite(loaded, seed=seed, runs=read_runs(runs) if runs is not None else None)
    if not json_to_stdout(json_out):
        print_audit(out_console, report)
    if html is not None:
        err_console.print(f"wrote {write_audit_html(report, html)}")
    write_json(json_out, report.model_dump_json(indent=2))
    if not report.sound:
        raise typer.Exit(1)
