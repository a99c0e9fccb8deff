"""Managed Agents event logs: the event vocabulary, and reading a saved log into located events.

A saved log is a JSON array of events, a list page ``{"data": [...], "next_page": ...}``, JSON Lines
(one event or page per line), or a dump of the server-sent-event stream (``event:``/``data:``/``id:``
lines, ``:`` heartbeats, blank-line separated frames). Each event keeps the line it starts on, so a
problem found later names it.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pathjudge import _json as strict_json
from pathjudge.agent.importers._common import load_json
from pathjudge.errors import ImportFormatError

__all__ = ["BETA_HEADER", "FORMAT", "LocatedEvent", "read_events"]

FORMAT = "managed-agents"
BETA_HEADER = "managed-agents-2026-04-01"

Json = Any
ToolKind = Literal["agent_tool", "mcp_tool", "custom_tool"]

_USE_TYPES: dict[str, ToolKind] = {
    "agent.tool_use": "agent_tool",
    "agent.mcp_tool_use": "mcp_tool",
    "agent.custom_tool_use": "custom_tool",
}
# result event type -> the field naming the use event it answers
_RESULT_TYPES = {
    "agent.tool_result": "tool_use_id",
    "agent.mcp_tool_result": "mcp_tool_use_id",
    "user.custom_tool_result": "custom_tool_use_id",
    "user.tool_result": "tool_use_id",
}
_ENVELOPE = frozenset({"id", "type", "processed_at"})
_KNOWN_FIELDS: dict[str, frozenset[str]] = {
    "agent.tool_use": _ENVELOPE
    | {"name", "input", "evaluated_permission", "evaluation", "session_thread_id"},
    "agent.mcp_tool_use": _ENVELOPE
    | {
        "name",
        "input",
        "mcp_server_name",
        "evaluated_permission",
        "evaluation",
        "session_thread_id",
    },
    "agent.custom_tool_use": _ENVELOPE | {"name", "input", "session_thread_id"},
    "agent.tool_result": _ENVELOPE | {"tool_use_id", "content", "is_error", "session_thread_id"},
    "agent.mcp_tool_result": _ENVELOPE
    | {"mcp_tool_use_id", "content", "is_error", "session_thread_id"},
    "user.custom_tool_result": _ENVELOPE
    | {"custom_tool_use_id", "content", "is_error", "session_thread_id"},
    "user.tool_result": _ENVELOPE | {"tool_use_id", "content", "is_error", "session_thread_id"},
    "user.message": _ENVELOPE | {"content"},
    "user.interrupt": _ENVELOPE | {"session_thread_id"},
    "user.tool_confirmation": _ENVELOPE
    | {"tool_use_id", "result", "deny_message", "session_thread_id"},
    "agent.message": _ENVELOPE | {"content"},
    "agent.thinking": _ENVELOPE | {"content", "thinking"},
    "session.status_running": _ENVELOPE,
    "session.status_idle": _ENVELOPE | {"stop_reason", "stop_details"},
    "session.status_rescheduled": _ENVELOPE,
    "session.status_terminated": _ENVELOPE,
    "span.model_request_start": _ENVELOPE,
    "span.model_request_end": _ENVELOPE | {"is_error", "model_request_start_id", "model_usage"},
    "session.usage": _ENVELOPE | {"usage", "budget"},
    "event_start": frozenset({"type", "event"}),
    "event_delta": frozenset({"type", "event_id", "delta"}),
}
_SSE_FIELDS = ("event:", "data:", "id:", "retry:", ":")


@dataclass(frozen=True, slots=True)
class LocatedEvent:
    """One event with the 1-based line it starts on in its file (None when it came from memory)."""

    value: Json
    line: int | None = None


class _EventError(Exception):
    """A problem with event ``index``; turned into an ImportFormatError with the file's line later."""

    def __init__(
        self, index: int, message: str, where: str | None = None, hint: str | None = None
    ) -> None:
        super().__init__(message)
        self.index = index
        self.message = message
        self.where = where
        self.hint = hint


def _read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ImportFormatError("file not found", file=path, hint="check the path") from None
    except IsADirectoryError:
        raise ImportFormatError("is a directory, not an event log", file=path) from None
    except OSError as exc:
        raise ImportFormatError(f"could not be read ({exc.strerror})", file=path) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ImportFormatError(
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x})",
            file=path,
            line=line,
            hint="re-encode the file as UTF-8",
        ) from None


class _Lines:
    """Offset → 1-based line number, by bisecting the newline offsets once."""

    def __init__(self, text: str) -> None:
        self._newlines = [i for i, ch in enumerate(text) if ch == "\n"]

    def at(self, offset: int) -> int:
        return bisect.bisect_left(self._newlines, offset) + 1


_DECODER = json.JSONDecoder()


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _scan_array(text: str, pos: int) -> list[tuple[Json, int]]:
    """Elements of the (already validated) JSON array starting at ``text[pos] == '['`` with offsets."""
    items: list[tuple[Json, int]] = []
    pos = _skip_ws(text, pos + 1)
    if text[pos] == "]":
        return items
    while True:
        pos = _skip_ws(text, pos)
        value, end = _DECODER.raw_decode(text, pos)
        items.append((value, pos))
        pos = _skip_ws(text, end)
        if text[pos] == "]":
            return items
        pos += 1  # the comma


