"""Shared plumbing in ``pathjudge._io``: line-numbered streams, atomic writes, output-path safety."""

from __future__ import annotations

import gzip
import os
import re
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict

from pathjudge._io import (
    atomic_writer,
    ensure_not_input,
    iter_jsonl,
    line_of,
    line_problem,
    same_file,
    write_bytes_atomic,
    write_jsonl,
    write_text_atomic,
)
from pathjudge._json import suspect_number
from pathjudge.errors import InputError, RecordError


class Row(BaseModel):
    model_config = ConfigDict(extra="forbid")
    n: int


# ---------------------------------------------------------------- line numbers


def _blank_heavy(path: Path) -> Path:
    # line 1 blank, 2 → n=1, 3 blank, 4 whitespace only, 5 → n=2, 6 → n=3
    path.write_text('\n{"n": 1}\n\n   \n{"n": 2}\n{"n": 3}\n', encoding="utf-8")
    return path


def test_stream_knows_the_line_of_each_record(tmp_path: Path) -> None:
    stream = iter_jsonl(_blank_heavy(tmp_path / "rows.jsonl"), Row)
    assert stream.line == 0
    seen = [(record.n, stream.line) for record in stream]
    assert seen == [(1, 2), (2, 5), (3, 6)]


def test_numbered_yields_line_record_pairs(tmp_path: Path) -> None:
    pairs = list(iter_jsonl(_blank_heavy(tmp_path / "rows.jsonl"), Row).numbered())
    assert [(line, row.n) for line, row in pairs] == [(2, 1), (5, 2), (6, 3)]


def test_numbered_gzip_with_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl.gz"
    path.write_bytes(gzip.compress(b'\n\n{"n": 7}\n'))
    assert [(line, row.n) for line, row in iter_jsonl(path, Row).numbered()] == [(3, 7)]


def test_bad_line_after_blanks_names_the_real_line(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"n": 1}\n\n\n{"n": "x"}\n', encoding="utf-8")
    with pytest.raises(RecordError) as info:
        list(iter_jsonl(path, Row))
    assert info.value.line == 4
    assert info.value.field == "n"


def test_opening_is_lazy_like_a_generator(tmp_path: Path) -> None:
    stream = iter_jsonl(tmp_path / "missing.jsonl", Row)  # nothing raised yet
    with pytest.raises(RecordError, match="file not found"):
        next(stream)


def test_line_of_other_iterables_is_none(tmp_path: Path) -> None:
    assert line_of([Row(n=1)]) is None
    stream = iter_jsonl(_blank_heavy(tmp_path / "rows.jsonl"), Row)
    assert line_of(stream) is None  # nothing read yet
    next(stream)
    assert line_of(stream) == 2


def test_unknown_task_error_names_the_runs_line(tmp_path: Path) -> None:
    """grade and the judge-request builder name the line of a run whose task the suite lacks."""
    from pathjudge.agent.io import read_runs
    from pathjudge.agent.trajectory import RunRecord
    from pathjudge.errors import SuiteError
    from pathjudge.rubrics.suite import Suite
    from pathjudge.scoring.grade import grade
    from pathjudge.scoring.judged import iter_judge_requests

    suite = Suite.model_validate({"name": "s", "tasks": [{"id": "known", "input": "p"}]})
    good = RunRecord(run_id="r1", task_id="known", final_answer="ok")
    bad = RunRecord(run_id="r2", task_id="nope", final_answer="ok")
    runs = tmp_path / "runs.jsonl"
    runs.write_text(
        "\n" + good.model_dump_json() + "\n\n\n" + bad.model_dump_json() + "\n", encoding="utf-8"
    )
    for consume in (
        lambda: list(grade(read_runs(runs), suite)),
        lambda: list(iter_judge_requests(read_runs(runs), suite)),
    ):
        with pytest.raises(SuiteError) as info:
            consume()
        assert info.value.line == 5
        assert Path(str(info.value.file)) == runs


# ---------------------------------------------------------------- atomic writes


def test_atomic_writer_replaces_only_on_success(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old", encoding="utf-8")

    def interrupted() -> None:
        with atomic_writer(target) as handle:
            handle.write(b"half")
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        interrupted()
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]  # temp file removed
    with atomic_writer(target) as handle:
        handle.write(b"new")
    assert target.read_text(encoding="utf-8") == "new"


def test_atomic_writes_create_folders_and_follow_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        path = write_text_atomic(tmp_path / "a" / "b" / "r.md", "é\n")
    finally:
        os.umask(old)
    assert path.read_bytes() == "é\n".encode()
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert write_bytes_atomic(tmp_path / "x.bin", b"\x00\x01").read_bytes() == b"\x00\x01"


