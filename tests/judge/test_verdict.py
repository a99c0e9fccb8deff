"""The Verdict contract and majority-vote aggregation (hand-computed)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from pathjudge.agent.trajectory import Usage
from pathjudge.judge.verdict import (
    JudgeFailure,
    SampleVerdict,
    Verdict,
    VerdictRecord,
    aggregate_samples,
)


def sample(index: int, verdict: str, tokens: int = 10) -> SampleVerdict:
    return SampleVerdict(
        item_id="x",
        sample_index=index,
        criterion_id="c",
        criterion_version="1",
        criterion_hash="sha256:abc",
        input_hash="sha256:def",
        backend="anthropic",
        model="m",
        verdict=verdict,  # type: ignore[arg-type]
        reasoning=f"reason {index}",
        usage=Usage(input_tokens=tokens, cost_usd=0.001),
    )


def failure(index: int) -> JudgeFailure:
    return JudgeFailure(
        item_id="x",
        reasoning="no verdict: timeout",
        error_type="timeout",
        message="no answer",
        criterion_id="c",
        criterion_hash="sha256:abc",
        backend="anthropic",
        model="m",
        sample_index=index,
        usage=Usage(input_tokens=0),
    )


def test_verdict_contract_reasoning_first_every_field_described() -> None:
    fields = Verdict.model_fields
    assert list(fields) == ["reasoning", "evidence", "verdict"]
    assert all(f.description for f in fields.values())
    schema = Verdict.model_json_schema()
    assert schema["properties"]["verdict"]["enum"] == ["pass", "fail", "unsure"]
    with pytest.raises(ValidationError):
        Verdict(reasoning="r", evidence=[], verdict="maybe")  # type: ignore[arg-type]


def test_majority_two_of_three() -> None:
    record = aggregate_samples("x", [sample(2, "pass"), sample(0, "fail"), sample(1, "pass")])
    assert isinstance(record, VerdictRecord)
    # votes pass=2 fail=1 unsure=0 → pass; agreement = 2/3
    assert record.verdict == "pass"
    assert record.votes == {"pass": 2, "fail": 1, "unsure": 0}
    assert record.agreement == pytest.approx(2 / 3)
    assert record.reasoning == "reason 1"  # lowest-index sample voting for the majority
    assert record.usage.input_tokens == 30
    assert record.usage.cost_usd == pytest.approx(0.003)


def test_tie_is_unsure() -> None:
    record = aggregate_samples("x", [sample(0, "pass"), sample(1, "fail")])
    assert isinstance(record, VerdictRecord)
    # pass=1 fail=1 → tie → unsure, agreement 1/2
    assert record.verdict == "unsure"
    assert record.agreement == 0.5
    assert record.reasoning == "reason 0"


def test_failed_samples_do_not_vote_but_are_counted() -> None:
    record = aggregate_samples("x", [sample(0, "fail")], [failure(1), failure(2)])
    assert isinstance(record, VerdictRecord)
    assert record.verdict == "fail"
    assert record.samples == 1
    assert record.failed_samples == 2
    assert record.agreement == 1.0


def test_all_failed_gives_a_failure_and_empty_is_an_error() -> None:
    result = aggregate_samples("x", [], [failure(0), failure(1)])
    assert isinstance(result, JudgeFailure)
    assert result.verdict == "error"
    assert result.sample_index is None
    with pytest.raises(ValueError, match="no samples"):
        aggregate_samples("x", [])


def test_records_are_frozen_and_strict() -> None:
    record = sample(0, "pass")
    with pytest.raises(ValidationError):
        record.verdict = "fail"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        SampleVerdict.model_validate({**record.model_dump(), "extra": 1})
