"""Hostile files for the shared plumbing (``pathjudge._io``) and ``score``'s line reader: a byte-order
mark, over-long and over-deep lines, numbers JSON cannot carry, and atomic writes that keep the
replaced file's mode and links."""

from __future__ import annotations

import json
import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from pathjudge._io import (
    iter_jsonl,
    json_value,
    open_input,
    read_input,
    write_jsonl,
    write_text_atomic,
)
from pathjudge.agent.io import read_runs
from pathjudge.agent.trajectory import RunRecord
from pathjudge.errors import RecordError
from pathjudge.rubrics.suite import parse_suite_text
from pathjudge.scoring.chunk import MAX_LINE_BYTES, grade_chunk, iter_lines

RUN = {"run_id": "r1", "task_id": "t", "steps": [{"tool": "search"}], "final_answer": "ok"}
SUITE = "name: s\ntasks:\n  - id: t\n    success: {kind: contains_all, values: [ok]}\n"


def _line(**changes: object) -> str:
    return json.dumps({**RUN, **changes})


def test_a_byte_order_mark_at_the_start_is_skipped_by_every_reader(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + (_line() + "\n" + _line(run_id="r2") + "\n").encode())
    assert [r.run_id for r in read_runs(path)] == ["r1", "r2"]
    assert [r.run_id for r in iter_jsonl(path, RunRecord)] == ["r1", "r2"]
    partial = grade_chunk(iter_lines(path), parse_suite_text(SUITE), fast=True)
    assert partial.first_error() is None
    assert partial.runs == 2
    # as text lines too, and a BOM alone on the first line is a blank line
    text = grade_chunk([("x", 1, "\ufeff" + _line())], parse_suite_text(SUITE), fast=True)
    assert text.runs == 1
    blank = grade_chunk([("x", 1, b"\xef\xbb\xbf\n"), ("x", 2, _line())], parse_suite_text(SUITE))
    assert blank.first_error() is None


