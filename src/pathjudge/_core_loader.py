"""Loading the compiled core, when one is installed and matches the sources exactly.

A wheel built with the compiled core (``pip install .`` and ``pip install -e .``; see
``hatch_build.py``) installs it as a folder of its own, ``_pathjudge_core``, beside the package (or,
for an editable install, in the environment's ``site-packages``): one compiled extension for each
module of :data:`pathjudge._compiled.MODULES`, and a ``MANIFEST`` naming the interpreter it was built
for and the SHA-256 of the source each extension was compiled from.

``pathjudge/__init__.py`` calls :func:`install` before any other pathjudge module is imported. When
the manifest is for this interpreter and every module's source in the imported package is the one it
names, a finder at the front of ``sys.meta_path`` loads those modules from their extensions. When any
source differs (an editable install whose source you edited since, a checkout on ``PYTHONPATH``),
the whole core runs pure: the modules are compiled together and a compiled module may need another
one's compiled form, so it is all or nothing. ``PATHJUDGE_PURE=1`` chooses the pure core too.
:data:`STATUS` says which core runs and why (``pathjudge --version`` prints it).

The check costs one hash of the core's sources (about 0.4 MB, a millisecond) per process.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Mapping, Sequence
from importlib.machinery import EXTENSION_SUFFIXES, ModuleSpec
from importlib.util import spec_from_file_location
from pathlib import Path
from types import ModuleType

__all__ = ["CORE_FOLDER", "MANIFEST", "STATUS", "install", "plan"]

CORE_FOLDER = "_pathjudge_core"
"""The folder, beside the package or on ``sys.path``, that holds the compiled core."""

MANIFEST = "MANIFEST"
"""The compiled core's manifest, in :data:`CORE_FOLDER`: a first line ``pathjudge-core 1
SUFFIX`` (the extension suffix of the interpreter it was built for), then one line ``SHA256
MODULE`` per compiled module (``MODULE`` as in :data:`pathjudge._compiled.MODULES`)."""

_HEADER = "pathjudge-core 1"

STATUS = "pure Python core"
"""Which core runs, and where it is pure, why (set by :func:`install`)."""


def manifest_text(suffix: str, digests: Mapping[str, str]) -> str:
    """A manifest (see :data:`MANIFEST`) for extensions with ``suffix`` compiled from sources with
    ``digests`` (module → SHA-256)."""
    lines = [f"{_HEADER} {suffix}", *(f"{digest} {name}" for name, digest in digests.items())]
    return "\n".join(lines) + "\n"


def source_digest(data: bytes) -> str:
    """The SHA-256 a manifest records for a module's source bytes."""
    return hashlib.sha256(data).hexdigest()


def find_core(package: Path, path: Sequence[str]) -> Path | None:
    """The compiled core's folder: beside ``package`` (an installed wheel), else the first on
    ``path`` (an editable install's, in ``site-packages``); None when there is none."""
    beside = package.parent / CORE_FOLDER
    if (beside / MANIFEST).is_file():
        return beside
    for entry in path:
        if not isinstance(entry, str):
            continue
        folder = Path(entry or ".") / CORE_FOLDER
        if (folder / MANIFEST).is_file():
            return folder
    return None


def plan(
    package: Path, path: Sequence[str], environ: Mapping[str, str]
) -> tuple[dict[str, str], str]:
    """``({module name: extension file}, status)``: the modules to load compiled (empty for the
    pure core) and the :data:`STATUS` that says so, for the package in the ``package`` folder."""
    if environ.get("PATHJUDGE_PURE", "").strip() not in ("", "0"):
        return {}, "pure Python core: PATHJUDGE_PURE is set"
    core = find_core(package, path)
    if core is None:
        return {}, "pure Python core"
    try:
        lines = (core / MANIFEST).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        return {}, f"pure Python core: the compiled core's manifest could not be read: {exc}"
    header, _, suffix = lines[0].rpartition(" ") if lines else ("", "", "")
    if header != _HEADER or not suffix:
        return {}, f"pure Python core: {core / MANIFEST} is not a manifest this pathjudge reads"
    if suffix not in EXTENSION_SUFFIXES:
        return {}, (
            f"pure Python core: the compiled core in {core} was built for another Python "
            f"({suffix}); reinstall pathjudge to rebuild it"
        )
    modules: dict[str, str] = {}
    for line in lines[1:]:
        digest, _, name = line.partition(" ")
        source = package / f"{name}.py"
        extension = core / "pathjudge" / f"{name}{suffix}"
        try:
            current = source_digest(source.read_bytes())
        except OSError:
            current = ""
        if current != digest:
            return {}, (
                f"pure Python core: the compiled core is out of date ({source} is not the source "
                "it was compiled from); reinstall pathjudge to rebuild it"
            )
        if not extension.is_file():
            return {}, f"pure Python core: the compiled core lacks {extension}"
        modules["pathjudge." + name.replace("/", ".")] = str(extension)
    if not modules:
        return {}, f"pure Python core: {core / MANIFEST} names no module"
    return modules, "compiled core"


class CoreFinder:
    """A meta path finder that loads the compiled core's modules from their extensions."""

    def __init__(self, modules: Mapping[str, str]) -> None:
        self.modules = dict(modules)

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        location = self.modules.get(fullname)
        if location is None:
            return None
        return spec_from_file_location(fullname, location)

    def invalidate_caches(self) -> None:
        """Nothing is cached (``importlib.invalidate_caches`` calls this)."""


def install() -> str:
    """Put the compiled core's finder first on ``sys.meta_path`` where the core may run (see the
    module docstring); once per process. Returns :data:`STATUS`."""
    global STATUS
    if any(isinstance(finder, CoreFinder) for finder in sys.meta_path):
        return STATUS
    modules, STATUS = plan(Path(__file__).resolve().parent, sys.path, os.environ)
    if modules:
        sys.meta_path.insert(0, CoreFinder(modules))
    return STATUS
