"""Finding and reading the configuration file (``pathjudge.toml`` or ``[tool.pathjudge]``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pathjudge.config._keys import _KEYS, _TABLES, _current_key, _unknown_key
from pathjudge.errors import ConfigError


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


@dataclass(frozen=True, slots=True)
class _FileLayer:
    """The keys one configuration file sets, flattened to dotted keys."""

    path: Path
    table: str
    """Where the keys sit in the file: ``""`` (``pathjudge.toml``) or ``"[tool.pathjudge]"``."""
    values: dict[str, Any] = field(default_factory=dict)
    written: dict[str, str] = field(default_factory=dict)
    """A deprecated spelling as written, by the key it stands for."""

    def error(self, key: str, message: str, hint: str | None = None) -> ConfigError:
        """An error naming this file and the key (its table in ``pyproject.toml``, and the
        deprecated spelling it was written as)."""
        notes = [f"under {self.table}"] if self.table else []
        if key in self.written:
            notes.append(f"written as '{self.written[key]}'")
        where = f" ({', '.join(notes)})" if notes else ""
        return ConfigError(message + where, file=self.path, field=key, hint=hint)

    def read(self, table: Mapping[str, Any], at: str = "") -> None:
        """Flatten ``table`` into :attr:`values`; an unknown key raises naming the file and key."""
        for name, item in table.items():
            key = _current_key(f"{at}{name}")
            if key != f"{at}{name}":
                self.written[key] = f"{at}{name}"
            if key in _KEYS:
                self.values[key] = item
            elif key in _TABLES:
                if not isinstance(item, dict):
                    prefix = "tool.pathjudge." if self.table else ""
                    raise self.error(
                        key,
                        f"'{key}' must be a table of keys, got {type(item).__name__}",
                        hint=f"write [{prefix}{key}] with keys under it",
                    )
                self.read(item, f"{key}.")
            else:
                unknown = _unknown_key(key)
                raise self.error(key, unknown.message, hint=unknown.hint)


def _read_file(path: Path) -> _FileLayer:
    data = _parse_toml(path, _read_text(path))
    if path.name != "pyproject.toml":
        layer = _FileLayer(path, "")
        layer.read(data)
        return layer
    tool = data.get("tool")
    table = tool.get("pathjudge") if isinstance(tool, dict) else None
    if table is None:
        table = {}
    if not isinstance(table, dict):
        raise ConfigError(
            "[tool.pathjudge] must be a table",
            file=path,
            field="tool.pathjudge",
            hint="write [tool.pathjudge] followed by key = value lines",
        )
    layer = _FileLayer(path, "[tool.pathjudge]")
    layer.read(table)
    return layer
