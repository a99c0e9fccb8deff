"""Resolving the configuration: command line > environment > file > defaults, per key."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from pathjudge._vocab import deprecation_notice
from pathjudge.config._files import _FileLayer, _read_file, find_config_file
from pathjudge.config._keys import (
    _KEYS,
    _RENAMED_ENV,
    _TABLES,
    CONFIG_FILE_ENV,
    ENV_VARS,
    _current_key,
    _first_key,
    _from_string,
    _hint,
    _native,
    _unknown_key,
)
from pathjudge.config._settings import PathjudgeConfig
from pathjudge.config._twin import twin_warning
from pathjudge.errors import ConfigError


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
        from pathjudge._secrets import redact

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
    path = _config_path(config_file or environ.get(CONFIG_FILE_ENV) or None, base)
    layer = _read_file(path) if path is not None else None
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    _defaults(values, sources, path.parent if path is not None else base)
    if layer is not None:
        _from_file(values, sources, layer)
    _from_env(values, sources, environ, base)
    _from_cli(values, sources, cli or {}, base)
    return ResolvedConfig(config=_validate(values, sources, layer), sources=sources, file=path)


def _config_path(explicit: str | Path | None, base: Path) -> Path | None:
    """The file named explicitly (relative to ``base``), else the nearest one found from ``base``."""
    if not explicit:
        return find_config_file(base)
    path = Path(explicit)
    if not path.is_absolute():
        path = base / path
    if not path.is_file():
        raise ConfigError("configuration file not found", file=path, hint="check the path")
    return path


def _defaults(values: dict[str, Any], sources: dict[str, str], folder: Path) -> None:
    """The built-in default of every key; a default path is relative to ``folder``."""
    default = PathjudgeConfig()
    for key in _KEYS:
        node: Any = default
        for part in key.split("."):
            node = getattr(node, part)
        values[key], sources[key] = _relative(key, node, folder), "default"


def _from_file(values: dict[str, Any], sources: dict[str, str], layer: _FileLayer) -> None:
    for key, raw in layer.values.items():
        spec = _KEYS[key]
        try:
            value = _native(spec, raw)
        except ValueError as exc:
            raise layer.error(key, str(exc), hint=_hint(spec)) from None
        values[key] = _relative(key, value, layer.path.parent)
        sources[key] = f"file:{layer.path}"


def _from_env(
    values: dict[str, Any], sources: dict[str, str], environ: Mapping[str, str], base: Path
) -> None:
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
        value = _parsed(key, raw_env, f"environment variable {name}")
        values[key], sources[key] = _relative(key, value, base), "env"


def _from_cli(
    values: dict[str, Any], sources: dict[str, str], cli: Mapping[str, object], base: Path
) -> None:
    for key, raw_cli in _flatten_cli(cli).items():
        value = _parsed(key, raw_cli, f"command-line value for '{key}'")
        values[key], sources[key] = _relative(key, value, base), "cli"


def _parsed(key: str, raw: object, origin: str) -> Any:
    """``raw`` (text, or a native value given on the command line) as ``key``'s type.

    A value that does not parse is a :class:`ConfigError` that names ``origin`` and the key.
    """
    spec = _KEYS[key]
    try:
        return _from_string(spec, raw) if isinstance(raw, str) else _native(spec, raw)
    except ValueError as exc:
        raise ConfigError(f"{origin}: {exc}", field=key, hint=_hint(spec)) from None


def _relative(key: str, value: Any, folder: Path) -> Any:
    """``value`` for ``key``; the value of a path setting is taken relative to ``folder``."""
    if _KEYS[key].kind == "path" and value is not None:
        return folder / value
    return value


def _validate(
    values: dict[str, Any], sources: dict[str, str], layer: _FileLayer | None
) -> PathjudgeConfig:
    """The settings model of the resolved values; a value out of bounds names its origin."""
    nested: dict[str, Any] = {}
    for key, value in values.items():
        node_dict = nested
        parts = key.split(".")
        for part in parts[:-1]:
            node_dict = node_dict.setdefault(part, {})
        node_dict[parts[-1]] = value
    try:
        return PathjudgeConfig.model_validate(nested, strict=True)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False)[0]
        key = ".".join(str(p) for p in first.get("loc", ()))
        origin = sources.get(key, "default")
        message = str(first.get("msg", "invalid value"))
        hint = _hint(_KEYS[key]) if key in _KEYS else None
        if origin.startswith("file:") and layer is not None:
            raise layer.error(key, message, hint=hint) from None
        if origin == "env":
            raise ConfigError(
                f"environment variable {ENV_VARS[key]}: {message}", field=key, hint=hint
            ) from None
        raise ConfigError(f"{origin} value: {message}", field=key, hint=hint) from None


def default_config() -> ResolvedConfig:
    """The built-in defaults only: no file, no environment (for callers that must not read either)."""
    return ResolvedConfig(config=PathjudgeConfig(), sources=dict.fromkeys(_KEYS, "default"))
