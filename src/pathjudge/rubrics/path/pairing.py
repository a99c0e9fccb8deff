"""The optimal pairing of a run's calls with the reference steps, and what a pairing costs.

The candidates (see :mod:`pathjudge.rubrics.path`) are built from the solvers of
:mod:`~pathjudge.rubrics.path.assignment` over lexicographic pair weights (:class:`_Weights`), in
their order of preference; the one with the lowest fault cost (:func:`_pairing_cost`, by the same
:func:`_tally` and :func:`_cost` that score the final alignment) is kept, ties keeping the earlier.
Cheap exits stop when no later candidate can cost less (:func:`_cost_floor`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import assert_never

from pathjudge.agent.trajectory import Step
from pathjudge.rubrics.path.assignment import _chain_dp, _constrained_search, _max_weight_matching
from pathjudge.rubrics.path.order import _order_breakers, _order_of
from pathjudge.rubrics.path.records import StepMatch
from pathjudge.rubrics.path.spec import _FORBIDS_EXTRA, _REQUIRES_ALL, FaultCosts, Mode, RefSpec


class _Weights:
    """Lexicographic pair weights: fully matching pairs first, then any same-tool pair, then score."""

    __slots__ = ("ok_weight", "pair_weight")

    def __init__(self, n: int) -> None:
        self.pair_weight = float(2 * (n + 1))
        self.ok_weight = self.pair_weight * float(2 * (n + 1))

    def of(self, match: StepMatch) -> float:
        if match.ok:
            return self.ok_weight + self.pair_weight + 1.0
        return self.pair_weight + max(0.0, min(1.0, match.score))


_weights_for = functools.lru_cache(maxsize=256)(_Weights)
"""The (immutable) weights for ``n`` steps or calls, built once per ``n``."""


def _tally(
    mode: Mode, missing: int, mismatched: int, wasted: int, late: bool
) -> tuple[int, int, bool]:
    """The fault counts of a pairing: (missing steps, wasted calls, wrong order).

    ``missing``: reference steps paired with no call; ``mismatched``: pairs whose call does not fully
    match; ``wasted``: leftover calls charged as wasted (every leftover where extras are forbidden, else
    the leftover repeats); ``late``: whether some step is paired only out of order. Where every step is
    required, a mismatched pair costs a missing step; where steps may be left out but other calls may
    not (subset), a mismatched call is wasted. In every ordered mode the order is broken when some
    step is out of order (``late``), which covers a step whose prerequisite is missing or mismatched.
    """
    requires_all = mode in _REQUIRES_ALL
    n_missing = missing + mismatched if requires_all else 0
    if mode in _FORBIDS_EXTRA and not requires_all:
        wasted += mismatched
    # one rule for every ordered mode: wrong order when some step is out of order (its call breaks
    # the order, or a step it depends on never happened; see _order_breakers)
    order_fault = (mode == "strict" or mode == "in_order" or mode == "partial_order") and late
    return n_missing, wasted, order_fault


def _cost(costs: FaultCosts, n_missing: int, wasted: int, order_fault: bool) -> int:
    """The points a pairing's faults cost (the step budget, the same for every pairing, apart)."""
    return (
        costs.missing * n_missing
        + costs.wasted * wasted
        + (costs.wrong_order if order_fault else 0)
    )


def _unique_pairing(
    steps: Sequence[Step],
    refs: Sequence[RefSpec],
    mode: Mode,
    matches: Mapping[tuple[int, int], StepMatch],
) -> tuple[Mapping[int, int], AbstractSet[int], bool]:
    """:func:`_pairing` when there is no choice: every step has at most one candidate call and every
    call at most one candidate step, so every candidate the search builds is this pairing."""
    paired = dict(matches.keys())
    if mode == "strict" or mode == "in_order" or mode == "partial_order":
        topo, ancestors, allowed, chain = _order_of(steps, refs, mode)
        ok_pairs = {key for key, m in matches.items() if m.ok}
        return paired, _order_breakers(paired, topo, ancestors, allowed, ok_pairs, chain), False
    return paired, frozenset(), False


