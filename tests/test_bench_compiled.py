"""``benchmarks/bench_compiled.py`` names real modules and says what it lacks instead of failing.

The benchmark itself compiles with Cython and takes minutes, so it is not run here; these checks keep
its list of hot modules in step with the package (a renamed module would otherwise drop out of the
measurement, or break it) and pin its refusal when Cython or a compiler is missing.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "pathjudge"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    path = REPO / "benchmarks" / "bench_compiled.py"
    spec = importlib.util.spec_from_file_location("bench_compiled", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


def test_every_hot_module_exists(bench: ModuleType) -> None:
    missing = [name for name in bench.HOT if not (PACKAGE / f"{name}.py").is_file()]
    assert not missing, f"bench_compiled.HOT names modules the package lacks: {missing}"
    assert len(set(bench.HOT)) == len(bench.HOT)


def test_the_modules_a_graded_run_spends_its_time_in_are_listed(bench: ModuleType) -> None:
    # the grading loop, the alignment, the checks and the run records must be among the compiled
    for name in ("scoring/grade", "scoring/chunk", "rubrics/path", "agent/trajectory"):
        assert name in bench.HOT


def test_it_names_what_is_missing(bench: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        bench.importlib.util,
        "find_spec",
        lambda name, *rest: None if name == "Cython" else real(name, *rest),
    )
    assert bench._missing() == "Cython is not installed (pip install cython setuptools)"


def test_it_names_a_missing_compiler(bench: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench.importlib.util, "find_spec", lambda name, *rest: object())
    monkeypatch.setattr(bench.shutil, "which", lambda name: None)
    assert bench._missing() == "no C compiler found (cc, gcc or clang)"


def test_it_stops_with_a_message_when_something_is_missing(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(bench, "_missing", lambda: "no C compiler found (cc, gcc or clang)")
    monkeypatch.setattr(sys, "argv", ["bench_compiled.py"])
    bench.main()  # returns before building anything
    assert capsys.readouterr().out == "skipped: no C compiler found (cc, gcc or clang)\n"
