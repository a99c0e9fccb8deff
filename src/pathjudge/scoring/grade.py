"""Grading: runs × suite → one :class:`RunGrade` per run, streamed.

Per run, three levels are graded apart because they disagree:

- **task success** (``success``): the task's deterministic success criterion, plus the guard that a
  ``factual`` task answered with a refusal fails and an ``out_of_scope`` task passes only by refusing,
  plus any judged criterion the judge decided. ``undecided`` when nothing could decide (a task whose
  only criterion is judged, in fast mode or with no verdict) — excluded from the success rate;
- **tool-call correctness** (``tool_calls``): the mean score of the gating checks on the tool-selection
  and argument-correctness axes (a check without a score counts 1 for pass, 0 for fail);
- **trajectory quality** (``trajectory``): 1.0 when the run matched one of the task's reference paths
  (see :attr:`~pathjudge.rubrics.path.PathAlignment.satisfied`) with no redundant call, else 0.0;
  ``None`` when the task has no reference path.

Plus the five axis means, the path score (best of the references), whether the task's ``surface`` ids
came back from some tool, and the judged criteria, each ``pass / fail / unsure / error / not_run``.
Judged criteria never turn into a pass or a fail without a verdict: in fast mode, or when no verdict
was given for the item, they are ``not_run``.

Grading is a pure function of (runs, suite, verdicts): the same inputs give the same grades.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from pathjudge.agent.trajectory import RunRecord
from pathjudge.rubrics.assertions.arguments import CallExpectation, match_call
from pathjudge.rubrics.assertions.base import AXES, Axis, CheckResult
from pathjudge.rubrics.assertions.outcome import RefusalCriterion, check_outcome
from pathjudge.rubrics.assertions.overlap import check_query_overlap
from pathjudge.rubrics.assertions.recovery import RecoverySpec, check_recovery
from pathjudge.rubrics.assertions.steps import StepSpec, check_steps, redundant_calls
from pathjudge.rubrics.assertions.tools import check_tool_selection
from pathjudge.rubrics.path import (
    Mode,
    PathAlignment,
    RefSpec,
    align_calls,
    best_alignment,
    compile_reference,
    result_contains,
)
from pathjudge.rubrics.suite import Suite, Task
from pathjudge.scoring.judged import JudgedStatus, VerdictLike, item_id, status_of

__all__ = [
    "JudgedResult",
    "RunGrade",
    "SuccessStatus",
    "TaskPlan",
    "WeakFlag",
    "grade",
    "grade_run",
    "plan_task",
]

SuccessStatus = Literal["pass", "fail", "undecided"]
WeakFlag = Literal["failed", "poor_path", "redundant"]


class JudgedResult(BaseModel):
    """One judged criterion on one run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    criterion: str
    item_id: str
    status: JudgedStatus
    reasoning: str = Field(default="", description="The judge's reasoning, or why it did not run.")


class RunGrade(BaseModel):
    """Everything graded about one run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    task_id: str
    epoch: int
    success: SuccessStatus = Field(description="Task success: pass / fail / undecided.")
    success_score: float | None = Field(
        description="Partial credit of the success criterion (0..1); None when undecided."
    )
    tool_calls: float | None = Field(
        description="Tool-call correctness score (0..1); None with no checks."
    )
    trajectory: float | None = Field(
        description="1.0 matched a reference with no redundant call; None with no reference."
    )
    path_score: int | None = Field(
        description="Best path score over the references; None with none."
    )
    axes: dict[Axis, float | None] = Field(description="Per-axis mean of the gating checks.")
    surfaced: bool | None = Field(
        description="Whether every surface id came back; None when none is set."
    )
    missing_surface: tuple[str, ...] = Field(
        default=(), description="Surface ids no tool result carried."
    )
    steps: int = Field(description="Number of tool calls.")
    redundant: int = Field(description="Number of redundant calls.")
    checks: tuple[CheckResult, ...]
    path: PathAlignment | None = Field(description="The best reference alignment (the diff).")
    judged: tuple[JudgedResult, ...] = ()
    weak: tuple[WeakFlag, ...] = Field(default=(), description="Weak-path flags.")
    reason: str = Field(description="Why the run is weak (or 'ok').")

    @property
    def check_errors(self) -> int:
        return sum(1 for c in self.checks if c.status == "error")


@dataclass(frozen=True, slots=True)
class TaskPlan:
    """Everything about a task that does not depend on the run, computed once per task."""

    task: Task
    references: tuple[tuple[str, Mode, tuple[RefSpec, ...]], ...]
    step_spec: StepSpec
    recovery_spec: RecoverySpec
    arguments: Mapping[str, CallExpectation]
    budget: int | None


def plan_task(task: Task) -> TaskPlan:
    """Compile a task's references and defaults once, for grading many runs of it."""
    step_spec = task.steps or StepSpec()
    return TaskPlan(
        task=task,
        references=tuple(
            (ref.name or f"reference {i + 1}", ref.mode, compile_reference(ref))
            for i, ref in enumerate(task.references)
        ),
        step_spec=step_spec,
        recovery_spec=task.recovery or RecoverySpec(),
        arguments={exp.tool: exp for exp in task.arguments},
        budget=step_spec.budget,
    )


