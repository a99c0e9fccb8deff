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
from pathlib import Path
from types import ModuleType
from typing import Any, cast

from pathjudge.agent.trajectory import RunRecord
from pathjudge.errors import InputError

__all__ = ["FORMATS", "format_module", "import_file", "import_session", "live_formats"]

FORMATS: dict[str, str] = {
    "anthropic": "pathjudge.agent.importers.anthropic",
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
