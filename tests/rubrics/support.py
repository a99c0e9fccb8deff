"""Hypothesis strategies shared by the alignment tests: small reference paths in every mode and runs
of a few calls over the same tools (repeats, parallel turns, wrong arguments, bad argument JSON)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics.path import MODES, ReferencePath

TOOLS = ["a", "b", "c"]
VALUES: list[Any] = ["x", "y", "X", 1, 1.0]


@st.composite
def references(draw: st.DrawFn) -> ReferencePath:
    mode = draw(st.sampled_from(MODES))
    n = draw(st.integers(min_value=0, max_value=4))
    steps: list[dict[str, Any]] = []
    for j in range(n):
        step: dict[str, Any] = {"id": f"s{j}", "tool": draw(st.sampled_from(TOOLS))}
        if draw(st.integers(0, 2)) == 0:
            step["args"] = {"v": draw(st.sampled_from(["x", "y"]))}
            if draw(st.booleans()):
                step["args"]["w"] = draw(st.sampled_from(["x", "y"]))  # partial credit 0.5
        if draw(st.integers(0, 9)) == 0:
            step["result_contains"] = ["doc1"]
        if mode == "partial_order" and j and draw(st.booleans()):
            step["after"] = draw(
                st.lists(st.sampled_from([f"s{k}" for k in range(j)]), min_size=1, unique=True)
            )
        steps.append(step)
    return ReferencePath.model_validate({"mode": mode, "steps": steps})


@st.composite
def runs(draw: st.DrawFn) -> RunRecord:
    n = draw(st.integers(min_value=0, max_value=5))
    steps: list[Step] = []
    turn = 0
    for k in range(n):
        if k and draw(st.integers(0, 3)) > 0:
            turn += 1
        tool = draw(st.sampled_from(TOOLS))
        if draw(st.integers(0, 11)) == 0:
            steps.append(Step(tool=tool, turn=turn, arguments_error="bad", raw_arguments="{v"))
        else:
            steps.append(
                Step(
                    tool=tool,
                    turn=turn,
                    arguments={
                        "v": draw(st.sampled_from(VALUES)),
                        "w": draw(st.sampled_from(VALUES)),
                    },
                    result=draw(st.sampled_from([None, "doc1", {"id": "doc1"}])),
                )
            )
    return RunRecord(run_id="r", task_id="t", steps=tuple(steps))
