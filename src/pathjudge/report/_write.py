"""Atomic file writes for the report renderers (temp file in the same folder, then rename)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_bytes_atomic", "write_text_atomic"]


def write_bytes_atomic(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` so readers see the old file or the new one, never half of it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
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
