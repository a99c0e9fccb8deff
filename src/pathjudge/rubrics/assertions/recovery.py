"""Error recovery: what the agent did after each errored tool result.

YAML form (a task's ``recovery:`` block)::

    recovery:
      retry_budget: 2         # identical retries of one failing call tolerated
      require_recovery: true  # every error must be followed by a later successful call

After an errored step, the agent's *response* is read off the first call of a later turn:

- ``retry``: the same call again (same tool, same canonical arguments, see
  :func:`~pathjudge.rubrics.assertions.steps.call_signature`);
- ``changed_args``: the same tool with different arguments;
- ``switched_tool``: another tool;
- ``gave_up``: no later call at all.

An error is *recovered* when some later step succeeded. The run *ends on an error* when its last
step errored and it has no final answer.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from pathjudge._records import field_values
from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics.assertions.base import (
    CheckResult,
    FrozenDict,
    FrozenList,
    pass_fail,
    passing,
)
from pathjudge.rubrics.assertions.steps import call_signature, same_call

__all__ = ["ErrorEvent", "RecoverySpec", "Response", "analyze_errors", "check_recovery"]

Response = Literal["retry", "changed_args", "switched_tool", "gave_up"]


class RecoverySpec(BaseModel):
    """Tolerances for the error-recovery checks."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    retry_budget: int = Field(
        default=2, ge=0, description="How many identical retries of one failing call are tolerated."
    )
    require_recovery: bool = Field(
        default=True, description="Every error must be followed by a later successful call."
    )


@dataclass(frozen=True, slots=True)
class ErrorEvent:
    """One errored step and what followed it."""

    index: int
    tool: str
    response: Response
    next_index: int | None
    recovered: bool

    def as_dict(self) -> dict[str, JsonValue]:
        return field_values(self)


def analyze_errors(run: RunRecord) -> list[ErrorEvent]:
    """One :class:`ErrorEvent` per errored step, in step order; a run without errors gives ``[]``."""
    return [ErrorEvent(*event) for event in _events(run.steps)]


_Event = tuple[int, str, Response, int | None, bool]
"""An :class:`ErrorEvent`'s fields, in order."""


def _events(steps: Sequence[Step]) -> list[_Event]:
    """:func:`analyze_errors` as plain tuples (the check reads them without building the events)."""
    n = len(steps)
    # an errored step is recovered when some later step succeeded: when it comes before the last
    # successful step
    last_success = -1
    for index in range(n - 1, -1, -1):
        if not steps[index].is_error:
            last_success = index
            break
    events: list[_Event] = []
    for index, step in enumerate(steps):
        if not step.is_error:
            continue
        turn = step.turn
        next_index: int | None = None
        for later in range(index + 1, n):
            if steps[later].turn > turn:
                next_index = later
                break
        response: Response
        if next_index is None:
            response = "gave_up"
        else:
            follow = steps[next_index]
            if follow.tool != step.tool:
                response = "switched_tool"
            elif same_call(follow, step):
                response = "retry"
            else:
                response = "changed_args"
        events.append((index, step.tool, response, next_index, index < last_success))
    return events


def check_recovery(run: RunRecord, spec: RecoverySpec) -> tuple[CheckResult, ...]:
    """``recovery.retry_budget``, ``recovery.recovered`` (when ``require_recovery``) and ``recovery.ending``.

    A run with no errored step passes all of them with the reason "no tool errors".

    - retry_budget: the most identical retries of any one failing call must not exceed the budget.
    - recovered: score = fraction of errors followed by a later successful call; passes when all are.
    - ending: fails when the last step errored and the run has no (non-blank) final answer.
    """
    steps = run.steps
    events = _events(steps)
    if not events:
        return _no_errors(spec.require_recovery)
    results: list[CheckResult] = []
    retries: dict[str, int] = {}
    for event in events:
        if event[2] == "retry":
            sig = call_signature(steps[event[0]])
            retries[sig] = retries.get(sig, 0) + 1
    worst_sig, worst = ("", 0) if not retries else max(retries.items(), key=lambda item: item[1])
    over = worst > spec.retry_budget
    responses = ", ".join(
        [f"call #{index + 1} {tool}: {response}" for index, tool, response, _, _ in events]
    )
    if worst:
        worst_tool = worst_sig.split(" ", 1)[0]
        budget_reason = (
            f"{worst} identical retr{'y' if worst == 1 else 'ies'} of a failing {worst_tool} call "
            f"(budget {spec.retry_budget})"
        )
    else:
        budget_reason = f"no identical retries (budget {spec.retry_budget})"
    results.append(
        pass_fail(
            check="recovery.retry_budget",
            axis="error_recovery",
            ok=not over,
            reason=f"{budget_reason}; after each error: {responses}",
            # built frozen: what CheckResult makes of {"max_retries": ..., "events": [as_dict()...]}
            details=FrozenDict(
                max_retries=worst,
                events=FrozenList(
                    [
                        FrozenDict(
                            index=index,
                            tool=tool,
                            response=response,
                            next_index=next_index,
                            recovered=recovered,
                        )
                        for index, tool, response, next_index, recovered in events
                    ]
                ),
            ),
        )
    )
    if spec.require_recovery:
        unrecovered = [event for event in events if not event[4]]
        if not unrecovered:
            results.append(_all_recovered(len(events)))
        else:
            recovered_count = len(events) - len(unrecovered)
            reason = f"{recovered_count} of {len(events)} errors followed by a successful call"
            reason += "; not recovered: " + ", ".join(
                f"call #{index + 1} {tool} ({response})"
                for index, tool, response, _, _ in unrecovered
            )
            results.append(
                CheckResult(
                    check="recovery.recovered",
                    axis="error_recovery",
                    status="fail",
                    score=recovered_count / len(events),
                    reason=reason,
                    details={"recovered": recovered_count, "errors": len(events)},
                )
            )
    last_errored = steps[-1].is_error
    answered = bool(run.final_answer and run.final_answer.strip())
    if last_errored and not answered:
        results.append(
            CheckResult(
                check="recovery.ending",
                axis="error_recovery",
                status="fail",
                score=0.0,
                reason=f"the run ended on an error (call #{len(steps)} {steps[-1].tool}) "
                "with no answer",
                details={"last_step_errored": last_errored, "answered": answered},
            )
        )
    else:
        results.append(_ending_ok(last_errored, answered))
    return tuple(results)


# The results of the common outcomes, shared between runs (CheckResult is frozen).


@functools.lru_cache(maxsize=2)
def _no_errors(require_recovery: bool) -> tuple[CheckResult, ...]:
    """The results of a run with no errored step."""
    ids = ["recovery.retry_budget", "recovery.recovered", "recovery.ending"]
    if not require_recovery:
        ids.remove("recovery.recovered")
    return tuple(
        passing(
            check=check,
            axis="error_recovery",
            reason="no tool errors",
            details={"errors": 0},
        )
        for check in ids
    )


@functools.lru_cache(maxsize=256)
def _all_recovered(errors: int) -> CheckResult:
    return passing(
        check="recovery.recovered",
        axis="error_recovery",
        reason=f"{errors} of {errors} errors followed by a successful call",
        details={"recovered": errors, "errors": errors},
    )


@functools.lru_cache(maxsize=4)
def _ending_ok(last_errored: bool, answered: bool) -> CheckResult:
    """``recovery.ending`` of a run that did not end on an unanswered error."""
    return passing(
        check="recovery.ending",
        axis="error_recovery",
        reason="the last call errored but the run still gave a final answer"
        if last_errored
        else "the run did not end on an error",
        details={"last_step_errored": last_errored, "answered": answered},
    )
