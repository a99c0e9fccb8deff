"""pathjudge: grade tool-using LLM agents on task success, tool-call correctness and trajectory quality.

The public API is ``__all__``. Names resolve lazily on first use, so ``import pathjudge`` stays cheap and
never imports anthropic, instructor, scikit-learn, numpy or matplotlib.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "AgentInfo": "pathjudge.agent.trajectory",
    "JsonlAppender": "pathjudge.agent.io",
    "PathjudgeError": "pathjudge.errors",
    "RecordError": "pathjudge.errors",
    "RunRecord": "pathjudge.agent.trajectory",
    "SCHEMA_VERSION": "pathjudge.agent.trajectory",
    "Step": "pathjudge.agent.trajectory",
    "Timing": "pathjudge.agent.trajectory",
    "Trajectory": "pathjudge.agent.trajectory",
    "Usage": "pathjudge.agent.trajectory",
    "iter_jsonl": "pathjudge.agent.io",
    "read_runs": "pathjudge.agent.io",
    "summarize_runs": "pathjudge.agent.stats",
    "write_jsonl": "pathjudge.agent.io",
}

__all__ = sorted([*_EXPORTS, "__version__"])

if TYPE_CHECKING:  # pragma: no cover
    from pathjudge.agent.io import JsonlAppender, iter_jsonl, read_runs, write_jsonl
    from pathjudge.agent.stats import summarize_runs
    from pathjudge.agent.trajectory import (
        SCHEMA_VERSION,
        AgentInfo,
        RunRecord,
        Step,
        Timing,
        Trajectory,
        Usage,
    )
    from pathjudge.errors import PathjudgeError, RecordError


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pathjudge' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return list(__all__)
