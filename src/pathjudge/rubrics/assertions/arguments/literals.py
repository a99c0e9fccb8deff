"""Literal helpers: the exact value a matcher stands for, and the bool/number leaves that make
Python's ``==`` agree with JSON equality (fast paths of :func:`~pathjudge.rubrics.assertions.arguments.match_call`
and of reference-path matching)."""

from __future__ import annotations

from typing import Any, TypeAlias

from pathjudge.rubrics.assertions.arguments.matchers import (
    EqMatcher,
    ItemsMatcher,
    Matcher,
    ObjectMatcher,
)

__all__ = ["NOT_LITERAL", "Leaves", "literal_value", "number_leaves", "same_kinds"]


NOT_LITERAL: Any = object()
"""What :func:`literal_value` gives for a matcher that stands for no one exact value."""


def literal_value(matcher: Matcher) -> Any:
    """The exact JSON value ``matcher`` stands for, or :data:`NOT_LITERAL`: ``$eq`` (or a bare
    value) with no string normalisation, a literal list (same length, items in order) or a literal
    object (exactly its keys), at any depth, none of them ``$optional``. Under the lenient typing
    profile a value matches such a matcher exactly when it is JSON-equal to this value: ``==`` and
    the same kinds at the number leaves (see :func:`number_leaves`)."""
    if matcher.optional:
        return NOT_LITERAL
    if isinstance(matcher, EqMatcher):
        return matcher.value if matcher.normalize == "none" else NOT_LITERAL
    if isinstance(matcher, ItemsMatcher):
        items = [literal_value(item) for item in matcher.items]
        return NOT_LITERAL if any(item is NOT_LITERAL for item in items) else items
    if isinstance(matcher, ObjectMatcher):
        fields = {key: literal_value(sub) for key, sub in matcher.fields.items()}
        return NOT_LITERAL if any(v is NOT_LITERAL for v in fields.values()) else fields
    return NOT_LITERAL


Leaves: TypeAlias = tuple[tuple[tuple[Any, ...], bool], ...]


def number_leaves(value: Any, at: tuple[Any, ...] = ()) -> Leaves:
    """Where ``value`` holds a number or a bool: ``(path, is_bool)`` for each.

    A value that ``==`` a literal has the literal's shape, so it is JSON-equal to it exactly when
    the value at each of these paths is a bool where the literal's is one and not one where it is
    not (Python's ``==`` takes ``True`` for ``1``; JSON does not).
    """
    if isinstance(value, dict):
        return tuple(
            [leaf for key, item in value.items() for leaf in number_leaves(item, (*at, key))]
        )
    if isinstance(value, list):
        return tuple(
            [leaf for i, item in enumerate(value) for leaf in number_leaves(item, (*at, i))]
        )
    if isinstance(value, bool | int | float):
        return ((at, isinstance(value, bool)),)
    return ()


def same_kinds(value: Any, leaves: Leaves) -> bool:
    """Whether ``value`` (which ``==`` the literal ``leaves`` were taken from) has a bool exactly
    where the literal has one (see :func:`number_leaves`)."""
    for path, is_bool in leaves:
        found = value
        for key in path:
            found = found[key]
        if isinstance(found, bool) is not is_bool:
            return False
    return True
