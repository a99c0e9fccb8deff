"""BFCL import: expectations from a BFCL ground-truth entry and its function docs.

What the BFCL typing profile means when a call is checked (typed equality, the per-parameter
``$one_of`` rule, ``$declared``/``$items``, Java and JavaScript literals) is in
:mod:`~pathjudge.rubrics.assertions._bfcl`; this module reads BFCL's data into
:class:`~pathjudge.rubrics.assertions.arguments.expectation.CallExpectation` objects that apply it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, assert_never

from pydantic import JsonValue

from pathjudge.errors import ImportFormatError
from pathjudge.rubrics.assertions._bfcl import BfclLanguage, unsupported_type
from pathjudge.rubrics.assertions._normalize import json_equal, json_kind
from pathjudge.rubrics.assertions.arguments.expectation import CallExpectation
from pathjudge.rubrics.assertions.arguments.matchers import (
    _JSON_TYPE_NAMES,
    AnyOfMatcher,
    ItemsMatcher,
    Matcher,
    ObjectMatcher,
    OneOfMatcher,
    _type_ok,
)
from pathjudge.rubrics.assertions.arguments.profiles import TypeProfile
from pathjudge.rubrics.assertions.arguments.syntax import _as_json

__all__ = ["bfcl_schema", "expectations_from_bfcl"]


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
