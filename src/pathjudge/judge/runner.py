"""The judge runner: one async core that turns (item, criterion, inputs) into verdicts, fast and safely.

- Cache first: every sample already in the :class:`~pathjudge.judge.cache.VerdictCache` is reused; a
  rerun of finished work makes zero calls. Each new sample is committed as it arrives.
- Bounded, adaptive concurrency (:class:`AdaptiveLimiter`): at most ``concurrency`` calls in flight; a 429
  or 529 cuts the limit (x0.7, at most once a second) and pauses new calls for its ``retry-after``, each
  success grows it back (+1 per window); the ``anthropic-ratelimit-*`` headers pace new calls at the
  limits' refill rate once a window of calls would spend them (the first call goes alone to read them).
- Retries for 429, 529, 5xx, timeouts, dropped connections and broken answers: tenacity's
  ``AsyncRetrying`` with exponential backoff and jitter, capped, never shorter than the server's
  ``retry-after``. The backend re-asks (bounded) on invalid
  output. A per-call timeout bounds every call.
- A token / USD budget: once spent, no new call starts; calls in flight finish and are saved; the run
  reports the unfinished items (``judge_requests`` then raises ``BudgetExceededError``).
- k samples per item, aggregated by majority vote with the agreement rate (:func:`aggregate_samples`).
- Failures are data: an item whose samples all failed is a :class:`JudgeFailure`, not a crash.
- CPU per call is what caps throughput at high concurrency (one event loop): while calls run, the
  heap that existed before the run is frozen out of the cyclic garbage collector (:func:`pathjudge._heap.frozen_heap`).

``run_judge`` is the async core; ``run_judge_sync``, ``judge_requests`` and ``judge_requests_sync`` are
thin wrappers.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from pathjudge._aio import run_sync
from pathjudge._heap import frozen_heap
from pathjudge._progress import Progress, or_no_progress
from pathjudge._secrets import redact
from pathjudge.agent.trajectory import Usage
from pathjudge.errors import BudgetExceededError, ConfigError, InputError, JudgeError
from pathjudge.judge.backends.base import (
    BackendCallError,
    BackendReply,
    JudgeBackend,
    TransientError,
    ratelimit_pause,
    ratelimit_state,
)
from pathjudge.judge.cache import CacheKey, VerdictCache, input_hash
from pathjudge.judge.evidence import verify_evidence
from pathjudge.judge.prompt import render_prompt
from pathjudge.judge.verdict import (
    JudgeFailure,
    JudgeResult,
    SampleVerdict,
    aggregate_samples,
)
from pathjudge.rubrics.criteria import Criterion, get_criterion

__all__ = [
    "AdaptiveLimiter",
    "Budget",
    "JudgeJob",
    "JudgeRun",
    "RequestLike",
    "RunStats",
    "judge_requests",
    "judge_requests_sync",
    "make_jobs",
    "run_judge",
    "run_judge_sync",
]


class RequestLike(Protocol):
    """Anything with an item id, a criterion id (built-in id or YAML path) and string inputs."""

    @property
    def item_id(self) -> str: ...

    @property
    def criterion_id(self) -> str: ...

    @property
    def inputs(self) -> Mapping[str, str]: ...


@dataclass(frozen=True)
class JudgeJob:
    """One item to judge: its id, the resolved criterion and the inputs (validated against it)."""

    item_id: str
    criterion: Criterion
    inputs: Mapping[str, str]


def make_jobs(
    requests: Iterable[RequestLike], *, criteria: Mapping[str, Criterion] | None = None
) -> list[JudgeJob]:
    """Resolve each request's criterion (``criteria`` first, then built-ins/paths) and check its inputs.

    Raises :class:`InputError` on a duplicate item id or inputs that do not fit the criterion.
    Empty input gives an empty list.
    """
    jobs: list[JudgeJob] = []
    seen: set[str] = set()
    resolved: dict[str, Criterion] = dict(criteria or {})
    for request in requests:
        if request.item_id in seen:
            raise InputError(
                f"item id {request.item_id!r} appears twice",
                field="item_id",
                hint="item ids must be unique",
            )
        seen.add(request.item_id)
        criterion = resolved.get(request.criterion_id)
        if criterion is None:
            criterion = get_criterion(request.criterion_id)
            resolved[request.criterion_id] = criterion
        criterion.check_inputs(request.inputs, item_id=request.item_id)
        jobs.append(
            JudgeJob(item_id=request.item_id, criterion=criterion, inputs=dict(request.inputs))
        )
    return jobs


@dataclass
class Budget:
    """A spending limit in USD and/or tokens; None means unlimited. ``charge`` records usage."""

    max_usd: float | None = None
    max_tokens: int | None = None
    spent_usd: float = 0.0
    spent_tokens: int = 0

    def charge(self, usage: Usage) -> None:
        self.spent_tokens += usage.total_tokens
        self.spent_usd += usage.cost_usd or 0.0

    @property
    def exhausted(self) -> bool:
        if self.max_usd is not None and self.spent_usd >= self.max_usd:
            return True
        return self.max_tokens is not None and self.spent_tokens >= self.max_tokens

    def describe(self) -> str:
        parts = []
        if self.max_usd is not None:
            parts.append(f"${self.spent_usd:.4f} of ${self.max_usd:g}")
        if self.max_tokens is not None:
            parts.append(f"{self.spent_tokens} of {self.max_tokens} tokens")
        return ", ".join(parts) or "no limit"


class AdaptiveLimiter:
    """A concurrency limit that shrinks on throttling and grows back on success (AIMD).

    ``throttle()`` multiplies the limit by 0.7 (never below 1, at most once per ``cooldown`` seconds);
    ``success()`` adds ``1/limit`` (so +1 per full window), never above ``max_limit``; ``pause(s)`` holds
    every new acquisition for ``s`` seconds.

    Rate limits are met before they answer 429: :meth:`observe_headers` reads each answer's
    ``anthropic-ratelimit-*`` headers and :meth:`observe_usage` what a call costs; when a window of
    calls would spend a limit, new calls start at once only while the limit has room for them
    (``credit``) and then one refill-time apart (``interval``). With ``probe``, the first call goes
    alone, so its headers steer the rest instead of every slot starting at once. A 429 with
    ``retry-after`` pauses every new call for that long.
    """

    def __init__(self, max_limit: int, *, cooldown: float = 1.0, probe: bool = False) -> None:
        if max_limit < 1:
            raise ConfigError(
                f"concurrency must be at least 1, got {max_limit}", field="concurrency"
            )
        self.max_limit = max_limit
        self.limit = float(max_limit)
        self.cooldown = cooldown
        self.active = 0
        self.calling = 0
        """Calls sent and not answered yet (``active`` also counts slots held while a start is paced)."""
        self.min_limit_seen = float(max_limit)
        self._pause_until = 0.0
        self._last_cut = -1e9
        self.costs: dict[str, float] = {"requests": 1.0}
        """What one call spends of each ``anthropic-ratelimit-*`` limit (tokens: learned from usage)."""
        self._interval = 0.0
        self._credit = 0
        self._rates: dict[str, float] = {}
        self._last_start = 0.0
        self._gate = asyncio.Lock()
        self._state: dict[str, tuple[float, float]] = {}
        self._probing = probe
        """With ``probe``, until the first answer: one call at a time, so its ``anthropic-ratelimit-*`` headers
        (if any) steer the rest instead of a burst of every slot at once."""
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()

    @property
    def capacity(self) -> int:
        return max(1, int(self.limit))

    @property
    def _room(self) -> int:
        return 1 if self._probing else self.capacity

    def answered(self) -> None:
        """An answer arrived (its headers seen): the probe is over."""
        if self._probing:
            self._probing = False
            self._wake()

    async def acquire(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            now = time.monotonic()
            if self._pause_until > now:
                await asyncio.sleep(self._pause_until - now)
                continue
            if self.active < self._room:
                self.active += 1
                if self._interval:
                    try:
                        await self._paced()
                    except BaseException:
                        self.active -= 1
                        self._wake()
                        raise
                self.calling += 1
                return
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if not waiter.done() or waiter.cancelled():
                    with contextlib.suppress(ValueError):
                        self._waiters.remove(waiter)
                else:  # woken and cancelled at once: pass the wake-up on
                    self._wake()
                raise

    async def _paced(self) -> None:
        """Hold this start until the server has room: at once while there is ``credit``, else one
        ``interval`` after the last start (re-read every 0.1 s: a new answer may change it)."""
        async with self._gate:
            while self._interval and self._credit <= 0:
                wait = self._last_start + self._interval - time.monotonic()
                if wait <= 0:
                    break
                await asyncio.sleep(min(wait, 0.1))
            self._credit = max(0, self._credit - 1)
            self._last_start = time.monotonic()

    def release(self) -> None:
        self.active -= 1
        self.calling -= 1
        self._wake()

    def _wake(self) -> None:
        free = self._room - self.active
        while free > 0 and self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                free -= 1

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        await self.acquire()
        try:
            yield
        finally:
            self.release()

    def success(self) -> None:
        if self.limit < self.max_limit:
            self.limit = min(float(self.max_limit), self.limit + 1.0 / self.limit)
            self._wake()

    def throttle(self) -> None:
        now = time.monotonic()
        if now - self._last_cut >= self.cooldown:
            self.limit = max(1.0, self.limit * 0.7)
            self.min_limit_seen = min(self.min_limit_seen, self.limit)
            self._last_cut = now

    def pause(self, seconds: float) -> None:
        self._pause_until = max(self._pause_until, time.monotonic() + seconds)

    def observe_usage(self, usage: Usage) -> None:
        """Learn what one call costs of each token limit (a running average of replies' usage)."""
        spent = {
            "tokens": usage.total_tokens,
            "input-tokens": usage.input_tokens + usage.cache_creation_input_tokens,
            "output-tokens": usage.output_tokens,
        }
        for name, value in spent.items():
            if value > 0:
                known = self.costs.get(name)
                self.costs[name] = float(value) if known is None else 0.8 * known + 0.2 * value
        self._steer()

    def observe_headers(self, headers: Mapping[str, str]) -> None:
        """Steer by the ``anthropic-ratelimit-*`` headers of an answer: a spent limit pauses every
        new call until it takes one again; a limit that a window of calls would spend paces the
        starts at its refill rate (one call's cost / units refilled per second).

        The limits are token buckets, refilled continuously, and ``-reset`` is when one is full
        again: a spent limit whose refill rate the headers give waits until it holds one call's
        cost (:meth:`_steer`), not until its reset; only one without a readable rate waits for it."""
        self._state = ratelimit_state(headers)
        wait = ratelimit_pause(headers, skip=self._state)
        if wait:
            self.pause(min(wait, 120.0))
        self._steer()

    def _steer(self) -> None:
        """Pace from the last headers: ``credit`` calls may start at once (what the limits hold,
        less the calls in flight, which the server may not have counted yet); after that, starts
        are spaced by the slowest limit's refill time for one call."""
        interval = 0.0
        credit = self.max_limit
        window = max(1, int(self.limit))
        for name, (remaining, estimate) in self._state.items():
            cost = self.costs.get(name)
            if not cost or estimate <= 0:
                continue
            # the reset time is whole seconds: each estimate of the refill rate errs low by up to
            # a second's worth, so the best recent one is kept (decaying, should the limit drop)
            rate = self._rates[name] = max(estimate, 0.99 * self._rates.get(name, 0.0))
            if remaining < cost:
                self.pause(min((cost - remaining) / rate, 120.0))
            if remaining < cost * window:
                interval = max(interval, cost / rate)
            credit = min(credit, int(remaining // cost))
        self._interval = min(interval, 120.0)
        # what remains is room for new calls, less the calls in flight: an answer's headers may
        # predate the calls sent since (several answers arriving together would each grant the same
        # room again, and the burst would draw 429s)
        self._credit = max(0, credit - self.calling) if interval else 0


@dataclass
class RunStats:
    """What a run did: calls, cache hits, retries, throttling, failures, usage and wall time.

    ``calls`` counts every request sent to the model; ``retries`` the requests beyond the first of
    each sample: a transient error tried again, and an invalid output the backend re-asked for.
    """

    items: int = 0
    samples_needed: int = 0
    cache_hits: int = 0
    calls: int = 0
    retries: int = 0
    throttled: int = 0
    failed_samples: int = 0
    usage: Usage = field(default_factory=Usage)
    wall_s: float = 0.0
    min_concurrency: float = 0.0


@dataclass(frozen=True)
class JudgeRun:
    """Results by item id (input order), the items left unjudged by the budget, and stats."""

    results: dict[str, JudgeResult]
    unfinished: tuple[str, ...]
    budget_exceeded: bool
    stats: RunStats

    @property
    def failures(self) -> list[JudgeFailure]:
        return [r for r in self.results.values() if isinstance(r, JudgeFailure)]


class _BudgetStop(Exception):
    pass


def sample_keys(
    job: JudgeJob, backend: JudgeBackend, samples: int, *, criterion_hash: str | None = None
) -> list[CacheKey]:
    """The cache keys of a job's ``samples`` samples.

    ``criterion_hash`` (when given) must be ``job.criterion.content_hash``, computed once by a caller
    that keys many jobs of the same criterion.
    """
    hashed = input_hash(job.inputs)
    criterion = job.criterion.content_hash if criterion_hash is None else criterion_hash
    # the backend's identity includes a non-default server: another server never reuses verdicts
    identity = backend.cache_identity()
    return [CacheKey(identity, backend.model, criterion, hashed, s) for s in range(samples)]


def with_evidence_check(sample: SampleVerdict, inputs: Mapping[str, str]) -> SampleVerdict:
    """``sample`` with ``evidence_verified`` set by checking its quotes against ``inputs``.

    A sample already checked (from a newer cache entry) is returned as it is.
    """
    if sample.evidence_verified is not None or not sample.evidence:
        return sample
    check = verify_evidence(sample.evidence, inputs)
    if check.verified is None:
        return sample
    return sample.model_copy(
        update={"evidence_verified": check.verified, "unverified_evidence": check.missing}
    )


def sample_record(
    job: JudgeJob, key: CacheKey, reply: BackendReply, backend: JudgeBackend
) -> SampleVerdict:
    return reply_record(
        job.item_id,
        job.criterion.id,
        job.criterion.version,
        key,
        reply,
        backend,
        inputs=job.inputs,
    )


def reply_record(
    item_id: str,
    criterion_id: str,
    criterion_version: str,
    key: CacheKey,
    reply: BackendReply,
    backend: JudgeBackend,
    *,
    inputs: Mapping[str, str] | None = None,
) -> SampleVerdict:
    """The cached record of one judge reply: any API key it quotes redacted, and its evidence checked
    against ``inputs`` when they are at hand (a Message Batches result comes without them)."""
    api_key = getattr(backend, "_api_key", None)
    extra: dict[str, Any] = {}
    if inputs is not None:
        check = verify_evidence(reply.verdict.evidence, inputs)
        extra = {"evidence_verified": check.verified, "unverified_evidence": check.missing}
    return SampleVerdict(
        item_id=item_id,
        sample_index=key.sample_index,
        criterion_id=criterion_id,
        criterion_version=criterion_version,
        criterion_hash=key.criterion_hash,
        input_hash=key.input_hash,
        backend=backend.name,
        model=backend.model,
        verdict=reply.verdict.verdict,
        # a reply may quote a key (a prompt-injected run, a proxy echoing headers): never store it
        reasoning=redact(reply.verdict.reasoning, api_key),
        evidence=tuple(redact(e, api_key) for e in reply.verdict.evidence),
        usage=reply.usage,
        attempts=reply.attempts,
        **extra,
    )


def failure_record(
    job: JudgeJob, key: CacheKey, error: BackendCallError, backend: JudgeBackend, *, attempts: int
) -> JudgeFailure:
    return JudgeFailure(
        item_id=job.item_id,
        reasoning=f"no verdict: {error.failure_type}",
        error_type=error.failure_type,
        message=error.message,
        criterion_id=job.criterion.id,
        criterion_hash=key.criterion_hash,
        backend=backend.name,
        model=backend.model,
        sample_index=key.sample_index,
        attempts=attempts,
        usage=error.usage,
    )


def collect_results(
    jobs: Sequence[JudgeJob],
    keys: Mapping[str, list[CacheKey]],
    done: Mapping[CacheKey, SampleVerdict],
    failed: Mapping[CacheKey, JudgeFailure],
) -> tuple[dict[str, JudgeResult], tuple[str, ...]]:
    """Aggregate per item, in job order; items with a sample neither done nor failed are unfinished."""
    results: dict[str, JudgeResult] = {}
    unfinished: list[str] = []
    for job in jobs:
        item_keys = keys[job.item_id]
        if any(k not in done and k not in failed for k in item_keys):
            unfinished.append(job.item_id)
            continue
        results[job.item_id] = aggregate_samples(
            job.item_id,
            [with_evidence_check(done[k], job.inputs) for k in item_keys if k in done],
            [failed[k] for k in item_keys if k in failed],
        )
    return results, tuple(unfinished)


MAX_RETRY_AFTER = 120.0
"""The longest ``retry-after`` obeyed (a server asking for more gets this)."""


def _retry_policy(*, max_attempts: int, backoff_initial: float, backoff_max: float) -> Any:
    """The runner's retries as tenacity documents them (an ``AsyncRetrying``): a
    :class:`TransientError` (429, 529, 5xx, timeouts, dropped connections, a broken answer) is tried
    again, at most ``max_attempts`` calls in all, after exponential backoff with jitter that is
    never shorter than the server's ``retry-after`` (capped at :data:`MAX_RETRY_AFTER`); anything
    else is re-raised as it is."""
    from tenacity import (
        AsyncRetrying,
        RetryCallState,
        retry_if_exception_type,
        stop_after_attempt,
        wait_exponential_jitter,
    )

    backoff = wait_exponential_jitter(
        multiplier=backoff_initial, max=backoff_max, jitter=backoff_initial
    )

    def wait(retry_state: RetryCallState) -> float:
        base = float(backoff(retry_state))
        outcome = retry_state.outcome
        error = outcome.exception() if outcome is not None and outcome.failed else None
        hinted = error.retry_after if isinstance(error, TransientError) else None
        return max(base, min(hinted, MAX_RETRY_AFTER)) if hinted else base

    return AsyncRetrying(
        stop=stop_after_attempt(max(1, max_attempts)),
        wait=wait,
        retry=retry_if_exception_type(TransientError),
        reraise=True,
    )


async def run_judge(
    jobs: Sequence[JudgeJob],
    *,
    backend: JudgeBackend,
    cache: VerdictCache | None = None,
    concurrency: int = 8,
    samples: int = 1,
    timeout: float | None = 120.0,
    max_attempts: int = 6,
    backoff_initial: float = 0.5,
    backoff_max: float = 30.0,
    budget: Budget | None = None,
    progress: Progress | None = None,
) -> JudgeRun:
    """Judge every job ``samples`` times (see the module docstring). Empty ``jobs`` → an empty run.

    Raises :class:`JudgeError` when the judge cannot run at all (e.g. rejected credentials); everything
    judged before that is already in the cache.
    """

    if samples < 1:
        raise ConfigError(f"samples must be at least 1, got {samples}", field="samples")
    started = time.monotonic()
    limiter = AdaptiveLimiter(concurrency, probe=True)
    backend.on_headers = limiter.observe_headers
    stats = RunStats(items=len(jobs))
    keys = _keys_by_item(jobs, backend, samples)
    all_keys = [k for job in jobs for k in keys[job.item_id]]
    stats.samples_needed = len(all_keys)
    done: dict[CacheKey, SampleVerdict] = cache.get_many(all_keys) if cache is not None else {}
    stats.cache_hits = len(done)
    sampler = _Sampler(
        backend=backend,
        limiter=limiter,
        budget=budget or Budget(),
        stats=stats,
        timeout=timeout,
        retrying=_retry_policy(
            max_attempts=max_attempts, backoff_initial=backoff_initial, backoff_max=backoff_max
        ),
        cache=cache,
        done=done,
    )
    todo = [(job, key) for job in jobs for key in keys[job.item_id] if key not in done]
    prompts: dict[str, Any] = {}
    with (
        frozen_heap(enabled=bool(todo)),
        or_no_progress(progress)(f"judging ({backend.name}:{backend.model})", len(todo)) as bar,
    ):
        tasks = [asyncio.ensure_future(sampler.sample(job, key, prompts, bar)) for job, key in todo]
        try:
            await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
    results, unfinished = collect_results(jobs, keys, done, sampler.failed)
    stats.wall_s = time.monotonic() - started
    stats.min_concurrency = limiter.min_limit_seen
    return JudgeRun(
        results=results, unfinished=unfinished, budget_exceeded=bool(unfinished), stats=stats
    )


def _keys_by_item(
    jobs: Sequence[JudgeJob], backend: JudgeBackend, samples: int
) -> dict[str, list[CacheKey]]:
    """Each job's sample cache keys by item id (a criterion's content hash computed once)."""
    criterion_hashes: dict[int, str] = {}
    keys: dict[str, list[CacheKey]] = {}
    for job in jobs:
        criterion_hash = criterion_hashes.get(id(job.criterion))
        if criterion_hash is None:
            criterion_hash = criterion_hashes[id(job.criterion)] = job.criterion.content_hash
        keys[job.item_id] = sample_keys(job, backend, samples, criterion_hash=criterion_hash)
    return keys


@dataclass
class _Sampler:
    """What the samples of one :func:`run_judge` share: the backend behind its concurrency limiter
    and budget, the retry policy, the run's counters, and where each answer or failure goes."""

    backend: JudgeBackend
    limiter: AdaptiveLimiter
    budget: Budget
    stats: RunStats
    timeout: float | None
    retrying: Any
    cache: VerdictCache | None
    done: dict[CacheKey, SampleVerdict]
    failed: dict[CacheKey, JudgeFailure] = field(default_factory=dict)

    async def call(self, prompt: Any) -> BackendReply:
        """One call in a concurrency slot; what it cost is counted even when it fails."""
        budget, limiter, stats, timeout = self.budget, self.limiter, self.stats, self.timeout
        if budget.exhausted:
            raise _BudgetStop
        await limiter.acquire()
        try:
            if budget.exhausted:
                raise _BudgetStop
            stats.calls += 1
            try:
                if timeout is None:
                    return await self.backend.judge(prompt, timeout=None)
                async with asyncio.timeout(timeout + 5.0):
                    return await self.backend.judge(prompt, timeout=timeout)
            except TimeoutError:
                error: BackendCallError = TransientError(
                    "timeout", f"no answer within {timeout:g} s"
                )
            except (BackendCallError, JudgeError, _BudgetStop, asyncio.CancelledError):
                raise
            except Exception as exc:  # a backend that broke: this sample fails, the run goes on
                error = BackendCallError(
                    "api_error", redact(f"the judge backend failed ({type(exc).__name__})")
                )
            raise error
        except BackendCallError as error:
            limiter.answered()
            # re-asks inside the backend (invalid output sent back to the model) are
            # requests too: the summary's retries must match "after N attempts"
            stats.calls += max(0, error.attempts - 1)
            stats.retries += max(0, error.attempts - 1)
            budget.charge(error.usage)
            stats.usage = stats.usage + error.usage
            if isinstance(error, TransientError) and error.throttle:
                stats.throttled += 1
                limiter.throttle()  # before the slot is freed, as a cut limit
                if error.retry_after:  # the server says when it takes calls again: all wait
                    limiter.pause(min(error.retry_after, MAX_RETRY_AFTER))
            raise
        finally:
            limiter.release()

    async def sample(
        self, job: JudgeJob, key: CacheKey, prompt_cache: dict[str, Any], bar: Any
    ) -> None:
        """One sample of ``job``, retried by the policy: its verdict cached and kept in
        :attr:`done`, or its failure kept in :attr:`failed`; nothing when the budget ran out."""
        stats = self.stats
        prompt = prompt_cache.get(job.item_id)
        if prompt is None:
            prompt = prompt_cache[job.item_id] = render_prompt(job.criterion, job.inputs)
        attempts = 0
        try:
            # tenacity: a TransientError is tried again after the policy's wait until
            # ``max_attempts`` calls were made; any other error ends the sample at once
            async for attempt in self.retrying.copy():
                with attempt:
                    attempts = attempt.retry_state.attempt_number
                    if attempts > 1:
                        stats.retries += 1
                    reply = await self.call(prompt)
            self.limiter.observe_usage(reply.usage)
            self.limiter.answered()
            self.limiter.success()
            stats.calls += max(0, reply.attempts - 1)
            stats.retries += max(0, reply.attempts - 1)
            self.budget.charge(reply.usage)
            stats.usage = stats.usage + reply.usage
            record = sample_record(job, key, reply, self.backend)
            if self.cache is not None:
                self.cache.put(key, record)
            self.done[key] = record
        except _BudgetStop:
            return
        except BackendCallError as error:
            extra = (
                f"; gave up after {attempts} attempts" if isinstance(error, TransientError) else ""
            )
            if extra:
                error.message += extra
            self.failed[key] = failure_record(
                job, key, error, self.backend, attempts=max(attempts, error.attempts)
            )
            stats.failed_samples += 1
        bar.advance()


def run_judge_sync(jobs: Sequence[JudgeJob], *, backend: JudgeBackend, **options: Any) -> JudgeRun:
    """Synchronous wrapper around :func:`run_judge`.

    Connections are closed before its event loop ends; the backend stays usable (a later call opens
    new ones).
    """

    async def main() -> JudgeRun:
        try:
            return await run_judge(jobs, backend=backend, **options)
        finally:
            await backend.aclose()

    return run_sync(main())


async def judge_requests(
    requests: Iterable[RequestLike],
    *,
    backend: JudgeBackend,
    cache: VerdictCache | None = None,
    concurrency: int = 8,
    samples: int = 1,
    criteria: Mapping[str, Criterion] | None = None,
    budget: Budget | None = None,
    timeout: float | None = 120.0,
    progress: Progress | None = None,
) -> dict[str, JudgeResult]:
    """Judge requests (``item_id``, ``criterion_id``, ``inputs``) → ``{item_id: VerdictRecord | JudgeFailure}``.

    The seam for scoring. Raises :class:`BudgetExceededError` when the budget stopped the run (every
    verdict obtained is already in ``cache``, so a rerun with a larger budget resumes). Empty input → ``{}``.
    """
    jobs = make_jobs(requests, criteria=criteria)
    run = await run_judge(
        jobs,
        backend=backend,
        cache=cache,
        concurrency=concurrency,
        samples=samples,
        budget=budget,
        timeout=timeout,
        progress=progress,
    )
    if run.budget_exceeded:
        assert budget is not None
        raise BudgetExceededError(
            f"the judge budget ran out ({budget.describe()}); {len(run.unfinished)} of {len(jobs)} items not judged",
            hint="everything judged is cached; rerun with a larger budget to finish",
        )
    return run.results


def judge_requests_sync(
    requests: Iterable[RequestLike], *, backend: JudgeBackend, **options: Any
) -> dict[str, JudgeResult]:
    """Synchronous wrapper around :func:`judge_requests` (connections closed as in :func:`run_judge_sync`)."""

    async def main() -> dict[str, JudgeResult]:
        try:
            return await judge_requests(requests, backend=backend, **options)
        finally:
            await backend.aclose()

    return run_sync(main())
