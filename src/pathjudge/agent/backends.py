"""Model backends for the agent loop: Anthropic Messages, OpenAI-compatible chat, and scripted policies.

The loop speaks one neutral conversation format (:class:`ModelRequest` in, :class:`ModelTurn` out); each
backend translates it to its wire format and back. All three share one async interface,
:class:`ModelBackend`, so the same loop runs against Claude, a local llama.cpp / vLLM / Ollama server, or a
deterministic offline policy in tests.

- :class:`AnthropicModelBackend` — the ``anthropic`` SDK (built on httpx2) with tools; ``base_url`` may point at
  a local server speaking ``/v1/messages``.
- :class:`OpenAIModelBackend` — ``POST {base_url}/chat/completions`` with ``tools`` over httpx2; tool-call
  arguments arrive as JSON strings, and malformed ones are kept verbatim with a flag, never dropped.
- :class:`ScriptedBackend` — a Python callable (sync or async) plays the model: deterministic, offline.

A backend that cannot produce a turn (unreachable, bad credentials, retries spent) raises
:class:`~pathjudge.errors.AgentError`; the message never includes secrets.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
from collections.abc import Awaitable, Callable
from typing import Any, Literal, Protocol, TypeAlias, runtime_checkable

from pydantic import Field, JsonValue

from pathjudge._model_client import ResponseTooLarge, anthropic_client
from pathjudge._model_client import http_client as shared_http_client
from pathjudge._optional import require
from pathjudge._records import FrozenModel
from pathjudge.agent.trajectory import Usage
from pathjudge.errors import AgentError

__all__ = [
    "AnthropicModelBackend",
    "AssistantMessage",
    "BackendName",
    "Message",
    "ModelBackend",
    "ModelRequest",
    "ModelTurn",
    "OpenAIModelBackend",
    "ScriptedBackend",
    "ScriptedPolicy",
    "ToolCall",
    "ToolResult",
    "ToolResultsMessage",
    "ToolSpec",
    "UserMessage",
]

BackendName = Literal["anthropic", "openai", "scripted"]


def _empty_schema() -> dict[str, JsonValue]:
    return {"type": "object", "properties": {}}


class ToolSpec(FrozenModel):
    """A tool as the model sees it: name, description and the JSON schema of its arguments."""

    name: str = Field(min_length=1, description="Tool name.")
    description: str = Field(default="", description="What the tool does, shown to the model.")
    input_schema: dict[str, JsonValue] = Field(
        default_factory=_empty_schema,
        description="JSON schema of the arguments object.",
    )


class ToolCall(FrozenModel):
    """One tool call the model asked for."""

    id: str = Field(description="The call id; tool results refer to it.")
    name: str = Field(description="The tool name.")
    arguments: dict[str, JsonValue] = Field(default_factory=dict, description="Parsed arguments.")
    raw_arguments: str | None = Field(
        default=None, description="Raw text when arguments were malformed."
    )
    arguments_error: str | None = Field(
        default=None, description="Why the arguments did not parse."
    )


class ModelTurn(FrozenModel):
    """What the model said in one turn: optional text, zero or more tool calls, why it stopped, usage."""

    text: str | None = Field(default=None, description="The turn's text, None when there was none.")
    tool_calls: tuple[ToolCall, ...] = Field(default=(), description="Tool calls, in order.")
    stop_reason: str | None = Field(default=None, description="The backend's stop reason.")
    usage: Usage = Field(default_factory=Usage, description="Tokens of this one model call.")


class UserMessage(FrozenModel):
    role: Literal["user"] = "user"
    text: str


class AssistantMessage(FrozenModel):
    role: Literal["assistant"] = "assistant"
    turn: ModelTurn


class ToolResult(FrozenModel):
    """The result of one tool call as it goes back to the model."""

    call_id: str
    name: str
    content: str = Field(description="The result serialised as text (JSON for structured results).")
    is_error: bool = False


class ToolResultsMessage(FrozenModel):
    role: Literal["tool"] = "tool"
    results: tuple[ToolResult, ...]


Message: TypeAlias = UserMessage | AssistantMessage | ToolResultsMessage


class ModelRequest(FrozenModel):
    """Everything a backend needs for the next turn."""

    model: str
    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = Field(default=400, ge=1)

    @property
    def question(self) -> str:
        """The first user message's text ('' when there is none)."""
        for message in self.messages:
            if isinstance(message, UserMessage):
                return message.text
        return ""


