"""OpenTelemetry GenAI spans (OTLP JSON and flat span lists) → runs, one per trace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathjudge.agent.importers import import_file
from pathjudge.agent.importers.otel import from_otel
from pathjudge.errors import ImportFormatError, InputError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "importers"


def test_otlp_two_traces_parallel_under_chat_span_and_error_status() -> None:
    trip, hello = import_file(FIXTURES / "otel_otlp.json", "otel")
    assert trip.run_id == "5b8efff798038103d269b633813fc60c"
    assert trip.task_id == "trip-rome"  # from the pathjudge.task_id attribute
    assert trip.agent.name == "trip-planner"
    assert trip.agent.model == "gpt-4o"
    # ordered by start time even though the file lists the later spans first
    assert trip.tool_names == ("get_weather", "list_museums", "book_table")
    assert [s.turn for s in trip.steps] == [0, 0, 1]
    weather, museums, booking = trip.steps
    assert weather.decision == "Checking weather and museums."
    assert museums.decision is None
    assert weather.arguments == {"city": "Rome"}
    assert weather.result == '{"temp": 24}'
    assert weather.call_id == "call_w"
    assert weather.latency_ms == 150.0
    assert booking.is_error
    assert booking.state["error_type"] == "ToolArgumentError"
    assert booking.raw_arguments == '{"restaurant": "Roscioli", "time": '
    assert booking.arguments_error is not None
    assert trip.input == "Plan a day in Rome"
    assert trip.final_answer == "Morning: Vatican Museums (24°C). Lunch: book Roscioli yourself."
    # chat spans only: 500 + 700 + 800 input, 60 + 40 + 90 output
    assert (trip.usage.input_tokens, trip.usage.output_tokens) == (2000, 190)
    assert trip.timing.duration_ms == 900.0
    assert trip.metadata["resource"] == {"service.name": "trip-agent"}
    assert [s["operation"] for s in trip.metadata["spans"]] == [  # type: ignore[union-attr,index]
        "invoke_agent",
        "chat",
        "chat",
        "chat",
    ]
    assert trip.metadata["source"]["trace_id"] == trip.run_id  # type: ignore[index,call-overload]
    assert hello.steps == ()
    assert hello.final_answer == "Hello!"
    assert hello.task_id == "otel_otlp#1"


def test_flat_console_spans_overlap_decides_parallel() -> None:
    (run,) = import_file(FIXTURES / "otel_flat.json", "otel")
    assert run.run_id == "ab" * 16
    assert [(s.tool, s.turn) for s in run.steps] == [
        ("read_file", 0),
        ("read_file", 0),
        ("write_file", 1),
    ]
    assert [s.is_error for s in run.steps] == [False, False, True]
    assert run.steps[2].result is None
    assert run.steps[0].latency_ms == 800.0


def test_from_otel_rejects_two_traces_and_accepts_one() -> None:
    otlp = json.loads((FIXTURES / "otel_otlp.json").read_text())
    with pytest.raises(ImportFormatError, match="holds 2 traces"):
        from_otel(otlp, task_id="t")
    flat = json.loads((FIXTURES / "otel_flat.json").read_text())
    run = from_otel(flat, task_id="t")
    assert run.run_id == "ab" * 16
    assert len(run.steps) == 3


def test_bad_span_is_located_and_keep_going_skips_its_trace(tmp_path: Path) -> None:
    good = {
        "traceId": "aa",
        "spanId": "1",
        "startTimeUnixNano": "5",
        "endTimeUnixNano": "9",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": "t"}},
        ],
    }
    bad = {"traceId": "bb", "spanId": "2", "startTimeUnixNano": "yesterday"}
    path = tmp_path / "spans.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(ImportFormatError) as info:
        list(import_file(path, "otel"))
    assert (info.value.line, info.value.field) == (2, "startTimeUnixNano")
    errors: list[InputError] = []
    runs = list(import_file(path, "otel", errors=errors))
    assert [r.run_id for r in runs] == ["aa"]
    assert len(errors) == 1


def test_trace_with_only_a_root_span_is_an_empty_run(tmp_path: Path) -> None:
    path = tmp_path / "root.json"
    path.write_text(
        json.dumps(
            [
                {
                    "traceId": "cc",
                    "spanId": "1",
                    "name": "invoke_agent",
                    "startTimeUnixNano": 1_000_000,
                    "endTimeUnixNano": 3_000_000,
                    "attributes": {"gen_ai.operation.name": "invoke_agent", "custom": [1, 2]},
                }
            ]
        )
    )
    (run,) = import_file(path, "otel", task_id="T")
    assert run.steps == ()
    assert run.final_answer is None
    assert run.task_id == "T"
    assert run.timing.duration_ms == 2.0  # (3,000,000 - 1,000,000) ns
    assert run.metadata["spans"][0]["attributes"] == {"custom": [1, 2]}  # type: ignore[index,call-overload]


def test_export_without_spans(tmp_path: Path) -> None:
    path = tmp_path / "none.json"
    path.write_text('{"resourceSpans": []}')
    with pytest.raises(ImportFormatError, match="has no spans"):
        list(import_file(path, "otel"))


def _chat_span(trace: str, attrs: dict[str, object]) -> dict[str, object]:
    return {
        "traceId": trace,
        "spanId": "1",
        "name": "chat",
        "startTimeUnixNano": 1,
        "endTimeUnixNano": 2,
        "attributes": {"gen_ai.operation.name": "chat", **attrs},
    }


def test_older_and_current_convention_names(tmp_path: Path) -> None:
    older = _chat_span(
        "aa",
        {
            "gen_ai.system": "openai",
            "gen_ai.usage.prompt_tokens": 7,
            "gen_ai.usage.completion_tokens": 3,
        },
    )
    current = _chat_span(
        "bb",
        {
            "gen_ai.provider.name": "openai",
            "gen_ai.usage.input_tokens": 5,
            "gen_ai.usage.output_tokens": 2,
        },
    )
    mixed = _chat_span("cc", {"gen_ai.system": "openai", "gen_ai.provider.name": "openai"})
    plain = _chat_span("dd", {})
    path = tmp_path / "spans.json"
    path.write_text(json.dumps([older, current, mixed, plain]))
    runs = {r.run_id: r for r in import_file(path, "otel")}
    assert (runs["aa"].usage.input_tokens, runs["aa"].usage.output_tokens) == (7, 3)
    assert (runs["bb"].usage.input_tokens, runs["bb"].usage.output_tokens) == (5, 2)
    semconv = {k: r.metadata["source"].get("genai_semconv") for k, r in runs.items()}  # type: ignore[union-attr]
    assert semconv == {"aa": "older", "bb": "current", "cc": "mixed", "dd": None}
    # the fixture's spans (current names) hang from their invoke_agent span
    first = next(iter(import_file(FIXTURES / "otel_otlp.json", "otel")))
    assert first.metadata["source"]["span_id"] == "a000000000000001"  # type: ignore[index,call-overload]
