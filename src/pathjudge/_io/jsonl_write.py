"""Writing JSONL: a whole file atomically (:func:`write_jsonl`), or one record at a time, flushed
per record, after repairing a tail a crash tore (:class:`JsonlAppender`, :func:`inspect_tail`)."""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any, Protocol, cast

from pydantic import BaseModel

from pathjudge._io.atomic import atomic_writer
from pathjudge._io.jsonl import _CHUNK
from pathjudge.errors import InputError, RecordError


class SelfSerializing(Protocol):
    """A plain record that writes itself as one compact JSON document (e.g. a ``RunGrade``)."""

    def to_json(self) -> bytes: ...


Record = BaseModel | dict[str, Any] | SelfSerializing
"""What the writers take: a pydantic model, a JSON-ready dict, or a self-serialising record."""


def _dump_line(record: Record) -> bytes:
    if isinstance(record, BaseModel):
        return record.model_dump_json().encode("utf-8") + b"\n"
    to_json = getattr(record, "to_json", None)
    if to_json is not None:  # a plain record that serialises itself (e.g. a RunGrade)
        return bytes(to_json()) + b"\n"
    try:
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError as exc:  # NaN / Infinity: what the readers refuse is never written
        raise ValueError(
            f"a record holds a number JSON cannot carry ({exc}); write finite numbers, or None "
            "for a missing value"
        ) from None
    return text.encode("utf-8") + b"\n"


def write_jsonl(path: str | Path, records: Iterable[Record], *, keep_if_empty: bool = False) -> int:
    """Write records as JSONL atomically (see :func:`atomic_writer`); ``.gz`` paths are gzipped.

    A crash never leaves a half-written file. Returns the number of records written. With
    ``keep_if_empty``, no records means nothing is written: an existing file at ``path`` stays as it
    was (e.g. an import where nothing could be imported).
    """
    target = Path(path)
    count = 0
    try:
        with atomic_writer(target) as raw:
            out: IO[bytes] = (
                cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="wb"))
                if target.suffix == ".gz"
                else raw
            )
            for record in records:
                out.write(_dump_line(record))
                count += 1
            if out is not raw:
                out.close()
            if count == 0 and keep_if_empty:
                raise _NothingWritten
    except _NothingWritten:
        return 0
    return count


class _NothingWritten(Exception):
    """Raised inside :func:`atomic_writer` to discard the temp file instead of renaming it."""


def inspect_tail(path: Path) -> tuple[str, int]:
    """How a JSONL file ends, before anything appends to it: ``(state, offset)``.

    ``ok``: empty, or the last line ends with a newline. ``no_newline``: the last line is a complete
    JSON value that lacks its newline (``offset`` = the file size: a newline is appended, nothing is
    dropped). ``torn``: the last line is the start of a JSON value cut off by a crash (``offset`` = where
    it starts; only that torn tail is cut). A last line that is neither (several records on one line,
    e.g. CR-only line endings, or a complete but malformed record) raises :class:`RecordError` and
    nothing is changed.
    """
    size = path.stat().st_size
    if size == 0:
        return "ok", 0
    with path.open("rb") as handle:
        pos = size
        tail = b""
        while pos > 0:
            step = min(_CHUNK, pos)
            handle.seek(pos - step)
            block = handle.read(step)
            newline = block.rfind(b"\n")
            if newline != -1:
                tail = block[newline + 1 :] + tail
                pos = pos - step + newline + 1
                break
            tail = block + tail
            pos -= step
        else:
            pos = 0
    if not tail.strip():
        return "ok", size
    try:
        json.loads(tail)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        message = getattr(exc, "msg", "")
        if message == "Extra data" or tail.rstrip().endswith(b"}"):
            with path.open("rb") as handle:
                number = handle.read(pos).count(b"\n") + 1 if pos else 1
            cr_only = b"\r" in tail.strip()
            raise RecordError(
                "uses carriage returns (CR) alone as line ends"
                if cr_only
                else "its last line holds a complete but malformed record",
                file=path,
                line=number,
                hint="convert the line ends to \\n (e.g. tr '\\r' '\\n')"
                if cr_only
                else "fix or remove that line; pathjudge appends only to a valid runs file",
            ) from None
        return "torn", pos
    return "no_newline", size


class JsonlAppender:
    """Append records one at a time, flushed per record, so a crash or Ctrl-C loses nothing written.

    Only a torn last line (the start of a record cut off by a crash) is truncated on open; a complete
    last record that lacks its newline gets one, and a file that ends any other way (CR-only line
    ends, a malformed record) is refused, unchanged (see :func:`inspect_tail`).

    ``lock``: hold an exclusive advisory lock on the file for as long as it is open, so two
    processes never append to it at once; a file locked by another process is an
    :class:`~pathjudge.errors.InputError`. ``repair=False`` leaves the tail to :meth:`repair_tail`,
    for a caller that validates the existing records first. ``.gz`` paths are refused: appending to
    a gzip stream would make it unreadable.
    """

    def __init__(
        self, path: str | Path, *, fsync: bool = False, lock: bool = False, repair: bool = True
    ) -> None:
        self.path = Path(path)
        self.fsync = fsync
        if self.path.suffix == ".gz":
            raise InputError(
                "cannot be appended to: it is gzip-compressed",
                file=self.path,
                hint="write runs to a plain .jsonl file (each run is appended as it finishes), "
                "then compress it with gzip when the collection is done",
            )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle: IO[bytes] = self.path.open("ab")
        if lock:
            self._lock()
        if repair:
            try:
                self.repair_tail()
            except BaseException:
                self._handle.close()
                raise

    def _lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no advisory locks
            return
        try:
            fcntl.flock(self._handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._handle.close()
            raise InputError(
                "is being written by another pathjudge process (it holds the lock)",
                file=self.path,
                hint="wait for that run to finish (a rerun then resumes it), or write to another -o file",
            ) from None

    def repair_tail(self) -> None:
        """Make the file end with a newline: cut a torn last line, or add a missing newline."""
        state, offset = inspect_tail(self.path)
        if state == "torn":
            os.truncate(self.path, offset)
        elif state == "no_newline":
            self._handle.write(b"\n")
            self._handle.flush()

    def write(self, record: Record | SelfSerializing) -> None:
        self._handle.write(_dump_line(record))
        self._handle.flush()
        if self.fsync:
            os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> JsonlAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
