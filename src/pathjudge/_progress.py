"""The progress callback: how a long operation reports progress without knowing who draws it.

The library never draws. A long operation (judging, collecting runs, polling a batch) takes a
``progress`` argument, a :data:`Progress` factory; the face that called it (the CLI, a notebook, a
test) decides what to show. The CLI hands in :func:`pathjudge.report.progress.progress_bars`, which
draws rich bars on stderr when it is a terminal; ``None`` (the default everywhere) shows nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol, TypeAlias

__all__ = ["Progress", "ProgressHandle", "no_progress", "or_no_progress"]


class ProgressHandle(Protocol):
    """What an operation reports on: ``advance(n)`` after finishing ``n`` more units of work."""

    def advance(self, n: int = 1) -> None: ...


Progress: TypeAlias = Callable[[str, int | None], AbstractContextManager[ProgressHandle]]
"""``progress(description, total)`` opens a progress display for one operation of ``total`` units
(None: unknown) and returns a context manager whose value is a :class:`ProgressHandle`."""


class _Null:
    def advance(self, n: int = 1) -> None:
        return None


@contextmanager
def no_progress(description: str, total: int | None) -> Iterator[ProgressHandle]:
    """The :data:`Progress` that shows nothing."""
    yield _Null()


def or_no_progress(progress: Progress | None) -> Progress:
    """``progress``, or :func:`no_progress` when it is None."""
    return no_progress if progress is None else progress
