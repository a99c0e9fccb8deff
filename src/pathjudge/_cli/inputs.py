"""What the faces share about reading the user's input files."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pathjudge.errors import InputError, RecordError

__all__ = ["runs_not_transcript"]


@contextmanager
def runs_not_transcript(*runs: Path | None, then: str = "score") -> Iterator[None]:
    """An error reading one of ``runs`` that is a transcript or trace export, not runs, names the
    ``pathjudge import`` command that converts it (:func:`~pathjudge.agent.importers.import_hint`)
    and what to do with the converted file (``then``: the command's own name)."""
    try:
        yield
    except InputError as exc:
        path = next((p for p in runs if p is not None and exc.file == str(p)), None)
        if path is None:
            raise
        from pathjudge.agent.importers import import_hint

        hint = import_hint(path)
        if hint is None:
            raise
        raise RecordError(
            hint.problem,
            file=path,
            line=exc.line,
            hint=f"convert it first: {hint.command}, then {then} {hint.output}",
        ) from None
