"""In-process benchmark: pathjudge's checks against a plain-Python floor doing the same work.

    python benchmarks/bench_fast.py [--runs 20000] [--tasks 200] [--seed 7] [--repeat 5] [--e2e 50000]

A varied, seeded workload: 200 tasks whose references (every alignment mode) carry literal, nested
arguments; runs derived from them with repeats, swaps, drops, substitutions and extra calls, so call
shapes vary, and every final answer is unique (no cache can serve a second run from the first).

1. The four basic checks — tool names in order, exact arguments, redundant-call count, step budget —
   in pathjudge (``_common.four_checks``: the compiled task plan's matchers and ``redundant_calls``)
   against the plain floor
   (``_common.plain_checks``: dicts, tuple keys for repeated calls exactly as pathjudge keys them, no
   ``json.dumps`` per call). Both sides are checked to agree on every run first.
2. Full five-axis grading with the path score into the scorecard, against the same floor (for
   information: what the other axes and the path cost beyond the four checks).
3. End to end (``--e2e`` runs, 0 to skip): ``pathjudge score --fast --jobs 1`` against the plain
   end-to-end floor (one process: interpreter start, ``json.loads`` per line, four checks), medians,
   peak RSS by ``/usr/bin/time``; and, for information, ``score --fast`` with the default ``--jobs``
   (every core) against the same floor. For information too: these runs are about 0.5 KB, where the
   floor's ``json.loads`` costs little against grading five axes; the end-to-end target (≤5x) is set
   on ``bench_realistic.py``'s 3 KB runs.

Every figure is a median of ``--repeat`` (≥5) rounds in which the contenders take turns; CPU time of this
process for 1-2, wall time of fresh processes for 3. Nothing asserts; it prints ratios and targets.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    MIN_REPEAT,
    MODES,
    cpu_count,
    floor_cmd,
    four_checks,
    full_grading,
    median_commands,
    median_cpu,
    pathjudge_cmd,
    plain_checks,
    task_plans,
    write_floor,
)

from pathjudge.agent.trajectory import RunRecord
from pathjudge.rubrics.suite import parse_suite_text

TOOLS = [
    "lookup_order",
    "refund",
    "send_message",
    "search_help",
    "get_user",
    "update_address",
    "cancel_order",
    "list_items",
]


def _args(rng: random.Random, t: int) -> dict[str, Any]:
    args: dict[str, Any] = {"order_id": f"A{t}-{rng.randint(0, 99)}"}
    if rng.random() < 0.5:
        args["items"] = [{"sku": f"S{rng.randint(0, 999)}", "qty": rng.randint(1, 3)}]
    if rng.random() < 0.3:
        args["note"] = rng.choice(["urgent", "gift", "café", "régional"])
    return args


def make_suite(
    rng: random.Random, n_tasks: int, modes: tuple[str, ...] = MODES
) -> tuple[str, dict[str, dict[str, Any]]]:
    lines = ["schema_version: 1", "name: bench-fast", "tasks:"]
    plain: dict[str, dict[str, Any]] = {}
    for t in range(n_tasks):
        ref = [
            {"tool": tool, "args": _args(rng, t)} for tool in rng.sample(TOOLS, rng.randint(1, 4))
        ]
        budget = len(ref) + rng.randint(0, 2)
        lines += [
            f"  - id: task-{t}",
            f"    input: task {t}",
            f"    success: {{kind: contains_all, values: [done-{t % 7}]}}",
            f"    steps: {{budget: {budget}}}",
            "    references:",
            f"      - mode: {modes[t % len(modes)]}",
            "        steps: " + json.dumps(ref),
        ]
        plain[f"task-{t}"] = {
            "tools": [r["tool"] for r in ref],
            "args": [r["args"] for r in ref],
            "budget": budget,
            "ref": ref,
        }
    return "\n".join(lines) + "\n", plain


def make_run(rng: random.Random, index: int, plain: dict[str, dict[str, Any]]) -> dict[str, Any]:
    task_id = rng.choice(list(plain))
    t = int(task_id.split("-")[1])
    calls = [
        {"tool": c["tool"], "args": json.loads(json.dumps(c["args"]))}
        for c in plain[task_id]["ref"]
    ]
    for _ in range(rng.choice([0, 0, 1, 2])):
        roll = rng.random()
        if roll < 0.25:
            calls.insert(rng.randrange(len(calls) + 1), json.loads(json.dumps(rng.choice(calls))))
        elif roll < 0.45 and len(calls) > 1:
            i, j = rng.sample(range(len(calls)), 2)
            calls[i], calls[j] = calls[j], calls[i]
        elif roll < 0.6 and len(calls) > 1:
            calls.pop(rng.randrange(len(calls)))
        elif roll < 0.8:
            calls[rng.randrange(len(calls))]["args"] = _args(rng, t)
        else:
            calls.append({"tool": rng.choice(TOOLS), "args": _args(rng, t)})
    steps = [
        {
            "turn": turn,
            "tool": c["tool"],
            "arguments": c["args"],
            "result": {"ok": rng.random() > 0.1, "n": rng.randint(0, 999)},
            "is_error": rng.random() < 0.05,
        }
        for turn, c in enumerate(calls)
    ]
    answer = f"run {index}: " + ("done-" + str(t % 7) if rng.random() < 0.7 else "sorry")
    return {"run_id": f"r{index}", "task_id": task_id, "steps": steps, "final_answer": answer}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20_000)
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--e2e", type=int, default=50_000, help="end-to-end runs (0: skip)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5, help="timed rounds, median kept (min 5)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    suite_text, plain = make_suite(rng, args.tasks)
    suite = parse_suite_text(suite_text)
    dicts = [make_run(rng, i, plain) for i in range(args.runs)]
    records = [RunRecord.model_validate(d) for d in dicts]
    n = args.runs

    plans = task_plans(suite)
    for d, r in zip(dicts, records, strict=True):  # sanity: both sides agree on every run
        mine = four_checks(r, plans[r.task_id])
        floor = plain_checks(d, plain[d["task_id"]])
        assert mine == floor, (d["run_id"], mine, floor)

    def full() -> None:
        full_grading(records, suite)

    floor_t, four_t, full_t = median_cpu(
        [
            lambda: [plain_checks(d, plain[d["task_id"]]) for d in dicts],
            lambda: [four_checks(r, plans[r.task_id]) for r in records],
            full,
        ],
        args.repeat,
    )
    print(
        f"runs: {n} over {args.tasks} tasks (seed {args.seed}), "
        f"medians of {max(MIN_REPEAT, args.repeat)}"
    )
    print(f"plain floor, four checks        : {floor_t / n * 1e6:8.2f} us/run")
    print(
        f"pathjudge, four checks          : {four_t / n * 1e6:8.2f} us/run  ratio "
        f"{four_t / floor_t:6.2f}x"
    )
    print(
        f"full grading + path + scorecard : {full_t / n * 1e6:8.2f} us/run  ratio "
        f"{full_t / floor_t:6.2f}x (for information)"
    )
    if args.e2e:
        end_to_end(args, suite_text, plain)


def end_to_end(args: argparse.Namespace, suite_text: str, plain: dict[str, dict[str, Any]]) -> None:
    rng = random.Random(args.seed + 1)
    with tempfile.TemporaryDirectory(prefix="pj-fast-") as name:
        tmp = Path(name)
        suite = tmp / "suite.yaml"
        suite.write_text(suite_text)
        runs = tmp / "runs.jsonl"
        with runs.open("w", encoding="utf-8") as out:
            for i in range(args.e2e):
                out.write(json.dumps(make_run(rng, i, plain), ensure_ascii=False) + "\n")
        script, table = write_floor(tmp, plain)
        score = ("score", str(runs), "--suite", str(suite), "--fast", "-q")
        got = median_commands(
            {
                "floor": floor_cmd(script, runs, table),
                "pathjudge": pathjudge_cmd(*score, "--jobs", "1"),  # one process, as the floor
                "default": pathjudge_cmd(*score),  # --jobs: the core count on a large file
            },
            args.repeat,
        )
        (floor, _), (mine, peak), (default, _) = got["floor"], got["pathjudge"], got["default"]
        print(
            f"end to end, {args.e2e} runs: floor (1 process) {floor:.2f} s, "
            f"pathjudge score --fast --jobs 1 {mine:.2f} s"
        )
        # the end-to-end target (<= 5x) is set on bench_realistic.py's workload (3 KB runs); these
        # runs are about 0.5 KB, so the floor's json.loads is cheap against grading five axes
        print(
            f"  {args.e2e / mine:.0f} runs/s, peak RSS {peak:.0f} MB; ratio {mine / floor:.2f}x "
            "(small runs, for information: the end-to-end target is bench_realistic.py's)"
        )
        print(
            f"  default --jobs ({cpu_count()} cores): {default:.2f} s, ratio {default / floor:.2f}x "
            "(every core against the one-process floor; for information)"
        )


if __name__ == "__main__":
    main()
