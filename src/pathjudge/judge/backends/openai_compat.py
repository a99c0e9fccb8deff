"""Any OpenAI-compatible chat server (vLLM, Ollama, llama.cpp server) as a judge, over httpx2.

Requests ``POST {base_url}/v1/chat/completions`` with schema-constrained JSON::

    "response_format": {"type": "json_object", "schema": <Verdict JSON schema>}

(llama.cpp's server turns the schema into a grammar; vLLM and Ollama accept it as guided JSON). The reply
is validated as a :class:`~pathjudge.judge.verdict.Verdict`; an invalid reply is re-asked with the
validation error, at most ``reasks`` times. No ``openai`` package is needed.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from pydantic import ValidationError

from pathjudge._model_client import ResponseTooLarge
from pathjudge._optional import require
from pathjudge._secrets import install_log_redaction, mask_url
from pathjudge.agent.trajectory import Usage
from pathjudge.errors import JudgeError
from pathjudge.judge.backends.base import (
    BackendReply,
    HttpJudgeBackend,
    OutputError,
    RequestRejected,
    TransientError,
    cost_usd,
    retryable_status_error,
    truncated_output,
    validation_problem,
)
from pathjudge.judge.prompt import JudgePrompt
from pathjudge.judge.verdict import Verdict

__all__ = ["OpenAICompatBackend", "json_instructions", "judge_by_chat", "parse_json_verdict"]


def json_instructions() -> str:
    """The output-format paragraph appended to the rubric for JSON-mode backends."""
    schema = json.dumps(Verdict.model_json_schema(), separators=(",", ":"))
    return (
        "\n\nReply with ONE JSON object and nothing else, with the keys in this order: "
        '"reasoning" (string), "evidence" (list of strings), "verdict" ("pass", "fail" or "unsure"). '
        f"JSON schema: {schema}"
    )


def parse_json_verdict(content: str) -> Verdict:
    """Validate a model's JSON text as a Verdict (raises ``ValidationError``)."""
    return Verdict.model_validate_json(content.strip())


async def judge_by_chat(
    send: Callable[[list[dict[str, str]]], Awaitable[dict[str, Any]]],
    prompt: JudgePrompt,
    *,
    backend: str,
    model: str,
    reasks: int,
) -> BackendReply:
    """The JSON-mode judging loop shared by chat backends: send, validate, re-ask (at most ``reasks``).

    ``send(messages)`` returns an OpenAI-style chat completion dict (``choices``, ``usage``).
    """
    messages = [
        {"role": "system", "content": prompt.system + json_instructions()},
        {"role": "user", "content": prompt.user},
    ]
    total = Usage()
    problem = "no reply"
    for attempt in range(1, reasks + 2):
        data = await send(messages)
        raw_usage = data.get("usage") or {}
        usage = Usage(
            input_tokens=int(raw_usage.get("prompt_tokens") or 0),
            output_tokens=int(raw_usage.get("completion_tokens") or 0),
        )
        total = total + usage.model_copy(update={"cost_usd": cost_usd(backend, model, usage)})
        choice = (data.get("choices") or [{}])[0]
        content = str((choice.get("message") or {}).get("content") or "")
        if choice.get("finish_reason") == "length":
            raise truncated_output(total, attempts=attempt)
        try:
            verdict = parse_json_verdict(content)
        except ValidationError as exc:
            problem = validation_problem(exc)
            messages = [
                *messages,
                {"role": "assistant", "content": content},
                {
                    "role": "user",
                    "content": f"That reply was not a valid verdict ({problem}). Reply again with only the "
                    "JSON object: reasoning, evidence, verdict.",
                },
            ]
            continue
        return BackendReply(verdict=verdict, usage=total, attempts=attempt, model=model)
    raise OutputError(
        "invalid_output",
        f"the judge's output did not validate as a Verdict after {reasks + 1} attempt(s); last problem: {problem}",
        usage=total,
        attempts=reasks + 1,
    )


class OpenAICompatBackend(HttpJudgeBackend):
    """Judge through an OpenAI-compatible ``/v1/chat/completions`` endpoint (see the module docstring)."""

    name = "openai"

    def __init__(
        self,
        *,
        base_url: str,
        model: str = "local",
        api_key: str | None = None,
        max_tokens: int = 512,
        reasks: int = 2,
        max_connections: int = 64,
    ) -> None:
        require("httpx2", "judge", "the OpenAI-compatible judge backend")
        self.model = model
        self.max_tokens = max_tokens
        self.reasks = reasks
        root = base_url.rstrip("/")
        self.endpoint = root + (
            "/chat/completions" if root.endswith("/v1") else "/v1/chat/completions"
        )
        install_log_redaction()
        headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._headers = headers
        self._open(max_connections)

    def _build(self) -> None:
        """The shared model client (:func:`pathjudge._model_client.http_client`): TLS, proxies,
        a pool of ``max_connections``, timeouts, no redirects, a cap on the size of an answer."""
        from pathjudge._model_client import http_client

        self._http = http_client(
            "the OpenAI-compatible judge backend",
            max_connections=self._max_connections,
            headers=self._headers,
        )

    def request_body(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        """The JSON body for one chat completion with the Verdict schema as the response format."""
        return {
            "model": self.model,
            "messages": messages,
            "max_tokens": self.max_tokens,
            "response_format": {"type": "json_object", "schema": Verdict.model_json_schema()},
        }

    async def _post(self, body: Mapping[str, Any], timeout: float | None) -> dict[str, Any]:
        httpx2 = require("httpx2", "judge", "the OpenAI-compatible judge backend")
        self._bind()
        try:
            response = await self._http.post(
                self.endpoint, json=body, timeout=timeout if timeout is not None else 600.0
            )
        except httpx2.TimeoutException:
            raise TransientError("timeout", "the request timed out") from None
        except httpx2.TransportError as exc:
            raise TransientError(
                "connection_error", f"could not reach the server ({type(exc).__name__})"
            ) from None
        except ResponseTooLarge as exc:
            raise TransientError("server_error", str(exc)) from None
        headers = dict(response.headers)
        if self.on_headers is not None:
            self.on_headers(headers)
        status = response.status_code
        retryable = retryable_status_error(status, headers)
        if retryable is not None:
            raise retryable
        if status in (401, 403):
            raise JudgeError(
                f"the judge server refused the credentials (HTTP {status})",
                hint="check --api-key and --base-url",
            )
        if status >= 400:
            raise RequestRejected("bad_request", f"HTTP {status} from the judge server")
        try:
            data = response.json()
        except ValueError:
            raise TransientError(
                "server_error", "the server answered with a body that is not JSON"
            ) from None
        if not isinstance(data, dict):
            raise TransientError(
                "server_error", "the server answered with a JSON value that is not an object"
            )
        return data

    async def judge(self, prompt: JudgePrompt, *, timeout: float | None) -> BackendReply:
        async def send(messages: list[dict[str, str]]) -> dict[str, Any]:
            return await self._post(self.request_body(messages), timeout)

        return await judge_by_chat(
            send, prompt, backend=self.name, model=self.model, reasks=self.reasks
        )

    def cache_identity(self) -> str:
        """``openai@<endpoint>`` (user-info masked): verdicts of one server never serve another."""
        return f"{self.name}@{mask_url(self.endpoint)}"
