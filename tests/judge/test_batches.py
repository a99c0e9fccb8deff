"""Message Batches: create, poll, fetch by custom_id, map back; an interrupted run resumes polling."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pathjudge.judge.backends.anthropic import AnthropicJudgeBackend, verdict_tool
from pathjudge.judge.batches import run_batch
from pathjudge.judge.cache import VerdictCache
from pathjudge.judge.runner import JudgeJob, JudgeRun
from pathjudge.judge.verdict import JudgeFailure, VerdictRecord
from tests.fakes.anthropic_server import FakeAnthropic, message, overloaded, text, tool_use
from tests.judge.conftest import jobs_for, policy_by, verdict_input


def batch_run(
    server: FakeAnthropic, jobs: list[JudgeJob], cache_path: Path, **options: Any
) -> JudgeRun:
    async def main() -> JudgeRun:
        backend = AnthropicJudgeBackend(base_url=server.url)
        try:
            with VerdictCache(cache_path) as cache:
                return await run_batch(
                    jobs, backend=backend, cache=cache, poll_interval=0.01, **options
                )
        finally:
            await backend.aclose()

    return asyncio.run(main())


def test_batch_round_trip_maps_results_back_by_custom_id(
    server: FakeAnthropic, tmp_path: Path
) -> None:
    server.policy = policy_by(
        lambda r: "fail" if "variant 1)" in r.json["messages"][0]["content"] else "pass"
    )
    server.batch_polls = 3
    run = batch_run(server, jobs_for(3), tmp_path / "c.sqlite")
    assert [r.verdict for r in run.results.values()] == ["pass", "fail", "pass"]
    assert server.count("POST", "/v1/messages/batches") == 1
    assert server.count("POST", "/v1/messages") == 0
    polls = [r for r in server.requests if r.method == "GET" and r.path.count("/") == 4]
    assert len(polls) == 4  # 3 polls until 'ended' + the SDK's own retrieve inside results()
    body = next(r for r in server.requests if r.path == "/v1/messages/batches").json
    custom_ids = [entry["custom_id"] for entry in body["requests"]]
    assert len(set(custom_ids)) == 3
    assert all(len(c) <= 64 for c in custom_ids)
    params = body["requests"][0]["params"]
    assert params["tools"] == [verdict_tool()]
    assert params["tool_choice"]["name"] == "Verdict"
    assert params["system"][0]["cache_control"] == {"type": "ephemeral"}
    record = run.results["item-0"]
    assert isinstance(record, VerdictRecord)
    # batch pricing is half: (100 * 5 + 20 * 25) / 1e6 / 2 = 0.0005
    assert record.usage.cost_usd == pytest.approx(0.0005)


def test_batch_errors_and_invalid_outputs_are_failures(
    server: FakeAnthropic, tmp_path: Path
) -> None:
    server.policy = None
    server.script(
        overloaded(),
        message([text("not a tool call")]),
        message([tool_use("Verdict", verdict_input("unsure"))]),
    )
    run = batch_run(server, jobs_for(3), tmp_path / "c.sqlite")
    first, second, third = (run.results[f"item-{i}"] for i in range(3))
    assert isinstance(first, JudgeFailure)
    assert first.error_type == "batch_errored"
    assert "overloaded_error" in first.message
    assert isinstance(second, JudgeFailure)
    assert second.error_type == "invalid_output"
    assert isinstance(third, VerdictRecord)
    assert third.verdict == "unsure"


def test_interrupted_batch_resumes_polling_instead_of_resubmitting(
    server: FakeAnthropic, tmp_path: Path
) -> None:
    cache_path = tmp_path / "c.sqlite"
    server.batch_polls = 10**6  # never ends while we wait

    async def interrupted() -> None:
        backend = AnthropicJudgeBackend(base_url=server.url)
        try:
            with VerdictCache(cache_path) as cache:
                await asyncio.wait_for(
                    run_batch(jobs_for(4), backend=backend, cache=cache, poll_interval=0.01), 0.5
                )
        finally:
            await backend.aclose()

    with pytest.raises(TimeoutError):
        asyncio.run(interrupted())
    assert server.count("POST", "/v1/messages/batches") == 1
    with VerdictCache(cache_path) as cache:
        [open_batch] = cache.open_batches("anthropic", "claude-opus-4-8")
    server.batch_polls = 1
    run = batch_run(server, jobs_for(4), cache_path)
    assert server.count("POST", "/v1/messages/batches") == 1  # not resubmitted
    assert server.count("GET", f"/v1/messages/batches/{open_batch.batch_id}/results") == 1
    assert all(isinstance(r, VerdictRecord) for r in run.results.values())
    assert len(run.results) == 4
    # collected: a further run is served from the cache alone
    server.reset()
    again = batch_run(server, jobs_for(4), cache_path)
    assert len(server.requests) == 0
    assert again.stats.cache_hits == 4


def test_batch_submits_only_what_is_not_cached(server: FakeAnthropic, tmp_path: Path) -> None:
    cache_path = tmp_path / "c.sqlite"
    batch_run(server, jobs_for(2), cache_path)
    batch_run(server, jobs_for(5), cache_path)
    bodies = [r.json for r in server.requests if r.path == "/v1/messages/batches"]
    assert [len(b["requests"]) for b in bodies] == [2, 3]
