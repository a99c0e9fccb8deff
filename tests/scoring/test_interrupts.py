"""A Ctrl-C stops the grading; a ``KeyboardInterrupt`` a check raises is that check's error.

Both arrive as ``KeyboardInterrupt``, nearly always inside a guarded check. While grading, a SIGINT
sets a flag (``pathjudge._interrupt``), so the guards let a real Ctrl-C through and keep turning an
interrupt raised by a user callable into an ``error`` result.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path

import pytest

from pathjudge._interrupt import stops_grading, watching_interrupts
from pathjudge.agent.trajectory import RunRecord
from pathjudge.rubrics.suite import parse_suite_text
from pathjudge.scoring.chunk import grade_chunk, grade_records_chunk
from pathjudge.scoring.grade import grade
from tests.hostile.test_inputs import _cli

ROOT = Path(__file__).resolve().parents[2]
RUN = {"run_id": "r", "task_id": "t1", "epoch": 0, "final_answer": "ok"}


def _suite(function: str) -> str:
    return (
        "name: interrupts\ntasks:\n  - id: t1\n"
        f'    success: {{kind: callable, function: "tests.hostile._callables:{function}"}}\n'
    )


def _runs(n: int) -> list[RunRecord]:
    return [RunRecord(**{**RUN, "epoch": i}) for i in range(n)]


def test_a_ctrl_c_inside_a_check_stops_grade() -> None:
    suite = parse_suite_text(_suite("ctrl_c"), allow_callables=True)
    with pytest.raises(KeyboardInterrupt):
        list(grade(_runs(3), suite))
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handler is restored


def test_a_ctrl_c_inside_a_check_stops_a_chunk() -> None:
    suite = parse_suite_text(_suite("ctrl_c"), allow_callables=True)
    records = (("runs.jsonl", i + 1, run) for i, run in enumerate(_runs(3)))
    with pytest.raises(KeyboardInterrupt):
        grade_records_chunk(records, suite)
    lines = [("runs.jsonl", 1, json.dumps(RUN).encode())]
    with pytest.raises(KeyboardInterrupt):
        grade_chunk(lines, suite)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_interrupt_a_callable_raises_is_its_error_and_grading_goes_on() -> None:
    suite = parse_suite_text(_suite("interrupts"), allow_callables=True)
    grades = list(grade(_runs(2), suite))
    assert len(grades) == 2
    for graded in grades:
        (check,) = [c for c in graded.checks if c.check == "outcome.callable"]
        assert check.status == "error"
        assert "KeyboardInterrupt" in check.reason
        assert graded.success == "undecided"


def test_in_another_thread_an_interrupt_is_always_the_checks_error() -> None:
    """Signals reach the main thread only, so a KeyboardInterrupt in a worker thread was raised by code."""
    suite = parse_suite_text(_suite("interrupts"), allow_callables=True)
    found: list[object] = []
    worker = threading.Thread(target=lambda: found.extend(grade(_runs(2), suite)))
    worker.start()
    worker.join()
    assert len(found) == 2
    assert stops_grading(KeyboardInterrupt()) is True  # main thread, no watch: never swallowed


def test_the_watch_leaves_a_programs_own_handler_alone() -> None:
    seen: list[int] = []

    def own(signum: int, frame: object) -> None:
        seen.append(signum)

    previous = signal.signal(signal.SIGINT, own)
    try:
        with watching_interrupts():
            assert signal.getsignal(signal.SIGINT) is own
            # with a handler pathjudge did not install, an interrupt cannot be told apart: it stops
            assert stops_grading(KeyboardInterrupt()) is True
            assert stops_grading(SystemExit(1)) is False
        assert signal.getsignal(signal.SIGINT) is own
    finally:
        signal.signal(signal.SIGINT, previous)


def test_nested_watches_restore_the_default_handler_once() -> None:
    with watching_interrupts():
        with watching_interrupts():
            assert stops_grading(KeyboardInterrupt()) is False
        assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
        assert stops_grading(KeyboardInterrupt()) is False
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert stops_grading(KeyboardInterrupt()) is True


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_stops_the_score_command(tmp_path: Path, jobs: str) -> None:
    """``pathjudge score``: a Ctrl-C during a check ends the command (exit 130, one line, no
    traceback), with one worker or a pool of them."""
    suite = tmp_path / "suite.yaml"
    suite.write_text(_suite("ctrl_c"), encoding="utf-8")
    runs = tmp_path / "runs.jsonl"
    runs.write_text(
        "".join(json.dumps({**RUN, "epoch": i}) + "\n" for i in range(4000)), encoding="utf-8"
    )
    done = _cli(
        [
            "score",
            str(runs),
            "--suite",
            str(suite),
            "--fast",
            "--allow-callables",
            "--jobs",
            jobs,
            "--json",
            str(tmp_path / "out.json"),
        ],
        tmp_path,
        PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]),  # the callables live in tests/
    )
    assert done.returncode == 130, done.stderr
    assert "interrupted" in done.stderr
    assert "Traceback" not in done.stderr
