"""Ray Data benchmark: ``score --engine ray`` with 1 and 2 workers against ``--jobs 2``, same run.

    python benchmarks/bench_ray.py [--runs 100000] [--small 1000] [--repeat 5] [--address ADDR]

On ``--runs`` realistic runs (``make_runs.py``) and the every-mode realistic suite it measures, as
medians of ``--repeat`` rounds taking turns (fresh processes, wall time including start-up):

- ``pathjudge score --fast --jobs 1`` and ``--jobs 2`` (the local process pool);
- ``pathjudge score --fast --engine ray --workers 1`` and ``--workers 2`` (a local Ray runtime each time,
  or the cluster at ``--address``);
- the speedup from 1 to 2 Ray workers (target ≥1.6x on two cores), raw and net of Ray's fixed cost;
- Ray's fixed cost: the same commands on a ``--small`` file, where start-up is nearly everything — the
  figure SCALING.md uses to say when not to use Ray.

It also checks that the JSON reports of every engine are byte-identical (scorecard equality on the full
file), and prints peak RSS of the driver (``/usr/bin/time``; Ray's worker processes are not children it
waits for, so their memory is reported by Ray, not here). Nothing asserts; it prints figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import MIN_REPEAT, cpu_count, measure, median_commands, pathjudge_cmd, realistic_suite
from make_runs import write as write_runs


def commands(runs: Path, suite: Path, address: str | None, out: Path) -> dict[str, list[str]]:
    base = ["score", str(runs), "--suite", str(suite), "--fast", "-q"]
    ray = ["--engine", "ray", *(["--address", address] if address else [])]
    return {
        "jobs1": pathjudge_cmd(*base, "--jobs", "1", "--json", str(out / "jobs1.json")),
        "jobs2": pathjudge_cmd(*base, "--jobs", "2", "--json", str(out / "jobs2.json")),
        "ray1": pathjudge_cmd(*base, *ray, "--workers", "1", "--json", str(out / "ray1.json")),
        "ray2": pathjudge_cmd(*base, *ray, "--workers", "2", "--json", str(out / "ray2.json")),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument(
        "--small", type=int, default=1_000, help="the small file (Ray's fixed cost)"
    )
    parser.add_argument("--repeat", type=int, default=5, help="rounds, median kept (min 5)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--address", help="a Ray cluster (auto or ray://HOST:PORT); default local")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pj-ray-") as name:
        tmp = Path(name)
        suite_text, _ = realistic_suite()
        suite = tmp / "suite.yaml"
        suite.write_text(suite_text)
        results = {}
        for label, n in (("small", args.small), ("large", args.runs)):
            runs = tmp / f"{label}.jsonl"
            write_runs(runs, n, args.seed)
            out = tmp / label
            out.mkdir()
            cmds = commands(runs, suite, args.address, out)
            for cmd in cmds.values():  # warm-up: page cache, imports, and a check that each works
                measure(cmd)
            reports = {key: (out / f"{key}.json").read_bytes() for key in cmds}
            same = len(set(reports.values())) == 1
            results[label] = median_commands(cmds, args.repeat)
            got = results[label]
            print(
                f"[{label}] {n:,} runs on {cpu_count()} cores (medians of {max(MIN_REPEAT, args.repeat)})"
            )
            for key, (wall, peak) in got.items():
                print(
                    f"  {key:6}: {wall:8.2f} s  {n / wall:9.0f} runs/s  driver peak {peak:6.0f} MB"
                )
            print(f"  reports byte-identical across engines: {'yes' if same else 'NO'}")
            if not same:
                for key, body in reports.items():
                    card = json.loads(body)["scorecard"]
                    print(f"    {key}: runs={card.get('runs')} success={card.get('success')}")
        small, large = results["small"], results["large"]
        overhead = small["ray2"][0] - small["jobs1"][0]
        print(f"Ray's fixed cost (small file, ray2 - jobs1): {overhead:.2f} s")
        r1, r2 = large["ray1"][0], large["ray2"][0]
        raw = r1 / r2
        fixed = small["ray1"][0]
        ok = "met" if raw >= 1.6 else "NOT met"
        if r2 > fixed * 1.2:  # enough grading beyond start-up for the net figure to mean something
            net = f"{(r1 - fixed) / (r2 - fixed):.2f}x"
        else:
            net = "n/a (start-up dominates: use more --runs)"
        print(
            f"speedup ray 1 -> 2 workers: {raw:.2f}x (target >= 1.6x: {ok}); net of start-up {net}"
        )
        print(f"ray2 vs --jobs 2: {large['jobs2'][0] / r2:.2f}x the local pool's speed")


if __name__ == "__main__":
    main()
