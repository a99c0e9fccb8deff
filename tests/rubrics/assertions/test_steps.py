"""Step efficiency: budget, redundancy, loops."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics.assertions.steps import (
    StepSpec,
    call_signature,
    check_steps,
    find_loops,
    redundant_calls,
)
from tests.rubrics.assertions._helpers import run_of, searches, step


def results(run: RunRecord, spec: StepSpec) -> dict[str, tuple[str, float | None, str]]:
    return {r.check: (r.status, r.score, r.reason) for r in check_steps(run, spec)}


def test_signature_normalises_key_order_and_integral_floats_only() -> None:
    a = step("search", 0, query="Rate Limit", k=2.0)
    b = Step(tool="search", arguments={"k": 2, "query": "Rate Limit"})
    assert call_signature(a) == call_signature(b)
    assert call_signature(a) != call_signature(step("lookup", 0, query="Rate Limit", k=2))
    # strings are compared as written: case and whitespace make a different call
    assert call_signature(a) != call_signature(step("search", 0, query="rate limit", k=2))
    assert call_signature(a) != call_signature(step("search", 0, query=" Rate Limit", k=2))
    raw = Step(tool="search", arguments_error="bad json", raw_arguments=" {Query: X ")
    assert call_signature(raw) == "search raw: {Query: X "


def test_redundant_pairs_point_at_the_first_occurrence() -> None:
    run = searches("rate limit", "Rate Limit ", "pricing", "rate limit")
    assert redundant_calls(run) == [(0, 3)]
    assert redundant_calls(run_of()) == []
    # parallel calls of one turn count too
    parallel = run_of(step("s", 0, q="a"), step("s", 0, q="a"))
    assert redundant_calls(parallel) == [(0, 1)]


@pytest.mark.parametrize("calls", [3, 12])  # compared with each other, or keyed
def test_calls_differing_only_in_letter_case_are_different_calls(calls: int) -> None:
    # BFCL parallel_function_116: one tool, genotypes "AA", "Aa", "aa": three correct calls
    genotypes = ["AA", "Aa", "aa", "aA"][: min(calls, 4)] + [f"g{i}" for i in range(calls - 4)]
    run = run_of(*(step("calc", 0, genotype=g, freq=0.3) for g in genotypes))
    assert redundant_calls(run) == []
    assert find_loops(run, threshold=2) == []
    spec = StepSpec(loop_threshold=2)
    assert {r.check: r.status for r in check_steps(run, spec)} == {
        "steps.redundant": "pass",
        "steps.loop": "pass",
    }
    raw = [Step(tool="calc", arguments_error="bad", raw_arguments=g) for g in genotypes]
    assert redundant_calls(run_of(*raw)) == []


def test_a_retry_after_an_error_is_not_redundant() -> None:
    run = run_of(step("s", 0, error=True, q="a"), step("s", 1, q="a"), step("s", 2, q="a"))
    assert redundant_calls(run) == [(0, 2)]


def test_the_capstone_exercise_duplicate_query_counts_once() -> None:
    # oos-mongo's three searches, first one duplicated (capstone exercise 1): redundancy jumps to 1
    queries = [
        "MongoDB aggregation pipelines",
        "aggregation pipeline query",
        "Meridian query capabilities features",
    ]
    assert redundant_calls(searches(*queries)) == []
    assert len(redundant_calls(searches(queries[0], *queries))) == 1


def test_loops_same_call_and_short_cycle() -> None:
    same = searches("a", "a", "a", "b")
    (loop,) = find_loops(same, threshold=3)
    assert (loop.start, loop.period, loop.repeats) == (0, 1, 3)
    assert loop.describe() == "search_docs the same call repeated 3x at steps 0..2"
    cycle = run_of(*(step(t, i, x=1) for i, t in enumerate(["s", "r", "s", "r", "s", "r", "x"])))
    (loop,) = find_loops(cycle, threshold=3)
    assert (loop.start, loop.period, loop.repeats, loop.tools) == (0, 2, 3, ("s", "r"))
    assert find_loops(cycle, threshold=4) == []
    assert find_loops(searches("a", "b", "c"), threshold=2) == []  # exploring, not looping
    assert find_loops(run_of(), threshold=3) == []
    four = searches("a", "a", "a", "a")
    assert [(lp.period, lp.repeats) for lp in find_loops(four, threshold=2)] == [(1, 4)]
    with pytest.raises(ValueError, match="at least 2"):
        find_loops(four, threshold=1)


def test_check_steps_budget_redundant_loop() -> None:
    run = searches("a", "a", "a")
    out = results(run, StepSpec(budget=2))
    assert out["steps.budget"] == ("fail", 0.0, "3 tool calls against a budget of 2 (1 over)")
    # 2 of 3 calls redundant: score (3 - 2) / 3
    assert out["steps.redundant"][0] == "fail"
    assert out["steps.redundant"][1] == pytest.approx(1 / 3)
    assert out["steps.redundant"][2].startswith(
        "2 of 3 calls redundant (max 0): call #2 repeats call #1"
    )
    assert out["steps.loop"][0] == "fail"
    tolerant = results(run, StepSpec(max_redundant=2, loop_threshold=4))
    assert "steps.budget" not in tolerant
    assert tolerant["steps.redundant"][0] == "pass"
    assert tolerant["steps.loop"] == ("pass", 1.0, "no call or cycle repeated 4x in a row")


def test_check_steps_empty_run() -> None:
    out = results(run_of(), StepSpec(budget=0))
    assert out == {
        "steps.budget": ("pass", 1.0, "0 tool calls against a budget of 0"),
        "steps.redundant": ("pass", 1.0, "no redundant calls among 0"),
        "steps.loop": ("pass", 1.0, "no call or cycle repeated 3x in a row"),
    }


def test_spec_validation() -> None:
    with pytest.raises(ValidationError):
        StepSpec(loop_threshold=1)
    with pytest.raises(ValidationError, match="budjet"):
        StepSpec.model_validate({"budjet": 2})
