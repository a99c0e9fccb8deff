"""The cheap comparisons of the step, recovery and outcome checks agree with the plain rules.

- ``canonical_equal`` is ``canonical_key`` equality (it skips building keys when a number or an
  equal string already tells);
- ``call_keys`` compares the calls of a tool called a few times, and keys the calls of a tool called
  often: both agree with ``call_signature`` text equality, and ``same_call`` too;
- a contains criterion shares its results between answers that hold the same values: checked, through
  ``check_outcome``, against the plain verdict (refusals included).
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic import JsonValue

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics.assertions._normalize import canonical_equal, canonical_key
from pathjudge.rubrics.assertions.outcome import (
    ContainsAllCriterion,
    ContainsAnyCriterion,
    _checked_outcome,
    check_outcome,
)
from pathjudge.rubrics.assertions.steps import call_keys, call_signature, same_call

# few atoms, so that equal canonical forms come up often (case, whitespace, 1 / 1.0 / True, NaN)
_ATOMS: list[JsonValue] = ["x", "X ", "a  b", "A B", "", 1, 2, 1.0, True, False, None, math.nan]
_value: st.SearchStrategy[JsonValue] = st.recursive(
    st.sampled_from(_ATOMS),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from("kq"), inner),
    max_leaves=4,
)
_arguments = st.dictionaries(st.sampled_from(["q", "k", "K"]), _value, max_size=3)


@settings(max_examples=400, deadline=None)
@given(_arguments | _value, _arguments | _value)
@example({"q": "Rate  Limit", "k": 5}, {"k": 5.0, "q": "rate limit"})
@example({"q": "a", "k": 1}, {"q": "a", "k": True})
@example({"q": "a", "k": 1}, {"q": "b", "k": 2})
def test_canonical_equal_is_canonical_key_equality(a: JsonValue, b: JsonValue) -> None:
    assert canonical_equal(a, b) is (canonical_key(a) == canonical_key(b))
    assert canonical_equal(a, a) is True


_step = st.one_of(
    st.builds(
        Step,
        tool=st.sampled_from(["search", "open"]),
        turn=st.just(0),
        arguments=_arguments,
    ),
    st.builds(
        Step,
        tool=st.sampled_from(["search", "open"]),
        turn=st.just(0),
        arguments_error=st.just("bad json"),
        raw_arguments=st.sampled_from(["{}", "{ }", "{Q: 1", "{q: 1"]),
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_step, max_size=20))
def test_call_keys_of_few_and_many_calls_of_a_tool_equal_signature_equality(
    steps: list[Step],
) -> None:
    # two tools over up to 20 calls: a tool is called both at most and more than 8 times
    keys = call_keys(steps)
    sigs = [call_signature(step) for step in steps]
    if keys is None:
        assert len(set(sigs)) == len(sigs)
        return
    for i in range(len(sigs)):
        for j in range(len(sigs)):
            assert (keys[i] == keys[j]) is (sigs[i] == sigs[j])
            if steps[i].tool == steps[j].tool:
                assert same_call(steps[i], steps[j]) is (sigs[i] == sigs[j])


_PIECES = [
    " ",
    "\t",
    "I ",
    "don't have",
    "don\u2019t have",
    "couldn't find",
    "couldn't \ufb01nd",
    "unable to",
    "can't help",
    "sorry, but ",
    " the ",
    "docs",
    "DOC",
    "Doc",
    "\u0130nformation",
    "information",
    "\u017fearch",
    "SEARCH",
    "\u212a",
    "ß",
    "Σ",
    "café",
    "x",
]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([ContainsAnyCriterion, ContainsAllCriterion]),
    st.lists(st.sampled_from(["café", "x", "a b", "docs"]), min_size=1, max_size=2, unique=True),
    st.sampled_from(["casefold", {"casefold": True}, {"casefold": True, "remove": "-"}]),
    st.lists(st.lists(st.sampled_from(_PIECES), max_size=6).map("".join), min_size=1, max_size=4),
)
def test_contains_outcome_equals_the_plain_verdict(
    kind: Any, values: list[str], normalize: Any, answers: list[str]
) -> None:
    criterion = kind.model_validate({"values": values, "normalize": normalize})
    for answer in [*answers, *answers]:  # the second round reads the shared results
        run = RunRecord(run_id="r", task_id="t", final_answer=answer)
        fresh = kind.model_validate({"values": values, "normalize": normalize})
        got = check_outcome(run, criterion)
        plain = _checked_outcome(run, fresh)
        assert got.to_dict() == plain.to_dict()
