"""``pathjudge bias``: a battery of controlled probes of the judge, each against a placebo repeat.

For every labelled item the judge gives a *base* verdict (sample 0 of the item as it is). Each flip
probe (:mod:`pathjudge.calibration.bias_probes`) then costs two more calls on that item:

* the *placebo*: the same input judged again, as a new sample (sample ``j`` for the ``j``-th probe,
  so it is a real second call, never the cached base verdict), and
* the *probe*: the changed input, judged once.

Per item ``i``: ``X_i = [placebo verdict != base verdict]`` and ``Y_i = [probe verdict != base
verdict]`` (verdicts pass, fail, unsure; an item whose base, placebo or probe call ended in a judge
failure is left out of that probe and counted). ``X_i`` and ``Y_i`` are paired on the same item, so
the flip rate *beyond placebo* is the paired difference ``mean(Y) - mean(X) = (b - c) / n`` over the
2x2 table ``a = #{X=1, Y=1}`` ... in Newcombe's letters with the probe first (``a``: both flipped,
``b``: only the probe, ``c``: only the placebo, ``d``: neither), with Newcombe's (1998) method 10
interval (:func:`pathjudge.calibration.estimate.paired_difference`).

Each probe's status, against the ``tolerance`` (default :data:`DEFAULT_TOLERANCE`):

* ``fail``: the interval lies wholly above the tolerance (lower bound > tolerance): the judge flips
  more than the tolerance beyond its own noise;
* ``pass``: the interval lies at or below it (upper bound <= tolerance);
* ``inconclusive``: the interval holds the tolerance (more items would tell);
* ``error``: no item had all three verdicts; ``skipped``: the probe cannot run (the reason says why).

``self-preference`` (advisory) is not a flip probe: on the items whose answer's model family is
recorded (label ``metadata.model_family``) and equals the judge's family, it is the paired difference
of the judge's base pass rate and the human pass rate (``X_i`` = gold pass, ``Y_i`` = judge pass;
items with an unsure or failed verdict left out), with the same interval and statuses.

The battery passes when no must-pass probe (length, position, sycophancy) is ``fail`` or ``error``;
advisory probes are reported and never fail it.

The report records the judge it probed (:func:`~pathjudge.judge.identity.judge_identity`) and the
content hash of the labelled items it ran on (:func:`~pathjudge.calibration.splits.split_hash` over
every split), so that ``pathjudge calibrate --certify FILE --bias BIAS.json`` can check that the
battery probed the judge it certifies, on the same labels.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from pathjudge._ids import ItemId
from pathjudge.calibration.bias_probes import (
    FLIP_PROBES,
    MUST_PASS,
    PROBES,
    FlipProbe,
    ProbeName,
    answer_field,
    apply_probe,
    position_problem,
)
from pathjudge.calibration.estimate import Estimate, PairedCounts, paired_difference, proportion
from pathjudge.calibration.labels import LabelledItem, LabelSet, Split
from pathjudge.calibration.live import labelled_items
from pathjudge.calibration.splits import split_hash
from pathjudge.config import normalize_model
from pathjudge.errors import BudgetExceededError, InputError
from pathjudge.judge.identity import JudgeIdentity, judge_identity
from pathjudge.judge.runner import JudgeJob, JudgeRun
from pathjudge.judge.session import JudgeSession
from pathjudge.judge.verdict import JudgeResult, VerdictRecord
from pathjudge.rubrics.criteria import Criterion, get_criterion, input_text

__all__ = [
    "DEFAULT_TOLERANCE",
    "BiasReport",
    "ProbeItem",
    "ProbeResult",
    "ProbeStatus",
    "model_family",
    "probe_result",
    "run_bias",
]

DEFAULT_TOLERANCE = 0.05
"""The largest flip rate beyond placebo a must-pass probe may be shown to exceed: 5 points."""

ProbeStatus = Literal["pass", "fail", "inconclusive", "error", "skipped"]
Verdict = Literal["pass", "fail", "unsure", "error"]


class ProbeItem(BaseModel):
    """One item under one probe: the three verdicts (``error``: that call failed)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: ItemId
    base: Verdict = Field(description="The verdict on the item as it is (or the gold label).")
    placebo: Verdict = Field(description="The same input judged again (or the gold label).")
    probe: Verdict = Field(description="The verdict on the changed input (or the base verdict).")


