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

The checks are the ones declared in :data:`pathjudge.rubrics.checks.CHECKS`, run in order by
:func:`grade_run`, each guarded: a check that raises (even ``SystemExit`` or ``KeyboardInterrupt`` from
a user callable) gives one ``error`` result named after the check. A Ctrl-C still stops the grading
(see :mod:`pathjudge._interrupt`). An ``error`` is undecided: it is
counted in ``check_errors`` and listed as a check that broke, never a fail, never a score of 0, never
the weak flag "failed"; a success criterion that breaks leaves success ``undecided``. Nothing a check
does stops the stream.

Grading is a pure function of (runs, suite, verdicts): the same inputs give the same grades.
Everything that depends on the task alone is computed once per task
(:class:`~pathjudge.rubrics.checks.TaskPlan`), and the plans live in a per-suite
:class:`~pathjudge.rubrics.checks.SuitePlan` (the only cache, bounded and keyed by content).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeAlias, cast

from pathjudge._interrupt import stops_grading, watching_interrupts
from pathjudge._io import JsonlStream, line_of
from pathjudge.agent.trajectory import RunRecord
from pathjudge.rubrics.assertions.base import AXES, Axis, CheckResult, FrozenDict, errored
from pathjudge.rubrics.assertions.steps import redundant_in
from pathjudge.rubrics.checks import (
    RUN_GOAL,
    RUN_GUARDED,
    RUN_STEPS,
    Check,
    SuitePlan,
    TaskPlan,
    plan_task,
)
from pathjudge.rubrics.path import PathAlignment, align_view, best_alignment, result_contains
from pathjudge.rubrics.scope import matches_any, visible_calls
from pathjudge.rubrics.suite import Suite
from pathjudge.scoring.judged import JudgedStatus, VerdictLike, item_id, status_of
from pathjudge.scoring.scorecard import WeakFlag

__all__ = [
    "JudgedResult",
    "RunGrade",
    "SuccessStatus",
    "SuitePlan",
    "TaskPlan",
    "WeakFlag",
    "answer_excerpt",
    "grade",
    "grade_run",
    "plan_task",
]

SuccessStatus = Literal["pass", "fail", "undecided"]


@dataclass(frozen=True, slots=True)
class JudgedResult:
    """One judged criterion on one run (``reasoning``: the judge's, or why it did not run)."""

    criterion: str
    item_id: str
    status: JudgedStatus
    reasoning: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "criterion": self.criterion,
            "item_id": self.item_id,
            "status": self.status,
            "reasoning": self.reasoning,
        }


