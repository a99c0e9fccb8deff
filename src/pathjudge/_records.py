"""Fast construction for the frozen, slotted dataclasses of the grading hot path.

A frozen dataclass's generated ``__init__`` sets each field through ``object.__setattr__``; for records
built once or more per graded run that is a measurable share of the time. :func:`fast_init` replaces
it with one that sets the slots through their descriptors: same signature, same defaults, same
immutability afterwards (assignment still raises ``FrozenInstanceError``).

:func:`builder` goes further for a record with many fields built once per run: a function with the
same signature as ``__init__`` that sets the fields on an instance of a plain twin class (the same
slots, so plain attribute stores) and then makes it an instance of the record class (``__class__``
assignment, which CPython allows between classes of the same layout).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["builder", "fast_init"]

T = TypeVar("T")

_MISSING = object()


def fast_init(cls: type[T]) -> type[T]:
    """Give the frozen slotted dataclass ``cls`` a faster ``__init__`` (keeps ``__post_init__``)."""
    params: list[str] = []
    body: list[str] = []
    space: dict[str, Any] = {"_MISSING": _MISSING}
    for item in dataclasses.fields(cls):  # type: ignore[arg-type]
        name = item.name
        space[f"_set_{name}"] = cls.__dict__[name].__set__
        if item.default is not dataclasses.MISSING:
            space[f"_default_{name}"] = item.default
            params.append(f"{name}=_default_{name}")
        elif item.default_factory is not dataclasses.MISSING:
            space[f"_factory_{name}"] = item.default_factory
            params.append(f"{name}=_MISSING")
            body.append(f"if {name} is _MISSING: {name} = _factory_{name}()")
        else:
            params.append(name)
        body.append(f"_set_{name}(self, {name})")
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


def builder(cls: type[T]) -> Callable[..., T]:
    """A constructor of the frozen slotted dataclass ``cls``: ``builder(cls)(...)`` takes what
    ``cls(...)`` takes and gives an equal instance of ``cls`` (same fields, frozen afterwards), faster
    for a record of many fields. Keeps ``__post_init__``. Where the interpreter refuses the
    ``__class__`` assignment it relies on, ``cls`` itself is returned."""
    names: list[str] = []
    params: list[str] = []
    body: list[str] = []
    space: dict[str, Any] = {"_MISSING": _MISSING, "_new": object.__new__, "_cls": cls}
    for item in dataclasses.fields(cls):  # type: ignore[arg-type]
        name = item.name
        names.append(name)
        if item.default is not dataclasses.MISSING:
            space[f"_default_{name}"] = item.default
            params.append(f"{name}=_default_{name}")
        elif item.default_factory is not dataclasses.MISSING:
            space[f"_factory_{name}"] = item.default_factory
            params.append(f"{name}=_MISSING")
            body.append(f"if {name} is _MISSING: {name} = _factory_{name}()")
        else:
            params.append(name)
        body.append(f"self.{name} = {name}")
    slots = tuple(cls.__dict__.get("__slots__", ()))
    if slots != tuple(names):  # not a slotted dataclass whose slots are its fields, in order
        return cls
    space["_Twin"] = type(f"_{cls.__name__}Builder", (), {"__slots__": slots})
    body.append("self.__class__ = _cls")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    source = (
        f"def build({', '.join(params)}):\n    self = _new(_Twin)\n"
        + "".join(f"    {line}\n" for line in body)
        + "    return self\n"
    )
    exec(source, space)
    build: Callable[..., T] = space["build"]
    build.__qualname__ = build.__name__ = f"build_{cls.__name__}"
    build.__module__ = cls.__module__
    try:  # the layout check is the interpreter's: ask it once
        probe = space["_Twin"]()
        probe.__class__ = cls
    except TypeError:  # pragma: no cover - an interpreter without __class__ assignment
        return cls
    return build
