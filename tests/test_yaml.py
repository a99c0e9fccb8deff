"""The anchor-free fast path of :func:`pathjudge._yaml.load_yaml` reads exactly what the full path reads.

A document without ``&`` has no anchor, so no alias: its nodes form a tree, checked by ``_check_tree``
and built by ``_construct_tree`` instead of the memoised graph walk and PyYAML's generator-based
constructor. Both must give the same data (types, key order) and the same first error as the full
path (``_check_graph`` then ``construct_document``), which is what every document used to take.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pathjudge import _yaml
from pathjudge.errors import SuiteError


def _shape(value: Any) -> Any:
    """Data with its types and key order spelt out (``1 == 1.0 == True`` would hide a difference)."""
    if isinstance(value, dict):
        return ("dict", [(_shape(k), _shape(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [_shape(item) for item in value])
    if isinstance(value, float) and math.isnan(value):
        return ("nan",)
    return (type(value).__name__, value)


def _outcome(read: Any) -> Any:
    try:
        return ("ok", _shape(read()))
    except SuiteError as exc:
        return ("error", str(exc))
    except Exception as exc:  # whatever the full path raises, the fast one must raise too
        return ("raised", type(exc).__name__, str(exc))


def _not_plain(loader: Any, root: Any) -> Any:
    raise _yaml._NotPlain


def _full_path(text: str) -> Any:
    """What ``load_yaml`` did for every document before the fast path: the graph walk, then PyYAML's
    own constructor (errors worded by ``load_yaml`` as ever)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_yaml, "_check_tree", _yaml._check_graph)
        patch.setattr(_yaml, "_construct_tree", _not_plain)  # load_yaml falls back to PyYAML's
        return _yaml.load_yaml(text, file="f.yaml", error=SuiteError)[0]


def _fast_path(text: str) -> Any:
    assert "&" not in text
    return _yaml.load_yaml(text, file="f.yaml", error=SuiteError)[0]


CASES = [
    "a: 1\nb: [1, 2.5, x, null, true]\n",
    "{a: [1, {b: 2}], a2: x, c: {d: [], e: {}}}",
    "- [a, [b, [c]]]\n- {k: v}\n",
    "x: .nan",
    "x: 1e400",
    "y: [1, {z: -.inf}]",
    "a: b\na: c",
    "{a: {b: 1, b: 2}}",
    "a: " + "[" * 120 + "]" * 120,
    "{1: x, 0x1: y}",  # equal keys spelt differently: the last wins, as in PyYAML
    "{true: a, yes: b}",
    "{null: a, ~: b}",
    "{1: x, 1.0: y}",
    "<<: {a: 1}\nb: 2",
    "= : x",
    "? [a]\n: 1",
    "a: !!int abc",
    "a: !!binary aGVsbG8=",
    "d: 2001-12-14",
    "s: !!set {a, b}",
    "o: !!omap [a: 1]",
    "a: !foo x",
    "k: [1:20, 0o17, 017, +.5, 1_000, -0, 0b101]",
    "'': 1",
    "1",
    "~",
    "- 1\n- - 2\n  - 3",
]


@pytest.mark.parametrize("text", CASES)
def test_an_anchor_free_document_reads_as_the_graph_walk_reads(text: str) -> None:
    assert _outcome(lambda: _fast_path(text)) == _outcome(lambda: _full_path(text))


_ATOMS = st.sampled_from(
    ["a", "b", "1", "1.5", "true", "yes", "null", "~", '"q"', "'s'", ".inf", ".nan", "0x1F", "1e3",
     "2001-01-01", "!!str 5", "<<", "=", "-0", "1e400", "''"]
)  # fmt: skip
_DOCS = st.recursive(
    _ATOMS,
    lambda inner: (
        st.lists(inner, max_size=4).map(lambda items: "[" + ", ".join(items) + "]")
        | st.lists(st.tuples(_ATOMS, inner), max_size=4).map(
            lambda pairs: "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
        )
    ),
    max_leaves=25,
)


@settings(max_examples=400, deadline=None)
@given(_DOCS)
def test_generated_anchor_free_documents_read_as_the_graph_walk_reads(text: str) -> None:
    assert _outcome(lambda: _fast_path(text)) == _outcome(lambda: _full_path(text))


def test_a_replaced_constructor_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    """``yaml.add_constructor`` on the loader class: the document is built the usual way."""
    constructors = dict(_yaml._Loader.yaml_constructors)
    constructors["tag:yaml.org,2002:str"] = lambda loader, node: node.value.upper()
    monkeypatch.setattr(_yaml._Loader, "yaml_constructors", constructors)
    assert _fast_path("a: [b, {c: d}]") == {"A": ["B", {"C": "D"}]}


def test_a_document_with_an_anchor_takes_the_graph_walk() -> None:
    data = _yaml.load_yaml("a: &x [1, 2]\nb: *x\n", file="f.yaml", error=SuiteError)[0]
    assert data == {"a": [1, 2], "b": [1, 2]}
    assert data["a"] is data["b"]
    bomb = "a: &a [" + ", ".join(["x"] * 10) + "]\n"
    for level in "bcdefg":
        prev = chr(ord(level) - 1)
        bomb += f"{level}: &{level} [" + ", ".join([f"*{prev}"] * 10) + "]\n"
    with pytest.raises(SuiteError, match="expand"):
        _yaml.load_yaml(bomb, file="f.yaml", error=SuiteError)


def test_the_full_path_is_still_yaml() -> None:
    assert yaml.safe_load("a: [1, 2]") == _fast_path("a: [1, 2]")
