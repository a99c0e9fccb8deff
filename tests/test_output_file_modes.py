"""Files pathjudge writes get the mode a plainly created file would: 0o666 minus the umask."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from pathjudge._io import new_file_mode, write_jsonl
from pathjudge.agent.trajectory import RunRecord
from pathjudge.cli import main


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
