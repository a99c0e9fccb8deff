"""The lean judge client: the first call's tool input validated straight into a Verdict; instructor
only for re-asks (issue 14, point 8). Same verdicts, usage and retry semantics as the instructor path."""

from __future__ import annotations

from typing import Any

from pathjudge.judge.verdict import JudgeFailure, VerdictRecord
from tests.fakes.anthropic_server import FakeAnthropic, RecordedRequest, message, text, tool_use

from .conftest import jobs_for, judge_run, verdict_input


def _run(server: FakeAnthropic, lean: bool, n: int = 3) -> dict[str, Any]:
    run = judge_run(server, jobs_for(n), backend_options={"lean": lean})
    return {k: v.model_dump() for k, v in run.results.items()}


def test_lean_and_instructor_paths_give_the_same_records(server: FakeAnthropic) -> None:
    lean = _run(server, lean=True)
    sent_lean = server.count("POST", "/v1/messages")
    server.reset()
    reference = _run(server, lean=False)
    assert lean == reference
    assert sent_lean == server.count("POST", "/v1/messages") == 3
    # the request is the same forced-tool call either way
    body = server.requests[-1].json
    assert body["tool_choice"]["name"] == "Verdict"
    assert body["tools"][0]["name"] == "Verdict"


def test_an_invalid_first_answer_is_reasked_like_instructor_does(server: FakeAnthropic) -> None:
    replies = iter(
        [
            message([tool_use("Verdict", {"reasoning": "r", "evidence": [], "verdict": "maybe"})]),
            message([tool_use("Verdict", verdict_input("fail"))]),
        ]
    )
    seen: list[RecordedRequest] = []

    def policy(request: RecordedRequest) -> dict[str, Any]:
        seen.append(request)
        return next(replies)

    server.policy = policy
    run = judge_run(server, jobs_for(1), backend_options={"lean": True, "reasks": 2})
    record = run.results["item-0"]
    assert isinstance(record, VerdictRecord)
    assert record.verdict == "fail"
    assert record.sample_verdicts[0].attempts == 2
    assert run.stats.retries == 1
    assert record.usage.input_tokens == 200  # each call counted once
    second = seen[1].json["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    result = second[2]["content"][0]
    assert result["type"] == "tool_result"
    assert result["is_error"] is True
    assert result["content"].startswith("Validation Error found:")


def test_text_only_answers_fail_after_the_bounded_reasks(server: FakeAnthropic) -> None:
    server.policy = lambda _r: message([text("I think it passes.")])
    run = judge_run(server, jobs_for(1), backend_options={"lean": True, "reasks": 2})
    failure = run.results["item-0"]
    assert isinstance(failure, JudgeFailure)
    assert failure.error_type == "invalid_output"
    assert server.count("POST", "/v1/messages") == 3
    assert "after 3 attempt(s)" in failure.message
    # with no re-asks allowed, one call and a clear failure
    server.reset()
    run = judge_run(server, jobs_for(1), backend_options={"lean": True, "reasks": 0})
    failure = run.results["item-0"]
    assert isinstance(failure, JudgeFailure)
    assert server.count("POST", "/v1/messages") == 1
