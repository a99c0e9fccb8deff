"""What a reference path is: its modes, fault costs, steps, and the matcher of each step.

A suite file holds :class:`ReferencePath` objects; :func:`compile_reference` turns one into the
aligner's view, one :class:`RefSpec` (label, tool, matcher, dependencies) per step. A step's matcher
compares a call's arguments (by :func:`~pathjudge.rubrics.assertions.arguments.match_call`) and its
result (:func:`result_contains`). The ``after`` dependencies of a partial order are checked when the
reference is read (:func:`_topology`: no cycle, no chain deeper than :data:`MAX_AFTER_DEPTH`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, cast

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from pathjudge.agent.trajectory import Step
from pathjudge.rubrics.assertions.arguments import (
    NOT_LITERAL,
    CallExpectation,
    EqMatcher,
    literal_value,
    match_call,
    number_leaves,
    same_kinds,
)
from pathjudge.rubrics.path.records import ArgDiff, StepMatch, StepMatcher
from pathjudge.rubrics.scope import ErroredCalls, ToolScope, describe_scope, tool_in_scope

__all__ = [
    "MAX_AFTER_DEPTH",
    "MODES",
    "FaultCosts",
    "Mode",
    "RefSpec",
    "ReferencePath",
    "ReferenceStep",
    "compile_reference",
    "literal_arguments",
    "result_contains",
]


Mode = Literal["strict", "in_order", "unordered", "subset", "superset", "partial_order"]
MODES: tuple[Mode, ...] = ("strict", "in_order", "unordered", "subset", "superset", "partial_order")

_REQUIRES_ALL: frozenset[str] = frozenset(
    {"strict", "in_order", "unordered", "superset", "partial_order"}
)
_FORBIDS_EXTRA: frozenset[str] = frozenset({"strict", "unordered", "subset"})

MAX_AFTER_DEPTH = 1_000
"""The longest chain of ``after`` a partial-order reference may have (each step's ancestors are
kept whole, so a longer chain costs memory by its square)."""


class FaultCosts(BaseModel):
    """Points taken off 100 per path fault. Defaults are the path-score lesson's 25/10/20/15."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    missing: int = Field(
        default=25, ge=0, description="Per reference step not matched by any call."
    )
    wasted: int = Field(
        default=10,
        ge=0,
        description="Per wasted call (a repeat, or an extra where none is allowed).",
    )
    over_budget: int = Field(
        default=20, ge=0, description="Once, when the run has more calls than its step budget."
    )
    wrong_order: int = Field(
        default=15, ge=0, description="Once, when the reference order is not respected."
    )


_DEFAULT_COSTS = FaultCosts()


class ReferenceStep(CallExpectation):
    """One step of a reference path: an expected call plus its id, dependencies and result check.

    A step that lists no ``args`` (and no ``extra_args``) accepts any arguments. ``after`` lists the
    ids of the steps whose results this one needs (only meaningful in ``partial_order`` mode).
    ``result_contains`` lists strings that the call's result must carry (see :func:`result_contains`),
    e.g. the id of the document that holds the answer.
    """

    id: str | None = Field(
        default=None, min_length=1, description="Step id, referenced by 'after'."
    )
    after: tuple[str, ...] = Field(default=(), description="Ids of steps this one must come after.")
    result_contains: tuple[str, ...] = Field(
        default=(), description="Strings the call's result must contain (e.g. a document id)."
    )

    @model_validator(mode="before")
    @classmethod
    def _any_args_by_default(cls, data: object) -> object:
        if isinstance(data, Mapping) and "args" not in data and "extra_args" not in data:
            return {**data, "extra_args": "allow"}
        return data


