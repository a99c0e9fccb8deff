"""The configuration's settings models: every key, its type, default and bounds."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_JUDGE_MODEL = "claude-opus-4-8"
DEFAULT_AGENT_MODEL = "claude-haiku-4-5"

Backend = Literal["anthropic", "openai-compatible", "llama-cpp"]
AgentBackend = Literal["anthropic", "openai-compatible", "llama-cpp", "scripted"]


class _Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class JudgeSettings(_Settings):
    """Which model grades, and through which backend."""

    backend: Backend = Field(default="anthropic", description="The judge's model backend.")
    model: str = Field(default=DEFAULT_JUDGE_MODEL, min_length=1, description="The judge model.")
    base_url: str | None = Field(default=None, description="Base URL of the judge's API.")


class AgentSettings(_Settings):
    """The agent under test: its model and backend."""

    backend: AgentBackend = Field(default="anthropic", description="The agent's model backend.")
    model: str = Field(default=DEFAULT_AGENT_MODEL, min_length=1, description="The agent's model.")
    base_url: str | None = Field(default=None, description="Base URL of the agent's API.")


class CalibrationGates(_Settings):
    """Lower CI bounds a judge must reach to be trusted (and an optional cap on its unsure rate)."""

    tpr: float = Field(default=0.8, ge=0.0, le=1.0, description="Minimum true-positive rate.")
    tnr: float = Field(default=0.8, ge=0.0, le=1.0, description="Minimum true-negative rate.")
    kappa: float = Field(default=0.6, ge=-1.0, le=1.0, description="Minimum Cohen's kappa.")
    max_unsure: float | None = Field(
        default=0.2,
        ge=0.0,
        le=1.0,
        description="Maximum upper bound of the rate of 'unsure' verdicts (1 switches it off).",
    )


class AxisWeights(_Settings):
    """Scorecard weight of each of the five axes."""

    tool_selection: float = Field(default=1.0, ge=0.0)
    argument_correctness: float = Field(default=1.0, ge=0.0)
    step_efficiency: float = Field(default=1.0, ge=0.0)
    error_recovery: float = Field(default=1.0, ge=0.0)
    goal_completion: float = Field(default=1.0, ge=0.0)


class LevelWeights(_Settings):
    """Weight of each of the three levels in the overall score."""

    success: float = Field(default=1.0, ge=0.0, description="Task success.")
    tool_calls: float = Field(default=1.0, ge=0.0, description="Tool-call correctness.")
    trajectory: float = Field(default=1.0, ge=0.0, description="Trajectory quality.")


class Weights(_Settings):
    """Scorecard weights: the five axes and the three levels."""

    axes: AxisWeights = Field(default_factory=AxisWeights)
    levels: LevelWeights = Field(default_factory=LevelWeights)


class FailUnder(_Settings):
    """Thresholds under which ``pathjudge score`` exits 1; None means no gate.

    The same metrics, names and ranges as ``--fail-under``: every scorecard metric in [0, 1], and
    ``path`` (the mean path score) in [0, 100].
    """

    passed: float | None = Field(default=None, ge=0.0, le=1.0)
    success: float | None = Field(default=None, ge=0.0, le=1.0)
    partial: float | None = Field(default=None, ge=0.0, le=1.0)
    tool_calls: float | None = Field(default=None, ge=0.0, le=1.0)
    trajectory: float | None = Field(default=None, ge=0.0, le=1.0)
    path: float | None = Field(default=None, ge=0.0, le=100.0)
    overall: float | None = Field(default=None, ge=0.0, le=1.0)
    tool_selection: float | None = Field(default=None, ge=0.0, le=1.0)
    argument_correctness: float | None = Field(default=None, ge=0.0, le=1.0)
    step_efficiency: float | None = Field(default=None, ge=0.0, le=1.0)
    error_recovery: float | None = Field(default=None, ge=0.0, le=1.0)
    goal_completion: float | None = Field(default=None, ge=0.0, le=1.0)


class PathjudgeConfig(_Settings):
    """The effective configuration (every key has a value; see the module docstring)."""

    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    concurrency: int = Field(default=8, ge=1, description="Parallel model calls.")
    cache: Path = Field(default=Path(".pathjudge/cache.sqlite"), description="Verdict cache file.")
    budget_usd: float | None = Field(default=None, ge=0.0, description="Cost budget in US dollars.")
    calibration: CalibrationGates = Field(default_factory=CalibrationGates)
    weights: Weights = Field(default_factory=Weights)
    fail_under: FailUnder = Field(default_factory=FailUnder)
    allow_callables: bool | tuple[str, ...] = Field(
        default=False,
        description="Which suite callables may run (they execute code): all, none, or these modules.",
    )
