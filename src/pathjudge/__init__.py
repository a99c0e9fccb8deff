"""pathjudge: grade tool-using LLM agents on task success, tool-call correctness and trajectory quality.

The public API is ``__all__``. Names resolve lazily on first use, so ``import pathjudge`` stays cheap and
never imports anthropic, instructor, scikit-learn, numpy or matplotlib; each heavy dependency loads only
when a name that needs it is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> "module" or "module:attribute" (where the public name differs from the defining one)
_EXPORTS: dict[str, str] = {
    "AXES": "pathjudge.rubrics.assertions.base",
    "AgentError": "pathjudge.errors",
    "AgentInfo": "pathjudge.agent.trajectory",
    "AgreementStats": "pathjudge.calibration.agreement",
    "AnthropicJudgeBackend": "pathjudge.judge.backends.anthropic",
    "AnthropicModelBackend": "pathjudge.agent.backends",
    "ArgMismatch": "pathjudge.rubrics.assertions.arguments",
    "Budget": "pathjudge.judge.runner",
    "BudgetExceededError": "pathjudge.errors",
    "CalibrationReport": "pathjudge.calibration.calibrate",
    "CallExpectation": "pathjudge.rubrics.assertions.arguments",
    "CallMatch": "pathjudge.rubrics.assertions.arguments",
    "CheckResult": "pathjudge.rubrics.assertions.base",
    "ConfigError": "pathjudge.errors",
    "Criterion": "pathjudge.rubrics.criteria",
    "CriterionError": "pathjudge.errors",
    "DEFAULT_AGENT_MODEL": "pathjudge.config",
    "DEFAULT_JUDGE_MODEL": "pathjudge.config",
    "DiffGate": "pathjudge.scoring.diff",
    "DiffReport": "pathjudge.scoring.diff",
    "DocentPolicy": "pathjudge.agent.docent",
    "FaithfulnessScore": "pathjudge.judge.faithfulness",
    "FaultCosts": "pathjudge.rubrics.path",
    "Gates": "pathjudge.calibration.agreement",
    "ImportFormatError": "pathjudge.errors",
    "InputError": "pathjudge.errors",
    "JsonlAppender": "pathjudge._io",
    "JudgeBackend": "pathjudge.judge.backends.base",
    "JudgeError": "pathjudge.errors",
    "JudgeFailure": "pathjudge.judge.verdict",
    "JudgeRequest": "pathjudge.scoring.judged",
    "LabelRecord": "pathjudge.calibration.labels",
    "LabelSet": "pathjudge.calibration.labels",
    "LabelsError": "pathjudge.errors",
    "LlamaBackend": "pathjudge.judge.backends.llama_inprocess",
    "MissingExtraError": "pathjudge.errors",
    "ModelBackend": "pathjudge.agent.backends",
    "MutationReport": "pathjudge.scoring.mutate",
    "OpenAICompatBackend": "pathjudge.judge.backends.openai_compat",
    "OpenAIModelBackend": "pathjudge.agent.backends",
    "PPIResult": "pathjudge.calibration.ppi",
    "PairwiseItem": "pathjudge.calibration.pairwise",
    "PathAlignment": "pathjudge.rubrics.path",
    "PathjudgeConfig": "pathjudge.config",
    "PathjudgeError": "pathjudge.errors",
    "RecordError": "pathjudge.errors",
    "RecordedVerdict": "pathjudge.calibration.verdicts",
    "Recorder": "pathjudge.agent.recorder",
    "RecoverySpec": "pathjudge.rubrics.assertions.recovery",
    "ReferencePath": "pathjudge.rubrics.path",
    "ReferenceStep": "pathjudge.rubrics.path",
    "ResolvedConfig": "pathjudge.config",
    "RunGrade": "pathjudge.scoring.grade",
    "RunOptions": "pathjudge.agent.collect",
    "RunRecord": "pathjudge.agent.trajectory",
    "SCHEMA_VERSION": "pathjudge.agent.trajectory",
    "SampleVerdict": "pathjudge.judge.verdict",
    "ScoreReport": "pathjudge.report.json_report",
    "Scorecard": "pathjudge.scoring.scorecard",
    "ScriptedBackend": "pathjudge.agent.backends",
    "Step": "pathjudge.agent.trajectory",
    "StepSpec": "pathjudge.rubrics.assertions.steps",
    "SuccessCriterion": "pathjudge.rubrics.assertions.outcome",
    "Suite": "pathjudge.rubrics.suite",
    "SuiteError": "pathjudge.errors",
    "SuiteGate": "pathjudge.rubrics.suite",
    "Task": "pathjudge.rubrics.suite",
    "Timing": "pathjudge.agent.trajectory",
    "Tool": "pathjudge.agent.loop",
    "ToolSelectionSpec": "pathjudge.rubrics.assertions.tools",
    "Trajectory": "pathjudge.agent.trajectory",
    "TrustDecision": "pathjudge.calibration.agreement",
    "Usage": "pathjudge.agent.trajectory",
    "VarianceReport": "pathjudge.scoring.variance",
    "Verdict": "pathjudge.judge.verdict",
    "VerdictCache": "pathjudge.judge.cache",
    "VerdictRecord": "pathjudge.judge.verdict",
    "align_path": "pathjudge.rubrics.path",
    "assert_path": "pathjudge.testing",
    "assert_steps": "pathjudge.testing",
    "assert_success": "pathjudge.testing",
    "assert_tools": "pathjudge.testing",
    "build_judge_requests": "pathjudge.scoring.judged:judge_requests",
    "build_scorecard": "pathjudge.scoring.scorecard",
    "builtin_criteria": "pathjudge.rubrics.criteria",
    "calibrate": "pathjudge.calibration.calibrate",
    "check_outcome": "pathjudge.rubrics.assertions.outcome",
    "check_recovery": "pathjudge.rubrics.assertions.recovery",
    "check_steps": "pathjudge.rubrics.assertions.steps",
    "check_tool_selection": "pathjudge.rubrics.assertions.tools",
    "collect_suite": "pathjudge.agent.collect",
    "decide_trust": "pathjudge.calibration.agreement",
    "diff_runs": "pathjudge.scoring.diff",
    "evaluate_gates": "pathjudge.scoring.scorecard",
    "expectations_from_bfcl": "pathjudge.rubrics.assertions.arguments",
    "few_shot_yaml": "pathjudge.calibration.disagreements",
    "find_disagreements": "pathjudge.calibration.disagreements",
    "find_loops": "pathjudge.rubrics.assertions.steps",
    "fleiss_kappa": "pathjudge.calibration.agreement",
    "get_criterion": "pathjudge.rubrics.criteria",
    "grade": "pathjudge.scoring.grade",
    "import_file": "pathjudge.agent.importers",
    "import_session": "pathjudge.agent.importers",
    "is_refusal": "pathjudge.rubrics.assertions.outcome",
    "iter_jsonl": "pathjudge._io",
    "judge_agreement": "pathjudge.calibration.agreement",
    "judge_faithfulness": "pathjudge.judge.faithfulness",
    "judge_noise": "pathjudge.calibration.noise",
    "judge_requests": "pathjudge.judge.runner",
    "judge_requests_sync": "pathjudge.judge.runner",
    "krippendorff_alpha": "pathjudge.calibration.agreement",
    "load_criterion": "pathjudge.rubrics.criteria",
    "load_labels": "pathjudge.calibration.labels",
    "load_recorded_verdicts": "pathjudge.calibration.verdicts:load_verdicts",
    "load_suite": "pathjudge.rubrics.suite",
    "load_verdicts": "pathjudge.scoring.judged",
    "make_judge_backend": "pathjudge.judge.session",
    "match_call": "pathjudge.rubrics.assertions.arguments",
    "mutate": "pathjudge.scoring.mutate",
    "mutation_report": "pathjudge.scoring.mutate",
    "pairwise_agreement": "pathjudge.calibration.pairwise",
    "parse_matcher": "pathjudge.rubrics.assertions.arguments",
    "pass_at_k": "pathjudge.scoring.variance",
    "pass_hat_k": "pathjudge.scoring.variance",
    "plot_confusion_matrix": "pathjudge.report.plots",
    "plot_pass_k": "pathjudge.report.plots",
    "plot_path_scores": "pathjudge.report.plots",
    "plot_reliability": "pathjudge.report.plots",
    "ppi_mean": "pathjudge.calibration.ppi",
    "query_overlap": "pathjudge.rubrics.assertions.overlap",
    "read_runs": "pathjudge.agent.io",
    "redundant_calls": "pathjudge.rubrics.assertions.steps",
    "reliability": "pathjudge.calibration.noise",
    "resolve_config": "pathjudge.config",
    "resolve_gate": "pathjudge.scoring.diff",
    "retriever_experiment": "pathjudge.scoring.mutate",
    "run_agent": "pathjudge.agent.loop",
    "run_agent_sync": "pathjudge.agent.loop",
    "run_batch": "pathjudge.judge.batches",
    "run_docent": "pathjudge.agent.docent",
    "run_judge": "pathjudge.judge.runner",
    "run_judge_sync": "pathjudge.judge.runner",
    "score_paths": "pathjudge.rubrics.path",
    "summarize_runs": "pathjudge.agent.stats",
    "twin_warning": "pathjudge.config",
    "validate_arguments": "pathjudge.rubrics.assertions.arguments",
    "variance_report": "pathjudge.scoring.variance",
    "write_html_report": "pathjudge.report.html",
    "write_jsonl": "pathjudge._io",
    "write_markdown_report": "pathjudge.report.markdown",
}

__all__ = sorted([*_EXPORTS, "__version__"])

if TYPE_CHECKING:  # pragma: no cover
    from pathjudge.agent.backends import (
        AnthropicModelBackend as AnthropicModelBackend,
        ModelBackend as ModelBackend,
        OpenAIModelBackend as OpenAIModelBackend,
        ScriptedBackend as ScriptedBackend,
    )
    from pathjudge.agent.collect import RunOptions as RunOptions, collect_suite as collect_suite
    from pathjudge.agent.docent import DocentPolicy as DocentPolicy, run_docent as run_docent
    from pathjudge.agent.importers import (
        import_file as import_file,
        import_session as import_session,
    )
    from pathjudge._io import (
        JsonlAppender as JsonlAppender,
        iter_jsonl as iter_jsonl,
        write_jsonl as write_jsonl,
    )
    from pathjudge.agent.io import read_runs as read_runs
    from pathjudge.agent.loop import (
        Tool as Tool,
        run_agent as run_agent,
        run_agent_sync as run_agent_sync,
    )
    from pathjudge.agent.recorder import Recorder as Recorder
    from pathjudge.agent.stats import summarize_runs as summarize_runs
    from pathjudge.agent.trajectory import (
        AgentInfo as AgentInfo,
        RunRecord as RunRecord,
        SCHEMA_VERSION as SCHEMA_VERSION,
        Step as Step,
        Timing as Timing,
        Trajectory as Trajectory,
        Usage as Usage,
    )
    from pathjudge.calibration.agreement import (
        AgreementStats as AgreementStats,
        Gates as Gates,
        TrustDecision as TrustDecision,
        decide_trust as decide_trust,
        fleiss_kappa as fleiss_kappa,
        judge_agreement as judge_agreement,
        krippendorff_alpha as krippendorff_alpha,
    )
    from pathjudge.calibration.calibrate import (
        CalibrationReport as CalibrationReport,
        calibrate as calibrate,
    )
    from pathjudge.calibration.disagreements import (
        few_shot_yaml as few_shot_yaml,
        find_disagreements as find_disagreements,
    )
    from pathjudge.calibration.labels import (
        LabelRecord as LabelRecord,
        LabelSet as LabelSet,
        load_labels as load_labels,
    )
    from pathjudge.calibration.noise import judge_noise as judge_noise, reliability as reliability
    from pathjudge.calibration.pairwise import (
        PairwiseItem as PairwiseItem,
        pairwise_agreement as pairwise_agreement,
    )
    from pathjudge.calibration.ppi import PPIResult as PPIResult, ppi_mean as ppi_mean
    from pathjudge.calibration.verdicts import (
        RecordedVerdict as RecordedVerdict,
        load_verdicts as load_recorded_verdicts,
    )
    from pathjudge.config import (
        DEFAULT_AGENT_MODEL as DEFAULT_AGENT_MODEL,
        DEFAULT_JUDGE_MODEL as DEFAULT_JUDGE_MODEL,
        PathjudgeConfig as PathjudgeConfig,
        ResolvedConfig as ResolvedConfig,
        resolve_config as resolve_config,
        twin_warning as twin_warning,
    )
    from pathjudge.errors import (
        AgentError as AgentError,
        BudgetExceededError as BudgetExceededError,
        ConfigError as ConfigError,
        CriterionError as CriterionError,
        ImportFormatError as ImportFormatError,
        InputError as InputError,
        JudgeError as JudgeError,
        LabelsError as LabelsError,
        MissingExtraError as MissingExtraError,
        PathjudgeError as PathjudgeError,
        RecordError as RecordError,
        SuiteError as SuiteError,
    )
    from pathjudge.judge.backends.anthropic import AnthropicJudgeBackend as AnthropicJudgeBackend
    from pathjudge.judge.backends.base import JudgeBackend as JudgeBackend
    from pathjudge.judge.backends.llama_inprocess import LlamaBackend as LlamaBackend
    from pathjudge.judge.backends.openai_compat import OpenAICompatBackend as OpenAICompatBackend
    from pathjudge.judge.batches import run_batch as run_batch
    from pathjudge.judge.cache import VerdictCache as VerdictCache
    from pathjudge.judge.faithfulness import (
        FaithfulnessScore as FaithfulnessScore,
        judge_faithfulness as judge_faithfulness,
    )
    from pathjudge.judge.runner import (
        Budget as Budget,
        judge_requests as judge_requests,
        judge_requests_sync as judge_requests_sync,
        run_judge as run_judge,
        run_judge_sync as run_judge_sync,
    )
    from pathjudge.judge.session import make_judge_backend as make_judge_backend
    from pathjudge.judge.verdict import (
        JudgeFailure as JudgeFailure,
        SampleVerdict as SampleVerdict,
        Verdict as Verdict,
        VerdictRecord as VerdictRecord,
    )
    from pathjudge.report.html import write_html_report as write_html_report
    from pathjudge.report.json_report import ScoreReport as ScoreReport
    from pathjudge.report.markdown import write_markdown_report as write_markdown_report
    from pathjudge.report.plots import (
        plot_confusion_matrix as plot_confusion_matrix,
        plot_pass_k as plot_pass_k,
        plot_path_scores as plot_path_scores,
        plot_reliability as plot_reliability,
    )
    from pathjudge.rubrics.assertions.arguments import (
        ArgMismatch as ArgMismatch,
        CallExpectation as CallExpectation,
        CallMatch as CallMatch,
        expectations_from_bfcl as expectations_from_bfcl,
        match_call as match_call,
        parse_matcher as parse_matcher,
        validate_arguments as validate_arguments,
    )
    from pathjudge.rubrics.assertions.base import AXES as AXES, CheckResult as CheckResult
    from pathjudge.rubrics.assertions.outcome import (
        SuccessCriterion as SuccessCriterion,
        check_outcome as check_outcome,
        is_refusal as is_refusal,
    )
    from pathjudge.rubrics.assertions.overlap import query_overlap as query_overlap
    from pathjudge.rubrics.assertions.recovery import (
        RecoverySpec as RecoverySpec,
        check_recovery as check_recovery,
    )
    from pathjudge.rubrics.assertions.steps import (
        StepSpec as StepSpec,
        check_steps as check_steps,
        find_loops as find_loops,
        redundant_calls as redundant_calls,
    )
    from pathjudge.rubrics.assertions.tools import (
        ToolSelectionSpec as ToolSelectionSpec,
        check_tool_selection as check_tool_selection,
    )
    from pathjudge.rubrics.criteria import (
        Criterion as Criterion,
        builtin_criteria as builtin_criteria,
        get_criterion as get_criterion,
        load_criterion as load_criterion,
    )
    from pathjudge.rubrics.path import (
        FaultCosts as FaultCosts,
        PathAlignment as PathAlignment,
        ReferencePath as ReferencePath,
        ReferenceStep as ReferenceStep,
        align_path as align_path,
        score_paths as score_paths,
    )
    from pathjudge.rubrics.suite import (
        Suite as Suite,
        SuiteGate as SuiteGate,
        Task as Task,
        load_suite as load_suite,
    )
    from pathjudge.scoring.diff import (
        DiffGate as DiffGate,
        DiffReport as DiffReport,
        diff_runs as diff_runs,
        resolve_gate as resolve_gate,
    )
    from pathjudge.scoring.grade import RunGrade as RunGrade, grade as grade
    from pathjudge.scoring.judged import (
        JudgeRequest as JudgeRequest,
        judge_requests as build_judge_requests,
        load_verdicts as load_verdicts,
    )
    from pathjudge.scoring.mutate import (
        MutationReport as MutationReport,
        mutate as mutate,
        mutation_report as mutation_report,
        retriever_experiment as retriever_experiment,
    )
    from pathjudge.scoring.scorecard import (
        Scorecard as Scorecard,
        build_scorecard as build_scorecard,
        evaluate_gates as evaluate_gates,
    )
    from pathjudge.scoring.variance import (
        VarianceReport as VarianceReport,
        pass_at_k as pass_at_k,
        pass_hat_k as pass_hat_k,
        variance_report as variance_report,
    )
    from pathjudge.testing import (
        assert_path as assert_path,
        assert_steps as assert_steps,
        assert_success as assert_success,
        assert_tools as assert_tools,
    )


def __getattr__(name: str) -> Any:
    spec = _EXPORTS.get(name)
    if spec is None:
        raise AttributeError(f"module 'pathjudge' has no attribute {name!r}")
    module, _, attribute = spec.partition(":")
    value = getattr(importlib.import_module(module), attribute or name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return list(__all__)
