"""Suite YAML: defaults and overrides, and clear errors that name the YAML line and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathjudge.errors import SuiteError
from pathjudge.rubrics.suite import deep_merge, load_suite, parse_suite_text

GOOD = """\
name: demo
defaults:
  steps: {budget: 4, max_redundant: 1}
  tools: {required: [search_docs]}
tasks:
  - id: a
    input: What?
    success: {kind: contains_all, values: ["x"]}
    steps: {budget: 1}
  - id: b
    kind: out_of_scope
"""


def test_defaults_deep_merge_with_task_overrides() -> None:
    suite = parse_suite_text(GOOD)
    a, b = suite.tasks
    assert a.steps is not None
    assert a.steps.budget == 1
    assert a.steps.max_redundant == 1
    assert b.steps is not None
    assert b.steps.budget == 4
    assert a.tools is not None
    assert a.tools.required == ("search_docs",)
    assert suite.task_line("b") == 10


def test_deep_merge_copies_and_replaces_lists() -> None:
    base = {"tools": {"required": ["a"]}, "n": 1}
    out = deep_merge(base, {"tools": {"required": ["b"], "forbidden": ["c"]}})
    assert out == {"tools": {"required": ["b"], "forbidden": ["c"]}, "n": 1}
    assert base == {"tools": {"required": ["a"]}, "n": 1}


def error_of(text: str) -> SuiteError:
    with pytest.raises(SuiteError) as info:
        parse_suite_text(text, file="s.yaml")
    return info.value


def test_unknown_mode_names_line_and_field() -> None:
    err = error_of(
        "name: d\ntasks:\n  - id: a\n    references:\n      - mode: sideways\n        steps: [{tool: t}]\n"
    )
    assert err.line == 5
    assert err.field == "tasks[0].references[0].mode"
    assert "s.yaml:5" in str(err)
    assert "in_order" in str(err)
    assert err.task_id == "a"


def test_typod_matcher_operator() -> None:
    err = error_of(
        "name: d\ntasks:\n  - id: a\n    references:\n      - steps:\n"
        "          - tool: t\n            args: {q: {$regx: x}}\n"
    )
    assert err.line == 7
    assert "$regx" in str(err)


def test_typod_task_key_and_typod_key_in_defaults() -> None:
    err = error_of("name: d\ntasks:\n  - id: a\n    step_budgte: 3\n")
    assert err.line == 4
    assert err.field == "tasks[0].step_budgte"
    assert "unknown key" in str(err)
    err = error_of("name: d\ndefaults:\n  stepz: {budget: 1}\ntasks:\n  - id: a\n")
    assert err.line == 3
    assert "defaults" in str(err)


def test_unknown_success_kind() -> None:
    err = error_of("name: d\ntasks:\n  - id: a\n    success: {kind: containz_all, values: [x]}\n")
    assert err.line == 4
    assert "containz_all" in str(err)


def test_duplicate_task_ids() -> None:
    err = error_of("name: d\ntasks:\n  - id: a\n  - id: b\n  - id: a\n")
    assert err.line == 5
    assert "first at line 3" in str(err)


def test_duplicate_yaml_keys_unknown_top_level_and_bad_yaml() -> None:
    assert error_of("name: d\nname: e\ntasks: [{id: a}]\n").line == 2
    assert error_of("name: d\ntaskz: []\n").line == 2
    assert error_of("name: d\ntasks: [{id: a}\n").line is not None
    assert "empty" in str(error_of(""))
    assert "at least 1" in str(error_of("name: d\ntasks: []\n"))


def test_out_of_scope_task_must_succeed_by_refusing() -> None:
    err = error_of(
        "name: d\ntasks:\n  - id: a\n    kind: out_of_scope\n    success: {kind: contains_all, values: [x]}\n"
    )
    assert "refusing" in str(err)


def test_judged_reference_required_when_read() -> None:
    err = error_of(
        "name: d\ntasks:\n  - id: a\n    judged:\n      - criterion: c\n        inputs: {points: reference}\n"
    )
    assert "reference" in str(err)
    assert err.line == 5


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match="not found"):
        load_suite(tmp_path / "nope.yaml")


def test_unknown_task_lookup_names_run_file_and_line() -> None:
    suite = parse_suite_text(GOOD)
    with pytest.raises(SuiteError) as info:
        suite.task("zzz", file="runs.jsonl", line=7)
    assert "runs.jsonl:7" in str(info.value)
    assert "'zzz'" in str(info.value)


@pytest.mark.parametrize("name", ["suite.yaml", "capstone-suite.yaml", "support-suite.yaml"])
def test_example_suites_load(repo_root: Path, name: str) -> None:
    suite = load_suite(repo_root / "examples" / "docent" / name)
    assert len(suite) >= 1
