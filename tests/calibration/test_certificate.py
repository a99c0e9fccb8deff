"""Judge certificates end to end through the CLI, against the fake Anthropic server with a scripted judge.

``calibrate --certify`` on the test split writes a sealed certificate; ``judge --certificate`` labels
the verdict counts certified, and a changed model, criterion text or sample count voids it with one
line naming the change; ``--require-certified`` turns that into exit 2 before anything is judged; a
tampered certificate is refused; the test-split ledger refuses a changed judge on a used test split.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathjudge.calibration.certificate import read_certificate, seal_of
from pathjudge.calibration.labels import load_labels
from pathjudge.calibration.splits import assign_splits, split_hash
from pathjudge.cli import main
from tests.fakes.anthropic_server import (
    FakeAnthropic,
    RecordedRequest,
    fake_anthropic,
    forced_tool_policy,
)

__all__ = ["fake_anthropic"]

GATES = "tpr=0.5,tnr=0.5,kappa=0.3,max_unsure=0.5"  # 6 pass + 6 fail test items clear these


def _decide(request: RecordedRequest) -> dict[str, Any]:
    """A scripted judge that is always right: pass when the answer says 600."""
    user = request.json["messages"][0]["content"]
    answer = user.split('name="answer">', 1)[1].split("</pathjudge_data>", 1)[0]
    return {"reasoning": "r", "evidence": [], "verdict": "pass" if "600" in answer else "fail"}


@pytest.fixture
def server(fake_anthropic: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> FakeAnthropic:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-certificate")
    fake_anthropic.policy = forced_tool_policy(_decide)
    return fake_anthropic


def _inputs(i: int) -> dict[str, str]:
    return {
        "question": f"Q{i}: what does the Pro plan allow?",
        "answer": "600 requests per minute" if i % 2 == 0 else "60 requests per minute",
        "reference": "The Pro plan allows 600 requests per minute.",
    }


@pytest.fixture
def labels(tmp_path: Path) -> Path:
    """30 labelled items: 10 train, 8 dev, 12 test; pass when the answer says 600."""
    path = tmp_path / "labels.jsonl"
    rows = []
    for i in range(30):
        split = "train" if i < 10 else "dev" if i < 18 else "test"
        label = "pass" if i % 2 == 0 else "fail"
        rows.append({"item_id": f"q{i}", "label": label, "split": split, "inputs": _inputs(i)})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def items(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text(
        "".join(json.dumps({"item_id": f"n{i}", "inputs": _inputs(i)}) + "\n" for i in range(4))
    )
    return path


def calibrate(
    labels: Path,
    server: FakeAnthropic,
    tmp_path: Path,
    *options: str,
    criterion: str = "answer-correct",
) -> int:
    argv = ["calibrate", "--labels", str(labels), "--criterion", criterion]
    argv += ["--base-url", server.url, "--cache", str(tmp_path / "cache.sqlite")]
    argv += ["--gates", GATES, "--bootstrap", "100", "-q", *options]
    return main(argv)


def judge(items: Path, server: FakeAnthropic, tmp_path: Path, *options: str) -> int:
    argv = ["judge", str(items), "--criterion", "answer-correct", "-o", str(tmp_path / "v.jsonl")]
    argv += ["--base-url", server.url, "--cache", str(tmp_path / "cache.sqlite"), *options]
    return main(argv)


def certify(labels: Path, server: FakeAnthropic, tmp_path: Path, *options: str) -> Path:
    cert = tmp_path / "judge.cert.json"
    assert (
        calibrate(labels, server, tmp_path, "--split", "test", "--certify", str(cert), *options)
        == 0
    )
    return cert


def test_certify_writes_a_sealed_certificate_of_the_judge(
    labels: Path, server: FakeAnthropic, tmp_path: Path
) -> None:
    cert = certify(labels, server, tmp_path)
    document = json.loads(cert.read_text())
    assert document["kind"] == "pathjudge.certificate"
    assert document["judge"]["criterion_id"] == "answer-correct"
    assert document["judge"]["backend"] == "anthropic"
    assert document["judge"]["model"] == "claude-opus-4-8"
    assert document["judge"]["samples"] == 1
    assert document["evaluated_split"] == "test"
    assert document["n_evaluated"] == 12
    assert set(document["split_hashes"]) == {"train", "dev", "test"}
    assert [g["name"] for g in document["gate_results"]] == ["TPR", "TNR", "kappa", "unsure"]
    assert all(g["passed"] for g in document["gate_results"])
    # 6/6 right: the Wilson 95% lower bound is 0.6097 (n/(n+z²) with z = 1.96: 6/9.8416 = 0.6097)
    assert document["gate_results"][0]["bound"] == pytest.approx(0.6097, abs=1e-4)
    # the seal is sha256 over the canonical JSON without the seal
    assert document["seal"] == seal_of(document)
    assert read_certificate(cert).judge.criterion_hash.startswith("sha256:")


def test_the_certified_judge_labels_its_counts_certified(
    labels: Path,
    items: Path,
    server: FakeAnthropic,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cert = certify(labels, server, tmp_path)
    capsys.readouterr()
    report = tmp_path / "run.json"
    code = judge(items, server, tmp_path, "--certificate", str(cert), "--json", str(report))
    assert code == 0
    out = capsys.readouterr().out
    assert "judge: certified (" in out
    assert "TPR >= 0.61" in out
    certification = json.loads(report.read_text())["certification"]
    assert certification["status"] == "certified"
    assert certification["bounds"]["TPR"] == pytest.approx(0.6097, abs=1e-4)


def test_a_changed_model_voids_the_certificate(
    labels: Path,
    items: Path,
    server: FakeAnthropic,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cert = certify(labels, server, tmp_path)
    capsys.readouterr()
    assert judge(items, server, tmp_path, "--certificate", str(cert), "--model", "claude-x") == 0
    out = capsys.readouterr().out
    assert (
        f"judge: uncertified (certificate {cert} void: model changed from 'claude-opus-4-8' to "
        "'claude-x')" in out
    )


def test_a_changed_criterion_text_voids_the_certificate(
    labels: Path,
    items: Path,
    server: FakeAnthropic,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    crit = tmp_path / "answer.yaml"
    assert main(["criteria", "export", "answer-correct", "-o", str(crit)]) == 0
    unnamed = tmp_path / "unnamed.jsonl"  # labels that name no criterion go with a criterion file
    unnamed.write_text(labels.read_text())
    cert = tmp_path / "judge.cert.json"
    code = calibrate(
        unnamed, server, tmp_path, "--split", "test", "--certify", str(cert), criterion=str(crit)
    )
    assert code == 0
    crit.write_text(crit.read_text().replace("same facts", "same facts and figures"))
    capsys.readouterr()
    argv = ["judge", str(items), "--criterion", str(crit), "-o", str(tmp_path / "v.jsonl")]
    argv += ["--base-url", server.url, "--cache", str(tmp_path / "cache.sqlite")]
    assert main([*argv, "--certificate", str(cert), "--require-certified"]) == 2
    err = capsys.readouterr().err
    assert f"certificate {cert} void: criterion text (content hash) changed from 'sha256:" in err
    assert "--require-certified" in err


def test_a_changed_sample_count_voids_the_certificate_and_require_certified_exits_2_unjudged(
    labels: Path,
    items: Path,
    server: FakeAnthropic,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cert = certify(labels, server, tmp_path)
    calls = server.count("POST", "/v1/messages")
    capsys.readouterr()
    code = judge(
        items, server, tmp_path, "--certificate", str(cert), "--samples", "3", "--require-certified"
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "void: sample count changed from 1 to 3" in err
    assert server.count("POST", "/v1/messages") == calls  # refused before anything was judged


def test_without_a_certificate_the_counts_are_uncertified_and_require_certified_exits_2(
    items: Path, server: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert judge(items, server, tmp_path) == 0
    assert "judge: uncertified (no certificate)" in capsys.readouterr().out
    assert judge(items, server, tmp_path, "--require-certified") == 2


def test_a_tampered_certificate_is_refused(
    labels: Path,
    items: Path,
    server: FakeAnthropic,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cert = certify(labels, server, tmp_path)
    document = json.loads(cert.read_text())
    document["gate_results"][0]["bound"] = 0.99  # a better bound than was measured
    cert.write_text(json.dumps(document, indent=2))
    capsys.readouterr()
    assert judge(items, server, tmp_path, "--certificate", str(cert)) == 2
    err = capsys.readouterr().err
    assert "content hash does not match its seal" in err
    assert "Traceback" not in err


def test_a_changed_judge_on_a_used_test_split_is_refused_unless_reuse_test(
    labels: Path, server: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert calibrate(labels, server, tmp_path, "--split", "test") == 0
    assert calibrate(labels, server, tmp_path, "--split", "test") == 0  # the same judge again: fine
    assert calibrate(labels, server, tmp_path, "--split", "dev", "--samples", "3") == 0  # not test
    capsys.readouterr()
    assert calibrate(labels, server, tmp_path, "--split", "test", "--samples", "3") == 2
    err = capsys.readouterr().err
    assert "sample count changed from 1 to 3" in err
    assert "--reuse-test" in err
    ledger = json.loads((tmp_path / "test-ledger.json").read_text())
    (entry,) = ledger["entries"].values()
    assert entry["first"]["samples"] == 1
    assert entry["reused_by"] == []

    report = tmp_path / "report.json"
    cert = tmp_path / "reused.cert.json"
    options = ["--split", "test", "--samples", "3", "--reuse-test", "--json", str(report)]
    assert calibrate(labels, server, tmp_path, *options, "--certify", str(cert)) == 0
    notes = json.loads(report.read_text())["criteria"][0]["notes"]
    assert any(n.startswith("test split reused (--reuse-test)") for n in notes)
    assert read_certificate(cert).test_reused is True
    ledger = json.loads((tmp_path / "test-ledger.json").read_text())
    assert [j["samples"] for j in next(iter(ledger["entries"].values()))["reused_by"]] == [3]


def test_certify_needs_the_test_split_and_a_trusted_judge(
    labels: Path, server: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cert = tmp_path / "c.json"
    assert calibrate(labels, server, tmp_path, "--certify", str(cert)) == 2
    assert "--certify goes with --split test" in capsys.readouterr().err
    strict = ["--split", "test", "--certify", str(cert), "--gates", "tpr=0.95"]
    assert calibrate(labels, server, tmp_path, *strict) == 1
    assert "no certificate written" in capsys.readouterr().err
    assert not cert.exists()


def test_assign_splits_lets_unsplit_labels_be_certified(
    server: FakeAnthropic, tmp_path: Path
) -> None:
    labels = tmp_path / "unsplit.jsonl"
    rows = [
        {"item_id": f"q{i}", "label": "pass" if i % 2 == 0 else "fail", "inputs": _inputs(i)}
        for i in range(100)
    ]
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    expected = assign_splits(load_labels(labels))
    n_test = sum(1 for item in expected if item.split == "test")
    assert n_test > 0
    cert = tmp_path / "c.json"
    options = ["--assign-splits", "--split", "test", "--certify", str(cert)]
    assert calibrate(labels, server, tmp_path, *options) == 0
    certificate = read_certificate(cert)
    assert (certificate.evaluated_split, certificate.n_evaluated) == ("test", n_test)
    assert certificate.split_hashes["test"] == split_hash(expected, None, "test")
