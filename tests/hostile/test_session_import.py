"""Issue 13 item 9: ``import --session`` against a bad server stops, with one clear error."""

from __future__ import annotations

import time

import httpx2
import pytest

from pathjudge.agent.importers.managed_agents import fetch_session
from pathjudge.errors import RemoteImportError
from tests.fakes.anthropic_server import FakeAnthropic, RecordedRequest, Reply

EVENT = {"type": "user.message", "id": "e1", "content": [{"type": "text", "text": "hi"}]}


def test_a_repeating_events_cursor_is_an_error_not_an_endless_loop() -> None:
    served = []

    def page(request: RecordedRequest) -> dict[str, object]:
        # a -> b -> a -> b ...: the old code followed it for ever (31k requests in 30 s); this
        # server gives up after 50 pages so that such code fails this test instead of hanging it
        served.append(1)
        cursor = "b" if request.query.get("page") == "a" else "a"
        return {"data": [EVENT], "next_page": cursor if len(served) < 50 else None}

    with FakeAnthropic() as server, httpx2.Client() as http:
        server.add_route("GET", r"^/v1/sessions/s/events$", page)
        with pytest.raises(RemoteImportError, match="a second time"):
            list(fetch_session("s", base_url=server.url, api_key="k", http_client=http))
        assert len(server.requests) < 5


def test_a_200_reply_that_is_not_json_is_a_remote_import_error() -> None:
    with FakeAnthropic() as server, httpx2.Client() as http:
        server.add_route(
            "GET",
            r"^/v1/sessions/s/events$",
            lambda _r: Reply(body=b"<html>proxy login</html>", content_type="application/json"),
        )
        with pytest.raises(RemoteImportError, match="not valid JSON"):
            list(fetch_session("s", base_url=server.url, api_key="k", http_client=http))


def test_the_request_timeout_and_the_total_deadline_bound_a_slow_server() -> None:
    def slow(request: RecordedRequest) -> Reply:
        page = int(request.query.get("page") or 0)
        return Reply(json={"data": [EVENT], "next_page": str(page + 1)}, delay=0.3)

    with FakeAnthropic() as server, httpx2.Client() as http:
        server.add_route("GET", r"^/v1/sessions/s/events$", slow)
        started = time.monotonic()
        with pytest.raises(RemoteImportError, match="deadline"):
            list(
                fetch_session(
                    "s",
                    base_url=server.url,
                    api_key="k",
                    http_client=http,
                    deadline=1.0,
                    max_retries=0,
                )
            )
        assert time.monotonic() - started < 30  # bounded (generous: a loaded CI machine)
        server.add_route(
            "GET", r"^/v1/sessions/h/events$", lambda _r: Reply(json={"data": []}, hang=30)
        )
        started = time.monotonic()
        with pytest.raises(RemoteImportError):
            list(
                fetch_session(
                    "h",
                    base_url=server.url,
                    api_key="k",
                    http_client=http,
                    timeout=0.5,
                    max_retries=0,
                )
            )
        assert time.monotonic() - started < 25


def test_cli_session_flags_reject_non_finite_values(tmp_path: object) -> None:
    import pathjudge.cli  # noqa: F401
    from pathjudge._cli.app import main

    assert (
        main(
            [
                "import",
                "--from",
                "managed-agents",
                "--session",
                "s",
                "-o",
                "x.jsonl",
                "--timeout",
                "nan",
            ]
        )
        == 2
    )


def test_a_redirect_to_another_host_is_refused_with_one_clear_error() -> None:
    # two local servers are two origins (same host, other port): the API server redirects the
    # events request to the other one, which must never be asked for anything
    with FakeAnthropic() as api, FakeAnthropic() as elsewhere:
        elsewhere.add_route("GET", r"^/v1/sessions/s/events$", lambda _r: {"data": [EVENT]})
        api.add_route(
            "GET",
            r"^/v1/sessions/s/events$",
            lambda _r: Reply(
                status=302, headers={"location": f"{elsewhere.url}/v1/sessions/s/events"}
            ),
        )
        with pytest.raises(RemoteImportError, match="redirect to another host") as caught:
            list(fetch_session("s", base_url=api.url, api_key="sk-secret-key"))
        assert elsewhere.requests == []
        assert len(api.requests) == 1  # refused, not retried
        assert "sk-secret-key" not in str(caught.value)


def test_a_redirect_on_the_same_host_is_followed() -> None:
    with FakeAnthropic() as api:
        api.add_route("GET", r"^/v1/sessions/s/events2$", lambda _r: {"data": [EVENT]})
        api.add_route(
            "GET",
            r"^/v1/sessions/s/events$",
            lambda _r: Reply(status=307, headers={"location": "/v1/sessions/s/events2"}),
        )
        (run,) = fetch_session("s", base_url=api.url, api_key="k", include_session=False)
        assert run.run_id == "s"
