"""Import OpenTelemetry traces that follow the GenAI semantic conventions, exported as JSON.

Accepted shapes (a ``.json`` file, or a ``.jsonl`` file such as the OpenTelemetry Collector's file
exporter writes, one export per line):

- OTLP JSON: ``{"resourceSpans": [{"resource": {...}, "scopeSpans": [{"spans": [...]}]}]}``, attributes
  as ``[{"key": ..., "value": {"stringValue": ...}}]``;
- a flat list of spans, each OTLP-shaped (``traceId``, ``spanId``, ``parentSpanId``,
  ``startTimeUnixNano``, ...) or as the Python SDK's console exporter prints them (``context.trace_id``,
  ``parent_id``, ISO ``start_time``, attributes as a plain object, ``status.status_code``).

Spans are grouped per trace; each trace is one run (``run_id`` = the trace id). Tool calls are the spans
with ``gen_ai.operation.name`` = ``execute_tool``: ``gen_ai.tool.name`` (else the span name after
``execute_tool``), ``gen_ai.tool.call.id``, ``gen_ai.tool.call.arguments`` (a JSON string; malformed JSON
is kept in ``raw_arguments`` with ``arguments_error``) and ``gen_ai.tool.call.result``; the span's error
status or an ``error.type`` attribute flags ``is_error``; its duration is ``latency_ms``. Steps are
ordered by start time. Calls belong to one turn (parallel) when they share a parent ``chat`` span, or, as
siblings of the chat spans, follow the same chat span; in a trace without chat spans, tool spans with the
same parent whose times overlap are one turn.

From the chat spans: ``gen_ai.usage.input_tokens`` / ``output_tokens`` are summed (the ``invoke_agent``
spans' usage is used only when no chat span has any); the model is ``gen_ai.response.model`` or
``gen_ai.request.model``; the text parts of ``gen_ai.output.messages`` of the chat span that issued a
turn are its first call's ``decision``; those of every chat span that issued no tool call are a reply to
the user (``replies``, positioned by the tool spans that started before it), and those of the last chat
span, when it issued no tool call, are the ``final_answer``; the last chat span's
``gen_ai.response.finish_reasons`` give ``stop_reason`` (``length`` reads as ``max_tokens``); the first user message in the first chat span's ``gen_ai.input.messages`` is the
``input`` (later spans' input messages repeat the history and are not kept). Every other span is kept in
``metadata["spans"]`` with its unmapped attributes, the resource attributes in ``metadata["resource"]``,
and unmapped tool-span attributes in ``metadata["unmapped"]``.

Older convention names are read too: ``gen_ai.usage.prompt_tokens`` / ``completion_tokens`` when the
``input`` / ``output`` counts are absent (``gen_ai.system`` and ``gen_ai.prompt`` / ``completion`` are
kept with the span's attributes). ``metadata["source"]["genai_semconv"]`` says which names the trace
used: ``current`` (v1.37+: ``gen_ai.provider.name``, ``gen_ai.input.messages``, ...), ``older``
(``gen_ai.system``, ``gen_ai.usage.prompt_tokens``, ...) or ``mixed``; absent when neither appears.
``metadata["source"]`` names the ``trace_id`` and the ``span_id`` of the trace's root span (the
earliest span whose parent is not in the trace), so results about the run can be attached to it.
The task id is the ``task_id`` override, else a ``pathjudge.task_id`` span attribute, else
``<file stem>#<trace index>``; the epoch a ``pathjudge.epoch`` attribute, else 0. A whole file is held in
memory to group its spans into traces.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pathjudge import _json as strict_json
from pathjudge._io import collect_or_raise
from pathjudge.agent.importers._common import (
    Document,
    Json,
    RunParts,
    StepDraft,
    as_dict,
    as_list,
    error_at,
    file_stem,
    iter_documents,
    join_path,
    source_metadata,
    suggest_format,
)
from pathjudge.agent.trajectory import AgentInfo, Reply, RunRecord, Timing, Usage
from pathjudge.errors import ImportFormatError, InputError, PathjudgeError

__all__ = ["FORMAT", "from_otel", "import_file"]

FORMAT = "otel"

_OP = "gen_ai.operation.name"
_TOOL_ATTRS = frozenset(
    {
        _OP,
        "gen_ai.tool.name",
        "gen_ai.tool.call.id",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "error.type",
        "pathjudge.task_id",
        "pathjudge.epoch",
    }
)
_CHAT_OPS = frozenset({"chat", "text_completion", "generate_content"})
_CHAT_ATTRS = frozenset(
    {
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.prompt_tokens",
        "gen_ai.usage.completion_tokens",
        "gen_ai.request.model",
        "gen_ai.response.model",
        "gen_ai.output.messages",
        "gen_ai.input.messages",
        "gen_ai.agent.name",
        "pathjudge.task_id",
        "pathjudge.epoch",
    }
)


_CURRENT_NAMES = frozenset(
    {
        "gen_ai.provider.name",
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
    }
)
"""Attributes that first appeared in semantic conventions v1.37 / v1.38."""
_OLDER_NAMES = frozenset(
    {
        "gen_ai.system",
        "gen_ai.usage.prompt_tokens",
        "gen_ai.usage.completion_tokens",
        "gen_ai.prompt",
        "gen_ai.completion",
    }
)
"""Attributes the conventions replaced or removed (``gen_ai.system`` → ``gen_ai.provider.name`` in
v1.37; the ``prompt``/``completion`` token counts → ``input``/``output`` in v1.27)."""


def semconv_names(attributes: set[str]) -> str | None:
    """Which GenAI semantic conventions a trace's attribute names follow.

    ``"current"`` (v1.37 and later names only), ``"older"`` (names from before v1.37 only), ``"mixed"``
    (both), or None when it uses neither kind.
    """
    current, older = bool(attributes & _CURRENT_NAMES), bool(attributes & _OLDER_NAMES)
    if current and older:
        return "mixed"
    return "current" if current else ("older" if older else None)


@dataclass(slots=True)
class _Span:
    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start_ns: int
    end_ns: int
    attrs: dict[str, Json]
    error: bool
    status_message: str | None
    where: str
    line: int | None
    order: int
    resource: dict[str, Json] = field(default_factory=dict)

    @property
    def op(self) -> str | None:
        value = self.attrs.get(_OP)
        return value if isinstance(value, str) else None

    @property
    def is_tool(self) -> bool:
        if self.op == "execute_tool":
            return True
        return self.op is None and "gen_ai.tool.name" in self.attrs


def _any_value(value: Json, where: str) -> Json:
    """An OTLP ``AnyValue`` (``{"stringValue": ...}`` etc.) as a plain JSON value."""
    obj = as_dict(value, where, "an OTLP attribute value")
    if not obj:
        return None
    if "stringValue" in obj:
        return obj["stringValue"]
    if "boolValue" in obj:
        return obj["boolValue"]
    if "intValue" in obj:
        try:
            return int(obj["intValue"])
        except (TypeError, ValueError):
            raise error_at("intValue is not an integer", where=where) from None
    if "doubleValue" in obj:
        return obj["doubleValue"]
    if "bytesValue" in obj:
        return obj["bytesValue"]
    if "arrayValue" in obj:
        values = as_dict(obj["arrayValue"], join_path(where, "arrayValue"), "an array value")
        return [
            _any_value(v, join_path(join_path(where, "arrayValue.values"), i))
            for i, v in enumerate(values.get("values") or [])
        ]
    if "kvlistValue" in obj:
        kv = as_dict(obj["kvlistValue"], join_path(where, "kvlistValue"), "a key-value list")
        return _attributes(kv.get("values") or [], join_path(where, "kvlistValue.values"))
    raise error_at(f"unknown OTLP value kind {sorted(obj)[0]!r}", where=where)


def _attributes(raw: Json, where: str) -> dict[str, Json]:
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return dict(raw)
    out: dict[str, Json] = {}
    for i, entry in enumerate(as_list(raw, where, "attributes")):
        ewhere = join_path(where, i)
        kv = as_dict(entry, ewhere, "an attribute {key, value}")
        key = kv.get("key")
        if not isinstance(key, str):
            raise error_at("an attribute needs a string 'key'", where=ewhere)
        out[key] = _any_value(kv.get("value"), join_path(ewhere, "value"))
    return out


def _time_ns(value: Json, where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value.isdigit():
            return int(value)
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            pass
        else:
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
            delta = moment - datetime(1970, 1, 1, tzinfo=UTC)
            return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000
    raise error_at(
        "expected a time in Unix nanoseconds or ISO 8601",
        where=where,
        hint="export spans with startTimeUnixNano/endTimeUnixNano",
    )


def _hex_id(value: Json, where: str, *, required: bool) -> str | None:
    if value is None or value == "":
        if required:
            raise error_at("missing id", where=where)
        return None
    if not isinstance(value, str):
        raise error_at("expected a hex id string", where=where)
    return value[2:] if value.startswith("0x") else value


def _status(raw: Json, where: str) -> tuple[bool, str | None]:
    """``(is_error, message)`` from an OTLP status (code 2 / ``STATUS_CODE_ERROR``) or the SDK's."""
    if raw is None:
        return False, None
    status = as_dict(raw, where, "a span status")
    code = status.get("code", status.get("status_code"))
    failed = code in (2, "2", "STATUS_CODE_ERROR", "ERROR", "StatusCode.ERROR")
    message = status.get("message", status.get("description"))
    return failed, message if isinstance(message, str) and message else None


