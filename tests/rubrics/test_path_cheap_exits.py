"""Cheap exits and the per-reference cache never change an alignment.

:func:`~pathjudge.rubrics.path.align_calls` takes two cheap exits before the optimal search (calls
that fully match the reference one to one; a pairing with no choice in it), one inside it (the first
candidate pairing is kept when it already costs the floor no pairing can go below) and keeps, in an explicit
per-reference :class:`~pathjudge.rubrics.path.AlignCache`, the fully matching alignment. Each must
give exactly what the plain search gives, in every mode, with repeats, parallel calls, wrong
arguments and partial orders.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics.assertions.steps import redundant_calls
from pathjudge.rubrics.path import (
    MODES,
    AlignCache,
    FaultCosts,
    ReferencePath,
    _align,
    _pairing,
    align_calls,
    compile_reference,
)
from tests.rubrics.support import VALUES, references, runs


def variants(run: RunRecord, values: list[Any]) -> list[RunRecord]:
    """The run, then the same calls as one parallel turn, one turn each, and with other values."""
    out = [run]
    for turns in ([0] * len(run.steps), list(range(len(run.steps)))):
        steps = tuple(
            s.model_copy(update={"turn": t}) for s, t in zip(run.steps, turns, strict=True)
        )
        out.append(run.model_copy(update={"steps": steps}))
    steps = tuple(
        s
        if s.arguments_error is not None
        else s.model_copy(update={"arguments": {**s.arguments, "w": values[i % len(values)]}})
        for i, s in enumerate(run.steps)
    )
    out.append(run.model_copy(update={"steps": steps}))
    return out


@settings(max_examples=300, deadline=None)
@given(
    references(),
    st.lists(runs(), min_size=1, max_size=6),
    st.lists(st.sampled_from(VALUES), min_size=1, max_size=3),
    st.sampled_from([None, 2, 3]),
    st.sampled_from([FaultCosts(), FaultCosts(missing=30, wasted=5)]),
)
def test_cheap_exits_and_cache_equal_the_plain_search(
    reference: ReferencePath,
    batch: list[RunRecord],
    values: list[Any],
    budget: int | None,
    costs: FaultCosts,
) -> None:
    refs = compile_reference(reference)
    cache = AlignCache(limit=3)  # small: the cache also empties and refills
    every = [variant for run in batch for variant in variants(run, values)]
    for _ in range(2):  # the second round finds shapes cached
        for run in every:
            marks = [repeat for _, repeat in redundant_calls(run)]
            cached = align_calls(
                run.steps,
                refs,
                reference.mode,
                budget=budget,
                costs=costs,
                redundant=marks,
                cache=cache,
            )
            quick = align_calls(
                run.steps, refs, reference.mode, budget=budget, costs=costs, redundant=marks
            )
            plain = _align(
                run.steps, refs, reference.mode, "reference", budget, costs, marks, None, False
            )
            assert cached == plain
            assert quick == plain
            assert cached.to_dict() == plain.to_dict()
            assert cached.reason == plain.reason
            assert len(cache) <= 2 * cache.limit


def test_one_shape_with_different_argument_diffs_keeps_each_runs_diffs() -> None:
    reference = ReferencePath.model_validate(
        {"mode": "strict", "steps": [{"tool": "a", "args": {"v": "x"}}, {"tool": "b"}]}
    )
    refs = compile_reference(reference)
    cache = AlignCache()

    def run(value: str) -> RunRecord:
        return RunRecord(
            run_id="r",
            task_id="t",
            steps=(
                Step(tool="b", turn=0),
                Step(tool="a", turn=1, arguments={"v": value}),
                Step(tool="a", turn=2, arguments={"v": value + "!"}),
            ),
        )

    first = align_calls(run("y").steps, refs, "strict", cache=cache)
    second = align_calls(run("z").steps, refs, "strict", cache=cache)  # same shape
    assert [d.reason for p in first.pairs for d in p.diffs] != [
        d.reason for p in second.pairs for d in p.diffs
    ]
    assert 'got string "z"' in second.reason
    assert '"y"' not in second.reason


def test_parallel_and_sequential_versions_of_one_sequence_are_aligned_apart() -> None:
    reference = ReferencePath.model_validate(
        {"mode": "strict", "steps": [{"tool": "a"}, {"tool": "b"}]}
    )
    refs = compile_reference(reference)
    cache = AlignCache()

    def run(turns: tuple[int, int]) -> RunRecord:
        return RunRecord(
            run_id="r",
            task_id="t",
            steps=(Step(tool="b", turn=turns[0]), Step(tool="a", turn=turns[1])),
        )

    # b then a in two turns is out of order (100 - 15); in one turn the two calls are parallel
    assert align_calls(run((0, 1)).steps, refs, "strict", cache=cache).score == 85
    assert align_calls(run((0, 0)).steps, refs, "strict", cache=cache).score == 100
    assert align_calls(run((0, 1)).steps, refs, "strict", cache=cache).score == 85


def test_cache_is_keyed_by_content_and_travels_empty() -> None:
    import pickle

    reference = ReferencePath.model_validate({"mode": "strict", "steps": [{"tool": "a"}]})
    cache = AlignCache(limit=7)
    steps = (Step(tool="a", turn=0),)
    align_calls(steps, compile_reference(reference), "strict", cache=cache)
    # a fresh compile of the same reference (other objects, same content) finds the entry
    again = align_calls(steps, compile_reference(reference), "strict", cache=cache)
    assert len(cache) == 1
    assert again.score == 100
    copy = pickle.loads(pickle.dumps(cache))
    assert len(copy) == 0
    assert copy.limit == 7


def _candidate_pairs(refs: Any, steps: Any) -> tuple[Any, dict[Any, Any], dict[Any, float]]:
    """The aligner's candidate pairs, as ``_align`` builds them: every (reference step, call) of the
    same tool, its match and its weight (ties broken toward earlier calls)."""
    from pathjudge.rubrics.path import _Weights

    weigher = _Weights(max(len(refs), len(steps)))
    matches: dict[Any, Any] = {}
    weights: dict[Any, float] = {}
    for r, ref in enumerate(refs):
        for c, step in enumerate(steps):
            if step.tool == ref.tool:
                matches[(r, c)] = m = ref.matcher(step)
                weights[(r, c)] = weigher.of(m) - c * 1e-9
    return weigher, matches, weights


@settings(max_examples=300, deadline=None)
@given(references(), runs(), st.sampled_from([FaultCosts(), FaultCosts(missing=30, wasted=5)]))
def test_cost_floor_is_below_every_candidate(
    reference: ReferencePath, run: RunRecord, costs: FaultCosts
) -> None:
    from pathjudge.rubrics.path import _cost_floor, _pairing_cost, _Search

    refs = compile_reference(reference)
    steps = run.steps
    marks = {repeat for _, repeat in redundant_calls(run)}
    charged = frozenset() if reference.mode in ("strict", "unordered", "subset") else marks
    weigher, matches, weights = _candidate_pairs(refs, steps)
    quick = _Search(
        steps, refs, reference.mode, matches, weights, charged, costs, weigher.pair_weight
    )
    plain = _pairing(replace(quick, exits=False))
    assert _pairing(quick) == plain
    assert _cost_floor(quick) <= _pairing_cost(quick, plain[0], plain[1])


@settings(max_examples=400, deadline=None)
@given(references(), runs(), st.sampled_from([FaultCosts(), FaultCosts(missing=30, wasted=5)]))
def test_refined_floors_are_below_the_candidates_they_skip(
    reference: ReferencePath, run: RunRecord, costs: FaultCosts
) -> None:
    """The floor counted with the most fully matching pairs of an order-consistent pairing is below
    every candidate's cost; the floor counted with the groups of interchangeable calls is below every
    repeat-aware candidate's cost (the exits in ``_pairing`` skip candidates on these bounds)."""
    from pathjudge.rubrics.path import (
        _chain_dp,
        _constrained_search,
        _cost_floor,
        _interchangeable,
        _max_weight_matching,
        _order_breakers,
        _order_of,
        _pairing_cost,
        _repeat_candidates,
        _Search,
    )

    mode = reference.mode
    refs = compile_reference(reference)
    # also every run as one call per turn (the chain search) and as one parallel turn
    for steps in (
        run.steps,
        tuple(s.model_copy(update={"turn": i}) for i, s in enumerate(run.steps)),
        tuple(s.model_copy(update={"turn": 0}) for s in run.steps),
    ):
        marks = {repeat for _, repeat in redundant_calls(run)}
        charged = frozenset() if mode in ("strict", "unordered", "subset") else marks
        n_refs, n_calls = len(refs), len(steps)
        weigher, matches, weights = _candidate_pairs(refs, steps)
        groups = _interchangeable(matches)
        every = list(range(n_refs)), list(range(n_calls))
        candidates = [_max_weight_matching(weights, *every)]
        search = _Search(steps, refs, mode, matches, weights, charged, costs, weigher.pair_weight)
        repeat_aware = _repeat_candidates(
            replace(search, charged=charged or frozenset({0})), groups
        )
        consistent = None
        if mode in ("strict", "in_order", "partial_order"):
            topo, ancestors, allowed, _ = _order_of(steps, refs, mode)
            oks = {key: w for key, w in weights.items() if matches[key].ok}
            turns = [s.turn for s in steps]
            if mode != "partial_order" and len(set(turns)) == len(turns):
                ordered = _chain_dp(oks, n_refs, n_calls)
            else:
                ordered, truncated = _constrained_search(oks, topo, ancestors, allowed)
                assert not truncated
            consistent = len(ordered)
            candidates.append(dict(ordered))
            lates = [
                _order_breakers(p, topo, ancestors, allowed, set(oks))
                for p in [*candidates, *repeat_aware]
            ]
        else:
            lates = [set() for _ in [*candidates, *repeat_aware]]
        cost = [
            _pairing_cost(search, p, late)
            for p, late in zip([*candidates, *repeat_aware], lates, strict=True)
        ]
        floor = _cost_floor(search, consistent)
        assert floor <= min(cost)
        grouped = _cost_floor(search, consistent, groups)
        assert grouped <= min(cost[len(candidates) :])


