"""The libyaml suite parser reads what the pure-Python one reads: same data, same node lines, same errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pathjudge._yaml import _Loader as _FAST_LOADER
from pathjudge.errors import SuiteError
from pathjudge.rubrics.suite import parse_suite_text


def _compose(text: str, loader_class: Any) -> tuple[yaml.Node | None, Any]:
    """The composed node tree of ``text`` and the data SafeConstructor builds from it."""
    loader = loader_class(text)
    try:
        root = loader.get_single_node()
        return root, (loader.construct_document(root) if root is not None else None)
    finally:
        loader.dispose()


REPO = Path(__file__).resolve().parents[2]
needs_libyaml = pytest.mark.skipif(
    _FAST_LOADER is yaml.SafeLoader, reason="PyYAML built without libyaml"
)


def _shape(node: yaml.Node | None) -> Any:
    """Each node's kind, tag, start line/column and value, recursively (what the suite parser reads)."""
    if node is None:
        return None
    where = (type(node).__name__, node.tag, node.start_mark.line, node.start_mark.column)
    if isinstance(node, yaml.MappingNode):
        return (*where, [(_shape(k), _shape(v)) for k, v in node.value])
    if isinstance(node, yaml.SequenceNode):
        return (*where, [_shape(item) for item in node.value])
    return (*where, node.value)


def _same(text: str) -> None:
    fast_root, fast_data = _compose(text, _FAST_LOADER)
    plain_root, plain_data = _compose(text, yaml.SafeLoader)
    assert fast_data == plain_data
    assert _shape(fast_root) == _shape(plain_root)


@needs_libyaml
@pytest.mark.parametrize("suite", sorted((REPO / "examples").rglob("*suite*.yaml")), ids=str)
def test_example_suites_parse_the_same(suite: Path) -> None:
    _same(suite.read_text(encoding="utf-8"))


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@needs_libyaml
@settings(max_examples=150, deadline=None)
@given(data=_json, flow=st.sampled_from([None, True, False]))
def test_any_json_like_document_parses_the_same(data: Any, flow: bool | None) -> None:
    _same(yaml.safe_dump({"tasks": data}, default_flow_style=flow, allow_unicode=True))


@settings(max_examples=150, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("ab:- {}[],'\"\n\t#&*!|>?%@`")), max_size=40))
def test_arbitrary_text_gives_a_suite_or_one_suite_error(text: str) -> None:
    # libyaml is a little more lenient than the pure parser on some malformed text (e.g. "::\t"); what
    # must hold for any text is one clear SuiteError, and for bad YAML the pure parser's message
    message = None
    try:
        parse_suite_text(text, file="s.yaml")
    except SuiteError as exc:
        message = str(exc)
    try:
        _compose(text, _FAST_LOADER)
    except yaml.YAMLError:
        # bad YAML for libyaml: the error is the pure parser's (which rejects it too)
        with pytest.raises(yaml.YAMLError):
            _compose(text, yaml.SafeLoader)
        assert message is not None
        assert "not valid YAML" in message


def test_bad_yaml_error_names_the_line() -> None:
    with pytest.raises(SuiteError) as caught:
        parse_suite_text("tasks:\n  - id: a\n    input: [unclosed\n", file="s.yaml")
    assert "not valid YAML" in str(caught.value)
    assert caught.value.line is not None


# -- a string that validation turns into a non-finite number --------------------------------------


@pytest.mark.parametrize("spelling", ['"1e400"', '"inf"', '"Infinity"'])
def test_a_string_that_validates_to_a_nonfinite_number_is_refused(spelling: str) -> None:
    text = (
        "schema_version: 1\nname: s\n"
        f"gate: {{max_token_increase: {spelling}}}\n"
        "tasks:\n  - id: t\n    input: q\n    success: {kind: contains_all, values: [x]}\n"
    )
    with pytest.raises(SuiteError, match="not a finite number") as caught:
        parse_suite_text(text)
    assert caught.value.field == "gate.max_token_increase"
