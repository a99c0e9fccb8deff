"""Checking output paths before a command does any work.

Every command's outputs are checked up front (see ``pathjudge._cli.app``), so a bad path is one
clear error, exit 2, before anything is computed or written:

- an output that is also one of the command's inputs (the same file by any spelling, symlink or
  hard link) is refused: no command writes over what it reads;
- two outputs of one command that are the same file are refused (the second would replace the first);
- a file output that is an existing folder, or a path under a regular file, is refused;
- a folder that exists but cannot be written to (a read-only folder) is refused.

Writes themselves are atomic (a temp file in the same folder, then a rename), so a command that
fails or is interrupted leaves every existing file as it was.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Literal

from pathjudge._io import same_file
from pathjudge.errors import InputError

__all__ = ["OutputKind", "check_output_path", "check_outputs", "same_file"]

OutputKind = Literal["file", "folder"]


def _nearest_existing(path: Path) -> Path:
    current = path
    while True:
        if os.path.lexists(current):
            return current
        parent = current.parent
        if parent == current:
            return current
        current = parent


def check_output_path(path: str | Path, *, option: str, kind: OutputKind = "file") -> None:
    """Refuse an output path that cannot be written, with one :class:`InputError` naming it.

    ``kind`` ``file``: the path must not be a folder; ``folder``: it must not be a file. Missing
    parent folders are fine (they are created); a parent that is a regular file, or an existing
    folder the process cannot write to, is not.
    """
    target = Path(path)
    if kind == "file" and target.is_dir():
        raise InputError(
            "is a folder; this option needs a file path",
            file=target,
            field=option,
            hint=f"give a file name, e.g. {target / 'out'}",
        )
    if kind == "folder" and target.exists() and not target.is_dir():
        raise InputError(
            "is a file; this option needs a folder",
            file=target,
            field=option,
            hint="give a folder path (it is created when missing)",
        )
    anchor = _nearest_existing(target if kind == "folder" else target.parent)
    if not anchor.is_dir():
        raise InputError(
            f"cannot be created: {str(anchor)!r} is a file, not a folder",
            file=target,
            field=option,
            hint="choose a path in a folder",
        )
    if not os.access(anchor, os.W_OK | os.X_OK):
        raise InputError(
            f"cannot be written: the folder {str(anchor)!r} is not writable",
            file=target,
            field=option,
            hint="choose a folder you can write to",
        )


def check_outputs(
    outputs: Mapping[str, tuple[Path, OutputKind]], inputs: Iterable[tuple[str, Path]]
) -> None:
    """Check every output (``option -> (path, kind)``) against the rules of the module docstring."""
    sources = list(inputs)
    seen: list[tuple[str, Path]] = []
    for option, (path, kind) in outputs.items():
        for source_option, source in sources:
            if same_file(path, source):
                raise InputError(
                    f"is also this command's input ({source_option}); writing it would destroy "
                    "the input",
                    file=path,
                    field=option,
                    hint=f"choose a different path for {option}",
                )
        for other_option, other in seen:
            if same_file(path, other):
                raise InputError(
                    f"{other_option} names the same file; one output would overwrite the other",
                    file=path,
                    field=option,
                    hint="give each output its own path",
                )
        check_output_path(path, option=option, kind=kind)
        seen.append((option, path))
