"""The Anthropic judge backend: ``AsyncAnthropic`` (on httpx2) wrapped by instructor in TOOLS mode.

One request path: every call is instructor's ``create`` on the SDK's client, whose httpx2 client is
built by :mod:`pathjudge._model_client` (the same builder as the agent's: TLS, proxies, a pool
sized to the concurrency, timeouts, no redirects, a cap on the size of an answer). The rubric goes in
a system block with ``cache_control`` (prompt caching), the item's delimited data in the user turn;
instructor forces the ``Verdict`` tool and re-asks (bounded) when the tool input does not validate,
and tries a call again whose body was not JSON. The SDK's own retries are off: API failures surface
as :class:`~pathjudge.judge.backends.base.TransientError` for the runner's tenacity policy.
Per-call usage is recorded from each response through an instructor ``completion:response`` hook
(instructor's own usage objects are running totals across re-asks); every count is checked as it is
read.
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import os
from collections.abc import Mapping
from functools import cache
from typing import Any

from pydantic import ValidationError

from pathjudge._model_client import ResponseTooLarge, anthropic_client, http_client
from pathjudge._optional import require
from pathjudge._secrets import install_log_redaction, mask_url
from pathjudge.agent.trajectory import Usage
from pathjudge.errors import JudgeError
from pathjudge.judge.backends.base import (
    BackendCallError,
    BackendReply,
    HttpJudgeBackend,
    OutputError,
    RequestRejected,
    TransientError,
    cost_usd,
    redact_secrets,
    retryable_status_error,
    server_count,
    truncated_output,
    validation_problem,
)
from pathjudge.judge.prompt import JudgePrompt
from pathjudge.judge.verdict import Verdict

__all__ = ["DEFAULT_MODEL", "AnthropicJudgeBackend", "classify_api_error", "verdict_tool"]

DEFAULT_MODEL = "claude-opus-4-8"
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
    """Per-call :class:`Usage` from an Anthropic usage object or dict (values copied immediately).

    Each count is checked as it is read (:func:`server_count`): a missing, non-numeric, negative
    or non-finite one counts as 0, so a broken server's usage never crashes the run.
    """

    def get(name: str) -> int:
        if isinstance(raw, Mapping):
            return server_count(raw.get(name))
        try:
            return server_count(getattr(raw, name, 0))
        except Exception:  # an object whose attributes raise: no usage
            return 0

    usage = Usage(
        input_tokens=get("input_tokens"),
        output_tokens=get("output_tokens"),
        cache_creation_input_tokens=get("cache_creation_input_tokens"),
        cache_read_input_tokens=get("cache_read_input_tokens"),
    )
    return usage.model_copy(update={"cost_usd": cost_usd("anthropic", model, usage, batch=batch)})


_TOOL_CHOICE = {"type": "tool", "name": Verdict.__name__, "disable_parallel_tool_use": True}


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
    for error in chain:  # the SDK reports an answer cut off at the size cap as a connection error
        if isinstance(error, ResponseTooLarge):
            return TransientError("server_error", str(error), usage=usage)
    for error in chain:
        if isinstance(error, anthropic.APIStatusError):
            status = int(error.status_code)
            headers = dict(error.response.headers)
            retryable = retryable_status_error(status, headers, usage=usage, named=True)
            if retryable is not None:
                return retryable
            if status in (401, 403):
                return JudgeError(
                    f"the Anthropic API refused the credentials (HTTP {status})",
                    hint="check ANTHROPIC_API_KEY and the base URL",
                )
            # the server's own words, minus anything that looks like a credential
            message = getattr(error, "api_message", None)
            detail = f": {redact_secrets(str(message))}" if message else ""
            return RequestRejected("bad_request", f"HTTP {status}{detail}", usage=usage)
        if isinstance(error, json.JSONDecodeError):
            # a 200 whose body is not JSON: a broken answer, worth asking again
            return TransientError(
                "invalid_output", "the API answered with a body that is not JSON", usage=usage
            )
        if isinstance(error, anthropic.APITimeoutError):
            return TransientError("timeout", "the request timed out", usage=usage)
        if isinstance(error, anthropic.APIConnectionError):
            return TransientError("connection_error", "could not connect to the API", usage=usage)
        if isinstance(error, IncompleteOutputException):
            return truncated_output(usage, attempts=attempts)
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


class AnthropicJudgeBackend(HttpJudgeBackend):
    """Judge with an Anthropic model through instructor (TOOLS mode); see the module docstring.

    ``api_key=None`` reads ``ANTHROPIC_API_KEY``; ``base_url=None`` uses the SDK default. ``reasks``
    bounds the re-asks on invalid output (so at most ``reasks + 1`` model calls per :meth:`judge`).
    ``max_connections`` sizes the connection pool: give it the run's concurrency.
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
        max_connections: int = 64,
    ) -> None:
        require("anthropic", "judge", "the Anthropic judge backend")
        require("httpx2", "judge", "the Anthropic judge backend")
        require("instructor", "judge", "the Anthropic judge backend")
        logging.getLogger("instructor").addHandler(_QUIET)
        install_log_redaction()
        self.model = model
        self.max_tokens = max_tokens
        self.reasks = reasks
        self._api_key = api_key
        self._base_url = base_url
        self._open(max_connections)

    def cache_identity(self) -> str:
        """``anthropic``, or ``anthropic@<server>`` when the base URL (or ANTHROPIC_BASE_URL) is not
        the API's own; the URL's user-info is masked so no credential reaches the cache."""
        url = self._base_url or os.environ.get("ANTHROPIC_BASE_URL") or ""
        url = url.strip().rstrip("/")
        if not url or url == "https://api.anthropic.com":
            return self.name
        return f"{self.name}@{mask_url(url)}"

    def _build(self) -> None:
        """The httpx2 client (:func:`pathjudge._model_client.http_client`), the SDK client on it
        and instructor's wrapper. Unusable TLS settings raise ``ConfigError``; missing credentials
        ``JudgeError``."""
        import instructor

        self._http = http_client(
            "the Anthropic judge backend",
            max_connections=self._max_connections,
            on_response=[self._seen_response],
        )
        try:
            self._client = anthropic_client(
                api_key=self._api_key, base_url=self._base_url, http=self._http
            )
        except Exception as exc:
            raise JudgeError(
                f"no Anthropic credentials were found, or they are unusable ({type(exc).__name__})",
                hint="set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)",
            ) from None
        self._instructor = instructor.from_anthropic(self._client, mode=instructor.Mode.TOOLS)

    @property
    def client(self) -> Any:
        """The ``AsyncAnthropic`` client for the running event loop (used for Message Batches)."""
        self._bind()
        return self._client

    async def _seen_response(self, response: Any) -> None:
        if self.on_headers is not None:
            # httpx2's Headers is a case-insensitive Mapping[str, str] already: no copy per answer
            self.on_headers(response.headers)

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
            "tool_choice": dict(_TOOL_CHOICE),
        }

    def parse_message(self, message: Mapping[str, Any], *, batch: bool = False) -> BackendReply:
        """Validate a raw Messages API response (a dict) into a reply; :class:`OutputError` if invalid.

        Any shape is accepted without raising anything else: a field of the wrong type is an
        invalid output.
        """
        if not isinstance(message, Mapping):
            raise OutputError("invalid_output", "the API answered with JSON that is not an object")
        usage = _usage_from(message.get("usage"), self.model, batch=batch)
        if message.get("stop_reason") == "max_tokens":
            raise truncated_output(usage)
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if (
                isinstance(block, Mapping)
                and block.get("type") == "tool_use"
                and block.get("name") == Verdict.__name__
            ):
                try:
                    verdict = Verdict.model_validate(block.get("input"))
                except ValidationError as exc:
                    raise OutputError(
                        "invalid_output",
                        f"the judge's output did not validate as a Verdict: {validation_problem(exc)}",
                        usage=usage,
                    ) from None
                model = message.get("model")
                return BackendReply(
                    verdict=verdict,
                    usage=usage,
                    attempts=1,
                    model=model if isinstance(model, str) and model else self.model,
                )
        raise OutputError("invalid_output", "the judge did not call the Verdict tool", usage=usage)

    async def judge(self, prompt: JudgePrompt, *, timeout: float | None) -> BackendReply:
        """One verdict through instructor: the forced ``Verdict`` tool, re-asked (at most
        ``reasks`` times) while its input does not validate."""
        from instructor.core.hooks import Hooks

        usages: list[Usage] = []

        def seen(response: Any) -> None:
            usages.append(_usage_from(getattr(response, "usage", None), self.model))
            # instructor adds the response's usage into its running total next: hand it the
            # checked counts, so a server's "abc" or 1e400 cannot break that sum
            with contextlib.suppress(Exception):
                response.usage = _sdk_usage(usages[-1])

        hooks = Hooks()
        hooks.on("completion:response", seen)
        kwargs: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
        self._bind()
        try:
            parsed = await self._instructor.create(
                response_model=_response_model(),
                model=self.model,
                max_tokens=self.max_tokens,
                system=self.system_blocks(prompt),
                messages=[{"role": "user", "content": prompt.user}],
                max_retries=self.reasks,
                hooks=hooks,
                **kwargs,
            )
        except Exception as exc:
            raise classify_api_error(exc, sum(usages, Usage())) from None
        verdict = Verdict(
            reasoning=parsed.reasoning, evidence=list(parsed.evidence), verdict=parsed.verdict
        )
        return BackendReply(
            verdict=verdict,
            usage=sum(usages, Usage()),
            attempts=max(1, len(usages)),
            model=self.model,
        )


def _sdk_usage(usage: Usage) -> Any:
    """The SDK's ``Usage`` object with ``usage``'s (checked) counts."""
    from anthropic.types import Usage as SdkUsage

    return SdkUsage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_creation_input_tokens=usage.cache_creation_input_tokens,
        cache_read_input_tokens=usage.cache_read_input_tokens,
    )
