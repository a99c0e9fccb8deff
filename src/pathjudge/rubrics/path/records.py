"""The plain records of an alignment: how a call compares with a step, and a step paired with a call.

Frozen dataclasses built in the grading hot path (no validation); each has a ``to_dict`` JSON form.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pathjudge.agent.trajectory import Step

__all__ = ["ArgDiff", "PairedStep", "StepMatch", "StepMatcher"]


@dataclass(frozen=True, slots=True)
class ArgDiff:
    """One argument of a paired call that differs from its reference step.

    - ``path``: the argument path, e.g. ``order.id`` or ``items[0]``; ``result`` for a result check;
    - ``reason``: what differs, e.g. ``expected 'A17', got 'B99'``;
    - ``kind``: the kind of difference (matcher-defined).

    A plain frozen record (built in the grading hot path); :meth:`to_dict` gives its JSON form.
    """

    path: str
    reason: str
    kind: str = "value"

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "reason": self.reason, "kind": self.kind}

    def model_dump(self, *, mode: str = "python") -> dict[str, str]:
        """Same as :meth:`to_dict` (kept for callers written against the earlier Pydantic model)."""
        return self.to_dict()


@dataclass(frozen=True, slots=True)
class StepMatch:
    """How one call compares with one reference step of the same tool."""

    ok: bool
    score: float
    diffs: tuple[ArgDiff, ...] = ()


StepMatcher = Callable[[Step], StepMatch]
"""Compares a call (already known to use the step's tool) with one reference step."""


@dataclass(frozen=True, slots=True)
class PairedStep:
    """A reference step paired with a call of the run.

    ``ref``: the reference step id (``#N``, its 1-based position, when it has no id); ``call``: the
    0-based index of the paired call; ``ok``: whether the call fully matches the step (arguments and
    result); ``in_order``: False when the pair only exists out of the required order; ``diffs``: the
    argument paths that differ.
    """

    ref: str
    call: int
    tool: str
    ok: bool
    in_order: bool
    diffs: tuple[ArgDiff, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "ref": self.ref,
            "call": self.call,
            "tool": self.tool,
            "ok": self.ok,
            "in_order": self.in_order,
            "diffs": [d.to_dict() for d in self.diffs],
        }
