"""The fake Anthropic server itself: routes, scripting precedence, faults, batches, counters."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from tests.fakes.anthropic_server import (
    FakeAnthropic,
    RecordedRequest,
    Reply,
    forced_tool_policy,
    hang,
    message,
    rate_limited,
    text,
)


def call(
    server: FakeAnthropic, method: str, path: str, body: Any = None, timeout: float = 5.0
) -> tuple[int, dict[str, str], bytes]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        server.url + path,
        data=data,
        method=method,
        headers={"content-type": "application/json", "x-test": "1"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_script_queue_then_policy_then_500(fake_anthropic: FakeAnthropic) -> None:
    status, _, body = call(fake_anthropic, "POST", "/v1/messages", {"messages": []})
    assert status == 500
    assert b"no reply scripted" in body
    fake_anthropic.policy = lambda _r: message([text("from policy")])
    fake_anthropic.script(message([text("scripted")]))
    first = json.loads(call(fake_anthropic, "POST", "/v1/messages", {"messages": []})[2])
    second = json.loads(call(fake_anthropic, "POST", "/v1/messages", {"messages": []})[2])
    assert first["content"][0]["text"] == "scripted"
    assert second["content"][0]["text"] == "from policy"
    assert fake_anthropic.count("POST", "/v1/messages") == 3
    assert fake_anthropic.requests[1].headers["x-test"] == "1"
    assert fake_anthropic.requests[1].json == {"messages": []}


def test_forced_tool_policy_answers_with_the_forced_tool(fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.policy = forced_tool_policy(lambda r: {"echo": len(r.json["messages"])})
    body = {
        "model": "claude-x",
        "tool_choice": {"type": "tool", "name": "Grade"},
        "messages": [{}, {}],
    }
    reply = json.loads(call(fake_anthropic, "POST", "/v1/messages", body)[2])
    assert reply["content"][0]["name"] == "Grade"
    assert reply["content"][0]["input"] == {"echo": 2}
    assert reply["stop_reason"] == "tool_use"
    assert reply["model"] == "claude-x"


def test_faults_status_and_headers(fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.script(
        rate_limited(2.5, headers={"anthropic-ratelimit-requests-remaining": "0"})
    )
    status, headers, body = call(fake_anthropic, "POST", "/v1/messages", {})
    assert status == 429
    lowered = {k.lower(): v for k, v in headers.items()}
    assert lowered["retry-after"] == "2.5"
    assert lowered["anthropic-ratelimit-requests-remaining"] == "0"
    assert json.loads(body)["error"]["type"] == "rate_limit_error"
    fake_anthropic.script(hang(2.0))
    with pytest.raises((TimeoutError, urllib.error.URLError)):
        call(fake_anthropic, "POST", "/v1/messages", {}, timeout=0.2)


def test_extra_routes_with_params_take_precedence(fake_anthropic: FakeAnthropic) -> None:
    def events(request: RecordedRequest) -> dict[str, Any]:
        return {"session": request.params["id"], "data": [{"type": "agent.tool_use"}]}

    fake_anthropic.add_route("GET", r"^/v1/sessions/(?P<id>[^/]+)/events$", events)
    status, _, body = call(fake_anthropic, "GET", "/v1/sessions/sess_42/events")
    assert status == 200
    assert json.loads(body)["session"] == "sess_42"
    fake_anthropic.add_route(
        "POST", r"^/v1/messages$", lambda _r: Reply(status=418, json={"teapot": True})
    )
    assert call(fake_anthropic, "POST", "/v1/messages", {})[0] == 418
    assert call(fake_anthropic, "GET", "/nope")[0] == 404
    counters = json.loads(call(fake_anthropic, "GET", "/_fake/counters")[2])
    assert counters[r"^/v1/sessions/(?P<id>[^/]+)/events$"] == 1
    assert counters.get("POST /v1/messages", 0) == 0
    assert counters["GET /nope"] == 1


def test_batches_lifecycle(fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.policy = lambda _r: message([text("ok")])
    fake_anthropic.batch_polls = 2
    created = json.loads(
        call(
            fake_anthropic,
            "POST",
            "/v1/messages/batches",
            {"requests": [{"custom_id": "a", "params": {}}]},
        )[2]
    )
    path = f"/v1/messages/batches/{created['id']}"
    assert call(fake_anthropic, "GET", path + "/results")[0] == 404
    assert json.loads(call(fake_anthropic, "GET", path)[2])["processing_status"] == "in_progress"
    ended = json.loads(call(fake_anthropic, "GET", path)[2])
    assert ended["processing_status"] == "ended"
    assert ended["request_counts"]["succeeded"] == 1
    lines = call(fake_anthropic, "GET", path + "/results")[2].decode().splitlines()
    assert json.loads(lines[0])["custom_id"] == "a"
    assert json.loads(lines[0])["result"]["type"] == "succeeded"


def test_policy_exception_is_a_visible_500(fake_anthropic: FakeAnthropic) -> None:
    def broken(_r: RecordedRequest) -> dict[str, Any]:
        raise KeyError("oops")

    fake_anthropic.policy = broken
    status, _, body = call(fake_anthropic, "POST", "/v1/messages", {})
    assert status == 500
    assert b"KeyError" in body
