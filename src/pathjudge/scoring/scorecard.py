"""The suite scorecard: three levels, five axes, a weighted overall, the weak-path list, gates.

Built by streaming: a :class:`PartialScorecard` keeps exact running sums per suite and per task and
at most ``max_weak`` weak-path entries, so memory stays flat however many runs are graded. Partials
of any split of the runs merge (:meth:`PartialScorecard.merge`, associative and commutative), and the
scorecard does not depend on how the runs were chunked. Every rate and mean is rounded to 12 decimals.
Checks that broke (status ``error``) are counted and listed (``broken_checks``), never failed.

Definitions (every mean skips runs where the number is undefined; ``None`` when no run defines it):

- ``passed_rate`` = runs that passed / runs with a verdict: each run's one verdict (every counted
  gating check and the success, see :class:`~pathjudge.rubrics.suite.PassedSpec`), an undecided run
  counted as its task's ``passed.undecided`` says (``exclude``: left out, counted in
  ``verdict_excluded``);
- ``success_rate`` = passed / (passed + failed); undecided runs (nothing could decide, e.g. a judged-only
  task in fast mode) are excluded and counted in ``success_undecided``;
- ``partial_credit`` = mean of each decided run's success score (multi-part tasks score their parts);
- ``tool_calls``, ``trajectory``, ``path_score`` (0..100), the five ``axes``: means over runs;
- ``overall`` = Σ wₖ·metricₖ / Σ wₖ over the weighted metrics that are defined (``path`` enters as
  path_score / 100). Default weights: success, tool_calls, trajectory at 1 each.
- judged criteria: pass / fail / unsure / error / not_run counts; ``pass_rate`` = pass / (pass + fail),
  "could not decide" (unsure, error) and not run are excluded and counted.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, get_args

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from pathjudge._records import FrozenModel
from pathjudge._vocab import canonical_metric
from pathjudge.errors import InputError, PathjudgeError
from pathjudge.rubrics.assertions.base import AXES, Axis
from pathjudge.rubrics.suite import WEIGHT_KEYS, Suite, WeightKey

if TYPE_CHECKING:
    from pathjudge.agent.trajectory import RunRecord
    from pathjudge.scoring.grade import RunGrade

WeakFlag = Literal["failed", "poor_path", "redundant", "not_passed", "wrong_call"]

__all__ = [
    "DEFAULT_WEIGHTS",
    "GATE_METRICS",
    "BrokenCheck",
    "GateMetric",
    "GateResult",
    "JudgedSummary",
    "PartialScorecard",
    "Position",
    "Scorecard",
    "ScorecardBuilder",
    "TaskRow",
    "WeakPath",
    "build_scorecard",
    "check_thresholds",
    "check_weights",
    "evaluate_gates",
    "parse_thresholds",
    "parse_weights",
]

SCORECARD_SCHEMA_VERSION = 1
DEFAULT_WEIGHTS: dict[WeightKey, float] = {"success": 1.0, "tool_calls": 1.0, "trajectory": 1.0}

GateMetric = Literal[
    "passed",
    "success",
    "partial",
    "tool_calls",
    "trajectory",
    "path",
    "overall",
    "tool_selection",
    "argument_correctness",
    "step_efficiency",
    "error_recovery",
    "goal_completion",
]
GATE_METRICS: tuple[GateMetric, ...] = get_args(GateMetric)


class WeakPath(FrozenModel):
    """One entry of the weak-path list: a run that failed, succeeded by a poor path, repeated a call,
    or otherwise did not pass its one verdict (``not_passed``: a counted check failed)."""

    task_id: str
    run_id: str
    epoch: int
    flags: tuple[WeakFlag, ...]
    reason: str
    path_score: int | None = None
    steps: int = 0
    surfaced: bool | None = None
    diff: tuple[str, ...] = Field(
        default=(), description="The alignment diff with the best reference."
    )
    passed: bool | None = Field(
        default=None, description="The run's one verdict (None: undecided and excluded)."
    )
    blockers: tuple[str, ...] = Field(
        default=(), description="What kept the run from passing (failed checks, then undecided)."
    )


class TaskRow(FrozenModel):
    """Per-task aggregates over its runs (all epochs)."""

    task_id: str
    runs: int
    success_rate: float | None
    passed: int
    failed: int
    undecided: int
    tool_calls: float | None
    trajectory: float | None
    path_score: float | None
    mean_steps: float
    weak: int = Field(description="Runs of this task on the weak-path list.")
    passed_rate: float | None = Field(
        default=None, description="Runs that passed / runs with a verdict (see Scorecard)."
    )
    verdict_passed: int = Field(default=0, description="Runs whose one verdict is passed.")
    verdict_failed: int = Field(default=0, description="Runs whose one verdict is failed.")
    verdict_excluded: int = Field(
        default=0, description="Undecided runs left out of the passed rate."
    )


class JudgedSummary(FrozenModel):
    """Counts for one judged criterion over the suite."""

    criterion: str
    passed: int
    failed: int
    unsure: int
    error: int
    not_run: int
    pass_rate: float | None = Field(
        description="pass / (pass + fail); None when nothing was decided."
    )


class BrokenCheck(FrozenModel):
    """A check that broke (status ``error``) on some runs: how often, and the first run it broke on."""

    check: str
    count: int
    example_run: str
    reason: str


class GateResult(FrozenModel):
    """A ``--fail-under`` threshold and whether the suite met it (an undefined metric never meets it)."""

    metric: GateMetric
    threshold: float
    actual: float | None
    passed: bool


class Scorecard(FrozenModel):
    """The suite-level scorecard (see the module docstring for every definition)."""

    schema_version: Literal[1] = 1
    suite: str
    runs: int
    tasks: int = Field(description="Tasks with at least one run.")
    passed_rate: float | None = Field(
        default=None,
        description="Runs that passed / runs with a verdict (undecided runs as each task declares).",
    )
    verdict_passed: int = Field(default=0, description="Runs whose one verdict is passed.")
    verdict_failed: int = Field(default=0, description="Runs whose one verdict is failed.")
    verdict_undecided: int = Field(
        default=0, description="Runs nothing could decide (counted as their task declares)."
    )
    verdict_excluded: int = Field(
        default=0, description="Undecided runs left out of the passed rate."
    )
    success_rate: float | None
    success_passed: int
    success_failed: int
    success_undecided: int
    partial_credit: float | None
    tool_calls: float | None
    trajectory: float | None
    path_score: float | None
    surfaced: float | None = Field(
        description="Share of runs (with surface ids) where they all came back."
    )
    axes: dict[Axis, float | None]
    weights: dict[WeightKey, float]
    overall: float | None
    judged: tuple[JudgedSummary, ...]
    check_errors: int = Field(description="Checks that broke (status error) over all runs.")
    broken_checks: tuple[BrokenCheck, ...] = Field(
        default=(),
        description="The checks that broke, each with its count and first run "
        "(left out of the JSON when none broke).",
    )
    task_rows: tuple[TaskRow, ...]
    weak: tuple[WeakPath, ...]
    weak_total: int = Field(description="All weak runs, including any beyond the listed ones.")
    tasks_without_runs: tuple[str, ...]

    def metric(self, name: GateMetric) -> float | None:
        """A gate metric's value (``path`` in points 0..100, everything else 0..1)."""
        if name == "passed":
            return self.passed_rate
        if name == "success":
            return self.success_rate
        if name == "partial":
            return self.partial_credit
        if name == "tool_calls":
            return self.tool_calls
        if name == "trajectory":
            return self.trajectory
        if name == "path":
            return self.path_score
        if name == "overall":
            return self.overall
        return self.axes.get(name)

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and not data.get("broken_checks"):
            data.pop("broken_checks", None)
        return data


