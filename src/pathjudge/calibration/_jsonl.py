"""Line-numbered JSONL reading for labels and verdicts, with every problem as a LabelsError."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from pathjudge._io import iter_jsonl
from pathjudge.errors import LabelsError, RecordError

__all__ = ["as_labels_errors", "numbered_records"]

M = TypeVar("M", bound=BaseModel)


def numbered_records(path: str | Path, model: type[M], *, what: str) -> Iterator[tuple[int, M]]:
    """Yield ``(line number, record)`` for each record of a JSONL file (``.gz`` allowed).

    Reading goes through :func:`pathjudge._io.iter_jsonl`; its errors (file missing, empty file,
    a line that does not parse or validate) are re-raised as :class:`LabelsError` with the same file,
    line, field and hint.
    """
    with as_labels_errors():
        yield from iter_jsonl(path, model, what=what).numbered()


@contextmanager
def as_labels_errors() -> Iterator[None]:
    """Re-raise a :class:`RecordError` from inside as a :class:`LabelsError` with the same file,
    line, field and hint."""
    try:
        yield
    except RecordError as exc:
        raise LabelsError(
            exc.message, file=exc.file, line=exc.line, field=exc.field, hint=exc.hint
        ) from None
