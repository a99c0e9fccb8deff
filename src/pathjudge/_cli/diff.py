"""``pathjudge diff``: baseline vs candidate runs, per-task regressions and a promote/block verdict."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pathjudge._cli.app import app, json_to_stdout, out_console, write_json
from pathjudge._cli.config import load_suite_for_cli
from pathjudge._cli.inputs import runs_not_transcript
from pathjudge._cli.options import AllowCallables, JsonOut

if TYPE_CHECKING:
    from pathjudge.scoring.diff import DiffReport, TaskDiff


_Baseline = Annotated[Path, typer.Argument(help="Baseline runs JSONL.")]
_Candidate = Annotated[Path, typer.Argument(help="Candidate runs JSONL.")]
_Suite = Annotated[Path, typer.Option("--suite", help="The suite YAML both were run on.")]
_BlockOn = Annotated[
    str | None,
    typer.Option(
        help="Rules that block a promotion, comma-separated: success, significance, trajectory, "
        "cost, coverage (default: the suite's gate, else success,trajectory,coverage)."
    ),
]
_Alpha = Annotated[
    float | None,
    typer.Option(help="Significance level of the paired test (default: suite gate, else 0.05)."),
]
_Seed = Annotated[int | None, typer.Option(help="Seed of the paired bootstrap (default 0).")]
_Resamples = Annotated[int | None, typer.Option(help="Bootstrap resamples (default 10000).")]
_MaxTokenIncrease = Annotated[
    float | None,
    typer.Option(help="'cost' rule: block when tokens grow by more than this fraction."),
]
_MaxLatencyIncrease = Annotated[
    float | None,
    typer.Option(help="'cost' rule: block when latency grows by more than this fraction."),
]


@app.command("diff")
def diff_command(
    baseline: _Baseline,
    candidate: _Candidate,
    suite: _Suite,
    block_on: _BlockOn = None,
    alpha: _Alpha = None,
    seed: _Seed = None,
    resamples: _Resamples = None,
    max_token_increase: _MaxTokenIncrease = None,
    max_latency_increase: _MaxLatencyIncrease = None,
    json_out: JsonOut = None,
    allow_callables: AllowCallables = False,
) -> None:
    """Diff a candidate against a baseline task by task; exit 0 promote, 1 block, 2 bad input.

    The gate is each flag given, then the suite's 'gate:' block, then the built-in defaults.
    """
    from pathjudge.agent.io import read_runs
    from pathjudge.scoring.diff import diff_runs, parse_gate_rules, resolve_gate

    rules = parse_gate_rules(block_on) if block_on is not None else None
    loaded = load_suite_for_cli(suite, allow_callables=allow_callables)
    with _gate_flag_errors():
        gate = resolve_gate(
            loaded,
            block_on=rules,
            alpha=alpha,
            seed=seed,
            resamples=resamples,
            max_token_increase=max_token_increase,
            max_latency_increase=max_latency_increase,
        )
    with runs_not_transcript(baseline, candidate, then="diff"):
        report = diff_runs(
            read_runs(baseline),
            read_runs(candidate),
            loaded,
            gate=gate,
            baseline_file=baseline,
            candidate_file=candidate,
        )
    write_json(json_out, report.model_dump_json(indent=2))
    if not json_to_stdout(json_out):
        _print_diff(report, baseline, candidate)
    if report.verdict == "block":
        raise typer.Exit(1)


@contextmanager
def _gate_flag_errors() -> Iterator[None]:
    """A bad value of the promotion gate (each flag given, then the suite's ``gate:`` block, then
    the defaults) raises an :class:`~pathjudge.errors.InputError` naming its flag."""
    from pydantic import ValidationError

    from pathjudge.errors import InputError

    try:
        yield
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False)[0]
        name = str(first["loc"][0]).replace("_", "-") if first["loc"] else "gate"
        raise InputError(str(first["msg"]), field=f"--{name}") from None


def _print_diff(report: DiffReport, baseline: Path, candidate: Path) -> None:
    """The changed tasks' table, the paired test, the gate's reasons and the verdict."""
    from pathjudge.report.text import Column, Prose, print_table

    rows = [
        (task.task_id, _success_cell(task), _steps_cell(task), _findings_cell(task))
        for task in report.tasks
        if task.changed
    ]
    unchanged = len(report.tasks) - len(report.changed_tasks)
    if rows:
        print_table(
            out_console,
            f"{candidate} vs {baseline} on suite {report.suite}",
            [
                Column("task", "id"),
                Column("success", "num"),
                Column("steps Δ", "text"),
                Column("findings", "text"),
            ],
            rows,
        )
    t = report.test
    boot = (
        f"; bootstrap Δ success {t.mean_delta:+.3f} [{t.bootstrap_low:+.3f}, {t.bootstrap_high:+.3f}]"
        if t.mean_delta is not None and t.bootstrap_low is not None and t.bootstrap_high is not None
        else ""
    )
    out_console.print(
        f"{len(report.changed_tasks)} task(s) changed, {unchanged} unchanged · tokens {report.tokens_before} → "
        f"{report.tokens_after} · paired test over {t.tasks} tasks: McNemar p={t.mcnemar_p:.4f} "
        f"(worse {t.worse}, better {t.better}){boot}"
    )
    for reason in report.reasons:  # a gate's reason wraps under itself, not at column 0
        out_console.print(Prose(f"  {reason}", indent=4, hanging=True))
    out_console.print(f"verdict: {report.verdict.upper()}")


def _success_cell(task: TaskDiff) -> str:
    """The task's success rate before → after, or "—" when either is undefined."""
    if task.success_before is None or task.success_after is None:
        return "—"
    return f"{task.success_before:.2f} → {task.success_after:.2f}"


def _steps_cell(task: TaskDiff) -> str:
    """The step-count change of each epoch that changed ("e1 +2, e3 -1"), or "0"."""
    return ", ".join(f"e{p.epoch} {p.step_delta:+d}" for p in task.pairs if p.step_delta) or "0"


def _findings_cell(task: TaskDiff) -> str:
    """One line per distinct finding, naming the epochs it occurred in (not one copy per epoch).

    A finding of the task as a whole (a missing epoch) has no epoch suffix.
    """
    epochs: dict[str, list[int]] = {}
    for pair in task.pairs:
        for finding in pair.findings:
            epochs.setdefault(f"{finding.kind}: {finding.what}", []).append(pair.epoch)
    lines = [
        f"{text} (epoch {found[0]})"
        if len(found) == 1
        else f"{text} (epochs {', '.join(map(str, found))})"
        for text, found in epochs.items()
    ]
    from_pairs = Counter({text: len(found) for text, found in epochs.items()})
    for finding in task.findings:
        text = f"{finding.kind}: {finding.what}"
        if from_pairs[text]:
            from_pairs[text] -= 1
        else:
            lines.append(text)
    return "\n".join(lines)
