"""A real HTTP server on 127.0.0.1 that speaks enough of the Anthropic API to test clients against.

It is an asyncio HTTP/1.1 server (keep-alive, many concurrent connections cheaply) running in a background
thread, so tests point an SDK's ``base_url`` at it and exercise the real network path.

Stable API (other test suites rely on it)::

    from tests.fakes.anthropic_server import FakeAnthropic, forced_tool_policy, message, tool_use

    with FakeAnthropic(policy=my_policy, latency=0.0) as server:   # or server.start() / server.stop()
        client = AsyncAnthropic(api_key="k", base_url=server.url, http_client=httpx2.AsyncClient())
        ...
        server.requests            # list[RecordedRequest]: method, path, query, headers (lower-case), body, json
        server.count("POST", "/v1/messages")   # requests received for a method + exact path
        server.counters            # collections.Counter keyed "METHOD /path/template"
        server.peak_in_flight      # most requests being answered at the same time

A pytest fixture ``fake_anthropic`` (a started server with no policy, stopped after the test) is defined
here; import it into a test module or conftest to use it.

Replies for ``POST /v1/messages`` come, in order of precedence, from:

1. the script queue: ``server.script(reply, reply, ...)`` — each entry is used once, FIFO;
2. ``server.policy``: a callable ``policy(request: RecordedRequest) -> Reply | dict``; a dict is a 200 JSON
   body (a Messages API response). ``request.json`` is the parsed request body, so an agent-loop policy
   can look at ``request.json["messages"]`` and answer with tool_use blocks or a final text turn.

With neither, the server answers 500 with ``"no reply scripted"``. Anything a policy or script returns may
be a :class:`Reply` to control status, headers, latency and faults:

- ``rate_limited(retry_after=1.0)`` → 429 with ``retry-after`` (and optional ``anthropic-ratelimit-*``)
- ``overloaded()`` → 529, ``server_error()`` → 500
- ``hang(seconds)`` → no answer for ``seconds`` (or until the server stops): a client timeout
- ``Reply(close=True)`` → the connection is dropped without an answer
- ``message([...], stop_reason="max_tokens")`` → truncation; ``tool_use(name, {"bad": 1})`` → invalid input
- ``raw(b"HTTP/1.1 200 OK\\r\\n...")`` → bytes written verbatim (malformed framing), then a close
- ``gzip_bomb(size)`` → a 200 whose gzip body inflates to ``size`` bytes

``rate_limits=RateLimits(requests=50, tokens=40_000)`` answers as a rate-limited API does (token
buckets, 429 with ``retry-after``, ``anthropic-ratelimit-*`` headers on every answer; ``server.throttled``
counts the 429s, ``server.tokens_served`` the tokens answered). ``jitter`` adds a uniform random delay
of up to that many seconds (``seed``) to ``latency``.
``tls`` (a server-side ``ssl.SSLContext``) serves HTTPS instead (``server.url`` starts with https).
``latency`` (seconds) delays every ``/v1/messages`` answer; a :class:`Reply` adds its own ``delay``.
There is no streaming: a request with ``"stream": true`` gets the same plain JSON answer.

Message Batches: ``POST /v1/messages/batches`` stores the batch (each request answered by the same
script/policy, with the request's ``params`` as ``json`` and ``batch_custom_id`` set), ``GET
/v1/messages/batches/{id}`` reports ``in_progress`` for ``batch_polls`` polls and then ``ended``, and ``GET
/v1/messages/batches/{id}/results`` streams the JSONL results (``succeeded`` or ``errored`` for fault
replies).

Extra routes: ``server.add_route("GET", r"^/v1/sessions/(?P<id>[^/]+)/events$", handler)`` where
``handler(request) -> Reply | dict | list`` (``request.params`` holds the regex groups). Routes added later
take precedence over built-in ones. ``GET /_fake/counters`` returns the counters as JSON (useful when the
server runs in another process: ``python -m tests.fakes.anthropic_server --latency 0.1``).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import itertools
import json
import math
import random
import re
import ssl
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

__all__ = [
    "FakeAnthropic",
    "RateLimits",
    "RecordedRequest",
    "Reply",
    "Route",
    "fake_anthropic",
    "forced_tool_policy",
    "gzip_bomb",
    "hang",
    "message",
    "overloaded",
    "rate_limited",
    "raw",
    "server_error",
    "text",
    "tool_use",
]


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    json: Any
    params: dict[str, str] = field(default_factory=dict)
    batch_custom_id: str | None = None


@dataclass
class Reply:
    """A scripted answer: status, JSON (or raw) body, headers, extra delay, or a fault."""

    status: int = 200
    json: Any = None
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    hang: float | None = None
    close: bool = False
    content_type: str = "application/json"
    late_headers: Callable[[], dict[str, str]] | None = None
    """Headers computed when the answer is written (after its delay), e.g. rate-limit state."""
    raw: bytes | None = None
    """Bytes written verbatim as the whole answer (status line, headers, body), then the
    connection is closed: for malformed framing a client must refuse."""


@dataclass
class RateLimits:
    """Rate limits as the Anthropic API applies them: a token bucket per limit (requests, and input
    plus output tokens), each holding ``per_window`` units and refilled continuously over ``window``
    seconds (60: per minute). A request that finds a bucket short gets a 429 with ``retry-after``
    (whole seconds until the bucket holds enough); every answer carries
    ``anthropic-ratelimit-{requests,tokens}-{limit,remaining,reset}`` (reset: RFC 3339 time at which
    the bucket is full again). A request's tokens are the usage of the answer it would get."""

    requests: int | None = None
    tokens: int | None = None
    window: float = 60.0


