"""``pathjudge align`` end to end against the fake Anthropic align_server (the scripted judges of
``test_align``), and its refusals (exit 2, no traceback, nothing written)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pathjudge.cli  # noqa: F401  (registers the commands)
from pathjudge._cli.app import main
from pathjudge.rubrics.criteria import load_criterion
from tests.calibration.align_fakes import CRITERION, DEV, MODEL, TEST, TRAIN, _judged, _labels
from tests.fakes.anthropic_server import FakeAnthropic


def _args(tmp_path: Path, align_server: FakeAnthropic, *extra: str) -> list[str]:
    criterion = tmp_path / "fact-stated.yaml"
    criterion.write_text(CRITERION, encoding="utf-8")
    return [
        "align", "--labels", str(_labels(tmp_path, TRAIN, DEV)), "--criterion", str(criterion),
        "--base-url", align_server.url, "--model", MODEL,
        "--cache", str(tmp_path / "cache.sqlite"), "-o", str(tmp_path / "aligned.yaml"),
        "--bootstrap", "50", *extra,
    ]  # fmt: skip


def test_align_writes_the_criterion_and_the_report(
    tmp_path: Path, align_server: FakeAnthropic, capsys: pytest.CaptureFixture[str]
) -> None:
    report_path = tmp_path / "align.json"
    code = main(_args(tmp_path, align_server, "--max-calls", "200", "--k", "2",
                      "--json", str(report_path)))  # fmt: skip
    assert code == 0
    captured = capsys.readouterr()
    # the estimate comes before any candidate is judged
    assert captured.err.index("align: at most 102 judge calls of --max-calls 200") < (
        captured.err.index("baseline:")
    )
    report = json.loads(report_path.read_text(encoding="utf-8"))
    aligned = load_criterion(tmp_path / "aligned.yaml")
    assert (
        aligned.content_hash
        == report["aligned"]["content_hash"]
        == report["test"]["criterion_hash"]
    )
    assert [e.inputs["answer"] for e in aligned.examples] == ["This is item t3. KEY-FACT"]
    assert "dev before (gated): TPR 1.000 [0.510, 1.000], TNR 0.000 [0.000, 0.490]" in captured.out
    assert "dev after (gated): TPR 1.000 [0.510, 1.000], TNR 1.000 [0.510, 1.000]" in captured.out
    assert f"test, once, criterion {aligned.content_hash}: TPR 1.000" in captured.out
    judged = [_judged(r) for r in align_server.requests]
    assert [i for i in judged if i.startswith("x")] == judged[-len(TEST) :]


def test_align_refuses_a_budget_that_fits_nothing(
    tmp_path: Path, align_server: FakeAnthropic, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_args(tmp_path, align_server, "--max-calls", "10")) == 2
    err = capsys.readouterr().err
    assert "--max-calls is 10" in err
    assert "Traceback" not in err
    assert not (tmp_path / "aligned.yaml").exists()
    assert align_server.count("POST", "/v1/messages") == 0


def test_align_refuses_to_write_over_its_criterion(
    tmp_path: Path, align_server: FakeAnthropic, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _args(tmp_path, align_server, "--max-calls", "200")
    args[args.index("-o") + 1] = str(tmp_path / "fact-stated.yaml")
    assert main(args) == 2
    assert align_server.count("POST", "/v1/messages") == 0
    assert (tmp_path / "fact-stated.yaml").read_text(encoding="utf-8") == CRITERION
