"""Audit a suite against itself: does an agent that does no work pass it, does its own reference fail it?

:func:`audit_suite` grades, per task, the null agents of :mod:`pathjudge.scoring.null_agents` (do
nothing, refuse everything, echo the question, call random tools) and each reference path replayed as a
run, all in fast mode (judged criteria are not run, never a pass), and reads each run's one verdict
(``RunGrade.verdict``, what the ``passed`` headline counts, before any ``undecided`` policy: an undecided
run is never a pass). A task is

- **unsound** when a null agent passes it, or when one of its references, replayed with every value it
  needed made, fails it (the reasons name the agent or the reference and what failed);
- **not auditable** when it is not unsound but some run could not be decided: a task decided only by a
  judged criterion ("not auditable without a judge"), a check that broke, or a reference replay that
  failed where a value could not be made (a regex no simple guess meets, a ``callable`` criterion);
- **sound** otherwise.

The suite's health adds the detection rate of :func:`pathjudge.scoring.mutate.mutation_report`: the
passing reference replays (or the real runs given) are mutated, and the rate is the share of mutants
that made a run worse which some check caught.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import Field

from pathjudge._io import JsonlStream, line_of
from pathjudge._records import FrozenModel
from pathjudge.agent.trajectory import RunRecord
from pathjudge.rubrics.checks import SuitePlan, TaskPlan
from pathjudge.rubrics.suite import Suite
from pathjudge.scoring.grade import RunGrade, grade_run
from pathjudge.scoring.mutate import MutationReport, mutation_report
from pathjudge.scoring.null_agents import (
    NULL_AGENTS,
    NullAgent,
    ToolTypes,
    null_run,
    reference_replays,
    tool_types,
)

__all__ = [
    "AUDIT_SCHEMA_VERSION",
    "AuditReport",
    "RunOutcome",
    "TaskAudit",
    "TaskStatus",
    "audit_suite",
    "detection_rate",
]

AUDIT_SCHEMA_VERSION: Literal[1] = 1
TaskStatus = Literal["sound", "unsound", "not_auditable"]
Outcome = Literal["pass", "fail", "undecided", "n/a"]

_DESCRIBE: dict[NullAgent, str] = {
    "do_nothing": "no call, empty answer",
    "refuse": "no call, a refusal",
    "echo": "no call, the question echoed",
    "random_tools": "random tool calls, empty answer",
}


class RunOutcome(FrozenModel):
    """One audit run of one task: which agent or reference, its verdict, and why."""

    run: str = Field(description="The null agent, or 'reference: NAME'.")
    outcome: Outcome = Field(description="pass | fail | undecided (the run's verdict) | n/a.")
    reason: str = Field(description="What decided it: the blockers, or why it does not apply.")


class TaskAudit(FrozenModel):
    task_id: str
    status: TaskStatus
    reasons: tuple[str, ...] = Field(description="Why the task is unsound or not auditable.")
    runs: tuple[RunOutcome, ...]


class AuditReport(FrozenModel):
    """The suite-health report: every task's audit, and the mutation detection rate."""

    schema_version: Literal[1] = AUDIT_SCHEMA_VERSION
    suite: str
    seed: int
    tasks: tuple[TaskAudit, ...]
    unsound: tuple[str, ...] = Field(description="Ids of the unsound tasks, in suite order.")
    not_auditable: tuple[str, ...] = Field(
        description="Ids of the tasks that could not be decided."
    )
    mutated: Literal["references", "runs"] = Field(
        description="What was mutated: the passing reference replays, or the runs given."
    )
    detection_rate: float | None = Field(
        description="Share of mutants that made a run worse that some check caught (None: none)."
    )
    mutations: MutationReport

    @property
    def sound(self) -> bool:
        """No task is unsound."""
        return not self.unsound


def detection_rate(report: MutationReport) -> float | None:
    """Caught mutants over the mutants that made a run worse (applied minus improvements); None
    when no mutant made a run worse."""
    worse = sum(report.applied[k] - report.improved.get(k, 0) for k in report.kinds)
    return sum(report.caught[k] for k in report.kinds) / worse if worse else None


