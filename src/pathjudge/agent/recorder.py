"""Capture a :class:`RunRecord` from ANY Python agent by wrapping its tool functions.

The agent keeps its own loop; the recorder only sees the tool calls::

    with Recorder(task_id="rate-429", input=question, agent=AgentInfo(name="my-agent")) as rec:
        search = rec.wrap(search_docs)          # or decorate: @rec.tool
        answer = my_agent(question, tools=[search])
        rec.final_answer = answer
    run = rec.run                               # the recorded trajectory

Each call of a wrapped tool (sync or async) becomes one :class:`Step` with the exact keyword arguments
(positional arguments are bound to parameter names), the result, the latency and
``state['retries']`` (earlier identical calls). An exception raised by the tool is recorded as an errored
result (``"<ExceptionType>: <message>"``) and then re-raised unchanged, so the agent behaves exactly as
without the recorder. ``rec.decision(text)`` attaches the model's text to the next recorded call and
``rec.add_usage(usage)`` accumulates token usage.

Turns: by default every call is its own turn, except that calls overlapping in time (async tools run
concurrently) share a turn, as parallel calls do. ``rec.new_turn()`` switches to explicit turns: calls then
share the turn opened by the latest ``new_turn()``. Steps are kept in the order calls STARTED.

Leaving the ``with`` block stamps the timing; an exception escaping the block sets
``stop_reason='error'`` (and ``'interrupted'`` for Ctrl-C) and propagates. With no final answer set, the run
has ``final_answer=None``. ``async with`` works the same.
"""

from __future__ import annotations

import functools
import inspect
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, ParamSpec, TypeVar, overload

from pydantic import JsonValue

from pathjudge.agent.loop import _call_key, jsonable
from pathjudge.agent.trajectory import AgentInfo, RunRecord, Step, Timing, Usage

__all__ = ["Recorder"]

P = ParamSpec("P")
R = TypeVar("R")


class _Pending:
    __slots__ = (
        "arguments",
        "decision",
        "is_error",
        "latency_ms",
        "result",
        "retries",
        "tool",
        "turn",
    )

    def __init__(self, tool: str, arguments: dict[str, JsonValue], turn: int, retries: int) -> None:
        self.tool = tool
        self.arguments = arguments
        self.turn = turn
        self.retries = retries
        self.decision: str | None = None
        self.result: JsonValue = None
        self.is_error = False
        self.latency_ms: float | None = None