@dataclass(frozen=True, slots=True)
class RunGrade:
    """Everything graded about one run (plain, immutable data; :meth:`to_dict` gives the JSON form).

    - ``success``: task success, pass / fail / undecided; ``success_score``: the partial credit of
      the success criterion (0..1), None when undecided;
    - ``tool_calls``: tool-call correctness (0..1), None with no checks; ``trajectory``: 1.0 when the
      run matched a reference with no redundant call, None with no reference; ``path_score``: the best
      path score over the references, None with none; ``path``: that best alignment (the diff);
    - ``axes``: per-axis mean of the gating checks; ``surfaced``: whether every surface id came back
      (None when none is set), ``missing_surface`` those that did not;
    - ``steps``: number of tool calls; ``redundant``: number of redundant calls;
    - ``checks``: every check result, in declaration order; ``judged``: the judged criteria;
    - ``weak``: the weak-path flags; :attr:`reason`: why the run is weak (or "ok"), built when asked;
    - ``verdict``: the run's one verdict before the undecided policy (pass / fail / undecided),
      ``passed`` after it (None: undecided and excluded; see
      :class:`~pathjudge.rubrics.suite.PassedSpec`), ``blockers``: what kept it from passing (the
      failed checks, then ``undecided: <check>`` for those that could not decide).
    """

    run_id: str
    task_id: str
    epoch: int
    success: SuccessStatus
    success_score: float | None
    tool_calls: float | None
    trajectory: float | None
    path_score: int | None
    axes: Mapping[Axis, float | None]
    surfaced: bool | None
    missing_surface: tuple[str, ...]
    steps: int
    redundant: int
    checks: tuple[CheckResult, ...]
    path: PathAlignment | None
    judged: tuple[JudgedResult, ...]
    weak: tuple[WeakFlag, ...]
    why: tuple[tuple[str, ...], PathAlignment | None, tuple[tuple[int, int, str], ...]] = (
        (),
        None,
        (),
    )
    check_errors: int = 0
    stated_reason: str | None = None
    verdict: SuccessStatus = "undecided"
    passed: bool | None = None
    blockers: tuple[str, ...] = ()

    @property
    def reason(self) -> str:
        """Why the run is weak (or 'ok'); built on demand, since most runs never need the text
        (``stated_reason`` for a grade read back from JSON)."""
        if self.stated_reason is not None:
            return self.stated_reason
        failing, poor, repeats = self.why
        reasons: list[str] = []
        if "failed" in self.weak:
            reasons.append("task failed: " + "; ".join(failing))
        if poor is not None:
            reasons.append("succeeded by a poor path: " + poor.reason)
        if "wrong_call" in self.weak:
            wrong = [c.reason for c in self.checks if _wrong_call(c)]
            reasons.append("wrong tool calls: " + "; ".join(wrong))
        if self.redundant:
            reasons.append(
                f"redundant x{self.redundant}: "
                + ", ".join(f"call #{r + 1} repeats call #{f + 1} {tool}" for f, r, tool in repeats)
            )
        if "not_passed" in self.weak:
            text = "did not pass: " + ", ".join(self.blockers)
            if "path" in self.blockers and self.path is not None:
                text += f" ({self.path.reason})"
            wrong = [c.reason for c in self.checks if _wrong_call(c)]
            if wrong:  # say what the wrong call was, not only which check caught it
                text += "; wrong tool calls: " + "; ".join(wrong)
            reasons.append(text)
        return "; ".join(reasons) if reasons else "ok"

    @property
    def broken_checks(self) -> tuple[CheckResult, ...]:
        """The checks that broke (status ``error``)."""
        return tuple(c for c in self.checks if c.status == "error")

    def to_dict(self) -> dict[str, Any]:
        """The grade as plain JSON-ready data (one line of ``--grades``, one run of the JSON report)."""
        return {
            "run_id": self.run_id,
            "task_id": self.task_id,
            "epoch": self.epoch,
            "success": self.success,
            "success_score": self.success_score,
            "tool_calls": self.tool_calls,
            "trajectory": self.trajectory,
            "path_score": self.path_score,
            "axes": dict(self.axes),
            "surfaced": self.surfaced,
            "missing_surface": list(self.missing_surface),
            "steps": self.steps,
            "redundant": self.redundant,
            "checks": [c.to_dict() for c in self.checks],
            "path": self.path.to_dict() if self.path is not None else None,
            "judged": [j.to_dict() for j in self.judged],
            "weak": list(self.weak),
            "reason": self.reason,
            "verdict": self.verdict,
            "passed": self.passed,
            "blockers": list(self.blockers),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunGrade:
        """A grade read back from its :meth:`to_dict` form (e.g. a JSON report's runs); validated,
        raises ``pydantic.ValidationError``."""
        fields = dict(data)
        reason = fields.pop("reason", None)
        if isinstance(reason, str):
            fields["stated_reason"] = reason
        path = fields.get("path")
        if isinstance(path, Mapping):
            fields["path"] = PathAlignment.from_dict(path)
        grade: RunGrade = _grade_adapter().validate_python(fields)
        object.__setattr__(grade, "check_errors", len(grade.broken_checks))
        object.__setattr__(grade, "axes", _frozen_axes(grade.axes))
        return grade

    def to_json(self) -> bytes:
        """:meth:`to_dict` as compact UTF-8 JSON (no newline)."""
        from pydantic_core import to_json

        return to_json(self.to_dict())

    def model_dump_json(self) -> str:
        """:meth:`to_json` as text (the earlier Pydantic model's spelling)."""
        return self.to_json().decode("utf-8")


# The types ``cast`` names in the hot path, built once: a subscripted type written inside a function
# is built again at every call (``Mapping[Axis, ...]`` looks the ``Literal`` up in typing's cache;
# about 1,900 instructions of the 165,000 a run costs in ``bench_fast.py``, by callgrind).
_AxisValues: TypeAlias = Mapping[Axis, float | None]
_Results: TypeAlias = tuple[CheckResult, ...]


def _frozen_axes(axes: _AxisValues) -> _AxisValues:
    return cast(_AxisValues, FrozenDict(cast(Mapping[str, Any], axes)))


def _grade_adapter() -> Any:
    global _GRADE_ADAPTER
    if _GRADE_ADAPTER is None:
        from pydantic import TypeAdapter

        _GRADE_ADAPTER = TypeAdapter(RunGrade)
    return _GRADE_ADAPTER


_GRADE_ADAPTER: Any = None


_CALL_AXES = ("tool_selection", "argument_correctness")
_EXCERPT = 160


def _wrong_call(check: CheckResult) -> bool:
    """A gating tool-selection or argument check that failed: the run called the wrong tool or
    called one with wrong arguments (a write with the wrong order id, a forbidden tool)."""
    return check.gating and check.status == "fail" and check.axis in _CALL_AXES


def answer_excerpt(answer: str | None, limit: int = _EXCERPT) -> str:
    """What the agent answered, for a failure message: ``the agent answered: "60 requests..."``.

    Whitespace runs are folded to one space and an answer longer than ``limit`` characters is cut
    with "…"; no answer says so.
    """
    if answer is None or not answer.strip():
        return "the agent gave no final answer"
    text = " ".join(answer.split())
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return f'the agent answered: "{text}"'


def _run_check(check: Check, run: RunRecord, plan: TaskPlan) -> tuple[CheckResult, ...]:
    """Run one declared check, guarded: anything it raises (any ``BaseException``, ``SystemExit`` and
    ``KeyboardInterrupt`` included: a user callable must not stop the grading) or a result off the contract (not a tuple of
    results on the check's axis) gives one ``error`` result named after the check."""
    try:
        return _on_contract(check, check.run(run, plan))
    except BaseException as exc:
        if stops_grading(exc):
            raise
        return (errored(check.name, check.axis, exc, gating=check.gating),)


def _on_contract(check: Check, found: object) -> tuple[CheckResult, ...]:
    """``found`` when it keeps the check contract (a tuple of results on the check's axis); raises
    ``TypeError`` otherwise."""
    if type(found) is not tuple:
        raise TypeError(f"check {check.name} returned {type(found).__name__}, not a tuple")
    axis = check.axis
    for result in found:
        if type(result) is not CheckResult or result.axis != axis:
            raise TypeError(
                f"check {check.name} returned {result!r}, not a CheckResult on axis {axis}"
            )
    return cast(_Results, found)


def _guarded_alignment(
    run: RunRecord, plan: TaskPlan, repeats: Sequence[int]
) -> PathAlignment | CheckResult:
    try:
        steps = run.steps
        aligned = []
        for ref in plan.references:
            view = visible_calls(
                steps, scope=ref.scope, read_only=plan.read_only, errored=ref.errored_calls
            )
            marks: Sequence[int] = repeats
            if view is not None or plan.step_view_differs:
                # the repeats among the calls this reference sees, as positions in its view
                seen = steps if view is None else [steps[i] for i in view]
                marks = [repeat for _, repeat in redundant_in(seen)]
            aligned.append(
                align_view(
                    steps,
                    view,
                    ref.refs,
                    ref.mode,
                    name=ref.name,
                    budget=plan.budget,
                    costs=plan.task.costs,
                    redundant=marks,
                    cache=ref.cache,
                )
            )
        return aligned[0] if len(aligned) == 1 else best_alignment(aligned)
    except BaseException as exc:
        if stops_grading(exc):
            raise
        return errored("path", "step_efficiency", exc)


def _redundant_pairs(result: CheckResult) -> list[tuple[int, int]] | None:
    """The ``(first, repeat)`` pairs a ``steps.redundant`` result carries in its details, or None."""
    found = result.details.get("pairs")
    return [(int(p[0]), int(p[1])) for p in found] if isinstance(found, list) else None


def _surface(run: RunRecord, wanted: tuple[str, ...]) -> tuple[str, ...] | CheckResult:
    try:
        steps = run.steps
        return tuple(w for w in wanted if not any(result_contains(s.result, w) for s in steps))
    except BaseException as exc:
        if stops_grading(exc):
            raise
        return errored("surface", "goal_completion", exc, gating=False)


_AXIS_INDEX: dict[str, int] = {axis: i for i, axis in enumerate(AXES)}
_SELECTION = _AXIS_INDEX["tool_selection"]
_ARGUMENTS = _AXIS_INDEX["argument_correctness"]
assert (_SELECTION, _ARGUMENTS) == (0, 1)  # the tool-call axes come first: "index <= _ARGUMENTS"


def grade_run(
    run: RunRecord,
    plan: TaskPlan,
    *,
    verdicts: Mapping[str, VerdictLike] | None = None,
    fast: bool = False,
) -> RunGrade:
    """Grade one run against its task plan (see the module docstring).

    One pass over the checks' results gathers everything the grade needs: the per-axis sums, the
    goal results, what fails or leaves undecided the run's one verdict, whether a call was wrong, and
    the redundant pairs the path alignment charges.
    """
    task = plan.task
    steps = run.steps
    patterns = task.passed.checks
    everything = patterns == ("*",)
    checks: list[CheckResult] = []
    # per axis (in AXES order): the sum of the gating values and their count; a sum starts
    # at -0.0, which adds exactly as starting from the first value does (-0.0 + x is x, -0.0 included)
    sums = [-0.0, -0.0, -0.0, -0.0, -0.0]
    counts = [0, 0, 0, 0, 0]
    check_errors = 0  # the results with status error
    gating_goal: list[CheckResult] = []  # the gating results of the goal checks
    criterion: CheckResult | None = None  # the first result of the declared success criterion
    failed: list[str] = []  # the checks that fail the run's verdict, in check order
    broken: list[str] = []  # the checks that leave it undecided
    wrong_call = False
    pairs: list[tuple[int, int]] | None = None
    for function, check, index, kind in plan.runners:
        try:
            found = function(run, plan)
            if kind == RUN_GUARDED:
                found = _on_contract(check, found)
        except BaseException as exc:
            if stops_grading(exc):
                raise
            found = (errored(check.name, check.axis, exc, gating=check.gating),)
        if not found:
            continue
        checks += found
        if kind <= RUN_STEPS:
            # a built-in check off the goal axis: its results are on the contract, never named
            # "path" or "outcome.truncated"; the axis sum is kept in a local while they are added
            total = sums[index]
            n = 0
            for result in found:
                status = result.status
                if status == "pass":
                    if result.gating:
                        value = result.score
                        total += 1.0 if value is None else value
                        n += 1
                elif status == "fail":
                    if result.gating:
                        if everything or matches_any(result.check, patterns):
                            failed.append(result.check)
                        if index <= _ARGUMENTS:  # tool selection or arguments
                            wrong_call = True
                        value = result.score
                        total += 0.0 if value is None else value
                        n += 1
                elif status == "error":
                    check_errors += 1
                    if result.gating and (everything or matches_any(result.check, patterns)):
                        broken.append("undecided: " + result.check)
            sums[index] = total
            counts[index] += n
            if kind == RUN_STEPS and pairs is None:
                for result in found:
                    if result.check == "steps.redundant" and result.status != "error":
                        pairs = _redundant_pairs(result)
                        if pairs is not None:
                            break
            continue
        if kind == RUN_GOAL:
            # a built-in goal check: its results are on the contract (on the goal axis, never named
            # "path" or "steps.redundant"); they decide the success, counted below
            if criterion is None and check.name == "outcome":
                criterion = found[0]
            total = sums[index]
            n = 0
            for result in found:
                status = result.status
                if result.check == "outcome.truncated":
                    # a run cut short is never graded as complete, whatever the task checks
                    if status == "fail":
                        failed.append("outcome.truncated")
                    else:
                        broken.append("undecided: outcome.truncated")
                if result.gating:
                    gating_goal.append(result)
                    if status == "pass":
                        value = result.score
                        total += 1.0 if value is None else value
                        n += 1
                    elif status == "fail":
                        value = result.score
                        total += 0.0 if value is None else value
                        n += 1
                    elif status == "error":
                        check_errors += 1
                elif status == "error":
                    check_errors += 1
            sums[index] = total
            counts[index] += n
            continue
        is_goal = check.axis == "goal_completion"
        is_criterion = is_goal and criterion is None and check.name == "outcome"
        for result in found:
            name = result.check
            status = result.status
            gating = result.gating
            if is_goal:
                if is_criterion:
                    criterion = result
                    is_criterion = False
                if gating:
                    gating_goal.append(result)
            if name == "outcome.truncated":
                # a run cut short is never graded as complete, whatever the task checks
                if status == "fail":
                    failed.append(name)
                else:
                    broken.append("undecided: " + name)
            elif (
                gating
                and not is_goal
                and name != "path"
                and status != "pass"
                and status != "not_run"
                and (everything or matches_any(name, patterns))
            ):
                # the goal checks are the success, counted below; the path counts only when declared
                if status == "fail":
                    failed.append(name)
                else:
                    broken.append("undecided: " + name)
            if pairs is None and name == "steps.redundant" and status != "error":
                pairs = _redundant_pairs(result)
            if status == "error":
                check_errors += 1
                continue
            if not gating or (status != "pass" and status != "fail"):
                continue
            if status == "fail" and index <= _ARGUMENTS:  # tool selection or arguments
                wrong_call = True
            value = result.score
            if value is None:
                value = 1.0 if status == "pass" else 0.0
            sums[index] += value
            counts[index] += 1
    if pairs is None:
        pairs = []

    alignment: PathAlignment | None = None
    if plan.references:
        aligned = _guarded_alignment(run, plan, [repeat for _, repeat in pairs])
        if isinstance(aligned, CheckResult):
            checks.append(aligned)
            check_errors += 1
        else:
            alignment = aligned

    judged = _judged(run, plan, verdicts, fast) if task.judged else ()

    # task success: a fail decides; a check that broke leaves it undecided; then a pass decides
    judged_fail = False
    for j in judged:
        if j.status == "fail":
            judged_fail = True
            break
    goal_fail = goal_error = goal_pass = False
    for c in gating_goal:
        status = c.status
        if status == "fail":
            goal_fail = True
        elif status == "error":
            goal_error = True
        elif status == "pass":
            goal_pass = True
    success: SuccessStatus
    if judged_fail or goal_fail:
        success = "fail"
    elif goal_error:
        success = "undecided"
    elif goal_pass or (judged and all(j.status == "pass" for j in judged)):
        success = "pass"
    else:
        success = "undecided"
    success_score: float | None = None
    if success != "undecided":
        others_fail = judged_fail or (
            goal_fail and any(c.status == "fail" for c in gating_goal if c is not criterion)
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

    # frozen: a grade is immutable all the way down
    c0, c1, c2, c3, c4 = counts
    s0, s1, s2, s3, s4 = sums
    axes = cast(
        _AxisValues,
        FrozenDict(
            {
                "tool_selection": s0 / c0 if c0 else None,
                "argument_correctness": s1 / c1 if c1 else None,
                "step_efficiency": s2 / c2 if c2 else None,
                "error_recovery": s3 / c3 if c3 else None,
                "goal_completion": s4 / c4 if c4 else None,
            }
        ),
    )
    tool_calls: float | None = None
    if c0 or c1:
        tool_calls = ((s0 if c0 else 0.0) + (s1 if c1 else 0.0)) / (c0 + c1)
    trajectory: float | None = None
    if alignment is not None:
        trajectory = 1.0 if alignment.satisfied and not pairs else 0.0

    surfaced: bool | None = None
    missing_surface: tuple[str, ...] = ()
    if task.surface:
        found_surface = _surface(run, task.surface)
        if isinstance(found_surface, CheckResult):
            checks.append(found_surface)
            check_errors += 1
        else:
            missing_surface = found_surface
            surfaced = not missing_surface

    weak: tuple[WeakFlag, ...] = ()
    failing: tuple[str, ...] = ()
    poor: PathAlignment | None = None
    if success == "fail":
        weak = ("failed",)
        failing = (
            tuple(c.reason for c in gating_goal if c.status != "pass")
            + tuple(f"judged {j.criterion}: {j.reasoning}" for j in judged if j.status == "fail")
            + (answer_excerpt(run.final_answer),)
        )
    elif (
        success == "pass"
        and trajectory == 0.0
        and alignment is not None
        and not alignment.satisfied
    ):
        weak = ("poor_path",)
        poor = alignment
    outcome, passed, blockers = _verdict(plan, failed, broken, success, alignment)
    if passed is False and not weak:
        weak = ("not_passed",)  # failed its one verdict on a check, not on the task or the path
    if success != "fail" and "not_passed" not in weak and wrong_call:
        # a wrong call is weak whatever the answer: above all when success is undecided (a judged
        # criterion not run), where the run would otherwise read "ok"
        weak = (*weak, "wrong_call")
    repeats_of: tuple[tuple[int, int, str], ...] = ()
    if pairs:
        weak = (*weak, "redundant")
        repeats_of = tuple([(f, r, steps[r].tool) for f, r in pairs[:5]])
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
        steps=len(steps),
        redundant=len(pairs),
        checks=tuple(checks),
        path=alignment,
        judged=judged,
        weak=weak,
        why=(failing, poor, repeats_of),
        check_errors=check_errors,
        verdict=outcome,
        passed=passed,
        blockers=blockers,
    )


def _verdict(
    plan: TaskPlan,
    failed: list[str],
    broken: list[str],
    success: SuccessStatus,
    alignment: PathAlignment | None,
) -> tuple[SuccessStatus, bool | None, tuple[str, ...]]:
    """The run's one verdict (see :class:`~pathjudge.rubrics.suite.PassedSpec`): the verdict before
    the undecided policy, ``passed`` after it, and what blocked it (failed checks first).

    ``failed`` and ``broken``: the checks :func:`grade_run` found failing the verdict or leaving it
    undecided (the declared checks, and always a truncated run); the path and the success are added
    here. A run of a task that declares nothing to decide it (no success criterion, no counted path,
    no counted ``tools``, ``arguments``, ``steps`` or ``recovery`` block: only the default hygiene
    checks, which a run with no calls passes vacuously) and failed nothing is undecided ("nothing
    checked"), never a pass by default."""
    spec = plan.task.passed
    # left out, the path counts where it is all the task says about done (PassedSpec)
    path_counts = spec.path if spec.path is not None else not plan.success_defined
    if not (failed or broken or plan.success_defined or (path_counts and plan.references)):
        task = plan.task
        declared = (
            task.tools is not None
            or bool(task.arguments)
            or task.steps is not None
            or task.recovery is not None
        )
        if not declared or not spec.checks:
            broken.append("undecided: nothing checked")
    if path_counts and plan.references:
        if alignment is None:
            broken.append("undecided: path")  # the alignment broke
        elif not alignment.satisfied:
            failed.append("path")
    if plan.success_defined:
        if success == "fail":
            failed.append("success")
        elif success == "undecided":
            broken.append("undecided: success")
    verdict: SuccessStatus
    if failed:
        verdict = "fail"
    elif broken:
        verdict = "undecided"
    else:
        verdict = "pass"
    if verdict == "undecided":
        policy = spec.undecided
        passed = True if policy == "pass" else False if policy == "fail" else None
    else:
        passed = verdict == "pass"
    return verdict, passed, tuple(failed + broken)


def _judged(
    run: RunRecord,
    plan: TaskPlan,
    verdicts: Mapping[str, VerdictLike] | None,
    fast: bool,
) -> tuple[JudgedResult, ...]:
    specs = plan.task.judged
    if not specs:
        return ()
    out: list[JudgedResult] = []
    for spec in specs:
        key = item_id(run.run_id, spec.criterion)
        if fast:
            out.append(JudgedResult(spec.criterion, key, "not_run", "fast mode"))
            continue
        verdict = verdicts.get(key) if verdicts is not None else None
        reasoning = (
            verdict.reasoning
            if verdict is not None
            else ("no verdict for this item" if verdicts is not None else "no judge configured")
        )
        out.append(JudgedResult(spec.criterion, key, status_of(verdict), reasoning))
    return tuple(out)


def grade(
    runs: Iterable[RunRecord],
    suite: Suite | SuitePlan,
    verdicts: Mapping[str, VerdictLike] | None = None,
    *,
    fast: bool = False,
    file: str | Path | None = None,
) -> Iterator[RunGrade]:
    """Grade ``runs`` against ``suite``, one :class:`RunGrade` per run, streamed in run order.

    ``verdicts`` maps ``item_id`` (``"{run_id}:{criterion_id}"``) to anything with ``.verdict`` and
    ``.reasoning``; ``fast=True`` skips judged criteria (reported ``not_run``). ``suite`` may be a
    :class:`~pathjudge.rubrics.checks.SuitePlan` (its task plans and caches are reused, its checks
    used). A run naming a task the suite lacks raises :class:`~pathjudge.errors.SuiteError` naming
    ``file``, and the run's line when ``runs`` is a :class:`~pathjudge._io.JsonlStream` (as
    :func:`~pathjudge.agent.io.read_runs` returns). No runs: no grades.
    """

    if file is None and isinstance(runs, JsonlStream):
        file = runs.path
    plans = suite if isinstance(suite, SuitePlan) else SuitePlan(suite)
    with watching_interrupts():
        for run in runs:
            if run.task_id not in plans:
                plans.plan(run.task_id, file=file, line=line_of(runs))  # raises: unknown task
            yield grade_run(run, plans.plan(run.task_id), verdicts=verdicts, fast=fast)
