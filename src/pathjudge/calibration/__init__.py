"""Can the judge be trusted: labels, agreement, pairwise consistency, noise, prediction-powered inference.

Modules: ``labels`` (human labels schema), ``verdicts`` (recorded verdicts of any grader, k-sample
votes), ``agreement`` (judge-human statistics, the human-human ceiling, trust gates), ``pairwise``
(position-swap consistency), ``noise`` (judge vs agent noise, vote-share reliability), ``ppi``
(PPI++ corrected success rate), ``disagreements`` (and few-shot export), ``calibrate`` (all of it
per criterion; with ``Slicing``, per slice of the items too: ``slices``), ``panel`` (several
judges of one criterion aggregated), ``live`` (run pathjudge's judge on the labelled items),
``align`` (search few-shot examples and, with a ``proposer``, clarified wording on dev; then test
once). Heavy dependencies (numpy, scikit-learn) load on first use.

The public names of this package are ``__all__``; they load lazily, on first use.
"""

import typing as _typing

from pathjudge._lazy import lazy_exports as _lazy_exports

# public name -> defining module ("module:attribute" where the names differ)
_EXPORTS: dict[str, str] = {
    "AgreementStats": "pathjudge.calibration.agreement",
    "AlignReport": "pathjudge.calibration.align",
    "CalibrationReport": "pathjudge.calibration.calibrate",
    "Gates": "pathjudge.calibration.agreement",
    "LabelRecord": "pathjudge.calibration.labels",
    "LabelSet": "pathjudge.calibration.labels",
    "PPIResult": "pathjudge.calibration.ppi",
    "PairwiseItem": "pathjudge.calibration.pairwise",
    "PanelReport": "pathjudge.calibration.panel",
    "RecordedVerdict": "pathjudge.calibration.verdicts",
    "SliceCalibration": "pathjudge.calibration.slices",
    "Slicing": "pathjudge.calibration.calibrate",
    "TrustDecision": "pathjudge.calibration.agreement",
    "VerdictSet": "pathjudge.calibration.verdicts",
    "decide_trust": "pathjudge.calibration.agreement",
    "disagreement_queue": "pathjudge.calibration.panel",
    "few_shot_yaml": "pathjudge.calibration.disagreements",
    "find_disagreements": "pathjudge.calibration.disagreements",
    "fleiss_kappa": "pathjudge.calibration.agreement",
    "item_slices": "pathjudge.calibration.labels",
    "judge_agreement": "pathjudge.calibration.agreement",
    "judge_labelled": "pathjudge.calibration.live",
    "judge_noise": "pathjudge.calibration.noise",
    "krippendorff_alpha": "pathjudge.calibration.agreement",
    "load_labels": "pathjudge.calibration.labels",
    "load_verdicts": "pathjudge.calibration.verdicts",
    "pairwise_agreement": "pathjudge.calibration.pairwise",
    "panel_records": "pathjudge.calibration.panel",
    "ppi_mean": "pathjudge.calibration.ppi",
    "reliability": "pathjudge.calibration.noise",
    "run_panel": "pathjudge.calibration.panel",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

if _typing.TYPE_CHECKING:  # pragma: no cover - the same names, for type checkers
    from pathjudge.calibration.agreement import (
        AgreementStats as AgreementStats,
    )
    from pathjudge.calibration.agreement import (
        Gates as Gates,
    )
    from pathjudge.calibration.agreement import (
        TrustDecision as TrustDecision,
    )
    from pathjudge.calibration.agreement import (
        decide_trust as decide_trust,
    )
    from pathjudge.calibration.agreement import (
        fleiss_kappa as fleiss_kappa,
    )
    from pathjudge.calibration.agreement import (
        judge_agreement as judge_agreement,
    )
    from pathjudge.calibration.agreement import (
        krippendorff_alpha as krippendorff_alpha,
    )
    from pathjudge.calibration.align import (
        AlignReport as AlignReport,
    )
    from pathjudge.calibration.calibrate import CalibrationReport as CalibrationReport
    from pathjudge.calibration.calibrate import Slicing as Slicing
    from pathjudge.calibration.disagreements import (
        few_shot_yaml as few_shot_yaml,
    )
    from pathjudge.calibration.disagreements import (
        find_disagreements as find_disagreements,
    )
    from pathjudge.calibration.labels import (
        LabelRecord as LabelRecord,
    )
    from pathjudge.calibration.labels import (
        LabelSet as LabelSet,
    )
    from pathjudge.calibration.labels import item_slices as item_slices
    from pathjudge.calibration.labels import (
        load_labels as load_labels,
    )
    from pathjudge.calibration.live import judge_labelled as judge_labelled
    from pathjudge.calibration.noise import (
        judge_noise as judge_noise,
    )
    from pathjudge.calibration.noise import (
        reliability as reliability,
    )
    from pathjudge.calibration.pairwise import (
        PairwiseItem as PairwiseItem,
    )
    from pathjudge.calibration.pairwise import (
        pairwise_agreement as pairwise_agreement,
    )
    from pathjudge.calibration.panel import PanelReport as PanelReport
    from pathjudge.calibration.panel import disagreement_queue as disagreement_queue
    from pathjudge.calibration.panel import panel_records as panel_records
    from pathjudge.calibration.panel import run_panel as run_panel
    from pathjudge.calibration.ppi import (
        PPIResult as PPIResult,
    )
    from pathjudge.calibration.ppi import (
        ppi_mean as ppi_mean,
    )
    from pathjudge.calibration.slices import SliceCalibration as SliceCalibration
    from pathjudge.calibration.verdicts import (
        RecordedVerdict as RecordedVerdict,
    )
    from pathjudge.calibration.verdicts import (
        VerdictSet as VerdictSet,
    )
    from pathjudge.calibration.verdicts import (
        load_verdicts as load_verdicts,
    )
