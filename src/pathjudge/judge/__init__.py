"""The single-criterion LLM judge: verdicts, backends, the session (backend choice, availability, budget,
cache), the runner, Message Batches and the verdict cache. anthropic/instructor load only when a
backend that needs them is built.

The public names of this package are ``__all__``, declared once by the imports of its stub
``__init__.pyi``; they load lazily, on first use (:mod:`pathjudge._lazy`).
"""

from pathjudge._lazy import lazy_exports as _lazy_exports

__getattr__, __dir__, __all__ = _lazy_exports(__name__, __file__)
