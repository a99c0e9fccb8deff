"""The lean client's own request path (issue 14, point 8): the first call is posted through the SDK
client's httpx2 client with the SDK's headers and a body built once per criterion. It must put on the
wire exactly what ``messages.create`` puts there, and fail exactly as the SDK path fails."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pathjudge.errors import JudgeError
from pathjudge.judge.backends.anthropic import (
    _TOOL_CHOICE,
    AnthropicJudgeBackend,
    _verdict_tool,
)
from pathjudge.judge.backends.base import BackendCallError, TransientError
from pathjudge.judge.prompt import render_prompt
from pathjudge.judge.runner import JudgeJob
from pathjudge.rubrics.criteria import get_criterion
from tests.fakes.anthropic_server import (
    FakeAnthropic,
    RecordedRequest,
    Reply,
    hang,
    overloaded,
    rate_limited,
    server_error,
)

from .conftest import SECRET, jobs_for, judge_run

MESSAGES = "/v1/messages"


def _prompt(answer: str = "600 requests per minute") -> Any:
    return render_prompt(
        get_criterion("answer-correct"),
        {
            "question": 'How many requests — per minute? \u2028 \U0001f600 "quoted" \\ </data>',
            "answer": answer,
            "reference": "The Pro plan allows 600 requests per minute.",
        },
    )


async def _sdk_call(backend: AnthropicJudgeBackend, prompt: Any, timeout: float | None) -> None:
    """What the lean call replaces: the SDK's own ``messages.create`` with the same parameters."""
    kwargs: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
    await backend.client.messages.create(
        model=backend.model,
        max_tokens=backend.max_tokens,
        system=backend.system_blocks(prompt),
        messages=[{"role": "user", "content": prompt.user}],
        tools=[_verdict_tool()],
        tool_choice=_TOOL_CHOICE,
        **kwargs,
    )


@pytest.mark.parametrize("timeout", [120.0, 7.5, None])
def test_the_lean_call_sends_the_bytes_and_headers_messages_create_sends(
    server: FakeAnthropic, timeout: float | None
) -> None:
    async def main() -> tuple[RecordedRequest, RecordedRequest]:
        backend = AnthropicJudgeBackend(base_url=server.url, max_connections=4)
        try:
            prompt = _prompt()
            await backend.judge(prompt, timeout=timeout)
            assert backend._wires[0] is not None, "the lean call must take its own path"
            await _sdk_call(backend, prompt, timeout)
        finally:
            await backend.aclose()
        return server.requests[0], server.requests[1]

    lean, sdk = asyncio.run(main())
    assert (lean.method, lean.path) == (sdk.method, sdk.path) == ("POST", MESSAGES)
    assert lean.body == sdk.body  # same keys, order, encoding (non-ASCII kept, compact)
    assert lean.headers == sdk.headers
    assert lean.headers["authorization"] == f"Bearer {SECRET}"
    assert lean.headers["anthropic-version"]
    assert lean.headers["content-type"] == "application/json"
    assert "x-stainless-raw-response" not in lean.headers


def test_the_constant_body_tail_is_per_criterion_and_users_are_not_mixed_up(
    server: FakeAnthropic,
) -> None:
    grounded = get_criterion("answer-grounded")
    jobs = jobs_for(3) + [
        JudgeJob(f"other-{i}", grounded, {"question": "q", "retrieved": f"r{i}", "answer": "a"})
        for i in range(2)
    ]
    run = judge_run(server, jobs)
    assert len(run.results) == 5
    seen = {}
    for request in server.requests:
        body = request.json
        seen[body["messages"][0]["content"]] = body["system"][0]["text"]
        assert body["tools"] == [_verdict_tool()]
        assert body["tool_choice"] == _TOOL_CHOICE
    assert len(seen) == 5
    assert len(set(seen.values())) == 2


