"""``pathjudge score``: grade a runs file against a suite and print the scorecard."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pathjudge._cli.app import JSON_HELP, app, err_console, json_to_stdout, out_console, write_json
from pathjudge._cli.config import ALLOW_CALLABLES_HELP, load_suite_for_cli

if TYPE_CHECKING:
    from rich.console import Console

    from pathjudge.judge.session import JudgeSession
    from pathjudge.scoring.pipeline import GradingEngine, ScoreReport
    from pathjudge.scoring.scorecard import GateResult, Scorecard


def write_rendered(
    report: ScoreReport,
    runs: Path,
    *,
    html: Path | None,
    markdown: Path | None,
    console: Console | None = None,
) -> None:
    """Write the HTML report and/or the Markdown summary of ``report`` as ``pathjudge report`` does.

    The HTML gets the trajectories of ``runs`` and, when some task ran several epochs, the variance
    section (pass@k / pass^k) computed from the report's per-run grades.
    """
    from pathjudge._cli.report import variance_from_grades

    variance = variance_from_grades(report)
    if html is not None:
        from pathjudge.report.html import write_html_report

        path = write_html_report(report, html, variance=variance, runs=runs)
        (console or out_console).print(f"HTML report: {path} ({path.stat().st_size / 1e6:.2f} MB)")
    if markdown is not None:
        from pathjudge.report.markdown import write_markdown_report

        write_markdown_report(report, markdown, variance=variance)
        (console or out_console).print(f"Markdown summary: {markdown}")


@app.command()
def score(
    runs_arg: Annotated[
        str,
        typer.Argument(
            metavar="runs",
            help="Runs JSONL (pathjudge's trajectory schema). With --engine ray also a glob, a folder, "
            "Parquet, or an s3:// / gs:// URI.",
        ),
    ],
    suite: Annotated[Path, typer.Option("--suite", "-s", help="Suite YAML.")],
    fast: Annotated[
        bool, typer.Option("--fast", help="Assertions only: judged criteria are 'not run'.")
    ] = False,
    json_out: Annotated[Path | None, typer.Option("--json", help=JSON_HELP)] = None,
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
    fail_on_failed: Annotated[
        bool,
        typer.Option(
            "--fail-on-failed",
            help="Exit 1 when a task fails as its JUnit case does (a run did not pass; with "
            "--strict, a weak path too) or when no task was graded, with or without --junit.",
        ),
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            help="Print one summary line (runs, tasks, the three levels, overall, weak runs) and the "
            "gate results instead of the tables: for CI logs.",
        ),
    ] = False,
    max_weak: Annotated[
        int,
        typer.Option(
            "--max-weak", min=0, help="Weak-path entries listed (0 = all); the heading says if cut."
        ),
    ] = 20,
    skip_unknown_tasks: Annotated[
        bool,
        typer.Option(
            "--skip-unknown-tasks",
            help="Leave out runs whose task is not in the suite (to score a subset) and report "
            "how many; without it such a run is an error.",
        ),
    ] = False,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            help="Worker processes (default: the core count for a large runs file with scorecard "
            "outputs only, else 1).",
        ),
    ] = None,
    html: Annotated[
        Path | None, typer.Option("--html", help="Also write the self-contained HTML report here.")
    ] = None,
    markdown: Annotated[
        Path | None,
        typer.Option("--markdown", help="Also write a Markdown summary (CI job summary) here."),
    ] = None,
    judge_backend: Annotated[
        str | None,
        typer.Option(
            "--judge-backend", help="Judge backend: anthropic, openai-compatible or llama-cpp."
        ),
    ] = None,
    judge_model: Annotated[
        str | None, typer.Option("--judge-model", help="Judge model (config: judge.model).")
    ] = None,
    judge_base_url: Annotated[
        str | None, typer.Option("--judge-base-url", help="Judge API base URL.")
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option("--concurrency", min=1, help="Judge calls in flight at most.")
    ] = None,
    samples: Annotated[
        int | None, typer.Option("--samples", min=1, help="Judge samples per item (default 1).")
    ] = None,
    cache: Annotated[
        Path | None, typer.Option("--cache", help="Verdict cache file (config: cache).")
    ] = None,
    budget_usd: Annotated[
        float | None, typer.Option("--budget-usd", help="Stop judging after spending this.")
    ] = None,
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            help="local (this machine, --jobs processes) or ray (Ray Data: a local runtime, or the "
            "cluster at --address).",
        ),
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option(
            "--address",
            help="--engine ray: 'auto' (the cluster this node is in) or ray://HOST:PORT; none starts "
            "a local runtime.",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers", min=1, help="--engine ray: grading workers (default: every CPU)."
        ),
    ] = None,
    allow_callables: Annotated[
        bool, typer.Option("--allow-callables", help=ALLOW_CALLABLES_HELP)
    ] = False,
) -> int:
    """Grade RUNS against SUITE: task success, tool-call correctness, trajectory quality, five axes.

    Judged criteria run through the judge (configured by the flags, then the project configuration)
    unless --fast or --verdicts covers them; with no judge available they are reported "not run".
    """
    # what every score needs; the judge and the JSON report load only when used
    from pathjudge._cli.config import resolve_for_cli
    from pathjudge.errors import InputError
    from pathjudge.report.progress import progress_bars
    from pathjudge.report.terminal import gate_line, print_scorecard, summary_line
    from pathjudge.scoring.judged import suite_has_judged
    from pathjudge.scoring.pipeline import score as run_score
    from pathjudge.scoring.scorecard import parse_thresholds, parse_weights

    rendered = html is not None or markdown is not None
    if engine not in ("local", "ray"):
        raise InputError(
            f"unknown engine {engine!r}",
            field="--engine",
            hint="use --engine local or --engine ray",
        )
    on_ray = engine == "ray"
    if not on_ray and (address is not None or workers is not None):
        raise InputError(
            "--address and --workers go with --engine ray",
            field="--address" if address is not None else "--workers",
            hint="add --engine ray, or use --jobs for local worker processes",
        )
    if on_ray and ((jobs is not None and jobs > 1) or include_runs or rendered):
        raise InputError(
            "--engine ray grades into the scorecard and --grades shards only",
            field="--engine",
            hint="drop --jobs/--include-runs/--html/--markdown (run pathjudge report on the --grades "
            "folder for the HTML report)",
        )
    if on_ray and skip_unknown_tasks:
        raise InputError(
            "--skip-unknown-tasks does not work with --engine ray yet",
            field="--skip-unknown-tasks",
            hint="score with --engine local (the default), or drop --skip-unknown-tasks and add "
            "the missing tasks to the suite",
        )
    runs = Path(runs_arg)
    per_run = (grades_out is not None and not on_ray) or include_runs or rendered
    if jobs is not None and jobs > 1 and per_run:
        raise InputError(
            "--jobs above 1 grades into the scorecard only",
            field="--jobs",
            hint="drop --grades/--include-runs/--html/--markdown (or use --jobs 1)",
        )
    loaded = load_suite_for_cli(suite, allow_callables=allow_callables)
    judging = not fast and suite_has_judged(loaded)
    if judge_backend:
        from pathjudge.judge.session import backend_name

        judge_backend = backend_name(judge_backend, field="--judge-backend")
    config = resolve_for_cli(
        {
            "judge.backend": judge_backend or None,
            "judge.model": judge_model,
            "judge.base_url": judge_base_url,
            "concurrency": concurrency,
            "cache": cache,
            "budget_usd": budget_usd,
        },
        warn=judging,
    )
    weight_map = parse_weights(weights) if weights else None
    if weight_map is not None and not any(weight_map.values()):
        raise InputError(
            f"every weight in {weights!r} is 0, so the overall score is undefined",
            field="--weights",
            hint="give at least one weight above 0, e.g. success=1,trajectory=0",
        )
    with ray_scope(on_ray), runs_not_transcript(None if on_ray else runs):
        judge: JudgeSession | bool = False
        if judging:  # the judge is set up (and its settings checked) only when something is judged
            from pathjudge.judge.session import JudgeSession

            judge = JudgeSession.resolve(config=config, samples=samples, progress=progress_bars())
        report = run_score(
            runs_arg if on_ray else runs,
            loaded,
            fast=fast,
            verdicts=verdicts,
            judge=judge,
            config=config,
            thresholds=parse_thresholds(fail_under) if fail_under else None,
            weights=weight_map,
            jobs=jobs,
            keep_grades=include_runs or rendered,
            grades_out=grades_out,
            skip_unknown_tasks=skip_unknown_tasks,
            warn=lambda text: err_console.print(f"warning: {text}", markup=False),
            engine=ray_engine(address, workers) if on_ray else "local",
            progress=None if quiet else progress_bars(),  # drawn only for a long job on a tty
        )
    report = report.model_copy(update={"suite_file": str(suite)})
    card, gates = report.scorecard, report.gates
    if report.skipped_runs:
        names = ", ".join(report.skipped_tasks[:10]) + (
            " ..." if len(report.skipped_tasks) > 10 else ""
        )
        err_console.print(
            f"skipped {report.skipped_runs} run(s) of {len(report.skipped_tasks)} task(s) not in "
            f"the suite {loaded.name}: {names}"
        )
    if json_out is not None:
        from pathjudge.report.json_report import dumps_report

        write_json(
            json_out,
            dumps_report(report if include_runs else report.model_copy(update={"runs": None})),
        )
    if junit is not None:
        from pathjudge.report.junit import write_junit

        write_junit(junit, card, [t.id for t in loaded.tasks], strict=strict)
    if rendered:
        write_rendered(
            report,
            runs,
            html=html,
            markdown=markdown,
            console=err_console if json_to_stdout(json_out) else out_console,
        )
    if json_to_stdout(json_out):
        pass  # stdout holds the JSON document only
    elif not quiet:
        print_scorecard(
            out_console, card, list(gates), judge_note=report.judge_note, max_weak=max_weak
        )
        if report.judges:
            out_console.print("judge: " + "; ".join(j.describe() for j in report.judges))
    else:
        out_console.print(summary_line(card))
        for gate in gates:
            out_console.print(gate_line(gate))
    if not report.passed:
        missed = ", ".join(
            f"{g.metric} {_actual(g.actual)} < {g.threshold:g}" for g in gates if not g.passed
        )
        err_console.print(f"thresholds missed: {missed}")
        return 1
    if not fail_on_failed and junit is None:
        return 0  # no case to judge: the JUnit renderer stays unloaded (a lean cold start)
    cases = task_verdicts(card, [t.id for t in loaded.tasks], strict=strict)
    failed = [task for task, verdict in cases.items() if verdict == "failed"]
    if fail_on_failed and failed:
        names = ", ".join(failed[:10]) + (" ..." if len(failed) > 10 else "")
        err_console.print(f"failed tasks ({len(failed)}): {names}", markup=False)
        return 1
    if fail_on_failed and "passed" not in cases.values():  # nothing graded is not a pass
        err_console.print(
            "no task was graded (every JUnit case would be skipped: no runs, or none decided)"
        )
        return 1
    if junit is not None and failed:
        junit_exit_note(junit, card, failed, len(loaded.tasks), gates)
    return 0


def task_verdicts(card: Scorecard, task_ids: list[str], *, strict: bool) -> dict[str, str]:
    """Each task's JUnit verdict (:func:`~pathjudge.report.junit.task_verdict`), in suite order."""
    from pathjudge.report.junit import task_verdict

    rows = {row.task_id: row for row in card.task_rows}
    return {t: task_verdict(rows.get(t), strict=strict) for t in task_ids}


