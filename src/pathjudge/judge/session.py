"""A judge session: which backend, whether it can run, the budget and the verdict cache, for every caller.

``pathjudge judge``, ``pathjudge score`` (judged criteria), ``pathjudge calibrate`` (live judging) and
the library all set the judge up here, so a backend name, a missing credential, a budget without a
price or a cache path means the same thing everywhere.

Options arrive as None when the caller did not give them; :meth:`JudgeSession.resolve` is the one place
that fills defaults: an explicit value, then the project configuration (``config=``, the
:class:`~pathjudge.config.ResolvedConfig` of ``judge.*``, ``concurrency``, ``cache`` and
``budget_usd``), then the built-in default.

Backend names are the one vocabulary of :mod:`pathjudge._vocab`: ``anthropic``, ``openai-compatible``
(any OpenAI-compatible chat server), ``llama-cpp`` (a GGUF model in process). ``openai`` and ``llama``
are accepted until 0.3 with a deprecation notice on stderr.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, assert_never

from pathjudge._vocab import BACKENDS, BackendName, canonical_backend
from pathjudge.errors import ConfigError

if TYPE_CHECKING:
    from pathjudge._progress import Progress
    from pathjudge.config import ResolvedConfig
    from pathjudge.judge.backends.base import JudgeBackend
    from pathjudge.judge.runner import Budget, JudgeJob, JudgeRun

__all__ = [
    "DEFAULT_CACHE",
    "DEFAULT_CONCURRENCY",
    "JudgeSession",
    "backend_name",
    "configured_judge",
    "judge_unavailable",
    "make_judge_backend",
]

DEFAULT_CACHE = Path(".pathjudge") / "cache.sqlite"
DEFAULT_CONCURRENCY = 8


def backend_name(name: str, *, field: str = "judge.backend") -> BackendName:
    """The judge backend ``name`` in the current vocabulary; unknown → :class:`ConfigError` naming ``field``.

    A deprecated spelling (``openai``, ``llama``) is accepted with a notice on stderr.
    """
    current = canonical_backend(name, where=field)
    if current not in BACKENDS:
        raise ConfigError(
            f"unknown backend {name!r}",
            field=field,
            hint=f"use one of {', '.join(BACKENDS)}",
        )
    return current


def make_judge_backend(
    kind: str,
    *,
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    max_tokens: int = 1024,
    reasks: int = 2,
    model_path: str | None = None,
    max_connections: int = DEFAULT_CONCURRENCY,
) -> JudgeBackend:
    """Build a judge backend by name (see :func:`backend_name`).

    ``openai-compatible`` needs ``base_url``; ``llama-cpp`` needs a GGUF file path in ``model_path``
    (or, when that is None, in ``model``); a missing one is a :class:`ConfigError`. ``anthropic`` reads
    its credentials from the environment when ``api_key`` is None. ``max_connections`` sizes an HTTP
    backend's connection pool (give it the run's concurrency).
    """
    name = backend_name(kind)
    if name == "anthropic":
        from pathjudge.judge.backends.anthropic import DEFAULT_MODEL, AnthropicJudgeBackend

        return AnthropicJudgeBackend(
            model=model or DEFAULT_MODEL,
            api_key=api_key,
            base_url=base_url,
            max_tokens=max_tokens,
            reasks=reasks,
            max_connections=max_connections,
        )
    if name == "openai-compatible":
        from pathjudge.judge.backends.openai_compat import OpenAICompatBackend

        if not base_url:
            raise ConfigError(
                "the openai-compatible backend needs --base-url (e.g. http://127.0.0.1:8080)",
                field="base_url",
            )
        return OpenAICompatBackend(
            base_url=base_url,
            model=model or "local",
            api_key=api_key,
            max_tokens=max_tokens,
            reasks=reasks,
            max_connections=max_connections,
        )
    if name == "llama-cpp":
        from pathjudge.judge.backends.llama_inprocess import LlamaBackend

        path = model_path or model
        if not path:
            raise ConfigError(
                "the llama-cpp backend needs --model PATH to a GGUF file", field="model"
            )
        return LlamaBackend(model_path=path, max_tokens=max_tokens, reasks=reasks)
    assert_never(name)


def judge_unavailable(
    backend: str, *, model: str | None, base_url: str | None, env: Mapping[str, str] | None = None
) -> str | None:
    """Why no judge can run with these settings (``None`` when one can). Never touches the network.

    - ``anthropic`` (the default) needs ``ANTHROPIC_API_KEY`` or ``ANTHROPIC_AUTH_TOKEN`` in ``env``
      (default ``os.environ``), with or without a base URL;
    - ``openai-compatible`` needs a base URL;
    - ``llama-cpp`` needs ``model`` to be an existing GGUF file.

    An unknown backend name raises :class:`ConfigError` (see :func:`backend_name`).
    """
    environ = os.environ if env is None else env
    name = backend_name(backend)
    if name == "anthropic":
        if environ.get("ANTHROPIC_API_KEY") or environ.get("ANTHROPIC_AUTH_TOKEN"):
            return None
        return "no judge configured: set ANTHROPIC_API_KEY, or choose another judge backend"
    if name == "openai-compatible":
        if base_url:
            return None
        return "no judge configured: the openai-compatible backend needs judge.base_url"
    if name == "llama-cpp":
        if model and Path(model).is_file():
            return None
        return "no judge configured: the llama-cpp backend needs judge.model = a GGUF file path"
    assert_never(name)


def configured_judge(resolved: ResolvedConfig) -> tuple[BackendName, str | None, str | None]:
    """``(backend, model, base URL)`` of the judge in a resolved project configuration.

    The model is None when it is only the built-in default (``claude-opus-4-8`` is an Anthropic model;
    the other backends keep their own default or their demand for a model), so each backend's
    :func:`make_judge_backend` default applies.
    """
    judge = resolved.config.judge
    model = judge.model if resolved.source("judge.model") != "default" else None
    return backend_name(judge.backend), model, judge.base_url


@dataclass(frozen=True)
class JudgeSession:
    """Everything needed to run the judge, resolved and validated (see :meth:`resolve`)."""

    backend: BackendName
    model: str | None
    base_url: str | None
    concurrency: int = DEFAULT_CONCURRENCY
    samples: int = 1
    batch: bool = False
    cache: Path = DEFAULT_CACHE
    budget: Budget | None = None
    timeout: float = 120.0
    max_tokens: int = 1024
    poll_interval: float = 10.0
    progress: Progress | None = field(default=None, compare=False)

    @classmethod
    def resolve(
        cls,
        *,
        backend: str | None = None,
        model: str | None = None,
        base_url: str | None = None,
        concurrency: int | None = None,
        samples: int | None = None,
        batch: bool | None = None,
        cache: Path | None = None,
        budget_usd: float | None = None,
        budget_tokens: int | None = None,
        timeout: float | None = None,
        max_tokens: int | None = None,
        poll_interval: float | None = None,
        progress: Progress | None = None,
        config: ResolvedConfig | None = None,
    ) -> JudgeSession:
        """Fill defaults and validate; a bad value raises :class:`ConfigError` naming the option.

        Each option: the explicit value, else (for ``backend``, ``model``, ``base_url``,
        ``concurrency``, ``cache`` and ``budget_usd``) the value in ``config``, else the built-in
        default (anthropic, the backend's model, concurrency 8, ``.pathjudge/cache.sqlite``, no budget).
        ``progress`` is the callback long runs report to (None: nothing shown).
        """
        if config is not None:
            conf_kind, conf_model, conf_url = configured_judge(config)
            backend = backend if backend is not None else conf_kind
            model = model if model is not None else conf_model
            base_url = base_url if base_url is not None else conf_url
            concurrency = concurrency if concurrency is not None else config.config.concurrency
            cache = cache if cache is not None else config.config.cache
            budget_usd = budget_usd if budget_usd is not None else config.config.budget_usd
        kind = backend_name(backend or "anthropic")
        resolved_batch = bool(batch)
        if resolved_batch and kind != "anthropic":
            raise ConfigError("--batch needs the anthropic backend", field="batch")
        checks = {"concurrency": concurrency, "samples": samples, "max_tokens": max_tokens}
        for name, value in checks.items():
            if value is not None and value < 1:
                raise ConfigError(f"{name} must be at least 1, got {value}", field=name)
        for name, number in {
            "timeout": timeout,
            "poll_interval": poll_interval,
            "budget_usd": budget_usd,
        }.items():
            if number is not None and number <= 0:
                raise ConfigError(f"{name} must be positive, got {number}", field=name)
        budget = None
        if budget_usd is not None or budget_tokens is not None:
            from pathjudge.judge.runner import Budget

            budget = Budget(max_usd=budget_usd, max_tokens=budget_tokens)
        return cls(
            backend=kind,
            model=model,
            base_url=base_url,
            concurrency=concurrency or DEFAULT_CONCURRENCY,
            samples=samples or 1,
            batch=resolved_batch,
            cache=cache or DEFAULT_CACHE,
            budget=budget,
            timeout=timeout or 120.0,
            max_tokens=max_tokens or 1024,
            poll_interval=poll_interval or 10.0,
            progress=progress,
        )

    def unavailable(self, env: Mapping[str, str] | None = None) -> str | None:
        """Why this judge cannot run (see :func:`judge_unavailable`); None when it can."""
        return judge_unavailable(self.backend, model=self.model, base_url=self.base_url, env=env)

    def build_backend(self) -> JudgeBackend:
        """The judge backend of this session (:func:`make_judge_backend`).

        ``openai-compatible`` takes its key from ``OPENAI_API_KEY`` (none when unset); for
        ``llama-cpp`` the model is the GGUF file path. A USD budget for a model without a known price
        is a :class:`ConfigError` (it could not be enforced).
        """
        backend = make_judge_backend(
            self.backend,
            model=self.model,
            base_url=self.base_url,
            api_key=os.environ.get("OPENAI_API_KEY")
            if self.backend == "openai-compatible"
            else None,
            max_tokens=self.max_tokens,
            model_path=self.model if self.backend == "llama-cpp" else None,
            max_connections=self.concurrency,
        )
        if self.budget is not None and self.budget.max_usd is not None:
            from pathjudge.agent.trajectory import Usage
            from pathjudge.judge.backends.base import cost_usd

            if cost_usd(backend.name, backend.model, Usage(input_tokens=1)) is None:
                raise ConfigError(
                    f"no price is known for {backend.name}:{backend.model}, so a USD budget "
                    "(--budget-usd / budget_usd) cannot be enforced",
                    field="budget_usd",
                    hint="use a token budget (--budget-tokens) instead, or unset budget_usd",
                )
        return backend

    async def run(self, jobs: Sequence[JudgeJob], backend: JudgeBackend | None = None) -> JudgeRun:
        """Judge ``jobs`` through this session's verdict cache (Message Batches when ``batch``).

        ``backend`` defaults to :meth:`build_backend`; it is closed when the run ends. Cached samples
        are reused, so a rerun resumes; a budget that runs out ends the run with ``budget_exceeded``.
        """
        from pathjudge.judge.cache import VerdictCache
        from pathjudge.judge.runner import run_judge

        judge = backend if backend is not None else self.build_backend()
        try:
            with VerdictCache(self.cache) as cache:
                if self.batch:
                    from pathjudge.judge.backends.anthropic import AnthropicJudgeBackend
                    from pathjudge.judge.batches import run_batch

                    assert isinstance(judge, AnthropicJudgeBackend)
                    return await run_batch(
                        jobs,
                        backend=judge,
                        cache=cache,
                        samples=self.samples,
                        poll_interval=self.poll_interval,
                        progress=self.progress,
                    )
                return await run_judge(
                    jobs,
                    backend=judge,
                    cache=cache,
                    concurrency=self.concurrency,
                    samples=self.samples,
                    timeout=self.timeout,
                    budget=self.budget,
                    progress=self.progress,
                )
        finally:
            await judge.aclose()

    def run_sync(self, jobs: Sequence[JudgeJob], backend: JudgeBackend | None = None) -> JudgeRun:
        """:meth:`run` in its own event loop."""
        from pathjudge._aio import run_sync

        return run_sync(self.run(jobs, backend))
