"""Each shortcut of the checks gives what the plain path it stands in for gives.

- a contains criterion over the final answer shares one result per set of values found
  (:meth:`~pathjudge.rubrics.assertions.outcome.ContainsAllCriterion.outcome_of`), equal to the
  plain verdict;
- ``check_steps`` answers a run with nothing redundant and no loop from results built once, skips the
  loop search when too few calls repeat, and builds its details frozen;
- the recovery analysis compares a call with the next one through canonical keys instead of
  signature texts, and builds its details frozen;
- the ``casefold`` and ``none`` text normalisers are plain functions.
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics.assertions._normalize import normalize_string, text_normalizer
from pathjudge.rubrics.assertions.base import CheckResult
from pathjudge.rubrics.assertions.outcome import (
    ContainsAllCriterion,
    ContainsAnyCriterion,
    _checked_outcome,
    check_outcome,
)
from pathjudge.rubrics.assertions.recovery import (
    ErrorEvent,
    RecoverySpec,
    analyze_errors,
    check_recovery,
)
from pathjudge.rubrics.assertions.steps import (
    StepSpec,
    call_signature,
    check_steps,
    find_loops,
    redundant_in,
)

_ANSWERS = st.one_of(
    st.none(),
    st.lists(
        st.sampled_from(
            [
                "",
                " ",
                "\n",
                "Café",
                "cafe",
                "x",
                "A17",
                "refund",
                "I ",
                "don't have",
                " the docs",
                "ß",
            ]
        ),
        max_size=6,
    ).map("".join),
)


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from([ContainsAnyCriterion, ContainsAllCriterion]),
    st.lists(
        st.sampled_from(["Café", "cafe", "x", "A17", "refund"]), min_size=1, max_size=3, unique=True
    ),
    st.sampled_from(["casefold", "none", "bfcl", {"casefold": True, "remove": "-"}]),
    st.booleans(),
    st.lists(_ANSWERS, min_size=1, max_size=6),
)
@example(
    ContainsAnyCriterion, ["x"], "casefold", False, [None, " ", "x", "x", "I don't have the docs"]
)
def test_shared_outcome_equals_the_plain_verdict(
    kind: Any, values: list[str], normalize: Any, allow: bool, answers: list[str | None]
) -> None:
    criterion = kind.model_validate(
        {"values": values, "normalize": normalize, "allow_refusal": allow}
    )
    for answer in [*answers, *answers]:  # the second round reads the shared results
        run = RunRecord(run_id="r", task_id="t", final_answer=answer)
        fresh = kind.model_validate(
            {"values": values, "normalize": normalize, "allow_refusal": allow}
        )
        got = check_outcome(run, criterion)
        plain = _checked_outcome(run, fresh)
        assert got == plain
        assert got.to_dict() == plain.to_dict()


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=" \t\nAaÉéßx-İ", max_size=12))
def test_preset_normalizers_equal_normalize_string(text: str) -> None:
    for mode in ("none", "casefold", "bfcl"):
        assert text_normalizer(mode)(text) == normalize_string(text, mode)  # type: ignore[arg-type]


_step = st.one_of(
    st.builds(
        Step,
        tool=st.sampled_from(["a", "b", "c"]),
        turn=st.just(0),
        arguments=st.sampled_from([{}, {"q": "x"}, {"q": "X "}, {"q": 1}, {"q": True}]),
        is_error=st.booleans(),
    ),
    st.builds(
        Step,
        tool=st.sampled_from(["a", "b"]),
        turn=st.just(0),
        arguments_error=st.just("bad"),
        raw_arguments=st.sampled_from(["{", "{ ", "x"]),
        is_error=st.booleans(),
    ),
)
_runs = st.tuples(
    st.lists(_step, max_size=9),
    st.lists(st.booleans(), min_size=9, max_size=9),
    st.sampled_from([None, "", "answer"]),
).map(
    lambda t: RunRecord(
        run_id="r",
        task_id="t",
        # turns: a new turn where the flag says so (parallel calls otherwise)
        steps=tuple(s.model_copy(update={"turn": sum(t[1][: i + 1])}) for i, s in enumerate(t[0])),
        final_answer=t[2],
    )
)


def _plain_steps(
    run: RunRecord, spec: StepSpec, view: tuple[int, ...] | None
) -> tuple[CheckResult, ...]:
    """check_steps written the plain way: signature texts, every result built."""
    steps = run.steps
    seen = list(range(len(steps))) if view is None else list(view)
    sub = [steps[i] for i in seen]
    pairs = [(seen[a], seen[b]) for a, b in redundant_in(sub)]
    sub_run = RunRecord(run_id="r", task_id="t", steps=tuple(sub))
    loops = find_loops(sub_run, spec.loop_threshold)
    results: list[CheckResult] = []
    if spec.budget is not None:
        n = len(steps)
        over = n > spec.budget
        results.append(
            CheckResult(
                check="steps.budget",
                axis="step_efficiency",
                status="fail" if over else "pass",
                score=0.0 if over else 1.0,
                reason=f"{n} tool call{'s' if n != 1 else ''} against a budget of {spec.budget}"
                + (f" ({n - spec.budget} over)" if over else ""),
                details={"steps": n, "budget": spec.budget},
            )
        )
    n = len(seen)
    if pairs:
        shown = "; ".join(
            f"call #{r + 1} repeats call #{f + 1} {steps[r].tool}" for f, r in pairs[:5]
        )
        reason = f"{len(pairs)} of {n} calls redundant (max {spec.max_redundant}): {shown}"
        if len(pairs) > 5:
            reason += f"; and {len(pairs) - 5} more"
        results.append(
            CheckResult(
                check="steps.redundant",
                axis="step_efficiency",
                status="fail" if len(pairs) > spec.max_redundant else "pass",
                score=(n - len(pairs)) / n,
                reason=reason,
                details={"pairs": [[f, r] for f, r in pairs], "count": len(pairs)},
            )
        )
    else:
        results.append(
            CheckResult(
                check="steps.redundant",
                axis="step_efficiency",
                status="pass",
                score=1.0,
                reason=f"no redundant calls among {n}",
                details={"pairs": [], "count": 0},
            )
        )
    if loops:
        mapped = [
            loop
            if view is None
            else type(loop)(
                start=seen[loop.start],
                period=loop.period,
                repeats=loop.repeats,
                tools=loop.tools,
                indices=tuple(seen[i] for i in range(loop.start, loop.end)),
            )
            for loop in loops
        ]
        results.append(
            CheckResult(
                check="steps.loop",
                axis="step_efficiency",
                status="fail",
                score=0.0,
                reason="; ".join(loop.describe() for loop in mapped),
                details={"loops": [loop.as_dict() for loop in mapped]},
            )
        )
    else:
        results.append(
            CheckResult(
                check="steps.loop",
                axis="step_efficiency",
                status="pass",
                score=1.0,
                reason=f"no call or cycle repeated {spec.loop_threshold}x in a row",
                details={"loops": []},
            )
        )
    return tuple(results)


@settings(max_examples=500, deadline=None)
@given(
    _runs,
    st.one_of(st.none(), st.integers(0, 6)),
    st.integers(2, 4),
    st.integers(0, 1),
    st.one_of(st.none(), st.lists(st.booleans(), min_size=9, max_size=9)),
)
def test_check_steps_equals_the_plain_results(
    run: RunRecord, budget: int | None, threshold: int, tolerated: int, mask: list[bool] | None
) -> None:
    spec = StepSpec(budget=budget, loop_threshold=threshold, max_redundant=tolerated)
    view = None if mask is None else tuple(i for i in range(len(run.steps)) if mask[i])
    for _ in range(2):  # the second time reads the shared results
        got = check_steps(run, spec, view)
        plain = _plain_steps(run, spec, view)
        assert got == plain
        assert [r.to_dict() for r in got] == [r.to_dict() for r in plain]


def _plain_events(run: RunRecord) -> list[ErrorEvent]:
    """The recovery analysis over signature texts."""
    steps = run.steps
    events = []
    for index, step in enumerate(steps):
        if not step.is_error:
            continue
        next_index = next(
            (j for j in range(index + 1, len(steps)) if steps[j].turn > step.turn), None
        )
        if next_index is None:
            response = "gave_up"
        elif steps[next_index].tool != step.tool:
            response = "switched_tool"
        elif call_signature(steps[next_index]) == call_signature(step):
            response = "retry"
        else:
            response = "changed_args"
        recovered = any(not s.is_error for s in steps[index + 1 :])
        events.append(ErrorEvent(index, step.tool, response, next_index, recovered))  # type: ignore[arg-type]
    return events


@settings(max_examples=500, deadline=None)
@given(_runs, st.booleans(), st.integers(0, 2))
def test_recovery_equals_the_plain_analysis(run: RunRecord, require: bool, budget: int) -> None:
    events = _plain_events(run)
    assert analyze_errors(run) == events
    results = {
        r.check: r
        for r in check_recovery(run, RecoverySpec(require_recovery=require, retry_budget=budget))
    }
    if not events:
        assert all(r.reason == "no tool errors" for r in results.values())
        return
    retry = results["recovery.retry_budget"].to_dict()
    assert retry["details"] == {
        "max_retries": retry["details"]["max_retries"],
        "events": [e.as_dict() for e in events],
    }
    assert retry["reason"].endswith(
        "after each error: "
        + ", ".join(f"call #{e.index + 1} {e.tool}: {e.response}" for e in events)
    )
