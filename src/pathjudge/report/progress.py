"""Progress bars (counts and ETA) on stderr, quiet when not a terminal: the CLI's :data:`Progress`.

The library takes progress as a callback (:mod:`pathjudge._progress`); this module is what the
command line hands in. Its handle costs the work it measures next to nothing: ``advance(n)`` adds
``n`` to a counter and returns. A display thread draws the bar, and only for a long job: nothing
until the job has run :data:`SHOW_AFTER_S` seconds (a short command prints no bar at all), then a
redraw :data:`REFRESH_PER_S` times a second from the counter. Piped or CI output never gets one.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from pathjudge._progress import Progress, ProgressHandle, no_progress

__all__ = ["REFRESH_PER_S", "SHOW_AFTER_S", "ProgressHandle", "progress", "progress_bars"]

SHOW_AFTER_S = 1.0
"""A job that ends sooner shows no bar."""
REFRESH_PER_S = 4
"""How often the bar is redrawn (the work itself never waits for it)."""


_COUNTED_UP_TO = 1_000_000
"""A total above this (bytes of a runs file) is shown as a percentage, not as done/total."""


class _Counter:
    """The handle the work advances: one addition per call, nothing drawn."""

    __slots__ = ("done",)

    def __init__(self) -> None:
        self.done = 0

    def advance(self, n: int = 1) -> None:
        self.done += n


class _Display(threading.Thread):
    """Draws ``counter`` as a rich bar on stderr once the job has run ``delay`` seconds."""

    def __init__(
        self, description: str, total: int | None, counter: _Counter, *, delay: float
    ) -> None:
        super().__init__(name="pathjudge-progress", daemon=True)
        self._description = description
        self._total = total
        self._counter = counter
        self._delay = delay
        self._finished = threading.Event()
        self._bar: Any = None
        self._task: Any = None

    def run(self) -> None:
        if self._finished.wait(self._delay):
            return  # a short job: no bar
        self._bar, self._task = _rich_bar(self._description, self._total)
        self._bar.update(self._task, completed=self._counter.done)
        self._bar.start()
        while not self._finished.wait(1 / REFRESH_PER_S):
            self._bar.update(self._task, completed=self._counter.done, refresh=True)

    def finish(self) -> None:
        self._finished.set()
        self.join()
        if self._bar is not None:  # the final count, then the bar stays as a record of the job
            self._bar.update(self._task, completed=self._counter.done, refresh=True)
            self._bar.stop()


def _rich_bar(description: str, total: int | None) -> tuple[Any, Any]:
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

    class _Count(MofNCompleteColumn):
        """``done/total`` for counts a person reads (items, runs); a percentage for bytes."""

        def render(self, task: Any) -> Any:
            if task.total is not None and task.total > _COUNTED_UP_TO:
                from rich.text import Text

                return Text(f"{task.percentage:>3.0f}%", style="progress.percentage")
            return super().render(task)

    bar = RichProgress(
        TextColumn("{task.description}"),
        BarColumn(),
        _Count(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=False,
        auto_refresh=False,  # the display thread redraws, at its own pace
    )
    return bar, bar.add_task(description, total=total)


@contextmanager
def progress(
    description: str,
    total: int | None,
    *,
    enabled: bool | None = None,
    delay: float = SHOW_AFTER_S,
) -> Iterator[ProgressHandle]:
    """A progress bar with ``done/total``, elapsed time and ETA, drawn on stderr for a long job.

    ``enabled=None`` shows it only when stderr is a terminal, so logs and CI output stay clean.
    Nothing is drawn before ``delay`` seconds have passed, so a short job prints no bar.
    """
    show = sys.stderr.isatty() if enabled is None else enabled
    if not show:
        with no_progress(description, total) as handle:
            yield handle
        return
    counter = _Counter()
    display = _Display(description, total, counter, delay=delay)
    display.start()
    try:
        yield counter
    finally:
        display.finish()


def progress_bars(enabled: bool | None = None, *, delay: float = SHOW_AFTER_S) -> Progress:
    """The :data:`~pathjudge._progress.Progress` callback the CLI hands to long operations.

    ``enabled``: True always draws, False never, None (default) only when stderr is a terminal.
    ``delay``: seconds a job runs before its bar appears.
    """
    return partial(progress, enabled=enabled, delay=delay)
