"""Claude Managed Agents session event logs (beta ``managed-agents-2026-04-01``) → one :class:`RunRecord`.

A Managed Agents session runs the tool loop on Anthropic's side and records it as a list of events
(``GET /v1/sessions/{id}/events``, or live over ``GET /v1/sessions/{id}/events/stream``). This module
turns one session's events into one run:

* every tool use — ``agent.tool_use`` (built-in toolset), ``agent.mcp_tool_use`` (MCP server tool) and
  ``agent.custom_tool_use`` (a client-side tool) — becomes a :class:`Step` whose ``call_id`` is the use
  event's ``id``; its result is the event that names that id: ``agent.tool_result.tool_use_id``,
  ``agent.mcp_tool_result.mcp_tool_use_id``, ``user.custom_tool_result.custom_tool_use_id`` or (on
  self-hosted environments) ``user.tool_result.tool_use_id``. The result text (text blocks joined by
  newlines) is ``result``; a result with image/document/search-result blocks keeps the block list as is.
  ``is_error`` comes from the result event. ``latency_ms`` is the gap between the two ``processed_at``.
* ``turn``: when the log carries ``span.model_request_start`` events, every tool use issued under the same
  model request shares a turn. Without spans, consecutive tool uses with no result, message, thinking or
  user event between them share a turn (status events do not break a turn). Equal turns are parallel.
* ``decision``: the text of the ``agent.thinking`` (when it carries text) and ``agent.message`` events
  since the previous tool use, joined by blank lines; calls later in the same turn with no text of their
  own share the turn's decision.
* ``step.state``: ``kind`` (``agent_tool``/``mcp_tool``/``custom_tool``), ``mcp_server_name``,
  ``evaluated_permission`` and ``evaluation`` (permission policy), ``confirmation`` (the
  ``user.tool_confirmation`` answer: ``result`` allow/deny, ``deny_message``, ``event_id``),
  ``interrupted_by`` (the ``user.interrupt`` that arrived while the call had no result),
  ``status`` (``completed``, ``denied``, ``interrupted`` or ``no_result``), ``session_thread_id`` and the
  event ids/timestamps; fields of the use/result events that this importer does not know go to
  ``state["unknown_fields"]``.
* ``input``: the first ``user.message`` (its text, or its content blocks when it is not text-only). Later
  user messages are kept in ``metadata["user_messages"]``, and the agent's replies to earlier user turns
  in ``metadata["agent_replies"]``; ``final_answer`` is the ``agent.message`` text after the last tool
  call of the last user turn (None when there is none). ``replies`` holds both, in order: each reply to
  an earlier user turn, then the final answer.
* ``stop_reason``: ``interrupted`` when a ``user.interrupt`` came after the last ``user.message`` (the
  run was stopped and not resumed); otherwise ``terminated`` after ``session.status_terminated``, the
  ``stop_reason.type`` of a final ``session.status_idle`` (``end_turn``, ``requires_action``,
  ``retries_exhausted``, ``budget_reached``, ``refusal``), ``running`` when the log ends while the session
  runs, None without any status event.
* ``usage``: the last ``session.usage`` snapshot (cumulative) when present, else the sum of
  ``span.model_request_end.model_usage``; the session object's ``usage`` (when fetched) wins over both.
  ``cost_usd`` comes from a ``list_cost`` in USD.
* Nothing is dropped: events this importer does not map (``session.error``, thread events, outcome
  spans, ``system.message``, compaction, workflow events, unknown types, ``error`` frames of a stream
  dump) and unknown fields of mapped events are kept in ``metadata["unmapped"]`` as
  ``{"at": "[index].field", "value": ...}``; statuses in ``metadata["statuses"]``; identical re-sent
  events (a stream reconnect) are counted in ``metadata["duplicate_events"]``; stream-only previews
  (``event_start``/``event_delta``) whose final event never arrived are rebuilt into
  ``metadata["unfinished_previews"]``.

Empty input: a log with no events is an error (there is no session to import); a log without tool
uses gives a run with no steps.

Inputs read by :func:`import_file`: a JSON array of events, a list page ``{"data": [...], "next_page":
...}``, JSON Lines (one event or page per line), or a dump of the server-sent-event stream
(``event:``/``data:``/``id:`` lines, ``:`` heartbeats, blank-line separated frames). Problems are one
:class:`~pathjudge.errors.ImportFormatError` naming the file, the line of the offending event and the field.

Verified against the documentation and the anthropic SDK 2.14 types (``anthropic.types.beta.sessions``):
the beta header; the list endpoint, its ``data``/``next_page`` cursor page and ``page``/``limit`` params;
the event type strings; ``id``, ``type``, ``processed_at`` (null while queued); ``content`` blocks of
``user.message``/``agent.message`` (``text``, ``redacted``...); ``name``/``input`` of the three tool-use
events; ``mcp_server_name``; ``evaluated_permission`` (allow/ask/deny) and ``evaluation``;
``session_thread_id``; the result id fields listed above, result ``content`` and ``is_error``;
``user.tool_confirmation`` ``tool_use_id``/``result``/``deny_message``; ``user.interrupt``;
``session.status_idle`` ``stop_reason`` (``end_turn``, ``requires_action`` with ``event_ids``,
``retries_exhausted``, ``budget_reached``, ``refusal``) and ``stop_details``;
``span.model_request_end`` ``model_usage`` and ``is_error``; ``session.usage`` ``usage`` snapshot with
``list_cost`` ``{amount, currency}``; stream-only ``event_start``/``event_delta`` previews.

Inferred (not stated by the documentation): ``agent.thinking`` is documented as a progress signal without
content — a ``content`` list or ``thinking`` string on it, as some older clients show, is used as decision
text when present; the SSE frame's ``event:`` name is ignored except ``ping`` (skipped) and ``error``
(kept); turn grouping without span events; a denied confirmation that never gets a result means the call
did not run; ``user.interrupt`` applies to every call still waiting for its result.
"""