@runtime_checkable
class ModelBackend(Protocol):
    """The one interface the loop needs: produce the next turn; release resources when done."""

    name: str
    model: str

    async def complete(self, request: ModelRequest) -> ModelTurn: ...

    async def aclose(self) -> None: ...


# --------------------------------------------------------------------------------------------------
# Scripted


ScriptedPolicy: TypeAlias = Callable[[ModelRequest], ModelTurn | Awaitable[ModelTurn]]
"""A callable playing the model: given the request, return the next turn (sync or async)."""


class ScriptedBackend:
    """A deterministic backend: ``policy(request)`` is the model. Offline; for tests and dry runs."""

    name = "scripted"

    def __init__(self, policy: ScriptedPolicy, *, model: str = "scripted") -> None:
        self.policy = policy
        self.model = model
        self.calls = 0

    async def complete(self, request: ModelRequest) -> ModelTurn:
        self.calls += 1
        result = self.policy(request)
        if inspect.isawaitable(result):
            result = await result
        if not isinstance(result, ModelTurn):
            raise AgentError(
                f"the scripted policy returned {type(result).__name__}, not a ModelTurn",
                hint="return pathjudge.agent.backends.ModelTurn(...) from the policy",
            )
        return result

    async def aclose(self) -> None:
        return None


# --------------------------------------------------------------------------------------------------
# Anthropic


def _anthropic_messages(request: ModelRequest) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in request.messages:
        if isinstance(message, UserMessage):
            out.append({"role": "user", "content": message.text})
        elif isinstance(message, AssistantMessage):
            blocks: list[dict[str, Any]] = []
            if message.turn.text:
                blocks.append({"type": "text", "text": message.turn.text})
            for call in message.turn.tool_calls:
                blocks.append(
                    {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
                )
            out.append({"role": "assistant", "content": blocks})
        else:
            out.append(
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": result.call_id,
                            "content": result.content,
                            "is_error": result.is_error,
                        }
                        for result in message.results
                    ],
                }
            )
    return out


def _int(value: Any) -> int:
    return (
        int(value) if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
    )


def _anthropic_turn(response: Any) -> ModelTurn:
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in getattr(response, "content", None) or ():
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(str(block.text))
        elif kind == "tool_use":
            raw_input = block.input
            if isinstance(raw_input, dict):
                calls.append(ToolCall(id=str(block.id), name=str(block.name), arguments=raw_input))
            else:
                calls.append(
                    ToolCall(
                        id=str(block.id),
                        name=str(block.name),
                        raw_arguments=json.dumps(raw_input, default=str),
                        arguments_error="tool_use input is not a JSON object",
                    )
                )
    usage = getattr(response, "usage", None)
    return ModelTurn(
        text="".join(texts) if texts else None,
        tool_calls=tuple(calls),
        stop_reason=getattr(response, "stop_reason", None),
        usage=Usage(
            input_tokens=_int(getattr(usage, "input_tokens", 0)),
            output_tokens=_int(getattr(usage, "output_tokens", 0)),
            cache_creation_input_tokens=_int(getattr(usage, "cache_creation_input_tokens", 0)),
            cache_read_input_tokens=_int(getattr(usage, "cache_read_input_tokens", 0)),
        ),
    )


