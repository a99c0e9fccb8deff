"""The untimed search of patterns that cannot backtrack gives what the timed search gives.

:func:`~pathjudge.rubrics.assertions._regex.search` drops the timeout (two clock reads per search)
for a pattern :func:`~pathjudge.rubrics.assertions._regex.cannot_backtrack` accepts, on a short
enough text. These tests pin that shortcut to the plain timed search, and pin the classification:
every pattern that could backtrack keeps the timeout.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathjudge.rubrics.assertions import _regex
from pathjudge.rubrics.assertions._regex import (
    MATCH_TIMEOUT_S,
    PatternTimeout,
    cannot_backtrack,
    compile_pattern,
    search,
)


def _timed(pattern: str, text: str, ignore_case: bool) -> str | None:
    found = compile_pattern(pattern, ignore_case).search(text, timeout=MATCH_TIMEOUT_S)
    return None if found is None else str(found.group())


@pytest.mark.parametrize(
    "pattern",
    [r"\S", "rate", r"^rate$", r"(?i)[a-z]\d", r"(ab)c", r"(?:x)(?P<n>y)", r"\bword\b", "."],
)
def test_patterns_that_cannot_backtrack(pattern: str) -> None:
    assert cannot_backtrack(pattern)


@pytest.mark.parametrize(
    "pattern",
    [
        "a+",
        "a*b",
        "a?",
        "ab|cd",
        "a|b",
        "(?i)(a|A)c",
        "(a|a)(a|a)c",
        "(a+)+$",
        r"\d{4}",
        "a{2}",
        "(?=a)",
        "(?<!a)b",
        r"(a)\1",
        r"(a)?(?(1)b|c)",
        r"\p{L}",
        r"\pL",
        "[[:alpha:]]",
        "[a--b]",
        "(?>a)",
        "a++",
        "(?V1)a",
        "(?f)a",
        "(?p)a",
        r"a{e<=1}",
        "(",
    ],
)
def test_patterns_that_may_backtrack_keep_the_timeout(pattern: str) -> None:
    assert not cannot_backtrack(pattern)


_items = st.sampled_from(
    [
        "a",
        "b",
        " ",
        "é",
        ".",
        r"\S",
        r"\s",
        r"\d",
        r"\w",
        r"\b",
        "^",
        "$",
        "[ab]",
        "[^a ]",
        "(a)",
        "(?:b.)",
        "a+",
        "b*",
        "a|b",
        "(a|bb)",
        "a?",
        "a{1,2}",
        "(?=a)",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_items, min_size=1, max_size=5).map("".join), st.text("ab é1É\n"), st.booleans())
def test_search_is_the_timed_search(pattern: str, text: str, ignore_case: bool) -> None:
    assert search(pattern, text, ignore_case=ignore_case) == _timed(pattern, text, ignore_case)


def test_a_long_text_is_searched_with_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []

    class Spy:
        def search(self, text: str, timeout: float | None = None) -> None:
            seen.append(timeout is not None)

    monkeypatch.setattr(_regex, "_searcher", lambda pattern, ignore_case: (Spy(), True))
    search("ab", "x" * 10)
    search("ab", "x" * (_regex.UNTIMED_STEPS // 2 + 1))
    assert seen == [False, True]


def test_a_catastrophic_pattern_still_times_out() -> None:
    with pytest.raises(PatternTimeout):
        search("(x+x+)+y", "x" * 5000)
    with pytest.raises(PatternTimeout):  # alternatives of one character each keep the timeout
        search("(a|a)" * 40 + "c", "a" * 60)