@settings(max_examples=500, deadline=None)
@given(
    st.dictionaries(
        st.tuples(st.integers(0, 3), st.integers(0, 4)),
        st.sampled_from([1.0, 2.0, 2.5, 3.0]),
        max_size=10,
    ),
    st.booleans(),
)
def test_star_matching_equals_the_assignment(
    weights: dict[tuple[int, int], float], nudged: bool
) -> None:
    """The star exit of the maximum-weight matching gives the assignment's matching, ties included
    (with ties it must leave the choice to the assignment)."""
    from pathjudge.rubrics.path import _max_weight_matching

    if nudged:  # the aligner's preference for earlier calls
        weights = {(r, c): w - c * 1e-9 for (r, c), w in weights.items()}
    assert _max_weight_matching(weights) == _max_weight_matching(weights, exits=False)
    for refs, calls in (([0, 1], [1, 2, 3]), ([2], [0, 4]), ([], [0])):
        quick = _max_weight_matching(weights, refs, calls)
        assert quick == _max_weight_matching(weights, refs, calls, exits=False)


@settings(max_examples=400, deadline=None)
@given(
    st.integers(min_value=0, max_value=6).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.integers(0, 3), min_size=8, max_size=8),  # the turn of each call
            st.lists(st.sampled_from([None, *range(8)]), min_size=n, max_size=n),
            # whether each pair fully matches (mostly)
            st.lists(st.sampled_from([True, True, True, False]), min_size=n, max_size=n),
        )
    )
)
def test_order_breakers_of_a_chain_equal_the_longest_subsequence(
    drawn: tuple[int, list[int], list[int | None], list[bool]],
) -> None:
    """In a chain (strict, in_order) the steps out of order are the orphans plus the fully matching
    steps off one longest order-consistent subsequence, written out here the plain way (the aligner
    skips the search when the calls already keep the order)."""
    from pathjudge.rubrics.path import _chain_order, _order_breakers

    n, turns, calls, oks = drawn
    paired: dict[int, int] = {}
    for r, c in enumerate(calls):
        if c is not None and c not in paired.values():
            paired[r] = c
    ok_pairs = {(r, c) for r, c in paired.items() if oks[r]}
    topo, ancestors = _chain_order(n)

    def allowed(a: int, b: int) -> bool:
        return turns[a] <= turns[b]

    kept = [r for r in topo if r in paired and (r, paired[r]) in ok_pairs]
    orphans = {r for r in kept if not ancestors[r] <= set(kept)}
    best: list[tuple[int, int]] = []
    for i, r in enumerate(kept):
        length, prev = 1, -1
        for j in range(i):
            if allowed(paired[kept[j]], paired[r]) and best[j][0] + 1 > length:
                length, prev = best[j][0] + 1, j
        best.append((length, prev))
    keep: set[int] = set()
    if best:
        end = max(range(len(kept)), key=lambda i: (best[i][0], -i))
        while end != -1:
            keep.add(kept[end])
            end = best[end][1]
    expected = orphans | {r for r in kept if r not in keep}
    assert _order_breakers(paired, topo, ancestors, allowed, ok_pairs) == expected


