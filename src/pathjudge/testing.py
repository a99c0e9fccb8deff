"""Assertion helpers for your own tests: check one run's path, success, tools or steps.

    from pathjudge.testing import assert_path, assert_success

    def test_refund_agent(run):
        assert_path(run, [{"tool": "lookup_order"}, {"tool": "refund", "args": {"order_id": "A17"}}],
                    mode="in_order")
        assert_success(run, {"kind": "contains_all", "values": ["refunded"]})

Each helper raises ``AssertionError`` whose message is the check's reason (and, for paths, the
alignment diff), and returns the result on success so a test can look further.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import TypeAdapter

from pathjudge.agent.trajectory import RunRecord
from pathjudge.rubrics.assertions.base import CheckResult
from pathjudge.rubrics.assertions.outcome import SuccessCriterion, check_outcome
from pathjudge.rubrics.assertions.steps import StepSpec, check_steps, redundant_calls
from pathjudge.rubrics.assertions.tools import ToolSelectionSpec, check_tool_selection
from pathjudge.rubrics.path import FaultCosts, Mode, PathAlignment, ReferencePath, align_path

__all__ = ["assert_path", "assert_steps", "assert_success", "assert_tools"]

_CRITERION: TypeAdapter[SuccessCriterion] = TypeAdapter(SuccessCriterion)


def _run(run: RunRecord | Mapping[str, Any]) -> RunRecord:
    return run if isinstance(run, RunRecord) else RunRecord.model_validate(run)


def assert_path(
    run: RunRecord | Mapping[str, Any],
    reference: ReferencePath | Sequence[Mapping[str, Any]] | Mapping[str, Any],
    mode: Mode | None = None,
    *,
    budget: int | None = None,
    costs: FaultCosts | None = None,
    min_score: int | None = None,
) -> PathAlignment:
    """Assert that ``run`` matches ``reference`` under ``mode`` (default: the reference's, else in_order).

    ``reference`` is a :class:`ReferencePath`, its mapping form, or a list of steps. Without
    ``min_score`` the run must satisfy the mode exactly; with it, the path score must reach it.
    """
    if isinstance(reference, ReferencePath):
        ref = reference if mode is None else reference.model_copy(update={"mode": mode})
        ref = ReferencePath.model_validate(ref.model_dump())
    elif isinstance(reference, Mapping):
        ref = ReferencePath.model_validate({**reference, **({"mode": mode} if mode else {})})
    else:
        ref = ReferencePath.model_validate({"steps": list(reference), "mode": mode or "in_order"})
    record = _run(run)
    marks = [repeat for _, repeat in redundant_calls(record)]
    alignment = align_path(record, ref, budget=budget, costs=costs, redundant=marks)
    ok = alignment.score >= min_score if min_score is not None else alignment.satisfied
    if not ok:
        raise AssertionError("\n".join([alignment.reason, *alignment.diff_lines()]))
    return alignment


def assert_success(
    run: RunRecord | Mapping[str, Any], criterion: SuccessCriterion | Mapping[str, Any]
) -> CheckResult:
    """Assert that the run meets a success criterion (a model or its mapping form)."""
    parsed = _CRITERION.validate_python(criterion)
    result = check_outcome(_run(run), parsed)
    if result.status != "pass":
        raise AssertionError(f"{result.check} {result.status}: {result.reason}")
    return result


def _all_pass(results: Sequence[CheckResult]) -> list[CheckResult]:
    failed = [r for r in results if r.gating and r.status != "pass"]
    if failed:
        raise AssertionError("; ".join(f"{r.check} {r.status}: {r.reason}" for r in failed))
    return list(results)


def assert_tools(
    run: RunRecord | Mapping[str, Any],
    *,
    required: Sequence[str] = (),
    forbidden: Sequence[str] = (),
    distractors: Sequence[str] = (),
    first_call: str | None = None,
) -> list[CheckResult]:
    """Assert the tool-selection checks (required, forbidden, distractors, first call) pass."""
    spec = ToolSelectionSpec(
        required=tuple(required),
        forbidden=tuple(forbidden),
        distractors=tuple(distractors),
        first_call=first_call,
    )
    return _all_pass(check_tool_selection(_run(run), spec))


def assert_steps(
    run: RunRecord | Mapping[str, Any],
    *,
    budget: int | None = None,
    max_redundant: int = 0,
    loop_threshold: int = 3,
) -> list[CheckResult]:
    """Assert the step-efficiency checks (budget, redundant calls, loops) pass."""
    spec = StepSpec(budget=budget, max_redundant=max_redundant, loop_threshold=loop_threshold)
    return _all_pass(check_steps(_run(run), spec))
