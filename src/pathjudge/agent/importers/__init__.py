"""Importers from transcript and trace formats into the trajectory schema.

:data:`FORMATS` maps a format name to the module that reads it; modules are imported only when used.
Every format module exposes ``import_file(path, **options) -> Iterator[RunRecord]`` and a pure
``from_<format>(obj, *, task_id, run_id, ...) -> RunRecord`` over already-parsed data (so a recorder or
an agent loop can convert a transcript it holds in memory). A format with a live source (an API that
serves sessions) also exposes ``fetch_session(session_id, **options)``.

Every imported run records where it came from in ``metadata["source"]`` (``format``, ``file`` and
``index`` or ``line``); whatever the schema has no field for is kept under ``metadata`` (``unmapped``),
never dropped.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, cast

from pathjudge.agent.trajectory import RunRecord
from pathjudge.errors import InputError

__all__ = [
    "FORMATS",
    "ImportHint",
    "format_module",
    "import_file",
    "import_hint",
    "import_session",
    "live_formats",
]

FORMATS: dict[str, str] = {
    "anthropic": "pathjudge.agent.importers.anthropic",
    "atif": "pathjudge.agent.importers.atif",
    "managed-agents": "pathjudge.agent.importers.managed_agents",
    "openai-chat": "pathjudge.agent.importers.openai_chat",
    "openai-responses": "pathjudge.agent.importers.openai_responses",
    "otel": "pathjudge.agent.importers.otel",
}
"""Format name → module path. Names are what ``pathjudge import --from`` accepts."""


def format_module(fmt: str) -> ModuleType:
    """The module for format ``fmt``; an unknown or unavailable format is an :class:`InputError`."""
    module_name = FORMATS.get(fmt)
    if module_name is None:
        raise InputError(
            f"unknown import format {fmt!r}",
            field="--from",
            hint=f"use one of: {', '.join(sorted(FORMATS))}",
        )
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        available = [name for name in sorted(FORMATS) if _available(name)]
        raise InputError(
            f"the import format {fmt!r} is not available in this installation",
            field="--from",
            hint=f"use one of: {', '.join(available)}",
        ) from None


def _available(fmt: str) -> bool:
    return importlib.util.find_spec(FORMATS[fmt]) is not None


def live_formats() -> list[str]:
    """The available formats that can fetch a session from a live source (``fetch_session``)."""
    out: list[str] = []
    for name in sorted(FORMATS):
        if _available(name) and callable(getattr(format_module(name), "fetch_session", None)):
            out.append(name)
    return out


def import_file(path: str | Path, fmt: str, **options: Any) -> Iterator[RunRecord]:
    """Stream the runs of a transcript/trace file in format ``fmt`` (one of :data:`FORMATS`).

    ``options`` go to the format's ``import_file`` (all take ``task_id``, ``agent`` and ``errors``: a
    list that collects per-record :class:`InputError` s instead of raising on the first). Empty input
    raises :class:`~pathjudge.errors.ImportFormatError`.
    """
    module = format_module(fmt)
    reader = cast(Callable[..., Iterator[RunRecord]], module.import_file)
    return reader(path, **options)


def import_session(fmt: str, session_id: str, **options: Any) -> Iterator[RunRecord]:
    """Fetch one session from the live source of format ``fmt`` and yield its run(s).

    Raises :class:`InputError` when the format has no live source (no ``fetch_session``).
    """
    module = format_module(fmt)
    fetch = getattr(module, "fetch_session", None)
    if not callable(fetch):
        live = live_formats()
        raise InputError(
            f"the import format {fmt!r} has no live source to fetch a session from",
            field="--session",
            hint=(
                f"import a file instead, or use a format with sessions: {', '.join(live)}"
                if live
                else "import a file instead"
            ),
        )
    result = fetch(session_id, **options)
    if isinstance(result, RunRecord):
        return iter((result,))
    return iter(cast(Iterator[RunRecord], result))


@dataclass(frozen=True, slots=True)
class ImportHint:
    """What a file given as runs holds instead, and the ``pathjudge import`` command that converts it."""

    fmt: str | None
    """The recognised import format; None for chat messages that several formats share."""
    problem: str
    """What the file is, e.g. "is an anthropic transcript, not pathjudge runs"."""
    command: str
    """The command to run, e.g. ``pathjudge import --from anthropic t.jsonl -o t.runs.jsonl``."""
    output: str
    """The runs file that command writes (in the folder it runs in)."""


_SNIFF_MAX_BYTES = 64 * 1024 * 1024
"""A whole-JSON file larger than this is not read to recognise it (a JSONL file reads one line)."""


def import_hint(path: str | Path) -> ImportHint | None:
    """How to convert ``path`` when it holds a transcript or trace export instead of pathjudge runs.

    Reads the file's first transcripts as ``pathjudge import`` would (up to five lines of a ``.jsonl``
    file, else the whole JSON document, up to 64 MiB) and recognises their format by the markers ``import`` uses to
    suggest ``--from`` (:func:`~pathjudge.agent.importers._common.guess_format`): Anthropic
    ``tool_use`` blocks, chat ``tool_calls`` (tau-bench), Responses items, OTel span ids. Chat messages
    with no such marker give the command with the formats to choose from. None when one of those records
    is shaped like a run (it has ``run_id`` or ``steps``), when none holds a transcript, or when the
    file cannot be read that way.
    """
    import shlex
    from itertools import islice

    from pathjudge.agent.importers._common import (
        JSONL_SUFFIXES,
        guess_format,
        iter_documents,
        split_transcripts,
    )

    path = Path(path)
    name = path.name.lower()
    try:
        if not name.endswith(JSONL_SUFFIXES) and path.stat().st_size > _SNIFF_MAX_BYTES:
            return None
        values = [doc.value for doc in islice(iter_documents(path, split_transcripts), 5)]
    except (InputError, OSError):
        return None
    if not values or any(map(_run_shaped, values)):
        return None
    fmt = next((found for found in map(guess_format, values) if found is not None), None)
    if fmt is None and not any(map(_holds_messages, values)):
        return None
    base = name
    for suffix in (".gz", ".jsonl", ".ndjson", ".json"):
        base = base.removesuffix(suffix)
    out = f"{path.name[: len(base)]}.runs.jsonl"  # written where the command runs
    command = (
        f"pathjudge import --from {fmt or 'FORMAT'} {shlex.quote(str(path))} -o {shlex.quote(out)}"
    )
    if fmt is None:
        return ImportHint(
            None,
            "holds chat messages, not pathjudge runs",
            f"{command} (FORMAT: anthropic, openai-chat or openai-responses, the API it was "
            "recorded from)",
            out,
        )
    kind = {"otel": "trace", "atif": "trajectory"}.get(fmt, "transcript")
    article = "an" if fmt[:1] in "aeiou" else "a"
    return ImportHint(fmt, f"is {article} {fmt} {kind}, not pathjudge runs", command, out)


def _run_shaped(value: Any) -> bool:
    """A record with ``run_id`` or ``steps`` is a run, unless it is an ATIF trajectory."""
    if not isinstance(value, dict) or not ("run_id" in value or "steps" in value):
        return False
    version = value.get("schema_version")
    return not (isinstance(version, str) and version.startswith("ATIF-"))


def _holds_messages(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` holds chat messages (objects with a ``role``) within its first three levels."""
    if depth > 3:
        return False
    if isinstance(value, dict):
        if isinstance(value.get("role"), str):
            return True
        return any(_holds_messages(v, depth + 1) for v in list(value.values())[:50])
    if isinstance(value, list):
        return any(_holds_messages(v, depth + 1) for v in value[:50])
    return False