Handler = Callable[[RecordedRequest], "Reply | dict[str, Any] | list[Any]"]
Policy = Callable[[RecordedRequest], "Reply | dict[str, Any]"]


@dataclass(frozen=True)
class Route:
    method: str
    pattern: re.Pattern[str]
    handler: Handler
    name: str


_ids = itertools.count(1)


def text(value: str) -> dict[str, Any]:
    """A text content block."""
    return {"type": "text", "text": value}


def tool_use(name: str, input: Any, id: str | None = None) -> dict[str, Any]:
    """A tool_use content block."""
    return {"type": "tool_use", "id": id or f"toolu_{next(_ids):06d}", "name": name, "input": input}


def message(
    content: list[dict[str, Any]],
    *,
    stop_reason: str | None = None,
    model: str = "claude-fake",
    usage: dict[str, int] | None = None,
) -> dict[str, Any]:
    """A Messages API response body. ``stop_reason`` defaults to tool_use when a tool_use block is present."""
    if stop_reason is None:
        stop_reason = (
            "tool_use" if any(b.get("type") == "tool_use" for b in content) else "end_turn"
        )
    return {
        "id": f"msg_{next(_ids):06d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage
        or {
            "input_tokens": 100,
            "output_tokens": 20,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def _error(status: int, kind: str, msg: str, headers: dict[str, str] | None = None) -> Reply:
    return Reply(
        status=status,
        json={"type": "error", "error": {"type": kind, "message": msg}},
        headers=headers or {},
    )


def rate_limited(retry_after: float | None = 1.0, headers: dict[str, str] | None = None) -> Reply:
    """429 rate_limit_error with a ``retry-after`` header (seconds) unless ``retry_after`` is None."""
    extra = dict(headers or {})
    if retry_after is not None:
        extra["retry-after"] = f"{retry_after:g}"
    return _error(429, "rate_limit_error", "Number of requests has exceeded your rate limit", extra)


def overloaded() -> Reply:
    """529 overloaded_error."""
    return _error(529, "overloaded_error", "Overloaded")


def server_error(status: int = 500) -> Reply:
    """A 5xx api_error."""
    return _error(status, "api_error", "Internal server error")


def raw(answer: bytes) -> Reply:
    """An answer written byte for byte (e.g. malformed framing), then the connection is closed."""
    return Reply(raw=answer)


def gzip_bomb(size: int) -> Reply:
    """A 200 whose gzip body inflates to ``size`` zero bytes (about ``size / 1000`` on the wire)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: a gzip container
    block = bytes(1024 * 1024)
    parts = [packer.compress(block) for _ in range(size // len(block))]
    body = b"".join(parts) + packer.compress(bytes(size % len(block))) + packer.flush()
    return Reply(body=body, headers={"content-encoding": "gzip"})


def hang(seconds: float | None = None) -> Reply:
    """Never answer for ``seconds`` (None: until the server stops)."""
    return Reply(hang=seconds if seconds is not None else 3600.0)


def forced_tool_policy(
    make_input: Callable[[RecordedRequest], Any], *, usage: dict[str, int] | None = None
) -> Policy:
    """A policy answering every request with one tool_use of the tool named in ``tool_choice``."""

    def policy(request: RecordedRequest) -> dict[str, Any]:
        body = request.json or {}
        choice = body.get("tool_choice") or {}
        name = choice.get("name") or (body.get("tools") or [{}])[0].get("name", "tool")
        return message(
            [tool_use(name, make_input(request))],
            model=body.get("model", "claude-fake"),
            usage=usage,
        )

    return policy


_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
    529: "Overloaded",
}


class FakeAnthropic:
    """The fake server; see the module docstring for the API."""

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        latency: float = 0.0,
        batch_polls: int = 1,
        record_bodies: bool = True,
        tls: ssl.SSLContext | None = None,
        rate_limits: RateLimits | None = None,
        jitter: float = 0.0,
        seed: int = 0,
    ) -> None:
        self.policy = policy
        self.tls = tls
        self.rate_limits = rate_limits
        self.jitter = jitter
        self._rng = random.Random(seed)
        self._buckets: dict[str, list[float]] = {}
        self.throttled = 0
        """429s sent by :attr:`rate_limits`."""
        self.tokens_served = 0
        """Tokens (input + output) of the answers given under :attr:`rate_limits`."""
        self.latency = latency
        self.batch_polls = batch_polls
        self.record_bodies = record_bodies
        self.requests: list[RecordedRequest] = []
        self.counters: collections.Counter[str] = collections.Counter()
        self.batches: dict[str, dict[str, Any]] = {}
        self._queue: collections.deque[Reply | dict[str, Any] | Policy] = collections.deque()
        self._routes: list[Route] = []
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.AbstractServer | None = None
        self._thread: threading.Thread | None = None
        self._stopping: asyncio.Event | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self.in_flight = 0
        self.peak_in_flight = 0
        self.port = 0
        self._builtin_routes()

    # -- lifecycle ---------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    base_url = url

    def start(self) -> FakeAnthropic:
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                self._stopping = asyncio.Event()
                self._server = loop.run_until_complete(
                    asyncio.start_server(self._serve, "127.0.0.1", 0, backlog=1024, ssl=self.tls)
                )
                self.port = self._server.sockets[0].getsockname()[1]
            except BaseException as exc:  # pragma: no cover - reported to the starting thread
                failure.append(exc)
                ready.set()
                return
            ready.set()
            try:
                loop.run_forever()
            finally:
                loop.run_until_complete(loop.shutdown_asyncgens())
                loop.close()

        self._thread = threading.Thread(target=run, name="fake-anthropic", daemon=True)
        self._thread.start()
        ready.wait(10)
        if failure:
            raise failure[0]
        return self

    def stop(self) -> None:
        loop = self._loop
        if loop is None or self._thread is None:
            return

        async def shutdown() -> None:
            assert self._stopping is not None
            assert self._server is not None
            self._stopping.set()
            self._server.close()
            for task in list(self._connections):
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)
            await self._server.wait_closed()
            loop.stop()

        asyncio.run_coroutine_threadsafe(shutdown(), loop)
        self._thread.join(10)
        self._loop = None
        self._thread = None

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting -----------------------------------------------------------------------------------
    def script(self, *replies: Reply | dict[str, Any] | Policy) -> None:
        """Queue replies for ``POST /v1/messages`` (and batch requests), each used once, in order."""
        with self._lock:
            self._queue.extend(replies)

    def add_route(
        self, method: str, pattern: str, handler: Handler, *, name: str | None = None
    ) -> None:
        """Register ``handler`` for ``method`` and a path regex; later routes win over earlier ones."""
        route = Route(method.upper(), re.compile(pattern), handler, name or pattern)
        with self._lock:
            self._routes.insert(0, route)

    def count(self, method: str, path: str) -> int:
        """How many requests arrived for ``method`` and exactly ``path``."""
        with self._lock:
            return sum(1 for r in self.requests if r.method == method.upper() and r.path == path)

    def reset(self) -> None:
        """Forget recorded requests, counters, the in-flight peak and queued replies (routes and policy stay)."""
        with self._lock:
            self.peak_in_flight = self.in_flight
            self.requests.clear()
            self.counters.clear()
            self._queue.clear()

    # -- request handling ----------------------------------------------------------------------------
    def _next_reply(self, request: RecordedRequest) -> Reply | dict[str, Any]:
        with self._lock:
            scripted = self._queue.popleft() if self._queue else None
        if scripted is not None:
            return scripted(request) if callable(scripted) else scripted
        if self.policy is not None:
            return self.policy(request)
        return _error(500, "api_error", "no reply scripted")

    def _builtin_routes(self) -> None:
        self.add_route("POST", r"^/v1/messages$", self._messages, name="POST /v1/messages")
        self.add_route(
            "POST", r"^/v1/messages/batches$", self._batch_create, name="POST /v1/messages/batches"
        )
        self.add_route(
            "GET",
            r"^/v1/messages/batches/(?P<id>[^/]+)$",
            self._batch_get,
            name="GET /v1/messages/batches/{id}",
        )
        self.add_route(
            "GET",
            r"^/v1/messages/batches/(?P<id>[^/]+)/results$",
            self._batch_results,
            name="GET /v1/messages/batches/{id}/results",
        )
        self.add_route(
            "GET", r"^/_fake/counters$", lambda _r: dict(self.counters), name="GET /_fake/counters"
        )

    def _messages(self, request: RecordedRequest) -> Reply | dict[str, Any]:
        reply = self._next_reply(request)
        if self.rate_limits is not None:
            reply = self._rate_limited(reply)
            if reply.status == 429:  # refused at once, as the API does
                return reply
        if self.latency or self.jitter:
            if isinstance(reply, dict):
                reply = Reply(json=reply)
            delay = self.latency + (self._rng.uniform(0.0, self.jitter) if self.jitter else 0.0)
            reply = Reply(**{**reply.__dict__, "delay": reply.delay + delay})
        return reply

    def _rate_limited(self, reply: Reply | dict[str, Any]) -> Reply:
        """``reply`` under :attr:`rate_limits`: a 429 when a bucket is short, headers on every answer."""
        limits = self.rate_limits
        assert limits is not None
        if isinstance(reply, dict):
            reply = Reply(json=reply)
        usage = (reply.json or {}).get("usage") or {} if isinstance(reply.json, dict) else {}
        tokens = sum(
            int(usage.get(k) or 0)
            for k in ("input_tokens", "output_tokens", "cache_creation_input_tokens")
        )
        need = {"requests": 1.0, "tokens": float(tokens)}
        caps = {"requests": limits.requests, "tokens": limits.tokens}
        now = time.time()
        short = 0.0
        with self._lock:
            for name, cap in caps.items():
                if cap is None:
                    continue
                level, last = self._buckets.setdefault(name, [float(cap), now])
                level = min(float(cap), level + (now - last) * cap / limits.window)
                self._buckets[name] = [level, now]
                if level < need[name]:
                    short = max(short, (need[name] - level) * limits.window / cap)
            if short == 0.0:
                for name, cap in caps.items():
                    if cap is not None:
                        self._buckets[name][0] -= need[name]
                self.tokens_served += tokens
            else:
                self.throttled += 1
        headers = self._limit_headers()
        if short:
            return rate_limited(float(math.ceil(short)), headers=headers)
        return Reply(**{**reply.__dict__, "late_headers": self._limit_headers})

    def _limit_headers(self) -> dict[str, str]:
        """``anthropic-ratelimit-*`` headers of the buckets as they are now (refilled to now)."""
        limits = self.rate_limits
        assert limits is not None
        now = time.time()
        headers: dict[str, str] = {}
        with self._lock:
            for name, cap in (("requests", limits.requests), ("tokens", limits.tokens)):
                if cap is None or name not in self._buckets:
                    continue
                level, last = self._buckets[name]
                level = min(float(cap), level + (now - last) * cap / limits.window)
                self._buckets[name] = [level, now]
                full = now + (cap - level) * limits.window / cap
                headers[f"anthropic-ratelimit-{name}-limit"] = str(cap)
                headers[f"anthropic-ratelimit-{name}-remaining"] = str(max(0, int(level)))
                headers[f"anthropic-ratelimit-{name}-reset"] = time.strftime(
                    "%Y-%m-%dT%H:%M:%SZ", time.gmtime(math.ceil(full))
                )
        return headers

    def _batch_create(self, request: RecordedRequest) -> dict[str, Any]:
        body = request.json or {}
        batch_id = f"msgbatch_{next(_ids):06d}"
        results = []
        for entry in body.get("requests", []):
            sub = RecordedRequest(
                method="POST",
                path="/v1/messages",
                query={},
                headers=request.headers,
                body=b"",
                json=entry.get("params"),
                batch_custom_id=entry.get("custom_id"),
            )
            reply = self._next_reply(sub)
            if isinstance(reply, dict):
                result: dict[str, Any] = {"type": "succeeded", "message": reply}
            elif reply.status == 200:
                result = {"type": "succeeded", "message": reply.json}
            else:
                error = (reply.json or {}).get("error", {"type": "api_error", "message": "error"})
                result = {"type": "errored", "error": {"type": "error", "error": error}}
            results.append({"custom_id": entry.get("custom_id"), "result": result})
        batch = {
            "id": batch_id,
            "type": "message_batch",
            "processing_status": "in_progress",
            "request_counts": {
                "processing": len(results),
                "succeeded": 0,
                "errored": 0,
                "canceled": 0,
                "expired": 0,
            },
            "created_at": "2026-01-01T00:00:00Z",
            "expires_at": "2026-01-02T00:00:00Z",
            "ended_at": None,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": None,
        }
        with self._lock:
            self.batches[batch_id] = {"batch": batch, "results": results, "polls": 0}
        return batch

    def _batch_get(self, request: RecordedRequest) -> Reply | dict[str, Any]:
        with self._lock:
            entry = self.batches.get(request.params["id"])
            if entry is None:
                return _error(404, "not_found_error", "batch not found")
            entry["polls"] += 1
            batch = entry["batch"]
            if entry["polls"] >= self.batch_polls and batch["processing_status"] != "ended":
                ok = sum(1 for r in entry["results"] if r["result"]["type"] == "succeeded")
                batch["processing_status"] = "ended"
                batch["ended_at"] = "2026-01-01T00:01:00Z"
                batch["request_counts"] = {
                    "processing": 0,
                    "succeeded": ok,
                    "errored": len(entry["results"]) - ok,
                    "canceled": 0,
                    "expired": 0,
                }
                batch["results_url"] = f"{self.url}/v1/messages/batches/{batch['id']}/results"
            return dict(batch)

    def _batch_results(self, request: RecordedRequest) -> Reply:
        with self._lock:
            entry = self.batches.get(request.params["id"])
        if entry is None or entry["batch"]["processing_status"] != "ended":
            return _error(404, "not_found_error", "results not available")
        body = b"".join(json.dumps(r).encode() + b"\n" for r in entry["results"])
        return Reply(body=body, content_type="application/binary")

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target, _version = lines[0].split(" ", 2)
                headers: dict[str, str] = {}
                for line in lines[1:]:
                    if ":" in line:
                        key, value = line.split(":", 1)
                        headers[key.strip().lower()] = value.strip()
                body = b""
                if "content-length" in headers:
                    body = await reader.readexactly(int(headers["content-length"]))
                elif headers.get("transfer-encoding", "").lower() == "chunked":
                    chunks = []
                    while True:
                        size = int((await reader.readuntil(b"\r\n")).strip(), 16)
                        chunk = await reader.readexactly(size + 2)
                        if size == 0:
                            break
                        chunks.append(chunk[:-2])
                    body = b"".join(chunks)
                keep_open = await self._dispatch(method.upper(), target, headers, body, writer)
                if not keep_open or headers.get("connection", "").lower() == "close":
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            self._connections.discard(task)
            writer.close()

    async def _dispatch(
        self,
        method: str,
        target: str,
        headers: dict[str, str],
        body: bytes,
        writer: asyncio.StreamWriter,
    ) -> bool:
        parts = urlsplit(target)
        path = parts.path
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        route, params = self._match(method, path)
        request = RecordedRequest(
            method=method,
            path=path,
            query=dict(parse_qsl(parts.query)),
            headers=headers,
            body=body if self.record_bodies else b"",
            json=parsed,
            params=params,
        )
        with self._lock:
            self.requests.append(request)
            self.counters[route.name if route else f"{method} {path}"] += 1
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            return await self._answer(route, request, writer)
        finally:
            with self._lock:
                self.in_flight -= 1

    async def _answer(
        self, route: Route | None, request: RecordedRequest, writer: asyncio.StreamWriter
    ) -> bool:
        method, path = request.method, request.path
        if route is None:
            reply: Reply | dict[str, Any] | list[Any] = _error(
                404, "not_found_error", f"no route {method} {path}"
            )
        else:
            try:
                reply = route.handler(request)
            except Exception as exc:  # a broken policy is a 500 the test can see
                reply = _error(
                    500, "api_error", f"fake server policy raised {type(exc).__name__}: {exc}"
                )
        if not isinstance(reply, Reply):
            reply = Reply(json=reply)
        if reply.delay:
            await asyncio.sleep(reply.delay)
        if reply.hang is not None:
            assert self._stopping is not None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), timeout=reply.hang)
            return False
        if reply.close:
            return False
        if reply.raw is not None:
            writer.write(reply.raw)
            await writer.drain()
            return False
        payload = reply.body if reply.body is not None else json.dumps(reply.json).encode()
        out_headers = {
            "content-type": reply.content_type,
            "content-length": str(len(payload)),
            "request-id": f"req_{next(_ids):06d}",
            **reply.headers,
            **(reply.late_headers() if reply.late_headers is not None else {}),
        }
        head = f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Status')}\r\n" + "".join(
            f"{k}: {v}\r\n" for k, v in out_headers.items()
        )
        writer.write(head.encode("latin-1") + b"\r\n" + payload)
        await writer.drain()
        return True

    def _match(self, method: str, path: str) -> tuple[Route | None, dict[str, str]]:
        with self._lock:
            routes = list(self._routes)
        for route in routes:
            if route.method != method:
                continue
            found = route.pattern.match(path)
            if found:
                return route, found.groupdict()
        return None, {}


try:  # the pytest fixture; import it into a test module or conftest: `from tests.fakes.anthropic_server import fake_anthropic`
    import pytest

    @pytest.fixture
    def fake_anthropic() -> Iterator[FakeAnthropic]:
        """A started :class:`FakeAnthropic` (no policy), stopped after the test."""
        server = FakeAnthropic().start()
        try:
            yield server
        finally:
            server.stop()

except ImportError:  # pragma: no cover - running the server standalone without pytest
    pass


def _main() -> None:  # pragma: no cover - used by benchmarks in a separate process
    parser = argparse.ArgumentParser(
        description="Run the fake Anthropic server (answers forced-tool calls)."
    )
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--rate-limit-fraction", type=float, default=0.0)
    parser.add_argument("--retry-after", type=float, default=0.2)
    parser.add_argument("--verdict", default="pass")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    answer = forced_tool_policy(
        lambda _r: {
            "reasoning": "The answer matches the reference.",
            "evidence": [],
            "verdict": args.verdict,
        }
    )

    def policy(request: RecordedRequest) -> Reply | dict[str, Any]:
        if args.rate_limit_fraction and rng.random() < args.rate_limit_fraction:
            return rate_limited(args.retry_after)
        return answer(request)

    server = FakeAnthropic(policy, latency=args.latency).start()
    print(server.url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":  # pragma: no cover
    _main()