FAULTS = {
    "429": lambda: rate_limited(0.25),
    "429-ms": lambda: Reply(
        status=429,
        json={"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}},
        headers={"retry-after-ms": "1500"},
    ),
    "529": overloaded,
    "500": server_error,
    "503": lambda: server_error(503),
    "408": lambda: server_error(408),
    "400": lambda: Reply(
        status=400,
        json={
            "type": "error",
            "error": {"type": "invalid_request_error", "message": f"bad field; key {SECRET}"},
        },
    ),
    "404": lambda: Reply(status=404, body=b"<html>not found</html>", content_type="text/html"),
    "413": lambda: Reply(status=413, json={"type": "error"}),
    "401": lambda: Reply(
        status=401,
        json={"type": "error", "error": {"type": "authentication_error", "message": "no"}},
    ),
    "403": lambda: Reply(status=403, json={}),
    "dropped": lambda: Reply(close=True),
    "timeout": lambda: hang(5.0),
}


def _outcome(error: BaseException) -> tuple[Any, ...]:
    if isinstance(error, BackendCallError):
        return (
            type(error).__name__,
            error.failure_type,
            error.message,
            getattr(error, "retry_after", None),
            getattr(error, "throttle", None),
        )
    assert isinstance(error, JudgeError)
    return (type(error).__name__, str(error))


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_every_failure_maps_as_the_sdk_path_maps_it(server: FakeAnthropic, fault: str) -> None:
    """One classifier for both paths: the same answer gives the same error, word for word."""

    async def once(lean_wire: bool) -> BaseException:
        server.script(FAULTS[fault]())
        backend = AnthropicJudgeBackend(base_url=server.url, max_connections=1, reasks=0)
        if not lean_wire:
            backend._wires = [None]
        try:
            await backend.judge(_prompt(), timeout=0.5 if fault == "timeout" else 30.0)
        except (BackendCallError, JudgeError) as error:
            return error
        finally:
            await backend.aclose()
        raise AssertionError("the fault did not fail the call")

    wire, sdk = asyncio.run(once(True)), asyncio.run(once(False))
    assert _outcome(wire) == _outcome(sdk)
    assert SECRET not in repr(_outcome(wire))
    if fault.startswith("429"):
        assert isinstance(wire, TransientError)
        assert wire.throttle
        assert wire.retry_after == (1.5 if fault == "429-ms" else 0.25)


def test_rate_limit_headers_of_lean_calls_reach_the_runner(server: FakeAnthropic) -> None:
    seen: list[dict[str, str]] = []

    async def main() -> None:
        backend = AnthropicJudgeBackend(base_url=server.url, max_connections=2)
        backend.on_headers = lambda headers: seen.append(dict(headers))
        try:
            await backend.judge(_prompt(), timeout=30.0)
        finally:
            await backend.aclose()

    asyncio.run(main())
    assert len(seen) == 1
    assert seen[0]["content-type"].startswith("application/json")


def test_a_client_with_spans_or_request_auth_keeps_the_sdk_path(
    server: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the SDK would do more than send the request (an OpenTelemetry span, a credentials
    provider signing each request, middleware), the lean call goes through ``messages.create``."""
    from pathjudge.judge.backends import anthropic as module

    monkeypatch.setattr(module._Wire, "untraced", lambda self: False)
    run = judge_run(server, jobs_for(2))
    assert len(run.results) == 2
    # the SDK's raw-response call marks its requests; the lean path's own requests do not
    assert all(r.headers.get("x-stainless-raw-response") == "raw" for r in server.requests)

    class Signed:
        custom_auth = object()
        _middleware = ()

    assert not module._Wire.usable(Signed())
    assert not module._Wire.usable(object())


def test_cookies_a_server_sets_are_sent_back_as_the_sdk_sends_them(server: FakeAnthropic) -> None:
    from tests.fakes.anthropic_server import forced_tool_policy

    answer = forced_tool_policy(lambda _r: {"reasoning": "r", "evidence": [], "verdict": "pass"})

    def policy(request: RecordedRequest) -> Reply:
        reply = answer(request)
        return Reply(json=reply, headers={"set-cookie": "lb=node-7; Path=/"})

    server.policy = policy

    async def main() -> None:
        backend = AnthropicJudgeBackend(base_url=server.url, max_connections=1)
        try:
            prompt = _prompt()
            await backend.judge(prompt, timeout=30.0)  # sets the cookie
            await backend.judge(prompt, timeout=30.0)
            await _sdk_call(backend, prompt, 30.0)
        finally:
            await backend.aclose()

    asyncio.run(main())
    first, lean, sdk = server.requests
    assert "cookie" not in first.headers
    assert lean.headers["cookie"] == "lb=node-7"
    assert lean.headers == sdk.headers
    assert lean.body == sdk.body


def test_a_spent_limit_is_seen_in_httpx_headers_and_any_header_case() -> None:
    import httpx2

    from pathjudge.judge.backends.base import ratelimit_pause

    reset = "2030-01-01T00:00:10Z"
    now = 1893456000.0  # 2030-01-01T00:00:00Z
    for headers in (
        httpx2.Headers(
            {
                "Anthropic-RateLimit-Requests-Remaining": "0",
                "Anthropic-RateLimit-Requests-Reset": reset,
            }
        ),
        {"ANTHROPIC-RATELIMIT-TOKENS-REMAINING": " 0 ", "anthropic-ratelimit-tokens-reset": reset},
    ):
        assert ratelimit_pause(headers, now=now) == pytest.approx(10.0)
    assert ratelimit_pause({"anthropic-ratelimit-requests-remaining": "3"}, now=now) is None
    assert ratelimit_pause(httpx2.Headers({"content-type": "application/json"})) is None


def test_a_real_tracer_provider_sends_calls_through_the_sdk(
    server: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SDK makes a span per call once a tracer provider is installed (at any time)."""
    pytest.importorskip("opentelemetry")
    from pathjudge.judge.backends import anthropic as module

    async def main() -> tuple[bool, bool]:
        backend = AnthropicJudgeBackend(base_url=server.url, max_connections=1)
        try:
            wire = backend._wires[0]
            assert wire is not None
            quiet = wire.untraced()
            monkeypatch.setattr(module, "_global_tracer_provider", lambda: object())
            traced = not wire.untraced()
            await backend.judge(_prompt(), timeout=30.0)
        finally:
            await backend.aclose()
        return quiet, traced

    quiet, traced = asyncio.run(main())
    assert quiet  # no provider installed here: OpenTelemetry's proxy makes no spans
    assert traced
    assert server.requests[-1].headers.get("x-stainless-raw-response") == "raw"