def _arguments_checks(run: RunRecord, plan: TaskPlan) -> list[CheckResult]:
    out: list[CheckResult] = []
    n = len(run.steps)
    if n:
        bad = [i for i, s in enumerate(run.steps) if s.arguments_error is not None]
        out.append(
            CheckResult(
                check="arguments.valid_json",
                axis="argument_correctness",
                status="fail" if bad else "pass",
                score=(n - len(bad)) / n,
                reason=(
                    f"{len(bad)} of {n} calls had arguments that were not valid JSON: "
                    + ", ".join(f"steps[{i}] {run.steps[i].tool}" for i in bad)
                    if bad
                    else f"all {n} calls had valid JSON arguments"
                ),
                details={"malformed": list(bad)},
            )
        )
    if plan.arguments:
        total = 0
        failures: list[str] = []
        for index, step in enumerate(run.steps):
            expected = plan.arguments.get(step.tool)
            if expected is None or step.arguments_error is not None:
                continue
            total += 1
            found = match_call(step.tool, step.arguments, expected)
            if not found.ok:
                failures.append(
                    f"steps[{index}] {step.tool}: "
                    + "; ".join(m.render() for m in found.mismatches[:3])
                )
        tools = ", ".join(sorted(plan.arguments))
        if total == 0:
            out.append(
                CheckResult(
                    check="arguments.match",
                    axis="argument_correctness",
                    status="not_run",
                    reason=f"no call to {tools} to check",
                )
            )
        else:
            ok = total - len(failures)
            out.append(
                CheckResult(
                    check="arguments.match",
                    axis="argument_correctness",
                    status="fail" if failures else "pass",
                    score=ok / total,
                    reason=f"{ok} of {total} calls to {tools} matched their expectation"
                    + ("; " + "; ".join(failures[:5]) if failures else ""),
                    details={"checked": total, "failed": len(failures)},
                )
            )
    return out


