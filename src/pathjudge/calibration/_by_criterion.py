"""What a labels file and a verdicts file have in common once read: records keyed by criterion, then
by item id, in the order of the file."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Generic, TypeVar

__all__ = ["ByCriterion"]

T = TypeVar("T")


class ByCriterion(Generic[T]):
    """Mixed into the frozen dataclasses that hold ``by_criterion``: criterion (``None``: records
    without one) -> item id -> record, each in order of first appearance."""

    by_criterion: Mapping[str | None, Mapping[str, T]]

    @property
    def criteria(self) -> tuple[str | None, ...]:
        """The criteria present, in order of first appearance (``None``: records without one)."""
        return tuple(self.by_criterion)

    def items(self, criterion: str | None) -> tuple[T, ...]:
        """The records of ``criterion`` in file order (empty when the criterion is absent)."""
        return tuple(self.by_criterion.get(criterion, {}).values())

    def __len__(self) -> int:
        return sum(len(items) for items in self.by_criterion.values())
