"""Options that several commands declare alike: one alias each, so a flag reads the same everywhere.

An option whose help text differs from one command to the next (``--backend`` of ``run`` is the
agent's, of ``judge`` the judge's) stays with its command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pathjudge._cli.app import JSON_HELP

__all__ = [
    "AllowCallables",
    "BootstrapSeed",
    "ConfigFile",
    "JsonOut",
    "JudgeModel",
    "Markdown",
    "SuiteOfRuns",
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
