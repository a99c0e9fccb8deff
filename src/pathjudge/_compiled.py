"""Whether this pathjudge runs its compiled core, and which modules that core is.

Installing from this source (``pip install .`` or ``pip install -e .``) compiles the modules in
:data:`MODULES` with Cython, unchanged, into a folder of their own that
:mod:`pathjudge._core_loader` loads while their sources are unchanged. They are the same code (one
pipeline, no second implementation): the test suite runs against both in CI. Where Cython or a C
compiler is missing, or ``PATHJUDGE_PURE=1`` is set, the pure modules run. See ``hatch_build.py``
and docs/PERFORMANCE.md.

This module is itself compiled, so :data:`COMPILED` says which kind of module is running.
"""

from __future__ import annotations

from typing import Final

__all__ = ["COMPILED", "FUNCTION_TYPES", "MODULES"]

MODULES: Final = (
    "_compiled",
    "_json",
    "_io",
    "_records",
    "agent/trajectory",
    "agent/io",
    "rubrics/path",
    "rubrics/checks",
    "rubrics/scope",
    "rubrics/assertions/steps",
    "rubrics/assertions/tools",
    "rubrics/assertions/recovery",
    "rubrics/assertions/outcome",
    "rubrics/assertions/arguments",
    "rubrics/assertions/_normalize",
    "rubrics/assertions/base",
    "scoring/grade",
    "scoring/chunk",
    "scoring/scorecard",
)
"""The modules a graded run spends its time in (reading, parsing, the path alignment, the checks,
the grading loop and the partial scorecard), as paths relative to the package, without ``.py``. The
build hook reads this tuple from this file's text, so it stays a literal."""


def _probe() -> None:
    """A function defined here: its type tells a compiled module from a pure one."""


COMPILED: Final[bool] = type(_probe).__name__ == "cython_function_or_method"
"""True when this module (and so the whole core, built together) is the compiled one."""

FUNCTION_TYPES: Final[tuple[type, ...]] = (type(_probe),) if COMPILED else ()
"""The type of a compiled function, for the ``ignored_types`` of a pydantic model whose module is
compiled: pydantic takes any class attribute of a type it does not know for a field without an
annotation, and a compiled method is one (a plain function is not)."""
