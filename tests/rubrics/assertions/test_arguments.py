"""The matcher language: every operator, the plain forms, paths, scores, and syntax errors."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from pathjudge.rubrics.assertions.arguments import (
    AnyOfMatcher,
    CallExpectation,
    EqMatcher,
    ItemsMatcher,
    MatcherSyntaxError,
    ObjectMatcher,
    OneOfMatcher,
    call_cost,
    dump_matcher,
    match_call,
    match_value,
    parse_matcher,
    validate_arguments,
)


def kinds(matcher: Any, value: Any) -> list[tuple[str, str]]:
    return [(m.path, m.kind) for m in match_value(parse_matcher(matcher), value, "x")]


# --- plain forms -------------------------------------------------------------------------------


def test_scalar_is_exact_json_equality() -> None:
    assert kinds(5, 5) == []
    assert kinds(5, 5.0) == []  # JSON has one number type
    assert kinds(5, 6) == [("x", "wrong_value")]
    assert kinds(1, True) == [("x", "wrong_type")]  # a bool is never a number
    assert kinds("Paris", "paris") == [("x", "wrong_value")]  # exact: case matters
    assert kinds("5", 5) == [("x", "wrong_type")]
    assert kinds(None, None) == []
    assert kinds("", "") == []


def test_plain_list_matches_elementwise_in_order() -> None:
    assert kinds([1, 2], [1, 2]) == []
    assert kinds([1, 2], [2, 1]) == [("x[0]", "wrong_value"), ("x[1]", "wrong_value")]
    assert kinds([1, 2], [1]) == [("x", "wrong_value")]
    assert kinds([], []) == []
    assert kinds([], [1]) == [("x", "wrong_value")]
    assert kinds([1], "1") == [("x", "wrong_type")]
    assert kinds([1, {"$approx": 2.0, "$abs": 0.1}], [1, 2.05]) == []


def test_plain_mapping_is_a_nested_object_with_paths() -> None:
    spec = {"date": ["2024-01-01", {"$regex": "^2024"}], "plan": "Pro"}
    assert kinds(spec, {"date": ["2024-01-01", "2024-02-01"], "plan": "Pro"}) == []
    assert kinds(spec, {"date": ["2024-01-01", "2023-02-01"], "plan": "Pro"}) == [
        ("x.date[1]", "wrong_value")
    ]
    assert kinds(spec, {"date": ["2024-01-01", "2024-02-01"]}) == [("x.plan", "missing")]
    assert kinds(spec, {"date": ["2024-01-01", "2024"], "plan": "Pro", "k": 1}) == [
        ("x.k", "unexpected")
    ]
    assert kinds({}, {}) == []
    assert kinds({}, {"a": 1}) == [("x.a", "unexpected")]
    assert kinds({"a": 1}, [1]) == [("x", "wrong_type")]


# --- operators ---------------------------------------------------------------------------------


def test_eq_takes_a_literal_even_with_dollar_keys_and_normalises_on_request() -> None:
    assert kinds({"$eq": {"$regex": "a"}}, {"$regex": "a"}) == []
    assert kinds({"$eq": {"a": 1}}, {"a": 1, "b": 2}) == [("x", "wrong_value")]
    assert kinds({"$eq": "Rate  Limit", "$normalize": "casefold"}, " rate limit ") == []
    assert kinds({"$eq": "April 1, 2024", "$normalize": "bfcl"}, "april 1 2024") == []
    assert kinds({"$eq": "April 1, 2024", "$normalize": "none"}, "april 1 2024") == [
        ("x", "wrong_value")
    ]


def test_one_of_follows_bfcl_possible_answer_rules() -> None:
    spec = {"$one_of": ["New York, NY", "NYC"]}
    assert kinds(spec, "new york ny") == []  # bfcl: case, spaces, punctuation ignored
    assert kinds(spec, "nyc") == []
    assert kinds(spec, "Boston") == [("x", "wrong_value")]
    assert kinds(spec, 5) == [("x", "wrong_type")]
    assert kinds({"$one_of": [5.0]}, 5) == []  # int accepted where a float is listed
    assert kinds({"$one_of": [[1, 2]]}, [2, 1]) == [("x", "wrong_value")]  # order-sensitive
    assert kinds({"$one_of": [["A b"]]}, ["ab"]) == []  # strings inside lists normalised
    assert kinds({"$one_of": ["x"], "$normalize": "none"}, "X") == [("x", "wrong_value")]
    assert kinds({"$one_of": [True]}, 1) == [("x", "wrong_type")]


def test_approx() -> None:
    assert kinds({"$approx": 3.14, "$abs": 0.01}, 3.149) == []
    assert kinds({"$approx": 3.14, "$abs": 0.01}, 3.16) == [("x", "wrong_value")]
    assert kinds({"$approx": 100, "$rel": 0.05}, 104) == []  # |4| <= 0.05 * 104
    assert kinds({"$approx": 100, "$rel": 0.05}, 106) == [("x", "wrong_value")]
    assert kinds({"$approx": 1}, 1.0) == []
    assert kinds({"$approx": 1}, "1") == [("x", "wrong_type")]
    assert kinds({"$approx": 1}, True) == [("x", "wrong_type")]


def test_regex_any_type() -> None:
    assert kinds({"$regex": "rate ?limit"}, "Free plan ratelimit") == []
    assert kinds({"$regex": "^rate$"}, "rate limit") == [("x", "wrong_value")]
    assert kinds({"$regex": "RATE", "$ignore_case": True}, "rate") == []
    assert kinds({"$regex": "1"}, 1) == [("x", "wrong_type")]
    assert kinds({"$any": True}, None) == []
    assert kinds({"$type": "integer"}, 2.0) == []
    assert kinds({"$type": "integer"}, 2.5) == [("x", "wrong_type")]
    assert kinds({"$type": "integer"}, True) == [("x", "wrong_type")]
    assert kinds({"$type": "number"}, 2) == []
    assert kinds({"$type": ["string", "null"]}, None) == []
    assert kinds({"$type": "object"}, {}) == []


def test_subset_and_superset() -> None:
    superset = {"$superset": {"a": 1}}
    assert kinds(superset, {"a": 1, "b": 2}) == []
    assert kinds(superset, {"b": 2}) == [("x.a", "missing")]
    assert kinds(superset, {"a": 2}) == [("x.a", "wrong_value")]
    subset = {"$subset": {"a": 1, "b": 2}}
    assert kinds(subset, {}) == []
    assert kinds(subset, {"a": 1}) == []
    assert kinds(subset, {"a": 1, "c": 3}) == [("x.c", "unexpected")]
    assert kinds(subset, "ab") == [("x", "wrong_type")]


def test_all_of_any_of_and_optional() -> None:
    assert kinds({"$all_of": [{"$type": "string"}, {"$regex": "^a"}]}, "abc") == []
    assert kinds({"$all_of": [{"$type": "string"}, {"$regex": "^a"}]}, "bc") == [
        ("x", "wrong_value")
    ]
    assert kinds({"$any_of": [1, {"$regex": "^a"}]}, "abc") == []
    assert kinds({"$any_of": [1, {"$regex": "^a"}]}, "b") == [("x", "wrong_value")]
    nested = {"a": {"$type": "string", "$optional": True}, "b": {"$one_of": ["", "x"]}}
    assert kinds(nested, {}) == []


# --- syntax errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"$regx": "a"}, "unknown matcher key '$regx' (did you mean '$regex'?)"),
        ({"$one_of": ["a"], "$normalise": "bfcl"}, "unknown matcher key '$normalise'"),
        ({"$regex": "a", "plan": 1}, "mixes operator keys ($regex) with plain keys (plan)"),
        ({"$rel": 0.1}, "has only modifier keys ($rel)"),
        ({"$eq": 1, "$regex": "a"}, "combines the operators $eq, $regex"),
        ({"$regex": "a", "$rel": 0.1}, "$rel does not apply to $regex; it goes with $approx"),
        ({"$regex": "("}, "$regex pattern '(' does not compile"),
        ({"$regex": 5}, "$regex takes a pattern string"),
        ({"$one_of": []}, "$one_of takes a non-empty list"),
        ({"$one_of": "a"}, "$one_of takes a non-empty list"),
        ({"$type": "int"}, 'unknown $type "int"'),
        ({"$eq": "a", "$normalize": "lower"}, 'unknown $normalize mode "lower"'),
        ({"$any": False}, "$any takes only true"),
        ({"$approx": "1"}, "$approx takes a number"),
        ({"$approx": 1, "$rel": -1}, "must not be negative"),
        ({"$eq": 1, "$optional": "yes"}, "$optional takes true or false"),
        ({"$superset": [1]}, "$superset takes a mapping"),
        ({"$all_of": []}, "$all_of takes a non-empty list"),
    ],
)
def test_bad_matcher_is_a_clear_error_naming_the_key(spec: Any, message: str) -> None:
    with pytest.raises(MatcherSyntaxError) as info:
        parse_matcher({"filters": {"date": spec}}, "")
    assert message in str(info.value)
    assert "'filters.date'" in str(info.value)


def test_bad_matcher_inside_an_expectation_is_a_validation_error_on_args() -> None:
    with pytest.raises(ValidationError) as info:
        CallExpectation.model_validate({"tool": "t", "args": {"q": {"$regx": "a"}}})
    error = info.value.errors()[0]
    assert error["loc"] == ("args",)
    assert "matcher at 'q': unknown matcher key '$regx'" in error["msg"]


def test_expectation_rejects_typod_fields_unknown_modes_and_bad_schemas() -> None:
    with pytest.raises(ValidationError, match="arg"):
        CallExpectation.model_validate({"tool": "t", "arg": {}})
    with pytest.raises(ValidationError, match="extra_args"):
        CallExpectation.model_validate({"tool": "t", "extra_args": "ignore"})
    with pytest.raises(ValidationError, match="not a valid JSON schema"):
        CallExpectation.model_validate({"tool": "t", "json_schema": {"type": "dict"}})


def test_dump_round_trips_through_the_user_form() -> None:
    spec = {
        "tool": "search",
        "args": {
            "q": {"$regex": "^a", "$ignore_case": True},
            "k": 2,
            "f": {"a": [1, {"$approx": 2.0, "$rel": 0.1, "$abs": 0.0}], "b": {"$eq": {"$x": 1}}},
            "o": {"$one_of": ["", "x"], "$normalize": "casefold"},
            "s": {"$superset": {"a": {"$any": True}}, "$optional": True},
            "t": {"$type": ["string", "null"]},
            "u": {"$any_of": [{"$subset": {"a": 1}}, {"$all_of": [{"$type": "array"}]}]},
        },
    }
    expectation = CallExpectation.model_validate(spec)
    dumped = expectation.model_dump(mode="json")
    assert dumped["args"]["k"] == 2
    assert dumped["args"]["q"] == {"$regex": "^a", "$ignore_case": True}
    assert CallExpectation.model_validate(dumped) == expectation
    assert CallExpectation.model_validate_json(expectation.model_dump_json()) == expectation


def test_optional_object_dumps_as_all_of() -> None:
    matcher = ObjectMatcher(fields={"a": EqMatcher(value=1)}, optional=True)
    assert dump_matcher(matcher) == {"$all_of": [{"a": 1}], "$optional": True}


# --- match_call --------------------------------------------------------------------------------


def test_match_call_scores_the_fraction_of_expected_arguments() -> None:
    expected = CallExpectation(tool="search_docs", args={"query": {"$regex": "rate"}, "k": 2})
    good = match_call("search_docs", {"query": "rate limits", "k": 2}, expected)
    assert (good.ok, good.score, good.mismatches) == (True, 1.0, ())
    assert good.reason == "2 of 2 expected arguments of search_docs() matched"
    half = match_call("search_docs", {"query": "rate limits", "k": 3}, expected)
    assert (half.ok, half.score) == (False, 0.5)
    assert half.reason == (
        "1 of 2 expected arguments of search_docs() matched; k: expected 2, got number 3"
    )
    extra = match_call("search_docs", {"query": "rate", "k": 2, "lang": "en"}, expected)
    assert (extra.ok, extra.score) == (False, 1.0)  # unexpected fails the call, not the score
    assert [(m.path, m.kind) for m in extra.mismatches] == [("lang", "unexpected")]
    missing = match_call("search_docs", {"query": "rate"}, expected)
    assert [(m.path, m.kind) for m in missing.mismatches] == [("k", "missing")]


def test_match_call_wrong_tool_scores_zero() -> None:
    expected = CallExpectation(tool="search_docs", args={"query": "a"})
    result = match_call("search_web", {"query": "a"}, expected)
    assert (result.ok, result.score) == (False, 0.0)
    assert [(m.path, m.kind) for m in result.mismatches] == [("", "wrong_tool")]
    assert result.reason == "called 'search_web', expected 'search_docs'"
    assert call_cost("search_web", {"query": "a"}, expected) == 2.0


def test_match_call_with_no_expected_arguments_and_allow() -> None:
    bare = CallExpectation(tool="ping")
    assert match_call("ping", {}, bare).score == 1.0
    assert not match_call("ping", {"x": 1}, bare).ok
    allow = CallExpectation(tool="ping", extra_args="allow")
    assert match_call("ping", {"x": 1}, allow).ok


def test_call_cost_orders_full_partial_and_wrong() -> None:
    expected = CallExpectation(tool="f", args={"a": 1, "b": 2})
    assert call_cost("f", {"a": 1, "b": 2}, expected) == 0.0
    assert call_cost("f", {"a": 1, "b": 3}, expected) == 1.5  # 2 - 0.5
    assert call_cost("f", {"a": 0, "b": 3}, expected) == 2.0  # 2 - 0.0


def test_json_schema_findings_merge_without_duplicates() -> None:
    schema = {
        "type": "object",
        "properties": {"q": {"type": "string"}, "k": {"type": "integer", "maximum": 10}},
        "required": ["q"],
        "additionalProperties": False,
    }
    expected = CallExpectation(tool="s", args={"k": {"$type": "integer"}}, json_schema=schema)
    result = match_call("s", {"k": 11}, expected)
    assert [(m.path, m.kind) for m in result.mismatches] == [("q", "missing"), ("k", "schema")]
    assert result.score == 0.0  # k violates the schema's maximum
    wrong = match_call("s", {"q": 1, "k": "2"}, expected)
    assert [(m.path, m.kind) for m in wrong.mismatches] == [
        ("k", "wrong_type"),
        ("q", "unexpected"),
        ("q", "wrong_type"),
    ]


def test_validate_arguments_kinds_and_empty() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "array", "items": {"type": "integer"}}, "e": {"enum": [1]}},
        "required": ["a"],
        "additionalProperties": False,
    }
    assert validate_arguments({"a": []}, schema) == ()
    found = validate_arguments({"a": [1, "x"], "e": 2, "z": 0}, schema)
    # sorted by the path of the schema error: the root's additionalProperties, then a[1], then e
    assert [(m.path, m.kind) for m in found] == [
        ("z", "unexpected"),
        ("a[1]", "wrong_type"),
        ("e", "schema"),
    ]
    assert [(m.path, m.kind) for m in validate_arguments({}, schema)] == [("a", "missing")]


def test_parse_returns_matcher_instances_unchanged_and_builds_trees() -> None:
    one_of = OneOfMatcher(values=("a",))
    assert parse_matcher(one_of) is one_of
    tree = parse_matcher({"a": [1, {"$any_of": [1, 2]}]})
    assert isinstance(tree, ObjectMatcher)
    items = tree.fields["a"]
    assert isinstance(items, ItemsMatcher)
    assert isinstance(items.items[1], AnyOfMatcher)


def test_a_copied_expectation_does_not_reuse_a_stale_prepared_plan() -> None:
    original = CallExpectation(tool="s", args={"k": 2})
    assert match_call("s", {"k": 2}, original).ok  # prepares and caches the plan
    changed = original.model_copy(update={"args": {"k": parse_matcher(3)}})
    assert not match_call("s", {"k": 2}, changed).ok
    assert match_call("s", {"k": 3}, changed).ok
    assert match_call("s", {"k": 2}, original).ok
    assert changed != original