from __future__ import annotations

import bisect
import json
import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, assert_never, cast

from pathjudge import _json as strict_json
from pathjudge.agent.importers._common import Unmapped, parse_arguments, source_metadata, text_parts
from pathjudge.agent.trajectory import AgentInfo, Reply, RunRecord, Step, Timing, Usage
from pathjudge.errors import ImportFormatError, InputError, RemoteImportError

__all__ = [
    "BETA_HEADER",
    "DEFAULT_DEADLINE_S",
    "DEFAULT_TIMEOUT_S",
    "FORMAT",
    "fetch_session",
    "from_managed_agents",
    "import_file",
    "read_events",
]

FORMAT = "managed-agents"
BETA_HEADER = "managed-agents-2026-04-01"
DEFAULT_TIMEOUT_S = 60.0
"""Seconds one request of a session fetch may take."""
DEFAULT_DEADLINE_S = 600.0
"""Seconds a whole session fetch may take (every page and retry together)."""

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


# --------------------------------------------------------------------------------------------------
# Reading files


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
        try:
            value = strict_json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ImportFormatError(
                f"not valid JSON ({exc.msg} at column {exc.colno})",
                file=path,
                line=number,
                hint="each line must be one complete event (or page); the line may be truncated",
            ) from None
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


# --------------------------------------------------------------------------------------------------
# Converting events to a run


@dataclass(slots=True)
class _Call:
    kind: ToolKind
    event: dict[str, Json]
    turn: int
    decision: str | None
    result: dict[str, Json] | None = None
    state: dict[str, Json] = field(default_factory=dict)


def _text(content: Json) -> tuple[str | None, int]:
    """Text of content blocks and the number of redacted blocks."""
    redacted = 0
    if isinstance(content, list):
        redacted = sum(1 for b in content if isinstance(b, dict) and b.get("type") == "redacted")
    return text_parts(content), redacted


def _result_value(content: Json) -> Json:
    """Text blocks joined by newlines; any non-text block keeps the whole block list as is."""
    if content is None:
        return None
    if isinstance(content, list) and all(
        isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        for b in content
    ):
        return "\n".join(b["text"] for b in content)
    return content


def _timestamp(event: dict[str, Json], index: int) -> datetime | None:
    value = event.get("processed_at")
    if value is None:
        return None
    if not isinstance(value, str):
        raise _EventError(index, "processed_at must be an ISO 8601 string or null", "processed_at")
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise _EventError(
            index,
            f"processed_at {value!r} is not an ISO 8601 timestamp",
            "processed_at",
            "use a timestamp like 2026-04-01T12:00:00Z",
        ) from None


def _require_str(event: dict[str, Json], key: str, index: int, what: str) -> str:
    value = event.get(key)
    if not isinstance(value, str) or not value:
        raise _EventError(
            index,
            f"a {what} event needs a non-empty string '{key}'",
            key,
            "the event log may be incomplete; export it again from the events endpoint",
        )
    return value


def _usage_from_snapshot(snapshot: Json) -> Usage | None:
    if not isinstance(snapshot, dict):
        return None

    def count(key: str) -> int:
        value = snapshot.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0

    creation = snapshot.get("cache_creation")
    created = 0
    if isinstance(creation, dict):
        created = sum(
            v
            for v in creation.values()
            if isinstance(v, int) and not isinstance(v, bool) and v >= 0
        )
    elif isinstance(snapshot.get("cache_creation_input_tokens"), int):
        created = count("cache_creation_input_tokens")
    cost: float | None = None
    list_cost = snapshot.get("list_cost")
    if isinstance(list_cost, dict) and list_cost.get("currency") == "USD":
        try:
            cost = float(list_cost.get("amount"))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            cost = None
        if cost is not None and cost < 0:
            cost = None
    return Usage(
        input_tokens=count("input_tokens"),
        output_tokens=count("output_tokens"),
        cache_creation_input_tokens=created,
        cache_read_input_tokens=count("cache_read_input_tokens"),
        cost_usd=cost,
    )


