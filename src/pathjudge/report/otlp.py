"""Grades and judge verdicts as OpenTelemetry ``gen_ai.evaluation.result`` events.

Each graded run gives one event per number pathjudge reports on it, following the GenAI semantic
conventions' evaluation event (``gen_ai.evaluation.name``, ``gen_ai.evaluation.score.value``,
``gen_ai.evaluation.score.label``, ``gen_ai.evaluation.explanation``):

- ``pathjudge.passed``: the run's verdict (label ``pass`` / ``fail`` / ``undecided``), its blockers as
  the explanation;
- ``pathjudge.task_success``: task success (label; the partial credit as the value when decided);
- ``pathjudge.tool_calls`` and ``pathjudge.trajectory``: the two scores (value, 0..1), when graded;
- one event per judged criterion, named after the criterion, with the judge's verdict as the label and
  its reasoning as the explanation.

Every event also carries ``pathjudge.run_id``, ``pathjudge.task_id`` and ``pathjudge.epoch``. When the
run was imported from OpenTelemetry (``metadata["source"]`` has ``trace_id`` and ``span_id``), the
event is attached to that trace and span, as the conventions ask. The events are built and sent by the
OpenTelemetry SDK (``pip install 'pathjudge[otel]'``): to an OTLP/JSON file (the protobuf JSON mapping
of the exporter's own encoding, ids as hex) or to a collector over OTLP/HTTP.
"""

from __future__ import annotations

import base64
import json
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pathjudge.errors import InputError, MissingExtraError

if TYPE_CHECKING:
    from pathjudge.agent.trajectory import RunRecord
    from pathjudge.scoring.grade import RunGrade

__all__ = ["EVENT_NAME", "EvaluationEvent", "evaluation_events", "send_otlp", "write_otlp_json"]

EVENT_NAME = "gen_ai.evaluation.result"
_SCOPE = "pathjudge"
_EXPLANATION_MAX = 4000


@dataclass(frozen=True, slots=True)
class EvaluationEvent:
    """One ``gen_ai.evaluation.result`` event: its attributes and the trace/span it belongs to."""

    attributes: Mapping[str, str | int | float]
    trace_id: str | None = None
    span_id: str | None = None


_ID_DIGITS = {"trace_id": 32, "span_id": 16}


def _otel_ids(run: RunRecord | None) -> tuple[str | None, str | None]:
    """The trace and span a run was imported from (both, or neither).

    An id that is not hex of the right length (32 digits for a trace, 16 for a span), or
    is all zeros (OpenTelemetry's invalid id), raises :class:`InputError` naming the run and field.
    """
    source = run.metadata.get("source") if run is not None else None
    if run is None or not isinstance(source, dict):
        return None, None
    trace_id, span_id = source.get("trace_id"), source.get("span_id")
    if not (isinstance(trace_id, str) and isinstance(span_id, str)):
        return None, None
    for key, value in (("trace_id", trace_id), ("span_id", span_id)):
        digits = _ID_DIGITS[key]
        if not re.fullmatch(f"[0-9a-fA-F]{{{digits}}}", value) or not value.strip("0"):
            raise InputError(
                f"run {run.run_id!r}: {key} {value[:40]!r} is not an OpenTelemetry id "
                f"({digits} hex digits, not all zero)",
                field=f"metadata.source.{key}",
                task_id=run.task_id,
                hint="re-import the trace with pathjudge import --from otel, or remove the id",
            )
    return trace_id, span_id


def _event(
    grade: RunGrade,
    ids: tuple[str | None, str | None],
    name: str,
    *,
    value: float | None = None,
    label: str | None = None,
    explanation: str | None = None,
) -> EvaluationEvent:
    attrs: dict[str, str | int | float] = {"gen_ai.evaluation.name": name}
    if value is not None:
        attrs["gen_ai.evaluation.score.value"] = float(value)
    if label is not None:
        attrs["gen_ai.evaluation.score.label"] = label
    if explanation:
        attrs["gen_ai.evaluation.explanation"] = explanation[:_EXPLANATION_MAX]
    attrs.update(
        {
            "pathjudge.run_id": grade.run_id,
            "pathjudge.task_id": grade.task_id,
            "pathjudge.epoch": grade.epoch,
        }
    )
    return EvaluationEvent(attrs, *ids)


def evaluation_events(
    grades: Iterable[RunGrade], runs: Mapping[str, RunRecord] | None = None
) -> list[EvaluationEvent]:
    """The events for ``grades`` (see the module docstring); ``runs`` (by run id) give trace ids.

    Pure. A grade whose run is not in ``runs``, or was not imported from OpenTelemetry, gives events
    without a trace. No grades give no events.
    """
    events: list[EvaluationEvent] = []
    for grade in grades:
        ids = _otel_ids((runs or {}).get(grade.run_id))
        verdict = "undecided" if grade.passed is None else ("pass" if grade.passed else "fail")
        events.append(
            _event(grade, ids, "pathjudge.passed", label=verdict, explanation=grade.reason)
        )
        events.append(
            _event(
                grade,
                ids,
                "pathjudge.task_success",
                value=grade.success_score if grade.success != "undecided" else None,
                label=grade.success,
            )
        )
        for name, value in (("tool_calls", grade.tool_calls), ("trajectory", grade.trajectory)):
            if value is not None:
                events.append(_event(grade, ids, f"pathjudge.{name}", value=value))
        for judged in grade.judged:
            events.append(
                _event(
                    grade, ids, judged.criterion, label=judged.status, explanation=judged.reasoning
                )
            )
    return events


