"""One honest evaluation of a live judge: its identity, the test-split ledger, its certificate.

What ``pathjudge calibrate`` does around a live judge run, as a library object:

1. :meth:`HonestTest.start` (before anything is judged) computes the judge's
   :class:`~pathjudge.judge.identity.JudgeIdentity`; on ``--split test`` it records the test split in
   the ledger (:func:`~pathjudge.calibration.ledger.use_test_split`), which refuses a changed
   configuration unless ``reuse_test``; ``certify`` requires the test split and no group in two
   splits;
2. :meth:`HonestTest.noted` writes a reused test split into the report's notes, so every rendering
   of the report (terminal, JSON, HTML) says so;
3. :meth:`HonestTest.certify` writes the certificate of a TRUSTED judge
   (:mod:`pathjudge.calibration.certificate`).
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
    from pathjudge.calibration.ledger import SplitUse
    from pathjudge.judge.session import JudgeSession

__all__ = ["HonestTest"]


@dataclass(frozen=True)
class HonestTest:
    """A live judge's identity on one criterion's labels, and its use of the test split."""

    identity: JudgeIdentity
    key: str | None
    """The criterion's name in the labels (None: the labels name no criterion)."""
    use: SplitUse | None
    """The test split's ledger record (None: the test split is not evaluated)."""

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
    ) -> HonestTest:
        """Check and record the evaluation before anything is judged (see the module docstring)."""
        from pathjudge.calibration.ledger import use_test_split
        from pathjudge.calibration.splits import check_group_splits, split_hash
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
        if certify:
            check_group_splits(labels.items(key), file=labels.file)
        use = None
        if split == "test":
            use = use_test_split(
                ledger,
                split_hash(labels, key, "test"),
                identity,
                criterion=identity.criterion_id,
                reuse_test=reuse_test,
            )
        return cls(identity=identity, key=key, use=use)

    def noted(self, report: CalibrationReport) -> CalibrationReport:
        """``report`` with a note on each criterion when the test split was reused."""
        if self.use is None or not self.use.reused:
            return report
        note = (
            "test split reused (--reuse-test): this judge configuration differs from the one "
            f"first evaluated on it ({'; '.join(self.use.changes)}), so the test statistics may "
            "be optimistic"
        )
        criteria = tuple(
            crit.model_copy(update={"notes": (*crit.notes, note)}) for crit in report.criteria
        )
        return report.model_copy(update={"criteria": criteria})

    def certify(self, report: CalibrationReport, labels: LabelSet, path: Path) -> str:
        """Write the certificate of the (single) criterion in ``report`` to ``path`` when it is
        trusted; what was done, in one line."""
        from pathjudge.calibration.certificate import certificate_for, write_certificate

        crit = report.criteria[0]
        if not crit.trust.trusted:
            return f"no certificate written to {path}: the judge is NOT TRUSTED"
        failed = [one.name for one in crit.slices if one.status == "not trusted"]
        if failed:
            return (
                f"no certificate written to {path}: slice(s) {', '.join(failed)} fail their gates"
            )
        certificate = certificate_for(
            crit,
            labels=labels,
            key=self.key,
            judge=self.identity,
            confidence=report.confidence,
            gates=report.gates,
            test_reused=self.use is not None and self.use.reused,
        )
        write_certificate(path, certificate)
        return f"wrote certificate {path} (seal {certificate.seal[:19]}…)"
