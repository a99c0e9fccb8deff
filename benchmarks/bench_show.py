"""Streaming check for ``pathjudge show``: flat peak memory and runs/s on 10,000 and 100,000 runs.

Generates seeded synthetic runs (``make_runs.py``), then:

1. runs ``/usr/bin/time -v pathjudge show FILE`` on both sizes and prints the peak RSS of each (flat
   memory = nearly equal) and end-to-end runs/s (process start included);
2. measures, in this process, the read-only throughput of ``read_runs`` and of ``read_runs`` +
   ``summarize_runs`` (CPU time, so other load on the machine matters less), each as a ratio to the
   baseline ``json.loads`` of every line of the same file measured in the same run.

    .venv/bin/python benchmarks/bench_show.py [--sizes 10000 100000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_runs import write

from pathjudge.agent.io import read_runs
from pathjudge.agent.stats import summarize_runs


def cpu_rate(n: int, work: Callable[[], object]) -> float:
    """Items per CPU-second of ``work()`` (process time, best of two)."""
    best = float("inf")
    for _ in range(2):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return n / best if best > 0 else float("inf")


def baseline(path: Path) -> None:
    with path.open("rb") as handle:
        for line in handle:
            json.loads(line)


def read_only(path: Path) -> None:
    for _ in read_runs(path):
        pass


def show_cli(path: Path) -> tuple[float, int]:
    """(wall seconds, peak RSS in kB) of ``pathjudge show --json FILE`` under /usr/bin/time -v."""
    exe = Path(sys.executable).with_name("pathjudge")
    command = [str(exe), "show", "--json", str(path)]
    if Path("/usr/bin/time").exists():
        done = subprocess.run(
            ["/usr/bin/time", "-v", *command], capture_output=True, text=True, check=True
        )
        rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))  # type: ignore[union-attr]
        wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", done.stderr)
        assert wall is not None
        parts = [float(p) for p in wall.group(1).split(":")]
        seconds = sum(p * 60**i for i, p in enumerate(reversed(parts)))
        return seconds, rss
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, check=True)
    return time.perf_counter() - start, -1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="write the files here and keep them")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="pathjudge-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        rss: dict[int, int] = {}
        for n in args.sizes:
            path = folder / f"runs-{n}.jsonl"
            size = write(path, n, args.seed)
            wall, peak = show_cli(path)
            rss[n] = peak
            base = cpu_rate(n, lambda p=path: baseline(p))  # type: ignore[misc]
            read = cpu_rate(n, lambda p=path: read_only(p))  # type: ignore[misc]
            summ = cpu_rate(n, lambda p=path: summarize_runs(read_runs(p)))  # type: ignore[misc]
            print(
                f"{n:>7} runs ({size / 1e6:.0f} MB): show {wall:.2f}s wall = {n / wall:,.0f} runs/s, "
                f"peak RSS {peak / 1024:.1f} MiB | in-process CPU: json.loads {base:,.0f}/s, "
                f"read_runs {read:,.0f}/s ({read / base:.2f}x of json.loads), "
                f"read+summarize {summ:,.0f}/s ({summ / base:.2f}x)"
            )
        if len(rss) > 1 and min(rss.values()) > 0:
            small, large = min(rss), max(rss)
            print(
                f"peak RSS ratio {large:,} runs / {small:,} runs = {rss[large] / rss[small]:.2f} "
                "(1.00 = flat memory)"
            )
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
