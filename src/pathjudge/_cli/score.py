"""``pathjudge score``: grade a runs file against a suite and print the scorecard."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pathjudge._cli.app import (
    app,
    err_console,
    human_console,
    json_to_stdout,
    out_console,
    write_json,
)
from pathjudge._cli.certificates import CertificateOption, RequireCertifiedOption, checked
from pathjudge._cli.config import load_suite_for_cli
from pathjudge._cli.inputs import runs_not_transcript
from pathjudge._cli.options import AllowCallables, JsonOut, Markdown

if TYPE_CHECKING:
    from rich.console import Console

    from pathjudge.config import ResolvedConfig
    from pathjudge.judge.identity import Certification
    from pathjudge.judge.session import JudgeSession
    from pathjudge.rubrics.suite import Suite, WeightKey
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


_Runs = Annotated[
    str,
    typer.Argument(
        metavar="runs",
        help="Runs JSONL (pathjudge's trajectory schema). With --engine ray also a glob, a folder, "
        "Parquet, or an s3:// / gs:// URI.",
    ),
]
_Suite = Annotated[Path, typer.Option("--suite", "-s", help="Suite YAML.")]
_Fast = Annotated[
    bool, typer.Option("--fast", help="Assertions only: judged criteria are 'not run'.")
]
_Junit = Annotated[
    Path | None, typer.Option("--junit", help="Write JUnit XML (one case per task) here.")
]
_FailUnder = Annotated[
    str | None,
    typer.Option(
        "--fail-under", help="Thresholds, e.g. success=1.0,trajectory=0.75 (exit 1 if missed)."
    ),
]
_Weights = Annotated[
    str | None,
    typer.Option("--weights", help="Overall-score weights, e.g. success=2,trajectory=1."),
]
_Verdicts = Annotated[
    Path | None,
    typer.Option("--verdicts", help="Recorded judge verdicts JSONL (item_id, verdict, reasoning)."),
]
_Grades = Annotated[
    Path | None, typer.Option("--grades", help="Stream every run's full grade to this JSONL.")
]
_IncludeRuns = Annotated[
    bool, typer.Option("--include-runs", help="Put every run's grade in the JSON report too.")
]
_Strict = Annotated[
    bool,
    typer.Option("--strict", help="JUnit: a poor path or a repeated call fails its task too."),
]
_FailOnFailed = Annotated[
    bool,
    typer.Option(
        "--fail-on-failed",
        help="Exit 1 when a task fails as its JUnit case does (a run did not pass; with "
        "--strict, a weak path too) or when no task was graded, with or without --junit.",
    ),
]
_Quiet = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="Print one summary line (runs, tasks, the three levels, overall, weak runs) and the "
        "gate results instead of the tables: for CI logs.",
    ),
]
_MaxWeak = Annotated[
    int,
    typer.Option(
        "--max-weak", min=0, help="Weak-path entries listed (0 = all); the heading says if cut."
    ),
]
_SkipUnknown = Annotated[
    bool,
    typer.Option(
        "--skip-unknown-tasks",
        help="Leave out runs whose task is not in the suite (to score a subset) and report "
        "how many; without it such a run is an error.",
    ),
]
_Jobs = Annotated[
    int | None,
    typer.Option(
        "--jobs",
        "-j",
        min=1,
        help="Worker processes (default: the core count for a large runs file with scorecard "
        "outputs only, else 1).",
    ),
]
_Html = Annotated[
    Path | None, typer.Option("--html", help="Also write the self-contained HTML report here.")
]
_JudgeBackend = Annotated[
    str | None,
    typer.Option(
        "--judge-backend", help="Judge backend: anthropic, openai-compatible or llama-cpp."
    ),
]
_JudgeModel = Annotated[
    str | None, typer.Option("--judge-model", help="Judge model (config: judge.model).")
]
_JudgeBaseUrl = Annotated[str | None, typer.Option("--judge-base-url", help="Judge API base URL.")]
_Concurrency = Annotated[
    int | None, typer.Option("--concurrency", min=1, help="Judge calls in flight at most.")
]
_Samples = Annotated[
    int | None, typer.Option("--samples", min=1, help="Judge samples per item (default 1).")
]
_Cache = Annotated[Path | None, typer.Option("--cache", help="Verdict cache file (config: cache).")]
_BudgetUsd = Annotated[
    float | None, typer.Option("--budget-usd", help="Stop judging after spending this.")
]
_Engine = Annotated[
    str,
    typer.Option(
        "--engine",
        help="local (this machine, --jobs processes) or ray (Ray Data: a local runtime, or the "
        "cluster at --address).",
    ),
]
_Address = Annotated[
    str | None,
    typer.Option(
        "--address",
        help="--engine ray: 'auto' (the cluster this node is in) or ray://HOST:PORT; none starts "
        "a local runtime.",
    ),
]
_Workers = Annotated[
    int | None,
    typer.Option("--workers", min=1, help="--engine ray: grading workers (default: every CPU)."),
]


@dataclass(frozen=True)
class ScoreOptions:
    """The options of one ``pathjudge score``, as given on the command line (see its ``--help``)."""

    runs: str
    suite: Path
    fast: bool
    json_out: Path | None
    junit: Path | None
    fail_under: str | None
    weights: str | None
    verdicts: Path | None
    grades_out: Path | None
    include_runs: bool
    strict: bool
    fail_on_failed: bool
    quiet: bool
    max_weak: int
    skip_unknown_tasks: bool
    jobs: int | None
    html: Path | None
    markdown: Path | None
    judge_backend: str | None
    judge_model: str | None
    judge_base_url: str | None
    concurrency: int | None
    samples: int | None
    cache: Path | None
    budget_usd: float | None
    engine: str
    address: str | None
    workers: int | None
    allow_callables: bool
    certificate: list[Path] | None = None
    require_certified: bool = False

    @property
    def on_ray(self) -> bool:
        return self.engine == "ray"

    @property
    def rendered(self) -> bool:
        """Whether an HTML report or a Markdown summary is written."""
        return self.html is not None or self.markdown is not None

    @property
    def per_run(self) -> bool:
        """Whether some output needs every run's grade (not only the scorecard)."""
        return (
            (self.grades_out is not None and not self.on_ray) or self.include_runs or self.rendered
        )


