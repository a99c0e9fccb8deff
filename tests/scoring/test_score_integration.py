"""``pathjudge score`` end to end: the judge (fake Anthropic server), project config, HTML/Markdown."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pathjudge.cli import main
from tests.fakes.anthropic_server import (
    FakeAnthropic,
    RecordedRequest,
    fake_anthropic,
    forced_tool_policy,
)

__all__ = ["fake_anthropic"]

ITEM = "summary-rate-limiting-e0:summary-covers-points"


@pytest.fixture(autouse=True)
def hermetic(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No credentials, no PATHJUDGE_* variables, and a working folder without a config file."""
    for name in list(os.environ):
        if name.startswith(("PATHJUDGE_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def docent(repo_root: Path) -> Path:
    return repo_root / "examples" / "docent"


def verdict_policy(verdict: str) -> Any:
    def make(_request: RecordedRequest) -> dict[str, Any]:
        return {
            "reasoning": f"judged {verdict}: both points are covered",
            "evidence": ["HTTP 429", "per API key"],
            "verdict": verdict,
        }

    return forced_tool_policy(make)


def score_json(docent: Path, out: Path, *args: str | Path) -> tuple[int, dict[str, Any]]:
    code = main(
        [
            "score",
            str(docent / "runs.jsonl"),
            "--suite",
            str(docent / "suite.yaml"),
            "--json",
            str(out),
            "--include-runs",
            "-q",
            *map(str, args),
        ]
    )
    return code, json.loads(out.read_text())


def judged_of(report: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The suite's judged summary row and the judged result of the summary run."""
    (row,) = report["scorecard"]["judged"]
    (run,) = [r for r in report["runs"] if r["task_id"] == "summary-rate-limiting"]
    (result,) = run["judged"]
    return row, result


def test_judged_criterion_gets_a_verdict_then_the_cache_answers(
    docent: Path,
    tmp_path: Path,
    fake_anthropic: FakeAnthropic,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy")
    fake_anthropic.policy = verdict_policy("pass")
    judge = ["--judge-base-url", fake_anthropic.url, "--cache", tmp_path / "cache.sqlite"]
    code, report = score_json(docent, tmp_path / "a.json", *judge)
    assert code == 0
    # one run of the suite has a judged criterion: exactly one call, with the configured default model
    assert len(fake_anthropic.requests) == 1
    body = fake_anthropic.requests[0].json
    assert body["model"] == "claude-opus-4-8"
    assert "per API key" in json.dumps(body)  # the reference points reached the judge
    row, result = judged_of(report)
    assert (row["passed"], row["failed"], row["not_run"]) == (1, 0, 0)
    assert result == {
        "criterion": "summary-covers-points",
        "item_id": ITEM,
        "status": "pass",
        "reasoning": "judged pass: both points are covered",
    }
    assert report["judge"] == "judge"  # the live judge ran (recorded verdicts would say "verdicts")

    # the rerun is answered from the cache: zero requests, same report
    code, again = score_json(docent, tmp_path / "b.json", *judge)
    assert code == 0
    assert len(fake_anthropic.requests) == 1
    assert again == report
    capsys.readouterr()

    # --fast never calls the judge
    code, fast = score_json(docent, tmp_path / "c.json", *judge, "--fast")
    assert code == 0
    assert len(fake_anthropic.requests) == 1
    row, result = judged_of(fast)
    assert (row["passed"], row["not_run"]) == (0, 1)
    assert result["reasoning"] == "fast mode"


def test_no_key_means_not_run_and_no_request(
    docent: Path,
    tmp_path: Path,
    fake_anthropic: FakeAnthropic,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake_anthropic.policy = verdict_policy("pass")
    # no key, no base URL: not run, and the command succeeds
    code = main(["score", str(docent / "runs.jsonl"), "--suite", str(docent / "suite.yaml")])
    assert code == 0
    out = capsys.readouterr().out
    assert "not run (no judge configured" in out
    assert "ANTHROPIC_API_KEY" in out
    # no key but a base URL that would answer: still not run, zero requests reach the server
    code, report = score_json(docent, tmp_path / "r.json", "--judge-base-url", fake_anthropic.url)
    assert code == 0
    assert fake_anthropic.requests == []
    row, result = judged_of(report)
    assert (row["passed"], row["failed"], row["not_run"]) == (0, 0, 1)
    assert result["status"] == "not_run"
    assert report["judge"] == "none"
    assert not (tmp_path / ".pathjudge").exists()  # no cache was even opened
    # an OpenAI-compatible judge without a base URL: not run either
    code = main(
        [
            "score",
            str(docent / "runs.jsonl"),
            "--suite",
            str(docent / "suite.yaml"),
            "--judge-backend",
            "openai",
        ]
    )
    assert code == 0
    assert "not run (no judge configured: the openai-compatible backend needs judge.base_url)" in (
        capsys.readouterr().out.replace("\n", " ")
    )


def test_judge_failures_are_counted_apart(
    docent: Path, tmp_path: Path, fake_anthropic: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy")
    # an answer that never validates as a Verdict: the backend re-asks twice, then gives up
    fake_anthropic.policy = forced_tool_policy(lambda _r: {"verdict": "maybe"})
    code, report = score_json(
        docent, tmp_path / "r.json", "--judge-base-url", fake_anthropic.url, "--cache", "c.sqlite"
    )
    assert code == 0
    assert len(fake_anthropic.requests) == 3  # 1 call + 2 re-asks
    row, result = judged_of(report)
    assert (row["passed"], row["failed"], row["error"], row["not_run"]) == (0, 0, 1, 0)
    assert row["pass_rate"] is None  # 0 decided verdicts: no rate, never a pass or a fail
    assert result["status"] == "error"
    # the answer-based success criterion still decides the task
    (task,) = [
        t for t in report["scorecard"]["task_rows"] if t["task_id"] == "summary-rate-limiting"
    ]
    assert task["success_rate"] == 1.0


def test_project_config_sets_the_judge_gates_and_weights(
    docent: Path,
    tmp_path: Path,
    fake_anthropic: FakeAnthropic,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy")
    fake_anthropic.policy = verdict_policy("fail")
    (tmp_path / "pathjudge.toml").write_text(
        "cache = 'verdicts.sqlite'\n"
        "[judge]\n"
        f"model = 'claude-sonnet-4-6'\nbase_url = '{fake_anthropic.url}'\n"
        "[fail_under]\ntrajectory = 0.99\n"
        "[weights.levels]\nsuccess = 2.0\n"
    )
    code, report = score_json(docent, tmp_path / "r.json")
    assert code == 1  # the configured trajectory gate is missed
    assert fake_anthropic.requests[0].json["model"] == "claude-sonnet-4-6"
    assert (tmp_path / "verdicts.sqlite").is_file()  # relative to the config file's folder
    assert [g["metric"] for g in report["gates"]] == ["trajectory"]
    assert report["scorecard"]["weights"] == {"success": 2.0, "tool_calls": 1.0, "trajectory": 1.0}
    row, _ = judged_of(report)
    assert (row["passed"], row["failed"]) == (0, 1)
    capsys.readouterr()
    # command-line flags win: a lower threshold, other weights, another judge model (a new cache key)
    code, report = score_json(
        docent,
        tmp_path / "r2.json",
        "--fail-under",
        "trajectory=0.5",
        "--weights",
        "success=1",
        "--judge-model",
        "claude-haiku-4-5",
    )
    assert code == 0
    assert fake_anthropic.requests[-1].json["model"] == "claude-haiku-4-5"
    assert [(g["metric"], g["threshold"]) for g in report["gates"]] == [("trajectory", 0.5)]
    assert report["scorecard"]["weights"] == {"success": 1.0}
    # the judge and the agent are the same model: the twin warning is printed
    assert "twin" in capsys.readouterr().err


def test_html_and_markdown_reports(
    docent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    html, md = tmp_path / "r.html", tmp_path / "r.md"
    code = main(
        [
            "score",
            str(docent / "runs.jsonl"),
            "--suite",
            str(docent / "suite.yaml"),
            "--html",
            str(html),
            "--markdown",
            str(md),
            "-q",
        ]
    )
    assert code == 0
    page = html.read_text()
    assert "<h2>Scorecard" in page
    assert "summary-rate-limiting" in page  # the per-task table and the trajectory viewer
    assert (
        "Summarize how Meridian handles rate limiting" in page
    )  # a run's input, from the runs file
    assert "Variance across epochs" in page  # free-storage ran two epochs
    summary = md.read_text()
    # 16 runs: 15 pass (15/16 = 0.9375), 14 on a clean reference path (14/16 = 0.875)
    assert "| Task success | 0.94 | 15 passed, 1 failed, 0 undecided |" in summary
    assert "| Trajectory quality | 0.88 |" in summary
    assert "1 not run" in summary  # the judged criterion, with no judge configured
    out = capsys.readouterr().out
    assert f"HTML report: {html}" in out
    assert f"Markdown summary: {md}" in out
