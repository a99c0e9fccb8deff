"""The typer application and the one place where errors become exit codes.

Exit codes: 0 success, 1 a gate or threshold was missed (score, diff), 2 bad input or a missing extra
(printed as one line, no traceback), 130 interrupted (partial work is already on disk).
"""

from __future__ import annotations

import copy
import functools
import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from pathjudge._outputs import OutputKind, check_outputs
from pathjudge.errors import InputError, PathjudgeError
from pathjudge.report.text import SafeConsole

__all__ = [
    "JSON_HELP",
    "app",
    "command_group",
    "err_console",
    "human_console",
    "json_to_stdout",
    "main",
    "out_console",
    "print_problems",
    "report_interrupt",
    "write_json",
]

JSON_HELP = (
    "Write the report as JSON to PATH, or to stdout with '-' (then nothing else is printed there)."
)

app = typer.Typer(
    name="pathjudge",
    help="Grade tool-using LLM agents: task success, tool-call correctness, trajectory quality.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def command_group(name: str, summary: str) -> typer.Typer:
    """A ``pathjudge NAME COMMAND`` group of commands, added to the app with its settings (usage
    on a bare call, no shell completion, help printed as written)."""
    group = typer.Typer(
        name=name, help=summary, no_args_is_help=True, add_completion=False, rich_markup_mode=None
    )
    app.add_typer(group)
    return group


_EXCEPTION_MODULES = ("click.exceptions", "typer.exceptions", "typer._click.exceptions")


def _exception_classes(name: str) -> tuple[type[BaseException], ...]:
    """``name`` from every exception module in play: click's, typer's own, and typer's vendored click.

    typer >= 0.20 ships its own copy of click (``typer._click``) and its own ``Exit``/``Abort``, so
    catching only ``click.exceptions.*`` would let a usage error escape as a traceback. Called when an
    exception is being caught, it looks only at the modules imported by then: one never imported
    cannot have raised it (and importing the standalone click, which typer >= 0.20 does not use, would
    cost every command's start-up).
    """
    found: list[type[BaseException]] = []
    for module_name in _EXCEPTION_MODULES:
        module = sys.modules.get(module_name)
        if module is None:
            continue
        cls = getattr(module, name, None)
        if isinstance(cls, type) and issubclass(cls, BaseException) and cls not in found:
            found.append(cls)
    return tuple(found)


# markup is off by default, so task ids, file names and model text print as text (a "[/x]" in them
# would otherwise vanish or raise MarkupError); styles come from code as rich Text spans. Every
# segment is escaped (no control character from data reaches the terminal), prose wraps at spaces
# and a word too long for the line is written whole (see pathjudge.report.text). Messages on stderr
# stay one line each (soft wrap: the terminal folds them), so a log line holds one whole error.
out_console = SafeConsole()
err_console = SafeConsole(stderr=True, soft_wrap=True)


def print_problems(
    label: str, problems: Sequence[object], *, more: str = "more", limit: int = 20
) -> None:
    """Print the first ``limit`` problems as ``label: <problem>`` lines on stderr, then how many more.

    ``label`` is rich markup (e.g. ``[yellow]skipped:[/]``); each problem is printed as plain text. An
    empty ``problems`` prints nothing.
    """
    for problem in problems[:limit]:
        err_console.print(f"{label} {escape(str(problem))}", markup=True)
    if len(problems) > limit:
        err_console.print(f"... and {len(problems) - limit} {more}")


def json_to_stdout(dest: Path | None) -> bool:
    """True when ``--json -`` asked for the JSON document on stdout (instead of the human view)."""
    return dest is not None and str(dest) == "-"


def human_console(json_dest: Path | None) -> SafeConsole:
    """Where a command's human lines go: stderr when ``--json -`` holds stdout, else stdout."""
    return err_console if json_to_stdout(json_dest) else out_console


def write_json(dest: Path | None, document: str, *, quiet: bool = False) -> None:
    """Write a ``--json PATH|-`` document: stdout for ``-``, else atomically to PATH (then say so,
    unless ``quiet``).

    Every command takes ``--json`` the same way: ``-`` prints only the JSON on stdout (the human view
    is left out, so the output parses), a path writes the file and the human view is printed as usual.
    On stdout the control characters that JSON allows raw are written as ``\\uXXXX`` escapes.
    """
    if dest is None:
        return
    text = document if document.endswith("\n") else document + "\n"
    if json_to_stdout(dest):
        from pathjudge.report.text import json_text

        out_console.file.write(json_text(text))
        out_console.file.flush()
        return
    from pathjudge._io import write_text_atomic

    write_text_atomic(dest, text)
    if not quiet:
        err_console.print(f"wrote {dest}")


OUTPUT_OPTIONS: dict[str, OutputKind] = {
    "output": "file",
    "json_out": "file",
    "junit": "file",
    "grades_out": "file",
    "html": "file",
    "markdown": "file",
    "save_verdicts": "file",
    "few_shot": "file",
    "queue_out": "file",
    "cache": "file",
    "plots": "folder",
    "otlp_file": "file",
}
"""Parameter names that are outputs, in every command (every other path parameter is an input)."""


def _output_kind(name: str, values: Mapping[str, Any]) -> OutputKind:
    """What an output option names: ``score --engine ray --grades`` writes a folder of shards."""
    if name == "grades_out" and values.get("engine") == "ray":
        return "folder"
    return OUTPUT_OPTIONS[name]


def _check_values(flags: Mapping[str, str], values: Mapping[str, Any]) -> None:
    """The rules every command obeys before it runs: finite floats, and safe output paths."""
    for name, value in values.items():
        if isinstance(value, float) and not math.isfinite(value):
            flag = flags.get(name, name)
            raise InputError(
                f"{flag} must be a finite number, got {value}",
                field=flag,
                hint="give a plain number",
            )
    outputs: dict[str, tuple[Path, OutputKind]] = {}
    inputs: list[tuple[str, Path]] = []
    for name, value in values.items():
        paths = value if isinstance(value, list | tuple) else [value]
        for path in paths:
            if name in OUTPUT_OPTIONS:
                if isinstance(path, str | Path) and not (name == "json_out" and str(path) == "-"):
                    # "--json -" is stdout, not a file
                    outputs[flags.get(name, name)] = (Path(path), _output_kind(name, values))
            elif isinstance(path, Path):
                inputs.append((flags.get(name, name), path))
            elif isinstance(path, str) and path and "://" not in path and os.path.exists(path):
                inputs.append((flags.get(name, name), Path(path)))  # a path given as text
    if outputs:
        check_outputs(outputs, inputs)


def _guard_commands(command: Any) -> None:
    """Wrap every command's callback to apply :func:`_check_values` before it runs (once).

    ``float()`` accepts ``nan`` and ``inf``, so a flag such as ``--alpha nan`` would slip past every
    range check; and an output path that is an input, a folder, under a file or in a read-only
    folder must fail before any work, naming the path (see :mod:`pathjudge._outputs`).
    """
    stack = [command]
    while stack:
        current = stack.pop()
        stack.extend(getattr(current, "commands", {}).values())
        callback = getattr(current, "callback", None)
        if callback is None or getattr(callback, "_pathjudge_guarded", False):
            continue
        flags = {
            param.name: (getattr(param, "opts", None) or [param.name])[0]
            for param in getattr(current, "params", ())
        }

        def checked(
            *args: Any, _callback: Any = callback, _flags: Any = flags, **kwargs: Any
        ) -> Any:
            _check_values(_flags, kwargs)
            return _callback(*args, **kwargs)

        checked._pathjudge_guarded = True  # type: ignore[attr-defined]
        current.callback = functools.update_wrapper(checked, callback)


def _click_command(args: Sequence[str]) -> Any:
    """The click command that runs ``args``: the whole application, or, when the first argument names
    a plain command (``score``, ``report``, ...), the application with that command alone.

    typer turns every command's signature into click parameters (annotations evaluated, one pydantic
    adapter per parameter) before it parses anything; doing that for the one command invoked instead
    of all of them keeps start-up short. The command, its parameters, help and errors are the same:
    the group it sits in holds only the root options and that command, and anything else (``--help``,
    ``--version``, a command group, an unknown or misspelt name) gets the whole application.
    """
    if args and not args[0].startswith("-"):
        for info in app.registered_commands:
            callback_name = getattr(info.callback, "__name__", "")
            if (info.name or typer.main.get_command_name(callback_name)) == args[0]:
                single = copy.copy(app)
                single.registered_commands = [info]
                single.registered_groups = []
                return typer.main.get_command(single)
    return typer.main.get_command(app)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit code (also used by the console script via ``sys.exit``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    from pathjudge._secrets import install_log_redaction
    from pathjudge._vocab import notices_on_stderr

    install_log_redaction()  # SDK debug logs (ANTHROPIC_LOG) never print a key
    _INTERRUPT_REPORTED.clear()  # a command's own Ctrl-C message counts for this call only
    command = _click_command(args)
    _guard_commands(command)
    try:
        with notices_on_stderr():  # deprecated spellings: a notice on stderr, not a Python warning
            result = command.main(args=args, prog_name="pathjudge", standalone_mode=False)
    except PathjudgeError as exc:
        from pathjudge._secrets import redact

        # escaped: a message such as "pip install 'pathjudge[judge]'" is text, not rich markup;
        # redacted: a value echoed back (a URL with user-info, a key) never reaches the terminal
        err_console.print(
            f"[bold red]error:[/] {escape(redact(str(exc)))}", markup=True, highlight=False
        )
        return exc.exit_code
    except _exception_classes("Exit") as exc:
        return (
            _interrupted()
            if int(getattr(exc, "exit_code", 0)) == 130
            else int(getattr(exc, "exit_code", 0))
        )
    except _exception_classes("Abort"):
        err_console.print("interrupted; everything finished so far is saved.")
        return 130
    except KeyboardInterrupt:
        err_console.print("interrupted; everything finished so far is saved, and a rerun resumes.")
        return 130
    except OSError as exc:
        if exc.filename is None:
            raise
        # a file the command could not read or write: one line naming it, never a traceback
        err_console.print(
            f"error: {exc.filename}: {exc.strerror or exc} — check the path and its permissions.",
            markup=False,
        )
        return 2
    except RecursionError:
        # a last line of defence: every reader bounds nesting itself and names the file
        err_console.print(
            "error: an input is nested too deeply to process — flatten it (no pathjudge file "
            "needs more than 100 levels).",
            markup=False,
        )
        return 2
    except _exception_classes("ClickException") as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `pathjudge`: the help text itself
            exc.show(file=sys.stderr)  # type: ignore[attr-defined]
        else:
            err_console.print(_usage_line(exc), markup=False, highlight=False)
        return int(getattr(exc, "exit_code", 2))
    if result == 130:  # typer turns Ctrl-C inside a command into a returned 130
        return _interrupted()
    if isinstance(result, int):
        return result
    return 0


def _usage_line(exc: BaseException) -> str:
    """A usage error (typo'd option, missing argument, bad value) as one line with where to look.

    ``Error: No such option: --suit (Possible options: --suite)`` and its ``Usage:``/``Try`` lines
    become ``error: No such option: --suit (Possible options: --suite) — see 'pathjudge score --help'.``
    """
    format_message = getattr(exc, "format_message", None)
    message = str(format_message()) if callable(format_message) else str(exc)
    message = " ".join(message.split()).rstrip(".")
    command = getattr(getattr(exc, "ctx", None), "command_path", None) or "pathjudge"
    return f"error: {message} — see '{command} --help'."


_INTERRUPT_REPORTED: list[bool] = []


def report_interrupt(message: str) -> None:
    """Print a command's own Ctrl-C message (instead of the generic one) before raising Exit(130)."""
    err_console.print(message)
    _INTERRUPT_REPORTED.append(True)


def _interrupted() -> int:
    if not _INTERRUPT_REPORTED:
        err_console.print("interrupted; everything finished so far is saved, and a rerun resumes.")
    return 130


def _print_version(value: bool) -> None:
    if value:
        from pathjudge import __version__

        out_console.print(f"pathjudge {__version__}", markup=False, highlight=False)
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        help="Print the version and exit.",
        is_eager=True,
        callback=_print_version,
    ),
) -> None:
    """Grade tool-using LLM agents: task success, tool-call correctness, trajectory quality."""
