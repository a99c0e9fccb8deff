"""Who produced a set of verdicts (:class:`JudgeName`), public as
:class:`pathjudge.calibration.verdicts.JudgeName`.

It has a module of its own because a score report names its judges: ``pathjudge score`` and
:class:`~pathjudge.scoring.pipeline.ScoreReport` need this one model, not the verdicts file models
and readers of :mod:`pathjudge.calibration.verdicts`, which are built only when verdicts are read.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["JudgeName"]


class JudgeName(BaseModel):
    """Who produced a set of verdicts, as far as the file says: backend, model, criterion hash."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    backend: str | None = None
    model: str | None = None
    criterion: str | None = None
    criterion_version: str | None = Field(
        default=None, description="The criterion's declared version, when the verdicts say it."
    )
    criterion_hash: str | None = None
    samples: int = Field(default=0, description="Judgements (samples) by this grader.")

    def describe(self) -> str:
        """``openai:smollm2 · summary-faithful v2 sha256:0123… (40 samples)`` (what is known of it)."""
        who = ":".join(p for p in (self.backend, self.model) if p) or "unnamed grader"
        crit = self.criterion or "(unnamed criterion)"
        version = f" v{self.criterion_version}" if self.criterion_version else ""
        digest = f" {self.criterion_hash}" if self.criterion_hash else ""
        samples = f"{self.samples} sample{'' if self.samples == 1 else 's'}"
        return f"{who} · {crit}{version}{digest} ({samples})"
