"""Generate N seeded, realistic synthetic runs as a runs JSONL file (for streaming benchmarks).

Each run has 2-8 tool calls over a pool of tools, some issued in parallel (equal ``turn``), about 10%
errored results, about 1% malformed arguments, nested JSON arguments, unicode text, a final answer
(missing in about 5% of runs), token usage, timing and provenance metadata. The same seed gives the same
file byte for byte.

    python benchmarks/make_runs.py 100000 -o /tmp/runs-100k.jsonl --seed 7 --tasks 200
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

TOOLS = [
    "search_docs",
    "get_page",
    "list_regions",
    "get_pricing",
    "create_branch",
    "run_query",
    "get_quota",
    "open_ticket",
]
WORDS = [
    "branch",
    "quota",
    "région",
    "replica",
    "snapshot",
    "café",
    "latency",
    "schema",
    "index",
    "vacuum",
    "pooler",
    "métrique",
]


def _text(rng: random.Random, lo: int, hi: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def _arguments(rng: random.Random, tool: str) -> dict[str, Any]:
    args: dict[str, Any] = {"query": _text(rng, 2, 6), "limit": rng.randint(1, 20)}
    if tool in ("run_query", "create_branch"):
        args["options"] = {"region": rng.choice(["eu-west", "us-east"]), "tags": [_text(rng, 1, 2)]}
    return args


def make_run(rng: random.Random, index: int, tasks: int, start: datetime) -> dict[str, Any]:
    """One synthetic run as a JSON-ready dict in the trajectory schema."""
    n_steps = rng.randint(2, 8)
    steps: list[dict[str, Any]] = []
    turn = 0
    for k in range(n_steps):
        if k and rng.random() > 0.25:  # 25% of calls share the previous call's turn (parallel)
            turn += 1
        tool = rng.choice(TOOLS)
        step: dict[str, Any] = {
            "decision": _text(rng, 5, 15) if rng.random() < 0.6 else None,
            "turn": turn,
            "call_id": f"call_{index}_{k}",
            "tool": tool,
            "arguments": _arguments(rng, tool),
            "result": _text(rng, 10, 40),
            "is_error": rng.random() < 0.1,
            "latency_ms": round(rng.uniform(5, 900), 3),
            "state": {"retries": rng.randint(0, 2)} if rng.random() < 0.2 else {},
        }
        if rng.random() < 0.01:
            step["arguments"] = {}
            step["raw_arguments"] = '{"query": "' + _text(rng, 1, 3)
            step["arguments_error"] = "invalid JSON: Unterminated string"
        steps.append(step)
    began = start + timedelta(seconds=index)
    took = rng.uniform(500, 20000)
    return {
        "schema_version": 1,
        "run_id": f"run-{index:07d}",
        "task_id": f"task-{rng.randrange(tasks):04d}",
        "epoch": rng.randint(0, 4),
        "agent": {
            "name": "docent",
            "model": "claude-haiku-4-5",
            "version": "1",
            "backend": "anthropic",
        },
        "input": _text(rng, 6, 20) + "?",
        "steps": steps,
        "final_answer": None if rng.random() < 0.05 else _text(rng, 20, 60),
        "stop_reason": "end_turn",
        "usage": {"input_tokens": rng.randint(500, 9000), "output_tokens": rng.randint(50, 900)},
        "timing": {
            "started_at": began.isoformat(),
            "ended_at": (began + timedelta(milliseconds=took)).isoformat(),
            "duration_ms": round(took, 3),
        },
        "metadata": {"source": {"format": "synthetic", "index": index}},
    }


def generate(n: int, seed: int, tasks: int = 200) -> Iterator[dict[str, Any]]:
    """``n`` runs from ``seed`` over ``tasks`` task ids (a suite size; independent of ``n``)."""
    rng = random.Random(seed)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for index in range(n):
        yield make_run(rng, index, tasks, start)


def write(path: Path, n: int, seed: int, tasks: int = 200) -> int:
    """Write ``n`` runs to ``path``; returns the number of bytes written."""
    size = 0
    with path.open("w", encoding="utf-8") as out:
        for run in generate(n, seed, tasks):
            line = json.dumps(run, ensure_ascii=False, separators=(",", ":")) + "\n"
            out.write(line)
            size += len(line.encode("utf-8"))
    return size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, help="number of runs")
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--tasks", type=int, default=200, help="distinct task ids (default 200)")
    args = parser.parse_args()
    size = write(args.output, args.n, args.seed, args.tasks)
    print(f"wrote {args.n} runs ({size / 1e6:.1f} MB) to {args.output}")


if __name__ == "__main__":
    main()
