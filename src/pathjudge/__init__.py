"""pathjudge: grade tool-using LLM agents on task success, tool-call correctness and trajectory quality.

The public API is ``__all__``: the names most users need, each declared in one place, the stub
``__init__.pyi`` (one import a name, from the package it is public in). Everything else is exported by
the subpackage it belongs to: ``pathjudge.agent`` (trajectories, reading runs, importers, the agent
loop), ``pathjudge.rubrics`` (suites, checks, reference paths, criteria), ``pathjudge.judge`` (verdicts,
backends, the judge session), ``pathjudge.calibration`` (labels, agreement, PPI++), ``pathjudge.scoring``
(grades, scorecards, diffs, variance), ``pathjudge.report`` (renderers), ``pathjudge.config`` and
``pathjudge.errors``. CHANGELOG.md lists where each name that used to be here lives now.

Names resolve lazily on first use, so ``import pathjudge`` stays cheap and never imports anthropic,
instructor, scikit-learn, numpy, scipy or matplotlib; each heavy dependency loads only when a name that
needs it is used.
"""

from pathjudge._lazy import lazy_exports as _lazy_exports

__version__ = "0.1.0"

__getattr__, __dir__, __all__ = _lazy_exports(__name__, __file__)
