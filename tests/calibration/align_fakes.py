"""The scripted judge of the align tests, on the fake Anthropic server.

It answers every item "pass" unless its prompt holds what it needs: a "useful" few-shot example (a
train item whose text says ``KEY-FACT``), or a clarification whose wording holds ``CLARIFIED``; then
it answers each item right (it knows the human labels). So align can only raise the dev numbers by
finding that example or that wording, and the server's request log shows what was judged when.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.anthropic_server import FakeAnthropic, RecordedRequest, message, tool_use

MODEL = "claude-sonnet-4-5"
"""The judge model (not the default agent model, so no twin warning)."""

CRITERION = """\
id: fact-stated
version: "1"
criterion: Does the answer state the key fact?
inputs: [answer]
pass_means: The answer states the key fact.
fail_means: The answer does not state the key fact.
"""

# train: one useful example (t3); dev and test: alternating labels
TRAIN = {"t1": "pass", "t2": "fail", "t3": "fail", "t4": "pass", "t5": "fail", "t6": "pass"}
DEV = {f"d{i}": "pass" if i % 2 else "fail" for i in range(1, 9)}
TEST = {f"x{i}": "pass" if i % 2 else "fail" for i in range(1, 7)}
TRUTH = {**TRAIN, **DEV, **TEST}
ITEM = re.compile(r"\bitem (\w+)\b")


def _answer(item_id: str) -> str:
    useful = " KEY-FACT" if item_id == "t3" else ""
    return f"This is item {item_id}.{useful}"


def _labels(tmp_path: Path, train: dict[str, str], dev: dict[str, str]) -> Path:
    lines = []
    for split, items in (("train", train), ("dev", dev), ("test", TEST)):
        for item_id, label in items.items():
            record = {"item_id": item_id, "label": label, "split": split}
            record["inputs"] = {"answer": _answer(item_id)}
            if item_id == "t3":
                record["rationale"] = "States no fact."
            lines.append(json.dumps(record))
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _system(request: RecordedRequest) -> str:
    system = request.json.get("system") or ""
    return system if isinstance(system, str) else "".join(b.get("text", "") for b in system)


def _user(request: RecordedRequest) -> str:
    content = request.json["messages"][0]["content"]
    return content if isinstance(content, str) else json.dumps(content)


def _judged(request: RecordedRequest) -> str:
    """The item a judge request is about (the last ``item X`` in its user turn)."""
    return ITEM.findall(_user(request))[-1]


def _policy(clarification: str | None = None) -> Any:
    def policy(request: RecordedRequest) -> dict[str, Any]:
        tool = request.json["tool_choice"]["name"]
        if tool == "Clarification":
            assert clarification is not None
            return message(
                [tool_use(tool, {"reasoning": "Failing items lack the fact.",
                                 "pass_means": clarification, "fail_means": "Anything else."})]
            )  # fmt: skip
        system = _system(request)
        item_id = _judged(request)
        knows = "KEY-FACT" in system or "CLARIFIED" in system
        verdict = TRUTH[item_id] if knows else "pass"
        return message(
            [tool_use(tool, {"reasoning": f"Read item {item_id}.", "evidence": [],
                             "verdict": verdict})]
        )  # fmt: skip

    return policy


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000000000")


@pytest.fixture
def align_server(api_key: None) -> Iterator[FakeAnthropic]:
    with FakeAnthropic(_policy("CLARIFIED: the answer states the key fact.")) as fake:
        yield fake
