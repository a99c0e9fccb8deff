"""``pathjudge calibrate`` end to end: table, JSON, plots, few-shot YAML, exit codes, clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import pathjudge.cli  # noqa: F401  (registers the commands)
from pathjudge._cli.app import main

from .conftest import Writer
from .test_calibrate import _labels, _verdicts


def test_table_json_plots_and_few_shot(
    write: Writer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = write("l.jsonl", _labels())
    verdicts = write("v.jsonl", _verdicts(samples=3))
    unl = write("u.jsonl", [{"item_id": f"u{i}", "verdict": "pass"} for i in range(5)])
    code = main(
        [
            "calibrate",
            "--labels", str(labels),
            "--verdicts", str(verdicts),
            "--unlabelled", str(unl),
            "--json", str(tmp_path / "out" / "report.json"),
            "--plots", str(tmp_path / "plots"),
            "--few-shot", str(tmp_path / "few.yaml"),
            "--bootstrap", "100",
        ]
    )  # fmt: skip
    out = capsys.readouterr()
    assert code == 1  # not trusted: a missed gate is exit 1
    assert "Cohen's kappa" in out.out
    assert "0.467" in out.out  # 7/15
    assert "NOT TRUSTED" in out.out
    assert "success rate: PPI++" in out.out
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["criteria"][0]["agreement"]["kappa"]["value"] == pytest.approx(7 / 15)
    for name in ("confusion-criterion.png", "reliability-criterion.png"):
        data = (tmp_path / "plots" / name).read_bytes()
        assert data.startswith(b"\x89PNG")
    assert "examples:" in (tmp_path / "few.yaml").read_text()
    # --report-only: same report, exit 0; --json - prints JSON only.
    code = main(
        [
            "calibrate",
            "--labels",
            str(labels),
            "--verdicts",
            str(verdicts),
            "--json",
            "-",
            "--report-only",
            "--bootstrap",
            "20",
        ]
    )
    printed = json.loads(capsys.readouterr().out)
    assert code == 0
    assert printed["criteria"][0]["n_labelled"] == 10


def test_trusted_judge_exits_zero(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    labels = write(
        "l.jsonl", [{"item_id": str(i), "label": "pass" if i < 60 else "fail"} for i in range(120)]
    )
    verdicts = write(
        "v.jsonl",
        [{"item_id": str(i), "verdict": "pass" if i < 60 else "fail"} for i in range(120)],
    )
    assert (
        main(
            ["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), "--bootstrap", "50"]
        )
        == 0
    )
    assert "TRUSTED" in capsys.readouterr().out


def test_option_errors(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    labels = write("l.jsonl", _labels())
    assert main(["calibrate", "--labels", str(labels)]) == 2
    assert "give either --verdicts" in capsys.readouterr().err
    verdicts = write("v.jsonl", _verdicts())
    assert (
        main(
            ["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), "--gates", "tpr=x"]
        )
        == 2
    )
    assert "not a number" in capsys.readouterr().err
    assert (
        main(["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), "--split", "val"])
        == 2
    )
    assert "unknown split 'val'" in capsys.readouterr().err
    assert main(["calibrate", "--labels", str(labels), "--backend", "openai-compatible"]) == 2
    assert "live judging needs --criterion" in capsys.readouterr().err


def test_bad_labels_in_a_subprocess(write: Writer, tmp_path: Path) -> None:
    labels = write(
        "l.jsonl", [{"item_id": "a", "label": "pass"}, {"item_id": "a", "label": "fail"}]
    )
    verdicts = write("v.jsonl", [{"item_id": "a", "verdict": "pass"}])
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pathjudge",
            "calibrate",
            "--labels",
            str(labels),
            "--verdicts",
            str(verdicts),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert (
        f"{labels}:2: field 'item_id': item 'a': is labelled twice (first on line 1)" in proc.stderr
    )


def test_calibrate_reads_a_label_log_beside_a_labels_file_and_reports_stale_and_ceiling(
    write: Writer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from .test_calibrate import _log

    old = write("old.jsonl", [{"item_id": "x1", "criterion": "faithful", "label": "fail"}])
    log = write("log.jsonl", _log())
    items = write(
        "items.jsonl",
        [
            {"item_id": f"i{i}", "inputs": {"text": "edited" if i == 8 else f"i{i}"}}
            for i in range(10)
        ],
    )
    verdicts = write("v.jsonl", [*_verdicts(), {"item_id": "x1", "verdict": "fail"}])
    argv = ["calibrate", "--labels", str(old), "--labels", str(log), "--verdicts", str(verdicts)]
    argv += [
        "--items",
        str(items),
        "--bootstrap",
        "50",
        "--report-only",
        "--json",
        str(tmp_path / "r.json"),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "rater-rater Cohen kappa (ceiling)" in out
    assert "(stale): 'i8'" in out
    report = json.loads((tmp_path / "r.json").read_text())
    crit = report["criteria"][0]
    assert crit["stale_labels"] == ["i8"]
    assert crit["n_labelled"] == 10  # 9 log items + x1
    assert crit["rater_agreement"]["statistic"] == "cohen_kappa"
    from pathjudge.report.html import write_html_report
    from pathjudge.report.markdown import write_markdown_report

    html = write_html_report(None, tmp_path / "r.html", calibration=tmp_path / "r.json")
    assert "Rater-rater Cohen&#x27;s kappa (human ceiling)" in html.read_text()
    md = write_markdown_report(None, tmp_path / "r.md", calibration=tmp_path / "r.json")
    assert "- human ceiling: judge-human kappa" in md.read_text()
    assert "rater-rater Cohen's kappa 1.000" in md.read_text()
    assert main([*argv, "--keep-stale"]) == 0
    capsys.readouterr()
    assert json.loads((tmp_path / "r.json").read_text())["criteria"][0]["n_labelled"] == 11
