"""Helpers to write small labels / verdicts files for the calibration tests."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

Writer = Callable[[str, Iterable[dict[str, Any] | str]], Path]


@pytest.fixture
def write(tmp_path: Path) -> Writer:
    """``write(name, records)``: one JSON object (or raw string) per line in ``tmp_path/name``."""

    def _write(name: str, records: Iterable[dict[str, Any] | str]) -> Path:
        path = tmp_path / name
        lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    return _write
