"""Reading a pairwise calibration: human preferences and the judge's both-orders verdicts.

Human preferences (``--labels`` with ``--pairwise``), one object a line::

    {"item_id": "p1", "preference": "A"}          # A, B or tie

The judge's verdicts (``--verdicts``), one line per item and presentation order::

    {"item_id": "p1", "order": "ab", "verdict": "first"}
    {"item_id": "p1", "order": "ba", "verdict": "second"}

``order`` is ``ab`` (A shown first) or ``ba`` (B shown first). ``verdict`` is the judge's answer,
either positional (``first``, ``second``) or already naming the candidate (``A``, ``B``), or
``tie``, ``unsure`` (could not decide) or ``error`` (unparsed output, a failed call: read as
unsure). Optional on both: ``metadata``; on verdicts also ``reasoning`` and ``model``. Integer ids
are read as text.

Pairing: a verdict for an item without a preference is ignored, and an item with a preference but
without a verdict in both orders is left out; :func:`load_pairwise` returns a note for each case.
Two verdicts for the same item and order are an error naming both lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import Field, JsonValue

from pathjudge._ids import ItemId
from pathjudge._records import FrozenModel as Record
from pathjudge.calibration._jsonl import numbered_records
from pathjudge.calibration.pairwise import JudgeWinner, Order, PairwiseItem, Winner, unswap
from pathjudge.errors import LabelsError

__all__ = [
    "PairwiseInput",
    "PairwisePreference",
    "PairwiseVerdict",
    "load_pairwise",
    "read_pairwise",
]


class PairwisePreference(Record):
    """One human preference between candidates A and B."""

    item_id: ItemId
    preference: Winner = Field(description="The candidate the humans prefer: A, B or tie.")
    metadata: dict[str, JsonValue] = Field(default_factory=dict)


class PairwiseVerdict(Record):
    """The judge's answer for one item in one presentation order."""

    item_id: ItemId
    order: Order = Field(description="ab: A shown first; ba: B shown first.")
    verdict: Literal["first", "second", "A", "B", "tie", "unsure", "error"] = Field(
        description="Positional (first/second) or by candidate (A/B), tie, unsure or error."
    )
    reasoning: str | None = None
    model: str | None = None
    metadata: dict[str, JsonValue] = Field(default_factory=dict)

    @property
    def winner(self) -> JudgeWinner:
        """The candidate named (A/B), tie, or unsure (for unsure and error)."""
        verdict = self.verdict
        if verdict == "first" or verdict == "second":
            return unswap(verdict, self.order)
        if verdict == "error" or verdict == "unsure":
            return "unsure"
        return verdict


@dataclass(frozen=True)
class PairwiseInput:
    """What :func:`read_pairwise` found: the paired items, notes on the pairing, and who judged."""

    items: list[PairwiseItem]
    notes: list[str]
    judges: dict[str, int] = field(default_factory=dict)
    """Answers per model named in the verdicts (``"unnamed grader"`` for lines without a model)."""


def load_pairwise(labels: str | Path, verdicts: str | Path) -> tuple[list[PairwiseItem], list[str]]:
    """Pair preferences with both-orders verdicts: ``(items in labels order, notes)``."""
    found = read_pairwise(labels, verdicts)
    return found.items, found.notes


def read_pairwise(labels: str | Path, verdicts: str | Path) -> PairwiseInput:
    """Pair preferences with both-orders verdicts (module docstring), and count who judged."""
    prefs: dict[str, tuple[int, PairwisePreference]] = {}
    for line, pref in numbered_records(labels, PairwisePreference, what="pairwise preference"):
        if pref.item_id in prefs:
            raise LabelsError(
                f"item {pref.item_id!r} has a second preference (first on line "
                f"{prefs[pref.item_id][0]})",
                file=labels,
                line=line,
                field="item_id",
                hint="keep one preference per item",
            )
        prefs[pref.item_id] = (line, pref)
    answers: dict[tuple[str, str], tuple[int, JudgeWinner]] = {}
    unknown: list[str] = []
    judges: dict[str, int] = {}
    for line, verdict in numbered_records(verdicts, PairwiseVerdict, what="pairwise verdict"):
        key = (verdict.item_id, verdict.order)
        if key in answers:
            raise LabelsError(
                f"item {verdict.item_id!r} has a second verdict for order {verdict.order} (first "
                f"on line {answers[key][0]})",
                file=verdicts,
                line=line,
                field="order",
                hint="give each item one verdict per order (ab and ba)",
            )
        answers[key] = (line, verdict.winner)
        who = verdict.model or "unnamed grader"
        judges[who] = judges.get(who, 0) + 1
        if verdict.item_id not in prefs and verdict.item_id not in unknown:
            unknown.append(verdict.item_id)
    items: list[PairwiseItem] = []
    incomplete: list[str] = []
    for item_id, (_, pref) in prefs.items():
        ab, ba = answers.get((item_id, "ab")), answers.get((item_id, "ba"))
        if ab is None or ba is None:
            incomplete.append(item_id)
            continue
        items.append(PairwiseItem(item_id=item_id, human=pref.preference, ab=ab[1], ba=ba[1]))
    notes: list[str] = []
    if unknown:
        notes.append(
            f"{len(unknown)} judged item(s) have no human preference and are ignored: "
            + ", ".join(repr(i) for i in unknown[:5])
            + (" ..." if len(unknown) > 5 else "")
        )
    if incomplete:
        notes.append(
            f"{len(incomplete)} item(s) with a preference lack a verdict in both orders and are "
            "left out: "
            + ", ".join(repr(i) for i in incomplete[:5])
            + (" ..." if len(incomplete) > 5 else "")
        )
    if not items:
        raise LabelsError(
            "no item has both a human preference and verdicts in both orders",
            file=verdicts,
            hint="judge every preferred item twice, with order ab and order ba, and check that the "
            "item ids match the preferences file",
        )
    return PairwiseInput(items=items, notes=notes, judges=judges)
