"""Live collection: run an agent on every task of a suite for N epochs, concurrently, to a runs JSONL.

The one live, non-deterministic step of an evaluation happens here, once; everything after reads the
frozen file. Collection is:

- **concurrent** — at most ``concurrency`` runs in flight (an asyncio semaphore);
- **incremental** — each finished run is appended and flushed at once (:class:`JsonlAppender`), so a crash
  or Ctrl-C loses only the runs still in flight;
- **resumable** — a ``(task, epoch)`` already in the output file is skipped, so rerunning the same command
  after an interruption finishes the job without repeating finished work;
- **honest about failures** — a run that raised (a backend's :class:`~pathjudge.errors.AgentError`, or any
  other exception of the runner) is not written (a rerun retries it) and is reported in
  :attr:`CollectResult.failed`.

Options default to None and are resolved in ONE place, :func:`resolve_run_options`: an explicit value
wins, then the ``config`` mapping (project configuration, see :func:`run_config`), then the built-in
default. Backend names are the one vocabulary of :mod:`pathjudge._vocab` (``anthropic``,
``openai-compatible``, ``llama-cpp``) plus ``scripted``, mapped to the API the loop speaks by the one
table :data:`AGENT_BACKENDS`; ``openai`` and ``llama`` are accepted until 0.3 with a notice on stderr.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, assert_never, get_args

from pydantic import Field, JsonValue

from pathjudge._io import JsonlAppender, inspect_tail
from pathjudge._progress import Progress, or_no_progress
from pathjudge._records import FrozenModel
from pathjudge._vocab import canonical_backend
from pathjudge.agent.backends import (
    AnthropicModelBackend,
    BackendName,
    ModelBackend,
    OpenAIModelBackend,
    ScriptedBackend,
)
from pathjudge.agent.io import read_runs
from pathjudge.agent.trajectory import RunRecord
from pathjudge.config import DEFAULT_AGENT_MODEL  # the agent model when none is configured
from pathjudge.errors import ConfigError, InputError, PathjudgeError, RecordError

if TYPE_CHECKING:
    from pathjudge.config import ResolvedConfig

__all__ = [
    "AGENT_BACKENDS",
    "DEFAULT_AGENT_MODEL",
    "LLAMA_CPP_BASE_URL",
    "AgentName",
    "AgentRunner",
    "CollectResult",
    "CollectTask",
    "FailedRun",
    "RunOptions",
    "collect",
    "collect_suite",
    "config_backend_name",
    "docent_runner",
    "make_model_backend",
    "resolve_run_options",
    "run_config",
    "tasks_from_suite",
]

AgentName = Literal["docent"]
RetrieverChoice = Literal["keyword", "worst_match"]

LLAMA_CPP_BASE_URL = "http://127.0.0.1:8080/v1"
"""Where the ``llama-cpp`` backend looks for a llama.cpp server when no base URL is given."""

AGENT_BACKENDS: dict[str, BackendName] = {
    # the agent backend's name (config agent.backend, --backend): the model API the loop speaks
    "anthropic": "anthropic",
    "openai-compatible": "openai",
    "llama-cpp": "openai",  # a llama.cpp server speaks the OpenAI chat API
    "scripted": "scripted",
}
"""Every agent backend name → the loop's :data:`BackendName` (the API it speaks).

