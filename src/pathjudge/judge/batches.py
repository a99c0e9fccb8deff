"""Bulk judging through the Anthropic Message Batches API, resumable.

1. Samples already cached are skipped.
2. Batches a previous run submitted but never collected (their ids are in the cache DB) are polled and
   collected first — an interrupted run resumes instead of resubmitting.
3. The rest is submitted as one batch (``custom_id`` derived from the cache key), its id stored at once.
4. Poll (with a progress bar) until ``ended``, stream the results, map each ``custom_id`` back to its
   item, validate the tool input as a Verdict and cache it; ``errored`` / ``expired`` / ``canceled``
   results become :class:`~pathjudge.judge.verdict.JudgeFailure` s.

Batch requests carry the same system block (with ``cache_control``), tool and forced ``tool_choice`` as
the interactive path. There are no re-asks inside a batch: an invalid output is a failure that a
non-batch rerun re-judges (failures are never cached).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from pathjudge._progress import Progress, or_no_progress
from pathjudge._secrets import redact
from pathjudge.agent.trajectory import Usage
from pathjudge.errors import JudgeError
from pathjudge.judge.backends.anthropic import AnthropicJudgeBackend, classify_api_error
from pathjudge.judge.backends.base import BackendCallError, TransientError
from pathjudge.judge.cache import BatchEntry, CacheKey, VerdictCache
from pathjudge.judge.prompt import render_prompt
from pathjudge.judge.runner import JudgeJob, JudgeRun, RunStats, collect_results, sample_keys
from pathjudge.judge.verdict import FailureType, JudgeFailure, SampleVerdict

__all__ = ["run_batch"]

T = TypeVar("T")


async def _retrying(
    call: Callable[[], Awaitable[T]], *, attempts: int = 6, initial: float = 0.5
) -> T:
    """Run an API call, retrying transient failures with exponential backoff (honouring retry-after)."""
    delay = initial
    for attempt in range(1, attempts + 1):
        try:
            return await call()
        except Exception as exc:
            error = classify_api_error(exc, Usage())
            if isinstance(error, TransientError) and attempt < attempts:
                await asyncio.sleep(max(delay, error.retry_after or 0.0))
                delay = min(delay * 2, 30.0)
                continue
            if isinstance(error, JudgeError):
                raise error from None
            message = error.message if isinstance(error, BackendCallError) else type(exc).__name__
            raise JudgeError(
                f"the Message Batches API call failed ({message})", hint="rerun to resume"
            ) from None
    raise JudgeError(
        "the Message Batches API call failed", hint="rerun to resume"
    )  # pragma: no cover


async def run_batch(
    jobs: Sequence[JudgeJob],
    *,
    backend: AnthropicJudgeBackend,
    cache: VerdictCache,
    samples: int = 1,
    poll_interval: float = 10.0,
    progress: Progress | None = None,
) -> JudgeRun:
    """Judge ``jobs`` through Message Batches (see the module docstring). Empty ``jobs`` → an empty run."""
    started = time.monotonic()
    stats = RunStats(items=len(jobs))
    keys = {job.item_id: sample_keys(job, backend, samples) for job in jobs}
    all_keys = [k for job in jobs for k in keys[job.item_id]]
    stats.samples_needed = len(all_keys)
    done: dict[CacheKey, SampleVerdict] = cache.get_many(all_keys)
    stats.cache_hits = len(done)
    failed: dict[CacheKey, JudgeFailure] = {}
    wanted = set(all_keys)

    async def collect(batch_id: str, items: dict[str, BatchEntry]) -> None:
        client = backend.client
        with or_no_progress(progress)(f"batch {batch_id}", len(items)) as bar:
            reported = 0
            while True:
                batch = await _retrying(lambda: client.messages.batches.retrieve(batch_id))
                counts = batch.request_counts
                finished = counts.succeeded + counts.errored + counts.canceled + counts.expired
                if finished > reported:
                    bar.advance(finished - reported)
                    reported = finished
                if batch.processing_status == "ended":
                    break
                await asyncio.sleep(poll_interval)
        decoder = await _retrying(lambda: client.messages.batches.results(batch_id))
        async for entry in decoder:
            item = items.get(entry.custom_id)
            if item is None:
                continue
            key = item.key
            result = entry.result
            if result.type == "succeeded":
                stats.calls += 1
                try:
                    reply = backend.parse_message(result.message.model_dump(), batch=True)
                except BackendCallError as error:
                    stats.usage = stats.usage + error.usage
                    if key in wanted:
                        failed[key] = _failure(
                            item, backend, error.failure_type, error.message, usage=error.usage
                        )
                    continue
                stats.usage = stats.usage + reply.usage
                record = SampleVerdict(
                    item_id=item.item_id,
                    sample_index=key.sample_index,
                    criterion_id=item.criterion_id,
                    criterion_version=item.criterion_version,
                    criterion_hash=key.criterion_hash,
                    input_hash=key.input_hash,
                    backend=backend.name,
                    model=backend.model,
                    verdict=reply.verdict.verdict,
                    reasoning=redact(reply.verdict.reasoning, getattr(backend, "_api_key", None)),
                    evidence=tuple(
                        redact(e, getattr(backend, "_api_key", None))
                        for e in reply.verdict.evidence
                    ),
                    usage=reply.usage,
                    attempts=1,
                )
                cache.put(key, record)
                done[key] = record
            elif key in wanted:
                if result.type == "errored":
                    inner = getattr(getattr(result, "error", None), "error", None)
                    detail = getattr(inner, "type", None) or "error"
                    failed[key] = _failure(
                        item,
                        backend,
                        "batch_errored",
                        f"batch request errored ({detail})",
                    )
                else:
                    failed[key] = _failure(
                        item,
                        backend,
                        "batch_expired",
                        f"batch request {result.type}",
                    )
        cache.close_batch(batch_id)

    for open_batch in cache.open_batches(backend.name, backend.model):
        await collect(open_batch.batch_id, open_batch.items)

    pending = [
        (job, key)
        for job in jobs
        for key in keys[job.item_id]
        if key not in done and key not in failed
    ]
    if pending:
        items: dict[str, BatchEntry] = {}
        requests: list[dict[str, Any]] = []
        prompts: dict[str, Any] = {}
        for job, key in pending:
            prompt = prompts.get(job.item_id) or prompts.setdefault(
                job.item_id, render_prompt(job.criterion, job.inputs)
            )
            custom_id = key.custom_id()
            items[custom_id] = BatchEntry(key, job.item_id, job.criterion.id, job.criterion.version)
            requests.append({"custom_id": custom_id, "params": backend.request_params(prompt)})
        batch = await _retrying(lambda: backend.client.messages.batches.create(requests=requests))
        cache.record_batch(batch.id, backend.name, backend.model, items)
        await collect(batch.id, items)

    results, unfinished = collect_results(jobs, keys, done, failed)
    stats.failed_samples = len(failed)
    stats.wall_s = time.monotonic() - started
    return JudgeRun(results=results, unfinished=unfinished, budget_exceeded=False, stats=stats)


def _failure(
    item: BatchEntry,
    backend: AnthropicJudgeBackend,
    error_type: FailureType,
    message: str,
    *,
    usage: Usage | None = None,
) -> JudgeFailure:
    return JudgeFailure(
        item_id=item.item_id,
        reasoning=f"no verdict: {error_type}",
        error_type=error_type,
        message=message,
        criterion_id=item.criterion_id,
        criterion_hash=item.key.criterion_hash,
        backend=backend.name,
        model=backend.model,
        sample_index=item.key.sample_index,
        attempts=1,
        usage=usage or Usage(),
    )
