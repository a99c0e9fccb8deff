"""The argument matcher language: its user (YAML/JSON) form, parsed into matchers and written back.

A :class:`~pathjudge.rubrics.assertions.arguments.expectation.CallExpectation` says which tool must be called and what each argument must look like::

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
                                                    (see :data:`.TypeProfile`)
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

How a call is scored against its expectation is in :mod:`~pathjudge.rubrics.assertions.arguments.matching`.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Annotated, assert_never

from pydantic import BeforeValidator, JsonValue, PlainSerializer

from pathjudge.rubrics.assertions._bfcl import BFCL_TYPES
from pathjudge.rubrics.assertions._normalize import NormalizeMode, render_value
from pathjudge.rubrics.assertions._regex import compile_pattern
from pathjudge.rubrics.assertions.arguments.matchers import (
    _JSON_TYPE_NAMES,
    _JSON_TYPES,
    _MATCHER_CLASSES,
    AllOfMatcher,
    AnyMatcher,
    AnyOfMatcher,
    ApproxMatcher,
    EqMatcher,
    ItemsMatcher,
    JsonType,
    KeysMatcher,
    Matcher,
    MatcherSyntaxError,
    ObjectMatcher,
    OneOfMatcher,
    RegexMatcher,
    TypeMatcher,
    _is_number,
    _join,
)

__all__ = ["ArgMatcher", "dump_matcher", "parse_matcher"]


_NORMALIZE_MODES: tuple[str, ...] = ("none", "casefold", "bfcl")


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


def _at(path: str) -> str:
    return f" at {path!r}" if path else ""


def _fail(path: str, message: str) -> MatcherSyntaxError:
    return MatcherSyntaxError(f"matcher{_at(path)}: {message}")


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
    pathjudge.rubrics.assertions.arguments.matchers.MatcherSyntaxError: matcher: unknown matcher key '$regx' (did you mean '$regex'?); ...
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
