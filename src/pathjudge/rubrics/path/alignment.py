"""Reference-path matching: optimal pairing of a run's calls with a reference, and the path score.

A run's tool calls are paired with the steps of a reference path by an *optimal* assignment, never by
greedy first-come pairing: the pairing first maximises the number of calls that fully match their
reference step, then the number of pairs with the right tool (a right tool with wrong arguments is
reported as an argument diff), then the argument match scores (Kuhn-Munkres, pure Python; among equal
pairings the earlier of identical calls is paired, so a repeat is the one left over). That is the
*order-free* optimum. Up to two more kinds of candidate are built beside it:

- when the mode constrains order (strict, in_order, partial_order), the best *order-consistent*
  pairing of fully matching calls (weighted longest common subsequence for a chain; exact branch and
  bound for a partial order or for parallel calls, whose calls of one turn may match in either order),
  with the steps it leaves paired by the same optimal assignment over the leftover calls;
- when leftover repeats are charged (superset, in_order, partial_order with repeated calls),
  *repeat-aware* pairings that try to leave no repeat unpaired, each moved onto the earliest of
  identical calls (see ``_repeat_candidates``).

In the order-constrained modes every candidate's steps whose calls break the order are marked out of
order. The candidate with the lowest final path cost (missing, wasted and wrong-order faults as
scored below) is kept; ties keep the earlier candidate, order-consistent first. So a step is only
called missing when no call could serve it at all, and a valid complete pairing is never missed.

Modes (``actual`` = the run's calls, ``reference`` = the reference steps):

- ``strict``: the same calls in the same order and nothing else.
- ``in_order``: the reference is a subsequence of the run (other calls may come in between).
- ``unordered``: the same multiset of calls, any order.
- ``subset``: every call of the run is a reference step (reference steps may be left out).
- ``superset``: every reference step is among the run's calls (other calls are allowed).
- ``partial_order``: every reference step is among the run's calls and each comes after the steps
  listed in its ``after`` (transitively); steps without constraints may come in any order.

The path score is ``100 - costs`` floored at 0, with one cost per fault (defaults from the path-score
lesson: missing step 25, wasted call 10, over budget 20, wrong order 15):

- *missing*: a reference step with no fully matching call (a call with the right tool but wrong
  arguments is an argument diff and costs a missing step), in the modes that require every step;
- *wasted*: an unpaired call that repeats an earlier call (same tool, same normalised arguments), or,
  in the modes that forbid other calls (strict, unordered, subset), any unpaired call;
- *over budget*: charged once when the run has more calls than the step budget;
- *wrong order*: charged once, when some step is out of order. One rule for every ordered mode
  (``strict`` and ``in_order`` are the chain where each step depends on all the steps before it;
  ``partial_order`` declares its dependencies with ``after``): a matched step is out of order when its
  call comes before the call of a step it depends on, or when a step it depends on never happened
  (no call, or a call with wrong arguments). So, as in the lesson, a run without the refund step is
  both missing a step and out of order (the send step came without its refund), while a run that
  only stops early (the last steps missing) is missing steps but not out of order. A
  ``partial_order`` reference whose ``after`` edges form a chain scores exactly like ``in_order``. A
  call comes after another when it is in a later turn, or in the same turn: parallel calls are
  unordered among themselves.

Scope and errored calls (see :mod:`pathjudge.rubrics.scope`): a reference's ``scope`` and
``errored_calls`` choose the calls it is aligned with; the others are invisible to it (neither
extra nor wasted), and indices always refer to the whole run.

Empty input: an empty reference is satisfied by an empty run in every mode; calls then count as extras
(wasted in the modes that forbid other calls). A run with no calls misses every reference step.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from itertools import filterfalse
from typing import Any, Literal, assert_never, cast

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics.assertions.arguments import (
    NOT_LITERAL,
    CallExpectation,
    EqMatcher,
    literal_value,
    match_call,
    number_leaves,
    same_kinds,
)
from pathjudge.rubrics.assertions.base import FrozenDict
from pathjudge.rubrics.scope import ErroredCalls, ToolScope, describe_scope, tool_in_scope

__all__ = [
    "MODES",
    "AlignCache",
    "ArgDiff",
    "FaultCosts",
    "Mode",
    "PairedStep",
    "PathAlignment",
    "RefSpec",
    "ReferencePath",
    "ReferenceStep",
    "StepMatch",
    "StepMatcher",
    "align_calls",
    "align_path",
    "align_view",
    "best_alignment",
    "compile_reference",
    "hungarian",
    "literal_arguments",
    "result_contains",
    "score_paths",
]

Mode = Literal["strict", "in_order", "unordered", "subset", "superset", "partial_order"]
MODES: tuple[Mode, ...] = ("strict", "in_order", "unordered", "subset", "superset", "partial_order")

_REQUIRES_ALL: frozenset[str] = frozenset(
    {"strict", "in_order", "unordered", "superset", "partial_order"}
)
_FORBIDS_EXTRA: frozenset[str] = frozenset({"strict", "unordered", "subset"})
_NO_CALLS: frozenset[int] = frozenset()

# Above this many search nodes the exact branch and bound stops and keeps its best pairing so far
# (reported as ``search_truncated``); never reached with the usual handful of reference steps.
_NODE_LIMIT = 200_000

MAX_AFTER_DEPTH = 1_000
"""The longest chain of ``after`` a partial-order reference may have (each step's ancestors are
kept whole, so a longer chain costs memory by its square)."""

MAX_SEARCH_STEPS = 800
"""The most steps a reference whose order has choices in it may have for the constrained search,
which recurses once per step (beyond it, the path check breaks with an error that says so)."""


class FaultCosts(BaseModel):
    """Points taken off 100 per path fault. Defaults are the path-score lesson's 25/10/20/15."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    missing: int = Field(
        default=25, ge=0, description="Per reference step not matched by any call."
    )
    wasted: int = Field(
        default=10,
        ge=0,
        description="Per wasted call (a repeat, or an extra where none is allowed).",
    )
    over_budget: int = Field(
        default=20, ge=0, description="Once, when the run has more calls than its step budget."
    )
    wrong_order: int = Field(
        default=15, ge=0, description="Once, when the reference order is not respected."
    )


