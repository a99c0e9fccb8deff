"""Matching one actual call against one :class:`~pathjudge.rubrics.assertions.arguments.expectation.CallExpectation`.

Scoring of one call (:func:`match_call`): the call fails on any mismatch; its score is the fraction of
expected arguments (the keys of ``args``) with no mismatch at or under them; a call with no expected
arguments scores 1.0; a call to a different tool scores 0.0 with one ``wrong_tool`` mismatch. An
argument the expectation does not list is an ``unexpected`` mismatch when ``extra_args`` is ``forbid``;
it does not change the score but fails the call.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pydantic import JsonValue

from pathjudge.rubrics.assertions._normalize import render_value
from pathjudge.rubrics.assertions.arguments.checks import _check
from pathjudge.rubrics.assertions.arguments.expectation import CallExpectation, _Plan
from pathjudge.rubrics.assertions.arguments.literals import NOT_LITERAL, same_kinds
from pathjudge.rubrics.assertions.arguments.matchers import describe_matcher
from pathjudge.rubrics.assertions.arguments.mismatch import ArgMismatch, CallMatch
from pathjudge.rubrics.assertions.arguments.schema import _schema_mismatches

__all__ = ["call_cost", "match_call"]


def _plan_of(expected: CallExpectation) -> _Plan:
    plan = expected.compiled
    tool, args, extra, schema, types, language = plan.source
    if (
        args is not expected.args
        or schema is not expected.json_schema
        or tool != expected.tool
        or extra != expected.extra_args
        or types != expected.types
        or language != expected.language
    ):
        # a model_copy(update=...) carried a plan built for other fields: rebuild it
        expected.__dict__.pop("compiled", None)
        plan = expected.compiled
    return plan


def match_call(
    tool: str, arguments: Mapping[str, JsonValue], expected: CallExpectation
) -> CallMatch:
    """Compare one actual call with one expectation (see the module docstring for the scoring rule).

    Mismatches come in this order: expected arguments (in ``args`` order), unexpected arguments (in
    call order), then schema findings not already reported at the same path with the same kind.

    >>> exp = CallExpectation(tool="search_docs", args={"query": {"$regex": "rate"}, "k": 2})
    >>> match_call("search_docs", {"query": "rate limits", "k": 3}, exp).reason
    '1 of 2 expected arguments of search_docs() matched; k: expected 2, got number 3'
    """
    if tool != expected.tool:
        mismatch = ArgMismatch("", f"called {tool!r}, expected {expected.tool!r}", "wrong_tool")
        return CallMatch(tool, expected.tool, False, 0.0, 0, len(expected.args), (mismatch,))
    plan = _plan_of(expected)
    mismatches: list[ArgMismatch] = []
    failed: set[str] = set()
    for name, matcher, literal, leaves, optional in plan.entries:
        if name in arguments:
            value = arguments[name]
            if (
                literal is not NOT_LITERAL
                and type(value) is type(literal)
                and value == literal
                and (not leaves or same_kinds(value, leaves))
            ):
                continue
            before = len(mismatches)
            _check(matcher, value, name, mismatches, plan.profile)
            if len(mismatches) > before:
                failed.add(name)
        elif not optional:
            mismatches.append(
                ArgMismatch(name, f"missing (expected {describe_matcher(matcher)})", "missing")
            )
            failed.add(name)
    if plan.forbid_extra:
        for name in arguments:
            if name not in plan.names:
                mismatches.append(
                    ArgMismatch(
                        name,
                        f"unexpected argument (value {render_value(arguments[name])})",
                        "unexpected",
                    )
                )
    if plan.validator is not None:
        seen = {(m.path, m.kind) for m in mismatches}
        for finding in _schema_mismatches(plan.validator, arguments):
            if (finding.path, finding.kind) in seen:
                continue
            seen.add((finding.path, finding.kind))
            mismatches.append(finding)
            head = re.split(r"[.\[]", finding.path, maxsplit=1)[0]
            if head in plan.names:
                failed.add(head)
    if not mismatches:
        return plan.success
    total = len(expected.args)
    matched = total - len(failed)
    score = matched / total if total else 1.0
    return CallMatch(tool, expected.tool, not mismatches, score, matched, total, tuple(mismatches))


def call_cost(tool: str, arguments: Mapping[str, JsonValue], expected: CallExpectation) -> float:
    """Cost of pairing this call with ``expected`` for optimal assignment.

    0.0 for a full match; ``2 - score`` otherwise, so any failed pair costs between 1 and 2 (2 for a
    different tool). A full match is always cheaper than any failed pair; among failed pairs, more
    matched arguments is cheaper. Price "leaving a call unpaired" at more than 2 to prefer pairing.
    """
    return match_call(tool, arguments, expected).cost
