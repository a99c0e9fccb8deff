"""CLI errors name the option the user typed (``--block-on``, ``--judge-backend``), a bad option
value exits 2, an interrupted ``mutate`` says nothing was saved, and ``report`` warns when the runs
file of a report is not found."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pathjudge.cli import main
from pathjudge.errors import ConfigError


@pytest.fixture
def docent(repo_root: Path) -> Path:
    return repo_root / "examples" / "docent"


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
