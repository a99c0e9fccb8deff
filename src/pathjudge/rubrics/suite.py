"""Suites: the YAML file that says what good looks like for each task, validated by Pydantic.

A suite file::

    schema_version: 1
    name: docent
    weights: {success: 2, tool_calls: 1, trajectory: 1}   # optional weights of the overall score
    gate: {block_on: [success, trajectory]}               # optional: what blocks `pathjudge diff`
    defaults:                                             # deep-merged under every task
      tools: {required: [search_docs]}
      steps: {budget: 4}
      costs: {missing: 25, wasted: 10, over_budget: 20, wrong_order: 15}
    tasks:
      - id: rate-429
        input: What HTTP status code does Meridian return when you exceed the rate limit?
        kind: factual                      # a refusal fails (out_of_scope: only a refusal passes)
        success: {kind: contains_all, values: ["429"]}
        references:                        # several acceptable paths; the best one counts
          - mode: strict
            steps: [{tool: search_docs, result_contains: [ratelimits]}]
        surface: [ratelimits]              # results that must come back from some tool call
        steps: {budget: 1}                 # overrides the default budget of 4

Defaults are deep-merged: mappings merge key by key (the task's value wins), anything else (lists,
strings, numbers) is replaced by the task's value. Every problem — a typo'd key, an unknown mode or
matcher, a duplicate task id, a duplicate YAML key — is a :class:`~pathjudge.errors.SuiteError` naming
the file, the YAML line and the field; nothing is silently ignored.
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Iterator, Mapping, Sequence, Set
from pathlib import Path
from typing import Any, Literal, get_args

import yaml
from pydantic import (
    Field,
    JsonValue,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from pathjudge._io import format_loc
from pathjudge._records import FrozenModel
from pathjudge._yaml import load_yaml, read_text
from pathjudge.errors import SuiteError
from pathjudge.rubrics.assertions._bfcl import BfclLanguage
from pathjudge.rubrics.assertions.arguments import CallExpectation, TypeProfile
from pathjudge.rubrics.assertions.outcome import (
    AllOfCriterion,
    CallableCriterion,
    CallablePolicy,
    RefusalCriterion,
    SuccessCriterion,
    callable_allowed,
)
from pathjudge.rubrics.assertions.recovery import RecoverySpec
from pathjudge.rubrics.assertions.said_vs_did import SaidVsDidSpec
from pathjudge.rubrics.assertions.steps import StepSpec
from pathjudge.rubrics.assertions.tools import ToolSelectionSpec
from pathjudge.rubrics.criteria import suite_criterion_problem
from pathjudge.rubrics.path import FaultCosts, ReferencePath
from pathjudge.rubrics.scope import ErroredCalls, matches_any, needs_read_only

__all__ = [
    "GATE_RULES",
    "SUITE_SCHEMA_VERSION",
    "UNDECIDED_POLICIES",
    "WEIGHT_KEYS",
    "GateRule",
    "JudgedInput",
    "JudgedSpec",
    "PassedSpec",
    "QueryOverlapSpec",
    "Suite",
    "SuiteGate",
    "Task",
    "TaskKind",
    "UndecidedPolicy",
    "WeightKey",
    "deep_merge",
    "load_suite",
    "parse_suite",
    "parse_suite_text",
    "tool_name_warnings",
    "unreferenced_tools",
]

SUITE_SCHEMA_VERSION = 1

TaskKind = Literal["factual", "out_of_scope"]

JudgedInput = Literal["final_answer", "replies", "input", "reference", "tool_results", "tool_calls"]
"""Where a judged criterion's input comes from.

