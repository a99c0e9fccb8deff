"""Each remaining shortcut of the check pipeline is pinned to the plain path it stands in for.

- a reference step whose arguments are all exact values compares a call's arguments as one JSON value
  (:func:`~pathjudge.rubrics.path.literal_arguments`) before running the matchers;
- a task plan answers the recovery checks of a run without tool errors from results computed once
  (:attr:`~pathjudge.rubrics.checks.TaskPlan.recovery_clean`).

(The aligner's cheap exits are pinned in ``test_path_memo.py``.)
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics.assertions.arguments import match_call
from pathjudge.rubrics.assertions.recovery import RecoverySpec, check_recovery
from pathjudge.rubrics.checks import plan_task, recovery
from pathjudge.rubrics.path import ArgDiff, ReferencePath, StepMatch, compile_reference
from pathjudge.rubrics.suite import Task

VALUES: list[Any] = ["x", "X", " x", "y", 1, 1.0, True, None, [], {}, {"a": "x"}]


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["a", "b", "c"]), st.sampled_from(["x", "y", "é"]), max_size=3),
    st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), st.sampled_from(VALUES), max_size=4),
    st.sampled_from(["forbid", "allow"]),
)
def test_literal_arguments_shortcut_equals_the_matchers(
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


@settings(max_examples=400, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["a", "b"]), _JSON, max_size=2),
    st.dictionaries(st.sampled_from(["a", "b", "c"]), _JSON, max_size=3),
    st.booleans(),
    st.sampled_from(["lenient", "bfcl"]),
)
@example({"a": [1, {"p": False}]}, {"a": [True, {"p": False}]}, False, "lenient")
@example({"a": [1, {"p": False}]}, {"a": [1.0, {"p": 0}]}, False, "lenient")
@example({"a": {"p": None, "q": "x"}}, {"a": {"p": None, "q": "x"}}, False, "lenient")
def test_nested_literal_shortcut_equals_the_matchers(
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
