"""The ``--certificate FILE`` and ``--require-certified`` options of ``pathjudge judge`` and ``score``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from pathjudge.calibration.certificate import Certificate
    from pathjudge.judge.identity import Certification

__all__ = ["CertificateOption", "RequireCertifiedOption", "checked", "read_certificates"]

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


def read_certificates(paths: Sequence[Path] | None) -> dict[Path, Certificate]:
    """The certificates of ``--certificate``, each read and its seal checked (none given: the
    certificate module is not even imported, for a fast start)."""
    if not paths:
        return {}
    from pathjudge.calibration.certificate import read_certificate

    return {path: read_certificate(path) for path in paths or ()}


def checked(labels: tuple[Certification, ...], *, require: bool) -> tuple[Certification, ...]:
    """``labels``; with ``require`` (``--require-certified``), an uncertified one is a
    :class:`~pathjudge.errors.CertificateError` (exit 2)."""
    if require:
        from pathjudge.calibration.certificate import require_certified

        require_certified(labels)
    return labels
