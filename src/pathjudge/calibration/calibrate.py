"""Labels + verdicts -> one :class:`CalibrationReport`: agreement, trust, noise, PPI, disagreements.

:func:`calibrate` pairs each labelled item with the judge's samples for the same criterion and computes,
per criterion: :func:`~pathjudge.calibration.agreement.judge_agreement`, the trust decision, the
human-human ceiling, judge noise across samples, the reliability of the vote share, the disagreement list,
and (when judge-only ``unlabelled`` verdicts are given) the PPI++ corrected success rate.

Matching criteria: a verdict's criterion must equal a label criterion; an unnamed side (no
``criterion`` field) matches when the other side names exactly one criterion (so labels without a
criterion match verdicts from a named judge criterion). ``criterion=`` restricts the run to that
criterion (and unnamed records).

Labelling a subset is the normal workflow, so the pairing is lenient where it can be:

* a verdict for an item that has NO label (in any split) is a judge-only item: it joins the
  ``unlabelled`` verdicts for the PPI++ corrected rate, and the criterion's ``notes`` say how many;
* a labelled item (in the evaluated split) without a verdict is left out of every statistic and listed
  in ``labels_without_verdict`` (and the notes).

Bad input is one :class:`~pathjudge.errors.LabelsError` naming file, line and item: no labelled item
of the evaluated split has a verdict, verdicts for a criterion the labels do not have, items in the
``unlabelled`` file that are also labelled or also judged in the verdicts file, and (unless
``allow_single_class``) labels of one class only, for which TNR or TPR and kappa cannot be estimated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import Field, computed_field

from pathjudge._records import FrozenModel as Record
from pathjudge.calibration.advice import labels_needed, more_labels_needed, next_steps
from pathjudge.calibration.agreement import (
    AgreementStats,
    Gates,
    InterAnnotatorStats,
    TrustDecision,
    TrustedOnRead,
    decide_trust,
    design_weighted_gates,
    inter_annotator,
    judge_agreement,
)
from pathjudge.calibration.disagreements import Disagreement, find_disagreements
from pathjudge.calibration.estimate import Estimate, proportion, undefined
from pathjudge.calibration.labels import Label, LabelledItem, LabelSet, Ratings, Split
from pathjudge.calibration.noise import NoiseStats, Reliability, judge_noise, reliability
from pathjudge.calibration.ppi import PPIResult, Prediction, ppi_mean, predictions
from pathjudge.calibration.queue import stratum_of
from pathjudge.calibration.raters import RaterAgreement, rater_agreement
from pathjudge.calibration.slices import SliceCalibration, group_by_slice, slice_status
from pathjudge.calibration.verdicts import ItemVotes, JudgeName, VerdictSet, VerdictValue
from pathjudge.errors import LabelsError
from pathjudge.judge.evidence import verify_evidence
from pathjudge.rubrics.criteria import input_text

__all__ = [
    "CalibrationReport",
    "CriterionCalibration",
    "EvidenceDiagnostic",
    "Slicing",
    "calibrate",
    "match_criteria",
]

CALIBRATION_SCHEMA_VERSION: Literal[1] = 1


class EvidenceDiagnostic(Record):
    """How often the judge's evidence quotes were found in what it judged (see
    :mod:`pathjudge.judge.evidence`), and how the judge did where they were not."""

    n_checked: int = Field(description="Evaluated items whose verdict cites checkable evidence.")
    n_unverified: int = Field(
        description="Items where a decisive sample cites a quote not found in the judged inputs."
    )
    unverified_items: tuple[str, ...] = Field(description="Their ids (the first 50).")
    accuracy_verified: Estimate = Field(
        description="Agreement with humans where quotes were found."
    )
    accuracy_unverified: Estimate = Field(
        description="Agreement with humans where a quote was not found."
    )
    treated_as_unsure: bool = Field(
        description="True when samples with unfound quotes were counted as unsure."
    )


class CriterionCalibration(Record):
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
    train_disagreements: tuple[Disagreement, ...] = Field(
        default=(),
        description="Disagreements on train-split items, whatever split is evaluated (few-shot).",
    )
    judges: tuple[JudgeName, ...] = Field(
        default=(),
        description="Who produced the verdicts: backend, model, criterion id and content hash, "
        "samples.",
    )
    evidence: EvidenceDiagnostic | None = Field(
        default=None, description="Evidence verification diagnostic (None: no quotes checked)."
    )
    n_judge_only: int = Field(
        default=0,
        description="Judge-only items in the PPI++ estimate: unlabelled verdicts from both files.",
    )
    labels_without_verdict: tuple[str, ...] = Field(
        default=(), description="Labelled items of the evaluated split that have no verdict."
    )
    notes: tuple[str, ...] = Field(
        default=(), description="What the pairing of labels and verdicts did, in words."
    )
    next_steps: tuple[str, ...] = Field(
        default=(),
        description="When not trusted: labels each failing gate needs at the observed rates, and "
        "how to try few-shot examples.",
    )
    rater_agreement: RaterAgreement | None = Field(
        default=None,
        description="Rater-rater agreement (Cohen's kappa for two raters, Krippendorff's alpha for "
        "more, with bootstrap intervals): the human ceiling beside judge-human agreement.",
    )
    stale_labels: tuple[str, ...] = Field(
        default=(),
        description="Items with a label given to different content than they have now (label "
        "logs; left out of every statistic unless kept with keep_stale).",
    )
    n_ppi_left_out: int = Field(
        default=0,
        description="Labelled items left out of PPI++ because no rater labelled them in a random "
        "order (PPI++ needs a random sample of labels).",
    )
    n_design_weighted: int | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="When gates-order (stratified) labels are present: how many labels the "
        "design-weighted gates (TPR, TNR, kappa, unsure rate) are computed over; absent when every "
        "label is weighed alike.",
    )
    slices: tuple[SliceCalibration, ...] = Field(
        default=(),
        exclude_if=lambda value: not value,
        description="Per slice (calibrate --slice-by): the same gates, next steps and PPI++ rate "
        "on the items of each value of each slice key; absent when not sliced.",
    )


class CalibrationReport(TrustedOnRead):
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

    @computed_field(  # type: ignore[prop-decorator]
        description="True when the judge passes the gates on every criterion (False with none)."
    )
    @property
    def trusted(self) -> bool:
        """True when the judge passes the gates on every criterion (False with no criteria)."""
        return bool(self.criteria) and all(c.trust.trusted for c in self.criteria)

    @property
    def failed_slices(self) -> tuple[tuple[str | None, SliceCalibration], ...]:
        """``(criterion, slice)`` for every slice that fails its gates (status ``not trusted``);
        a slice too small to decide is not among them. ``pathjudge calibrate`` exits 1 on any."""
        return tuple(
            (crit.criterion, one)
            for crit in self.criteria
            for one in crit.slices
            if one.status == "not trusted"
        )


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


def _pair(
    items: Sequence[LabelledItem],
    all_items: Mapping[str, LabelledItem],
    votes: Mapping[str, ItemVotes],
    *,
    labels_file: str | None,
    verdicts_file: str | None,
    criterion: str | None,
) -> tuple[list[LabelledItem], dict[str, ItemVotes], list[LabelledItem]]:
    """Split into (labelled items with a verdict, judge-only verdicts, labelled items without one)."""
    judge_only = {item_id: vote for item_id, vote in votes.items() if item_id not in all_items}
    judged = [item for item in items if item.item_id in votes]
    unjudged = [item for item in items if item.item_id not in votes]
    if not judged:
        crit = f" of criterion {criterion!r}" if criterion is not None else ""
        shown = ", ".join(repr(m.item_id) for m in unjudged[:3])
        raise LabelsError(
            f"none of the {len(items)} labelled items{crit} has a verdict (labelled: {shown}"
            f"{', ...' if len(unjudged) > 3 else ''})",
            file=verdicts_file,
            field="item_id",
            hint=f"judge the items labelled in {labels_file or 'the labels file'}, or check that "
            "the item ids in both files match",
        )
    return judged, judge_only, unjudged


def _check_evidence(votes: ItemVotes, item: LabelledItem) -> ItemVotes:
    """Check quotes nobody checked yet against the label's ``inputs`` (when it has them)."""
    if not item.inputs or not any(
        quotes and checked is None
        for quotes, checked in zip(votes.evidence, votes.evidence_verified, strict=False)
    ):
        return votes
    from dataclasses import replace

    inputs = {name: input_text(value) for name, value in item.inputs.items()}
    verified = tuple(
        verify_evidence(quotes, inputs).verified if checked is None and quotes else checked
        for quotes, checked in zip(votes.evidence, votes.evidence_verified, strict=False)
    )
    return replace(votes, evidence_verified=verified)


