"""The checks every input pathjudge reads goes through: a regular file only (:func:`open_input`),
inside its folder where a data file names it (:func:`check_inside`), read whole with a bound
(:func:`read_input`, :func:`read_utf8`), ``.gz`` by one rule (:func:`is_gzip_name`,
:func:`open_records`), a JSON value from elsewhere decoded strictly (:func:`json_value`)."""

from __future__ import annotations

import gzip
import io
import json
import os
import stat
import zlib
from pathlib import Path
from typing import IO, Any, cast

from pathjudge._io.line_checks import _FINITE_HINT
from pathjudge._io.record_errors import format_loc
from pathjudge._json import (
    describe_unrepresentable,
    first_unrepresentable,
    suspect_number,
)
from pathjudge.errors import InputError, RecordError

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
