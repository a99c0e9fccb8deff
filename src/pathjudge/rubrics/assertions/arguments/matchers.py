"""The parsed form of argument matchers: one frozen model per operator, and what each one says.

:func:`~pathjudge.rubrics.assertions.arguments.syntax.parse_matcher` reads the user form (see
:mod:`~pathjudge.rubrics.assertions.arguments.syntax`) into these models;
:mod:`~pathjudge.rubrics.assertions.arguments.checks` checks values against them.
"""

from __future__ import annotations

from typing import Literal, TypeAlias, assert_never

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from pathjudge.rubrics.assertions._normalize import NormalizeMode, json_kind, render_value

__all__ = [
    "AllOfMatcher",
    "AnyMatcher",
    "AnyOfMatcher",
    "ApproxMatcher",
    "EqMatcher",
    "ItemsMatcher",
    "JsonType",
    "KeysMatcher",
    "Matcher",
    "MatcherSyntaxError",
    "ObjectMatcher",
    "OneOfMatcher",
    "RegexMatcher",
    "TypeMatcher",
    "describe_matcher",
    "is_optional",
]

JsonType = Literal["null", "boolean", "integer", "number", "string", "array", "object"]


_JSON_TYPES: tuple[str, ...] = ("null", "boolean", "integer", "number", "string", "array", "object")


_JSON_TYPE_NAMES: dict[str, JsonType] = {
    "null": "null",
    "boolean": "boolean",
    "integer": "integer",
    "number": "number",
    "string": "string",
    "array": "array",
    "object": "object",
}


class MatcherSyntaxError(ValueError):
    """A matcher written in a form the language does not have; the message names the key and path.

    It is a ``ValueError`` so that Pydantic reports it as a validation error at the field it sits in.
    """