def _span(raw: Json, where: str, line: int | None, order: int, resource: dict[str, Json]) -> _Span:
    obj = as_dict(raw, where, "a span")
    context = obj.get("context") if isinstance(obj.get("context"), dict) else {}
    assert isinstance(context, dict)
    trace_id = _hex_id(
        obj.get("traceId", obj.get("trace_id", context.get("trace_id"))),
        join_path(where, "traceId"),
        required=True,
    )
    span_id = _hex_id(
        obj.get("spanId", obj.get("span_id", context.get("span_id"))),
        join_path(where, "spanId"),
        required=True,
    )
    parent = _hex_id(
        obj.get("parentSpanId", obj.get("parent_span_id", obj.get("parent_id"))),
        join_path(where, "parentSpanId"),
        required=False,
    )
    start_key = "startTimeUnixNano" if "startTimeUnixNano" in obj else "start_time"
    end_key = "endTimeUnixNano" if "endTimeUnixNano" in obj else "end_time"
    start = _time_ns(obj.get(start_key), join_path(where, start_key))
    end = _time_ns(obj.get(end_key), join_path(where, end_key)) if obj.get(end_key) else start
    name = obj.get("name")
    failed, message = _status(obj.get("status"), join_path(where, "status"))
    if trace_id is None or span_id is None:  # required=True raised already; keeps the types exact
        raise error_at("missing trace or span id", where=where)
    return _Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=parent,
        name=name if isinstance(name, str) else "",
        start_ns=start,
        end_ns=max(end, start),
        attrs=_attributes(obj.get("attributes"), join_path(where, "attributes")),
        error=failed,
        status_message=message,
        where=where,
        line=line,
        order=order,
        resource=resource,
    )


