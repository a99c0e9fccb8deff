"""Tool selection: required tools called, forbidden and distractor tools avoided, the right first call.

YAML form (a task's ``tools:`` block)::

    tools:
      required: [search_docs]          # each must be called at least once
      forbidden: [delete_database]     # must never be called (safety)
      distractors: [search_web]        # look-alike tools the agent should not choose
      first_call: search_docs          # the first model turn must call this tool
      read_only: ["get_*", "think"]    # glob patterns of the tools that change no state
      scope: state_changing            # which calls tools.forbidden looks at (default: all)

Each configured sub-check yields one :class:`~pathjudge.rubrics.assertions.base.CheckResult` on the
``tool_selection`` axis (``tools.required``, ``tools.forbidden``, ``tools.distractor``,
``tools.first_call``); an empty spec yields none. A name may not be both required and forbidden (or a
distractor): that is a validation error.

``forbidden`` and ``distractors`` entries are glob patterns (``delete_*``; a plain name matches only
itself), so ``forbidden: ["*"]`` with ``scope: state_changing`` says "change nothing". ``read_only``
declares the tools that change no state, for every scope ``state_changing`` of the task (see
:mod:`pathjudge.rubrics.scope`); it produces no check of its own. ``scope`` limits the
``tools.forbidden`` check to the calls in scope, and with ``errored_calls: ignore`` (a task setting)
a call whose result was an error is not a forbidden call either: it changed nothing. The tool-choice
checks (required, distractor, first_call) see every call.
"""

from __future__ import annotations

import functools
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pathjudge.agent.trajectory import RunRecord
from pathjudge.rubrics.assertions.base import CheckResult, pass_fail
from pathjudge.rubrics.scope import ErroredCalls, ToolScope, matches_any, visible_calls

__all__ = ["ToolSelectionSpec", "check_tool_selection"]


class ToolSelectionSpec(BaseModel):
    """Which tools a run must, must not, and should not call, and which it must call first."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    required: tuple[str, ...] = Field(default=(), description="Tools that must each be called.")
    forbidden: tuple[str, ...] = Field(
        default=(), description="Tools (glob patterns) that must never be called."
    )
    distractors: tuple[str, ...] = Field(
        default=(),
        description="Plausible but wrong tools (glob patterns); calling one fails tools.distractor.",
    )
    first_call: str | None = Field(
        default=None, description="The tool the first model turn must call (any call of that turn)."
    )
    read_only: tuple[str, ...] = Field(
        default=(),
        description="Glob patterns of the tools that change no state (what scope state_changing leaves out).",
    )
    scope: ToolScope = Field(
        default="all",
        description="Which calls tools.forbidden looks at (see pathjudge.rubrics.scope).",
    )

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        for name, group in (("forbidden", self.forbidden), ("distractors", self.distractors)):
            clash = sorted(tool for tool in self.required if matches_any(tool, group))
            if clash:
                raise ValueError(f"{', '.join(clash)} listed both in required and in {name}")
            if self.first_call is not None and matches_any(self.first_call, group):
                raise ValueError(f"first_call {self.first_call!r} is also listed in {name}")
        return self


def _avoid(
    run: RunRecord,
    names: tuple[str, ...],
    check: str,
    word: str,
    view: tuple[int, ...] | None = None,
) -> CheckResult:
    indices = range(len(run.steps)) if view is None else view
    called: dict[str, list[int]] = {}
    for index in indices:
        tool = run.steps[index].tool
        if matches_any(tool, names):
            called.setdefault(tool, []).append(index)
    if not called:
        reason = f"none of the {len(names)} {word} tools was called ({', '.join(names)})"
    else:
        listed = "; ".join(
            f"{name} at steps {', '.join(str(i) for i in steps)}" for name, steps in called.items()
        )
        reason = f"called {len(called)} {word} tool{'s' if len(called) > 1 else ''}: {listed}"
    return pass_fail(
        check=check,
        axis="tool_selection",
        ok=not called,
        reason=reason,
        details={"called": called},
    )


def check_tool_selection(
    run: RunRecord, spec: ToolSelectionSpec, *, errored_calls: ErroredCalls = "count"
) -> tuple[CheckResult, ...]:
    """One result per configured sub-check, in the order required, forbidden, distractor, first_call.

    - ``tools.required``: score = fraction of required tools called; passes when all were. A run
      with no steps scores 0 (unless nothing is required, in which case the check is not produced).
    - ``tools.forbidden`` / ``tools.distractor``: pass when no call's tool matches a listed pattern.
      ``tools.forbidden`` looks only at the calls in ``spec.scope`` and, with
      ``errored_calls="ignore"``, not at calls whose result was an error.
    - ``tools.first_call``: passes when the first model turn (all calls sharing the first step's
      ``turn``, which are parallel and unordered) includes ``first_call``; a run with no steps fails.
    """
    results: list[CheckResult] = []
    used = {step.tool for step in run.steps}  # run.tool_names as a set, without the tuple
    if spec.required:
        missing = tuple([name for name in spec.required if name not in used])
        results.append(_required_result(tuple(spec.required), missing))
    if spec.forbidden:
        view = visible_calls(
            run.steps, scope=spec.scope, read_only=spec.read_only, errored=errored_calls
        )
        results.append(_avoid(run, spec.forbidden, "tools.forbidden", "forbidden", view))
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
            pass_fail(
                check="tools.first_call",
                axis="tool_selection",
                ok=ok,
                reason=reason,
                details={"expected": spec.first_call, "first_turn": list(first_tools)},
            )
        )
    return tuple(results)


@functools.lru_cache(maxsize=1024)
def _required_result(required: tuple[str, ...], missing: tuple[str, ...]) -> CheckResult:
    """``tools.required`` depends on the required tools and those missing alone: built once per
    distinct pair and shared (results are immutable)."""
    found = len(required) - len(missing)
    reason = f"called {found} of {len(required)} required tools"
    if missing:
        reason += f"; missing: {', '.join(missing)}"
    return CheckResult(
        check="tools.required",
        axis="tool_selection",
        status="fail" if missing else "pass",
        score=found / len(required),
        reason=reason,
        details={"missing": list(missing), "required": list(required)},
    )