class ProbeResult(BaseModel):
    """One probe of the battery: the flip rates, the difference beyond placebo and the status."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    probe: ProbeName
    must_pass: bool = Field(description="True when a fail of this probe fails the battery.")
    status: ProbeStatus
    reason: str = Field(description="Why the status, in words, with the numbers.")
    n_items: int = Field(description="Items with every verdict the probe needs.")
    n_excluded: int = Field(description="Items left out (a judge failure or an unsure verdict).")
    table: tuple[int, int, int, int] | None = Field(
        default=None,
        description="(a, b, c, d): both flipped, only the probe, only the placebo, neither.",
    )
    probe_rate: Estimate | None = None
    placebo_rate: Estimate | None = None
    beyond_placebo: Estimate | None = Field(
        default=None, description="probe rate - placebo rate, Newcombe paired interval."
    )
    to_pass: int = Field(default=0, description="Probe flips that turned the verdict into pass.")
    items: tuple[ProbeItem, ...] = ()


class BiasReport(BaseModel):
    """The result of ``pathjudge bias`` (what ``--json`` writes)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = 1
    kind: Literal["pathjudge.bias"] = "pathjudge.bias"
    labels_file: str | None
    criterion: str
    criterion_hash: str
    judge: JudgeIdentity = Field(description="The judge configuration the battery probed.")
    labels_hash: str = Field(
        description="Content hash of the criterion's labelled items (ids, labels, groups; any "
        "split), what calibrate --certify --bias compares."
    )
    field: str = Field(description="The input the probes change.")
    backend: str
    model: str
    judge_family: str
    tolerance: float
    confidence: float
    seed: int
    passed: bool = Field(
        description="No must-pass probe failed or erred, and at least one must-pass probe ran."
    )
    probes: tuple[ProbeResult, ...]
    notes: tuple[str, ...] = ()


def model_family(name: str) -> str:
    """A model's family: the leading name of its normalised id (``claude-opus-4-8`` -> ``claude``,
    ``gpt-4o`` -> ``gpt``, ``.../SmolLM2-135M-Instruct.Q4_1.gguf`` -> ``smollm2``)."""
    base = normalize_model(name.replace("\\", "/"))
    found = re.match(r"[a-z]+\d*", base)
    return found.group(0) if found else base


def _status(estimate: Estimate, tolerance: float, n: int) -> tuple[ProbeStatus, str]:
    if estimate.value is None or estimate.lower is None or estimate.upper is None:
        return "error", "no item had every verdict the probe needs"
    span = f"{estimate.value:+.3f} [{estimate.lower:+.3f}, {estimate.upper:+.3f}] over {n} items"
    if estimate.lower > tolerance:
        return "fail", f"{span} lies above the tolerance {tolerance:.3f}"
    if estimate.upper <= tolerance:
        return "pass", f"{span} lies at or below the tolerance {tolerance:.3f}"
    return "inconclusive", f"{span} holds the tolerance {tolerance:.3f}: more items would tell"


def probe_result(
    probe: ProbeName,
    items: Sequence[ProbeItem],
    *,
    tolerance: float,
    confidence: float,
) -> ProbeResult:
    """Statistics and status of one probe over its items (the module docstring has the definitions).

    ``placebo`` and ``probe`` are compared with ``base``; an item with an ``error`` (or, for
    self-preference, an ``unsure``) anywhere is left out. Empty input: status ``error``.
    """
    skip = {"error", "unsure"} if probe == "self-preference" else {"error"}
    kept = [i for i in items if not {i.base, i.placebo, i.probe} & skip]
    if probe == "self-preference":  # X = gold pass, Y = judge pass
        xs = [i.placebo == "pass" for i in kept]
        ys = [i.probe == "pass" for i in kept]
    else:
        xs = [i.placebo != i.base for i in kept]
        ys = [i.probe != i.base for i in kept]
    pairs = list(zip(ys, xs, strict=True))
    table = PairedCounts(
        a=sum(y and x for y, x in pairs),
        b=sum(y and not x for y, x in pairs),
        c=sum(x and not y for y, x in pairs),
        d=sum(not y and not x for y, x in pairs),
    )
    n = table.n
    words = ("judge pass", "gold pass") if probe == "self-preference" else ("flip", "flip")
    beyond = paired_difference(
        table,
        what=f"{words[0]} rate beyond the {words[1]} rate",
        empty="undefined: no item had every verdict the probe needs",
        confidence=confidence,
    )
    status, reason = _status(beyond, tolerance, n)
    empty = "undefined: no item"
    return ProbeResult(
        probe=probe,
        must_pass=probe in MUST_PASS,
        status=status,
        reason=reason,
        n_items=n,
        n_excluded=len(items) - n,
        table=tuple(table) if n else None,
        probe_rate=proportion(sum(ys), n, what=words[0], empty=empty, confidence=confidence),
        placebo_rate=proportion(sum(xs), n, what=words[1], empty=empty, confidence=confidence),
        beyond_placebo=beyond,
        to_pass=sum(1 for i in kept if i.probe == "pass" and i.probe != i.base),
        items=tuple(items),
    )


