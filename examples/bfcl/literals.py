"""Write a BFCL ground-truth value the way a model writes it in the Java and JavaScript categories.

BFCL asks models for Java/JavaScript calls, so every argument arrives as source text
(``"5L"``, ``"new int[]{1, 2}"``, ``"{format: 'epoch_millis'}"``); the ``bfcl`` typing profile
converts it back by the declared type, as the official checker does. This module does the opposite,
to build the runs of ``make_runs.py`` and the tests: ``render(value, declared, items, language)``.
"""

from __future__ import annotations

import json
from typing import Any


def _java_scalar(value: Any, declared: str | None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if declared == "long" and isinstance(value, int):
        return f"{value}L"
    if declared == "float" and isinstance(value, int | float):
        return f"{float(value)}f"
    if declared == "double" and isinstance(value, int | float):
        return repr(float(value))
    if isinstance(value, str) and declared not in ("String", "any", "char", None):
        return value  # a variable name given for a typed parameter
    return str(value) if not isinstance(value, str) else value


def _java(value: Any, declared: str | None, items: str | None) -> str:
    if isinstance(value, list) and declared == "ArrayList":
        parts = [f'"{x}"' if items in ("String", "char") else _java_scalar(x, items) for x in value]
        return f"new ArrayList<>(Arrays.asList({', '.join(parts)}))"
    if isinstance(value, list):
        # Array items are converted by their declared type, and a String item keeps any quotes:
        # write them bare
        kind = {"integer": "int", "long": "long", "String": "String"}.get(items or "", "Object")
        return f"new {kind}[]{{{', '.join(_java_scalar(x, items) for x in value)}}}"
    if isinstance(value, dict):
        puts = " ".join(f'put("{key}", {_java_put(item)});' for key, item in value.items())
        return f"new HashMap<String, Object>() {{{{ {puts} }}}}"
    return _java_scalar(value, declared)


def _java_put(value: Any) -> str:
    return json.dumps(value) if isinstance(value, str) else _java_scalar(value, None)


def _js(value: Any, declared: str | None, items: str | None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return (
            "["
            + ", ".join(f"'{x}'" if isinstance(x, str) else _js(x, items, None) for x in value)
            + "]"
        )
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {_js_item(item)}" for key, item in value.items()) + "}"
    if declared == "Bigint" and isinstance(value, int):
        return f"{value}n"
    return value if isinstance(value, str) else json.dumps(value)


def _js_item(value: Any) -> str:
    if isinstance(value, str):
        return f"'{value}'"
    return _js(value, None, None)


def render(value: Any, declared: str | None, items: str | None, language: str) -> Any:
    """``value`` as a model writes it: unchanged in Python, source text in Java and JavaScript."""
    if language == "java":
        return _java(value, declared, items)
    if language == "javascript":
        return _js(value, declared, items)
    return value
