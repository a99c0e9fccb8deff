"""The API key never reaches the cache, a log, an output file or an error message."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pathjudge.cli import main
from pathjudge.errors import JudgeError
from tests.fakes.anthropic_server import FakeAnthropic, Reply, message, rate_limited, text, tool_use
from tests.judge.conftest import (
    SECRET,
    jobs_for,
    judge_argv,
    judge_run,
    verdict_input,
    write_short_items,
)


def test_key_is_sent_to_the_server_but_never_stored_or_logged(
    server: FakeAnthropic,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    # a mix of outcomes, so error paths log and record too
    server.script(
        rate_limited(0.0),
        message([text("no tool")]),
        message([text("no tool")]),
        message([text("no tool")]),
        message([tool_use("Verdict", verdict_input("fail"))]),
    )
    items = write_short_items(tmp_path / "items.jsonl", 4)
    out = tmp_path / "verdicts.jsonl"
    cache = tmp_path / "cache.sqlite"
    code = main(
        judge_argv(items, server.url, "--concurrency", "1", "--cache", str(cache), "-o", str(out))
    )
    assert code == 1  # one item ended in a judge failure (no tool use): exit 1, and no key anywhere
    # It really was used: the server saw it.
    assert any(SECRET in value for r in server.requests for value in r.headers.values())
    captured = capsys.readouterr()
    assert SECRET not in captured.out + captured.err
    assert SECRET not in caplog.text
    assert all(SECRET not in record.getMessage() for record in caplog.records)
    assert SECRET.encode() not in out.read_bytes()
    for path in tmp_path.iterdir():  # the cache DB and its WAL / shared-memory files
        assert SECRET.encode() not in path.read_bytes(), path.name


def test_key_not_in_error_messages(server: FakeAnthropic, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    server.policy = lambda _r: Reply(
        status=401,
        json={
            "type": "error",
            "error": {"type": "authentication_error", "message": "invalid x-api-key"},
        },
    )
    with pytest.raises(JudgeError) as info:
        judge_run(server, jobs_for(1))
    rendered = [str(info.value), repr(info.value), info.value.message, str(info.value.hint)]
    assert all(SECRET not in text_ for text_ in rendered)
    assert info.value.__cause__ is None
    assert info.value.__suppress_context__
    assert SECRET not in caplog.text


def test_key_not_in_failure_records(server: FakeAnthropic) -> None:
    server.policy = lambda _r: rate_limited(0.0)
    run = judge_run(server, jobs_for(1), max_attempts=2)
    assert SECRET not in run.results["item-0"].model_dump_json()


def test_a_proxy_echoing_the_key_in_a_400_never_stores_it(
    server: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A proxy behind --base-url that echoes the request's credentials in its error message: the
    # server's words are kept in the failure record (useful), the key is not.
    server.policy = lambda request: Reply(
        status=400,
        json={
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "message": f"bad request from {request.headers.get('x-api-key') or SECRET}",
            },
        },
    )
    items = write_short_items(tmp_path / "items.jsonl", 2)
    out = tmp_path / "verdicts.jsonl"
    main(judge_argv(items, server.url, "--cache", str(tmp_path / "c.sqlite"), "-o", str(out)))
    captured = capsys.readouterr()
    text_out = out.read_text()
    assert "bad request from [redacted]" in text_out  # the server's message survives, redacted
    assert SECRET not in text_out
    assert SECRET not in captured.out + captured.err
    for path in tmp_path.iterdir():
        assert SECRET.encode() not in path.read_bytes(), path.name
