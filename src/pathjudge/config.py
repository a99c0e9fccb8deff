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

Errors are :class:`~pathjudge.errors.ConfigError` naming where the bad value came from: the file and the
line of the key (found by scanning the TOML text, as :mod:`tomllib` gives no positions), the environment
variable, or the command-line key. Unknown keys are errors, never ignored.

The defaults follow the course material: the agent under test on ``claude-haiku-4-5`` and the judge on
``claude-opus-4-8``. When the two resolve to the same model, :func:`twin_warning` says that the judge is
grading its own twin (the CLIs print it on stderr).
"""

from __future__ import annotations

import math
import os
import re
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, assert_never

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pathjudge._secrets import redact
from pathjudge._vocab import DEPRECATED_BACKENDS, DEPRECATED_METRICS, deprecation_notice
from pathjudge.errors import ConfigError

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

DEFAULT_JUDGE_MODEL = "claude-opus-4-8"
DEFAULT_AGENT_MODEL = "claude-haiku-4-5"

Backend = Literal["anthropic", "openai-compatible", "llama-cpp"]
AgentBackend = Literal["anthropic", "openai-compatible", "llama-cpp", "scripted"]


class _Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class JudgeSettings(_Settings):
    """Which model grades, and through which backend."""

    backend: Backend = Field(default="anthropic", description="The judge's model backend.")
    model: str = Field(default=DEFAULT_JUDGE_MODEL, min_length=1, description="The judge model.")
    base_url: str | None = Field(default=None, description="Base URL of the judge's API.")


class AgentSettings(_Settings):
    """The agent under test: its model and backend."""

    backend: AgentBackend = Field(default="anthropic", description="The agent's model backend.")
    model: str = Field(default=DEFAULT_AGENT_MODEL, min_length=1, description="The agent's model.")
    base_url: str | None = Field(default=None, description="Base URL of the agent's API.")


class CalibrationGates(_Settings):
    """Lower CI bounds a judge must reach to be trusted (and an optional cap on its unsure rate)."""

    tpr: float = Field(default=0.8, ge=0.0, le=1.0, description="Minimum true-positive rate.")
    tnr: float = Field(default=0.8, ge=0.0, le=1.0, description="Minimum true-negative rate.")
    kappa: float = Field(default=0.6, ge=-1.0, le=1.0, description="Minimum Cohen's kappa.")
    max_unsure: float | None = Field(
        default=0.2,
        ge=0.0,
        le=1.0,
        description="Maximum upper bound of the rate of 'unsure' verdicts (1 switches it off).",
    )


class AxisWeights(_Settings):
    """Scorecard weight of each of the five axes."""

    tool_selection: float = Field(default=1.0, ge=0.0)
    argument_correctness: float = Field(default=1.0, ge=0.0)
    step_efficiency: float = Field(default=1.0, ge=0.0)
    error_recovery: float = Field(default=1.0, ge=0.0)
    goal_completion: float = Field(default=1.0, ge=0.0)


class LevelWeights(_Settings):
    """Weight of each of the three levels in the overall score."""

    success: float = Field(default=1.0, ge=0.0, description="Task success.")
    tool_calls: float = Field(default=1.0, ge=0.0, description="Tool-call correctness.")
    trajectory: float = Field(default=1.0, ge=0.0, description="Trajectory quality.")


class Weights(_Settings):
    """Scorecard weights: the five axes and the three levels."""

    axes: AxisWeights = Field(default_factory=AxisWeights)
    levels: LevelWeights = Field(default_factory=LevelWeights)


class FailUnder(_Settings):
    """Thresholds under which ``pathjudge score`` exits 1; None means no gate.

    The same metrics, names and ranges as ``--fail-under``: every scorecard metric in [0, 1], and
    ``path`` (the mean path score) in [0, 100].
    """

    passed: float | None = Field(default=None, ge=0.0, le=1.0)
    success: float | None = Field(default=None, ge=0.0, le=1.0)
    partial: float | None = Field(default=None, ge=0.0, le=1.0)
    tool_calls: float | None = Field(default=None, ge=0.0, le=1.0)
    trajectory: float | None = Field(default=None, ge=0.0, le=1.0)
    path: float | None = Field(default=None, ge=0.0, le=100.0)
    overall: float | None = Field(default=None, ge=0.0, le=1.0)
    tool_selection: float | None = Field(default=None, ge=0.0, le=1.0)
    argument_correctness: float | None = Field(default=None, ge=0.0, le=1.0)
    step_efficiency: float | None = Field(default=None, ge=0.0, le=1.0)
    error_recovery: float | None = Field(default=None, ge=0.0, le=1.0)
    goal_completion: float | None = Field(default=None, ge=0.0, le=1.0)


class PathjudgeConfig(_Settings):
    """The effective configuration (every key has a value; see the module docstring)."""

    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    concurrency: int = Field(default=8, ge=1, description="Parallel model calls.")
    cache: Path = Field(default=Path(".pathjudge/cache.sqlite"), description="Verdict cache file.")
    budget_usd: float | None = Field(default=None, ge=0.0, description="Cost budget in US dollars.")
    calibration: CalibrationGates = Field(default_factory=CalibrationGates)
    weights: Weights = Field(default_factory=Weights)
    fail_under: FailUnder = Field(default_factory=FailUnder)
    allow_callables: bool | tuple[str, ...] = Field(
        default=False,
        description="Which suite callables may run (they execute code): all, none, or these modules.",
    )


# --------------------------------------------------------------------------------------------------
# The key registry, derived from the models


Kind = Literal["str", "int", "float", "path", "choice", "callables"]


@dataclass(frozen=True, slots=True)
class _Key:
    name: str
    kind: Kind
    optional: bool
    choices: tuple[str, ...] = ()


def _leaf(name: str, annotation: Any) -> _Key:
    if annotation == bool | tuple[str, ...]:
        return _Key(name, "callables", False)
    optional = False
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and type(None) in args:
        optional = True
        annotation = next(a for a in args if a is not type(None))
    if typing.get_origin(annotation) is Literal:
        return _Key(name, "choice", optional, tuple(str(a) for a in typing.get_args(annotation)))
    kinds: dict[Any, Kind] = {str: "str", int: "int", float: "float", Path: "path"}
    return _Key(name, kinds[annotation], optional)


def _walk(model: type[BaseModel], prefix: str = "") -> dict[str, _Key]:
    keys: dict[str, _Key] = {}
    for name, info in model.model_fields.items():
        full = f"{prefix}{name}"
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            keys.update(_walk(annotation, f"{full}."))
        else:
            keys[full] = _leaf(full, annotation)
    return keys


_KEYS: dict[str, _Key] = _walk(PathjudgeConfig)
_TABLES: frozenset[str] = frozenset(
    ".".join(key.split(".")[:i]) for key in _KEYS for i in range(1, key.count(".") + 1)
)


_RENAMED_KEYS: dict[str, str] = {
    f"{table}.{old}": f"{table}.{new}"
    for table in ("weights.levels", "fail_under")
    for old, new in DEPRECATED_METRICS.items()
}
"""Deprecated configuration key → its current key (see :mod:`pathjudge._vocab`)."""


def _current_key(key: str) -> str:
    """``key``, or its current spelling (with a deprecation notice) when it is a deprecated one."""
    new = _RENAMED_KEYS.get(key)
    if new is None:
        return key
    deprecation_notice(key, new, where="configuration key")
    return new


def _current_choice(spec: _Key, value: object) -> object:
    """A deprecated backend spelling mapped to its current one (with a notice) for a choice key."""
    if isinstance(value, str) and value not in spec.choices:
        new = DEPRECATED_BACKENDS.get(value)
        if new is not None and new in spec.choices:
            deprecation_notice(value, new, where=spec.name)
            return new
    return value


def _env_name(key: str) -> str:
    return "PATHJUDGE_" + key.upper().replace(".", "_")


ENV_VARS: dict[str, str] = {key: _env_name(key) for key in _KEYS}
"""Config key → the environment variable that sets it (``judge.model`` → ``PATHJUDGE_JUDGE_MODEL``)."""

_RENAMED_ENV: dict[str, str] = {_env_name(old): new for old, new in _RENAMED_KEYS.items()}

CONFIG_FILE_ENV = "PATHJUDGE_CONFIG"
"""Environment variable naming the configuration file explicitly (instead of the upward search)."""


def config_keys() -> tuple[str, ...]:
    """Every configuration key, dotted, in declaration order."""
    return tuple(_KEYS)


def _first_key(table: str) -> str:
    return next(k for k in _KEYS if k.startswith(table + "."))


def _suggest(key: str) -> str | None:
    import difflib  # only for a misspelt key

    table, _, leaf = key.rpartition(".")
    if table in _TABLES:
        # a key of a known table (fail_under.bogus): a close sibling, else every key the table takes
        siblings = sorted(
            {k[len(table) + 1 :].split(".")[0] for k in _KEYS if k.startswith(table + ".")}
        )
        near = difflib.get_close_matches(leaf, siblings, n=1, cutoff=0.6)
        if near:
            return f"did you mean '{table}.{near[0]}'?"
        return f"'{table}' takes: {', '.join(siblings)}"
    close = difflib.get_close_matches(key, [*_KEYS, *_TABLES], n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None


def _unknown_key(key: str, **where: Any) -> ConfigError:
    hint = _suggest(key) or "run 'pathjudge config' to list the keys"
    return ConfigError(f"unknown configuration key '{key}'", field=key, hint=hint, **where)


# --------------------------------------------------------------------------------------------------
# Model-name normalisation and the twin warning

_PREFIX = re.compile(r"^(?:[a-z]{2,4}\.)?anthropic\.")
_SUFFIXES = (
    re.compile(r"-v\d+(?::\d+)?$"),  # Bedrock: -v1:0
    re.compile(r"[@-]\d{8}$"),  # dated snapshot: -20251001 / Vertex @20251001
    re.compile(r"-latest$"),
)


def normalize_model(name: str) -> str:
    """A model name reduced to its identity: lower case, no provider prefix, no version/date suffix.

    ``"anthropic/Claude-Haiku-4-5-20251001"``, ``"us.anthropic.claude-haiku-4-5-20251001-v1:0"`` and
    ``"claude-haiku-4-5@20251001"`` all give ``"claude-haiku-4-5"``. An empty name stays empty.
    """
    out = name.strip().lower()
    out = out.rsplit("/", 1)[-1]
    out = _PREFIX.sub("", out)
    changed = True
    while changed:
        changed = False
        for pattern in _SUFFIXES:
            trimmed = pattern.sub("", out)
            if trimmed != out and trimmed:
                out, changed = trimmed, True
    return out


def twin_warning(judge_model: str, agent_model: str) -> str | None:
    """The warning to show when the judge and the agent under test are the same model, else None.

    Names are compared after :func:`normalize_model` (case, provider prefix and date suffix ignored).
    """
    if normalize_model(judge_model) != normalize_model(agent_model):
        return None
    other = (
        DEFAULT_JUDGE_MODEL
        if normalize_model(judge_model) != DEFAULT_JUDGE_MODEL
        else "another model family or size"
    )
    return (
        f"the judge model '{judge_model}' is the same model as the agent under test "
        f"('{agent_model}'), so the judge is grading its own twin and may favour its own kind of "
        f"answer; set judge.model to a different model (e.g. {other}), or at least give the judge a "
        "different framing and rubric than the agent's prompt and take more samples per item "
        "(--samples)"
    )


# --------------------------------------------------------------------------------------------------
# Files


def _has_tool_table(path: Path) -> bool:
    data = _load_toml(path)
    tool = data.get("tool")
    return isinstance(tool, dict) and "pathjudge" in tool


def find_config_file(cwd: str | Path | None = None) -> Path | None:
    """The nearest ``pathjudge.toml``, or ``pyproject.toml`` with ``[tool.pathjudge]``, at or above ``cwd``.

    In each directory ``pathjudge.toml`` wins over ``pyproject.toml``. None when there is neither.
    """
    start = Path(cwd) if cwd is not None else Path.cwd()
    start = start.resolve()
    for directory in (start, *start.parents):
        candidate = directory / "pathjudge.toml"
        if candidate.is_file():
            return candidate
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file() and _has_tool_table(pyproject):
            return pyproject
    return None


_TOML_LINE = re.compile(r"at line (\d+)")


def _load_toml(path: Path) -> dict[str, Any]:
    return _parse_toml(path, _read_text(path))


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            "configuration file not found", file=path, hint="check the path"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"could not be read ({exc})", file=path) from None


def _parse_toml(path: Path, text: str) -> dict[str, Any]:
    import tomllib  # here: no configuration file, no TOML parser to import

    try:
        return tomllib.loads(text)
    except RecursionError:
        raise ConfigError(
            "not valid TOML (nested too deeply)", file=path, hint="flatten the arrays and tables"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        found = _TOML_LINE.search(str(exc))
        line = int(found.group(1)) if found else None
        if line is None and "end of document" in str(exc):
            line = max(1, len(text.rstrip().splitlines()))  # the last written line
        raise ConfigError(
            f"not valid TOML ({str(exc).split(' (at')[0]})",
            file=path,
            line=line,
            hint="fix the TOML syntax",
        ) from None


_BARE = r"[A-Za-z0-9_-]+"
_QUOTED = r"\"(?:[^\"\\]|\\.)*\"|'[^']*'"
_KEY_PART = rf"(?:{_BARE}|{_QUOTED})"
_DOTTED = rf"{_KEY_PART}(?:\s*\.\s*{_KEY_PART})*"
_HEADER = re.compile(rf"^\[\[?\s*({_DOTTED})\s*\]\]?\s*(?:#.*)?$")
_ASSIGN = re.compile(rf"^({_DOTTED})\s*=\s*(.*)$")
_INLINE_KEY = re.compile(rf"[{{,]\s*({_DOTTED})\s*=")


def _split_key(dotted: str) -> tuple[str, ...]:
    parts = re.findall(_KEY_PART, dotted)
    return tuple(p[1:-1] if p[:1] in "\"'" else p for p in parts)


def key_lines(text: str) -> dict[tuple[str, ...], int]:
    """The 1-based line where each table and key of a TOML text is first written.

    Handles ``[table]`` / ``[[array]]`` headers, dotted and quoted keys, keys of inline tables on the
    same line, and skips multi-line strings and comments. Keys inside multi-line arrays are not listed.
    """
    lines: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    in_string: str | None = None
    depth = 0  # open brackets of a multi-line array value
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if in_string is not None:
            if in_string in stripped:
                in_string = None
            continue
        if depth > 0:
            depth += stripped.count("[") - stripped.count("]")
            continue
        if not stripped or stripped.startswith("#"):
            continue
        header = _HEADER.match(stripped)
        if header:
            table = _split_key(header.group(1))
            for i in range(1, len(table) + 1):
                lines.setdefault(table[:i], number)
            continue
        assign = _ASSIGN.match(stripped)
        if not assign:
            continue
        path = table + _split_key(assign.group(1))
        for i in range(len(table) + 1, len(path) + 1):
            lines.setdefault(path[:i], number)
        value = assign.group(2)
        if value.startswith("{"):
            # keys of an inline table: attach them one level deep (nested inline tables approximate)
            for inner in _INLINE_KEY.finditer(value):
                lines.setdefault(path + _split_key(inner.group(1)), number)
        for quote in ('"""', "'''"):
            if value.startswith(quote) and value.count(quote) == 1:
                in_string = quote
        if value.startswith("[") and value.count("[") > value.count("]"):
            depth = value.count("[") - value.count("]")
    return lines


