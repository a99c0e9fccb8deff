"""The CLI's progress bar: drawn on stderr for a long job on a terminal, never for a short one,
never piped, and never at the cost of the work it measures."""

from __future__ import annotations

import pytest

from pathjudge.report.progress import progress, progress_bars


def test_a_short_job_prints_no_bar(capsys: pytest.CaptureFixture[str]) -> None:
    with progress("grading runs.jsonl", 10, enabled=True, delay=600) as bar:
        for _ in range(10):
            bar.advance()
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out == ""


def test_a_long_job_draws_its_final_count_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    with progress("grading runs.jsonl", 10, enabled=True, delay=0) as bar:
        for _ in range(10):
            bar.advance()
    captured = capsys.readouterr()
    assert "grading runs.jsonl" in captured.err
    assert "10/10" in captured.err
    assert captured.out == ""


def test_a_byte_total_is_shown_as_a_percentage(capsys: pytest.CaptureFixture[str]) -> None:
    with progress("grading big.jsonl", 50_000_000, enabled=True, delay=0) as bar:
        bar.advance(50_000_000)
    err = capsys.readouterr().err
    assert "100%" in err
    assert "50000000" not in err


def test_advancing_draws_nothing_itself() -> None:
    """The handle the work advances only counts: drawing is the display thread's, a few times a
    second, so a per-run ``advance`` costs an addition."""
    with progress("x", None, enabled=True, delay=600) as bar:
        bar.advance(3)
        bar.advance()
        assert type(bar).__dict__.get("advance") is not None
        assert bar.done == 4  # type: ignore[attr-defined]


def test_piped_output_gets_no_bar(capsys: pytest.CaptureFixture[str]) -> None:
    with progress_bars(delay=0)("grading runs.jsonl", 10) as bar:  # stderr is not a terminal here
        bar.advance(10)
    assert capsys.readouterr().err == ""
