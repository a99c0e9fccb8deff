"""``pathjudge score``: exit codes, reproducible JSON, JUnit valid against the common schema."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pathjudge.cli import main
from tests.support import suite_that_fails_a_gating_check


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


def test_junit_with_failed_cases_and_no_gate_says_how_to_fail_the_job(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`score --junit` exits 0 on failed cases when no gate is missed: it says so on stderr and
    names the gate that fails the job (passed=1.0), which then exits 1."""
    suite, runs = suite_that_fails_a_gating_check(tmp_path)
    junit = tmp_path / "junit.xml"
    assert score(runs, "--suite", suite, "--junit", junit, "-q") == 0
    assert 'failures="1"' in junit.read_text(encoding="utf-8")
    err = capsys.readouterr().err
    assert f"1 of 1 JUnit cases in {junit} failed" in err
    assert "add --fail-on-failed (or --fail-under passed=1.0)" in err
    assert score(runs, "--suite", suite, "--junit", junit, "--fail-under", "passed=1.0") == 1
    assert "--fail-on-failed" not in capsys.readouterr().err
    assert score(runs, "--suite", suite, "--junit", junit, "--fail-on-failed", "-q") == 1
    assert "failed tasks (1): refund" in capsys.readouterr().err
    # nothing failed: no warning
    docent = Path(__file__).resolve().parents[2] / "examples" / "docent"
    code = score(docent / "capstone-runs.jsonl", "--suite", docent / "capstone-suite.yaml")
    assert code == 0
    assert score(runs, "--suite", suite, "-q") == 0
    assert "JUnit" not in capsys.readouterr().err


def test_fail_on_failed_follows_the_junit_cases_strict_included(
    docent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under --strict two capstone tasks fail for a weak path alone: the passed gate does not see
    them (the warning says so), --fail-on-failed does."""
    runs, suite = docent / "capstone-runs.jsonl", docent / "capstone-suite.yaml"
    junit = tmp_path / "junit.xml"
    args = (runs, "--suite", suite, "--junit", junit, "--strict", "-q")
    assert score(*args, "--fail-under", "passed=1.0") == 0
    assert 'failures="2"' in junit.read_text(encoding="utf-8")
    assert "which does not see the weak paths --strict fails" in capsys.readouterr().err
    assert score(*args, "--fail-on-failed") == 1
    assert "failed tasks (2): region, oos-mongo" in capsys.readouterr().err
    assert score(runs, "--suite", suite, "--fail-on-failed", "-q") == 0


def test_fail_on_failed_with_nothing_graded_is_not_a_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every run cut short (undecided): every JUnit case is skipped, and --fail-on-failed exits 1."""
    from pathjudge.agent.trajectory import RunRecord, Step

    suite, _ = suite_that_fails_a_gating_check(tmp_path)
    runs = tmp_path / "cut.jsonl"
    cut = RunRecord(
        run_id="r0",
        task_id="refund",
        steps=(Step(tool="refund", arguments={}, turn=0),),
        final_answer="done",
        stop_reason="max_turns",
    )
    runs.write_text(cut.model_dump_json() + "\n", encoding="utf-8")
    assert score(runs, "--suite", suite, "-q") == 0
    assert score(runs, "--suite", suite, "-q", "--fail-on-failed") == 1
    assert "no task was graded" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("gate", "hint"),
    [
        ("path=0.9", "write path=90 for 90 out of 100"),
        ("path=1", "write path=100 for 100 out of 100"),
        ("success=90", "write success=0.9 for 90%"),
        ("passed=95", "write passed=0.95 for 95%"),
    ],
)
def test_a_threshold_on_the_wrong_scale_is_refused_with_the_rescaled_value(
    docent: Path, capsys: pytest.CaptureFixture[str], gate: str, hint: str
) -> None:
    """path is 0..100: path=0.9 would pass nearly every run ("gate path >= 0.9: 80.000 ok")."""
    assert score(docent / "runs.jsonl", "--suite", docent / "suite.yaml", "--fail-under", gate) == 2
    assert hint in capsys.readouterr().err


def test_a_path_gate_on_its_own_scale_is_kept(
    docent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs, suite = docent / "runs.jsonl", docent / "suite.yaml"
    assert score(runs, "--suite", suite, "--fail-under", "path=0", "-q") == 0
    assert score(runs, "--suite", suite, "--fail-under", "path=99.5", "-q") == 1
    assert "gate path >= 99.5" in capsys.readouterr().out


def test_a_fraction_for_the_path_score_in_the_configuration_is_refused(
    docent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pathjudge.toml").write_text("[fail_under]\npath = 0.9\n", encoding="utf-8")
    assert score(docent / "runs.jsonl", "--suite", docent / "suite.yaml") == 2
    err = capsys.readouterr().err
    assert "pathjudge.toml" in err
    assert "fail_under.path" in err
    assert "path=90" in err


def _one_per_line(source: Path, target: Path) -> Path:
    """A JSON transcript file (one object, or a list of them) rewritten as JSONL."""
    value = json.loads(source.read_text(encoding="utf-8"))
    items = value if isinstance(value, list) else [value]
    target.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return target


@pytest.mark.parametrize(
    ("fixture", "fmt"),
    [
        ("anthropic_refund.json", "anthropic"),
        ("openai_chat.json", "openai-chat"),
        ("openai_responses.json", "openai-responses"),
        ("otel_otlp.json", "otel"),
    ],
)
@pytest.mark.parametrize("as_jsonl", [False, True])
def test_a_transcript_given_as_runs_names_the_import_command(
    repo_root: Path,
    docent: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    fixture: str,
    fmt: str,
    as_jsonl: bool,
) -> None:
    """Not "field 'run_id': Field required": the format, and the exact `pathjudge import` command
    (which then works)."""
    source = repo_root / "tests" / "fixtures" / "importers" / fixture
    if as_jsonl:
        source = _one_per_line(source, tmp_path / "transcripts.jsonl")
    assert score(source, "--suite", docent / "suite.yaml") == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"pathjudge import --from {fmt} {source} -o " in err
    assert "Field required" not in err
    output = err.split(" -o ", 1)[1].split(",", 1)[0]
    assert main(["import", "--from", fmt, str(source), "-o", output]) == 0
    assert (tmp_path / output).is_file()


def test_a_tau_bench_file_given_as_runs_names_the_openai_chat_importer(
    shared_data: Path, docent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tau = shared_data / "tau_bench_sample" / "gpt-4o-airline.sample3.json"
    assert score(tau, "--suite", docent / "suite.yaml") == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "is an openai-chat transcript, not pathjudge runs" in err
    assert f"pathjudge import --from openai-chat {tau} -o gpt-4o-airline.sample3.runs.jsonl" in err


def test_a_runs_file_with_a_bad_record_keeps_its_own_error(
    docent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real runs file whose record lacks a field is not taken for a transcript."""
    runs = tmp_path / "runs.jsonl"
    lines = (docent / "runs.jsonl").read_text(encoding="utf-8").splitlines()
    broken = json.loads(lines[0])
    del broken["run_id"]
    runs.write_text(json.dumps(broken) + "\n", encoding="utf-8")
    assert score(runs, "--suite", docent / "suite.yaml") == 2
    err = capsys.readouterr().err
    assert "run_id" in err
    assert "pathjudge import" not in err