class _Mean:
    """An exact running sum and count: the mean does not depend on the order values were added in,
    nor on how sums were split and merged.

    Every finite float is an integer over a power of two, so the sum is kept exactly as
    ``total / 2**shift``, ``shift`` the largest denominator's exponent seen so far (the total is
    rescaled when a finer value arrives). Typical scores need a few dozen bits, not the 1,074 a
    fixed scale for every float would carry; the value is the same exact rational, correctly rounded.

    :meth:`add` appends a value to ``pending``, summed into ``total`` by :meth:`fold` in one loop over
    local variables (:meth:`add_all`); :meth:`value`, :meth:`merge` and pickling fold first. The
    grading loop does not call :meth:`add`: :class:`PartialScorecard` keeps each run's values in one
    tuple and sums them in batches (see :meth:`PartialScorecard.add`).
    """

    __slots__ = ("n", "pending", "shift", "total")

    def __init__(self) -> None:
        self.total = 0
        self.shift = 0
        self.n = 0
        self.pending: list[float | None] = []

    def add(self, value: float | None) -> None:
        """Add a value (a float or an integer); None (undefined) adds nothing."""
        self.pending.append(value)

    def fold(self) -> None:
        """Sum the pending values into ``total`` (exactly) and ``n``."""
        pending = self.pending
        if pending:
            self.add_all(pending)
            pending.clear()

    def add_all(self, values: Iterable[float | None]) -> None:
        """Sum ``values`` into ``total`` (exactly) and ``n``, now; None (undefined) adds nothing."""
        n = self.n
        total = self.total
        shift = self.shift
        for value in values:
            if value is None:  # undefined: adds nothing
                continue
            n += 1
            # the usual values first, without splitting them into a ratio: 0 adds nothing
            if value == 0.0:
                continue
            if value == 1.0:
                total += 1 << shift
                continue
            if type(value) is int:  # a path score: no ratio to take
                total += value << shift
                continue
            numerator, denominator = value.as_integer_ratio()
            if denominator == 1:  # an integer (a path score): no rescaling
                total += numerator << shift
                continue
            bits = denominator.bit_length() - 1  # the denominator is a power of two
            if bits > shift:
                total <<= bits - shift
                shift = bits
            total += numerator << (shift - bits)
        self.n = n
        self.total = total
        self.shift = shift

    @property
    def value(self) -> float | None:
        # the exact mean, correctly rounded, then rounded to 12 decimals for the report text
        self.fold()
        return round(self.total / (self.n << self.shift), 12) if self.n else None

    def merge(self, other: _Mean) -> None:
        self.fold()
        other.fold()
        if other.shift > self.shift:
            self.total <<= other.shift - self.shift
            self.shift = other.shift
        self.total += other.total << (self.shift - other.shift)
        self.n += other.n

    def __getstate__(self) -> tuple[int, int, int]:
        self.fold()
        return self.n, self.shift, self.total

    def __setstate__(self, state: tuple[int, int, int]) -> None:
        self.n, self.shift, self.total = state
        self.pending = []


