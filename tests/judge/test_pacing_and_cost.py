"""Header parsing, pricing and the adaptive concurrency limit (hand-computed)."""

from __future__ import annotations

import asyncio
import json
import math
import time as clock
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pathjudge.agent.trajectory import Usage
from pathjudge.cli import main
from pathjudge.judge.backends.base import (
    cost_usd,
    ratelimit_pause,
    ratelimit_state,
    retry_after_seconds,
    server_count,
)
from pathjudge.judge.runner import AdaptiveLimiter, Budget
from pathjudge.judge.verdict import VerdictRecord
from tests.fakes.anthropic_server import (
    FakeAnthropic,
    RateLimits,
    forced_tool_policy,
    rate_limited,
)
from tests.judge.conftest import jobs_for, judge_argv, judge_run, verdict_input, write_short_items


def test_retry_after_forms() -> None:
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"Retry-After": "0.5"}) == 0.5
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_seconds({}) is None
    date = (datetime.now(UTC) + timedelta(seconds=30)).strftime("%a, %d %b %Y %H:%M:%S GMT")
    assert 25 <= (retry_after_seconds({"retry-after": date}) or 0) <= 31


@pytest.mark.parametrize(
    "headers",
    [
        {"retry-after": "soon"},
        {"retry-after": "Mon, 32 Feb 2026 99:99:99 GMT"},
        {"retry-after": "Thu, 01 Jan 99999 00:00:00 GMT"},
        {"retry-after": "nan"},
        {"retry-after": "inf"},
        {"retry-after": "-5"},
        {"retry-after-ms": "1e400"},
        {"retry-after": "Mon, 06 Dec 2026 10:00:00"},  # no zone: not an HTTP date
    ],
)
def test_an_unusable_retry_after_is_absent(headers: dict[str, str]) -> None:
    assert retry_after_seconds(headers) is None


@pytest.mark.parametrize(
    ("value", "count"),
    [
        (12, 12),
        (12.0, 12),
        (0, 0),
        (-5, 0),
        (1.5, 0),
        (float("inf"), 0),
        (float("nan"), 0),
        ("12", 0),
        ([1], 0),
        (None, 0),
        (True, 0),
        ({}, 0),
        (10**400, 0),
    ],
)
def test_a_server_count_is_a_non_negative_integer_or_zero(value: object, count: int) -> None:
    assert server_count(value) == count


def test_unreadable_ratelimit_headers_never_pause() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC).timestamp()
    for remaining, reset in [
        ("0", "soon"),
        ("0", "2026-02-30T00:00:00Z"),
        ("0", "2026-01-01T00:00:09"),  # no offset: not RFC 3339
        ("abc", "2026-01-01T00:00:09Z"),
        ("nan", "2026-01-01T00:00:09Z"),
        ("-1", "2026-01-01T00:00:09Z"),
    ]:
        headers = {
            "anthropic-ratelimit-requests-remaining": remaining,
            "anthropic-ratelimit-requests-reset": reset,
        }
        assert ratelimit_pause(headers, now=now) is None, (remaining, reset)


def test_ratelimit_pause_only_when_a_limit_is_spent() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC).timestamp()
    headers = {
        "anthropic-ratelimit-requests-remaining": "0",
        "anthropic-ratelimit-requests-reset": "2026-01-01T00:00:02Z",
        "anthropic-ratelimit-tokens-remaining": "0",
        "anthropic-ratelimit-tokens-reset": "2026-01-01T00:00:05Z",
        "anthropic-ratelimit-input-tokens-remaining": "1200",
        "anthropic-ratelimit-input-tokens-reset": "2026-01-01T00:00:09Z",
    }
    # two spent limits reset at +2 s and +5 s: pause until the later one
    assert ratelimit_pause(headers, now=now) == 5.0
    assert ratelimit_pause({"anthropic-ratelimit-requests-remaining": "7"}, now=now) is None


