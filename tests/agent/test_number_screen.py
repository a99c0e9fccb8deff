"""The run record's number screen: numbers JSON cannot carry are found in the validated record.

pydantic's JSON parser accepts ``NaN``, ``Infinity``, ``1e400`` and integers of any length; the runs
readers refuse them. For a run record they look in the record's number-holding fields
(:func:`~pathjudge.agent.trajectory.holds_unrepresentable_number`) instead of scanning the line's bytes
again. These tests pin that screen to the byte scan (the plain path) over generated lines, pin the list
of fields it reads to the models, and check the error names the field.
"""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from pathjudge._io import iter_jsonl, line_problem
from pathjudge._json import first_unrepresentable, unrepresentable, unrepresentable_in
from pathjudge.agent.io import read_runs
from pathjudge.agent.trajectory import (
    NUMBER_FIELDS,
    AgentInfo,
    Reply,
    RunRecord,
    Step,
    Timing,
    Usage,
    holds_unrepresentable_number,
)
from pathjudge.errors import RecordError
from pathjudge.scoring.chunk import parse_run

# number literals, as text: ordinary ones, and each kind JSON cannot carry
_GOOD = [
    "0",
    "7",
    "-3",
    "2.5",
    "1e308",
    "-1.5E+308",
    "1e-400",
    "9" * 299,
    "-" + "9" * 298,
    "9" * 209 + "e99",
]
_BAD = [
    "NaN",
    "Infinity",
    "-Infinity",
    "1e400",
    "-2E+309",
    "1" + "0" * 300,
    "-" + "9" * 300,
    "1" + "0" * 210 + "e99",  # beyond 1e308 with a two-digit exponent
]
number_text = st.sampled_from(_GOOD + _BAD)
json_text: st.SearchStrategy[str] = st.recursive(
    st.one_of(
        number_text,
        st.sampled_from(['"NaN"', '"a 1e400 string"', '"x"', "true", "null"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(lambda xs: "[" + ",".join(xs) + "]"),
        st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3).map(
            lambda d: "{" + ",".join(f'"{k}":{v}' for k, v in d.items()) + "}"
        ),
    ),
    max_leaves=8,
)
json_object = st.dictionaries(st.sampled_from(["a", "b", "c"]), json_text, max_size=3).map(
    lambda d: "{" + ",".join(f'"{k}":{v}' for k, v in d.items()) + "}"
)
count_text = st.sampled_from(["0", "3", "1" + "0" * 300, "9" * 299])
float_text = st.sampled_from(["0", "1.5", "1e300", "1e400", "Infinity", "1" + "0" * 320])


@st.composite
def run_lines(draw: st.DrawFn) -> str:
    fields = ['"run_id":"r"', '"task_id":"t"']
    if draw(st.booleans()):
        fields.append(f'"epoch":{draw(count_text)}')
    if draw(st.booleans()):
        fields.append(f'"input":{draw(json_text)}')
    if draw(st.booleans()):
        fields.append(f'"metadata":{draw(json_object)}')
    if draw(st.booleans()):
        fields.append(
            f'"usage":{{"input_tokens":{draw(count_text)},"output_tokens":{draw(count_text)},'
            f'"cache_read_input_tokens":{draw(count_text)},'
            f'"cache_creation_input_tokens":{draw(count_text)},"cost_usd":{draw(float_text)}}}'
        )
    if draw(st.booleans()):
        fields.append(f'"timing":{{"duration_ms":{draw(float_text)}}}')
    steps = []
    for turn in range(draw(st.integers(0, 3))):
        step = [f'"tool":"t{turn}"', f'"turn":{turn}']
        if draw(st.booleans()):
            step.append(f'"arguments":{draw(json_object)}')
        if draw(st.booleans()):
            step.append(f'"result":{draw(json_text)}')
        if draw(st.booleans()):
            step.append(f'"state":{draw(json_object)}')
        if draw(st.booleans()):
            step.append(f'"latency_ms":{draw(float_text)}')
        steps.append("{" + ",".join(step) + "}")
    if draw(st.booleans()) or not steps:
        fields.append('"steps":[' + ",".join(steps) + "]")
    else:
        fields.append('"steps":[' + ",".join(steps) + "]")
        fields.append(f'"replies":[{{"text":"hi","after_steps":{len(steps)}}}]')
    return "{" + ",".join(fields) + "}"


@settings(max_examples=400, deadline=None)
@given(run_lines())
def test_the_record_screen_finds_what_the_byte_scan_finds(line: str) -> None:
    raw = line.encode()
    try:
        record = RunRecord.model_validate_json(raw)
    except PydanticValidationError:
        return  # refused before any number check (e.g. a huge float in an integer field)
    by_bytes = line_problem(raw, file="runs.jsonl", line=4)
    by_record = line_problem(raw, file="runs.jsonl", line=4, record=record)
    assert (by_record is None) == (by_bytes is None), line
    assert holds_unrepresentable_number(record) == (by_bytes is not None)
    assert (first_unrepresentable(record) is not None) == (by_bytes is not None)
    # the grading path and the generic reader give the same answer
    parsed = parse_run("runs.jsonl", 4, raw)
    assert isinstance(parsed, RecordError) == (by_bytes is not None)


@given(json_text)
def test_unrepresentable_in_is_the_plain_recursive_rule(text: str) -> None:
    value = json.loads(text)

    def plain(node: Any) -> bool:
        if isinstance(node, dict):
            return any(plain(v) for v in node.values())
        if isinstance(node, list):
            return any(plain(v) for v in node)
        return unrepresentable(node)

    assert unrepresentable_in(value) == plain(value)
    assert (first_unrepresentable(value) is not None) == plain(value)


def _numeric(annotation: Any) -> bool:
    """Whether a field annotation can hold a JSON number (int, float, JSON values, timestamps)."""
    if annotation in (int, float) or getattr(annotation, "__name__", "") in ("datetime",):
        return True
    text = str(annotation)
    if "JsonValue" in text:
        return True
    args = typing.get_args(annotation)
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return any(_numeric(a) for a in args)
    if typing.get_origin(annotation) is typing.Literal:
        return any(isinstance(a, int | float) and not isinstance(a, bool) for a in args)
    return any(_numeric(a) for a in args if not isinstance(a, type) or a is not str)


def _models() -> list[type[BaseModel]]:
    return [RunRecord, Step, Usage, Timing, AgentInfo, Reply]


def test_number_fields_are_every_field_that_can_hold_a_number() -> None:
    # a new numeric field on a run record must be added to the screen and to NUMBER_FIELDS
    for model in _models():
        numeric = {
            name
            for name, info in model.model_fields.items()
            if _numeric(info.annotation) and not isinstance(info.annotation, type(BaseModel))
        }
        nested_models = {
            name
            for name, info in model.model_fields.items()
            if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel)
        }
        assert numeric - nested_models == NUMBER_FIELDS[model.__name__], model.__name__
    # and every model a run record holds is listed
    assert set(NUMBER_FIELDS) == {m.__name__ for m in _models()}


