"""What good looks like: suites, deterministic assertions (``pathjudge.rubrics.assertions``), reference
paths, judged criteria.

The public names of this package are ``__all__``; they load lazily, on first use.
"""

import typing as _typing

from pathjudge._lazy import lazy_exports as _lazy_exports

# public name -> defining module ("module:attribute" where the names differ)
_EXPORTS: dict[str, str] = {
    "AXES": "pathjudge.rubrics.assertions.base",
    "CheckResult": "pathjudge.rubrics.assertions.base",
    "Criterion": "pathjudge.rubrics.criteria",
    "FaultCosts": "pathjudge.rubrics.path",
    "PathAlignment": "pathjudge.rubrics.path",
    "ReferencePath": "pathjudge.rubrics.path",
    "ReferenceStep": "pathjudge.rubrics.path",
    "Suite": "pathjudge.rubrics.suite",
    "SuiteGate": "pathjudge.rubrics.suite",
    "Task": "pathjudge.rubrics.suite",
    "align_path": "pathjudge.rubrics.path",
    "builtin_criteria": "pathjudge.rubrics.criteria",
    "get_criterion": "pathjudge.rubrics.criteria",
    "load_criterion": "pathjudge.rubrics.criteria",
    "load_suite": "pathjudge.rubrics.suite",
    "parse_suite": "pathjudge.rubrics.suite",
    "score_paths": "pathjudge.rubrics.path",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

if _typing.TYPE_CHECKING:  # pragma: no cover - the same names, for type checkers
    from pathjudge.rubrics.assertions.base import (
        AXES as AXES,
    )
    from pathjudge.rubrics.assertions.base import (
        CheckResult as CheckResult,
    )
    from pathjudge.rubrics.criteria import (
        Criterion as Criterion,
    )
    from pathjudge.rubrics.criteria import (
        builtin_criteria as builtin_criteria,
    )
    from pathjudge.rubrics.criteria import (
        get_criterion as get_criterion,
    )
    from pathjudge.rubrics.criteria import (
        load_criterion as load_criterion,
    )
    from pathjudge.rubrics.path import (
        FaultCosts as FaultCosts,
    )
    from pathjudge.rubrics.path import (
        PathAlignment as PathAlignment,
    )
    from pathjudge.rubrics.path import (
        ReferencePath as ReferencePath,
    )
    from pathjudge.rubrics.path import (
        ReferenceStep as ReferenceStep,
    )
    from pathjudge.rubrics.path import (
        align_path as align_path,
    )
    from pathjudge.rubrics.path import (
        score_paths as score_paths,
    )
    from pathjudge.rubrics.suite import (
        Suite as Suite,
    )
    from pathjudge.rubrics.suite import (
        SuiteGate as SuiteGate,
    )
    from pathjudge.rubrics.suite import (
        Task as Task,
    )
    from pathjudge.rubrics.suite import (
        load_suite as load_suite,
    )
    from pathjudge.rubrics.suite import (
        parse_suite as parse_suite,
    )
