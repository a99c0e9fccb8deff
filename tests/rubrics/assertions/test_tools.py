"""Tool selection checks."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from pathjudge.agent.trajectory import Step
from pathjudge.rubrics.assertions.tools import ToolSelectionSpec, check_tool_selection
from tests.rubrics.assertions._helpers import run_of, step


def by_check(
    run_steps: tuple[Step, ...], spec: ToolSelectionSpec
) -> dict[str, tuple[str, float | None, str]]:
    results = check_tool_selection(run_of(*run_steps), spec)
    return {r.check: (r.status, r.score, r.reason) for r in results}


def test_empty_spec_yields_no_results() -> None:
    assert check_tool_selection(run_of(step("a", 0)), ToolSelectionSpec()) == ()


def test_required_scores_the_fraction_called() -> None:
    spec = ToolSelectionSpec(required=("search", "refund", "notify"))
    out = by_check((step("search", 0), step("refund", 1)), spec)
    # 2 of 3 required tools called
    status, score, reason = out["tools.required"]
    assert (status, reason) == ("fail", "called 2 of 3 required tools; missing: notify")
    assert score == pytest.approx(2 / 3)
    assert by_check((), spec)["tools.required"][:2] == ("fail", 0.0)
    full = by_check((step("notify", 0), step("refund", 0), step("search", 1)), spec)
    assert full["tools.required"] == ("pass", 1.0, "called 3 of 3 required tools")


def test_forbidden_and_distractor() -> None:
    spec = ToolSelectionSpec(forbidden=("delete_db",), distractors=("search_web", "lookup"))
    clean = by_check((step("search_docs", 0),), spec)
    assert clean["tools.forbidden"][:2] == ("pass", 1.0)
    assert clean["tools.distractor"] == (
        "pass",
        1.0,
        "none of the 2 distractor tools was called (search_web, lookup)",
    )
    bad = by_check((step("search_web", 0), step("delete_db", 1), step("search_web", 2)), spec)
    assert bad["tools.forbidden"] == ("fail", 0.0, "called 1 forbidden tool: delete_db at steps 1")
    assert bad["tools.distractor"] == (
        "fail",
        0.0,
        "called 1 distractor tool: search_web at steps 0, 2",
    )
    assert by_check((), spec)["tools.forbidden"][0] == "pass"


def test_first_call_accepts_any_call_of_the_first_turn() -> None:
    spec = ToolSelectionSpec(first_call="search")
    parallel = by_check((step("lookup", 0), step("search", 0), step("answer", 1)), spec)
    assert parallel["tools.first_call"][0] == "pass"
    late = by_check((step("lookup", 0), step("search", 1)), spec)
    assert late["tools.first_call"] == (
        "fail",
        0.0,
        "the first turn called lookup, expected search",
    )
    empty = by_check((), spec)
    assert empty["tools.first_call"] == (
        "fail",
        0.0,
        "no tool was called; expected the first call to be search",
    )


def test_spec_validation() -> None:
    with pytest.raises(ValidationError, match="listed both in required and in forbidden"):
        ToolSelectionSpec(required=("a",), forbidden=("a",))
    with pytest.raises(ValidationError, match="first_call 'a' is also listed in distractors"):
        ToolSelectionSpec(first_call="a", distractors=("a",))
    with pytest.raises(ValidationError, match="forbiden"):
        ToolSelectionSpec.model_validate({"forbiden": ["a"]})
    results = check_tool_selection(run_of(), ToolSelectionSpec(required=("a",)))
    assert all(r.axis == "tool_selection" for r in results)