@dataclass(slots=True)
class _Builder:
    """The state of one pass over the events."""

    unmapped: Unmapped = field(default_factory=Unmapped)
    calls: dict[str, _Call] = field(default_factory=dict)
    order: list[_Call] = field(default_factory=list)
    pending: list[tuple[str, str]] = field(default_factory=list)  # (kind, text) since the last call
    turn: int = -1
    turn_open: bool = False
    turn_span: int = -1
    turn_decision: str | None = None
    spans_seen: int = 0
    use_spans: bool = False
    input: Json = None
    user_messages: list[dict[str, Json]] = field(default_factory=list)
    agent_replies: list[dict[str, Json]] = field(default_factory=list)
    interrupts: list[dict[str, Json]] = field(default_factory=list)
    statuses: list[dict[str, Json]] = field(default_factory=list)
    last_user_message: int = -1
    last_interrupt: int = -1
    redacted: int = 0
    span_usage: Usage | None = None
    snapshot_usage: Usage | None = None
    model_requests: int = 0
    model_request_errors: int = 0
    previews: dict[str, dict[str, Json]] = field(default_factory=dict)
    seen: dict[str, str] = field(default_factory=dict)
    duplicates: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    first_at: datetime | None = None
    last_at: datetime | None = None

    # -- helpers -------------------------------------------------------------------------------

    def close_turn(self) -> None:
        self.turn_open = False

    def flush_pending(self) -> str | None:
        text = "\n\n".join(t for _, t in self.pending if t)
        self.pending = []
        return text or None

    # -- event handlers ------------------------------------------------------------------------

    def tool_use(self, event: dict[str, Json], etype: str, index: int) -> None:
        kind = _USE_TYPES[etype]
        call_id = _require_str(event, "id", index, etype)
        _require_str(event, "name", index, etype)
        if self.use_spans:
            new_turn = self.turn < 0 or self.turn_span != self.spans_seen
        else:
            new_turn = not self.turn_open
        own = self.flush_pending()
        if new_turn:
            self.turn += 1
            self.turn_decision = own
            self.turn_span = self.spans_seen
        call = _Call(
            kind=kind,
            event=event,
            turn=self.turn,
            decision=own if own is not None else self.turn_decision,
        )
        self.calls[call_id] = call  # ids are unique: feed() rejects a reused id
        self.order.append(call)
        self.turn_open = True

    def tool_result(self, event: dict[str, Json], etype: str, index: int) -> None:
        key = _RESULT_TYPES[etype]
        use_id = _require_str(event, key, index, etype)
        self.close_turn()
        call = self.calls.get(use_id)
        if call is None or call.result is not None:
            why = (
                "no earlier tool use has this id"
                if call is None
                else "the call already has a result"
            )
            self.unmapped.add(f"[{index}]", {"reason": why, "event": event})
            return
        call.result = event

    def confirmation(self, event: dict[str, Json], index: int) -> None:
        use_id = _require_str(event, "tool_use_id", index, "user.tool_confirmation")
        result = event.get("result")
        if result not in ("allow", "deny"):
            raise _EventError(
                index,
                f"result must be 'allow' or 'deny', got {result!r}",
                "result",
                "a user.tool_confirmation answers allow or deny",
            )
        call = self.calls.get(use_id)
        if call is None:
            self.unmapped.add(
                f"[{index}]", {"reason": "no earlier tool use has this id", "event": event}
            )
            return
        confirmation: dict[str, Json] = {"result": result, "event_id": event.get("id")}
        if event.get("deny_message") is not None:
            confirmation["deny_message"] = event["deny_message"]
        if event.get("processed_at") is not None:
            confirmation["processed_at"] = event["processed_at"]
        call.state["confirmation"] = confirmation

    def interrupt(self, event: dict[str, Json], index: int) -> None:
        self.close_turn()
        self.last_interrupt = index
        entry: dict[str, Json] = {"event_id": event.get("id"), "after_step": len(self.order)}
        if event.get("processed_at") is not None:
            entry["processed_at"] = event["processed_at"]
        if event.get("session_thread_id") is not None:
            entry["session_thread_id"] = event["session_thread_id"]
        waiting = [
            call
            for call in self.order
            if call.result is None and "interrupted_by" not in call.state and not _denied(call)
        ]
        entry["interrupted_calls"] = [call.event["id"] for call in waiting]
        for call in waiting:
            call.state["interrupted_by"] = event.get("id")
        self.interrupts.append(entry)

    def user_message(self, event: dict[str, Json], index: int) -> None:
        self.close_turn()
        content = event.get("content")
        text, redacted = _text(content)
        self.redacted += redacted
        only_text = isinstance(content, list) and all(
            isinstance(b, dict) and b.get("type") == "text" for b in content
        )
        value: Json = text if (only_text and text is not None) else content
        reply = "\n\n".join(t for kind, t in self.pending if kind == "message" and t)
        self.pending = []
        if self.last_user_message >= 0 and reply:
            self.agent_replies.append({"text": reply, "after_step": len(self.order)})
        if self.last_user_message < 0 and self.input is None:
            self.input = value
        else:
            self.user_messages.append(
                {"event_id": event.get("id"), "content": value, "after_step": len(self.order)}
            )
        self.last_user_message = index

    def agent_text(self, event: dict[str, Json], etype: str, index: int) -> None:
        self.close_turn()
        if etype == "agent.message":
            text, redacted = _text(event.get("content"))
            self.redacted += redacted
            if text:
                self.pending.append(("message", text))
            return
        thinking = event.get("thinking")
        text = thinking if isinstance(thinking, str) else None
        if text is None:
            text = text_parts(event.get("content"), text_keys=("thinking", "text"))
        if text:
            self.pending.append(("thinking", text))

    def status(self, event: dict[str, Json], etype: str, index: int) -> None:
        entry: dict[str, Json] = {"type": etype}
        if event.get("processed_at") is not None:
            entry["processed_at"] = event["processed_at"]
        if etype == "session.status_idle":
            reason = event.get("stop_reason")
            if reason is not None and not (
                isinstance(reason, dict) and isinstance(reason.get("type"), str)
            ):
                raise _EventError(
                    index,
                    "stop_reason must be an object with a string 'type'",
                    "stop_reason",
                    'e.g. {"type": "end_turn"}',
                )
            entry["stop_reason"] = reason
            if event.get("stop_details") is not None:
                entry["stop_details"] = event["stop_details"]
        self.statuses.append(entry)

    def span_end(self, event: dict[str, Json], index: int) -> None:
        self.model_requests += 1
        if event.get("is_error") is True:
            self.model_request_errors += 1
        usage = _usage_from_snapshot(event.get("model_usage"))
        if usage is not None:
            self.span_usage = usage if self.span_usage is None else self.span_usage + usage

    def preview(self, event: dict[str, Json], etype: str, index: int) -> None:
        if etype == "event_start":
            inner = event.get("event")
            if isinstance(inner, dict) and isinstance(inner.get("id"), str):
                self.previews.setdefault(inner["id"], {"type": inner.get("type"), "text": {}})
            return
        event_id = event.get("event_id")
        delta = event.get("delta")
        if not isinstance(event_id, str) or not isinstance(delta, dict):
            self.unmapped.add(f"[{index}]", event)
            return
        preview = self.previews.setdefault(event_id, {"type": None, "text": {}})
        content = delta.get("content")
        slot = delta.get("index", 0)
        if isinstance(content, dict) and isinstance(content.get("text"), str):
            parts = preview["text"]
            key = str(slot if isinstance(slot, int) else 0)
            parts[key] = parts.get(key, "") + content["text"]

    # -- the pass ------------------------------------------------------------------------------

    def feed(self, index: int, event: Json) -> None:
        if not isinstance(event, dict):
            raise _EventError(
                index, "an event must be a JSON object", None, 'each event is {"type": ..., ...}'
            )
        etype = event.get("type")
        if not isinstance(etype, str) or not etype:
            raise _EventError(
                index, "an event needs a string 'type'", "type", 'e.g. "agent.tool_use"'
            )
        event_id = event.get("id")
        if isinstance(event_id, str):
            fingerprint = json.dumps(event, sort_keys=True)
            if event_id in self.seen:
                if self.seen[event_id] == fingerprint:
                    self.duplicates += 1
                    return
                raise _EventError(
                    index,
                    f"event id {event_id!r} appears twice with different content",
                    "id",
                    "event ids must be unique in a session's log",
                )
            self.seen[event_id] = fingerprint
        self.counts[etype] = self.counts.get(etype, 0) + 1
        at = _timestamp(event, index)
        if at is not None:
            if self.first_at is None:
                self.first_at = at
            self.last_at = at
        if etype in _KNOWN_FIELDS and etype not in _USE_TYPES and etype not in _RESULT_TYPES:
            self.unmapped.extra_keys(event, _KNOWN_FIELDS[etype], f"[{index}]")
        if etype in _USE_TYPES:
            self.tool_use(event, etype, index)
        elif etype in _RESULT_TYPES:
            self.tool_result(event, etype, index)
        elif etype == "user.tool_confirmation":
            self.confirmation(event, index)
        elif etype == "user.interrupt":
            self.interrupt(event, index)
        elif etype == "user.message":
            self.user_message(event, index)
        elif etype in ("agent.message", "agent.thinking"):
            self.agent_text(event, etype, index)
        elif etype.startswith("session.status_") and etype in _KNOWN_FIELDS:
            self.status(event, etype, index)
        elif etype == "span.model_request_start":
            self.close_turn()
            self.spans_seen += 1
        elif etype == "span.model_request_end":
            self.span_end(event, index)
        elif etype == "session.usage":
            usage = _usage_from_snapshot(event.get("usage"))
            if usage is not None:
                self.snapshot_usage = usage
        elif etype in ("event_start", "event_delta"):
            self.preview(event, etype, index)
        else:
            if etype.startswith(("user.", "agent.")):
                self.close_turn()
            self.unmapped.add(f"[{index}]", event)

    # -- the record ----------------------------------------------------------------------------

    def steps(self) -> list[Step]:
        steps: list[Step] = []
        for call in self.order:
            event = call.event
            arguments, raw_arguments, arguments_error = parse_arguments(event.get("input"))
            state: dict[str, Json] = {"kind": call.kind}
            for key in (
                "mcp_server_name",
                "evaluated_permission",
                "evaluation",
                "session_thread_id",
            ):
                if event.get(key) is not None:
                    state[key] = event[key]
            state["use_event_id"] = event["id"]
            if event.get("processed_at") is not None:
                state["issued_at"] = event["processed_at"]
            state.update(call.state)
            unknown: dict[str, Json] = {}
            extra = {k: v for k, v in event.items() if k not in _KNOWN_FIELDS[event["type"]]}
            if extra:
                unknown["use"] = extra
            result: Json = None
            is_error = False
            latency: float | None = None
            result_event = call.result
            if result_event is not None:
                result = _result_value(result_event.get("content"))
                is_error = result_event.get("is_error") is True
                state["result_event_id"] = result_event.get("id")
                if result_event.get("type") != _expected_result(call.kind):
                    state["result_type"] = result_event.get("type")
                extra = {
                    k: v
                    for k, v in result_event.items()
                    if k not in _KNOWN_FIELDS[str(result_event["type"])]
                }
                if extra:
                    unknown["result"] = extra
                latency = _latency(event, result_event)
                state["status"] = "completed"
            elif _denied(call):
                state["status"] = "denied"
            elif "interrupted_by" in call.state:
                state["status"] = "interrupted"
            else:
                state["status"] = "no_result"
            if unknown:
                state["unknown_fields"] = unknown
            steps.append(
                Step(
                    decision=call.decision,
                    turn=call.turn,
                    call_id=event["id"],
                    tool=event["name"],
                    arguments=arguments,
                    arguments_error=arguments_error,
                    raw_arguments=raw_arguments,
                    result=result,
                    is_error=is_error,
                    latency_ms=latency,
                    state=state,
                )
            )
        return steps

    def stop_reason(self) -> str | None:
        if self.last_interrupt > self.last_user_message:
            return "interrupted"
        if not self.statuses:
            return None
        last = self.statuses[-1]
        kind = last["type"]
        if kind == "session.status_terminated":
            return "terminated"
        if kind == "session.status_idle":
            reason = last.get("stop_reason")
            return str(reason["type"]) if isinstance(reason, dict) else "idle"
        return "running"

    def replies(self, n_steps: int) -> tuple[Reply, ...]:
        """The agent's messages to the user: its replies to each user turn, then the final answer."""
        out = [
            Reply(text=str(entry["text"]), after_steps=min(int(str(entry["after_step"])), n_steps))
            for entry in self.agent_replies
        ]
        final = self.final_answer()
        if final is not None:
            out.append(Reply(text=final, after_steps=n_steps))
        return tuple(out)

    def final_answer(self) -> str | None:
        text = "\n\n".join(t for kind, t in self.pending if kind == "message" and t)
        return text or None

    def unfinished_previews(self) -> list[dict[str, Json]]:
        out: list[dict[str, Json]] = []
        for event_id, preview in self.previews.items():
            if event_id in self.seen:
                continue
            parts = preview["text"]
            text = "".join(parts[k] for k in sorted(parts, key=int))
            out.append({"event_id": event_id, "type": preview["type"], "text": text})
        return out


