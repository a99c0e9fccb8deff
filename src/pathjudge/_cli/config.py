"""``pathjudge config``: the effective configuration and where each value came from.

Also :func:`resolve_for_cli`, which every command that reads the configuration calls: it resolves
command line > environment > file > defaults and prints the twin warning on stderr.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from pathjudge._cli.app import app, err_console, json_to_stdout, out_console, write_json
from pathjudge._cli.options import JsonOut
from pathjudge.errors import ConfigError

if TYPE_CHECKING:
    from pathjudge.config import ResolvedConfig
    from pathjudge.rubrics.suite import Suite

__all__ = ["judge_overrides", "load_suite_for_cli", "parse_set_options", "resolve_for_cli"]


def parse_set_options(items: list[str]) -> dict[str, object]:
    """``["judge.model=claude-x", "concurrency=4"]`` → ``{"judge.model": "claude-x", ...}``.

    Values stay strings (the configuration parses them by key type). Empty input gives ``{}``.
    """
    out: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(
                f"--set expects KEY=VALUE, got {item!r}",
                field="--set",
                hint="e.g. --set judge.model=claude-opus-4-8",
            )
        out[key.strip()] = value
    return out


def resolve_for_cli(
    overrides: Mapping[str, object] | None = None,
    *,
    config_file: Path | None = None,
    warn: bool = True,
) -> ResolvedConfig:
    """Resolve the configuration for a command and print the twin warning (if any) on stderr."""
    from pathjudge.config import resolve_config

    resolved = resolve_config(overrides, config_file=config_file)
    if warn:
        warning = resolved.twin_warning()
        if warning:
            err_console.print(
                f"[yellow]warning:[/] {escape(warning)}", markup=True, highlight=False
            )
    return resolved


def _render(value: object) -> str:
    """A value for display: URL user-info and anything key-shaped are masked."""
    from pathjudge._secrets import redact

    if value is None:
        return "—"
    if isinstance(value, tuple):
        value = ", ".join(str(v) for v in value) or "(none)"
    return redact(str(value))


@app.command("config")
def config_command(
    json_out: JsonOut = None,
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="Override a key for this command: KEY=VALUE (repeatable)."),
    ] = None,
    judge_model: Annotated[
        str | None, typer.Option("--judge-model", help="Override judge.model.")
    ] = None,
    agent_model: Annotated[
        str | None, typer.Option("--agent-model", help="Override agent.model.")
    ] = None,
    config_file: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="Read this file instead of searching for pathjudge.toml/pyproject.toml.",
        ),
    ] = None,
) -> None:
    """Print the effective configuration: each key, its value, and where it came from."""
    overrides: dict[str, object] = parse_set_options(set_ or [])
    if judge_model is not None:
        overrides["judge.model"] = judge_model
    if agent_model is not None:
        overrides["agent.model"] = agent_model
    resolved = resolve_for_cli(overrides, config_file=config_file)
    write_json(json_out, json.dumps(resolved.to_json(), indent=2))
    if json_to_stdout(json_out):
        return
    from pathjudge.report.text import Column, print_table

    title = f"pathjudge configuration — {resolved.file if resolved.file else 'no config file'}"
    print_table(
        out_console,
        title,
        [Column("key", "id"), Column("value", "text"), Column("source", "text")],
        [(key, _render(value), source) for key, value, source in resolved.rows()],
    )


def judge_overrides(
    *,
    backend: str | None,
    model: str | None,
    base_url: str | None,
    concurrency: int | None,
    cache: Path | None,
    backend_option: str = "--backend",
) -> dict[str, object]:
    """The judge options of a command line as overrides for :func:`resolve_for_cli` (``None``: not
    given, the configuration decides); an unknown backend is a :class:`ConfigError` naming
    ``backend_option``."""
    checked_backend = None
    if backend is not None:  # the judge session module only when a backend is named
        from pathjudge.judge.session import backend_name

        checked_backend = backend_name(backend, field=backend_option)
    return {
        "judge.backend": checked_backend,
        "judge.model": model,
        "judge.base_url": base_url,
        "concurrency": concurrency,
        "cache": cache,
    }


def load_suite_for_cli(
    path: Path, *, allow_callables: bool = False, config_file: Path | None = None
) -> Suite:
    """Load a suite for a command, allowing its callables only as the user said (flag > env > file).

    A callable that stays off is reported once on stderr with how to allow it; its checks grade as
    ``error``.
    """
    from pathjudge.config import resolve_config
    from pathjudge.rubrics.suite import load_suite

    policy: bool | tuple[str, ...] = True
    if not allow_callables:
        policy = resolve_config(config_file=config_file).config.allow_callables
    suite = load_suite(path, allow_callables=policy)
    blocked = suite.blocked_callables()
    if blocked:
        listed = ", ".join(f"{spec} (task {task})" for task, spec in blocked[:3])
        more = f" and {len(blocked) - 3} more" if len(blocked) > 3 else ""
        err_console.print(
            f"warning: {path}: {len(blocked)} callable criteria will not run and grade as errors: "
            f"{listed}{more}. A callable executes Python code; if you trust this suite, rerun with "
            "--allow-callables or set allow_callables in pathjudge.toml.",
            markup=False,
            highlight=False,
        )
    return suite
