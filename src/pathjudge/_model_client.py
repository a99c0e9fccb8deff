"""One way to a model server: the httpx2 client that the judge and the agent both build.

:func:`http_client` is the one place that decides how pathjudge talks HTTP to a model (Anthropic's
Messages API, an OpenAI-compatible chat server); :func:`anthropic_client` puts the Anthropic SDK on it.

- **TLS** with httpx2's trusted roots (``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` honoured); a file that is
  missing or holds no certificate is one :class:`~pathjudge.errors.ConfigError` naming the variable,
  never a traceback. Certificates are always checked.
- **Proxies** from the environment (``HTTPS_PROXY`` ...) as httpx2 reads them.
- **One pool** sized to the caller's concurrency, so no call waits for a connection.
- **Timeouts**: 10 s to connect, ``timeout`` seconds for each read, write and pool wait.
- **No redirects followed**: a key is only ever sent to the host it was configured for.
- **A cap on every answer**: the body is read through httpx2's own decoding and refused with
  :class:`ResponseTooLarge` once it passes ``max_response_bytes`` after decompression (a gzip bomb
  costs a bounded amount of memory). Answers the caller streams (``/results`` of Message Batches,
  JSONL of any length) are left to stream.

The SDK's own retries are off (``max_retries=0``): retries are the caller's (the judge runner's
tenacity policy, the agent's bounded loop).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from pathjudge._optional import require
from pathjudge.errors import ConfigError

__all__ = [
    "CONNECT_TIMEOUT",
    "MAX_RESPONSE_BYTES",
    "ResponseTooLarge",
    "anthropic_client",
    "http_client",
    "tls_context",
]

MAX_RESPONSE_BYTES = 16 * 1024 * 1024
"""The most bytes of one answer (after decompression) read into memory: a verdict or an agent turn is
a few kilobytes; 16 MiB leaves room for any real answer."""
CONNECT_TIMEOUT = 10.0

ResponseHook = Callable[[Any], Awaitable[None]]


class ResponseTooLarge(Exception):
    """An answer's body passed the cap (after decompression); raised while it is read."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the server's answer was larger than {limit // (1024 * 1024)} MiB")
        self.limit = limit


def tls_context(purpose: str, *, extra: str = "judge") -> Any:
    """httpx2's default TLS context (system/certifi roots, ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``).

    A variable naming a file that cannot be read or holds no certificate raises one
    :class:`ConfigError` naming it (``purpose`` says what needed TLS).
    """
    import ssl

    httpx2 = require("httpx2", extra, purpose)
    try:
        return httpx2.create_ssl_context(trust_env=True)
    except (OSError, ssl.SSLError, ValueError) as exc:
        named = [
            f"{n}={os.environ[n]}" for n in ("SSL_CERT_FILE", "SSL_CERT_DIR") if n in os.environ
        ]
        where = " or ".join(named) or "the system's trusted certificates"
        raise ConfigError(
            f"{purpose} cannot load trusted certificates from {where} ({type(exc).__name__})",
            field="SSL_CERT_FILE" if "SSL_CERT_FILE" in os.environ else None,
            hint="point SSL_CERT_FILE at a PEM bundle of CA certificates, or unset it",
        ) from None


def _capped(limit: int) -> ResponseHook:
    """A response hook that reads the body through httpx2's decoding, refusing more than ``limit``
    bytes, and hands the decoded body back to the response for the SDK to parse."""

    async def read_capped(response: Any) -> None:
        import httpx2

        if response.request.url.path.endswith("/results"):
            return  # streamed by the caller (Message Batches results, JSONL)
        probe = httpx2.Response(
            response.status_code,
            headers=response.headers,
            stream=response.stream,
            request=response.request,
        )
        chunks: list[bytes] = []
        size = 0
        try:
            async for chunk in probe.aiter_bytes():
                size += len(chunk)
                if size > limit:
                    raise ResponseTooLarge(limit)
                chunks.append(chunk)
        finally:
            await probe.aclose()
        # the body is decoded now: the response carries it as plain bytes
        for name in ("content-encoding", "content-length", "transfer-encoding"):
            if name in response.headers:
                del response.headers[name]
        body = b"".join(chunks)
        response.headers["content-length"] = str(len(body))
        response.stream = httpx2.ByteStream(body)

    return read_capped


def http_client(
    purpose: str,
    *,
    max_connections: int,
    timeout: float = 600.0,
    headers: dict[str, str] | None = None,
    on_response: Sequence[ResponseHook] = (),
    max_response_bytes: int = MAX_RESPONSE_BYTES,
    extra: str = "judge",
) -> Any:
    """An ``httpx2.AsyncClient`` for a model server (see the module docstring).

    ``on_response`` hooks see every answer's headers (e.g. rate-limit headers) before its body is
    read. ``extra`` names the pathjudge extra that installs httpx2 for ``purpose``. Raises
    :class:`ConfigError` for unusable TLS settings.
    """
    httpx2 = require("httpx2", extra, purpose)
    size = max(1, max_connections)
    return httpx2.AsyncClient(
        verify=tls_context(purpose, extra=extra),
        headers=headers,
        limits=httpx2.Limits(max_connections=size, max_keepalive_connections=size),
        timeout=httpx2.Timeout(timeout, connect=CONNECT_TIMEOUT),
        follow_redirects=False,
        event_hooks={"response": [*on_response, _capped(max_response_bytes)]},
    )


def anthropic_client(
    *,
    api_key: str | None,
    base_url: str | None,
    http: Any,
    max_retries: int = 0,
    timeout: float | None = None,
    extra: str = "judge",
) -> Any:
    """An ``AsyncAnthropic`` on ``http`` (``api_key`` None: the SDK reads ``ANTHROPIC_API_KEY`` /
    ``ANTHROPIC_AUTH_TOKEN``; ``timeout`` None: ``http``'s). Raises what the SDK raises for
    missing credentials."""
    anthropic = require("anthropic", extra, "the Anthropic client")
    options: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
    return anthropic.AsyncAnthropic(
        api_key=api_key, base_url=base_url, http_client=http, max_retries=max_retries, **options
    )