def _denied(call: _Call) -> bool:
    """Whether the user denied the call's confirmation (then it never ran)."""
    confirmation = call.state.get("confirmation")
    return isinstance(confirmation, dict) and confirmation.get("result") == "deny"


def _expected_result(kind: ToolKind) -> str:
    """The result event type that normally answers a tool use of ``kind``."""
    if kind == "agent_tool":
        return "agent.tool_result"
    if kind == "mcp_tool":
        return "agent.mcp_tool_result"
    if kind == "custom_tool":
        return "user.custom_tool_result"
    assert_never(kind)


def _latency(use: dict[str, Json], result: dict[str, Json]) -> float | None:
    try:
        start = datetime.fromisoformat(str(use.get("processed_at")))
        end = datetime.fromisoformat(str(result.get("processed_at")))
    except ValueError:
        return None
    if (start.tzinfo is None) != (end.tzinfo is None):
        return None
    ms = (end - start).total_seconds() * 1000.0
    return ms if ms >= 0 else None


def _session_fields(
    session: Mapping[str, Json] | None,
) -> tuple[AgentInfo | None, Usage | None, dict[str, Json]]:
    """Agent identity, usage and metadata from a session object (``GET /v1/sessions/{id}``)."""
    if not session:
        return None, None, {}
    agent = session.get("agent")
    info: AgentInfo | None = None
    if isinstance(agent, dict):
        model = agent.get("model")
        model_id = model.get("id") if isinstance(model, dict) else model
        version = agent.get("version")
        info = AgentInfo(
            name=agent.get("name") if isinstance(agent.get("name"), str) else None,
            model=model_id if isinstance(model_id, str) else None,
            version=str(version) if version is not None else None,
            backend="anthropic-managed-agents",
        )
    meta: dict[str, Json] = {}
    for key in (
        "title",
        "status",
        "created_at",
        "updated_at",
        "environment_id",
        "metadata",
        "stats",
    ):
        if session.get(key) is not None:
            meta[key] = session[key]
    if isinstance(agent, dict) and agent.get("id") is not None:
        meta["agent_id"] = agent["id"]
    return info, _usage_from_snapshot(session.get("usage")), meta


