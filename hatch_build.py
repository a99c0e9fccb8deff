"""The wheel's compiled core: the hot modules compiled with Cython, each beside its ``.py`` source.

hatchling calls :class:`CompiledCore` when it builds a wheel. For a standard wheel (``pip install .``,
``pip wheel .``, ``python -m build``) it compiles the modules listed in
``src/pathjudge/_compiled.py`` (``MODULES``), unchanged: ``annotation_typing=False``, so no type
annotation changes what a value is, and ``binding=True``, so a compiled function behaves as a Python
function does (methods bind, ``inspect`` sees a signature). The wheel then holds both each ``.py`` and
its compiled extension; Python imports the extension.

It builds no compiled core, and the wheel is the pure modules alone, when:

- the build is an editable install (``pip install -e .``): an extension beside a source you edit
  would keep running the old code;
- ``PATHJUDGE_PURE=1`` is set;
- Cython or a C compiler is missing, or the compilation fails: a warning says why, and the install
  goes on pure (the same results, slower; see docs/PERFORMANCE.md).

``python -c "import pathjudge._compiled as c; print(c.COMPILED)"`` says which one is installed.
"""

from __future__ import annotations

import ast
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
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    built: dict[str, str] = {}
    for name in modules:
        extension = source / f"{name}{suffix}"
        if not extension.is_file():
            raise RuntimeError(f"the build wrote no {extension.name} for pathjudge/{name}.py")
        built[str(extension)] = f"pathjudge/{name}{suffix}"
    return built


class CompiledCore(BuildHookInterface):  # type: ignore[type-arg]
    """Adds the compiled core to a standard wheel (see the module docstring)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        self._work: str | None = None
        if self.target_name != "wheel" or version == "editable":
            return
        if os.environ.get("PATHJUDGE_PURE", "").strip() not in ("", "0"):
            self.app.display_info("pathjudge: PATHJUDGE_PURE is set; building the pure wheel")
            return
        self._work = tempfile.mkdtemp(prefix="pathjudge-compiled-")
        try:
            built = build_compiled(Path(self.root) / "src" / "pathjudge", Path(self._work))
        except Exception as exc:  # no Cython, no compiler, a failed build: install pure
            self.app.display_warning(
                "pathjudge: the compiled core was not built, so this install is the pure modules "
                f"(the same results, slower): {exc}"
            )
            return
        build_data["force_include"].update(built)
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        self.app.display_info(f"pathjudge: compiled {len(built)} modules of the grading core")

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self._work is not None:
            shutil.rmtree(self._work, ignore_errors=True)
