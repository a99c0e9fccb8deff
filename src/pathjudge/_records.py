"""The bases of pathjudge's records (see CONVENTIONS: immutable, typed records).

:class:`FrozenModel`, for records read from and written to files, is frozen (a record is never changed
after it is made: copy it with ``model_copy(update=...)``) and forbids extra fields (a misspelt key in a
file is an error naming it, never silently dropped). The records built inside, in the grading hot path,
are frozen slotted dataclasses; :func:`field_values` starts their JSON form.
"""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["FrozenModel", "field_values"]


class FrozenModel(BaseModel):
    """A frozen Pydantic model that refuses fields it does not declare."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def field_values(record: DataclassInstance) -> dict[str, Any]:
    """A dataclass record's fields by name, in declaration order, the values as they are (a shallow
    ``dataclasses.asdict``): a record's ``to_dict`` replaces the values that need converting."""
    return {f.name: getattr(record, f.name) for f in fields(record)}