@dataclass(frozen=True, slots=True)
class _Search:
    """One pairing search: what every step of it reads (see :func:`_pairing`).

    ``steps``: the run's calls; ``refs``: the compiled reference steps; ``matches``: the candidate
    pairs (ref, call) with how the call compares with the step; ``weights``: their lexicographic
    weights (see :class:`_Weights`, with ``pair_weight`` one pair's unit); ``charged``: the calls
    charged as wasted when left over (the repeats, where only leftover repeats are charged);
    ``costs``: what each fault costs; ``exits``: whether the cheap exits are taken.
    """

    steps: Sequence[Step]
    refs: Sequence[RefSpec]
    mode: Mode
    matches: Mapping[tuple[int, int], StepMatch]
    weights: dict[tuple[int, int], float]
    charged: AbstractSet[int]
    costs: FaultCosts
    pair_weight: float
    exits: bool = True


def _pairing(search: _Search) -> tuple[Mapping[int, int], AbstractSet[int], bool]:
    """The optimal pairing (ref -> call), the refs paired only out of order, and whether the search
    was truncated (see the module docstring).

    Cheap exits (``search.exits``), each keeping the pairing the full comparison keeps: the
    candidates are built in their order of preference, and the best so far is kept without building
    the others when no later candidate can cost less (ties keep the earlier one): when it already
    costs :func:`_cost_floor` (in an ordered mode counted with the most fully matching pairs an
    order-consistent pairing has), or, before the repeat-aware candidates, when it costs no more
    than the floor of the pairings that use the earliest calls of every group of interchangeable
    calls (which those candidates all are)."""
    mode = search.mode
    if mode == "strict" or mode == "in_order" or mode == "partial_order":
        return _ordered_pairing(search)
    elif mode == "unordered" or mode == "subset" or mode == "superset":
        return _unordered_pairing(search)
    else:
        assert_never(mode)


def _ordered_pairing(search: _Search) -> tuple[Mapping[int, int], AbstractSet[int], bool]:
    """:func:`_pairing` in an ordered mode (strict, in_order, partial_order): the order-consistent
    candidate first, then the best regardless of order, then the repeat-aware candidates, each with
    the steps whose call breaks the order marked."""
    matches, exits = search.matches, search.exits
    topo, ancestors, allowed, chained = _order_of(search.steps, search.refs, search.mode)
    ok_pairs = {key for key in search.weights if matches[key].ok}

    def late(pairing: Mapping[int, int]) -> set[int]:
        return _order_breakers(pairing, topo, ancestors, allowed, ok_pairs, chained)

    # 2. The best order-consistent pairing of fully matching calls (the leftover pairing of the
    # steps it leaves may itself break the order: marked too).
    in_order, consistent, truncated = _order_consistent(search, topo, ancestors, allowed)
    in_order_late = late(in_order)
    in_order_cost = _pairing_cost(search, in_order, in_order_late)
    floor = -1
    if exits:
        floor = _cost_floor(search, consistent)
        if in_order_cost <= floor:
            return in_order, in_order_late, truncated
    # 3. The best pairing regardless of order (most fully matching pairs, then most pairs, then
    # scores), with the steps whose call breaks the order marked.
    full = _max_weight_matching(search.weights, exits=exits)
    full_late = late(full)
    candidates: list[tuple[Mapping[int, int], AbstractSet[int]]] = [
        (in_order, in_order_late),
        (full, full_late),
    ]
    if search.charged:
        groups = _interchangeable(matches)
        if exits:
            full_cost = _pairing_cost(search, full, full_late)
            best_cost = min(in_order_cost, full_cost)
            if best_cost <= floor or best_cost <= _cost_floor(search, consistent, groups):
                if in_order_cost <= full_cost:
                    return in_order, in_order_late, truncated
                return full, full_late, truncated
        candidates.extend(
            (pairing, late(pairing)) for pairing in _repeat_candidates(search, groups)
        )
    best, best_late = _cheapest(search, candidates)
    return best, best_late, truncated


