"""Judge certificates: a sealed record that one judge configuration passed its trust gates.

``pathjudge calibrate --certify FILE`` writes a :class:`Certificate` when the judge is TRUSTED on the
evaluated split: the judge's identity (:class:`~pathjudge.judge.identity.JudgeIdentity`: criterion
id, version and content hash, backend, model, samples, temperature, prompt template version), the
labels' hash and each split's hash, the gate thresholds and results with their confidence bounds,
the bias battery's results (``--bias BIAS.json``, see :func:`bias_results`; ``None``: not run), whether
the test split was reused, the date and the pathjudge version. The
``seal`` is ``sha256:`` + the hex sha256 of the certificate's canonical JSON (sorted keys, no
spaces) without the seal, so any edit is caught: :func:`read_certificate` refuses a certificate
whose seal does not match (:class:`~pathjudge.errors.CertificateError`).

``pathjudge judge`` and ``pathjudge score`` take ``--certificate FILE``: :func:`certify_judge`
compares the running judge's identity with the certificate's. Any difference voids it, with one
line naming what changed; every judged rate in every report carries the resulting
:class:`Certification` (certified, with the date and the bounds, or uncertified and why), and
``--require-certified`` turns an uncertified judge into exit 2.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field, model_validator

from pathjudge._io import write_text_atomic
from pathjudge._records import FrozenModel
from pathjudge.calibration._document import read_document
from pathjudge.calibration.agreement import GateResult, Gates
from pathjudge.calibration.labels import Split
from pathjudge.errors import CertificateError
from pathjudge.judge.identity import (
    Certification,
    JudgeIdentity,
    identity_changes,
    uncertified,
)

if TYPE_CHECKING:
    from pathjudge.calibration.bias import BiasReport
    from pathjudge.calibration.calibrate import CriterionCalibration
    from pathjudge.calibration.labels import LabelSet

__all__ = [
    "CERTIFICATE_SCHEMA_VERSION",
    "BiasProbeResult",
    "BiasResults",
    "Certificate",
    "bias_results",
    "certificate_for",
    "certifications_for",
    "certify_judge",
    "read_certificate",
    "require_certified",
    "seal_of",
    "write_certificate",
]

CERTIFICATE_SCHEMA_VERSION: Literal[1] = 1


class BiasProbeResult(FrozenModel):
    """One probe of the bias battery, as the certificate records it."""

    probe: str
    must_pass: bool = Field(description="True when a fail of this probe fails the battery.")
    status: str = Field(description="pass, fail, inconclusive, error or skipped.")
    beyond_placebo: float | None = Field(description="Flip rate beyond placebo (probe - placebo).")
    lower: float | None = Field(description="Lower confidence bound of beyond_placebo.")
    upper: float | None = Field(description="Upper confidence bound of beyond_placebo.")
    n_items: int = Field(description="Items with every verdict the probe needs.")


class BiasResults(FrozenModel):
    """The bias battery (``pathjudge bias --json``) a certificate holds."""

    passed: bool = Field(description="No must-pass probe failed or erred (always true here).")
    tolerance: float = Field(description="The flip rate beyond placebo a must-pass probe may show.")
    confidence: float
    note: str = Field(
        default="measured on single judge calls (the placebo is a second sample), whatever the "
        "certified sample count",
        description="What the battery measured.",
    )
    probes: tuple[BiasProbeResult, ...]


class Certificate(FrozenModel):
    """One judge configuration's certificate (see the module docstring and docs/reference/certificate.md)."""

    schema_version: Literal[1] = CERTIFICATE_SCHEMA_VERSION
    kind: Literal["pathjudge.certificate"] = "pathjudge.certificate"
    judge: JudgeIdentity = Field(description="The certified judge configuration.")
    labels_hash: str = Field(description="Content hash of the criterion's labels and their splits.")
    split_hashes: dict[str, str] = Field(
        description="Content hash of each split's labelled items (train, dev, test)."
    )
    evaluated_split: Split | None = Field(description="The split the gates were measured on.")
    n_evaluated: int = Field(description="Labelled items in the evaluated split.")
    test_reused: bool = Field(
        description="True when a changed configuration was evaluated on an already used test "
        "split (--reuse-test)."
    )
    confidence: float = Field(description="Confidence level of every bound.")
    gates: Gates = Field(description="The gate thresholds.")
    gate_results: tuple[GateResult, ...] = Field(
        description="Each gate: the confidence bound compared, the threshold, passed."
    )
    bias: BiasResults | None = Field(
        default=None, description="The bias battery's results (None: no bias battery was run)."
    )
    issued_at: str = Field(description="When the certificate was written (UTC, ISO 8601).")
    pathjudge_version: str = Field(description="The pathjudge that wrote it.")
    seal: str = Field(description="sha256 of the canonical JSON of every other field.")

    @model_validator(mode="before")
    @classmethod
    def _migrate(cls, data: object) -> object:
        """The first certificates wrote ``"bias": []`` for "not run"."""
        if isinstance(data, dict) and data.get("bias") == []:
            return {**data, "bias": None}
        return data

    @property
    def issued_on(self) -> str:
        """The date part of :attr:`issued_at` (``2026-05-01``)."""
        return self.issued_at[:10]


