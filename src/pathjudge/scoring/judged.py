"""The seam between deterministic grading and the LLM judge.

:func:`judge_requests` turns (runs, suite) into one :class:`JudgeRequest` per (run, judged criterion):
``item_id = f"{run_id}:{criterion_id}"`` plus the named text inputs the criterion reads. The judge
(``pathjudge.judge``) answers them; :func:`~pathjudge.scoring.grade.grade` takes the answers as
``verdicts: Mapping[item_id, VerdictLike]``. Anything with ``.verdict`` and ``.reasoning`` fits, so the
judge's own records, recorded verdicts read back from JSONL (:func:`load_verdicts`) and test doubles all
plug in without this module importing the judge.

A verdict of ``unsure`` and a judge failure (``error``) both mean "the judge could not decide": such
items are excluded from pass rates and counted separately, never turned into a pass or a fail.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import Field

from pathjudge._io import JsonlStream, line_of
from pathjudge._records import FrozenModel
from pathjudge.agent.trajectory import RunRecord
from pathjudge.rubrics.criteria import builtin_criteria, input_text, suite_criterion
from pathjudge.rubrics.suite import JudgedSpec, Suite, Task

if TYPE_CHECKING:
    from pathjudge.calibration.verdicts import GradedVerdict, VerdictSet
    from pathjudge.judge.session import JudgeSession
    from pathjudge.rubrics.criteria import Criterion

__all__ = [
    "JudgeRequest",
    "JudgedRun",
    "JudgedStatus",
    "VerdictLike",
    "build_inputs",
    "item_id",
    "iter_judge_requests",
    "judge_request",
    "judge_requests",
    "judged_criteria",
    "load_verdicts",
    "read_verdict_set",
    "run_judge_requests",
    "run_judged",
    "status_of",
    "suite_has_judged",
]

JudgedStatus = Literal["pass", "fail", "unsure", "error", "not_run"]
"""A judged criterion's outcome on one run. ``unsure`` and ``error`` are "could not decide";
``not_run`` means no verdict was available (fast mode, or no judge configured)."""


class VerdictLike(Protocol):
    """What grading needs from a verdict: the label and why."""

    @property
    def verdict(self) -> str: ...

    @property
    def reasoning(self) -> str: ...


class JudgeRequest(FrozenModel):
    """One item for the judge: one criterion on one run, with its named text inputs."""

    item_id: str = Field(description="'{run_id}:{criterion_id}', the key verdicts come back under.")
    run_id: str
    task_id: str
    criterion_id: str
    inputs: dict[str, str] = Field(description="Criterion input name -> text.")


def item_id(run_id: str, criterion_id: str) -> str:
    """The item id of one criterion on one run."""
    return f"{run_id}:{criterion_id}"


def _text(value: object) -> str:
    """:func:`~pathjudge.rubrics.criteria.input_text`, with nothing (None) as no text."""
    return "" if value is None else input_text(value)


def build_inputs(run: RunRecord, task: Task, spec: JudgedSpec) -> dict[str, str]:
    """The criterion's named inputs for this run (see :data:`~pathjudge.rubrics.suite.JudgedInput`)."""
    out: dict[str, str] = {}
    for name, source in spec.inputs.items():
        if source == "final_answer":
            out[name] = run.final_answer or ""
        elif source == "replies":
            out[name] = "\n\n".join(reply.text for reply in run.replies)
        elif source == "input":
            out[name] = task.input_text if task.input is not None else _text(run.input)
        elif source == "reference":
            out[name] = spec.reference or ""
        elif source == "tool_results":
            out[name] = "\n".join(f"{step.tool}: {_text(step.result)}" for step in run.steps)
        elif source == "tool_calls":
            out[name] = "\n".join(
                f"{step.tool}({json.dumps(step.arguments, ensure_ascii=False, sort_keys=True)})"
                for step in run.steps
            )
        else:  # pragma: no cover - closed Literal, checked by mypy
            raise AssertionError(source)
    return out


def judge_request(run: RunRecord, task: Task, spec: JudgedSpec) -> JudgeRequest:
    """The judge request for one judged criterion of ``task`` on ``run``."""
    return JudgeRequest(
        item_id=item_id(run.run_id, spec.criterion),
        run_id=run.run_id,
        task_id=task.id,
        criterion_id=spec.criterion,
        inputs=build_inputs(run, task, spec),
    )


def run_judge_requests(
    run: RunRecord,
    suite: Suite,
    *,
    file: str | Path | None = None,
    line: int | None = None,
) -> list[JudgeRequest]:
    """The judge requests of one run, in criterion order (none when its task has no judged criteria).

    A run naming a task the suite does not have raises :class:`~pathjudge.errors.SuiteError` naming
    ``file`` and ``line`` (the run's line in that file) when given.
    """
    task = suite.get(run.task_id)
    if task is None:
        task = suite.task(run.task_id, file=file, line=line)  # raises: unknown task
    return [judge_request(run, task, spec) for spec in task.judged]


