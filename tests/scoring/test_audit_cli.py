"""``pathjudge audit``: exit codes for CI, the JSON report, the escaped HTML page, 80 columns."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pathjudge.cli import main
from pathjudge.report.audit import print_audit
from pathjudge.report.text import SafeConsole
from pathjudge.rubrics.suite import parse_suite_text
from pathjudge.scoring.audit import audit_suite

HOSTILE = """
schema_version: 1
name: "<script>alert(1)</script>"
tasks:
  - id: "<img src=x onerror=alert(1)>\\u001b[31m"
    input: Cancel nothing.
    references: [{name: "<b>none</b>", mode: unordered, steps: []}]
  - id: fine
    input: The code?
    success: {kind: contains_all, values: ["XK-9"]}
    references: [{steps: [{tool: lookup, args: {code: XK-9}}]}]
"""


def test_exit_1_on_an_unsound_suite_with_json_and_an_escaped_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(HOSTILE, encoding="utf-8")
    out, page = tmp_path / "audit.json", tmp_path / "audit.html"
    assert main(["audit", str(suite), "--json", str(out), "--html", str(page)]) == 1
    printed = capsys.readouterr().out
    assert "UNSOUND" in printed
    assert "\x1b[31m" not in printed
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["schema_version"] == 1
    assert report["unsound"] == ["<img src=x onerror=alert(1)>\x1b[31m"]
    assert report["tasks"][1]["status"] == "sound"
    text = page.read_text(encoding="utf-8")
    assert "<script>alert" not in text
    assert "<img src=x" not in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "Content-Security-Policy" in text


def test_exit_0_on_a_sound_suite_and_2_on_bad_input(
    repo_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", str(repo_root / "examples" / "docent" / "capstone-suite.yaml")]) == 0
    assert "no unsound task" in capsys.readouterr().out
    bad = tmp_path / "bad.yaml"
    bad.write_text("schema_version: 1\nname: s\ntasks: [{id: t, sucess: {}}]\n", encoding="utf-8")
    assert main(["audit", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.yaml" in err
    assert "Traceback" not in err
    assert main(["audit", str(tmp_path / "missing.yaml")]) == 2
    capsys.readouterr()
    docent = repo_root / "examples" / "docent"
    args = ["audit", str(docent / "capstone-suite.yaml"), "--runs", str(docent / "runs.jsonl")]
    assert main(args) == 2  # runs.jsonl holds tasks the capstone suite lacks
    assert "runs.jsonl:9: task 'error-401'" in capsys.readouterr().err


def test_runs_given_are_what_is_mutated(
    repo_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docent = repo_root / "examples" / "docent"
    args = ["audit", str(docent / "suite.yaml"), "--runs", str(docent / "runs.jsonl")]
    assert main([*args, "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["mutated"] == "runs"
    assert report["mutations"]["runs"] == 16  # the 16 runs of runs.jsonl


def test_json_to_stdout_is_only_the_report(
    repo_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = repo_root / "examples" / "docent" / "support-suite.yaml"
    assert main(["audit", str(suite), "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["suite"] == "support-agent"
    assert report["detection_rate"] == 1.0


def test_the_terminal_report_fits_80_columns() -> None:
    buffer = io.StringIO()
    console = SafeConsole(file=buffer, width=80, force_terminal=True, color_system=None)
    print_audit(console, audit_suite(parse_suite_text(HOSTILE)))
    lines = buffer.getvalue().splitlines()
    assert lines
    assert max(len(line) for line in lines) <= 80
    assert not any("\x1b[31m" in line for line in lines)
