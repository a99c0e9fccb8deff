"""JSON-schema validation of a call's arguments, its findings as argument mismatches."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import JsonValue

from pathjudge.rubrics.assertions._normalize import render_value
from pathjudge.rubrics.assertions.arguments.matchers import _join
from pathjudge.rubrics.assertions.arguments.mismatch import ArgMismatch, _got

__all__ = ["validate_arguments"]


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


def _require_valid_schema(schema: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` (a field validator's error) when ``schema`` is not a valid JSON schema."""
    from jsonschema.exceptions import SchemaError

    try:
        _make_validator(schema)
    except SchemaError as exc:
        raise ValueError(f"not a valid JSON schema: {exc.message}") from None


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
