"""Output-path safety: a command never writes over one of its own inputs (:func:`ensure_not_input`)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from pathjudge.errors import InputError


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name the same file: the same inode when both exist, else the same resolved path.

    Symlinks, hard links, ``..`` and relative spellings all count as the same file.
    """
    first, second = Path(a), Path(b)
    try:
        return os.path.samefile(first, second)
    except OSError:
        pass
    try:
        return first.resolve() == second.resolve()
    except (OSError, RuntimeError):
        return os.path.abspath(first) == os.path.abspath(second)


def ensure_not_input(
    output: str | Path | None,
    inputs: Iterable[str | Path | None],
    *,
    option: str = "output",
) -> None:
    """Refuse to write ``output`` when it is the same file as one of ``inputs`` (None entries skipped).

    Writing a report or verdicts over the runs, suite or labels it was computed from would destroy the
    input, so the command stops first with an :class:`~pathjudge.errors.InputError` naming ``option``
    (the flag or field the output path came from). ``output`` None means "no file written": nothing to
    check.
    """
    if output is None:
        return
    for source in inputs:
        if source is not None and same_file(output, source):
            raise InputError(
                f"{option} {str(output)!r} is also an input of this command; writing it would destroy the input",
                file=output,
                field=option.lstrip("-") or None,
                hint=f"choose a different path for {option}",
            )
