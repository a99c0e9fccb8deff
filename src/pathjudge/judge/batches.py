"""Bulk judging through the Anthropic Message Batches API: chunked, polled together, resumable.

1. Samples already cached are skipped.
2. Batches a previous run submitted but never collected (their ids are in the cache DB) are polled and
   collected first — an interrupted run resumes instead of resubmitting.
3. The rest is split into chunks within the API's limits (at most ``max_requests`` requests and
   ``max_bytes`` of request JSON per batch; by default 100,000 requests and a little under 256 MB).
   Each chunk is reserved in the cache DB *before* it is sent and bound to its batch id the moment the
   API answers, so a crash at any point leaves a record of what was sent.
4. Every open batch is polled concurrently (one progress bar over all of them) until it ``ended``; its
   results are streamed, each ``custom_id`` mapped back to its item, the tool input validated as a
   Verdict and cached; ``errored`` / ``expired`` / ``canceled`` results become
   :class:`~pathjudge.judge.verdict.JudgeFailure` s.

A crash between the API accepting a batch and its id being stored (a window of one HTTP response) leaves a
reservation without an id: the API offers no way to find that batch again, so on resume its requests
are sent again, with a warning on stderr naming how many; nothing is lost.

Batch requests carry the same system block (with ``cache_control``), tool and forced ``tool_choice`` as
the interactive path. There are no re-asks inside a batch: an invalid output is a failure that a
non-batch rerun re-judges (failures are never cached).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pathjudge._progress import Progress, ProgressHandle, or_no_progress
from pathjudge.agent.trajectory import Usage
from pathjudge.errors import JudgeError
from pathjudge.judge.backends.anthropic import AnthropicJudgeBackend, classify_api_error
from pathjudge.judge.backends.base import BackendCallError, TransientError
from pathjudge.judge.cache import BatchEntry, CacheKey, OpenBatch, VerdictCache
from pathjudge.judge.prompt import render_prompt
from pathjudge.judge.runner import (
    JudgeJob,
    JudgeRun,
    RunStats,
    collect_results,
    reply_record,
    sample_keys,
)
from pathjudge.judge.verdict import FailureType, JudgeFailure, SampleVerdict

__all__ = ["MAX_BATCH_BYTES", "MAX_BATCH_REQUESTS", "chunk_requests", "run_batch"]

T = TypeVar("T")

#: The Message Batches API's limits per batch: 100,000 requests and 256 MB.
MAX_BATCH_REQUESTS = 100_000
#: Request JSON per batch, kept 2% under the API's 256 MB for the envelope and the SDK's encoding.
MAX_BATCH_BYTES = int(256 * 1024 * 1024 * 0.98)


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


def chunk_requests(
    requests: Sequence[dict[str, Any]],
    *,
    max_requests: int = MAX_BATCH_REQUESTS,
    max_bytes: int = MAX_BATCH_BYTES,
) -> Iterator[list[dict[str, Any]]]:
    """Split ``requests`` into consecutive chunks of at most ``max_requests`` requests and ``max_bytes``
    of JSON each (a request alone over ``max_bytes`` is a :class:`JudgeError`, never silently dropped)."""
    if max_requests < 1 or max_bytes < 1:
        raise ValueError("max_requests and max_bytes must be at least 1")
    chunk: list[dict[str, Any]] = []
    size = 0
    for request in requests:
        length = len(json.dumps(request, ensure_ascii=False, separators=(",", ":")).encode()) + 1
        if length > max_bytes:
            raise JudgeError(
                f"one judge request ({request.get('custom_id')}) is {length:,} bytes, over the "
                f"{max_bytes:,}-byte batch limit",
                hint="shorten the item's inputs, or judge it without --batch",
            )
        if chunk and (len(chunk) >= max_requests or size + length > max_bytes):
            yield chunk
            chunk, size = [], 0
        chunk.append(request)
        size += length
    if chunk:
        yield chunk


async def run_batch(
    jobs: Sequence[JudgeJob],
    *,
    backend: AnthropicJudgeBackend,
    cache: VerdictCache,
    samples: int = 1,
    poll_interval: float = 10.0,
    progress: Progress | None = None,
    max_requests: int = MAX_BATCH_REQUESTS,
    max_bytes: int = MAX_BATCH_BYTES,
) -> JudgeRun:
    """Judge ``jobs`` through Message Batches (see the module docstring). Empty ``jobs`` → an empty run."""
    started = time.monotonic()
    stats = RunStats(items=len(jobs))
    keys = {job.item_id: sample_keys(job, backend, samples) for job in jobs}
    all_keys = [k for job in jobs for k in keys[job.item_id]]
    stats.samples_needed = len(all_keys)
    done: dict[CacheKey, SampleVerdict] = cache.get_many(all_keys)
    stats.cache_hits = len(done)
    client = backend.client
    collector = _Collector(backend, client, cache, stats, done, set(all_keys), poll_interval)
    _resend_abandoned(cache, backend)
    resumed = cache.open_batches(backend.name, backend.model)
    in_flight = {entry.key for batch in resumed for entry in batch.items.values()}
    pending = [
        (job, key)
        for job in jobs
        for key in keys[job.item_id]
        if key not in done and key not in in_flight
    ]
    submitted: list[OpenBatch] = []
    if pending:
        submitted = await _submit(
            pending,
            backend,
            client,
            cache,
            progress,
            max_requests=max_requests,
            max_bytes=max_bytes,
        )
    # resumed and new batches are polled together: a resumed batch never delays new submissions
    await collector.collect_all([*resumed, *submitted], "judging via batches", progress)

    results, unfinished = collect_results(jobs, keys, done, collector.failed)
    stats.failed_samples = len(collector.failed)
    stats.wall_s = time.monotonic() - started
    return JudgeRun(results=results, unfinished=unfinished, budget_exceeded=False, stats=stats)


def _resend_abandoned(cache: VerdictCache, backend: AnthropicJudgeBackend) -> None:
    """Forget the requests of a submission that stopped before its batch id came back (they are
    sent again), with a warning that the API may bill them twice."""
    abandoned = cache.abandoned_submissions(backend.name, backend.model)
    if abandoned:
        print(
            f"warning: an earlier run stopped while submitting {abandoned} batch request(s) whose "
            "batch id never came back; they are sent again (the API may bill them twice)",
            file=sys.stderr,
        )
        cache.drop_abandoned_submissions(backend.name, backend.model)


async def _submit(
    pending: list[tuple[JudgeJob, CacheKey]],
    backend: AnthropicJudgeBackend,
    client: Any,
    cache: VerdictCache,
    progress: Progress | None,
    *,
    max_requests: int,
    max_bytes: int,
) -> list[OpenBatch]:
    """Send the pending samples as batches within the size limits, each reserved in the cache
    before it is created and bound to its batch id after, so a crash never loses one."""
    entries, requests = _requests(pending, backend)
    chunks = list(chunk_requests(requests, max_requests=max_requests, max_bytes=max_bytes))
    del requests
    submitted: list[OpenBatch] = []
    with or_no_progress(progress)("submitting batches", len(chunks)) as bar:
        for chunk in chunks:
            items = {r["custom_id"]: entries[r["custom_id"]] for r in chunk}
            reservation = cache.reserve_batch(backend.name, backend.model, items)
            batch = await _retrying(_creator(client, chunk))
            cache.bind_batch(reservation, batch.id)
            submitted.append(OpenBatch(batch_id=batch.id, items=items))
            bar.advance()
    return submitted


def _requests(
    pending: list[tuple[JudgeJob, CacheKey]], backend: AnthropicJudgeBackend
) -> tuple[dict[str, BatchEntry], list[dict[str, Any]]]:
    """The batch entry by custom id and the request of each pending sample (each sample once)."""
    entries: dict[str, BatchEntry] = {}
    requests: list[dict[str, Any]] = []
    prompts: dict[str, Any] = {}
    for job, key in pending:
        custom_id = key.custom_id()
        if custom_id in entries:  # the same sample asked twice (duplicate items): send it once
            continue
        prompt = prompts.get(job.item_id) or prompts.setdefault(
            job.item_id, render_prompt(job.criterion, job.inputs)
        )
        entries[custom_id] = BatchEntry(key, job.item_id, job.criterion.id, job.criterion.version)
        requests.append({"custom_id": custom_id, "params": backend.request_params(prompt)})
    return entries, requests


@dataclass
class _Collector:
    """Polls open batches until they end and takes in their results: each verdict cached and kept
    in :attr:`done`, each failure of a wanted sample kept in :attr:`failed`."""

    backend: AnthropicJudgeBackend
    client: Any
    cache: VerdictCache
    stats: RunStats
    done: dict[CacheKey, SampleVerdict]
    wanted: set[CacheKey]
    poll_interval: float
    failed: dict[CacheKey, JudgeFailure] = field(default_factory=dict)

    async def collect_all(
        self, batches: Sequence[OpenBatch], what: str, progress: Progress | None
    ) -> None:
        if not batches:
            return
        total = sum(len(b.items) for b in batches)
        label = f"{what} ({len(batches)} batch{'es' if len(batches) != 1 else ''})"
        with or_no_progress(progress)(label, total) as bar:
            await asyncio.gather(*(self.collect(batch, bar) for batch in batches))

    async def collect(self, batch: OpenBatch, bar: ProgressHandle) -> None:
        client = self.client
        batch_id, items = batch.batch_id, batch.items
        reported = 0
        while True:
            state = await _retrying(lambda: client.messages.batches.retrieve(batch_id))
            counts = state.request_counts
            finished = counts.succeeded + counts.errored + counts.canceled + counts.expired
            if finished > reported:
                bar.advance(finished - reported)
                reported = finished
            if state.processing_status == "ended":
                break
            await asyncio.sleep(self.poll_interval)
        if reported < len(items):
            bar.advance(len(items) - reported)
        decoder = await _retrying(lambda: client.messages.batches.results(batch_id))
        async for entry in decoder:
            item = items.get(entry.custom_id)
            if item is None:
                continue
            self.take(item, entry.result)
        self.cache.close_batch(batch_id)

    def take(self, item: BatchEntry, result: Any) -> None:
        backend, stats, key = self.backend, self.stats, item.key
        if result.type == "succeeded":
            stats.calls += 1
            try:
                reply = backend.parse_message(result.message.model_dump(), batch=True)
            except BackendCallError as error:
                stats.usage = stats.usage + error.usage
                if key in self.wanted:
                    self.failed[key] = _failure(
                        item, backend, error.failure_type, error.message, usage=error.usage
                    )
                return
            stats.usage = stats.usage + reply.usage
            record = reply_record(
                item.item_id, item.criterion_id, item.criterion_version, key, reply, backend
            )
            self.cache.put(key, record)
            self.done[key] = record
        elif key in self.wanted:
            if result.type == "errored":
                inner = getattr(getattr(result, "error", None), "error", None)
                detail = getattr(inner, "type", None) or "error"
                self.failed[key] = _failure(
                    item, backend, "batch_errored", f"batch request errored ({detail})"
                )
            else:
                self.failed[key] = _failure(
                    item, backend, "batch_expired", f"batch request {result.type}"
                )


def _creator(client: Any, chunk: list[dict[str, Any]]) -> Callable[[], Awaitable[Any]]:
    """The create call for one chunk (a closure per chunk, so retries resend the same requests)."""

    def create() -> Awaitable[Any]:
        return client.messages.batches.create(requests=chunk)  # type: ignore[no-any-return]

    return create


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
