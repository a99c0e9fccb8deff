"""Error recovery: retries, switches, giving up, the retry budget, ending on an error."""

from __future__ import annotations

from pathjudge.agent.trajectory import RunRecord
from pathjudge.rubrics.assertions.recovery import RecoverySpec, analyze_errors, check_recovery
from tests.rubrics.assertions._helpers import run_of, step

DEFAULT = RecoverySpec()


def results(
    run: RunRecord, spec: RecoverySpec = DEFAULT
) -> dict[str, tuple[str, float | None, str]]:
    return {r.check: (r.status, r.score, r.reason) for r in check_recovery(run, spec)}


def test_no_errors_passes_with_that_reason() -> None:
    out = results(run_of(step("s", 0, q="a")))
    assert set(out) == {"recovery.retry_budget", "recovery.recovered", "recovery.ending"}
    assert all(v == ("pass", 1.0, "no tool errors") for v in out.values())
    assert set(results(run_of(), RecoverySpec(require_recovery=False))) == {
        "recovery.retry_budget",
        "recovery.ending",
    }


def test_responses_are_classified() -> None:
    run = run_of(
        step("s", 0, error=True, q="a"),
        step("s", 1, error=True, q="a"),  # retry
        step("s", 2, error=True, q="b"),  # changed args
        step("lookup", 3, error=True, id=1),  # switched tool
        step("lookup", 4, error=True, id=1),  # nothing after it: gave up
    )
    assert [(e.index, e.response) for e in analyze_errors(run)] == [
        (0, "retry"),
        (1, "changed_args"),
        (2, "switched_tool"),
        (3, "retry"),
        (4, "gave_up"),
    ]
    assert all(not e.recovered for e in analyze_errors(run))


def test_follow_up_is_read_from_a_later_turn_not_a_parallel_call() -> None:
    run = run_of(step("s", 0, error=True, q="a"), step("t", 0, q="x"), step("s", 1, q="a"))
    (event,) = analyze_errors(run)
    assert (event.response, event.next_index, event.recovered) == ("retry", 2, True)


def test_retry_budget() -> None:
    calls = [step("s", i, error=True, q="a") for i in range(4)] + [step("s", 4, q="a")]
    out = results(run_of(*calls), RecoverySpec(retry_budget=2))
    status, score, reason = out["recovery.retry_budget"]
    assert (status, score) == ("fail", 0.0)
    assert reason.startswith("4 identical retries of a failing s call (budget 2)")
    assert out["recovery.recovered"][0:2] == ("pass", 1.0)
    within = results(run_of(*calls[2:]), RecoverySpec(retry_budget=2))
    assert within["recovery.retry_budget"][0] == "pass"


def test_recovered_fraction_and_ending_on_error() -> None:
    run = run_of(
        step("s", 0, error=True, q="a"),
        step("t", 1, q="b"),
        step("s", 2, error=True, q="c"),
        answer=None,
    )
    out = results(run)
    # 1 of 2 errors has a later successful call
    assert out["recovery.recovered"] == (
        "fail",
        0.5,
        "1 of 2 errors followed by a successful call; not recovered: call #3 s (gave_up)",
    )
    assert out["recovery.ending"] == (
        "fail",
        0.0,
        "the run ended on an error (call #3 s) with no answer",
    )
    answered = results(run.model_copy(update={"final_answer": "Sorry, the tool failed."}))
    assert answered["recovery.ending"][0] == "pass"
    blank = results(run.model_copy(update={"final_answer": "  "}))
    assert blank["recovery.ending"][0] == "fail"
    relaxed = results(run, RecoverySpec(require_recovery=False))
    assert "recovery.recovered" not in relaxed
