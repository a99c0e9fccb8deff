"""The aligner's shortcuts are pinned to the plain path they stand in for.

- a reference step's matcher answers without :func:`~pathjudge.rubrics.assertions.arguments.match_call`
  when the step accepts every call of its tool, and shares one result for a full match
  (``_step_matcher(step, exits=False)`` is the plain matcher);
- :func:`~pathjudge.rubrics.path.align_view` aligns the calls of a view in one pass, the result in
  the run's indices and the step budget judged on every call, where the plain path aligns the view's
  calls as a run of their own and maps the result back (written out here).

(The cheap exits of the alignment itself are pinned in ``test_path_memo.py``.)
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics.assertions.arguments import match_call
from pathjudge.rubrics.assertions.base import FrozenDict
from pathjudge.rubrics.assertions.steps import redundant_in
from pathjudge.rubrics.path import (
    AlignCache,
    ArgDiff,
    FaultCosts,
    PairedStep,
    PathAlignment,
    ReferencePath,
    ReferenceStep,
    StepMatch,
    _align,
    _step_matcher,
    align_view,
    compile_reference,
)
from tests.rubrics.test_path_memo import references, runs

VALUES: list[Any] = ["x", "X", " x", "y", 1, 1.0, True, None, [], {}, {"a": "x"}]


@st.composite
def reference_steps(draw: st.DrawFn) -> ReferenceStep:
    step: dict[str, Any] = {"tool": "t"}
    if draw(st.booleans()):
        step["args"] = draw(
            st.dictionaries(
                st.sampled_from(["a", "b"]),
                st.sampled_from(["x", 1, {"$regex": "^x"}, {"$type": "string"}, {"$any": True}]),
                max_size=2,
            )
        )
    extra = draw(st.sampled_from([None, "forbid", "allow"]))
    if extra is not None:
        step["extra_args"] = extra
    if draw(st.integers(0, 4)) == 0:
        step["json_schema"] = {"type": "object", "properties": {"a": {"type": "string"}}}
    if draw(st.integers(0, 4)) == 0:
        step["types"] = "bfcl"
    if draw(st.integers(0, 3)) == 0:
        step["result_contains"] = ["doc1"]
    return ReferenceStep.model_validate(step)


calls = st.one_of(
    st.builds(
        Step,
        tool=st.just("t"),
        turn=st.just(0),
        arguments=st.dictionaries(st.sampled_from(["a", "b", "c"]), st.sampled_from(VALUES)),
        result=st.sampled_from([None, "doc1", {"id": "doc1"}, "other"]),
    ),
    st.builds(Step, tool=st.just("t"), turn=st.just(0), arguments_error=st.just("bad")),
)


@settings(max_examples=500, deadline=None)
@given(reference_steps(), calls)
def test_step_matcher_shortcuts_equal_the_plain_matcher(step: ReferenceStep, call: Step) -> None:
    quick = _step_matcher(step)(call)
    plain = _step_matcher(step, exits=False)(call)
    assert quick == plain
    if call.arguments_error is None and not step.result_contains:
        # and the plain matcher is match_call's verdict, diff for diff
        found = match_call("t", call.arguments, step)
        assert plain == StepMatch(
            found.ok,
            found.score,
            tuple(ArgDiff(m.path, m.reason, m.kind) for m in found.mismatches),
        )


def _plain_view(
    steps: Any, view: Any, refs: Any, mode: Any, budget: Any, costs: FaultCosts, marks: Any
) -> PathAlignment:
    """The view aligned the plain way: its calls as a run of their own (no budget), then every
    index mapped back to the run and the budget judged on every call."""
    seen = _align([steps[i] for i in view], refs, mode, "ref", None, costs, marks, None, False)
    over = budget is not None and len(steps) > budget
    faults = FrozenDict(seen.faults, over_budget=int(over))
    cost = costs.missing * faults["missing"] + costs.wasted * faults["wasted"]
    cost += costs.wrong_order if seen.order_fault else 0
    return PathAlignment(
        seen.reference,
        seen.mode,
        seen.satisfied,
        max(0, 100 - cost - (costs.over_budget if over else 0)),
        tuple(
            PairedStep(p.ref, view[p.call], p.tool, p.ok, p.in_order, p.diffs) for p in seen.pairs
        ),
        seen.missing,
        tuple(view[c] for c in seen.extra),
        tuple(view[c] for c in seen.wasted),
        seen.out_of_order,
        over,
        seen.order_fault,
        faults,
        seen.search_truncated,
        seen.n_refs,
        len(steps),
        budget,
        costs,
    )


@settings(max_examples=300, deadline=None)
@given(
    references(),
    runs(),
    st.sampled_from([None, 1, 2, 4]),
    st.sampled_from([FaultCosts(), FaultCosts(missing=30, wasted=5, over_budget=7)]),
)
def test_align_view_equals_aligning_the_views_calls_apart(
    reference: ReferencePath, run: RunRecord, budget: int | None, costs: FaultCosts
) -> None:
    steps = run.steps
    every = range(len(steps))
    # every view of the run's calls, one cache shared by them all (as a task plan shares it
    # between runs), twice (the second time with whatever the first left in the cache)
    views = [None, *(v for k in range(len(steps) + 1) for v in itertools.combinations(every, k))]
    refs = compile_reference(reference)
    cache = AlignCache()
    for _ in range(2):
        for view in views:
            seen = steps if view is None else [steps[i] for i in view]
            marks = [repeat for _, repeat in redundant_in(seen)]
            plain = _plain_view(
                steps, every if view is None else view, refs, reference.mode, budget, costs, marks
            )
            quick = align_view(
                steps, view, refs, reference.mode, name="ref", budget=budget, costs=costs,
                redundant=marks, cache=cache,
            )  # fmt: skip
            assert quick == plain
            assert quick.to_dict() == plain.to_dict()