@dataclass(frozen=True, slots=True)
class _FileLayer:
    path: Path
    values: dict[str, Any]
    lines: dict[tuple[str, ...], int]
    prefix: tuple[str, ...]

    def line(self, key: str) -> int | None:
        return _line_of(self.lines, self.prefix + tuple(key.split(".")))


def _line_of(lines: Mapping[tuple[str, ...], int], parts: tuple[str, ...]) -> int | None:
    """The line of the key ``parts``, or of its nearest enclosing table written in the file."""
    for i in range(len(parts), 0, -1):
        found = lines.get(parts[:i])
        if found is not None:
            return found
    return None


def _flatten_file(
    table: Mapping[str, Any],
    layer_path: Path,
    lines: dict[tuple[str, ...], int],
    prefix: tuple[str, ...],
) -> dict[str, Any]:
    """Flatten a config table to dotted keys; an unknown key raises naming the file and line."""
    out: dict[str, Any] = {}

    def line_of(key: str) -> int | None:
        return _line_of(lines, prefix + tuple(key.split(".")))

    def walk(value: Mapping[str, Any], at: str) -> None:
        for name, item in value.items():
            key = f"{at}{name}"
            if key in _RENAMED_KEYS:
                current = _current_key(key)
                old_line = line_of(key)
                if old_line is not None:
                    lines.setdefault(prefix + tuple(current.split(".")), old_line)
                key = current
            if key in _KEYS:
                out[key] = item
            elif key in _TABLES:
                if not isinstance(item, dict):
                    raise ConfigError(
                        f"'{key}' must be a table of keys, got {type(item).__name__}",
                        file=layer_path,
                        line=line_of(key),
                        field=key,
                        hint=f"write [{'.'.join((*prefix, key))}] with keys under it",
                    )
                walk(item, f"{key}.")
            else:
                raise _unknown_key(key, file=layer_path, line=line_of(key))

    walk(table, "")
    return out


