"""``pathjudge import``: convert transcripts and traces into a runs JSONL file."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from pathjudge._cli.app import app, out_console, print_problems
from pathjudge.errors import ImportFormatError, InputError

if TYPE_CHECKING:
    from pathjudge.agent.trajectory import RunRecord

_FORMATS_HELP = "anthropic, atif, openai-chat, openai-responses, otel, managed-agents"
_PREFIX_FORMATS = ("atif", "openai-chat", "openai-responses")


def _with_agent(
    runs: Iterable[RunRecord], *, model: str | None, name: str | None
) -> Iterator[RunRecord]:
    """Each run with ``agent.model`` / ``agent.name`` set to the given values (the others kept)."""
    update = {key: value for key, value in (("model", model), ("name", name)) if value is not None}
    for run in runs:
        yield run.model_copy(update={"agent": run.agent.model_copy(update=update)})


class _Tally:
    __slots__ = ("errors", "malformed", "runs", "steps")

    def __init__(self) -> None:
        self.runs = self.steps = self.errors = self.malformed = 0

    def count(self, runs: Iterable[RunRecord]) -> Iterator[RunRecord]:
        for run in runs:
            self.runs += 1
            self.steps += len(run.steps)
            self.errors += run.error_count
            self.malformed += sum(1 for step in run.steps if step.arguments_error is not None)
            yield run


_Source = Annotated[
    Path | None,
    typer.Argument(help="The transcript or trace file (.json, or .jsonl with one per line)."),
]
_Fmt = Annotated[str, typer.Option("--from", help=f"The input format: {_FORMATS_HELP}.")]
_Output = Annotated[
    Path | None, typer.Option("-o", "--output", help="The runs JSONL file to write.")
]
_Session = Annotated[
    str | None,
    typer.Option("--session", help="Fetch this session from the format's live source instead."),
]
_TaskId = Annotated[
    str | None, typer.Option("--task-id", help="Use this task id for every imported run.")
]
_KeepGoing = Annotated[
    bool,
    typer.Option("--keep-going", help="Skip transcripts that fail, report them, write the rest."),
]
_AgentModel = Annotated[
    str | None,
    typer.Option(
        "--agent-model",
        help="Record this model for every imported run (agent.model), e.g. gpt-4o; "
        "overrides what the transcript says.",
    ),
]
_AgentName = Annotated[
    str | None,
    typer.Option("--agent-name", help="Record this agent name for every run (agent.name)."),
]
_ErrorPrefix = Annotated[
    list[str] | None,
    typer.Option(
        "--error-prefix",
        help="atif / openai-chat / openai-responses: a tool result starting with this text is an error "
        "(repeatable; replaces the default 'Error:').",
    ),
]
_Timeout = Annotated[
    float,
    typer.Option("--timeout", help="--session: seconds one request may take."),
]
_Deadline = Annotated[
    float,
    typer.Option("--deadline", help="--session: seconds the whole fetch may take."),
]


@app.command("import")
def import_(
    source: _Source = None,
    fmt: _Fmt = "",
    output: _Output = None,
    session: _Session = None,
    task_id: _TaskId = None,
    keep_going: _KeepGoing = False,
    agent_model: _AgentModel = None,
    agent_name: _AgentName = None,
    error_prefix: _ErrorPrefix = None,
    timeout: _Timeout = 60.0,
    deadline: _Deadline = 600.0,
) -> None:
    """Convert a transcript/trace file (or a live session) into pathjudge's runs JSONL.

    Formats without an error flag on tool results (atif, openai-chat, openai-responses) flag a result as an
    error when its text starts with an --error-prefix (default 'Error:', tau-bench's convention).
    """
    from pathjudge._io import write_jsonl
    from pathjudge.agent.importers import format_module, import_file, import_session

    if not fmt:
        raise InputError(
            "no input format given",
            field="--from",
            hint=f"pass --from with one of: {_FORMATS_HELP}",
        )
    format_module(fmt)  # an unknown or unavailable format is an InputError naming the known ones
    if output is None:
        raise InputError("no output file given", field="--output", hint="pass -o runs.jsonl")
    if (source is None) == (session is None):
        raise InputError(
            "give either a FILE or --session ID (exactly one)",
            hint="pathjudge import --from FORMAT FILE -o runs.jsonl",
        )
    errors: list[InputError] | None = [] if keep_going else None
    options: dict[str, Any] = {"task_id": task_id, "errors": errors}
    if error_prefix is not None:
        options["error_prefixes"] = _error_prefixes(fmt, error_prefix)
    if source is not None:
        runs = import_file(source, fmt, **options)
        origin = str(source)
    else:
        assert session is not None
        _check_seconds(timeout=timeout, deadline=deadline)
        runs = import_session(fmt, session, timeout=timeout, deadline=deadline, **options)
        origin = f"session {session}"
    if agent_model is not None or agent_name is not None:
        runs = _with_agent(runs, model=agent_model, name=agent_name)
    tally = _Tally()
    # nothing importable: nothing is written, and an existing output stays as it was
    written = write_jsonl(output, tally.count(runs), keep_if_empty=True)
    if errors:
        print_problems("[yellow]skipped:[/]", errors)
    if written == 0:
        raise ImportFormatError(
            "no run could be imported" if errors else "contains no runs",
            file=origin,
            hint="see the skipped records above" if errors else "check the format with --from",
        )
    _print_imported(tally, origin=origin, fmt=fmt, output=output, skipped=len(errors or ()))


def _error_prefixes(fmt: str, error_prefix: list[str]) -> tuple[str, ...]:
    """``--error-prefix`` checked: only for a format without an error flag, and never empty."""
    if fmt not in _PREFIX_FORMATS:
        raise InputError(
            f"--error-prefix does not apply to {fmt!r}: its tool results carry an error flag",
            field="--error-prefix",
            hint=f"use it with --from {' or '.join(_PREFIX_FORMATS)}, or drop it",
        )
    if any(not prefix for prefix in error_prefix):
        raise InputError(
            "an empty --error-prefix would flag every tool result as an error",
            field="--error-prefix",
            hint="give the text error results start with, e.g. --error-prefix 'Error:'",
        )
    return tuple(error_prefix)


def _check_seconds(*, timeout: float, deadline: float) -> None:
    """``--timeout`` and ``--deadline`` must be positive, finite numbers of seconds."""
    for flag, value in (("--timeout", timeout), ("--deadline", deadline)):
        if not (math.isfinite(value) and value > 0):
            raise InputError(
                f"{flag} must be a positive number of seconds, got {value}", field=flag
            )


def _print_imported(tally: _Tally, *, origin: str, fmt: str, output: Path, skipped: int) -> None:
    """The one summary line: runs, tool calls, errored results, malformed arguments, skipped."""
    note = f" · [yellow]{skipped} skipped[/]" if skipped else ""
    out_console.print(
        f"[green]imported[/] {tally.runs} run{'s' if tally.runs != 1 else ''} from {escape(origin)} "
        f"([bold]{fmt}[/]) → {escape(str(output))} · {tally.steps} tool call"
        f"{'s' if tally.steps != 1 else ''} · {tally.errors} errored result"
        f"{'s' if tally.errors != 1 else ''} · {tally.malformed} malformed argument"
        f"{'s' if tally.malformed != 1 else ''}{note}",
        markup=True,
    )
