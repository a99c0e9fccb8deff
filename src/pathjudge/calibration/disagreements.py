"""Where the judge and the humans differ, and train-split disagreements as few-shot examples.

:func:`find_disagreements` lists the items whose majority verdict is decisive and differs from the human
label: a *false pass* (judge pass, humans fail) or a *false fail*. Unsure items are not disagreements
(they are counted by the agreement statistics).

:func:`few_shot_examples` turns the disagreements on ``train``-split items into examples in the
criteria few-shot format (:class:`pathjudge.rubrics.criteria.CriterionExample`: ``inputs``, the HUMAN
``verdict``, ``reasoning``), and :func:`few_shot_yaml` renders them as the ``examples:`` block of a
criterion YAML. The reasoning is the label's ``rationale``; an item without one gets a sentence saying
so, to be replaced before use (the YAML's header comment counts them). Only train items are exported,
so dev/test agreement stays an honest held-out measure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pathjudge._yaml import dump_yaml
from pathjudge.calibration.labels import Label, LabelledItem, Split
from pathjudge.calibration.verdicts import ItemVotes
from pathjudge.errors import LabelsError
from pathjudge.rubrics.criteria import CriterionExample, input_text

__all__ = [
    "Disagreement",
    "DisagreementKind",
    "few_shot_examples",
    "few_shot_yaml",
    "find_disagreements",
]

DisagreementKind = Literal["false_pass", "false_fail"]

NO_RATIONALE = (
    "Expert annotators judged this '{label}'. No written rationale was recorded: replace this "
    "sentence with the reason before using the example."
)


class Disagreement(BaseModel):
    """One item where the judge's decisive majority verdict differs from the human label."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str
    criterion: str | None
    kind: DisagreementKind = Field(
        description="false_pass: judge pass, humans fail; or false_fail."
    )
    human: Label
    judge: Label
    vote_share: float | None = Field(description="Judge passes among decisive samples.")
    n_samples: int
    split: Split | None
    judge_reasoning: str | None
    human_rationale: str | None
    judge_evidence: tuple[str, ...] = Field(
        default=(), description="The quotes the judge cited for its majority verdict."
    )
    evidence_verified: bool | None = Field(
        default=None, description="Whether those quotes were found in the judged inputs."
    )


def find_disagreements(
    labelled: Sequence[LabelledItem], votes: Mapping[str, ItemVotes]
) -> list[Disagreement]:
    """Disagreements in the order of ``labelled``; items without votes or with an unsure majority are skipped.

    Empty input gives an empty list.
    """
    out: list[Disagreement] = []
    for item in labelled:
        vote = votes.get(item.item_id)
        if vote is None:
            continue
        judge = vote.majority
        if judge == "unsure" or judge == item.label:
            continue
        evidence: tuple[str, ...] = ()
        checked: bool | None = None
        for verdict, quotes, ok in zip(
            vote.verdicts, vote.evidence, vote.evidence_verified, strict=False
        ):
            if verdict == judge:
                evidence, checked = quotes, ok
                break
        out.append(
            Disagreement(
                item_id=item.item_id,
                criterion=item.criterion,
                kind="false_pass" if judge == "pass" else "false_fail",
                human=item.label,
                judge=judge,
                vote_share=vote.vote_share,
                n_samples=vote.n_samples,
                split=item.split,
                judge_reasoning=vote.reasoning,
                human_rationale=item.rationale,
                judge_evidence=evidence,
                evidence_verified=checked,
            )
        )
    return out


def few_shot_examples(
    disagreements: Sequence[Disagreement],
    labelled: Mapping[str, LabelledItem],
    *,
    split: Split = "train",
    file: str | None = None,
) -> list[dict[str, Any]]:
    """Few-shot examples ``{inputs, verdict, reasoning}`` from the disagreements on ``split`` items.

    ``verdict`` is the human label. Input values that are not strings are written as JSON text (the
    criteria format takes strings). A disagreement on a ``split`` item whose label has no ``inputs`` is
    a :class:`LabelsError` naming the labels line. No disagreement on ``split`` gives an empty list.
    """

    examples: list[dict[str, Any]] = []
    for d in disagreements:
        if d.split != split:
            continue
        item = labelled[d.item_id]
        if not item.inputs:
            raise LabelsError(
                f"item {d.item_id!r} is a {split} disagreement but has no 'inputs' to export",
                file=file,
                line=item.line,
                field="inputs",
                hint="add the inputs the judge sees to the label record",
            )
        example = CriterionExample(
            inputs={name: input_text(value) for name, value in item.inputs.items()},
            verdict=d.human,
            reasoning=d.human_rationale or NO_RATIONALE.format(label=d.human),
        )
        examples.append(example.model_dump(mode="json"))
    return examples


def few_shot_yaml(examples: Sequence[Mapping[str, Any]], *, criterion: str | None = None) -> str:
    """The ``examples:`` block of a criterion YAML for ``examples`` (an empty list gives ``examples: []``).

    A header comment names the criterion, counts the examples and those still lacking a rationale.
    """
    missing = sum(
        1 for e in examples if e.get("reasoning") == NO_RATIONALE.format(label=e.get("verdict"))
    )
    header = [
        "# Few-shot examples from train-split judge/human disagreements"
        + (f" for criterion {criterion!r}" if criterion else ""),
        f"# {len(examples)} examples; verdict = the human label.",
    ]
    if missing:
        header.append(f"# {missing} have no recorded rationale: write their reasoning before use.")
    body = dump_yaml({"examples": [dict(e) for e in examples]})
    return "\n".join(header) + "\n" + body
