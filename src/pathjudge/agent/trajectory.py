"""The trajectory schema: the one versioned, immutable contract every part of pathjudge reads.

A :class:`RunRecord` (alias :data:`Trajectory`) is one run of an agent on one task in one epoch. Its
:class:`Step` s are the tool calls in the order they were issued; calls issued together in one model turn
share ``turn`` and are parallel, unordered among themselves. Its :class:`Reply` s are the agent's
messages to the user, in order, each with its position among the steps (schema version 2; a version-1
record reads as one with its final answer as its only reply).

Field order is part of the contract: ``model_dump_json`` writes fields in declaration order, so two runs
serialise to lines that diff cleanly. Unknown fields are rejected (``extra="forbid"``); put anything that
has no field of its own under ``metadata`` (runs) or ``state`` (steps).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any, ClassVar, Final, Literal, Self, TypeVar, cast, dataclass_transform

from pydantic import ConfigDict, Field, JsonValue, field_validator, model_validator
from pydantic.dataclasses import dataclass as pydantic_dataclass
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError, SchemaSerializer, SchemaValidator

from pathjudge._io import register_number_screen
from pathjudge._json import BIG_INT as _BIG_INT
from pathjudge._json import unrepresentable_in

__all__ = [
    "NUMBER_FIELDS",
    "SCHEMA_VERSION",
    "TRUNCATED_STOP_REASONS",
    "AgentInfo",
    "Reply",
    "RunRecord",
    "Step",
    "Timing",
    "Trajectory",
    "Usage",
    "holds_unrepresentable_number",
]

SCHEMA_VERSION: Final = 2
"""The schema version this pathjudge writes. Version 1 (no ``replies``) migrates on read."""

TRUNCATED_STOP_REASONS: Final[frozenset[str]] = frozenset(
    {
        "max_steps",
        "max_turns",
        "max_tokens",
        "length",
        "interrupted",
        "timeout",
        "missing_reward",
        "context_window_exceeded",
        "model_context_window_exceeded",
    }
)
"""``stop_reason`` values that say the run was cut before it finished (a step or turn cap, the token
limit, an interruption, a benchmark reward that is missing where the source records one). A suite's
``truncated:`` policy decides how such a run is graded; it is never graded as complete."""


class _Record:
    """What the run-record types share: the model methods pathjudge and its users call.

    Each record type is a frozen, slotted pydantic dataclass (see :func:`_record`), not a
    ``BaseModel``. pydantic validates it as it would a model: the same fields, constraints, JSON
    parser and JSON Schema, and the same messages but one (an unknown field is "Unexpected keyword
    argument", type ``unexpected_keyword_argument``, where a model says ``extra_forbidden``). What
    differs is the reading: a ``BaseModel`` defines ``__getattr__``, which sends every field read
    through CPython's slow attribute hook (about seven times a slot read) and keeps the interpreter
    from specialising it, and grading reads a run's step fields many times over. Here a field is a
    slot. Assigning to a field raises :class:`dataclasses.FrozenInstanceError`.

    The methods below are a model's, with a model's meaning: ``model_validate``,
    ``model_validate_json``, ``model_dump``, ``model_dump_json``, ``model_copy`` (not validated),
    ``model_json_schema`` and ``model_fields``.
    """

    __slots__ = ()

    model_fields: ClassVar[dict[str, FieldInfo]]
    """The fields, in declaration order (as on a model)."""
    __pydantic_validator__: ClassVar[SchemaValidator]
    __pydantic_serializer__: ClassVar[SchemaSerializer]

    @classmethod
    def model_validate(cls, obj: Any) -> Self:
        """Validate a dict (or an instance, returned as it is) as this record."""
        return cast(Self, cls.__pydantic_validator__.validate_python(obj))

    @classmethod
    def model_validate_json(cls, data: str | bytes | bytearray) -> Self:
        """Parse and validate one JSON document as this record."""
        return cast(Self, cls.__pydantic_validator__.validate_json(data))

    @classmethod
    def model_json_schema(
        cls, mode: Literal["validation", "serialization"] = "validation"
    ) -> dict[str, Any]:
        """The record's JSON Schema."""
        from pydantic import TypeAdapter

        return TypeAdapter(cls).json_schema(mode=mode)

    def model_dump(
        self,
        *,
        mode: Literal["json", "python"] = "python",
        include: Any = None,
        exclude: Any = None,
        exclude_none: bool = False,
        exclude_defaults: bool = False,
        round_trip: bool = False,
    ) -> dict[str, Any]:
        """The record as a dict (``mode="json"``: JSON-ready values); the options are a model's."""
        return cast(
            dict[str, Any],
            self.__pydantic_serializer__.to_python(
                self,
                mode=mode,
                include=include,
                exclude=exclude,
                exclude_none=exclude_none,
                exclude_defaults=exclude_defaults,
                round_trip=round_trip,
            ),
        )

    def model_dump_json(
        self,
        *,
        indent: int | None = None,
        include: Any = None,
        exclude: Any = None,
        exclude_none: bool = False,
        exclude_defaults: bool = False,
        round_trip: bool = False,
    ) -> str:
        """The record as JSON text, fields in declaration order (compact unless ``indent``); the
        options are a model's."""
        return self.__pydantic_serializer__.to_json(
            self,
            indent=indent,
            include=include,
            exclude=exclude,
            exclude_none=exclude_none,
            exclude_defaults=exclude_defaults,
            round_trip=round_trip,
        ).decode("utf-8")

    def to_json(self) -> bytes:
        """The record as one compact JSON document (what the JSONL writers write)."""
        return self.__pydantic_serializer__.to_json(self)

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> Self:
        """A copy with the fields in ``update`` replaced, not validated (as a model's ``model_copy``)."""
        copy = object.__new__(type(self))
        for name in type(self).model_fields:
            object.__setattr__(copy, name, getattr(self, name))
        for name, value in (update or {}).items():
            if name not in type(self).model_fields:
                raise TypeError(f"{type(self).__name__} has no field {name!r}")
            object.__setattr__(copy, name, value)
        return copy


_R = TypeVar("_R", bound=type[_Record])


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(Field,))
def _record(cls: _R) -> _R:
    """Make ``cls`` (a :class:`_Record` subclass) a frozen, slotted, keyword-only pydantic dataclass
    that forbids unknown fields."""
    made = pydantic_dataclass(
        frozen=True,
        slots=True,
        kw_only=True,
        config=ConfigDict(extra="forbid", validate_default=False),
    )(cls)
    made.model_fields = made.__pydantic_fields__  # type: ignore[attr-defined]
    return cast(_R, made)