def seal_of(fields: Mapping[str, object]) -> str:
    """``sha256:`` + hex sha256 of the canonical JSON of ``fields`` without ``seal``."""
    body = {key: value for key, value in fields.items() if key != "seal"}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def sealed(certificate_fields: Mapping[str, object]) -> Certificate:
    """A :class:`Certificate` from its fields (JSON form, without ``seal``), sealed."""
    unsealed = Certificate.model_validate({**certificate_fields, "seal": ""})
    body = unsealed.model_dump(mode="json")
    return unsealed.model_copy(update={"seal": seal_of(body)})


def issue_certificate(
    *,
    judge: JudgeIdentity,
    labels_hash: str,
    split_hashes: Mapping[str, str],
    evaluated_split: Split | None,
    n_evaluated: int,
    test_reused: bool,
    confidence: float,
    gates: Gates,
    gate_results: tuple[GateResult, ...],
    bias: BiasResults | None = None,
    now: datetime | None = None,
) -> Certificate:
    """A sealed certificate dated ``now`` (default: the current UTC time)."""
    from pathjudge import __version__

    when = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return sealed(
        {
            "judge": judge.model_dump(mode="json"),
            "labels_hash": labels_hash,
            "split_hashes": dict(split_hashes),
            "evaluated_split": evaluated_split,
            "n_evaluated": n_evaluated,
            "test_reused": test_reused,
            "confidence": confidence,
            "gates": gates.model_dump(mode="json"),
            "gate_results": [g.model_dump(mode="json") for g in gate_results],
            "bias": bias.model_dump(mode="json") if bias is not None else None,
            "issued_at": when,
            "pathjudge_version": __version__,
        }
    )


def write_certificate(path: Path, certificate: Certificate) -> Path:
    """Write ``certificate`` atomically as indented JSON."""
    return write_text_atomic(path, certificate.model_dump_json(indent=2) + "\n")


def read_certificate(path: Path) -> Certificate:
    """The certificate at ``path``; malformed, or its seal not matching its content (tampered), is a
    :class:`CertificateError`."""
    certificate = read_document(path, Certificate, what="judge certificate", error=CertificateError)
    if seal_of(certificate.model_dump(mode="json")) != certificate.seal:
        raise CertificateError(
            "the certificate's content hash does not match its seal: it was edited after "
            "pathjudge wrote it",
            file=path,
            field="seal",
            hint="certify the judge again with pathjudge calibrate --certify FILE; never edit a "
            "certificate",
        )
    return certificate


def _bounds_text(results: tuple[GateResult, ...]) -> str:
    parts = []
    for gate in results:
        if gate.bound is None:
            continue
        sign = "<=" if gate.name.startswith("max_") or gate.name == "unsure" else ">="
        parts.append(f"{gate.name} {sign} {gate.bound:.2f}")
    return ", ".join(parts)


def certify_judge(certificate: Certificate, running: JudgeIdentity, *, file: Path) -> Certification:
    """Compare the running judge with ``certificate``: certified when every identity field is the
    same, else uncertified with one line naming what changed (the certificate is void)."""
    changes = identity_changes(certificate.judge, running)
    if changes:
        return Certification(
            criterion=running.criterion_id,
            status="uncertified",
            reason=f"certificate {file} void: {'; '.join(changes)}",
            certificate=str(file),
        )
    reused = "; test split reused" if certificate.test_reused else ""
    bias = "not run" if certificate.bias is None else "passed"
    return Certification(
        criterion=running.criterion_id,
        status="certified",
        reason=f"{certificate.issued_on}, {certificate.confidence:.0%} bounds "
        f"{_bounds_text(certificate.gate_results)}{reused}; bias {bias}",
        certificate=str(file),
        issued_at=certificate.issued_at,
        bounds={gate.name: gate.bound for gate in certificate.gate_results},
        test_reused=certificate.test_reused,
        bias=bias,
    )


def bias_results(
    report: BiasReport, *, judge: JudgeIdentity, labels_hash: str, file: Path
) -> BiasResults:
    """The per-probe results of the bias battery ``report`` (read from ``file``) for the
    certificate of ``judge`` on labels hashed ``labels_hash``
    (:func:`~pathjudge.calibration.splits.split_hash` over every split).

    A battery of another judge configuration or on other labels is a :class:`CertificateError`
    naming what differs. The sample count is not compared: the battery judges single calls (its
    placebo is a second sample), which is what it measures for any sample count. A battery whose
    must-pass probe failed is returned with ``passed`` False: the caller refuses to certify.
    """
    changes = identity_changes(report.judge, judge, ignore=("samples",))
    if report.labels_hash != labels_hash:
        changes.append(
            f"labels differ (the battery ran on {report.labels_hash}, these are {labels_hash})"
        )
    if changes:
        raise CertificateError(
            f"the bias battery was run on another judge or other labels: {'; '.join(changes)}",
            file=file,
            field="--bias",
            hint="rerun pathjudge bias --json FILE with the same criterion, judge options and "
            "--labels as this calibrate",
        )
    return BiasResults(
        passed=report.passed,
        tolerance=report.tolerance,
        confidence=report.confidence,
        probes=tuple(
            BiasProbeResult(
                probe=p.probe,
                must_pass=p.must_pass,
                status=p.status,
                beyond_placebo=p.beyond_placebo.value if p.beyond_placebo else None,
                lower=p.beyond_placebo.lower if p.beyond_placebo else None,
                upper=p.beyond_placebo.upper if p.beyond_placebo else None,
                n_items=p.n_items,
            )
            for p in report.probes
        ),
    )


