"""``pathjudge score --certificate``: every judged rate is labelled certified or uncertified, in the
terminal, the JSON, the Markdown, the HTML and the JUnit XML; ``--require-certified`` exits 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathjudge.calibration.agreement import GateResult, Gates
from pathjudge.calibration.certificate import issue_certificate, write_certificate
from pathjudge.cli import main
from pathjudge.judge.identity import judge_identity
from pathjudge.judge.session import JudgeSession
from pathjudge.report.text import md_cell
from pathjudge.rubrics.criteria import get_criterion
from tests.fakes.anthropic_server import FakeAnthropic, fake_anthropic, forced_tool_policy
from tests.scoring.test_score_integration import docent, hermetic

__all__ = ["docent", "fake_anthropic", "hermetic"]

CRITERION = "summary-covers-points"


@pytest.fixture(autouse=True)
def with_key(hermetic: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hermetic folder of the score integration tests, with a (fake) API key."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy")


@pytest.fixture
def server(fake_anthropic: FakeAnthropic) -> FakeAnthropic:
    fake_anthropic.policy = forced_tool_policy(
        lambda _r: {"reasoning": "covered", "evidence": [], "verdict": "pass"}
    )
    return fake_anthropic


def certificate(tmp_path: Path, *, samples: int = 1) -> Path:
    identity = judge_identity(get_criterion(CRITERION), JudgeSession.resolve(samples=samples))
    gate = GateResult(name="TPR", threshold=0.8, bound=0.85, passed=True, reason="TPR ok")
    cert = issue_certificate(
        judge=identity, labels_hash="sha256:l", split_hashes={"test": "sha256:t"},
        evaluated_split="test", n_evaluated=40, test_reused=False, confidence=0.95,
        gates=Gates(), gate_results=(gate,),
    )  # fmt: skip
    return write_certificate(tmp_path / "cert.json", cert)


def score(docent: Path, tmp_path: Path, server: FakeAnthropic, *options: str) -> int:
    argv = ["score", str(docent / "runs.jsonl"), "--suite", str(docent / "suite.yaml")]
    argv += ["--judge-base-url", server.url, "--cache", str(tmp_path / "c.sqlite"), *options]
    return main(argv)


def _outputs(tmp_path: Path) -> list[str]:
    return ["--json", str(tmp_path / "r.json"), "--markdown", str(tmp_path / "r.md"),
            "--html", str(tmp_path / "r.html"), "--junit", str(tmp_path / "r.xml")]  # fmt: skip


def _read(tmp_path: Path) -> tuple[dict[str, Any], str, str, str]:
    return (
        json.loads((tmp_path / "r.json").read_text()),
        (tmp_path / "r.md").read_text(),
        (tmp_path / "r.html").read_text(),
        (tmp_path / "r.xml").read_text(),
    )


def test_a_certified_judge_labels_its_rate_certified_in_every_report(
    docent: Path, tmp_path: Path, server: FakeAnthropic, capsys: pytest.CaptureFixture[str]
) -> None:
    cert = certificate(tmp_path)
    code = score(
        docent,
        tmp_path,
        server,
        "--certificate",
        str(cert),
        "--require-certified",
        *_outputs(tmp_path),
    )
    assert code == 0
    out = capsys.readouterr().out
    assert f"{CRITERION}: certified (" in out
    assert "TPR >= 0.85" in out
    report, markdown, html, junit = _read(tmp_path)
    (certification,) = report["certifications"]
    assert (certification["criterion"], certification["status"]) == (CRITERION, "certified")
    assert certification["bounds"] == {"TPR": 0.85}
    assert md_cell("certified (") in markdown
    assert md_cell("TPR >= 0.85") in markdown
    assert 'class="detail certification">certified (' in html
    assert f'<property name="judged:{CRITERION}" value="pass rate 1.000; certified (' in junit


def test_without_a_certificate_every_report_says_uncertified(
    docent: Path, tmp_path: Path, server: FakeAnthropic, capsys: pytest.CaptureFixture[str]
) -> None:
    assert score(docent, tmp_path, server, *_outputs(tmp_path)) == 0
    assert f"{CRITERION}: uncertified (no certificate)" in capsys.readouterr().out
    report, markdown, html, junit = _read(tmp_path)
    assert report["certifications"][0]["status"] == "uncertified"
    assert md_cell("uncertified (no certificate)") in markdown
    assert "uncertified (no certificate)" in html
    assert "uncertified (no certificate)" in junit


def test_require_certified_exits_2_before_judging_a_void_judge(
    docent: Path, tmp_path: Path, server: FakeAnthropic, capsys: pytest.CaptureFixture[str]
) -> None:
    cert = certificate(tmp_path, samples=3)
    assert score(docent, tmp_path, server, "--certificate", str(cert), "--require-certified") == 2
    assert "void: sample count changed from 3 to 1" in capsys.readouterr().err
    assert server.count("POST", "/v1/messages") == 0


def test_recorded_verdicts_are_never_certified(
    docent: Path, tmp_path: Path, server: FakeAnthropic, capsys: pytest.CaptureFixture[str]
) -> None:
    cert = certificate(tmp_path)
    verdicts = tmp_path / "v.jsonl"
    verdicts.write_text(
        json.dumps(
            {
                "item_id": f"summary-rate-limiting-e0:{CRITERION}",
                "verdict": "pass",
                "reasoning": "ok",
            }
        )
        + "\n"
    )
    options = ["--verdicts", str(verdicts), "--certificate", str(cert), "--require-certified"]
    assert score(docent, tmp_path, server, *options, "--json", str(tmp_path / "r.json")) == 2
    assert "recorded verdicts" in capsys.readouterr().err
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["certifications"][0]["status"] == "uncertified"


@pytest.mark.parametrize(
    ("options", "why"),
    [
        (("--fast",), "not judged (--fast)"),
        ((), "not judged (no judge configured: set ANTHROPIC_API_KEY"),
    ],
    ids=["fast", "no-judge"],
)
def test_a_rate_no_judge_ran_for_says_why_not_uncertified(
    docent: Path,
    tmp_path: Path,
    server: FakeAnthropic,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    options: tuple[str, ...],
    why: str,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    cert = certificate(tmp_path)
    argv = [*options, "--certificate", str(cert), "--json", str(tmp_path / "r.json")]
    assert score(docent, tmp_path, server, *argv, "--junit", str(tmp_path / "r.xml")) == 0
    assert f"{CRITERION}: {why}" in capsys.readouterr().out
    (certification,) = json.loads((tmp_path / "r.json").read_text())["certifications"]
    assert certification["status"] == "not judged"
    assert f"{certification['status']} ({certification['reason']})".startswith(why)
    junit = (tmp_path / "r.xml").read_text()
    assert f'<property name="judged:{CRITERION}" value="pass rate undefined; {why}' in junit
    assert "uncertified" not in junit
    assert server.count("POST", "/v1/messages") == 0


def test_require_certified_refuses_a_rate_no_judge_ran_for(
    docent: Path, tmp_path: Path, server: FakeAnthropic, capsys: pytest.CaptureFixture[str]
) -> None:
    cert = certificate(tmp_path)
    assert score(docent, tmp_path, server, "--fast", "--certificate", str(cert),
                 "--require-certified") == 2  # fmt: skip
    assert f"criterion {CRITERION!r} is not judged (--fast)" in capsys.readouterr().err