_FOLD_EVERY = 1024
"""Runs between two folds of the values a :class:`PartialScorecard` keeps pending (bounded memory:
at most this many runs' values wait, whatever the number of tasks)."""


class _TaskAcc:
    __slots__ = (
        "failed",
        "passed",
        "path",
        "pending",
        "runs",
        "steps",
        "tool_calls",
        "trajectory",
        "undecided",
        "verdict",
        "weak",
    )

    def __init__(self) -> None:
        self.runs = 0
        self.passed = 0
        self.failed = 0
        self.undecided = 0
        self.tool_calls = _Mean()
        self.trajectory = _Mean()
        self.path = _Mean()
        self.steps = 0
        self.weak = 0
        self.verdict = [0, 0, 0, 0]  # passed, failed, undecided, excluded
        # per run not yet summed: (tool calls, trajectory, path score), see fold
        self.pending: list[tuple[float | None, float | None, float | None]] = []

    def fold(self) -> None:
        """Sum the pending runs' values into the three means."""
        pending = self.pending
        if pending:
            tool_calls, trajectory, path = zip(*pending, strict=True)
            self.tool_calls.add_all(tool_calls)
            self.trajectory.add_all(trajectory)
            self.path.add_all(path)
            pending.clear()

    def merge(self, other: _TaskAcc) -> None:
        self.fold()
        other.fold()
        self.runs += other.runs
        self.passed += other.passed
        self.failed += other.failed
        self.undecided += other.undecided
        self.tool_calls.merge(other.tool_calls)
        self.trajectory.merge(other.trajectory)
        self.path.merge(other.path)
        self.steps += other.steps
        self.weak += other.weak
        self.verdict = [a + b for a, b in zip(self.verdict, other.verdict, strict=True)]


