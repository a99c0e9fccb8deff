"""The Anthropic judge backend: ``AsyncAnthropic`` (on httpx2) wrapped by instructor in TOOLS mode.

The rubric goes in a system block with ``cache_control`` (prompt caching), the item's delimited data in
the user turn; instructor forces the ``Verdict`` tool and re-asks (bounded) when the tool input does not
validate. The SDK's own retries are off: transport failures surface as
:class:`~pathjudge.judge.backends.base.TransientError` for the runner to retry. Per-call usage is
recorded from each raw response through an instructor ``completion:response`` hook (instructor's own
usage objects are running totals across re-asks).
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import os
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from pydantic import ValidationError

from pathjudge._optional import require
from pathjudge._secrets import install_log_redaction, mask_url
from pathjudge.agent.trajectory import Usage
from pathjudge.errors import JudgeError
from pathjudge.judge.backends import _http1
from pathjudge.judge.backends.base import (
    BackendCallError,
    BackendReply,
    JudgeBackend,
    OutputError,
    RequestRejected,
    TransientError,
    cost_usd,
    redact_secrets,
    retry_after_seconds,
    validation_problem,
)
from pathjudge.judge.prompt import JudgePrompt
from pathjudge.judge.verdict import Verdict

__all__ = ["DEFAULT_MODEL", "AnthropicJudgeBackend", "classify_api_error", "verdict_tool"]

DEFAULT_MODEL = "claude-opus-4-8"
POOL_SIZE = 4
"""Most connections per httpx2 pool (see :meth:`AnthropicJudgeBackend._build`)."""
_QUIET = logging.NullHandler()
"""Added once to instructor's logger (adding the same handler again is a no-op)."""


def verdict_tool() -> dict[str, Any]:
    """The tool definition for :class:`Verdict` (what instructor's TOOLS mode sends, used for batches).

    A fresh copy each time (callers may change it); the schema itself is generated once.
    """
    return copy.deepcopy(_verdict_tool())


@cache
def _verdict_tool() -> dict[str, Any]:
    return {
        "name": Verdict.__name__,
        "description": (Verdict.__doc__ or "").strip(),
        "input_schema": Verdict.model_json_schema(),
    }


@cache
def _response_model() -> Any:
    """``Verdict`` wrapped once as instructor's ResponseSchema (same tool name, description and schema).

    Passing the pre-wrapped class keeps instructor from rebuilding the model and its JSON schema on
    every call (it caches schemas per class), which dominates the per-call CPU cost otherwise.
    """
    from instructor.v2.core.function_calls import response_schema

    return response_schema(Verdict)


def _usage_from(raw: Any, model: str, *, batch: bool = False) -> Usage:
    """Per-call :class:`Usage` from an Anthropic usage object or dict (values copied immediately)."""

    def get(name: str) -> int:
        value = raw.get(name) if isinstance(raw, Mapping) else getattr(raw, name, 0)
        return int(value or 0)

    usage = Usage(
        input_tokens=get("input_tokens"),
        output_tokens=get("output_tokens"),
        cache_creation_input_tokens=get("cache_creation_input_tokens"),
        cache_read_input_tokens=get("cache_read_input_tokens"),
    )
    return usage.model_copy(update={"cost_usd": cost_usd("anthropic", model, usage, batch=batch)})


_TOOL_CHOICE = {"type": "tool", "name": Verdict.__name__, "disable_parallel_tool_use": True}
_REASK = "Validation Error found:\n{error}\nRecall the function correctly, fix the errors"
"""instructor's own re-ask wording (Anthropic TOOLS mode), so the lean path's hand-over reads the same."""


def _json_body(content: bytes) -> dict[str, Any]:
    """The decoded JSON object of an HTTP response body (an invalid body is an output problem)."""
    try:
        data = json.loads(content)
    except ValueError:
        raise OutputError(
            "invalid_output", "the API answered with a body that is not JSON"
        ) from None
    if not isinstance(data, dict):
        raise OutputError("invalid_output", "the API answered with JSON that is not an object")
    return data


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
"""The SDK's own body encoding (``anthropic._utils._json.encoder``: compact, UTF-8, no NaN)."""
_MESSAGES_PATH = "/v1/messages"


