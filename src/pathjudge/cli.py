"""``pathjudge`` command line: thin commands over the library (see ``pathjudge._cli``).

Each command's module registers it on ``app`` when imported; :func:`main` imports only the module of
the command it runs (or all of them, for ``--help`` and the like), so start-up does not pay for the
other commands. ``pathjudge.cli.app`` is the whole application, every command registered. Command
modules import heavy libraries inside the command bodies, so start-up stays fast.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from pathjudge._cli.app import main, register_commands

if TYPE_CHECKING:
    from pathjudge._cli.app import app

__all__ = ["app", "main", "run_cli"]


def __getattr__(name: str) -> Any:
    if name == "app":  # the whole application, for those who drive it themselves
        from pathjudge._cli.app import app

        register_commands()
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run_cli() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    run_cli()
