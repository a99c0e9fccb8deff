"""``pathjudge bias`` end to end against the fake Anthropic server with scripted judges.

The scripted judges read the request (the answer's data block) and decide as a judge with or without
a bias would, then flip their verdict at random with probability ``p`` on any call: the placebo
noise the battery must see through. The draw is seeded by the request and how many times that same
request came before, so every run sees the same flips whatever order concurrent calls arrive in.
"""

from __future__ import annotations

import collections
import hashlib
import json
import random
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import pathjudge.cli  # noqa: F401  (registers the commands)
from pathjudge._cli.app import main
from pathjudge.calibration.bias import BiasReport, ProbeItem, model_family, probe_result
from tests.fakes.anthropic_server import FakeAnthropic, RecordedRequest, forced_tool_policy

_BLOCK = re.compile(r'<pathjudge_data name="(\w+)">\n(.*?)\n</pathjudge_data>', re.DOTALL)


def _blocks(request: RecordedRequest) -> list[tuple[str, str]]:
    """The (name, text) data blocks of the user turn, in the order the judge reads them."""
    content = request.json["messages"][0]["content"]
    text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
    return _BLOCK.findall(text)


Decide = Callable[[dict[str, str], list[str]], bool]


def scripted_judge(decide: Decide, *, p: float, seed: int) -> Any:
    """A policy: ``decide(blocks, order) -> pass?``, then flipped with probability ``p``."""
    seen: collections.Counter[str] = collections.Counter()
    lock = threading.Lock()

    def verdict(request: RecordedRequest) -> dict[str, Any]:
        blocks = _blocks(request)
        passed = decide(dict(blocks), [name for name, _ in blocks])
        digest = hashlib.sha256(request.body).hexdigest()
        with lock:
            seen[digest] += 1
            draw = random.Random(f"{seed}:{digest}:{seen[digest]}").random()
        if draw < p:
            passed = not passed
        return {"reasoning": "scripted", "evidence": [], "verdict": "pass" if passed else "fail"}

    return forced_tool_policy(verdict)


def _correct(blocks: dict[str, str]) -> bool:
    """The unbiased rule: the answer's first paragraph is the reference."""
    return blocks["answer"].split("\n\n")[0] == blocks["reference"]


def unbiased(blocks: dict[str, str], order: list[str]) -> bool:
    return _correct(blocks)


def length_biased(blocks: dict[str, str], order: list[str]) -> bool:
    """Passes any long answer: padding turns a wrong answer into a pass."""
    return _correct(blocks) or len(blocks["answer"]) > 80


def position_biased(blocks: dict[str, str], order: list[str]) -> bool:
    """Passes whenever it reads the reference before the answer."""
    return _correct(blocks) or order.index("reference") < order.index("answer")


def labelled_items(n: int) -> list[dict[str, Any]]:
    """``n`` answer-correct items, every other one right; answers of 40-50 characters."""
    items = []
    for i in range(n):
        reference = f"The capital of region number {i} is Town {i}."
        answer = reference if i % 2 == 0 else f"The capital of region number {i} is Village {i}."
        items.append(
            {
                "item_id": f"q{i}",
                "criterion": "answer-correct",
                "label": "pass" if i % 2 == 0 else "fail",
                "inputs": {"question": f"What is the capital of region {i}?", "answer": answer,
                           "reference": reference},
                "metadata": {"model_family": "claude" if i < n // 2 else "gpt"},
            }
        )  # fmt: skip
    return items


@pytest.fixture
def labels(tmp_path: Path) -> Path:
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in labelled_items(60)), encoding="utf-8")
    return path


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000000000")
    return


def run_bias_cli(
    server: FakeAnthropic, labels: Path, tmp_path: Path, *extra: str
) -> tuple[int, dict[str, Any]]:
    out = tmp_path / "bias.json"
    code = main(
        [
            "bias", "--labels", str(labels), "--criterion", "answer-correct",
            "--base-url", server.url, "--cache", str(tmp_path / "cache.sqlite"),
            "--json", str(out), *extra,
        ]
    )  # fmt: skip
    return code, json.loads(out.read_text(encoding="utf-8"))


def _probe(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in report["probes"] if p["probe"] == name)


@pytest.mark.parametrize("p", [0.05, 0.1])
def test_a_length_biased_judge_fails_and_an_unbiased_one_passes(
    env: None, labels: Path, tmp_path: Path, p: float
) -> None:
    probes = ("--probes", "length")
    with FakeAnthropic(scripted_judge(length_biased, p=p, seed=1)) as server:
        code, report = run_bias_cli(server, labels, tmp_path / "biased", *probes)
        # 60 items: base and placebo (samples 0 and 1 of the same input), then the probe
        assert server.count("POST", "/v1/messages") == 60 * 2 + 60
    assert code == 1
    assert report["passed"] is False
    length = _probe(report, "length")
    assert length["status"] == "fail"
    assert length["beyond_placebo"]["lower"] > 0.05
    assert length["to_pass"] >= 20  # the wrong answers, padded, pass

    with FakeAnthropic(scripted_judge(unbiased, p=p, seed=1)) as server:
        code, report = run_bias_cli(server, labels, tmp_path / "fair", *probes)
    assert code == 0
    assert report["passed"] is True
    assert _probe(report, "length")["status"] in ("pass", "inconclusive")
    # the placebo saw the judge's own noise: some base verdicts changed on the repeat
    assert _probe(report, "length")["placebo_rate"]["value"] > 0


