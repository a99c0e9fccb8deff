"""The shortcuts of the step checks agree with the plain definitions they stand in for.

``canonical_key`` stands in for ``canonical_json`` text, ``call_keys`` for ``call_signature`` text, and
``redundant_calls`` / ``find_loops`` (which share one key computation per run) must give what the
definitions over signature texts give, written out here the plain way.
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import JsonValue

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics.assertions._normalize import canonical_json, canonical_key
from pathjudge.rubrics.assertions.steps import (
    Loop,
    StepSpec,
    call_keys,
    call_signature,
    check_steps,
    find_loops,
    redundant_calls,
)

# Few distinct atoms, so that equal canonical forms come up often: case, stray whitespace, 1 vs 1.0
# vs True, and non-finite floats.
_ATOMS: list[JsonValue] = [
    "x",
    "X ",
    " x",
    "a  b",
    "A B",
    "y",
    "",
    1,
    1.0,
    -0.0,
    0,
    2.5,
    True,
    False,
    None,
    math.inf,
    -math.inf,
    math.nan,
]
_json: st.SearchStrategy[JsonValue] = st.recursive(
    st.sampled_from(_ATOMS) | st.builds(float, st.just("nan")),  # NaN objects of their own
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["k", "K", "q"]), inner, max_size=3)
    ),
    max_leaves=6,
)


# Each atom's neighbours: values with the same canonical text, and values close to it with another.
_NEIGHBOURS: dict[str, list[JsonValue]] = {
    "x": ["x", "X ", " x", "y", "X"],
    "a  b": ["a b", "A B", "ab", " a\tb "],
    "1": [1, 1.0, True, 0, 2.5, "1"],
    "0": [0, -0.0, 0.0, False, None, "0"],
    "inf": [math.inf, -math.inf, math.nan, 1e308, "Infinity"],
}


def _neighbour(value: JsonValue, data: st.DataObject) -> JsonValue:
    if isinstance(value, dict):
        items = [(k, _neighbour(v, data)) for k, v in value.items()]
        return dict(data.draw(st.permutations(items)))
    if isinstance(value, list):
        return [_neighbour(v, data) for v in value]
    for pool in _NEIGHBOURS.values():
        if any(type(value) is type(p) and (value == p or value != value) for p in pool):
            return data.draw(st.sampled_from(pool))
    return value


@settings(max_examples=400, deadline=None)
@given(_json, _json, st.data())
def test_canonical_key_equal_exactly_when_canonical_json_equal(
    a: JsonValue, other: JsonValue, data: st.DataObject
) -> None:
    for b in (other, _neighbour(a, data)):
        same_text = canonical_json(a) == canonical_json(b)
        assert (canonical_key(a) == canonical_key(b)) == same_text
        if same_text:
            assert hash(canonical_key(a)) == hash(canonical_key(b))
    assert canonical_key(a) == canonical_key(a)  # non-finite floats become comparable markers


def test_canonical_key_keeps_booleans_apart_from_numbers() -> None:
    assert canonical_json(True) != canonical_json(1)
    assert canonical_key(True) != canonical_key(1)
    assert canonical_key([True]) != canonical_key([1])
    assert canonical_key({"a": "Rate Limit", "b": 5.0}) == canonical_key(
        {"b": 5, "a": "Rate Limit"}
    )
    assert canonical_key({"a": " Rate  Limit "}) != canonical_key({"a": "rate limit"})
    assert canonical_key({}) != canonical_key([])
    # two NaNs (separate objects, as two parsed lines give) are the same argument, as their texts are
    assert canonical_json(float("nan")) == canonical_json(float("nan"))
    assert canonical_key(float("nan")) == canonical_key(float("nan"))
    assert canonical_key([float("nan")]) == canonical_key([float("nan")])
    assert canonical_key(math.inf) != canonical_key(-math.inf)


# Tool names with spaces are where signature texts of different tools can collide.
_TOOLS = ["search", "lookup", "a", "a raw:x", "a b"]
_step = st.one_of(
    st.builds(
        Step,
        tool=st.sampled_from(_TOOLS),
        turn=st.just(0),
        arguments=st.dictionaries(st.sampled_from(["q", "k"]), _json, max_size=2),
        is_error=st.booleans(),
    ),
    st.builds(
        Step,
        tool=st.sampled_from(_TOOLS),
        turn=st.just(0),
        arguments_error=st.just("bad json"),
        raw_arguments=st.sampled_from(["{}", "{ }", "x {}", "{Q: 1", "{q: 1"]),
        is_error=st.booleans(),
    ),
)
_runs = st.lists(_step, max_size=8).map(
    lambda steps: RunRecord(
        run_id="r",
        task_id="t",
        steps=tuple(s.model_copy(update={"turn": i}) for i, s in enumerate(steps)),
    )
)


def _plain_redundant(run: RunRecord) -> list[tuple[int, int]]:
    """The definition over signature texts."""
    first: dict[str, int] = {}
    errored: dict[str, bool] = {}
    pairs: list[tuple[int, int]] = []
    for index, step in enumerate(run.steps):
        sig = call_signature(step)
        if sig in first and not errored[sig]:
            pairs.append((first[sig], index))
        first.setdefault(sig, index)
        errored[sig] = step.is_error
    return pairs


def _plain_loops(run: RunRecord, threshold: int, max_period: int = 3) -> list[Loop]:
    """The loop search over signature texts, without any shortcut."""
    sigs = [call_signature(step) for step in run.steps]
    n = len(sigs)
    covered = [False] * n
    loops: list[Loop] = []
    for period in range(1, max_period + 1):
        start = 0
        while start + period * threshold <= n:
            block = sigs[start : start + period]
            if any(covered[start : start + period]):
                start += 1
                continue
            repeats = 1
            while (
                start + (repeats + 1) * period <= n
                and sigs[start + repeats * period : start + (repeats + 1) * period] == block
                and not any(covered[start + repeats * period : start + (repeats + 1) * period])
            ):
                repeats += 1
            if repeats >= threshold:
                for index in range(start, start + repeats * period):
                    covered[index] = True
                tools = tuple(step.tool for step in run.steps[start : start + period])
                loops.append(Loop(start=start, period=period, repeats=repeats, tools=tools))
                start += repeats * period
            else:
                start += 1
    loops.sort(key=lambda loop: loop.start)
    return loops


@settings(max_examples=400, deadline=None)
@given(_runs)
def test_call_keys_equal_exactly_when_signatures_equal(run: RunRecord) -> None:
    keys = call_keys(run.steps)
    sigs = [call_signature(step) for step in run.steps]
    if keys is None:
        assert len(set(sigs)) == len(sigs)
        return
    assert len(keys) == len(sigs)
    for i in range(len(sigs)):
        for j in range(len(sigs)):
            assert (keys[i] == keys[j]) == (sigs[i] == sigs[j])


def test_tools_with_spaces_fall_back_to_the_signature_text() -> None:
    # tool "a raw:x" with arguments {} and tool "a" with unparsed arguments "x {}" are the same call
    same = RunRecord(
        run_id="r",
        task_id="t",
        steps=(
            Step(tool="a raw:x", turn=0),
            Step(tool="a", turn=1, arguments_error="bad", raw_arguments="x {}"),
        ),
    )
    assert call_signature(same.steps[0]) == call_signature(same.steps[1])
    assert redundant_calls(same) == [(0, 1)]


@settings(max_examples=400, deadline=None)
@given(_runs, st.integers(min_value=2, max_value=4))
def test_redundancy_and_loops_match_the_definitions(run: RunRecord, threshold: int) -> None:
    assert redundant_calls(run) == _plain_redundant(run)
    assert find_loops(run, threshold) == _plain_loops(run, threshold)
    results = {r.check: r for r in check_steps(run, StepSpec(loop_threshold=threshold))}
    pairs = _plain_redundant(run)
    assert results["steps.redundant"].details["count"] == len(pairs)
    assert results["steps.redundant"].details["pairs"] == [list(p) for p in pairs]
    assert results["steps.loop"].details["loops"] == [
        loop.as_dict() for loop in _plain_loops(run, threshold)
    ]
