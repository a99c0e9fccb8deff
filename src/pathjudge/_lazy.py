"""Lazy exports for a package: names listed once, imported from their module on first use.

A package ``__init__`` declares ``_EXPORTS`` (public name → ``"module"`` or ``"module:attribute"``), sets
``__all__ = sorted(_EXPORTS)`` and ``__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)``; a
``TYPE_CHECKING`` block mirrors the names for type checkers (``tests/test_public_api.py`` checks that the
two agree). Importing the package imports none of the modules behind the names. Its own helpers are
imported under private names (``import typing as _typing``), so the package namespace holds nothing
public but its exports (and its subpackages).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``, resolving ``exports`` on first access.

    A resolved name is stored in the package's namespace, so later accesses are plain attribute reads.
    An unknown name is an :class:`AttributeError`, as for any module.
    """

    def __getattr__(name: str) -> Any:
        spec = exports.get(name)
        if spec is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = spec.partition(":")
        value = getattr(importlib.import_module(module), attribute or name)
        vars(sys.modules[package])[name] = value
        return value

    def __dir__() -> list[str]:
        module = vars(sys.modules[package])
        return sorted({*exports, *(name for name in module if name.startswith("__"))})

    return __getattr__, __dir__
