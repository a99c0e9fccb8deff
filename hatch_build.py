"""The compiled core: the hot modules compiled with Cython, installed as a folder of their own.

hatchling calls :class:`CompiledCore` when it builds a wheel, standard (``pip install .``,
``pip wheel .``, ``python -m build``) or editable (``pip install -e .``). It compiles the modules
listed in ``src/pathjudge/_compiled.py`` (``MODULES``), unchanged: ``annotation_typing=False``, so
no type annotation changes what a value is, and ``binding=True``, so a compiled function behaves as a
Python function does (methods bind, ``inspect`` sees a signature). The wheel installs them in
``_pathjudge_core/`` with a ``MANIFEST`` that records the SHA-256 of each module's source; at import,
``pathjudge._core_loader`` loads them only while the package's sources are exactly those (an
editable install whose source you edit runs pure until it is reinstalled, never stale code).

A build of the same sources by the same interpreter and hook is cached in ``build/pathjudge-core/``
under the project (the three newest are kept), so a reinstall does not compile again.

It builds no compiled core, and the wheel is the pure modules alone, when:

- ``PATHJUDGE_PURE=1`` is set;
- Cython or a C compiler is missing, or the compilation fails: a warning says why, and the install
  goes on pure (the same results, slower; see docs/PERFORMANCE.md).

``pathjudge --version`` says which core runs, and where it is pure, why.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

_BUILD = """
import os
import sys
from Cython.Build import cythonize
from setuptools import setup
directives = {"language_level": 3, "annotation_typing": False, "binding": True}
cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
jobs = max(1, min(len(sys.argv) - 1, cores))
extensions = cythonize(sys.argv[1:], compiler_directives=directives, nthreads=jobs, quiet=True)
if os.name == "posix":
    # no debug information (a wheel of 3 MB, not 14), after the interpreter's own flags (-O3 kept:
    # setting CFLAGS instead would replace them in recent setuptools, and compile without -O)
    for extension in extensions:
        extension.extra_compile_args = [*extension.extra_compile_args, "-g0"]
