"""Grade shards and their manifest are data: every shard path, line and number is checked.

``report --grades FOLDER`` reads ``manifest.json`` and the shards it lists (``score --engine ray
--grades``); a folder from elsewhere may name any path, hold a FIFO or a deep or non-finite line.
Every problem is one line naming the file, the line and the field, exit 2, never a hang.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import pathjudge.cli
from pathjudge._cli.app import main
from pathjudge.errors import RecordError
from pathjudge.ray import read_grades_file, read_grades_manifest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "docent"
SRC = Path(pathjudge.cli.__file__).resolve().parents[1]
"""The sources this test process imports: the subprocesses run the same ones."""


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[bytes]]:
    """A score report and the grade lines ``score --grades`` wrote for the docent example."""
    folder = tmp_path_factory.mktemp("graded")
    grades = folder / "grades.jsonl"
    report = folder / "report.json"
    code = main(
        ["score", str(EXAMPLES / "runs.jsonl"), "--suite", str(EXAMPLES / "suite.yaml"),
         "--fast", "--grades", str(grades), "--json", str(report), "-q"]
    )  # fmt: skip
    assert code in (0, 1)
    return report, grades.read_bytes().splitlines(keepends=True)


def _folder(base: Path, shards: dict[str, bytes | None], names: list[str] | None = None) -> Path:
    """A grades folder: its shards (None: not written) and a manifest listing ``names``."""
    base.mkdir()
    for name, data in shards.items():
        if data is not None:
            (base / name).write_bytes(data)
    listed = list(shards) if names is None else names
    manifest = {
        "kind": "pathjudge.grades",
        "schema_version": 1,
        "format": "jsonl",
        "runs": 1,
        "shards": [{"path": name, "runs": 1} for name in listed],
    }
    (base / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return base


def _report(report: Path, grades: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``pathjudge report --grades`` in a bounded subprocess (a hang fails the test)."""
    return subprocess.run(
        [sys.executable, "-m", "pathjudge", "report", str(report), "-o", str(cwd / "r.html"),
         "--grades", str(grades)],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )  # fmt: skip


def test_the_grades_of_a_shard_folder_are_read_in_manifest_order(
    tmp_path: Path, graded: tuple[Path, list[bytes]]
) -> None:
    _, lines = graded
    folder = _folder(
        tmp_path / "g", {"part-1.jsonl": b"".join(lines[2:]), "part-0.jsonl": b"".join(lines[:2])},
        names=["part-0.jsonl", "part-1.jsonl"],
    )  # fmt: skip
    got = [g.run_id for g in read_grades_manifest(folder)]
    assert got == [json.loads(line)["run_id"] for line in lines]