def _spans_of(value: Json, line: int | None, base: str, start_order: int) -> list[_Span]:
    """All spans of one parsed document (OTLP export, flat list of spans, or one span)."""
    spans: list[_Span] = []
    if isinstance(value, dict) and ("resourceSpans" in value or "resource_spans" in value):
        key = "resourceSpans" if "resourceSpans" in value else "resource_spans"
        for r, rs_raw in enumerate(as_list(value[key], join_path(base, key), "resource spans")):
            rwhere = join_path(join_path(base, key), r)
            rs = as_dict(rs_raw, rwhere, "resource spans")
            resource_obj = rs.get("resource") or {}
            resource = _attributes(
                as_dict(resource_obj, join_path(rwhere, "resource"), "a resource").get(
                    "attributes"
                ),
                join_path(rwhere, "resource.attributes"),
            )
            skey = "scopeSpans" if "scopeSpans" in rs else "scope_spans"
            for s, ss_raw in enumerate(
                as_list(rs.get(skey) or [], join_path(rwhere, skey), "scope spans")
            ):
                swhere = join_path(join_path(rwhere, skey), s)
                ss = as_dict(ss_raw, swhere, "scope spans")
                for k, span_raw in enumerate(
                    as_list(ss.get("spans") or [], join_path(swhere, "spans"), "spans")
                ):
                    spans.append(
                        _span(
                            span_raw,
                            join_path(join_path(swhere, "spans"), k),
                            line,
                            start_order + len(spans),
                            resource,
                        )
                    )
        return spans
    if isinstance(value, list):
        for k, span_raw in enumerate(value):
            spans.append(_span(span_raw, join_path(base, k), line, start_order + len(spans), {}))
        return spans
    if isinstance(value, dict):
        span_resource = value.get("resource")
        res_attrs = (
            _attributes(span_resource.get("attributes"), join_path(base, "resource.attributes"))
            if isinstance(span_resource, dict)
            else {}
        )
        return [_span(value, base, line, start_order, res_attrs)]
    raise error_at(
        "expected OTLP JSON ({'resourceSpans': ...}) or a list of spans", where=base or None
    )


