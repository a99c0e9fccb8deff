"""``pathjudge bias``: probe the judge for length, position and sycophancy bias (and advisory ones).

Exit codes: 0 the battery passed (no must-pass probe failed); 1 a must-pass probe flips the verdict
more than the tolerance beyond placebo, or could not be measured; 2 bad input or configuration, or
the budget ran out (everything judged is cached: a rerun resumes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pathjudge._cli.app import app, err_console, json_to_stdout, out_console, write_json
from pathjudge._cli.options import (
    ConfigFile,
    JsonOut,
    JudgeBackend,
    JudgeBaseUrl,
    JudgeCache,
    JudgeConcurrency,
    JudgedCriterion,
    JudgeModel,
)

_Labels = Annotated[
    list[Path],
    typer.Option("--labels", help="Labels JSONL with each item's 'inputs' (repeat for several)."),
]
_Probes = Annotated[
    str | None,
    typer.Option(
        help="Comma-separated probes to run (default all): length, position, sycophancy "
        "(must pass), distraction, bandwagon, self-preference (advisory)."
    ),
]
_Field = Annotated[
    str | None,
    typer.Option(help="The input the probes change (default: answer, summary, claim, ...)."),
]
_Tolerance = Annotated[
    float, typer.Option(help="Flip rate beyond placebo a must-pass probe may show (default 0.05).")
]
_Confidence = Annotated[float, typer.Option(help="Confidence of the intervals.")]
_Seed = Annotated[int, typer.Option(help="Seed of the probe texts (same seed, same texts).")]
_Family = Annotated[
    str | None,
    typer.Option("--judge-family", help="The judge's model family (default: from its model)."),
]
_Html = Annotated[Path | None, typer.Option("--html", help="Also write the battery as HTML.")]


@app.command()
def bias(
    labels: _Labels,
    criterion: JudgedCriterion,
    probes: _Probes = None,
    field: _Field = None,
    tolerance: _Tolerance = 0.05,
    confidence: _Confidence = 0.95,
    seed: _Seed = 0,
    judge_family: _Family = None,
    backend: JudgeBackend = None,
    model: JudgeModel = None,
    base_url: JudgeBaseUrl = None,
    concurrency: JudgeConcurrency = None,
    cache: JudgeCache = None,
    json_out: JsonOut = None,
    html: _Html = None,
    config_file: ConfigFile = None,
) -> int:
    """Run controlled probes of the judge on labelled items, each against a placebo repeat.

    Exit 1 when a must-pass probe (length, position, sycophancy) flips verdicts more than the
    tolerance beyond placebo (the lower bound of its Newcombe paired interval above it)."""
    from pathjudge._cli.config import judge_overrides, resolve_for_cli
    from pathjudge._io import write_text_atomic
    from pathjudge.calibration.bias import run_bias
    from pathjudge.calibration.bias_probes import parse_probes
    from pathjudge.calibration.labels import load_label_files
    from pathjudge.judge.session import JudgeSession
    from pathjudge.report.bias import bias_html, print_bias
    from pathjudge.report.progress import progress_bars

    chosen = parse_probes(probes)
    overrides = judge_overrides(
        backend=backend, model=model, base_url=base_url, concurrency=concurrency, cache=cache
    )
    resolved = resolve_for_cli(overrides, config_file=config_file)
    session = JudgeSession.resolve(config=resolved, progress=progress_bars())
    report = run_bias(
        load_label_files(labels), criterion, session, probes=chosen, field=field,
        tolerance=tolerance, confidence=confidence, seed=seed, judge_family=judge_family,
    )  # fmt: skip
    write_json(json_out, report.model_dump_json(indent=2))
    if html is not None:
        write_text_atomic(html, bias_html(report))
        err_console.print(f"wrote {html}")
    if not json_to_stdout(json_out):
        print_bias(out_console, report)
    return 0 if report.passed else 1
