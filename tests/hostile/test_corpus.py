"""Run the hostile corpus (``tests/hostile/corpus.py``) against the real CLI, each case in a bounded
subprocess: the right exit code, one clear line instead of a traceback, nothing run from a suite, no
key printed, and every protected file as it was."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.hostile.corpus import Case, build

REPO = Path(__file__).resolve().parents[2]


def _digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


def _check(case: Case, root: Path) -> str | None:
    """None when the case holds, else what went wrong."""
    before = {name: _digest(root / name) for name in case.unchanged}
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "NO_COLOR": "1", **case.env}
    env.pop("ANTHROPIC_API_KEY", None)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pathjudge", *case.argv],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=case.timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"did not finish within {case.timeout:g} s"
    output = done.stdout + done.stderr
    problems: list[str] = []
    if done.returncode not in case.expect:
        problems.append(f"exit {done.returncode}, expected one of {sorted(case.expect)}")
    for bad in ("Traceback", "RecursionError", "UnicodeDecodeError", "BadGzipFile"):
        if bad in output:
            problems.append(f"printed {bad}")
    if done.returncode == 2 and "error" not in done.stderr:
        problems.append("exit 2 without an error line")
    for wanted in case.stderr_has:
        if wanted not in done.stderr:
            problems.append(f"stderr lacks {wanted!r}")
    for secret in case.no_output_has:
        if secret in output:
            problems.append("printed a secret")
    for name in case.absent:
        if (root / name).exists():
            problems.append(f"{name} exists (code from the suite ran)")
    for name, digest in before.items():
        if _digest(root / name) != digest:
            problems.append(f"{name} changed")
    if problems:
        return "; ".join(problems) + f"\n  stderr: {done.stderr[-600:]}"
    return None


def test_every_hostile_case_is_handled(tmp_path: Path) -> None:
    cases = build(tmp_path)
    names = [case.name for case in cases]
    assert len(names) == len(set(names))
    classes = {case.klass for case in cases}
    assert {"code", "hang", "one_line", "secrets"} <= classes
    only = os.environ.get("PATHJUDGE_HOSTILE_ONLY")  # e.g. "alias_bomb,deep_" while debugging
    if only:
        cases = [c for c in cases if any(part in c.name for part in only.split(","))]
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(lambda case: (case.name, _check(case, tmp_path)), cases))
    failures = [f"{name}: {problem}" for name, problem in results if problem is not None]
    assert not failures, f"{len(failures)} of {len(cases)} cases failed:\n" + "\n".join(failures)


@pytest.mark.parametrize("klass", ["code", "hang", "one_line", "secrets"])
def test_the_corpus_covers_each_class(tmp_path: Path, klass: str) -> None:
    assert sum(case.klass == klass for case in build(tmp_path)) >= 2