def _messages_text(raw: Json, role: str | None = None) -> tuple[str | None, bool]:
    """Text parts (and reasoning parts) of GenAI messages JSON, and whether any part is a tool call."""
    if isinstance(raw, str):
        try:
            raw = strict_json.loads(raw)
        except json.JSONDecodeError:
            return None, False
    if not isinstance(raw, list):
        return None, False
    texts: list[str] = []
    calls = False
    for message in raw:
        if not isinstance(message, dict) or (role is not None and message.get("role") != role):
            continue
        for part in message.get("parts") or []:
            if not isinstance(part, dict):
                continue
            if part.get("type") in ("text", "reasoning") and isinstance(part.get("content"), str):
                texts.append(part["content"])
            elif part.get("type") == "tool_call":
                calls = True
        if role == "user" and texts:
            break
    return ("\n\n".join(texts) if texts else None), calls


def _usage(spans: list[_Span]) -> Usage:
    def total(selected: list[_Span]) -> tuple[int, int]:
        tokens_in = tokens_out = 0
        for span in selected:  # the older names count when the current ones are absent
            i = span.attrs.get(
                "gen_ai.usage.input_tokens", span.attrs.get("gen_ai.usage.prompt_tokens")
            )
            o = span.attrs.get(
                "gen_ai.usage.output_tokens", span.attrs.get("gen_ai.usage.completion_tokens")
            )
            tokens_in += i if isinstance(i, int) and i > 0 else 0
            tokens_out += o if isinstance(o, int) and o > 0 else 0
        return tokens_in, tokens_out

    chats = [s for s in spans if s.op in _CHAT_OPS]
    tokens_in, tokens_out = total(chats)
    if tokens_in == tokens_out == 0:
        tokens_in, tokens_out = total([s for s in spans if s.op == "invoke_agent"])
    return Usage(input_tokens=tokens_in, output_tokens=tokens_out)


def _turn_keys(tools: list[_Span], chats: list[_Span], by_id: dict[str, _Span]) -> list[object]:
    """A grouping key per tool span (in start order): equal keys are one turn."""
    keys: list[object] = []
    group_end: dict[str | None, tuple[int, int]] = {}  # parent -> (group number, latest end)
    groups = 0
    for tool in tools:
        parent = by_id.get(tool.parent_id) if tool.parent_id else None
        if parent is not None and parent.op in _CHAT_OPS:
            keys.append(("chat", parent.span_id))
            continue
        before = [c for c in chats if c.parent_id == tool.parent_id and c.start_ns <= tool.start_ns]
        if before:
            keys.append(("after", max(before, key=lambda c: (c.start_ns, c.order)).span_id))
            continue
        current = group_end.get(tool.parent_id)
        if current is not None and tool.start_ns < current[1]:
            group_end[tool.parent_id] = (current[0], max(current[1], tool.end_ns))
            keys.append(("overlap", current[0]))
        else:
            groups += 1
            group_end[tool.parent_id] = (groups, tool.end_ns)
            keys.append(("overlap", groups))
    return keys


