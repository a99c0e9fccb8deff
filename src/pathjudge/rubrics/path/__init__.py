"""Reference-path matching (a package from here on; the single module is :mod:`.alignment` for now)."""

from __future__ import annotations

from pathjudge.rubrics.path.alignment import MAX_AFTER_DEPTH as MAX_AFTER_DEPTH
from pathjudge.rubrics.path.alignment import MAX_SEARCH_STEPS as MAX_SEARCH_STEPS
from pathjudge.rubrics.path.alignment import (
    MODES,
    AlignCache,
    ArgDiff,
    FaultCosts,
    Mode,
    PairedStep,
    PathAlignment,
    ReferencePath,
    ReferenceStep,
    RefSpec,
    StepMatch,
    StepMatcher,
    align_calls,
    align_path,
    align_view,
    best_alignment,
    compile_reference,
    hungarian,
    literal_arguments,
    result_contains,
    score_paths,
)
from pathjudge.rubrics.path.alignment import _align as _align
from pathjudge.rubrics.path.alignment import _chain_dp as _chain_dp
from pathjudge.rubrics.path.alignment import _chain_order as _chain_order
from pathjudge.rubrics.path.alignment import _charge as _charge
from pathjudge.rubrics.path.alignment import _constrained_search as _constrained_search
from pathjudge.rubrics.path.alignment import _cost_floor as _cost_floor
from pathjudge.rubrics.path.alignment import _diff_lines as _diff_lines
from pathjudge.rubrics.path.alignment import _interchangeable as _interchangeable
from pathjudge.rubrics.path.alignment import _max_weight_matching as _max_weight_matching
from pathjudge.rubrics.path.alignment import _order_breakers as _order_breakers
from pathjudge.rubrics.path.alignment import _order_of as _order_of
from pathjudge.rubrics.path.alignment import _pairing as _pairing
from pathjudge.rubrics.path.alignment import _pairing_cost as _pairing_cost
from pathjudge.rubrics.path.alignment import _reason as _reason
from pathjudge.rubrics.path.alignment import _repeat_candidates as _repeat_candidates
from pathjudge.rubrics.path.alignment import _step_matcher as _step_matcher
from pathjudge.rubrics.path.alignment import _Weights as _Weights
from pathjudge.rubrics.path.alignment import call_name as call_name
from pathjudge.rubrics.path.alignment import ref_name as ref_name

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
