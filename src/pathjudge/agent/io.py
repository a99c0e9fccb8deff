"""Reading runs: :class:`~pathjudge.agent.trajectory.RunRecord` s streamed from a runs JSONL file.

The generic plumbing (line-numbered JSONL reading, atomic writes, appending) lives in
:mod:`pathjudge._io`; this module adds what is specific to runs: reading them, and refusing a
(task, epoch) that appears twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from pathjudge._io import JsonlStream, iter_jsonl, record_line
from pathjudge.agent.trajectory import RunRecord
from pathjudge.errors import InputError, RecordError

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

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: dict[str, bytearray | set[int]] = {}

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
    """Pass ``runs`` through, raising an :class:`InputError` (file and line) at the first run whose
    (task, epoch) was already seen: a duplicated run would be counted twice in every rate."""
    keys = RunKeys()
    for index, run in enumerate(runs, 1):
        if not keys.add(run.task_id, run.epoch):
            keys.check(
                run.task_id,
                run.epoch,
                file=file,
                line=record_line(file, index) if file is not None else None,
                index=index,
            )
        yield run