_DEFAULT_COSTS = FaultCosts()


@dataclass(frozen=True, slots=True)
class ArgDiff:
    """One argument of a paired call that differs from its reference step.

    - ``path``: the argument path, e.g. ``order.id`` or ``items[0]``; ``result`` for a result check;
    - ``reason``: what differs, e.g. ``expected 'A17', got 'B99'``;
    - ``kind``: the kind of difference (matcher-defined).

    A plain frozen record (built in the grading hot path); :meth:`to_dict` gives its JSON form.
    """

    path: str
    reason: str
    kind: str = "value"

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "reason": self.reason, "kind": self.kind}

    def model_dump(self, *, mode: str = "python") -> dict[str, str]:
        """Same as :meth:`to_dict` (kept for callers written against the earlier Pydantic model)."""
        return self.to_dict()


@dataclass(frozen=True, slots=True)
class StepMatch:
    """How one call compares with one reference step of the same tool."""

    ok: bool
    score: float
    diffs: tuple[ArgDiff, ...] = ()


StepMatcher = Callable[[Step], StepMatch]
"""Compares a call (already known to use the step's tool) with one reference step."""


@dataclass(frozen=True, slots=True)
class PairedStep:
    """A reference step paired with a call of the run.

    ``ref``: the reference step id (``#N``, its 1-based position, when it has no id); ``call``: the
    0-based index of the paired call; ``ok``: whether the call fully matches the step (arguments and
    result); ``in_order``: False when the pair only exists out of the required order; ``diffs``: the
    argument paths that differ.
    """

    ref: str
    call: int
    tool: str
    ok: bool
    in_order: bool
    diffs: tuple[ArgDiff, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "ref": self.ref,
            "call": self.call,
            "tool": self.tool,
            "ok": self.ok,
            "in_order": self.in_order,
            "diffs": [d.to_dict() for d in self.diffs],
        }


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


def _alignment_adapter() -> Any:
    global _ALIGNMENT_ADAPTER
    if _ALIGNMENT_ADAPTER is None:
        from pydantic import TypeAdapter

        _ALIGNMENT_ADAPTER = TypeAdapter(PathAlignment)
    return _ALIGNMENT_ADAPTER


_ALIGNMENT_ADAPTER: Any = None


def _diff_lines(
    pairs: Sequence[PairedStep],
    missing: Sequence[str],
    extra: Sequence[int],
    wasted: Sequence[int],
) -> list[str]:
    lines: list[str] = []
    for pair in pairs:
        named = f"{ref_name(pair.ref)} ↔ {call_name(pair.call)} {pair.tool}"
        if pair.in_order:
            text = f"  {'=' if pair.ok else '~'} {named}"
        else:
            text = f"  ↕ {named} (out of order)"
        for diff in pair.diffs:
            text += f"; {diff.path}: {diff.reason}"
        lines.append(text)
    if missing:
        lines += [f"  - missing {ref_name(ref)}" for ref in missing]
    if extra:
        lines += [
            f"  + extra {call_name(index)}{' (wasted)' if index in wasted else ''}"
            for index in extra
        ]
    return lines


def call_name(index: int) -> str:
    """How every reason names a call of the run: 1-based, ``call #3`` for ``steps[2]``."""
    return f"call #{index + 1}"


def ref_name(label: str) -> str:
    """How every reason names a reference step: ``ref step #2`` (unnamed) or ``ref step lookup``."""
    return f"ref step {label}"


# --------------------------------------------------------------------------------------------------
# Optimal assignment


