# The public names of pathjudge.scoring (its __all__), one import each: type checkers read them here, and
# pathjudge._lazy imports each from its module on first use at run time.

from pathjudge.scoring.audit import AuditReport as AuditReport
from pathjudge.scoring.audit import audit_suite as audit_suite
from pathjudge.scoring.chunk import Line as Line
from pathjudge.scoring.chunk import grade_chunk as grade_chunk
from pathjudge.scoring.chunk import grade_records_chunk as grade_records_chunk
from pathjudge.scoring.chunk import iter_lines as iter_lines
from pathjudge.scoring.chunk import score_file_parallel as score_file_parallel
from pathjudge.scoring.diff import DiffGate as DiffGate
from pathjudge.scoring.diff import DiffReport as DiffReport
from pathjudge.scoring.diff import diff_runs as diff_runs
from pathjudge.scoring.diff import resolve_gate as resolve_gate
from pathjudge.scoring.grade import RunGrade as RunGrade
from pathjudge.scoring.grade import grade_run as grade_run
from pathjudge.scoring.judged import JudgeRequest as JudgeRequest
from pathjudge.scoring.mutate import MutationReport as MutationReport
from pathjudge.scoring.mutate import mutation_report as mutation_report
from pathjudge.scoring.mutate import retriever_experiment as retriever_experiment
from pathjudge.scoring.pipeline import ScoreReport as ScoreReport
from pathjudge.scoring.pipeline import score as score
from pathjudge.scoring.scorecard import PartialScorecard as PartialScorecard
from pathjudge.scoring.scorecard import Scorecard as Scorecard
from pathjudge.scoring.scorecard import ScorecardBuilder as ScorecardBuilder
from pathjudge.scoring.scorecard import build_scorecard as build_scorecard
from pathjudge.scoring.scorecard import evaluate_gates as evaluate_gates
from pathjudge.scoring.scorecard import parse_thresholds as parse_thresholds
from pathjudge.scoring.scorecard import parse_weights as parse_weights
from pathjudge.scoring.variance import VarianceReport as VarianceReport
from pathjudge.scoring.variance import pass_at_k as pass_at_k
from pathjudge.scoring.variance import pass_hat_k as pass_hat_k
from pathjudge.scoring.variance import variance_report as variance_report
