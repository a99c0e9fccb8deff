"""A minimal tool-use loop over a model backend that records every step into a :class:`RunRecord`.

Each model turn may ask for tool calls; the loop runs them in order, feeds the results back, and repeats
until the model answers without a tool call or ``max_steps`` model turns have been spent (then
``stop_reason='max_steps'`` and no final answer). Every call becomes one :class:`Step`: the model's text
before the calls (on the turn's first call), the tool, its exact arguments, the result, whether it was an
error, the tool latency, and ``state['retries']`` — how many identical calls (same tool, same arguments)
came before it. Per-model-call usage and latency go to ``metadata['model_calls']``; the run's ``usage`` is
their sum.

Failures of a tool are data: an exception inside a tool, an unknown tool name or malformed arguments give
an errored result that the model sees (and may recover from). A backend that cannot answer at all raises
:class:`~pathjudge.errors.AgentError`.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import JsonValue

from pathjudge.agent.backends import (
    AssistantMessage,
    Message,
    ModelBackend,
    ModelRequest,
    ModelTurn,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
)
from pathjudge.agent.trajectory import AgentInfo, RunRecord, Step, Timing, Usage

__all__ = ["Tool", "ToolFunction", "call_tool", "jsonable", "run_agent", "run_agent_sync"]

ToolFunction = Callable[..., Any | Awaitable[Any]]
"""A tool implementation, called with the arguments as keywords; sync or async."""


@dataclass(frozen=True)
class Tool:
    """A tool the agent may call: what the model sees (``spec``) and the function that runs it."""

    spec: ToolSpec
    fn: ToolFunction

    @property
    def name(self) -> str:
        return self.spec.name

    @classmethod
    def define(
        cls,
        fn: ToolFunction,
        *,
        name: str | None = None,
        description: str | None = None,
        input_schema: Mapping[str, JsonValue] | None = None,
    ) -> Tool:
        """A tool from a function; name and description default to the function's name and docstring."""
        return cls(
            spec=ToolSpec(
                name=name or fn.__name__,
                description=description if description is not None else inspect.getdoc(fn) or "",
                input_schema=dict(input_schema)
                if input_schema is not None
                else {"type": "object", "properties": {}},
            ),
            fn=fn,
        )


def jsonable(value: Any) -> JsonValue:
    """``value`` as plain JSON data (pydantic models dumped; anything else unknown becomes ``str``)."""
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json")
    try:
        return json.loads(json.dumps(value, ensure_ascii=False, default=str))  # type: ignore[no-any-return]
    except (TypeError, ValueError):
        return str(value)


async def call_tool(
    fn: ToolFunction, arguments: Mapping[str, Any]
) -> tuple[JsonValue, bool, float]:
    """Run a sync or async tool; return ``(result, is_error, latency_ms)``.

    An exception becomes the result ``"<ExceptionType>: <message>"`` with ``is_error=True``.
    """
    start = time.perf_counter()
    try:
        out = fn(**arguments)
        if inspect.isawaitable(out):
            out = await out
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}", True, (time.perf_counter() - start) * 1000
    return jsonable(out), False, (time.perf_counter() - start) * 1000


def _content(result: JsonValue) -> str:
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)


def _call_key(tool: str, arguments: Mapping[str, Any]) -> str:
    return tool + "\x00" + json.dumps(arguments, sort_keys=True, ensure_ascii=False)


async def _execute(
    call: ToolCall, tools: Mapping[str, Tool]
) -> tuple[JsonValue, bool, float | None]:
    if call.arguments_error is not None:
        return (
            f"ArgumentsError: {call.arguments_error}; send the arguments as a JSON object",
            True,
            None,
        )
    tool = tools.get(call.name)
    if tool is None:
        known = ", ".join(sorted(tools)) or "none"
        return f"UnknownTool: no tool named {call.name!r}; available: {known}", True, None
    return await call_tool(tool.fn, call.arguments)


