"""The agent loop against the local fake Anthropic server: scripted policies give exact trajectories."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2
import pytest

from pathjudge.agent.backends import (
    AnthropicModelBackend,
    ModelRequest,
    ModelTurn,
    OpenAIModelBackend,
    ScriptedBackend,
    ToolCall,
)
from pathjudge.agent.docent import SYSTEM_PROMPT, docent_tools, run_docent
from pathjudge.agent.loop import Tool, run_agent
from pathjudge.agent.trajectory import RunRecord
from pathjudge.errors import AgentError
from tests.fakes.anthropic_server import (
    FakeAnthropic,
    RecordedRequest,
    message,
    overloaded,
    text,
    tool_use,
)

QUESTION = "What HTTP status code does Meridian return when you exceed the rate limit?"
OOS = "Does Meridian support MongoDB-style aggregation pipelines?"


def tool_results(request: RecordedRequest) -> list[dict[str, Any]]:
    """Every tool_result block the client sent so far, in order."""
    out = []
    for msg in request.json["messages"]:
        if msg["role"] == "user" and isinstance(msg["content"], list):
            out.extend(b for b in msg["content"] if b.get("type") == "tool_result")
    return out


def run_against(server: FakeAnthropic, question: str, task_id: str, **kwargs: Any) -> RunRecord:
    async def go() -> RunRecord:
        backend = AnthropicModelBackend(
            "claude-haiku-4-5", base_url=server.url, api_key="test-key", max_retries=0
        )
        try:
            return await run_docent(backend, task_id=task_id, question=question, **kwargs)
        finally:
            await backend.aclose()

    return asyncio.run(go())


def shape(run: RunRecord) -> list[tuple[Any, ...]]:
    """The deterministic part of each step (latency is wall-clock and left out)."""
    return [
        (
            s.turn,
            s.call_id,
            s.decision,
            s.tool,
            s.arguments,
            [h["id"] for h in s.result] if isinstance(s.result, list) else s.result,
            s.is_error,
            s.state,
        )
        for s in run.steps
    ]


def test_one_clean_search() -> None:
    def policy(request: RecordedRequest) -> dict[str, Any]:
        if not tool_results(request):
            return message(
                [
                    text("Let me search."),
                    tool_use("search_docs", {"query": "rate limit status code"}, id="t1"),
                ]
            )
        return message([text("Meridian returns HTTP 429 when you exceed the rate limit.")])

    with FakeAnthropic(policy) as server:
        run = run_against(server, QUESTION, "rate-429")
        sent = server.requests
    assert shape(run) == [
        (
            0,
            "t1",
            "Let me search.",
            "search_docs",
            {"query": "rate limit status code"},
            ["errors", "ratelimits"],
            False,
            {"retries": 0},
        ),
    ]
    assert run.final_answer == "Meridian returns HTTP 429 when you exceed the rate limit."
    assert run.stop_reason == "end_turn"
    assert (run.run_id, run.task_id, run.epoch, run.input) == (
        "rate-429@0",
        "rate-429",
        0,
        QUESTION,
    )
    assert (run.agent.name, run.agent.model, run.agent.backend) == (
        "docent",
        "claude-haiku-4-5",
        "anthropic",
    )
    # two model calls × the fake's default usage (100 in, 20 out)
    assert (run.usage.input_tokens, run.usage.output_tokens) == (200, 40)
    assert [c["turn"] for c in run.metadata["model_calls"]] == [0, 1]  # type: ignore[union-attr,index]
    assert run.metadata["docent_variant"] == "standard"
    # what went over the wire: system prompt, the tool, then the tool result fed back
    assert len(sent) == 2
    first = sent[0].json
    assert first["system"] == SYSTEM_PROMPT
    assert [t["name"] for t in first["tools"]] == ["search_docs"]
    assert first["messages"] == [{"role": "user", "content": QUESTION}]
    result_block = tool_results(sent[1])[0]
    assert result_block["tool_use_id"] == "t1"
    assert result_block["is_error"] is False
    assert [h["id"] for h in json.loads(result_block["content"])] == ["errors", "ratelimits"]
    assert (
        sent[0].headers["authorization"] == "Bearer test-key"
        or sent[0].headers.get("x-api-key") == "test-key"
    )


def test_three_searches_then_a_refusal() -> None:
    queries = [
        "MongoDB aggregation pipelines",
        "aggregation pipeline query",
        "Meridian query capabilities features",
    ]

    def policy(request: RecordedRequest) -> dict[str, Any]:
        done = len(tool_results(request))
        if done < 3:
            return message([tool_use("search_docs", {"query": queries[done]}, id=f"s{done}")])
        return message([text("I don't have that in the docs.")])

    with FakeAnthropic(policy) as server:
        run = run_against(server, OOS, "oos-mongo")
        calls = server.count("POST", "/v1/messages")
    assert calls == 4
    assert shape(run) == [
        (
            0,
            "s0",
            None,
            "search_docs",
            {"query": queries[0]},
            ["auth", "ratelimits"],
            False,
            {"retries": 0},
        ),
        (
            1,
            "s1",
            None,
            "search_docs",
            {"query": queries[1]},
            ["auth", "ratelimits"],
            False,
            {"retries": 0},
        ),
        (
            2,
            "s2",
            None,
            "search_docs",
            {"query": queries[2]},
            ["auth", "plans"],
            False,
            {"retries": 0},
        ),
    ]
    assert run.final_answer == "I don't have that in the docs."
    assert run.stop_reason == "end_turn"
    assert run.usage.input_tokens == 400


def test_a_tool_error_then_a_retry() -> None:
    def policy(request: RecordedRequest) -> dict[str, Any]:
        results = tool_results(request)
        if not results:
            return message(
                [tool_use("search_docs", {"query": "backups retained pro plan"}, id="a")]
            )
        if results[-1]["is_error"]:
            return message(
                [
                    text("The search failed; retrying."),
                    tool_use("search_docs", {"query": "backups retained pro plan"}, id="b"),
                ]
            )
        return message([text("Backups are kept for 30 days on Pro.")])

    with FakeAnthropic(policy) as server:
        run = run_against(
            server, "How long are backups retained on the Pro plan?", "trap-flaky-search"
        )
        error_block = tool_results(server.requests[1])[0]
    assert run.metadata["docent_variant"] == "flaky_search"
    error_text = "SearchUnavailableError: the docs search backend timed out; try the search again"
    assert shape(run) == [
        (
            0,
            "a",
            None,
            "search_docs",
            {"query": "backups retained pro plan"},
            error_text,
            True,
            {"retries": 0},
        ),
        (
            1,
            "b",
            "The search failed; retrying.",
            "search_docs",
            {"query": "backups retained pro plan"},
            ["backups", "ratelimits"],
            False,
            {"retries": 1},
        ),
    ]
    assert (error_block["is_error"], error_block["content"]) == (True, error_text)
    assert run.final_answer == "Backups are kept for 30 days on Pro."
    assert run.error_count == 1


def test_step_limit_stops_with_max_steps() -> None:
    def policy(request: RecordedRequest) -> dict[str, Any]:
        n = len(tool_results(request))
        return message([tool_use("search_docs", {"query": f"attempt {n}"}, id=f"x{n}")])

    with FakeAnthropic(policy) as server:
        run = run_against(server, OOS, "oos-mongo", max_steps=2)
        assert server.count("POST", "/v1/messages") == 2
    assert run.stop_reason == "max_steps"
    assert run.final_answer is None
    assert [s.call_id for s in run.steps] == ["x0", "x1"]


def test_parallel_calls_share_a_turn_and_unknown_tools_are_errors() -> None:
    def policy(request: RecordedRequest) -> dict[str, Any]:
        if not tool_results(request):
            return message(
                [
                    text("Two at once."),
                    tool_use("search_docs", {"query": "rate limit"}, id="p1"),
                    tool_use("lookup", {"id": 3}, id="p2"),
                ]
            )
        return message([text("done")])

    with FakeAnthropic(policy) as server:
        run = run_against(server, QUESTION, "rate-429")
    assert [(s.turn, s.tool, s.is_error, s.decision) for s in run.steps] == [
        (0, "search_docs", False, "Two at once."),
        (0, "lookup", True, None),
    ]
    assert run.steps[1].result == "UnknownTool: no tool named 'lookup'; available: search_docs"
    assert len(list(run.turns())) == 1


def test_backend_failure_is_an_agent_error() -> None:
    with (
        FakeAnthropic(lambda _r: overloaded()) as server,
        pytest.raises(AgentError, match="HTTP 529"),
    ):
        run_against(server, QUESTION, "rate-429")


def test_missing_api_key_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(AgentError, match="ANTHROPIC_API_KEY"):
        AnthropicModelBackend("claude-haiku-4-5")


def test_openai_compatible_backend_round_trip() -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        seen.append(body)
        if not any(m["role"] == "tool" for m in body["messages"]):
            msg = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {
                            "name": "search_docs",
                            "arguments": '{"query": "pro plan cost"}',
                        },
                    },
                    {
                        "id": "c2",
                        "type": "function",
                        "function": {"name": "search_docs", "arguments": '{"query": '},
                    },
                ],
            }
            finish = "tool_calls"
        else:
            msg = {"role": "assistant", "content": "Pro costs 25 dollars per month."}
            finish = "stop"
        return httpx2.Response(
            200,
            json={
                "choices": [{"index": 0, "message": msg, "finish_reason": finish}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 7},
            },
        )

    async def go() -> RunRecord:
        client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
        backend = OpenAIModelBackend(
            "smollm2", base_url="http://llm.test/v1", api_key="", http_client=client
        )
        try:
            return await run_agent(
                backend,
                task_id="pro-cost",
                question="How much does Pro cost?",
                tools=docent_tools(),
                system="sys",
            )
        finally:
            await backend.aclose()

    run = asyncio.run(go())
    assert [
        (s.call_id, s.arguments, s.is_error, s.arguments_error is not None) for s in run.steps
    ] == [
        ("c1", {"query": "pro plan cost"}, False, False),
        ("c2", {}, True, True),
    ]
    assert run.steps[1].raw_arguments == '{"query": '
    assert str(run.steps[1].result).startswith("ArgumentsError: invalid JSON")
    assert run.final_answer == "Pro costs 25 dollars per month."
    assert (run.usage.input_tokens, run.usage.output_tokens, run.agent.backend) == (
        100,
        14,
        "openai",
    )
    first, second = seen
    assert first["messages"][0] == {"role": "system", "content": "sys"}
    assert first["tools"][0]["function"]["name"] == "search_docs"
    assert first["tool_choice"] == "auto"
    # the malformed call goes back verbatim, and each result is a role=tool message
    assert second["messages"][2]["tool_calls"][1]["function"]["arguments"] == '{"query": '
    assert [m["tool_call_id"] for m in second["messages"] if m["role"] == "tool"] == ["c1", "c2"]


def test_scripted_backend_sync_and_async_policies() -> None:
    async def async_policy(request: ModelRequest) -> ModelTurn:
        return ModelTurn(text="async answer")

    def sync_policy(request: ModelRequest) -> ModelTurn:
        if len(request.messages) == 1:
            return ModelTurn(tool_calls=(ToolCall(id="k", name="echo", arguments={"x": 1}),))
        return ModelTurn(text="sync answer")

    async def echo(x: int) -> dict[str, int]:
        return {"x": x}

    tools = [
        Tool.define(echo, input_schema={"type": "object", "properties": {"x": {"type": "integer"}}})
    ]
    run = asyncio.run(
        run_agent(ScriptedBackend(sync_policy), task_id="t", question="q", tools=tools, system="s")
    )
    assert [(s.tool, s.result) for s in run.steps] == [("echo", {"x": 1})]
    assert run.final_answer == "sync answer"
    run2 = asyncio.run(
        run_agent(ScriptedBackend(async_policy), task_id="t", question="q", tools=tools, system="s")
    )
    assert (run2.steps, run2.final_answer) == ((), "async answer")
    bad = ScriptedBackend(lambda _r: "nope")  # type: ignore[arg-type,return-value]
    with pytest.raises(AgentError, match="not a ModelTurn"):
        asyncio.run(run_agent(bad, task_id="t", question="q", tools=tools, system="s"))


def test_zero_steps_makes_no_model_call() -> None:
    backend = ScriptedBackend(lambda _r: ModelTurn(text="x"))
    run = asyncio.run(
        run_agent(backend, task_id="t", question="q", tools=(), system="s", max_steps=0)
    )
    assert (backend.calls, run.stop_reason, run.final_answer, run.steps) == (
        0,
        "max_steps",
        None,
        (),
    )


def test_openai_backend_retries_5xx_then_gives_up() -> None:
    statuses = [503, 429, 200]
    calls = 0

    def handler(request: httpx2.Request) -> httpx2.Response:
        nonlocal calls
        status = statuses[min(calls, len(statuses) - 1)]
        calls += 1
        if status != 200:
            return httpx2.Response(status, json={"error": "busy"})
        return httpx2.Response(
            200,
            json={
                "choices": [
                    {"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
                ]
            },
        )

    def run_with(max_retries: int) -> RunRecord:
        async def go() -> RunRecord:
            client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
            backend = OpenAIModelBackend(
                "m",
                base_url="http://llm.test/v1",
                api_key="k",
                http_client=client,
                max_retries=max_retries,
                backoff_s=0,
            )
            try:
                return await run_agent(backend, task_id="t", question="q", tools=(), system="s")
            finally:
                await backend.aclose()

        return asyncio.run(go())

    assert run_with(2).final_answer == "ok"
    assert calls == 3
    calls = 0
    with pytest.raises(AgentError, match="answered HTTP 429 after 2 attempts"):
        run_with(1)
    statuses[:] = [401]
    calls = 0
    with pytest.raises(AgentError, match="HTTP 401"):
        run_with(3)
    assert calls == 1  # a 4xx other than 429 is not retried