The deprecated spellings ``openai`` and ``llama`` are accepted until 0.3 (see :mod:`pathjudge._vocab`).
"""


def _agent_backend(value: Any, source: str, field: str = "backend") -> str:
    """The agent backend name in the current vocabulary (deprecated spellings mapped, with a notice)."""
    name = canonical_backend(value, where=field) if isinstance(value, str) else value
    return _choice("backend", name, tuple(AGENT_BACKENDS), source, field=field)


_DEFAULTS: dict[str, Any] = {
    "agent": "docent",
    "backend": "anthropic",
    "epochs": 1,
    "concurrency": 8,
    "max_steps": 4,
    "max_tokens": 400,
    "retriever": "keyword",
}


class RunOptions(FrozenModel):
    """Fully resolved options of a collection."""

    agent: AgentName
    backend: BackendName
    model: str
    base_url: str | None = None
    epochs: int = Field(ge=1)
    concurrency: int = Field(ge=1)
    max_steps: int = Field(ge=1)
    max_tokens: int = Field(ge=1)
    retriever: RetrieverChoice


def _choice(
    name: str, value: Any, allowed: tuple[str, ...], source: str, *, field: str | None = None
) -> str:
    if value not in allowed:
        raise (InputError if source == "option" else ConfigError)(
            f"unknown {name} {value!r}",
            field=field or name,
            hint=f"use one of: {', '.join(allowed)}",
        )
    return str(value)


def _positive(name: str, value: Any, source: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise (InputError if source == "option" else ConfigError)(
            f"{name} must be a whole number >= 1, got {value!r}", field=name
        )
    return value


def resolve_run_options(
    *,
    agent: str | None = None,
    backend: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    epochs: int | None = None,
    concurrency: int | None = None,
    max_steps: int | None = None,
    max_tokens: int | None = None,
    retriever: str | None = None,
    config: Mapping[str, Any] | None = None,
) -> RunOptions:
    """Resolve every collection option: explicit value > ``config[name]`` > built-in default.

    Defaults: agent ``docent``, backend ``anthropic``, model ``claude-haiku-4-5`` for the Anthropic
    backend and ``docent-scripted`` for the scripted one (the OpenAI-compatible backend has no default
    model: name it), 1 epoch, concurrency 8 (as the project configuration's ``concurrency``), 4 model
    turns per run, the keyword retriever. ``backend`` takes any name of :data:`AGENT_BACKENDS`;
    ``llama-cpp`` is the OpenAI-compatible backend with the base URL defaulting to
    :data:`LLAMA_CPP_BASE_URL`. An unknown value is an :class:`InputError` (a ``ConfigError`` when it
    came from ``config``).
    """
    explicit = {
        "agent": agent,
        "backend": backend,
        "model": model,
        "base_url": base_url,
        "epochs": epochs,
        "concurrency": concurrency,
        "max_steps": max_steps,
        "max_tokens": max_tokens,
        "retriever": retriever,
    }
    conf = dict(config or {})
    resolved: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key, value in explicit.items():
        if value is not None:
            resolved[key], sources[key] = value, "option"
        elif conf.get(key) is not None:
            resolved[key], sources[key] = conf[key], "config"
        elif key in _DEFAULTS:
            resolved[key], sources[key] = _DEFAULTS[key], "default"
    resolved["agent"] = _choice("agent", resolved["agent"], get_args(AgentName), sources["agent"])
    spelling = _agent_backend(resolved["backend"], sources["backend"])
    resolved["backend"] = AGENT_BACKENDS[spelling]
    if spelling == "llama-cpp" and resolved.get("base_url") is None:
        resolved["base_url"] = LLAMA_CPP_BASE_URL
    resolved["retriever"] = _choice(
        "retriever", resolved["retriever"], get_args(RetrieverChoice), sources["retriever"]
    )
    for key in ("epochs", "concurrency", "max_steps", "max_tokens"):
        resolved[key] = _positive(key, resolved[key], sources[key])
    if resolved.get("model") is None:
        if resolved["backend"] == "anthropic":
            resolved["model"] = DEFAULT_AGENT_MODEL
        elif resolved["backend"] == "scripted":
            resolved["model"] = "docent-scripted"
        else:
            raise InputError(
                f"the {spelling} backend needs a model name",
                field="model",
                hint="pass --model (or set agent.model), e.g. --model smollm2 for a llama.cpp server",
            )
    return RunOptions.model_validate(resolved)


def config_backend_name(name: str) -> str:
    """The ``agent.backend`` configuration value for a ``--backend`` name (deprecated spellings mapped).

    An unknown name is an :class:`InputError` listing the accepted ones.
    """
    return _agent_backend(name, "option", field="--backend")


def run_config(resolved: ResolvedConfig) -> dict[str, Any]:
    """The ``config`` mapping for :func:`resolve_run_options` from the resolved project configuration.

    Carries ``agent.backend``, ``agent.base_url`` and ``concurrency``, and ``agent.model`` only when
    it was set (command line, environment or file): the built-in ``claude-haiku-4-5`` is an Anthropic
    model, so the other backends keep their own default (or their demand for a model name).
    """
    agent = resolved.config.agent
    return {
        "backend": agent.backend,
        "model": agent.model if resolved.source("agent.model") != "default" else None,
        "base_url": agent.base_url,
        "concurrency": resolved.config.concurrency,
    }


class CollectTask(FrozenModel):
    """What collection needs of a task: its id, the question text, the stored input and metadata."""

    id: str
    question: str
    input: JsonValue = None
    metadata: dict[str, JsonValue] = Field(default_factory=dict)


def tasks_from_suite(suite: Any, only: Sequence[str] | None = None) -> list[CollectTask]:
    """The suite's tasks (``only``: these ids, in suite order) as :class:`CollectTask` s.

    Raises :class:`InputError` when ``only`` names a task the suite does not have.
    """
    tasks = [
        CollectTask(id=t.id, question=t.input_text, input=t.input, metadata=dict(t.metadata))
        for t in suite.tasks
    ]
    if only:
        known = {t.id for t in tasks}
        missing = [t for t in only if t not in known]
        if missing:
            raise InputError(
                f"task {missing[0]!r} is not in the suite",
                field="task",
                hint="check --task against the suite's ids",
            )
        wanted = set(only)
        tasks = [t for t in tasks if t.id in wanted]
    return tasks


AgentRunner = Callable[[CollectTask, int], Awaitable[RunRecord]]
"""``runner(task, epoch) -> RunRecord``: one run of the agent under test."""


def make_model_backend(options: RunOptions) -> ModelBackend:
    """The model backend the options name (the scripted one plays Docent offline)."""
    if options.backend == "anthropic":
        return AnthropicModelBackend(options.model, base_url=options.base_url)
    if options.backend == "openai":
        return OpenAIModelBackend(options.model, base_url=options.base_url)
    if options.backend == "scripted":
        from pathjudge.agent.docent import DocentPolicy

        return ScriptedBackend(DocentPolicy(), model=options.model)
    assert_never(options.backend)


def docent_runner(backend: ModelBackend, options: RunOptions) -> AgentRunner:
    """A runner for Docent over ``backend`` with the options' retriever and step limit."""
    from pathjudge.agent.docent import run_docent

    async def run(task: CollectTask, epoch: int) -> RunRecord:
        return await run_docent(
            backend,
            task_id=task.id,
            question=task.question,
            epoch=epoch,
            retriever=options.retriever,
            task_metadata=task.metadata,
            max_steps=options.max_steps,
            max_tokens=options.max_tokens,
            task_input=task.input,
        )

    return run


class FailedRun(FrozenModel):
    task_id: str
    epoch: int
    error: str


class CollectResult(FrozenModel):
    """What a collection did: planned (task, epoch) pairs, skipped (already finished), written, failed."""

    output: str
    planned: int
    skipped: int
    written: int
    failed: tuple[FailedRun, ...] = ()
    foreign: int = Field(
        default=0,
        description="Runs the output already held of tasks outside the suite or of another agent.",
    )


def _finished(
    output: Path,
    agent_model: str | None,
    known_tasks: Collection[str],
    agent_name: str | None,
) -> tuple[set[tuple[str, int]], int]:
    """The (task, epoch) pairs already in ``output``, and how many of its runs are foreign.

    Foreign: a task not in ``known_tasks``, or an agent name other than ``agent_name`` (when given).
    """
    if not output.exists() or output.stat().st_size == 0:
        return set(), 0
    done: set[tuple[str, int]] = set()
    foreign = 0
    # validate every record before anything is changed; only a torn last line (which the appender
    # then cuts) is tolerated
    state, _ = inspect_tail(output)
    problems: list[RecordError] = []
    runs = list(read_runs(output, allow_empty=True, errors=problems))
    if problems:
        last = problems[-1]
        if state != "torn" or len(problems) > 1 or last.line != _last_line_number(output):
            raise problems[0]
    for run in runs:
        if run.task_id not in known_tasks or (
            agent_name is not None and run.agent.name not in (None, agent_name)
        ):
            foreign += 1
        if agent_model is not None and run.agent.model not in (None, agent_model):
            raise InputError(
                f"already holds runs of model {run.agent.model!r}, not {agent_model!r}",
                file=output,
                hint="write to another -o file, or rerun with the same --model to resume",
            )
        done.add((run.task_id, run.epoch))
    return done, foreign


def _last_line_number(path: Path) -> int:
    """The number of the last line of ``path`` (error path only: reads the file once)."""
    count = 0
    ends_with_newline = True
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            count += block.count(b"\n")
            ends_with_newline = block.endswith(b"\n")
    return count if ends_with_newline else count + 1


async def collect(
    tasks: Sequence[CollectTask],
    runner: AgentRunner,
    output: str | Path,
    *,
    epochs: int = 1,
    concurrency: int = 4,
    model: str | None = None,
    progress: Progress | None = None,
    known_tasks: Collection[str] | None = None,
    agent_name: str | None = None,
) -> CollectResult:
    """Run every (task, epoch) not yet in ``output``; append each finished run as it completes.

    ``model`` (when given) guards resuming: an output file holding runs of another model is an
    :class:`InputError`. Runs already in ``output`` of a task outside ``known_tasks`` (default: the
    ids of ``tasks``) or of an agent other than ``agent_name`` are counted in ``foreign`` (and kept).
    Runs are started epoch by epoch, tasks in order. Empty ``tasks`` → nothing to do.
    """
    path = Path(output)
    existed = path.exists()
    # lock first (two collections never write the same file), validate, and only then repair a torn
    # last line: a file that does not validate is left exactly as it was
    appender = JsonlAppender(path, lock=True, repair=False)
    try:
        expected = {t.id for t in tasks} if known_tasks is None else set(known_tasks)
        try:
            done, foreign = _finished(path, model, expected, agent_name)
        except BaseException:
            if not existed:
                path.unlink(missing_ok=True)
            raise
        appender.repair_tail()
        plan = [(task, epoch) for epoch in range(epochs) for task in tasks]
        pending = [(task, epoch) for task, epoch in plan if (task.id, epoch) not in done]
        gate = asyncio.Semaphore(concurrency)
        failed: list[FailedRun] = []
        written = 0
        with or_no_progress(progress)(f"collecting {len(pending)} runs", len(pending)) as bar:

            async def one(task: CollectTask, epoch: int) -> None:
                nonlocal written
                async with gate:
                    try:
                        run = await runner(task, epoch)
                    except Exception as exc:
                        error = (
                            str(exc)
                            if isinstance(exc, PathjudgeError)
                            else f"{type(exc).__name__}: {exc}"
                        )
                        failed.append(FailedRun(task_id=task.id, epoch=epoch, error=error))
                    else:
                        appender.write(run)
                        written += 1
                    bar.advance()

            await asyncio.gather(*(one(task, epoch) for task, epoch in pending))
    finally:
        appender.close()
    return CollectResult(
        output=str(path),
        planned=len(plan),
        skipped=len(plan) - len(pending),
        written=written,
        failed=tuple(sorted(failed, key=lambda f: (f.epoch, f.task_id))),
        foreign=foreign,
    )


async def collect_suite(
    suite: Any,
    output: str | Path,
    options: RunOptions,
    *,
    only: Sequence[str] | None = None,
    backend: ModelBackend | None = None,
    progress: Progress | None = None,
) -> CollectResult:
    """Collect ``options.epochs`` epochs of the options' agent on ``suite`` into ``output``.

    ``backend`` overrides the one the options name (the caller then owns closing it).
    """
    tasks = tasks_from_suite(suite, only)
    own = backend is None
    chosen = backend if backend is not None else make_model_backend(options)
    try:
        runner = docent_runner(chosen, options)
        return await collect(
            tasks,
            runner,
            output,
            epochs=options.epochs,
            concurrency=options.concurrency,
            model=chosen.model,
            progress=progress,
            known_tasks=[t.id for t in suite.tasks],
            agent_name=options.agent,
        )
    finally:
        if own:
            await chosen.aclose()