def _order_consistent(
    search: _Search,
    topo: Sequence[int],
    ancestors: Sequence[frozenset[int]],
    allowed: Callable[[int, int], bool],
) -> tuple[dict[int, int], int | None, bool]:
    """The best order-consistent pairing of fully matching calls, with the steps it leaves paired
    by the optimal assignment over the leftover calls (for the argument diffs); the number of fully
    matching pairs it has when that is the most of any order-consistent pairing (``exits`` only,
    else ``None``); and whether the search was truncated."""
    matches, weights, exits = search.matches, search.weights, search.exits
    n_refs, n_calls = len(topo), len(search.steps)
    turns = [s.turn for s in search.steps]
    # Among pairings with as many fully matching pairs, prefer those that leave the *later*
    # steps over (a step whose prerequisite never happened is out of order): a bonus that falls
    # with the step's topological position, far below one pair and far above the preference
    # for earlier calls.
    step = 0.5 / (n_refs + 1)
    rank = {r: k for k, r in enumerate(topo)}
    ranked = {
        key: w + (n_refs - rank[key[0]]) * step for key, w in weights.items() if matches[key].ok
    }
    truncated = False
    chain = search.mode != "partial_order" and len(set(turns)) == len(turns)
    if chain:
        ordered = _chain_dp(ranked, n_refs, n_calls)
    else:
        ordered, truncated = _constrained_search(ranked, topo, ancestors, allowed)
    # pair what the ordered pairing leaves for the argument diffs
    in_order = dict(ordered)
    taken = set(in_order.values())
    in_order.update(
        _max_weight_matching(
            weights,
            [r for r in range(n_refs) if r not in in_order],
            [c for c in range(n_calls) if c not in taken],
            exits,
        )
    )
    consistent = None
    if exits:
        # ``ordered`` has the most fully matching pairs of any order-consistent pairing when the
        # search was exact and (for the chain) call order is turn order
        exact = not truncated and (
            not chain or all(turns[i] < turns[i + 1] for i in range(n_calls - 1))
        )
        consistent = len(ordered) if exact else None
    return in_order, consistent, truncated


def _unordered_pairing(search: _Search) -> tuple[Mapping[int, int], AbstractSet[int], bool]:
    """:func:`_pairing` in a mode without order (unordered, subset, superset): the best pairing
    regardless of order, then the repeat-aware candidates."""
    # 1. The best pairing regardless of order: most fully matching pairs, then most pairs,
    # then scores.
    full = _max_weight_matching(search.weights, exits=search.exits)
    no_late: set[int] = set()
    candidates: list[tuple[Mapping[int, int], AbstractSet[int]]] = [(full, no_late)]
    if search.charged:
        groups = _interchangeable(search.matches)
        if search.exits:
            full_cost = _pairing_cost(search, full, no_late)
            if full_cost <= _cost_floor(search, None, groups):
                return full, no_late, False
        candidates.extend((pairing, set()) for pairing in _repeat_candidates(search, groups))
    elif search.exits:
        return full, no_late, False  # the only candidate
    best, best_late = _cheapest(search, candidates)
    return best, best_late, False


def _cheapest(
    search: _Search, candidates: Sequence[tuple[Mapping[int, int], AbstractSet[int]]]
) -> tuple[Mapping[int, int], AbstractSet[int]]:
    """The candidate that costs least in the end: order is worth keeping only when it saves more
    than the calls it loses; ties keep the earlier candidate (order-consistent first)."""
    return min(candidates, key=lambda cand: _pairing_cost(search, cand[0], cand[1]))


def _pairing_cost(search: _Search, paired: Mapping[int, int], late: AbstractSet[int]) -> int:
    """The fault cost of a candidate pairing, by the same :func:`_tally` and :func:`_cost` that score
    the final alignment (the step budget is the same for every pairing, so left out)."""
    matches, mode, n_calls = search.matches, search.mode, len(search.steps)
    mismatched = 0
    for key in paired.items():
        if not matches[key].ok:
            mismatched += 1
    used = set(paired.values())  # calls of the run, so the leftovers are the others
    if mode in _FORBIDS_EXTRA:
        wasted = n_calls - len(used)
    else:
        wasted = sum(1 for c in search.charged if c not in used and 0 <= c < n_calls)
    n_missing, wasted_count, fault = _tally(
        mode, len(search.refs) - len(paired), mismatched, wasted, bool(late)
    )
    return _cost(search.costs, n_missing, wasted_count, fault)