def _global_tracer_provider() -> Any:
    from opentelemetry import trace

    return trace.get_tracer_provider()


@cache
def _no_span_providers() -> tuple[type, ...]:
    try:
        from opentelemetry import trace
    except ImportError:  # pragma: no cover - the SDK has no tracer without it
        return ()
    return (trace.ProxyTracerProvider, trace.NoOpTracerProvider)


class _Wire:
    """Messages API calls posted through one SDK client's own httpx2 client, with the SDK's headers.

    ``messages.create`` spends most of the client's CPU per call preparing a request that is the
    same every time: it walks and transforms the whole body (the tool's JSON schema included),
    copies its options twice and folds ~15 headers into a fresh ``Headers``. Here the headers are
    built once per timeout by the SDK client itself (``_build_headers``: auth as the SDK sends it,
    ``anthropic-version``, content type, platform and custom headers, and the ``x-stainless-*``
    timeout headers, exactly as ``create`` sends them), the body's constant tail (system block,
    ``tool_choice``, the tool) is serialised once per system text, and each call only encodes its
    user turn. Bytes on the wire are the ones ``create`` sends (same key order, same encoder).

    The request goes out on :mod:`._http1`'s keep-alive connections (``origin``) when httpx2 would
    only send it as is (:meth:`direct_origin`: no proxy, no client auth or params; no cookies set
    so far), with the header block httpx2 builds; otherwise through ``http`` itself.

    Failures are raised as the SDK raises them (``APIStatusError`` subclasses built by the SDK
    client from the response, ``APITimeoutError``, ``APIConnectionError``), so one classifier,
    :func:`classify_api_error`, maps both paths. :meth:`usable` is false (and the backend keeps
    the SDK path) for a client whose requests are not plain: a credentials provider that signs
    each request (``custom_auth``), SDK middleware, or OpenTelemetry tracing.
    """

    def __init__(
        self,
        client: Any,
        http: Any,
        origin: _http1.Origin | None = None,
        seen: Callable[[Mapping[str, str]], None] | None = None,
    ) -> None:
        self.client = client
        self.http = http
        self.url = client._prepare_url(_MESSAGES_PATH)
        self.origin = origin
        """Where calls go on the direct path (:mod:`._http1`); None: through ``http`` (httpx2)."""
        self.seen = seen
        """Receives the headers of every answer on the direct path (httpx2 calls its own hook)."""
        self._headers: dict[Any, Any] = {}
        self._requests: dict[Any, tuple[Any, dict[str, Any]]] = {}
        self._heads: dict[Any, tuple[bytes, dict[str, Any]]] = {}
        self._tails: dict[str, bytes] = {}

    @staticmethod
    def usable(client: Any) -> bool:
        """Whether the client's requests are plain (no per-request auth, no middleware)."""
        try:
            return (
                client.custom_auth is None
                and not client._middleware
                and callable(client._build_headers)
                and callable(client._make_status_error_from_response)
                and isinstance(client._open_telemetry, Mapping)
            )
        except Exception:  # another SDK version: keep its own request path
            return False

    def untraced(self) -> bool:
        """Whether the SDK would make no OpenTelemetry span for a call now (asked per call: a tracer
        provider may be installed at any time). With a real provider, calls go through the SDK."""
        client = self.client
        try:
            if client._tracer is None:
                return True
            if client._open_telemetry.get("tracer_provider") is not None:
                return False
            return type(_global_tracer_provider()) in _no_span_providers()
        except Exception:
            return False

    def headers(self, timeout: Any) -> Any:
        """The SDK's headers for a ``messages.create`` call with ``timeout`` (built once per value).

        Raises what the SDK raises for them (e.g. ``TypeError`` when no credential is set).
        """
        headers = self._headers.get(timeout)
        if headers is None:
            from anthropic._base_client import make_request_options
            from anthropic._models import FinalRequestOptions

            options = FinalRequestOptions.construct(  # what ``messages.create`` passes on
                method="post",
                url=_MESSAGES_PATH,
                json_data=None,
                **make_request_options(extra_headers={}, timeout=timeout),
            )
            headers = self._headers[timeout] = self.client._build_headers(options)
        return headers

    def body(self, model: str, max_tokens: int, system: str, user: str) -> bytes:
        """The JSON body ``messages.create`` would send for the lean call (same order and encoding)."""
        tail = self._tails.get(system)
        if tail is None:
            tail = self._tails[system] = _ENCODE(
                {
                    "system": [
                        {"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}
                    ],
                    "tool_choice": _TOOL_CHOICE,
                    "tools": [_verdict_tool()],
                }
            ).encode()[1:]
        head = _ENCODE(
            {
                "max_tokens": max_tokens,
                "messages": [{"role": "user", "content": user}],
                "model": model,
            }
        )
        return head[:-1].encode() + b"," + tail

    @staticmethod
    def direct_origin(http: Any, url: Any, tls: Any, limit: int) -> _http1.Origin | None:
        """An :class:`._http1.Origin` for ``url`` when httpx2 would only send the request as is:
        no proxy (from the environment or given), no client auth or query parameters, no
        redirect following. None otherwise (the calls then go through httpx2)."""
        try:
            plain = (
                http._mounts == {}
                and http.auth is None
                and not http.params
                and not http.follow_redirects
                and url.scheme in ("http", "https")
                and not url.userinfo
            )
            if not plain:
                return None
            port = url.port or (443 if url.scheme == "https" else 80)
            return _http1.Origin(url.scheme, url.host, port, tls=tls, limit=limit)
        except Exception:  # another httpx2 version: keep its own request path
            return None

    async def post(self, body: bytes, timeout: Any) -> dict[str, Any]:
        """POST ``body``; the answer's JSON object, or the SDK's exception for a failure."""
        import anthropic
        import httpx2

        client = self.client
        http = self.http
        if self.origin is not None and not http.cookies:
            return await self._post_direct(body, timeout)
        if http.cookies:  # the server set cookies: let httpx2 merge them in as it does for the SDK
            request = http.build_request(
                "POST",
                self.url,
                headers=self.headers(timeout),
                content=body,
                timeout=client.timeout if timeout is anthropic.NOT_GIVEN else timeout,
            )
        else:
            # what ``build_request`` makes, its merged headers and timeout computed once
            prepared = self._requests.get(timeout)
            if prepared is None:
                merged = httpx2.Headers(http.headers)
                merged.update(self.headers(timeout))
                prepared = self._requests[timeout] = (merged, self._limits(timeout))
            headers, limits = prepared
            request = httpx2.Request(
                "POST", self.url, headers=headers, content=body, extensions={"timeout": limits}
            )
        try:
            response = await self.http.send(request)
        except httpx2.TimeoutException as err:
            raise anthropic.APITimeoutError(request=request) from err
        except anthropic.AnthropicError:
            raise
        except Exception as err:
            raise anthropic.APIConnectionError(request=request) from err
        if not response.is_success:
            raise client._make_status_error_from_response(response) from None
        return _json_body(response.content)

    def _limits(self, timeout: Any) -> dict[str, Any]:
        """httpx2's per-phase timeouts for ``timeout`` (the client's own when not given)."""
        import anthropic
        import httpx2

        chosen = self.client.timeout if timeout is anthropic.NOT_GIVEN else timeout
        return dict(httpx2.Timeout(chosen).as_dict())

    async def _post_direct(self, body: bytes, timeout: Any) -> dict[str, Any]:
        """The same request on :mod:`._http1`'s connections: the header block httpx2 would send
        (built by httpx2 once per timeout), the same timeouts, and the same SDK exceptions."""
        import anthropic
        import httpx2

        origin = self.origin
        assert origin is not None
        prepared = self._heads.get(timeout)
        if prepared is None:
            template = self.http.build_request(
                "POST", self.url, headers=self.headers(timeout), content=b""
            )
            head = _http1.request_head("POST", template.url.raw_path, template.headers.raw)
            prepared = self._heads[timeout] = (head, self._limits(timeout))
        head, limits = prepared
        try:
            answer = await origin.request(
                _http1.with_body(head, body),
                connect_timeout=limits["connect"],
                read_timeout=limits["read"],
                pool_timeout=limits["pool"],
            )
        except TimeoutError as err:
            raise anthropic.APITimeoutError(request=self._request(body, timeout)) from err
        except (_http1.HTTPError, OSError) as err:
            raise anthropic.APIConnectionError(request=self._request(body, timeout)) from err
        if self.seen is not None:
            self.seen(_http1.header_map(answer.headers))
        content = None
        if 200 <= answer.status < 300:
            content = _http1.decode_body(answer)
            if content is not None and any(
                name.lower() == b"set-cookie" for name, _ in answer.headers
            ):
                content = None  # httpx2 keeps the cookie (below) as it does for the SDK
        if content is None:  # a failure, a cookie, or a coding left to httpx2
            response = httpx2.Response(
                answer.status,
                headers=answer.headers,
                content=answer.body,
                request=self._request(body, timeout),
            )
            self.http.cookies.extract_cookies(response)
            if not response.is_success:
                raise self.client._make_status_error_from_response(response) from None
            content = response.content
        return _json_body(content)

    def _request(self, body: bytes, timeout: Any) -> Any:
        """The ``httpx2.Request`` the SDK's exceptions carry (built only when one is raised)."""
        import httpx2

        return httpx2.Request(
            "POST",
            self.url,
            headers=self.headers(timeout),
            content=body,
            extensions={"timeout": self._limits(timeout)},
        )

    async def aclose(self) -> None:
        if self.origin is not None:
            await self.origin.aclose()


def _reask_messages(content: list[Any], problem: str) -> list[dict[str, Any]]:
    """The assistant's invalid turn and the user turn that asks it to fix the call (as instructor)."""
    error = _REASK.format(error=problem)
    ids = [
        b.get("id")
        for b in content
        if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id")
    ]
    blocks = [
        {k: v for k, v in b.items() if v is not None} if isinstance(b, dict) else b for b in content
    ]
    assistant = {"role": "assistant", "content": blocks or [{"type": "text", "text": "(empty)"}]}
    if ids:
        reply: dict[str, Any] = {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": i, "content": error, "is_error": True}
                for i in ids
            ],
        }
    else:
        reply = {"role": "user", "content": error}
    return [assistant, reply]