def _http_client(given: Any | None, what: str, timeout_s: float) -> Any:
    """The caller's ``httpx2.AsyncClient`` (``given``), else the shared pooled one for ``what``."""
    if given is not None:
        return given
    return shared_http_client(what, max_connections=8, timeout=timeout_s, extra="agent")


class AnthropicModelBackend:
    """Claude through the Messages API with tools (``anthropic`` SDK over httpx2).

    ``api_key`` defaults to ``ANTHROPIC_API_KEY``; ``base_url`` to the SDK's default (or
    ``ANTHROPIC_BASE_URL``). ``max_retries`` is the SDK's own retry budget for 429/5xx/connection errors.
    ``http_client`` (an ``httpx2.AsyncClient``) replaces the default one, e.g. with a mock transport.
    """

    name = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        max_retries: int = 2,
        timeout_s: float = 60.0,
        http_client: Any | None = None,
    ) -> None:
        anthropic = require("anthropic", "agent", "the anthropic agent backend")
        require("httpx2", "agent", "the anthropic agent backend")
        self.model = model
        self._anthropic = anthropic
        key = api_key if api_key is not None else os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise AgentError(
                "no Anthropic API key for the agent backend",
                hint="set ANTHROPIC_API_KEY, or use --backend scripted to run offline",
            )
        self._client = anthropic_client(
            api_key=key,
            base_url=base_url,
            max_retries=max_retries,
            timeout=timeout_s,
            http=_http_client(http_client, "the anthropic agent backend", timeout_s),
            extra="agent",
        )

    async def complete(self, request: ModelRequest) -> ModelTurn:
        anthropic = self._anthropic
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_tokens,
            "system": request.system,
            "messages": _anthropic_messages(request),
        }
        if request.tools:
            kwargs["tools"] = [spec.model_dump() for spec in request.tools]
        try:
            response = await self._client.messages.create(**kwargs)
        except anthropic.APIStatusError as exc:
            raise AgentError(
                f"the anthropic backend answered HTTP {exc.status_code} ({type(exc).__name__}) after retries",
                hint="check the model name, the API key and the base URL",
            ) from None
        except anthropic.APIError as exc:
            raise AgentError(
                f"the anthropic backend could not be reached ({type(exc).__name__})",
                hint="check the base URL and the network",
            ) from None
        return _anthropic_turn(response)

    async def aclose(self) -> None:
        await self._client.close()


# --------------------------------------------------------------------------------------------------
# OpenAI-compatible


def _openai_messages(request: ModelRequest) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": request.system}]
    for message in request.messages:
        if isinstance(message, UserMessage):
            out.append({"role": "user", "content": message.text})
        elif isinstance(message, AssistantMessage):
            entry: dict[str, Any] = {"role": "assistant", "content": message.turn.text or ""}
            if message.turn.tool_calls:
                entry["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {
                            "name": call.name,
                            "arguments": call.raw_arguments
                            if call.arguments_error is not None and call.raw_arguments is not None
                            else json.dumps(call.arguments, ensure_ascii=False),
                        },
                    }
                    for call in message.turn.tool_calls
                ]
            out.append(entry)
        else:
            for result in message.results:
                out.append(
                    {"role": "tool", "tool_call_id": result.call_id, "content": result.content}
                )
    return out


def _openai_tools(request: ModelRequest) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": s.name,
                "description": s.description,
                "parameters": s.input_schema,
            },
        }
        for s in request.tools
    ]


