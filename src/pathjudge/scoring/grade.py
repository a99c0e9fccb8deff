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

Grading is a pure function of (runs, suite, verdicts): the same inputs give the same grades. For speed,
everything that depends on the task alone is computed once per task (:class:`TaskPlan`: compiled
references, the recovery checks of an error-free run, the implied refusal criterion); the
tool-selection checks are memoised per task on the (tool, turn) sequence, which is all they read, and
the success criteria on the final answer, which is all they read unless a user callable is involved
(then never). Each memo stops growing at 4096 entries; answers over 2000 characters are not kept.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics.assertions._regex import PatternTimeout
from pathjudge.rubrics.assertions.arguments import CallExpectation, match_call
from pathjudge.rubrics.assertions.base import AXES, Axis, CheckResult
from pathjudge.rubrics.assertions.outcome import (
    AllOfCriterion,
    CallableCriterion,
    RefusalCriterion,
    SuccessCriterion,
    check_outcome,
)
from pathjudge.rubrics.assertions.overlap import check_query_overlap
from pathjudge.rubrics.assertions.recovery import RecoverySpec, check_recovery
from pathjudge.rubrics.assertions.steps import (
    StepSpec,
    call_keys,
    redundant_calls,
    step_checks,
)
from pathjudge.rubrics.assertions.tools import check_tool_selection
from pathjudge.rubrics.path import (
    AlignmentData,
    Mode,
    PathAlignment,
    RefSpec,
    StepMatch,
    align_data,
    best_data,
    compile_reference,
    literal_arguments,
    result_contains,
)
from pathjudge.rubrics.suite import Suite, Task
from pathjudge.scoring.judged import JudgedStatus, VerdictLike, item_id, status_of

