"""The public surface: a curated root and per-package ``__all__``, checked against the real namespaces.

Like httpx's ``tests/test_exported_members.py``, the checks compare ``__all__`` with what the module
namespace (``vars()``) actually holds, so a stray import, a leaked helper or a name that shadows a
submodule fails here. They run in a fresh interpreter, so no other test has loaded anything yet.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import pathjudge

HEAVY = ("anthropic", "instructor", "sklearn", "numpy", "scipy", "matplotlib")
REPO = Path(__file__).resolve().parents[1]
PACKAGES = (
    "pathjudge",
    "pathjudge.agent",
    "pathjudge.rubrics",
    "pathjudge.judge",
    "pathjudge.calibration",
    "pathjudge.scoring",
    "pathjudge.report",
)

# In a fresh interpreter: the public names (submodules aside) of a package's namespace before and after
# every exported name is resolved, and what resolution gave.
_PROBE = """
import importlib, json, sys, types
out = {}
for name in sys.argv[1:]:
    package = importlib.import_module(name)
    def public():
        # subpackages/submodules aside; any other module (a stray `import json`) counts
        return sorted(k for k, v in vars(package).items()
                      if not k.startswith("_") and not (isinstance(v, types.ModuleType)
                                                        and v.__name__ == f"{name}.{k}"))
    before = public()
    resolved = {n: type(getattr(package, n)).__name__ for n in package.__all__}
    out[name] = {"before": before, "after": public(), "all": list(package.__all__),
                 "dir": sorted(n for n in dir(package) if not n.startswith("_")),
                 "types": resolved}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def namespaces() -> dict[str, dict[str, object]]:
    result: dict[str, dict[str, object]] = {}
    for package in PACKAGES:  # one interpreter each: resolving the root touches the subpackages
        done = subprocess.run(
            [sys.executable, "-c", _PROBE, package],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        result.update(json.loads(done.stdout))
    return result


def test_root_is_curated() -> None:
    names = [n for n in pathjudge.__all__ if not n.startswith("_")]
    assert 25 <= len(names) <= 30, len(names)
    assert "__version__" in pathjudge.__all__


@pytest.mark.parametrize("package", PACKAGES)
def test_all_is_sorted_and_unique(package: str) -> None:
    names = list(importlib.import_module(package).__all__)
    assert names == sorted(names)
    assert len(set(names)) == len(names)


@pytest.mark.parametrize("package", PACKAGES)
def test_namespace_is_exactly_all(package: str, namespaces: dict[str, dict[str, object]]) -> None:
    ns = namespaces[package]
    exported = sorted(n for n in ns["all"] if not n.startswith("_"))  # type: ignore[attr-defined]
    # lazy: importing the package put none of its exports (nor any helper) in its namespace
    assert ns["before"] == []
    # resolved: the namespace holds exactly the exports (subpackages aside), as httpx checks vars()
    assert ns["after"] == exported
    assert ns["dir"] == exported


@pytest.mark.parametrize("package", PACKAGES)
def test_no_export_is_a_module(package: str, namespaces: dict[str, dict[str, object]]) -> None:
    """An export named like a submodule would be shadowed by it once the submodule is imported."""
    types = namespaces[package]["types"]
    assert isinstance(types, dict)
    assert [name for name, kind in types.items() if kind == "module"] == []


def _stub(package: str) -> dict[str, str | None]:
    """What a package's ``__init__.pyi`` declares, checked to be the one plain form: public name → the
    module of its ``from module import name as name``, or ``None`` for the root's ``__version__: str``."""
    path = REPO / "src" / Path(*package.split(".")) / "__init__.pyi"
    declared: dict[str, str | None] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.AnnAssign):
            assert package == "pathjudge", "only the root annotates a name of its own"
            assert ast.unparse(node) == "__version__: str"
            declared["__version__"] = None
            continue
        assert isinstance(node, ast.ImportFrom), "only imports in the stub"
        assert node.level == 0, "absolute imports, as everywhere in src/"
        for alias in node.names:
            assert alias.asname == alias.name, "re-export explicitly: X as X"
            assert alias.name not in declared, f"{alias.name} is declared twice"
            declared[alias.name] = node.module
    return declared


