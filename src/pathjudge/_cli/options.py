"""Options that several commands declare alike: one alias each, so a flag reads the same everywhere.

An option whose help text differs from one command to the next (``--backend`` of ``run`` is the
agent's, of ``judge`` the judge's) stays with its command, or has one alias per wording where
commands share it: ``judge`` and ``bias`` take :data:`JudgeBackend`, ``calibrate`` and ``align``
:data:`LiveJudgeBackend` (its help says "live": calibrate also reads recorded verdicts).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pathjudge._cli.app import JSON_HELP

__all__ = [
    "BUILTINS",
    "AllowCallables",
    "AssignSplits",
    "BootstrapSeed",
    "ConfigFile",
    "HumanLabels",
    "IntervalConfidence",
    "JsonOut",
    "JudgeBackend",
    "JudgeBaseUrl",
    "JudgeCache",
    "JudgeConcurrency",
    "JudgeModel",
    "JudgedCriterion",
    "KappaBootstrap",
    "LiveJudgeBackend",
    "LiveJudgeBaseUrl",
    "LiveJudgeCache",
    "LiveJudgeConcurrency",
    "LiveJudgeSamples",
    "Markdown",
    "ReuseTest",
    "SuiteOfRuns",
    "TrustGates",
]

JsonOut = Annotated[Path | None, typer.Option("--json", help=JSON_HELP)]
ConfigFile = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help="Project configuration file (default: pathjudge.toml or pyproject.toml "
        "[tool.pathjudge] found from the working directory).",
    ),
]
AllowCallables = Annotated[
    bool,
    typer.Option(
        "--allow-callables",
        help="Let the suite's callable criteria run: they import and execute Python code, so "
        "allow them only for a suite you trust (config: allow_callables, true or a list of "
        "modules).",
    ),
]
SuiteOfRuns = Annotated[Path, typer.Option("--suite", help="The suite YAML the runs belong to.")]
Markdown = Annotated[
    Path | None,
    typer.Option("--markdown", help="Also write a Markdown summary (CI job summary) here."),
]
JudgeModel = Annotated[
    str | None,
    typer.Option(help="Judge model, config judge.model (llama-cpp: path to a GGUF)."),
]
BootstrapSeed = Annotated[int, typer.Option(help="Bootstrap seed.")]

# The built-in criteria, spelled out for --help without importing the criteria library at start-up;
# tests/judge/test_cli_judge_failures.py keeps it equal to pathjudge.rubrics.criteria.BUILTIN_CRITERIA.
BUILTINS = (
    "answer-correct, answer-grounded, claims-backed, refusal-appropriate, step-faithful, "
    "summary-covers-points, summary-faithful"
)

# The judge's options as `judge` and `bias` declare them.
JudgedCriterion = Annotated[
    str,
    typer.Option(
        "--criterion",
        help=f"A built-in criterion id ({BUILTINS}; see `pathjudge criteria list`) or a "
        "criterion YAML path (`pathjudge criteria export ID -o FILE` copies one to edit).",
    ),
]
JudgeBackend = Annotated[
    str | None,
    typer.Option(
        help="Config judge.backend: anthropic (default), openai-compatible (any "
        "OpenAI-compatible server) or llama-cpp (a GGUF model in process)."
    ),
]
JudgeBaseUrl = Annotated[
    str | None,
    typer.Option(
        "--base-url", help="API base URL, config judge.base_url (openai-compatible: required)."
    ),
]
JudgeConcurrency = Annotated[
    int | None, typer.Option(help="Calls in flight at most (config concurrency; default 8).")
]
JudgeCache = Annotated[
    Path | None,
    typer.Option(help="Verdict cache (config cache; default .pathjudge/cache.sqlite)."),
]

# The live judge's and the trust gates' options as `calibrate` and `align` declare them (calibrate
# also reads recorded verdicts, hence 'live').
HumanLabels = Annotated[
    list[Path],
    typer.Option(
        "--labels",
        help="Human labels JSONL: a labels file or a label log from pathjudge label "
        "(repeat to combine files).",
    ),
]
LiveJudgeBackend = Annotated[
    str | None,
    typer.Option(
        help="Judge backend for live judging (config judge.backend): anthropic, "
        "openai-compatible or llama-cpp."
    ),
]
LiveJudgeBaseUrl = Annotated[
    str | None,
    typer.Option(help="Server URL, config judge.base_url (openai-compatible backend)."),
]
LiveJudgeSamples = Annotated[int, typer.Option(min=1, help="Judge samples per item (live).")]
LiveJudgeConcurrency = Annotated[
    int | None,
    typer.Option(min=1, help="Judge calls in flight (live; config concurrency, default 8)."),
]
LiveJudgeCache = Annotated[
    Path | None,
    typer.Option(
        help="Verdict cache (live; config cache, default .pathjudge/cache.sqlite); reruns reuse it."
    ),
]
TrustGates = Annotated[
    str | None,
    typer.Option(
        help="Trust gates on lower bounds, e.g. tpr=0.8,tnr=0.8,kappa=0.6[,max_unsure=0.2] "
        "(config calibration.*; gates not named keep their configured value)."
    ),
]
IntervalConfidence = Annotated[
    float, typer.Option(min=0.5, max=0.999, help="Confidence level of every interval.")
]
KappaBootstrap = Annotated[int, typer.Option(min=0, help="Bootstrap resamples for kappa.")]
ReuseTest = Annotated[
    bool,
    typer.Option(
        "--reuse-test",
        help="Evaluate a changed judge on a test split another configuration already used "
        "(recorded, and said in every report).",
    ),
]
AssignSplits = Annotated[
    bool,
    typer.Option(
        "--assign-splits",
        help="Give labels without a split one by a hash of their group (60/20/20 train/dev/test; "
        "no group in two splits; stable as items are added).",
    ),
]