def _sdk() -> Any:
    try:
        from opentelemetry.sdk import _logs as sdk_logs
    except ModuleNotFoundError:
        raise MissingExtraError(
            "otel", "opentelemetry-sdk", "exporting evaluation events"
        ) from None
    return sdk_logs


def _records(events: Sequence[EvaluationEvent], extra: Any = None) -> list[Any]:
    """The events emitted through an SDK logger; returns the SDK's records (also sent to ``extra``)."""
    from opentelemetry import trace
    from opentelemetry.sdk._logs.export import (
        BatchLogRecordProcessor,
        InMemoryLogRecordExporter,
        SimpleLogRecordProcessor,
    )
    from opentelemetry.sdk.resources import Resource

    sdk_logs = _sdk()
    memory = InMemoryLogRecordExporter()  # type: ignore[no-untyped-call]
    provider = sdk_logs.LoggerProvider(resource=Resource.create({"service.name": _SCOPE}))
    provider.add_log_record_processor(SimpleLogRecordProcessor(memory))
    if extra is not None:  # batched: one request for up to 512 events, flushed at shutdown
        provider.add_log_record_processor(BatchLogRecordProcessor(extra, max_export_batch_size=512))
    logger = provider.get_logger(_SCOPE)
    for event in events:
        context = None
        if event.trace_id is not None and event.span_id is not None:
            span = trace.NonRecordingSpan(
                trace.SpanContext(
                    trace_id=int(event.trace_id, 16),
                    span_id=int(event.span_id, 16),
                    is_remote=True,
                    trace_flags=trace.TraceFlags(trace.TraceFlags.SAMPLED),
                )
            )
            context = trace.set_span_in_context(span)
        logger.emit(event_name=EVENT_NAME, attributes=dict(event.attributes), context=context)
    provider.shutdown()
    return list(memory.get_finished_logs())


def write_otlp_json(path: str | Path, events: Sequence[EvaluationEvent]) -> None:
    """Write the events as one OTLP/JSON ``ExportLogsServiceRequest`` (atomically)."""
    from google.protobuf.json_format import MessageToDict  # type: ignore[import-untyped]
    from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs

    from pathjudge._io import write_text_atomic

    request = MessageToDict(encode_logs(_records(events)), use_integers_for_enums=True)
    for resource in request.get("resourceLogs", []):
        for scope in resource.get("scopeLogs", []):
            for record in scope.get("logRecords", []):
                for key in ("traceId", "spanId"):  # OTLP/JSON writes ids as hex, not base64
                    if key in record:
                        record[key] = base64.b64decode(record[key]).hex()
    write_text_atomic(path, json.dumps(request, indent=1) + "\n")


def _shown(url: str) -> str:
    """``url`` as it may be printed: scheme, host, port and path; never user-info or a query."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        return "the given URL"
    return f"{parts.scheme}://{host}{port}{parts.path}"


def logs_endpoint(url: str) -> str:
    """An OTLP/HTTP logs URL: ``http://host:4318`` gains ``/v1/logs``; a URL with a path is kept."""
    try:
        parts = urlsplit(url)
        valid = parts.scheme in ("http", "https") and bool(parts.hostname)
        _ = parts.port  # a port out of range or not a number raises here
    except ValueError:
        valid = False
    if not valid:
        raise InputError(
            f"{_shown(url)!r} is not an http(s) URL",
            field="--otlp-endpoint",
            hint="give the collector's OTLP/HTTP address, e.g. http://localhost:4318",
        )
    return url if parts.path.strip("/") else url.rstrip("/") + "/v1/logs"


def _answers(session: Any) -> list[int]:
    """The HTTP status of every answer ``session`` gets (a ``requests`` response hook)."""
    statuses: list[int] = []
    session.hooks["response"].append(lambda response, **_: statuses.append(response.status_code))
    return statuses


def send_otlp(url: str, events: Sequence[EvaluationEvent], *, timeout: float = 10.0) -> None:
    """Send the events to an OTLP/HTTP collector; a refused or failed export is an InputError.

    Only a 2xx answer is a delivery: the exporter does not follow a redirect (and would count it a
    success), so one is an error naming the status. The exporter's own log lines, which name the
    URL with any query, are kept off the terminal; the error names the URL without user-info or
    query.
    """
    _sdk()
    import requests
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.sdk._logs.export import LogRecordExportResult

    endpoint = logs_endpoint(url)
    results: list[LogRecordExportResult] = []
    session = requests.Session()
    statuses = _answers(session)

    class _Recording(OTLPLogExporter):
        def export(self, batch: Sequence[Any]) -> LogRecordExportResult:
            results.append(super().export(batch))
            return results[-1]

    sdk_log, quiet = logging.getLogger("opentelemetry"), logging.NullHandler()
    propagate, sdk_log.propagate = sdk_log.propagate, False
    sdk_log.addHandler(quiet)  # a handler: else logging's last resort prints to stderr anyway
    try:
        _records(events, _Recording(endpoint=endpoint, timeout=timeout, session=session))
    finally:
        sdk_log.removeHandler(quiet)
        sdk_log.propagate = propagate
    refused = [status for status in statuses if not 200 <= status < 300]
    if refused or any(result is not LogRecordExportResult.SUCCESS for result in results):
        answer = f"it answered HTTP {refused[-1]}" if refused else f"no answer within {timeout:g} s"
        raise InputError(
            f"the collector at {_shown(endpoint)} did not accept the evaluation events ({answer})",
            field="--otlp-endpoint",
            hint="check the address (a redirect is not followed) and that the collector's "
            "OTLP/HTTP receiver is running",
        )
