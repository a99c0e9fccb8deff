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

import asyncio
import email.utils
import math
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from pathjudge._secrets import redact
from pathjudge.agent.trajectory import Usage
from pathjudge.judge.prompt import JudgePrompt
from pathjudge.judge.verdict import FailureType, Verdict

__all__ = [
    "PRICES_PER_MTOK",
    "THROTTLE_KINDS",
    "BackendCallError",
    "BackendReply",
    "HttpJudgeBackend",
    "JudgeBackend",
    "OutputError",
    "RequestRejected",
    "TransientError",
    "cost_usd",
    "ratelimit_pause",
    "ratelimit_state",
    "redact_secrets",
    "retry_after_seconds",
    "retryable_status_error",
    "server_count",
    "server_seconds",
    "truncated_output",
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


def server_count(value: object) -> int:
    """A token count as a server sent it, or 0 when it is not one.

    Every number read from a server is checked where it is parsed: a count is a non-negative
    integer (a whole, finite float such as ``12.0`` is accepted as 12). Anything else (a string,
    a list, ``true``, a negative, fractional, non-finite or absurdly large number, as a broken or
    hostile server may send) counts as absent. Never raises.
    """
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value if 0 <= value <= _MAX_COUNT else 0
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value) if 0 <= value <= _MAX_COUNT else 0
    return 0


_MAX_COUNT = 10**12
"""More tokens than any one call can bill: a larger count is a broken server, counted as absent."""


