"""Grading the same inputs twice gives byte-identical JSON across separate processes with different
hash seeds (grading twice in one process cannot catch set and dict order)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def _score_json(repo: Path, out: Path, seed: str) -> bytes:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PATHJUDGE_", "ANTHROPIC_"))}
    env["PYTHONHASHSEED"] = seed
    docent = repo / "examples" / "docent"
    command = [
        sys.executable, "-m", "pathjudge", "score", str(docent / "runs.jsonl"),
        "--suite", str(docent / "suite.yaml"), "--json", str(out), "--include-runs", "-q",
    ]  # fmt: skip
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=out.parent,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return out.read_bytes()


def test_score_json_is_byte_identical_across_processes_and_hash_seeds(
    repo_root: Path, tmp_path: Path
) -> None:
    first = _score_json(repo_root, tmp_path / "a.json", "1")
    second = _score_json(repo_root, tmp_path / "b.json", "98765")
    assert first == second
    report = json.loads(first)
    assert len(report["runs"]) == 16  # the bundled Docent runs, every one graded
