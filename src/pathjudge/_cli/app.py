"""The typer application and the one place where errors become exit codes.

Exit codes: 0 success, 1 a gate or threshold was missed (score, diff), 2 bad input or a missing extra
(printed as one line, no traceback), 130 interrupted (partial work is already on disk).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click
import typer
from rich.console import Console

from pathjudge.errors import PathjudgeError

__all__ = ["app", "err_console", "main", "out_console"]

app = typer.Typer(
    name="pathjudge",
    help="Grade tool-using LLM agents: task success, tool-call correctness, trajectory quality.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

out_console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit code (also used by the console script via ``sys.exit``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    command = typer.main.get_command(app)
    try:
        result = command.main(args=args, prog_name="pathjudge", standalone_mode=False)
    except PathjudgeError as exc:
        err_console.print(f"[bold red]error:[/] {exc}", markup=True, highlight=False)
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.exceptions.Abort:
        err_console.print("interrupted; everything finished so far is saved.")
        return 130
    except KeyboardInterrupt:
        err_console.print("interrupted; everything finished so far is saved, and a rerun resumes.")
        return 130
    except click.ClickException as exc:
        exc.show(file=sys.stderr)
        return exc.exit_code
    if isinstance(result, int):
        return result
    return 0


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", help="Print the version and exit.", is_eager=True),
) -> None:
    """Grade tool-using LLM agents: task success, tool-call correctness, trajectory quality."""
    if version:
        from pathjudge import __version__

        out_console.print(f"pathjudge {__version__}")
        raise typer.Exit(0)
