"""Judge panels: three scripted judges (different models) on the fake Anthropic server, majority and
unanimous aggregation, Krippendorff's alpha by hand and against the ``krippendorff`` package, the
panel gated by calibrate, and its disagreements labelled next on the labelling page."""

from __future__ import annotations

import json
import os
import re
import selectors
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pathjudge.calibration.panel import aggregate, run_panel
from pathjudge.calibration.verdicts import load_verdicts
from pathjudge.cli import main
from pathjudge.errors import LabelsError
from tests.fakes.anthropic_server import FakeAnthropic, RecordedRequest, forced_tool_policy
from tests.judge.conftest import api_key, fake_anthropic, verdict_input  # noqa: F401

MESSAGES = "/v1/messages"
VOTES = {  # item -> (judge-a, judge-b, judge-c)
    0: "ppp",
    1: "fff",
    2: "ppf",
    3: "pff",
    4: "pfu",
    5: "ppp",
    6: "fff",
    7: "ffp",
    8: "uuu",
}
JUDGES = ("judge-a", "judge-b", "judge-c")
WORD = {"p": "pass", "f": "fail", "u": "unsure"}


def _scripted(request: RecordedRequest) -> dict[str, Any]:
    """Each model's scripted verdict on each item (the item number is in the judged answer)."""
    user = request.json["messages"][0]["content"]
    answer = user.split('name="answer">', 1)[1].split("</pathjudge_data>", 1)[0]
    item = int(re.findall(r"answer (\d+)", answer)[0])
    return verdict_input(WORD[VOTES[item][JUDGES.index(request.json["model"])]])


