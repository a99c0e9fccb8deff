"""``pathjudge`` command line: thin commands over the library (see ``pathjudge._cli``).

Each module imported below registers its commands on ``app``; the import order is the order of
``pathjudge --help``. Command modules import heavy libraries inside the command bodies, so start-up
stays fast.
"""

from __future__ import annotations

import gc
import sys

# isort: off
from pathjudge._cli import (  # noqa: F401  (imported for their command registrations)
    importing,
    show,
    score,
    judge,
    calibrate,
    bias,
    panel,
    align,
    label,
    criteria,
    run,
    diff,
    mutate,
    audit,
    report,
    export,
    config,
    label_studio,
)

# isort: on
from pathjudge._cli.app import app, main

__all__ = ["app", "main", "run_cli"]


def run_cli() -> None:
    """Console-script entry point."""
    # A command starts by making long-lived objects (its imports, pydantic's schemas, the suite) and
    # little garbage; at the collector's default pace (a young collection every 700 new objects) a
    # cold `score --fast` spent a tenth of its start-up walking them again. Cycles are still
    # collected, every 10,000 new objects.
    gc.set_threshold(10_000)
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    run_cli()
