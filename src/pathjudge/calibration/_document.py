"""Reading one small JSON document pathjudge wrote (a certificate, the test-split ledger) into its model.

Bounded and strict: the file is read through :func:`pathjudge._io.read_utf8` (a size limit, regular
files only), parsed by :func:`pathjudge._io.json_value` (no NaN, no deep nesting) and validated by
the model; every problem is one ``error`` naming the file and the field.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from pathjudge._io import json_value, read_utf8, validate_document
from pathjudge.errors import InputError

__all__ = ["read_document"]

M = TypeVar("M", bound=BaseModel)

_LIMIT = 16 * 1024 * 1024


def read_document(path: Path, model: type[M], *, what: str, error: type[InputError]) -> M:
    """The document at ``path`` validated as ``model``; anything wrong is one ``error`` naming ``what``."""
    text = read_utf8(
        path,
        error=error,
        not_found=f"{what} not found",
        directory=f"is a directory, not a {what}",
        unreadable=f"the {what} could not be read",
        limit=_LIMIT,
    )
    value = json_value(text, file=path, error=error, hint=f"pass the {what} pathjudge wrote")
    return validate_document(
        model,
        value,
        file=path,
        what=what,
        hint=f"pass the {what} pathjudge wrote, unedited",
        error=error,
    )
