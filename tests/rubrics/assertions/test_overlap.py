"""Query overlap against the capstone's published query-quality values."""

from __future__ import annotations

import pytest

from pathjudge.rubrics.assertions.overlap import check_query_overlap, query_overlap
from tests.rubrics.assertions._helpers import run_of, searches, step

RATE_Q = "What HTTP status code does Meridian return when you exceed the rate limit?"
FREE_Q = "What is the per-minute request cap on the Free plan pricing tier?"
MONGO_Q = "Does Meridian support MongoDB-style aggregation pipelines?"


def test_capstone_values() -> None:
    assert query_overlap(RATE_Q, "rate limit HTTP status code") == 1.0
    assert query_overlap(FREE_Q, "Free plan pricing tier per-minute request cap") == 1.0
    # oos-mongo: "mongodb" != "mongodb-style", so 2/3, then 1/3 and 1/4; mean 0.4167 -> 0.42
    run = searches(
        "MongoDB aggregation pipelines",
        "aggregation pipeline query",
        "Meridian query capabilities features",
        question=MONGO_Q,
    )
    result = check_query_overlap(run)
    assert result.score == pytest.approx((2 / 3 + 1 / 3 + 1 / 4) / 3)
    assert result.reason.startswith(
        "mean query overlap 0.42 over 3 call(s): call #1 0.67, call #2 0.33, call #3 0.25"
    )
    assert (result.status, result.gating, result.axis) == ("pass", False, "argument_correctness")


def test_zero_overlap_never_gates_and_missing_inputs_are_not_run() -> None:
    zero = check_query_overlap(searches("pricing", question=RATE_Q))
    assert (zero.status, zero.score, zero.gating) == ("fail", 0.0, False)
    assert query_overlap(RATE_Q, "the of a") == 0.0  # only stop words
    assert query_overlap(RATE_Q, "") == 0.0
    no_question = check_query_overlap(searches("rate limit"))
    assert (no_question.status, no_question.reason) == (
        "not_run",
        "no question text in the run input",
    )
    no_calls = check_query_overlap(run_of(step("other", 0, id=1), question=RATE_Q))
    assert (no_calls.status, no_calls.reason, no_calls.gating) == (
        "not_run",
        "no call with a string 'query'",
        False,
    )


def test_question_from_mapping_input_and_tool_filter() -> None:
    run = run_of(step("search_docs", 0, query="rate limit"), step("web", 1, query="pricing"))
    run = run.model_copy(update={"input": {"question": RATE_Q}})
    assert check_query_overlap(run).score == 0.5  # (1.0 + 0.0) / 2
    assert check_query_overlap(run, tools=["search_docs"]).score == 1.0
    # an explicit question overrides the input: "pricing" is in the Free-plan question
    assert check_query_overlap(run, question=FREE_Q, tools=["web"]).score == 1.0
