"""The how-to "Certify a judge" (docs/how-to/certify-a-judge.md) walks from NOT TRUSTED to a
certificate CI requires. Every ``pathjudge`` command of its ```bash blocks runs here, in order, read
from the page itself, against the fake Anthropic server, with the exit code the page says it has.

The scripted judge answers "pass" to everything until its prompt holds the useful few-shot example
(a train item whose answer says ``KEY-FACT``); then it answers every labelled item right. So the
first calibration is NOT TRUSTED, align finds the example, and the aligned judge is TRUSTED on test.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from pathjudge.cli import main
from tests.fakes.anthropic_server import FakeAnthropic, RecordedRequest, forced_tool_policy

HOWTO = Path(__file__).parents[1] / "docs" / "how-to" / "certify-a-judge.md"
ITEM = re.compile(r"\bitem (\w+)\b")

TRAIN = {"t1": "pass", "t2": "fail", "t3": "fail", "t4": "pass", "t5": "fail", "t6": "pass"}
DEV = {f"d{i}": "pass" if i % 2 else "fail" for i in range(1, 9)}
TEST = {f"x{i}": "pass" if i % 2 else "fail" for i in range(1, 33)}  # 16 + 16: TPR >= 0.81
TRUTH = {**TRAIN, **DEV, **TEST}

# what each command of the page exits with: export, calibrate on dev (NOT TRUSTED), align, bias,
# calibrate --certify, judge --require-certified, score --require-certified
EXIT_CODES = [0, 1, 0, 0, 0, 0, 0]


def howto_commands() -> list[list[str]]:
    """The ``pathjudge`` commands of the page's ```bash blocks, in order, as argv lists."""
    text = HOWTO.read_text(encoding="utf-8")
    blocks = [block.split("```", 1)[0] for block in text.split("```bash\n")[1:]]
    lines = [line for block in blocks for line in block.replace("\\\n", " ").splitlines()]
    return [shlex.split(line) for line in lines if line.strip()]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else "".join(b.get("text", "") for b in value)


def _verdict(request: RecordedRequest) -> dict[str, Any]:
    knows = "KEY-FACT" in _text(request.json.get("system") or "")
    found = ITEM.findall(_text(request.json["messages"][0]["content"]))
    item = found[-1] if found else ""
    verdict = TRUTH[item] if knows and item in TRUTH else "pass"
    return {"reasoning": f"Read item {item}.", "evidence": [], "verdict": verdict}


def _inputs(item_id: str) -> dict[str, str]:
    useful = " KEY-FACT" if item_id == "t3" else ""
    return {
        "question": "What is stated?",
        "answer": f"This is item {item_id}.{useful}",
        "reference": "The key fact.",
    }


def _write_project(folder: Path) -> None:
    """labels.jsonl (every item with a split), items.jsonl, and a suite judged by aligned.yaml."""
    rows = []
    for split, labels in (("train", TRAIN), ("dev", DEV), ("test", TEST)):
        for item_id, label in labels.items():
            row = {"item_id": item_id, "label": label, "split": split, "inputs": _inputs(item_id)}
            if item_id == "t3":
                row["rationale"] = "It states no fact."
            rows.append(row)
    (folder / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    items = [{"item_id": f"n{i}", "inputs": _inputs(f"x{i}")} for i in range(1, 5)]
    (folder / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in items))
    (folder / "suite.yaml").write_text(
        "schema_version: 1\nname: certified\ntasks:\n"
        "  - id: fact\n    input: What is stated?\n"
        "    success: {kind: contains_all, values: [item]}\n"
        "    judged:\n      - criterion: aligned.yaml\n"
        "        inputs: {question: input, answer: final_answer, reference: reference}\n"
        "        reference: The key fact.\n"
    )
    run = {
        "schema_version": 1, "run_id": "fact-e0", "task_id": "fact", "epoch": 0,
        "agent": {"name": "agent", "model": "constructed"}, "input": "What is stated?",
        "steps": [], "final_answer": "This is item x1.",
    }  # fmt: skip
    (folder / "runs.jsonl").write_text(json.dumps(run) + "\n")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith(("PATHJUDGE_", "ANTHROPIC_", "OPENAI_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-howto")
    monkeypatch.chdir(tmp_path)
    _write_project(tmp_path)
    return tmp_path


def test_every_command_of_the_certify_howto_runs_in_order(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    commands = howto_commands()
    assert [argv[:2] for argv in commands] == [
        ["pathjudge", "criteria"], ["pathjudge", "calibrate"], ["pathjudge", "align"],
        ["pathjudge", "bias"], ["pathjudge", "calibrate"], ["pathjudge", "judge"],
        ["pathjudge", "score"],
    ]  # fmt: skip
    with FakeAnthropic(forced_tool_policy(_verdict)) as server:
        monkeypatch.setenv("PATHJUDGE_JUDGE_BASE_URL", server.url)
        codes = []
        for argv in commands:
            codes.append(main(argv[1:]))
            captured = capsys.readouterr()
            assert "Traceback" not in captured.err, argv
            if (
                argv[1] == "calibrate"
                and "--split" in argv
                and argv[argv.index("--split") + 1] == "dev"
            ):
                assert "NOT TRUSTED" in captured.out
            if argv[1] in ("judge", "score"):
                assert re.search(
                    r": certified \(\d{4}-\d\d-\d\d, 95% bounds TPR >= 0\.81", captured.out
                )
                assert "; bias passed)" in captured.out
    assert codes == EXIT_CODES
    certificate = json.loads((project / "judge.cert.json").read_text())
    assert certificate["bias"]["passed"] is True
    assert [p["probe"] for p in certificate["bias"]["probes"]] == [
        "length", "position", "sycophancy"
    ]  # fmt: skip
    ledger = json.loads((project / ".pathjudge" / "test-ledger.json").read_text())
    (entry,) = ledger["entries"].values()
    assert entry["first"] == certificate["judge"]  # align's test evaluation, then the certificate's