def _read_file(path: Path) -> _FileLayer:
    text = _read_text(path)
    data = _parse_toml(path, text)
    lines = key_lines(text)
    if path.name == "pyproject.toml":
        prefix: tuple[str, ...] = ("tool", "pathjudge")
        tool = data.get("tool")
        table = tool.get("pathjudge") if isinstance(tool, dict) else None
        if table is None:
            table = {}
        if not isinstance(table, dict):
            raise ConfigError(
                "[tool.pathjudge] must be a table",
                file=path,
                line=lines.get(prefix),
                hint="write [tool.pathjudge] followed by key = value lines",
            )
    else:
        prefix = ()
        table = data
    return _FileLayer(path, _flatten_file(table, path, lines, prefix), lines, prefix)


# --------------------------------------------------------------------------------------------------
# Parsing values from strings and checking native ones

_NONE_WORDS = frozenset({"", "none", "null"})


def _from_string(spec: _Key, raw: str) -> Any:
    """Parse an environment / command-line string for ``spec``; raises ValueError with the reason."""
    text = raw.strip()
    if spec.optional and text.lower() in _NONE_WORDS:
        return None
    kind = spec.kind
    if kind == "str":
        if not text:
            raise ValueError("must not be empty")
        return text
    if kind == "choice":
        text = str(_current_choice(spec, text))
        if text not in spec.choices:
            raise ValueError(f"must be one of {', '.join(spec.choices)}, got {text!r}")
        return text
    if kind == "int":
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"must be a whole number, got {text!r}") from None
    if kind == "float":
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"must be a number, got {text!r}") from None
        if not math.isfinite(number):
            raise ValueError(f"must be a finite number, got {text!r}")
        return number
    if kind == "path":
        if not text:
            raise ValueError("must not be empty")
        return Path(text)
    if kind == "callables":
        word = text.lower()
        if word in {"true", "1", "yes", "on"}:
            return True
        if word in {"false", "0", "no", "off", ""}:
            return False
        return _modules([part.strip() for part in text.split(",") if part.strip()])
    assert_never(kind)


