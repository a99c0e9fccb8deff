"""The one vocabulary of backend names and gate metrics, and the deprecated spellings of each.

Backends (the judge's and the agent's, in configuration, flags, help, errors and the docs):
``anthropic``, ``openai-compatible`` (any OpenAI-compatible chat server: vLLM, llama.cpp's server,
LM Studio, ...) and ``llama-cpp`` (for the judge: a GGUF model in process; for the agent: a llama.cpp
server); the agent also has ``scripted`` (offline Docent).

Metrics (``--fail-under``, ``fail_under.*``, ``--weights``, ``weights.levels.*``): the scorecard's
names, with ``tool_calls`` for tool-call correctness.

Old spellings (``openai``, ``llama``, ``correctness``) are accepted for one release and mapped to the
new one. Called from Python (the library, the pytest plugin), each use warns with a
:class:`DeprecationWarning` naming the new spelling, attributed to the caller's code outside pathjudge.
Inside the ``pathjudge`` command (:func:`notices_on_stderr`) each old spelling prints one notice on
stderr per process instead, so the message reaches CLI users (who never see Python warnings) and a
command keeps working under ``-W error``.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Literal, get_args

__all__ = [
    "BACKENDS",
    "DEPRECATED_BACKENDS",
    "DEPRECATED_METRICS",
    "REMOVED_IN",
    "BackendName",
    "canonical_backend",
    "canonical_metric",
    "deprecation_notice",
    "notices_on_stderr",
]

BackendName = Literal["anthropic", "openai-compatible", "llama-cpp"]
BACKENDS: tuple[BackendName, ...] = get_args(BackendName)

REMOVED_IN = "0.3"
"""The release that stops accepting the deprecated spellings."""

DEPRECATED_BACKENDS: dict[str, str] = {"openai": "openai-compatible", "llama": "llama-cpp"}
"""Old backend name → the name to use."""

DEPRECATED_METRICS: dict[str, str] = {"correctness": "tool_calls"}
"""Old metric / level name → the name to use (configuration keys and ``--fail-under``/``--weights``)."""

_NOTICED: set[tuple[str, str]] = set()


_ON_STDERR: ContextVar[bool] = ContextVar("pathjudge_notices_on_stderr", default=False)


@contextmanager
def notices_on_stderr() -> Iterator[None]:
    """Within this block (the ``pathjudge`` command), deprecations are notices on stderr, once per
    process, instead of :class:`DeprecationWarning` s."""
    token = _ON_STDERR.set(True)
    try:
        yield
    finally:
        _ON_STDERR.reset(token)


def _outside_pathjudge() -> int:
    """The ``stacklevel`` of the first caller outside the pathjudge package, seen from the caller of
    :func:`deprecation_notice` (so the warning points at the user's code)."""
    level = 2
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name != "pathjudge" and not name.startswith("pathjudge."):
            break
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


def deprecation_notice(old: str, new: str, *, where: str) -> None:
    """Tell the user that ``old`` is deprecated in favour of ``new``: a :class:`DeprecationWarning`,
    or inside the command (:func:`notices_on_stderr`) a notice on stderr once per process."""
    message = (
        f"pathjudge: deprecated: {where} {old!r} is now spelled {new!r}; the old spelling is "
        f"accepted until pathjudge {REMOVED_IN}"
    )
    if not _ON_STDERR.get():
        warnings.warn(message, DeprecationWarning, stacklevel=_outside_pathjudge())
        return
    if (old, where) in _NOTICED:
        return
    _NOTICED.add((old, where))
    print(message, file=sys.stderr)


def canonical_backend(name: str, *, where: str = "backend") -> str:
    """``name`` in the current vocabulary: a deprecated spelling is mapped (with a notice), any other
    name is returned unchanged for the caller to validate against its own choices."""
    new = DEPRECATED_BACKENDS.get(name)
    if new is None:
        return name
    deprecation_notice(name, new, where=where)
    return new


def canonical_metric(name: str, *, where: str = "metric") -> str:
    """``name`` in the current metric vocabulary (see :func:`canonical_backend`)."""
    new = DEPRECATED_METRICS.get(name)
    if new is None:
        return name
    deprecation_notice(name, new, where=where)
    return new
