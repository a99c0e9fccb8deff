"""Judging an items file: what ``pathjudge judge`` does, as a library function.

An items file is JSONL, one :class:`JudgeItem` a line (``item_id`` and the criterion's named
``inputs``); :func:`judge_items` judges each through a :class:`~pathjudge.judge.session.JudgeSession`
and writes the verdicts in input order.

The same file serves the labelling page and ``calibrate --items --slice-by``: a line may also carry
``split``, ``group``, ``slice`` and ``metadata``. They are read and kept on the item, never judged:
only ``inputs`` reach the model (a criterion that needs one of them names it as an input, under
``inputs``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal, Protocol, Self, TypeVar

from pydantic import Field, JsonValue

from pathjudge._ids import ItemId
from pathjudge._io import iter_jsonl, write_jsonl
from pathjudge._records import FrozenModel
from pathjudge.errors import BudgetExceededError, InputError, JudgeFailuresError
from pathjudge.judge.identity import Certification
from pathjudge.judge.runner import JudgeJob, JudgeRun
from pathjudge.judge.session import JudgeSession
from pathjudge.rubrics.criteria import Criterion, get_criterion

__all__ = ["JudgeItem", "judge_items", "numbered_items", "read_items"]


class JudgeItem(FrozenModel):
    """One line of an items JSONL file."""

    item_id: ItemId = Field(
        description="Unique id (an integer is read as text); verdicts refer to it."
    )
    inputs: dict[str, str] = Field(description="The criterion's named inputs, as text.")
    split: Literal["train", "dev", "test"] | None = Field(
        default=None, description="Its split (labelling and calibration; not judged)."
    )
    group: str | None = Field(
        default=None, description="Its group, e.g. the task id (labelling; not judged)."
    )
    slice: dict[str, str] = Field(
        default_factory=dict,
        description="Slice keys, e.g. category (calibrate --slice-by; not judged).",
    )
    metadata: dict[str, JsonValue] = Field(
        default_factory=dict, description="Anything else (kept, not judged)."
    )


class _ItemLine(Protocol):
    """What :func:`numbered_items` reads a line into: a pydantic model with an ``item_id``."""

    @property
    def item_id(self) -> str: ...

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, /) -> Self: ...


L = TypeVar("L", bound=_ItemLine)


def numbered_items(path: Path, model: type[L]) -> Iterator[tuple[int, L]]:
    """Yield ``(line, item)`` for each line of an items JSONL file read as ``model`` (line-numbered
    errors); an item id that appeared before is an :class:`InputError` naming the line."""
    seen: set[str] = set()
    for line, item in iter_jsonl(path, model, what="item").numbered():
        if item.item_id in seen:
            raise InputError(
                f"item id {item.item_id!r} appears twice",
                file=path,
                line=line,
                field="item_id",
                hint="item ids must be unique",
            )
        seen.add(item.item_id)
        yield line, item


def read_items(path: Path) -> list[tuple[int, JudgeItem]]:
    """Read the items JSONL as ``(line, item)`` pairs (line-numbered errors); a duplicate id is an :class:`InputError`."""
    return list(numbered_items(path, JudgeItem))


def _summary(run: JudgeRun, output: Path, certification: Certification | None) -> str:
    counts = Counter(r.verdict for r in run.results.values())
    stats = run.stats
    cost = f", ${stats.usage.cost_usd:.4f}" if stats.usage.cost_usd is not None else ""
    certified = f"\njudge: {certification.label}" if certification is not None else ""
    return (
        f"{len(run.results)} items → {output}: pass {counts.get('pass', 0)}, fail {counts.get('fail', 0)}, "
        f"unsure {counts.get('unsure', 0)}, judge failures {counts.get('error', 0)} · "
        f"{stats.calls} calls, {stats.cache_hits} cached samples, {stats.retries} retries, "
        f"{stats.usage.total_tokens} tokens{cost}{certified}"
    )


def run_report(
    run: JudgeRun,
    output: Path,
    criterion: Criterion,
    session: JudgeSession,
    certification: Certification | None = None,
) -> dict[str, Any]:
    """The run summary as a JSON-ready document (what ``pathjudge judge --json`` writes); with a
    ``certification``, its ``certification`` says whether the verdict counts are certified."""
    counts = Counter(r.verdict for r in run.results.values())
    stats = run.stats
    first = next(iter(run.results.values()), None)
    return {
        "items": len(run.results),
        "verdicts": {
            "pass": counts.get("pass", 0),
            "fail": counts.get("fail", 0),
            "unsure": counts.get("unsure", 0),
        },
        "judge_failures": [
            {"item_id": f.item_id, "error_type": f.error_type, "message": f.message}
            for f in run.failures
        ],
        "retries": stats.retries,
        "requests": stats.calls,
        "cached_samples": stats.cache_hits,
        "samples": session.samples,
        "usage": {
            "input_tokens": stats.usage.input_tokens,
            "output_tokens": stats.usage.output_tokens,
            "cache_creation_input_tokens": stats.usage.cache_creation_input_tokens,
            "cache_read_input_tokens": stats.usage.cache_read_input_tokens,
            "total_tokens": stats.usage.total_tokens,
            "cost_usd": stats.usage.cost_usd,
        },
        "judge": {
            "backend": first.backend if first is not None else session.backend,
            "model": first.model if first is not None else session.model,
            "criterion_id": criterion.id,
            "criterion_hash": criterion.content_hash,
        },
        "verdicts_path": str(output),
        **(
            {"certification": certification.model_dump(mode="json")}
            if certification is not None
            else {}
        ),
    }


def judge_items(
    items_path: Path,
    criterion_ref: str,
    output: Path,
    session: JudgeSession,
    *,
    warn: Callable[[str], None],
    report: Callable[[dict[str, Any]], None] | None = None,
    certification: Certification | None = None,
) -> str:
    """Run the judge over the items file and write verdicts in input order; return a one-line summary.

    With a budget that runs out, the verdicts obtained are written and :class:`BudgetExceededError` is
    raised (they are cached too, so a rerun with a larger budget finishes the rest). When any item
    ended in a judge failure, everything is written and :class:`JudgeFailuresError` (exit 1, carrying
    the summary) is raised, so a CI job does not go green on a judge that could not judge.
    ``report``, when given, receives :func:`run_report`'s document once the run finished (before
    that error is raised). ``certification`` labels the verdict counts in the summary and the
    document (certified or uncertified, see :class:`~pathjudge.judge.identity.Certification`).
    """

    criterion = get_criterion(criterion_ref)
    jobs = []
    for number, item in read_items(items_path):
        try:
            criterion.check_inputs(item.inputs, item_id=item.item_id)
        except InputError as exc:
            raise InputError(
                exc.message, file=items_path, line=number, field=exc.field, hint=exc.hint
            ) from None
        jobs.append(JudgeJob(item_id=item.item_id, criterion=criterion, inputs=item.inputs))
    run = session.run_sync(jobs)
    write_jsonl(output, run.results.values())
    failures = run.failures
    for failure in failures[:5]:
        warn(f"no verdict for {failure.item_id!r}: {failure.error_type}: {failure.message}")
    if len(failures) > 5:
        warn(f"... and {len(failures) - 5} more judge failures (see {output})")
    if run.budget_exceeded:
        assert session.budget is not None
        raise BudgetExceededError(
            f"the judge budget ran out ({session.budget.describe()}); wrote {len(run.results)} verdicts, "
            f"{len(run.unfinished)} items not judged",
            file=output,
            hint="everything judged is cached; rerun with a larger budget to finish",
        )
    summary = _summary(run, output, certification)
    if report is not None:
        report(run_report(run, output, criterion, session, certification))
    if failures:
        raise JudgeFailuresError(
            f"{len(failures)} of {len(run.results)} items ended in a judge failure (verdict "
            "'error'), written with their error type",
            summary=summary,
            file=output,
            hint="the failures are written with their error type and cached verdicts are kept; "
            "fix the cause (see the messages above) and rerun to judge only the failed items",
        )
    return summary