def test_position_probe_reverses_the_blocks_and_placebo_is_a_real_call(
    env: None, labels: Path, tmp_path: Path
) -> None:
    seen: list[list[str]] = []

    def decide(blocks: dict[str, str], order: list[str]) -> bool:
        seen.append(order)
        return position_biased(blocks, order)

    with FakeAnthropic(scripted_judge(decide, p=0.0, seed=0)) as server:
        code, report = run_bias_cli(server, labels, tmp_path, "--probes", "position")
        calls = server.count("POST", "/v1/messages")
        # a rerun is served from the verdict cache: no call at all, the same report
        again, report2 = run_bias_cli(server, labels, tmp_path, "--probes", "position")
        assert server.count("POST", "/v1/messages") == calls
    assert calls == 60 * 3  # base, placebo (a second sample of the same input), probe
    assert ["question", "answer", "reference"] in seen
    assert ["reference", "answer", "question"] in seen
    assert code == again == 1
    assert report == report2
    position = _probe(report, "position")
    assert position["status"] == "fail"
    # no noise: the placebo never flips, the probe flips exactly the 30 wrong answers to pass
    assert position["table"] == [0, 30, 0, 30]
    assert position["beyond_placebo"]["value"] == pytest.approx(0.5)
    assert position["placebo_rate"]["value"] == 0.0


def test_report_round_trips_and_self_preference_is_advisory(
    env: None, labels: Path, tmp_path: Path
) -> None:
    always_pass = scripted_judge(lambda blocks, order: True, p=0.0, seed=0)
    with FakeAnthropic(always_pass) as server:
        code, report = run_bias_cli(
            server, labels, tmp_path, "--probes", "length,bandwagon,self-preference", "--html",
            str(tmp_path / "bias.html"),
        )  # fmt: skip
    parsed = BiasReport.model_validate(report)
    assert parsed.kind == "pathjudge.bias"
    assert parsed.judge_family == "claude"  # from the default model claude-opus-4-8
    own = _probe(report, "self-preference")
    # 30 claude items, 15 of them gold fail, all passed by the judge: (15 - 0) / 30 = 0.5
    assert own["n_items"] == 30
    assert own["beyond_placebo"]["value"] == pytest.approx(0.5)
    assert own["status"] == "fail"
    assert own["must_pass"] is False
    assert code == 0
    assert parsed.passed
    assert "Bias battery: passed" in (tmp_path / "bias.html").read_text(encoding="utf-8")


def test_self_preference_skips_without_a_recorded_family(env: None, tmp_path: Path) -> None:
    items = labelled_items(4)
    for item in items:
        del item["metadata"]
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in items), encoding="utf-8")
    with FakeAnthropic(scripted_judge(unbiased, p=0.0, seed=0)) as server:
        code, report = run_bias_cli(server, path, tmp_path, "--probes", "self-preference")
    own = _probe(report, "self-preference")
    assert own["status"] == "skipped"
    assert "metadata.model_family" in own["reason"]
    # advisory probes alone vouch for nothing: no must-pass probe ran, so the battery does not pass
    assert code == 1
    assert not report["passed"]
    assert any("no must-pass probe ran" in note for note in report["notes"])


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--probes", "length,colour"), "unknown probe(s) ['colour']"),
        (("--field", "answers"), "has no input 'answers'"),
        (("--tolerance", "1.5"), "tolerance must lie in [0, 1)"),
        (("--confidence", "2"), "--confidence must lie strictly between 0 and 1"),
        (("--confidence", "0"), "--confidence must lie strictly between 0 and 1"),
        # an empty --backend is an unknown one, as in judge and calibrate (not "use the default")
        (("--backend", ""), "unknown backend ''"),
    ],
)
def test_bad_options_exit_2_with_one_line(
    env: None, labels: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    extra: tuple[str, ...], message: str,
) -> None:  # fmt: skip
    with FakeAnthropic(scripted_judge(unbiased, p=0.0, seed=0)) as server:
        code = main(
            ["bias", "--labels", str(labels), "--criterion", "answer-correct", "--base-url",
             server.url, "--cache", str(tmp_path / "c.sqlite"), *extra]
        )  # fmt: skip
        assert server.count("POST", "/v1/messages") == 0 or extra[0] == "--tolerance"
    assert code == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_judge_failures_leave_items_out_and_unmeasured_must_pass_fails() -> None:
    rows = [ProbeItem(item_id="a", base="pass", placebo="error", probe="pass")]
    result = probe_result("length", rows, tolerance=0.05, confidence=0.95)
    assert result.status == "error"
    assert (result.n_items, result.n_excluded) == (0, 1)
    rows = [
        ProbeItem(item_id=str(i), base="pass", placebo="pass", probe="unsure") for i in range(40)
    ]
    result = probe_result("sycophancy", rows, tolerance=0.05, confidence=0.95)
    assert result.status == "fail"  # a change to unsure is a flip
    assert result.table == (0, 40, 0, 0)
    assert result.to_pass == 0


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("claude-opus-4-8", "claude"),
        ("us.anthropic.claude-haiku-4-5-20251001-v1:0", "claude"),
        ("gpt-4o-mini", "gpt"),
        ("/models/SmolLM2-135M-Instruct.Q4_1.gguf", "smollm2"),
    ],
)
def test_model_family(name: str, family: str) -> None:
    assert model_family(name) == family