_MODULE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


def _modules(names: list[Any]) -> tuple[str, ...]:
    for name in names:
        if not isinstance(name, str) or not _MODULE.match(name):
            raise ValueError(f"must be true, false or module names, got {name!r}")
    return tuple(names)


def _native(spec: _Key, value: Any) -> Any:
    """Check a TOML / Python value for ``spec`` (no string parsing); raises ValueError with the reason."""
    if value is None:
        if spec.optional:
            return None
        raise ValueError("must be set")
    kind = spec.kind
    if kind == "str":
        if not isinstance(value, str):
            raise ValueError(f"must be a string, got {type(value).__name__}")
        return value
    if kind == "choice":
        value = _current_choice(spec, value)
        if value not in spec.choices:
            raise ValueError(f"must be one of {', '.join(spec.choices)}, got {value!r}")
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"must be a whole number, got {type(value).__name__}")
        return value
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"must be a number, got {type(value).__name__}")
        if not math.isfinite(value):
            raise ValueError(f"must be a finite number, got {value}")
        return float(value)
    if kind == "path":
        if isinstance(value, Path):
            return value
        if not isinstance(value, str) or not value:
            raise ValueError("must be a non-empty path string")
        return Path(value)
    if kind == "callables":
        if isinstance(value, bool):
            return value
        if isinstance(value, list | tuple):
            return _modules(list(value))
        raise ValueError(
            f"must be true, false or a list of module names, got {type(value).__name__}"
        )
    assert_never(kind)


