"""``pathjudge align``: search few-shot examples (and clarifications) on dev, then test once.

The search is :func:`pathjudge.calibration.align.align`; this module parses the options, prints the
budget before anything is judged and each candidate as it is scored (stderr), then the report
(stdout) and writes the chosen criterion (``-o``) and the JSON report (``--json``).

The one test evaluation goes through the test-split ledger, as ``calibrate --split test`` does
(:func:`pathjudge.calibration.test_use.record_test_use`): a changed judge configuration on a test
split another one already used is refused (exit 2) unless ``--reuse-test``, which the report then
says. Exit 0 when the chosen judge is TRUSTED on test, 1 when it is NOT TRUSTED (whether or not
anything improved), 2 for bad input.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pathjudge._cli.app import app, err_console, json_to_stdout, out_console, write_json
from pathjudge._cli.options import (
    AssignSplits,
    ConfigFile,
    HumanLabels,
    IntervalConfidence,
    JsonOut,
    JudgeModel,
    KappaBootstrap,
    LiveJudgeBackend,
    LiveJudgeBaseUrl,
    LiveJudgeCache,
    LiveJudgeConcurrency,
    LiveJudgeSamples,
    ReuseTest,
    TrustGates,
)

if TYPE_CHECKING:
    from pathjudge.calibration.align import AlignReport, AlignStep, BudgetPlan
    from pathjudge.calibration.calibrate import CriterionCalibration
    from pathjudge.calibration.labels import LabelSet
    from pathjudge.calibration.ledger import SplitUse
    from pathjudge.judge.identity import JudgeIdentity
    from pathjudge.judge.session import JudgeSession

_Criterion = Annotated[
    str, typer.Option(help="The criterion to align: a built-in id or a YAML path.")
]
_Output = Annotated[
    Path, typer.Option("-o", "--output", help="Write the chosen criterion YAML here.")
]
_MaxCalls = Annotated[
    int,
    typer.Option(
        "--max-calls", min=1, help="Judge calls the search and the test may make (cached: free)."
    ),
]
_K = Annotated[int, typer.Option("--k", min=1, help="At most this many few-shot examples.")]
_Rounds = Annotated[int, typer.Option(min=1, help="Clarification rounds (with a proposer).")]
_ProposerModel = Annotated[
    str | None,
    typer.Option(help="Anthropic model that proposes pass/fail clarifications (none: off)."),
]
_ProposerUrl = Annotated[
    str | None, typer.Option(help="Base URL of the proposer's Anthropic API (default: the API).")
]
_Seed = Annotated[int, typer.Option(help="Seed of the few-shot pool order and the bootstrap.")]


@app.command()
def align(
    labels: HumanLabels,
    criterion: _Criterion,
    output: _Output,
    max_calls: _MaxCalls,
    k: _K = 4,
    rounds: _Rounds = 2,
    proposer_model: _ProposerModel = None,
    proposer_base_url: _ProposerUrl = None,
    backend: LiveJudgeBackend = None,
    model: JudgeModel = None,
    base_url: LiveJudgeBaseUrl = None,
    samples: LiveJudgeSamples = 1,
    concurrency: LiveJudgeConcurrency = None,
    cache: LiveJudgeCache = None,
    gates: TrustGates = None,
    seed: _Seed = 0,
    confidence: IntervalConfidence = 0.95,
    bootstrap: KappaBootstrap = 2000,
    json_out: JsonOut = None,
    config_file: ConfigFile = None,
    reuse_test: ReuseTest = False,
    assign_splits: AssignSplits = False,
) -> int:
    """Search a better judge configuration on train and dev labels, then evaluate it once on test.

    Few-shot examples are chosen greedily from the train items to raise the lower bound of
    min(TPR, TNR) on dev; with --proposer-model, a model also rewrites the pass/fail definitions
    from the dev disagreements. The worst-case number of judge calls is printed before anything is
    judged; the search is shrunk to fit --max-calls or refused. Judge options resolve as in
    `pathjudge calibrate`. The test evaluation is recorded in the test-split ledger: a changed judge
    on a used test split is refused unless --reuse-test. Exit 1 when the chosen judge is NOT
    TRUSTED on test."""
    from pathjudge._cli.calibrate import _configured_gates, _load_label_files, _resolve_config
    from pathjudge._io import write_text_atomic
    from pathjudge.calibration.align import align as run_align
    from pathjudge.calibration.align import criterion_yaml
    from pathjudge.calibration.proposer import AnthropicProposer
    from pathjudge.judge.cache import VerdictCache
    from pathjudge.judge.identity import judge_identity
    from pathjudge.judge.session import JudgeSession
    from pathjudge.rubrics.criteria import get_criterion

    resolved = _resolve_config(
        gates, backend, model, base_url, concurrency, cache, config_file, live=True
    )
    label_set = _load_label_files(labels, None, None, None, keep_stale=False)
    if assign_splits:
        from pathjudge.calibration.splits import assign_splits as assign

        label_set = assign(label_set)
    start = get_criterion(criterion)
    # labels name the criterion by the path given or by its id
    name = (
        criterion
        if criterion in label_set.criteria or start.id not in label_set.criteria
        else start.id
    )
    session = JudgeSession.resolve(config=resolved, samples=samples)
    judge = session.build_backend()
    proposer = None
    if proposer_model is not None:
        proposer = AnthropicProposer(model=proposer_model, base_url=proposer_base_url)
    with VerdictCache(session.cache) as store:
        result = run_align(
            label_set, start, name=name, backend=judge, max_calls=max_calls, cache=store,
            samples=session.samples, concurrency=session.concurrency, k=k, proposer=proposer,
            rounds=rounds, gates=_configured_gates(resolved),
            seed=seed, confidence=confidence, n_bootstrap=bootstrap, on_plan=_print_plan,
            on_step=_print_step, identity=judge_identity(start, session),
            test_use=_ledger(label_set, name, session, reuse_test=reuse_test),
        )  # fmt: skip
    report = result.report
    write_text_atomic(output, criterion_yaml(result.criterion, origin=report.original))
    err_console.print(f"wrote {output}")
    if not json_to_stdout(json_out):
        _render(report)
    write_json(json_out, report.model_dump_json(indent=2))
    return 0 if report.test.calibration.trust.trusted else 1


def _ledger(
    labels: LabelSet, name: str, session: JudgeSession, *, reuse_test: bool
) -> Callable[[JudgeIdentity], SplitUse]:
    """Records the test evaluation of the chosen judge in the test-split ledger beside the cache."""
    from pathjudge.calibration.ledger import ledger_path
    from pathjudge.calibration.test_use import record_test_use

    key = name if name in labels.criteria else None

    def use(identity: JudgeIdentity) -> SplitUse:
        return record_test_use(
            labels, key, identity, ledger=ledger_path(session.cache), reuse_test=reuse_test
        )

    return use


def _print_plan(plan: BudgetPlan) -> None:
    usd = f"${plan.estimated_usd:.4f}" if plan.estimated_usd is not None else "price unknown"
    err_console.print(
        f"align: at most {plan.estimated_calls} judge calls of --max-calls {plan.max_calls} "
        f"(~{plan.estimated_input_tokens} input + {plan.estimated_output_tokens} output tokens, "
        f"{usd}); {plan.n_dev} dev items x {plan.samples} sample(s) per candidate, few-shot pool "
        f"{plan.pool} of {plan.pool_available} train items, k {plan.k}, {plan.rounds} "
        "clarification round(s); cached calls are free",
        markup=False,
    )


def _print_step(step: AlignStep) -> None:
    low = f"{step.objective:.3f}" if step.objective is not None else "undefined"
    err_console.print(
        f"  {step.kind}: {step.description}: objective {low} ({step.calls} calls)", markup=False
    )


def _numbers(calibration: CriterionCalibration) -> str:
    from pathjudge._cli.calibrate import _fmt

    a = calibration.agreement
    parts = []
    for name, est in (
        ("TPR", a.tpr_unsure_as_wrong),
        ("TNR", a.tnr_unsure_as_wrong),
        ("kappa", a.kappa_unsure_as_wrong),
    ):
        value, interval = _fmt(est)
        parts.append(f"{name} {value} {interval}".rstrip())
    verdict = "TRUSTED" if calibration.trust.trusted else "NOT TRUSTED"
    return f"{', '.join(parts)} (n={calibration.n_labelled}; {verdict})"


def _render(report: AlignReport) -> None:
    from pathjudge.report.text import Prose

    def say(text: str) -> None:
        out_console.print(Prose(text, indent=2, hanging=True))

    original, aligned = report.original, report.aligned
    say(f"align {original.criterion_id}: {original.criterion_version} ({original.criterion_hash}) "
        f"-> {aligned.criterion_version} ({aligned.criterion_hash})")  # fmt: skip
    say(f"objective: {report.objective}")
    say(f"examples: {', '.join(report.examples) or 'none'}; clarification: "
        f"{'kept' if report.clarification else 'none'}")  # fmt: skip
    say(f"dev before (gated): {_numbers(report.dev_before)}")
    say(f"dev after (gated): {_numbers(report.dev_after)}")
    reused = " (test split reused: --reuse-test)" if report.test.test_reused else ""
    say(f"test, once, criterion {report.test.criterion_hash}{reused}: "
        f"{_numbers(report.test.calibration)}")  # fmt: skip
    say(f"judge calls: {report.judge_calls} of --max-calls {report.budget.max_calls} "
        f"(test {report.test.calls}); proposer calls: {report.proposer_calls}")  # fmt: skip
    for note in report.notes:
        say(f"note: {note}")
