"""``pathjudge mutate``: break runs on purpose and show which check catches each kind of break."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pathjudge._cli.app import (
    app,
    json_to_stdout,
    out_console,
    report_interrupt,
    write_json,
)
from pathjudge._cli.config import load_suite_for_cli
from pathjudge._cli.inputs import runs_not_transcript
from pathjudge._cli.options import AllowCallables, JsonOut, SuiteOfRuns

if TYPE_CHECKING:
    from pathjudge.rubrics.suite import Suite
    from pathjudge.scoring.mutate import MutationKind, MutationReport


@app.command("mutate")
def mutate_command(
    runs: Annotated[Path, typer.Argument(help="Runs JSONL to perturb (real runs, ideally).")],
    suite: SuiteOfRuns,
    kind: Annotated[
        list[str] | None,
        typer.Option(
            help="Only this mutation (repeatable): drop_step, duplicate_call, reorder, corrupt_argument, "
            "refusal_answer, inject_tool_error."
        ),
    ] = None,
    retriever_experiment: Annotated[
        bool,
        typer.Option(
            "--retriever-experiment",
            help="Also run Docent (offline scripted policy) with the keyword and the worst-match retriever.",
        ),
    ] = False,
    strict: Annotated[
        bool, typer.Option(help="Exit 1 when some mutation kind is never caught.")
    ] = False,
    json_out: JsonOut = None,
    allow_callables: AllowCallables = False,
) -> None:
    """Perturbed copies of every run (drop a step, duplicate a call, reorder, corrupt an argument, refuse,
    inject a tool error), graded with the suite: a table of which check caught which mutation, and the gaps."""
    from pathjudge.errors import InputError
    from pathjudge.scoring.mutate import MUTATION_KINDS

    kinds: list[MutationKind] = []
    for name in kind or MUTATION_KINDS:
        match = next((k for k in MUTATION_KINDS if k == name), None)
        if match is None:
            raise InputError(
                f"unknown mutation {name!r}",
                field="--kind",
                hint=f"use one of: {', '.join(MUTATION_KINDS)}",
            )
        kinds.append(match)
    loaded = load_suite_for_cli(suite, allow_callables=allow_callables)
    try:
        with runs_not_transcript(runs, then="mutate"):
            _report(runs, loaded, kinds, retriever_experiment, strict, json_out)
    except KeyboardInterrupt:
        report_interrupt(
            "interrupted; pathjudge mutate writes nothing until it finishes, so nothing was saved "
            "— rerun the command to start over."
        )
        raise typer.Exit(130) from None


def _report(
    runs: Path,
    loaded: Suite,
    kinds: list[MutationKind],
    retriever_experiment: bool,
    strict: bool,
    json_out: Path | None,
) -> None:
    """Grade the mutants, print the table and gaps, run the experiment, write ``--json`` last."""
    import asyncio
    import json

    from pathjudge.agent.io import read_runs
    from pathjudge.scoring.mutate import mutation_report
    from pathjudge.scoring.mutate import retriever_experiment as experiment

    human = not json_to_stdout(json_out)
    report = mutation_report(read_runs(runs), loaded, kinds=kinds)
    if human:
        _print_mutations(report, runs)
    payload: dict[str, object] = {"mutations": json.loads(report.model_dump_json())}
    if retriever_experiment:
        result = asyncio.run(experiment(loaded))
        rates = (
            f"keyword {result.keyword_rate:.2f} → worst_match {result.worst_match_rate:.2f}"
            if result.keyword_rate is not None and result.worst_match_rate is not None
            else "no decided task"
        )
        if human:
            out_console.print(
                f"broken-retriever experiment ({result.model}, {len(result.tasks)} tasks): success {rates} — "
                + (
                    "collapsed, as it must"
                    if result.collapsed
                    else "did NOT collapse: the suite cannot see a broken retriever"
                )
            )
        payload["retriever_experiment"] = json.loads(result.model_dump_json())
    write_json(json_out, json.dumps(payload, indent=2))
    if strict and report.uncaught_kinds:
        raise typer.Exit(1)


def _caught_rows(report: MutationReport) -> list[tuple[str, str, str]]:
    """Per mutation kind: how many of the mutants that made a run worse were caught, and by what."""
    rows: list[tuple[str, str, str]] = []
    for name in report.kinds:
        applied = report.applied[name]
        caught = report.caught[name]
        better = report.improved.get(name, 0)
        catchers = ", ".join(
            f"{check}×{n}"
            for check, n in sorted(report.table[name].items(), key=lambda kv: (-kv[1], kv[0]))
        )
        status = f"{caught}/{applied - better}" if applied - better else "n/a"
        if better:
            status += f" +{better} better"
        rows.append((name, status, catchers or ("NOT CAUGHT" if applied - better else "—")))
    return rows


def _print_mutations(report: MutationReport, runs: Path) -> None:
    """The table of which check caught which mutation, the gaps, the improvements, the never caught."""
    from pathjudge.report.text import Column, Prose, print_table

    print_table(
        out_console,
        f"mutations of {report.runs} runs from {runs} — suite {report.suite}",
        [
            Column("mutation", "id"),
            Column("caught", "num", "right"),
            Column("caught by (check × mutants)", "text"),
        ],
        _caught_rows(report),
    )
    if report.gaps:
        out_console.print(f"{len(report.gaps)} gap(s): mutants no check caught")
        for gap in report.gaps:
            # a long entry wraps under itself, not at column 0
            out_console.print(
                Prose(
                    f"  {gap.task_id} ({gap.run_id}) {gap.kind}: {gap.what}",
                    indent=4,
                    hanging=True,
                )
            )
    else:
        out_console.print("no gaps: every mutant that made a run worse was caught")
    improvements = [r for r in report.results if r.improved]
    if improvements:
        out_console.print(
            f"{len(improvements)} mutant(s) made the run better (not gaps: nothing to catch)"
        )
        for better_run in improvements:
            out_console.print(
                Prose(
                    f"  {better_run.task_id} ({better_run.run_id}) {better_run.kind}: "
                    f"{better_run.what}",
                    indent=4,
                    hanging=True,
                )
            )
    if report.uncaught_kinds:
        out_console.print(f"never caught: {', '.join(report.uncaught_kinds)}")
