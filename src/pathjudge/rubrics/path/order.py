"""The order an ordered mode imposes (strict, in_order, partial_order), and the steps that break it.

One rule for every ordered mode: ``strict`` and ``in_order`` are the chain where each step depends on
all the steps before it; ``partial_order`` declares its dependencies with ``after``. A call may serve a
step after another's when it comes in a later turn or the same one (parallel calls are unordered).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Mapping, Sequence

from pathjudge.agent.trajectory import Step
from pathjudge.rubrics.path.spec import Mode, RefSpec, _topology


def _order_of(
    steps: Sequence[Step], refs: Sequence[RefSpec], mode: Mode
) -> tuple[Sequence[int], Sequence[frozenset[int]], Callable[[int, int], bool], bool]:
    """The order an order-constrained mode imposes: a topological order of the steps, each step's
    ancestors, whether call ``b`` may serve a step after one served by call ``a``, and whether the
    order is a chain (each step after all the steps before it: strict, in_order, or a partial
    order whose ``after`` edges form one)."""
    turns = [s.turn for s in steps]

    # A call may serve a step that depends on another's when it comes in a later turn, or in the same
    # turn (parallel calls are unordered): the same rule for every ordered mode.
    def allowed_turns(a: int, b: int) -> bool:
        return turns[a] <= turns[b]

    if mode == "partial_order":
        topo, ancestors, chain = _declared_order(tuple([(ref.label, ref.after) for ref in refs]))
        return topo, ancestors, allowed_turns, chain
    topo, ancestors = _chain_order(len(refs))
    return topo, ancestors, allowed_turns, True


@functools.lru_cache(maxsize=256)
def _chain_order(n_refs: int) -> tuple[tuple[int, ...], tuple[frozenset[int], ...]]:
    """The order of strict and in_order: each step after all the steps before it (shared, immutable)."""
    return tuple(range(n_refs)), tuple([frozenset(range(r)) for r in range(n_refs)])


@functools.lru_cache(maxsize=1024)
def _declared_order(
    shape: tuple[tuple[str, tuple[str, ...]], ...],
) -> tuple[tuple[int, ...], tuple[frozenset[int], ...], bool]:
    """:func:`_topology` of the steps ``(label, after)`` of a partial order, and whether it is a
    chain (shared, immutable; a bounded cache keyed by the reference's labels and dependencies)."""
    topo, ancestors = _topology(shape)
    return tuple(topo), tuple(ancestors), _is_chain(topo, ancestors)


def _is_chain(topo: Sequence[int], ancestors: Sequence[frozenset[int]]) -> bool:
    """Whether each step's ancestors are all the steps before it (``topo`` is a topological order,
    so a step's ancestors all come before it: there are ``k`` of them exactly when they are all)."""
    return all(len(ancestors[r]) == k for k, r in enumerate(topo))


def _order_breakers(
    paired: Mapping[int, int],
    topo: Sequence[int],
    ancestors: Sequence[frozenset[int]],
    allowed: Callable[[int, int], bool],
    ok_pairs: set[tuple[int, int]],
    chain: bool | None = None,
) -> set[int]:
    """The paired steps that are out of order (``chain``: whether the order is a chain, see
    :func:`_is_chain`; ``None``: worked out here).

    A fully matching step is out of order when a step it depends on never happened (it is unpaired,
    or paired with a call whose arguments differ), or when its call breaks the order: for a chain
    (every step depends on all the steps before it in ``topo``, as in strict and in_order), the fewest
    steps to drop so the rest keep the order (longest order-consistent subsequence); for any other
    partial order, each step whose call comes before a call of a step it depends on.
    """
    kept = [r for r in topo if r in paired and (r, paired[r]) in ok_pairs]
    happened = set(kept)
    orphans = {r for r in kept if not ancestors[r] <= happened}
    if chain is None:
        chain = _is_chain(topo, ancestors)
    if not chain:
        return orphans | {
            r
            for r in kept
            if any(a in paired and not allowed(paired[a], paired[r]) for a in ancestors[r])
        }
    if all(allowed(paired[a], paired[b]) for a, b in itertools.pairwise(kept)):
        # each call allowed after the one before it (``allowed``, turns not going back, is
        # transitive): the longest order-consistent subsequence is all of them
        return orphans
    best: list[tuple[int, int]] = []
    for i, r in enumerate(kept):
        length, prev = 1, -1
        for j in range(i):
            if allowed(paired[kept[j]], paired[r]) and best[j][0] + 1 > length:
                length, prev = best[j][0] + 1, j
        best.append((length, prev))
    if not best:
        return set()
    end = max(range(len(kept)), key=lambda i: (best[i][0], -i))
    keep: set[int] = set()
    while end != -1:
        keep.add(kept[end])
        end = best[end][1]
    return orphans | {r for r in kept if r not in keep}
