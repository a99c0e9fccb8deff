"""The compiled core: which modules it is, how an install ships it and when it is loaded.

The compilation itself takes minutes, so it is not done here: every install from the source
compiles the core, so CI runs the README's test command against it, the whole suite again with
``PATHJUDGE_PURE=1``, and these tests against a standard wheel it builds (``.ci/run``). These tests
run against whichever core is installed and pin what both must keep: the list of compiled modules,
the pydantic setting a compiled module's models need, the build hook's choice and cache, the
loader's all-or-nothing choice (a changed source is never run compiled), and the reference shapes
that would recurse past any stack.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from pathjudge._compiled import COMPILED, FUNCTION_TYPES, MODULES
from pathjudge._core_loader import (
    CORE_FOLDER,
    MANIFEST,
    STATUS,
    find_core,
    manifest_text,
    plan,
    source_digest,
)

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
    # all of the core is compiled or none of it: a core is built and loaded whole, or not at all
    kinds = {name: Path(_module(name).__file__).suffix != ".py" for name in MODULES}
    assert set(kinds.values()) == {COMPILED}, kinds
    assert bool(FUNCTION_TYPES) == COMPILED
    assert (STATUS == "compiled core") == COMPILED, STATUS


def test_pathjudge_pure_runs_the_pure_core_and_says_so(tmp_path: Path) -> None:
    code = (
        "import pathjudge, pathjudge._compiled as c, pathjudge._core_loader as l;"
        "print(c.COMPILED, l.STATUS, sep='|')"
    )
    env = {**os.environ, "PATHJUDGE_PURE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "False|pure Python core: PATHJUDGE_PURE is set"


def test_a_changed_source_runs_the_whole_core_pure(tmp_path: Path) -> None:
    # the installed compiled core loads for the sources it was compiled from, wherever they are,
    # and for no other: a copy of the package runs compiled as it is, and pure once one of the
    # core's modules changes (a stale extension never runs)
    core = find_core(PACKAGE, sys.path)
    if core is None or os.environ.get("PATHJUDGE_PURE", "").strip() not in ("", "0"):
        pytest.skip("no compiled core is installed here (or PATHJUDGE_PURE is set)")
    copy = tmp_path / "src"
    shutil.copytree(PACKAGE, copy / "pathjudge", ignore=shutil.ignore_patterns("__pycache__"))
    code = (
        "import pathjudge, pathjudge._compiled as c, pathjudge._core_loader as l,"
        " pathjudge.rubrics.path as p; print(c.COMPILED, p.__file__, l.STATUS, sep='|')"
    )
    env = {k: v for k, v in os.environ.items() if k != "PATHJUDGE_PURE"}
    env["PYTHONPATH"] = str(copy)

    def run() -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        return done.stdout.strip().split("|")

    compiled, path_file, status = run()
    assert (compiled, status) == ("True", "compiled core")
    assert Path(path_file).is_relative_to(core)
    edited = copy / "pathjudge" / "rubrics" / "path.py"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    compiled, path_file, status = run()
    assert compiled == "False"
    assert Path(path_file) == edited
    assert "out of date" in status
    assert str(edited) in status


# --- the loader's choice --------------------------------------------------------------------------


def _layout(tmp_path: Path, names: tuple[str, ...] = ("_compiled", "rubrics/path")) -> Path:
    """A package folder with ``names`` as sources and, beside it, a core compiled from them (the
    extensions are empty files: the loader's choice never opens them)."""
    package = tmp_path / "site" / "pathjudge"
    core = tmp_path / "site" / CORE_FOLDER
    digests = {}
    for name in names:
        source = package / f"{name}.py"
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text(f"# {name}\n", encoding="utf-8")
        digests[name] = source_digest(source.read_bytes())
        extension = core / "pathjudge" / f"{name}{EXTENSION_SUFFIXES[0]}"
        extension.parent.mkdir(parents=True, exist_ok=True)
        extension.write_bytes(b"")
    (core / MANIFEST).write_text(manifest_text(EXTENSION_SUFFIXES[0], digests), encoding="utf-8")
    return package


def test_the_loader_maps_each_module_to_its_extension(tmp_path: Path) -> None:
    package = _layout(tmp_path)
    modules, status = plan(package, [], {})
    assert status == "compiled core"
    core = package.parent / CORE_FOLDER / "pathjudge"
    assert modules == {
        "pathjudge._compiled": str(core / f"_compiled{EXTENSION_SUFFIXES[0]}"),
        "pathjudge.rubrics.path": str(core / "rubrics" / f"path{EXTENSION_SUFFIXES[0]}"),
    }


def test_the_loader_finds_an_editable_install_core_on_sys_path(tmp_path: Path) -> None:
    package = _layout(tmp_path)
    checkout = tmp_path / "checkout" / "pathjudge"  # the package elsewhere, its core on sys.path
    shutil.copytree(package, checkout)
    modules, status = plan(checkout, ["", str(tmp_path / "nowhere"), str(package.parent)], {})
    assert status == "compiled core"
    assert len(modules) == 2
    assert plan(checkout, [str(tmp_path)], {}) == ({}, "pure Python core")  # no core there


@pytest.mark.parametrize("pure", ["1", "yes", " 1 "])
def test_the_loader_stays_pure_when_asked(tmp_path: Path, pure: str) -> None:
    package = _layout(tmp_path)
    assert plan(package, [], {"PATHJUDGE_PURE": pure}) == (
        {},
        "pure Python core: PATHJUDGE_PURE is set",
    )
    assert plan(package, [], {"PATHJUDGE_PURE": "0"})[1] == "compiled core"


def test_one_changed_source_makes_the_whole_core_pure(tmp_path: Path) -> None:
    package = _layout(tmp_path)
    (package / "rubrics" / "path.py").write_text("# path, edited\n", encoding="utf-8")
    modules, status = plan(package, [], {})
    assert modules == {}
    assert status.startswith("pure Python core: the compiled core is out of date (")
    assert str(package / "rubrics" / "path.py") in status
    (package / "rubrics" / "path.py").unlink()  # a missing source too
    assert plan(package, [], {})[0] == {}


def test_a_core_for_another_python_or_incomplete_is_not_loaded(tmp_path: Path) -> None:
    package = _layout(tmp_path)
    manifest = package.parent / CORE_FOLDER / MANIFEST
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(
        text.replace(EXTENSION_SUFFIXES[0], ".cpython-399-x86_64-linux-gnu.so", 1),
        encoding="utf-8",
    )
    modules, status = plan(package, [], {})
    assert modules == {}
    assert "built for another Python (.cpython-399-x86_64-linux-gnu.so)" in status
    manifest.write_text(text, encoding="utf-8")
    extension = package.parent / CORE_FOLDER / "pathjudge" / f"_compiled{EXTENSION_SUFFIXES[0]}"
    extension.unlink()
    assert plan(package, [], {}) == ({}, f"pure Python core: the compiled core lacks {extension}")
    manifest.write_text("something else\n", encoding="utf-8")
    assert "is not a manifest this pathjudge reads" in plan(package, [], {})[1]
    manifest.write_text(manifest_text(EXTENSION_SUFFIXES[0], {}), encoding="utf-8")
    assert "names no module" in plan(package, [], {})[1]


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
    assert out.strip() == f"pathjudge 0.1.0 ({'compiled core' if COMPILED else STATUS})"


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
    return {
        "force_include": {},
        "force_include_editable": {},
        "pure_python": True,
        "infer_tag": False,
    }


def _fake_compiler(calls: list[Path]) -> Any:
    """A stand-in for the Cython build: writes an empty extension for each module."""
    suffix = hatch_build.EXT_SUFFIX

    def fake(package: Path, work: Path) -> dict[str, str]:
        calls.append(package)
        built = {}
        for name in MODULES:
            extension = work / "pathjudge" / f"{name}{suffix}"
            extension.parent.mkdir(parents=True, exist_ok=True)
            extension.write_bytes(name.encode())
            built[str(extension)] = f"pathjudge/{name}{suffix}"
        return built

    return fake


@pytest.mark.parametrize(
    ("version", "key"),
    [("standard", "force_include"), ("editable", "force_include_editable")],
    ids=["pip install .", "pip install -e ."],
)
def test_a_wheel_installs_the_compiled_core_and_its_manifest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str, key: str
) -> None:
    calls: list[Path] = []
    monkeypatch.setattr(hatch_build, "build_compiled", _fake_compiler(calls))
    monkeypatch.setattr(hatch_build, "CACHE", tmp_path / "cache")
    monkeypatch.delenv("PATHJUDGE_PURE", raising=False)
    hook, app = _hook(tmp_path)
    data = _data()
    hook.initialize(version, data)
    assert calls == [PACKAGE]
    files = data[key]
    assert data["force_include" if key != "force_include" else "force_include_editable"] == {}
    suffix = hatch_build.EXT_SUFFIX
    assert sorted(files.values()) == sorted(
        [f"{CORE_FOLDER}/{MANIFEST}", *(f"{CORE_FOLDER}/pathjudge/{n}{suffix}" for n in MODULES)]
    )
    assert (data["pure_python"], data["infer_tag"]) == (False, True)  # a platform wheel
    assert app.said == [("info", f"pathjudge: compiled {len(MODULES)} modules of the grading core")]
    # the manifest names this interpreter and these sources: the loader takes it as it is installed
    site = tmp_path / "site"
    shutil.copytree(PACKAGE, site / "pathjudge", ignore=shutil.ignore_patterns("__pycache__"))
    for built, in_wheel in files.items():
        (site / in_wheel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, site / in_wheel)
    modules, status = plan(site / "pathjudge", [], {})
    assert (len(modules), status) == (len(MODULES), "compiled core")
    work = Path(hook._work)
    hook.finalize(version, data, str(tmp_path / "the.whl"))
    assert not work.exists()  # the build folder is removed once the wheel is written

    # a second build of the same sources reuses the cached one: nothing is compiled again
    hook, _ = _hook(tmp_path)
    again = _data()
    hook.initialize(version, again)
    assert calls == [PACKAGE]
    assert sorted(again[key].values()) == sorted(files.values())
    hook.finalize(version, again, str(tmp_path / "the.whl"))