def _convert(
    events: Sequence[Json],
    *,
    session_id: str,
    task_id: str | None,
    epoch: int,
    agent: AgentInfo | None,
    session: Mapping[str, Json] | None,
    source: dict[str, Json],
) -> RunRecord:
    builder = _Builder()
    builder.use_spans = any(
        isinstance(e, dict) and e.get("type") == "span.model_request_start" for e in events
    )
    for index, event in enumerate(events):
        builder.feed(index, event)
    if not builder.counts and not builder.duplicates:
        raise _EventError(0, "the log has no events", None, "save the session's events")
    steps = builder.steps()
    info, session_usage, session_meta = _session_fields(session)
    identity = info or AgentInfo(backend="anthropic-managed-agents")
    if agent is not None:
        identity = identity.model_copy(update=agent.model_dump(exclude_none=True))
    usage = session_usage or builder.snapshot_usage or builder.span_usage or Usage()
    timing = Timing()
    if builder.first_at is not None and builder.last_at is not None:
        duration: float | None = (builder.last_at - builder.first_at).total_seconds() * 1000.0
        if duration is not None and duration < 0:
            duration = None
        timing = Timing(started_at=builder.first_at, ended_at=builder.last_at, duration_ms=duration)
    metadata: dict[str, Json] = {
        "source": source,
        "session_id": session_id,
        "event_counts": dict(sorted(builder.counts.items())),
    }
    if session_meta:
        metadata["session"] = session_meta
    if builder.statuses:
        metadata["statuses"] = builder.statuses
    for key, value in (
        ("user_messages", builder.user_messages),
        ("agent_replies", builder.agent_replies),
        ("interrupts", builder.interrupts),
        ("unfinished_previews", builder.unfinished_previews()),
    ):
        if value:
            metadata[key] = value
    if builder.model_requests:
        metadata["model_requests"] = builder.model_requests
        metadata["model_request_errors"] = builder.model_request_errors
    if builder.redacted:
        metadata["redacted_blocks"] = builder.redacted
    if builder.duplicates:
        metadata["duplicate_events"] = builder.duplicates
    builder.unmapped.into(metadata)
    try:
        return RunRecord(
            run_id=session_id,
            task_id=task_id or session_id,
            epoch=epoch,
            agent=identity,
            input=builder.input,
            steps=tuple(steps),
            final_answer=builder.final_answer(),
            replies=builder.replies(len(steps)),
            stop_reason=builder.stop_reason(),
            usage=usage,
            timing=timing,
            metadata=metadata,
        )
    except ValueError as exc:  # pydantic ValidationError is a ValueError
        raise _EventError(0, f"the events do not give a valid run ({exc})") from None


