"""The ``--certificate FILE`` and ``--require-certified`` options of ``pathjudge judge`` and ``score``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from pathjudge.judge.identity import Certification, JudgeIdentity

__all__ = ["CertificateOption", "RequireCertifiedOption", "certifications"]

CertificateOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--certificate",
        help="A judge certificate from pathjudge calibrate --certify (repeat for several "
        "criteria): judged rates are labelled certified when the judge is the certified one.",
    ),
]
RequireCertifiedOption = Annotated[
    bool,
    typer.Option(
        "--require-certified",
        help="Exit 2, before judging, unless every judged criterion has a valid certificate.",
    ),
]


def certifications(
    paths: Sequence[Path] | None, running: Sequence[JudgeIdentity], *, require: bool
) -> tuple[Certification, ...]:
    """Each running judge's certification (see
    :func:`pathjudge.calibration.certificate.certifications_for`); with ``require``, an uncertified
    one is a :class:`~pathjudge.errors.CertificateError` (exit 2)."""
    from pathjudge.calibration.certificate import (
        certifications_for,
        read_certificate,
        require_certified,
    )

    found = {path: read_certificate(path) for path in paths or ()}
    labels = certifications_for(found, running)
    if require:
        require_certified(labels)
    return labels