def _skipped(probe: ProbeName, reason: str) -> ProbeResult:
    return ProbeResult(
        probe=probe,
        must_pass=probe in MUST_PASS,
        status="skipped",
        reason=reason,
        n_items=0,
        n_excluded=0,
    )


def _verdicts_by_sample(result: JudgeResult | None) -> dict[int, Verdict]:
    """Sample index -> verdict of one item (a failed sample is absent, so read as ``error``)."""
    if not isinstance(result, VerdictRecord):
        return {}
    return {s.sample_index: s.verdict for s in result.sample_verdicts}


def _run(session: JudgeSession, jobs: Sequence[JudgeJob], samples: int) -> JudgeRun:
    run = dataclasses.replace(session, samples=samples).run_sync(jobs)
    if run.budget_exceeded:
        assert session.budget is not None
        raise BudgetExceededError(
            f"the judge budget ran out ({session.budget.describe()}); {len(run.unfinished)} of "
            f"{len(jobs)} judge jobs not run",
            hint="everything judged is cached; rerun with a larger budget to finish",
        )
    return run


def _self_preference(
    items: Sequence[LabelledItem],
    base: Mapping[str, Verdict],
    family: str,
    *,
    tolerance: float,
    confidence: float,
) -> ProbeResult:
    recorded = [
        (i, model_family(str(i.metadata["model_family"])))
        for i in items
        if i.metadata and isinstance(i.metadata.get("model_family"), str)
    ]
    if not recorded:
        return _skipped(
            "self-preference",
            "no labelled item records its answer's model family (metadata.model_family)",
        )
    own = [i for i, fam in recorded if fam == family]
    if not own:
        return _skipped(
            "self-preference",
            f"no labelled item's answer comes from the judge's family {family!r} "
            f"(recorded: {', '.join(sorted({fam for _, fam in recorded}))})",
        )
    rows = [
        ProbeItem(item_id=i.item_id, base=i.label, placebo=i.label, probe=base[i.item_id])
        for i in own
    ]
    return probe_result("self-preference", rows, tolerance=tolerance, confidence=confidence)


def _item_inputs(
    items: Sequence[LabelledItem], criterion: Criterion, labels: LabelSet
) -> dict[str, dict[str, str]]:
    """Each item's inputs as text, checked against the criterion (an error names the label line)."""
    inputs: dict[str, dict[str, str]] = {}
    for item in items:
        inputs[item.item_id] = {k: input_text(v) for k, v in (item.inputs or {}).items()}
        try:
            criterion.check_inputs(inputs[item.item_id], item_id=item.item_id)
        except InputError as exc:
            raise InputError(
                exc.message, file=labels.file, line=item.line, field=exc.field, hint=exc.hint
            ) from None
    return inputs


def _probe_job_id(item_id: str, probe: str) -> str:
    return f"{item_id}\x1f{probe}"


def _probe_jobs(
    flips: Sequence[FlipProbe],
    criterion: Criterion,
    inputs: Mapping[str, Mapping[str, str]],
    *,
    field: str,
    seed: int,
) -> list[JudgeJob]:
    jobs: list[JudgeJob] = []
    for probe in flips:
        for item_id, values in inputs.items():
            crit, changed = apply_probe(
                probe, criterion, values, field=field, item_id=item_id, seed=seed
            )
            jobs.append(
                JudgeJob(item_id=_probe_job_id(item_id, probe), criterion=crit, inputs=changed)
            )
    return jobs


def _flip_rows(
    probe: FlipProbe,
    placebo_sample: int,
    by_sample: Mapping[str, Mapping[int, Verdict]],
    probe_run: JudgeRun,
) -> list[ProbeItem]:
    """Per item: base (sample 0), placebo (its own sample of the same input), probe verdict."""
    return [
        ProbeItem(
            item_id=item_id,
            base=samples.get(0, "error"),
            placebo=samples.get(placebo_sample, "error"),
            probe=_verdicts_by_sample(probe_run.results.get(_probe_job_id(item_id, probe))).get(
                0, "error"
            ),
        )
        for item_id, samples in by_sample.items()
    ]