def hungarian(cost: Sequence[Sequence[float]]) -> list[int]:
    """Minimum-cost assignment for an ``n x m`` matrix with ``n <= m``; returns the column per row.

    Pure Python O(n^2 m) (Kuhn-Munkres with potentials), exact for any real costs. Empty input (no
    rows) returns an empty list.
    """
    n = len(cost)
    if n == 0:
        return []
    m = len(cost[0])
    if m < n:
        raise ValueError(f"hungarian needs rows <= columns, got {n} x {m}")
    inf = float("inf")
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    p = [0] * (m + 1)
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = p[j0]
            row = cost[i0 - 1]
            ui0 = u[i0]
            delta = inf
            j1 = 0
            for j in range(1, m + 1):
                if not used[j]:
                    cur = row[j - 1] - ui0 - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    assignment = [-1] * n
    for j in range(1, m + 1):
        if p[j]:
            assignment[p[j] - 1] = j - 1
    return assignment


def _max_weight_matching(
    weights: dict[tuple[int, int], float],
    refs: Sequence[int] | None = None,
    calls: Sequence[int] | None = None,
    exits: bool = True,
) -> dict[int, int]:
    """Maximum-weight matching between ``refs`` and ``calls`` (``None``: all of them) over the
    positive ``weights``; ref -> call.

    Cheap exit: when every pair has a step or a call that is in no other pair, each connected part
    is a star (one step with several calls, or one call with several steps) whose best matching is
    its heaviest pair; when that pair is the only heaviest one in every star, the maximum-weight
    matching is unique, so it is what the assignment below finds, and it is taken directly
    (``exits=False``: never; the plain path the tests pin it to).
    """
    if refs is None and calls is None:
        edges = weights
    else:
        if (refs is not None and not refs) or (calls is not None and not calls):
            return {}
        ref_set = None if refs is None else set(refs)
        call_set = None if calls is None else set(calls)
        edges = {
            key: w
            for key, w in weights.items()
            if (ref_set is None or key[0] in ref_set) and (call_set is None or key[1] in call_set)
        }
    if not edges:
        return {}
    ref_deg: dict[int, int] = {}
    call_deg: dict[int, int] = {}
    for r, c in edges:
        ref_deg[r] = ref_deg.get(r, 0) + 1
        call_deg[c] = call_deg.get(c, 0) + 1
    if exits:
        unique = _star_matching(edges, ref_deg, call_deg)
        if unique is not None:
            return unique
    rows = sorted(ref_deg)
    cols = sorted(call_deg)
    top = max(edges.values())
    transpose = len(rows) > len(cols)
    if transpose:
        rows, cols = cols, rows
    matrix = [[top - edges.get((c, r) if transpose else (r, c), 0.0) for c in cols] for r in rows]
    assignment = hungarian(matrix)
    result: dict[int, int] = {}
    for ri, ci in enumerate(assignment):
        r, c = rows[ri], cols[ci]
        ref, call = (c, r) if transpose else (r, c)
        if (ref, call) in edges:
            result[ref] = call
    return result


def _star_matching(
    edges: Mapping[tuple[int, int], float], ref_deg: Mapping[int, int], call_deg: Mapping[int, int]
) -> dict[int, int] | None:
    """The maximum-weight matching when every connected part of ``edges`` is a star whose heaviest
    pair is its only heaviest one (then that matching is unique), else ``None``."""
    stars: dict[tuple[bool, int], tuple[float, int, int]] = {}
    for (r, c), w in edges.items():
        if call_deg[c] == 1:
            center = (True, r)
        elif ref_deg[r] == 1:
            center = (False, c)
        else:
            return None  # both ends in other pairs: a part that is not a star
        known = stars.get(center)
        if known is None or w > known[0]:
            stars[center] = (w, r, c)
        elif w == known[0]:
            return None  # two heaviest pairs: the assignment's tie-break decides
    return {r: c for _, r, c in stars.values()}


# --------------------------------------------------------------------------------------------------
# Order-consistent pairing


def _chain_dp(weights: dict[tuple[int, int], float], n_refs: int, n_calls: int) -> dict[int, int]:
    """Weighted longest common subsequence: the best pairing that keeps reference order."""
    if not weights:
        return {}
    dp = [[0.0] * (n_calls + 1) for _ in range(n_refs + 1)]
    for r in range(1, n_refs + 1):
        prev = dp[r - 1]
        cur = dp[r]
        for c in range(1, n_calls + 1):
            best = prev[c] if prev[c] >= cur[c - 1] else cur[c - 1]
            w = weights.get((r - 1, c - 1))
            if w is not None and prev[c - 1] + w > best:
                best = prev[c - 1] + w
            cur[c] = best
    pairs: dict[int, int] = {}
    r, c = n_refs, n_calls
    while r > 0 and c > 0:
        w = weights.get((r - 1, c - 1))
        if w is not None and dp[r][c] == dp[r - 1][c - 1] + w and dp[r][c] != dp[r - 1][c]:
            pairs[r - 1] = c - 1
            r -= 1
            c -= 1
        elif dp[r][c] == dp[r - 1][c]:
            r -= 1
        else:
            c -= 1
    return pairs


