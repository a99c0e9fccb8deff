"""Fixtures and helpers for the judge tests: the fake Anthropic server, a secret API key, a run helper."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from pathjudge.judge.backends.anthropic import AnthropicJudgeBackend
from pathjudge.judge.runner import JudgeJob, JudgeRun, run_judge
from pathjudge.rubrics.criteria import get_criterion
from tests.fakes.anthropic_server import (
    FakeAnthropic,
    RecordedRequest,
    fake_anthropic,
    forced_tool_policy,
)

__all__ = ["fake_anthropic"]

SECRET = "sk-ant-api03-TESTSECRET-9f8e7d6c5b4a3210"


def verdict_input(
    verdict: str = "pass", reasoning: str = "The answer matches the reference."
) -> dict[str, Any]:
    return {"reasoning": reasoning, "evidence": ["600 requests per minute"], "verdict": verdict}


def policy_by(
    decide: Callable[[RecordedRequest], str],
) -> Callable[[RecordedRequest], dict[str, Any]]:
    """A forced-tool policy whose verdict is ``decide(request)``."""
    return forced_tool_policy(lambda request: verdict_input(decide(request)))


def jobs_for(n: int, *, criterion: str = "answer-correct", prefix: str = "item") -> list[JudgeJob]:
    crit = get_criterion(criterion)
    return [
        JudgeJob(
            item_id=f"{prefix}-{i}",
            criterion=crit,
            inputs={
                "question": "How many requests per minute does the Pro plan allow?",
                "answer": f"600 requests per minute (variant {i})",
                "reference": "The Pro plan allows 600 requests per minute.",
            },
        )
        for i in range(n)
    ]


def judge_argv(items: Path, base_url: str, *options: str) -> list[str]:
    """``pathjudge judge`` arguments: ``items`` under answer-correct against ``base_url``, then ``options``."""
    return ["judge", str(items), "--criterion", "answer-correct", "--base-url", base_url, *options]


def write_short_items(path: Path, n: int) -> Path:
    """Write ``n`` answer-correct items ``i0``, ``i1``, ... (answers ``a0``, ``a1``, ...) as JSONL."""
    path.write_text(
        "".join(
            json.dumps(
                {
                    "item_id": f"i{i}",
                    "inputs": {"question": "q", "answer": f"a{i}", "reference": "r"},
                }
            )
            + "\n"
            for i in range(n)
        )
    )
    return path


def judge_run(
    server: FakeAnthropic,
    jobs: Sequence[JudgeJob],
    *,
    backend_options: dict[str, Any] | None = None,
    **options: Any,
) -> JudgeRun:
    """Run the async core against ``server`` with a fresh Anthropic backend (closed afterwards)."""

    async def main() -> JudgeRun:
        backend = AnthropicJudgeBackend(
            base_url=server.url, model="claude-opus-4-8", **(backend_options or {})
        )
        try:
            options.setdefault("backoff_initial", 0.01)
            options.setdefault("backoff_max", 0.05)
            return await run_judge(jobs, backend=backend, **options)
        finally:
            await backend.aclose()

    return asyncio.run(main())


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    return SECRET


@pytest.fixture
def server(fake_anthropic: FakeAnthropic, api_key: str) -> Iterator[FakeAnthropic]:
    """The fake server answering every forced-tool call with a valid 'pass' verdict."""
    fake_anthropic.policy = forced_tool_policy(lambda _r: verdict_input())
    return fake_anthropic
