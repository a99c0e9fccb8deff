"""Which judged rates of a score are certified: the suite's judged criteria against certificates.

:func:`suite_certifications` gives one :class:`~pathjudge.judge.identity.Certification` per judged
criterion of a suite (keyed by the suite's criterion reference, in suite order): the judge session
that would judge it, compared with the certificate for its criterion
(:func:`pathjudge.calibration.certificate.certifications_for`). :func:`for_source` then withdraws a
certification where no live judge produced the verdicts: recorded verdicts are ``uncertified`` (a
certificate vouches for a judge configuration that runs here, not for a file of verdicts), and a
rate no judge ran for is ``not judged`` with the precise reason (``--fast``, no judge configured).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pathjudge.judge.identity import Certification, judge_identity, not_judged, uncertified
from pathjudge.rubrics.criteria import suite_criterion

if TYPE_CHECKING:
    from pathjudge.calibration.certificate import Certificate
    from pathjudge.judge.session import JudgeSession
    from pathjudge.rubrics.suite import Suite

__all__ = ["for_source", "labelled", "suite_certifications"]


def _judged_refs(suite: Suite) -> list[str]:
    refs: dict[str, None] = {}
    for task in suite.tasks:
        for spec in task.judged:
            refs.setdefault(spec.criterion, None)
    return list(refs)


def labelled(
    certifications: Sequence[Certification] | None, suite: Suite, source: str, note: str | None
) -> tuple[Certification, ...]:
    """The labels of a score's judged rates: ``certifications`` of the live judge (None: every
    judged criterion of ``suite`` uncertified, no certificate given), as :func:`for_source` leaves
    them once the verdicts' ``source`` is known."""
    given = (
        tuple(certifications)
        if certifications is not None
        else tuple(uncertified(ref) for ref in _judged_refs(suite))
    )
    return for_source(given, source, note)


def suite_certifications(
    suite: Suite,
    session: JudgeSession | None,
    certificates: Mapping[Path, Certificate],
    *,
    base_dir: Path,
) -> tuple[Certification, ...]:
    """One certification per judged criterion of ``suite`` (empty when it judges nothing).

    ``session`` None (nothing is judged live): every criterion is uncertified.
    """
    refs = _judged_refs(suite)
    if session is None:
        return tuple(uncertified(ref, "no judge runs here") for ref in refs)
    if not certificates:
        return tuple(uncertified(ref) for ref in refs)
    from pathjudge.calibration.certificate import certifications_for

    running = [judge_identity(suite_criterion(ref, base_dir), session) for ref in refs]
    found = certifications_for(certificates, running)
    return tuple(
        one.model_copy(update={"criterion": ref}) for ref, one in zip(refs, found, strict=True)
    )


_NOT_RUN = "judged criteria: not run ("


def _why_not_judged(source: str, note: str | None) -> str:
    """Why no judge ran: ``--fast``, or what the score's judge note says (``note`` is
    :attr:`~pathjudge.scoring.pipeline.ScoreReport.judge_note`, ``judged criteria: not run (why)``)."""
    if source == "fast":
        return "--fast"
    if note is not None and note.startswith(_NOT_RUN) and note.endswith(")"):
        return note[len(_NOT_RUN) : -1]
    return "no judge ran"


def for_source(
    certifications: tuple[Certification, ...], source: str, note: str | None = None
) -> tuple[Certification, ...]:
    """``certifications`` as they stand once the verdicts' ``source`` (and the score's judge
    ``note``) is known: only verdicts of the live judge (``judge``) keep a certification; recorded
    verdicts are uncertified; with no judge run (``fast``, ``none``) every rate is ``not judged``,
    saying why."""
    if source == "judge":
        return certifications
    if source == "verdicts":
        why = "recorded verdicts: a certificate vouches for a judge that runs here"
        return tuple(
            one
            if one.status == "uncertified" and one.certificate is None
            else uncertified(one.criterion, why)
            for one in certifications
        )
    reason = _why_not_judged(source, note)
    return tuple(not_judged(one.criterion, reason) for one in certifications)
