"""The call expectation: which tool must be called, a matcher per argument, the extra-argument
policy, a schema and the typing profile; built once into a plan for fast matching."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator, model_validator

from pathjudge.rubrics.assertions._bfcl import BfclLanguage, unsupported_type
from pathjudge.rubrics.assertions.arguments.literals import (
    NOT_LITERAL,
    Leaves,
    literal_value,
    number_leaves,
)
from pathjudge.rubrics.assertions.arguments.matchers import (
    AllOfMatcher,
    AnyOfMatcher,
    EqMatcher,
    ItemsMatcher,
    KeysMatcher,
    Matcher,
    ObjectMatcher,
    OneOfMatcher,
    _join,
    describe_matcher,
    is_optional,
)
from pathjudge.rubrics.assertions.arguments.mismatch import CallMatch
from pathjudge.rubrics.assertions.arguments.profiles import TypeProfile, _Bfcl, _profile
from pathjudge.rubrics.assertions.arguments.schema import _make_validator, _require_valid_schema
from pathjudge.rubrics.assertions.arguments.syntax import ArgMatcher, parse_matcher

__all__ = ["CallExpectation"]


@dataclass(frozen=True, slots=True)
class _Plan:
    source: tuple[str, object, str, object, str, str]  # the fields it was built from
    profile: _Bfcl | None  # None: the lenient profile
    # name, matcher, fast literal, its number leaves (for a list or an object), optional
    entries: tuple[tuple[str, Matcher, Any, Leaves, bool], ...]
    names: frozenset[str]
    forbid_extra: bool
    validator: Any
    success: CallMatch  # the (immutable) result of a full match, shared by every call that matches


class CallExpectation(BaseModel):
    """One expected tool call: the tool, a matcher per argument, the extra-argument policy, a schema.

    ``args`` maps argument names to matchers in the user form (see
    :mod:`~pathjudge.rubrics.assertions.arguments.syntax`).
    ``json_schema`` (the tool's declared input schema) is checked when the expectation is built; an
    invalid schema is a validation error on this field. ``types`` names the argument-typing profile
    (:data:`TypeProfile`: ``lenient`` or ``bfcl``); ``language`` (``python``, ``java``,
    ``javascript``) says how ``$declared`` types read literals under ``bfcl``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    tool: str = Field(min_length=1, description="The tool that must be called.")
    args: dict[str, ArgMatcher] = Field(
        default_factory=dict, description="Argument name → matcher (plain values match exactly)."
    )
    extra_args: Literal["forbid", "allow"] = Field(
        default="forbid", description="Whether arguments not listed in args fail the call."
    )
    json_schema: dict[str, JsonValue] | None = Field(
        default=None, description="The tool's declared JSON schema for its arguments."
    )
    types: TypeProfile = Field(
        default="lenient", description="Argument-typing profile: lenient (JSON) or bfcl."
    )
    language: BfclLanguage = Field(
        default="python",
        description="Language of the BFCL declared types (bfcl profile): python, java, javascript.",
    )

    @model_validator(mode="after")
    def _profile_fits(self) -> CallExpectation:
        declared = [
            found for name, matcher in self.args.items() for found in _walk_declared(matcher, name)
        ]
        if self.types == "lenient":
            if self.language != "python":
                raise ValueError(
                    f"language {self.language!r} only applies with types: bfcl; add types: bfcl"
                )
            if declared:
                raise ValueError(
                    f"$declared/$items (at {declared[0][0]!r}) only apply with types: bfcl; "
                    "add types: bfcl or remove them"
                )
        for where, found in declared:
            for name in (found.declared, found.items):
                problem = unsupported_type(name, self.language) if name is not None else None
                if problem is not None:
                    raise ValueError(f"{where}: {problem}")
        return self

    @field_validator("args", mode="before")
    @classmethod
    def _parse_args(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            return {key: parse_matcher(item, str(key)) for key, item in value.items()}
        return value

    @field_validator("json_schema")
    @classmethod
    def _check_schema(cls, value: dict[str, JsonValue] | None) -> dict[str, JsonValue] | None:
        if value is not None:
            _require_valid_schema(value)
        return value

    def __getstate__(self) -> dict[Any, Any]:
        # the compiled plan (a JSON-schema validator among it) is rebuilt on first use after a pickle
        state: dict[Any, Any] = super().__getstate__()
        fields = state.get("__dict__")
        if isinstance(fields, dict) and "compiled" in fields:
            state = {**state, "__dict__": {k: v for k, v in fields.items() if k != "compiled"}}
        return state

    @functools.cached_property
    def compiled(self) -> _Plan:
        """The expectation prepared for fast matching (built once, on first use)."""
        entries = tuple(
            (name, matcher, *self._literal(matcher), is_optional(matcher))
            for name, matcher in self.args.items()
        )
        validator = _make_validator(self.json_schema) if self.json_schema is not None else None
        n = len(self.args)
        success = CallMatch(self.tool, self.tool, True, 1.0, n, n, ())
        return _Plan(
            (self.tool, self.args, self.extra_args, self.json_schema, self.types, self.language),
            _profile(self.types, self.language),
            entries,
            frozenset(self.args),
            self.extra_args == "forbid",
            validator,
            success,
        )

    def _literal(self, matcher: Matcher) -> tuple[Any, Leaves]:
        """The value an argument that matches ``matcher`` exactly equals, and its number leaves:
        a scalar of ``$eq`` (equal and of the same type: a match under every profile), or under the
        lenient profile a literal list or object (see :func:`literal_value`); else
        :data:`NOT_LITERAL`."""
        if (
            isinstance(matcher, EqMatcher)
            and matcher.normalize == "none"
            and not isinstance(matcher.value, dict | list)
        ):
            return matcher.value, ()
        if self.types != "lenient":
            return NOT_LITERAL, ()
        value = literal_value(matcher)
        if not isinstance(value, dict | list):  # NOT_LITERAL (a scalar was taken above)
            return NOT_LITERAL, ()
        return value, number_leaves(value)

    def describe(self) -> str:
        """``tool(arg=matcher, ...)`` for reasons and diffs."""
        inner = ", ".join(f"{key}={describe_matcher(m)}" for key, m in self.args.items())
        return f"{self.tool}({inner})"


def _walk_declared(matcher: Matcher, path: str) -> Iterable[tuple[str, OneOfMatcher]]:
    """Every ``$one_of`` with a ``$declared``/``$items`` type inside ``matcher``."""
    if isinstance(matcher, OneOfMatcher):
        if matcher.declared is not None or matcher.items is not None:
            yield path, matcher
    elif isinstance(matcher, KeysMatcher | ObjectMatcher):
        for key, sub in matcher.fields.items():
            yield from _walk_declared(sub, _join(path, key))
    elif isinstance(matcher, ItemsMatcher):
        for index, sub in enumerate(matcher.items):
            yield from _walk_declared(sub, f"{path}[{index}]")
    elif isinstance(matcher, AllOfMatcher | AnyOfMatcher):
        for part in matcher.parts:
            yield from _walk_declared(part, path)
