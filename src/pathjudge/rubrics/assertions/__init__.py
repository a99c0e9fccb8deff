"""Deterministic checks over trajectories: pure functions with closed modes.

- :mod:`.arguments` — the per-argument matcher language, :func:`match_call`, JSON-schema validation,
  BFCL import (argument_correctness);
- :mod:`.tools` — required / forbidden / distractor tools and the first call (tool_selection);
- :mod:`.steps` — step budget, redundant calls, loops (step_efficiency);
- :mod:`.recovery` — what the agent did after errored tool results (error_recovery);
- :mod:`.outcome` — success criteria over the final answer or the end state (goal_completion);
- :mod:`.overlap` — the query-overlap diagnostic (argument_correctness, never gating).

Every check returns :class:`CheckResult` values whose ``reason`` reproduces the status and score.
"""

from pathjudge.rubrics.assertions._normalize import TextNormalization
from pathjudge.rubrics.assertions.arguments import (
    ArgMatcher,
    ArgMismatch,
    CallExpectation,
    CallMatch,
    Matcher,
    MatcherSyntaxError,
    MismatchKind,
    TypeProfile,
    bfcl_schema,
    call_cost,
    describe_matcher,
    dump_matcher,
    expectations_from_bfcl,
    is_optional,
    match_call,
    match_value,
    parse_matcher,
    validate_arguments,
)
from pathjudge.rubrics.assertions.base import AXES, Axis, CheckResult, CheckStatus
from pathjudge.rubrics.assertions.outcome import (
    DEFAULT_REFUSAL_PHRASES,
    DEFAULT_SCOPE_WORDS,
    AllOfCriterion,
    AnyOfCriterion,
    CallableCriterion,
    ContainsAllCriterion,
    ContainsAnyCriterion,
    JsonSchemaCriterion,
    NumberCriterion,
    RefusalCriterion,
    RegexCriterion,
    SubGoal,
    SuccessCriterion,
    check_outcome,
    extract_numbers,
    is_refusal,
    load_callable,
)
from pathjudge.rubrics.assertions.overlap import (
    DEFAULT_STOPWORDS,
    check_query_overlap,
    query_overlap,
)
from pathjudge.rubrics.assertions.recovery import (
    ErrorEvent,
    RecoverySpec,
    analyze_errors,
    check_recovery,
)
from pathjudge.rubrics.assertions.steps import (
    Loop,
    StepSpec,
    call_signature,
    check_steps,
    find_loops,
    redundant_calls,
)
from pathjudge.rubrics.assertions.tools import ToolSelectionSpec, check_tool_selection

__all__ = [
    "AXES",
    "DEFAULT_REFUSAL_PHRASES",
    "DEFAULT_SCOPE_WORDS",
    "DEFAULT_STOPWORDS",
    "AllOfCriterion",
    "AnyOfCriterion",
    "ArgMatcher",
    "ArgMismatch",
    "Axis",
    "CallExpectation",
    "CallMatch",
    "CallableCriterion",
    "CheckResult",
    "CheckStatus",
    "ContainsAllCriterion",
    "ContainsAnyCriterion",
    "ErrorEvent",
    "JsonSchemaCriterion",
    "Loop",
    "Matcher",
    "MatcherSyntaxError",
    "MismatchKind",
    "NumberCriterion",
    "RecoverySpec",
    "RefusalCriterion",
    "RegexCriterion",
    "StepSpec",
    "SubGoal",
    "SuccessCriterion",
    "TextNormalization",
    "ToolSelectionSpec",
    "TypeProfile",
    "analyze_errors",
    "bfcl_schema",
    "call_cost",
    "call_signature",
    "check_outcome",
    "check_query_overlap",
    "check_recovery",
    "check_steps",
    "check_tool_selection",
    "describe_matcher",
    "dump_matcher",
    "expectations_from_bfcl",
    "extract_numbers",
    "find_loops",
    "is_optional",
    "is_refusal",
    "load_callable",
    "match_call",
    "match_value",
    "parse_matcher",
    "query_overlap",
    "redundant_calls",
    "validate_arguments",
]
