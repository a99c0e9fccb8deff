"""Reading runs: :class:`~pathjudge.agent.trajectory.RunRecord` s streamed from a runs JSONL file.

The generic plumbing (line-numbered JSONL reading, atomic writes, appending) lives in
:mod:`pathjudge._io`; this module adds what is specific to runs.
"""

from __future__ import annotations

from pathlib import Path

from pathjudge._io import JsonlStream, iter_jsonl
from pathjudge.agent.trajectory import RunRecord
from pathjudge.errors import RecordError

__all__ = ["read_runs"]


def read_runs(
    path: str | Path, *, errors: list[RecordError] | None = None, allow_empty: bool = False
) -> JsonlStream[RunRecord]:
    """Stream :class:`RunRecord` s from a runs JSONL file (see :func:`pathjudge._io.iter_jsonl`).

    The returned stream knows the line of each run (``.line``, ``.numbered()``), so an error about a
    run can name its line.
    """
    return iter_jsonl(path, RunRecord, errors=errors, allow_empty=allow_empty, what="run")
