"""Invalid UTF-8 in a runs line: found once, by pydantic's parser where it checks, else by a decode.

:func:`~pathjudge._io.line_problem` decodes a non-ASCII line again only where the installed pydantic
parser lets invalid UTF-8 inside a string through (:func:`~pathjudge._io.parser_refuses_bad_utf8`
asks it once). These tests pin the reading path to the plain rule (the line does not decode as UTF-8:
one error naming the byte and its column) over generated lines, on the installed parser and with the
decode forced back on, and check that a parser that accepts a bad sequence turns the decode back on.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathjudge._io import (
    _BAD_UTF8,
    _utf8_probes,
    _Utf8Probe,
    line_checks,
    line_problem,
    parser_refuses_bad_utf8,
)
from pathjudge.agent.trajectory import RunRecord
from pathjudge.errors import RecordError
from pathjudge.scoring.chunk import parse_run

# a valid run line with a marker in each place a string can sit (a key, a value of each type)
_TEMPLATE = (
    '{"run_id":"rXX","task_id":"t","input":"caf\\u00e9 XX","agent":{"name":"aXX"},'
    '"steps":[{"tool":"search","decision":"long text long text XX","arguments":{"qXX":"XX"},'
    '"result":["XX",{"kXX":"v"}],"state":{"s":"XX"}}],"final_answer":"done XX",'
    '"metadata":{"source":{"note":"XX"}}}'
)
_SLOTS = _TEMPLATE.count("XX")
_PIECES = st.sampled_from([b"", b"ok", "é".encode(), "日本".encode(), b"\\n", *_BAD_UTF8])


@st.composite
def lines(draw: st.DrawFn) -> bytes:
    parts = _TEMPLATE.encode().split(b"XX")
    out = parts[0]
    for part in parts[1:]:
        out += draw(_PIECES) + part
    return out


def _plain(raw: bytes) -> str | None:
    """The plain rule: the line's bytes do not decode as UTF-8 (the message a reader gives)."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"not valid UTF-8 (byte 0x{raw[bad.start]:02x} at column {bad.start + 1})"
    return None


@pytest.fixture
def decode_always(monkeypatch: pytest.MonkeyPatch) -> None:
    """line_problem as on a parser that lets invalid UTF-8 through (it decodes every line)."""
    monkeypatch.setattr(line_checks, "parser_refuses_bad_utf8", lambda: False)


def _check(raw: bytes) -> None:
    found = parse_run("runs.jsonl", 5, raw)
    expected = _plain(raw)
    if expected is None:
        assert isinstance(found, RunRecord), found
    else:
        assert isinstance(found, RecordError), raw
        assert found.message == expected
        assert (found.line, found.hint) == (5, "re-encode the file as UTF-8")


def test_the_template_is_a_valid_run() -> None:
    assert _SLOTS >= 10
    assert isinstance(parse_run("runs.jsonl", 1, _TEMPLATE.replace("XX", "").encode()), RunRecord)


@settings(max_examples=300, deadline=None)
@given(lines())
def test_a_bad_line_gives_the_plain_rules_error(raw: bytes) -> None:
    _check(raw)


@settings(max_examples=50, deadline=None)
@given(lines())
def test_the_same_with_the_decode_forced_on(raw: bytes) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(line_checks, "parser_refuses_bad_utf8", lambda: False)
        _check(raw)


def test_line_problem_decodes_where_the_parser_does_not_check(decode_always: None) -> None:
    # a record pydantic accepted (as an older parser would) on a line that is not UTF-8
    record = RunRecord.model_validate_json(b'{"run_id":"r","task_id":"t"}')
    found = line_problem(b'{"run_id":"r\xff","task_id":"t"}', file="f", line=2, record=record)
    assert isinstance(found, RecordError)
    assert found.message == "not valid UTF-8 (byte 0xff at column 13)"


def test_each_probe_is_refused_for_its_bytes_alone() -> None:
    # with good text in place of the bad bytes every probe validates, so a refusal is the bytes'
    for good in (b"", b"ok", "é".encode()):
        for doc in _utf8_probes(good):
            _Utf8Probe.model_validate_json(doc)
    assert len(_BAD_UTF8) >= 8
    for bad in _BAD_UTF8:
        with pytest.raises(UnicodeDecodeError):
            bad.decode("utf-8")


def test_a_parser_that_accepts_a_bad_sequence_keeps_the_decode(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parser_refuses_bad_utf8.cache_clear()
    try:
        monkeypatch.setattr(
            line_checks, "_BAD_UTF8", (b"fine",)
        )  # a "bad" sequence the parser accepts
        assert parser_refuses_bad_utf8() is False
    finally:
        parser_refuses_bad_utf8.cache_clear()
    monkeypatch.undo()
    assert isinstance(parser_refuses_bad_utf8(), bool)
