"""The shortcuts of reason rendering give the plain definitions' text.

``render_value`` renders through one prebuilt encoder (and a plain string through the encoder's string
escaper) instead of a ``json.dumps`` call per value: the text must be exactly ``json.dumps(value,
ensure_ascii=False, sort_keys=True)`` cut to the limit, or ``repr`` when the value is not JSON.
"""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from pathjudge.rubrics.assertions._normalize import render_value


def _plain(value: object, limit: int = 60) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Str(str):
    pass


class _Int(int):
    pass


class _Float(float):
    pass


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(_json, st.integers(min_value=1, max_value=80))
def test_render_value_is_the_json_dumps_text(value: object, limit: int) -> None:
    assert render_value(value, limit) == _plain(value, limit)
    assert render_value(value) == _plain(value)


@given(st.text())
def test_render_value_of_strings_and_string_subclasses(text: str) -> None:
    assert render_value(text) == _plain(text)
    assert render_value(_Str(text)) == _plain(_Str(text))


@given(st.integers() | st.floats() | st.booleans() | st.none())
def test_render_value_of_scalars_and_scalar_subclasses(value: int | float | bool | None) -> None:
    # the scalar shortcut writes what the encoder writes, subclasses included (they take the encoder)
    assert render_value(value) == _plain(value)
    if type(value) is int:
        assert render_value(_Int(value)) == _plain(_Int(value))
    if type(value) is float:
        assert render_value(_Float(value)) == _plain(_Float(value))


def test_render_value_of_values_json_cannot_write() -> None:
    for value in ({1: {2}}, {(1, 2): 3}, object, {"a": b"x"}, [math.nan, {"k": {1, 2}}]):
        assert render_value(value) == _plain(value)
    circular: list[object] = []
    circular.append(circular)
    assert render_value(circular) == _plain(circular)
