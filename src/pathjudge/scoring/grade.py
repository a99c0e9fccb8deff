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
from typing import Any, Literal, TypeVar, cast

from pathjudge._interrupt import stops_grading, watching_interrupts
from pathjudge._io import JsonlStream, line_of
from pathjudge.agent.trajectory import RunRecord
from pathjudge.rubrics.assertions.base import AXES, Axis, CheckResult, FrozenDict, errored
from pathjudge.rubrics.assertions.steps import redundant_in
from pathjudge.rubrics.checks import (
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


def _frozen_axes(axes: Mapping[Axis, float | None]) -> Mapping[Axis, float | None]:
    return cast(Mapping[Axis, float | None], FrozenDict(cast(Mapping[str, Any], axes)))


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


def _run_check(
    check: Check, run: RunRecord, plan: TaskPlan, *, trusted: bool
) -> tuple[CheckResult, ...]:
    """Run one declared check, guarded: anything it raises (any ``BaseException``, ``SystemExit`` and
    ``KeyboardInterrupt`` included: a user callable must not stop the grading) or a result off the
    contract (not a tuple of results on the check's axis) gives one ``error`` result named after the
    check. A ``trusted`` check (a built-in one: a test pins that its results keep the contract) is
    not checked against it on every run."""
    try:
        found = check.run(run, plan)
        return found if trusted else _on_contract(check, found)
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
    return cast(tuple[CheckResult, ...], found)


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
_T = TypeVar("_T")


class _Tally:
    """What one pass over a run's check results gathers for its grade.

    ``sums`` and ``counts``: per axis (in :data:`AXES` order), the sum of the gating results' values
    (a check without a score counts 1 for pass, 0 for fail) and how many there are; a sum starts at
    -0.0, which adds exactly as starting from the first value does. ``gating_goal``: the gating results
    on the goal axis (they decide the success); ``criterion``: the first result of the declared success
    criterion; ``failed`` / ``broken``: the checks that fail the run's one verdict or leave it
    undecided, in check order; ``wrong_call``: a gating tool-selection or argument result failed;
    ``pairs``: the redundant ``(first, repeat)`` pairs of the first ``steps.redundant`` result.
    """

    __slots__ = (
        "broken",
        "checks",
        "counted",
        "counts",
        "criterion",
        "errors",
        "failed",
        "gating_goal",
        "pairs",
        "sums",
        "wrong_call",
    )

    def __init__(self, counted: tuple[str, ...]) -> None:
        self.counted = counted  # the patterns of the checks the verdict counts
        self.checks: list[CheckResult] = []
        self.sums = [-0.0] * len(AXES)
        self.counts = [0] * len(AXES)
        self.errors = 0
        self.gating_goal: list[CheckResult] = []
        self.criterion: CheckResult | None = None
        self.failed: list[str] = []
        self.broken: list[str] = []
        self.wrong_call = False
        self.pairs: list[tuple[int, int]] | None = None

    def add(
        self, check: Check, found: tuple[CheckResult, ...], index: int, *, redundant_pairs: bool
    ) -> None:
        """Take in the (not empty) results of one declared check, on the axis of ``index`` in
        :data:`AXES`; ``redundant_pairs``: whether they may hold a ``steps.redundant`` result."""
        self.checks += found
        on_goal = check.axis == "goal_completion"
        if on_goal and self.criterion is None and check.name == "outcome":
            self.criterion = found[0]
        sums, counts = self.sums, self.counts
        for result in found:
            name, status, gating = result.check, result.status, result.gating
            if on_goal and gating:
                self.gating_goal.append(result)
            if name == "outcome.truncated":
                # a run cut short is never graded as complete, whatever the task checks
                self._blocks(name, status)
            elif gating and not on_goal and status in ("fail", "error") and self._counts(name):
                # the goal checks are the success (see _verdict); the path counts only when declared
                self._blocks(name, status)
            if (
                redundant_pairs
                and self.pairs is None
                and name == "steps.redundant"
                and status != "error"
            ):
                self.pairs = _redundant_pairs(result)
            if status == "error":
                self.errors += 1
            elif gating and status in ("pass", "fail"):
                if status == "fail" and index in (_SELECTION, _ARGUMENTS):
                    self.wrong_call = True
                value = result.score
                if value is None:
                    value = 1.0 if status == "pass" else 0.0
                sums[index] += value
                counts[index] += 1

    def _counts(self, name: str) -> bool:
        """Whether the run's verdict counts the check ``name`` (never the path: see _verdict)."""
        return name != "path" and (self.counted == ("*",) or matches_any(name, self.counted))

    def _blocks(self, name: str, status: str) -> None:
        if status == "fail":
            self.failed.append(name)
        else:
            self.broken.append("undecided: " + name)

    def unless_broken(self, found: _T | CheckResult) -> _T | None:
        """``found``, or None when it is the ``error`` result of a step that broke (then kept)."""
        if isinstance(found, CheckResult):
            self.checks.append(found)
            self.errors += 1
            return None
        return found

    def axes(self) -> Mapping[Axis, float | None]:
        """The five axis means (None for an axis with no gating result), frozen."""
        means = {
            axis: total / n if n else None
            for axis, total, n in zip(AXES, self.sums, self.counts, strict=True)
        }
        return _frozen_axes(means)

    def tool_calls(self) -> float | None:
        """The mean of the gating tool-selection and argument values, None without any."""
        n = self.counts[_SELECTION] + self.counts[_ARGUMENTS]
        if not n:
            return None
        selection = self.sums[_SELECTION] if self.counts[_SELECTION] else 0.0
        arguments = self.sums[_ARGUMENTS] if self.counts[_ARGUMENTS] else 0.0
        return (selection + arguments) / n


def grade_run(
    run: RunRecord,
    plan: TaskPlan,
    *,
    verdicts: Mapping[str, VerdictLike] | None = None,
    fast: bool = False,
) -> RunGrade:
    """Grade one run against its task plan (see the module docstring)."""
    task = plan.task
    tally = _Tally(task.passed.checks)
    for _, check, index, kind in plan.runners:
        results = _run_check(check, run, plan, trusted=kind != RUN_GUARDED)
        if results:
            tally.add(check, results, index, redundant_pairs=kind in (RUN_STEPS, RUN_GUARDED))
    pairs = tally.pairs or []
    alignment: PathAlignment | None = None
    if plan.references:
        alignment = tally.unless_broken(
            _guarded_alignment(run, plan, [repeat for _, repeat in pairs])
        )
    judged = _judged(run, plan, verdicts, fast) if task.judged else ()
    success = _success(tally.gating_goal, judged)
    trajectory: float | None = None
    if alignment is not None:
        trajectory = 1.0 if alignment.satisfied and not pairs else 0.0
    surfaced: bool | None = None
    missing_surface: tuple[str, ...] = ()
    if task.surface:
        found = tally.unless_broken(_surface(run, task.surface))
        if found is not None:
            missing_surface, surfaced = found, not found
    outcome, passed, blockers = _verdict(plan, tally.failed, tally.broken, success, alignment)
    weak, why = _weakness(run, success, judged, tally, alignment, passed, pairs)
    return RunGrade(
        run_id=run.run_id,
        task_id=run.task_id,
        epoch=run.epoch,
        success=success,
        success_score=_success_score(success, tally, judged),
        tool_calls=tally.tool_calls(),
        trajectory=trajectory,
        path_score=alignment.score if alignment is not None else None,
        axes=tally.axes(),
        surfaced=surfaced,
        missing_surface=missing_surface,
        steps=len(run.steps),
        redundant=len(pairs),
        checks=tuple(tally.checks),
        path=alignment,
        judged=judged,
        weak=weak,
        why=why,
        check_errors=tally.errors,
        verdict=outcome,
        passed=passed,
        blockers=blockers,
    )


def _success(gating_goal: Sequence[CheckResult], judged: Sequence[JudgedResult]) -> SuccessStatus:
    """Task success: a fail decides; a check that broke leaves it undecided; then a pass decides."""
    statuses = {c.status for c in gating_goal}
    if "fail" in statuses or any(j.status == "fail" for j in judged):
        return "fail"
    if "error" in statuses:
        return "undecided"
    if "pass" in statuses:
        return "pass"
    if judged and all(j.status == "pass" for j in judged):
        return "pass"
    return "undecided"


def _success_score(
    success: SuccessStatus, tally: _Tally, judged: Sequence[JudgedResult]
) -> float | None:
    """0 when another check than the criterion failed, else the criterion's partial credit, else
    1 or 0; None when the success is undecided."""
    if success == "undecided":
        return None
    criterion = tally.criterion
    others_fail = any(j.status == "fail" for j in judged) or any(
        c.status == "fail" for c in tally.gating_goal if c is not criterion
    )
    if others_fail:
        return 0.0
    if (
        criterion is not None
        and criterion.status in ("pass", "fail")
        and criterion.score is not None
    ):
        return criterion.score  # partial credit of a multi-part criterion
    return 1.0 if success == "pass" else 0.0


def _weakness(
    run: RunRecord,
    success: SuccessStatus,
    judged: Sequence[JudgedResult],
    tally: _Tally,
    alignment: PathAlignment | None,
    passed: bool | None,
    pairs: list[tuple[int, int]],
) -> tuple[
    tuple[WeakFlag, ...],
    tuple[tuple[str, ...], PathAlignment | None, tuple[tuple[int, int, str], ...]],
]:
    """The run's weak flags and why: what failed it, the poor path, the first repeated calls."""
    weak: tuple[WeakFlag, ...] = ()
    failing: tuple[str, ...] = ()
    poor: PathAlignment | None = None
    if success == "fail":
        weak = ("failed",)
        failing = (
            tuple(c.reason for c in tally.gating_goal if c.status != "pass")
            + tuple(f"judged {j.criterion}: {j.reasoning}" for j in judged if j.status == "fail")
            + (answer_excerpt(run.final_answer),)
        )
    elif success == "pass" and alignment is not None and not alignment.satisfied:
        weak = ("poor_path",)
        poor = alignment
    if passed is False and not weak:
        weak = ("not_passed",)  # failed its one verdict on a check, not on the task or the path
    if success != "fail" and "not_passed" not in weak and tally.wrong_call:
        # a wrong call is weak whatever the answer: above all when success is undecided (a judged
        # criterion not run), where the run would otherwise read "ok"
        weak = (*weak, "wrong_call")
    repeats_of: tuple[tuple[int, int, str], ...] = ()
    if pairs:
        weak = (*weak, "redundant")
        repeats_of = tuple((f, r, run.steps[r].tool) for f, r in pairs[:5])
    return weak, (failing, poor, repeats_of)


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