def test_a_nul_byte_in_a_shard_path_is_exit_2_naming_the_manifest_field(
    tmp_path: Path, graded: tuple[Path, list[bytes]]
) -> None:
    report, _ = graded
    folder = _folder(tmp_path / "g", {"part\x00x.jsonl": None})
    done = _report(report, folder, tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"{folder}/manifest.json:" in done.stderr
    assert "field 'shards[0].path'" in done.stderr
    assert not (tmp_path / "r.html").exists()


def test_a_fifo_as_a_shard_is_refused_without_waiting_for_a_writer(
    tmp_path: Path, graded: tuple[Path, list[bytes]]
) -> None:
    report, _ = graded
    folder = _folder(tmp_path / "g", {"part-0.jsonl": None})
    os.mkfifo(folder / "part-0.jsonl")
    done = _report(report, folder, tmp_path)  # before the fix: waits for ever (timeout)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"{folder}/part-0.jsonl: is a FIFO (named pipe), not a regular file" in done.stderr
    with pytest.raises(RecordError, match="FIFO"):
        list(read_grades_file(str(folder / "part-0.jsonl")))  # named directly: refused too


def test_a_shard_that_is_a_device_or_a_symlink_out_of_the_folder_is_refused(
    tmp_path: Path, graded: tuple[Path, list[bytes]]
) -> None:
    _, lines = graded
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_bytes(lines[0])
    folder = _folder(tmp_path / "g", {"part-0.jsonl": None, "part-1.jsonl": None})
    (folder / "part-0.jsonl").symlink_to(outside)
    (folder / "part-1.jsonl").symlink_to("/dev/zero")
    with pytest.raises(RecordError, match="lies outside its folder") as info:
        list(read_grades_manifest(folder))
    assert info.value.file == str(folder / "part-0.jsonl")
    with pytest.raises(RecordError, match="character device"):
        list(read_grades_file(str(folder / "part-1.jsonl")))


@pytest.mark.parametrize("where", ["manifest", "shard"])
def test_json_nested_100k_deep_names_the_file_and_line(
    tmp_path: Path, graded: tuple[Path, list[bytes]], where: str
) -> None:
    report, lines = graded
    deep = b'{"run_id": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
    folder = _folder(tmp_path / "g", {"part-0.jsonl": lines[0] + deep})
    if where == "manifest":
        (folder / "manifest.json").write_bytes(b"\n" + deep)
    done = _report(report, folder, tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    expected = f"{folder}/manifest.json:2:" if where == "manifest" else f"{folder}/part-0.jsonl:2:"
    assert expected in done.stderr
    assert "nested more than 200 levels deep" in done.stderr


@pytest.mark.parametrize(
    ("number", "said"),
    [("NaN", "NaN"), ("Infinity", "an infinity"), ("-Infinity", "an infinity"), ("1e400", "an infinity")],
)  # fmt: skip
def test_a_non_finite_number_in_a_grade_names_file_line_and_field(
    tmp_path: Path, graded: tuple[Path, list[bytes]], number: str, said: str
) -> None:
    _, lines = graded
    record = json.loads(lines[1])
    assert isinstance(record["tool_calls"], float)
    bad = lines[1].replace(b'"tool_calls":' + json.dumps(record["tool_calls"]).encode(),
                           b'"tool_calls":' + number.encode())  # fmt: skip
    assert bad != lines[1]
    shard = tmp_path / "part-0.jsonl"
    shard.write_bytes(lines[0] + bad)
    with pytest.raises(RecordError) as info:
        list(read_grades_file(str(shard)))
    assert (info.value.file, info.value.line, info.value.field) == (str(shard), 2, "tool_calls")
    assert f"holds a number JSON cannot carry: {said}" in info.value.message


def test_a_grade_line_that_is_not_a_grade_names_its_field(
    tmp_path: Path, graded: tuple[Path, list[bytes]]
) -> None:
    _, lines = graded
    record = json.loads(lines[0])
    record["steps"] = "many"
    shard = tmp_path / "part-0.jsonl"
    shard.write_text(json.dumps(record) + "\n")
    with pytest.raises(RecordError) as info:
        list(read_grades_file(str(shard)))
    assert (info.value.line, info.value.field) == (1, "steps")


def test_report_never_writes_over_a_shard_or_the_runs_file_it_reads(
    tmp_path: Path, graded: tuple[Path, list[bytes]], capsys: pytest.CaptureFixture[str]
) -> None:
    _, lines = graded
    runs = tmp_path / "runs.jsonl"
    runs.write_bytes((EXAMPLES / "runs.jsonl").read_bytes())
    report = tmp_path / "report.json"
    code = main(
        ["score", str(runs), "--suite", str(EXAMPLES / "suite.yaml"), "--fast", "--json",
         str(report), "-q"]
    )  # fmt: skip
    assert code in (0, 1)
    folder = _folder(tmp_path / "g", {"part-0.jsonl": b"".join(lines)})
    kept = {p: p.read_bytes() for p in (runs, folder / "part-0.jsonl")}
    for output in (folder / "part-0.jsonl", runs):  # a listed shard; the runs the report names
        for option in ("-o", "--markdown"):
            argv = ["report", str(report), "-o", str(tmp_path / "r.html"), "--grades", str(folder)]
            argv += [option, str(output)]
            assert main(argv) == 2
            err = capsys.readouterr().err
            assert f"{output}:" in err
            assert "is also an input of this command" in err
    assert {p: p.read_bytes() for p in kept} == kept
