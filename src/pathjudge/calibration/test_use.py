"""One honest evaluation of a live judge: its identity, the test-split ledger, its certificate.

What ``pathjudge calibrate`` does around a live judge run, as a library object:

1. :meth:`HonestTest.start` (before anything is judged) computes the judge's
   :class:`~pathjudge.judge.identity.JudgeIdentity`; on ``--split test`` it records the test split in
   the ledger (:func:`~pathjudge.calibration.ledger.use_test_split`), which refuses a changed
   configuration unless ``reuse_test``; ``certify`` requires the test split and no group in two
   splits; a bias battery (``--bias BIAS.json``) is read and checked against the judge and the
   labels (:func:`~pathjudge.calibration.certificate.bias_results`);
2. :meth:`HonestTest.noted` writes a reused test split into the report's notes, so every rendering
   of the report (terminal, JSON, HTML) says so;
3. :meth:`HonestTest.certify` writes the certificate of a TRUSTED judge whose bias battery, when
   given, passed (:mod:`pathjudge.calibration.certificate`).

:func:`record_test_use` is step 1's ledger record alone, for any evaluation on test
(``pathjudge align``'s one test evaluation too), and :func:`reuse_note` the note a reused test
split adds to every report.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pathjudge.calibration.labels import LabelSet, Split
from pathjudge.errors import CertificateError
from pathjudge.judge.identity import JudgeIdentity, judge_identity

if TYPE_CHECKING:
    from pathjudge.calibration.calibrate import CalibrationReport
    from pathjudge.calibration.certificate import BiasResults
    from pathjudge.calibration.ledger import SplitUse
    from pathjudge.judge.session import JudgeSession

__all__ = ["HonestTest", "record_test_use", "reuse_note"]


def record_test_use(
    labels: LabelSet,
    key: str | None,
    identity: JudgeIdentity,
    *,
    ledger: Path,
    reuse_test: bool,
) -> SplitUse:
    """Record in ``ledger`` that ``identity`` is evaluated on the test split of criterion ``key``
    (see :func:`~pathjudge.calibration.ledger.use_test_split`: a changed configuration on a used
    test split is a :class:`CertificateError` unless ``reuse_test``)."""
    from pathjudge.calibration.ledger import use_test_split
    from pathjudge.calibration.splits import split_hash

    return use_test_split(
        ledger,
        split_hash(labels, key, "test"),
        identity,
        criterion=identity.criterion_id,
        reuse_test=reuse_test,
    )


def reuse_note(use: SplitUse | None) -> str | None:
    """The note every report of an evaluation that reused its test split carries (None: not reused)."""
    if use is None or not use.reused:
        return None
    return (
        "test split reused (--reuse-test): this judge configuration differs from the one "
        f"first evaluated on it ({'; '.join(use.changes)}), so the test statistics may "
        "be optimistic"
    )


@dataclass(frozen=True)
class HonestTest:
    """A live judge's identity on one criterion's labels, and its use of the test split."""

    identity: JudgeIdentity
    key: str | None
    """The criterion's name in the labels (None: the labels name no criterion)."""
    use: SplitUse | None
    """The test split's ledger record (None: the test split is not evaluated)."""
    bias: BiasResults | None = None
    """The bias battery's results, checked against this judge and labels (None: not given)."""

    @classmethod
    def start(
        cls,
        labels: LabelSet,
        criterion: str,
        session: JudgeSession,
        split: Split | None,
        *,
        ledger: Path,
        certify: bool,
        reuse_test: bool,
        bias: Path | None = None,
    ) -> HonestTest:
        """Check and record the evaluation before anything is judged (see the module docstring)."""
        from pathjudge.calibration.splits import check_group_splits
        from pathjudge.rubrics.criteria import get_criterion

        identity = judge_identity(get_criterion(criterion), session)
        key = criterion if criterion in labels.criteria else None
        if split != "test" and (certify or reuse_test):
            flag = "--certify" if certify else "--reuse-test"
            raise CertificateError(
                f"{flag} goes with --split test: a judge is certified on its held-out test split",
                field=flag,
                hint="add --split test (give the labels splits, or add --assign-splits)",
            )
        if bias is not None and not certify:
            raise CertificateError(
                "--bias goes with --certify: it puts a bias battery's results into the certificate",
                field="--bias",
                hint="add --certify FILE (and --split test), or drop --bias",
            )
        if certify:
            check_group_splits(labels.items(key), file=labels.file)
        checked = _read_bias(bias, identity, labels, key) if bias is not None else None
        use = None
        if split == "test":
            use = record_test_use(labels, key, identity, ledger=ledger, reuse_test=reuse_test)
        return cls(identity=identity, key=key, use=use, bias=checked)

    def noted(self, report: CalibrationReport) -> CalibrationReport:
        """``report`` with a note on each criterion when the test split was reused."""
        note = reuse_note(self.use)
        if note is None:
            return report
        criteria = tuple(
            crit.model_copy(update={"notes": (*crit.notes, note)}) for crit in report.criteria
        )
        return report.model_copy(update={"criteria": criteria})

    def certify(self, report: CalibrationReport, labels: LabelSet, path: Path) -> tuple[bool, str]:
        """Write the certificate of the (single) criterion in ``report`` to ``path`` when it is
        trusted and its bias battery (if given) passed; whether it was written, and what was done
        in one line. Without a bias battery the certificate says ``bias: not run``."""
        from pathjudge.calibration.certificate import (
            certificate_for,
            failed_probes,
            write_certificate,
        )

        crit = report.criteria[0]
        if not crit.trust.trusted:
            return False, f"no certificate written to {path}: the judge is NOT TRUSTED"
        failed = [one.name for one in crit.slices if one.status == "not trusted"]
        if failed:
            return False, (
                f"no certificate written to {path}: slice(s) {', '.join(failed)} fail their gates"
            )
        if self.bias is not None and not self.bias.passed:
            return False, (
                f"no certificate written to {path}: the bias battery failed "
                f"({failed_probes(self.bias)})"
            )
        certificate = certificate_for(
            crit,
            labels=labels,
            key=self.key,
            judge=self.identity,
            confidence=report.confidence,
            gates=report.gates,
            test_reused=self.use is not None and self.use.reused,
            bias=self.bias,
        )
        write_certificate(path, certificate)
        bias = "" if self.bias is not None else "; bias: not run (add --bias BIAS.json)"
        return True, f"wrote certificate {path} (seal {certificate.seal[:19]}…){bias}"


def _read_bias(
    path: Path, identity: JudgeIdentity, labels: LabelSet, key: str | None
) -> BiasResults:
    """The bias battery of ``path`` (``pathjudge bias --json``), checked against the judge and labels."""
    from pathjudge.calibration._document import read_document
    from pathjudge.calibration.bias import BiasReport
    from pathjudge.calibration.certificate import bias_results
    from pathjudge.calibration.splits import split_hash

    report = read_document(path, BiasReport, what="bias battery report", error=CertificateError)
    return bias_results(
        report, judge=identity, labels_hash=split_hash(labels, key, None), file=path
    )