# A one-step reference (BFCL's simple categories) and a run that made several calls of its tool.
one_step_calls = st.lists(
    st.builds(
        Step,
        tool=st.sampled_from(["a", "a", "b"]),
        turn=st.integers(0, 2),
        arguments=st.fixed_dictionaries(
            {"v": st.sampled_from(VALUES), "w": st.sampled_from(VALUES)}
        ),
    ),
    max_size=9,
)


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(MODES),
    st.sampled_from([{"v": "x"}, {"v": "x", "w": "y"}, {}]),
    one_step_calls,
    st.sampled_from([FaultCosts(), FaultCosts(missing=30, wasted=5)]),
)
def test_a_wrong_count_of_calls_for_one_step_aligns_as_the_plain_search(
    mode: Any, args: dict[str, Any], steps: list[Step], costs: FaultCosts
) -> None:
    reference = ReferencePath.model_validate({"mode": mode, "steps": [{"tool": "a", "args": args}]})
    refs = compile_reference(reference)
    steps = sorted(steps, key=lambda s: s.turn)  # in issue order
    run = RunRecord(run_id="r", task_id="t", steps=tuple(steps))
    marks = [repeat for _, repeat in redundant_calls(run)]
    quick = align_calls(run.steps, refs, mode, costs=costs, redundant=marks)
    plain = _align(run.steps, refs, mode, "reference", None, costs, marks, None, False)
    assert quick == plain
    assert quick.reason == plain.reason


def test_a_wrong_count_after_the_right_call_matches_no_further_call() -> None:
    # BFCL's checker fails a simple entry with two calls at once; the aligner pairs the first full
    # match and asks the matcher about no later call (it would weigh less whatever it said)
    (ref,) = compile_reference(
        ReferencePath.model_validate({"mode": "strict", "steps": [{"tool": "a", "args": {"v": 1}}]})
    )
    asked: list[Any] = []

    def matcher(call: Step) -> Any:
        asked.append(call.arguments["v"])
        return ref.matcher(call)

    counting = replace(ref, matcher=matcher)
    calls = tuple(Step(tool="a", arguments={"v": v}) for v in (2, 1, 3, 1, 4))
    result = align_calls(calls, [counting], "strict")
    assert asked == [2, 1]
    assert not result.satisfied
    assert [p.call for p in result.pairs] == [1]
    assert result.extra == (0, 2, 3, 4)
