"""``pathjudge judge`` end to end against the fake server, including a killed-and-resumed run."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pathjudge.cli import main
from tests.fakes.anthropic_server import FakeAnthropic, RecordedRequest, message, tool_use
from tests.judge.conftest import judge_argv, policy_by

MESSAGES = "/v1/messages"


def write_items(path: Path, n: int) -> Path:
    with path.open("w") as handle:
        for i in range(n):
            answer = "600 requests per minute" if i % 3 else "60 requests per minute"
            handle.write(
                json.dumps(
                    {
                        "item_id": f"q{i:04d}",
                        "inputs": {
                            "question": f"Question {i}: Pro plan rate limit?",
                            "answer": answer,
                            "reference": "The Pro plan allows 600 requests per minute.",
                        },
                    }
                )
                + "\n"
            )
    return path


def deterministic(request: RecordedRequest) -> str:
    """pass when the judged answer says 600, else fail: the same item always gets the same verdict."""
    user = request.json["messages"][0]["content"]
    answer = user.split('name="answer">', 1)[1].split("</pathjudge_data>", 1)[0]
    return "pass" if "600" in answer else "fail"


def test_cli_writes_verdicts_in_input_order(server: FakeAnthropic, tmp_path: Path) -> None:
    server.policy = policy_by(deterministic)
    items = write_items(tmp_path / "items.jsonl", 6)
    out = tmp_path / "verdicts.jsonl"
    code = main(
        judge_argv(items, server.url, "--cache", str(tmp_path / "c.sqlite"), "-o", str(out))
    )
    assert code == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["item_id"] for r in lines] == [f"q{i:04d}" for i in range(6)]
    assert [r["verdict"] for r in lines] == ["fail", "pass", "pass", "fail", "pass", "pass"]
    assert all(r["reasoning"] for r in lines)
    assert server.count("POST", MESSAGES) == 6


def test_cli_bad_item_line_is_one_clear_error(
    server: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text(
        json.dumps({"item_id": "a", "inputs": {"question": "q", "answer": "a", "reference": "r"}})
        + "\n"
        + json.dumps({"item_id": "b", "inputs": {"question": "q", "answer": "a"}})
        + "\n"
    )
    code = main(judge_argv(items, server.url, "-o", str(tmp_path / "o.jsonl")))
    assert code == 2
    err = capsys.readouterr().err
    assert "items.jsonl:2" in err
    assert "reference" in err
    assert server.count("POST", MESSAGES) == 0


def test_cli_without_credentials_is_one_clear_error(
    fake_anthropic: FakeAnthropic,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(tmp_path / "no-config"))
    items = write_items(tmp_path / "items.jsonl", 3)
    code = main(judge_argv(items, fake_anthropic.url, "-o", str(tmp_path / "o.jsonl")))
    assert code == 2
    assert "no Anthropic credentials were found" in capsys.readouterr().err


def test_cli_unknown_criterion(
    server: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = write_items(tmp_path / "items.jsonl", 1)
    code = main(
        ["judge", str(items), "--criterion", "answer-corect", "-o", str(tmp_path / "o.jsonl")]
    )
    assert code == 2
    assert "unknown criterion 'answer-corect'" in capsys.readouterr().err


def test_cli_batch_mode(server: FakeAnthropic, tmp_path: Path) -> None:
    server.policy = policy_by(deterministic)
    items = write_items(tmp_path / "items.jsonl", 4)
    out = tmp_path / "v.jsonl"
    code = main(
        judge_argv(
            items,
            server.url,
            "--batch",
            "--poll-interval",
            "0.01",
            "--cache",
            str(tmp_path / "c.sqlite"),
            "-o",
            str(out),
        )
    )
    assert code == 0
    assert server.count("POST", "/v1/messages/batches") == 1
    assert server.count("POST", MESSAGES) == 0
    assert [json.loads(x)["verdict"] for x in out.read_text().splitlines()] == [
        "fail",
        "pass",
        "pass",
        "fail",
    ]


def _wait_until(ready: Callable[[], bool], *, alive: subprocess.Popen[bytes], cap_s: float) -> bool:
    """Poll ``ready`` until it holds (True) or the process ``alive`` has exited (False).

    ``cap_s`` is a hang guard only, far beyond any loaded machine's start-up time.
    """
    deadline = time.monotonic() + cap_s
    while time.monotonic() < deadline:
        if ready():
            return True
        if alive.poll() is not None:
            return ready()
        time.sleep(0.01)
    return False


def test_killed_run_resumes_sending_only_the_missing_requests(
    fake_anthropic: FakeAnthropic, api_key: str, tmp_path: Path
) -> None:
    """Kill a 1,000-item run midway (SIGKILL, nothing gets to clean up), rerun: only the missing calls go out."""
    n = 1000
    fake_anthropic.policy = policy_by(deterministic)
    fake_anthropic.latency = 0.01
    items = write_items(tmp_path / "items.jsonl", n)
    cache = tmp_path / "cache.sqlite"
    out = tmp_path / "verdicts.jsonl"
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(repo / "src")}
    command = [
        sys.executable, "-m", "pathjudge", *judge_argv(items, fake_anthropic.url),
        "--concurrency", "8", "--cache", str(cache), "-o", str(out), "--no-progress",
    ]  # fmt: skip
    log = tmp_path / "first-run.log"
    with log.open("wb") as stderr:
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
        # Readiness, not time: wait until the server has seen 200 requests, however slowly a loaded
        # machine starts the child, as long as the child is alive (the long cap only guards a hang).
        ready = _wait_until(
            lambda: fake_anthropic.count("POST", MESSAGES) >= 200, alive=process, cap_s=900
        )
        process.send_signal(signal.SIGKILL)
        process.wait(60)
    assert ready, f"the first run stopped before 200 requests: {log.read_text()[-2000:]}"
    sent_first = fake_anthropic.count("POST", MESSAGES)
    assert 200 <= sent_first < n, "the run must be killed midway"
    assert not out.exists()
    with sqlite3.connect(cache) as db:
        cached = db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0]
    assert 0 < cached <= sent_first

    fake_anthropic.reset()
    resumed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    assert resumed.returncode == 0, resumed.stderr
    assert fake_anthropic.count("POST", MESSAGES) == n - cached

    # The results file equals a clean, uninterrupted run's.
    fake_anthropic.reset()
    clean = tmp_path / "clean.jsonl"
    code = main(
        judge_argv(
            items,
            fake_anthropic.url,
            "--concurrency",
            "32",
            "--cache",
            str(tmp_path / "fresh.sqlite"),
            "-o",
            str(clean),
        )
    )
    assert code == 0
    assert fake_anthropic.count("POST", MESSAGES) == n
    assert out.read_bytes() == clean.read_bytes()


def test_ctrl_c_exits_130_and_keeps_verdicts(fake_anthropic: FakeAnthropic, tmp_path: Path) -> None:
    fake_anthropic.policy = policy_by(deterministic)
    fake_anthropic.latency = 0.02
    items = write_items(tmp_path / "items.jsonl", 300)
    cache = tmp_path / "cache.sqlite"
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test-int", "PYTHONPATH": str(repo / "src")}
    command = [
        sys.executable, "-m", "pathjudge", *judge_argv(items, fake_anthropic.url),
        "--concurrency", "4", "--cache", str(cache), "-o", str(tmp_path / "o.jsonl"),
    ]  # fmt: skip
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while fake_anthropic.count("POST", MESSAGES) < 40 and time.monotonic() < deadline:
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert "Traceback" not in err
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0] >= 30


def test_cli_json_stdout_is_only_the_run_summary(
    server: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.policy = policy_by(deterministic)
    items = write_items(tmp_path / "items.jsonl", 6)
    out = tmp_path / "verdicts.jsonl"
    cache = str(tmp_path / "c.sqlite")
    code = main(judge_argv(items, server.url, "--cache", cache, "-o", str(out), "--json", "-"))
    assert code == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)  # stdout parses: nothing else was printed there
    assert "6 items" in captured.err  # the human summary moved to stderr
    assert document["items"] == 6
    assert document["verdicts"] == {"pass": 4, "fail": 2, "unsure": 0}
    assert document["judge_failures"] == []
    assert document["requests"] == 6
    assert document["cached_samples"] == 0
    assert document["usage"]["total_tokens"] > 0
    assert document["verdicts_path"] == str(out)
    judge = document["judge"]
    assert judge["backend"] == "anthropic"
    assert judge["criterion_id"] == "answer-correct"
    from pathjudge.rubrics.criteria import get_criterion

    assert judge["criterion_hash"] == get_criterion("answer-correct").content_hash
    first = json.loads(out.read_text().splitlines()[0])
    assert judge["model"] == first["model"]

    # a rerun is served from the cache, and --json PATH writes the file and keeps the summary line
    report = tmp_path / "run.json"
    code = main(
        judge_argv(items, server.url, "--cache", cache, "-o", str(out), "--json", str(report))
    )
    assert code == 0
    captured = capsys.readouterr()
    assert "6 items" in captured.out
    rerun = json.loads(report.read_text())
    assert rerun["cached_samples"] == 6
    assert rerun["requests"] == 0
    assert server.count("POST", MESSAGES) == 6


def test_cli_json_names_judge_failures_and_keeps_exit_one(
    server: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.policy = lambda _r: message([tool_use("Verdict", {"verdict": "maybe"})])
    items = write_items(tmp_path / "items.jsonl", 2)
    code = main(
        judge_argv(
            items,
            server.url,
            "--cache",
            str(tmp_path / "c.sqlite"),
            "-o",
            str(tmp_path / "v"),
            "--json",
            "-",
        )
    )
    assert code == 1
    document = json.loads(capsys.readouterr().out)
    assert document["items"] == 2
    assert document["verdicts"] == {"pass": 0, "fail": 0, "unsure": 0}
    assert [f["item_id"] for f in document["judge_failures"]] == ["q0000", "q0001"]
    assert {f["error_type"] for f in document["judge_failures"]} == {"invalid_output"}
    assert document["retries"] == 4  # 2 re-asks per item


def test_cli_json_refuses_an_output_that_is_an_input(
    server: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = write_items(tmp_path / "items.jsonl", 2)
    before = items.read_text()
    code = main(judge_argv(items, server.url, "-o", str(tmp_path / "v"), "--json", str(items)))
    assert code == 2
    assert "--json" in capsys.readouterr().err
    assert items.read_text() == before
    assert server.count("POST", MESSAGES) == 0


def test_one_items_file_with_slice_and_metadata_serves_judging_labelling_and_slicing(
    server: FakeAnthropic, tmp_path: Path
) -> None:
    """``slice``, ``metadata``, ``split`` and ``group`` (what the labelling page reads) are accepted
    by the judge and kept on the item, and never sent to the model: only ``inputs`` are judged."""
    from pathjudge.calibration.label_app import read_label_items
    from pathjudge.calibration.labels import item_slices
    from pathjudge.judge.items import read_items

    server.policy = policy_by(deterministic)
    items = write_items(tmp_path / "plain.jsonl", 4)
    lines = [json.loads(line) for line in items.read_text().splitlines()]
    sliced = tmp_path / "items.jsonl"
    sliced.write_text(
        "".join(
            json.dumps(
                {
                    **line,
                    "split": "test",
                    "group": "task-7",
                    "slice": {"category": f"SLICE-SECRET-{i % 2}"},
                    "metadata": {"note": "META-SECRET", "slice": {"language": "de"}},
                }
            )
            + "\n"
            for i, line in enumerate(lines)
        )
    )
    out = tmp_path / "verdicts.jsonl"
    code = main(
        judge_argv(sliced, server.url, "--cache", str(tmp_path / "c.sqlite"), "-o", str(out))
    )
    assert code == 0
    assert [json.loads(x)["verdict"] for x in out.read_text().splitlines()] == [
        "fail",
        "pass",
        "pass",
        "fail",
    ]
    sent = [request.body.decode() for request in server.requests if request.path == MESSAGES]
    assert len(sent) == 4
    assert not [body for body in sent if "SECRET" in body or "task-7" in body]
    kept = read_items(sliced)[1][1]
    assert (kept.slice, kept.metadata["note"], kept.split, kept.group) == (
        {"category": "SLICE-SECRET-1"},
        "META-SECRET",
        "test",
        "task-7",
    )
    assert [item.slice["category"] for item in read_label_items(sliced)][:2] == [
        "SLICE-SECRET-0",
        "SLICE-SECRET-1",
    ]
    assert item_slices(sliced)["q0001"] == {"language": "de", "category": "SLICE-SECRET-1"}


def test_an_unknown_top_level_field_of_an_item_is_still_refused(
    server: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = tmp_path / "items.jsonl"
    inputs = {"question": "q", "answer": "a", "reference": "r"}
    items.write_text(json.dumps({"item_id": "a", "inputs": inputs, "slise": {"x": "y"}}) + "\n")
    assert main(judge_argv(items, server.url, "-o", str(tmp_path / "o.jsonl"))) == 2
    err = capsys.readouterr().err
    assert "items.jsonl:1" in err
    assert "slise" in err
