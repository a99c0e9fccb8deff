"""Argument correctness: a declarative per-argument matcher language, JSON-schema validation, BFCL import.

A :class:`CallExpectation` says which tool must be called and what each argument must look like::

    tool: search_docs
    args:
      query: {$regex: "rate ?limit", $ignore_case: true}
      k: 2                                  # a plain value: exact match
      filters:                              # a plain mapping: a nested object, matched key by key
        plan: {$one_of: ["Pro", "Scale"]}
        since: {$type: string, $optional: true}
    extra_args: forbid                      # default; "allow" lets unlisted arguments through
    json_schema: {...}                      # optional: the tool's declared input schema

The matcher syntax (``ArgMatcher``)
-----------------------------------
Operator keys start with ``$``; everything else is a literal. One rule decides how a value is read:

- **a scalar** (string, number, bool, null) matches exactly: JSON equality, where ``5`` equals ``5.0``
  but ``true`` never equals ``1``, and strings compare as written;
- **a plain list** matches a list of the same length, element by element, in order; each element is
  itself a matcher (``[1, {$approx: 2.0}]``);
- **a plain mapping** (no ``$`` keys) is a nested object: the value must be an object with exactly
  those keys (each one required unless its matcher is optional) and each key's value must match;
  mismatches are reported at nested paths such as ``filters.dates[0]``;
- **a mapping whose keys all start with** ``$`` is an operator form: exactly one operator, plus the
  modifiers that operator takes, plus ``$optional``:

  ================================================  ==========================================================
  ``{$eq: v, $normalize: none}``                    exactly ``v`` (``v`` is taken literally, even a mapping
                                                    with ``$`` keys); ``$normalize`` applies to strings at
                                                    any depth: ``none`` (default), ``casefold``, ``bfcl``
  ``{$one_of: [a, b, ""], $normalize: bfcl}``       any listed value, BFCL possible-answer semantics: ``""``
                                                    in the list means the argument may be omitted; an int is
                                                    accepted where a float is listed; lists are
                                                    order-sensitive; strings compare under ``$normalize``
                                                    (default ``bfcl``: case, spaces and ``,./-_*^`` ignored)
  ``{$one_of: [...], $declared: long, $items: x}``  under ``types: bfcl`` only: the BFCL AST checker's
                                                    rule for a parameter of that documented type
                                                    (see :data:`TypeProfile`)
  ``{$approx: 3.14, $rel: 1e-3, $abs: 0.01}``       a number within ``max(rel·max(|a|,|b|), abs)`` (the
                                                    :func:`math.isclose` rule); defaults rel 1e-9, abs 0
  ``{$regex: "^rate", $ignore_case: true}``         a string in which the pattern is found (``re.search``;
                                                    anchor with ``^``/``$`` for a full match)
  ``{$any: true}``                                  any value, but the argument must be present
  ``{$type: integer}`` or ``{$type: [string, null]}`` a JSON type: null, boolean, integer, number, string,
                                                    array, object (``integer`` ⊂ ``number``; 2.0 is an
                                                    integer, ``true`` is neither)
  ``{$superset: {k: m, ...}}``                      an object holding at least these keys (each matching);
                                                    other keys are allowed
  ``{$subset: {k: m, ...}}``                        an object with no keys beyond these; each listed key
                                                    may be absent, and matches when present
  ``{$all_of: [m1, m2]}`` / ``{$any_of: [m1, m2]}`` every / at least one matcher holds
  ``$optional: true`` (with any operator)           the argument (or nested key) may be omitted
  ================================================  ==========================================================

Mixing ``$`` keys with plain keys in one mapping, an unknown ``$`` key (``$regx``), a modifier given
to an operator that does not take it, two operators in one mapping, or a malformed operand (a pattern
that does not compile, ``$one_of: []``) is a validation error that names the key and its path; nothing
is ever silently ignored.

Scoring of one call (:func:`match_call`): the call fails on any mismatch; its score is the fraction of
expected arguments (the keys of ``args``) with no mismatch at or under them; a call with no expected
arguments scores 1.0; a call to a different tool scores 0.0 with one ``wrong_tool`` mismatch. An
argument the expectation does not list is an ``unexpected`` mismatch when ``extra_args`` is ``forbid``;
it does not change the score but fails the call.
"""

from __future__ import annotations

import difflib
import functools
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeAlias, assert_never, cast

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
    PlainSerializer,
    field_validator,
    model_validator,
)

from pathjudge.errors import ImportFormatError
from pathjudge.rubrics.assertions._bfcl import (
    BFCL_TYPES,
    BfclLanguage,
    check_param,
    python_kind,
    unsupported_type,
)
from pathjudge.rubrics.assertions._normalize import (
    NormalizeMode,
    json_equal,
    json_kind,
    normalize_json,
    normalize_string,
    render_value,
)
from pathjudge.rubrics.assertions._regex import compile_pattern, search

