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

GATES = "tpr=0.4,tnr=0.4,kappa=0.2,max_unsure=0.5"
"""Gates the aligned judge clears on the 6 test items (3 of 3 right: Wilson lower bound 0.44)."""


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
    code = main(_args(tmp_path, align_server, "--max-calls", "200", "--k", "2", "--gates", GATES,
                      "--json", str(report_path)))  # fmt: skip
    assert code == 0  # TRUSTED on test
    captured = capsys.readouterr()
    # the estimate comes before any candidate is judged
    assert captured.err.index("align: at most 102 judge calls of --max-calls 200") < (
        captured.err.index("baseline:")
    )
    report = json.loads(report_path.read_text(encoding="utf-8"))
    aligned = load_criterion(tmp_path / "aligned.yaml")
    assert (
        aligned.content_hash
        == report["aligned"]["criterion_hash"]
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


def test_align_exits_1_when_the_chosen_judge_is_not_trusted_on_test(
    tmp_path: Path, align_server: FakeAnthropic, capsys: pytest.CaptureFixture[str]
) -> None:
    # the default gates (TPR, TNR >= 0.8 on their lower bounds) need more than 6 test items
    assert main(_args(tmp_path, align_server, "--max-calls", "200")) == 1
    out = capsys.readouterr().out
    assert "; NOT TRUSTED)" in out.split("test, once, criterion", 1)[1]
    assert (tmp_path / "aligned.yaml").exists()


def test_align_records_its_test_evaluation_in_the_test_split_ledger(
    tmp_path: Path, align_server: FakeAnthropic, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _args(tmp_path, align_server, "--max-calls", "200", "--gates", GATES)
    assert main(args) == 0
    ledger = json.loads((tmp_path / "test-ledger.json").read_text(encoding="utf-8"))
    (entry,) = ledger["entries"].values()
    aligned = load_criterion(tmp_path / "aligned.yaml")
    assert entry["first"]["criterion_hash"] == aligned.content_hash
    assert main(args) == 0  # the same judge again: fine (and served by the cache)

    # a changed judge on the same test split: refused before the test evaluation, nothing written
    (tmp_path / "aligned.yaml").unlink()
    calls = align_server.count("POST", "/v1/messages")
    capsys.readouterr()
    assert main([*args, "--model", "claude-sonnet-4-6"]) == 2
    err = capsys.readouterr().err
    assert "model changed from 'claude-sonnet-4-5' to 'claude-sonnet-4-6'" in err
    assert "--reuse-test" in err
    assert not (tmp_path / "aligned.yaml").exists()
    judged = [_judged(r) for r in align_server.requests[calls:]]
    assert not [i for i in judged if i.startswith("x")]  # no test item judged

    # --reuse-test lets it through, and the report says so
    report_path = tmp_path / "align.json"
    assert main([*args, "--model", "claude-sonnet-4-6", "--reuse-test",
                 "--json", str(report_path)]) == 0  # fmt: skip
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["test"]["test_reused"] is True
    assert any(n.startswith("test split reused (--reuse-test)") for n in report["notes"])
    assert "(test split reused: --reuse-test)" in capsys.readouterr().out


def test_calibrate_of_a_changed_judge_after_align_is_refused_on_the_same_test_split(
    tmp_path: Path, align_server: FakeAnthropic, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _args(tmp_path, align_server, "--max-calls", "200", "--gates", GATES)
    assert main(args) == 0
    calibrate = [
        "calibrate", "--labels", args[args.index("--labels") + 1],
        "--criterion", str(tmp_path / "aligned.yaml"), "--split", "test",
        "--base-url", align_server.url, "--model", MODEL, "--gates", GATES,
        "--cache", str(tmp_path / "cache.sqlite"), "--bootstrap", "50", "-q",
    ]  # fmt: skip
    assert main(calibrate) == 0  # the judge align evaluated on test: the same configuration
    capsys.readouterr()
    assert main([*calibrate, "--samples", "3"]) == 2
    assert "sample count changed from 1 to 3" in capsys.readouterr().err
