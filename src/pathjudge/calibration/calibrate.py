"""Labels + verdicts -> one :class:`CalibrationReport`: agreement, trust, noise, PPI, disagreements.

:func:`calibrate` pairs each labelled item with the judge's samples for the same criterion and computes,
per criterion: :func:`~pathjudge.calibration.agreement.judge_agreement`, the trust decision, the
human-human ceiling, judge noise across samples, the reliability of the vote share, the disagreement list,
and (when judge-only ``unlabelled`` verdicts are given) the PPI++ corrected success rate.

Matching criteria: a verdict's criterion must equal a label criterion; an unnamed side (no
``criterion`` field) matches when the other side names exactly one criterion (so labels without a
criterion match verdicts from a named judge criterion). ``criterion=`` restricts the run to that
criterion (and unnamed records).

Bad input is one :class:`~pathjudge.errors.LabelsError` naming file, line and item: a verdict for an
item that has no label, a labelled item (in the evaluated split) without a verdict, verdicts for a
criterion the labels do not have, judge-only items that are also labelled, and (unless
``allow_single_class``) labels of one class only, for which TNR or TPR and kappa cannot be estimated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from pathjudge.calibration.agreement import (
    AgreementStats,
    Gates,
    InterAnnotatorStats,
    TrustDecision,
    decide_trust,
    inter_annotator,
    judge_agreement,
)
from pathjudge.calibration.disagreements import Disagreement, find_disagreements
from pathjudge.calibration.labels import LabelledItem, LabelSet, Split
from pathjudge.calibration.noise import NoiseStats, Reliability, judge_noise, reliability
from pathjudge.calibration.ppi import PPIResult, Prediction, ppi_mean, predictions
from pathjudge.calibration.verdicts import ItemVotes, VerdictSet, VerdictValue
from pathjudge.errors import LabelsError

__all__ = ["CalibrationReport", "CriterionCalibration", "calibrate", "match_criteria"]

CALIBRATION_SCHEMA_VERSION: Literal[1] = 1


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CriterionCalibration(_Model):
    """Everything measured for one criterion."""

    criterion: str | None
    n_labelled: int = Field(description="Labelled items evaluated (after the split filter).")
    split: Split | None = Field(description="The split evaluated; None = every labelled item.")
    split_counts: dict[str, int] = Field(description="Labelled items per split ('none' = unsplit).")
    n_judge_errors: int = Field(description="Items whose every sample errored (counted as unsure).")
    samples_per_item: tuple[int, int]
    agreement: AgreementStats
    trust: TrustDecision
    inter_annotator: InterAnnotatorStats | None
    ceiling: str = Field(description="The judge's kappa beside the human-human agreement.")
    noise: NoiseStats | None
    reliability: Reliability
    ppi: PPIResult | None
    disagreements: tuple[Disagreement, ...]


class CalibrationReport(_Model):
    """The result of one calibration run (all criteria)."""

    schema_version: Literal[1] = CALIBRATION_SCHEMA_VERSION
    labels_file: str | None
    verdicts_file: str | None
    unlabelled_file: str | None
    gates: Gates
    confidence: float
    n_bootstrap: int
    seed: int
    criteria: tuple[CriterionCalibration, ...]

    @property
    def trusted(self) -> bool:
        """True when the judge passes the gates on every criterion (False with no criteria)."""
        return bool(self.criteria) and all(c.trust.trusted for c in self.criteria)


def match_criteria(
    labels: LabelSet,
    verdicts: VerdictSet,
    *,
    criterion: str | None = None,
    require_all: bool = True,
) -> dict[str | None, tuple[str | None, Mapping[str, ItemVotes]]]:
    """Map each label criterion to ``(verdict criterion, votes by item)`` (see the module docstring).

    Raises :class:`LabelsError` when verdicts name a criterion the labels lack, when two verdict
    criteria fall on one label criterion, or (with ``require_all``) when a label criterion has no
    verdicts at all.
    """
    label_criteria = list(labels.criteria)
    if criterion is not None:
        if criterion in label_criteria:
            label_criteria = [criterion]
        elif label_criteria == [None]:
            pass  # unnamed labels are taken to be about the requested criterion
        else:
            raise LabelsError(
                f"the labels have no criterion {criterion!r} (they have {_names(label_criteria)})",
                file=labels.file,
                hint="pick one of those with --criterion",
            )
    verdict_criteria = [
        vc for vc in verdicts.criteria if criterion is None or vc in (criterion, None)
    ]
    matched: dict[str | None, tuple[str | None, Mapping[str, ItemVotes]]] = {}
    for vc in verdict_criteria:
        target: str | None
        if vc in label_criteria:
            target = vc
        elif len(label_criteria) == 1 and (vc is None or label_criteria[0] is None):
            target = label_criteria[0]
        else:
            first = verdicts.items(vc)[0]
            raise LabelsError(
                f"verdicts for criterion {vc!r} but the labels have {_names(label_criteria)}",
                file=verdicts.file,
                line=first.line,
                field="criterion",
                hint="name the labelled criterion in each verdict, or pick one with --criterion",
            )
        if target in matched:
            first = verdicts.items(vc)[0]
            raise LabelsError(
                f"verdicts for criteria {matched[target][0]!r} and {vc!r} both fall on the labels of "
                f"{target!r}",
                file=verdicts.file,
                line=first.line,
                field="criterion",
                hint="keep one criterion per verdicts file, or label each criterion separately",
            )
        matched[target] = (vc, verdicts.by_criterion[vc])
    for lc in label_criteria if require_all else ():
        if lc not in matched:
            raise LabelsError(
                f"no verdicts for criterion {lc!r}",
                file=verdicts.file,
                hint="judge the labelled items of that criterion, or restrict with --criterion",
            )
    return matched


def _names(criteria: Sequence[str | None]) -> str:
    return ", ".join("(unnamed)" if c is None else repr(c) for c in criteria)


def _check_pairing(
    items: Sequence[LabelledItem],
    all_items: Mapping[str, LabelledItem],
    votes: Mapping[str, ItemVotes],
    *,
    labels_file: str | None,
    verdicts_file: str | None,
    criterion: str | None,
) -> None:
    for item_id, vote in votes.items():
        if item_id not in all_items:
            crit = f" for criterion {criterion!r}" if criterion is not None else ""
            raise LabelsError(
                f"item {item_id!r} has a verdict but no label{crit} (unknown item id)",
                file=verdicts_file,
                line=vote.line,
                field="item_id",
                hint="label it, fix the id, or pass judge-only items separately (--unlabelled)",
            )
    missing = [item for item in items if item.item_id not in votes]
    if missing:
        shown = ", ".join(repr(m.item_id) for m in missing[:5])
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise LabelsError(
            f"{len(missing)} labelled item(s) have no verdict: {shown}{more}",
            file=labels_file,
            line=missing[0].line,
            field="item_id",
            hint="judge every labelled item, or remove the unjudged ones from the labels",
        )


def _ceiling(stats: AgreementStats, humans: InterAnnotatorStats | None) -> str:
    judge = stats.kappa.value
    judge_text = (
        f"judge-human kappa {judge:.3f}" if judge is not None else "judge-human kappa undefined"
    )
    if humans is None:
        return f"{judge_text}; no item has two annotators, so the human-human ceiling is unknown"
    parts = [judge_text]
    for name, est in (
        ("human-human Fleiss kappa", humans.fleiss_kappa),
        ("Krippendorff alpha", humans.krippendorff_alpha),
    ):
        parts.append(f"{name} {est.value:.3f}" if est.value is not None else f"{name} undefined")
    return "; ".join(parts) + f" over {humans.n_items} multiply-annotated items"


def calibrate(
    labels: LabelSet,
    verdicts: VerdictSet,
    *,
    unlabelled: VerdictSet | None = None,
    criterion: str | None = None,
    split: Split | None = None,
    gates: Gates | None = None,
    confidence: float = 0.95,
    n_bootstrap: int = 2000,
    seed: int = 0,
    n_bins: int = 5,
    prediction: Prediction = "vote_share",
    allow_single_class: bool = False,
) -> CalibrationReport:
    """Calibrate the judge against human labels, per criterion (see the module docstring).

    ``split`` evaluates only the labelled items of that split (None: all of them); disagreements are
    listed for every judged labelled item, whatever its split, so train-split ones can be exported as
    few-shot examples. ``unlabelled`` holds judge-only verdicts for PPI (never labelled items).
    """
    gates = gates or Gates()
    matched = match_criteria(labels, verdicts, criterion=criterion)
    unl_matched: dict[str | None, Mapping[str, ItemVotes]] = {}
    if unlabelled is not None and len(unlabelled):
        pairs = match_criteria(labels, unlabelled, criterion=criterion, require_all=False)
        for target, (_, votes) in pairs.items():
            unl_matched[target] = votes
    results: list[CriterionCalibration] = []
    for lc, (_, votes) in matched.items():
        every = {item.item_id: item for item in labels.items(lc)}
        evaluated = [item for item in every.values() if split is None or item.split == split]
        if not evaluated:
            raise LabelsError(
                f"criterion {lc!r} has no labelled items in split {split!r}",
                file=labels.file,
                hint="choose a split that the labels use, or evaluate all items",
            )
        _check_pairing(
            evaluated,
            every,
            votes,
            labels_file=labels.file,
            verdicts_file=verdicts.file,
            criterion=lc,
        )
        classes = {item.label for item in evaluated}
        if len(classes) == 1 and not allow_single_class:
            only = next(iter(classes))
            other = "fail" if only == "pass" else "pass"
            missing_rate = "TNR" if only == "pass" else "TPR"
            raise LabelsError(
                f"criterion {lc!r}: all {len(evaluated)} labelled items are '{only}', so "
                f"{missing_rate} and kappa cannot be estimated",
                file=labels.file,
                line=evaluated[0].line,
                field="label",
                hint=f"add labelled '{other}' items (or allow a single class to see what is defined)",
            )
        item_votes = [votes[item.item_id] for item in evaluated]
        human = [item.label for item in evaluated]
        judge: list[VerdictValue] = [v.majority for v in item_votes]
        stats = judge_agreement(
            human, judge, confidence=confidence, n_bootstrap=n_bootstrap, seed=seed
        )
        humans = inter_annotator(evaluated)
        groups = {item.item_id: item.group for item in evaluated}
        noise: NoiseStats | None = judge_noise(
            item_votes,
            groups=groups if any(g is not None for g in groups.values()) else None,
            confidence=confidence,
        )
        rel: Reliability = reliability([v.vote_share for v in item_votes], human, n_bins=n_bins)
        ppi: PPIResult | None = None
        unl = unl_matched.get(lc)
        if unl is not None:
            overlap = [item_id for item_id in unl if item_id in every]
            if overlap:
                first = unl[overlap[0]]
                raise LabelsError(
                    f"item {overlap[0]!r} is judge-only (unlabelled) but also labelled "
                    f"({len(overlap)} such items)",
                    file=unlabelled.file if unlabelled is not None else None,
                    line=first.line,
                    field="item_id",
                    hint="the judge-only file must hold items that have no human label",
                )
            ppi = ppi_mean(
                [1.0 if h == "pass" else 0.0 for h in human],
                predictions(item_votes, prediction),
                predictions(list(unl.values()), prediction),
                confidence=confidence,
            )
        judged_items = [item for item in every.values() if item.item_id in votes]
        split_counts: dict[str, int] = {}
        for item in every.values():
            key = item.split or "none"
            split_counts[key] = split_counts.get(key, 0) + 1
        sizes = [v.n_samples for v in item_votes]
        results.append(
            CriterionCalibration(
                criterion=lc,
                n_labelled=len(evaluated),
                split=split,
                split_counts=split_counts,
                n_judge_errors=sum(1 for v in item_votes if v.errored),
                samples_per_item=(min(sizes), max(sizes)),
                agreement=stats,
                trust=decide_trust(stats, gates),
                inter_annotator=humans,
                ceiling=_ceiling(stats, humans),
                noise=noise,
                reliability=rel,
                ppi=ppi,
                disagreements=tuple(find_disagreements(judged_items, votes)),
            )
        )
    return CalibrationReport(
        labels_file=labels.file,
        verdicts_file=verdicts.file,
        unlabelled_file=unlabelled.file if unlabelled is not None else None,
        gates=gates,
        confidence=confidence,
        n_bootstrap=n_bootstrap,
        seed=seed,
        criteria=tuple(results),
    )
