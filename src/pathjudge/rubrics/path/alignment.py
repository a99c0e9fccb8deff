"""The alignment of a run with a reference path: :class:`PathAlignment`, built by :func:`align_calls`.

:func:`align_calls` (and :func:`align_view` for the calls in a scope) computes the candidate pairs,
takes the cheap exits (the diagonal, a pairing with no choice in it, a one-step reference), pairs the
calls (:mod:`~pathjudge.rubrics.path.pairing`) and scores the faults. :func:`align_path` and
:func:`score_paths` do the same for declarative references; :func:`best_alignment` picks among
several.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from itertools import filterfalse
from typing import Any

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics.assertions.base import FrozenDict
from pathjudge.rubrics.path.explain import _diff_lines, _reason
from pathjudge.rubrics.path.pairing import (
    _cost,
    _pairing,
    _Search,
    _tally,
    _unique_pairing,
    _weights_for,
)
from pathjudge.rubrics.path.records import PairedStep, StepMatch
from pathjudge.rubrics.path.spec import (
    _DEFAULT_COSTS,
    _FORBIDS_EXTRA,
    _REQUIRES_ALL,
    FaultCosts,
    Mode,
    ReferencePath,
    RefSpec,
    compile_reference,
)

__all__ = [
    "AlignCache",
    "PathAlignment",
    "align_calls",
    "align_path",
    "align_view",
    "best_alignment",
    "score_paths",
]


_NO_CALLS: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class PathAlignment:
    """The alignment of one run with one reference path: the diff, the faults and the path score.

    - ``satisfied``: whether the run meets the mode exactly: every required step matched, in order
      where order matters, no forbidden extra and no wasted call (the step budget is judged apart);
    - ``score``: the path score, 100 minus fault costs, floored at 0;
    - ``pairs``: reference steps paired with calls, in reference order; ``missing``: reference steps
      paired with no call; ``extra``: calls paired with no reference step; ``wasted``: calls charged
      as wasted; ``out_of_order``: reference steps present only out of order;
    - ``faults``: count per fault kind (missing, wasted, over_budget, wrong_order);
    - ``search_truncated``: True when the exact search hit its node limit;
    - :attr:`reason`: why, in words that reproduce the score (built when asked for).
    """

    reference: str
    mode: Mode
    satisfied: bool
    score: int
    pairs: tuple[PairedStep, ...]
    missing: tuple[str, ...]
    extra: tuple[int, ...]
    wasted: tuple[int, ...]
    out_of_order: tuple[str, ...]
    over_budget: bool
    order_fault: bool
    faults: Mapping[str, int]
    search_truncated: bool = False
    n_refs: int = 0
    n_calls: int = 0
    budget: int | None = None
    costs: FaultCosts = field(default_factory=lambda: _DEFAULT_COSTS)
    stated_reason: str | None = None

    @property
    def reason(self) -> str:
        """Why, in words that reproduce the score (``stated_reason`` for one read back from JSON)."""
        if self.stated_reason is not None:
            return self.stated_reason
        return _reason(
            self.reference,
            self.mode,
            self.n_refs,
            self.pairs,
            self.missing,
            self.extra,
            self.wasted,
            self.out_of_order,
            self.over_budget,
            self.order_fault,
            self.n_calls,
            self.budget,
            self.faults,
            self.costs,
            self.score,
        )

    @property
    def argument_diffs(self) -> tuple[PairedStep, ...]:
        return tuple(p for p in self.pairs if p.diffs)

    def diff_lines(self) -> list[str]:
        """The alignment diff as short human-readable lines (for JUnit, pytest and terminal output)."""
        return _diff_lines(self.pairs, self.missing, self.extra, self.wasted)

    def to_dict(self) -> dict[str, Any]:
        """The alignment as plain JSON-ready data (the shape of the JSON report)."""
        return {
            "reference": self.reference,
            "mode": self.mode,
            "satisfied": self.satisfied,
            "score": self.score,
            "pairs": [p.to_dict() for p in self.pairs],
            "missing": list(self.missing),
            "extra": list(self.extra),
            "wasted": list(self.wasted),
            "out_of_order": list(self.out_of_order),
            "over_budget": self.over_budget,
            "order_fault": self.order_fault,
            "faults": dict(self.faults),
            "search_truncated": self.search_truncated,
            "reason": self.reason,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PathAlignment:
        """An alignment read back from its :meth:`to_dict` form (validated; raises
        ``pydantic.ValidationError``)."""
        fields = dict(data)
        reason = fields.pop("reason", None)
        if isinstance(reason, str):
            fields["stated_reason"] = reason
        alignment: PathAlignment = _alignment_adapter().validate_python(fields)
        object.__setattr__(alignment, "faults", FrozenDict(alignment.faults))
        return alignment


@functools.cache
def _alignment_adapter() -> Any:
    """Built on first use (a PathAlignment is read back only by ``from_dict``)."""
    from pydantic import TypeAdapter

    return TypeAdapter(PathAlignment)


class AlignCache:
    """A bounded cache of what aligning depends on beyond the run's own diffs, for one reference.

    Owned by whoever grades many runs against one reference (a task plan); keyed by content, never by
    object identity: the fully matching alignment, for a given name, mode, budget and costs. When
    ``limit`` entries are stored the cache is emptied and refilled. (The pairing chosen for a run
    shape is not kept: its key cost more to build than the rare hit saved.)
    """

    __slots__ = ("_diagonal", "limit")

    def __init__(self, limit: int = 1024) -> None:
        self.limit = limit
        self._diagonal: dict[tuple[object, ...], PathAlignment] = {}

    def __len__(self) -> int:
        return len(self._diagonal)

    def __getstate__(self) -> int:
        return self.limit  # a cache travels empty

    def __setstate__(self, limit: int) -> None:
        self.__init__(limit)  # type: ignore[misc]


def align_calls(
    steps: Sequence[Step],
    refs: Sequence[RefSpec],
    mode: Mode,
    *,
    name: str = "reference",
    budget: int | None = None,
    costs: FaultCosts | None = None,
    redundant: Iterable[int] = (),
    cache: AlignCache | None = None,
) -> PathAlignment:
    """Align a run's calls with one reference path under ``mode`` and score the path.

    ``redundant`` holds the indices of calls that repeat an earlier call (see the step checks); unpaired
    ones are charged as wasted. ``budget=None`` means no step budget. Empty input: see the module doc.

    Cheap exits, each giving exactly what the full search gives (pinned by property tests): calls that
    fully match the reference one to one (no other pairing can beat it in any mode); a pairing with
    no choice in it (each step has at most one candidate call of its tool and each call at most one
    candidate step: every candidate of the search is that same pairing); and a one-step reference
    with no repeat to charge (every candidate is the best-weighted call, and the calls after the
    first that fully matches are never matched: a wrong count costs no more work). ``cache`` (one per
    reference) keeps the fully matching alignment of a run whose matches carry no diff.
    """
    return _align(steps, refs, mode, name, budget, costs, redundant, cache, True)


def _align(
    steps: Sequence[Step],
    refs: Sequence[RefSpec],
    mode: Mode,
    name: str,
    budget: int | None,
    costs: FaultCosts | None,
    redundant: Iterable[int],
    cache: AlignCache | None,
    exits: bool,
    view: Sequence[int] | None = None,
) -> PathAlignment:
    """:func:`align_calls`; ``exits=False`` takes no cheap exit (the plain path the tests pin the
    cheap exits to). ``view``: align only these calls (see :func:`align_view`; ``redundant`` then
    holds positions in the view)."""
    costs = costs or _DEFAULT_COSTS
    n_all = len(steps)
    if view is not None:
        steps = [steps[i] for i in view]
    # 1. The diagonal: call i fully matches reference step i for every i. The matches it computed
    # are reused below.
    known: list[StepMatch] = []
    if (
        exits
        and len(refs) == len(steps)
        and (mode != "partial_order" or not any(ref.after for ref in refs))
    ):
        plain = _diagonal(steps, refs, known)
        if plain is not None:
            return _diagonal_alignment(
                known, plain, name, mode, refs, budget, costs, cache, view, n_all
            )
    redundant_set = set(redundant)
    # Where only repeats are charged when left over (see _repeat_candidates).
    charged = _NO_CALLS if mode in _FORBIDS_EXTRA or not redundant_set else frozenset(redundant_set)
    # one step and no repeat to charge: the pairing is its best-weighted call (see _choose_pairing),
    # so a run that made the right call and then more (a wrong count, decided already) is matched no
    # further
    single = exits and len(refs) == 1 and not charged
    # 2. The candidate pairs, 3. the pairing, 4. the faults and the score.
    matches, conflict = _candidate_matches(steps, refs, known, single)
    paired, late, truncated = _choose_pairing(
        steps, refs, mode, matches, charged, costs, exits, conflict, single
    )
    pairs, missing, out_of_order, mismatched = _paired_steps(refs, matches, paired, late, view)
    extra, wasted = _leftover_calls(mode, paired, len(steps), redundant_set, view)
    n_missing, wasted_count, order_fault = _tally(
        mode, len(missing), mismatched, len(wasted), bool(out_of_order)
    )
    over = budget is not None and n_all > budget  # (every call of the run counts)
    faults = FrozenDict(  # frozen: a cached alignment is shared by every run of the same shape
        missing=n_missing, wasted=wasted_count, over_budget=int(over), wrong_order=int(order_fault)
    )
    score = max(
        0,
        100
        - _cost(costs, n_missing, wasted_count, order_fault)
        - (costs.over_budget if over else 0),
    )
    order_matters = mode == "strict" or mode == "in_order" or mode == "partial_order"
    satisfied = (
        not mismatched
        and not (mode in _REQUIRES_ALL and missing)
        and not (mode in _FORBIDS_EXTRA and extra)
        and not (order_matters and out_of_order)
        and not wasted
    )
    return PathAlignment(
        name,
        mode,
        satisfied,
        score,
        tuple(pairs),
        tuple(missing),
        tuple(extra),
        tuple(wasted),
        tuple(out_of_order),
        over,
        order_fault,
        faults,
        truncated,
        len(refs),
        n_all,
        budget,
        costs,
    )


def _candidate_matches(
    steps: Sequence[Step], refs: Sequence[RefSpec], known: Sequence[StepMatch], single: bool
) -> tuple[dict[tuple[int, int], StepMatch], bool]:
    """The match of every step with every call of its tool (in step order, then call order; the
    match of call i with step i taken from ``known`` when there), and whether the pairing has a
    choice in it: a step with several candidate calls, or a call with several candidate steps (a
    tool of several steps that has a call). ``single`` (one step, no repeat to charge): its calls
    after the first full match are not matched."""
    n_known = len(known)
    matches: dict[tuple[int, int], StepMatch] = {}
    tools = [step.tool for step in steps]
    conflict = False
    claimed: set[str] = set()  # the tools of the steps seen so far that have a candidate
    for r, ref in enumerate(refs):
        tool = ref.tool
        count = tools.count(tool)
        if not count:
            continue
        if count == 1:
            candidates: Iterable[int] = (tools.index(tool),)
            if tool in claimed:
                conflict = True
            else:
                claimed.add(tool)
        else:
            candidates = [c for c, t in enumerate(tools) if t == tool]
            conflict = True
        for c in candidates:
            m = matches[(r, c)] = known[r] if r == c and r < n_known else ref.matcher(steps[c])
            if m.ok and single:
                break  # the one step's first full match outweighs every later call (see _choose_pairing)
    return matches, conflict


def _choose_pairing(
    steps: Sequence[Step],
    refs: Sequence[RefSpec],
    mode: Mode,
    matches: dict[tuple[int, int], StepMatch],
    charged: AbstractSet[int],
    costs: FaultCosts,
    exits: bool,
    conflict: bool,
    single: bool,
) -> tuple[Mapping[int, int], AbstractSet[int], bool]:
    """The pairing of the candidate ``matches`` (ref -> call), the steps paired only out of order,
    and whether the search was truncated (see :func:`_pairing`)."""
    if exits and not conflict:  # (the pairing without a choice in it needs no weights)
        return _unique_pairing(steps, refs, mode, matches)
    weigher = _weights_for(max(len(refs), len(steps)))
    # A vanishing preference for earlier calls: among equally good pairings the first of
    # several identical calls is paired, so a repeat is the one left over (and wasted).
    weights = {key: weigher.of(m) - key[1] * 1e-9 for key, m in matches.items()}
    if single:
        # One step, no repeat to charge: every candidate the search builds is the
        # best-weighted call (a full match first, then the best score, then the earliest),
        # and one pair is in order. So the calls after its first full match, which weigh
        # less, were never matched.
        best = max(weights, key=weights.__getitem__)
        return {0: best[1]}, frozenset(), False
    return _pairing(
        _Search(steps, refs, mode, matches, weights, charged, costs, weigher.pair_weight, exits)
    )


def _paired_steps(
    refs: Sequence[RefSpec],
    matches: Mapping[tuple[int, int], StepMatch],
    paired: Mapping[int, int],
    late: AbstractSet[int],
    view: Sequence[int] | None,
) -> tuple[list[PairedStep], list[str], list[str], int]:
    """The pairs in reference order (calls named by their index in the run), the steps paired with
    no call, the steps paired only out of order, and how many pairs do not fully match."""
    pairs: list[PairedStep] = []
    missing: list[str] = []
    out_of_order: list[str] = []
    mismatched = 0
    for r, ref in enumerate(refs):
        call = paired.get(r)
        in_order = r not in late
        if call is None:
            missing.append(ref.label)
            continue
        m = matches[(r, call)]
        if not in_order:
            out_of_order.append(ref.label)
        if not m.ok:
            mismatched += 1
        pairs.append(
            PairedStep(
                ref.label, call if view is None else view[call], ref.tool, m.ok, in_order, m.diffs
            )
        )
    return pairs, missing, out_of_order, mismatched


def _leftover_calls(
    mode: Mode,
    paired: Mapping[int, int],
    n_calls: int,
    redundant: AbstractSet[int],
    view: Sequence[int] | None,
) -> tuple[list[int], list[int]]:
    """The calls paired with no step, in call order, and those of them charged as wasted: each one
    where extras are forbidden, elsewhere only the repeats among them (indices in the run)."""
    used_calls = set(paired.values())
    extra = (
        []
        if len(used_calls) == n_calls
        else list(filterfalse(used_calls.__contains__, range(n_calls)))
    )
    if mode in _FORBIDS_EXTRA:
        wasted = extra
    else:
        wasted = list(filter(redundant.__contains__, extra)) if redundant and extra else []
    if view is not None and extra:
        extra = [view[c] for c in extra]
        wasted = [view[c] for c in wasted]
    return extra, wasted


def align_view(
    steps: Sequence[Step],
    view: Sequence[int] | None,
    refs: Sequence[RefSpec],
    mode: Mode,
    *,
    name: str = "reference",
    budget: int | None = None,
    costs: FaultCosts | None = None,
    redundant: Iterable[int] = (),
    cache: AlignCache | None = None,
) -> PathAlignment:
    """:func:`align_calls` of the calls in ``view`` (indices into ``steps``; ``None``: every call).

    The calls outside the view are invisible to the alignment: neither paired, nor extra, nor wasted.
    ``redundant`` holds *positions in the view* of the calls that repeat an earlier call in the view.
    Every index in the result is the call's index in ``steps``, and the step budget is judged on
    every call of the run (see :mod:`pathjudge.rubrics.scope`).
    """
    return _align(steps, refs, mode, name, budget, costs, redundant, cache, True, view)


def _diagonal(
    steps: Sequence[Step], refs: Sequence[RefSpec], found: list[StepMatch]
) -> bool | None:
    """Whether call i fully matches reference step i for every i: ``None`` when not, else whether
    none of the matches carries a diff. Appends to ``found`` the match of call i with step i for
    each i it compares (every i when they all match; up to the first that does not, when it has
    the step's tool)."""
    plain = True
    for ref, step in zip(refs, steps, strict=True):
        if ref.tool != step.tool:
            return None
        m = ref.matcher(step)
        found.append(m)
        if not m.ok:
            return None
        if m.diffs:
            plain = False
    return plain


def _diagonal_alignment(
    found: list[StepMatch],
    plain: bool,
    name: str,
    mode: Mode,
    refs: Sequence[RefSpec],
    budget: int | None,
    costs: FaultCosts,
    cache: AlignCache | None,
    view: Sequence[int] | None = None,
    n_all: int | None = None,
) -> PathAlignment:
    """The alignment where call i fully matches reference step i (``found`` holds those matches;
    ``plain``: none has a diff, so the alignment is the same for every such run; ``view``: the
    calls are these of the run's ``n_all``, see :func:`align_view`)."""
    key: tuple[object, ...] | None = None
    if plain and cache is not None and view is None:
        key = (
            name,
            mode,
            budget,
            costs.missing,
            costs.wasted,
            costs.over_budget,
            costs.wrong_order,
        )
        known = cache._diagonal.get(key)
        if known is not None:
            return known
    n = len(refs)
    if view is None or n_all is None:
        calls: Sequence[int] = range(n)
        n_all = n
    else:
        calls = view
    over = budget is not None and n_all > budget
    faults = FrozenDict(missing=0, wasted=0, over_budget=int(over), wrong_order=0)
    score = 100 - (costs.over_budget if over else 0)
    alignment = PathAlignment(
        name, mode, True, max(0, score),
        tuple([PairedStep(ref.label, c, ref.tool, True, True, m.diffs) for ref, c, m in zip(refs, calls, found, strict=True)]),
        (), (), (), (), over, False, faults, False, n, n_all, budget, costs,
    )  # fmt: skip
    if key is not None and cache is not None:
        if len(cache._diagonal) >= cache.limit:
            cache._diagonal.clear()
        cache._diagonal[key] = alignment
    return alignment


def _rank(alignment: PathAlignment) -> tuple[int, bool, int]:
    """Order of preference among references: higher score, then satisfied, then fewer faults."""
    return alignment.score, alignment.satisfied, -sum(alignment.faults.values())


def best_alignment(alignments: Sequence[PathAlignment]) -> PathAlignment:
    """The best of several references: highest score, then satisfied, then fewest faults, then first.

    Raises ``ValueError`` on an empty sequence (a task without references has no path score).
    """
    if not alignments:
        raise ValueError("best_alignment needs at least one alignment")
    return max(alignments, key=_rank)  # max keeps the first of equals


def align_path(
    run: RunRecord | Sequence[Step],
    reference: ReferencePath,
    *,
    budget: int | None = None,
    costs: FaultCosts | None = None,
    redundant: Iterable[int] = (),
    name: str | None = None,
) -> PathAlignment:
    """Align a run (or its steps) with one declarative reference; see :func:`align_calls`."""
    steps = run.steps if isinstance(run, RunRecord) else run
    return align_calls(
        steps,
        compile_reference(reference),
        reference.mode,
        name=name or reference.name or "reference",
        budget=budget,
        costs=costs,
        redundant=redundant,
    )


def score_paths(
    run: RunRecord | Sequence[Step],
    references: Sequence[ReferencePath],
    *,
    budget: int | None = None,
    costs: FaultCosts | None = None,
    redundant: Iterable[int] = (),
) -> PathAlignment | None:
    """The best alignment over several acceptable references; ``None`` when there are none."""
    if not references:
        return None
    marks = tuple(redundant)
    return best_alignment(
        [
            align_path(
                run,
                ref,
                budget=budget,
                costs=costs,
                redundant=marks,
                name=ref.name or f"reference {i + 1}",
            )
            for i, ref in enumerate(references)
        ]
    )