def _int_attr(spans: list[_Span], key: str) -> int | None:
    for span in spans:
        value = span.attrs.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return None


def _trace_record(
    spans: list[_Span],
    *,
    task_id: str,
    run_id: str,
    epoch: int,
    agent: AgentInfo | None,
    source: dict[str, Json] | None,
) -> RunRecord:
    """One trace's spans as a run: tool spans are steps, chat spans give decisions, replies, answer."""
    spans = sorted(spans, key=lambda s: (s.start_ns, s.order))
    tools = [s for s in spans if s.is_tool]
    chats = [s for s in spans if s.op in _CHAT_OPS]
    run = RunParts()
    issuing = _add_tool_steps(run, tools, chats, {s.span_id: s for s in spans})
    run.replies = _replies(chats, tools, issuing)
    run.stop_reason = _stop_reason(chats)
    run.final_answer = _final_answer(chats, tools, issuing)
    if chats:
        run.input, _ = _messages_text(chats[0].attrs.get("gen_ai.input.messages"), role="user")
    run.usage = _usage(spans)
    if spans and spans[0].resource:
        run.metadata["resource"] = spans[0].resource
    kept = [_span_summary(span) for span in spans if not span.is_tool]
    if kept:
        run.metadata["spans"] = kept
    info = agent if agent is not None else _agent_info(spans)
    return run.record(
        info, run_id=run_id, task_id=task_id, epoch=epoch, source=source, timing=_timing(spans)
    )


def _add_tool_steps(
    run: RunParts, tools: list[_Span], chats: list[_Span], by_id: dict[str, _Span]
) -> set[str]:
    """Each tool span as a step, in turn order; returns the ids of the chat spans that issued calls.

    The output text of the chat span a turn's calls came from is the decision of its first call.
    """
    keys = _turn_keys(tools, chats, by_id)
    order: dict[object, int] = {}
    for key in keys:
        order.setdefault(key, len(order))
    paired = sorted(
        zip(keys, tools, strict=True), key=lambda kt: (order[kt[0]], kt[1].start_ns, kt[1].order)
    )
    decided: set[object] = set()
    issuing: set[str] = set()
    for key, span in paired:
        decision: str | None = None
        if key not in decided and isinstance(key, tuple) and key[0] in ("chat", "after"):
            decided.add(key)
            chat = by_id[str(key[1])]
            issuing.add(chat.span_id)
            decision, _ = _messages_text(chat.attrs.get("gen_ai.output.messages"))
        run.add_step(_tool_step(span, turn=order[key], decision=decision))
        for attr, value in span.attrs.items():
            if attr not in _TOOL_ATTRS:
                run.unmapped.add(join_path(join_path(span.where, "attributes"), attr), value)
    return issuing


def _tool_step(span: _Span, *, turn: int, decision: str | None) -> StepDraft:
    """A tool span as a step with its result; ``error.type`` or an error status marks it failed."""
    name = span.attrs.get("gen_ai.tool.name")
    if not isinstance(name, str) or not name:
        name = span.name.removeprefix("execute_tool").strip()
    if not name:
        raise error_at(
            "a tool span has no gen_ai.tool.name", where=join_path(span.where, "attributes")
        )
    call_id = span.attrs.get("gen_ai.tool.call.id")
    draft = StepDraft(
        tool=name,
        turn=turn,
        where=span.where,
        call_id=call_id if isinstance(call_id, str) else None,
        decision=decision,
        raw_arguments=span.attrs.get("gen_ai.tool.call.arguments"),
        latency_ms=(span.end_ns - span.start_ns) / 1e6,
    )
    error_type = span.attrs.get("error.type")
    draft.set_result(
        span.attrs.get("gen_ai.tool.call.result"), is_error=span.error or error_type is not None
    )
    if error_type is not None:
        draft.state["error_type"] = error_type
    if span.status_message is not None:
        draft.state["status_message"] = span.status_message
    draft.state["span_id"] = span.span_id
    return draft