async def run_agent(
    backend: ModelBackend,
    *,
    task_id: str,
    question: str,
    tools: Sequence[Tool],
    system: str,
    max_steps: int = 4,
    max_tokens: int = 400,
    epoch: int = 0,
    run_id: str | None = None,
    agent_name: str | None = None,
    agent_version: str | None = None,
    task_input: JsonValue = None,
    metadata: Mapping[str, JsonValue] | None = None,
) -> RunRecord:
    """Run one task: up to ``max_steps`` model turns with ``tools``, recorded as a :class:`RunRecord`.

    ``run_id`` defaults to ``"{task_id}@{epoch}"``; ``task_input`` (what the record stores as ``input``)
    defaults to ``question``. With ``max_steps=0`` no model call is made and the run stops at once with
    ``stop_reason='max_steps'``. Raises :class:`~pathjudge.errors.AgentError` when the backend fails.
    """
    by_name = {tool.name: tool for tool in tools}
    specs = tuple(tool.spec for tool in tools)
    messages: list[Message] = [UserMessage(text=question)]
    steps: list[Step] = []
    seen: dict[str, int] = {}
    model_calls: list[JsonValue] = []
    usage = Usage()
    final_answer: str | None = None
    stop_reason = "max_steps"
    started = datetime.now(UTC)
    clock = time.perf_counter()
    for turn_index in range(max_steps):
        request = ModelRequest(
            model=backend.model,
            system=system,
            messages=tuple(messages),
            tools=specs,
            max_tokens=max_tokens,
        )
        call_start = time.perf_counter()
        turn = await backend.complete(request)
        model_calls.append(_model_call(turn_index, turn, call_start))
        usage = usage + turn.usage
        messages.append(AssistantMessage(turn=turn))
        if not turn.tool_calls:
            final_answer = turn.text if turn.text is not None else ""
            stop_reason = turn.stop_reason or "end_turn"
            break
        messages.append(await _run_tools(turn, turn_index, by_name, seen, steps))
    ended = datetime.now(UTC)
    return RunRecord(
        run_id=run_id or f"{task_id}@{epoch}",
        task_id=task_id,
        epoch=epoch,
        agent=AgentInfo(
            name=agent_name, model=backend.model, version=agent_version, backend=backend.name
        ),
        input=question if task_input is None else task_input,
        steps=tuple(steps),
        final_answer=final_answer,
        stop_reason=stop_reason,
        usage=usage,
        timing=Timing(
            started_at=started,
            ended_at=ended,
            duration_ms=round((time.perf_counter() - clock) * 1000, 3),
        ),
        metadata={**(metadata or {}), "model_calls": model_calls},
    )


def _model_call(turn_index: int, turn: ModelTurn, call_start: float) -> JsonValue:
    """What the record's ``model_calls`` metadata keeps of one model turn."""
    return {
        "turn": turn_index,
        "input_tokens": turn.usage.input_tokens,
        "output_tokens": turn.usage.output_tokens,
        "latency_ms": round((time.perf_counter() - call_start) * 1000, 3),
        "stop_reason": turn.stop_reason,
    }


async def _run_tools(
    turn: ModelTurn,
    turn_index: int,
    by_name: Mapping[str, Tool],
    seen: dict[str, int],
    steps: list[Step],
) -> ToolResultsMessage:
    """Run the turn's tool calls in order: one :class:`Step` each appended to ``steps`` (with how
    often the same call was made before, counted in ``seen``), and the results for the model."""
    results: list[ToolResult] = []
    for position, call in enumerate(turn.tool_calls):
        result, is_error, latency = await _execute(call, by_name)
        key = _call_key(
            call.name,
            call.arguments if call.arguments_error is None else {"": call.raw_arguments},
        )
        retries = seen.get(key, 0)
        seen[key] = retries + 1
        steps.append(
            Step(
                decision=turn.text if position == 0 else None,
                turn=turn_index,
                call_id=call.id,
                tool=call.name,
                arguments=call.arguments,
                arguments_error=call.arguments_error,
                raw_arguments=call.raw_arguments,
                result=result,
                is_error=is_error,
                latency_ms=None if latency is None else round(latency, 3),
                state={"retries": retries},
            )
        )
        results.append(
            ToolResult(call_id=call.id, name=call.name, content=_content(result), is_error=is_error)
        )
    return ToolResultsMessage(results=tuple(results))


def run_agent_sync(backend: ModelBackend, **kwargs: Any) -> RunRecord:
    """:func:`run_agent` for synchronous callers (runs its own event loop; not inside a running one)."""
    return asyncio.run(run_agent(backend, **kwargs))
