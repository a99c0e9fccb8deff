"""The trajectory schema: immutability, unknown fields, turn order, versions, field order."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from pathjudge.agent.trajectory import SCHEMA_VERSION, RunRecord, Step, Trajectory, Usage


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
    with pytest.raises(ValidationError):
        run.task_id = "other"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        RunRecord.model_validate({"run_id": "r", "task_id": "t", "colour": "red"})
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        Step.model_validate({"tool": "a", "args": {}})


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