def _rate(counts: list[int]) -> float | None:
    decided = counts[0] + counts[1]
    return round(counts[0] / decided, 12) if decided else None


_MAX_TOOL_NAMES = 10_000
"""The most distinct tool names a :class:`PartialScorecard` remembers (a hostile file's names are
many; a suite's typo check needs the few real ones)."""

Position = tuple[str, int]
"""Where a run came from: (source, line) — the file and 1-based line, or ("", n) for the n-th run."""


class PartialScorecard:
    """Mergeable sufficient statistics of a scorecard over some runs (flat memory).

    Holds exact running sums per suite and per task, the judged counts, the checks that broke, at
    most ``max_weak`` weak-path entries and at most ``max_errors`` bad records — each kept by its
    :data:`Position`, the lowest positions winning — and the total counts. So :meth:`merge` is
    associative and commutative: however runs are split into partials and in whatever order the
    partials merge, :meth:`finish` gives the same :class:`Scorecard` (byte for byte) as one partial
    over all the runs in order. Picklable (a worker process sends one back).
    """

    def __init__(self, *, max_weak: int = 1000, max_errors: int = 100) -> None:
        self.max_weak = max_weak
        self.max_errors = max_errors
        self.runs = 0
        self.partial = _Mean()
        self.surfaced = _Mean()
        self.axes = {axis: _Mean() for axis in AXES}
        self.judged: dict[str, list[int]] = {}
        self.check_errors = 0
        self.broken: dict[str, list[Any]] = {}  # check -> [count, first position, run_id, reason]
        # per task: the success and verdict counts and the tool-call, trajectory and path means; the
        # suite's own are these summed (see totals)
        self.tasks: dict[str, _TaskAcc] = {}
        self.weak: list[tuple[Position, WeakPath]] = []
        self.weak_total = 0
        self.errors: list[tuple[Position, PathjudgeError]] = []
        self.error_total = 0
        self.skipped: dict[str, int] = {}  # task the suite lacks -> runs left out (skip_unknown)
        # the tool names the runs called, kept only where the suite names a tool no reference uses
        # (see note_tools); at most _MAX_TOOL_NAMES of them
        self.tools_called: set[str] = set()
        self._weak_sorted = True
        # per run not yet summed: (success score, surfaced, axes); and the tasks with runs pending
        self._pending: list[tuple[float | None, bool | None, Mapping[Axis, float | None]]] = []
        self._touched: dict[str, _TaskAcc] = {}

    def note_tools(self, run: RunRecord) -> None:
        """Remember the tool names ``run`` called (for
        :func:`~pathjudge.rubrics.suite.tool_name_warnings`); bounded by :data:`_MAX_TOOL_NAMES`."""
        if len(self.tools_called) < _MAX_TOOL_NAMES:
            self.tools_called.update([step.tool for step in run.steps])

    def skip(self, task_id: str) -> None:
        """Count a run left out because the suite lacks its task (``score --skip-unknown-tasks``)."""
        self.skipped[task_id] = self.skipped.get(task_id, 0) + 1

    # ---------------------------------------------------------------------------------------------

    def add(self, grade: RunGrade, position: Position | None = None) -> None:
        """Count one graded run, found at ``position`` (default: the next run, ("", runs))."""
        if position is None:
            position = ("", self.runs)
        self.runs += 1
        task_id = grade.task_id
        acc = self.tasks.get(task_id)
        if acc is None:
            acc = self.tasks[task_id] = _TaskAcc()
        self._touched[task_id] = acc
        if not self.runs % _FOLD_EVERY:
            self._fold()
        acc.runs += 1
        acc.steps += grade.steps
        verdict = acc.verdict  # passed, failed, undecided, excluded
        if grade.verdict == "undecided":
            verdict[2] += 1
        passed = grade.passed
        if passed is None:
            verdict[3] += 1
        elif passed:
            verdict[0] += 1
        else:
            verdict[1] += 1
        success = grade.success
        if success == "pass":
            acc.passed += 1
        elif success == "fail":
            acc.failed += 1
        else:
            acc.undecided += 1
        # the values the means take, summed in batches (see _fold); the axes mapping is immutable
        acc.pending.append((grade.tool_calls, grade.trajectory, grade.path_score))
        self._pending.append((grade.success_score, grade.surfaced, grade.axes))
        for judged in grade.judged:
            counts = self.judged.setdefault(judged.criterion, [0, 0, 0, 0, 0])
            counts[_JUDGED_INDEX[judged.status]] += 1
        if grade.check_errors:
            self.check_errors += grade.check_errors
            for check in grade.checks:
                if check.status == "error":
                    self._broke(check.check, 1, position, grade.run_id, check.reason)
        if grade.weak:
            self.weak_total += 1
            acc.weak += 1
            weak = self.weak
            if len(weak) >= self.max_weak:
                if not self._weak_sorted:
                    self._trim_weak()
                if not weak or position >= weak[-1][0]:
                    return
            weak.append((position, _weak_entry(grade)))
            if self._weak_sorted and len(weak) > 1 and weak[-2][0] > position:
                self._weak_sorted = False
            if len(weak) > 2 * self.max_weak:
                self._trim_weak()

    def _fold(self) -> None:
        """Sum the values of the runs pending into the means (a mean skips an undefined, None,
        value); called every :data:`_FOLD_EVERY` runs and before the means are read, merged or
        pickled."""
        pending = self._pending
        if pending:
            scores, surfaced, axes = zip(*pending, strict=True)
            self.partial.add_all(scores)
            self.surfaced.add_all([None if s is None else 1.0 if s else 0.0 for s in surfaced])
            for axis, mean in self.axes.items():
                mean.add_all([values.get(axis) for values in axes])
            pending.clear()
        for acc in self._touched.values():
            acc.fold()
        self._touched.clear()

    def __getstate__(self) -> dict[str, Any]:
        self._fold()  # a partial crosses processes summed (nothing pending)
        return self.__dict__.copy()

    def add_error(self, error: PathjudgeError, position: Position) -> None:
        """Keep a bad record (the caller decides whether to raise :meth:`first_error`)."""
        self.error_total += 1
        self.errors.append((position, error))
        if len(self.errors) > 2 * self.max_errors:
            self._trim_errors()

    def first_error(self) -> PathjudgeError | None:
        """The bad record at the lowest position, or None."""
        if not self.errors:
            return None
        return min(self.errors, key=lambda item: item[0])[1]

    def _broke(self, check: str, count: int, position: Position, run_id: str, reason: str) -> None:
        entry = self.broken.get(check)
        if entry is None:
            self.broken[check] = [count, position, run_id, reason]
            return
        entry[0] += count
        if position < entry[1]:
            entry[1:] = [position, run_id, reason]

    def _trim_weak(self) -> None:
        self.weak.sort(key=_first)
        del self.weak[self.max_weak :]
        self._weak_sorted = True

    def _trim_errors(self) -> None:
        self.errors.sort(key=_first)
        del self.errors[self.max_errors :]

    # ---------------------------------------------------------------------------------------------

    def merge(self, other: PartialScorecard) -> PartialScorecard:
        """Add ``other``'s runs into this partial (in place) and return it. Associative and
        commutative: the finished scorecard does not depend on how partials were split or merged."""
        self._fold()
        other._fold()
        for task_id, count in other.skipped.items():
            self.skipped[task_id] = self.skipped.get(task_id, 0) + count
        self.tools_called |= other.tools_called
        self.runs += other.runs
        self.partial.merge(other.partial)
        self.surfaced.merge(other.surfaced)
        for axis in AXES:
            self.axes[axis].merge(other.axes[axis])
        for criterion, counts in other.judged.items():
            mine = self.judged.setdefault(criterion, [0, 0, 0, 0, 0])
            for i, count in enumerate(counts):
                mine[i] += count
        self.check_errors += other.check_errors
        for check, (count, position, run_id, reason) in other.broken.items():
            self._broke(check, count, position, run_id, reason)
        for task_id, acc in other.tasks.items():
            own = self.tasks.get(task_id)
            if own is None:
                own = self.tasks[task_id] = _TaskAcc()
            own.merge(acc)
        self.weak.extend(other.weak)
        self._trim_weak()
        self.weak_total += other.weak_total
        self.errors.extend(other.errors)
        self._trim_errors()
        self.error_total += other.error_total
        return self

    # ---------------------------------------------------------------------------------------------

    def totals(self) -> _TaskAcc:
        """The suite's success and verdict counts and tool-call, trajectory and path means: every
        task's summed (exact sums, so the same whatever the order the tasks are summed in)."""
        self._fold()
        total = _TaskAcc()
        for acc in self.tasks.values():
            total.merge(acc)
        return total

    def finish(
        self, suite: Suite, *, weights: Mapping[WeightKey, float] | None = None
    ) -> Scorecard:
        """The :class:`Scorecard` of these runs against ``suite`` (weights: the given ones, else the
        suite's, else :data:`DEFAULT_WEIGHTS`). Bad records are not raised here: see
        :meth:`first_error`."""
        chosen: dict[WeightKey, float] = dict(weights or suite.weights or DEFAULT_WEIGHTS)
        self._fold()
        if not self._weak_sorted or len(self.weak) > self.max_weak:
            self._trim_weak()
        total = self.totals()
        decided = total.passed + total.failed
        success_rate = round(total.passed / decided, 12) if decided else None
        axes = {axis: mean.value for axis, mean in self.axes.items()}
        path_value = total.path.value
        values: dict[WeightKey, float | None] = {
            "success": success_rate,
            "tool_calls": total.tool_calls.value,
            "trajectory": total.trajectory.value,
            "path": round(path_value / 100.0, 12) if path_value is not None else None,
            **{axis: axes[axis] for axis in AXES},
        }
        rows = [_task_row(t.id, self.tasks[t.id]) for t in suite.tasks if t.id in self.tasks]
        judged = tuple(_judged_summary(name, c) for name, c in sorted(self.judged.items()))
        broken = tuple(
            BrokenCheck(check=name, count=entry[0], example_run=entry[2], reason=entry[3])
            for name, entry in sorted(self.broken.items())
        )
        return Scorecard(
            suite=suite.name,
            runs=self.runs,
            tasks=len(rows),
            passed_rate=_rate(total.verdict),
            verdict_passed=total.verdict[0],
            verdict_failed=total.verdict[1],
            verdict_undecided=total.verdict[2],
            verdict_excluded=total.verdict[3],
            success_rate=success_rate,
            success_passed=total.passed,
            success_failed=total.failed,
            success_undecided=total.undecided,
            partial_credit=self.partial.value,
            tool_calls=total.tool_calls.value,
            trajectory=total.trajectory.value,
            path_score=path_value,
            surfaced=self.surfaced.value,
            axes=axes,
            weights=dict(sorted(chosen.items())),
            overall=_weighted_mean(values, chosen),
            judged=judged,
            check_errors=self.check_errors,
            broken_checks=broken,
            task_rows=tuple(rows),
            weak=tuple(entry for _, entry in self.weak),
            weak_total=self.weak_total,
            tasks_without_runs=tuple(t.id for t in suite.tasks if t.id not in self.tasks),
        )


