"""Progress bars (counts and ETA) for every long operation, on stderr, quiet when not a terminal."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

__all__ = ["ProgressHandle", "progress"]


class ProgressHandle(Protocol):
    def advance(self, n: int = 1) -> None: ...


class _Null:
    def advance(self, n: int = 1) -> None:
        return None


class _Rich:
    def __init__(self, progress: object, task: object) -> None:
        self._progress = progress
        self._task = task

    def advance(self, n: int = 1) -> None:
        self._progress.advance(self._task, n)  # type: ignore[attr-defined]


@contextmanager
def progress(
    description: str, total: int | None, *, enabled: bool | None = None
) -> Iterator[ProgressHandle]:
    """A progress bar with ``done/total``, elapsed time and ETA, drawn on stderr.

    ``enabled=None`` shows it only when stderr is a terminal, so logs and CI output stay clean.
    """
    show = sys.stderr.isatty() if enabled is None else enabled
    if not show:
        yield _Null()
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=False,
    )
    with bar:
        task = bar.add_task(description, total=total)
        yield _Rich(bar, task)