def server_seconds(value: object) -> float | None:
    """A delay in seconds from a header value (``"1.5"``), or None when it is not a finite,
    non-negative number. Never raises."""
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def retry_after_seconds(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``retry-after`` (seconds or an HTTP date).

    None when absent or unusable: a value that is not a finite, non-negative number nor a valid
    HTTP date (``soon``, ``-5``, ``nan``, ``Mon, 32 Feb 2026 ...``) is treated as absent, so the
    caller's own backoff applies. A date in the past gives 0. Never raises.
    """
    lowered = {k.lower(): v for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms:
        ms = server_seconds(raw_ms)
        if ms is not None:
            return ms / 1000.0
    raw = lowered.get("retry-after")
    if not raw or not isinstance(raw, str):
        return None
    seconds = server_seconds(raw)
    if seconds is not None:
        return seconds
    try:
        parsed = email.utils.parsedate_to_datetime(raw)
        when = parsed.timestamp()
    except (TypeError, ValueError, OverflowError, IndexError):
        return None
    if parsed.tzinfo is None or not math.isfinite(when):
        return None
    return max(0.0, when - (time.time() if now is None else now))


_RATELIMIT = "anthropic-ratelimit-"


def _ratelimit_headers(
    headers: Mapping[str, str], suffix: str
) -> Iterator[tuple[str, dict[str, str]]]:
    """``(stem, lowered)`` for each ``anthropic-ratelimit-{name}{suffix}`` header: the lower-cased
    name without ``suffix``, and every header by its lower-cased name (built once, on the first)."""
    lowered: dict[str, str] | None = None  # built only when a rate-limit header is there
    for name in headers:
        key = name.lower()
        if not key.startswith(_RATELIMIT) or not key.endswith(suffix):
            continue
        if lowered is None:
            lowered = {k.lower(): v for k, v in headers.items()}
        yield key[: -len(suffix)], lowered


def _reset_time(text: str) -> float | None:
    """The timestamp of an RFC 3339 ``...-reset`` time; None when it is not a date with a time zone."""
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
        if when.tzinfo is None:
            return None
        return when.timestamp()
    except (ValueError, OverflowError):
        return None


def ratelimit_pause(
    headers: Mapping[str, str], *, now: float | None = None, skip: Collection[str] = ()
) -> float | None:
    """Seconds until a spent ``anthropic-ratelimit-*`` limit resets, or None when none is spent.

    A limit is spent when its ``...-remaining`` header is the number 0; the pause lasts until its
    ``...-reset`` (RFC 3339) time. The limits named in ``skip`` (e.g. ``"tokens"``) are left out:
    the caller knows their refill rate (:func:`ratelimit_state`) and waits only until they hold
    what a call needs, not until they are full again. A value that is not a number, or a reset
    time that is not a valid date, is treated as absent. Never raises.
    """
    pause: float | None = None
    for stem, lowered in _ratelimit_headers(headers, "-remaining"):
        if server_seconds(lowered[stem + "-remaining"].strip()) != 0:
            continue
        if skip and stem[len(_RATELIMIT) :] in skip:
            continue
        reset = lowered.get(stem + "-reset")
        if not reset:
            continue
        stamp = _reset_time(reset.strip())
        if stamp is None:
            continue
        wait = max(0.0, stamp - (time.time() if now is None else now))
        pause = wait if pause is None else max(pause, wait)
    return pause


def ratelimit_state(
    headers: Mapping[str, str], *, now: float | None = None
) -> dict[str, tuple[float, float]]:
    """``{limit name: (remaining, refill per second)}`` from ``anthropic-ratelimit-{name}-limit``,
    ``-remaining`` and ``-reset`` (the time the limit is full again), for each limit whose three
    values are usable. The refill rate is what the server will add back until the reset:
    ``(limit - remaining) / seconds until reset``; for a full limit, ``limit`` per minute (the
    API's limits are per minute). A limit whose reset is less than a second ahead is left out: the
    reset is given in whole seconds, so such a rate could be off by more than double. Never raises."""
    state: dict[str, tuple[float, float]] = {}
    clock = time.time() if now is None else now
    for stem, lowered in _ratelimit_headers(headers, "-limit"):
        limit = server_seconds(lowered[stem + "-limit"].strip())
        remaining = server_seconds(lowered.get(stem + "-remaining", "").strip())
        reset = lowered.get(stem + "-reset", "").strip()
        if limit is None or remaining is None or not reset or limit <= 0:
            continue
        name = stem[len(_RATELIMIT) :]
        if remaining >= limit:  # full: it refills at the documented per-minute rate
            state[name] = (remaining, limit / 60.0)
            continue
        stamp = _reset_time(reset)
        if stamp is None:
            continue
        ahead = stamp - clock
        if ahead >= 1.0:  # the reset is whole seconds: a nearer one says little about the rate
            state[name] = (remaining, (limit - remaining) / ahead)
    return state


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


THROTTLE_KINDS: dict[int, FailureType] = {429: "rate_limited", 529: "overloaded"}
"""The HTTP statuses that ask the caller to slow down, and the failure each one is."""


def retryable_status_error(
    status: int, headers: Mapping[str, str], *, usage: Usage | None = None, named: bool = False
) -> TransientError | None:
    """The :class:`TransientError` an HTTP ``status`` stands for, with the wait ``headers`` ask
    for, or None when the status is not worth retrying: 429 and 529 are throttling (``named``: the
    message names the kind, "HTTP 429 rate limited"; else "HTTP 429"), 408 and 5xx server errors."""
    if status in THROTTLE_KINDS:
        kind = THROTTLE_KINDS[status]
        return TransientError(
            kind,
            f"HTTP {status} {kind.replace('_', ' ')}" if named else f"HTTP {status}",
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
    return None


class OutputError(BackendCallError):
    """The output stayed invalid after the backend's re-asks, or was truncated."""


def truncated_output(usage: Usage, *, attempts: int = 1) -> OutputError:
    """The error of an answer cut off at ``max_tokens`` before the verdict was finished."""
    return OutputError(
        "truncated",
        "the judge hit max_tokens before finishing the verdict; raise max_tokens",
        usage=usage,
        attempts=attempts,
    )


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


class HttpJudgeBackend(JudgeBackend):
    """A backend whose HTTP connections (``self._http``, made by :meth:`_build`) belong to one event
    loop: used from a new loop (e.g. a second ``asyncio.run`` through a sync wrapper), the clients
    are rebuilt instead of reusing dead connections; :meth:`aclose` closes them on their own loop."""

    _http: Any

    def _open(self, max_connections: int) -> None:
        """Remember the pool size and build the clients (call at the end of ``__init__``)."""
        self._max_connections = max_connections
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False
        self._build()

    @abstractmethod
    def _build(self) -> None:
        """Build ``self._http`` (and any client on it) with ``self._max_connections`` connections."""

    def _bind(self) -> None:
        """Rebuild the clients when used from a new event loop, or after :meth:`aclose`."""
        loop = asyncio.get_running_loop()
        if self._closed or (self._loop is not None and self._loop is not loop):
            self._build()
            self._closed = False
        self._loop = loop

    async def aclose(self) -> None:
        """Close the connections (on the loop that opened them); a later call opens new ones."""
        if not self._closed and (self._loop is None or self._loop is asyncio.get_running_loop()):
            await self._http.aclose()
        self._closed = True
