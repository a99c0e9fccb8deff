"""Fast construction for the frozen, slotted dataclasses of the grading hot path.

A frozen dataclass's generated ``__init__`` sets each field through ``object.__setattr__``; for records
built once or more per graded run that is a measurable share of the time. :func:`fast_init` replaces
it with one that has the same signature and defaults and leaves the same immutable record, built the
cheapest way CPython allows: the instance briefly takes a plain twin class with the very same slots
(so each field is one ordinary slot store, not a descriptor call), then gets its class back. Where the
twin cannot stand in (a subclass, or a layout the twin does not share) each slot is set through its
descriptor. Either way assignment afterwards still raises ``FrozenInstanceError``.

:func:`builder` goes one step further for a record built once per graded run: a function with the
same signature as ``__init__`` that allocates the instance as the twin, sets its slots and gives it the
record's class once (one ``__class__`` exchange instead of two).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["builder", "fast_init"]

T = TypeVar("T")

_MISSING = object()


def _signature(cls: type, space: dict[str, Any]) -> tuple[list[str], list[str], list[str]]:
    """The fields of the dataclass ``cls`` as a generated constructor takes them: its parameters
    (defaults and factories bound in ``space``), the prologue that calls the factories of those not
    given, and the field names in order."""
    params: list[str] = []
    prologue: list[str] = []
    names: list[str] = []
    for item in dataclasses.fields(cls):
        name = item.name
        names.append(name)
        if item.default is not dataclasses.MISSING:
            space[f"_default_{name}"] = item.default
            params.append(f"{name}=_default_{name}")
        elif item.default_factory is not dataclasses.MISSING:
            space[f"_factory_{name}"] = item.default_factory
            params.append(f"{name}=_MISSING")
            prologue.append(f"if {name} is _MISSING: {name} = _factory_{name}()")
        else:
            params.append(name)
    return params, prologue, names


def fast_init(cls: type[T]) -> type[T]:
    """Give the frozen slotted dataclass ``cls`` a faster ``__init__`` (keeps ``__post_init__``)."""
    space: dict[str, Any] = {"_MISSING": _MISSING, "_cls": cls, "_setattr": object.__setattr__}
    params, prologue, names = _signature(cls, space)
    for name in names:
        space[f"_set_{name}"] = cls.__dict__[name].__set__
    stores = [f"self.{name} = {name}" for name in names]
    setters = [f"_set_{name}(self, {name})" for name in names]
    twin = _twin(cls)
    body = list(prologue)
    if twin is not None and stores:
        space["_twin"] = twin
        body.append("if type(self) is _cls:")
        body.append("    _setattr(self, '__class__', _twin)")
        body.extend(f"    {line}" for line in stores)
        body.append("    self.__class__ = _cls")
        body.append("else:")
        body.extend(f"    {line}" for line in setters)
    else:
        body.extend(setters)
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    source = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(
        f"    {line}" for line in body or ["pass"]
    )
    exec(source, space)
    init = space["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


def _twin(cls: type) -> type | None:
    """A plain (mutable) class with exactly the slots of ``cls``, which an instance of ``cls`` can
    take and give back (``None`` when CPython refuses the exchange, e.g. inherited slots)."""
    slots = cls.__dict__.get("__slots__")
    if not isinstance(slots, tuple) or cls.__bases__ != (object,):
        return None
    twin = type(f"_{cls.__name__}Builder", (), {"__slots__": slots, "__module__": cls.__module__})
    probe: object = object.__new__(cls)
    try:
        object.__setattr__(probe, "__class__", twin)
        object.__setattr__(probe, "__class__", cls)
    except TypeError:
        return None
    return twin


def builder(cls: type[T]) -> Callable[..., T]:
    """A constructor of the frozen slotted dataclass ``cls``: ``builder(cls)(...)`` takes what
    ``cls(...)`` takes and gives an equal instance of ``cls`` (frozen afterwards; ``__post_init__``
    kept), built as the twin and then given its class. Where no twin can stand in for ``cls``,
    ``cls`` itself is returned."""
    twin = _twin(cls)
    if twin is None:
        return cls
    space: dict[str, Any] = {"_MISSING": _MISSING, "_new": object.__new__, "_twin": twin}
    params, prologue, names = _signature(cls, space)
    space["_cls"] = cls
    body = ["self = _new(_twin)", *prologue, *(f"self.{name} = {name}" for name in names)]
    body.append("self.__class__ = _cls")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    body.append("return self")
    source = f"def build({', '.join(params)}):\n" + "".join(f"    {line}\n" for line in body)
    exec(source, space)
    build: Callable[..., T] = space["build"]
    build.__qualname__ = build.__name__ = f"build_{cls.__name__}"
    build.__module__ = cls.__module__
    return build
