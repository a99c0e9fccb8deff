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
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from pathjudge.agent.trajectory import RunRecord
from pathjudge.rubrics.assertions.base import CheckResult
from pathjudge.rubrics.assertions.steps import call_signature

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
        return {
            "index": self.index,
            "tool": self.tool,
            "response": self.response,
            "next_index": self.next_index,
            "recovered": self.recovered,
        }


def analyze_errors(run: RunRecord) -> list[ErrorEvent]:
    """One :class:`ErrorEvent` per errored step, in step order; a run without errors gives ``[]``."""
    steps = run.steps
    events: list[ErrorEvent] = []
    later_success = [False] * len(steps)
    seen_success = False
    for index in range(len(steps) - 1, -1, -1):
        later_success[index] = seen_success
        seen_success = seen_success or not steps[index].is_error
    for index, step in enumerate(steps):
        if not step.is_error:
            continue
        next_index = next(
            (j for j in range(index + 1, len(steps)) if steps[j].turn > step.turn), None
        )
        response: Response
        if next_index is None:
            response = "gave_up"
        else:
            follow = steps[next_index]
            if follow.tool != step.tool:
                response = "switched_tool"
            elif call_signature(follow) == call_signature(step):
                response = "retry"
            else:
                response = "changed_args"
        events.append(
            ErrorEvent(
                index=index,
                tool=step.tool,
                response=response,
                next_index=next_index,
                recovered=later_success[index],
            )
        )
    return events


def check_recovery(run: RunRecord, spec: RecoverySpec) -> tuple[CheckResult, ...]:
    """``recovery.retry_budget``, ``recovery.recovered`` (when ``require_recovery``) and ``recovery.ending``.

    A run with no errored step passes all of them with the reason "no tool errors".

    - retry_budget: the most identical retries of any one failing call must not exceed the budget.
    - recovered: score = fraction of errors followed by a later successful call; passes when all are.
    - ending: fails when the last step errored and the run has no (non-blank) final answer.
    """
    events = analyze_errors(run)
    ids = ["recovery.retry_budget", "recovery.recovered", "recovery.ending"]
    if not spec.require_recovery:
        ids.remove("recovery.recovered")
    if not events:
        return tuple(
            CheckResult(
                check=check,
                axis="error_recovery",
                status="pass",
                score=1.0,
                reason="no tool errors",
                details={"errors": 0},
            )
            for check in ids
        )
    results: list[CheckResult] = []
    retries: dict[str, int] = {}
    for event in events:
        if event.response == "retry":
            sig = call_signature(run.steps[event.index])
            retries[sig] = retries.get(sig, 0) + 1
    worst_sig, worst = max(retries.items(), key=lambda item: item[1], default=("", 0))
    over = worst > spec.retry_budget
    responses = ", ".join(f"call #{e.index + 1} {e.tool}: {e.response}" for e in events)
    if worst:
        worst_tool = worst_sig.split(" ", 1)[0]
        budget_reason = (
            f"{worst} identical retr{'y' if worst == 1 else 'ies'} of a failing {worst_tool} call "
            f"(budget {spec.retry_budget})"
        )
    else:
        budget_reason = f"no identical retries (budget {spec.retry_budget})"
    results.append(
        CheckResult(
            check="recovery.retry_budget",
            axis="error_recovery",
            status="fail" if over else "pass",
            score=0.0 if over else 1.0,
            reason=f"{budget_reason}; after each error: {responses}",
            details={"max_retries": worst, "events": [e.as_dict() for e in events]},
        )
    )
    if spec.require_recovery:
        unrecovered = [e for e in events if not e.recovered]
        if not unrecovered:
            results.append(_all_recovered(len(events)))
        else:
            recovered = len(events) - len(unrecovered)
            reason = f"{recovered} of {len(events)} errors followed by a successful call"
            reason += "; not recovered: " + ", ".join(
                f"call #{e.index + 1} {e.tool} ({e.response})" for e in unrecovered
            )
            results.append(
                CheckResult(
                    check="recovery.recovered",
                    axis="error_recovery",
                    status="fail",
                    score=recovered / len(events),
                    reason=reason,
                    details={"recovered": recovered, "errors": len(events)},
                )
            )
    last_errored = run.steps[-1].is_error
    answered = bool(run.final_answer and run.final_answer.strip())
    if last_errored and not answered:
        results.append(
            CheckResult(
                check="recovery.ending",
                axis="error_recovery",
                status="fail",
                score=0.0,
                reason=f"the run ended on an error (call #{len(run.steps)} {run.steps[-1].tool}) "
                "with no answer",
                details={"last_step_errored": last_errored, "answered": answered},
            )
        )
    else:
        results.append(_ending_ok(last_errored, answered))
    return tuple(results)


# The results of the common outcomes, shared between runs (CheckResult is frozen).


@functools.lru_cache(maxsize=256)
def _all_recovered(errors: int) -> CheckResult:
    return CheckResult(
        check="recovery.recovered",
        axis="error_recovery",
        status="pass",
        score=1.0,
        reason=f"{errors} of {errors} errors followed by a successful call",
        details={"recovered": errors, "errors": errors},
    )


@functools.lru_cache(maxsize=4)
def _ending_ok(last_errored: bool, answered: bool) -> CheckResult:
    """``recovery.ending`` of a run that did not end on an unanswered error."""
    return CheckResult(
        check="recovery.ending",
        axis="error_recovery",
        status="pass",
        score=1.0,
        reason="the last call errored but the run still gave a final answer"
        if last_errored
        else "the run did not end on an error",
        details={"last_step_errored": last_errored, "answered": answered},
    )