_JUDGED_INDEX = {"pass": 0, "fail": 1, "unsure": 2, "error": 3, "not_run": 4}


def _weighted_mean(
    values: Mapping[WeightKey, float | None], weights: Mapping[WeightKey, float]
) -> float | None:
    """The weighted overall: the mean of the defined values, weighted; None when no weight applies."""
    num = 0.0
    den = 0.0
    for key, weight in weights.items():
        value = values.get(key)
        if value is not None and weight > 0:
            num += weight * value
            den += weight
    return round(num / den, 12) if den else None


def _task_row(task_id: str, acc: _TaskAcc) -> TaskRow:
    decided = acc.passed + acc.failed
    return TaskRow(
        task_id=task_id,
        runs=acc.runs,
        success_rate=round(acc.passed / decided, 12) if decided else None,
        passed=acc.passed,
        failed=acc.failed,
        undecided=acc.undecided,
        tool_calls=acc.tool_calls.value,
        trajectory=acc.trajectory.value,
        path_score=acc.path.value,
        mean_steps=round(acc.steps / acc.runs, 12),
        weak=acc.weak,
        passed_rate=_rate(acc.verdict),
        verdict_passed=acc.verdict[0],
        verdict_failed=acc.verdict[1],
        verdict_excluded=acc.verdict[3],
    )


