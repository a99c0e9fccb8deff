"""Partial order stays consistent with total order (issue 12, item 8).

One rule for every ordered mode: a matched step is out of order when its call comes before the call of
a step it depends on, or when a step it depends on never happened. ``in_order`` is the chain where each
step depends on all the steps before it, so a ``partial_order`` reference whose ``after`` edges form a
chain must score exactly like ``in_order`` on every run.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics.assertions.steps import redundant_calls
from pathjudge.rubrics.path import PathAlignment, ReferencePath, align_path

TOOLS = ("a", "b", "c")
VALUES = (1, 2)


def run_of(calls: list[tuple[str, int]], turns: list[int] | None = None) -> RunRecord:
    steps = tuple(
        Step(tool=tool, arguments={"k": value}, turn=turns[i] if turns else i)
        for i, (tool, value) in enumerate(calls)
    )
    return RunRecord(run_id="r", task_id="t", steps=steps)


def chain(steps: list[tuple[str, int]], order: list[int] | None = None) -> ReferencePath:
    """A partial_order reference whose after edges chain the steps in list order, declared in
    ``order`` (a permutation of the positions; default: list order)."""
    declared = order if order is not None else list(range(len(steps)))
    return ReferencePath.model_validate(
        {
            "mode": "partial_order",
            "steps": [
                {
                    "id": f"s{i}",
                    "tool": steps[i][0],
                    "args": {"k": steps[i][1]},
                    "after": [f"s{i - 1}"] if i else [],
                }
                for i in declared
            ],
        }
    )


def in_order(steps: list[tuple[str, int]]) -> ReferencePath:
    return ReferencePath.model_validate(
        {"mode": "in_order", "steps": [{"tool": t, "args": {"k": v}} for t, v in steps]}
    )


def align(run: RunRecord, ref: ReferencePath, budget: int | None = None) -> PathAlignment:
    marks = [repeat for _, repeat in redundant_calls(run)]
    return align_path(run, ref, budget=budget, redundant=marks)


def summary(found: PathAlignment) -> tuple[Any, ...]:
    return (
        found.score,
        found.satisfied,
        found.faults,
        found.order_fault,
        len(found.missing),
        len(found.out_of_order),
        len(found.extra),
        len(found.wasted),
    )


call = st.tuples(st.sampled_from(TOOLS), st.sampled_from(VALUES))


@st.composite
def cases(
    draw: st.DrawFn,
) -> tuple[list[tuple[str, int]], list[tuple[str, int]], list[int], list[int]]:
    reference = draw(st.lists(call, max_size=4))
    calls = draw(st.lists(call, max_size=6))
    steps = draw(st.lists(st.integers(0, 1), min_size=len(calls), max_size=len(calls)))
    turns = []
    turn = 0
    for i, bump in enumerate(steps):
        turn += bump if i else 0
        turns.append(turn)
    order = draw(st.permutations(list(range(len(reference)))))
    return reference, calls, turns, order


@settings(max_examples=400, deadline=None)
@given(cases(), st.sampled_from([None, 2, 4]))
def test_a_chained_partial_order_scores_exactly_like_in_order(
    case: tuple[list[tuple[str, int]], list[tuple[str, int]], list[int], list[int]],
    budget: int | None,
) -> None:
    reference, calls, turns, order = case
    run = run_of(calls, turns)
    total = align(run, in_order(reference), budget)
    partial = align(run, chain(reference), budget)
    shuffled = align(run, chain(reference, order), budget)
    assert summary(partial) == summary(total)
    # declared in another order, the chain is the same partial order: the same score and faults
    # (which of several equally good pairings is reported may differ, so not the out-of-order list)
    assert summary(shuffled)[:5] == summary(total)[:5]
    assert summary(shuffled)[6:] == summary(total)[6:]


def test_a_step_whose_prerequisite_never_happened_is_out_of_order() -> None:
    # the lesson's Run D, as a partial order: refund after lookup, send after refund; refund missing
    ref = ReferencePath.model_validate(
        {
            "mode": "partial_order",
            "steps": [
                {"id": "lookup", "tool": "lookup_order"},
                {"id": "refund", "tool": "refund", "after": ["lookup"]},
                {"id": "send", "tool": "send_message", "after": ["refund"]},
            ],
        }
    )
    run = RunRecord(
        run_id="d",
        task_id="t",
        steps=(Step(tool="lookup_order", turn=0), Step(tool="send_message", turn=1)),
    )
    found = align_path(run, ref)
    assert found.missing == ("refund",)
    assert found.out_of_order == ("send",)
    assert found.order_fault
    assert found.score == 100 - 25 - 15  # 60, as the lesson's Run D


def test_a_wrong_argument_prerequisite_also_never_happened() -> None:
    ref = chain([("a", 1), ("b", 1)])
    found = align(run_of([("a", 2), ("b", 1)]), ref)
    assert found.out_of_order == ("s1",)
    assert found.score == 100 - 25 - 15


def test_independent_steps_are_never_out_of_order() -> None:
    ref = ReferencePath.model_validate(
        {
            "mode": "partial_order",
            "steps": [{"id": "x", "tool": "a"}, {"id": "y", "tool": "b"}],
        }
    )
    found = align_path(run_of([("b", 1)]), ref)
    assert found.missing == ("x",)
    assert not found.order_fault
    assert found.score == 75


def test_stopping_early_is_missing_steps_not_wrong_order() -> None:
    found = align(run_of([("a", 1), ("b", 1)]), in_order([("a", 1), ("b", 1), ("c", 1)]))
    assert found.missing == ("#3",)
    assert not found.order_fault
    assert found.score == 75
