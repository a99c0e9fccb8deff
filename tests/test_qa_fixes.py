"""Regression tests for the QA pass: file modes, messages, importer sniffing, diff reasons, narrow tables."""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from pathjudge._io import new_file_mode, write_jsonl
from pathjudge.agent.io import read_runs
from pathjudge.agent.trajectory import AgentInfo, RunRecord
from pathjudge.cli import main
from pathjudge.errors import ConfigError, ImportFormatError, InputError, SuiteError

FIXTURES = Path(__file__).parent / "fixtures" / "importers"


@pytest.fixture
def docent(repo_root: Path) -> Path:
    return repo_root / "examples" / "docent"


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


# A. output files follow the umask -------------------------------------------------------------


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_file_mode_follows_the_umask() -> None:
    old = os.umask(0o027)
    try:
        assert new_file_mode() == 0o640  # 0o666 & ~0o027
    finally:
        os.umask(old)
    assert os.umask(old) == old  # reading the umask did not change it


@pytest.mark.usefixtures("umask_022")
def test_written_files_get_0644_under_umask_022(tmp_path: Path, docent: Path) -> None:
    from pathjudge._io import write_text_atomic

    jsonl = tmp_path / "runs.jsonl"
    write_jsonl(jsonl, [RunRecord(run_id="r", task_id="t")])
    text = write_text_atomic(tmp_path / "r.md", "# hi\n")
    report = tmp_path / "score.json"
    assert (
        main(
            [
                "score",
                str(docent / "capstone-runs.jsonl"),
                "--suite",
                str(docent / "capstone-suite.yaml"),
                "--json",
                str(report),
                "-q",
            ]
        )
        == 0
    )
    assert [_mode(p) for p in (jsonl, text, report)] == [0o644, 0o644, 0o644]
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp left


# B. the F1 reason is a whole sentence ---------------------------------------------------------


def test_undefined_f1_reason_is_a_full_sentence() -> None:
    from pathjudge.calibration.agreement import judge_agreement

    # the judge never says 'fail': fail precision = 0/0 is undefined, so is its F1
    stats = judge_agreement(["pass", "fail", "pass", "fail"], ["pass"] * 4, n_bootstrap=10)
    fail = stats.per_class[1]
    assert fail.f1.value is None
    assert fail.f1.reason == (
        "F1 of 'fail' is undefined because its precision is undefined: the judge never said 'fail'"
    )


# C. an importer that recognises nothing says so and names the right --from -------------------

WRONG_FORMAT = [
    ("openai-chat", "anthropic_refund.json", "anthropic"),
    ("openai-chat", "anthropic_mixed.jsonl", "anthropic"),
    ("openai-chat", "openai_responses.json", "openai-responses"),
    ("openai-chat", "otel_otlp.json", "otel"),
    ("anthropic", "openai_chat.json", "openai-chat"),
    ("anthropic", "openai_responses.json", "openai-responses"),
    ("anthropic", "otel_flat.json", "otel"),
    ("openai-responses", "anthropic_refund.json", "anthropic"),
    ("openai-responses", "openai_chat.json", "openai-chat"),
    ("openai-responses", "otel_flat.json", "otel"),
    ("openai-responses", "otel_otlp.json", "otel"),
    ("otel", "anthropic_refund.json", "anthropic"),
    ("otel", "openai_chat.json", "openai-chat"),
    ("otel", "openai_responses.json", "openai-responses"),
]


@pytest.mark.parametrize(("fmt", "fixture", "right"), WRONG_FORMAT)
def test_wrong_from_names_the_file_and_the_right_format(fmt: str, fixture: str, right: str) -> None:
    from pathjudge.agent.importers import import_file

    with pytest.raises(ImportFormatError) as caught:
        list(import_file(FIXTURES / fixture, fmt))
    assert caught.value.file is not None
    assert caught.value.file.endswith(fixture)
    assert f"--from {right}" in str(caught.value)


@pytest.mark.parametrize(
    ("fmt", "fixture"),
    [
        ("anthropic", "anthropic_refund.json"),
        ("anthropic", "anthropic_mixed.jsonl"),
        ("openai-chat", "openai_chat.json"),
        ("openai-responses", "openai_responses.json"),
        ("otel", "otel_flat.json"),
        ("otel", "otel_otlp.json"),
    ],
)
def test_right_from_still_imports(fmt: str, fixture: str) -> None:
    from pathjudge.agent.importers import import_file

    assert list(import_file(FIXTURES / fixture, fmt))


