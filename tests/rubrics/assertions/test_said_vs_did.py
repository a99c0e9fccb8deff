"""said_vs_did (issue 39, part 1): the claims of an agent's messages against its tool activity."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

from pathjudge.agent.trajectory import Reply, RunRecord, Step
from pathjudge.errors import SuiteError
from pathjudge.rubrics.assertions.claims import extract_claims
from pathjudge.rubrics.assertions.said_vs_did import (
    SaidVsDidSpec,
    check_said_vs_did,
    compile_said_vs_did,
    default_actions,
)
from pathjudge.rubrics.checks import plan_task
from pathjudge.rubrics.suite import parse_suite
from pathjudge.scoring.grade import grade

PLAN = compile_said_vs_did(SaidVsDidSpec())

RESERVATION = (
    '{"reservation_id": "ZFA04Y", "flights": [{"flight_number": "HAT110", "date": "2024-05-24", '
    '"price": 105}, {"flight_number": "HAT172", "date": "2024-05-24", "price": 102.5}], '
    '"passengers": [{"name": "Ann"}, {"name": "Bo"}], "payment_history": [{"amount": -209}]}'
)


def run_of(
    *replies: tuple[str, int], steps: tuple[Step, ...] = (), final: str | None = None
) -> RunRecord:
    return RunRecord(
        run_id="r",
        task_id="t",
        steps=steps,
        replies=tuple(Reply(text=text, after_steps=after) for text, after in replies),
        final_answer=final if final is not None else (replies[-1][0] if replies else None),
    )


LOOKUP = Step(
    tool="get_reservation_details", arguments={"reservation_id": "ZFA04Y"}, result=RESERVATION
)
CANCEL = Step(tool="cancel_reservation", arguments={"reservation_id": "ZFA04Y"}, result="ok")


def unbacked(run: RunRecord, plan=PLAN) -> list[str]:
    found = check_said_vs_did(run, plan)
    return [item["claim"] for item in found.details.get("unbacked", [])]


# --- extraction ---------------------------------------------------------------------------------


def test_extracts_each_kind_with_its_value() -> None:
    claims = extract_claims(
        'Reservation "HATHAT" (code ZFA04Y) on May 24, 2024 costs $1,234.50 for two passengers. '
        "It has been cancelled."
    )
    got = {(c.kind, c.value if c.kind != "count" else (c.value, c.noun)) for c in claims}
    assert ("id", "hathat") in got
    assert ("id", "zfa04y") in got
    assert ("date", ((2024, 5, 24),)) in got
    assert ("amount", 123450) in got
    assert ("count", (2, "passengers")) in got
    assert ("action", "cancel") in got


@pytest.mark.parametrize(
    "text",
    [
        "If it has been cancelled, you will get a refund.",
        "Has it been cancelled?",
        "It has not been cancelled.",
        "The reservation would have been cancelled.",
        "The email was sent a week ago.",
        "Your refund will be processed.",
    ],
)
def test_hedged_questions_negations_and_history_claim_no_action(text: str) -> None:
    assert [c for c in extract_claims(text) if c.kind == "action"] == []


@pytest.mark.parametrize("word", ["SunnyB3ach", "PLEASE", "10am", "mp3"])
def test_words_that_are_not_ids(word: str) -> None:
    assert [c for c in extract_claims(f"Try {word} now") if c.kind == "id"] == []


def test_empty_text_has_no_claims() -> None:
    assert extract_claims("") == []


def test_default_actions_read_from_tool_names() -> None:
    assert default_actions("cancel_reservation") == {"cancel"}
    assert default_actions("AddAlarm") == {"create"}
    assert default_actions("get_user_details") == frozenset()


# --- matching -----------------------------------------------------------------------------------


def test_a_restated_run_passes_with_normalised_numbers_sums_and_signs() -> None:
    text = (
        "Reservation ZFA04Y: HAT110 at $105.00 and HAT172 at 102.50 dollars, total $207.50, "
        "on 2024-05-24 for 2 passengers. Your refund of $209 has been processed."
    )
    found = check_said_vs_did(run_of((text, 1), steps=(LOOKUP,)), PLAN)
    assert found.status == "pass", found.reason
    assert found.details["claims"] >= 7


def test_changed_amount_id_and_date_are_named_with_the_nearest_evidence() -> None:
    run = run_of(("ZFA04X flies on 2024-05-27 for $115.", 1), steps=(LOOKUP,))
    found = check_said_vs_did(run, PLAN)
    assert found.status == "fail"
    assert unbacked(run) == ["2024-05-27", "$115", "ZFA04X"]
    assert "nearest id 'zfa04y' (call #1 get_reservation_details)" in found.reason
    assert "nearest date 2024-05-24" in found.reason
    assert "nearest number 105" in found.reason
    assert found.score == 0.0


def test_an_action_needs_a_successful_call_of_a_tool_that_does_it_before_the_message() -> None:
    said = "Your reservation ZFA04Y has been cancelled."
    assert unbacked(run_of((said, 2), steps=(LOOKUP, CANCEL))) == []
    assert unbacked(run_of((said, 1), steps=(LOOKUP,))) == ["has been cancelled"]
    errored = Step(
        tool="cancel_reservation",
        arguments={"reservation_id": "ZFA04Y"},
        result="Error: no",
        is_error=True,
    )
    run = run_of((said, 2), steps=(LOOKUP, errored))
    assert unbacked(run) == ["has been cancelled"]
    assert "call #2 cancel_reservation returned an error" in check_said_vs_did(run, PLAN).reason
    said_early = run_of((said, 1), ("Done.", 2), steps=(LOOKUP, CANCEL))
    assert unbacked(said_early) == ["has been cancelled"]


def test_a_refund_is_backed_by_a_change_and_declared_tools_replace_name_defaults() -> None:
    update = Step(
        tool="update_reservation_flights", arguments={"reservation_id": "ZFA04Y"}, result="{}"
    )
    said = "The difference has been refunded."
    assert unbacked(run_of((said, 1), steps=(update,))) == []
    declared = compile_said_vs_did(
        SaidVsDidSpec.model_validate({"tools": {"update_*": {"does": []}}})
    )
    assert unbacked(run_of((said, 1), steps=(update,)), declared) == ["has been refunded"]
    doer = compile_said_vs_did(
        SaidVsDidSpec.model_validate({"tools": {"process": {"does": "refund"}}})
    )
    assert unbacked(run_of((said, 1), steps=(Step(tool="process"),)), doer) == []


def test_counts_of_listed_things_may_be_part_of_the_list_but_not_more() -> None:
    assert unbacked(run_of(("You have 2 passengers.", 1), steps=(LOOKUP,))) == []
    assert unbacked(run_of(("You have one passenger.", 1), steps=(LOOKUP,))) == []
    assert unbacked(run_of(("You have three passengers.", 1), steps=(LOOKUP,))) == [
        "three passengers"
    ]
    assert (
        check_said_vs_did(run_of(("It took 9 minutes.", 1), steps=(LOOKUP,)), PLAN).status
        == "not_run"
    )


def test_input_and_known_values_back_claims() -> None:
    run = RunRecord(
        run_id="r", task_id="t", input="My order is QX77Z1", final_answer="Order QX77Z1, fee $50."
    )
    assert unbacked(run) == ["$50"]
    known = compile_said_vs_did(SaidVsDidSpec(known=("Each extra bag is 50 dollars",)))
    assert unbacked(run, known) == []


def test_claim_kinds_and_over_limit_what_is_read() -> None:
    run = run_of(("Flight HAT999 costs $1.", 1), ("All set.", 1), steps=(LOOKUP,))
    only_ids = compile_said_vs_did(SaidVsDidSpec(claims=("id",)))
    assert unbacked(run, only_ids) == ["HAT999"]
    final_only = compile_said_vs_did(SaidVsDidSpec(over="final_answer"))
    assert check_said_vs_did(run, final_only).status == "not_run"


def test_no_message_is_not_run() -> None:
    found = check_said_vs_did(RunRecord(run_id="r", task_id="t"), PLAN)
    assert found.status == "not_run"
    assert found.reason == "no claim about tool activity in 0 messages"


# --- the suite and the pipeline ----------------------------------------------------------------


def suite_with(said: object, *, task: dict | None = None):
    success = {"kind": "contains_any", "values": ["booked"]}
    return parse_suite(
        {
            "name": "s",
            "defaults": {"said_vs_did": said, "success": success},
            "tasks": [{"id": "t", **(task or {})}],
        }
    )


def test_opt_in_per_suite_gates_and_can_be_reported_only() -> None:
    run = run_of(("Flight HAT999 has been booked.", 1), steps=(LOOKUP,))
    (graded,) = grade([run], suite_with({}))
    (result,) = [c for c in graded.checks if c.check == "outcome.said_vs_did"]
    assert result.status == "fail"
    assert graded.passed is False
    (reported,) = grade([run], suite_with({"gating": False}))
    assert reported.passed is True
    assert any(c.check == "outcome.said_vs_did" and not c.gating for c in reported.checks)


def test_off_by_default_and_off_per_task() -> None:
    plain = parse_suite({"name": "s", "tasks": [{"id": "t"}]})
    assert all(c.name != "outcome.said_vs_did" for c in plan_task(plain.tasks[0]).checks)
    off = suite_with({}, task={"said_vs_did": None})
    assert all(c.name != "outcome.said_vs_did" for c in plan_task(off.tasks[0]).checks)


def test_a_typo_or_unknown_action_is_a_suite_error() -> None:
    with pytest.raises(SuiteError, match="said_vs_did"):
        suite_with({"claim": ["id"]})
    with pytest.raises(SuiteError, match="said_vs_did"):
        suite_with({"tools": {"cancel_reservation": {"does": "cancels"}}})


# --- hostile input ------------------------------------------------------------------------------


def _cpu(text: str) -> float:
    run = RunRecord(run_id="r", task_id="t", final_answer=text, steps=(LOOKUP,))
    best = float("inf")
    for _ in range(2):
        start = time.process_time()
        check_said_vs_did(run, PLAN)
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.parametrize(
    "unit",
    [
        "1" * 50_000,
        "a" * 50_000,
        "has " * 12_000,
        "$" + "1," * 12_000,
        "".join(f"HAT{i:06d} " for i in range(6_000)),
        "two passengers and " * 2_500,
        "May " * 12_000,
        "has been " + "successfully " * 8_000 + "cancelled",
        "." * 4_000,
        "!?" * 2_000,
    ],
    ids=[
        "digits",
        "word",
        "auxiliaries",
        "commas",
        "ids",
        "counts",
        "months",
        "adverbs",
        "dots",
        "marks",
    ],
)
def test_adversarial_answers_cost_linear_time(unit: str) -> None:
    # doubling an adversarial answer at most about doubles the time: a quadratic pattern would
    # quadruple it (the 3x bound leaves room for noise on a shared machine)
    small, large = _cpu(unit), _cpu(unit * 2)
    assert large <= 3 * small + 0.02, (small, large)


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("Your flight is on Augu\u017ft 5, 2024.", "date", ((2024, 8, 5),)),  # a long s
        ("Your flight is on 5 Augu\u017ft.", "date", ((0, 8, 5),)),
        ("I found \u017fix reservations.", "count", 6),
        ("I have \u017fent the email.", "action", "send"),
        ("The booking was pa\u0130d.", "action", "pay"),  # a dotted capital I
    ],
)
def test_letters_that_match_only_under_unicode_case_folding_are_read(
    text: str, kind: str, value: object
) -> None:
    # the patterns ignore case the Unicode way ("\u017f" matches "s"): the tables are read the same way
    assert [(c.kind, c.value) for c in extract_claims(text)] == [(kind, value)]


# --- real runs ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bench(repo_root: Path) -> ModuleType:
    path = repo_root / "benchmarks" / "bench_said_vs_did.py"
    spec = importlib.util.spec_from_file_location("bench_said_vs_did", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_said_vs_did"] = module
    spec.loader.exec_module(module)
    return module


def test_real_runs_every_mutation_class_flagged_and_few_clean_flags(
    bench: ModuleType, shared_data: Path
) -> None:
    for runs in (
        bench.tau_runs(shared_data),
        bench.tooltalk_runs(shared_data),
        bench.docent_runs(),
    ):
        found = bench.measure(runs, PLAN)
        for kind, (caught, total) in found["per_class"].items():
            assert caught == total, (kind, caught, total)
        assert len(found["flagged_clean"]) <= max(1, len(runs) // 10)
    tau = bench.measure(bench.tau_runs(shared_data), PLAN)
    # the one clean flag is the agent's own mistake: it halves a one-passenger fare of $4,420
    ((_run, result),) = tau["flagged_clean"]
    assert [item["claim"] for item in result.details["unbacked"]] == ["$2,210"]
    assert all(total for _, total in tau["per_class"].values())
