"""Line-numbered JSONL reading for labels and verdicts, with every problem as a LabelsError."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TypeVar, cast

from pydantic import BaseModel

from pathjudge.agent.io import iter_jsonl
from pathjudge.errors import LabelsError, RecordError

__all__ = ["numbered_records"]

M = TypeVar("M", bound=BaseModel)


def _open(path: Path) -> IO[bytes]:
    if path.suffix == ".gz":
        return cast(IO[bytes], gzip.open(path, "rb"))
    return path.open("rb")


def _record_lines(path: Path) -> list[int]:
    """1-based numbers of the non-blank lines, the lines ``iter_jsonl`` turns into records."""
    try:
        with _open(path) as handle:
            return [number for number, raw in enumerate(handle, start=1) if raw.strip()]
    except (OSError, EOFError):
        return []  # iter_jsonl reports the same problem with its own message


def numbered_records(path: str | Path, model: type[M], *, what: str) -> Iterator[tuple[int, M]]:
    """Yield ``(line number, record)`` for each record of a JSONL file (``.gz`` allowed).

    Reading goes through :func:`pathjudge.agent.io.iter_jsonl`; its errors (file missing, empty file,
    a line that does not parse or validate) are re-raised as :class:`LabelsError` with the same file,
    line, field and hint.
    """
    path = Path(path)
    lines = _record_lines(path)
    try:
        for index, record in enumerate(iter_jsonl(path, model, what=what)):
            yield (lines[index] if index < len(lines) else index + 1), record
    except RecordError as exc:
        raise LabelsError(
            exc.message, file=exc.file, line=exc.line, field=exc.field, hint=exc.hint
        ) from None