def _replies(chats: list[_Span], tools: list[_Span], issuing: set[str]) -> list[Reply]:
    """The text of every chat span that issued no tool call, after the tools started before it."""
    replies: list[Reply] = []
    starts = sorted(t.start_ns for t in tools)
    for chat in chats:
        if chat.span_id in issuing:
            continue
        text, calls = _messages_text(chat.attrs.get("gen_ai.output.messages"))
        if text and not calls:
            before = sum(1 for start in starts if start <= chat.start_ns)
            replies.append(Reply(text=text, after_steps=before))
    return replies


def _stop_reason(chats: list[_Span]) -> str | None:
    """The last chat span's finish reason (``length`` anywhere in it reads as ``max_tokens``)."""
    if not chats:
        return None
    reasons = chats[-1].attrs.get("gen_ai.response.finish_reasons")
    listed = reasons if isinstance(reasons, list) else [reasons]
    named = [str(r) for r in listed if isinstance(r, str)]
    if any(r in ("length", "max_tokens") for r in named):
        return "max_tokens"
    if named:
        return {"stop": "end_turn", "tool_calls": "tool_use"}.get(named[-1], named[-1])
    return None


def _final_answer(chats: list[_Span], tools: list[_Span], issuing: set[str]) -> str | None:
    """The last chat span's text, when it calls no tool and no tool started after it."""
    if not chats:
        return None
    last = chats[-1]
    text, calls = _messages_text(last.attrs.get("gen_ai.output.messages"))
    after_tools = not tools or last.start_ns >= max(t.start_ns for t in tools)
    if not calls and after_tools and last.span_id not in issuing:
        return text
    return None


def _agent_info(spans: list[_Span]) -> AgentInfo:
    """The first model and agent name any span records."""
    model: str | None = None
    agent_name: str | None = None
    for span in spans:
        for attr in ("gen_ai.response.model", "gen_ai.request.model"):
            if model is None and isinstance(span.attrs.get(attr), str):
                model = span.attrs[attr]
        if agent_name is None and isinstance(span.attrs.get("gen_ai.agent.name"), str):
            agent_name = span.attrs["gen_ai.agent.name"]
    return AgentInfo(name=agent_name, model=model)


def _span_summary(span: _Span) -> dict[str, Json]:
    """A span that is not a tool call, for ``metadata["spans"]``: its attributes not mapped elsewhere."""
    rest = {
        k: v
        for k, v in span.attrs.items()
        if not (span.op in _CHAT_OPS and k in _CHAT_ATTRS) and k != _OP
    }
    entry: dict[str, Json] = {
        "name": span.name,
        "span_id": span.span_id,
        "parent_span_id": span.parent_id,
        "operation": span.op,
        "start_unix_nano": span.start_ns,
        "end_unix_nano": span.end_ns,
    }
    if span.error:
        entry["error"] = span.status_message or True
    if rest:
        entry["attributes"] = rest
    return entry


def _root(spans: list[_Span]) -> _Span:
    """The span the run hangs from: the earliest one whose parent is not in the trace."""
    ids = {s.span_id for s in spans}
    roots = [s for s in spans if s.parent_id is None or s.parent_id not in ids] or spans
    return min(roots, key=lambda s: (s.start_ns, s.order))


def _timing(spans: list[_Span]) -> Timing:
    """From the first span's start to the last span's end; empty without spans."""
    if not spans:
        return Timing()
    start = min(s.start_ns for s in spans)
    end = max(s.end_ns for s in spans)
    return Timing(
        started_at=datetime.fromtimestamp(start / 1e9, tz=UTC),
        ended_at=datetime.fromtimestamp(end / 1e9, tz=UTC),
        duration_ms=(end - start) / 1e6,
    )


