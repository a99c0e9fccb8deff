"""The fast constructors of the hot path's records give what the dataclass's own would."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathjudge._records import builder, fast_init
from pathjudge.scoring.grade import RunGrade


@dataclass(frozen=True, slots=True)
class _Plain:
    a: int
    b: tuple[int, ...] = ()
    c: list[int] = field(default_factory=list)
    d: str = "d"

    def __post_init__(self) -> None:
        if self.a < 0:
            raise ValueError("a is negative")


@fast_init
@dataclass(frozen=True, slots=True)
class _Fast:
    a: int
    b: tuple[int, ...] = ()
    c: list[int] = field(default_factory=list)
    d: str = "d"

    def __post_init__(self) -> None:
        if self.a < 0:
            raise ValueError("a is negative")


_values = st.one_of(st.none(), st.integers(), st.text(max_size=5), st.tuples(st.integers()))


@settings(max_examples=200, deadline=None)
@given(st.fixed_dictionaries({f.name: _values for f in dataclasses.fields(RunGrade)}))
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


@pytest.mark.parametrize("cls", [_Plain, _Fast])
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
