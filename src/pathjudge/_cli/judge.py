"""``pathjudge judge``: grade items against one judged criterion, cached and resumable.

Exit codes: 0 every item got a verdict (pass, fail or unsure); 1 the run finished but at least one
item ended in a judge failure (verdict ``error``: API errors after retries, invalid output); 2 bad
input or configuration, the judge could not run at all, or the budget ran out; 130 interrupted.
Verdicts and failures are written and cached in every case, so a rerun resumes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pathjudge._cli import options
from pathjudge._cli.app import app, err_console, human_console, write_json
from pathjudge._cli.certificates import CertificateOption, RequireCertifiedOption

if TYPE_CHECKING:
    from pathjudge.judge.identity import Certification
    from pathjudge.judge.session import JudgeSession


_Items = Annotated[
    Path, typer.Argument(help="Items JSONL: one {item_id, inputs: {name: text}} per line.")
]
_Criterion = options.JudgedCriterion
_Output = Annotated[Path, typer.Option("-o", "--output", help="Where to write the verdicts JSONL.")]
_Backend = options.JudgeBackend
_Model = options.JudgeModel
_BaseUrl = options.JudgeBaseUrl
_Concurrency = options.JudgeConcurrency
_Samples = Annotated[int | None, typer.Option(help="Samples per item, majority vote (default 1).")]
_Batch = Annotated[
    bool | None, typer.Option("--batch/--no-batch", help="Use the Message Batches API.")
]
_Cache = options.JudgeCache
_BudgetUsd = Annotated[
    float | None,
    typer.Option("--budget-usd", help="Stop cleanly after spending this (config budget_usd)."),
]
_BudgetTokens = Annotated[
    int | None, typer.Option("--budget-tokens", help="Stop after this many tokens.")
]
_Timeout = Annotated[float | None, typer.Option(help="Per-call timeout in seconds (default 120).")]
_MaxTokens = Annotated[
    int | None, typer.Option("--max-tokens", help="Output tokens per call (default 1024).")
]
_PollInterval = Annotated[
    float | None, typer.Option("--poll-interval", help="Batch poll seconds (default 10).")
]
_Progress = Annotated[
    bool | None,
    typer.Option("--progress/--no-progress", help="Progress bar (default: on a TTY)."),
]
_JsonOut = options.JsonOut
_ConfigFile = options.ConfigFile


@app.command()
def judge(
    items: _Items,
    criterion: _Criterion,
    output: _Output,
    backend: _Backend = None,
    model: _Model = None,
    base_url: _BaseUrl = None,
    concurrency: _Concurrency = None,
    samples: _Samples = None,
    batch: _Batch = None,
    cache: _Cache = None,
    budget_usd: _BudgetUsd = None,
    budget_tokens: _BudgetTokens = None,
    timeout: _Timeout = None,
    max_tokens: _MaxTokens = None,
    poll_interval: _PollInterval = None,
    progress: _Progress = None,
    json_out: _JsonOut = None,
    config_file: _ConfigFile = None,
    certificate: CertificateOption = None,
    require_certified: RequireCertifiedOption = False,
) -> None:
    """Judge every item once per sample; cached verdicts are reused, so a rerun resumes where it stopped.

    Built-in criteria: answer-correct, answer-grounded, claims-backed, refusal-appropriate,
    step-faithful, summary-covers-points, summary-faithful (`pathjudge criteria show ID` prints one). Exit 1 when an
    item ended in a judge failure.

    Backend, model, base URL, concurrency, cache and budget resolve command line > PATHJUDGE_*
    environment > configuration file > defaults (see `pathjudge config`). The verdict counts are
    labelled certified (--certificate FILE names this judge) or uncertified."""
    from pathjudge._cli.config import judge_overrides, resolve_for_cli
    from pathjudge.judge.items import judge_items
    from pathjudge.judge.session import JudgeSession
    from pathjudge.report.progress import progress_bars

    overrides = judge_overrides(
        backend=backend, model=model, base_url=base_url, concurrency=concurrency, cache=cache
    )
    resolved = resolve_for_cli({**overrides, "budget_usd": budget_usd}, config_file=config_file)
    session = JudgeSession.resolve(
        config=resolved,
        samples=samples,
        batch=batch,
        budget_tokens=budget_tokens,
        timeout=timeout,
        max_tokens=max_tokens,
        poll_interval=poll_interval,
        progress=progress_bars(progress),
    )
    certification = _certification(criterion, session, certificate, require=require_certified)
    import json

    from pathjudge.errors import JudgeFailuresError

    # "--json -": stdout carries only the JSON, so the summary line goes to stderr
    console = human_console(json_out)
    try:
        summary = judge_items(
            items,
            criterion,
            output,
            session,
            warn=lambda text: err_console.print(text, markup=False),
            report=lambda document: write_json(json_out, json.dumps(document, indent=2)),
            certification=certification,
        )
    except JudgeFailuresError as exc:
        console.print(exc.summary, markup=False)
        raise
    console.print(summary, markup=False)


def _certification(
    criterion: str, session: JudgeSession, certificates: list[Path] | None, *, require: bool
) -> Certification:
    """The running judge's label by --certificate; --require-certified refuses an uncertified one
    here, before anything is judged."""
    from pathjudge._cli.certificates import checked, read_certificates
    from pathjudge.calibration.certificate import certifications_for
    from pathjudge.judge.identity import judge_identity
    from pathjudge.rubrics.criteria import get_criterion

    running = judge_identity(get_criterion(criterion), session)
    found = certifications_for(read_certificates(certificates), [running])
    (certification,) = checked(found, require=require)
    return certification
