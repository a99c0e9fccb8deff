"""The test-split ledger: a test split is used once per judge configuration.

Tuning a judge on the split that measures it makes the measurement a lie. So the first time a judge
configuration (:class:`~pathjudge.judge.identity.JudgeIdentity`) is evaluated on a test split, the
ledger records that split's content hash (:func:`~pathjudge.calibration.splits.split_hash`) with the
configuration. Evaluating the same configuration again is fine (a rerun, served by the verdict
cache); evaluating a *changed* configuration on the same test split is refused
(:class:`~pathjudge.errors.CertificateError`, exit 2, one line naming what changed) unless the
caller passes ``reuse_test`` (``--reuse-test``), which is recorded in the ledger and returned so
that every report of the run says the test split was reused. New labels make a new test split, with
a fresh hash, which any configuration may use once.

The ledger is a JSON file beside the verdict cache (:func:`ledger_path`: ``.pathjudge/test-ledger.json``
by default), rewritten atomically on every change, so a crash leaves the old ledger intact.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import Field

from pathjudge._io import write_text_atomic
from pathjudge._records import FrozenModel
from pathjudge.calibration._document import read_document
from pathjudge.errors import CertificateError
from pathjudge.judge.identity import JudgeIdentity, identity_changes

__all__ = ["LEDGER_NAME", "LedgerEntry", "SplitLedger", "SplitUse", "ledger_path", "use_test_split"]

LEDGER_NAME = "test-ledger.json"


class LedgerEntry(FrozenModel):
    """The configuration that first used a test split, and those that reused it since."""

    criterion: str | None = Field(description="The criterion the test split belongs to.")
    first: JudgeIdentity = Field(description="The configuration that used the test split first.")
    first_at: str = Field(description="When (UTC, ISO 8601).")
    reused_by: tuple[JudgeIdentity, ...] = Field(
        default=(), description="Changed configurations evaluated on it with --reuse-test."
    )


class SplitLedger(FrozenModel):
    """The ledger file: test-split hash -> :class:`LedgerEntry`."""

    schema_version: Literal[1] = 1
    kind: Literal["pathjudge.test_ledger"] = "pathjudge.test_ledger"
    entries: dict[str, LedgerEntry] = Field(default_factory=dict)


class SplitUse(FrozenModel):
    """What :func:`use_test_split` found: whether this evaluation reused the test split."""

    test_hash: str
    reused: bool = Field(description="True when a changed configuration reused the test split.")
    changes: tuple[str, ...] = Field(
        default=(), description="What differs from the configuration that used the split first."
    )


def ledger_path(cache: Path) -> Path:
    """Where the ledger lives: beside the verdict cache file ``cache``."""
    return cache.parent / LEDGER_NAME


def _read(path: Path) -> SplitLedger:
    if not path.exists():
        return SplitLedger()
    return read_document(path, SplitLedger, what="test-split ledger", error=CertificateError)


def use_test_split(
    path: Path,
    test_hash: str,
    identity: JudgeIdentity,
    *,
    criterion: str | None,
    reuse_test: bool,
    now: datetime | None = None,
) -> SplitUse:
    """Record that ``identity`` is evaluated on the test split ``test_hash`` (see the module docstring).

    Raises :class:`CertificateError` when a different configuration already used this test split and
    ``reuse_test`` is False; the ledger is then left as it was.
    """
    ledger = _read(path)
    entry = ledger.entries.get(test_hash)
    when = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    if entry is None:
        entry = LedgerEntry(criterion=criterion, first=identity, first_at=when)
        _write(path, ledger, test_hash, entry)
        return SplitUse(test_hash=test_hash, reused=False)
    changes = tuple(identity_changes(entry.first, identity))
    if not changes:
        return SplitUse(test_hash=test_hash, reused=False)
    if not reuse_test:
        raise CertificateError(
            f"this test split was already used on {entry.first_at} by another judge "
            f"configuration ({'; '.join(changes)}); evaluating a changed judge on it again "
            "would tune on the test set",
            file=path,
            field="--split test",
            hint="tune on train/dev, or add --reuse-test (every report then says the test split "
            "was reused)",
        )
    if identity not in entry.reused_by:
        entry = entry.model_copy(update={"reused_by": (*entry.reused_by, identity)})
        _write(path, ledger, test_hash, entry)
    return SplitUse(test_hash=test_hash, reused=True, changes=changes)


def _write(path: Path, ledger: SplitLedger, test_hash: str, entry: LedgerEntry) -> None:
    updated = ledger.model_copy(update={"entries": {**ledger.entries, test_hash: entry}})
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, updated.model_dump_json(indent=2) + "\n")
