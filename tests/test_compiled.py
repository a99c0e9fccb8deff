"""The compiled core: which modules it is, that they can be compiled as they are, and the wheel hook.

The compilation itself takes minutes, so it is not done here: CI builds the wheel, installs it in a
venv of its own and runs this whole suite against it (``.ci/run``). These tests run against whichever
core is installed and pin what both must keep: the list of compiled modules, the pydantic setting a
compiled module's models need, the hook's choice between a compiled and a pure wheel, and the
reference shapes that would recurse past any stack.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from pathjudge._compiled import COMPILED, FUNCTION_TYPES, MODULES

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "pathjudge"

sys.path.insert(0, str(REPO))
try:
    import hatch_build
finally:
    sys.path.remove(str(REPO))


def _module(name: str) -> Any:
    return importlib.import_module("pathjudge." + name.replace("/", "."))


def test_every_compiled_module_exists_once() -> None:
    missing = [name for name in MODULES if not (PACKAGE / f"{name}.py").is_file()]
    assert not missing, f"pathjudge._compiled.MODULES names modules the package lacks: {missing}"
    assert len(set(MODULES)) == len(MODULES)
    # the grading loop, the alignment, the checks and the run records are in the core
    for name in ("_compiled", "scoring/grade", "scoring/chunk", "rubrics/path", "agent/trajectory"):
        assert name in MODULES


def test_the_build_hook_reads_the_same_list() -> None:
    assert hatch_build.compiled_modules(PACKAGE) == MODULES


def test_the_flag_says_which_core_runs() -> None:
    # all of the core is compiled or none of it: a wheel is built whole or pure
    kinds = {name: Path(_module(name).__file__).suffix != ".py" for name in MODULES}
    assert set(kinds.values()) == {COMPILED}, kinds
    assert bool(FUNCTION_TYPES) == COMPILED


@pytest.mark.parametrize("name", MODULES)
def test_every_model_of_a_compiled_module_ignores_compiled_functions(name: str) -> None:
    # pydantic takes a class attribute of a type it does not know (a compiled method is one) for a
    # field without an annotation; each model of a compiled module must list FUNCTION_TYPES in
    # ignored_types (an empty tuple in the pure core, so this checks the setting is there at all)
    module = _module(name)
    models = [
        value
        for value in vars(module).values()
        if inspect.isclass(value) and value.__module__ == module.__name__
    ]
    for model in models:
        if issubclass(model, BaseModel):
            config = model.model_config
        elif dataclasses.is_dataclass(model) and hasattr(model, "__pydantic_config__"):
            config = model.__pydantic_config__
        else:
            continue
        assert "ignored_types" in config, f"{model.__qualname__} lacks ignored_types"
        assert set(FUNCTION_TYPES) <= set(config["ignored_types"])


def test_version_names_the_core() -> None:
    from typer.testing import CliRunner

    from pathjudge._cli.app import app

    out = CliRunner().invoke(app, ["--version"]).output
    assert out.strip().endswith("(compiled core)" if COMPILED else "(pure Python core)")


# --- the wheel's build hook ------------------------------------------------------------------------


class _App:
    def __init__(self) -> None:
        self.said: list[tuple[str, str]] = []

    def display_info(self, message: str) -> None:
        self.said.append(("info", message))

    def display_warning(self, message: str) -> None:
        self.said.append(("warning", message))


def _hook(tmp_path: Path, target: str = "wheel") -> tuple[Any, _App]:
    app = _App()
    hook = hatch_build.CompiledCore(str(REPO), {}, None, None, str(tmp_path), target, app)
    return hook, app


def _data() -> dict[str, Any]:
    return {"force_include": {}, "pure_python": True, "infer_tag": False}


def test_a_standard_wheel_ships_the_compiled_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Path] = []

    def fake(package: Path, work: Path) -> dict[str, str]:
        seen.append(package)
        return {str(work / "x.so"): "pathjudge/x.so"}

    monkeypatch.setattr(hatch_build, "build_compiled", fake)
    monkeypatch.delenv("PATHJUDGE_PURE", raising=False)
    hook, app = _hook(tmp_path)
    data = _data()
    hook.initialize("standard", data)
    assert seen == [PACKAGE]
    assert list(data["force_include"].values()) == ["pathjudge/x.so"]
    assert (data["pure_python"], data["infer_tag"]) == (False, True)  # a platform wheel
    assert app.said == [("info", "pathjudge: compiled 1 modules of the grading core")]
    work = Path(next(iter(data["force_include"]))).parent
    hook.finalize("standard", data, str(tmp_path / "the.whl"))
    assert not work.exists()  # the build folder is removed once the wheel is written


@pytest.mark.parametrize(
    ("target", "version", "pure"),
    [("wheel", "editable", ""), ("sdist", "standard", ""), ("wheel", "standard", "1")],
    ids=["editable install", "sdist", "PATHJUDGE_PURE=1"],
)
def test_no_compiled_core_where_it_does_not_belong(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str, version: str, pure: str
) -> None:
    def fail(package: Path, work: Path) -> dict[str, str]:
        raise AssertionError("nothing is compiled here")

    monkeypatch.setattr(hatch_build, "build_compiled", fail)
    monkeypatch.setenv("PATHJUDGE_PURE", pure)
    hook, _ = _hook(tmp_path, target)
    data = _data()
    hook.initialize(version, data)
    assert data == _data()


def test_a_failed_build_installs_the_pure_core_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(package: Path, work: Path) -> dict[str, str]:
        raise RuntimeError("error: command 'cc' failed: No such file or directory")

    monkeypatch.setattr(hatch_build, "build_compiled", fail)
    monkeypatch.delenv("PATHJUDGE_PURE", raising=False)
    hook, app = _hook(tmp_path)
    data = _data()
    hook.initialize("standard", data)
    assert data == _data()
    [(kind, message)] = app.said
    assert kind == "warning"
    assert "pure modules" in message
    assert "command 'cc' failed" in message


def test_the_build_lays_the_sources_out_as_packages(tmp_path: Path) -> None:
    # Cython names a module after the folders above it that hold an __init__.py; the build copies
    # the core's sources with one in every folder (the compiler itself is not run here: the child
    # process cannot start)
    work = tmp_path / "work"
    work.mkdir()
    real = sys.executable
    try:
        sys.executable = str(tmp_path / "no-python-here")
        with pytest.raises(OSError):
            hatch_build.build_compiled(PACKAGE, work)
    finally:
        sys.executable = real
    assert (work / "pathjudge" / "scoring" / "grade.py").is_file()  # the sources were laid out
    assert (work / "pathjudge" / "scoring" / "__init__.py").is_file()
