# The public names of pathjudge (its __all__), one import each: type checkers read them here, and
# pathjudge._lazy imports each from its module on first use at run time.

__version__: str

from pathjudge._io import write_jsonl as write_jsonl
from pathjudge.agent import RunRecord as RunRecord
from pathjudge.agent import Step as Step
from pathjudge.agent import import_file as import_file
from pathjudge.agent import read_runs as read_runs
from pathjudge.calibration import load_labels as load_labels
from pathjudge.calibration.calibrate import calibrate as calibrate
from pathjudge.errors import PathjudgeError as PathjudgeError
from pathjudge.judge import JudgeFailure as JudgeFailure
from pathjudge.judge import JudgeSession as JudgeSession
from pathjudge.judge import Verdict as Verdict
from pathjudge.judge import VerdictRecord as VerdictRecord
from pathjudge.judge import make_judge_backend as make_judge_backend
from pathjudge.judge import run_judge as run_judge
from pathjudge.rubrics import CheckResult as CheckResult
from pathjudge.rubrics import Criterion as Criterion
from pathjudge.rubrics import Suite as Suite
from pathjudge.rubrics import get_criterion as get_criterion
from pathjudge.rubrics import load_suite as load_suite
from pathjudge.scoring import RunGrade as RunGrade
from pathjudge.scoring import Scorecard as Scorecard
from pathjudge.scoring import ScoreReport as ScoreReport
from pathjudge.scoring import diff_runs as diff_runs
from pathjudge.scoring import score as score
from pathjudge.scoring import variance_report as variance_report
from pathjudge.scoring.grade import grade as grade