def iter_judge_requests(
    runs: Iterable[RunRecord], suite: Suite, *, file: str | Path | None = None
) -> Iterator[JudgeRequest]:
    """Stream the judge requests of ``runs`` (runs of tasks without judged criteria yield none).

    A run naming a task the suite does not have raises :class:`~pathjudge.errors.SuiteError` (naming
    the file, and the run's line when ``runs`` is a :class:`~pathjudge._io.JsonlStream` such as
    :func:`~pathjudge.agent.io.read_runs` returns).
    """
    if file is None and isinstance(runs, JsonlStream):
        file = runs.path
    for run in runs:
        yield from run_judge_requests(run, suite, file=file, line=line_of(runs))


def judge_requests(runs: Iterable[RunRecord], suite: Suite) -> list[JudgeRequest]:
    """All judge requests of ``runs`` in run order, then criterion order; empty when nothing is judged."""
    return list(iter_judge_requests(runs, suite))


def status_of(verdict: VerdictLike | None) -> JudgedStatus:
    """``not_run`` without a verdict; otherwise pass / fail / unsure, and ``error`` for anything else."""
    if verdict is None:
        return "not_run"
    label = verdict.verdict
    if label == "pass":
        return "pass"
    if label == "fail":
        return "fail"
    if label == "unsure":
        return "unsure"
    return "error"


def load_verdicts(path: str | Path) -> dict[str, GradedVerdict]:
    """Recorded verdicts for grading: :func:`pathjudge.calibration.verdicts.load_verdicts` (over the
    one reader of verdicts files, either shape, strict, line-numbered errors), one verdict per item id
    (:meth:`~pathjudge.calibration.verdicts.VerdictSet.by_item`). An empty file gives no verdicts.
    """
    return read_verdict_set(path).by_item()


def read_verdict_set(path: str | Path) -> VerdictSet:
    """The verdicts file read by the one reader, aggregated per item (an empty file: an empty set)."""
    # imported here: a score without --verdicts never loads the verdicts-file models (cold start)
    from pathjudge.calibration.verdicts import load_verdicts as load_verdict_set

    return load_verdict_set(path, allow_empty=True)


# --------------------------------------------------------------------------------------------------
# Running the judge for ``pathjudge score`` (the judge package is imported lazily, only when it runs)


def suite_has_judged(suite: Suite) -> bool:
    """Whether any task of ``suite`` has a judged criterion."""
    return any(task.judged for task in suite.tasks)


def judged_criteria(
    requests: Iterable[JudgeRequest], base_dir: str | Path | None = None
) -> dict[str, Criterion]:
    """The criterion files named by ``requests``, resolved as a suite's criteria are: inside
    ``base_dir`` (the suite's folder; the working folder for a suite with no file), see
    :func:`~pathjudge.rubrics.criteria.suite_criterion`.

    Built-in ids are left to the judge's own lookup; every other reference is resolved here, so none
    reaches a file outside the suite's folder. Empty input gives ``{}``.
    """

    folder = Path(base_dir) if base_dir is not None else Path.cwd()
    library = builtin_criteria()
    out: dict[str, Criterion] = {}
    for request in requests:
        ref = request.criterion_id
        if ref not in out and ref not in library:
            out[ref] = suite_criterion(ref, folder)
    return out


@dataclass(frozen=True)
class JudgedRun:
    """The judge's answers by item id, plus what the run cost (calls, cache hits, failures)."""

    verdicts: dict[str, Any]
    backend: str
    model: str
    calls: int
    cache_hits: int
    failures: int
    unfinished: int

    def describe(self) -> str:
        """One line for the terminal, e.g. ``judged by anthropic:m — 3 items, 3 calls, 0 cached``."""
        text = (
            f"judged by {self.backend}:{self.model} — {len(self.verdicts)} items, "
            f"{self.calls} calls, {self.cache_hits} cached samples"
        )
        if self.failures:
            text += f", {self.failures} judge failures (counted apart)"
        if self.unfinished:
            text += f", {self.unfinished} not judged (budget spent)"
        return text


def run_judged(
    requests: Iterable[JudgeRequest],
    session: JudgeSession,
    *,
    criteria: Mapping[str, Criterion] | None = None,
) -> JudgedRun:
    """Judge ``requests`` with the judge of ``session``, through its verdict cache.

    Cached samples are reused (a rerun makes zero calls); each new one is cached as it arrives. Judge
    failures come back as ``error`` results (counted apart, never a pass or a fail). When the budget
    runs out the verdicts obtained are returned and the rest are counted in ``unfinished`` (they grade
    as not run). Bad settings raise :class:`~pathjudge.errors.ConfigError`. Empty input makes no call.
    """
    from pathjudge.judge.runner import make_jobs

    jobs = make_jobs(requests, criteria=criteria)
    backend = session.build_backend()
    if not jobs:
        return JudgedRun({}, backend.name, backend.model, 0, 0, 0, 0)
    run = session.run_sync(jobs, backend)
    return JudgedRun(
        verdicts=dict(run.results),
        backend=backend.name,
        model=backend.model,
        calls=run.stats.calls,
        cache_hits=run.stats.cache_hits,
        failures=len(run.failures),
        unfinished=len(run.unfinished),
    )