@pytest.mark.parametrize(
    ("fragment", "field"),
    [
        ('"steps":[{"tool":"a","arguments":{"x":[1,{"y":NaN}]}}]', "steps[0].arguments.x[1].y"),
        ('"usage":{"cost_usd":Infinity}', "usage.cost_usd"),
        ('"timing":{"duration_ms":1e400}', "timing.duration_ms"),
        ('"metadata":{"n":' + "1" * 301 + "}", "metadata.n"),
        ('"steps":[{"tool":"a"},{"tool":"b","result":[0,-1e999]}]', "steps[1].result[1]"),
    ],
)
def test_the_error_names_the_field_and_the_line(tmp_path: Path, fragment: str, field: str) -> None:
    line = '{"run_id":"r","task_id":"t",' + fragment + "}"
    found = parse_run("runs.jsonl", 7, line.encode())
    assert isinstance(found, RecordError)
    assert found.field == field
    assert found.line == 7
    assert "cannot carry" in str(found)
    runs = tmp_path / "runs.jsonl"
    runs.write_text('{"run_id":"ok","task_id":"t"}\n' + line + "\n")
    with pytest.raises(RecordError) as caught:
        list(read_runs(runs))
    assert caught.value.field == field
    assert caught.value.line == 2


def test_other_models_keep_the_byte_scan(tmp_path: Path) -> None:
    class Row(BaseModel):
        n: float

    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"n": 1}\n{"n": NaN}\n')
    with pytest.raises(RecordError, match="cannot carry") as caught:
        list(iter_jsonl(rows, Row))
    assert caught.value.line == 2


def test_a_string_that_reads_like_a_bad_number_is_fine() -> None:
    line = b'{"run_id":"r","task_id":"t","input":"NaN 1e400","steps":[{"tool":"a","result":"Infinity"}]}'
    assert isinstance(parse_run("runs.jsonl", 1, line), RunRecord)
