"""Step efficiency: the step budget, redundant calls, and repeated loops.

YAML form (a task's ``steps:`` block)::

    steps:
      budget: 2            # at most this many tool calls (omit: no budget check)
      max_redundant: 0     # redundant calls tolerated (default 0)
      loop_threshold: 3    # a call or short cycle repeated this many times in a row is a loop
      scope: state_changing  # redundancy and loops look only at these calls (default: all)

The budget counts every call. ``scope`` (see :mod:`pathjudge.rubrics.scope`) and the task's
``errored_calls: ignore`` limit the redundancy and loop checks to the calls in view: a call outside
it is never redundant and never part of a loop, and calls are still reported by their index in the
run.

Two calls are *the same call* when they name the same tool and their arguments are equal as the
lenient argument profile compares values: keys in any order, ``5.0`` equal to ``5``, a boolean never a
number, lists in order, and strings exactly as written, never case-folded or trimmed (``"AA"``,
``"Aa"`` and ``"aa"`` are three different genotypes; see
:func:`~pathjudge.rubrics.assertions._normalize.canonical_json`). Calls whose arguments did not parse
compare by their raw text, exactly. Parallel calls of one turn count like any others.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics.assertions._normalize import (
    canonical_equal,
    canonical_json,
    canonical_key,
)
from pathjudge.rubrics.assertions.base import (
    CheckResult,
    FrozenDict,
    FrozenList,
    pass_fail,
    passing,
)
from pathjudge.rubrics.scope import ToolScope

__all__ = [
    "Loop",
    "StepSpec",
    "call_keys",
    "call_signature",
    "check_steps",
    "find_loops",
    "redundant_calls",
    "redundant_in",
    "same_call",
]


class StepSpec(BaseModel):
    """Budget and tolerances for the step-efficiency checks."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    budget: int | None = Field(default=None, ge=0, description="Maximum number of tool calls.")
    max_redundant: int = Field(default=0, ge=0, description="Redundant calls tolerated.")
    loop_threshold: int = Field(
        default=3,
        ge=2,
        description="Consecutive repetitions of a call or short cycle that make a loop.",
    )
    scope: ToolScope = Field(
        default="all",
        description="Which calls the redundancy and loop checks look at (see pathjudge.rubrics.scope).",
    )


def call_signature(step: Step) -> str:
    """``tool`` + canonical arguments: equal signatures mean the same call (see the module docstring)."""
    if step.arguments_error is not None:
        return f"{step.tool} raw:{step.raw_arguments or ''}"
    return f"{step.tool} {canonical_json(step.arguments)}"


_RAW = object()  # marks the key of a call whose arguments did not parse
_CLASS = object()  # marks the key of a call told apart by comparison: (tool, _CLASS, class number)

_COMPARED_CALLS = 8
"""The most calls of one tool that :func:`call_keys` tells apart by comparing them with each other
(at most 28 comparisons); a tool called more often gets canonical keys (linear in its calls)."""


def call_keys(steps: Sequence[Step]) -> list[Hashable] | None:
    """One hashable key per call, with ``keys[i] == keys[j]`` exactly when the calls' signatures are equal.

    Equal to comparing :func:`call_signature` texts, but cheaper: a call whose tool no other call of
    the run uses can equal no other call, so its key is its tool name and its arguments are never
    canonicalised. The calls of a tool called a few times (at most :data:`_COMPARED_CALLS`) are
    compared with one call of each class of equal calls found so far (:func:`same_call`, which
    tells most different calls apart without building a key), and their key is
    ``(tool, _CLASS, class number)``; the calls of a tool called more often get
    ``(tool, canonical_key(arguments))`` (see
    :func:`~pathjudge.rubrics.assertions._normalize.canonical_key`). When a tool name contains a
    space, the signature texts themselves are the keys: there calls of two different tools can have
    equal signatures (tool ``"a raw:x"`` with arguments ``{}`` and tool ``"a"`` with the unparsed
    arguments ``"x {}"`` both give ``"a raw:x {}"``). ``None`` when no tool name contains a space
    and every call uses a different tool (then no two calls are the same); no steps: ``None``.
    """
    tools = [step.tool for step in steps]
    if " " in "".join(tools):  # some tool name has a space
        return [call_signature(step) for step in steps]
    if len(set(tools)) == len(tools):
        return None
    calls_of: dict[str, list[int]] = {}
    for index, tool in enumerate(tools):
        found = calls_of.get(tool)
        if found is None:
            calls_of[tool] = [index]
        else:
            found.append(index)
    keys: list[Hashable] = list(tools)  # a tool no other call uses: its name
    for tool, indices in calls_of.items():
        if len(indices) == 1:
            continue
        if len(indices) > _COMPARED_CALLS:
            for index in indices:
                keys[index] = _canonical_call_key(steps[index])
            continue
        classes: list[Step] = []  # the first call of each class of equal calls
        for index in indices:
            step = steps[index]
            number = 0
            while number < len(classes) and not same_call(step, classes[number]):
                number += 1
            if number == len(classes):
                classes.append(step)
            keys[index] = (tool, _CLASS, number)
    return keys


