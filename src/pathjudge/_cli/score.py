"""``pathjudge score``: grade a runs file against a suite and print the scorecard."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from pathjudge._cli.app import app, err_console, out_console
from pathjudge._cli.config import ALLOW_CALLABLES_HELP, load_suite_for_cli

if TYPE_CHECKING:
    from pathjudge.config import ResolvedConfig
    from pathjudge.report.json_report import ScoreReport
    from pathjudge.rubrics.suite import WeightKey
    from pathjudge.scoring.scorecard import GateMetric


def config_thresholds(config: ResolvedConfig) -> dict[GateMetric, float]:
    """The ``fail_under.*`` thresholds the project configuration sets (``{}`` when none is set)."""
    from pathjudge.scoring.scorecard import GATE_METRICS

    out: dict[GateMetric, float] = {}
    for metric in GATE_METRICS:
        value = config.value(f"fail_under.{metric}")
        if value is not None:
            out[metric] = float(value)
    return out


def config_weights(config: ResolvedConfig) -> dict[WeightKey, float] | None:
    """Overall-score weights from the project configuration; None when every weight is the default.

    When any ``weights.*`` key is set, the three levels take their configured values (default 1 each)
    and each axis whose weight is set joins them.
    """
    from pathjudge.rubrics.assertions.base import AXES

    levels: dict[str, WeightKey] = {
        f"weights.levels.{name}": name for name in ("success", "tool_calls", "trajectory")
    }
    axes = {f"weights.axes.{axis}": axis for axis in AXES}
    chosen = [key for key in (*levels, *axes) if config.source(key) != "default"]
    if not chosen:
        return None
    out: dict[WeightKey, float] = {name: float(config.value(key)) for key, name in levels.items()}
    for key, axis in axes.items():
        if key in chosen:
            out[axis] = float(config.value(key))
    return out


def write_rendered(
    report: ScoreReport, runs: Path, *, html: Path | None, markdown: Path | None
) -> None:
    """Write the HTML report and/or the Markdown summary of ``report`` as ``pathjudge report`` does.

    The HTML gets the trajectories of ``runs`` and, when some task ran several epochs, the variance
    section (pass@k / pass^k) computed from the report's per-run grades.
    """
    from pathjudge._cli.report import variance_from_grades
    from pathjudge.report.html import write_html_report
    from pathjudge.report.markdown import write_markdown_report

    variance = variance_from_grades(report)
    if html is not None:
        path = write_html_report(report, html, variance=variance, runs=runs)
        out_console.print(f"HTML report: {path} ({path.stat().st_size / 1e6:.2f} MB)")
    if markdown is not None:
        write_markdown_report(report, markdown, variance=variance)
        out_console.print(f"Markdown summary: {markdown}")


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
    allow_callables: Annotated[
        bool, typer.Option("--allow-callables", help=ALLOW_CALLABLES_HELP)
    ] = False,
) -> int:
    """Grade RUNS against SUITE: task success, tool-call correctness, trajectory quality, five axes.

    Judged criteria run through the judge (configured by the flags, then the project configuration)
    unless --fast or --verdicts covers them; with no judge available they are reported "not run".
    """
    import os

    from pathjudge._cli.config import resolve_for_cli
    from pathjudge._io import JsonlAppender, open_atomic_temp
    from pathjudge.agent.io import RunKeys, read_runs
    from pathjudge.config import twin_warning
    from pathjudge.errors import InputError, RecordError
    from pathjudge.judge.session import JudgeSession, backend_name
    from pathjudge.report.json_report import ScoreReport, write_report
    from pathjudge.report.junit import write_junit
    from pathjudge.report.progress import progress_bars
    from pathjudge.report.terminal import print_scorecard
    from pathjudge.rubrics.checks import SuitePlan
    from pathjudge.scoring.chunk import grade_chunk, iter_lines, score_file_parallel
    from pathjudge.scoring.grade import RunGrade
    from pathjudge.scoring.judged import (
        JudgeRequest,
        VerdictLike,
        judged_criteria,
        load_verdicts,
        run_judge_requests,
        run_judged,
        suite_has_judged,
    )
    from pathjudge.scoring.scorecard import (
        evaluate_gates,
        parse_thresholds,
        parse_weights,
    )

    rendered = html is not None or markdown is not None
    per_run = grades_out is not None or include_runs or rendered
    if jobs is not None and jobs > 1 and per_run:
        raise InputError(
            "--jobs above 1 grades into the scorecard only",
            field="--jobs",
            hint="drop --grades/--include-runs/--html/--markdown (or use --jobs 1)",
        )
    if jobs is None:
        jobs = 1 if per_run else _auto_jobs(runs)
    loaded = load_suite_for_cli(suite, allow_callables=allow_callables)
    judging = not fast and suite_has_judged(loaded)
    config = resolve_for_cli(
        {
            "judge.backend": backend_name(judge_backend, field="--judge-backend")
            if judge_backend
            else None,
            "judge.model": judge_model,
            "judge.base_url": judge_base_url,
            "concurrency": concurrency,
            "cache": cache,
            "budget_usd": budget_usd,
        },
        warn=judging,
    )
    thresholds = config_thresholds(config)
    thresholds.update(parse_thresholds(fail_under) if fail_under else {})
    weight_map = parse_weights(weights) if weights else None
    if weight_map is not None and not any(weight_map.values()):
        raise InputError(
            f"every weight in {weights!r} is 0, so the overall score is undefined",
            field="--weights",
            hint="give at least one weight above 0, e.g. success=1,trajectory=0",
        )
    if weight_map is None and not loaded.weights:
        weight_map = config_weights(config)
    recorded: dict[str, VerdictLike] | None = (
        dict(load_verdicts(verdicts)) if verdicts is not None and not fast else None
    )
    judge: Literal["judge", "fast", "verdicts", "none"] = (
        "fast" if fast else ("verdicts" if recorded is not None else "none")
    )
    note = {
        "fast": "judged criteria: not run (fast mode)",
        "none": "judged criteria: not run (no judge configured; pass --verdicts V.jsonl)",
        "verdicts": f"judged criteria: from {verdicts}",
    }[judge]
    session = JudgeSession.resolve(config=config, samples=samples, progress=progress_bars())
    model_name = session.model
    why_not = session.unavailable()
    if judging and why_not is not None:
        # no pass over the runs: nothing can be judged, so there is nothing to collect
        note = f"judged criteria: not run ({why_not})"
        if recorded is not None:
            note = f"judged criteria: from {verdicts}; any others not run ({why_not})"
    elif judging:
        covered = recorded or {}
        agent_models: set[str] = set()

        missing: list[JudgeRequest] = []
        stream = read_runs(runs)
        for record in stream:
            if record.agent.model:
                agent_models.add(record.agent.model)
            missing.extend(
                r
                for r in run_judge_requests(record, loaded, file=runs, line=stream.line)
                if r.item_id not in covered
            )
        # the configured agent model was checked already; the runs may have been made by another
        if missing and model_name:
            for agent_model in sorted(agent_models):
                warning = twin_warning(model_name, agent_model)
                if warning and twin_warning(model_name, str(config.value("agent.model"))) is None:
                    err_console.print(
                        f"warning: runs in {runs} were made by {agent_model}: {warning}",
                        markup=False,
                    )
                    break
        if missing:
            result = run_judged(
                missing,
                session,
                criteria=judged_criteria(missing, suite.parent),
            )
            recorded = {**covered, **result.verdicts}
            judge = "judge"
            note = f"judged criteria: {result.describe()}"
            if covered:
                note += f"; the others from {verdicts}"
            if result.unfinished:
                err_console.print(
                    f"warning: the judge budget ran out; {result.unfinished} judged item(s) are "
                    "reported not run (everything judged is cached; rerun with a larger budget)",
                    markup=False,
                )
    plans = SuitePlan(loaded)
    keep = include_runs or rendered
    kept: list[RunGrade] = []
    appender = None
    grades_tmp: str | None = None
    if grades_out is not None and grades_out.suffix == ".gz":
        raise InputError(
            "--grades streams plain JSONL", field="--grades", hint="name it .jsonl, gzip it later"
        )
    if grades_out is not None:
        # streamed into a temp file beside it and renamed over it only when grading succeeded: a
        # failed command leaves an existing grades file as it was
        fd, grades_tmp = open_atomic_temp(grades_out)
        os.close(fd)
        appender = JsonlAppender(grades_tmp)
    keys = RunKeys()
    count = 0

    def streamed(graded: RunGrade, position: tuple[str, int]) -> None:
        nonlocal count
        count += 1
        # a duplicated (task, epoch) would be counted twice in every rate: refused, as diff does
        keys.check(graded.task_id, graded.epoch, file=runs, line=position[1] or None, index=count)
        if appender is not None:
            appender.write(graded)
        if keep:
            kept.append(graded)

    completed = False
    try:
        if jobs > 1:
            partial = score_file_parallel(runs, plans, recorded, fast=fast, jobs=jobs)
        else:
            partial = grade_chunk(
                iter_lines(runs),
                plans,
                recorded,
                fast=fast,
                stop_at_error=True,
                on_grade=streamed,
            )
        completed = partial.first_error() is None
    finally:
        if appender is not None:
            appender.close()
        if grades_tmp is not None and grades_out is not None:
            if completed:
                os.replace(grades_tmp, grades_out)
            else:
                Path(grades_tmp).unlink(missing_ok=True)
    problem = partial.first_error()
    if problem is not None:
        raise problem
    if partial.runs == 0:
        raise RecordError(
            "has no run records",
            file=runs,
            hint="the file is empty; pass a JSONL file with one record per line",
        )
    card = partial.finish(loaded, weights=weight_map)
    gates = evaluate_gates(card, thresholds)
    passed = all(g.passed for g in gates)
    full = ScoreReport(
        suite_file=str(suite),
        runs_file=str(runs),
        fast=fast,
        judge=judge,
        scorecard=card,
        gates=tuple(gates),
        passed=passed,
        runs=tuple(kept) if keep else None,
    )
    if json_out is not None:
        write_report(json_out, full if include_runs else full.model_copy(update={"runs": None}))
    if junit is not None:
        write_junit(junit, card, [t.id for t in loaded.tasks], strict=strict)
    if rendered:
        write_rendered(full, runs, html=html, markdown=markdown)
    if not quiet:
        print_scorecard(out_console, card, gates, judge_note=note)
    else:
        for gate in gates:
            out_console.print(
                f"gate {gate.metric} >= {gate.threshold:g}: {_actual(gate.actual)} "
                f"{'ok' if gate.passed else 'MISSED'}"
            )
    if not passed:
        missed = ", ".join(
            f"{g.metric} {_actual(g.actual)} < {g.threshold:g}" for g in gates if not g.passed
        )
        err_console.print(f"thresholds missed: {missed}")
        return 1
    return 0


_PARALLEL_BYTES = 8 * 1024 * 1024  # below this a worker pool costs more than it saves


def _auto_jobs(runs: Path) -> int:
    """The core count for a large plain runs file, else 1."""
    from pathjudge.scoring.chunk import default_jobs

    try:
        size = runs.stat().st_size
    except OSError:
        return 1  # reading it reports the problem
    if runs.suffix == ".gz":
        size *= 8
    return default_jobs() if size >= _PARALLEL_BYTES else 1


def _actual(value: float | None) -> str:
    """A gate's measured value rounded to 3 decimals (``0.933``, ``0.75``), or "—" when undefined."""
    return "—" if value is None else str(round(value, 3))