def _constrained_search(
    weights: dict[tuple[int, int], float],
    order: Sequence[int],
    ancestors: Sequence[frozenset[int]],
    allowed: Callable[[int, int], bool],
) -> tuple[dict[int, int], bool]:
    """Exact branch and bound: the best pairing where each ref's call is ``allowed`` after its ancestors'.

    ``order`` is a topological order of the refs; ``allowed(a, b)`` says call ``b`` may serve a step that
    depends on a step served by call ``a``. Returns the pairing and whether the node limit was hit.
    """
    if len(order) > MAX_SEARCH_STEPS:
        # the search recurses once per reference step: refuse what the interpreter's stack could
        # not hold, with an error that says what to do, rather than a RecursionError
        raise ValueError(
            f"a reference with an order among {len(order)} steps is over the "
            f"{MAX_SEARCH_STEPS} the constrained search takes; split it into shorter references"
        )
    candidates: dict[int, list[tuple[float, int]]] = {}
    for (r, c), w in weights.items():
        candidates.setdefault(r, []).append((w, c))
    for r in candidates:
        candidates[r].sort(key=lambda item: (-item[0], item[1]))
    best_remaining = [0.0] * (len(order) + 1)
    for k in range(len(order) - 1, -1, -1):
        opts = candidates.get(order[k])
        best_remaining[k] = best_remaining[k + 1] + (opts[0][0] if opts else 0.0)
    best_total = -1.0
    best_pairs: dict[int, int] = {}
    current: dict[int, int] = {}
    used: set[int] = set()
    nodes = 0
    truncated = False

    def visit(k: int, total: float) -> None:
        nonlocal best_total, best_pairs, nodes, truncated
        nodes += 1
        if nodes > _NODE_LIMIT:
            truncated = True
            return
        if total + best_remaining[k] <= best_total:
            return
        if k == len(order):
            best_total = total
            best_pairs = dict(current)
            return
        ref = order[k]
        for w, call in candidates.get(ref, ()):
            if call in used:
                continue
            if all(allowed(current[a], call) for a in ancestors[ref] if a in current):
                used.add(call)
                current[ref] = call
                visit(k + 1, total + w)
                del current[ref]
                used.discard(call)
        visit(k + 1, total)

    visit(0, 0.0)
    return best_pairs, truncated


# --------------------------------------------------------------------------------------------------
# Results


def _walk_strings(value: JsonValue) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _walk_strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _walk_strings(item)


def result_contains(result: JsonValue, wanted: str) -> bool:
    """Whether a tool result carries ``wanted``: as a whole string value anywhere in the JSON result.

    A string result that is itself JSON (an array or object) is parsed and searched the same way; any
    other string result matches when ``wanted`` appears in it as a whole word. ``None`` contains nothing.
    """
    if isinstance(result, str):
        stripped = result.lstrip()
        if stripped[:1] in ("[", "{"):
            try:
                parsed: JsonValue = json.loads(result)
            except ValueError:
                pass
            else:
                return any(s == wanted for s in _walk_strings(parsed))
        return re.search(rf"(?<![\w-]){re.escape(wanted)}(?![\w-])", result) is not None
    return any(s == wanted for s in _walk_strings(result))


# --------------------------------------------------------------------------------------------------
# Alignment


@dataclass(frozen=True, slots=True)
class RefSpec:
    """A reference step as the aligner sees it: its label, tool, matcher and dependencies."""

    label: str
    tool: str
    matcher: StepMatcher
    after: tuple[str, ...] = ()


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
    n_refs, n_calls = len(refs), len(steps)
    # the matches of call i with reference step i that the diagonal exit computed (reused below)
    known: list[StepMatch] = []
    if (
        exits
        and n_refs == n_calls
        and (mode != "partial_order" or not any(ref.after for ref in refs))
    ):
        plain = _diagonal(steps, refs, known)
        if plain is not None:
            return _diagonal_alignment(
                known, plain, name, mode, refs, budget, costs, cache, view, n_all
            )
    n_known = len(known)
    matches: dict[tuple[int, int], StepMatch] = {}
    redundant_set = set(redundant)
    # Where only repeats are charged when left over (see _repeat_candidates).
    charged = _NO_CALLS if mode in _FORBIDS_EXTRA or not redundant_set else frozenset(redundant_set)
    # Each step's candidates are the calls of its tool, in call order (``matches`` in step order,
    # then call order). The pairing has a choice in it (``conflict``) when a step has several
    # candidates or a call has several candidate steps (a tool of several steps that has a call).
    tools = [step.tool for step in steps]
    conflict = False
    claimed: set[str] = set()  # the tools of the steps seen so far that have a candidate
    # one step and no repeat to charge: the pairing is its best-weighted call (see below), so a run
    # that made the right call and then more (a wrong count, decided already) is matched no further
    single = exits and n_refs == 1 and not charged
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
                break  # the one step's first full match outweighs every later call (see below)

    if exits and not conflict:  # (the pairing without a choice in it needs no weights)
        paired, late, truncated = _unique_pairing(steps, refs, mode, matches)
    else:
        weigher = _weights_for(max(n_refs, n_calls))
        # A vanishing preference for earlier calls: among equally good pairings the first of
        # several identical calls is paired, so a repeat is the one left over (and wasted).
        weights = {key: weigher.of(m) - key[1] * 1e-9 for key, m in matches.items()}
        if single:
            # One step, no repeat to charge: every candidate the search builds is the
            # best-weighted call (a full match first, then the best score, then the earliest),
            # and one pair is in order. So the calls after its first full match, which weigh
            # less, were never matched.
            best = max(weights, key=weights.__getitem__)
            paired, late, truncated = {0: best[1]}, frozenset(), False
        else:
            paired, late, truncated = _pairing(
                steps, refs, mode, matches, weights, charged, costs, weigher.pair_weight, exits
            )
    order_matters = mode == "strict" or mode == "in_order" or mode == "partial_order"

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
    used_calls = set(paired.values())
    # the calls paired with no step, in call order; where extras are forbidden each is wasted,
    # elsewhere only the repeats among them
    extra = (
        []
        if len(used_calls) == n_calls
        else list(filterfalse(used_calls.__contains__, range(n_calls)))
    )
    forbids_extra = mode in _FORBIDS_EXTRA
    if forbids_extra:
        wasted = extra
    else:
        wasted = list(filter(redundant_set.__contains__, extra)) if redundant_set and extra else []
    if view is not None and extra:
        extra = [view[c] for c in extra]
        wasted = [view[c] for c in wasted]
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
    satisfied = (
        not mismatched
        and not (mode in _REQUIRES_ALL and missing)
        and not (forbids_extra and extra)
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
        n_refs,
        n_all,
        budget,
        costs,
    )


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