def _outcome(graded: RunGrade) -> tuple[Outcome, str]:
    if graded.verdict == "pass":
        return "pass", "passed every check that counts"
    return graded.verdict, graded.reason if graded.reason != "ok" else ", ".join(graded.blockers)


def _audit_task(plan: TaskPlan, types: ToolTypes, seed: int, passing: list[RunRecord]) -> TaskAudit:
    """Grade the null agents and the reference replays of one task (see the module docstring)."""
    task = plan.task
    runs: list[RunOutcome] = []
    unsound: list[str] = []
    undecided: list[str] = []
    for agent in NULL_AGENTS:
        run = null_run(task, agent, types, seed)
        if run is None:
            runs.append(RunOutcome(run=agent, outcome="n/a", reason="does not apply to this task"))
            continue
        outcome, reason = _outcome(grade_run(run, plan, fast=True))
        runs.append(RunOutcome(run=agent, outcome=outcome, reason=reason))
        if outcome == "pass":
            unsound.append(f"the {agent} agent ({_DESCRIBE[agent]}) passes it")
        elif outcome == "undecided":
            undecided.append(_undecided(plan, agent, reason))
    for replay in reference_replays(task, plan.arguments):
        outcome, reason = _outcome(grade_run(replay.run, plan, fast=True))
        name = f"reference: {replay.reference}"
        runs.append(RunOutcome(run=name, outcome=outcome, reason=reason))
        if outcome == "pass":
            passing.append(replay.run)
        elif replay.impossible:
            unsound.append(
                f"its own reference {replay.reference!r} can never be met: it accepts no value "
                f"for {', '.join(replay.impossible)}"
            )
        elif outcome == "fail" and not replay.unmade:
            unsound.append(f"its own reference {replay.reference!r}, replayed, fails: {reason}")
        elif outcome == "fail":
            undecided.append(
                f"reference {replay.reference!r} replayed fails, but not every value could be "
                f"made: {', '.join(replay.unmade)}"
            )
        else:
            undecided.append(_undecided(plan, name, reason))
    status: TaskStatus = "unsound" if unsound else "not_auditable" if undecided else "sound"
    return TaskAudit(
        task_id=task.id,
        status=status,
        reasons=tuple(unsound or dict.fromkeys(undecided)),
        runs=tuple(runs),
    )


def _undecided(plan: TaskPlan, who: str, reason: str) -> str:
    if plan.task.judged and "undecided: success" in reason:
        return "not auditable without a judge: a judged criterion decides it"
    return f"{who} is undecided: {reason}"


def _runs_of_suite(runs: Iterable[RunRecord], plans: SuitePlan) -> list[RunRecord]:
    """``runs`` as a list; a run of a task the suite lacks raises the error that names its file and
    line (when ``runs`` streams a file)."""
    out: list[RunRecord] = []
    file = runs.path if isinstance(runs, JsonlStream) else None
    for run in runs:
        if run.task_id not in plans:
            plans.plan(run.task_id, file=file, line=line_of(runs))  # raises: unknown task
        out.append(run)
    return out


def audit_suite(
    suite: Suite,
    *,
    seed: int = 0,
    runs: Iterable[RunRecord] | None = None,
    plans: SuitePlan | None = None,
) -> AuditReport:
    """Audit every task of ``suite`` (see the module docstring); ``seed`` feeds the random-tools
    agent; ``runs`` (real runs of the suite's tasks), when given, are what is mutated instead of the
    passing reference replays. Deterministic: the same suite, seed and runs give the same report."""
    plans = plans if plans is not None else SuitePlan(suite)
    types = tool_types(suite)
    passing: list[RunRecord] = []
    tasks = tuple(_audit_task(plans.plan(t.id), types, seed, passing) for t in suite.tasks)
    mutated: Sequence[RunRecord] = passing if runs is None else _runs_of_suite(runs, plans)
    mutations = mutation_report(mutated, suite)
    return AuditReport(
        suite=suite.name,
        seed=seed,
        tasks=tasks,
        unsound=tuple(t.task_id for t in tasks if t.status == "unsound"),
        not_auditable=tuple(t.task_id for t in tasks if t.status == "not_auditable"),
        mutated="references" if runs is None else "runs",
        detection_rate=detection_rate(mutations),
        mutations=mutations,
    )