def _canonical_call_key(step: Step) -> Hashable:
    """A key of ``step`` among the calls of its tool, equal exactly when their signatures are."""
    if step.arguments_error is not None:
        return (step.tool, _RAW, step.raw_arguments or "")
    return (step.tool, canonical_key(step.arguments))


def same_call(a: Step, b: Step) -> bool:
    """Whether two calls of one tool have equal :func:`call_signature` texts, without writing them.

    A signature is the tool, a space and either the canonical JSON of the arguments (which starts
    with ``{``) or ``raw:`` and the normalised raw text: with the tool the same, they are equal
    exactly when both parsed and their canonical forms are equal (see
    :func:`~pathjudge.rubrics.assertions._normalize.canonical_equal`), or neither parsed and the
    raw texts are equal.
    """
    if a.arguments_error is None:
        return b.arguments_error is None and canonical_equal(a.arguments, b.arguments)
    return b.arguments_error is not None and (a.raw_arguments or "") == (b.raw_arguments or "")


def redundant_calls(run: RunRecord) -> list[tuple[int, int]]:
    """Pairs ``(first, repeat)`` of step indices where ``repeat`` is the same call as the earlier ``first``.

    ``first`` is the first occurrence, so a call made three times gives two pairs (the count equals
    calls minus distinct calls). A repeat of a call whose latest previous occurrence errored is a
    retry, not a redundancy (the recovery checks judge retries). No steps: an empty list.
    """
    return _redundant_pairs(run.steps, call_keys(run.steps))


def redundant_in(steps: Sequence[Step]) -> list[tuple[int, int]]:
    """:func:`redundant_calls` over a sequence of steps (e.g. the calls in a scoped view of a run);
    the indices are positions in ``steps``."""
    return _redundant_pairs(steps, call_keys(steps))


def _redundant_pairs(steps: Sequence[Step], keys: list[Hashable] | None) -> list[tuple[int, int]]:
    """:func:`redundant_calls` over keys already computed by :func:`call_keys`."""
    if keys is None:
        return []
    return _pairs_and_distinct(steps, keys)[0]


def _pairs_and_distinct(
    steps: Sequence[Step], keys: list[Hashable]
) -> tuple[list[tuple[int, int]], int]:
    """The redundant pairs over ``keys``, and how many distinct keys there are."""
    # key -> [index of its first call, whether its latest call errored]: one lookup per call (a
    # key is a nested tuple whose hash is not cached, so each lookup hashes it again)
    seen: dict[Hashable, list[Any]] = {}
    pairs: list[tuple[int, int]] = []
    for index, key in enumerate(keys):
        found = seen.get(key)
        if found is None:
            seen[key] = [index, steps[index].is_error]
        else:
            if not found[1]:
                pairs.append((found[0], index))
            found[1] = steps[index].is_error
    return pairs, len(seen)