def test_cost_hand_computed() -> None:
    usage = Usage(
        input_tokens=1000,
        output_tokens=200,
        cache_creation_input_tokens=400,
        cache_read_input_tokens=2000,
    )
    # opus-4 $5 in / $25 out per MTok:
    # 1000*5 + 400*5*1.25 + 2000*5*0.1 + 200*25 = 5000 + 2500 + 1000 + 5000 = 13500 → $0.0135
    assert cost_usd("anthropic", "claude-opus-4-8", usage) == pytest.approx(0.0135)
    assert cost_usd("anthropic", "claude-opus-4-8", usage, batch=True) == pytest.approx(0.00675)
    # haiku-4 $1 / $5: 1000 + 500 + 200 + 1000 = 2700 → $0.0027
    assert cost_usd("anthropic", "claude-haiku-4-5", usage) == pytest.approx(0.0027)
    assert cost_usd("anthropic", "some-other-model", usage) is None
    assert cost_usd("openai", "smol", usage) is None
    assert cost_usd("llama", "smol.gguf", usage) == 0.0


def test_budget_limits() -> None:
    budget = Budget(max_usd=0.01, max_tokens=1000)
    budget.charge(Usage(input_tokens=600, cost_usd=0.004))
    assert not budget.exhausted
    budget.charge(Usage(input_tokens=400, cost_usd=0.001))
    assert budget.exhausted  # 1000 tokens of 1000
    assert budget.describe() == "$0.0050 of $0.01, 1000 of 1000 tokens"
    assert not Budget().exhausted


def test_limiter_aimd_arithmetic() -> None:
    limiter = AdaptiveLimiter(10, cooldown=0.0)
    limiter.throttle()
    assert limiter.limit == pytest.approx(7.0)  # 10 * 0.7
    limiter.throttle()
    assert limiter.limit == pytest.approx(4.9)  # 7 * 0.7
    assert limiter.capacity == 4
    limiter.success()
    assert limiter.limit == pytest.approx(4.9 + 1 / 4.9)
    for _ in range(200):
        limiter.success()
    assert limiter.limit == 10.0  # never above the configured maximum
    slow = AdaptiveLimiter(10, cooldown=60.0)
    slow.throttle()
    slow.throttle()  # within the cooldown: one cut only
    assert slow.limit == pytest.approx(7.0)
    floor = AdaptiveLimiter(1, cooldown=0.0)
    floor.throttle()
    assert floor.capacity == 1


def test_limiter_bounds_concurrency() -> None:
    async def scenario() -> int:
        limiter = AdaptiveLimiter(3)
        active = peak = 0

        async def work() -> None:
            nonlocal active, peak
            async with limiter.slot():
                active += 1
                peak = max(peak, active)
                await asyncio.sleep(0.01)
                active -= 1

        await asyncio.gather(*(work() for _ in range(20)))
        return peak

    assert asyncio.run(scenario()) == 3


