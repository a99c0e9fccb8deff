"""References long enough to recurse past any stack: an error that says so, never a crash.

A function that recursed once per reference step would raise ``RecursionError`` on a reference
longer than the interpreter's stack holds. So nothing recurses per reference step without a bound: the
ancestors of a partial order are resolved with an explicit stack, and the constrained search refuses a
reference longer than it takes, with an error that says to split it.
"""

from __future__ import annotations

import pytest

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics import path
from pathjudge.rubrics.path import ReferencePath, align_path


def _chain(n: int) -> ReferencePath:
    # each step after the one before it, declared last first: resolving the first declared step's
    # ancestors walks the whole chain
    return ReferencePath.model_validate(
        {
            "mode": "partial_order",
            "steps": [
                {"id": f"s{i}", "tool": "t", "args": {"k": i}, "after": [f"s{i - 1}"] if i else []}
                for i in reversed(range(n))
            ],
        }
    )


def test_a_chain_of_after_as_deep_as_allowed_resolves_and_a_deeper_one_is_refused() -> None:
    n = path.MAX_AFTER_DEPTH + 1  # a chain of n steps: the first declared has n - 1 ancestors
    ref = _chain(n)
    assert len(ref.steps) == n
    with pytest.raises(ValueError, match=f"more than {path.MAX_AFTER_DEPTH} steps through 'after'"):
        _chain(n + 1)


def test_a_chain_as_long_as_the_search_takes_aligns() -> None:
    n = path.MAX_SEARCH_STEPS
    ref = _chain(n)
    run = RunRecord(
        run_id="r",
        task_id="t",
        steps=tuple(Step(tool="t", arguments={"k": i}, turn=i) for i in range(n)),
    )
    found = align_path(run, ref)
    assert found.satisfied
    assert found.score == 100
    longer = _chain(n + 1)
    run = RunRecord(
        run_id="r",
        task_id="t",
        steps=tuple(Step(tool="t", arguments={"k": i}, turn=i) for i in range(n + 1)),
    )
    with pytest.raises(ValueError, match="split it into shorter references"):
        align_path(run, longer)


def test_a_step_after_thousands_of_others_resolves_once_each() -> None:
    n = 20_000  # each parent list is walked once: linear, not quadratic, in the parents
    steps = [{"id": f"s{i}", "tool": "t"} for i in range(n)]
    steps.append({"id": "last", "tool": "t", "after": [f"s{i}" for i in range(n)]})
    ref = ReferencePath.model_validate({"mode": "partial_order", "steps": steps})
    assert len(ref.steps) == n + 1


def test_a_cycle_in_a_long_chain_is_still_named() -> None:
    steps = [{"id": f"s{i}", "tool": "t", "after": [f"s{i - 1}"]} for i in range(1, 900)]
    steps.append({"id": "s0", "tool": "t", "after": ["s899"]})
    with pytest.raises(ValueError, match="depends on itself through 'after'"):
        ReferencePath.model_validate({"mode": "partial_order", "steps": steps})


def test_the_constrained_search_refuses_a_reference_longer_than_it_takes() -> None:
    n = path.MAX_SEARCH_STEPS + 1
    with pytest.raises(ValueError, match=f"among {n} steps is over the {n - 1}"):
        path._constrained_search({}, list(range(n)), [frozenset()] * n, lambda a, b: True)
    # at the bound it searches (and finds the empty pairing of no candidates)
    n -= 1
    assert path._constrained_search({}, list(range(n)), [frozenset()] * n, lambda a, b: True) == (
        {},
        False,
    )