def _openai_turn(payload: Any, *, turn_index: int) -> ModelTurn:
    from pathjudge.agent.importers._common import parse_arguments

    if (
        not isinstance(payload, dict)
        or not isinstance(payload.get("choices"), list)
        or not payload["choices"]
    ):
        raise AgentError(
            "the openai-compatible backend answered without 'choices'",
            hint="point --base-url at a server that implements /v1/chat/completions",
        )
    choice = payload["choices"][0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise AgentError("the openai-compatible backend answered a choice without a 'message'")
    calls: list[ToolCall] = []
    for index, raw in enumerate(message.get("tool_calls") or ()):
        if not isinstance(raw, dict):
            continue
        function: dict[str, Any] = raw["function"] if isinstance(raw.get("function"), dict) else {}
        arguments, raw_arguments, problem = parse_arguments(function.get("arguments"))
        calls.append(
            ToolCall(
                id=str(raw.get("id") or f"call_{turn_index}_{index}"),
                name=str(function.get("name") or "unknown"),
                arguments=arguments,
                raw_arguments=raw_arguments,
                arguments_error=problem,
            )
        )
    content = message.get("content")
    usage: dict[str, Any] = payload["usage"] if isinstance(payload.get("usage"), dict) else {}
    return ModelTurn(
        text=content if isinstance(content, str) and content.strip() else None,
        tool_calls=tuple(calls),
        stop_reason=str(choice.get("finish_reason")) if choice.get("finish_reason") else None,
        usage=Usage(
            input_tokens=_int(usage.get("prompt_tokens")),
            output_tokens=_int(usage.get("completion_tokens")),
        ),
    )


class OpenAIModelBackend:
    """Any server implementing OpenAI chat completions with ``tools`` (vLLM, Ollama, llama.cpp server).

    ``base_url`` is the API root including ``/v1`` (default ``OPENAI_BASE_URL`` or the OpenAI API);
    ``api_key`` defaults to ``OPENAI_API_KEY`` and may be empty for local servers. HTTP 429, 5xx and
    connection errors are retried ``max_retries`` times with exponential backoff (``backoff_s``, then
    doubling: 0.5 s, 1 s, ... by default).
    ``http_client`` (an ``httpx2.AsyncClient``) replaces the default one, e.g. with a mock transport.
    """

    name = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        max_retries: int = 2,
        timeout_s: float = 120.0,
        temperature: float | None = None,
        http_client: Any | None = None,
        backoff_s: float = 0.5,
    ) -> None:
        self._httpx2 = require("httpx2", "agent", "the openai-compatible agent backend")
        self.model = model
        self.base_url = (
            base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        ).rstrip("/")
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        headers = {"authorization": f"Bearer {key}"} if key else {}
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.temperature = temperature
        self._headers = headers
        self._http = _http_client(http_client, "the openai-compatible agent backend", timeout_s)
        self._turns = 0

    async def complete(self, request: ModelRequest) -> ModelTurn:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": _openai_messages(request),
            "max_tokens": request.max_tokens,
        }
        if request.tools:
            body["tools"] = _openai_tools(request)
            body["tool_choice"] = "auto"
        if self.temperature is not None:
            body["temperature"] = self.temperature
        url = f"{self.base_url}/chat/completions"
        httpx2 = self._httpx2
        last = ""
        for attempt in range(self.max_retries + 1):
            if attempt:
                await asyncio.sleep(self.backoff_s * 2 ** (attempt - 1))
            try:
                response = await self._http.post(url, json=body, headers=self._headers)
            except httpx2.HTTPError as exc:
                last = f"could not be reached ({type(exc).__name__})"
                continue
            except ResponseTooLarge as exc:
                last = str(exc)
                continue
            if response.status_code == 429 or response.status_code >= 500:
                last = f"answered HTTP {response.status_code}"
                continue
            if response.status_code >= 400:
                raise AgentError(
                    f"the openai-compatible backend answered HTTP {response.status_code}",
                    hint="check the model name, the API key and --base-url (it must end in /v1)",
                )
            try:
                payload = response.json()
            except ValueError:
                raise AgentError(
                    "the openai-compatible backend answered with invalid JSON"
                ) from None
            self._turns += 1
            return _openai_turn(payload, turn_index=self._turns)
        raise AgentError(
            f"the openai-compatible backend {last} after {self.max_retries + 1} attempts",
            hint="check --base-url and that the server is running",
        )

    async def aclose(self) -> None:
        await self._http.aclose()