def _sum(usages: list[Usage]) -> Usage:
    total = Usage()
    for usage in usages:
        total = total + usage
    return total


def classify_api_error(
    exc: BaseException, usage: Usage, *, attempts_before: int = 0
) -> BaseException:
    """Map an SDK/instructor exception to a backend error (or ``JudgeError`` for bad credentials).

    ``attempts_before`` counts model calls made before the one that raised (the lean first call
    before instructor's re-asks), so "after N attempts" counts every call.
    """
    anthropic = require("anthropic", "judge", "the Anthropic judge backend")
    from instructor.core.exceptions import IncompleteOutputException, InstructorRetryException

    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    attempts = (getattr(exc, "n_attempts", 1) or 1) + attempts_before
    for error in chain:
        if isinstance(error, anthropic.APIStatusError):
            status = int(error.status_code)
            headers = dict(error.response.headers)
            if status == 429:
                return TransientError(
                    "rate_limited",
                    "HTTP 429 rate limited",
                    retry_after=retry_after_seconds(headers),
                    throttle=True,
                    usage=usage,
                )
            if status == 529:
                return TransientError(
                    "overloaded",
                    "HTTP 529 overloaded",
                    retry_after=retry_after_seconds(headers),
                    throttle=True,
                    usage=usage,
                )
            if status >= 500 or status == 408:
                return TransientError(
                    "server_error",
                    f"HTTP {status} server error",
                    retry_after=retry_after_seconds(headers),
                    usage=usage,
                )
            if status in (401, 403):
                return JudgeError(
                    f"the Anthropic API refused the credentials (HTTP {status})",
                    hint="check ANTHROPIC_API_KEY and the base URL",
                )
            # the server's own words, minus anything that looks like a credential
            message = getattr(error, "api_message", None)
            detail = f": {redact_secrets(str(message))}" if message else ""
            return RequestRejected("bad_request", f"HTTP {status}{detail}", usage=usage)
        if isinstance(error, anthropic.APITimeoutError):
            return TransientError("timeout", "the request timed out", usage=usage)
        if isinstance(error, anthropic.APIConnectionError):
            return TransientError("connection_error", "could not connect to the API", usage=usage)
        if isinstance(error, IncompleteOutputException):
            return OutputError(
                "truncated",
                "the judge hit max_tokens before finishing the verdict; raise max_tokens",
                usage=usage,
                attempts=attempts,
            )
        if isinstance(error, TimeoutError):
            return TransientError("timeout", "the request timed out", usage=usage)
        if (
            isinstance(error, TypeError | anthropic.AnthropicError)
            and "authentication" in str(error).lower()
        ):
            return JudgeError(
                "no Anthropic credentials were found",
                hint="set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)",
            )
    if isinstance(exc, InstructorRetryException) or any(
        isinstance(e, ValidationError) for e in chain
    ):
        detail = ""
        for error in chain:
            if isinstance(error, ValidationError):
                detail = f"; last problem: {validation_problem(error)}"
                break
        return OutputError(
            "invalid_output",
            f"the judge's output did not validate as a Verdict after {attempts} attempt(s){detail}",
            usage=usage,
            attempts=attempts,
        )
    return BackendCallError(
        "api_error", f"{type(exc).__name__} from the Anthropic client", usage=usage
    )


