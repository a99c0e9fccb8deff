"""A panel of judges on one criterion: aggregation, judge-judge agreement, the items they split on.

Each judge (a model, or a prompt) runs as usual (``pathjudge judge --model ... -o a.jsonl``: its
verdicts stay in the verdict cache, keyed by model); :func:`run_panel` reads their verdicts files
for one criterion and gives, per item, every judge's verdict (the majority of its samples:
``pass``, ``fail``, ``unsure``, ``error`` when every sample errored, ``missing`` when that judge
has no verdict for the item) and the panel's verdict by ``rule``:

* ``majority``: ``pass`` (``fail``) when more than half of the panel's judges said it, else
  ``unsure``; a judge that was unsure, errored or is missing counts in the panel but not as a vote;
* ``unanimous``: ``pass`` (``fail``) when every judge said it, else ``unsure``.

Either way the panel's verdict is ``error`` when no judge gave a verdict (every one errored or is
missing). :func:`panel_records` writes those verdicts as a verdicts file (one generic line per
item, backend ``panel``), so ``pathjudge calibrate --verdicts panel.jsonl`` gates the panel as a
judge of its own.

Agreement between the judges is nominal Krippendorff's alpha over their pass/fail verdicts (unsure,
error and missing are missing ratings), with a per-item bootstrap interval
(:func:`~pathjudge.calibration.raters.rater_agreement`). The items where the judges do not all say
the same are the disagreements; :func:`disagreement_queue` turns them into an items file for the
labelling page (``pathjudge label queue.jsonl --order file``), most divided first.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, JsonValue

from pathjudge._records import FrozenModel
from pathjudge.calibration.labels import Label, Ratings
from pathjudge.calibration.raters import RaterAgreement, rater_agreement
from pathjudge.calibration.verdicts import ItemVotes, RecordedVerdict, VerdictSet
from pathjudge.errors import LabelsError

if TYPE_CHECKING:
    from pathjudge.calibration.label_app import LabelItem

__all__ = [
    "JudgeVote",
    "PanelItem",
    "PanelReport",
    "PanelRule",
    "aggregate",
    "disagreement_queue",
    "judge_names",
    "panel_records",
    "run_panel",
]

PanelRule = Literal["majority", "unanimous"]
JudgeVote = Literal["pass", "fail", "unsure", "error", "missing"]


class PanelItem(FrozenModel):
    """One item: every judge's verdict and the panel's."""

    item_id: str
    votes: dict[str, JudgeVote] = Field(description="Each judge's verdict, by judge name.")
    verdict: Literal["pass", "fail", "unsure", "error"] = Field(description="The panel's verdict.")

    @property
    def disagree(self) -> bool:
        """True when the judges do not all say the same."""
        return len(set(self.votes.values())) > 1


class PanelReport(FrozenModel):
    """A panel's verdicts on one criterion, the judges' agreement and their disagreements."""

    criterion: str | None
    rule: PanelRule
    judges: tuple[str, ...] = Field(description="The judges' names, in the order given.")
    files: tuple[str, ...] = Field(description="Each judge's verdicts file.")
    items: tuple[PanelItem, ...] = Field(description="Every item any judge judged, in order.")
    agreement: RaterAgreement | None = Field(
        description="Judge-judge Krippendorff's alpha (None: no item has two pass/fail verdicts)."
    )

    @property
    def disagreements(self) -> tuple[PanelItem, ...]:
        """The items where the judges split, most divided first (file order within a tie)."""
        split = [item for item in self.items if item.disagree]
        return tuple(sorted(split, key=_division))

    def counts(self) -> dict[str, int]:
        """The panel's verdicts, counted."""
        out = {"pass": 0, "fail": 0, "unsure": 0, "error": 0}
        for item in self.items:
            out[item.verdict] += 1
        return out


def _division(item: PanelItem) -> tuple[int, int]:
    values = list(item.votes.values())
    minority = min(values.count("pass"), values.count("fail"))
    undecided = sum(1 for v in values if v not in ("pass", "fail"))
    return -minority, -undecided


def aggregate(
    votes: Sequence[JudgeVote], rule: PanelRule
) -> Literal["pass", "fail", "unsure", "error"]:
    """The panel's verdict from its judges' (module docstring); empty ``votes`` is ``error``."""
    if not any(v in ("pass", "fail", "unsure") for v in votes):
        return "error"
    for side in ("pass", "fail"):
        count = sum(1 for v in votes if v == side)
        if (rule == "majority" and 2 * count > len(votes)) or (
            rule == "unanimous" and count == len(votes)
        ):
            return side
    return "unsure"


def _vote(votes: ItemVotes | None) -> JudgeVote:
    if votes is None:
        return "missing"
    return "error" if votes.errored else votes.majority


def _ratings(item: PanelItem) -> Ratings:
    """The judges' pass/fail verdicts on the item (unsure, error, missing: no rating)."""
    out: list[tuple[str, Label]] = []
    for name, vote in item.votes.items():
        if vote == "pass" or vote == "fail":
            out.append((name, vote))
    return tuple(out)