class _MatcherBase(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    optional: bool = Field(default=False, description="The argument may be omitted.")


class EqMatcher(_MatcherBase):
    """Exactly ``value`` (JSON equality), strings compared under ``normalize``."""

    op: Literal["eq"] = "eq"
    value: JsonValue
    normalize: NormalizeMode = "none"


class OneOfMatcher(_MatcherBase):
    """Any of ``values`` (BFCL possible-answer list; ``""`` means the argument may be omitted).

    ``declared``/``items`` are BFCL type names of the parameter and of its array items; they take
    effect under the ``bfcl`` typing profile only (see :mod:`~pathjudge.rubrics.assertions._bfcl`).
    """

    op: Literal["one_of"] = "one_of"
    values: tuple[JsonValue, ...] = Field(
        description="Acceptable values; empty only with a declared type (BFCL lists none)."
    )
    normalize: NormalizeMode = "bfcl"
    declared: str | None = Field(
        default=None, description="BFCL declared type (bfcl profile); inferred when absent."
    )
    items: str | None = Field(
        default=None, description="BFCL declared type of array items (bfcl profile)."
    )

    @model_validator(mode="after")
    def _values_given(self) -> OneOfMatcher:
        if not self.values and self.declared is None:
            raise ValueError("$one_of takes a non-empty list (an empty one needs $declared)")
        return self


class ApproxMatcher(_MatcherBase):
    """A number close to ``value``: ``|a-b| <= max(rel·max(|a|,|b|), abs)``."""

    op: Literal["approx"] = "approx"
    value: float
    rel: float = Field(default=1e-9, ge=0.0)
    abs: float = Field(default=0.0, ge=0.0)


class RegexMatcher(_MatcherBase):
    """A string in which ``pattern`` is found (``re`` syntax, searched with a time limit; a search
    that times out raises :class:`~pathjudge.rubrics.assertions._regex.PatternTimeout`)."""

    op: Literal["regex"] = "regex"
    pattern: str
    ignore_case: bool = False


class AnyMatcher(_MatcherBase):
    """Any value; the argument must be present unless ``optional``."""

    op: Literal["any"] = "any"


class TypeMatcher(_MatcherBase):
    """A value of one of the JSON ``types``."""

    op: Literal["type"] = "type"
    types: tuple[JsonType, ...] = Field(min_length=1)


class KeysMatcher(_MatcherBase):
    """``superset``: at least these keys (others allowed); ``subset``: no keys beyond these."""

    op: Literal["keys"] = "keys"
    mode: Literal["subset", "superset"]
    fields: dict[str, Matcher]


class ObjectMatcher(_MatcherBase):
    """An object with exactly ``fields`` (optional ones may be absent), each matching."""

    op: Literal["object"] = "object"
    fields: dict[str, Matcher]


class ItemsMatcher(_MatcherBase):
    """A list of exactly ``len(items)`` elements, element ``i`` matching ``items[i]``."""

    op: Literal["items"] = "items"
    items: tuple[Matcher, ...]


class AllOfMatcher(_MatcherBase):
    """Every part matches."""

    op: Literal["all_of"] = "all_of"
    parts: tuple[Matcher, ...] = Field(min_length=1)


class AnyOfMatcher(_MatcherBase):
    """At least one part matches."""

    op: Literal["any_of"] = "any_of"
    parts: tuple[Matcher, ...] = Field(min_length=1)


Matcher: TypeAlias = (
    EqMatcher
    | OneOfMatcher
    | ApproxMatcher
    | RegexMatcher
    | AnyMatcher
    | TypeMatcher
    | KeysMatcher
    | ObjectMatcher
    | ItemsMatcher
    | AllOfMatcher
    | AnyOfMatcher
)


_MATCHER_CLASSES = (
    EqMatcher,
    OneOfMatcher,
    ApproxMatcher,
    RegexMatcher,
    AnyMatcher,
    TypeMatcher,
    KeysMatcher,
    ObjectMatcher,
    ItemsMatcher,
    AllOfMatcher,
    AnyOfMatcher,
)
for _cls in (KeysMatcher, ObjectMatcher, ItemsMatcher, AllOfMatcher, AnyOfMatcher):
    _cls.model_rebuild()


def is_optional(matcher: Matcher) -> bool:
    """Whether the argument may be omitted: ``$optional``, ``""`` in a ``$one_of``, or an optional ``$any_of`` part."""
    if matcher.optional:
        return True
    if isinstance(matcher, OneOfMatcher):
        return any(isinstance(value, str) and value == "" for value in matcher.values)
    if isinstance(matcher, AnyOfMatcher):
        return any(is_optional(part) for part in matcher.parts)
    return False


def describe_matcher(matcher: Matcher) -> str:
    """A short phrase for reasons: ``one of ["units", ""] (bfcl strings)``, ``≈ 3.14 (rel 1e-09, abs 0)``."""
    if isinstance(matcher, EqMatcher):
        suffix = f" ({matcher.normalize} strings)" if matcher.normalize != "none" else ""
        return f"{render_value(matcher.value)}{suffix}"
    if isinstance(matcher, OneOfMatcher):
        notes = [f"{matcher.normalize} strings"] if matcher.normalize != "none" else []
        if matcher.declared is not None:
            notes.append(
                f"declared {matcher.declared}"
                + (f" of {matcher.items}" if matcher.items is not None else "")
            )
        suffix = f" ({', '.join(notes)})" if notes else ""
        return f"one of {render_value(list(matcher.values))}{suffix}"
    if isinstance(matcher, ApproxMatcher):
        return f"≈ {matcher.value:g} (rel {matcher.rel:g}, abs {matcher.abs:g})"
    if isinstance(matcher, RegexMatcher):
        return f"a string matching /{matcher.pattern}/{'i' if matcher.ignore_case else ''}"
    if isinstance(matcher, AnyMatcher):
        return "any value"
    if isinstance(matcher, TypeMatcher):
        return "a value of type " + " or ".join(matcher.types)
    if isinstance(matcher, KeysMatcher):
        word = "at least" if matcher.mode == "superset" else "at most"
        return f"an object with {word} the keys {', '.join(sorted(matcher.fields)) or '(none)'}"
    if isinstance(matcher, ObjectMatcher):
        return f"an object with the keys {', '.join(sorted(matcher.fields)) or '(none)'}"
    if isinstance(matcher, ItemsMatcher):
        return f"a list of {len(matcher.items)} items"
    if isinstance(matcher, AllOfMatcher):
        return " and ".join(describe_matcher(part) for part in matcher.parts)
    if isinstance(matcher, AnyOfMatcher):
        return " or ".join(f"({describe_matcher(part)})" for part in matcher.parts)
    assert_never(matcher)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _type_ok(value: object, name: JsonType) -> bool:
    kind = json_kind(value)
    if name == "integer":
        return kind == "number" and (
            isinstance(value, int) or (isinstance(value, float) and value.is_integer())
        )
    return kind == name
