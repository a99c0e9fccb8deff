"""Argument typing profiles: how values are typed when they are checked (``types: lenient | bfcl``).

The rules of the ``bfcl`` profile live in :mod:`~pathjudge.rubrics.assertions._bfcl`; this module
names the profiles and turns a profile name into what the checks carry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, assert_never

from pathjudge.rubrics.assertions._bfcl import BfclLanguage

__all__ = ["TYPE_PROFILES", "TypeProfile"]


TypeProfile = Literal["lenient", "bfcl"]
"""How argument values are typed (see "Argument typing profiles" in docs/reference/suites.md).

- ``lenient`` (default): JSON typing. ``5`` equals ``5.0`` anywhere, ``2.0`` is an integer, and a
  matcher's string rule applies at any depth.
- ``bfcl``: the BFCL AST checker's Python typing. A value must have the expected type; an int is
  accepted for a float at the top level of an argument only (``[1, 2.5]`` is no list of floats);
  ``2.0`` is no integer; ``bool`` is never a number; strings are normalised one level deep (the
  argument, the items of a list, the values of an object), deeper strings compare exactly;
  ``$one_of`` applies the checker's per-parameter rule, with its ``$declared`` type when given (Java
  and JavaScript literals are converted by the expectation's ``language``).
"""


TYPE_PROFILES: tuple[TypeProfile, ...] = ("lenient", "bfcl")


@dataclass(frozen=True, slots=True)
class _Bfcl:
    language: BfclLanguage


_BFCL_PYTHON = _Bfcl("python")


def _profile(types: TypeProfile, language: BfclLanguage) -> _Bfcl | None:
    if types == "lenient":
        return None
    if types == "bfcl":
        return _BFCL_PYTHON if language == "python" else _Bfcl(language)
    assert_never(types)