@app.command()
def score(
    runs: _Runs,
    suite: _Suite,
    fast: _Fast = False,
    json_out: JsonOut = None,
    junit: _Junit = None,
    fail_under: _FailUnder = None,
    weights: _Weights = None,
    verdicts: _Verdicts = None,
    grades_out: _Grades = None,
    include_runs: _IncludeRuns = False,
    strict: _Strict = False,
    fail_on_failed: _FailOnFailed = False,
    quiet: _Quiet = False,
    max_weak: _MaxWeak = 20,
    skip_unknown_tasks: _SkipUnknown = False,
    jobs: _Jobs = None,
    html: _Html = None,
    markdown: Markdown = None,
    judge_backend: _JudgeBackend = None,
    judge_model: _JudgeModel = None,
    judge_base_url: _JudgeBaseUrl = None,
    concurrency: _Concurrency = None,
    samples: _Samples = None,
    cache: _Cache = None,
    budget_usd: _BudgetUsd = None,
    engine: _Engine = "local",
    address: _Address = None,
    workers: _Workers = None,
    allow_callables: AllowCallables = False,
    certificate: CertificateOption = None,
    require_certified: RequireCertifiedOption = False,
) -> int:
    """Grade RUNS against SUITE: task success, tool-call correctness, trajectory quality, five axes.

    Judged criteria run through the judge (configured by the flags, then the project configuration)
    unless --fast or --verdicts covers them; with no judge available they are reported "not run".
    Every judged rate is labelled certified (--certificate names this judge) or uncertified.
    """
    opts = ScoreOptions(**locals())
    _check_options(opts)
    loaded = load_suite_for_cli(suite, allow_callables=allow_callables)
    config, judge = _judge_setup(opts, loaded)
    certified = _certifications(opts, loaded, judge)
    report = _run(opts, loaded, config, judge, certified)
    report = report.model_copy(update={"suite_file": str(suite)})
    _write_outputs(opts, report, loaded)
    _print_results(opts, report)
    checked(report.certifications, require=opts.require_certified)  # the reports say why
    return _exit_code(opts, report, loaded)


