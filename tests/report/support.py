"""Report test support: view records with hostile agent text, and the real scoring pipeline."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from pathjudge.report._view import (
    AxisView,
    CalibrationView,
    CheckView,
    CriterionCalibrationView,
    DiffRow,
    DiffView,
    DisagreementView,
    GateView,
    MetricView,
    ReportView,
    RunView,
    StepView,
    TaskView,
    VarianceRow,
    VarianceView,
    VerdictView,
    WeakPathView,
)

XSS_SCRIPT = "<script>window.__pwned=1</script>"
XSS_IMG = '<img src=x onerror="window.__pwned=2">'
HOSTILE_ANSWER = f"The refund window is 30 days. {XSS_SCRIPT} {XSS_IMG} \u2028 </script><!-- & done"


def _text(seed: str, chars: int) -> str:
    filler = seed + "Refunds are accepted within 30 days of purchase with a receipt. "
    return (filler * (chars // len(filler) + 1))[:chars]


def _run(index: int, task_id: str, *, rng: random.Random, result_chars: int) -> RunView:
    success = index % 4 != 3
    steps = tuple(
        StepView(
            turn=turn,
            tool="search_docs" if turn % 2 == 0 else "read_doc",
            decision=f"Step {turn}: look for the policy in the docs.",
            arguments={"query": f"refund policy {turn}", "top_k": 3},
            arguments_error=None,
            raw_arguments=None,
            result=_text(f"doc-{index}-{turn}: {rng.random():.6f} ", result_chars),
            is_error=turn == 2 and index % 5 == 0,
            latency_ms=12.5,
        )
        for turn in range(4)
    )
    return RunView(
        run_id=f"run-{index:04d}",
        task_id=task_id,
        epoch=index % 3,
        success="pass" if success else "fail",
        path_score=float([100, 75, 90, 0][index % 4]),
        tool_calls=1.0 if success else 0.5,
        trajectory=1.0 if index % 4 == 0 else 0.0,
        reason="ok" if index % 4 == 0 else f"off-reference path; {XSS_IMG}",
        weak=() if index % 4 == 0 else ("poor_path",),
        alignment=("  = search <-> call 0 search_docs", "  - missing: read_doc"),
        input={"question": "How long is the refund window?"},
        final_answer=HOSTILE_ANSWER if index == 0 else f"Answer {index}",
        stop_reason="end_turn",
        steps=steps,
        checks=(
            CheckView(
                "tools.required",
                "tool_selection",
                "pass",
                1.0,
                "called search_docs as required",
                True,
            ),
            CheckView(
                "outcome.contains",
                "goal_completion",
                "pass" if success else "fail",
                None,
                "answer contains '30 days'" if success else f"answer lacks '30 days' {XSS_IMG}",
                True,
            ),
            CheckView(
                "judge.faithful",
                "goal_completion",
                "not_run",
                None,
                "fast mode: judged criterion not run",
                True,
            ),
        ),
        verdicts=(
            VerdictView(
                criterion="faithful_summary",
                verdict="pass" if success else "fail",
                reasoning=f"The answer quotes the refund doc. {XSS_SCRIPT}",
                step=1,
            ),
        ),
    )


def make_view(n_runs: int = 8, *, result_chars: int = 300, seed: int = 7) -> ReportView:
    """A full report view; run 0's answer (and some reasons) hold markup that must stay inert."""
    rng = random.Random(seed)
    task_ids = [f"task-{i:02d}" for i in range(max(1, n_runs // 4))]
    runs = tuple(
        _run(i, task_ids[i % len(task_ids)], rng=rng, result_chars=result_chars)
        for i in range(n_runs)
    )
    tasks = tuple(
        TaskView(
            task_id=task_id,
            runs=sum(1 for r in runs if r.task_id == task_id),
            success=0.75 - 0.05 * (n % 5),
            passed=3,
            failed=1,
            undecided=0,
            tool_calls=0.9,
            trajectory=0.5 + 0.1 * (n % 3),
            path_score=80.0 - n,
            mean_steps=4.0,
            weak=n % 3,
        )
        for n, task_id in enumerate(task_ids)
    )
    return ReportView(
        title="pathjudge report — docent",
        subtitle=f"{n_runs} runs · {len(task_ids)} tasks · suite examples/docent/suite.yaml",
        levels=(
            MetricView("success", "Task success", 1.0, "8 of 8 runs"),
            MetricView("tool_calls", "Tool-call correctness", 1.0, "mean over runs"),
            MetricView("trajectory", "Trajectory quality", 0.75, "6 of 8 on a reference path"),
        ),
        overall=MetricView("overall", "Weighted overall", 0.91, "weights: equal"),
        secondary=(MetricView("path", "Mean path score", 87.5, "0-100", digits=1),),
        axes=tuple(
            AxisView(name, value, 0.2)
            for name, value in [
                ("tool_selection", 1.0),
                ("argument_correctness", 0.95),
                ("step_efficiency", 0.8),
                ("error_recovery", 0.9),
                ("goal_completion", 1.0),
            ]
        ),
        gates=(GateView("success", 1.0, 1.0, True), GateView("trajectory", 0.8, 0.75, False)),
        weak_paths=(
            WeakPathView(("failed",), "task-00", "run-0003", f"answer lacks '30 days' {XSS_IMG}"),
            WeakPathView(
                ("poor_path", "redundant"),
                "task-01",
                "run-0005",
                "search_docs called twice with the same query",
                ("  = search <-> call 0 search_docs", f"  + extra call 1 {XSS_SCRIPT}"),
            ),
        ),
        weak_total=2,
        tasks=tasks,
        runs=runs,
        diff=DiffView(
            baseline_label="baseline runs.jsonl",
            candidate_label="candidate runs.jsonl",
            verdict="block",
            reasons=("success: task-00 success 1.00 -> 0.75",),
            metrics=(MetricView("mcnemar_p", "McNemar exact p", 0.5, "b=1 worse, c=0 better"),),
            rows=(
                DiffRow(
                    "task-00", 1.0, 0.75, "regression", ("success flip pass -> fail", XSS_SCRIPT)
                ),
            ),
            notes=("Paired bootstrap over tasks: mean change -0.12 [-0.38, 0.00] at 95%.",),
        ),
        variance=VarianceView(
            ks=(1, 2, 3),
            rows=(
                VarianceRow(
                    "task-00",
                    3,
                    2,
                    3,
                    "flaky",
                    ((1, 0.67), (2, 1.0), (3, 1.0)),
                    ((1, 0.67), (2, 0.33), (3, 0.0)),
                ),
                VarianceRow(
                    "task-01",
                    2,
                    2,
                    2,
                    "stable",
                    ((1, 1.0), (2, 1.0), (3, None)),
                    ((1, 1.0), (2, 1.0), (3, None)),
                ),
            ),
            suite_pass_hat_k=((1, 0.83), (2, 0.67), (3, None)),
            suite_pass_at_k=((1, 0.83), (2, 1.0), (3, None)),
            notes=("success 0.80 [0.62, 0.98] at 95%, clustered by task (5 runs, 2 tasks)",),
        ),
        calibration=CalibrationView(
            source="labels labels.jsonl · verdicts verdicts.jsonl",
            criteria=(
                CriterionCalibrationView(
                    criterion="faithful_summary",
                    summary="100 labelled items: 100 decided, 0 unsure.",
                    trusted=True,
                    trust_reason="every gate passed on its lower bound",
                    gates=(GateView("kappa", 0.6, 0.7, True),),
                    metrics=(
                        MetricView(
                            "kappa", "Cohen's kappa", 0.81, "agreement beyond chance", 0.7, 0.9
                        ),
                    ),
                    labels=("pass", "fail"),
                    confusion=((40, 3), (5, 52)),
                    reliability=((0.1, 0.05, 20), (0.5, 0.6, 7), (0.9, 0.85, 40)),
                    notes=(),
                    disagreements=(
                        DisagreementView(
                            "item-7",
                            "false_pass",
                            "fail",
                            "pass",
                            0.67,
                            XSS_SCRIPT,
                            "misses a point",
                        ),
                    ),
                ),
            ),
        ),
    )


# --------------------------------------------------------------------------------------------------
# The REAL pipeline: examples/docent scored by `pathjudge score --json`, rendered by `pathjudge report`.

LONG_DOC_CHARS = 30_000


@dataclass(frozen=True)
class Scored:
    """Files of one real scoring: runs, the score JSON (with per-run grades), JUnit, and the exit code."""

    folder: Path
    runs: Path
    score_json: Path
    junit: Path
    exit_code: int


def _long_doc(n: int) -> dict[str, str]:
    return {"id": "appendix", "title": "Appendix", "text": _text("Meridian appendix. ", n)}


def hostile_docent_runs(repo_root: Path, folder: Path) -> Path:
    """The bundled Docent runs with agent text that must stay inert and a 30,000-char tool result.

    rate-429 keeps its right answer (it still passes) with markup appended; pro-rpm's answer becomes a
    refusal carrying XML/HTML specials (so it fails, and its reason reaches JUnit and the weak list).
    """
    from pathjudge._io import write_jsonl
    from pathjudge.agent.io import read_runs

    out = []
    for run in read_runs(repo_root / "examples" / "docent" / "runs.jsonl"):
        if run.task_id == "rate-429":
            step = run.steps[0]
            result = (
                [*step.result, _long_doc(LONG_DOC_CHARS)]
                if isinstance(step.result, list)
                else step.result
            )
            run = run.model_copy(
                update={
                    "final_answer": f"{run.final_answer} {XSS_SCRIPT} {XSS_IMG}",
                    "steps": (step.model_copy(update={"result": result}), *run.steps[1:]),
                }
            )
        elif run.task_id == "pro-rpm":
            run = run.model_copy(
                update={"final_answer": f"I cannot tell ]]> & <b>sorry</b> {XSS_IMG}"}
            )
        out.append(run)
    path = folder / "runs.jsonl"
    write_jsonl(path, out)
    return path


def many_docent_runs(repo_root: Path, folder: Path, total: int) -> Path:
    """``total`` runs: the bundled Docent runs repeated over epochs, each with a 6,000-char tool result."""
    from pathjudge._io import write_jsonl
    from pathjudge.agent.io import read_runs

    base = list(read_runs(repo_root / "examples" / "docent" / "runs.jsonl"))
    out = []
    for n in range(total):
        run = base[n % len(base)]
        copy = n // len(base)
        steps = tuple(
            step.model_copy(update={"result": [*step.result, _long_doc(6_000)]})
            if isinstance(step.result, list)
            else step
            for step in run.steps
        )
        out.append(
            run.model_copy(
                update={
                    "run_id": f"{run.run_id}-c{copy}",
                    "epoch": run.epoch + 2 * copy,
                    "steps": steps,
                }
            )
        )
    path = folder / "runs.jsonl"
    write_jsonl(path, out)
    return path


def score(repo_root: Path, runs: Path, folder: Path, *extra: str) -> Scored:
    """Run ``pathjudge score RUNS --suite examples/docent/suite.yaml --json --include-runs --junit``."""
    from pathjudge.cli import main

    score_json, junit = folder / "score.json", folder / "junit.xml"
    code = main(
        [
            "score",
            str(runs),
            "--suite",
            str(repo_root / "examples" / "docent" / "suite.yaml"),
            "--json",
            str(score_json),
            "--include-runs",
            "--junit",
            str(junit),
            "--quiet",
            *extra,
        ]
    )
    return Scored(folder, runs, score_json, junit, code)
