"""What a comparison of calls with expectations reports: mismatch records, call results, their reasons.

An :class:`ArgMismatch` is one way an actual call differs from its expectation (a path, a kind, a
reason in words); a :class:`CallMatch` is one call's verdict against one expectation, with the score
and the words that reproduce it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import JsonValue

from pathjudge._records import field_values
from pathjudge.rubrics.assertions._normalize import json_kind, render_value

__all__ = ["ArgMismatch", "CallMatch", "MismatchKind"]

MismatchKind = Literal["wrong_tool", "missing", "unexpected", "wrong_type", "wrong_value", "schema"]


@dataclass(frozen=True, slots=True)
class ArgMismatch:
    """One way an actual call differs from its expectation.

    ``path`` is the argument path (``"filters.date[0]"``; ``""`` for the call itself), ``kind`` is one
    of ``wrong_tool, missing, unexpected, wrong_type, wrong_value, schema`` and ``reason`` says it in
    words.
    """

    path: str
    reason: str
    kind: MismatchKind

    def render(self) -> str:
        """``path: reason`` (just the reason for the call itself)."""
        return f"{self.path}: {self.reason}" if self.path else self.reason

    def as_dict(self) -> dict[str, JsonValue]:
        return {"path": self.path, "kind": self.kind, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class CallMatch:
    """How one actual call compares with one :class:`CallExpectation`.

    ``ok`` is True when there is no mismatch at all; ``score`` is the fraction of expected arguments
    matched (1.0 when the expectation lists none, 0.0 when the tool differs); ``matched``/``expected``
    are the counts behind it.
    """

    tool: str
    expected_tool: str
    ok: bool
    score: float
    matched: int
    expected: int
    mismatches: tuple[ArgMismatch, ...]

    @property
    def cost(self) -> float:
        """Pairing cost: 0.0 for a full match, ``2 - score`` (in [1, 2]) otherwise; see :func:`call_cost`."""
        return 0.0 if self.ok else 2.0 - self.score

    @property
    def reason(self) -> str:
        """Words that reproduce ``ok`` and ``score``."""
        if self.tool != self.expected_tool:
            return f"called {self.tool!r}, expected {self.expected_tool!r}"
        head = (
            f"{self.matched} of {self.expected} expected arguments of {self.tool}() matched"
            if self.expected
            else f"{self.tool}() has no expected arguments"
        )
        if not self.mismatches:
            return head
        return head + "; " + "; ".join(m.render() for m in self.mismatches)

    def as_dict(self) -> dict[str, JsonValue]:
        return {**field_values(self), "mismatches": [m.as_dict() for m in self.mismatches]}


def _got(value: object) -> str:
    return f"{json_kind(value)} {render_value(value)}"
