"""Atomic file writes for the report renderers (temp file in the same folder, then rename)."""

from __future__ import annotations

import os
from pathlib import Path

from pathjudge.agent.io import open_atomic_temp

__all__ = ["write_bytes_atomic", "write_text_atomic"]


def write_bytes_atomic(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` so readers see the old file or the new one, never half of it.

    The file gets the mode a plainly created file would (``0o666`` minus the umask).
    """
    path = Path(path)
    fd, tmp = open_atomic_temp(path, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_text_atomic(path: Path, text: str) -> Path:
    """:func:`write_bytes_atomic` of ``text`` encoded as UTF-8 (newlines kept as ``\\n``)."""
    return write_bytes_atomic(path, text.encode("utf-8"))
