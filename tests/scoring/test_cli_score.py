"""``pathjudge score``: exit codes, reproducible JSON, JUnit valid against the common schema."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pathjudge.cli import main


@pytest.fixture(autouse=True)
def no_judge(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No credentials and no project config: judged criteria are "not run", nothing leaves the machine."""
    for name in list(os.environ):
        if name.startswith(("PATHJUDGE_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def docent(repo_root: Path) -> Path:
    return repo_root / "examples" / "docent"


def score(*args: str | Path) -> int:
    return main(["score", *map(str, args)])


def test_thresholds_exit_codes(docent: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs, suite = docent / "capstone-runs.jsonl", docent / "capstone-suite.yaml"
    assert score(runs, "--suite", suite, "--fail-under", "success=1.0,trajectory=0.75", "-q") == 0
    assert score(runs, "--suite", suite, "--fail-under", "trajectory=0.8", "-q") == 1
    assert "thresholds missed: trajectory 0.75 < 0.8" in capsys.readouterr().err
    assert score(runs, "--suite", suite, "--fail-under", "speed=1") == 2


def test_bad_inputs_exit_2(
    docent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps({"run_id": "r", "task_id": "no-such-task"}) + "\n")
    assert score(runs, "--suite", docent / "suite.yaml") == 2
    err = capsys.readouterr().err
    assert "runs.jsonl:1" in err
    assert "no-such-task" in err
    bad_suite = tmp_path / "s.yaml"
    bad_suite.write_text(
        "name: s\ntasks:\n  - id: a\n    references: [{mode: sideways, steps: []}]\n"
    )
    assert score(docent / "runs.jsonl", "--suite", bad_suite) == 2
    assert "s.yaml:4" in capsys.readouterr().err


def test_json_report_is_byte_identical(docent: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for out in (a, b):
        assert (
            score(
                docent / "runs.jsonl",
                "--suite",
                docent / "suite.yaml",
                "--json",
                out,
                "--include-runs",
                "-q",
            )
            == 0
        )
    assert a.read_bytes() == b.read_bytes()
    report = json.loads(a.read_text())
    assert report["schema_version"] == 1
    assert report["kind"] == "pathjudge.score"
    assert report["judge"] == "none"
    assert len(report["runs"]) == 16
    assert report["scorecard"]["judged"][0]["not_run"] == 1


def test_recorded_verdicts_and_fast(docent: Path, tmp_path: Path) -> None:
    verdicts = tmp_path / "v.jsonl"
    verdicts.write_text(
        json.dumps(
            {
                "item_id": "summary-rate-limiting-e0:summary-covers-points",
                "verdict": "pass",
                "reasoning": "both",
                "metadata": {"votes": 3},
            }
        )
        + "\n"
    )
    out = tmp_path / "r.json"
    assert (
        score(
            docent / "runs.jsonl",
            "--suite",
            docent / "suite.yaml",
            "--verdicts",
            verdicts,
            "--json",
            out,
            "-q",
        )
        == 0
    )
    judged = json.loads(out.read_text())["scorecard"]["judged"][0]
    assert (judged["passed"], judged["not_run"]) == (1, 0)
    assert (
        score(
            docent / "runs.jsonl",
            "--suite",
            docent / "suite.yaml",
            "--fast",
            "--verdicts",
            verdicts,
            "--json",
            out,
            "-q",
        )
        == 0
    )
    judged = json.loads(out.read_text())["scorecard"]["judged"][0]
    assert (judged["passed"], judged["not_run"]) == (0, 1)


def test_junit_validates_against_the_jenkins_schema(
    docent: Path, tmp_path: Path, repo_root: Path
) -> None:
    xmlschema = pytest.importorskip("xmlschema")
    out = tmp_path / "junit.xml"
    assert score(docent / "runs.jsonl", "--suite", docent / "suite.yaml", "--junit", out, "-q") == 0
    schema = xmlschema.XMLSchema(str(repo_root / "tests" / "report" / "jenkins-junit-10.xsd"))
    schema.validate(str(out))
    text = out.read_text()
    assert text.count("<testcase ") == 15  # one per task (free-storage has two runs)
    assert 'name="free-storage"' in text
    assert "<failure" in text
    assert "alignment diff" in text
    strict = tmp_path / "strict.xml"
    assert (
        score(
            docent / "runs.jsonl",
            "--suite",
            docent / "suite.yaml",
            "--junit",
            strict,
            "--strict",
            "-q",
        )
        == 0
    )
    assert (
        strict.read_text().count("<failure") == 3
    )  # free-storage, plus region and oos-mongo poor paths


def test_grades_stream(docent: Path, tmp_path: Path) -> None:
    out = tmp_path / "grades.jsonl"
    assert (
        score(
            docent / "capstone-runs.jsonl",
            "--suite",
            docent / "capstone-suite.yaml",
            "--grades",
            out,
            "-q",
        )
        == 0
    )
    lines = out.read_text().splitlines()
    assert len(lines) == 8
    assert json.loads(lines[3])["task_id"] == "region"


def test_parallel_jobs_give_the_same_report(docent: Path, tmp_path: Path) -> None:
    outs = []
    for jobs in ("1", "3"):
        out = tmp_path / f"r{jobs}.json"
        assert (
            score(
                docent / "runs.jsonl",
                "--suite",
                docent / "suite.yaml",
                "--json",
                out,
                "--jobs",
                jobs,
                "-q",
            )
            == 0
        )
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


def test_parallel_errors_name_the_line(
    docent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (docent / "capstone-runs.jsonl").read_text().splitlines()
    lines.insert(6, json.dumps({"run_id": "x", "task_id": "unknown-task"}))
    runs = tmp_path / "runs.jsonl"
    runs.write_text("\n".join(lines) + "\n")
    assert score(runs, "--suite", docent / "capstone-suite.yaml", "--jobs", "2") == 2
    assert "runs.jsonl:7" in capsys.readouterr().err
    assert (
        score(runs, "--suite", docent / "capstone-suite.yaml", "--jobs", "2", "--include-runs") == 2
    )
