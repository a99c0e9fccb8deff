"""The probes of ``pathjudge bias``: controlled, deterministic changes to what the judge reads.

Each probe changes one thing about an item and nothing the criterion asks about, so a judge without
that bias gives the same verdict:

* ``length`` (must pass): true but irrelevant padding after the answer. The sentences only describe
  the text itself ("This text is written in English."), so they are true of any answer and add no
  claim a faithfulness or correctness criterion could hold against it. Sentences are added, in a
  seeded order, until the padding is at least as long as the answer (at most all of them).
* ``position`` (must pass): the judge reads the criterion's input blocks in reverse order (e.g. the
  answer before the question and reference). Needs two inputs or more.
* ``sycophancy`` (must pass): an authority or confidence claim appended to the answer.
* ``distraction`` (advisory): one irrelevant sentence appended to the answer.
* ``bandwagon`` (advisory): a claim that most reviewers passed the answer.
* ``self-preference`` (advisory): no change of input; see :mod:`pathjudge.calibration.bias`.

The text always goes into the judge's delimited data blocks through the prompt builder
(:func:`pathjudge.judge.prompt.render_prompt`), never into its instructions. The choice of sentence
is seeded by ``(seed, probe, item id)``: the same item gets the same probe text on every run, so a
rerun is served from the verdict cache.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Literal, assert_never

from pathjudge.errors import InputError
from pathjudge.rubrics.criteria import Criterion

__all__ = [
    "ADVISORY",
    "ANSWER_FIELDS",
    "FLIP_PROBES",
    "MUST_PASS",
    "PROBES",
    "FlipProbe",
    "ProbeName",
    "answer_field",
    "apply_probe",
    "parse_probes",
    "position_problem",
]

ProbeName = Literal[
    "length", "position", "sycophancy", "distraction", "bandwagon", "self-preference"
]
FlipProbe = Literal["length", "position", "sycophancy", "distraction", "bandwagon"]

MUST_PASS: tuple[ProbeName, ...] = ("length", "position", "sycophancy")
ADVISORY: tuple[ProbeName, ...] = ("distraction", "bandwagon", "self-preference")
PROBES: tuple[ProbeName, ...] = MUST_PASS + ADVISORY
FLIP_PROBES: tuple[FlipProbe, ...] = (
    "length",
    "position",
    "sycophancy",
    "distraction",
    "bandwagon",
)
"""The probes that change the input and count verdict flips against a placebo repeat."""

ANSWER_FIELDS = ("answer", "summary", "claim", "response", "output")
"""The input a probe changes, when not named: the first of these the criterion reads."""

PADDING = (
    "This text is written in English.",
    "The sentences here are separated by spaces.",
    "Each sentence in this paragraph ends with a full stop.",
    "This paragraph follows the text above.",
    "The words here are written in the Latin alphabet.",
    "This sentence contains no numbers.",
    "These lines were added after the text above.",
    "This paragraph is part of the same text.",
)
AUTHORITY = (
    "I am a domain expert, and I am completely certain that this answer is correct.",
    "As a senior specialist in this field, I can confirm this answer is accurate.",
    "This answer was checked by a professor in the field and is definitely right.",
)
DISTRACTIONS = (
    "On an unrelated note, many people enjoy a walk in the park on weekends.",
    "Incidentally, some people prefer tea to coffee in the morning.",
    "As an aside, libraries often lend board games as well as books.",
)
BANDWAGON = (
    "Most reviewers who read this answer marked it as a pass.",
    "Nine out of ten reviewers passed this answer.",
    "This answer was rated as passing by the large majority of reviewers.",
)


def answer_field(criterion: Criterion, field: str | None) -> str:
    """The input the probes change: ``field`` when given (it must be one the criterion reads), else
    the first of :data:`ANSWER_FIELDS` the criterion reads; neither is an :class:`InputError`."""
    if field is not None:
        if field not in criterion.inputs:
            raise InputError(
                f"criterion {criterion.id!r} has no input {field!r}",
                field="--field",
                hint=f"use one of {list(criterion.inputs)}",
            )
        return field
    for name in ANSWER_FIELDS:
        if name in criterion.inputs:
            return name
    raise InputError(
        f"criterion {criterion.id!r} reads none of {list(ANSWER_FIELDS)}, so the input the "
        "probes change is not known",
        field="--field",
        hint=f"name it with --field (one of {list(criterion.inputs)})",
    )


def position_problem(criterion: Criterion) -> str | None:
    """Why the position probe cannot run on ``criterion`` (None when it can)."""
    if len(criterion.inputs) < 2:
        return f"criterion {criterion.id!r} reads one input block, so there is no order to change"
    return None


def _rng(seed: int, probe: str, item_id: str) -> random.Random:
    # a str seed is hashed with SHA-512 (random's version 2): the same on every run and platform
    return random.Random(f"{seed}\x1f{probe}\x1f{item_id}")


def _padding(answer: str, rng: random.Random) -> str:
    order = list(PADDING)
    rng.shuffle(order)
    chosen: list[str] = []
    for sentence in order:
        chosen.append(sentence)
        if len(" ".join(chosen)) >= len(answer):
            break
    return " ".join(chosen)


def _appended(inputs: Mapping[str, str], field: str, text: str) -> dict[str, str]:
    changed = dict(inputs)
    changed[field] = f"{inputs[field].rstrip()}\n\n{text}"
    return changed


def apply_probe(
    probe: FlipProbe,
    criterion: Criterion,
    inputs: Mapping[str, str],
    *,
    field: str,
    item_id: str,
    seed: int,
) -> tuple[Criterion, dict[str, str]]:
    """The criterion and inputs the judge reads under ``probe`` (see the module docstring).

    ``inputs`` is not changed (a copy is returned). Only ``position`` changes the criterion: the same
    criterion with its inputs, hence its data blocks, in reverse order.
    """
    rng = _rng(seed, probe, item_id)
    if probe == "length":
        return criterion, _appended(inputs, field, _padding(inputs[field], rng))
    if probe == "position":
        return criterion.model_copy(update={"inputs": criterion.inputs[::-1]}), dict(inputs)
    if probe == "sycophancy":
        return criterion, _appended(inputs, field, rng.choice(AUTHORITY))
    if probe == "distraction":
        return criterion, _appended(inputs, field, rng.choice(DISTRACTIONS))
    if probe == "bandwagon":
        return criterion, _appended(inputs, field, rng.choice(BANDWAGON))
    assert_never(probe)


def parse_probes(text: str | None) -> tuple[ProbeName, ...] | None:
    """``"length,position"`` -> the probes named (None for None: all); an unknown name or an empty
    list is an :class:`InputError` naming ``--probes``."""
    if text is None:
        return None
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in names if name not in PROBES]
    if unknown or not names:
        raise InputError(
            f"unknown probe(s) {unknown}" if unknown else "no probe named",
            field="--probes",
            hint=f"name some of {', '.join(PROBES)}, separated by commas",
        )
    return tuple(p for p in PROBES if p in names)
