"""What users meet: a judge run against a rate-limited API with 1-5 s latency.

The fake Anthropic server (in this process, its own thread) answers each call after 1 to 5 seconds
(uniform, seeded) and enforces requests-per-minute and tokens-per-minute limits as the API does:
token buckets refilled continuously, a 429 with ``retry-after`` when one is short, and
``anthropic-ratelimit-*`` headers on every answer (``tests.fakes.anthropic_server.RateLimits``).
The judge runs N items at concurrency C, well above what the limits allow, so the limits and the
runner's pacing decide the throughput. Printed:

- token budget used: tokens answered / the most the server would have answered over the run's wall
  time (a full bucket at the start plus the refill) — target >= 90%;
- throttled share: 429s / requests — target <= 2%;
- verdicts: every item must get one (nothing lost).

``--window`` shortens the limits' period (default 60 s: per minute). A brief run must still drain
the first full bucket (about 117 calls at the default limits) and then pace for most of its time,
or it measures only its start. A run's fixed costs (importing the SDK, the first call going alone to
read the limits, the last answers: about 15 s) are about 5% of the default run but a quarter of a
one-minute run, so a brief run reads lower: compare brief runs with each other, and confirm the
target at the default. Run::

    .venv/bin/python benchmarks/bench_judge.py                          # 600 items, per minute (~4.5 min)
    .venv/bin/python benchmarks/bench_judge.py --items 600 --window 10  # brief (~1 min), 6x the rate
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src"), str(REPO)]

from tests.fakes.anthropic_server import (  # noqa: E402
    FakeAnthropic,
    RateLimits,
    forced_tool_policy,
)

from pathjudge.judge.backends.anthropic import AnthropicJudgeBackend  # noqa: E402
from pathjudge.judge.runner import JudgeJob, JudgeRun, run_judge  # noqa: E402
from pathjudge.judge.verdict import VerdictRecord  # noqa: E402
from pathjudge.rubrics.criteria import get_criterion  # noqa: E402

USAGE = {"input_tokens": 1500, "output_tokens": 200}
"""Each answer's usage: a rubric, one item's data and a short verdict."""


def jobs(n: int) -> list[JudgeJob]:
    criterion = get_criterion("answer-correct")
    return [
        JudgeJob(
            item_id=f"bench-{i}",
            criterion=criterion,
            inputs={
                "question": f"Question {i}?",
                "answer": f"Answer {i}.",
                "reference": f"Reference {i}.",
            },
        )
        for i in range(n)
    ]


async def judge(url: str, items: list[JudgeJob], concurrency: int) -> JudgeRun:
    backend = AnthropicJudgeBackend(base_url=url, api_key="bench-key", max_connections=concurrency)
    try:
        return await run_judge(items, backend=backend, concurrency=concurrency, max_attempts=8)
    finally:
        await backend.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=600)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=1.0, help="least latency (s)")
    parser.add_argument("--jitter", type=float, default=4.0, help="plus up to this (s)")
    parser.add_argument("--window", type=float, default=60.0, help="the limits' period (s)")
    parser.add_argument(
        "--tokens", type=int, default=200_000, help="tokens per window (default 200k)"
    )
    parser.add_argument("--requests", type=int, default=200, help="requests per window")
    args = parser.parse_args()

    limits = RateLimits(requests=args.requests, tokens=args.tokens, window=args.window)
    policy = forced_tool_policy(
        lambda _r: {"reasoning": "The answer matches.", "evidence": [], "verdict": "pass"},
        usage=USAGE,
    )
    with FakeAnthropic(
        policy, latency=args.latency, jitter=args.jitter, rate_limits=limits, record_bodies=False
    ) as server:
        started = time.monotonic()
        run = asyncio.run(judge(server.url, jobs(args.items), args.concurrency))
        wall = time.monotonic() - started
        requests = server.count("POST", "/v1/messages")
        throttled = server.throttled
        served = server.tokens_served
    per_call = sum(USAGE.values())
    budget = min(
        args.tokens + args.tokens * wall / args.window,
        (args.requests + args.requests * wall / args.window) * per_call,
    )
    verdicts = sum(isinstance(r, VerdictRecord) for r in run.results.values())
    used = served / budget
    share = throttled / max(1, requests)
    print(
        f"{args.items} items, concurrency {args.concurrency}, latency {args.latency:g}-"
        f"{args.latency + args.jitter:g} s, limits {args.requests} requests and {args.tokens} "
        f"tokens per {args.window:g} s ({per_call} tokens a call)"
    )
    print(f"wall {wall:.1f} s, requests {requests}, 429s {throttled}, least concurrency "
          f"{run.stats.min_concurrency:.1f}")  # fmt: skip
    print(f"token budget used: {used:.1%} of {budget:,.0f} tokens (target >= 90%)  "
          f"{'ok' if used >= 0.9 else 'MISSED'}")  # fmt: skip
    print(f"throttled share: {share:.2%} of requests (target <= 2%)  "
          f"{'ok' if share <= 0.02 else 'MISSED'}")  # fmt: skip
    print(f"verdicts: {verdicts}/{args.items} (nothing lost)  "
          f"{'ok' if verdicts == args.items else 'MISSED'}")  # fmt: skip


if __name__ == "__main__":
    main()