def require_certified(certifications: tuple[Certification, ...] | list[Certification]) -> None:
    """``--require-certified``: a :class:`CertificateError` (exit 2) naming the first uncertified
    judged criterion, if any."""
    for one in certifications:
        if one.status != "certified":
            raise CertificateError(
                f"the judge of criterion {one.criterion!r} is {one.label}",
                field="--require-certified",
                hint="certify this judge configuration with pathjudge calibrate --certify FILE "
                "and pass it with --certificate FILE, or drop --require-certified",
            )


def certifications_for(
    certificates: Mapping[Path, Certificate], running: Sequence[JudgeIdentity]
) -> tuple[Certification, ...]:
    """The label of each running judge (one per judged criterion, in order): certified by the
    certificate for its criterion, void when that certificate names another configuration, and
    uncertified (no certificate) when none is for its criterion. A certificate for a criterion no
    running judge judges is a :class:`CertificateError` (a typo'd certificate must not pass silently);
    so are two certificates for one criterion."""
    by_criterion: dict[str, tuple[Path, Certificate]] = {}
    judged = {identity.criterion_id for identity in running}
    one_to_one = len(running) == 1 and len(certificates) == 1
    for path, certificate in certificates.items():
        name = certificate.judge.criterion_id
        if name in by_criterion:
            raise CertificateError(
                f"two certificates for criterion {name!r}: {by_criterion[name][0]} and {path}",
                file=path,
                field="--certificate",
                hint="pass one certificate per judged criterion",
            )
        if name not in judged and not one_to_one:
            raise CertificateError(
                f"the certificate is for criterion {name!r}, which this run does not judge "
                f"(judged: {', '.join(sorted(judged)) or 'none'})",
                file=path,
                field="--certificate",
                hint="pass the certificate of a criterion this run judges",
            )
        by_criterion[name] = (path, certificate)
    if one_to_one:
        # one judge, one certificate: a different criterion voids it (and says so)
        path, certificate = next(iter(by_criterion.values()))
        return (certify_judge(certificate, running[0], file=path),)
    out = []
    for identity in running:
        found = by_criterion.get(identity.criterion_id)
        out.append(
            uncertified(identity.criterion_id)
            if found is None
            else certify_judge(found[1], identity, file=found[0])
        )
    return tuple(out)


def certificate_for(
    crit: CriterionCalibration,
    *,
    labels: LabelSet,
    key: str | None,
    judge: JudgeIdentity,
    confidence: float,
    gates: Gates,
    test_reused: bool,
    bias: BiasResults | None = None,
    now: datetime | None = None,
) -> Certificate:
    """The certificate of a TRUSTED calibration ``crit`` of ``judge`` (labels of criterion ``key``)
    with the bias battery's results ``bias`` (None: not run).

    A calibration that missed a gate, or a bias battery that failed, gets no certificate:
    :class:`CertificateError`.
    """
    from pathjudge.calibration.splits import SPLITS, labels_hash, split_hash

    if not crit.trust.trusted:
        raise CertificateError(
            f"no certificate written: the judge is NOT TRUSTED on criterion {judge.criterion_id!r} "
            f"({crit.trust.reason})",
            field="--certify",
            hint="improve the judge on train/dev (pathjudge align), then evaluate it once on test",
        )
    if bias is not None and not bias.passed:
        raise CertificateError(
            f"no certificate written: the bias battery failed ({failed_probes(bias)})",
            field="--bias",
            hint="fix the judge's bias (pathjudge bias shows how), then run the battery again",
        )
    return issue_certificate(
        judge=judge,
        labels_hash=labels_hash(labels, key),
        split_hashes={split: split_hash(labels, key, split) for split in SPLITS},
        evaluated_split=crit.split,
        n_evaluated=crit.n_labelled,
        test_reused=test_reused,
        confidence=confidence,
        gates=gates,
        gate_results=crit.trust.gates,
        bias=bias,
        now=now,
    )


def failed_probes(bias: BiasResults) -> str:
    """The must-pass probes that failed the battery, with their numbers, in one phrase."""
    return ", ".join(
        f"{p.probe}: {p.status}"
        + (f" {p.beyond_placebo:+.3f} beyond placebo" if p.beyond_placebo is not None else "")
        for p in bias.probes
        if p.must_pass and p.status in ("fail", "error")
    )
