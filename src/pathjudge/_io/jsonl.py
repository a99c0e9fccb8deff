"""Line-numbered JSONL reading: a stream of validated records that knows the line of each one
(:class:`JsonlStream`, :func:`iter_jsonl`), one line at a time so memory stays flat, every bad line
one :class:`~pathjudge.errors.RecordError` naming the file, the line and the field."""

from __future__ import annotations

import zlib
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import IO, Generic, Protocol, Self, TypeVar

from pydantic import ValidationError

from pathjudge._io.inputs import ReadFailure, _open_read, describe_read_failure
from pathjudge._io.line_checks import LineErrors, line_problem
from pathjudge._io.record_errors import collect_or_raise, record_error_from_validation
from pathjudge.errors import InputError, RecordError


class JsonRecord(Protocol):
    """What the JSONL readers validate lines into: a pydantic model, or a record type with the same
    ``model_validate_json`` (the run records)."""

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, /) -> Self: ...


M = TypeVar("M", bound=JsonRecord)

DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024
"""The longest record line any reader accepts (``score``'s line reader too: one limit everywhere)."""
_CHUNK = 1024 * 1024

UTF8_BOM = b"\xef\xbb\xbf"
"""A UTF-8 byte-order mark: skipped at the start of a file (some Windows tools write one)."""


def _readline(handle: IO[bytes], limit: int, number: int) -> bytes:
    try:
        return handle.readline(limit)
    except (OSError, EOFError, zlib.error) as exc:
        raise ReadFailure(number, describe_read_failure(exc)) from None


def count_newlines(handle: IO[bytes], size: int) -> int:
    """The newlines in the next ``size`` bytes of ``handle`` (fewer where it ends first), read in
    blocks so that a range of any size costs bounded memory."""
    total = 0
    while size > 0:
        block = handle.read(min(size, 1 << 22))
        if not block:
            break
        total += block.count(b"\n")
        size -= len(block)
    return total


def _lines(handle: IO[bytes], max_line_bytes: int) -> Iterator[tuple[int, bytes | None, int]]:
    """Yield ``(line_number, content or None when too long, length)``; never holds an over-long line.

    A broken stream (a truncated or corrupt ``.gz``, an I/O error) raises :class:`ReadFailure` with
    the number of the line being read.
    """
    number = 0
    while True:
        raw = _readline(handle, max_line_bytes + 1, number + 1)
        if not raw:
            return
        number += 1
        if number == 1 and raw.startswith(UTF8_BOM):
            raw = raw[
                len(UTF8_BOM) :
            ]  # a byte-order mark (Windows tools) is not part of the record
        if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
            length = len(raw)
            while True:
                rest = _readline(handle, _CHUNK, number)
                length += len(rest)
                if not rest or rest.endswith(b"\n"):
                    break
            yield number, None, length
            continue
        yield number, raw, len(raw)


def _numbered(
    path: Path,
    model: type[M],
    errors: list[RecordError] | None,
    allow_empty: bool,
    max_line_bytes: int,
    label: str,
) -> Generator[tuple[int, M], None, None]:
    handle = _open_read(path)
    count = 0
    validate = model.model_validate_json
    say = LineErrors(RecordError, path)
    with handle:
        try:
            for number, raw, length in _lines(handle, max_line_bytes):
                problem: RecordError | None = None
                if raw is None:
                    problem = say.too_long(
                        number,
                        length,
                        max_line_bytes,
                        per=" per record",
                        hint="split the record, or raise max_line_bytes if it is genuine",
                    )
                else:
                    if raw.isspace():
                        continue
                    # Validate the bytes as they are (pydantic's parser rejects invalid UTF-8); decode
                    # only to explain a failure, so the common path does no extra work.
                    try:
                        record = validate(raw)
                    except ValidationError as exc:
                        try:
                            raw.decode("utf-8")
                        except UnicodeDecodeError as bad:
                            problem = say.not_utf8(number, raw, bad)
                        else:
                            problem = record_error_from_validation(
                                exc, file=path, line=number, what=label
                            )
                    else:
                        problem = line_problem(raw, file=path, line=number, record=record)
                        if problem is None:
                            count += 1
                            yield number, record
                            continue
                collect_or_raise(problem, errors)
        except ReadFailure as exc:
            raise say.broken(exc.line, exc.why) from None
        except OSError as exc:
            raise RecordError(describe_read_failure(exc), file=path) from None
    if count == 0 and not allow_empty and not errors:
        raise RecordError(
            f"has no {label} records",
            file=path,
            hint="the file is empty; pass a JSONL file with one record per line",
        )


class JsonlStream(Generic[M]):
    """An iterator of ``model`` records from a JSONL file that knows the line of each one.

    Iterating yields records; :attr:`line` is the 1-based line of the record yielded last (0 before
    the first), so a consumer that finds a problem in a record can name its line without reading the
    file again. :meth:`numbered` yields ``(line, record)`` pairs instead. Nothing is opened until the
    first record is asked for; the stream is single-pass, like a generator. Made by :func:`iter_jsonl`.
    """

    __slots__ = ("_inner", "line", "path", "what")

    def __init__(
        self, path: Path, what: str, records: Generator[tuple[int, M], None, None]
    ) -> None:
        self.path = path
        self.what = what
        self.line = 0
        self._inner = records

    def __iter__(self) -> JsonlStream[M]:
        return self

    def __next__(self) -> M:
        self.line, record = next(self._inner)
        return record

    def numbered(self) -> Iterator[tuple[int, M]]:
        """Yield ``(line number, record)`` for the records not read yet."""
        for number, record in self._inner:
            self.line = number
            yield number, record

    def close(self) -> None:
        """Stop reading and close the file (as a generator's ``close``)."""
        self._inner.close()


def iter_jsonl(
    path: str | Path,
    model: type[M],
    *,
    errors: list[RecordError] | None = None,
    allow_empty: bool = False,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    what: str | None = None,
) -> JsonlStream[M]:
    """Stream ``model`` records from a JSONL file, one per non-blank line (see :class:`JsonlStream`).

    Empty input: an empty file (or one with only blank lines) raises unless ``allow_empty``. With
    ``errors`` given, bad lines are appended to it and skipped; otherwise the first one raises.
    ``what`` names a record in messages (default: the model's class name).
    """
    file = Path(path)
    label = what or model.__name__
    return JsonlStream(
        file, label, _numbered(file, model, errors, allow_empty, max_line_bytes, label)
    )


def line_of(records: object) -> int | None:
    """The line of the record a :class:`JsonlStream` yielded last; None for any other iterable."""
    return records.line or None if isinstance(records, JsonlStream) else None


def record_line(file: str | Path, number: int) -> int | None:
    """The 1-based line of the ``number``-th record (non-blank line) of a JSONL file (error path)."""
    path = Path(file)
    try:
        with _open_read(path) as handle:
            seen = 0
            for line_no, raw in enumerate(handle, 1):
                if raw.strip():
                    seen += 1
                    if seen == number:
                        return line_no
    except (OSError, EOFError, zlib.error, InputError):
        return None
    return None
