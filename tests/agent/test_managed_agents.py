"""Claude Managed Agents session event logs → runs (files, SSE dumps, and the API through the SDK)."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx2
import pytest

from pathjudge.agent.importers.managed_agents import (
    BETA_HEADER,
    fetch_session,
    from_managed_agents,
    import_file,
    read_events,
)
from pathjudge.agent.io import read_runs
from pathjudge.agent.trajectory import AgentInfo, RunRecord
from pathjudge.errors import ImportFormatError, InputError, RemoteImportError
from tests.fakes.anthropic_server import FakeAnthropic, RecordedRequest, Reply

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "managed_agents"
FULL_JSON = FIXTURES / "session_full.json"
FULL_SSE = FIXTURES / "session_full.sse"
DONE_PAGE = FIXTURES / "session_done_page.json"


def _one(path: Path, **options: Any) -> RunRecord:
    runs = list(import_file(path, **options))
    assert len(runs) == 1
    return runs[0]


def _events() -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = json.loads(FULL_JSON.read_text(encoding="utf-8"))
    return events


def _shape(run: RunRecord) -> list[tuple[int, str, str | None, str, bool, str]]:
    return [
        (s.turn, s.tool, s.call_id, str(s.state["kind"]), s.is_error, str(s.state["status"]))
        for s in run.steps
    ]


EXPECTED_SHAPE = [
    (0, "grep", "sevt_006", "agent_tool", False, "completed"),  # parallel with the next call
    (0, "read", "sevt_007", "agent_tool", True, "completed"),  # the tool error
    (1, "search_docs", "sevt_013", "mcp_tool", False, "completed"),  # MCP, confirmed
    (2, "lookup_account", "sevt_021", "custom_tool", False, "completed"),  # answered by the user
    (3, "bash", "sevt_028", "agent_tool", False, "denied"),
    (4, "web_fetch", "sevt_036", "agent_tool", False, "interrupted"),
]


def test_recorded_session_imports_to_the_expected_steps() -> None:
    run = _one(FULL_JSON, task_id="rotate-key")
    assert (run.run_id, run.task_id) == ("session_full", "rotate-key")
    assert _shape(run) == EXPECTED_SHAPE
    grep, read, search, lookup, bash, fetch = run.steps
    assert run.input == (
        "How do I rotate a Meridian API key, and what rate limit applies to my account acct_42?"
    )
    # text before a call is its decision; the parallel call shares the turn's decision
    assert grep.decision == read.decision == "I'll look for the key-rotation page and read it."
    assert search.decision is not None
    assert search.decision.startswith("The rotation steps are in")
    assert lookup.decision is None
    assert bash.decision is None
    assert fetch.decision == "Understood. Let me fetch the pricing page instead."
    assert grep.arguments == {"pattern": "rotate", "path": "/docs"}
    assert (
        grep.result
        == "/docs/api-keys.md:12: To rotate a key, open Settings > API keys and click Rotate."
    )
    assert read.result == "Error: file not found: /docs/keys.md"
    assert lookup.result == '{"account_id": "acct_42", "plan": "Pro"}'
    assert bash.result is None
    assert fetch.result is None
    # latency = result.processed_at - use.processed_at: 2.450-2.000, 2.500-2.010, 5.800-3.700, 8.000-6.900 s
    assert [s.latency_ms for s in run.steps] == pytest.approx(
        [450.0, 490.0, 2100.0, 1100.0, None, None]
    )
    assert search.state["mcp_server_name"] == "meridian-docs"
    assert search.state["evaluated_permission"] == "ask"
    assert search.state["confirmation"] == {
        "result": "allow",
        "event_id": "sevt_016",
        "processed_at": "2026-04-02T10:00:05.000Z",
    }
    assert bash.state["confirmation"]["deny_message"] == "No network calls from the sandbox."  # type: ignore[index]
    assert "interrupted_by" not in bash.state  # a denied call never ran, so nothing interrupted it
    assert fetch.state["interrupted_by"] == "sevt_040"
    assert grep.state["unknown_fields"] == {"use": {"cache_hint": "warm"}}  # kept, not dropped
    assert run.stop_reason == "interrupted"
    assert run.final_answer is None
    assert run.error_count == 1
    meta = run.metadata
    assert meta["interrupts"] == [
        {
            "event_id": "sevt_040",
            "after_step": 6,
            "processed_at": "2026-04-02T10:00:13.000Z",
            "interrupted_calls": ["sevt_036"],
        }
    ]
    unmapped_types = [entry["value"]["type"] for entry in meta["unmapped"]]  # type: ignore[index,union-attr]
    assert unmapped_types == [
        "agent.thread_context_compacted",
        "session.error",
        "agent.future_insight",
    ]
    assert meta["unmapped"][1]["at"] == "[32]"  # type: ignore[index]
    assert sum(meta["event_counts"].values()) == 41  # type: ignore[union-attr]
    assert meta["model_requests"] == 5
    assert meta["model_request_errors"] == 0
    assert [s["type"] for s in meta["statuses"]][-1] == "session.status_idle"  # type: ignore[index,union-attr]
    assert meta["source"] == {
        "format": "managed-agents",
        "file": str(FULL_JSON),
        "session_id": "session_full",
    }
    # the last session.usage snapshot is cumulative; cache creation sums its TTL buckets (900 + 0)
    assert run.usage.input_tokens == 8100
    assert run.usage.output_tokens == 275
    assert run.usage.cache_creation_input_tokens == 900
    assert run.usage.cache_read_input_tokens == 2700
    assert run.usage.cost_usd == pytest.approx(0.0453)
    assert run.timing.started_at == datetime(2026, 4, 2, 10, 0, 0, tzinfo=UTC)
    assert run.timing.duration_ms == pytest.approx(13100.0)  # 10:00:00.000 → 10:00:13.100
    assert run.agent.backend == "anthropic-managed-agents"
    # the record survives the JSONL round trip unchanged
    assert RunRecord.model_validate_json(run.model_dump_json()) == run


def test_sse_dump_gives_the_same_steps_and_keeps_stream_extras() -> None:
    from_json = _one(FULL_JSON)
    from_sse = _one(FULL_SSE, session_id="session_full")
    assert from_sse.steps == from_json.steps
    assert (from_sse.input, from_sse.stop_reason, from_sse.usage) == (
        from_json.input,
        from_json.stop_reason,
        from_json.usage,
    )
    assert from_sse.metadata["duplicate_events"] == 1  # the replayed sevt_010 after a reconnect
    # the preview cut off by the interrupt never got its final event: rebuilt from its deltas
    assert from_sse.metadata["unfinished_previews"] == [
        {
            "event_id": "sevt_900",
            "type": "agent.message",
            "text": "The pricing page says Pro keys get",
        }
    ]
    counts = from_sse.metadata["event_counts"]
    assert counts["event_delta"] == 3
    assert counts["event_start"] == 2
    assert "ping" not in counts  # type: ignore[operator]


def test_sse_lines_are_located() -> None:
    located = read_events(FULL_SSE)
    first = located[0]
    assert first.line == 4
    assert first.value["id"] == "sevt_001"
    split = next(e for e in located if e.value.get("id") == "sevt_012")
    text = FULL_SSE.read_text(encoding="utf-8").splitlines()
    assert text[split.line - 1].startswith("data: ")
    assert text[split.line].startswith("data: ")
    assert split.value["content"][0]["text"].startswith("The rotation steps")


def test_completed_session_page_has_an_answer_and_end_turn() -> None:
    run = _one(
        DONE_PAGE, session_id="sesn_done", agent=AgentInfo(name="docent", model="claude-haiku-4-5")
    )
    assert run.run_id == run.task_id == "sesn_done"
    assert [(s.tool, s.latency_ms) for s in run.steps] == [("grep", 250.0)]
    assert run.final_answer == "SSO is part of the Enterprise plan."
    assert run.stop_reason == "end_turn"
    assert run.metadata["redacted_blocks"] == 1
    assert run.usage.total_tokens == 0  # the log has no usage events
    assert (run.agent.name, run.agent.model, run.agent.backend) == (
        "docent",
        "claude-haiku-4-5",
        "anthropic-managed-agents",
    )


def test_turns_without_spans_and_usage_from_spans() -> None:
    events = _events()
    no_spans = [e for e in events if not e["type"].startswith("span.")]
    heuristic = from_managed_agents(no_spans, session_id="s")
    assert _shape(heuristic) == EXPECTED_SHAPE
    no_snapshot = [e for e in events if e["type"] != "session.usage"]
    summed = from_managed_agents(no_snapshot, session_id="s").usage
    # span.model_request_end sums: input 1200+1500+1700+1800+1900 = 8100; output 80+60+40+50+45 = 275;
    # cache creation 0+900+0+0+0 = 900; cache read 0+0+900+900+900 = 2700; no cost without a list_cost
    assert (summed.input_tokens, summed.output_tokens) == (8100, 275)
    assert (summed.cache_creation_input_tokens, summed.cache_read_input_tokens) == (900, 2700)
    assert summed.cost_usd is None


def _use(i: str, name: str = "grep") -> dict[str, Any]:
    return {"id": i, "type": "agent.tool_use", "name": name, "input": {"q": i}}


def _result(i: str, use: str, error: bool = False) -> dict[str, Any]:
    return {
        "id": i,
        "type": "agent.tool_result",
        "tool_use_id": use,
        "content": [{"type": "text", "text": f"out {use}"}],
        "is_error": error,
    }


def _msg(kind: str, i: str, text: str) -> dict[str, Any]:
    return {"id": i, "type": kind, "content": [{"type": "text", "text": text}]}


def test_parallel_uses_share_a_turn_only_without_a_result_between() -> None:
    parallel = from_managed_agents(
        [_use("a"), _use("b"), _result("ra", "a"), _result("rb", "b")], session_id="s"
    )
    assert [s.turn for s in parallel.steps] == [0, 0]
    sequential = from_managed_agents(
        [_use("a"), _result("ra", "a"), _use("b"), _result("rb", "b")], session_id="s"
    )
    assert [s.turn for s in sequential.steps] == [0, 1]
    # with spans, calls of one model request share a turn even when results come in between
    spanned = from_managed_agents(
        [
            {"id": "m1", "type": "span.model_request_start"},
            _use("a"),
            _result("ra", "a"),
            _use("b"),
            {"id": "m2", "type": "span.model_request_start"},
            _use("c"),
        ],
        session_id="s",
    )
    assert [s.turn for s in spanned.steps] == [0, 0, 1]
    assert spanned.steps[2].state["status"] == "no_result"


def test_conversation_with_several_user_turns_and_a_resumed_interrupt() -> None:
    run = from_managed_agents(
        [
            _msg("user.message", "u1", "first question"),
            _msg("agent.message", "m1", "looking"),
            _use("a"),
            _result("ra", "a"),
            _msg("agent.message", "m2", "first answer"),
            {"id": "i1", "type": "user.interrupt"},
            {
                "id": "u2",
                "type": "user.message",
                "content": [{"type": "image", "source": {"type": "url", "url": "u"}}],
            },
            {
                "id": "t1",
                "type": "agent.thinking",
                "content": [{"type": "thinking", "thinking": "plan it"}],
            },
            _msg("agent.message", "m3", "second"),
            _use("b"),
            _result("rb", "b", error=True),
            _msg("agent.message", "m4", "final answer"),
            {"id": "st", "type": "session.status_idle", "stop_reason": {"type": "end_turn"}},
        ],
        session_id="s",
    )
    assert run.input == "first question"
    assert run.metadata["user_messages"] == [
        {
            "event_id": "u2",
            "content": [{"type": "image", "source": {"type": "url", "url": "u"}}],
            "after_step": 1,
        }
    ]
    assert run.metadata["agent_replies"] == [{"text": "first answer", "after_step": 1}]
    assert [s.decision for s in run.steps] == ["looking", "plan it\n\nsecond"]
    assert run.final_answer == "final answer"
    assert run.stop_reason == "end_turn"  # interrupted, then resumed by a user message
    assert run.metadata["interrupts"][0]["interrupted_calls"] == []  # type: ignore[index]


def test_orphans_custom_result_errors_and_unknown_fields_are_kept() -> None:
    events = [
        {"id": "c", "type": "agent.custom_tool_use", "name": "lookup", "input": {"x": 1}},
        {
            "id": "rc",
            "type": "user.custom_tool_result",
            "custom_tool_use_id": "c",
            "is_error": True,
            "content": [{"type": "image", "source": {"type": "base64", "data": "AA=="}}],
            "trace": "t-1",
        },
        {"id": "ro", "type": "agent.tool_result", "tool_use_id": "nope", "content": []},
        {"id": "cf", "type": "user.tool_confirmation", "tool_use_id": "nope", "result": "allow"},
        {"id": "st", "type": "session.status_running", "region": "eu"},
        {"id": "term", "type": "session.status_terminated"},
    ]
    before = copy.deepcopy(events)
    run = from_managed_agents(events, session_id="s")
    assert events == before  # the caller's events are not modified
    (step,) = run.steps
    assert step.is_error is True
    assert step.result == [{"type": "image", "source": {"type": "base64", "data": "AA=="}}]
    assert step.state["unknown_fields"] == {"result": {"trace": "t-1"}}
    unmapped = run.metadata["unmapped"]
    assert [e["at"] for e in unmapped] == ["[2]", "[3]", "[4].region"]  # type: ignore[index,union-attr]
    assert unmapped[0]["value"]["reason"] == "no earlier tool use has this id"  # type: ignore[index]
    assert run.stop_reason == "terminated"


def test_malformed_arguments_are_flagged_not_dropped() -> None:
    run = from_managed_agents(
        [{"id": "a", "type": "agent.tool_use", "name": "bash", "input": "{not json"}],
        session_id="s",
    )
    (step,) = run.steps
    assert step.arguments == {}
    assert step.raw_arguments == "{not json"
    assert step.arguments_error is not None


def _write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_jsonl_events_and_pages(tmp_path: Path) -> None:
    events = _events()
    lines = [json.dumps({"data": events[:10], "next_page": "p2"})] + [
        json.dumps(e) for e in events[10:]
    ]
    path = _write(tmp_path, "sesn_x.events.jsonl", "\n".join(lines) + "\n")
    run = _one(path)
    assert run.run_id == "sesn_x"
    assert _shape(run) == EXPECTED_SHAPE
    located = read_events(path)
    assert located[0].line == 1
    assert located[10].line == 2


@pytest.mark.parametrize(
    ("name", "text", "line", "field", "words"),
    [
        ("trunc.json", '[\n  {"id": "a", "type": "user.message",\n', 3, None, "not valid JSON"),
        ("empty.json", "  \n", None, None, "has no events"),
        ("none.json", "[]", None, None, "has no events"),
        ("emptypage.json", '{"data": []}', None, None, "has no events"),
        ("text.json", "hello\n", 1, None, "not a Managed Agents event log"),
        ("scalar.json", "3", 1, None, "is not a Managed Agents event log"),
        (
            "notype.json",
            '[\n  {"id": "a", "type": "user.message", "content": []},\n  {"id": "b"}\n]',
            3,
            "[1].type",
            "needs a string 'type'",
        ),
        (
            "noname.json",
            '{"data": [\n {"id": "u", "type": "user.message", "content": []},\n\n'
            ' {"id": "a", "type": "agent.tool_use", "input": {}}]}',
            4,
            "[1].name",
            "non-empty string 'name'",
        ),
        (
            "notobj.json",
            '[{"id": "u", "type": "user.message", "content": []},\n 7]',
            2,
            "[1]",
            "must be a JSON object",
        ),
        (
            "badtime.json",
            '[{"id": "u", "type": "user.message", "processed_at": "yesterday"}]',
            1,
            "[0].processed_at",
            "not an ISO 8601 timestamp",
        ),
        (
            "dupe.json",
            '[{"id": "u", "type": "user.message", "content": []},\n'
            ' {"id": "u", "type": "user.message", "content": [{"type": "text", "text": "x"}]}]',
            2,
            "[1].id",
            "appears twice with different content",
        ),
        (
            "confirm.json",
            '[{"id": "a", "type": "agent.tool_use", "name": "bash", "input": {}},\n'
            ' {"id": "c", "type": "user.tool_confirmation", "tool_use_id": "a", "result": "yes"}]',
            2,
            "[1].result",
            "'allow' or 'deny'",
        ),
        (
            "idle.json",
            '[{"id": "i", "type": "session.status_idle", "stop_reason": "end_turn"}]',
            1,
            "[0].stop_reason",
            "object with a string 'type'",
        ),
        (
            "bad.sse",
            'event: message\ndata: {"id": "a", "type": "user.message"}\n\nevent: message\ndata: {"id": "b", "typ\n\n',
            5,
            None,
            "server-sent event is not valid JSON",
        ),
        ("field.sse", "data: {}\nbogus: 1\n", 2, None, "unknown server-sent-event field"),
        ("junk.sse", "event: message\nno colon here\n", 2, None, "not a server-sent-event line"),
        (
            "result.jsonl",
            '{"id": "r", "type": "agent.tool_result"}\n',
            1,
            "[0].tool_use_id",
            "tool_use_id",
        ),
        (
            "badline.jsonl",
            '{"id": "u", "type": "user.message"}\n{"id": \n',
            2,
            None,
            "not valid JSON",
        ),
    ],
)
def test_malformed_input_is_one_clear_error_with_the_line(
    tmp_path: Path, name: str, text: str, line: int | None, field: str | None, words: str
) -> None:
    path = _write(tmp_path, name, text)
    with pytest.raises(ImportFormatError) as caught:
        list(import_file(path))
    error = caught.value
    assert error.file == str(path)
    assert error.line == line
    assert error.field == field
    assert words in str(error)
    assert error.exit_code == 2


def test_non_utf8_and_error_collection(tmp_path: Path) -> None:
    path = _write(tmp_path, "bin.json", b'[{"id": "a",\n "type": "\xff"}]')
    with pytest.raises(ImportFormatError, match="not valid UTF-8") as caught:
        list(import_file(path))
    assert caught.value.line == 2
    errors: list[InputError] = []
    assert list(import_file(path, errors=errors)) == []
    assert len(errors) == 1
    assert "UTF-8" in str(errors[0])


def test_in_memory_errors_name_the_event() -> None:
    with pytest.raises(ImportFormatError) as caught:
        from_managed_agents([{"id": "a", "type": "agent.mcp_tool_use", "name": ""}], session_id="s")
    assert caught.value.field == "[0].name"
    assert caught.value.line is None
    with pytest.raises(ImportFormatError, match="has no events"):
        from_managed_agents([], session_id="s")
    with pytest.raises(ImportFormatError, match="not plain JSON values"):
        from_managed_agents([{"type": "user.message", "at": datetime.now(UTC)}], session_id="s")


# -- the API, through the anthropic SDK, against the local fake server ------------------------------


SESSION = {
    "id": "sesn_01",
    "type": "session",
    "status": "idle",
    "title": "rotate keys",
    "environment_id": "env_1",
    "agent": {
        "id": "agent_9",
        "type": "agent",
        "name": "docent",
        "version": 3,
        "model": {"id": "claude-haiku-4-5"},
    },
    "usage": {"input_tokens": 9000, "output_tokens": 300, "cache_read_input_tokens": 2700},
    "metadata": {},
}


def _serve_events(server: FakeAnthropic, events: list[dict[str, Any]]) -> None:
    def page(request: RecordedRequest) -> Reply | dict[str, Any]:
        if request.params["id"] != "sesn_01":
            return Reply(
                status=404,
                json={"type": "error", "error": {"type": "not_found_error", "message": "no"}},
            )
        start = int(request.query.get("page") or 0)
        size = int(request.query.get("limit") or 1000)
        end = start + size
        return {"data": events[start:end], "next_page": str(end) if end < len(events) else None}

    server.add_route("GET", r"^/v1/sessions/(?P<id>[^/]+)/events$", page)
    server.add_route("GET", r"^/v1/sessions/(?P<id>[^/]+)$", lambda _r: SESSION)


def test_fetch_session_pages_through_the_events() -> None:
    events = _events()
    with FakeAnthropic() as server, httpx2.Client() as http:
        _serve_events(server, events)
        (run,) = fetch_session(
            "sesn_01", base_url=server.url, api_key="test-key", http_client=http, page_size=10
        )
        pages = [r for r in server.requests if r.path == "/v1/sessions/sesn_01/events"]
    assert [r.query.get("page") for r in pages] == [
        None,
        "10",
        "20",
        "30",
        "40",
    ]  # 41 events, 10 a page
    assert all(r.headers["anthropic-beta"] == BETA_HEADER for r in pages)
    assert _shape(run) == EXPECTED_SHAPE
    assert run.run_id == "sesn_01"
    assert (run.agent.name, run.agent.model, run.agent.version) == (
        "docent",
        "claude-haiku-4-5",
        "3",
    )
    assert run.usage.input_tokens == 9000  # the session object's cumulative usage wins
    assert run.metadata["source"] == {
        "format": "managed-agents",
        "session_id": "sesn_01",
        "pages": 5,
        "base_url": server.url,
    }
    assert run.metadata["session"]["title"] == "rotate keys"  # type: ignore[index,call-overload]


def test_fetch_session_errors() -> None:
    with FakeAnthropic() as server, httpx2.Client() as http:
        _serve_events(server, _events())
        with pytest.raises(RemoteImportError, match="HTTP 404") as caught:
            list(fetch_session("sesn_missing", base_url=server.url, api_key="k", http_client=http))
        assert "check the session id" in str(caught.value)
        errors: list[InputError] = []
        assert (
            list(
                fetch_session(
                    "sesn_missing",
                    base_url=server.url,
                    api_key="k",
                    http_client=http,
                    errors=errors,
                )
            )
            == []
        )
        assert len(errors) == 1
        server.add_route(
            "GET", r"^/v1/sessions/empty/events$", lambda _r: {"data": [], "next_page": None}
        )
        with pytest.raises(ImportFormatError, match="has no events"):
            list(fetch_session("empty", base_url=server.url, api_key="k", http_client=http))
    with pytest.raises(RemoteImportError, match="no API key"):
        list(
            fetch_session(
                "sesn_01", base_url="http://127.0.0.1:9", api_key="", include_session=False
            )
        )


# -- the CLI ---------------------------------------------------------------------------------------


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    import pathjudge.cli  # noqa: F401  (registers the commands)
    from pathjudge._cli.app import main

    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_imports_a_file_and_a_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "runs.jsonl"
    code, stdout, stderr = _cli(
        [
            "import",
            "--from",
            "managed-agents",
            str(FULL_SSE),
            "-o",
            str(out),
            "--task-id",
            "rotate",
        ],
        capsys,
    )
    assert (code, stderr) == (0, "")
    assert "6 tool calls" in stdout
    (run,) = read_runs(out)
    assert run.task_id == "rotate"
    assert _shape(run) == EXPECTED_SHAPE

    with FakeAnthropic() as server:
        _serve_events(server, _events())
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        code, stdout, stderr = _cli(
            ["import", "--from", "managed-agents", "--session", "sesn_01", "-o", str(out)], capsys
        )
        assert (code, stderr) == (0, "")
        (run,) = read_runs(out)
        assert run.run_id == "sesn_01"
        assert run.agent.model == "claude-haiku-4-5"
        code, _, stderr = _cli(
            ["import", "--from", "managed-agents", "--session", "sesn_zzz", "-o", str(out)], capsys
        )
        assert code == 2
        assert "HTTP 404" in stderr
        assert "Traceback" not in stderr

    bad = _write(tmp_path, "bad.json", '[\n{"id": "a", "type": "agent.tool_use", "input": {}}\n]')
    code, _, stderr = _cli(["import", "--from", "managed-agents", str(bad), "-o", str(out)], capsys)
    assert code == 2
    assert f"{bad}:2:" in stderr
    assert "[0].name" in stderr