def _numeric(check: CheckResult) -> float | None:
    if check.status == "pass" or check.status == "fail":
        if check.score is not None:
            return check.score
        return 1.0 if check.status == "pass" else 0.0
    return None


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def grade_run(
    run: RunRecord,
    plan: TaskPlan,
    *,
    verdicts: Mapping[str, VerdictLike] | None = None,
    fast: bool = False,
) -> RunGrade:
    """Grade one run against its task plan (see the module docstring)."""
    task = plan.task
    checks: list[CheckResult] = []
    if task.tools is not None:
        checks.extend(check_tool_selection(run, task.tools))
    checks.extend(_arguments_checks(run, plan))
    if task.query_overlap is not None:
        checks.append(
            check_query_overlap(
                run,
                argument=task.query_overlap.argument,
                question=task.input_text if task.input is not None else None,
                tools=task.query_overlap.tools or None,
            )
        )
    checks.extend(check_steps(run, plan.step_spec))
    checks.extend(check_recovery(run, plan.recovery_spec))
    goal: list[CheckResult] = []
    if task.success is not None:
        goal.append(check_outcome(run, task.success))
    if task.success is None and task.kind is not None:
        # factual: an answer that refuses fails; out_of_scope: only a refusal passes
        expect: Literal["answer", "refuse"] = "answer" if task.kind == "factual" else "refuse"
        goal.append(check_outcome(run, RefusalCriterion(expect=expect)))
    checks.extend(goal)

    pairs = redundant_calls(run)
    repeats = [repeat for _, repeat in pairs]
    alignment: PathAlignment | None = None
    if plan.references:
        alignment = best_alignment(
            [
                align_calls(
                    run.steps,
                    refs,
                    mode,
                    name=name,
                    budget=plan.budget,
                    costs=task.costs,
                    redundant=repeats,
                )
                for name, mode, refs in plan.references
            ]
        )

    judged: list[JudgedResult] = []
    for spec in task.judged:
        key = item_id(run.run_id, spec.criterion)
        if fast:
            judged.append(
                JudgedResult(
                    criterion=spec.criterion, item_id=key, status="not_run", reasoning="fast mode"
                )
            )
            continue
        verdict = verdicts.get(key) if verdicts is not None else None
        status = status_of(verdict)
        reasoning = (
            verdict.reasoning
            if verdict is not None
            else ("no verdict for this item" if verdicts is not None else "no judge configured")
        )
        judged.append(
            JudgedResult(criterion=spec.criterion, item_id=key, status=status, reasoning=reasoning)
        )

    # task success
    gating_goal = [c for c in goal if c.gating]
    decided_goal = [c for c in gating_goal if c.status in ("pass", "fail", "error")]
    judged_fail = any(j.status == "fail" for j in judged)
    judged_pass = [j for j in judged if j.status == "pass"]
    success: SuccessStatus
    if any(c.status != "pass" for c in decided_goal) or judged_fail:
        success = "fail"
    elif decided_goal or (judged and len(judged_pass) == len(judged)):
        success = "pass"
    else:
        success = "undecided"
    success_score: float | None = None
    if success != "undecided":
        criterion = goal[0] if task.success is not None else None
        others_fail = judged_fail or any(
            c.status != "pass" for c in decided_goal if c is not criterion
        )
        if others_fail:
            success_score = 0.0
        elif (
            criterion is not None
            and criterion.status in ("pass", "fail")
            and criterion.score is not None
        ):
            success_score = criterion.score  # partial credit of a multi-part criterion
        else:
            success_score = 1.0 if success == "pass" else 0.0

    # levels and axes
    tool_scores = [
        v
        for c in checks
        if c.gating and (c.axis == "tool_selection" or c.axis == "argument_correctness")
        for v in (_numeric(c),)
        if v is not None
    ]
    tool_calls = _mean(tool_scores)
    axes: dict[Axis, float | None] = {}
    for axis in AXES:
        values = [
            v
            for c in checks
            if c.gating and c.axis == axis
            for v in (_numeric(c),)
            if v is not None
        ]
        axes[axis] = _mean(values)
    trajectory: float | None = None
    if alignment is not None:
        trajectory = 1.0 if alignment.satisfied and not pairs else 0.0

    surfaced: bool | None = None
    missing_surface: tuple[str, ...] = ()
    if task.surface:
        missing_surface = tuple(
            wanted
            for wanted in task.surface
            if not any(result_contains(s.result, wanted) for s in run.steps)
        )
        surfaced = not missing_surface

    weak: list[WeakFlag] = []
    reasons: list[str] = []
    if success == "fail":
        weak.append("failed")
        failing = [c.reason for c in gating_goal if c.status != "pass"] + [
            f"judged {j.criterion}: {j.reasoning}" for j in judged if j.status == "fail"
        ]
        reasons.append("task failed: " + "; ".join(failing))
    elif (
        success == "pass"
        and trajectory == 0.0
        and alignment is not None
        and not alignment.satisfied
    ):
        weak.append("poor_path")
        reasons.append("succeeded by a poor path: " + alignment.reason)
    if pairs:
        weak.append("redundant")
        reasons.append(
            f"redundant x{len(pairs)}: "
            + ", ".join(f"steps[{r}] repeats steps[{f}] {run.steps[r].tool}" for f, r in pairs[:5])
        )
    return RunGrade(
        run_id=run.run_id,
        task_id=run.task_id,
        epoch=run.epoch,
        success=success,
        success_score=success_score,
        tool_calls=tool_calls,
        trajectory=trajectory,
        path_score=alignment.score if alignment is not None else None,
        axes=axes,
        surfaced=surfaced,
        missing_surface=missing_surface,
        steps=len(run.steps),
        redundant=len(pairs),
        checks=tuple(checks),
        path=alignment,
        judged=tuple(judged),
        weak=tuple(weak),
        reason="; ".join(reasons) if reasons else "ok",
    )


def grade(
    runs: Iterable[RunRecord],
    suite: Suite,
    verdicts: Mapping[str, VerdictLike] | None = None,
    *,
    fast: bool = False,
    file: str | Path | None = None,
) -> Iterator[RunGrade]:
    """Grade ``runs`` against ``suite``, one :class:`RunGrade` per run, streamed in run order.

    ``verdicts`` maps ``item_id`` (``"{run_id}:{criterion_id}"``) to anything with ``.verdict`` and
    ``.reasoning``; ``fast=True`` skips judged criteria (reported ``not_run``). A run naming a task the
    suite lacks raises :class:`~pathjudge.errors.SuiteError` naming ``file`` and the run's line.
    No runs: no grades.
    """
    plans: dict[str, TaskPlan] = {}
    for number, run in enumerate(runs, 1):
        plan = plans.get(run.task_id)
        if plan is None:
            if suite.get(run.task_id) is None:
                line = _record_line(file, number) if file is not None else None
                suite.task(run.task_id, file=file, line=line)
            plan = plan_task(suite.task(run.task_id))
            plans[run.task_id] = plan
        yield grade_run(run, plan, verdicts=verdicts, fast=fast)


def _record_line(file: str | Path, number: int) -> int | None:
    """The 1-based line of the ``number``-th record (non-blank line) of a JSONL file (error path only)."""
    import gzip

    path = Path(file)
    try:
        with gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb") as handle:
            seen = 0
            for line_no, raw in enumerate(handle, 1):
                if raw.strip():
                    seen += 1
                    if seen == number:
                        return line_no
    except OSError:
        return None
    return None
