"""The argument checks: how a present value fails a matcher, one check per matcher class.

Under the ``bfcl`` typing profile the checks apply the BFCL rules of
:mod:`~pathjudge.rubrics.assertions._bfcl` (typed equality, the ``$one_of`` parameter rule, the
``integer`` type).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast

from pydantic import JsonValue

from pathjudge.rubrics.assertions._bfcl import (
    BfclLanguage,
    check_param,
    eq_mismatch_kind,
    one_of_types,
    type_name_holds,
    typed_equal,
)
from pathjudge.rubrics.assertions._normalize import (
    json_equal,
    json_kind,
    normalize_json,
    render_value,
)
from pathjudge.rubrics.assertions._regex import search
from pathjudge.rubrics.assertions.arguments.matchers import (
    _MATCHER_CLASSES,
    AllOfMatcher,
    AnyMatcher,
    AnyOfMatcher,
    ApproxMatcher,
    EqMatcher,
    ItemsMatcher,
    KeysMatcher,
    Matcher,
    ObjectMatcher,
    OneOfMatcher,
    RegexMatcher,
    TypeMatcher,
    _is_number,
    _join,
    _type_ok,
    describe_matcher,
    is_optional,
)
from pathjudge.rubrics.assertions.arguments.mismatch import ArgMismatch, MismatchKind, _got
from pathjudge.rubrics.assertions.arguments.profiles import TypeProfile, _Bfcl, _profile

__all__ = ["match_value"]


def match_value(
    matcher: Matcher,
    value: JsonValue,
    path: str = "",
    *,
    types: TypeProfile = "lenient",
    language: BfclLanguage = "python",
) -> list[ArgMismatch]:
    """The mismatches of a present ``value`` against ``matcher`` under the typing profile ``types``;
    an empty list means it matches."""
    out: list[ArgMismatch] = []
    _check(matcher, value, path, out, _profile(types, language))
    return out


def _bfcl_one_of(
    matcher: OneOfMatcher,
    value: JsonValue,
    path: str,
    out: list[ArgMismatch],
    bfcl: _Bfcl,
    level: int,
) -> None:
    declared, items, language = one_of_types(
        matcher.values, matcher.declared, matcher.items, bfcl.language
    )
    if declared is None:  # only null (or "") listed: typed equality with some value
        if not any(typed_equal(value, v, matcher.normalize, level) for v in matcher.values):
            out.append(_mismatch(matcher, value, path, "wrong_value"))
        return
    problem = check_param(
        value, matcher.values, declared, items, language, matcher.normalize, top=level == 0
    )
    if problem is not None:
        kind, reason, sub = problem
        where = path + sub if sub.startswith("[") else _join(path, sub) if sub else path
        # check_param's kinds are mismatch kinds (its Problem types them as str)
        out.append(ArgMismatch(where, reason, cast(MismatchKind, kind)))


def _closeness(found: list[ArgMismatch]) -> tuple[int, int]:
    """Rank of an ``$any_of`` alternative's failure: fewer mismatches, then fewer type mismatches."""
    return len(found), sum(1 for m in found if m.kind == "wrong_type")


def _check(
    matcher: Matcher,
    value: JsonValue,
    path: str,
    out: list[ArgMismatch],
    bfcl: _Bfcl | None = None,
    level: int = 0,
) -> None:
    """Append to ``out`` how ``value`` (at ``path``) fails ``matcher``; nothing when it matches.

    Dispatched on the matcher's class (:data:`_CHECKS`): a matcher is one of eleven classes, and a
    chain of ``isinstance`` tests on them costs more than the comparison it leads to."""
    checker = _CHECKS.get(type(matcher))
    if checker is None:
        checker = _CHECKS[_matcher_class(matcher)]
    checker(matcher, value, path, out, bfcl, level)


def _matcher_class(matcher: Matcher) -> type:
    """The matcher class ``matcher`` is an instance of (for an instance of a subclass)."""
    for cls in _MATCHER_CLASSES:
        if isinstance(matcher, cls):
            return cls
    raise TypeError(f"not a matcher: {type(matcher).__name__}")


def _mismatch(matcher: Matcher, value: JsonValue, path: str, kind: MismatchKind) -> ArgMismatch:
    return ArgMismatch(path, f"expected {describe_matcher(matcher)}, got {_got(value)}", kind)


def _check_eq(
    matcher: EqMatcher,
    value: JsonValue,
    path: str,
    out: list[ArgMismatch],
    bfcl: _Bfcl | None,
    level: int,
) -> None:
    if bfcl is not None:
        if not typed_equal(value, matcher.value, matcher.normalize, level):
            out.append(
                _mismatch(matcher, value, path, eq_mismatch_kind(value, matcher.value, level))
            )
        return
    expected = normalize_json(matcher.value, matcher.normalize)
    if not json_equal(normalize_json(value, matcher.normalize), expected):
        kind: MismatchKind = (
            "wrong_value" if json_kind(value) == json_kind(matcher.value) else "wrong_type"
        )
        out.append(_mismatch(matcher, value, path, kind))


def _check_one_of(
    matcher: OneOfMatcher,
    value: JsonValue,
    path: str,
    out: list[ArgMismatch],
    bfcl: _Bfcl | None,
    level: int,
) -> None:
    if bfcl is not None:
        _bfcl_one_of(matcher, value, path, out, bfcl, level)
        return
    actual = normalize_json(value, matcher.normalize)
    if not any(
        json_equal(actual, normalize_json(option, matcher.normalize)) for option in matcher.values
    ):
        kinds = {
            json_kind(option)
            for option in matcher.values
            if not (isinstance(option, str) and option == "")
        } or {"string"}
        kind: MismatchKind = "wrong_value" if json_kind(value) in kinds else "wrong_type"
        out.append(_mismatch(matcher, value, path, kind))


