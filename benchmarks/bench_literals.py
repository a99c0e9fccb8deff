"""BFCL literal reading on hostile literals: the official checker's patterns against pathjudge's scans.

Each row is a 4,000-character literal (the longest pathjudge converts) made of one pattern's heads
repeated without their closers; the baseline is the checker's own regular expression doing the same
search (``re.search``/``re.findall``), measured in the same run. Run: ``python
benchmarks/bench_literals.py`` (about a minute; the checker's HashMap pattern alone takes seconds).
"""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import median_cpu

from pathjudge.rubrics.assertions import _bfcl as b

CASES = [
    # name, literal, the checker's call, pathjudge's call
    ("HashMap heads", "new HashMap<>() {{" * 222, lambda t: re.search(b.MAP_PATTERN, t, re.DOTALL), b.map_body),
    ("HashMap '>' runs", "new HashMap<" + ">() {" * 799, lambda t: re.search(b.MAP_PATTERN, t, re.DOTALL), b.map_body),
    ("empty-HashMap heads", "new HashMap<" * 333, lambda t: re.search(b.EMPTY_MAP_PATTERN, t), b.empty_map),
    ("Arrays.asList heads", "new ArrayList<>(Arrays.asList(" * 133, lambda t: re.search(b.AS_LIST_PATTERN, t), lambda t: b.first_closed(t, b._AS_LIST_HEAD, "))", 1)),
    ("new T[]{ heads", "new int[] {" * 363, lambda t: re.search(b.ARRAY_PATTERN, t), lambda t: b.first_closed(t, b._ARRAY_HEAD, "}", 0)),
    ("add( heads", "add(" * 1000, lambda t: re.findall(b.ADD_PATTERN, t), b.find_adds),
    ("JS key without ':'", "a" * 4000, lambda t: re.findall(b.JS_PAIR_PATTERN, t), b.find_pairs),
]  # fmt: skip


def main() -> None:
    print(f"{'literal (4,000 chars)':24} {'checker':>10} {'pathjudge':>10} {'ratio':>8}")
    for name, text, checker, scan in CASES:
        base, ours = median_cpu(
            [functools.partial(checker, text), functools.partial(scan, text)], repeat=5
        )
        print(f"{name:24} {base * 1e3:8.2f}ms {ours * 1e3:8.3f}ms {base / max(ours, 1e-9):7.0f}x")


if __name__ == "__main__":
    main()
