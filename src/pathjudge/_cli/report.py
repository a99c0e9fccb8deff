"""``pathjudge report``: the self-contained HTML report (and a Markdown CI summary) of a score report."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from pathjudge._cli.app import app, err_console, out_console
from pathjudge._cli.options import Markdown

if TYPE_CHECKING:
    from pathjudge.agent.trajectory import RunRecord
    from pathjudge.scoring.diff import DiffReport
    from pathjudge.scoring.pipeline import ScoreReport
    from pathjudge.scoring.variance import VarianceReport


def _recorded_path(recorded: str | None, report_file: Path) -> Path | None:
    """A path stored in a report: as given (relative to the current folder), else beside the report."""
    if not recorded:
        return None
    for candidate in (Path(recorded), report_file.parent / recorded):
        if candidate.is_file():
            return candidate
    return None


def variance_from_grades(report: ScoreReport, *, max_k: int = 10) -> VarianceReport | None:
    """pass@k / pass^k per task from the report's per-run grades, when some task has several epochs.

    ``k`` runs from 1 to the largest number of runs of one task (at most ``max_k``). None without
    per-run grades or when every task ran once (there is no variance to show).
    """
    from pathjudge.scoring.variance import EpochOutcome, variance_report

    if not report.runs:
        return None
    per_task: dict[str, int] = {}
    for grade in report.runs:
        per_task[grade.task_id] = per_task.get(grade.task_id, 0) + 1
    most = max(per_task.values())
    if most < 2:
        return None
    outcomes = [
        EpochOutcome(
            task_id=grade.task_id,
            epoch=grade.epoch,
            success=None if grade.success == "undecided" else grade.success == "pass",
            scores={"path_score": None if grade.path_score is None else float(grade.path_score)},
        )
        for grade in report.runs
    ]
    order = [row.task_id for row in report.scorecard.task_rows]
    return variance_report(outcomes, ks=tuple(range(1, min(most, max_k) + 1)), task_order=order)


def diff_against(
    baseline: Path, report: ScoreReport, report_file: Path
) -> tuple[DiffReport, str, str]:
    """The diff report for ``--baseline``: read as is, or computed from two score reports' runs.

    A baseline *score* report is diffed with :func:`~pathjudge.scoring.diff.diff_runs` over the runs
    files both reports name, against the candidate's suite file; a missing file is an InputError.
    """
    from pathjudge._cli.config import load_suite_for_cli
    from pathjudge.agent.io import read_runs
    from pathjudge.errors import InputError
    from pathjudge.report._adapt import load_json, load_model
    from pathjudge.scoring.diff import DiffReport, diff_runs
    from pathjudge.scoring.pipeline import ScoreReport

    data = load_json(baseline, "baseline")
    if not (isinstance(data, dict) and data.get("kind") == "pathjudge.score"):
        diff = load_model(DiffReport, data, source=baseline, what="diff report")
        return diff, str(baseline), str(report_file)
    base = load_model(ScoreReport, data, source=baseline, what="score report")
    base_runs = _recorded_path(base.runs_file, baseline)
    cand_runs = _recorded_path(report.runs_file, report_file)
    suite = _recorded_path(report.suite_file, report_file)
    for label, found, recorded in (
        ("baseline runs", base_runs, base.runs_file),
        ("candidate runs", cand_runs, report.runs_file),
        ("suite", suite, report.suite_file),
    ):
        if found is None:
            raise InputError(
                f"cannot diff against the baseline: the {label} file {recorded!r} named in the report is not found",
                file=baseline if label == "baseline runs" else report_file,
                field="runs_file" if "runs" in label else "suite_file",
                hint="run from the folder pathjudge score ran in, or pass a diff report JSON as --baseline",
            )
    if base_runs is None or cand_runs is None or suite is None:  # unreachable: each raised above
        raise AssertionError("diff inputs missing")
    diff = diff_runs(
        read_runs(base_runs),
        read_runs(cand_runs),
        load_suite_for_cli(suite),
        baseline_file=base_runs,
        candidate_file=cand_runs,
    )
    return diff, str(base_runs), str(cand_runs)


def _check_read_files(
    output: Path, markdown: Path | None, runs_file: Path | None, grades: str | None
) -> None:
    """Refuse an output that is a file read on the way: the runs file the report names, a grade
    shard the --grades manifest lists (the options themselves are checked before the command)."""
    from pathjudge._io import ensure_not_input
    from pathjudge.ray import grades_sources

    read = [runs_file, *(grades_sources(grades) if grades is not None else [])]
    ensure_not_input(output, read, option="--output")
    ensure_not_input(markdown, read, option="--markdown")


def read_grades(source: str) -> list[Any]:
    """Per-run grades from a ``score --grades`` JSONL, or from a shard folder / its manifest.json."""
    from pathjudge.ray import read_grades_file, read_grades_manifest

    local = Path(source)
    if "://" in source or local.is_dir() or local.name == "manifest.json":
        return list(read_grades_manifest(source))
    return list(read_grades_file(source))


_Results = Annotated[
    Path,
    typer.Argument(
        help="The JSON report of `pathjudge score --json`, or a verdicts JSONL file (then a "
        "page of verdicts, reasoning, evidence and the judge)."
    ),
]
_Output = Annotated[Path, typer.Option("--output", "-o", help="Write the HTML report here.")]
_Runs = Annotated[
    Path | None,
    typer.Option(
        "--runs",
        help="Runs JSONL for the trajectory viewer (default: the runs file the report names, if found).",
    ),
]
_Baseline = Annotated[
    Path | None,
    typer.Option(
        "--baseline",
        help="A baseline's score report JSON (or a diff report JSON) to diff against.",
    ),
]
_Calibration = Annotated[
    Path | None, typer.Option("--calibration", help="The JSON report of `pathjudge calibrate`.")
]
_Grades = Annotated[
    str | None,
    typer.Option(
        "--grades",
        help="Per-run grades to include: the JSONL of `score --grades`, or the shard folder "
        "(with manifest.json) of `score --engine ray --grades`, local or s3:// / gs://.",
    ),
]
_Items = Annotated[
    Path | None,
    typer.Option(
        "--items",
        help="With a verdicts file: the items JSONL that was judged, to show each verdict's "
        "judged inputs.",
    ),
]


@app.command()
def report(
    results: _Results,
    output: _Output,
    runs: _Runs = None,
    baseline: _Baseline = None,
    calibration: _Calibration = None,
    markdown: Markdown = None,
    grades: _Grades = None,
    items: _Items = None,
) -> None:
    """Render RESULTS as one self-contained HTML file (opens offline; agent text is escaped)."""
    from pathjudge.judge.verdicts_file import is_verdicts_file

    if is_verdicts_file(results):
        _verdicts_report(results, output, markdown, items)
        return
    from pathjudge.report._adapt import load_json, load_model
    from pathjudge.report.html import write_html_report
    from pathjudge.report.markdown import write_markdown_report
    from pathjudge.scoring.pipeline import ScoreReport

    loaded = load_model(
        ScoreReport, load_json(results, "score report"), source=results, what="score report"
    )
    if grades is not None:
        loaded = loaded.model_copy(update={"runs": tuple(read_grades(grades))})
    elif loaded.runs is None:
        err_console.print(
            f"warning: {results} holds no per-run grades (pathjudge score --json writes them with "
            "--include-runs), so the trajectory viewer shows no run's grade; rerun pathjudge score "
            f"with --json {results} --include-runs, or pass --grades GRADES.jsonl written by "
            "pathjudge score --grades",
            markup=False,
        )
    runs_file = runs if runs is not None else _recorded_path(loaded.runs_file, results)
    _check_read_files(output, markdown, runs_file, grades)
    if runs_file is None and loaded.runs_file:
        err_console.print(
            f"warning: the report's runs file {loaded.runs_file} is not in the current folder or "
            f"beside {results}; the HTML has no trajectory viewer — pass --runs PATH to include it.",
            markup=False,
        )
    records: list[RunRecord] | None = None
    if runs_file is not None:
        from pathjudge.agent.io import read_runs

        records = list(read_runs(runs_file))
    diff: Any = None
    if baseline is not None:
        from dataclasses import replace

        from pathjudge.report._adapt import diff_view

        report_diff, base_label, cand_label = diff_against(baseline, loaded, results)
        diff = replace(
            diff_view(report_diff), baseline_label=base_label, candidate_label=cand_label
        )
    variance = variance_from_grades(loaded)
    path = write_html_report(
        loaded, output, variance=variance, calibration=calibration, runs=records, baseline=diff
    )
    out_console.print(f"HTML report: {path} ({path.stat().st_size / 1e6:.2f} MB)")
    if markdown is not None:
        write_markdown_report(
            loaded, markdown, baseline=diff, variance=variance, calibration=calibration
        )
        out_console.print(f"Markdown summary: {markdown}")


def _verdicts_report(
    results: Path, output: Path, markdown: Path | None, items: Path | None = None
) -> None:
    from pathjudge._io import write_text_atomic
    from pathjudge.judge.verdicts_file import read_verdicts_file
    from pathjudge.report.verdicts import (
        render_verdicts_html,
        render_verdicts_markdown,
        verdict_rows,
        verdicts_summary,
    )

    rows = verdict_rows(read_verdicts_file(results))
    summary = verdicts_summary(rows, file=results.name)
    inputs = None
    if items is not None:
        from pathjudge.judge.items import read_items

        inputs = {item.item_id: item.inputs for _, item in read_items(items)}
    path = write_text_atomic(output, render_verdicts_html(rows, summary, inputs))
    out_console.print(f"HTML report: {path} ({len(rows)} verdicts)")
    if markdown is not None:
        write_text_atomic(markdown, render_verdicts_markdown(rows, summary))
        out_console.print(f"Markdown summary: {markdown}")
