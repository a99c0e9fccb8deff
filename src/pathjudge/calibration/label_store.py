"""Hand labels as an append-only event log: nothing lost, provenance kept.

One line of a label file is a :class:`LabelEvent`: who labelled which item (by id and by a content
hash of its inputs), against which version of which criterion, when, in what order and why the item
came next. The file is never rewritten: a relabel is a new line, and :func:`current_labels` keeps the
last line per ``(item_id, criterion, rater, kind)`` while the history stays in the file.

Writing (:func:`append_label`) is one ``os.write`` of one whole line on an ``O_APPEND`` descriptor
under an exclusive ``flock``, then ``fsync``: two raters (two processes) appending to one shared
file never interleave, lose or duplicate a line, and a label is on disk before the page moves on.
A crash can still leave a torn last line (the start of a record, no newline): the next append writes
a newline first, so the torn piece is never joined with the next record, and :func:`read_events`
skips it with a warning. A line that is complete JSON but not a valid event is an error naming the
file, line and field.

Example line (one line in the file)::

    {"schema_version":2,"kind":"label","item_id":"a17","criterion":"summary-faithful",
     "criterion_version":"1","criterion_hash":"sha256:…","label":"fail","score":null,
     "note":"invents a date","rater":"ana","labelled_at":"2026-12-06T20:41:07.123456Z",
     "item_hash":"sha256:…","pathjudge_version":"0.9.0","order":"random","seed":0,"position":3,
     "reason":"random order (seed 0)","stratum":null,"stratum_size":null,"split":null,
     "group":null,"slice":{"domain":"news"}}
"""

from __future__ import annotations

import fcntl
import json
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

from pathjudge._ids import ItemId
from pathjudge._io import iter_jsonl
from pathjudge.errors import InputError, RecordError

__all__ = [
    "LABEL_EVENT_SCHEMA_VERSION",
    "EventKind",
    "LabelEvent",
    "LabelKey",
    "LabelOrder",
    "LabelValue",
    "TornLineWarning",
    "append_label",
    "current_labels",
    "item_content_hash",
    "read_events",
]

LABEL_EVENT_SCHEMA_VERSION: Literal[2] = 2

LabelValue = Literal["pass", "fail", "unsure"]
EventKind = Literal["label", "adjudication"]
LabelOrder = Literal["random", "gates", "file", "adjudication"]
LabelKey = tuple[str, str, str, str]
"""``(item_id, criterion, rater, kind)``: one current label per key (see :func:`current_labels`)."""


class TornLineWarning(UserWarning):
    """A label file holds a line cut off by a crash; it was skipped (the rest was read)."""