@pytest.mark.parametrize("package", PACKAGES)
def test_stub_declares_all(package: str) -> None:
    """``__all__`` is exactly what the stub declares, each name from a module of this package."""
    declared = _stub(package)
    assert declared
    assert list(importlib.import_module(package).__all__) == sorted(declared)
    homes = {home for home in declared.values() if home is not None}
    assert all(home.startswith(f"{package}.") for home in homes), sorted(homes)


@pytest.mark.parametrize("package", PACKAGES)
def test_init_declares_no_names(package: str) -> None:
    """The ``__init__.py`` names nothing itself (no second list to keep in step with the stub): it only
    hands the stub to ``pathjudge._lazy`` (the root also sets ``__version__``)."""
    path = REPO / "src" / Path(*package.split(".")) / "__init__.py"
    body = ast.parse(path.read_text(encoding="utf-8")).body
    imports = [node for node in body if isinstance(node, ast.Import | ast.ImportFrom)]
    assert [ast.unparse(node) for node in imports] == [
        "from pathjudge._lazy import lazy_exports as _lazy_exports"
    ]
    bound = {ast.unparse(node.targets[0]) for node in body if isinstance(node, ast.Assign)}
    assert bound <= {"(__getattr__, __dir__, __all__)", "__version__"}, bound
    assert not [node for node in body if isinstance(node, ast.AnnAssign | ast.If)]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_name_is_the_object_of_its_declared_module(package: str) -> None:
    """Each name resolves to the very object its stub line names (one definition, one home); a root name
    that comes from a subpackage is in that subpackage's ``__all__`` too."""
    module = importlib.import_module(package)
    for name, home in _stub(package).items():
        if home is None:
            continue
        assert getattr(module, name) is getattr(importlib.import_module(home), name), name
        if home in PACKAGES:
            assert name in importlib.import_module(home).__all__, f"{name} is not in {home}.__all__"


def test_changelog_lists_every_removed_root_name() -> None:
    """Each name the root used to export is in CHANGELOG.md with a home that really has it."""
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| `([\w.]+)`", text, flags=re.MULTILINE)
    removed = {name: where for name, where in rows if "." in where and name[0] != "_"}
    assert len(removed) >= 100
    for name, where in removed.items():
        assert name not in pathjudge.__all__, name
        module, _, attribute = where.rpartition(".")
        assert getattr(importlib.import_module(module), attribute) is not None, where


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        pathjudge.nope  # type: ignore[attr-defined]  # noqa: B018
    scoring = importlib.import_module("pathjudge.scoring")
    with pytest.raises(AttributeError, match=r"'pathjudge\.scoring' has no attribute 'nope'"):
        scoring.nope  # noqa: B018


@pytest.mark.parametrize("module", ["pathjudge", "pathjudge.cli", *PACKAGES[1:]])
def test_import_stays_light(module: str) -> None:
    code = (
        f"import sys, {module}\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"import {module} pulled in: {done.stdout.strip()}"


SLICES_AND_PANELS = {
    "PanelReport": "pathjudge.calibration.panel",
    "SliceCalibration": "pathjudge.calibration.slices",
    "Slicing": "pathjudge.calibration.calibrate",
    "disagreement_queue": "pathjudge.calibration.panel",
    "item_slices": "pathjudge.calibration.labels",
    "panel_records": "pathjudge.calibration.panel",
    "run_panel": "pathjudge.calibration.panel",
}


@pytest.mark.parametrize(("name", "home"), sorted(SLICES_AND_PANELS.items()))
def test_calibration_exports_slices_and_panels(name: str, home: str) -> None:
    """Slicing a calibration and running a panel of judges are public: exported from
    ``pathjudge.calibration`` (the very object of their home module) and on the API page."""
    calibration = importlib.import_module("pathjudge.calibration")
    assert name in calibration.__all__
    assert getattr(calibration, name) is getattr(importlib.import_module(home), name)
    api = (REPO / "docs" / "reference" / "api.md").read_text(encoding="utf-8")
    assert f"::: {home}.{name}\n" in api