def _pairing_cost(
    paired: Mapping[int, int],
    late: AbstractSet[int],
    mode: Mode,
    matches: Mapping[tuple[int, int], StepMatch],
    n_refs: int,
    n_calls: int,
    charged: AbstractSet[int],
    costs: FaultCosts,
) -> int:
    """The fault cost of a candidate pairing, by the same :func:`_tally` and :func:`_cost` that score
    the final alignment (the step budget is the same for every pairing, so left out)."""
    mismatched = 0
    for key in paired.items():
        if not matches[key].ok:
            mismatched += 1
    used = set(paired.values())  # calls of the run, so the leftovers are the others
    if mode in _FORBIDS_EXTRA:
        wasted = n_calls - len(used)
    else:
        wasted = sum(1 for c in charged if c not in used and 0 <= c < n_calls)
    n_missing, wasted_count, fault = _tally(
        mode, n_refs - len(paired), mismatched, wasted, bool(late)
    )
    return _cost(costs, n_missing, wasted_count, fault)


def _cost_floor(
    mode: Mode,
    matches: Mapping[tuple[int, int], StepMatch],
    n_refs: int,
    n_calls: int,
    charged: AbstractSet[int],
    costs: FaultCosts,
    consistent: int | None = None,
    groups: Mapping[tuple[tuple[int, bool, float], ...], Sequence[int]] | None = None,
) -> int:
    """A lower bound on :func:`_pairing_cost` over every pairing of these candidate pairs.

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
    ok_refs: set[int] = set()
    ok_calls: set[int] = set()
    any_refs: set[int] = set()
    any_calls: set[int] = set()
    for (r, c), m in matches.items():
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
        wasted = n_calls - (min(len(any_refs), len(any_calls)) if requires_all else most_ok)
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


def _pairing(
    steps: Sequence[Step],
    refs: Sequence[RefSpec],
    mode: Mode,
    matches: dict[tuple[int, int], StepMatch],
    weights: dict[tuple[int, int], float],
    charged: AbstractSet[int],
    costs: FaultCosts,
    pair_weight: float,
    exits: bool = True,
) -> tuple[Mapping[int, int], AbstractSet[int], bool]:
    """The optimal pairing (ref -> call), the refs paired only out of order, and whether the search
    was truncated (see the module docstring).

    Cheap exits (``exits``), each keeping the pairing the full comparison keeps: the candidates are
    built in their order of preference, and the best so far is kept without building the others
    when no later candidate can cost less (ties keep the earlier one): when it already costs
    :func:`_cost_floor` (in an ordered mode counted with the most fully matching pairs an
    order-consistent pairing has), or, before the repeat-aware candidates, when it costs no more
    than the floor of the pairings that use the earliest calls of every group of interchangeable
    calls (which those candidates all are)."""
    n_refs, n_calls = len(refs), len(steps)
    ok_weights = {key: w for key, w in weights.items() if matches[key].ok}
    truncated = False
    if mode == "strict" or mode == "in_order" or mode == "partial_order":
        # 2. The best order-consistent pairing of fully matching calls.
        topo, ancestors, allowed, chained = _order_of(steps, refs, mode)
        turns = [s.turn for s in steps]
        # Among pairings with as many fully matching pairs, prefer those that leave the *later*
        # steps over (a step whose prerequisite never happened is out of order): a bonus that falls
        # with the step's topological position, far below one pair and far above the preference
        # for earlier calls.
        step = 0.5 / (n_refs + 1)
        rank = {r: k for k, r in enumerate(topo)}
        ranked = {key: w + (n_refs - rank[key[0]]) * step for key, w in ok_weights.items()}
        chain = mode != "partial_order" and len(set(turns)) == len(turns)
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
        # (the leftover pairing of the ordered candidate may itself break the order: mark it too)
        ok_pairs = set(ok_weights)
        in_order_late = _order_breakers(in_order, topo, ancestors, allowed, ok_pairs, chained)
        in_order_cost = _pairing_cost(
            in_order, in_order_late, mode, matches, n_refs, n_calls, charged, costs
        )
        floor = -1
        if exits:
            # ``ordered`` has the most fully matching pairs of any order-consistent pairing when the
            # search was exact and (for the chain) call order is turn order
            exact = not truncated and (
                not chain or all(turns[i] < turns[i + 1] for i in range(n_calls - 1))
            )
            consistent = len(ordered) if exact else None
            floor = _cost_floor(mode, matches, n_refs, n_calls, charged, costs, consistent)
            if in_order_cost <= floor:
                return in_order, in_order_late, truncated
        # 3. The best pairing regardless of order (most fully matching pairs, then most pairs, then
        # scores), with the steps whose call breaks the order marked.
        full = _max_weight_matching(weights, exits=exits)
        full_late = _order_breakers(full, topo, ancestors, allowed, ok_pairs, chained)
        candidates: list[tuple[Mapping[int, int], AbstractSet[int]]] = [
            (in_order, in_order_late),
            (full, full_late),
        ]
        if charged:
            groups = _interchangeable(matches)
            if exits:
                full_cost = _pairing_cost(
                    full, full_late, mode, matches, n_refs, n_calls, charged, costs
                )
                best_cost = min(in_order_cost, full_cost)
                if best_cost <= floor or best_cost <= _cost_floor(
                    mode, matches, n_refs, n_calls, charged, costs, consistent, groups
                ):
                    if in_order_cost <= full_cost:
                        return in_order, in_order_late, truncated
                    return full, full_late, truncated
            candidates.extend(
                (pairing, _order_breakers(pairing, topo, ancestors, allowed, ok_pairs, chained))
                for pairing in _repeat_candidates(
                    refs, n_calls, matches, weights, charged, pair_weight, groups, exits
                )
            )
    elif mode == "unordered" or mode == "subset" or mode == "superset":
        # 1. The best pairing regardless of order: most fully matching pairs, then most pairs,
        # then scores.
        full = _max_weight_matching(weights, exits=exits)
        no_late: set[int] = set()
        candidates = [(full, no_late)]
        if charged:
            groups = _interchangeable(matches)
            if exits:
                full_cost = _pairing_cost(
                    full, no_late, mode, matches, n_refs, n_calls, charged, costs
                )
                if full_cost <= _cost_floor(
                    mode, matches, n_refs, n_calls, charged, costs, None, groups
                ):
                    return full, no_late, truncated
            candidates.extend(
                (pairing, set())
                for pairing in _repeat_candidates(
                    refs, n_calls, matches, weights, charged, pair_weight, groups, exits
                )
            )
        elif exits:
            return full, no_late, truncated  # the only candidate
    else:
        assert_never(mode)
    # Keep whichever costs least in the end: order is worth keeping only when it saves more than the
    # calls it loses; ties keep the earlier candidate (order-consistent first).
    best, best_late = min(
        candidates,
        key=lambda cand: _pairing_cost(
            cand[0], cand[1], mode, matches, n_refs, n_calls, charged, costs
        ),
    )
    return best, best_late, truncated


def _repeat_candidates(
    refs: Sequence[RefSpec],
    n_calls: int,
    matches: Mapping[tuple[int, int], StepMatch],
    weights: Mapping[tuple[int, int], float],
    charged: AbstractSet[int],
    pair_weight: float,
    groups: Mapping[tuple[tuple[int, bool, float], ...], list[int]],
    exits: bool = True,
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
    if not charged:
        return []
    repeated = {
        c for members in groups.values() if any(c in charged for c in members) for c in members
    }
    n_refs = len(refs)

    def rewarded(calls: AbstractSet[int]) -> dict[int, int]:
        # one pair unit per rewarded pair: it outranks the score tie-breaks, never a full match
        bonus = {key: w + (pair_weight if key[1] in calls else 0.0) for key, w in weights.items()}
        return _max_weight_matching(bonus, exits=exits)

    first_come: dict[int, int] = {}
    taken: set[int] = set()
    for r in range(n_refs):
        for c in range(n_calls):
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


def _topology(
    refs: Sequence[RefSpec] | Sequence[tuple[str, tuple[str, ...]]],
) -> tuple[list[int], list[frozenset[int]]]:
    """A topological order of the refs (stable) and each ref's transitive ancestors (``refs``: the
    steps, or their ``(label, after)``)."""
    shape = [ref if isinstance(ref, tuple) else (ref.label, ref.after) for ref in refs]
    index = {label: i for i, (label, _) in enumerate(shape)}
    parents = [[index[a] for a in after] for _, after in shape]
    ancestors: list[frozenset[int] | None] = [None] * len(refs)

    def anc(start: int) -> frozenset[int]:
        # depth first, parents in order, with an explicit stack of (step, next parent to look at): a
        # chain of 'after' as long as the reference never overflows the interpreter's stack, and
        # each parent list is walked once
        known = ancestors[start]
        if known is not None:
            return known
        stack = [[start, 0]]
        on_path = {start}
        while stack:
            frame = stack[-1]
            i, k = frame
            mine = parents[i]
            while k < len(mine) and ancestors[mine[k]] is not None:
                k += 1
            frame[1] = k
            if k < len(mine):
                pending = mine[k]
                if pending in on_path:
                    raise ValueError(
                        f"reference step {shape[pending][0]!r} depends on itself through 'after'"
                    )
                if len(stack) > MAX_AFTER_DEPTH:
                    raise ValueError(
                        f"reference step {shape[start][0]!r} comes after a chain of more than "
                        f"{MAX_AFTER_DEPTH} steps through 'after'; split the reference"
                    )
                stack.append([pending, 0])
                on_path.add(pending)
                continue
            acc: set[int] = set()
            for p in mine:
                acc.add(p)
                acc |= cast(frozenset[int], ancestors[p])
            ancestors[i] = frozenset(acc)
            stack.pop()
            on_path.discard(i)
        return cast(frozenset[int], ancestors[start])

    resolved = [anc(i) for i in range(len(refs))]
    topo = sorted(range(len(refs)), key=lambda i: (len(resolved[i]), i))
    return topo, resolved


def _reason(
    name: str,
    mode: Mode,
    n_refs: int,
    pairs: Sequence[PairedStep],
    missing: Sequence[str],
    extra: Sequence[int],
    wasted: Sequence[int],
    out_of_order: Sequence[str],
    over: bool,
    order_fault: bool,
    n_calls: int,
    budget: int | None,
    faults: Mapping[str, int],
    costs: FaultCosts,
    score: int,
) -> str:
    ok = 0
    diffs: list[PairedStep] = []
    for p in pairs:
        if p.ok:
            if p.in_order:
                ok += 1
            if p.diffs:
                diffs.append(p)
        else:
            diffs.append(p)
    parts = [f"{name} ({mode}): {ok} of {n_refs} reference steps matched"]
    if missing:
        parts.append("missing: " + ", ".join([ref_name(ref) for ref in missing]))
    if diffs:
        parts.append(
            "argument diffs: "
            + "; ".join(
                [
                    f"{ref_name(p.ref)} ({call_name(p.call)}): "
                    + (", ".join([f"{d.path} {d.reason}" for d in p.diffs]) or "no match")
                    for p in diffs
                ]
            )
        )
    if out_of_order:
        parts.append("out of order: " + ", ".join([ref_name(ref) for ref in out_of_order]))
    if extra:
        parts.append(
            "extra: "
            + ", ".join([f"{call_name(i)}{' (wasted)' if i in wasted else ''}" for i in extra])
        )
        stray = [i for i in wasted if i not in extra]
        if stray:
            parts.append("wasted: " + ", ".join([call_name(i) for i in stray]))
    elif wasted:
        parts.append("wasted: " + ", ".join([call_name(i) for i in wasted]))
    if over:
        parts.append(f"{n_calls} calls, over the budget of {budget}")
    text = f"path score {score} = 100"
    count = faults["missing"]
    if count:
        text += " - " + _charge(costs.missing, count, "missing ref step")
    count = faults["wasted"]
    if count:
        text += " - " + _charge(costs.wasted, count, "wasted call")
    if over:
        text += f" - {costs.over_budget} (over budget)"
    if order_fault:
        text += f" - {costs.wrong_order} (wrong order)"
    parts.append(text)
    return "; ".join(parts)


def _charge(cost: int, count: int, what: str) -> str:
    """``20 (2 wasted calls × 10)``: a fault cost as the total it takes off and how it adds up."""
    return f"{cost * count} ({count} {what}{'' if count == 1 else 's'} × {cost})"


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


# --------------------------------------------------------------------------------------------------
# Declarative references (what a suite file holds)


class ReferenceStep(CallExpectation):
    """One step of a reference path: an expected call plus its id, dependencies and result check.

    A step that lists no ``args`` (and no ``extra_args``) accepts any arguments. ``after`` lists the
    ids of the steps whose results this one needs (only meaningful in ``partial_order`` mode).
    ``result_contains`` lists strings that the call's result must carry (see :func:`result_contains`),
    e.g. the id of the document that holds the answer.
    """

    id: str | None = Field(
        default=None, min_length=1, description="Step id, referenced by 'after'."
    )
    after: tuple[str, ...] = Field(default=(), description="Ids of steps this one must come after.")
    result_contains: tuple[str, ...] = Field(
        default=(), description="Strings the call's result must contain (e.g. a document id)."
    )

    @model_validator(mode="before")
    @classmethod
    def _any_args_by_default(cls, data: object) -> object:
        if isinstance(data, Mapping) and "args" not in data and "extra_args" not in data:
            return {**data, "extra_args": "allow"}
        return data


class ReferencePath(BaseModel):
    """An acceptable path: steps and the mode that says how a run must contain them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str | None = Field(
        default=None, description="Name shown in reasons (default: reference N)."
    )
    mode: Mode = Field(default="in_order", description="How the run must contain the steps.")
    scope: ToolScope = Field(
        default="all",
        description="Which calls the reference is aligned with; calls outside it are neither "
        "extra nor wasted (see pathjudge.rubrics.scope).",
    )
    errored_calls: ErroredCalls | None = Field(
        default=None,
        description="count | ignore: whether calls whose result was an error are aligned "
        "(default: the task's errored_calls).",
    )
    steps: tuple[ReferenceStep, ...] = Field(description="The reference steps, in reference order.")

    @model_validator(mode="after")
    def _check_ids(self) -> ReferencePath:
        seen: set[str] = set()
        for step in self.steps:
            if step.id is not None:
                if step.id in seen:
                    raise ValueError(f"step id {step.id!r} appears twice in one reference")
                seen.add(step.id)
        for step in self.steps:
            if step.after and self.mode != "partial_order":
                raise ValueError(
                    f"step {step.id or step.tool!r} lists 'after' but the mode is {self.mode!r}; "
                    "'after' only applies in mode partial_order"
                )
            unknown = [a for a in step.after if a not in seen]
            if unknown:
                raise ValueError(
                    f"step {step.id or step.tool!r} lists unknown step ids in 'after': {', '.join(unknown)}"
                )
        if self.mode == "partial_order":
            _topology(compile_reference(self))
        if self.scope != "all" and self.scope != "state_changing":
            outside = [
                step.id or step.tool
                for step in self.steps
                if not tool_in_scope(step.tool, self.scope)
            ]
            if outside:
                raise ValueError(
                    f"step {outside[0]!r} calls a tool outside the reference's scope "
                    f"({describe_scope(self.scope)}); widen the scope or remove the step"
                )
        return self


