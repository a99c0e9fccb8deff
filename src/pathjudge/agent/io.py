"""Reading runs: :class:`~pathjudge.agent.trajectory.RunRecord` s streamed from a runs JSONL file.

The generic plumbing (line-numbered JSONL reading, atomic writes, appending) lives in
:mod:`pathjudge._io`; this module adds what is specific to runs: reading them, and refusing a
(task, epoch) that appears twice.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pathjudge._io import JsonlStream, iter_jsonl, record_line
from pathjudge.agent.trajectory import RunRecord
from pathjudge.errors import InputError, RecordError

if TYPE_CHECKING:
    from pathjudge.scoring.grade import RunGrade

__all__ = ["RunKeys", "read_runs", "unique_runs"]


def read_runs(
    path: str | Path, *, errors: list[RecordError] | None = None, allow_empty: bool = False
) -> JsonlStream[RunRecord]:
    """Stream :class:`RunRecord` s from a runs JSONL file (see :func:`pathjudge._io.iter_jsonl`).

    The returned stream knows the line of each run (``.line``, ``.numbered()``), so an error about a
    run can name its line.
    """
    return iter_jsonl(path, RunRecord, errors=errors, allow_empty=allow_empty, what="run")


class RunKeys:
    """The (task, epoch) pairs seen so far, in little memory: one bit per epoch per task (a set
    past a million epochs). :meth:`check` raises on a pair seen before."""

    __slots__ = ("_first", "_repeats", "_seen")

    def __init__(self) -> None:
        self._seen: dict[str, bytearray | set[int]] = {}
        self._repeats = 0
        self._first: str | None = None

    def note(self, task_id: str, epoch: int, *, file: str | Path | None, line: int | None) -> None:
        """:meth:`add`, remembering a repeated pair to flag it in :meth:`report`."""
        if not self.add(task_id, epoch):
            self.repeated(task_id, epoch, file=file, line=line)

    def repeated(
        self, task_id: str, epoch: int, *, file: str | Path | None, line: int | None
    ) -> None:
        """Count a repeated pair (the first one is named in :meth:`report`)."""
        self._repeats += 1
        if self._first is None:
            where = f"{file}:{line}" if file is not None and line else str(file or "runs")
            self._first = f"{where}: task {task_id!r} epoch {epoch}"

    def on_grade(self, grade: RunGrade, position: tuple[str, int]) -> None:
        """:meth:`note` the run of ``grade``, found at ``position`` (source, line): the ``on_grade``
        hook of :func:`~pathjudge.scoring.chunk.grade_chunk`, for a caller that only checks keys."""
        self.note(grade.task_id, grade.epoch, file=position[0] or None, line=position[1] or None)

    def report(self) -> None:
        """Warn (logger ``pathjudge``, shown on stderr) when some (task, epoch) was seen twice.

        Flagged rather than refused: imports without epochs legitimately give several runs of a
        task epoch 0; but two collections into one file count every run twice, and this says so.
        """
        if self._repeats:
            logging.getLogger("pathjudge").warning(
                "warning: %d run(s) repeat a (task, epoch) already seen, first at %s; each is "
                "counted in every rate. If two collections wrote one file, remove the duplicates "
                "(diff refuses them).",
                self._repeats,
                self._first,
            )

    def add(self, task_id: str, epoch: int) -> bool:
        """Record the pair; False when it was already there."""
        epochs = self._seen.get(task_id)
        if epochs is None:
            epochs = self._seen[task_id] = bytearray()
        if isinstance(epochs, bytearray):
            if 0 <= epoch < (1 << 23):
                byte, bit = divmod(epoch, 8)
                if byte >= len(epochs):
                    epochs.extend(bytes(byte + 1 - len(epochs)))
                if epochs[byte] >> bit & 1:
                    return False
                epochs[byte] |= 1 << bit
                return True
            epochs = self._seen[task_id] = {
                8 * i + b for i, v in enumerate(epochs) for b in range(8) if v >> b & 1
            }
        if epoch in epochs:
            return False
        epochs.add(epoch)
        return True

    def check(
        self, task_id: str, epoch: int, *, file: str | Path | None, line: int | None, index: int
    ) -> None:
        """:meth:`add`, raising an :class:`InputError` (file, line) when the pair is a duplicate."""
        if not self.add(task_id, epoch):
            raise InputError(
                f"task {task_id!r} epoch {epoch} appears twice (run {index}); a duplicated run "
                "would be counted twice",
                file=file,
                line=line,
                task_id=task_id,
                field="epoch",
                hint="keep one run per (task, epoch); two collections into one file make duplicates",
            )


def unique_runs(
    runs: Iterable[RunRecord], *, file: str | Path | None = None
) -> Iterator[RunRecord]:
    """Pass ``runs`` through; at the end, flag (see :meth:`RunKeys.report`) runs whose (task, epoch)
    was already seen, naming the first one's file and line."""
    keys = RunKeys()
    first = True
    for index, run in enumerate(runs, 1):
        if not keys.add(run.task_id, run.epoch):
            line = record_line(file, index) if file is not None and first else None
            keys.repeated(run.task_id, run.epoch, file=file, line=line)
            first = False
        yield run
    keys.report()
