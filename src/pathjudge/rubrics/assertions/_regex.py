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

A pattern with no repetition, alternation, lookaround or backreference (``\\S``, ``^rate``,
``[A-Z]\\d``) cannot backtrack: at each start position it tries one fixed sequence of items, so a
search costs at most about ``len(text) * len(pattern)`` steps. Such a pattern is searched without
the timeout when that product is small (:data:`UNTIMED_STEPS`), which saves the two clock reads a
timed search makes (system calls, the larger part of a short search); the result is the one the
timed search gives, since that search cannot run out of time.

pathjudge's own large patterns (the refusal forms, the said-vs-did claims) are trusted and use
:mod:`re`; :func:`builtin_pattern` compiles each on first use, so start-up compiles none.
"""

from __future__ import annotations

import functools
import importlib
import re
import warnings
from typing import Any

__all__ = ["MATCH_TIMEOUT_S", "PatternTimeout", "builtin_pattern", "compile_pattern", "search"]

MATCH_TIMEOUT_S = 1.0
"""Seconds one search may take before it is abandoned."""


_BUILTIN: dict[str, re.Pattern[str]] = {}
"""pathjudge's own patterns compiled so far, by their text."""


def builtin_pattern(pattern: str) -> re.Pattern[str]:
    """One of pathjudge's own patterns, compiled when a text first needs it (once per process)."""
    compiled = _BUILTIN.get(pattern)
    if compiled is None:
        compiled = _BUILTIN[pattern] = re.compile(pattern)
    return compiled


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


UNTIMED_STEPS = 1_000_000
"""The most ``len(text) * len(pattern)`` a pattern that cannot backtrack is searched for without the
timeout (milliseconds of work, far inside :data:`MATCH_TIMEOUT_S`)."""


def search(pattern: str, text: str, *, ignore_case: bool = False) -> str | None:
    """The first match of ``pattern`` in ``text`` (its text), or None; :class:`PatternTimeout` when slow."""
    compiled, linear = _searcher(pattern, ignore_case)
    try:
        if linear and len(text) * len(pattern) <= UNTIMED_STEPS:
            found = compiled.search(text)  # it cannot backtrack: bounded work, no clock to read
        else:
            found = compiled.search(text, timeout=MATCH_TIMEOUT_S)
    except TimeoutError:
        raise PatternTimeout(pattern, len(text)) from None
    return None if found is None else str(found.group())


@functools.lru_cache(maxsize=1024)
def _searcher(pattern: str, ignore_case: bool) -> tuple[Any, bool]:
    """The compiled pattern, and whether it cannot backtrack (see :func:`cannot_backtrack`)."""
    return compile_pattern(pattern, ignore_case), cannot_backtrack(pattern)


# What a pattern that cannot backtrack is made of, in the standard library's parse of it: literal
# characters, sets (classes and categories, which match one character), ``.``, anchors and
# groups of these. Anything else (a repeat, an alternation, a lookaround, a backreference, an
# atomic group, a conditional) may try more than one way through the pattern.
_FIXED_ITEMS = frozenset({"LITERAL", "NOT_LITERAL", "ANY", "IN", "AT"})


def cannot_backtrack(pattern: str) -> bool:
    """Whether ``pattern`` matches at each start position by one fixed sequence of single-character
    items and anchors (so a search is linear in the text). False whenever in doubt: a pattern the
    standard library's parser rejects or warns about (syntax only the ``regex`` package reads, such
    as ``\\p{L}`` or nested sets), one with a ``{`` (a fuzzy constraint or a counted repeat there),
    one with a ``|`` (the standard parser merges single-character alternatives into a set,
    ``a|b`` into ``[ab]``, which the ``regex`` package need not do: ``(a|a)`` written twenty
    times backtracks for seconds there) or one with any other item.
    """
    if "{" in pattern or "|" in pattern:
        return False
    try:
        parser: Any = importlib.import_module("re._parser")  # the standard library's (>= 3.11)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            parsed = parser.parse(pattern, 0)
    except Exception:  # any failure means "not known to be linear"
        return False
    return not caught and _fixed(parsed)


def _fixed(items: Any) -> bool:
    for op, argument in items:
        name = str(op)
        if name == "SUBPATTERN":
            if not _fixed(argument[-1]):  # (group, add_flags, del_flags, items)
                return False
        elif name not in _FIXED_ITEMS:
            return False
    return True
