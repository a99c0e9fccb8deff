"""The one vocabulary of backend names and gate metrics, and the deprecated spellings of each.

Backends (the judge's and the agent's, in configuration, flags, help, errors and the README):
``anthropic``, ``openai-compatible`` (any OpenAI-compatible chat server: vLLM, llama.cpp's server,
LM Studio, ...) and ``llama-cpp`` (for the judge: a GGUF model in process; for the agent: a llama.cpp
server); the agent also has ``scripted`` (offline Docent).

Metrics (``--fail-under``, ``fail_under.*``, ``--weights``, ``weights.levels.*``): the scorecard's
names, with ``tool_calls`` for tool-call correctness.

Old spellings (``openai``, ``llama``, ``correctness``) are accepted for one release: each use prints one
deprecation notice on stderr per process, naming the new spelling, and is mapped to it. Notices are
written to stderr rather than raised as :class:`DeprecationWarning`, so a command keeps working under
``-W error`` and the message reaches CLI users, who never see Python warnings.
"""

from __future__ import annotations

import sys
from typing import Literal

__all__ = [
    "BACKENDS",
    "DEPRECATED_BACKENDS",
    "DEPRECATED_METRICS",
    "REMOVED_IN",
    "BackendName",
    "canonical_backend",
    "canonical_metric",
    "deprecation_notice",
]

BackendName = Literal["anthropic", "openai-compatible", "llama-cpp"]
BACKENDS: tuple[BackendName, ...] = ("anthropic", "openai-compatible", "llama-cpp")

REMOVED_IN = "0.3"
"""The release that stops accepting the deprecated spellings."""

DEPRECATED_BACKENDS: dict[str, str] = {"openai": "openai-compatible", "llama": "llama-cpp"}
"""Old backend name → the name to use."""

DEPRECATED_METRICS: dict[str, str] = {"correctness": "tool_calls"}
"""Old metric / level name → the name to use (configuration keys and ``--fail-under``/``--weights``)."""

_NOTICED: set[tuple[str, str]] = set()


def deprecation_notice(old: str, new: str, *, where: str) -> None:
    """Tell the user once per process (on stderr) that ``old`` is deprecated in favour of ``new``."""
    if (old, where) in _NOTICED:
        return
    _NOTICED.add((old, where))
    print(
        f"pathjudge: deprecated: {where} {old!r} is now spelled {new!r}; the old spelling is "
        f"accepted until pathjudge {REMOVED_IN}",
        file=sys.stderr,
    )


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