class LabelEvent(BaseModel):
    """One label (or adjudication) of one item by one rater: one line of a label file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[2] = Field(
        default=LABEL_EVENT_SCHEMA_VERSION, description="Label event schema version."
    )
    kind: EventKind = Field(
        default="label",
        description="'label': a rater's own judgement; 'adjudication': the settled label of a "
        "disagreement, written next to the originals.",
    )
    item_id: ItemId = Field(
        description="The item's id in the items file (an integer is read as text)."
    )
    criterion: str = Field(min_length=1, description="The criterion id the label answers.")
    criterion_version: int | str = Field(
        description="The criterion's declared version when the label was given."
    )
    criterion_hash: str = Field(
        min_length=1, description="Content hash of the criterion text the rater was shown."
    )
    label: LabelValue = Field(
        description="pass, fail, or unsure (the rater could not decide; excluded from agreement)."
    )
    score: float | None = Field(
        default=None,
        allow_inf_nan=False,
        description="A score on the criterion's scale, where it has one; otherwise null.",
    )
    note: str | None = Field(default=None, description="The rater's rationale, in their words.")
    rater: str = Field(min_length=1, description="Who labelled it (a stable id, e.g. 'ana').")
    labelled_at: str = Field(description="When, as ISO 8601 in UTC (e.g. 2026-12-06T20:41:07Z).")
    item_hash: str = Field(
        min_length=1,
        description="Content hash of the item's inputs (item_content_hash): a verdict's input hash "
        "for the same inputs is equal, and an edited item no longer matches its old labels.",
    )
    pathjudge_version: str = Field(description="The pathjudge version that wrote the line.")
    order: LabelOrder = Field(
        description="How items were ordered for the rater: random, gates, file, or adjudication."
    )
    seed: int | None = Field(default=None, description="The seed of a random order; else null.")
    position: int | None = Field(
        default=None, ge=0, description="The item's 0-based place in that order."
    )
    reason: str | None = Field(
        default=None, description="Why the item came next, as the ordering said it."
    )
    stratum: str | None = Field(
        default=None,
        description="The stratum the gates order drew the item from at random (e.g. "
        "'judge-pass'); null when the order had no strata. With stratum_size it lets calibrate "
        "weigh the label by its design.",
    )
    stratum_size: int | None = Field(
        default=None, ge=1, description="How many items that stratum holds (N_h); else null."
    )
    split: Literal["train", "dev", "test"] | None = Field(
        default=None, description="The item's split (train items feed few-shot examples)."
    )
    group: str | None = Field(
        default=None, description="The item's group (e.g. its task id), where it has one."
    )
    slice: dict[str, str] = Field(
        default_factory=dict, description="The item's slice keys (e.g. {'domain': 'news'})."
    )

    @field_validator("labelled_at")
    @classmethod
    def _iso_utc(cls, value: str) -> str:
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError("must be an ISO 8601 time, e.g. 2026-12-06T20:41:07Z") from None
        offset = moment.utcoffset()
        if offset is None or offset.total_seconds() != 0:
            raise ValueError("must be in UTC (end it with Z or +00:00)")
        return value

    @field_validator("note", "rater", "reason")
    @classmethod
    def _utf8_text(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError("holds a lone surrogate, which UTF-8 cannot carry") from None
        return value


def item_content_hash(inputs: Mapping[str, JsonValue]) -> str:
    """The content hash of an item's inputs: the judge's verdict-cache input hash
    (:func:`pathjudge.judge.cache.input_hash`, ``sha256:`` + 24 hex digits of the sorted-key JSON),
    so a label and a verdict of the same inputs carry the same hash."""
    from pathjudge.judge.cache import input_hash

    return input_hash(inputs)


def append_label(path: Path, event: LabelEvent) -> None:
    """Append ``event`` as one JSON line, durably, safe against concurrent writers.

    One ``os.write`` on an ``O_APPEND`` descriptor under an exclusive ``flock``, then ``fsync``. A
    file whose last line lacks its newline (a torn write) gets one first, in the same write, so the
    new record never joins it. ``.gz`` paths are refused (appending would break the stream).
    """
    path = Path(path)
    if path.suffix == ".gz":
        raise InputError(
            "cannot be appended to: it is gzip-compressed",
            file=path,
            hint="write labels to a plain .jsonl file",
        )
    data = (event.model_dump_json() + "\n").encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data
            written = os.write(fd, data)
            while written < len(data):  # a short write (disk full, signal): finish the line
                written += os.write(fd, data[written:])
            os.fsync(fd)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _torn(raw: bytes) -> bool:
    """Whether a bad line is the start of a JSON record cut off mid-write (not a wrong record)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        # cut inside a multi-byte character: the bytes end early, the rest is fine
        return bad.reason == "unexpected end of data" and _torn(raw[: bad.start])
    text = text.strip()
    if not text.startswith("{"):
        return False
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return exc.pos >= len(text) or "Unterminated string" in exc.msg
    return False


def _raw_lines(path: Path, numbers: set[int]) -> dict[int, bytes]:
    found: dict[int, bytes] = {}
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            if number in numbers:
                found[number] = raw
    return found


def read_events(path: Path, *, warn: Callable[[str], None] | None = None) -> Iterator[LabelEvent]:
    """Yield the label events of a label file, in file order.

    A missing or empty file yields nothing (no label yet). A torn line (a record cut off by a crash)
    is skipped with a warning (``warn``, default a :class:`TornLineWarning`); any other bad line is a
    :class:`~pathjudge.errors.RecordError` naming the file, the line, the field and the fix.
    """
    path = Path(path)
    if not path.exists():
        return
    for _, event in numbered_events(path, warn):
        yield event


def numbered_events(
    path: Path, warn: Callable[[str], None] | None
) -> Iterator[tuple[int, LabelEvent]]:
    """``(line, event)`` for the label events of an existing label file, torn lines skipped and
    any other bad line raised as :func:`read_events` says."""
    errors: list[RecordError] = []
    stream = iter_jsonl(path, LabelEvent, errors=errors, allow_empty=True, what="label event")
    seen = 0
    for number, event in stream.numbered():
        if len(errors) > seen:
            _settle(path, errors[seen:], warn)
            seen = len(errors)
        yield number, event
    if len(errors) > seen:
        _settle(path, errors[seen:], warn)


def _settle(path: Path, errors: list[RecordError], warn: Callable[[str], None] | None) -> None:
    """Warn about torn lines among ``errors``; raise the first error that is not one."""
    raws = _raw_lines(path, {e.line for e in errors if e.line is not None})
    for error in errors:
        raw = raws.get(error.line) if error.line is not None else None
        if raw is None or not _torn(raw):
            raise error
        message = (
            f"{path}:{error.line}: skipped a label line cut off mid-write (a crash while "
            "labelling); every other line was read"
        )
        if warn is None:
            # past _settle, numbered_events and its reader: the line that asked for the events
            warnings.warn(message, TornLineWarning, stacklevel=4)
        else:
            warn(message)


def current_labels(events: Iterable[LabelEvent]) -> dict[LabelKey, LabelEvent]:
    """The current label per ``(item_id, criterion, rater, kind)``: the last event for a key wins.

    Earlier events for a key (relabels) are history: they stay in the file but not in the result.
    The dict keeps the order in which keys were first labelled. Empty input: an empty dict.
    """
    out: dict[LabelKey, LabelEvent] = {}
    for event in events:
        out[(event.item_id, event.criterion, event.rater, event.kind)] = event
    return out