class Recorder:
    """Record the tool calls of any agent into a :class:`RunRecord` (see the module docstring)."""

    def __init__(
        self,
        task_id: str,
        *,
        run_id: str | None = None,
        epoch: int = 0,
        input: JsonValue = None,
        agent: AgentInfo | None = None,
        metadata: Mapping[str, JsonValue] | None = None,
    ) -> None:
        self.task_id = task_id
        self.run_id = run_id or f"{task_id}@{epoch}"
        self.epoch = epoch
        self.input = input
        self.agent = agent or AgentInfo()
        self.metadata: dict[str, JsonValue] = {
            "source": "pathjudge.agent.recorder",
            **(metadata or {}),
        }
        self.final_answer: str | None = None
        self.stop_reason: str | None = None
        self.usage = Usage()
        self._steps: list[_Pending] = []
        self._seen: dict[str, int] = {}
        self._lock = threading.Lock()
        self._decision: str | None = None
        self._explicit_turn: int | None = None
        self._in_flight = 0
        self._started: datetime | None = None
        self._ended: datetime | None = None
        self._clock: float | None = None
        self._duration_ms: float | None = None

    # -- what the agent tells us ---------------------------------------------------------------------
    def decision(self, text: str) -> None:
        """Attach the model's text to the next recorded call."""
        with self._lock:
            self._decision = text

    def new_turn(self) -> int:
        """Open a new model turn (explicit-turn mode from now on); returns its index."""
        with self._lock:
            last = self._steps[-1].turn if self._steps else -1
            current = self._explicit_turn if self._explicit_turn is not None else last
            self._explicit_turn = max(current, last) + 1
            return self._explicit_turn

    def add_usage(self, usage: Usage) -> None:
        """Add one model call's token usage to the run's total."""
        with self._lock:
            self.usage = self.usage + usage

    # -- wrapping ------------------------------------------------------------------------------------
    @overload
    def tool(self, fn: Callable[P, R], /) -> Callable[P, R]: ...

    @overload
    def tool(
        self, fn: None = None, /, *, name: str | None = None
    ) -> Callable[[Callable[P, R]], Callable[P, R]]: ...

    def tool(self, fn: Any = None, /, *, name: str | None = None) -> Any:
        """Decorator form of :meth:`wrap`: ``@rec.tool`` or ``@rec.tool(name="search")``."""
        if fn is None:

            def decorate(f: Callable[P, R]) -> Callable[P, R]:
                return self.wrap(f, name=name)

            return decorate
        return self.wrap(fn, name=name)

    def wrap(self, fn: Callable[P, R], *, name: str | None = None) -> Callable[P, R]:
        """A recording wrapper around ``fn`` (sync or async) with the same signature and behaviour."""
        tool_name = name or getattr(fn, "__name__", None) or type(fn).__name__
        try:
            signature: inspect.Signature | None = inspect.signature(fn)
        except (TypeError, ValueError):
            signature = None

        def arguments_of(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, JsonValue]:
            if signature is not None:
                try:
                    bound = signature.bind(*args, **kwargs)
                except TypeError:
                    pass
                else:
                    out: dict[str, JsonValue] = {}
                    for key, value in bound.arguments.items():
                        kind = signature.parameters[key].kind
                        if kind is inspect.Parameter.VAR_KEYWORD and isinstance(value, dict):
                            out.update({str(k): jsonable(v) for k, v in value.items()})
                        else:
                            out[key] = jsonable(value)
                    return out
            out = {f"arg{i}": jsonable(a) for i, a in enumerate(args)}
            out.update({k: jsonable(v) for k, v in kwargs.items()})
            return out

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                pending = self._begin(tool_name, arguments_of(args, kwargs))
                start = time.perf_counter()
                try:
                    out = await fn(*args, **kwargs)
                except BaseException as exc:
                    self._end(pending, start, error=exc)
                    raise
                self._end(pending, start, result=out)
                return out

            return async_wrapper  # type: ignore[return-value]

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            pending = self._begin(tool_name, arguments_of(args, kwargs))
            start = time.perf_counter()
            try:
                out = fn(*args, **kwargs)
            except BaseException as exc:
                self._end(pending, start, error=exc)
                raise
            self._end(pending, start, result=out)
            return out

        return wrapper

    def _begin(self, tool: str, arguments: dict[str, JsonValue]) -> _Pending:
        key = _call_key(tool, arguments)
        with self._lock:
            if self._explicit_turn is not None:
                turn = self._explicit_turn
            elif self._steps and self._in_flight > 0:
                turn = self._steps[-1].turn
            else:
                turn = self._steps[-1].turn + 1 if self._steps else 0
            retries = self._seen.get(key, 0)
            self._seen[key] = retries + 1
            pending = _Pending(tool, arguments, turn, retries)
            pending.decision, self._decision = self._decision, None
            self._steps.append(pending)
            self._in_flight += 1
            return pending

    def _end(
        self,
        pending: _Pending,
        start: float,
        *,
        result: Any = None,
        error: BaseException | None = None,
    ) -> None:
        latency = round((time.perf_counter() - start) * 1000, 3)
        with self._lock:
            self._in_flight -= 1
            pending.latency_ms = latency
            if error is not None:
                pending.is_error = True
                pending.result = f"{type(error).__name__}: {error}"
            else:
                pending.result = jsonable(result)

    # -- lifecycle -----------------------------------------------------------------------------------
    def start(self) -> Recorder:
        """Stamp the start time (entering the ``with`` block does this)."""
        self._started = datetime.now(UTC)
        self._clock = time.perf_counter()
        return self

    def stop(self, stop_reason: str | None = None) -> RunRecord:
        """Stamp the end time and return the run (leaving the ``with`` block does this)."""
        self._ended = datetime.now(UTC)
        if self._clock is not None:
            self._duration_ms = round((time.perf_counter() - self._clock) * 1000, 3)
        if stop_reason is not None:
            self.stop_reason = stop_reason
        return self.run

    def __enter__(self) -> Recorder:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        reason = None
        if kind is not None:
            reason = "interrupted" if issubclass(kind, KeyboardInterrupt) else "error"
            self.metadata["error"] = f"{kind.__name__}: {exc}"
        elif self.stop_reason is None:
            reason = "end_turn"
        self.stop(reason)

    async def __aenter__(self) -> Recorder:
        return self.start()

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.__exit__(kind, exc, tb)

    @property
    def run(self) -> RunRecord:
        """The run recorded so far (a fresh immutable record on each access)."""
        with self._lock:
            steps = tuple(
                Step(
                    decision=p.decision,
                    turn=p.turn,
                    call_id=f"call_{index}",
                    tool=p.tool,
                    arguments=p.arguments,
                    result=p.result,
                    is_error=p.is_error,
                    latency_ms=p.latency_ms,
                    state={"retries": p.retries},
                )
                for index, p in enumerate(self._steps)
            )
        return RunRecord(
            run_id=self.run_id,
            task_id=self.task_id,
            epoch=self.epoch,
            agent=self.agent,
            input=self.input,
            steps=steps,
            final_answer=self.final_answer,
            stop_reason=self.stop_reason,
            usage=self.usage,
            timing=Timing(
                started_at=self._started, ended_at=self._ended, duration_ms=self._duration_ms
            ),
            metadata=dict(self.metadata),
        )
