"""``fast_init`` builds the very record the dataclass's own ``__init__`` builds, and keeps it frozen.

The fast ``__init__`` lets the instance take a plain twin class with the same slots while it sets
them, then gives it its class back; a subclass (or a layout the twin cannot share) sets each slot
through its descriptor. The plain path is the dataclass's generated ``__init__``.
"""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathjudge._records import _twin, fast_init
from pathjudge.rubrics.assertions.arguments import ArgMismatch, CallMatch
from pathjudge.rubrics.path import ArgDiff, PairedStep, PathAlignment, StepMatch
from pathjudge.scoring.grade import JudgedResult, RunGrade

_values = st.one_of(
    st.none(), st.integers(), st.text(max_size=3), st.booleans(), st.tuples(st.integers())
)


@dataclass(frozen=True, slots=True)
class _Plain:
    a: Any
    b: Any = "b"
    c: Any = field(default_factory=lambda: ["c"])

    def __post_init__(self) -> None:
        _SEEN.append(self.a)


@fast_init
@dataclass(frozen=True, slots=True)
class _Quick:
    a: Any
    b: Any = "b"
    c: Any = field(default_factory=lambda: ["c"])

    def __post_init__(self) -> None:
        _SEEN.append(self.a)


@dataclass(frozen=True)
class _Sub(_Quick):  # a subclass with its own __dict__: the descriptor path
    pass


_SEEN: list[Any] = []


def _state(obj: Any) -> list[Any]:
    return [getattr(obj, f.name) for f in dataclasses.fields(obj)]


@settings(max_examples=200, deadline=None)
@given(_values, st.lists(_values, max_size=2))
def test_fast_init_builds_what_the_dataclass_init_builds(a: Any, rest: list[Any]) -> None:
    plain = _Plain(a, *rest)
    for cls in (_Quick, _Sub):
        _SEEN.clear()
        quick = cls(a, *rest)
        assert type(quick) is cls
        assert _state(quick) == _state(plain)
        assert [a] == _SEEN  # __post_init__ ran once, on the finished record
        with pytest.raises(dataclasses.FrozenInstanceError):
            quick.a = 1  # type: ignore[misc]
        assert pickle.loads(pickle.dumps(quick)) == quick
        assert dataclasses.replace(quick, b=a) == cls(a, a, *rest[1:])


def _plain_build(cls: type, values: list[Any]) -> Any:
    """The record as the stdlib dataclass ``__init__`` would leave it: each field set by
    ``object.__setattr__``."""
    obj = object.__new__(cls)
    for f, value in zip(dataclasses.fields(cls), values, strict=True):
        object.__setattr__(obj, f.name, value)
    return obj


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_the_hot_path_records_build_as_the_plain_init_would(data: st.DataObject) -> None:
    for cls in (
        ArgDiff,
        StepMatch,
        PairedStep,
        PathAlignment,
        ArgMismatch,
        CallMatch,
        JudgedResult,
        RunGrade,
    ):
        assert _twin(cls) is not None  # each takes the fast path
        names = [f.name for f in dataclasses.fields(cls)]
        values = data.draw(st.lists(_values, min_size=len(names), max_size=len(names)))
        quick = cls(*values)
        assert type(quick) is cls
        assert _state(quick) == values
        assert repr(quick) == repr(_plain_build(cls, values))
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(quick, names[0], None)