- ``final_answer``: the run's final answer (empty text when there is none);
- ``replies``: every message of the agent to the user, in order, separated by blank lines;
- ``input``: the task input (as text; JSON for structured inputs);
- ``reference``: the ``reference`` text written on the judged spec;
- ``tool_results``: every call's result, one per line as ``tool: result-json``;
- ``tool_calls``: every call, one per line as ``tool(arguments-json)``.
"""

WeightKey = Literal[
    "success",
    "tool_calls",
    "trajectory",
    "path",
    "tool_selection",
    "argument_correctness",
    "step_efficiency",
    "error_recovery",
    "goal_completion",
]
WEIGHT_KEYS: tuple[WeightKey, ...] = get_args(WeightKey)


GateRule = Literal["success", "significance", "trajectory", "cost", "coverage"]
"""A rule of the baseline-vs-candidate gate (see :mod:`pathjudge.scoring.diff`)."""
GATE_RULES: tuple[GateRule, ...] = ("success", "significance", "trajectory", "cost", "coverage")

_DEFAULT_JUDGED_INPUTS: dict[str, JudgedInput] = {"answer": "final_answer", "question": "input"}


class JudgedSpec(FrozenModel):
    """A judged criterion on a task: which criterion, and which run fields feed its named inputs."""

    criterion: str = Field(min_length=1, description="Criterion id, e.g. 'summary-covers-points'.")
    inputs: dict[str, JudgedInput] = Field(
        default_factory=lambda: dict(_DEFAULT_JUDGED_INPUTS),
        description="Criterion input name -> where its text comes from.",
    )
    reference: str | None = Field(
        default=None, description="Text fed to inputs whose source is 'reference'."
    )

    @field_validator("criterion")
    @classmethod
    def _criterion_inside_the_suite(cls, value: str) -> str:
        # a suite is data: its criterion files are resolved inside its own folder, never elsewhere
        problem = suite_criterion_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _reference_given(self) -> JudgedSpec:
        if "reference" in self.inputs.values() and self.reference is None:
            raise ValueError("an input reads from 'reference' but no 'reference' text is given")
        return self


UndecidedPolicy = Literal["pass", "fail", "exclude"]
"""What an undecided run counts as in the per-run ``passed`` verdict."""
UNDECIDED_POLICIES: tuple[UndecidedPolicy, ...] = ("pass", "fail", "exclude")


class PassedSpec(FrozenModel):
    """How a run's one verdict, ``passed``, is reached (a task's ``passed:`` block, or in ``defaults``).

    ``passed`` is true when the task succeeded and every counted gating check passed: a counted check
    that failed makes it false; else a counted check that broke (status ``error``) or an undecided
    success makes the run *undecided*, which counts as ``undecided`` says (``exclude``: left out of
    the passed rate and counted apart). ``checks`` picks the checks that count by id (glob patterns;
    default all; ``[]``: none). With ``path: true`` the best reference path must also be satisfied
    (it then blocks as ``path``); with ``path: false`` the path is trajectory quality, reported
    apart, as a right answer by a poor path is. Left out, the path counts exactly when the task has
    references and nothing else says what done means (no success criterion, no ``kind``, no judged
    criterion): the references are then the task's only statement of the expected outcome, and a run
    that misses them must not pass. A task with no success criterion, no ``kind`` and no judged
    criterion is judged on its checks and path alone. Checks that did not run (``not_run``: nothing
    to check) and diagnostics (``gating: false``) never count. A run cut short always counts
    (``outcome.truncated``, whatever ``checks`` says): it fails under the task's ``truncated: fail``
    and is undecided otherwise, never graded as complete.
    """

    undecided: UndecidedPolicy = Field(
        default="exclude",
        description="pass | fail | exclude: what an undecided run counts as.",
    )
    checks: tuple[str, ...] = Field(
        default=("*",),
        description="Glob patterns of the check ids that count, e.g. ['tools.*', 'arguments.*']; "
        "default: every gating check; []: none.",
    )
    path: bool | None = Field(
        default=None,
        description="Whether the best reference path must be satisfied too (it blocks as 'path'); "
        "default: only on a task with references and no success criterion, kind or judged "
        "criterion.",
    )


class QueryOverlapSpec(FrozenModel):
    """Report the query-overlap diagnostic (never gating) for calls passing a string argument."""

    argument: str = Field(
        default="query", min_length=1, description="The string argument to compare."
    )
    tools: tuple[str, ...] = Field(
        default=(), description="Only calls of these tools (empty: any tool)."
    )


class Task(FrozenModel):
    """One task of a suite: its input, success criterion, tool and path expectations, budget, costs."""

    id: str = Field(min_length=1, description="Unique task id; runs name it in task_id.")
    input: JsonValue = Field(
        default=None, description="The task input (usually the user's request)."
    )
    kind: TaskKind | None = Field(
        default=None,
        description="factual: a refusal fails the task; out_of_scope: only a refusal passes.",
    )
    description: str | None = Field(default=None, description="What the task probes.")
    success: SuccessCriterion | None = Field(
        default=None, description="The goal-completion criterion."
    )
    tools: ToolSelectionSpec | None = Field(
        default=None, description="Tool selection expectations."
    )
    arguments: tuple[CallExpectation, ...] = Field(
        default=(), description="Every call to each listed tool must match its expectation."
    )
    references: tuple[ReferencePath, ...] = Field(
        default=(), description="Acceptable reference paths."
    )
    steps: StepSpec | None = Field(
        default=None, description="Step budget, redundancy and loop limits."
    )
    recovery: RecoverySpec | None = Field(default=None, description="Error-recovery expectations.")
    costs: FaultCosts = Field(default_factory=FaultCosts, description="Path-score fault costs.")
    errored_calls: ErroredCalls = Field(
        default="count",
        description="count | ignore: whether calls whose result was an error are seen by the path, "
        "tools.forbidden, argument, redundancy and loop checks (see pathjudge.rubrics.scope).",
    )
    passed: PassedSpec = Field(
        default_factory=PassedSpec, description="How the per-run passed verdict is reached."
    )
    surface: tuple[str, ...] = Field(
        default=(), description="Result ids (e.g. doc ids) that must appear in some tool result."
    )
    judged: tuple[JudgedSpec, ...] = Field(default=(), description="Judged criteria on this task.")
    query_overlap: QueryOverlapSpec | None = Field(
        default=None, description="Report the query-overlap diagnostic (never gating)."
    )
    said_vs_did: SaidVsDidSpec | None = Field(
        default=None,
        description="Hold the claims of the agent's messages (amounts, ids, dates, counts, actions) "
        "against its tool calls and results ({} enables it with its defaults).",
    )
    metadata: dict[str, JsonValue] = Field(default_factory=dict, description="Free metadata.")
    # --- benchmark semantics (issue 12a): typing profile, truncated runs -------------------------
    types: TypeProfile | None = Field(
        default=None,
        description="Argument-typing profile (lenient | bfcl) of every expectation that sets none.",
    )
    language: BfclLanguage | None = Field(
        default=None,
        description="Language of BFCL declared types (python | java | javascript), likewise.",
    )
    truncated: Literal["fail", "undecided"] = Field(
        default="undecided",
        description="A run whose stop_reason says it was cut: its success fails, or is undecided.",
    )

    @model_validator(mode="before")
    @classmethod
    def _push_typing_profile(cls, data: Any) -> Any:
        """``types``/``language`` of the task (or of the suite's defaults) go to every argument
        expectation and reference step that does not set its own."""
        if not isinstance(data, Mapping) or ("types" not in data and "language" not in data):
            return data
        inherited = {key: data[key] for key in ("types", "language") if data.get(key) is not None}
        if not inherited:
            return data

        def fill(item: Any) -> Any:
            if isinstance(item, Mapping):
                return {**inherited, **item}
            return item

        out = dict(data)
        if isinstance(out.get("arguments"), list | tuple):
            out["arguments"] = [fill(item) for item in out["arguments"]]
        if isinstance(out.get("references"), list | tuple):
            refs = []
            for ref in out["references"]:
                if isinstance(ref, Mapping) and isinstance(ref.get("steps"), list | tuple):
                    ref = {**ref, "steps": [fill(step) for step in ref["steps"]]}
                refs.append(ref)
            out["references"] = refs
        return out

    # --- end of benchmark semantics (issue 12a) ---------------------------------------------------

    @model_validator(mode="after")
    def _judged_unique(self) -> Task:
        refuses = isinstance(self.success, RefusalCriterion) and self.success.expect == "refuse"
        if self.kind == "out_of_scope" and self.success is not None and not refuses:
            raise ValueError(
                "an out_of_scope task succeeds only by refusing: use success {kind: refusal} "
                "or leave 'success' out"
            )
        ids = [j.criterion for j in self.judged]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"judged criterion {dupes[0]!r} is listed twice on this task")
        tools = [a.tool for a in self.arguments]
        dupes = sorted({t for t in tools if tools.count(t) > 1})
        if dupes:
            raise ValueError(
                f"'arguments' lists tool {dupes[0]!r} twice; give one expectation per tool"
            )
        self._check_scopes()
        return self

    def _check_scopes(self) -> None:
        read_only = self.tools.read_only if self.tools is not None else ()
        scoped: list[str] = []
        if self.tools is not None and needs_read_only(self.tools.scope):
            scoped.append("tools.scope")
        if self.steps is not None and needs_read_only(self.steps.scope):
            scoped.append("steps.scope")
        for i, ref in enumerate(self.references):
            if not needs_read_only(ref.scope):
                continue
            scoped.append(f"references[{i}].scope")
            reads = [
                step.id or step.tool for step in ref.steps if matches_any(step.tool, read_only)
            ]
            if read_only and reads:
                raise ValueError(
                    f"references[{i}] has scope state_changing but its step {reads[0]!r} calls a "
                    "read-only tool (tools.read_only), which the scope leaves out; remove the step "
                    "or use another scope"
                )
        if scoped and not read_only:
            raise ValueError(
                f"{scoped[0]} is state_changing but the task declares no read-only tools; add "
                "tools.read_only (e.g. in defaults: tools: {read_only: ['get_*', 'search_*']})"
            )

    @property
    def input_text(self) -> str:
        """The input as text: strings as they are, anything else as compact JSON; ``None`` as ''."""
        if self.input is None:
            return ""
        if isinstance(self.input, str):
            return self.input
        import json

        return json.dumps(self.input, ensure_ascii=False, sort_keys=True)


class SuiteGate(FrozenModel):
    """The suite's promotion gate for ``pathjudge diff``; a field left unset keeps the diff's default.

    Command-line flags override these values, which override the defaults of
    :class:`~pathjudge.scoring.diff.DiffGate`.
    """

    block_on: tuple[GateRule, ...] | None = Field(
        default=None, description="Rules that block a promotion (empty: none blocks)."
    )
    alpha: float | None = Field(
        default=None, gt=0, lt=1, description="Significance level of the paired test."
    )
    max_token_increase: float | None = Field(
        default=None, ge=0, description="'cost' rule: largest allowed growth of suite tokens."
    )
    max_latency_increase: float | None = Field(
        default=None, ge=0, description="'cost' rule: largest allowed growth of suite latency."
    )


class Suite(FrozenModel):
    """A suite of tasks. Build one with :func:`load_suite` (YAML) or :func:`parse_suite` (a dict)."""

    schema_version: Literal[1] = Field(default=1, description="Suite schema version.")
    name: str = Field(min_length=1, description="Suite name.")
    description: str | None = Field(default=None, description="What the suite covers.")
    weights: dict[WeightKey, float] = Field(
        default_factory=dict,
        description="Weights of the overall score (default: success, tool_calls, trajectory at 1).",
    )
    gate: SuiteGate | None = Field(
        default=None, description="What blocks a promotion in `pathjudge diff` (optional)."
    )
    tasks: tuple[Task, ...] = Field(min_length=1, description="The tasks, in file order.")

    _index: dict[str, Task] = PrivateAttr(default_factory=dict)
    _source: str | None = PrivateAttr(default=None)
    _task_lines: dict[str, int] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _unique_ids(self) -> Suite:
        seen: set[str] = set()
        for task in self.tasks:
            if task.id in seen:
                raise ValueError(f"task id {task.id!r} appears twice; task ids must be unique")
            seen.add(task.id)
        for key, value in self.weights.items():
            if value < 0:
                raise ValueError(f"weight {key!r} is negative ({value}); weights must be >= 0")
        return self

    def model_post_init(self, context: Any, /) -> None:
        self._index = {task.id: task for task in self.tasks}

    @property
    def source(self) -> str | None:
        """The file this suite was loaded from, when it came from a file."""
        return self._source

    def task_line(self, task_id: str) -> int | None:
        """The YAML line where a task starts, when loaded from a file."""
        return self._task_lines.get(task_id)

    def get(self, task_id: str) -> Task | None:
        return self._index.get(task_id)

    def task(
        self, task_id: str, *, file: str | Path | None = None, line: int | None = None
    ) -> Task:
        """The task with this id; a :class:`SuiteError` naming the run's file and line when unknown."""
        found = self._index.get(task_id)
        if found is None:
            known = ", ".join(sorted(self._index)[:8])
            more = "" if len(self._index) <= 8 else f" (and {len(self._index) - 8} more)"
            raise SuiteError(
                f"run names task {task_id!r}, which is not in suite {self.name!r}",
                file=file,
                line=line,
                field="task_id",
                task_id=task_id,
                hint=f"known tasks: {known}{more}; fix the run's task_id or add the task to the suite",
            )
        return found

    def callables(self) -> list[tuple[str, CallableCriterion]]:
        """``(task id, criterion)`` for every ``callable`` success criterion, ``all_of`` parts included."""
        found: list[tuple[str, CallableCriterion]] = []
        for task in self.tasks:
            found.extend((task.id, c) for c in _callables_in(task.success))
        return found

    def blocked_callables(self) -> list[tuple[str, str]]:
        """``(task id, 'module:function')`` of every callable that will not run (not allowed)."""
        return [(tid, c.function) for tid, c in self.callables() if not c.permitted]

    def __iter__(self) -> Iterator[Task]:  # type: ignore[override]
        return iter(self.tasks)

    def __len__(self) -> int:
        return len(self.tasks)


def _callables_in(criterion: SuccessCriterion | None) -> Iterator[CallableCriterion]:
    if isinstance(criterion, CallableCriterion):
        yield criterion
    elif isinstance(criterion, AllOfCriterion):
        for part in criterion.parts:
            yield from _callables_in(part.criterion)


# --------------------------------------------------------------------------------------------------
# Loading

_TOP_KEYS = ("schema_version", "name", "description", "weights", "gate", "defaults", "tasks")


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """``override`` over ``base``: mappings merge recursively, everything else is replaced. Copies."""
    out: dict[str, Any] = {key: _copy(value) for key, value in base.items()}
    for key, value in override.items():
        current = out.get(key)
        if isinstance(current, Mapping) and isinstance(value, Mapping):
            out[key] = deep_merge(current, value)
        else:
            out[key] = _copy(value)
    return out


_LEAVES = frozenset({str, int, float, bool, type(None)})


def _copy(value: Any) -> Any:
    if type(value) in _LEAVES:  # most values: no abstract-class check for them
        return value
    if isinstance(value, Mapping):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def _child(node: yaml.Node | None, part: int | str) -> tuple[yaml.Node | None, yaml.Node | None]:
    """(key node, value node) of ``part`` under ``node``; (None, None) when absent."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                return key, value
    elif (
        isinstance(node, yaml.SequenceNode)
        and isinstance(part, int)
        and 0 <= part < len(node.value)
    ):
        item = node.value[part]
        return item, item
    return None, None


def _walk(root: yaml.Node | None, loc: Sequence[int | str]) -> tuple[int, yaml.Node | None]:
    """How many parts of ``loc`` resolve under ``root``, and the deepest node reached.

    Parts that do not resolve (e.g. the tag of a discriminated union in a pydantic location) are
    skipped, so ``('success', 'contains_all', 'values')`` still reaches ``success.values``.
    """
    node = root
    found = 0
    deepest: yaml.Node | None = root
    for index, part in enumerate(loc):
        key, value = _child(node, part)
        if key is None:
            continue
        found += 1
        # point at the key itself for the last part (an unknown or misspelt key), else descend
        deepest = key if index == len(loc) - 1 else value
        node = value
    return found, deepest


def _line_of(node: yaml.Node | None) -> int | None:
    return None if node is None else node.start_mark.line + 1


_HINTS = {
    "extra_forbidden": "remove it or fix its spelling",
    "missing": "add it",
    "literal_error": "use one of the values listed",
    "union_tag_invalid": "use one of the kinds listed",
}


def parse_suite(
    data: Any,
    *,
    file: str | Path | None = None,
    root: yaml.Node | None = None,
    allow_callables: CallablePolicy = False,
) -> Suite:
    """Validate suite data (already parsed YAML/JSON) into a :class:`Suite`, merging ``defaults``.

    ``root`` is the composed YAML node tree, used to name the line of any problem.

    ``allow_callables``: a suite is data, so its ``callable`` criteria (which import and run Python
    code) are off unless allowed: ``True`` allows all, a tuple of module names allows those modules
    and their submodules. A callable that is not allowed is never imported; grading gives its check
    the status ``error`` with how to allow it (see :meth:`Suite.blocked_callables`).
    """
    where = str(file) if file is not None else None
    if not isinstance(data, Mapping):
        raise SuiteError(
            "a suite must be a mapping with 'name' and 'tasks'",
            file=where,
            line=_line_of(root),
            hint="see examples/docent/suite.yaml",
        )
    for key in data:
        if key not in _TOP_KEYS:
            key_node, _ = _child(root, key)
            raise SuiteError(
                "unknown top-level key",
                file=where,
                line=_line_of(key_node),
                field=str(key),
                hint=f"allowed keys: {', '.join(_TOP_KEYS)}",
            )
    defaults = data.get("defaults") or {}
    _, defaults_node = _child(root, "defaults")
    if not isinstance(defaults, Mapping):
        raise SuiteError(
            "'defaults' must be a mapping",
            file=where,
            line=_line_of(defaults_node),
            field="defaults",
        )
    if "id" in defaults:
        key_node, _ = _child(defaults_node, "id")
        raise SuiteError(
            "'defaults' cannot set a task id",
            file=where,
            line=_line_of(key_node),
            field="defaults.id",
        )
    tasks = data.get("tasks")
    _, tasks_node = _child(root, "tasks")
    merged_tasks: Any = tasks
    task_lines: dict[str, int] = {}
    if isinstance(tasks, list):
        merged_tasks = []
        first_line: dict[str, int | None] = {}
        for index, task in enumerate(tasks):
            item_node, _ = _child(tasks_node, index)
            if isinstance(task, Mapping):
                task_id = task.get("id")
                if isinstance(task_id, str):
                    key_node, _ = _child(item_node, "id")
                    if task_id in first_line:
                        raise SuiteError(
                            f"task id {task_id!r} appears twice (first at line {first_line[task_id]})",
                            file=where,
                            line=_line_of(key_node),
                            field=f"tasks[{index}].id",
                            task_id=task_id,
                            hint="task ids must be unique; rename one",
                        )
                    first_line[task_id] = _line_of(key_node)
                    line = _line_of(item_node)
                    if line is not None:
                        task_lines[task_id] = line
                merged_tasks.append(deep_merge(defaults, task))
            else:
                merged_tasks.append(task)
    body = {key: value for key, value in data.items() if key != "defaults"}
    body["tasks"] = merged_tasks
    try:
        suite = Suite.model_validate(body)
    except ValidationError as exc:
        raise _suite_error(
            exc, where, root, defaults_node, tasks if isinstance(tasks, list) else None
        ) from None
    _check_finite(suite, where, root)
    suite._source = where
    suite._task_lines = task_lines
    for _, criterion in suite.callables():
        criterion._permitted = callable_allowed(criterion.function, allow_callables)
    return suite


def _no_float(value: object) -> None:
    """A value JSON cannot hold is a leaf :func:`_check_finite` does not look into (as its walk)."""
    return None


def _check_finite(suite: Suite, file: str | None, root: yaml.Node | None) -> None:
    """Refuse a non-finite number anywhere in the suite (``.nan``, ``.inf``, or a string such as
    ``"1e400"`` or ``"nan"`` that validation turned into one): weights, gates, costs and tolerances
    must be real numbers, or every comparison with them silently goes one way."""
    dumped = suite.model_dump()
    try:  # the common case in one C pass: JSON refuses a non-finite float (other leaves: null)
        json.dumps(dumped, allow_nan=False, check_circular=False, default=_no_float)
        return
    except (ValueError, TypeError, RecursionError):
        pass  # a non-finite number, or a key JSON cannot hold: the walk below finds and names it
    stack: list[tuple[Any, tuple[int | str, ...]]] = [(dumped, ())]
    while stack:
        value, loc = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            line = None
            if root is not None:
                _, node = _walk(root, loc)
                line = _line_of(node)
            raise SuiteError(
                f"{value} is not a finite number",
                file=file,
                line=line,
                field=format_loc(loc) or None,
                hint="write a plain finite number",
            )
        if isinstance(value, dict):
            stack.extend((item, (*loc, key)) for key, item in value.items())
        elif isinstance(value, list | tuple):
            stack.extend((item, (*loc, index)) for index, item in enumerate(value))


def _suite_error(
    exc: ValidationError,
    file: str | None,
    root: yaml.Node | None,
    defaults_node: yaml.Node | None,
    tasks: list[Any] | None,
) -> SuiteError:
    errors = exc.errors(include_url=False, include_input=False)
    first = errors[0]
    loc = tuple(first.get("loc", ()))
    kind = str(first.get("type", ""))
    message = str(first.get("msg", "invalid value"))
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    if kind == "extra_forbidden":
        message = "unknown key"
    line: int | None = None
    task_id: str | None = None
    if root is not None:
        found, node = _walk(root, loc)
        line = _line_of(node)
        if len(loc) >= 3 and loc[0] == "tasks" and isinstance(loc[1], int):
            _, task_node = _walk(root, loc[:2])
            in_task, task_deep = _walk(task_node, loc[2:])
            in_defaults, defaults_deep = _walk(defaults_node, loc[2:])
            if defaults_node is not None and in_defaults > in_task:
                line = _line_of(defaults_deep)
                message += " (set in 'defaults')"
            else:
                line = _line_of(task_deep) if in_task else _line_of(task_node)
        del found
    if tasks is not None and len(loc) >= 2 and loc[0] == "tasks" and isinstance(loc[1], int):
        index = loc[1]
        if 0 <= index < len(tasks) and isinstance(tasks[index], Mapping):
            raw_id = tasks[index].get("id")
            task_id = raw_id if isinstance(raw_id, str) else None
    if len(errors) > 1:
        message += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return SuiteError(
        message,
        file=file,
        line=line,
        field=format_loc(loc) or None,
        task_id=task_id,
        hint=_HINTS.get(kind),
    )


def load_suite(path: str | Path, *, allow_callables: CallablePolicy = False) -> Suite:
    """Load and validate a suite YAML file (``allow_callables``: see :func:`parse_suite`).

    Raises :class:`SuiteError` (file, line, field, fix) for anything wrong: unreadable file, invalid
    YAML, duplicate keys, unknown keys, unknown modes or matchers, duplicate task ids, an empty task
    list.
    """
    path = Path(path)
    text = read_text(path, error=SuiteError, what="suite file")
    return parse_suite_text(text, file=path, allow_callables=allow_callables)


def parse_suite_text(
    text: str, *, file: str | Path | None = None, allow_callables: CallablePolicy = False
) -> Suite:
    """Parse and validate suite YAML text (see :func:`load_suite`)."""
    where = str(file) if file is not None else None
    data, root = load_yaml(text, file=where, error=SuiteError)
    if root is None:
        raise SuiteError("suite file is empty", file=where, hint="see examples/docent/suite.yaml")
    return parse_suite(data, file=where, root=root, allow_callables=allow_callables)


# --- tool names no run calls (a typo the grading would otherwise take silently) -----------------

_GLOB = frozenset("*?[")

_EXPECTED_CALLED = ("tools.required", "tools.first_call", "arguments")
"""Where a named tool is one the suite expects runs to call: one no run calls is worth a warning."""


def unreferenced_tools(suite: Suite) -> dict[str, tuple[tuple[str, str], ...]]:
    """The tool names ``suite`` writes outside its references that no reference step uses, each with
    where it is written: ``{name: ((task id, field), ...)}``, in file order.

    The fields read are ``tools.required``, ``tools.first_call``, ``arguments[].tool`` and the plain
    names (no ``*``, ``?`` or ``[``) of ``tools.forbidden`` and ``tools.distractors``; glob patterns
    and ``read_only`` name no single tool. A suite that writes no such name: ``{}``.
    """
    referenced = {
        step.tool for task in suite.tasks for ref in task.references for step in ref.steps
    }
    found: dict[str, list[tuple[str, str]]] = {}

    def note(name: str, task: Task, field: str) -> None:
        if name not in referenced and not _GLOB.intersection(name):
            places = found.setdefault(name, [])
            if (task.id, field) not in places:
                places.append((task.id, field))

    for task in suite.tasks:
        if task.tools is not None:
            for name in task.tools.required:
                note(name, task, "tools.required")
            if task.tools.first_call is not None:
                note(task.tools.first_call, task, "tools.first_call")
            for name in task.tools.forbidden:
                note(name, task, "tools.forbidden")
            for name in task.tools.distractors:
                note(name, task, "tools.distractors")
        for expectation in task.arguments:
            note(expectation.tool, task, "arguments")
    return {name: tuple(places) for name, places in found.items()}


def tool_name_warnings(suite: Suite, called: Set[str]) -> list[str]:
    """One warning per tool name of :func:`unreferenced_tools` that no run called (``called``: the
    names of the calls the runs made), with the nearest known name (:mod:`difflib`) when one is close.

    A name the suite expects runs to call (``tools.required``, ``tools.first_call``, ``arguments``)
    is warned of whenever no run calls it; a forbidden or distractor name, which good runs never
    call, only when a tool the runs call or a reference uses has a close name (a likely typo, which
    would never fire). No such name: no warnings.
    """
    unreferenced = unreferenced_tools(suite)
    missing = {name: places for name, places in unreferenced.items() if name not in called}
    if not missing:
        return []
    known = sorted(
        set(called) | {s.tool for t in suite.tasks for r in t.references for s in r.steps}
    )
    warnings = []
    for name, places in missing.items():
        near = difflib.get_close_matches(name, [k for k in known if k != name], n=1, cutoff=0.75)
        expected = any(field in _EXPECTED_CALLED for _, field in places)
        if not near and not expected:
            continue
        (task_id, field), more = places[0], len(places) - 1
        where = f"task {task_id!r} {field}" + (f" and {more} more" if more else "")
        text = (
            f"the suite names tool {name!r} ({where}) but no run calls it and no reference uses it"
        )
        warnings.append(text + (f"; did you mean {near[0]!r}?" if near else ""))
    return warnings
