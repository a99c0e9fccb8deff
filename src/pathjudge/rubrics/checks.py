"""The deterministic checks of a task, declared once, in order, each with its axis.

Every check has one signature, ``(run, plan) -> tuple[CheckResult, ...]``: ``run`` is the
:class:`~pathjudge.agent.trajectory.RunRecord`, ``plan`` the :class:`TaskPlan` (everything about the
task that does not depend on the run, compiled once). :data:`CHECKS` lists them in the order their
results appear in a grade; every result of a check must be on the check's axis.
:func:`pathjudge.scoring.grade.grade_run` runs each declared check guarded: a check that raises (or
returns something else than a tuple of results on its axis) gives one ``error`` result named after
the check — undecided, listed as a check that broke, never a failure of the agent.

Adding a check: write ``def my_check(run, plan) -> tuple[CheckResult, ...]`` and declare it, e.g.
``CHECKS + (Check("tools.scope", "tool_selection", my_check),)``, then grade with
``SuitePlan(suite, checks=...)``. ``applies`` skips a check for tasks it does not concern (cheaply,
once per task).

Caches are explicit and per suite: a :class:`SuitePlan` owns the task plans, and each task plan owns
one bounded :class:`~pathjudge.rubrics.path.AlignCache` per reference, keyed by content. Nothing here
is a module-level memo keyed by object identity.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from pathjudge.agent.trajectory import RunRecord
from pathjudge.rubrics.assertions.arguments import CallExpectation, match_call
from pathjudge.rubrics.assertions.base import AXES, Axis, CheckResult, FrozenDict, passing
from pathjudge.rubrics.assertions.outcome import RefusalCriterion, check_outcome
from pathjudge.rubrics.assertions.overlap import check_query_overlap
from pathjudge.rubrics.assertions.recovery import RecoverySpec, check_recovery
from pathjudge.rubrics.assertions.said_vs_did import (
    CompiledSaidVsDid,
    check_said_vs_did,
    compile_said_vs_did,
)
from pathjudge.rubrics.assertions.steps import StepSpec, check_steps
from pathjudge.rubrics.assertions.tools import check_tool_selection
from pathjudge.rubrics.path import AlignCache, Mode, RefSpec, compile_reference
from pathjudge.rubrics.scope import ErroredCalls, ToolScope, visible_calls
from pathjudge.rubrics.suite import Suite, Task

__all__ = [
    "CHECKS",
    "Check",
    "CheckFn",
    "CompiledReference",
    "SuitePlan",
    "TaskPlan",
    "argument_match",
    "argument_validity",
    "implied_refusal",
    "plan_task",
    "query_overlap",
    "recovery",
    "said_vs_did",
    "step_efficiency",
    "success_criterion",
    "tool_selection",
]

CheckFn = Callable[[RunRecord, "TaskPlan"], tuple[CheckResult, ...]]
"""A check: ``(run, plan) -> tuple[CheckResult, ...]``."""


@dataclass(frozen=True, slots=True)
class CompiledReference:
    """One reference path compiled for aligning many runs: its name, mode, steps and cache, and the
    calls it sees (its scope and errored-call policy; see :mod:`pathjudge.rubrics.scope`)."""

    name: str
    mode: Mode
    refs: tuple[RefSpec, ...]
    cache: AlignCache
    scope: ToolScope = "all"
    errored_calls: ErroredCalls = "count"


@dataclass(frozen=True, slots=True)
class TaskPlan:
    """Everything about a task that does not depend on the run, computed once per task.

    ``recovery_clean``: the recovery checks of a run with no tool error, which depend on the spec
    alone (derived from the same :func:`~pathjudge.rubrics.assertions.recovery.check_recovery`);
    ``implied_goal``: the refusal rule a task's ``kind`` implies when it has no success criterion;
    ``read_only``: the task's read-only tool patterns; ``errored_calls``: its errored-call policy;
    ``step_view_differs``: whether the redundancy check sees other calls than the whole run;
    ``success_defined``: whether the task has a success criterion, a kind or a judged criterion;
    ``said_vs_did``: the task's compiled said-vs-did spec, when it sets one;
    ``runners``: what :func:`~pathjudge.scoring.grade.grade_run` needs of each of ``checks``, derived
    from them once (see :data:`Runner`).
    """

    task: Task
    references: tuple[CompiledReference, ...]
    step_spec: StepSpec
    recovery_spec: RecoverySpec
    recovery_clean: tuple[CheckResult, ...]
    arguments: Mapping[str, CallExpectation]
    budget: int | None
    implied_goal: RefusalCriterion | None
    checks: tuple[Check, ...]
    read_only: tuple[str, ...] = ()
    errored_calls: ErroredCalls = "count"
    step_view_differs: bool = False
    success_defined: bool = False
    said_vs_did: CompiledSaidVsDid | None = None
    runners: tuple[Runner, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "runners", tuple(_runner(check) for check in self.checks))


Runner = tuple[CheckFn, "Check", int, int]
"""A declared check as the grading loop runs it: ``(function, declaration, axis index, kind)``, the
axis index in :data:`~pathjudge.rubrics.assertions.base.AXES` order and the kind one of
:data:`RUN_PLAIN`, :data:`RUN_STEPS`, :data:`RUN_GOAL`, :data:`RUN_GUARDED`."""

RUN_PLAIN = 0
"""A built-in check off the goal axis whose results carry no redundant pairs: its results are
trusted to keep the contract (a tuple of results on its axis), never named ``path`` or
``outcome.truncated``."""
RUN_STEPS = 1
"""The built-in step-efficiency check: as :data:`RUN_PLAIN`, and its ``steps.redundant`` result
carries the redundant pairs."""
RUN_GOAL = 2
"""A built-in check on the goal axis: its results are trusted to keep the contract."""
RUN_GUARDED = 3
"""Any other declared check: its results are checked against the contract on every run."""


def _runner(check: Check) -> Runner:
    index = AXES.index(check.axis) if check.axis in AXES else -1
    if check not in CHECKS:
        kind = RUN_GUARDED  # a declaration of the user's: nothing about its results is assumed
    elif check.axis == "goal_completion":
        kind = RUN_GOAL
    elif check.run is step_efficiency:
        kind = RUN_STEPS
    else:
        kind = RUN_PLAIN
    return (check.run, check, index, kind)


def plan_task(
    task: Task, *, checks: Sequence[Check] | None = None, cache_limit: int = 64
) -> TaskPlan:
    """Compile a task's references and defaults once, for grading many runs of it.

    ``checks``: the declared checks (default :data:`CHECKS`); those that do not apply to the task are
    dropped here, once. ``cache_limit``: the most shapes each reference's alignment cache keeps.
    """
    step_spec = task.steps or StepSpec()
    recovery_spec = task.recovery or RecoverySpec()
    implied: RefusalCriterion | None = None
    if task.success is None and task.kind is not None:
        # factual: an answer that refuses fails; out_of_scope: only a refusal passes
        implied = RefusalCriterion(expect="answer" if task.kind == "factual" else "refuse")
    references = tuple(
        CompiledReference(
            ref.name or f"reference {i + 1}",
            ref.mode,
            compile_reference(ref),
            AlignCache(cache_limit),
            ref.scope,
            ref.errored_calls or task.errored_calls,
        )
        for i, ref in enumerate(task.references)
    )
    plan = TaskPlan(
        task=task,
        references=references,
        step_spec=step_spec,
        recovery_spec=recovery_spec,
        recovery_clean=check_recovery(RunRecord(run_id="-", task_id=task.id), recovery_spec),
        arguments={exp.tool: exp for exp in task.arguments},
        budget=step_spec.budget,
        implied_goal=implied,
        checks=(),
        read_only=task.tools.read_only if task.tools is not None else (),
        errored_calls=task.errored_calls,
        step_view_differs=step_spec.scope != "all" or task.errored_calls == "ignore",
        success_defined=task.success is not None or task.kind is not None or bool(task.judged),
        said_vs_did=None if task.said_vs_did is None else compile_said_vs_did(task.said_vs_did),
    )
    declared = CHECKS if checks is None else tuple(checks)
    kept = tuple(check for check in declared if check.applies is None or check.applies(plan))
    return replace(plan, checks=kept)


class SuitePlan:
    """The task plans of one suite, built on first use and kept for its lifetime (the per-suite cache).

    ``checks``: the declared checks every task is graded with (default :data:`CHECKS`).
    :meth:`plan` raises :class:`~pathjudge.errors.SuiteError` for a task the suite lacks, naming
    ``file`` and ``line`` when given. Picklable: a plan travels to a worker process as its suite and
    check declarations, and rebuilds its task plans there. ``skip_unknown``: runs of a task the suite
    lacks are counted as skipped by the graders instead of being errors (``score --skip-unknown-tasks``).
    """

    __slots__ = ("_plans", "cache_limit", "checks", "skip_unknown", "suite")

    def __init__(
        self,
        suite: Suite,
        *,
        checks: Sequence[Check] | None = None,
        cache_limit: int = 64,
        skip_unknown: bool = False,
    ) -> None:
        self.suite = suite
        self.checks: tuple[Check, ...] = CHECKS if checks is None else tuple(checks)
        self.cache_limit = cache_limit
        self.skip_unknown = skip_unknown
        self._plans: dict[str, TaskPlan] = {}

    def plan(self, task_id: str, *, file: object = None, line: int | None = None) -> TaskPlan:
        found = self._plans.get(task_id)
        if found is None:
            task = self.suite.task(task_id, file=file, line=line)  # type: ignore[arg-type]
            found = self._plans[task_id] = plan_task(
                task, checks=self.checks, cache_limit=self.cache_limit
            )
        return found

    def __contains__(self, task_id: str) -> bool:
        return task_id in self._plans or self.suite.get(task_id) is not None

    def __getstate__(self) -> tuple[Suite, tuple[Check, ...], int, bool]:
        return self.suite, self.checks, self.cache_limit, self.skip_unknown

    def __setstate__(self, state: tuple[Suite, tuple[Check, ...], int, bool]) -> None:
        self.suite, self.checks, self.cache_limit, self.skip_unknown = state
        self._plans = {}


# --------------------------------------------------------------------------------------------------
# The checks


def tool_selection(run: RunRecord, plan: TaskPlan) -> tuple[CheckResult, ...]:
    """``tools.*``: required, forbidden, distractor tools and the first call (the task's ``tools``)."""
    spec = plan.task.tools
    return () if spec is None else check_tool_selection(run, spec, errored_calls=plan.errored_calls)


def argument_validity(run: RunRecord, plan: TaskPlan) -> tuple[CheckResult, ...]:
    """``arguments.valid_json``: the share of calls whose arguments parsed (none with no calls).

    With ``errored_calls: ignore`` a call whose result was an error is not looked at."""
    steps = run.steps
    if not steps:
        return ()
    view = None if plan.errored_calls == "count" else visible_calls(steps, errored="ignore")
    if view is None:
        for step in steps:
            if step.arguments_error is not None:
                break
        else:  # the common case: every call parsed
            return _all_valid(len(steps))
    indices: Sequence[int] = range(len(steps)) if view is None else view
    n = len(indices)
    if not n:
        return ()
    bad = [i for i in indices if steps[i].arguments_error is not None]
    if not bad:
        return _all_valid(n)
    return (
        CheckResult(
            check="arguments.valid_json",
            axis="argument_correctness",
            status="fail",
            score=(n - len(bad)) / n,
            reason=f"{len(bad)} of {n} calls had arguments that were not valid JSON: "
            + ", ".join(f"call #{i + 1} {steps[i].tool}" for i in bad),
            details={"malformed": bad},
        ),
    )


def argument_match(run: RunRecord, plan: TaskPlan) -> tuple[CheckResult, ...]:
    """``arguments.match``: the calls to each tool of the task's ``arguments`` against its expectation
    (with ``errored_calls: ignore``, not the calls whose result was an error)."""
    expectations = plan.arguments
    if not expectations:
        return ()
    total = 0
    failures: list[str] = []
    steps = run.steps
    view = visible_calls(steps, errored=plan.errored_calls)
    for index in range(len(steps)) if view is None else view:
        step = steps[index]
        expected = expectations.get(step.tool)
        if expected is None or step.arguments_error is not None:
            continue
        total += 1
        found = match_call(step.tool, step.arguments, expected)
        if not found.ok:
            failures.append(
                f"call #{index + 1} {step.tool}: "
                + "; ".join(m.render() for m in found.mismatches[:3])
            )
    if not failures:
        return (_match_without_failure(tuple(expectations), total),)
    tools = ", ".join(sorted(expectations))
    ok = total - len(failures)
    return (
        CheckResult(
            check="arguments.match",
            axis="argument_correctness",
            status="fail",
            score=ok / total,
            reason=f"{ok} of {total} calls to {tools} matched their expectation; "
            + "; ".join(failures[:5]),
            details=FrozenDict(checked=total, failed=len(failures)),  # built frozen
        ),
    )


@functools.lru_cache(maxsize=1024)
def _match_without_failure(tools: tuple[str, ...], total: int) -> CheckResult:
    """``arguments.match`` when no call failed (``not_run`` when none was checked): it depends on
    the expected tools and the count alone, so it is built once per pair and shared."""
    listed = ", ".join(sorted(tools))
    if total == 0:
        return CheckResult(
            check="arguments.match",
            axis="argument_correctness",
            status="not_run",
            reason=f"no call to {listed} to check",
        )
    return passing(
        check="arguments.match",
        axis="argument_correctness",
        reason=f"{total} of {total} calls to {listed} matched their expectation",
        details={"checked": total, "failed": 0},
    )


def query_overlap(run: RunRecord, plan: TaskPlan) -> tuple[CheckResult, ...]:
    """``arguments.query_overlap`` (a diagnostic, never gating), when the task sets ``query_overlap``."""
    task = plan.task
    spec = task.query_overlap
    if spec is None:
        return ()
    return (
        check_query_overlap(
            run,
            argument=spec.argument,
            question=task.input_text if task.input is not None else None,
            tools=spec.tools or None,
        ),
    )


def step_efficiency(run: RunRecord, plan: TaskPlan) -> tuple[CheckResult, ...]:
    """``steps.budget``, ``steps.redundant`` (its details carry the redundant pairs), ``steps.loop``;
    redundancy and loops look at the calls in ``steps.scope`` (and, with ``errored_calls: ignore``,
    not at errored calls); the budget counts every call."""
    view = None
    if plan.step_view_differs:
        view = visible_calls(
            run.steps,
            scope=plan.step_spec.scope,
            read_only=plan.read_only,
            errored=plan.errored_calls,
        )
    return check_steps(run, plan.step_spec, view)


def recovery(run: RunRecord, plan: TaskPlan) -> tuple[CheckResult, ...]:
    """``recovery.*``; a run with no tool error gets the plan's precomputed results (the same ones)."""
    for step in run.steps:
        if step.is_error:
            return check_recovery(run, plan.recovery_spec)
    return plan.recovery_clean


def truncation(run: RunRecord, plan: TaskPlan) -> tuple[CheckResult, ...]:
    """``outcome.truncated``, only for a run whose ``stop_reason`` says it was cut: with the task's
    ``truncated: fail`` it fails the run's success; with ``undecided`` (default) it is ``not_run`` and
    the goal criteria below are reported as non-gating, so success is undecided. A cut run is never
    graded as complete."""
    if not run.truncated:
        return ()
    policy = plan.task.truncated
    return (
        CheckResult(
            check="outcome.truncated",
            axis="goal_completion",
            status="fail" if policy == "fail" else "not_run",
            score=0.0 if policy == "fail" else None,
            reason=f"the run was cut (stop_reason {run.stop_reason!r}); truncated: {policy}",
            details={"stop_reason": run.stop_reason, "policy": policy},
        ),
    )


def _informative_if_cut(run: RunRecord, result: CheckResult) -> CheckResult:
    """A goal result of a truncated run, kept for the record but not gating."""
    if not run.truncated:
        return result
    return replace(result, gating=False)


def success_criterion(run: RunRecord, plan: TaskPlan) -> tuple[CheckResult, ...]:
    """``outcome.<kind>``: the task's success criterion (non-gating when the run was cut)."""
    criterion = plan.task.success
    return () if criterion is None else (_informative_if_cut(run, check_outcome(run, criterion)),)


def implied_refusal(run: RunRecord, plan: TaskPlan) -> tuple[CheckResult, ...]:
    """``outcome.refusal`` implied by the task's kind (factual: must not refuse; out_of_scope: must)."""
    implied = plan.implied_goal
    return () if implied is None else (_informative_if_cut(run, check_outcome(run, implied)),)


def said_vs_did(run: RunRecord, plan: TaskPlan) -> tuple[CheckResult, ...]:
    """``outcome.said_vs_did``: the claims of the run's messages against its tool activity (the
    task's ``said_vs_did``; non-gating when the run was cut)."""
    compiled = plan.said_vs_did
    if compiled is None:
        return ()
    return (_informative_if_cut(run, check_said_vs_did(run, compiled)),)


@functools.lru_cache(maxsize=256)
def _all_valid(n: int) -> tuple[CheckResult]:
    # results are immutable, so one per call count is shared (bounded, as the step checks' are)
    return (
        passing(
            check="arguments.valid_json",
            axis="argument_correctness",
            reason=f"all {n} calls had valid JSON arguments",
            details={"malformed": []},
        ),
    )


# --------------------------------------------------------------------------------------------------
# The declarations


@dataclass(frozen=True, slots=True)
class Check:
    """A declared check: its name (the id of its ``error`` result when it breaks), its axis, the
    function, and optionally which tasks it applies to (decided once per task plan)."""

    name: str
    axis: Axis
    run: CheckFn
    applies: Callable[[TaskPlan], bool] | None = None
    gating: bool = True


def _has_tools(plan: TaskPlan) -> bool:
    return plan.task.tools is not None


def _has_arguments(plan: TaskPlan) -> bool:
    return bool(plan.arguments)


def _has_overlap(plan: TaskPlan) -> bool:
    return plan.task.query_overlap is not None


def _has_success(plan: TaskPlan) -> bool:
    return plan.task.success is not None


def _has_implied(plan: TaskPlan) -> bool:
    return plan.implied_goal is not None


def _has_said_vs_did(plan: TaskPlan) -> bool:
    return plan.said_vs_did is not None


CHECKS: tuple[Check, ...] = (
    Check("tools", "tool_selection", tool_selection, _has_tools),
    Check("arguments.valid_json", "argument_correctness", argument_validity),
    Check("arguments.match", "argument_correctness", argument_match, _has_arguments),
    Check(
        "arguments.query_overlap", "argument_correctness", query_overlap, _has_overlap, gating=False
    ),
    Check("steps", "step_efficiency", step_efficiency),
    Check("recovery", "error_recovery", recovery),
    Check("outcome.truncated", "goal_completion", truncation),
    Check("outcome", "goal_completion", success_criterion, _has_success),
    Check("outcome.refusal", "goal_completion", implied_refusal, _has_implied),
    Check("outcome.said_vs_did", "goal_completion", said_vs_did, _has_said_vs_did),
)
"""The built-in checks, in the order their results appear in a grade (module-level functions, so a
declaration pickles to a worker process)."""