def _judged_summary(name: str, c: list[int]) -> JudgedSummary:
    """One criterion's counts (pass, fail, unsure, error, not run) and pass rate."""
    return JudgedSummary(
        criterion=name,
        passed=c[0],
        failed=c[1],
        unsure=c[2],
        error=c[3],
        not_run=c[4],
        pass_rate=round(c[0] / (c[0] + c[1]), 12) if c[0] + c[1] else None,
    )


def _first(item: tuple[Position, object]) -> Position:
    return item[0]


def _weak_entry(grade: RunGrade) -> WeakPath:
    return WeakPath(
        task_id=grade.task_id,
        run_id=grade.run_id,
        epoch=grade.epoch,
        flags=grade.weak,
        reason=grade.reason,
        path_score=grade.path_score,
        steps=grade.steps,
        surfaced=grade.surfaced,
        diff=tuple(grade.path.diff_lines()) if grade.path is not None else (),
        passed=grade.passed,
        blockers=grade.blockers,
    )


class ScorecardBuilder(PartialScorecard):
    """A :class:`PartialScorecard` that knows its suite and weights: :meth:`build` finishes it.

    Accumulates :class:`~pathjudge.scoring.grade.RunGrade` s one at a time, in run order.
    """

    def __init__(
        self,
        suite: Suite,
        *,
        weights: Mapping[WeightKey, float] | None = None,
        max_weak: int = 1000,
    ) -> None:
        super().__init__(max_weak=max_weak)
        self.suite = suite
        self.weights: dict[WeightKey, float] = dict(weights or suite.weights or DEFAULT_WEIGHTS)

    def add_all(self, grades: Iterable[RunGrade]) -> ScorecardBuilder:
        for grade in grades:
            self.add(grade)
        return self

    def build(self) -> Scorecard:
        return self.finish(self.suite, weights=self.weights)


