"""``pathjudge judge`` exits 1 when an item ended in a judge failure, and counts retries right."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathjudge.cli import main
from pathjudge.rubrics.criteria import BUILTIN_CRITERIA
from tests.fakes.anthropic_server import FakeAnthropic, RecordedRequest, message, tool_use
from tests.judge.conftest import judge_argv, write_short_items


def _invalid_for_a1(request: RecordedRequest) -> dict[str, object]:
    user = request.json["messages"][0]["content"]
    answer = user.split('name="answer">', 1)[1].split("</pathjudge_data>", 1)[0]
    verdict = "maybe" if answer.strip() == "a1" else "pass"
    return message([tool_use("Verdict", {"reasoning": "r", "evidence": [], "verdict": verdict})])


def test_a_judge_failure_exits_one_with_the_summary_and_the_right_retry_count(
    server: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.policy = _invalid_for_a1  # item i1 never validates: 1 call + 2 re-asks, then a failure
    items = write_short_items(tmp_path / "items.jsonl", 3)
    out = tmp_path / "v.jsonl"
    code = main(
        judge_argv(items, server.url, "--cache", str(tmp_path / "c.sqlite"), "-o", str(out))
    )
    captured = capsys.readouterr()
    assert code == 1
    assert "1 of 3 items ended in a judge failure" in captured.err
    assert "judge failures 1" in captured.out
    # the failure says "after 3 attempt(s)"; the summary counts the 2 re-asks as retries
    assert "after 3 attempt(s)" in captured.err
    assert "2 retries" in captured.out
    assert server.count("POST", "/v1/messages") == 5  # 2 items x 1 call + 1 item x 3 calls
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["verdict"] for row in lines] == ["pass", "error", "pass"]


def test_every_item_failing_is_not_green(
    server: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.policy = lambda _r: message([tool_use("Verdict", {"verdict": "maybe"})])
    items = write_short_items(tmp_path / "items.jsonl", 2)
    code = main(
        judge_argv(
            items, server.url, "--cache", str(tmp_path / "c.sqlite"), "-o", str(tmp_path / "v")
        )
    )
    assert code == 1
    assert "2 of 2 items ended in a judge failure" in capsys.readouterr().err


def test_help_lists_the_built_in_criteria(capsys: pytest.CaptureFixture[str]) -> None:
    from pathjudge._cli.options import BUILTINS

    assert BUILTINS.split(", ") == list(BUILTIN_CRITERIA)
    for command in (["judge", "--help"], ["calibrate", "--help"]):
        assert main(command) == 0
        text = " ".join(capsys.readouterr().out.split())
        for name in BUILTIN_CRITERIA:
            assert name in text.replace("- ", "-"), (command, name)


@pytest.mark.parametrize("content", [None, "this is not a certificate\n"])
def test_unusable_trusted_certificates_are_one_line_and_exit_two(
    server: FakeAnthropic,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    content: str | None,
) -> None:
    bundle = tmp_path / "roots.pem"
    if content is not None:
        bundle.write_text(content)
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))  # missing, or no certificate in it
    items = write_short_items(tmp_path / "items.jsonl", 2)
    out = tmp_path / "v.jsonl"
    code = main(
        judge_argv(items, server.url, "--cache", str(tmp_path / "c.sqlite"), "-o", str(out))
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "SSL_CERT_FILE" in err
    assert str(bundle) in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) <= 2  # the message and its hint
    assert server.count("POST", "/v1/messages") == 0
    assert not out.exists()