def _scan_page(text: str, pos: int, key: str) -> list[tuple[Json, int]] | None:
    """The elements of the array under ``key`` of the JSON object at ``pos``, with offsets."""
    pos = _skip_ws(text, pos + 1)
    while pos < len(text) and text[pos] != "}":
        name, pos = _DECODER.raw_decode(text, pos)
        pos = _skip_ws(text, pos)
        pos = _skip_ws(text, pos + 1)  # the colon
        if name == key and text[pos] == "[":
            return _scan_array(text, pos)
        _, pos = _DECODER.raw_decode(text, pos)
        pos = _skip_ws(text, pos)
        if text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
    return None


def _page_events(value: Json) -> list[Json] | None:
    if isinstance(value, dict):
        for key in ("data", "events"):
            if isinstance(value.get(key), list) and "type" not in value:
                return list(value[key])
    return None


def _json_document(text: str, path: Path, lines: _Lines) -> list[LocatedEvent] | None:
    """Events of a JSON array or page; None when the text is several JSON values (JSON Lines)."""
    try:
        value = strict_json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            return None
        raise ImportFormatError(
            f"not valid JSON ({exc.msg} at column {exc.colno})",
            file=path,
            line=exc.lineno,
            hint="the file may be truncated; save the event log as one JSON array or one event per line",
        ) from None
    start = _skip_ws(text, 0)
    if isinstance(value, list):
        return [LocatedEvent(v, lines.at(off)) for v, off in _scan_array(text, start)]
    # the text starts with "{", so the document is an object: a page, or a single event
    events = _page_events(value)
    if events is None:
        return [LocatedEvent(value, lines.at(start))]
    key = "data" if isinstance(value.get("data"), list) else "events"
    return [LocatedEvent(v, lines.at(off)) for v, off in _scan_page(text, start, key) or []]


def _jsonl(text: str, path: Path) -> list[LocatedEvent]:
    out: list[LocatedEvent] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        value = load_json(
            raw,
            file=path,
            line=number,
            hint="each line must be one complete event (or page); the line may be truncated",
        )
        page = _page_events(value)
        if page is not None:
            out.extend(LocatedEvent(v, number) for v in page)
        else:
            out.append(LocatedEvent(value, number))
    return out


def _sse(text: str, path: Path) -> list[LocatedEvent]:
    """Parse a server-sent-event dump: frames end at a blank line; ``data:`` lines are joined."""
    out: list[LocatedEvent] = []
    name: str | None = None
    data: list[str] = []
    first_line: int | None = None

    def dispatch() -> None:
        nonlocal name, data, first_line
        if data and name != "ping":
            payload = "\n".join(data)
            try:
                value = strict_json.loads(payload)
            except json.JSONDecodeError as exc:
                raise ImportFormatError(
                    f"the data of this server-sent event is not valid JSON ({exc.msg})",
                    file=path,
                    line=first_line,
                    hint="the dump may be cut mid-event; keep whole frames separated by blank lines",
                ) from None
            if name == "error":
                value = {"type": "stream.error", "data": value}
            out.append(LocatedEvent(value, first_line))
        name, data, first_line = None, [], None

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r")
        if not line:
            dispatch()
            continue
        if line.startswith(":"):
            continue  # heartbeat / comment
        fname, sep, fvalue = line.partition(":")
        if not sep:
            raise ImportFormatError(
                f"not a server-sent-event line ({line[:40]!r})",
                file=path,
                line=number,
                hint="stream dumps hold 'event:', 'data:' and 'id:' lines with blank lines between events",
            )
        fvalue = fvalue[1:] if fvalue.startswith(" ") else fvalue
        if fname == "event":
            name = fvalue
        elif fname == "data":
            if first_line is None:
                first_line = number
            data.append(fvalue)
        elif fname in ("id", "retry"):
            continue
        else:
            raise ImportFormatError(
                f"unknown server-sent-event field {fname!r}",
                file=path,
                line=number,
                hint="stream dumps hold 'event:', 'data:' and 'id:' lines",
            )
    dispatch()
    return out


def read_events(path: str | Path) -> list[LocatedEvent]:
    """Read a saved event log (JSON array, page, JSON Lines, or SSE dump) into located events.

    Empty input (an empty file, ``[]``, ``{"data": []}``) raises an :class:`ImportFormatError`.
    """
    path = Path(path)
    text = _read_text(path)
    stripped = text.lstrip()
    if not stripped:
        raise ImportFormatError(
            "has no events", file=path, hint="the file is empty; save the session's events"
        )
    if stripped.startswith(_SSE_FIELDS):
        events = _sse(text, path)
    elif stripped[0] in "[{":
        lines = _Lines(text)
        document = _json_document(text, path, lines)
        events = _jsonl(text, path) if document is None else document
    else:
        raise ImportFormatError(
            "is not a Managed Agents event log",
            file=path,
            line=text[: len(text) - len(stripped)].count("\n") + 1,
            hint='pass a JSON array of events, a {"data": [...]} page, JSON Lines, or an SSE dump',
        )
    if not events:
        raise ImportFormatError(
            "has no events", file=path, hint="the log is empty; save the session's events"
        )
    return events
