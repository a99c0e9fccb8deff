"""Cost of the benchmark semantics of issue 12, each as a ratio to a baseline measured in the same run.

1. ``contains_any`` under a declared normalisation ``{casefold, remove: ",$", strip_accents,
   collapse_whitespace}`` vs the ``casefold`` preset, on the same answers (compiled once per
   criterion: the ratio should stay near 1-2x);
2. ``match_call`` under ``types: bfcl`` vs ``types: lenient`` on the same BFCL-shaped expectations and
   calls (the bfcl rule does the official checker's type checks: expect a small constant factor);
3. reading version-1 run lines (migrated on read: the final answer becomes the one reply) vs the
   same runs written as version 2;
4. aligning a one-step ``types: bfcl`` reference with a run that made the right call and then four
   more of its tool (BFCL's wrong count) vs the same run with the right call alone: the aligner
   stops at the first full match, so the ratio should stay near 1x (the full search matched all
   five calls).

CPU time, best of three; nothing is asserted here, the numbers are printed.

    .venv/bin/python benchmarks/bench_semantics.py [--n 20000]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pathjudge.agent.io import read_runs
from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics.assertions.arguments import CallExpectation, match_call
from pathjudge.rubrics.assertions.outcome import ContainsAnyCriterion, check_outcome
from pathjudge.rubrics.path import ReferencePath, align_calls, compile_reference


def cpu(work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def bench_normalize(n: int, rnd: random.Random) -> tuple[float, float]:
    answers = [
        RunRecord(
            run_id=str(i),
            task_id="t",
            final_answer=f"Your refund of ${rnd.randint(1, 99)},{rnd.randint(100, 999)} is on its way. "
            * 3,
        )
        for i in range(n)
    ]
    preset = ContainsAnyCriterion(values=("23,553", "refund"), normalize="casefold")
    declared = ContainsAnyCriterion.model_validate(
        {
            "kind": "contains_any",
            "values": ["23553", "refund"],
            "normalize": {
                "casefold": True,
                "remove": ",$",
                "strip_accents": True,
                "collapse_whitespace": True,
            },
        }
    )
    base = cpu(lambda: [check_outcome(r, preset) for r in answers])
    new = cpu(lambda: [check_outcome(r, declared) for r in answers])
    return base, new


def bench_types(n: int, rnd: random.Random) -> tuple[float, float]:
    args = {
        "city": {"$one_of": ["New York, NY", "NYC"]},
        "days": {"$one_of": [3, ""]},
        "temps": {"$one_of": [[20.5, 21.0]]},
        "units": {"$one_of": ["celsius", ""]},
    }
    lenient = CallExpectation(tool="forecast", args=args)
    bfcl = CallExpectation(tool="forecast", args=args, types="bfcl")
    calls = [
        {
            "city": rnd.choice(["new york ny", "NYC", "Boston"]),
            "days": rnd.choice([3, 3.0, 4]),
            "temps": rnd.choice([[20.5, 21.0], [20.5, 21]]),
        }
        for _ in range(n)
    ]
    base = cpu(lambda: [match_call("forecast", c, lenient) for c in calls])
    new = cpu(lambda: [match_call("forecast", c, bfcl) for c in calls])
    return base, new


def bench_read(n: int) -> tuple[float, float]:
    runs = [
        RunRecord(
            run_id=str(i),
            task_id="t",
            steps=(Step(tool="search", arguments={"q": "x"}),),
            final_answer="done",
        )
        for i in range(n)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        v2 = Path(tmp) / "v2.jsonl"
        v1 = Path(tmp) / "v1.jsonl"
        lines = [run.model_dump_json() for run in runs]
        v2.write_text("\n".join(lines) + "\n", encoding="utf-8")
        old = []
        for line in lines:
            data = json.loads(line)
            data["schema_version"] = 1
            del data["replies"]
            old.append(json.dumps(data))
        v1.write_text("\n".join(old) + "\n", encoding="utf-8")
        base = cpu(lambda: sum(1 for _ in read_runs(v2)))
        new = cpu(lambda: sum(1 for _ in read_runs(v1)))
    return base, new


def bench_wrong_count(n: int, rnd: random.Random) -> tuple[float, float]:
    reference = ReferencePath.model_validate(
        {
            "mode": "strict",
            "steps": [
                {
                    "tool": "forecast",
                    "types": "bfcl",
                    "args": {
                        "city": {"$one_of": ["New York, NY", "NYC"]},
                        "days": {"$one_of": [3, ""]},
                        "temps": {"$one_of": [[20.5, 21.0]], "$items": "float"},
                    },
                }
            ],
        }
    )
    refs = compile_reference(reference)
    rights = [
        Step(tool="forecast", arguments={"city": rnd.choice(["NYC", "nyc"]), "temps": [20.5, 21.0]})
        for _ in range(n)
    ]
    more = [
        Step(tool="forecast", arguments={"city": f"c{k}", "days": rnd.randint(1, 9), "temps": []})
        for k in range(4)
    ]
    alone = [(step,) for step in rights]
    wrong_count = [(step, *more) for step in rights]
    base = cpu(lambda: [align_calls(steps, refs, "strict") for steps in alone])
    new = cpu(lambda: [align_calls(steps, refs, "strict") for steps in wrong_count])
    return base, new


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20_000)
    args = parser.parse_args()
    rnd = random.Random(12)
    for name, (base, new) in (
        ("declared normalisation vs casefold preset", bench_normalize(args.n, rnd)),
        ("types: bfcl vs lenient match_call", bench_types(args.n, rnd)),
        ("read version-1 lines (migrated) vs version 2", bench_read(args.n)),
        ("one-step reference: right call + 4 vs alone", bench_wrong_count(args.n, rnd)),
    ):
        print(f"{name:48s} {args.n / new:12,.0f}/s  ratio {new / base:5.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