class ReferencePath(BaseModel):
    """An acceptable path: steps and the mode that says how a run must contain them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str | None = Field(
        default=None, description="Name shown in reasons (default: reference N)."
    )
    mode: Mode = Field(default="in_order", description="How the run must contain the steps.")
    scope: ToolScope = Field(
        default="all",
        description="Which calls the reference is aligned with; calls outside it are neither "
        "extra nor wasted (see pathjudge.rubrics.scope).",
    )
    errored_calls: ErroredCalls | None = Field(
        default=None,
        description="count | ignore: whether calls whose result was an error are aligned "
        "(default: the task's errored_calls).",
    )
    steps: tuple[ReferenceStep, ...] = Field(description="The reference steps, in reference order.")

    @model_validator(mode="after")
    def _check_ids(self) -> ReferencePath:
        seen: set[str] = set()
        for step in self.steps:
            if step.id is not None:
                if step.id in seen:
                    raise ValueError(f"step id {step.id!r} appears twice in one reference")
                seen.add(step.id)
        for step in self.steps:
            if step.after and self.mode != "partial_order":
                raise ValueError(
                    f"step {step.id or step.tool!r} lists 'after' but the mode is {self.mode!r}; "
                    "'after' only applies in mode partial_order"
                )
            unknown = [a for a in step.after if a not in seen]
            if unknown:
                raise ValueError(
                    f"step {step.id or step.tool!r} lists unknown step ids in 'after': {', '.join(unknown)}"
                )
        if self.mode == "partial_order":
            _topology(compile_reference(self))
        if self.scope != "all" and self.scope != "state_changing":
            outside = [
                step.id or step.tool
                for step in self.steps
                if not tool_in_scope(step.tool, self.scope)
            ]
            if outside:
                raise ValueError(
                    f"step {outside[0]!r} calls a tool outside the reference's scope "
                    f"({describe_scope(self.scope)}); widen the scope or remove the step"
                )
        return self


@dataclass(frozen=True, slots=True)
class RefSpec:
    """A reference step as the aligner sees it: its label, tool, matcher and dependencies."""

    label: str
    tool: str
    matcher: StepMatcher
    after: tuple[str, ...] = ()


def _step_label(step: ReferenceStep, position: int) -> str:
    """How reasons name the reference step at 0-based ``position``: its id, else ``#N`` (1-based)."""
    return step.id or f"#{position + 1}"


def compile_reference(reference: ReferencePath) -> tuple[RefSpec, ...]:
    """The aligner's view of a reference: one :class:`RefSpec` per step (unnamed steps are ``#N``)."""
    return tuple(
        RefSpec(
            label=_step_label(step, i),
            tool=step.tool,
            matcher=_step_matcher(step),
            after=step.after,
        )
        for i, step in enumerate(reference.steps)
    )


def literal_arguments(step: CallExpectation) -> dict[str, JsonValue] | None:
    """The expected arguments as one plain JSON object when every matcher is an exact value, else
    ``None``.

    Exact means, at any depth: ``$eq`` (or a bare scalar) with no string normalisation, a literal
    list (same length, items in order) or a literal object (exactly its keys), none of them
    ``$optional``. Then (with ``extra_args: forbid``, no schema and the lenient typing profile) a
    call matches exactly when its arguments are JSON-equal to the object, which is much cheaper to
    test than running the matchers. Under the ``bfcl`` profile only exact strings qualify (its
    typing rules are not JSON equality for numbers).
    """
    if step.extra_args != "forbid" or step.json_schema is not None:
        return None
    out: dict[str, JsonValue] = {}
    for key, matcher in step.args.items():
        if step.types == "lenient":
            value = literal_value(matcher)
            if value is NOT_LITERAL:
                return None
            out[key] = value
        elif (
            isinstance(matcher, EqMatcher)
            and matcher.normalize == "none"
            and not matcher.optional
            and isinstance(matcher.value, str)
        ):
            out[key] = matcher.value
        else:
            return None
    return out