def _evidence_diagnostic(
    items: Sequence[LabelledItem],
    votes: Mapping[str, ItemVotes],
    *,
    confidence: float,
    as_unsure: bool,
) -> EvidenceDiagnostic | None:
    checked = [
        item for item in items if any(v is not None for v in votes[item.item_id].evidence_verified)
    ]
    if not checked:
        return None
    bad = [item for item in checked if votes[item.item_id].unverified]
    good = [item for item in checked if not votes[item.item_id].unverified]

    def accuracy(group: Sequence[LabelledItem], what: str) -> Estimate:
        decided = [i for i in group if votes[i.item_id].majority != "unsure"]
        right = sum(1 for i in decided if votes[i.item_id].majority == i.label)
        return proportion(
            right,
            len(decided),
            what=f"of decided items {what} agree with the humans",
            empty=f"undefined: no decided item {what}",
            confidence=confidence,
        )

    return EvidenceDiagnostic(
        n_checked=len(checked),
        n_unverified=len(bad),
        unverified_items=tuple(item.item_id for item in bad[:50]),
        accuracy_verified=accuracy(good, "whose quotes were found"),
        accuracy_unverified=accuracy(bad, "with a quote not found"),
        treated_as_unsure=as_unsure,
    )


def _ceiling(stats: AgreementStats, humans: InterAnnotatorStats | None) -> str:
    gated = stats.kappa_unsure_as_wrong.value
    judge_text = (
        f"judge-human kappa {gated:.3f}" if gated is not None else "judge-human kappa undefined"
    )
    if stats.n_unsure:
        # the gated form leads: over the decided items alone an abstaining judge looks perfect
        decided = stats.kappa.value
        judge_text += (
            " (unsure counted as wrong; "
            + (f"{decided:.3f}" if decided is not None else "undefined")
            + f" over the {stats.n_decided} decided items only)"
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


def _order_note(left_out: int, labelled: int, *, ppi: bool) -> str:
    """What the labels from a non-random order (gates, file) mean for the gates and PPI++."""
    text = (
        f"{left_out} of {labelled} labelled item(s) were labelled in a non-random order (gates or "
        "file): the gates count them like a random sample, which favours the judge when the gates "
        "order picked them (confirm a passing gate with random-order labels)"
    )
    if not ppi:
        return text
    if left_out == labelled:
        return text + "; PPI++ needs random-order labels, so there is no corrected success rate"
    return text + f"; PPI++ uses the other {labelled - left_out} only (it needs a random sample)"


def _random_only_gates(
    human: Sequence[Label],
    judge: Sequence[VerdictValue],
    gates: Gates,
    *,
    confidence: float,
    n_bootstrap: int,
    seed: int,
) -> str:
    """What the gates say on the random-order labels alone (an unbiased check of the verdict)."""
    if len(set(human)) < 2:
        return (
            f"the {len(human)} random-order label(s) alone cannot check the gates (they need both "
            "classes): label some items in --order random to confirm the verdict"
        )
    stats = judge_agreement(human, judge, confidence=confidence, n_bootstrap=n_bootstrap, seed=seed)
    trust = decide_trust(stats, gates)
    verdict = "TRUSTED" if trust.trusted else "NOT TRUSTED"
    return f"on the {len(human)} random-order labels alone: {verdict} ({trust.reason})"


def _design_weighted(
    evaluated: Sequence[LabelledItem],
    votes: Sequence[ItemVotes],
    stats: AgreementStats,
    *,
    confidence: float,
    n_bootstrap: int,
    seed: int,
) -> tuple[AgreementStats, int, str] | None:
    """The gates over the labels whose sampling design is known, when some came from the gates
    order (None: none did, and every label counts alike, as always).

    A gates-order label knows its design when the label log gave its stratum and the stratum's size;
    a random-order one always does: its stratum is the judge's verdict on it
    (:func:`~pathjudge.calibration.queue.stratum_of`, without slice), sized as the gates labels of
    that stratum say. Those are weighed by their design (:func:`design_weighted_gates`); the others
    (file order, gates labels written before strata were recorded) are left out of the gates. When
    no label gives a stratum size, the gates are those of the random-order labels alone.
    """
    if not any(item.gates_order for item in evaluated):
        return None
    recorded: dict[str, set[int]] = {}
    for item in evaluated:
        if item.stratum is not None and item.stratum_size is not None:
            recorded.setdefault(item.stratum, set()).add(item.stratum_size)
    # a stratum recorded with two sizes (the items file changed between sessions) weighs by the
    # largest, and the note says so
    sizes = {key: max(found) for key, found in recorded.items()}
    kept: list[tuple[LabelledItem, ItemVotes, str, int]] = []
    for item, item_votes in zip(evaluated, votes, strict=True):
        key: str | None = item.stratum
        size = sizes.get(key) if key is not None and item.stratum_size is not None else None
        if size is None and item.random_order:
            key = stratum_of(item_votes) if sizes else "random"
            size = sizes.get(key) if sizes else 1
        if key is not None and size is not None:
            kept.append((item, item_votes, key, size))
    human = [item.label for item, _, _, _ in kept]
    judge: list[VerdictValue] = [v.majority for _, v, _, _ in kept]
    gated = ("tpr_unsure_as_wrong", "tnr_unsure_as_wrong", "kappa_unsure_as_wrong", "unsure_rate")
    if not kept:
        none = undefined(
            "no label with a known sampling design (random order, or gates with strata)"
        )
        weighted = stats.model_copy(update=dict.fromkeys(gated, none))
        how = (
            f"the gates cannot be computed: none of the {len(evaluated)} labels has a known "
            "sampling design (the gates-order labels carry no stratum); label some items in "
            "--order random"
        )
    elif sizes:
        weighted = design_weighted_gates(
            stats,
            human,
            judge,
            [key for _, _, key, _ in kept],
            [size for _, _, _, size in kept],
            confidence=confidence,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
        how = (
            f"the gates (TPR, TNR, kappa, unsure rate) are design-weighted over {len(kept)} of "
            f"{len(evaluated)} labelled item(s): the gates order draws at random within strata of "
            "the judge's verdict, so each label weighs N_h/n_h (its stratum's size over its labels "
            "there), with a stratified Bayesian bootstrap interval"
        )
    else:
        alone = judge_agreement(
            human, judge, confidence=confidence, n_bootstrap=n_bootstrap, seed=seed
        )
        weighted = stats.model_copy(update={name: getattr(alone, name) for name in gated})
        how = (
            f"the gates (TPR, TNR, kappa, unsure rate) are computed over the {len(kept)} "
            f"random-order label(s) of {len(evaluated)}: the gates-order labels here carry no "
            "stratum (written before pathjudge recorded one), so they cannot be weighed and would "
            "favour the judge"
        )
    left_out = len(evaluated) - len(kept)
    mixed = sorted(key for key, found in recorded.items() if len(found) > 1)
    if mixed:
        how += (
            f"; stratum {mixed[0]!r} was recorded with sizes "
            f"{', '.join(str(n) for n in sorted(recorded[mixed[0]]))} (did the items file change "
            "between sessions?): weighed by the largest"
            + (f", as are {len(mixed) - 1} more" if len(mixed) > 1 else "")
        )
    if left_out and sizes:
        how += (
            f"; {left_out} label(s) with no known design (file order, or gates order before "
            "pathjudge recorded strata) are left out of the gates"
        )
    return weighted, len(kept), how


def _label_log_notes(labels: LabelSet, criterion: str | None, stale: Sequence[str]) -> list[str]:
    notes = list(labels.notes.get(criterion, ()))
    if stale:
        shown = ", ".join(repr(i) for i in stale[:5])
        more = f" and {len(stale) - 5} more" if len(stale) > 5 else ""
        notes.append(
            f"{len(stale)} item(s) have labels given to different content than they have now "
            f"(stale): {shown}{more}; "
            + (
                "kept (--keep-stale)"
                if labels.kept_stale
                else "left out (relabel them, or keep them with --keep-stale)"
            )
        )
    return notes


def _criterion_items(
    labels: LabelSet,
    criterion: str | None,
    votes: Mapping[str, ItemVotes],
    *,
    split: Split | None,
    verdicts_file: str | None,
) -> tuple[dict[str, LabelledItem], list[LabelledItem], dict[str, ItemVotes], list[LabelledItem]]:
    """All labelled items of the criterion by id, the evaluated ones that have a verdict, the
    verdicts that have no label (judge-only), and the evaluated labels that have no verdict."""
    every = {item.item_id: item for item in labels.items(criterion)}
    evaluated = [item for item in every.values() if split is None or item.split == split]
    if not evaluated:
        raise LabelsError(
            f"criterion {criterion!r} has no labelled items in split {split!r}",
            file=labels.file,
            hint="choose a split that the labels use, or evaluate all items",
        )
    evaluated, judge_only, unjudged = _pair(
        evaluated,
        every,
        votes,
        labels_file=labels.file,
        verdicts_file=verdicts_file,
        criterion=criterion,
    )
    return every, evaluated, judge_only, unjudged


def _unjudged_notes(unjudged: Sequence[LabelledItem]) -> list[str]:
    if not unjudged:
        return []
    shown = ", ".join(repr(m.item_id) for m in unjudged[:5])
    more = f" and {len(unjudged) - 5} more" if len(unjudged) > 5 else ""
    return [f"{len(unjudged)} labelled item(s) have no verdict and are left out: {shown}{more}"]


def _require_both_classes(
    evaluated: Sequence[LabelledItem], criterion: str | None, *, labels_file: str | None
) -> None:
    classes = {item.label for item in evaluated}
    if len(classes) != 1:
        return
    only = next(iter(classes))
    other = "fail" if only == "pass" else "pass"
    missing_rate = "TNR" if only == "pass" else "TPR"
    raise LabelsError(
        f"criterion {criterion!r}: all {len(evaluated)} labelled items are '{only}', so "
        f"{missing_rate} and kappa cannot be estimated",
        file=labels_file,
        line=evaluated[0].line,
        field="label",
        hint=f"add labelled '{other}' items (or allow a single class to see what is defined)",
    )


def _checked_votes(
    evaluated: Sequence[LabelledItem],
    votes: Mapping[str, ItemVotes],
    judge_only: dict[str, ItemVotes],
    *,
    confidence: float,
    as_unsure: bool,
) -> tuple[dict[str, ItemVotes], dict[str, ItemVotes], EvidenceDiagnostic | None]:
    """The evaluated items' votes with their evidence checked, the judge-only votes, and the
    evidence diagnostic; ``as_unsure`` turns every unverified sample of both into ``unsure``."""
    checked = {item.item_id: _check_evidence(votes[item.item_id], item) for item in evaluated}
    diagnostic = _evidence_diagnostic(
        evaluated, checked, confidence=confidence, as_unsure=as_unsure
    )
    if as_unsure:
        checked = {k: v.unverified_as_unsure() for k, v in checked.items()}
        judge_only = {k: v.unverified_as_unsure() for k, v in judge_only.items()}
    return checked, judge_only, diagnostic


def _train_disagreements_and_next_steps(
    every: Mapping[str, LabelledItem],
    votes: Mapping[str, ItemVotes],
    stats: AgreementStats,
    gates: Gates,
    trust: TrustDecision,
) -> tuple[tuple[Disagreement, ...], tuple[str, ...]]:
    """The train-split disagreements (for few-shot export) and the advice on what to do next."""
    train_items = [
        item for item in every.values() if item.split == "train" and item.item_id in votes
    ]
    train_disagreements = tuple(find_disagreements(train_items, votes))
    steps = next_steps(
        stats,
        gates,
        trust,
        has_train=any(item.split == "train" for item in every.values()),
        n_train_disagreements=len(train_disagreements),
    )
    return train_disagreements, steps


def _tied_ratings(labels: LabelSet, criterion: str | None, split: Split | None) -> list[Ratings]:
    """The ratings of the items whose raters split evenly (left out of the judge's statistics):
    they count for the human-human agreement, else the raters' disagreements would vanish."""
    return [
        ratings
        for tie_split, ratings in labels.split_ratings.get(criterion, {}).values()
        if split is None or tie_split == split
    ]


def _human_agreement(
    evaluated: Sequence[LabelledItem], ties: Sequence[Ratings], criterion: str | None
) -> InterAnnotatorStats | None:
    return inter_annotator(
        [
            *evaluated,
            *(
                LabelledItem(
                    item_id="", criterion=criterion, label="pass", line=0, annotator_labels=r
                )
                for r in ties
            ),
        ]
    )


def _grouped_noise(
    evaluated: Sequence[LabelledItem], item_votes: Sequence[ItemVotes], *, confidence: float
) -> NoiseStats | None:
    groups = {item.item_id: item.group for item in evaluated}
    return judge_noise(
        item_votes,
        groups=groups if any(g is not None for g in groups.values()) else None,
        confidence=confidence,
    )


def _refuse_shared(
    judge_only: Mapping[str, ItemVotes],
    elsewhere: Mapping[str, object],
    problem: str,
    *,
    file: str | None,
    hint: str,
) -> None:
    """A :class:`LabelsError` at the first judge-only item also in ``elsewhere``: ``item 'x' `` then
    ``problem``, whose ``{n}`` counts such items."""
    shared = [item_id for item_id in judge_only if item_id in elsewhere]
    if shared:
        raise LabelsError(
            f"item {shared[0]!r} " + problem.format(n=len(shared)),
            file=file,
            line=judge_only[shared[0]].line,
            field="item_id",
            hint=hint,
        )


def _judge_only_pool(
    from_file: Mapping[str, ItemVotes],
    every: Mapping[str, LabelledItem],
    judge_only: Mapping[str, ItemVotes],
    *,
    unlabelled_file: str | None,
) -> tuple[dict[str, ItemVotes], list[str]]:
    """The judge-only items for PPI++ (the judge-only file's and the verdicts with no label), and a
    note when the verdicts file adds some; an item labelled, or judged in both files, is an error."""
    unl = dict(from_file)
    _refuse_shared(
        unl,
        every,
        "is judge-only (unlabelled) but also labelled ({n} such items)",
        file=unlabelled_file,
        hint="the judge-only file must hold items that have no human label",
    )
    _refuse_shared(
        unl,
        judge_only,
        "is judged both in the judge-only file and in the verdicts file ({n} such items), so PPI "
        "would count it twice",
        file=unlabelled_file,
        hint="keep each judge-only item in one of the two files",
    )
    notes: list[str] = []
    if judge_only:
        notes.append(
            f"{len(judge_only)} verdict(s) have no label and are used as judge-only items "
            "for the PPI++ corrected rate"
        )
        unl.update(judge_only)
    return unl, notes


def _weigh_non_random_labels(
    evaluated: Sequence[LabelledItem],
    item_votes: Sequence[ItemVotes],
    stats: AgreementStats,
    gates: Gates,
    *,
    has_judge_only: bool,
    confidence: float,
    n_bootstrap: int,
    seed: int,
) -> tuple[AgreementStats, int | None, list[str]]:
    """Where some labels were not drawn in random order: the gates design-weighted (where the
    strata allow), and notes on what that means for the gates and for PPI++. Returns the stats,
    how many labels the weighting used (None: not weighted) and the notes."""
    random_items = [item.random_order for item in evaluated]
    n_left_out = random_items.count(False)
    if not n_left_out:
        return stats, None, []
    notes: list[str] = []
    n_design_weighted: int | None = None
    design = _design_weighted(
        evaluated, item_votes, stats, confidence=confidence, n_bootstrap=n_bootstrap, seed=seed
    )
    if design is not None:
        stats, n_design_weighted, design_note = design
        notes.append(design_note)
        if has_judge_only:
            notes.append(
                f"PPI++ uses the {len(evaluated) - n_left_out} random-order label(s) "
                "only (it needs a simple random sample)"
                if n_left_out < len(evaluated)
                else "PPI++ needs random-order labels, so there is no corrected success rate"
            )
    else:
        notes.append(_order_note(n_left_out, len(evaluated), ppi=has_judge_only))
    human = [item.label for item in evaluated]
    judge = [v.majority for v in item_votes]
    notes.append(
        _random_only_gates(
            [h for h, r in zip(human, random_items, strict=True) if r],
            [j for j, r in zip(judge, random_items, strict=True) if r],
            gates,
            confidence=confidence,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
    )
    return stats, n_design_weighted, notes


def _ppi_on_random_labels(
    evaluated: Sequence[LabelledItem],
    item_votes: Sequence[ItemVotes],
    unl: Mapping[str, ItemVotes],
    *,
    prediction: Prediction,
    confidence: float,
) -> PPIResult | None:
    """The PPI++ corrected success rate over the random-order labels (None without judge-only
    items or random-order labels)."""
    random_items = [item.random_order for item in evaluated]
    if not unl or all(not r for r in random_items):
        return None
    return ppi_mean(
        [1.0 if item.label == "pass" else 0.0 for item in evaluated if item.random_order],
        predictions([v for v, r in zip(item_votes, random_items, strict=True) if r], prediction),
        predictions(list(unl.values()), prediction),
        confidence=confidence,
    )


@dataclass(frozen=True)
class Slicing:
    """How to slice the items (:mod:`pathjudge.calibration.slices`): the keys, each item's slice
    values from the items file (item id -> ``{key: value}``; labels carry their own), and the
    fewest labelled items a slice needs before its gates decide anything."""

    keys: tuple[str, ...]
    items: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    min_labels: int = 10


@dataclass(frozen=True)
class _GateOptions:
    gates: Gates
    confidence: float
    n_bootstrap: int
    seed: int
    prediction: Prediction


@dataclass(frozen=True)
class _Gated:
    stats: AgreementStats
    trust: TrustDecision
    n_design_weighted: int | None
    notes: list[str]
    ppi: PPIResult | None


def _gated(
    evaluated: Sequence[LabelledItem],
    item_votes: Sequence[ItemVotes],
    unl: Mapping[str, ItemVotes],
    opts: _GateOptions,
) -> _Gated:
    """The agreement, the trust gates (design-weighted where some labels came from the gates
    order) and the PPI++ rate of ``evaluated``: one criterion, or one slice of it."""
    human = [item.label for item in evaluated]
    judge: list[VerdictValue] = [v.majority for v in item_votes]
    stats = judge_agreement(
        human, judge, confidence=opts.confidence, n_bootstrap=opts.n_bootstrap, seed=opts.seed
    )
    stats, n_design_weighted, notes = _weigh_non_random_labels(
        evaluated,
        item_votes,
        stats,
        opts.gates,
        has_judge_only=bool(unl),
        confidence=opts.confidence,
        n_bootstrap=opts.n_bootstrap,
        seed=opts.seed,
    )
    ppi = _ppi_on_random_labels(
        evaluated, item_votes, unl, prediction=opts.prediction, confidence=opts.confidence
    )
    return _Gated(stats, decide_trust(stats, opts.gates), n_design_weighted, notes, ppi)


def _one_slice(
    key: str,
    value: str,
    members: Sequence[LabelledItem],
    votes: Sequence[ItemVotes],
    unl: Mapping[str, ItemVotes],
    opts: _GateOptions,
    min_labels: int,
) -> SliceCalibration:
    gated = _gated(members, votes, unl, opts)
    status, why = slice_status(gated.stats, gated.trust, min_labels=min_labels)
    more = more_labels_needed(gated.stats, opts.gates, gated.trust)
    if status == "too small" and more is not None:
        more = max(more, min_labels - len(members))
    return SliceCalibration(
        key=key,
        value=value,
        n_labelled=len(members),
        n_judge_only=len(unl),
        status=status,
        why=why,
        labels_needed=more,
        agreement=gated.stats,
        trust=gated.trust,
        next_steps=tuple(labels_needed(gated.stats, opts.gates, gated.trust)),
        ppi=gated.ppi,
        notes=tuple(gated.notes),
    )


def _slices(
    evaluated: Sequence[LabelledItem],
    item_votes: Sequence[ItemVotes],
    unl: Mapping[str, ItemVotes],
    slicing: Slicing | None,
    opts: _GateOptions,
) -> tuple[SliceCalibration, ...]:
    """The gates of every slice of every key in ``slicing`` (none without it)."""
    if slicing is None:
        return ()
    ids = [item.item_id for item in evaluated]
    pool = list(unl)
    out: list[SliceCalibration] = []
    for key in slicing.keys:
        groups = group_by_slice(ids, [item.slice for item in evaluated], key, slicing.items)
        judge_only = group_by_slice(pool, [{} for _ in pool], key, slicing.items)
        for value, positions in groups.items():
            slice_unl = {pool[i]: unl[pool[i]] for i in judge_only.get(value, [])}
            members = [evaluated[i] for i in positions]
            votes = [item_votes[i] for i in positions]
            out.append(_one_slice(key, value, members, votes, slice_unl, opts, slicing.min_labels))
    return tuple(out)


def _split_counts(every: Mapping[str, LabelledItem]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in every.values():
        key = item.split or "none"
        counts[key] = counts.get(key, 0) + 1
    return counts


def _calibrate_criterion(
    labels: LabelSet,
    verdicts: VerdictSet,
    criterion: str | None,
    verdicts_criterion: str | None,
    votes: Mapping[str, ItemVotes],
    judge_only_file: Mapping[str, ItemVotes],
    *,
    unlabelled_file: str | None,
    split: Split | None,
    gates: Gates,
    confidence: float,
    n_bootstrap: int,
    seed: int,
    n_bins: int,
    prediction: Prediction,
    allow_single_class: bool,
    unverified_as_unsure: bool,
    slicing: Slicing | None = None,
) -> CriterionCalibration:
    """Calibrate one criterion: ``criterion`` in the labels, ``verdicts_criterion`` in the verdicts."""
    every, evaluated, judge_only, unjudged = _criterion_items(
        labels, criterion, votes, split=split, verdicts_file=verdicts.file
    )
    notes = _unjudged_notes(unjudged)
    if not allow_single_class:
        _require_both_classes(evaluated, criterion, labels_file=labels.file)
    checked_votes, judge_only, diagnostic = _checked_votes(
        evaluated, votes, judge_only, confidence=confidence, as_unsure=unverified_as_unsure
    )
    item_votes = [checked_votes[item.item_id] for item in evaluated]
    human = [item.label for item in evaluated]
    ties = _tied_ratings(labels, criterion, split)
    humans = _human_agreement(evaluated, ties, criterion)
    noise = _grouped_noise(evaluated, item_votes, confidence=confidence)
    rel: Reliability = reliability([v.vote_share for v in item_votes], human, n_bins=n_bins)
    unl, judge_only_notes = _judge_only_pool(
        judge_only_file, every, judge_only, unlabelled_file=unlabelled_file
    )
    notes.extend(judge_only_notes)
    opts = _GateOptions(gates, confidence, n_bootstrap, seed, prediction)
    gated = _gated(evaluated, item_votes, unl, opts)
    stats, trust, ppi = gated.stats, gated.trust, gated.ppi
    notes.extend(gated.notes)
    n_ppi_left_out = sum(1 for item in evaluated if not item.random_order)
    sizes = [v.n_samples for v in item_votes]
    raters = rater_agreement(
        [*evaluated, *ties], confidence=confidence, n_bootstrap=n_bootstrap, seed=seed
    )
    stale = tuple(labels.stale.get(criterion, ()))
    notes.extend(_label_log_notes(labels, criterion, stale))
    train_disagreements, steps = _train_disagreements_and_next_steps(
        every, votes, stats, gates, trust
    )
    return CriterionCalibration(
        criterion=criterion,
        n_labelled=len(evaluated),
        split=split,
        split_counts=_split_counts(every),
        n_judge_errors=sum(1 for v in item_votes if v.errored),
        samples_per_item=(min(sizes), max(sizes)),
        agreement=stats,
        trust=trust,
        inter_annotator=humans,
        ceiling=_ceiling(stats, humans) + (f"; {raters.describe()}" if raters is not None else ""),
        noise=noise,
        reliability=rel,
        ppi=ppi,
        disagreements=tuple(find_disagreements(evaluated, checked_votes)),
        train_disagreements=train_disagreements,
        n_judge_only=len(unl),
        labels_without_verdict=tuple(item.item_id for item in unjudged),
        notes=tuple(notes),
        next_steps=steps,
        evidence=diagnostic,
        judges=tuple(verdicts.judges.get(verdicts_criterion, ())),
        rater_agreement=raters,
        stale_labels=stale,
        n_ppi_left_out=n_ppi_left_out if unl else 0,
        n_design_weighted=gated.n_design_weighted,
        slices=_slices(evaluated, item_votes, unl, slicing, opts),
    )


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
    unverified_as_unsure: bool = False,
    slicing: Slicing | None = None,
) -> CalibrationReport:
    """Calibrate the judge against human labels, per criterion (see the module docstring).

    ``split`` evaluates only the labelled items of that split (None: all of them); ``disagreements``
    lists those of the evaluated items, and ``train_disagreements`` those of the train-split items
    whatever split is evaluated, for few-shot export. ``unlabelled`` holds judge-only verdicts for PPI
    (never labelled items); verdicts in ``verdicts`` for items with no label join them.

    Evidence: a sample that cites quotes but was never checked (a generic verdicts line without
    ``evidence_verified``) is checked against the label's ``inputs`` when the label has them.
    ``unverified_as_unsure`` counts every sample whose quotes were not found as ``unsure``; either
    way the criterion's ``evidence`` diagnostic reports them.

    ``slicing`` adds, per criterion, the same gates on each slice of the items
    (:mod:`pathjudge.calibration.slices`); the overall decision (``trusted``) is unchanged by it;
    :attr:`CalibrationReport.failed_slices` lists the slices that fail their gates.
    """
    gates = gates or Gates()
    matched = match_criteria(labels, verdicts, criterion=criterion)
    judge_only_files: dict[str | None, Mapping[str, ItemVotes]] = {}
    if unlabelled is not None and len(unlabelled):
        pairs = match_criteria(labels, unlabelled, criterion=criterion, require_all=False)
        for target, (_, votes) in pairs.items():
            judge_only_files[target] = votes
    unlabelled_file = unlabelled.file if unlabelled is not None else None
    results = [
        _calibrate_criterion(
            labels,
            verdicts,
            lc,
            vc,
            votes,
            judge_only_files.get(lc, {}),
            unlabelled_file=unlabelled_file,
            split=split,
            gates=gates,
            confidence=confidence,
            n_bootstrap=n_bootstrap,
            seed=seed,
            n_bins=n_bins,
            prediction=prediction,
            allow_single_class=allow_single_class,
            unverified_as_unsure=unverified_as_unsure,
            slicing=slicing,
        )
        for lc, (vc, votes) in matched.items()
    ]
    return CalibrationReport(
        labels_file=labels.file,
        verdicts_file=verdicts.file,
        unlabelled_file=unlabelled_file,
        gates=gates,
        confidence=confidence,
        n_bootstrap=n_bootstrap,
        seed=seed,
        criteria=tuple(results),
    )