# --------------------------------------------------------------------------------------------------
# Resolution


@dataclass(frozen=True)
class ResolvedConfig:
    """The effective configuration plus where each value came from.

    ``source(key)`` is ``'cli'``, ``'env'``, ``'file:<path>'`` or ``'default'``.
    """

    config: PathjudgeConfig
    sources: Mapping[str, str]
    file: Path | None = None

    def value(self, key: str) -> Any:
        """The value of a dotted key; a table (``"weights.axes"``) gives a dict of its values."""
        if key not in _KEYS and key not in _TABLES:
            raise _unknown_key(key)
        node: Any = self.config
        for part in key.split("."):
            node = getattr(node, part)
        if isinstance(node, BaseModel):
            return node.model_dump()
        return node

    def source(self, key: str) -> str:
        """Where the value of a (leaf) key came from."""
        if key not in _KEYS:
            if key in _TABLES:
                raise ConfigError(
                    f"'{key}' is a table, not a key",
                    field=key,
                    hint=f"ask for one of its keys, e.g. '{_first_key(key)}'",
                )
            raise _unknown_key(key)
        return self.sources[key]

    def rows(self) -> list[tuple[str, Any, str]]:
        """``(key, value, source)`` for every key, in declaration order."""
        return [(key, self.value(key), self.sources[key]) for key in _KEYS]

    def twin_warning(self) -> str | None:
        """:func:`twin_warning` for the resolved judge and agent models."""
        return twin_warning(self.config.judge.model, self.config.agent.model)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dump: the file, each key's value and source, and the warnings.

        Credentials never appear: a URL's user-info and key-shaped text are masked."""

        values: dict[str, Any] = {}
        for key, value, source in self.rows():
            if isinstance(value, Path):
                value = str(value)
            if isinstance(value, str):
                value = redact(value)  # URL user-info and key-shaped values are masked
            elif isinstance(value, tuple):
                value = list(value)
            values[key] = {"value": value, "source": source}
        warning = self.twin_warning()
        return {
            "file": str(self.file) if self.file is not None else None,
            "values": values,
            "warnings": [warning] if warning else [],
        }