setup(ext_modules=extensions, script_args=["build_ext", "--inplace", "--parallel", str(jobs)])
"""


EXT_SUFFIX: str = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
"""The file suffix of this interpreter's extension modules (what the build writes, what the
manifest names)."""


def compiled_modules(package: Path) -> tuple[str, ...]:
    """``MODULES`` of ``_compiled.py`` in the ``package`` folder, read as a literal (the package is
    not imported at build time)."""
    tree = ast.parse((package / "_compiled.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == "MODULES" for t in targets):
                assert node.value is not None
                return tuple(ast.literal_eval(node.value))
    raise RuntimeError(f"{package / '_compiled.py'} defines no MODULES")


def build_compiled(package: Path, work: Path) -> dict[str, str]:
    """Compile the core of the ``package`` folder (``src/pathjudge``) in ``work``; ``{built file:
    its path in the wheel}``. Raises ``RuntimeError`` with the compiler's last words when the build
    fails."""
    modules = compiled_modules(package)
    source = work / "pathjudge"
    for name in modules:
        target = source / f"{name}.py"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(package / f"{name}.py", target)
        # an __init__.py in every folder up to the package: Cython names a module by its packages
        folder = target.parent
        while folder != work:
            (folder / "__init__.py").touch()
            folder = folder.parent
    done = subprocess.run(
        [sys.executable, "-c", _BUILD, *(f"pathjudge/{name}.py" for name in modules)],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise RuntimeError((done.stderr or done.stdout)[-2000:].strip())
    built: dict[str, str] = {}
    for name in modules:
        extension = source / f"{name}{EXT_SUFFIX}"
        if not extension.is_file():
            raise RuntimeError(f"the build wrote no {extension.name} for pathjudge/{name}.py")
        built[str(extension)] = f"pathjudge/{name}{EXT_SUFFIX}"
    return built


CACHE = Path("build") / "pathjudge-core"
"""Where, under the project root, the compiled builds are cached (:func:`cached_build`)."""

_KEEP = 3
"""How many cached builds are kept (the newest)."""


def _cython_version() -> str:
    try:
        import Cython  # the hook's build dependency

        return str(Cython.__version__)
    except ImportError:
        return "none"


def build_key(digests: dict[str, str]) -> str:
    """What a compiled build depends on, hashed: the interpreter's extension suffix and version,
    Cython's version, the build recipe and each compiled module's source (``digests``: module →
    the SHA-256 of its source, as the manifest records it)."""
    key = hashlib.sha256()
    for part in (EXT_SUFFIX, sys.version, _cython_version(), _BUILD, *digests.items()):
        key.update(str(part).encode("utf-8") + b"\0")
    return key.hexdigest()[:32]


def source_digests(package: Path) -> dict[str, str]:
    """Each compiled module of ``package`` → the SHA-256 of its source (the manifest's)."""
    loader = _core_loader(package)
    return {
        name: loader.source_digest((package / f"{name}.py").read_bytes())
        for name in compiled_modules(package)
    }


def cached_build(package: Path, cache: Path, work: Path) -> dict[str, str]:
    """:func:`build_compiled`, reusing a build of the same :func:`build_key` from ``cache`` and
    storing a new one there (a cache that cannot be written is skipped). ``{built file: its path
    in the wheel, under _pathjudge_core/}``, the ``MANIFEST`` included."""
    loader = _core_loader(package)
    digests = source_digests(package)
    key = build_key(digests)
    stored = cache / key
    names = [f"pathjudge/{name}{EXT_SUFFIX}" for name in digests]
    if all((stored / name).is_file() for name in names):
        with contextlib.suppress(OSError):
            os.utime(stored)  # the newest are kept
    else:
        built = build_compiled(package, work)
        partial = cache / f".{key}.{os.getpid()}"
        try:
            for built_file, in_wheel in built.items():
                (partial / in_wheel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(built_file, partial / in_wheel)
            shutil.rmtree(stored, ignore_errors=True)
            partial.rename(stored)
            _prune(cache)
        except OSError:  # a read-only project: no cache, the build is used from the work folder
            shutil.rmtree(partial, ignore_errors=True)
            stored = work
    manifest = work / loader.MANIFEST
    manifest.write_text(loader.manifest_text(EXT_SUFFIX, digests), encoding="utf-8")
    files = {str(stored / name): f"{loader.CORE_FOLDER}/{name}" for name in names}
    files[str(manifest)] = f"{loader.CORE_FOLDER}/{loader.MANIFEST}"
    return files


def _core_loader(package: Path) -> Any:
    """``pathjudge/_core_loader.py`` (the manifest's format), loaded from its file: the package
    itself is not importable at build time."""
    spec = importlib.util.spec_from_file_location(
        "_pathjudge_build_core_loader", package / "_core_loader.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _prune(cache: Path) -> None:
    builds = sorted(
        (entry for entry in cache.iterdir() if entry.is_dir() and not entry.name.startswith(".")),
        key=lambda entry: entry.stat().st_mtime,
        reverse=True,
    )
    for old in builds[_KEEP:]:
        shutil.rmtree(old, ignore_errors=True)


class CompiledCore(BuildHookInterface):  # type: ignore[type-arg]
    """Adds the compiled core to a wheel, standard or editable (see the module docstring)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        self._work: str | None = None
        if self.target_name != "wheel":
            return
        if os.environ.get("PATHJUDGE_PURE", "").strip() not in ("", "0"):
            self.app.display_info("pathjudge: PATHJUDGE_PURE is set; building the pure wheel")
            return
        self._work = tempfile.mkdtemp(prefix="pathjudge-compiled-")
        root = Path(self.root)
        try:
            files = cached_build(root / "src" / "pathjudge", root / CACHE, Path(self._work))
        except Exception as exc:  # no Cython, no compiler, a failed build: install pure
            self.app.display_warning(
                "pathjudge: the compiled core was not built, so this install is the pure modules "
                f"(the same results, slower): {exc}"
            )
            return
        build_data["force_include_editable" if version == "editable" else "force_include"].update(
            files
        )
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        self.app.display_info(f"pathjudge: compiled {len(files) - 1} modules of the grading core")

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self._work is not None:
            shutil.rmtree(self._work, ignore_errors=True)
