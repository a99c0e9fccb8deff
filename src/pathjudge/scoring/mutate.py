"""Mutation testing of a suite: break real runs on purpose and see which check notices.

A suite you never saw fail is a suite you cannot trust. :func:`mutate` makes a perturbed copy of a run in
one of six ways; :func:`mutation_report` grades every original and every copy with the suite and records,
per mutation, which checks passed on the original and fail on the copy — the checks that *caught* it.
A mutation no check caught is a **gap**, listed, never hidden, unless it made the run *better*: a
mutant that no check caught and whose path score rose, whose trajectory went from 0 to 1 or whose
redundant calls fell, with success no worse, is an **improvement** (dropping a wasted call is the
common case). An improvement is not a gap: the suite was right to let it pass.

Mutations (each returns ``None`` — not applicable — when it would not change the run):

- ``drop_step``: remove the last successful call (the one an answer most likely came from);
- ``duplicate_call``: repeat the last successful call in a turn of its own, right after it;
- ``reorder``: reverse the order of the calls (one call per turn); n/a when that changes nothing;
- ``corrupt_argument``: in the first call with arguments, corrupt the first argument (sorted by name):
  a non-empty string becomes ``""``, an empty one ``"corrupted"``, a number the string ``"NaN"``, a
  boolean its negation, a non-empty list/object an empty one (an empty one gains a bogus item), null
  ``"corrupted"``; the recorded result is kept, as when a typo'd argument still returns the right row;
- ``refusal_answer``: replace the final answer with a refusal; n/a on an ``out_of_scope`` task, where a
  refusal is the right answer;
- ``inject_tool_error``: the last call's result becomes an error.

What counts as catching: a gating check whose status went from pass to fail/error, plus three grade
signals that are not check results — ``grade.trajectory`` (trajectory quality 1 → 0), ``grade.path_score``
(the path score dropped) and ``grade.surfaced`` (a required result id no longer comes back).

Also here: the broken-retriever experiment (:func:`retriever_experiment`) — the same Docent with the
keyword retriever and with the worst-match retriever, graded by the same suite; with the offline scripted
policy it is deterministic. Success *collapses* when the broken rate is at most half the keyword rate.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Literal, assert_never, get_args

from pydantic import Field, JsonValue

from pathjudge._records import FrozenModel
from pathjudge.agent.backends import ModelBackend, ScriptedBackend
from pathjudge.agent.docent import DocentPolicy, run_docent
from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics.checks import SuitePlan
from pathjudge.rubrics.suite import Suite
from pathjudge.scoring.grade import RunGrade, SuccessStatus, grade, grade_run

__all__ = [
    "MUTATION_KINDS",
    "REFUSAL_TEXT",
    "MutantResult",
    "MutationKind",
    "MutationReport",
    "RetrieverExperiment",
    "RetrieverOutcome",
    "caught_by",
    "improved",
    "mutate",
    "mutation_report",
    "retriever_experiment",
]

MutationKind = Literal[
    "drop_step",
    "duplicate_call",
    "reorder",
    "corrupt_argument",
    "refusal_answer",
    "inject_tool_error",
]
MUTATION_KINDS: tuple[MutationKind, ...] = get_args(MutationKind)

REFUSAL_TEXT = "I don't have that in the docs."
INJECTED_ERROR = "Error: the tool failed (injected by pathjudge mutate)"


def _last_ok(steps: Sequence[Step]) -> int | None:
    for index in range(len(steps) - 1, -1, -1):
        if not steps[index].is_error:
            return index
    return None


def _corrupt(value: JsonValue) -> JsonValue:
    if isinstance(value, bool):
        return not value
    if isinstance(value, str):
        return "" if value else "corrupted"
    if isinstance(value, int | float):
        return "NaN"
    if isinstance(value, list):
        return [] if value else ["corrupted"]
    if isinstance(value, dict):
        return {} if value else {"corrupted": True}
    return "corrupted"


def mutate(run: RunRecord, kind: MutationKind, *, task_kind: str | None = None) -> RunRecord | None:
    """A perturbed copy of ``run`` (see the module docstring), or ``None`` when ``kind`` does not apply.

    ``task_kind`` is the suite task's kind ('factual' / 'out_of_scope' / None). The copy's ``run_id`` is
    ``"{run_id}~{kind}"`` and its metadata records the mutation.
    """
    steps = list(run.steps)
    answer = run.final_answer
    if kind == "drop_step":
        index = _last_ok(steps)
        if index is None:
            return None
        del steps[index]
        what = f"dropped call #{index + 1} {run.steps[index].tool}"
    elif kind == "duplicate_call":
        index = _last_ok(steps)
        if index is None:
            return None
        original = steps[index]
        copy = original.model_copy(
            update={"turn": original.turn + 1, "call_id": f"{original.call_id or index}~dup"}
        )
        later = [s.model_copy(update={"turn": s.turn + 1}) for s in steps[index + 1 :]]
        steps = [*steps[: index + 1], copy, *later]
        what = f"duplicated steps[{index}] {original.tool}"
    elif kind == "reorder":
        reordered = [s.model_copy(update={"turn": i}) for i, s in enumerate(reversed(steps))]
        if [(s.tool, s.arguments, s.result, s.is_error) for s in reordered] == [
            (s.tool, s.arguments, s.result, s.is_error) for s in steps
        ]:
            return None
        steps = reordered
        what = f"reversed the order of {len(steps)} calls"
    elif kind == "corrupt_argument":
        found = next(
            (i for i, s in enumerate(steps) if s.arguments and s.arguments_error is None), None
        )
        if found is None:
            return None
        key = sorted(steps[found].arguments)[0]
        arguments = dict(steps[found].arguments)
        arguments[key] = _corrupt(arguments[key])
        steps[found] = steps[found].model_copy(update={"arguments": arguments})
        what = f"corrupted steps[{found}] {steps[found].tool} argument {key!r}"
    elif kind == "refusal_answer":
        if task_kind == "out_of_scope" or answer == REFUSAL_TEXT:
            return None
        answer = REFUSAL_TEXT
        what = "replaced the final answer with a refusal"
    elif kind == "inject_tool_error":
        if not steps or steps[-1].is_error:
            return None
        steps[-1] = steps[-1].model_copy(update={"result": INJECTED_ERROR, "is_error": True})
        what = f"made steps[{len(steps) - 1}] {steps[-1].tool} return an error"
    else:
        assert_never(kind)
    return run.model_copy(
        update={
            "run_id": f"{run.run_id}~{kind}",
            "steps": tuple(steps),
            "final_answer": answer,
            "metadata": {
                **run.metadata,
                "mutation": {"kind": kind, "of": run.run_id, "what": what},
            },
        }
    )


def _statuses(g: RunGrade) -> dict[str, str]:
    seen: Counter[str] = Counter()
    out: dict[str, str] = {}
    for check in g.checks:
        if check.gating:
            seen[check.check] += 1
            out[check.check if seen[check.check] == 1 else f"{check.check}#{seen[check.check]}"] = (
                check.status
            )
    return out


def caught_by(original: RunGrade, mutant: RunGrade) -> tuple[str, ...]:
    """Checks (and grade signals) that passed on the original and fail on the mutant, sorted."""
    before, after = _statuses(original), _statuses(mutant)
    caught = {
        k.split("#")[0]
        for k, v in before.items()
        if v == "pass" and after.get(k) in ("fail", "error")
    }
    if original.trajectory == 1.0 and mutant.trajectory == 0.0:
        caught.add("grade.trajectory")
    if (
        original.path_score is not None
        and mutant.path_score is not None
        and mutant.path_score < original.path_score
    ):
        caught.add("grade.path_score")
    if original.surfaced is True and mutant.surfaced is False:
        caught.add("grade.surfaced")
    return tuple(sorted(caught))


_SUCCESS_RANK = {"fail": 0, "undecided": 1, "pass": 2}


def improved(original: RunGrade, mutant: RunGrade) -> bool:
    """True when ``mutant`` is better than ``original`` and no worse anywhere this module measures.

    Better: a higher path score, trajectory 0 → 1, or fewer redundant calls. No worse: success did not
    drop, trajectory did not drop, the path score did not drop and no check caught it.
    """
    if caught_by(original, mutant):
        return False
    if _SUCCESS_RANK[mutant.success] < _SUCCESS_RANK[original.success]:
        return False
    if original.trajectory == 1.0 and mutant.trajectory == 0.0:
        return False
    before, after = original.path_score, mutant.path_score
    if before is not None and after is not None and after < before:
        return False
    return (
        (before is not None and after is not None and after > before)
        or (original.trajectory == 0.0 and mutant.trajectory == 1.0)
        or mutant.redundant < original.redundant
    )


class MutantResult(FrozenModel):
    """One mutation of one run: whether it applied, what it did, and which checks caught it."""

    run_id: str
    task_id: str
    kind: MutationKind
    applied: bool
    what: str = Field(description="What the mutation changed, or why it did not apply.")
    caught_by: tuple[str, ...] = ()
    improved: bool = Field(
        default=False,
        description="No check caught it because it made the run better (e.g. dropped a wasted call).",
    )

    @property
    def caught(self) -> bool:
        return bool(self.caught_by)


class MutationReport(FrozenModel):
    suite: str
    runs: int
    kinds: tuple[MutationKind, ...]
    results: tuple[MutantResult, ...]
    applied: dict[str, int] = Field(description="kind -> mutants made.")
    caught: dict[str, int] = Field(description="kind -> mutants caught by at least one check.")
    table: dict[str, dict[str, int]] = Field(description="kind -> check -> mutants it caught.")
    gaps: tuple[MutantResult, ...] = Field(
        description="Applied mutants no check caught (improvements are not gaps)."
    )
    improved: dict[str, int] = Field(
        default_factory=dict, description="kind -> mutants that made the run better."
    )
    uncaught_kinds: tuple[MutationKind, ...] = Field(
        description="Kinds that made some run worse or no better and were never caught."
    )

    @property
    def checks(self) -> tuple[str, ...]:
        return tuple(sorted({c for row in self.table.values() for c in row}))


def mutation_report(
    runs: Iterable[RunRecord],
    suite: Suite,
    *,
    kinds: Sequence[MutationKind] = MUTATION_KINDS,
) -> MutationReport:
    """Mutate every run in every kind, grade both with ``suite`` (assertions only), tabulate catches.

    Empty input gives an empty report (no gaps). A run whose task the suite lacks raises
    :class:`~pathjudge.errors.SuiteError`.
    """
    runs = list(runs)
    plans = SuitePlan(suite)
    originals = list(grade(runs, plans, fast=True))
    results: list[MutantResult] = []
    table: dict[str, Counter[str]] = {kind: Counter() for kind in kinds}
    applied: Counter[str] = Counter()
    caught: Counter[str] = Counter()
    better: Counter[str] = Counter()
    for run, original in zip(runs, originals, strict=True):
        plan = plans.plan(run.task_id)
        for kind in kinds:
            mutant = mutate(run, kind, task_kind=plan.task.kind)
            if mutant is None:
                results.append(
                    MutantResult(
                        run_id=run.run_id,
                        task_id=run.task_id,
                        kind=kind,
                        applied=False,
                        what="not applicable",
                    )
                )
                continue
            graded = grade_run(mutant, plan, fast=True)
            catchers = caught_by(original, graded)
            is_better = improved(original, graded)
            meta = mutant.metadata["mutation"]
            what = str(meta["what"]) if isinstance(meta, dict) else kind
            results.append(
                MutantResult(
                    run_id=run.run_id,
                    task_id=run.task_id,
                    kind=kind,
                    applied=True,
                    what=what,
                    caught_by=catchers,
                    improved=is_better,
                )
            )
            applied[kind] += 1
            better[kind] += is_better
            if catchers:
                caught[kind] += 1
                table[kind].update(catchers)
    gaps = tuple(r for r in results if r.applied and not r.caught and not r.improved)
    return MutationReport(
        suite=suite.name,
        runs=len(runs),
        kinds=tuple(kinds),
        results=tuple(results),
        applied={kind: applied[kind] for kind in kinds},
        caught={kind: caught[kind] for kind in kinds},
        table={kind: dict(sorted(table[kind].items())) for kind in kinds},
        gaps=gaps,
        improved={kind: better[kind] for kind in kinds},
        uncaught_kinds=tuple(k for k in kinds if applied[k] - better[k] > 0 and not caught[k]),
    )


# --------------------------------------------------------------------------------------------------
# The broken-retriever experiment


class RetrieverOutcome(FrozenModel):
    task_id: str
    keyword: SuccessStatus
    worst_match: SuccessStatus


class RetrieverExperiment(FrozenModel):
    """Docent with the keyword vs the worst-match retriever, graded by the same suite."""

    suite: str
    model: str
    tasks: tuple[RetrieverOutcome, ...]
    keyword_rate: float | None = Field(
        description="Success rate over decided tasks, keyword retriever."
    )
    worst_match_rate: float | None = Field(
        description="Success rate over decided tasks, broken retriever."
    )
    collapsed: bool = Field(
        description="worst_match_rate <= keyword_rate / 2 (and keyword_rate > 0)."
    )


def _rate(values: Iterable[SuccessStatus]) -> float | None:
    decided = [v for v in values if v != "undecided"]
    return sum(v == "pass" for v in decided) / len(decided) if decided else None


async def retriever_experiment(
    suite: Suite,
    *,
    backend: ModelBackend | None = None,
    max_steps: int = 4,
) -> RetrieverExperiment:
    """Run Docent once per task with each retriever and grade both (assertions only).

    ``backend`` defaults to the offline scripted Docent policy (deterministic). Empty suites cannot
    exist (a suite has at least one task).
    """
    from pathjudge.agent.backends import ModelBackend

    chosen: ModelBackend = (
        backend if isinstance(backend, ModelBackend) else ScriptedBackend(DocentPolicy())
    )
    graded: dict[str, dict[str, SuccessStatus]] = {"keyword": {}, "worst_match": {}}
    for retriever in ("keyword", "worst_match"):
        runs = [
            await run_docent(
                chosen,
                task_id=task.id,
                question=task.input_text,
                retriever=retriever,
                task_metadata=task.metadata,
                max_steps=max_steps,
                task_input=task.input,
            )
            for task in suite.tasks
        ]
        for g in grade(runs, suite, fast=True):
            graded[retriever][g.task_id] = g.success
    outcomes = tuple(
        RetrieverOutcome(
            task_id=t.id, keyword=graded["keyword"][t.id], worst_match=graded["worst_match"][t.id]
        )
        for t in suite.tasks
    )
    keyword = _rate(o.keyword for o in outcomes)
    broken = _rate(o.worst_match for o in outcomes)
    collapsed = keyword is not None and broken is not None and keyword > 0 and broken <= keyword / 2
    return RetrieverExperiment(
        suite=suite.name,
        model=chosen.model,
        tasks=outcomes,
        keyword_rate=keyword,
        worst_match_rate=broken,
        collapsed=collapsed,
    )
