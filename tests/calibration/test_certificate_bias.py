"""``calibrate --certify FILE --bias BIAS.json``: the bias battery of the certified judge goes into
the certificate, checked against the judge and the labels; a failed must-pass probe writes no
certificate (exit 1); without --bias the certificate and every certified label say ``bias not run``.

The fake Anthropic server and the scripted, always-right judge are those of ``test_certificate``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathjudge.calibration.certificate import read_certificate
from pathjudge.cli import main
from tests.calibration.test_certificate import (
    _decide,
    calibrate,
    certify,
    items,
    judge,
    labels,
    server,
)
from tests.fakes.anthropic_server import (
    FakeAnthropic,
    RecordedRequest,
    fake_anthropic,
    forced_tool_policy,
)

__all__ = ["fake_anthropic", "items", "labels", "server"]

PROBES = "length,sycophancy,distraction"


def run_bias(labels: Path, server: FakeAnthropic, cache: Path, *options: str) -> Path:
    """``pathjudge bias --json`` on ``labels``; the battery's report file."""
    out = cache.parent / "bias.json"
    argv = ["bias", "--labels", str(labels), "--criterion", "answer-correct", "--probes", PROBES]
    argv += ["--base-url", server.url, "--cache", str(cache), "--json", str(out), *options]
    main(argv)
    return out


def _length_biased(request: RecordedRequest) -> dict[str, Any]:
    """Right on the plain answers; any padded (longer) answer passes."""
    user = request.json["messages"][0]["content"]
    answer = user.split('name="answer">', 1)[1].split("</pathjudge_data>", 1)[0]
    if len(answer) > 40:
        return {"reasoning": "long", "evidence": [], "verdict": "pass"}
    return _decide(request)


def test_certify_with_bias_copies_the_battery_into_the_certificate(
    labels: Path,
    items: Path,
    server: FakeAnthropic,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    battery = run_bias(labels, server, tmp_path / "cache.sqlite")
    probes = {p["probe"]: p for p in json.loads(battery.read_text())["probes"]}
    cert = certify(labels, server, tmp_path, "--bias", str(battery))
    bias = read_certificate(cert).bias
    assert bias is not None
    assert bias.passed is True
    assert bias.tolerance == 0.05
    assert [p.probe for p in bias.probes] == ["length", "sycophancy", "distraction"]
    length = bias.probes[0]
    assert (length.status, length.must_pass) == (probes["length"]["status"], True)
    assert length.beyond_placebo == probes["length"]["beyond_placebo"]["value"] == 0.0
    assert (length.lower, length.upper) == (
        probes["length"]["beyond_placebo"]["lower"],
        probes["length"]["beyond_placebo"]["upper"],
    )
    assert length.n_items == 30
    capsys.readouterr()
    assert judge(items, server, tmp_path, "--certificate", str(cert)) == 0
    assert "; bias passed)" in capsys.readouterr().out


def test_certify_without_bias_says_bias_not_run_everywhere(
    labels: Path,
    items: Path,
    server: FakeAnthropic,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cert = certify(labels, server, tmp_path)
    assert "bias: not run (add --bias BIAS.json)" in capsys.readouterr().err
    assert read_certificate(cert).bias is None
    assert json.loads(cert.read_text())["bias"] is None
    report = tmp_path / "run.json"
    assert judge(items, server, tmp_path, "--certificate", str(cert), "--json", str(report)) == 0
    assert "; bias not run)" in capsys.readouterr().out
    certification = json.loads(report.read_text())["certification"]
    assert (certification["status"], certification["bias"]) == ("certified", "not run")


def test_a_bias_battery_of_another_judge_is_refused_before_judging(
    labels: Path, server: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    battery = run_bias(labels, server, tmp_path / "b" / "cache.sqlite", "--model", "claude-x")
    calls = server.count("POST", "/v1/messages")
    capsys.readouterr()
    cert = tmp_path / "c.json"
    options = ["--split", "test", "--certify", str(cert), "--bias", str(battery)]
    assert calibrate(labels, server, tmp_path, *options) == 2
    err = capsys.readouterr().err
    assert "the bias battery was run on another judge or other labels: model changed from " in err
    assert "'claude-x' to 'claude-opus-4-8'" in err
    assert "Traceback" not in err
    assert not cert.exists()
    assert server.count("POST", "/v1/messages") == calls


def test_a_bias_battery_on_other_labels_is_refused(
    labels: Path, server: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fewer = tmp_path / "fewer.jsonl"
    fewer.write_text("".join(labels.read_text().splitlines(keepends=True)[:-1]))
    battery = run_bias(fewer, server, tmp_path / "b" / "cache.sqlite")
    capsys.readouterr()
    cert = tmp_path / "c.json"
    options = ["--split", "test", "--certify", str(cert), "--bias", str(battery)]
    assert calibrate(labels, server, tmp_path, *options) == 2
    assert "labels differ (the battery ran on sha256:" in capsys.readouterr().err
    assert not cert.exists()


def test_a_failed_must_pass_probe_writes_no_certificate(
    labels: Path, server: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.policy = forced_tool_policy(_length_biased)
    battery = run_bias(labels, server, tmp_path / "b" / "cache.sqlite")
    assert json.loads(battery.read_text())["passed"] is False
    server.policy = forced_tool_policy(_decide)
    capsys.readouterr()
    cert = tmp_path / "c.json"
    options = ["--split", "test", "--certify", str(cert), "--bias", str(battery)]
    assert calibrate(labels, server, tmp_path, *options) == 1
    err = capsys.readouterr().err
    assert f"no certificate written to {cert}: the bias battery failed (length: fail +0." in err
    assert not cert.exists()


def test_bias_goes_with_certify(
    labels: Path, server: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    battery = tmp_path / "bias.json"
    battery.write_text("{}")
    assert calibrate(labels, server, tmp_path, "--split", "test", "--bias", str(battery)) == 2
    assert "--bias goes with --certify" in capsys.readouterr().err


def test_the_certificate_may_not_overwrite_the_bias_battery(
    labels: Path, server: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    battery = run_bias(labels, server, tmp_path / "cache.sqlite")
    before = battery.read_text()
    options = ["--split", "test", "--certify", str(battery), "--bias", str(battery)]
    assert calibrate(labels, server, tmp_path, *options) == 2
    assert "--bias" in capsys.readouterr().err
    assert battery.read_text() == before