def _check_options(opts: ScoreOptions) -> None:
    """Refuse the combinations of options that cannot work together, before anything is read."""
    from pathjudge.errors import InputError

    if opts.engine not in ("local", "ray"):
        raise InputError(
            f"unknown engine {opts.engine!r}",
            field="--engine",
            hint="use --engine local or --engine ray",
        )
    if not opts.on_ray and (opts.address is not None or opts.workers is not None):
        raise InputError(
            "--address and --workers go with --engine ray",
            field="--address" if opts.address is not None else "--workers",
            hint="add --engine ray, or use --jobs for local worker processes",
        )
    several_jobs = opts.jobs is not None and opts.jobs > 1
    if opts.on_ray and (several_jobs or opts.include_runs or opts.rendered):
        raise InputError(
            "--engine ray grades into the scorecard and --grades shards only",
            field="--engine",
            hint="drop --jobs/--include-runs/--html/--markdown (run pathjudge report on the --grades "
            "folder for the HTML report)",
        )
    if opts.on_ray and opts.skip_unknown_tasks:
        raise InputError(
            "--skip-unknown-tasks does not work with --engine ray yet",
            field="--skip-unknown-tasks",
            hint="score with --engine local (the default), or drop --skip-unknown-tasks and add "
            "the missing tasks to the suite",
        )
    if several_jobs and opts.per_run:
        raise InputError(
            "--jobs above 1 grades into the scorecard only",
            field="--jobs",
            hint="drop --grades/--include-runs/--html/--markdown (or use --jobs 1)",
        )


def _judge_config(opts: ScoreOptions, *, judging: bool) -> ResolvedConfig:
    """The effective configuration: the judge flags, then the project configuration (which warns of
    unknown keys only when something is judged)."""
    from pathjudge._cli.config import judge_overrides, resolve_for_cli

    overrides = judge_overrides(
        backend=opts.judge_backend or None,
        model=opts.judge_model,
        base_url=opts.judge_base_url,
        concurrency=opts.concurrency,
        cache=opts.cache,
        backend_option="--judge-backend",
    )
    return resolve_for_cli({**overrides, "budget_usd": opts.budget_usd}, warn=judging)


def _weight_map(weights: str | None) -> dict[WeightKey, float] | None:
    """``--weights`` parsed; all of them 0 is an error (the overall score would be undefined)."""
    from pathjudge.errors import InputError
    from pathjudge.scoring.scorecard import parse_weights

    weight_map = parse_weights(weights) if weights else None
    if weight_map is not None and not any(weight_map.values()):
        raise InputError(
            f"every weight in {weights!r} is 0, so the overall score is undefined",
            field="--weights",
            hint="give at least one weight above 0, e.g. success=1,trajectory=0",
        )
    return weight_map


def _judge_setup(opts: ScoreOptions, loaded: Suite) -> tuple[ResolvedConfig, JudgeSession | bool]:
    """The configuration, and the judge session (False when nothing is judged: --fast, or a suite
    without judged criteria; the judge's settings are checked only when something is judged)."""
    from pathjudge.report.progress import progress_bars
    from pathjudge.scoring.judged import suite_has_judged

    judging = not opts.fast and suite_has_judged(loaded)
    config = _judge_config(opts, judging=judging)
    if not judging:
        return config, False
    from pathjudge.judge.session import JudgeSession

    return config, JudgeSession.resolve(
        config=config, samples=opts.samples, progress=progress_bars()
    )


def _certifications(
    opts: ScoreOptions, loaded: Suite, judge: JudgeSession | bool
) -> tuple[Certification, ...]:
    """Each judged criterion's certification by --certificate; --require-certified refuses an
    uncertified live judge here, before anything is judged."""
    from pathjudge._cli.certificates import checked, read_certificates
    from pathjudge.scoring.certified import suite_certifications

    session = judge if not isinstance(judge, bool) else None
    found = read_certificates(opts.certificate)
    labels = suite_certifications(loaded, session, found, base_dir=opts.suite.parent)
    return checked(labels, require=opts.require_certified and session is not None)