__all__ = [
    "JudgedResult",
    "LeanGrade",
    "RunGrade",
    "SuccessStatus",
    "TaskPlan",
    "WeakFlag",
    "grade",
    "grade_lean",
    "grade_run",
    "grade_run_lean",
    "plan_task",
    "score_file_parallel",
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
class LeanGrade:
    """A run's grade as plain data (the streaming hot path); :meth:`to_model` gives the :class:`RunGrade`."""

    run_id: str
    task_id: str
    epoch: int
    success: SuccessStatus
    success_score: float | None
    tool_calls: float | None
    trajectory: float | None
    path_score: int | None
    axes: dict[Axis, float | None]
    surfaced: bool | None
    missing_surface: tuple[str, ...]
    steps: int
    redundant: int
    checks: tuple[CheckResult, ...]
    path: AlignmentData | None
    judged: tuple[JudgedResult, ...]
    weak: tuple[WeakFlag, ...]
    why: tuple[tuple[str, ...], AlignmentData | None, tuple[tuple[int, int, str], ...]]
    check_errors: int

    @property
    def reason(self) -> str:
        """Why the run is weak (or 'ok'); built on demand, since most runs never need the text."""
        failing, poor, repeats = self.why
        reasons: list[str] = []
        if "failed" in self.weak:
            reasons.append("task failed: " + "; ".join(failing))
        if poor is not None:
            reasons.append("succeeded by a poor path: " + poor.reason)
        if self.redundant:
            reasons.append(
                f"redundant x{self.redundant}: "
                + ", ".join(f"steps[{r}] repeats steps[{f}] {tool}" for f, r, tool in repeats)
            )
        return "; ".join(reasons) if reasons else "ok"

    def to_model(self) -> RunGrade:
        return RunGrade(
            run_id=self.run_id,
            task_id=self.task_id,
            epoch=self.epoch,
            success=self.success,
            success_score=self.success_score,
            tool_calls=self.tool_calls,
            trajectory=self.trajectory,
            path_score=self.path_score,
            axes=self.axes,
            surfaced=self.surfaced,
            missing_surface=self.missing_surface,
            steps=self.steps,
            redundant=self.redundant,
            checks=self.checks,
            path=self.path.to_model() if self.path is not None else None,
            judged=self.judged,
            weak=self.weak,
            reason=self.reason,
        )


_Fold = tuple[float | None, int, int]
"""A run of checks summed up: (sum of the gating pass/fail values in order, their count, errors)."""


def _fold(checks: Iterable[CheckResult], axis: Axis) -> _Fold:
    """Sum the gating checks' values (a score, else 1 for pass and 0 for fail) in order, count them,
    and count the checks whose status is ``error``. The sum starts from the first value, never 0.0.

    All the checks must be on ``axis`` (each check module files its checks under one axis): then the
    fold is that axis's sum, added in check order. Raises ``ValueError`` otherwise.
    """
    total: float | None = None
    count = 0
    errors = 0
    for check in checks:
        if check.axis != axis:
            raise ValueError(f"check {check.check} is on axis {check.axis}, expected {axis}")
        status = check.status
        if status == "error":
            errors += 1
        if not check.gating or (status != "pass" and status != "fail"):
            continue
        value = check.score
        if value is None:
            value = 1.0 if status == "pass" else 0.0
        total = value if total is None else total + value
        count += 1
    return total, count, errors


@dataclass(frozen=True, slots=True)
class TaskPlan:
    """Everything about a task that does not depend on the run, computed once per task."""

    task: Task
    references: tuple[tuple[str, Mode, tuple[RefSpec, ...]], ...]
    step_spec: StepSpec
    recovery_spec: RecoverySpec
    arguments: Mapping[str, CallExpectation]
    budget: int | None
    quick_tools: tuple[str, ...]
    quick_literals: tuple[dict[str, JsonValue] | None, ...]
    quick_matchers: tuple[Callable[[Step], StepMatch], ...]
    recovery_clean: tuple[CheckResult, ...]
    tools_memo: dict[tuple[tuple[str, int], ...], tuple[tuple[CheckResult, ...], _Fold]]
    implied_goal: RefusalCriterion | None
    goal_memo: dict[str | None, tuple[tuple[CheckResult, ...], _Fold]] | None
    recovery_clean_fold: _Fold

    def quick(self, run: RunRecord) -> tuple[bool, bool, int, bool]:
        """The four basic checks at tuple cost, for CI gates and benchmarks.

        ``(tools_in_order, arguments_exact, redundant_count, within_budget)``: the run's tool names equal
        the first reference's in order; and every call also matches its step's arguments; the number of
        redundant calls (see :func:`~pathjudge.rubrics.assertions.steps.redundant_calls`); and the call
        count is within the step budget (always True without a budget). A task without references
        reports ``tools_in_order`` and ``arguments_exact`` as True when the run made no call.
        """
        steps = run.steps
        names = tuple(step.tool for step in steps)
        in_order = names == self.quick_tools
        exact = in_order
        if exact:
            for step, literal, matcher in zip(
                steps, self.quick_literals, self.quick_matchers, strict=True
            ):
                if literal is not None:
                    if step.arguments != literal:
                        exact = False
                        break
                elif not matcher(step).ok:
                    exact = False
                    break
        keys = call_keys(steps)
        if keys is None:
            redundant = 0
        elif not any(step.is_error for step in steps):
            redundant = len(keys) - len(set(keys))
        else:
            redundant = len(redundant_calls(run))
        within = self.budget is None or len(steps) <= self.budget
        return in_order, exact, redundant, within


def plan_task(task: Task) -> TaskPlan:
    """Compile a task's references and defaults once, for grading many runs of it."""
    step_spec = task.steps or StepSpec()
    first = task.references[0].steps if task.references else ()
    recovery = task.recovery or RecoverySpec()
    recovery_clean = tuple(check_recovery(RunRecord(run_id="-", task_id=task.id), recovery))
    implied: RefusalCriterion | None = None
    if task.success is None and task.kind is not None:
        # factual: an answer that refuses fails; out_of_scope: only a refusal passes
        implied = RefusalCriterion(expect="answer" if task.kind == "factual" else "refuse")
    references = tuple(
        (ref.name or f"reference {i + 1}", ref.mode, compile_reference(ref))
        for i, ref in enumerate(task.references)
    )
    return TaskPlan(
        task=task,
        references=references,
        step_spec=step_spec,
        recovery_spec=recovery,
        # the recovery checks of a run without tool errors depend on the spec alone: computed once
        recovery_clean=recovery_clean,
        recovery_clean_fold=_fold(recovery_clean, "error_recovery"),
        tools_memo={},
        implied_goal=implied,
        # the answer criteria read the final answer alone: their results are memoised on it
        goal_memo={} if task.success is None or _answer_only(task.success) else None,
        arguments={exp.tool: exp for exp in task.arguments},
        budget=step_spec.budget,
        quick_tools=tuple(step.tool for step in first),
        quick_literals=tuple(
            None if step.result_contains else literal_arguments(step) for step in first
        ),
        quick_matchers=tuple(ref.matcher for ref in references[0][2]) if first else (),
    )


_MEMO_LIMIT = 4096
_MEMO_ANSWER_CHARS = 2000  # longer final answers are graded afresh, to keep the memo small


def _answer_only(criterion: SuccessCriterion) -> bool:
    """Whether the criterion's result depends on the run's final answer alone (no user callable)."""
    if isinstance(criterion, CallableCriterion):
        return False
    if isinstance(criterion, AllOfCriterion):
        return all(_answer_only(part.criterion) for part in criterion.parts)
    return True


def _goal_checks(run: RunRecord, plan: TaskPlan) -> tuple[tuple[CheckResult, ...], _Fold]:
    """The task's success criterion, then the refusal rule its kind implies, and their fold
    (memoised on the answer)."""
    memo = plan.goal_memo
    answer = run.final_answer
    if memo is not None:
        found = memo.get(answer)
        if found is not None:
            return found
    task = plan.task
    goal: tuple[CheckResult, ...] = ()
    if task.success is not None:
        goal = (check_outcome(run, task.success),)
    if plan.implied_goal is not None:
        goal = (*goal, check_outcome(run, plan.implied_goal))
    result = (goal, _fold(goal, "goal_completion"))
    if (
        memo is not None
        and len(memo) < _MEMO_LIMIT
        and (answer is None or len(answer) <= _MEMO_ANSWER_CHARS)
    ):
        memo[answer] = result
    return result


@functools.lru_cache(maxsize=256)
def _all_valid(n: int) -> CheckResult:
    return CheckResult(
        check="arguments.valid_json",
        axis="argument_correctness",
        status="pass",
        score=1.0,
        reason=f"all {n} calls had valid JSON arguments",
        details={"malformed": []},
    )


def _arguments_checks(run: RunRecord, plan: TaskPlan) -> list[CheckResult]:
    out: list[CheckResult] = []
    n = len(run.steps)
    bad: list[int] = []
    for i, step in enumerate(run.steps):
        if step.arguments_error is not None:
            bad.append(i)
    if n and not bad:
        out.append(_all_valid(n))
    elif n:
        out.append(
            CheckResult(
                check="arguments.valid_json",
                axis="argument_correctness",
                status="fail",
                score=(n - len(bad)) / n,
                reason=f"{len(bad)} of {n} calls had arguments that were not valid JSON: "
                + ", ".join(f"steps[{i}] {run.steps[i].tool}" for i in bad),
                details={"malformed": list(bad)},
            )
        )
    if plan.arguments:
        total = 0
        failures: list[str] = []
        broke: str | None = None
        for index, step in enumerate(run.steps):
            expected = plan.arguments.get(step.tool)
            if expected is None or step.arguments_error is not None:
                continue
            total += 1
            try:
                found = match_call(step.tool, step.arguments, expected)
            except PatternTimeout as exc:  # a catastrophic $regex: undecided, never a fail
                broke = f"steps[{index}] {step.tool}: {exc}"
                break
            if not found.ok:
                failures.append(
                    f"steps[{index}] {step.tool}: "
                    + "; ".join(m.render() for m in found.mismatches[:3])
                )
        tools = ", ".join(sorted(plan.arguments))
        if broke is not None:
            out.append(
                CheckResult(
                    check="arguments.match",
                    axis="argument_correctness",
                    status="error",
                    reason=broke,
                )
            )
        elif total == 0:
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


def grade_run(
    run: RunRecord,
    plan: TaskPlan,
    *,
    verdicts: Mapping[str, VerdictLike] | None = None,
    fast: bool = False,
) -> RunGrade:
    """Grade one run against its task plan (see the module docstring)."""
    return grade_run_lean(run, plan, verdicts=verdicts, fast=fast).to_model()


def grade_run_lean(
    run: RunRecord,
    plan: TaskPlan,
    *,
    verdicts: Mapping[str, VerdictLike] | None = None,
    fast: bool = False,
) -> LeanGrade:
    """:func:`grade_run` as plain data; the Pydantic :class:`RunGrade` is built only when asked for."""
    task = plan.task
    steps = run.steps
    checks: list[CheckResult] = []
    # Each axis's checks come from one step below, in order, so each step's fold is that axis's sum.
    selection_fold = _NO_CHECKS
    if task.tools is not None:
        # tool selection reads only the (tool, turn) sequence: memoised per task on exactly that key
        shape = tuple([(step.tool, step.turn) for step in steps])
        selected = plan.tools_memo.get(shape)
        if selected is None:
            found = tuple(check_tool_selection(run, task.tools))
            selected = (found, _fold(found, "tool_selection"))
            if len(plan.tools_memo) < _MEMO_LIMIT:
                plan.tools_memo[shape] = selected
        checks.extend(selected[0])
        selection_fold = selected[1]
    argument_checks = _arguments_checks(run, plan)
    if task.query_overlap is not None:
        argument_checks.append(
            check_query_overlap(
                run,
                argument=task.query_overlap.argument,
                question=task.input_text if task.input is not None else None,
                tools=task.query_overlap.tools or None,
            )
        )
    checks.extend(argument_checks)
    argument_fold = _fold(argument_checks, "argument_correctness")
    efficiency, pairs = step_checks(run, plan.step_spec)
    checks.extend(efficiency)
    efficiency_fold = _fold(efficiency, "step_efficiency")
    errored = False
    for step in steps:
        if step.is_error:
            errored = True
            break
    if errored:
        recovery = check_recovery(run, plan.recovery_spec)
        checks.extend(recovery)
        recovery_fold = _fold(recovery, "error_recovery")
    else:
        checks.extend(plan.recovery_clean)
        recovery_fold = plan.recovery_clean_fold
    goal, goal_fold = _goal_checks(run, plan)
    checks.extend(goal)

    alignment: AlignmentData | None = None
    if plan.references:
        repeats = [repeat for _, repeat in pairs]
        aligned = [
            align_data(
                steps,
                refs,
                mode,
                name=name,
                budget=plan.budget,
                costs=task.costs,
                redundant=repeats,
            )
            for name, mode, refs in plan.references
        ]
        alignment = aligned[0] if len(aligned) == 1 else best_data(aligned)

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
    judged_fail = any(j.status == "fail" for j in judged) if judged else False
    success: SuccessStatus
    if judged_fail or any(c.status != "pass" for c in decided_goal):
        success = "fail"
    elif decided_goal or (judged and all(j.status == "pass" for j in judged)):
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

    # levels and axes, from the folds
    folds = (selection_fold, argument_fold, efficiency_fold, recovery_fold, goal_fold)
    axes: dict[Axis, float | None] = dict(
        zip(AXES, [_mean_of(fold) for fold in folds], strict=True)  # AXES is in this order
    )
    check_errors = (
        selection_fold[2] + argument_fold[2] + efficiency_fold[2] + recovery_fold[2] + goal_fold[2]
    )
    counted = selection_fold[1] + argument_fold[1]
    tool_calls: float | None = None
    if counted:
        selected_total = selection_fold[0] if selection_fold[0] is not None else 0.0
        argument_total = argument_fold[0] if argument_fold[0] is not None else 0.0
        tool_calls = (selected_total + argument_total) / counted
    trajectory: float | None = None
    if alignment is not None:
        trajectory = 1.0 if alignment.satisfied and not pairs else 0.0

    surfaced: bool | None = None
    missing_surface: tuple[str, ...] = ()
    if task.surface:
        missing_surface = tuple(
            wanted
            for wanted in task.surface
            if not any(result_contains(s.result, wanted) for s in steps)
        )
        surfaced = not missing_surface

    weak: tuple[WeakFlag, ...] = ()
    failing: tuple[str, ...] = ()
    poor: AlignmentData | None = None
    if success == "fail":
        weak = ("failed",)
        failing = tuple(c.reason for c in gating_goal if c.status != "pass") + tuple(
            f"judged {j.criterion}: {j.reasoning}" for j in judged if j.status == "fail"
        )
    elif (
        success == "pass"
        and trajectory == 0.0
        and alignment is not None
        and not alignment.satisfied
    ):
        weak = ("poor_path",)
        poor = alignment
    repeats_of: tuple[tuple[int, int, str], ...] = ()
    if pairs:
        weak = (*weak, "redundant")
        repeats_of = tuple([(f, r, steps[r].tool) for f, r in pairs[:5]])
    return LeanGrade(
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
        steps=len(steps),
        redundant=len(pairs),
        checks=tuple(checks),
        path=alignment,
        judged=tuple(judged),
        weak=weak,
        why=(failing, poor, repeats_of),
        check_errors=check_errors,
    )


_NO_CHECKS: _Fold = (None, 0, 0)


def _mean_of(fold: _Fold) -> float | None:
    total, count, _ = fold
    return total / count if total is not None else None


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
    for lean in grade_lean(runs, suite, verdicts, fast=fast, file=file):
        yield lean.to_model()


def grade_lean(
    runs: Iterable[RunRecord],
    suite: Suite,
    verdicts: Mapping[str, VerdictLike] | None = None,
    *,
    fast: bool = False,
    file: str | Path | None = None,
) -> Iterator[LeanGrade]:
    """:func:`grade` yielding :class:`LeanGrade` (plain data) for streaming consumers such as the scorecard."""
    plans: dict[str, TaskPlan] = {}
    for number, run in enumerate(runs, 1):
        plan = plans.get(run.task_id)
        if plan is None:
            if suite.get(run.task_id) is None:
                line = _record_line(file, number) if file is not None else None
                suite.task(run.task_id, file=file, line=line)
            plan = plan_task(suite.task(run.task_id))
            plans[run.task_id] = plan
        yield grade_run_lean(run, plan, verdicts=verdicts, fast=fast)


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


# --------------------------------------------------------------------------------------------------
# Grading a runs file, optionally in parallel worker processes

_WORKER: tuple[Suite, Mapping[str, VerdictLike] | None, bool, str] | None = None


def _line_starts(path: Path, parts: int) -> list[int]:
    """Byte offsets that split ``path`` into about ``parts`` chunks, each starting at a line start."""
    size = path.stat().st_size
    offsets = [0]
    with path.open("rb") as handle:
        for k in range(1, parts):
            handle.seek(max(offsets[-1], size * k // parts))
            handle.readline()
            position = handle.tell()
            if position < size and position > offsets[-1]:
                offsets.append(position)
    offsets.append(size)
    return offsets


def _grade_range(start: int, end: int) -> tuple[object, int]:
    """Worker: grade the runs in bytes ``[start, end)`` into a scorecard builder (sent back pickled)."""
    from pathjudge.agent.io import line_problem, record_error_from_validation
    from pathjudge.errors import RecordError
    from pathjudge.scoring.scorecard import ScorecardBuilder

    assert _WORKER is not None
    suite, verdicts, fast, file = _WORKER
    builder = ScorecardBuilder(suite)
    plans: dict[str, TaskPlan] = {}
    validate = RunRecord.model_validate_json
    count = 0
    with open(file, "rb") as handle:
        handle.seek(start)
        local = 0
        position = start
        while position < end:
            raw = handle.readline()
            if not raw:
                break
            position += len(raw)
            local += 1
            if not raw.strip():
                continue
            try:
                run = validate(raw)
            except ValidationError as exc:
                raise record_error_from_validation(
                    exc, file=file, line=_line_at(file, start) + local, what="run"
                ) from None
            except UnicodeDecodeError:
                raise RecordError(
                    "not valid UTF-8", file=file, line=_line_at(file, start) + local
                ) from None
            problem = line_problem(raw, file=file, line=None)
            if problem is not None:  # the same rules as one process (NaN, 1e400, bad UTF-8)
                problem.line = _line_at(file, start) + local
                raise problem
            count += 1
            plan = plans.get(run.task_id)
            if plan is None:
                if suite.get(run.task_id) is None:
                    suite.task(run.task_id, file=file, line=_line_at(file, start) + local)
                plan = plans[run.task_id] = plan_task(suite.task(run.task_id))
            builder.add(grade_run_lean(run, plan, verdicts=verdicts, fast=fast))
    return builder, count


def _line_at(file: str, offset: int) -> int:
    """How many lines come before byte ``offset`` (error path only)."""
    with open(file, "rb") as handle:
        return handle.read(offset).count(b"\n")


def score_file_parallel(
    path: str | Path,
    suite: Suite,
    verdicts: Mapping[str, VerdictLike] | None = None,
    *,
    fast: bool = False,
    jobs: int = 2,
    builder: Any = None,
) -> Any:
    """Grade a (plain, not gzipped) runs JSONL in ``jobs`` worker processes into one scorecard builder.

    The file is split at line starts into ``jobs`` byte ranges; each worker validates and grades its
    range; the builders merge in file order, so the scorecard equals the one-process scorecard. Errors
    name the file and line as in one process. Uses the ``fork`` start method (POSIX).
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from itertools import pairwise

    from pathjudge.errors import RecordError
    from pathjudge.scoring.scorecard import ScorecardBuilder

    global _WORKER
    target = Path(path)
    if not target.is_file():
        raise RecordError("file not found", file=target, hint="check the path")
    offsets = _line_starts(target, max(1, jobs))
    _WORKER = (suite, verdicts, fast, str(target))
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=len(offsets) - 1, mp_context=context) as pool:
            futures = [pool.submit(_grade_range, a, b) for a, b in pairwise(offsets)]
            results = [future.result() for future in futures]
    finally:
        _WORKER = None
    out = builder if builder is not None else ScorecardBuilder(suite)
    total = 0
    for part, count in results:
        assert isinstance(part, ScorecardBuilder)
        out.merge(part)
        total += count
    if total == 0:
        raise RecordError(
            "has no run records",
            file=target,
            hint="the file is empty; pass a JSONL file with one record per line",
        )
    return out