def test_cli_budget_stops_cleanly_writes_what_was_judged(
    server: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = write_short_items(tmp_path / "items.jsonl", 5)
    out = tmp_path / "v.jsonl"
    base = judge_argv(items, server.url, "--concurrency", "1")
    # each call: 100 in + 20 out on opus = 0.0005 + 0.0005 = $0.001; budget $0.0025 → 3 calls
    code = main(
        [*base, "--budget-usd", "0.0025", "--cache", str(tmp_path / "c.sqlite"), "-o", str(out)]
    )
    assert code == 2
    assert "budget ran out" in capsys.readouterr().err
    assert len(out.read_text().splitlines()) == 3
    assert server.count("POST", "/v1/messages") == 3


def test_cli_budget_usd_needs_a_known_price(
    fake_anthropic: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text(
        json.dumps({"item_id": "a", "inputs": {"question": "q", "answer": "a", "reference": "r"}})
        + "\n"
    )
    code = main(
        judge_argv(
            items,
            fake_anthropic.url,
            "--backend",
            "openai",
            "--budget-usd",
            "1",
            "-o",
            str(tmp_path / "o.jsonl"),
        )
    )
    assert code == 2
    assert "--budget-tokens" in capsys.readouterr().err


def test_option_resolution_and_backend_errors(capsys: pytest.CaptureFixture[str]) -> None:
    from pathjudge.errors import ConfigError
    from pathjudge.judge.session import DEFAULT_CACHE, JudgeSession, make_judge_backend

    session = JudgeSession.resolve()
    assert (session.backend, session.concurrency, session.samples, session.batch) == (
        "anthropic",
        8,
        1,
        False,
    )
    assert session.cache == DEFAULT_CACHE
    assert session.budget is None
    assert session.model is None
    assert JudgeSession.resolve(backend="openai-compatible").backend == "openai-compatible"
    assert JudgeSession.resolve(backend="llama-cpp").backend == "llama-cpp"
    with pytest.raises(ConfigError, match="unknown backend 'vllm'"):
        JudgeSession.resolve(backend="vllm")
    with pytest.raises(ConfigError, match="--batch needs the anthropic backend"):
        JudgeSession.resolve(backend="openai-compatible", batch=True)
    with pytest.raises(ConfigError, match="samples must be at least 1"):
        JudgeSession.resolve(samples=0)
    with pytest.raises(ConfigError, match="needs --base-url"):
        make_judge_backend("openai-compatible")
    with pytest.raises(ConfigError, match="needs --model PATH"):
        make_judge_backend("llama-cpp")


def test_ratelimit_state_reads_room_and_refill_rate() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC).timestamp()
    headers = {
        # 30 of 50 requests used, full again in 6 s: 30 / 6 = 5 requests a second
        "anthropic-ratelimit-requests-limit": "50",
        "anthropic-ratelimit-requests-remaining": "20",
        "anthropic-ratelimit-requests-reset": "2026-01-01T00:00:06Z",
        # full: refills at the per-minute rate, 6000 / 60 = 100 tokens a second
        "anthropic-ratelimit-tokens-limit": "6000",
        "anthropic-ratelimit-tokens-remaining": "6000",
        "anthropic-ratelimit-tokens-reset": "2026-01-01T00:00:00Z",
        # unusable: ignored
        "anthropic-ratelimit-input-tokens-limit": "nan",
        "anthropic-ratelimit-input-tokens-remaining": "1",
        "anthropic-ratelimit-input-tokens-reset": "2026-01-01T00:00:06Z",
    }
    assert ratelimit_state(headers, now=now) == {"requests": (20.0, 5.0), "tokens": (6000.0, 100.0)}


def test_a_rate_limited_server_is_met_by_pacing_not_by_429s(api_key: str) -> None:
    # 12 requests per 2 s and a bucket of 12: 40 calls at concurrency 32 would draw 20+ 429s
    # if sent as fast as the slots allow; paced by the headers, almost none
    policy = forced_tool_policy(lambda _r: verdict_input())
    limits = RateLimits(requests=12, window=2.0)
    with FakeAnthropic(policy, latency=0.2, rate_limits=limits) as server:
        run = judge_run(server, jobs_for(40), concurrency=32, max_attempts=10)
        throttled = server.throttled
    assert all(isinstance(r, VerdictRecord) for r in run.results.values())
    assert throttled <= 4


def test_the_room_the_headers_report_is_shared_less_the_calls_in_flight() -> None:
    """Two answers arriving together report the same room: the calls sent since the first must not
    get it again (each would start, and the server would answer 429)."""
    reset = datetime.fromtimestamp(clock.time() + 30, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    headers = {
        "anthropic-ratelimit-tokens-limit": "6000",
        "anthropic-ratelimit-tokens-remaining": "300",  # room for 3 calls of 100 tokens
        "anthropic-ratelimit-tokens-reset": reset,
    }

    async def scenario() -> int:
        limiter = AdaptiveLimiter(8)
        limiter.observe_usage(Usage(input_tokens=80, output_tokens=20))
        await limiter.acquire()
        await limiter.acquire()  # two calls in flight, which the headers may not count yet
        limiter.observe_headers(headers)
        return limiter._credit

    assert asyncio.run(scenario()) == 1


def test_a_reset_under_a_second_ahead_sets_no_refill_rate() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC).timestamp() + 0.7  # the reset is 0.3 s on
    headers = {
        "anthropic-ratelimit-tokens-limit": "6000",
        "anthropic-ratelimit-tokens-remaining": "5900",
        "anthropic-ratelimit-tokens-reset": "2026-01-01T00:00:01Z",
    }
    assert ratelimit_state(headers, now=now) == {}


def _spent_tokens(limit: str | None, *, ahead: int) -> dict[str, str]:
    """Headers of a spent token limit, full again ``ahead`` whole seconds from now (``-limit``
    left out when ``limit`` is None)."""
    reset = datetime.fromtimestamp(math.ceil(clock.time()) + ahead, tz=UTC)
    headers = {
        "anthropic-ratelimit-tokens-remaining": "0",
        "anthropic-ratelimit-tokens-reset": reset.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    if limit is not None:
        headers["anthropic-ratelimit-tokens-limit"] = limit
    return headers


def test_a_spent_limit_with_a_refill_rate_waits_for_one_call_not_its_reset() -> None:
    """The limits are token buckets and ``-reset`` is when one is full again: with the refill rate
    known, new calls wait until the bucket holds one call (1700 tokens at 200,000 a minute: about
    0.5 s), not until it is full (60 s)."""
    headers = _spent_tokens("200000", ahead=60)
    assert ratelimit_pause(headers, skip={"tokens"}) is None
    assert 59 <= (ratelimit_pause(headers) or 0) <= 61

    limiter = AdaptiveLimiter(8)
    limiter.observe_usage(Usage(input_tokens=1500, output_tokens=200))
    limiter.observe_headers(headers)
    # 1700 tokens / (200000 tokens / 60 to 61 s) = 0.51 to 0.52 s
    assert 0.4 < limiter._pause_until - clock.monotonic() < 0.6


def test_a_spent_limit_without_a_refill_rate_waits_for_its_reset() -> None:
    limiter = AdaptiveLimiter(8)
    limiter.observe_usage(Usage(input_tokens=1500, output_tokens=200))
    limiter.observe_headers(_spent_tokens(None, ahead=5))  # no -limit: no rate, the reset is all
    assert 4 < limiter._pause_until - clock.monotonic() <= 6


def test_a_limit_spent_by_another_client_costs_a_retry_after_not_a_reset(
    server: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another client spent the requests limit (60 a minute) just before the run: the first call
    draws a 429 with ``retry-after: 1`` whose headers report 0 requests left, full again in 60 s.
    The run waits that second (one request refills in one) and goes on; no pause waits for the
    reset."""
    pauses: list[float] = []
    pause = AdaptiveLimiter.pause

    def recorded(self: AdaptiveLimiter, seconds: float) -> None:
        pauses.append(seconds)
        pause(self, seconds)

    monkeypatch.setattr(AdaptiveLimiter, "pause", recorded)
    reset = datetime.fromtimestamp(clock.time() + 60, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    spent = {
        "anthropic-ratelimit-requests-limit": "60",
        "anthropic-ratelimit-requests-remaining": "0",
        "anthropic-ratelimit-requests-reset": reset,
    }
    server.script(rate_limited(1.0, headers=spent))
    run = judge_run(server, jobs_for(3), concurrency=4, max_attempts=4)
    assert all(isinstance(r, VerdictRecord) for r in run.results.values())
    assert run.stats.throttled == 1
    assert pauses
    assert max(pauses) <= 1.1, pauses  # the retry-after or one refill, never 60 s
