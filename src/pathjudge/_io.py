"""Shared file plumbing: input-path checks, line-numbered JSONL reading, atomic writes and
output-path safety.

Every part of pathjudge that reads or writes records on disk (runs, items, verdicts, labels, reports,
grade shards, criteria) goes through this module, so there is one reader, one writer and one rule for
each.

Every input is opened by :func:`open_input`: a regular file only (a FIFO, a device such as
``/dev/zero``, a socket or a folder is refused unread; a pipe only where the user named a stream on
purpose), no NUL byte in the path, and, for a path a data file names (a manifest's shard, a suite's
criterion), inside the folder it is allowed in, symlinks followed (:func:`check_inside`). A file read
whole is read with a bound (:func:`read_input`, :func:`read_utf8`); a JSON value from elsewhere is
decoded by :func:`json_value`, which names file, line and field for nesting past 200 levels and for
``NaN``/``Infinity``. ``.gz`` is one rule (:func:`is_gzip_name`, :func:`open_records`) for every
engine.

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
import io
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
    "DEFAULT_MAX_DOCUMENT_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "UTF8_BOM",
    "JsonlAppender",
    "JsonlStream",
    "ReadFailure",
    "Record",
    "SelfSerializing",
    "atomic_writer",
    "check_inside",
    "count_newlines",
    "describe_read_failure",
    "ensure_not_input",
    "format_loc",
    "gunzipped",
    "inspect_tail",
    "is_gzip_name",
    "iter_jsonl",
    "json_value",
    "line_of",
    "line_problem",
    "new_file_mode",
    "open_atomic_temp",
    "open_input",
    "open_records",
    "read_input",
    "read_utf8",
    "record_error_from_validation",
    "record_line",
    "register_number_screen",
    "same_file",
    "shown_path",
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


# --------------------------------------------------------------------------------------------------
# Input paths: the checks every file pathjudge reads goes through


DEFAULT_MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
"""The largest file read whole (a suite, a JSON export, a manifest): a bigger one is refused unread."""

_IRREGULAR = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _irregular(mode: int) -> str | None:
    """What a file that is not a regular file is (``a FIFO (named pipe)``), or None for a regular one."""
    if stat.S_ISREG(mode):
        return None
    for test, kind in _IRREGULAR:
        if test(mode):
            return kind
    return "not a regular file"


def shown_path(path: str | Path) -> str:
    """``path`` as an error names it: a NUL byte (which no file name can hold) written ``\\0``."""
    return os.fspath(path).replace("\0", "\\0")


def check_inside(
    path: str | Path,
    folder: str | Path,
    *,
    error: type[InputError] = RecordError,
    what: str = "file",
    field: str | None = None,
) -> Path:
    """``path`` when it lies inside ``folder`` once every symlink and ``..`` is resolved; else one
    ``error`` naming it (a path from a data file may not reach outside the folder it is allowed in)."""
    text = os.fspath(path)
    if "\0" in text:
        raise error(
            "the path holds a NUL byte, which no file name can",
            file=shown_path(text),
            field=field,
            hint=f"name a {what} by its plain file name",
        )
    real = os.path.realpath(text)
    base = os.path.realpath(folder)
    if os.path.commonpath([real, base]) != base:
        raise error(
            f"lies outside its folder {base}",
            file=text,
            field=field,
            hint=f"a {what} named by a data file must be a file inside {base} (symlinks are "
            "followed before this check)",
        )
    return Path(text)


def open_input(
    path: str | Path,
    *,
    error: type[InputError] = RecordError,
    what: str = "JSONL file",
    not_found: str = "file not found",
    pipes: bool = False,
    inside: str | Path | None = None,
    field: str | None = None,
    buffering: int = -1,
) -> IO[bytes]:
    """A binary handle on ``path`` after the checks every input gets, each failure one ``error``
    naming the file:

    - a NUL byte in the path, a missing or unreadable file;
    - anything but a regular file: a directory, a device (``/dev/zero`` would be read for ever), a
      socket, or a FIFO (reading one waits for a writer that may never come) unless ``pipes`` (a
      stream the user named on purpose, such as ``<(zcat runs.jsonl.gz)``);
    - with ``inside``: a path that resolves (symlinks followed) outside that folder.

    The file is opened without blocking and checked on the open descriptor, so a path swapped for
    a FIFO after a check never hangs the command. Read it with a bound (:func:`read_input`) where it
    is read whole.
    """
    text = os.fspath(path)
    if inside is not None:
        check_inside(text, inside, error=error, what=what, field=field)
    elif "\0" in text:
        raise error(
            "the path holds a NUL byte, which no file name can",
            file=shown_path(text),
            field=field,
            hint="check where the path came from",
        )
    try:
        if pipes and stat.S_ISFIFO(os.stat(text).st_mode):
            return open(text, "rb", buffering)  # a pipe waits for its writer: named on purpose
        fd = os.open(text, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise error(not_found, file=text, field=field, hint="check the path") from None
    except IsADirectoryError:
        raise error(f"is a directory, not a {what}", file=text, field=field) from None
    except OSError as exc:
        raise error(f"could not be read ({exc.strerror or exc})", file=text, field=field) from None
    try:
        kind = _irregular(os.fstat(fd).st_mode)
        if kind == "a directory":
            raise error(f"is a directory, not a {what}", file=text, field=field)
        if kind is not None:
            raise error(
                f"is {kind}, not a regular file",
                file=text,
                field=field,
                hint=f"pass a regular {what}"
                + (" (or a pipe, for a stream named on the command line)" if pipes else ""),
            )
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering)
    except BaseException:
        os.close(fd)
        raise


def read_input(
    path: str | Path,
    *,
    limit: int = DEFAULT_MAX_DOCUMENT_BYTES,
    error: type[InputError] = RecordError,
    what: str = "file",
    not_found: str = "file not found",
    inside: str | Path | None = None,
    field: str | None = None,
) -> bytes:
    """The bytes of ``path``, at most ``limit`` of them: :func:`open_input`'s checks, then a bounded
    read (a bigger file is one ``error``, never loaded whole)."""
    with open_input(
        path, error=error, what=what, not_found=not_found, inside=inside, field=field
    ) as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise error(
                f"could not be read ({exc.strerror or exc})", file=os.fspath(path), field=field
            ) from None
    if len(data) > limit:
        raise error(
            f"is larger than {_size_text(limit)}, the most a {what} may be",
            file=os.fspath(path),
            field=field,
            hint=f"check that this is the {what} you meant",
        )
    return data


def _size_text(size: int) -> str:
    mib = size / (1024 * 1024)
    return f"{mib:g} MiB" if mib >= 1 else f"{size:,} bytes"


def is_gzip_name(path: str | Path) -> bool:
    """Whether a file is read as gzip: its name ends in ``.gz`` (the one rule of every reader)."""
    return os.fspath(path).endswith(".gz")


class _GzipInput(gzip.GzipFile):
    """A gzip stream over an open binary handle, closing the handle with itself."""

    def __init__(self, raw: IO[bytes]) -> None:
        super().__init__(fileobj=raw, mode="rb")
        self._raw = raw

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._raw.close()


def gunzipped(raw: IO[bytes]) -> IO[bytes]:
    """``raw`` decompressed as gzip (closing the result closes ``raw``); a stream that is not gzip
    fails on the first read, which :func:`describe_read_failure` puts in words."""
    return cast(IO[bytes], _GzipInput(raw))


def open_records(
    path: str | Path,
    *,
    error: type[InputError] = RecordError,
    what: str = "JSONL file",
    buffering: int = -1,
) -> IO[bytes]:
    """A records file (runs, items, labels, verdicts) opened for streaming: :func:`open_input`'s
    checks (a pipe named on purpose is streamed), decompressed when its name ends in ``.gz``."""
    raw = open_input(path, error=error, what=what, pipes=True, buffering=buffering)
    return gunzipped(raw) if is_gzip_name(path) else raw


def _open_read(path: Path) -> IO[bytes]:
    return open_records(path)


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
    limit: int = DEFAULT_MAX_DOCUMENT_BYTES,
    inside: str | Path | None = None,
    field: str | None = None,
) -> str:
    """The UTF-8 text of ``path`` (gunzipped first with ``gunzip``), or one ``error`` naming the file.

    A missing file, a folder or an unreadable file raise ``error`` with the caller's wording
    (``not_found``, ``directory``, ``unreadable`` followed by the OS reason in brackets); anything
    but a regular file (a FIFO, a device), a path outside ``inside``, and a file (or, gunzipped,
    a text) over ``limit`` bytes are refused unread (see :func:`read_input`); a bad compressed
    stream says what is wrong with it; bytes that are not UTF-8 name the line, the column and the
    byte.
    """
    what = directory.rsplit("not a ", 1)[-1] if "not a " in directory else "file"
    try:
        data = read_input(
            path,
            limit=limit,
            error=error,
            what=what,
            not_found=not_found,
            inside=inside,
            field=field,
        )
    except InputError as exc:
        if exc.message.startswith("is a directory"):
            raise error(directory, file=path, field=field) from None
        if exc.message.startswith("could not be read"):
            raise error(
                unreadable + exc.message.removeprefix("could not be read"), file=path
            ) from None
        raise
    if gunzip:
        try:
            with gunzipped(io.BytesIO(data)) as stream:
                data = stream.read(limit + 1)
        except (OSError, EOFError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
            raise error(describe_read_failure(exc), file=path) from None
        if len(data) > limit:
            raise error(
                f"decompresses to more than {_size_text(limit)}, the most a {what} may be",
                file=path,
                hint=f"check that this is the {what} you meant",
            )
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


def json_value(
    raw: bytes | str,
    *,
    file: str | Path | None,
    line: int | None = None,
    error: type[InputError] = RecordError,
    hint: str | None = None,
) -> Any:
    """One JSON value from a file that came from elsewhere: a record line (``line`` is its number)
    or a whole document (``line`` None: a problem names the document's own line).

    What JSON cannot carry is one ``error`` naming the file, the line and, for a number, the field:
    invalid JSON or UTF-8, nesting deeper than :data:`pathjudge._json.MAX_DEPTH` levels (never a
    ``RecursionError``), and ``NaN``, ``Infinity`` or a number beyond a float (``1e400``).
    """
    from pathjudge._json import MAX_DEPTH, check_depth, unrepresentable_in

    try:
        value = json.loads(raw)
    except RecursionError:
        value = _TOO_DEEP
    except json.JSONDecodeError as exc:
        raise error(
            f"not valid JSON ({exc.msg} at column {exc.colno})",
            file=file,
            line=line if line is not None else exc.lineno,
            hint=hint,
        ) from None
    except ValueError as exc:  # bad UTF-8, an integer of thousands of digits
        raise error(f"not valid JSON ({exc})", file=file, line=line, hint=hint) from None
    text = raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass")
    if value is _TOO_DEEP or (
        isinstance(value, dict | list)
        and text.count(b"[") + text.count(b"{") > MAX_DEPTH
        and not check_depth(value)
    ):
        offset = _too_deep_at(text, MAX_DEPTH)
        spot = text.count(b"\n", 0, offset)
        column = offset - (text.rfind(b"\n", 0, offset) + 1) + 1
        raise error(
            f"nested more than {MAX_DEPTH} levels deep (at column {column})",
            file=file,
            line=line if line is not None else spot + 1,
            hint="no pathjudge file nests this deep; it was not written by pathjudge, or was damaged",
        )
    if suspect_number(text) and unrepresentable_in(value):  # a cheap byte screen first
        found = first_unrepresentable(value)
        where, number = found if found is not None else ((), float("nan"))
        raise error(
            f"holds a number JSON cannot carry: {describe_unrepresentable(number)}",
            file=file,
            line=line,
            field=format_loc(where) or None,
            hint=_FINITE_HINT,
        )
    return value


def _too_deep_at(text: bytes, limit: int) -> int:
    """The offset of the first ``[`` or ``{`` that opens level ``limit + 1`` of a JSON text (strings
    skipped), for an error to point at; 0 when there is none."""
    depth = 0
    in_string = escaped = False
    for offset, byte in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                return offset
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return 0


_TOO_DEEP = object()
"""What :func:`json_value` makes of a document the standard parser gives up on (too deep)."""


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
    handle = _open_read(path)
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
    except (OSError, EOFError, zlib.error, InputError):
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
