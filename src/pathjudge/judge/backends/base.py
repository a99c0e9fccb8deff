"""The one async interface every judge backend implements, and the errors it reports.

A backend turns a :class:`~pathjudge.judge.prompt.JudgePrompt` into a validated
:class:`~pathjudge.judge.verdict.Verdict` with the usage of that call (re-asks on invalid output included).
It does NOT retry transport failures: it raises :class:`TransientError` and the runner decides (backoff,
``retry-after``, concurrency). Other failures:

- :class:`OutputError` — the model's output stayed invalid after the backend's bounded re-asks, or was
  truncated at ``max_tokens``; the item becomes a :class:`~pathjudge.judge.verdict.JudgeFailure`.
- :class:`RequestRejected` — the API refused this one request (400, 404, 413, 422).
- :class:`~pathjudge.errors.JudgeError` — the judge cannot run at all (bad credentials, unreachable);
  the whole run stops.

Messages never contain credentials: they are built from status codes and our own text.
"""

from __future__ import annotations

import email.utils
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

from pydantic import ValidationError

from pathjudge._secrets import redact
from pathjudge.agent.trajectory import Usage
from pathjudge.judge.prompt import JudgePrompt
from pathjudge.judge.verdict import FailureType, Verdict

__all__ = [
    "PRICES_PER_MTOK",
    "BackendCallError",
    "BackendReply",
    "JudgeBackend",
    "OutputError",
    "RequestRejected",
    "TransientError",
    "cost_usd",
    "ratelimit_pause",
    "redact_secrets",
    "retry_after_seconds",
    "validation_problem",
]


def redact_secrets(text: str, *secrets: str | None, limit: int = 300) -> str:
    """``text`` (e.g. an error message a server sent back) made safe to store or print.

    Removes the given secrets, the values of ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN / OPENAI_API_KEY,
    anything shaped like an API key (``sk-...``, ``Bearer ...``) and URL user-info (see
    :func:`pathjudge._secrets.redact`), and cuts the text to ``limit`` characters. A
    proxy behind ``--base-url`` may echo request headers in its errors; this keeps a key from reaching
    the verdicts file, the cache or the terminal. Empty text gives empty text.
    """
    text = redact(text, *secrets)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# USD per million tokens: (input, output). Cache writes cost 1.25x input, cache reads 0.1x input.
PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    "claude-opus-4": (5.0, 25.0),
    "claude-sonnet-4": (3.0, 15.0),
    "claude-haiku-4": (1.0, 5.0),
    "claude-3-5-haiku": (0.8, 4.0),
}


def cost_usd(backend: str, model: str, usage: Usage, *, batch: bool = False) -> float | None:
    """Cost of ``usage`` in USD, or None when the price of ``model`` is not known.

    In-process llama models cost 0. Anthropic models are priced by the longest matching prefix of
    :data:`PRICES_PER_MTOK`; Message Batches are billed at half price.
    """
    if backend == "llama":
        return 0.0
    if backend != "anthropic":
        return None
    match = max((p for p in PRICES_PER_MTOK if model.startswith(p)), key=len, default=None)
    if match is None:
        return None
    price_in, price_out = PRICES_PER_MTOK[match]
    total = (
        usage.input_tokens * price_in
        + usage.cache_creation_input_tokens * price_in * 1.25
        + usage.cache_read_input_tokens * price_in * 0.1
        + usage.output_tokens * price_out
    ) / 1e6
    return total * 0.5 if batch else total


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``retry-after`` (seconds or an HTTP date); None if absent."""
    lowered = {k.lower(): v for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000.0)
        except ValueError:
            pass
    raw = lowered.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(raw) if raw else None
        if parsed is None:
            return None
        return max(0.0, parsed.timestamp() - time.time())


def ratelimit_pause(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds until a spent ``anthropic-ratelimit-*`` limit resets, or None when none is spent.

    A limit is spent when its ``...-remaining`` header is ``0``; the pause lasts until its ``...-reset``
    (RFC 3339) time.
    """
    lowered: dict[str, str] | None = None  # built only when a rate-limit header is there
    pause: float | None = None
    for name in headers:
        key = name.lower()
        if not key.startswith("anthropic-ratelimit-") or not key.endswith("-remaining"):
            continue
        if lowered is None:
            lowered = {k.lower(): v for k, v in headers.items()}
        if lowered[key].strip() != "0":
            continue
        reset = lowered.get(key[: -len("-remaining")] + "-reset")
        if not reset:
            continue
        try:
            when = datetime.fromisoformat(reset.replace("Z", "+00:00")).timestamp()
        except ValueError:
            continue
        wait = max(0.0, when - (time.time() if now is None else now))
        pause = wait if pause is None else max(pause, wait)
    return pause


def validation_problem(exc: ValidationError) -> str:
    """``loc: msg`` of the first error in ``exc`` (never the invalid input itself), for failure messages."""
    first = exc.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "output"
    return f"{where}: {first['msg']}"


class BackendCallError(Exception):
    """One call failed; ``failure_type`` names how, ``usage`` is what it still cost."""

    def __init__(
        self,
        failure_type: FailureType,
        message: str,
        *,
        usage: Usage | None = None,
        attempts: int = 1,
    ) -> None:
        super().__init__(message)
        self.failure_type: FailureType = failure_type
        self.message = message
        self.usage = usage or Usage()
        self.attempts = attempts


class TransientError(BackendCallError):
    """429, 529, 5xx, timeouts and dropped connections: worth retrying after a wait."""

    def __init__(
        self,
        failure_type: FailureType,
        message: str,
        *,
        retry_after: float | None = None,
        throttle: bool = False,
        usage: Usage | None = None,
    ) -> None:
        super().__init__(failure_type, message, usage=usage)
        self.retry_after = retry_after
        self.throttle = throttle


class OutputError(BackendCallError):
    """The output stayed invalid after the backend's re-asks, or was truncated."""


class RequestRejected(BackendCallError):
    """The API rejected this request (4xx other than 401/403/429)."""


@dataclass(frozen=True)
class BackendReply:
    """A validated verdict with the usage of the call that produced it."""

    verdict: Verdict
    usage: Usage
    attempts: int
    model: str


class JudgeBackend(ABC):
    """One async interface: ``await backend.judge(prompt, timeout=...)`` → :class:`BackendReply`.

    ``on_headers`` (set by the runner) receives the response headers of every HTTP answer, so
    rate-limit headers can steer concurrency.
    """

    name: str
    model: str
    on_headers: Callable[[Mapping[str, str]], None] | None = None

    @abstractmethod
    async def judge(self, prompt: JudgePrompt, *, timeout: float | None) -> BackendReply:
        """Judge one prompt; raise a :class:`BackendCallError` subclass or ``JudgeError`` on failure."""

    def cache_identity(self) -> str:
        """What the verdict cache keys this backend by: its name, plus the server it talks to when
        that is not the default one (so a different server never reuses another's verdicts)."""
        return self.name

    async def aclose(self) -> None:
        """Release connections; idempotent, and the backend stays usable (it reconnects on next use)."""
        return None