def _values(events: Iterable[Json | LocatedEvent]) -> tuple[list[Json], list[int | None]]:
    values: list[Json] = []
    lines: list[int | None] = []
    for item in events:
        if isinstance(item, LocatedEvent):
            values.append(item.value)
            lines.append(item.line)
        else:
            values.append(item)
            lines.append(None)
    return values, lines


def from_managed_agents(
    events: Iterable[Json | LocatedEvent],
    *,
    session_id: str,
    task_id: str | None = None,
    epoch: int = 0,
    agent: AgentInfo | None = None,
    session: Mapping[str, Json] | None = None,
    source: Mapping[str, Json] | None = None,
    file: str | Path | None = None,
) -> RunRecord:
    """Convert one session's events (in log order) into a :class:`RunRecord` (see the module docstring).

    ``session_id`` becomes the run id and, unless ``task_id`` is given, the task id. ``session`` is the
    optional session object (``GET /v1/sessions/{id}``): its agent name, model and version and its
    cumulative usage are used. The set fields of ``agent`` override the agent identity. ``source`` is
    stored as ``metadata["source"]`` (default ``{"format": "managed-agents"}``). Pure: the caller's dicts
    are copied, never modified. An empty event list raises :class:`ImportFormatError`; so does a bad
    event, naming it (``[index].field``) and, when the events were read from ``file``, its line.
    """
    values, lines = _values(events)
    src: dict[str, Json] = (
        dict(source) if source is not None else source_metadata(FORMAT, file=None)
    )
    try:
        copied: list[Json] = json.loads(
            json.dumps(values)
        )  # never mutate or keep the caller's dicts
    except (TypeError, ValueError) as exc:
        raise ImportFormatError(
            f"the events are not plain JSON values ({exc})",
            file=file,
            hint="pass events as parsed from JSON (dicts, lists, strings, numbers)",
        ) from None
    try:
        return _convert(
            copied,
            session_id=session_id,
            task_id=task_id,
            epoch=epoch,
            agent=agent,
            session=session,
            source=src,
        )
    except _EventError as exc:
        line = lines[exc.index] if exc.index < len(lines) else None
        where = f"[{exc.index}]" + (f".{exc.where}" if exc.where else "") if values else None
        raise ImportFormatError(
            exc.message, file=file, line=line, field=where, hint=exc.hint
        ) from None


