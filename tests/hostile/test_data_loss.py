"""Issue 13 items 1–5: a failed or refused command leaves every existing file as it was."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import pathjudge.cli  # noqa: F401  (registers the commands)
from pathjudge._cli.app import main
from pathjudge._io import JsonlAppender
from pathjudge.agent.collect import CollectTask, collect
from pathjudge.agent.io import read_runs
from pathjudge.agent.trajectory import RunRecord
from pathjudge.errors import InputError, RecordError

REPO = Path(__file__).resolve().parents[2]
TASKS = [CollectTask(id=f"t{i}", question="q") for i in range(3)]


async def _runner(task: CollectTask, epoch: int) -> RunRecord:
    return RunRecord(run_id=f"{task.id}@{epoch}", task_id=task.id, epoch=epoch, final_answer="a")


def _collect(out: Path) -> object:
    return asyncio.run(collect(TASKS, _runner, out))


def _two_runs(out: Path) -> list[bytes]:
    _collect(out)
    return out.read_bytes().splitlines(keepends=True)


def test_a_last_record_without_newline_is_kept_not_dropped(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    lines = _two_runs(out)
    out.write_bytes(b"".join(lines).rstrip(b"\n"))  # complete, just no final newline
    result = _collect(out)
    assert (result.skipped, result.written) == (3, 0)  # type: ignore[attr-defined]
    assert len(list(read_runs(out))) == 3
    assert out.read_bytes() == b"".join(lines)


def test_cr_only_line_ends_are_refused_and_the_file_kept(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    lines = _two_runs(out)
    cr_only = b"".join(line.rstrip(b"\n") + b"\r" for line in lines)
    out.write_bytes(cr_only)
    with pytest.raises(RecordError, match="carriage returns"):
        _collect(out)
    assert out.read_bytes() == cr_only


def test_an_invalid_record_anywhere_is_refused_before_anything_changes(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    lines = _two_runs(out)
    broken = lines[0] + b'{"run_id": 5}\n' + lines[1] + lines[2][:20]  # and a torn tail
    out.write_bytes(broken)
    with pytest.raises(RecordError):
        _collect(out)
    assert out.read_bytes() == broken


def test_only_a_torn_tail_is_cut(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    lines = _two_runs(out)
    out.write_bytes(lines[0] + lines[1] + lines[2][:20])
    result = _collect(out)
    assert (result.skipped, result.written) == (2, 1)  # type: ignore[attr-defined]
    assert out.read_bytes().startswith(lines[0] + lines[1])
    assert len(list(read_runs(out))) == 3


def test_gz_output_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    import gzip

    out = tmp_path / "runs.jsonl.gz"
    out.write_bytes(gzip.compress(b""))
    before = out.read_bytes()
    with pytest.raises(InputError, match="gzip"):
        _collect(out)
    assert out.read_bytes() == before
    with pytest.raises(InputError, match="gzip"):
        _collect(tmp_path / "new.jsonl.gz")
    assert not (tmp_path / "new.jsonl.gz").exists()


def test_a_second_writer_is_refused_while_the_first_holds_the_lock(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    with JsonlAppender(out, lock=True):
        # another process: flock is per open file, so a child process sees the lock
        code = (
            "import asyncio, sys\n"
            "from pathjudge._io import JsonlAppender\n"
            "from pathjudge.errors import InputError\n"
            f"try:\n    JsonlAppender({str(out)!r}, lock=True)\n"
            "except InputError as exc:\n    print(exc); sys.exit(3)\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONPATH": str(REPO / "src")},
            check=False,
        )
    assert done.returncode == 3, done.stderr
    assert "another pathjudge process" in done.stdout


SUITE = (
    "name: s\ntasks:\n  - id: t0\n    input: q\n    success: {kind: contains_any, values: [a]}\n"
)


def _files(tmp_path: Path) -> tuple[Path, Path]:
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    runs = tmp_path / "runs.jsonl"
    runs.write_text(
        json.dumps({"run_id": "r", "task_id": "t0", "epoch": 0, "final_answer": "a"}) + "\n",
        encoding="utf-8",
    )
    return suite, runs


def test_score_never_writes_over_its_own_input(tmp_path: Path) -> None:
    suite, runs = _files(tmp_path)
    before = runs.read_bytes(), suite.read_bytes()
    for flag in ("--grades", "--json", "--junit", "--html", "--markdown"):
        for target in (runs, suite, tmp_path / "." / runs.name):
            assert main(["score", str(runs), "--suite", str(suite), flag, str(target)]) == 2
    link = tmp_path / "link.jsonl"
    link.symlink_to(runs)
    assert main(["score", str(runs), "--suite", str(suite), "--grades", str(link)]) == 2
    assert (runs.read_bytes(), suite.read_bytes()) == before


def test_import_keep_going_with_nothing_importable_keeps_the_existing_output(
    tmp_path: Path,
) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n{}\n", encoding="utf-8")
    existing = tmp_path / "existing.jsonl"
    existing.write_text('{"keep": "me"}\n', encoding="utf-8")
    code = main(["import", "--from", "openai-chat", str(junk), "-o", str(existing), "--keep-going"])
    assert code == 2
    assert existing.read_text(encoding="utf-8") == '{"keep": "me"}\n'


def test_two_outputs_of_one_command_may_not_be_the_same_file(tmp_path: Path) -> None:
    suite, runs = _files(tmp_path)
    out = tmp_path / "report.json"
    assert (
        main(["score", str(runs), "--suite", str(suite), "--json", str(out), "--junit", str(out)])
        == 2
    )
    assert not out.exists()


@pytest.mark.parametrize("command", ["score", "variance"])
def test_score_and_variance_flag_a_duplicated_run(
    tmp_path: Path, command: str, caplog: pytest.LogCaptureFixture
) -> None:
    suite, runs = _files(tmp_path)
    line = runs.read_text(encoding="utf-8")
    runs.write_text(line + "\n" + line, encoding="utf-8")
    with caplog.at_level("WARNING", logger="pathjudge"):
        assert main([command, str(runs), "--suite", str(suite)]) == 0
    assert f"{runs}:3" in caplog.text
    assert "repeat a (task, epoch)" in caplog.text


def test_the_readme_support_example_still_scores(capsys: pytest.CaptureFixture[str]) -> None:
    # four distinct runs (run-A..D) of one task at epoch 0: flagged, never refused
    examples = REPO / "examples" / "docent"
    argv = [
        "score",
        str(examples / "support-runs.jsonl"),
        "--suite",
        str(examples / "support-suite.yaml"),
    ]
    assert main(argv) in (0, 1)


def test_every_documented_command_on_the_shipped_examples_exits_0_or_1(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import re
    import shlex

    monkeypatch.chdir(REPO)
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    text = "\n".join(page.read_text(encoding="utf-8") for page in pages)
    commands = [
        shlex.split(found.split("#")[0])
        for found in re.findall(r"pathjudge ((?:score|show|variance|diff|mutate) [^\n`]+)", text)
        if "examples/" in found and "\\" not in found
    ]
    assert commands  # the Quick start's score of examples/docent at least
    for argv in commands:
        argv = [arg for arg in argv if arg]
        outputs = {"--json", "--junit", "--html", "--markdown", "--grades", "-o"}
        argv = [
            str(tmp_path / Path(arg).name) if i and argv[i - 1] in outputs else arg
            for i, arg in enumerate(argv)
        ]
        assert main(argv) in (0, 1), argv
