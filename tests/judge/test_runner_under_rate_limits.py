"""At test scale: with 10% of calls answered 429 the run finishes with zero items
lost and every verdict right, and a cached rerun sends zero requests.

``benchmarks/bench_judge.py`` measures the same at 2,000 items with timing; the unit tests check one
fault at a time on one item. This drives 120 items at concurrency 32 through the real async core
against the local fake Anthropic server.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from pathjudge.judge.backends.anthropic import AnthropicJudgeBackend
from pathjudge.judge.cache import VerdictCache
from pathjudge.judge.runner import JudgeJob, JudgeRun, run_judge
from pathjudge.judge.verdict import VerdictRecord
from pathjudge.rubrics.criteria import get_criterion
from tests.fakes.anthropic_server import (
    FakeAnthropic,
    RecordedRequest,
    Reply,
    forced_tool_policy,
    rate_limited,
)

MESSAGES = "/v1/messages"
N = 120


def _jobs() -> list[JudgeJob]:
    criterion = get_criterion("answer-correct")
    return [
        JudgeJob(
            item_id=f"item-{i}",
            criterion=criterion,
            inputs={
                "question": "How many requests per minute does the Pro plan allow?",
                "answer": f"{600 if i % 3 else 60} requests per minute (variant {i})",
                "reference": "The Pro plan allows 600 requests per minute.",
            },
        )
        for i in range(N)
    ]


def _verdict(request: RecordedRequest) -> dict[str, Any]:
    user = request.json["messages"][0]["content"]
    answer = re.search(r"(\d+) requests per minute \(variant", user)
    assert answer is not None, user
    return {
        "reasoning": "compared with the reference",
        "evidence": [answer.group(0)],
        "verdict": "pass" if answer.group(1) == "600" else "fail",
    }


def _run(server: FakeAnthropic, cache: VerdictCache) -> JudgeRun:
    async def main() -> JudgeRun:
        backend = AnthropicJudgeBackend(base_url=server.url, model="claude-opus-4-8")
        try:
            return await run_judge(
                _jobs(),
                backend=backend,
                cache=cache,
                concurrency=32,
                backoff_initial=0.01,
                backoff_max=0.05,
            )
        finally:
            await backend.aclose()

    return asyncio.run(main())


def test_ten_percent_429_loses_nothing_and_a_cached_rerun_sends_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-acceptance")
    answer = forced_tool_policy(_verdict)
    counter = itertools.count()
    lock = threading.Lock()
    throttled = 0

    def policy(request: RecordedRequest) -> Reply | dict[str, Any]:
        nonlocal throttled
        with lock:
            index = next(counter)
            if index % 10 == 9:  # every tenth call: 10% of all calls
                throttled += 1
                return rate_limited(0.0)
        return answer(request)

    with FakeAnthropic(policy, latency=0.01) as server:
        with VerdictCache(tmp_path / "cache.sqlite") as cache:
            first = _run(server, cache)
        sent = server.count("POST", MESSAGES)
        # zero items lost: every item has a verdict, and it is the right one
        assert list(first.results) == [f"item-{i}" for i in range(N)]
        assert all(isinstance(r, VerdictRecord) for r in first.results.values())
        assert [r.verdict for r in first.results.values()] == [
            "pass" if i % 3 else "fail" for i in range(N)
        ]
        assert first.unfinished == ()
        assert first.failures == []
        # each 429 cost exactly one extra request: N answered + the throttled ones
        assert throttled >= N // 10 - 1
        assert sent == N + throttled
        assert first.stats.throttled == throttled

        server.reset()
        with VerdictCache(tmp_path / "cache.sqlite") as cache:
            second = _run(server, cache)
        assert server.count("POST", MESSAGES) == 0
        assert second.stats.cache_hits == N
        assert [r.model_dump() for r in second.results.values()] == [
            r.model_dump() for r in first.results.values()
        ]
