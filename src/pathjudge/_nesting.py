"""A process-wide setting held by nested ``with`` blocks: made by the outermost one, undone as it ends.

Shared by :mod:`pathjudge._heap` (the frozen heap) and :mod:`pathjudge._interrupt` (the SIGINT
handler), whose blocks nest when grading runs inside a judge run or a grading pool.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["Nesting"]


class Nesting:
    """How many blocks of :meth:`hold` are open now (``depth``; 0 outside all of them)."""

    __slots__ = ("depth",)

    def __init__(self) -> None:
        self.depth = 0

    @contextmanager
    def hold(self, enter: Callable[[], None], leave: Callable[[], None]) -> Iterator[None]:
        """Call ``enter()`` as the outermost block starts and ``leave()`` as it ends (even on an
        exception); a block inside another one only counts."""
        if self.depth == 0:
            enter()
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if self.depth == 0:
                leave()
