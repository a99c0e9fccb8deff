"""Live collection: concurrency, incremental appends, resuming, failures, Ctrl-C safety."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pathjudge.agent.collect import (
    DEFAULT_AGENT_MODEL,
    LLAMA_CPP_BASE_URL,
    CollectTask,
    collect,
    collect_suite,
    config_backend_name,
    resolve_run_options,
    tasks_from_suite,
)
from pathjudge.agent.io import read_runs
from pathjudge.agent.trajectory import RunRecord
from pathjudge.cli import main
from pathjudge.errors import AgentError, ConfigError, InputError
from pathjudge.rubrics.suite import load_suite
from tests.fakes.anthropic_server import FakeAnthropic, RecordedRequest, message, text, tool_use

SUITE = """\
schema_version: 1
name: mini
tasks:
  - id: rate-429
    input: What HTTP status code does Meridian return when you exceed the rate limit?
    success: {kind: contains_all, values: ["429"]}
  - id: pro-cost
    input: How much does the Pro plan cost per month?
    success: {kind: contains_all, values: ["25"]}
  - id: trap-flaky-search
    input: How long are backups retained on the Pro plan?
    success: {kind: contains_all, values: ["30"]}
"""


@pytest.fixture
def suite_file(tmp_path: Path) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE)
    return path


def test_resolve_run_options_precedence_and_errors() -> None:
    default = resolve_run_options()
    assert (default.agent, default.backend, default.model, default.epochs, default.concurrency) == (
        "docent",
        "anthropic",
        DEFAULT_AGENT_MODEL,
        1,
        8,  # the project configuration's default concurrency
    )
    assert DEFAULT_AGENT_MODEL == "claude-haiku-4-5"
    # the backend names map to the API the loop speaks (old spellings: tests/test_vocabulary.py)
    assert resolve_run_options(backend="openai-compatible", model="m").backend == "openai"
    llama = resolve_run_options(backend="llama-cpp", model="smollm2")
    assert (llama.backend, llama.base_url) == ("openai", LLAMA_CPP_BASE_URL)
    assert resolve_run_options(backend="llama-cpp", model="m", base_url="http://h/v1").base_url == (
        "http://h/v1"
    )
    names = ("openai-compatible", "llama-cpp", "scripted", "anthropic")
    assert [config_backend_name(n) for n in names] == [
        "openai-compatible",
        "llama-cpp",
        "scripted",
        "anthropic",
    ]
    with pytest.raises(InputError, match="unknown backend 'vllm'"):
        config_backend_name("vllm")
    assert resolve_run_options(backend="scripted").model == "docent-scripted"
    conf = {"epochs": 3, "model": "claude-x", "concurrency": 2}
    opts = resolve_run_options(epochs=5, config=conf)
    assert (opts.epochs, opts.model, opts.concurrency) == (
        5,
        "claude-x",
        2,
    )  # explicit > config > default
    with pytest.raises(InputError, match="unknown backend 'openia'"):
        resolve_run_options(backend="openia")
    with pytest.raises(ConfigError, match="concurrency must be a whole number"):
        resolve_run_options(config={"concurrency": 0})
    with pytest.raises(InputError, match="needs a model name"):
        resolve_run_options(backend="openai-compatible")


def test_scripted_collection_resumes_without_repeating(suite_file: Path, tmp_path: Path) -> None:
    suite = load_suite(suite_file)
    out = tmp_path / "runs.jsonl"
    first = asyncio.run(
        collect_suite(suite, out, resolve_run_options(backend="scripted", epochs=2))
    )
    assert (first.planned, first.skipped, first.written, first.failed) == (6, 0, 6, ())
    before = out.read_bytes()
    again = asyncio.run(
        collect_suite(suite, out, resolve_run_options(backend="scripted", epochs=3))
    )
    assert (again.planned, again.skipped, again.written) == (9, 6, 3)
    assert out.read_bytes().startswith(before)  # finished runs untouched, new ones appended
    runs = list(read_runs(out))
    assert sorted((r.task_id, r.epoch) for r in runs) == sorted(
        (t, e) for t in ("rate-429", "pro-cost", "trap-flaky-search") for e in range(3)
    )
    flaky = [r for r in runs if r.task_id == "trap-flaky-search"]
    assert all(r.metadata["docent_variant"] == "flaky_search" and r.error_count == 1 for r in flaky)
    # only some tasks
    only = asyncio.run(
        collect_suite(
            suite,
            tmp_path / "one.jsonl",
            resolve_run_options(backend="scripted"),
            only=["pro-cost"],
        )
    )
    assert only.written == 1
    with pytest.raises(InputError, match="'nope' is not in the suite"):
        tasks_from_suite(suite, ["nope"])
    # resuming into a file of another model is refused
    with pytest.raises(InputError, match="already holds runs of model 'docent-scripted'"):
        asyncio.run(
            collect_suite(
                suite,
                out,
                resolve_run_options(backend="scripted", model="other"),
            )
        )


def test_torn_tail_is_repaired_and_that_run_redone(tmp_path: Path) -> None:
    tasks = [CollectTask(id=f"t{i}", question="q") for i in range(3)]

    async def runner(task: CollectTask, epoch: int) -> RunRecord:
        return RunRecord(
            run_id=f"{task.id}@{epoch}", task_id=task.id, epoch=epoch, final_answer="a"
        )

    out = tmp_path / "runs.jsonl"
    asyncio.run(collect(tasks, runner, out))
    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:2]) + lines[2][:15])  # crash mid-write of the third run
    result = asyncio.run(collect(tasks, runner, out))
    assert (result.skipped, result.written) == (2, 1)
    assert len(list(read_runs(out))) == 3


def test_failures_are_reported_not_written_and_concurrency_is_bounded(tmp_path: Path) -> None:
    tasks = [CollectTask(id=f"t{i}", question="q") for i in range(6)]
    in_flight = peak = 0

    async def runner(task: CollectTask, epoch: int) -> RunRecord:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.01)
        in_flight -= 1
        if task.id == "t3":
            raise AgentError("the anthropic backend answered HTTP 529")
        if task.id == "t4":
            raise RuntimeError("bug in the agent")
        return RunRecord(run_id=f"{task.id}@{epoch}", task_id=task.id, epoch=epoch)

    out = tmp_path / "runs.jsonl"
    result = asyncio.run(collect(tasks, runner, out, concurrency=2))
    assert peak == 2
    assert result.written == 4
    assert [(f.task_id, f.error) for f in result.failed] == [
        ("t3", "the anthropic backend answered HTTP 529."),
        ("t4", "RuntimeError: bug in the agent"),
    ]
    assert sorted(r.task_id for r in read_runs(out)) == ["t0", "t1", "t2", "t5"]
    # empty task list: nothing to do
    empty = asyncio.run(collect([], runner, tmp_path / "none.jsonl"))
    assert (empty.planned, empty.written) == (0, 0)


def test_cli_run_scripted_and_bad_input(
    suite_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "runs.jsonl"
    assert (
        main(["run", str(suite_file), "--backend", "scripted", "--epochs", "2", "-o", str(out)])
        == 0
    )
    assert "6 runs written" in capsys.readouterr().out
    assert (
        main(["run", str(suite_file), "--backend", "scripted", "--epochs", "2", "-o", str(out)])
        == 0
    )
    assert "0 runs written" in capsys.readouterr().out
    assert (
        main(["run", str(tmp_path / "missing.yaml"), "--backend", "scripted", "-o", str(out)]) == 2
    )
    assert "suite file not found" in capsys.readouterr().err
    assert main(["run", str(suite_file), "--retriever", "bm25", "-o", str(out)]) == 2


def _docent_policy(request: RecordedRequest) -> dict[str, Any]:
    """Search once with the question, then answer (2 model calls per run; 3 on the flaky trap)."""
    msgs = request.json["messages"]
    results = [
        b
        for m in msgs
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    if not results or results[-1]["is_error"]:
        return message([tool_use("search_docs", {"query": msgs[0]["content"]})])
    return message([text("answer from the docs")])


@pytest.mark.slow
def test_ctrl_c_then_rerun_finishes_without_repeating_work(
    suite_file: Path, tmp_path: Path, repo_root: Path
) -> None:
    out = tmp_path / "runs.jsonl"
    # rate-429 and pro-cost take 2 model calls per run, trap-flaky-search 3 (error, retry, answer)
    calls_per_task = {"rate-429": 2, "pro-cost": 2, "trap-flaky-search": 3}
    with FakeAnthropic(_docent_policy, latency=0.2) as server:
        cmd = [
            sys.executable, "-m", "pathjudge", "run", str(suite_file), "--backend", "anthropic",
            "--base-url", server.url, "--epochs", "3", "--concurrency", "2", "-o", str(out),
        ]  # fmt: skip
        env = {**os.environ, "ANTHROPIC_API_KEY": "test-key"}
        proc = subprocess.Popen(
            cmd, cwd=repo_root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if out.exists() and len(out.read_bytes().splitlines()) >= 2:
                break
            if proc.poll() is not None:
                pytest.fail(f"collection ended before the interrupt: {proc.communicate()}")
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err
        assert b"interrupted" in err
        first_bytes = out.read_bytes()
        finished_first = [(r.task_id, r.epoch) for r in read_runs(out)]
        assert 2 <= len(finished_first) < 9
        server.reset()

        rerun = subprocess.run(cmd, cwd=repo_root, env=env, capture_output=True, timeout=120)
        assert rerun.returncode == 0, rerun.stderr
        second_calls = server.count("POST", "/v1/messages")

    runs = list(read_runs(out))
    keys = [(r.task_id, r.epoch) for r in runs]
    assert len(keys) == len(set(keys)) == 9  # every (task, epoch) exactly once
    assert out.read_bytes().startswith(first_bytes)  # finished runs kept byte for byte
    remaining = set(keys) - set(finished_first)
    # the rerun asked the model only for the unfinished runs: no finished work repeated
    assert second_calls == sum(calls_per_task[task] for task, _ in remaining)
