"""``fast_init`` builds the very record the dataclass's own ``__init__`` builds, and keeps it frozen.

The fast ``__init__`` lets the instance take a plain twin class with the same slots while it sets
them, then gives it its class back; a subclass (or a layout the twin cannot share) sets each slot
through its descriptor. The plain path is the dataclass's generated ``__init__``. ``builder`` (the
grade's constructor) is pinned to the constructor the same way.
"""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathjudge._records import _twin, builder, fast_init
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


# builder: allocated as the twin, given its class once


def _b_record() -> type[Any]:
    """A fresh frozen slotted record with a default, a default factory and a ``__post_init__`` check
    (one declaration, so the plain and the fast class below cannot drift apart)."""

    @dataclass(frozen=True, slots=True)
    class Record:
        a: int
        b: tuple[int, ...] = ()
        c: list[int] = field(default_factory=list)
        d: str = "d"

        def __post_init__(self) -> None:
            if self.a < 0:
                raise ValueError("a is negative")

    return Record


_BPlain = _b_record()
_BFast = fast_init(_b_record())


_bvalues = st.one_of(st.none(), st.integers(), st.text(max_size=5), st.tuples(st.integers()))


@settings(max_examples=200, deadline=None)
@given(st.fixed_dictionaries({f.name: _bvalues for f in dataclasses.fields(RunGrade)}))
def test_the_run_grade_builder_equals_the_constructor(fields: dict[str, Any]) -> None:
    made = builder(RunGrade)(**fields)
    plain = RunGrade(**fields)
    assert type(made) is RunGrade
    assert made == plain
    assert repr(made) == repr(plain)
    assert pickle.loads(pickle.dumps(made)) == plain
    assert dataclasses.replace(made, epoch=7) == dataclasses.replace(plain, epoch=7)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.run_id = "x"  # type: ignore[misc]
    for record in (made, plain):  # a name that is no field: what the dataclass does, either way
        with pytest.raises((AttributeError, TypeError)):
            record.extra = 1  # type: ignore[attr-defined]


@pytest.mark.parametrize("cls", [_BPlain, _BFast])
def test_a_builder_keeps_defaults_factories_and_post_init(cls: type[Any]) -> None:
    build = builder(cls)
    assert build(1) == cls(1)
    assert build(1).c is not build(1).c  # a fresh default per instance
    assert build(2, (3,), [4], d="x") == cls(2, (3,), [4], d="x")
    with pytest.raises(ValueError, match="negative"):
        build(-1)
    with pytest.raises(TypeError):
        build()
    with pytest.raises(dataclasses.FrozenInstanceError):
        build(1).a = 2


def test_a_class_whose_slots_are_not_its_fields_gets_its_own_constructor() -> None:
    @dataclass(frozen=True)
    class Unslotted:
        a: int

    assert builder(Unslotted) is Unslotted