def build_scorecard(
    grades: Iterable[RunGrade],
    suite: Suite,
    *,
    weights: Mapping[WeightKey, float] | None = None,
) -> Scorecard:
    """The scorecard of ``grades`` (streamed). No grades: every rate and mean is ``None``."""
    return ScorecardBuilder(suite, weights=weights).add_all(grades).build()


def _pairs(text: str, what: str) -> list[tuple[str, float]]:
    out: list[tuple[str, float]] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, value = part.partition("=")
        if not sep:
            raise InputError(
                f"{what} item {part!r} is not name=value",
                field=what,
                hint="e.g. passed=0.9,success=1.0,trajectory=0.75",
            )
        try:
            number = float(value)
        except ValueError:
            raise InputError(
                f"{what} value {value!r} for {name.strip()!r} is not a number", field=what
            ) from None
        if not math.isfinite(number):
            raise InputError(
                f"{what} value {value.strip()!r} for {name.strip()!r} is not a finite number",
                field=what,
                hint="give a plain number such as 0.8",
            )
        out.append((name.strip(), number))
    return out


def check_thresholds(
    thresholds: Mapping[GateMetric, float] | Mapping[str, float], *, field: str = "--fail-under"
) -> dict[GateMetric, float]:
    """Validated gate thresholds: every name a metric of the scorecard, every value on its scale.

    An unknown metric, or a threshold outside the metric's scale (``path`` in [0, 100], every other
    metric in [0, 1]), is an :class:`InputError` naming ``field``, the metric and its range (never a
    silently ignored gate). So is a ``path`` threshold above 0 and at most 1: a fraction written for a
    0..100 score (``path=0.9``) would pass nearly every run; the error names ``path=90``. The
    deprecated name ``correctness`` is mapped to ``tool_calls``.
    """
    out: dict[GateMetric, float] = {}
    for raw_name, value in thresholds.items():
        name = canonical_metric(raw_name, where=f"{field} metric")
        if name not in GATE_METRICS:
            raise InputError(
                f"unknown metric {name!r} in {field}",
                field=field,
                hint=f"use: {', '.join(GATE_METRICS)}",
            )
        metric = GATE_METRICS[GATE_METRICS.index(name)]
        high = 100.0 if metric == "path" else 1.0
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InputError(
                f"threshold {value!r} for {metric!r} is not a number",
                field=field,
                hint=f"{metric} is measured on 0..{high:g}; e.g. {metric}={high * 0.8:g}",
            )
        if not 0.0 <= value <= high:
            percent = high == 1.0 and 1.0 < value <= 100.0  # success=90: a percentage
            raise InputError(
                f"threshold {value:g} for {metric!r} is outside [0, {high:g}]",
                field=field,
                hint=f"{metric} is a share measured on 0..1, not a percentage: write "
                f"{metric}={value / 100:g} for {value:g}%"
                if percent
                else f"{metric} is measured on 0..{high:g}; e.g. {metric}={high * 0.8:g}",
            )
        if high == 100.0 and 0.0 < value <= 1.0:
            # a fraction for the 0..100 path score: path=0.9 would pass any path scored 1 or more
            raise InputError(
                f"threshold {value:g} for {metric!r} looks like a fraction, but {metric} is "
                "measured on 0..100, where it would let almost every run pass",
                field=field,
                hint=f"write {metric}={value * 100:g} for {value * 100:g} out of 100",
            )
        out[metric] = float(value)
    return out


