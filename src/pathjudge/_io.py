"""Shared file plumbing: line-numbered JSONL reading, atomic writes and output-path safety.

Every part of pathjudge that reads or writes records on disk (runs, items, verdicts, labels, reports)
goes through this module, so there is one reader, one writer and one rule for each.

Reading streams one line at a time, so memory stays flat however large the file; a line longer than
``max_line_bytes`` is skipped in chunks and reported, never loaded. Every problem is a
:class:`~pathjudge.errors.RecordError` naming the file, the 1-based line and the field, with a fix.
The stream knows the line of each record it yields (:attr:`JsonlStream.line`, or pairs from
:meth:`JsonlStream.numbered`), so no caller has to count lines again to name one in an error.

Two reading modes: by default the first bad line raises; pass ``errors=[]`` to collect one error per
bad line and keep going (the good records are still yielded). ``.gz`` files are read and written
transparently.

Writing is atomic: a temp file in the same folder, flushed and fsynced, then :func:`os.replace` over the
target, so a crash or Ctrl-C leaves the old file or the new one, never half of either.
:func:`ensure_not_input` refuses an output path that is one of the command's inputs.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import re
import stat
import tempfile
import zlib
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Generic, Protocol, Self, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from pathjudge._json import (
    describe_unrepresentable,
    finite_problem,
    first_unrepresentable,
    suspect_number,
)
from pathjudge.errors import InputError, RecordError

__all__ = [
    "DEFAULT_MAX_LINE_BYTES",
    "UTF8_BOM",
    "JsonlAppender",
    "JsonlStream",
    "ReadFailure",
    "Record",
    "SelfSerializing",
    "atomic_writer",
    "count_newlines",
    "describe_read_failure",
    "ensure_not_input",
    "format_loc",
    "inspect_tail",
    "iter_jsonl",
    "line_of",
    "line_problem",
    "new_file_mode",
    "open_atomic_temp",
    "read_utf8",
    "record_error_from_validation",
    "record_line",
    "register_number_screen",
    "same_file",
    "write_bytes_atomic",
    "write_jsonl",
    "write_text_atomic",
]


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


# --------------------------------------------------------------------------------------------------
# Errors


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
    "extra_forbidden": "remove it, or move it under 'metadata'",
    "json_invalid": "each line must be one complete JSON object; the line may be truncated",
    "literal_error": "use one of the values listed",
}

_EXTRA_HINTS = {
    # the unknown-field hint speaks of the kind of file in hand
    "run": "remove it, or move it under 'metadata' (runs) or 'state' (steps)",
    "item": "an item line has only 'item_id' and 'inputs' (put every text the criterion reads "
    "under 'inputs')",
    "label": "remove it, or move it under 'metadata' (see the labels format in the README)",
    "verdict": "remove it, or move it under 'metadata' (see the verdicts format in the README)",
}


_SAME_KIND = {
    # a pydantic dataclass (the run records) reports what a model reports under other names
    "unexpected_keyword_argument": "extra_forbidden",
    "dataclass_type": "model_type",
}


def record_error_from_validation(
    exc: ValidationError, *, file: str | Path | None, line: int | None, what: str = "record"
) -> RecordError:
    """Turn a pydantic ``ValidationError`` into one clear :class:`RecordError` (never echoing the input)."""
    details = exc.errors(include_url=False, include_input=False)
    first = details[0]
    kind = str(first.get("type", ""))
    kind = _SAME_KIND.get(kind, kind)
    loc = format_loc(tuple(first.get("loc", ())))
    msg = str(first.get("msg", "invalid value"))
    if kind == "extra_forbidden":
        msg = f"unknown field in a {what}"
    elif kind == "json_invalid":
        ctx = first.get("ctx") or {}
        msg = f"not valid JSON ({_within_line(str(ctx.get('error', msg)))})"
        if "recursion limit" in msg:
            return RecordError(
                msg.replace("not valid JSON", "nested too deeply to read", 1),
                file=file,
                line=line,
                hint="a value nests more levels of arrays/objects than the JSON parser allows "
                "(about 200); flatten it, or store it as a string",
            )
    elif kind == "model_type" and not loc:
        msg = f"expected a JSON object for a {what}"
    if len(details) > 1:
        msg += (
            f" (and {len(details) - 1} more problem{'s' if len(details) > 2 else ''} on this line)"
        )
    hint = _EXTRA_HINTS.get(what) if kind == "extra_forbidden" else None
    return RecordError(msg, file=file, line=line, field=loc or None, hint=hint or _HINTS.get(kind))


_PARSER_SPOT = re.compile(r" at line (\d+) column (\d+)$")


def _within_line(why: str) -> str:
    """The JSON parser's position inside one record, in the words of a one-line record: ``at column
    N`` (the parser counts lines inside the record, so its "line 1" is the file line already named,
    and "line 2 column 0" is the line's end)."""
    found = _PARSER_SPOT.search(why)
    if found is None:
        return why
    spot = " at column " + found[2] if found[1] == "1" else " at the end of the line"
    return why[: found.start()] + spot


# --------------------------------------------------------------------------------------------------
# Reading


def _open_read(path: Path) -> IO[bytes]:
    if path.suffix == ".gz":
        return cast(IO[bytes], gzip.open(path, "rb"))
    return path.open("rb")


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


def read_utf8(
    path: Path,
    *,
    error: type[InputError],
    not_found: str,
    directory: str,
    unreadable: str,
    gunzip: bool = False,
) -> str:
    """The UTF-8 text of ``path`` (gunzipped first with ``gunzip``), or one ``error`` naming the file.

    A missing file, a folder or an unreadable file raise ``error`` with the caller's wording
    (``not_found``, ``directory``, ``unreadable`` followed by the OS reason in brackets); a bad
    compressed stream says what is wrong with it; bytes that are not UTF-8 name the line, the column
    and the byte.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise error(not_found, file=path, hint="check the path") from None
    except IsADirectoryError:
        raise error(directory, file=path) from None
    except OSError as exc:
        raise error(f"{unreadable} ({exc.strerror or exc})", file=path) from None
    if gunzip:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
            raise error(describe_read_failure(exc), file=path) from None
    try:
        return data.decode("utf-8-sig")  # a leading byte-order mark is dropped
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise error(
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at column {column})",
            file=path,
            line=line,
            hint="re-encode the file as UTF-8",
        ) from None


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


def line_problem(
    raw: bytes,
    *,
    file: str | Path | None,
    line: int | None,
    record: object | None = None,
) -> RecordError | None:
    """What is wrong with a JSONL line that pydantic accepted, or None: invalid UTF-8 inside a string
    (which some versions of pydantic's parser let through, see :func:`parser_refuses_bad_utf8`), or a
    number JSON cannot carry (NaN, Infinity, 1e400, an integer literal over 300 characters), which
    pydantic's parser accepts.

    Cheap on good lines: an ASCII check (a decode only where the parser does not check UTF-8 itself),
    then either a look at the numbers of ``record`` (the line's validated record, when its model keeps
    every number of the line and says where: a run record, see
    :func:`pathjudge.agent.trajectory.holds_unrepresentable_number`) or a byte scan of the line, where
    only a suspect line is decoded again.
    """
    if not raw.isascii() and not parser_refuses_bad_utf8():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as bad:
            return RecordError(
                f"not valid UTF-8 (byte 0x{raw[bad.start]:02x} at column {bad.start + 1})",
                file=file,
                line=line,
                hint="re-encode the file as UTF-8",
            )
    screen = _NUMBER_SCREENS.get(type(record)) if record is not None else None
    if screen is not None:
        if not screen(record):
            return None
        found = first_unrepresentable(record)
        if found is not None:
            where, number = found
            return RecordError(
                f"holds a number JSON cannot carry: {describe_unrepresentable(number)}",
                file=file,
                line=line,
                field=format_loc(where),
                hint=_FINITE_HINT,
            )
        # (the screen and the ordered walk agree; should they not, the byte check below decides)
    # a cheap byte screen first; a hit is confirmed by finite_problem ("NaN" in a string is fine)
    why = finite_problem(raw) if suspect_number(raw) else None
    if why is None:
        return None
    return RecordError(
        f"holds a number JSON cannot carry: {why}",
        file=file,
        line=line,
        hint=_FINITE_HINT,
    )


_BAD_UTF8 = (
    b"\xff",  # never a UTF-8 byte
    b"\x80",  # a continuation byte with no lead
    b"\xc3",  # a lead byte cut short (before the closing quote)
    b"\xc3(",  # a lead byte followed by no continuation
    b"\xe2\x82",  # a three-byte sequence cut short
    b"\xc0\xaf",  # an overlong encoding of "/"
    b"\xed\xa0\x80",  # a UTF-16 surrogate (U+D800) encoded
    b"\xf4\x90\x80\x80",  # beyond U+10FFFF
)
"""Invalid UTF-8 of each kind, for :func:`parser_refuses_bad_utf8`."""


def _utf8_probes(text: bytes) -> tuple[bytes, ...]:
    """Documents of the probe model with ``text`` in each place a string can sit: a short and a long
    string, after an escape, inside a value of any type, in a key."""
    return (
        b'{"text":"a' + text + b'"}',
        b'{"text":"' + b"long " * 20 + text + b' text"}',
        b'{"text":"caf\xc3\xa9\\n' + text + b'"}',
        b'{"value":["x",{"k":"' + text + b'"}]}',
        b'{"mapping":{"k' + text + b'":1}}',
    )


class _Utf8Probe(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = ""
    value: JsonValue = None
    mapping: dict[str, JsonValue] = Field(default_factory=dict)


@functools.cache
def parser_refuses_bad_utf8() -> bool:
    """Whether pydantic's JSON parser (``validate_json``) refuses invalid UTF-8 inside strings, as the
    jiter of pydantic-core 2.50 does for every string it decodes: then :func:`line_problem` need not
    decode a line a second time (about 1% of reading a run). Older parsers let some through, so this
    is asked of the installed one, once: every kind of bad sequence in :data:`_BAD_UTF8`, in every
    place of :func:`_utf8_probes`, must be refused."""
    validate = _Utf8Probe.__pydantic_validator__.validate_json
    for bad in _BAD_UTF8:
        for doc in _utf8_probes(bad):
            try:
                validate(doc)
            except ValidationError:
                continue
            except Exception:  # any other failure: the parser is not to be relied on
                return False
            return False  # accepted
    return True


_FINITE_HINT = (
    "write finite numbers (NaN, Infinity and values beyond 1e308 are not valid JSON); "
    "use null for a missing value"
)

_NUMBER_SCREENS: dict[type, Callable[[Any], bool]] = {}
"""Models whose validated record keeps every number of its line, with the function that says
whether one of them is a number JSON cannot carry (registered by the model's module:
:func:`register_number_screen`)."""


def register_number_screen(model: type, screen: Callable[[Any], bool]) -> None:
    """Let :func:`line_problem` check a ``model`` record's numbers with ``screen(record) -> bool``
    instead of scanning the line's bytes. Only for a model whose validated record keeps every number
    of the line (no validator drops or rewrites one) and a screen that reads all of them."""
    _NUMBER_SCREENS[model] = screen


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
                        problem = line_problem(raw, file=path, line=number, record=record)
                        if problem is None:
                            count += 1
                            yield number, record
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


class JsonlStream(Generic[M]):
    """An iterator of ``model`` records from a JSONL file that knows the line of each one.

    Iterating yields records; :attr:`line` is the 1-based line of the record yielded last (0 before
    the first), so a consumer that finds a problem in a record can name its line without reading the
    file again. :meth:`numbered` yields ``(line, record)`` pairs instead. Nothing is opened until the
    first record is asked for; the stream is single-pass, like a generator.
    """

    __slots__ = ("_inner", "line", "path", "what")

    def __init__(
        self,
        path: str | Path,
        model: type[M],
        *,
        errors: list[RecordError] | None = None,
        allow_empty: bool = False,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        what: str | None = None,
    ) -> None:
        self.path = Path(path)
        self.what = what or model.__name__
        self.line = 0
        self._inner = _numbered(self.path, model, errors, allow_empty, max_line_bytes, self.what)

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
    return JsonlStream(
        path,
        model,
        errors=errors,
        allow_empty=allow_empty,
        max_line_bytes=max_line_bytes,
        what=what,
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
    except (OSError, EOFError, zlib.error):
        return None
    return None


# --------------------------------------------------------------------------------------------------
# Writing


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


def open_atomic_temp(path: Path, *, suffix: str = ".tmp") -> tuple[int, str]:
    """A temp file next to ``path`` for an atomic write, with the mode of the file it will replace, or
    (a new file) the mode a plainly created file would get.

    :func:`tempfile.mkstemp` creates files ``0600``; this sets the mode of the existing ``path`` (so
    rewriting a private ``0600`` file keeps it private), else :func:`new_file_mode` (the umask).
    Creates ``path``'s parent folders. Returns ``(fd, tmp_path)``. Prefer :func:`atomic_writer`,
    which also fsyncs, renames and cleans up.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mode = new_file_mode()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
    try:
        os.fchmod(fd, mode)
    except BaseException:
        os.close(fd)
        Path(tmp).unlink(missing_ok=True)
        raise
    return fd, tmp


def _fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable where the OS allows opening folders (POSIX)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def atomic_writer(path: str | Path) -> Iterator[IO[bytes]]:
    """A binary handle whose content replaces ``path`` only when the ``with`` block ends cleanly.

    The data goes to a temp file in the same folder, is flushed and fsynced, then renamed over ``path``
    with :func:`os.replace`; on any exception (Ctrl-C included) the temp file is removed and ``path``
    is left as it was. Parent folders are created; the file keeps the mode of the file it replaces (a
    new one gets the mode a plainly created file would). A symlink is written through: its target is
    replaced and the link stays a link.
    """
    target = Path(path)
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    fd, tmp = open_atomic_temp(target)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(target.parent)


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_writer`) and return ``path``."""
    target = Path(path)
    with atomic_writer(target) as handle:
        handle.write(data)
    return target


def write_text_atomic(path: str | Path, text: str) -> Path:
    """:func:`write_bytes_atomic` of ``text`` encoded as UTF-8 (newlines kept as ``\\n``)."""
    return write_bytes_atomic(path, text.encode("utf-8"))


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


# --------------------------------------------------------------------------------------------------
# Output-path safety


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name the same file: the same inode when both exist, else the same resolved path.

    Symlinks, hard links, ``..`` and relative spellings all count as the same file.
    """
    first, second = Path(a), Path(b)
    try:
        return os.path.samefile(first, second)
    except OSError:
        pass
    try:
        return first.resolve() == second.resolve()
    except (OSError, RuntimeError):
        return os.path.abspath(first) == os.path.abspath(second)


def ensure_not_input(
    output: str | Path | None,
    inputs: Iterable[str | Path | None],
    *,
    option: str = "output",
) -> None:
    """Refuse to write ``output`` when it is the same file as one of ``inputs`` (None entries skipped).

    Writing a report or verdicts over the runs, suite or labels it was computed from would destroy the
    input, so the command stops first with an :class:`~pathjudge.errors.InputError` naming ``option``
    (the flag or field the output path came from). ``output`` None means "no file written": nothing to
    check.
    """
    if output is None:
        return
    for source in inputs:
        if source is not None and same_file(output, source):
            raise InputError(
                f"{option} {str(output)!r} is also an input of this command; writing it would destroy the input",
                file=output,
                field=option.lstrip("-") or None,
                hint=f"choose a different path for {option}",
            )
