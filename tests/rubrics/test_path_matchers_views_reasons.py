"""The aligner's shortcuts give what the plain path they stand in for gives.

- a reference step's matcher answers without :func:`~pathjudge.rubrics.assertions.arguments.match_call`
  when the step accepts every call of its tool, and shares one result for a full match
  (``_step_matcher(step, exits=False)`` is the plain matcher);
- :func:`~pathjudge.rubrics.path.align_view` aligns the calls of a view in one pass, the result in
  the run's indices and the step budget judged on every call, where the plain path aligns the view's
  calls as a run of their own and maps the result back (written out here);
- an alignment's reason and diff lines (built for nearly every weak run) are the plain builders'
  text, written out here as they were.

(The cheap exits of the alignment itself are checked in ``test_path_cheap_exits.py``.)
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
    _charge,
    _diff_lines,
    _reason,
    _step_matcher,
    align_view,
    call_name,
    compile_reference,
    ref_name,
)
from tests.rubrics.support import references, runs

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
def test_step_matcher_exits_answer_as_the_plain_matcher(step: ReferenceStep, call: Step) -> None:
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


def _plain_reason(
    name: str, mode: str, n_refs: int, pairs: Any, missing: Any, extra: Any, wasted: Any,
    out_of_order: Any, over: bool, order_fault: bool, n_calls: int, budget: Any, faults: Any,
    costs: FaultCosts, score: int,
) -> str:  # fmt: skip
    ok = sum(1 for p in pairs if p.ok and p.in_order)
    parts = [f"{name} ({mode}): {ok} of {n_refs} reference steps matched"]
    if missing:
        parts.append("missing: " + ", ".join(ref_name(ref) for ref in missing))
    diffs = [p for p in pairs if p.diffs or not p.ok]
    if diffs:
        parts.append(
            "argument diffs: "
            + "; ".join(
                f"{ref_name(p.ref)} ({call_name(p.call)}): "
                + (", ".join(f"{d.path} {d.reason}" for d in p.diffs) or "no match")
                for p in diffs
            )
        )
    if out_of_order:
        parts.append("out of order: " + ", ".join(ref_name(ref) for ref in out_of_order))
    if extra:
        parts.append(
            "extra: "
            + ", ".join(f"{call_name(i)}{' (wasted)' if i in wasted else ''}" for i in extra)
        )
    stray = [i for i in wasted if i not in extra]
    if stray:
        parts.append("wasted: " + ", ".join(call_name(i) for i in stray))
    if over:
        parts.append(f"{n_calls} calls, over the budget of {budget}")
    charges = []
    if faults["missing"]:
        charges.append(_charge(costs.missing, faults["missing"], "missing ref step"))
    if faults["wasted"]:
        charges.append(_charge(costs.wasted, faults["wasted"], "wasted call"))
    if over:
        charges.append(f"{costs.over_budget} (over budget)")
    if order_fault:
        charges.append(f"{costs.wrong_order} (wrong order)")
    parts.append(f"path score {score} = 100" + "".join(f" - {c}" for c in charges))
    return "; ".join(parts)


def _plain_diff_lines(pairs: Any, missing: Any, extra: Any, wasted: Any) -> list[str]:
    lines: list[str] = []
    for pair in pairs:
        mark = "=" if pair.ok and pair.in_order else ("~" if pair.in_order else "\u2195")
        text = f"  {mark} {ref_name(pair.ref)} \u2194 {call_name(pair.call)} {pair.tool}"
        if not pair.in_order:
            text += " (out of order)"
        for diff in pair.diffs:
            text += f"; {diff.path}: {diff.reason}"
        lines.append(text)
    lines.extend(f"  - missing {ref_name(ref)}" for ref in missing)
    lines.extend(
        f"  + extra {call_name(index)}{' (wasted)' if index in wasted else ''}" for index in extra
    )
    return lines


_labels = st.sampled_from(["#1", "#2", "lookup"])
_calls = st.lists(st.integers(0, 5), max_size=4, unique=True)
_pairs = st.lists(
    st.builds(
        PairedStep,
        ref=_labels,
        call=st.integers(0, 5),
        tool=st.sampled_from(["a", "b"]),
        ok=st.booleans(),
        in_order=st.booleans(),
        diffs=st.lists(
            st.builds(ArgDiff, path=st.sampled_from(["", "v", "result"]), reason=st.just("r")),
            max_size=2,
        ).map(tuple),
    ),
    max_size=3,
)


@settings(max_examples=500, deadline=None)
@given(
    _pairs,
    st.lists(_labels, max_size=2),
    _calls,
    _calls,
    st.lists(_labels, max_size=2),
    st.booleans(),
    st.booleans(),
    st.sampled_from([None, 2]),
    st.fixed_dictionaries(
        {k: st.integers(0, 2) for k in ("missing", "wasted", "over_budget", "wrong_order")}
    ),
    st.sampled_from([FaultCosts(), FaultCosts(missing=30, wasted=5)]),
    st.integers(0, 100),
)
def test_reason_and_diff_lines_are_the_plain_builders_text(
    pairs: list[PairedStep], missing: list[str], extra: list[int], wasted: list[int],
    out_of_order: list[str], over: bool, order_fault: bool, budget: int | None,
    faults: dict[str, int], costs: FaultCosts, score: int,
) -> None:  # fmt: skip
    args = (
        "ref", "strict", 3, tuple(pairs), tuple(missing), tuple(extra), tuple(wasted),
        tuple(out_of_order), over, order_fault, 4, budget, FrozenDict(faults), costs, score,
    )  # fmt: skip
    assert _reason(*args) == _plain_reason(*args)
    assert _diff_lines(pairs, missing, extra, wasted) == _plain_diff_lines(
        pairs, missing, extra, wasted
    )
