"""Project configuration: one place to set the judge, the agent under test, the gates and the weights.

Where values come from, highest precedence first:

1. the command line (``resolve_config(cli={...})``; ``pathjudge config --set KEY=VALUE``),
2. the environment (``PATHJUDGE_<KEY>``, see :data:`ENV_VARS`),
3. a configuration file: ``pathjudge.toml`` (keys at the top level) or the ``[tool.pathjudge]`` table of
   ``pyproject.toml``, found by walking up from the working directory (in each directory
   ``pathjudge.toml`` is looked for first; a ``pyproject.toml`` without ``[tool.pathjudge]`` is passed
   over), or named explicitly with ``config_file=`` / ``PATHJUDGE_CONFIG``,
4. the built-in defaults.

Precedence is per key: a file that sets ``weights.axes.tool_selection`` and an environment that sets
``weights.axes.error_recovery`` both apply. The keys (the environment variable is ``PATHJUDGE_`` plus the
key in upper case with dots as underscores)::

    judge.backend            anthropic | openai-compatible | llama-cpp        (default anthropic)
    judge.model              the judge model                                  (default claude-opus-4-8)
    judge.base_url           the judge API's base URL                         (default: the backend's)
    agent.backend            as judge.backend, or scripted (offline Docent)   (default anthropic)
    agent.model              the agent under test                             (default claude-haiku-4-5)
    agent.base_url           the agent API's base URL                         (default: the backend's)
    concurrency              parallel model calls, >= 1                       (default 8)
    cache                    verdict cache file (relative: to the config file's directory, else the
                             working directory)                               (default .pathjudge/cache.sqlite)
    budget_usd               cost budget in US dollars, >= 0                  (default: none)
    calibration.tpr          minimum lower CI bound of the judge's TPR        (default 0.8)
    calibration.tnr          minimum lower CI bound of the judge's TNR        (default 0.8)
    calibration.kappa        minimum lower CI bound of Cohen's kappa          (default 0.6)
                             (all three count an unsure verdict as wrong)
    calibration.max_unsure   maximum upper CI bound of the unsure rate        (default 0.2;
                             none or 1 switches it off)
    weights.axes.<axis>      scorecard weight of each of the five axes, >= 0  (default 1.0 each)
    weights.levels.<level>   weight of success / tool_calls / trajectory      (default 1.0 each)
    fail_under.<metric>      exit 1 when the scorecard metric falls below this: passed, success,
                             partial, tool_calls, trajectory, overall or an axis in [0, 1], path
                             in [0, 100] (the names and ranges of --fail-under) (default: none)
    allow_callables          let suites' ``callable`` criteria run (they import and execute Python
                             code): true, false, or a list of modules, e.g. ["mypkg.checks"]
                             (environment / command line: true, false or comma-separated modules)
                                                                              (default false)

Deprecated spellings, accepted until pathjudge 0.3 with a notice on stderr: the backends ``openai``
(now ``openai-compatible``) and ``llama`` (now ``llama-cpp``), and the level ``correctness`` (now
``tool_calls``: ``weights.levels.correctness``, ``fail_under.correctness``).

Optional keys (``*.base_url``, ``budget_usd``, ``calibration.max_unsure``, ``fail_under.*``) are unset by
``none`` (or an empty value) in the environment or on the command line. Strings from the environment and
the command line are parsed by the key's type; values in a file must already have the right TOML type.

Errors are :class:`~pathjudge.errors.ConfigError` naming where the bad value came from and how to fix it:
the file and the full dotted key (``judge.model``, under ``[tool.pathjudge]`` in ``pyproject.toml``; a
TOML syntax error also gives the line :mod:`tomllib` reports), the environment variable, or the
command-line key. Unknown keys are errors, never ignored.

The defaults follow the course material: the agent under test on ``claude-haiku-4-5`` and the judge on
``claude-opus-4-8``. When the two resolve to the same model, :func:`twin_warning` says that the judge is
grading its own twin (the CLIs print it on stderr).

Layout: :mod:`._settings` (the settings models), :mod:`._keys` (the key registry and reading one value),
:mod:`._files` (finding and reading the file), :mod:`._resolve` (the precedence) and :mod:`._twin`
(model names and the twin warning).
"""

from __future__ import annotations

from pathjudge.config._files import find_config_file
from pathjudge.config._keys import CONFIG_FILE_ENV as CONFIG_FILE_ENV
from pathjudge.config._keys import ENV_VARS, config_keys
from pathjudge.config._resolve import ResolvedConfig, default_config, resolve_config
from pathjudge.config._settings import (
    DEFAULT_AGENT_MODEL,
    DEFAULT_JUDGE_MODEL,
    AgentSettings,
    AxisWeights,
    CalibrationGates,
    FailUnder,
    JudgeSettings,
    LevelWeights,
    PathjudgeConfig,
    Weights,
)
from pathjudge.config._twin import normalize_model, twin_warning

__all__ = [
    "DEFAULT_AGENT_MODEL",
    "DEFAULT_JUDGE_MODEL",
    "ENV_VARS",
    "AgentSettings",
    "AxisWeights",
    "CalibrationGates",
    "FailUnder",
    "JudgeSettings",
    "LevelWeights",
    "PathjudgeConfig",
    "ResolvedConfig",
    "Weights",
    "config_keys",
    "default_config",
    "find_config_file",
    "normalize_model",
    "resolve_config",
    "twin_warning",
]
