"""Per-step faithfulness: one judge call per step, with only that step's tool result and the claim.

For each step of a run, the *claim that used it* is the model's next text after reading the result: the
first non-empty ``decision`` in the next turn, or the run's ``final_answer`` when the step is in the last
turn (or the next turn has no text). Steps with no such claim are not judged. Each judged step is one
``step-faithful`` request (inputs ``tool_call``, ``tool_result``, ``claim``; nothing else from the run),
and the verdicts aggregate to a per-run :class:`FaithfulnessScore` that names the unfaithful steps.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from pathjudge._records import FrozenModel
from pathjudge.agent.trajectory import RunRecord
from pathjudge.judge.runner import judge_requests
from pathjudge.judge.verdict import JudgeFailure, JudgeResult
from pathjudge.rubrics.criteria import input_text

__all__ = [
    "STEP_CRITERION",
    "FaithfulnessScore",
    "StepRequest",
    "aggregate_faithfulness",
    "judge_faithfulness",
    "step_requests",
]

STEP_CRITERION = "step-faithful"


@dataclass(frozen=True)
class StepRequest:
    """One step to judge (satisfies the runner's ``RequestLike``)."""

    item_id: str
    criterion_id: str
    inputs: Mapping[str, str]
    run_id: str
    step_index: int


def step_requests(run: RunRecord, *, criterion_id: str = STEP_CRITERION) -> list[StepRequest]:
    """The per-step requests of one run, in step order (see the module docstring).

    Empty input: a run with no steps, or whose steps have no claim after them, gives ``[]``.
    """
    groups = list(run.turns())
    requests: list[StepRequest] = []
    index = 0
    for position, group in enumerate(groups):
        claim: str | None = None
        if position + 1 < len(groups):
            claim = next(
                (s.decision for s in groups[position + 1] if s.decision and s.decision.strip()),
                None,
            )
        if claim is None and run.final_answer and run.final_answer.strip():
            claim = run.final_answer
        for step in group:
            if claim is not None:
                call = f"{step.tool}({step.raw_arguments if step.arguments_malformed else input_text(step.arguments)})"
                result = input_text(step.result)
                if step.is_error:
                    result = f"[tool error] {result}"
                requests.append(
                    StepRequest(
                        item_id=f"{run.run_id}/step-{index}",
                        criterion_id=criterion_id,
                        inputs={"tool_call": call, "tool_result": result, "claim": claim},
                        run_id=run.run_id,
                        step_index=index,
                    )
                )
            index += 1
    return requests


class FaithfulnessScore(FrozenModel):
    """A run's per-step faithfulness: faithful / (faithful + unfaithful) over the judged steps."""

    run_id: str = Field(description="The run.")
    score: float | None = Field(
        description="Faithful share of decided steps; None when no step was decided."
    )
    judged_steps: int = Field(description="Steps sent to the judge.")
    faithful_steps: tuple[int, ...] = Field(description="Steps judged faithful (pass).")
    unfaithful_steps: tuple[int, ...] = Field(description="Steps judged unfaithful (fail).")
    unsure_steps: tuple[int, ...] = Field(
        description="Steps the judge could not decide (excluded from the score)."
    )
    failed_steps: tuple[int, ...] = Field(
        description="Steps with no verdict (judge failure; excluded)."
    )
    reason: str = Field(description="The score in words, naming the unfaithful steps.")


def aggregate_faithfulness(
    run: RunRecord, requests: Iterable[StepRequest], results: Mapping[str, JudgeResult]
) -> FaithfulnessScore:
    """Aggregate step verdicts into the run's score.

    Unsure steps and judge failures are excluded from the ratio and listed separately; a request with
    no result counts as failed. Empty input: no judged steps → ``score=None``, reason "no steps to judge".
    """
    faithful: list[int] = []
    unfaithful: list[int] = []
    unsure: list[int] = []
    failed: list[int] = []
    tools: dict[int, str] = {}
    steps = list(run.steps)
    judged = 0
    for request in requests:
        judged += 1
        tools[request.step_index] = steps[request.step_index].tool
        result = results.get(request.item_id)
        if result is None or isinstance(result, JudgeFailure):
            failed.append(request.step_index)
        elif result.verdict == "pass":
            faithful.append(request.step_index)
        elif result.verdict == "fail":
            unfaithful.append(request.step_index)
        else:
            unsure.append(request.step_index)
    decided = len(faithful) + len(unfaithful)
    if judged == 0:
        reason = "no steps to judge (no tool result was followed by a claim)"
    else:
        reason = f"{len(faithful)} of {decided} decided steps faithful"
        if unfaithful:
            reason += "; unfaithful: " + ", ".join(f"step {i} ({tools[i]})" for i in unfaithful)
        if unsure:
            reason += f"; {len(unsure)} unsure"
        if failed:
            reason += f"; {len(failed)} not judged (judge failure)"
    return FaithfulnessScore(
        run_id=run.run_id,
        score=(len(faithful) / decided) if decided else None,
        judged_steps=judged,
        faithful_steps=tuple(faithful),
        unfaithful_steps=tuple(unfaithful),
        unsure_steps=tuple(unsure),
        failed_steps=tuple(failed),
        reason=reason,
    )


async def judge_faithfulness(runs: Iterable[RunRecord], **options: Any) -> list[FaithfulnessScore]:
    """Judge every step of every run (one call per step) and score each run.

    ``options`` go to :func:`pathjudge.judge.runner.judge_requests` (``backend``, ``cache``,
    ``concurrency``, ``samples``, ...). Empty input → ``[]``.
    """

    materialised = list(runs)
    per_run = [(run, step_requests(run)) for run in materialised]
    everything = [request for _, requests in per_run for request in requests]
    results = await judge_requests(everything, **options) if everything else {}
    return [aggregate_faithfulness(run, requests, results) for run, requests in per_run]