def import_file(
    path: str | Path,
    *,
    task_id: str | None = None,
    agent: AgentInfo | None = None,
    errors: list[InputError] | None = None,
    session_id: str | None = None,
    epoch: int = 0,
    session: Mapping[str, Json] | None = None,
) -> Iterator[RunRecord]:
    """Import one saved session event log as one run (see :func:`read_events` for the accepted forms).

    ``session_id`` defaults to the file name up to its first dot (``sesn_01.events.json`` →
    ``sesn_01``); it is the run id and, unless ``task_id`` is given, the task id. ``agent`` and ``session``
    are as in :func:`from_managed_agents`. With ``errors`` given, a file that fails is recorded there and
    nothing is yielded; otherwise the error is raised. Empty input raises :class:`ImportFormatError`.
    """
    path = Path(path)
    sid = session_id or path.name.split(".")[0] or "session"
    try:
        located = read_events(path)
        record = from_managed_agents(
            located,
            session_id=sid,
            task_id=task_id,
            epoch=epoch,
            agent=agent,
            session=session,
            source={**source_metadata(FORMAT, file=str(path)), "session_id": sid},
            file=str(path),
        )
    except InputError as exc:
        if errors is None:
            raise
        errors.append(exc)
        return
    yield record


# --------------------------------------------------------------------------------------------------
# Fetching from the API


def _api_error(exc: Exception, session_id: str, what: str) -> RemoteImportError:
    status = getattr(exc, "status_code", None)
    hints = {
        401: "check ANTHROPIC_API_KEY (or --api-key)",
        403: "the key cannot read this session; check its workspace",
        404: "check the session id (sesn_...) and the workspace",
    }
    if isinstance(status, int):
        return RemoteImportError(
            f"fetching the {what} of session {session_id!r} failed with HTTP {status}",
            hint=hints.get(status, "retry later; the API may be unavailable"),
        )
    return RemoteImportError(
        f"fetching the {what} of session {session_id!r} failed ({exc.__class__.__name__})",
        hint="check the base URL (ANTHROPIC_BASE_URL) and the network",
    )


def fetch_session(
    session_id: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    http_client: Any = None,
    task_id: str | None = None,
    agent: AgentInfo | None = None,
    errors: list[InputError] | None = None,
    epoch: int = 0,
    page_size: int | None = None,
    include_session: bool = True,
    max_retries: int = 2,
    timeout: float = DEFAULT_TIMEOUT_S,
    deadline: float | None = DEFAULT_DEADLINE_S,
) -> Iterator[RunRecord]:
    """Pull a session's events through the anthropic SDK (beta ``managed-agents-2026-04-01``) → one run.

    Uses ``client.beta.sessions.events.list`` page by page (the cursor ``next_page`` is sent back as
    ``page``), reading the raw JSON so every field is kept exactly as sent, and, with
    ``include_session``, the session object (``client.beta.sessions.retrieve``) for the agent's name,
    model and cumulative usage. ``http_client`` is an ``httpx2.Client`` handed to the SDK; ``base_url``
    and ``api_key`` default to the SDK's ``ANTHROPIC_BASE_URL`` / ``ANTHROPIC_API_KEY``. ``task_id``,
    ``agent``, ``epoch`` are as in :func:`from_managed_agents`. API failures raise
    :class:`RemoteImportError`; a session with no events raises :class:`ImportFormatError`; with
    ``errors`` given, either is recorded there instead and nothing is yielded.

    A bad server cannot hang it: each request times out after ``timeout`` seconds (default
    :data:`DEFAULT_TIMEOUT_S`), the whole fetch stops after ``deadline`` seconds (default
    :data:`DEFAULT_DEADLINE_S`; None for none), a page cursor the server already sent is an error
    (a loop), and a reply that is not JSON is an error, not a traceback.
    """
    try:
        events, session, pages = _fetch(
            session_id,
            base_url=base_url,
            api_key=api_key,
            http_client=http_client,
            page_size=page_size,
            include_session=include_session,
            max_retries=max_retries,
            timeout=timeout,
            deadline=deadline,
        )
        source: dict[str, Json] = {"format": FORMAT, "session_id": session_id, "pages": pages}
        if base_url is not None:
            source["base_url"] = base_url
        record = from_managed_agents(
            events,
            session_id=session_id,
            task_id=task_id,
            epoch=epoch,
            agent=agent,
            session=session,
            source=source,
        )
    except InputError as exc:
        if errors is None:
            raise
        errors.append(exc)
        return
    yield record


