"""Argument correctness: the matcher language, typing profiles, call expectations, matching, BFCL import.

The package is split by job; this module re-exports what the rest of pathjudge imports from it.

- :mod:`.syntax`: the matcher language (its docstring is the reference): parsing the user form and
  writing it back;
- :mod:`.matchers`: the parsed matcher models, ``is_optional`` and ``describe_matcher``;
- :mod:`.profiles`: the argument typing profiles (``lenient``, ``bfcl``); the ``bfcl`` rules
  themselves are in :mod:`pathjudge.rubrics.assertions._bfcl`;
- :mod:`.checks`: how a value fails a matcher, one check per matcher class;
- :mod:`.mismatch`: mismatch records and call results, with their reasons;
- :mod:`.schema`: JSON-schema validation of arguments;
- :mod:`.literals`: the exact value a matcher stands for (fast paths);
- :mod:`.expectation`: :class:`CallExpectation`;
- :mod:`.matching`: :func:`match_call` and :func:`call_cost` (the scoring rule);
- :mod:`.bfcl_import`: expectations from BFCL's ground truth and function docs.
"""

from __future__ import annotations

from pathjudge.rubrics.assertions.arguments.bfcl_import import bfcl_schema, expectations_from_bfcl
from pathjudge.rubrics.assertions.arguments.checks import match_value
from pathjudge.rubrics.assertions.arguments.expectation import CallExpectation
from pathjudge.rubrics.assertions.arguments.literals import (
    NOT_LITERAL,
    Leaves,
    literal_value,
    number_leaves,
    same_kinds,
)
from pathjudge.rubrics.assertions.arguments.matchers import (
    AllOfMatcher,
    AnyMatcher,
    AnyOfMatcher,
    ApproxMatcher,
    EqMatcher,
    ItemsMatcher,
    JsonType,
    KeysMatcher,
    Matcher,
    MatcherSyntaxError,
    ObjectMatcher,
    OneOfMatcher,
    RegexMatcher,
    TypeMatcher,
    describe_matcher,
    is_optional,
)
from pathjudge.rubrics.assertions.arguments.matching import call_cost, match_call
from pathjudge.rubrics.assertions.arguments.mismatch import ArgMismatch, CallMatch, MismatchKind
from pathjudge.rubrics.assertions.arguments.profiles import TYPE_PROFILES, TypeProfile
from pathjudge.rubrics.assertions.arguments.schema import validate_arguments
from pathjudge.rubrics.assertions.arguments.syntax import ArgMatcher, dump_matcher, parse_matcher

__all__ = [
    "NOT_LITERAL",
    "TYPE_PROFILES",
    "AllOfMatcher",
    "AnyMatcher",
    "AnyOfMatcher",
    "ApproxMatcher",
    "ArgMatcher",
    "ArgMismatch",
    "CallExpectation",
    "CallMatch",
    "EqMatcher",
    "ItemsMatcher",
    "JsonType",
    "KeysMatcher",
    "Leaves",
    "Matcher",
    "MatcherSyntaxError",
    "MismatchKind",
    "ObjectMatcher",
    "OneOfMatcher",
    "RegexMatcher",
    "TypeMatcher",
    "TypeProfile",
    "bfcl_schema",
    "call_cost",
    "describe_matcher",
    "dump_matcher",
    "expectations_from_bfcl",
    "is_optional",
    "literal_value",
    "match_call",
    "match_value",
    "number_leaves",
    "parse_matcher",
    "same_kinds",
    "validate_arguments",
]

# doctest.testmod(arguments) runs the examples written in the modules behind this facade
__test__ = {"parse_matcher": parse_matcher, "match_call": match_call}
