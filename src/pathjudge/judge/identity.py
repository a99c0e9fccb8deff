"""A judge configuration's identity: everything that decides what verdicts a judge gives.

:func:`judge_identity` is the one place that says which settings make two judges "the same judge"
for a certificate (:mod:`pathjudge.calibration.certificate`), for the test-split ledger
(:mod:`pathjudge.calibration.ledger`) and for any other check that must notice a changed judge:

- the criterion: id, declared version and content hash (any edit to its text or examples);
- the backend (``anthropic``, ``openai-compatible``, ``llama-cpp``) and the model the backend calls
  (its default filled in; for ``llama-cpp`` the GGUF file's name, not the folder it sits in);
- the samples per item (the majority vote of 1 sample and of 5 are different judges);
- the temperature, where the backend sets one (none of pathjudge's judge backends sets one yet, so
  it is ``None``: the provider's default);
- :data:`~pathjudge.judge.prompt.PROMPT_TEMPLATE_VERSION`, the fixed instructions around the criterion.

The server's base URL is deliberately NOT part of the identity: it says where the model is reached
(a gateway, a proxy, another region, a local mirror, the fake server in tests), not which model
answers, and a CI job that reaches the same model through a different address runs the same judge.
For an OpenAI-compatible server whose model name says nothing (the default ``local``), name the
model with ``--model`` so that a different model behind the same URL is a different identity.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from pathjudge._records import FrozenModel
from pathjudge.judge.prompt import PROMPT_TEMPLATE_VERSION

if TYPE_CHECKING:
    from pathjudge.judge.session import JudgeSession
    from pathjudge.rubrics.criteria import Criterion

__all__ = [
    "Certification",
    "JudgeIdentity",
    "effective_model",
    "identity_changes",
    "identity_of",
    "judge_identity",
    "not_judged",
    "uncertified",
]

# the models each backend falls back to (make_judge_backend's defaults), without importing the SDKs
_DEFAULT_MODELS = {"anthropic": "claude-opus-4-8", "openai-compatible": "local"}


class JudgeIdentity(FrozenModel):
    """What makes a judge configuration the judge it is (see the module docstring)."""

    criterion_id: str = Field(description="The judged criterion's id.")
    criterion_version: str = Field(description="Its declared version.")
    criterion_hash: str = Field(description="Its content hash (any edit changes it).")
    backend: str = Field(description="anthropic, openai-compatible or llama-cpp.")
    model: str = Field(description="The model the backend calls (llama-cpp: the GGUF file name).")
    samples: int = Field(ge=1, description="Judge samples per item (majority vote).")
    temperature: float | None = Field(
        default=None, description="Sampling temperature, where the backend sets one; else None."
    )
    prompt_template_version: int = Field(
        description="pathjudge's prompt template version (PROMPT_TEMPLATE_VERSION)."
    )

    def judging(self, criterion: Criterion) -> JudgeIdentity:
        """This judge configuration with ``criterion`` (another wording, other examples) in place
        of its own."""
        return self.model_copy(
            update={
                "criterion_id": criterion.id,
                "criterion_version": criterion.version,
                "criterion_hash": criterion.content_hash,
            }
        )

    @property
    def digest(self) -> str:
        """``sha256:`` + 24 hex digits of the canonical JSON of every field."""
        canonical = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:24]


def effective_model(backend: str, model: str | None) -> str:
    """The model ``backend`` calls when configured with ``model`` (None: the backend's default).

    >>> effective_model("anthropic", None)
    'claude-opus-4-8'
    >>> effective_model("llama-cpp", "/models/SmolLM2-135M.gguf")
    'SmolLM2-135M.gguf'
    """
    if backend == "llama-cpp":
        return Path(model).name if model else ""
    return model or _DEFAULT_MODELS.get(backend, "")


def judge_identity(
    criterion: Criterion, session: JudgeSession, *, temperature: float | None = None
) -> JudgeIdentity:
    """The identity of ``session`` judging ``criterion`` (see the module docstring)."""
    return identity_of(
        criterion,
        backend=session.backend,
        model=session.model,
        samples=session.samples,
        temperature=temperature,
    )


def identity_of(
    criterion: Criterion,
    *,
    backend: str,
    model: str | None,
    samples: int,
    temperature: float | None = None,
) -> JudgeIdentity:
    """The identity of a ``backend`` judge calling ``model`` (None: the backend's default) with
    ``samples`` per item on ``criterion``: :func:`judge_identity` without a session."""
    return JudgeIdentity(
        criterion_id=criterion.id,
        criterion_version=criterion.version,
        criterion_hash=criterion.content_hash,
        backend=backend,
        model=effective_model(backend, model),
        samples=samples,
        temperature=temperature,
        prompt_template_version=PROMPT_TEMPLATE_VERSION,
    )


_WHAT = {
    "criterion_id": "criterion",
    "criterion_version": "criterion version",
    "criterion_hash": "criterion text (content hash)",
    "backend": "backend",
    "model": "model",
    "samples": "sample count",
    "temperature": "temperature",
    "prompt_template_version": "prompt template version",
}


def identity_changes(
    before: JudgeIdentity, now: JudgeIdentity, *, ignore: tuple[str, ...] = ()
) -> list[str]:
    """What differs from ``before`` to ``now``, one phrase each, in field order (empty: the same);
    the fields named in ``ignore`` are not compared.

    >>> a = JudgeIdentity(criterion_id="c", criterion_version="1", criterion_hash="h", backend="anthropic",
    ...                   model="m1", samples=1, prompt_template_version=1)
    >>> identity_changes(a, a.model_copy(update={"model": "m2", "samples": 3}))
    ["model changed from 'm1' to 'm2'", 'sample count changed from 1 to 3']
    """
    changes = []
    for name, what in _WHAT.items():
        if name in ignore:
            continue
        old, new = getattr(before, name), getattr(now, name)
        if old != new:
            changes.append(f"{what} changed from {old!r} to {new!r}")
    return changes


CertificationStatus = Literal["certified", "uncertified", "not judged"]


class Certification(FrozenModel):
    """How far one judged rate can be trusted: certified (by which certificate, when, with which
    bounds), uncertified (and why), or not judged (no judge ran for it here, and why: ``--fast``, no
    judge configured). Every report shows one beside each judged rate; the certificate behind it
    is :class:`pathjudge.calibration.certificate.Certificate`."""

    criterion: str = Field(description="The judged criterion.")
    status: CertificationStatus
    reason: str = Field(description="Why: the certificate's date and bounds, or what voided it.")
    certificate: str | None = Field(default=None, description="The certificate file, when given.")
    issued_at: str | None = Field(default=None, description="When the certificate was written.")
    bounds: dict[str, float | None] = Field(
        default_factory=dict, description="Each gate's confidence bound, by gate name."
    )
    test_reused: bool = Field(default=False, description="The certificate's test split was reused.")
    bias: Literal["passed", "not run"] | None = Field(
        default=None,
        description="Certified only: whether the certificate holds a passed bias battery "
        "(pathjudge bias) or none was run.",
    )

    @property
    def label(self) -> str:
        """``certified (2026-05-01, 95% bounds TPR >= 0.82, ...)``, ``uncertified (why)`` or
        ``not judged (why)``: what reports print beside a judged rate."""
        return f"{self.status} ({self.reason})"


def uncertified(criterion: str, reason: str = "no certificate") -> Certification:
    """The label of a judged rate with no certificate, or a void one (``reason``)."""
    return Certification(criterion=criterion, status="uncertified", reason=reason)


def not_judged(criterion: str, why: str) -> Certification:
    """The label of a judged rate no judge ran for here (``why``: ``--fast``, no judge configured)."""
    return Certification(criterion=criterion, status="not judged", reason=why)
