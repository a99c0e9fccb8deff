"""Rendering cost and size of the HTML report, against plain ``json.dumps`` of the same runs.

Seeded synthetic report: N runs of 6 steps with long tool results. Prints the HTML size (the 1,000-run
target is < 5 MB), the render time, and its ratio to serialising the same view with ``json.dumps``
in the same process (the floor any self-contained report has to pay).

    .venv/bin/python benchmarks/bench_report.py [--runs 1000] [--result-chars 4000]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import time

from pathjudge.report._view import CheckView, MetricView, ReportView, RunView, StepView, TaskView
from pathjudge.report.html import render_html


def synthetic_view(n_runs: int, result_chars: int, seed: int = 0) -> ReportView:
    rng = random.Random(seed)
    words = [
        "refund",
        "policy",
        "order",
        "shipping",
        "invoice",
        "customer",
        "window",
        "days",
        "receipt",
        "account",
    ]

    def text(n: int) -> str:
        out: list[str] = []
        size = 0
        while size < n:
            word = rng.choice(words)
            out.append(word)
            size += len(word) + 1
        return " ".join(out)[:n]

    runs = tuple(
        RunView(
            run_id=f"run-{i:05d}",
            task_id=f"task-{i % 50:02d}",
            epoch=i // 50,
            success=rng.choice(["pass", "pass", "fail"]),
            path_score=float(rng.choice([100, 90, 75, 55, 0])),
            tool_calls=rng.random(),
            trajectory=float(rng.random() < 0.7),
            reason="ok",
            weak=(),
            alignment=(),
            input={"question": text(80)},
            final_answer=text(600),
            stop_reason="end_turn",
            steps=tuple(
                StepView(
                    turn=t,
                    tool=rng.choice(["search_docs", "read_doc", "lookup_order"]),
                    decision=text(120),
                    arguments={"query": text(40), "top_k": 3},
                    arguments_error=None,
                    raw_arguments=None,
                    result=text(result_chars),
                    is_error=rng.random() < 0.05,
                    latency_ms=round(rng.uniform(5, 300), 1),
                )
                for t in range(6)
            ),
            checks=tuple(
                CheckView(f"check.{c}", "tool_selection", "pass", 1.0, text(90), True)
                for c in range(8)
            ),
            verdicts=(),
        )
        for i in range(n_runs)
    )
    tasks = tuple(
        TaskView(f"task-{t:02d}", n_runs // 50, 0.8, 8, 2, 0, 0.9, 0.7, 85.0, 6.0, 2)
        for t in range(50)
    )
    return ReportView(
        title="bench",
        subtitle=f"{n_runs} runs",
        levels=(MetricView("success", "Task success", 0.8),),
        overall=None,
        secondary=(),
        axes=(),
        gates=(),
        weak_paths=(),
        weak_total=0,
        tasks=tasks,
        runs=runs,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--result-chars", type=int, default=4000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    view = synthetic_view(args.runs, args.result_chars)
    render_html(view)  # warm-up: imports, matplotlib font cache
    baseline = []
    ours = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        plain = json.dumps(dataclasses.asdict(view))
        baseline.append(time.perf_counter() - start)
        start = time.perf_counter()
        page = render_html(view)
        ours.append(time.perf_counter() - start)
    size = len(page.encode("utf-8"))
    print(f"runs={args.runs} result_chars={args.result_chars}")
    print(
        f"json.dumps of the full view: {len(plain.encode()) / 1e6:.2f} MB in {min(baseline) * 1000:.0f} ms"
    )
    print(f"HTML report:                 {size / 1e6:.2f} MB in {min(ours) * 1000:.0f} ms")
    print(
        f"ratio render/json.dumps: {min(ours) / min(baseline):.2f}x; size ratio {size / len(plain.encode()):.2f}x"
    )
    print(f"under 5 MB: {size < 5_000_000}")


if __name__ == "__main__":
    main()