@dataclass(frozen=True, slots=True)
class Loop:
    """``repeats`` consecutive copies of a cycle of ``period`` calls starting at step ``start``."""

    start: int
    period: int
    repeats: int
    tools: tuple[str, ...]
    indices: tuple[int, ...] | None = None
    """The run indices of the loop's calls when they are not consecutive in the run (a scoped view)."""

    @property
    def end(self) -> int:
        """Index one past the last step of the loop."""
        if self.indices is not None:
            return self.indices[-1] + 1
        return self.start + self.period * self.repeats

    def describe(self) -> str:
        cycle = " → ".join(self.tools)
        what = "the same call" if self.period == 1 else f"the cycle {cycle}"
        head = f"{self.tools[0]} " if self.period == 1 else ""
        return f"{head}{what} repeated {self.repeats}x at steps {self.start}..{self.end - 1}"

    def as_dict(self) -> dict[str, JsonValue]:
        out: dict[str, JsonValue] = {
            "start": self.start,
            "period": self.period,
            "repeats": self.repeats,
            "tools": list(self.tools),
        }
        if self.indices is not None:
            out["indices"] = list(self.indices)
        return out


def find_loops(run: RunRecord, threshold: int = 3, max_period: int = 3) -> list[Loop]:
    """Maximal runs of one call (period 1) or one short cycle (period ≤ ``max_period``) repeated
    back to back at least ``threshold`` times, in step order and non-overlapping.

    Shorter periods win: ``A A A A`` is one period-1 loop, never a period-2 one. Calls with different
    arguments differ, so searching three times with three different queries is not a loop. No steps
    (or fewer than ``threshold``): an empty list.
    """
    if threshold < 2:
        raise ValueError("threshold must be at least 2")
    return _find_loops(run.steps, call_keys(run.steps), threshold, max_period)


def _find_loops(
    steps: Sequence[Step],
    keys: list[Hashable] | None,
    threshold: int,
    max_period: int = 3,
    distinct: int | None = None,
) -> list[Loop]:
    """:func:`find_loops` over keys already computed by :func:`call_keys` (``threshold >= 2``);
    ``distinct``, when known, is the number of distinct keys."""
    # a loop repeats some call, so with every call distinct (or too few calls) there is none
    if keys is None or len(keys) < threshold:
        return []
    # A loop of ``repeats >= threshold`` copies of a ``period``-call block holds at most ``period``
    # distinct keys in ``period * repeats`` calls, so at least ``threshold - 1`` of its calls repeat
    # an earlier key: with fewer repeated keys in the whole run there is no loop.
    if distinct is not None and len(keys) - distinct < threshold - 1:
        return []
    sigs = keys
    n = len(sigs)
    covered = [False] * n
    loops: list[Loop] = []
    for period in range(1, max_period + 1):
        start = 0
        while start + period * threshold <= n:
            block = sigs[start : start + period]
            if any(covered[start : start + period]):
                start += 1
                continue
            repeats = 1
            while (
                start + (repeats + 1) * period <= n
                and sigs[start + repeats * period : start + (repeats + 1) * period] == block
                and not any(covered[start + repeats * period : start + (repeats + 1) * period])
            ):
                repeats += 1
            if repeats >= threshold:
                end = start + repeats * period
                for index in range(start, end):
                    covered[index] = True
                tools = tuple(step.tool for step in steps[start : start + period])
                loops.append(Loop(start=start, period=period, repeats=repeats, tools=tools))
                start = end
            else:
                start += 1
    loops.sort(key=lambda loop: loop.start)
    return loops