@_record
class Usage(_Record):
    """Token usage (and cost when known) of a run or of one model call."""

    input_tokens: int = Field(default=0, ge=0, description="Uncached input tokens.")
    output_tokens: int = Field(default=0, ge=0, description="Output tokens.")
    cache_creation_input_tokens: int = Field(
        default=0, ge=0, description="Tokens written to the prompt cache."
    )
    cache_read_input_tokens: int = Field(
        default=0, ge=0, description="Tokens read from the prompt cache."
    )
    cost_usd: float | None = Field(
        default=None, ge=0, description="Cost in US dollars, when known."
    )

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_creation_input_tokens
            + self.cache_read_input_tokens
        )

    def __add__(self, other: Usage) -> Usage:
        cost = None
        if self.cost_usd is not None or other.cost_usd is not None:
            cost = (self.cost_usd or 0.0) + (other.cost_usd or 0.0)
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_creation_input_tokens=self.cache_creation_input_tokens
            + other.cache_creation_input_tokens,
            cache_read_input_tokens=self.cache_read_input_tokens + other.cache_read_input_tokens,
            cost_usd=cost,
        )


@_record
class Timing(_Record):
    """Wall-clock timing of a run."""

    started_at: datetime | None = Field(
        default=None, description="When the run started (ISO 8601)."
    )
    ended_at: datetime | None = Field(default=None, description="When the run ended (ISO 8601).")
    duration_ms: float | None = Field(
        default=None, ge=0, description="Total wall time in milliseconds."
    )


@_record
class AgentInfo(_Record):
    """Who produced the run: the agent, the model behind it, and their versions."""

    name: str | None = Field(default=None, description="Agent name, e.g. 'docent'.")
    model: str | None = Field(
        default=None, description="Model identifier, e.g. 'claude-haiku-4-5'."
    )
    version: str | None = Field(default=None, description="Agent or prompt version.")
    backend: str | None = Field(default=None, description="Model backend, e.g. 'anthropic'.")


