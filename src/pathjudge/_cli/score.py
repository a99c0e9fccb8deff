"""``pathjudge score``: grade a runs file against a suite and print the scorecard."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pathjudge._cli.app import app, err_console, out_console


@app.command()
def score(
    runs: Annotated[Path, typer.Argument(help="Runs JSONL (pathjudge's trajectory schema).")],
    suite: Annotated[Path, typer.Option("--suite", "-s", help="Suite YAML.")],
    fast: Annotated[
        bool, typer.Option("--fast", help="Assertions only: judged criteria are 'not run'.")
    ] = False,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write the versioned JSON report here.")
    ] = None,
    junit: Annotated[
        Path | None, typer.Option("--junit", help="Write JUnit XML (one case per task) here.")
    ] = None,
    fail_under: Annotated[
        str | None,
        typer.Option(
            "--fail-under", help="Thresholds, e.g. success=1.0,trajectory=0.75 (exit 1 if missed)."
        ),
    ] = None,
    weights: Annotated[
        str | None,
        typer.Option("--weights", help="Overall-score weights, e.g. success=2,trajectory=1."),
    ] = None,
    verdicts: Annotated[
        Path | None,
        typer.Option(
            "--verdicts", help="Recorded judge verdicts JSONL (item_id, verdict, reasoning)."
        ),
    ] = None,
    grades_out: Annotated[
        Path | None, typer.Option("--grades", help="Stream every run's full grade to this JSONL.")
    ] = None,
    include_runs: Annotated[
        bool, typer.Option("--include-runs", help="Put every run's grade in the JSON report too.")
    ] = False,
    strict: Annotated[
        bool,
        typer.Option("--strict", help="JUnit: a poor path or a repeated call fails its task too."),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only gate results.")] = False,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs", "-j", min=1, help="Worker processes (plain JSONL, scorecard outputs only)."
        ),
    ] = 1,
) -> int:
    """Grade RUNS against SUITE: task success, tool-call correctness, trajectory quality, five axes."""
    from pathjudge.agent.io import JsonlAppender, read_runs
    from pathjudge.errors import InputError
    from pathjudge.report.json_report import ScoreReport, write_report
    from pathjudge.report.junit import write_junit
    from pathjudge.report.terminal import print_scorecard
    from pathjudge.rubrics.suite import load_suite
    from pathjudge.scoring.grade import RunGrade, grade_lean, score_file_parallel
    from pathjudge.scoring.judged import load_verdicts
    from pathjudge.scoring.scorecard import (
        ScorecardBuilder,
        evaluate_gates,
        parse_thresholds,
        parse_weights,
    )

    if jobs > 1 and (grades_out is not None or include_runs or runs.suffix == ".gz"):
        raise InputError(
            "--jobs above 1 grades into the scorecard only",
            field="--jobs",
            hint="drop --grades/--include-runs (or use --jobs 1), and pass an uncompressed JSONL",
        )
    thresholds = parse_thresholds(fail_under) if fail_under else {}
    weight_map = parse_weights(weights) if weights else None
    loaded = load_suite(suite)
    recorded = load_verdicts(verdicts) if verdicts is not None and not fast else None
    builder = ScorecardBuilder(loaded, weights=weight_map)
    kept: list[RunGrade] = []
    appender = None
    if grades_out is not None:
        grades_out.parent.mkdir(parents=True, exist_ok=True)
        grades_out.write_bytes(b"")  # a fresh file: grades of this run only
        appender = JsonlAppender(grades_out)
    try:
        if jobs > 1:
            score_file_parallel(runs, loaded, recorded, fast=fast, jobs=jobs, builder=builder)
        for lean in (
            () if jobs > 1 else grade_lean(read_runs(runs), loaded, recorded, fast=fast, file=runs)
        ):
            builder.add(lean)
            if appender is not None or include_runs:
                graded = lean.to_model()
                if appender is not None:
                    appender.write(graded)
                if include_runs:
                    kept.append(graded)
    finally:
        if appender is not None:
            appender.close()
    card = builder.build()
    gates = evaluate_gates(card, thresholds)
    passed = all(g.passed for g in gates)
    judge = "fast" if fast else ("verdicts" if recorded is not None else "none")
    if json_out is not None:
        write_report(
            json_out,
            ScoreReport(
                suite_file=str(suite),
                runs_file=str(runs),
                fast=fast,
                judge=judge,
                scorecard=card,
                gates=tuple(gates),
                passed=passed,
                runs=tuple(kept) if include_runs else None,
            ),
        )
    if junit is not None:
        write_junit(junit, card, [t.id for t in loaded.tasks], strict=strict)
    note = {
        "fast": "judged criteria: not run (fast mode)",
        "none": "judged criteria: not run (no judge configured; pass --verdicts V.jsonl)",
        "verdicts": f"judged criteria: from {verdicts}",
    }[judge]
    if not quiet:
        print_scorecard(out_console, card, gates, judge_note=note)
    else:
        for gate in gates:
            out_console.print(
                f"gate {gate.metric} >= {gate.threshold:g}: {gate.actual} {'ok' if gate.passed else 'MISSED'}"
            )
    if not passed:
        missed = ", ".join(
            f"{g.metric} {g.actual if g.actual is None else round(g.actual, 3)} < {g.threshold:g}"
            for g in gates
            if not g.passed
        )
        err_console.print(f"thresholds missed: {missed}")
        return 1
    return 0