def literal_arguments(step: CallExpectation) -> dict[str, JsonValue] | None:
    """The expected arguments as one plain JSON object when every matcher is an exact value, else
    ``None``.

    Exact means, at any depth: ``$eq`` (or a bare scalar) with no string normalisation, a literal
    list (same length, items in order) or a literal object (exactly its keys), none of them
    ``$optional``. Then (with ``extra_args: forbid``, no schema and the lenient typing profile) a
    call matches exactly when its arguments are JSON-equal to the object, which is much cheaper to
    test than running the matchers. Under the ``bfcl`` profile only exact strings qualify (its
    typing rules are not JSON equality for numbers).
    """
    if step.extra_args != "forbid" or step.json_schema is not None:
        return None
    out: dict[str, JsonValue] = {}
    for key, matcher in step.args.items():
        if step.types == "lenient":
            value = literal_value(matcher)
            if value is NOT_LITERAL:
                return None
            out[key] = value
        elif (
            isinstance(matcher, EqMatcher)
            and matcher.normalize == "none"
            and not matcher.optional
            and isinstance(matcher.value, str)
        ):
            out[key] = matcher.value
        else:
            return None
    return out


def _step_matcher(step: ReferenceStep, exits: bool = True) -> StepMatcher:
    """The matcher of one reference step: the call's arguments by :func:`match_call`, then the
    step's ``result_contains``.

    Cheap exits (``exits=False``: none, the plain path the tests pin them to), each giving what
    :func:`match_call` gives: a step that lists no argument, lets other arguments through and has
    no schema matches every call of its tool; a call whose arguments are JSON-equal to a step of
    exact values matches it (see :func:`literal_arguments`); a full match shares one result.
    """
    wanted = step.result_contains
    literal = literal_arguments(step) if exits else None
    leaves = number_leaves(literal) if literal is not None else ()
    exact = StepMatch(True, 1.0, ())
    anything = exits and not step.args and step.extra_args != "forbid" and step.json_schema is None

    def match(call: Step) -> StepMatch:
        if call.arguments_error is not None:
            return StepMatch(
                False,
                0.0,
                (
                    ArgDiff(
                        path="",
                        reason=f"arguments not valid JSON: {call.arguments_error}",
                        kind="malformed",
                    ),
                ),
            )
        if anything or (
            literal is not None
            and call.arguments == literal
            and (not leaves or same_kinds(call.arguments, leaves))
        ):
            found = exact
        else:
            result = match_call(call.tool, call.arguments, step)
            found = (
                exact
                if exits and result.ok  # no mismatch: score 1.0 (match_call's shared success)
                else StepMatch(
                    result.ok,
                    result.score,
                    tuple([ArgDiff(m.path, m.reason, m.kind) for m in result.mismatches]),
                )
            )
        if wanted:
            absent = [w for w in wanted if not result_contains(call.result, w)]
            if absent:
                reason = "does not contain " + ", ".join(absent)
                return StepMatch(
                    False,
                    found.score,
                    (*found.diffs, ArgDiff(path="result", reason=reason, kind="result")),
                )
        return found

    return match


def compile_reference(reference: ReferencePath) -> tuple[RefSpec, ...]:
    """The aligner's view of a reference: one :class:`RefSpec` per step (unnamed steps are ``#N``)."""
    return tuple(
        RefSpec(
            label=step.id or f"#{i + 1}",
            tool=step.tool,
            matcher=_step_matcher(step),
            after=step.after,
        )
        for i, step in enumerate(reference.steps)
    )


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