def check_weights(
    weights: Mapping[WeightKey, float] | Mapping[str, float], *, field: str = "--weights"
) -> dict[WeightKey, float]:
    """Validated overall-score weights: known keys, numbers >= 0 (else :class:`InputError`)."""
    out: dict[WeightKey, float] = {}
    for raw_name, value in weights.items():
        name = canonical_metric(raw_name, where=f"{field} key")
        if name not in WEIGHT_KEYS:
            raise InputError(
                f"unknown weight {name!r}", field=field, hint=f"use: {', '.join(WEIGHT_KEYS)}"
            )
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise InputError(
                f"weight {name!r} is negative"
                if isinstance(value, int | float) and not isinstance(value, bool)
                else f"weight {name!r} is not a number",
                field=field,
                hint="weights must be numbers >= 0",
            )
        out[WEIGHT_KEYS[WEIGHT_KEYS.index(name)]] = float(value)
    return out


def parse_thresholds(text: str) -> dict[GateMetric, float]:
    """``"success=1.0,trajectory=0.75"`` → thresholds (see :func:`check_thresholds`); empty text gives none."""
    return check_thresholds(dict(_pairs(text, "--fail-under")), field="--fail-under")


def parse_weights(text: str) -> dict[WeightKey, float]:
    """``"success=2,trajectory=1"`` → weights; unknown keys and negative weights are :class:`InputError`."""
    return check_weights(dict(_pairs(text, "--weights")), field="--weights")


def evaluate_gates(
    scorecard: Scorecard, thresholds: Mapping[GateMetric, float]
) -> list[GateResult]:
    """One :class:`GateResult` per threshold, in metric order; passes when ``actual >= threshold``.

    A metric that is undefined (no run defines it) fails its gate: it cannot show it is met.
    """
    results = []
    for metric in GATE_METRICS:
        if metric not in thresholds:
            continue
        actual = scorecard.metric(metric)
        threshold = thresholds[metric]
        results.append(
            GateResult(
                metric=metric,
                threshold=threshold,
                actual=actual,
                passed=actual is not None and actual >= threshold - 1e-12,
            )
        )
    return results
