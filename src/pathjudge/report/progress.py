"""Progress bars (counts and ETA) on stderr, quiet when not a terminal: the CLI's :data:`Progress`.

The library takes progress as a callback (:mod:`pathjudge._progress`); this module is what the
command line hands in.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial

from pathjudge._progress import Progress, ProgressHandle, no_progress

__all__ = ["ProgressHandle", "progress", "progress_bars"]


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
        with no_progress(description, total) as handle:
            yield handle
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import (
        Progress as RichProgress,
    )

    bar = RichProgress(
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


def progress_bars(enabled: bool | None = None) -> Progress:
    """The :data:`~pathjudge._progress.Progress` callback the CLI hands to long operations.

    ``enabled``: True always draws, False never, None (default) only when stderr is a terminal.
    """
    return partial(progress, enabled=enabled)