def run_bias(
    labels: LabelSet,
    criterion_ref: str,
    session: JudgeSession,
    *,
    probes: Sequence[ProbeName] | None = None,
    field: str | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    confidence: float = 0.95,
    seed: int = 0,
    judge_family: str | None = None,
    split: Split | None = None,
) -> BiasReport:
    """Run the battery (module docstring) on the labelled items of ``criterion_ref``.

    ``probes`` picks some (default: all, in :data:`~pathjudge.calibration.bias_probes.PROBES` order);
    ``field`` is the input the probes change (default: see
    :func:`~pathjudge.calibration.bias_probes.answer_field`); ``judge_family`` overrides the family
    read from the judge's model name. Verdicts go through the session's cache, so a rerun makes no
    calls. Raises :class:`LabelsError` / :class:`InputError` for unusable labels or options and
    :class:`BudgetExceededError` when the budget ran out.
    """
    if not 0.0 <= tolerance < 1.0:
        raise InputError(
            f"tolerance must lie in [0, 1), got {tolerance}",
            field="--tolerance",
            hint="a share of items, e.g. 0.05",
        )
    if not 0.0 < confidence < 1.0:
        raise InputError(
            f"--confidence must lie strictly between 0 and 1, got {confidence}",
            field="--confidence",
            hint="e.g. 0.95 for 95% intervals",
        )
    chosen = [p for p in PROBES if probes is None or p in probes]
    criterion = get_criterion(criterion_ref)
    target = answer_field(criterion, field)
    items = labelled_items(labels, criterion_ref, split=split)
    inputs = _item_inputs(items, criterion, labels)
    skipped: dict[ProbeName, str] = {}
    if "position" in chosen and (why := position_problem(criterion)):
        skipped["position"] = why
    flips = [p for p in FLIP_PROBES if p in chosen and p not in skipped]
    base_jobs = [JudgeJob(item_id=k, criterion=criterion, inputs=v) for k, v in inputs.items()]
    base_run = _run(session, base_jobs, 1 + len(flips))
    probe_jobs = _probe_jobs(flips, criterion, inputs, field=target, seed=seed)
    probe_run = _run(session, probe_jobs, 1) if probe_jobs else base_run
    by_sample = {k: _verdicts_by_sample(base_run.results.get(k)) for k in inputs}
    first = next((r for r in base_run.results.values() if isinstance(r, VerdictRecord)), None)
    model = first.model if first is not None else (session.model or "")
    family = (judge_family or model_family(model)).lower()
    results: list[ProbeResult] = []
    for probe in chosen:
        if probe in skipped:
            results.append(_skipped(probe, skipped[probe]))
        elif probe == "self-preference":
            base = {k: v.get(0, "error") for k, v in by_sample.items()}
            results.append(
                _self_preference(items, base, family, tolerance=tolerance, confidence=confidence)
            )
        else:
            rows = _flip_rows(probe, 1 + flips.index(probe), by_sample, probe_run)
            results.append(probe_result(probe, rows, tolerance=tolerance, confidence=confidence))
    return BiasReport(
        labels_file=labels.file,
        criterion=criterion.id,
        criterion_hash=criterion.content_hash,
        judge=judge_identity(criterion, session),
        labels_hash=split_hash(
            labels, criterion_ref if criterion_ref in labels.criteria else None, split
        ),
        field=target,
        backend=first.backend if first is not None else session.backend,
        model=model,
        judge_family=family,
        tolerance=tolerance,
        confidence=confidence,
        seed=seed,
        passed=battery_passed(results),
        probes=tuple(results),
        notes=() if any(_ran_must_pass(results)) else (NO_MUST_PASS_RAN,),
    )


NO_MUST_PASS_RAN = (
    "no must-pass probe ran (length, position and sycophancy were all skipped or not chosen): "
    "the battery cannot pass on advisory probes alone"
)


def _ran_must_pass(results: Sequence[ProbeResult]) -> Iterator[bool]:
    return (r.must_pass and r.status in ("pass", "inconclusive", "fail") for r in results)


def battery_passed(results: Sequence[ProbeResult]) -> bool:
    """No must-pass probe failed or erred, and at least one must-pass probe ran: a battery whose
    must-pass probes were all skipped has tested nothing it can vouch for, so it does not pass."""
    if any(r.must_pass and r.status in ("fail", "error") for r in results):
        return False
    return any(_ran_must_pass(results))
