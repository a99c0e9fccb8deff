"""Message Batches at scale: 10,000 items split across several batches, killed midway, resumed.

The judging runs in a child process that is SIGKILLed twice — once while it submits the third of four
batches, once while it polls — and a third run finishes the work. Every request the fake server received
is counted: each of the 10,000 samples is sent exactly once and comes back mapped to its own item.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pathjudge.errors import JudgeError
from pathjudge.judge.batches import chunk_requests
from tests.fakes.anthropic_server import FakeAnthropic, RecordedRequest, Reply
from tests.judge.conftest import policy_by

N_ITEMS = 10_000
PER_BATCH = 2_500
ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import asyncio, json, sys
from pathjudge.judge.backends.anthropic import AnthropicJudgeBackend
from pathjudge.judge.batches import run_batch
from pathjudge.judge.cache import VerdictCache
from pathjudge.judge.runner import JudgeJob
from pathjudge.judge.verdict import VerdictRecord
from pathjudge.rubrics.criteria import get_criterion

url, cache_path, out, n, per_batch = sys.argv[1:6]
crit = get_criterion("answer-correct")
jobs = [
    JudgeJob(
        item_id=f"item-{i}",
        criterion=crit,
        inputs={"question": "q?", "answer": f"answer number {i}", "reference": "r"},
    )
    for i in range(int(n))
]

async def main():
    backend = AnthropicJudgeBackend(base_url=url)
    try:
        with VerdictCache(cache_path) as cache:
            return await run_batch(
                jobs, backend=backend, cache=cache, poll_interval=0.02,
                max_requests=int(per_batch),
            )
    finally:
        await backend.aclose()

run = asyncio.run(main())
with open(out, "w") as f:
    for item_id, record in run.results.items():
        ok = isinstance(record, VerdictRecord)
        f.write(json.dumps([item_id, record.verdict if ok else None]) + "\\n")
"""


def _child(server: FakeAnthropic, tmp_path: Path, out: Path) -> subprocess.Popen[bytes]:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    return subprocess.Popen(
        [
            sys.executable,
            str(script),
            server.url,
            str(tmp_path / "cache.sqlite"),
            str(out),
            str(N_ITEMS),
            str(PER_BATCH),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _wait_for(condition: Any, child: subprocess.Popen[bytes], timeout: float = 240.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if child.poll() is not None or time.monotonic() > deadline:
            child.kill()
            _, stderr = child.communicate(timeout=30)  # closes the pipe
            raise AssertionError(
                f"the child ended early or hung: {stderr.decode(errors='replace')[-2000:]}"
            )
        time.sleep(0.05)


def _kill(child: subprocess.Popen[bytes]) -> str:
    child.send_signal(signal.SIGKILL)
    _, stderr = child.communicate(timeout=30)
    return stderr.decode()


def _decide(request: RecordedRequest) -> str:
    """Odd items fail, even items pass: a verdict that proves each result went back to its own item."""
    answer = request.json["messages"][0]["content"]
    number = int(answer.split("answer number ")[1].split("<")[0].split()[0])
    return "fail" if number % 2 else "pass"


@pytest.mark.slow
def test_ten_thousand_items_across_batches_survive_two_kills(
    server: FakeAnthropic, tmp_path: Path
) -> None:
    server.policy = policy_by(_decide)
    server.record_bodies = True
    creates = 0
    create = next(r.handler for r in server._routes if r.name == "POST /v1/messages/batches")

    def hanging_third_create(request: RecordedRequest) -> Any:
        nonlocal creates
        creates += 1
        if creates == 3:  # the first run is killed while this request hangs: batch 3 never exists
            return Reply(hang=3600)
        return create(request)

    server.add_route("POST", r"^/v1/messages/batches$", hanging_third_create)
    server.batch_polls = 10**9  # nothing ends until the last run

    # run 1: killed while submitting the third of four batches
    child = _child(server, tmp_path, tmp_path / "out1.jsonl")
    _wait_for(lambda: creates >= 3, child)
    _kill(child)
    assert len(server.batches) == 2

    # run 2: resumes — submits batches 3 and 4 (never 1 and 2 again), is killed while polling all four
    child = _child(server, tmp_path, tmp_path / "out2.jsonl")
    polls_before = len(server.requests)
    _wait_for(
        lambda: (
            len(server.batches) == 4
            and sum(1 for r in server.requests[polls_before:] if r.method == "GET") >= 8
        ),
        child,
    )
    warned = _kill(child)
    # the reservation of the hung chunk had no batch id: it is sent again, and the user is told
    assert f"{PER_BATCH} batch request(s)" in warned
    polled = {r.path.rsplit("/", 1)[1] for r in server.requests if r.method == "GET"}
    assert polled == set(server.batches)  # every batch, resumed or new, was being polled

    # run 3: everything ends; collects the four batches without submitting anything
    server.batch_polls = 1
    creates_before = creates
    out = tmp_path / "out3.jsonl"
    child = _child(server, tmp_path, out)
    _, stderr = child.communicate(timeout=600)  # type: ignore[assignment]
    assert child.returncode == 0, stderr.decode()[-2000:]
    assert creates == creates_before  # nothing submitted on the last resume

    sent: Counter[str] = Counter()
    sizes = []
    for request in server.requests:
        if request.method == "POST" and request.path == "/v1/messages/batches" and request.json:
            ids = [entry["custom_id"] for entry in request.json["requests"]]
            sizes.append(len(ids))
            sent.update(ids)
    # 1, 2, the hung 3 of run 1 (never created), then 3 and 4 of run 2
    assert sizes == [PER_BATCH] * 5
    created = Counter(
        entry["custom_id"] for batch in server.batches.values() for entry in batch["results"]
    )
    assert len(created) == N_ITEMS
    assert set(created.values()) == {1}  # no item sent twice
    results = dict(json.loads(line) for line in out.read_text().splitlines())
    assert len(results) == N_ITEMS  # no item lost
    assert all(results[f"item-{i}"] == ("fail" if i % 2 else "pass") for i in range(N_ITEMS))


def test_chunks_respect_request_and_byte_limits() -> None:
    requests = [{"custom_id": f"c{i}", "params": {"x": "y" * (i % 7)}} for i in range(25)]
    chunks = list(chunk_requests(requests, max_requests=10, max_bytes=10**6))
    assert [len(c) for c in chunks] == [10, 10, 5]
    assert [r for c in chunks for r in c] == requests
    size = len(json.dumps(requests[0], separators=(",", ":"))) + 1
    by_bytes = list(chunk_requests(requests[:4], max_requests=100, max_bytes=2 * size + 8))
    assert all(
        sum(len(json.dumps(r, separators=(",", ":"))) + 1 for r in c) <= 2 * size + 8
        for c in by_bytes
    )
    assert [r for c in by_bytes for r in c] == requests[:4]
    assert len(by_bytes) >= 2
    with pytest.raises(JudgeError, match="over the"):
        list(chunk_requests([{"custom_id": "big", "params": {"x": "y" * 100}}], max_bytes=50))
