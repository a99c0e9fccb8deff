"""User callables for the issue-13 tests (imported by dotted name from suites)."""

from __future__ import annotations

import sys
from pathlib import Path

from pathjudge.agent.trajectory import RunRecord

MARKER = "pathjudge-callable-ran"


def touch(run: RunRecord, path: str) -> bool:
    """Leave a file behind: proof that the callable ran."""
    Path(path).write_text(MARKER, encoding="utf-8")
    return True


def exits(run: RunRecord) -> bool:
    sys.exit(3)


def interrupts(run: RunRecord) -> bool:
    raise KeyboardInterrupt


def ctrl_c(run: RunRecord) -> bool:
    """A Ctrl-C arriving while this check runs: the process receives SIGINT."""
    import signal

    signal.raise_signal(signal.SIGINT)
    return True
