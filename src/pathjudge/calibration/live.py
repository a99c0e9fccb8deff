"""Run pathjudge's judge on the labelled items themselves, for calibration without a verdicts file.

:func:`judge_labelled` sends every labelled item of one criterion (its ``inputs``) through the judge
runner (:func:`pathjudge.judge.runner.judge_requests_sync`: cache, bounded concurrency, retries, k
samples) and returns the verdicts as a :class:`~pathjudge.calibration.verdicts.VerdictSet`, plus the raw
judge results so the caller can freeze them to disk. Items the judge could not decide become ``error``
samples (counted as unsure), never a pass or a fail.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pathjudge.calibration.labels import LabelledItem, LabelSet, Split
from pathjudge.calibration.verdicts import VerdictSet, aggregate_verdicts, samples_from_result
from pathjudge.errors import LabelsError
from pathjudge.judge.runner import judge_requests_sync
from pathjudge.rubrics.criteria import input_text

if TYPE_CHECKING:
    from pathjudge._progress import Progress
    from pathjudge.judge.backends.base import JudgeBackend
    from pathjudge.judge.cache import VerdictCache
    from pathjudge.judge.runner import Budget
    from pathjudge.judge.verdict import JudgeResult
    from pathjudge.rubrics.criteria import Criterion

__all__ = ["LabelledRequest", "judge_labelled", "labelled_items", "labelled_requests"]


@dataclass(frozen=True)
class LabelledRequest:
    """A judge request built from a label record (fits the runner's ``RequestLike``)."""

    item_id: str
    criterion_id: str
    inputs: Mapping[str, str]


def labelled_items(
    labels: LabelSet, criterion: str, *, split: Split | None = None
) -> list[LabelledItem]:
    """The labelled items of ``criterion`` that the judge can run on, in file order.

    The labels recorded for ``criterion`` (a built-in id or a criterion YAML path), or the unnamed
    labels when the file names no criterion; ``split`` restricts to one split. No matching label,
    or a matching item without ``inputs``, is a :class:`LabelsError` naming the file (and line).
    """
    key: str | None = criterion if criterion in labels.criteria else None
    items = [i for i in labels.items(key) if split is None or i.split == split]
    if not items:
        raise LabelsError(
            f"no labelled items for criterion {criterion!r}"
            + (f" in split {split!r}" if split else ""),
            file=labels.file,
            hint="label items for this criterion, or name it in the labels' 'criterion' field",
        )
    for item in items:
        if not item.inputs:
            raise LabelsError(
                f"item {item.item_id!r} has no 'inputs' for the judge",
                file=labels.file,
                line=item.line,
                field="inputs",
                hint="add the criterion's inputs to each label record, or pass recorded --verdicts",
            )
    return items


def labelled_requests(
    labels: LabelSet, criterion: str, *, split: Split | None = None
) -> list[LabelledRequest]:
    """The judge requests of :func:`labelled_items` (non-string input values sent as JSON text)."""
    return [
        LabelledRequest(
            item_id=item.item_id,
            criterion_id=criterion,
            inputs={name: input_text(value) for name, value in (item.inputs or {}).items()},
        )
        for item in labelled_items(labels, criterion, split=split)
    ]


def judge_labelled(
    labels: LabelSet,
    criterion: str,
    *,
    backend: JudgeBackend,
    samples: int = 1,
    cache: VerdictCache | None = None,
    concurrency: int = 4,
    budget: Budget | None = None,
    split: Split | None = None,
    progress: Progress | None = None,
    resolved: Criterion | None = None,
) -> tuple[VerdictSet, list[JudgeResult]]:
    """Judge the labelled items of ``criterion`` (a built-in id or a criterion YAML path).

    The items are :func:`labelled_requests`; ``resolved`` judges them with that criterion instead of
    the one ``criterion`` names (the verdicts are still filed under ``criterion``, to match the
    labels); a ``budget`` that runs out raises :class:`~pathjudge.errors.BudgetExceededError`
    (everything judged is cached).
    """
    requests = labelled_requests(labels, criterion, split=split)
    results = judge_requests_sync(
        requests,
        backend=backend,
        cache=cache,
        samples=samples,
        concurrency=concurrency,
        budget=budget,
        progress=progress,
        criteria={criterion: resolved} if resolved is not None else None,
    )
    ordered = [results[r.item_id] for r in requests if r.item_id in results]
    # Filed under the criterion as the caller named it (an id or a path), to match the labels.
    records = [
        (0, sample.model_copy(update={"criterion": criterion}))
        for result in ordered
        for sample in samples_from_result(result)
    ]
    return aggregate_verdicts(records, file=None), ordered
