"""Streaming summary of a runs file: per-task counts, steps, errors and tools (``pathjudge show``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from pydantic import Field

from pathjudge._records import FrozenModel
from pathjudge.agent.trajectory import RunRecord

__all__ = ["RunsSummary", "TaskSummary", "summarize_runs"]


class TaskSummary(FrozenModel):
    """Aggregates over the runs of one task."""

    task_id: str
    runs: int = Field(description="Number of runs (all epochs).")
    epochs: int = Field(description="Number of distinct epochs.")
    steps: int = Field(description="Tool calls over all runs.")
    min_steps: int
    max_steps: int
    errors: int = Field(description="Errored tool results over all runs.")
    runs_with_errors: int
    malformed_arguments: int = Field(description="Calls whose arguments were not valid JSON.")
    no_answer: int = Field(description="Runs without a final answer.")
    tools: dict[str, int] = Field(description="Calls per tool name, most used first.")

    @property
    def mean_steps(self) -> float:
        return self.steps / self.runs if self.runs else 0.0


class RunsSummary(FrozenModel):
    """Per-task summaries plus totals."""

    runs: int
    tasks: tuple[TaskSummary, ...]
    steps: int
    errors: int
    tools: dict[str, int]


class _Acc:
    __slots__ = (
        "epochs",
        "errors",
        "malformed",
        "max_steps",
        "min_steps",
        "no_answer",
        "runs",
        "runs_err",
        "steps",
        "tools",
    )

    def __init__(self) -> None:
        self.runs = 0
        self.epochs: set[int] = set()
        self.steps = 0
        self.min_steps = -1
        self.max_steps = 0
        self.errors = 0
        self.runs_err = 0
        self.malformed = 0
        self.no_answer = 0
        self.tools: Counter[str] = Counter()


def _most_used_first(counts: Counter[str]) -> dict[str, int]:
    """Tool → calls, most used first, ties by name."""
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def summarize_runs(runs: Iterable[RunRecord]) -> RunsSummary:
    """Summarise runs in one pass, in memory proportional to tasks and tools (not runs).

    Empty input gives a summary with zero runs and no tasks.
    """
    accs: dict[str, _Acc] = {}
    for run in runs:
        acc = accs.get(run.task_id)
        if acc is None:
            acc = accs[run.task_id] = _Acc()
        n = len(run.steps)
        acc.runs += 1
        acc.epochs.add(run.epoch)
        acc.steps += n
        acc.min_steps = n if acc.min_steps < 0 else min(acc.min_steps, n)
        acc.max_steps = max(acc.max_steps, n)
        errors = 0
        for step in run.steps:
            acc.tools[step.tool] += 1
            if step.is_error:
                errors += 1
            if step.arguments_error is not None:
                acc.malformed += 1
        acc.errors += errors
        acc.runs_err += errors > 0
        acc.no_answer += run.final_answer is None
    tasks = tuple(
        TaskSummary(
            task_id=task_id,
            runs=a.runs,
            epochs=len(a.epochs),
            steps=a.steps,
            min_steps=max(a.min_steps, 0),
            max_steps=a.max_steps,
            errors=a.errors,
            runs_with_errors=a.runs_err,
            malformed_arguments=a.malformed,
            no_answer=a.no_answer,
            tools=_most_used_first(a.tools),
        )
        for task_id, a in sorted(accs.items())
    )
    total_tools: Counter[str] = Counter()
    for a in accs.values():
        total_tools.update(a.tools)
    return RunsSummary(
        runs=sum(t.runs for t in tasks),
        tasks=tasks,
        steps=sum(t.steps for t in tasks),
        errors=sum(t.errors for t in tasks),
        tools=_most_used_first(total_tools),
    )