def test_unrecognisable_transcript_without_markers(tmp_path: Path) -> None:
    from pathjudge.agent.importers import import_file

    odd = tmp_path / "odd.json"
    odd.write_text('{"conversation": [{"speaker": "bot", "said": "hi"}]}', encoding="utf-8")
    with pytest.raises(
        ImportFormatError, match="nothing in it is recognisable as openai-responses"
    ):
        list(import_file(odd, "openai-responses"))


def test_cli_import_wrong_from_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs.jsonl"
    code = main(
        ["import", "--from", "openai-chat", str(FIXTURES / "anthropic_refund.json"), "-o", str(out)]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "anthropic_refund.json" in err
    assert "--from anthropic" in err
    assert not out.exists()


# D. diff reasons: one line per distinct finding, and the runs file in errors -----------------


def test_diff_reason_states_each_finding_once_with_its_epochs(docent: Path) -> None:
    from pathjudge.rubrics.suite import load_suite
    from pathjudge.scoring.diff import diff_runs

    suite = load_suite(docent / "capstone-suite.yaml")
    base = list(read_runs(docent / "capstone-runs.jsonl"))
    task = base[0].task_id
    # three epochs of the first task; the candidate's runs all lose their steps
    base_epochs = [base[0].model_copy(update={"epoch": e, "run_id": f"b{e}"}) for e in range(3)]
    cand_epochs = [r.model_copy(update={"steps": (), "run_id": f"c{r.epoch}"}) for r in base_epochs]
    report = diff_runs(base_epochs, cand_epochs, suite)
    (line,) = [r for r in report.reasons if r.startswith(f"[trajectory] {task}:")]
    findings = line.removeprefix(f"[trajectory] {task}: ").split("; ")
    assert len(findings) == len(set(findings))  # nothing repeated
    assert all(f.endswith("(epochs 0, 1, 2)") for f in findings)


def test_diff_unknown_task_names_the_runs_file_and_line(tmp_path: Path, docent: Path) -> None:
    from pathjudge.rubrics.suite import load_suite
    from pathjudge.scoring.diff import diff_runs

    suite = load_suite(docent / "capstone-suite.yaml")
    base = list(read_runs(docent / "capstone-runs.jsonl"))
    cand = [*base, RunRecord(run_id="x", task_id="not-a-task")]
    cand_file = tmp_path / "cand.jsonl"
    write_jsonl(cand_file, cand)
    with pytest.raises(SuiteError) as caught:
        diff_runs(base, read_runs(cand_file), suite, candidate_file=cand_file)
    assert caught.value.file == str(cand_file)
    assert caught.value.line == len(cand)


# E. --gates messages ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("tprr=0.5", "unknown gate 'tprr'"),
        ("tpr", "gate 'tpr' has no value"),
        ("tpr=2", "gate 'tpr' is 2, outside [0, 1]"),
        ("kappa=-1.5", "gate 'kappa' is -1.5, outside [-1, 1]"),
    ],
)
def test_parse_gates_messages(text: str, expected: str) -> None:
    from pathjudge.calibration.agreement import parse_gates

    with pytest.raises(InputError) as caught:
        parse_gates(text)
    assert caught.value.message == expected
    assert caught.value.field == "--gates"
    if text == "tprr=0.5":
        assert "tpr, tnr, kappa, max_unsure" in (caught.value.hint or "")
    if text == "tpr":
        assert caught.value.hint == "write tpr=0.8"


def test_parse_gates_still_parses() -> None:
    from pathjudge.calibration.agreement import parse_gates

    gates = parse_gates("tpr=0.7, kappa=-0.2, max_unsure=0.1")
    assert (gates.tpr, gates.tnr, gates.kappa, gates.max_unsure) == (0.7, 0.8, -0.2, 0.1)


# F. --fail-under ranges -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("success=1.5", "threshold 1.5 for 'success' is outside [0, 1]"),
        ("success=-1", "threshold -1 for 'success' is outside [0, 1]"),
        ("path=101", "threshold 101 for 'path' is outside [0, 100]"),
        ("trajectory=nan", "--fail-under value 'nan' for 'trajectory' is not a finite number"),
    ],
)
def test_fail_under_out_of_range(text: str, expected: str) -> None:
    from pathjudge.scoring.scorecard import parse_thresholds

    with pytest.raises(InputError) as caught:
        parse_thresholds(text)
    assert caught.value.message == expected
    assert caught.value.field == "--fail-under"


def test_fail_under_in_range() -> None:
    from pathjudge.scoring.scorecard import parse_thresholds

    assert parse_thresholds("success=1,path=80,overall=0") == {
        "success": 1.0,
        "path": 80.0,
        "overall": 0.0,
    }


# G. errors name the real option ---------------------------------------------------------------