def junit_exit_note(
    junit: Path, card: Scorecard, failed: list[str], tasks: int, gates: Sequence[GateResult]
) -> None:
    """On a run that exits 0 with ``failed`` JUnit cases: say so, and how to make them exit 1.

    Named when no ``passed`` gate is set (one that is set tolerates failed runs on purpose), or when
    a task failed under ``--strict`` for a weak path alone (which the ``passed`` gate does not see).
    """
    rows = {row.task_id: row for row in card.task_rows}
    weak_only = sum(1 for t in failed if not rows[t].verdict_failed)
    if any(g.metric == "passed" for g in gates) and not weak_only:
        return
    err_console.print(
        f"warning: {len(failed)} of {tasks} JUnit cases in {junit} failed, but no gate was "
        "missed, so this exits 0; add --fail-on-failed (or --fail-under passed=1.0"
        + (", which does not see the weak paths --strict fails" if weak_only else "")
        + ") to exit 1 when a case fails",
        markup=False,
    )


def _actual(value: float | None) -> str:
    """A gate's measured value rounded to 3 decimals (``0.933``, ``0.75``), or "—" when undefined."""
    return "—" if value is None else str(round(value, 3))


@contextmanager
def runs_not_transcript(runs: Path | None) -> Iterator[None]:
    """An error reading ``runs`` that is a transcript or trace export, not runs, names the
    ``pathjudge import`` command that converts it (:func:`~pathjudge.agent.importers.import_hint`)."""
    from pathjudge.errors import InputError, RecordError

    try:
        yield
    except InputError as exc:
        if runs is None or exc.file != str(runs):
            raise
        from pathjudge.agent.importers import import_hint

        hint = import_hint(runs)
        if hint is None:
            raise
        raise RecordError(
            hint.problem,
            file=runs,
            line=exc.line,
            hint=f"convert it first: {hint.command}, then score {hint.output}",
        ) from None


def ray_engine(address: str | None, workers: int | None) -> GradingEngine:
    """``--engine ray``: :func:`pathjudge.ray.score_files` on the cluster at ``address`` (None: a
    local runtime). The face picks the engine; the scoring pipeline never imports Ray."""
    from pathjudge.ray import score_files

    return partial(score_files, address=address, workers=workers)


def ray_scope(on_ray: bool) -> AbstractContextManager[None]:
    """For ``--engine ray``: stop the local runtime this command starts as soon as the results
    are in (:func:`pathjudge.ray.runtime_scope`), not in Ray's exit hook."""
    if not on_ray:
        return nullcontext()
    from pathjudge.ray import runtime_scope

    return runtime_scope()