def _items(path: Path) -> Path:
    lines = [
        {
            "item_id": f"q{i}",
            "inputs": {
                "question": f"Question {i}: Pro plan rate limit?",
                "answer": f"answer {i}: 600 requests per minute",
                "reference": "The Pro plan allows 600 requests per minute.",
            },
        }
        for i in VOTES
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def judged(fake_anthropic: FakeAnthropic, api_key: str, tmp_path: Path) -> list[Path]:  # noqa: F811
    """The three judges' verdicts files, judged through ``pathjudge judge`` (one cache)."""
    fake_anthropic.policy = forced_tool_policy(_scripted)
    items = _items(tmp_path / "items.jsonl")
    out = []
    for model in JUDGES:
        path = tmp_path / f"{model}.jsonl"
        argv = ["judge", str(items), "--criterion", "answer-correct", "--model", model]
        argv += ["--base-url", fake_anthropic.url, "--cache", str(tmp_path / "cache.sqlite")]
        assert main([*argv, "-o", str(path)]) == 0
        out.append(path)
    assert fake_anthropic.count("POST", MESSAGES) == 3 * len(VOTES)
    # the cache is keyed by model: judging again with judge-a makes no call
    again = ["judge", str(items), "--criterion", "answer-correct", "--model", "judge-a"]
    again += ["--base-url", fake_anthropic.url, "--cache", str(tmp_path / "cache.sqlite")]
    assert main([*again, "-o", str(tmp_path / "again.jsonl")]) == 0
    assert fake_anthropic.count("POST", MESSAGES) == 3 * len(VOTES)
    return out


def test_majority_and_unanimous_panels_of_three_scripted_judges(
    judged: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = {
        "majority": ["pass", "fail", "pass", "fail", "unsure", "pass", "fail", "fail", "unsure"],
        "unanimous": [
            "pass",
            "fail",
            "unsure",
            "unsure",
            "unsure",
            "pass",
            "fail",
            "unsure",
            "unsure",
        ],
    }
    for rule, verdicts in expected.items():
        out = tmp_path / f"panel-{rule}.jsonl"
        report = tmp_path / f"panel-{rule}.json"
        argv = ["panel", *map(str, judged), "-o", str(out), "--rule", rule, "--json", str(report)]
        assert main(argv) == 0
        lines = [json.loads(line) for line in out.read_text().splitlines()]
        assert [line["verdict"] for line in lines] == verdicts
        assert {line["backend"] for line in lines} == {"panel"}
        assert lines[2]["reasoning"] == (
            f"panel {rule} of 3 judges: judge-a pass, judge-b pass, judge-c fail"
        )
        data = json.loads(report.read_text())
        assert data["judges"] == list(JUDGES)
    text = capsys.readouterr().out
    assert (
        "3 judges (judge-a, judge-b, judge-c) on answer-correct: 9 items, 4 where they disagree"
        in text
    )
    assert "Krippendorff's alpha 0.333" in text


def test_judge_judge_alpha_by_hand_and_against_the_krippendorff_package(judged: list[Path]) -> None:
    import krippendorff

    report = run_panel([load_verdicts(p) for p in judged], "majority", n_bootstrap=200)
    assert report.agreement is not None
    assert report.agreement.statistic == "krippendorff_alpha"
    # Coincidences over the 8 items with two or more pass/fail verdicts (q8: all unsure, none):
    # o_pp = 3 + 3 (q0, q5) + 1 (q2) = 7; o_ff = 3 + 3 (q1, q6) + 1 (q3) + 1 (q7) = 8;
    # o_pf = o_fp = 1 (q2) + 1 (q3) + 1 (q7) + 1 (q4, two ratings) = 4; n = 23, n_p = 11, n_f = 12.
    # D_o = 8/23, D_e = 2 * 11 * 12 / (23 * 22) = 264/506; alpha = 1 - (8 * 506)/(23 * 264) = 1/3
    assert report.agreement.value.value == pytest.approx(1 / 3, abs=1e-12)
    data = np.array(
        [[{"p": 1.0, "f": 0.0}.get(VOTES[i][j], np.nan) for i in VOTES] for j in range(3)]
    )
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert report.agreement.value.value == pytest.approx(ref, abs=1e-9)
    assert report.agreement.n_items == 8
    # two judges: alpha as well (not Cohen's kappa)
    pair = run_panel([load_verdicts(p) for p in judged[:2]], "unanimous", n_bootstrap=0)
    assert pair.agreement is not None
    ref2 = krippendorff.alpha(reliability_data=data[:2], level_of_measurement="nominal")
    assert pair.agreement.statistic == "krippendorff_alpha"
    assert pair.agreement.value.value == pytest.approx(ref2, abs=1e-9)


def test_the_panel_is_gated_by_calibrate_as_a_judge_of_its_own(
    judged: list[Path], tmp_path: Path
) -> None:
    panel = tmp_path / "panel.jsonl"
    assert main(["panel", *map(str, judged), "-o", str(panel)]) == 0
    truth = ["pass", "fail", "pass", "fail", "fail", "pass", "fail", "fail", "pass"]
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        "".join(json.dumps({"item_id": f"q{i}", "label": t}) + "\n" for i, t in enumerate(truth))
    )
    out = tmp_path / "cal.json"
    argv = ["calibrate", "--labels", str(labels), "--verdicts", str(panel), "--json", str(out)]
    assert main([*argv, "--bootstrap", "100", "--quiet"]) == 1  # 9 labels are too few to trust
    crit = json.loads(out.read_text())["criteria"][0]
    assert crit["judges"][0]["backend"] == "panel"
    assert crit["judges"][0]["model"] == "panel:majority(judge-a,judge-b,judge-c)"
    cm = crit["agreement"]["confusion"]
    # the panel: 7 of 9 right, unsure on q4 (human fail) and q8 (human pass)
    assert cm["matrix"] == [[3, 0], [0, 4]]
    assert cm["unsure"] == {"pass": 1, "fail": 1}


def _first_line(proc: subprocess.Popen[str], timeout: float) -> str:
    assert proc.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if selector.select(timeout=0.5):
                return proc.stdout.readline().strip()
    raise AssertionError("pathjudge label printed no URL")


def _label_first_item(proc: subprocess.Popen[str], httpx: Any) -> dict[str, Any]:
    """The page's state when it starts, after labelling its first item 'fail'."""
    url = _first_line(proc, timeout=60)
    base = url.split("/?", 1)[0]
    with httpx.Client(base_url=base, timeout=10, follow_redirects=True) as client:
        for _ in range(50):  # the server starts listening right after printing the URL
            try:
                assert client.get(url.removeprefix(base)).status_code == 200
                break
            except httpx.TransportError:
                time.sleep(0.1)
        state: dict[str, Any] = client.get("/api/state").json()
        assert client.post("/api/label", json={"position": 0, "label": "fail"}).status_code == 200
    return state


def test_the_disagreements_are_the_labelling_pages_next_queue(
    judged: list[Path], tmp_path: Path
) -> None:
    pytest.importorskip("starlette")
    httpx = pytest.importorskip("httpx")
    queue = tmp_path / "queue.jsonl"
    argv = ["panel", *map(str, judged), "-o", str(tmp_path / "panel.jsonl")]
    assert main([*argv, "--items", str(tmp_path / "items.jsonl"), "--queue", str(queue)]) == 0
    lines = [json.loads(line) for line in queue.read_text().splitlines()]
    # most divided first: q4 (pass, fail, unsure), then q2, q3, q7 (2 against 1), file order
    assert [line["item_id"] for line in lines] == ["q4", "q2", "q3", "q7"]
    assert lines[0]["metadata"]["panel"] == {
        "judge-a": "pass",
        "judge-b": "fail",
        "judge-c": "unsure",
    }
    assert set(lines[0]) == {"item_id", "inputs", "metadata"}
    labels = tmp_path / "labels.jsonl"
    src = str(Path(__file__).resolve().parents[2] / "src")
    command = [sys.executable, "-m", "pathjudge", "label", str(queue), "--criterion"]
    command += ["answer-correct", "-o", str(labels), "--rater", "ana", "--order", "file"]
    with subprocess.Popen(
        [*command, "--port", "0", "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": src},
    ) as proc:
        try:
            state = _label_first_item(proc, httpx)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    assert [item["item_id"] for item in state["items"]] == ["q4", "q2", "q3", "q7"]
    assert state["cursor"] == 0
    event = json.loads(labels.read_text().splitlines()[0])
    assert (event["item_id"], event["label"], event["order"]) == ("q4", "fail", "file")


def test_aggregation_rules_on_their_edges() -> None:
    assert aggregate(["pass", "pass", "error"], "majority") == "pass"  # 2 of 3
    assert aggregate(["pass", "error", "missing"], "majority") == "unsure"  # 1 of 3 is no majority
    assert aggregate(["pass", "fail"], "majority") == "unsure"
    assert aggregate(["pass", "pass"], "unanimous") == "pass"
    assert aggregate(["pass", "unsure"], "unanimous") == "unsure"
    assert aggregate(["error", "missing"], "majority") == "error"
    assert aggregate(["unsure", "error"], "unanimous") == "unsure"
    assert aggregate([], "majority") == "error"


def test_bad_panels_are_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = tmp_path / "a.jsonl"
    a.write_text(json.dumps({"item_id": "x", "verdict": "pass", "criterion": "c1"}) + "\n")
    b = tmp_path / "b.jsonl"
    b.write_text(json.dumps({"item_id": "x", "verdict": "fail", "criterion": "c2"}) + "\n")
    with pytest.raises(LabelsError, match="two or more judges"):
        run_panel([load_verdicts(a)])
    assert main(["panel", str(a), str(b), "-o", str(tmp_path / "p.jsonl")]) == 2
    assert "different criteria" in capsys.readouterr().err
    assert main(["panel", str(a), str(a), "-o", str(tmp_path / "p.jsonl"), "--rule", "most"]) == 2
    assert "--rule" in capsys.readouterr().err
    argv = [
        "panel",
        str(a),
        str(a),
        "-o",
        str(tmp_path / "p.jsonl"),
        "--queue",
        str(tmp_path / "q"),
    ]
    assert main(argv) == 2
    assert "--queue needs --items" in capsys.readouterr().err
    assert main(["panel", str(a), str(b), "-o", str(a)]) == 2  # an input is never overwritten
    assert not (tmp_path / "p.jsonl").exists()