def _fetch(
    session_id: str,
    *,
    base_url: str | None,
    api_key: str | None,
    http_client: Any,
    page_size: int | None,
    include_session: bool,
    max_retries: int,
    timeout: float = DEFAULT_TIMEOUT_S,
    deadline: float | None = DEFAULT_DEADLINE_S,
) -> tuple[list[Json], dict[str, Json] | None, int]:
    """The session's events (all pages), its session object (or None) and the number of pages."""
    import time

    if not (math.isfinite(timeout) and timeout > 0):
        raise InputError(f"the request timeout must be a positive number of seconds, got {timeout}")
    if deadline is not None and not (math.isfinite(deadline) and deadline > 0):
        raise InputError(f"the deadline must be a positive number of seconds, got {deadline}")
    stop_at = None if deadline is None else time.monotonic() + deadline

    def request_options() -> dict[str, Any]:
        if stop_at is None:
            return {"timeout": timeout}
        left = stop_at - time.monotonic()
        if left <= 0:
            raise RemoteImportError(
                f"fetching session {session_id!r} did not finish within the deadline of "
                f"{deadline:g} s ({pages} page(s) read)",
                hint="raise --deadline if the session is genuinely long, or check the server",
            )
        return {"timeout": min(timeout, left)}

    def json_of(response: Any, label: str) -> Json:
        try:
            return cast(Json, response.json())
        except (ValueError, RecursionError) as exc:
            raise RemoteImportError(
                f"the {label} of session {session_id!r} is not valid JSON "
                f"({type(exc).__name__}; HTTP {getattr(response, 'status_code', '?')})",
                hint="check that the base URL points at the Anthropic API",
            ) from None

    from pathjudge._optional import require

    anthropic = require("anthropic", "judge", "Importing a Managed Agents session")
    key = api_key or os.environ.get("ANTHROPIC_API_KEY")
    if not key:
        raise RemoteImportError(
            "no API key to fetch the session with", hint="set ANTHROPIC_API_KEY"
        )
    kwargs: dict[str, Any] = {"api_key": key, "max_retries": max_retries, "timeout": timeout}
    if base_url is not None:
        kwargs["base_url"] = base_url
    if http_client is not None:
        kwargs["http_client"] = http_client
    client = anthropic.Anthropic(**kwargs)
    events: list[Json] = []
    session: Json = None
    cursor: str | None = None
    seen: set[str] = set()
    pages = 0
    what = "events"
    try:
        while True:
            params: dict[str, Any] = {}
            if cursor is not None:
                params["page"] = cursor
            if page_size is not None:
                params["limit"] = page_size
            raw = client.beta.sessions.events.with_raw_response.list(
                session_id, **params, **request_options()
            )
            pages += 1
            body = json_of(raw, f"events page {pages}")
            if not isinstance(body, dict) or not isinstance(body.get("data"), list):
                raise RemoteImportError(
                    f"page {pages} of the events of session {session_id!r} has no 'data' list",
                    hint="check that the base URL points at the Anthropic API",
                )
            events.extend(body["data"])
            next_page = body.get("next_page")
            if not isinstance(next_page, str) or not next_page or next_page == cursor:
                break
            if next_page in seen:
                raise RemoteImportError(
                    f"the server sent the events page cursor {next_page[:60]!r} of session "
                    f"{session_id!r} a second time (after {pages} pages): its pages loop",
                    hint="check the server; pathjudge stops instead of fetching forever",
                )
            seen.add(next_page)
            cursor = next_page
        if include_session:
            what = "session object"
            session = json_of(
                client.beta.sessions.with_raw_response.retrieve(session_id, **request_options()),
                "session object",
            )
    except anthropic.APIError as exc:
        if isinstance(exc, anthropic.APITimeoutError):
            if stop_at is not None and time.monotonic() >= stop_at - 0.1:
                raise RemoteImportError(
                    f"fetching session {session_id!r} did not finish within the deadline of "
                    f"{deadline:g} s ({pages} page(s) read)",
                    hint="raise --deadline if the session is genuinely long, or check the server",
                ) from None
            raise RemoteImportError(
                f"a request for the {what} of session {session_id!r} timed out after {timeout:g} s",
                hint="raise --timeout if the server is slow but alive, or check the base URL",
            ) from None
        raise _api_error(exc, session_id, what) from None
    finally:
        if http_client is None:
            client.close()
    if not events:
        raise ImportFormatError(
            f"session {session_id!r} has no events", hint="send the session a user.message first"
        )
    return events, session if isinstance(session, dict) else None, pages
