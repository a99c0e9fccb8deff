"""The OpenAI-compatible backend over httpx2, against a chat-completions route on the fake server."""

from __future__ import annotations

import asyncio
import collections
import json
from typing import Any

import pytest

from pathjudge.errors import JudgeError
from pathjudge.judge.backends.openai_compat import OpenAICompatBackend
from pathjudge.judge.runner import JudgeJob, JudgeRun, run_judge
from pathjudge.judge.verdict import JudgeFailure, Verdict, VerdictRecord
from tests.fakes.anthropic_server import FakeAnthropic, RecordedRequest, Reply, rate_limited
from tests.judge.conftest import jobs_for

ROUTE = r"^/v1/chat/completions$"


def completion(content: str, *, finish_reason: str = "stop") -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "smol",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
    }


GOOD = json.dumps({"reasoning": "It matches.", "evidence": ["600"], "verdict": "pass"})


def scripted(server: FakeAnthropic, *replies: Reply | dict[str, Any]) -> None:
    queue = collections.deque(replies)
    server.add_route("POST", ROUTE, lambda _r: queue.popleft() if queue else completion(GOOD))


def openai_run(server: FakeAnthropic, jobs: list[JudgeJob], **options: Any) -> JudgeRun:
    async def main() -> JudgeRun:
        backend = OpenAICompatBackend(
            base_url=server.url, model="smol", reasks=options.pop("reasks", 2)
        )
        try:
            return await run_judge(
                jobs, backend=backend, backoff_initial=0.01, backoff_max=0.02, **options
            )
        finally:
            await backend.aclose()

    return asyncio.run(main())


def chat_requests(server: FakeAnthropic) -> list[RecordedRequest]:
    return [r for r in server.requests if r.path == "/v1/chat/completions"]


def test_schema_constrained_json_request(fake_anthropic: FakeAnthropic) -> None:
    scripted(fake_anthropic)
    run = openai_run(fake_anthropic, jobs_for(1))
    record = run.results["item-0"]
    assert isinstance(record, VerdictRecord)
    assert record.verdict == "pass"
    assert record.backend == "openai"
    assert record.model == "smol"
    assert record.usage.input_tokens == 50
    assert record.usage.cost_usd is None
    [request] = chat_requests(fake_anthropic)
    body = request.json
    assert body["response_format"] == {"type": "json_object", "schema": Verdict.model_json_schema()}
    assert body["model"] == "smol"
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert '<pathjudge_data name="answer">' in body["messages"][1]["content"]
    assert "authorization" not in request.headers


def test_invalid_json_is_reasked_with_the_problem(fake_anthropic: FakeAnthropic) -> None:
    scripted(fake_anthropic, completion('{"reasoning": "x", "verdict": "yes"}'), completion(GOOD))
    run = openai_run(fake_anthropic, jobs_for(1))
    assert isinstance(run.results["item-0"], VerdictRecord)
    second = chat_requests(fake_anthropic)[1].json["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert "not a valid verdict" in second[-1]["content"]
    assert run.results["item-0"].usage.input_tokens == 100  # type: ignore[union-attr]


def test_invalid_json_after_reasks_is_a_failure(fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.add_route("POST", ROUTE, lambda _r: completion("not json at all"))
    run = openai_run(fake_anthropic, jobs_for(1), reasks=1)
    failure = run.results["item-0"]
    assert isinstance(failure, JudgeFailure)
    assert failure.error_type == "invalid_output"
    assert len(chat_requests(fake_anthropic)) == 2


def test_length_truncation_is_a_failure(fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.add_route(
        "POST", ROUTE, lambda _r: completion('{"reasoning": "long', finish_reason="length")
    )
    run = openai_run(fake_anthropic, jobs_for(1))
    failure = run.results["item-0"]
    assert isinstance(failure, JudgeFailure)
    assert failure.error_type == "truncated"


@pytest.mark.parametrize(
    "fault", [rate_limited(0.0), Reply(status=503, json={}), Reply(close=True)]
)
def test_transient_faults_retry(fake_anthropic: FakeAnthropic, fault: Reply) -> None:
    scripted(fake_anthropic, fault, completion(GOOD))
    run = openai_run(fake_anthropic, jobs_for(1))
    assert isinstance(run.results["item-0"], VerdictRecord)
    assert len(chat_requests(fake_anthropic)) == 2


def test_unauthorised_stops_the_run(fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.add_route("POST", ROUTE, lambda _r: Reply(status=401, json={"error": "no"}))
    with pytest.raises(JudgeError, match="refused the credentials"):
        openai_run(fake_anthropic, jobs_for(2))


def test_base_url_with_or_without_v1() -> None:
    assert (
        OpenAICompatBackend(base_url="http://h:1/v1/").endpoint == "http://h:1/v1/chat/completions"
    )
    assert OpenAICompatBackend(base_url="http://h:1").endpoint == "http://h:1/v1/chat/completions"