@_record
class Step(_Record):
    """One tool call and its result."""

    decision: str | None = Field(
        default=None, description="The model's text (or thinking summary) before this call, if any."
    )
    turn: int = Field(
        default=0,
        ge=0,
        description="Model turn the call was issued in; equal turns are parallel calls.",
    )
    call_id: str | None = Field(default=None, description="The tool-call id from the transcript.")
    tool: str = Field(min_length=1, description="The tool name.")
    arguments: dict[str, JsonValue] = Field(
        default_factory=dict, description="The exact arguments, parsed from JSON."
    )
    arguments_error: str | None = Field(
        default=None,
        description="Why the arguments could not be parsed; None when they parsed. Then raw_arguments holds them.",
    )
    raw_arguments: str | None = Field(
        default=None,
        description="The arguments as raw text, kept when they were not a valid JSON object.",
    )
    result: JsonValue = Field(default=None, description="The raw tool result as recorded.")
    is_error: bool = Field(default=False, description="Whether the tool result was an error.")
    latency_ms: float | None = Field(
        default=None, ge=0, description="Tool latency in milliseconds."
    )
    state: dict[str, JsonValue] = Field(
        default_factory=dict,
        description="Externalised state: retry count, files written, confirmations...",
    )

    @property
    def arguments_malformed(self) -> bool:
        """True when the call's arguments were not valid JSON (see ``raw_arguments``)."""
        return self.arguments_error is not None


@_record
class Reply(_Record):
    """One message of the agent to the user, and where it came among the tool calls."""

    text: str = Field(description="The message text.")
    after_steps: int = Field(
        ge=0,
        description="How many steps (tool calls) were issued before this message: 0 = before any call.",
    )


_validate_reply = Reply.__pydantic_validator__.validate_python


@_record
class RunRecord(_Record):
    """One run of an agent on one task in one epoch.

    ``final_answer`` is the text of the agent's last message to the user when the run ended with it,
    i.e. when no tool call came after that message. A run that ended on a tool call (cut by a step cap,
    or an agent that answers through a tool) has ``final_answer`` None, even if it spoke to the user
    earlier: every message it sent is in ``replies``, which success criteria read with ``over:
    any_reply`` or ``all_replies``.
    """

    schema_version: Literal[1, 2] = Field(
        default=SCHEMA_VERSION, description="Trajectory schema version."
    )
    run_id: str = Field(min_length=1, description="Unique id of this run.")
    task_id: str = Field(min_length=1, description="The task this run attempted.")
    epoch: int = Field(
        default=0, ge=0, description="Epoch / trial number of this (task, agent) pair."
    )
    agent: AgentInfo = Field(default_factory=AgentInfo, description="Agent and model identity.")
    input: JsonValue = Field(
        default=None, description="The task input (usually the user's request)."
    )
    steps: tuple[Step, ...] = Field(default=(), description="Tool calls in issue order.")
    final_answer: str | None = Field(
        default=None,
        description="The agent's last message to the user, when no tool call came after it.",
    )
    replies: tuple[Reply, ...] = Field(
        default=(),
        description="Every message of the agent to the user, in order, with its position.",
    )
    stop_reason: str | None = Field(
        default=None,
        description="Why the run ended: 'end_turn', 'max_steps', 'error', 'interrupted'...",
    )
    usage: Usage = Field(default_factory=Usage, description="Token usage over the whole run.")
    timing: Timing = Field(default_factory=Timing, description="Wall-clock timing.")
    metadata: dict[str, JsonValue] = Field(
        default_factory=dict,
        description="Free metadata, including 'source' (where it was imported from).",
    )

    # The version check is a field validator, not a model-level ``mode="before"`` one (see the
    # migration below).
    @field_validator("schema_version", mode="before")
    @classmethod
    def _not_newer(cls, version: Any) -> Any:
        if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
            raise PydanticCustomError(
                "schema_too_new",
                "schema_version {version} is newer than this pathjudge reads ({supported}); "
                "upgrade pathjudge",
                {"version": version, "supported": SCHEMA_VERSION},
            )
        return version

    @model_validator(mode="after")
    def _migrate_and_check_order(self) -> RunRecord:
        # One after-validator (one call per record, not two): migrate a version-1 record, then check
        # the replies' positions, then the steps' turns; the first problem is the error.
        #
        # Version 1 had no replies: its final answer was the one message to the user, after every
        # step. Done after validation, on the (rare) version-1 records only, because a model-level
        # before-validator makes pydantic build a Python dict of every line first (a quarter of the
        # read throughput); the record is still being constructed, so setting fields here is safe.
        steps = self.steps
        if self.schema_version == 1:
            if self.final_answer is not None and not self.replies:
                reply = _validate_reply(
                    {"text": self.final_answer, "after_steps": len(steps)}
                )  # the core validator directly: a quarter of the cost of Reply(...)
                object.__setattr__(self, "replies", (reply,))
            object.__setattr__(self, "schema_version", SCHEMA_VERSION)
        previous = 0
        for index, reply in enumerate(self.replies):
            if reply.after_steps < previous or reply.after_steps > len(steps):
                raise ValueError(
                    f"replies[{index}].after_steps is {reply.after_steps}; it must be between "
                    f"{previous} (the previous reply's) and {len(steps)} (the number of steps)"
                )
            previous = reply.after_steps
        previous = 0
        for index, step in enumerate(steps):
            if step.turn < previous:
                raise ValueError(
                    f"steps[{index}].turn is {step.turn} but an earlier step has turn {previous}; "
                    "steps must be in issue order"
                )
            previous = step.turn
        return self

    @property
    def truncated(self) -> bool:
        """Whether ``stop_reason`` says the run was cut (see :data:`TRUNCATED_STOP_REASONS`)."""
        return self.stop_reason in TRUNCATED_STOP_REASONS

    @property
    def tool_names(self) -> tuple[str, ...]:
        """Tool names in issue order."""
        return tuple(step.tool for step in self.steps)

    @property
    def error_count(self) -> int:
        """How many tool results were errors."""
        return sum(1 for step in self.steps if step.is_error)

    def turns(self) -> Iterator[tuple[Step, ...]]:
        """The steps grouped by model turn; each group is a set of parallel calls."""
        group: list[Step] = []
        for step in self.steps:
            if group and step.turn != group[0].turn:
                yield tuple(group)
                group = []
            group.append(step)
        if group:
            yield tuple(group)


