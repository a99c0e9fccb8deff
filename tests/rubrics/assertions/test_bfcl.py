"""BFCL v4 acceptance on the real public data: ground-truth calls pass, mutated calls fail for the
right reason at the right path. Each ground-truth call is checked against its own expectation (pairing
calls of parallel categories is path.py's job)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathjudge.errors import ImportFormatError
from pathjudge.rubrics.assertions.arguments import (
    CallExpectation,
    ObjectMatcher,
    OneOfMatcher,
    bfcl_schema,
    expectations_from_bfcl,
    match_call,
)

CATEGORIES = ["simple_python", "multiple", "parallel", "parallel_multiple", "live_simple"]
UNEXPECTED = "zz_unexpected_param"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _omittable(values: list[Any]) -> bool:
    return any(isinstance(v, str) and v == "" for v in values)


def _first(values: list[Any]) -> Any:
    """The first acceptable value; BFCL dict answers ({key: [values]}) are built recursively."""
    if not values:
        return []  # BFCL lists no value for a few live parameters; read as ["", []]
    for value in values:
        if not (isinstance(value, str) and value == ""):
            return _build(value)
    return ""


def _build(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _first(v) for k, v in value.items() if not (v and all(x == "" for x in v))}
    if isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
        return [_build(x) for x in value]
    return value


def _load(shared_data: Path, category: str) -> list[tuple[str, dict[str, Any], list[Any]]]:
    root = shared_data / "bfcl_v4"
    questions = _lines(root / f"BFCL_v4_{category}.json")
    answers = {
        e["id"]: e["ground_truth"]
        for e in _lines(root / "possible_answer" / f"BFCL_v4_{category}.json")
    }
    return [(q["id"], q, answers[q["id"]]) for q in questions]


def _wrong_type(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return "not-a-bool"
    if isinstance(value, int | float):
        return "not-a-number"
    if isinstance(value, str):
        return 12345
    return "not-a-container"


def _not_listed(value: Any, values: list[Any]) -> Any | None:
    """A value of the same type that no acceptable value equals (None when there is none)."""
    if isinstance(value, bool):
        return None if (not value) in values else (not value)
    if isinstance(value, int | float):
        return 987654321
    if isinstance(value, str):
        return value + " zz wrong"
    return None


@pytest.mark.parametrize("category", CATEGORIES)
def test_ground_truth_calls_pass_and_mutations_fail(shared_data: Path, category: str) -> None:
    entries = _load(shared_data, category)
    assert entries, f"no BFCL entries for {category}"
    calls = 0
    mutated = {"missing": 0, "wrong_type": 0, "wrong_value": 0, "unexpected": 0}
    for entry_id, question, ground_truth in entries:
        functions = {f["name"]: f for f in question["function"]}
        expectations = expectations_from_bfcl(ground_truth, question["function"], types="lenient")
        assert len(expectations) == len(ground_truth)
        for gt, expected in zip(ground_truth, expectations, strict=True):
            ((name, params),) = gt.items()
            required = set(functions[name]["parameters"].get("required", []))
            calls += 1
            full = {p: _first(v) for p, v in params.items() if not (v and all(x == "" for x in v))}
            result = match_call(name, full, expected)
            assert result.ok, f"{entry_id}: {result.reason}"
            assert result.score == 1.0
            lean = {
                p: a for p, a in full.items() if not (_omittable(params[p]) and p not in required)
            }
            result = match_call(name, lean, expected)
            assert result.ok, f"{entry_id} (optional omitted): {result.reason}"

            # 1. a required parameter dropped
            droppable = [
                p for p in params if p in required and not _omittable(params[p]) and p in full
            ]
            if droppable:
                p = droppable[0]
                result = match_call(name, {k: a for k, a in full.items() if k != p}, expected)
                assert not result.ok
                assert any(m.kind == "missing" and m.path == p for m in result.mismatches), (
                    f"{entry_id}: {result.reason}"
                )
                mutated["missing"] += 1
            # 2. wrong type
            if full:
                p = next(iter(full))
                result = match_call(name, {**full, p: _wrong_type(full[p])}, expected)
                assert not result.ok
                assert any(m.kind == "wrong_type" and m.path == p for m in result.mismatches), (
                    f"{entry_id}: {result.reason}"
                )
                mutated["wrong_type"] += 1
            # 3. a value not in the list
            for p, value in full.items():
                replacement = _not_listed(value, params[p])
                if replacement is None:
                    continue
                result = match_call(name, {**full, p: replacement}, expected)
                assert not result.ok
                assert any(m.kind == "wrong_value" and m.path == p for m in result.mismatches), (
                    f"{entry_id}: {result.reason}"
                )
                mutated["wrong_value"] += 1
                break
            # 4. an unexpected parameter
            result = match_call(name, {**full, UNEXPECTED: 1}, expected)
            assert not result.ok
            assert [(m.path, m.kind) for m in result.mismatches] == [(UNEXPECTED, "unexpected")]
            mutated["unexpected"] += 1
    # every call got the unexpected-parameter mutation; the others wherever they apply
    assert mutated["unexpected"] == calls
    assert mutated["wrong_type"] >= 0.95 * calls
    assert mutated["wrong_value"] >= 0.9 * calls
    assert mutated["missing"] >= 0.8 * calls


def test_bfcl_conversion_on_a_known_entry() -> None:
    # simple_python_0 of BFCL v4, written out: unit may be omitted ("" in its list)
    functions = [
        {
            "name": "calculate_triangle_area",
            "parameters": {
                "type": "dict",
                "properties": {
                    "base": {"type": "integer"},
                    "height": {"type": "integer"},
                    "unit": {"type": "string"},
                },
                "required": ["base", "height"],
            },
        }
    ]
    ground_truth = [
        {"calculate_triangle_area": {"base": [10], "height": [5], "unit": ["units", ""]}}
    ]
    (expected,) = expectations_from_bfcl(ground_truth, functions, types="lenient")
    assert expected.json_schema is not None
    assert expected.json_schema["type"] == "object"
    assert expected.args["unit"] == OneOfMatcher(values=("units", ""))
    name = "calculate_triangle_area"
    assert match_call(name, {"base": 10, "height": 5}, expected).ok
    assert match_call(name, {"base": 10, "height": 5, "unit": "UNITS"}, expected).ok
    result = match_call(name, {"base": 10.5, "height": 5}, expected)
    assert [(m.path, m.kind) for m in result.mismatches] == [
        ("base", "wrong_value"),
        ("base", "wrong_type"),
    ]


def test_bfcl_dict_answers_become_nested_objects() -> None:
    functions = [
        {
            "name": "f",
            "parameters": {
                "type": "dict",
                "properties": {
                    "d": {
                        "type": "dict",
                        "properties": {"a": {"type": "float"}, "b": {"type": "string"}},
                    }
                },
            },
        }
    ]
    (expected,) = expectations_from_bfcl(
        [{"f": {"d": [{"a": [1.5], "b": ["", "x"]}]}}], functions, types="lenient"
    )
    assert isinstance(expected.args["d"], ObjectMatcher)
    assert match_call("f", {"d": {"a": 1.5}}, expected).ok
    result = match_call("f", {"d": {"a": 2, "c": 1}}, expected)
    assert [(m.path, m.kind) for m in result.mismatches] == [
        ("d.a", "wrong_value"),
        ("d.c", "unexpected"),
    ]


def test_bfcl_errors_name_the_problem() -> None:
    with pytest.raises(ImportFormatError, match="unknown BFCL type 'long'"):
        bfcl_schema({"type": "dict", "properties": {"x": {"type": "long"}}})
    with pytest.raises(ImportFormatError, match="'g' is not among the question's functions"):
        expectations_from_bfcl([{"g": {}}], [{"name": "f", "parameters": {}}])
    assert expectations_from_bfcl([], []) == []
    assert isinstance(expectations_from_bfcl([{"f": {}}], [{"name": "f"}])[0], CallExpectation)
