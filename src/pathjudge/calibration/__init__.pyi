# The public names of pathjudge.calibration (its __all__), one import each: type checkers read them here, and
# pathjudge._lazy imports each from its module on first use at run time.

from pathjudge.calibration.agreement import AgreementStats as AgreementStats
from pathjudge.calibration.agreement import Gates as Gates
from pathjudge.calibration.agreement import TrustDecision as TrustDecision
from pathjudge.calibration.agreement import decide_trust as decide_trust
from pathjudge.calibration.agreement import fleiss_kappa as fleiss_kappa
from pathjudge.calibration.agreement import judge_agreement as judge_agreement
from pathjudge.calibration.agreement import krippendorff_alpha as krippendorff_alpha
from pathjudge.calibration.align import AlignReport as AlignReport
from pathjudge.calibration.calibrate import CalibrationReport as CalibrationReport
from pathjudge.calibration.calibrate import Slicing as Slicing
from pathjudge.calibration.disagreements import few_shot_yaml as few_shot_yaml
from pathjudge.calibration.disagreements import find_disagreements as find_disagreements
from pathjudge.calibration.labels import LabelRecord as LabelRecord
from pathjudge.calibration.labels import LabelSet as LabelSet
from pathjudge.calibration.labels import item_slices as item_slices
from pathjudge.calibration.labels import load_labels as load_labels
from pathjudge.calibration.live import judge_labelled as judge_labelled
from pathjudge.calibration.noise import judge_noise as judge_noise
from pathjudge.calibration.noise import reliability as reliability
from pathjudge.calibration.pairwise import PairwiseItem as PairwiseItem
from pathjudge.calibration.pairwise import pairwise_agreement as pairwise_agreement
from pathjudge.calibration.panel import PanelReport as PanelReport
from pathjudge.calibration.panel import disagreement_queue as disagreement_queue
from pathjudge.calibration.panel import panel_records as panel_records
from pathjudge.calibration.panel import run_panel as run_panel
from pathjudge.calibration.ppi import PPIResult as PPIResult
from pathjudge.calibration.ppi import ppi_mean as ppi_mean
from pathjudge.calibration.slices import SliceCalibration as SliceCalibration
from pathjudge.calibration.verdicts import RecordedVerdict as RecordedVerdict
from pathjudge.calibration.verdicts import VerdictSet as VerdictSet
from pathjudge.calibration.verdicts import load_verdicts as load_verdicts
