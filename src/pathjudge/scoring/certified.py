"""Which judged rates of a score are certified: the suite's judged criteria against certificates.

:func:`suite_certifications` gives one :class:`~pathjudge.judge.identity.Certification` per judged
criterion of a suite (keyed by the suite's criterion reference, in suite order): the judge session
that would judge it, compared with the certificate for its criterion
(:func:`pathjudge.calibration.certificate.certifications_for`). :func:`for_source` then withdraws a
certification where no live judge produced the verdicts (recorded verdicts, fast mode, no judge):
a certificate vouches for a judge configuration that runs here, not for a file of verdicts.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from pathjudge.judge.identity import Certification, judge_identity, uncertified
from pathjudge.rubrics.criteria import suite_criterion

if TYPE_CHECKING:
    from pathjudge.calibration.certificate import Certificate
    from pathjudge.judge.session import JudgeSession
    from pathjudge.rubrics.suite import Suite

__all__ = ["for_source", "suite_certifications"]


def _judged_refs(suite: Suite) -> list[str]:
    refs: dict[str, None] = {}
    for task in suite.tasks:
        for spec in task.judged:
            refs.setdefault(spec.criterion, None)
    return list(refs)


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
    from pathjudge.calibration.certificate import certifications_for

    refs = _judged_refs(suite)
    if session is None:
        return tuple(uncertified(ref, "no judge runs here") for ref in refs)
    running = [judge_identity(suite_criterion(ref, base_dir), session) for ref in refs]
    found = certifications_for(certificates, running)
    return tuple(
        one.model_copy(update={"criterion": ref}) for ref, one in zip(refs, found, strict=True)
    )


def for_source(certifications: tuple[Certification, ...], source: str) -> tuple[Certification, ...]:
    """``certifications`` as they stand once the verdicts' ``source`` is known: only verdicts of the
    live judge (``judge``) keep a certification."""
    if source == "judge":
        return certifications
    why = {
        "verdicts": "recorded verdicts: a certificate vouches for a judge that runs here",
        "fast": "fast mode: not judged",
        "none": "no judge ran",
    }.get(source, "no judge ran")
    return tuple(
        one
        if one.status == "uncertified" and one.certificate is None
        else uncertified(one.criterion, why)
        for one in certifications
    )