def _run(
    opts: ScoreOptions,
    loaded: Suite,
    config: ResolvedConfig,
    judge: JudgeSession | bool,
    certified: tuple[Certification, ...],
) -> ScoreReport:
    """Grade the runs (judging what the suite judges unless --fast) into the score report, each
    judged rate labelled with its certification."""
    from pathjudge.report.progress import progress_bars
    from pathjudge.scoring.pipeline import score as run_score
    from pathjudge.scoring.scorecard import parse_thresholds

    weights = _weight_map(opts.weights)
    runs = Path(opts.runs)
    with ray_scope(opts.on_ray), runs_not_transcript(None if opts.on_ray else runs):
        return run_score(
            opts.runs if opts.on_ray else runs,
            loaded,
            fast=opts.fast,
            verdicts=opts.verdicts,
            judge=judge,
            config=config,
            thresholds=parse_thresholds(opts.fail_under) if opts.fail_under else None,
            weights=weights,
            jobs=opts.jobs,
            keep_grades=opts.include_runs or opts.rendered,
            grades_out=opts.grades_out,
            skip_unknown_tasks=opts.skip_unknown_tasks,
            warn=lambda text: err_console.print(f"warning: {text}", markup=False),
            engine=ray_engine(opts.address, opts.workers) if opts.on_ray else "local",
            progress=None if opts.quiet else progress_bars(),  # drawn only for a long job on a tty
            certifications=certified,
        )


def _write_outputs(opts: ScoreOptions, report: ScoreReport, loaded: Suite) -> None:
    """Note the skipped runs, then write the JSON report, the JUnit XML, the HTML and Markdown."""
    if report.skipped_runs:
        names = ", ".join(report.skipped_tasks[:10]) + (
            " ..." if len(report.skipped_tasks) > 10 else ""
        )
        err_console.print(
            f"skipped {report.skipped_runs} run(s) of {len(report.skipped_tasks)} task(s) not in "
            f"the suite {loaded.name}: {names}"
        )
    if opts.json_out is not None:
        from pathjudge.report.json_report import dumps_report

        kept = report if opts.include_runs else report.model_copy(update={"runs": None})
        write_json(opts.json_out, dumps_report(kept))
    if opts.junit is not None:
        from pathjudge.report.junit import write_junit

        write_junit(
            opts.junit,
            report.scorecard,
            [t.id for t in loaded.tasks],
            strict=opts.strict,
            certifications=report.certifications,
        )
    if opts.rendered:
        write_rendered(
            report,
            Path(opts.runs),
            html=opts.html,
            markdown=opts.markdown,
            console=human_console(opts.json_out),
        )


def _print_results(opts: ScoreOptions, report: ScoreReport) -> None:
    """The scorecard (or, with --quiet, its summary line and the gates); nothing when the JSON
    report goes to stdout."""
    from pathjudge.report.terminal import gate_line, print_scorecard, summary_line

    if json_to_stdout(opts.json_out):
        return  # stdout holds the JSON document only
    card, gates = report.scorecard, list(report.gates)
    if opts.quiet:
        out_console.print(summary_line(card))
        for gate in gates:
            out_console.print(gate_line(gate))
        return
    print_scorecard(
        out_console,
        card,
        gates,
        judge_note=report.judge_note,
        max_weak=opts.max_weak,
        certifications=report.certifications,
    )
    if report.judges:
        out_console.print("judge: " + "; ".join(j.describe() for j in report.judges))


def _exit_code(opts: ScoreOptions, report: ScoreReport, loaded: Suite) -> int:
    """1 when a gate was missed, or with --fail-on-failed when a task failed or none was graded;
    else 0 (noting failed JUnit cases that do not make it 1)."""
    card, gates = report.scorecard, report.gates
    if not report.passed:
        missed = ", ".join(
            f"{g.metric} {_actual(g.actual)} < {g.threshold:g}" for g in gates if not g.passed
        )
        err_console.print(f"thresholds missed: {missed}")
        return 1
    if not opts.fail_on_failed and opts.junit is None:
        return 0  # no case to judge: the JUnit renderer stays unloaded (a lean cold start)
    cases = task_verdicts(card, [t.id for t in loaded.tasks], strict=opts.strict)
    failed = [task for task, verdict in cases.items() if verdict == "failed"]
    if opts.fail_on_failed and failed:
        names = ", ".join(failed[:10]) + (" ..." if len(failed) > 10 else "")
        err_console.print(f"failed tasks ({len(failed)}): {names}", markup=False)
        return 1
    if opts.fail_on_failed and "passed" not in cases.values():  # nothing graded is not a pass
        err_console.print(
            "no task was graded (every JUnit case would be skipped: no runs, or none decided)"
        )
        return 1
    if opts.junit is not None and failed:
        junit_exit_note(opts.junit, card, failed, len(loaded.tasks), gates)
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
