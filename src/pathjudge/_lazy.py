"""Lazy exports for a package: names declared once, in its ``__init__.pyi`` stub, imported on first use.

A package's stub ``__init__.pyi`` declares its public names, one import a line (``from
pathjudge.agent.trajectory import RunRecord as RunRecord``); type checkers and IDEs read it in place of the
``__init__.py``, so each name is the real object to them. At run time the ``__init__`` is only
``__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)``: the stub is parsed, never executed,
so importing the package imports none of the modules behind the names, and each is imported on first use.
A name the stub only annotates (``__version__: str`` at the root) is defined by the ``__init__`` itself and
is public too. The ``__init__`` imports its helper under a private name (``lazy_exports as
_lazy_exports``), so the package namespace holds nothing public but its exports (and its subpackages).

The stub layout is scientific-python's SPEC 1 (``lazy_loader.attach_stub``), with absolute imports;
resolving it here keeps a plain module's ``AttributeError`` message and ``dir()``.
"""

from __future__ import annotations

import ast
import importlib
import os
import sys

# typing.TYPE_CHECKING without importing typing, so that `import pathjudge` stays light
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["lazy_exports"]


def _stub_declarations(init_file: str) -> dict[str, tuple[str, str] | None]:
    """What the ``.pyi`` stub beside ``init_file`` declares: public name → ``(module, attribute)`` for each
    ``from module import attribute as name``, ``None`` for a name it only annotates."""
    stub = os.path.splitext(init_file)[0] + ".pyi"
    with open(stub, encoding="utf-8") as source:
        tree = ast.parse(source.read(), stub)
    declared: dict[str, tuple[str, str] | None] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            declared.update(
                {alias.asname or alias.name: (node.module, alias.name) for alias in node.names}
            )
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            declared[node.target.id] = None
    return declared


def lazy_exports(
    package: str, init_file: str
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for ``package``, whose ``__init__`` is ``init_file``.

    ``__all__`` is every name its stub declares, sorted; ``__getattr__`` imports an exported name on first
    access and stores it in the package's namespace, so later accesses are plain attribute reads. An unknown
    name is an :class:`AttributeError`, as for any module.
    """
    declared = _stub_declarations(init_file)
    exports = {name: spec for name, spec in declared.items() if spec is not None}

    def __getattr__(name: str) -> Any:
        spec = exports.get(name)
        if spec is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attribute = spec
        value = getattr(importlib.import_module(module), attribute)
        vars(sys.modules[package])[name] = value
        return value

    def __dir__() -> list[str]:
        module = vars(sys.modules[package])
        return sorted({*declared, *(name for name in module if name.startswith("__"))})

    return __getattr__, __dir__, sorted(declared)
