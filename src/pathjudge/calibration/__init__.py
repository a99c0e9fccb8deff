"""Can the judge be trusted: labels, agreement, pairwise consistency, noise, prediction-powered inference.

Modules: ``labels`` (human labels schema), ``verdicts`` (recorded verdicts of any grader, k-sample
votes), ``agreement`` (judge-human statistics, the human-human ceiling, trust gates), ``pairwise``
(position-swap consistency), ``noise`` (judge vs agent noise, vote-share reliability), ``ppi``
(PPI++ corrected success rate), ``disagreements`` (and few-shot export), ``calibrate`` (all of it
per criterion; with ``Slicing``, per slice of the items too: ``slices``), ``panel`` (several
judges of one criterion aggregated), ``live`` (run pathjudge's judge on the labelled items),
``align`` (search few-shot examples and, with a ``proposer``, clarified wording on dev; then test
once). Heavy dependencies (numpy, scikit-learn) load on first use.

The public names of this package are ``__all__``, declared once by the imports of its stub
``__init__.pyi``; they load lazily, on first use (:mod:`pathjudge._lazy`).
"""

from pathjudge._lazy import lazy_exports as _lazy_exports

__getattr__, __dir__, __all__ = _lazy_exports(__name__, __file__)
