"""Running a coroutine to completion from synchronous code."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run_sync"]

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)``, without the main task holding the result when the loop closes.

    While ``asyncio.run`` tears its loop down it calls ``signal.getsignal(SIGINT)``, which (on
    CPython 3.11) formats the ``repr`` of the SIGINT handler it installed: a ``partial`` holding the
    main task, whose ``repr`` includes the task's result. For a judge run that result holds every
    verdict, and formatting it cost as much CPU as a few hundred judge calls per thousand items.
    Here the main task returns ``None`` and the result travels beside it.
    """
    box: list[T] = []

    async def main() -> None:
        box.append(await coro)

    asyncio.run(main())
    return box[0]
