"""Where a record sits in a JSONL file, for error messages (error path only)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["record_line"]


def record_line(file: str | Path, number: int) -> int | None:
    """The 1-based line of the ``number``-th record (non-blank line) of a JSONL file (error path only)."""
    import gzip

    path = Path(file)
    try:
        with gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb") as handle:
            seen = 0
            for line_no, raw in enumerate(handle, 1):
                if raw.strip():
                    seen += 1
                    if seen == number:
                        return line_no
    except OSError:
        return None
    return None