def judge_names(sets: Sequence[VerdictSet], criterion: str | None) -> list[str]:
    """A name per judge: the model its verdicts name (when one), else its file's name; a name
    taken twice gets ``#2``, ``#3``."""
    names: list[str] = []
    for one in sets:
        models = {j.model for j in one.judges.get(criterion, ()) if j.model}
        base = models.pop() if len(models) == 1 else Path(one.file or "judge").stem
        name, n = base, 1
        while name in names:
            n += 1
            name = f"{base}#{n}"
        names.append(name)
    return names


def _criterion(sets: Sequence[VerdictSet], criterion: str | None) -> str | None:
    """The criterion every file judges: ``criterion`` when given (each file must have it), else
    the one criterion they all hold."""
    for one in sets:
        have = one.criteria
        if criterion is not None and criterion not in have:
            raise LabelsError(
                f"no verdicts for criterion {criterion!r} (the file has {list(have)})",
                file=one.file,
                field="criterion",
                hint="judge the criterion with each panel judge, or pick one with --criterion",
            )
        if criterion is None and len(have) != 1:
            raise LabelsError(
                f"verdicts for {len(have)} criteria {list(have)}; a panel judges one",
                file=one.file,
                field="criterion",
                hint="pick the criterion with --criterion",
            )
    if criterion is not None:
        return criterion
    found = {one.criteria[0] for one in sets}
    if len(found) > 1:
        raise LabelsError(
            f"the judges' verdicts are for different criteria {sorted(map(str, found))}",
            file=sets[-1].file,
            field="criterion",
            hint="give the panel verdicts files of one criterion",
        )
    return sets[0].criteria[0]


def run_panel(
    sets: Sequence[VerdictSet],
    rule: PanelRule = "majority",
    *,
    criterion: str | None = None,
    confidence: float = 0.95,
    n_bootstrap: int = 2000,
    seed: int = 0,
) -> PanelReport:
    """The panel of the judges whose verdicts are ``sets`` (one file per judge; module docstring).

    Fewer than two judges, or files of different criteria, is a :class:`LabelsError`.
    """
    if len(sets) < 2:
        raise LabelsError(
            f"a panel needs two or more judges, got {len(sets)} verdicts file(s)",
            field="VERDICTS",
            hint="give one verdicts file per judge (pathjudge judge --model ... -o FILE)",
        )
    crit = _criterion(sets, criterion)
    names = judge_names(sets, crit)
    by_judge = [one.by_criterion.get(crit, {}) for one in sets]
    ids = list(dict.fromkeys(item_id for votes in by_judge for item_id in votes))
    items = []
    for item_id in ids:
        votes = {name: _vote(v.get(item_id)) for name, v in zip(names, by_judge, strict=True)}
        items.append(
            PanelItem(item_id=item_id, votes=votes, verdict=aggregate(list(votes.values()), rule))
        )
    agreement = rater_agreement(
        [_ratings(item) for item in items],
        confidence=confidence,
        n_bootstrap=n_bootstrap,
        seed=seed,
        statistic="krippendorff_alpha",
    )
    return PanelReport(
        criterion=crit,
        rule=rule,
        judges=tuple(names),
        files=tuple(str(one.file) for one in sets),
        items=tuple(items),
        agreement=agreement,
    )


def panel_records(report: PanelReport) -> list[RecordedVerdict]:
    """The panel's verdicts as generic verdicts lines (``calibrate --verdicts`` reads them)."""
    model = f"panel:{report.rule}({','.join(report.judges)})"
    return [
        RecordedVerdict(
            item_id=item.item_id,
            verdict=item.verdict,
            reasoning=f"panel {report.rule} of {len(item.votes)} judges: "
            + ", ".join(f"{name} {vote}" for name, vote in item.votes.items()),
            sample=0,
            criterion=report.criterion,
            model=model,
            backend="panel",
        )
        for item in report.items
    ]


def disagreement_queue(
    report: PanelReport, items: Sequence[LabelItem], *, items_file: str | Path | None = None
) -> list[dict[str, Any]]:
    """The disagreements as items-file lines for the labelling page, most divided first: each
    item's inputs, split, group and slice from ``items``, and the judges' verdicts under
    ``metadata.panel``. A disagreement missing from ``items`` is a :class:`LabelsError`."""
    by_id = {item.item_id: item for item in items}
    out: list[dict[str, Any]] = []
    for found in report.disagreements:
        item = by_id.get(found.item_id)
        if item is None:
            raise LabelsError(
                f"item {found.item_id!r}, where the judges disagree, is not in the items file",
                file=str(items_file) if items_file is not None else None,
                field="item_id",
                hint="give --items the items file the judges judged",
            )
        metadata: dict[str, JsonValue] = {
            "panel": dict(found.votes),
            "panel_verdict": found.verdict,
        }
        line: dict[str, Any] = {"item_id": item.item_id, "inputs": dict(item.inputs)}
        line.update({k: v for k, v in (("split", item.split), ("group", item.group)) if v})
        if item.slice:
            line["slice"] = dict(item.slice)
        line["metadata"] = metadata
        out.append(line)
    return out