Trajectory = RunRecord
"""Alias: a run record *is* the trajectory plus its identity, answer and accounting."""


def holds_unrepresentable_number(run: RunRecord) -> bool:
    """Whether ``run`` holds a number JSON cannot carry: NaN, an infinity (``Infinity`` or a literal
    beyond 1e308) or an integer literal over 300 characters, which pydantic's JSON parser accepts and
    :func:`pathjudge._json.loads` refuses (see :func:`pathjudge._json.unrepresentable`).

    It reads only the fields that can hold a number (:data:`NUMBER_FIELDS`), so it costs a few
    attribute reads plus a walk of the JSON-valued fields, and never the line's bytes again. Every
    number of a line sits in one of those fields, so it finds exactly what a scan of the line finds
    (a test pins it to :func:`pathjudge._json.finite_problem` over generated lines, and pins
    :data:`NUMBER_FIELDS` to the models' fields).
    """
    # the typed integers are validated >= 0, so only the upper bound can be crossed; a float x is
    # NaN or infinite exactly when x - x is not 0.0 (NaN - NaN and inf - inf are NaN)
    big = _BIG_INT
    usage = run.usage
    cost = usage.cost_usd
    duration = run.timing.duration_ms
    if (
        run.epoch >= big
        or usage.input_tokens >= big
        or usage.output_tokens >= big
        or usage.cache_creation_input_tokens >= big
        or usage.cache_read_input_tokens >= big
        or (cost is not None and cost - cost != 0.0)
        or (duration is not None and duration - duration != 0.0)
    ):
        return True
    found: Any = run.input
    if found is not None and type(found) is not str and unrepresentable_in(found):
        return True
    found = run.metadata
    if found and unrepresentable_in(found):
        return True
    for step in run.steps:
        latency = step.latency_ms
        if (
            step.turn >= big
            or (latency is not None and latency - latency != 0.0)
            or ((found := step.arguments) and unrepresentable_in(found))
            or ((found := step.state) and unrepresentable_in(found))
        ):
            return True
        found = step.result
        if found is not None and type(found) is not str and unrepresentable_in(found):
            return True
    # replies: after_steps is bounded by the number of steps (validated), its text a string
    return False


NUMBER_FIELDS: Final[dict[str, frozenset[str]]] = {
    "RunRecord": frozenset({"epoch", "input", "metadata", "schema_version"}),
    "Usage": frozenset(
        {
            "input_tokens",
            "output_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
            "cost_usd",
        }
    ),
    "Timing": frozenset({"duration_ms", "started_at", "ended_at"}),
    "Step": frozenset({"turn", "arguments", "result", "latency_ms", "state"}),
    "Reply": frozenset({"after_steps"}),
    "AgentInfo": frozenset(),
}
"""The fields of a run record (and the models inside it) that can hold a JSON number, by model:
what :func:`holds_unrepresentable_number` covers. ``schema_version`` (a literal 1 or 2), the
timestamps (a number there is a Unix time pydantic refuses when it is not finite) and ``after_steps``
(bounded by the number of steps) need no look."""

register_number_screen(RunRecord, holds_unrepresentable_number)
