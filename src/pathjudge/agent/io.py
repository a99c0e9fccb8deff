"""Streaming JSONL read/write for runs and every other record pathjudge keeps on disk.

Reading streams one line at a time, so memory stays flat however large the file; a line longer than
``max_line_bytes`` is skipped in chunks and reported, never loaded. Every problem is a
:class:`~pathjudge.errors.RecordError` naming the file, the 1-based line and the field, with a fix.

Two modes: by default the first bad line raises; pass ``errors=[]`` to collect one error per bad line
and keep going (the good records are still yielded). ``.gz`` files are read and written transparently.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, Protocol, TypeVar, cast

from pydantic import BaseModel, ValidationError

from pathjudge._json import finite_problem
from pathjudge.agent.trajectory import RunRecord
from pathjudge.errors import InputError, RecordError

__all__ = [
    "DEFAULT_MAX_LINE_BYTES",
    "JsonlAppender",
    "format_loc",
    "inspect_tail",
    "iter_jsonl",
    "line_problem",
    "new_file_mode",
    "open_atomic_temp",
    "read_runs",
    "record_error_from_validation",
    "unique_runs",
    "write_jsonl",
]

M = TypeVar("M", bound=BaseModel)

DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024
_CHUNK = 1024 * 1024
# a cheap byte scan for what may be a non-finite number (NaN, Infinity, 1e400); a hit is confirmed
# by :func:`pathjudge._json.finite_problem`, so the word "NaN" inside a string is not an error
_SUSPECT_NUMBER = re.compile(rb"[eE][-+]?\d{3}|NaN|Infinity").search


def _open_read(path: Path) -> IO[bytes]:
    if path.suffix == ".gz":
        return cast(IO[bytes], gzip.open(path, "rb"))
    return path.open("rb")


def format_loc(loc: tuple[int | str, ...]) -> str:
    """Render a pydantic error location as a field path: ``('steps', 0, 'tool')`` → ``steps[0].tool``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


_HINTS = {
    "missing": "add it",
    "extra_forbidden": "remove it, or move it under 'metadata' (runs) or 'state' (steps)",
    "json_invalid": "each line must be one complete JSON object; the line may be truncated",
    "literal_error": "use one of the values listed",
}


def record_error_from_validation(
    exc: ValidationError, *, file: str | Path | None, line: int | None, what: str = "record"
) -> RecordError:
    """Turn a pydantic ``ValidationError`` into one clear :class:`RecordError` (never echoing the input)."""
    details = exc.errors(include_url=False, include_input=False)
    first = details[0]
    kind = str(first.get("type", ""))
    loc = format_loc(tuple(first.get("loc", ())))
    msg = str(first.get("msg", "invalid value"))
    if kind == "extra_forbidden":
        msg = f"unknown field in a {what}"
    elif kind == "json_invalid":
        ctx = first.get("ctx") or {}
        msg = f"not valid JSON ({ctx.get('error', msg)})"
    elif kind == "model_type" and not loc:
        msg = f"expected a JSON object for a {what}"
    if len(details) > 1:
        msg += (
            f" (and {len(details) - 1} more problem{'s' if len(details) > 2 else ''} on this line)"
        )
    return RecordError(msg, file=file, line=line, field=loc or None, hint=_HINTS.get(kind))


class ReadFailure(Exception):
    """Reading stopped at ``line`` because the (compressed) stream is broken; ``why`` says how."""

    def __init__(self, line: int, why: str) -> None:
        self.line = line
        self.why = why
        super().__init__(why)


def describe_read_failure(exc: BaseException) -> str:
    """A compressed-stream failure in words (truncated, not gzip, corrupt), or the OS error."""
    if isinstance(exc, EOFError):
        return "the compressed stream ends early: the .gz file is truncated"
    if isinstance(exc, gzip.BadGzipFile):
        return "is not a gzip file, though its name ends in .gz"
    if isinstance(exc, zlib.error):
        return f"the compressed data is corrupt ({exc})"
    if isinstance(exc, OSError):
        return f"could not be read ({exc.strerror or exc})"
    return f"could not be read ({type(exc).__name__})"


def _readline(handle: IO[bytes], limit: int, number: int) -> bytes:
    try:
        return handle.readline(limit)
    except (OSError, EOFError, zlib.error) as exc:
        raise ReadFailure(number, describe_read_failure(exc)) from None


def line_problem(raw: bytes, *, file: str | Path | None, line: int | None) -> RecordError | None:
    """What is wrong with a JSONL line that pydantic accepted, or None: invalid UTF-8 inside a string
    (which pydantic's parser lets through), or a number JSON cannot carry (NaN, Infinity, 1e400).

    Cheap on good lines: an ASCII check and a byte scan; only a suspect line is decoded again.
    """
    if not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as bad:
            return RecordError(
                f"not valid UTF-8 (byte 0x{raw[bad.start]:02x} at column {bad.start + 1})",
                file=file,
                line=line,
                hint="re-encode the file as UTF-8",
            )
    why = finite_problem(raw) if _SUSPECT_NUMBER(raw) else None
    if why is None:
        return None
    return RecordError(
        f"holds a number JSON cannot carry: {why}",
        file=file,
        line=line,
        hint="write finite numbers (NaN, Infinity and values beyond 1e308 are not valid JSON); "
        "use null for a missing value",
    )


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