def _flatten_cli(cli: Mapping[str, object]) -> dict[str, object]:
    out: dict[str, object] = {}

    def walk(value: Mapping[str, object], at: str) -> None:
        for name, item in value.items():
            key = _current_key(f"{at}{name}")
            if key in _TABLES and isinstance(item, Mapping):
                walk(item, f"{key}.")
            elif key in _KEYS:
                if item is not None:
                    out[key] = item
            elif key in _TABLES:
                raise ConfigError(
                    f"'{key}' is a table; give its keys",
                    field=key,
                    hint=f"e.g. '{_first_key(key)}'",
                )
            else:
                raise _unknown_key(key)

    walk(cli, "")
    return out


def resolve_config(
    cli: Mapping[str, object] | None = None,
    *,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    config_file: str | Path | None = None,
) -> ResolvedConfig:
    """Resolve the configuration: command line > environment > file > built-in defaults, per key.

    ``cli`` maps dotted keys (or nested tables) to values; ``None`` values mean "not given". Strings
    there and in ``env`` (default ``os.environ``; only ``PATHJUDGE_*`` names of :data:`ENV_VARS` are
    read, others are ignored) are parsed by each key's type. The file is ``config_file``, else
    ``$PATHJUDGE_CONFIG``, else the nearest one found from ``cwd`` (default: the working directory); no
    file at all is fine. Any bad or unknown key raises :class:`ConfigError` naming its origin.
    """
    environ = os.environ if env is None else env
    base = Path(cwd) if cwd is not None else Path.cwd()
    explicit = config_file or environ.get(CONFIG_FILE_ENV) or None
    path: Path | None
    if explicit:
        path = Path(explicit)
        if not path.is_absolute():
            path = base / path
        if not path.is_file():
            raise ConfigError("configuration file not found", file=path, hint="check the path")
    else:
        path = find_config_file(base)
    layer = _read_file(path) if path is not None else None

    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    default = PathjudgeConfig()
    for key, spec in _KEYS.items():
        node: Any = default
        for part in key.split("."):
            node = getattr(node, part)
        values[key], sources[key] = node, "default"
        if spec.kind == "path":
            values[key] = (path.parent if path is not None else base) / node

    if layer is not None:
        for key, raw in layer.values.items():
            spec = _KEYS[key]
            try:
                value = _native(spec, raw)
            except ValueError as exc:
                raise ConfigError(
                    str(exc), file=layer.path, line=layer.line(key), field=key, hint=_hint(spec)
                ) from None
            if spec.kind == "path" and value is not None:
                value = layer.path.parent / value
            values[key], sources[key] = value, f"file:{layer.path}"

    for old_name, key in _RENAMED_ENV.items():
        if old_name in environ and ENV_VARS[key] not in environ:
            deprecation_notice(old_name, ENV_VARS[key], where="environment variable")
    for key, spec in _KEYS.items():
        name = ENV_VARS[key]
        if name not in environ:
            name = next((old for old, new in _RENAMED_ENV.items() if new == key), name)
            if name not in environ:
                continue
        raw_env = environ[name]
        if not raw_env.strip() and not spec.optional:
            continue  # an empty variable is "not set"
        try:
            value = _from_string(spec, raw_env)
        except ValueError as exc:
            raise ConfigError(
                f"environment variable {name}: {exc}", field=key, hint=_hint(spec)
            ) from None
        if spec.kind == "path" and value is not None:
            value = base / value
        values[key], sources[key] = value, "env"

    for key, raw_cli in _flatten_cli(cli or {}).items():
        spec = _KEYS[key]
        try:
            value = (
                _from_string(spec, raw_cli) if isinstance(raw_cli, str) else _native(spec, raw_cli)
            )
        except ValueError as exc:
            raise ConfigError(
                f"command-line value for '{key}': {exc}", field=key, hint=_hint(spec)
            ) from None
        if spec.kind == "path" and value is not None:
            value = base / value
        values[key], sources[key] = value, "cli"

    nested: dict[str, Any] = {}
    for key, value in values.items():
        node_dict = nested
        parts = key.split(".")
        for part in parts[:-1]:
            node_dict = node_dict.setdefault(part, {})
        node_dict[parts[-1]] = value
    try:
        config = PathjudgeConfig.model_validate(nested, strict=True)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False)[0]
        key = ".".join(str(p) for p in first.get("loc", ()))
        origin = sources.get(key, "default")
        message = str(first.get("msg", "invalid value"))
        if origin.startswith("file:") and layer is not None:
            raise ConfigError(message, file=layer.path, line=layer.line(key), field=key) from None
        if origin == "env":
            raise ConfigError(
                f"environment variable {ENV_VARS[key]}: {message}", field=key
            ) from None
        raise ConfigError(f"{origin} value: {message}", field=key) from None
    return ResolvedConfig(config=config, sources=dict(sources), file=path)


def default_config() -> ResolvedConfig:
    """The built-in defaults only: no file, no environment (for callers that must not read either)."""
    return ResolvedConfig(config=PathjudgeConfig(), sources=dict.fromkeys(_KEYS, "default"))


def _hint(spec: _Key) -> str:
    kind = spec.kind
    if kind == "str":
        text = "a string"
    elif kind == "choice":
        text = "one of " + ", ".join(spec.choices)
    elif kind == "int":
        text = "a whole number"
    elif kind == "float":
        text = "a number"
    elif kind == "path":
        text = "a file path"
    elif kind == "callables":
        text = "true, false or a list of module names"
    else:
        assert_never(kind)
    return f"'{spec.name}' takes {text}" + (" (or none)" if spec.optional else "")
