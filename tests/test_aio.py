"""``pathjudge._aio.run_sync``: asyncio.run without formatting the result at loop close."""

from __future__ import annotations

import pytest

from pathjudge._aio import run_sync


class Loud:
    """A result whose repr is counted (asyncio.run on 3.11 formats the main task's result)."""

    reprs = 0

    def __repr__(self) -> str:
        Loud.reprs += 1
        return "Loud()"


def test_the_result_is_returned_and_never_formatted() -> None:
    result = Loud()

    async def work() -> Loud:
        return result

    Loud.reprs = 0
    assert run_sync(work()) is result
    assert Loud.reprs == 0


def test_an_exception_propagates() -> None:
    async def fail() -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        run_sync(fail())
