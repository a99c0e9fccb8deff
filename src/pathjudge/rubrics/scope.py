"""Tool scopes and the errored-call policy: which of a run's calls a check looks at.

Real benchmarks grade what an agent *changed*, not every call it made. tau-bench, for instance, replays
the expected write actions and compares database states: reads (``get_*``, ``search_*``), scratch tools
(``think``, ``calculate``) and calls that failed with an error never change that state. A suite says so
declaratively, with no preprocessing of the runs:

.. code-block:: yaml

    defaults:
      tools:
        read_only: ["get_*", "search_*", "list_*", "calculate", "think"]   # glob patterns, once
      errored_calls: ignore            # count (default) | ignore
    tasks:
      - id: cancel-three
        references:
          - mode: unordered            # the in-scope calls must be exactly this multiset
            scope: state_changing      # or {tools: [cancel_*]} / {exclude: [send_email]}
            steps: [...]

**Scope** (:data:`ToolScope`) picks tools by name:

- ``all`` (the default): every tool;
- ``state_changing``: every tool that matches none of the task's ``tools.read_only`` patterns (it is an
  error to ask for it when no read-only pattern is declared, since it would silently mean ``all``);
- ``{tools: [patterns]}``: only the tools matching one of the patterns;
- ``{exclude: [patterns]}``: every tool except those matching one of the patterns.

Patterns are shell globs matched case-sensitively against the whole tool name (``*``, ``?``,
``[abc]``; :func:`fnmatch.fnmatchcase`); a plain name matches only itself.

A scope is declared where it applies: on a reference (``references[].scope``: the path alignment),
on ``tools.scope`` (the ``tools.forbidden`` check) and on ``steps.scope`` (the redundancy and loop
checks). A call outside the scope is invisible to that check: it is neither a reference step's match,
nor an extra, nor a wasted call, nor a repeat. The step budget always counts every call.

**Errored calls** (:data:`ErroredCalls`), declared on a task (or in ``defaults``) and overridable per
reference: ``count`` (the default) treats a call whose result was an error like any other call;
``ignore`` takes the view that it changed no state, so it is invisible to the path alignment, the
``tools.forbidden`` check, the argument checks (``arguments.valid_json``, ``arguments.match``) and
the redundancy and loop checks. Error recovery, the step budget and the tool-choice checks
(``tools.required``, ``tools.distractor``, ``tools.first_call``) still see it: they judge behaviour,
not state. Which calls are errors is decided by the importer (``Step.is_error``; see
:mod:`pathjudge.agent.importers`).

The view (:func:`visible_calls`) is a tuple of the indices of the calls a check sees, in run order;
checks report calls by their index in the whole run, never by their position in the view.
"""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase
from typing import Literal, TypeAlias

from pydantic import Field, field_validator

from pathjudge._records import FrozenModel
from pathjudge.agent.trajectory import Step

__all__ = [
    "ERRORED_CALLS",
    "ErroredCalls",
    "ScopeExclude",
    "ScopeTools",
    "ToolScope",
    "describe_scope",
    "matches_any",
    "needs_read_only",
    "tool_in_scope",
    "visible_calls",
]

ErroredCalls = Literal["count", "ignore"]
"""``count``: an errored call is a call like any other; ``ignore``: it changed no state (see above)."""
ERRORED_CALLS: tuple[ErroredCalls, ...] = ("count", "ignore")


def _patterns(value: tuple[str, ...]) -> tuple[str, ...]:
    for pattern in value:
        if not pattern.strip():
            raise ValueError("a tool pattern may not be empty")
    return value


class ScopeTools(FrozenModel):
    """Only the tools matching one of ``tools`` (glob patterns) are in scope."""

    tools: tuple[str, ...] = Field(
        min_length=1, description="Glob patterns of the tools in scope, e.g. ['cancel_*']."
    )

    _check = field_validator("tools")(_patterns)


class ScopeExclude(FrozenModel):
    """Every tool except those matching one of ``exclude`` (glob patterns) is in scope."""

    exclude: tuple[str, ...] = Field(
        min_length=1, description="Glob patterns of the tools out of scope, e.g. ['send_email']."
    )

    _check = field_validator("exclude")(_patterns)


ToolScope: TypeAlias = Literal["all", "state_changing"] | ScopeTools | ScopeExclude
"""Which tools a check looks at: ``all``, ``state_changing``, ``{tools: [...]}`` or ``{exclude: [...]}``."""


def matches_any(tool: str, patterns: Sequence[str]) -> bool:
    """Whether ``tool`` matches one of the glob ``patterns`` (case-sensitive, whole name).

    >>> matches_any("get_user_details", ["get_*", "think"])
    True
    >>> matches_any("cancel_reservation", ["get_*", "think"])
    False
    """
    return any(tool == pattern or fnmatchcase(tool, pattern) for pattern in patterns)


def tool_in_scope(tool: str, scope: ToolScope, read_only: Sequence[str] = ()) -> bool:
    """Whether calls of ``tool`` are in ``scope``; ``read_only`` holds the task's read-only patterns.

    >>> tool_in_scope("think", "state_changing", ["think"])
    False
    >>> tool_in_scope("book_flight", ScopeExclude(exclude=("send_*",)))
    True
    """
    if scope == "all":
        return True
    if scope == "state_changing":
        return not matches_any(tool, read_only)
    if isinstance(scope, ScopeTools):
        return matches_any(tool, scope.tools)
    return not matches_any(tool, scope.exclude)


def needs_read_only(scope: ToolScope) -> bool:
    """Whether the scope depends on the task's ``tools.read_only`` patterns."""
    return scope == "state_changing"


def describe_scope(scope: ToolScope) -> str:
    """The scope in a few words, for reasons: ``state-changing tools``, ``tools cancel_*``..."""
    if scope == "all":
        return "all tools"
    if scope == "state_changing":
        return "state-changing tools"
    if isinstance(scope, ScopeTools):
        return "tools " + ", ".join(scope.tools)
    return "tools except " + ", ".join(scope.exclude)


def visible_calls(
    steps: Sequence[Step],
    *,
    scope: ToolScope = "all",
    read_only: Sequence[str] = (),
    errored: ErroredCalls = "count",
) -> tuple[int, ...] | None:
    """The indices of the calls a check sees, in run order; ``None`` when it sees every call.

    A call is visible when its tool is in ``scope`` (see :func:`tool_in_scope`) and, under
    ``errored="ignore"``, its result was not an error. ``None`` (rather than ``range(len(steps))``)
    lets callers keep their fast path when nothing is filtered. No steps: ``None``.
    """
    if scope == "all" and errored == "count":
        return None
    keep: list[int] = []
    cache: dict[str, bool] = {}
    for index, step in enumerate(steps):
        if errored == "ignore" and step.is_error:
            continue
        tool = step.tool
        inside = cache.get(tool)
        if inside is None:
            inside = cache[tool] = tool_in_scope(tool, scope, read_only)
        if inside:
            keep.append(index)
    if len(keep) == len(steps):
        return None
    return tuple(keep)
