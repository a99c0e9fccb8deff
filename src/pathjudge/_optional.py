"""Lazy imports of optional extras with one clear error when an extra is missing."""

from __future__ import annotations

import importlib
from types import ModuleType

from pathjudge.errors import MissingExtraError

__all__ = ["require"]


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingExtraError` naming ``pip install 'pathjudge[extra]'``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - exercised by tests that hide modules
        raise MissingExtraError(extra, module, purpose) from exc
