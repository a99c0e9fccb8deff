"""What ``pathjudge judge`` does, kept out of the CLI module: option resolution, reading items, writing verdicts.

Every option arrives as None when the user did not give it; :meth:`JudgeOptions.resolve` is the one place
that fills defaults: an explicit value, then the project configuration (``config=``, the
:class:`~pathjudge.config.ResolvedConfig` of ``judge.*``, ``concurrency``, ``cache`` and ``budget_usd``),
then the built-in default. Judge backend names are accepted in both spellings, the judge's
(``anthropic``, ``openai``, ``llama``) and the configuration's (``openai-compatible``, ``llama-cpp``),
through the one table :data:`BACKEND_SPELLINGS`.
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from pathjudge.agent.io import iter_jsonl, write_jsonl
from pathjudge.errors import BudgetExceededError, ConfigError, InputError
from pathjudge.judge.runner import BackendKind, Budget, JudgeJob, JudgeRun, make_backend, run_judge
from pathjudge.rubrics.criteria import get_criterion

if TYPE_CHECKING:
    from pathjudge.config import ResolvedConfig
    from pathjudge.judge.backends.base import JudgeBackend

__all__ = [
    "BACKEND_SPELLINGS",
    "DEFAULT_CACHE",
    "JudgeItem",
    "JudgeOptions",
    "backend_kind",
    "config_backend_name",
    "configured_judge",
    "execute",
    "read_items",
]

DEFAULT_CACHE = Path(".pathjudge") / "cache.sqlite"
DEFAULT_CONCURRENCY = 8
BACKEND_SPELLINGS: dict[str, tuple[BackendKind, str]] = {
    # accepted name: (the judge's backend kind, the project configuration's judge.backend value)
    "anthropic": ("anthropic", "anthropic"),
    "openai": ("openai", "openai-compatible"),
    "openai-compatible": ("openai", "openai-compatible"),
    "llama": ("llama", "llama-cpp"),
    "llama-cpp": ("llama", "llama-cpp"),
}
"""Every accepted judge backend name → (the runner's :data:`BackendKind`, the ``judge.backend`` value)."""


def _spelling(name: str, field: str) -> tuple[BackendKind, str]:
    found = BACKEND_SPELLINGS.get(name)
    if found is None:
        raise ConfigError(
            f"unknown backend {name!r}",
            field=field,
            hint="use anthropic, openai (openai-compatible) or llama (llama-cpp)",
        )
    return found


def backend_kind(name: str) -> BackendKind:
    """The judge backend kind for an accepted name (either spelling); unknown → :class:`ConfigError`."""
    return _spelling(name, "judge.backend")[0]


def config_backend_name(name: str, *, option: str = "--backend") -> str:
    """The ``judge.backend`` configuration value for an accepted name (``openai`` → ``openai-compatible``).

    An unknown name is a :class:`ConfigError` whose field is ``option``, the command-line flag it came from.
    """
    return _spelling(name, option)[1]


def configured_judge(resolved: ResolvedConfig) -> tuple[BackendKind, str | None, str | None]:
    """``(backend kind, model, base URL)`` of the judge in a resolved project configuration.

    The model is None when it is only the built-in default (``claude-opus-4-8`` is an Anthropic model;
    the other backends keep their own default or their demand for a model), so each backend's
    :func:`~pathjudge.judge.runner.make_backend` default applies.
    """
    judge = resolved.config.judge
    model = judge.model if resolved.source("judge.model") != "default" else None
    return backend_kind(judge.backend), model, judge.base_url


class JudgeItem(BaseModel):
    """One line of an items JSONL file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str = Field(min_length=1, description="Unique id; verdicts refer to it.")
    inputs: dict[str, str] = Field(description="The criterion's named inputs, as text.")


@dataclass(frozen=True)
class JudgeOptions:
    """Resolved options for one ``pathjudge judge`` run."""

    backend: BackendKind
    model: str | None
    base_url: str | None
    concurrency: int
    samples: int
    batch: bool
    cache: Path
    budget: Budget | None
    timeout: float
    max_tokens: int
    poll_interval: float
    progress: bool | None

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
        progress: bool | None = None,
        config: ResolvedConfig | None = None,
    ) -> JudgeOptions:
        """Fill defaults and validate; a bad value raises :class:`ConfigError` naming the option.

        Each option: the explicit value, else (for ``backend``, ``model``, ``base_url``,
        ``concurrency``, ``cache`` and ``budget_usd``) the value in ``config``, else the built-in
        default (anthropic, the backend's model, concurrency 8, ``.pathjudge/cache.sqlite``, no budget).
        """
        if config is not None:
            conf_kind, conf_model, conf_url = configured_judge(config)
            backend = backend if backend is not None else conf_kind
            model = model if model is not None else conf_model
            base_url = base_url if base_url is not None else conf_url
            concurrency = concurrency if concurrency is not None else config.config.concurrency
            cache = cache if cache is not None else config.config.cache
            budget_usd = budget_usd if budget_usd is not None else config.config.budget_usd
        kind = backend_kind(backend or "anthropic")
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

    def build_backend(self) -> JudgeBackend:
        """The judge backend these options name, via :func:`~pathjudge.judge.runner.make_backend`.

        The ``openai`` backend takes its key from ``OPENAI_API_KEY`` (none when unset); for ``llama``
        the model is the GGUF file path.
        """
        return make_backend(
            self.backend,
            model=self.model,
            base_url=self.base_url,
            api_key=os.environ.get("OPENAI_API_KEY") if self.backend == "openai" else None,
            max_tokens=self.max_tokens,
            model_path=self.model if self.backend == "llama" else None,
        )


def read_items(path: Path) -> list[JudgeItem]:
    """Read the items JSONL (line-numbered errors); duplicate ids are an :class:`InputError`."""
    items: list[JudgeItem] = []
    seen: set[str] = set()
    for index, item in enumerate(iter_jsonl(path, JudgeItem, what="item"), 1):
        if item.item_id in seen:
            from pathjudge.agent.io import _record_line

            raise InputError(
                f"item id {item.item_id!r} appears twice",
                file=path,
                line=_record_line(path, index),
                field="item_id",
                hint="item ids must be unique",
            )
        seen.add(item.item_id)
        items.append(item)
    return items


def _summary(run: JudgeRun, output: Path) -> str:
    counts = Counter(r.verdict for r in run.results.values())
    stats = run.stats
    cost = f", ${stats.usage.cost_usd:.4f}" if stats.usage.cost_usd is not None else ""
    return (
        f"{len(run.results)} items → {output}: pass {counts.get('pass', 0)}, fail {counts.get('fail', 0)}, "
        f"unsure {counts.get('unsure', 0)}, judge failures {counts.get('error', 0)} · "
        f"{stats.calls} calls, {stats.cache_hits} cached samples, {stats.retries} retries, "
        f"{stats.usage.total_tokens} tokens{cost}"
    )


def execute(
    items_path: Path,
    criterion_ref: str,
    output: Path,
    options: JudgeOptions,
    *,
    warn: Callable[[str], None],
) -> str:
    """Run the judge over the items file and write verdicts in input order; return a one-line summary.

    With a budget that runs out, the verdicts obtained are written and :class:`BudgetExceededError` is
    raised (they are cached too, so a rerun with a larger budget finishes the rest).
    """
    from pathjudge.judge.cache import VerdictCache

    criterion = get_criterion(criterion_ref)
    items = read_items(items_path)
    jobs = []
    for number, item in enumerate(items, start=1):
        try:
            criterion.check_inputs(item.inputs, item_id=item.item_id)
        except InputError as exc:
            raise InputError(
                exc.message, file=items_path, line=number, field=exc.field, hint=exc.hint
            ) from None
        jobs.append(JudgeJob(item_id=item.item_id, criterion=criterion, inputs=item.inputs))
    backend = options.build_backend()
    if options.budget is not None and options.budget.max_usd is not None:
        from pathjudge.agent.trajectory import Usage
        from pathjudge.judge.backends.base import cost_usd

        if cost_usd(backend.name, backend.model, Usage(input_tokens=1)) is None:
            raise ConfigError(
                f"no price is known for {backend.name}:{backend.model}, so --budget-usd cannot be enforced",
                field="budget_usd",
                hint="use --budget-tokens instead",
            )

    async def main() -> JudgeRun:
        try:
            with VerdictCache(options.cache) as cache:
                if options.batch:
                    from pathjudge.judge.backends.anthropic import AnthropicBackend
                    from pathjudge.judge.batches import run_batch

                    assert isinstance(backend, AnthropicBackend)
                    return await run_batch(
                        jobs,
                        backend=backend,
                        cache=cache,
                        samples=options.samples,
                        poll_interval=options.poll_interval,
                        show_progress=options.progress,
                    )
                return await run_judge(
                    jobs,
                    backend=backend,
                    cache=cache,
                    concurrency=options.concurrency,
                    samples=options.samples,
                    timeout=options.timeout,
                    budget=options.budget,
                    show_progress=options.progress,
                )
        finally:
            await backend.aclose()

    run = asyncio.run(main())
    write_jsonl(output, run.results.values())
    failures = run.failures
    for failure in failures[:5]:
        warn(f"no verdict for {failure.item_id!r}: {failure.error_type}: {failure.message}")
    if len(failures) > 5:
        warn(f"... and {len(failures) - 5} more judge failures (see {output})")
    if run.budget_exceeded:
        assert options.budget is not None
        raise BudgetExceededError(
            f"the judge budget ran out ({options.budget.describe()}); wrote {len(run.results)} verdicts, "
            f"{len(run.unfinished)} items not judged",
            file=output,
            hint="everything judged is cached; rerun with a larger budget to finish",
        )
    return _summary(run, output)