def _step_matcher(step: ReferenceStep, exits: bool = True) -> StepMatcher:
    """The matcher of one reference step: the call's arguments by :func:`match_call`, then the
    step's ``result_contains``.

    Cheap exits (``exits=False``: none, the plain path the tests pin them to), each giving what
    :func:`match_call` gives: a step that lists no argument, lets other arguments through and has
    no schema matches every call of its tool; a call whose arguments are JSON-equal to a step of
    exact values matches it (see :func:`literal_arguments`); a full match shares one result.
    """
    wanted = step.result_contains
    literal = literal_arguments(step) if exits else None
    leaves = number_leaves(literal) if literal is not None else ()
    exact = StepMatch(True, 1.0, ())
    anything = exits and not step.args and step.extra_args != "forbid" and step.json_schema is None

    def match(call: Step) -> StepMatch:
        if call.arguments_error is not None:
            return StepMatch(
                False,
                0.0,
                (
                    ArgDiff(
                        path="",
                        reason=f"arguments not valid JSON: {call.arguments_error}",
                        kind="malformed",
                    ),
                ),
            )
        if anything or (
            literal is not None
            and call.arguments == literal
            and (not leaves or same_kinds(call.arguments, leaves))
        ):
            found = exact
        else:
            result = match_call(call.tool, call.arguments, step)
            found = (
                exact
                if exits and result.ok  # no mismatch: score 1.0 (match_call's shared success)
                else StepMatch(
                    result.ok,
                    result.score,
                    tuple([ArgDiff(m.path, m.reason, m.kind) for m in result.mismatches]),
                )
            )
        if wanted:
            absent = [w for w in wanted if not result_contains(call.result, w)]
            if absent:
                reason = "does not contain " + ", ".join(absent)
                return StepMatch(
                    False,
                    found.score,
                    (*found.diffs, ArgDiff(path="result", reason=reason, kind="result")),
                )
        return found

    return match


def _walk_strings(value: JsonValue) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _walk_strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _walk_strings(item)


def result_contains(result: JsonValue, wanted: str) -> bool:
    """Whether a tool result carries ``wanted``: as a whole string value anywhere in the JSON result.

    A string result that is itself JSON (an array or object) is parsed and searched the same way; any
    other string result matches when ``wanted`` appears in it as a whole word. ``None`` contains nothing.
    """
    if isinstance(result, str):
        stripped = result.lstrip()
        if stripped[:1] in ("[", "{"):
            try:
                parsed: JsonValue = json.loads(result)
            except ValueError:
                pass
            else:
                return any(s == wanted for s in _walk_strings(parsed))
        return re.search(rf"(?<![\w-]){re.escape(wanted)}(?![\w-])", result) is not None
    return any(s == wanted for s in _walk_strings(result))


def _topology(
    refs: Sequence[RefSpec] | Sequence[tuple[str, tuple[str, ...]]],
) -> tuple[list[int], list[frozenset[int]]]:
    """A topological order of the refs (stable) and each ref's transitive ancestors (``refs``: the
    steps, or their ``(label, after)``)."""
    shape = [ref if isinstance(ref, tuple) else (ref.label, ref.after) for ref in refs]
    index = {label: i for i, (label, _) in enumerate(shape)}
    parents = [[index[a] for a in after] for _, after in shape]
    ancestors: list[frozenset[int] | None] = [None] * len(refs)

    def anc(start: int) -> frozenset[int]:
        # depth first, parents in order, with an explicit stack of (step, next parent to look at): a
        # chain of 'after' as long as the reference never overflows the interpreter's stack, and
        # each parent list is walked once
        known = ancestors[start]
        if known is not None:
            return known
        stack = [[start, 0]]
        on_path = {start}
        while stack:
            frame = stack[-1]
            i, k = frame
            mine = parents[i]
            while k < len(mine) and ancestors[mine[k]] is not None:
                k += 1
            frame[1] = k
            if k < len(mine):
                pending = mine[k]
                if pending in on_path:
                    raise ValueError(
                        f"reference step {shape[pending][0]!r} depends on itself through 'after'"
                    )
                if len(stack) > MAX_AFTER_DEPTH:
                    raise ValueError(
                        f"reference step {shape[start][0]!r} comes after a chain of more than "
                        f"{MAX_AFTER_DEPTH} steps through 'after'; split the reference"
                    )
                stack.append([pending, 0])
                on_path.add(pending)
                continue
            acc: set[int] = set()
            for p in mine:
                acc.add(p)
                acc |= cast(frozenset[int], ancestors[p])
            ancestors[i] = frozenset(acc)
            stack.pop()
            on_path.discard(i)
        return cast(frozenset[int], ancestors[start])

    resolved = [anc(i) for i in range(len(refs))]
    topo = sorted(range(len(refs)), key=lambda i: (len(resolved[i]), i))
    return topo, resolved