class AnthropicJudgeBackend(JudgeBackend):
    """Judge with an Anthropic model through instructor (TOOLS mode); see the module docstring.

    ``api_key=None`` reads ``ANTHROPIC_API_KEY``; ``base_url=None`` uses the SDK default. ``reasks`` bounds
    the re-asks on invalid output (so at most ``reasks + 1`` model calls per :meth:`judge`).

    ``lean=True`` (the default) posts the first call itself (:class:`_Wire`: the SDK client's own
    httpx2 client and headers, the body ``messages.create`` would send, its constant part serialised
    once) and validates the ``Verdict`` tool input straight from the JSON with pydantic: no SDK
    request preparation or response model, no instructor machinery on the common path, which is
    what costs CPU per call. Only when that
    output is invalid does instructor take over, continuing the same conversation with instructor's
    own re-ask message (the invalid tool call answered by an error ``tool_result``) and its bounded
    re-asks. ``lean=False`` sends every call through instructor (the reference path).
    """

    name = "anthropic"

    def __init__(
        self,
        *,
        model: str = DEFAULT_MODEL,
        api_key: str | None = None,
        base_url: str | None = None,
        max_tokens: int = 1024,
        reasks: int = 2,
        max_connections: int = 256,
        lean: bool = True,
    ) -> None:
        require("anthropic", "judge", "the Anthropic judge backend")
        require("httpx2", "judge", "the Anthropic judge backend")
        require("instructor", "judge", "the Anthropic judge backend")
        logging.getLogger("instructor").addHandler(_QUIET)
        install_log_redaction()
        self.model = model
        self.max_tokens = max_tokens
        self.reasks = reasks
        self.lean = lean
        self._api_key = api_key
        self._base_url = base_url
        self._max_connections = max_connections
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False
        self._build()

    def cache_identity(self) -> str:
        """``anthropic``, or ``anthropic@<server>`` when the base URL (or ANTHROPIC_BASE_URL) is not
        the API's own; the URL's user-info is masked so no credential reaches the cache."""
        url = self._base_url or os.environ.get("ANTHROPIC_BASE_URL") or ""
        url = url.strip().rstrip("/")
        if not url or url == "https://api.anthropic.com":
            return self.name
        return f"{self.name}@{mask_url(url)}"

    def _build(self) -> None:
        """Create the httpx2 clients, an SDK client on each, and their instructor wrappers.

        Connections are split over pools of at most :data:`POOL_SIZE`: httpcore scans its whole pool
        twice for every request and probes each idle socket, so one pool of 64+ connections costs
        more CPU per call than many small ones (pools of 4 cost about a third less CPU per call
        than pools of 16 at concurrency 64). The pools share one TLS context. Each call goes to the pool with the fewest calls in flight (round-robin would let one
        pool queue requests for a connection while another has idle ones), so up to
        ``max_connections`` concurrent calls never wait for a connection.
        """
        import anthropic
        import httpx2
        import instructor

        pools = max(1, -(-self._max_connections // POOL_SIZE))
        per_pool = -(-self._max_connections // pools)
        self._pools: list[tuple[Any, Any, Any]] = []
        self._wires: list[_Wire | None] = []
        # one TLS context (what each client would build for itself: system/certifi roots,
        # SSL_CERT_FILE/DIR honoured) shared by every pool: loading the roots is ~25 ms a client
        tls = httpx2.create_ssl_context(trust_env=True)
        origin: _http1.Origin | None = None
        for _ in range(pools):
            http = httpx2.AsyncClient(
                verify=tls,
                limits=httpx2.Limits(max_connections=per_pool, max_keepalive_connections=per_pool),
                timeout=httpx2.Timeout(600.0, connect=10.0),
                event_hooks={"response": [self._seen_response]},
            )
            try:
                client = anthropic.AsyncAnthropic(
                    api_key=self._api_key, base_url=self._base_url, http_client=http, max_retries=0
                )
            except Exception as exc:
                raise JudgeError(
                    f"no Anthropic credentials were found, or they are unusable ({type(exc).__name__})",
                    hint="set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)",
                ) from None
            self._pools.append(
                (http, client, instructor.from_anthropic(client, mode=instructor.Mode.TOOLS))
            )
            wire = None
            if _Wire.usable(client):
                if origin is None:  # one set of direct connections for every pool
                    url = client._prepare_url(_MESSAGES_PATH)
                    origin = _Wire.direct_origin(http, url, tls, self._max_connections)
                wire = _Wire(client, http, origin, self._seen_headers)
            self._wires.append(wire)
        self._in_flight = [0] * pools

    def _bind(self) -> None:
        """Connections belong to one event loop: used from a new loop (e.g. a second ``asyncio.run``
        through a sync wrapper), the clients are rebuilt instead of reusing dead connections."""
        loop = asyncio.get_running_loop()
        if self._closed or (self._loop is not None and self._loop is not loop):
            self._build()
            self._closed = False
        self._loop = loop

    @property
    def client(self) -> Any:
        """The ``AsyncAnthropic`` client for the running event loop (used for Message Batches)."""
        self._bind()
        return self._pools[0][1]

    async def _seen_response(self, response: Any) -> None:
        if self.on_headers is not None:
            # httpx2's Headers is a case-insensitive Mapping[str, str] already: no copy per answer
            self.on_headers(response.headers)

    def _seen_headers(self, headers: Mapping[str, str]) -> None:
        """The same for an answer on the direct path (lower-case names)."""
        if self.on_headers is not None:
            self.on_headers(headers)

    def system_blocks(self, prompt: JudgePrompt) -> list[dict[str, Any]]:
        """The rubric as one cacheable system block."""
        return [{"type": "text", "text": prompt.system, "cache_control": {"type": "ephemeral"}}]

    def request_params(self, prompt: JudgePrompt) -> dict[str, Any]:
        """The raw Messages API parameters for ``prompt`` (what batches submit)."""
        return {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": self.system_blocks(prompt),
            "messages": [{"role": "user", "content": prompt.user}],
            "tools": [verdict_tool()],
            "tool_choice": {
                "type": "tool",
                "name": Verdict.__name__,
                "disable_parallel_tool_use": True,
            },
        }

    def parse_message(self, message: Mapping[str, Any], *, batch: bool = False) -> BackendReply:
        """Validate a raw Messages API response (a dict) into a reply; :class:`OutputError` if invalid."""
        usage = _usage_from(message.get("usage") or {}, self.model, batch=batch)
        if message.get("stop_reason") == "max_tokens":
            raise OutputError(
                "truncated",
                "the judge hit max_tokens before finishing the verdict; raise max_tokens",
                usage=usage,
            )
        for block in message.get("content") or []:
            if block.get("type") == "tool_use" and block.get("name") == Verdict.__name__:
                try:
                    verdict = Verdict.model_validate(block.get("input"))
                except ValidationError as exc:
                    raise OutputError(
                        "invalid_output",
                        f"the judge's output did not validate as a Verdict: {validation_problem(exc)}",
                        usage=usage,
                    ) from None
                return BackendReply(
                    verdict=verdict,
                    usage=usage,
                    attempts=1,
                    model=str(message.get("model") or self.model),
                )
        raise OutputError("invalid_output", "the judge did not call the Verdict tool", usage=usage)

    async def judge(self, prompt: JudgePrompt, *, timeout: float | None) -> BackendReply:
        if self.lean:
            return await self._judge_lean(prompt, timeout=timeout)
        return await self._judge_instructor(prompt, timeout=timeout)

    async def _judge_lean(self, prompt: JudgePrompt, *, timeout: float | None) -> BackendReply:
        """The first call raw, parsed by pydantic; instructor only for re-asks (class docstring)."""
        self._bind()
        in_flight = self._in_flight
        pool = in_flight.index(min(in_flight))
        wire = self._wires[pool]
        user = {"role": "user", "content": prompt.user}
        in_flight[pool] += 1
        try:
            if wire is not None and wire.untraced():
                import anthropic

                body = wire.body(self.model, self.max_tokens, prompt.system, prompt.user)
                data = await wire.post(body, anthropic.NOT_GIVEN if timeout is None else timeout)
            else:
                kwargs: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
                raw = await self._pools[pool][1].messages.with_raw_response.create(
                    model=self.model,
                    max_tokens=self.max_tokens,
                    system=self.system_blocks(prompt),
                    messages=[user],
                    tools=[_verdict_tool()],
                    tool_choice=_TOOL_CHOICE,
                    **kwargs,
                )
                data = _json_body(raw.http_response.content)
        except Exception as exc:
            raise classify_api_error(exc, Usage()) from None
        finally:
            in_flight[pool] -= 1
        usage = _usage_from(data.get("usage") or {}, self.model)
        if data.get("stop_reason") == "max_tokens":
            raise OutputError(
                "truncated",
                "the judge hit max_tokens before finishing the verdict; raise max_tokens",
                usage=usage,
            )
        problem: str = "the judge did not call the Verdict tool"
        content = data.get("content") or []
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                if block.get("name") != Verdict.__name__:
                    continue
                try:
                    verdict = Verdict.model_validate(block.get("input"))
                except ValidationError as exc:
                    problem = str(exc)
                    break
                return BackendReply(verdict=verdict, usage=usage, attempts=1, model=self.model)
        if self.reasks <= 0:
            raise OutputError(
                "invalid_output",
                f"the judge's output did not validate as a Verdict after 1 attempt(s); {problem}",
                usage=usage,
                attempts=1,
            )
        messages = [user, *_reask_messages(content, problem)]
        return await self._judge_instructor(
            prompt,
            timeout=timeout,
            messages=messages,
            max_retries=self.reasks - 1,
            before=(usage, 1),
        )

    async def _judge_instructor(
        self,
        prompt: JudgePrompt,
        *,
        timeout: float | None,
        messages: list[dict[str, Any]] | None = None,
        max_retries: int | None = None,
        before: tuple[Usage, int] = (Usage(), 0),
    ) -> BackendReply:
        from instructor.core.hooks import Hooks

        usages: list[Usage] = [before[0]] if before[1] else []
        hooks = Hooks()
        hooks.on(
            "completion:response",
            lambda response: usages.append(_usage_from(response.usage, self.model)),
        )
        kwargs: dict[str, Any] = {}
        if timeout is not None:
            kwargs["timeout"] = timeout
        self._bind()
        in_flight = self._in_flight
        pool = in_flight.index(min(in_flight))
        wrapped = self._pools[pool][2]
        in_flight[pool] += 1
        try:
            parsed = await wrapped.create(
                response_model=_response_model(),
                model=self.model,
                max_tokens=self.max_tokens,
                system=self.system_blocks(prompt),
                messages=messages or [{"role": "user", "content": prompt.user}],
                max_retries=self.reasks if max_retries is None else max_retries,
                hooks=hooks,
                **kwargs,
            )
        except Exception as exc:
            raise classify_api_error(exc, _sum(usages), attempts_before=before[1]) from None
        finally:
            in_flight[pool] -= 1
        verdict = Verdict(
            reasoning=parsed.reasoning, evidence=list(parsed.evidence), verdict=parsed.verdict
        )
        return BackendReply(
            verdict=verdict, usage=_sum(usages), attempts=max(1, len(usages)), model=self.model
        )

    async def aclose(self) -> None:
        """Close the connections (on the loop that opened them); a later call opens new ones."""
        if not self._closed and (self._loop is None or self._loop is asyncio.get_running_loop()):
            for http, _, _ in self._pools:
                await http.aclose()
            for wire in {id(w.origin): w for w in self._wires if w is not None}.values():
                await wire.aclose()
        self._closed = True