def test_block_on_error_names_the_option(docent: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = str(docent / "capstone-runs.jsonl")
    suite = str(docent / "capstone-suite.yaml")
    assert main(["diff", runs, runs, "--suite", suite, "--block-on", "sucess"]) == 2
    assert "field '--block-on'" in capsys.readouterr().err


def test_judge_backend_error_names_the_option(
    docent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathjudge.judge.session import backend_name

    with pytest.raises(ConfigError) as caught:
        backend_name("nope", field="--judge-backend")
    assert caught.value.field == "--judge-backend"
    runs = str(docent / "capstone-runs.jsonl")
    suite = str(docent / "capstone-suite.yaml")
    assert main(["score", runs, "--suite", suite, "--judge-backend", "nope"]) == 2
    assert "field '--judge-backend'" in capsys.readouterr().err


# H. nothing cut at 80 columns ------------------------------------------------------------------


def test_scorecard_tables_fit_80_columns_without_ellipsis(docent: Path) -> None:
    from pathjudge.report.terminal import print_scorecard
    from pathjudge.rubrics.suite import load_suite
    from pathjudge.scoring.grade import grade
    from pathjudge.scoring.scorecard import build_scorecard

    suite = load_suite(docent / "suite.yaml")
    card = build_scorecard(grade(read_runs(docent / "runs.jsonl"), suite), suite)
    console = Console(width=80, record=True)
    print_scorecard(console, card)
    text = console.export_text()
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= 80
    for header in ("success", "trajectory", "calls", "steps", "weak", "criterion", "unsure"):
        assert header in text
    longest = max(card.task_rows, key=lambda row: len(row.task_id)).task_id
    assert longest.replace("-", "")[:8] in text.replace("-", "").replace("│", "")


# I. small ones ----------------------------------------------------------------------------------


def test_show_rejects_negative_max_tasks(docent: Path) -> None:
    assert main(["show", str(docent / "runs.jsonl"), "--max-tasks", "-1"]) == 2


def test_mutate_interrupt_message_is_truthful(
    docent: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import pathjudge.scoring.mutate as mutate_module

    def interrupted(*args: object, **kwargs: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(mutate_module, "mutation_report", interrupted)
    runs = str(docent / "capstone-runs.jsonl")
    code = main(["mutate", runs, "--suite", str(docent / "capstone-suite.yaml")])
    assert code == 130
    err = capsys.readouterr().err
    assert "nothing was saved" in err
    assert "resumes" not in err


def test_report_warns_when_the_runs_file_is_not_found(
    tmp_path: Path,
    docent: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(docent / "capstone-runs.jsonl", work / "runs.jsonl")
    shutil.copy(docent / "capstone-suite.yaml", work / "suite.yaml")
    monkeypatch.chdir(work)
    assert main(["score", "runs.jsonl", "--suite", "suite.yaml", "--json", "score.json", "-q"]) == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.move(work / "score.json", elsewhere / "score.json")
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["report", str(elsewhere / "score.json"), "-o", "r.html"]) == 0
    err = capsys.readouterr().err
    assert "runs.jsonl" in err
    assert "--runs" in err
    # with --runs given, no warning about the runs file
    assert (
        main(["report", str(elsewhere / "score.json"), "-o", "r.html", "--runs", "work/runs.jsonl"])
        == 0
    )
    assert "no trajectory viewer" not in capsys.readouterr().err


def test_collect_counts_foreign_runs(tmp_path: Path) -> None:
    from pathjudge.agent.collect import CollectTask, collect

    out = tmp_path / "runs.jsonl"
    write_jsonl(
        out,
        [
            RunRecord(run_id="o1", task_id="other-task", agent=AgentInfo(name="docent")),
            RunRecord(run_id="o2", task_id="t1", epoch=1, agent=AgentInfo(name="other-agent")),
            RunRecord(run_id="mine", task_id="t1", agent=AgentInfo(name="docent")),
        ],
    )

    async def runner(task: CollectTask, epoch: int) -> RunRecord:
        return RunRecord(
            run_id=f"{task.id}@{epoch}",
            task_id=task.id,
            epoch=epoch,
            agent=AgentInfo(name="docent"),
        )

    tasks = [CollectTask(id="t1", question="q")]
    result = asyncio.run(collect(tasks, runner, out, epochs=1, agent_name="docent"))
    # other-task is outside the tasks; o2 is another agent; 'mine' belongs here
    assert (result.foreign, result.skipped, result.written) == (2, 1, 0)


def test_twin_warning_does_not_suggest_temperature() -> None:
    from pathjudge.config import twin_warning

    message = twin_warning("claude-haiku-4-5", "claude-haiku-4-5")
    assert message is not None
    assert "temperature" not in message
    assert "different model" in message
    assert "rubric" in message
