"""Per-step faithfulness: one call per step with only its inputs, aggregated per run."""

from __future__ import annotations

import asyncio

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.judge.backends.anthropic import AnthropicJudgeBackend
from pathjudge.judge.faithfulness import aggregate_faithfulness, judge_faithfulness, step_requests
from pathjudge.judge.verdict import JudgeFailure
from tests.fakes.anthropic_server import FakeAnthropic, RecordedRequest
from tests.judge.conftest import policy_by


def run() -> RunRecord:
    return RunRecord(
        run_id="r1",
        task_id="pro-rpm",
        steps=(
            Step(
                turn=0,
                tool="search_docs",
                arguments={"query": "pro rate limit"},
                result=[
                    {"id": "ratelimits", "text": "The Pro plan allows 600 requests per minute."}
                ],
            ),
            Step(
                turn=1,
                decision="The Pro plan allows 6000 requests per minute; checking plans.",
                tool="search_docs",
                arguments={"query": "plans"},
                result="Pro costs 25 dollars per month.",
            ),
            Step(
                turn=2,
                decision="Pro costs 25 dollars.",
                tool="lookup",
                arguments={},
                result="timeout",
                is_error=True,
            ),
        ),
        final_answer="Pro: 600 requests per minute, 25 dollars a month.",
    )


def test_claims_come_from_the_next_turn_or_the_final_answer() -> None:
    requests = step_requests(run())
    assert [r.item_id for r in requests] == ["r1/step-0", "r1/step-1", "r1/step-2"]
    assert requests[0].inputs["claim"].startswith("The Pro plan allows 6000")
    assert requests[1].inputs["claim"] == "Pro costs 25 dollars."
    assert requests[2].inputs["claim"] == run().final_answer
    assert requests[2].inputs["tool_result"] == "[tool error] timeout"
    assert requests[0].inputs["tool_call"] == 'search_docs({"query": "pro rate limit"})'
    assert "600 requests" in requests[0].inputs["tool_result"]
    # only that step's result: nothing from the other steps
    assert "25 dollars" not in requests[0].inputs["tool_result"]


def test_no_steps_or_no_claims() -> None:
    empty = RunRecord(run_id="e", task_id="t")
    assert step_requests(empty) == []
    score = aggregate_faithfulness(empty, [], {})
    assert score.score is None
    assert "no steps to judge" in score.reason
    silent = RunRecord(run_id="s", task_id="t", steps=(Step(tool="x"),))
    assert step_requests(silent) == []


def test_one_call_per_step_and_the_unfaithful_step_is_named(server: FakeAnthropic) -> None:
    def decide(request: RecordedRequest) -> str:
        user = request.json["messages"][0]["content"]
        return "fail" if "6000" in user else ("unsure" if "[tool error]" in user else "pass")

    server.policy = policy_by(decide)

    async def main() -> list:  # type: ignore[type-arg]
        backend = AnthropicJudgeBackend(base_url=server.url)
        try:
            return await judge_faithfulness([run()], backend=backend)
        finally:
            await backend.aclose()

    [score] = asyncio.run(main())
    assert server.count("POST", "/v1/messages") == 3
    for request in server.requests:
        assert "step-faithful" in request.json["system"][0]["text"]
    # step 0 fail, step 1 pass, step 2 unsure → 1 faithful of 2 decided = 0.5
    assert score.score == 0.5
    assert score.unfaithful_steps == (0,)
    assert score.unsure_steps == (2,)
    assert (
        score.reason == "1 of 2 decided steps faithful; unfaithful: step 0 (search_docs); 1 unsure"
    )


def test_failures_are_excluded_and_counted() -> None:
    record = run()
    requests = step_requests(record)
    failure = JudgeFailure(
        item_id="r1/step-1", reasoning="no verdict", error_type="timeout", message="m",
        criterion_id="step-faithful", criterion_hash="h", backend="b", model="m",
    )  # fmt: skip
    score = aggregate_faithfulness(record, requests, {"r1/step-1": failure})
    # nothing decided: steps 0 and 2 have no result (failed), step 1 failed → score None
    assert score.score is None
    assert score.failed_steps == (0, 1, 2)
    assert score.reason.endswith("3 not judged (judge failure)")
