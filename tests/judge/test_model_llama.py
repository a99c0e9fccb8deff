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
