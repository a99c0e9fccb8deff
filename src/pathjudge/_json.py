"""Strict JSON decoding for files that came from elsewhere.

:func:`loads` is :func:`json.loads` with the edges of the standard closed off. Each problem is a
:class:`json.JSONDecodeError` (so callers report it like any other syntax error, with line and
column), never a crash:

- ``NaN``, ``Infinity`` and ``-Infinity`` (Python extensions, not JSON) are refused;
- a number too large for a float (``1e400``, which Python reads as infinity) is refused;
- nesting deeper than :data:`MAX_DEPTH` arrays/objects is refused (instead of a ``RecursionError``
  here or in whatever walks the value later).

:func:`check_finite` does the number checks on raw bytes for readers that parse with pydantic.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["MAX_DEPTH", "check_depth", "finite_problem", "loads", "suspect_number"]

MAX_DEPTH = 200
"""The deepest nesting of arrays and objects accepted in a JSON value."""


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is out of range for a float")
    return value


def _int(text: str) -> int:
    if len(text) > 300:
        raise ValueError(f"the number {text[:40]}... is out of range ({len(text)} digits)")
    return int(text)


def _error(message: str, doc: str, needle: str | None) -> json.JSONDecodeError:
    pos = doc.find(needle) if needle else -1
    return json.JSONDecodeError(message, doc, max(pos, 0))


def check_depth(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests at most ``limit`` arrays/objects deep (iterative: never recurses)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return False
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return True


def loads(text: str | bytes) -> Any:
    """Decode one JSON document strictly (see the module docstring)."""
    doc = text.decode("utf-8") if isinstance(text, bytes) else text
    try:
        value = json.loads(doc, parse_constant=_constant, parse_float=_float, parse_int=_int)
    except RecursionError:
        raise _error(f"nested more than {MAX_DEPTH} levels deep", doc, None) from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        message = str(exc)
        needle = message.split()[0] if message.endswith("not a JSON number") else None
        if needle is None and "the number " in message:
            needle = message.split("the number ", 1)[1].split()[0]
        raise _error(message, doc, needle) from None
    if (doc.count("[") + doc.count("{") > MAX_DEPTH) and not check_depth(value):
        raise _error(f"nested more than {MAX_DEPTH} levels deep", doc, None)
    return value


_FOLD = bytes.maketrans(b"123456789E-", b"000000000e+")
"""Folds every digit to ``0``, ``E`` to ``e`` and ``-`` to ``+``: an exponent of three or more
digits then reads ``0e000`` or ``0e+000``, whatever its digits and sign."""
_LONG_DIGITS = b"0" * 300


def suspect_number(raw: bytes) -> bool:
    """Whether the JSON text ``raw`` may hold a number JSON cannot carry: the words ``NaN`` or
    ``Infinity``, an exponent of three or more digits (``1e400``, ``2.5E-308``) or a run of 300
    digits. Never a false negative; a hit (which may be text inside a string) is confirmed by
    :func:`finite_problem`.

    Byte-string searches over one translated copy, not a regular expression: a pattern that starts
    at every ``e`` of a long English line costs tens of microseconds per kilobyte, this a fraction of
    one.
    """
    if b"NaN" in raw or b"Infinity" in raw:
        return True
    folded = raw.translate(_FOLD)
    return b"0e000" in folded or b"0e+000" in folded or _LONG_DIGITS in folded


def finite_problem(raw: bytes) -> str | None:
    """Why the JSON text ``raw`` holds a non-finite number (NaN, Infinity, 1e400), or None.

    A cheap byte scan first; only a line that may hold one is decoded again to be sure (so the
    text "NaN" inside a string is not mistaken for a number).
    """
    if not suspect_number(raw):
        return None
    try:
        json.loads(raw, parse_constant=_constant, parse_float=_float, parse_int=_int)
    except RecursionError:
        return None  # depth is reported by the reader's own parser
    except ValueError as exc:
        message = str(exc)
        if message.endswith("not a JSON number") or "out of range" in message:
            return message
    return None
