"""The base of calibration's records: frozen, and no field beyond those declared."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["Record"]


class Record(BaseModel):
    """A frozen pydantic model that refuses unknown fields (``extra="forbid"``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