def test_a_byte_order_mark_later_in_the_file_is_still_an_error(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes((_line() + "\n").encode() + b"\xef\xbb\xbf" + _line(run_id="r2").encode())
    with pytest.raises(RecordError) as caught:
        list(read_runs(path))
    assert caught.value.line == 2


def test_an_over_long_line_names_the_one_limit_truthfully(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    big = "x" * (MAX_LINE_BYTES + 10)
    path.write_text(_line(final_answer=big) + "\n" + _line(run_id="r2") + "\n")
    partial = grade_chunk(iter_lines(path), parse_suite_text(SUITE), fast=True)
    error = partial.first_error()
    assert error is not None
    assert error.line == 1
    limit = f"{MAX_LINE_BYTES / 1e6:.1f} MB"
    # the reader cut the line: it must not claim the line is exactly the limit long
    assert f"line is {limit}" not in str(error)
    assert f"over the limit of {limit}" in str(error)
    assert partial.runs == 1  # the next line is read
    with pytest.raises(RecordError, match=f"over the limit of {limit}"):
        list(read_runs(path))  # the same limit for every reader


def test_a_line_under_the_limit_is_read_by_every_reader(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text(_line(final_answer="ok " + "x" * (40 * 1024 * 1024)) + "\n")
    assert len(list(read_runs(path))) == 1
    assert grade_chunk(iter_lines(path), parse_suite_text(SUITE), fast=True).runs == 1


def test_a_value_nested_too_deeply_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    deep = "[" * 10_000 + "]" * 10_000
    path.write_text(
        _line().replace('"final_answer"', f'"metadata": {{"x": {deep}}}, "final_answer"')
    )
    with pytest.raises(RecordError) as caught:
        list(read_runs(path))
    assert caught.value.line == 1
    assert "nested too deeply" in str(caught.value)
    assert "truncated" not in str(caught.value)
    partial = grade_chunk(iter_lines(path), parse_suite_text(SUITE), fast=True)
    assert "nested too deeply" in str(partial.first_error())


def test_the_writer_never_writes_a_number_its_readers_refuse(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_text("OLD\n")
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="JSON cannot carry"):
            write_jsonl(path, [{"a": 1}, {"score": bad}])
        assert path.read_text() == "OLD\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


def test_an_atomic_write_keeps_the_mode_of_the_file_it_replaces(tmp_path: Path) -> None:
    path = tmp_path / "private.json"
    path.write_text("old")
    path.chmod(0o600)
    write_text_atomic(path, "new")
    assert path.read_text() == "new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    fresh = tmp_path / "fresh.json"
    write_text_atomic(fresh, "x")
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask


def test_an_atomic_write_through_a_symlink_replaces_its_target(tmp_path: Path) -> None:
    real = tmp_path / "shared" / "report.md"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "report.md"
    link.symlink_to(real)
    write_text_atomic(link, "new")
    assert link.is_symlink()
    assert real.read_text() == "new"
    assert sorted(p.name for p in real.parent.iterdir()) == ["report.md"]


def test_a_json_error_points_inside_the_named_line_not_at_a_line_of_its_own(tmp_path: Path) -> None:
    """The parser counts lines inside one record: the error names the file's line, then the column
    (never "line 1 column 12" or "line 2 column 0" on file line 2)."""
    path = tmp_path / "runs.jsonl"
    path.write_text(_line() + '\n{"run_id": x}\n')
    with pytest.raises(RecordError) as caught:
        list(read_runs(path))
    assert caught.value.line == 2
    assert "at column 12" in str(caught.value)
    assert "line 1 column" not in str(caught.value)
    path.write_text(_line() + '\n{"run_id": "r2"\n')
    with pytest.raises(RecordError) as caught:
        list(read_runs(path))
    assert "at the end of the line" in str(caught.value)
    assert "line 2 column" not in str(caught.value)
    partial = grade_chunk(iter_lines(path), parse_suite_text(SUITE), fast=True)
    assert "at the end of the line" in str(partial.first_error())


def test_show_names_the_file_and_line_of_a_first_line_nested_too_deeply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``show`` first sniffs whether the file holds verdicts; that sniff must not die on a deep (or
    over-long) first line with a RecursionError the CLI can only report without file and line."""
    from pathjudge.cli import main
    from pathjudge.judge.verdicts_file import is_verdicts_file

    path = tmp_path / "runs.jsonl"
    path.write_text(
        _line().replace(
            '"final_answer"', f'"metadata": {"[" * 10_000 + "]" * 10_000}, "final_answer"'
        )
        + "\n"
    )
    assert is_verdicts_file(path) is False
    assert main(["show", str(path)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"{path}:1:" in err
    assert "nested too deeply" in err
    bom = tmp_path / "verdicts.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + b'{"item_id": "a", "verdict": "pass"}\n')
    assert is_verdicts_file(bom) is True


def _bounded(read: Callable[[], object], release: Path | None = None) -> BaseException | None:
    """What ``read()`` raised (None: it returned), failing the test when it is still reading after
    30 s (a FIFO is released by opening it for writing)."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            read()
        except BaseException as exc:  # recorded for the caller's assertions
            outcome.append(exc)
        else:
            outcome.append(None)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(30)
    if worker.is_alive():
        if release is not None:
            with open(release, "wb"):
                pass
        pytest.fail("the reader did not stop")
    return outcome[0]


@pytest.mark.parametrize("reader", ["records", "score lines"])
def test_a_device_as_a_records_file_is_refused_unread(reader: str) -> None:
    # /dev/zero is one endless line: before, every reader skipped it in chunks for ever
    read = (
        (lambda: list(iter_jsonl("/dev/zero", RunRecord)))
        if reader == "records"
        else (lambda: list(iter_lines("/dev/zero")))
    )
    error = _bounded(read)
    assert isinstance(error, RecordError), repr(error)
    assert error.file == "/dev/zero"
    assert "is a character device, not a regular file" in error.message


def test_a_fifo_is_streamed_where_a_stream_is_named_and_refused_where_a_file_is_read(
    tmp_path: Path,
) -> None:
    fifo = tmp_path / "runs.jsonl"
    os.mkfifo(fifo)
    error = _bounded(lambda: read_input(fifo), release=fifo)  # a file read whole: never waits
    assert isinstance(error, RecordError)
    assert "FIFO" in error.message
    got: list[str] = []
    worker = threading.Thread(target=lambda: got.extend(r.run_id for r in read_runs(fifo)))
    worker.start()
    with open(fifo, "w") as writer:  # the runs reader streams a pipe the user named on purpose
        writer.write(_line() + "\n")
    worker.join(30)
    assert got == ["r1"]


def test_a_path_from_a_data_file_stays_in_its_folder_and_holds_no_nul(tmp_path: Path) -> None:
    inside = tmp_path / "folder"
    inside.mkdir()
    (tmp_path / "secret.jsonl").write_text(_line() + "\n")
    (inside / "link.jsonl").symlink_to(tmp_path / "secret.jsonl")
    with pytest.raises(RecordError, match="lies outside its folder"):
        open_input(inside / "link.jsonl", inside=inside)
    with pytest.raises(RecordError, match="lies outside its folder"):
        open_input(inside / ".." / "secret.jsonl", inside=inside)
    with pytest.raises(RecordError, match="NUL byte") as info:
        open_input(f"{inside}/a\0b.jsonl")
    assert info.value.file == f"{inside}/a\\0b.jsonl"
    big = inside / "big.json"
    big.write_bytes(b" " * 2048)
    with pytest.raises(RecordError, match="is larger than 1,024 bytes"):
        read_input(big, limit=1024)
    assert read_input(big, limit=2048) == b" " * 2048


@pytest.mark.parametrize(
    ("raw", "line", "field", "words"),
    [
        (b'{"a": {"b": [1, NaN]}}', 7, "a.b[1]", "NaN"),
        (b'{"a": -Infinity}', 7, "a", "an infinity"),
        (b'{"a": 1e999}', 7, "a", "an infinity"),
        (b'{"a": "NaN and Infinity are words here"}', None, None, None),
        (b'\n\n{"a": ' + b"[" * 5000 + b"]" * 5000 + b"}", 3, None, "nested more than 200"),
    ],
)
def test_a_json_value_names_file_line_and_field_of_what_json_cannot_carry(
    raw: bytes, line: int | None, field: str | None, words: str | None
) -> None:
    if words is None:
        assert json_value(raw, file="f.json", line=7) == json.loads(raw)
        return
    with pytest.raises(RecordError) as info:
        json_value(raw, file="f.json", line=None if line == 3 else line)
    assert (info.value.file, info.value.line, info.value.field) == ("f.json", line, field)
    assert words in info.value.message
