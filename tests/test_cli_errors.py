"""The CLI on bad input: one clear line naming file:line (and field), exit 2, never a traceback.

Each case runs ``python -m pathjudge`` in a subprocess, the way a user would.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

GOOD = json.dumps({"run_id": "r1", "task_id": "t1"})


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pathjudge", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def _lines(path: Path, second: bytes) -> Path:
    path.write_bytes(GOOD.encode() + b"\n" + second + b"\n")
    return path


def _big_line(path: Path) -> Path:
    with path.open("wb") as handle:
        handle.write(GOOD.encode() + b"\n")
        handle.write(b'{"run_id": "' + b"x" * (70 * 1024 * 1024) + b'"}\n')
    return path


# name: (make the file, expected fragment of the one stderr line, line number or None)
SHOW_CASES: dict[str, tuple[Callable[[Path], Path], str, int | None]] = {
    "truncated line": (lambda p: _lines(p, GOOD[:-5].encode()), "not valid JSON", 2),
    "wrong type": (
        lambda p: _lines(p, b'{"run_id": "r", "task_id": "t", "steps": {"tool": 1}}'),
        "field 'steps'",
        2,
    ),
    "unknown field": (
        lambda p: _lines(p, b'{"run_id": "r", "task_id": "t", "score": 1}'),
        "field 'score': unknown field",
        2,
    ),
    "non-utf8": (lambda p: _lines(p, b'{"run_id": "\xff\xfe"}'), "not valid UTF-8", 2),
    "newer schema": (
        lambda p: _lines(p, b'{"schema_version": 3, "run_id": "r", "task_id": "t"}'),
        "upgrade pathjudge",
        2,
    ),
    "70 MB line": (_big_line, "over the limit", 2),
    "empty file": (lambda p: (p.write_bytes(b""), p)[1], "has no run records", None),
    "missing file": (lambda p: p, "file not found", None),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(SHOW_CASES))
def test_show_bad_input(tmp_path: Path, case: str) -> None:
    make, fragment, line = SHOW_CASES[case]
    path = make(tmp_path / "runs.jsonl")
    done = run_cli("show", str(path), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    message = done.stderr.strip()
    assert "\n" not in message, message
    assert fragment in message
    location = f"{path}:{line}:" if line is not None else f"{path}:"
    assert location in message


IMPORT_CASES: dict[str, tuple[str, Callable[[Path], bytes | None], str, int | None]] = {
    "truncated json": (
        "t.json",
        lambda p: b'[{"role": "user", "content": "hi"},\n {"role": ',
        "not valid JSON",
        2,
    ),
    "non-utf8 json": (
        "t.json",
        lambda p: b'[{"role": "user",\n "content": "\xe9"}]',
        "not valid UTF-8",
        2,
    ),
    "truncated jsonl line": (
        "t.jsonl",
        lambda p: b'[{"role": "user", "content": "a"}]\n[{"role": \n',
        "not valid JSON",
        2,
    ),
    "70 MB jsonl line": (
        "t.jsonl",
        lambda p: b'["' + b"y" * (70 * 1024 * 1024) + b'"]\n',
        "over the limit",
        1,
    ),
    "wrong type": (
        "t.jsonl",
        lambda p: b'{"messages": [{"role": 7}]}\n',
        "field 'messages[0].role'",
        1,
    ),
    "empty file": ("t.json", lambda p: b"", "has no transcripts", None),
    "missing file": ("t.json", lambda p: None, "file not found", None),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(IMPORT_CASES))
def test_import_bad_input(tmp_path: Path, case: str) -> None:
    name, content, fragment, line = IMPORT_CASES[case]
    path = tmp_path / name
    data = content(path)
    if data is not None:
        path.write_bytes(data)
    out = tmp_path / "runs.jsonl"
    done = run_cli("import", "--from", "anthropic", str(path), "-o", str(out), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    message = done.stderr.strip()
    assert "\n" not in message, message
    assert fragment in message
    assert (f"{path}:{line}:" if line is not None else f"{path}:") in message
    assert not out.exists()  # nothing half-written


@pytest.mark.slow
def test_import_keep_going_and_usage_errors(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(
        b'[{"role": "user", "content": "a"}]\n{"messages": 5}\n[{"role": "user", "content": "b"}]\n'
    )
    out = tmp_path / "runs.jsonl"
    done = run_cli(
        "import", "--from", "anthropic", str(path), "-o", str(out), "--keep-going", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert f"skipped: {path}:2: field 'messages'" in done.stderr
    assert "imported 2 runs" in done.stdout
    assert "1 skipped" in done.stdout
    assert out.read_text().count("\n") == 2

    for args in (
        ["import", "--from", "yaml", str(path), "-o", str(out)],
        ["import", "--from", "anthropic", str(path)],
        ["import", "--from", "anthropic", "-o", str(out)],
        ["import", "--from", "anthropic", str(path), "--session", "s", "-o", str(out)],
        ["show", "--no-such-option", str(out)],
        ["no-such-command"],
    ):
        done = run_cli(*args, cwd=tmp_path)
        assert done.returncode == 2, (args, done.stderr)
        assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_import_then_show_real_tau_bench(tmp_path: Path, shared_data: Path) -> None:
    source = shared_data / "tau_bench_sample" / "gpt-4o-airline.sample3.json"
    out = tmp_path / "tau.jsonl"
    done = run_cli("import", "--from", "openai-chat", str(source), "-o", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "imported 3 runs" in done.stdout
    assert "13 tool calls" in done.stdout
    shown = run_cli("show", "--json", "-", str(out), cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    summary = json.loads(shown.stdout)
    assert (summary["runs"], summary["steps"], summary["errors"]) == (3, 13, 0)
