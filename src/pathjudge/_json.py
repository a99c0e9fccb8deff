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
from typing import Any, cast

__all__ = [
    "BIG_INT",
    "MAX_DEPTH",
    "check_depth",
    "describe_unrepresentable",
    "finite_problem",
    "first_unrepresentable",
    "loads",
    "suspect_number",
    "unrepresentable",
    "unrepresentable_in",
]

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
_LONG_DIGITS = b"0" * 200
"""A run of digits that long may be a number beyond a float with an exponent of two digits or none
(``1`` and 210 zeros ``e99`` is over 1e308), or an integer literal over 300 characters."""


def suspect_number(raw: bytes) -> bool:
    """Whether the JSON text ``raw`` may hold a number JSON cannot carry: the words ``NaN`` or
    ``Infinity``, an exponent of three or more digits (``1e400``, ``2.5E-308``) or a run of 200
    digits (a number beyond 1e308 with an exponent of at most two digits has over 209 digits before
    its point; an integer literal over 300 characters has 300). Never a false negative; a hit (which
    may be text inside a string) is confirmed by :func:`finite_problem`.

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


# -- the same rule over values already decoded --------------------------------------------------------
#
# pydantic's JSON parser reads ``NaN``, ``Infinity`` and ``1e400`` (as a float infinity) and integers of
# any length. A reader that keeps every number of a record in the validated value (a run record does)
# can look for them there, in the few places a number can sit, instead of scanning the line's bytes a
# second time: on long lines of prose that scan costs several times the walk.

BIG_INT = 10**300
"""The smallest positive integer whose literal is over 300 characters (the :func:`loads` limit)."""
_BIG_NEGATIVE_INT = -(10**299)
"""The largest negative integer whose literal (sign included) is over 300 characters."""


def unrepresentable(number: object) -> bool:
    """Whether ``number`` is one :func:`loads` refuses: a float NaN or infinity (``NaN``, ``Infinity``,
    or a literal beyond 1e308), or an integer whose literal is over 300 characters. Anything that is
    not an ``int`` or a ``float`` (``bool`` included) is not."""
    kind = type(number)
    if kind is float:
        return not math.isfinite(cast(float, number))
    if kind is int:
        return cast(int, number) >= BIG_INT or cast(int, number) <= _BIG_NEGATIVE_INT
    return False


def unrepresentable_in(value: Any) -> bool:
    """Whether the decoded JSON ``value`` (dicts, lists, strings, numbers, bools, None) holds a number
    :func:`loads` refuses (see :func:`unrepresentable`); iterative, so any depth is safe."""
    kind = type(value)
    if kind is dict:
        items = value.values()
    elif kind is list:
        items = value
    else:
        return unrepresentable(value)  # a scalar
    nested: list[Any] | None = None
    while True:
        # a float x is NaN or infinite exactly when x - x is not 0.0 (NaN - NaN, inf - inf are NaN)
        for item in items:
            kind = type(item)
            if kind is str:
                continue
            if kind is int:
                if item >= BIG_INT or item <= _BIG_NEGATIVE_INT:
                    return True
            elif kind is float:
                if item - item != 0.0:
                    return True
            elif kind is dict or kind is list:
                if nested is None:
                    nested = [item]
                else:
                    nested.append(item)
        if not nested:
            return False
        node = nested.pop()
        items = node.values() if type(node) is dict else node


def first_unrepresentable(
    value: Any, at: tuple[int | str, ...] = ()
) -> tuple[tuple[int | str, ...], float | int] | None:
    """Where the first number :func:`loads` refuses sits in ``value``, in document order, and the
    number: ``(("steps", 2, "latency_ms"), inf)``; None when there is none. ``value`` may hold pydantic
    models and run records (whatever has ``model_fields``: walked in declaration order) and tuples.
    For error messages: it is the slow, ordered twin of :func:`unrepresentable_in`."""
    stack: list[tuple[tuple[int | str, ...], Any]] = [(at, value)]
    while stack:
        where, node = stack.pop()
        fields = getattr(type(node), "model_fields", None)
        if isinstance(fields, dict):
            items: list[tuple[int | str, Any]] = [(name, getattr(node, name)) for name in fields]
        elif isinstance(node, dict):
            items = list(node.items())
        elif isinstance(node, list | tuple):
            items = list(enumerate(node))
        else:
            if unrepresentable(node):
                return where, node
            continue
        stack.extend((((*where, key), item) for key, item in reversed(items)))
    return None


def describe_unrepresentable(number: float | int) -> str:
    """A number :func:`unrepresentable` flags, in a user's words: ``NaN``, ``an infinity (...)``,
    ``an integer of 351 digits (...)``."""
    if isinstance(number, float):
        if number != number:
            return "NaN"
        return "an infinity (Infinity, or a number beyond 1e308)"
    # (str() of an int over 4,300 digits raises; those are only said to be that long)
    size = f"{len(str(abs(number)))}" if number.bit_length() < 14_000 else "over 4,000"
    return f"an integer of {size} digits (a number here takes at most 300 characters)"
