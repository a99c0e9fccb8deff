"""Applying rubrics to runs: the scoring pipeline (:func:`score`), grades, scorecards, variance, diffs,
mutations, the suite audit.

The grading core: :func:`grade_run` (one run, every declared check guarded), :func:`grade_chunk` (a chunk
of runs-file lines into a mergeable :class:`PartialScorecard`, the function a process pool or a
distributed engine maps) and :func:`score_file_parallel`.

``grade`` and ``mutate`` are not exported here because submodules of the same names exist: use
:func:`pathjudge.grade` or ``pathjudge.scoring.grade.grade``, and ``pathjudge.scoring.mutate.mutate``.

The public names of this package are ``__all__``, declared once by the imports of its stub
``__init__.pyi``; they load lazily, on first use (:mod:`pathjudge._lazy`).
"""

from pathjudge._lazy import lazy_exports as _lazy_exports

__getattr__, __dir__, __all__ = _lazy_exports(__name__, __file__)
