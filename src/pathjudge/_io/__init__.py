"""Shared file plumbing: input-path checks, line-numbered JSONL reading, atomic writes and
output-path safety.

Every part of pathjudge that reads or writes records on disk (runs, items, verdicts, labels, reports,
grade shards, criteria) goes through this package, so there is one reader, one writer and one rule for
each. One module per job, every name re-exported here:

- :mod:`~pathjudge._io.inputs`: the checks every input gets, bounded whole-file reads, ``.gz``,
  strict JSON values;
- :mod:`~pathjudge._io.jsonl`: line-numbered JSONL streams of validated records;
- :mod:`~pathjudge._io.line_checks`: what pydantic lets through on a line (bad UTF-8, NaN);
- :mod:`~pathjudge._io.record_errors`: validation errors as one clear record error (or document
  error);
- :mod:`~pathjudge._io.atomic`: atomic writes;
- :mod:`~pathjudge._io.jsonl_write`: writing JSONL whole or appending one record at a time;
- :mod:`~pathjudge._io.outputs`: never writing over an input.

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

from pathjudge._io.atomic import (
    atomic_writer,
    new_file_mode,
    open_atomic_temp,
    write_bytes_atomic,
    write_text_atomic,
)
from pathjudge._io.inputs import (
    DEFAULT_MAX_DOCUMENT_BYTES,
    ReadFailure,
    check_inside,
    describe_read_failure,
    gunzipped,
    is_gzip_name,
    json_value,
    open_input,
    open_records,
    read_input,
    read_utf8,
    shown_path,
)
from pathjudge._io.inputs import _open_read as _open_read
from pathjudge._io.jsonl import (
    DEFAULT_MAX_LINE_BYTES,
    UTF8_BOM,
    JsonlStream,
    count_newlines,
    iter_jsonl,
    line_of,
    record_line,
)
from pathjudge._io.jsonl import _lines as _lines
from pathjudge._io.jsonl_write import (
    JsonlAppender,
    Record,
    SelfSerializing,
    inspect_tail,
    write_jsonl,
)
from pathjudge._io.line_checks import _BAD_UTF8 as _BAD_UTF8
from pathjudge._io.line_checks import LineErrors, line_problem, register_number_screen
from pathjudge._io.line_checks import _utf8_probes as _utf8_probes
from pathjudge._io.line_checks import _Utf8Probe as _Utf8Probe
from pathjudge._io.line_checks import parser_refuses_bad_utf8 as parser_refuses_bad_utf8
from pathjudge._io.outputs import ensure_not_input, same_file
from pathjudge._io.record_errors import (
    collect_or_raise,
    format_loc,
    record_error_from_validation,
    validate_document,
)

__all__ = [
    "DEFAULT_MAX_DOCUMENT_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "UTF8_BOM",
    "JsonlAppender",
    "JsonlStream",
    "LineErrors",
    "ReadFailure",
    "Record",
    "SelfSerializing",
    "atomic_writer",
    "check_inside",
    "collect_or_raise",
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
    "validate_document",
    "write_bytes_atomic",
    "write_jsonl",
    "write_text_atomic",
]
