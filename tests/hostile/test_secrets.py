"""Issue 13 items 15–18: an API key never reaches a log, the cache, the verdicts file or the terminal,
and verdicts of one server never serve another."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import pathjudge.cli  # noqa: F401
from pathjudge._cli.app import main
from pathjudge._secrets import install_log_redaction, mask_url, redact
from tests.fakes.anthropic_server import FakeAnthropic, RecordedRequest, forced_tool_policy

REPO = Path(__file__).resolve().parents[2]
KEY = "sk-ant-api03-LEAKCHECK-0123456789abcdef"


def _items(path: Path) -> Path:
    path.write_text(
        json.dumps(
            {
                "item_id": "a",
                "inputs": {"question": "q?", "answer": "600", "reference": "600"},
            }
        )
        + "\n",
        encoding="utf-8",
    )
    return path


def _echoing_policy() -> Any:
    """The judge's reply quotes the key (a proxy echoing headers, or a prompt-injected answer); the
    first reply of each item is malformed, so instructor logs the raw body before it re-asks."""
    seen: set[str] = set()

    def make(request: RecordedRequest) -> dict[str, Any]:
        body = json.dumps(request.json)
        if body not in seen:
            seen.add(body)
            return {"reasoning": f"header x-api-key: {KEY}", "verdict": "maybe"}
        return {"reasoning": f"the key is {KEY}", "evidence": [KEY], "verdict": "pass"}

    return forced_tool_policy(make)


def test_a_key_echoed_by_the_server_reaches_no_log_file_or_cache(tmp_path: Path) -> None:
    items = _items(tmp_path / "items.jsonl")
    out = tmp_path / "verdicts.jsonl"
    cache = tmp_path / "cache.sqlite"
    with FakeAnthropic(_echoing_policy()) as server:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pathjudge",
                "judge",
                str(items),
                "--criterion",
                "answer-correct",
                "--base-url",
                server.url,
                "-o",
                str(out),
                "--cache",
                str(cache),
            ],
            capture_output=True,
            text=True,
            timeout=240,
            check=False,
            env={
                **os.environ,
                "PYTHONPATH": str(REPO / "src"),
                "ANTHROPIC_API_KEY": KEY,
                "ANTHROPIC_LOG": "debug",
            },
        )
    assert done.returncode in (0, 1), done.stderr[-2000:]
    assert KEY not in done.stdout
    assert KEY not in done.stderr
    assert "[redacted]" in done.stderr  # the debug log did print, redacted
    assert out.exists()
    assert KEY not in out.read_text(encoding="utf-8")
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("cache.sqlite*"))
    assert KEY.encode() not in stored


def test_sdk_child_loggers_are_redacted_whatever_handles_them() -> None:
    install_log_redaction()
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(self.format(record))

    handler = Keep()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        for name in ("anthropic._base_client", "instructor.retry", "httpx", "httpx2._client"):
            logging.getLogger(name).warning("Request: %s", {"headers": {"x-api-key": KEY}})
        logging.getLogger("instructor").error(
            "bad reply from http://user:%s@proxy/v1", "hunter2secret"
        )
    finally:
        root.removeHandler(handler)
    assert len(records) == 5
    assert all(KEY not in r for r in records)
    assert "hunter2secret" not in records[-1]


def test_redact_masks_keys_bearer_tokens_and_url_userinfo() -> None:
    text = f"auth Bearer abcdefghijklmnop123 key {KEY} url https://me:pw12345@h.example/v1"
    cleaned = redact(text)
    assert KEY not in cleaned
    assert "abcdefghijklmnop123" not in cleaned
    assert "pw12345" not in cleaned
    assert mask_url("https://me:pw@h.example:8443/v1") == "https://***@h.example:8443/v1"
    assert mask_url("https://h.example/v1") == "https://h.example/v1"


def test_config_masks_url_userinfo_and_key_shaped_values(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATHJUDGE_JUDGE_BASE_URL", f"http://user:{KEY}@proxy.example:8080/v1")
    monkeypatch.setenv("PATHJUDGE_JUDGE_MODEL", KEY)
    assert main(["config"]) == 0
    assert main(["config", "--json", "-"]) == 0
    out = capsys.readouterr().out
    assert KEY not in out
    assert "proxy.example:8080" in out


def test_the_verdict_cache_key_includes_the_base_url(tmp_path: Path) -> None:
    items = _items(tmp_path / "items.jsonl")
    cache = tmp_path / "cache.sqlite"
    policy = forced_tool_policy(
        lambda _r: {"reasoning": "matches", "evidence": [], "verdict": "pass"}
    )
    env_key = os.environ.get("ANTHROPIC_API_KEY")
    os.environ["ANTHROPIC_API_KEY"] = KEY
    try:
        with FakeAnthropic(policy) as first, FakeAnthropic(policy) as second:
            for server in (first, first, second):
                argv = [
                    "judge",
                    str(items),
                    "--criterion",
                    "answer-correct",
                    "--base-url",
                    server.url,
                    "-o",
                    str(tmp_path / "v.jsonl"),
                    "--cache",
                    str(cache),
                ]
                assert main(argv) == 0
            assert first.count("POST", "/v1/messages") == 1  # the rerun was served from the cache
            assert second.count("POST", "/v1/messages") == 1  # another server: judged afresh
    finally:
        if env_key is None:
            os.environ.pop("ANTHROPIC_API_KEY", None)
        else:
            os.environ["ANTHROPIC_API_KEY"] = env_key
