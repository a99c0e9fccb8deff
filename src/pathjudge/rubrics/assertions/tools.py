"""Tool selection: required tools called, forbidden and distractor tools avoided, the right first call.

YAML form (a task's ``tools:`` block)::

    tools:
      required: [search_docs]          # each must be called at least once
      forbidden: [delete_database]     # must never be called (safety)
      distractors: [search_web]        # look-alike tools the agent should not choose
      first_call: search_docs          # the first model turn must call this tool

Each configured sub-check yields one :class:`~pathjudge.rubrics.assertions.base.CheckResult` on the
``tool_selection`` axis (``tools.required``, ``tools.forbidden``, ``tools.distractor``,
``tools.first_call``); an empty spec yields none. A name may not be both required and forbidden (or a
distractor): that is a validation error.
"""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pathjudge.agent.trajectory import RunRecord
from pathjudge.rubrics.assertions.base import CheckResult

__all__ = ["ToolSelectionSpec", "check_tool_selection"]


class ToolSelectionSpec(BaseModel):
    """Which tools a run must, must not, and should not call, and which it must call first."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    required: tuple[str, ...] = Field(default=(), description="Tools that must each be called.")
    forbidden: tuple[str, ...] = Field(default=(), description="Tools that must never be called.")
    distractors: tuple[str, ...] = Field(
        default=(), description="Plausible but wrong tools; calling one fails tools.distractor."
    )
    first_call: str | None = Field(
        default=None, description="The tool the first model turn must call (any call of that turn)."
    )

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        for name, group in (("forbidden", self.forbidden), ("distractors", self.distractors)):
            clash = sorted(set(self.required) & set(group))
            if clash:
                raise ValueError(f"{', '.join(clash)} listed both in required and in {name}")
            if self.first_call is not None and self.first_call in group:
                raise ValueError(f"first_call {self.first_call!r} is also listed in {name}")
        return self


def _steps_of(run: RunRecord, name: str) -> list[int]:
    return [index for index, step in enumerate(run.steps) if step.tool == name]


def _avoid(run: RunRecord, names: tuple[str, ...], check: str, word: str) -> CheckResult:
    hits = {name: _steps_of(run, name) for name in names}
    called = {name: steps for name, steps in hits.items() if steps}
    if not called:
        return CheckResult(
            check=check,
            axis="tool_selection",
            status="pass",
            score=1.0,
            reason=f"none of the {len(names)} {word} tools was called ({', '.join(names)})",
            details={"called": {}},
        )
    listed = "; ".join(
        f"{name} at steps {', '.join(str(i) for i in steps)}" for name, steps in called.items()
    )
    return CheckResult(
        check=check,
        axis="tool_selection",
        status="fail",
        score=0.0,
        reason=f"called {len(called)} {word} tool{'s' if len(called) > 1 else ''}: {listed}",
        details={"called": {name: list(steps) for name, steps in called.items()}},
    )


def check_tool_selection(run: RunRecord, spec: ToolSelectionSpec) -> tuple[CheckResult, ...]:
    """One result per configured sub-check, in the order required, forbidden, distractor, first_call.

    - ``tools.required``: score = fraction of required tools called; passes when all were. A run
      with no steps scores 0 (unless nothing is required, in which case the check is not produced).
    - ``tools.forbidden`` / ``tools.distractor``: pass when none of the listed tools was called.
    - ``tools.first_call``: passes when the first model turn (all calls sharing the first step's
      ``turn``, which are parallel and unordered) includes ``first_call``; a run with no steps fails.
    """
    results: list[CheckResult] = []
    used = set(run.tool_names)
    if spec.required:
        missing = [name for name in spec.required if name not in used]
        found = len(spec.required) - len(missing)
        reason = f"called {found} of {len(spec.required)} required tools"
        if missing:
            reason += f"; missing: {', '.join(missing)}"
        results.append(
            CheckResult(
                check="tools.required",
                axis="tool_selection",
                status="fail" if missing else "pass",
                score=found / len(spec.required),
                reason=reason,
                details={"missing": list(missing), "required": list(spec.required)},
            )
        )
    if spec.forbidden:
        results.append(_avoid(run, spec.forbidden, "tools.forbidden", "forbidden"))
    if spec.distractors:
        results.append(_avoid(run, spec.distractors, "tools.distractor", "distractor"))
    if spec.first_call is not None:
        first_turn = next(run.turns(), ())
        first_tools = [step.tool for step in first_turn]
        ok = spec.first_call in first_tools
        if not first_tools:
            reason = f"no tool was called; expected the first call to be {spec.first_call}"
        elif ok:
            reason = f"the first turn called {spec.first_call}"
        else:
            reason = f"the first turn called {', '.join(first_tools)}, expected {spec.first_call}"
        results.append(
            CheckResult(
                check="tools.first_call",
                axis="tool_selection",
                status="pass" if ok else "fail",
                score=1.0 if ok else 0.0,
                reason=reason,
                details={"expected": spec.first_call, "first_turn": list(first_tools)},
            )
        )
    return tuple(results)
