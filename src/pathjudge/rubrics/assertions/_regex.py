"""Patterns from suites, matched with a time limit so no pattern can hang grading.

Suites are data from elsewhere, and a regular expression with nested repetition (``(a+)+$`` against
``"a" * 40 + "b"``) backtracks for longer than the age of the universe under Python's :mod:`re`.
``regex`` criteria and ``$regex`` matchers therefore match with the `regex
<https://pypi.org/project/regex/>`_ package, which accepts the same syntax as :mod:`re` (it is a
superset: possessive quantifiers ``a++``, atomic groups ``(?>...)``, ``\\p{L}`` classes and fuzzy
matching also work; Unicode rules, lookarounds and backreferences are as in :mod:`re`) and takes a
timeout. A search that runs past :data:`MATCH_TIMEOUT_S` seconds raises :class:`PatternTimeout`: the
check that ran it becomes an ``error`` (undecided), never a pass or a fail. A pattern that takes this
long on a short text is a catastrophic one; rewrite it with an atomic group or a possessive
quantifier (``(?>a+)+$``, ``a++$``).

We chose a time limit over the linear-time RE2 engine because RE2 rejects lookarounds and
backreferences and treats ``\\w``, ``\\d`` and ``\\b`` as ASCII only, which would silently change what
existing suites mean.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["MATCH_TIMEOUT_S", "PatternTimeout", "compile_pattern", "search"]

MATCH_TIMEOUT_S = 1.0
"""Seconds one search may take before it is abandoned."""


class PatternTimeout(RuntimeError):
    """A pattern search ran past :data:`MATCH_TIMEOUT_S` (catastrophic backtracking)."""

    def __init__(self, pattern: str, length: int) -> None:
        self.pattern = pattern
        super().__init__(
            f"pattern /{pattern}/ did not finish within {MATCH_TIMEOUT_S:g} s on a text of "
            f"{length:,} characters (catastrophic backtracking); rewrite it with an atomic group "
            "or a possessive quantifier, e.g. (?>a+)+ or a++"
        )


@functools.lru_cache(maxsize=1024)
def compile_pattern(pattern: str, ignore_case: bool = False) -> Any:
    """The compiled pattern (cached); raises ``ValueError`` with the reason when it does not compile."""
    import regex  # here, not at the top: a suite without patterns never pays for importing it

    try:
        return regex.compile(pattern, regex.IGNORECASE if ignore_case else 0)
    except regex.error as exc:
        raise ValueError(str(exc)) from None
    except (RecursionError, MemoryError, OverflowError) as exc:
        raise ValueError(f"too complex ({type(exc).__name__})") from None


def search(pattern: str, text: str, *, ignore_case: bool = False) -> str | None:
    """The first match of ``pattern`` in ``text`` (its text), or None; :class:`PatternTimeout` when slow."""
    compiled = compile_pattern(pattern, ignore_case)
    try:
        found = compiled.search(text, timeout=MATCH_TIMEOUT_S)
    except TimeoutError:
        raise PatternTimeout(pattern, len(text)) from None
    return None if found is None else str(found.group())
