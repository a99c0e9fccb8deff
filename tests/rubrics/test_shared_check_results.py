"""Each shortcut of the check pipeline gives what the plain path it stands in for gives.

- a reference step whose arguments are all exact values compares a call's arguments as one JSON value
  (:func:`~pathjudge.rubrics.path.literal_arguments`) before running the matchers;
- a task plan answers the recovery checks of a run without tool errors from results computed once
  (:attr:`~pathjudge.rubrics.checks.TaskPlan.recovery_clean`);
- a contains criterion builds the verdict for each distinct set of values found once and shares it
  (:meth:`~pathjudge.rubrics.assertions.outcome.ContainsAnyCriterion.verdict_for`), and
  ``tools.required`` is built once per (required, missing) pair, and the common outcomes of
  ``recovery.recovered``, ``recovery.ending`` and ``arguments.match`` once per distinct value: each
  reads as the result built for the run, and the shared details cannot be changed.

(The aligner's cheap exits are checked in ``test_path_cheap_exits.py``.)
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics.assertions.arguments import match_call
from pathjudge.rubrics.assertions.outcome import (
    _VERDICTS_KEPT,
    ContainsAllCriterion,
    ContainsAnyCriterion,
    check_outcome,
)
from pathjudge.rubrics.assertions.recovery import RecoverySpec, check_recovery
from pathjudge.rubrics.assertions.tools import ToolSelectionSpec, check_tool_selection
from pathjudge.rubrics.checks import argument_match, plan_task, recovery
from pathjudge.rubrics.path import ArgDiff, ReferencePath, StepMatch, compile_reference
from pathjudge.rubrics.suite import Task

VALUES: list[Any] = ["x", "X", " x", "y", 1, 1.0, True, None, [], {}, {"a": "x"}]


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["a", "b", "c"]), st.sampled_from(["x", "y", "é"]), max_size=3),
    st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), st.sampled_from(VALUES), max_size=4),
    st.sampled_from(["forbid", "allow"]),
)
def test_literal_arguments_compared_as_one_value_equal_the_matchers(
    expected: dict[str, str], given_args: dict[str, Any], extra: str
) -> None:
    reference = ReferencePath.model_validate(
        {"mode": "strict", "steps": [{"tool": "t", "args": expected, "extra_args": extra}]}
    )
    (ref,) = compile_reference(reference)
    step = Step(tool="t", turn=0, arguments=given_args)
    found = ref.matcher(step)
    plain = match_call("t", given_args, reference.steps[0])
    assert found == StepMatch(
        plain.ok,
        plain.score,
        tuple(ArgDiff(path=m.path, reason=m.reason, kind=m.kind) for m in plain.mismatches),
    )


_steps = st.lists(
    st.builds(
        Step,
        tool=st.sampled_from(["a", "b"]),
        turn=st.integers(0, 3),
        arguments=st.sampled_from([{}, {"q": 1}]),
        is_error=st.just(False),
        result=st.sampled_from([None, "ok", "Error: x"]),
    ),
    max_size=5,
)


@settings(max_examples=200, deadline=None)
@given(
    _steps,
    st.sampled_from([None, "", "answer"]),
    st.booleans(),
    st.integers(0, 3),
)
def test_recovery_of_an_error_free_run_equals_the_check(
    steps: list[Step], answer: str | None, require: bool, budget: int
) -> None:
    spec = RecoverySpec(require_recovery=require, retry_budget=budget)
    task = Task(id="t", recovery=spec)
    ordered = tuple(sorted(steps, key=lambda step: step.turn))
    run = RunRecord(run_id="r", task_id="t", steps=ordered, final_answer=answer)
    assert recovery(run, plan_task(task)) == check_recovery(run, spec)


_WS = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\xa0", "\u2000", "\u2028", "\u3000"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*_WS, "a", "É", "ß", "-", "\u200b"]), max_size=12))
def test_collapse_whitespace_is_the_regex_rule(parts: list[str]) -> None:
    import re

    from pathjudge.rubrics.assertions._normalize import collapse_whitespace

    text = "".join(parts)
    assert collapse_whitespace(text) == re.sub(r"\s+", " ", text).strip()


_JSON = st.recursive(
    st.sampled_from(["x", "X", "é", 1, 1.0, 0, True, False, None, 2.5]),
    lambda inner: (
        st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from("pq"), inner, max_size=2)
    ),
    max_leaves=4,
)


# expected arguments, the call's arguments, whether the call passes the expected ones, the profile
_LITERAL_CASES = (
    st.dictionaries(st.sampled_from(["a", "b"]), _JSON, max_size=2),
    st.dictionaries(st.sampled_from(["a", "b", "c"]), _JSON, max_size=3),
    st.booleans(),
    st.sampled_from(["lenient", "bfcl"]),
)


@settings(max_examples=400, deadline=None)
@given(*_LITERAL_CASES)
@example({"a": [1, {"p": False}]}, {"a": [True, {"p": False}]}, False, "lenient")
@example({"a": [1, {"p": False}]}, {"a": [1.0, {"p": 0}]}, False, "lenient")
@example({"a": {"p": None, "q": "x"}}, {"a": {"p": None, "q": "x"}}, False, "lenient")
def test_nested_literal_arguments_compared_as_one_value_equal_the_matchers(
    expected: dict[str, Any], given_args: dict[str, Any], same: bool, types: str
) -> None:
    # literal lists, objects, numbers, booleans and nulls (Python's == takes True for 1: JSON not)
    if same:
        given_args = {**expected}
    reference = ReferencePath.model_validate(
        {"mode": "strict", "steps": [{"tool": "t", "args": expected, "types": types}]}
    )
    (ref,) = compile_reference(reference)
    step = Step(tool="t", turn=0, arguments=given_args)
    plain = match_call("t", given_args, reference.steps[0])
    assert ref.matcher(step) == StepMatch(
        plain.ok,
        plain.score,
        tuple(ArgDiff(path=m.path, reason=m.reason, kind=m.kind) for m in plain.mismatches),
    )


@settings(max_examples=400, deadline=None)
@given(*_LITERAL_CASES, st.sampled_from(["forbid", "allow"]))
@example({"a": [1, {"p": False}]}, {"a": [True, {"p": False}]}, False, "lenient", "forbid")
@example({"a": [1, {"p": False}]}, {"a": [1.0, {"p": 0}]}, False, "lenient", "forbid")
@example({"a": [1]}, {"a": [1.0]}, False, "bfcl", "forbid")
def test_an_argument_equal_to_its_literal_is_matched_as_the_matchers_match_it(
    expected: dict[str, Any], given_args: dict[str, Any], same: bool, types: str, extra: str
) -> None:
    # match_call skips the matchers of an argument equal to its literal (a scalar, or under the
    # lenient profile a literal list or object with bools where the literal has them): the same
    # result as the matchers, run here through an $all_of of one part, which is never a literal
    from pathjudge.rubrics.assertions.arguments import AllOfMatcher, CallExpectation, is_optional

    if same:
        given_args = {**expected}
    fast = CallExpectation.model_validate(
        {"tool": "t", "args": expected, "types": types, "extra_args": extra}
    )
    wrapped = {
        name: AllOfMatcher(parts=(matcher,), optional=is_optional(matcher))
        for name, matcher in fast.args.items()
    }
    plain = fast.model_copy(update={"args": wrapped})
    assert match_call("t", given_args, fast) == match_call("t", given_args, plain)


_WORDS = ["Café", "cafe", "Straße", "x", "refund", "A17"]


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from([ContainsAnyCriterion, ContainsAllCriterion]),
    st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4, unique=True),
    st.sampled_from(["casefold", "none", "bfcl"]),
    st.lists(st.text(alphabet=" xaéfCAÉS17ßrund", max_size=30), min_size=1, max_size=6),
)
def test_shared_contains_verdicts_equal_a_fresh_build(
    kind: type[ContainsAnyCriterion] | type[ContainsAllCriterion],
    values: list[str],
    normalize: str,
    answers: list[str],
) -> None:
    shared = kind.model_validate({"values": values, "normalize": normalize})
    for answer in [*answers, *answers]:  # the second round finds the verdicts kept
        run = RunRecord(run_id="r", task_id="t", final_answer=answer + " " + values[0][:1])
        fresh = kind.model_validate({"values": values, "normalize": normalize})  # empty table
        got = check_outcome(run, shared)
        assert got == check_outcome(run, fresh)
        assert got.to_dict() == check_outcome(run, fresh).to_dict()
    assert len(shared._verdicts) <= _VERDICTS_KEPT


def test_shared_contains_verdicts_are_frozen_and_bounded() -> None:
    values = [f"v{i}" for i in range(8)]  # 256 possible sets found: more than are kept
    criterion = ContainsAllCriterion(values=tuple(values))
    first = check_outcome(RunRecord(run_id="a", task_id="t", final_answer="v1 v2"), criterion)
    again = check_outcome(RunRecord(run_id="b", task_id="t", final_answer="v2 v1"), criterion)
    assert first.details is again.details  # shared...
    try:
        first.details["found"].append("v3")  # type: ignore[attr-defined]
    except TypeError:
        pass
    else:  # pragma: no cover - the test fails here
        raise AssertionError("shared details must be immutable")
    assert again.details["found"] == ["v1", "v2"]  # ...and unchanged
    for mask in range(256):
        answer = " ".join(v for i, v in enumerate(values) if mask >> i & 1) or "none"
        run = RunRecord(run_id="c", task_id="t", final_answer=answer)
        assert check_outcome(run, criterion).score == (1.0 if mask == 255 else 0.0)
    assert len(criterion._verdicts) <= _VERDICTS_KEPT


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=3, unique=True),
    st.lists(st.sampled_from(["a", "b", "c", "e"]), max_size=5),
)
def test_shared_required_result_equals_its_reason(required: list[str], called: list[str]) -> None:
    spec = ToolSelectionSpec(required=tuple(required))
    run = RunRecord(
        run_id="r", task_id="t", steps=tuple(Step(tool=t, turn=i) for i, t in enumerate(called))
    )
    (result,) = check_tool_selection(run, spec)
    missing = [t for t in required if t not in called]
    found = len(required) - len(missing)
    assert result.status == ("fail" if missing else "pass")
    assert result.score == found / len(required)
    assert result.reason == f"called {found} of {len(required)} required tools" + (
        f"; missing: {', '.join(missing)}" if missing else ""
    )
    assert result.to_dict()["details"] == {"missing": missing, "required": required}


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.builds(
            Step,
            tool=st.sampled_from(["a", "b"]),
            turn=st.integers(0, 2),
            arguments=st.sampled_from([{}, {"q": 1}]),
            is_error=st.booleans(),
        ),
        min_size=1,
        max_size=5,
    ).map(lambda steps: sorted(steps, key=lambda s: s.turn)),
    st.sampled_from([None, "", "  ", "the answer"]),
    st.booleans(),
)
def test_shared_recovery_results_read_as_built(
    steps: list[Step], answer: str | None, require: bool
) -> None:
    run = RunRecord(run_id="r", task_id="t", steps=tuple(steps), final_answer=answer)
    spec = RecoverySpec(require_recovery=require)
    found = {r.check: r for r in check_recovery(run, spec)}
    errors = [i for i, s in enumerate(steps) if s.is_error]
    if not errors:
        return
    if require:
        recovered = sum(1 for i in errors if any(not s.is_error for s in steps[i + 1 :]))
        result = found["recovery.recovered"]
        assert result.score == recovered / len(errors)
        assert result.reason.startswith(
            f"{recovered} of {len(errors)} errors followed by a successful call"
        )
        assert result.to_dict()["details"] == {"recovered": recovered, "errors": len(errors)}
    else:
        assert "recovery.recovered" not in found
    answered = bool(answer and answer.strip())
    last = steps[-1].is_error
    ending = found["recovery.ending"]
    assert ending.status == ("fail" if last and not answered else "pass")
    assert ending.to_dict()["details"] == {"last_step_errored": last, "answered": answered}
    if not (last and not answered):
        assert ending.reason == (
            "the last call errored but the run still gave a final answer"
            if last
            else "the run did not end on an error"
        )


def test_shared_argument_match_results_read_as_built() -> None:
    task = Task.model_validate(
        {
            "id": "t",
            "input": "q",
            "arguments": [{"tool": "b", "args": {"q": 1}}, {"tool": "a", "args": {"q": 1}}],
        }
    )
    plan = plan_task(task)

    def match(*calls: dict[str, Any]) -> dict[str, Any]:
        steps = tuple(
            Step(tool=t, turn=i, arguments=args)
            for i, (t, args) in enumerate((c["tool"], c["args"]) for c in calls)
        )
        (result,) = argument_match(RunRecord(run_id="r", task_id="t", steps=steps), plan)
        return result.to_dict()

    none = match({"tool": "c", "args": {}})
    assert (none["status"], none["reason"]) == ("not_run", "no call to a, b to check")
    ok = match({"tool": "a", "args": {"q": 1}}, {"tool": "b", "args": {"q": 1}})
    assert ok["status"] == "pass"
    assert ok["score"] == 1.0
    assert ok["reason"] == "2 of 2 calls to a, b matched their expectation"
    assert ok["details"] == {"checked": 2, "failed": 0}
    bad = match({"tool": "a", "args": {"q": 2}}, {"tool": "b", "args": {"q": 1}})
    assert bad["status"] == "fail"
    assert bad["score"] == 0.5
    assert bad["reason"].startswith("1 of 2 calls to a, b matched their expectation; call #1 a: ")
    assert bad["details"] == {"checked": 2, "failed": 1}


_REFUSAL_TEXT = st.lists(
    st.sampled_from(
        [
            "I ",
            "don't have",
            "don\u2019t have",
            "DON\u2018T HAVE",
            "Do Not Have",
            " that in the ",
            "docs",
            "Information",
            "SEARCH",
            "cannot find",
            "I can't",
            " help",
            "we'",
            "re unable to",
            "Wi",
            "sorry, but ",
            " not ",
            ".",
            "İ",
            "ß",
            "\u2019",
            " ",
            "\n",
            "answer",
            # a form's word glued to a letter (ASCII or not) is no word of its own
            "k",
            "\u00e9",
            "no information is available",
            "outside my",
        ]
    ),
    max_size=8,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(
    _REFUSAL_TEXT,
    st.one_of(st.none(), st.lists(st.sampled_from(["DON'T HAVE", "cannot", "ß", "x"]), max_size=3)),
    st.one_of(st.none(), st.lists(st.sampled_from(["Docs", "search", "İ", "y"]), max_size=2)),
)
def test_refusal_detection_equals_the_plain_rule(
    text: str, phrases: list[str] | None, scope: list[str] | None
) -> None:
    """``is_refusal`` (the built-in forms tried only where they can start; phrases and scope words
    lower-cased once per list; loops that stop at the first hit) is the plain rule: a built-in form
    found by one search of the whole text, or some phrase, and, unless no scope words are given, some
    scope word, in the lower-cased text, curly apostrophes as straight."""
    import re

    from pathjudge.rubrics.assertions import _refusal
    from pathjudge.rubrics.assertions.outcome import is_refusal

    used_phrases = () if phrases is None else tuple(phrases)
    used_scope = () if scope is None else tuple(scope)
    lowered = text.lower().replace("\u2019", "'").replace("\u2018", "'").replace("\u02bc", "'")
    builtin = re.compile(
        r"(?<![^\W_])(?:i(?=[ '])(?:" + _refusal._I_FORM + r")"
        r"|we(?=[ '])(?:" + _refusal._WE_FORM + r"))"
        r"|" + "|".join(form for _, form in _refusal._OTHER_FORMS)
    )
    plain = (
        bool(text.strip())
        and (builtin.search(lowered) is not None or any(p.lower() in lowered for p in used_phrases))
        and (not used_scope or any(w.lower() in lowered for w in used_scope))
    )
    assert is_refusal(text, used_phrases, used_scope) is plain
    assert is_refusal(text, list(used_phrases), list(used_scope)) is plain


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.booleans()), max_size=6),
    st.sampled_from(["count", "ignore"]),
)
def test_valid_json_answers_the_plain_count(calls: list[tuple[bool, bool]], policy: str) -> None:
    """``arguments.valid_json`` (a run whose calls all parsed answered without listing them) reads
    as the plain rule: the share of looked-at calls whose arguments parsed, none when none is
    looked at (with ``errored_calls: ignore``, errored calls are not looked at)."""
    from pathjudge.rubrics.checks import argument_validity

    steps = [
        Step(tool="t", turn=i, arguments_error="bad" if bad else None, is_error=errored)
        for i, (bad, errored) in enumerate(calls)
    ]
    task = Task.model_validate({"id": "t", "errored_calls": policy})
    found = argument_validity(RunRecord(run_id="r", task_id="t", steps=steps), plan_task(task))
    looked = [i for i, (_, errored) in enumerate(calls) if policy == "count" or not errored]
    if not looked:
        assert found == ()
        return
    (result,) = found
    bad = [i for i in looked if calls[i][0]]
    assert result.status == ("fail" if bad else "pass")
    assert result.score == (len(looked) - len(bad)) / len(looked)
    assert list(result.details["malformed"]) == bad


@pytest.mark.parametrize(
    "text",
    ["casino information is available", "That is knot in my scope", "a knot in my scope \u00e9"],
)
def test_a_form_word_inside_a_longer_word_is_no_refusal_in_any_script(text: str) -> None:
    """The forms that open on a word ("not", "no", "outside") open on a whole word, so a non-ASCII
    answer (never screened by words before) reads as its ASCII twin."""
    from pathjudge.rubrics.assertions.outcome import is_refusal

    assert is_refusal(text, (), ()) is False
    assert is_refusal(text.replace("knot", "not").replace("casino", "no"), (), ()) is True


def test_a_negation_glued_to_an_apostrophe_still_opens_the_refusal_forms() -> None:
    """Found by the property test above: the word screen must not hide "cannot" in "we'cannot"."""
    from pathjudge.rubrics.assertions.outcome import is_refusal

    assert is_refusal("sorry, but we'cannot find", (), ()) is True
