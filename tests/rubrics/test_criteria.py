"""Where a criterion file may come from, and how it is read: a suite is data from elsewhere.

A suite's judged ``criterion:`` is a built-in id or a ``.yaml`` file inside the suite's folder;
every criterion file is a regular file read with a bound; no error quotes a file that is not a
criterion.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import pathjudge.cli  # noqa: F401
from pathjudge._cli.app import main
from pathjudge.errors import CriterionError, SuiteError
from pathjudge.rubrics.criteria import (
    MAX_CRITERION_BYTES,
    get_criterion,
    load_criterion,
)
from pathjudge.rubrics.suite import load_suite
from tests.fakes.anthropic_server import FakeAnthropic, forced_tool_policy

SECRET = "root:$6$Zq8SECRETHASHx1:19000:0:99999:7:::"
"""A line of a file no suite may read (the shape of /etc/shadow)."""

GOOD = """\
id: polite
version: 1
criterion: Is the answer polite?
inputs: [answer, question]
pass_means: The answer is polite.
fail_means: The answer is rude.
"""


def _suite(folder: Path, criterion: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "suite.yaml"
    path.write_text(
        f"name: s\ntasks:\n  - id: t\n    input: hi\n    judged:\n      - criterion: '{criterion}'\n"
    )
    (folder / "runs.jsonl").write_text('{"run_id": "r", "task_id": "t", "final_answer": "x"}\n')
    return path


@pytest.fixture
def judge() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        server.policy = forced_tool_policy(
            lambda _r: {"reasoning": "ok", "evidence": [], "verdict": "pass"}
        )
        yield server


def _score(suite: Path, judge: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000000000")
    return main(
        ["score", str(suite.parent / "runs.jsonl"), "--suite", str(suite),
         "--judge-backend", "anthropic", "--judge-model", "claude-test",
         "--judge-base-url", judge.url, "--cache", str(suite.parent / "cache.sqlite"), "-q"]
    )  # fmt: skip


@pytest.mark.parametrize("reference", ["{secret}", "../outside/secret.yaml", "{secret_yaml}"])
def test_a_suite_cannot_name_a_criterion_outside_its_folder(tmp_path: Path, reference: str) -> None:
    secret = tmp_path / "outside" / "secret.yaml"
    secret.parent.mkdir()
    secret.write_text(SECRET + "\n")
    suite = _suite(
        tmp_path / "suite", reference.format(secret=tmp_path / "outside", secret_yaml=secret)
    )
    with pytest.raises(SuiteError) as info:
        load_suite(suite)
    error = info.value
    assert (error.file, error.line, error.field) == (str(suite), 6, "tasks[0].judged[0].criterion")
    assert "inside the suite's folder" in error.message
    assert SECRET not in str(error)


def test_a_judged_criterion_symlinked_out_of_the_suite_folder_is_refused_unquoted(
    tmp_path: Path,
    judge: FakeAnthropic,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    secret = tmp_path / "shadow"
    secret.write_text(SECRET + "\n")
    suite = _suite(tmp_path / "suite", "criteria/c.yaml")
    (suite.parent / "criteria").mkdir()
    (suite.parent / "criteria" / "c.yaml").symlink_to(secret)
    code = _score(suite, judge, monkeypatch)
    err = capsys.readouterr().err
    assert code == 2
    assert "Zq8SECRET" not in err  # before the fix: the file's line was printed as a field name
    assert f"{suite.parent / 'criteria' / 'c.yaml'}: lies outside its folder" in err
    assert judge.count("POST", "/v1/messages") == 0


def test_a_judged_criterion_inside_the_suite_folder_is_read_from_there(
    tmp_path: Path,
    judge: FakeAnthropic,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    suite = _suite(tmp_path / "suite", "criteria/polite.yaml")
    (suite.parent / "criteria").mkdir()
    (suite.parent / "criteria" / "polite.yaml").write_text(GOOD)
    monkeypatch.chdir(tmp_path)  # resolved beside the suite, not in the working folder
    code = _score(suite, judge, monkeypatch)
    assert code in (0, 1), capsys.readouterr().err
    assert judge.count("POST", "/v1/messages") == 1


def test_a_yaml_file_that_is_not_a_criterion_is_refused_without_quoting_it(
    tmp_path: Path,
) -> None:
    other = tmp_path / "notes.yaml"
    other.write_text(f"{SECRET}\nbin:*:19000:0:99999:7:::\n")
    with pytest.raises(CriterionError) as info:
        load_criterion(other)
    assert "is not a criterion file" in info.value.message
    assert "SECRET" not in str(info.value)


@pytest.mark.parametrize("kind", ["device", "fifo", "folder"])
def test_a_criterion_path_that_is_not_a_regular_file_is_refused_unread(
    tmp_path: Path, kind: str
) -> None:
    if kind == "device":
        path = Path("/dev/zero")  # before the fix: read without end, a MemoryError
    elif kind == "fifo":
        path = tmp_path / "c.yaml"
        os.mkfifo(path)
    else:
        path = tmp_path / "c.yaml"
        path.mkdir()
    outcome: list[BaseException | None] = []

    def load() -> None:
        try:
            get_criterion(str(path))
        except BaseException as exc:  # recorded for the assertion below
            outcome.append(exc)
        else:
            outcome.append(None)

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(30)
    if worker.is_alive():  # a FIFO with no writer: release the reader, then fail
        with open(path, "wb"):
            pass
        pytest.fail(f"reading {path} waited for a writer")
    (error,) = outcome
    assert isinstance(error, CriterionError), repr(error)
    assert error.file == str(path)
    expected = {"device": "character device", "fifo": "FIFO", "folder": "is a directory"}[kind]
    assert expected in error.message


def test_a_criterion_file_larger_than_the_bound_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(GOOD + "# " + "x" * MAX_CRITERION_BYTES + "\n")
    with pytest.raises(CriterionError, match="is larger than 4 MiB") as info:
        load_criterion(path)
    assert info.value.file == str(path)
    assert load_criterion(_write(tmp_path / "ok.yaml", GOOD)).id == "polite"


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path