__all__ = [
    "TYPE_PROFILES",
    "AllOfMatcher",
    "AnyMatcher",
    "AnyOfMatcher",
    "ApproxMatcher",
    "ArgMatcher",
    "ArgMismatch",
    "CallExpectation",
    "CallMatch",
    "EqMatcher",
    "ItemsMatcher",
    "JsonType",
    "KeysMatcher",
    "Matcher",
    "MatcherSyntaxError",
    "MismatchKind",
    "ObjectMatcher",
    "OneOfMatcher",
    "RegexMatcher",
    "TypeMatcher",
    "TypeProfile",
    "bfcl_schema",
    "call_cost",
    "describe_matcher",
    "dump_matcher",
    "expectations_from_bfcl",
    "is_optional",
    "match_call",
    "match_value",
    "parse_matcher",
    "validate_arguments",
]

MismatchKind = Literal["wrong_tool", "missing", "unexpected", "wrong_type", "wrong_value", "schema"]
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
_NORMALIZE_MODES: tuple[str, ...] = ("none", "casefold", "bfcl")


class MatcherSyntaxError(ValueError):
    """A matcher written in a form the language does not have; the message names the key and path.

    It is a ``ValueError`` so that Pydantic reports it as a validation error at the field it sits in.
    """


# --------------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ArgMismatch:
    """One way an actual call differs from its expectation.

    ``path`` is the argument path (``"filters.date[0]"``; ``""`` for the call itself), ``kind`` is one
    of ``wrong_tool, missing, unexpected, wrong_type, wrong_value, schema`` and ``reason`` says it in
    words.
    """

    path: str
    reason: str
    kind: MismatchKind

    def render(self) -> str:
        """``path: reason`` (just the reason for the call itself)."""
        return f"{self.path}: {self.reason}" if self.path else self.reason

    def as_dict(self) -> dict[str, JsonValue]:
        return {"path": self.path, "kind": self.kind, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class CallMatch:
    """How one actual call compares with one :class:`CallExpectation`.

    ``ok`` is True when there is no mismatch at all; ``score`` is the fraction of expected arguments
    matched (1.0 when the expectation lists none, 0.0 when the tool differs); ``matched``/``expected``
    are the counts behind it.
    """

    tool: str
    expected_tool: str
    ok: bool
    score: float
    matched: int
    expected: int
    mismatches: tuple[ArgMismatch, ...]

    @property
    def cost(self) -> float:
        """Pairing cost: 0.0 for a full match, ``2 - score`` (in [1, 2]) otherwise; see :func:`call_cost`."""
        return 0.0 if self.ok else 2.0 - self.score

    @property
    def reason(self) -> str:
        """Words that reproduce ``ok`` and ``score``."""
        if self.tool != self.expected_tool:
            return f"called {self.tool!r}, expected {self.expected_tool!r}"
        head = (
            f"{self.matched} of {self.expected} expected arguments of {self.tool}() matched"
            if self.expected
            else f"{self.tool}() has no expected arguments"
        )
        if not self.mismatches:
            return head
        return head + "; " + "; ".join(m.render() for m in self.mismatches)

    def as_dict(self) -> dict[str, JsonValue]:
        return {
            "tool": self.tool,
            "expected_tool": self.expected_tool,
            "ok": self.ok,
            "score": self.score,
            "matched": self.matched,
            "expected": self.expected,
            "mismatches": [m.as_dict() for m in self.mismatches],
        }


# --------------------------------------------------------------------------------------------------
# Matcher models (the parsed form)
# --------------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------------
# Parsing the user form
# --------------------------------------------------------------------------------------------------

_OPERATORS: dict[str, frozenset[str]] = {
    "$eq": frozenset({"$normalize"}),
    "$one_of": frozenset({"$normalize", "$declared", "$items"}),
    "$approx": frozenset({"$rel", "$abs"}),
    "$regex": frozenset({"$ignore_case"}),
    "$any": frozenset(),
    "$type": frozenset(),
    "$subset": frozenset(),
    "$superset": frozenset(),
    "$all_of": frozenset(),
    "$any_of": frozenset(),
}
_MODIFIERS = frozenset(
    {"$normalize", "$rel", "$abs", "$ignore_case", "$optional", "$declared", "$items"}
)
_ALL_KEYS = tuple(sorted(set(_OPERATORS) | _MODIFIERS))


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _at(path: str) -> str:
    return f" at {path!r}" if path else ""


def _fail(path: str, message: str) -> MatcherSyntaxError:
    return MatcherSyntaxError(f"matcher{_at(path)}: {message}")


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _as_json(value: object, path: str) -> JsonValue:
    """``value`` as a JSON value (tuples become lists), or a syntax error naming what is not JSON."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_as_json(item, f"{path}[{index}]") for index, item in enumerate(value)]
    if isinstance(value, Mapping):
        out: dict[str, JsonValue] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise _fail(path, f"object keys must be strings, got {key!r}")
            out[key] = _as_json(item, _join(path, key))
        return out
    raise _fail(path, f"{type(value).__name__} is not a JSON value")


def _bool_operand(key: str, operand: object, path: str) -> bool:
    if not isinstance(operand, bool):
        raise _fail(path, f"{key} takes true or false, got {render_value(operand)}")
    return operand


def _number_operand(key: str, operand: object, path: str) -> float:
    if not _is_number(operand):
        raise _fail(path, f"{key} takes a number, got {render_value(operand)}")
    assert isinstance(operand, int | float)
    return float(operand)


def _normalize_operand(operand: object, path: str) -> NormalizeMode:
    if operand == "none":
        return "none"
    if operand == "casefold":
        return "casefold"
    if operand == "bfcl":
        return "bfcl"
    raise _fail(
        path,
        f"unknown $normalize mode {render_value(operand)}; use one of {', '.join(_NORMALIZE_MODES)}",
    )


def _type_name_operand(key: str, operand: object, path: str) -> str | None:
    if operand is None:
        return None
    known = sorted({name for names in BFCL_TYPES.values() for name in names})
    if not isinstance(operand, str) or operand not in known:
        raise _fail(
            path, f"{key} takes a BFCL type name ({', '.join(known)}), got {render_value(operand)}"
        )
    return operand


def _list_operand(key: str, operand: object, path: str) -> list[object]:
    if not isinstance(operand, list | tuple) or not operand:
        raise _fail(path, f"{key} takes a non-empty list, got {render_value(operand)}")
    return list(operand)


def _mapping_operand(key: str, operand: object, path: str) -> Mapping[str, object]:
    if not isinstance(operand, Mapping):
        raise _fail(path, f"{key} takes a mapping of keys to matchers, got {render_value(operand)}")
    return operand


def _unknown_key_message(key: str) -> str:
    close = difflib.get_close_matches(key, _ALL_KEYS, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return (
        f"unknown matcher key {key!r}{hint}; known keys are {', '.join(_ALL_KEYS)} "
        "(to match a literal object with '$' keys, wrap it in {$eq: ...})"
    )


def parse_matcher(value: object, path: str = "") -> Matcher:
    """Parse one matcher from its YAML/JSON form (see the module docstring); ``path`` is for messages.

    A :data:`Matcher` instance is returned unchanged. Raises :class:`MatcherSyntaxError` naming the
    offending key and path.

    >>> parse_matcher({"$regex": "^rate", "$ignore_case": True})
    RegexMatcher(optional=False, op='regex', pattern='^rate', ignore_case=True)
    >>> parse_matcher({"$regx": "^rate"})
    Traceback (most recent call last):
    ...
    pathjudge.rubrics.assertions.arguments.syntax.MatcherSyntaxError: matcher: unknown matcher key '$regx' (did you mean '$regex'?); ...
    """
    if isinstance(value, _MATCHER_CLASSES):
        return value
    if isinstance(value, list | tuple):
        return ItemsMatcher(
            items=tuple(parse_matcher(item, f"{path}[{index}]") for index, item in enumerate(value))
        )
    if not isinstance(value, Mapping):
        return EqMatcher(value=_as_json(value, path))
    keys = list(value)
    for key in keys:
        if not isinstance(key, str):
            raise _fail(path, f"object keys must be strings, got {key!r}")
    dollar = [key for key in keys if key.startswith("$")]
    plain = [key for key in keys if not key.startswith("$")]
    if not dollar:
        return ObjectMatcher(
            fields={key: parse_matcher(value[key], _join(path, key)) for key in plain}
        )
    if plain:
        raise _fail(
            path,
            f"mixes operator keys ({', '.join(dollar)}) with plain keys ({', '.join(plain)}); "
            "put nested keys under $superset/$subset, or wrap a literal object in {$eq: ...}",
        )
    for key in dollar:
        if key not in _OPERATORS and key not in _MODIFIERS:
            raise _fail(path, _unknown_key_message(key))
    operators = [key for key in dollar if key in _OPERATORS]
    if not operators:
        raise _fail(
            path,
            f"has only modifier keys ({', '.join(dollar)}); add one operator, e.g. $eq, $one_of, "
            "$regex, $approx, $any, $type",
        )
    if len(operators) > 1:
        raise _fail(
            path,
            f"combines the operators {', '.join(operators)}; use {{$all_of: [...]}} to require several",
        )
    op = operators[0]
    for key in dollar:
        if key in (op, "$optional"):
            continue
        if key not in _OPERATORS[op]:
            owners = sorted(name for name, mods in _OPERATORS.items() if key in mods)
            raise _fail(path, f"{key} does not apply to {op}; it goes with {', '.join(owners)}")
    optional = (
        _bool_operand("$optional", value["$optional"], path) if "$optional" in value else False
    )
    return _build(op, value, path, optional)


def _build(op: str, spec: Mapping[str, object], path: str, optional: bool) -> Matcher:
    operand = spec[op]
    if op == "$eq":
        normalize = _normalize_operand(spec["$normalize"], path) if "$normalize" in spec else "none"
        return EqMatcher(value=_as_json(operand, path), normalize=normalize, optional=optional)
    if op == "$one_of":
        normalize = _normalize_operand(spec["$normalize"], path) if "$normalize" in spec else "bfcl"
        declared = _type_name_operand("$declared", spec.get("$declared"), path)
        if declared is not None and isinstance(operand, list | tuple) and not operand:
            items: list[object] = []  # BFCL lists no acceptable value: nothing matches
        else:
            items = _list_operand(op, operand, path)
        item_type = _type_name_operand("$items", spec.get("$items"), path)
        return OneOfMatcher(
            values=tuple(_as_json(item, f"{path}[{i}]") for i, item in enumerate(items)),
            normalize=normalize,
            optional=optional,
            declared=declared,
            items=item_type,
        )
    if op == "$approx":
        rel = _number_operand("$rel", spec["$rel"], path) if "$rel" in spec else 1e-9
        abs_tol = _number_operand("$abs", spec["$abs"], path) if "$abs" in spec else 0.0
        if rel < 0 or abs_tol < 0:
            raise _fail(path, "$rel and $abs must not be negative")
        return ApproxMatcher(
            value=_number_operand(op, operand, path), rel=rel, abs=abs_tol, optional=optional
        )
    if op == "$regex":
        if not isinstance(operand, str):
            raise _fail(path, f"$regex takes a pattern string, got {render_value(operand)}")
        ignore_case = (
            _bool_operand("$ignore_case", spec["$ignore_case"], path)
            if "$ignore_case" in spec
            else False
        )
        try:
            compile_pattern(operand, ignore_case)
        except ValueError as exc:
            raise _fail(path, f"$regex pattern {operand!r} does not compile: {exc}") from None
        return RegexMatcher(pattern=operand, ignore_case=ignore_case, optional=optional)
    if op == "$any":
        if operand is not True:
            raise _fail(path, "$any takes only true; to allow omission add $optional: true instead")
        return AnyMatcher(optional=optional)
    if op == "$type":
        names = operand if isinstance(operand, list | tuple) else [operand]
        if not names:
            raise _fail(path, "$type takes a type name or a non-empty list of them")
        types: list[JsonType] = []
        for name in names:
            known = _JSON_TYPE_NAMES.get(name) if isinstance(name, str) else None
            if known is None:
                raise _fail(
                    path,
                    f"unknown $type {render_value(name)}; use one of {', '.join(_JSON_TYPES)}",
                )
            types.append(known)
        return TypeMatcher(types=tuple(types), optional=optional)
    if op in ("$subset", "$superset"):
        fields = _mapping_operand(op, operand, path)
        return KeysMatcher(
            mode="subset" if op == "$subset" else "superset",
            fields={key: parse_matcher(item, _join(path, key)) for key, item in fields.items()},
            optional=optional,
        )
    if op in ("$all_of", "$any_of"):
        parts = tuple(parse_matcher(item, path) for item in _list_operand(op, operand, path))
        if op == "$all_of":
            return AllOfMatcher(parts=parts, optional=optional)
        return AnyOfMatcher(parts=parts, optional=optional)
    raise _fail(path, _unknown_key_message(op))  # unreachable: op comes from _OPERATORS


def dump_matcher(matcher: Matcher) -> JsonValue:
    """The user (YAML/JSON) form of ``matcher``; :func:`parse_matcher` reads it back to an equal matcher.

    An optional plain object or list is written as ``{$all_of: [...], $optional: true}``.
    """
    out: dict[str, JsonValue]
    if isinstance(matcher, EqMatcher):
        if (
            matcher.normalize == "none"
            and not matcher.optional
            and not isinstance(matcher.value, dict | list)
        ):
            return matcher.value
        out = {"$eq": matcher.value}
        if matcher.normalize != "none":
            out["$normalize"] = matcher.normalize
    elif isinstance(matcher, OneOfMatcher):
        out = {"$one_of": list(matcher.values)}
        if matcher.normalize != "bfcl":
            out["$normalize"] = matcher.normalize
        if matcher.declared is not None:
            out["$declared"] = matcher.declared
        if matcher.items is not None:
            out["$items"] = matcher.items
    elif isinstance(matcher, ApproxMatcher):
        out = {"$approx": matcher.value, "$rel": matcher.rel, "$abs": matcher.abs}
    elif isinstance(matcher, RegexMatcher):
        out = {"$regex": matcher.pattern}
        if matcher.ignore_case:
            out["$ignore_case"] = True
    elif isinstance(matcher, AnyMatcher):
        out = {"$any": True}
    elif isinstance(matcher, TypeMatcher):
        out = {"$type": list(matcher.types) if len(matcher.types) > 1 else matcher.types[0]}
    elif isinstance(matcher, KeysMatcher):
        out = {f"${matcher.mode}": {key: dump_matcher(m) for key, m in matcher.fields.items()}}
    elif isinstance(matcher, ObjectMatcher | ItemsMatcher):
        plain: JsonValue = (
            {key: dump_matcher(m) for key, m in matcher.fields.items()}
            if isinstance(matcher, ObjectMatcher)
            else [dump_matcher(m) for m in matcher.items]
        )
        if not matcher.optional:
            return plain
        out = {"$all_of": [plain]}
    elif isinstance(matcher, AllOfMatcher):
        out = {"$all_of": [dump_matcher(m) for m in matcher.parts]}
    elif isinstance(matcher, AnyOfMatcher):
        out = {"$any_of": [dump_matcher(m) for m in matcher.parts]}
    else:
        assert_never(matcher)
    if matcher.optional:
        out["$optional"] = True
    return out


def _coerce_matcher(value: object) -> Matcher:
    return parse_matcher(value)


ArgMatcher = Annotated[
    Matcher,
    BeforeValidator(_coerce_matcher),
    PlainSerializer(dump_matcher),
]
"""A matcher field: accepts the user form (or a parsed matcher) and serialises back to the user form."""


# --------------------------------------------------------------------------------------------------
# Matching
# --------------------------------------------------------------------------------------------------


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


def _got(value: object) -> str:
    return f"{json_kind(value)} {render_value(value)}"


def _type_ok(value: object, name: JsonType) -> bool:
    kind = json_kind(value)
    if name == "integer":
        return kind == "number" and (
            isinstance(value, int) or (isinstance(value, float) and value.is_integer())
        )
    return kind == name


TypeProfile = Literal["lenient", "bfcl"]
"""How argument values are typed (see the README section "Argument typing profiles").

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


def _profile(types: TypeProfile, language: BfclLanguage) -> _Bfcl | None:
    if types == "lenient":
        return None
    if types == "bfcl":
        return _BFCL_PYTHON if language == "python" else _Bfcl(language)
    assert_never(types)


def _inferred_type(values: Sequence[JsonValue]) -> tuple[str | None, str | None]:
    """The BFCL type names (declared, items) of the first value that is not ``""``."""
    for value in values:
        if isinstance(value, str) and value == "":
            continue
        kind = python_kind(value)
        if kind == "array":
            first = value[0] if isinstance(value, list) and value else None
            return "array", (python_kind(first) if first is not None else None)
        return (kind if kind in BFCL_TYPES["python"] else None), None
    return None, None


def _bfcl_equal(value: object, expected: object, mode: NormalizeMode, level: int) -> bool:
    """Typed equality of the ``bfcl`` profile (strings under ``mode`` down to level 1)."""
    if level == 0 and type(expected) is float and type(value) is int:
        return float(value) == expected
    if type(value) is not type(expected):
        return False
    if isinstance(value, str):
        assert isinstance(expected, str)
        if level <= 1:
            return normalize_string(value, mode) == normalize_string(expected, mode)
        return value == expected  # deeper strings compare exactly
    if isinstance(value, list):
        assert isinstance(expected, list)
        return len(value) == len(expected) and all(
            _bfcl_equal(a, b, mode, level + 1) for a, b in zip(value, expected, strict=True)
        )
    if isinstance(value, dict):
        assert isinstance(expected, dict)
        return value.keys() == expected.keys() and all(
            _bfcl_equal(value[key], expected[key], mode, level + 1) for key in value
        )
    return value == expected


def _bfcl_one_of(
    matcher: OneOfMatcher,
    value: JsonValue,
    path: str,
    out: list[ArgMismatch],
    bfcl: _Bfcl,
    level: int,
) -> None:
    declared, items = matcher.declared, matcher.items
    language = bfcl.language
    if declared is None:
        declared, inferred_items = _inferred_type(matcher.values)
        items = items or inferred_items
        language = "python"
    if declared is None:  # only null (or "") listed: typed equality with some value
        if not any(_bfcl_equal(value, v, matcher.normalize, level) for v in matcher.values):
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
        if not _bfcl_equal(value, matcher.value, matcher.normalize, level):
            kind: MismatchKind = (
                "wrong_value"
                if python_kind(value) == python_kind(matcher.value)
                or (level == 0 and type(matcher.value) is float and type(value) is int)
                else "wrong_type"
            )
            out.append(_mismatch(matcher, value, path, kind))
        return
    expected = normalize_json(matcher.value, matcher.normalize)
    if not json_equal(normalize_json(value, matcher.normalize), expected):
        kind = "wrong_value" if json_kind(value) == json_kind(matcher.value) else "wrong_type"
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
        ok = any(
            type(value) is int if name == "integer" else _type_ok(value, name)
            for name in matcher.types
        )
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


# --------------------------------------------------------------------------------------------------
# JSON schema
# --------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _cached_validator(schema_text: str) -> Any:
    from jsonschema import Draft7Validator
    from jsonschema import validators as _jsonschema_validators

    schema = json.loads(schema_text)
    cls = _jsonschema_validators.validator_for(schema, default=Draft7Validator)
    cls.check_schema(schema)
    return cls(schema)


def _make_validator(schema: Mapping[str, Any]) -> Any:
    """A checked, cached validator: the ``$schema`` dialect, JSON Schema draft 7 when absent."""
    return _cached_validator(json.dumps(schema, sort_keys=True))


def _render_path(parts: Iterable[object]) -> str:
    text = ""
    for part in parts:
        text = f"{text}[{part}]" if isinstance(part, int) else _join(text, str(part))
    return text


def _schema_mismatches(validator: Any, arguments: object) -> list[ArgMismatch]:
    out: list[ArgMismatch] = []
    errors = sorted(
        validator.iter_errors(arguments),
        key=lambda e: (_render_path(e.absolute_path), str(e.validator), e.message),
    )
    for error in errors:
        base = _render_path(error.absolute_path)
        if error.validator == "required" and isinstance(error.instance, dict):
            for name in error.validator_value:
                if name not in error.instance:
                    out.append(
                        ArgMismatch(
                            _join(base, name), "missing (required by the schema)", "missing"
                        )
                    )
        elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
            declared = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
            for name in error.instance:
                if name not in declared:
                    out.append(
                        ArgMismatch(
                            _join(base, name),
                            "unexpected (not declared in the schema)",
                            "unexpected",
                        )
                    )
        elif error.validator == "type":
            out.append(
                ArgMismatch(
                    base,
                    f"expected type {render_value(error.validator_value)} per the schema, "
                    f"got {_got(error.instance)}",
                    "wrong_type",
                )
            )
        else:
            out.append(ArgMismatch(base, f"schema: {error.message}", "schema"))
    return out


def validate_arguments(
    arguments: Mapping[str, JsonValue], json_schema: Mapping[str, Any]
) -> tuple[ArgMismatch, ...]:
    """Validate ``arguments`` against a JSON schema (its ``$schema`` dialect; draft 7 when absent, the
    dialect tool-use APIs document).

    Type errors become ``wrong_type``, ``required`` becomes one ``missing`` per absent property,
    ``additionalProperties: false`` one ``unexpected`` per extra key, anything else ``schema``. An
    empty tuple means valid. An invalid schema raises ``jsonschema.SchemaError``.
    """
    return tuple(_schema_mismatches(_make_validator(json_schema), arguments))


# --------------------------------------------------------------------------------------------------
# The call expectation
# --------------------------------------------------------------------------------------------------


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

    ``args`` maps argument names to matchers in the user form (see the module docstring).
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
            from jsonschema.exceptions import SchemaError

            try:
                _make_validator(value)
            except SchemaError as exc:
                raise ValueError(f"not a valid JSON schema: {exc.message}") from None
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


def _plan_of(expected: CallExpectation) -> _Plan:
    plan = expected.compiled
    tool, args, extra, schema, types, language = plan.source
    if (
        args is not expected.args
        or schema is not expected.json_schema
        or tool != expected.tool
        or extra != expected.extra_args
        or types != expected.types
        or language != expected.language
    ):
        # a model_copy(update=...) carried a plan built for other fields: rebuild it
        expected.__dict__.pop("compiled", None)
        plan = expected.compiled
    return plan


def match_call(
    tool: str, arguments: Mapping[str, JsonValue], expected: CallExpectation
) -> CallMatch:
    """Compare one actual call with one expectation (see the module docstring for the scoring rule).

    Mismatches come in this order: expected arguments (in ``args`` order), unexpected arguments (in
    call order), then schema findings not already reported at the same path with the same kind.

    >>> exp = CallExpectation(tool="search_docs", args={"query": {"$regex": "rate"}, "k": 2})
    >>> match_call("search_docs", {"query": "rate limits", "k": 3}, exp).reason
    '1 of 2 expected arguments of search_docs() matched; k: expected 2, got number 3'
    """
    if tool != expected.tool:
        mismatch = ArgMismatch("", f"called {tool!r}, expected {expected.tool!r}", "wrong_tool")
        return CallMatch(tool, expected.tool, False, 0.0, 0, len(expected.args), (mismatch,))
    plan = _plan_of(expected)
    mismatches: list[ArgMismatch] = []
    failed: set[str] = set()
    for name, matcher, literal, leaves, optional in plan.entries:
        if name in arguments:
            value = arguments[name]
            if (
                literal is not NOT_LITERAL
                and type(value) is type(literal)
                and value == literal
                and (not leaves or same_kinds(value, leaves))
            ):
                continue
            before = len(mismatches)
            _check(matcher, value, name, mismatches, plan.profile)
            if len(mismatches) > before:
                failed.add(name)
        elif not optional:
            mismatches.append(
                ArgMismatch(name, f"missing (expected {describe_matcher(matcher)})", "missing")
            )
            failed.add(name)
    if plan.forbid_extra:
        for name in arguments:
            if name not in plan.names:
                mismatches.append(
                    ArgMismatch(
                        name,
                        f"unexpected argument (value {render_value(arguments[name])})",
                        "unexpected",
                    )
                )
    if plan.validator is not None:
        seen = {(m.path, m.kind) for m in mismatches}
        for finding in _schema_mismatches(plan.validator, arguments):
            if (finding.path, finding.kind) in seen:
                continue
            seen.add((finding.path, finding.kind))
            mismatches.append(finding)
            head = re.split(r"[.\[]", finding.path, maxsplit=1)[0]
            if head in plan.names:
                failed.add(head)
    if not mismatches:
        return plan.success
    total = len(expected.args)
    matched = total - len(failed)
    score = matched / total if total else 1.0
    return CallMatch(tool, expected.tool, not mismatches, score, matched, total, tuple(mismatches))


def call_cost(tool: str, arguments: Mapping[str, JsonValue], expected: CallExpectation) -> float:
    """Cost of pairing this call with ``expected`` for optimal assignment.

    0.0 for a full match; ``2 - score`` otherwise, so any failed pair costs between 1 and 2 (2 for a
    different tool). A full match is always cheaper than any failed pair; among failed pairs, more
    matched arguments is cheaper. Price "leaving a call unpaired" at more than 2 to prefer pairing.
    """
    return match_call(tool, arguments, expected).cost


# --------------------------------------------------------------------------------------------------
# BFCL import
# --------------------------------------------------------------------------------------------------

_BFCL_TYPES: dict[str, str | None] = {
    "dict": "object",
    "object": "object",
    "float": "number",
    "number": "number",
    "integer": "integer",
    "string": "string",
    "boolean": "boolean",
    "array": "array",
    "tuple": "array",
    "any": None,
}


def bfcl_schema(
    parameters: Mapping[str, Any], *, where: str = "parameters"
) -> dict[str, JsonValue]:
    """A JSON schema from a BFCL function's ``parameters``: ``dict``→object, ``float``→number,
    ``tuple``→array, ``any``→no type constraint; ``properties``, ``items`` and
    ``additionalProperties`` are converted recursively; other keys are copied.

    An unknown type name raises :class:`~pathjudge.errors.ImportFormatError` naming where it is.
    """
    out: dict[str, JsonValue] = {}
    for key, value in parameters.items():
        if key == "type":
            if not isinstance(value, str) or value not in _BFCL_TYPES:
                raise ImportFormatError(
                    f"unknown BFCL type {value!r}",
                    field=where,
                    hint=f"expected one of {', '.join(_BFCL_TYPES)}",
                )
            mapped = _BFCL_TYPES[value]
            if mapped is not None:
                out["type"] = mapped
        elif key == "properties" and isinstance(value, Mapping):
            out[key] = {
                name: bfcl_schema(sub, where=f"{where}.properties.{name}")
                for name, sub in value.items()
            }
        elif key in ("items", "additionalProperties") and isinstance(value, Mapping):
            out[key] = bfcl_schema(value, where=f"{where}.{key}")
        else:
            out[key] = _as_json(value, f"{where}.{key}")
    return out


def _fits(value: object, json_type: str) -> bool:
    known = _JSON_TYPE_NAMES.get(json_type)
    return _type_ok(value, known) if known is not None else True


def _omitted(value: object) -> bool:
    return isinstance(value, str) and value == ""


def _bfcl_param(values: Sequence[Any], schema: Mapping[str, Any] | None) -> Matcher:
    if not values:
        # BFCL lists no acceptable value at all (a few live entries); read it as its usual pair
        # ["", []]: the argument may be omitted, or given as an empty list.
        return OneOfMatcher(values=("", []), normalize="bfcl")
    optional = any(_omitted(v) for v in values)
    present = [v for v in values if not _omitted(v)]
    declared = schema.get("type") if schema else None
    if present and declared == "object" and all(isinstance(v, dict) for v in present):
        sub_props = schema.get("properties", {}) if schema else {}
        parts: list[Matcher] = [
            ObjectMatcher(
                fields={
                    key: _bfcl_param(list(sub), sub_props.get(key)) for key, sub in answer.items()
                }
            )
            for answer in present
        ]
    elif (
        present
        and declared == "array"
        and all(isinstance(v, list) and v and all(isinstance(x, dict) for x in v) for v in present)
    ):
        item_schema = schema.get("items") if schema else None
        item_props = item_schema.get("properties", {}) if isinstance(item_schema, dict) else {}
        parts = [
            ItemsMatcher(
                items=tuple(
                    ObjectMatcher(
                        fields={
                            k: _bfcl_param(list(sub), item_props.get(k)) for k, sub in d.items()
                        }
                    )
                    for d in answer
                )
            )
            for answer in present
        ]
    else:
        return OneOfMatcher(values=tuple(_as_json(v, "") for v in values), normalize="bfcl")
    if len(parts) == 1:
        return parts[0].model_copy(update={"optional": optional})
    return AnyOfMatcher(parts=tuple(parts), optional=optional)


def _widen(prop: dict[str, JsonValue], values: Sequence[Any]) -> dict[str, JsonValue]:
    """Let a BFCL "variable" answer through: where a listed answer has another type than declared (or
    is outside a declared ``enum``), add its type (or value) to the schema; recurse into array items
    and into the keys of dict answers."""
    present = [v for v in values if not _omitted(v)]
    declared = prop.get("type")
    if isinstance(declared, str):
        extra = sorted({json_kind(v) for v in present if not _fits(v, declared)} - {declared})
        if extra:
            prop = {**prop, "type": [declared, *extra]}
    enum = prop.get("enum")
    if isinstance(enum, list):
        missing = [v for v in present if not any(json_equal(v, e) for e in enum)]
        if missing:
            prop = {**prop, "enum": [*enum, *(_as_json(v, "") for v in missing)]}
    items = prop.get("items")
    if isinstance(items, dict):
        elements = [x for v in present if isinstance(v, list) for x in v]
        if elements and all(isinstance(x, dict) for x in elements):
            prop = {**prop, "items": _widen_object(items, elements)}
        elif elements:
            prop = {**prop, "items": _widen(items, elements)}
    if isinstance(prop.get("properties"), dict):
        answers = [v for v in present if isinstance(v, dict)]
        if answers:
            prop = _widen_object(prop, answers)
    return prop


def _widen_object(
    prop: dict[str, JsonValue], answers: Sequence[Mapping[str, Any]]
) -> dict[str, JsonValue]:
    props = prop.get("properties")
    if not isinstance(props, dict):
        return prop
    widened = dict(props)
    for answer in answers:
        for key, sub_values in answer.items():
            sub = widened.get(key)
            if isinstance(sub, dict) and isinstance(sub_values, list):
                widened[key] = _widen(sub, sub_values)
    return {**prop, "properties": widened}


def expectations_from_bfcl(
    ground_truth: Sequence[Mapping[str, Any]],
    functions: Sequence[Mapping[str, Any]],
    *,
    types: TypeProfile = "bfcl",
    language: BfclLanguage = "python",
) -> list[CallExpectation]:
    """One :class:`CallExpectation` per BFCL ground-truth call, in order.

    ``ground_truth`` is a BFCL ``possible_answer`` entry's ``ground_truth`` list (each item
    ``{function_name: {param: [acceptable values]}}``), ``functions`` the question's ``function`` list,
    ``language`` the category's language (``java`` for ``simple_java``, ``javascript`` for
    ``simple_javascript``, else ``python``).

    With ``types="bfcl"`` (default) the expectations follow the official AST checker: each parameter
    becomes ``{$one_of: [answers], $declared: <documented type>, $items: <item type>}`` under the
    ``bfcl`` typing profile, the schema only says which parameters the documentation requires, and
    unlisted arguments are forbidden (as is an answer's parameter that the function does not
    document: it may only be left out, when ``""`` is listed). A parameter that is documented as required must be given even
    when ``""`` is among its answers; one whose answer list is empty can never be matched (as in the
    checker). A documented type the checker cannot convert (Java ``Set``, an unknown name) raises
    :class:`~pathjudge.errors.ImportFormatError`.

    With ``types="lenient"`` (pathjudge's first reading) each parameter becomes a ``$one_of`` over its
    acceptable values under JSON typing; a dict-typed parameter whose answers are dicts becomes a
    nested object matcher, a list of dicts a list of such objects, several alternatives an
    ``$any_of``; the function's ``parameters`` become ``json_schema`` via :func:`bfcl_schema`, widened
    where a listed answer has another type than declared. Java and JavaScript types are refused.

    An empty ``ground_truth`` gives an empty list; a call to a function that is not in ``functions``
    raises :class:`~pathjudge.errors.ImportFormatError`.
    """
    by_name = {str(f["name"]): f for f in functions}
    out: list[CallExpectation] = []
    for index, call in enumerate(ground_truth):
        if len(call) != 1:
            raise ImportFormatError(
                f"a ground-truth call must have exactly one function name, got {sorted(call)}",
                field=f"ground_truth[{index}]",
            )
        ((name, params),) = call.items()
        if name not in by_name:
            raise ImportFormatError(
                f"ground-truth function {name!r} is not among the question's functions",
                field=f"ground_truth[{index}]",
                hint=f"declared: {', '.join(sorted(by_name))}",
            )
        for param, values in params.items():
            if not isinstance(values, list):
                raise ImportFormatError(
                    f"parameter {param!r} must map to a list of acceptable values",
                    field=f"ground_truth[{index}].{name}",
                )
        if types == "bfcl":
            out.append(_bfcl_expectation(name, params, by_name[name], language, index))
        elif types == "lenient":
            if language != "python":
                raise ImportFormatError(
                    f"the lenient typing profile cannot read {language} literals",
                    field=f"ground_truth[{index}]",
                    hint="use types='bfcl'",
                )
            out.append(_lenient_expectation(name, params, by_name[name]))
        else:
            assert_never(types)
    return out


def _bfcl_expectation(
    name: str,
    params: Mapping[str, list[Any]],
    function: Mapping[str, Any],
    language: BfclLanguage,
    index: int,
) -> CallExpectation:
    parameters = function.get("parameters") or {}
    properties = parameters.get("properties") or {}
    required = [str(p) for p in parameters.get("required") or []]
    args: dict[str, Matcher] = {}
    for param, values in params.items():
        prop = properties.get(param)
        if not isinstance(prop, Mapping):
            # An answer for a parameter the function does not document: giving it is unexpected
            # (the checker's rule), so it may only be left out, and only when "" is listed.
            if "" not in values:
                args[param] = OneOfMatcher(values=(), declared="any")
            continue
        declared = prop.get("type")
        item_spec = prop.get("items")
        items = item_spec.get("type") if isinstance(item_spec, Mapping) else None
        for type_name, what in ((declared, "type"), (items, "items.type")):
            if type_name is None:
                continue
            problem = (
                unsupported_type(type_name, language)
                if isinstance(type_name, str)
                else f"type {type_name!r} is not a type name"
            )
            if problem is not None:
                raise ImportFormatError(
                    problem,
                    field=f"{name}.parameters.properties.{param}.{what}",
                    hint=f"ground_truth[{index}]: the BFCL checker cannot grade this parameter",
                )
        if declared is None and not values:
            declared = "any"  # no type and no answer: nothing can match, as in the checker
        args[param] = OneOfMatcher(
            values=tuple(_as_json(v, f"{param}[{i}]") for i, v in enumerate(values)),
            normalize="bfcl",
            declared=declared,
            items=items if declared is not None else None,
        )
    schema: dict[str, JsonValue] | None = (
        {"type": "object", "required": list(required)} if required else None
    )
    return CallExpectation(
        tool=name, args=args, json_schema=schema, types="bfcl", language=language
    )


def _lenient_expectation(
    name: str, params: Mapping[str, list[Any]], function: Mapping[str, Any]
) -> CallExpectation:
    schema = bfcl_schema(function.get("parameters", {}), where=f"{name}.parameters")
    props = schema.get("properties")
    props = dict(props) if isinstance(props, dict) else {}
    args: dict[str, Matcher] = {}
    for param, values in params.items():
        prop = props.get(param)
        prop_schema = prop if isinstance(prop, dict) else None
        args[param] = _bfcl_param(values, prop_schema)
        if prop_schema is not None:
            props[param] = _widen(prop_schema, values)
    if props:
        schema = {**schema, "properties": props}
    return CallExpectation(tool=name, args=args, json_schema=schema)