def test_the_cache_key_follows_every_compiled_source(tmp_path: Path) -> None:
    package = tmp_path / "pathjudge"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    key = hatch_build.build_key(hatch_build.source_digests(package))
    assert hatch_build.build_key(hatch_build.source_digests(package)) == key
    (package / "cli.py").write_text("# not compiled\n", encoding="utf-8")
    assert hatch_build.build_key(hatch_build.source_digests(package)) == key
    grade = package / "scoring" / "grade.py"
    grade.write_text(grade.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert hatch_build.build_key(hatch_build.source_digests(package)) != key


def test_the_cache_keeps_the_newest_builds(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    for age, name in enumerate(["d", "c", "b", "a"]):
        (cache / name).mkdir(parents=True)
        os.utime(cache / name, (1_000_000 - age * 100, 1_000_000 - age * 100))
    hatch_build._prune(cache)
    assert sorted(p.name for p in cache.iterdir()) == ["b", "c", "d"]


@pytest.mark.parametrize(
    ("target", "version", "pure"),
    [("sdist", "standard", ""), ("wheel", "standard", "1"), ("wheel", "editable", "1")],
    ids=["sdist", "PATHJUDGE_PURE=1", "PATHJUDGE_PURE=1 editable"],
)
def test_no_compiled_core_where_it_does_not_belong(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str, version: str, pure: str
) -> None:
    def fail(package: Path, work: Path) -> dict[str, str]:
        raise AssertionError("nothing is compiled here")

    monkeypatch.setattr(hatch_build, "build_compiled", fail)
    monkeypatch.setattr(hatch_build, "CACHE", tmp_path / "cache")
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
    monkeypatch.setattr(hatch_build, "CACHE", tmp_path / "cache")
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
