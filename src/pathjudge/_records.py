"""The base of pathjudge's Pydantic records (see CONVENTIONS: immutable, typed records).

:class:`FrozenModel` is frozen (a record is never changed after it is made: copy it with
``model_copy(update=...)``) and forbids extra fields (a misspelt key in a file is an error naming it,
never silently dropped).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["FrozenModel"]


class FrozenModel(BaseModel):
    """A frozen Pydantic model that refuses fields it does not declare."""

    model_config = ConfigDict(frozen=True, extra="forbid")
