# The public names of pathjudge.rubrics (its __all__), one import each: type checkers read them here, and
# pathjudge._lazy imports each from its module on first use at run time.

from pathjudge.rubrics.assertions.base import AXES as AXES
from pathjudge.rubrics.assertions.base import CheckResult as CheckResult
from pathjudge.rubrics.criteria import Criterion as Criterion
from pathjudge.rubrics.criteria import builtin_criteria as builtin_criteria
from pathjudge.rubrics.criteria import get_criterion as get_criterion
from pathjudge.rubrics.criteria import load_criterion as load_criterion
from pathjudge.rubrics.path import FaultCosts as FaultCosts
from pathjudge.rubrics.path import PathAlignment as PathAlignment
from pathjudge.rubrics.path import ReferencePath as ReferencePath
from pathjudge.rubrics.path import ReferenceStep as ReferenceStep
from pathjudge.rubrics.path import align_path as align_path
from pathjudge.rubrics.path import score_paths as score_paths
from pathjudge.rubrics.suite import Suite as Suite
from pathjudge.rubrics.suite import SuiteGate as SuiteGate
from pathjudge.rubrics.suite import Task as Task
from pathjudge.rubrics.suite import load_suite as load_suite
from pathjudge.rubrics.suite import parse_suite as parse_suite
