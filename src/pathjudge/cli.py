"""``pathjudge`` command line: thin commands over the library (see ``pathjudge._cli``)."""

from __future__ import annotations

import importlib
import pkgutil
import sys

from pathjudge import _cli
from pathjudge._cli.app import app, main

__all__ = ["app", "main", "run"]

# Each module under pathjudge._cli registers its commands on ``app`` when imported.
for _module in sorted(m.name for m in pkgutil.iter_modules(_cli.__path__)):
    if _module != "app" and not _module.startswith("_"):
        importlib.import_module(f"pathjudge._cli.{_module}")


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    run()
