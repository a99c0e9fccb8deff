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

The modules, each importing only those above it: :mod:`~pathjudge.rubrics.path.records` (the plain
records), :mod:`~pathjudge.rubrics.path.spec` (references, modes, costs, step matchers),
:mod:`~pathjudge.rubrics.path.assignment` (the solvers), :mod:`~pathjudge.rubrics.path.order` (the
order of the ordered modes), :mod:`~pathjudge.rubrics.path.explain` (reasons and diff lines),
:mod:`~pathjudge.rubrics.path.pairing` (the optimal pairing and its cost) and
:mod:`~pathjudge.rubrics.path.alignment` (the alignment and the path score).
"""

from __future__ import annotations

from pathjudge.rubrics.path.alignment import (
    AlignCache,
    PathAlignment,
    align_calls,
    align_path,
    align_view,
    best_alignment,
    score_paths,
)
from pathjudge.rubrics.path.alignment import _align as _align
from pathjudge.rubrics.path.assignment import MAX_SEARCH_STEPS as MAX_SEARCH_STEPS
from pathjudge.rubrics.path.assignment import _chain_dp as _chain_dp
from pathjudge.rubrics.path.assignment import _constrained_search as _constrained_search
from pathjudge.rubrics.path.assignment import _max_weight_matching as _max_weight_matching
from pathjudge.rubrics.path.assignment import hungarian
from pathjudge.rubrics.path.explain import _charge as _charge
from pathjudge.rubrics.path.explain import _diff_lines as _diff_lines
from pathjudge.rubrics.path.explain import _reason as _reason
from pathjudge.rubrics.path.explain import call_name as call_name
from pathjudge.rubrics.path.explain import ref_name as ref_name
from pathjudge.rubrics.path.order import _chain_order as _chain_order
from pathjudge.rubrics.path.order import _order_breakers as _order_breakers
from pathjudge.rubrics.path.order import _order_of as _order_of
from pathjudge.rubrics.path.pairing import _cost_floor as _cost_floor
from pathjudge.rubrics.path.pairing import _interchangeable as _interchangeable
from pathjudge.rubrics.path.pairing import _pairing as _pairing
from pathjudge.rubrics.path.pairing import _pairing_cost as _pairing_cost
from pathjudge.rubrics.path.pairing import _repeat_candidates as _repeat_candidates
from pathjudge.rubrics.path.pairing import _Search as _Search
from pathjudge.rubrics.path.pairing import _Weights as _Weights
from pathjudge.rubrics.path.records import ArgDiff, PairedStep, StepMatch, StepMatcher
from pathjudge.rubrics.path.spec import MAX_AFTER_DEPTH as MAX_AFTER_DEPTH
from pathjudge.rubrics.path.spec import (
    MODES,
    FaultCosts,
    Mode,
    ReferencePath,
    ReferenceStep,
    RefSpec,
    compile_reference,
    literal_arguments,
    result_contains,
)
from pathjudge.rubrics.path.spec import _step_matcher as _step_matcher

# ``__all__`` is the public surface; the other names imported above (the limits, how a reason names a
# call and a step, and the internals the property tests pin the cheap exits and the plain builders
# to) stay importable from here as they were from the single module.
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
