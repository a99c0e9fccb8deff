"""Item ids as they are written in items, labels and verdicts files: text, with integers accepted.

A spreadsheet or a pandas export often writes ``"item_id": 17``; such an id is the string ``"17"``
everywhere in pathjudge (so a label written ``17`` meets a verdict written ``"17"``). Only integers
are coerced: a float (``17.0``) or a boolean is still refused, since its text form is ambiguous.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field

__all__ = ["ItemId", "coerce_item_id"]


def coerce_item_id(value: Any) -> Any:
    """``17`` → ``"17"``; every other value is left for the ``str`` field to validate."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


ItemId = Annotated[str, BeforeValidator(coerce_item_id), Field(min_length=1)]
"""A non-empty item id; a JSON integer is read as its decimal text."""
