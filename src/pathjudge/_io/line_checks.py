"""What is wrong with a JSONL line that pydantic accepted (:func:`line_problem`): invalid UTF-8
where the installed parser lets it through (:func:`parser_refuses_bad_utf8`), or a number JSON
cannot carry, found by a model's registered screen (:func:`register_number_screen`) or a byte scan.
The words for a line that cannot be read at all, shared by every line reader: :class:`LineErrors`."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from pathjudge._io.record_errors import format_loc
from pathjudge._json import (
    describe_unrepresentable,
    finite_problem,
    first_unrepresentable,
    suspect_number,
)
from pathjudge.errors import InputError, RecordError

E = TypeVar("E", bound=InputError)


@dataclass(frozen=True, slots=True)
class LineErrors(Generic[E]):
    """The errors, as the reader's ``error`` class, for the lines of ``file`` that cannot be read."""

    error: type[E]
    file: str | Path | None

    def too_long(self, line: int, length: int, limit: int, *, hint: str, per: str = "") -> E:
        """A line of ``length`` bytes over the reader's ``limit`` (``per``: e.g. " per record")."""
        return self.error(
            f"line is {length / 1e6:.1f} MB, over the limit of {limit / 1e6:.1f} MB{per}",
            file=self.file,
            line=line,
            hint=hint,
        )

    def not_utf8(self, line: int | None, raw: bytes, bad: UnicodeDecodeError) -> E:
        """A line whose bytes are not UTF-8: the first bad byte and its column."""
        return self.error(
            f"not valid UTF-8 (byte 0x{raw[bad.start]:02x} at column {bad.start + 1})",
            file=self.file,
            line=line,
            hint="re-encode the file as UTF-8",
        )

    def broken(self, line: int, why: str) -> E:
        """A (compressed) stream that broke while ``line`` was read; ``why`` says how."""
        return self.error(
            why,
            file=self.file,
            line=line,
            hint="recompress or re-export the file; every line before this one was read",
        )


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
            return LineErrors(RecordError, file).not_utf8(line, raw, bad)
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
