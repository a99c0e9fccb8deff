"""Managed Agents events → one :class:`~pathjudge.agent.trajectory.RunRecord` (the mapping is
described in the package docstring)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import assert_never

from pathjudge.agent.importers._common import (
    Unmapped,
    one_run,
    parse_arguments,
    present,
    source_metadata,
    text_parts,
)
from pathjudge.agent.importers.managed_agents.events import (
    _KNOWN_FIELDS,
    _RESULT_TYPES,
    _USE_TYPES,
    FORMAT,
    Json,
    LocatedEvent,
    ToolKind,
    _EventError,
    read_events,
)
from pathjudge.agent.trajectory import AgentInfo, Reply, RunRecord, Step, Timing, Usage
from pathjudge.errors import ImportFormatError, InputError

__all__ = ["from_managed_agents", "import_file"]

# a tool-use event's fields kept in its step's state, when set
_STEP_STATE_KEYS = ("mcp_server_name", "evaluated_permission", "evaluation", "session_thread_id")
# a session object's fields kept in metadata["session"], when set
_SESSION_KEYS = (
    "title",
    "status",
    "created_at",
    "updated_at",
    "environment_id",
    "metadata",
    "stats",
)


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
            state: dict[str, Json] = {"kind": call.kind, **present(event, _STEP_STATE_KEYS)}
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
    meta = present(session, _SESSION_KEYS)
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

    def build() -> RunRecord:
        return from_managed_agents(
            read_events(path),
            session_id=sid,
            task_id=task_id,
            epoch=epoch,
            agent=agent,
            session=session,
            source={**source_metadata(FORMAT, file=str(path)), "session_id": sid},
            file=str(path),
        )

    yield from one_run(build, errors)
