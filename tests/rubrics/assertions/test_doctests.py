"""The examples in the assertion modules' docstrings run as written."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

from pathjudge.rubrics.assertions import _normalize, arguments, base, outcome, said_vs_did


@pytest.mark.parametrize(
    "module", [_normalize, arguments, base, outcome, said_vs_did], ids=lambda m: m.__name__
)
def test_docstring_examples(module: ModuleType) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0
    assert result.failed == 0
