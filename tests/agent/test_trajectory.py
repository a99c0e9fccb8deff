"""The trajectory schema: immutability, unknown fields, turn order, versions, field order."""

from __future__ import annotations

import dataclasses
import json
import pickle
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from pathjudge.agent.trajectory import (
    SCHEMA_VERSION,
    AgentInfo,
    Reply,
    RunRecord,
    Step,
    Timing,
    Trajectory,
    Usage,
)


def test_alias_and_defaults() -> None:
    run = Trajectory(run_id="r", task_id="t")
    assert RunRecord is Trajectory
    assert run.schema_version == SCHEMA_VERSION == 2
    assert (run.epoch, run.steps, run.final_answer, run.metadata) == (0, (), None, {})
    assert run.error_count == 0
    assert run.tool_names == ()
    assert list(run.turns()) == []


def test_frozen_and_unknown_fields_rejected() -> None:
    run = RunRecord(run_id="r", task_id="t")
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.task_id = "other"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="Unexpected keyword argument"):
        RunRecord.model_validate({"run_id": "r", "task_id": "t", "colour": "red"})
    with pytest.raises(ValidationError, match="Unexpected keyword argument"):
        Step.model_validate({"tool": "a", "args": {}})
    with pytest.raises(ValidationError, match="Unexpected keyword argument"):
        RunRecord.model_validate_json('{"run_id": "r", "task_id": "t", "colour": "red"}')


def test_turns_group_parallel_calls_and_must_not_decrease() -> None:
    run = RunRecord(
        run_id="r",
        task_id="t",
        steps=(
            Step(tool="a", turn=0),
            Step(tool="b", turn=0, is_error=True),
            Step(tool="c", turn=2),
        ),
    )
    assert [[s.tool for s in group] for group in run.turns()] == [["a", "b"], ["c"]]
    assert run.error_count == 1
    with pytest.raises(ValidationError, match=r"steps\[1\].turn is 0"):
        RunRecord(run_id="r", task_id="t", steps=(Step(tool="a", turn=1), Step(tool="b", turn=0)))


def test_newer_schema_version_is_refused_with_a_fix() -> None:
    with pytest.raises(ValidationError, match="newer than this pathjudge reads"):
        RunRecord.model_validate({"schema_version": 3, "run_id": "r", "task_id": "t"})


def test_field_order_is_the_declaration_order() -> None:
    line = RunRecord(run_id="r", task_id="t", steps=(Step(tool="a"),)).model_dump_json()
    keys = list(json.loads(line))
    assert keys[:3] == ["schema_version", "run_id", "task_id"]
    assert keys[-1] == "metadata"
    step_keys = list(json.loads(line)["steps"][0])
    assert step_keys[:4] == ["decision", "turn", "call_id", "tool"]


def test_malformed_arguments_flag_and_usage_sum() -> None:
    step = Step(tool="a", raw_arguments="{oops", arguments_error="invalid JSON")
    assert step.arguments_malformed
    assert not Step(tool="a").arguments_malformed
    total = Usage(input_tokens=1, output_tokens=2, cost_usd=0.5) + Usage(cache_read_input_tokens=4)
    # 1 + 2 + 0 + 4 = 7 tokens; cost 0.5 + (unknown → 0) = 0.5
    assert (total.total_tokens, total.cost_usd) == (7, 0.5)
    assert (Usage() + Usage()).cost_usd is None


# --- the records are slotted pydantic dataclasses with a model's methods ---------------------------

RECORDS = (RunRecord, Step, Usage, Timing, AgentInfo, Reply)


def _run() -> RunRecord:
    return RunRecord(
        run_id="r",
        task_id="t",
        epoch=2,
        steps=(Step(tool="a", arguments={"x": [1, {"y": None}]}, result={"ok": True}),),
        final_answer="done",
        replies=(Reply(text="done", after_steps=1),),
        usage=Usage(input_tokens=3, cost_usd=0.5),
        metadata={"source": "test"},
    )


@pytest.mark.parametrize("record", RECORDS, ids=lambda c: c.__name__)
def test_a_field_is_a_slot_not_a_model_attribute(record: type[Any]) -> None:
    # no __dict__ and no __getattr__ anywhere in the class: a field read is a plain slot read, which
    # is why the records are not BaseModels (see trajectory._Record)
    assert dataclasses.is_dataclass(record)
    assert not issubclass(record, BaseModel)
    assert not any("__getattr__" in vars(k) for k in record.__mro__)
    assert not hasattr(_run(), "__dict__")
    assert not hasattr(Step(tool="a"), "__dict__")
    assert list(record.model_fields) == [f.name for f in dataclasses.fields(record)]


def test_the_model_methods_keep_their_meaning() -> None:
    run = _run()
    line = run.model_dump_json()
    assert RunRecord.model_validate_json(line) == run
    assert RunRecord.model_validate_json(line.encode()) == run
    assert RunRecord.model_validate(json.loads(line)) == run
    assert RunRecord.model_validate(run) is run  # an instance is taken as it is, as by a model
    assert run.to_json() == line.encode()
    assert json.loads(line) == run.model_dump(mode="json")
    assert list(json.loads(line)) == list(RunRecord.model_fields)  # declaration order
    dumped = run.model_dump()
    assert dumped["steps"][0] == {**Step(tool="a").model_dump(), "arguments": {"x": [1, {"y": None}]}, "result": {"ok": True}}  # fmt: skip
    assert run.model_dump(include={"run_id", "epoch"}) == {"run_id": "r", "epoch": 2}
    assert "metadata" not in run.model_dump(exclude={"metadata"})
    assert "cost_usd" not in Usage().model_dump(exclude_none=True)
    assert json.loads(Usage(output_tokens=4).model_dump_json(exclude_defaults=True)) == {
        "output_tokens": 4
    }
    assert run.model_dump_json(indent=2).startswith('{\n  "schema_version": 2')
    assert pickle.loads(pickle.dumps(run)) == run
    assert run != run.model_copy(update={"epoch": 3})
    assert run == run.model_copy()
    with pytest.raises(TypeError):
        _ = {run}  # frozen, but it holds dicts: unhashable, as a frozen model holding dicts is


def test_model_copy_replaces_without_validating_as_a_model_does() -> None:
    run = _run()
    later = run.model_copy(update={"epoch": 7, "task_id": ""})
    assert (later.epoch, later.task_id, later.steps) == (7, "", run.steps)
    assert (run.epoch, run.task_id) == (2, "t")  # the original is untouched
    with pytest.raises(dataclasses.FrozenInstanceError):
        later.epoch = 1  # type: ignore[misc]
    with pytest.raises(TypeError, match="no field 'colour'"):
        run.model_copy(update={"colour": "red"})


def test_the_json_schema_describes_every_field() -> None:
    schema = RunRecord.model_json_schema()
    assert schema["title"] == "RunRecord"
    assert schema["additionalProperties"] is False
    assert list(schema["properties"]) == list(RunRecord.model_fields)
    assert schema["required"] == ["run_id", "task_id"]
    step = schema["$defs"]["Step"]
    assert step["required"] == ["tool"]
    assert step["properties"]["turn"]["minimum"] == 0
    assert "Tool calls in issue order." in schema["properties"]["steps"]["description"]
