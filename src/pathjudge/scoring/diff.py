"""Baseline vs candidate: per-task trajectory diffs, a paired significance test, and a promote/block verdict.

Both run files are graded against the same suite (assertions only; judged criteria are ``not_run`` unless
verdicts are given), and runs are paired by ``(task, epoch)``. Per pair the diff reports:

- tools added / removed (multiset difference of the tools called) and whether the same tools were
  **reordered**; **argument changes** (the k-th call of a tool compared with the k-th call of the same
  tool, key by key);
- the **step-count delta**, **new retry loops** (a retry loop is a maximal run of back-to-back identical
  calls — same tool, same canonical arguments — of length two or more), the errored-result and
  redundant-call deltas;
- the **token delta** (``usage.total_tokens``) and **latency delta** (``timing.duration_ms``);
- **success flips** (pass → fail, fail → pass), the path-score delta, and every gating check that passed
  in the baseline and fails in the candidate (or the reverse).

Every difference becomes a :class:`Finding`: a *regression* (success flip to fail, more steps, a new retry
loop, more redundant calls or errors, a check that stopped passing, a lower path score or trajectory
level), an *improvement* (the reverse), or a neutral *change* (tools reordered or swapped, arguments
changed). Token and latency deltas are reported as numbers and only become findings when the gate sets
a threshold; so a task whose runs are identical apart from wall-clock noise shows no finding at all.

The paired test runs over tasks (epochs of a task are not independent): per task, the success rate over
its paired, decided epochs. **Exact McNemar**: a task counts as passing when all its paired epochs passed;
``b`` tasks went pass → not pass, ``c`` the reverse, and ``p = min(1, 2·P(X ≤ min(b, c)))`` with
``X ~ Binomial(b + c, 1/2)`` (``p = 1`` when ``b + c = 0``). **Paired bootstrap** (seeded): the mean of
the per-task rate differences (candidate − baseline) over ``resamples`` resamples of the tasks, with its
percentile interval. The candidate is *significantly worse* when McNemar's ``p < alpha`` with ``b > c``,
or the bootstrap interval lies entirely below zero.

The verdict is ``block`` when any rule the gate lists fires, else ``promote``:
``success`` (any task's success rate dropped), ``significance`` (significantly worse), ``trajectory``
(any trajectory regression), ``cost`` (suite tokens or latency up by more than the gate's fraction),
``coverage`` (a baseline task or epoch with no candidate run). The gate comes from the caller, else from
the suite's ``gate:`` block (:func:`resolve_gate`: command line > suite > :class:`DiffGate` defaults).
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Literal

from pydantic import Field, JsonValue

from pathjudge._io import JsonlStream, line_of
from pathjudge._records import FrozenModel
from pathjudge.agent.trajectory import RunRecord
from pathjudge.errors import InputError
from pathjudge.rubrics.assertions.steps import call_signature
from pathjudge.rubrics.suite import GATE_RULES, GateRule, Suite
from pathjudge.scoring.grade import RunGrade, SuccessStatus, grade
from pathjudge.scoring.judged import VerdictLike

__all__ = [
    "GATE_RULES",
    "ArgumentChange",
    "DiffGate",
    "DiffReport",
    "Finding",
    "GateRule",
    "PairedTest",
    "RunDiff",
    "TaskDiff",
    "diff_pair",
    "diff_runs",
    "mcnemar_exact",
    "paired_bootstrap",
    "paired_test",
    "parse_gate_rules",
    "resolve_gate",
    "retry_loops",
]

FindingKind = Literal["regression", "improvement", "change"]


class Finding(FrozenModel):
    """One difference between baseline and candidate, with the gate rule it falls under."""

    kind: FindingKind
    rule: GateRule
    what: str = Field(description="What changed, in words that reproduce it.")


class ArgumentChange(FrozenModel):
    """The ``occurrence``-th call of ``tool`` was made with different arguments."""

    tool: str
    occurrence: int
    keys: tuple[str, ...] = Field(
        description="Argument keys whose values differ (added/removed included)."
    )
    before: dict[str, JsonValue]
    after: dict[str, JsonValue]


class RunDiff(FrozenModel):
    """Baseline vs candidate on one (task, epoch)."""

    epoch: int
    baseline_run_id: str
    candidate_run_id: str
    tools_before: tuple[str, ...]
    tools_after: tuple[str, ...]
    tools_added: dict[str, int]
    tools_removed: dict[str, int]
    reordered: bool
    argument_changes: tuple[ArgumentChange, ...]
    step_delta: int
    retry_loops_before: int
    retry_loops_after: int
    error_delta: int
    redundant_delta: int
    token_delta: int
    latency_delta_ms: float | None
    success_before: SuccessStatus
    success_after: SuccessStatus
    path_score_before: int | None
    path_score_after: int | None
    checks_regressed: tuple[str, ...]
    checks_improved: tuple[str, ...]
    findings: tuple[Finding, ...]

    @property
    def new_retry_loops(self) -> int:
        return max(0, self.retry_loops_after - self.retry_loops_before)


class TaskDiff(FrozenModel):
    """Everything that differs on one task, over its paired epochs."""

    task_id: str
    pairs: tuple[RunDiff, ...]
    baseline_only: tuple[int, ...] = Field(
        description="Epochs with a baseline run but no candidate run."
    )
    candidate_only: tuple[int, ...] = Field(
        description="Epochs with a candidate run but no baseline run."
    )
    success_before: float | None = Field(
        description="Success rate over paired, decided baseline epochs."
    )
    success_after: float | None = Field(
        description="Success rate over paired, decided candidate epochs."
    )
    findings: tuple[Finding, ...]

    @property
    def changed(self) -> bool:
        return bool(self.findings)

    @property
    def regressed(self) -> bool:
        return any(f.kind == "regression" for f in self.findings)


class PairedTest(FrozenModel):
    """Exact McNemar and a seeded paired bootstrap over tasks."""

    tasks: int = Field(description="Tasks with decided success on both sides.")
    worse: int = Field(description="b: tasks that passed in the baseline and not in the candidate.")
    better: int = Field(
        description="c: tasks that passed in the candidate and not in the baseline."
    )
    mcnemar_p: float
    mean_delta: float | None = Field(
        description="Mean per-task success-rate change (candidate − baseline)."
    )
    bootstrap_low: float | None
    bootstrap_high: float | None
    level: float
    resamples: int
    seed: int
    significantly_worse: bool


class DiffGate(FrozenModel):
    """Which findings block a promotion, and the thresholds of the statistical and cost rules."""

    block_on: tuple[GateRule, ...] = Field(default=("success", "trajectory", "coverage"))
    alpha: float = Field(default=0.05, gt=0, lt=1)
    level: float = Field(default=0.95, gt=0, lt=1)
    resamples: int = Field(default=10_000, ge=1)
    seed: int = 0
    max_token_increase: float | None = Field(
        default=None,
        ge=0,
        description="Block ('cost') when suite tokens grow by more than this fraction.",
    )
    max_latency_increase: float | None = Field(
        default=None,
        ge=0,
        description="Block ('cost') when suite latency grows by more than this fraction.",
    )


class DiffReport(FrozenModel):
    suite: str
    tasks: tuple[TaskDiff, ...] = Field(
        description="Every task present in either file, in suite order."
    )
    test: PairedTest
    tokens_before: int
    tokens_after: int
    latency_before_ms: float | None
    latency_after_ms: float | None
    suite_findings: tuple[Finding, ...]
    gate: DiffGate
    verdict: Literal["promote", "block"]
    reasons: tuple[str, ...] = Field(
        description="Why the verdict (each fired rule, or why it promotes)."
    )

    @property
    def changed_tasks(self) -> tuple[str, ...]:
        return tuple(t.task_id for t in self.tasks if t.changed)

    @property
    def regressed_tasks(self) -> tuple[str, ...]:
        return tuple(t.task_id for t in self.tasks if t.regressed)


# --------------------------------------------------------------------------------------------------
# Pure pieces


def retry_loops(run: RunRecord) -> int:
    """Maximal runs of back-to-back identical calls (same tool and canonical arguments) of length >= 2."""
    loops = 0
    previous: str | None = None
    streak = 0
    for step in run.steps:
        signature = call_signature(step)
        streak = streak + 1 if signature == previous else 1
        if streak == 2:
            loops += 1
        previous = signature
    return loops


def mcnemar_exact(worse: int, better: int) -> float:
    """Two-sided exact McNemar p-value for ``worse`` (b) and ``better`` (c) discordant pairs."""
    if worse < 0 or better < 0:
        raise ValueError("discordant counts must be >= 0")
    n = worse + better
    if n == 0:
        return 1.0
    tail: float = sum(math.comb(n, i) for i in range(min(worse, better) + 1)) / 2**n
    return min(1.0, 2.0 * tail)


def paired_bootstrap(
    deltas: Sequence[float], *, resamples: int = 10_000, seed: int = 0, level: float = 0.95
) -> tuple[float, float, float] | None:
    """``(mean, low, high)``: the mean of ``deltas`` and its percentile bootstrap interval; None if empty."""
    if not deltas:
        return None
    rng = random.Random(seed)
    n = len(deltas)
    means = sorted(sum(deltas[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    alpha = (1 - level) / 2
    low = means[min(resamples - 1, max(0, math.floor(alpha * resamples)))]
    high = means[min(resamples - 1, max(0, math.ceil((1 - alpha) * resamples) - 1))]
    return sum(deltas) / n, low, high


def _rate(values: Iterable[SuccessStatus]) -> float | None:
    decided = [v for v in values if v != "undecided"]
    return sum(1 for v in decided if v == "pass") / len(decided) if decided else None


def paired_test(
    per_task: Mapping[str, Sequence[tuple[SuccessStatus, SuccessStatus]]],
    *,
    alpha: float = 0.05,
    level: float = 0.95,
    resamples: int = 10_000,
    seed: int = 0,
) -> PairedTest:
    """McNemar + bootstrap over tasks from ``{task: [(baseline, candidate) success per paired epoch]}``.

    Epochs undecided on either side are left out; a task with none left is left out. No tasks: p = 1 and
    no bootstrap interval.
    """
    worse = better = 0
    deltas: list[float] = []
    for task_id in sorted(per_task):
        pairs = [(b, c) for b, c in per_task[task_id] if b != "undecided" and c != "undecided"]
        if not pairs:
            continue
        before = all(b == "pass" for b, _ in pairs)
        after = all(c == "pass" for _, c in pairs)
        worse += before and not after
        better += after and not before
        deltas.append(
            sum(c == "pass" for _, c in pairs) / len(pairs)
            - sum(b == "pass" for b, _ in pairs) / len(pairs)
        )
    p = mcnemar_exact(worse, better)
    boot = paired_bootstrap(deltas, resamples=resamples, seed=seed, level=level)
    significantly_worse = (worse > better and p < alpha) or (boot is not None and boot[2] < 0)
    return PairedTest(
        tasks=len(deltas),
        worse=worse,
        better=better,
        mcnemar_p=p,
        mean_delta=None if boot is None else boot[0],
        bootstrap_low=None if boot is None else boot[1],
        bootstrap_high=None if boot is None else boot[2],
        level=level,
        resamples=resamples,
        seed=seed,
        significantly_worse=significantly_worse,
    )


def _argument_changes(before: RunRecord, after: RunRecord) -> list[ArgumentChange]:
    def by_tool(run: RunRecord) -> dict[str, list[dict[str, JsonValue]]]:
        out: dict[str, list[dict[str, JsonValue]]] = {}
        for step in run.steps:
            args: dict[str, JsonValue] = (
                dict(step.arguments)
                if step.arguments_error is None
                else {"<raw>": step.raw_arguments}
            )
            out.setdefault(step.tool, []).append(args)
        return out

    old, new = by_tool(before), by_tool(after)
    changes: list[ArgumentChange] = []
    for tool in sorted(set(old) & set(new)):
        for index, (a, b) in enumerate(zip(old[tool], new[tool], strict=False)):
            keys = tuple(
                sorted(
                    k
                    for k in set(a) | set(b)
                    if json.dumps(a.get(k), sort_keys=True) != json.dumps(b.get(k), sort_keys=True)
                    or (k in a) != (k in b)
                )
            )
            if keys:
                changes.append(
                    ArgumentChange(tool=tool, occurrence=index, keys=keys, before=a, after=b)
                )
    return changes


def _gating_status(grade_: RunGrade) -> dict[str, str]:
    seen: Counter[str] = Counter()
    out: dict[str, str] = {}
    for check in grade_.checks:
        if not check.gating:
            continue
        seen[check.check] += 1
        key = check.check if seen[check.check] == 1 else f"{check.check}#{seen[check.check]}"
        out[key] = check.status
    return out


def _check_rule(check: str, grade_: RunGrade) -> GateRule:
    for result in grade_.checks:
        if result.check == check.split("#")[0]:
            return "success" if result.axis == "goal_completion" else "trajectory"
    return "trajectory"


def _fmt_counter(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{tool} ×{n}" for tool, n in sorted(counts.items()))


def diff_pair(
    before: RunRecord, after: RunRecord, g_before: RunGrade, g_after: RunGrade
) -> RunDiff:
    """The diff of one paired (task, epoch); see the module docstring for what each finding means."""
    tools_before, tools_after = before.tool_names, after.tool_names
    added = Counter(tools_after) - Counter(tools_before)
    removed = Counter(tools_before) - Counter(tools_after)
    reordered = not added and not removed and tools_before != tools_after
    args = _argument_changes(before, after)
    loops_before, loops_after = retry_loops(before), retry_loops(after)
    status_before, status_after = _gating_status(g_before), _gating_status(g_after)
    regressed = _now_failing(status_before, status_after)
    improved = _now_failing(status_after, status_before)  # passing now, failing before
    findings = [
        *_success_findings(g_before.success, g_after.success),
        *_tool_findings(tools_before, tools_after, added, removed),
        *(_argument_finding(change) for change in args),
        *_retry_findings(loops_before, loops_after),
        *_count_findings("errored results", before.error_count, after.error_count),
        *_count_findings("redundant calls", g_before.redundant, g_after.redundant),
        *_score_findings("path score", g_before.path_score, g_after.path_score, "{}"),
        *_score_findings("trajectory quality", g_before.trajectory, g_after.trajectory, "{:g}"),
        *_check_findings(regressed, improved, status_after, g_after),
    ]
    latency = None
    if before.timing.duration_ms is not None and after.timing.duration_ms is not None:
        latency = after.timing.duration_ms - before.timing.duration_ms
    return RunDiff(
        epoch=after.epoch,
        baseline_run_id=before.run_id,
        candidate_run_id=after.run_id,
        tools_before=tools_before,
        tools_after=tools_after,
        tools_added=dict(sorted(added.items())),
        tools_removed=dict(sorted(removed.items())),
        reordered=reordered,
        argument_changes=tuple(args),
        step_delta=len(after.steps) - len(before.steps),
        retry_loops_before=loops_before,
        retry_loops_after=loops_after,
        error_delta=after.error_count - before.error_count,
        redundant_delta=g_after.redundant - g_before.redundant,
        token_delta=after.usage.total_tokens - before.usage.total_tokens,
        latency_delta_ms=latency,
        success_before=g_before.success,
        success_after=g_after.success,
        path_score_before=g_before.path_score,
        path_score_after=g_after.path_score,
        checks_regressed=regressed,
        checks_improved=improved,
        findings=tuple(findings),
    )


def _now_failing(status_from: Mapping[str, str], status_to: Mapping[str, str]) -> tuple[str, ...]:
    """The checks that pass in ``status_from`` and fail (or break) in ``status_to``."""
    return tuple(
        k for k in status_from if status_from[k] == "pass" and status_to.get(k) in ("fail", "error")
    )


def _success_findings(before: SuccessStatus, after: SuccessStatus) -> list[Finding]:
    if before == "pass" and after != "pass":
        return [Finding(kind="regression", rule="success", what=f"success flipped pass → {after}")]
    if after == "pass" and before != "pass":
        return [
            Finding(kind="improvement", rule="success", what=f"success flipped {before} → pass")
        ]
    return []


def _tool_findings(
    tools_before: Sequence[str],
    tools_after: Sequence[str],
    added: Counter[str],
    removed: Counter[str],
) -> list[Finding]:
    """More or fewer steps (a regression or an improvement), or tools swapped or reordered."""
    findings: list[Finding] = []
    step_delta = len(tools_after) - len(tools_before)
    if step_delta:
        detail = []
        if added:
            detail.append(f"added {_fmt_counter(added)}")
        if removed:
            detail.append(f"removed {_fmt_counter(removed)}")
        what = f"steps {len(tools_before)} → {len(tools_after)} ({step_delta:+d})" + (
            f": {'; '.join(detail)}" if detail else ""
        )
        kind: FindingKind = "regression" if step_delta > 0 else "improvement"
        findings.append(Finding(kind=kind, rule="trajectory", what=what))
    elif added or removed:
        what = f"tools swapped: added {_fmt_counter(added)}; removed {_fmt_counter(removed)}"
        findings.append(Finding(kind="change", rule="trajectory", what=what))
    if not added and not removed and tools_before != tools_after:
        what = f"tools reordered: {' → '.join(tools_before)} became {' → '.join(tools_after)}"
        findings.append(Finding(kind="change", rule="trajectory", what=what))
    return findings


def _argument_finding(change: ArgumentChange) -> Finding:
    what = (
        f"{change.tool} call #{change.occurrence + 1} arguments changed ({', '.join(change.keys)}): "
        f"{json.dumps(change.before, sort_keys=True)} → {json.dumps(change.after, sort_keys=True)}"
    )
    return Finding(kind="change", rule="trajectory", what=what)


def _retry_findings(loops_before: int, loops_after: int) -> list[Finding]:
    if loops_after > loops_before:
        what = f"new retry loop: {loops_before} → {loops_after} back-to-back repeated calls"
        return [Finding(kind="regression", rule="trajectory", what=what)]
    if loops_after < loops_before:
        what = f"retry loops {loops_before} → {loops_after}"
        return [Finding(kind="improvement", rule="trajectory", what=what)]
    return []


def _count_findings(name: str, before: int, after: int) -> list[Finding]:
    """A count of bad things (errored results, redundant calls): more is a regression."""
    if after == before:
        return []
    kind: FindingKind = "regression" if after > before else "improvement"
    return [Finding(kind=kind, rule="trajectory", what=f"{name} {before} → {after}")]


def _score_findings(
    name: str, before: float | None, after: float | None, number: str
) -> list[Finding]:
    """A score (path score, trajectory quality) both runs have: lower is a regression."""
    if before is None or after is None or before == after:
        return []
    kind: FindingKind = "regression" if after < before else "improvement"
    what = f"{name} {number.format(before)} → {number.format(after)}"
    return [Finding(kind=kind, rule="trajectory", what=what)]


def _check_findings(
    regressed: tuple[str, ...],
    improved: tuple[str, ...],
    status_after: Mapping[str, str],
    g_after: RunGrade,
) -> list[Finding]:
    """The trajectory checks that flipped (the others count under their own rule)."""
    findings = [
        Finding(
            kind="regression", rule="trajectory", what=f"check {check} now {status_after[check]}"
        )
        for check in regressed
        if _check_rule(check, g_after) == "trajectory"
    ]
    findings += [
        Finding(kind="improvement", rule="trajectory", what=f"check {check} now passes")
        for check in improved
        if _check_rule(check, g_after) == "trajectory"
    ]
    return findings


def _with_epochs(pairs: Iterable[RunDiff], rule: GateRule) -> list[str]:
    """Each distinct regression of ``rule`` over ``pairs`` once, in first-seen order, with its epochs."""
    epochs: dict[str, list[int]] = {}
    for pair in pairs:
        for finding in pair.findings:
            if finding.kind == "regression" and finding.rule == rule:
                epochs.setdefault(finding.what, []).append(pair.epoch)
    return [
        f"{what} (epoch{'s' if len(found) > 1 else ''} {', '.join(map(str, found))})"
        for what, found in epochs.items()
    ]


def _index(
    runs: Iterable[RunRecord], label: str, suite: Suite, file: str | Path | None
) -> dict[tuple[str, int], RunRecord]:
    """Runs by (task, epoch); a duplicate, an unknown task or no runs at all is an input error.

    Errors name ``file`` and, when ``runs`` is a :class:`~pathjudge._io.JsonlStream`, the run's line.
    """
    if file is None and isinstance(runs, JsonlStream):
        file = runs.path
    out: dict[tuple[str, int], RunRecord] = {}
    for number, run in enumerate(runs, 1):
        key = (run.task_id, run.epoch)
        if key in out:
            raise InputError(
                f"the {label} runs hold task {run.task_id!r} epoch {run.epoch} twice (run {number})",
                file=file,
                line=line_of(runs),
                task_id=run.task_id,
                field="epoch",
                hint="keep one run per (task, epoch) in each file",
            )
        if suite.get(run.task_id) is None:
            suite.task(run.task_id, file=file, line=line_of(runs))  # raises: unknown task
        out[key] = run
    if not out:
        raise InputError(
            f"the {label} file has no runs", hint=f"pass a non-empty {label} runs JSONL"
        )
    return out


def diff_runs(
    baseline: Iterable[RunRecord],
    candidate: Iterable[RunRecord],
    suite: Suite,
    *,
    gate: DiffGate | None = None,
    verdicts: Mapping[str, VerdictLike] | None = None,
    baseline_file: str | Path | None = None,
    candidate_file: str | Path | None = None,
) -> DiffReport:
    """Diff two run sets against ``suite`` and decide promote / block (see the module docstring).

    Raises :class:`~pathjudge.errors.InputError` for an empty file or a duplicated (task, epoch), and
    :class:`~pathjudge.errors.SuiteError` for a run whose task the suite lacks (naming
    ``baseline_file`` / ``candidate_file`` and the run's line when given). A verdict reason states
    each distinct finding of a task once, with the epochs it occurred in.
    """
    gate = gate or resolve_gate(suite)
    base = _index(baseline, "baseline", suite, baseline_file)
    cand = _index(candidate, "candidate", suite, candidate_file)
    grades_b = _grades(base, suite, verdicts)
    grades_c = _grades(cand, suite, verdicts)
    order = [t.id for t in suite.tasks if any(k[0] == t.id for k in (*base, *cand))]
    tasks = [_task_diff(task_id, base, cand, grades_b, grades_c) for task_id in order]
    fired: dict[str, list[str]] = {}
    for task in tasks:
        for rule, line in _task_rule_lines(task):
            fired.setdefault(rule, []).append(line)
    outcome_pairs = {
        t.task_id: [(p.success_before, p.success_after) for p in t.pairs] for t in tasks
    }
    test = paired_test(
        outcome_pairs, alpha=gate.alpha, level=gate.level, resamples=gate.resamples, seed=gate.seed
    )
    if test.significantly_worse:
        fired.setdefault("significance", []).append(_significance_line(test))
    tokens_b, tokens_a, lat_b, lat_a = _paired_totals(tasks, base, cand)
    suite_findings = _cost_findings(gate, tokens_b, tokens_a, lat_b, lat_a)
    for finding in suite_findings:
        fired.setdefault("cost", []).append(finding.what)
    verdict, reasons = _decide(gate, fired, tasks)
    return DiffReport(
        suite=suite.name,
        tasks=tuple(tasks),
        test=test,
        tokens_before=tokens_b,
        tokens_after=tokens_a,
        latency_before_ms=lat_b,
        latency_after_ms=lat_a,
        suite_findings=tuple(suite_findings),
        gate=gate,
        verdict=verdict,
        reasons=reasons,
    )


def _grades(
    runs: dict[tuple[str, int], RunRecord],
    suite: Suite,
    verdicts: Mapping[str, VerdictLike] | None,
) -> dict[tuple[str, int], RunGrade]:
    """The grade of every run by (task, epoch); judged criteria only with ``verdicts`` given."""
    graded = grade(runs.values(), suite, verdicts, fast=verdicts is None)
    return {(g.task_id, g.epoch): g for g in graded}


def _task_diff(
    task_id: str,
    base: dict[tuple[str, int], RunRecord],
    cand: dict[tuple[str, int], RunRecord],
    grades_b: dict[tuple[str, int], RunGrade],
    grades_c: dict[tuple[str, int], RunGrade],
) -> TaskDiff:
    """One task: the diff of each epoch both sides ran, and the epochs only one side ran."""
    epochs_b = sorted(e for t, e in base if t == task_id)
    epochs_c = sorted(e for t, e in cand if t == task_id)
    pairs = [
        diff_pair(base[key], cand[key], grades_b[key], grades_c[key])
        for key in ((task_id, e) for e in epochs_b if e in set(epochs_c))
    ]
    findings = [f for p in pairs for f in p.findings]
    baseline_only = tuple(e for e in epochs_b if e not in set(epochs_c))
    candidate_only = tuple(e for e in epochs_c if e not in set(epochs_b))
    if baseline_only:
        what = f"no candidate run for epoch(s) {', '.join(map(str, baseline_only))}"
        findings.append(Finding(kind="regression", rule="coverage", what=what))
    if candidate_only:
        what = f"no baseline run for epoch(s) {', '.join(map(str, candidate_only))}"
        findings.append(Finding(kind="change", rule="coverage", what=what))
    return TaskDiff(
        task_id=task_id,
        pairs=tuple(pairs),
        baseline_only=baseline_only,
        candidate_only=candidate_only,
        success_before=_rate(p.success_before for p in pairs),
        success_after=_rate(p.success_after for p in pairs),
        findings=tuple(findings),
    )


def _task_rule_lines(task: TaskDiff) -> list[tuple[str, str]]:
    """(rule, reason line) for each gate rule the task trips: success, trajectory, coverage."""
    lines: list[tuple[str, str]] = []
    before, after = task.success_before, task.success_after
    if before is not None and after is not None and after < before:
        lines.append(("success", f"{task.task_id}: success rate {before:.2f} → {after:.2f}"))
    traj = _with_epochs(task.pairs, "trajectory")
    if traj:
        lines.append(("trajectory", f"{task.task_id}: {'; '.join(traj)}"))
    cover = [f.what for f in task.findings if f.kind == "regression" and f.rule == "coverage"]
    if cover:
        lines.append(("coverage", f"{task.task_id}: {'; '.join(cover)}"))
    return lines


def _significance_line(test: PairedTest) -> str:
    line = f"candidate significantly worse: McNemar p={test.mcnemar_p:.4f} (b={test.worse}, c={test.better})"
    if test.mean_delta is not None:
        line += f", bootstrap mean Δ {test.mean_delta:+.3f} [{test.bootstrap_low:+.3f}, {test.bootstrap_high:+.3f}]"
    return line


def _paired_totals(
    tasks: list[TaskDiff],
    base: dict[tuple[str, int], RunRecord],
    cand: dict[tuple[str, int], RunRecord],
) -> tuple[int, int, float | None, float | None]:
    """Tokens and latency (ms) of the paired runs, baseline then candidate; latency is None when a
    paired run has none."""
    tokens_b = tokens_a = 0
    lat_b: float | None = 0.0
    lat_a: float | None = 0.0
    for task in tasks:
        for pair in task.pairs:
            rb, rc = base[(task.task_id, pair.epoch)], cand[(task.task_id, pair.epoch)]
            tokens_b += rb.usage.total_tokens
            tokens_a += rc.usage.total_tokens
            if rb.timing.duration_ms is None or rc.timing.duration_ms is None:
                lat_b = lat_a = None
            elif lat_b is not None and lat_a is not None:
                lat_b += rb.timing.duration_ms
                lat_a += rc.timing.duration_ms
    return tokens_b, tokens_a, lat_b, lat_a


def _cost_findings(
    gate: DiffGate, tokens_b: int, tokens_a: int, lat_b: float | None, lat_a: float | None
) -> list[Finding]:
    """The 'cost' rule: tokens or latency grew by more than the gate allows."""
    findings: list[Finding] = []
    if (
        gate.max_token_increase is not None
        and tokens_b > 0
        and (tokens_a - tokens_b) / tokens_b > gate.max_token_increase
    ):
        what = f"tokens {tokens_b} → {tokens_a} (+{(tokens_a - tokens_b) / tokens_b:.0%} > {gate.max_token_increase:.0%})"
        findings.append(Finding(kind="regression", rule="cost", what=what))
    if (
        gate.max_latency_increase is not None
        and lat_b
        and lat_a is not None
        and (lat_a - lat_b) / lat_b > gate.max_latency_increase
    ):
        what = f"latency {lat_b:.0f} ms → {lat_a:.0f} ms (+{(lat_a - lat_b) / lat_b:.0%} > {gate.max_latency_increase:.0%})"
        findings.append(Finding(kind="regression", rule="cost", what=what))
    return findings


def _decide(
    gate: DiffGate, fired: dict[str, list[str]], tasks: list[TaskDiff]
) -> tuple[Literal["promote", "block"], tuple[str, ...]]:
    """Block when a gated rule fired; the reasons list the gated lines, then the others flagged."""
    reasons = [f"[{rule}] {line}" for rule in gate.block_on for line in fired.get(rule, [])]
    flagged = [
        f"[{rule}, not gated] {line}"
        for rule in GATE_RULES
        if rule not in gate.block_on
        for line in fired.get(rule, [])
    ]
    if reasons:
        return "block", tuple(reasons + flagged)
    changed = [t.task_id for t in tasks if t.changed]
    review = f"; review the changes on {', '.join(changed)}" if changed else "; no difference found"
    return "promote", ("no gated rule fired" + review, *flagged)


def parse_gate_rules(text: str) -> tuple[GateRule, ...]:
    """``"success,trajectory"`` → the rules; an unknown rule is an :class:`InputError`. ``""`` → none."""
    rules: list[GateRule] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        for rule in GATE_RULES:
            if rule == part:
                rules.append(rule)
                break
        else:
            raise InputError(
                f"unknown gate rule {part!r}",
                field="--block-on",
                hint=f"use any of: {', '.join(GATE_RULES)}",
            )
    return tuple(rules)


def resolve_gate(
    suite: Suite,
    *,
    block_on: tuple[GateRule, ...] | None = None,
    alpha: float | None = None,
    seed: int | None = None,
    resamples: int | None = None,
    max_token_increase: float | None = None,
    max_latency_increase: float | None = None,
) -> DiffGate:
    """The gate for diffing on ``suite``: each argument given (not None) wins, then the suite's
    ``gate:`` block, then the :class:`DiffGate` defaults.

    A suite without a gate and no arguments gives ``DiffGate()``. Out-of-range values raise
    pydantic's ``ValidationError`` (the CLI turns it into an input error naming the flag).
    """
    values: dict[str, object] = {}
    if suite.gate is not None:
        values.update(suite.gate.model_dump(exclude_none=True))
    given = {
        "block_on": block_on,
        "alpha": alpha,
        "seed": seed,
        "resamples": resamples,
        "max_token_increase": max_token_increase,
        "max_latency_increase": max_latency_increase,
    }
    values.update({key: value for key, value in given.items() if value is not None})
    return DiffGate.model_validate(values)