def _cost_floor(
    search: _Search,
    consistent: int | None = None,
    groups: Mapping[tuple[tuple[int, bool, float], ...], Sequence[int]] | None = None,
) -> int:
    """A lower bound on :func:`_pairing_cost` over every pairing of the search's candidate pairs.

    Counted from the candidate pairs alone: no pairing has more fully matching pairs than there are
    steps (or calls) with a fully matching candidate, nor more pairs than there are steps (or calls)
    with any candidate; a charged repeat with no candidate step is left over by every pairing. Where
    every step is required, each step without a fully matching call costs a missing step; where
    extras are forbidden, each call left over (or, in subset, each call not fully matched) is wasted.

    ``consistent`` (an ordered mode only): the most fully matching pairs any order-consistent pairing
    has (exact, as the untruncated order-consistent search finds it). A pairing with more fully
    matching pairs than that has a step out of order (see :func:`_order_breakers`), so it costs the
    wrong order or the steps it would have to leave unmatched, whichever is less.

    ``groups`` (the interchangeable calls, see :func:`_interchangeable`): the bound then covers only
    the pairings that use the earliest calls of every group (the repeat-aware candidates): a group
    pairs at most as many calls as it has candidate steps, so its later calls are always left over
    and each charged one among them is wasted.
    """
    mode, costs, charged = search.mode, search.costs, search.charged
    n_refs = len(search.refs)
    ok_refs: set[int] = set()
    ok_calls: set[int] = set()
    any_refs: set[int] = set()
    any_calls: set[int] = set()
    for (r, c), m in search.matches.items():
        any_refs.add(r)
        any_calls.add(c)
        if m.ok:
            ok_refs.add(r)
            ok_calls.add(c)
    most_ok = min(len(ok_refs), len(ok_calls))
    requires_all = mode in _REQUIRES_ALL
    missing = costs.missing * (n_refs - most_ok) if requires_all else 0
    if (
        consistent is not None
        and consistent < most_ok
        and requires_all
        and (mode == "strict" or mode == "in_order" or mode == "partial_order")
    ):
        missing = min(
            costs.missing * (n_refs - consistent),
            costs.missing * (n_refs - most_ok) + costs.wrong_order,
        )
    if mode in _FORBIDS_EXTRA:
        wasted = len(search.steps) - (
            min(len(any_refs), len(any_calls)) if requires_all else most_ok
        )
    else:
        wasted = sum(1 for c in charged if c not in any_calls)
        if groups is not None:
            wasted += sum(
                1 for sig, members in groups.items() for c in members[len(sig) :] if c in charged
            )
    return missing + costs.wasted * wasted


def _interchangeable(
    matches: Mapping[tuple[int, int], StepMatch],
) -> dict[tuple[tuple[int, bool, float], ...], list[int]]:
    """The calls grouped by how they match every reference step (each group in call order): the
    calls of one group are interchangeable in any pairing."""
    signature: dict[int, list[tuple[int, bool, float]]] = {}
    for (r, c), m in sorted(matches.items()):
        signature.setdefault(c, []).append((r, m.ok, m.score))
    groups: dict[tuple[tuple[int, bool, float], ...], list[int]] = {}
    for c in sorted(signature):
        groups.setdefault(tuple(signature[c]), []).append(c)
    return groups


def _repeat_candidates(
    search: _Search, groups: Mapping[tuple[tuple[int, bool, float], ...], list[int]]
) -> list[dict[int, int]]:
    """Pairings that try to leave no repeated call over, for when only leftover repeats are charged.

    The waste of a group of interchangeable calls (calls that match every reference step alike;
    ``groups``, see :func:`_interchangeable`) is its size minus the number paired, except that one
    copy may be left over for free when none is paired. That objective is not a sum over pairs, so
    no single assignment optimises it; three candidates cover it, each moved to the earliest calls
    of every group afterwards (so "the later copy is the repeat" stays true and pairing a repeat
    instead of its original never hides a wasted call): the optimum rewarding pairs that use a
    repeat; the optimum rewarding pairs that use any copy of a repeated call; and first-come pairing
    of steps in order, which pairs the copies of a call in turn. The caller keeps whichever
    candidate costs least. No charged repeat: ``[]``.
    """
    charged, matches, pair_weight = search.charged, search.matches, search.pair_weight
    if not charged:
        return []
    repeated = {
        c for members in groups.values() if any(c in charged for c in members) for c in members
    }

    def rewarded(calls: AbstractSet[int]) -> dict[int, int]:
        # one pair unit per rewarded pair: it outranks the score tie-breaks, never a full match
        bonus = {
            key: w + (pair_weight if key[1] in calls else 0.0) for key, w in search.weights.items()
        }
        return _max_weight_matching(bonus, exits=search.exits)

    first_come: dict[int, int] = {}
    taken: set[int] = set()
    for r in range(len(search.refs)):
        for c in range(len(search.steps)):
            match = matches.get((r, c))
            if match is not None and match.ok and c not in taken:
                first_come[r] = c
                taken.add(c)
                break

    out: list[dict[int, int]] = []
    for pairing in (rewarded(charged), rewarded(repeated), first_come):
        by_call = {c: r for r, c in pairing.items()}
        moved = dict(pairing)
        for members in groups.values():
            used = [c for c in members if c in by_call]
            for target, c in zip(members[: len(used)], used, strict=True):
                moved[by_call[c]] = target
        out.append(moved)
    return out