def test_write_jsonl_failure_mid_stream_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "rows.jsonl"
    write_jsonl(target, [Row(n=1)])

    def rows() -> object:
        yield Row(n=2)
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        write_jsonl(target, rows())  # type: ignore[arg-type]
    assert [r.n for r in iter_jsonl(target, Row)] == [1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rows.jsonl"]


# ---------------------------------------------------------------- output-path safety


def test_same_file_sees_through_spellings_and_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text("{}\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    link = tmp_path / "link.jsonl"
    link.symlink_to(runs)
    hard = tmp_path / "hard.jsonl"
    os.link(runs, hard)
    monkeypatch.chdir(tmp_path)
    assert same_file(runs, Path("runs.jsonl"))
    assert same_file(runs, tmp_path / "sub" / ".." / "runs.jsonl")
    assert same_file(runs, link)
    assert same_file(runs, hard)
    assert not same_file(runs, tmp_path / "other.jsonl")
    # an output that does not exist yet is compared by resolved path
    assert same_file(tmp_path / "new.json", Path("sub/../new.json"))


def test_ensure_not_input_refuses_an_input_as_output(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text('{"n": 1}\n', encoding="utf-8")
    suite = tmp_path / "suite.yaml"
    suite.write_text("name: s\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        ensure_not_input(tmp_path / "." / "runs.jsonl", [suite, None, runs], option="--json")
    message = str(info.value)
    assert "--json" in message
    assert "also an input" in message
    assert info.value.hint == "choose a different path for --json"
    assert runs.read_text(encoding="utf-8") == '{"n": 1}\n'
    ensure_not_input(tmp_path / "report.json", [suite, runs], option="--json")  # fine
    ensure_not_input(None, [runs])  # no output: nothing to check


def test_read_utf8_names_file_line_column_and_byte_with_the_callers_error(tmp_path: Path) -> None:
    from pathjudge._io import read_utf8
    from pathjudge.errors import ConfigError

    words = {"not_found": "x not found", "directory": "is a folder", "unreadable": "unreadable"}
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\nab\xffc\n")
    with pytest.raises(ConfigError) as caught:
        read_utf8(bad, error=ConfigError, **words)
    assert caught.value.message == "not valid UTF-8 (byte 0xff at column 3)"
    assert caught.value.line == 2
    with pytest.raises(ConfigError, match="x not found"):
        read_utf8(tmp_path / "missing", error=ConfigError, **words)
    with pytest.raises(ConfigError, match="is a folder"):
        read_utf8(tmp_path, error=ConfigError, **words)
    packed = tmp_path / "t.gz"
    packed.write_bytes(gzip.compress("héllo".encode()))
    assert read_utf8(packed, error=ConfigError, gunzip=True, **words) == "héllo"
    packed.write_bytes(b"not gzip")
    with pytest.raises(ConfigError, match="not a gzip file"):
        read_utf8(packed, error=ConfigError, gunzip=True, **words)


# The byte screen for non-finite numbers is a fast path of a regular expression: pinned to it.
_PLAIN_SCREEN = re.compile(rb"NaN|Infinity|\d[eE][-+]?\d{3}|\d{200}")


@given(
    st.lists(
        st.sampled_from(
            [
                b"1",
                b"9",
                b"0",
                b"e",
                b"E",
                b"-",
                b"+",
                b".",
                b"NaN",
                b"Inf",
                b"inity",
                b'"',
                b"x",
                b" ",
            ]
        ),
        max_size=40,
    ),
    st.integers(min_value=0, max_value=2),
)
def test_suspect_number_screen_is_the_plain_pattern(parts: list[bytes], long_run: int) -> None:
    raw = b"".join(parts) + (b"7" * 200 if long_run == 2 else b"")
    assert suspect_number(raw) == (_PLAIN_SCREEN.search(raw) is not None)


@pytest.mark.parametrize(
    ("line", "bad"),
    [
        (b'{"a": 1e400}', True),
        (b'{"a": -1.5E+308}', False),  # finite: the screen hits, finite_problem clears it
        (b'{"a": NaN}', True),
        (b'{"a": "NaN and 1e400 in a string"}', False),
        (b'{"a": "a very eerie e400"}', False),
        # beyond 1e308 with a two-digit exponent: 211 digits before the point
        (b'{"a": 1' + b"0" * 210 + b"e99}", True),
        (b'{"a": -' + b"9" * 209 + b"E+99}", False),  # just under 1e308
        (b'{"a": ' + b"7" * 250 + b"}", False),  # a long integer a float need not hold
    ],
)
def test_line_problem_finds_only_real_non_finite_numbers(line: bytes, bad: bool) -> None:
    assert (line_problem(line, file="f.jsonl", line=3) is not None) is bad
