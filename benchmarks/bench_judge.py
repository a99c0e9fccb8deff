"""Judge throughput against the fake Anthropic server: wall time vs the ideal, 429 resilience, cached rerun.

Three runs of N items at concurrency C against a fake server (separate process) answering every call
after L seconds:

1. clean: wall time vs the ideal N / C x L (target: ratio <= 1.25);
2. 10% of calls answered 429 (retry-after 0.2 s): every item must still get a verdict (zero lost);
3. rerun of (1) with its cache: zero requests must reach the server.

It also measures the client's CPU cost per call with latency 0 (the floor no concurrency can hide),
for both client paths: ``lean`` (the default: the first call posted by the backend itself with the
SDK's headers on its own HTTP/1.1 connections, its raw JSON validated straight into a ``Verdict``;
instructor only re-asks) and ``instructor`` (every call through instructor), so the gain of the
lean path is visible in the same run. The fake server is a separate Python process on the same
machine, so on 2 cores client and server share the CPU: the clean run needs ``C / L`` calls a
second (640 at the defaults) from one event loop, i.e. at most about 1.2 ms of client CPU per call all in
(HTTP, runner, cache write, evidence check, records); the clean run prints its CPU per call. ``--client`` picks the path of runs 1-3. Run::

    .venv/bin/python benchmarks/bench_judge.py            # N=2000, C=64, L=0.1, lean client
    .venv/bin/python benchmarks/bench_judge.py --items 500 --client instructor
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src"), str(REPO)]

from pathjudge._aio import run_sync  # noqa: E402
from pathjudge.judge.backends.anthropic import AnthropicJudgeBackend  # noqa: E402
from pathjudge.judge.cache import VerdictCache  # noqa: E402
from pathjudge.judge.runner import JudgeJob, JudgeRun, run_judge  # noqa: E402
from pathjudge.judge.verdict import VerdictRecord  # noqa: E402
from pathjudge.rubrics.criteria import get_criterion  # noqa: E402


def start_server(latency: float, rate_limit_fraction: float) -> tuple[subprocess.Popen[str], str]:
    command = [
        sys.executable, "-m", "tests.fakes.anthropic_server",
        "--latency", str(latency), "--rate-limit-fraction", str(rate_limit_fraction), "--retry-after", "0.2",
    ]  # fmt: skip
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def counters(url: str) -> dict[str, int]:
    with urllib.request.urlopen(f"{url}/_fake/counters") as response:
        data: dict[str, int] = json.load(response)
    return data


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


LEAN = True


async def judge(
    url: str, items: list[JudgeJob], concurrency: int, cache: VerdictCache | None
) -> JudgeRun:
    backend = AnthropicJudgeBackend(base_url=url, max_connections=concurrency, lean=LEAN)
    try:
        return await run_judge(
            items,
            backend=backend,
            cache=cache,
            concurrency=concurrency,
            backoff_initial=0.2,
        )
    finally:
        await backend.aclose()


def timed(
    url: str, items: list[JudgeJob], concurrency: int, cache: VerdictCache | None
) -> tuple[JudgeRun, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    run = run_sync(judge(url, items, concurrency, cache))  # as run_judge_sync: see pathjudge._aio
    return run, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument(
        "--client",
        choices=("lean", "instructor"),
        default="lean",
        help="the judge client path for the clean, 429 and cached runs (default lean)",
    )
    args = parser.parse_args()
    global LEAN
    os.environ.setdefault("ANTHROPIC_API_KEY", "sk-bench-not-a-real-key")
    n, c, latency = args.items, args.concurrency, args.latency
    items = jobs(n)
    ideal = n / c * latency

    # Warm-up (imports, connection pool) outside the timings.
    server, url = start_server(latency, 0.0)
    try:
        asyncio.run(judge(url, items[:c], c, None))
        floor_server, floor_url = start_server(0.0, 0.0)
        floors: dict[str, float] = {}
        try:
            sample = items[: min(n, 500)]
            for name in ("instructor", "lean"):
                LEAN = name == "lean"
                asyncio.run(judge(floor_url, sample[:c], c, None))  # warm this path up
                _, _floor_wall, floor_cpu = timed(floor_url, sample, c, None)
                floors[name] = floor_cpu / len(sample) * 1000
        finally:
            floor_server.terminate()
        LEAN = args.client == "lean"
        cpu_per_call_ms = floors[args.client]

        with tempfile.TemporaryDirectory() as folder:
            cache_path = Path(folder) / "bench.sqlite"
            before = counters(url).get("POST /v1/messages", 0)
            with VerdictCache(cache_path) as cache:
                clean, wall, cpu = timed(url, items, c, cache)
            sent = counters(url).get("POST /v1/messages", 0) - before
            ok = sum(isinstance(r, VerdictRecord) for r in clean.results.values())
            with VerdictCache(cache_path) as cache:
                before = counters(url).get("POST /v1/messages", 0)
                _, cached_wall, _ = timed(url, items, c, cache)
                cached_sent = counters(url).get("POST /v1/messages", 0) - before
    finally:
        server.terminate()

    limited_server, limited_url = start_server(latency, 0.10)
    try:
        limited, limited_wall, _ = timed(limited_url, items, c, None)
        limited_counts = counters(limited_url)
    finally:
        limited_server.terminate()
    limited_ok = sum(isinstance(r, VerdictRecord) for r in limited.results.values())

    print(
        f"items={n} concurrency={c} latency={latency * 1000:.0f} ms  ideal={ideal:.2f} s  "
        f"client={args.client}"
    )
    print(
        f"client CPU per call (latency 0): lean {floors['lean']:.2f} ms, instructor "
        f"{floors['instructor']:.2f} ms ({floors['instructor'] / floors['lean']:.2f}x)  -> CPU floor "
        f"for N calls with {args.client}: {n * cpu_per_call_ms / 1000:.2f} s"
    )
    print(
        f"clean run:   wall {wall:.2f} s  ratio {wall / ideal:.2f}x (target <= 1.25x)  verdicts {ok}/{n}  requests {sent}  cpu {cpu:.2f} s ({cpu / n * 1000:.2f} ms/call)"
    )
    print(
        f"10% 429:     wall {limited_wall:.2f} s  ratio {limited_wall / ideal:.2f}x  verdicts {limited_ok}/{n} "
        f"(lost {n - limited_ok})  requests {limited_counts.get('POST /v1/messages', 0)}  "
        f"throttled {limited.stats.throttled}  min concurrency {limited.stats.min_concurrency:.1f}"
    )
    print(f"cached rerun: wall {cached_wall:.2f} s  requests {cached_sent} (target 0)")


if __name__ == "__main__":
    main()
