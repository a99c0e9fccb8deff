"""The result type every deterministic check returns, and the five axes it is filed under."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

__all__ = ["AXES", "Axis", "CheckResult", "CheckStatus"]

Axis = Literal[
    "tool_selection",
    "argument_correctness",
    "step_efficiency",
    "error_recovery",
    "goal_completion",
]
AXES: tuple[Axis, ...] = (
    "tool_selection",
    "argument_correctness",
    "step_efficiency",
    "error_recovery",
    "goal_completion",
)

CheckStatus = Literal["pass", "fail", "not_run", "error"]
"""``not_run``: the check was skipped (fast mode, no judge); ``error``: the check itself broke."""


class CheckResult(BaseModel):
    """One check on one run: status, an optional 0..1 score, and a reason that reproduces it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    check: str = Field(description="Dotted check id, e.g. 'tools.required' or 'arguments.match'.")
    axis: Axis = Field(description="The axis this check counts toward.")
    status: CheckStatus = Field(description="pass / fail / not_run / error.")
    score: float | None = Field(
        default=None, ge=0.0, le=1.0, description="Partial credit, when defined."
    )
    reason: str = Field(description="Why, in words that reproduce the score.")
    details: dict[str, JsonValue] = Field(default_factory=dict, description="Structured evidence.")
    gating: bool = Field(default=True, description="False for diagnostics that never fail a run.")

    @property
    def passed(self) -> bool:
        return self.status == "pass"
