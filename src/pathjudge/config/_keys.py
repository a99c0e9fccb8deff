"""The key registry derived from the settings models, and reading a value for a key
(from a string of the environment or the command line, or a native TOML / Python value)."""

from __future__ import annotations

import math
import re
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, assert_never

from pydantic import BaseModel

from pathjudge._vocab import DEPRECATED_BACKENDS, DEPRECATED_METRICS, deprecation_notice
from pathjudge.config._settings import PathjudgeConfig
from pathjudge.errors import ConfigError

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