def iter_jsonl(
    path: str | Path,
    model: type[M],
    *,
    errors: list[RecordError] | None = None,
    allow_empty: bool = False,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    what: str | None = None,
) -> Iterator[M]:
    """Stream ``model`` records from a JSONL file, one per non-blank line.

    Empty input: an empty file (or one with only blank lines) raises unless ``allow_empty``. With
    ``errors`` given, bad lines are appended to it and skipped; otherwise the first one raises.
    """
    path = Path(path)
    label = what or model.__name__
    try:
        handle = _open_read(path)
    except FileNotFoundError:
        raise RecordError("file not found", file=path, hint="check the path") from None
    except IsADirectoryError:
        raise RecordError("is a directory, not a JSONL file", file=path) from None
    count = 0
    validate = model.model_validate_json
    with handle:
        try:
            for number, raw, length in _lines(handle, max_line_bytes):
                problem: RecordError | None = None
                if raw is None:
                    problem = RecordError(
                        f"line is {length / 1e6:.1f} MB, over the limit of {max_line_bytes / 1e6:.1f} MB per record",
                        file=path,
                        line=number,
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
                            problem = RecordError(
                                f"not valid UTF-8 (byte 0x{raw[bad.start]:02x} at column {bad.start + 1})",
                                file=path,
                                line=number,
                                hint="re-encode the file as UTF-8",
                            )
                        else:
                            problem = record_error_from_validation(
                                exc, file=path, line=number, what=label
                            )
                    else:
                        problem = line_problem(raw, file=path, line=number)
                        if problem is None:
                            count += 1
                            yield record
                            continue
                if errors is None:
                    raise problem
                errors.append(problem)
        except ReadFailure as exc:
            raise RecordError(
                exc.why,
                file=path,
                line=exc.line,
                hint="recompress or re-export the file; every line before this one was read",
            ) from None
        except OSError as exc:
            raise RecordError(describe_read_failure(exc), file=path) from None
    if count == 0 and not allow_empty and not errors:
        raise RecordError(
            f"has no {label} records",
            file=path,
            hint="the file is empty; pass a JSONL file with one record per line",
        )


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
                line=_record_line(file, index) if file is not None else None,
                index=index,
            )
        yield run


def _record_line(file: str | Path, number: int) -> int | None:
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
    except (OSError, EOFError, zlib.error):
        return None
    return None


def read_runs(
    path: str | Path, *, errors: list[RecordError] | None = None, allow_empty: bool = False
) -> Iterator[RunRecord]:
    """Stream :class:`RunRecord` s from a runs JSONL file (see :func:`iter_jsonl`)."""
    return iter_jsonl(path, RunRecord, errors=errors, allow_empty=allow_empty, what="run")


class SelfSerializing(Protocol):
    """A plain record that writes itself as one compact JSON document (e.g. a ``RunGrade``)."""

    def to_json(self) -> bytes: ...


def _dump_line(record: BaseModel | dict[str, Any] | SelfSerializing) -> bytes:
    if isinstance(record, BaseModel):
        return record.model_dump_json().encode("utf-8") + b"\n"
    to_json = getattr(record, "to_json", None)
    if to_json is not None:  # a plain record that serialises itself (e.g. a RunGrade)
        return bytes(to_json()) + b"\n"
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def _current_umask() -> int:
    """The process umask, read without changing it where the OS allows (``/proc/self/status``).

    Elsewhere it falls back to setting and restoring it with :func:`os.umask` (briefly racy with other
    threads creating files).
    """
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def new_file_mode() -> int:
    """The permission bits ``open()`` would give a new file: ``0o666`` minus the umask (0o644 under 022)."""
    return 0o666 & ~_current_umask()


def open_atomic_temp(path: Path, *, suffix: str = "") -> tuple[int, str]:
    """A temp file next to ``path`` for an atomic write, with the mode a plainly created file would get.

    :func:`tempfile.mkstemp` creates files ``0600``; this widens it to :func:`new_file_mode` so the file
    renamed over ``path`` follows the umask. Creates ``path``'s parent folders. Returns ``(fd, tmp_path)``;
    the caller writes, then ``os.replace(tmp_path, path)`` (and unlinks ``tmp_path`` on failure).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
    try:
        os.fchmod(fd, new_file_mode())
    except BaseException:
        os.close(fd)
        Path(tmp).unlink(missing_ok=True)
        raise
    return fd, tmp


def write_jsonl(
    path: str | Path,
    records: Iterable[BaseModel | dict[str, Any] | SelfSerializing],
    *,
    keep_if_empty: bool = False,
) -> int:
    """Write records atomically (temp file + rename): a crash never leaves a half-written file.

    Returns the number of records written. With ``keep_if_empty``, no records means nothing is
    written at all: an existing file at ``path`` stays as it was.
    """
    path = Path(path)
    fd, tmp = open_atomic_temp(path)
    count = 0
    try:
        with os.fdopen(fd, "wb") as raw:
            out: IO[bytes] = (
                cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="wb"))
                if path.suffix == ".gz"
                else raw
            )
            for record in records:
                out.write(_dump_line(record))
                count += 1
            if out is not raw:
                out.close()
        if count == 0 and keep_if_empty:
            Path(tmp).unlink(missing_ok=True)
            return 0
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return count


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

    def write(self, record: BaseModel | dict[str, Any] | SelfSerializing) -> None:
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