def from_otel(
    trace: Json,
    *,
    task_id: str,
    run_id: str | None = None,
    epoch: int = 0,
    agent: AgentInfo | None = None,
    source: dict[str, Json] | None = None,
) -> RunRecord:
    """Convert the spans of ONE trace (OTLP JSON or a list of spans, already parsed) to a RunRecord.

    Pure: reads ``trace`` without changing it. ``run_id`` defaults to the trace id. A trace without
    tool spans gives a run with no steps. No spans at all, or spans of more than one trace, raise
    :class:`~pathjudge.errors.ImportFormatError` (use :func:`import_file` to split a multi-trace export).
    """
    spans = _spans_of(trace, None, "", 0)
    traces = {s.trace_id for s in spans}
    if not spans:
        raise error_at("has no spans", hint="export at least one span of the trace")
    if len(traces) > 1:
        raise error_at(
            f"holds {len(traces)} traces; from_otel converts one",
            hint="use pathjudge.agent.importers.otel.import_file to split an export into runs",
        )
    return _trace_record(
        spans,
        task_id=task_id,
        run_id=run_id or spans[0].trace_id,
        epoch=epoch,
        agent=agent,
        source=source,
    )


def _split(value: Json) -> list[tuple[str, Json]]:
    return [("", value)]


def _locate(exc: PathjudgeError, file: str, line: int | None) -> ImportFormatError:
    return ImportFormatError(
        exc.message, file=file, line=exc.line or line, field=exc.field, hint=exc.hint
    )


def import_file(
    path: str | Path,
    *,
    task_id: str | None = None,
    agent: AgentInfo | None = None,
    errors: list[InputError] | None = None,
) -> Iterator[RunRecord]:
    """Read every span in an OTel JSON/JSONL export and yield one run per trace, in order of first start.

    ``task_id`` overrides every run's task id (see the module docstring for the default). With
    ``errors`` given, a bad span or trace is recorded and skipped (a trace with a bad span is skipped
    whole, since its steps would be incomplete). An export with no spans raises
    :class:`~pathjudge.errors.ImportFormatError`.
    """
    file = str(path)
    stem = file_stem(path)
    spans: list[_Span] = []
    broken: set[str] = set()
    doc: Document
    for doc in iter_documents(path, _split, errors=errors):
        items: list[tuple[str, Json]] = [("", doc.value)]
        if isinstance(doc.value, list):
            items = [(join_path("", i), v) for i, v in enumerate(doc.value)]
        for where, value in items:
            try:
                spans.extend(_spans_of(value, doc.line, where, len(spans)))
            except PathjudgeError as exc:
                collect_or_raise(
                    suggest_format(_locate(exc, file, doc.line), value, FORMAT), errors
                )
                trace = value.get("traceId") if isinstance(value, dict) else None
                if isinstance(trace, str):
                    broken.add(trace)
    if not spans:
        if errors:
            return
        raise ImportFormatError(
            "has no spans", file=file, hint="export the traces as OTLP JSON or a list of spans"
        )
    traces: dict[str, list[_Span]] = {}
    for span in spans:
        traces.setdefault(span.trace_id, []).append(span)
    ordered = sorted(traces.values(), key=lambda group: min((s.start_ns, s.order) for s in group))
    for index, group in enumerate(ordered):
        trace_id = group[0].trace_id
        if trace_id in broken:
            continue
        first = min(group, key=lambda s: (s.start_ns, s.order))
        try:
            task = task_id
            if task is None:
                attr = next(
                    (s.attrs["pathjudge.task_id"] for s in group if "pathjudge.task_id" in s.attrs),
                    None,
                )
                task = str(attr) if isinstance(attr, str | int) else f"{stem}#{index}"
            source = source_metadata(FORMAT, file=file, index=index, line=first.line)
            source["trace_id"] = trace_id
            source["span_id"] = _root(group).span_id
            names = semconv_names({key for span in group for key in span.attrs})
            if names is not None:
                source["genai_semconv"] = names
            yield _trace_record(
                group,
                task_id=task,
                run_id=trace_id,
                epoch=_int_attr(group, "pathjudge.epoch") or 0,
                agent=agent,
                source=source,
            )
        except PathjudgeError as exc:
            collect_or_raise(_locate(exc, file, first.line), errors)