def check_steps(
    run: RunRecord, spec: StepSpec, view: Sequence[int] | None = None
) -> tuple[CheckResult, ...]:
    """``steps.budget`` (only when a budget is set), ``steps.redundant`` and ``steps.loop``.

    - budget: passes when ``len(steps) <= budget``; score 1 or 0.
    - redundant: passes when the number of redundant calls is at most ``max_redundant``; score is
      the fraction of calls that were not redundant (1.0 for a run with no steps). Its details carry
      the redundant ``(first, repeat)`` pairs (see :func:`redundant_calls`).
    - loop: passes when :func:`find_loops` finds none at ``loop_threshold``; score 1 or 0.

    ``view`` holds the indices of the calls the redundancy and loop checks look at (``None``: every
    call; see :func:`pathjudge.rubrics.scope.visible_calls`); the budget always counts every call, and
    every index reported is the call's index in the run.

    The calls' keys are computed once and shared by the redundancy and loop checks; the results of
    the common outcomes (within budget, no redundant call, no loop) depend on a few numbers alone and
    are built once per distinct value (results are immutable, so sharing them is safe).
    """
    if view is None:
        steps = run.steps
        keys = call_keys(steps)
        if keys is None:  # every call differs from every other: nothing redundant, no loop
            return _clean_results(len(steps), spec.budget, len(steps), spec.loop_threshold)
        pairs, distinct = _pairs_and_distinct(steps, keys)
        loops = _find_loops(steps, keys, spec.loop_threshold, distinct=distinct)
        if not pairs and not loops:
            return _clean_results(len(steps), spec.budget, len(steps), spec.loop_threshold)
    else:
        steps = tuple(run.steps[i] for i in view)
        pairs, loops = _repeats(steps, spec)
        if not pairs and not loops:
            return _clean_results(len(run.steps), spec.budget, len(view), spec.loop_threshold)
        pairs = [(view[first], view[repeat]) for first, repeat in pairs]
        loops = [
            Loop(
                start=view[loop.start],
                period=loop.period,
                repeats=loop.repeats,
                tools=loop.tools,
                indices=tuple(view[i] for i in range(loop.start, loop.end)),
            )
            for loop in loops
        ]
        steps = run.steps
    n = len(view) if view is not None else len(steps)
    results: list[CheckResult] = []
    if spec.budget is not None:
        results.append(_budget_result(len(steps), spec.budget))
    count = len(pairs)
    if count:
        shown = "; ".join(
            f"call #{repeat + 1} repeats call #{first + 1} {steps[repeat].tool}"
            for first, repeat in pairs[:5]
        )
        reason = f"{count} of {n} calls redundant (max {spec.max_redundant}): {shown}"
        if count > 5:
            reason += f"; and {count - 5} more"
        results.append(
            CheckResult(
                check="steps.redundant",
                axis="step_efficiency",
                status="fail" if count > spec.max_redundant else "pass",
                score=(n - count) / n if n else 1.0,
                reason=reason,
                # built frozen (what CheckResult would make of the plain lists)
                details=FrozenDict(
                    pairs=FrozenList([FrozenList(pair) for pair in pairs]), count=count
                ),
            )
        )
    else:
        results.append(_no_redundant_result(n))
    if loops:
        results.append(
            CheckResult(
                check="steps.loop",
                axis="step_efficiency",
                status="fail",
                score=0.0,
                reason="; ".join(loop.describe() for loop in loops),
                details={"loops": [loop.as_dict() for loop in loops]},
            )
        )
    else:
        results.append(_no_loop_result(spec.loop_threshold))
    return tuple(results)


def _repeats(steps: Sequence[Step], spec: StepSpec) -> tuple[list[tuple[int, int]], list[Loop]]:
    keys = call_keys(steps)
    if keys is None:
        return [], []
    pairs, distinct = _pairs_and_distinct(steps, keys)
    return pairs, _find_loops(steps, keys, spec.loop_threshold, distinct=distinct)


# The results of the common outcomes, shared between runs (CheckResult is frozen).


@functools.lru_cache(maxsize=1024)
def _clean_results(
    calls: int, budget: int | None, seen: int, threshold: int
) -> tuple[CheckResult, ...]:
    """What :func:`check_steps` gives a run of ``calls`` calls, ``seen`` of them looked at, with no
    redundant call and no loop: it depends on these numbers alone, so it is built once per value."""
    budget_result = () if budget is None else (_budget_result(calls, budget),)
    return (*budget_result, _no_redundant_result(seen), _no_loop_result(threshold))


@functools.lru_cache(maxsize=1024)
def _budget_result(n: int, budget: int) -> CheckResult:
    over = n > budget
    return pass_fail(
        check="steps.budget",
        axis="step_efficiency",
        ok=not over,
        reason=f"{n} tool call{'s' if n != 1 else ''} against a budget of {budget}"
        + (f" ({n - budget} over)" if over else ""),
        details={"steps": n, "budget": budget},
    )


@functools.lru_cache(maxsize=256)
def _no_redundant_result(n: int) -> CheckResult:
    return passing(
        check="steps.redundant",
        axis="step_efficiency",
        reason=f"no redundant calls among {n}",
        details={"pairs": [], "count": 0},
    )


@functools.lru_cache(maxsize=64)
def _no_loop_result(threshold: int) -> CheckResult:
    return passing(
        check="steps.loop",
        axis="step_efficiency",
        reason=f"no call or cycle repeated {threshold}x in a row",
        details={"loops": []},
    )