def _check_approx(
    matcher: ApproxMatcher,
    value: JsonValue,
    path: str,
    out: list[ArgMismatch],
    bfcl: _Bfcl | None,
    level: int,
) -> None:
    if not _is_number(value):
        out.append(ArgMismatch(path, f"expected a number, got {_got(value)}", "wrong_type"))
        return
    assert isinstance(value, int | float)
    if not math.isclose(value, matcher.value, rel_tol=matcher.rel, abs_tol=matcher.abs):
        out.append(
            ArgMismatch(
                path,
                f"expected {describe_matcher(matcher)}, got {render_value(value)} "
                f"(off by {abs(value - matcher.value):g})",
                "wrong_value",
            )
        )


def _check_regex(
    matcher: RegexMatcher,
    value: JsonValue,
    path: str,
    out: list[ArgMismatch],
    bfcl: _Bfcl | None,
    level: int,
) -> None:
    if not isinstance(value, str):
        out.append(ArgMismatch(path, f"expected a string, got {_got(value)}", "wrong_type"))
    elif search(matcher.pattern, value, ignore_case=matcher.ignore_case) is None:
        out.append(
            ArgMismatch(
                path,
                f"expected {describe_matcher(matcher)}, got {render_value(value)}",
                "wrong_value",
            )
        )


def _check_any(
    matcher: AnyMatcher,
    value: JsonValue,
    path: str,
    out: list[ArgMismatch],
    bfcl: _Bfcl | None,
    level: int,
) -> None:
    return


def _check_type(
    matcher: TypeMatcher,
    value: JsonValue,
    path: str,
    out: list[ArgMismatch],
    bfcl: _Bfcl | None,
    level: int,
) -> None:
    if bfcl is not None:
        ok = any(type_name_holds(value, name) for name in matcher.types)
    else:
        ok = any(_type_ok(value, name) for name in matcher.types)
    if not ok:
        out.append(_mismatch(matcher, value, path, "wrong_type"))


def _check_fields(
    matcher: KeysMatcher | ObjectMatcher,
    value: JsonValue,
    path: str,
    out: list[ArgMismatch],
    bfcl: _Bfcl | None,
    level: int,
) -> None:
    if not isinstance(value, dict):
        out.append(ArgMismatch(path, f"expected an object, got {_got(value)}", "wrong_type"))
        return
    superset = isinstance(matcher, KeysMatcher) and matcher.mode == "superset"
    subset = isinstance(matcher, KeysMatcher) and matcher.mode == "subset"
    for key, sub in matcher.fields.items():
        sub_path = _join(path, key)
        if key in value:
            _check(sub, value[key], sub_path, out, bfcl, level + 1)
        elif not subset and not is_optional(sub):
            out.append(
                ArgMismatch(sub_path, f"missing (expected {describe_matcher(sub)})", "missing")
            )
    if not superset:
        for key in value:
            if key not in matcher.fields:
                out.append(
                    ArgMismatch(
                        _join(path, key),
                        f"unexpected key (value {render_value(value[key])})",
                        "unexpected",
                    )
                )


def _check_items(
    matcher: ItemsMatcher,
    value: JsonValue,
    path: str,
    out: list[ArgMismatch],
    bfcl: _Bfcl | None,
    level: int,
) -> None:
    if not isinstance(value, list):
        out.append(ArgMismatch(path, f"expected a list, got {_got(value)}", "wrong_type"))
        return
    if len(value) != len(matcher.items):
        out.append(
            ArgMismatch(
                path,
                f"expected {len(matcher.items)} items, got {len(value)}: {render_value(value)}",
                "wrong_value",
            )
        )
    for index, (sub, item) in enumerate(zip(matcher.items, value, strict=False)):
        _check(sub, item, f"{path}[{index}]", out, bfcl, level + 1)


def _check_all_of(
    matcher: AllOfMatcher,
    value: JsonValue,
    path: str,
    out: list[ArgMismatch],
    bfcl: _Bfcl | None,
    level: int,
) -> None:
    for part in matcher.parts:
        _check(part, value, path, out, bfcl, level)


def _check_any_of(
    matcher: AnyOfMatcher,
    value: JsonValue,
    path: str,
    out: list[ArgMismatch],
    bfcl: _Bfcl | None,
    level: int,
) -> None:
    best: list[ArgMismatch] | None = None
    for part in matcher.parts:
        found: list[ArgMismatch] = []
        _check(part, value, path, found, bfcl, level)
        if not found:
            return
        if best is None or _closeness(found) < _closeness(best):
            best = found
    assert best is not None
    if len(matcher.parts) > 1:
        best = [
            ArgMismatch(
                m.path, f"{m.reason} (closest of {len(matcher.parts)} alternatives)", m.kind
            )
            for m in best
        ]
    out.extend(best)


_CHECKS: dict[type, Callable[[Any, JsonValue, str, list[ArgMismatch], _Bfcl | None, int], None]] = {
    EqMatcher: _check_eq,
    OneOfMatcher: _check_one_of,
    ApproxMatcher: _check_approx,
    RegexMatcher: _check_regex,
    AnyMatcher: _check_any,
    TypeMatcher: _check_type,
    KeysMatcher: _check_fields,
    ObjectMatcher: _check_fields,
    ItemsMatcher: _check_items,
    AllOfMatcher: _check_all_of,
    AnyOfMatcher: _check_any_of,
}
"""How each matcher class checks a value (see :func:`_check`)."""
